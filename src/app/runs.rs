//! Watch mode: the runs list (every profile the watcher found, newest first) and how
//! watcher events and background loads change it. Plain data; no I/O (times come in with
//! the actions, loads go out as effects).
//!
//! One load at a time: the entry the user asked for first, else the newest queued one.
//! The profile on screen lives in `AppState::data`; the other loaded profiles are kept in
//! their entries (the newest `CACHE_LIMIT`), so switching between runs needs no reload.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use std::sync::Arc;

use super::data::ExplorerData;
use super::state::{AppState, Effect, Loading};
use crate::compare::{compare, single_change, CompareOptions, Verdict};
use crate::profile::{LoadPhase, ProfileRequest};
use crate::rows::RowTree;
use crate::stats::Stats;
use crate::watch::WatchEvent;

/// Loaded profiles kept in memory besides the one on screen.
pub const CACHE_LIMIT: usize = 12;
/// An "incomplete" load is retried after this, doubling up to `RETRY_MAX`.
pub const RETRY_FIRST: Duration = Duration::from_millis(200);
pub const RETRY_MAX: Duration = Duration::from_secs(5);

#[derive(Debug, Clone, PartialEq)]
pub enum RunStatus {
    /// Waiting for its turn to load.
    Queued,
    Loading,
    /// The loader said "still being written": retried quietly later.
    Waiting {
        attempts: u32,
    },
    Loaded,
    /// One line naming the file.
    Failed {
        message: String,
        /// Reported by the watcher (not a dump at all); a warm-up change does not retry it.
        from_watcher: bool,
    },
}

/// What the runs list shows of a loaded profile.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RunFacts {
    pub runs_total: Option<usize>,
    /// Median of the top-level latency over kept runs, in ms.
    pub median_ms: Option<f64>,
    /// Which model this is, as far as the profile tells: a hash of its operator names
    /// (without instance numbers) and delegates. Runs of other models are not compared.
    pub model: u64,
    pub warnings: usize,
    pub errors: usize,
}

impl RunFacts {
    pub fn of(data: &ExplorerData) -> RunFacts {
        use std::hash::{Hash, Hasher};
        let mut names: Vec<&str> = data.ops.iter().map(|o| o.name.as_str()).collect();
        names.sort_unstable();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        names.hash(&mut h);
        data.scopes.hash(&mut h);
        RunFacts {
            runs_total: data.runs.as_ref().map(|r| r.total),
            median_ms: data
                .total
                .as_ref()
                .filter(|s| s.count > 0 && s.median.is_finite())
                .map(|s| s.median),
            model: h.finish(),
            warnings: data.warning_count(),
            errors: data.error_count(),
        }
    }
}

/// How a run compares with its baseline run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Change {
    /// (now - before) / before of the `Method::execute` median, with the verdict of the
    /// compare command's test on the two runs' samples (`compare::single_change`:
    /// Mann–Whitney U, `--alpha` 0.05, `--min-change` 5%). `Same` and `TooFewSamples`
    /// are not significant: the list shows `~` before the percentage.
    Relative { delta: f64, verdict: Verdict },
    /// Older runs exist but none of this model (and the pinned baseline is another
    /// model): no percentage.
    OtherModel,
    /// This run is the pinned baseline.
    Baseline,
}

impl Change {
    /// The runs list's label: `+3.2%` (significant), `~+1.2%` (not), `other model`,
    /// `baseline`.
    pub fn label(&self) -> String {
        match self {
            Change::Relative { delta, verdict } => {
                if matches!(verdict, Verdict::Slower | Verdict::Faster) {
                    delta_label(*delta)
                } else {
                    format!("~{}", delta_label(*delta))
                }
            }
            Change::OtherModel => "other model".into(),
            Change::Baseline => "baseline".into(),
        }
    }
}

/// The baseline of entry `index`: the pinned run when it is another loaded run of the
/// same model, else the next older loaded run of the same model.
pub fn baseline_of(entries: &[RunEntry], pinned: Option<u64>, index: usize) -> Option<usize> {
    let now = entries.get(index)?.facts?;
    let same_model = |e: &RunEntry| {
        e.status == RunStatus::Loaded
            && e.facts
                .is_some_and(|f| f.model == now.model && f.median_ms.is_some())
    };
    if let Some(p) = pinned.and_then(|id| entries.iter().position(|e| e.id == id)) {
        if p != index && same_model(&entries[p]) {
            return Some(p);
        }
    }
    (index + 1..entries.len()).find(|&i| same_model(&entries[i]))
}

