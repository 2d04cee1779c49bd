//! `cpuprof-tui run` in the explorer: the watch view of the output folder opens at once
//! and shows each run's profile as its dump lands, while a pane at the bottom follows the
//! runner (its log as it is written, which run, how it ended). The change column of the
//! runs list is against `--baseline DUMP` (shown as a run of its own) or else the first
//! run. On `q` the terminal is restored first; then the runner gets SIGINT, SIGTERM after
//! the grace period (and SIGKILL after another), unless `--keep-running`.
//!
//! The explorer knows nothing of this: it gets a [`Companion`] (`tui::run_with`).

use std::collections::VecDeque;
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use super::child::{self, Capture, Started};
use super::{exit_code, no_dump_line, Finished, Session};
use crate::app::AppState;
use crate::cli::{ExploreArgs, RunArgs};
use crate::escape::{eprint_line, escape_cut};
use crate::profile::warmup::Warmup;
use crate::tui::Companion;
use crate::ui::Theme;
use crate::watch::{DumpPair, WatchEvent};
use crate::worker::Event;

/// Log lines kept for the pane.
const KEPT_LINES: usize = 200;

pub fn run(args: &RunArgs, session: Session) -> ExitCode {
    // The first run starts before the terminal is taken: a program that cannot be
    // started is one line and exit 2 on the normal screen.
    let first = match session.start(Capture::Files, 0) {
        Ok(s) => s,
        Err(line) => {
            eprint_line(&line);
            return ExitCode::from(2);
        }
    };
    let explore = ExploreArgs {
        watch: Some(session.dir.clone()),
        // As `report`: `--warmup N` is what the runner was told, else the log's count.
        warmup: Some(session.warmup.map(Warmup::Runs).unwrap_or_default()),
        model: session.model.clone(),
        read: session.read,
        ..ExploreArgs::default()
    };
    let pin = session
        .baseline
        .clone()
        .unwrap_or_else(|| first.files.etdump.clone());
    let mut follower = Follower {
        session: Arc::new(session),
        first: Some(first),
        pane: Arc::new(Mutex::new(Pane::default())),
        quit: Arc::new(AtomicBool::new(false)),
        thread: None,
        pin: Some(pin),
    };
    let explorer = crate::tui::run_with(&explore, Some(&mut follower));
    // The terminal is back to normal here.
    follower.finish(args.keep_running, explorer)
}

/// What the pane shows; written by the runner's threads, read by the frame.
#[derive(Debug, Default)]
struct Pane {
    /// The log of the run in progress (or of the last run), newest last.
    lines: VecDeque<String>,
    /// A partial last line (no newline yet), as the runner wrote it.
    partial: Vec<u8>,
    /// `run 2/3 · running (pid 1234) · OUT/run-2.log`
    status: String,
    /// Runs that left no dump (one line each).
    problems: Vec<String>,
    done: bool,
    /// `done, exit 0`: how the last run ended, the pane's last line once all are done.
    ended: Option<String>,
}

impl Pane {
    /// Take the next bytes of the log. Only the last [`KEPT_LINES`] whole lines can stay
    /// on the pane, so a chunk holding more is skipped to them: a flood of lines costs one
    /// scan of each chunk, never work per line skipped (20 MB of blank lines took ~15 s
    /// when every line was split off the front of a string).
    fn push_bytes(&mut self, bytes: &[u8]) {
        let mut start = 0;
        let mut newlines = 0;
        for (i, &b) in bytes.iter().enumerate().rev() {
            if b == b'\n' {
                newlines += 1;
                if newlines > KEPT_LINES {
                    // This line and every one before it would scroll out.
                    start = i + 1;
                    self.partial.clear();
                    break;
                }
            }
        }
        for piece in bytes[start..].split_inclusive(|&b| b == b'\n') {
            match piece.strip_suffix(b"\n") {
                Some(end) => {
                    self.partial.extend_from_slice(end);
                    let line = String::from_utf8_lossy(&self.partial)
                        .trim_end_matches('\r')
                        .to_string();
                    self.partial.clear();
                    self.push_line(line);
                }
                None => self.partial.extend_from_slice(piece),
            }
        }
        // A runner printing without newlines must not grow this forever.
        if self.partial.len() > 64 << 10 {
            let line = String::from_utf8_lossy(&std::mem::take(&mut self.partial)).into_owned();
            self.push_line(line);
        }
    }

