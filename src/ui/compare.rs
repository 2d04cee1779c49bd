//! The compare view: header (both sides), summary (counts per verdict), the row list
//! (tree or sorted table: verdict mark, name, median A, median B, change with its
//! interval, p), the detail pane (both sides' statistics, histograms of A and B on one
//! axis, per-run sparklines), warnings and key hints. Render only.

use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use super::text::{block, fit, fit_middle};
use super::Theme;
use crate::app::compare::{delegate_of, verdict_mark, where_short, CompareView};
use crate::app::keymap::{view_help, ViewKind};
use crate::compare::{CompareWarning, Verdict};
use crate::stats::Stats;
use crate::units::duration_ms;

/// Where each part of the compare view goes on a `width` × `height` screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompareAreas {
    pub header: Rect,
    pub list: Rect,
    pub detail: Rect,
    pub footer: Rect,
}

/// Wide screens put the detail beside the list, narrow ones below it.
pub fn areas(width: u16, height: u16) -> CompareAreas {
    let header = Rect::new(0, 0, width, 2.min(height));
    let footer_h = if height > 4 { 1 } else { 0 };
    let footer = Rect::new(0, height.saturating_sub(footer_h), width, footer_h);
    let body_y = header.height;
    let body_h = height.saturating_sub(header.height + footer_h);
    let (list, detail) = if width >= 120 {
        let dw = (width / 3).max(44).min(width);
        (
            Rect::new(0, body_y, width - dw, body_h),
            Rect::new(width - dw, body_y, dw, body_h),
        )
    } else {
        // Nine lines of detail (name, verdict, statistics, histograms, runs) + border.
        let dh = (body_h / 2).max(body_h.min(11)).min(body_h);
        (
            Rect::new(0, body_y, width, body_h - dh),
            Rect::new(0, body_y + body_h - dh, width, dh),
        )
    };
    CompareAreas {
        header,
        list,
        detail,
        footer,
    }
}

/// Rows the list shows at this size (inside its border).
pub fn list_height(width: u16, height: u16) -> usize {
    areas(width, height).list.height.saturating_sub(3) as usize
}

