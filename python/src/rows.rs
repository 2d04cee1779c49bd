//! The rows of a profile as the Inspector's `to_dataframe()` lists its events (plus our
//! columns), read from the core's row model (`RowTree`, built once per profile or trace):
//! the `Default` block's load-time events (the profile's method loads, which are not rows
//! of the model), then one `Execute` block per method row, each block's events in the
//! order the Inspector lists them (instruction order; within an instruction the
//! delegate's events or the kernels before the call; `Method::execute` last). Self-time
//! rows (`(overhead)`, `(remainder)`) are not events: left out. `columns.rs` makes Python
//! lists of them, `arrow.rs` an Arrow record batch.

use std::borrow::Cow;

use cpuprof_tui::profile::{LoadTimes, OperatorKind, Profile, RowSource};
use cpuprof_tui::rows::{Facts, Row as TreeRow, RowKind, RowTree};
use cpuprof_tui::stats::Stats;

use crate::inspector::{Block, DebugValue, Ident};

/// One row: an event of a block with its statistics and what the row model knows of it.
pub struct Row<'a> {
    pub block: &'static str,
    pub name: &'a str,
    pub stats: Cow<'a, Stats>,
    pub instruction_id: Option<i64>,
    pub backend: Option<&'a str>,
    pub delegate: Option<String>,
    pub step: Option<&'a str>,
    /// The row model's row of a delegate's operator (its shapes, FLOPs and bytes).
    pub op: Option<&'a TreeRow>,
    pub source: Option<&'a RowSource>,
    /// Our method (group of runs of one signature); None for the `Default` block.
    pub method: Option<&'a str>,
    /// (block, method, instruction, push order): the Inspector's order.
    order: (u8, usize, i64, usize),
}

impl<'a> Row<'a> {
    fn new(block: &'static str, name: &'a str, stats: Cow<'a, Stats>) -> Row<'a> {
        Row {
            block,
            name,
            stats,
            instruction_id: None,
            backend: None,
            delegate: None,
            step: None,
            op: None,
            source: None,
            method: None,
            order: (0, 0, 0, 0),
        }
    }

    /// The row's own source: an XNNPACK operator's is its delegate's nodes, of which the
    /// Inspector gives it none.
    pub fn own_source(&self) -> Option<&'a RowSource> {
        self.source.filter(|r| !r.through_delegate)
    }

    pub fn shapes(&self) -> Option<String> {
        self.op.and_then(shapes_text)
    }

    /// The module of the row's own source (`(root)` for the root module).
    pub fn module(&self) -> Option<&'a str> {
        self.source.and_then(|r| r.module_label())
    }

    /// `path/to/file.py:83` of the row's own source.
    pub fn source_line(&self) -> Option<&'a str> {
        self.source.and_then(|r| r.file_line.as_deref())
    }
}

/// The Inspector's `stack_traces`: node name (with the `_` it appends) → the whole stack
/// trace, of each node of `src`; None for a node without one (the Inspector keeps the
/// node, its value None; an empty trace is none, as torch reads it).
fn stack_traces_of(src: Option<&RowSource>) -> impl Iterator<Item = (String, Option<&str>)> {
    let traces = src.map(|r| &r.stack_traces[..]).unwrap_or(&[]);
    each_node(src, traces, |t: &String| {
        Some(t.as_str()).filter(|t| !t.is_empty())
    })
}

/// The Inspector's `module_hierarchy`: node name (with `_`) → its `nn_module_stack` frames,
/// (key, module path, module type); None for a node without a stack.
fn module_hierarchy_of(
    src: Option<&RowSource>,
) -> impl Iterator<Item = (String, Option<&[[String; 3]]>)> {
    let stacks = src.map(|r| &r.module_stacks[..]).unwrap_or(&[]);
    each_node(src, stacks, |f: &Vec<[String; 3]>| Some(f.as_slice()))
}

fn op_types_of(src: Option<&RowSource>) -> OpTypes<'_> {
    OpTypes {
        list: src.map(|r| &r.op_types[..]).unwrap_or(&[]),
        past_cap: src.and_then(|r| r.op_types_past_cap.as_ref()),
    }
}

