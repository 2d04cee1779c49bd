//! Many profiles at once (`fleet PATH...`): profiles list, rows table of a group, detail.

pub mod keys;
pub mod render;
pub mod rows;
pub mod state;

use ratatui::Frame;

use super::{Component, Ctx, Place};
use crate::app::command::{Command, ViewKind};
use crate::app::step::Step;
use crate::ui::Theme;
use state::FleetView;

impl Component for FleetView {
    fn kind(&self) -> ViewKind {
        ViewKind::Fleet
    }

    fn editing(&self) -> bool {
        self.filter_editing
    }

    fn place(&self) -> Place {
        Place::Screen
    }

    fn command(&mut self, cmd: Command, _ctx: &Ctx) -> Vec<Step> {
        FleetView::command(self, cmd)
    }

    /// The pages of its two lists come from the fleet layout of this frame.
    fn fit(&mut self, ctx: &Ctx) {
        self.pages = render::pages(ctx.screen.width, ctx.screen.height, self.profiles.len());
    }

    fn render(&self, frame: &mut Frame, ctx: &Ctx, theme: &Theme) {
        render::draw(frame, self, ctx.notice(), theme);
    }

    crate::clone_box!();
}
