//! Pure `update` tests over the hand-built sample profile (`app::sample`), whose names
//! and numbers are listed in its doc comment; expected values are worked out by hand.

use crate::support::explorer::ExplorerOf;
use cpuprof_testkit::sample;
use cpuprof_tui::app::{update, Action, AppState, Column, Effect, ExplorerData, Pane, ViewKind};
use cpuprof_tui::profile::ProfileRequest;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn key(state: &mut AppState, code: KeyCode) -> Vec<Effect> {
    update(state, Action::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn chars(state: &mut AppState, s: &str) {
    for c in s.chars() {
        key(state, KeyCode::Char(c));
    }
}

fn loaded(w: u16, h: u16, warmup: usize) -> AppState {
    let mut s = AppState::new(w, h);
    let effects = s.load(ProfileRequest::new("sample.etdp".into(), None, warmup));
    let generation = match &effects[..] {
        [Effect::Load { generation, .. }] => *generation,
        other => panic!("expected one load, got {other:?}"),
    };
    update(
        &mut s,
        Action::Loaded {
            generation,
            result: Ok(Box::new(ExplorerData::from_profile(&sample::profile()))),
        },
    );
    s
}

fn tree_names(s: &AppState) -> Vec<String> {
    let d = s.session.data.as_ref().unwrap();
    s.explorer()
        .tree
        .visible
        .iter()
        .map(|&i| d.nodes[i].name.clone())
        .collect()
}

fn table_names(s: &AppState) -> Vec<String> {
    let d = s.session.data.as_ref().unwrap();
    s.explorer()
        .table
        .rows
        .iter()
        .map(|&i| s.table_ops(d)[i].name.clone())
        .collect()
}

#[test]
fn first_load_opens_method_and_delegates() {
    let s = loaded(80, 24, 2);
    assert!(s.session.loading.is_none());
    assert_eq!(
        tree_names(&s),
        [
            "Method::execute",
            "delegate #1",
            "XNNPACK/subgraph:conv2d+2",
            "ET/registry:cumsum",
            "(overhead)",
            "delegate #4",
            "Fully Connected (NC, F32) GEMM #1",
            "Add (ND, F32) #1",
            "(overhead)",
            "aten::mean",
            "(remainder)",
        ]
    );
    // Default sort: median, largest first (0.22, 0.20, 0.15, 0.10, 0.05, 0.03, 0.01).
    assert_eq!(
        table_names(&s),
        [
            "Convolution (NHWC, F32) IGEMM #2",
            "Convolution (NHWC, F32) IGEMM #1",
            "Fully Connected (NC, F32) GEMM #1",
            "native_call_cumsum.out",
            "Clamp (NC, F32) #1",
            "native_call_mean.dtype_out",
            "Add (ND, F32) #1",
        ]
    );
}

#[test]
fn navigation_moves_and_clamps() {
    let mut s = loaded(80, 24, 2);
    key(&mut s, KeyCode::Char('k'));
    assert_eq!(s.explorer().tree.selected, 0);
    key(&mut s, KeyCode::Char('j'));
    key(&mut s, KeyCode::Down);
    assert_eq!(s.explorer().tree.selected, 2);
    key(&mut s, KeyCode::Up);
    assert_eq!(s.explorer().tree.selected, 1);
    // 11 rows (the first-load list above): the last is 10.
    key(&mut s, KeyCode::Char('G'));
    assert_eq!(s.explorer().tree.selected, 10);
    key(&mut s, KeyCode::Char('g'));
    assert_eq!(s.explorer().tree.selected, 0);
    // 80x24: the tree pane is 8 rows: 6 inside the border, 5 below the column titles.
    key(&mut s, KeyCode::PageDown);
    assert_eq!(s.explorer().tree.selected, 5);
    key(&mut s, KeyCode::PageDown);
    assert_eq!(s.explorer().tree.selected, 10);
    // Offset keeps the selection visible: rows 6..=10 shown.
    assert_eq!(s.explorer().tree.offset, 6);
    key(&mut s, KeyCode::PageUp);
    assert_eq!(s.explorer().tree.selected, 5);
    assert_eq!(s.explorer().tree.offset, 5);
    // Tab cycles panes; navigation then moves the table.
    key(&mut s, KeyCode::Tab);
    assert_eq!(s.explorer().focus, Pane::Table);
    key(&mut s, KeyCode::Char('G'));
    assert_eq!(s.explorer().table.selected, 6);
    key(&mut s, KeyCode::Tab);
    assert_eq!(s.explorer().focus, Pane::Detail);
    key(&mut s, KeyCode::Tab);
    assert_eq!(s.explorer().focus, Pane::Tree);
    key(&mut s, KeyCode::BackTab);
    assert_eq!(s.explorer().focus, Pane::Detail);
}

#[test]
fn sort_cycles_columns_and_reverses() {
    let mut s = loaded(80, 24, 2);
    assert_eq!(
        (s.explorer().table.sort, s.explorer().table.descending),
        (Column::Median, true)
    );
    key(&mut s, KeyCode::Char('s'));
    assert_eq!(
        (s.explorer().table.sort, s.explorer().table.descending),
        (Column::Min, true)
    );
    key(&mut s, KeyCode::Char('S'));
    assert!(!s.explorer().table.descending);
    // Min ascending: smallest first (min = base * 0.9).
    assert_eq!(table_names(&s)[0], "Add (ND, F32) #1");
    assert_eq!(table_names(&s)[6], "Convolution (NHWC, F32) IGEMM #2");
    for _ in 0..10 {
        key(&mut s, KeyCode::Char('s'));
    }
    // Min -> Max -> P90 -> Share -> ShareMethod -> GFLOP/s -> GB/s -> Inputs -> Outputs
    // -> Name -> Delegate
    assert_eq!(s.explorer().table.sort, Column::Delegate);
    key(&mut s, KeyCode::Char('s'));
    key(&mut s, KeyCode::Char('s'));
    assert_eq!(s.explorer().table.sort, Column::Count);
}

#[test]
fn filter_narrows_live_with_hand_counted_matches() {
    let mut s = loaded(80, 24, 2);
    key(&mut s, KeyCode::Char('/'));
    assert_eq!(s.mode(), ViewKind::Filter);
    chars(&mut s, "conv");
    // "Convolution ... IGEMM #1" and "#2".
    assert_eq!(s.explorer().table.rows.len(), 2);
    key(&mut s, KeyCode::Backspace);
    key(&mut s, KeyCode::Backspace);
    key(&mut s, KeyCode::Backspace);
    key(&mut s, KeyCode::Backspace);
    assert_eq!(s.explorer().table.rows.len(), 7);
    // Case-insensitive: Clamp (NC, F32) and Fully Connected (NC, F32).
    chars(&mut s, "NC, f32");
    assert_eq!(s.explorer().table.rows.len(), 2);
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.mode(), ViewKind::Explorer);
    assert_eq!(s.explorer().table.rows.len(), 7);
    // IGEMM #1, IGEMM #2, GEMM #1; q is text while typing.
    key(&mut s, KeyCode::Char('/'));
    chars(&mut s, "gemm");
    assert_eq!(s.explorer().table.rows.len(), 3);
    key(&mut s, KeyCode::Enter);
    assert_eq!(s.mode(), ViewKind::Explorer);
    assert_eq!(s.explorer().table.filter.value(), "gemm");
    assert_eq!(s.explorer().table.rows.len(), 3);
    key(&mut s, KeyCode::Char('/'));
    chars(&mut s, "q");
    assert!(!s.quit);
    assert_eq!(s.explorer().table.rows.len(), 0);
    key(&mut s, KeyCode::Enter);
    // Esc in the table clears the filter.
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.explorer().table.rows.len(), 7);
}

