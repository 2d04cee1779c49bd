//! The compare view's detail pane: the selected row's name and path, its verdict, both
//! sides' statistics, histograms of A and B on one axis and per-run sparklines. Render
//! only.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use crate::compare::Verdict;
use crate::stats::Stats;
use crate::ui::text::{block, fit, fit_middle};
use crate::ui::Theme;
use crate::units::duration_ms;
use crate::views::compare::state::{delegate_of, verdict_mark, CompareView};
use ratatui::style::Style;

/// One row of `levels` block characters for counts scaled to `max`.
fn bars(counts: &[usize], max: usize) -> String {
    counts
        .iter()
        .map(|&n| {
            if n == 0 || max == 0 {
                ' '
            } else {
                block(((n * 8).div_ceil(max)).clamp(1, 8))
            }
        })
        .collect()
}

/// Counts of `values` in `bins` equal bins over `lo..=hi`.
fn histogram(values: &[f64], lo: f64, hi: f64, bins: usize) -> Vec<usize> {
    let mut counts = vec![0usize; bins.max(1)];
    for &v in values.iter().filter(|v| v.is_finite()) {
        let i = if hi > lo {
            (((v - lo) / (hi - lo)) * bins as f64).floor() as usize
        } else {
            0
        };
        counts[i.min(bins.max(1) - 1)] += 1;
    }
    counts
}

/// Per-run sparkline of `values` on the axis `lo..=hi`, the last `width` runs.
fn sparkline(values: &[f64], lo: f64, hi: f64, width: usize) -> String {
    let skip = values.len().saturating_sub(width);
    values[skip..]
        .iter()
        .map(|&v| {
            if !v.is_finite() {
                ' '
            } else if hi > lo {
                block(1 + ((v - lo) / (hi - lo) * 7.0).round().clamp(0.0, 7.0) as usize)
            } else {
                block(4)
            }
        })
        .collect()
}

