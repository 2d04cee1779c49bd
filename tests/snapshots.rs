//! Snapshots of every view on a `TestBackend`, at 80x24 and 160x48.

use cpuprof_tui::app::sample;
use cpuprof_tui::app::{update, Action, AppState, Effect, ExplorerData};
use cpuprof_tui::profile::{LoadPhase, ProfileRequest};
use cpuprof_tui::ui::{self, Theme};
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

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

fn with_data(w: u16, h: u16, data: ExplorerData) -> AppState {
    let mut s = AppState::new(w, h);
    let effects = s.load(ProfileRequest::new("sample.etdp".into(), None, 2));
    let Effect::Load { generation, .. } = effects[0].clone() else {
        unreachable!()
    };
    update(
        &mut s,
        Action::Loaded {
            generation,
            result: Ok(Box::new(data)),
        },
    );
    s
}

fn sample_state(w: u16, h: u16) -> AppState {
    with_data(w, h, ExplorerData::from_profile(&sample::profile()))
}

macro_rules! each_size {
    ($name:literal, |$s:ident| $body:block) => {
        for (w, h) in SIZES {
            let mut $s = sample_state(w, h);
            $body
            insta::assert_snapshot!(format!("sample_{}_{}x{}", $name, w, h), screen(&$s));
        }
    };
}

#[test]
fn explorer_tree() {
    each_size!("tree", |s| {
        key(&mut s, KeyCode::Char('j'));
    });
}

#[test]
fn operator_table() {
    each_size!("table", |s| {
        key(&mut s, KeyCode::Tab);
        key(&mut s, KeyCode::Char('j'));
    });
}

#[test]
fn detail_histogram() {
    each_size!("detail", |s| {
        key(&mut s, KeyCode::Tab);
        key(&mut s, KeyCode::Enter);
    });
}

#[test]
fn warnings_and_log() {
    for (w, h) in SIZES {
        let mut s = with_data(
            w,
            h,
            ExplorerData::from_profile(&sample::profile_with_error()),
        );
        key(&mut s, KeyCode::Char('w'));
        insta::assert_snapshot!(format!("sample_log_{w}x{h}"), screen(&s));
    }
}

#[test]
fn help() {
    each_size!("help", |s| {
        key(&mut s, KeyCode::Char('?'));
    });
}

#[test]
fn empty_filter_result() {
    each_size!("empty_filter", |s| {
        key(&mut s, KeyCode::Char('/'));
        keys(&mut s, "xyz");
    });
}

#[test]
fn loading_state() {
    for (w, h) in SIZES {
        let mut s = AppState::new(w, h);
        s.load(ProfileRequest::new("big.etdp".into(), None, 5));
        update(
            &mut s,
            Action::Progress {
                generation: 1,
                phase: LoadPhase::Reading,
                bytes_done: 50 * 1024 * 1024,
                bytes_total: 200 * 1024 * 1024,
            },
        );
        insta::assert_snapshot!(format!("loading_{w}x{h}"), screen(&s));
    }
}

#[test]
fn error_dialog_over_last_good_profile() {
    for (w, h) in SIZES {
        let mut s = sample_state(w, h);
        key(&mut s, KeyCode::Char('+'));
        update(
            &mut s,
            Action::Loaded {
                generation: 2,
                result: Err(Some(
                    "fixtures/real/bad_flipped.etdp: not an ETDump (identifier is \"00DE\", expected \"ED00\")"
                        .into(),
                )),
            },
        );
        insta::assert_snapshot!(format!("error_dialog_{w}x{h}"), screen(&s));
    }
}
