//! `cpuprof._cpuprof`: the Python face of the cpuprof-tui library. Profiles are loaded by
//! the library's own loaders (the GIL released meanwhile), `json()` is the bytes of
//! `report --format json`, and the DataFrame columns come from the typed profile.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use clap::Parser;
use cpuprof_tui::cli::{Cli, Command};
use cpuprof_tui::input;
use cpuprof_tui::profile::{load_profile_from_bytes, unchanged_or, Profile, ProfileRequest};
use cpuprof_tui::source::{sniff, Content};
use cpuprof_tui::trace::{self, TraceProfile};
use pyo3::prelude::*;
use pyo3::types::PyDict;

mod rows;

pyo3::create_exception!(_cpuprof, Error, pyo3::exceptions::PyValueError);

fn err(line: String) -> PyErr {
    Error::new_err(cpuprof_tui::escape::escape(&line).into_owned())
}

enum Loaded {
    Dump(Box<Profile>),
    Trace(Box<TraceProfile>),
}

/// A loaded ETDump profile or PyTorch trace.
#[pyclass(frozen, module = "cpuprof._cpuprof")]
struct LoadedProfile {
    loaded: Loaded,
    json: String,
}

#[pymethods]
impl LoadedProfile {
    /// `report --format json` of this file, byte for byte.
    fn json(&self) -> &str {
        &self.json
    }

    /// "etdump" or "trace".
    #[getter]
    fn kind(&self) -> &'static str {
        match self.loaded {
            Loaded::Dump(_) => "etdump",
            Loaded::Trace(_) => "trace",
        }
    }

    /// The rows as a dict of equal-length column lists (the Python side makes the frame).
    fn columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let table = match &self.loaded {
            Loaded::Dump(p) => rows::dump_rows(p),
            Loaded::Trace(t) => rows::trace_rows(t),
        };
        table.into_dict(py)
    }

    /// Warnings of the load, as `kind: message` lines.
    fn warnings(&self) -> Vec<String> {
        match &self.loaded {
            Loaded::Dump(p) => p
                .warnings
                .iter()
                .map(|w| format!("{}: {}", w.kind, w.message))
                .collect(),
            Loaded::Trace(t) => t
                .warnings
                .iter()
                .map(|w| format!("{}: {}", w.kind, w.message))
                .collect(),
        }
    }
}

/// Parse `args` as the command line does (program name first).
fn parse(args: Vec<String>) -> Result<Cli, String> {
    Cli::try_parse_from(args).map_err(|e| cpuprof_tui::cli::usage_line(&e))
}

fn load_inner(
    path: PathBuf,
    log: Option<PathBuf>,
    warmup: &str,
    etrecord: Option<PathBuf>,
    program: Option<PathBuf>,
) -> Result<LoadedProfile, String> {
    let warmup = cpuprof_tui::cli::parse_warmup(warmup).map_err(|e| format!("--warmup: {e}"))?;
    let name = input::display_name(&path);
    if path.is_dir() {
        let t = trace::load_trace(&path).map_err(|e| format!("{name}: {e}"))?;
        return Ok(trace_loaded(t));
    }
    let limit = input::DEFAULT_MAX_INPUT_SIZE;
    if let Some(streamed) = trace::load_large_chrome_json(&path, &name, limit) {
        return Ok(trace_loaded(streamed.map_err(|e| format!("{name}: {e}"))?));
    }
    let input = input::read_input_mapped(&path, limit).map_err(|e| format!("{name}: {e}"))?;
    if sniff(&input.bytes) == Content::Trace {
        let parsed = trace::parse_trace(&input.bytes, &name);
        input
            .check_unchanged()
            .map_err(|e| format!("{name}: {e}"))?;
        return Ok(trace_loaded(parsed.map_err(|e| format!("{name}: {e}"))?));
    }
    if let Some(l) = &log {
        input::read_input(l, limit).map_err(|e| format!("{}: {e}", l.display()))?;
    }
    // The model files go with this request only (two loads at once may name different ones).
    let request = ProfileRequest::new(path.clone(), log, 0)
        .with_warmup(warmup)
        .with_model_files(cpuprof_tui::profile::ModelFileArgs { etrecord, program });
    let never = AtomicBool::new(false);
    let loaded = load_profile_from_bytes(&request, &input.bytes, &mut |_| {}, &never);
    let profile = unchanged_or(&input, &path, loaded).map_err(|e| e.to_string())?;
    let json = cpuprof_tui::report::profile_json(&profile);
    Ok(LoadedProfile {
        loaded: Loaded::Dump(Box::new(profile)),
        json,
    })
}

fn trace_loaded(t: TraceProfile) -> LoadedProfile {
    LoadedProfile {
        json: cpuprof_tui::report::trace_json(&t),
        loaded: Loaded::Trace(Box::new(t)),
    }
}

/// Load an ETDump (with its runner log and model files) or a trace.
#[pyfunction]
#[pyo3(signature = (path, log=None, warmup="log", etrecord=None, program=None))]
fn load(
    py: Python<'_>,
    path: PathBuf,
    log: Option<PathBuf>,
    warmup: &str,
    etrecord: Option<PathBuf>,
    program: Option<PathBuf>,
) -> PyResult<LoadedProfile> {
    let warmup = warmup.to_string();
    py.detach(move || load_inner(path, log, &warmup, etrecord, program))
        .map_err(err)
}

/// `compare A B --format csv`, as text (the arguments after the two paths as the CLI's).
#[pyfunction]
#[pyo3(signature = (a, b, args=Vec::new()))]
fn compare_csv(py: Python<'_>, a: String, b: String, args: Vec<String>) -> PyResult<String> {
    let mut argv = vec!["cpuprof-tui".to_string(), "compare".into(), a, b];
    argv.extend(args);
    py.detach(move || {
        let cli = parse(argv)?;
        let Some(Command::Compare(args)) = cli.command else {
            return Err("compare: arguments not understood".to_string());
        };
        let pair = cpuprof_tui::report::compare::load_pair(&args)?;
        let cmp = cpuprof_tui::report::compare::compare_pair(&pair, &args);
        Ok(cpuprof_tui::report::comparison_csv(&cmp))
    })
    .map_err(err)
}

/// `fleet PATHS... --format csv -o OUT` (the fleet's CSV written to `out`).
#[pyfunction]
#[pyo3(signature = (paths, out, args=Vec::new()))]
fn fleet_csv(py: Python<'_>, paths: Vec<String>, out: String, args: Vec<String>) -> PyResult<()> {
    let mut argv = vec!["cpuprof-tui".to_string(), "fleet".into()];
    argv.extend(paths);
    argv.extend(args);
    argv.extend(["--format".to_string(), "csv".into(), "-o".into(), out]);
    py.detach(move || {
        let cli = parse(argv)?;
        let Some(Command::Fleet(args)) = cli.command else {
            return Err("fleet: arguments not understood".to_string());
        };
        cpuprof_tui::report::fleet::run_inner(&args).map(|_| ())
    })
    .map_err(err)
}

/// The `cpuprof-tui` command on `argv` (program name first); returns its exit status.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<String>) -> u8 {
    let code = py.detach(move || cpuprof_tui::entry::main_from(argv));
    // ExitCode keeps its number to itself: find the one it equals.
    (0..=255u8)
        .find(|n| ExitCode::from(*n) == code)
        .unwrap_or(1)
}

#[pymodule]
fn _cpuprof(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add_class::<LoadedProfile>()?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(compare_csv, m)?)?;
    m.add_function(wrap_pyfunction!(fleet_csv, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    Ok(())
}
