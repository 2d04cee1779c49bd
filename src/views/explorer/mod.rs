//! The explorer: the panes over one profile (runs, tree, operator table, detail), the base
//! of the stack. Its key table (`keys`), its state (`state`) and its lists over the
//! session's data (`listing`) are here; its other commands are still the shell's
//! (`app::explorer`, `mouse`, `warmup`), and it is drawn by `ui::draw` from its state, so
//! in the stack it is the `Explorer` mark, which `update` and `ui::draw` hand to that code.

pub mod keys;
pub mod listing;
pub mod state;

use ratatui::Frame;

use super::{Component, Ctx, Place};
use crate::app::command::{Command, ViewKind};
use crate::app::step::Step;
use crate::ui::Theme;

/// The explorer's place in the stack (at the base, or pushed over the fleet).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Explorer;

impl Component for Explorer {
    fn kind(&self) -> ViewKind {
        ViewKind::Explorer
    }

    fn place(&self) -> Place {
        Place::Screen
    }

    /// Never called: `update` sends the explorer's commands to `app::explorer`.
    fn command(&mut self, _cmd: Command, _ctx: &Ctx) -> Vec<Step> {
        Vec::new()
    }

    /// Never called: `ui::draw` draws the explorer's panes from the shell's state.
    fn render(&self, _frame: &mut Frame, _ctx: &Ctx, _theme: &Theme) {}

    crate::clone_box!();
}
