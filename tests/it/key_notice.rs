//! Issue #47: a key that does nothing in the view on screen says so in the status line
//! (one line, no dialog): a key of another view's table is "not available" here.

use crate::support::explorer;

use cpuprof_tui::app::AppState;
use cpuprof_tui::report::compare::load_both;
use cpuprof_tui::views::compare::state::CompareView;
use explorer::{key, opened, press, screen};
use ratatui::crossterm::event::KeyCode;

const DUMP: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/cpu/cnn2_basic.etdp");

#[test]
fn unbound_keys_say_so() {
    let mut s = opened(DUMP, 3, (120, 40));
    press(&mut s, 'w');
    // f (the flame graph) is the explorer's, not the log's.
    press(&mut s, 'f');
    assert_eq!(
        s.session.notice.as_deref(),
        Some("f: not available in the log view")
    );
    assert!(s.log_open(), "nothing else happened");
    assert!(screen(&s).contains("f: not available in the log view"));
    // The next key clears it.
    press(&mut s, 'j');
    assert_eq!(s.session.notice, None);
    // A character no view binds.
    press(&mut s, 'y');
    assert_eq!(
        s.session.notice.as_deref(),
        Some("y: not a key of the log view (? lists them)")
    );
    key(&mut s, KeyCode::Esc);
    // In the explorer, s sorts (no notice); the timeline has no sort.
    explorer::timeline(&mut s);
    press(&mut s, 's');
    assert_eq!(
        s.session.notice.as_deref(),
        Some("s: not available in the timeline")
    );
    key(&mut s, KeyCode::Esc);
    // Run keys need a watched folder.
    press(&mut s, 'n');
    assert_eq!(
        s.session.notice.as_deref(),
        Some("n, p, N: runs of a watched folder (--watch) only")
    );
    // While a filter is typed, characters are text: no notice.
    press(&mut s, '/');
    press(&mut s, 'y');
    assert_eq!(s.session.notice, None);
}

#[test]
fn compare_view_shows_the_notice() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/compare");
    let (f, b) = load_both(&explorer::compare_args(
        format!("{dir}/cnn2_a.etdp"),
        format!("{dir}/cnn2_slow_b.etdp"),
        3,
    ))
    .unwrap();
    let mut s = AppState::for_compare(CompareView::new(f, b), 120, 40);
    press(&mut s, 't');
    assert_eq!(
        s.session.notice.as_deref(),
        Some("t: not available in the compare view")
    );
    assert!(screen(&s).contains("t: not available in the compare view"));
}
