//! Fleets: many profiles of the same models at once (issue #25). Every dump, trace file
//! or CTF directory under the given paths is found (`discover`), loaded on all cores and
//! kept only as its rows' statistics and compact samples (`load`), given metadata from
//! its path, a sidecar and its own content (`meta`), then summarised per model (and per
//! `--by` value) across profiles: spread, outliers (`outliers`) and step changes along an
//! ordered field (`trend`). Renderers are in `report::fleet`.
//!
//! Pure below `load`: [`analyse`] takes the loaded profiles and options, no I/O.

pub mod analysis;
pub mod discover;
pub mod load;
pub mod meta;
pub mod ranks;
pub mod stragglers;
pub mod tree;
pub mod trend;

use crate::rows::RowKind;
use crate::stats::Stats;

pub use analysis::{analyse, Change, Fleet, Group, GroupRow, Outlier};
pub use discover::{discover, Found, FoundKind};
pub use load::{load_all, LoadOptions};

/// Samples of one row in whole ns, as `profile::collect` keeps them: `u32` until a
/// sample does not fit.
#[derive(Debug, Clone, PartialEq)]
pub enum Samples {
    U32(Vec<u32>),
    U64(Vec<u64>),
}

impl Samples {
    /// From a row's samples (negative ones, a remainder's, as 0: the fleet ranks
    /// durations).
    pub fn from_ns(ns: &[i64]) -> Samples {
        if ns.iter().all(|&v| v <= i64::from(u32::MAX)) {
            Samples::U32(ns.iter().map(|&v| v.max(0) as u32).collect())
        } else {
            Samples::U64(ns.iter().map(|&v| v.max(0) as u64).collect())
        }
    }

    /// Every sample in ns, signed (as `stats::Samples` holds them).
    pub fn to_ns(&self) -> Vec<i64> {
        self.iter_ns()
            .map(|v| i64::try_from(v).unwrap_or(i64::MAX))
            .collect()
    }

    /// From samples in ms (made from whole ns, or rounded to them).
    pub fn from_ms(ms: &[f64]) -> Samples {
        let ns: Vec<u64> = ms
            .iter()
            .map(|&m| {
                let v = (m * 1e6).round();
                if v.is_finite() && v > 0.0 {
                    v as u64
                } else {
                    0
                }
            })
            .collect();
        if ns.iter().all(|&v| v <= u64::from(u32::MAX)) {
            Samples::U32(ns.into_iter().map(|v| v as u32).collect())
        } else {
            Samples::U64(ns)
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Samples::U32(v) => v.len(),
            Samples::U64(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sample `i` in ns.
    pub fn ns(&self, i: usize) -> u64 {
        match self {
            Samples::U32(v) => u64::from(v[i]),
            Samples::U64(v) => v[i],
        }
    }

    /// Every sample in ns.
    pub fn iter_ns(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.len()).map(|i| self.ns(i))
    }

    /// Every sample in ms (`ns as f64 / 1e6`, bit for bit the profile's value when that
    /// came from whole ns).
    pub fn to_ms(&self) -> Vec<f64> {
        self.iter_ns().map(|n| n as f64 / 1e6).collect()
    }
}

/// One row of one profile: its identity in the row tree, its statistics (ms) and its
/// samples.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetRow {
    pub kind: RowKind,
    pub name: String,
    /// Names from the root to this row (as `rows::Row::path`).
    pub path: Vec<String>,
    pub instruction_id: Option<i32>,
    pub count: usize,
    pub median: f64,
    pub p10: f64,
    pub p90: f64,
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    pub flops: Option<u64>,
    pub bytes: Option<u64>,
    /// The nn.Module the row's nodes lie in (from the ETRecord; `""` the root): which
    /// layer a row belongs to.
    pub module: Option<String>,
    pub samples: Samples,
    /// Which run of the dump each sample is from (see [`RunIndex`]).
    pub runs: RunIndex,
}

impl FleetRow {
    /// A row of `kind` at `path` with `stats`' figures and `samples` (runs numbered from
    /// 0), no instruction, cost or module.
    pub fn of_stats(kind: RowKind, path: Vec<String>, stats: &Stats, samples: Samples) -> FleetRow {
        FleetRow {
            kind,
            name: path.last().cloned().unwrap_or_default(),
            path,
            instruction_id: None,
            count: stats.count,
            median: stats.median(),
            p10: stats.p10(),
            p90: stats.p90(),
            min: stats.min(),
            max: stats.max(),
            mean: stats.mean(),
            flops: None,
            bytes: None,
            module: None,
            samples,
            runs: RunIndex::From(0),
        }
    }
}

/// The run of each sample of a row, numbered as the profile numbers runs: from 0 over
/// every run of the dump's method, warm-ups included (`Stats::runs` of `report`'s JSON).
/// Compact when every kept run has a sample (the usual case): sample `i` is then from
/// run `first + i`. A trace's "runs" are the row's calls, numbered from 0.
#[derive(Debug, Clone, PartialEq)]
pub enum RunIndex {
    /// Sample `i` is from run `first + i`.
    From(u32),
    /// Sample `i` is from run `each[i]`.
    Each(Vec<u32>),
}

impl RunIndex {
    /// From a row's `Stats::runs` (empty: contiguous from `first`).
    pub fn new(first: usize, runs: &[usize]) -> RunIndex {
        if runs.is_empty() {
            RunIndex::From(u32::try_from(first).unwrap_or(u32::MAX))
        } else {
            RunIndex::Each(
                runs.iter()
                    .map(|&r| u32::try_from(r).unwrap_or(u32::MAX))
                    .collect(),
            )
        }
    }

