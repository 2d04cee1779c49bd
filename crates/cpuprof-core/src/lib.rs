//! cpuprof-core: read ExecuTorch ETDumps (with CpuBackend plans from the runner log, the
//! ETRecord and the program) and PyTorch operator traces, attribute and summarise every
//! event, compare and gather profiles, and write every report format. No terminal: the
//! TUI crate (`cpuprof-tui`) draws what this computes.
//!
//! Data flows one way: `input` (bytes) -> readers (`etdump`, `etrecord`, `program`,
//! `runlog`, `trace`) -> model (`profile`, `rows`, `stats`) -> `compare`, `fleet`,
//! `timeline` -> `report` (every output format, through `output`).

pub mod compare;
pub mod escape;
pub mod etdump;
pub mod etrecord;
pub mod fleet;
pub mod folder_entry;
pub mod input;
pub mod options;
pub mod output;
pub mod profile;
pub mod program;
pub mod regular_file;
pub mod report;
pub mod rows;
pub mod runlog;
pub mod source;
pub mod stats;
pub mod summary;
pub mod threads;
pub mod timeline;
pub mod trace;
pub mod units;
