//! `cpuprof-tui report`: headless output for scripts and CI.
//!
//! Exit codes: 0 success, 1 a check failed (unless `--allow-missing`), 2 bad input or
//! usage. Every failure prints one line on stderr naming the file.

pub mod chrome;
pub mod compare;
mod compare_format;
mod csv;
pub mod export;
pub mod fleet;
mod fleet_format;
mod fleet_parquet;
mod fleet_samples;
pub mod folded;
mod json_chunks;
mod json_format;
mod modules;
pub mod nodes;
mod profile_json;
mod profile_rows;
mod table;
pub mod tally;
pub mod trace_csv;
pub mod trace_json;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use std::io::{IsTerminal, Write};

use crate::escape::{eprint_line, escape, escape_json_for_terminal, escape_keep_newlines};
use crate::input;
use crate::options::{ReportArgs, ReportFormat};
use crate::output::write_atomic_with;
use crate::profile::efficiency::Peak;
use crate::profile::{
    default_log_for, load_profile_from_bytes, unchanged_or, Profile, ProfileRequest,
};
use crate::rows::RowTree;
use crate::source::{sniff, Content};
use crate::trace::{self, TraceProfile};

pub use compare_format::comparison_csv;
pub use csv::{profile_csv, profile_csv_with};
pub use modules::{modules_csv, modules_table};
pub use table::source_text;
pub use table::{profile_table, profile_table_cut, profile_table_with};

pub fn run(args: &ReportArgs) -> ExitCode {
    match run_inner(args) {
        Ok(code) => code,
        Err(line) => {
            eprint_line(&line);
            ExitCode::from(2)
        }
    }
}

/// A folder that is no CTF trace but holds trace files (a folder of rank traces, HTA's
/// input): what reads them, in place of "not a CTF trace directory". (A folder of dumps
/// and a CTF layout the reader refuses keep the CTF search's own message.)
pub(crate) fn folder_of_traces(dir: &Path) -> Option<String> {
    use crate::fleet::discover::{discover, FoundKind};
    if trace::ctf::find_trace_dirs(dir).is_ok() {
        return None;
    }
    let found = discover(&[dir.to_path_buf()]).ok()?;
    let traces = found.iter().filter(|f| f.kind == FoundKind::Trace).count();
    if traces == 0 {
        return None;
    }
    // The line is escaped where it is printed (`eprint_line`).
    Some(format!(
        "a folder of {traces} trace file{}, not one trace: `cpuprof-tui fleet {}` compares them (one per rank or run); `cpuprof-tui report FILE MORE...` reads several traces as one tally",
        if traces == 1 { "" } else { "s" },
        dir.display()
    ))
}

