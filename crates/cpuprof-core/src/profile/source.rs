//! From operators to the model: run groups named after the program's methods, every row
//! given its nodes, operators, modules and source line from the ETRecord, and the
//! nn.Module tree with inclusive times. Applied to a built [`Profile`] (pure: the
//! readers' typed records in, profile fields out).

use std::collections::{BTreeSet, HashMap};

use super::model::{
    Finding, MethodProfile, ModuleRow, ModuleTotal, OperatorKind, OperatorStats, Profile, RowSource,
};
use crate::etrecord::{EtRecord, MethodRecord, Node};
use crate::stats::Stats;

mod naming;
pub use naming::{method_of_group, name_methods};

/// The ETRecord method of a run group: by its name (any of `a + b`), else the only one,
/// else the one whose maps have every delegate call and instruction of the group.
fn record_for<'r>(
    m: &MethodProfile,
    record: &'r EtRecord,
    groups: usize,
) -> Option<&'r MethodRecord> {
    for name in method_of_group(&m.name).split(" + ") {
        if let Some(r) = record.method(name) {
            return Some(r);
        }
    }
    if record.methods.len() == 1 && groups == 1 {
        return record.methods.first();
    }
    let fits = |r: &MethodRecord| {
        let id = |i: i32| u32::try_from(i).ok();
        m.delegates
            .iter()
            .all(|d| id(d.instruction_id).is_some_and(|i| r.delegates.contains_key(&i)))
            && m.other_operators.iter().all(|o| {
                id(o.instruction_id).is_some_and(|i| {
                    r.instructions.contains_key(&i) && !r.delegates.contains_key(&i)
                })
            })
    };
    let mut fitting = record.methods.iter().filter(|r| fits(r));
    match (fitting.next(), fitting.next()) {
        (Some(r), None) if !(m.delegates.is_empty() && m.other_operators.is_empty()) => Some(r),
        _ => None,
    }
}

/// The source of a row with `handles`: their nodes, as the Inspector associates them.
pub fn source_of(record: &MethodRecord, handles: &[u64], through_delegate: bool) -> RowSource {
    let mut nodes: Vec<&Node> = Vec::new();
    let mut op_types = Vec::new();
    for &h in handles {
        for n in record.nodes_with_handle(h) {
            op_types.push(n.op_type().to_string());
            if !nodes.iter().any(|x| std::ptr::eq(*x, n)) {
                nodes.push(n);
            }
        }
    }
    let mut modules: Vec<String> = Vec::new();
    for n in &nodes {
        if let Some(p) = n.module_path() {
            if !modules.iter().any(|m| m == p) {
                modules.push(p.to_string());
            }
        }
    }
    let frame = nodes.iter().find_map(|n| n.frame());
    RowSource {
        debug_handles: handles.to_vec(),
        nodes: nodes.iter().map(|n| n.name.clone()).collect(),
        op_types,
        modules,
        module: common_module(&nodes),
        source_line: frame.as_ref().map(|f| f.short()),
        file_line: frame.as_ref().map(|f| f.file_line()),
        through_delegate,
        module_stacks: nodes
            .iter()
            .filter(|n| !n.module_stack.is_empty())
            .map(|n| {
                let frames = n.module_stack.iter();
                let frames = frames.map(|f| [f.key.clone(), f.path.clone(), f.ty.clone()]);
                (n.name.clone(), frames.collect())
            })
            .collect(),
        stack_traces: nodes
            .iter()
            .filter_map(|n| Some((n.name.clone(), n.stack_trace.clone()?)))
            .collect(),
        op_types_past_cap: None,
        backend: None,
    }
}

/// The source of instruction `instruction_id` (its `debug_handle_map` list): `source_of`
/// its handles, and where the list repeats a handle past what the reader keeps, the
/// Inspector's count and last entry of `op_types` over the whole list.
pub fn source_of_instruction(record: &MethodRecord, instruction_id: i32) -> Option<RowSource> {
    let handles = handles_of(record, instruction_id)?;
    let mut s = source_of(record, handles, false);
    let full = u32::try_from(instruction_id)
        .ok()
        .and_then(|i| record.full.get(&i));
    if let Some(full) = full {
        // The reader keeps a handle's first MAX_REPEATS times.
        let kept = |times: u64| times.min(crate::etrecord::MAX_REPEATS as u64);
        let mut more = 0u64;
        let mut last: Option<(u64, &Node)> = None;
        for &(h, times, at) in &full.handles {
            let nodes = record.nodes_with_handle(h);
            let (count, last_node) = nodes.fold((0u64, None), |(c, _), n| (c + 1, Some(n)));
            more = more.saturating_add((times - kept(times)).saturating_mul(count));
            if let Some(n) = last_node {
                if last.is_none_or(|(p, _)| at > p) {
                    last = Some((at, n));
                }
            }
        }
        if let Some((_, n)) = last {
            s.op_types_past_cap = Some((more, n.op_type().to_string()));
        }
    }
    Some(s)
}

