//! What the watcher knows about each file of the directory, and the few file system calls
//! it makes (list, stat, read 12 bytes). The decisions themselves are in `rules`.

use std::collections::{BTreeMap, HashSet};
use std::fs::{self, Metadata};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use super::rules::{self, Completeness, Dedupe, LogFile, NameKind, Sniff};
use super::{DumpPair, WatchEvent};

/// Subdirectories deeper than this are not walked (guards against odd trees).
const MAX_DEPTH: usize = 32;

/// A version of a file: changes when it is written, replaced, or its metadata changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fingerprint {
    len: u64,
    modified: SystemTime,
    /// (inode, ctime): a rename over the path, or a permission change, with identical
    /// length and mtime is still noticed.
    identity: (u64, i64, i64),
}

impl Fingerprint {
    fn of(meta: &Metadata) -> Self {
        Fingerprint {
            len: meta.len(),
            modified: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            identity: identity(meta),
        }
    }
}

#[cfg(unix)]
fn identity(meta: &Metadata) -> (u64, i64, i64) {
    use std::os::unix::fs::MetadataExt;
    (meta.ino(), meta.ctime(), meta.ctime_nsec())
}

#[cfg(not(unix))]
fn identity(_meta: &Metadata) -> (u64, i64, i64) {
    (0, 0, 0)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Named or sniffed as an ETDump.
    Dump,
    /// Unusual name: a dump only if its content says so.
    Maybe,
    Log,
    /// Sniffed: not a dump. Looked at again only when it changes.
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Look at the file at `at`; `attempt` counts retries of an incomplete dump.
    Check { attempt: u32, at: Instant },
    /// Nothing to do until the file changes.
    Settled,
}

#[derive(Debug)]
struct Entry {
    role: Role,
    fp: Fingerprint,
    /// When this version was first seen.
    first_seen: Instant,
    state: State,
    /// An Error was announced for this version.
    reported: bool,
}

impl Entry {
    fn last_change(&self, now: Instant, wall: SystemTime) -> Instant {
        rules::last_change(self.first_seen, self.fp.modified, now, wall)
    }
}

/// Directories listed by the last scan, shared with the notify callback: listing a
/// directory opens it, and inotify reports that open as an event on the directory. Events
/// only on known directories are therefore ignored (else every listing would cause the
/// next one, forever).
pub(super) type KnownDirs = Arc<Mutex<HashSet<PathBuf>>>;

pub(super) struct Settings {
    pub root: PathBuf,
    pub known_dirs: KnownDirs,
    pub recursive: bool,
    pub quiet: Duration,
    pub grace: Duration,
    pub stall_after: Duration,
}

pub(super) struct Tracker {
    cfg: Settings,
    entries: BTreeMap<PathBuf, Entry>,
    /// Versions announced as Ready.
    announced: Dedupe,
    /// Paths with an Error announced (and no Ready since).
    errored: HashSet<PathBuf>,
    /// The last error listing the watched directory, reported once.
    root_error: Option<String>,
}

impl Tracker {
    pub fn new(cfg: Settings) -> Self {
        Tracker {
            cfg,
            entries: BTreeMap::new(),
            announced: Dedupe::default(),
            errored: HashSet::new(),
            root_error: None,
        }
    }

    /// The next instant a file needs a look, if any.
    pub fn next_due(&self) -> Option<Instant> {
        self.entries
            .values()
            .filter_map(|e| match e.state {
                State::Check { at, .. } => Some(at),
                State::Settled => None,
            })
            .min()
    }

