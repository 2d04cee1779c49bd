//! The log view's key table (`ViewKind::Log`), in the key language.

use ratatui::crossterm::event::KeyCode;

use crate::app::binding::{b, Binding, HELP_KEY, PAGE_DOWN, PAGE_UP, QUIT};
use crate::app::command::Command;
use crate::app::keys::{ch, code, Meaning};

use Command as K;
use Meaning as M;

pub static LOG: &[Binding] = &[
    b(
        M::Move,
        &[ch('j'), code(KeyCode::Down)],
        K::Down,
        "select the next line (the view follows)",
    )
    .hint("move"),
    b(
        M::Move,
        &[ch('k'), code(KeyCode::Up)],
        K::Up,
        "select the previous line",
    )
    .hint("move"),
    b(
        M::Sideways,
        &[ch('h'), code(KeyCode::Left)],
        K::Collapse,
        "scroll long log lines left",
    ),
    b(
        M::Sideways,
        &[ch('l'), code(KeyCode::Right)],
        K::Expand,
        "scroll long log lines right",
    ),
    PAGE_DOWN,
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
        "last line",
    ),
    b(
        M::Section,
        &[ch('v')],
        K::NextLogSection,
        "next section (findings, each decoded CpuBackend plan, the raw log)",
    )
    .hint("next section"),
    b(
        M::Filter,
        &[ch('/')],
        K::StartFilter,
        "search the findings, plans and log lines (ignoring case); matches highlighted",
    )
    .hint("search"),
    b(
        M::Match,
        &[ch(']')],
        K::NextMatch,
        "next line matching the / search (k of n in the status line)",
    )
    .hint("match"),
    b(
        M::Match,
        &[ch('[')],
        K::PrevMatch,
        "previous line matching the / search",
    )
    .hint("match"),
    b(
        M::Reveal,
        &[ch('r')],
        K::Reveal,
        "the selected finding in the tree (closes the log)",
    )
    .hint("reveal"),
    b(
        M::Copy,
        &[ch('c')],
        K::CopyRow,
        "copy the selected finding (or line) to the clipboard (OSC 52)",
    )
    .hint("copy"),
    b(M::Log, &[ch('w')], K::ToggleLog, "close the log view").hint("close"),
    b(
        M::Back,
        &[code(KeyCode::Esc)],
        K::Back,
        "back: clear the search, then to the explorer",
    )
    .hint("back"),
    HELP_KEY,
    QUIT,
];
