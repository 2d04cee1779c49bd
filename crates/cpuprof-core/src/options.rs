//! The options of each command, as values: `report`, `compare`, `export` and `fleet` take
//! their arguments struct whole. The binary's command line (`cli` in the TUI crate) is
//! made of these; nothing here does work.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::profile::efficiency::Peak;
use crate::profile::warmup::Warmup;

/// The export-time files that name methods and give rows their model source.
#[derive(Debug, Args, Clone, Default)]
pub struct ModelArgs {
    /// ETRecord of the model (rows get their nodes, modules and source lines) [default:
    /// beside the dump: STEM.etrecord, STEM.etrecord.bin or etrecord.bin].
    #[arg(long, global = true, value_name = "FILE")]
    pub etrecord: Option<PathBuf>,
    /// Program (.pte) of the model (run groups are named after its methods) [default:
    /// STEM.pte beside the dump].
    #[arg(long, global = true, value_name = "FILE")]
    pub program: Option<PathBuf>,
}

impl ModelArgs {
    /// The files as a load request takes them.
    pub fn files(&self) -> crate::profile::ModelFileArgs {
        crate::profile::ModelFileArgs {
            etrecord: self.etrecord.clone(),
            program: self.program.clone(),
        }
    }
}

/// `--time-unit`: ns, us, ms or cycles:HZ (a finite frequency whose tick lies between
/// 1 fs and 1 s, see [`crate::etdump::TimeUnit`]).
pub fn parse_time_unit(s: &str) -> Result<crate::etdump::TimeUnit, String> {
    s.parse()
}

/// Open the explorer (the default command).
#[derive(Debug, Args, Clone, Default)]
pub struct ExploreArgs {
    /// `--etrecord` / `--program` (global options of the command line, copied here by
    /// the entry so that every load this command makes reads them).
    #[arg(skip)]
    pub model: crate::profile::ModelFileArgs,
    /// `--max-input-size` / `--time-unit` (global options, copied here by the entry as
    /// `model` is).
    #[arg(skip)]
    pub read: crate::profile::ReadOptions,
    /// ETDump (.etdp) or PyTorch trace (babeltrace2 text, Chrome JSON) to open; `-` reads
    /// standard input.
    #[arg(value_name = "FILE", conflicts_with_all = ["demo", "watch"])]
    pub file: Option<PathBuf>,
    /// Runner log of the run (default: FILE with extension .log, if it exists).
    #[arg(long, value_name = "RUN.log")]
    pub log: Option<PathBuf>,
    /// Read no runner log, not even the one beside the dump.
    #[arg(long, conflicts_with = "log")]
    pub no_log: bool,
    /// Leading Execute runs to drop as warm-up: a number, `auto` (the cold leading runs of
    /// each method), or `log` (the count the runner log states when it adds up to the
    /// dump's runs, else auto) [default: log; 5 with --demo].
    #[arg(long, value_name = "N|auto|log", allow_hyphen_values = true, value_parser = parse_warmup)]
    pub warmup: Option<Warmup>,
    /// Open the demo profile bundled in the binary.
    #[arg(long, conflicts_with = "watch")]
    pub demo: bool,
    /// Watch a directory and show the newest profile as dumps land.
    #[arg(long, value_name = "DIR")]
    pub watch: Option<PathBuf>,
    /// With --watch: poll the directory instead of using file system events.
    #[arg(long, requires = "watch")]
    pub poll: bool,
    /// With --watch: also watch subdirectories.
    #[arg(long, requires = "watch")]
    pub recursive: bool,
    /// The machine's peak compute and memory rates (GFLOP/s and GB/s, e.g. 150,25), for
    /// the roofline marks of operators with shapes.
    #[arg(long, value_name = "GFLOPS,GBPS", value_parser = parse_peak)]
    pub peak: Option<Peak>,
}