/// Each node of `src` (`name_`) with its entry of `known` (a sub-list of the nodes, in
/// their order: the nodes that have one), None where it has none.
fn each_node<'a, T: 'a, V: 'a>(
    src: Option<&'a RowSource>,
    known: &'a [(String, T)],
    value: impl Fn(&'a T) -> Option<V> + 'a,
) -> impl Iterator<Item = (String, Option<V>)> + 'a {
    let nodes = src.map(|r| &r.nodes[..]).unwrap_or(&[]);
    let mut at = 0;
    nodes.iter().map(move |n| {
        let v = match known.get(at) {
            Some((m, v)) if m == n => {
                at += 1;
                value(v)
            }
            // Not in node order (not made by `source_of`): looked for.
            _ => known
                .iter()
                .find(|(m, _)| m == n)
                .and_then(|(_, v)| value(v)),
        };
        (format!("{n}_"), v)
    })
}

/// A row's `op_types`: the list the profile keeps, and where the ETRecord repeats a
/// handle past what it keeps, how many more the Inspector lists and its last one.
#[derive(Clone, Copy, Default)]
pub struct OpTypes<'a> {
    pub list: &'a [String],
    pub past_cap: Option<&'a (u64, String)>,
}

impl OpTypes<'_> {
    /// How many the Inspector lists.
    pub fn total(&self) -> u64 {
        self.list.len() as u64 + self.past_cap.map_or(0, |(more, _)| *more)
    }

    /// The Inspector's last one.
    pub fn last(&self) -> Option<&str> {
        match self.past_cap {
            Some((_, last)) => Some(last),
            None => self.list.last().map(String::as_str),
        }
    }
}

/// The samples of a row, in ms, in run order: the one place a row's samples are read.
pub fn samples_ms<'s>(s: &'s Stats) -> impl ExactSizeIterator<Item = f64> + 's {
    s.samples.iter_ms()
}

fn shapes_text(o: &TreeRow) -> Option<String> {
    let list = |v: &Vec<Vec<i64>>| {
        v.iter()
            .map(|s| format!("{s:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (&o.input_shapes, &o.output_shapes) {
        (None, None) => None,
        (i, out) => Some(format!(
            "{} -> {}",
            i.as_ref().map(list).unwrap_or_default(),
            out.as_ref().map(list).unwrap_or_default()
        )),
    }
}

/// The Inspector's backend name for a delegate row: known (as to the Inspector) only
/// from the model files, as the ETRecord's `delegate_map` names the call's backend.
fn backend(d: &TreeRow) -> Option<&str> {
    d.source.as_ref()?.backend.as_deref()
}

/// Rows in the making: each pushed row gets its place in the Inspector's order.
struct Rows<'a> {
    tree: &'a RowTree,
    rows: Vec<Row<'a>>,
    method_index: usize,
    method: Option<&'a str>,
}

impl<'a> Rows<'a> {
    fn push(&mut self, mut row: Row<'a>) {
        let seq = self.rows.len();
        row.order = if row.block == "Default" {
            (0, 0, 0, seq)
        } else {
            row.method = self.method;
            // `Method::execute` ends after every event of its run: last of the block.
            let at = row.instruction_id.unwrap_or(i64::MAX);
            (1, self.method_index, at, seq)
        };
        self.rows.push(row);
    }

    fn children(&self, r: &'a TreeRow) -> impl Iterator<Item = &'a TreeRow> + 'a {
        let tree = self.tree;
        r.children.iter().map(move |&c| &tree.rows[c])
    }
}

/// One load-time figure of a method load.
type LoadTime = fn(&LoadTimes) -> Option<f64>;

/// Every method's rows, in the Inspector's order (see the module's doc), from the
/// profile's row model `tree` (`RowTree::from_profile(p)`); the profile gives the
/// `Default` block's load times and the methods' names.
pub fn dump_rows<'a>(p: &'a Profile, tree: &'a RowTree) -> Vec<Row<'a>> {
    let mut t = Rows {
        tree,
        rows: Vec::new(),
        method_index: 0,
        method: None,
    };
    // The `Default` block: the load-time events, one sample per method load (the
    // Inspector's one row of each gathers every load's).
    let loads = if p.loads.is_empty() {
        p.load.as_slice()
    } else {
        &p.loads[..]
    };
    let times: [(&str, LoadTime); 2] = [
        ("Method::init", |l| l.method_init),
        ("Program::load_method", |l| l.program_load_method),
    ];
    for (name, time) in times {
        let samples: Vec<f64> = loads.iter().filter_map(time).collect();
        if !samples.is_empty() {
            let mut row = Row::new("Default", name, Cow::Owned(Stats::from_ms(&samples)));
            row.instruction_id = Some(0);
            t.push(row);
        }
    }
    // A method row per method of the profile, in its order (one root for one method).
    for (i, &root) in tree.roots.iter().enumerate() {
        t.method_index = i;
        t.method = p.methods.get(i).map(|m| m.name.as_str());
        method_rows(&mut t, &tree.rows[root]);
    }
    let mut rows = t.rows;
    rows.sort_by_key(|r| r.order);
    rows
}

const BLOCK: &str = "Execute";

/// One method row's `Execute` rows.
fn method_rows<'a>(t: &mut Rows<'a>, m: &'a TreeRow) {
    if matches!(m.facts, Facts::Method { timed: true, .. }) {
        t.push(Row::new(BLOCK, "Method::execute", Cow::Borrowed(&m.stats)));
    }
    for r in t.children(m).collect::<Vec<_>>() {
        match r.kind {
            RowKind::Delegate => delegate_rows(t, r),
            RowKind::Instruction => instruction_rows(t, r),
            _ => {}
        }
    }
}

