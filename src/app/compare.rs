//! The compare view's state: both directions of one comparison (A→B and B→A, for the
//! swap key), the visible rows (tree or table order, all or changed only), selection and
//! scrolling. Plain data and pure key handling; `ui::compare` renders it and
//! `tui::run_compare` drives it.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::compare::{CompareRow, Comparison, Verdict};

/// The compare view's keys: (keys as shown, what they do). Drives the help overlay and the
/// README's compare key table (checked by `tests/compare_view.rs`).
pub const COMPARE_KEYS: &[(&str, &str)] = &[
    ("j / k, ↓ / ↑", "move the selection"),
    ("PgDn / PgUp", "move by a page"),
    ("g / G, Home / End", "first / last row"),
    ("t", "tree (program order) or table (sorted)"),
    ("s", "next sort: verdict, change, name, median A"),
    ("c", "only changed rows (slower, faster, added, removed)"),
    ("x", "swap A and B"),
    ("?", "help"),
    ("q, Esc, Ctrl-C", "quit (Esc first closes help)"),
];

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

#[derive(Debug, Clone, PartialEq)]
pub struct CompareView {
    /// A against B as given, and B against A.
    forward: Comparison,
    backward: Comparison,
    pub swapped: bool,
    /// Tree order (indented, program order) instead of the sorted table.
    pub tree: bool,
    pub sort: CompareSort,
    pub changed_only: bool,
    pub help: bool,
    /// Indices into the current comparison's rows, in display order.
    pub visible: Vec<usize>,
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
            help: false,
            visible: Vec::new(),
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
    fn refresh(&mut self, keep: Option<(Vec<String>, &'static str)>) {
        let c = self.comparison();
        let mut rows: Vec<usize> = (0..c.rows.len())
            .filter(|&i| !self.changed_only || c.rows[i].verdict.is_change())
            .collect();
        if !self.tree {
            let key = self.sort;
            rows.sort_by(|&x, &y| {
                let (a, b) = (&c.rows[x], &c.rows[y]);
                order(a, b, key).then(x.cmp(&y))
            });
        }
        self.visible = rows;
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

    fn keep(&self) -> Option<(Vec<String>, &'static str)> {
        self.selected_row()
            .map(|r| (r.path.clone(), r.kind.label()))
    }

    /// Handle a key; true when the view should close.
    pub fn key(&mut self, k: KeyEvent) -> bool {
        if k.modifiers.contains(KeyModifiers::CONTROL) && k.code == KeyCode::Char('c') {
            return true;
        }
        if self.help {
            if matches!(
                k.code,
                KeyCode::Esc | KeyCode::Char('?') | KeyCode::Char('q')
            ) {
                self.help = false;
            }
            return false;
        }
        let last = self.visible.len().saturating_sub(1);
        match k.code {
            KeyCode::Char('q') | KeyCode::Esc => return true,
            KeyCode::Char('j') | KeyCode::Down => self.selected = (self.selected + 1).min(last),
            KeyCode::Char('k') | KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::PageDown => self.selected = (self.selected + self.page.max(1)).min(last),
            KeyCode::PageUp => self.selected = self.selected.saturating_sub(self.page.max(1)),
            KeyCode::Char('g') | KeyCode::Home => self.selected = 0,
            KeyCode::Char('G') | KeyCode::End => self.selected = last,
            KeyCode::Char('t') => {
                let keep = self.keep();
                self.tree = !self.tree;
                self.refresh(keep);
            }
            KeyCode::Char('s') => {
                let keep = self.keep();
                self.sort = self.sort.next();
                self.tree = false;
                self.refresh(keep);
            }
            KeyCode::Char('c') => {
                let keep = self.keep();
                self.changed_only = !self.changed_only;
                self.refresh(keep);
            }
            KeyCode::Char('x') => {
                let keep = self.keep();
                self.swapped = !self.swapped;
                self.refresh(keep);
            }
            KeyCode::Char('?') => self.help = true,
            _ => {}
        }
        false
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
            let m = |r: &CompareRow| r.a.as_ref().map_or(f64::NEG_INFINITY, |s| s.median);
            m(b).total_cmp(&m(a))
        }
    }
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
