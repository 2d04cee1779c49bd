//! The mouse over the explorer's panes: a click focuses and selects (a column title
//! sorts), the wheel scrolls the pane under the pointer. Hits use the same geometry as
//! rendering (`app::layout::compute`).

use super::geometry::Env;
use super::state::{ExplorerView, Pane};
use crate::app::command::Command;
use crate::app::layout::{self, MouseAction};
use crate::app::step::Step;

impl ExplorerView {
    /// A click or wheel turn at (`x`, `y`) over the explorer's panes.
    pub fn click(&mut self, kind: MouseAction, x: u16, y: u16, env: &Env) -> Vec<Step> {
        let areas = self.areas(&env.geometry);
        let hit = [
            (Pane::Runs, areas.runs),
            (Pane::Tree, areas.tree),
            (Pane::Table, areas.table),
            (Pane::Detail, areas.detail),
        ]
        .into_iter()
        .find_map(|(p, a)| a.filter(|a| layout::contains(*a, x, y)).map(|a| (p, a)));
        let Some((pane, area)) = hit else {
            return Vec::new();
        };
        if pane == Pane::Runs {
            let Some(w) = &env.session.watch else {
                return Vec::new();
            };
            let index = match kind {
                MouseAction::ScrollUp => w.selected.saturating_sub(3),
                MouseAction::ScrollDown => w.selected + 3,
                MouseAction::Click => {
                    // Rows start right under the top border; clicks on borders only focus.
                    self.focus = Pane::Runs;
                    if y <= area.y || y + 1 >= area.y + area.height {
                        return Vec::new();
                    }
                    let i = w.offset + (y - area.y - 1) as usize;
                    if i >= w.entries.len() {
                        return Vec::new();
                    }
                    i
                }
            };
            return vec![Step::SelectRun(index)];
        }
        match kind {
            MouseAction::ScrollUp | MouseAction::ScrollDown => {
                let before = self.focus;
                self.focus = pane;
                let cmd = if kind == MouseAction::ScrollUp {
                    Command::Up
                } else {
                    Command::Down
                };
                for _ in 0..3 {
                    self.navigate(cmd, env);
                }
                self.focus = before;
            }
            MouseAction::Click => {
                self.focus = pane;
                if pane != Pane::Detail {
                    self.detail_source = pane;
                }
                let inner_top = area.y + 1;
                match pane {
                    Pane::Tree if y > inner_top => {
                        let i = self.tree.offset + (y - inner_top - 1) as usize;
                        if i < self.tree.visible.len() && y < area.y + area.height - 1 {
                            self.tree.selected = i;
                        }
                    }
                    Pane::Table if y == inner_top => {
                        let rows = (area.height as usize).saturating_sub(3);
                        let widths =
                            self.table_layout(env.data, area.width.saturating_sub(2), rows);
                        let mut left = area.x + 1;
                        for (col, w) in widths {
                            if x >= left && x < left + w + 1 {
                                self.sort_by(env, col);
                                break;
                            }
                            left += w + 1;
                        }
                    }
                    Pane::Table if y > inner_top => {
                        let i = self.table.offset + (y - inner_top - 1) as usize;
                        if i < self.table.rows.len() && y < area.y + area.height - 1 {
                            self.table.selected = i;
                        }
                    }
                    _ => {}
                }
            }
        }
        Vec::new()
    }
}