    /// The run of sample `i`.
    pub fn run(&self, i: usize) -> u64 {
        match self {
            RunIndex::From(first) => u64::from(*first) + i as u64,
            RunIndex::Each(each) => each.get(i).map_or(u64::MAX, |&r| u64::from(r)),
        }
    }
}

/// One profile of the fleet: where it is, its metadata, and its rows (none when it
/// failed to load: `error` says why, in one line).
#[derive(Debug, Clone, PartialEq)]
pub struct FleetProfile {
    /// Unique in the fleet: the path relative to its root (`#2`.. added on a clash).
    pub id: String,
    /// The path as found (root joined with the relative path).
    pub path: String,
    /// Template fields, then sidecar fields, then `mtime` (what `--by`/`--order` read,
    /// with the intrinsic `path`, `model`, `runs`).
    pub meta: serde_json::Map<String, serde_json::Value>,
    /// Short id of the run signature (see [`load::model_id`]); None for a failed load.
    pub model: Option<String>,
    /// `etdump` or `trace`.
    pub kind: Option<&'static str>,
    pub runs: usize,
    /// `Method::execute` (dumps; the first method of a multi-method dump), no samples.
    pub method: Option<Stats>,
    pub error: Option<String>,
    /// Problems that did not stop the load (a sidecar that is not a flat object: its
    /// metadata left out), one line each.
    pub warnings: Vec<String>,
    pub rows: Vec<FleetRow>,
}

impl FleetProfile {
    /// The value of a metadata field as text: the intrinsic `path`, `model`, `runs`, `id`,
    /// else `meta` (a string as is, anything else as JSON).
    pub fn field(&self, key: &str) -> Option<String> {
        match key {
            "path" => return Some(self.path.clone()),
            "model" => return self.model.clone(),
            "runs" => return Some(self.runs.to_string()),
            "id" => return Some(self.id.clone()),
            _ => {}
        }
        self.meta.get(key).map(value_text)
    }
}

/// A metadata value as text (strings unquoted).
pub fn value_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `c9` before `c10`: runs of digits compare as numbers, the rest as text.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    loop {
        match (x.first(), y.first()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let nx = x.iter().take_while(|c| c.is_ascii_digit()).count();
                let ny = y.iter().take_while(|c| c.is_ascii_digit()).count();
                let (dx, dy) = (&x[..nx], &y[..ny]);
                let tx = trim_zeros(dx);
                let ty = trim_zeros(dy);
                let ord = tx.len().cmp(&ty.len()).then_with(|| tx.cmp(ty));
                if ord != Ordering::Equal {
                    return ord;
                }
                x = &x[nx..];
                y = &y[ny..];
            }
            (Some(c), Some(d)) => {
                if c != d {
                    return c.cmp(d);
                }
                x = &x[1..];
                y = &y[1..];
            }
        }
    }
}

fn trim_zeros(d: &[u8]) -> &[u8] {
    let z = d.iter().take_while(|&&c| c == b'0').count();
    &d[z..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering;

    #[test]
    fn natural_order_counts_digits_as_numbers() {
        assert_eq!(natural_cmp("c9", "c10"), Ordering::Less);
        assert_eq!(natural_cmp("c10", "c9"), Ordering::Greater);
        assert_eq!(natural_cmp("2024-01-09", "2024-01-10"), Ordering::Less);
        assert_eq!(natural_cmp("a", "b"), Ordering::Less);
        assert_eq!(natural_cmp("c007", "c7"), Ordering::Less); // equal numbers: text order
        let mut v = vec!["c10", "c2", "c1", "c9"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(v, ["c1", "c2", "c9", "c10"]);
    }

    #[test]
    fn samples_round_trip_ms_and_widen() {
        let ms = [0.001234, 1.5, 3.0];
        let s = Samples::from_ms(&ms);
        assert!(matches!(s, Samples::U32(_)));
        assert_eq!(s.to_ms(), ms.to_vec());
        let big = Samples::from_ms(&[5000.0]); // 5e9 ns > u32::MAX
        assert_eq!(big, Samples::U64(vec![5_000_000_000]));
    }
}
