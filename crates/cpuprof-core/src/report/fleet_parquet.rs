//! The long table as Parquet (Apache Arrow's `parquet` crate, uncompressed): the columns
//! of the CSV, typed (strings, `instruction_id` Int32, `count`/`flops`/`bytes` UInt64, the
//! ms figures Float64; null where unknown, and for the row columns of a profile that
//! failed). Metadata values are strings. `--partition-by KEY` writes a Hive-style
//! directory instead, `KEY=VALUE/part-0.parquet`, without the KEY column in the files (a
//! reader such as DuckDB's `hive_partitioning` puts it back).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int32Array, RecordBatch, StringArray, UInt64Array};
use arrow_schema::{DataType, Field, Schema};

use super::fleet_format::{meta_columns, PATH_SEPARATOR};
use crate::fleet::{value_text, Fleet, FleetProfile};

/// One figure of a row (ms).
type RowFigure = fn(&crate::fleet::FleetRow) -> f64;

/// The long table of `profiles` (leaving out the metadata key `skip`) as Parquet bytes.
pub fn parquet_bytes(
    fleet: &Fleet,
    profiles: &[&FleetProfile],
    skip: Option<&str>,
) -> Result<Vec<u8>, String> {
    let batch = long_batch(fleet, profiles, skip)?;
    let mut out = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), None)
        .map_err(|e| format!("writing Parquet: {e}"))?;
    w.write(&batch)
        .map_err(|e| format!("writing Parquet: {e}"))?;
    w.close().map_err(|e| format!("writing Parquet: {e}"))?;
    Ok(out)
}

/// The long table of `profiles` (leaving out the metadata key `skip`) as one Arrow record
/// batch: the Parquet file's, and the Python module's `fleet(..., format="arrow")`.
pub fn long_batch(
    fleet: &Fleet,
    profiles: &[&FleetProfile],
    skip: Option<&str>,
) -> Result<RecordBatch, String> {
    let meta: Vec<(String, String)> = meta_columns(fleet)
        .into_iter()
        .filter(|(k, _)| Some(k.as_str()) != skip)
        .collect();
    // One entry per line: (profile, row index or None for a failed profile).
    let lines: Vec<(&FleetProfile, Option<usize>)> = profiles
        .iter()
        .flat_map(|p| {
            let rows: Vec<(&FleetProfile, Option<usize>)> = if p.error.is_some() {
                vec![(*p, None)]
            } else {
                (0..p.rows.len()).map(|i| (*p, Some(i))).collect()
            };
            rows
        })
        .collect();
    let text = |f: &dyn Fn(&FleetProfile, Option<usize>) -> Option<String>| -> ArrayRef {
        Arc::new(StringArray::from(
            lines.iter().map(|(p, r)| f(p, *r)).collect::<Vec<_>>(),
        ))
    };
    let float = |f: &dyn Fn(&crate::fleet::FleetRow) -> f64| -> ArrayRef {
        Arc::new(Float64Array::from(
            lines
                .iter()
                .map(|(p, r)| r.map(|i| f(&p.rows[i])))
                .collect::<Vec<_>>(),
        ))
    };
    let unsigned = |f: &dyn Fn(&crate::fleet::FleetRow) -> Option<u64>| -> ArrayRef {
        Arc::new(UInt64Array::from(
            lines
                .iter()
                .map(|(p, r)| r.and_then(|i| f(&p.rows[i])))
                .collect::<Vec<_>>(),
        ))
    };
    let mut fields = vec![
        Field::new("profile_id", DataType::Utf8, false),
        Field::new("path", DataType::Utf8, false),
    ];
    let mut columns: Vec<ArrayRef> = vec![
        text(&|p, _| Some(p.id.clone())),
        text(&|p, _| Some(p.path.clone())),
    ];
    for (k, c) in &meta {
        fields.push(Field::new(c, DataType::Utf8, true));
        columns.push(text(&|p, _| p.meta.get(k).map(value_text)));
    }
    let row_text = |f: fn(&crate::fleet::FleetRow) -> String| {
        text(&move |p: &FleetProfile, r: Option<usize>| r.map(|i| f(&p.rows[i])))
    };
    fields.extend([
        Field::new("model", DataType::Utf8, true),
        Field::new("row_path", DataType::Utf8, true),
        Field::new("kind", DataType::Utf8, true),
        Field::new("name", DataType::Utf8, true),
        Field::new("instruction_id", DataType::Int32, true),
        Field::new("count", DataType::UInt64, true),
    ]);
    columns.extend([
        text(&|p, _| p.model.clone()),
        row_text(|r| r.path.join(PATH_SEPARATOR)),
        row_text(|r| r.kind.label().to_string()),
        row_text(|r| r.name.clone()),
        Arc::new(Int32Array::from(
            lines
                .iter()
                .map(|(p, r)| r.and_then(|i| p.rows[i].instruction_id))
                .collect::<Vec<_>>(),
        )) as ArrayRef,
        unsigned(&|r| Some(r.count as u64)),
    ]);
    let figures: [(&str, RowFigure); 6] = [
        ("median_ms", |r| r.median),
        ("p10_ms", |r| r.p10),
        ("p90_ms", |r| r.p90),
        ("min_ms", |r| r.min),
        ("max_ms", |r| r.max),
        ("mean_ms", |r| r.mean),
    ];
    for (name, f) in figures {
        fields.push(Field::new(name, DataType::Float64, true));
        columns.push(float(&f));
    }
    fields.push(Field::new("flops", DataType::UInt64, true));
    columns.push(unsigned(&|r| r.flops));
    fields.push(Field::new("bytes", DataType::UInt64, true));
    columns.push(unsigned(&|r| r.bytes));
    fields.push(Field::new("error", DataType::Utf8, true));
    columns.push(text(&|p, _| p.error.clone()));
    fields.push(Field::new("module", DataType::Utf8, true));
    columns.push(text(&|p, r| r.and_then(|i| p.rows[i].module.clone())));
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
        .map_err(|e| format!("building the table: {e}"))
}

