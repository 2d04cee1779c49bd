//! The command line's entry: options applied, outputs checked before any input is read,
//! then the subcommand (`src/main.rs` calls it with the process's arguments).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::cli::{Cli, Command, CompareFormat};
use clap::Parser;

/// The `cpuprof-tui` command on `args` (the program name first): the binary's `main`, and
/// the console script of the Python package (`cpuprof-tui` installed by `pip install .`).
pub fn main_from<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let mut cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => return crate::cli::usage_error(e),
    };
    // SIGINT/SIGTERM/SIGHUP: remove temp outputs, restore the terminal, exit 128 + signal.
    crate::signals::install();
    if let Some(limit) = cli.max_input_size {
        crate::input::set_max_input_size(limit);
    }
    if let Some(unit) = cli.time_unit {
        crate::etdump::set_time_unit(unit);
    }
    model_files_to_command(&mut cli);
    stdout_dash(&mut cli.command);
    // Before any input is read (and before a terminal is taken): an output that is one of
    // the inputs, or that cannot be written, and a folder that holds no trace.
    if let Err(line) = preflight(&cli) {
        crate::escape::eprint_line(&line);
        return ExitCode::from(2);
    }
    match cli.command {
        Some(Command::Report(mut args)) => {
            args.terminal_width = crate::cli::stdout_columns();
            crate::report::run(&args)
        }
        Some(Command::Compare(args)) if crate::report::compare::wants_view(&args) => {
            crate::tui::run_compare(&args)
        }
        Some(Command::Compare(args)) => crate::report::compare::run(&args),
        Some(Command::Export(args)) => crate::report::export::run(&args),
        Some(Command::Run(args)) => crate::run::run(&args),
        Some(Command::Fleet(args)) if crate::report::fleet::wants_view(&args) => {
            crate::tui_fleet::run_fleet(&args)
        }
        Some(Command::Fleet(args)) => crate::report::fleet::run(&args),
        None => match fleet_folder(&cli.explore) {
            Some(args) => crate::tui_fleet::run_fleet(&args),
            None => crate::tui::run(&cli.explore),
        },
    }
}

/// `cpuprof-tui DIR` on a folder of dumps or traces (not a CTF trace directory): the
/// fleet view of that folder.
fn fleet_folder(explore: &crate::cli::ExploreArgs) -> Option<crate::cli::FleetArgs> {
    let dir = explore.file.as_deref()?;
    if explore.watch.is_some() || !crate::tui_fleet::is_fleet_folder(dir) {
        return None;
    }
    crate::tui_fleet::folder_args(dir, explore.warmup, explore.no_log).map(|mut a| {
        a.model = explore.model.clone();
        a
    })
}

/// `--etrecord` / `--program` into the arguments of the command, which passes them with
/// each load it requests (no process-wide setting).
fn model_files_to_command(cli: &mut Cli) {
    let model = cli.model.files();
    cli.explore.model = model.clone();
    match &mut cli.command {
        Some(Command::Report(a)) => a.model = model,
        Some(Command::Compare(a)) => a.model = model,
        Some(Command::Export(a)) => a.model = model,
        Some(Command::Run(a)) => a.model = model,
        Some(Command::Fleet(a)) => a.model = model,
        None => {}
    }
}

/// `-o -` is standard output, as `-` is standard input (for compare it also means
/// "print", as `-o FILE` does: the table unless `--format` says otherwise).
fn stdout_dash(command: &mut Option<Command>) {
    let dash = |o: &Option<PathBuf>| o.as_deref().is_some_and(crate::output::is_stdout);
    match command {
        Some(Command::Report(a)) if dash(&a.output) => a.output = None,
        Some(Command::Export(a)) if dash(&a.output) => a.output = None,
        Some(Command::Fleet(a)) if dash(&a.output) => a.output = None,
        Some(Command::Compare(a)) if dash(&a.output) => {
            a.output = None;
            a.format.get_or_insert(CompareFormat::Table);
        }
        _ => {}
    }
}

fn preflight(cli: &Cli) -> Result<(), String> {
    use crate::profile::default_log_for;
    let log_of = |file: &Path, log: &Option<PathBuf>, no_log: bool| -> Option<PathBuf> {
        match log {
            Some(l) => Some(l.clone()),
            None if no_log || crate::input::is_stdin(file) => None,
            None => default_log_for(file),
        }
    };
    let (output, inputs): (Option<&Path>, Vec<PathBuf>) = match &cli.command {
        Some(Command::Report(a)) => (
            a.output.as_deref(),
            std::iter::once(a.file.clone())
                .chain(a.more.iter().cloned())
                .chain(log_of(&a.file, &a.log, a.no_log))
                .collect(),
        ),
        Some(Command::Export(a)) => (
            a.output.as_deref(),
            std::iter::once(a.file.clone())
                .chain(log_of(&a.file, &a.log, a.no_log))
                .collect(),
        ),
        Some(Command::Compare(a)) => (
            a.output.as_deref(),
            [a.a.clone(), a.b.clone()]
                .into_iter()
                .chain(log_of(&a.a, &a.log_a, a.no_log))
                .chain(log_of(&a.b, &a.log_b, a.no_log))
                .collect(),
        ),
        // `run` writes only new files of its own (claimed with an exclusive create).
        Some(Command::Run(_)) => (None, Vec::new()),
        // The fleet's inputs are known once its folders are searched (`report::fleet`).
        Some(Command::Fleet(_)) => (None, Vec::new()),
        None => {
            // The explorer on a folder: a CTF trace directory opens as a trace; on a
            // terminal, a folder of dumps or traces opens the fleet view of it; anything
            // else (a folder of unrelated files, or no terminal) is one line, before the
            // terminal is taken, saying what the folder holds and what to run instead.
            if let Some(dir) = cli.explore.file.as_deref().filter(|p| p.is_dir()) {
                if let Err(e) = crate::trace::ctf::find_trace_dirs(dir) {
                    if !crate::tui_fleet::is_fleet_folder(dir) {
                        return Err(format!("{}: {e}", crate::input::display_name(dir)));
                    }
                }
            }
            (None, Vec::new())
        }
    };
    if let Some(out) = output {
        // The program and ETRecord read with each dump (named, or beside it) are inputs too.
        let files = cli.model.files();
        let model: Vec<PathBuf> = match &cli.command {
            Some(Command::Report(a)) => std::iter::once(&a.file).chain(&a.more).collect(),
            Some(Command::Export(a)) => vec![&a.file],
            Some(Command::Compare(a)) => vec![&a.a, &a.b],
            _ => Vec::new(),
        }
        .into_iter()
        .flat_map(|dump| crate::profile::model_input_paths(dump, &files))
        .collect();
        let inputs: Vec<&Path> = inputs.iter().chain(&model).map(PathBuf::as_path).collect();
        crate::output::check_output(out, &inputs).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    Ok(())
}
