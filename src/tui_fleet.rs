//! The fleet view's shell: `cpuprof-tui fleet PATH...` on a terminal and `cpuprof-tui
//! DIR` on a folder of dumps. The terminal is taken at once with the loading message;
//! a thread finds, loads and summarises the fleet (`crate::fleet`, the same steps and
//! options as the printed table) and sends one `Event::FleetLoaded` into the shell's
//! channel. The fleet view is the base of the stack (`AppState::for_fleet`).

use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc::{self, Sender};

use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

use crate::app::AppState;
use crate::cli::FleetArgs;
use crate::fleet::analysis::AnalysisOptions;
use crate::fleet::load::LoadOptions;
use crate::fleet::meta::KeyTemplate;
use crate::fleet::{analyse, discover, load_all};
use crate::tui::{shell, TerminalGuard};
use crate::views::fleet::state::{FleetResult, FleetView};
use crate::worker::Event;

/// Find, load and summarise the fleet of `args` (what `report::fleet` prints).
pub fn load_fleet(args: &FleetArgs, key: Option<KeyTemplate>) -> FleetResult {
    let found = discover(&args.paths)?;
    if found.is_empty() {
        return Err(format!(
            "{}: no ETDump, trace file or CTF trace directory found",
            shown(&args.paths)
        ));
    }
    let load = LoadOptions {
        warmup: args.warmup,
        no_log: args.no_log,
        key,
        threads: args.jobs.unwrap_or(0),
        model: args.model.clone(),
        read: args.read,
    };
    let profiles = load_all(found, &load);
    Ok(Box::new(analyse(
        profiles,
        AnalysisOptions {
            by: args.by.clone(),
            order: args.order.clone(),
            min_change: args.min_change,
            alpha: args.alpha,
        },
    )))
}

fn shown(paths: &[PathBuf]) -> String {
    let v: Vec<String> = paths
        .iter()
        .map(|p| crate::input::display_name(p))
        .collect();
    v.join(", ")
}

/// Load the fleet on a thread; its answer (a panic too) is one event on `tx`.
pub fn spawn_loader(args: FleetArgs, key: Option<KeyTemplate>, tx: Sender<Event>) {
    let _ = std::thread::Builder::new()
        .name("fleet".into())
        .spawn(move || {
            let result = std::panic::catch_unwind(|| load_fleet(&args, key)).unwrap_or_else(|p| {
                Err(format!(
                    "internal error while loading the fleet: {}",
                    crate::threads::panic_message(&*p)
                ))
            });
            let _ = tx.send(Event::FleetLoaded(result));
            crate::worker::release_freed_heap();
        });
}

/// `fleet PATH...` on a terminal: the fleet view.
pub fn run_fleet(args: &FleetArgs) -> ExitCode {
    // Bad options fail before the terminal is taken.
    let key = match args.key.as_deref().map(KeyTemplate::parse).transpose() {
        Ok(k) => k,
        Err(e) => {
            crate::escape::eprint_line(&format!("--key: {e}"));
            return ExitCode::from(2);
        }
    };
    if let Some(p) = args.paths.iter().find(|p| !p.exists()) {
        crate::escape::eprint_line(&format!(
            "{}: no such file or directory",
            crate::input::display_name(p)
        ));
        return ExitCode::from(2);
    }
    let guard = match TerminalGuard::enter() {
        Ok(g) => g,
        Err(e) => {
            crate::escape::eprint_line(&format!("cannot open the terminal: {e}"));
            return ExitCode::from(2);
        }
    };
    let result = (|| {
        let terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
        let size = terminal.size()?;
        let mut view = FleetView::loading(shown(&args.paths), args.warmup, args.no_log);
        view.model = args.model.clone();
        view.read = args.read;
        let state = AppState::for_fleet(view, size.width, size.height);
        let (tx, rx) = mpsc::channel();
        spawn_loader(args.clone(), key, tx.clone());
        shell(terminal, state, Vec::new(), tx, rx, None)
    })();
    drop(guard);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            crate::escape::eprint_line(&format!("terminal error: {e}"));
            ExitCode::from(1)
        }
    }
}

/// `cpuprof-tui DIR` on a folder that holds profiles (not a CTF trace directory): the
/// fleet arguments of that folder, with the explorer's `--warmup` and `--no-log`.
pub fn folder_args(
    dir: &Path,
    warmup: Option<crate::profile::warmup::Warmup>,
    no_log: bool,
) -> Option<FleetArgs> {
    use clap::Parser;
    let mut argv: Vec<std::ffi::OsString> = vec!["cpuprof-tui".into(), "fleet".into()];
    if let Some(w) = warmup {
        argv.push(format!("--warmup={w}").into());
    }
    if no_log {
        argv.push("--no-log".into());
    }
    argv.push("--".into());
    argv.push(dir.as_os_str().to_owned());
    match crate::cli::Cli::try_parse_from(argv).map(|c| c.command) {
        Ok(Some(crate::cli::Command::Fleet(a))) => Some(a),
        _ => None,
    }
}

/// Whether the explorer opens `dir` as a fleet: standard output is a terminal (else the
/// one-line refusal stays: no screen nobody sees), `dir` is not a CTF trace directory,
/// and it holds at least one profile.
pub fn is_fleet_folder(dir: &Path) -> bool {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal()
        && dir.is_dir()
        && crate::trace::ctf::find_trace_dirs(dir).is_err()
        && discover(&[dir.to_path_buf()]).is_ok_and(|f| !f.is_empty())
}