    fn push_line(&mut self, line: String) {
        self.lines.push_back(line);
        if self.lines.len() > KEPT_LINES {
            self.lines.pop_front();
        }
    }

    /// The tail jumped ahead in the log: what was shown is no longer its end.
    fn skipped(&mut self, bytes: u64) {
        self.lines.clear();
        self.partial.clear();
        self.push_line(format!(
            "[… {} of the log not shown]",
            crate::app::format::bytes(bytes)
        ));
    }
}

struct Follower {
    session: Arc<Session>,
    /// The run started before the terminal was taken (moved to the runner thread).
    first: Option<Started>,
    pane: Arc<Mutex<Pane>>,
    /// Set when the explorer closed: the log is no longer followed.
    quit: Arc<AtomicBool>,
    thread: Option<JoinHandle<Vec<Finished>>>,
    /// The dump to pin as the runs list's baseline once it is listed.
    pin: Option<PathBuf>,
}

impl Companion for Follower {
    fn start(&mut self, tx: Sender<Event>) {
        if let Some(baseline) = &self.session.baseline {
            // The saved dump joins the runs list as a run of its own (it is outside the
            // watched folder, or announced again there: the same file is one entry).
            let meta = std::fs::metadata(baseline);
            let pair = DumpPair {
                etdump: baseline.clone(),
                log: crate::profile::default_log_for(baseline),
                modified: meta
                    .as_ref()
                    .ok()
                    .and_then(|m| m.modified().ok())
                    .unwrap_or(std::time::UNIX_EPOCH),
                size: meta.map(|m| m.len()).unwrap_or(0),
            };
            let _ = tx.send(Event::Watch(WatchEvent::Ready(pair)));
        }
        let Some(first) = self.first.take() else {
            return;
        };
        let session = self.session.clone();
        let pane = self.pane.clone();
        let quit = self.quit.clone();
        self.thread = std::thread::Builder::new()
            .name("runner".into())
            .spawn(move || runs(&session, first, &pane, &tx, &quit))
            .ok();
    }

    fn after_events(&mut self, state: &mut AppState) {
        let Some(path) = &self.pin else { return };
        let Some(w) = state.session.watch.as_mut() else {
            return;
        };
        if let Some(e) = w.entries.iter().find(|e| &e.etdump == path) {
            w.baseline = Some(e.id);
            crate::app::runs::refresh_changes(w);
            // Once: the user may pin another run (`b`).
            self.pin = None;
        }
    }

    fn draw(&self, frame: &mut Frame, theme: &Theme) {
        let pane = self.pane.lock().unwrap_or_else(|p| p.into_inner());
        draw_pane(frame, &pane, theme);
    }
}

