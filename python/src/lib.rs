//! `cpuprof._cpuprof`: the Python face of the cpuprof-tui library. Profiles are loaded by
//! the library's own loaders (the GIL released meanwhile), `json()` is the bytes of
//! `report --format json`, and the DataFrame columns come from the dump's events and the
//! core's row model.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;

use clap::Parser;
use cpuprof_tui::cli::{Cli, Command};
use cpuprof_tui::input;
use cpuprof_tui::profile::{load_profile_observed, unchanged_or, Profile, ProfileRequest};
use cpuprof_tui::rows::RowTree;
use cpuprof_tui::source::{sniff, Content};
use cpuprof_tui::trace::{self, TraceProfile};
use pyo3::prelude::*;
use pyo3::types::PyDict;

mod arrow;
mod columns;
mod debug_events;
mod inspector;
mod rows;

pyo3::create_exception!(_cpuprof, Error, pyo3::exceptions::PyValueError);

pub(crate) fn err(line: String) -> PyErr {
    Error::new_err(cpuprof_tui::escape::escape(&line).into_owned())
}

enum Loaded {
    /// The profile and the dump's events as the Inspector groups them, and how to show them.
    Dump(Box<Profile>, Vec<inspector::Block>, Frame),
    Trace(Box<TraceProfile>),
}

/// How the frame shows a dump's events.
#[derive(Clone, Copy)]
struct Frame {
    /// An ETRecord was given (not found beside the dump): the Inspector reads only one it
    /// is given.
    etrecord_given: bool,
    /// A warm-up was asked for: the runs the profile dropped are dropped from the frame
    /// too (else it keeps every run, as the Inspector).
    drop_warmup: bool,
}

/// The debug buffer given to the load (`debug_buffer=`, the Inspector's
/// `debug_buffer_path=`): `debug_data`'s tensors are read from it.
type DebugBuffer = Option<Vec<u8>>;

/// A loaded ETDump profile or PyTorch trace.
#[pyclass(frozen, module = "cpuprof._cpuprof")]
struct LoadedProfile {
    loaded: Loaded,
    /// `report --format json`, written when first asked for.
    json: OnceLock<String>,
    /// The core's row model of the profile (its measured rows: the frame lists no
    /// self-time row) or trace, built when the frame is first asked for.
    tree: OnceLock<RowTree>,
    debug_buffer: DebugBuffer,
}

#[pymethods]
impl LoadedProfile {
    /// `report --format json` of this file, byte for byte.
    fn json(&self, py: Python<'_>) -> String {
        py.detach(|| {
            self.json
                .get_or_init(|| match &self.loaded {
                    Loaded::Dump(p, ..) => cpuprof_tui::report::profile_json(p),
                    Loaded::Trace(t) => cpuprof_tui::report::trace_json(t),
                })
                .clone()
        })
    }

    /// "etdump" or "trace".
    #[getter]
    fn kind(&self) -> &'static str {
        match self.loaded {
            Loaded::Dump(..) => "etdump",
            Loaded::Trace(_) => "trace",
        }
    }

    /// The rows as a dict of equal-length column lists (the Python side makes the frame).
    fn columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let rows = self.rows();
        columns::to_dict(py, &self.lines(&rows), self.debug_buffer.as_deref())
    }

    /// The same columns as one Arrow record batch (`__arrow_c_stream__`).
    fn arrow(&self) -> PyResult<arrow::ArrowTable> {
        let rows = self.rows();
        arrow::batch(&self.lines(&rows))
            .map(arrow::ArrowTable::new)
            .map_err(err)
    }

    /// Warnings of the load, as `kind: message` lines.
    fn warnings(&self) -> Vec<String> {
        match &self.loaded {
            Loaded::Dump(p, ..) => p
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

impl LoadedProfile {
    fn tree(&self) -> &RowTree {
        self.tree.get_or_init(|| match &self.loaded {
            Loaded::Dump(p, ..) => RowTree::from_profile_measured(p),
            Loaded::Trace(t) => RowTree::from_trace(t),
        })
    }

    fn rows(&self) -> Vec<rows::Row<'_>> {
        match &self.loaded {
            Loaded::Dump(p, ..) => rows::dump_rows(p, self.tree()),
            Loaded::Trace(_) => rows::trace_rows(self.tree()),
        }
    }

    fn lines<'a>(&'a self, rows: &'a [rows::Row<'a>]) -> Vec<rows::Line<'a>> {
        match &self.loaded {
            Loaded::Dump(p, blocks, frame) => {
                let dropped = |method: Option<&str>| -> usize {
                    p.methods
                        .iter()
                        .find(|m| Some(m.name.as_str()) == method)
                        .map_or(p.runs.warmup_dropped, |m| m.runs.warmup_dropped)
                };
                let warmup: Option<rows::Dropped<'_>> = frame.drop_warmup.then_some(&dropped);
                rows::lines(blocks, rows, frame.etrecord_given, warmup)
            }
            Loaded::Trace(_) => rows::trace_lines(rows),
        }
    }
}