#[test]
fn warmup_change_reloads_within_bounds() {
    let mut s = loaded(80, 24, 2);
    let effects = key(&mut s, KeyCode::Char('+'));
    match &effects[..] {
        [Effect::Load {
            request,
            generation,
        }] => {
            assert_eq!(request.warmup, 3);
            assert_eq!(*generation, 2);
        }
        other => panic!("{other:?}"),
    }
    assert!(s.session.loading.is_some());
    let mut s = loaded(80, 24, 2);
    let effects = key(&mut s, KeyCode::Char('-'));
    assert!(matches!(&effects[..], [Effect::Load { request, .. }] if request.warmup == 1));
    // Never below 0.
    let mut s = loaded(80, 24, 0);
    assert!(key(&mut s, KeyCode::Char('-')).is_empty());
    // 8 runs: at most 7 dropped.
    let mut s = loaded(80, 24, 7);
    assert!(key(&mut s, KeyCode::Char('+')).is_empty());
    let mut s = loaded(80, 24, 6);
    assert!(
        matches!(&key(&mut s, KeyCode::Char('+'))[..], [Effect::Load { request, .. }] if request.warmup == 7)
    );
}

/// A warm-up change says what moved; a key that cannot change it says why.
#[test]
fn warmup_changes_explain_themselves() {
    use cpuprof_tui::profile::Stats;
    let mut s = loaded(80, 24, 2);
    s.session.data.as_mut().unwrap().total = Some(Stats::from_ms(&[1.1134]));
    let effects = key(&mut s, KeyCode::Char('+'));
    let [Effect::Load { generation, .. }] = effects[..] else {
        panic!("{effects:?}")
    };
    let mut next = ExplorerData::from_profile(&sample::profile());
    next.total = Some(Stats::from_ms(&[1.1141]));
    next.runs.as_mut().unwrap().dropped = 3;
    next.runs.as_mut().unwrap().kept = 5;
    update(
        &mut s,
        Action::Loaded {
            generation,
            result: Ok(Box::new(next)),
        },
    );
    assert_eq!(
        s.session.notice.as_deref(),
        Some("warm-up 2→3: Method::execute 1.113→1.114 ms · 5 runs kept")
    );
    // The next key clears it.
    key(&mut s, KeyCode::Char('j'));
    assert!(s.session.notice.is_none());
    // At 0, `-` says there is nothing to add back; at 7 of 8, `+` says one must stay.
    let mut s = loaded(80, 24, 0);
    key(&mut s, KeyCode::Char('-'));
    assert_eq!(
        s.session.notice.as_deref(),
        Some("warm-up is 0: no dropped run to add back")
    );
    let mut s = loaded(80, 24, 7);
    key(&mut s, KeyCode::Char('+'));
    assert_eq!(
        s.session.notice.as_deref(),
        Some("warm-up 7 of 8 runs: at least one run must stay")
    );
}

