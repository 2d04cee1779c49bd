//! The flame view's sandwich (`i`): one name's callers drawn upwards from a centre row
//! and its callees downwards (`flame_merge::Sandwich`), its own selection and moves.
//! Pure; `views::flame::render` draws it, `flame_view` opens and closes it.
//!
//! Screen rows: the callers' layout row k (k ≥ 1) lies k row-heights above the centre,
//! the callees' row k the same below; the centre row is the name itself (row 0 of both).

use std::sync::Arc;

use ratatui::layout::Rect;

use super::layout::{layout, Layout, SpanOf};
use super::merge::Sandwich;
use super::model::{FlameCommand, FlameTree};
use crate::app::step::Step;
use crate::units::percent;

/// Which half of the sandwich a frame is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Half {
    /// Above the centre: who calls the name (nearest callers first).
    Callers,
    /// The centre row and below: what the name calls.
    Callees,
}

#[derive(Debug, Clone)]
pub struct SandwichView {
    pub sandwich: Arc<Sandwich>,
    pub half: Half,
    /// In `half`'s tree; `Frame(0)` of either half is the centre.
    pub selected: SpanOf,
}

/// Where the sandwich falls in the graph area.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SandwichLayout {
    pub callers: Layout,
    pub callees: Layout,
    /// Layout rows drawn above and below the centre.
    pub up: usize,
    pub down: usize,
    /// Screen lines per row, and the centre row's first line (from the area's top).
    pub row_height: u16,
    pub centre: u16,
}

impl SandwichLayout {
    pub fn half(&self, half: Half) -> &Layout {
        match half {
            Half::Callers => &self.callers,
            Half::Callees => &self.callees,
        }
    }

    /// The screen line (from the area's top) of layout row `row` of `half`, if drawn.
    pub fn line_of(&self, half: Half, row: usize) -> Option<u16> {
        let h = self.row_height as usize;
        match half {
            Half::Callers if row <= self.up => Some((self.centre as usize - row * h) as u16),
            Half::Callees if row <= self.down => Some((self.centre as usize + row * h) as u16),
            _ => None,
        }
    }

    /// The half and layout row drawn at line `y` (from the area's top).
    pub fn row_at(&self, y: u16) -> Option<(Half, usize)> {
        let h = self.row_height.max(1);
        if y < self.centre {
            let k = ((self.centre - y - 1) / h + 1) as usize;
            (k <= self.up).then_some((Half::Callers, k))
        } else {
            let k = ((y - self.centre) / h) as usize;
            (k <= self.down).then_some((Half::Callees, k))
        }
    }
}

/// What a sandwich key asks of the flame view.
#[derive(Debug, Clone, PartialEq)]
pub enum SandwichStep {
    Steps(Vec<Step>),
    /// Make the sandwich of this name.
    Recentre(String),
    Close,
}

impl SandwichView {
    pub fn new(sandwich: Sandwich) -> SandwichView {
        SandwichView {
            sandwich: Arc::new(sandwich),
            half: Half::Callees,
            selected: SpanOf::Frame(0),
        }
    }

    pub fn tree(&self, half: Half) -> &FlameTree {
        match half {
            Half::Callers => &self.sandwich.callers,
            Half::Callees => &self.sandwich.callees,
        }
    }

    fn at_centre(&self) -> bool {
        self.selected == SpanOf::Frame(0)
    }

    /// Both halves laid out on `g` (the graph's area) under weighting `w`: each row
    /// `row_height` lines (the rows fill the area), the halves sharing what is left when
    /// they cannot all be drawn.
    pub fn layout(&self, g: Rect, w: usize) -> SandwichLayout {
        let lines = g.height as usize;
        let callers = layout(&self.sandwich.callers, w, 0, g.width, lines.max(1));
        let callees = layout(&self.sandwich.callees, w, 0, g.width, lines.max(1));
        if lines == 0 || callees.rows.is_empty() {
            return SandwichLayout::default();
        }
        // Rows of frames narrower than a cell only take no lines.
        let drawn = |l: &Layout| {
            l.rows
                .iter()
                .take_while(|r| r.iter().any(|s| s.x1 > s.x0))
                .count()
        };
        let want_up = drawn(&callers).saturating_sub(1);
        let want_down = drawn(&callees).saturating_sub(1);
        let (up, down, h) = if want_up + want_down < lines {
            let h = lines / (want_up + want_down + 1);
            (want_up, want_down, h.max(1))
        } else {
            let room = lines - 1;
            let up = want_up.min((room / 2).max(room.saturating_sub(want_down)));
            (up, want_down.min(room - up), 1)
        };
        SandwichLayout {
            callers,
            callees,
            up,
            down,
            row_height: h as u16,
            centre: (up * h) as u16,
        }
    }

    /// The selection moved to what `l` draws (else the centre).
    fn fix_selection(&mut self, l: &SandwichLayout) {
        let drawn = l
            .half(self.half)
            .find_drawn(self.selected)
            .is_some_and(|(row, _)| l.line_of(self.half, row).is_some());
        if !drawn {
            self.half = Half::Callees;
            self.selected = SpanOf::Frame(0);
        }
    }

