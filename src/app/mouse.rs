//! The mouse over the explorer's panes: a click focuses and selects (a column title
//! sorts), the wheel scrolls the pane under the pointer. Hits use the same geometry as
//! rendering (`layout::compute`).

use super::effect::Effect;
use super::explorer::{navigate, sort_by};
use super::keymap::Command;
use super::layout::{self, MouseAction};
use super::state::{AppState, Pane};
use super::watch;

/// A click or wheel turn at (`x`, `y`) over the explorer (the views over it take theirs
/// in `update`).
pub(super) fn mouse(state: &mut AppState, kind: MouseAction, x: u16, y: u16) -> Vec<Effect> {
    let areas = state.areas();
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
        let Some(w) = &state.session.watch else {
            return Vec::new();
        };
        let index = match kind {
            MouseAction::ScrollUp => w.selected.saturating_sub(3),
            MouseAction::ScrollDown => w.selected + 3,
            MouseAction::Click => {
                // Rows start right under the top border; clicks on borders only focus.
                state.explorer.focus = Pane::Runs;
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
        return watch::select_run(state, index);
    }
    match kind {
        MouseAction::ScrollUp | MouseAction::ScrollDown => {
            let before = state.explorer.focus;
            state.explorer.focus = pane;
            let cmd = if kind == MouseAction::ScrollUp {
                Command::Up
            } else {
                Command::Down
            };
            for _ in 0..3 {
                navigate(state, cmd);
            }
            state.explorer.focus = before;
        }
        MouseAction::Click => {
            state.explorer.focus = pane;
            if pane != Pane::Detail {
                state.explorer.detail_source = pane;
            }
            let inner_top = area.y + 1;
            match pane {
                Pane::Tree if y > inner_top => {
                    let i = state.explorer.tree.offset + (y - inner_top - 1) as usize;
                    if i < state.explorer.tree.visible.len() && y < area.y + area.height - 1 {
                        state.explorer.tree.selected = i;
                    }
                }
                Pane::Table if y == inner_top => {
                    let rows = (area.height as usize).saturating_sub(3);
                    let widths = state.table_layout(area.width.saturating_sub(2), rows);
                    let mut left = area.x + 1;
                    for (col, w) in widths {
                        if x >= left && x < left + w + 1 {
                            sort_by(state, col);
                            break;
                        }
                        left += w + 1;
                    }
                }
                Pane::Table if y > inner_top => {
                    let i = state.explorer.table.offset + (y - inner_top - 1) as usize;
                    if i < state.explorer.table.rows.len() && y < area.y + area.height - 1 {
                        state.explorer.table.selected = i;
                    }
                }
                _ => {}
            }
        }
    }
    Vec::new()
}
