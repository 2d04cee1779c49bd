//! Watch mode's runs list: every profile the watcher found, newest first, with what the
//! list shows of each (facts, status, change against its baseline). Plain data and pure
//! functions over the entries; how events change the list is `app::watch`.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use std::sync::Arc;

use super::data::ExplorerData;
use crate::compare::{compare, single_change, CompareOptions, Verdict};
use crate::rows::RowTree;
use crate::stats::{Samples, Stats};

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
    /// Runs kept after the warm-up (changes with `+`/`-`).
    pub runs_kept: Option<usize>,
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
            runs_kept: data.runs.as_ref().map(|r| r.kept),
            median_ms: data
                .total
                .as_ref()
                .filter(|s| s.count > 0 && s.median().is_finite())
                .map(|s| s.median()),
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

/// Recompute every entry's cached change (after loads, arrivals, removals, a pin). The
/// test of an entry against its baseline is redone only when either side's samples
/// changed (a watch event recomputes the list, not every entry's test).
pub fn refresh_changes(w: &mut WatchState) {
    let (changes, tests): (Vec<Option<Change>>, Vec<Option<TestOf>>) = (0..w.entries.len())
        .map(|i| {
            let mut kept = None;
            let c = change_by(&w.entries, w.baseline, i, &mut |base, now| {
                let verdict = match &w.entries[i].test {
                    Some(t) if t.base.shares(&base.samples) && t.now.shares(&now.samples) => {
                        t.verdict
                    }
                    _ => single_change(base, now, &CompareOptions::default()).2,
                };
                kept = Some(TestOf {
                    base: base.samples.clone(),
                    now: now.samples.clone(),
                    verdict,
                });
                verdict
            });
            (c, kept)
        })
        .unzip();
    for ((e, c), t) in w.entries.iter_mut().zip(changes).zip(tests) {
        e.change = c;
        e.test = t;
    }
    for i in 0..w.entries.len() {
        let base = match w.entries[i].change {
            Some(Change::Relative { .. }) => {
                baseline_of(&w.entries, w.baseline, i).and_then(|b| w.entries[b].rows.clone())
            }
            _ => None,
        };
        let e = &mut w.entries[i];
        e.row_changes = match (base, e.rows.clone()) {
            (Some(base), Some(now)) => match e.row_changes.take() {
                Some(old) if Arc::ptr_eq(&old.base, &base) && Arc::ptr_eq(&old.now, &now) => {
                    Some(old)
                }
                _ => Some(RowChangesOf {
                    changes: RowChanges::of(&base, &now),
                    base,
                    now,
                }),
            },
            _ => None,
        };
    }
}

/// The change of entry `index` against its baseline (`baseline_of`).
pub fn change(entries: &[RunEntry], pinned: Option<u64>, index: usize) -> Option<Change> {
    change_by(entries, pinned, index, &mut |base, now| {
        single_change(base, now, &CompareOptions::default()).2
    })
}

/// [`change`], the test of `Method::execute` (baseline, entry) made by `test`.
fn change_by(
    entries: &[RunEntry],
    pinned: Option<u64>,
    index: usize,
    test: &mut dyn FnMut(&Stats, &Stats) -> Verdict,
) -> Option<Change> {
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
        (Some(a), Some(n)) => test(a, n),
        _ => Verdict::TooFewSamples,
    };
    Some(Change::Relative {
        delta: (now - before) / before,
        verdict,
    })
}

/// The verdict of the change column's test, with the two sides' samples it was made from.
#[derive(Debug, Clone)]
pub struct TestOf {
    base: Samples,
    now: Samples,
    verdict: Verdict,
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
    /// Every row against the same baseline (`row_changes`), with the two row trees it was
    /// computed from (recomputed only when either changes).
    pub row_changes: Option<RowChangesOf>,
    /// The last test behind `change` (redone only when a side's samples change).
    pub test: Option<TestOf>,
}

