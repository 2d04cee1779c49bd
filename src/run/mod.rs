//! `cpuprof-tui run [OPTIONS] -- PROGRAM ARGS...`: start a runner with ETDump profiling
//! on (`ET_CPU_ETDUMP`, `ET_CPU_WARMUP_RUNS`, `ET_CPU_TIMED_RUNS`, `{etdump}`/`{warmup}`/
//! `{timed}` in its arguments), capture its standard error as the run's log, and either
//! follow the output folder in the explorer's watch view (`follow`) or print the report
//! of every run at the end (`--no-tui`, through `report`/`compare` as they print).
//!
//! Exit status: the runner's (the last one's with `--repeat`; 128 + signal when a signal
//! ended it); 2 when it cannot be started, or when it exited 0 but a run left no readable
//! dump (one line naming the path it was given and the end of its log).

pub mod child;
mod follow;
pub mod plan;

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::{ExitCode, ExitStatus};
use std::time::{Duration, SystemTime};

use crate::cli::{CompareArgs, CompareFormat, ReportArgs, ReportFormat, RunArgs, RunFormat};
use crate::escape::{eprint_line, escape};
use crate::profile::warmup::Warmup;
use child::{Capture, Spec};
use plan::RunFiles;

/// How many lines of a log end the "no dump" message.
const LOG_TAIL_LINES: usize = 3;

pub fn run(args: &RunArgs) -> ExitCode {
    match prepare(args) {
        Ok(session) => {
            let tui = !(args.no_tui || args.format.is_some()) && std::io::stdout().is_terminal();
            let code = if tui {
                follow::run(args, session)
            } else {
                run_headless(args, session)
            };
            // The runner ended because of a signal to us: the signal thread exits (128 +
            // signal) once it has seen the runner go; nothing more is printed meanwhile.
            while child::signalled() {
                std::thread::park();
            }
            code
        }
        Err(line) => {
            eprint_line(&line);
            ExitCode::from(2)
        }
    }
}

/// What every run shares: its folder, command and options.
pub struct Session {
    pub dir: PathBuf,
    pub stem: String,
    pub command: Vec<OsString>,
    pub warmup: Option<usize>,
    pub timed: Option<usize>,
    pub repeat: usize,
    pub grace: Duration,
    pub baseline: Option<PathBuf>,
    /// `--etrecord` / `--program`, read with every dump the runner writes.
    pub model: crate::profile::ModelFileArgs,
    /// `--max-input-size` / `--time-unit`, for every dump the runner writes.
    pub read: crate::profile::ReadOptions,
}

impl Session {
    fn spec(&self, capture: Capture) -> Spec {
        Spec {
            command: self.command.clone(),
            warmup: self.warmup,
            timed: self.timed,
            capture,
        }
    }

    /// Claim the next free name (after `after`) and start the runner on it.
    pub fn start(&self, capture: Capture, after: u64) -> Result<child::Started, String> {
        let files = plan::claim(&self.dir, &self.stem, after + 1)?;
        let log = files.log.clone();
        child::start(&self.spec(capture), files).inspect_err(|_| {
            // Nothing ran: the empty log claimed for it goes.
            let _ = std::fs::remove_file(&log);
        })
    }
}

/// Everything that can be wrong before a runner starts: one line naming what.
fn prepare(args: &RunArgs) -> Result<Session, String> {
    plan::check_stem(&args.name)?;
    let missing = plan::missing_values(&args.command, args.warmup, args.timed);
    if let Some(first) = missing.first() {
        return Err(format!("run: {first}"));
    }
    if let Some(b) = &args.baseline {
        if let Some(why) = crate::profile::check_openable(b) {
            return Err(format!("{}: {why}", b.display()));
        }
        if crate::source::is_trace_file(b, args.read.max_input_size) {
            return Err(format!(
                "{}: --baseline takes an ETDump, not a PyTorch trace",
                b.display()
            ));
        }
    }
    let dir = plan::out_dir(args.out.as_deref(), SystemTime::now())?;
    let grace = Duration::from_secs_f64(args.grace);
    // Signals to cpuprof-tui go on to the runner (after the terminal is restored).
    crate::signals::set_forward(move |sig| child::forward_signal(sig, grace));
    Ok(Session {
        dir,
        stem: args.name.clone(),
        command: args.command.clone(),
        warmup: args.warmup,
        timed: args.timed,
        repeat: args.repeat,
        grace,
        baseline: args.baseline.clone(),
        model: args.model.clone(),
        read: args.read,
    })
}

/// One finished run.
#[derive(Debug, Clone)]
pub struct Finished {
    pub files: RunFiles,
    pub status: ExitStatus,
}

