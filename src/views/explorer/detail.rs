//! Detail pane: full statistics, a latency histogram and a per-run sparkline of the
//! selected tree node or operator.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use super::state::{ExplorerView, Pane};
use crate::app::data::{ExplorerData, SourceKind};
use crate::app::format::{count, duration_ms, percent, wrap};
use crate::app::histogram;
use crate::profile::Stats;
use crate::ui::pane_frame;
use crate::ui::text::{block, fit};
use crate::ui::Theme;

/// Histogram bars never taller than this many rows.
const MAX_HIST_ROWS: u16 = 10;

/// The detail pane of `ex`'s selection (`focused`: it has the keys).
pub fn render(
    frame: &mut Frame,
    area: Rect,
    data: &ExplorerData,
    ex: &ExplorerView,
    focused: bool,
    theme: &Theme,
) {
    let inner = pane_frame(frame, area, " Detail ", focused, theme);
    let Some(id) = ex.detail_node(Some(data)) else {
        frame.render_widget(
            Paragraph::new(Line::styled("nothing selected", theme.dim())),
            inner,
        );
        return;
    };
    let node = &data.nodes[id];
    let op = node.op_row.and_then(|r| data.ops.get(r));
    let s = &node.stats;
    let w = inner.width as usize;
    // Name, facts and shapes wrap: the detail is where a cut table cell reads in full.
    let mut lines: Vec<Line> = wrap(&node.name, w)
        .into_iter()
        .map(|l| Line::styled(l, theme.title()))
        .collect();
    let mut facts = vec![node.kind.tag().to_string()];
    if !node.info.is_empty() {
        facts.push(node.info.clone());
    }
    let mut step = None;
    if let (Some(op), SourceKind::Etdump) = (op, data.kind) {
        facts.push(data.delegate_text(op));
        if !op.step.is_empty() && op.step != "-" {
            step = Some(format!("step {}", op.step));
        }
    }
    for text in std::iter::once(facts.join(" · ")).chain(step) {
        lines.extend(
            wrap(&text, w)
                .into_iter()
                .map(|l| Line::styled(l, theme.dim())),
        );
    }
    // What the checks found about this node, before the numbers (`w` lists them all).
    lines.extend(super::detail_facts::findings(data, id, w, theme));
    let pair = |a: &str, av: String, b: &str, bv: String| {
        let half = w / 2;
        Line::raw(format!(
            "{}{}",
            fit(&format!("{a:<8}{av}"), half, false),
            fit(&format!("{b:<8}{bv}"), w - half, false)
        ))
    };
    // Under the clock quantum a share is only bounded (`<x%`, or `–`: see below).
    let below = op.and_then(|o| o.below_resolution);
    let share = match (node.share, below) {
        (Some(x), Some(parent)) => {
            crate::units::percent_or_bound(x, true, crate::units::XNNPACK_QUANTUM_MS, parent)
        }
        (Some(x), None) => percent(x),
        (None, _) => "-".into(),
    };
    let share_label = match (op, data.kind) {
        (Some(_), SourceKind::Trace) => "%self",
        _ => "%parent",
    };
    let method = match (op.and_then(|o| o.share_method), below) {
        (Some(bound), Some(_)) => crate::units::percent_bound(bound),
        (Some(x), None) => percent(x),
        (None, _) => "-".into(),
    };
    let (label, value) = match data.kind {
        SourceKind::Etdump => ("warm-up", format!("{} dropped", s.warmup_samples.len())),
        SourceKind::Trace => ("calls", s.count.to_string()),
    };
    lines.push(pair("count", s.count.to_string(), label, value));
    if s.count > 0 {
        lines.push(pair(
            "median",
            duration_ms(s.median()),
            "mean",
            duration_ms(s.mean()),
        ));
        lines.push(pair(
            "min",
            duration_ms(s.min()),
            "max",
            duration_ms(s.max()),
        ));
        lines.push(pair(
            "p10",
            duration_ms(s.p10()),
            "p90",
            duration_ms(s.p90()),
        ));
        lines.push(pair(
            "p99",
            duration_ms(s.p99()),
            "stddev",
            duration_ms(s.stddev()),
        ));
    }
    let total = if s.count > 0 {
        duration_ms(s.total())
    } else {
        "-".into()
    };
    if data.kind == SourceKind::Etdump && op.is_some() {
        lines.push(pair(share_label, share, "%method", method));
        // An operator's rate beside its total (the rest of its efficiency below).
        let rate = op
            .filter(|o| o.cost.flops.is_some() || o.cost.bytes.is_some())
            .map(|o| crate::app::table::rate_text(o.rates.gflops));
        match rate {
            Some(r) => lines.push(pair("total", total, "GFLOP/s", r)),
            None => lines.push(pair("total", total, "", String::new())),
        }
    } else {
        lines.push(pair(share_label, share, "total", total));
    }
    // A type's row (`o`) has its own node outside the tree.
    let row = op.or_else(|| data.groups.iter().find(|g| g.node == id));
    // The GFLOP/s went beside the total for an operator of a dump.
    let gflops_shown = data.kind == SourceKind::Etdump && op.is_some();
    if let Some(op) = row {
        lines.extend(super::detail_facts::no_bound(data, op, w, theme));
    }
    if let Some(op) = op {
        for (label, shapes) in [("in  ", &op.input_shapes), ("out ", &op.output_shapes)] {
            if !shapes.is_empty() {
                for (i, l) in wrap(shapes, w.saturating_sub(4)).into_iter().enumerate() {
                    let head = if i == 0 { label } else { "    " };
                    lines.push(Line::raw(format!("{head}{l}")));
                }
            }
        }
    }
    if let Some(op) = row {
        lines.extend(super::detail_facts::efficiency(op, gflops_shown, w, theme));
    }
    if let Some(src) = data.sources.get(&id) {
        let mut text = format!("source {}", crate::report::source_text(src));
        if src.through_delegate {
            text.push_str(" (through delegate)");
        }
        if src.file_line.is_some() && ex.focus == Pane::Detail {
            text.push_str(" · c copies file:line");
        }
        for l in wrap(&crate::escape::escape(&text), w) {
            lines.push(Line::styled(l, theme.dim()));
        }
    }
    let used = lines.len() as u16;
    let text_area = Rect::new(inner.x, inner.y, inner.width, used.min(inner.height));
    frame.render_widget(Paragraph::new(lines), text_area);
    let rest = inner.height.saturating_sub(used);
    // The per-run sparkline takes 3 rows.
    if s.count == 0 || rest < 3 {
        return;
    }
    // Sparkline: title + bars + markers (3 rows) at the bottom; histogram above (a
    // blank row before it when there is room).
    let spark_h = 3;
    let gap = u16::from(rest >= spark_h + 5);
    let hist_h = rest.saturating_sub(spark_h + gap);
    if hist_h >= 3 {
        let bars = (hist_h - 2).min(MAX_HIST_ROWS);
        let r = Rect::new(
            inner.x,
            inner.y + used + gap,
            inner.width,
            hist_h.min(bars + 3),
        );
        render_histogram(frame, r, s, theme);
    }
    let r = Rect::new(
        inner.x,
        inner.y + inner.height - spark_h,
        inner.width,
        spark_h,
    );
    render_runs(frame, r, s, data.kind, theme);
}

