//! Warnings and log view: every finding of the profile, then the runner log lines.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::pane_frame;
use super::Theme;
use crate::app::format::count;
use crate::app::state::{finding_lines, selected_finding};
use crate::app::{ExplorerData, SourceKind};

pub fn render(frame: &mut Frame, area: Rect, data: &ExplorerData, scroll: usize, theme: &Theme) {
    // Named for what it holds: a trace has no runner log, only what its reader counted.
    let log_name = match data.kind {
        SourceKind::Etdump => "runner log",
        SourceKind::Trace => "trace reader",
    };
    let title = format!(
        " Warnings & {log_name} · {} · {} · {} · r: the highlighted one in the tree ",
        count(data.error_count(), "error"),
        count(data.warning_count(), "warning"),
        count(data.log.len(), "log line")
    );
    let inner = pane_frame(frame, area, title, true, theme);
    let rows = inner.height as usize;
    let findings = finding_lines(data, inner.width as usize);
    // The finding `r` reveals: its first line is highlighted.
    let selected = selected_finding(data, scroll, inner.width as usize);
    let mut first_lines = Vec::new();
    let mut k = 0;
    for (i, (sev, first, _)) in findings.iter().enumerate() {
        if sev.is_some() && *first {
            first_lines.push((i, k));
            k += 1;
        }
    }
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
                let line = Line::from(vec![Span::styled(tag, style), Span::raw(text.clone())]);
                let is_selected = first_lines
                    .iter()
                    .any(|&(at, f)| at == i - 1 && Some(f) == selected);
                if is_selected {
                    line.style(theme.selected(true))
                } else {
                    line
                }
            }
        } else if i == findings.len() + 1 {
            Line::raw("")
        } else if i == findings.len() + 2 {
            let t = if data.log.is_empty() {
                format!("── {log_name}: none ──")
            } else {
                format!("── {log_name} ──")
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