    /// List the directory and note new, changed and vanished files.
    pub fn rescan(&mut self, now: Instant, out: &mut Vec<WatchEvent>) {
        let listed = match list_files(&self.cfg.root, self.cfg.recursive) {
            Ok((listed, dirs)) => {
                self.root_error = None;
                let mut known = self
                    .cfg
                    .known_dirs
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                // notify reports absolute paths (relative watch paths joined to the
                // current directory).
                *known = dirs
                    .into_iter()
                    .map(|d| std::path::absolute(&d).unwrap_or(d))
                    .collect();
                listed
            }
            Err(e) => {
                if e.kind() == io::ErrorKind::NotFound {
                    // The directory itself was deleted: so were its files.
                    let all: Vec<PathBuf> = self.entries.keys().cloned().collect();
                    for path in all {
                        self.remove(&path, out);
                    }
                }
                let message = format!("cannot list the watched directory: {}", io_message(&e));
                if self.root_error.as_ref() != Some(&message) {
                    out.push(WatchEvent::Error {
                        path: self.cfg.root.clone(),
                        message: message.clone(),
                        modified: modified_time(&self.cfg.root),
                    });
                    self.root_error = Some(message);
                }
                return;
            }
        };
        let gone: Vec<PathBuf> = self
            .entries
            .keys()
            .filter(|p| !listed.contains_key(*p))
            .cloned()
            .collect();
        for path in gone {
            self.remove(&path, out);
        }
        for (path, meta) in listed {
            self.observe(path, &meta, now);
        }
    }

    /// Look at every file that is due.
    pub fn run_due(&mut self, now: Instant, out: &mut Vec<WatchEvent>) {
        let due: Vec<PathBuf> = self
            .entries
            .iter()
            .filter(|(_, e)| matches!(e.state, State::Check { at, .. } if at <= now))
            .map(|(p, _)| p.clone())
            .collect();
        for path in due {
            self.check(&path, now, out);
        }
    }

    /// Record the current metadata of a listed file.
    fn observe(&mut self, path: PathBuf, meta: &Metadata, now: Instant) {
        let fp = Fingerprint::of(meta);
        if let Some(entry) = self.entries.get(&path) {
            if entry.fp == fp {
                return;
            }
        }
        let role = match rules::name_kind(&path) {
            NameKind::Dump => Role::Dump,
            NameKind::Log => Role::Log,
            NameKind::Maybe => Role::Maybe,
            NameKind::Ignored => return,
        };
        if role == Role::Log {
            self.wake_dumps_beside(&path, now);
        }
        self.entries.insert(
            path,
            Entry {
                role,
                fp,
                first_seen: now,
                state: State::Check {
                    attempt: 0,
                    at: now,
                },
                reported: false,
            },
        );
    }

    /// A log appeared or changed: dumps waiting for a log in its directory look again.
    fn wake_dumps_beside(&mut self, log: &Path, now: Instant) {
        let dir = log.parent();
        for (path, entry) in self.entries.iter_mut() {
            if path.parent() == dir && entry.role == Role::Dump {
                if let State::Check { at, .. } = &mut entry.state {
                    *at = (*at).min(now);
                }
            }
        }
    }

    fn remove(&mut self, path: &Path, out: &mut Vec<WatchEvent>) {
        self.entries.remove(path);
        let was_announced = self.announced.forget(path);
        let was_errored = self.errored.remove(path);
        if was_announced || was_errored {
            out.push(WatchEvent::Removed(path.to_path_buf()));
        }
    }

