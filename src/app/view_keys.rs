//! The key tables of the log view and the timeline view (`ViewKind::Log`,
//! `ViewKind::Timeline`), drawn from the key language.

use ratatui::crossterm::event::KeyCode;

use super::binding::{b, Binding, HELP_KEY, PAGE_DOWN, PAGE_UP, QUIT};
use super::command::Command;
use super::keys::{ch, code, Key, Meaning};
use crate::views::timeline::state::TimelineCommand;

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
