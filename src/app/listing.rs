//! The explorer's lists: the tree rows shown (what is open), the table rows (scope,
//! filter, sort), their scroll positions and column layout, and carrying all of it over
//! to a newly loaded profile (`install`) by node name path.

use std::collections::HashMap;

use super::column::Column;
use super::data::ExplorerData;
use super::layout;
use super::state::{AppState, Pane};
use super::table;

impl AppState {
    pub(super) fn tree_page(&self) -> usize {
        // Minus the column title row.
        layout::inner_rows(self.areas().tree)
            .saturating_sub(1)
            .max(1)
    }

    pub(super) fn table_page(&self) -> usize {
        // Minus the column title row.
        layout::inner_rows(self.areas().table)
            .saturating_sub(1)
            .max(1)
    }

    pub(super) fn rebuild_tree_visible(&mut self) {
        let page = self.tree_page();
        self.explorer
            .rebuild_tree_visible(self.session.data.as_ref(), page);
    }

    pub(super) fn rebuild_table_rows(&mut self) {
        let page = self.table_page();
        self.explorer
            .rebuild_table_rows(self.session.data.as_ref(), page);
    }

    /// Re-apply the filter to the sorted rows (a filter keystroke needs no sort).
    pub(super) fn refilter_table_rows(&mut self) {
        let page = self.table_page();
        self.explorer
            .refilter_table_rows(self.session.data.as_ref(), page);
    }

    /// The columns the operator table can show (`ExplorerView::table_columns`).
    pub fn table_columns(&self) -> Vec<Column> {
        self.explorer.table_columns()
    }

    /// The operator table's columns and widths (`ExplorerView::table_layout`).
    pub fn table_layout(&self, width: u16, rows: usize) -> Vec<(Column, u16)> {
        self.explorer
            .table_layout(self.session.data.as_ref(), width, rows)
    }

    pub(super) fn fix_tree_offset(&mut self) {
        let page = self.tree_page();
        self.explorer.fix_tree_offset(page);
    }

    pub(super) fn fix_table_offset(&mut self) {
        let page = self.table_page();
        self.explorer.fix_table_offset(page);
    }

