//! Issue #47: Esc clears the filter from any pane (the tree's included), then goes back
//! exactly one level: a type's instances to the types list, the types list to the
//! operators, and only then (over the fleet) out of the explorer.

use crate::support::explorer;
use crate::support::explorer::ExplorerOf;

use cpuprof_tui::app::{AppState, Pane, ViewKind};
use explorer::{key, keys, opened, press};
use ratatui::crossterm::event::KeyCode;

const DUMP: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/cpu/cnn2_basic.etdp");
const TRUTH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/cpu/cnn2_basic.truth.json"
);

/// The convolution operators of the dump, by the generator's truth file.
fn convolutions() -> usize {
    let t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(TRUTH).unwrap()).unwrap();
    t["delegates"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| d["steps"].as_array().unwrap())
        .flat_map(|s| s["operators"].as_array().unwrap())
        .filter(|o| o["event"].as_str().unwrap().starts_with("Convolution"))
        .count()
}

fn open() -> AppState {
    let s = opened(DUMP, 3, (160, 48));
    assert!(s.session.data.is_some());
    s
}

#[test]
fn esc_clears_the_filter_from_the_tree() {
    let mut s = open();
    let all = s.explorer().table.rows.len();
    press(&mut s, '/');
    keys(&mut s, "convolution");
    key(&mut s, KeyCode::Enter);
    assert_eq!(s.explorer().table.rows.len(), convolutions());
    key(&mut s, KeyCode::BackTab);
    assert_eq!(s.explorer().focus, Pane::Tree);
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.explorer().table.filter.value(), "");
    assert_eq!(s.explorer().table.rows.len(), all);
    assert_eq!(s.explorer().focus, Pane::Tree);
}

/// The explorer over another view (as the fleet's Enter pushes it): Esc undoes the
/// explorer's levels one by one, and leaves it only when nothing is left.
#[test]
fn esc_goes_back_one_level_at_a_time() {
    let mut s = open();
    let mut over = s.explorer().clone();
    over.over = true;
    s.views.push(Box::new(over));
    let types = s.session.data.as_ref().unwrap().groups.len();
    assert!(types > 1);
    // o: the types list; Enter: the instances of the first type.
    press(&mut s, 'o');
    assert!(s.explorer().table.grouped);
    assert_eq!(s.explorer().table.rows.len(), types);
    key(&mut s, KeyCode::Enter);
    assert!(!s.explorer().table.grouped);
    // Esc: back to the types list, not to every operator.
    key(&mut s, KeyCode::Esc);
    assert!(s.explorer().table.grouped);
    assert_eq!(s.explorer().table.rows.len(), types);
    assert_eq!(s.explorer().table.filter.value(), "");
    assert_eq!(s.explorer().focus, Pane::Table);
    // Esc: the table to the tree; the types list stays.
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.explorer().focus, Pane::Tree);
    assert!(s.explorer().table.grouped);
    assert_eq!(s.views.top_kind(), Some(ViewKind::Explorer));
    // Esc: the types list to the operators, still in the explorer.
    key(&mut s, KeyCode::Esc);
    assert!(!s.explorer().table.grouped);
    assert_eq!(s.views.top_kind(), Some(ViewKind::Explorer));
    // A filter typed, the tree focused: Esc clears it and stays.
    press(&mut s, '/');
    keys(&mut s, "conv");
    key(&mut s, KeyCode::Enter);
    key(&mut s, KeyCode::BackTab);
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.explorer().table.filter.value(), "");
    assert_eq!(s.views.top_kind(), Some(ViewKind::Explorer));
    // Nothing left: Esc leaves the explorer, one level (to the view below it).
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.views.kinds(), [ViewKind::Explorer]);
}

/// Over the log (pushed over the explorer), Esc pops the log only.
#[test]
fn esc_pops_one_view() {
    let mut s = open();
    press(&mut s, 'w');
    press(&mut s, '?');
    assert_eq!(s.views.len(), 3);
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.views.top_kind(), Some(ViewKind::Log));
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.views.kinds(), [ViewKind::Explorer]);
    key(&mut s, KeyCode::Esc);
    assert!(s.session.data.is_some() && !s.quit);
}
