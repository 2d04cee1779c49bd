//! Graphs made from a flame graph by merging frames of one name (pure):
//! - **left-heavy**: identical stacks merged, instances alike (siblings of one name are
//!   one frame, their times summed; a name's instance number does not count:
//!   `OPERATOR_CALL #3` and `#7` are one `OPERATOR_CALL`, `GEMM #1` and `#2` one `GEMM`,
//!   `thread 12` and `thread 13` one `thread`), laid out widest first as every graph is;
//! - **sandwich**: for one name, its callers above and its callees below, each merged
//!   across the whole graph, with the name's total and self time (speedscope's sandwich
//!   view, here for a terminal).
//!
//! A frame's name is its label without the `(n)` numbering of repeated siblings
//! (`Frame::name`). A frame inside another of the same name (recursion) counts once, in
//! its outermost one: totals never add a time twice.

use std::collections::HashMap;

use super::model::{FlameSource, FlameTree, Frame};

/// A graph being merged: a child per (parent, name), the name given by `key`.
struct Merger {
    tree: FlameTree,
    index: HashMap<(u32, String), u32>,
    /// How many source frames each merged frame stands for.
    count: Vec<u32>,
    key: fn(&Frame) -> String,
}

/// A frame's name without its instance number: ` #<digits>` at the end, or the id of a
/// `thread <digits>`.
pub fn instance_free(f: &Frame) -> String {
    instance_free_name(f.name())
}

/// `name` without its instance number (as `instance_free`).
pub fn instance_free_name(name: &str) -> String {
    if let Some(rest) = name.strip_prefix("thread ") {
        if !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()) {
            return "thread".to_string();
        }
    }
    match name.rsplit_once(" #") {
        Some((head, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            head.to_string()
        }
        _ => name.to_string(),
    }
}

fn exact(f: &Frame) -> String {
    f.name().to_string()
}

impl Merger {
    fn new(
        source: FlameSource,
        weightings: [&'static str; 2],
        root: &Frame,
        values: [u64; 2],
        key: fn(&Frame) -> String,
    ) -> Merger {
        let mut tree = FlameTree::empty(source, weightings);
        let r = tree.push(None, key(root), root.kind, values);
        copy_facts(&mut tree.frames[r as usize], root);
        Merger {
            tree,
            index: HashMap::new(),
            count: vec![1],
            key,
        }
    }

    /// The child of `parent` named as `src` (made on first use), `values` added.
    fn add(&mut self, parent: u32, src: &Frame, values: [u64; 2]) -> u32 {
        let key = (parent, (self.key)(src));
        let id = match self.index.get(&key) {
            Some(&id) => {
                let f = &mut self.tree.frames[id as usize];
                // Several frames merged: no one verdict, node or per-call cost is theirs.
                f.diff = None;
                f.node = None;
                f.cost = None;
                self.count[id as usize] += 1;
                id
            }
            None => {
                let id = self
                    .tree
                    .push(Some(parent), key.1.clone(), src.kind, [0, 0]);
                copy_facts(&mut self.tree.frames[id as usize], src);
                self.index.insert(key, id);
                self.count.push(1);
                id
            }
        };
        let f = &mut self.tree.frames[id as usize];
        for (have, add) in f.values.iter_mut().zip(values) {
            *have = have.saturating_add(add);
        }
        id
    }

    /// The merged graph, ordered for layout; its root keeps the time it was made with
    /// (`FlameTree::finish` would give a root of no node its children's sum).
    fn finish(mut self) -> FlameTree {
        let root = self.tree.frames[0].values;
        self.tree.finish();
        self.tree.frames[0].values = root;
        self.tree
    }
}

fn copy_facts(to: &mut Frame, from: &Frame) {
    to.op_type = from.op_type;
    to.node = from.node;
    to.diff = from.diff.clone();
    to.cost = from.cost;
}

/// One name's sandwich: its callers (the name at the root, its callers below it: drawn
/// upwards) and its callees (the name at the root, what it calls below it), with what
/// the name's frames add up to.
#[derive(Debug, Clone, PartialEq)]
pub struct Sandwich {
    pub name: String,
    pub callers: FlameTree,
    pub callees: FlameTree,
    /// Under each weighting: the time of the name's outermost frames, and its self time
    /// (each frame's time less its children's, over every frame of the name).
    pub total: [u64; 2],
    pub self_time: [u64; 2],
    /// How many frames bear the name.
    pub frames: usize,
}

impl FlameTree {
    /// Identical stacks merged: the children of one name under one merged parent are one
    /// frame with their times summed.
    pub fn left_heavy(&self) -> FlameTree {
        let Some(root) = self.frames.first() else {
            return self.clone();
        };
        let mut m = Merger::new(
            self.source,
            self.weightings,
            root,
            root.values,
            instance_free,
        );
        // Frames are stored parents first.
        let mut map = vec![0u32; self.frames.len()];
        for (i, f) in self.frames.iter().enumerate().skip(1) {
            let parent = f.parent.map_or(0, |p| map[p as usize]);
            map[i] = m.add(parent, f, f.values);
        }
        m.finish()
    }

