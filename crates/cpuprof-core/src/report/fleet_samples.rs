//! `fleet --samples FILE`: the second long table, one line per kept sample of every row
//! of every profile that loaded (a failed profile has none): `profile_id`, `path`, the
//! metadata columns (as the main table names them; a key `run` or `ms` is `meta.run` /
//! `meta.ms`), `model`, `row_path`, `kind`, `name`, `instruction_id`, `run` (the run's
//! index as the profile numbers runs, warm-ups included; see [`crate::fleet::RunIndex`])
//! and `ms` (the sample). CSV or Parquet (Apache Arrow's `parquet` crate, written in row
//! groups of [`ROW_GROUP`] lines handed to the output as they are done, so memory does
//! not grow with the table). Parquet types: strings, `instruction_id` Int32, `run`
//! UInt64, `ms` Float64.

use std::io::Write;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int32Array, RecordBatch, StringArray, UInt64Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use super::fleet_format::{meta_columns_beside, PATH_SEPARATOR};
use crate::fleet::{value_text, Fleet, FleetProfile, FleetRow};

/// The fixed columns after the metadata columns.
pub const SAMPLE_TAIL: [&str; 7] = [
    "model",
    "row_path",
    "kind",
    "name",
    "instruction_id",
    "run",
    "ms",
];

/// Lines per Arrow batch (what is held at once besides the fleet).
const BATCH: usize = 1 << 14;
/// Lines per Parquet row group (each is handed to the output when complete).
pub const ROW_GROUP: usize = 1 << 20;

fn columns(fleet: &Fleet, skip: Option<&str>) -> Vec<(String, String)> {
    meta_columns_beside(fleet, &["run", "ms"])
        .into_iter()
        .filter(|(k, _)| Some(k.as_str()) != skip)
        .collect()
}

/// The samples table of the whole fleet as CSV, written line by line to `w`.
pub fn write_samples_csv(w: &mut dyn Write, fleet: &Fleet) -> std::io::Result<()> {
    let mut w = super::csv::writer(w);
    samples_rows(&mut w, fleet).map_err(super::csv::io_error)?;
    w.flush()
}

fn samples_rows(w: &mut csv::Writer<&mut dyn Write>, fleet: &Fleet) -> csv::Result<()> {
    let meta = columns(fleet, None);
    let header = ["profile_id", "path"]
        .into_iter()
        .chain(meta.iter().map(|(_, c)| c.as_str()))
        .chain(SAMPLE_TAIL);
    w.write_record(header)?;
    for p in fleet.profiles.iter().filter(|p| p.error.is_none()) {
        let mut lead = vec![p.id.clone(), p.path.clone()];
        lead.extend(
            meta.iter()
                .map(|(k, _)| p.meta.get(k).map_or(String::new(), value_text)),
        );
        lead.push(p.model.clone().unwrap_or_default());
        for r in &p.rows {
            let row = [
                r.path.join(PATH_SEPARATOR),
                r.kind.label().to_string(),
                r.name.clone(),
                r.instruction_id.map_or(String::new(), |i| i.to_string()),
            ];
            for i in 0..r.samples.len() {
                let sample = [r.runs.run(i).to_string(), ms(r, i).to_string()];
                w.write_record(lead.iter().chain(&row).chain(&sample))?;
            }
        }
    }
    Ok(())
}

/// Sample `i` of `r` in ms (`ns / 1e6`, as the profile's own value).
fn ms(r: &FleetRow, i: usize) -> f64 {
    r.samples.ns(i) as f64 / 1e6
}

/// One sample line: (profile, row index, sample index).
type Line<'f> = (&'f FleetProfile, usize, usize);

