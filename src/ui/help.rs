//! Help overlay, generated from the keymap tables that dispatch keys. On wide screens
//! that are too short for one column, the sections flow into two columns.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use super::text::fit;
use super::{centered, Theme};
use crate::app::keymap::help_lines;

const COLUMN: u16 = 76;
const KEY_W: usize = 16;

pub fn render(frame: &mut Frame, body: Rect, scroll: usize, theme: &Theme) {
    let help = help_lines();
    let two = help.len() as u16 + 2 > body.height && body.width >= 2 * COLUMN + 3;
    // Split at the first section title in the second half.
    let split = if two {
        (help.len() / 2..help.len())
            .find(|&i| help[i].0.is_empty())
            .unwrap_or(help.len())
    } else {
        help.len()
    };
    let rows = split.max(help.len() - split) as u16;
    let width = if two { 2 * COLUMN + 3 } else { COLUMN + 2 };
    let area = centered(body, width, rows + 2);
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
    let lines = |part: &[(String, String)]| -> Vec<Line> {
        part.iter()
            .skip(scroll)
            .take(inner.height as usize)
            .map(|(keys, what)| {
                if keys.is_empty() {
                    Line::styled(what.clone(), theme.title())
                } else {
                    Line::from(vec![
                        Span::styled(fit(keys, KEY_W, false), theme.key()),
                        Span::raw(" "),
                        Span::raw(what.clone()),
                    ])
                }
            })
            .collect()
    };
    if two {
        let left = Rect::new(inner.x, inner.y, COLUMN, inner.height);
        let right = Rect::new(
            inner.x + COLUMN + 1,
            inner.y,
            inner.width.saturating_sub(COLUMN + 1),
            inner.height,
        );
        frame.render_widget(Paragraph::new(lines(&help[..split])), left);
        frame.render_widget(Paragraph::new(lines(&help[split..])), right);
    } else {
        frame.render_widget(Paragraph::new(lines(&help)), inner);
    }
}
