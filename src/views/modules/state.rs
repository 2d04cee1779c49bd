//! The modules view (`m`): the nn.Module tree of each method with inclusive times, the
//! numbers of `report --by-module` (`ExplorerData::modules`, the profile's `modules[]`),
//! expandable, sortable (`s`, `S`), filtered by name (`/`), each module's rows under it;
//! Enter on a row reveals it in the explorer's tree. Plain data and a pure `command`;
//! `views::modules::render` draws it.

use tui_input::Input;

use crate::app::data::{ExplorerData, MethodModules};
use crate::app::effect::Effect;
use crate::app::keymap::Command;
use crate::app::step::Step;
use crate::profile::source::{module_order, ModuleSort};
use crate::profile::{ModuleRow, ModuleTotal};

/// Lines of the list in a view drawn in `body`: inside the border, under the column
/// titles, above the two lines about the selection and the filter.
pub fn list_rows(body: ratatui::layout::Rect) -> usize {
    body.height.saturating_sub(2 + 3) as usize
}

/// Modules trees up to this size open fully; larger ones open their first two levels.
const OPEN_ALL_UP_TO: usize = 64;

/// One line of the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModuleLine {
    /// A method's heading (only when several methods have a module tree).
    Method(usize),
    /// Module `module` of method `method` (indices into `ExplorerData::modules`).
    Module { method: usize, module: usize },
    /// Row `row` of that module.
    Row {
        method: usize,
        module: usize,
        row: usize,
    },
}

#[derive(Debug, Clone)]
pub struct ModulesView {
    pub sort: ModuleSort,
    /// Siblings (and rows) in the reverse of `sort`.
    pub reversed: bool,
    /// Per method, per module: open.
    pub expanded: Vec<Vec<bool>>,
    /// Per method: its heading open (several methods only).
    pub methods_open: Vec<bool>,
    /// Modules whose path or type, and rows whose name, contain this (ignoring case).
    pub filter: Input,
    /// The filter is being typed (`/`): keys go to the text field.
    pub filter_editing: bool,
    /// What is on screen, in order.
    pub lines: Vec<ModuleLine>,
    /// Position in `lines`.
    pub selected: usize,
    /// First line drawn.
    pub offset: usize,
}

impl ModulesView {
    /// The view of `data`'s module trees, small trees fully open.
    pub fn new(data: &ExplorerData) -> ModulesView {
        let total: usize = data.modules.iter().map(|m| m.modules.len()).sum();
        let expanded = data
            .modules
            .iter()
            .map(|mm| {
                mm.modules
                    .iter()
                    .map(|m| total <= OPEN_ALL_UP_TO || m.depth < 1)
                    .collect()
            })
            .collect();
        let mut v = ModulesView {
            sort: ModuleSort::Model,
            reversed: false,
            expanded,
            methods_open: vec![true; data.modules.len()],
            filter: Input::default(),
            filter_editing: false,
            lines: Vec::new(),
            selected: 0,
            offset: 0,
        };
        v.rebuild(data);
        v
    }

    /// The line under the cursor.
    pub fn selected_line(&self) -> Option<ModuleLine> {
        self.lines.get(self.selected).copied()
    }

    /// The module a line is or belongs to.
    pub fn module_of(data: &ExplorerData, line: ModuleLine) -> Option<&ModuleTotal> {
        match line {
            ModuleLine::Method(_) => None,
            ModuleLine::Module { method, module } | ModuleLine::Row { method, module, .. } => {
                data.modules.get(method)?.modules.get(module)
            }
        }
    }

    /// The row a line is, with the tree node showing it.
    pub fn row_of(data: &ExplorerData, line: ModuleLine) -> Option<(&ModuleRow, Option<usize>)> {
        let ModuleLine::Row {
            method,
            module,
            row,
        } = line
        else {
            return None;
        };
        let mm = data.modules.get(method)?;
        let r = mm.modules.get(module)?.rows.get(row)?;
        let node = mm
            .row_nodes
            .get(module)
            .and_then(|n| n.get(row))
            .copied()
            .flatten();
        Some((r, node))
    }

    pub fn sort_label(&self) -> String {
        let what = match self.sort {
            ModuleSort::Model => "model order",
            ModuleSort::Median => "median",
            ModuleSort::Mean => "mean",
            ModuleSort::Path => "path",
        };
        if self.reversed {
            format!("{what}, reversed")
        } else {
            what.to_string()
        }
    }

