//! The error dialog's key table (`ViewKind::Dialog`).

use ratatui::crossterm::event::KeyCode;

use crate::app::binding::{b, Binding, QUIT};
use crate::app::command::Command;
use crate::app::keys::{code, Meaning};

use Command as K;
use Meaning as M;

pub static DIALOG: &[Binding] = &[
    b(
        M::Open,
        &[code(KeyCode::Enter)],
        K::Dismiss,
        "dismiss (the last good profile stays)",
    ),
    b(M::Back, &[code(KeyCode::Esc)], K::Back, "dismiss"),
    QUIT,
];
