//! Key bindings, one table per mode. The same tables dispatch keys (`lookup`) and
//! generate the help screen (`help_lines`), so help can never drift from behaviour.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tui_input::InputRequest;

use super::table::Column;
use super::timeline::TimelineCommand;

/// What a key asks for. Plain data; `update` decides what it means in the current state.
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
    Dismiss,
    FilterAccept,
    FilterCancel,
    FilterEdit(InputRequest),
    ToggleTimeline,
    Timeline(TimelineCommand),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Normal,
    FilterInput,
    Help,
    Dialog,
    Timeline,
}

impl Mode {
    pub const ALL: [Mode; 5] = [
        Mode::Normal,
        Mode::FilterInput,
        Mode::Timeline,
        Mode::Help,
        Mode::Dialog,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Mode::Normal => "Explorer",
            Mode::FilterInput => "Filter input (after /)",
            Mode::Help => "Help",
            Mode::Dialog => "Error dialog",
            Mode::Timeline => "Timeline (after t)",
        }
    }
}

pub struct Binding {
    pub keys: &'static [(KeyCode, KeyModifiers)],
    pub command: Command,
    pub help: &'static str,
}

const N: KeyModifiers = KeyModifiers::NONE;
const C: KeyModifiers = KeyModifiers::CONTROL;

const fn ch(c: char) -> (KeyCode, KeyModifiers) {
    (KeyCode::Char(c), N)
}

const QUIT: Binding = Binding {
    keys: &[ch('q'), (KeyCode::Char('c'), C)],
    command: Command::Quit,
    help: "quit (works while loading)",
};

static NORMAL: &[Binding] = &[
    Binding {
        keys: &[ch('j'), (KeyCode::Down, N)],
        command: Command::Down,
        help: "move down",
    },
    Binding {
        keys: &[ch('k'), (KeyCode::Up, N)],
        command: Command::Up,
        help: "move up",
    },
    Binding {
        keys: &[(KeyCode::PageDown, N), (KeyCode::Char('d'), C)],
        command: Command::PageDown,
        help: "page down",
    },
    Binding {
        keys: &[(KeyCode::PageUp, N), (KeyCode::Char('u'), C)],
        command: Command::PageUp,
        help: "page up",
    },
    Binding {
        keys: &[ch('g'), (KeyCode::Home, N)],
        command: Command::Top,
        help: "first row",
    },
    Binding {
        keys: &[ch('G'), (KeyCode::End, N)],
        command: Command::Bottom,
        help: "last row",
    },
    Binding {
        keys: &[(KeyCode::Tab, N)],
        command: Command::NextPane,
        help: "next pane (runs when watching, tree, operators, detail)",
    },
    Binding {
        keys: &[(KeyCode::BackTab, N)],
        command: Command::PrevPane,
        help: "previous pane",
    },
    Binding {
        keys: &[(KeyCode::Enter, N)],
        command: Command::Enter,
        help: "expand/collapse node, list its operators; operator: detail",
    },
    Binding {
        keys: &[(KeyCode::Esc, N)],
        command: Command::Back,
        help: "back: detail → list, clear filter, table → tree, close log",
    },
    Binding {
        keys: &[ch('h'), (KeyCode::Left, N)],
        command: Command::Collapse,
        help: "tree: collapse node / go to parent; table: scroll columns left",
    },
    Binding {
        keys: &[ch('l'), (KeyCode::Right, N)],
        command: Command::Expand,
        help: "tree: expand node; table: scroll columns right",
    },
    Binding {
        keys: &[ch('e')],
        command: Command::ExpandAll,
        help: "tree: expand all",
    },
    Binding {
        keys: &[ch('E')],
        command: Command::CollapseAll,
        help: "tree: collapse all (the root stays open)",
    },
    Binding {
        keys: &[ch('/')],
        command: Command::StartFilter,
        help: "search: filter operators by name (live); ] and [ then walk the tree's matches",
    },
    Binding {
        keys: &[ch('s')],
        command: Command::SortNext,
        help: "sort operators by the next column",
    },
    Binding {
        keys: &[ch('S')],
        command: Command::SortReverse,
        help: "reverse sort direction",
    },
    Binding {
        keys: &[
            ch('O'),
            ch('D'),
            ch('T'),
            ch('C'),
            ch('M'),
            ch('I'),
            ch('X'),
            ch('P'),
            ch('R'),
            ch('H'),
            ch('F'),
            ch('L'),
            ch('U'),
            ch('A'),
            ch('Y'),
        ],
        command: Command::SortColumn(Column::Name),
        help: "sort by the column whose title brackets that letter ([M]edian: M); again reverses",
    },
    Binding {
        keys: &[ch('a')],
        command: Command::ScopeAll,
        help: "operators of all delegates",
    },
    Binding {
        keys: &[ch(']')],
        command: Command::NextMatch,
        help: "tree: next node matching the / search (opens its parents)",
    },
    Binding {
        keys: &[ch('[')],
        command: Command::PrevMatch,
        help: "tree: previous node matching the / search",
    },
    Binding {
        keys: &[ch('r')],
        command: Command::Reveal,
        help:
            "reveal in the tree: the selected operator, or the warning at the top of the log view",
    },
    Binding {
        keys: &[ch('o')],
        command: Command::GroupByType,
        help: "table: group operators by type (GEMMs, convolutions, each kernel); Enter lists a type's instances",
    },
    Binding {
        keys: &[ch('c')],
        command: Command::CopyRow,
        help:
            "copy the selected row (name, delegate, step, stats, shapes) to the clipboard (OSC 52)",
    },
    Binding {
        keys: &[ch('w')],
        command: Command::ToggleLog,
        help: "warnings, decoded plans and runner log view",
    },
    Binding {
        keys: &[ch('v')],
        command: Command::NextLogSection,
        help: "log view: next section (findings, each decoded CpuBackend plan, the raw log)",
    },
    Binding {
        keys: &[ch('+'), ch('=')],
        command: Command::WarmupMore,
        help: "drop one more warm-up run (reloads)",
    },
    Binding {
        keys: &[ch('-')],
        command: Command::WarmupLess,
        help: "drop one fewer warm-up run (reloads)",
    },
    Binding {
        keys: &[ch('n')],
        command: Command::NewerRun,
        help: "watch: show the next newer run",
    },
    Binding {
        keys: &[ch('p')],
        command: Command::OlderRun,
        help: "watch: show the next older run",
    },
    Binding {
        keys: &[ch('N')],
        command: Command::NewestRun,
        help: "watch: show the newest run and follow new ones",
    },
    Binding {
        keys: &[ch('t')],
        command: Command::ToggleTimeline,
        help: "timeline of one run (trace: of every thread)",
    },
    Binding {
        keys: &[ch('?')],
        command: Command::ToggleHelp,
        help: "this help",
    },
    QUIT,
];

