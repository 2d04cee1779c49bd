//! The readable grouped text report.

use std::fmt::Write;

use crate::escape::escape;
use crate::profile::{Delegate, DelegateKind, OperatorStats, Profile, Stats};
use crate::units::{duration_ms, percent};

const NAME_WIDTH: usize = 44;

pub fn profile_table(p: &Profile) -> String {
    let mut out = String::new();
    let o = &mut out;
    let _ = writeln!(o, "ETDump  {}", escape(&p.source.etdump));
    let _ = writeln!(
        o,
        "Log     {}",
        escape(p.source.log.as_deref().unwrap_or("(none)"))
    );
    let _ = writeln!(
        o,
        "Runs    {} total, {} warm-up dropped, {} kept",
        p.runs.total, p.runs.warmup_dropped, p.runs.kept
    );
    if let Some(m) = &p.method {
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
    for d in &p.delegates {
        delegate(o, d);
    }
    if !p.other_operators.is_empty() {
        let _ = writeln!(o, "Other operators (not delegated)");
        for op in &p.other_operators {
            row(
                o,
                1,
                &format!("#{} {}", op.instruction_id, op.name),
                &op.stats,
                None,
            );
        }
    }
    if let Some(r) = &p.remainder {
        row(o, 0, "Remainder of Method::execute", r, None);
    }
    for (label, list) in [("warning", &p.warnings), ("ERROR", &p.errors)] {
        for f in list.iter() {
            let _ = writeln!(o, "{label}: [{}] {}", escape(&f.kind), escape(&f.message));
        }
    }
    out
}

fn header(o: &mut String) {
    let _ = writeln!(
        o,
        "{:<NAME_WIDTH$} {:>5} {:>11} {:>11} {:>11} {:>11} {:>7}",
        "name", "count", "median", "p90", "min", "max", "share"
    );
}

fn row(o: &mut String, depth: usize, name: &str, s: &Stats, share: Option<f64>) {
    let indent = "  ".repeat(depth);
    let width = NAME_WIDTH.saturating_sub(indent.len());
    // Names come from the dump: control characters are shown escaped, never sent raw.
    let name = escape(name);
    let name: String = if name.chars().count() > width {
        let mut cut: String = name.chars().take(width.saturating_sub(1)).collect();
        cut.push('…');
        cut
    } else {
        name.to_string()
    };
    let _ = writeln!(
        o,
        "{indent}{name:<width$} {:>5} {:>11} {:>11} {:>11} {:>11} {:>7}",
        s.count,
        duration_ms(s.median),
        duration_ms(s.p90),
        duration_ms(s.min),
        duration_ms(s.max),
        share.map(percent).unwrap_or_default()
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
            operator(o, 2, op);
        }
    }
    for op in &d.operators {
        operator(o, 1, op);
    }
    for u in &d.unattributed {
        row(o, 1, &format!("? {}", u.name), &u.stats, None);
    }
    let _ = writeln!(o);
}

fn operator(o: &mut String, depth: usize, op: &OperatorStats) {
    row(o, depth, &op.name, &op.stats, Some(op.share));
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
