//! The module trees of a dump as rows: with the Inspector's totals per method
//! (`RowTree::modules_of`: the modules view and `report --by-module`), and summed per run
//! (`RowTree::by_module`: layers compared as rows).

use super::{row, Facts, ModuleMember, RowKind, RowTree};
use crate::profile::{ModuleRow, ModuleTotal, Profile};
use crate::stats::Stats;

impl RowTree {
    /// The module trees of a profile read with an ETRecord: per method (each of several,
    /// or the one), a `method` row (its `Method::execute` statistics, `Facts::Method`)
    /// holding one `module` row per nn.Module, nested as in the model, in the profile's
    /// order (pre-order, children in the order of their first node in the graph). Each
    /// module's figures (`Facts::Module`) are its `ModuleTotal`'s, which
    /// `profile::source::module_totals` computes once while the ETRecord is read (the
    /// profile's `modules[]`, the same numbers); its rows are found in `dump`
    /// (`RowTree::from_profile(profile)`). A method without a module tree has no module
    /// rows.
    pub fn modules_of(profile: &Profile, dump: &RowTree) -> RowTree {
        let mut t = RowTree::new(dump.source_kind, dump.source.clone(), dump.runs);
        // Per method: its name, modules, Method::execute, kept and dropped runs.
        type Section<'a> = (&'a str, &'a [ModuleTotal], Option<&'a Stats>, usize, usize);
        let sections: Vec<Section<'_>> = if profile.methods.len() > 1 {
            profile
                .methods
                .iter()
                .map(|m| {
                    let (kept, warmup) = (m.runs.kept, m.runs.warmup_dropped);
                    (
                        m.name.as_str(),
                        &m.modules[..],
                        m.method.as_ref(),
                        kept,
                        warmup,
                    )
                })
                .collect()
        } else {
            let name = profile
                .methods
                .first()
                .map_or("method 1", |m| m.name.as_str());
            let runs = &profile.runs;
            vec![(
                name,
                &profile.modules[..],
                profile.method.as_ref(),
                runs.kept,
                runs.warmup_dropped,
            )]
        };
        for (k, (name, modules, method, kept, warmup)) in sections.into_iter().enumerate() {
            let mut m = row(
                RowKind::Method,
                name,
                None,
                method.cloned().unwrap_or_default(),
            );
            m.facts = Facts::Method {
                kept,
                warmup,
                timed: method.is_some(),
            };
            let mi = t.push(None, m);
            let root = dump.roots.get(k).copied();
            let mut ids: Vec<usize> = Vec::with_capacity(modules.len());
            for (i, total) in modules.iter().enumerate() {
                let name = if total.path.is_empty() {
                    "(root)"
                } else {
                    total.path.as_str()
                };
                let mut r = row(RowKind::Module, name, None, Stats::default());
                r.module = Some(total.path.clone());
                r.share = Some(total.share);
                r.facts = Facts::Module {
                    ty: total.ty.clone(),
                    median_total: total.median_total,
                    mean_total: total.mean_total,
                    share: total.share,
                    not_attributable: total.median_not_attributable,
                    rows: total.rows.iter().map(|mr| member(dump, root, mr)).collect(),
                };
                // Pre-order: a parent comes before its children.
                let parent = total.parent.filter(|&p| p < i).map_or(mi, |p| ids[p]);
                ids.push(t.push(Some(parent), r));
            }
        }
        t
    }

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

/// A module's row as a member, found under method row `root` of `dump`: a delegate call
/// is its delegate row, a kernel the kernel of that name under its instruction.
fn member(dump: &RowTree, root: Option<usize>, r: &ModuleRow) -> ModuleMember {
    let delegate = r.kind == "delegate";
    let found = root.and_then(|root| {
        let want = if delegate {
            RowKind::Delegate
        } else {
            RowKind::Instruction
        };
        let top = dump.rows[root].children.iter().copied().find(|&c| {
            dump.rows[c].kind == want && dump.rows[c].instruction_id == Some(r.instruction_id)
        })?;
        if delegate {
            return Some(top);
        }
        dump.rows[top]
            .children
            .iter()
            .copied()
            .find(|&c| dump.rows[c].kind == RowKind::Kernel && dump.rows[c].name == r.name)
    });
    ModuleMember {
        row: found,
        kind: if delegate {
            RowKind::Delegate
        } else {
            RowKind::Kernel
        },
        name: r.name.clone(),
        instruction_id: r.instruction_id,
        median: r.median,
        mean: r.mean,
        spans_children: r.spans_children,
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
