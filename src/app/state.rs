//! Explorer state (plain data) and the pure `update(state, action) -> effects`.

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
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
    /// The timeline asked for by `Effect::LoadTimeline` (`Err`: one line naming the file).
    TimelineLoaded {
        generation: u64,
        result: Result<Box<crate::timeline::AnyTimeline>, String>,
    },
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
    /// Load the timeline of `request` off the UI thread (`app::timeline::load`), then
    /// send `Action::TimelineLoaded` with `generation`.
    LoadTimeline {
        request: ProfileRequest,
        generation: u64,
    },
    /// Put this text on the clipboard (OSC 52, `app::copy::osc52`).
    Copy(String),
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
    /// Progress reports received in this phase after its first (a long phase without a
    /// byte count, such as analysing a big dump, sends them as a heartbeat: the gauge
    /// turns a spinner with them, so it never looks stuck).
    pub beats: u32,
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
    /// Rows are operator types (`ExplorerData::groups`), not operators (`t`).
    pub grouped: bool,
    /// Limit to the operators directly under this tree node (a plan step or a
    /// non-delegated instruction: Enter on it); None = the whole scope.
    pub within: Option<usize>,
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
    pub row_widths: Vec<table::RowWidths>,
    /// The count every listed row has, when they all have the same (the column then
    /// gives way and the title says it once).
    pub uniform_count: Option<usize>,
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
            hscroll: 0,
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
    /// The timeline view (`t`), when open.
    pub timeline: Option<super::timeline::TimelineView>,
    /// A one-line message for the footer (what a change did, why a key did nothing);
    /// cleared by the next key.
    pub notice: Option<String>,
    /// Watch mode: the compare view of a run against its baseline (`d`), drawn over the
    /// explorer; its keys are `app::compare::COMPARE_KEYS` until it closes (Esc, q).
    pub compare: Option<Box<super::compare::CompareView>>,
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
            timeline: None,
            notice: None,
            compare: None,
        }
    }

    pub fn mode(&self) -> Mode {
        if self.error.is_some() {
            Mode::Dialog
        } else if self.help {
            Mode::Help
        } else if self.timeline.is_some() {
            Mode::Timeline
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
            beats: 0,
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
                self.table_ops(data).get(row).map(|r| r.node)
            }
            _ => self.tree.visible.get(self.tree.selected).copied(),
        }
    }

    /// The rows the table lists: operators, or operator types when grouped.
    pub fn table_ops<'a>(&self, data: &'a ExplorerData) -> &'a [super::data::OpRow] {
        if self.table.grouped {
            &data.groups
        } else {
            &data.ops
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
            .map(|d| log_rows(d, width as usize).len() + d.log.len())
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
            Some(d) => {
                let mut rows = table::sorted_rows(
                    self.table_ops(d),
                    self.table.scope,
                    self.table.sort,
                    self.table.descending,
                );
                if let (Some(within), false) = (self.table.within, self.table.grouped) {
                    rows.retain(|&r| {
                        d.ops
                            .get(r)
                            .and_then(|o| d.nodes.get(o.node))
                            .is_some_and(|n| n.parent == Some(within))
                    });
                }
                rows
            }
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
        self.table.uniform_count = match &self.data {
            Some(d) if !self.table.grouped => {
                let ops = self.table_ops(d);
                let mut counts = self.table.rows.iter().filter_map(|&r| ops.get(r));
                let first = counts.next().map(|o| o.stats.count);
                first.filter(|c| counts.all(|o| o.stats.count == *c))
            }
            _ => None,
        };
        let (widths, tail) = table::text_widths(&self.table.row_widths, &self.table.rows);
        self.table.text_widths = widths;
        self.table.step_tail_width = tail;
        let kept = keep.and_then(|k| self.table.rows.iter().position(|&r| r == k));
        self.table.selected = kept.unwrap_or(0);
        if kept.is_none() {
            // Another list: start at its top (no stale scroll position).
            self.table.offset = 0;
        }
        self.fix_table_offset();
    }

    /// The columns the operator table can show, in display order. A text column with
    /// nothing in it (no output shapes recorded) is left out: a blank column only takes
    /// room from the others.
    pub fn table_columns(&self) -> Vec<Column> {
        let t = &self.table;
        t.columns
            .iter()
            .copied()
            .filter(|c| {
                // Types have no one parent: no %parent column.
                if t.grouped && *c == Column::Share && t.sort != Column::Share {
                    return false;
                }
                // One count for every row: said in the title instead.
                if *c == Column::Count && t.uniform_count.is_some() && t.sort != Column::Count {
                    return false;
                }
                *c == Column::Name
                    || *c == t.sort
                    || !c.flexible()
                    || t.text_widths.iter().any(|(x, w)| x == c && *w > 0)
            })
            .collect()
    }

    /// The operator table's columns and widths for a pane whose inside is `width` cells
    /// wide and shows `rows` rows from the current offset. Rendering and mouse hits both
    /// use this, so a click on a title sorts the column drawn there.
    pub fn table_layout(&self, width: u16, rows: usize) -> Vec<(Column, u16)> {
        let Some(data) = &self.data else {
            return Vec::new();
        };
        let t = &self.table;
        let start = t.offset.min(t.rows.len());
        let end = (start + rows).min(t.rows.len());
        let window = &t.rows[start..end];
        let columns = self.table_columns();
        table::layout(
            width,
            &columns,
            |c| {
                let ops = self.table_ops(data);
                table::natural_width(c, ops, window, &t.text_widths, c == t.sort)
            },
            |c| match c {
                Column::Step => t.step_tail_width.clamp(table::FLEX_MIN, 24),
                _ => table::FLEX_MIN,
            },
            t.sort,
            t.hscroll,
        )
    }

    fn fix_tree_offset(&mut self) {
        let page = self.tree_page();
        let offset = fix_offset(self.tree.selected, self.tree.offset, page);
        // No blank rows below the list while rows above are hidden.
        self.tree.offset = offset.min(self.tree.visible.len().saturating_sub(page));
    }

    fn fix_table_offset(&mut self) {
        let page = self.table_page();
        let offset = fix_offset(self.table.selected, self.table.offset, page);
        self.table.offset = offset.min(self.table.rows.len().saturating_sub(page));
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
                .and_then(|r| self.table_ops(old).get(r))
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
        self.table.within = None;
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
        if data.groups.is_empty() {
            self.table.grouped = false;
        }
        self.table.search = table::search_keys(self.table_ops(&data));
        self.table.row_widths = table::row_widths(self.table_ops(&data));
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
/// A finding as the warnings view writes it: `kind · delegate #1: message`.
pub fn finding_text(f: &super::data::FindingRow) -> String {
    match &f.delegate {
        Some(d) => format!("{} · {d}: {}", f.kind, f.message),
        None => format!("{}: {}", f.kind, f.message),
    }
}

pub fn finding_lines(data: &ExplorerData, width: usize) -> Vec<(Option<bool>, bool, String)> {
    let mut out = Vec::new();
    if data.findings.is_empty() {
        out.push((None, true, "no warnings or errors".to_string()));
    }
    for f in &data.findings {
        // "ERROR " / "warn  " take 6 cells; continuation lines are indented to match.
        let text = finding_text(f);
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
        Action::Key(key) => {
            state.notice = None;
            if state.error.is_none() {
                if let Some(view) = state.compare.as_mut() {
                    let ctrl_c = key.modifiers.contains(KeyModifiers::CONTROL)
                        && key.code == KeyCode::Char('c');
                    if ctrl_c {
                        return command(state, Command::Quit);
                    }
                    if view.key(key) {
                        state.compare = None;
                    }
                    return Vec::new();
                }
            }
            match keymap::lookup(state.mode(), &key) {
                Some(cmd) => command(state, cmd),
                None => Vec::new(),
            }
        }
        Action::Command(cmd) => command(state, cmd),
        // The compare view (over the explorer) has no mouse handling.
        Action::Mouse { .. } if state.compare.is_some() => Vec::new(),
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
                    l.beats = if l.phase == phase {
                        l.beats.wrapping_add(1)
                    } else {
                        0
                    };
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
            let shown = state.data.as_ref().map(|d| d.files.clone());
            let effects = runs::on_loaded(state, generation, outcome);
            if state.data.as_ref().map(|d| &d.files) != shown.as_ref() {
                state.timeline = None; // it showed the previous profile
            }
            effects
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
        Action::TimelineLoaded { generation, result } => {
            super::timeline::loaded(state, generation, result);
            Vec::new()
        }
        Action::Loaded { generation, result } => {
            if generation != state.generation {
                return Vec::new(); // stale: a newer request superseded it
            }
            state.loading = None;
            match result {
                Ok(data) => {
                    state.timeline = None; // it showed the previous profile
                    let before = state.install(*data);
                    if let (Some(old), Some(new)) = (&before, &state.data) {
                        state.notice = warmup_change(old, new);
                    }
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
        ToggleTimeline => return super::timeline::toggle(state),
        Timeline(c) => {
            let rows = super::timeline::lane_rows(state.areas().body);
            return super::timeline::command(state, c, rows);
        }
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
        Collapse | Expand if state.focus == Pane::Table && !state.log_view => {
            scroll_columns(state, cmd == Expand)
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
        FilterAccept => {
            state.filter_editing = false;
            let n = state.tree_matches().len();
            if n > 0 {
                let word = if n == 1 { "match" } else { "matches" };
                state.notice = Some(format!("{n} {word} in the tree: ] next, [ previous"));
            }
        }
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
        SortColumn(column) => {
            if state.table.columns.contains(&column) {
                sort_by(state, column);
            }
        }
        SortReverse => {
            state.table.descending = !state.table.descending;
            state.rebuild_table_rows();
        }
        ScopeAll => {
            state.table.scope = None;
            state.table.within = None;
            state.rebuild_table_rows();
        }
        Reveal => reveal_selected(state),
        GroupByType => toggle_groups(state),
        NextLogSection => {
            if !state.log_view {
                state.log_view = true;
                state.log_scroll = 0;
            }
            next_log_section(state);
        }
        CopyRow => return copy_selected(state),
        NextMatch | PrevMatch => tree_match(state, cmd == NextMatch),
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
        PinBaseline => runs::pin_baseline(state),
        CompareBaseline => runs::open_compare(state),
    }
    Vec::new()
}

/// Show tree node `id`: open its ancestors, select it, focus the tree.
pub fn reveal_node(state: &mut AppState, id: usize) {
    let Some(data) = &state.data else { return };
    let mut at = data.nodes.get(id).and_then(|n| n.parent);
    while let Some(p) = at {
        if let Some(e) = state.tree.expanded.get_mut(p) {
            *e = true;
        }
        at = data.nodes.get(p).and_then(|n| n.parent);
    }
    state.rebuild_tree_visible();
    if let Some(pos) = state.tree.visible.iter().position(|&v| v == id) {
        state.tree.selected = pos;
        // In the middle of the pane, with its surroundings.
        let page = state.tree_page();
        state.tree.offset = pos.saturating_sub(page / 2);
        state.fix_tree_offset();
    }
    state.log_view = false;
    state.focus = Pane::Tree;
    state.detail_source = Pane::Tree;
}

/// `t`: operator types instead of operators, or back. Enter on a type lists its
/// instances (`drill_into_group`).
fn toggle_groups(state: &mut AppState) {
    let Some(data) = &state.data else { return };
    if data.groups.is_empty() {
        state.notice = Some("traces list operators by name already".into());
        return;
    }
    state.table.grouped = !state.table.grouped;
    state.table.search = table::search_keys(state.table_ops(data));
    state.table.row_widths = table::row_widths(state.table_ops(data));
    state.table.filter.reset();
    state.table.rows.clear();
    state.table.selected = 0;
    state.table.offset = 0;
    state.table.hscroll = 0;
    state.rebuild_table_rows();
    state.focus = Pane::Table;
    state.detail_source = Pane::Table;
    state.notice = Some(if state.table.grouped {
        "grouped by operator type: Enter lists a type's instances, t ungroups".into()
    } else {
        "operators, one row each".into()
    });
}

/// Enter on a type row: its instances (the operators whose name is the type with a
/// ` #N`, or the kernel itself).
fn drill_into_group(state: &mut AppState) {
    let Some(data) = &state.data else { return };
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
    state.table.grouped = false;
    state.table.search = search;
    state.table.row_widths = row_widths;
    state.table.filter.reset();
    // The instances are exactly the names starting with the type (kernels: the name).
    for c in group.chars() {
        state
            .table
            .filter
            .handle(tui_input::InputRequest::InsertChar(c));
    }
    state.table.rows.clear();
    state.rebuild_table_rows();
    // A longer type containing this one (rare) is filtered out by type, not by text.
    state.table.rows.retain(|r| exact.contains(r));
    state.table.selected = 0;
    state.table.offset = 0;
    state.notice = Some(format!(
        "{} of {group}: Esc back to all, t for types",
        super::format::count(exact.len(), "instance")
    ));
}

/// `c`: the selected row (table, or tree node) as text on the clipboard; the footer says
/// what was copied.
fn copy_selected(state: &mut AppState) -> Vec<Effect> {
    let Some(data) = &state.data else {
        return Vec::new();
    };
    let from_table = state.focus == Pane::Table
        || (state.focus == Pane::Detail && state.detail_source == Pane::Table);
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
            state.notice = Some(format!(
                "copied {name} ({} characters) to the clipboard (OSC 52)",
                text.chars().count()
            ));
            vec![Effect::Copy(text)]
        }
        None => {
            state.notice = Some("nothing selected to copy".into());
            Vec::new()
        }
    }
}

/// `r`: the selected operator (table or its detail), or the finding at the top of the
/// warnings view, shown in the tree.
fn reveal_selected(state: &mut AppState) {
    let Some(data) = &state.data else { return };
    let target = if state.log_view {
        let width = state
            .areas()
            .log
            .map(|a| a.width.saturating_sub(2))
            .unwrap_or(state.width) as usize;
        match selected_finding(data, state.log_scroll, width) {
            Some(f) => match data.findings.get(f).and_then(|f| f.node) {
                Some(n) => Some(n),
                None => {
                    state.notice = Some("this finding names no node of the tree".into());
                    return;
                }
            },
            None => None,
        }
    } else if state.table.grouped {
        state.notice =
            Some("a type has no one place in the tree: Enter lists its instances".into());
        return;
    } else if state.focus == Pane::Table
        || (state.focus == Pane::Detail && state.detail_source == Pane::Table)
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

/// The finding the warnings view scrolled to `scroll` has selected: the one whose lines
/// hold the top row of the view (the first one while the heading is at the top).
pub fn selected_finding(data: &ExplorerData, scroll: usize, width: usize) -> Option<usize> {
    let rows = log_rows(data, width);
    match rows.get(scroll) {
        Some(LogRow::Finding { index, .. }) => Some(*index),
        _ if scroll == 0 && !data.findings.is_empty() => Some(0),
        _ => None,
    }
}

/// A row of the warnings & log view above the raw log lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogRow {
    Heading(String),
    Finding {
        error: bool,
        first: bool,
        index: usize,
        text: String,
    },
    Text(String),
    Blank,
}

/// The warnings & log view down to the raw log: the findings, the decoded plans, the
/// heading of the log (`data.log` lines follow it).
pub fn log_rows(data: &ExplorerData, width: usize) -> Vec<LogRow> {
    let mut out = vec![LogRow::Heading("findings".into())];
    for (sev, first, text) in finding_lines(data, width) {
        out.push(match sev {
            None => LogRow::Text(text),
            Some(error) => LogRow::Finding {
                error,
                first,
                index: 0,
                text,
            },
        });
    }
    // Number the findings (each starts at a first line).
    let mut k = 0;
    for row in out.iter_mut() {
        if let LogRow::Finding { first, index, .. } = row {
            if *first {
                k += 1;
            }
            *index = k - 1;
        }
    }
    out.push(LogRow::Blank);
    for plan in &data.plans {
        out.push(LogRow::Heading(plan.title.clone()));
        for line in &plan.lines {
            let indent = line.len() - line.trim_start().len();
            for (i, l) in super::format::wrap(line.trim_start(), width.saturating_sub(indent + 4))
                .into_iter()
                .enumerate()
            {
                let pad = if i == 0 { indent } else { indent + 4 };
                out.push(LogRow::Text(format!("{}{l}", " ".repeat(pad))));
            }
        }
        out.push(LogRow::Blank);
    }
    let name = match data.kind {
        super::data::SourceKind::Etdump => "runner log",
        super::data::SourceKind::Trace => "trace reader",
    };
    out.push(LogRow::Heading(if data.log.is_empty() {
        format!("{name}: none")
    } else {
        format!("{name} (raw)")
    }));
    out
}

/// `v` in the warnings & log view: the next section (findings, each plan, the raw log).
fn next_log_section(state: &mut AppState) {
    let Some(data) = &state.data else { return };
    let width = state
        .areas()
        .log
        .map(|a| a.width.saturating_sub(2))
        .unwrap_or(state.width) as usize;
    let starts: Vec<usize> = log_rows(data, width)
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r, LogRow::Heading(_)))
        .map(|(i, _)| i)
        .collect();
    state.log_scroll = starts
        .iter()
        .copied()
        .find(|&i| i > state.log_scroll)
        .unwrap_or(0);
}

impl AppState {
    /// Node ids whose name contains the filter text (ignoring case), in tree order.
    pub fn tree_matches(&self) -> Vec<usize> {
        let needle = self.table.filter.value().to_lowercase();
        match &self.data {
            Some(d) if !needle.is_empty() => {
                // Only nodes of the tree: type rows' nodes hang nowhere.
                let mut in_tree = vec![false; d.nodes.len()];
                for (i, n) in d.nodes.iter().enumerate() {
                    in_tree[i] = match n.parent {
                        Some(p) => in_tree.get(p).copied().unwrap_or(false),
                        None => d.roots.contains(&i),
                    };
                }
                (0..d.nodes.len())
                    .filter(|&i| in_tree[i] && d.nodes[i].name.to_lowercase().contains(&needle))
                    .collect()
            }
            _ => Vec::new(),
        }
    }
}

/// `]` / `[`: the next (previous) tree node matching the filter, after (before) the
/// selected one, wrapping; shown and selected.
fn tree_match(state: &mut AppState, next: bool) {
    let matches = state.tree_matches();
    if matches.is_empty() {
        state.notice = Some(if state.table.filter.value().is_empty() {
            "no search: / types one".to_string()
        } else {
            format!("no tree node matches \"{}\"", state.table.filter.value())
        });
        return;
    }
    let current = state.tree.visible.get(state.tree.selected).copied();
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
    state.notice = Some(format!(
        "tree match {k} of {} for \"{}\"",
        matches.len(),
        state.table.filter.value()
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
        if state.table.hscroll < hidden {
            state.table.hscroll += 1;
        }
    } else {
        state.table.hscroll = state.table.hscroll.saturating_sub(1);
    }
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
        (Some(w), _) if w.warmup_auto || w.warmup_stated => auto_dropped.unwrap_or(0),
        (Some(w), _) => w.warmup,
        (None, Some(r)) if r.warmup_auto || r.warmup_stated => auto_dropped.unwrap_or(0),
        (None, Some(r)) => r.warmup,
        (None, None) => return Vec::new(),
    };
    let Some(wanted) = next_warmup(current, more, state.runs_total()) else {
        state.notice = Some(match (more, state.runs_total()) {
            (false, _) => format!("warm-up is {current}: no dropped run to add back"),
            (true, Some(total)) => format!(
                "warm-up {current} of {}: at least one run must stay",
                super::format::count(total, "run")
            ),
            (true, None) => "warm-up: the number of runs is not known yet".to_string(),
        });
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
    request.warmup_stated = false;
    state.load(request)
}

/// What a reload with another warm-up moved: `warm-up 5→4: Method::execute 1.113→1.114
/// ms`. None when the warm-up did not change (a plain reload).
pub fn warmup_change(old: &ExplorerData, new: &ExplorerData) -> Option<String> {
    let (a, b) = (old.runs.as_ref()?.dropped, new.runs.as_ref()?.dropped);
    if a == b {
        return None;
    }
    let mut text = format!("warm-up {a}→{b}");
    if let (Some(x), Some(y)) = (&old.total, &new.total) {
        text.push_str(&format!(
            ": {} {}",
            new.total_label,
            super::format::duration_change(x.median, y.median)
        ));
    }
    if let Some(r) = &new.runs {
        text.push_str(&format!(" · {} kept", super::format::count(r.kept, "run")));
    }
    Some(text)
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
        let max = keymap::help_max_scroll(state.areas().body);
        state.help_scroll = step(state.help_scroll, d, max + 1);
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
                state.table.within = None;
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
                // A node whose children are operators (a plan step, an instruction with
                // kernels) lists just those; a delegate or the method lists its scope.
                let lists_ops = node
                    .children
                    .iter()
                    .any(|&c| data.nodes.get(c).is_some_and(|n| n.op_row.is_some()));
                state.table.within = lists_ops.then_some(id);
                if !node.children.is_empty() {
                    if let Some(e) = state.tree.expanded.get_mut(id) {
                        *e = !*e;
                    }
                }
                state.rebuild_tree_visible();
                state.rebuild_table_rows();
            }
        }
        Pane::Table if state.table.grouped => drill_into_group(state),
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
            if state.table.scope.is_some() || state.table.within.is_some() {
                state.table.scope = None;
                state.table.within = None;
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
    if state.timeline.is_some() {
        return super::timeline::mouse(state, kind, x, y);
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