#[derive(Debug, Args, Clone)]
pub struct ReportArgs {
    /// `--etrecord` / `--program` (global options of the command line, copied here by
    /// the entry so that every load this command makes reads them).
    #[arg(skip)]
    pub model: crate::profile::ModelFileArgs,
    /// `--max-input-size` / `--time-unit` (global options, copied here by the entry as
    /// `model` is).
    #[arg(skip)]
    pub read: crate::profile::ReadOptions,
    /// Columns of the terminal that standard output is, when it is one (set by the
    /// binary: the core never asks a terminal). A table's names are cut to fit it, and
    /// never when writing to `-o`, a pipe or a file.
    #[arg(skip)]
    pub terminal_width: Option<usize>,
    /// ETDump (.etdp) or PyTorch trace file; `-` reads standard input.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// More PyTorch traces (CTF directories or trace files, one per node or rank) read
    /// together with FILE: one tally over all of them.
    #[arg(value_name = "MORE")]
    pub more: Vec<PathBuf>,
    /// Traces: below the total, the tally of each host, process (host and pid) or thread
    /// (iprof's `-e`), and the stragglers: per op, the groups whose calls are outliers
    /// against the other groups' (table, tally, JSON).
    #[arg(long, value_enum, value_name = "LEVEL")]
    pub per: Option<PerLevel>,
    /// Runner log of the run (default: FILE with extension .log, if it exists).
    #[arg(long, value_name = "RUN.log")]
    pub log: Option<PathBuf>,
    /// Read no runner log, not even the one beside the dump.
    #[arg(long, conflicts_with = "log")]
    pub no_log: bool,
    /// Leading Execute runs to drop as warm-up: a number, `auto` (the cold leading runs of
    /// each method), or `log` (the count the runner log states when it adds up to the
    /// dump's runs, else auto).
    #[arg(long, value_name = "N|auto|log", default_value_t = Warmup::Stated, allow_hyphen_values = true, value_parser = parse_warmup)]
    pub warmup: Warmup,
    /// Output format (tally is for PyTorch traces).
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    pub format: ReportFormat,
    /// Write to FILE instead of standard output (a regular file is replaced atomically; a
    /// device or FIFO is written into).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Exit 0 even when a check failed (missing steps or operator events).
    #[arg(long)]
    pub allow_missing: bool,
    /// With --format tally: add a self-time column.
    #[arg(long = "self")]
    pub self_time: bool,
    /// PyTorch traces recorded with `with_stack=True`: list the Python frames
    /// (`python_function` events) as rows too. Without it they are only parents in the
    /// call tree, taken out of their callers' self time as `key_averages()` takes them.
    #[arg(long)]
    pub python_frames: bool,
    // -- from operators to the model (ETRecord) --
    /// The nn.Module tree with inclusive times instead of the rows (table or CSV; JSON
    /// always has `modules`). Needs the ETRecord (--etrecord, or beside the dump).
    #[arg(long)]
    pub by_module: bool,
    /// The machine's peak compute and memory rates (GFLOP/s and GB/s, e.g. 150,25):
    /// operators with shapes get %peak and a compute- or memory-bound mark (roofline).
    #[arg(long, value_name = "GFLOPS,GBPS", value_parser = parse_peak)]
    pub peak: Option<Peak>,
}

/// `--peak GFLOPS,GBPS`: two finite positive numbers.
pub fn parse_peak(s: &str) -> Result<Peak, String> {
    Peak::parse(s)
}

/// `report --per`: the level of a trace's breakdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PerLevel {
    Host,
    Process,
    Thread,
}

