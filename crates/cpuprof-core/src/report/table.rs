//! The readable grouped text report.

use std::fmt::Write;

use crate::escape::escape;
use crate::profile::efficiency::{self, Peak};
use crate::profile::{DelegateKind, Finding, OperatorKind, Profile, RowSource, RunCounts, Stats};
use crate::rows::{Facts, Row, RowKind, RowTree};
use crate::units::{duration_ms, duration_or_below, percent, percent_or_bound, XNNPACK_QUANTUM_MS};

const NAME_WIDTH: usize = 44;
/// Width of the columns after the name: count, four durations, share and the spaces.
const COLUMNS_WIDTH: usize = 1 + 5 + 4 * 12 + 8;

/// The table with whole names (a pipe or a file: names are data; a name longer than the
/// column pushes that row's numbers to the right).
pub fn profile_table(p: &Profile) -> String {
    profile_table_with(p, None)
}

/// The table; with `peak`, operators get `%peak` and `bound` (the roofline) columns.
pub fn profile_table_with(p: &Profile, peak: Option<Peak>) -> String {
    profile_table_full(p, peak, None)
}

/// The table for a terminal `width` columns wide: names are cut (`…`) only where a line
/// would not fit; None keeps whole names.
pub fn profile_table_cut(p: &Profile, width: Option<usize>) -> String {
    profile_table_full(p, None, width)
}

/// The table with the roofline columns of `peak`, names cut to a terminal `width`.
pub fn profile_table_full(p: &Profile, peak: Option<Peak>, width: Option<usize>) -> String {
    let limit = width.map(|w| w.saturating_sub(COLUMNS_WIDTH).max(12));
    table_text(p, peak, limit)
}

/// The table; `name_limit`: the longest name a row may print (None: whole names).
fn table_text(p: &Profile, peak: Option<Peak>, name_limit: Option<usize>) -> String {
    let mut out = String::new();
    let o = &mut out;
    // The rows: the profile's row model, one root per method of several.
    let tree = RowTree::from_profile(p);
    // The answer first: what the time of the method goes to; of each method when there
    // are several, then what the dump holds.
    if p.methods.len() > 1 {
        for (m, &root) in p.methods.iter().zip(&tree.roots) {
            if let Some(answer) = crate::summary::dump_answer(&tree, root, None, "", ANSWER_TYPES) {
                let _ = writeln!(o, "{}", escape(&format!("{}: {answer}", m.name)));
            }
        }
        let _ = writeln!(o, "{}", escape(&methods_line(p)));
    } else if let Some(answer) =
        crate::summary::dump_answer(&tree, tree.roots[0], None, "", ANSWER_TYPES)
    {
        let _ = writeln!(o, "{}", escape(&answer.to_string()));
    }
    let _ = writeln!(o, "ETDump  {}", escape(&p.source.etdump));
    let _ = writeln!(
        o,
        "Log     {}",
        escape(p.source.log.as_deref().unwrap_or("(none)"))
    );
    // The export-time files, only when some were read (other reports stay as they were).
    if let Some(files) = &p.model_files {
        for (label, file) in [("ETRecord", &files.etrecord), ("Program", &files.program)] {
            let _ = writeln!(
                o,
                "{label:<8} {}",
                escape(file.as_deref().unwrap_or("(none)"))
            );
        }
        if let [only] = p.methods.as_slice() {
            let _ = writeln!(o, "Method  {}", escape(&only.name));
        }
    }
    if p.methods.len() > 1 {
        // One section per method (run signature), then the profile-wide findings.
        for (k, m) in p.methods.iter().enumerate() {
            let mut title = format!("== {} ", escape(&m.name));
            if let Some(b) = m.bundled_input_index {
                let _ = write!(title, "(bundled input {b}) ");
            }
            let _ = writeln!(
                o,
                "\n{title}{}",
                "=".repeat(60usize.saturating_sub(title.len()))
            );
            if let Some(answer) =
                crate::summary::dump_answer(&tree, tree.roots[k], None, "", ANSWER_TYPES)
            {
                let _ = writeln!(o, "Top     {}", escape(&answer.to_string()));
            }
            let root = tree.roots[k];
            section(
                o,
                &Section {
                    runs: &m.runs,
                    method: m.method.as_ref(),
                    tree: &tree,
                    root,
                    columns: Columns::of(&tree, root, peak, name_limit),
                },
            );
            findings(o, &m.warnings, &m.errors);
        }
        let first = p.methods[0].warnings.len();
        let global = &p.warnings[..p.warnings.len().saturating_sub(first)];
        let _ = writeln!(o);
        findings(o, global, &[]);
        return out;
    }
    let root = tree.roots[0];
    section(
        o,
        &Section {
            runs: &p.runs,
            method: p.method.as_ref(),
            tree: &tree,
            root,
            columns: Columns::of(&tree, root, peak, name_limit),
        },
    );
    findings(o, &p.warnings, &p.errors);
    out
}