/// A row the row model made of a delegate's operator event (XNNPACK, other delegate, or
/// an ExecuTorch kernel it ran).
fn is_operator(r: &TreeRow) -> bool {
    matches!(r.facts, Facts::Operator { .. })
}

/// A delegate's rows: its operators, each plan step after its operators, its
/// unattributed events, then its `DELEGATE_CALL`.
fn delegate_rows<'a>(t: &mut Rows<'a>, d: &'a TreeRow) {
    let id = d.instruction_id.map(i64::from);
    let backend = backend(d);
    let short = d.instruction_id.map(cpuprof_tui::units::delegate_short);
    let under = |name: &'a str, stats: &'a Stats| {
        let mut row = Row::new(BLOCK, name, Cow::Borrowed(stats));
        row.instruction_id = id;
        row.backend = backend;
        row.delegate = short.clone();
        row
    };
    // An ExecuTorch kernel run by the delegate (a `native_call_*` event) is logged as any
    // kernel is, without a delegate id: no backend to the Inspector.
    let operator = |o: &'a TreeRow, step: Option<&'a str>| {
        let mut row = under(&o.name, &o.stats);
        if let Facts::Operator {
            kind: OperatorKind::Kernel,
            ..
        } = o.facts
        {
            row.backend = None;
        }
        row.step = step;
        row.op = Some(o);
        row.source = o.source.as_ref();
        row
    };
    let children: Vec<&'a TreeRow> = t.children(d).collect();
    for o in children.iter().filter(|c| is_operator(c)) {
        t.push(operator(o, None));
    }
    for s in children.iter().filter(|c| c.kind == RowKind::Step) {
        // A step ends after its operators: the Inspector lists them first.
        for o in t.children(s).filter(|o| is_operator(o)).collect::<Vec<_>>() {
            t.push(operator(o, Some(&s.name)));
        }
        let mut row = under(&s.name, &s.stats);
        row.step = Some(&s.name);
        t.push(row);
    }
    for e in children.iter().filter(|c| c.facts == Facts::Unattributed) {
        let mut row = under(&e.name, &e.stats);
        row.source = e.source.as_ref();
        t.push(row);
    }
    let mut call = under("DELEGATE_CALL", &d.stats);
    call.source = d.source.as_ref();
    t.push(call);
}

