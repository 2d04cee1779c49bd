//! Explorer state: plain data and a pure `update(state, action)`; no I/O here.
//! The view model (`ExplorerData`) is source-agnostic, so ETDump profiles and PyTorch
//! traces fill the same panes. The shared session (`session`) is what every view
//! borrows. The explorer is the base of a stack of views (`view`): log, help, timeline,
//! compare, flame, modules and the error dialog are pushed over it, each a
//! `views::Component` with plain state and a pure `command`; their keys come from one key
//! language (`keys`) through one table per view (`keymap`).

pub mod answer;
pub mod binding;
pub mod column;
pub mod command;
pub mod copy;
pub mod data;
pub mod effect;
mod explorer;
mod explorer_open;
pub mod format;
mod from_profile;
pub mod groups;
pub mod hints;
pub mod histogram;
pub mod key_tables;
pub mod keymap;
pub mod keys;
pub mod layout;
mod listing;
mod mouse;
pub mod plan_view;
pub mod runs;
pub mod search;
pub mod search_status;
pub mod session;
pub mod state;
pub mod step;
pub mod table;
mod trace_view;
mod update;
pub mod view;
mod warmup;
pub mod watch;

pub use crate::views::explorer::state::ExplorerView;
pub use column::Column;
pub use data::{
    ExplorerData, FindingRow, MethodModules, NodeKind, OpRow, RunSummary, SeveralMethods,
    SourceKind, TreeNode,
};
pub use effect::Effect;
pub use explorer::{reveal_node, sort_by};
pub use keymap::{Command, ViewKind};
pub use layout::MouseAction;
pub use listing::node_keys;
pub use runs::{RunEntry, RunFacts, RunStatus, WatchState};
pub use session::{Loading, Session};
pub use state::{Action, AppState, Pane};
pub use update::update;
pub use view::{View, ViewStack};
pub use warmup::warmup_change;
