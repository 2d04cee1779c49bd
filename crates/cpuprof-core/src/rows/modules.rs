//! The module tree of a dump's rows (`RowTree::by_module`): layers compared as rows.

use super::{row, RowKind, RowTree};
use crate::stats::Stats;

impl RowTree {
    /// The module tree of a dump's rows, for comparing layers: under each method row, one
    /// `module` row per nn.Module (nested by path), whose samples are the per-run sums of
    /// the delegate calls and non-delegated kernels placed in it or below (each row
    /// once; a delegate spanning modules sits at their common ancestor). Runs are summed
    /// up to the fewest samples among the summed rows (a row that missed runs would
    /// otherwise shift the sums). Rows without a module are left out.
    pub fn by_module(&self) -> RowTree {
        let mut t = RowTree::new(self.source_kind, self.source.clone(), self.runs);
        for &root in &self.roots {
            let m = &self.rows[root];
            let mi = t.push(None, row(RowKind::Method, &m.name, None, m.stats.clone()));
            t.rows[mi].group = m.group.clone();
            // Module path -> summed samples and how many rows were summed.
            let mut sums: Vec<(String, Vec<i64>)> = Vec::new();
            let mut add = |path: &str, samples: &[i64]| {
                let at = match sums.iter().position(|(p, _)| p == path) {
                    Some(i) => i,
                    None => {
                        sums.push((path.to_string(), samples.to_vec()));
                        return;
                    }
                };
                let acc = &mut sums[at].1;
                acc.truncate(samples.len());
                for (a, s) in acc.iter_mut().zip(samples) {
                    *a = a.saturating_add(*s);
                }
            };
            for id in self.descendants(root) {
                let r = &self.rows[id];
                let counted = match r.kind {
                    RowKind::Delegate => true,
                    RowKind::Kernel => r
                        .parent
                        .is_some_and(|p| self.rows[p].kind == RowKind::Instruction),
                    _ => false,
                };
                let Some(module) = r.module.as_deref().filter(|_| counted) else {
                    continue;
                };
                for p in module_ancestry(module) {
                    add(p, r.stats.samples.ns());
                }
            }
            // Parents before children: by path depth, then first appearance.
            let mut order: Vec<usize> = (0..sums.len()).collect();
            order.sort_by_key(|&i| module_depth(&sums[i].0));
            let mut placed: Vec<(String, usize)> = Vec::new();
            for i in order {
                let (path, samples) = &sums[i];
                let parent = module_parent(path)
                    .and_then(|pp| placed.iter().find(|(p, _)| p == pp).map(|(_, id)| *id))
                    .unwrap_or(mi);
                let name = if path.is_empty() {
                    "(root)"
                } else {
                    path.as_str()
                };
                let mut r = row(RowKind::Module, name, None, Stats::from_ns(samples.clone()));
                r.module = Some(path.clone());
                let id = t.push(Some(parent), r);
                placed.push((path.clone(), id));
            }
        }
        t
    }
}

/// `layers.0.fc` -> `["", "layers", "layers.0", "layers.0.fc"]` (the root first).
fn module_ancestry(path: &str) -> Vec<&str> {
    let mut out = vec![""];
    if path.is_empty() {
        return out;
    }
    for (i, c) in path.char_indices() {
        if c == '.' {
            out.push(&path[..i]);
        }
    }
    out.push(path);
    out
}

fn module_parent(path: &str) -> Option<&str> {
    if path.is_empty() {
        return None;
    }
    Some(path.rsplit_once('.').map_or("", |(p, _)| p))
}

fn module_depth(path: &str) -> usize {
    if path.is_empty() {
        0
    } else {
        1 + path.matches('.').count()
    }
}