/// Every run in turn (the first already started), each log followed into the pane.
fn runs(
    session: &Session,
    first: Started,
    pane: &Arc<Mutex<Pane>>,
    tx: &Sender<Event>,
    quit: &Arc<AtomicBool>,
) -> Vec<Finished> {
    let mut finished = Vec::new();
    let mut next = Some(first);
    for i in 0..session.repeat {
        let started = match next.take() {
            Some(s) => s,
            None => {
                if child::stopping() {
                    break;
                }
                match session.start(
                    Capture::Files,
                    finished.last().map_or(0, |f: &Finished| f.files.number),
                ) {
                    Ok(s) => s,
                    Err(line) => {
                        lock(pane).problems.push(line);
                        break;
                    }
                }
            }
        };
        {
            let mut p = lock(pane);
            p.lines.clear();
            p.partial.clear();
            p.status = format!(
                "run {}/{} · running (pid {}) · {}",
                i + 1,
                session.repeat,
                child::active_pid().unwrap_or(0),
                started.files.log.display()
            );
        }
        let _ = tx.send(Event::Redraw);
        let stop_tail = Arc::new(AtomicBool::new(false));
        let tail = spawn_tail(
            started.files.log.clone(),
            pane,
            tx,
            stop_tail.clone(),
            quit.clone(),
        );
        let (files, status) = started.wait();
        stop_tail.store(true, Ordering::SeqCst);
        if let Some(t) = tail {
            let _ = t.join();
        }
        let f = Finished { files, status };
        {
            let mut p = lock(pane);
            p.status = format!(
                "run {}/{} · {} · {}",
                i + 1,
                session.repeat,
                child::describe(status),
                f.files.log.display()
            );
            if let Some(line) = no_dump_line(&f) {
                p.problems.push(line);
            }
        }
        finished.push(f);
        let _ = tx.send(Event::Redraw);
    }
    {
        let mut p = lock(pane);
        p.done = true;
        p.ended = finished.last().map(|f| ended_line(f.status));
        if let Some(f) = finished.last() {
            p.status = format!(
                "runner done: {} · last {} · {}",
                crate::app::format::count(finished.len(), "run"),
                child::describe(f.status),
                session.dir.display()
            );
        }
    }
    let _ = tx.send(Event::Redraw);
    finished
}

fn lock(pane: &Mutex<Pane>) -> std::sync::MutexGuard<'_, Pane> {
    pane.lock().unwrap_or_else(|p| p.into_inner())
}

/// How far the tail may fall behind the log before it jumps to its end.
const TAIL_BEHIND: u64 = 1 << 20;
/// What it keeps of the end when it jumps (the pane shows 200 lines at most).
const TAIL_WINDOW: u64 = 64 << 10;

/// Follow the log file into the pane (the runner writes it directly) until `stop`, then
/// read what is left; at once on `quit` (`q`: the pane is gone, nobody waits for it).
/// The log is the runner's to replace: it is opened without blocking (a FIFO there is
/// said on the pane, not waited on), and a log written faster than it is read is
/// followed from its last [`TAIL_WINDOW`] bytes.
fn spawn_tail(
    log: PathBuf,
    pane: &Arc<Mutex<Pane>>,
    tx: &Sender<Event>,
    stop: Arc<AtomicBool>,
    quit: Arc<AtomicBool>,
) -> Option<JoinHandle<()>> {
    use crate::regular_file::{self, OpenError};
    use std::io::{Seek, SeekFrom};
    let pane = pane.clone();
    let tx = tx.clone();
    std::thread::Builder::new()
        .name("tail".into())
        .spawn(move || {
            let mut file = match regular_file::open(&log) {
                Ok((file, _)) => file,
                Err(OpenError::NotRegular(kind)) => {
                    lock(&pane).push_line(format!(
                        "[the log {} is {kind}: not followed]",
                        log.display()
                    ));
                    let _ = tx.send(Event::Redraw);
                    return;
                }
                Err(OpenError::Io(_)) => return,
            };
            let mut buf = vec![0u8; 64 << 10];
            let mut last_redraw = Instant::now() - Duration::from_secs(1);
            while !quit.load(Ordering::SeqCst) {
                let stopping = stop.load(Ordering::SeqCst);
                if let (Ok(at), Ok(meta)) = (file.stream_position(), file.metadata()) {
                    if meta.len() > at + TAIL_BEHIND {
                        let to = meta.len() - TAIL_WINDOW;
                        if file.seek(SeekFrom::Start(to)).is_ok() {
                            lock(&pane).skipped(to - at);
                        }
                    }
                }
                match file.read(&mut buf) {
                    Ok(0) | Err(_) => {
                        if stopping {
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(50));
                    }
                    Ok(n) => {
                        lock(&pane).push_bytes(&buf[..n]);
                        // At most 20 frames a second for a chatty runner.
                        if last_redraw.elapsed() >= Duration::from_millis(50) {
                            last_redraw = Instant::now();
                            let _ = tx.send(Event::Redraw);
                        }
                    }
                }
            }
            let _ = tx.send(Event::Redraw);
        })
        .ok()
}

