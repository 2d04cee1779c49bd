//! The readable grouped text report.

use std::fmt::Write;

use crate::escape::escape;
use crate::profile::{Delegate, DelegateKind, Finding, OperatorStats, Profile, RunCounts, Stats};
use crate::units::{duration_ms, duration_or_below, percent, percent_or_bound, XNNPACK_QUANTUM_MS};

const NAME_WIDTH: usize = 44;
/// Width of the columns after the name: count, four durations, share and the spaces.
const COLUMNS_WIDTH: usize = 1 + 5 + 4 * 12 + 8;

thread_local! {
    /// The longest name a row may print (None: whole names). Set by [`profile_table_cut`]
    /// for the duration of one table.
    static NAME_LIMIT: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// The table with whole names (a pipe or a file: names are data; a name longer than the
/// column pushes that row's numbers to the right).
pub fn profile_table(p: &Profile) -> String {
    profile_table_cut(p, None)
}

/// The table for a terminal `width` columns wide: names are cut (`…`) only where a line
/// would not fit; None keeps whole names.
pub fn profile_table_cut(p: &Profile, width: Option<usize>) -> String {
    let limit = width.map(|w| w.saturating_sub(COLUMNS_WIDTH).max(12));
    NAME_LIMIT.with(|l| l.set(limit));
    let out = table_text(p);
    NAME_LIMIT.with(|l| l.set(None));
    out
}

fn table_text(p: &Profile) -> String {
    let mut out = String::new();
    let o = &mut out;
    let _ = writeln!(o, "ETDump  {}", escape(&p.source.etdump));
    let _ = writeln!(
        o,
        "Log     {}",
        escape(p.source.log.as_deref().unwrap_or("(none)"))
    );
    if p.methods.len() > 1 {
        // One section per method (run signature), then the profile-wide findings.
        for m in &p.methods {
            let mut title = format!("== {} ", escape(&m.name));
            if let Some(b) = m.bundled_input_index {
                let _ = write!(title, "(bundled input {b}) ");
            }
            let _ = writeln!(
                o,
                "\n{title}{}",
                "=".repeat(60usize.saturating_sub(title.len()))
            );
            section(
                o,
                &Section {
                    runs: &m.runs,
                    method: m.method.as_ref(),
                    delegates: &m.delegates,
                    other: &m.other_operators,
                    remainder: m.remainder.as_ref(),
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
    section(
        o,
        &Section {
            runs: &p.runs,
            method: p.method.as_ref(),
            delegates: &p.delegates,
            other: &p.other_operators,
            remainder: p.remainder.as_ref(),
        },
    );
    findings(o, &p.warnings, &p.errors);
    out
}

struct Section<'a> {
    runs: &'a RunCounts,
    method: Option<&'a Stats>,
    delegates: &'a [Delegate],
    other: &'a [crate::profile::OtherOperator],
    remainder: Option<&'a Stats>,
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
            duration_ms(m.median),
            duration_ms(m.min),
            duration_ms(m.max),
            duration_ms(m.p90)
        );
    }
    let _ = writeln!(o);
    header(o);
    for d in s.delegates {
        delegate(o, d);
    }
    if !s.other.is_empty() {
        let _ = writeln!(o, "Other operators (not delegated)");
        for op in s.other {
            row(
                o,
                1,
                &format!("#{} {}", op.instruction_id, op.name),
                &op.stats,
                None,
            );
        }
    }
    if let Some(r) = s.remainder {
        row(o, 0, "Remainder of Method::execute", r, None);
    }
}

fn findings(o: &mut String, warnings: &[Finding], errors: &[Finding]) {
    for (label, list) in [("warning", warnings), ("ERROR", errors)] {
        for f in list.iter() {
            let _ = writeln!(o, "{label}: [{}] {}", escape(&f.kind), escape(&f.message));
        }
    }
}

/// The name column's width: 44, or less when a terminal is narrower.
fn name_width() -> usize {
    NAME_LIMIT
        .with(|l| l.get())
        .map_or(NAME_WIDTH, |l| l.min(NAME_WIDTH))
}

fn header(o: &mut String) {
    let w = name_width();
    let _ = writeln!(
        o,
        "{:<w$} {:>5} {:>11} {:>11} {:>11} {:>11} {:>7}",
        "name", "count", "median", "p90", "min", "max", "share"
    );
}

fn row(o: &mut String, depth: usize, name: &str, s: &Stats, share: Option<f64>) {
    let share = share.map(percent).unwrap_or_default();
    row_text(o, depth, name, s, &share, false);
}

/// A row; `below`: an XNNPACK operator, whose durations under the 1 µs clock quantum
/// read `<1 µs`.
fn row_text(o: &mut String, depth: usize, name: &str, s: &Stats, share: &str, below: bool) {
    let d = |ms: f64| duration_or_below(ms, below && ms < XNNPACK_QUANTUM_MS);
    let indent = "  ".repeat(depth);
    let width = name_width().saturating_sub(indent.len());
    // Names come from the dump: control characters are shown escaped, never sent raw.
    let name = escape(name);
    // Cut only to a terminal's width.
    let limit = NAME_LIMIT
        .with(|l| l.get())
        .map(|l| l.saturating_sub(indent.len()).max(1));
    let name: String = if limit.is_some_and(|l| name.chars().count() > l) {
        let l = limit.unwrap_or(width);
        let mut cut: String = name.chars().take(l.saturating_sub(1)).collect();
        cut.push('…');
        cut
    } else {
        name.to_string()
    };
    let _ = writeln!(
        o,
        "{indent}{name:<width$} {:>5} {:>11} {:>11} {:>11} {:>11} {:>7}",
        s.count,
        d(s.median),
        d(s.p90),
        d(s.min),
        d(s.max),
        share
    );
}

fn delegate(o: &mut String, d: &Delegate) {
    let kind = match d.kind {
        DelegateKind::CpuPlan => "CPU plan",
        DelegateKind::Xnnpack => "XNNPACK",
        DelegateKind::Other => "delegate",
    };
    let mut title = format!("{kind} delegate @ instruction {}", d.instruction_id);
    if let Some(plan) = &d.plan {
        if let Some(policy) = &plan.policy {
            let _ = write!(title, " [{policy}");
            if let Some(t) = plan.selection_context.as_ref().and_then(|c| c.threads) {
                let _ = write!(title, ", {t} thread{}", if t == 1 { "" } else { "s" });
            }
            title.push(']');
        }
    } else if d.kind == DelegateKind::CpuPlan {
        title.push_str(" [no plan]");
    }
    row(o, 0, &title, &d.call, None);
    for step in &d.steps {
        let nodes = if step.nodes.len() > 1 {
            format!(" ({} nodes)", step.nodes.len())
        } else {
            String::new()
        };
        row(
            o,
            1,
            &format!("{}{nodes}", step.name),
            &step.stats,
            Some(step.share),
        );
        for op in &step.operators {
            operator(o, 2, op, step.stats.median);
        }
    }
    for op in &d.operators {
        operator(o, 1, op, d.call.median);
    }
    for u in &d.unattributed {
        row(o, 1, &format!("? {}", u.name), &u.stats, None);
    }
    let _ = writeln!(o);
}

fn operator(o: &mut String, depth: usize, op: &OperatorStats, parent_median: f64) {
    let below = op.below_resolution();
    let share = percent_or_bound(op.share, below, XNNPACK_QUANTUM_MS, parent_median);
    // Any duration of an XNNPACK operator under its 1 µs quantum reads `<1 µs` (a p10 of
    // 0.5 µs interpolated between 0 and 1 µs is not a measured 500 ns).
    let quantized = op.kind == crate::profile::OperatorKind::Xnnpack;
    row_text(o, depth, &op.name, &op.stats, &share, below || quantized);
    if let (Some(i), Some(out)) = (&op.input_shapes, &op.output_shapes) {
        let _ = writeln!(
            o,
            "{}  {} -> {}",
            "  ".repeat(depth),
            shapes(i),
            shapes(out)
        );
    }
}

/// Shapes as the explorer writes them (`crate::units::shape_list`).
pub(crate) fn shapes(list: &[Vec<i64>]) -> String {
    crate::units::shape_list(list)
}