pub(super) fn draw_detail(frame: &mut Frame, area: Rect, view: &CompareView, theme: &Theme) {
    let blk = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(false))
        .title(Span::styled(" detail ", theme.title()));
    let inner = blk.inner(area);
    frame.render_widget(blk, area);
    let Some(r) = view.selected_row() else {
        return;
    };
    if inner.width < 12 || inner.height == 0 {
        return;
    }
    let w = inner.width as usize;
    let (la, lb) = if view.swapped { ("B", "A") } else { ("A", "B") };
    let mut lines: Vec<Line> = Vec::new();
    // The name and its kind, then the whole path from the method down (wrapped, never
    // cut: it is what tells same-named rows apart), each step in the notation of the tree.
    let index = view.visible.get(view.selected).copied().unwrap_or(0);
    let kind = r.kind.label();
    lines.push(Line::from(vec![
        Span::styled(
            fit_middle(&clean(&r.name), w.saturating_sub(kind.len() + 2).max(1)),
            theme.title(),
        ),
        Span::styled(format!("  {kind}"), theme.dim()),
    ]));
    let mut where_ = Vec::new();
    if r.path.len() > 1 {
        where_.push(clean(&r.path[..r.path.len() - 1].join(" › ")));
    }
    if let (None, Some(id)) = (delegate_of(view.comparison(), index), r.instruction_id) {
        where_.push(format!("instruction {id}"));
    }
    // The nn.Module the row's nodes lie in (from the ETRecord): which layer changed.
    if let Some(m) = &r.module {
        let m = if m.is_empty() {
            "(root)".into()
        } else {
            clean(m)
        };
        where_.push(format!("module {m}"));
    }
    if !where_.is_empty() {
        for part in crate::app::format::wrap(&format!("in {}", where_.join(" · ")), w) {
            lines.push(Line::styled(part, theme.dim()));
        }
    }
    let mut verdict = format!("{} {}", verdict_mark(r.verdict), r.verdict.label());
    if let Some(d) = r.delta_pct {
        verdict.push_str(&format!("  {}", pct(d)));
    }
    if let Some((lo, hi)) = r.ci_pct {
        verdict.push_str(&format!(" [{}, {}]", pct(lo), pct(hi)));
    }
    let mut p_part = String::new();
    if let Some(p) = r.p_value {
        p_part = format!("p {}", p_text(p));
        if let Some(raw) = r.p_raw {
            p_part.push_str(&format!(" (raw {})", p_text(raw)));
        }
    }
    let style = verdict_style(r.verdict, theme);
    if verdict.width() + 2 + p_part.width() <= w {
        if !p_part.is_empty() {
            verdict.push_str(&format!("  {p_part}"));
        }
        lines.push(Line::styled(verdict, style));
    } else {
        // A narrow pane (beside the list, so tall enough): p on its own line.
        lines.push(Line::styled(fit(&verdict, w, false), style));
        lines.push(Line::styled(
            format!("  {}", fit(&p_part, w - 2, false)),
            style,
        ));
    }
    // The statistics: a side label, the count and three durations, each column as wide
    // as the pane allows (a duration is at most 9 cells: `1234.5 ms`), never cut.
    let vw = (w.saturating_sub(4 + 6) / 3).clamp(9, 10);
    lines.push(Line::styled(
        fit(
            &format!(
                "    {:>6}{:>vw$}{:>vw$}{:>vw$}",
                "count", "median", "p10", "p90"
            ),
            w,
            false,
        ),
        theme.header_cell(false),
    ));
    for (label, s) in [(la, &r.a), (lb, &r.b)] {
        let text = match s {
            Some(s) if s.count > 0 => format!(
                "   {label}{:>6}{:>vw$}{:>vw$}{:>vw$}",
                s.count,
                crate::units::operator_median(r.kind.is_operator(), s.median()),
                duration_ms(s.p10()),
                duration_ms(s.p90())
            ),
            Some(_) => format!("   {label}  no samples"),
            None => format!("   {label}  (no such row)"),
        };
        lines.push(Line::raw(fit(&text, w, false)));
    }
    // Histograms of both sides on one axis (its range on the first), then per-run
    // sparklines on the same axis.
    let all: Vec<f64> = [&r.a, &r.b]
        .iter()
        .filter_map(|s| s.as_ref())
        .flat_map(|s| s.samples.iter_ms())
        .collect();
    if !all.is_empty() {
        let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = all.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let range = format!("  {} … {}", duration_ms(lo), duration_ms(hi));
        let room = w.saturating_sub(8); // " hist A "
        let bins = room.saturating_sub(range.width()).clamp(1, 40);
        let hist = |s: &Option<Stats>| {
            s.as_ref().map_or(vec![0; bins], |s| {
                histogram(&s.samples.to_ms(), lo, hi, bins)
            })
        };
        let (ha, hb) = (hist(&r.a), hist(&r.b));
        let max = ha.iter().chain(&hb).copied().max().unwrap_or(0);
        lines.push(Line::from(vec![
            Span::styled(format!(" hist {la} "), theme.dim()),
            Span::styled(bars(&ha, max), theme.bar()),
            Span::styled(range, theme.dim()),
        ]));
        lines.push(Line::from(vec![
            Span::styled(format!(" hist {lb} "), theme.dim()),
            Span::styled(bars(&hb, max), theme.slower()),
        ]));
        for (label, s) in [(la, &r.a), (lb, &r.b)] {
            if let Some(s) = s {
                lines.push(Line::from(vec![
                    Span::styled(format!(" runs {label} "), theme.dim()),
                    Span::styled(sparkline(&s.samples.to_ms(), lo, hi, room), theme.kept()),
                ]));
            }
        }
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

pub(super) fn clean(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        if ch.is_control() {
            out.extend(ch.escape_default());
        } else {
            out.push(ch);
        }
    }
    out
}

pub(super) fn pct(x: f64) -> String {
    if x.is_finite() {
        format!("{x:+.1}%")
    } else {
        "-".into()
    }
}

pub(super) fn p_text(p: f64) -> String {
    // An adjusted p of 1 tells nothing: `–`, as in the text table.
    if p >= 1.0 {
        crate::units::NO_BOUND.to_string()
    } else if p < 1e-3 {
        format!("{p:.0e}")
    } else {
        format!("{p:.3}")
    }
}

pub(super) fn verdict_style(v: Verdict, theme: &Theme) -> Style {
    match v {
        Verdict::Slower => theme.slower(),
        Verdict::Faster => theme.faster(),
        Verdict::Same => theme.dim(),
        _ => theme.warning(),
    }
}
