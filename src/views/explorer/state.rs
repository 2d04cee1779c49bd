//! The explorer's own state (in the stack: at its base, or over the fleet): which pane has the focus, the
//! tree's open nodes and selection, the operator table's scope, sort, filter and
//! selection. Plain data; the shared data it lists (`ExplorerData`, the runs list) is the
//! session's (`app::session::Session`).

use std::collections::HashMap;

use tui_input::Input;

use crate::app::column::Column;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    /// Watch mode: the runs list.
    Runs,
    Tree,
    Table,
    Detail,
}

#[derive(Debug, Clone, Default)]
pub struct TreeState {
    pub expanded: Vec<bool>,
    /// Node ids in display order (children of collapsed nodes left out).
    pub visible: Vec<usize>,
    pub selected: usize,
    pub offset: usize,
    /// Open/closed per node name path (`node_keys`) of every profile shown so far, so a
    /// node keeps its state across profiles that lack it in between.
    pub remembered: HashMap<String, bool>,
}

impl TreeState {
    /// The node on the selected line.
    pub fn selected_node(&self) -> Option<usize> {
        self.visible.get(self.selected).copied()
    }

    /// Whether node `id` is open (its children listed).
    pub fn is_open(&self, id: usize) -> bool {
        self.expanded.get(id).copied().unwrap_or(false)
    }
}

#[derive(Debug, Clone)]
pub struct TableState {
    pub sort: Column,
    pub descending: bool,
    pub filter: Input,
    /// Limit to one delegate (index into `ExplorerData::scopes`); None = all.
    pub scope: Option<usize>,
    /// Rows are operator types (`ExplorerData::groups`), not operators (`t`).
    pub grouped: bool,
    /// Limit to the operators directly under this tree node (a plan step or a
    /// non-delegated instruction: Enter on it); None = the whole scope.
    pub within: Option<usize>,
    /// The rows are one type's instances, listed from the types list (Enter on a type):
    /// Esc goes back to that list.
    pub from_types: bool,
    /// Row indices (into `ExplorerData::ops`) after scope, filter and sort.
    pub rows: Vec<usize>,
    /// Row indices after scope and sort only (filtering narrows this, no re-sort).
    pub sorted: Vec<usize>,
    /// Lower-cased operator names (`table::search_keys`), one per `ExplorerData::ops`.
    pub search: Vec<String>,
    pub selected: usize,
    pub offset: usize,
    /// Widest content of each text column over `rows` (`table::text_widths`).
    pub text_widths: Vec<(Column, u16)>,
    /// The longest `…tail` of a step over `rows`.
    pub step_tail_width: u16,
    /// Text widths of every row of the listed source (`table::row_widths`).
    pub row_widths: Vec<crate::app::table::RowWidths>,
    /// The count every listed row has, when they all have the same (the column then
    /// gives way and the title says it once).
    pub uniform_count: Option<usize>,
    /// Text columns (delegate, step, shapes) with the same value on every listed row
    /// (two or more): they give way and the title says each once (`step conv_1`,
    /// `shapes not recorded`); the text is the title's, empty when the title says it
    /// already (the table scoped to that delegate or step).
    pub uniform_text: Vec<(Column, String)>,
    /// Some listed row has a GFLOP/s or GB/s figure (else the efficiency columns, all
    /// `-`, give way: no shapes, or every row under the clock quantum).
    pub rates_known: bool,
    /// Columns (after the name) scrolled off to the left (`←`/`→` in the table).
    pub hscroll: usize,
    /// The columns this source has, in display order.
    pub columns: &'static [Column],
}

impl Default for TableState {
    fn default() -> Self {
        TableState {
            sort: Column::Median,
            descending: true,
            filter: Input::default(),
            scope: None,
            within: None,
            from_types: false,
            grouped: false,
            rows: Vec::new(),
            sorted: Vec::new(),
            search: Vec::new(),
            selected: 0,
            offset: 0,
            text_widths: Vec::new(),
            step_tail_width: 0,
            row_widths: Vec::new(),
            uniform_count: None,
            uniform_text: Vec::new(),
            rates_known: false,
            hscroll: 0,
            columns: &Column::ETDUMP,
        }
    }
}

/// The explorer's panes.
#[derive(Debug, Clone)]
pub struct ExplorerView {
    /// The explorer's filter is being typed (`/`).
    pub filter_editing: bool,
    pub focus: Pane,
    /// The list whose selection the detail pane shows.
    pub detail_source: Pane,
    pub tree: TreeState,
    pub table: TableState,
    /// Pushed over another view (the fleet's Enter): Esc with nothing left to undo goes
    /// back to it.
    pub over: bool,
}

impl Default for ExplorerView {
    fn default() -> Self {
        ExplorerView {
            filter_editing: false,
            focus: Pane::Tree,
            detail_source: Pane::Tree,
            tree: TreeState::default(),
            table: TableState::default(),
            over: false,
        }
    }
}

impl ExplorerView {
    /// The explorer pushed over another view (the fleet's): Esc returns to it.
    pub fn over_another() -> ExplorerView {
        ExplorerView {
            over: true,
            ..ExplorerView::default()
        }
    }
}
