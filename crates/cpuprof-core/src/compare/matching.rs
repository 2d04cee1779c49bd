//! Pairing the rows of two row trees.
//!
//! Level by level, under each matched parent:
//! 1. by identity: delegates by instruction id, every other row by kind and name (the
//!    n-th `foo` with the n-th `foo` when a name repeats among siblings). Plan steps,
//!    XNNPACK operators (`Conv #3`), kernels, trace ops and call-tree nodes (whose path is
//!    their parent's path plus their name) all match this way.
//! 2. the rest by what they are, in order: methods by signature (what they call, their
//!    bundled input) when their names differ, then in order; delegates by kind (CpuBackend, XNNPACK) when
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
    rematch_within_delegates(a, b, out)
}

/// Operators and kernels are identified by name within their delegate, whatever step
/// holds them: when two plans cut a delegate into different steps, the steps are added
/// and removed but their operators still pair. A removed operator takes its partner from
/// the added operators under the same matched delegate (by name, then type + shapes, in
/// order); the pair stays at A's place and B's added row goes.
fn rematch_within_delegates(a: &RowTree, b: &RowTree, mut pairs: Vec<Pair>) -> Vec<Pair> {
    let movable = |p: &Pair, t: &RowTree, i: usize| {
        matches!(
            t.rows[i].kind,
            RowKind::Operator | RowKind::Instruction | RowKind::Kernel
        ) && t.rows[i].children.is_empty()
            && p.parent.is_some()
    };
    // The matched delegate pair above pair `i`, if any.
    let delegate_of = |pairs: &[Pair], mut i: usize| -> Option<usize> {
        while let Some(p) = pairs[i].parent {
            let q = &pairs[p];
            if let (Some(x), Some(_)) = (q.a, q.b) {
                if a.rows[x].kind == RowKind::Delegate {
                    return Some(p);
                }
            }
            i = p;
        }
        None
    };
    type Groups = HashMap<usize, Vec<usize>>;
    let (mut removed, mut added): (Groups, Groups) = (HashMap::new(), HashMap::new());
    for (i, p) in pairs.iter().enumerate() {
        match (p.a, p.b) {
            (Some(x), None) if movable(p, a, x) => {
                if let Some(d) = delegate_of(&pairs, i) {
                    removed.entry(d).or_default().push(i);
                }
            }
            (None, Some(y)) if movable(p, b, y) => {
                if let Some(d) = delegate_of(&pairs, i) {
                    added.entry(d).or_default().push(i);
                }
            }
            _ => {}
        }
    }
    let mut gone = vec![false; pairs.len()];
    for (d, rem) in &removed {
        let Some(add) = added.get(d) else { continue };
        let mut free: Vec<bool> = vec![true; add.len()];
        for key in [identity as fn(&Row) -> String, |r: &Row| {
            fallback(r).unwrap_or_default()
        }] {
            for &ri in rem {
                if pairs[ri].b.is_some() {
                    continue;
                }
                let ra = &a.rows[pairs[ri].a.unwrap_or_default()];
                let ka = key(ra);
                if ka.is_empty() {
                    continue;
                }
                let hit = add.iter().enumerate().position(|(j, &bi)| {
                    let rb = &b.rows[pairs[bi].b.unwrap_or_default()];
                    free[j] && rb.kind == ra.kind && key(rb) == ka
                });
                if let Some(j) = hit {
                    free[j] = false;
                    pairs[ri].b = pairs[add[j]].b;
                    gone[add[j]] = true;
                }
            }
        }
    }
    if !gone.iter().any(|&g| g) {
        return pairs;
    }
    // Drop the absorbed rows and renumber parents.
    let mut new_index = vec![usize::MAX; pairs.len()];
    let mut out = Vec::with_capacity(pairs.len());
    for (i, p) in pairs.iter().enumerate() {
        if gone[i] {
            continue;
        }
        new_index[i] = out.len();
        out.push(Pair {
            parent: p.parent.map(|q| new_index[q]),
            ..*p
        });
    }
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
    // Self-time rows are derived from their parent and siblings: only measured rows pair.
    let measured = |t: &RowTree, ids: &[usize]| -> Vec<usize> {
        ids.iter()
            .copied()
            .filter(|&i| t.rows[i].kind != RowKind::Overhead)
            .collect()
    };
    let (a_ids, b_ids) = (&measured(ta, a_ids)[..], &measured(tb, b_ids)[..]);
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

    // Stage 3: methods still without a partner pair in order (one program's methods
    // under other names, whose calls changed).
    let mut free_methods: Vec<usize> = (0..b_ids.len())
        .filter(|&j| !b_taken[j] && tb.rows[b_ids[j]].kind == RowKind::Method)
        .rev()
        .collect();
    for (i, &id) in a_ids.iter().enumerate() {
        if partner_of_a[i].is_none() && ta.rows[id].kind == RowKind::Method {
            if let Some(j) = free_methods.pop() {
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
        // Methods by signature (what they call, their bundled input); delegates by kind.
        RowKind::Method | RowKind::Delegate => r.group.clone(),
        RowKind::Operator => r
            .group
            .as_ref()
            .map(|ty| format!("{ty}\u{1}{:?}\u{1}{:?}", r.input_shapes, r.output_shapes)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rows::{Row, RowTree, TreeSource};
    use crate::stats::Stats;

    /// (parent index, kind, name, instruction id, group, input shapes)
    type Spec<'a> = (
        Option<usize>,
        RowKind,
        &'a str,
        Option<i32>,
        Option<&'a str>,
        Option<Vec<Vec<i64>>>,
    );

    fn tree(spec: &[Spec]) -> RowTree {
        let mut t = RowTree {
            source_kind: TreeSource::Dump,
            source: "t".into(),
            runs: 1,
            rows: Vec::new(),
            roots: Vec::new(),
        };
        for (i, (parent, kind, name, iid, group, shapes)) in spec.iter().enumerate() {
            t.rows.push(Row {
                kind: *kind,
                name: name.to_string(),
                instruction_id: *iid,
                group: group.map(str::to_string),
                facts: Default::default(),
                share: None,
                source: None,
                input_shapes: shapes.clone(),
                output_shapes: None,
                flops: None,
                bytes: None,
                module: None,
                source_line: None,
                stats: Stats::from_ms(&[1.0]),
                parent: *parent,
                children: Vec::new(),
                depth: 0,
            });
            match parent {
                Some(p) => t.rows[*p].children.push(i),
                None => t.roots.push(i),
            }
        }
        t
    }

    fn names(t: &RowTree, i: Option<usize>) -> Option<&str> {
        i.map(|i| t.rows[i].name.as_str())
    }

    #[test]
    fn delegates_by_instruction_then_by_kind_and_order() {
        use RowKind::*;
        // A: delegates at instructions 0 (xnnpack) and 2 (cpu_plan);
        // B: the program gained an instruction: 0 (xnnpack) and 3 (cpu_plan).
        let a = tree(&[
            (None, Method, "Method::execute", None, None, None),
            (
                Some(0),
                Delegate,
                "delegate #0",
                Some(0),
                Some("xnnpack"),
                None,
            ),
            (
                Some(0),
                Delegate,
                "delegate #2",
                Some(2),
                Some("cpu_plan"),
                None,
            ),
        ]);
        let b = tree(&[
            (None, Method, "Method::execute", None, None, None),
            (
                Some(0),
                Delegate,
                "delegate #0",
                Some(0),
                Some("xnnpack"),
                None,
            ),
            (Some(0), Operator, "native_call_x", Some(1), None, None),
            (
                Some(0),
                Delegate,
                "delegate #3",
                Some(3),
                Some("cpu_plan"),
                None,
            ),
        ]);
        let pairs = match_trees(&a, &b);
        let got: Vec<_> = pairs
            .iter()
            .map(|p| (names(&a, p.a), names(&b, p.b)))
            .collect();
        assert_eq!(
            got,
            vec![
                (Some("Method::execute"), Some("Method::execute")),
                (Some("delegate #0"), Some("delegate #0")),
                (Some("delegate #2"), Some("delegate #3")),
                (None, Some("native_call_x")),
            ]
        );
        assert_eq!(pairs[3].depth, 1);
        assert_eq!(pairs[3].parent, Some(0));
    }

    #[test]
    fn operators_by_name_then_type_shapes_and_order() {
        use RowKind::*;
        let conv = Some("Conv");
        let s1 = Some(vec![vec![1, 8]]);
        let s2 = Some(vec![vec![1, 16]]);
        // B lost `Add #1` and its convolutions are numbered differently: `Conv #1` keeps
        // its name (names identify XNNPACK events first); A's `Conv #5` has no namesake
        // in B and pairs with the first free convolution of the same shapes (`Conv #4`);
        // B's `Conv #6` is left over (added).
        let a = tree(&[
            (None, Step, "step", Some(0), None, None),
            (Some(0), Operator, "Conv #1", Some(0), conv, s1.clone()),
            (
                Some(0),
                Operator,
                "Add #1",
                Some(0),
                Some("Add"),
                s1.clone(),
            ),
            (Some(0), Operator, "Conv #5", Some(0), conv, s2.clone()),
            (Some(0), Kernel, "native_call_a", Some(0), None, None),
            (Some(0), Kernel, "native_call_a", Some(0), None, None),
        ]);
        let b = tree(&[
            (None, Step, "step", Some(0), None, None),
            (Some(0), Operator, "Conv #1", Some(0), conv, s1.clone()),
            (Some(0), Operator, "Conv #4", Some(0), conv, s2.clone()),
            (Some(0), Operator, "Conv #6", Some(0), conv, s1.clone()),
            (Some(0), Kernel, "native_call_a", Some(0), None, None),
            (Some(0), Kernel, "native_call_a", Some(0), None, None),
        ]);
        let pairs = match_trees(&a, &b);
        let got: Vec<_> = pairs
            .iter()
            .map(|p| (names(&a, p.a), names(&b, p.b)))
            .collect();
        assert_eq!(
            got,
            vec![
                (Some("step"), Some("step")),
                (Some("Conv #1"), Some("Conv #1")),
                (Some("Add #1"), None),
                // Numbering shifted: same type and shapes, in order.
                (Some("Conv #5"), Some("Conv #4")),
                (Some("native_call_a"), Some("native_call_a")),
                (Some("native_call_a"), Some("native_call_a")),
                (None, Some("Conv #6")),
            ]
        );
        // Repeated names pair in order (first with first).
        assert_eq!(pairs[4].a, Some(4));
        assert_eq!(pairs[4].b, Some(4));
        assert_eq!(pairs[5].a, Some(5));
        assert_eq!(pairs[5].b, Some(5));
    }

    #[test]
    fn operators_pair_across_re_cut_steps_of_one_delegate() {
        use RowKind::*;
        let conv = Some("Conv");
        let a = tree(&[
            (
                None,
                Delegate,
                "delegate #0",
                Some(0),
                Some("xnnpack"),
                None,
            ),
            (
                Some(0),
                Step,
                "XNNPACK/subgraph:conv_1+2",
                Some(0),
                None,
                None,
            ),
            (Some(1), Operator, "Conv #1", Some(0), conv, None),
            (Some(1), Operator, "Add #1", Some(0), Some("Add"), None),
            (
                Some(0),
                Step,
                "XNNPACK/subgraph:mul_3+1",
                Some(0),
                None,
                None,
            ),
            (
                Some(4),
                Operator,
                "Multiply #1",
                Some(0),
                Some("Multiply"),
                None,
            ),
        ]);
        let b = tree(&[
            (
                None,
                Delegate,
                "delegate #0",
                Some(0),
                Some("xnnpack"),
                None,
            ),
            (
                Some(0),
                Step,
                "XNNPACK/subgraph:conv_1+3",
                Some(0),
                None,
                None,
            ),
            (Some(1), Operator, "Conv #1", Some(0), conv, None),
            (Some(1), Operator, "Add #1", Some(0), Some("Add"), None),
            (
                Some(1),
                Operator,
                "Multiply #1",
                Some(0),
                Some("Multiply"),
                None,
            ),
        ]);
        let pairs = match_trees(&a, &b);
        let got: Vec<_> = pairs
            .iter()
            .map(|p| (names(&a, p.a), names(&b, p.b)))
            .collect();
        assert_eq!(
            got,
            vec![
                (Some("delegate #0"), Some("delegate #0")),
                (Some("XNNPACK/subgraph:conv_1+2"), None),
                (Some("Conv #1"), Some("Conv #1")),
                (Some("Add #1"), Some("Add #1")),
                (Some("XNNPACK/subgraph:mul_3+1"), None),
                (Some("Multiply #1"), Some("Multiply #1")),
                (None, Some("XNNPACK/subgraph:conv_1+3")),
            ]
        );
        // Parents renumbered after B's absorbed rows went.
        assert_eq!(pairs[5].parent, Some(4));
        assert_eq!(pairs[6].parent, Some(0));
    }

    #[test]
    fn kinds_never_cross() {
        use RowKind::*;
        let a = tree(&[(None, Op, "aten::mm", None, None, None)]);
        let b = tree(&[(None, Node, "aten::mm", None, None, None)]);
        let pairs = match_trees(&a, &b);
        assert_eq!(pairs.len(), 2);
        assert!(pairs.iter().all(|p| p.a.is_none() || p.b.is_none()));
    }
}
