//! The explorer's lists over the profile on screen: the tree rows shown (what is open),
//! the table rows (scope, filter, sort), their scroll positions and column layout, the
//! node the detail pane describes. Pure: the data is borrowed from the session, the
//! page sizes are the caller's (`app::layout`).

use super::state::{ExplorerView, Pane};
use crate::app::column::Column;
use crate::app::data::{ExplorerData, OpRow};
use crate::app::layout::fix_offset;
use crate::app::table;

impl ExplorerView {
    /// The rows the table lists: operators, or operator types when grouped.
    pub fn table_ops<'a>(&self, data: &'a ExplorerData) -> &'a [OpRow] {
        if self.table.grouped {
            &data.groups
        } else {
            &data.ops
        }
    }

    /// The table's selected row (an index into `table_ops`).
    pub fn selected_op(&self) -> Option<usize> {
        self.table.rows.get(self.table.selected).copied()
    }

    /// The tree node the detail pane describes.
    pub fn detail_node(&self, data: Option<&ExplorerData>) -> Option<usize> {
        let data = data?;
        match self.detail_source {
            Pane::Table => {
                let row = *self.table.rows.get(self.table.selected)?;
                self.table_ops(data).get(row).map(|r| r.node)
            }
            _ => self.tree.selected_node(),
        }
    }

    /// List the tree's open rows again (keeping the selected node) on a pane of `page` rows.
    pub fn rebuild_tree_visible(&mut self, data: Option<&ExplorerData>, page: usize) {
        let keep = self.tree.selected_node();
        self.tree.visible.clear();
        if let Some(data) = data {
            let mut stack: Vec<usize> = data.roots.iter().rev().copied().collect();
            while let Some(id) = stack.pop() {
                self.tree.visible.push(id);
                if self.tree.is_open(id) {
                    stack.extend(data.nodes[id].children.iter().rev());
                }
            }
        }
        self.tree.selected = keep
            .and_then(|k| self.tree.visible.iter().position(|&v| v == k))
            .unwrap_or(0);
        self.fix_tree_offset(page);
    }

    /// Scope and sort the table's rows again, then filter them (`refilter_table_rows`).
    pub fn rebuild_table_rows(&mut self, data: Option<&ExplorerData>, page: usize) {
        self.table.sorted = match data {
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
        self.refilter_table_rows(data, page);
    }

    /// Re-apply the filter to the sorted rows (a filter keystroke needs no sort).
    pub fn refilter_table_rows(&mut self, data: Option<&ExplorerData>, page: usize) {
        let keep = self.selected_op();
        self.table.rows = match data {
            Some(_) => table::filter_rows(
                &self.table.search,
                &self.table.sorted,
                self.table.filter.value(),
            ),
            None => Vec::new(),
        };
        self.table.uniform_count = match data {
            Some(d) if !self.table.grouped => {
                let ops = self.table_ops(d);
                let mut counts = self.table.rows.iter().filter_map(|&r| ops.get(r));
                let first = counts.next().map(|o| o.stats.count);
                first.filter(|c| counts.all(|o| o.stats.count == *c))
            }
            _ => None,
        };
        self.table.rates_known = match data {
            Some(d) => {
                let ops = self.table_ops(d);
                self.table
                    .rows
                    .iter()
                    .filter_map(|&r| ops.get(r))
                    .any(|o| o.rates.gflops.is_some() || o.rates.gbps.is_some())
            }
            None => false,
        };
        self.table.uniform_text = match data {
            Some(d) if !self.table.grouped => self.uniform_text(d),
            _ => Vec::new(),
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
        self.fix_table_offset(page);
    }

    /// The delegate, step and shape columns whose value is the same on every listed row
    /// (ETDumps, two rows or more), with what the title says instead.
    fn uniform_text(&self, d: &ExplorerData) -> Vec<(Column, String)> {
        let t = &self.table;
        if d.kind != crate::app::data::SourceKind::Etdump || t.rows.len() < 2 {
            return Vec::new();
        }
        let ops = self.table_ops(d);
        let listed: Vec<&OpRow> = t.rows.iter().filter_map(|&r| ops.get(r)).collect();
        let Some(first) = listed.first() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for c in [Column::Delegate, Column::Step, Column::Inputs] {
            if !t.columns.contains(&c) {
                continue;
            }
            fn field(o: &OpRow, c: Column) -> &str {
                match c {
                    Column::Delegate => &o.delegate,
                    Column::Step => &o.step,
                    _ => &o.input_shapes,
                }
            }
            // Shapes: kernels without any (empty) do not count against a title that says
            // `shapes not recorded` for the operators that lack them.
            let counted = |o: &&&OpRow| c != Column::Inputs || !field(o, c).is_empty();
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
                && value != crate::app::data::SHAPES_NOT_RECORDED
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
                _ if value == crate::app::data::SHAPES_NOT_RECORDED => value,
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
    pub fn table_layout(
        &self,
        data: Option<&ExplorerData>,
        width: u16,
        rows: usize,
    ) -> Vec<(Column, u16)> {
        let Some(data) = data else {
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
                let trace = data.kind == crate::app::data::SourceKind::Trace;
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

    /// Keep the selected tree row on a pane of `page` rows.
    pub fn fix_tree_offset(&mut self, page: usize) {
        let offset = fix_offset(self.tree.selected, self.tree.offset, page);
        // No blank rows below the list while rows above are hidden.
        self.tree.offset = offset.min(self.tree.visible.len().saturating_sub(page));
    }

    /// Keep the selected table row on a pane of `page` rows.
    pub fn fix_table_offset(&mut self, page: usize) {
        let offset = fix_offset(self.table.selected, self.table.offset, page);
        self.table.offset = offset.min(self.table.rows.len().saturating_sub(page));
    }

    /// Show `data`. Expanded nodes, the selected node and operator row and the delegate
    /// Node ids whose name contains the filter text (ignoring case), in tree order.
    pub fn tree_matches(&self, data: Option<&ExplorerData>) -> Vec<usize> {
        let needle = self.table.filter.value().to_lowercase();
        match data {
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
