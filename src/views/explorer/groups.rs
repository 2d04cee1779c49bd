//! The operator table's types list: `o` groups the operators by type (or back); Enter on
//! a type lists its instances, Esc goes back to the types.

use super::commands::notice;
use super::geometry::Env;
use super::state::{ExplorerView, Pane};
use crate::app::step::Step;
use crate::app::table;

impl ExplorerView {
    /// `o`: operator types instead of operators, or back. Enter on a type lists its
    /// instances (`drill_into_group`).
    pub(super) fn toggle_groups(&mut self, env: &Env) -> Vec<Step> {
        let Some(data) = env.data else {
            return Vec::new();
        };
        if data.groups.is_empty() {
            return notice("traces list operators by name already".into());
        }
        self.table.grouped = !self.table.grouped;
        self.table.from_types = false;
        self.table.search = table::search_keys(self.table_ops(data));
        self.table.row_widths = table::row_widths(self.table_ops(data));
        self.table.filter.reset();
        self.table.rows.clear();
        self.table.selected = 0;
        self.table.offset = 0;
        self.table.hscroll = 0;
        self.rebuild_table(env);
        self.focus = Pane::Table;
        self.detail_source = Pane::Table;
        notice(if self.table.grouped {
            "grouped by operator type: Enter lists a type's instances, o ungroups".into()
        } else {
            "operators, one row each".into()
        })
    }

    /// Enter on a type row: its instances (the operators whose name is the type with a
    /// ` #N`, or the kernel itself).
    pub(super) fn drill_into_group(&mut self, env: &Env) -> Vec<Step> {
        let Some(data) = env.data else {
            return Vec::new();
        };
        let Some(group) = self
            .selected_op()
            .and_then(|r| data.groups.get(r))
            .map(|g| g.name.clone())
        else {
            return Vec::new();
        };
        let search = table::search_keys(&data.ops);
        let row_widths = table::row_widths(&data.ops);
        let exact: Vec<usize> = data
            .ops
            .iter()
            .enumerate()
            .filter(|(_, o)| crate::app::groups::op_type(&o.name) == group)
            .map(|(i, _)| i)
            .collect();
        self.table.grouped = false;
        self.table.from_types = true;
        self.table.search = search;
        self.table.row_widths = row_widths;
        self.table.filter.reset();
        // The instances are exactly the names starting with the type (kernels: the name).
        for c in group.chars() {
            self.table
                .filter
                .handle(tui_input::InputRequest::InsertChar(c));
        }
        self.table.rows.clear();
        self.rebuild_table(env);
        // A longer type containing this one (rare) is filtered out by type, not by text.
        self.table.rows.retain(|r| exact.contains(r));
        self.table.selected = 0;
        self.table.offset = 0;
        notice(format!(
            "{} of {group}: Esc back to the types",
            crate::app::format::count(exact.len(), "instance")
        ))
    }
}
