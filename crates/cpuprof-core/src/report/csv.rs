//! One CSV row per method, delegate call, step, operator and other operator.

use super::table::shapes;
use crate::profile::efficiency::{self, Cost, Peak};
use crate::profile::{Profile, RowSource, Stats};
use crate::units::{duration_or_below, percent, percent_or_bound, XNNPACK_QUANTUM_MS};

/// Columns after `output_shapes` are additions: `median_text` (`<1 µs` for an XNNPACK
/// operator under the clock quantum, else the readable median), `share_text` (`<x%` for
/// such rows: an upper bound), `method` (the run signature's name; one section per method),
/// then the efficiency of operators with shapes (`profile::efficiency`): `flops` and
/// `bytes` per call, `GFLOP/s` and `GB/s` at the median, and with `--peak` `%peak` (of the
/// roofline's attainable rate) and `bound` (`compute` or `memory`); then `module` (the
/// module the row's nodes lie in, from the ETRecord; `(root)` for the root module) and
/// `source_line` (`make.py:83 in forward`); empty where unknown.
const HEADER: &str = "level,delegate_instruction_id,delegate_kind,step,name,kind,count,median_ms,min_ms,max_ms,mean_ms,p10_ms,p90_ms,p99_ms,stddev_ms,share,input_shapes,output_shapes,median_text,share_text,method,flops,bytes,GFLOP/s,GB/s,%peak,bound,module,source_line";

pub fn profile_csv(p: &Profile) -> String {
    profile_csv_with(p, None)
}

/// The CSV, with the roofline columns filled when `peak` is given.
pub fn profile_csv_with(p: &Profile, peak: Option<Peak>) -> String {
    document(|w| {
        w.write_record(HEADER.split(','))?;
        if p.methods.len() > 1 {
            for m in &p.methods {
                let mut section = Section::new(peak);
                method_rows(
                    &mut section,
                    m.method.as_ref(),
                    &m.delegates,
                    &m.other_operators,
                );
                section.write(w, &m.name)?;
            }
            return Ok(());
        }
        let mut section = Section::new(peak);
        method_rows(
            &mut section,
            p.method.as_ref(),
            &p.delegates,
            &p.other_operators,
        );
        let name = p.methods.first().map_or("method 1", |m| m.name.as_str());
        section.write(w, name)
    })
}

/// The rows of one method: per row the cells before its `method` cell, and the cells
/// after it (the efficiency cells, then the source cells).
struct Section {
    rows: Vec<(Vec<String>, Vec<String>)>,
    peak: Option<Peak>,
}

impl Section {
    fn new(peak: Option<Peak>) -> Section {
        Section {
            rows: Vec::new(),
            peak,
        }
    }

    /// Every row, its `method` cell between its two parts.
    fn write(&self, w: &mut csv::Writer<Vec<u8>>, method: &str) -> csv::Result<()> {
        for (cells, tail) in &self.rows {
            let row = cells.iter().map(String::as_str);
            w.write_record(row.chain([method]).chain(tail.iter().map(String::as_str)))?;
        }
        Ok(())
    }
}

/// The `module` and `source_line` cells of a row.
fn source_cells(source: Option<&RowSource>) -> [String; 2] {
    match source {
        Some(s) => [
            s.module_label().unwrap_or("").to_string(),
            s.source_line.clone().unwrap_or_default(),
        ],
        None => Default::default(),
    }
}

/// `flops,bytes,GFLOP/s,GB/s,%peak,bound` of an operator (all empty for other rows; no
/// rates for an operator under the clock quantum, whose time is not known).
fn efficiency_cells(
    cost: Option<Cost>,
    median_ms: f64,
    peak: Option<Peak>,
    below: bool,
) -> [String; 6] {
    let Some(cost) = cost else {
        return Default::default();
    };
    let median_ms = if below { f64::NAN } else { median_ms };
    let num = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
    let rate = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    let r = efficiency::rates(cost, median_ms);
    let roof = peak.and_then(|p| efficiency::roofline(cost, median_ms, p));
    [
        num(cost.flops),
        num(cost.bytes),
        rate(r.gflops),
        rate(r.gbps),
        roof.map(|r| (r.peak_share * 100.0).to_string())
            .unwrap_or_default(),
        roof.map(|r| r.bound.label())
            .unwrap_or_default()
            .to_string(),
    ]
}

fn method_rows(
    out: &mut Section,
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
                    Some(op.cost()),
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
                Some(op.cost()),
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
    out: &mut Section,
    first: &[&str; 6],
    s: &Stats,
    share: Option<f64>,
    sh: Option<(String, String)>,
    source: Option<&RowSource>,
) {
    line_below(out, first, s, share, sh, None, None, source);
}

/// `below`: Some(parent median) for an XNNPACK operator under the clock quantum;
/// `cost`: an operator's FLOPs and bytes (None for other rows); `source`: its module.
#[allow(clippy::too_many_arguments)]
fn line_below(
    out: &mut Section,
    first: &[&str; 6],
    s: &Stats,
    share: Option<f64>,
    sh: Option<(String, String)>,
    below: Option<f64>,
    cost: Option<Cost>,
    source: Option<&RowSource>,
) {
    let mut cells: Vec<String> = first.iter().map(|c| c.to_string()).collect();
    cells.push(s.count.to_string());
    for v in [
        s.median, s.min, s.max, s.mean, s.p10, s.p90, s.p99, s.stddev,
    ] {
        cells.push(v.to_string());
    }
    cells.push(share.map(|x| x.to_string()).unwrap_or_default());
    let (i, o) = sh.unwrap_or_default();
    cells.push(i);
    cells.push(o);
    cells.push(duration_or_below(s.median, below.is_some()));
    cells.push(match (share, below) {
        (Some(x), Some(parent)) => percent_or_bound(x, true, XNNPACK_QUANTUM_MS, parent),
        (Some(x), None) => percent(x),
        (None, _) => String::new(),
    });
    let mut tail = efficiency_cells(cost, s.median, out.peak, below.is_some()).to_vec();
    tail.extend(source_cells(source));
    out.rows.push((cells, tail));
}

/// A CSV document written by `rows` through the `csv` crate (RFC 4180: a field is quoted
/// only when it holds a comma, a quote or a line break; lines end with `\n`). Every CSV
/// this crate writes is made by it or by [`writer`].
pub(crate) fn document(rows: impl FnOnce(&mut csv::Writer<Vec<u8>>) -> csv::Result<()>) -> String {
    let mut w = writer(Vec::new());
    // Writing into memory fails only on an I/O error, which a vector never gives.
    let _ = rows(&mut w);
    let bytes = w.into_inner().unwrap_or_default();
    // Every field was a `str`: the text is UTF-8.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The CSV writer of every CSV output (see [`document`]); rows may differ in length.
pub(crate) fn writer<W: std::io::Write>(w: W) -> csv::Writer<W> {
    csv::WriterBuilder::new()
        .quote_style(csv::QuoteStyle::Necessary)
        .terminator(csv::Terminator::Any(b'\n'))
        .flexible(true)
        .buffer_capacity(1 << 16)
        .from_writer(w)
}

/// A CSV writer's error as an I/O error (the only kind a flexible writer gives).
pub(crate) fn io_error(e: csv::Error) -> std::io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => std::io::Error::other(format!("writing CSV: {other:?}")),
    }
}
