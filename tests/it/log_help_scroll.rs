//! Scrolling everywhere (#22): the warnings & log view scrolls long raw log lines sideways
//! (`l`/`→`, `h`/`←`) and `G` shows its last page; help pages with `PgDn`/`PgUp`/`Space`
//! and `g`/`G`. On wide_browse (fixtures/cpu), whose runner log has 275 lines, the longest
//! 232 characters (a `CPU_PLAN_CHUNK` line), the last `… ETDump written to file
//! 'wide_browse.etdp'.`.

use cpuprof_tui::app::{AppState, ViewKind};
use cpuprof_tui::profile::ProfileRequest;
use cpuprof_tui::views::help::state::help_max_scroll;
use ratatui::crossterm::event::KeyCode;

use crate::support::explorer;
use explorer::{key as press, screen};

const LAST: &str =
    "I 00:00:00.059338 executorch:runner.cpp:301] ETDump written to file 'wide_browse.etdp'.";

fn opened(size: (u16, u16)) -> AppState {
    let request = ProfileRequest::new(
        "fixtures/cpu/wide_browse.etdp".into(),
        Some("fixtures/cpu/wide_browse.log".into()),
        5,
    );
    explorer::opened_request(request, size)
}

/// The rows inside the log pane (between its borders).
fn pane_rows(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| !l.contains("Warnings & runner log"))
        .skip(1)
        .take_while(|l| !l.starts_with('└'))
        .collect()
}

/// The pane row is raw line 275 showing `line` from its start (as much as fits).
fn shows(row: &str, line: &str) -> bool {
    let inside = row.trim_matches('│');
    let Some(rest) = inside.strip_prefix("275 ") else {
        return false;
    };
    !rest.trim_end().is_empty() && line.starts_with(rest.trim_end())
}

#[test]
fn g_shows_the_last_page_and_long_lines_scroll_sideways() {
    for size in [(80, 24), (120, 40)] {
        let mut s = opened(size);
        assert_eq!(s.session.data.as_ref().unwrap().log.len(), 275);
        press(&mut s, KeyCode::Char('w'));
        press(&mut s, KeyCode::Char('G'));
        let text = screen(&s);
        let rows = pane_rows(&text);
        // The last line at the bottom of a full pane.
        assert!(shows(rows.last().unwrap(), LAST), "{text}");
        assert!(
            rows.iter().all(|r| r.trim_matches('│').trim() != ""),
            "{text}"
        );
        // → moves the raw lines 8 cells: the last one now starts at its 9th character.
        press(&mut s, KeyCode::Right);
        let text = screen(&s);
        let rows = pane_rows(&text);
        let shifted: String = LAST.chars().skip(8).collect();
        assert!(shows(rows.last().unwrap(), &shifted), "{text}");
        assert!(!text.contains("I 00:00:00.059338"), "{text}");
        // As far as the longest line (232) reaches: its end at the right edge.
        for _ in 0..60 {
            press(&mut s, KeyCode::Char('l'));
        }
        let inside = s.log_width();
        assert_eq!(s.log_hscroll(), 232 - (inside - 4));
        press(&mut s, KeyCode::Left);
        assert_eq!(s.log_hscroll(), 232 - (inside - 4) - 8);
        for _ in 0..60 {
            press(&mut s, KeyCode::Char('h'));
        }
        assert_eq!(s.log_hscroll(), 0);
        assert!(screen(&s).contains("275 I 00:00:00.059338"));
    }
}

#[test]
fn help_pages_with_space_and_goes_to_both_ends() {
    let mut s = opened((80, 24));
    press(&mut s, KeyCode::Char('?'));
    let body = s.areas().body;
    let max = help_max_scroll(body, ViewKind::Explorer);
    // 80x24: the overlay is the body (24 - a 3-row header - a footer = 20 rows), 18
    // inside; a page is 17 (one kept).
    assert_eq!(body.height, 20);
    assert!(max > 40, "{max}");
    let scroll = |s: &AppState| s.views.help().unwrap().scroll;
    press(&mut s, KeyCode::Char(' '));
    assert_eq!(scroll(&s), 17);
    press(&mut s, KeyCode::PageDown);
    assert_eq!(scroll(&s), 34);
    press(&mut s, KeyCode::PageUp);
    assert_eq!(scroll(&s), 17);
    press(&mut s, KeyCode::Char('G'));
    assert_eq!(scroll(&s), max);
    assert!(!screen(&s).contains("more below"));
    press(&mut s, KeyCode::Char(' '));
    assert_eq!(scroll(&s), max, "no further than the end");
    press(&mut s, KeyCode::Char('g'));
    assert_eq!(scroll(&s), 0);
    assert!(screen(&s).contains("more below"));
}
