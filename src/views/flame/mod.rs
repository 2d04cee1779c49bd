//! The flame graph (`f`): an icicle of the explorer's tree or of a comparison's rows, its sandwich and left-heavy forms.

pub mod build;
pub mod keys;
pub mod layout;
pub mod merge;
pub mod model;
pub mod modes;
pub mod render;
pub mod sandwich;
pub mod state;

use ratatui::layout::Rect;
use ratatui::Frame;

use super::{Component, Ctx, Place};
use crate::app::command::{Command, ViewKind};
use crate::app::layout::MouseAction;
use crate::app::step::Step;
use crate::ui::Theme;
use state::FlameView;

/// Where it is drawn: the explorer's body, or the whole screen over the compare view.
fn area(view: &FlameView, ctx: &Ctx) -> Rect {
    if view.is_diff() {
        ctx.screen
    } else {
        ctx.body
    }
}

impl Component for FlameView {
    fn kind(&self) -> ViewKind {
        ViewKind::Flame
    }

    fn editing(&self) -> bool {
        self.search_editing
    }

    fn place(&self) -> Place {
        if self.is_diff() {
            Place::Screen
        } else {
            Place::Body
        }
    }

    fn command(&mut self, cmd: Command, ctx: &Ctx) -> Vec<Step> {
        FlameView::command(self, cmd, area(self, ctx))
    }

    fn mouse(&mut self, kind: MouseAction, x: u16, y: u16, ctx: &Ctx) -> Vec<Step> {
        FlameView::mouse(self, area(self, ctx), kind, x, y)
    }

    /// Over the compare view it is the whole screen, with the footer's notice; over the
    /// explorer, the body while a profile is loaded.
    fn render(&self, frame: &mut Frame, ctx: &Ctx, theme: &Theme) {
        if self.is_diff() {
            render::render(frame, ctx.screen, self, ctx.notice(), theme);
        } else if ctx.data().is_some() {
            render::render(frame, ctx.body, self, None, theme);
        }
    }

    crate::clone_box!();
}
