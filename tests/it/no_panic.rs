//! Any sequence of keys, clicks and resizes, at any terminal size (including 0x0), on a
//! real profile or with nothing loaded, never panics in `update` or in rendering.

use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;

use cpuprof_tui::app::{update, Action, AppState, Effect, ExplorerData, MouseAction};
use cpuprof_tui::profile::{load_profile, LoadPhase, ProfileRequest};
use cpuprof_tui::ui::{self, Theme};
use proptest::prelude::*;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

fn wide() -> &'static ExplorerData {
    static DATA: OnceLock<ExplorerData> = OnceLock::new();
    DATA.get_or_init(|| {
        let r = ProfileRequest::new("fixtures/cpu/wide_browse.etdp".into(), None, 5);
        ExplorerData::from_profile(&load_profile(&r, &mut |_| {}, &AtomicBool::new(false)).unwrap())
    })
}

const KEYS: &[KeyCode] = &[
    KeyCode::Char('j'),
    KeyCode::Char('k'),
    KeyCode::Char('g'),
    KeyCode::Char('G'),
    KeyCode::Char('e'),
    KeyCode::Char('E'),
    KeyCode::Char('h'),
    KeyCode::Char('l'),
    KeyCode::Char('s'),
    KeyCode::Char('S'),
    KeyCode::Char('a'),
    KeyCode::Char('w'),
    KeyCode::Char('?'),
    KeyCode::Char('/'),
    KeyCode::Char('+'),
    KeyCode::Char('-'),
    KeyCode::Char('c'),
    KeyCode::Char('µ'),
    KeyCode::Tab,
    KeyCode::BackTab,
    KeyCode::Enter,
    KeyCode::Esc,
    KeyCode::Up,
    KeyCode::Down,
    KeyCode::Left,
    KeyCode::Right,
    KeyCode::PageUp,
    KeyCode::PageDown,
    KeyCode::Home,
    KeyCode::End,
    KeyCode::Backspace,
];

#[derive(Debug, Clone)]
enum Step {
    Key(usize),
    Mouse(u8, u16, u16),
    Resize(u16, u16),
    Progress(u64, u64),
    Fail,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (0..KEYS.len()).prop_map(Step::Key),
        2 => (0u8..3, 0u16..200, 0u16..60).prop_map(|(k, x, y)| Step::Mouse(k, x, y)),
        1 => (0u16..200, 0u16..60).prop_map(|(w, h)| Step::Resize(w, h)),
        1 => (any::<u64>(), any::<u64>()).prop_map(|(a, b)| Step::Progress(a, b)),
        1 => Just(Step::Fail),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn never_panics(w in 0u16..170, h in 0u16..50, loaded in any::<bool>(), steps in prop::collection::vec(step(), 0..60)) {
        let mut s = AppState::new(w, h);
        let effects = s.load(ProfileRequest::new("x.etdp".into(), None, 5));
        let Some(Effect::Load { generation, .. }) = effects.first().cloned() else { unreachable!() };
        if loaded {
            update(&mut s, Action::Loaded { generation, result: Ok(Box::new(wide().clone())) });
        }
        let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
        for st in steps {
            let action = match st {
                Step::Key(i) => Action::Key(KeyEvent::new(KEYS[i], KeyModifiers::NONE)),
                Step::Mouse(k, x, y) => Action::Mouse {
                    kind: [MouseAction::Click, MouseAction::ScrollUp, MouseAction::ScrollDown][k as usize],
                    x,
                    y,
                },
                Step::Resize(w, h) => {
                    term = Terminal::new(TestBackend::new(w, h)).unwrap();
                    Action::Resize(w, h)
                }
                Step::Progress(done, total) => Action::Progress {
                    generation: s.session.generation,
                    phase: LoadPhase::Parsing,
                    bytes_done: done,
                    bytes_total: total,
                },
                Step::Fail => Action::Loaded { generation: s.session.generation, result: Err("x.etdp: bad".into()) },
            };
            update(&mut s, action);
            term.draw(|f| ui::draw(f, &s, &Theme::plain())).unwrap();
        }
    }
}
