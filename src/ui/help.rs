//! Help overlay, generated from the keymap tables that dispatch keys.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use super::text::fit;
use super::{centered, Theme};
use crate::app::keymap::help_lines;

pub fn render(frame: &mut Frame, body: Rect, scroll: usize, theme: &Theme) {
    let help = help_lines();
    let area = centered(body, 84, help.len() as u16 + 2);
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(true))
        .title(Span::styled(
            " Help · ?/Esc close · j/k scroll ",
            theme.title(),
        ));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let key_w = 16usize;
    let lines: Vec<Line> = help
        .iter()
        .skip(scroll)
        .take(inner.height as usize)
        .map(|(keys, what)| {
            if keys.is_empty() {
                Line::styled(what.clone(), theme.title())
            } else {
                Line::from(vec![
                    Span::styled(fit(keys, key_w, false), theme.key()),
                    Span::raw(" "),
                    Span::raw(what.clone()),
                ])
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}