/// Parse `args` as the command line does (program name first), the global options
/// (`--etrecord`, `--program`, `--max-input-size`, `--time-unit`) passed to the command.
fn parse(args: Vec<String>) -> Result<Cli, String> {
    let mut cli = Cli::try_parse_from(args).map_err(|e| cpuprof_tui::cli::usage_line(&e))?;
    cpuprof_tui::entry::model_files_to_command(&mut cli);
    Ok(cli)
}

/// `warmup=` read as the command reads `--warmup` (its message when it is refused).
/// A value its parser takes is that value (the command's parser of `--warmup`); only a
/// refused one goes through the whole command line, for the command's message (a parse
/// of the command line took a tenth of a ms of every load).
fn warmup_of(value: &str) -> Result<cpuprof_tui::profile::warmup::Warmup, String> {
    if let Ok(w) = cpuprof_tui::options::parse_warmup(value) {
        return Ok(w);
    }
    let argv = ["cpuprof-tui", "report", "-", "--warmup", value].map(String::from);
    match parse(argv.to_vec())?.command {
        Some(Command::Report(a)) => Ok(a.warmup),
        _ => Err("--warmup: not understood".to_string()),
    }
}

fn load_inner(
    path: PathBuf,
    log: Option<PathBuf>,
    warmup: Option<&str>,
    etrecord: Option<PathBuf>,
    program: Option<PathBuf>,
    debug_buffer: Option<PathBuf>,
) -> Result<LoadedProfile, String> {
    let drop_warmup = warmup.is_some();
    let warmup = warmup_of(warmup.unwrap_or("log"))?;
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
    let debug_buffer = match &debug_buffer {
        Some(b) => Some(
            input::read_input(b, limit)
                .map_err(|e| format!("{}: {e}", input::display_name(b)))?
                .bytes
                .to_vec(),
        ),
        None => None,
    };
    let frame = Frame {
        etrecord_given: etrecord.is_some(),
        drop_warmup,
    };
    let etrecord_given = etrecord.clone();
    // The model files go with this request only (two loads at once may name different ones).
    let request = ProfileRequest::new(path.clone(), log, 0)
        .with_warmup(warmup)
        .with_model_files(cpuprof_tui::profile::ModelFileArgs { etrecord, program });
    let never = AtomicBool::new(false);
    // The Inspector's grouping of the events, from the runs the load decodes (the profile
    // keeps no event order).
    let mut events = inspector::FromLoad::new();
    let loaded = load_profile_observed(&request, &input.bytes, &mut |_| {}, &never, &mut |d| {
        events.observe(d)
    });
    let profile = unchanged_or(&input, &path, loaded).map_err(|e| e.to_string())?;
    // An ETRecord given that cannot be read: the command's warning (it loads without
    // sources) is an error here, as the Inspector raises for it (the frame's columns of
    // model files are asked for from it).
    if frame.etrecord_given {
        if let Some(w) = profile
            .warnings
            .iter()
            .find(|w| w.kind == "etrecord_unreadable")
        {
            let line = w.message.strip_suffix("; loaded without sources");
            return Err(line.unwrap_or(&w.message).to_string());
        }
    }
    let mut blocks = events
        .finish(&input.bytes)
        .map_err(|e| format!("{name}: {e}"))?;
    if let Some(e) = &etrecord_given {
        unprofiled_sources(&mut blocks, e, limit);
    }
    Ok(LoadedProfile {
        loaded: Loaded::Dump(Box::new(profile), blocks, frame),
        json: OnceLock::new(),
        tree: OnceLock::new(),
        debug_buffer,
    })
}

