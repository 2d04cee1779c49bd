//! `c`: the selected row (table, or tree node) as text for the clipboard, or the detail's
//! source `file:line`; the shell puts it there (`Effect::Copy`, OSC 52).

use super::commands::notice;
use super::geometry::Env;
use super::state::{ExplorerView, Pane};
use crate::app::effect::Effect;
use crate::app::step::Step;

impl ExplorerView {
    /// `c`: the selected row (table, or tree node) as text on the clipboard; in the
    /// detail pane, the row's source `file:line` when the ETRecord gives one (the row
    /// itself is `c` in the tree or the table). The footer says what was copied.
    pub(super) fn copy_selected(&self, env: &Env) -> Vec<Step> {
        let Some(data) = env.data else {
            return Vec::new();
        };
        if self.focus == Pane::Detail {
            let line = self
                .detail_node(env.data)
                .and_then(|n| data.sources.get(&n))
                .and_then(|s| s.file_line.clone());
            if let Some(line) = line {
                return vec![
                    Step::Notice(format!(
                        "copied {} (the row's source line) to the clipboard (OSC 52)",
                        crate::escape::escape(&line)
                    )),
                    Step::Effect(Effect::Copy(line)),
                ];
            }
        }
        // What is copied, and the name the notice gives it.
        let copied = if self.lists_table() {
            self.selected_op()
                .and_then(|r| self.table_ops(data).get(r))
                .map(|o| (o.name.clone(), crate::app::copy::row_text(data, o)))
        } else {
            self.detail_node(env.data).and_then(|n| {
                let text = crate::app::copy::node_text(data, n)?;
                let node = &data.nodes[n];
                let name = match node.op_row.and_then(|r| data.ops.get(r)) {
                    Some(op) => op.name.clone(),
                    None => node.name.clone(),
                };
                Some((name, text))
            })
        };
        match copied {
            Some((name, text)) => {
                vec![
                    Step::Notice(format!(
                        "copied {name} ({} characters) to the clipboard (OSC 52)",
                        text.chars().count()
                    )),
                    Step::Effect(Effect::Copy(text)),
                ]
            }
            None => notice("nothing selected to copy".into()),
        }
    }

    /// The table, or the detail of its row, has the focus.
    pub(super) fn lists_table(&self) -> bool {
        self.focus == Pane::Table
            || (self.focus == Pane::Detail && self.detail_source == Pane::Table)
    }
}
