//! The interactive explorer: terminal set-up and the main loop.

use std::process::ExitCode;

use crate::cli::ExploreArgs;

pub fn run(args: &ExploreArgs) -> ExitCode {
    let _ = args;
    eprintln!("cpuprof-tui: explorer not implemented yet");
    ExitCode::from(2)
}
