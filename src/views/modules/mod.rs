//! The nn.Module tree with inclusive times (`m`, with an ETRecord).

pub mod keys;
pub mod render;
pub mod state;

use ratatui::Frame;

use super::{Component, Ctx};
use crate::app::command::{Command, ViewKind};
use crate::app::step::Step;
use crate::ui::Theme;
use state::ModulesView;

impl Component for ModulesView {
    fn kind(&self) -> ViewKind {
        ViewKind::Modules
    }

    fn editing(&self) -> bool {
        self.filter_editing
    }

    fn command(&mut self, cmd: Command, ctx: &Ctx) -> Vec<Step> {
        match ctx.data() {
            Some(d) => ModulesView::command(self, cmd, d, state::list_rows(ctx.body)),
            None => vec![Step::Pop],
        }
    }

    fn render(&self, frame: &mut Frame, ctx: &Ctx, theme: &Theme) {
        if let Some(data) = ctx.data() {
            render::render(frame, ctx.body, self, data, theme);
        }
    }

    crate::clone_box!();
}
