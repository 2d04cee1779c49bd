//! Runs list pane (watch mode): every profile found, newest first, with its time, run
//! count, method median and the change against its baseline run (`~` when the test
//! finds no significant change; the pinned baseline says `baseline`); errors in one line.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use crate::app::format::{duration_ms, wrap};
use crate::app::runs::{clock, pct_label, short_name, Change, RowChanges};
use crate::app::runs::{RunStatus, WatchState};
use crate::compare::Verdict;
use crate::escape::escape;
use crate::ui::pane_frame;
use crate::ui::text::{fit, fit_middle};
use crate::ui::Theme;

/// The runs list (`focused`: it has the keys).
pub fn render(frame: &mut Frame, area: Rect, w: &WatchState, focused: bool, theme: &Theme) {
    let title = format!(" Runs · {} · newest first ", w.entries.len());
    let inner = pane_frame(frame, area, title, focused, theme);
    if inner.height == 0 {
        return;
    }
    let width = inner.width as usize;
    if w.entries.is_empty() {
        let msg = format!("waiting for ETDumps in {}", w.dir);
        frame.render_widget(
            Paragraph::new(Line::styled(fit(&msg, width, false), theme.dim())),
            inner,
        );
        return;
    }
    // marker 2, time 8, gap 2, name, findings 6, runs 11, median 10, change 12, then the
    // rows changed against the baseline (`▲5 ▼0 worst cumsum +54%`, at most 44). Narrow
    // panes drop the median (the header has the shown run's) and the word `runs`. The
    // name gets what its longest needs while the rows cell keeps 20.
    let narrow = width < 100;
    let (runs_w, median_w) = if narrow { (6, 0) } else { (11, 10) };
    let tail = 6 + runs_w + median_w + 12;
    let free = width.saturating_sub(12 + tail);
    let longest = w
        .entries
        .iter()
        .map(|e| e.file_name().width() + if e.removed { 10 } else { 0 })
        .max()
        .unwrap_or(8);
    let name_w = longest.min(free.saturating_sub(20)).max(8);
    let rows_w = free.saturating_sub(name_w).min(44);
    let rows_w = if rows_w >= 8 { rows_w } else { 0 };
    let name_w = free.saturating_sub(rows_w).max(8);
    let tail_all = tail + rows_w;
    let rows = inner.height as usize;
    let end = (w.offset + rows).min(w.entries.len());
    let mut lines = Vec::with_capacity(rows);
    for pos in w.offset.min(end)..end {
        if lines.len() >= rows {
            break;
        }
        let e = &w.entries[pos];
        let marker = if w.shown == Some(e.id) { "● " } else { "  " };
        let mut spans = vec![Span::raw(marker), Span::raw(clock(e.time)), Span::raw("  ")];
        let mut name = e.file_name();
        if e.removed {
            name.push_str(" (deleted)");
        }
        match &e.status {
            RunStatus::Failed { message, .. } if pos == w.selected => {
                // The selected error reads in full, wrapped under its time.
                let room = width.saturating_sub(12).max(1);
                let mut parts = wrap(message, room).into_iter();
                spans.push(Span::styled(
                    parts.next().unwrap_or_default(),
                    theme.error_text(),
                ));
                lines.push(Line::from(spans).style(theme.selected(focused)));
                for more in parts {
                    lines.push(
                        Line::from(vec![
                            Span::raw(" ".repeat(12)),
                            Span::styled(more, theme.error_text()),
                        ])
                        .style(theme.selected(focused)),
                    );
                }
                continue;
            }
            RunStatus::Failed { message, .. } => {
                let room = width.saturating_sub(12);
                spans.push(Span::styled(fit(message, room, false), theme.error_text()));
            }
            RunStatus::Loaded => {
                spans.push(Span::raw(fit(&name, name_w, false)));
                let facts = e.facts.unwrap_or_default();
                // The run's own findings: `✗1 !2`.
                let mut marks = Vec::new();
                if facts.errors > 0 {
                    marks.push(format!("✗{}", facts.errors));
                }
                if facts.warnings > 0 {
                    marks.push(format!("!{}", facts.warnings));
                }
                let style = if facts.errors > 0 {
                    theme.error_text()
                } else {
                    theme.warning()
                };
                spans.push(Span::styled(fit(&marks.join(" "), 6, true), style));
                // Kept of all (the warm-up keys change the first).
                let mut runs = match (facts.runs_kept, facts.runs_total) {
                    (Some(k), Some(n)) if k != n => format!("{k}/{n}"),
                    (_, Some(n)) => n.to_string(),
                    _ => String::new(),
                };
                if !narrow && !runs.is_empty() {
                    let one = facts.runs_total == Some(1);
                    runs.push_str(if one { " run" } else { " runs" });
                }
                spans.push(Span::raw(fit(&runs, runs_w, true)));
                if median_w > 0 {
                    let median = facts
                        .median_ms
                        .map(duration_ms)
                        .unwrap_or_else(|| "-".into());
                    spans.push(Span::raw(fit(&median, median_w, true)));
                }
                match e.change {
                    Some(c @ Change::Relative { verdict, .. }) => {
                        let style = match verdict {
                            Verdict::Slower => theme.slower(),
                            Verdict::Faster => theme.faster(),
                            // Not significant: noise, not news.
                            _ => theme.dim(),
                        };
                        spans.push(Span::styled(fit(&c.label(), 12, true), style));
                    }
                    Some(c) => spans.push(Span::styled(fit(&c.label(), 12, true), theme.dim())),
                    None => spans.push(Span::raw(fit("", 12, true))),
                }
                if rows_w > 0 {
                    spans.push(rows_cell(
                        e.row_changes.as_ref().map(|r| &r.changes),
                        rows_w,
                        theme,
                    ));
                }
            }
            pending => {
                spans.push(Span::raw(fit(&name, name_w, false)));
                let what = match pending {
                    RunStatus::Loading => "loading…",
                    RunStatus::Waiting { .. } => "still being written…",
                    _ => "queued",
                };
                spans.push(Span::styled(fit(what, tail_all, true), theme.dim()));
            }
        }
        let mut line = Line::from(spans);
        if pos == w.selected {
            line = line.style(theme.selected(focused));
        }
        lines.push(line);
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The rows-changed cell, `width` wide: ` ▲5 ▼0 worst cumsum +54%` (the name cut in the
/// middle first, then the word), blank without a baseline.
fn rows_cell(changes: Option<&RowChanges>, width: usize, theme: &Theme) -> Span<'static> {
    let Some(c) = changes else {
        return Span::raw(" ".repeat(width));
    };
    let counts = c.counts();
    let text = match &c.worst {
        Some((name, d)) => {
            let tail = format!(" {}", pct_label(*d));
            let word = format!(" {} ", c.worst_word());
            let fixed = 1 + counts.width() + tail.width();
            let room = width.saturating_sub(fixed + word.width());
            let short = escape(short_name(name));
            if room >= short.width().min(6) {
                format!(
                    " {counts}{word}{}{tail}",
                    fit_middle(&escape(short_name(name)), room).trim_end()
                )
            } else {
                let room = width.saturating_sub(fixed + 1);
                format!(
                    " {counts} {}{tail}",
                    fit_middle(&escape(short_name(name)), room.max(1)).trim_end()
                )
            }
        }
        None => format!(" {counts}"),
    };
    let style = if c.slower > 0 {
        theme.slower()
    } else if c.faster > 0 {
        theme.faster()
    } else {
        theme.dim()
    };
    Span::styled(fit(&text, width, false), style)
}