/// Hive's rule for a partition directory's value: `%XX` for anything but letters,
/// digits and `._-`; a missing or empty value is `__HIVE_DEFAULT_PARTITION__` (readers
/// take both for null), a value that is that text itself has its `_` encoded (`%5F`: the
/// same value once decoded, a directory of its own). A name over [`MAX_NAME`] bytes is
/// cut (never inside a `%XX`) and ends with `~` and a hash of the whole name: `~` is
/// never made by the encoding, so a cut name meets no other value's.
pub fn partition_dir(key: &str, value: Option<&str>) -> String {
    let enc = |s: &str, all: &[u8]| -> String {
        s.bytes()
            .map(|b| {
                if (b.is_ascii_alphanumeric() || b"._-".contains(&b)) && !all.contains(&b) {
                    (b as char).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect()
    };
    let name = match value {
        Some(DEFAULT_PARTITION) => format!("{}={}", enc(key, b""), enc(DEFAULT_PARTITION, b"_")),
        Some(v) if !v.is_empty() => format!("{}={}", enc(key, b""), enc(v, b"")),
        _ => format!("{}={DEFAULT_PARTITION}", enc(key, b"")),
    };
    fit_name(name)
}

/// Hive's name of the null partition.
const DEFAULT_PARTITION: &str = "__HIVE_DEFAULT_PARTITION__";

/// The longest file name most file systems take (bytes).
pub const MAX_NAME: usize = 255;

/// `name` itself when it fits in [`MAX_NAME`] bytes, else its head and `~HASH`.
fn fit_name(name: String) -> String {
    if name.len() <= MAX_NAME {
        return name;
    }
    // FNV-1a of the whole name, 64 bits as 16 hex digits.
    let mut fnv = crate::fleet::load::Fnv1a::default();
    fnv.eat(name.as_bytes());
    let h = fnv.0;
    let mut cut = MAX_NAME - 17;
    // The name is ASCII (encoded); step back out of a `%XX`.
    let bytes = name.as_bytes();
    if let Some(p) = bytes[cut.saturating_sub(2)..cut]
        .iter()
        .rposition(|&b| b == b'%')
    {
        cut = cut - 2 + p;
    }
    format!("{}~{h:016x}", &name[..cut])
}

/// The files of `--partition-by KEY` under `dir`: (path, profiles), by value in natural
/// order (a missing value last). Values that make the same directory (a missing value
/// and `""`) share its file: no file is written twice.
pub fn partitions<'f>(
    fleet: &'f Fleet,
    dir: &Path,
    key: &str,
) -> Vec<(PathBuf, Vec<&'f FleetProfile>)> {
    let mut parts: Vec<(Option<String>, Vec<&FleetProfile>)> = Vec::new();
    for p in &fleet.profiles {
        let v = p.field(key);
        match parts.iter_mut().find(|(k, _)| *k == v) {
            Some((_, list)) => list.push(p),
            None => parts.push((v, vec![p])),
        }
    }
    parts.sort_by(|a, b| match (&a.0, &b.0) {
        (Some(x), Some(y)) => crate::fleet::natural_cmp(x, y),
        (x, y) => y.is_some().cmp(&x.is_some()),
    });
    let mut files: Vec<(PathBuf, Vec<&FleetProfile>)> = Vec::new();
    for (v, list) in parts {
        let file = dir
            .join(partition_dir(key, v.as_deref()))
            .join("part-0.parquet");
        match files.iter_mut().find(|(f, _)| *f == file) {
            Some((_, all)) => all.extend(list),
            None => files.push((file, list)),
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hive_partition_names() {
        assert_eq!(partition_dir("device", Some("pixel7")), "device=pixel7");
        assert_eq!(partition_dir("device", Some("a b/c")), "device=a%20b%2Fc");
        assert_eq!(partition_dir("d", None), "d=__HIVE_DEFAULT_PARTITION__");
        assert_eq!(partition_dir("d", Some("")), "d=__HIVE_DEFAULT_PARTITION__");
        assert_eq!(
            partition_dir("d", Some("__HIVE_DEFAULT_PARTITION__")),
            "d=%5F%5FHIVE%5FDEFAULT%5FPARTITION%5F%5F"
        );
    }

    #[test]
    fn long_names_are_cut_and_hashed() {
        let v = format!("m{}", "/".repeat(100));
        let a = partition_dir("device", Some(&v));
        assert!(a.len() <= MAX_NAME, "{a}");
        // 7 + 1 + 300 encoded bytes cut to 238, never inside `%2F`, then `~` + 16 digits.
        let (head, hash) = a.rsplit_once('~').unwrap();
        assert_eq!(hash.len(), 16);
        assert!(
            head.starts_with("device=m%2F") && head.ends_with("%2F"),
            "{head}"
        );
        let b = partition_dir("device", Some(&format!("m{}", "/".repeat(101))));
        assert_ne!(a, b, "values with the same head differ by their hash");
        for n in 200..300 {
            let name = partition_dir("k", Some(&"é".repeat(n)));
            assert!(name.len() <= MAX_NAME);
            let head = name.rsplit_once('~').map_or(name.as_str(), |(h, _)| h);
            assert!(
                !head.ends_with('%') && !head[..head.len() - 1].ends_with('%'),
                "{name}"
            );
        }
    }
}
