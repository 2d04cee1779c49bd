//! Across the profiles of one model (and one `--by` value): each row, matched by kind and
//! name path (the n-th row of a repeated path with the n-th), summarised over the
//! profiles' medians (median, p10/p90, coefficient of variation, the slowest profile),
//! with outlier profiles and, along `--order`, the row's step change (`trend`).
//!
//! Outliers: a profile whose row median has a robust z of at least 3.5 in absolute value
//! (Iglewicz and Hoaglin's modified z, 0.6745 · (m − median) / MAD; with MAD 0, the mean
//! absolute deviation · 1.253314 stands in), that differs from the fleet's median by at
//! least `min_change` percent, and whose samples differ from the pooled samples of the
//! other profiles by a Mann–Whitney test, Holm-adjusted over every such candidate of the
//! group (rows × profiles), at `alpha`.

use std::collections::HashMap;

use super::ranks::RankedPool;
use super::{FleetProfile, FleetRow};
use crate::rows::RowKind;
use crate::stats::{holm_adjust, percentile_sorted};

/// |robust z| at or above this marks a candidate outlier (Iglewicz and Hoaglin).
pub const OUTLIER_Z: f64 = 3.5;

#[derive(Debug, Clone, PartialEq)]
pub struct AnalysisOptions {
    pub by: Option<String>,
    pub order: Option<String>,
    /// Percent of the fleet's (or the before) median below which nothing is reported.
    pub min_change: f64,
    pub alpha: f64,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            by: None,
            order: None,
            min_change: 5.0,
            alpha: 0.05,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Fleet {
    pub profiles: Vec<FleetProfile>,
    pub groups: Vec<Group>,
    pub options: AnalysisOptions,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub model: String,
    /// The `--by` field's value of this group (None: no `--by`, or the field is missing).
    pub by: Option<String>,
    /// Indices into `Fleet::profiles`; in `--order` order when given (profiles without
    /// the field last, in the order found).
    pub members: Vec<usize>,
    pub rows: Vec<GroupRow>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GroupRow {
    pub kind: RowKind,
    pub name: String,
    pub path: Vec<String>,
    pub instruction_id: Option<i32>,
    /// The row's module (the first profile's that has one).
    pub module: Option<String>,
    /// Each profile's median of this row (ms): (profile index, median), in member order.
    pub medians: Vec<(usize, f64)>,
    pub median_of_medians: f64,
    pub p10: f64,
    pub p90: f64,
    /// Sample standard deviation (n − 1) of the medians over their mean; None for one
    /// profile or a zero mean.
    pub cv: Option<f64>,
    /// (profile index, median) of the profile with the largest median.
    pub slowest: (usize, f64),
    pub outliers: Vec<Outlier>,
    pub change: Option<Change>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Outlier {
    pub profile: usize,
    pub median: f64,
    pub z: f64,
    /// Holm-adjusted over the group's candidates.
    pub p_value: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The first profile (index into `Fleet::profiles`) of the new level.
    pub at: usize,
    /// Medians (ms) of the pooled samples before and from `at`.
    pub before: f64,
    pub after: f64,
    pub delta_pct: f64,
    /// Bonferroni over the splits tried, then Holm over the group's rows.
    pub p_value: f64,
}

/// Group the loaded profiles and summarise every group.
pub fn analyse(profiles: Vec<FleetProfile>, options: AnalysisOptions) -> Fleet {
    let mut keys: Vec<(String, Option<String>)> = Vec::new();
    let mut members: Vec<Vec<usize>> = Vec::new();
    for (i, p) in profiles.iter().enumerate() {
        let Some(model) = &p.model else { continue };
        let by = options.by.as_deref().and_then(|k| p.field(k));
        let key = (model.clone(), by);
        match keys.iter().position(|k| *k == key) {
            Some(g) => members[g].push(i),
            None => {
                keys.push(key);
                members.push(vec![i]);
            }
        }
    }
    let groups = keys
        .into_iter()
        .zip(members)
        .map(|((model, by), mut m)| {
            if let Some(k) = &options.order {
                order_members(&profiles, &mut m, k);
            }
            let rows = group_rows(&profiles, &m, &options);
            Group {
                model,
                by,
                members: m,
                rows,
            }
        })
        .collect();
    Fleet {
        profiles,
        groups,
        options,
    }
}

/// Natural order of the field; profiles without it go last (stable).
fn order_members(profiles: &[FleetProfile], m: &mut [usize], key: &str) {
    m.sort_by(
        |&a, &b| match (profiles[a].field(key), profiles[b].field(key)) {
            (Some(x), Some(y)) => super::natural_cmp(&x, &y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        },
    );
}

/// The rows of a group: the union of its members' rows, in the order first seen.
fn group_rows(
    profiles: &[FleetProfile],
    members: &[usize],
    opts: &AnalysisOptions,
) -> Vec<GroupRow> {
    let mut index: HashMap<(RowKind, &[String], usize), usize> = HashMap::new();
    // Per group row: (profile index, its row).
    let mut cells: Vec<Vec<(usize, &FleetRow)>> = Vec::new();
    for &pi in members {
        let mut occurrence: HashMap<(RowKind, &[String]), usize> = HashMap::new();
        for r in &profiles[pi].rows {
            let n = occurrence.entry((r.kind, r.path.as_slice())).or_insert(0);
            let key = (r.kind, r.path.as_slice(), *n);
            *n += 1;
            let at = *index.entry(key).or_insert_with(|| {
                cells.push(Vec::new());
                cells.len() - 1
            });
            cells[at].push((pi, r));
        }
    }
    let ordered = opts.order.as_deref().map(|k| {
        members
            .iter()
            .map(|&p| profiles[p].field(k).is_some())
            .collect::<Vec<bool>>()
    });
    let mut rows: Vec<GroupRow> = cells.iter().map(|c| summarise(c)).collect();
    // Outliers: candidates over the whole group, one Holm family.
    let mut candidates: Vec<(usize, Outlier)> = Vec::new();
    for (ri, c) in cells.iter().enumerate() {
        candidates.extend(
            outlier_candidates(&rows[ri], c, opts.min_change)
                .into_iter()
                .map(|o| (ri, o)),
        );
    }
    let adjusted = holm_adjust(
        &candidates
            .iter()
            .map(|(_, o)| o.p_value)
            .collect::<Vec<_>>(),
    );
    for ((ri, mut o), p) in candidates.into_iter().zip(adjusted) {
        if p <= opts.alpha {
            o.p_value = p;
            rows[ri].outliers.push(o);
        }
    }
    // Step changes along the order: one per row, Holm over the rows.
    if let Some(has) = ordered {
        let in_order: Vec<usize> = members
            .iter()
            .zip(&has)
            .filter(|(_, &h)| h)
            .map(|(&p, _)| p)
            .collect();
        // Each profile's place in the order (None: it lacks the field), so a row's cells
        // are put in order by a sort, not a search per profile.
        let size = members.iter().max().map_or(0, |&m| m + 1);
        let mut place: Vec<Option<usize>> = vec![None; size];
        for (i, &p) in in_order.iter().enumerate() {
            place[p] = Some(i);
        }
        // The rank of each profile's value of the key: profiles of one value (one
        // commit on several devices) are one level, and no split falls inside one.
        let key = opts.order.as_deref().unwrap_or_default();
        let mut level: Vec<usize> = vec![0; size];
        let mut rank = 0;
        for (i, &p) in in_order.iter().enumerate() {
            if i > 0 {
                let prev = profiles[in_order[i - 1]].field(key);
                if super::natural_cmp(
                    &prev.unwrap_or_default(),
                    &profiles[p].field(key).unwrap_or_default(),
                ) != std::cmp::Ordering::Equal
                {
                    rank += 1;
                }
            }
            level[p] = rank;
        }
        let found: Vec<(usize, super::trend::Step)> = cells
            .iter()
            .enumerate()
            .filter_map(|(ri, c)| {
                let mut seq: Vec<(usize, &FleetRow)> = c
                    .iter()
                    .filter(|(p, _)| place.get(*p).copied().flatten().is_some())
                    .copied()
                    .collect();
                seq.sort_by_key(|(p, _)| place[*p]);
                let levels: Vec<usize> = seq.iter().map(|(p, _)| level[*p]).collect();
                super::trend::step_change(&seq, &levels, opts.min_change).map(|s| (ri, s))
            })
            .collect();
        let adjusted = holm_adjust(&found.iter().map(|(_, s)| s.p_value).collect::<Vec<_>>());
        for ((ri, s), p) in found.into_iter().zip(adjusted) {
            if p <= opts.alpha {
                rows[ri].change = Some(Change {
                    at: s.at,
                    before: s.before,
                    after: s.after,
                    delta_pct: s.delta_pct,
                    p_value: p,
                });
            }
        }
    }
    rows
}

fn summarise(cells: &[(usize, &FleetRow)]) -> GroupRow {
    let first = cells[0].1;
    let medians: Vec<(usize, f64)> = cells.iter().map(|(p, r)| (*p, r.median)).collect();
    let mut sorted: Vec<f64> = medians.iter().map(|m| m.1).collect();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len() as f64;
    let mean = sorted.iter().sum::<f64>() / n;
    let cv = (sorted.len() > 1 && mean != 0.0).then(|| {
        let var = sorted.iter().map(|m| (m - mean) * (m - mean)).sum::<f64>() / (n - 1.0);
        var.sqrt() / mean
    });
    // The first profile with the largest median.
    let slowest = medians
        .iter()
        .copied()
        .fold(None::<(usize, f64)>, |best, m| match best {
            Some(b) if b.1 >= m.1 => Some(b),
            _ => Some(m),
        })
        .expect("a group row has a profile");
    GroupRow {
        kind: first.kind,
        name: first.name.clone(),
        path: first.path.clone(),
        instruction_id: first.instruction_id,
        module: cells.iter().find_map(|(_, r)| r.module.clone()),
        median_of_medians: percentile_sorted(&sorted, 50.0),
        p10: percentile_sorted(&sorted, 10.0),
        p90: percentile_sorted(&sorted, 90.0),
        cv,
        slowest,
        medians,
        outliers: Vec::new(),
        change: None,
    }
}

/// Modified z of each median: 0.6745 · (m − median) / MAD (MAD 0: 1.253314 · mean
/// absolute deviation instead, 1.253314 ≈ √(π/2)), the scale never below `min_scale`
/// (the clock's resolution: medians of samples in whole µs differ by half-µs steps that
/// are no evidence); None when the scale is 0.
pub fn robust_z(medians: &[f64], min_scale: f64) -> Option<Vec<f64>> {
    let (center, scale) = center_and_scale(medians);
    let scale = scale.max(min_scale);
    (scale > 0.0).then(|| medians.iter().map(|m| (m - center) / scale).collect())
}

/// The scale [`robust_z`] uses before its floor.
fn robust_z_scale(medians: &[f64]) -> f64 {
    center_and_scale(medians).1
}

/// The medians' median, and MAD / 0.6745 (1.253314 · mean absolute deviation when the
/// MAD is 0).
fn center_and_scale(medians: &[f64]) -> (f64, f64) {
    let mut sorted = medians.to_vec();
    sorted.sort_by(f64::total_cmp);
    let center = percentile_sorted(&sorted, 50.0);
    let mut dev: Vec<f64> = medians.iter().map(|m| (m - center).abs()).collect();
    dev.sort_by(f64::total_cmp);
    let mad = percentile_sorted(&dev, 50.0);
    let scale = if mad > 0.0 {
        mad / 0.6745
    } else {
        dev.iter().sum::<f64>() / dev.len() as f64 * 1.253314
    };
    (center, scale)
}

/// The smallest gap between two distinct samples of one row (ms): an upper bound of the
/// pooled [`resolution_ms`]; None with fewer than two distinct values.
fn smallest_gap_ms(samples: &super::Samples) -> Option<f64> {
    let mut v: Vec<u64> = samples.iter_ns().collect();
    v.sort_unstable();
    v.dedup();
    v.windows(2)
        .map(|w| w[1] - w[0])
        .min()
        .map(|gap| gap as f64 / 1e6)
}

/// The clock's resolution as the samples show it: the smallest gap between two distinct
/// values (ms); 0 with fewer than two distinct values.
fn resolution_ms(ns: &[Vec<u64>]) -> f64 {
    let mut all: Vec<u64> = ns.iter().flatten().copied().collect();
    all.sort_unstable();
    all.dedup();
    all.windows(2)
        .map(|w| w[1] - w[0])
        .min()
        .map_or(0.0, |gap| gap as f64 / 1e6)
}

/// Profiles of one row with |z| ≥ 3.5 and a change of at least `min_change` percent, with
/// their unadjusted p-values against the pooled others.
fn outlier_candidates(
    row: &GroupRow,
    cells: &[(usize, &FleetRow)],
    min_change: f64,
) -> Vec<Outlier> {
    if cells.len() < 3 {
        return Vec::new();
    }
    let meds: Vec<f64> = row.medians.iter().map(|m| m.1).collect();
    // The clock's resolution only matters when it is above the medians' own scale: a
    // gap seen within one profile's samples bounds it from above, and when that bound
    // is already at or below the scale the pooled samples need not be sorted (the z
    // are the same either way).
    let scale = robust_z_scale(&meds);
    let min_scale = match cells.iter().find_map(|(_, r)| smallest_gap_ms(&r.samples)) {
        Some(bound) if bound <= scale => bound,
        _ => {
            let ns: Vec<Vec<u64>> = cells
                .iter()
                .map(|(_, r)| r.samples.iter_ns().collect())
                .collect();
            resolution_ms(&ns)
        }
    };
    let Some(z) = robust_z(&meds, min_scale) else {
        return Vec::new();
    };
    let center = row.median_of_medians;
    let picked: Vec<usize> = (0..cells.len())
        .filter(|&i| {
            z[i].abs() >= OUTLIER_Z
                && center > 0.0
                && ((meds[i] - center) / center * 100.0).abs() >= min_change
        })
        .collect();
    if picked.is_empty() {
        return Vec::new();
    }
    let ns: Vec<Vec<u64>> = cells
        .iter()
        .map(|(_, r)| r.samples.iter_ns().collect())
        .collect();
    let pool = RankedPool::new(ns.iter().map(Vec::as_slice).collect());
    picked
        .into_iter()
        .filter_map(|i| {
            let t = pool.test(|g| g == i)?;
            Some(Outlier {
                profile: cells[i].0,
                median: meds[i],
                z: z[i],
                p_value: t.p_value,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn robust_z_by_hand() {
        // median 10, |dev| = 0,1,1,2,10 -> MAD 1; z of 20 = 0.6745 * 10 / 1.
        let z = robust_z(&[10.0, 9.0, 11.0, 8.0, 20.0], 0.0).unwrap();
        assert!((z[4] - 6.745).abs() < 1e-12);
        assert!((z[0]).abs() < 1e-12);
        assert_eq!(robust_z(&[3.0, 3.0, 3.0], 0.0), None);
        // MAD 0 (four equal of five): mean |dev| = 8/5, scale = 1.6 * 1.253314.
        let z = robust_z(&[5.0, 5.0, 5.0, 5.0, 13.0], 0.0).unwrap();
        assert!((z[4] - 8.0 / (1.6 * 1.253314)).abs() < 1e-12);
        // A resolution of 1 (whole µs): half a step off is z 0.5, not an outlier.
        let z = robust_z(&[9.0, 9.0, 9.0, 9.0, 8.5], 1.0).unwrap();
        assert_eq!(z[4], -0.5);
        assert_eq!(robust_z(&[3.0, 3.0], 1.0), Some(vec![0.0, 0.0]));
    }
}
