//! What a key asks for (`Command`) and which key table is live (`ViewKind`): plain data
//! shared by the key tables (`key_tables`), the dispatch (`keymap`) and the views.

use tui_input::InputRequest;

use super::column::Column;
use crate::views::flame::model::FlameCommand;
use crate::views::timeline::state::TimelineCommand;

/// What a key asks for. Plain data; the view on top decides what it means there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Quit,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    NextPane,
    PrevPane,
    Enter,
    /// Back one level: the view's own back (clear, collapse), else close the view.
    Back,
    Collapse,
    Expand,
    ExpandAll,
    CollapseAll,
    StartFilter,
    SortNext,
    SortReverse,
    /// Sort by this column (its title's bracketed letter, shifted); again reverses.
    SortColumn(Column),
    ScopeAll,
    /// Show the selected operator (or warning) in the tree.
    Reveal,
    /// Copy the selected row to the clipboard (OSC 52).
    CopyRow,
    /// Operator types instead of operators in the table (and back).
    GroupByType,
    /// The warnings & log view, at its next section (findings, plans, raw log).
    NextLogSection,
    /// The next / previous tree node matching the search (`/`).
    NextMatch,
    PrevMatch,
    ToggleLog,
    ToggleHelp,
    WarmupMore,
    WarmupLess,
    NewerRun,
    OlderRun,
    NewestRun,
    /// Watch: the selected run becomes the baseline (again: unpinned).
    PinBaseline,
    /// Watch: the compare view of the selected run against its baseline.
    CompareBaseline,
    Dismiss,
    FilterAccept,
    FilterCancel,
    FilterEdit(InputRequest),
    ToggleTimeline,
    Timeline(TimelineCommand),
    /// Compare: swap A and B.
    Swap,
    /// Compare: hide (or show again) the rows whose verdict is `same`.
    ToggleUnchanged,
    /// The modules view (`m`): open from the explorer, close from the view.
    ToggleModules,
    /// The flame graph of what is on screen (`f`; in the flame view: close it).
    ToggleFlame,
    Flame(FlameCommand),
}

/// Which key table is live: the view on top of the stack, or the text field of a filter
/// being typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewKind {
    Explorer,
    /// Typing a filter (after `/`, in the explorer or the compare view).
    Filter,
    Log,
    Timeline,
    Compare,
    /// The flame graph (`f`, over the explorer or the compare view).
    Flame,
    Help,
    Dialog,
    /// The nn.Module tree (after `m`).
    Modules,
    /// Many profiles at once (`fleet PATH...`, a folder of dumps).
    Fleet,
}

impl ViewKind {
    /// Every key table, in the order the help and docs/reference.md list them.
    pub const ALL: [ViewKind; 10] = [
        ViewKind::Explorer,
        ViewKind::Filter,
        ViewKind::Log,
        ViewKind::Timeline,
        ViewKind::Modules,
        ViewKind::Compare,
        ViewKind::Flame,
        ViewKind::Fleet,
        ViewKind::Help,
        ViewKind::Dialog,
    ];

    /// The view in a sentence: `f: not available in the log view`.
    pub fn name(self) -> &'static str {
        match self {
            ViewKind::Explorer => "explorer",
            ViewKind::Filter => "text field",
            ViewKind::Log => "log view",
            ViewKind::Timeline => "timeline",
            ViewKind::Compare => "compare view",
            ViewKind::Flame => "flame graph",
            ViewKind::Help => "help",
            ViewKind::Dialog => "error dialog",
            ViewKind::Modules => "modules view",
            ViewKind::Fleet => "fleet view",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            ViewKind::Explorer => "Explorer",
            ViewKind::Filter => "Filter input (after /)",
            ViewKind::Log => "Warnings & log (after w)",
            ViewKind::Timeline => "Timeline (after t)",
            ViewKind::Compare => "Compare (compare A B; watch: d)",
            ViewKind::Flame => "Flame graph (after f)",
            ViewKind::Help => "Help",
            ViewKind::Dialog => "Error dialog",
            ViewKind::Modules => "Modules (after m)",
            ViewKind::Fleet => "Fleet (fleet PATH...; a folder of dumps)",
        }
    }
}
