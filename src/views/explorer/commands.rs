//! What the explorer's keys do to its panes (tree, operator table, detail, runs list):
//! the dispatch, moving, Enter and Esc, the sort; the tree's keys are in `reveal`, the
//! types list in `groups`, `c` in `clipboard`, what opens a view in `open`. Pure: its own
//! state changes here; what the session must do (another warm-up, another run, a
//! baseline, the clipboard, a view to open, a footer message) is returned as `Step`s for
//! the shell.

use super::geometry::Env;
use super::state::{ExplorerView, Pane};
use crate::app::column::Column;
use crate::app::command::Command;
use crate::app::runs::RunStatus;
use crate::app::step::Step;
use crate::app::table;
use crate::views::log::state::LogView;

impl ExplorerView {
    /// A key of the explorer's table (or of its filter's text field).
    pub fn run(&mut self, cmd: Command, env: &Env) -> Vec<Step> {
        use Command::*;
        if let Some(steps) = super::open::opens(cmd, self, env.session) {
            return steps;
        }
        match cmd {
            Up | Down | PageUp | PageDown | Top | Bottom => return self.navigate(cmd, env),
            NextPane | PrevPane => {
                let order: &[Pane] = if env.session.watch.is_some() {
                    &[Pane::Runs, Pane::Tree, Pane::Table, Pane::Detail]
                } else {
                    &[Pane::Tree, Pane::Table, Pane::Detail]
                };
                let n = order.len();
                let i = order.iter().position(|p| *p == self.focus).unwrap_or(0);
                let next = if cmd == NextPane {
                    (i + 1) % n
                } else {
                    (i + n - 1) % n
                };
                self.focus = order[next];
                if matches!(self.focus, Pane::Tree | Pane::Table) {
                    self.detail_source = self.focus;
                }
            }
            Enter => return self.enter(env),
            // Over the fleet, Esc with nothing left to undo goes back to it.
            Back if self.over && self.nothing_to_undo() => return vec![Step::Pop],
            Back => self.back(env),
            Collapse | Expand if self.focus == Pane::Tree => self.tree_fold(env, cmd == Expand),
            Collapse | Expand if self.focus == Pane::Table => {
                self.scroll_columns(env, cmd == Expand)
            }
            Collapse | Expand => {}
            ExpandAll | CollapseAll => {
                let open = cmd == ExpandAll;
                if let Some(d) = env.data {
                    self.tree.expanded =
                        d.nodes.iter().map(|n| open || n.parent.is_none()).collect();
                }
                self.rebuild_tree(env);
            }
            StartFilter => {
                self.filter_editing = true;
                self.focus = Pane::Table;
                self.detail_source = Pane::Table;
            }
            FilterAccept => {
                self.filter_editing = false;
                let n = self.tree_matches(env.data).len();
                if n > 0 {
                    let word = if n == 1 { "match" } else { "matches" };
                    return notice(format!("{n} {word} in the tree: ] next, [ previous"));
                }
            }
            FilterCancel => {
                self.filter_editing = false;
                self.table.from_types = false;
                self.table.filter.reset();
                self.refilter_table(env);
            }
            FilterEdit(req) => {
                // The instances of a type were its name as the filter: an edit makes it a
                // filter of its own.
                self.table.from_types = false;
                self.table.filter.handle(req);
                self.refilter_table(env);
                self.table.selected = 0;
                self.fix_table(&env.geometry);
            }
            SortNext => {
                let next = self.table.sort.next(self.table.columns);
                self.sort_by(env, next);
            }
            SortColumn(column) => {
                if self.table.columns.contains(&column) {
                    self.sort_by(env, column);
                }
            }
            SortReverse => {
                self.table.descending = !self.table.descending;
                self.rebuild_table(env);
            }
            ScopeAll => {
                self.table.scope = None;
                self.table.within = None;
                self.rebuild_table(env);
            }
            Reveal => return self.reveal_selected(env),
            GroupByType => return self.toggle_groups(env),
            NextLogSection => {
                let view = LogView::at_next_section(env.data, log_width(env));
                return vec![Step::Push(Box::new(view))];
            }
            CopyRow => return self.copy_selected(env),
            NextMatch | PrevMatch => return self.tree_match(env, cmd == NextMatch),
            ToggleLog => return vec![Step::Push(Box::new(LogView::opened(env.data)))],
            WarmupMore | WarmupLess => {
                return match crate::app::warmup::wanted_warmup(env.session, cmd == WarmupMore) {
                    Ok(wanted) => vec![Step::Warmup(wanted)],
                    Err(Some(text)) => notice(text),
                    Err(None) => Vec::new(),
                };
            }
            NewerRun | OlderRun | NewestRun => {
                let Some(w) = &env.session.watch else {
                    return notice("n, p, N: runs of a watched folder (--watch) only".into());
                };
                let index = match cmd {
                    NewerRun => w.selected.saturating_sub(1),
                    OlderRun => w.selected + 1,
                    // The newest profile (rows above it are errors or still loading).
                    _ => w
                        .entries
                        .iter()
                        .position(|e| e.status == RunStatus::Loaded)
                        .unwrap_or(0),
                };
                return vec![Step::SelectRun(index)];
            }
            PinBaseline => return vec![Step::PinBaseline],
            CompareBaseline => return vec![Step::CompareBaseline],
            // What opens a view over the explorer: `open::opens`, above.
            ToggleTimeline | ToggleFlame | ToggleModules => {}
            // The shell's, for every view (`update::command`).
            Quit | ToggleHelp => {}
            // Keys of other views' tables.
            Dismiss | Timeline(_) | Swap | ToggleUnchanged | Flame(_) => {}
        }
        Vec::new()
    }

