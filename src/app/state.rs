//! Explorer state (plain data) and the pure `update(state, action) -> effects`.

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use ratatui::crossterm::event::KeyEvent;
use tui_input::Input;

use super::data::ExplorerData;
use super::keymap::{self, Command, Mode};
use super::layout::{self, Areas};
use super::runs::{self, Outcome, WatchState};
use super::table::{self, Column};
use crate::profile::{LoadPhase, ProfileRequest};
use crate::watch::WatchEvent;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    /// Watch mode: the runs list.
    Runs,
    Tree,
    Table,
    Detail,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MouseAction {
    Click,
    ScrollUp,
    ScrollDown,
}

/// Everything that can happen to the explorer.
#[derive(Debug)]
pub enum Action {
    Key(KeyEvent),
    Command(Command),
    Mouse {
        kind: MouseAction,
        x: u16,
        y: u16,
    },
    Resize(u16, u16),
    Progress {
        generation: u64,
        phase: LoadPhase,
        bytes_done: u64,
        bytes_total: u64,
    },
    /// A load finished; `Err` is the one-line message naming the file. (Cancelled loads
    /// send nothing: the worker drops their results.)
    Loaded {
        generation: u64,
        result: Result<Box<ExplorerData>, String>,
    },
    /// A load found the dump still being written (`message` names the file).
    LoadIncomplete {
        generation: u64,
        message: String,
    },
    /// The directory watcher reported `event` (received at `at`).
    Watch {
        event: WatchEvent,
        at: SystemTime,
    },
    /// A `RetryAfter` timer fired.
    RetryDue,
}

/// What the shell must do after an update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Start loading `request` (cancelling any older load); tag events with `generation`.
    Load {
        request: ProfileRequest,
        generation: u64,
    },
    /// Send `Action::RetryDue` after this long (incomplete dumps are retried quietly).
    RetryAfter(Duration),
    Quit,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loading {
    pub generation: u64,
    pub file: String,
    pub warmup: usize,
    pub phase: LoadPhase,
    pub bytes_done: u64,
    pub bytes_total: u64,
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

#[derive(Debug, Clone)]
pub struct TableState {
    pub sort: Column,
    pub descending: bool,
    pub filter: Input,
    /// Limit to one delegate (index into `ExplorerData::scopes`); None = all.
    pub scope: Option<usize>,
    /// Row indices (into `ExplorerData::ops`) after scope, filter and sort.
    pub rows: Vec<usize>,
    /// Row indices after scope and sort only (filtering narrows this, no re-sort).
    pub sorted: Vec<usize>,
    /// Lower-cased operator names (`table::search_keys`), one per `ExplorerData::ops`.
    pub search: Vec<String>,
    pub selected: usize,
    pub offset: usize,
    pub longest_name: usize,
    pub longest_step: usize,
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
            rows: Vec::new(),
            sorted: Vec::new(),
            search: Vec::new(),
            selected: 0,
            offset: 0,
            longest_name: 0,
            longest_step: 0,
            columns: &Column::ETDUMP,
        }
    }
}

#[derive(Debug, Clone)]
pub struct AppState {
    /// The last request (reloads reuse it with another warm-up).
    pub request: Option<ProfileRequest>,
    pub generation: u64,
    pub loading: Option<Loading>,
    pub data: Option<ExplorerData>,
    pub error: Option<String>,
    pub help: bool,
    pub help_scroll: usize,
    pub filter_editing: bool,
    pub log_view: bool,
    pub log_scroll: usize,
    pub focus: Pane,
    /// The list whose selection the detail pane shows.
    pub detail_source: Pane,
    pub tree: TreeState,
    pub table: TableState,
    pub width: u16,
    pub height: u16,
    pub quit: bool,
    /// Watch mode (`--watch DIR`): the runs list.
    pub watch: Option<WatchState>,
}

