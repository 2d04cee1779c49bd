//! One CSV row per method, delegate call, step, operator and other operator.

use std::fmt::Write;

use super::table::shapes;
use crate::profile::{Profile, RowSource, Stats};
use crate::units::{duration_or_below, percent, percent_or_bound, XNNPACK_QUANTUM_MS};

/// Columns after `output_shapes` are additions: `median_text` (`<1 µs` for an XNNPACK
/// operator under the clock quantum, else the readable median), `share_text` (`<x%` for
/// such rows: an upper bound), `method` (the run signature's name; one section per method),
/// `module` (the module the row's nodes lie in, from the ETRecord; `(root)` for the root
/// module) and `source_line` (`make.py:83 in forward`), empty where unknown.
const HEADER: &str = "level,delegate_instruction_id,delegate_kind,step,name,kind,count,median_ms,min_ms,max_ms,mean_ms,p10_ms,p90_ms,p99_ms,stddev_ms,share,input_shapes,output_shapes,median_text,share_text,method,module,source_line";

pub fn profile_csv(p: &Profile) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{HEADER}");
    if p.methods.len() > 1 {
        for m in &p.methods {
            method_rows(
                &mut Out {
                    text: &mut out,
                    method: &m.name,
                },
                m.method.as_ref(),
                &m.delegates,
                &m.other_operators,
            );
        }
        return out;
    }
    let name = p
        .methods
        .first()
        .map_or("method 1", |m| m.name.as_str())
        .to_string();
    method_rows(
        &mut Out {
            text: &mut out,
            method: &name,
        },
        p.method.as_ref(),
        &p.delegates,
        &p.other_operators,
    );
    out
}

/// Where rows go, and the `method` cell every one of them ends with (before `module`
/// and `source_line`).
struct Out<'a> {
    text: &'a mut String,
    method: &'a str,
}

/// The `module` and `source_line` cells of a row.
fn source_cells(source: Option<&RowSource>) -> String {
    match source {
        Some(s) => format!(
            "{},{}",
            quote(s.module_label().unwrap_or("")),
            quote(s.source_line.as_deref().unwrap_or(""))
        ),
        None => ",".to_string(),
    }
}

fn method_rows(
    out: &mut Out<'_>,
    method: Option<&Stats>,
    delegates: &[crate::profile::Delegate],
    other_operators: &[crate::profile::OtherOperator],
) {
    let p = (method, delegates, other_operators);
    if let Some(m) = p.0 {
        line(
            out,
            &["method", "", "", "", "Method::execute", ""],
            m,
            None,
            None,
            None,
        );
    }
    for d in p.1 {
        let id = d.instruction_id.to_string();
        let kind = serde_kind(&d.kind);
        line(
            out,
            &["delegate", &id, &kind, "", "DELEGATE_CALL", ""],
            &d.call,
            None,
            None,
            d.source.as_ref(),
        );
        for s in &d.steps {
            line(
                out,
                &["step", &id, &kind, &s.name, &s.name, &s.provider],
                &s.stats,
                Some(s.share),
                None,
                d.source.as_ref(),
            );
            for op in &s.operators {
                let k = serde_kind(&op.kind);
                let sh = shape_cells(op.input_shapes.as_deref(), op.output_shapes.as_deref());
                line_below(
                    out,
                    &["operator", &id, &kind, &s.name, &op.name, &k],
                    &op.stats,
                    Some(op.share),
                    Some(sh),
                    op.below_resolution().then_some(s.stats.median),
                    op.source.as_ref(),
                );
            }
        }
        for op in &d.operators {
            let k = serde_kind(&op.kind);
            let sh = shape_cells(op.input_shapes.as_deref(), op.output_shapes.as_deref());
            line_below(
                out,
                &["operator", &id, &kind, "", &op.name, &k],
                &op.stats,
                Some(op.share),
                Some(sh),
                op.below_resolution().then_some(d.call.median),
                op.source.as_ref(),
            );
        }
        for u in &d.unattributed {
            line(
                out,
                &["unattributed", &id, &kind, "", &u.name, ""],
                &u.stats,
                None,
                None,
                u.source.as_ref(),
            );
        }
    }
    for op in p.2 {
        let id = op.instruction_id.to_string();
        line(
            out,
            &["other_operator", &id, "", "", &op.name, ""],
            &op.stats,
            None,
            None,
            op.source.as_ref(),
        );
    }
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
    out: &mut Out<'_>,
    first: &[&str; 6],
    s: &Stats,
    share: Option<f64>,
    sh: Option<(String, String)>,
    source: Option<&RowSource>,
) {
    line_below(out, first, s, share, sh, None, source);
}

/// `below`: Some(parent median) for an XNNPACK operator under the clock quantum.
fn line_below(
    out: &mut Out<'_>,
    first: &[&str; 6],
    s: &Stats,
    share: Option<f64>,
    sh: Option<(String, String)>,
    below: Option<f64>,
    source: Option<&RowSource>,
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
    cells.push(quote(&duration_or_below(s.median, below.is_some())));
    cells.push(match (share, below) {
        (Some(x), Some(parent)) => quote(&percent_or_bound(x, true, XNNPACK_QUANTUM_MS, parent)),
        (Some(x), None) => quote(&percent(x)),
        (None, _) => String::new(),
    });
    cells.push(quote(out.method));
    cells.push(source_cells(source));
    let _ = writeln!(out.text, "{}", cells.join(","));
}

/// RFC 4180 quoting: only when needed.
pub(crate) fn quote(cell: &str) -> String {
    if cell.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell.to_string()
    }
}