/// Recompute every entry's cached change (after loads, arrivals, removals, a pin).
pub fn refresh_changes(w: &mut WatchState) {
    let changes: Vec<Option<Change>> = (0..w.entries.len())
        .map(|i| change(&w.entries, w.baseline, i))
        .collect();
    for (e, c) in w.entries.iter_mut().zip(changes) {
        e.change = c;
    }
}

/// The change of entry `index` against its baseline (`baseline_of`).
pub fn change(entries: &[RunEntry], pinned: Option<u64>, index: usize) -> Option<Change> {
    let e = entries.get(index)?;
    let now = e.facts?.median_ms?;
    if pinned == Some(e.id) {
        return Some(Change::Baseline);
    }
    let Some(b) = baseline_of(entries, pinned, index) else {
        let older = entries[index + 1..]
            .iter()
            .any(|o| o.facts.is_some_and(|f| f.median_ms.is_some()));
        return older.then_some(Change::OtherModel);
    };
    let base = &entries[b];
    let before = base.facts?.median_ms?;
    if before <= 0.0 {
        return None;
    }
    let verdict = match (&base.execute, &e.execute) {
        (Some(a), Some(n)) => single_change(a, n, &CompareOptions::default()).2,
        _ => Verdict::TooFewSamples,
    };
    Some(Change::Relative {
        delta: (now - before) / before,
        verdict,
    })
}

#[derive(Debug, Clone)]
pub struct RunEntry {
    /// Unique per entry (the same file can appear several times, once per version).
    pub id: u64,
    pub etdump: PathBuf,
    pub log: Option<PathBuf>,
    /// The dump's mtime (watcher errors: when the error was reported).
    pub time: SystemTime,
    pub status: RunStatus,
    pub facts: Option<RunFacts>,
    /// The file is gone (its loaded profile stays viewable).
    pub removed: bool,
    /// The loaded profile when it is not the one on screen (None once evicted).
    pub data: Option<Box<ExplorerData>>,
    /// `Method::execute` over the kept runs (the change column's test), once loaded.
    pub execute: Option<Stats>,
    /// The profile's row tree, once loaded (kept after eviction: compare with the
    /// baseline needs no reload).
    pub rows: Option<Arc<RowTree>>,
    /// `change(entries, baseline, index)`, kept up to date by `refresh_changes` after
    /// every change of the list (the test is not redone per frame).
    pub change: Option<Change>,
}

impl RunEntry {
    pub fn file_name(&self) -> String {
        file_name(&self.etdump)
    }

    pub fn is_error(&self) -> bool {
        matches!(self.status, RunStatus::Failed { .. })
    }
}

pub fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

#[derive(Debug, Clone)]
pub struct WatchState {
    /// The watched directory, for the status line.
    pub dir: String,
    /// Warm-up runs dropped from every profile.
    pub warmup: usize,
    /// `--warmup auto`: each profile drops its own cold leading runs instead.
    pub warmup_auto: bool,
    /// `--warmup log` (the default): each profile drops the count its runner log states
    /// (else its cold leading runs).
    pub warmup_stated: bool,
    /// Newest first (by dump time, then arrival).
    pub entries: Vec<RunEntry>,
    /// Selected row of the runs list.
    pub selected: usize,
    pub offset: usize,
    /// The entry whose profile is on screen.
    pub shown: Option<u64>,
    /// Show each new profile as it loads (on while the newest row is selected).
    pub follow: bool,
    /// The entry the user selected that is not loaded yet: loaded first, shown when done.
    pub wanted: Option<u64>,
    /// (generation, entry id) of the load in flight.
    pub inflight: Option<(u64, u64)>,
    /// When the list last changed (a watcher event).
    pub last_update: Option<SystemTime>,
    /// The run the user pinned as everyone's baseline (`b`); None: each run against the
    /// previous run of its model.
    pub baseline: Option<u64>,
    next_id: u64,
}

