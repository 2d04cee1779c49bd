//! One run on a time axis (`t`): lanes, zoom, pan, run stepping, search.

pub mod keys;
pub mod lanes;
pub mod render;
pub mod search;
pub mod state;

use ratatui::Frame;

use super::{Component, Ctx};
use crate::app::command::{Command, ViewKind};
use crate::app::data::SourceKind;
use crate::app::keys::Meaning;
use crate::app::layout::MouseAction;
use crate::app::search::{status, Search};
use crate::app::step::Step;
use crate::ui::Theme;
use state::TimelineView;

impl Component for TimelineView {
    fn kind(&self) -> ViewKind {
        ViewKind::Timeline
    }

    fn editing(&self) -> bool {
        self.search.editing
    }

    /// The timeline steps through a dump's runs; a trace has none.
    /// A trace has no runs: its footer offers neither stepping through runs nor picking
    /// one (`W`, `~`).
    fn hint_applies(&self, meaning: Meaning, ctx: &Ctx) -> bool {
        !matches!(meaning, Meaning::Runs | Meaning::PickRun)
            || ctx.data().is_some_and(|d| d.kind != SourceKind::Trace)
    }

    fn command(&mut self, cmd: Command, ctx: &Ctx) -> Vec<Step> {
        let lanes = state::lane_rows(ctx.body);
        if let Some(steps) = search::command(self, cmd, lanes) {
            return steps;
        }
        match cmd {
            Command::Timeline(c) => state::command(self, c, lanes)
                .map(Step::Effect)
                .into_iter()
                .collect(),
            Command::ToggleTimeline | Command::Back => vec![Step::Pop],
            _ => Vec::new(),
        }
    }

    fn mouse(&mut self, kind: MouseAction, x: u16, y: u16, ctx: &Ctx) -> Vec<Step> {
        state::mouse(self, ctx.body, kind, x, y);
        Vec::new()
    }

    fn render(&self, frame: &mut Frame, ctx: &Ctx, theme: &Theme) {
        if ctx.data().is_some() {
            render::render(frame, ctx.body, self, theme);
        }
    }

    fn search(&self, _ctx: &Ctx) -> Option<(&Search, String)> {
        let found = search::matches(self);
        Some((
            &self.search,
            status(self.search.input.value(), &found, (self.lane, self.bar)),
        ))
    }

    crate::clone_box!();
}
