//! Operator table pane. Only the rows on screen are formatted, so 100,000 rows cost the
//! same as 40. Column widths come from `ExplorerView::table_layout` (content-sized; columns
//! that do not fit leave in a fixed order, `←`/`→` scroll to them).

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use super::state::ExplorerView;
use crate::app::column::Column;
use crate::app::data::{ExplorerData, SourceKind};
use crate::app::table::{cell, step_cell};
use crate::ui::pane_frame;
use crate::ui::text::{fit, fit_middle};
use crate::ui::Theme;

/// The operator table of `ex` (`focused`: it has the keys).
pub fn render(
    frame: &mut Frame,
    area: Rect,
    data: &ExplorerData,
    ex: &ExplorerView,
    focused: bool,
    theme: &Theme,
) {
    let t = &ex.table;
    let within = t
        .within
        .and_then(|n| data.nodes.get(n))
        .map(|n| format!("{} {}", n.kind.tag(), n.name));
    let uniform_delegate = t
        .uniform_text
        .iter()
        .find(|(c, text)| *c == Column::Delegate && !text.is_empty())
        .map(|(_, text)| text.clone());
    let scope = within
        .or_else(|| {
            t.scope
                .and_then(|s| data.scopes.get(s))
                .map(|l| format!("delegate {l}"))
        })
        .unwrap_or_else(|| match data.kind {
            // Every listed row in one delegate: its name instead of "all".
            SourceKind::Etdump if uniform_delegate.is_some() => {
                uniform_delegate.clone().unwrap_or_default()
            }
            SourceKind::Etdump => "all delegates".into(),
            SourceKind::Trace => "all threads, by name".into(),
        });
    let what = if t.grouped {
        "Operator types"
    } else {
        "Operators"
    };
    let mut title = format!(" {what} · {scope} · {}", t.rows.len());
    if !t.filter.value().is_empty() {
        title.push_str(&format!(" matching \"{}\"", t.filter.value()));
    }
    if let (Some(n), true) = (t.uniform_count, t.sort != Column::Count) {
        let unit = match data.kind {
            SourceKind::Etdump => "run",
            SourceKind::Trace => "call",
        };
        title.push_str(&format!(" · {} each", crate::app::format::count(n, unit)));
    }
    // Shared values: shapes first (short), then the step, cut in the middle to what the
    // border leaves (keeping 7 for the hidden-columns note, ` · +2→`).
    let room = (area.width as usize).saturating_sub(4 + 7);
    let mut shared: Vec<&(Column, String)> = t
        .uniform_text
        .iter()
        .filter(|(c, text)| !text.is_empty() && *c != Column::Delegate)
        .collect();
    shared.sort_by_key(|(c, _)| *c == Column::Step);
    for (_, text) in shared {
        let left = room.saturating_sub(title.width() + 3);
        if left >= 12 {
            title.push_str(&format!(" · {}", fit_middle(text, left).trim_end()));
        }
    }
    let rows = (area.height as usize).saturating_sub(3);
    let widths = ex.table_layout(Some(data), area.width.saturating_sub(2), rows);
    let hidden = ex.table_columns().len().saturating_sub(widths.len());
    if t.hscroll > 0 || hidden > 0 {
        let left = if t.hscroll > 0 { "←" } else { "" };
        let right = if hidden > t.hscroll { "→" } else { "" };
        let long = format!(
            " · {left}{} more column{}{right}",
            hidden,
            if hidden == 1 { "" } else { "s" }
        );
        // A narrow pane keeps the arrows: `+2→`.
        let room = (area.width as usize).saturating_sub(3);
        if title.width() + long.width() <= room {
            title.push_str(&long);
        } else {
            title.push_str(&format!(" · {left}+{hidden}{right}"));
        }
    }
    title.push(' ');
    let inner = pane_frame(frame, area, title, focused, theme);
    if inner.height == 0 {
        return;
    }
    let mut head = Vec::new();
    for (col, w) in &widths {
        let arrow = if *col == t.sort {
            if t.descending {
                "↓"
            } else {
                "↑"
            }
        } else {
            ""
        };
        let label = format!(
            "{}{}",
            col.title_in(data.kind == crate::app::SourceKind::Trace),
            arrow
        );
        head.push(Span::styled(
            fit(&label, *w as usize, col.right_aligned()),
            theme.header_cell(*col == t.sort),
        ));
        head.push(Span::raw(" "));
    }
    let mut lines = vec![Line::from(head)];
    let rows = (inner.height as usize).saturating_sub(1);
    if t.rows.is_empty() {
        let msg = if t.filter.value().is_empty() {
            "no operators in this profile".to_string()
        } else {
            format!(
                "no operator matches \"{}\"  (Esc clears the filter)",
                t.filter.value()
            )
        };
        lines.push(Line::styled(msg, theme.dim()));
    }
    let step_whole = t
        .text_widths
        .iter()
        .find(|(c, _)| *c == Column::Step)
        .map(|(_, w)| *w as usize)
        .unwrap_or(0);
    let end = (t.offset + rows).min(t.rows.len());
    for pos in t.offset.min(end)..end {
        let Some(row) = ex.table_ops(data).get(t.rows[pos]) else {
            continue;
        };
        let mut text = String::with_capacity(inner.width as usize + 8);
        for (col, w) in &widths {
            let value = cell(row, *col);
            // A cut step keeps its distinguishing end (`…conv2d_10+18`).
            let shown = if *col == Column::Step {
                fit_middle(&step_cell(&value, *w as usize, step_whole), *w as usize)
            } else {
                fit(&value, *w as usize, col.right_aligned())
            };
            text.push_str(&shown);
            text.push(' ');
        }
        let mut line = Line::raw(text);
        if pos == t.selected {
            line = line.style(theme.selected(focused));
        }
        lines.push(line);
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::table::cell;
    use crate::app::OpRow;

    fn row() -> OpRow {
        OpRow {
            name: "aten::orphan_exit".into(),
            delegate: "-".into(),
            scope: None,
            step: String::new(),
            stats: crate::profile::Stats::default(),
            share: 0.0,
            input_shapes: String::new(),
            output_shapes: String::new(),
            self_total: None,
            dtypes: String::new(),
            share_method: None,
            below_resolution: None,
            failed: 0,
            node: 0,
            instances: 0,
            summed_median: None,
            cost: Default::default(),
            rates: crate::profile::efficiency::Rates {
                gflops: None,
                gbps: None,
            },
            cost_ms: f64::NAN,
            roofline: None,
        }
    }

    #[test]
    fn count_shows_calls_and_failures() {
        // One call, failed: no sample, 1 failure -> "1 (1 failed)", as the tally's
        // calls and errors columns.
        let mut r = row();
        r.failed = 1;
        assert_eq!(cell(&r, Column::Count), "1 (1 failed)");
        assert_eq!(cell(&row(), Column::Count), "0");
    }

    #[test]
    fn under_resolution_rows_read_below_one_microsecond() {
        // An XNNPACK operator with all samples 0 in a 2 µs step: <1 µs, share < 50%.
        let mut r = row();
        r.stats = crate::profile::Stats::from_ns(vec![0, 0]);
        r.below_resolution = Some(0.002);
        assert_eq!(cell(&r, Column::Median), "<1 µs");
        assert_eq!(cell(&r, Column::Share), "<50.0%");
    }
}
