//! The error dialog's state: the one-line message naming the file that failed to load.

use crate::app::command::Command;
use crate::app::step::Step;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialogView {
    pub message: String,
}

impl DialogView {
    pub fn new(message: impl Into<String>) -> DialogView {
        DialogView {
            message: message.into(),
        }
    }

    /// Enter or Esc dismisses it (the last good profile stays).
    pub fn command(&mut self, cmd: Command) -> Vec<Step> {
        match cmd {
            Command::Dismiss | Command::Back => vec![Step::Pop],
            _ => Vec::new(),
        }
    }
}