/// `Methods 3 · 35 runs, 28 kept: prefill 8 of 10 · decode 17 of 20 · score 3 of 5`.
fn methods_line(p: &Profile) -> String {
    let total: usize = p.methods.iter().map(|m| m.runs.total).sum();
    let kept: usize = p.methods.iter().map(|m| m.runs.kept).sum();
    let each: Vec<String> = p
        .methods
        .iter()
        .map(|m| format!("{} {} of {}", m.name, m.runs.kept, m.runs.total))
        .collect();
    format!(
        "Methods {} · {total} runs, {kept} kept: {}",
        p.methods.len(),
        each.join(" · ")
    )
}

/// Operator types named in the answer line.
const ANSWER_TYPES: usize = 3;

/// The efficiency columns of a section: shown when some operator has a FLOP or byte
/// count; the roofline's with `--peak`. And how long a name may be.
#[derive(Clone, Copy)]
struct Columns {
    efficiency: bool,
    peak: Option<Peak>,
    /// The longest name a row may print (None: whole names): a terminal's width.
    name_limit: Option<usize>,
}

impl Columns {
    /// The columns of the method at row `root`: efficiency when some operator of its
    /// delegates has a count.
    fn of(tree: &RowTree, root: usize, peak: Option<Peak>, name_limit: Option<usize>) -> Columns {
        let efficiency =
            delegate_operators(tree, root).any(|op| op.flops.is_some() || op.bytes.is_some());
        Columns {
            efficiency,
            peak,
            name_limit,
        }
    }

    /// The header cells after `share`.
    fn header(&self) -> String {
        let mut h = String::new();
        if self.efficiency {
            let _ = write!(h, " {:>8} {:>7}", "GFLOP/s", "GB/s");
            if self.peak.is_some() {
                h.push_str("  %peak bound");
            }
        }
        h
    }

    /// An operator's cells after `share` (blank where unknown; no rate under the clock
    /// quantum, where the time is not known).
    fn cells(&self, op: &Row) -> String {
        if !self.efficiency {
            return String::new();
        }
        let median = if below_resolution(op) {
            f64::NAN
        } else {
            op.stats.median()
        };
        let r = efficiency::rates(op.cost(), median);
        let blank = |v: Option<f64>| match v {
            None => String::new(),
            some => efficiency::rate_text(some),
        };
        let mut c = format!(" {:>8} {:>7}", blank(r.gflops), blank(r.gbps));
        if let Some(peak) = self.peak {
            match efficiency::roofline(op.cost(), median, peak) {
                Some(roof) => {
                    let _ = write!(
                        c,
                        " {:>6} {:<7}",
                        format!("{:.0}%", roof.peak_share * 100.0),
                        roof.bound.label()
                    );
                }
                None => c.push_str(&" ".repeat(15)),
            }
        }
        c.trim_end().to_string()
    }
}

struct Section<'a> {
    runs: &'a RunCounts,
    method: Option<&'a Stats>,
    /// The rows; the method's at `root`.
    tree: &'a RowTree,
    root: usize,
    columns: Columns,
}

fn section(o: &mut String, s: &Section<'_>) {
    let _ = writeln!(
        o,
        "Runs    {} total, {} warm-up dropped, {} kept",
        s.runs.total, s.runs.warmup_dropped, s.runs.kept
    );
    if let Some(m) = s.method {
        let _ = writeln!(
            o,
            "Method::execute  median {}  min {}  max {}  p90 {}",
            duration_ms(m.median()),
            duration_ms(m.min()),
            duration_ms(m.max()),
            duration_ms(m.p90())
        );
    }
    let (tree, root) = (s.tree, s.root);
    if !s.columns.efficiency && has_xnnpack_operators(tree, root) {
        let _ = writeln!(o, "Shapes  not recorded (no GFLOP/s, GB/s)");
    }
    let _ = writeln!(o);
    header(o, &s.columns);
    let limit = s.columns.name_limit;
    let children = || tree.rows[root].children.iter().map(|&c| (c, &tree.rows[c]));
    for (id, _) in children().filter(|(_, r)| r.kind == RowKind::Delegate) {
        delegate(o, tree, id, &s.columns);
    }
    let mut other = children()
        .filter(|(_, r)| r.kind == RowKind::Instruction)
        .peekable();
    if other.peek().is_some() {
        let _ = writeln!(o, "Other operators (not delegated)");
        for (_, op) in other {
            let id = op.instruction_id.unwrap_or(0);
            row(o, limit, 1, &format!("#{id} {}", op.name), &op.stats, None);
            source_line(o, 1, op.source.as_ref());
        }
    }
    if let Some((_, r)) = children().find(|(_, r)| r.facts == Facts::Remainder) {
        row(o, limit, 0, "Remainder of Method::execute", &r.stats, None);
    }
}