/// `done, exit 0` (or `done, killed by SIGKILL`): the pane's last word on the runner.
fn ended_line(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("done, exit {c}"),
        (None, Some(sig)) => format!("done, killed by {}", child::signal_name(sig)),
        _ => "done".into(),
    }
}

/// The pane over the bottom of the explorer, above the footer: while a run is going, and
/// after the last one (one line, `done, exit N`, under any run that left no dump).
fn draw_pane(frame: &mut Frame, pane: &Pane, theme: &Theme) {
    let area = frame.area();
    if area.height < 8 || area.width < 20 {
        return;
    }
    // Done with every dump there: a pane of one line, so the explorer keeps its room.
    let height = if pane.done && pane.problems.is_empty() {
        3
    } else {
        (area.height / 3).clamp(4, 12)
    };
    let rect = Rect::new(
        area.x,
        area.y + area.height - 1 - height,
        area.width,
        height,
    );
    let width = rect.width.saturating_sub(2) as usize;
    let title = format!(
        " runner · {} ",
        escape_cut(&pane.status, width.saturating_sub(12))
    );
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(false))
        .title(Span::styled(title, theme.title()));
    let inner_h = rect.height.saturating_sub(2) as usize;
    let mut lines: Vec<Line> = pane
        .problems
        .iter()
        .map(|p| Line::styled(escape_cut(p, width), theme.error_text()))
        .collect();
    if let Some(ended) = pane.ended.as_ref().filter(|_| pane.done) {
        lines.push(Line::styled(escape_cut(ended, width), theme.title()));
    }
    let room = inner_h.saturating_sub(lines.len());
    let mut log: Vec<&str> = if pane.done && pane.problems.is_empty() {
        Vec::new()
    } else {
        pane.lines.iter().map(String::as_str).collect()
    };
    let partial = String::from_utf8_lossy(&pane.partial);
    if !partial.is_empty() {
        log.push(&partial);
    }
    let skip = log.len().saturating_sub(room);
    lines.splice(
        0..0,
        log[skip..]
            .iter()
            .map(|l| Line::styled(escape_cut(l, width), theme.dim())),
    );
    frame.render_widget(Clear, rect);
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}