#[test]
fn stale_results_are_dropped_and_errors_keep_the_profile() {
    let mut s = loaded(80, 24, 2);
    key(&mut s, KeyCode::Char('+')); // generation 2
    key(&mut s, KeyCode::Char('+')); // generation 3 supersedes 2
    let stale = Action::Loaded {
        generation: 2,
        result: Err("old".into()),
    };
    update(&mut s, stale);
    assert!(s.error().is_none());
    assert!(s.session.loading.is_some());
    update(
        &mut s,
        Action::Loaded {
            generation: 3,
            result: Err("x.etdp: not an ETDump".into()),
        },
    );
    assert_eq!(s.error(), Some("x.etdp: not an ETDump"));
    assert_eq!(s.mode(), ViewKind::Dialog);
    assert!(s.session.data.is_some(), "last good profile stays");
    assert_eq!(s.session.shown_warmup(), Some(2));
    key(&mut s, KeyCode::Enter);
    assert!(s.error().is_none());
}

/// Enter on a node with children toggles it, and the help says so.
#[test]
fn enter_toggles_and_help_says_so() {
    let mut s = loaded(80, 24, 2);
    let before = tree_names(&s).len();
    key(&mut s, KeyCode::Char('j'));
    key(&mut s, KeyCode::Enter);
    assert!(
        tree_names(&s).len() < before,
        "Enter collapses an open node"
    );
    key(&mut s, KeyCode::Enter);
    assert_eq!(tree_names(&s).len(), before, "and expands it again");
    let help = cpuprof_tui::app::keymap::help_lines();
    let enter = help
        .iter()
        .find(|(k, _)| k == "Enter")
        .map(|(_, h)| h.as_str());
    assert_eq!(
        enter,
        Some("expand/collapse node, list its operators; operator: detail")
    );
}

#[test]
fn drill_down_and_back() {
    let mut s = loaded(80, 24, 2);
    // Tree: Enter on delegate #1 collapses it and limits the table to its 4 operators.
    key(&mut s, KeyCode::Char('j'));
    key(&mut s, KeyCode::Enter);
    assert_eq!(s.explorer().table.scope, Some(0));
    assert_eq!(s.explorer().table.rows.len(), 4);
    // 11 rows, less the two steps and the overhead of delegate #1.
    assert_eq!(tree_names(&s).len(), 8);
    key(&mut s, KeyCode::Enter);
    assert_eq!(tree_names(&s).len(), 11);
    // Enter on the step expands it; Enter on its operator opens the detail.
    key(&mut s, KeyCode::Char('j'));
    key(&mut s, KeyCode::Enter);
    key(&mut s, KeyCode::Char('j'));
    key(&mut s, KeyCode::Char('j'));
    assert_eq!(
        tree_names(&s)[s.explorer().tree.selected],
        "Clamp (NC, F32) #1"
    );
    key(&mut s, KeyCode::Enter);
    assert_eq!(s.explorer().focus, Pane::Detail);
    let d = s.session.data.as_ref().unwrap();
    assert_eq!(d.nodes[s.detail_node().unwrap()].name, "Clamp (NC, F32) #1");
    // Esc: detail -> table; Esc: table -> tree; Esc: tree clears the delegate scope.
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.explorer().focus, Pane::Table);
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.explorer().focus, Pane::Tree);
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.explorer().table.scope, None);
    assert_eq!(s.explorer().table.rows.len(), 7);
    // The table kept the Clamp row selected when the scope widened (row 4 of 7).
    key(&mut s, KeyCode::Tab);
    assert_eq!(s.explorer().table.selected, 4);
    // Table: Enter opens the detail of the selected row.
    key(&mut s, KeyCode::Char('g'));
    key(&mut s, KeyCode::Char('j'));
    key(&mut s, KeyCode::Enter);
    assert_eq!(s.explorer().focus, Pane::Detail);
    let d = s.session.data.as_ref().unwrap();
    assert_eq!(
        d.nodes[s.detail_node().unwrap()].name,
        "Convolution (NHWC, F32) IGEMM #1"
    );
}

#[test]
fn expand_collapse_all_and_fold_keys() {
    let mut s = loaded(80, 24, 2);
    key(&mut s, KeyCode::Char('e'));
    // 16 nodes: method, 2 delegates, 2 steps, 6 delegate ops, 2 overheads, aten::mean +
    // kernel, remainder.
    assert_eq!(s.explorer().tree.visible.len(), 16);
    key(&mut s, KeyCode::Char('E'));
    // Collapse all keeps the root open: its direct children stay in view.
    assert_eq!(
        tree_names(&s),
        [
            "Method::execute",
            "delegate #1",
            "delegate #4",
            "aten::mean",
            "(remainder)"
        ]
    );
    key(&mut s, KeyCode::Right);
    assert_eq!(s.explorer().tree.visible.len(), 5);
    key(&mut s, KeyCode::Char('j'));
    key(&mut s, KeyCode::Char('h')); // delegate #1 is closed: go to the parent
    assert_eq!(s.explorer().tree.selected, 0);
    key(&mut s, KeyCode::Left);
    assert_eq!(s.explorer().tree.visible.len(), 1);
}