    /// Rebuild `lines`, keeping the selection on the same line when it is still shown.
    pub fn rebuild(&mut self, data: &ExplorerData) {
        let keep = self.selected_line();
        let needle = self.filter.value().to_lowercase();
        let filtering = !needle.is_empty();
        let multi = data.modules.len() > 1;
        let mut lines = Vec::new();
        for (k, mm) in data.modules.iter().enumerate() {
            let shown = keep_modules(mm, &needle);
            if multi {
                if filtering && !shown.iter().any(|&s| s) {
                    continue;
                }
                lines.push(ModuleLine::Method(k));
                if !filtering && !self.methods_open.get(k).copied().unwrap_or(true) {
                    continue;
                }
            }
            let open = |i: usize| -> bool {
                filtering
                    || self
                        .expanded
                        .get(k)
                        .and_then(|e| e.get(i))
                        .copied()
                        .unwrap_or(false)
            };
            for i in self.order(&mm.modules) {
                let m = &mm.modules[i];
                let mut hidden = !shown[i];
                // Parents come before their children (as `module_order` reads them): a
                // parent index at or after its child is a damaged tree, not a loop.
                let mut at = m.parent;
                let mut below = i;
                while let Some(p) = at.filter(|&p| p < below) {
                    below = p;
                    hidden |= !open(p);
                    at = mm.modules[p].parent;
                }
                if hidden {
                    continue;
                }
                lines.push(ModuleLine::Module {
                    method: k,
                    module: i,
                });
                if !open(i) {
                    continue;
                }
                let own = matches(&m.path, &needle) || matches(&m.ty, &needle);
                for row in self.row_order(&m.rows) {
                    if own || matches(&m.rows[row].name, &needle) {
                        lines.push(ModuleLine::Row {
                            method: k,
                            module: i,
                            row,
                        });
                    }
                }
            }
        }
        self.lines = lines;
        self.selected = keep
            .and_then(|l| self.lines.iter().position(|&x| x == l))
            .unwrap_or(self.selected)
            .min(self.lines.len().saturating_sub(1));
        self.offset = self.offset.min(self.selected);
    }