impl Follower {
    /// After the explorer closed (the terminal is restored): stop the runner unless it is
    /// to keep running, say what became of each run, and give the exit status.
    fn finish(mut self, keep_running: bool, explorer: ExitCode) -> ExitCode {
        child::stop_starting();
        self.quit.store(true, Ordering::SeqCst);
        if keep_running {
            if let Some(pid) = child::active_pid() {
                eprint_line(&format!(
                    "the runner keeps running (pid {pid}, process group {pid}); its output goes to {}",
                    self.session.dir.display()
                ));
                let pane = lock(&self.pane);
                let finished_ok = pane.problems.is_empty();
                drop(pane);
                return if finished_ok {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(2)
                };
            }
        } else {
            let runner_alive = child::active_pid().is_some();
            let sent = child::stop(libc::SIGINT, self.session.grace);
            if !sent.is_empty() {
                let names: Vec<String> = sent.iter().map(|&s| child::signal_name(s)).collect();
                let what = if runner_alive {
                    "the runner"
                } else {
                    "what the runner left running in its process group"
                };
                eprint_line(&format!("stopped {what} ({})", names.join(", then ")));
            }
        }
        let finished = self
            .thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default();
        let mut unreadable = false;
        for f in &finished {
            if let Some(line) = no_dump_line(f) {
                eprint_line(&line);
                unreadable = true;
            }
        }
        if explorer != ExitCode::SUCCESS && finished.is_empty() {
            return explorer;
        }
        exit_code(&finished, unreadable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pane_text(pane: &Pane) -> String {
        let mut terminal =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).unwrap();
        terminal
            .draw(|f| draw_pane(f, pane, &Theme::plain()))
            .unwrap();
        let buf = terminal.backend().buffer().clone();
        (0..24)
            .map(|y| (0..80).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Issue #47: the pane stays after the last run, saying how it ended (the exit status
    /// a shell gives `sh -c 'exit 3'`).
    #[test]
    fn the_pane_ends_with_done_and_the_exit_status() {
        let status = std::process::Command::new("sh")
            .args(["-c", "exit 3"])
            .status()
            .unwrap();
        let mut p = Pane::default();
        p.push_bytes(b"last log line\n");
        p.status = "runner done".into();
        let running = pane_text(&p);
        assert!(running.contains("last log line"), "{running}");
        p.done = true;
        p.ended = Some(ended_line(status));
        let done = pane_text(&p);
        assert!(done.contains("│done, exit 3"), "{done}");
        assert!(done.contains("runner · runner done"), "{done}");
        // One line between its borders.
        assert_eq!(
            done.lines().filter(|l| l.starts_with('│')).count(),
            1,
            "{done}"
        );
        // A run that left no dump keeps the full pane, the end last.
        p.problems.push("run 2 left no dump".into());
        let text = pane_text(&p);
        assert!(text.contains("run 2 left no dump") && text.contains("done, exit 3"));
    }

    #[test]
    fn the_pane_keeps_whole_lines_and_the_partial_one() {
        let mut p = Pane::default();
        p.push_bytes(b"one\r\ntw");
        assert_eq!(p.lines, ["one"]);
        assert_eq!(p.partial, b"tw");
        p.push_bytes(b"o\nthree\n");
        assert_eq!(p.lines, ["one", "two", "three"]);
        assert!(p.partial.is_empty());
        for i in 0..KEPT_LINES + 5 {
            p.push_bytes(format!("l{i}\n").as_bytes());
        }
        assert_eq!(p.lines.len(), KEPT_LINES);
        assert_eq!(p.lines.back().unwrap(), &format!("l{}", KEPT_LINES + 4));
    }

    #[test]
    fn a_chunk_of_many_lines_keeps_its_last_ones_as_line_by_line_would() {
        // One chunk of 1000 lines after a partial line: the pane ends as if they came one
        // by one (the last KEPT_LINES lines, the partial line gone with the skipped ones).
        let mut whole = Pane::default();
        let mut one_by_one = Pane::default();
        let text: String = (0..1000).map(|i| format!("line {i}\r\n")).collect();
        for p in [&mut whole, &mut one_by_one] {
            p.push_bytes(b"head-");
        }
        whole.push_bytes(format!("{text}tail").as_bytes());
        for line in text.split_inclusive('\n') {
            one_by_one.push_bytes(line.as_bytes());
        }
        one_by_one.push_bytes(b"tail");
        assert_eq!(whole.lines, one_by_one.lines);
        assert_eq!(whole.lines.len(), KEPT_LINES);
        assert_eq!(whole.lines.front().unwrap(), "line 800");
        assert_eq!(whole.lines.back().unwrap(), "line 999");
        assert_eq!(whole.partial, b"tail");
        // Exactly KEPT_LINES lines: the partial line before them is their first.
        let mut p = Pane::default();
        p.push_bytes(b"a");
        let text: String = (0..KEPT_LINES).map(|i| format!("{i}\n")).collect();
        p.push_bytes(text.as_bytes());
        assert_eq!(p.lines.front().unwrap(), "a0");
    }

    #[test]
    fn a_flood_of_blank_lines_is_one_scan() {
        // 20 MB of blank lines in 64 KiB chunks, as the tail reads them: line by line off
        // the front of a string this took ~15 s (round 3, `slowquit`); a scan is
        // milliseconds. The budget is loose for a loaded 2-core machine.
        let mut p = Pane::default();
        let chunk = vec![b'\n'; 64 << 10];
        let t = Instant::now();
        for _ in 0..(20_000_000 / chunk.len()) {
            p.push_bytes(&chunk);
        }
        assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
        assert_eq!(p.lines.len(), KEPT_LINES);
        assert!(p.lines.iter().all(String::is_empty));
    }
}