#[test]
fn help_toggle_and_quit_everywhere() {
    let mut s = loaded(80, 24, 2);
    key(&mut s, KeyCode::Char('?'));
    assert_eq!(s.mode(), ViewKind::Help);
    key(&mut s, KeyCode::Char('j'));
    assert_eq!(s.views.help().unwrap().scroll, 1);
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.mode(), ViewKind::Explorer);
    key(&mut s, KeyCode::Char('?'));
    assert_eq!(key(&mut s, KeyCode::Char('q')), vec![Effect::Quit]);
    // q quits while the first load is still running.
    let mut s = AppState::new(80, 24);
    s.load(ProfileRequest::new("big.etdp".into(), None, 0));
    assert_eq!(key(&mut s, KeyCode::Char('q')), vec![Effect::Quit]);
    // The log view opens and closes.
    let mut s = loaded(80, 24, 2);
    key(&mut s, KeyCode::Char('w'));
    assert!(s.log_open());
    // j moves the log's cursor (the selected line) one down (#47).
    let before = s.views.log().unwrap().cursor;
    key(&mut s, KeyCode::Char('j'));
    assert_eq!(s.views.log().unwrap().cursor, before + 1);
    key(&mut s, KeyCode::Esc);
    assert!(!s.log_open());
}

#[test]
fn mouse_selects_sorts_and_scrolls() {
    use cpuprof_tui::app::MouseAction::*;
    let mut s = loaded(80, 24, 2);
    let table = s.areas().table.unwrap();
    // Third data row: border, title row, rows 0,1,2.
    update(
        &mut s,
        Action::Mouse {
            kind: Click,
            x: 5,
            y: table.y + 4,
        },
    );
    assert_eq!(s.explorer().focus, Pane::Table);
    assert_eq!(s.explorer().table.selected, 2);
    // Click on the "Operator" title sorts by name (ascending).
    update(
        &mut s,
        Action::Mouse {
            kind: Click,
            x: 3,
            y: table.y + 1,
        },
    );
    assert_eq!(
        (s.explorer().table.sort, s.explorer().table.descending),
        (Column::Name, false)
    );
    assert_eq!(table_names(&s)[0], "Add (ND, F32) #1");
    // A second click on the same title reverses.
    update(
        &mut s,
        Action::Mouse {
            kind: Click,
            x: 3,
            y: table.y + 1,
        },
    );
    assert_eq!(
        (s.explorer().table.sort, s.explorer().table.descending),
        (Column::Name, true)
    );
    // Wheel over the tree moves its selection by 3.
    let tree = s.areas().tree.unwrap();
    update(
        &mut s,
        Action::Mouse {
            kind: ScrollDown,
            x: 5,
            y: tree.y + 2,
        },
    );
    assert_eq!(s.explorer().tree.selected, 3);
    assert_eq!(s.explorer().focus, Pane::Table);
}

/// Filter counts on the real wide_browse names, counted by hand from
/// `fixtures/cpu/wide_browse.truth.json` (76 delegate operators + 3 kernels of
/// non-delegated instructions: `_to_dim_order_copy`, `upsample_nearest2d`, `argmax`).
#[test]
fn filter_counts_on_the_wide_browse_fixture() {
    use std::sync::atomic::AtomicBool;
    let request = ProfileRequest::new("fixtures/cpu/wide_browse.etdp".into(), None, 5);
    let profile =
        cpuprof_tui::profile::load_profile(&request, &mut |_| {}, &AtomicBool::new(false)).unwrap();
    let mut s = AppState::new(160, 48);
    let generation = match &s.load(request)[..] {
        [Effect::Load { generation, .. }] => *generation,
        _ => unreachable!(),
    };
    update(
        &mut s,
        Action::Loaded {
            generation,
            result: Ok(Box::new(ExplorerData::from_profile(&profile))),
        },
    );
    assert_eq!(s.explorer().table.rows.len(), 79);
    for (needle, count) in [
        ("conv", 10), // 9 DWConv + 1 IGEMM
        ("igemm", 1),
        ("hardswish", 21),
        ("native_call", 6), // cumsum, erf, mean + the 3 non-delegated kernels
        ("zzz", 0),
    ] {
        key(&mut s, KeyCode::Char('/'));
        chars(&mut s, needle);
        assert_eq!(s.explorer().table.rows.len(), count, "{needle}");
        key(&mut s, KeyCode::Esc);
    }
    // Delegate #3 (second delegate): one step of 10 operators. Esc: table -> tree.
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.explorer().focus, Pane::Tree);
    let tree = tree_names(&s);
    let d3 = tree.iter().position(|n| n == "delegate #3").unwrap();
    for _ in 0..d3 {
        key(&mut s, KeyCode::Char('j'));
    }
    key(&mut s, KeyCode::Enter);
    assert_eq!(s.explorer().table.rows.len(), 10);
}

