//! The explorer following the runner (filled in next).
use std::process::ExitCode;

pub fn run(args: &crate::cli::RunArgs, session: super::Session) -> ExitCode {
    super::run_headless(args, session)
}
