//! The `cpuprof.trace/1` JSON contract (extend, never rename). Its ops and threads are
//! the row model's `op` and `scope` rows (`RowTree::trace_ops`); the source, the
//! unterminated calls, the warnings and the counts are the trace's document-level facts.

use std::sync::Arc;

use serde::Serialize;

use crate::profile::Stats;
use crate::rows::{Facts, RowTree};
use crate::trace::{ImportCounts, TraceProfile, TraceWarning};

pub const TRACE_SCHEMA: &str = "cpuprof.trace/1";

#[derive(Serialize)]
struct Doc<'a> {
    schema: &'static str,
    unit: &'static str,
    source: Source<'a>,
    ops: Vec<Op<'a>>,
    threads: Vec<Thread<'a>>,
    unterminated: Vec<Open<'a>>,
    warnings: &'a [TraceWarning],
    // Extension: what was read and left aside.
    counts: &'a ImportCounts,
}

#[derive(Serialize)]
struct Source<'a> {
    trace: &'a str,
    format: &'static str,
}

#[derive(Serialize)]
struct Op<'a> {
    name: &'a str,
    calls: u64,
    errors: u64,
    inclusive_total: f64,
    self_total: f64,
    stats: &'a Stats,
    input_shapes: &'a Option<Vec<Vec<Vec<i64>>>>,
    // Extension: distinct dtype lists.
    dtypes: &'a Option<Vec<Vec<String>>>,
    // Extension: inclusive time without calls nested in a call of the same op.
    inclusive_outer_total: f64,
}

#[derive(Serialize)]
struct Thread<'a> {
    host: &'a Option<Arc<str>>,
    pid: i64,
    tid: i64,
    calls: u64,
}

#[derive(Serialize)]
struct Open<'a> {
    name: &'a str,
    pid: i64,
    tid: i64,
    // Extensions.
    host: &'a Option<Arc<str>>,
    start_ns: i64,
}

fn ms(ns: i64) -> f64 {
    ns as f64 / 1e6
}

/// The report as a serialisable document borrowing from `p` and its rows `tree`
/// (`RowTree::trace_ops(p)` or `from_trace(p)`): serialise it straight to a writer (a
/// `serde_json::Value` of it costs ~3 KB per op; this costs nothing).
pub fn json_doc<'a>(p: &'a TraceProfile, tree: &'a RowTree) -> impl Serialize + 'a {
    Doc {
        schema: TRACE_SCHEMA,
        unit: "ms",
        source: Source {
            trace: &p.trace,
            format: p.format.label(),
        },
        ops: tree
            .ops()
            .filter_map(|o| match &o.facts {
                Facts::Op {
                    calls,
                    errors,
                    inclusive_ns,
                    outer_ns,
                    self_ns,
                    shapes,
                    dtypes,
                } => Some(Op {
                    name: &o.name,
                    calls: *calls,
                    errors: *errors,
                    inclusive_total: ms(*inclusive_ns),
                    self_total: ms(*self_ns),
                    stats: &o.stats,
                    input_shapes: shapes,
                    dtypes,
                    inclusive_outer_total: ms(*outer_ns),
                }),
                _ => None,
            })
            .collect(),
        threads: tree
            .threads()
            .filter_map(|t| match &t.facts {
                Facts::Thread { key, calls, .. } => Some(Thread {
                    host: &key.host,
                    pid: key.pid,
                    tid: key.tid,
                    calls: *calls,
                }),
                _ => None,
            })
            .collect(),
        unterminated: p
            .unterminated
            .iter()
            .map(|u| Open {
                name: &u.name,
                pid: u.pid,
                tid: u.tid,
                host: &u.host,
                start_ns: u.start_ns,
            })
            .collect(),
        warnings: &p.warnings,
        counts: &p.counts,
    }
}

/// The report as a JSON value.
pub fn to_json_value(p: &TraceProfile) -> serde_json::Value {
    serde_json::to_value(json_doc(p, &RowTree::trace_ops(p))).unwrap_or(serde_json::Value::Null)
}

/// Pretty JSON text with a trailing newline.
pub fn to_json_string(p: &TraceProfile) -> String {
    let mut s = serde_json::to_string_pretty(&to_json_value(p)).unwrap_or_default();
    s.push('\n');
    s
}
