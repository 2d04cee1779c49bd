//! The flame graph view's key table (`ViewKind::Flame`), drawn from the key language.

use ratatui::crossterm::event::KeyCode;

use super::model::FlameCommand;
use crate::app::binding::{b, Binding, HELP_KEY, QUIT};
use crate::app::command::Command;
use crate::app::keys::{ch, code, Key, Meaning};

use Command as K;
use Meaning as M;

const fn fl(
    meaning: Meaning,
    keys: &'static [Key],
    c: FlameCommand,
    help: &'static str,
) -> Binding {
    b(meaning, keys, Command::Flame(c), help)
}

pub static FLAME: &[Binding] = &[
    fl(
        M::Sideways,
        &[ch('h'), code(KeyCode::Left)],
        FlameCommand::Left,
        "the frame to the left on the same row",
    ),
    fl(
        M::Sideways,
        &[ch('l'), code(KeyCode::Right)],
        FlameCommand::Right,
        "the frame to the right on the same row",
    ),
    fl(
        M::Move,
        &[ch('j'), code(KeyCode::Down)],
        FlameCommand::Child,
        "down to the widest child",
    )
    .hint("move"),
    fl(
        M::Move,
        &[ch('k'), code(KeyCode::Up)],
        FlameCommand::Parent,
        "up to the parent",
    ),
    fl(
        M::Open,
        &[code(KeyCode::Enter)],
        FlameCommand::Zoom,
        "zoom: the selected frame fills the width, its ancestors stay as the breadcrumb (mouse: click selects, double-click zooms)",
    )
    .hint("zoom"),
    b(
        M::Back,
        &[code(KeyCode::Esc)],
        K::Back,
        "zoom out one level; then clear the search; then close the view",
    )
    .hint("zoom out/back"),
    b(
        M::Delete,
        &[code(KeyCode::Backspace)],
        K::Back,
        "as Esc (outside the search field)",
    ),
    b(
        M::Filter,
        &[ch('/')],
        K::StartFilter,
        "search: highlight the frames whose name contains the text, with their total share",
    )
    .hint("search"),
    b(
        M::Match,
        &[ch(']')],
        K::NextMatch,
        "next matching frame (zooms out or in to show it)",
    ),
    b(M::Match, &[ch('[')], K::PrevMatch, "previous matching frame"),
    fl(
        M::Weighting,
        &[ch('%')],
        FlameCommand::Weighting,
        "widths: median run or sum over kept runs (differential: B's or A's median)",
    ),
    fl(
        M::Sort,
        &[ch('s')],
        FlameCommand::Order,
        "left-heavy: identical stacks merged, instance numbers aside (OPERATOR_CALL #3 and #7, GEMM #1 and #2, threads: one frame each), widest first; again: as recorded",
    )
    .hint("left-heavy"),
    fl(
        M::Sandwich,
        &[ch('i')],
        FlameCommand::Sandwich,
        "sandwich of the selected frame's name: its callers above, its callees below, merged across the graph, with its total and self time (Enter re-centres on a frame; i or Esc: back to the graph)",
    ),
    b(
        M::Reveal,
        &[ch('r')],
        K::Reveal,
        "reveal the selected frame in the explorer's tree (closes the view)",
    ),
    b(
        M::Flame,
        &[ch('f')],
        K::ToggleFlame,
        "close the flame graph",
    )
    .hint("close"),
    HELP_KEY,
    QUIT,
];
