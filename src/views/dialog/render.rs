//! Error dialog: names the file; dismissing it keeps the last good profile.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use ratatui::Frame;

use crate::app::format::wrap;
use crate::ui::centered;
use crate::ui::Theme;

pub fn render(frame: &mut Frame, screen: Rect, message: &str, theme: &Theme) {
    let w = (screen.width.saturating_sub(4)).clamp(20, 72);
    let inner_w = w.saturating_sub(2).max(1) as usize;
    let wrapped = wrap(message, inner_w);
    let area = centered(screen, w, wrapped.len() as u16 + 4);
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.error_text())
        .title(Span::styled(" Cannot load profile ", theme.error()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let mut lines: Vec<Line> = wrapped.into_iter().map(Line::raw).collect();
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "Enter/Esc dismiss (the last good profile stays) · q quit",
        theme.dim(),
    ));
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}
