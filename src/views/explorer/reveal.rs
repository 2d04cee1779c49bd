//! The explorer's tree keys: fold a node, show a node (open its ancestors, select it),
//! the table's operator shown in the tree (`r`), the filter's matches in the tree
//! (`]`, `[`).

use super::commands::notice;
use super::geometry::Env;
use super::state::{ExplorerView, Pane};
use crate::app::step::Step;

impl ExplorerView {
    pub(super) fn tree_fold(&mut self, env: &Env, open: bool) {
        let Some(data) = env.data else {
            return;
        };
        let Some(id) = self.tree.selected_node() else {
            return;
        };
        let node = &data.nodes[id];
        let is_open = self.tree.is_open(id);
        if open {
            if !node.children.is_empty() && !is_open {
                self.tree.expanded[id] = true;
            }
        } else if !node.children.is_empty() && is_open {
            self.tree.expanded[id] = false;
        } else if let Some(p) = node.parent {
            if let Some(pos) = self.tree.visible.iter().position(|&v| v == p) {
                self.tree.selected = pos;
            }
        }
        self.rebuild_tree(env);
    }

    /// Show tree node `id`: open its ancestors, select it, focus the tree.
    pub fn reveal_node(&mut self, env: &Env, id: usize) {
        let Some(data) = env.data else {
            return;
        };
        let mut at = data.nodes.get(id).and_then(|n| n.parent);
        while let Some(p) = at {
            if let Some(e) = self.tree.expanded.get_mut(p) {
                *e = true;
            }
            at = data.nodes.get(p).and_then(|n| n.parent);
        }
        self.rebuild_tree(env);
        if let Some(pos) = self.tree.visible.iter().position(|&v| v == id) {
            self.tree.selected = pos;
            // In the middle of the pane, with its surroundings.
            let page = self.tree_page(&env.geometry);
            self.tree.offset = pos.saturating_sub(page / 2);
            self.fix_tree(&env.geometry);
        }
        self.focus = Pane::Tree;
        self.detail_source = Pane::Tree;
    }

    /// `r`: the selected operator (table or its detail) shown in the tree.
    pub(super) fn reveal_selected(&mut self, env: &Env) -> Vec<Step> {
        let Some(data) = env.data else {
            return Vec::new();
        };
        if self.table.grouped {
            return notice("a type has no one place in the tree: Enter lists its instances".into());
        }
        let target = if self.lists_table() {
            self.selected_op()
                .and_then(|r| data.ops.get(r))
                .map(|o| o.node)
        } else {
            None
        };
        if let Some(id) = target {
            self.reveal_node(env, id);
        }
        Vec::new()
    }

    /// `]` / `[`: the next (previous) tree node matching the filter, after (before) the
    /// selected one, wrapping; shown and selected.
    pub(super) fn tree_match(&mut self, env: &Env, next: bool) -> Vec<Step> {
        let matches = self.tree_matches(env.data);
        let filter = self.table.filter.value().to_string();
        if matches.is_empty() {
            return notice(if filter.is_empty() {
                "no search: / types one".to_string()
            } else {
                format!("no tree node matches \"{filter}\"")
            });
        }
        let current = self.tree.selected_node();
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
        self.reveal_node(env, id);
        notice(format!(
            "tree match {k} of {} for \"{filter}\"",
            matches.len()
        ))
    }
}
