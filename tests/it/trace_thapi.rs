//! THAPI fixture (real LTTng recording): parsed events against `expected_events.tsv`
//! (truth read from the CTF payload bytes), tally against the golden, self times against
//! `expected_self_time.tsv`.

use std::collections::HashMap;
use std::path::Path;

use cpuprof_tui::report::tally::{render_tally, TallyOptions};
use cpuprof_tui::trace::{
    pair_events, parse_lttng_events, LttngEvent, OpEventKind, TraceFormat, TraceProfile,
};

const DIR: &str = "fixtures/thapi";
const DAY_NS: i64 = 86_400_000_000_000;

fn read(name: &str) -> String {
    std::fs::read_to_string(Path::new(DIR).join(name)).unwrap()
}

/// Exact ns from `1795934914.832333283`, independent of the crate's parser.
fn ns(ts: &str) -> i64 {
    let (s, f) = ts.split_once('.').unwrap();
    let f = format!("{f:0<9}");
    s.parse::<i64>().unwrap() * 1_000_000_000 + f[..9].parse::<i64>().unwrap()
}

struct Truth {
    ts_ns: i64,
    kind: OpEventKind,
    vpid: i64,
    vtid: i64,
    name: String,
    overload: String,
}

fn truth() -> Vec<Truth> {
    read("expected_events.tsv")
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Truth {
                ts_ns: ns(f[0]),
                kind: if f[1].ends_with("op_entry") {
                    OpEventKind::Entry
                } else {
                    OpEventKind::Exit
                },
                vpid: f[2].parse().unwrap(),
                vtid: f[3].parse().unwrap(),
                name: f[4].to_string(),
                overload: f.get(5).unwrap_or(&"").to_string(),
            }
        })
        .collect()
}

/// line number -> (printed overload, true overload)
fn stale_lines() -> HashMap<usize, (String, String)> {
    read("babeltrace2_stale_overload_lines.tsv")
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                f[0].parse().unwrap(),
                (f[3].to_string(), f.get(4).unwrap_or(&"").to_string()),
            )
        })
        .collect()
}

fn check_events(file: &str, time_of_day: bool) {
    let (events, _warnings) = parse_lttng_events(&read(file)).unwrap();
    let truth = truth();
    let stale = stale_lines();
    assert_eq!(stale.len(), 13);
    assert_eq!(events.len(), truth.len());
    for (i, (e, t)) in events.iter().zip(&truth).enumerate() {
        let line = i + 1;
        assert_eq!(e.line, line);
        let want_ts = if time_of_day {
            t.ts_ns % DAY_NS
        } else {
            t.ts_ns
        };
        assert_eq!(e.ts_ns, want_ts, "{file}:{line}");
        assert_eq!(
            (e.kind, e.vpid, e.vtid),
            (t.kind, t.vpid, t.vtid),
            "{file}:{line}"
        );
        assert_eq!(e.name, t.name, "{file}:{line}");
        assert_eq!(e.host.as_deref(), Some("vm"));
        let got = e.overload_name.as_deref().unwrap();
        match stale.get(&line) {
            // babeltrace2 2.0.4 printed a stale value: we read what is printed.
            Some((printed, real)) => {
                assert_eq!(got, printed, "{file}:{line}");
                assert_ne!(got, real);
            }
            None => assert_eq!(got, t.overload, "{file}:{line}"),
        }
    }
}

#[test]
fn clock_seconds_text_matches_truth() {
    check_events("babeltrace2_pretty_clock_seconds.txt", false);
}

#[test]
fn default_text_matches_truth_modulo_day() {
    check_events("babeltrace2_pretty.txt", true);
}

#[test]
fn names_all_head_parses() {
    let (events, warnings) = parse_lttng_events(&read("babeltrace2_names_all_head.txt")).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let truth = truth();
    assert_eq!(events.len(), 3);
    for (e, t) in events.iter().zip(&truth) {
        assert_eq!(e.ts_ns, t.ts_ns % DAY_NS);
        assert_eq!((e.vpid, e.vtid, e.kind), (t.vpid, t.vtid, t.kind));
        assert_eq!(e.host.as_deref(), Some("vm"));
        assert_eq!(
            (e.name.as_str(), e.overload_name.as_deref()),
            (t.name.as_str(), Some(t.overload.as_str()))
        );
    }
}

fn truth_profile() -> TraceProfile {
    let events: Vec<LttngEvent> = truth()
        .into_iter()
        .enumerate()
        .map(|(i, t)| LttngEvent {
            ts_ns: t.ts_ns,
            kind: t.kind,
            host: Some("vm".into()),
            vpid: t.vpid,
            vtid: t.vtid,
            name: t.name,
            overload_name: Some(t.overload),
            line: i + 2,
        })
        .collect();
    let mut set = pair_events(&events);
    set.format = Some(TraceFormat::Babeltrace2Text);
    TraceProfile::build(set, "expected_events.tsv")
}