impl AppState {
    pub fn new(width: u16, height: u16) -> AppState {
        AppState {
            request: None,
            generation: 0,
            loading: None,
            data: None,
            error: None,
            help: false,
            help_scroll: 0,
            filter_editing: false,
            log_view: false,
            log_scroll: 0,
            focus: Pane::Tree,
            detail_source: Pane::Tree,
            tree: TreeState::default(),
            table: TableState::default(),
            width,
            height,
            quit: false,
            watch: None,
        }
    }

    pub fn mode(&self) -> Mode {
        if self.error.is_some() {
            Mode::Dialog
        } else if self.help {
            Mode::Help
        } else if self.filter_editing {
            Mode::FilterInput
        } else {
            Mode::Normal
        }
    }

    /// The geometry of the last handled resize (what update's paging and mouse hits use).
    pub fn areas(&self) -> Areas {
        self.areas_for(self.width, self.height)
    }

    /// The geometry of this view on a `width` x `height` screen. Rendering uses the
    /// frame's own size: the terminal may have changed size since the last `Resize`.
    pub fn areas_for(&self, width: u16, height: u16) -> Areas {
        layout::compute(
            width,
            height,
            self.log_view,
            self.focus == Pane::Detail,
            self.watch.is_some(),
        )
    }

    /// Start loading `request` (first load or reload).
    pub fn load(&mut self, request: ProfileRequest) -> Vec<Effect> {
        self.generation += 1;
        self.loading = Some(Loading {
            generation: self.generation,
            file: request.etdump.display().to_string(),
            warmup: request.warmup,
            phase: LoadPhase::Reading,
            bytes_done: 0,
            bytes_total: 0,
        });
        self.request = Some(request.clone());
        vec![Effect::Load {
            request,
            generation: self.generation,
        }]
    }

    /// The tree node the detail pane describes.
    pub fn detail_node(&self) -> Option<usize> {
        let data = self.data.as_ref()?;
        match self.detail_source {
            Pane::Table => {
                let row = *self.table.rows.get(self.table.selected)?;
                data.ops.get(row).map(|r| r.node)
            }
            _ => self.tree.visible.get(self.tree.selected).copied(),
        }
    }

    pub fn selected_op(&self) -> Option<usize> {
        self.table.rows.get(self.table.selected).copied()
    }

    /// The warm-up runs the footer names: those dropped in the profile on screen (it may
    /// have been built with an older warm-up), else the warm-up the next load will use.
    /// None for sources without runs (traces).
    pub fn shown_warmup(&self) -> Option<usize> {
        match &self.data {
            Some(d) => d.runs.as_ref().map(|r| r.dropped),
            None => Some(match (&self.watch, &self.request) {
                (Some(w), _) => w.warmup,
                (None, Some(r)) => r.warmup,
                (None, None) => 0,
            }),
        }
    }

    pub fn runs_total(&self) -> Option<usize> {
        self.data.as_ref()?.runs.as_ref().map(|r| r.total)
    }

    /// Lines of the warnings and log view.
    pub fn log_len(&self) -> usize {
        let width = self
            .areas()
            .log
            .map(|a| a.width.saturating_sub(2))
            .unwrap_or(self.width);
        self.data
            .as_ref()
            .map(|d| finding_lines(d, width as usize).len() + d.log.len() + 3)
            .unwrap_or(0)
    }

    fn tree_page(&self) -> usize {
        // Minus the column title row.
        layout::inner_rows(self.areas().tree)
            .saturating_sub(1)
            .max(1)
    }

    fn table_page(&self) -> usize {
        // Minus the column title row.
        layout::inner_rows(self.areas().table)
            .saturating_sub(1)
            .max(1)
    }

    fn rebuild_tree_visible(&mut self) {
        let keep = self.tree.visible.get(self.tree.selected).copied();
        self.tree.visible.clear();
        if let Some(data) = &self.data {
            let mut stack: Vec<usize> = data.roots.iter().rev().copied().collect();
            while let Some(id) = stack.pop() {
                self.tree.visible.push(id);
                if self.tree.expanded.get(id).copied().unwrap_or(false) {
                    stack.extend(data.nodes[id].children.iter().rev());
                }
            }
        }
        self.tree.selected = keep
            .and_then(|k| self.tree.visible.iter().position(|&v| v == k))
            .unwrap_or(0);
        self.fix_tree_offset();
    }