fn findings(o: &mut String, warnings: &[Finding], errors: &[Finding]) {
    for (label, list) in [("warning", warnings), ("ERROR", errors)] {
        for f in list.iter() {
            let _ = writeln!(o, "{label}: [{}] {}", escape(&f.kind), escape(&f.message));
        }
    }
}

/// The operator rows of the method at `root`'s delegates (in their steps or not).
fn delegate_operators(tree: &RowTree, root: usize) -> impl Iterator<Item = &Row> {
    tree.rows[root]
        .children
        .iter()
        .filter(|&&d| tree.rows[d].kind == RowKind::Delegate)
        .flat_map(|&d| tree.delegate_operators(d))
}

fn has_xnnpack_operators(tree: &RowTree, root: usize) -> bool {
    delegate_operators(tree, root).any(|op| op_kind(op) == Some(OperatorKind::Xnnpack))
}

/// An operator row's kind (what recorded it).
fn op_kind(r: &Row) -> Option<OperatorKind> {
    match r.facts {
        Facts::Operator { kind, .. } => Some(kind),
        _ => None,
    }
}

/// Whether an operator row's median is under the XNNPACK clock quantum.
fn below_resolution(r: &Row) -> bool {
    matches!(
        r.facts,
        Facts::Operator {
            below_resolution: true,
            ..
        }
    )
}

/// The name column's width: 44, or less when a terminal is narrower (`name_limit`).
fn name_width(name_limit: Option<usize>) -> usize {
    name_limit.map_or(NAME_WIDTH, |l| l.min(NAME_WIDTH))
}

fn header(o: &mut String, columns: &Columns) {
    let w = name_width(columns.name_limit);
    let _ = writeln!(
        o,
        "{:<w$} {:>5} {:>11} {:>11} {:>11} {:>11} {:>7}{}",
        "name",
        "count",
        "median",
        "p90",
        "min",
        "max",
        "share",
        columns.header()
    );
}

/// A row; `name_limit` as in [`Columns`].
fn row(
    o: &mut String,
    name_limit: Option<usize>,
    depth: usize,
    name: &str,
    s: &Stats,
    share: Option<f64>,
) {
    let share = share.map(percent).unwrap_or_default();
    row_text(o, name_limit, depth, name, s, &share, false, "");
}

/// A row; `below`: an XNNPACK operator, whose durations under the 1 µs clock quantum
/// read `<1 µs`; `tail`: the cells after `share` (efficiency).
#[allow(clippy::too_many_arguments)]
fn row_text(
    o: &mut String,
    name_limit: Option<usize>,
    depth: usize,
    name: &str,
    s: &Stats,
    share: &str,
    below: bool,
    tail: &str,
) {
    let d = |ms: f64| duration_or_below(ms, below && ms < XNNPACK_QUANTUM_MS);
    let indent = "  ".repeat(depth);
    let width = name_width(name_limit).saturating_sub(indent.len());
    // Names come from the dump: control characters are shown escaped, never sent raw.
    let name = escape(name);
    // Cut only to a terminal's width.
    let limit = name_limit.map(|l| l.saturating_sub(indent.len()).max(1));
    let name: String = match limit {
        Some(l) if crate::escape::display_width(&name) > l => crate::escape::cut_to_width(&name, l),
        _ => name.to_string(),
    };
    let _ = writeln!(
        o,
        "{indent}{} {:>5} {:>11} {:>11} {:>11} {:>11} {:>7}{tail}",
        crate::escape::pad_right(&name, width),
        s.count,
        d(s.median()),
        d(s.p90()),
        d(s.min()),
        d(s.max()),
        share
    );
}