/// The terminal shrank and `terminal.draw` resized the buffer before the `Resize` action
/// reached the state: every view must still draw inside the smaller buffer.
#[test]
fn drawing_on_a_frame_smaller_than_the_state_does_not_panic() {
    use cpuprof_tui::ui::{self, Theme};
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;

    let mut gauge = AppState::new(160, 48);
    gauge.load(ProfileRequest::new("big.etdp".into(), None, 0));
    let mut reload = loaded(160, 48, 2);
    key(&mut reload, KeyCode::Char('+'));
    assert!(reload.session.loading.is_some());
    let mut watching = AppState::new(160, 48);
    watching.start_watch("out", 0);
    let mut help = loaded(160, 48, 2);
    key(&mut help, KeyCode::Char('?'));
    for state in [&gauge, &reload, &watching, &help] {
        for (w, h) in [(60, 20), (30, 6), (10, 3), (1, 1)] {
            let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
            t.draw(|f| ui::draw(f, state, &Theme::plain())).unwrap();
        }
    }
}

/// Each column has its own key (Shift + the bracketed letter of its title); pressing it
/// again reverses; the sorted column is on screen at 80x24 whatever it is.
#[test]
fn direct_sort_keys_and_the_sorted_column_is_shown() {
    let mut s = loaded(80, 24, 2);
    for column in Column::ETDUMP {
        let k = column.key();
        key(&mut s, KeyCode::Char(k));
        assert_eq!(s.explorer().table.sort, column, "key {k}");
        assert_eq!(s.explorer().table.descending, column.default_descending());
        let shown = s.table_layout(78, 10);
        assert!(
            shown.iter().any(|(c, _)| *c == column),
            "{column:?}: {shown:?}"
        );
        key(&mut s, KeyCode::Char(k));
        assert_eq!(
            s.explorer().table.descending,
            !column.default_descending(),
            "{column:?}"
        );
    }
    // A trace-only column key does nothing on an ETDump table.
    key(&mut s, KeyCode::Char('M'));
    key(&mut s, KeyCode::Char('F'));
    assert_eq!(s.explorer().table.sort, Column::Median);
}

/// `←`/`→` in the table scroll the columns: the first scrolled-off column is the one
/// after the name; never past the last.
#[test]
fn arrows_scroll_the_table_columns() {
    let mut s = loaded(80, 24, 2);
    key(&mut s, KeyCode::Tab);
    assert_eq!(s.explorer().focus, Pane::Table);
    let before = s.table_layout(78, 10);
    key(&mut s, KeyCode::Right);
    assert_eq!(s.explorer().table.hscroll, 1);
    let after = s.table_layout(78, 10);
    assert_eq!(after[0].0, Column::Name);
    assert!(
        !after.iter().any(|(c, _)| *c == Column::Delegate),
        "{after:?}"
    );
    assert!(before.iter().any(|(c, _)| *c == Column::Delegate));
    for _ in 0..30 {
        key(&mut s, KeyCode::Right);
    }
    let last = s.table_layout(78, 10);
    assert_eq!(last.last().map(|c| c.0), Some(Column::Outputs), "{last:?}");
    let most = s.explorer().table.hscroll;
    key(&mut s, KeyCode::Right);
    assert_eq!(s.explorer().table.hscroll, most);
    key(&mut s, KeyCode::Left);
    assert_eq!(s.explorer().table.hscroll, most - 1);
}

/// Each delegate gets an overhead row: its call minus its steps (or its operators), run
/// by run. The sample's times are base × the same run factors, so the overhead of
/// delegate #1 has the median (0.65 - 0.5 - 0.1) × 1.075 = 0.05375 ms and a share of its
/// call of 0.05 / 0.65 = 7.69%; delegate #4: (0.2 - 0.15 - 0.01) × 1.075 = 0.043 ms.
#[test]
fn delegates_have_an_overhead_row() {
    let s = loaded(80, 24, 2);
    let d = s.session.data.as_ref().unwrap();
    let overheads: Vec<_> = d.nodes.iter().filter(|n| n.name == "(overhead)").collect();
    assert_eq!(overheads.len(), 2);
    assert!((overheads[0].stats.median() - 0.05375).abs() < 1e-9);
    assert!((overheads[0].share.unwrap() - 0.05 / 0.65).abs() < 1e-9);
    assert_eq!(overheads[0].stats.warmup_samples.len(), 2);
    assert!((overheads[1].stats.median() - 0.043).abs() < 1e-9);
    assert!(overheads[0].info.contains("outside its plan steps"));
    assert!(overheads[1].info.contains("outside its operators"));
}

/// The sample with a warning about `Clamp (NC, F32) #1` in delegate #1 (instruction 1).
fn loaded_with_clamp_warning(w: u16, h: u16) -> AppState {
    use cpuprof_tui::profile::Finding;
    let mut p = sample::profile();
    let mut f = Finding::new(
        "operator_slow",
        "Clamp (NC, F32) #1 is slower than expected",
    );
    f.event = Some("Clamp (NC, F32) #1".into());
    f.instruction_id = Some(1);
    p.warnings.push(f);
    let mut s = AppState::new(w, h);
    let effects = s.load(ProfileRequest::new("sample.etdp".into(), None, 2));
    let [Effect::Load { generation, .. }] = effects[..] else {
        panic!()
    };
    update(
        &mut s,
        Action::Loaded {
            generation,
            result: Ok(Box::new(ExplorerData::from_profile(&p))),
        },
    );
    s
}

