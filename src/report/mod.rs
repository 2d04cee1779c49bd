//! `cpuprof-tui report`: headless output for scripts and CI.
//!
//! Exit codes: 0 success, 1 a check failed (unless `--allow-missing`), 2 bad input or
//! usage. Every failure prints one line on stderr naming the file.

mod csv;
mod json_format;
mod table;

use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use crate::cli::{ReportArgs, ReportFormat};
use std::io::Write;

use crate::output::write_atomic_with;
use crate::profile::{default_log_for, load_profile, Profile, ProfileRequest};
use crate::source::is_trace_file;
use crate::trace::{self, tally, TraceProfile};

pub use csv::profile_csv;
pub use table::profile_table;

pub fn run(args: &ReportArgs) -> ExitCode {
    match run_inner(args) {
        Ok(code) => code,
        Err(line) => {
            eprintln!("cpuprof-tui: {line}");
            ExitCode::from(2)
        }
    }
}

fn run_inner(args: &ReportArgs) -> Result<ExitCode, String> {
    if is_trace_file(&args.file) {
        return run_trace(args);
    }
    if args.format == ReportFormat::Tally {
        return Err(format!(
            "{}: --format tally is for PyTorch traces, not ETDumps",
            args.file.display()
        ));
    }
    let log = match &args.log {
        Some(l) => Some(l.clone()),
        None => {
            let found = default_log_for(&args.file);
            if let Some(l) = &found {
                eprintln!(
                    "cpuprof-tui: using runner log {} (found beside the dump)",
                    l.display()
                );
            }
            found
        }
    };
    let request = ProfileRequest::new(args.file.clone(), log.clone(), 0).with_warmup(args.warmup);
    let never = AtomicBool::new(false);
    let profile = load_profile(&request, &mut |_| {}, &never).map_err(|e| e.to_string())?;
    let mut inputs: Vec<&Path> = vec![&args.file];
    if let Some(l) = &log {
        inputs.push(l);
    }
    emit(
        &mut |w| write_report(w, &profile, args.format),
        args.output.as_deref(),
        &inputs,
    )?;
    for w in &profile.warnings {
        eprintln!("cpuprof-tui: warning: {}: {}", w.kind, w.message);
    }
    for e in &profile.errors {
        eprintln!("cpuprof-tui: error: {}: {}", e.kind, e.message);
    }
    // The other methods' findings (the top-level ones are the first method's).
    let mut other_errors = false;
    for m in profile.methods.iter().skip(1) {
        for w in &m.warnings {
            eprintln!(
                "cpuprof-tui: warning: {}: {}: {}",
                m.name, w.kind, w.message
            );
        }
        for e in &m.errors {
            eprintln!("cpuprof-tui: error: {}: {}: {}", m.name, e.kind, e.message);
            other_errors = true;
        }
    }
    if (!profile.errors.is_empty() || other_errors) && !args.allow_missing {
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// The profile in the requested format (tally is not an ETDump format).
pub fn render(profile: &Profile, format: ReportFormat) -> String {
    match format {
        ReportFormat::Json => profile_json(profile),
        ReportFormat::Csv => profile_csv(profile),
        ReportFormat::Table | ReportFormat::Tally => profile_table(profile),
    }
}

/// `profile.json` text (`cpuprof.profile/1`).
pub fn profile_json(profile: &Profile) -> String {
    let mut out = Vec::new();
    write_profile_json(&mut out, profile).expect("writing to memory");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// `profile.json` streamed to `w` (objects indented, number lists on one line).
pub fn write_profile_json(w: &mut dyn Write, profile: &Profile) -> std::io::Result<()> {
    json_format::write_json(w, profile)
}

fn write_report(w: &mut dyn Write, profile: &Profile, format: ReportFormat) -> std::io::Result<()> {
    match format {
        ReportFormat::Json => write_profile_json(w, profile),
        other => w.write_all(render(profile, other).as_bytes()),
    }
}

/// Send a report to `output` atomically, or to stdout.
pub(crate) fn emit(
    write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
    output: Option<&Path>,
    inputs: &[&Path],
) -> Result<(), String> {
    match output {
        Some(path) => {
            write_atomic_with(path, inputs, write).map_err(|e| format!("{}: {e}", path.display()))
        }
        None => {
            let mut out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
            match write(&mut out).and_then(|_| out.flush()) {
                // A closed pipe (`| head`) is the reader's choice, not an error.
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(format!("<stdout>: cannot write the report: {e}"))
                }
                _ => Ok(()),
            }
        }
    }
}

/// Reports of a PyTorch trace: the iprof tally (optionally with self time), the
/// `cpuprof.trace/1` JSON, or CSV. Warnings go to stderr; a trace has no checks that fail.
fn run_trace(args: &ReportArgs) -> Result<ExitCode, String> {
    if args.log.is_some() {
        return Err(format!(
            "{}: --log applies to ETDumps, not PyTorch traces",
            args.file.display()
        ));
    }
    if args.warmup != crate::profile::warmup::Warmup::Runs(0) {
        return Err(format!(
            "{}: --warmup applies to ETDumps, not PyTorch traces",
            args.file.display()
        ));
    }
    let profile =
        trace::load_trace(&args.file).map_err(|e| format!("{}: {e}", args.file.display()))?;
    let inputs: Vec<&Path> = vec![&args.file];
    emit(
        &mut |w| w.write_all(render_trace(&profile, args.format, args.self_time).as_bytes()),
        args.output.as_deref(),
        &inputs,
    )?;
    for w in &profile.warnings {
        eprintln!("cpuprof-tui: warning: {}: {}", w.kind, w.message);
    }
    Ok(ExitCode::SUCCESS)
}

/// A trace in the requested format (`table` is the tally).
pub fn render_trace(profile: &TraceProfile, format: ReportFormat, self_time: bool) -> String {
    match format {
        ReportFormat::Json => {
            let mut out = Vec::new();
            json_format::write_json(&mut out, &trace::json::to_json_value(profile))
                .expect("writing to memory");
            String::from_utf8(out).expect("serde_json writes UTF-8")
        }
        ReportFormat::Csv => trace::csv::to_csv(profile),
        ReportFormat::Tally | ReportFormat::Table => tally::render_tally(
            &tally::TallyInput::from_profile(profile),
            tally::TallyOptions {
                self_time,
                ..tally::TallyOptions::default()
            },
        ),
    }
}
