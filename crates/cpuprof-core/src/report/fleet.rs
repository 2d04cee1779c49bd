//! `cpuprof-tui fleet`: find, load and summarise a fleet (`crate::fleet`), then write the
//! table, `cpuprof.fleet/1` JSON or the long CSV table (`fleet_format`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{json, Map, Value};

use super::fleet_format::{fleet_csv, fleet_table};
use super::fleet_parquet::{parquet_bytes, partitions};
use super::fleet_samples::{write_samples_csv, write_samples_parquet};
use crate::escape::eprint_line;
use crate::fleet::analysis::AnalysisOptions;
use crate::fleet::load::LoadOptions;
use crate::fleet::meta::KeyTemplate;
use crate::fleet::stragglers::fleet_stragglers;
use crate::fleet::{analyse, discover, load_all, Fleet, FleetProfile, GroupRow};
use crate::options::{FleetArgs, FleetFormat, ReportFormat};
use crate::output::write_atomic_with;
use crate::stats::Stats;

pub const SCHEMA: &str = "cpuprof.fleet/1";

pub fn run(args: &FleetArgs) -> ExitCode {
    match run_inner(args) {
        Ok(code) => code,
        Err(line) => {
            eprint_line(&line);
            ExitCode::from(2)
        }
    }
}

/// As [`run`], the error as its one line (the Python module raises it).
pub fn run_inner(args: &FleetArgs) -> Result<ExitCode, String> {
    let key = key_of(args)?;
    let format = args.format.unwrap_or(FleetFormat::Table);
    if format == FleetFormat::Parquet && args.output.is_none() {
        return Err("--format parquet needs -o FILE (or a directory with --partition-by)".into());
    }
    if args.partition_by.is_some() && format != FleetFormat::Parquet {
        return Err("--partition-by is for --format parquet".into());
    }
    let samples = samples_plan(args, format)?;
    let found = discover_some(args)?;
    // Every file that may be read is an input `-o` must not replace.
    let mut inputs: Vec<PathBuf> = Vec::new();
    for f in &found {
        inputs.push(f.path.clone());
        if !args.no_log {
            inputs.extend(crate::profile::default_log_for(&f.path));
        }
        inputs.extend(crate::fleet::meta::sidecar_path(&f.path));
        // The program and ETRecord a dump is read with (named, or beside it).
        inputs.extend(crate::profile::model_input_paths(&f.path, &args.model));
    }
    let input_refs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    if let (Some(out), None) = (&args.output, &args.partition_by) {
        crate::output::check_output(out, &input_refs)
            .map_err(|e| format!("{}: {e}", out.display()))?;
    }
    if let Some((path, how)) = &samples {
        check_samples_output(args, path, *how, &input_refs)?;
    }
    let fleet = load_and_analyse(args, key, found);
    let text = match format {
        FleetFormat::Table => {
            let mut t = fleet_table(&fleet);
            t.push_str(&crate::escape::escape_keep_newlines(&stragglers_table(
                &fleet,
            )));
            t.into_bytes()
        }
        FleetFormat::Json => fleet_json(&fleet).into_bytes(),
        FleetFormat::Csv => fleet_csv(&fleet).into_bytes(),
        FleetFormat::Parquet => {
            let out = args.output.as_deref().expect("checked above");
            match &args.partition_by {
                Some(key) => write_partitions(&fleet, out, key, &input_refs, &mut |w, ps| {
                    let bytes =
                        parquet_bytes(&fleet, ps, Some(key)).map_err(std::io::Error::other)?;
                    w.write_all(&bytes)
                })?,
                None => {
                    let all: Vec<_> = fleet.profiles.iter().collect();
                    let bytes = parquet_bytes(&fleet, &all, None)?;
                    write_atomic_with(out, &input_refs, &mut |w| w.write_all(&bytes))
                        .map_err(|e| format!("{}: {e}", out.display()))?;
                }
            }
            write_samples(&fleet, args, samples.as_ref(), &input_refs)?;
            return Ok(report_failures(&fleet));
        }
    };
    super::emit(
        &mut |w| w.write_all(&text),
        args.output.as_deref(),
        &input_refs,
        if format == FleetFormat::Json {
            ReportFormat::Json
        } else {
            ReportFormat::Csv
        },
    )?;
    write_samples(&fleet, args, samples.as_ref(), &input_refs)?;
    Ok(report_failures(&fleet))
}

/// `--key` parsed.
fn key_of(args: &FleetArgs) -> Result<Option<KeyTemplate>, String> {
    args.key
        .as_deref()
        .map(KeyTemplate::parse)
        .transpose()
        .map_err(|e| format!("--key: {e}"))
}

