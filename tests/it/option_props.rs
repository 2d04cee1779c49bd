//! Every numeric option, given any string: either it parses to a finite, usable value
//! (checked against the option's documented range), or it is one usage line naming the
//! option, exit 2 (a few of them through the binary). Negative numbers always reach the
//! option's parser (never "unexpected argument '-0'").

use clap::Parser;
use cpuprof_tui::cli::{Cli, Command};
use cpuprof_tui::etdump::TimeUnit;
use proptest::prelude::*;

/// Strings a user or a script could pass: numbers of every shape, signs, units, junk.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<f64>().prop_map(|f| f.to_string()),
        any::<i64>().prop_map(|i| i.to_string()),
        any::<u64>().prop_map(|i| i.to_string()),
        "[-+]?[0-9]{0,25}(\\.[0-9]{0,5})?([eE][-+]?[0-9]{1,4})?",
        "[-+]?[0-9]{1,22}[ ]?(k|K|m|M|g|G|t|T|p|P|e|E|KiB|MB|gb|GHz|MHz|kHz|Hz|THz|x)?",
        "(inf|-inf|NaN|nan|infinity|-0|0x10|1_000|\\.5|5\\.|--|-|auto|\\.\\.|-3\\.\\.|1\\.\\.=2)",
        ".{0,12}",
    ]
}

fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
    Cli::try_parse_from(std::iter::once("cpuprof-tui").chain(args.iter().copied()))
}

/// The error is about `option`, on one line once made a usage line, and not clap
/// mistaking the value for a flag.
fn check_usage_error(e: &clap::Error, option: &str, value: &str) {
    let line = cpuprof_tui::cli::usage_line(e);
    assert!(!line.contains('\n'), "{line}");
    assert!(
        line.contains(option),
        "{option} {value:?}: the message does not name the option: {line}"
    );
    assert!(
        !line.contains("unexpected argument"),
        "{option} {value:?}: taken for a flag: {line}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn time_unit(v in prop_oneof![value(), value().prop_map(|v| format!("cycles:{v}"))]) {
        match parse(&["report", "x.etdp", "--time-unit", &v]) {
            Ok(cli) => {
                let unit = cli.time_unit.unwrap();
                let ns = unit.ns_per_tick();
                // A tick between 1 fs and 1 s, finite.
                prop_assert!(ns.is_finite() && (1e-6..=1e9).contains(&ns), "{v:?}: {unit:?}");
                if let TimeUnit::Cycles(hz) = unit {
                    prop_assert!(hz.is_finite() && (1.0..=1e15).contains(&hz), "{v:?}");
                }
            }
            Err(e) => check_usage_error(&e, "--time-unit", &v),
        }
    }

    #[test]
    fn max_input_size(v in value()) {
        match parse(&["report", "x.etdp", "--max-input-size", &v]) {
            Ok(cli) => prop_assert!(cli.max_input_size.unwrap() >= 1, "{v:?}"),
            Err(e) => check_usage_error(&e, "--max-input-size", &v),
        }
    }

    #[test]
    fn compare_numbers(v in value(), which in 0usize..3) {
        let option = ["--alpha", "--min-change", "--fail-on-regression"][which];
        match parse(&["compare", "a", "b", option, &v]) {
            Ok(cli) => {
                let Some(Command::Compare(a)) = cli.command else { panic!("not compare") };
                match which {
                    0 => prop_assert!(a.alpha.is_finite() && a.alpha > 0.0 && a.alpha < 1.0),
                    1 => prop_assert!(a.min_change.is_finite() && a.min_change >= 0.0),
                    _ => {
                        let f = a.fail_on_regression.unwrap();
                        prop_assert!(f.is_finite() && f >= 0.0)
                    }
                }
            }
            Err(e) => check_usage_error(&e, option, &v),
        }
    }

    #[test]
    fn fleet_numbers(v in value(), which in 0usize..4) {
        let option = ["--alpha", "--min-change", "--jobs", "--warmup"][which];
        match parse(&["fleet", "dir", option, &v]) {
            Ok(cli) => {
                let Some(Command::Fleet(a)) = cli.command else { panic!("not fleet") };
                match which {
                    0 => prop_assert!(a.alpha.is_finite() && a.alpha > 0.0 && a.alpha < 1.0),
                    1 => prop_assert!(a.min_change.is_finite() && a.min_change >= 0.0),
                    2 => prop_assert!(a.jobs.unwrap() >= 1),
                    _ => {}
                }
            }
            Err(e) => check_usage_error(&e, option, &v),
        }
    }

    #[test]
    fn warmup(v in value(), which in 0usize..4) {
        let args: Vec<&str> = match which {
            0 => vec!["report", "x", "--warmup", &v],
            1 => vec!["compare", "a", "b", "--warmup-a", &v],
            2 => vec!["export", "x", "--format", "folded", "--warmup", &v],
            _ => vec!["--warmup", &v, "x"],
        };
        let option = if which == 1 { "--warmup-a" } else { "--warmup" };
        if let Err(e) = parse(&args) {
            check_usage_error(&e, option, &v);
        }
    }

    #[test]
    fn run_numbers(v in value(), which in 0usize..4) {
        // `run`'s options come before `--` and the program: any value reaches the parser.
        let option = ["--grace", "--warmup", "--timed", "--repeat"][which];
        match parse(&["run", option, &v, "--", "prog"]) {
            Ok(cli) => {
                let Some(Command::Run(a)) = cli.command else { panic!("not run") };
                match which {
                    0 => prop_assert!(a.grace.is_finite() && (0.0..=3600.0).contains(&a.grace), "{v:?}"),
                    2 => prop_assert!(a.timed.unwrap() >= 1, "{v:?}"),
                    3 => prop_assert!(a.repeat >= 1, "{v:?}"),
                    _ => {}
                }
                prop_assert_eq!(a.command, vec![std::ffi::OsString::from("prog")]);
            }
            Err(e) => check_usage_error(&e, option, &v),
        }
    }

    #[test]
    fn runs_reach_their_parser(v in value()) {
        // `--runs` is checked by export before anything is read; clap must hand it over.
        match parse(&["export", "x", "--format", "folded", "--runs", &v]) {
            Ok(cli) => {
                let Some(Command::Export(a)) = cli.command else { panic!("not export") };
                prop_assert_eq!(a.runs.as_deref(), Some(v.as_str()));
            }
            Err(e) => check_usage_error(&e, "--runs", &v),
        }
    }
}

/// Through the binary: hostile values are one line naming the option, exit 2, and
/// nothing on stdout.
#[test]
fn the_binary_prints_one_usage_line() {
    let dump = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/cpu/mlp_basic.etdp");
    for (option, value) in [
        ("--alpha", "-1e-300"),
        ("--min-change", "-0"),
        ("--fail-on-regression", "nan"),
        ("--time-unit", "cycles:1e-3"),
        ("--max-input-size", "-0.5G"),
        ("--warmup", "-9999999999999999999999"),
    ] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
            .args([
                "compare", dump, dump, "--no-log", "--format", "json", option, value,
            ])
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        if option == "--min-change" {
            // -0 is 0: a usable percentage.
            assert_ne!(o.status.code(), Some(2), "{option} {value}: {e}");
            continue;
        }
        assert_eq!(o.status.code(), Some(2), "{option} {value}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(option), "{e}");
        assert!(o.stdout.is_empty());
    }
}
