//! The explorer's key table (`ViewKind::Explorer`): the panes, the table's sort and
//! filter, the views it opens, watch mode's runs.

use ratatui::crossterm::event::KeyCode;

use crate::app::binding::{b, Binding, BOTTOM, DOWN, HELP_KEY, PAGE_DOWN, PAGE_UP, QUIT, TOP, UP};
use crate::app::column::Column;
use crate::app::command::Command;
use crate::app::keys::{ch, code, Meaning};

use Command as K;
use Meaning as M;

pub static EXPLORER: &[Binding] = &[
    DOWN,
    UP,
    PAGE_DOWN,
    PAGE_UP,
    TOP,
    BOTTOM,
    b(
        M::Pane,
        &[code(KeyCode::Tab)],
        K::NextPane,
        "next pane (runs when watching, tree, operators, detail)",
    ),
    b(
        M::Pane,
        &[code(KeyCode::BackTab)],
        K::PrevPane,
        "previous pane",
    ),
    b(
        M::Open,
        &[code(KeyCode::Enter)],
        K::Enter,
        "expand/collapse node, list its operators; operator: detail",
    ),
    b(
        M::Back,
        &[code(KeyCode::Esc)],
        K::Back,
        "back: clear filter (any pane), then one level: detail, table, scope, types",
    ),
    b(
        M::Sideways,
        &[ch('h'), code(KeyCode::Left)],
        K::Collapse,
        "tree: collapse node / go to parent; table: scroll columns left",
    ),
    b(
        M::Sideways,
        &[ch('l'), code(KeyCode::Right)],
        K::Expand,
        "tree: expand node; table: scroll columns right",
    ),
    b(M::FoldAll, &[ch('e')], K::ExpandAll, "tree: expand all"),
    b(
        M::FoldAll,
        &[ch('E')],
        K::CollapseAll,
        "tree: collapse all (the root stays open)",
    ),
    b(
        M::Filter,
        &[ch('/')],
        K::StartFilter,
        "search: filter operators by name (live); ] and [ then walk the tree's matches",
    ),
    b(
        M::Sort,
        &[ch('s')],
        K::SortNext,
        "sort operators by the next column",
    ),
    b(
        M::SortReverse,
        &[ch('S')],
        K::SortReverse,
        "reverse sort direction",
    ),
    b(
        M::SortColumn,
        crate::app::keys::SORT_COLUMN_KEYS,
        K::SortColumn(Column::Name),
        "sort by the column whose title brackets that letter ([M]edian: M); again reverses",
    ),
    b(
        M::AllScopes,
        &[ch('a')],
        K::ScopeAll,
        "operators of all delegates",
    ),
    b(
        M::Match,
        &[ch(']')],
        K::NextMatch,
        "tree: next node matching the / search (opens its parents)",
    ),
    b(
        M::Match,
        &[ch('[')],
        K::PrevMatch,
        "tree: previous node matching the / search",
    ),
    b(
        M::Reveal,
        &[ch('r')],
        K::Reveal,
        "reveal the selected operator in the tree",
    ),
    b(
        M::Types,
        &[ch('o')],
        K::GroupByType,
        "table: group operators by type (GEMMs, convolutions, each kernel); Enter lists a type's instances; o again ungroups",
    ),
    b(
        M::Copy,
        &[ch('c')],
        K::CopyRow,
        "copy the selected row (name, delegate, step, stats, shapes) to the clipboard (OSC 52); in the detail pane: the row's source file:line when the ETRecord gives one",
    ),
    b(
        M::Log,
        &[ch('w')],
        K::ToggleLog,
        "warnings, decoded plans and runner log view",
    ),
    b(
        M::Section,
        &[ch('v')],
        K::NextLogSection,
        "the log view at its next section (findings, each decoded CpuBackend plan, the raw log)",
    ),
    b(
        M::Warmup,
        &[ch('+'), ch('=')],
        K::WarmupMore,
        "drop one more warm-up run (reloads)",
    ),
    b(
        M::Warmup,
        &[ch('-')],
        K::WarmupLess,
        "drop one fewer warm-up run (reloads)",
    ),
    b(
        M::Runs,
        &[ch('n')],
        K::NewerRun,
        "watch: show the next newer run",
    ),
    b(
        M::Runs,
        &[ch('p')],
        K::OlderRun,
        "watch: show the next older run",
    ),
    b(
        M::Runs,
        &[ch('N')],
        K::NewestRun,
        "watch: show the newest run and follow new ones",
    ),
    b(
        M::Baseline,
        &[ch('b')],
        K::PinBaseline,
        "watch: the selected run becomes the baseline of its model's change column (again: the previous run)",
    ),
    b(
        M::CompareBaseline,
        &[ch('d')],
        K::CompareBaseline,
        "watch: compare the selected run with its baseline (the compare view; Esc returns)",
    ),
    b(
        M::Timeline,
        &[ch('t')],
        K::ToggleTimeline,
        "timeline of one run (trace: of every thread)",
    ),
    b(
        M::Modules,
        &[ch('m')],
        K::ToggleModules,
        "modules view: the nn.Module tree with inclusive times (needs the ETRecord)",
    ),
    b(
        M::Flame,
        &[ch('f')],
        K::ToggleFlame,
        "flame graph of the tree (dump: per method; trace: call tree per thread)",
    ),
    HELP_KEY,
    QUIT,
];
