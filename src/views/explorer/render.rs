//! Drawing the explorer: its header, watch mode's runs list and status line, its panes
//! (none when the log fills its body), the loading gauge, and the footer. Each pane has
//! its file (`header`, `runs`, `status`, `tree`, `table`, `detail`, `loading`, `footer`);
//! the geometry is `app::layout`'s, the same that mouse hits use.

use ratatui::layout::Rect;
use ratatui::Frame;

use super::geometry::Geometry;
use super::state::{ExplorerView, Pane};
use super::{detail, footer, header, loading, runs, status, table, tree};
use crate::ui::Theme;
use crate::views::Ctx;

/// The explorer's header, panes and footer on `ctx`'s screen.
pub fn render(ex: &ExplorerView, frame: &mut Frame, ctx: &Ctx, theme: &Theme) {
    let g = Geometry::of(ctx);
    let areas = ex.areas(&g);
    let session = ctx.session;
    let focused = |pane: Pane| ex.focus == pane && !g.log_open;
    header::render(frame, areas.header, session, ex, theme);
    if let Some(w) = &session.watch {
        if let Some(a) = areas.runs {
            runs::render(frame, a, w, focused(Pane::Runs), theme);
        }
        if let Some(a) = areas.status {
            status::render(frame, a, w, theme);
        }
    }
    // Watch mode without a profile yet: messages go below the runs list.
    let empty_area = match areas.runs {
        Some(r) if session.data.is_none() => Rect::new(
            areas.body.x,
            r.y + r.height,
            areas.body.width,
            (areas.body.y + areas.body.height).saturating_sub(r.y + r.height),
        ),
        _ => areas.body,
    };
    match &session.data {
        Some(data) => {
            if let Some(a) = areas.tree {
                tree::render(frame, a, data, ex, focused(Pane::Tree), theme);
            }
            if let Some(a) = areas.table {
                table::render(frame, a, data, ex, focused(Pane::Table), theme);
            }
            if let Some(a) = areas.detail {
                detail::render(frame, a, data, ex, focused(Pane::Detail), theme);
            }
        }
        None => match &session.loading {
            Some(l) => loading::render_full(frame, empty_area, l, theme),
            None if session.watch.is_some() => loading::render_waiting(frame, empty_area, theme),
            None => loading::render_empty(frame, areas.body, theme),
        },
    }
    // The top view's search is counted on the geometry of the last handled resize.
    let (width, height) = (session.width, session.height);
    let search_ctx = Ctx {
        screen: Rect::new(0, 0, width, height),
        body: crate::app::layout::compute(width, height, false, false, g.watching).body,
        ..*ctx
    };
    footer::render(frame, areas.footer, ex, ctx, &search_ctx, theme);
}

/// The loading gauge over the explorer's body (over whatever view fills it), while a
/// profile is on screen; with none, `render` shows the gauge in its place.
pub fn render_over(frame: &mut Frame, ctx: &Ctx, theme: &Theme) {
    if let (Some(_), Some(l)) = (&ctx.session.data, &ctx.session.loading) {
        loading::render_overlay(frame, ctx.body, l, theme);
    }
}
