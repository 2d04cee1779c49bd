//! The modules view's key table (`ViewKind::Modules`), in the key language.

use ratatui::crossterm::event::KeyCode;

use crate::app::binding::{b, Binding, BOTTOM, DOWN, HELP_KEY, PAGE_DOWN, PAGE_UP, QUIT, TOP, UP};
use crate::app::command::Command;
use crate::app::keys::{ch, code, Meaning};

use Command as K;
use Meaning as M;

#[rustfmt::skip]
pub static MODULES: &[Binding] = &[
    DOWN, UP, PAGE_DOWN, PAGE_UP, TOP, BOTTOM,
    b(M::Open, &[code(KeyCode::Enter)], K::Enter, "module: open / close; row: reveal it in the tree"),
    b(M::Sideways, &[ch('h'), code(KeyCode::Left)], K::Collapse, "close the module / go to its parent"),
    b(M::Sideways, &[ch('l'), code(KeyCode::Right)], K::Expand, "open the module"),
    b(M::FoldAll, &[ch('e')], K::ExpandAll, "open every module"),
    b(M::FoldAll, &[ch('E')], K::CollapseAll, "close every module (the roots stay open)"),
    b(M::Sort, &[ch('s')], K::SortNext, "next sort: model order, median, mean, path"),
    b(M::SortReverse, &[ch('S')], K::SortReverse, "reverse the sort"),
    b(M::Filter, &[ch('/')], K::StartFilter, "filter by path, type or row name (live)"),
    b(M::Reveal, &[ch('r')], K::Reveal, "reveal the row in the explorer's tree (closes the view)"),
    b(M::Copy, &[ch('c')], K::CopyRow, "copy the module path, or the row's file:line (OSC 52)"),
    b(M::Modules, &[ch('m')], K::ToggleModules, "close the modules view").hint("close"),
    b(M::Back, &[code(KeyCode::Esc)], K::Back, "back: clear the filter, then close the view"),
    HELP_KEY,
    QUIT,
];
