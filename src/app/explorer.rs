//! The explorer view (the base of the stack): what its keys do to the panes (tree,
//! operator table, detail, runs list), over the state in `AppState`.

use super::column::Column;
use super::effect::Effect;
use super::keymap::Command;
use super::layout;
use super::listing::step;
use super::runs::RunStatus;
use super::state::{AppState, Pane};
use super::table;
use super::watch;
use crate::views::log::state::LogView;

/// A key of the explorer's table (or of its filter's text field).
pub(super) fn command(state: &mut AppState, cmd: Command) -> Vec<Effect> {
    use Command::*;
    match cmd {
        Up | Down | PageUp | PageDown | Top | Bottom => return navigate(state, cmd),
        NextPane | PrevPane => {
            let order: &[Pane] = if state.session.watch.is_some() {
                &[Pane::Runs, Pane::Tree, Pane::Table, Pane::Detail]
            } else {
                &[Pane::Tree, Pane::Table, Pane::Detail]
            };
            let n = order.len();
            let i = order
                .iter()
                .position(|p| *p == state.explorer.focus)
                .unwrap_or(0);
            let next = if cmd == NextPane {
                (i + 1) % n
            } else {
                (i + n - 1) % n
            };
            state.explorer.focus = order[next];
            if matches!(state.explorer.focus, Pane::Tree | Pane::Table) {
                state.explorer.detail_source = state.explorer.focus;
            }
        }
        Enter => enter(state),
        Back => back(state),
        Collapse | Expand if state.explorer.focus == Pane::Tree => tree_fold(state, cmd == Expand),
        Collapse | Expand if state.explorer.focus == Pane::Table => {
            scroll_columns(state, cmd == Expand)
        }
        Collapse | Expand => {}
        ExpandAll | CollapseAll => {
            let open = cmd == ExpandAll;
            if let Some(d) = &state.session.data {
                state.explorer.tree.expanded =
                    d.nodes.iter().map(|n| open || n.parent.is_none()).collect();
            }
            state.rebuild_tree_visible();
        }
        StartFilter => {
            state.explorer.filter_editing = true;
            state.explorer.focus = Pane::Table;
            state.explorer.detail_source = Pane::Table;
        }
        FilterAccept => {
            state.explorer.filter_editing = false;
            let n = state.tree_matches().len();
            if n > 0 {
                let word = if n == 1 { "match" } else { "matches" };
                state.session.notice = Some(format!("{n} {word} in the tree: ] next, [ previous"));
            }
        }
        FilterCancel => {
            state.explorer.filter_editing = false;
            state.explorer.table.from_types = false;
            state.explorer.table.filter.reset();
            state.refilter_table_rows();
        }
        FilterEdit(req) => {
            // The instances of a type were its name as the filter: an edit makes it a
            // filter of its own.
            state.explorer.table.from_types = false;
            state.explorer.table.filter.handle(req);
            state.refilter_table_rows();
            state.explorer.table.selected = 0;
            state.fix_table_offset();
        }
        SortNext => {
            let next = state.explorer.table.sort.next(state.explorer.table.columns);
            sort_by(state, next);
        }
        SortColumn(column) => {
            if state.explorer.table.columns.contains(&column) {
                sort_by(state, column);
            }
        }
        SortReverse => {
            state.explorer.table.descending = !state.explorer.table.descending;
            state.rebuild_table_rows();
        }
        ScopeAll => {
            state.explorer.table.scope = None;
            state.explorer.table.within = None;
            state.rebuild_table_rows();
        }
        Reveal => reveal_selected(state),
        GroupByType => toggle_groups(state),
        NextLogSection => {
            let view = LogView::at_next_section(state.session.data.as_ref(), state.log_width());
            state.views.push(Box::new(view));
        }
        CopyRow => return copy_selected(state),
        NextMatch | PrevMatch => tree_match(state, cmd == NextMatch),
        ToggleLog => {
            let view = LogView::opened(state.session.data.as_ref());
            state.views.push(Box::new(view));
        }
        WarmupMore | WarmupLess => return super::warmup::change_warmup(state, cmd == WarmupMore),
        NewerRun | OlderRun | NewestRun => {
            let Some(w) = &state.session.watch else {
                state.session.notice =
                    Some("n, p, N: runs of a watched folder (--watch) only".into());
                return Vec::new();
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
            return watch::select_run(state, index);
        }
        PinBaseline => watch::pin_baseline(state),
        CompareBaseline => watch::open_compare(state),
        // What opens a view over the explorer: `explorer_open::opens`, as steps.
        ToggleTimeline | ToggleFlame | ToggleModules => {}
        // The shell's, for every view (`update::command`).
        Quit | ToggleHelp => {}
        // Keys of other views' tables.
        Dismiss | Timeline(_) | Swap | ToggleUnchanged | Flame(_) => {}
    }
    Vec::new()
}

/// Returns the effects of showing another run (runs list only).
pub(super) fn navigate(state: &mut AppState, cmd: Command) -> Vec<Effect> {
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
    match state.explorer.focus {
        Pane::Runs => {
            let page = layout::inner_rows(state.areas().runs).max(1);
            let d = delta(page).unwrap_or(0);
            let Some(w) = &state.session.watch else {
                return Vec::new();
            };
            let index = step(w.selected, d, w.entries.len());
            return watch::select_run(state, index);
        }
        Pane::Tree => {
            let d = delta(state.tree_page()).unwrap_or(0);
            state.explorer.tree.selected = step(
                state.explorer.tree.selected,
                d,
                state.explorer.tree.visible.len(),
            );
            state.fix_tree_offset();
        }
        Pane::Table => {
            let d = delta(state.table_page()).unwrap_or(0);
            state.explorer.table.selected = step(
                state.explorer.table.selected,
                d,
                state.explorer.table.rows.len(),
            );
            state.fix_table_offset();
        }
        // The detail follows the list it came from.
        Pane::Detail => {
            let source = state.explorer.detail_source;
            state.explorer.focus = source;
            navigate(state, cmd);
            state.explorer.focus = Pane::Detail;
        }
    }
    Vec::new()
}

fn enter(state: &mut AppState) {
    match state.explorer.focus {
        Pane::Tree => {
            let Some(data) = &state.session.data else {
                return;
            };
            let Some(id) = state.explorer.tree.selected_node() else {
                return;
            };
            let node = &data.nodes[id];
            if let Some(row) = node.op_row {
                // Operator: show it in the table (in its delegate) and open the detail.
                state.explorer.table.scope = node.scope;
                state.explorer.table.within = None;
                state.explorer.table.from_types = false;
                state.explorer.table.filter.reset();
                state.rebuild_table_rows();
                if let Some(pos) = state.explorer.table.rows.iter().position(|&r| r == row) {
                    state.explorer.table.selected = pos;
                    state.fix_table_offset();
                }
                state.explorer.detail_source = Pane::Table;
                state.explorer.focus = Pane::Detail;
            } else {
                state.explorer.table.scope = node.scope;
                // A node whose children are operators (a plan step, an instruction with
                // kernels) lists just those; a delegate or the method lists its scope.
                let lists_ops = node
                    .children
                    .iter()
                    .any(|&c| data.nodes.get(c).is_some_and(|n| n.op_row.is_some()));
                state.explorer.table.within = lists_ops.then_some(id);
                if !node.children.is_empty() {
                    if let Some(e) = state.explorer.tree.expanded.get_mut(id) {
                        *e = !*e;
                    }
                }
                state.rebuild_tree_visible();
                state.rebuild_table_rows();
            }
        }
        Pane::Table if state.explorer.table.grouped => drill_into_group(state),
        Pane::Table => {
            if !state.explorer.table.rows.is_empty() {
                state.explorer.detail_source = Pane::Table;
                state.explorer.focus = Pane::Detail;
            }
        }
        Pane::Detail | Pane::Runs => {}
    }
}

/// Whether the explorer's Esc would change nothing (the tree focused, no filter, no
/// scope, no types list): over the fleet, Esc then returns to it.
pub(super) fn nothing_to_undo(state: &AppState) -> bool {
    let t = &state.explorer.table;
    state.explorer.focus == Pane::Tree
        && t.scope.is_none()
        && t.within.is_none()
        && t.filter.value().is_empty()
        && !t.grouped
}

/// Esc: the filter first, from any pane; then one level back: a type's instances to the
/// types list, the detail to its list, the runs or the table to the tree, then the
/// tree's scope, then the types list to the operators.
fn back(state: &mut AppState) {
    let t = &mut state.explorer.table;
    if t.from_types {
        t.from_types = false;
        t.grouped = true;
        t.filter.reset();
        t.rows.clear();
        t.selected = 0;
        t.offset = 0;
        reload_table_source(state);
        return;
    }
    if !t.filter.value().is_empty() {
        t.filter.reset();
        state.rebuild_table_rows();
        return;
    }
    match state.explorer.focus {
        Pane::Detail => state.explorer.focus = state.explorer.detail_source,
        Pane::Runs => state.explorer.focus = Pane::Tree,
        Pane::Table => {
            state.explorer.focus = Pane::Tree;
            state.explorer.detail_source = Pane::Tree;
        }
        Pane::Tree => {
            let t = &mut state.explorer.table;
            if t.scope.is_some() || t.within.is_some() {
                t.scope = None;
                t.within = None;
                state.rebuild_table_rows();
            } else if t.grouped {
                t.grouped = false;
                t.rows.clear();
                t.selected = 0;
                t.offset = 0;
                reload_table_source(state);
            }
        }
    }
}

/// The table's search keys and widths for what it lists now (types or operators).
fn reload_table_source(state: &mut AppState) {
    if let Some(data) = &state.session.data {
        state.explorer.table.search = table::search_keys(state.table_ops(data));
        state.explorer.table.row_widths = table::row_widths(state.table_ops(data));
    }
    state.rebuild_table_rows();
}

fn tree_fold(state: &mut AppState, open: bool) {
    let Some(data) = &state.session.data else {
        return;
    };
    let Some(id) = state.explorer.tree.selected_node() else {
        return;
    };
    let node = &data.nodes[id];
    let is_open = state.explorer.tree.is_open(id);
    if open {
        if !node.children.is_empty() && !is_open {
            state.explorer.tree.expanded[id] = true;
        }
    } else if !node.children.is_empty() && is_open {
        state.explorer.tree.expanded[id] = false;
    } else if let Some(p) = node.parent {
        if let Some(pos) = state.explorer.tree.visible.iter().position(|&v| v == p) {
            state.explorer.tree.selected = pos;
        }
    }
    state.rebuild_tree_visible();
}

/// Show tree node `id`: open its ancestors, select it, focus the tree.
pub fn reveal_node(state: &mut AppState, id: usize) {
    let Some(data) = &state.session.data else {
        return;
    };
    let mut at = data.nodes.get(id).and_then(|n| n.parent);
    while let Some(p) = at {
        if let Some(e) = state.explorer.tree.expanded.get_mut(p) {
            *e = true;
        }
        at = data.nodes.get(p).and_then(|n| n.parent);
    }
    state.rebuild_tree_visible();
    if let Some(pos) = state.explorer.tree.visible.iter().position(|&v| v == id) {
        state.explorer.tree.selected = pos;
        // In the middle of the pane, with its surroundings.
        let page = state.tree_page();
        state.explorer.tree.offset = pos.saturating_sub(page / 2);
        state.fix_tree_offset();
    }
    state.explorer.focus = Pane::Tree;
    state.explorer.detail_source = Pane::Tree;
}

/// `o`: operator types instead of operators, or back. Enter on a type lists its
/// instances (`drill_into_group`).
fn toggle_groups(state: &mut AppState) {
    let Some(data) = &state.session.data else {
        return;
    };
    if data.groups.is_empty() {
        state.session.notice = Some("traces list operators by name already".into());
        return;
    }
    state.explorer.table.grouped = !state.explorer.table.grouped;
    state.explorer.table.from_types = false;
    state.explorer.table.search = table::search_keys(state.table_ops(data));
    state.explorer.table.row_widths = table::row_widths(state.table_ops(data));
    state.explorer.table.filter.reset();
    state.explorer.table.rows.clear();
    state.explorer.table.selected = 0;
    state.explorer.table.offset = 0;
    state.explorer.table.hscroll = 0;
    state.rebuild_table_rows();
    state.explorer.focus = Pane::Table;
    state.explorer.detail_source = Pane::Table;
    state.session.notice = Some(if state.explorer.table.grouped {
        "grouped by operator type: Enter lists a type's instances, o ungroups".into()
    } else {
        "operators, one row each".into()
    });
}

/// Enter on a type row: its instances (the operators whose name is the type with a
/// ` #N`, or the kernel itself).
fn drill_into_group(state: &mut AppState) {
    let Some(data) = &state.session.data else {
        return;
    };
    let Some(group) = state
        .selected_op()
        .and_then(|r| data.groups.get(r))
        .map(|g| g.name.clone())
    else {
        return;
    };
    let search = table::search_keys(&data.ops);
    let row_widths = table::row_widths(&data.ops);
    let exact: Vec<usize> = data
        .ops
        .iter()
        .enumerate()
        .filter(|(_, o)| super::groups::op_type(&o.name) == group)
        .map(|(i, _)| i)
        .collect();
    state.explorer.table.grouped = false;
    state.explorer.table.from_types = true;
    state.explorer.table.search = search;
    state.explorer.table.row_widths = row_widths;
    state.explorer.table.filter.reset();
    // The instances are exactly the names starting with the type (kernels: the name).
    for c in group.chars() {
        state
            .explorer
            .table
            .filter
            .handle(tui_input::InputRequest::InsertChar(c));
    }
    state.explorer.table.rows.clear();
    state.rebuild_table_rows();
    // A longer type containing this one (rare) is filtered out by type, not by text.
    state.explorer.table.rows.retain(|r| exact.contains(r));
    state.explorer.table.selected = 0;
    state.explorer.table.offset = 0;
    state.session.notice = Some(format!(
        "{} of {group}: Esc back to the types",
        super::format::count(exact.len(), "instance")
    ));
}

/// `c`: the selected row (table, or tree node) as text on the clipboard; in the detail
/// pane, the row's source `file:line` when the ETRecord gives one (the row itself is `c`
/// in the tree or the table). The footer says what was copied.
fn copy_selected(state: &mut AppState) -> Vec<Effect> {
    let Some(data) = &state.session.data else {
        return Vec::new();
    };
    if state.explorer.focus == Pane::Detail {
        let line = state
            .detail_node()
            .and_then(|n| data.sources.get(&n))
            .and_then(|s| s.file_line.clone());
        if let Some(line) = line {
            state.session.notice = Some(format!(
                "copied {} (the row's source line) to the clipboard (OSC 52)",
                crate::escape::escape(&line)
            ));
            return vec![Effect::Copy(line)];
        }
    }
    let from_table = state.explorer.focus == Pane::Table
        || (state.explorer.focus == Pane::Detail && state.explorer.detail_source == Pane::Table);
    let text = if from_table {
        state
            .selected_op()
            .and_then(|r| state.table_ops(data).get(r))
            .map(|o| super::copy::row_text(data.kind, o))
    } else {
        state
            .detail_node()
            .and_then(|n| super::copy::node_text(data, n))
    };
    match text {
        Some(text) => {
            let name: String = text.split(" · ").next().unwrap_or("").to_string();
            state.session.notice = Some(format!(
                "copied {name} ({} characters) to the clipboard (OSC 52)",
                text.chars().count()
            ));
            vec![Effect::Copy(text)]
        }
        None => {
            state.session.notice = Some("nothing selected to copy".into());
            Vec::new()
        }
    }
}

/// `r`: the selected operator (table or its detail) shown in the tree.
fn reveal_selected(state: &mut AppState) {
    let Some(data) = &state.session.data else {
        return;
    };
    let target = if state.explorer.table.grouped {
        state.session.notice =
            Some("a type has no one place in the tree: Enter lists its instances".into());
        return;
    } else if state.explorer.focus == Pane::Table
        || (state.explorer.focus == Pane::Detail && state.explorer.detail_source == Pane::Table)
    {
        state
            .selected_op()
            .and_then(|r| data.ops.get(r))
            .map(|o| o.node)
    } else {
        None
    };
    if let Some(id) = target {
        reveal_node(state, id);
    }
}

/// `]` / `[`: the next (previous) tree node matching the filter, after (before) the
/// selected one, wrapping; shown and selected.
fn tree_match(state: &mut AppState, next: bool) {
    let matches = state.tree_matches();
    if matches.is_empty() {
        state.session.notice = Some(if state.explorer.table.filter.value().is_empty() {
            "no search: / types one".to_string()
        } else {
            format!(
                "no tree node matches \"{}\"",
                state.explorer.table.filter.value()
            )
        });
        return;
    }
    let current = state.explorer.tree.selected_node();
    // Nodes come parents first, so id order is tree order.
    let pick = match (current, next) {
        (Some(c), true) => matches.iter().copied().find(|&m| m > c),
        (Some(c), false) => matches.iter().rev().copied().find(|&m| m < c),
        (None, _) => None,
    };
    let id = pick.unwrap_or(if next {
        matches[0]
    } else {
        matches[matches.len() - 1]
    });
    let k = matches.iter().position(|&m| m == id).unwrap_or(0) + 1;
    reveal_node(state, id);
    state.session.notice = Some(format!(
        "tree match {k} of {} for \"{}\"",
        matches.len(),
        state.explorer.table.filter.value()
    ));
}

/// Scroll the operator table's columns one step (no further than the last column).
fn scroll_columns(state: &mut AppState, right: bool) {
    if right {
        let width = state
            .areas()
            .table
            .map(|a| a.width.saturating_sub(2))
            .unwrap_or(0);
        let shown = state.table_layout(width, state.table_page()).len();
        let hidden = state.table_columns().len().saturating_sub(shown);
        if state.explorer.table.hscroll < hidden {
            state.explorer.table.hscroll += 1;
        }
    } else {
        state.explorer.table.hscroll = state.explorer.table.hscroll.saturating_sub(1);
    }
}

/// Sort by `column`: a new column starts in its natural direction.
pub fn sort_by(state: &mut AppState, column: Column) {
    if state.explorer.table.sort == column {
        state.explorer.table.descending = !state.explorer.table.descending;
    } else {
        state.explorer.table.sort = column;
        state.explorer.table.descending = column.default_descending();
    }
    state.rebuild_table_rows();
}
