//! Watch mode over the explorer's state: how watcher events, background loads, retries
//! and the runs keys change the runs list (`runs::WatchState`) and what is on screen.
//! One load at a time: the entry the user asked for first, else the newest queued one.
//! The profile on screen lives in `Session::data`; the other loaded profiles are kept in
//! their entries (the newest `CACHE_LIMIT`), so switching between runs needs no reload.

use std::path::Path;
use std::time::SystemTime;

use super::data::ExplorerData;
use super::effect::Effect;
use super::runs::{
    baseline_of, file_name, one_line, refresh_changes, retry_delay, RunEntry, RunFacts, RunStatus,
    WatchState, CACHE_LIMIT,
};
use super::session::Loading;
use super::state::AppState;
use crate::compare::{compare, CompareOptions};
use crate::folder_entry::WatchEvent;
use crate::profile::{LoadPhase, ProfileRequest};
use crate::views::compare::state::CompareView;

impl AppState {
    /// Watch mode: an empty runs list for `dir`; profiles arrive as `Action::Watch`.
    pub fn start_watch(&mut self, dir: impl Into<String>, warmup: usize) {
        self.session.watch = Some(WatchState::new(dir, warmup));
        if let Some(ex) = self.views.explorer_mut() {
            ex.focus_runs();
        }
    }
}

/// A watcher event arrived at `at`.
pub(super) fn on_watch_event(
    state: &mut AppState,
    event: WatchEvent,
    at: SystemTime,
) -> Vec<Effect> {
    let Some(w) = state.session.watch.as_mut() else {
        return Vec::new();
    };
    w.last_update = Some(at);
    match event {
        WatchEvent::Ready(pair) => {
            // Unloaded entries of the same file are superseded: its bytes are the new ones.
            // So is its error row (`incomplete ETDump …` while it was being written, or a
            // version that failed to load): the complete dump replaces it and its error.
            drop_unloaded(w, &pair.etdump);
            drop_failed(w, &pair.etdump);
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
                row_changes: None,
                test: None,
            });
        }
        WatchEvent::Error {
            path,
            message,
            modified,
        } => {
            drop_unloaded(w, &path);
            let message = one_line(&format!("{}: {message}", file_name(&path)));
            // The file's own time (the watcher's stat), as for dumps; the scan time when
            // the watcher could not read it.
            let time = modified.unwrap_or(at);
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
                row_changes: None,
                test: None,
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
    if let Some(w) = state.session.watch.as_mut() {
        refresh_changes(w);
    }
    effects
}

/// The gauge shows the load in flight only: once that load is gone (its entry removed
/// or turned into an error), its gauge goes too.
fn drop_stale_gauge(state: &mut AppState) {
    let inflight = state
        .session
        .watch
        .as_ref()
        .and_then(|w| w.inflight)
        .map(|(g, _)| g);
    if state
        .session
        .loading
        .as_ref()
        .is_some_and(|l| Some(l.generation) != inflight)
    {
        state.session.loading = None;
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

/// Forget the error rows of `path` (a complete version of it arrived).
fn drop_failed(w: &mut WatchState, path: &Path) {
    while let Some(i) = w
        .entries
        .iter()
        .position(|e| e.etdump == path && e.is_error())
    {
        w.remove_at(i);
    }
}

/// Start the next load when none is running.
pub(super) fn pump(state: &mut AppState) -> Vec<Effect> {
    let Some(w) = state.session.watch.as_mut() else {
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
    request.model = w.model.clone();
    request.read = w.read;
    let id = entry.id;
    state.session.generation += 1;
    let generation = state.session.generation;
    if let Some(w) = state.session.watch.as_mut() {
        w.inflight = Some((generation, id));
    }
    // Before the first profile, the full-screen gauge; later the runs list says "loading".
    if state.session.data.is_none() {
        state.session.loading = Some(Loading {
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
        .session
        .loading
        .as_ref()
        .is_some_and(|l| l.generation == generation)
    {
        state.session.loading = None;
    }
    let Some(w) = state.session.watch.as_mut() else {
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
    if let Some(w) = state.session.watch.as_mut() {
        refresh_changes(w);
    }
    effects
}

/// A retry timer fired: waiting entries go back into the queue.
pub(super) fn on_retry(state: &mut AppState) -> Vec<Effect> {
    if let Some(w) = state.session.watch.as_mut() {
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
    let Some(w) = state.session.watch.as_mut() else {
        return;
    };
    let previous = w.shown.filter(|&s| s != id);
    w.shown = Some(id);
    let old = state.install(data);
    if let (Some(w), Some(previous), Some(old)) = (state.session.watch.as_mut(), previous, old) {
        if let Some(i) = w.index_of(previous) {
            w.entries[i].data = Some(Box::new(old));
        }
    }
}

/// Keep at most `CACHE_LIMIT` profiles besides the one shown: drop the oldest.
fn evict(state: &mut AppState) {
    let Some(w) = state.session.watch.as_mut() else {
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
    let Some(w) = state.session.watch.as_mut() else {
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
    let Some(w) = state.session.watch.as_mut() else {
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
    let Some(w) = state.session.watch.as_mut() else {
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
    state.session.loading = None;
    pump(state)
}

/// Keep the selected run visible.
pub(super) fn fix_runs_offset(state: &mut AppState) {
    let page = super::layout::inner_rows(state.areas().runs).max(1);
    if let Some(w) = state.session.watch.as_mut() {
        w.offset = super::layout::fix_offset(w.selected, w.offset, page);
    }
}

/// `b`: pin the selected run as the baseline of every run of its model; on the pinned run,
/// unpin (each run against the previous run of its model again).
pub(super) fn pin_baseline(state: &mut AppState) {
    let Some(w) = state.session.watch.as_mut() else {
        state.session.notice = Some("a baseline is for watch mode (--watch DIR)".into());
        return;
    };
    let Some(e) = w.entries.get(w.selected) else {
        return;
    };
    if e.status != RunStatus::Loaded {
        state.session.notice = Some("only a loaded run can be the baseline".into());
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
    state.session.notice = Some(notice);
}

/// `d`: the compare view of the selected run (B) against its baseline (A), pushed over the
/// explorer (Esc pops it).
pub(super) fn open_compare(state: &mut AppState) {
    let Some(w) = state.session.watch.as_ref() else {
        state.session.notice =
            Some("compare with a baseline is for watch mode (--watch DIR)".into());
        return;
    };
    let index = w.selected;
    let Some(sel) = w.entries.get(index) else {
        return;
    };
    let Some(b) = baseline_of(&w.entries, w.baseline, index) else {
        state.session.notice = Some("no baseline: no other loaded run of this model".into());
        return;
    };
    let (Some(now), Some(base)) = (&sel.rows, &w.entries[b].rows) else {
        state.session.notice = Some("no baseline: no other loaded run of this model".into());
        return;
    };
    let opts = CompareOptions::default();
    let forward = compare(base, now, &opts);
    let backward = compare(now, base, &opts);
    state
        .views
        .push(Box::new(CompareView::new(forward, backward)));
}