const fn tl(
    keys: &'static [(KeyCode, KeyModifiers)],
    c: TimelineCommand,
    help: &'static str,
) -> Binding {
    Binding {
        keys,
        command: Command::Timeline(c),
        help,
    }
}

static TIMELINE: &[Binding] = &[
    tl(
        &[ch('t'), (KeyCode::Esc, N)],
        TimelineCommand::Close,
        "close the timeline",
    ),
    tl(
        &[ch('h'), (KeyCode::Left, N)],
        TimelineCommand::PrevBar,
        "select the previous bar in the lane",
    ),
    tl(
        &[ch('l'), (KeyCode::Right, N)],
        TimelineCommand::NextBar,
        "select the next bar in the lane",
    ),
    tl(
        &[ch('k'), (KeyCode::Up, N)],
        TimelineCommand::LaneUp,
        "lane above (the bar nearest in time)",
    ),
    tl(
        &[ch('j'), (KeyCode::Down, N)],
        TimelineCommand::LaneDown,
        "lane below (the bar nearest in time)",
    ),
    tl(
        &[ch('+'), ch('=')],
        TimelineCommand::ZoomIn,
        "zoom in around the selected bar",
    ),
    tl(&[ch('-')], TimelineCommand::ZoomOut, "zoom out"),
    tl(&[ch('<'), ch(',')], TimelineCommand::PanLeft, "pan left"),
    tl(&[ch('>'), ch('.')], TimelineCommand::PanRight, "pan right"),
    tl(&[ch('0')], TimelineCommand::Fit, "whole run in view"),
    tl(&[ch('p')], TimelineCommand::PrevRun, "previous run"),
    tl(&[ch('n')], TimelineCommand::NextRun, "next run"),
    tl(
        &[ch('s')],
        TimelineCommand::SlowestRun,
        "slowest run (longest Method::execute)",
    ),
    tl(
        &[ch('m')],
        TimelineCommand::MedianRun,
        "run closest to the median Method::execute",
    ),
    Binding {
        keys: &[ch('?')],
        command: Command::ToggleHelp,
        help: "this help",
    },
    QUIT,
];

