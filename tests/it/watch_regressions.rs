//! Watch mode reports regressions where they are: each run's row counts the rows
//! significantly slower and faster than its baseline and names the largest change. Checked
//! on the generated A/B pairs of fixtures/compare (README there): `cnn2_slow_b` has
//! `Convolution (NHWC, F32) IGEMM #3` 1.5× and `native_call_neg.out` 1.4× slower and
//! `native_call_pixel_shuffle.out` 0.6× (faster) than `cnn2_a` (truth file `faults.slow`),
//! their ancestors grow by the same absolute amount, nothing else changed; `cnn2_null_b`
//! has no change at all. Also: a dump that completes replaces its own error row, and the
//! warm-up keys refresh the kept-run counts.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use cpuprof_tui::app::runs::RowChanges;
use cpuprof_tui::app::{update, Action, AppState, Effect, ExplorerData};
use cpuprof_tui::profile::load_profile;
use cpuprof_tui::ui::{self, Theme};
use cpuprof_tui::watch::{DumpPair, WatchEvent};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::support::render;

/// Relative to the crate root (the tests' working directory): the status line and the
/// header name it, and a snapshot must not depend on where the checkout lies.
const DIR: &str = "fixtures/compare";

fn at(secs: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(36_000 + secs)
}

fn path(stem: &str) -> PathBuf {
    PathBuf::from(format!("{DIR}/{stem}.etdp"))
}

/// Announce `stem` (with its log) at `secs`.
fn ready(s: &mut AppState, stem: &str, secs: u64) -> Vec<Effect> {
    let etdump = path(stem);
    let event = WatchEvent::Ready(DumpPair {
        log: Some(etdump.with_extension("log")),
        etdump,
        modified: at(secs),
        size: 1,
    });
    update(
        s,
        Action::Watch {
            event,
            at: at(secs),
        },
    )
}

/// Answer every load with the real pipeline until none is asked for.
fn settle(s: &mut AppState, mut effects: Vec<Effect>) {
    while let Some(Effect::Load {
        request,
        generation,
    }) = effects
        .iter()
        .find(|e| matches!(e, Effect::Load { .. }))
        .cloned()
    {
        let result = load_profile(&request, &mut |_| {}, &AtomicBool::new(false))
            .map(|p| Box::new(ExplorerData::from_profile(&p)))
            .map_err(|e| e.to_string());
        effects = update(s, Action::Loaded { generation, result });
    }
}

/// Watching with 3 warm-up runs (the pairs' stated count): `a` first, then `b`.
fn pair(a: &str, b: &str, (w, h): (u16, u16)) -> AppState {
    let mut s = AppState::new(w, h);
    s.start_watch(DIR, 3);
    let e = ready(&mut s, a, 0);
    settle(&mut s, e);
    let e = ready(&mut s, b, 10);
    settle(&mut s, e);
    s
}

fn newest_changes(s: &AppState) -> RowChanges {
    let w = s.session.watch.as_ref().unwrap();
    assert!(w.entries[0].etdump.ends_with("cnn2_slow_b.etdp") || w.entries.len() == 2);
    w.entries[0]
        .row_changes
        .as_ref()
        .expect("the newest run has a baseline")
        .changes
        .clone()
}

fn screen(s: &AppState) -> String {
    render::frame_text(s.session.width, s.session.height, |f| {
        ui::draw(f, s, &Theme::plain())
    })
}

#[test]
fn injected_slowdowns_are_counted_and_the_worst_is_named() {
    let s = pair("cnn2_a", "cnn2_slow_b", (160, 48));
    let c = newest_changes(&s);
    // Slower: the two injected rows, and at most their 4 growing ancestors
    // (ET/registry:neg, XNNPACK/subgraph:conv_3+2, delegate #0, Method::execute).
    assert!((2..=6).contains(&c.slower), "{c:?}");
    // Faster: pixel_shuffle (the instruction and its kernel event); its only ancestor is
    // the method, which also holds the slowdowns.
    assert!((1..=2).contains(&c.faster), "{c:?}");
    let (name, d) = c.worst.clone().unwrap();
    assert!(
        name == "Convolution (NHWC, F32) IGEMM #3" || name == "native_call_neg.out",
        "{c:?}"
    );
    // Injected 1.5× and 1.4×: the largest measured change lies well above 30%.
    assert!((30.0..80.0).contains(&d), "{c:?}");
    let text = screen(&s);
    let row = text
        .lines()
        .find(|l| l.contains("10:00:10  cnn2_slow_b.etdp"))
        .unwrap();
    assert!(
        row.contains(&format!("▲{} ▼{} worst", c.slower, c.faster)),
        "{text}"
    );
    // The baseline itself has none.
    let w = s.session.watch.as_ref().unwrap();
    assert!(w.entries[1].row_changes.is_none());
}

