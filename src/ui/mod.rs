//! Rendering: one module per pane, render only (no state changes). `draw` paints a whole
//! frame from an `AppState`.

mod detail;
mod detail_facts;
mod footer;
mod header;
mod loading;
mod runs;
mod status;
mod table;
pub mod text;
mod theme;
mod tree;

use ratatui::layout::Rect;
use ratatui::Frame;

use crate::app::{AppState, Pane, View};

pub use theme::Theme;

use crate::views::compare::render as compare;
use crate::views::dialog::render as dialog;
use crate::views::flame::render as flame;
use crate::views::fleet::render as fleet;
use crate::views::help::render as help;
use crate::views::log::render as log;
use crate::views::modules::render as modules;
use crate::views::timeline::render as timeline;

/// Paint one frame: the view that fills the screen (the explorer, with the log or the
/// timeline in its body, or the compare view), then the popups over it (help, dialog).
pub fn draw(frame: &mut Frame, state: &AppState, theme: &Theme) {
    let area = frame.area();
    if area.width == 0 || area.height == 0 {
        return;
    }
    let screen = state.views.screen();
    match screen {
        Some(View::Compare(view)) => compare::draw(frame, view, state.notice.as_deref(), theme),
        Some(View::Fleet(view)) => fleet::draw(frame, view, state.notice.as_deref(), theme),
        Some(View::Flame(view)) if view.is_diff() => {
            flame::render(frame, area, view, state.notice.as_deref(), theme)
        }
        _ => draw_explorer(frame, state, theme),
    }
    let body = state.areas_for(area.width, area.height).body;
    for popup in state.views.popups() {
        match (popup, screen) {
            (View::Help(h), Some(View::Compare(view))) => compare::draw_help(frame, view, h, theme),
            (View::Help(h), _) => help::render(frame, body, h, theme),
            (View::Dialog(message), _) => dialog::render(frame, area, message, theme),
            _ => {}
        }
    }
}

/// The explorer's panes (the log view in their place when it is open), the timeline over
/// its body when open.
fn draw_explorer(frame: &mut Frame, state: &AppState, theme: &Theme) {
    let area = frame.area();
    // Geometry comes from the same pure function update uses for mouse hits, laid out
    // on the frame itself: a resize may reach the buffer before `Action::Resize`
    // reaches the state, and widgets must never draw outside the buffer.
    let areas = state.areas_for(area.width, area.height);
    header::render(frame, areas.header, state, theme);
    if let Some(w) = &state.watch {
        if let Some(a) = areas.runs {
            runs::render(frame, a, w, state, theme);
        }
        if let Some(a) = areas.status {
            status::render(frame, a, w, theme);
        }
    }
    // Watch mode without a profile yet: messages go below the runs list.
    let empty_area = match areas.runs {
        Some(r) if state.data.is_none() => Rect::new(
            areas.body.x,
            r.y + r.height,
            areas.body.width,
            (areas.body.y + areas.body.height).saturating_sub(r.y + r.height),
        ),
        _ => areas.body,
    };
    match &state.data {
        Some(data) => {
            if let Some(log_area) = areas.log {
                let closed = crate::views::log::state::LogView::default();
                let view = state.views.log().unwrap_or(&closed);
                log::render(frame, log_area, data, view, theme);
            }
            if let Some(a) = areas.tree {
                tree::render(frame, a, data, state, theme);
            }
            if let Some(a) = areas.table {
                table::render(frame, a, data, state, theme);
            }
            if let Some(a) = areas.detail {
                detail::render(frame, a, data, state, theme);
            }
            if let Some(l) = &state.loading {
                loading::render_overlay(frame, areas.body, l, theme);
            }
        }
        None => match &state.loading {
            Some(l) => loading::render_full(frame, empty_area, l, theme),
            None if state.watch.is_some() => loading::render_waiting(frame, empty_area, theme),
            None => loading::render_empty(frame, areas.body, theme),
        },
    }
    if let (Some(View::Timeline(view)), Some(_)) = (state.views.screen(), &state.data) {
        timeline::render(frame, areas.body, view, theme);
    }
    if let (Some(View::Modules(view)), Some(data)) = (state.views.screen(), &state.data) {
        modules::render(frame, areas.body, view, data, theme);
    }
    if let (Some(View::Flame(view)), Some(_)) = (state.views.screen(), &state.data) {
        flame::render(frame, areas.body, view, None, theme);
    }
    footer::render(frame, areas.footer, state, theme);
}

/// Border style for a pane: highlighted when focused.
fn pane_focused(state: &AppState, pane: Pane) -> bool {
    state.explorer.focus == pane && !state.log_open()
}

/// A rectangle of at most `w` x `h` centred in `area`.
pub(crate) fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// Draw a pane's border and title (highlighted when focused); returns the inner area.
pub(crate) fn pane_frame(
    frame: &mut Frame,
    area: Rect,
    title: impl Into<String>,
    focused: bool,
    theme: &Theme,
) -> Rect {
    let block = ratatui::widgets::Block::default()
        .borders(ratatui::widgets::Borders::ALL)
        .border_style(theme.border(focused))
        .title(ratatui::text::Span::styled(title.into(), theme.title()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    inner
}