/// `--no-tui`: every run in turn (standard input and output are the program's, its
/// standard error is copied into the log as it goes by), then the reports.
fn run_headless(args: &RunArgs, session: Session) -> ExitCode {
    let mut finished: Vec<Finished> = Vec::new();
    let mut last_number = 0;
    for i in 0..session.repeat {
        if child::stopping() {
            break;
        }
        let started = match session.start(Capture::Tee, last_number) {
            Ok(s) => s,
            Err(line) => {
                eprint_line(&line);
                // The first run: nothing to report. A later one: the runs so far are.
                if i == 0 {
                    return ExitCode::from(2);
                }
                break;
            }
        };
        last_number = started.files.number;
        let (files, status) = started.wait();
        finished.push(Finished { files, status });
    }
    let format = args.format.unwrap_or(RunFormat::Table);
    let mut unreadable = false;
    for (i, f) in finished.iter().enumerate() {
        if i > 0 && format == RunFormat::Table {
            // A closed stdout loses the blank line; it never panics as `println!` does.
            let _ = std::io::Write::write_all(&mut std::io::stdout(), b"\n");
        }
        if !report_one(&session, f, format) {
            unreadable = true;
        }
    }
    exit_code(&finished, unreadable)
}

/// The exit status of a session: the last runner's when it failed, else 2 when a run
/// left no readable dump, else 0.
pub fn exit_code(finished: &[Finished], unreadable: bool) -> ExitCode {
    let code = match finished.last().map(|f| child::status_code(f.status)) {
        None => 2,
        Some(0) if unreadable => 2,
        Some(code) => code,
    };
    ExitCode::from(code)
}

/// Print one run's report (or its comparison with the baseline); false when its dump is
/// missing or unreadable (said in one line).
fn report_one(session: &Session, f: &Finished, format: RunFormat) -> bool {
    if let Some(line) = no_dump_line(f) {
        eprint_line(&line);
        return false;
    }
    let log_ok = usable_log(f).map_err(|line| eprint_line(&line)).is_ok();
    let log = log_ok.then(|| f.files.log.clone());
    // `--warmup N` told the runner N; without it, the default of every command (`log`:
    // the count the runner's log states, else the cold-run rule), never a silent 0.
    let warmup = session.warmup.map(Warmup::Runs).unwrap_or_default();
    let code = match &session.baseline {
        Some(baseline) => crate::report::compare::run(&CompareArgs {
            a: baseline.clone(),
            b: f.files.etdump.clone(),
            format: Some(match format {
                RunFormat::Table => CompareFormat::Table,
                RunFormat::Json => CompareFormat::Json,
                RunFormat::Csv => CompareFormat::Csv,
            }),
            output: None,
            log_a: None,
            log_b: log.clone(),
            // The baseline's log is still read beside it (`no_log` is for both sides);
            // beside B only a regular file is taken (`default_log_for`).
            no_log: false,
            warmup,
            warmup_a: None,
            warmup_b: None,
            alpha: 0.05,
            min_change: 5.0,
            fail_on_regression: None,
            by_module: false,
            model: session.model.clone(),
            read: session.read,
        }),
        None => crate::report::run(&ReportArgs {
            file: f.files.etdump.clone(),
            more: Vec::new(),
            per: None,
            no_log: log.is_none(),
            log,
            warmup,
            format: match format {
                RunFormat::Table => ReportFormat::Table,
                RunFormat::Json => ReportFormat::Json,
                RunFormat::Csv => ReportFormat::Csv,
            },
            output: None,
            // A failed check is reported on stderr; the exit status is the runner's.
            allow_missing: true,
            self_time: false,
            python_frames: false,
            peak: None,
            by_module: false,
            model: session.model.clone(),
            read: session.read,
            terminal_width: crate::cli::stdout_columns(),
        }),
    };
    code != ExitCode::from(2)
}

/// When the run left no dump, or one cut short (the runner died writing it), or something
/// that is not a file at all (a directory, a FIFO, a device: named as what it is): one
/// line naming the path it was given, how the runner ended and the last lines of its log
/// (escaped). None: a whole dump is there (whether it decodes is the report's to say).
/// The path is the runner's to make: it is opened without ever blocking
/// (`regular_file::open`: a FIFO left there is refused, not waited on).
pub fn no_dump_line(f: &Finished) -> Option<String> {
    use crate::regular_file::{self, OpenError};
    use crate::watch::rules::{sniff, Sniff};
    use std::io::Read;
    let what = match regular_file::open(&f.files.etdump) {
        Err(OpenError::Io(_)) => "the runner wrote no dump".to_string(),
        Err(OpenError::NotRegular(kind)) => {
            format!(
                "the runner left {}, not a dump",
                through_link(&f.files.etdump, kind)
            )
        }
        Ok((file, meta)) => {
            let len = meta.len();
            let mut head = Vec::with_capacity(12);
            let _ = file.take(12).read_to_end(&mut head);
            match sniff(&head) {
                _ if len == 0 => "the runner left an empty dump".to_string(),
                Sniff::TooShort => format!("the runner left {len} bytes, too short for an ETDump"),
                Sniff::EtDump { prefix } if len < 4 + u64::from(prefix) => format!(
                    "the runner left an incomplete ETDump ({} of the {prefix} bytes its size prefix announces)",
                    len - 4
                ),
                _ => return None,
            }
        }
    };
    Some(format!(
        "{}: {what} ({}); {}",
        f.files.etdump.display(),
        child::describe(f.status),
        log_tail(&f.files.log)
    ))
}

