//! The trace model: per-op rows (calls, inclusive and self time, statistics, inputs),
//! threads, unterminated entries, warnings, and a call tree per thread aggregated by
//! name path. Built from any reader's [`IntervalSet`].

use std::sync::Arc;

use crate::profile::Stats;

use super::detect::TraceFormat;
use super::intervals::{FastMap, ImportCounts, IntervalSet, ThreadKey, TraceWarning, Unterminated};

/// torch.profiler's step annotations (`ProfilerStep#2`, ...) and the one key
/// `key_averages()` gives them.
pub const PROFILER_STEP_PREFIX: &str = "ProfilerStep#";
pub const PROFILER_STEP_KEY: &str = "ProfilerStep*";

#[derive(Debug, Clone, PartialEq)]
pub struct TraceProfile {
    /// Path or name given to the loader.
    pub trace: String,
    pub format: TraceFormat,
    /// Sorted by inclusive total (descending), then name: the tally order.
    pub ops: Vec<TraceOp>,
    pub threads: Vec<TraceThread>,
    pub unterminated: Vec<Unterminated>,
    pub warnings: Vec<TraceWarning>,
    /// One per thread, in `threads` order.
    pub call_trees: Vec<CallTree>,
    pub counts: ImportCounts,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TraceOp {
    /// Shared with the call tree's nodes of the same name (a name is held once).
    pub name: Arc<str>,
    /// All calls, failed ones included.
    pub calls: u64,
    /// Failed calls (exit without entry): duration 0, not in `stats`/min/max.
    pub errors: u64,
    /// Every successful call's whole duration, a call nested in a call of the same op
    /// included (as `key_averages()` and iprof count).
    pub inclusive_total_ns: i64,
    /// Recursion-free inclusive time: calls nested (at any depth) in a call of the same op
    /// add nothing, their time being inside the outer call's (the op's own wall time).
    pub inclusive_outer_total_ns: i64,
    /// Inclusive minus the inclusive time of direct children on the same thread.
    pub self_total_ns: i64,
    /// Over successful calls; None when every call failed.
    pub min_ns: Option<i64>,
    pub max_ns: Option<i64>,
    /// Over each successful call's inclusive duration in ms; `samples` are in call order
    /// (start time), i.e. the per-call sparkline.
    pub stats: Stats,
    /// Distinct input shape lists, first-seen order; None when the source has none.
    pub input_shapes: Option<Vec<Vec<Vec<i64>>>>,
    /// Distinct input dtype lists, first-seen order; None when the source has none.
    pub dtypes: Option<Vec<Vec<String>>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceThread {
    pub key: ThreadKey,
    pub calls: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CallTree {
    pub thread: ThreadKey,
    /// Top-level calls aggregated by name, first-seen order.
    pub roots: Vec<CallNode>,
}

/// All calls reached by the same name path from the thread's root.
#[derive(Debug, Clone, PartialEq)]
pub struct CallNode {
    /// Shared with the op row and the other nodes of the same name.
    pub name: Arc<str>,
    pub calls: u64,
    pub errors: u64,
    pub inclusive_ns: i64,
    pub self_ns: i64,
    /// Inclusive duration of each successful call on this path, in ns (interval order,
    /// parents before children), for the explorer's statistics and histogram.
    pub samples_ns: Vec<i64>,
    /// First-seen order.
    pub children: Vec<CallNode>,
}

#[derive(Default)]
struct OpAcc {
    /// The signature of the op's last call with one (already in `sigs`).
    last_sig: Option<u32>,
    calls: u64,
    errors: u64,
    inclusive: i64,
    outer: i64,
    self_ns: i64,
    min: Option<i64>,
    max: Option<i64>,
    samples_ns: Vec<i64>,
    sigs: Vec<u32>,
}

struct NodeAcc {
    name: u32,
    calls: u64,
    errors: u64,
    inclusive: i64,
    self_ns: i64,
    samples_ns: Vec<i64>,
    children: Vec<u32>,
}

/// What [`TraceProfile::build_with`] lists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BuildOptions {
    /// Python frames (`python_function` events of `with_stack=True` traces) as op rows
    /// too (`key_averages(include_python_functions=True)`). They are always parents in
    /// the call tree and always taken out of their parents' self time.
    pub python_frames: bool,
}

impl TraceProfile {
    pub fn build(set: IntervalSet, trace: &str) -> TraceProfile {
        Self::build_with(set, trace, BuildOptions::default())
    }

    pub fn build_with(mut set: IntervalSet, trace: &str, options: BuildOptions) -> TraceProfile {
        // Each name made shared once, for the op rows and the call nodes (one at a time:
        // a huge name is never held thrice).
        let names: Vec<Arc<str>> = std::mem::take(&mut set.names)
            .into_iter()
            .map(Arc::from)
            .collect();
        let mut warnings = std::mem::take(&mut set.warnings);
        let unterminated = std::mem::take(&mut set.unterminated);
        let (set, names) = (&set, names.as_slice());
        let ivs = &set.intervals;
        let mut child_sum = vec![0i64; ivs.len()];
        let mut child_count = vec![0u32; ivs.len()];
        for iv in ivs {
            if let Some(p) = iv.parent {
                child_sum[p as usize] = child_sum[p as usize].saturating_add(iv.dur_ns);
                child_count[p as usize] += 1;
            }
        }
        // The call trees read only the intervals and their children's time: on a big
        // trace they are made on a second core while this one makes the op rows.
        let ((ops, threads, clamps), call_trees) = std::thread::scope(|scope| {
            let trees = (ivs.len() >= PARALLEL_TREES_MIN && more_than_one_core())
                .then(|| scope.spawn(|| build_call_trees(set, names, &child_sum)));
            let rows = Self::op_rows(set, names, &child_sum, &child_count, options);
            let call_trees = match trees {
                Some(trees) => trees
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                None => build_call_trees(set, names, &child_sum),
            };
            (rows, call_trees)
        });
        warnings.extend(self_time_clamped(clamps));
        TraceProfile {
            trace: trace.to_string(),
            format: set.format.unwrap_or(TraceFormat::Babeltrace2Text),
            ops,
            threads,
            unterminated,
            warnings,
            call_trees,
            counts: set.counts,
        }
    }

    /// The op rows, the threads with their calls, and how many self times were clamped.
    fn op_rows(
        set: &IntervalSet,
        names: &[Arc<str>],
        child_sum: &[i64],
        child_count: &[u32],
        options: BuildOptions,
    ) -> (Vec<TraceOp>, Vec<TraceThread>, u64) {
        let ivs = &set.intervals;
        // PyTorch's `key_averages()` merges a call whose only child has the same name
        // into one call (aten::div_ calling aten::div_): the inner one adds no call and
        // no inclusive time (it lies inside the outer), only its self time. Parents come
        // before their children (`IntervalSet` invariant).
        // Only for torch.profiler traces, whose reference is `key_averages()`; THAPI's
        // iprof tally (LTTng text and CTF) counts every call with its whole duration.
        let pytorch_rules = set.format == Some(super::TraceFormat::ChromeJson);
        // The op key of each name: `key_averages()` reports `ProfilerStep#2`, `#3`, ... as
        // one key `ProfilerStep*` (the call tree and the timeline keep the steps apart).
        let mut keys: Vec<Arc<str>> = Vec::with_capacity(names.len());
        let mut key_of: Vec<u32> = Vec::with_capacity(names.len());
        let mut profiler_step: Option<u32> = None;
        for name in names {
            let is_step = pytorch_rules
                && name
                    .strip_prefix(PROFILER_STEP_PREFIX)
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
            let id = match (is_step, profiler_step) {
                (true, Some(id)) => id,
                _ => {
                    let id = keys.len() as u32;
                    keys.push(if is_step {
                        Arc::from(PROFILER_STEP_KEY)
                    } else {
                        name.clone()
                    });
                    if is_step {
                        profiler_step = Some(id);
                    }
                    id
                }
            };
            key_of.push(id);
        }
        let merged: Vec<bool> = ivs
            .iter()
            .map(|iv| {
                pytorch_rules
                    && iv.parent.is_some_and(|p| {
                        let p = p as usize;
                        ivs.get(p).is_some_and(|pv| {
                            key_of[pv.name as usize] == key_of[iv.name as usize]
                                && child_count[p] == 1
                        })
                    })
            })
            .collect();
        // Recursion-free inclusive time (its own field, `inclusive_outer_total_ns`): a call
        // inside another call of the same op (any depth) adds nothing there, its time being
        // inside the outer call's. The inclusive total itself counts every call, as
        // `key_averages()` (and iprof) do.
        let nested_in_same: Vec<bool> = ivs
            .iter()
            .map(|iv| {
                let mut at = iv.parent;
                let mut steps = 0;
                while let Some(p) = at {
                    let Some(pv) = ivs.get(p as usize) else { break };
                    if key_of[pv.name as usize] == key_of[iv.name as usize] {
                        return true;
                    }
                    at = pv.parent;
                    steps += 1;
                    if steps > 100_000 {
                        break;
                    }
                }
                false
            })
            .collect();
        // Call order: start time, then file order.
        let mut order: Vec<u32> = (0..ivs.len() as u32).collect();
        order.sort_by_key(|&i| (ivs[i as usize].start_ns, i));

        let mut accs: Vec<OpAcc> = (0..keys.len()).map(|_| OpAcc::default()).collect();
        let mut seen_sigs: FastMap<(u32, u32), ()> = FastMap::default();
        let mut clamps = 0u64;
        for &i in &order {
            let iv = &ivs[i as usize];
            if iv.frame && !options.python_frames {
                continue;
            }
            let acc = &mut accs[key_of[iv.name as usize] as usize];
            if merged[i as usize] && !iv.err {
                acc.self_ns = acc
                    .self_ns
                    .saturating_add(iv.dur_ns.saturating_sub(child_sum[i as usize]));
                continue;
            }
            acc.calls += 1;
            if iv.err {
                acc.errors += 1;
                continue;
            }
            // Saturating: hostile inputs may hold durations near i64::MAX.
            acc.inclusive = acc.inclusive.saturating_add(iv.dur_ns);
            if !nested_in_same[i as usize] {
                acc.outer = acc.outer.saturating_add(iv.dur_ns);
            }
            acc.self_ns = acc.self_ns.saturating_add(self_time(
                iv.dur_ns,
                child_sum[i as usize],
                &mut clamps,
            ));
            acc.min = Some(acc.min.map_or(iv.dur_ns, |m| m.min(iv.dur_ns)));
            acc.max = Some(acc.max.map_or(iv.dur_ns, |m| m.max(iv.dur_ns)));
            acc.samples_ns.push(iv.dur_ns);
            if let Some(s) = iv.inputs {
                // Hashed: a dynamic-shape op can have tens of thousands of signatures.
                // The op's last signature is known to be in the set: most calls repeat
                // it, and skip the hash.
                if acc.last_sig != Some(s)
                    && seen_sigs
                        .insert((key_of[iv.name as usize], s), ())
                        .is_none()
                {
                    acc.sigs.push(s);
                }
                acc.last_sig = Some(s);
            }
        }
        let mut ops: Vec<TraceOp> = accs
            .into_iter()
            .zip(&keys)
            .filter(|(a, _)| a.calls > 0)
            .map(|(a, name)| {
                let has_inputs = !a.sigs.is_empty();
                let mut shapes: Vec<Vec<Vec<i64>>> = Vec::new();
                let mut dtypes: Vec<Vec<String>> = Vec::new();
                let mut seen_shapes: FastMap<&[Vec<i64>], ()> = FastMap::default();
                let mut seen_types: FastMap<&[String], ()> = FastMap::default();
                for &s in &a.sigs {
                    let sig = &set.inputs[s as usize];
                    if seen_shapes.insert(&sig.shapes, ()).is_none() {
                        shapes.push(sig.shapes.clone());
                    }
                    if seen_types.insert(&sig.types, ()).is_none() {
                        dtypes.push(sig.types.clone());
                    }
                }
                TraceOp {
                    name: name.clone(),
                    calls: a.calls,
                    errors: a.errors,
                    inclusive_total_ns: a.inclusive,
                    inclusive_outer_total_ns: a.outer,
                    self_total_ns: a.self_ns,
                    min_ns: a.min,
                    max_ns: a.max,
                    stats: Stats::from_ns(a.samples_ns),
                    input_shapes: has_inputs.then_some(shapes),
                    dtypes: has_inputs.then_some(dtypes),
                }
            })
            .collect();
        ops.sort_by(|a, b| {
            b.inclusive_total_ns
                .cmp(&a.inclusive_total_ns)
                .then_with(|| a.name.cmp(&b.name))
        });

        let mut thread_calls = vec![0u64; set.threads.len()];
        for iv in ivs.iter().filter(|iv| options.python_frames || !iv.frame) {
            thread_calls[iv.thread as usize] += 1;
        }
        let threads = set
            .threads
            .iter()
            .zip(&thread_calls)
            .filter(|(_, &c)| c > 0)
            .map(|(k, &calls)| TraceThread {
                key: k.clone(),
                calls,
            })
            .collect::<Vec<_>>();

        (ops, threads, clamps)
    }

    pub fn op(&self, name: &str) -> Option<&TraceOp> {
        self.ops.iter().find(|o| &*o.name == name)
    }
}

/// The warning for calls whose self time was clamped to 0, if any.
pub(crate) fn self_time_clamped(clamps: u64) -> Option<TraceWarning> {
    (clamps > 0).then(|| TraceWarning {
        kind: "self_time_clamped".to_string(),
        message: format!(
            "{clamps} call(s) have children that end after them (within the 1 µs nesting tolerance); their self time is taken as 0, not negative"
        ),
    })
}

/// Inclusive minus children, never below zero: a child may end up to 1 µs after its
/// parent (the nesting tolerance), which would otherwise give a negative self time.
fn self_time(dur_ns: i64, children_ns: i64, clamps: &mut u64) -> i64 {
    let own = dur_ns.saturating_sub(children_ns);
    if own < 0 {
        *clamps += 1;
        0
    } else {
        own
    }
}

/// Deeper call-tree levels are cut (keeps recursion bounded on pathological input).
pub const MAX_TREE_DEPTH: usize = 2_000;

/// Aggregate calls by name path, per thread. Relies on parents preceding children.
/// Traces with at least this many intervals make their call trees on a thread of their
/// own (`TraceProfile::build_with`).
const PARALLEL_TREES_MIN: usize = 32_768;

fn more_than_one_core() -> bool {
    std::thread::available_parallelism().is_ok_and(|n| n.get() > 1)
}

fn build_call_trees(set: &IntervalSet, names: &[Arc<str>], child_sum: &[i64]) -> Vec<CallTree> {
    let n_threads = set.threads.len();
    let mut nodes: Vec<NodeAcc> = Vec::new();
    let mut roots: Vec<Vec<u32>> = vec![Vec::new(); n_threads];
    // (thread, parent node or MAX, name) -> node
    let mut index: FastMap<(u32, u32, u32), u32> = FastMap::default();
    let mut node_of = vec![u32::MAX; set.intervals.len()];
    for (i, iv) in set.intervals.iter().enumerate() {
        let parent_node = iv.parent.map_or(u32::MAX, |p| node_of[p as usize]);
        let key = (iv.thread, parent_node, iv.name);
        let node = *index.entry(key).or_insert_with(|| {
            let id = nodes.len() as u32;
            nodes.push(NodeAcc {
                name: iv.name,
                calls: 0,
                errors: 0,
                inclusive: 0,
                self_ns: 0,
                samples_ns: Vec::new(),
                children: Vec::new(),
            });
            if parent_node == u32::MAX {
                roots[iv.thread as usize].push(id);
            } else {
                nodes[parent_node as usize].children.push(id);
            }
            id
        });
        node_of[i] = node;
        let n = &mut nodes[node as usize];
        n.calls += 1;
        if iv.err {
            n.errors += 1;
        } else {
            n.inclusive = n.inclusive.saturating_add(iv.dur_ns);
            n.samples_ns.push(iv.dur_ns);
            n.self_ns = n
                .self_ns
                .saturating_add(self_time(iv.dur_ns, child_sum[i], &mut 0));
        }
    }
    fn materialise(nodes: &[NodeAcc], names: &[Arc<str>], id: u32, depth: usize) -> CallNode {
        let n = &nodes[id as usize];
        CallNode {
            name: names[n.name as usize].clone(),
            calls: n.calls,
            errors: n.errors,
            inclusive_ns: n.inclusive,
            self_ns: n.self_ns,
            samples_ns: n.samples_ns.clone(),
            // Depth is bounded by the parent chain; recursion guard for pathological input.
            children: if depth > MAX_TREE_DEPTH {
                Vec::new()
            } else {
                n.children
                    .iter()
                    .map(|&c| materialise(nodes, names, c, depth + 1))
                    .collect()
            },
        }
    }
    set.threads
        .iter()
        .zip(roots)
        .filter(|(_, r)| !r.is_empty())
        .map(|(t, r)| CallTree {
            thread: t.clone(),
            roots: r
                .iter()
                .map(|&id| materialise(&nodes, names, id, 0))
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::trace::parse_trace;

    #[test]
    fn a_child_ending_after_its_parent_gives_zero_self_time_not_negative() {
        // Parent 0..10 µs with children 0..5 µs and 5..10.5 µs; the second ends 0.5 µs
        // after the parent, which the 1 µs nesting tolerance keeps as a child. Parent self
        // time: 10 - 5 - 5.5 = -0.5 µs, clamped to 0, and one clamp is reported.
        let json = br#"{"traceEvents":[
            {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":0,"dur":10},
            {"ph":"X","cat":"cpu_op","name":"aten::t","pid":1,"tid":1,"ts":0,"dur":5},
            {"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":5,"dur":5.5}
        ]}"#;
        let p = parse_trace(json, "t.json").unwrap();
        let parent = p.op("aten::linear").unwrap();
        assert_eq!(parent.inclusive_total_ns, 10_000);
        assert_eq!(parent.self_total_ns, 0);
        assert_eq!(p.op("aten::addmm").unwrap().self_total_ns, 5_500);
        let root = &p.call_trees[0].roots[0];
        assert_eq!((&*root.name, root.self_ns), ("aten::linear", 0));
        let w: Vec<_> = p
            .warnings
            .iter()
            .filter(|w| w.kind == "self_time_clamped")
            .collect();
        assert_eq!(w.len(), 1);
        assert!(w[0].message.starts_with("1 call(s)"), "{}", w[0].message);
    }

    #[test]
    fn many_distinct_shapes_are_all_kept_in_first_seen_order() {
        // 20 000 calls of one op with growing sequence length: 20 000 distinct shapes.
        // (Linear: this took seconds when each shape was searched for in a list.)
        let n = 20_000;
        let mut json = String::from(r#"{"traceEvents":["#);
        for i in 0..n {
            if i > 0 {
                json.push(',');
            }
            json.push_str(&format!(
                r#"{{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":{},"dur":1,"args":{{"Input Dims":[[{},8]],"Input type":["float"]}}}}"#,
                i * 2,
                i + 1
            ));
        }
        json.push_str("]}");
        let p = parse_trace(json.as_bytes(), "t.json").unwrap();
        let op = p.op("aten::mm").unwrap();
        let shapes = op.input_shapes.as_ref().unwrap();
        assert_eq!(shapes.len(), n);
        assert_eq!(shapes[0], vec![vec![1, 8]]);
        assert_eq!(shapes[n - 1], vec![vec![n as i64, 8]]);
        assert_eq!(op.dtypes.as_ref().unwrap().len(), 1);
    }
}
