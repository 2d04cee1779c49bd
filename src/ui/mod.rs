//! Shared drawing: the theme, text cells, a pane's frame, centring; and `draw`, which
//! paints a whole frame from an `AppState`, a loop over the view stack (each view draws
//! itself through `Component::render`).

pub mod text;
mod theme;

use ratatui::layout::Rect;
use ratatui::Frame;

use crate::app::AppState;
use crate::views::{Ctx, Place};

pub use theme::Theme;

/// Paint one frame, a loop over the stack: the view that fills the screen (under a view
/// of its body, that view over it), then the popups over them (help, dialog), each
/// through `Component::render`.
pub fn draw(frame: &mut Frame, state: &AppState, theme: &Theme) {
    let area = frame.area();
    if area.width == 0 || area.height == 0 {
        return;
    }
    // Geometry comes from the same pure function update uses for mouse hits, laid out on
    // the frame itself: a resize may reach the buffer before `Action::Resize` reaches the
    // state, and widgets must never draw outside the buffer.
    let views: Vec<_> = state.views.iter().collect();
    let mut ctx = state.ctx_for(area.width, area.height);
    ctx.screen = area;
    ctx.top = views.last().copied();
    // The view on screen, and the one that fills the screen under it.
    let top = views.iter().rposition(|v| !v.is_popup());
    let base = top.and_then(|t| views[..=t].iter().rposition(|v| v.place() == Place::Screen));
    let on_screen: Vec<usize> = base
        .into_iter()
        .chain(top.filter(|t| Some(*t) != base))
        .collect();
    let ctx_of = |i: usize| Ctx {
        above: top.filter(|&t| t != i).map(|t| views[t]),
        ..ctx
    };
    for &i in &on_screen {
        views[i].render(frame, &ctx_of(i), theme);
    }
    for &i in &on_screen {
        views[i].render_over(frame, &ctx_of(i), theme);
    }
    ctx.below = top.map(|t| views[t]);
    for popup in &views[top.map_or(0, |t| t + 1)..] {
        popup.render(frame, &ctx, theme);
    }
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
