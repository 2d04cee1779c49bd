//! The shell's state: plain data and a pure `update(state, action)`; no I/O here.
//! The view model (`ExplorerData`) is source-agnostic, so ETDump profiles and PyTorch
//! traces fill the same panes. The shared session (`session`) is what every view
//! borrows. The views are a stack (`view`): the explorer at the base, log, help,
//! timeline, compare, flame, modules and the error dialog pushed over it, each a
//! `views::Component` with plain state and a pure `command`; their keys come from one key
//! language (`keys`) through one table per view (`keymap`).

pub mod binding;
pub mod column;
pub mod command;
pub mod copy;
pub mod data;
pub mod effect;
pub mod format;
mod from_profile;
pub mod groups;
pub mod hints;
pub mod histogram;
pub mod key_tables;
pub mod keymap;
pub mod keys;
pub mod layout;
pub mod plan_view;
pub mod runs;
pub mod search;
pub mod session;
pub mod state;
pub mod step;
pub mod table;
mod trace_view;
mod update;
pub mod view;
pub mod warmup;
pub mod watch;

pub use crate::views::explorer::install::node_keys;
pub use crate::views::explorer::{ExplorerView, Pane};
pub use column::Column;
pub use data::{
    ExplorerData, FindingRow, MethodModules, NodeKind, OpRow, RunSummary, SeveralMethods,
    SourceKind, TreeNode,
};
pub use effect::Effect;
pub use keymap::{Command, ViewKind};
pub use layout::MouseAction;
pub use runs::{RunEntry, RunFacts, RunStatus, WatchState};
pub use session::{Loading, Session};
pub use state::{Action, AppState};
pub use update::update;
pub use view::{View, ViewStack};
pub use warmup::warmup_change;
