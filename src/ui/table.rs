//! Operator table pane. Only the rows on screen are formatted, so 100,000 rows cost the
//! same as 40. Columns that do not fit are dropped from the right.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::pane_frame;
use super::text::fit;
use super::{pane_focused, Theme};
use crate::app::format::{duration_ms, percent};
use crate::app::table::column_widths;
use crate::app::{AppState, Column, ExplorerData, OpRow, Pane, SourceKind};
use crate::units::{duration_or_below, percent_or_bound, XNNPACK_QUANTUM_MS};

/// A duration of `row`, `<1 µs` when the row is under the clock quantum.
fn below(row: &OpRow, ms: f64) -> String {
    duration_or_below(
        ms,
        row.below_resolution.is_some() && ms < XNNPACK_QUANTUM_MS,
    )
}

fn cell(row: &OpRow, column: Column) -> String {
    let s = &row.stats;
    match column {
        Column::Name => row.name.clone(),
        Column::Delegate => row.delegate.clone(),
        Column::Step => row.step.clone(),
        // Calls and failures as the tally counts them (a failed call has no duration).
        Column::Count if row.failed > 0 => {
            format!("{} ({} failed)", s.count as u64 + row.failed, row.failed)
        }
        Column::Count => s.count.to_string(),
        Column::Median => below(row, s.median),
        Column::Min => below(row, s.min),
        Column::Max => below(row, s.max),
        Column::P90 => below(row, s.p90),
        Column::Share => match row.below_resolution {
            Some(parent) => percent_or_bound(row.share, true, XNNPACK_QUANTUM_MS, parent),
            None => percent(row.share),
        },
        Column::SelfTime => row.self_total.map(duration_ms).unwrap_or_default(),
        Column::Inputs => row.input_shapes.clone(),
        Column::Outputs => row.output_shapes.clone(),
        Column::Dtypes => row.dtypes.clone(),
    }
}

pub fn render(frame: &mut Frame, area: Rect, data: &ExplorerData, state: &AppState, theme: &Theme) {
    let focused = pane_focused(state, Pane::Table);
    let t = &state.table;
    let scope = t
        .scope
        .and_then(|s| data.scopes.get(s))
        .map(|l| format!("delegate {l}"))
        .unwrap_or_else(|| match data.kind {
            SourceKind::Etdump => "all delegates".into(),
            SourceKind::Trace => "all threads, by name".into(),
        });
    let mut title = format!(" Operators · {scope} · {}", t.rows.len());
    if !t.filter.value().is_empty() {
        title.push_str(&format!(" matching \"{}\"", t.filter.value()));
    }
    title.push(' ');
    let inner = pane_frame(frame, area, title, focused, theme);
    if inner.height == 0 {
        return;
    }
    let widths = column_widths(inner.width, t.longest_name, t.longest_step, t.columns);
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
        let label = format!("{}{}", col.title(), arrow);
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
    let end = (t.offset + rows).min(t.rows.len());
    for pos in t.offset.min(end)..end {
        let row = &data.ops[t.rows[pos]];
        let mut text = String::with_capacity(inner.width as usize + 8);
        for (col, w) in &widths {
            text.push_str(&fit(&cell(row, *col), *w as usize, col.right_aligned()));
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
            below_resolution: None,
            failed: 0,
            node: 0,
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
        r.stats = crate::profile::Stats::from_samples(vec![0.0, 0.0]);
        r.below_resolution = Some(0.002);
        assert_eq!(cell(&r, Column::Median), "<1 µs");
        assert_eq!(cell(&r, Column::Share), "<50.0%");
    }
}
