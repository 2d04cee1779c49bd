//! One binding of a key table (`key_tables`, `flame_keys`): keys of one meaning of the
//! key language (`keys`), the command they give and their help line.

use super::command::Command;
use super::keys::{ch, ctrl, Key, Meaning};

pub struct Binding {
    pub meaning: Meaning,
    pub keys: &'static [Key],
    pub command: Command,
    pub help: &'static str,
    /// The word the view's footer shows beside the key (`keymap::footer_hints`); none:
    /// the key is in the help only.
    pub hint: Option<&'static str>,
}

impl Binding {
    /// This binding with a footer hint.
    pub(super) const fn hint(self, word: &'static str) -> Binding {
        Binding {
            hint: Some(word),
            ..self
        }
    }
}

pub(super) const fn b(
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

pub(super) const QUIT: Binding = b(
    Meaning::Quit,
    &[ch('q'), ctrl('c')],
    Command::Quit,
    "quit (from any view; works while loading)",
)
.hint("quit");
pub(super) const HELP_KEY: Binding =
    b(Meaning::Help, &[ch('?')], Command::ToggleHelp, "help").hint("help");
