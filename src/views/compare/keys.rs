//! The compare view's key table (`ViewKind::Compare`), in the key language.

use ratatui::crossterm::event::KeyCode;

use crate::app::binding::{b, Binding, BOTTOM, DOWN, PAGE_DOWN, PAGE_UP, QUIT, TOP, UP};
use crate::app::command::Command;
use crate::app::keys::{ch, code, Meaning};

use Command as K;
use Meaning as M;

pub static COMPARE: &[Binding] = &[
    DOWN.hint("move"),
    UP.hint("move"),
    PAGE_DOWN,
    PAGE_UP,
    TOP,
    BOTTOM,
    b(
        M::Pane,
        &[code(KeyCode::Tab), code(KeyCode::BackTab)],
        K::NextPane,
        "tree (program order) or table (sorted)",
    )
    .hint("tree/table"),
    b(
        M::Sort,
        &[ch('s')],
        K::SortNext,
        "next sort: verdict, change, name, median A",
    )
    .hint("sort"),
    b(
        M::Filter,
        &[ch('/')],
        K::StartFilter,
        "filter rows by name (live)",
    )
    .hint("filter"),
    b(
        M::Unchanged,
        &[ch('u')],
        K::ToggleUnchanged,
        "hide unchanged rows: only slower, faster, added, removed, the tree keeping their ancestors dimmed (again: all)",
    )
    .hint("changed only"),
    b(M::Swap, &[ch('x')], K::Swap, "swap A and B").hint("swap A/B"),
    b(
        M::Copy,
        &[ch('c')],
        K::CopyRow,
        "copy the selected row (name, kind, delegate, medians, change, p, path) to the clipboard (OSC 52)",
    )
    .hint("copy"),
    b(
        M::Flame,
        &[ch('f')],
        K::ToggleFlame,
        "differential flame graph: B's widths, coloured by verdict",
    )
    .hint("flame"),
    b(
        M::Back,
        &[code(KeyCode::Esc)],
        K::Back,
        "back: clear the filter, then close the view (watch mode: to the explorer)",
    )
    .hint("back"),
    b(
        M::Help,
        &[ch('?')],
        K::ToggleHelp,
        "help (lists every warning too)",
    )
    .hint("help"),
    QUIT,
];