static FILTER: &[Binding] = &[
    Binding {
        keys: &[(KeyCode::Enter, N)],
        command: Command::FilterAccept,
        help: "keep the filter, back to the table",
    },
    Binding {
        keys: &[(KeyCode::Esc, N)],
        command: Command::FilterCancel,
        help: "clear the filter",
    },
    Binding {
        keys: &[(KeyCode::Backspace, N)],
        command: Command::FilterEdit(InputRequest::DeletePrevChar),
        help: "delete character",
    },
    Binding {
        keys: &[(KeyCode::Delete, N)],
        command: Command::FilterEdit(InputRequest::DeleteNextChar),
        help: "delete character under the cursor",
    },
    Binding {
        keys: &[(KeyCode::Left, N)],
        command: Command::FilterEdit(InputRequest::GoToPrevChar),
        help: "cursor left",
    },
    Binding {
        keys: &[(KeyCode::Right, N)],
        command: Command::FilterEdit(InputRequest::GoToNextChar),
        help: "cursor right",
    },
    Binding {
        keys: &[(KeyCode::Home, N)],
        command: Command::FilterEdit(InputRequest::GoToStart),
        help: "cursor to start",
    },
    Binding {
        keys: &[(KeyCode::End, N)],
        command: Command::FilterEdit(InputRequest::GoToEnd),
        help: "cursor to end",
    },
    Binding {
        keys: &[(KeyCode::Char('u'), C)],
        command: Command::FilterEdit(InputRequest::DeleteLine),
        help: "clear the text",
    },
    Binding {
        keys: &[(KeyCode::Char('c'), C)],
        command: Command::Quit,
        help: "quit",
    },
];

static HELP: &[Binding] = &[
    Binding {
        keys: &[ch('?'), (KeyCode::Esc, N)],
        command: Command::ToggleHelp,
        help: "close help",
    },
    Binding {
        keys: &[ch('j'), (KeyCode::Down, N)],
        command: Command::Down,
        help: "scroll down",
    },
    Binding {
        keys: &[ch('k'), (KeyCode::Up, N)],
        command: Command::Up,
        help: "scroll up",
    },
    QUIT,
];

static DIALOG: &[Binding] = &[
    Binding {
        keys: &[(KeyCode::Enter, N), (KeyCode::Esc, N)],
        command: Command::Dismiss,
        help: "dismiss (the last good profile stays)",
    },
    QUIT,
];

pub fn bindings(mode: Mode) -> &'static [Binding] {
    match mode {
        Mode::Normal => NORMAL,
        Mode::FilterInput => FILTER,
        Mode::Help => HELP,
        Mode::Dialog => DIALOG,
        Mode::Timeline => TIMELINE,
    }
}

/// Shift is part of the character (`G`, `?`, `+`), so it is ignored for `Char` keys.
fn matches(key: &KeyEvent, code: KeyCode, mods: KeyModifiers) -> bool {
    let relevant = KeyModifiers::CONTROL | KeyModifiers::ALT;
    match (key.code, code) {
        (KeyCode::Char(a), KeyCode::Char(b)) => a == b && (key.modifiers & relevant) == mods,
        (a, b) => a == b && (key.modifiers & relevant) == (mods & relevant),
    }
}

/// The command bound to `key` in `mode`. In filter input, unbound printable characters
/// are typed into the filter.
pub fn lookup(mode: Mode, key: &KeyEvent) -> Option<Command> {
    for b in bindings(mode) {
        if b.keys.iter().any(|(c, m)| matches(key, *c, *m)) {
            if let (Command::SortColumn(_), KeyCode::Char(c)) = (b.command, key.code) {
                return Column::for_key(c).map(Command::SortColumn);
            }
            return Some(b.command);
        }
    }
    if mode == Mode::FilterInput {
        if let KeyCode::Char(c) = key.code {
            if !key
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
            {
                return Some(Command::FilterEdit(InputRequest::InsertChar(c)));
            }
        }
    }
    None
}

