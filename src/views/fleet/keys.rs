//! The fleet view's key table (`ViewKind::Fleet`), drawn from the key language.

use ratatui::crossterm::event::KeyCode;

use crate::app::binding::{b, Binding, HELP_KEY, QUIT};
use crate::app::command::Command;
use crate::app::keys::{ch, code, ctrl, Meaning};

use Command as K;
use Meaning as M;

// One binding a line: the table reads as the help does.
#[rustfmt::skip]
pub static FLEET: &[Binding] = &[
    b(M::Move, &[ch('j'), code(KeyCode::Down)], K::Down, "move down (profiles: the rows table follows the profile's group)"),
    b(M::Move, &[ch('k'), code(KeyCode::Up)], K::Up, "move up"),
    b(M::Page, &[code(KeyCode::PageDown), ctrl('d')], K::PageDown, "page down"),
    b(M::Page, &[code(KeyCode::PageUp), ctrl('u')], K::PageUp, "page up"),
    b(M::Ends, &[ch('g'), code(KeyCode::Home)], K::Top, "first line"),
    b(M::Ends, &[ch('G'), code(KeyCode::End)], K::Bottom, "last line"),
    b(M::Pane, &[code(KeyCode::Tab), code(KeyCode::BackTab)], K::NextPane, "profiles list or rows table"),
    b(M::Open, &[code(KeyCode::Enter)], K::Enter, "open the selected profile in the explorer (Esc returns to the fleet)").hint("open profile"),
    b(M::CompareBaseline, &[ch('d')], K::CompareBaseline, "compare the selected profile with its group's median profile (the compare view)").hint("vs median"),
    b(M::Sort, &[ch('s')], K::SortNext, "next sort: profiles (as found, median, id, errors); rows (program order, median, CV, outliers)"),
    b(M::SortReverse, &[ch('S')], K::SortReverse, "reverse the sort"),
    b(M::Filter, &[ch('/')], K::StartFilter, "filter the focused pane (profiles: id, path, metadata, error; rows: name)"),
    b(M::Back, &[code(KeyCode::Esc)], K::Back, "back: clear the filter, rows → profiles"),
    HELP_KEY,
    QUIT,
];
