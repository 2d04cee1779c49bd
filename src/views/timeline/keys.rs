//! The timeline view's key table (`ViewKind::Timeline`), in the key language.

use ratatui::crossterm::event::KeyCode;

use crate::app::binding::{b, Binding, HELP_KEY, QUIT};
use crate::app::command::Command;
use crate::app::keys::{ch, code, Key, Meaning};

use crate::views::timeline::state::TimelineCommand;
use Command as K;
use Meaning as M;

const fn tl(
    meaning: Meaning,
    keys: &'static [Key],
    c: TimelineCommand,
    help: &'static str,
) -> Binding {
    b(meaning, keys, Command::Timeline(c), help)
}

pub static TIMELINE: &[Binding] = &[
    tl(
        M::Sideways,
        &[ch('h'), code(KeyCode::Left)],
        TimelineCommand::PrevBar,
        "select the previous bar in the lane",
    )
    .hint("bar"),
    tl(
        M::Sideways,
        &[ch('l'), code(KeyCode::Right)],
        TimelineCommand::NextBar,
        "select the next bar in the lane",
    )
    .hint("bar"),
    tl(
        M::Move,
        &[ch('k'), code(KeyCode::Up)],
        TimelineCommand::LaneUp,
        "lane above (the bar nearest in time)",
    ),
    tl(
        M::Move,
        &[ch('j'), code(KeyCode::Down)],
        TimelineCommand::LaneDown,
        "lane below (the bar nearest in time)",
    ),
    tl(
        M::Zoom,
        &[ch('z')],
        TimelineCommand::ZoomIn,
        "zoom in around the selected bar",
    )
    .hint("zoom"),
    tl(M::Zoom, &[ch('Z')], TimelineCommand::ZoomOut, "zoom out").hint("zoom"),
    tl(
        M::Pan,
        &[ch('<'), ch(',')],
        TimelineCommand::PanLeft,
        "pan left",
    ),
    tl(
        M::Pan,
        &[ch('>'), ch('.')],
        TimelineCommand::PanRight,
        "pan right",
    ),
    tl(
        M::Fit,
        &[ch('0')],
        TimelineCommand::Fit,
        "whole run in view",
    ),
    tl(
        M::Runs,
        &[ch('p')],
        TimelineCommand::PrevRun,
        "previous run",
    )
    .hint("run"),
    tl(M::Runs, &[ch('n')], TimelineCommand::NextRun, "next run").hint("run"),
    tl(
        M::PickRun,
        &[ch('W')],
        TimelineCommand::SlowestRun,
        "slowest run (longest Method::execute)",
    ),
    tl(
        M::PickRun,
        &[ch('~')],
        TimelineCommand::MedianRun,
        "run closest to the median Method::execute",
    ),
    b(
        M::Filter,
        &[ch('/')],
        K::StartFilter,
        "search the bars by name (ignoring case); matches highlighted",
    )
    .hint("search"),
    b(
        M::Match,
        &[ch(']')],
        K::NextMatch,
        "select the next matching bar (k of n in the status line)",
    )
    .hint("match"),
    b(
        M::Match,
        &[ch('[')],
        K::PrevMatch,
        "select the previous matching bar",
    )
    .hint("match"),
    b(
        M::Timeline,
        &[ch('t')],
        K::ToggleTimeline,
        "close the timeline",
    )
    .hint("close"),
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
