//! The fleet tests' shared pieces: the fixtures folder, running the binary, and reading
//! back what it wrote (CSV records, Parquet cells, a `report` JSON's rows).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

pub const FIX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures");

pub fn fx(rel: &str) -> PathBuf {
    Path::new(FIX).join(rel)
}

pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .args(args)
        .output()
        .expect("run cpuprof-tui")
}

pub fn ok_stdout(args: &[&str]) -> String {
    let out = run(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// RFC 4180 records (quoted cells with `""` inside).
pub fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => cell.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut cell)),
            (false, '\n') => {
                row.push(std::mem::take(&mut cell));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => cell.push(c),
        }
    }
    assert!(cell.is_empty() && row.is_empty(), "CSV ends with a newline");
    rows
}

/// Every batch of a Parquet file, its columns by name (as text: strings as they are,
/// numbers in Rust's shortest form, null as None).
pub fn read_parquet(path: &Path) -> (Vec<String>, Vec<Vec<Option<String>>>) {
    use arrow_array::{Array, Float64Array, Int32Array, StringArray, UInt64Array};
    let f = std::fs::File::open(path).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f)
        .unwrap()
        .build()
        .unwrap();
    let mut names = Vec::new();
    let mut rows: Vec<Vec<Option<String>>> = Vec::new();
    for batch in reader {
        let b = batch.unwrap();
        names = b
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        for i in 0..b.num_rows() {
            let cells = b
                .columns()
                .iter()
                .map(|c| {
                    if c.is_null(i) {
                        return None;
                    }
                    let any = c.as_any();
                    Some(if let Some(s) = any.downcast_ref::<StringArray>() {
                        s.value(i).to_string()
                    } else if let Some(x) = any.downcast_ref::<Float64Array>() {
                        x.value(i).to_string()
                    } else if let Some(x) = any.downcast_ref::<UInt64Array>() {
                        x.value(i).to_string()
                    } else if let Some(x) = any.downcast_ref::<Int32Array>() {
                        x.value(i).to_string()
                    } else {
                        panic!("unexpected column type {:?}", c.data_type())
                    })
                })
                .collect();
            rows.push(cells);
        }
    }
    (names, rows)
}

/// (row path joined with ` › `, stats) of every row of a `report --format json` dump.
pub fn report_rows(report: &Value) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    let root = "Method::execute".to_string();
    out.insert(root.clone(), report["method"].clone());
    for d in report["delegates"].as_array().unwrap() {
        let dp = format!("{root} › delegate #{}", d["instruction_id"]);
        out.insert(dp.clone(), d["call"].clone());
        for s in d["steps"].as_array().unwrap() {
            let sp = format!("{dp} › {}", s["name"].as_str().unwrap());
            out.insert(sp.clone(), s["stats"].clone());
            for o in s["operators"].as_array().unwrap() {
                out.insert(
                    format!("{sp} › {}", o["name"].as_str().unwrap()),
                    o["stats"].clone(),
                );
            }
        }
        for o in d["operators"]
            .as_array()
            .unwrap()
            .iter()
            .chain(d["unattributed"].as_array().unwrap())
        {
            out.insert(
                format!("{dp} › {}", o["name"].as_str().unwrap()),
                o["stats"].clone(),
            );
        }
    }
    for o in report["other_operators"].as_array().unwrap() {
        let op = format!("{root} › {}", o["name"].as_str().unwrap());
        out.insert(op.clone(), o["stats"].clone());
        for k in o["kernels"].as_array().unwrap() {
            out.insert(
                format!("{op} › {}", k["name"].as_str().unwrap()),
                k["stats"].clone(),
            );
        }
    }
    out
}
