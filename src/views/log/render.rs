//! Warnings & log view: every finding (naming its delegate), the decoded CpuBackend
//! plans, then the raw runner log (or, for traces, what the trace reader counted).

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::app::format::count;
use crate::app::{ExplorerData, SourceKind};
use crate::ui::pane_frame;
use crate::ui::Theme;
use crate::views::log::state::{
    log_rows, max_hscroll, search_rows, selected_finding, LogRow, LogView,
};

/// `view`: the first row on screen, the cells the raw log lines are scrolled to the left,
/// the cursor and the search (its matches highlighted).
pub fn render(frame: &mut Frame, area: Rect, data: &ExplorerData, view: &LogView, theme: &Theme) {
    let (scroll, hscroll) = (view.scroll, view.hscroll);
    // Named for what it holds: a trace has no runner log, only what its reader counted.
    let log_name = match data.kind {
        SourceKind::Etdump => "runner log",
        SourceKind::Trace => "trace reader",
    };
    let plans = if data.plans.is_empty() {
        String::new()
    } else {
        format!("{} · ", count(data.plans.len(), "plan"))
    };
    // Long raw lines scroll sideways: the title says so, and where the view is.
    let max_h = max_hscroll(Some(data), area.width.saturating_sub(2) as usize);
    let hscroll = hscroll.min(max_h);
    let sideways = match (hscroll, max_h) {
        (_, 0) => String::new(),
        (0, _) => " · → long lines".to_string(),
        (h, m) if h >= m => format!(" · ← col {}", h + 1),
        (h, _) => format!(" · ←→ col {}", h + 1),
    };
    let title = format!(
        " Warnings & {log_name} · {} · {} · {plans}{}{sideways} · v next section · r reveal · c copy · / search ",
        count(data.error_count(), "error"),
        count(data.warning_count(), "warning"),
        count(data.log.len(), "log line")
    );
    let inner = pane_frame(frame, area, title, true, theme);
    let height = inner.height as usize;
    let head = log_rows(data, inner.width as usize);
    let total = head.len() + data.log.len();
    let number_w = data.log.len().to_string().len();
    // The finding `r` reveals and `c` copies: every line of it marked, the cursor's
    // line highlighted; search matches in the key colour.
    let selected = selected_finding(data, view.cursor, inner.width as usize);
    let found: std::collections::HashSet<usize> =
        search_rows(data, &view.search.needle(), inner.width as usize)
            .into_iter()
            .collect();
    let mut lines = Vec::with_capacity(height);
    // Build only what is on screen.
    for i in scroll.min(total)..(scroll + height).min(total) {
        let line = match head.get(i) {
            Some(LogRow::Heading(t)) => Line::styled(format!("── {t} ──"), theme.title()),
            Some(LogRow::Blank) => Line::raw(""),
            Some(LogRow::Text(t)) => Line::styled(t.clone(), theme.dim()),
            Some(LogRow::Finding {
                error,
                first,
                index,
                text,
            }) => {
                let (tag, style) = match (error, first) {
                    (true, true) => ("ERROR ", theme.error_text()),
                    (false, true) => ("warn  ", theme.warning()),
                    _ => ("      ", theme.dim()),
                };
                let mark = if Some(*index) == selected { "▌" } else { " " };
                Line::from(vec![
                    Span::styled(mark, theme.key()),
                    Span::styled(tag, style),
                    Span::raw(text.clone()),
                ])
            }
            None => {
                let n = i - head.len();
                Line::from(vec![
                    Span::styled(format!("{:>number_w$} ", n + 1), theme.dim()),
                    Span::raw(
                        data.log
                            .text(n)
                            .unwrap_or("")
                            .chars()
                            .skip(hscroll)
                            .collect::<String>(),
                    ),
                ])
            }
        };
        let line = if i == view.cursor {
            line.style(theme.selected(true))
        } else if found.contains(&i) {
            line.style(theme.key())
        } else {
            line
        };
        lines.push(line);
    }
    frame.render_widget(Paragraph::new(lines), inner);
}
