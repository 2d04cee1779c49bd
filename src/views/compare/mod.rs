//! Two profiles compared (`compare A B`; `d` in watch mode and the fleet).

pub mod detail;
pub mod keys;
pub mod render;
pub mod state;

use ratatui::Frame;

use super::help::state::HelpView;
use super::{Component, Ctx, Place};
use crate::app::command::{Command, ViewKind};
use crate::app::step::Step;
use crate::ui::Theme;
use state::CompareView;

impl Component for CompareView {
    fn kind(&self) -> ViewKind {
        ViewKind::Compare
    }

    fn editing(&self) -> bool {
        self.filter_editing
    }

    fn place(&self) -> Place {
        Place::Screen
    }

    /// `f`: the flame graph of the comparison's rows, over it.
    fn command(&mut self, cmd: Command, _ctx: &Ctx) -> Vec<Step> {
        if cmd == Command::ToggleFlame {
            let tree = super::flame::model::FlameTree::from_comparison(self.comparison());
            let view = super::flame::state::FlameView::new(tree);
            return vec![Step::Push(Box::new(view))];
        }
        CompareView::command(self, cmd)
    }

    /// The list's height comes from the compare layout of this frame.
    fn fit(&mut self, ctx: &Ctx) {
        self.scroll_to_fit(render::list_height(ctx.screen.width, ctx.screen.height));
    }

    fn render(&self, frame: &mut Frame, ctx: &Ctx, theme: &Theme) {
        render::draw(frame, self, ctx.notice(), theme);
    }

    /// Its keys, the verdict marks and every warning of the comparison.
    fn render_help(&self, frame: &mut Frame, help: &HelpView, theme: &Theme) -> bool {
        render::draw_help(frame, self, help, theme);
        true
    }

    crate::clone_box!();
}
