//! Status line (watch mode): watched directory, last update time, profile and error counts.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::app::format::count;
use crate::app::runs::clock;
use crate::app::runs::WatchState;
use crate::ui::Theme;

pub fn render(frame: &mut Frame, area: Rect, w: &WatchState, theme: &Theme) {
    let updated = w
        .last_update
        .map(|t| format!("updated {} UTC", clock(t)))
        .unwrap_or_else(|| "no change yet".into());
    let mut spans = Vec::new();
    if !w.follow {
        // First: after n/p the newest run is no longer shown as it lands.
        spans.push(Span::styled(
            "not following — N for newest",
            theme.warning(),
        ));
        spans.push(Span::styled(" │ ", theme.dim()));
    }
    spans.extend([
        Span::styled("watching ", theme.dim()),
        Span::raw(w.dir.clone()),
        Span::styled(" │ ", theme.dim()),
        Span::raw(updated),
        Span::styled(" │ ", theme.dim()),
        Span::raw(count(w.profiles(), "profile")),
        Span::styled(" │ ", theme.dim()),
    ]);
    let errors = w.errors();
    if errors > 0 {
        spans.push(Span::styled(count(errors, "error"), theme.error_text()));
    } else {
        spans.push(Span::styled("0 errors", theme.dim()));
    }
    let pending = w.pending();
    if pending > 0 {
        spans.push(Span::styled(" │ ", theme.dim()));
        spans.push(Span::raw(format!("{pending} loading")));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
