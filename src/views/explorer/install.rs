//! Carrying the explorer's panes over to a newly loaded profile: open nodes, the selected
//! node and operator row and the delegate scope, matched by node name path (`node_keys`),
//! not index. A trace shown first opens on its hottest path.

use std::collections::HashMap;

use super::geometry::Env;
use super::state::{ExplorerView, Pane};
use crate::app::column::Column;
use crate::app::data::{ExplorerData, NodeKind, SourceKind, TreeNode};
use crate::app::table;

impl ExplorerView {
    /// `env`'s data was just put on screen in place of `old` (None: the first profile).
    /// Expanded nodes, the selected node and operator row and the delegate scope carry
    /// over wherever the same rows exist; sort and filter are kept as they are. `peak`:
    /// the table has the roofline column (`--peak`).
    pub fn install(&mut self, old: Option<&ExplorerData>, env: &Env, peak: bool) {
        let Some(data) = env.data else {
            return;
        };
        let first_load = old.is_none();
        // Only needed to match against a profile shown before (big dumps load faster).
        let new_keys = if first_load {
            Vec::new()
        } else {
            node_keys(data)
        };
        let mut selected_node = None;
        let mut selected_op = None;
        // A trace opened for the first time: the node its hottest path ends on.
        let mut hot_node = None;
        if let Some(old) = old {
            let old_keys = node_keys(old);
            for (i, k) in old_keys.iter().enumerate() {
                let open = self.tree.is_open(i);
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
            if data.kind == SourceKind::Trace {
                // A trace opens on its answer: the call tree open along the hottest path,
                // the ops by self time (the op that does the work, not its wrapper).
                let (open, hottest) = hot_path(data);
                for n in open {
                    self.tree.expanded[n] = true;
                }
                hot_node = hottest;
                self.table.sort = Column::SelfTime;
                self.table.descending = true;
            }
        }
        self.table.within = None;
        self.table.columns = data.kind.columns_with(peak);
        if !self.table.columns.contains(&self.table.sort) {
            self.table.sort = Column::Median;
        }
        let find = |key: &Option<String>| {
            key.as_ref()
                .and_then(|k| new_keys.iter().position(|n| n == k))
        };
        let node_id = find(&selected_node).or(hot_node);
        let op_row = find(&selected_op).and_then(|n| data.nodes[n].op_row);
        if data.groups.is_empty() {
            self.table.grouped = false;
        }
        self.table.search = table::search_keys(self.table_ops(data));
        self.table.row_widths = table::row_widths(self.table_ops(data));
        if first_load && !env.geometry.watching {
            self.focus = Pane::Tree;
        }
        // Rebuilding keeps the selection by id; point it at the matching rows first.
        self.tree.visible.clear();
        self.tree.selected = 0;
        self.rebuild_tree(env);
        if let Some(pos) = node_id.and_then(|id| self.tree.visible.iter().position(|&v| v == id)) {
            self.tree.selected = pos;
            self.fix_tree(&env.geometry);
        }
        self.table.rows.clear();
        self.table.selected = 0;
        self.rebuild_table(env);
        if let Some(pos) = op_row.and_then(|r| self.table.rows.iter().position(|&x| x == r)) {
            self.table.selected = pos;
            self.fix_table(&env.geometry);
        }
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

fn default_open(n: &TreeNode) -> bool {
    matches!(n.kind, NodeKind::Method | NodeKind::Delegate)
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