/// A non-delegated instruction's rows: its kernels, then the instruction.
fn instruction_rows<'a>(t: &mut Rows<'a>, o: &'a TreeRow) {
    let id = o.instruction_id.map(i64::from);
    let kernels: Vec<&'a TreeRow> = t.children(o).collect();
    for k in &kernels {
        let mut row = Row::new(BLOCK, &k.name, Cow::Borrowed(&k.stats));
        row.instruction_id = id;
        // Its own source only (the row model gives a kernel without one its
        // instruction's module; the Inspector's columns of model files do not).
        row.source = k.source.as_ref();
        t.push(row);
    }
    // A jump or a move is an instruction of its own name (no kernel in it).
    let name = match o.name.as_str() {
        n @ ("JF_CALL" | "MOVE_CALL" | "FREE_CALL") if kernels.is_empty() => n,
        _ => "OPERATOR_CALL",
    };
    let mut call = Row::new(BLOCK, name, Cow::Borrowed(&o.stats));
    call.instruction_id = id;
    call.source = o.source.as_ref();
    t.push(call);
}

/// A trace's operators (the row model's `op` rows, the tally's): block `trace`, inclusive
/// times per call.
pub fn trace_rows(tree: &RowTree) -> Vec<Row<'_>> {
    tree.rows
        .iter()
        .filter(|r| r.kind == RowKind::Op)
        .map(|op| Row::new("trace", &op.name, Cow::Borrowed(&op.stats)))
        .collect()
}

/// One line of the frame: an event as the Inspector lists it (its name, samples, start
/// times, figures, delegate id) and what our profile knows of it (`meta`).
pub struct Line<'a> {
    pub block: &'a str,
    pub name: &'a str,
    /// None for an event with no profile event (only debug events).
    pub raw: Option<Cow<'a, [f64]>>,
    /// Start times in ticks (the Inspector's `start_time`); None for a trace's rows.
    pub start: Option<&'a [u64]>,
    /// The intermediate outputs of its debug events (the Inspector's `debug_data`).
    pub debug: &'a [DebugValue],
    pub figures: [f64; 6],
    pub ident: Option<&'a Ident>,
    pub instruction_id: Option<i64>,
    pub meta: Option<&'a Row<'a>>,
    /// What the Inspector knows from an ETRecord (`op_types`, `stack_traces`,
    /// `module_hierarchy`, `delegate_backend_name`) is given: it was given one.
    pub model: bool,
    /// An event without samples: its nodes, from the ETRecord given (none of our rows).
    pub unprofiled_source: Option<&'a RowSource>,
}

impl<'a> Line<'a> {
    pub fn delegated(&self) -> bool {
        self.ident.is_some()
    }

    /// The delegate debug identifier as text (an integer id as its digits).
    pub fn ident_text(&self) -> Option<Cow<'a, str>> {
        self.ident.map(|i| match i {
            Ident::Int(n) => Cow::Owned(n.to_string()),
            Ident::Str(s) => Cow::Borrowed(s.as_str()),
        })
    }

    /// Our row, where the Inspector's columns of model files are given.
    fn model_row(&self) -> Option<&'a Row<'a>> {
        self.meta.filter(|_| self.model)
    }

    /// The nodes the Inspector's columns of model files come from: our row's own, or for
    /// an event without samples (no row of ours) its instruction's.
    fn model_source(&self) -> Option<&'a RowSource> {
        if !self.model {
            return None;
        }
        match self.meta {
            Some(r) => r.own_source(),
            None => self.unprofiled_source,
        }
    }

    pub fn op_types(&self) -> OpTypes<'a> {
        op_types_of(self.model_source())
    }

    pub fn stack_traces(&self) -> impl Iterator<Item = (String, Option<&'a str>)> {
        stack_traces_of(self.model_source())
    }

    pub fn module_hierarchy(&self) -> impl Iterator<Item = (String, Option<&'a [[String; 3]]>)> {
        module_hierarchy_of(self.model_source())
    }

    pub fn backend(&self) -> Option<&'a str> {
        match self.meta {
            Some(_) => self.model_row().and_then(|r| r.backend),
            None if self.model && self.ident.is_some() => {
                self.unprofiled_source.and_then(|s| s.backend.as_deref())
            }
            None => None,
        }
    }
}

/// The warm-up runs dropped from a method (by our name of it).
pub type Dropped<'f> = &'f dyn Fn(Option<&str>) -> usize;