    fn rebuild_table_rows(&mut self) {
        self.table.sorted = match &self.data {
            Some(d) => table::sorted_rows(
                &d.ops,
                self.table.scope,
                self.table.sort,
                self.table.descending,
            ),
            None => Vec::new(),
        };
        self.refilter_table_rows();
    }

    /// Re-apply the filter to the sorted rows (a filter keystroke needs no sort).
    fn refilter_table_rows(&mut self) {
        let keep = self.selected_op();
        self.table.rows = match &self.data {
            Some(_) => table::filter_rows(
                &self.table.search,
                &self.table.sorted,
                self.table.filter.value(),
            ),
            None => Vec::new(),
        };
        self.table.selected = keep
            .and_then(|k| self.table.rows.iter().position(|&r| r == k))
            .unwrap_or(0);
        self.fix_table_offset();
    }

    fn fix_tree_offset(&mut self) {
        let page = self.tree_page();
        self.tree.offset = fix_offset(self.tree.selected, self.tree.offset, page);
    }

    fn fix_table_offset(&mut self) {
        let page = self.table_page();
        self.table.offset = fix_offset(self.table.selected, self.table.offset, page);
    }

    /// Show `data`. Expanded nodes, the selected node and operator row and the delegate
    /// scope carry over from the profile shown before wherever the same rows exist
    /// (matched by name path, not index); sort and filter are kept as they are.
    /// Returns the profile shown before.
    pub(super) fn install(&mut self, data: ExplorerData) -> Option<ExplorerData> {
        let first_load = self.data.is_none();
        // Only needed to match against a profile shown before (big dumps load faster).
        let new_keys = if first_load {
            Vec::new()
        } else {
            node_keys(&data)
        };
        let mut selected_node = None;
        let mut selected_op = None;
        if let Some(old) = &self.data {
            let old_keys = node_keys(old);
            for (i, k) in old_keys.iter().enumerate() {
                let open = self.tree.expanded.get(i).copied().unwrap_or(false);
                self.tree.remembered.insert(k.clone(), open);
            }
            let open = &self.tree.remembered;
            self.tree.expanded = data
                .nodes
                .iter()
                .zip(&new_keys)
                .map(|(n, k)| open.get(k).copied().unwrap_or_else(|| default_open(n)))
                .collect();
            selected_node = self
                .tree
                .visible
                .get(self.tree.selected)
                .and_then(|&i| old_keys.get(i))
                .cloned();
            selected_op = self
                .selected_op()
                .and_then(|r| old.ops.get(r))
                .and_then(|o| old_keys.get(o.node))
                .cloned();
            self.table.scope = self
                .table
                .scope
                .and_then(|s| old.scopes.get(s))
                .and_then(|label| data.scopes.iter().position(|l| l == label));
        } else {
            // Method and delegates open; steps closed.
            self.tree.expanded = data.nodes.iter().map(default_open).collect();
            self.table.scope = None;
        }
        self.table.columns = data.kind.columns();
        if !self.table.columns.contains(&self.table.sort) {
            self.table.sort = Column::Median;
        }
        let find = |key: &Option<String>| {
            key.as_ref()
                .and_then(|k| new_keys.iter().position(|n| n == k))
        };
        let node_id = find(&selected_node);
        let op_row = find(&selected_op).and_then(|n| data.nodes[n].op_row);
        self.table.longest_name = data
            .ops
            .iter()
            .map(|o| o.name.chars().count())
            .max()
            .unwrap_or(0);
        self.table.longest_step = data
            .ops
            .iter()
            .map(|o| o.step.chars().count())
            .max()
            .unwrap_or(0);
        self.table.search = table::search_keys(&data.ops);
        let previous = self.data.replace(data);
        if first_load && self.watch.is_none() {
            self.focus = Pane::Tree;
        }
        // Rebuilding keeps the selection by id; point it at the matching rows first.
        self.tree.visible.clear();
        self.tree.selected = 0;
        self.rebuild_tree_visible();
        if let Some(pos) = node_id.and_then(|id| self.tree.visible.iter().position(|&v| v == id)) {
            self.tree.selected = pos;
            self.fix_tree_offset();
        }
        self.table.rows.clear();
        self.table.selected = 0;
        self.rebuild_table_rows();
        if let Some(pos) = op_row.and_then(|r| self.table.rows.iter().position(|&x| x == r)) {
            self.table.selected = pos;
            self.fix_table_offset();
        }
        previous
    }
}