    fn check(&mut self, path: &Path, now: Instant, out: &mut Vec<WatchEvent>) {
        let meta = match fs::metadata(path) {
            Ok(m) if m.is_file() => m,
            // Gone, or replaced by something that is not a file.
            Ok(_) => return self.remove(path, out),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return self.remove(path, out),
            Err(e) => {
                let message = format!("cannot read: {}", io_message(&e));
                return self.settle_with_error(path, message, out);
            }
        };
        self.observe(path.to_path_buf(), &meta, now);
        let wall = SystemTime::now();
        let Some(entry) = self.entries.get(path) else {
            return;
        };
        let (role, fp, attempt) = match entry.state {
            State::Check { attempt, .. } => (entry.role, entry.fp, attempt),
            State::Settled => return,
        };
        let last_change = entry.last_change(now, wall);
        if matches!(role, Role::Log | Role::Other) {
            return self.set_state(path, State::Settled);
        }

        let sniffed = match read_head(path) {
            Ok(Some(head)) => rules::sniff(&head),
            // Replaced by something that is not a file since the stat (a FIFO swapped in).
            Ok(None) => return self.remove(path, out),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return self.remove(path, out),
            Err(_) if role == Role::Maybe => return self.set_role(path, Role::Other),
            Err(e) => {
                let message = format!("cannot read: {}", io_message(&e));
                return self.settle_with_error(path, message, out);
            }
        };
        if role == Role::Maybe && matches!(sniffed, Sniff::NotEtDump(_)) {
            // Its first bytes are final unless it is rewritten (a new version). Unusual
            // names are never reported as garbage.
            return self.set_role(path, Role::Other);
        }
        if role == Role::Maybe && sniffed == Sniff::TooShort {
            // Cannot tell yet: decide once it is quiet; never an error.
            let quiet_for = now.saturating_duration_since(last_change);
            if quiet_for >= self.cfg.quiet {
                return self.set_role(path, Role::Other);
            }
            let at = later(now, self.cfg.quiet - quiet_for);
            return self.set_state(path, State::Check { attempt, at });
        }
        match rules::completeness(fp.len, &sniffed, last_change, now, self.cfg.quiet) {
            Completeness::Ready => {
                if role == Role::Maybe {
                    if let Some(e) = self.entries.get_mut(path) {
                        e.role = Role::Dump;
                    }
                }
                self.pair_and_announce(path, fp, last_change, now, wall, out);
            }
            Completeness::Settling(wait) => self.set_state(
                path,
                State::Check {
                    attempt,
                    at: later(now, wait),
                },
            ),
            Completeness::Incomplete => {
                let quiet_for = now.saturating_duration_since(last_change);
                if quiet_for >= self.cfg.stall_after {
                    let why = rules::stalled_message(fp.len, &sniffed, quiet_for);
                    return self.settle_with_error(path, why, out);
                }
                let at = later(now, rules::backoff(attempt));
                let attempt = attempt.saturating_add(1);
                self.set_state(path, State::Check { attempt, at })
            }
            Completeness::Garbage(why) => self.settle_with_error(path, why, out),
        }
    }

    /// The dump is complete: announce it with its log, or wait for the log (to appear, or
    /// to finish being written) up to the grace period after the dump was finished.
    fn pair_and_announce(
        &mut self,
        path: &Path,
        fp: Fingerprint,
        dump_done: Instant,
        now: Instant,
        wall: SystemTime,
        out: &mut Vec<WatchEvent>,
    ) {
        let dir = path.parent();
        let mut logs = Vec::new();
        let mut prev_dump: Option<SystemTime> = None;
        for (p, e) in &self.entries {
            if p.parent() != dir {
                continue;
            }
            match e.role {
                Role::Log => logs.push(LogFile {
                    path: p.clone(),
                    modified: e.fp.modified,
                    claimed: ["etdp", "etdump"]
                        .iter()
                        .any(|ext| self.entries.contains_key(&p.with_extension(ext))),
                }),
                // Garbage does not bound a run.
                Role::Dump if p != path && !e.reported && e.fp.modified < fp.modified => {
                    prev_dump = prev_dump.max(Some(e.fp.modified));
                }
                _ => {}
            }
        }
        let log = rules::pick_log(path, fp.modified, prev_dump, &logs, self.cfg.grace);
        let grace_end = later(dump_done, self.cfg.grace);
        let wait_until = match &log {
            // Let the log finish, but not past the grace: a log that is written to all the
            // time (one log for many runs) must not hold the dump back for ever.
            Some(log) => self
                .entries
                .get(log)
                .map(|e| later(e.last_change(now, wall), self.cfg.quiet).min(grace_end)),
            None => Some(grace_end),
        };
        if let Some(at) = wait_until.filter(|at| *at > now) {
            return self.set_state(path, State::Check { attempt: 0, at });
        }
        self.set_state(path, State::Settled);
        if self.announced.admit(path, fp.len, fp.modified) {
            self.errored.remove(path);
            out.push(WatchEvent::Ready(DumpPair {
                etdump: path.to_path_buf(),
                log,
                modified: fp.modified,
                size: fp.len,
            }));
        }
    }

    fn settle_with_error(&mut self, path: &Path, message: String, out: &mut Vec<WatchEvent>) {
        let Some(entry) = self.entries.get_mut(path) else {
            return;
        };
        entry.state = State::Settled;
        if !entry.reported {
            entry.reported = true;
            self.errored.insert(path.to_path_buf());
            out.push(WatchEvent::Error {
                path: path.to_path_buf(),
                message,
                modified: modified_time(path),
            });
        }
    }