/// The nodes of the events with only debug events (no row of the profile has them), from
/// the ETRecord given, as the Inspector finds them (its `forward` method's maps). The
/// ETRecord was read by the load: one that cannot be read again leaves them none.
fn unprofiled_sources(blocks: &mut [inspector::Block], etrecord: &std::path::Path, limit: u64) {
    let unprofiled = || blocks.iter().flat_map(|b| &b.events).any(|e| e.unprofiled);
    if !unprofiled() {
        return;
    }
    let Ok(record) = input::read_input(etrecord, limit)
        .map_err(|e| e.to_string())
        .and_then(|i| cpuprof_tui::etrecord::parse(&i.bytes).map_err(|e| e.to_string()))
    else {
        return;
    };
    let Some(forward) = record.method("forward") else {
        return;
    };
    for e in blocks.iter_mut().flat_map(|b| b.events.iter_mut()) {
        if !e.unprofiled {
            continue;
        }
        let Some(id) = e.instruction_id.and_then(|i| i32::try_from(i).ok()) else {
            continue;
        };
        let delegate = e.delegate.as_ref().map(|d| match d {
            inspector::Ident::Int(n) => n.to_string(),
            inspector::Ident::Str(s) => s.clone(),
        });
        e.source = cpuprof_tui::profile::source::source_of_event(forward, id, delegate.as_deref());
    }
}

fn trace_loaded(t: TraceProfile) -> LoadedProfile {
    LoadedProfile {
        json: OnceLock::new(),
        tree: OnceLock::new(),
        debug_buffer: None,
        loaded: Loaded::Trace(Box::new(t)),
    }
}

/// Load an ETDump (with its runner log and model files) or a trace. `warmup` None: the
/// command's default (`log`) for the profile, every run in the frame. `debug_buffer`: the
/// dump's debug buffer, whose tensors `debug_data` holds (the Inspector's
/// `debug_buffer_path`).
#[pyfunction]
#[pyo3(signature = (path, log=None, warmup=None, etrecord=None, program=None, debug_buffer=None))]
fn load(
    py: Python<'_>,
    path: PathBuf,
    log: Option<PathBuf>,
    warmup: Option<String>,
    etrecord: Option<PathBuf>,
    program: Option<PathBuf>,
    debug_buffer: Option<PathBuf>,
) -> PyResult<LoadedProfile> {
    py.detach(move || {
        load_inner(
            path,
            log,
            warmup.as_deref(),
            etrecord,
            program,
            debug_buffer,
        )
    })
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

/// `fleet PATHS... --format csv`'s long table: its text (`arrow=False`) or the same
/// columns, typed, as an Arrow record batch (the arguments after the paths as the CLI's).
#[pyfunction]
#[pyo3(signature = (paths, args=Vec::new(), arrow=false))]
fn fleet_table(
    py: Python<'_>,
    paths: Vec<String>,
    args: Vec<String>,
    arrow: bool,
) -> PyResult<Py<PyAny>> {
    let mut argv = vec!["cpuprof-tui".to_string(), "fleet".into()];
    argv.extend(paths);
    argv.extend(args);
    let fleet = py
        .detach(move || {
            let cli = parse(argv)?;
            let Some(Command::Fleet(args)) = cli.command else {
                return Err("fleet: arguments not understood".to_string());
            };
            if args.format.is_some()
                || args.output.is_some()
                || args.samples.is_some()
                || args.partition_by.is_some()
            {
                return Err(
                    "fleet: --format, -o, --samples and --partition-by write files; \
                     cpuprof.fleet returns the table"
                        .to_string(),
                );
            }
            cpuprof_tui::report::fleet::fleet_of(&args)
        })
        .map_err(err)?;
    if arrow {
        let batch = cpuprof_tui::report::fleet::long_arrow(&fleet).map_err(err)?;
        Ok(Py::new(py, arrow::ArrowTable::new(batch))?.into_any())
    } else {
        let text = cpuprof_tui::report::fleet::long_csv(&fleet);
        Ok(text.into_pyobject(py)?.into_any().unbind())
    }
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
    m.add_function(wrap_pyfunction!(fleet_table, m)?)?;
    m.add_class::<arrow::ArrowTable>()?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    Ok(())
}