/// The deepest module on every node's stack (None if no node has a stack).
fn common_module(nodes: &[&Node]) -> Option<String> {
    let stacks: Vec<&[crate::etrecord::ModuleFrame]> = nodes
        .iter()
        .map(|n| n.module_stack.as_slice())
        .filter(|s| !s.is_empty())
        .collect();
    let first = stacks.first()?;
    let mut depth = first.len();
    for s in &stacks[1..] {
        depth = depth.min(
            first
                .iter()
                .zip(s.iter())
                .take_while(|(a, b)| a.path == b.path)
                .count(),
        );
    }
    match depth {
        0 => None,
        d => Some(first[d - 1].path.clone()),
    }
}

fn handles_of(record: &MethodRecord, instruction_id: i32) -> Option<&Vec<u64>> {
    u32::try_from(instruction_id)
        .ok()
        .and_then(|i| record.instructions.get(&i))
}

/// The source of an event the profile has no row of (the Python frame's events with only
/// debug events), found as the Inspector finds an event's debug handles: none where
/// `debug_handle_map` lacks the instruction; an event without a delegate id, its
/// instruction's handles; a delegated one, its delegate's (`delegate_map`: by its id, else
/// an id key held in its id's text), with the backend's name, or without the delegate's
/// entry the instruction's handles.
pub fn source_of_event(
    record: &MethodRecord,
    instruction_id: i32,
    delegate_id: Option<&str>,
) -> Option<RowSource> {
    let own = source_of_instruction(record, instruction_id)?;
    let Some(id) = delegate_id else {
        return Some(own);
    };
    let entry = u32::try_from(instruction_id)
        .ok()
        .and_then(|i| record.delegates.get(&i));
    let Some(entry) = entry else {
        return Some(own);
    };
    // The Inspector takes the last key (in the file's order; here in key order) that its
    // id's text holds.
    let handles = entry.handles_by_id.get(id).or_else(|| {
        let mut held = entry.handles_by_id.iter().rev();
        held.find(|(k, _)| id.contains(k.as_str())).map(|(_, h)| h)
    });
    let mut s = source_of(record, handles.map_or(&[][..], Vec::as_slice), false);
    s.backend = Some(entry.backend.clone());
    Some(s)
}

/// Fill every row's `source` of one method from its ETRecord method.
fn attach_method(m: &mut MethodProfile, record: &MethodRecord) {
    for d in &mut m.delegates {
        let Some(mut own) = source_of_instruction(record, d.instruction_id) else {
            continue;
        };
        let entry = u32::try_from(d.instruction_id)
            .ok()
            .and_then(|i| record.delegates.get(&i));
        own.backend = entry.map(|e| e.backend.clone());
        let mut through = own.clone();
        through.through_delegate = true;
        let op_source = |op: &OperatorStats| -> RowSource {
            match entry.and_then(|e| e.handles_by_id.get(&op.name)) {
                Some(hs) if op.kind != OperatorKind::Kernel || !hs.is_empty() => {
                    source_of(record, hs, false)
                }
                _ => through.clone(),
            }
        };
        for op in &mut d.operators {
            op.source = Some(op_source(op));
        }
        for s in &mut d.steps {
            for op in &mut s.operators {
                op.source = Some(op_source(op));
            }
        }
        for u in &mut d.unattributed {
            u.source = Some(through.clone());
        }
        d.source = Some(own);
    }
    for o in &mut m.other_operators {
        let Some(s) = source_of_instruction(record, o.instruction_id) else {
            continue;
        };
        for k in &mut o.kernels {
            k.source = Some(s.clone());
        }
        o.source = Some(s);
    }
}

