//! The help view (`?`): a popup over the view it was opened from, listing that view's key
//! table first, then the others (all built from `keymap`'s tables). Plain state (scroll)
//! and the layout shared by rendering and scrolling.

use ratatui::layout::Rect;
use unicode_width::UnicodeWidthStr;

use crate::app::keymap::{help_lines_for, Command, ViewKind};
use crate::app::search::{self, Search};
use crate::app::step::Step;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelpView {
    /// The view below: its keys come first.
    pub over: ViewKind,
    pub scroll: usize,
    /// `/` and `]`/`[`: the rows holding the text (keys or description); the match
    /// found is the top row.
    pub search: Search,
}

impl HelpView {
    pub fn over(kind: ViewKind) -> HelpView {
        HelpView {
            over: kind,
            scroll: 0,
            search: Search::default(),
        }
    }

    /// The help's lines (`keys`, text).
    pub fn lines(&self) -> Vec<(String, String)> {
        help_lines_for(self.over)
    }
}

/// A key in the help. `body`: where it is drawn.
pub fn command(view: &mut HelpView, cmd: Command, body: Rect) -> Vec<Step> {
    use Command::*;
    let max = help_max_scroll(body, view.over);
    // A page: the rows inside the overlay, less one kept for context.
    let page = (help_area(body).height.saturating_sub(2) as usize)
        .saturating_sub(1)
        .max(1);
    match cmd {
        Down => view.scroll = (view.scroll + 1).min(max),
        Up => view.scroll = view.scroll.saturating_sub(1),
        PageDown => view.scroll = (view.scroll + page).min(max),
        PageUp => view.scroll = view.scroll.saturating_sub(page),
        Top => view.scroll = 0,
        Bottom => view.scroll = max,
        StartFilter => view.search.editing = true,
        FilterAccept => view.search.editing = false,
        FilterCancel => view.search.clear(),
        FilterEdit(req) => {
            view.search.edit(req);
            let found = help_matches(view, body);
            if let Some(&at) = found.iter().find(|&&i| i >= view.scroll).or(found.first()) {
                view.scroll = at;
            }
        }
        NextMatch | PrevMatch => {
            if !view.search.is_active() {
                return vec![Step::Notice("no search: / searches the help".into())];
            }
            let found = help_matches(view, body);
            if let Some(at) = search::step(&found, view.scroll, cmd == NextMatch) {
                view.scroll = at;
            }
            return vec![Step::Notice(search::status(
                view.search.input.value(),
                &found,
                view.scroll,
            ))];
        }
        Back if view.search.is_active() => view.search.clear(),
        ToggleHelp | Back => return vec![Step::Pop],
        _ => {}
    }
    Vec::new()
}

/// The help rows (as laid out in `body`) holding the search text, in keys or text.
pub fn help_matches(view: &HelpView, body: Rect) -> Vec<usize> {
    let needle = view.search.needle();
    let width = help_area(body).width.saturating_sub(2) as usize;
    help_rows(view.over, width)
        .iter()
        .enumerate()
        .filter(|(_, (k, t))| search::holds(k, &needle) || search::holds(t, &needle))
        .map(|(i, _)| i)
        .collect()
}

/// Cells of the keys column in the help overlay.
pub const HELP_KEY_W: usize = 16;

/// The help overlay: the body itself on screens narrower than two help columns, else
/// centred; its border is part of the area.
pub fn help_area(body: Rect) -> Rect {
    let w = body.width.min(96);
    Rect::new(body.x + (body.width - w) / 2, body.y, w, body.height)
}

/// The help text laid out `width` cells wide: `(keys, text)` rows, descriptions wrapped
/// under themselves, key lists too long for their column on a row of their own.
pub fn help_rows(over: ViewKind, width: usize) -> Vec<(String, String)> {
    let text_w = width.saturating_sub(HELP_KEY_W + 1).max(10);
    let mut out = Vec::new();
    for (keys, what) in help_lines_for(over) {
        if keys.is_empty() {
            out.push((keys, what));
            continue;
        }
        let mut keys = keys;
        if keys.width() > HELP_KEY_W {
            out.push((keys, String::new()));
            keys = " ".into();
        }
        for (i, line) in crate::app::format::wrap(&what, text_w)
            .into_iter()
            .enumerate()
        {
            out.push((if i == 0 { keys.clone() } else { " ".into() }, line));
        }
    }
    out
}

/// The furthest the help can scroll in `body`: its last row at the bottom.
pub fn help_max_scroll(body: Rect, over: ViewKind) -> usize {
    let area = help_area(body);
    let rows = area.height.saturating_sub(2) as usize;
    help_rows(over, area.width.saturating_sub(2) as usize)
        .len()
        .saturating_sub(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_wraps_and_scrolls_no_further_than_its_end() {
        let rows = help_rows(ViewKind::Explorer, 78);
        // Every description word is there, nothing is longer than the area.
        for (k, t) in &rows {
            let n = if k.width() > HELP_KEY_W {
                k.width()
            } else {
                HELP_KEY_W + 1 + t.width()
            };
            assert!(n <= 78, "{k} {t}");
        }
        // 80x24: body 21 rows, help inside 19 rows.
        let body = Rect::new(0, 2, 80, 21);
        assert_eq!(help_max_scroll(body, ViewKind::Explorer), rows.len() - 19);
        // A tall screen holds all of it: no scrolling.
        assert_eq!(
            help_max_scroll(Rect::new(0, 2, 230, 500), ViewKind::Explorer),
            0
        );
        let mut v = HelpView::over(ViewKind::Explorer);
        command(&mut v, Command::Bottom, body);
        assert_eq!(v.scroll, rows.len() - 19);
        command(&mut v, Command::Down, body);
        assert_eq!(v.scroll, rows.len() - 19, "no further than the end");
        // A page is the overlay's 19 rows less one; up again to the top.
        command(&mut v, Command::Top, body);
        command(&mut v, Command::PageDown, body);
        assert_eq!(v.scroll, 18.min(rows.len() - 19));
        command(&mut v, Command::PageUp, body);
        assert_eq!(v.scroll, 0);
        assert_eq!(command(&mut v, Command::Back, body), vec![Step::Pop]);
    }
}
