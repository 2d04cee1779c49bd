//! The compare view: header (both sides), summary (counts per verdict), the row list
//! (tree or sorted table: verdict mark, name, median A, median B, change with its
//! interval, p), the detail pane (both sides' statistics, histograms of A and B on one
//! axis, per-run sparklines), warnings and key hints. Render only.

use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use super::detail::{clean, p_text, pct, verdict_style};
use crate::app::keymap::{view_help, ViewKind};
use crate::compare::{CompareWarning, Verdict};
use crate::stats::Stats;
use crate::ui::text::{fit, fit_middle};
use crate::ui::Theme;
use crate::views::compare::state::{verdict_mark, where_short, CompareView};

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
    super::detail::draw_detail(frame, a.detail, view, theme);

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
                    format!(
                        "  {} rows  {}",
                        view.visible.len(),
                        crate::app::hints::filter_prompt()
                    ),
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
            let all = crate::views::Component::hints(view);
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

/// The list's columns at `w` cells: the name gets its width first (as wide as the longest
/// name listed, indent included): the kind column takes its short form (`oper`, `kern`)
/// before a name is cut, and p and the interval join only while room is left. Mark,
/// kind, delegate, both medians and the change stay at every width (same-named rows
/// differ by kind and delegate).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListColumns {
    pub name: usize,
    /// 9 (`operator`) or 5 (`oper`).
    pub kind: usize,
    pub interval: bool,
    pub p: bool,
}

/// Cells of the columns always shown but the name and kind: mark 2, space 1, delegate 4,
/// medians 9 + 9, change 8.
const FIXED: usize = 2 + 1 + 4 + 9 + 9 + 8;
const INTERVAL: usize = 19;
const P: usize = 8;

pub fn list_columns(view: &CompareView, w: usize) -> ListColumns {
    let c = view.comparison();
    let need = view
        .visible
        .iter()
        .map(|&i| {
            let r = &c.rows[i];
            let indent = if view.tree { 2 * r.depth.min(12) } else { 0 };
            indent + clean(&r.name).width()
        })
        .max()
        .unwrap_or(0)
        .max(4);
    let kind = if w.saturating_sub(FIXED + 9) >= need {
        9
    } else {
        5
    };
    let room = w.saturating_sub(FIXED + kind);
    let p = room >= need + P;
    let interval = p && room >= need + P + INTERVAL;
    let name = room
        .saturating_sub(if p { P } else { 0 } + if interval { INTERVAL } else { 0 })
        .max(6);
    ListColumns {
        name,
        kind,
        interval,
        p,
    }
}

/// A row kind in `width` cells: its label, or its short form in a narrow list.
fn kind_label(kind: crate::rows::RowKind, width: usize) -> &'static str {
    use crate::rows::RowKind::*;
    if width >= 9 {
        return kind.label();
    }
    match kind {
        Method => "meth",
        Delegate => "dlg",
        Step => "step",
        Operator | Instruction => "oper",
        Overhead => "self",
        Kernel => "kern",
        Op => "op",
        Node => "node",
        Scope => "scope",
        Module => "mod",
    }
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
        view.listed(),
        match (view.changed_only, view.context.len()) {
            (false, _) => String::new(),
            (true, 0) => " · changed only".to_string(),
            (true, n) => format!(" · changed only, {n} dimmed around them"),
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
    let layout = list_columns(view, w);
    let (name_w, show_interval, show_p) = (layout.name, layout.interval, layout.p);
    let kw = layout.kind;
    let mut header = format!(
        "  {} {:<kw$}{:<4}{:>9}{:>9}{:>8}",
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
        let operator = r.kind.is_operator();
        let med = |s: &Option<Stats>| crate::units::side_median(operator, s.as_ref());
        // Cut in the middle: the instance number (`#3`) at the end tells rows apart; the
        // indent stays whole.
        let name = fit_middle(&clean(&r.name), name_w.saturating_sub(indent.len()));
        let mut text = format!(
            "{indent}{name} {:<kw$}{:<4}{:>9}{:>9}{:>8}",
            kind_label(r.kind, layout.kind),
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
        // An ancestor kept only to show where changed rows lie: dimmed.
        let base = if selected {
            theme.selected(true)
        } else if view.context.contains(&i) {
            theme.dim()
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

/// The help over the compare view: its key table (from `keymap`), the verdict marks and
/// every warning of the comparison.
/// The compare view's help: its keys, the verdict marks and every warning. `help` is the
/// popup's state: `/` highlights the lines holding the text and brings the first one
/// into view; j/k scroll.
pub fn draw_help(
    frame: &mut Frame,
    view: &CompareView,
    help: &crate::views::help::state::HelpView,
    theme: &Theme,
) {
    let area = frame.area();
    if area.width < 10 || area.height < 6 {
        return;
    }
    let warnings: &[CompareWarning] = &view.comparison().warnings;
    let keys = view_help(ViewKind::Compare);
    let kw = keys.iter().map(|(k, _)| k.width()).max().unwrap_or(0);
    // Descriptions wrap under themselves: a long one is never cut.
    let text_w = (area.width as usize).saturating_sub(kw + 6).max(10);
    let mut lines: Vec<Line> = Vec::new();
    for (k, h) in &keys {
        for (n, part) in crate::app::format::wrap(h, text_w).into_iter().enumerate() {
            let key = if n == 0 { k.as_str() } else { "" };
            lines.push(Line::from(vec![
                Span::styled(format!(" {}", fit(key, kw, false)), theme.key()),
                Span::raw(format!("  {part}")),
            ]));
        }
    }
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
    // The search: matching lines highlighted, the first one scrolled into view.
    let needle = help.search.needle();
    let texts: Vec<String> = lines
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect();
    let found = crate::app::search::matches(texts.iter().map(String::as_str), &needle);
    for &i in &found {
        lines[i] = Line::styled(
            texts[i].clone(),
            theme.warning().add_modifier(Modifier::BOLD),
        );
    }
    let total = lines.len();
    let h = (lines.len() as u16 + 2).min(area.height);
    let inner_rows = h.saturating_sub(2) as usize;
    let max = total.saturating_sub(inner_rows);
    let scroll = match found.first() {
        Some(&first) if !needle.is_empty() => first.min(max),
        _ => help.scroll.min(max),
    };
    let rect = Rect::new(
        area.width.saturating_sub(w) / 2,
        area.height.saturating_sub(h) / 2,
        w,
        h,
    );
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(lines).scroll((scroll as u16, 0)).block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(theme.border(true))
                .title(Span::styled(
                    if needle.is_empty() {
                        " compare keys ".to_string()
                    } else {
                        format!(
                            " compare keys · /{}: {} line{} ",
                            clean(&needle),
                            found.len(),
                            if found.len() == 1 { "" } else { "s" }
                        )
                    },
                    theme.title(),
                )),
        ),
        rect,
    );
}
