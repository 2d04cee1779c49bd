//! The flame graph view (`f`): snapshots at 80x24, 120x40, 160x48 and 230x60 of a dump,
//! a trace and a compare pair, with colour and without (the theme is a parameter); zoom,
//! search highlight and merged narrow frames; the keys' behaviour.

use std::sync::atomic::AtomicBool;

use cpuprof_tui::app::compare::CompareView;
use cpuprof_tui::app::flame_layout::SpanOf;
use cpuprof_tui::app::flame_view::FlameView;
use cpuprof_tui::app::{update, Action, AppState, Effect, View};
use cpuprof_tui::cli::CompareArgs;
use cpuprof_tui::profile::ProfileRequest;
use cpuprof_tui::report::compare::load_both;
use cpuprof_tui::source::load_explorer_data;
use cpuprof_tui::ui::{self, Theme};
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

#[path = "support/render.rs"]
mod render;

const SIZES: [(u16, u16); 4] = [(80, 24), (120, 40), (160, 48), (230, 60)];
const DUMP: &str = "fixtures/real/mlp_xnnpack.etdp";
const TRACE: &str = "fixtures/torch/cnn_infer.json";
const COMPARE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/compare");

fn opened(path: &str, warmup: usize, (w, h): (u16, u16)) -> AppState {
    let request = ProfileRequest::new(path.into(), None, warmup);
    let mut s = AppState::new(w, h);
    let effects = s.load(request.clone());
    let Some(Effect::Load { generation, .. }) = effects.first().cloned() else {
        unreachable!()
    };
    let result = load_explorer_data(&request, &mut |_| {}, &AtomicBool::new(false))
        .map(Box::new)
        .map_err(|e| e.to_string());
    update(&mut s, Action::Loaded { generation, result });
    s
}

fn compare_args(a: &str, b: &str, warmup: usize) -> CompareArgs {
    CompareArgs {
        a: format!("{COMPARE_DIR}/{a}").into(),
        b: format!("{COMPARE_DIR}/{b}").into(),
        format: None,
        output: None,
        log_a: None,
        log_b: None,
        no_log: false,
        warmup: cpuprof_tui::profile::warmup::Warmup::Runs(warmup),
        warmup_a: None,
        warmup_b: None,
        alpha: 0.05,
        min_change: 5.0,
        fail_on_regression: None,
        by_module: false,
    }
}

fn compared((w, h): (u16, u16)) -> AppState {
    let (f, b) = load_both(&compare_args("cnn2_a.etdp", "cnn2_slow_b.etdp", 3)).unwrap();
    AppState::for_compare(CompareView::new(f, b), w, h)
}

fn key(s: &mut AppState, code: KeyCode) -> Vec<Effect> {
    update(s, Action::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn press(s: &mut AppState, c: char) -> Vec<Effect> {
    key(s, KeyCode::Char(c))
}

fn type_text(s: &mut AppState, text: &str) {
    for c in text.chars() {
        press(s, c);
    }
}

fn flame(s: &AppState) -> &FlameView {
    s.views.flame().expect("the flame view is open")
}

fn screen(s: &AppState, theme: Theme) -> String {
    render::frame_text(s.width, s.height, |f| ui::draw(f, s, &theme))
}

/// The frame's cells with their colours, for the colour snapshots: each row's text,
/// then the background colour of each cell run.
fn colour_screen(s: &AppState) -> String {
    let mut t = Terminal::new(TestBackend::new(s.width, s.height)).unwrap();
    t.draw(|f| ui::draw(f, s, &Theme { color: true })).unwrap();
    let buf = t.backend().buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        let mut line = String::new();
        let mut runs: Vec<String> = Vec::new();
        let mut last: Option<(ratatui::style::Color, u16)> = None;
        for x in 0..buf.area.width {
            let c = &buf[(x, y)];
            line.push_str(c.symbol());
            match last {
                Some((bg, _)) if bg == c.bg => {}
                _ => {
                    if let Some((bg, from)) = last {
                        runs.push(format!("{from}-{}:{bg:?}", x - 1));
                    }
                    last = Some((c.bg, x));
                }
            }
        }
        if let Some((bg, from)) = last {
            if from > 0 || bg != ratatui::style::Color::Reset {
                runs.push(format!("{from}-{}:{bg:?}", buf.area.width - 1));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
        if runs.len() > 1 || runs.first().is_some_and(|r| !r.ends_with("Reset")) {
            out.push_str(&format!("  bg {}\n", runs.join(" ")));
        }
    }
    out
}

fn snap(name: &str, s: &AppState) {
    let tag = format!("{}x{}", s.width, s.height);
    insta::assert_snapshot!(format!("{name}_{tag}"), screen(s, Theme::plain()));
    insta::assert_snapshot!(format!("{name}_colour_{tag}"), colour_screen(s));
}

#[test]
fn dump_snapshots() {
    for size in SIZES {
        let mut s = opened(DUMP, 0, size);
        press(&mut s, 'f');
        assert!(s.views.flame().is_some());
        snap("flame_dump", &s);
    }
}

#[test]
fn trace_snapshots() {
    for size in SIZES {
        let mut s = opened(TRACE, 0, size);
        press(&mut s, 'f');
        snap("flame_trace", &s);
    }
}

#[test]
fn compare_snapshots() {
    for size in SIZES {
        let mut s = compared(size);
        press(&mut s, 'f');
        assert!(flame(&s).is_diff());
        snap("flame_compare", &s);
    }
}