/// How a key is written in help and hints.
pub fn key_label(code: KeyCode, mods: KeyModifiers) -> String {
    let base = match code {
        KeyCode::Char(' ') => "Space".to_string(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Up => "↑".into(),
        KeyCode::Down => "↓".into(),
        KeyCode::Left => "←".into(),
        KeyCode::Right => "→".into(),
        KeyCode::PageUp => "PgUp".into(),
        KeyCode::PageDown => "PgDn".into(),
        KeyCode::Home => "Home".into(),
        KeyCode::End => "End".into(),
        KeyCode::Tab => "Tab".into(),
        KeyCode::BackTab => "Shift-Tab".into(),
        KeyCode::Enter => "Enter".into(),
        KeyCode::Esc => "Esc".into(),
        KeyCode::Backspace => "Backspace".into(),
        KeyCode::Delete => "Del".into(),
        other => format!("{other:?}"),
    };
    if mods.contains(KeyModifiers::CONTROL) {
        format!("Ctrl-{base}")
    } else {
        base
    }
}

/// The keys of a binding, joined: `j ↓`.
pub fn keys_label(b: &Binding) -> String {
    b.keys
        .iter()
        .map(|(c, m)| key_label(*c, *m))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Help text: for each mode a title line, then `keys  description` lines.
pub fn help_lines() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for mode in Mode::ALL {
        out.push((String::new(), format!("── {} ──", mode.title())));
        for b in bindings(mode) {
            out.push((keys_label(b), b.help.to_string()));
        }
        if mode == Mode::FilterInput {
            out.push(("other keys".into(), "type into the filter".into()));
        }
    }
    out.push((String::new(), "── Mouse ──".into()));
    out.push((
        "click".into(),
        "select a pane, row or run; click a column title to sort".into(),
    ));
    out.push(("wheel".into(), "scroll the pane under the pointer".into()));
    out
}

/// Cells of the keys column in the help overlay.
pub const HELP_KEY_W: usize = 16;

/// The help overlay: the body itself on screens narrower than two help columns, else
/// centred; its border is part of the area.
pub fn help_area(body: ratatui::layout::Rect) -> ratatui::layout::Rect {
    let w = body.width.min(96);
    ratatui::layout::Rect::new(body.x + (body.width - w) / 2, body.y, w, body.height)
}

/// The help text laid out `width` cells wide: `(keys, text)` rows, descriptions wrapped
/// under themselves, key lists too long for their column on a row of their own.
pub fn help_rows(width: usize) -> Vec<(String, String)> {
    let text_w = width.saturating_sub(HELP_KEY_W + 1).max(10);
    let mut out = Vec::new();
    for (keys, what) in help_lines() {
        if keys.is_empty() {
            out.push((keys, what));
            continue;
        }
        let mut keys = keys;
        if keys.chars().count() > HELP_KEY_W {
            out.push((keys, String::new()));
            keys = " ".into();
        }
        for (i, line) in super::format::wrap(&what, text_w).into_iter().enumerate() {
            out.push((if i == 0 { keys.clone() } else { " ".into() }, line));
        }
    }
    out
}

/// The furthest the help can scroll in `body`: its last row at the bottom.
pub fn help_max_scroll(body: ratatui::layout::Rect) -> usize {
    let area = help_area(body);
    let rows = area.height.saturating_sub(2) as usize;
    help_rows(area.width.saturating_sub(2) as usize)
        .len()
        .saturating_sub(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyEventKind;

    fn key(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent {
            code,
            modifiers: mods,
            kind: KeyEventKind::Press,
            state: ratatui::crossterm::event::KeyEventState::NONE,
        }
    }

    #[test]
    fn keys_dispatch_through_the_tables() {
        use Mode::*;
        assert_eq!(
            lookup(Normal, &key(KeyCode::Char('j'), N)),
            Some(Command::Down)
        );
        assert_eq!(lookup(Normal, &key(KeyCode::Down, N)), Some(Command::Down));
        // Column keys: the bracketed letter of each title, shifted.
        assert_eq!(
            lookup(Normal, &key(KeyCode::Char('M'), KeyModifiers::SHIFT)),
            Some(Command::SortColumn(Column::Median))
        );
        assert_eq!(
            lookup(Normal, &key(KeyCode::Char('X'), KeyModifiers::SHIFT)),
            Some(Command::SortColumn(Column::Max))
        );
        // Terminals report shifted letters with SHIFT set.
        let shift = KeyModifiers::SHIFT;
        assert_eq!(
            lookup(Normal, &key(KeyCode::Char('G'), shift)),
            Some(Command::Bottom)
        );
        assert_eq!(
            lookup(Normal, &key(KeyCode::Char('?'), shift)),
            Some(Command::ToggleHelp)
        );
        assert_eq!(
            lookup(Normal, &key(KeyCode::Char('c'), C)),
            Some(Command::Quit)
        );
        // Plain c copies; only Ctrl-C quits.
        assert_eq!(
            lookup(Normal, &key(KeyCode::Char('c'), N)),
            Some(Command::CopyRow)
        );
        // In filter input, q is text and Ctrl-C still quits.
        assert_eq!(
            lookup(FilterInput, &key(KeyCode::Char('q'), N)),
            Some(Command::FilterEdit(InputRequest::InsertChar('q')))
        );
        assert_eq!(
            lookup(FilterInput, &key(KeyCode::Char('c'), C)),
            Some(Command::Quit)
        );
        assert_eq!(
            lookup(Dialog, &key(KeyCode::Esc, N)),
            Some(Command::Dismiss)
        );
        assert_eq!(
            lookup(Help, &key(KeyCode::Char('q'), N)),
            Some(Command::Quit)
        );
    }

    #[test]
    fn every_column_has_its_own_bound_key() {
        let mut seen = std::collections::HashSet::new();
        for c in crate::app::table::ALL_COLUMNS {
            let k = c.key();
            assert!(seen.insert(k), "{c:?}: key {k} twice");
            assert_eq!(Column::for_key(k), Some(c));
            assert_eq!(
                lookup(Mode::Normal, &key(KeyCode::Char(k), KeyModifiers::SHIFT)),
                Some(Command::SortColumn(c)),
                "{c:?}"
            );
        }
    }

    #[test]
    fn help_wraps_and_scrolls_no_further_than_its_end() {
        use ratatui::layout::Rect;
        let rows = help_rows(78);
        // Every description word is there, nothing is longer than the area.
        for (k, t) in &rows {
            let n = if k.chars().count() > HELP_KEY_W {
                k.chars().count()
            } else {
                HELP_KEY_W + 1 + t.chars().count()
            };
            assert!(n <= 78, "{k} {t}");
        }
        // 80x24: body 21 rows, help inside 19 rows.
        let body = Rect::new(0, 2, 80, 21);
        assert_eq!(help_max_scroll(body), rows.len() - 19);
        // A tall screen holds all of it: no scrolling.
        assert_eq!(help_max_scroll(Rect::new(0, 2, 230, 500)), 0);
    }

    #[test]
    fn no_key_is_bound_twice_in_a_mode() {
        for mode in Mode::ALL {
            let mut seen = std::collections::HashSet::new();
            for b in bindings(mode) {
                for k in b.keys {
                    assert!(seen.insert(format!("{k:?}")), "{mode:?}: {k:?} bound twice");
                }
            }
        }
    }

    #[test]
    fn help_lists_every_bound_key_and_the_documented_ones() {
        let help = help_lines();
        let text: String = help.iter().map(|(k, d)| format!("{k} {d}\n")).collect();
        for mode in Mode::ALL {
            for b in bindings(mode) {
                let line = help
                    .iter()
                    .find(|(_, d)| d == b.help)
                    .unwrap_or_else(|| panic!("{} missing", b.help));
                for (c, m) in b.keys {
                    assert!(line.0.split(' ').any(|k| k == key_label(*c, *m)));
                }
            }
        }
        // The keys the issue promises, written by hand.
        for k in [
            "j", "k", "↑", "↓", "PgUp", "PgDn", "g", "G", "Tab", "Enter", "Esc", "/", "s", "S",
            "e", "E", "w", "?", "q", "+", "-", "n", "p", "N",
        ] {
            assert!(
                help.iter().any(|(keys, _)| keys.split(' ').any(|x| x == k)),
                "{k} not in help:\n{text}"
            );
        }
    }
}