impl PerLevel {
    pub fn level(self) -> crate::trace::nodes::Per {
        use crate::trace::nodes::Per;
        match self {
            PerLevel::Host => Per::Host,
            PerLevel::Process => Per::Process,
            PerLevel::Thread => Per::Thread,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Table,
    Json,
    Csv,
    Tally,
}

/// A count such as `--warmup`: a whole number, 0 or more. Every numeric option is
/// declared with `allow_hyphen_values = true`, so that `-1` (or `-0.5`, `-3..`) reaches
/// its parser and the message says what is wrong with the value instead of clap taking
/// it for a flag (and suggesting `-- -1`).
pub fn parse_count(s: &str) -> Result<usize, String> {
    let t = s.trim();
    if t.starts_with('-') && t.len() > 1 && t[1..].chars().all(|c| c.is_ascii_digit()) {
        return Err("must be 0 or more (a number of runs)".into());
    }
    if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()) {
        return t
            .parse()
            .map_err(|_| format!("{t} runs is more than this machine can count"));
    }
    Err("expected a whole number of runs (0 or more)".to_string())
}

/// `--warmup`: a count (as [`parse_count`]), `auto` or `log`.
pub fn parse_warmup(s: &str) -> Result<Warmup, String> {
    if s.trim().eq_ignore_ascii_case("auto") {
        return Ok(Warmup::Auto);
    }
    if s.trim().eq_ignore_ascii_case("log") {
        return Ok(Warmup::Stated);
    }
    parse_count(s)
        .map(Warmup::Runs)
        .map_err(|e| format!("{e}, `auto` or `log`"))
}

/// `--max-input-size`: see [`crate::input::parse_size`].
pub fn parse_size(s: &str) -> Result<u64, String> {
    crate::input::parse_size(s)
}

#[derive(Debug, Args, Clone)]
pub struct CompareArgs {
    /// `--etrecord` / `--program` (global options of the command line, copied here by
    /// the entry so that every load this command makes reads them).
    #[arg(skip)]
    pub model: crate::profile::ModelFileArgs,
    /// `--max-input-size` / `--time-unit` (global options, copied here by the entry as
    /// `model` is).
    #[arg(skip)]
    pub read: crate::profile::ReadOptions,
    /// The baseline: ETDump (.etdp) or PyTorch trace.
    #[arg(value_name = "A")]
    pub a: PathBuf,
    /// The profile compared with A (same kind as A).
    #[arg(value_name = "B")]
    pub b: PathBuf,
    /// Print instead of opening the compare view.
    #[arg(long, value_enum)]
    pub format: Option<CompareFormat>,
    /// Write to FILE (atomically) instead of standard output (implies --format table
    /// unless --format is given).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Runner log of A (default: A with extension .log, if it exists).
    #[arg(long, value_name = "RUN.log", conflicts_with = "no_log")]
    pub log_a: Option<PathBuf>,
    /// Runner log of B (default: B with extension .log, if it exists).
    #[arg(long, value_name = "RUN.log", conflicts_with = "no_log")]
    pub log_b: Option<PathBuf>,
    /// Read no runner log for either side.
    #[arg(long)]
    pub no_log: bool,
    /// Leading Execute runs to drop as warm-up, on both sides: N, `auto`, or `log` (the
    /// runner log's count when it adds up, else auto).
    #[arg(long, value_name = "N|auto|log", default_value_t = Warmup::Stated, allow_hyphen_values = true, value_parser = parse_warmup)]
    pub warmup: Warmup,
    /// Warm-up runs to drop from A (overrides --warmup).
    #[arg(long, value_name = "N|auto|log", allow_hyphen_values = true, value_parser = parse_warmup)]
    pub warmup_a: Option<Warmup>,
    /// Warm-up runs to drop from B (overrides --warmup).
    #[arg(long, value_name = "N|auto|log", allow_hyphen_values = true, value_parser = parse_warmup)]
    pub warmup_b: Option<Warmup>,
    /// Significance level, for the whole comparison (Holm-corrected across rows).
    #[arg(long, value_name = "P", default_value_t = 0.05, allow_hyphen_values = true, value_parser = parse_alpha)]
    pub alpha: f64,
    /// A significant change smaller than PCT percent of A's median is `same`.
    #[arg(long, value_name = "PCT", default_value_t = 5.0, allow_hyphen_values = true, value_parser = parse_pct)]
    pub min_change: f64,
    /// Exit 1 when any row is `slower` by more than PCT percent (a CI gate).
    #[arg(long, value_name = "PCT", allow_hyphen_values = true, value_parser = parse_pct)]
    pub fail_on_regression: Option<f64>,
    // -- from operators to the model (ETRecord) --
    /// Compare modules instead of rows: each module's rows (delegate calls and kernels
    /// placed in it or below, from the ETRecord) summed per run.
    #[arg(long)]
    pub by_module: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompareFormat {
    Table,
    Json,
    Csv,
}

/// `--alpha`: a significance level strictly between 0 and 1.
pub fn parse_alpha(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(a) if a > 0.0 && a < 1.0 => Ok(a),
        Ok(a) if a.is_nan() => {
            Err("not a number; expected a level between 0 and 1 (exclusive), e.g. 0.05".into())
        }
        Ok(_) => Err("must lie between 0 and 1 (exclusive), e.g. 0.05".into()),
        Err(_) => Err("expected a level between 0 and 1 (exclusive), e.g. 0.05".into()),
    }
}

/// `--min-change`, `--fail-on-regression`: a finite percentage, 0 or more.
pub fn parse_pct(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(p) if p.is_finite() && p >= 0.0 => Ok(p),
        Ok(p) if p.is_nan() => {
            Err("not a number; expected a percentage, 0 or more (e.g. 5)".into())
        }
        Ok(p) if p.is_infinite() => {
            Err("not a finite percentage; expected 0 or more (e.g. 5)".into())
        }
        Ok(_) => Err("must be 0 or more (a percentage, e.g. 5)".into()),
        Err(_) => Err("expected a percentage, 0 or more (e.g. 5)".into()),
    }
}

