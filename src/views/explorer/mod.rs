//! The explorer: the panes over one profile (runs, tree, operator table, detail), a view
//! like the others in the stack (at its base, or pushed over the fleet). Its state
//! (`state`), key table (`keys`), lists over the session's data (`listing`, paged by
//! `geometry`), commands (`commands`, `reveal`, `groups`, `clipboard`, `open`, `mouse`),
//! a new profile's carrying over (`install`) and drawing (`render` and one file per
//! pane: `header`, `answer`, `runs`, `status`, `tree`, `table`, `detail`, `loading`,
//! `footer`) are here; it reads the shared session through `Ctx` and asks the shell for
//! the rest with `Step`s.

pub mod answer;
pub mod clipboard;
pub mod commands;
pub mod detail;
pub mod detail_facts;
pub mod footer;
pub mod geometry;
pub mod groups;
pub mod header;
pub mod install;
pub mod keys;
pub mod listing;
pub mod loading;
pub mod mouse;
pub mod open;
pub mod render;
pub mod reveal;
pub mod runs;
pub mod state;
pub mod status;
pub mod table;
pub mod tree;

use ratatui::Frame;

use super::{Component, Ctx, Place};
use crate::app::command::{Command, ViewKind};
use crate::app::keys::Meaning;
use crate::app::layout::MouseAction;
use crate::app::step::Step;
use crate::ui::Theme;
use geometry::Env;
pub use state::{ExplorerView, Pane};

impl Component for ExplorerView {
    fn kind(&self) -> ViewKind {
        ViewKind::Explorer
    }

    fn place(&self) -> Place {
        Place::Screen
    }

    fn editing(&self) -> bool {
        self.filter_editing
    }

    /// The keys that need something: runs (the warm-up), types, an ETRecord (the
    /// modules), a watched folder (the runs, the baseline).
    fn hint_applies(&self, meaning: Meaning, ctx: &Ctx) -> bool {
        let data = ctx.session.data.as_ref();
        match meaning {
            Meaning::Warmup => ctx.session.shown_warmup().is_some(),
            // Only where there are types (not in a trace's by-name table).
            Meaning::Types => data.is_some_and(|d| !d.groups.is_empty()),
            Meaning::Modules => data.is_some_and(|d| !d.modules.is_empty()),
            Meaning::Runs | Meaning::Baseline | Meaning::CompareBaseline => {
                ctx.session.watch.is_some()
            }
            _ => true,
        }
    }

    /// Its selection, sort and filter outlive a return to the fleet.
    fn parks(&self) -> bool {
        true
    }

    fn command(&mut self, cmd: Command, ctx: &Ctx) -> Vec<Step> {
        self.run(cmd, &Env::of(ctx))
    }

    fn mouse(&mut self, kind: MouseAction, x: u16, y: u16, ctx: &Ctx) -> Vec<Step> {
        self.click(kind, x, y, &Env::of(ctx))
    }

    fn render(&self, frame: &mut Frame, ctx: &Ctx, theme: &Theme) {
        render::render(self, frame, ctx, theme);
    }

    fn render_over(&self, frame: &mut Frame, ctx: &Ctx, theme: &Theme) {
        render::render_over(frame, ctx, theme);
    }

    crate::clone_box!();
}
