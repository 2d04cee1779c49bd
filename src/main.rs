use std::process::ExitCode;

use clap::Parser;
use cpuprof_tui::cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Report(args)) => cpuprof_tui::report::run(&args),
        Some(Command::Export(args)) => cpuprof_tui::report::export::run(&args),
        None => cpuprof_tui::tui::run(&cli.explore),
    }
}
