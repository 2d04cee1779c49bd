use std::process::ExitCode;

use clap::Parser;
use cpuprof_tui::cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return cpuprof_tui::cli::usage_error(e),
    };
    // SIGINT/SIGTERM/SIGHUP: remove temp outputs, restore the terminal, exit 128 + signal.
    cpuprof_tui::signals::install();
    if let Some(limit) = cli.max_input_size {
        cpuprof_tui::input::set_max_input_size(limit);
    }
    if let Some(unit) = cli.time_unit {
        cpuprof_tui::etdump::set_time_unit(unit);
    }
    match cli.command {
        Some(Command::Report(args)) => cpuprof_tui::report::run(&args),
        Some(Command::Compare(args)) => cpuprof_tui::report::compare::run(&args),
        Some(Command::Export(args)) => cpuprof_tui::report::export::run(&args),
        Some(Command::Run(args)) => cpuprof_tui::run::run(&args),
        None => cpuprof_tui::tui::run(&cli.explore),
    }
}
