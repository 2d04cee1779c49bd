//! The status of the search of the view on top (log, help, timeline): what the footer
//! shows while the text is typed and while a search is on (`"conv": 2 of 5`).

use super::search::{status, Search};
use super::state::AppState;
use super::view::View;
use crate::views::help::state::help_matches;
use crate::views::log::state::search_rows;

/// The top view's search and its status, if that view searches.
pub fn of_top(state: &AppState) -> Option<(&Search, String)> {
    match state.views.top()? {
        View::Log(l) => {
            let found = match &state.data {
                Some(d) => search_rows(d, &l.search.needle(), state.log_width()),
                None => Vec::new(),
            };
            Some((&l.search, status(l.search.input.value(), &found, l.cursor)))
        }
        View::Help(h) => {
            let found = help_matches(h, state.areas().body);
            Some((&h.search, status(h.search.input.value(), &found, h.scroll)))
        }
        View::Timeline(t) => {
            let found = crate::views::timeline::search::matches(t);
            Some((
                &t.search,
                status(t.search.input.value(), &found, (t.lane, t.bar)),
            ))
        }
        _ => None,
    }
}
