//! The flame graph's model (an icicle: the root on top): frames built from the tree the
//! explorer draws (`ExplorerData::nodes`), or from a comparison's rows (the differential
//! graph), each with its time under two weightings. Pure; `flame_layout` places frames
//! into cells, `flame_view` is the view's state and keys, `views::flame::render` draws.
//!
//! Frames are the folded export's frames (`report::folded`): a delegate call is
//! `delegate #I`, a non-delegated instruction with kernels `OPERATOR_CALL #I`, the second
//! row of one name under one parent `name (2)`; the tree's synthesized `(overhead)` and
//! `(remainder)` rows are their parent's self time, which a flame graph shows as the
//! parent's width left uncovered by its children, so they are no frames.

use crate::compare::{Comparison, Verdict};
use crate::profile::efficiency::{self, Cost, OpClass};

/// The flame view's own keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlameCommand {
    /// The frame to the left / right on the same row.
    Left,
    Right,
    /// The widest child / the parent.
    Child,
    Parent,
    /// The selected frame fills the width.
    Zoom,
    /// Median run ↔ sum over kept runs (compare: B ↔ A).
    Weighting,
    /// As recorded (repeated siblings apart) ↔ left-heavy (identical stacks merged).
    Order,
    /// The selected frame's name: its callers above, its callees below (again: back).
    Sandwich,
}

/// What a frame is (its colour or shading).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    /// The root, a method or a thread.
    Root,
    Delegate,
    Step,
    /// An operator of a delegate (XNNPACK).
    Operator,
    /// A portable kernel (`native_call_*`) or an instruction.
    Kernel,
    /// Anything else (unattributed events, trace calls).
    Other,
}

/// What an operator computes, when its name says (colours win over the kind's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpType {
    Gemm,
    Convolution,
    Elementwise,
}

/// A frame of the differential graph: its comparison row.
#[derive(Debug, Clone, PartialEq)]
pub struct Diff {
    pub row: usize,
    pub verdict: Verdict,
    pub delta_pct: Option<f64>,
    pub ci_pct: Option<(f64, f64)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub label: String,
    pub kind: FrameKind,
    pub op_type: Option<OpType>,
    pub parent: Option<u32>,
    /// Children in program order.
    pub children: Vec<u32>,
    /// Time in whole ns under weighting 0 and 1.
    pub values: [u64; 2],
    /// The explorer's tree node (reveal).
    pub node: Option<usize>,
    /// Boxed: most graphs have none, and frames stay small (100k of them are moved).
    pub diff: Option<Box<Diff>>,
    /// FLOPs and bytes of one call, where known.
    pub cost: Option<Cost>,
    pub depth: u32,
    /// The `n` of a repeated sibling's ` (n)` label suffix (0: none).
    pub dup: u32,
}

impl Frame {
    /// The label without the ` (n)` numbering of repeated siblings: what the sandwich and
    /// the left-heavy graph merge frames by.
    pub fn name(&self) -> &str {
        if self.dup == 0 {
            return &self.label;
        }
        let suffix = format!(" ({})", self.dup);
        self.label.strip_suffix(&suffix).unwrap_or(&self.label)
    }
}