/// Delegate row `id`: its title and plan, its steps (their operators), its operators,
/// its unattributed events.
fn delegate(o: &mut String, tree: &RowTree, id: usize, columns: &Columns) {
    let d = &tree.rows[id];
    let Facts::Delegate { backend, plan, .. } = &d.facts else {
        return;
    };
    // The one name of a delegate (`delegate #1`), its kind as the explorer says it.
    let title = format!("{} ({})", d.name, backend.label());
    let limit = columns.name_limit;
    row(o, limit, 0, &title, &d.stats, None);
    let mut about: Vec<String> = Vec::new();
    if let Some(plan) = plan {
        if let Some(policy) = &plan.policy {
            about.push(format!("policy {}", escape(policy)));
        }
        if let Some(t) = plan.threads() {
            about.push(format!("{t} thread{}", if t == 1 { "" } else { "s" }));
        }
    } else if *backend == DelegateKind::CpuPlan {
        about.push("no plan".to_string());
    }
    if !about.is_empty() {
        let _ = writeln!(o, "  {}", about.join(" · "));
    }
    source_line(o, 0, d.source.as_ref());
    for &c in &d.children {
        let r = &tree.rows[c];
        match (&r.facts, r.kind) {
            (Facts::Step { nodes, .. }, _) => {
                let listed = nodes.len();
                let nodes = if listed > 1 {
                    format!(" ({listed} nodes)")
                } else {
                    String::new()
                };
                row(
                    o,
                    limit,
                    1,
                    &format!("{}{nodes}", r.name),
                    &r.stats,
                    r.share,
                );
                for &op in &r.children {
                    operator(o, 2, &tree.rows[op], r.stats.median(), columns);
                }
            }
            (Facts::Operator { .. }, _) => operator(o, 1, r, d.stats.median(), columns),
            (Facts::Unattributed, _) => {
                row(o, limit, 1, &format!("? {}", r.name), &r.stats, None);
            }
            _ => {}
        }
    }
    let _ = writeln!(o);
}

fn operator(o: &mut String, depth: usize, op: &Row, parent_median: f64, columns: &Columns) {
    let below = below_resolution(op);
    let share = percent_or_bound(
        op.share.unwrap_or(0.0),
        below,
        XNNPACK_QUANTUM_MS,
        parent_median,
    );
    // Any duration of an XNNPACK operator under its 1 µs quantum reads `<1 µs` (a p10 of
    // 0.5 µs interpolated between 0 and 1 µs is not a measured 500 ns).
    let quantized = op_kind(op) == Some(OperatorKind::Xnnpack);
    row_text(
        o,
        columns.name_limit,
        depth,
        &op.name,
        &op.stats,
        &share,
        below || quantized,
        &columns.cells(op),
    );
    // An operator the ETRecord maps itself (not only through its delegate).
    if let Some(s) = op.source.as_ref().filter(|s| !s.through_delegate) {
        source_line(o, depth, Some(s));
    }
    if let (Some(i), Some(out)) = (&op.input_shapes, &op.output_shapes) {
        // The shapes, then what one call computes and moves.
        let mut per_call = String::new();
        if let Some(f) = op.flops {
            let _ = write!(per_call, " · {}", efficiency::count_text(f, "FLOP"));
        }
        if let Some(b) = op.bytes {
            let _ = write!(per_call, " · {}", efficiency::count_text(b, "B"));
        }
        let _ = writeln!(
            o,
            "{}  {} -> {}{per_call}",
            "  ".repeat(depth),
            shapes(i),
            shapes(out)
        );
    }
}

/// `  in layers.0: aten.flip.default  (make.py:83 in forward)` under a row with a source:
/// the module its nodes lie in (with the modules it spans), its operators, its line.
fn source_line(o: &mut String, depth: usize, source: Option<&RowSource>) {
    let Some(s) = source else { return };
    let _ = writeln!(o, "{}  {}", "  ".repeat(depth), escape(&source_text(s)));
}

/// One line describing a row's source (also the explorer's detail text).
pub fn source_text(s: &RowSource) -> String {
    let mut t = String::from("in ");
    match s.module_label() {
        Some(m) => t.push_str(m),
        None if s.nodes.is_empty() => t.push_str("no node of the ETRecord"),
        None => t.push_str("(no module)"),
    }
    if s.modules.len() > 1 {
        let _ = write!(
            t,
            " [spans {}]",
            s.modules
                .iter()
                .map(|m| if m.is_empty() { "(root)" } else { m.as_str() })
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let mut ops: Vec<(String, usize)> = Vec::new();
    for op in &s.op_types {
        match ops.iter_mut().find(|(o, _)| o == op) {
            Some((_, n)) => *n += 1,
            None => ops.push((op.clone(), 1)),
        }
    }
    if !ops.is_empty() {
        t.push_str(": ");
        let list: Vec<String> = ops
            .iter()
            .map(|(o, n)| {
                if *n > 1 {
                    format!("{o} x{n}")
                } else {
                    o.clone()
                }
            })
            .collect();
        t.push_str(&list.join(", "));
    }
    if let Some(l) = &s.source_line {
        let _ = write!(t, "  ({l})");
    }
    if s.through_delegate {
        t.push_str("  [through its delegate]");
    }
    t
}

/// Shapes as the explorer writes them (`crate::units::shape_list`).
pub(crate) fn shapes(list: &[Vec<i64>]) -> String {
    crate::units::shape_list(list)
}