fn selected_name(s: &AppState) -> String {
    let d = s.session.data.as_ref().unwrap();
    d.nodes[s.explorer().tree.visible[s.explorer().tree.selected]]
        .name
        .clone()
}

/// Enter on a plan step lists that step's operators only (3 in conv2d+2, by median:
/// IGEMM #2 0.22, IGEMM #1 0.20, Clamp 0.05); Esc in the tree lists all again; the list
/// that changed starts at its top.
#[test]
fn enter_on_a_step_lists_its_operators() {
    let mut s = loaded(80, 24, 2);
    key(&mut s, KeyCode::Char('j'));
    key(&mut s, KeyCode::Char('j'));
    assert_eq!(selected_name(&s), "XNNPACK/subgraph:conv2d+2");
    key(&mut s, KeyCode::Enter);
    assert_eq!(
        table_names(&s),
        [
            "Convolution (NHWC, F32) IGEMM #2",
            "Convolution (NHWC, F32) IGEMM #1",
            "Clamp (NC, F32) #1"
        ]
    );
    assert_eq!(
        (s.explorer().table.selected, s.explorer().table.offset),
        (0, 0)
    );
    // The cumsum step: its one kernel.
    key(&mut s, KeyCode::Char('j'));
    key(&mut s, KeyCode::Char('j'));
    key(&mut s, KeyCode::Char('j'));
    key(&mut s, KeyCode::Char('j'));
    assert_eq!(selected_name(&s), "ET/registry:cumsum");
    key(&mut s, KeyCode::Enter);
    assert_eq!(table_names(&s), ["native_call_cumsum.out"]);
    key(&mut s, KeyCode::Esc);
    assert_eq!(table_names(&s).len(), 7);
}

/// A finding names its delegate, and it and its ancestors carry a mark in the tree.
#[test]
fn findings_name_their_delegate_and_mark_the_tree() {
    let s = loaded_with_clamp_warning(80, 24);
    let d = s.session.data.as_ref().unwrap();
    let f = d
        .findings
        .iter()
        .find(|f| f.kind == "operator_slow")
        .unwrap();
    assert_eq!(f.delegate.as_deref(), Some("delegate #1"));
    let node = f.node.expect("points at the Clamp node");
    assert_eq!(d.nodes[node].name, "Clamp (NC, F32) #1");
    assert!(cpuprof_tui::views::log::state::finding_text(f)
        .starts_with("operator_slow · delegate #1: "));
    let marks = |name: &str| {
        d.nodes
            .iter()
            .find(|n| n.name == name)
            .map(|n| n.findings)
            .unwrap()
    };
    // One warning: on Clamp, its step, delegate #1, the method; not on delegate #4.
    assert_eq!(marks("Clamp (NC, F32) #1"), (0, 1));
    assert_eq!(marks("XNNPACK/subgraph:conv2d+2"), (0, 1));
    assert_eq!(marks("delegate #1"), (0, 1));
    assert_eq!(marks("Method::execute"), (0, 1));
    assert_eq!(marks("delegate #4"), (0, 0));
}

/// `r` shows the selected table row in the tree (opening its step), and the warning at
/// the top of the warnings view.
#[test]
fn reveal_a_row_and_a_warning_in_the_tree() {
    let mut s = loaded_with_clamp_warning(80, 24);
    key(&mut s, KeyCode::Tab);
    // Clamp is 5th by median (0.22, 0.20, 0.15, 0.10, 0.05).
    for _ in 0..4 {
        key(&mut s, KeyCode::Char('j'));
    }
    assert_eq!(
        table_names(&s)[s.explorer().table.selected],
        "Clamp (NC, F32) #1"
    );
    key(&mut s, KeyCode::Char('r'));
    assert_eq!(s.explorer().focus, Pane::Tree);
    assert_eq!(selected_name(&s), "Clamp (NC, F32) #1");
    // Back to the top, steps closed again.
    key(&mut s, KeyCode::Char('E'));
    key(&mut s, KeyCode::Char('g'));
    key(&mut s, KeyCode::Char('w'));
    // Move the warnings view's cursor until the Clamp warning is the selected one.
    for _ in 0..5 {
        let d = s.session.data.as_ref().unwrap();
        let cursor = s.views.log().unwrap().cursor;
        let f = cpuprof_tui::views::log::state::selected_finding(d, cursor, 78);
        if f.is_some_and(|i| d.findings[i].kind == "operator_slow") {
            break;
        }
        key(&mut s, KeyCode::Char('j'));
    }
    key(&mut s, KeyCode::Char('r'));
    assert!(!s.log_open());
    assert_eq!(selected_name(&s), "Clamp (NC, F32) #1");
}

