//! Screen geometry, a pure function of the terminal size and the view. Rendering and
//! mouse hit-testing both use it, so a click lands where the row was drawn.

use ratatui::layout::Rect;

/// Terminals at least this wide show the detail pane beside the tree, above a table
/// that spans the whole width.
pub const WIDE: u16 = 110;
/// The detail pane takes this share (tenths) of the width, within these bounds.
pub const DETAIL_TENTHS: u16 = 3;
pub const DETAIL_MIN: u16 = 44;
pub const DETAIL_MAX: u16 = 96;
/// Files and runs; the total and findings; the answer line (`app::answer`).
pub const HEADER_HEIGHT: u16 = 3;
/// The runs list (watch mode) takes a quarter of the lists' height, at most this.
pub const RUNS_MAX_HEIGHT: u16 = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    pub header: Rect,
    pub body: Rect,
    pub footer: Rect,
    /// Watch mode: the status line above the footer.
    pub status: Option<Rect>,
    /// Watch mode: the runs list, above the tree.
    pub runs: Option<Rect>,
    pub tree: Option<Rect>,
    pub table: Option<Rect>,
    pub detail: Option<Rect>,
    /// The warnings and log view (replaces the panes).
    pub log: Option<Rect>,
}

/// `detail_zoomed`: on a narrow screen the focused detail takes the whole body.
/// `runs`: watch mode (a runs list above the tree and a status line above the footer).
pub fn compute(width: u16, height: u16, log_view: bool, detail_zoomed: bool, runs: bool) -> Areas {
    let header_h = HEADER_HEIGHT.min(height);
    let footer_h = u16::from(height > header_h);
    let status_h = u16::from(runs && height > header_h + footer_h);
    let header = Rect::new(0, 0, width, header_h);
    let body_h = height.saturating_sub(header_h + footer_h + status_h);
    let body = Rect::new(0, header_h, width, body_h);
    let footer = Rect::new(0, header_h + body_h + status_h, width, footer_h);
    let mut areas = Areas {
        header,
        body,
        footer,
        status: (status_h > 0).then(|| Rect::new(0, header_h + body_h, width, 1)),
        runs: None,
        tree: None,
        table: None,
        detail: None,
        log: None,
    };
    if log_view {
        areas.log = Some(body);
        return areas;
    }
    if width >= WIDE {
        // Tree (and runs) beside the detail on top; the table spans the width below, so
        // names, steps and shapes get every column there is.
        let detail_w = (width * DETAIL_TENTHS / 10)
            .clamp(DETAIL_MIN, DETAIL_MAX)
            .min(width / 2);
        let runs_h = if runs {
            (body_h / 5).clamp(4.min(body_h), RUNS_MAX_HEIGHT)
        } else {
            0
        };
        let rest = body_h - runs_h;
        let top_h = (runs_h + (rest / 2).max(18.min(rest * 2 / 3))).min(body_h);
        let left_w = width - detail_w;
        if runs {
            areas.runs = Some(Rect::new(0, body.y, left_w, runs_h));
        }
        areas.tree = Some(Rect::new(0, body.y + runs_h, left_w, top_h - runs_h));
        areas.detail = Some(Rect::new(left_w, body.y, detail_w, top_h));
        areas.table = Some(Rect::new(0, body.y + top_h, width, body_h - top_h));
        return areas;
    }
    if detail_zoomed {
        areas.detail = Some(body);
        return areas;
    }
    let mut lists = body;
    if runs {
        let runs_h = lists
            .height
            .div_ceil(4)
            .clamp(4.min(lists.height), RUNS_MAX_HEIGHT);
        areas.runs = Some(Rect::new(lists.x, lists.y, lists.width, runs_h));
        lists = Rect::new(
            lists.x,
            lists.y + runs_h,
            lists.width,
            lists.height - runs_h,
        );
    }
    let tree_h = (lists.height * 2).div_ceil(5).max(3.min(lists.height));
    areas.tree = Some(Rect::new(lists.x, lists.y, lists.width, tree_h));
    areas.table = Some(Rect::new(
        lists.x,
        lists.y + tree_h,
        lists.width,
        lists.height - tree_h,
    ));
    areas
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MouseAction {
    Click,
    ScrollUp,
    ScrollDown,
}

/// The scroll offset that keeps row `selected` on a page of `page` rows.
pub fn fix_offset(selected: usize, offset: usize, page: usize) -> usize {
    if selected < offset {
        selected
    } else if selected >= offset + page {
        selected + 1 - page
    } else {
        offset
    }
}

/// Rows of content inside a bordered pane.
pub fn inner_rows(area: Option<Rect>) -> usize {
    area.map(|a| a.height.saturating_sub(2) as usize)
        .unwrap_or(0)
}

pub fn contains(area: Rect, x: u16, y: u16) -> bool {
    x >= area.x && x < area.x + area.width && y >= area.y && y < area.y + area.height
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panes_tile_the_body() {
        let a = compute(80, 24, false, false, false);
        assert_eq!(a.header, Rect::new(0, 0, 80, 3));
        assert_eq!(a.footer, Rect::new(0, 23, 80, 1));
        // Body 20 rows: tree 20*2/5 = 8, table 12.
        let (t, o) = (a.tree.unwrap(), a.table.unwrap());
        assert_eq!((t.y, t.height, o.y, o.height), (3, 8, 11, 12));
        assert!(a.detail.is_none());
        let z = compute(80, 24, false, true, false);
        assert_eq!(z.detail, Some(Rect::new(0, 3, 80, 20)));
        // 160x48: body 44 rows; detail 160*3/10 = 48 wide beside the tree, top band
        // 44/2 = 22 rows; the table spans all 160 columns below.
        let w = compute(160, 48, false, false, false);
        assert_eq!(w.detail, Some(Rect::new(112, 3, 48, 22)));
        assert_eq!(w.tree, Some(Rect::new(0, 3, 112, 22)));
        assert_eq!(w.table, Some(Rect::new(0, 25, 160, 22)));
        // The detail grows with the terminal: 230*3/10 = 69.
        assert_eq!(
            compute(230, 60, false, false, false).detail.unwrap().width,
            69
        );
        // 120x40: body 36, top band max(36/2 = 18, min(18, 24)) = 18.
        let m = compute(120, 40, false, false, false);
        assert_eq!(m.detail, Some(Rect::new(76, 3, 44, 18)));
        assert_eq!(m.table, Some(Rect::new(0, 21, 120, 18)));
        // Tiny terminals give empty areas, not panics.
        let tiny = compute(3, 1, false, false, false);
        assert_eq!(tiny.body.height, 0);
        for (w, h) in [(0, 0), (3, 1), (10, 3), (80, 4)] {
            compute(w, h, false, false, true);
        }
    }

    #[test]
    fn watch_mode_adds_runs_and_status() {
        // 80x24: header 3, body 19, status row 22, footer row 23; runs 19/4 = 5 rows
        // (rounded up); lists 14: tree 28/5 = 6 (rounded up), table 8.
        let a = compute(80, 24, false, false, true);
        assert_eq!(a.status, Some(Rect::new(0, 22, 80, 1)));
        assert_eq!(a.footer, Rect::new(0, 23, 80, 1));
        assert_eq!(a.runs, Some(Rect::new(0, 3, 80, 5)));
        let (t, o) = (a.tree.unwrap(), a.table.unwrap());
        assert_eq!((t.y, t.height, o.y, o.height), (8, 6, 14, 8));
        // 160x48: body 43, runs 43/5 = 8 rows above the tree, beside the detail; top
        // band 8 + max(35/2 = 17, min(18, 23)) = 26.
        let w = compute(160, 48, false, false, true);
        assert_eq!(w.runs, Some(Rect::new(0, 3, 112, 8)));
        assert_eq!(w.detail, Some(Rect::new(112, 3, 48, 26)));
        assert_eq!(w.table, Some(Rect::new(0, 29, 160, 17)));
    }
}
