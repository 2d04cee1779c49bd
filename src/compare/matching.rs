//! Pairing the rows of two row trees.
//!
//! Level by level, under each matched parent:
//! 1. by identity: delegates by instruction id, every other row by kind and name (the
//!    n-th `foo` with the n-th `foo` when a name repeats among siblings). Plan steps,
//!    XNNPACK operators (`Conv #3`), kernels, trace ops and call-tree nodes (whose path is
//!    their parent's path plus their name) all match this way.
//! 2. the rest by what they are, in order: delegates by kind (CpuBackend, XNNPACK) when
//!    the programs differ; XNNPACK operators by operator type and shapes when the `#n`
//!    numbering shifted (an operator added or removed earlier in the delegate).
//!
//! What has no partner is added (only in B) or removed (only in A).

use std::collections::HashMap;

use crate::rows::{Row, RowKind, RowTree};

/// One row of the comparison: its A row, its B row, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    pub a: Option<usize>,
    pub b: Option<usize>,
    pub depth: usize,
    /// Index of the parent pair in the output list.
    pub parent: Option<usize>,
}

/// All pairs in pre-order: A's order, B-only rows after their matched siblings.
pub fn match_trees(a: &RowTree, b: &RowTree) -> Vec<Pair> {
    let mut out = Vec::new();
    match_level(a, b, &a.roots, &b.roots, 0, None, &mut out);
    out
}

fn match_level(
    ta: &RowTree,
    tb: &RowTree,
    a_ids: &[usize],
    b_ids: &[usize],
    depth: usize,
    parent: Option<usize>,
    out: &mut Vec<Pair>,
) {
    let mut partner_of_a: Vec<Option<usize>> = vec![None; a_ids.len()];
    let mut b_taken = vec![false; b_ids.len()];

    // Stage 1: identity keys with occurrence numbers.
    let mut b_by_key: HashMap<(RowKind, String, usize), usize> = HashMap::new();
    let mut seen: HashMap<(RowKind, String), usize> = HashMap::new();
    for (j, &id) in b_ids.iter().enumerate() {
        let r = &tb.rows[id];
        let k = identity(r);
        let n = seen.entry((r.kind, k.clone())).or_insert(0);
        b_by_key.insert((r.kind, k, *n), j);
        *n += 1;
    }
    seen.clear();
    for (i, &id) in a_ids.iter().enumerate() {
        let r = &ta.rows[id];
        let k = identity(r);
        let n = seen.entry((r.kind, k.clone())).or_insert(0);
        if let Some(&j) = b_by_key.get(&(r.kind, k, *n)) {
            partner_of_a[i] = Some(j);
            b_taken[j] = true;
        }
        *n += 1;
    }

    // Stage 2: what the row is, in order, among the rows still without a partner.
    let mut free_b: HashMap<(RowKind, String), Vec<usize>> = HashMap::new();
    for (j, &id) in b_ids.iter().enumerate() {
        if !b_taken[j] {
            if let Some(k) = fallback(&tb.rows[id]) {
                free_b.entry((tb.rows[id].kind, k)).or_default().push(j);
            }
        }
    }
    for lst in free_b.values_mut() {
        lst.reverse(); // pop() takes them in order
    }
    for (i, &id) in a_ids.iter().enumerate() {
        if partner_of_a[i].is_some() {
            continue;
        }
        if let Some(k) = fallback(&ta.rows[id]) {
            if let Some(j) = free_b.get_mut(&(ta.rows[id].kind, k)).and_then(|l| l.pop()) {
                partner_of_a[i] = Some(j);
                b_taken[j] = true;
            }
        }
    }

    for (i, &ida) in a_ids.iter().enumerate() {
        let idb = partner_of_a[i].map(|j| b_ids[j]);
        push_pair(ta, tb, Some(ida), idb, depth, parent, out);
    }
    for (j, &idb) in b_ids.iter().enumerate() {
        if !b_taken[j] {
            push_pair(ta, tb, None, Some(idb), depth, parent, out);
        }
    }
}

fn push_pair(
    ta: &RowTree,
    tb: &RowTree,
    a: Option<usize>,
    b: Option<usize>,
    depth: usize,
    parent: Option<usize>,
    out: &mut Vec<Pair>,
) {
    let me = out.len();
    out.push(Pair {
        a,
        b,
        depth,
        parent,
    });
    let empty: &[usize] = &[];
    let ca = a.map_or(empty, |i| &ta.rows[i].children);
    let cb = b.map_or(empty, |i| &tb.rows[i].children);
    match_level(ta, tb, ca, cb, depth + 1, Some(me), out);
}

fn identity(r: &Row) -> String {
    match (r.kind, r.instruction_id) {
        (RowKind::Delegate, Some(id)) => format!("instruction {id}"),
        _ => r.name.clone(),
    }
}

fn fallback(r: &Row) -> Option<String> {
    match r.kind {
        RowKind::Delegate => r.group.clone(),
        RowKind::Operator => r
            .group
            .as_ref()
            .map(|ty| format!("{ty}\u{1}{:?}\u{1}{:?}", r.input_shapes, r.output_shapes)),
        _ => None,
    }
}
