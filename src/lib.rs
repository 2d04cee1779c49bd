//! cpuprof-tui: read ExecuTorch ETDumps (with CpuBackend plans from the runner log) and
//! PyTorch operator traces, attribute and summarise every event, and explore the result.
//!
//! Data flows one way: `etdump`/`runlog`/`trace` (readers) -> `profile` (model, stats,
//! checks) -> `app` (state) -> `ui` (render).

pub mod app;
pub mod cli;
pub mod compare;
pub mod entry;
pub mod escape;
pub mod etdump;
pub mod etrecord;
pub mod fleet;
pub mod input;
pub mod output;
pub mod profile;
pub mod program;
pub mod regular_file;
pub mod report;
pub mod rows;
pub mod run;
pub mod runlog;
pub mod signals;
pub mod source;
pub mod stats;
pub mod summary;
pub mod threads;
pub mod timeline;
pub mod trace;
pub mod tui;
pub mod tui_fleet;
pub mod ui;
pub mod units;
pub mod watch;
pub mod worker;