/// `/` searches the tree too: `]` and `[` walk the matching nodes (opening parents),
/// wrapping around.
#[test]
fn search_walks_the_tree() {
    let mut s = loaded(80, 24, 2);
    key(&mut s, KeyCode::Char('/'));
    chars(&mut s, "igemm");
    key(&mut s, KeyCode::Enter);
    assert_eq!(
        s.session.notice.as_deref(),
        Some("2 matches in the tree: ] next, [ previous")
    );
    key(&mut s, KeyCode::Char(']'));
    assert_eq!(selected_name(&s), "Convolution (NHWC, F32) IGEMM #1");
    assert_eq!(s.explorer().focus, Pane::Tree);
    assert_eq!(
        s.session.notice.as_deref(),
        Some("tree match 1 of 2 for \"igemm\"")
    );
    key(&mut s, KeyCode::Char(']'));
    assert_eq!(selected_name(&s), "Convolution (NHWC, F32) IGEMM #2");
    key(&mut s, KeyCode::Char(']'));
    assert_eq!(selected_name(&s), "Convolution (NHWC, F32) IGEMM #1");
    key(&mut s, KeyCode::Char('['));
    assert_eq!(selected_name(&s), "Convolution (NHWC, F32) IGEMM #2");
}

/// `o` groups the table by operator type. The sample's medians are base × 1.075:
/// IGEMM #1 + #2 = (0.20 + 0.22) × 1.075 = 0.4515 ms; GEMM 0.16125; cumsum 0.1075;
/// Clamp 0.05375; mean 0.03225; Add 0.01075. Enter lists a type's instances.
#[test]
fn group_by_type_and_drill_in() {
    let mut s = loaded(80, 24, 2);
    key(&mut s, KeyCode::Char('o'));
    assert!(s.explorer().table.grouped);
    assert_eq!(s.explorer().focus, Pane::Table);
    assert_eq!(
        table_names(&s),
        [
            "Convolution (NHWC, F32) IGEMM",
            "Fully Connected (NC, F32) GEMM",
            "native_call_cumsum.out",
            "Clamp (NC, F32)",
            "native_call_mean.dtype_out",
            "Add (ND, F32)",
        ]
    );
    let d = s.session.data.as_ref().unwrap();
    let first = &d.groups[s.explorer().table.rows[0]];
    assert_eq!(first.instances, 2);
    // One method, one sample per run: the median of the per-run sums, not a Σ.
    assert_eq!(first.summed_median, None);
    assert!((first.stats.median() - 0.4515).abs() < 1e-9);
    // The detail shows the type.
    let node = s.detail_node().unwrap();
    assert_eq!(d.nodes[node].name, "Convolution (NHWC, F32) IGEMM");
    key(&mut s, KeyCode::Enter);
    assert!(!s.explorer().table.grouped);
    assert_eq!(
        table_names(&s),
        [
            "Convolution (NHWC, F32) IGEMM #2",
            "Convolution (NHWC, F32) IGEMM #1"
        ]
    );
    // Esc: one level back, to the six types (#47); o: all operators; o twice: types
    // and back.
    key(&mut s, KeyCode::Esc);
    assert!(s.explorer().table.grouped);
    assert_eq!(table_names(&s).len(), 6);
    key(&mut s, KeyCode::Char('o'));
    assert!(!s.explorer().table.grouped);
    assert_eq!(table_names(&s).len(), 7);
    key(&mut s, KeyCode::Char('o'));
    key(&mut s, KeyCode::Char('o'));
    assert!(!s.explorer().table.grouped);
    assert_eq!(table_names(&s).len(), 7);
}

/// Watch: a run is compared with the previous one only when both are the same model
/// (same operator names and delegates); its own findings are counted for the list.
#[test]
fn runs_of_other_models_are_not_compared() {
    use cpuprof_tui::app::runs::{change, Change, RunEntry, RunFacts, RunStatus};
    use cpuprof_tui::profile::Stats;
    let base = ExplorerData::from_profile(&sample::profile_with_error());
    let mut slower = base.clone();
    slower.total = Some(Stats::from_ms(&[1.2]));
    let mut other = base.clone();
    other.ops.pop();
    let mut before = base.clone();
    before.total = Some(Stats::from_ms(&[1.0]));
    let entry = |d: &ExplorerData| RunEntry {
        id: 1,
        etdump: "x.etdp".into(),
        log: None,
        time: std::time::UNIX_EPOCH,
        status: RunStatus::Loaded,
        facts: Some(RunFacts::of(d)),
        removed: false,
        data: None,
        execute: d.total.clone(),
        rows: None,
        change: None,
        row_changes: None,
        test: None,
    };
    // Newest first: 1.2 ms after 1.0 ms of the same model: +20%, but one run against
    // one cannot be significant (too few samples: `~`).
    let same = [entry(&slower), entry(&before)];
    match change(&same, None, 0) {
        Some(Change::Relative { delta, verdict }) => {
            assert!((delta - 0.2).abs() < 1e-12, "{delta}");
            assert_eq!(verdict, cpuprof_tui::compare::Verdict::TooFewSamples);
        }
        other => panic!("{other:?}"),
    }
    let mixed = [entry(&other), entry(&before)];
    assert_eq!(change(&mixed, None, 0), Some(Change::OtherModel));
    // The sample with an error: 1 error, 1 warning.
    let f = RunFacts::of(&base);
    assert_eq!((f.errors, f.warnings), (1, 1));
}

