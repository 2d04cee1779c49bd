//! A load failed: the message naming the file, over the last good profile.

pub mod keys;
pub mod render;
pub mod state;

use ratatui::Frame;

use super::{Component, Ctx, Place};
use crate::app::command::{Command, ViewKind};
use crate::app::step::Step;
use crate::ui::Theme;
use state::DialogView;

impl Component for DialogView {
    fn kind(&self) -> ViewKind {
        ViewKind::Dialog
    }

    fn place(&self) -> Place {
        Place::Popup
    }

    fn command(&mut self, cmd: Command, _ctx: &Ctx) -> Vec<Step> {
        self.command(cmd)
    }

    fn render(&self, frame: &mut Frame, ctx: &Ctx, theme: &Theme) {
        render::render(frame, ctx.screen, &self.message, theme);
    }

    crate::clone_box!();
}