/// `a FIFO`, or `a symbolic link to a character device` when `path` is a link.
fn through_link(path: &Path, kind: &str) -> String {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => format!("a symbolic link to {kind}"),
        _ => kind.to_string(),
    }
}

/// The run's log when it is a file the report can read; else one line saying what the
/// runner left there instead (a FIFO, a directory...), and the report goes without it.
pub fn usable_log(f: &Finished) -> Result<(), String> {
    match crate::regular_file::open(&f.files.log) {
        Err(crate::regular_file::OpenError::NotRegular(kind)) => Err(format!(
            "{}: the runner left {}, not a log; the dump is reported without it",
            f.files.log.display(),
            through_link(&f.files.log, kind)
        )),
        _ => Ok(()),
    }
}

/// `its log ends: «a» «b»`, or that it is empty (each line escaped), or what the runner
/// left at its path instead.
pub fn log_tail(log: &Path) -> String {
    if let Err(crate::regular_file::OpenError::NotRegular(kind)) = crate::regular_file::open(log) {
        return format!("its log {} is {}", log.display(), through_link(log, kind));
    }
    let lines = last_lines(log, LOG_TAIL_LINES);
    if lines.is_empty() {
        return format!("its log {} is empty", log.display());
    }
    let quoted: Vec<String> = lines.iter().map(|l| format!("«{}»", escape(l))).collect();
    format!("its log {} ends: {}", log.display(), quoted.join(" "))
}

/// The last `n` non-blank lines of a file (from its last 64 KiB); none when it is not a
/// regular file (never opened in a blocking way).
pub fn last_lines(path: &Path, n: usize) -> Vec<String> {
    use std::io::{Read, Seek, SeekFrom};
    let Ok((mut file, meta)) = crate::regular_file::open(path) else {
        return Vec::new();
    };
    let len = meta.len();
    let start = len.saturating_sub(64 << 10);
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(start)).is_err() || file.read_to_end(&mut bytes).is_err() {
        return Vec::new();
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut lines: Vec<String> = text
        .lines()
        // A cut first line is not shown.
        .skip(usize::from(start > 0))
        .map(|l| l.trim_end_matches('\r').to_string())
        .filter(|l| !l.trim().is_empty())
        .collect();
    let keep = lines.len().saturating_sub(n);
    lines.drain(..keep);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    fn finished(raw: i32) -> Finished {
        Finished {
            files: RunFiles {
                number: 1,
                etdump: "x.etdp".into(),
                log: "x.log".into(),
                stdout: "x.out".into(),
            },
            status: ExitStatus::from_raw(raw),
        }
    }

    #[test]
    fn the_exit_status_is_the_last_runners() {
        // Wait statuses: exit code N is N << 8; a signal is its number.
        let code = |f: &[Finished], unreadable| exit_code(f, unreadable);
        assert_eq!(
            code(&[finished(3 << 8), finished(0)], false),
            ExitCode::from(0)
        );
        assert_eq!(
            code(&[finished(0), finished(5 << 8)], false),
            ExitCode::from(5)
        );
        assert_eq!(code(&[finished(libc::SIGKILL)], false), ExitCode::from(137));
        // Exit 0 without a readable dump is a failure; a failed runner keeps its status.
        assert_eq!(code(&[finished(0)], true), ExitCode::from(2));
        assert_eq!(code(&[finished(4 << 8)], true), ExitCode::from(4));
        assert_eq!(code(&[], false), ExitCode::from(2));
    }

    #[test]
    fn the_last_lines_skip_blank_ones_and_a_cut_first_line() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("a.log");
        std::fs::write(&log, "a\nb\n\n  \nc\r\nd").unwrap();
        assert_eq!(last_lines(&log, 3), ["b", "c", "d"]);
        let long = format!("{}\nlast\n", "x".repeat(70 << 10));
        std::fs::write(&log, long).unwrap();
        assert_eq!(last_lines(&log, 3), ["last"]);
        assert!(log_tail(&dir.path().join("none.log")).contains("is empty"));
        std::fs::write(&log, "bad \x1b[2J\n").unwrap();
        assert!(
            log_tail(&log).contains("«bad \\x1b[2J»"),
            "{}",
            log_tail(&log)
        );
    }
}