#[test]
fn tally_from_truth_matches_golden_byte_for_byte() {
    let p = truth_profile();
    let got = render_tally(
        &cpuprof_tui::report::tally::tally_input(&cpuprof_tui::rows::RowTree::trace_ops(&p)),
        TallyOptions::default(),
    );
    assert_eq!(got, read("expected_tally_thapi_style.txt"));
}

#[test]
fn self_times_match_truth() {
    let p = truth_profile();
    let text = read("expected_self_time.tsv");
    let mut rows = 0;
    for l in text.lines().skip(1).filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = l.split('\t').collect();
        let op = p.op(f[0]).unwrap_or_else(|| panic!("missing {}", f[0]));
        let n = |i: usize| f[i].parse::<i64>().unwrap();
        assert_eq!(op.calls as i64, n(1), "{}", f[0]);
        assert_eq!(op.errors, 0);
        assert_eq!(op.inclusive_total_ns, n(2), "{}", f[0]);
        assert_eq!(op.self_total_ns, n(3), "{}", f[0]);
        assert_eq!((op.min_ns, op.max_ns), (Some(n(4)), Some(n(5))), "{}", f[0]);
        assert_eq!(op.stats.count as i64, n(1));
        rows += 1;
    }
    assert_eq!(rows, 7);
    // Excluded from the truth table: the orphan exit is a failed call here...
    let orphan = p.op("aten::orphan_exit").unwrap();
    assert_eq!(
        (
            orphan.calls,
            orphan.errors,
            orphan.inclusive_total_ns,
            orphan.min_ns
        ),
        (1, 1, 0, None)
    );
    assert_eq!(p.ops.len(), 8);
    // ...and the never-closed entry is listed, not dropped.
    assert_eq!(p.unterminated.len(), 1);
    let u = &p.unterminated[0];
    assert_eq!(
        (u.name.as_str(), u.pid, u.tid),
        ("aten::never_exits", 9852, 9852)
    );
    assert_eq!(u.start_ns, ns("1795934914.833120130"));
    let kinds: Vec<&str> = p.warnings.iter().map(|w| w.kind.as_str()).collect();
    assert!(
        kinds.contains(&"orphan_exit") && kinds.contains(&"unterminated"),
        "{kinds:?}"
    );
    assert!(!kinds.contains(&"name_mismatch"));
}

#[test]
fn call_tree_aggregates_by_name_path() {
    let p = truth_profile();
    assert_eq!(p.call_trees.len(), 2);
    let main = p.call_trees.iter().find(|t| t.thread.tid == 9852).unwrap();
    let names: Vec<&str> = main.roots.iter().map(|n| &*n.name).collect();
    assert_eq!(
        names,
        [
            "aten::empty.memory_format",
            "aten::linear",
            "aten::relu",
            "aten::abs"
        ]
    );
    let linear = &main.roots[1];
    assert_eq!(linear.calls, 3);
    let kids: Vec<(&str, u64)> = linear
        .children
        .iter()
        .map(|c| (&*c.name, c.calls))
        .collect();
    assert_eq!(kids, [("aten::t", 3), ("aten::addmm", 3)]);
    let child_incl: i64 = linear.children.iter().map(|c| c.inclusive_ns).sum();
    assert_eq!(linear.self_ns, linear.inclusive_ns - child_incl);
    let abs = &main.roots[3];
    assert_eq!(&*abs.children[0].name, "aten::abs.out");
    let worker = p.call_trees.iter().find(|t| t.thread.tid == 9855).unwrap();
    assert_eq!(&*worker.roots[0].name, "aten::orphan_exit");
    assert_eq!(worker.roots[0].errors, 1);
}

#[test]
fn text_import_reports_what_babeltrace2_got_wrong() {
    // The stale overload names make some exits differ from their entries: a warning,
    // and the call is named from the exit (THAPI's rule).
    let path = Path::new(DIR).join("babeltrace2_pretty_clock_seconds.txt");
    let p = cpuprof_tui::trace::load_trace(&path).unwrap();
    assert_eq!(p.format, TraceFormat::Babeltrace2Text);
    let mismatch = p
        .warnings
        .iter()
        .find(|w| w.kind == "name_mismatch")
        .expect("a name_mismatch warning");
    // It says why: babeltrace2 2.0.4's stale overload names.
    assert!(
        mismatch.message.contains(
            "babeltrace2 2.0.4 can print an entry with the overload name of an earlier call"
        ),
        "{}",
        mismatch.message
    );
    assert_eq!(p.counts.op_events, 72);
    assert_eq!(p.unterminated.len(), 1);
    assert_eq!(p.unterminated[0].name, "aten::never_exits.memory_format");
    let calls: u64 = p.ops.iter().map(|o| o.calls).sum();
    assert_eq!(calls, 36);
    let opts = TallyOptions {
        self_time: true,
        max_name_size: 80,
    };
    let tally = render_tally(
        &cpuprof_tui::report::tally::tally_input(&cpuprof_tui::rows::RowTree::trace_ops(&p)),
        opts,
    );
    let header = tally.lines().nth(2).unwrap();
    assert!(
        header.contains(" | Time(%) |     Self | Calls | "),
        "{header}"
    );
}