fn default_open(n: &super::data::TreeNode) -> bool {
    matches!(
        n.kind,
        super::data::NodeKind::Method | super::data::NodeKind::Delegate
    )
}

/// A key per tree node naming its path from the root: names joined, with the position
/// among same-named siblings so duplicates stay distinct. Nodes come parents first.
pub fn node_keys(data: &ExplorerData) -> Vec<String> {
    let mut keys: Vec<String> = Vec::with_capacity(data.nodes.len());
    let mut seen: HashMap<(Option<usize>, &str), usize> = HashMap::new();
    for node in &data.nodes {
        let nth = seen.entry((node.parent, node.name.as_str())).or_insert(0);
        let parent = node
            .parent
            .and_then(|p| keys.get(p))
            .map_or("", String::as_str);
        let key = format!("{parent}\u{1f}{}\u{1e}{nth}", node.name);
        *nth += 1;
        keys.push(key);
    }
    keys
}

/// The findings section of the log view, wrapped to `width`: (is error, first line of
/// its finding, text). Shared by rendering and scrolling so both count the same lines.
pub fn finding_lines(data: &ExplorerData, width: usize) -> Vec<(Option<bool>, bool, String)> {
    let mut out = Vec::new();
    if data.findings.is_empty() {
        out.push((None, true, "no warnings or errors".to_string()));
    }
    for f in &data.findings {
        // "ERROR " / "warn  " take 6 cells; continuation lines are indented to match.
        let text = format!("{}: {}", f.kind, f.message);
        for (i, line) in super::format::wrap(&text, width.saturating_sub(6))
            .into_iter()
            .enumerate()
        {
            out.push((Some(f.error), i == 0, line));
        }
    }
    out
}

/// The scroll offset that keeps row `selected` on a page of `page` rows.
pub(super) fn fix_offset(selected: usize, offset: usize, page: usize) -> usize {
    if selected < offset {
        selected
    } else if selected >= offset + page {
        selected + 1 - page
    } else {
        offset
    }
}

fn step(pos: usize, delta: isize, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    let p = pos as isize + delta;
    p.clamp(0, len as isize - 1) as usize
}

/// Apply one action. Pure: all I/O is in the returned effects.
pub fn update(state: &mut AppState, action: Action) -> Vec<Effect> {
    match action {
        Action::Key(key) => match keymap::lookup(state.mode(), &key) {
            Some(cmd) => command(state, cmd),
            None => Vec::new(),
        },
        Action::Command(cmd) => command(state, cmd),
        Action::Mouse { kind, x, y } => mouse(state, kind, x, y),
        Action::Resize(w, h) => {
            state.width = w;
            state.height = h;
            state.fix_tree_offset();
            state.fix_table_offset();
            runs::fix_runs_offset(state);
            Vec::new()
        }
        Action::Progress {
            generation,
            phase,
            bytes_done,
            bytes_total,
        } => {
            if let Some(l) = state.loading.as_mut() {
                if l.generation == generation {
                    l.phase = phase;
                    l.bytes_done = bytes_done;
                    l.bytes_total = bytes_total;
                }
            }
            Vec::new()
        }
        Action::Loaded { generation, result } if state.watch.is_some() => {
            let outcome = match result {
                Ok(data) => Outcome::Loaded(data),
                Err(message) => Outcome::Failed(message),
            };
            runs::on_loaded(state, generation, outcome)
        }
        Action::LoadIncomplete { generation, .. } if state.watch.is_some() => {
            runs::on_loaded(state, generation, Outcome::Incomplete)
        }
        Action::LoadIncomplete {
            generation,
            message,
        } => update(
            state,
            Action::Loaded {
                generation,
                result: Err(message),
            },
        ),
        Action::Watch { event, at } => runs::on_watch_event(state, event, at),
        Action::RetryDue => runs::on_retry(state),
        Action::Loaded { generation, result } => {
            if generation != state.generation {
                return Vec::new(); // stale: a newer request superseded it
            }
            state.loading = None;
            match result {
                Ok(data) => {
                    state.install(*data);
                }
                Err(message) => state.error = Some(message),
            }
            Vec::new()
        }
    }
}

