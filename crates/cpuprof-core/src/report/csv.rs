//! One CSV row per method, delegate call, step, operator and other operator.

use super::table::shapes;
use crate::profile::efficiency::{self, Cost, Peak};
use crate::profile::{Profile, RowSource, Stats};
use crate::rows::{Facts, Row, RowKind, RowTree};
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

/// The CSV, with the roofline columns filled when `peak` is given: the profile's row
/// model (`RowTree::from_profile`), one section per method.
pub fn profile_csv_with(p: &Profile, peak: Option<Peak>) -> String {
    let tree = RowTree::from_profile(p);
    let several = p.methods.len() > 1;
    document(|w| {
        w.write_record(HEADER.split(','))?;
        for (k, &root) in tree.roots.iter().enumerate() {
            let mut section = Section::new(peak);
            method_rows(&mut section, &tree, root);
            let name = match p.methods.get(k) {
                Some(m) => m.name.as_str(),
                None if several => "",
                None => "method 1",
            };
            section.write(w, name)?;
        }
        Ok(())
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

/// The rows of one method: itself (when it was timed), its delegates (their steps,
/// operators and unattributed events) and its other operators; the self-time rows and
/// the other operators' kernels are not CSV rows.
fn method_rows(out: &mut Section, tree: &RowTree, root: usize) {
    let m = &tree.rows[root];
    if matches!(m.facts, Facts::Method { timed: true, .. }) {
        let first = ["method", "", "", "", "Method::execute", ""];
        line(out, &first, &m.stats, None, None, None);
    }
    for &c in &m.children {
        let r = &tree.rows[c];
        let id = r.instruction_id.map(|i| i.to_string()).unwrap_or_default();
        match (r.kind, &r.facts) {
            (RowKind::Delegate, Facts::Delegate { backend, .. }) => {
                let kind = serde_kind(backend);
                let first = ["delegate", &id, &kind, "", "DELEGATE_CALL", ""];
                line(out, &first, &r.stats, None, None, r.source.as_ref());
                delegate_rows(out, tree, c, &id, &kind);
            }
            (RowKind::Instruction, _) => {
                let first = ["other_operator", &id, "", "", &r.name, ""];
                line(out, &first, &r.stats, None, None, r.source.as_ref());
            }
            _ => {}
        }
    }
}

/// What lies under delegate row `d`: its steps (their operators), its operators, its
/// unattributed events.
fn delegate_rows(out: &mut Section, tree: &RowTree, d: usize, id: &str, kind: &str) {
    let call = &tree.rows[d];
    for &c in &call.children {
        let r = &tree.rows[c];
        match (r.kind, &r.facts) {
            (RowKind::Step, Facts::Step { provider, .. }) => {
                let first = ["step", id, kind, &r.name, &r.name, provider];
                line(out, &first, &r.stats, r.share, None, call.source.as_ref());
                for &o in &r.children {
                    operator_line(out, &tree.rows[o], r, id, kind, &r.name);
                }
            }
            (_, Facts::Unattributed) => {
                let first = ["unattributed", id, kind, "", &r.name, ""];
                line(out, &first, &r.stats, None, None, r.source.as_ref());
            }
            (RowKind::Operator | RowKind::Kernel, _) => {
                operator_line(out, r, call, id, kind, "");
            }
            _ => {}
        }
    }
}

/// An operator's line (`parent`: its step or delegate, whose median bounds a row under
/// the clock quantum).
fn operator_line(out: &mut Section, op: &Row, parent: &Row, id: &str, kind: &str, step: &str) {
    let Facts::Operator {
        kind: op_kind,
        below_resolution,
    } = &op.facts
    else {
        return;
    };
    let k = serde_kind(op_kind);
    let sh = shape_cells(op.input_shapes.as_deref(), op.output_shapes.as_deref());
    line_below(
        out,
        &["operator", id, kind, step, &op.name, &k],
        &op.stats,
        op.share,
        Some(sh),
        below_resolution.then_some(parent.stats.median()),
        Some(op.cost()),
        op.source.as_ref(),
    );
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
        s.median(),
        s.min(),
        s.max(),
        s.mean(),
        s.p10(),
        s.p90(),
        s.p99(),
        s.stddev(),
    ] {
        cells.push(v.to_string());
    }
    cells.push(share.map(|x| x.to_string()).unwrap_or_default());
    let (i, o) = sh.unwrap_or_default();
    cells.push(i);
    cells.push(o);
    cells.push(duration_or_below(s.median(), below.is_some()));
    cells.push(match (share, below) {
        (Some(x), Some(parent)) => percent_or_bound(x, true, XNNPACK_QUANTUM_MS, parent),
        (Some(x), None) => percent(x),
        (None, _) => String::new(),
    });
    let mut tail = efficiency_cells(cost, s.median(), out.peak, below.is_some()).to_vec();
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