/// Title row, bars, an axis row with the edges' values. A long tail is left out of
/// the bins (`histogram::bin_bulk`) and counted beyond the labelled edges.
fn render_histogram(frame: &mut Frame, area: Rect, s: &Stats, theme: &Theme) {
    let h = histogram::bin_bulk(&s.samples.to_ms(), area.width);
    let outliers = h.below + h.above > 0;
    let rows = area.height.saturating_sub(2 + u16::from(outliers)) as usize;
    let max = h.max_count().max(1);
    let facts = format!(
        "  {} · {} of {} · peak {}",
        count(s.samples.len(), "sample"),
        count(h.counts.len(), "bin"),
        duration_ms(h.bin_width()),
        max
    );
    let facts = if facts.width() + 9 > area.width as usize {
        format!(
            "  {} × {} · peak {}",
            h.counts.len(),
            duration_ms(h.bin_width()),
            max
        )
    } else {
        facts
    };
    let mut lines = vec![Line::from(vec![
        Span::styled("histogram", theme.title()),
        Span::styled(facts, theme.dim()),
    ])];
    for row in (0..rows).rev() {
        let mut text = String::with_capacity(area.width as usize * 3);
        for &c in &h.counts {
            let eighths = (c * rows * 8).div_ceil(max);
            let level = eighths.saturating_sub(row * 8).min(8);
            let ch = if c > 0 && row == 0 && level == 0 {
                block(1)
            } else {
                block(level)
            };
            text.push(ch);
            text.push(' ');
        }
        lines.push(Line::styled(text, theme.bar()));
    }
    let lo = duration_ms(h.lo);
    let hi = duration_ms(h.hi);
    let span = (h.counts.len() * histogram::CELLS_PER_BIN as usize).max(lo.len() + hi.len() + 2);
    let gap = span.saturating_sub(lo.width() + hi.width());
    lines.push(Line::styled(
        format!("{lo}{}{hi}", " ".repeat(gap)),
        theme.dim(),
    ));
    if outliers {
        let mut parts = Vec::new();
        if h.below > 0 {
            parts.push(format!(
                "{} below {lo} (min {})",
                h.below,
                duration_ms(s.min())
            ));
        }
        if h.above > 0 {
            parts.push(format!(
                "{} above {hi} (max {})",
                h.above,
                duration_ms(s.max())
            ));
        }
        lines.push(Line::styled(
            fit(
                &format!("outside: {}", parts.join(", ")),
                area.width as usize,
                false,
            ),
            theme.warning(),
        ));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// Per-run sparkline in run order: warm-up runs (dropped) first, marked `w` below. The
/// scale is that of the kept runs; a warm-up run beyond it is clipped (drawn full, `^`
/// below instead of `w`).
fn render_runs(frame: &mut Frame, area: Rect, s: &Stats, kind: SourceKind, theme: &Theme) {
    let warm = s.warmup_samples.len();
    let values: Vec<f64> = s
        .warmup_samples
        .iter_ms()
        .chain(s.samples.iter_ms())
        .collect();
    let width = area.width as usize;
    if values.is_empty() || width == 0 {
        return;
    }
    // One column per run, or runs averaged in buckets when there are more runs than cells.
    let cols = values.len().min(width);
    let mut buckets: Vec<(f64, bool)> = Vec::with_capacity(cols);
    for c in 0..cols {
        let a = c * values.len() / cols;
        let b = ((c + 1) * values.len() / cols).max(a + 1);
        let mean = values[a..b].iter().sum::<f64>() / (b - a) as f64;
        buckets.push((mean, a < warm));
    }
    let kept = buckets.iter().filter(|b| !b.1).map(|b| b.0);
    let lo = kept.clone().fold(f64::INFINITY, f64::min);
    let hi = kept.fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() {
        (lo, hi)
    } else {
        // Only warm-up runs: their own scale.
        let all = buckets.iter().map(|b| b.0);
        (
            all.clone().fold(f64::INFINITY, f64::min),
            all.fold(f64::NEG_INFINITY, f64::max),
        )
    };
    let mut bars = Vec::with_capacity(cols);
    let mut marks = String::with_capacity(cols);
    for (v, is_warm) in &buckets {
        let clipped = *v > hi || *v < lo;
        let level = if hi > lo {
            1 + ((v.clamp(lo, hi) - lo) / (hi - lo) * 7.0).round() as usize
        } else {
            4
        };
        let style = if *is_warm {
            theme.warmup()
        } else {
            theme.kept()
        };
        bars.push(Span::styled(block(level).to_string(), style));
        marks.push(match (*is_warm, clipped) {
            (true, true) => '^',
            (true, false) => 'w',
            _ => '·',
        });
    }
    // The range printed is the statistics' min and max (buckets average runs, so their
    // range can be narrower).
    let (label_lo, label_hi) = if s.count > 0 {
        (s.min(), s.max())
    } else {
        (lo, hi)
    };
    let (title, mut facts) = match kind {
        SourceKind::Etdump => (
            "per run",
            format!(
                "  {} warm-up (w, ^ off scale) + {} kept · {}–{}",
                warm,
                s.samples.len(),
                duration_ms(label_lo),
                duration_ms(label_hi)
            ),
        ),
        SourceKind::Trace => (
            "per call",
            format!(
                "  {} · {}–{}",
                count(s.samples.len(), "call"),
                duration_ms(label_lo),
                duration_ms(label_hi)
            ),
        ),
    };
    // A delegate called more than once per run has several samples per run: the bars
    // are then samples in run order, and the title says how many per run.
    let several_per_run = s.runs.windows(2).any(|w| w[0] == w[1]);
    let mut title = title;
    if kind == SourceKind::Etdump && several_per_run {
        let mut distinct = s.runs.clone();
        distinct.dedup();
        title = "per sample";
        facts = format!(
            "  {} samples in {} runs ({:.1} per run) · {}–{}",
            s.samples.len(),
            distinct.len(),
            s.samples.len() as f64 / distinct.len().max(1) as f64,
            duration_ms(label_lo),
            duration_ms(label_hi)
        );
    }
    if kind == SourceKind::Etdump && !several_per_run && facts.width() + 7 > width {
        facts = format!(
            "  {}w + {} kept · {}–{}",
            warm,
            s.samples.len(),
            duration_ms(label_lo),
            duration_ms(label_hi)
        );
    }
    let title = Line::from(vec![
        Span::styled(title, theme.title()),
        Span::styled(facts, theme.dim()),
    ]);
    let lines = vec![title, Line::from(bars), Line::styled(marks, theme.dim())];
    frame.render_widget(Paragraph::new(lines), area);
}
