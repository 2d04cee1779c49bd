//! Snapshots of every view on a `TestBackend` at 80x24 and 160x48, on the real fixtures
//! loaded through the pipeline (`load_profile`). Numbers were checked against the
//! fixtures' truth files when the snapshots were accepted (see the comments per test).

use std::sync::atomic::AtomicBool;

use cpuprof_tui::app::{update, Action, AppState, Effect, ExplorerData};
use cpuprof_tui::profile::{load_profile, LoadPhase, ProfileRequest};
use cpuprof_tui::source::load_explorer_data;
use cpuprof_tui::ui::{self, Theme};
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

fn request(path: &str, warmup: usize) -> ProfileRequest {
    ProfileRequest::new(path.into(), None, warmup)
}

/// Loads through the app's own entry, so ETDumps and PyTorch traces both work.
fn load(path: &str, warmup: usize) -> Result<ExplorerData, String> {
    load_explorer_data(&request(path, warmup), &mut |_| {}, &AtomicBool::new(false))
        .map_err(|e| e.to_string())
}

fn screen(state: &AppState) -> String {
    let mut t = Terminal::new(TestBackend::new(state.width, state.height)).unwrap();
    t.draw(|f| ui::draw(f, state, &Theme::plain())).unwrap();
    let buf = t.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..buf.area.height {
        let mut line = String::new();
        for x in 0..buf.area.width {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn key(s: &mut AppState, code: KeyCode) {
    update(s, Action::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn keys(s: &mut AppState, text: &str) {
    for c in text.chars() {
        key(s, KeyCode::Char(c));
    }
}

/// The explorer after loading `path` with `warmup` through the same actions the app uses.
fn opened(path: &str, warmup: usize, (w, h): (u16, u16)) -> AppState {
    let mut s = AppState::new(w, h);
    let effects = s.load(request(path, warmup));
    let Some(Effect::Load { generation, .. }) = effects.first().cloned() else {
        unreachable!()
    };
    let result = load(path, warmup).map(Box::new);
    update(&mut s, Action::Loaded { generation, result });
    s
}

const WIDE: &str = "fixtures/cpu/wide_browse.etdp";

fn snap(name: &str, size: (u16, u16), s: &AppState) {
    insta::assert_snapshot!(format!("{name}_{}x{}", size.0, size.1), screen(s));
}

/// wide_browse, 5 warm-up: 30 kept of 35; Method::execute median 1.113 ms
/// (truth: method_execute samples, min 1.023497, max 1.201313); delegate #1 median
/// 1.048 ms (truth 1.048071), first step 486.89 µs (truth 0.4868905).
#[test]
fn plan_tree() {
    for size in SIZES {
        let mut s = opened(WIDE, 5, size);
        key(&mut s, KeyCode::Char('j'));
        snap("wide_tree", size, &s);
    }
    // cnn2_basic, 3 warm-up (truth: 23 runs; method median 0.23562 ms).
    for size in SIZES {
        let s = opened("fixtures/cpu/cnn2_basic.etdp", 3, size);
        snap("cnn2_tree", size, &s);
    }
}

/// 79 rows: 76 delegate operators + 3 non-delegated kernels (truth instructions).
#[test]
fn operator_table() {
    for size in SIZES {
        let mut s = opened(WIDE, 5, size);
        key(&mut s, KeyCode::Tab);
        snap("wide_table", size, &s);
    }
    // Plain XNNPACK (real runtime): three GEMM operators directly under the call.
    for size in SIZES {
        let mut s = opened("fixtures/real/mlp_xnnpack.etdp", 0, size);
        key(&mut s, KeyCode::Char('e'));
        key(&mut s, KeyCode::Tab);
        snap("mlp_xnnpack_table", size, &s);
    }
}

/// The only IGEMM convolution of wide_browse; its samples are in the truth file.
#[test]
fn detail_histogram() {
    for size in SIZES {
        let mut s = opened(WIDE, 5, size);
        key(&mut s, KeyCode::Char('/'));
        keys(&mut s, "igemm");
        key(&mut s, KeyCode::Enter);
        key(&mut s, KeyCode::Enter);
        snap("wide_detail", size, &s);
    }
}

/// cnn2_noplan: the one warning `no_cpu_plan_in_log`, then the log lines.
#[test]
fn warnings_and_log() {
    for size in SIZES {
        let mut s = opened("fixtures/cpu/cnn2_noplan.etdp", 2, size);
        key(&mut s, KeyCode::Char('w'));
        snap("cnn2_noplan_log", size, &s);
    }
}

#[test]
fn help() {
    for size in SIZES {
        let mut s = opened(WIDE, 5, size);
        key(&mut s, KeyCode::Char('?'));
        snap("help", size, &s);
    }
}

#[test]
fn empty_filter_result() {
    for size in SIZES {
        let mut s = opened(WIDE, 5, size);
        key(&mut s, KeyCode::Char('/'));
        keys(&mut s, "xyz");
        snap("empty_filter", size, &s);
    }
}

#[test]
fn loading_state() {
    for size in SIZES {
        let mut s = AppState::new(size.0, size.1);
        s.load(request("big.etdp", 5));
        update(
            &mut s,
            Action::Progress {
                generation: 1,
                phase: LoadPhase::Reading,
                bytes_done: 50 * 1024 * 1024,
                bytes_total: 200 * 1024 * 1024,
            },
        );
        snap("loading", size, &s);
    }
}

/// A failing reload (the real error for a corrupt dump) over the last good profile.
#[test]
fn error_dialog_over_last_good_profile() {
    let message = load("fixtures/real/bad_flipped.etdp", 0).unwrap_err();
    assert!(
        message.starts_with("fixtures/real/bad_flipped.etdp: "),
        "{message}"
    );
    for size in SIZES {
        let mut s = opened(WIDE, 5, size);
        key(&mut s, KeyCode::Char('+'));
        update(
            &mut s,
            Action::Loaded {
                generation: 2,
                result: Err(message.clone()),
            },
        );
        snap("error_dialog", size, &s);
    }
}

/// NO_COLOR: the plain theme paints no colour at all (selection uses reverse video).
#[test]
fn no_color_theme_uses_modifiers_only() {
    use ratatui::style::{Color, Modifier};
    let mut s = opened(WIDE, 5, (160, 48));
    key(&mut s, KeyCode::Tab);
    for (theme, want_color) in [(Theme::plain(), false), (Theme { color: true }, true)] {
        let mut t = Terminal::new(TestBackend::new(160, 48)).unwrap();
        t.draw(|f| ui::draw(f, &s, &theme)).unwrap();
        let buf = t.backend().buffer();
        let colored = buf
            .content()
            .iter()
            .any(|c| c.fg != Color::Reset || c.bg != Color::Reset);
        assert_eq!(colored, want_color);
        if !want_color {
            assert!(buf
                .content()
                .iter()
                .any(|c| c.modifier.contains(Modifier::REVERSED)));
        }
    }
}

// torch.profiler trace (fixtures/torch/cnn_infer.json): the call tree replaces the plan
// tree; checked against cnn_infer.key_averages.json when accepted: `iteration` 5 calls,
// self 4.597 ms; `aten::conv2d` 10 calls, self 117 µs.
#[test]
fn trace_call_tree_and_ops() {
    for size in SIZES {
        let mut s = opened("fixtures/torch/cnn_infer.json", 0, size);
        key(&mut s, KeyCode::Char('e'));
        snap("trace_call_tree", size, &s);
        key(&mut s, KeyCode::Tab);
        keys(&mut s, "/conv");
        key(&mut s, KeyCode::Enter);
        snap("trace_ops_filtered", size, &s);
    }
}

// THAPI LTTng text (babeltrace2 --clock-seconds): two threads, the orphan exit as a
// failed call (an error finding), the never-exited entry as a warning.
#[test]
fn trace_thapi_findings() {
    for size in SIZES {
        let mut s = opened(
            "fixtures/thapi/babeltrace2_pretty_clock_seconds.txt",
            0,
            size,
        );
        key(&mut s, KeyCode::Char('w'));
        snap("trace_thapi_findings", size, &s);
    }
}

/// Watch mode: two profiles and one error entry, newest (cnn2_basic) shown. Truth medians
/// with 3 warm-up: mlp_basic 33.52 µs, cnn2_basic 235.6 µs; change (0.23562 - 0.03352) /
/// 0.03352 = +602.9%. Both 23 runs. Times are fixed (UTC): 10:00:05 and 10:00:20.
#[test]
fn watch_runs_list() {
    use cpuprof_tui::watch::{DumpPair, WatchEvent};
    use std::path::PathBuf;
    use std::time::{Duration, UNIX_EPOCH};
    let at = |s: u64| UNIX_EPOCH + Duration::from_secs(36_000 + s);
    for size in SIZES {
        let mut s = AppState::new(size.0, size.1);
        s.start_watch("fixtures/cpu", 3);
        for (stem, t) in [("mlp_basic", 5), ("cnn2_basic", 20)] {
            let etdump = PathBuf::from(format!("fixtures/cpu/{stem}.etdp"));
            let log = Some(etdump.with_extension("log"));
            let event = WatchEvent::Ready(DumpPair {
                etdump,
                log,
                modified: at(t),
                size: 1,
            });
            let effects = update(&mut s, Action::Watch { event, at: at(t) });
            let Some(Effect::Load {
                request,
                generation,
            }) = effects.first().cloned()
            else {
                panic!("no load: {effects:?}")
            };
            let result = load_profile(&request, &mut |_| {}, &AtomicBool::new(false))
                .map(|p| Box::new(ExplorerData::from_profile(&p)))
                .map_err(|e| e.to_string());
            update(&mut s, Action::Loaded { generation, result });
        }
        let event = WatchEvent::Error {
            path: "fixtures/cpu/junk.etdp".into(),
            message: "not an ETDump: identifier is \"XX00\", expected \"ED00\"".into(),
        };
        update(&mut s, Action::Watch { event, at: at(30) });
        snap("watch_runs", size, &s);
    }
}

#[test]
fn footer_names_cold_first_runs_when_opened_without_warmup() {
    // cnn_portable: by the auto rule its first 2 runs are cold (tests/profile_warmup.rs
    // works the threshold out by hand). Opened with warm-up 0, the footer says so with the
    // key that drops one; opened with warm-up 2, it does not.
    let s = opened("fixtures/real/cnn_portable.etdp", 0, (160, 48));
    let text = screen(&s);
    let footer = text.lines().rev().find(|l| !l.is_empty()).unwrap();
    assert!(
        footer.contains("2 cold first runs (+ drops one)"),
        "{footer}"
    );
    let s = opened("fixtures/real/cnn_portable.etdp", 2, (160, 48));
    assert!(!screen(&s).contains("cold first run"));
}