impl WatchState {
    pub fn new(dir: impl Into<String>, warmup: usize) -> WatchState {
        WatchState {
            dir: dir.into(),
            warmup,
            warmup_auto: false,
            warmup_stated: false,
            entries: Vec::new(),
            selected: 0,
            offset: 0,
            shown: None,
            follow: true,
            wanted: None,
            inflight: None,
            last_update: None,
            baseline: None,
            next_id: 1,
        }
    }

    pub fn index_of(&self, id: u64) -> Option<usize> {
        self.entries.iter().position(|e| e.id == id)
    }

    pub fn profiles(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| e.status == RunStatus::Loaded)
            .count()
    }

    pub fn errors(&self) -> usize {
        self.entries.iter().filter(|e| e.is_error()).count()
    }

    /// Entries still to load (queued, loading, or waiting for the write to finish).
    pub fn pending(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| {
                matches!(
                    e.status,
                    RunStatus::Queued | RunStatus::Loading | RunStatus::Waiting { .. }
                )
            })
            .count()
    }

    /// Insert keeping newest first; returns the index.
    fn insert(&mut self, mut entry: RunEntry) -> usize {
        entry.id = self.next_id;
        self.next_id += 1;
        let selected_id = self.entries.get(self.selected).map(|e| e.id);
        // Newer time first; equal times: the later arrival first.
        let pos = self
            .entries
            .iter()
            .position(|e| e.time <= entry.time)
            .unwrap_or(self.entries.len());
        self.entries.insert(pos, entry);
        self.reselect(selected_id);
        pos
    }

    fn remove_at(&mut self, index: usize) {
        let selected_id = self.entries.get(self.selected).map(|e| e.id);
        let gone = self.entries.remove(index);
        if self.wanted == Some(gone.id) {
            self.wanted = None;
        }
        if self.inflight.is_some_and(|(_, id)| id == gone.id) {
            self.inflight = None;
        }
        if self.baseline == Some(gone.id) {
            self.baseline = None;
        }
        self.reselect(selected_id);
    }

    /// Keep the selected entry selected after the list changed (while following, the
    /// profile on screen; the newest row before there is one).
    fn reselect(&mut self, selected_id: Option<u64>) {
        let keep = if self.follow { self.shown } else { selected_id };
        self.selected = match keep {
            Some(id) => self.index_of(id).unwrap_or(self.selected),
            None => 0,
        };
        self.selected = self.selected.min(self.entries.len().saturating_sub(1));
    }
}

/// Change of `entries[index]`'s median against the next older profile that has one, as a
/// fraction (+0.032 = 3.2% slower).
pub fn delta(entries: &[RunEntry], index: usize) -> Option<f64> {
    let now = entries.get(index)?.facts?.median_ms?;
    let before = entries[index + 1..]
        .iter()
        .find_map(|e| e.facts.and_then(|f| f.median_ms))?;
    (before > 0.0).then(|| (now - before) / before)
}

fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `+3.2%`, `-1.1%`.
pub fn delta_label(d: f64) -> String {
    format!("{:+.1}%", d * 100.0)
}

/// Wall-clock time of day, `HH:MM:SS` (UTC: the explorer has no time-zone database).
pub fn clock(t: SystemTime) -> String {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let day = secs % 86_400;
    format!("{:02}:{:02}:{:02}", day / 3600, day % 3600 / 60, day % 60)
}

impl AppState {
    /// Watch mode: an empty runs list for `dir`; profiles arrive as `Action::Watch`.
    pub fn start_watch(&mut self, dir: impl Into<String>, warmup: usize) {
        self.watch = Some(WatchState::new(dir, warmup));
        self.focus = super::Pane::Runs;
    }
}