fn run_inner(args: &ReportArgs) -> Result<ExitCode, String> {
    // Several traces read as one, or a trace cut per host/process/thread.
    if !args.more.is_empty() || args.per.is_some() {
        return nodes::run(args);
    }
    let name = input::display_name(&args.file);
    // A CTF trace directory: the native reader maps its stream files itself.
    if args.file.is_dir() {
        check_trace_args(args)?;
        // A folder the CTF reader refuses may be a folder of rank traces: then the line
        // says which command reads it (looked for only once the reader has refused it).
        let refused = |e: &dyn std::fmt::Display| match folder_of_traces(&args.file) {
            Some(hint) => format!("{name}: {hint}"),
            None => format!("{name}: {e}"),
        };
        // The tally needs no model: the CTF reader folds the calls straight into it.
        if args.format == ReportFormat::Tally {
            let t = trace::ctf::tally_dir(&args.file, args.read.max_input_size)
                .map_err(|e| refused(&e))?;
            return emit_tally(args, t.tally, &t.warnings);
        }
        let profile = trace::load_trace_with_limit(&args.file, args.read.max_input_size)
            .map_err(|e| refused(&e))?;
        return emit_trace(args, &profile);
    }
    if let Some(streamed) = trace::load_large_chrome_json_with(
        &args.file,
        &name,
        trace_options(args),
        args.read.max_input_size,
    ) {
        check_trace_args(args)?;
        let profile = streamed.map_err(|e| format!("{name}: {e}"))?;
        return emit_trace(args, &profile);
    }
    // One read: sniffing and loading share these bytes (pipes, FIFOs, `-`).
    let input = input::read_input_mapped(&args.file, args.read.max_input_size)
        .map_err(|e| format!("{name}: {e}"))?;
    if sniff(&input.bytes) == Content::Trace {
        return run_trace(args, &input);
    }
    if args.format == ReportFormat::Tally {
        return Err(format!(
            "{name}: --format tally is for PyTorch traces, not ETDumps"
        ));
    }
    if args.python_frames {
        return Err(format!(
            "{name}: --python-frames is for PyTorch traces (with_stack=True), not ETDumps"
        ));
    }
    let log = match &args.log {
        Some(l) => {
            // A log named on the command line must be readable (read once: a FIFO or
            // `<(..)` is kept for the loader).
            input::read_input(l, args.read.max_input_size)
                .map_err(|e| format!("{}: {e}", l.display()))?;
            Some(l.clone())
        }
        None if args.no_log || input::is_stdin(&args.file) => None,
        None => {
            let found = default_log_for(&args.file);
            if let Some(l) = &found {
                eprint_line(&format!(
                    "using runner log {} (found beside the dump)",
                    l.display()
                ));
            }
            // The loader looks for it again (and warns if it cannot be read).
            None
        }
    };
    let mut request = ProfileRequest::new(args.file.clone(), log.clone(), 0)
        .with_warmup(args.warmup)
        .with_model_files(args.model.clone())
        .with_read_options(args.read);
    if args.no_log {
        request = request.without_log();
    }
    let never = AtomicBool::new(false);
    // A mapped dump truncated or rewritten while it is decoded is "changed while
    // reading" (exit 2), not whatever the decoder made of it. (From the bytes, not
    // `load_profile_from_input`: nobody watches a progress gauge here.)
    let loaded = load_profile_from_bytes(&request, &input.bytes, &mut |_| {}, &never);
    let profile = unchanged_or(&input, &args.file, loaded).map_err(|e| e.to_string())?;
    let used_log = profile.source.log.as_ref().map(std::path::PathBuf::from);
    let mut inputs: Vec<&Path> = vec![&args.file];
    if let Some(l) = &used_log {
        inputs.push(l);
    }
    // The ETRecord and program read are inputs too: never written over by `-o`.
    let model_inputs = crate::profile::model_input_paths(&args.file, &args.model);
    inputs.extend(model_inputs.iter().map(PathBuf::as_path));
    let format = args.format;
    let peak = args.peak;
    let by_module = args.by_module;
    // Names are cut only to fit a terminal (never into a pipe or a file).
    let width = args.terminal_width.filter(|_| args.output.is_none());
    emit(
        &mut |w| match (by_module, format) {
            (true, ReportFormat::Table) => {
                w.write_all(escape_keep_newlines(&modules_table(&profile)).as_bytes())
            }
            (true, ReportFormat::Csv) => w.write_all(modules_csv(&profile).as_bytes()),
            _ => write_report_with(w, &profile, format, peak, width),
        },
        args.output.as_deref(),
        &inputs,
        format,
    )?;
    for w in &profile.warnings {
        eprint_line(&format!("warning: {}: {}", w.kind, w.message));
    }
    for e in &profile.errors {
        eprint_line(&format!("error: {}: {}", e.kind, e.message));
    }
    // The other methods' findings (the top-level ones are the first method's).
    let mut other_errors = false;
    for m in profile.methods.iter().skip(1) {
        for w in &m.warnings {
            eprint_line(&format!("warning: {}: {}: {}", m.name, w.kind, w.message));
        }
        for e in &m.errors {
            eprint_line(&format!("error: {}: {}: {}", m.name, e.kind, e.message));
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
    render_with(profile, format, None)
}

/// As [`render`], with the roofline columns of `--peak` in the table and CSV.
pub fn render_with(profile: &Profile, format: ReportFormat, peak: Option<Peak>) -> String {
    match format {
        ReportFormat::Json => profile_json(profile),
        ReportFormat::Csv => profile_csv_with(profile, peak),
        ReportFormat::Table | ReportFormat::Tally => profile_table_with(profile, peak),
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
    let tree = crate::rows::RowTree::from_profile_without_overhead(profile);
    profile_json::write_profile(w, profile, &tree)
}

fn write_report_with(
    w: &mut dyn Write,
    profile: &Profile,
    format: ReportFormat,
    peak: Option<Peak>,
    width: Option<usize>,
) -> std::io::Result<()> {
    match format {
        ReportFormat::Json => write_profile_json(w, profile),
        // The table's names are escaped already; this also covers every other field.
        ReportFormat::Table | ReportFormat::Tally => {
            let text = match format {
                ReportFormat::Table => table::profile_table_full(profile, peak, width),
                _ => render_with(profile, format, peak),
            };
            w.write_all(escape_keep_newlines(&text).as_bytes())
        }
        // CSV keeps the data as it is (quoted); `emit` escapes it for a terminal.
        ReportFormat::Csv => w.write_all(render_with(profile, format, peak).as_bytes()),
    }
}

/// Send a report to `output` (see [`crate::output`]), or to stdout. On a terminal, CSV
/// and JSON are escaped too (tables and tallies always are).
pub(crate) fn emit(
    write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
    output: Option<&Path>,
    inputs: &[&Path],
    format: ReportFormat,
) -> Result<(), String> {
    match output {
        Some(path) => {
            write_atomic_with(path, inputs, write).map_err(|e| format!("{}: {e}", path.display()))
        }
        None => {
            let stdout = std::io::stdout();
            let terminal = stdout.is_terminal();
            let mut out = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
            let result = if terminal {
                let mut buf = Vec::new();
                write(&mut buf).and_then(|_| {
                    let text = String::from_utf8_lossy(&buf);
                    let safe = match format {
                        ReportFormat::Json => escape_json_for_terminal(&text),
                        _ => escape_keep_newlines(&text),
                    };
                    out.write_all(safe.as_bytes())
                })
            } else {
                write(&mut out)
            };
            match result.and_then(|_| out.flush()) {
                // A closed pipe (`| head`) is the reader's choice, not an error.
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(format!("<stdout>: cannot write the report: {e}"))
                }
                _ => Ok(()),
            }
        }
    }
}

/// How a trace's rows are built for `args` (`--python-frames`).
fn trace_options(args: &ReportArgs) -> trace::BuildOptions {
    trace::BuildOptions {
        python_frames: args.python_frames,
    }
}

/// Reports of a PyTorch trace: the iprof tally (optionally with self time), the
/// `cpuprof.trace/1` JSON, or CSV. Warnings go to stderr; a trace has no checks that fail.
fn run_trace(args: &ReportArgs, input: &input::Input) -> Result<ExitCode, String> {
    check_trace_args(args)?;
    let name = input::display_name(&args.file);
    let parsed = trace::parse_trace_with(
        &input.bytes,
        &name,
        trace_options(args),
        args.read.max_input_size,
    );
    // A mapped trace truncated or rewritten while it was parsed: one line, exit 2, not
    // what was parsed from the zeros the guard put in its place.
    input
        .check_unchanged()
        .map_err(|e| format!("{name}: {e}"))?;
    let profile = parsed.map_err(|e| format!("{name}: {e}"))?;
    emit_trace(args, &profile)
}

fn check_trace_args(args: &ReportArgs) -> Result<(), String> {
    let name = input::display_name(&args.file);
    if args.log.is_some() {
        return Err(format!(
            "{name}: --log applies to ETDumps, not PyTorch traces"
        ));
    }
    if args.warmup != crate::profile::warmup::Warmup::Stated {
        return Err(format!(
            "{name}: --warmup applies to ETDumps, not PyTorch traces"
        ));
    }
    if args.by_module {
        return Err(format!(
            "{name}: --by-module applies to ETDumps with an ETRecord, not PyTorch traces"
        ));
    }
    Ok(())
}

fn emit_trace(args: &ReportArgs, profile: &TraceProfile) -> Result<ExitCode, String> {
    let inputs: Vec<&Path> = vec![&args.file];
    emit(
        &mut |w| write_trace_report(w, profile, args.format, args.self_time),
        args.output.as_deref(),
        &inputs,
        args.format,
    )?;
    for w in &profile.warnings {
        eprint_line(&format!("warning: {}: {}", w.kind, w.message));
    }
    Ok(ExitCode::SUCCESS)
}

/// `report --format json` of a trace, as text (the Python module's `json()`).
pub fn trace_json(profile: &TraceProfile) -> String {
    let mut out = Vec::new();
    write_trace_report(&mut out, profile, ReportFormat::Json, false).expect("writing to memory");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// A trace report streamed to `w` (JSON is written as it is serialised), from the
/// trace's rows (`RowTree::trace_ops`).
fn write_trace_report(
    w: &mut dyn Write,
    profile: &TraceProfile,
    format: ReportFormat,
    self_time: bool,
) -> std::io::Result<()> {
    let tree = RowTree::trace_ops(profile);
    match format {
        ReportFormat::Json => json_format::write_json(w, &trace_json::json_doc(profile, &tree)),
        other => w.write_all(render_trace(profile, &tree, other, self_time).as_bytes()),
    }
}

/// A trace in the requested format (`table` is the tally), from its rows `tree`
/// (`RowTree::trace_ops(profile)`); `profile` gives the document's own facts (source,
/// unterminated calls, warnings, counts).
pub fn render_trace(
    profile: &TraceProfile,
    tree: &RowTree,
    format: ReportFormat,
    self_time: bool,
) -> String {
    match format {
        ReportFormat::Json => {
            let mut out = Vec::new();
            json_format::write_json(&mut out, &trace_json::json_doc(profile, tree))
                .expect("writing to memory");
            String::from_utf8(out).expect("serde_json writes UTF-8")
        }
        ReportFormat::Csv => trace_csv::to_csv(tree),
        ReportFormat::Tally | ReportFormat::Table => {
            // The table opens with the answer: the ops with the most self time (the
            // tally stays the iprof tally, byte for byte).
            let answer = match format {
                ReportFormat::Table => crate::summary::trace_answer(tree, "", 3)
                    .map(|a| {
                        // No copy more of a line that may hold a huge trace op name.
                        let mut line = a.to_string();
                        drop(a);
                        if let std::borrow::Cow::Owned(safe) = escape(&line) {
                            line = safe;
                        }
                        line.push('\n');
                        line
                    })
                    .unwrap_or_default(),
                _ => String::new(),
            };
            tally_text(answer, tally::tally_input(tree), self_time)
        }
    }
}

/// The iprof tally of `input` after `answer`, names from the trace escaped.
fn tally_text(answer: String, mut input: trace::tally::TallyInput<'_>, self_time: bool) -> String {
    // Names come from the trace: control characters are shown escaped.
    for row in &mut input.rows {
        if let std::borrow::Cow::Owned(safe) = escape(&row.name) {
            row.name = safe.into();
        }
    }
    let text = tally::render_tally(
        &input,
        tally::TallyOptions {
            self_time,
            ..tally::TallyOptions::default()
        },
    );
    let mut out = answer;
    out.push_str(&text);
    if let std::borrow::Cow::Owned(safe) = escape_keep_newlines(&out) {
        out = safe;
    }
    out
}

/// `--format tally` of a CTF directory read straight into its tally (as
/// [`emit_trace`] writes it from the profile).
fn emit_tally(
    args: &ReportArgs,
    input: trace::tally::TallyInput<'_>,
    warnings: &[trace::TraceWarning],
) -> Result<ExitCode, String> {
    let inputs: Vec<&Path> = vec![&args.file];
    let text = tally_text(String::new(), input, args.self_time);
    emit(
        &mut |w| w.write_all(text.as_bytes()),
        args.output.as_deref(),
        &inputs,
        args.format,
    )?;
    for w in warnings {
        eprint_line(&format!("warning: {}: {}", w.kind, w.message));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Chrome trace mapped by `report` and cut short before it is parsed: the report
    /// is the "changed while reading" line, not a profile of what was left.
    #[test]
    fn a_mapped_trace_that_changed_before_it_was_parsed_is_one_line() {
        let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace.json");
        let mut text = std::fs::read(root.join("fixtures/torch/cnn_infer.json")).unwrap();
        // Past the size that is mapped rather than read (1 MiB), still a valid trace.
        text.extend(std::iter::repeat_n(b' ', 2 << 20));
        std::fs::write(&path, &text).unwrap();
        let input = input::read_input_mapped(&path, input::DEFAULT_MAX_INPUT_SIZE).unwrap();
        assert!(input.is_mapped());
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(text.len() as u64 / 2)
            .unwrap();
        let out = dir.path().join("out.json");
        #[derive(clap::Parser)]
        struct Report {
            #[command(flatten)]
            args: crate::options::ReportArgs,
        }
        let args = <Report as clap::Parser>::parse_from([
            "report",
            path.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .args;
        let err = run_trace(&args, &input).unwrap_err();
        assert!(err.contains("changed while reading"), "{err}");
        assert!(!out.exists(), "a report was written");
    }
}
