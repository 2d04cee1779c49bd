//! The compare view: both directions of one comparison (A→B and B→A, for the swap key),
//! the visible rows (tree or table order, all or changed only, filtered by name),
//! selection and scrolling. Plain data and a pure `command`; its keys are
//! `keymap`'s compare table, `views::compare::render` renders it. The `compare` command opens it as
//! the base of the stack, watch mode pushes it over the explorer (`d`).

use tui_input::Input;

use crate::app::keymap::Command;
use crate::app::step::Step;
use crate::compare::{CompareRow, Comparison, Verdict};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareSort {
    /// Significant regressions first (largest first), then improvements (largest first),
    /// then too few samples, added, removed, same.
    Verdict,
    /// By change of the median, largest slowdown first.
    Change,
    Name,
    /// By A's median, largest first.
    MedianA,
}

impl CompareSort {
    pub fn label(self) -> &'static str {
        match self {
            CompareSort::Verdict => "verdict",
            CompareSort::Change => "change",
            CompareSort::Name => "name",
            CompareSort::MedianA => "median A",
        }
    }

    fn next(self) -> CompareSort {
        match self {
            CompareSort::Verdict => CompareSort::Change,
            CompareSort::Change => CompareSort::Name,
            CompareSort::Name => CompareSort::MedianA,
            CompareSort::MedianA => CompareSort::Verdict,
        }
    }
}

#[derive(Debug, Clone)]
pub struct CompareView {
    /// A against B as given, and B against A.
    forward: Comparison,
    backward: Comparison,
    pub swapped: bool,
    /// Tree order (indented, program order) instead of the sorted table.
    pub tree: bool,
    pub sort: CompareSort,
    pub changed_only: bool,
    /// Rows whose name contains this (ignoring case); empty: all.
    pub filter: Input,
    /// The filter is being typed (`/`): keys go to the text field.
    pub filter_editing: bool,
    /// Indices into the current comparison's rows, in display order.
    pub visible: Vec<usize>,
    /// Rows of `visible` shown only as the ancestors of changed rows (the tree with
    /// `changed_only`): drawn dimmed, not counted as changed.
    pub context: std::collections::HashSet<usize>,
    /// Position in `visible`.
    pub selected: usize,
    /// First visible position drawn.
    pub offset: usize,
    /// Rows the list showed in the last frame (for paging), set by the renderer's layout.
    pub page: usize,
}

impl CompareView {
    pub fn new(forward: Comparison, backward: Comparison) -> CompareView {
        let mut v = CompareView {
            forward,
            backward,
            swapped: false,
            tree: false,
            sort: CompareSort::Verdict,
            changed_only: false,
            filter: Input::default(),
            filter_editing: false,
            visible: Vec::new(),
            context: Default::default(),
            selected: 0,
            offset: 0,
            page: 10,
        };
        v.refresh(None);
        v
    }

    /// The comparison on screen (B against A after a swap).
    pub fn comparison(&self) -> &Comparison {
        if self.swapped {
            &self.backward
        } else {
            &self.forward
        }
    }

    pub fn selected_row(&self) -> Option<&CompareRow> {
        self.visible
            .get(self.selected)
            .map(|&i| &self.comparison().rows[i])
    }

