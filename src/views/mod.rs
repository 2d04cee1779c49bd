//! The views: one directory per view, each with its state and pure `command` (`state`),
//! its key table (`keys`, or its table in `app::key_tables` / `app::view_keys`), and its
//! drawing (`render`). The shell (`app::update`, `ui::draw`) is a loop over the stack
//! (`app::view::ViewStack`); the explorer, the base of the stack, is `app::explorer*`.

pub mod compare;
pub mod dialog;
pub mod flame;
pub mod fleet;
pub mod help;
pub mod log;
pub mod modules;
pub mod timeline;