/// A row's key among a method's rows: (instruction id, name); framework events (the
/// `Default` block's, `Method::execute`) by name alone.
fn key<'k>(block: &str, instruction_id: Option<i64>, name: &'k str) -> (Option<i64>, &'k str) {
    if block == "Default" || name == "Method::execute" {
        (None, name)
    } else {
        (instruction_id, name)
    }
}

/// The Inspector's blocks with what our rows know of each event: an `Execute` block is
/// matched to the method whose rows hold most of its events (a method not matched yet
/// first), an event to that method's row of the same instruction and name. `model`: the
/// Inspector's columns of model files are filled (an ETRecord was given, as to it).
/// `warmup`: the runs the profile dropped as warm-ups per method (by name), dropped from
/// the block matched to it; None keeps every run (as the Inspector).
pub fn lines<'a>(
    blocks: &'a [Block],
    rows: &'a [Row<'a>],
    model: bool,
    warmup: Option<Dropped<'_>>,
) -> Vec<Line<'a>> {
    use std::collections::HashMap;
    type Keyed<'a> = HashMap<(Option<i64>, &'a str), &'a Row<'a>>;
    let mut methods: Vec<(Option<&str>, Keyed<'a>)> = Vec::new();
    let mut default: Keyed<'a> = HashMap::new();
    for r in rows {
        let k = key(r.block, r.instruction_id, r.name);
        if r.block == "Default" {
            default.entry(k).or_insert(r);
            continue;
        }
        let at = match methods.iter().position(|(m, _)| *m == r.method) {
            Some(i) => i,
            None => {
                methods.push((r.method, HashMap::new()));
                methods.len() - 1
            }
        };
        methods[at].1.entry(k).or_insert(r);
    }
    let mut used = vec![false; methods.len()];
    let mut out = Vec::new();
    for b in blocks {
        let keys: Vec<_> = b
            .events
            .iter()
            .map(|e| key(&b.name, e.instruction_id, &e.name))
            .collect();
        let mut drop = 0;
        let table = if b.name == "Default" {
            Some(&default)
        } else {
            let best = (0..methods.len()).max_by_key(|&i| {
                let hits = keys
                    .iter()
                    .filter(|k| methods[i].1.contains_key(*k))
                    .count();
                (hits, !used[i], std::cmp::Reverse(i))
            });
            best.map(|i| {
                used[i] = true;
                drop = warmup.map_or(0, |w| w(methods[i].0));
                &methods[i].1
            })
        };
        for (e, k) in b.events.iter().zip(&keys) {
            let d = drop.min(e.raw.len());
            let (raw, figures) = if d == 0 {
                (Cow::Borrowed(&e.raw[..]), e.figures)
            } else {
                let kept = &e.raw[d..];
                let figures = if kept.is_empty() {
                    [f64::NAN; 6]
                } else {
                    crate::inspector::figures(kept)
                };
                (Cow::Borrowed(kept), figures)
            };
            out.push(Line {
                block: &b.name,
                name: &e.name,
                raw: (!e.unprofiled).then_some(raw),
                start: (!e.unprofiled).then_some(&e.start[d.min(e.start.len())..]),
                debug: &e.debug_data,
                figures,
                ident: e.delegate.as_ref(),
                instruction_id: e.instruction_id,
                meta: table.and_then(|t| t.get(k).copied()),
                model,
                unprofiled_source: e.source.as_ref(),
            });
        }
    }
    out
}

/// A trace's rows as lines (samples and figures from the profile's statistics).
pub fn trace_lines<'a>(rows: &'a [Row<'a>]) -> Vec<Line<'a>> {
    rows.iter()
        .map(|r| {
            let s = &r.stats;
            Line {
                block: r.block,
                name: r.name,
                raw: Some(Cow::Owned(samples_ms(s).collect())),
                start: None,
                debug: &[],
                figures: [s.p10(), s.median(), s.p90(), s.mean(), s.min(), s.max()],
                ident: None,
                instruction_id: None,
                meta: Some(r),
                model: true,
                unprofiled_source: None,
            }
        })
        .collect()
}
