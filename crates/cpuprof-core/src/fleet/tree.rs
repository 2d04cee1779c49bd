//! A fleet profile back as a row tree (for the compare model), and the fleet's median
//! profile of a group: what the fleet view compares a profile with (`d`).
//!
//! The fleet keeps each row's samples in whole ns; `Samples::to_ms` gives back the
//! profile's own values, so a comparison made here uses the real samples of both
//! profiles, as `compare A B` on the two files would (row matching by name path).

use super::analysis::{Fleet, Group};
use super::FleetProfile;
use crate::rows::{Row, RowTree, TreeSource};
use crate::stats::Stats;

/// The row tree of a loaded profile (empty for one that failed). Parents are found by
/// name path: rows are kept in tree order, a parent before its children.
pub fn row_tree(p: &FleetProfile) -> RowTree {
    let mut t = RowTree {
        source_kind: if p.kind == Some("trace") {
            TreeSource::Trace
        } else {
            TreeSource::Dump
        },
        source: p.id.clone(),
        runs: p.runs,
        rows: Vec::with_capacity(p.rows.len()),
        roots: Vec::new(),
    };
    let mut by_path: std::collections::HashMap<&[String], usize> = Default::default();
    for r in &p.rows {
        let id = t.rows.len();
        let parent = match r.path.len() {
            0 | 1 => None,
            n => by_path.get(&r.path[..n - 1]).copied(),
        };
        let depth = parent.map_or(0, |q| t.rows[q].depth + 1);
        match parent {
            Some(q) => t.rows[q].children.push(id),
            None => t.roots.push(id),
        }
        by_path.entry(&r.path[..]).or_insert(id);
        t.rows.push(Row {
            flops: r.flops,
            bytes: r.bytes,
            module: r.module.clone(),
            parent,
            depth,
            ..crate::rows::row(
                r.kind,
                &r.name,
                r.instruction_id,
                Stats::from_ns(r.samples.to_ns()),
            )
        });
    }
    t
}

/// What a profile's total time is for ranking it in its group: its `Method::execute`
/// median (dumps), else the sum of its top-level rows' medians (traces).
pub fn total_median(p: &FleetProfile) -> Option<f64> {
    if let Some(m) = &p.method {
        return Some(m.median());
    }
    let roots: Vec<f64> = p
        .rows
        .iter()
        .filter(|r| r.path.len() == 1)
        .map(|r| r.median)
        .collect();
    (!roots.is_empty()).then(|| roots.iter().sum())
}

/// The fleet's median profile of `group`: the member whose total median
/// ([`total_median`]) is the group's median, the lower one of the middle two for an even
/// count (ties by id). A real profile, so a comparison with it uses real samples.
pub fn median_profile(fleet: &Fleet, group: &Group) -> Option<usize> {
    let mut ranked: Vec<(f64, &str, usize)> = group
        .members
        .iter()
        .filter_map(|&i| {
            let p = fleet.profiles.get(i)?;
            total_median(p).map(|m| (m, p.id.as_str(), i))
        })
        .collect();
    if ranked.is_empty() {
        return None;
    }
    ranked.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(b.1)));
    Some(ranked[(ranked.len() - 1) / 2].2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::{FleetRow, Samples};
    use crate::rows::RowKind;

    fn row(path: &[&str], ms: &[f64]) -> FleetRow {
        let s = Stats::from_ms(ms);
        let path = path.iter().map(|s| s.to_string()).collect();
        FleetRow::of_stats(RowKind::Operator, path, &s, Samples::from_ms(ms))
    }

    fn profile(id: &str, method: Option<f64>, rows: Vec<FleetRow>) -> FleetProfile {
        FleetProfile {
            id: id.into(),
            path: id.into(),
            meta: Default::default(),
            model: Some("m".into()),
            kind: Some("etdump"),
            runs: 3,
            method: method.map(|m| Stats::from_ms(&[m])),
            error: None,
            warnings: Vec::new(),
            rows,
        }
    }

    #[test]
    fn the_tree_is_rebuilt_by_name_path_with_the_samples() {
        let p = profile(
            "a",
            Some(1.0),
            vec![
                row(&["M"], &[3.0, 1.0, 2.0]),
                row(&["M", "x"], &[1.0, 1.0, 1.0]),
                row(&["M", "y"], &[0.5, 0.25, 0.75]),
                row(&["M", "y", "k"], &[0.125, 0.125, 0.125]),
            ],
        );
        let t = row_tree(&p);
        assert_eq!(t.roots, [0]);
        assert_eq!(t.rows[0].children, [1, 2]);
        assert_eq!(t.rows[3].parent, Some(2));
        assert_eq!(t.rows[3].depth, 2);
        assert_eq!(t.rows[2].stats.samples, [0.5, 0.25, 0.75]);
        assert_eq!(t.rows[2].stats.median(), 0.5);
    }

    #[test]
    fn the_median_profile_is_the_lower_middle_one() {
        let profiles = vec![
            profile("p0", Some(4.0), vec![]),
            profile("p1", Some(1.0), vec![]),
            profile("p2", Some(3.0), vec![]),
            profile("p3", Some(2.0), vec![]),
            profile("p4", None, vec![]), // no total: not ranked
        ];
        let group = Group {
            model: "m".into(),
            by: None,
            members: vec![0, 1, 2, 3, 4],
            rows: vec![],
        };
        let fleet = Fleet {
            profiles,
            groups: vec![],
            options: Default::default(),
        };
        // Sorted 1 (p1), 2 (p3), 3 (p2), 4 (p0): the lower middle is p3.
        assert_eq!(median_profile(&fleet, &group), Some(3));
    }
}