fn command(state: &mut AppState, cmd: Command) -> Vec<Effect> {
    use Command::*;
    match cmd {
        Quit => {
            state.quit = true;
            return vec![Effect::Quit];
        }
        Dismiss => state.error = None,
        ToggleHelp => {
            state.help = !state.help;
            state.help_scroll = 0;
        }
        Up | Down | PageUp | PageDown | Top | Bottom => return navigate(state, cmd),
        NextPane | PrevPane => {
            let order: &[Pane] = if state.watch.is_some() {
                &[Pane::Runs, Pane::Tree, Pane::Table, Pane::Detail]
            } else {
                &[Pane::Tree, Pane::Table, Pane::Detail]
            };
            let n = order.len();
            let i = order.iter().position(|p| *p == state.focus).unwrap_or(0);
            let next = if cmd == NextPane {
                (i + 1) % n
            } else {
                (i + n - 1) % n
            };
            state.focus = order[next];
            if matches!(state.focus, Pane::Tree | Pane::Table) {
                state.detail_source = state.focus;
            }
            state.log_view = false;
        }
        Enter => enter(state),
        Back => back(state),
        Collapse | Expand if state.focus == Pane::Tree && !state.log_view => {
            tree_fold(state, cmd == Expand)
        }
        Collapse | Expand => {}
        ExpandAll | CollapseAll => {
            let open = cmd == ExpandAll;
            if let Some(d) = &state.data {
                state.tree.expanded = d.nodes.iter().map(|n| open || n.parent.is_none()).collect();
            }
            state.rebuild_tree_visible();
        }
        StartFilter => {
            state.filter_editing = true;
            state.log_view = false;
            state.focus = Pane::Table;
            state.detail_source = Pane::Table;
        }
        FilterAccept => state.filter_editing = false,
        FilterCancel => {
            state.filter_editing = false;
            state.table.filter.reset();
            state.refilter_table_rows();
        }
        FilterEdit(req) => {
            state.table.filter.handle(req);
            state.refilter_table_rows();
            state.table.selected = 0;
            state.fix_table_offset();
        }
        SortNext => {
            let next = state.table.sort.next(state.table.columns);
            sort_by(state, next);
        }
        SortReverse => {
            state.table.descending = !state.table.descending;
            state.rebuild_table_rows();
        }
        ScopeAll => {
            state.table.scope = None;
            state.rebuild_table_rows();
        }
        ToggleLog => {
            state.log_view = !state.log_view;
            state.log_scroll = 0;
        }
        WarmupMore | WarmupLess => return change_warmup(state, cmd == WarmupMore),
        NewerRun | OlderRun | NewestRun => {
            let Some(w) = &state.watch else {
                return Vec::new();
            };
            let index = match cmd {
                NewerRun => w.selected.saturating_sub(1),
                OlderRun => w.selected + 1,
                // The newest profile (rows above it are errors or still loading).
                _ => w
                    .entries
                    .iter()
                    .position(|e| e.status == runs::RunStatus::Loaded)
                    .unwrap_or(0),
            };
            return runs::select_run(state, index);
        }
    }
    Vec::new()
}