/// The fleet's files, or the line that says there are none.
fn discover_some(args: &FleetArgs) -> Result<Vec<crate::fleet::discover::Found>, String> {
    let found = discover(&args.paths)?;
    if found.is_empty() {
        let shown: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
        return Err(format!(
            "{}: no ETDump, trace file or CTF trace directory found",
            shown.join(", ")
        ));
    }
    Ok(found)
}

fn load_and_analyse(
    args: &FleetArgs,
    key: Option<KeyTemplate>,
    found: Vec<crate::fleet::discover::Found>,
) -> Fleet {
    let load = LoadOptions {
        warmup: args.warmup,
        no_log: args.no_log,
        key,
        threads: args.jobs.unwrap_or(0),
        model: args.model.clone(),
        read: args.read,
    };
    let profiles = load_all(found, &load);
    analyse(
        profiles,
        AnalysisOptions {
            by: args.by.clone(),
            order: args.order.clone(),
            min_change: args.min_change,
            alpha: args.alpha,
        },
    )
}

/// The fleet of `args` found, loaded and analysed, nothing written (the Python module's
/// `fleet()`; `--format`, `-o`, `--samples` and `--partition-by` are not read).
pub fn fleet_of(args: &FleetArgs) -> Result<Fleet, String> {
    let key = key_of(args)?;
    let found = discover_some(args)?;
    Ok(load_and_analyse(args, key, found))
}

/// The long table (`--format csv`) of a fleet as text.
pub fn long_csv(fleet: &Fleet) -> String {
    fleet_csv(fleet)
}

/// The long table of a fleet as one Arrow record batch: the columns of the CSV, typed as
/// the Parquet file's.
pub fn long_arrow(fleet: &Fleet) -> Result<arrow_array::RecordBatch, String> {
    let all: Vec<_> = fleet.profiles.iter().collect();
    super::fleet_parquet::long_batch(fleet, &all, None)
}

/// How `--samples` is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SamplesHow {
    Csv,
    Parquet,
    /// `--partition-by`: a Hive-style directory of Parquet files.
    ParquetDir,
}

/// `--samples FILE`: its format, from `--partition-by`, the file's extension, or
/// `--format`.
fn samples_plan(
    args: &FleetArgs,
    format: FleetFormat,
) -> Result<Option<(PathBuf, SamplesHow)>, String> {
    let Some(path) = &args.samples else {
        return Ok(None);
    };
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    let how = match (ext.as_deref(), &args.partition_by, format) {
        (Some("csv"), Some(_), _) => {
            return Err(format!(
                "{}: --samples with --partition-by writes a directory of Parquet, not CSV",
                path.display()
            ))
        }
        (_, Some(_), _) => SamplesHow::ParquetDir,
        (Some("csv"), None, _) => SamplesHow::Csv,
        (Some("parquet" | "pq"), None, _) => SamplesHow::Parquet,
        (_, None, FleetFormat::Csv) => SamplesHow::Csv,
        (_, None, FleetFormat::Parquet) => SamplesHow::Parquet,
        _ => {
            return Err(format!(
                "{}: --samples: name the file .csv or .parquet, or give --format csv|parquet",
                path.display()
            ))
        }
    };
    Ok(Some((path.clone(), how)))
}

