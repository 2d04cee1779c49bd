//! `cpuprof-tui compare A B`: load both sides through the usual entry points, build their
//! row trees, compare, and print. Rendering only: the CLI (`main`) decides between
//! printing (`run`) and the compare view (`tui::run_compare`, see [`wants_view`]).
//!
//! Exit codes: 0 done (no row slower than `--fail-on-regression`), 1 a row is `slower`
//! by more than `--fail-on-regression` percent, 2 bad input or usage (one line on
//! stderr naming the file).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use crate::compare::{compare, CompareOptions, CompareWarning, Comparison};
use crate::options::{CompareArgs, CompareFormat};
use crate::profile::warmup::Warmup;
use crate::profile::{default_log_for, load_profile, ProfileRequest};
use crate::rows::RowTree;
use crate::source::is_trace_file;
use crate::trace;

pub use super::compare_format::{
    comparison_csv, comparison_doc, comparison_json, comparison_table, ComparisonDoc,
};

pub fn run(args: &CompareArgs) -> ExitCode {
    match run_inner(args) {
        Ok(code) => code,
        Err(line) => {
            crate::escape::eprint_line(&line);
            ExitCode::from(2)
        }
    }
}

/// Both sides loaded: their row trees, the input files read (never written over), and
/// the inputs' own warnings (reported with the comparison's).
pub struct LoadedPair {
    pub a: RowTree,
    pub b: RowTree,
    pub inputs: Vec<PathBuf>,
    pub warnings: Vec<CompareWarning>,
}

/// Load A and B as the arguments say. Errors are one line naming the file.
pub fn load_pair(args: &CompareArgs) -> Result<LoadedPair, String> {
    let limit = args.read.max_input_size;
    let trace_a = is_trace_file(&args.a, limit);
    let trace_b = is_trace_file(&args.b, limit);
    if trace_a != trace_b {
        let (dump, tr) = if trace_a {
            (&args.b, &args.a)
        } else {
            (&args.a, &args.b)
        };
        // Either side may be no profile at all (an empty, missing or junk file taken for
        // an ETDump, a folder that holds no trace): that is what to say, not that the
        // kinds differ.
        if tr.is_dir() {
            trace::ctf::find_trace_dirs(tr).map_err(|e| format!("{}: {e}", tr.display()))?;
        }
        let request = ProfileRequest::new(dump.clone(), None, 0)
            .without_log()
            .with_model_files(args.model.clone())
            .with_read_options(args.read);
        load_profile(&request, &mut |_| {}, &AtomicBool::new(false)).map_err(|e| e.to_string())?;
        return Err(format!(
            "cannot compare the ETDump {} with the PyTorch trace {}: compare two dumps or two traces",
            dump.display(),
            tr.display()
        ));
    }
    let mut inputs = vec![args.a.clone(), args.b.clone()];
    let mut warnings = Vec::new();
    if trace_a {
        if args.by_module {
            return Err(format!(
                "{}: --by-module applies to ETDumps with an ETRecord, not PyTorch traces",
                args.a.display()
            ));
        }
        if args.log_a.is_some() || args.log_b.is_some() {
            return Err(format!(
                "{}: --log-a/--log-b apply to ETDumps, not PyTorch traces",
                args.a.display()
            ));
        }
        if args.warmup != Warmup::Stated || args.warmup_a.is_some() || args.warmup_b.is_some() {
            return Err(format!(
                "{}: --warmup applies to ETDumps, not PyTorch traces",
                args.a.display()
            ));
        }
        let load = |p: &Path| -> Result<RowTree, String> {
            let t = trace::load_trace_with_limit(p, limit)
                .map_err(|e| format!("{}: {e}", p.display()))?;
            Ok(RowTree::from_trace(&t))
        };
        let a = load(&args.a)?;
        let b = load(&args.b)?;
        return Ok(LoadedPair {
            a,
            b,
            inputs,
            warnings,
        });
    }
    // One side: its row tree, the log it read, and its warnings.
    type Side = (RowTree, Option<PathBuf>, Vec<CompareWarning>);
    let side = |path: &PathBuf, log: &Option<PathBuf>, warmup: Warmup, tag: &str| {
        let log = if args.no_log {
            None
        } else {
            log.clone().or_else(|| default_log_for(path))
        };
        let request = ProfileRequest::new(path.clone(), log.clone(), 0)
            .with_warmup(warmup)
            .with_model_files(args.model.clone())
            .with_read_options(args.read);
        let never = AtomicBool::new(false);
        let profile = load_profile(&request, &mut |_| {}, &never).map_err(|e| e.to_string())?;
        // The clock-resolution note describes every XNNPACK profile; the compare rows
        // carry what it means (a `<1 µs` row), so it is not repeated as a warning here.
        let warnings = profile
            .warnings
            .iter()
            .chain(&profile.errors)
            .filter(|f| f.kind != "below_clock_resolution")
            .map(|f| CompareWarning {
                kind: format!("{tag}_{}", f.kind),
                message: format!("{}: {}", path.display(), f.message),
            })
            .collect();
        Ok::<Side, String>((RowTree::from_profile(&profile), log, warnings))
    };
    // Both sides load at once (each load's own threads then share the cores); A's error
    // is the one reported when both fail, as when they loaded one after the other.
    let (a, b) = std::thread::scope(|scope| {
        let b = scope.spawn(|| {
            side(
                &args.b,
                &args.log_b,
                args.warmup_b.unwrap_or(args.warmup),
                "b",
            )
        });
        let a = side(
            &args.a,
            &args.log_a,
            args.warmup_a.unwrap_or(args.warmup),
            "a",
        );
        let b = b.join().unwrap_or_else(|panic| {
            Err(format!(
                "{}: internal error while loading: {}",
                args.b.display(),
                crate::threads::panic_message(&*panic)
            ))
        });
        (a, b)
    });
    let (mut a, log_a, warnings_a) = a?;
    let (mut b, log_b, warnings_b) = b?;
    inputs.extend(log_a.into_iter().chain(log_b));
    warnings.extend(warnings_a.into_iter().chain(warnings_b));
    for p in [&args.a, &args.b] {
        inputs.extend(crate::profile::model_input_paths(p, &args.model));
    }
    if args.by_module {
        a = a.by_module();
        b = b.by_module();
        for (t, p) in [(&a, &args.a), (&b, &args.b)] {
            if !t
                .rows
                .iter()
                .any(|r| r.kind == crate::rows::RowKind::Module)
            {
                warnings.push(CompareWarning {
                    kind: "no_modules".into(),
                    message: format!(
                        "{}: no row has a module (no ETRecord read: --etrecord, or STEM.etrecord beside the dump)",
                        p.display()
                    ),
                });
            }
        }
    }
    Ok(LoadedPair {
        a,
        b,
        inputs,
        warnings,
    })
}

