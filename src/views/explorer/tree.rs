//! Plan tree pane (call tree for traces): a flattened tree; only the visible rows are
//! built.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use super::state::ExplorerView;
use crate::app::data::{ExplorerData, SourceKind};
use crate::app::format::percent;
use crate::ui::pane_frame;
use crate::ui::text::{fit, share_bar};
use crate::ui::Theme;
use crate::units::{duration_or_below, percent_or_bound, XNNPACK_QUANTUM_MS};

const NUM: usize = 9;
const BAR: usize = 8;
/// The fewest cells the names keep beside the numbers.
const MIN_NAME: usize = 20;

/// The tree pane of `ex` (`focused`: it has the keys).
pub fn render(
    frame: &mut Frame,
    area: Rect,
    data: &ExplorerData,
    ex: &ExplorerView,
    focused: bool,
    theme: &Theme,
) {
    let name = match data.kind {
        SourceKind::Etdump => "Plan tree",
        SourceKind::Trace => "Call tree",
    };
    let scope = match ex.table.scope.and_then(|s| data.scopes.get(s)) {
        Some(label) => format!(" {name} · operators of {label} "),
        None => format!(" {name} "),
    };
    let inner = pane_frame(frame, area, scope, focused, theme);
    let width = inner.width as usize;
    // Numbers on the right; the bar, then p90, give way to names that do not fit.
    let rows = (inner.height as usize).saturating_sub(1);
    let end = (ex.tree.offset + rows).min(ex.tree.visible.len());
    let longest = ex.tree.visible[ex.tree.offset.min(end)..end]
        .iter()
        .map(|&id| {
            let n = &data.nodes[id];
            let mark = if n.findings == (0, 0) { 0 } else { 2 };
            2 * n.depth + 2 + mark + n.name.width()
        })
        .max()
        .unwrap_or(0);
    let fits = |right: usize| longest + right < width;
    // A trace's tree: the total time of the calls first, and the share beside it is of
    // the parent's total (the same quantity); the median and p90 are per call.
    let trace = data.kind == SourceKind::Trace;
    let total_w = if trace { NUM + 1 } else { 0 };
    // The bar and the share stay whenever the names keep `MIN_NAME` cells (names and
    // then info text are cut instead: the detail has them whole); p90 gives way first.
    let show_bar = width > total_w + NUM + 1 + BAR + 7 + MIN_NAME;
    let show_p90 = width >= 44 + total_w
        && if show_bar {
            fits(total_w + 2 * (NUM + 1) + BAR + 7)
        } else {
            fits(total_w + 2 * (NUM + 1)) || width > total_w + 2 * (NUM + 1) + MIN_NAME
        };
    let right =
        total_w + NUM + 1 + if show_p90 { NUM + 1 } else { 0 } + if show_bar { BAR + 7 } else { 0 };
    let name_w = width.saturating_sub(right + 1);
    let mut lines = Vec::with_capacity(inner.height as usize + 1);
    let (median, p90, share) = if trace {
        ("med/call", "p90/call", "% parent total")
    } else {
        ("median", "p90", "of parent")
    };
    let mut title = fit("", name_w, false);
    if trace {
        title.push_str(&fit("total", NUM + 1, true));
    }
    title.push_str(&fit(median, NUM + 1, true));
    if show_p90 {
        title.push_str(&fit(p90, NUM + 1, true));
    }
    if show_bar {
        title.push_str(&fit(share, BAR + 7, true));
    }
    lines.push(Line::styled(title, theme.dim()));
    for (i, &id) in ex.tree.visible[ex.tree.offset.min(end)..end]
        .iter()
        .enumerate()
    {
        let pos = ex.tree.offset + i;
        let node = &data.nodes[id];
        let open = ex.tree.is_open(id);
        let marker = if node.children.is_empty() {
            "  "
        } else if open {
            "▾ "
        } else {
            "▸ "
        };
        let indent = "  ".repeat(node.depth);
        // Nodes with findings (here or below) carry a mark: `✗` errors, `!` warnings.
        let mark = match node.findings {
            (0, 0) => "",
            (0, _) => "! ",
            _ => "✗ ",
        };
        let label = format!("{indent}{marker}{mark}{}", node.name);
        let label_len = label.width();
        let info = if node.info.is_empty() || label_len + 3 >= name_w {
            String::new()
        } else {
            format!("  {}", node.info)
        };
        let name_part = fit(&label, name_w.min(label_len.max(1)), false);
        let info_part = fit(&info, name_w.saturating_sub(name_part.width()), false);
        let mark_style = if node.findings.0 > 0 {
            theme.error_text()
        } else {
            theme.warning()
        };
        let mut spans = if mark.is_empty() {
            vec![Span::raw(name_part)]
        } else {
            // The mark keeps its colour; the rest of the label is plain.
            let head = indent.width() + marker.width();
            let chars: Vec<char> = name_part.chars().collect();
            let cut = head.min(chars.len());
            let mark_end = (head + 2).min(chars.len());
            vec![
                Span::raw(chars[..cut].iter().collect::<String>()),
                Span::styled(chars[cut..mark_end].iter().collect::<String>(), mark_style),
                Span::raw(chars[mark_end..].iter().collect::<String>()),
            ]
        };
        spans.extend([Span::styled(info_part, theme.dim()), Span::raw(" ")]);
        let has = node.stats.count > 0;
        let below = node
            .op_row
            .and_then(|r| data.ops.get(r))
            .and_then(|r| r.below_resolution);
        let text = |v: f64| duration_or_below(v, below.is_some() && v < XNNPACK_QUANTUM_MS);
        let num = |v: f64| fit(&if has { text(v) } else { "-".into() }, NUM, true);
        if trace {
            let total = data.node_totals.get(id).copied().flatten();
            let cell = total.map_or("-".into(), crate::units::duration_ms);
            spans.push(Span::raw(fit(&cell, NUM, true)));
            spans.push(Span::raw(" "));
        }
        spans.push(Span::raw(num(node.stats.median())));
        if show_p90 {
            spans.push(Span::raw(" "));
            spans.push(Span::raw(num(node.stats.p90())));
        }
        if show_bar {
            spans.push(Span::raw(" "));
            match node.share {
                Some(s) => {
                    spans.push(Span::styled(share_bar(s, BAR), theme.bar()));
                    let pct = match below {
                        Some(parent) => percent_or_bound(s, true, XNNPACK_QUANTUM_MS, parent),
                        None => percent(s),
                    };
                    spans.push(Span::raw(fit(&pct, 6, true)));
                }
                None => spans.push(Span::raw(fit("", BAR + 6, false))),
            }
        }
        let mut line = Line::from(spans);
        if pos == ex.tree.selected {
            line = line.style(theme.selected(focused));
        }
        lines.push(line);
    }
    frame.render_widget(Paragraph::new(lines), inner);
}