/// The samples table of `profiles` (leaving out the metadata key `skip`, the partition
/// key) as Parquet, written to `w` one row group at a time.
pub fn write_samples_parquet(
    w: &mut dyn Write,
    fleet: &Fleet,
    profiles: &[&FleetProfile],
    skip: Option<&str>,
) -> Result<(), String> {
    let meta = columns(fleet, skip);
    let schema = schema(&meta);
    let err = |e: parquet::errors::ParquetError| format!("writing Parquet: {e}");
    let io = |e: std::io::Error| format!("writing Parquet: {e}");
    let mut writer =
        parquet::arrow::ArrowWriter::try_new(Vec::new(), schema.clone(), None).map_err(err)?;
    let mut lines: Vec<Line> = Vec::with_capacity(BATCH);
    let mut in_group = 0usize;
    let lines_of = profiles.iter().filter(|p| p.error.is_none()).flat_map(|p| {
        p.rows
            .iter()
            .enumerate()
            .flat_map(move |(ri, r)| (0..r.samples.len()).map(move |si| (*p, ri, si)))
    });
    let mut flush = |lines: &mut Vec<Line>,
                     writer: &mut parquet::arrow::ArrowWriter<Vec<u8>>,
                     in_group: &mut usize,
                     last: bool|
     -> Result<(), String> {
        if !lines.is_empty() {
            let batch = batch(&schema, &meta, lines)?;
            writer.write(&batch).map_err(err)?;
            *in_group += lines.len();
            lines.clear();
        }
        if *in_group >= ROW_GROUP || last {
            writer.flush().map_err(err)?;
            *in_group = 0;
            let done = std::mem::take(writer.inner_mut());
            w.write_all(&done).map_err(io)?;
        }
        Ok(())
    };
    for line in lines_of {
        lines.push(line);
        if lines.len() == BATCH {
            flush(&mut lines, &mut writer, &mut in_group, false)?;
        }
    }
    flush(&mut lines, &mut writer, &mut in_group, true)?;
    let rest = writer.into_inner().map_err(err)?;
    w.write_all(&rest).map_err(io)
}

fn schema(meta: &[(String, String)]) -> SchemaRef {
    let mut fields = vec![
        Field::new("profile_id", DataType::Utf8, false),
        Field::new("path", DataType::Utf8, false),
    ];
    fields.extend(
        meta.iter()
            .map(|(_, c)| Field::new(c, DataType::Utf8, true)),
    );
    fields.extend([
        Field::new("model", DataType::Utf8, true),
        Field::new("row_path", DataType::Utf8, false),
        Field::new("kind", DataType::Utf8, false),
        Field::new("name", DataType::Utf8, false),
        Field::new("instruction_id", DataType::Int32, true),
        Field::new("run", DataType::UInt64, false),
        Field::new("ms", DataType::Float64, false),
    ]);
    Arc::new(Schema::new(fields))
}

fn batch(
    schema: &SchemaRef,
    meta: &[(String, String)],
    lines: &[Line],
) -> Result<RecordBatch, String> {
    let text = |f: &dyn Fn(&FleetProfile, &FleetRow) -> Option<String>| -> ArrayRef {
        Arc::new(StringArray::from(
            lines
                .iter()
                .map(|(p, r, _)| f(p, &p.rows[*r]))
                .collect::<Vec<_>>(),
        ))
    };
    let mut columns: Vec<ArrayRef> = vec![
        text(&|p, _| Some(p.id.clone())),
        text(&|p, _| Some(p.path.clone())),
    ];
    for (k, _) in meta {
        columns.push(text(&|p, _| p.meta.get(k).map(value_text)));
    }
    columns.extend([
        text(&|p, _| p.model.clone()),
        text(&|_, r| Some(r.path.join(PATH_SEPARATOR))),
        text(&|_, r| Some(r.kind.label().to_string())),
        text(&|_, r| Some(r.name.clone())),
        Arc::new(Int32Array::from(
            lines
                .iter()
                .map(|(p, r, _)| p.rows[*r].instruction_id)
                .collect::<Vec<_>>(),
        )) as ArrayRef,
        Arc::new(UInt64Array::from(
            lines
                .iter()
                .map(|(p, r, s)| p.rows[*r].runs.run(*s))
                .collect::<Vec<_>>(),
        )) as ArrayRef,
        Arc::new(Float64Array::from(
            lines
                .iter()
                .map(|(p, r, s)| ms(&p.rows[*r], *s))
                .collect::<Vec<_>>(),
        )) as ArrayRef,
    ]);
    RecordBatch::try_new(schema.clone(), columns).map_err(|e| format!("building the table: {e}"))
}
