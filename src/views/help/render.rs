//! Help overlay, generated from the keymap tables that dispatch keys. Opaque (cleared
//! underneath, whole rows), descriptions wrapped, scrolling bounded by its end.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use crate::ui::text::fit;
use crate::ui::Theme;
use crate::views::help::state::{
    help_area, help_matches, help_max_scroll, help_rows, HelpView, HELP_KEY_W,
};

pub fn render(frame: &mut Frame, body: Rect, view: &HelpView, theme: &Theme) {
    let area = help_area(body);
    if area.width < 3 || area.height < 3 {
        return;
    }
    // Clear the whole body width: no pane border shows beside the overlay.
    frame.render_widget(Clear, Rect::new(body.x, area.y, body.width, area.height));
    let rows = help_rows(view.over, area.width.saturating_sub(2) as usize);
    let max = help_max_scroll(body, view.over);
    let scroll = view.scroll.min(max);
    let more = if scroll < max { " · more below " } else { " " };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(true))
        .title(Span::styled(
            format!(" Help · ?/Esc close · j/k scroll{more}"),
            theme.title(),
        ));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    // Search matches in the warning colour.
    let found: std::collections::HashSet<usize> = help_matches(view, body).into_iter().collect();
    let lines: Vec<Line> = rows
        .iter()
        .enumerate()
        .skip(scroll)
        .take(inner.height as usize)
        .map(|(i, (keys, what))| {
            if found.contains(&i) {
                Line::styled(
                    format!("{} {what}", fit(keys, HELP_KEY_W, false)),
                    theme.warning(),
                )
            } else if keys.is_empty() {
                Line::styled(what.clone(), theme.title())
            } else if keys.width() > HELP_KEY_W {
                Line::styled(keys.clone(), theme.key())
            } else {
                Line::from(vec![
                    Span::styled(fit(keys, HELP_KEY_W, false), theme.key()),
                    Span::raw(" "),
                    Span::raw(what.clone()),
                ])
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}
