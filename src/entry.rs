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
            reuse_freed_memory();
            crate::tui_fleet::run_fleet(&args)
        }
        Some(Command::Fleet(args)) => {
            reuse_freed_memory();
            crate::report::fleet::run(&args)
        }
        None => match fleet_folder(&cli.explore) {
            Some(args) => {
                reuse_freed_memory();
                crate::tui_fleet::run_fleet(&args)
            }
            None => crate::tui::run(&cli.explore),
        },
    }
}

/// A fleet loads many profiles one after another: keep freed buffers for the next one.
/// glibc otherwise hands each large buffer of a loaded profile back to the kernel when it
/// is dropped and faults fresh zeroed pages in for the next (on 1,000 dumps of 1 MB,
/// about a tenth of the fleet's CPU time: page clearing and `munmap`). Memory still peaks
/// at what the profiles loading at once need; buffers over 64 MiB are still mapped and
/// unmapped on their own. The process's business, not the library's: set here, before
/// any profile is loaded.
fn reuse_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes the allocator's thresholds; it is called before the
    // loading threads start, and glibc serialises it with allocation anyway.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 64 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
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
        a.read = explore.read;
        a
    })
}

/// `--etrecord` / `--program`, `--max-input-size` / `--time-unit` into the arguments of
/// the command, which passes them with each load it requests (no process-wide setting).
pub fn model_files_to_command(cli: &mut Cli) {
    let model = cli.model.files();
    let defaults = crate::profile::ReadOptions::default();
    let read = crate::profile::ReadOptions {
        max_input_size: cli.max_input_size.unwrap_or(defaults.max_input_size),
        time_unit: cli.time_unit.unwrap_or(defaults.time_unit),
    };
    cli.explore.model = model.clone();
    cli.explore.read = read;
    match &mut cli.command {
        Some(Command::Report(a)) => (a.model, a.read) = (model, read),
        Some(Command::Compare(a)) => (a.model, a.read) = (model, read),
        Some(Command::Export(a)) => (a.model, a.read) = (model, read),
        Some(Command::Run(a)) => (a.model, a.read) = (model, read),
        Some(Command::Fleet(a)) => (a.model, a.read) = (model, read),
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
