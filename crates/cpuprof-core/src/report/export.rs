//! `cpuprof-tui export FILE --format chrome|folded`: a dump's runs or a trace's calls as
//! Trace Event JSON or folded stacks. Exit codes as `report`: 0 success, 2 bad input or
//! usage (one line on stderr naming the file).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use super::folded::DumpFolder;
use super::{chrome, emit, folded};
use crate::options::{ExportArgs, ExportFormat};
use crate::profile::warmup::Warmup;
use crate::profile::{
    default_log_for, load_profile_from_bytes, unchanged_or, ProfileRequest, RunSelection, Timeline,
    TimelineRun,
};
use crate::source::is_trace_file;
use crate::timeline::{load_dump_timeline, load_dump_timeline_with, load_trace_timeline};

pub fn run(args: &ExportArgs) -> ExitCode {
    match run_inner(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(line) => {
            crate::escape::eprint_line(&line);
            ExitCode::from(2)
        }
    }
}

/// Runs chosen by `--runs`: 0-based `Execute` indexes, `start..end` with `end` excluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunRange {
    pub start: usize,
    pub end: Option<usize>,
}

impl RunRange {
    /// `A..B`, `A..=B`, `A..`, `..B`, `..=B` or `N`.
    pub fn parse(text: &str) -> Result<RunRange, String> {
        let t = text.trim();
        let num = |s: &str| -> Result<usize, String> {
            s.trim()
                .parse::<usize>()
                .map_err(|_| format!("--runs {text:?}: expected A..B, A..=B, A.., ..B or N"))
        };
        let Some((a, b)) = t.split_once("..") else {
            let n = num(t)?;
            return Ok(RunRange {
                start: n,
                end: Some(n.saturating_add(1)),
            });
        };
        let start = if a.trim().is_empty() { 0 } else { num(a)? };
        let end = match b.strip_prefix('=') {
            Some(b) => Some(num(b)?.saturating_add(1)),
            None if b.trim().is_empty() => None,
            None => Some(num(b)?),
        };
        if end.is_some_and(|e| e <= start) {
            return Err(format!("--runs {text:?} selects no run (empty range)"));
        }
        Ok(RunRange { start, end })
    }

    pub fn contains(&self, index: usize) -> bool {
        index >= self.start && self.end.is_none_or(|e| index < e)
    }
}

/// The runs an export walks: kept runs (or all with `include_warmup`) inside `range`.
pub fn run_selection(range: Option<RunRange>, include_warmup: bool) -> RunSelection {
    RunSelection::runs(
        range.map_or(0..usize::MAX, |g| g.start..g.end.unwrap_or(usize::MAX)),
        include_warmup,
    )
}

/// The runs an export writes: those [`run_selection`] picks, in run order.
pub fn select_runs(
    tl: &Timeline,
    range: Option<RunRange>,
    include_warmup: bool,
) -> Vec<&TimelineRun> {
    let select = run_selection(range, include_warmup);
    tl.runs
        .iter()
        .filter(|r| select.wants(r.index, r.warmup))
        .collect()
}

fn run_inner(args: &ExportArgs) -> Result<(), String> {
    let name = args.file.display().to_string();
    let range = args.runs.as_deref().map(RunRange::parse).transpose()?;
    if is_trace_file(&args.file, args.read.max_input_size) {
        for (given, flag) in [
            (args.log.is_some(), "--log"),
            (args.warmup != Warmup::Stated, "--warmup"),
            (args.runs.is_some(), "--runs"),
        ] {
            if given {
                return Err(format!(
                    "{name}: {flag} applies to ETDumps, not PyTorch traces"
                ));
            }
        }
        let tt = load_trace_timeline(&args.file, args.read.max_input_size)?;
        return emit(
            &mut |w: &mut dyn Write| match args.format {
                ExportFormat::Chrome => chrome::write_trace_chrome(w, &tt, &name),
                ExportFormat::Folded => folded::write_trace_folded(w, &tt),
            },
            args.output.as_deref(),
            &[&args.file],
            terminal_format(args.format),
        );
    }
    let log = match (&args.log, args.no_log) {
        (Some(l), _) => Some(l.clone()),
        (None, true) => None,
        (None, false) => {
            let found = default_log_for(&args.file);
            if let Some(l) = &found {
                crate::escape::eprint_line(&format!(
                    "using runner log {} (found beside the dump)",
                    l.display()
                ));
            }
            found
        }
    };
    let mut request = ProfileRequest::new(args.file.clone(), log.clone(), 0)
        .with_warmup(args.warmup)
        .with_model_files(args.model.clone())
        .with_read_options(args.read);
    if args.no_log {
        request = request.without_log();
    }
    // `log` is explicit here (found or refused), so the loader must not look again.
    // Only the runs written are walked; folded stacks are summed as each run is made,
    // so neither format holds the dump, and folded holds no run either.
    let select = run_selection(range, args.include_warmup);
    let mut folder = DumpFolder::default();
    let tl = match args.format {
        ExportFormat::Chrome => load_dump_timeline(&request, false, &select)?,
        ExportFormat::Folded => {
            load_dump_timeline_with(&request, false, &select, &mut |tl, run| {
                folder.add(tl, &run);
                None
            })?
        }
    };
    let mut tl = tl;
    name_methods_from_model(&mut tl, &request);
    let runs = select_runs(&tl, range, args.include_warmup);
    if runs.is_empty() {
        return Err(format!(
            "{name}: --runs {} selects no {}run (the dump has {} Execute run(s), {} warm-up)",
            args.runs.as_deref().unwrap_or(".."),
            if args.include_warmup { "" } else { "kept " },
            tl.runs.len(),
            tl.warmup
        ));
    }
    let mut inputs: Vec<&Path> = vec![&args.file];
    if let Some(l) = &log {
        inputs.push(l);
    }
    // The ETRecord and program read with the dump are inputs too: never written over.
    let model_inputs = crate::profile::model_input_paths(&args.file, &args.model);
    inputs.extend(model_inputs.iter().map(PathBuf::as_path));
    emit(
        &mut |w: &mut dyn Write| match args.format {
            ExportFormat::Chrome => chrome::write_dump_chrome(w, &tl, &runs, &name),
            ExportFormat::Folded => folder.write(w, &tl),
        },
        args.output.as_deref(),
        &inputs,
        terminal_format(args.format),
    )
}

