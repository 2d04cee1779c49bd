//! Detail pane: full statistics, a latency histogram and a per-run sparkline of the
//! selected tree node or operator.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::pane_frame;
use super::text::{block, fit};
use super::{pane_focused, Theme};
use crate::app::format::{duration_ms, percent};
use crate::app::histogram;
use crate::app::{AppState, ExplorerData, Pane, SourceKind};
use crate::profile::Stats;

/// Histogram bars never taller than this many rows.
const MAX_HIST_ROWS: u16 = 10;

pub fn render(frame: &mut Frame, area: Rect, data: &ExplorerData, state: &AppState, theme: &Theme) {
    let focused = pane_focused(state, Pane::Detail);
    let inner = pane_frame(frame, area, " Detail ", focused, theme);
    let Some(id) = state.detail_node() else {
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
    let mut lines = vec![Line::styled(fit(&node.name, w, false), theme.title())];
    let mut facts = vec![node.kind.tag().to_string()];
    if !node.info.is_empty() {
        facts.push(node.info.clone());
    }
    if let (Some(op), SourceKind::Etdump) = (op, data.kind) {
        facts.push(format!("delegate {}", op.delegate));
        facts.push(format!("step {}", op.step));
    }
    lines.push(Line::styled(fit(&facts.join(" · "), w, false), theme.dim()));
    let pair = |a: &str, av: String, b: &str, bv: String| {
        let half = w / 2;
        Line::raw(format!(
            "{}{}",
            fit(&format!("{a:<8}{av}"), half, false),
            fit(&format!("{b:<8}{bv}"), w - half, false)
        ))
    };
    let share = node.share.map(percent).unwrap_or_else(|| "-".into());
    lines.push(pair("count", s.count.to_string(), "share", share));
    if s.count > 0 {
        lines.push(pair(
            "median",
            duration_ms(s.median),
            "mean",
            duration_ms(s.mean),
        ));
        lines.push(pair("min", duration_ms(s.min), "max", duration_ms(s.max)));
        lines.push(pair("p10", duration_ms(s.p10), "p90", duration_ms(s.p90)));
        lines.push(pair(
            "p99",
            duration_ms(s.p99),
            "stddev",
            duration_ms(s.stddev),
        ));
        let (label, value) = match data.kind {
            SourceKind::Etdump => ("warm-up", format!("{} dropped", s.warmup_samples.len())),
            SourceKind::Trace => ("calls", s.count.to_string()),
        };
        lines.push(pair("total", duration_ms(s.total()), label, value));
    }
    if let Some(op) = op {
        if !op.input_shapes.is_empty() || !op.output_shapes.is_empty() {
            let io = format!("in {}  out {}", op.input_shapes, op.output_shapes);
            lines.push(Line::raw(fit(&io, w, false)));
        }
    }
    let used = lines.len() as u16;
    let text_area = Rect::new(inner.x, inner.y, inner.width, used.min(inner.height));
    frame.render_widget(Paragraph::new(lines), text_area);
    let rest = inner.height.saturating_sub(used);
    if s.count == 0 || rest < 4 {
        return;
    }
    // Sparkline: title + bars + markers (3 rows) at the bottom; histogram above.
    let spark_h = 3;
    let hist_h = rest.saturating_sub(spark_h + 1);
    if hist_h >= 3 {
        let bars = (hist_h - 2).min(MAX_HIST_ROWS);
        let r = Rect::new(inner.x, inner.y + used + 1, inner.width, bars + 2);
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

/// Title row, `area.height - 2` rows of bars, an axis row with unit-aware labels.
fn render_histogram(frame: &mut Frame, area: Rect, s: &Stats, theme: &Theme) {
    let h = histogram::bin(&s.samples, area.width);
    let rows = area.height.saturating_sub(2) as usize;
    let max = h.max_count().max(1);
    let facts = format!(
        "  {} runs · {} bin{} of {} · peak {}",
        s.samples.len(),
        h.counts.len(),
        if h.counts.len() == 1 { "" } else { "s" },
        duration_ms(h.bin_width()),
        max
    );
    let facts = if facts.chars().count() + 9 > area.width as usize {
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
    let gap = span.saturating_sub(lo.chars().count() + hi.chars().count());
    lines.push(Line::styled(
        format!("{lo}{}{hi}", " ".repeat(gap)),
        theme.dim(),
    ));
    frame.render_widget(Paragraph::new(lines), area);
}

/// Per-run sparkline in run order: warm-up runs (dropped) first, marked `w` below.
fn render_runs(frame: &mut Frame, area: Rect, s: &Stats, kind: SourceKind, theme: &Theme) {
    let warm = s.warmup_samples.len();
    let values: Vec<f64> = s.warmup_samples.iter().chain(&s.samples).copied().collect();
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
    let lo = buckets.iter().map(|b| b.0).fold(f64::INFINITY, f64::min);
    let hi = buckets
        .iter()
        .map(|b| b.0)
        .fold(f64::NEG_INFINITY, f64::max);
    let mut bars = Vec::with_capacity(cols);
    let mut marks = String::with_capacity(cols);
    for (v, is_warm) in &buckets {
        let level = if hi > lo {
            1 + ((v - lo) / (hi - lo) * 7.0).round() as usize
        } else {
            4
        };
        let style = if *is_warm {
            theme.warmup()
        } else {
            theme.kept()
        };
        bars.push(Span::styled(block(level).to_string(), style));
        marks.push(if *is_warm { 'w' } else { '·' });
    }
    let (title, mut facts) = match kind {
        SourceKind::Etdump => (
            "per run",
            format!(
                "  {} warm-up (w) + {} kept · {}–{}",
                warm,
                s.samples.len(),
                duration_ms(lo),
                duration_ms(hi)
            ),
        ),
        SourceKind::Trace => (
            "per call",
            format!(
                "  {} calls · {}–{}",
                s.samples.len(),
                duration_ms(lo),
                duration_ms(hi)
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
            duration_ms(lo),
            duration_ms(hi)
        );
    }
    if kind == SourceKind::Etdump && !several_per_run && facts.chars().count() + 7 > width {
        facts = format!(
            "  {}w + {} · {}–{}",
            warm,
            s.samples.len(),
            duration_ms(lo),
            duration_ms(hi)
        );
    }
    let title = Line::from(vec![
        Span::styled(title, theme.title()),
        Span::styled(facts, theme.dim()),
    ]);
    let lines = vec![title, Line::from(bars), Line::styled(marks, theme.dim())];
    frame.render_widget(Paragraph::new(lines), area);
}
