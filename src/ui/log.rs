//! Warnings and log view: every finding of the profile, then the runner log lines.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::pane_frame;
use super::Theme;
use crate::app::format::count;
use crate::app::state::finding_lines;
use crate::app::ExplorerData;

pub fn render(frame: &mut Frame, area: Rect, data: &ExplorerData, scroll: usize, theme: &Theme) {
    let title = format!(
        " Warnings & log · {} · {} · {} ",
        count(data.error_count(), "error"),
        count(data.warning_count(), "warning"),
        count(data.log.len(), "log line")
    );
    let inner = pane_frame(frame, area, title, true, theme);
    let rows = inner.height as usize;
    let findings = finding_lines(data, inner.width as usize);
    let total = findings.len() + data.log.len() + 3;
    let number_w = data.log.len().to_string().len();
    let mut lines = Vec::with_capacity(rows);
    // Build only what is on screen.
    for i in scroll.min(total)..(scroll + rows).min(total) {
        let line = if i == 0 {
            Line::styled("── findings ──", theme.title())
        } else if i <= findings.len() {
            let (severity, first, text) = &findings[i - 1];
            let (tag, style) = match (severity, first) {
                (Some(true), true) => ("ERROR ", theme.error_text()),
                (Some(false), true) => ("warn  ", theme.warning()),
                (Some(_), false) => ("      ", theme.dim()),
                (None, _) => ("", theme.dim()),
            };
            if severity.is_none() {
                Line::styled(text.clone(), theme.dim())
            } else {
                Line::from(vec![Span::styled(tag, style), Span::raw(text.clone())])
            }
        } else if i == findings.len() + 1 {
            Line::raw("")
        } else if i == findings.len() + 2 {
            let t = if data.log.is_empty() {
                "── runner log: none ──"
            } else {
                "── runner log ──"
            };
            Line::styled(t, theme.title())
        } else {
            let n = i - findings.len() - 3;
            Line::from(vec![
                Span::styled(format!("{:>number_w$} ", n + 1), theme.dim()),
                Span::raw(data.log[n].clone()),
            ])
        };
        lines.push(line);
    }
    frame.render_widget(Paragraph::new(lines), inner);
}