/// A watcher event arrived at `at`.
pub(super) fn on_watch_event(
    state: &mut AppState,
    event: WatchEvent,
    at: SystemTime,
) -> Vec<Effect> {
    let Some(w) = state.watch.as_mut() else {
        return Vec::new();
    };
    w.last_update = Some(at);
    match event {
        WatchEvent::Ready(pair) => {
            // Unloaded entries of the same file are superseded: its bytes are the new ones.
            drop_unloaded(w, &pair.etdump);
            w.insert(RunEntry {
                id: 0,
                etdump: pair.etdump,
                log: pair.log,
                time: pair.modified,
                status: RunStatus::Queued,
                facts: None,
                removed: false,
                data: None,
                execute: None,
                rows: None,
                change: None,
            });
        }
        WatchEvent::Error { path, message } => {
            drop_unloaded(w, &path);
            let message = one_line(&format!("{}: {message}", file_name(&path)));
            // The file's own time, as for dumps (the scan time only when it is gone).
            // The one read of the file system in this module: a stat, never the bytes.
            let time = std::fs::metadata(&path)
                .and_then(|m| m.modified())
                .unwrap_or(at);
            w.insert(RunEntry {
                id: 0,
                etdump: path,
                log: None,
                time,
                status: RunStatus::Failed {
                    message,
                    from_watcher: true,
                },
                facts: None,
                removed: false,
                data: None,
                execute: None,
                rows: None,
                change: None,
            });
        }
        WatchEvent::Removed(path) => {
            drop_unloaded(w, &path);
            for e in w.entries.iter_mut().filter(|e| e.etdump == path) {
                e.removed = true;
            }
        }
    }
    fix_runs_offset(state);
    let effects = pump(state);
    drop_stale_gauge(state);
    if let Some(w) = state.watch.as_mut() {
        refresh_changes(w);
    }
    effects
}

/// The gauge shows the load in flight only: once that load is gone (its entry removed
/// or turned into an error), its gauge goes too.
fn drop_stale_gauge(state: &mut AppState) {
    let inflight = state
        .watch
        .as_ref()
        .and_then(|w| w.inflight)
        .map(|(g, _)| g);
    if state
        .loading
        .as_ref()
        .is_some_and(|l| Some(l.generation) != inflight)
    {
        state.loading = None;
    }
}

/// Forget entries of `path` that never loaded (queued, loading, waiting).
fn drop_unloaded(w: &mut WatchState, path: &Path) {
    while let Some(i) = w.entries.iter().position(|e| {
        e.etdump == path
            && matches!(
                e.status,
                RunStatus::Queued | RunStatus::Loading | RunStatus::Waiting { .. }
            )
    }) {
        w.remove_at(i);
    }
}

/// Start the next load when none is running.
pub(super) fn pump(state: &mut AppState) -> Vec<Effect> {
    let Some(w) = state.watch.as_mut() else {
        return Vec::new();
    };
    if w.inflight.is_some() {
        return Vec::new();
    }
    let wanted = w
        .wanted
        .and_then(|id| w.index_of(id))
        .filter(|&i| w.entries[i].status == RunStatus::Queued);
    let Some(index) =
        wanted.or_else(|| w.entries.iter().position(|e| e.status == RunStatus::Queued))
    else {
        return Vec::new();
    };
    let entry = &mut w.entries[index];
    entry.status = RunStatus::Loading;
    let mut request = ProfileRequest::new(entry.etdump.clone(), entry.log.clone(), w.warmup);
    request.warmup_auto = w.warmup_auto;
    request.warmup_stated = w.warmup_stated;
    let id = entry.id;
    state.generation += 1;
    let generation = state.generation;
    if let Some(w) = state.watch.as_mut() {
        w.inflight = Some((generation, id));
    }
    // Before the first profile, the full-screen gauge; later the runs list says "loading".
    if state.data.is_none() {
        state.loading = Some(Loading {
            generation,
            file: request.etdump.display().to_string(),
            warmup: request.warmup,
            phase: LoadPhase::Reading,
            bytes_done: 0,
            bytes_total: 0,
            beats: 0,
        });
    }
    vec![Effect::Load {
        request,
        generation,
    }]
}

/// How a watch-mode load ended.
pub(super) enum Outcome {
    Loaded(Box<ExplorerData>),
    Failed(String),
    Incomplete,
}