/// Methods named as every other command names them: the timeline's methods (from the
/// log, else `method N`) renamed by the program (`--program`, or `STEM.pte` beside the
/// dump) through the profile's own rule ([`crate::profile::model_files`]), which needs
/// the built profile: built here only when a dump of several methods has a program or
/// ETRecord to read, and dropped before the export is written. A dump from a stream
/// (read once) keeps the timeline's names; a log from a stream is not read again.
fn name_methods_from_model(tl: &mut Timeline, request: &ProfileRequest) {
    if tl.methods.len() < 2
        || crate::profile::model_input_paths(&request.etdump, &request.model).is_empty()
    {
        return;
    }
    let regular = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.is_file());
    if !regular(&request.etdump) {
        return;
    }
    let mut request = request.clone();
    let log_read_again = request.log.as_deref().is_none_or(regular);
    if !log_read_again {
        request = request.without_log();
    }
    let Ok(input) = crate::input::read_input_mapped(&request.etdump, request.read.max_input_size)
    else {
        return;
    };
    let never = AtomicBool::new(false);
    let loaded = load_profile_from_bytes(&request, &input.bytes, &mut |_| {}, &never);
    let Ok(profile) = unchanged_or(&input, &request.etdump, loaded) else {
        return;
    };
    for w in profile
        .warnings
        .iter()
        .filter(|w| w.kind.starts_with("program_") || w.kind.starts_with("etrecord_"))
    {
        crate::escape::eprint_line(&format!("warning: {}: {}", w.kind, w.message));
    }
    if profile.methods.len() != tl.methods.len() {
        return;
    }
    for (name, m) in tl.methods.iter_mut().zip(&profile.methods) {
        // Without the log, a method the program leaves unnamed keeps the timeline's name.
        if log_read_again || !m.name.starts_with("method ") {
            name.clone_from(&m.name);
        }
    }
}

/// How `emit` escapes the export for a terminal: chrome is JSON, folded is plain text.
fn terminal_format(format: ExportFormat) -> crate::options::ReportFormat {
    match format {
        ExportFormat::Chrome => crate::options::ReportFormat::Json,
        ExportFormat::Folded => crate::options::ReportFormat::Table,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ranges() {
        let r = |s: &str| RunRange::parse(s);
        assert_eq!(
            r("2..5"),
            Ok(RunRange {
                start: 2,
                end: Some(5)
            })
        );
        assert_eq!(
            r("2..=5"),
            Ok(RunRange {
                start: 2,
                end: Some(6)
            })
        );
        assert_eq!(
            r("3.."),
            Ok(RunRange {
                start: 3,
                end: None
            })
        );
        assert_eq!(
            r("..4"),
            Ok(RunRange {
                start: 0,
                end: Some(4)
            })
        );
        assert_eq!(
            r("7"),
            Ok(RunRange {
                start: 7,
                end: Some(8)
            })
        );
        assert!(r("5..5").is_err());
        assert!(r("a..b").is_err());
        assert!(r("-1").is_err());
        assert!(r("1..2..3").is_err());
    }
}
