//! `cpuprof-tui report`: headless output for scripts and CI.

use std::process::ExitCode;

use crate::cli::ReportArgs;

pub fn run(args: &ReportArgs) -> ExitCode {
    eprintln!(
        "cpuprof-tui: {}: report not implemented yet",
        args.file.display()
    );
    ExitCode::from(2)
}