/// How many rows of a run are significantly slower and faster than in its baseline, and
/// the largest change: the compare command's test (`compare::compare`, Holm-corrected,
/// `--alpha` 0.05, `--min-change` 5%) over every row, so a regression shows where it is
/// even when `Method::execute` barely moves.
#[derive(Debug, Clone, PartialEq)]
pub struct RowChanges {
    pub slower: usize,
    pub faster: usize,
    /// The largest significant slowdown (name, change in percent); with none, the largest
    /// significant speed-up.
    pub worst: Option<(String, f64)>,
}

impl RowChanges {
    /// Compare `now` against `base` row by row.
    pub fn of(base: &RowTree, now: &RowTree) -> RowChanges {
        let c = compare(base, now, &CompareOptions::default());
        let pick = |v: Verdict| c.rows.iter().filter(move |r| r.verdict == v);
        let slower = pick(Verdict::Slower).count();
        let faster = pick(Verdict::Faster).count();
        let delta = |r: &&crate::compare::CompareRow| r.delta_pct.unwrap_or(0.0);
        let worst = pick(Verdict::Slower)
            .max_by(|a, b| delta(a).total_cmp(&delta(b)))
            .or_else(|| pick(Verdict::Faster).min_by(|a, b| delta(a).total_cmp(&delta(b))))
            .map(|r| (r.name.clone(), delta(&r)));
        RowChanges {
            slower,
            faster,
            worst,
        }
    }

    /// `▲5 ▼0`: the counts alone.
    pub fn counts(&self) -> String {
        format!("▲{} ▼{}", self.slower, self.faster)
    }

    /// The word before the largest change: `worst` for a slowdown, `best` for a speed-up.
    pub fn worst_word(&self) -> &'static str {
        if self.slower > 0 {
            "worst"
        } else {
            "best"
        }
    }

    /// `▲5 ▼0 worst cumsum +54%` (`▲0 ▼0` when nothing changed; the name as
    /// [`short_name`]).
    pub fn label(&self) -> String {
        match &self.worst {
            Some((name, d)) => format!(
                "{} {} {} {}",
                self.counts(),
                self.worst_word(),
                short_name(name),
                pct_label(*d)
            ),
            None => self.counts(),
        }
    }
}

/// A row's name for a narrow cell: a kernel without its `native_call_` prefix and
/// `.out` suffix (`native_call_cumsum.out` → `cumsum`), a step without `ET/registry:`.
pub fn short_name(name: &str) -> &str {
    let n = name.strip_prefix("ET/registry:").unwrap_or(name);
    match n.strip_prefix("native_call_") {
        Some(k) => k.strip_suffix(".out").unwrap_or(k),
        None => n,
    }
}

/// A change in percent, whole above 10%: `+54%`, `-38%`, `+7.5%`.
pub fn pct_label(d: f64) -> String {
    if d.abs() >= 10.0 {
        format!("{d:+.0}%")
    } else {
        format!("{d:+.1}%")
    }
}

/// [`RowChanges`] with the trees it was computed from.
#[derive(Debug, Clone)]
pub struct RowChangesOf {
    pub base: Arc<RowTree>,
    pub now: Arc<RowTree>,
    pub changes: RowChanges,
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
    /// `--etrecord` / `--program`: read with every profile of the folder.
    pub model: crate::profile::ModelFileArgs,
    /// `--max-input-size` / `--time-unit`: how every profile of the folder is read.
    pub read: crate::profile::ReadOptions,
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
            model: crate::profile::ModelFileArgs::default(),
            read: crate::profile::ReadOptions::default(),
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
    pub(super) fn insert(&mut self, mut entry: RunEntry) -> usize {
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

    pub(super) fn remove_at(&mut self, index: usize) {
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

pub(super) fn one_line(message: &str) -> String {
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

/// Backoff of the `attempts`-th retry: 200 ms doubling, at most 5 s.
pub fn retry_delay(attempts: u32) -> Duration {
    RETRY_FIRST
        .saturating_mul(1 << attempts.saturating_sub(1).min(10))
        .min(RETRY_MAX)
}
