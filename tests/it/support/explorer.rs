//! The explorer as the shell drives it, for the view tests: a profile loaded through the
//! real loader into an `AppState` of a given size, keys pressed through `update`, the frame
//! drawn as text.
#![allow(dead_code)]

use std::sync::atomic::AtomicBool;

use cpuprof_tui::app::{update, Action, AppState, Effect, ExplorerData, ExplorerView};
use cpuprof_tui::profile::ProfileRequest;
use cpuprof_tui::ui::{self, Theme};
use cpuprof_tui::worker::load_explorer_data;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

pub use super::render;

/// The four sizes every view is drawn at.
pub const SIZES: [(u16, u16); 4] = [(80, 24), (120, 40), (160, 48), (230, 60)];

pub fn request(path: &str, warmup: usize) -> ProfileRequest {
    ProfileRequest::new(path.into(), None, warmup)
}

/// `path` through the loader the worker runs.
pub fn load(path: &str, warmup: usize) -> Result<ExplorerData, String> {
    load_explorer_data(&request(path, warmup), &mut |_| {}, &AtomicBool::new(false))
        .map_err(|e| e.to_string())
}

/// An explorer of `w` x `h` that asked for `request` and got what the loader gives.
pub fn opened_request(request: ProfileRequest, (w, h): (u16, u16)) -> AppState {
    load_into(AppState::new(w, h), request)
}

/// `s` (set up by the test: a peak, a size) after asking for `request` and getting what
/// the loader gives.
pub fn load_into(mut s: AppState, request: ProfileRequest) -> AppState {
    let effects = s.load(request.clone());
    let Some(Effect::Load { generation, .. }) = effects.first().cloned() else {
        unreachable!("a load asks the worker to load")
    };
    let result = load_explorer_data(&request, &mut |_| {}, &AtomicBool::new(false))
        .map(Box::new)
        .map_err(|e| e.to_string());
    update(&mut s, Action::Loaded { generation, result });
    s
}

pub fn opened(path: &str, warmup: usize, size: (u16, u16)) -> AppState {
    opened_request(request(path, warmup), size)
}

pub fn key(s: &mut AppState, code: KeyCode) -> Vec<Effect> {
    update(s, Action::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

pub fn press(s: &mut AppState, c: char) -> Vec<Effect> {
    key(s, KeyCode::Char(c))
}

/// Each character of `text` as a key.
pub fn keys(s: &mut AppState, text: &str) {
    for c in text.chars() {
        press(s, c);
    }
}

/// The whole frame as text, without colour.
pub fn screen(s: &AppState) -> String {
    screen_with(s, Theme::plain())
}

pub fn screen_with(s: &AppState, theme: Theme) -> String {
    render::frame_text(s.session.width, s.session.height, |f| {
        ui::draw(f, s, &theme)
    })
}

/// `t` pressed: the timeline the view asks for, not loaded yet.
pub fn ask_timeline(s: &mut AppState) -> (ProfileRequest, u64) {
    let effects = press(s, 't');
    let Some(Effect::LoadTimeline {
        request,
        generation,
        ..
    }) = effects.first().cloned()
    else {
        panic!("t asks for the timeline: {effects:?}")
    };
    (request, generation)
}

/// The timeline asked for, loaded as the shell's timeline thread would.
pub fn timeline_arrives(s: &mut AppState, (request, generation): (ProfileRequest, u64)) {
    let result = cpuprof_tui::source::load_timeline(&request).map(Box::new);
    update(s, Action::TimelineLoaded { generation, result });
}

/// `t`, and its timeline loaded.
pub fn timeline(s: &mut AppState) {
    let asked = ask_timeline(s);
    timeline_arrives(s, asked);
}

/// `compare A B --warmup WARMUP` as the command line gives it: every other option at the
/// command's own default (alpha 0.05, 5% minimum change).
pub fn compare_args(
    a: impl Into<std::path::PathBuf>,
    b: impl Into<std::path::PathBuf>,
    warmup: usize,
) -> cpuprof_tui::cli::CompareArgs {
    use clap::Parser;
    let argv: Vec<std::ffi::OsString> = vec![
        "cpuprof-tui".into(),
        "compare".into(),
        a.into().into_os_string(),
        b.into().into_os_string(),
        "--warmup".into(),
        warmup.to_string().into(),
    ];
    match cpuprof_tui::cli::Cli::parse_from(argv).command {
        Some(cpuprof_tui::cli::Command::Compare(args)) => args,
        _ => panic!("`compare A B` parses as the compare command"),
    }
}

/// The explorer's state, found in the stack as the shell finds it
/// (`ViewStack::explorer`): the tests read its panes.
pub trait ExplorerOf {
    fn explorer(&self) -> &ExplorerView;
    fn explorer_mut(&mut self) -> &mut ExplorerView;
}

impl ExplorerOf for AppState {
    fn explorer(&self) -> &ExplorerView {
        self.views.explorer().expect("an explorer in the stack")
    }

    fn explorer_mut(&mut self) -> &mut ExplorerView {
        self.views.explorer_mut().expect("an explorer in the stack")
    }
}