    fn set_state(&mut self, path: &Path, state: State) {
        if let Some(e) = self.entries.get_mut(path) {
            e.state = state;
        }
    }

    fn set_role(&mut self, path: &Path, role: Role) {
        if let Some(e) = self.entries.get_mut(path) {
            e.role = role;
            e.state = State::Settled;
        }
    }
}

/// Regular files (symlinks followed) under `root`; subdirectories only when `recursive`
/// (hidden ones and symlinked ones skipped). Errors below the root are skipped.
/// Also returns the directories listed.
fn list_files(root: &Path, recursive: bool) -> io::Result<(Files, HashSet<PathBuf>)> {
    let mut files = BTreeMap::new();
    let mut listed = HashSet::new();
    let mut dirs = vec![(root.to_path_buf(), 0usize)];
    while let Some((dir, depth)) = dirs.pop() {
        let read = match fs::read_dir(&dir) {
            Ok(r) => r,
            Err(e) if depth == 0 => return Err(e),
            Err(_) => continue,
        };
        listed.insert(dir.clone());
        for item in read {
            let Ok(item) = item else { continue };
            let path = item.path();
            let Ok(kind) = item.file_type() else { continue };
            if kind.is_dir() {
                let hidden = item.file_name().to_string_lossy().starts_with('.');
                if recursive && !hidden && depth < MAX_DEPTH {
                    dirs.push((path, depth + 1));
                }
                continue;
            }
            if let Ok(meta) = fs::metadata(&path) {
                if meta.is_file() {
                    files.insert(path, meta);
                }
            }
        }
    }
    Ok((files, listed))
}

type Files = BTreeMap<PathBuf, Metadata>;

/// `t + d`, saturating far in the future instead of overflowing.
fn later(t: Instant, d: Duration) -> Instant {
    t.checked_add(d)
        .or_else(|| t.checked_add(Duration::from_secs(86_400 * 365)))
        .unwrap_or(t)
}

/// Up to the first `HEADER_LEN` bytes; None when the path is not a regular file (any
/// more). Never blocks: a FIFO swapped in after the stat is refused, not opened and
/// waited on (the worker would hang, and `q` with it, which joins the worker).
fn read_head(path: &Path) -> io::Result<Option<Vec<u8>>> {
    use crate::regular_file::{self, OpenError};
    let file = match regular_file::open(path) {
        Ok((file, _)) => file,
        Err(OpenError::NotRegular(_)) => return Ok(None),
        Err(OpenError::Io(e)) => return Err(e),
    };
    let mut head = Vec::with_capacity(rules::HEADER_LEN);
    file.take(rules::HEADER_LEN as u64).read_to_end(&mut head)?;
    Ok(Some(head))
}

pub(super) fn io_message(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    }
}

/// A file's modification time for an error row (a stat, here on the watcher's thread:
/// the explorer's update reads no file system). None when it cannot be read.
pub(crate) fn modified_time(path: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn the_head_of_a_fifo_is_refused_without_waiting_for_a_writer() {
        // What the watcher finds when a FIFO is swapped in between its stat and its open
        // (round 3, `watchfifo`): `File::open` would wait for a writer for ever, and `q`
        // (which joins the watcher) with it.
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("x.etdp");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let (tx, rx) = mpsc::channel();
        let path = fifo.clone();
        std::thread::spawn(move || {
            let _ = tx.send(read_head(&path).map_err(|e| e.to_string()));
        });
        let got = rx.recv_timeout(Duration::from_secs(10));
        if got.is_err() {
            // Unblock the reader (a writer arrives) before failing.
            let _ = std::fs::OpenOptions::new().write(true).open(&fifo);
        }
        assert_eq!(got.expect("read_head blocked on a FIFO"), Ok(None));
        // A regular file: its first bytes.
        let file = dir.path().join("y.etdp");
        std::fs::write(&file, b"0123456789abcdef").unwrap();
        assert_eq!(rules::HEADER_LEN, 12);
        assert_eq!(read_head(&file).unwrap().unwrap(), b"0123456789ab");
    }
}
