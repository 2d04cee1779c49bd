//! Rendering: one module per pane, render only (no state changes). `draw` paints a whole
//! frame from an `AppState`, a loop over the view stack.

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

use crate::app::{AppState, Pane, ViewKind};
use crate::views::{Ctx, Place};

pub use theme::Theme;

/// Paint one frame, a loop over the stack: the view that fills the screen (under a view
/// of the explorer's body, the explorer first), then the popups over it (help, dialog),
/// each through `Component::render`.
pub fn draw(frame: &mut Frame, state: &AppState, theme: &Theme) {
    let area = frame.area();
    if area.width == 0 || area.height == 0 {
        return;
    }
    // Geometry comes from the same pure function update uses for mouse hits, laid out on
    // the frame itself: a resize may reach the buffer before `Action::Resize` reaches the
    // state, and widgets must never draw outside the buffer.
    let mut ctx = Ctx {
        data: state.session.data.as_ref(),
        screen: area,
        body: state.areas_for(area.width, area.height).body,
        notice: state.session.notice.as_deref(),
        below: None,
    };
    let views: Vec<_> = state.views.iter().collect();
    // The view on screen, and the one that fills the screen under it.
    let top = views.iter().rposition(|v| !v.is_popup());
    let base = top.and_then(|t| views[..=t].iter().rposition(|v| v.place() == Place::Screen));
    let on_screen: Vec<usize> = base
        .into_iter()
        .chain(top.filter(|t| Some(*t) != base))
        .collect();
    if base.is_none_or(|b| views[b].kind() == ViewKind::Explorer) {
        draw_explorer(frame, state, theme);
    }
    for &i in &on_screen {
        views[i].render(frame, &ctx, theme);
    }
    if base.is_none_or(|b| views[b].kind() == ViewKind::Explorer) {
        draw_loading_overlay(frame, state, theme);
    }
    ctx.below = top.map(|t| views[t]);
    for popup in &views[top.map_or(0, |t| t + 1)..] {
        popup.render(frame, &ctx, theme);
    }
}

/// The explorer's loading gauge over its body (over whatever view fills it), while a
/// profile is on screen; with none, `draw_explorer` shows the gauge in its place.
fn draw_loading_overlay(frame: &mut Frame, state: &AppState, theme: &Theme) {
    if let (Some(_), Some(l)) = (&state.session.data, &state.session.loading) {
        let area = frame.area();
        let body = state.areas_for(area.width, area.height).body;
        loading::render_overlay(frame, body, l, theme);
    }
}

/// The explorer's header, panes (none when the log fills its body) and footer.
fn draw_explorer(frame: &mut Frame, state: &AppState, theme: &Theme) {
    let area = frame.area();
    let areas = state.areas_for(area.width, area.height);
    header::render(frame, areas.header, &state.session, &state.explorer, theme);
    if let Some(w) = &state.session.watch {
        if let Some(a) = areas.runs {
            runs::render(frame, a, w, pane_focused(state, Pane::Runs), theme);
        }
        if let Some(a) = areas.status {
            status::render(frame, a, w, theme);
        }
    }
    // Watch mode without a profile yet: messages go below the runs list.
    let empty_area = match areas.runs {
        Some(r) if state.session.data.is_none() => Rect::new(
            areas.body.x,
            r.y + r.height,
            areas.body.width,
            (areas.body.y + areas.body.height).saturating_sub(r.y + r.height),
        ),
        _ => areas.body,
    };
    match &state.session.data {
        Some(data) => {
            if let Some(a) = areas.tree {
                tree::render(
                    frame,
                    a,
                    data,
                    &state.explorer,
                    pane_focused(state, Pane::Tree),
                    theme,
                );
            }
            if let Some(a) = areas.table {
                table::render(
                    frame,
                    a,
                    data,
                    &state.explorer,
                    pane_focused(state, Pane::Table),
                    theme,
                );
            }
            if let Some(a) = areas.detail {
                detail::render(
                    frame,
                    a,
                    data,
                    &state.explorer,
                    pane_focused(state, Pane::Detail),
                    theme,
                );
            }
        }
        None => match &state.session.loading {
            Some(l) => loading::render_full(frame, empty_area, l, theme),
            None if state.session.watch.is_some() => {
                loading::render_waiting(frame, empty_area, theme)
            }
            None => loading::render_empty(frame, areas.body, theme),
        },
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
