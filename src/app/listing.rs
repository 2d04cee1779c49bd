//! The explorer's lists: the tree rows shown (what is open), the table rows (scope,
//! filter, sort), their scroll positions and column layout, and carrying all of it over
//! to a newly loaded profile (`install`) by node name path.

use std::collections::HashMap;

use super::column::Column;
use super::data::ExplorerData;
use super::layout::{self, fix_offset};
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
        let keep = self.explorer.tree.selected_node();
        self.explorer.tree.visible.clear();
        if let Some(data) = &self.session.data {
            let mut stack: Vec<usize> = data.roots.iter().rev().copied().collect();
            while let Some(id) = stack.pop() {
                self.explorer.tree.visible.push(id);
                if self.explorer.tree.is_open(id) {
                    stack.extend(data.nodes[id].children.iter().rev());
                }
            }
        }
        self.explorer.tree.selected = keep
            .and_then(|k| self.explorer.tree.visible.iter().position(|&v| v == k))
            .unwrap_or(0);
        self.fix_tree_offset();
    }

    pub(super) fn rebuild_table_rows(&mut self) {
        self.explorer.table.sorted = match &self.session.data {
            Some(d) => {
                let mut rows = table::sorted_rows(
                    self.table_ops(d),
                    self.explorer.table.scope,
                    self.explorer.table.sort,
                    self.explorer.table.descending,
                );
                if let (Some(within), false) =
                    (self.explorer.table.within, self.explorer.table.grouped)
                {
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
    pub(super) fn refilter_table_rows(&mut self) {
        let keep = self.selected_op();
        self.explorer.table.rows = match &self.session.data {
            Some(_) => table::filter_rows(
                &self.explorer.table.search,
                &self.explorer.table.sorted,
                self.explorer.table.filter.value(),
            ),
            None => Vec::new(),
        };
        self.explorer.table.uniform_count = match &self.session.data {
            Some(d) if !self.explorer.table.grouped => {
                let ops = self.table_ops(d);
                let mut counts = self.explorer.table.rows.iter().filter_map(|&r| ops.get(r));
                let first = counts.next().map(|o| o.stats.count);
                first.filter(|c| counts.all(|o| o.stats.count == *c))
            }
            _ => None,
        };
        self.explorer.table.rates_known = match &self.session.data {
            Some(d) => {
                let ops = self.table_ops(d);
                self.explorer
                    .table
                    .rows
                    .iter()
                    .filter_map(|&r| ops.get(r))
                    .any(|o| o.rates.gflops.is_some() || o.rates.gbps.is_some())
            }
            None => false,
        };
        self.explorer.table.uniform_text = match &self.session.data {
            Some(d) if !self.explorer.table.grouped => self.uniform_text(d),
            _ => Vec::new(),
        };
        let (widths, tail) =
            table::text_widths(&self.explorer.table.row_widths, &self.explorer.table.rows);
        self.explorer.table.text_widths = widths;
        self.explorer.table.step_tail_width = tail;
        let kept = keep.and_then(|k| self.explorer.table.rows.iter().position(|&r| r == k));
        self.explorer.table.selected = kept.unwrap_or(0);
        if kept.is_none() {
            // Another list: start at its top (no stale scroll position).
            self.explorer.table.offset = 0;
        }
        self.fix_table_offset();
    }

    /// The delegate, step and shape columns whose value is the same on every listed row
    /// (ETDumps, two rows or more), with what the title says instead.
    fn uniform_text(&self, d: &ExplorerData) -> Vec<(Column, String)> {
        let t = &self.explorer.table;
        if d.kind != super::data::SourceKind::Etdump || t.rows.len() < 2 {
            return Vec::new();
        }
        let ops = self.table_ops(d);
        let listed: Vec<&super::OpRow> = t.rows.iter().filter_map(|&r| ops.get(r)).collect();
        let Some(first) = listed.first() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for c in [Column::Delegate, Column::Step, Column::Inputs] {
            if !t.columns.contains(&c) {
                continue;
            }
            fn field(o: &super::OpRow, c: Column) -> &str {
                match c {
                    Column::Delegate => &o.delegate,
                    Column::Step => &o.step,
                    _ => &o.input_shapes,
                }
            }
            // Shapes: kernels without any (empty) do not count against a title that says
            // `shapes not recorded` for the operators that lack them.
            let counted = |o: &&&super::OpRow| c != Column::Inputs || !field(o, c).is_empty();
            let Some(value) = listed.iter().find(counted).map(|o| field(o, c).to_string()) else {
                // Empty on every row: the column would be blank; the title says nothing.
                out.push((c, String::new()));
                continue;
            };
            if listed.iter().filter(counted).any(|o| field(o, c) != value) {
                continue;
            }
            // Real shapes are the title's only when every row has them.
            if c == Column::Inputs
                && value != super::data::SHAPES_NOT_RECORDED
                && listed.iter().any(|o| field(o, c).is_empty())
            {
                continue;
            }
            if value.is_empty() {
                out.push((c, String::new()));
                continue;
            }
            let text = match c {
                // Scoped to one delegate or step, the title names it already.
                Column::Delegate if t.scope.is_some() || t.within.is_some() => String::new(),
                Column::Delegate => match first.scope.and_then(|s| d.scopes.get(s)) {
                    Some(label) => format!("delegate {label}"),
                    None => "outside delegates".into(),
                },
                Column::Step if t.within.is_some() => String::new(),
                Column::Step if value == "-" => "no step".into(),
                Column::Step => format!("step {value}"),
                _ if value == super::data::SHAPES_NOT_RECORDED => value,
                _ => format!("inputs {value}"),
            };
            out.push((c, text));
        }
        out
    }

    /// The columns the operator table can show, in display order. A text column with
    /// nothing in it (no output shapes recorded) is left out: a blank column only takes
    /// room from the others.
    pub fn table_columns(&self) -> Vec<Column> {
        let t = &self.explorer.table;
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
                // No listed row has a rate: the efficiency columns would be all `-`.
                if matches!(c, Column::Gflops | Column::Gbps | Column::Peak)
                    && !t.rates_known
                    && t.sort != *c
                {
                    return false;
                }
                // One delegate, step or shape for every row: likewise.
                if *c != t.sort && t.uniform_text.iter().any(|(u, _)| u == c) {
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
        let Some(data) = &self.session.data else {
            return Vec::new();
        };
        let t = &self.explorer.table;
        let start = t.offset.min(t.rows.len());
        let end = (start + rows).min(t.rows.len());
        let window = &t.rows[start..end];
        let columns = self.table_columns();
        table::layout(
            width,
            &columns,
            |c| {
                let ops = self.table_ops(data);
                let trace = data.kind == super::data::SourceKind::Trace;
                table::natural_width(c, ops, window, &t.text_widths, c == t.sort, trace)
            },
            |c| match c {
                Column::Step => t.step_tail_width.clamp(table::FLEX_MIN, 24),
                _ => table::FLEX_MIN,
            },
            t.sort,
            t.hscroll,
        )
    }

    pub(super) fn fix_tree_offset(&mut self) {
        let page = self.tree_page();
        let offset = fix_offset(self.explorer.tree.selected, self.explorer.tree.offset, page);
        // No blank rows below the list while rows above are hidden.
        self.explorer.tree.offset =
            offset.min(self.explorer.tree.visible.len().saturating_sub(page));
    }

    pub(super) fn fix_table_offset(&mut self) {
        let page = self.table_page();
        let offset = fix_offset(
            self.explorer.table.selected,
            self.explorer.table.offset,
            page,
        );
        self.explorer.table.offset =
            offset.min(self.explorer.table.rows.len().saturating_sub(page));
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
        let needle = self.explorer.table.filter.value().to_lowercase();
        match &self.session.data {
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