#[derive(Debug, Args, Clone)]
pub struct ExportArgs {
    /// `--etrecord` / `--program` (global options of the command line, copied here by
    /// the entry so that every load this command makes reads them).
    #[arg(skip)]
    pub model: crate::profile::ModelFileArgs,
    /// `--max-input-size` / `--time-unit` (global options, copied here by the entry as
    /// `model` is).
    #[arg(skip)]
    pub read: crate::profile::ReadOptions,
    /// ETDump (.etdp) or PyTorch trace file; `-` reads standard input.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// chrome: Trace Event Format JSON (Perfetto, chrome://tracing); folded: folded stacks
    /// of self time in ns (flame graphs).
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// Write to FILE (atomically) instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Runs to export, by 0-based Execute index: A..B (B excluded), A..=B, A.., ..B or N.
    #[arg(long, value_name = "A..B", allow_hyphen_values = true)]
    pub runs: Option<String>,
    /// Also export the warm-up runs.
    #[arg(long)]
    pub include_warmup: bool,
    /// Runner log of the run (default: FILE with extension .log, if it exists).
    #[arg(long, value_name = "RUN.log", conflicts_with = "no_log")]
    pub log: Option<PathBuf>,
    /// Do not read a runner log, even one beside the dump.
    #[arg(long)]
    pub no_log: bool,
    /// Leading Execute runs that are warm-up (left out unless --include-warmup): a number,
    /// `auto` (the cold leading runs), or `log` (the runner log's count when it adds up,
    /// else auto).
    #[arg(long, value_name = "N|auto|log", default_value_t = Warmup::Stated, allow_hyphen_values = true, value_parser = parse_warmup)]
    pub warmup: Warmup,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    Chrome,
    Folded,
}

/// `cpuprof-tui run [OPTIONS] -- PROGRAM ARGS...`
#[derive(Debug, Args, Clone)]
#[command(
    after_help = "Each run writes OUT/<name>-<n>.etdp (ET_CPU_ETDUMP; `{etdump}` in the \
arguments is the same path) and OUT/<name>-<n>.log (its standard error); the numbers skip \
files that exist. Exit status: the runner's (the last one's with --repeat), 2 when it \
cannot be started or when it exited 0 without a readable dump."
)]
pub struct RunArgs {
    /// `--etrecord` / `--program` (global options of the command line, copied here by
    /// the entry so that every load this command makes reads them).
    #[arg(skip)]
    pub model: crate::profile::ModelFileArgs,
    /// `--max-input-size` / `--time-unit` (global options, copied here by the entry as
    /// `model` is).
    #[arg(skip)]
    pub read: crate::profile::ReadOptions,
    /// Folder of the dumps and logs (created if missing; earlier runs in it are kept)
    /// [default: a new folder ./cpuprof-runs/<UTC time>].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// File name stem of the runs: NAME-1.etdp, NAME-1.log, ...
    #[arg(long, value_name = "NAME", default_value = "run")]
    pub name: String,
    /// Warm-up iterations: sets ET_CPU_WARMUP_RUNS (and `{warmup}`); the profile drops as
    /// many leading runs [default: the runner sets its own; the profile drops what its
    /// log states, as `report` does].
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = parse_count)]
    pub warmup: Option<usize>,
    /// Timed iterations (1 or more): sets ET_CPU_TIMED_RUNS (and `{timed}`).
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = parse_at_least_one)]
    pub timed: Option<usize>,
    /// Run the program K times, one dump and log each (the explorer's change column is
    /// against the first).
    #[arg(long, value_name = "K", default_value_t = 1, allow_hyphen_values = true, value_parser = parse_at_least_one)]
    pub repeat: usize,
    /// Compare every run against this saved dump (its log: beside it, if there is one).
    #[arg(long, value_name = "DUMP")]
    pub baseline: Option<PathBuf>,
    /// Print the report at the end (the comparison with --baseline) instead of opening
    /// the explorer; implied when standard output is not a terminal.
    #[arg(long)]
    pub no_tui: bool,
    /// Format of the printed report (implies --no-tui) [default: table].
    #[arg(long, value_enum)]
    pub format: Option<RunFormat>,
    /// On `q`, leave the runner running (its output still goes to OUT).
    #[arg(long, conflicts_with_all = ["no_tui", "format"])]
    pub keep_running: bool,
    /// Seconds a stopped runner has after SIGINT before SIGTERM (and again before SIGKILL).
    #[arg(long, value_name = "SECONDS", default_value_t = 3.0, allow_hyphen_values = true, value_parser = parse_seconds)]
    pub grace: f64,
    /// The runner and its arguments; `{etdump}`, `{warmup}` and `{timed}` in them are
    /// replaced.
    #[arg(value_name = "PROGRAM", required = true, num_args = 1.., trailing_var_arg = true, value_parser = clap::value_parser!(std::ffi::OsString))]
    pub command: Vec<std::ffi::OsString>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RunFormat {
    Table,
    Json,
    Csv,
}

