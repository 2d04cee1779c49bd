//! The help view's key table (`ViewKind::Help`), in the key language.

use ratatui::crossterm::event::KeyCode;

use crate::app::binding::{b, Binding, PAGE_UP, QUIT};
use crate::app::command::Command;
use crate::app::keys::{ch, code, ctrl, Meaning};

use Command as K;
use Meaning as M;

pub static HELP: &[Binding] = &[
    b(
        M::Move,
        &[ch('j'), code(KeyCode::Down)],
        K::Down,
        "scroll down",
    ),
    b(M::Move, &[ch('k'), code(KeyCode::Up)], K::Up, "scroll up"),
    b(
        M::Page,
        &[code(KeyCode::PageDown), ctrl('d'), ch(' ')],
        K::PageDown,
        "page down (also Space)",
    ),
    PAGE_UP,
    b(
        M::Ends,
        &[ch('g'), code(KeyCode::Home)],
        K::Top,
        "first line",
    ),
    b(
        M::Ends,
        &[ch('G'), code(KeyCode::End)],
        K::Bottom,
        "last page",
    ),
    b(
        M::Filter,
        &[ch('/')],
        K::StartFilter,
        "search the help (ignoring case); the match is the top line",
    ),
    b(
        M::Match,
        &[ch(']')],
        K::NextMatch,
        "next line matching the / search (k of n in the status line)",
    ),
    b(
        M::Match,
        &[ch('[')],
        K::PrevMatch,
        "previous line matching the / search",
    ),
    b(M::Help, &[ch('?')], K::ToggleHelp, "close help (again: ?)"),
    b(
        M::Back,
        &[code(KeyCode::Esc)],
        K::Back,
        "clear the search, then close help",
    ),
    QUIT,
];
