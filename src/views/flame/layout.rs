//! Where the flame graph's frames fall on a row of `width` cells. Pure.
//!
//! The rule (tests recompute it from the folded export): below the zoomed frame `Z` of
//! time `T`, a frame's offset is its parent's offset plus the times of its siblings laid
//! out before it (children widest first, ties by label), each clipped to what is left of
//! the parent (a median run's parts may add up to more than its median); it covers
//! cells `floor(offset * width / T)` to `floor((offset + time) * width / T)`, end
//! excluded. A frame narrower than one cell (`time * width < T`) is not drawn: all such
//! children of one parent (the last ones, by the order) are one merged `…` frame with
//! their total, laid out by the same rule. A frame of zero time has no span.

use super::model::FlameTree;

/// What a span shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanOf {
    Frame(u32),
    /// The narrow children of this frame, merged.
    Merged(u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub of: SpanOf,
    /// Cells `x0..x1` of the row (relative to the graph's left edge).
    pub x0: u16,
    pub x1: u16,
    /// Time in ns (clipped to the parent), and offset from the zoomed frame's start.
    pub value: u64,
    pub offset: u64,
    /// How many frames a merged span stands for (1 for a frame).
    pub count: u32,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layout {
    /// Row 0 is the zoomed frame; row d its descendants d levels down.
    pub rows: Vec<Vec<Span>>,
    pub width: u16,
    /// The zoomed frame's time (the whole width).
    pub total: u64,
}

fn cell(at: u64, width: u16, total: u64) -> u16 {
    ((at as u128 * width as u128) / total.max(1) as u128).min(width as u128) as u16
}

/// Lay out the frames below `zoom` under weighting `w` on `width` cells, at most
/// `max_rows` rows deep.
pub fn layout(tree: &FlameTree, w: usize, zoom: u32, width: u16, max_rows: usize) -> Layout {
    let total = tree
        .frames
        .get(zoom as usize)
        .map_or(0, |f| f.values[w.min(1)]);
    let mut out = Layout {
        rows: Vec::new(),
        width,
        total,
    };
    if total == 0 || width == 0 || max_rows == 0 {
        return out;
    }
    out.rows.push(vec![Span {
        of: SpanOf::Frame(zoom),
        x0: 0,
        x1: width,
        value: total,
        offset: 0,
        count: 1,
    }]);
    let (wide, t) = (width as u128, total as u128);
    while out.rows.len() < max_rows {
        let mut next = Vec::new();
        for span in out.rows.last().into_iter().flatten() {
            let SpanOf::Frame(parent) = span.of else {
                continue;
            };
            let end = span.offset + span.value;
            let mut at = span.offset;
            let mut merged: Option<Span> = None;
            for &c in tree.sorted_children(parent, w) {
                let v = tree.frames[c as usize].values[w.min(1)].min(end - at);
                if v == 0 {
                    break; // widest first: the rest are empty too
                }
                if let Some(m) = merged.as_mut() {
                    m.value += v;
                    m.count += 1;
                } else if (v as u128) * wide < t {
                    merged = Some(Span {
                        of: SpanOf::Merged(parent),
                        x0: 0,
                        x1: 0,
                        value: v,
                        offset: at,
                        count: 1,
                    });
                } else {
                    next.push(Span {
                        of: SpanOf::Frame(c),
                        x0: cell(at, width, total),
                        x1: cell(at + v, width, total),
                        value: v,
                        offset: at,
                        count: 1,
                    });
                }
                at += v;
            }
            if let Some(mut m) = merged {
                m.x0 = cell(m.offset, width, total);
                m.x1 = cell(m.offset + m.value, width, total);
                next.push(m);
            }
        }
        if next.is_empty() {
            break;
        }
        out.rows.push(next);
    }
    out
}

impl Layout {
    /// The row and index of the span showing `of`.
    pub fn find(&self, of: SpanOf) -> Option<(usize, usize)> {
        self.rows
            .iter()
            .enumerate()
            .find_map(|(r, row)| row.iter().position(|s| s.of == of).map(|i| (r, i)))
    }

    /// As `find`, for a span with at least one cell (one the user can see and select).
    pub fn find_drawn(&self, of: SpanOf) -> Option<(usize, usize)> {
        self.find(of)
            .filter(|&(r, i)| self.rows[r][i].x1 > self.rows[r][i].x0)
    }

    /// The span at cell `x` of row `row`, if one covers it.
    pub fn at(&self, row: usize, x: u16) -> Option<&Span> {
        self.rows.get(row)?.iter().find(|s| s.x0 <= x && x < s.x1)
    }
}
