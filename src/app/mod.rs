//! Explorer state: plain data and a pure `update(state, action)`; no I/O here.
//! The view model (`ExplorerData`) is source-agnostic, so ETDump profiles and PyTorch
//! traces fill the same panes.

pub mod compare;
pub mod copy;
pub mod data;
pub mod format;
pub mod groups;
pub mod histogram;
pub mod keymap;
pub mod layout;
pub mod plan_view;
pub mod runs;
#[doc(hidden)]
pub mod sample;
pub mod state;
pub mod table;
pub mod timeline;
mod trace_view;

pub use data::{ExplorerData, FindingRow, NodeKind, OpRow, RunSummary, SourceKind, TreeNode};
pub use keymap::{Command, Mode};
pub use runs::{RunEntry, RunFacts, RunStatus, WatchState};
pub use state::{update, Action, AppState, Effect, Loading, MouseAction, Pane};
pub use table::Column;