#[test]
fn no_change_counts_nothing() {
    let s = pair("cnn2_a", "cnn2_null_b", (160, 48));
    let c = newest_changes(&s);
    assert_eq!((c.slower, c.faster, c.worst.clone()), (0, 0, None), "{c:?}");
    assert_eq!(c.label(), "▲0 ▼0");
}

#[test]
fn labels_read_at_a_glance() {
    let c = RowChanges {
        slower: 5,
        faster: 0,
        worst: Some(("native_call_cumsum.out".into(), 54.2)),
    };
    assert_eq!(c.label(), "▲5 ▼0 worst cumsum +54%");
    let c = RowChanges {
        slower: 0,
        faster: 2,
        worst: Some(("ET/registry:pixel_shuffle".into(), -38.24)),
    };
    assert_eq!(c.label(), "▲0 ▼2 best pixel_shuffle -38%");
    let c = RowChanges {
        slower: 1,
        faster: 0,
        worst: Some(("Convolution (NHWC, F32) IGEMM #3".into(), 7.46)),
    };
    assert_eq!(
        c.label(),
        "▲1 ▼0 worst Convolution (NHWC, F32) IGEMM #3 +7.5%"
    );
}

#[test]
fn a_completed_dump_replaces_its_incomplete_row() {
    let mut s = AppState::new(120, 40);
    s.start_watch(DIR, 3);
    let e = ready(&mut s, "cnn2_a", 0);
    settle(&mut s, e);
    let p = path("cnn2_slow_b");
    let event = WatchEvent::Error {
        path: p.clone(),
        message: "incomplete ETDump: size prefix says 67228 bytes follow, only 100 present, \
                  unchanged for 10 s (did the writer stop?)"
            .into(),
        modified: None,
    };
    update(&mut s, Action::Watch { event, at: at(5) });
    assert_eq!(s.session.watch.as_ref().unwrap().errors(), 1);
    assert!(screen(&s).contains("incomplete ETDump"));
    let e = ready(&mut s, "cnn2_slow_b", 10);
    settle(&mut s, e);
    let w = s.session.watch.as_ref().unwrap();
    assert_eq!(w.errors(), 0, "the error went with its row");
    assert_eq!(
        w.entries
            .iter()
            .filter(|e| e.etdump == Path::new(&p))
            .count(),
        1
    );
    let text = screen(&s);
    assert!(!text.contains("incomplete ETDump"), "{text}");
    assert!(text.contains("0 errors"), "{text}");
}

#[test]
fn warmup_keys_refresh_the_run_counts() {
    // 23 runs each; 3 warm-up keep 20, `+` 4 keeps 19, `-` twice 2 keeps 21.
    let mut s = pair("cnn2_a", "cnn2_slow_b", (160, 48));
    let kept = |s: &AppState| -> Vec<Option<usize>> {
        let w = s.session.watch.as_ref().unwrap();
        w.entries
            .iter()
            .map(|e| e.facts.and_then(|f| f.runs_kept))
            .collect()
    };
    assert_eq!(kept(&s), [Some(20), Some(20)]);
    assert!(screen(&s).contains("20/23 runs"));
    let key = |s: &mut AppState, c: char| {
        update(
            s,
            Action::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
        )
    };
    let e = key(&mut s, '+');
    settle(&mut s, e);
    assert_eq!(kept(&s), [Some(19), Some(19)]);
    let text = screen(&s);
    assert!(
        text.contains("19/23 runs") && !text.contains("20/23"),
        "{text}"
    );
    for _ in 0..2 {
        let e = key(&mut s, '-');
        settle(&mut s, e);
    }
    assert_eq!(kept(&s), [Some(21), Some(21)]);
    // The counts of changed rows follow the reload (still the injected slowdowns).
    assert!(newest_changes(&s).slower >= 2);
}

#[test]
fn regression_row_snapshots() {
    for size in [(80, 24), (120, 40), (160, 48), (230, 60)] {
        let s = pair("cnn2_a", "cnn2_slow_b", size);
        let text = screen(&s);
        let row = text
            .lines()
            .find(|l| l.contains("10:00:10  cnn2_slow_b"))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(row.contains("▲"), "{text}");
        insta::assert_snapshot!(format!("watch_regression_row_{}x{}", size.0, size.1), text);
    }
}