    /// The sandwich of `name` (None when no frame bears it).
    pub fn sandwich(&self, name: &str) -> Option<Sandwich> {
        let n = self.frames.len();
        let mut inside = vec![false; n];
        let mut outermost = Vec::new();
        let (mut total, mut self_time, mut frames) = ([0u64; 2], [0u64; 2], 0usize);
        for (i, f) in self.frames.iter().enumerate() {
            let under = f.parent.is_some_and(|p| inside[p as usize]);
            let hit = f.name() == name;
            inside[i] = hit || under;
            if !hit {
                continue;
            }
            frames += 1;
            for (w, own) in self_time.iter_mut().enumerate() {
                let kids = f.children.iter().fold(0u64, |a, &c| {
                    a.saturating_add(self.frames[c as usize].values[w])
                });
                *own = own.saturating_add(f.values[w].saturating_sub(kids));
            }
            if !under {
                outermost.push(i as u32);
                for (w, t) in total.iter_mut().enumerate() {
                    *t = t.saturating_add(f.values[w]);
                }
            }
        }
        let first = &self.frames[*outermost.first()? as usize];
        let weightings = self.weightings;
        // Callees: each outermost frame's subtree, merged under the name.
        let mut below = Merger::new(self.source, weightings, first, total, exact);
        for &o in &outermost {
            let mut stack: Vec<(u32, u32)> = self.frames[o as usize]
                .children
                .iter()
                .map(|&c| (c, 0))
                .collect();
            while let Some((f, parent)) = stack.pop() {
                let fr = &self.frames[f as usize];
                let id = below.add(parent, fr, fr.values);
                stack.extend(fr.children.iter().map(|&c| (c, id)));
            }
        }
        // Callers: each outermost frame's ancestors, nearest first, carrying its time.
        let mut above = Merger::new(self.source, weightings, first, total, exact);
        for &o in &outermost {
            let values = self.frames[o as usize].values;
            let mut at = 0u32;
            let mut up = self.frames[o as usize].parent;
            while let Some(p) = up {
                let fr = &self.frames[p as usize];
                at = above.add(at, fr, values);
                up = fr.parent;
            }
        }
        let (mut callers, mut callees) = (above.finish(), below.finish());
        // The root frame stands for every frame of the name: no single node or verdict.
        for t in [&mut callers, &mut callees] {
            if outermost.len() > 1 {
                let r = &mut t.frames[0];
                r.node = None;
                r.diff = None;
                r.cost = None;
            }
        }
        Some(Sandwich {
            name: name.to_string(),
            callers,
            callees,
            total,
            self_time,
            frames,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::{FlameSource, FlameTree, FrameKind};

    /// main 100 → { a 60 → { b 30, c 20 }, b 30 → { c 10 }, a 5 → { b 5 } }: the second
    /// `a` is labelled `a (2)`. Every expected value below is added up by hand.
    fn tree() -> FlameTree {
        let mut t = FlameTree::empty(FlameSource::Trace, ["t", "t"]);
        let k = FrameKind::Other;
        let main = t.push(None, "main".into(), FrameKind::Root, [100, 100]);
        // A tree node: the root keeps its own time (100, not its children's 95).
        t.frames[0].node = Some(0);
        let a = t.push(Some(main), "a".into(), k, [60, 60]);
        t.push(Some(a), "b".into(), k, [30, 30]);
        t.push(Some(a), "c".into(), k, [20, 20]);
        let b = t.push(Some(main), "b".into(), k, [30, 30]);
        t.push(Some(b), "c".into(), k, [10, 10]);
        let a2 = t.push(Some(main), "a".into(), k, [5, 5]);
        t.push(Some(a2), "b".into(), k, [5, 5]);
        t.finish();
        t
    }

    fn child(t: &FlameTree, of: u32, name: &str) -> u32 {
        *t.frames[of as usize]
            .children
            .iter()
            .find(|&&c| t.frames[c as usize].label == name)
            .unwrap_or_else(|| panic!("{name} under frame {of}"))
    }

    fn value(t: &FlameTree, path: &[&str]) -> u64 {
        let mut at = 0;
        for name in path {
            at = child(t, at, name);
        }
        t.frames[at as usize].values[0]
    }

    #[test]
    fn repeated_siblings_keep_their_name() {
        let t = tree();
        assert_eq!(t.frames[6].label, "a (2)");
        assert_eq!(t.frames[6].name(), "a");
        assert_eq!(t.frames[1].name(), "a");
    }

    #[test]
    fn left_heavy_merges_identical_stacks() {
        let t = tree().left_heavy();
        assert_eq!(t.frames[0].values, [100, 100]);
        assert_eq!(t.frames[0].children.len(), 2, "a and b under main");
        assert_eq!(value(&t, &["a"]), 65);
        assert_eq!(value(&t, &["a", "b"]), 35);
        assert_eq!(value(&t, &["a", "c"]), 20);
        assert_eq!(value(&t, &["b"]), 30);
        assert_eq!(value(&t, &["b", "c"]), 10);
        assert_eq!(t.frames.len(), 6);
        // Widest first.
        assert_eq!(t.frames[t.sorted_children(0, 0)[0] as usize].label, "a");
    }

    #[test]
    fn left_heavy_merges_instances_of_a_name() {
        let mut t = FlameTree::empty(FlameSource::Dump, ["m", "s"]);
        let root = t.push(None, "Method::execute".into(), FrameKind::Root, [20, 20]);
        t.frames[0].node = Some(0);
        for (i, v) in [(1, 4), (3, 6), (7, 5)] {
            let call = t.push(
                Some(root),
                format!("OPERATOR_CALL #{i}"),
                FrameKind::Kernel,
                [v, v],
            );
            t.push(
                Some(call),
                "native_call_add.out".into(),
                FrameKind::Kernel,
                [v - 1, v - 1],
            );
        }
        t.push(Some(root), "GEMM #12".into(), FrameKind::Operator, [2, 2]);
        t.push(Some(root), "GEMM #2".into(), FrameKind::Operator, [3, 3]);
        t.push(Some(root), "conv #a".into(), FrameKind::Operator, [1, 1]);
        t.finish();
        let l = t.left_heavy();
        assert_eq!(value(&l, &["OPERATOR_CALL"]), 15);
        assert_eq!(value(&l, &["OPERATOR_CALL", "native_call_add.out"]), 12);
        assert_eq!(value(&l, &["GEMM"]), 5);
        assert_eq!(value(&l, &["conv #a"]), 1, "not a number: kept");
        assert_eq!(l.frames.len(), 5);
    }

    #[test]
    fn sandwich_of_a_name_called_from_three_places() {
        let s = tree().sandwich("b").unwrap();
        assert_eq!(s.frames, 3);
        assert_eq!(s.total, [65, 65]);
        assert_eq!(s.self_time, [55, 55], "30 + (30 - 10) + 5");
        assert_eq!(s.callees.frames[0].values[0], 65);
        assert_eq!(value(&s.callees, &["c"]), 10);
        assert_eq!(s.callees.frames.len(), 2);
        // Callers, nearest first: a (30 + 5) called by main, and main itself (30).
        assert_eq!(value(&s.callers, &["a"]), 35);
        assert_eq!(value(&s.callers, &["a", "main"]), 35);
        assert_eq!(value(&s.callers, &["main"]), 30);
        assert_eq!(s.callers.frames.len(), 4);
        assert!(tree().sandwich("nothing").is_none());
    }

    #[test]
    fn recursion_counts_the_outermost_frame_once() {
        let mut t = FlameTree::empty(FlameSource::Trace, ["t", "t"]);
        let r = t.push(None, "r".into(), FrameKind::Root, [10, 10]);
        let x = t.push(Some(r), "x".into(), FrameKind::Other, [10, 10]);
        let x2 = t.push(Some(x), "x".into(), FrameKind::Other, [6, 6]);
        t.push(Some(x2), "y".into(), FrameKind::Other, [2, 2]);
        t.finish();
        let s = t.sandwich("x").unwrap();
        assert_eq!(s.total, [10, 10]);
        assert_eq!(s.self_time, [8, 8], "(10 - 6) + (6 - 2)");
        assert_eq!(s.frames, 2);
        assert_eq!(value(&s.callees, &["x", "y"]), 2);
        assert_eq!(value(&s.callers, &["r"]), 10);
    }
}
