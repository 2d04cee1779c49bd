//! cpuprof-tui: the terminal explorer over [`cpuprof_core`] (readers, row model,
//! statistics, reports), and the binary's command line.
//!
//! Data flows one way: the core's readers -> its row model (`rows::RowTree`) -> `app`
//! (the session, the view stack, the key language, the explorer's view model) ->
//! `views` (one `Component` each: state, keys, pure `command -> steps`, render) -> `ui`
//! (shared drawing; `draw` a loop over the stack); `tui` is the shell, `worker` and
//! `watch` load off the UI thread, `run` drives a runner. The core's modules are re-exported under their own
//! names, so `cpuprof_tui::profile` is `cpuprof_core::profile`.

pub use cpuprof_core::{
    compare, escape, etdump, etrecord, fleet, folder_entry, input, options, output, profile,
    program, regular_file, report, rows, runlog, source, stats, summary, threads, timeline, trace,
    units,
};

pub mod app;
pub mod cli;
pub mod entry;
pub mod run;
pub mod signals;
pub mod tui;
pub mod tui_fleet;
pub mod ui;
pub mod views;
pub mod watch;
pub mod worker;