/// Sort by `column`: a new column starts in its natural direction.
pub fn sort_by(state: &mut AppState, column: Column) {
    if state.table.sort == column {
        state.table.descending = !state.table.descending;
    } else {
        state.table.sort = column;
        state.table.descending = column.default_descending();
    }
    state.rebuild_table_rows();
}

fn change_warmup(state: &mut AppState, more: bool) -> Vec<Effect> {
    // Under `--warmup auto` the keys step from the runs the profile on screen dropped.
    let auto_dropped = state
        .data
        .as_ref()
        .and_then(|d| d.runs.as_ref())
        .map(|r| r.dropped);
    let current = match (&state.watch, &state.request) {
        (Some(w), _) if w.warmup_auto => auto_dropped.unwrap_or(0),
        (Some(w), _) => w.warmup,
        (None, Some(r)) if r.warmup_auto => auto_dropped.unwrap_or(0),
        (None, Some(r)) => r.warmup,
        (None, None) => return Vec::new(),
    };
    let Some(wanted) = next_warmup(current, more, state.runs_total()) else {
        return Vec::new();
    };
    if state.watch.is_some() {
        return runs::change_watch_warmup(state, wanted);
    }
    let Some(mut request) = state.request.clone() else {
        return Vec::new();
    };
    request.warmup = wanted;
    request.warmup_auto = false;
    state.load(request)
}

/// The warm-up one step up or down from `current`, if allowed: never below 0, and at
/// least one of `runs_total` runs must stay (no step up while the total is unknown).
fn next_warmup(current: usize, more: bool, runs_total: Option<usize>) -> Option<usize> {
    if more {
        runs_total
            .filter(|&total| current + 1 < total)
            .map(|_| current + 1)
    } else {
        current.checked_sub(1)
    }
}

/// Returns the effects of showing another run (runs list only).
fn navigate(state: &mut AppState, cmd: Command) -> Vec<Effect> {
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
    if state.help {
        let d = delta(10).unwrap_or(0);
        state.help_scroll = step(state.help_scroll, d, keymap::help_lines().len());
        return Vec::new();
    }
    if state.log_view {
        let page = layout::inner_rows(state.areas().log).max(1);
        let d = delta(page).unwrap_or(0);
        state.log_scroll = step(state.log_scroll, d, state.log_len());
        return Vec::new();
    }
    match state.focus {
        Pane::Runs => {
            let page = layout::inner_rows(state.areas().runs).max(1);
            let d = delta(page).unwrap_or(0);
            let Some(w) = &state.watch else {
                return Vec::new();
            };
            let index = step(w.selected, d, w.entries.len());
            return runs::select_run(state, index);
        }
        Pane::Tree => {
            let d = delta(state.tree_page()).unwrap_or(0);
            state.tree.selected = step(state.tree.selected, d, state.tree.visible.len());
            state.fix_tree_offset();
        }
        Pane::Table => {
            let d = delta(state.table_page()).unwrap_or(0);
            state.table.selected = step(state.table.selected, d, state.table.rows.len());
            state.fix_table_offset();
        }
        // The detail follows the list it came from.
        Pane::Detail => {
            let source = state.detail_source;
            state.focus = source;
            navigate(state, cmd);
            state.focus = Pane::Detail;
        }
    }
    Vec::new()
}

fn enter(state: &mut AppState) {
    if state.log_view {
        return;
    }
    match state.focus {
        Pane::Tree => {
            let Some(data) = &state.data else { return };
            let Some(&id) = state.tree.visible.get(state.tree.selected) else {
                return;
            };
            let node = &data.nodes[id];
            if let Some(row) = node.op_row {
                // Operator: show it in the table (in its delegate) and open the detail.
                state.table.scope = node.scope;
                state.table.filter.reset();
                state.rebuild_table_rows();
                if let Some(pos) = state.table.rows.iter().position(|&r| r == row) {
                    state.table.selected = pos;
                    state.fix_table_offset();
                }
                state.detail_source = Pane::Table;
                state.focus = Pane::Detail;
            } else {
                state.table.scope = node.scope;
                if !node.children.is_empty() {
                    if let Some(e) = state.tree.expanded.get_mut(id) {
                        *e = !*e;
                    }
                }
                state.rebuild_tree_visible();
                state.rebuild_table_rows();
            }
        }
        Pane::Table => {
            if !state.table.rows.is_empty() {
                state.detail_source = Pane::Table;
                state.focus = Pane::Detail;
            }
        }
        Pane::Detail | Pane::Runs => {}
    }
}