/// Where a graph came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlameSource {
    Dump,
    Trace,
    Compare,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FlameTree {
    pub source: FlameSource,
    /// Frame 0 is the root.
    pub frames: Vec<Frame>,
    /// What the widths stand for under each weighting (the title says it).
    pub weightings: [&'static str; 2],
    /// Children of each frame under each weighting, widest first (ties by label): the
    /// order frames are laid out in, so merged narrow frames are always the last ones.
    sorted: [Vec<Vec<u32>>; 2],
}

impl FlameTree {
    /// A graph with no frames yet (`push` adds them, `finish` orders them).
    pub(super) fn empty(source: FlameSource, weightings: [&'static str; 2]) -> FlameTree {
        FlameTree {
            source,
            frames: Vec::new(),
            weightings,
            sorted: [Vec::new(), Vec::new()],
        }
    }
}

/// ms (the explorer's unit) to whole ns.
pub fn ms_to_ns(ms: f64) -> u64 {
    if ms.is_finite() {
        crate::stats::ms_to_ns(ms).max(0) as u64
    } else {
        0
    }
}

/// The type of an operator by its name: XNNPACK and kernel names by the efficiency
/// rules, trace ops (`aten::addmm`, `aten::conv2d`) by their words.
pub fn op_type(name: &str) -> Option<OpType> {
    match efficiency::classify(name) {
        OpClass::Convolution => return Some(OpType::Convolution),
        OpClass::FullyConnected | OpClass::BatchMatMul => return Some(OpType::Gemm),
        OpClass::Unary | OpClass::Binary => return Some(OpType::Elementwise),
        _ => {}
    }
    let lower = name.to_lowercase();
    let op = lower.rsplit("::").next().unwrap_or(&lower);
    if op.contains("conv") {
        Some(OpType::Convolution)
    } else if lower.contains("gemm")
        || op.contains("matmul")
        || op.contains("linear")
        || matches!(op, "mm" | "addmm" | "bmm" | "baddbmm")
    {
        Some(OpType::Gemm)
    } else if matches!(
        op,
        "add"
            | "add_"
            | "mul"
            | "mul_"
            | "sub"
            | "div"
            | "relu"
            | "relu_"
            | "gelu"
            | "sigmoid"
            | "tanh"
            | "neg"
            | "exp"
            | "silu"
            | "hardtanh"
    ) {
        Some(OpType::Elementwise)
    } else {
        None
    }
}

impl FlameTree {
    /// The differential graph of a comparison: weighting 0 is B's median, 1 is A's; each
    /// frame carries its row's verdict, change and interval.
    pub fn from_comparison(c: &Comparison) -> FlameTree {
        let mut t = FlameTree {
            source: FlameSource::Compare,
            frames: Vec::new(),
            weightings: ["B's median", "A's median"],
            sorted: [Vec::new(), Vec::new()],
        };
        // A trace's ops by name are a list beside the call tree, not frames of it.
        let roots: Vec<usize> = (0..c.rows.len())
            .filter(|&i| c.rows[i].parent.is_none() && c.rows[i].kind != crate::rows::RowKind::Op)
            .collect();
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); c.rows.len()];
        for (i, r) in c.rows.iter().enumerate() {
            if let Some(p) = r.parent.filter(|&p| p < c.rows.len() && p != i) {
                children[p].push(i);
            }
        }
        if roots.len() != 1 {
            let trace = roots
                .iter()
                .any(|&r| c.rows[r].kind == crate::rows::RowKind::Node);
            let label = if trace { "all calls" } else { "all methods" };
            t.push(None, label.into(), FrameKind::Root, [0, 0]);
        }
        let mut stack: Vec<(usize, Option<u32>)> = roots
            .iter()
            .rev()
            .map(|&r| (r, t.frames.first().map(|_| 0)))
            .collect();
        while let Some((i, parent)) = stack.pop() {
            let r = &c.rows[i];
            let kind = match r.kind {
                crate::rows::RowKind::Method => FrameKind::Root,
                crate::rows::RowKind::Delegate => FrameKind::Delegate,
                crate::rows::RowKind::Step => FrameKind::Step,
                crate::rows::RowKind::Operator | crate::rows::RowKind::Instruction => {
                    FrameKind::Operator
                }
                crate::rows::RowKind::Kernel => FrameKind::Kernel,
                _ if parent.is_none() => FrameKind::Root,
                _ => FrameKind::Other,
            };
            let med =
                |s: &Option<crate::stats::Stats>| s.as_ref().map_or(0, |s| ms_to_ns(s.median()));
            let f = t.push(parent, r.name.clone(), kind, [med(&r.b), med(&r.a)]);
            let frame = &mut t.frames[f as usize];
            frame.op_type = matches!(
                kind,
                FrameKind::Operator | FrameKind::Kernel | FrameKind::Other
            )
            .then(|| op_type(&r.name))
            .flatten();
            frame.diff = Some(Box::new(Diff {
                row: i,
                verdict: r.verdict,
                delta_pct: r.delta_pct,
                ci_pct: r.ci_pct,
            }));
            // Guard against a parent link pointing back up (a cycle would never end).
            if t.frames[f as usize].depth < 10_000 {
                for &ch in children[i].iter().rev() {
                    stack.push((ch, Some(f)));
                }
            }
        }
        t.finish();
        t
    }

    pub(super) fn push(
        &mut self,
        parent: Option<u32>,
        label: String,
        kind: FrameKind,
        values: [u64; 2],
    ) -> u32 {
        let id = self.frames.len() as u32;
        let depth = parent.map_or(0, |p| self.frames[p as usize].depth + 1);
        if let Some(p) = parent {
            self.frames[p as usize].children.push(id);
        }
        self.frames.push(Frame {
            label,
            kind,
            op_type: None,
            parent,
            children: Vec::new(),
            values,
            node: None,
            diff: None,
            cost: None,
            depth,
            dup: 0,
        });
        id
    }

    /// Number repeated labels among siblings, give a synthetic root its children's sum,
    /// and sort children for layout.
    pub(super) fn finish(&mut self) {
        let mut renames: Vec<(usize, u32)> = Vec::new();
        for f in &self.frames {
            let kids = &f.children;
            let label = |i: usize| self.frames[kids[i] as usize].label.as_str();
            if kids.len() < 2 {
                continue;
            }
            if kids.len() <= 16 {
                // Few children (the usual case): compare them pairwise, no map.
                for (i, &c) in kids.iter().enumerate().skip(1) {
                    let n = (0..i).filter(|&j| label(j) == label(i)).count() as u32;
                    if n > 0 {
                        renames.push((c as usize, n + 1));
                    }
                }
                continue;
            }
            let mut seen: std::collections::HashMap<&str, u32> = Default::default();
            for (i, &c) in kids.iter().enumerate() {
                let n = seen.entry(label(i)).or_insert(0);
                *n += 1;
                if *n > 1 {
                    renames.push((c as usize, *n));
                }
            }
        }
        for (c, n) in renames {
            let label = format!("{} ({n})", self.frames[c].label);
            self.frames[c].label = label;
            self.frames[c].dup = n;
        }
        if let Some(root) = self.frames.first() {
            if root.node.is_none() && root.diff.is_none() {
                let mut sum = [0u64; 2];
                for &c in &root.children {
                    for (w, s) in sum.iter_mut().enumerate() {
                        *s = s.saturating_add(self.frames[c as usize].values[w]);
                    }
                }
                self.frames[0].values = sum;
            }
        }
        // One order when both weightings are the same time (a trace's).
        let same = self.frames.iter().all(|f| f.values[0] == f.values[1]);
        for w in 0..2 {
            if w == 1 && same {
                self.sorted[1] = self.sorted[0].clone();
                break;
            }
            self.sorted[w] = self
                .frames
                .iter()
                .map(|f| {
                    let mut kids = f.children.clone();
                    kids.sort_by(|&a, &b| {
                        let (fa, fb) = (&self.frames[a as usize], &self.frames[b as usize]);
                        fb.values[w]
                            .cmp(&fa.values[w])
                            .then_with(|| fa.label.cmp(&fb.label))
                    });
                    kids
                })
                .collect();
        }
    }

    /// Children of `id` in layout order under weighting `w` (widest first).
    pub fn sorted_children(&self, id: u32, w: usize) -> &[u32] {
        &self.sorted[w.min(1)][id as usize]
    }

    pub fn frame(&self, id: u32) -> &Frame {
        &self.frames[id as usize]
    }

    /// Names from the root to `id` (the root first).
    pub fn path(&self, id: u32) -> Vec<u32> {
        let mut out = vec![id];
        let mut at = self.frames[id as usize].parent;
        while let Some(p) = at {
            out.push(p);
            at = self.frames[p as usize].parent;
        }
        out.reverse();
        out
    }

    /// Whether `a` is `b` or one of its ancestors.
    pub fn is_ancestor(&self, a: u32, b: u32) -> bool {
        let mut at = Some(b);
        while let Some(x) = at {
            if x == a {
                return true;
            }
            at = self.frames[x as usize].parent;
        }
        false
    }
}

#[cfg(test)]
mod tests;