    /// The widest drawn span one row further from the centre, under the selection.
    fn outward(&self, l: &SandwichLayout, half: Half) -> Option<SpanOf> {
        let tree = self.tree(half);
        let from = if self.half == half {
            self.selected
        } else {
            SpanOf::Frame(0)
        };
        let SpanOf::Frame(f) = from else {
            return None;
        };
        let lay = l.half(half);
        let (row, _) = lay.find_drawn(from)?;
        l.line_of(half, row + 1)?;
        lay.rows
            .get(row + 1)?
            .iter()
            .filter(|s| s.x1 > s.x0)
            .find_map(|s| {
                let under = match s.of {
                    SpanOf::Frame(c) => tree.frames[c as usize].parent == Some(f),
                    SpanOf::Merged(p) => p == f,
                };
                under.then_some(s.of)
            })
    }

    /// A flame key in the sandwich, on the area `g` of the graph.
    pub fn command(&mut self, c: FlameCommand, g: Rect, w: usize) -> SandwichStep {
        let l = self.layout(g, w);
        self.fix_selection(&l);
        let notice = |s: &str| SandwichStep::Steps(vec![Step::Notice(s.to_string())]);
        // Up the screen: towards the callers; down: towards the callees.
        let (towards, back) = match c {
            FlameCommand::Parent => (Half::Callers, Half::Callees),
            FlameCommand::Child => (Half::Callees, Half::Callers),
            FlameCommand::Left | FlameCommand::Right => {
                let lay = l.half(self.half);
                if let Some((row, i)) = lay.find_drawn(self.selected) {
                    let spans = &lay.rows[row];
                    let drawn = |j: &usize| spans[*j].x1 > spans[*j].x0;
                    let j = if c == FlameCommand::Left {
                        (0..i).rev().find(drawn)
                    } else {
                        (i + 1..spans.len()).find(drawn)
                    };
                    if let Some(j) = j {
                        self.selected = spans[j].of;
                    }
                }
                return SandwichStep::Steps(Vec::new());
            }
            FlameCommand::Zoom => {
                return match self.selected {
                    SpanOf::Frame(0) => {
                        notice("the centre: Enter on a caller or callee re-centres on it")
                    }
                    SpanOf::Frame(f) => SandwichStep::Recentre(
                        self.tree(self.half).frames[f as usize].name().to_string(),
                    ),
                    SpanOf::Merged(_) => {
                        notice("merged frames: too narrow to name; i, then zoom the graph")
                    }
                }
            }
            FlameCommand::Sandwich => return SandwichStep::Close,
            FlameCommand::Order | FlameCommand::Weighting => return SandwichStep::Steps(Vec::new()),
        };
        if self.at_centre() || self.half == towards {
            match self.outward(&l, towards) {
                Some(s) => {
                    self.half = towards;
                    self.selected = s;
                }
                None if self.at_centre() && towards == Half::Callers => {
                    return notice("no callers: the name is a root")
                }
                None if self.at_centre() => return notice("no callees"),
                None => return notice("nothing further this way"),
            }
        } else {
            // Back towards the centre: the parent in this half's tree.
            debug_assert_eq!(self.half, back);
            self.selected = match self.selected {
                SpanOf::Merged(p) => SpanOf::Frame(p),
                SpanOf::Frame(f) => {
                    SpanOf::Frame(self.tree(self.half).frames[f as usize].parent.unwrap_or(0))
                }
            };
            if self.selected == SpanOf::Frame(0) {
                self.half = Half::Callees;
            }
        }
        SandwichStep::Steps(Vec::new())
    }

    /// The status line: the centre's totals, a caller's or callee's share of them.
    pub fn status(&self, l: &SandwichLayout, w: usize) -> String {
        let s = &self.sandwich;
        let total = s.total[w];
        let time = |ns: u64| crate::units::duration_ms(ns as f64 / 1e6);
        let of = |ns: u64| {
            percent(if total == 0 {
                0.0
            } else {
                ns as f64 / total as f64
            })
        };
        let Some((row, i)) = l.half(self.half).find(self.selected) else {
            return String::new();
        };
        let span = l.half(self.half).rows[row][i];
        match (self.half, span.of) {
            (_, SpanOf::Frame(0)) => format!(
                "{} · {} frame{} · total {} · self {} ({} of total) · callers above, callees below",
                s.name,
                s.frames,
                if s.frames == 1 { "" } else { "s" },
                time(total),
                time(s.self_time[w]),
                of(s.self_time[w]),
            ),
            (_, SpanOf::Merged(_)) => format!(
                "… {} frames narrower than a cell: {} · {} of {}'s total",
                span.count,
                time(span.value),
                of(span.value),
                s.name
            ),
            (Half::Callers, SpanOf::Frame(f)) => {
                let fr = &self.tree(Half::Callers).frames[f as usize];
                format!(
                    "{} · calls {} {} deep · {} of its time ({})",
                    fr.label,
                    s.name,
                    row,
                    time(fr.values[w]),
                    of(fr.values[w])
                )
            }
            (Half::Callees, SpanOf::Frame(f)) => {
                let fr = &self.tree(Half::Callees).frames[f as usize];
                format!(
                    "{} · called by {} {} deep · {} ({} of {}'s total)",
                    fr.label,
                    s.name,
                    row,
                    time(fr.values[w]),
                    of(fr.values[w]),
                    s.name
                )
            }
        }
    }

    /// A click selects the frame under it.
    pub fn click(&mut self, g: Rect, w: usize, x: u16, y: u16) {
        let l = self.layout(g, w);
        let Some((half, row)) = l.row_at(y.saturating_sub(g.y)) else {
            return;
        };
        if let Some(span) = l.half(half).at(row, x.saturating_sub(g.x)) {
            self.half = if span.of == SpanOf::Frame(0) {
                Half::Callees
            } else {
                half
            };
            self.selected = span.of;
        }
    }
}