    /// Move in the focused list; the runs list's moves are the shell's (another run shown).
    pub(super) fn navigate(&mut self, cmd: Command, env: &Env) -> Vec<Step> {
        use Command::*;
        let delta = |page: usize| -> Option<isize> {
            match cmd {
                Up => Some(-1),
                Down => Some(1),
                PageUp => Some(-(page as isize)),
                PageDown => Some(page as isize),
                Top => Some(isize::MIN / 2),
                Bottom => Some(isize::MAX / 2),
                _ => None,
            }
        };
        match self.focus {
            Pane::Runs => {
                let page = crate::app::layout::inner_rows(self.areas(&env.geometry).runs).max(1);
                let d = delta(page).unwrap_or(0);
                let Some(w) = &env.session.watch else {
                    return Vec::new();
                };
                return vec![Step::SelectRun(step(w.selected, d, w.entries.len()))];
            }
            Pane::Tree => {
                let d = delta(self.tree_page(&env.geometry)).unwrap_or(0);
                self.tree.selected = step(self.tree.selected, d, self.tree.visible.len());
                self.fix_tree(&env.geometry);
            }
            Pane::Table => {
                let d = delta(self.table_page(&env.geometry)).unwrap_or(0);
                self.table.selected = step(self.table.selected, d, self.table.rows.len());
                self.fix_table(&env.geometry);
            }
            // The detail follows the list it came from.
            Pane::Detail => {
                self.focus = self.detail_source;
                let steps = self.navigate(cmd, env);
                self.focus = Pane::Detail;
                return steps;
            }
        }
        Vec::new()
    }

    fn enter(&mut self, env: &Env) -> Vec<Step> {
        match self.focus {
            Pane::Tree => {
                let Some(data) = env.data else {
                    return Vec::new();
                };
                let Some(id) = self.tree.selected_node() else {
                    return Vec::new();
                };
                let node = &data.nodes[id];
                if let Some(row) = node.op_row {
                    // Operator: show it in the table (in its delegate) and open the detail.
                    self.table.scope = node.scope;
                    self.table.within = None;
                    self.table.from_types = false;
                    self.table.filter.reset();
                    self.rebuild_table(env);
                    if let Some(pos) = self.table.rows.iter().position(|&r| r == row) {
                        self.table.selected = pos;
                        self.fix_table(&env.geometry);
                    }
                    self.detail_source = Pane::Table;
                    self.focus = Pane::Detail;
                } else {
                    self.table.scope = node.scope;
                    // A node whose children are operators (a plan step, an instruction
                    // with kernels) lists just those; a delegate or the method its scope.
                    let lists_ops = node
                        .children
                        .iter()
                        .any(|&c| data.nodes.get(c).is_some_and(|n| n.op_row.is_some()));
                    self.table.within = lists_ops.then_some(id);
                    if !node.children.is_empty() {
                        if let Some(e) = self.tree.expanded.get_mut(id) {
                            *e = !*e;
                        }
                    }
                    self.rebuild_tree(env);
                    self.rebuild_table(env);
                }
            }
            Pane::Table if self.table.grouped => return self.drill_into_group(env),
            Pane::Table => {
                if !self.table.rows.is_empty() {
                    self.detail_source = Pane::Table;
                    self.focus = Pane::Detail;
                }
            }
            Pane::Detail | Pane::Runs => {}
        }
        Vec::new()
    }

