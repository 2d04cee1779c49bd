//! One binding of a key table (`key_tables`, `flame_keys`): keys of one meaning of the
//! key language (`keys`), the command they give and their help line.

use super::command::Command;
use super::keys::{ch, ctrl, Key, Meaning};

pub struct Binding {
    pub meaning: Meaning,
    pub keys: &'static [Key],
    pub command: Command,
    pub help: &'static str,
    /// The footer's word for this binding, where the meaning's (`hints::short`) does not
    /// say what it does in this view.
    pub hint: Option<&'static str>,
}

impl Binding {
    /// This binding with its own footer word.
    pub const fn hint(mut self, hint: &'static str) -> Binding {
        self.hint = Some(hint);
        self
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
);
pub(super) const HELP_KEY: Binding = b(Meaning::Help, &[ch('?')], Command::ToggleHelp, "help");
