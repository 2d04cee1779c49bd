//! Runs list pane (watch mode): every profile found, newest first, with its time, run
//! count, method median and the change against the previous profile; errors in one line.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::pane_frame;
use super::text::fit;
use super::{pane_focused, Theme};
use crate::app::format::{duration_ms, wrap};
use crate::app::runs::{change, clock, delta_label, Change};
use crate::app::{AppState, Pane, RunStatus, WatchState};

/// Changes smaller than this (either way) are shown dim: noise, not news.
const NOISE: f64 = 0.005;

pub fn render(frame: &mut Frame, area: Rect, w: &WatchState, state: &AppState, theme: &Theme) {
    let focused = pane_focused(state, Pane::Runs);
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
    // marker 2, time 8, gap 2, name (rest), findings 6, runs 9, median 10, change 12
    const TAIL: usize = 6 + 9 + 10 + 12;
    let name_w = width.saturating_sub(12 + TAIL).max(8);
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
                let runs = facts
                    .runs_total
                    .map(|n| format!("{n} run{}", if n == 1 { "" } else { "s" }))
                    .unwrap_or_default();
                spans.push(Span::raw(fit(&runs, 9, true)));
                let median = facts
                    .median_ms
                    .map(duration_ms)
                    .unwrap_or_else(|| "-".into());
                spans.push(Span::raw(fit(&median, 10, true)));
                match change(&w.entries, pos) {
                    Some(Change::Relative(d)) => {
                        let style = if d.abs() < NOISE {
                            theme.dim()
                        } else if d > 0.0 {
                            theme.slower()
                        } else {
                            theme.faster()
                        };
                        spans.push(Span::styled(fit(&delta_label(d), 12, true), style));
                    }
                    Some(Change::OtherModel) => {
                        spans.push(Span::styled(fit("other model", 12, true), theme.dim()))
                    }
                    None => spans.push(Span::raw(fit("", 12, true))),
                }
            }
            pending => {
                spans.push(Span::raw(fit(&name, name_w, false)));
                let what = match pending {
                    RunStatus::Loading => "loading…",
                    RunStatus::Waiting { .. } => "still being written…",
                    _ => "queued",
                };
                spans.push(Span::styled(fit(what, TAIL, true), theme.dim()));
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