    /// Whether the explorer's Esc would change nothing (the tree focused, no filter, no
    /// scope, no types list): over the fleet, Esc then returns to it.
    pub fn nothing_to_undo(&self) -> bool {
        let t = &self.table;
        self.focus == Pane::Tree
            && t.scope.is_none()
            && t.within.is_none()
            && t.filter.value().is_empty()
            && !t.grouped
    }

    /// Esc: the filter first, from any pane; then one level back: a type's instances to
    /// the types list, the detail to its list, the runs or the table to the tree, then
    /// the tree's scope, then the types list to the operators.
    fn back(&mut self, env: &Env) {
        let t = &mut self.table;
        if t.from_types {
            t.from_types = false;
            t.grouped = true;
            t.filter.reset();
            t.rows.clear();
            t.selected = 0;
            t.offset = 0;
            self.reload_table_source(env);
            return;
        }
        if !t.filter.value().is_empty() {
            t.filter.reset();
            self.rebuild_table(env);
            return;
        }
        match self.focus {
            Pane::Detail => self.focus = self.detail_source,
            Pane::Runs => self.focus = Pane::Tree,
            Pane::Table => {
                self.focus = Pane::Tree;
                self.detail_source = Pane::Tree;
            }
            Pane::Tree => {
                let t = &mut self.table;
                if t.scope.is_some() || t.within.is_some() {
                    t.scope = None;
                    t.within = None;
                    self.rebuild_table(env);
                } else if t.grouped {
                    t.grouped = false;
                    t.rows.clear();
                    t.selected = 0;
                    t.offset = 0;
                    self.reload_table_source(env);
                }
            }
        }
    }

    /// The table's search keys and widths for what it lists now (types or operators).
    fn reload_table_source(&mut self, env: &Env) {
        if let Some(data) = env.data {
            self.table.search = table::search_keys(self.table_ops(data));
            self.table.row_widths = table::row_widths(self.table_ops(data));
        }
        self.rebuild_table(env);
    }

    /// Scroll the operator table's columns one step (no further than the last column).
    fn scroll_columns(&mut self, env: &Env, right: bool) {
        if right {
            let width = self
                .areas(&env.geometry)
                .table
                .map(|a| a.width.saturating_sub(2))
                .unwrap_or(0);
            let page = self.table_page(&env.geometry);
            let shown = self.table_layout(env.data, width, page).len();
            let hidden = self.table_columns().len().saturating_sub(shown);
            if self.table.hscroll < hidden {
                self.table.hscroll += 1;
            }
        } else {
            self.table.hscroll = self.table.hscroll.saturating_sub(1);
        }
    }

    /// Sort by `column`: a new column starts in its natural direction.
    pub(super) fn sort_by(&mut self, env: &Env, column: Column) {
        if self.table.sort == column {
            self.table.descending = !self.table.descending;
        } else {
            self.table.sort = column;
            self.table.descending = column.default_descending();
        }
        self.rebuild_table(env);
    }
}

pub(super) fn notice(text: String) -> Vec<Step> {
    vec![Step::Notice(text)]
}

/// Cells inside the log view's border (the log fills the explorer's body).
fn log_width(env: &Env) -> usize {
    let g = &env.geometry;
    let areas = crate::app::layout::compute(g.width, g.height, true, false, g.watching);
    areas.log.map_or(g.width, |a| a.width.saturating_sub(2)) as usize
}

pub(super) fn step(pos: usize, delta: isize, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    let p = pos as isize + delta;
    p.clamp(0, len as isize - 1) as usize
}
