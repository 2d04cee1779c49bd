//! Issue #47, search everywhere: `/` then `]`/`[` in the log, the help and the timeline,
//! with the status line saying `k of n` or `no match`; the log view's cursor selects the
//! finding `r` reveals and `c` copies (not the one at the top of the scroll).

use crate::support::explorer;

use cpuprof_tui::app::{AppState, Effect};
use explorer::{key, keys, opened, press, screen};
use ratatui::crossterm::event::KeyCode;

const THAPI: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/thapi/babeltrace2_pretty_clock_seconds.txt"
);

fn thapi_log() -> AppState {
    let mut s = opened(THAPI, 0, (120, 40));
    press(&mut s, 'w');
    assert!(s.log_open());
    s
}

fn cursor(s: &AppState) -> usize {
    s.views.log().unwrap().cursor
}

/// The second finding of the THAPI trace is about its line 7, the exit of
/// `aten::orphan_exit` on thread 9855 with no entry (the fixture's line 7 says so).
#[test]
fn c_and_r_act_on_the_selected_finding() {
    let line7 = std::fs::read_to_string(THAPI)
        .unwrap()
        .lines()
        .nth(6)
        .unwrap()
        .to_string();
    assert!(line7.contains("op_exit") && line7.contains("aten::orphan_exit"));
    let mut s = thapi_log();
    // The cursor starts on the first finding; j selects the second.
    press(&mut s, 'j');
    let effects = press(&mut s, 'c');
    let [Effect::Copy(text)] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert!(
        text.starts_with("orphan_exit: line 7: exit of aten::orphan_exit without an entry"),
        "{text}"
    );
    // The screen marks the second finding, not the first.
    let text = screen(&s);
    assert!(text.contains("│▌warn  orphan_exit: line 7"), "{text}");
    assert!(text.contains("│ ERROR failed_calls"), "{text}");
    // r: that finding names no node of the tree (it did not fall back on the first).
    press(&mut s, 'r');
    assert!(s.log_open());
    assert_eq!(
        s.session.notice.as_deref(),
        Some("this finding names no node of the tree")
    );
    // k back to the first, on the heading: nothing selected.
    press(&mut s, 'k');
    press(&mut s, 'k');
    assert_eq!(cursor(&s), 0);
    press(&mut s, 'r');
    assert_eq!(
        s.session.notice.as_deref(),
        Some("r: no finding selected (j/k select one)")
    );
}

/// Five `name_mismatch` findings are listed and the rest folded into one more line
/// (`3 more warnings of this kind`): six rows hold the word.
#[test]
fn log_search_steps_through_matches() {
    let mut s = thapi_log();
    press(&mut s, '/');
    keys(&mut s, "name_mismatch");
    assert!(screen(&s).contains("search /name_mismatch"));
    key(&mut s, KeyCode::Enter);
    let first = cursor(&s);
    press(&mut s, ']');
    assert_eq!(
        s.session.notice.as_deref(),
        Some("\"name_mismatch\": 2 of 6")
    );
    assert!(cursor(&s) > first);
    press(&mut s, '[');
    assert_eq!(
        s.session.notice.as_deref(),
        Some("\"name_mismatch\": 1 of 6")
    );
    assert_eq!(cursor(&s), first);
    press(&mut s, '[');
    assert_eq!(
        s.session.notice.as_deref(),
        Some("\"name_mismatch\": 6 of 6"),
        "wraps"
    );
    // The status stays in the footer after the notice is gone.
    press(&mut s, 'j');
    assert!(screen(&s).contains("\"name_mismatch\":"), "{}", screen(&s));
    // Esc clears the search first, then leaves the log.
    key(&mut s, KeyCode::Esc);
    assert!(s.log_open());
    assert!(!s.views.log().unwrap().search.is_active());
    press(&mut s, '/');
    keys(&mut s, "zzzz");
    key(&mut s, KeyCode::Enter);
    press(&mut s, ']');
    assert_eq!(s.session.notice.as_deref(), Some("\"zzzz\": no match"));
    key(&mut s, KeyCode::Esc);
    key(&mut s, KeyCode::Esc);
    assert!(!s.log_open());
}

/// The help: the rows holding `timeline`, the match found at the top.
#[test]
fn help_search() {
    let mut s = opened(THAPI, 0, (120, 40));
    press(&mut s, '?');
    press(&mut s, '/');
    keys(&mut s, "timeline");
    key(&mut s, KeyCode::Enter);
    press(&mut s, ']');
    let notice = s.session.notice.clone().unwrap();
    assert!(notice.starts_with("\"timeline\": 2 of "), "{notice}");
    let h = s.views.help().expect("help open");
    let body = s.areas().body;
    let width = cpuprof_tui::views::help::state::help_area(body).width as usize - 2;
    let rows = cpuprof_tui::views::help::state::help_rows(h.over, width);
    let (k, t) = &rows[h.scroll];
    assert!(
        format!("{k} {t}").to_lowercase().contains("timeline"),
        "{k} {t}"
    );
    key(&mut s, KeyCode::Esc);
    assert!(s.help_open(), "Esc cleared the search");
    key(&mut s, KeyCode::Esc);
    assert!(!s.help_open());
}

/// The timeline of cnn2_basic's median run: four convolution operators (IGEMM #1-#3 of
/// delegate 0, #1 of delegate 2; the generator's truth file lists them), the only bars
/// whose name holds `convolution`.
#[test]
fn timeline_search() {
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/cpu/cnn2_basic.truth.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let convs = truth["delegates"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| d["steps"].as_array().unwrap())
        .flat_map(|s| s["operators"].as_array().unwrap())
        .filter(|o| o["event"].as_str().unwrap().starts_with("Convolution"))
        .count();
    assert_eq!(convs, 4);
    let mut s = opened(
        concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/cpu/cnn2_basic.etdp"),
        3,
        (160, 48),
    );
    explorer::timeline(&mut s);
    press(&mut s, '/');
    keys(&mut s, "convolution");
    key(&mut s, KeyCode::Enter);
    let mut seen = Vec::new();
    for k in 1..=convs {
        press(&mut s, ']');
        let t = s.views.timeline().unwrap();
        let name = cpuprof_tui::views::timeline::search::bar_name(
            t.source.as_deref().unwrap(),
            t,
            t.selected().unwrap(),
        );
        assert!(name.starts_with("Convolution"), "{name}");
        let notice = s.session.notice.clone().unwrap();
        assert!(notice.ends_with(&format!(" of {convs}")), "{notice}");
        seen.push((t.lane, t.bar));
        let _ = k;
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), convs, "] visits every match once");
    press(&mut s, '/');
    keys(&mut s, "zz");
    key(&mut s, KeyCode::Enter);
    press(&mut s, '[');
    assert_eq!(
        s.session.notice.as_deref(),
        Some("\"convolutionzz\": no match")
    );
}