fn clean(s: &str) -> String {
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

fn pct(x: f64) -> String {
    if x.is_finite() {
        format!("{x:+.1}%")
    } else {
        "-".into()
    }
}

fn p_text(p: f64) -> String {
    // An adjusted p of 1 tells nothing: `–`, as in the text table.
    if p >= 1.0 {
        crate::units::NO_BOUND.to_string()
    } else if p < 1e-3 {
        format!("{p:.0e}")
    } else {
        format!("{p:.3}")
    }
}

fn verdict_style(v: Verdict, theme: &Theme) -> Style {
    match v {
        Verdict::Slower => theme.slower(),
        Verdict::Faster => theme.faster(),
        Verdict::Same => theme.dim(),
        _ => theme.warning(),
    }
}

fn file_name(s: &str) -> String {
    let name = std::path::Path::new(s)
        .file_name()
        .map_or_else(|| s.to_string(), |n| n.to_string_lossy().into_owned());
    clean(&name)
}

/// The whole screen; `notice`: the footer's one-line message, if any.
pub fn draw(frame: &mut Frame, view: &CompareView, notice: Option<&str>, theme: &Theme) {
    let area = frame.area();
    if area.width < 10 || area.height < 6 {
        return;
    }
    let a = areas(area.width, area.height);
    let c = view.comparison();

    // Header: the sides and the settings; then the summary.
    let (la, lb) = if view.swapped { ("B", "A") } else { ("A", "B") };
    let head = Line::from(vec![
        Span::styled(" compare ", theme.title()),
        Span::raw(format!(
            " {la}: {} ({} runs)  →  {lb}: {} ({} runs){}",
            file_name(&c.a.source),
            c.a.runs,
            file_name(&c.b.source),
            c.b.runs,
            if view.swapped { "  [swapped]" } else { "" }
        )),
    ]);
    let s = &c.summary;
    let wide = area.width >= 120;
    let gap = if wide { "  " } else { " " };
    let mut sum: Vec<Span> = vec![Span::raw(" ")];
    for v in Verdict::ALL {
        let n = s.count(v);
        let label = match v {
            Verdict::TooFewSamples => "too few",
            other => other.label(),
        };
        sum.push(Span::styled(
            format!("{} {n} {label}", verdict_mark(v)),
            if n > 0 {
                verdict_style(v, theme)
            } else {
                theme.dim()
            },
        ));
        sum.push(Span::raw(gap));
    }
    if let Some(g) = s.geomean_ratio {
        let label = if wide { "geomean" } else { "geo" };
        sum.push(Span::raw(format!("{label} ×{g:.3}{gap}")));
    }
    if wide {
        sum.push(Span::styled(
            format!("alpha {} Holm · min {}%", c.alpha, c.min_change_pct),
            theme.dim(),
        ));
    }
    frame.render_widget(Paragraph::new(vec![head, Line::from(sum)]), a.header);

    draw_list(frame, a.list, view, theme);
    draw_detail(frame, a.detail, view, theme);

    // Footer: the filter being typed, a notice, the first warning (the rest in help),
    // else key hints.
    let width = a.footer.width as usize;
    let footer = match c.warnings.first() {
        _ if view.filter_editing => {
            let prefix = " filter /";
            let line = Line::from(vec![
                Span::styled(prefix, theme.key()),
                Span::raw(clean(view.filter.value())),
                Span::styled(
                    format!("  {} rows  Enter keep · Esc clear", view.visible.len()),
                    theme.dim(),
                ),
            ]);
            let x = a.footer.x + prefix.len() as u16 + view.filter.visual_cursor() as u16;
            if x < a.footer.x + a.footer.width {
                frame.set_cursor_position(ratatui::layout::Position::new(x, a.footer.y));
            }
            line
        }
        _ if notice.is_some() => Line::styled(
            fit(&format!(" {}", notice.unwrap_or("")), width, false),
            theme.warning(),
        ),
        Some(w) => {
            let more = if c.warnings.len() > 1 {
                format!(" (+{} more, ? lists them)", c.warnings.len() - 1)
            } else {
                String::new()
            };
            Line::styled(
                fit(
                    &format!(" ! {}: {}{more}", w.kind, clean(&w.message)),
                    a.footer.width as usize,
                    false,
                ),
                theme.warning(),
            )
        }
        None => {
            // From the compare view's key table: whole hints only.
            let all = crate::app::hints::hints(crate::app::ViewKind::Compare);
            let mut spans = vec![Span::raw(" ")];
            for h in crate::app::hints::fitting(&all, width.saturating_sub(1)) {
                spans.push(Span::styled(h.keys.clone(), theme.key()));
                spans.push(Span::styled(format!(" {}  ", h.what), theme.dim()));
            }
            Line::from(spans)
        }
    };
    frame.render_widget(Paragraph::new(footer), a.footer);
}

fn draw_list(frame: &mut Frame, area: Rect, view: &CompareView, theme: &Theme) {
    let c = view.comparison();
    let (la, lb) = if view.swapped { ("B", "A") } else { ("A", "B") };
    let title = format!(
        " {} · {} rows{}{} ",
        if view.tree {
            "tree".to_string()
        } else {
            format!("table by {}", view.sort.label())
        },
        view.visible.len(),
        if view.changed_only {
            " · changed only"
        } else {
            ""
        },
        if view.filter.value().is_empty() {
            String::new()
        } else {
            format!(" · filter \"{}\"", clean(view.filter.value()))
        }
    );
    let blk = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(true))
        .title(Span::styled(title, theme.title()));
    let inner = blk.inner(area);
    frame.render_widget(blk, area);
    if inner.height == 0 || inner.width < 8 {
        return;
    }
    let w = inner.width as usize;
    // Columns: mark 2, name flex, kind 10, delegate 4, median A 9, median B 9, change 8,
    // interval 19, p 8. Same-named rows (an operator and its kernel, one operator in two
    // delegates) differ by kind and delegate, so those stay at every width; names first
    // on narrow screens: the interval is in the detail pane too.
    let show_interval = w >= 90;
    let show_p = w >= 84;
    let fixed =
        2 + 10 + 4 + 9 + 9 + 8 + if show_interval { 19 } else { 0 } + if show_p { 8 } else { 0 };
    let name_w = w.saturating_sub(fixed).max(6);
    let mut header = format!(
        "  {} {:<9}{:<4}{:>9}{:>9}{:>8}",
        fit("name", name_w, false),
        "kind",
        "in",
        format!("median {la}"),
        format!("median {lb}"),
        "change"
    );
    if show_interval {
        header.push_str(&format!("{:>19}", "interval"));
    }
    if show_p {
        header.push_str(&format!("{:>8}", "p"));
    }
    let mut lines = vec![Line::styled(
        fit(&header, w, false),
        theme.header_cell(false),
    )];
    let height = inner.height.saturating_sub(1) as usize;
    for (pos, &i) in view
        .visible
        .iter()
        .enumerate()
        .skip(view.offset)
        .take(height)
    {
        let r = &c.rows[i];
        let indent = if view.tree {
            "  ".repeat(r.depth.min(12))
        } else {
            String::new()
        };
        let operator = r.kind == crate::rows::RowKind::Operator;
        let med = |s: &Option<Stats>| crate::units::side_median(operator, s.as_ref());
        let mut text = format!(
            "{} {:<9}{:<4}{:>9}{:>9}{:>8}",
            // Cut in the middle: the instance number (`#3`) at the end tells rows apart.
            fit_middle(&format!("{indent}{}", clean(&r.name)), name_w),
            r.kind.label(),
            fit(&where_short(c, i), 4, false),
            med(&r.a),
            med(&r.b),
            r.delta_pct.map_or("-".into(), pct)
        );
        if show_interval {
            let iv = r
                .ci_pct
                .map_or("-".into(), |(lo, hi)| format!("[{}, {}]", pct(lo), pct(hi)));
            text.push_str(&format!("{:>19}", fit(&iv, 18, true)));
        }
        if show_p {
            text.push_str(&format!("{:>8}", r.p_value.map_or("-".into(), p_text)));
        }
        let selected = pos == view.selected;
        let base = if selected {
            theme.selected(true)
        } else {
            Style::default()
        };
        lines.push(Line::from(vec![
            Span::styled(
                format!("{} ", verdict_mark(r.verdict)),
                verdict_style(r.verdict, theme).patch(base),
            ),
            Span::styled(fit(&text, w - 2, false), base),
        ]));
    }
    if view.visible.is_empty() {
        lines.push(Line::styled(
            if view.changed_only {
                "  no changed rows (u shows all)"
            } else {
                "  no rows"
            },
            theme.dim(),
        ));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

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

fn draw_detail(frame: &mut Frame, area: Rect, view: &CompareView, theme: &Theme) {
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
            fit(
                &clean(&r.name),
                w.saturating_sub(kind.len() + 2).max(1),
                false,
            ),
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
    if verdict.chars().count() + 2 + p_part.chars().count() <= w {
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
    lines.push(Line::styled(
        fit(
            &format!(
                "       {:>6}{:>10}{:>10}{:>10}",
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
                "      {label}{:>6}{:>10}{:>10}{:>10}",
                s.count,
                crate::units::operator_median(r.kind == crate::rows::RowKind::Operator, s.median),
                duration_ms(s.p10),
                duration_ms(s.p90)
            ),
            Some(_) => format!("      {label}  no samples"),
            None => format!("      {label}  (no such row)"),
        };
        lines.push(Line::raw(fit(&text, w, false)));
    }
    // Histograms of both sides on one axis (its range on the first), then per-run
    // sparklines on the same axis.
    let all: Vec<f64> = [&r.a, &r.b]
        .iter()
        .filter_map(|s| s.as_ref())
        .flat_map(|s| s.samples.iter().copied())
        .filter(|v| v.is_finite())
        .collect();
    if !all.is_empty() {
        let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = all.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let range = format!("  {} … {}", duration_ms(lo), duration_ms(hi));
        let room = w.saturating_sub(8); // " hist A "
        let bins = room.saturating_sub(range.chars().count()).clamp(1, 40);
        let hist = |s: &Option<Stats>| {
            s.as_ref()
                .map_or(vec![0; bins], |s| histogram(&s.samples, lo, hi, bins))
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
                    Span::styled(sparkline(&s.samples, lo, hi, room), theme.kept()),
                ]));
            }
        }
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The help over the compare view: its key table (from `keymap`), the verdict marks and
/// every warning of the comparison.
pub fn draw_help(frame: &mut Frame, view: &CompareView, theme: &Theme) {
    let area = frame.area();
    if area.width < 10 || area.height < 6 {
        return;
    }
    let warnings: &[CompareWarning] = &view.comparison().warnings;
    let keys = view_help(ViewKind::Compare);
    let kw = keys
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0);
    let mut lines: Vec<Line> = keys
        .iter()
        .map(|(k, h)| {
            Line::from(vec![
                Span::styled(format!(" {}", fit(k, kw, false)), theme.key()),
                Span::raw(format!("  {h}")),
            ])
        })
        .collect();
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        " marks: ▲ slower  ▼ faster  = same  ? too few  + added  − removed",
        theme.dim().add_modifier(Modifier::ITALIC),
    ));
    let text_w = lines.iter().map(|l| l.width()).max().unwrap_or(20).max(40);
    let w = (text_w as u16 + 3).min(area.width);
    for wn in warnings {
        lines.push(Line::styled(
            fit(
                &format!(" ! {}: {}", wn.kind, clean(&wn.message)),
                w as usize - 2,
                false,
            ),
            theme.warning(),
        ));
    }
    let h = (lines.len() as u16 + 2).min(area.height);
    let rect = Rect::new(
        area.width.saturating_sub(w) / 2,
        area.height.saturating_sub(h) / 2,
        w,
        h,
    );
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(theme.border(true))
                .title(Span::styled(" compare keys ", theme.title())),
        ),
        rect,
    );
}