/// A load of the runs list finished (stale generations are ignored).
pub(super) fn on_loaded(state: &mut AppState, generation: u64, outcome: Outcome) -> Vec<Effect> {
    // Its gauge goes whether or not the result is still wanted.
    if state
        .loading
        .as_ref()
        .is_some_and(|l| l.generation == generation)
    {
        state.loading = None;
    }
    let Some(w) = state.watch.as_mut() else {
        return Vec::new();
    };
    let Some((_, id)) = w.inflight.filter(|(g, _)| *g == generation) else {
        // Stale: superseded, or its entry is gone; the queue moves on.
        return pump(state);
    };
    w.inflight = None;
    let mut effects = Vec::new();
    let Some(index) = w.index_of(id) else {
        return pump(state);
    };
    match outcome {
        Outcome::Loaded(data) => {
            w.entries[index].facts = Some(RunFacts::of(&data));
            w.entries[index].execute = data.total.clone();
            w.entries[index].rows = data.rows.clone();
            w.entries[index].status = RunStatus::Loaded;
            let shown_index = w.shown.and_then(|s| w.index_of(s));
            let show = w.wanted == Some(id)
                || w.shown == Some(id)
                || shown_index.is_none()
                || (w.follow && shown_index.is_none_or(|s| index < s));
            if show {
                if w.wanted == Some(id) {
                    w.wanted = None;
                }
                if w.follow {
                    w.selected = index;
                }
                show_data(state, id, *data);
            } else {
                w.entries[index].data = Some(data);
            }
            evict(state);
        }
        Outcome::Failed(message) => {
            w.entries[index].status = RunStatus::Failed {
                message: one_line(&message),
                from_watcher: false,
            };
            if w.wanted == Some(id) {
                w.wanted = None;
            }
        }
        Outcome::Incomplete => {
            let entry = &mut w.entries[index];
            let attempts = match entry.status {
                RunStatus::Waiting { attempts } => attempts + 1,
                _ => 1,
            };
            entry.status = RunStatus::Waiting { attempts };
            effects.push(Effect::RetryAfter(retry_delay(attempts)));
        }
    }
    fix_runs_offset(state);
    effects.extend(pump(state));
    if let Some(w) = state.watch.as_mut() {
        refresh_changes(w);
    }
    effects
}

/// Backoff of the `attempts`-th retry: 200 ms doubling, at most 5 s.
pub fn retry_delay(attempts: u32) -> Duration {
    RETRY_FIRST
        .saturating_mul(1 << attempts.saturating_sub(1).min(10))
        .min(RETRY_MAX)
}

/// A retry timer fired: waiting entries go back into the queue.
pub(super) fn on_retry(state: &mut AppState) -> Vec<Effect> {
    if let Some(w) = state.watch.as_mut() {
        for e in &mut w.entries {
            if matches!(e.status, RunStatus::Waiting { .. }) {
                e.status = RunStatus::Queued;
            }
        }
    }
    pump(state)
}

/// Put `data` (entry `id`'s profile) on screen; the profile shown before goes back into
/// its entry.
fn show_data(state: &mut AppState, id: u64, data: ExplorerData) {
    let Some(w) = state.watch.as_mut() else {
        return;
    };
    let previous = w.shown.filter(|&s| s != id);
    w.shown = Some(id);
    let old = state.install(data);
    if let (Some(w), Some(previous), Some(old)) = (state.watch.as_mut(), previous, old) {
        if let Some(i) = w.index_of(previous) {
            w.entries[i].data = Some(Box::new(old));
        }
    }
}

/// Keep at most `CACHE_LIMIT` profiles besides the one shown: drop the oldest.
fn evict(state: &mut AppState) {
    let Some(w) = state.watch.as_mut() else {
        return;
    };
    let mut kept = 0;
    for e in w.entries.iter_mut() {
        if e.data.is_some() {
            kept += 1;
            if kept > CACHE_LIMIT {
                e.data = None;
            }
        }
    }
}

