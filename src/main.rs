use std::process::ExitCode;

fn main() -> ExitCode {
    cpuprof_tui::entry::main_from(std::env::args_os())
}
