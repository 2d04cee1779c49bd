//! One CSV row per method, delegate call, step, operator and other operator.

use std::fmt::Write;

use super::table::shapes;
use crate::profile::{Profile, Stats};

const HEADER: &str = "level,delegate_instruction_id,delegate_kind,step,name,kind,count,median_ms,min_ms,max_ms,mean_ms,p10_ms,p90_ms,p99_ms,stddev_ms,share,input_shapes,output_shapes";

pub fn profile_csv(p: &Profile) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{HEADER}");
    if let Some(m) = &p.method {
        line(
            &mut out,
            &["method", "", "", "", "Method::execute", ""],
            m,
            None,
            None,
        );
    }
    for d in &p.delegates {
        let id = d.instruction_id.to_string();
        let kind = serde_kind(&d.kind);
        line(
            &mut out,
            &["delegate", &id, &kind, "", "DELEGATE_CALL", ""],
            &d.call,
            None,
            None,
        );
        for s in &d.steps {
            line(
                &mut out,
                &["step", &id, &kind, &s.name, &s.name, &s.provider],
                &s.stats,
                Some(s.share),
                None,
            );
            for op in &s.operators {
                let k = serde_kind(&op.kind);
                let sh = shape_cells(op.input_shapes.as_deref(), op.output_shapes.as_deref());
                line(
                    &mut out,
                    &["operator", &id, &kind, &s.name, &op.name, &k],
                    &op.stats,
                    Some(op.share),
                    Some(sh),
                );
            }
        }
        for op in &d.operators {
            let k = serde_kind(&op.kind);
            let sh = shape_cells(op.input_shapes.as_deref(), op.output_shapes.as_deref());
            line(
                &mut out,
                &["operator", &id, &kind, "", &op.name, &k],
                &op.stats,
                Some(op.share),
                Some(sh),
            );
        }
        for u in &d.unattributed {
            line(
                &mut out,
                &["unattributed", &id, &kind, "", &u.name, ""],
                &u.stats,
                None,
                None,
            );
        }
    }
    for op in &p.other_operators {
        let id = op.instruction_id.to_string();
        line(
            &mut out,
            &["other_operator", &id, "", "", &op.name, ""],
            &op.stats,
            None,
            None,
        );
    }
    out
}

fn serde_kind<T: serde::Serialize>(k: &T) -> String {
    serde_json::to_value(k)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn shape_cells(i: Option<&[Vec<i64>]>, o: Option<&[Vec<i64>]>) -> (String, String) {
    (
        i.map(shapes).unwrap_or_default(),
        o.map(shapes).unwrap_or_default(),
    )
}

fn line(
    out: &mut String,
    first: &[&str; 6],
    s: &Stats,
    share: Option<f64>,
    sh: Option<(String, String)>,
) {
    let mut cells: Vec<String> = first.iter().map(|c| quote(c)).collect();
    cells.push(s.count.to_string());
    for v in [
        s.median, s.min, s.max, s.mean, s.p10, s.p90, s.p99, s.stddev,
    ] {
        cells.push(v.to_string());
    }
    cells.push(share.map(|x| x.to_string()).unwrap_or_default());
    let (i, o) = sh.unwrap_or_default();
    cells.push(quote(&i));
    cells.push(quote(&o));
    let _ = writeln!(out, "{}", cells.join(","));
}

/// RFC 4180 quoting: only when needed.
pub(crate) fn quote(cell: &str) -> String {
    if cell.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell.to_string()
    }
}
