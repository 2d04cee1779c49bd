//! Command-line interface. `main.rs` parses this and dispatches; nothing here does work.
//! The options of each command are values of the core crate ([`cpuprof_core::options`]).

use clap::{Parser, Subcommand};

pub use cpuprof_core::options::*;

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
    /// Largest input read (and gzip trace decompressed), e.g. 512M, 8G [default: 4G].
    /// Applies to every file read, each file of a CTF trace directory included.
    #[arg(long, global = true, value_name = "SIZE", allow_hyphen_values = true, value_parser = parse_size)]
    pub max_input_size: Option<u64>,
    /// Unit of ETDump ticks: ns (Linux), us, ms, or cycles:HZ (e.g. cycles:2.4GHz)
    /// [default: ns].
    #[arg(long, global = true, value_name = "UNIT", allow_hyphen_values = true, value_parser = parse_time_unit)]
    pub time_unit: Option<crate::etdump::TimeUnit>,
    #[command(flatten)]
    pub model: ModelArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print a profile without a terminal UI (for scripts and CI).
    Report(ReportArgs),
    /// Compare two profiles (two ETDumps or two PyTorch traces): which rows got slower or
    /// faster, with verdicts that respect noise. Without --format, opens the compare view.
    Compare(CompareArgs),
    /// Export a timeline: Trace Event JSON for Perfetto (chrome) or folded stacks (folded).
    Export(ExportArgs),
    /// Start a runner with ETDump profiling on and follow its profile as it lands (the
    /// explorer's watch view of the output folder, or the report at the end).
    Run(RunArgs),
    /// Many profiles at once: every dump, trace file or CTF directory under the paths,
    /// summarised per model across profiles (spread, outlier profiles, step changes along
    /// --order).
    Fleet(FleetArgs),
}

/// A usage error as one line on stderr (`cpuprof-tui: <what is wrong> (see --help)`),
/// exit 2; `--help` and `--version` print as usual, exit 0.
pub fn usage_error(e: clap::Error) -> std::process::ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp => {
            // The help as clap renders it, less the mark that kept a `{n}` from becoming
            // a line break (`options::HELP_BRACE_MARK`).
            use std::io::{IsTerminal, Write};
            let styled = e.render();
            let text = if std::io::stdout().is_terminal() {
                styled.ansi().to_string()
            } else {
                styled.to_string()
            };
            let text = text.replace(crate::options::HELP_BRACE_MARK, "");
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            return std::process::ExitCode::SUCCESS;
        }
        ErrorKind::DisplayVersion => {
            let _ = e.print();
            return std::process::ExitCode::SUCCESS;
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            return std::process::ExitCode::from(2);
        }
        _ => {}
    }
    crate::escape::eprint_line(&usage_line(&e));
    std::process::ExitCode::from(2)
}

/// The first line of clap's message, without its `error: ` prefix and tips. A value
/// refused by an option's parser is shown cut to 40 characters, so that the option and
/// the reason always fit the line.
pub fn usage_line(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() == ErrorKind::ValueValidation {
        let get = |k| match e.get(k) {
            Some(ContextValue::String(s)) => Some(s.clone()),
            _ => None,
        };
        if let (Some(arg), Some(value)) =
            (get(ContextKind::InvalidArg), get(ContextKind::InvalidValue))
        {
            let why = std::error::Error::source(e).map_or_else(String::new, |s| format!(": {s}"));
            let value = crate::escape::escape_cut(&value, 40);
            return crate::escape::message_line(&format!(
                "invalid value '{value}' for '{arg}'{why} (see --help)"
            ));
        }
    }
    let text = e.to_string();
    // The message is its first paragraph (a list of missing arguments is indented under
    // it); tips and usage follow after a blank line.
    let first = text
        .trim_start()
        .lines()
        .map(str::trim)
        .take_while(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let first = if first.is_empty() {
        "invalid arguments".to_string()
    } else {
        first
    };
    let first = first.strip_prefix("error: ").unwrap_or(&first);
    crate::escape::message_line(&format!("{first} (see --help)"))
}

/// Columns of the terminal that standard output is, if it is one (a report's table cuts
/// names to fit it).
pub fn stdout_columns() -> Option<usize> {
    use std::io::IsTerminal;
    std::io::stdout()
        .is_terminal()
        .then(|| ratatui::crossterm::terminal::size().ok())
        .flatten()
        .map(|(w, _)| usize::from(w))
}