    /// Show `data`. Expanded nodes, the selected node and operator row and the delegate
    /// scope carry over from the profile shown before wherever the same rows exist
    /// (matched by name path, not index); sort and filter are kept as they are.
    /// Returns the profile shown before.
    pub(super) fn install(&mut self, mut data: ExplorerData) -> Option<ExplorerData> {
        let first_load = self.session.data.is_none();
        if let Some(peak) = self.session.peak {
            // The roofline of each operator and type (cheap: two numbers a row).
            for op in data.ops.iter_mut().chain(data.groups.iter_mut()) {
                op.roofline = crate::profile::efficiency::roofline(op.cost, op.cost_ms, peak);
            }
        }
        // Only needed to match against a profile shown before (big dumps load faster).
        let new_keys = if first_load {
            Vec::new()
        } else {
            node_keys(&data)
        };
        let mut selected_node = None;
        let mut selected_op = None;
        // A trace opened for the first time: the node its hottest path ends on.
        let mut hot_node = None;
        if let Some(old) = &self.session.data {
            let old_keys = node_keys(old);
            for (i, k) in old_keys.iter().enumerate() {
                let open = self.explorer.tree.is_open(i);
                self.explorer.tree.remembered.insert(k.clone(), open);
            }
            let open = &self.explorer.tree.remembered;
            self.explorer.tree.expanded = data
                .nodes
                .iter()
                .zip(&new_keys)
                .map(|(n, k)| open.get(k).copied().unwrap_or_else(|| default_open(n)))
                .collect();
            selected_node = self
                .explorer
                .tree
                .visible
                .get(self.explorer.tree.selected)
                .and_then(|&i| old_keys.get(i))
                .cloned();
            selected_op = self
                .selected_op()
                .and_then(|r| self.table_ops(old).get(r))
                .and_then(|o| old_keys.get(o.node))
                .cloned();
            self.explorer.table.scope = self
                .explorer
                .table
                .scope
                .and_then(|s| old.scopes.get(s))
                .and_then(|label| data.scopes.iter().position(|l| l == label));
        } else {
            // Method and delegates open; steps closed.
            self.explorer.tree.expanded = data.nodes.iter().map(default_open).collect();
            self.explorer.table.scope = None;
            if data.kind == super::data::SourceKind::Trace {
                // A trace opens on its answer: the call tree open along the hottest path,
                // the ops by self time (the op that does the work, not its wrapper).
                let (open, hottest) = hot_path(&data);
                for n in open {
                    self.explorer.tree.expanded[n] = true;
                }
                hot_node = hottest;
                self.explorer.table.sort = Column::SelfTime;
                self.explorer.table.descending = true;
            }
        }
        self.explorer.table.within = None;
        self.explorer.table.columns = data.kind.columns_with(self.session.peak.is_some());
        if !self
            .explorer
            .table
            .columns
            .contains(&self.explorer.table.sort)
        {
            self.explorer.table.sort = Column::Median;
        }
        let find = |key: &Option<String>| {
            key.as_ref()
                .and_then(|k| new_keys.iter().position(|n| n == k))
        };
        let node_id = find(&selected_node).or(hot_node);
        let op_row = find(&selected_op).and_then(|n| data.nodes[n].op_row);
        if data.groups.is_empty() {
            self.explorer.table.grouped = false;
        }
        self.explorer.table.search = table::search_keys(self.table_ops(&data));
        self.explorer.table.row_widths = table::row_widths(self.table_ops(&data));
        let previous = self.session.data.replace(data);
        if first_load && self.session.watch.is_none() {
            self.explorer.focus = Pane::Tree;
        }
        // Rebuilding keeps the selection by id; point it at the matching rows first.
        self.explorer.tree.visible.clear();
        self.explorer.tree.selected = 0;
        self.rebuild_tree_visible();
        if let Some(pos) =
            node_id.and_then(|id| self.explorer.tree.visible.iter().position(|&v| v == id))
        {
            self.explorer.tree.selected = pos;
            self.fix_tree_offset();
        }
        self.explorer.table.rows.clear();
        self.explorer.table.selected = 0;
        self.rebuild_table_rows();
        if let Some(pos) =
            op_row.and_then(|r| self.explorer.table.rows.iter().position(|&x| x == r))
        {
            self.explorer.table.selected = pos;
            self.fix_table_offset();
        }
        previous
    }

    /// Node ids whose name contains the filter text (ignoring case), in tree order.
    pub fn tree_matches(&self) -> Vec<usize> {
        self.explorer.tree_matches(self.session.data.as_ref())
    }
}

/// The hottest call path of every thread: from each root with a time, down to the child
/// with the most inclusive time (sum of its samples) while it holds at least half of its
/// parent's, where the time splits. Returns the nodes to open and the node the hottest
/// thread's path ends on (to select).
fn hot_path(data: &ExplorerData) -> (Vec<usize>, Option<usize>) {
    let total = |i: usize| data.nodes[i].stats.total();
    let mut open = Vec::new();
    let mut best: Option<(f64, usize)> = None;
    for &root in &data.roots {
        if data.nodes[root].stats.count == 0 {
            continue; // `operators by name`: a list, not a call
        }
        let mut at = root;
        while let Some(&hot) = data.nodes[at]
            .children
            .iter()
            .max_by(|&&a, &&b| total(a).total_cmp(&total(b)))
        {
            if at != root && total(hot) < 0.5 * total(at) {
                break;
            }
            open.push(at);
            at = hot;
        }
        if best.is_none_or(|(t, _)| total(root) > t) {
            best = Some((total(root), at));
        }
    }
    (open, best.map(|(_, n)| n))
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

pub(super) fn step(pos: usize, delta: isize, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    let p = pos as isize + delta;
    p.clamp(0, len as isize - 1) as usize
}