fn back(state: &mut AppState) {
    if state.log_view {
        state.log_view = false;
        return;
    }
    match state.focus {
        Pane::Detail => state.focus = state.detail_source,
        Pane::Runs => state.focus = Pane::Tree,
        Pane::Table => {
            if !state.table.filter.value().is_empty() {
                state.table.filter.reset();
                state.rebuild_table_rows();
            } else {
                state.focus = Pane::Tree;
                state.detail_source = Pane::Tree;
            }
        }
        Pane::Tree => {
            if state.table.scope.is_some() {
                state.table.scope = None;
                state.rebuild_table_rows();
            }
        }
    }
}

fn tree_fold(state: &mut AppState, open: bool) {
    let Some(data) = &state.data else { return };
    let Some(&id) = state.tree.visible.get(state.tree.selected) else {
        return;
    };
    let node = &data.nodes[id];
    let is_open = state.tree.expanded.get(id).copied().unwrap_or(false);
    if open {
        if !node.children.is_empty() && !is_open {
            state.tree.expanded[id] = true;
        }
    } else if !node.children.is_empty() && is_open {
        state.tree.expanded[id] = false;
    } else if let Some(p) = node.parent {
        if let Some(pos) = state.tree.visible.iter().position(|&v| v == p) {
            state.tree.selected = pos;
        }
    }
    state.rebuild_tree_visible();
}

fn mouse(state: &mut AppState, kind: MouseAction, x: u16, y: u16) -> Vec<Effect> {
    if state.error.is_some() || state.help {
        return Vec::new();
    }
    let areas = state.areas();
    if let Some(log) = areas.log {
        if layout::contains(log, x, y) {
            let d = match kind {
                MouseAction::ScrollUp => -3,
                MouseAction::ScrollDown => 3,
                MouseAction::Click => 0,
            };
            state.log_scroll = step(state.log_scroll, d, state.log_len());
        }
        return Vec::new();
    }
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
        let Some(w) = &state.watch else {
            return Vec::new();
        };
        let index = match kind {
            MouseAction::ScrollUp => w.selected.saturating_sub(3),
            MouseAction::ScrollDown => w.selected + 3,
            MouseAction::Click => {
                // Rows start right under the top border; clicks on borders only focus.
                state.focus = Pane::Runs;
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
        return runs::select_run(state, index);
    }
    match kind {
        MouseAction::ScrollUp | MouseAction::ScrollDown => {
            let before = state.focus;
            state.focus = pane;
            let cmd = if kind == MouseAction::ScrollUp {
                Command::Up
            } else {
                Command::Down
            };
            for _ in 0..3 {
                navigate(state, cmd);
            }
            state.focus = before;
        }
        MouseAction::Click => {
            state.focus = pane;
            if pane != Pane::Detail {
                state.detail_source = pane;
            }
            let inner_top = area.y + 1;
            match pane {
                Pane::Tree if y > inner_top => {
                    let i = state.tree.offset + (y - inner_top - 1) as usize;
                    if i < state.tree.visible.len() && y < area.y + area.height - 1 {
                        state.tree.selected = i;
                    }
                }
                Pane::Table if y == inner_top => {
                    let widths = table::column_widths(
                        area.width.saturating_sub(2),
                        state.table.longest_name,
                        state.table.longest_step,
                        state.table.columns,
                    );
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
                    let i = state.table.offset + (y - inner_top - 1) as usize;
                    if i < state.table.rows.len() && y < area.y + area.height - 1 {
                        state.table.selected = i;
                    }
                }
                _ => {}
            }
        }
    }
    Vec::new()
}