    /// Tree order with siblings by the sort (reversed: each sibling list reversed).
    fn order(&self, modules: &[ModuleTotal]) -> Vec<usize> {
        let order = module_order(modules, self.sort);
        if !self.reversed {
            return order;
        }
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); modules.len()];
        let mut roots = Vec::new();
        for &i in &order {
            match modules[i].parent.filter(|&p| p < i) {
                Some(p) => children[p].push(i),
                None => roots.push(i),
            }
        }
        let mut out = Vec::with_capacity(order.len());
        let mut stack: Vec<usize> = roots;
        while let Some(i) = stack.pop() {
            out.push(i);
            stack.extend(children[i].iter().copied());
        }
        out
    }

    fn row_order(&self, rows: &[ModuleRow]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..rows.len()).collect();
        match self.sort {
            ModuleSort::Model => {}
            ModuleSort::Median => order.sort_by(|&a, &b| rows[b].median.total_cmp(&rows[a].median)),
            ModuleSort::Mean => order.sort_by(|&a, &b| rows[b].mean.total_cmp(&rows[a].mean)),
            ModuleSort::Path => order.sort_by(|&a, &b| rows[a].name.cmp(&rows[b].name)),
        }
        if self.reversed {
            order.reverse();
        }
        order
    }

    fn fix_offset(&mut self, page: usize) {
        self.offset = crate::app::layout::fix_offset(self.selected, self.offset, page.max(1));
    }

    /// Open (`true`) or close the selected module or method heading.
    fn fold(&mut self, data: &ExplorerData, open: bool) -> bool {
        let slot = match self.selected_line() {
            Some(ModuleLine::Method(k)) => self.methods_open.get_mut(k),
            Some(ModuleLine::Module { method, module }) => self
                .expanded
                .get_mut(method)
                .and_then(|e| e.get_mut(module)),
            _ => None,
        };
        match slot {
            Some(s) if *s != open => {
                *s = open;
                self.rebuild(data);
                true
            }
            _ => false,
        }
    }

    /// Select the line of the parent (module, or method heading) of the selected line.
    fn select_parent(&mut self, data: &ExplorerData) {
        let target = match self.selected_line() {
            Some(ModuleLine::Row { method, module, .. }) => {
                Some(ModuleLine::Module { method, module })
            }
            Some(ModuleLine::Module { method, module }) => {
                match data
                    .modules
                    .get(method)
                    .and_then(|mm| mm.modules.get(module))
                    .and_then(|m| m.parent)
                {
                    Some(p) => Some(ModuleLine::Module { method, module: p }),
                    None => Some(ModuleLine::Method(method)),
                }
            }
            _ => None,
        };
        if let Some(pos) = target.and_then(|t| self.lines.iter().position(|&l| l == t)) {
            self.selected = pos;
        }
    }

    /// A key of the modules view's table (or of its filter's text field); `page` is the
    /// number of lines the list shows.
    pub fn command(&mut self, cmd: Command, data: &ExplorerData, page: usize) -> Vec<Step> {
        use Command::*;
        let n = self.lines.len();
        let mut steps = Vec::new();
        match cmd {
            Up | Down | PageUp | PageDown | Top | Bottom => {
                let d: isize = match cmd {
                    Up => -1,
                    Down => 1,
                    PageUp => -(page.max(1) as isize),
                    PageDown => page.max(1) as isize,
                    Top => isize::MIN / 2,
                    _ => isize::MAX / 2,
                };
                let last = n.saturating_sub(1) as isize;
                self.selected = (self.selected as isize).saturating_add(d).clamp(0, last) as usize;
            }
            Enter | Reveal => match self.selected_line() {
                Some(line @ ModuleLine::Row { .. }) => steps.push(reveal(data, line)),
                Some(_) if cmd == Enter => {
                    if !self.fold(data, true) {
                        self.fold(data, false);
                    }
                }
                _ => steps.push(Step::Notice(
                    "a module is no one row: Enter opens it".into(),
                )),
            },
            Expand if !self.fold(data, true) && self.selected + 1 < n => self.selected += 1,
            Collapse if !self.fold(data, false) => self.select_parent(data),
            ExpandAll | CollapseAll => {
                let open = cmd == ExpandAll;
                for (k, e) in self.expanded.iter_mut().enumerate() {
                    for (i, x) in e.iter_mut().enumerate() {
                        let root = data
                            .modules
                            .get(k)
                            .and_then(|mm| mm.modules.get(i))
                            .is_some_and(|m| m.parent.is_none());
                        *x = open || root;
                    }
                }
                self.rebuild(data);
            }
            SortNext => {
                self.sort = match self.sort {
                    ModuleSort::Model => ModuleSort::Median,
                    ModuleSort::Median => ModuleSort::Mean,
                    ModuleSort::Mean => ModuleSort::Path,
                    ModuleSort::Path => ModuleSort::Model,
                };
                self.rebuild(data);
                steps.push(Step::Notice(format!("modules by {}", self.sort_label())));
            }
            SortReverse => {
                self.reversed = !self.reversed;
                self.rebuild(data);
                steps.push(Step::Notice(format!("modules by {}", self.sort_label())));
            }
            StartFilter => self.filter_editing = true,
            FilterAccept => self.filter_editing = false,
            FilterCancel => {
                self.filter_editing = false;
                self.filter.reset();
                self.rebuild(data);
            }
            FilterEdit(req) => {
                self.filter.handle(req);
                self.selected = 0;
                self.offset = 0;
                self.rebuild(data);
            }
            Back if !self.filter.value().is_empty() => {
                self.filter.reset();
                self.rebuild(data);
            }
            Back | ToggleModules => steps.push(Step::Pop),
            CopyRow => steps.extend(self.copy(data)),
            _ => {}
        }
        self.fix_offset(page);
        steps
    }

    /// `c`: a module's path, a row's `file:line`, a method's name.
    fn copy(&self, data: &ExplorerData) -> Vec<Step> {
        let text = match self.selected_line() {
            Some(ModuleLine::Method(k)) => data.modules.get(k).map(|m| m.method.clone()),
            Some(line @ ModuleLine::Module { .. }) => {
                Self::module_of(data, line).map(|m| module_copy_text(m).to_string())
            }
            Some(line @ ModuleLine::Row { .. }) => {
                let Some((r, node)) = Self::row_of(data, line) else {
                    return Vec::new();
                };
                match node
                    .and_then(|id| data.sources.get(&id))
                    .and_then(|s| s.file_line.clone())
                {
                    Some(fl) => Some(fl),
                    None => {
                        return vec![Step::Notice(format!(
                            "no source line known for {}",
                            crate::escape::escape(&r.name)
                        ))]
                    }
                }
            }
            None => None,
        };
        match text {
            Some(t) => vec![
                Step::Notice(format!(
                    "copied {} to the clipboard (OSC 52)",
                    crate::escape::escape(&t)
                )),
                Step::Effect(Effect::Copy(t)),
            ],
            None => vec![Step::Notice("nothing selected to copy".into())],
        }
    }
}

/// What `c` copies for a module: its path; the root (whose path is empty) its type.
pub fn module_copy_text(m: &ModuleTotal) -> &str {
    if m.path.is_empty() {
        &m.ty
    } else {
        &m.path
    }
}

fn reveal(data: &ExplorerData, line: ModuleLine) -> Step {
    match ModulesView::row_of(data, line) {
        Some((_, Some(node))) => Step::Reveal(node),
        Some((r, None)) => Step::Notice(format!(
            "{} has no place in the tree",
            crate::escape::escape(&r.name)
        )),
        None => Step::Notice("nothing selected".into()),
    }
}

fn matches(text: &str, needle: &str) -> bool {
    needle.is_empty() || text.to_lowercase().contains(needle)
}

