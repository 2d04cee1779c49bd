//! Each view's key table, drawn from the one key language (`keys`): every binding names
//! its meaning, and a test holds it to the language's keys for that meaning.

use ratatui::crossterm::event::KeyCode;
use tui_input::InputRequest;

use super::binding::b;
pub use super::binding::Binding;
use super::command::{Command, ViewKind};
use super::keys::{code, ctrl, Meaning};

use Command as K;
use Meaning as M;

// One binding a line: the table reads as the help does.

static FILTER: &[Binding] = &[
    b(
        M::Open,
        &[code(KeyCode::Enter)],
        K::FilterAccept,
        "keep the filter, back to the list",
    )
    .hint("keep"),
    b(
        M::Back,
        &[code(KeyCode::Esc)],
        K::FilterCancel,
        "clear the filter",
    )
    .hint("clear"),
    b(
        M::Delete,
        &[code(KeyCode::Backspace)],
        K::FilterEdit(InputRequest::DeletePrevChar),
        "delete character",
    ),
    b(
        M::Delete,
        &[code(KeyCode::Delete)],
        K::FilterEdit(InputRequest::DeleteNextChar),
        "delete character under the cursor",
    ),
    b(
        M::Sideways,
        &[code(KeyCode::Left)],
        K::FilterEdit(InputRequest::GoToPrevChar),
        "cursor left",
    ),
    b(
        M::Sideways,
        &[code(KeyCode::Right)],
        K::FilterEdit(InputRequest::GoToNextChar),
        "cursor right",
    ),
    b(
        M::Ends,
        &[code(KeyCode::Home)],
        K::FilterEdit(InputRequest::GoToStart),
        "cursor to start",
    ),
    b(
        M::Ends,
        &[code(KeyCode::End)],
        K::FilterEdit(InputRequest::GoToEnd),
        "cursor to end",
    ),
    b(M::Quit, &[ctrl('c')], K::Quit, "quit"),
];

/// The key table of `kind`.
pub fn bindings(kind: ViewKind) -> &'static [Binding] {
    match kind {
        ViewKind::Explorer => crate::views::explorer::keys::EXPLORER,
        ViewKind::Filter => FILTER,
        ViewKind::Log => crate::views::log::keys::LOG,
        ViewKind::Timeline => crate::views::timeline::keys::TIMELINE,
        ViewKind::Compare => crate::views::compare::keys::COMPARE,
        ViewKind::Flame => crate::views::flame::keys::FLAME,
        ViewKind::Help => crate::views::help::keys::HELP,
        ViewKind::Dialog => crate::views::dialog::keys::DIALOG,
        ViewKind::Modules => crate::views::modules::keys::MODULES,
        ViewKind::Fleet => crate::views::fleet::keys::FLEET,
    }
}