/// Gives every row of every method its source and every method its module tree. Returns
/// the findings (groups no ETRecord method was found for, the record's own warnings).
pub fn attach_sources(profile: &mut Profile, record: &EtRecord, file: &str) -> Vec<Finding> {
    let mut findings: Vec<Finding> = record
        .warnings
        .iter()
        .map(|w| Finding::new("etrecord_damaged", format!("ETRecord {file}: {w}")))
        .collect();
    let groups = profile.methods.len();
    for m in &mut profile.methods {
        match record_for(m, record, groups) {
            Some(r) => {
                attach_method(m, r);
                m.modules = module_totals(m, r);
            }
            // A group with no rows (constant methods, which the ETRecord does not hold)
            // misses no source.
            None if m.delegates.is_empty() && m.other_operators.is_empty() => {}
            None => {
                let names: Vec<&str> = record.methods.iter().map(|r| r.name.as_str()).collect();
                let more = match names.len().saturating_sub(3) {
                    0 => String::new(),
                    n => format!(" and {n} more"),
                };
                findings.push(Finding::new(
                    "etrecord_unmatched",
                    format!(
                        "ETRecord {file}: none of its methods ({}{more}) is known to be {}; its rows have no source",
                        names[..names.len().min(3)].join(", "),
                        m.name
                    ),
                ));
            }
        }
    }
    findings
}

/// The top-level fields describe `methods[0]`: copy what naming and sources changed.
pub fn refresh_top_level(profile: &mut Profile) {
    if let Some(first) = profile.methods.first() {
        profile.delegates = first.delegates.clone();
        profile.other_operators = first.other_operators.clone();
        profile.modules = first.modules.clone();
    }
}

/// A row counted in module totals: a delegate call or a kernel.
struct TimedRow<'a> {
    kind: &'static str,
    name: &'a str,
    instruction_id: i32,
    stats: &'a Stats,
    source: &'a RowSource,
}

fn timed_rows(m: &MethodProfile) -> Vec<TimedRow<'_>> {
    let mut rows = Vec::new();
    for d in &m.delegates {
        if let Some(s) = &d.source {
            rows.push(TimedRow {
                kind: "delegate",
                name: "DELEGATE_CALL",
                instruction_id: d.instruction_id,
                stats: &d.call,
                source: s,
            });
        }
    }
    for o in &m.other_operators {
        // OPERATOR_CALL is left out, as the Inspector leaves it out: its kernel is the
        // operator's time without the framework's.
        for k in &o.kernels {
            if let Some(s) = k.source.as_ref().or(o.source.as_ref()) {
                rows.push(TimedRow {
                    kind: "kernel",
                    name: &k.name,
                    instruction_id: o.instruction_id,
                    stats: &k.stats,
                    source: s,
                });
            }
        }
    }
    rows
}

