//! The key tables (`?`), searchable, over the view it was opened from.

pub mod keys;
pub mod render;
pub mod state;

use ratatui::Frame;

use super::{Component, Ctx, Place};
use crate::app::command::{Command, ViewKind};
use crate::app::search::{status, Search};
use crate::app::step::Step;
use crate::ui::Theme;
use state::HelpView;

impl Component for HelpView {
    fn kind(&self) -> ViewKind {
        ViewKind::Help
    }

    fn editing(&self) -> bool {
        self.search.editing
    }

    fn place(&self) -> Place {
        Place::Popup
    }

    fn command(&mut self, cmd: Command, ctx: &Ctx) -> Vec<Step> {
        state::command(self, cmd, ctx.body)
    }

    /// Over a view that draws its help its own way (compare), that way; else the key
    /// tables in the body.
    fn render(&self, frame: &mut Frame, ctx: &Ctx, theme: &Theme) {
        if !ctx.below.is_some_and(|b| b.render_help(frame, self, theme)) {
            render::render(frame, ctx.body, self, theme);
        }
    }

    fn search(&self, ctx: &Ctx) -> Option<(&Search, String)> {
        let found = state::help_matches(self, ctx.body);
        Some((
            &self.search,
            status(self.search.input.value(), &found, self.scroll),
        ))
    }

    crate::clone_box!();
}
