//! `cpuprof-tui run` in the explorer: the watch view of the output folder opens at once
//! and shows each run's profile as its dump lands, while a pane at the bottom follows the
//! runner (its log as it is written, which run, how it ended). The change column of the
//! runs list is against `--baseline DUMP` (shown as a run of its own) or else the first
//! run. On `q` the terminal is restored first; then the runner gets SIGINT, SIGTERM after
//! the grace period (and SIGKILL after another), unless `--keep-running`.
//!
//! The explorer knows nothing of this: it gets a [`Companion`] (`tui::run_with`).

use std::collections::VecDeque;
use std::fs::File;
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
    /// A partial last line (no newline yet).
    partial: String,
    /// `run 2/3 · running (pid 1234) · OUT/run-2.log`
    status: String,
    /// Runs that left no dump (one line each).
    problems: Vec<String>,
    done: bool,
}

impl Pane {
    fn push_bytes(&mut self, bytes: &[u8]) {
        self.partial.push_str(&String::from_utf8_lossy(bytes));
        while let Some(i) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=i).collect();
            self.lines
                .push_back(line.trim_end_matches(['\n', '\r']).to_string());
            if self.lines.len() > KEPT_LINES {
                self.lines.pop_front();
            }
        }
        // A runner printing without newlines must not grow this forever.
        if self.partial.len() > 64 << 10 {
            let line = std::mem::take(&mut self.partial);
            self.lines.push_back(line);
        }
    }
}

struct Follower {
    session: Arc<Session>,
    /// The run started before the terminal was taken (moved to the runner thread).
    first: Option<Started>,
    pane: Arc<Mutex<Pane>>,
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
        self.thread = std::thread::Builder::new()
            .name("runner".into())
            .spawn(move || runs(&session, first, &pane, &tx))
            .ok();
    }

    fn after_events(&mut self, state: &mut AppState) {
        let Some(path) = &self.pin else { return };
        let Some(w) = state.watch.as_mut() else {
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
        let tail = spawn_tail(started.files.log.clone(), pane, tx, stop_tail.clone());
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

/// Follow the log file into the pane (the runner writes it directly) until `stop`, then
/// read what is left.
fn spawn_tail(
    log: PathBuf,
    pane: &Arc<Mutex<Pane>>,
    tx: &Sender<Event>,
    stop: Arc<AtomicBool>,
) -> Option<JoinHandle<()>> {
    let pane = pane.clone();
    let tx = tx.clone();
    std::thread::Builder::new()
        .name("tail".into())
        .spawn(move || {
            let Ok(mut file) = File::open(&log) else {
                return;
            };
            let mut buf = vec![0u8; 64 << 10];
            let mut last_redraw = Instant::now() - Duration::from_secs(1);
            loop {
                let stopping = stop.load(Ordering::SeqCst);
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

/// The pane over the bottom of the explorer, above the footer: while a run is going, or
/// when a run left no dump. Hidden once every run is done and has its dump.
fn draw_pane(frame: &mut Frame, pane: &Pane, theme: &Theme) {
    if pane.done && pane.problems.is_empty() {
        return;
    }
    let area = frame.area();
    if area.height < 8 || area.width < 20 {
        return;
    }
    let height = (area.height / 3).clamp(4, 12);
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
    let room = inner_h.saturating_sub(lines.len());
    let mut log: Vec<&str> = pane.lines.iter().map(String::as_str).collect();
    if !pane.partial.is_empty() {
        log.push(&pane.partial);
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
            let sent = child::stop(libc::SIGINT, self.session.grace);
            if !sent.is_empty() {
                let names: Vec<String> = sent.iter().map(|&s| child::signal_name(s)).collect();
                eprint_line(&format!("stopped the runner ({})", names.join(", then ")));
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

    #[test]
    fn the_pane_keeps_whole_lines_and_the_partial_one() {
        let mut p = Pane::default();
        p.push_bytes(b"one\r\ntw");
        assert_eq!(p.lines, ["one"]);
        assert_eq!(p.partial, "tw");
        p.push_bytes(b"o\nthree\n");
        assert_eq!(p.lines, ["one", "two", "three"]);
        assert!(p.partial.is_empty());
        for i in 0..KEPT_LINES + 5 {
            p.push_bytes(format!("l{i}\n").as_bytes());
        }
        assert_eq!(p.lines.len(), KEPT_LINES);
        assert_eq!(p.lines.back().unwrap(), &format!("l{}", KEPT_LINES + 4));
    }
}