/// The comparison of a loaded pair, the inputs' warnings after the comparison's own.
pub fn compare_pair(pair: &LoadedPair, args: &CompareArgs) -> Comparison {
    let mut c = compare(
        &pair.a,
        &pair.b,
        &CompareOptions {
            alpha: args.alpha,
            min_change_pct: args.min_change,
        },
    );
    c.warnings.extend(pair.warnings.iter().cloned());
    c
}

/// Load both sides and compare both ways (B against A, and A against B for the view's
/// swap key).
pub fn load_both(args: &CompareArgs) -> Result<(Comparison, Comparison), String> {
    let mut pair = load_pair(args)?;
    let forward = compare_pair(&pair, args);
    std::mem::swap(&mut pair.a, &mut pair.b);
    let backward = compare_pair(&pair, args);
    Ok((forward, backward))
}

/// Whether `compare` opens the compare view: no `--format`, no `-o`, and standard
/// output is a terminal (piped or redirected, as in scripts and CI, the table is printed:
/// not a screen nobody sees).
pub fn wants_view(args: &CompareArgs) -> bool {
    args.format.is_none() && args.output.is_none() && std::io::stdout().is_terminal()
}

fn run_inner(args: &CompareArgs) -> Result<ExitCode, String> {
    let format = args.format.unwrap_or(CompareFormat::Table);
    let pair = load_pair(args)?;
    let cmp = compare_pair(&pair, args);
    let inputs: Vec<&Path> = pair.inputs.iter().map(PathBuf::as_path).collect();
    super::emit(
        &mut |w: &mut dyn Write| match format {
            // Streamed row by row: no JSON tree of the whole comparison.
            CompareFormat::Json => super::json_format::write_json(w, &comparison_doc(&cmp)),
            CompareFormat::Csv => w.write_all(comparison_csv(&cmp).as_bytes()),
            CompareFormat::Table => w.write_all(comparison_table(&cmp).as_bytes()),
        },
        args.output.as_deref(),
        &inputs,
        match format {
            CompareFormat::Json => super::ReportFormat::Json,
            CompareFormat::Csv => super::ReportFormat::Csv,
            CompareFormat::Table => super::ReportFormat::Table,
        },
    )?;
    // The table carries its warnings; JSON and CSV readers get them on stderr too.
    if format != CompareFormat::Table || args.output.is_some() {
        for w in &cmp.warnings {
            crate::escape::eprint_line(&format!("warning: {}: {}", w.kind, w.message));
        }
    }
    Ok(exit_code(&cmp, args.fail_on_regression))
}

/// 1 when a row is `slower` by more than `limit` percent, else 0.
pub fn exit_code(cmp: &Comparison, limit: Option<f64>) -> ExitCode {
    match (limit, cmp.worst_regression_pct()) {
        (Some(limit), Some(worst)) if worst > limit => {
            crate::escape::eprint_line(&format!(
                "regression: a row is {worst:.1}% slower (limit {limit}%)"
            ));
            ExitCode::from(1)
        }
        _ => ExitCode::SUCCESS,
    }
}
