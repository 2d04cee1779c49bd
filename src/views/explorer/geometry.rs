//! Where the explorer's panes are (`Geometry`: the screen, whether the log covers its
//! body, watch mode's runs list) and what its commands read besides its own state
//! (`Env`: the session borrowed, that geometry). The page sizes its lists scroll by come
//! from the same pure `app::layout` that drawing and mouse hits use, with the explorer's
//! focus of the moment (a zoomed detail hides the lists on a narrow screen).

use super::state::{ExplorerView, Pane};
use crate::app::command::ViewKind;
use crate::app::data::ExplorerData;
use crate::app::layout::{self, Areas};
use crate::app::session::Session;
use crate::views::Ctx;

/// The screen the explorer's panes are laid out on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    pub width: u16,
    pub height: u16,
    /// The warnings and log view fills the explorer's body (no panes under it).
    pub log_open: bool,
    /// Watch mode: a runs list above the tree, a status line above the footer.
    pub watching: bool,
}

impl Geometry {
    /// The geometry of `ctx`'s screen (the log open when it is the view over the explorer).
    pub fn of(ctx: &Ctx) -> Geometry {
        Geometry {
            width: ctx.screen.width,
            height: ctx.screen.height,
            log_open: ctx.above.is_some_and(|v| v.kind() == ViewKind::Log),
            watching: ctx.session.watch.is_some(),
        }
    }
}

/// What the explorer's commands read: the session (its data, watch mode's runs, the last
/// request) and the geometry.
#[derive(Clone, Copy)]
pub struct Env<'a> {
    pub session: &'a Session,
    pub data: Option<&'a ExplorerData>,
    pub geometry: Geometry,
}

impl<'a> Env<'a> {
    pub fn new(session: &'a Session, geometry: Geometry) -> Env<'a> {
        Env {
            session,
            data: session.data.as_ref(),
            geometry,
        }
    }

    pub fn of(ctx: &Ctx<'a>) -> Env<'a> {
        Env::new(ctx.session, Geometry::of(ctx))
    }
}

impl ExplorerView {
    /// The panes on `g` with the explorer's focus of the moment.
    pub fn areas(&self, g: &Geometry) -> Areas {
        layout::compute(
            g.width,
            g.height,
            g.log_open,
            self.zooms_detail(),
            g.watching,
        )
    }

    /// On a narrow screen the focused detail takes the whole body.
    pub fn zooms_detail(&self) -> bool {
        self.focus == Pane::Detail
    }

    pub fn tree_page(&self, g: &Geometry) -> usize {
        // Minus the column title row.
        layout::inner_rows(self.areas(g).tree)
            .saturating_sub(1)
            .max(1)
    }

    pub fn table_page(&self, g: &Geometry) -> usize {
        // Minus the column title row.
        layout::inner_rows(self.areas(g).table)
            .saturating_sub(1)
            .max(1)
    }

    pub(super) fn rebuild_tree(&mut self, env: &Env) {
        let page = self.tree_page(&env.geometry);
        self.rebuild_tree_visible(env.data, page);
    }

    pub(super) fn rebuild_table(&mut self, env: &Env) {
        let page = self.table_page(&env.geometry);
        self.rebuild_table_rows(env.data, page);
    }

    /// Re-apply the filter to the sorted rows (a filter keystroke needs no sort).
    pub(super) fn refilter_table(&mut self, env: &Env) {
        let page = self.table_page(&env.geometry);
        self.refilter_table_rows(env.data, page);
    }

    pub(super) fn fix_tree(&mut self, g: &Geometry) {
        let page = self.tree_page(g);
        self.fix_tree_offset(page);
    }

    pub(super) fn fix_table(&mut self, g: &Geometry) {
        let page = self.table_page(g);
        self.fix_table_offset(page);
    }

    /// Keep the selected rows on screen after a resize.
    pub fn fit_offsets(&mut self, g: &Geometry) {
        self.fix_tree(g);
        self.fix_table(g);
    }

    /// Watch mode starts on the runs list.
    pub fn focus_runs(&mut self) {
        self.focus = Pane::Runs;
    }
}
