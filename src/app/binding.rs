//! One binding of a key table (`key_tables`, `flame_keys`): keys of one meaning of the
//! key language (`keys`), the command they give and their help line.

use super::command::Command;
use ratatui::crossterm::event::KeyCode;

use super::keys::{ch, code, ctrl, Key, Meaning};

pub struct Binding {
    pub meaning: Meaning,
    pub keys: &'static [Key],
    pub command: Command,
    pub help: &'static str,
    /// The footer's word for this binding (`app::hints`), where the meaning's does not
    /// say what it does in this view.
    pub hint: Option<&'static str>,
}

impl Binding {
    /// This binding with a footer hint.
    pub(crate) const fn hint(self, word: &'static str) -> Binding {
        Binding {
            hint: Some(word),
            ..self
        }
    }
}

pub(crate) const fn b(
    meaning: Meaning,
    keys: &'static [Key],
    command: Command,
    help: &'static str,
) -> Binding {
    Binding {
        meaning,
        keys,
        command,
        help,
        hint: None,
    }
}

pub(crate) const QUIT: Binding = b(
    Meaning::Quit,
    &[ch('q'), ctrl('c')],
    Command::Quit,
    "quit (from any view; works while loading)",
)
.hint("quit");
pub(crate) const HELP_KEY: Binding =
    b(Meaning::Help, &[ch('?')], Command::ToggleHelp, "help").hint("help");

// The moves most tables share.
pub(crate) const DOWN: Binding = b(
    Meaning::Move,
    &[ch('j'), code(KeyCode::Down)],
    Command::Down,
    "move down",
);
pub(crate) const UP: Binding = b(
    Meaning::Move,
    &[ch('k'), code(KeyCode::Up)],
    Command::Up,
    "move up",
);
pub(crate) const PAGE_DOWN: Binding = b(
    Meaning::Page,
    &[code(KeyCode::PageDown), ctrl('d')],
    Command::PageDown,
    "page down",
);
pub(crate) const PAGE_UP: Binding = b(
    Meaning::Page,
    &[code(KeyCode::PageUp), ctrl('u')],
    Command::PageUp,
    "page up",
);
pub(crate) const TOP: Binding = b(
    Meaning::Ends,
    &[ch('g'), code(KeyCode::Home)],
    Command::Top,
    "first row",
);
pub(crate) const BOTTOM: Binding = b(
    Meaning::Ends,
    &[ch('G'), code(KeyCode::End)],
    Command::Bottom,
    "last row",
);