/// A count of 1 or more (`--timed`, `--repeat`).
pub fn parse_at_least_one(s: &str) -> Result<usize, String> {
    match parse_count(s) {
        Ok(0) => Err("must be 1 or more".into()),
        Ok(n) => Ok(n),
        Err(_) => Err("expected a whole number, 1 or more".into()),
    }
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=3600.0).contains(&v) => Ok(v),
        _ => Err(format!("`{s}` is not a number of seconds (0 to 3600)")),
    }
}

/// `cpuprof-tui fleet PATH...`
#[derive(Debug, Args, Clone)]
pub struct FleetArgs {
    /// `--etrecord` / `--program` (global options of the command line, copied here by
    /// the entry so that every load this command makes reads them).
    #[arg(skip)]
    pub model: crate::profile::ModelFileArgs,
    /// `--max-input-size` / `--time-unit` (global options, copied here by the entry as
    /// `model` is).
    #[arg(skip)]
    pub read: crate::profile::ReadOptions,
    /// Folders (searched recursively) and files of the fleet.
    #[arg(value_name = "PATH", required = true, num_args = 1..)]
    pub paths: Vec<PathBuf>,
    /// Output format: the summary table, `cpuprof.fleet/1` JSON, or the long table (one
    /// line per profile and row) as CSV or Parquet (needs -o) [default: table].
    #[arg(long, value_enum)]
    pub format: Option<FleetFormat>,
    /// Write to FILE (atomically) instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    // Metadata fields from each profile's path relative to its root (`KEY_HELP`).
    #[arg(long, value_name = "TEMPLATE", help = KEY_HELP)]
    pub key: Option<String>,
    /// Summarise per value of this metadata field (per device) as well as per model.
    #[arg(long, value_name = "KEY")]
    pub by: Option<String>,
    /// Order the profiles by this metadata field (natural order: c9 before c10) and find
    /// each row's step change.
    #[arg(long, value_name = "KEY")]
    pub order: Option<String>,
    /// Outliers and changes smaller than PCT percent of the fleet's median are not
    /// reported.
    #[arg(long, value_name = "PCT", default_value_t = 5.0, allow_hyphen_values = true, value_parser = parse_pct)]
    pub min_change: f64,
    /// Significance level of the outlier and change tests (Holm-corrected).
    #[arg(long, value_name = "P", default_value_t = 0.05, allow_hyphen_values = true, value_parser = parse_alpha)]
    pub alpha: f64,
    /// Leading Execute runs to drop as warm-up in every dump: N, `auto`, or `log`.
    #[arg(long, value_name = "N|auto|log", default_value_t = Warmup::Stated, allow_hyphen_values = true, value_parser = parse_warmup)]
    pub warmup: Warmup,
    /// Read no runner log, not even the ones beside the dumps.
    #[arg(long)]
    pub no_log: bool,
    /// With --format parquet: a Hive-style directory at -o, one KEY=VALUE/part-0.parquet
    /// per value of this metadata field.
    #[arg(long, value_name = "KEY")]
    pub partition_by: Option<String>,
    /// Threads to load on [default: one per core].
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = parse_at_least_one)]
    pub jobs: Option<usize>,
    /// Also write every kept sample, one line per (profile, row, run), to FILE: CSV or
    /// Parquet by its extension (.csv, .parquet) or by --format; with --partition-by a
    /// Hive-style directory of Parquet, as -o.
    #[arg(long, value_name = "FILE")]
    pub samples: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FleetFormat {
    Table,
    Json,
    Csv,
    Parquet,
}

/// A mark clap's help does not read: clap turns every `{n}` of a help text into a line
/// break, so a `{n}` meant to be printed is written `{` MARK `n}` and the mark is taken
/// out of the rendered help (`cli::usage_error`).
pub const HELP_BRACE_MARK: char = '\u{2060}';

/// `fleet --key`'s help, its example holding `{n}`.
const KEY_HELP: &str =
    "Metadata fields from each profile's path relative to its root, e.g. '{device}/{commit}/run-{\u{2060}n}.etdp'";
