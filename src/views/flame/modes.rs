//! The flame view's merged forms, opened and closed by its keys: the sandwich (`i`, its
//! state in `flame_sandwich`) and the left-heavy graph (`s`, `flame_merge`).

use ratatui::layout::Rect;

use super::layout::SpanOf;
use super::model::FlameCommand;
use super::sandwich::{SandwichStep, SandwichView};
use super::state::{graph_area, FlameView};
use crate::app::command::Command;
use crate::app::step::Step;

/// The flame view's merged forms: the sandwich and the left-heavy graph.
impl FlameView {
    /// The sandwich of `name` over the graph drawn (its frames merged by name).
    pub(super) fn open_sandwich(&mut self, name: &str) {
        if let Some(s) = self.tree.sandwich(name) {
            self.sandwich = Some(Box::new(SandwichView::new(s)));
        }
    }

    /// A key while the sandwich is open: moves within it; `i`, Esc or Backspace close it;
    /// `%` and the search act as on the graph.
    pub(super) fn sandwich_command(&mut self, cmd: Command, area: Rect) -> Vec<Step> {
        let g = graph_area(area);
        let step = match cmd {
            Command::Flame(FlameCommand::Weighting) => return self.toggle_weighting(),
            Command::Flame(FlameCommand::Order) => {
                return vec![Step::Notice(
                    "the sandwich merges stacks already: i goes back to the graph".into(),
                )]
            }
            Command::Flame(c) => match self.sandwich.as_mut() {
                Some(s) => s.command(c, g, self.weighting),
                None => SandwichStep::Close,
            },
            Command::Back => SandwichStep::Close,
            Command::ToggleFlame => return vec![Step::Pop],
            Command::Reveal => {
                return vec![Step::Notice(
                    "a sandwich merges frames: i goes back to the graph, r reveals from there"
                        .into(),
                )]
            }
            Command::StartFilter
            | Command::FilterAccept
            | Command::FilterCancel
            | Command::FilterEdit(_) => {
                let sandwich = self.sandwich.take();
                let steps = self.command(cmd, area);
                self.sandwich = sandwich;
                return steps;
            }
            _ => SandwichStep::Steps(Vec::new()),
        };
        match step {
            SandwichStep::Steps(s) => s,
            SandwichStep::Recentre(name) => {
                self.open_sandwich(&name);
                Vec::new()
            }
            SandwichStep::Close => {
                self.sandwich = None;
                Vec::new()
            }
        }
    }

    /// Draw the left-heavy graph (or the recorded one), keeping the zoom and the
    /// selection on the frames of the same names.
    pub fn set_left_heavy(&mut self, on: bool) {
        if on == self.left_heavy {
            return;
        }
        let zoom = self.names_to(self.zoom);
        let selected = match self.selected {
            SpanOf::Frame(f) => self.names_to(f),
            SpanOf::Merged(p) => self.names_to(p),
        };
        self.tree = if on {
            std::sync::Arc::new(self.recorded.left_heavy())
        } else {
            self.recorded.clone()
        };
        self.left_heavy = on;
        self.zoom = self.frame_named(&zoom);
        self.selected = SpanOf::Frame(self.frame_named(&selected));
        self.refresh_matches();
    }

    /// The names from the root to frame `f` (the root's excluded).
    fn names_to(&self, f: u32) -> Vec<String> {
        let mut path = self.tree.path(f);
        path.remove(0);
        path.iter()
            .map(|&p| self.tree.frames[p as usize].name().to_string())
            .collect()
    }

    /// The frame reached by following `names` from the root (the widest child of each
    /// name), as far as they go.
    fn frame_named(&self, names: &[String]) -> u32 {
        let mut at = 0u32;
        for name in names {
            let next = self
                .tree
                .sorted_children(at, self.weighting)
                .iter()
                .copied()
                .find(|&c| self.tree.frames[c as usize].name() == name)
                .or_else(|| {
                    // Between the recorded and the left-heavy graph: `#3` is `OPERATOR_CALL`.
                    let bare = super::merge::instance_free_name(name);
                    self.tree
                        .sorted_children(at, self.weighting)
                        .iter()
                        .copied()
                        .find(|&c| {
                            super::merge::instance_free(&self.tree.frames[c as usize]) == bare
                        })
                });
            match next {
                Some(c) => at = c,
                None => break,
            }
        }
        at
    }
}