/// Before anything is loaded: `--samples` is not an input, not `-o`, and not standard
/// output when the main table goes there.
fn check_samples_output(
    args: &FleetArgs,
    path: &Path,
    how: SamplesHow,
    inputs: &[&Path],
) -> Result<(), String> {
    let shown = || path.display().to_string();
    let main_to_stdout = args.output.as_deref().is_none_or(crate::output::is_stdout);
    if crate::output::is_stdout(path) && main_to_stdout {
        return Err(format!(
            "--samples {}: the main output already goes to standard output",
            shown()
        ));
    }
    if let Some(out) = &args.output {
        let same = match (
            crate::output::resolve_output(out),
            crate::output::resolve_output(path),
        ) {
            (Ok(a), Ok(b)) => a == b || (a.exists() && same_file(&a, &b)),
            _ => false,
        };
        if same && !crate::output::is_stdout(path) {
            return Err(format!("{}: --samples and -o name the same file", shown()));
        }
    }
    match how {
        SamplesHow::ParquetDir => {
            if path.exists() && !path.is_dir() {
                return Err(format!(
                    "{}: not a directory (--partition-by writes a directory)",
                    shown()
                ));
            }
            Ok(())
        }
        _ => crate::output::check_output(path, inputs).map_err(|e| format!("{}: {e}", shown())),
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// `--samples`: the samples table, written after the main output.
fn write_samples(
    fleet: &Fleet,
    args: &FleetArgs,
    samples: Option<&(PathBuf, SamplesHow)>,
    inputs: &[&Path],
) -> Result<(), String> {
    let Some((path, how)) = samples else {
        return Ok(());
    };
    let shown = |e: String| format!("{}: {e}", path.display());
    match how {
        SamplesHow::Csv => {
            write_atomic_with(path, inputs, &mut |w| write_samples_csv(w, fleet)).map_err(shown)
        }
        SamplesHow::Parquet => {
            let all: Vec<&FleetProfile> = fleet.profiles.iter().collect();
            write_atomic_with(path, inputs, &mut |w| {
                write_samples_parquet(w, fleet, &all, None).map_err(std::io::Error::other)
            })
            .map_err(shown)
        }
        SamplesHow::ParquetDir => {
            let key = args.partition_by.as_deref().expect("ParquetDir has a key");
            write_partitions(fleet, path, key, inputs, &mut |w, ps| {
                write_samples_parquet(w, fleet, ps, Some(key)).map_err(std::io::Error::other)
            })
        }
    }
}

fn report_failures(fleet: &Fleet) -> ExitCode {
    for p in &fleet.profiles {
        for w in &p.warnings {
            eprint_line(&format!("warning: {}: {w}", p.id));
        }
    }
    let failed = fleet.profiles.iter().filter(|p| p.error.is_some()).count();
    if failed > 0 {
        eprint_line(&format!(
            "{failed} of {} profiles could not be read (listed with their errors)",
            fleet.profiles.len()
        ));
    }
    ExitCode::SUCCESS
}

/// Writes one partition's file from its profiles.
type PartWriter<'a> =
    dyn FnMut(&mut dyn std::io::Write, &[&FleetProfile]) -> std::io::Result<()> + 'a;

/// `--partition-by KEY`: `dir/KEY=VALUE/part-0.parquet` for each value (each file
/// written atomically; the directories made as needed).
fn write_partitions(
    fleet: &Fleet,
    dir: &Path,
    key: &str,
    inputs: &[&Path],
    write: &mut PartWriter,
) -> Result<(), String> {
    if dir.exists() && !dir.is_dir() {
        return Err(format!(
            "{}: not a directory (--partition-by writes a directory)",
            dir.display()
        ));
    }
    // Every partition is tried: one that cannot be written is reported and the others
    // still are, so a failure never leaves half a dataset silently.
    let mut failed: Vec<String> = Vec::new();
    for (file, profiles) in partitions(fleet, dir, key) {
        let parent = file.parent().expect("a partition file has a folder");
        let name = parent.file_name().map(|n| n.to_string_lossy().into_owned());
        if let Some(name) = name.filter(|n| n.contains('~')) {
            let ids: Vec<&str> = profiles.iter().map(|p| p.id.as_str()).collect();
            eprint_line(&format!(
                "note: the --partition-by value of {} is too long for a file name: written as {name}",
                ids.join(", ")
            ));
        }
        let written = std::fs::create_dir_all(parent)
            .map_err(|e| format!("{}: {}", parent.display(), crate::input::io_message(&e)))
            .and_then(|()| {
                write_atomic_with(&file, inputs, &mut |w| write(w, &profiles))
                    .map_err(|e| format!("{}: {e}", file.display()))
            });
        if let Err(e) = written {
            failed.push(e);
        }
    }
    match failed.len() {
        0 => Ok(()),
        1 => Err(failed.remove(0)),
        n => {
            for e in &failed[..n - 1] {
                eprint_line(e);
            }
            Err(format!(
                "{} (and {} more partitions not written)",
                failed[n - 1],
                n - 1
            ))
        }
    }
}

/// `cpuprof.fleet/1`, newline-terminated.
pub fn fleet_json(fleet: &Fleet) -> String {
    let mut s = serde_json::to_string_pretty(&fleet_value(fleet)).expect("JSON of values");
    s.push('\n');
    s
}

/// A number, or null when it is not finite.
fn num(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

fn stats_value(s: &Stats) -> Value {
    json!({
        "count": s.count,
        "median": num(s.median()),
        "min": num(s.min()),
        "max": num(s.max()),
        "mean": num(s.mean()),
        "p10": num(s.p10()),
        "p90": num(s.p90()),
        "p99": num(s.p99()),
        "stddev": num(s.stddev()),
    })
}

pub fn fleet_value(fleet: &Fleet) -> Value {
    let o = &fleet.options;
    let id = |i: usize| Value::String(fleet.profiles[i].id.clone());
    let profiles: Vec<Value> = fleet
        .profiles
        .iter()
        .map(|p| {
            json!({
                "id": p.id,
                "path": p.path,
                "meta": Value::Object(p.meta.clone()),
                "model": p.model,
                "kind": p.kind,
                "runs": p.runs,
                "method": p.method.as_ref().map(stats_value),
                "error": p.error,
                "warnings": p.warnings,
            })
        })
        .collect();
    let groups: Vec<Value> = fleet
        .groups
        .iter()
        .map(|g| {
            let by = match (&o.by, &g.by) {
                (Some(k), v) => json!({ "key": k, "value": v }),
                (None, _) => Value::Null,
            };
            let rows: Vec<Value> = g.rows.iter().map(|r| row_value(r, &id)).collect();
            json!({
                "model": g.model,
                "by": by,
                "profiles": g.members.iter().map(|&i| id(i)).collect::<Vec<_>>(),
                "rows": rows,
            })
        })
        .collect();
    let mut top = Map::new();
    top.insert("schema".into(), SCHEMA.into());
    top.insert("unit".into(), "ms".into());
    top.insert(
        "options".into(),
        json!({
            "by": o.by,
            "order": o.order,
            "min_change_pct": num(o.min_change),
            "alpha": num(o.alpha),
        }),
    );
    top.insert("profiles".into(), Value::Array(profiles));
    top.insert("groups".into(), Value::Array(groups));
    // Extension: the outlier ranks per op when the fleet holds trace profiles (one CTF
    // directory per node or rank), compared op by op whatever their call trees.
    let stragglers: Vec<Value> = fleet_stragglers(&fleet.profiles, o)
        .iter()
        .map(|s| {
            json!({
                "op": s.op,
                "id": id(s.rank),
                "median": num(s.median),
                "ranks_median": num(s.ranks_median),
                "ratio": if s.ranks_median > 0.0 { num(s.median / s.ranks_median) } else { Value::Null },
                "z": num(s.z),
                "p_value": num(s.p_value),
                "calls": s.calls,
                "ranks": s.ranks,
            })
        })
        .collect();
    top.insert("stragglers".into(), Value::Array(stragglers));
    Value::Object(top)
}

/// The table's straggler section: one line per (op, trace profile) that stands out, or
/// nothing when the fleet holds fewer than three trace profiles.
fn stragglers_table(fleet: &Fleet) -> String {
    let traces = fleet
        .profiles
        .iter()
        .filter(|p| p.kind == Some("trace") && p.error.is_none())
        .count();
    if traces < 3 {
        return String::new();
    }
    let found = fleet_stragglers(&fleet.profiles, &fleet.options);
    if found.is_empty() {
        return format!("\nStragglers: none ({traces} traces compared op by op)\n");
    }
    let mut out = format!(
        "\nStragglers ({traces} traces compared op by op: |robust z| >= 3.5, Mann-Whitney, Holm):\n"
    );
    for s in &found {
        let ratio = if s.ranks_median > 0.0 {
            format!("{:.2}x", s.median / s.ranks_median)
        } else {
            "-".into()
        };
        out.push_str(&format!(
            "  {} | {} | median {} | traces {} | {ratio} | z {:.1} | p {:.2e} | {} calls\n",
            s.op,
            fleet.profiles[s.rank].id,
            crate::units::duration_ms(s.median),
            crate::units::duration_ms(s.ranks_median),
            s.z,
            s.p_value,
            s.calls
        ));
    }
    out
}

fn row_value(r: &GroupRow, id: &dyn Fn(usize) -> Value) -> Value {
    json!({
        "path": r.path,
        "kind": r.kind.label(),
        "name": r.name,
        "instruction_id": r.instruction_id,
        "module": r.module,
        "profiles": r.medians.len(),
        "median_of_medians": num(r.median_of_medians),
        "p10": num(r.p10),
        "p90": num(r.p90),
        "cv": r.cv.map_or(Value::Null, num),
        "slowest": { "id": id(r.slowest.0), "median": num(r.slowest.1) },
        "outliers": r.outliers.iter().map(|o| json!({
            "id": id(o.profile),
            "median": num(o.median),
            "z": num(o.z),
            "p_value": num(o.p_value),
        })).collect::<Vec<_>>(),
        "change": r.change.as_ref().map_or(Value::Null, |c| json!({
            "at": id(c.at),
            "before": num(c.before),
            "after": num(c.after),
            "delta_pct": num(c.delta_pct),
            "p_value": num(c.p_value),
        })),
    })
}

/// Whether `fleet` opens the fleet view: no `--format`, no `-o`, and standard output is
/// a terminal (piped or redirected, the table is printed, as `compare` does).
pub fn wants_view(args: &FleetArgs) -> bool {
    use std::io::IsTerminal;
    args.format.is_none() && args.output.is_none() && std::io::stdout().is_terminal()
}