/// Select row `index` of the runs list and show its profile (loading it first if need be).
pub(super) fn select_run(state: &mut AppState, index: usize) -> Vec<Effect> {
    let Some(w) = state.watch.as_mut() else {
        return Vec::new();
    };
    if w.entries.is_empty() {
        return Vec::new();
    }
    let index = index.min(w.entries.len() - 1);
    w.selected = index;
    // Following: nothing newer that could be shown (newer rows are errors or pending).
    w.follow = w.entries[..index]
        .iter()
        .all(|e| e.status != RunStatus::Loaded);
    let id = w.entries[index].id;
    w.wanted = None;
    fix_runs_offset(state);
    let Some(w) = state.watch.as_mut() else {
        return Vec::new();
    };
    let entry = &mut w.entries[index];
    match entry.status {
        RunStatus::Loaded if w.shown == Some(id) => Vec::new(),
        RunStatus::Loaded => match entry.data.take() {
            Some(data) => {
                show_data(state, id, *data);
                Vec::new()
            }
            // Evicted: load it again if the file still holds this version.
            None => {
                let path = entry.etdump.clone();
                let replaced = entry.removed || w.entries[..index].iter().any(|e| e.etdump == path);
                if replaced {
                    return Vec::new();
                }
                w.entries[index].status = RunStatus::Queued;
                w.wanted = Some(id);
                pump(state)
            }
        },
        RunStatus::Queued | RunStatus::Loading | RunStatus::Waiting { .. } => {
            w.wanted = Some(id);
            pump(state)
        }
        // The last good profile stays; the row shows the error.
        RunStatus::Failed { .. } => Vec::new(),
    }
}

/// Warm-up changed: every profile is loaded again (the shown one first).
pub(super) fn change_watch_warmup(state: &mut AppState, warmup: usize) -> Vec<Effect> {
    let Some(w) = state.watch.as_mut() else {
        return Vec::new();
    };
    w.warmup = warmup;
    w.warmup_auto = false;
    w.warmup_stated = false;
    w.inflight = None; // its result (old warm-up) is ignored
                       // Removed files cannot be read again: their profiles keep the warm-up they were
                       // built with (the footer says which). Watcher errors are not dumps at all.
    for e in &mut w.entries {
        let reload = match &e.status {
            RunStatus::Failed { from_watcher, .. } => !from_watcher,
            _ => true,
        };
        if reload && !e.removed {
            e.status = RunStatus::Queued;
            e.data = None;
        }
    }
    w.wanted = w.shown;
    refresh_changes(w);
    state.loading = None;
    pump(state)
}

/// Keep the selected run visible.
pub(super) fn fix_runs_offset(state: &mut AppState) {
    let page = super::layout::inner_rows(state.areas().runs).max(1);
    if let Some(w) = state.watch.as_mut() {
        w.offset = super::state::fix_offset(w.selected, w.offset, page);
    }
}

/// `b`: pin the selected run as the baseline of every run of its model; on the pinned run,
/// unpin (each run against the previous run of its model again).
pub(super) fn pin_baseline(state: &mut AppState) {
    let Some(w) = state.watch.as_mut() else {
        state.notice = Some("a baseline is for watch mode (--watch DIR)".into());
        return;
    };
    let Some(e) = w.entries.get(w.selected) else {
        return;
    };
    if e.status != RunStatus::Loaded {
        state.notice = Some("only a loaded run can be the baseline".into());
        return;
    }
    let notice = if w.baseline == Some(e.id) {
        w.baseline = None;
        "baseline: the previous run of the same model".to_string()
    } else {
        w.baseline = Some(e.id);
        format!("baseline: {}", one_line(&e.file_name()))
    };
    refresh_changes(w);
    state.notice = Some(notice);
}

/// `d`: the compare view of the selected run (B) against its baseline (A), over the
/// explorer until Esc.
pub(super) fn open_compare(state: &mut AppState) {
    let Some(w) = state.watch.as_ref() else {
        state.notice = Some("compare with a baseline is for watch mode (--watch DIR)".into());
        return;
    };
    let index = w.selected;
    let Some(sel) = w.entries.get(index) else {
        return;
    };
    let Some(b) = baseline_of(&w.entries, w.baseline, index) else {
        state.notice = Some("no baseline: no other loaded run of this model".into());
        return;
    };
    let (Some(now), Some(base)) = (&sel.rows, &w.entries[b].rows) else {
        state.notice = Some("no baseline: no other loaded run of this model".into());
        return;
    };
    let opts = CompareOptions::default();
    let forward = compare(base, now, &opts);
    let backward = compare(now, base, &opts);
    state.compare = Some(Box::new(super::compare::CompareView::new(
        forward, backward,
    )));
}
