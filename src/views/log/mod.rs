//! Findings, decoded plans and the runner log (`w`, `v`), with a cursor and search.

pub mod keys;
pub mod render;
pub mod state;

use ratatui::Frame;

use super::{Component, Ctx};
use crate::app::command::{Command, ViewKind};
use crate::app::layout::{self, MouseAction};
use crate::app::search::{status, Search};
use crate::app::step::Step;
use crate::ui::Theme;
use state::LogView;

/// Cells inside the log's border (it fills the body).
fn width(ctx: &Ctx) -> usize {
    ctx.body.width.saturating_sub(2) as usize
}

impl Component for LogView {
    fn kind(&self) -> ViewKind {
        ViewKind::Log
    }

    fn editing(&self) -> bool {
        self.search.editing
    }

    fn command(&mut self, cmd: Command, ctx: &Ctx) -> Vec<Step> {
        let page = layout::inner_rows(Some(ctx.body));
        state::command(self, cmd, ctx.data(), width(ctx), page)
    }

    fn mouse(&mut self, kind: MouseAction, x: u16, y: u16, ctx: &Ctx) -> Vec<Step> {
        if layout::contains(ctx.body, x, y) {
            let d = match kind {
                MouseAction::ScrollUp => -3,
                MouseAction::ScrollDown => 3,
                MouseAction::Click => 0,
            };
            state::scroll_by(self, d, ctx.data(), width(ctx));
        }
        Vec::new()
    }

    fn render(&self, frame: &mut Frame, ctx: &Ctx, theme: &Theme) {
        if let Some(data) = ctx.data() {
            render::render(frame, ctx.body, data, self, theme);
        }
    }

    fn search(&self, ctx: &Ctx) -> Option<(&Search, String)> {
        let found = match ctx.data() {
            Some(d) => state::search_rows(d, &self.search.needle(), width(ctx)),
            None => Vec::new(),
        };
        Some((
            &self.search,
            status(self.search.input.value(), &found, self.cursor),
        ))
    }

    crate::clone_box!();
}