/// Which modules a filter keeps: those matching (path, type or a row's name) and their
/// ancestors.
fn keep_modules(mm: &MethodModules, needle: &str) -> Vec<bool> {
    let mods = &mm.modules;
    let mut keep: Vec<bool> = mods
        .iter()
        .map(|m| {
            matches(&m.path, needle)
                || matches(&m.ty, needle)
                || m.rows.iter().any(|r| matches(&r.name, needle))
        })
        .collect();
    // Pre-order: children come after their parent.
    for i in (0..mods.len()).rev() {
        if keep[i] {
            if let Some(p) = mods[i].parent.filter(|&p| p < i) {
                keep[p] = true;
            }
        }
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "" > {a > {a.x (row r1), a.y}, b (rows r2, r3)}, medians by hand: a.x 1, a.y 2,
    /// a 3, b 5 (r2 4 + r3 1), root 10 (plus its own row r0 of 2).
    fn data() -> ExplorerData {
        let row = |name: &str, id: i32, median: f64| ModuleRow {
            kind: "kernel".into(),
            name: name.into(),
            instruction_id: id,
            median,
            mean: median,
            spans_children: false,
        };
        let m = |path: &str, depth, parent, median, rows| ModuleTotal {
            path: path.into(),
            ty: format!("T{path}"),
            depth,
            parent,
            median_total: median,
            mean_total: median,
            share: median / 20.0,
            median_not_attributable: 0.0,
            rows,
        };
        let modules = vec![
            m("", 0, None, 10.0, vec![row("r0", 0, 2.0)]),
            m("a", 1, Some(0), 3.0, vec![]),
            m("a.x", 2, Some(1), 1.0, vec![row("r1", 1, 1.0)]),
            m("a.y", 2, Some(1), 2.0, vec![]),
            m(
                "b",
                1,
                Some(0),
                5.0,
                vec![row("r2", 2, 4.0), row("r3", 3, 1.0)],
            ),
        ];
        ExplorerData {
            modules: vec![MethodModules {
                method: "forward".into(),
                execute: Some(20.0),
                row_nodes: modules
                    .iter()
                    .map(|m| {
                        m.rows
                            .iter()
                            .map(|r| Some(r.instruction_id as usize))
                            .collect()
                    })
                    .collect(),
                modules,
            }],
            ..ExplorerData::default()
        }
    }

    fn shown(v: &ModulesView, d: &ExplorerData) -> Vec<String> {
        v.lines
            .iter()
            .map(|&l| match l {
                ModuleLine::Row { .. } => ModulesView::row_of(d, l).unwrap().0.name.clone(),
                _ => format!("[{}]", ModulesView::module_of(d, l).unwrap().path),
            })
            .collect()
    }

    #[test]
    fn lines_sort_filter_fold_and_reveal() {
        let d = data();
        let mut v = ModulesView::new(&d);
        assert_eq!(
            shown(&v, &d),
            ["[]", "r0", "[a]", "[a.x]", "r1", "[a.y]", "[b]", "r2", "r3"]
        );
        v.command(Command::SortNext, &d, 10); // median, largest first
        assert_eq!(
            shown(&v, &d),
            ["[]", "r0", "[b]", "r2", "r3", "[a]", "[a.y]", "[a.x]", "r1"]
        );
        v.command(Command::SortReverse, &d, 10);
        assert_eq!(
            shown(&v, &d),
            ["[]", "r0", "[a]", "[a.x]", "r1", "[a.y]", "[b]", "r3", "r2"]
        );
        // A filter keeps the matches and their parents (and the rows matching).
        for c in "r1".chars() {
            v.command(
                Command::FilterEdit(tui_input::InputRequest::InsertChar(c)),
                &d,
                10,
            );
        }
        assert_eq!(shown(&v, &d), ["[]", "[a]", "[a.x]", "r1"]);
        // Enter on the row: reveal its node.
        v.command(Command::Bottom, &d, 10);
        assert_eq!(v.command(Command::Enter, &d, 10), [Step::Reveal(1)]);
        // Esc clears the filter first, then closes.
        assert!(v.command(Command::Back, &d, 10).is_empty());
        assert_eq!(v.lines.len(), 9);
        // h on a row goes to its module, then closes it.
        v.command(Command::Collapse, &d, 10);
        v.command(Command::Collapse, &d, 10);
        assert!(!shown(&v, &d).contains(&"r1".to_string()));
        assert_eq!(v.command(Command::Back, &d, 10), [Step::Pop]);
        // c on a module copies its path; the root its type.
        v.command(Command::Top, &d, 10);
        assert!(v
            .command(Command::CopyRow, &d, 10)
            .contains(&Step::Effect(Effect::Copy("T".into()))));
    }
}
