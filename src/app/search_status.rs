//! The status of the search of the view on top (log, help, timeline): what the footer
//! shows while the text is typed and while a search is on (`"conv": 2 of 5`).

use super::search::Search;
use super::state::AppState;

/// The top view's search and its status, if that view searches (`Component::search`).
pub fn of_top(state: &AppState) -> Option<(&Search, String)> {
    let ctx = state.ctx();
    state.views.top()?.search(&ctx)
}