/// The nn.Module tree of a method with inclusive times (see [`ModuleTotal`]), pre-order,
/// children in the order their first node comes in the graph.
pub fn module_totals(m: &MethodProfile, record: &MethodRecord) -> Vec<ModuleTotal> {
    // Every module on any node's stack, with its parent.
    let mut order: Vec<(String, String, Option<String>)> = Vec::new(); // path, type, parent
    let mut seen: HashMap<String, usize> = HashMap::new();
    for n in &record.nodes {
        let mut parent: Option<String> = None;
        for f in &n.module_stack {
            if !seen.contains_key(&f.path) {
                seen.insert(f.path.clone(), order.len());
                order.push((f.path.clone(), f.ty.clone(), parent.clone()));
            }
            parent = Some(f.path.clone());
        }
    }
    if order.is_empty() {
        return Vec::new();
    }
    // Pre-order.
    let mut children: HashMap<Option<&str>, Vec<usize>> = HashMap::new();
    for (i, (_, _, p)) in order.iter().enumerate() {
        children.entry(p.as_deref()).or_default().push(i);
    }
    let mut pre: Vec<(usize, usize, Option<usize>)> = Vec::new(); // order idx, depth, parent pos
    let mut stack: Vec<(usize, usize, Option<usize>)> = children
        .get(&None)
        .map(|v| v.iter().rev().map(|&i| (i, 0, None)).collect())
        .unwrap_or_default();
    let mut visited = vec![false; order.len()];
    while let Some((i, depth, parent)) = stack.pop() {
        if visited[i] {
            continue;
        }
        visited[i] = true;
        let pos = pre.len();
        pre.push((i, depth, parent));
        if let Some(kids) = children.get(&Some(order[i].0.as_str())) {
            for &k in kids.iter().rev() {
                stack.push((k, depth + 1, Some(pos)));
            }
        }
    }
    let method_median = m.method.as_ref().map_or(0.0, |s| s.median());
    let rows = timed_rows(m);
    // The modules each row's nodes lie in (every level of their stacks).
    let node_index: HashMap<&str, &Node> =
        record.nodes.iter().map(|n| (n.name.as_str(), n)).collect();
    let row_modules: Vec<BTreeSet<&str>> = rows
        .iter()
        .map(|r| {
            r.source
                .nodes
                .iter()
                .filter_map(|n| node_index.get(n.as_str()))
                .flat_map(|n| n.module_stack.iter().map(|f| f.path.as_str()))
                .collect()
        })
        .collect();
    pre.iter()
        .map(|&(i, depth, parent)| {
            let (path, ty, _) = &order[i];
            let mut t = ModuleTotal {
                path: path.clone(),
                ty: ty.clone(),
                depth,
                parent,
                median_total: 0.0,
                mean_total: 0.0,
                share: 0.0,
                median_not_attributable: 0.0,
                rows: Vec::new(),
            };
            // The totals are exact sums of the rows' figures (`Stats::median_sum`).
            let mut inside = Vec::new();
            let mut elsewhere = Vec::new();
            for (r, mods) in rows.iter().zip(&row_modules) {
                if !mods.contains(path.as_str()) {
                    continue;
                }
                inside.push(r.stats);
                let placed = r.source.module.as_deref();
                if placed == Some(path.as_str()) {
                    t.rows.push(ModuleRow {
                        kind: r.kind.to_string(),
                        name: r.name.to_string(),
                        instruction_id: r.instruction_id,
                        median: r.stats.median(),
                        mean: r.stats.mean(),
                        spans_children: r.source.modules.len() > 1,
                    });
                } else if placed.is_some_and(|p| p != path.as_str())
                    && !is_below(placed, path, &order, &seen)
                {
                    elsewhere.push(r.stats);
                }
            }
            t.median_total = Stats::median_sum(inside.iter().copied());
            t.mean_total = Stats::mean_sum(&inside);
            t.median_not_attributable = Stats::median_sum(elsewhere.iter().copied());
            if method_median > 0.0 {
                t.share = t.median_total / method_median;
            }
            t
        })
        .collect()
}

/// Whether module `placed` lies strictly below `path`.
fn is_below(
    placed: Option<&str>,
    path: &str,
    order: &[(String, String, Option<String>)],
    seen: &HashMap<String, usize>,
) -> bool {
    let mut at = placed.and_then(|p| seen.get(p)).copied();
    let mut steps = 0;
    while let Some(i) = at {
        let parent = order[i].2.as_deref();
        if parent == Some(path) {
            return true;
        }
        at = parent.and_then(|p| seen.get(p)).copied();
        steps += 1;
        if steps > order.len() {
            break;
        }
    }
    false
}

/// How a modules view orders siblings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModuleSort {
    /// As in the model (the order of their first node in the graph).
    Model,
    /// Largest `median_total` first.
    Median,
    /// Largest `mean_total` first.
    Mean,
    /// By path.
    Path,
}

