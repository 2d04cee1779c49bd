//! Command-line interface. `main.rs` parses this and dispatches; nothing here does work.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::profile::warmup::Warmup;

#[derive(Debug, Parser)]
#[command(
    name = "cpuprof-tui",
    version,
    about = "Explore ExecuTorch ETDump CPU profiles and PyTorch operator traces",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub explore: ExploreArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print a profile without a terminal UI (for scripts and CI).
    Report(ReportArgs),
}

/// Open the explorer (the default command).
#[derive(Debug, Args, Clone, Default)]
pub struct ExploreArgs {
    /// ETDump (.etdp) or PyTorch trace (babeltrace2 text, Chrome JSON) to open.
    #[arg(value_name = "FILE", conflicts_with_all = ["demo", "watch"])]
    pub file: Option<PathBuf>,
    /// Runner log of the run (default: FILE with extension .log, if it exists).
    #[arg(long, value_name = "RUN.log")]
    pub log: Option<PathBuf>,
    /// Leading Execute runs to drop as warm-up: a number, or `auto` (the cold leading
    /// runs of each method) [default: 0; 5 with --demo].
    #[arg(long, value_name = "N|auto")]
    pub warmup: Option<Warmup>,
    /// Open the demo profile bundled in the binary.
    #[arg(long, conflicts_with = "watch")]
    pub demo: bool,
    /// Watch a directory and show the newest profile as dumps land.
    #[arg(long, value_name = "DIR")]
    pub watch: Option<PathBuf>,
    /// With --watch: poll the directory instead of using file system events.
    #[arg(long, requires = "watch")]
    pub poll: bool,
    /// With --watch: also watch subdirectories.
    #[arg(long, requires = "watch")]
    pub recursive: bool,
}

#[derive(Debug, Args, Clone)]
pub struct ReportArgs {
    /// ETDump (.etdp) or PyTorch trace file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Runner log of the run (default: FILE with extension .log, if it exists).
    #[arg(long, value_name = "RUN.log")]
    pub log: Option<PathBuf>,
    /// Leading Execute runs to drop as warm-up: a number, or `auto` (the cold leading
    /// runs of each method).
    #[arg(long, value_name = "N|auto", default_value_t = Warmup::Runs(0))]
    pub warmup: Warmup,
    /// Output format (tally is for PyTorch traces).
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    pub format: ReportFormat,
    /// Write to FILE (atomically) instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Exit 0 even when a check failed (missing steps or operator events).
    #[arg(long)]
    pub allow_missing: bool,
    /// With --format tally: add a self-time column.
    #[arg(long = "self")]
    pub self_time: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Table,
    Json,
    Csv,
    Tally,
}