    /// Rebuild `visible`, keeping the selection on the row with path `keep` when shown.
    /// In the tree, "changed only" keeps the ancestors of the changed rows (in
    /// `context`), so each changed row is seen where it lies; the sorted table lists the
    /// changed rows alone.
    fn refresh(&mut self, keep: Option<(Vec<String>, &'static str)>) {
        let c = self.comparison();
        let needle = self.filter.value().to_lowercase();
        let named = |i: usize| needle.is_empty() || c.rows[i].name.to_lowercase().contains(&needle);
        let mut shown = vec![false; c.rows.len()];
        let mut context = std::collections::HashSet::new();
        for i in 0..c.rows.len() {
            if !named(i) || (self.changed_only && !c.rows[i].verdict.is_change()) {
                continue;
            }
            shown[i] = true;
            if self.changed_only && self.tree {
                let mut up = c.rows[i].parent;
                // Parents come before their children; a bad index ends the walk.
                while let Some(p) = up.filter(|&p| p < i && !shown[p]) {
                    shown[p] = true;
                    context.insert(p);
                    up = c.rows[p].parent;
                }
            }
        }
        let mut rows: Vec<usize> = (0..c.rows.len()).filter(|&i| shown[i]).collect();
        if !self.tree {
            let key = self.sort;
            rows.sort_by(|&x, &y| {
                let (a, b) = (&c.rows[x], &c.rows[y]);
                order(a, b, key).then(x.cmp(&y))
            });
        }
        self.visible = rows;
        self.context = context;
        self.selected = keep
            .and_then(|(path, kind)| {
                self.visible.iter().position(|&i| {
                    let r = &self.comparison().rows[i];
                    r.path == path && r.kind.label() == kind
                })
            })
            .unwrap_or(0);
        self.offset = self.offset.min(self.selected);
    }

    /// Rows listed for themselves (not as an ancestor of a changed row).
    pub fn listed(&self) -> usize {
        self.visible.len() - self.context.len()
    }

    /// `c`: the selected row as one line, for the clipboard.
    fn copy_selected(&self) -> Vec<Step> {
        let Some(&i) = self.visible.get(self.selected) else {
            return vec![Step::Notice("nothing selected to copy".into())];
        };
        let text = row_text(self.comparison(), i, self.swapped);
        let name = crate::escape::escape(&self.comparison().rows[i].name);
        vec![
            Step::Notice(format!(
                "copied {name} ({} characters) to the clipboard (OSC 52)",
                text.chars().count()
            )),
            Step::Effect(crate::app::effect::Effect::Copy(text)),
        ]
    }

    fn keep(&self) -> Option<(Vec<String>, &'static str)> {
        self.selected_row()
            .map(|r| (r.path.clone(), r.kind.label()))
    }

    /// A key of the compare table (or of its filter's text field).
    pub fn command(&mut self, cmd: Command) -> Vec<Step> {
        use Command::*;
        let last = self.visible.len().saturating_sub(1);
        match cmd {
            Down => self.selected = (self.selected + 1).min(last),
            Up => self.selected = self.selected.saturating_sub(1),
            PageDown => self.selected = (self.selected + self.page.max(1)).min(last),
            PageUp => self.selected = self.selected.saturating_sub(self.page.max(1)),
            Top => self.selected = 0,
            Bottom => self.selected = last,
            NextPane | PrevPane => {
                let keep = self.keep();
                self.tree = !self.tree;
                self.refresh(keep);
            }
            SortNext => {
                let keep = self.keep();
                self.sort = self.sort.next();
                self.tree = false;
                self.refresh(keep);
            }
            ToggleUnchanged => {
                let keep = self.keep();
                self.changed_only = !self.changed_only;
                self.refresh(keep);
                return vec![Step::Notice(if self.changed_only {
                    "only changed rows (slower, faster, added, removed): u shows all".into()
                } else {
                    "every row".into()
                })];
            }
            Swap => {
                let keep = self.keep();
                self.swapped = !self.swapped;
                self.refresh(keep);
            }
            CopyRow => return self.copy_selected(),
            StartFilter => self.filter_editing = true,
            FilterAccept => self.filter_editing = false,
            FilterCancel => {
                self.filter_editing = false;
                let keep = self.keep();
                self.filter.reset();
                self.refresh(keep);
            }
            FilterEdit(req) => {
                let keep = self.keep();
                self.filter.handle(req);
                self.refresh(keep);
            }
            Back if !self.filter.value().is_empty() => {
                let keep = self.keep();
                self.filter.reset();
                self.refresh(keep);
            }
            Back => return vec![Step::Pop],
            Quit => return vec![Step::Quit],
            _ => {}
        }
        Vec::new()
    }

    /// Keep the selection inside a list `height` rows tall (called by the renderer's
    /// caller before drawing).
    pub fn scroll_to_fit(&mut self, height: usize) {
        self.page = height.max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if height > 0 && self.selected >= self.offset + height {
            self.offset = self.selected + 1 - height;
        }
    }
}

/// Row `i` of `c` as one line: name, kind, where it runs, both medians, the change with
/// its interval, p, verdict and the path above it. Unescaped: the shell escapes what it
/// copies (`copy::osc52`).
pub fn row_text(c: &Comparison, i: usize, swapped: bool) -> String {
    let r = &c.rows[i];
    let (la, lb) = if swapped { ("B", "A") } else { ("A", "B") };
    let operator = r.kind.is_operator();
    let med = |s: &Option<crate::stats::Stats>| crate::units::side_median(operator, s.as_ref());
    let pct = |x: f64| format!("{x:+.1}%");
    let mut parts = vec![r.name.clone(), r.kind.label().to_string()];
    if let Some(d) = delegate_of(c, i) {
        parts.push(crate::units::delegate_name(d));
    }
    parts.push(format!("median {la} {}", med(&r.a).trim()));
    parts.push(format!("median {lb} {}", med(&r.b).trim()));
    if let Some(d) = r.delta_pct {
        let iv = r.ci_pct.map_or(String::new(), |(lo, hi)| {
            format!(" [{}, {}]", pct(lo), pct(hi))
        });
        parts.push(format!("change {}{iv}", pct(d)));
    }
    if let Some(p) = r.p_value {
        parts.push(if p < 1e-3 {
            format!("p {p:.0e}")
        } else {
            format!("p {p:.3}")
        });
    }
    parts.push(r.verdict.label().to_string());
    if r.path.len() > 1 {
        parts.push(format!("in {}", r.path[..r.path.len() - 1].join(" › ")));
    }
    parts.join(" · ")
}

/// Rank of a verdict in the default order.
fn verdict_rank(v: Verdict) -> u8 {
    match v {
        Verdict::Slower => 0,
        Verdict::Faster => 1,
        Verdict::TooFewSamples => 2,
        Verdict::Added => 3,
        Verdict::Removed => 4,
        Verdict::Same => 5,
    }
}

fn order(a: &CompareRow, b: &CompareRow, key: CompareSort) -> std::cmp::Ordering {
    let delta = |r: &CompareRow| r.delta_pct.unwrap_or(0.0);
    match key {
        CompareSort::Verdict => verdict_rank(a.verdict)
            .cmp(&verdict_rank(b.verdict))
            .then_with(|| match a.verdict {
                // Largest slowdown first; largest speed-up (most negative) first.
                Verdict::Slower => delta(b).total_cmp(&delta(a)),
                Verdict::Faster => delta(a).total_cmp(&delta(b)),
                _ => std::cmp::Ordering::Equal,
            }),
        CompareSort::Change => delta(b).total_cmp(&delta(a)),
        CompareSort::Name => a.name.cmp(&b.name),
        CompareSort::MedianA => {
            let m = |r: &CompareRow| r.a.as_ref().map_or(f64::NEG_INFINITY, |s| s.median());
            m(b).total_cmp(&m(a))
        }
    }
}

/// The instruction id of the delegate row `i` lies in (itself when it is a delegate):
/// what tells apart same-named rows of two delegates (`Transpose (ND, X32) #1`).
pub fn delegate_of(c: &Comparison, i: usize) -> Option<i32> {
    let mut at = Some(i);
    while let Some(j) = at {
        let r = c.rows.get(j)?;
        if r.kind == crate::rows::RowKind::Delegate {
            return r.instruction_id;
        }
        at = r.parent;
    }
    None
}

/// Where row `i` runs, in the short notation of narrow columns: its delegate (`d0`,
/// `units::delegate_short`); empty outside every delegate (its kind and path tell it).
pub fn where_short(c: &Comparison, i: usize) -> String {
    delegate_of(c, i).map_or_else(String::new, crate::units::delegate_short)
}

/// The verdict's mark: distinct without colour.
pub fn verdict_mark(v: Verdict) -> &'static str {
    match v {
        Verdict::Slower => "▲",
        Verdict::Faster => "▼",
        Verdict::Same => "=",
        Verdict::TooFewSamples => "?",
        Verdict::Added => "+",
        Verdict::Removed => "−",
    }
}