/// The modules in tree order (every parent before its children, each subtree
/// contiguous) with siblings ordered by `sort`: the rows of a modules view.
pub fn module_order(modules: &[ModuleTotal], sort: ModuleSort) -> Vec<usize> {
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); modules.len()];
    let mut roots = Vec::new();
    for (i, m) in modules.iter().enumerate() {
        match m.parent.filter(|&p| p < i) {
            Some(p) => children[p].push(i),
            None => roots.push(i),
        }
    }
    let by = |list: &mut Vec<usize>| match sort {
        ModuleSort::Model => {}
        ModuleSort::Median => {
            list.sort_by(|&a, &b| modules[b].median_total.total_cmp(&modules[a].median_total))
        }
        ModuleSort::Mean => {
            list.sort_by(|&a, &b| modules[b].mean_total.total_cmp(&modules[a].mean_total))
        }
        ModuleSort::Path => list.sort_by(|&a, &b| modules[a].path.cmp(&modules[b].path)),
    };
    by(&mut roots);
    for c in &mut children {
        by(c);
    }
    let mut out = Vec::with_capacity(modules.len());
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(i) = stack.pop() {
        out.push(i);
        stack.extend(children[i].iter().rev().copied());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etrecord::split_module_stack;

    fn node(name: &str, handle: u64, stack: &str) -> Node {
        Node {
            name: name.into(),
            target: format!("executorch.exir.dialects.edge.ops.aten.{name}.default"),
            debug_handles: vec![handle],
            stack_trace: Some(format!(
                "File \"/x/make.py\", line {handle}, in forward\n    y = f(x)\n  File \"/t/linear.py\", line 9, in forward"
            )),
            module_stack: split_module_stack(stack),
        }
    }

    #[test]
    fn a_delegate_over_two_modules_sits_at_their_common_ancestor() {
        let root = "L__self__,,M";
        let nodes = vec![
            node("linear", 1, &format!("{root};L__self__embed,embed,Linear")),
            node(
                "linear_1",
                2,
                &format!("{root};L__self__l.0,l.0,B;L__self__l.0.fc,l.0.fc,Linear"),
            ),
            node("relu", 3, &format!("{root};L__self__l.0,l.0,B")),
            node("flip", 3, &format!("{root};L__self__l.0,l.0,B")),
        ];
        let rec = MethodRecord::new(
            "forward".into(),
            nodes,
            Default::default(),
            Default::default(),
        );
        let s = source_of(&rec, &[1, 2, 3], false);
        assert_eq!(s.nodes, ["linear", "linear_1", "relu", "flip"]);
        assert_eq!(
            s.op_types,
            [
                "aten.linear.default",
                "aten.linear_1.default",
                "aten.relu.default",
                "aten.flip.default"
            ]
        );
        assert_eq!(s.modules, ["embed", "l.0.fc", "l.0"]);
        assert_eq!(s.module.as_deref(), Some(""));
        assert_eq!(s.source_line.as_deref(), Some("make.py:1 in forward"));
        assert_eq!(s.file_line.as_deref(), Some("/x/make.py:1"));
        let inner = source_of(&rec, &[2, 3], false);
        assert_eq!(inner.module.as_deref(), Some("l.0"));
        // A handle no node carries: handles kept, nothing else known.
        let none = source_of(&rec, &[9], false);
        assert_eq!(none.debug_handles, [9]);
        assert!(none.nodes.is_empty() && none.module.is_none() && none.source_line.is_none());
    }

    #[test]
    fn op_types_past_the_repeats_kept_are_the_inspectors_count_and_last() {
        // The Inspector lists each node of each handle, for every time the instruction's
        // list gives the handle: [1, 3, 3, 3, 3, 3, 3] over nodes 1: linear, 3: relu and
        // flip is 1 + 6 * 2 = 13 entries, the last `flip` (the reader keeps four 3s).
        let nodes = vec![
            node("linear", 1, "L__self__,,M"),
            node("relu", 3, "L__self__,,M"),
            node("flip", 3, "L__self__,,M"),
        ];
        let text = br#"{"forward": {"5": [1, 3, 3, 3, 3, 3, 3], "6": [3, 3, 3, 3, 3, 1]}}"#;
        let hm = crate::etrecord::parse_handle_map(text).unwrap();
        let hm = hm.into_iter().next().unwrap();
        let mut rec = MethodRecord::new("forward".into(), nodes, hm.table, Default::default());
        rec.full = hm.full;
        let s = source_of_instruction(&rec, 5).unwrap();
        assert_eq!(s.op_types.len(), 1 + 4 * 2);
        assert_eq!(
            s.op_types_past_cap,
            Some((4, "aten.flip.default".to_string()))
        );
        // The list's last handle is 1 (a handle given once): the last entry is its node's.
        let s = source_of_instruction(&rec, 6).unwrap();
        assert_eq!(s.op_types.len(), 4 * 2 + 1);
        assert_eq!(
            s.op_types_past_cap,
            Some((2, "aten.linear.default".to_string()))
        );
    }

    #[test]
    fn module_order_keeps_subtrees_together() {
        let m = |path: &str, parent: Option<usize>, median: f64| ModuleTotal {
            path: path.into(),
            ty: String::new(),
            depth: 0,
            parent,
            median_total: median,
            mean_total: median,
            share: 0.0,
            median_not_attributable: 0.0,
            rows: Vec::new(),
        };
        // "" > {a > {a.x, a.y}, b}
        let mods = vec![
            m("", None, 10.0),
            m("a", Some(0), 3.0),
            m("a.x", Some(1), 1.0),
            m("a.y", Some(1), 2.0),
            m("b", Some(0), 5.0),
        ];
        assert_eq!(module_order(&mods, ModuleSort::Model), [0, 1, 2, 3, 4]);
        assert_eq!(module_order(&mods, ModuleSort::Median), [0, 4, 1, 3, 2]);
        assert_eq!(module_order(&mods, ModuleSort::Path), [0, 1, 2, 3, 4]);
    }
}