#[test]
fn an_analysing_heartbeat_turns_the_gauge_spinner() {
    use cpuprof_tui::profile::LoadPhase;
    let mut s = AppState::new(100, 20);
    let generation = match s
        .load(ProfileRequest::new("big.etdp".into(), None, 0))
        .first()
    {
        Some(Effect::Load { generation, .. }) => *generation,
        _ => unreachable!("a load effect"),
    };
    let progress = |phase| Action::Progress {
        generation,
        phase,
        bytes_done: 1000,
        bytes_total: 1000,
    };
    let screen = |s: &AppState| {
        let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(100, 20)).unwrap();
        let theme = cpuprof_tui::ui::Theme::from_env();
        term.draw(|f| cpuprof_tui::ui::draw(f, s, &theme)).unwrap();
        let buf = term.backend().buffer().clone();
        buf.content().iter().map(|c| c.symbol()).collect::<String>()
    };
    update(&mut s, progress(LoadPhase::Parsing));
    update(&mut s, progress(LoadPhase::Analysing));
    // The first report of the phase: no spinner yet (snapshots of the gauge keep theirs).
    assert!(screen(&s).contains("analysing · 1000 B of 1000 B (100%) "));
    assert!(!screen(&s).contains("(100%) /"));
    // Each heartbeat turns it: '|', '/', '-', '\' by count of beats.
    update(&mut s, progress(LoadPhase::Analysing));
    assert!(screen(&s).contains("(100%) /"), "{}", screen(&s));
    update(&mut s, progress(LoadPhase::Analysing));
    assert!(screen(&s).contains("(100%) -"));
    // A new phase starts again without it.
    update(&mut s, progress(LoadPhase::Parsing));
    assert!(!screen(&s).contains("(100%) -"));
}

/// The view stack: views push over the explorer, Esc pops one level (never the
/// explorer), a popup stays over the view it was opened on, and loads land in the shared
/// data whatever is open (a timeline, which shows the profile it was opened on, closes).
#[test]
fn views_stack_and_loads_arrive_under_them() {
    use ViewKind::{Dialog, Explorer, Help, Log, Timeline};
    let mut s = loaded(80, 24, 2);
    let arrive = |s: &mut AppState, file: &str, result: Result<(), &str>| {
        let effects = s.load(ProfileRequest::new(file.into(), None, 2));
        let [Effect::Load { generation, .. }] = &effects[..] else {
            panic!("{effects:?}")
        };
        let result = match result {
            Ok(()) => {
                let mut d = ExplorerData::from_profile(&sample::profile());
                d.files = vec![file.to_string()];
                Ok(Box::new(d))
            }
            Err(e) => Err(e.to_string()),
        };
        update(
            s,
            Action::Loaded {
                generation: *generation,
                result,
            },
        );
    };
    key(&mut s, KeyCode::Char('w'));
    key(&mut s, KeyCode::Char('?'));
    assert_eq!(s.views.kinds(), [Explorer, Log, Help]);
    assert_eq!(s.mode(), Help);
    assert!(s.log_open(), "the log stays under the help popup");
    assert_eq!(
        s.views.help().unwrap().over,
        Log,
        "help opens on the log's keys"
    );
    arrive(&mut s, "second.etdp", Ok(()));
    assert_eq!(s.session.data.as_ref().unwrap().files, ["second.etdp"]);
    assert!(s.session.loading.is_none());
    assert_eq!(
        s.views.kinds(),
        [Explorer, Log, Help],
        "a load leaves the views open"
    );
    // Esc: one level at a time; the explorer stays (Esc never quits there).
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.views.kinds(), [Explorer, Log]);
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.views.kinds(), [Explorer]);
    assert!(key(&mut s, KeyCode::Esc).is_empty());
    assert!(!s.quit);
    // The timeline shows the profile it was opened on: a newer one closes it, the help
    // over it stays.
    let effects = key(&mut s, KeyCode::Char('t'));
    assert!(
        matches!(&effects[..], [Effect::LoadTimeline { request, .. }] if request.etdump.ends_with("second.etdp"))
    );
    key(&mut s, KeyCode::Char('?'));
    assert_eq!(s.views.kinds(), [Explorer, Timeline, Help]);
    arrive(&mut s, "third.etdp", Ok(()));
    assert_eq!(s.views.kinds(), [Explorer, Help]);
    key(&mut s, KeyCode::Esc);
    // A failed load: the dialog over the open view; Esc dismisses it, the view stays.
    key(&mut s, KeyCode::Char('w'));
    arrive(&mut s, "bad.etdp", Err("bad.etdp: not an ETDump"));
    assert_eq!(s.views.kinds(), [Explorer, Log, Dialog]);
    assert_eq!(s.error(), Some("bad.etdp: not an ETDump"));
    assert_eq!(
        s.session.data.as_ref().unwrap().files,
        ["third.etdp"],
        "the last good profile stays"
    );
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.views.kinds(), [Explorer, Log]);
    // q quits from any view.
    key(&mut s, KeyCode::Char('?'));
    assert_eq!(key(&mut s, KeyCode::Char('q')), vec![Effect::Quit]);
}
