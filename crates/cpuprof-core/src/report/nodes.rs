//! `report` on several traces (one per node or rank) and `--per host|process|thread`:
//! one tally over all of them, then the stragglers (per op, the groups whose calls are
//! outliers against the other groups': `fleet::stragglers`), then one tally per group
//! (iprof's `-e`). JSON: the `cpuprof.trace/1` document of the whole, extended with
//! `per`, `breakdown[]` and `stragglers[]`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use serde::Serialize;

use super::tally;
use super::{emit, json_format, render_trace};
use crate::escape::{eprint_line, escape, escape_keep_newlines};
use crate::fleet::analysis::AnalysisOptions;
use crate::fleet::stragglers::{op_rows, stragglers, Straggler};
use crate::options::{ReportArgs, ReportFormat};
use crate::rows::{Facts, Row, RowTree};
use crate::trace::nodes::{self, GroupKey, Per};
use crate::trace::TraceProfile;

/// Everything the renderers need: the whole trace and its rows, and with `--per` its
/// groups' rows (`RowTree::trace_ops`) and their stragglers.
pub struct Nodes {
    pub profile: TraceProfile,
    pub rows: RowTree,
    pub per: Option<Per>,
    pub groups: Vec<(GroupKey, RowTree)>,
    /// `rank` indexes `groups`.
    pub stragglers: Vec<Straggler>,
}

/// Read every path (each through `input` with its limits; the first failure is the one
/// line, naming its path), merge, and cut at `per`.
/// `limit`: `--max-input-size`.
pub fn load(paths: &[&Path], per: Option<Per>, limit: u64) -> Result<Nodes, String> {
    let mut sets = Vec::with_capacity(paths.len());
    for p in paths {
        sets.push((crate::input::display_name(p), nodes::load_set(p, limit)?));
    }
    let name = sets
        .iter()
        .map(|(n, _)| n.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let merged = nodes::merge(sets)?;
    let groups: Vec<(GroupKey, RowTree)> = per.map_or_else(Vec::new, |level| {
        nodes::group_profiles(&merged, level, &name)
            .into_iter()
            .map(|(k, g)| (k, RowTree::trace_ops(&g)))
            .collect()
    });
    let ranks = groups.iter().map(|(_, g)| op_rows(g)).collect();
    let stragglers = if groups.is_empty() {
        Vec::new()
    } else {
        stragglers(ranks, &AnalysisOptions::default())
    };
    let profile = TraceProfile::build(merged, &name);
    Ok(Nodes {
        rows: RowTree::trace_ops(&profile),
        profile,
        per,
        groups,
        stragglers,
    })
}

pub(super) fn run(args: &ReportArgs) -> Result<ExitCode, String> {
    super::check_trace_args(args)?;
    if args.per.is_some() && args.format == ReportFormat::Csv {
        return Err(format!(
            "{}: --per applies to --format tally, table and json, not csv",
            crate::input::display_name(&args.file)
        ));
    }
    let mut paths: Vec<&Path> = vec![&args.file];
    paths.extend(args.more.iter().map(|p| p.as_path()));
    let n = load(
        &paths,
        args.per.map(|p| p.level()),
        args.read.max_input_size,
    )?;
    emit(
        &mut |w| write(w, &n, args.format, args.self_time),
        args.output.as_deref(),
        &paths,
        args.format,
    )?;
    for w in &n.profile.warnings {
        eprint_line(&format!("warning: {}: {}", w.kind, w.message));
    }
    Ok(ExitCode::SUCCESS)
}

fn write(
    w: &mut dyn Write,
    n: &Nodes,
    format: ReportFormat,
    self_time: bool,
) -> std::io::Result<()> {
    match format {
        ReportFormat::Json => json_format::write_json(w, &json_doc(n)),
        ReportFormat::Csv => {
            w.write_all(render_trace(&n.profile, &n.rows, format, self_time).as_bytes())
        }
        ReportFormat::Table | ReportFormat::Tally => {
            w.write_all(render_text(n, format, self_time).as_bytes())
        }
    }
}

/// The total (as `report` prints one trace), the stragglers, each group's tally.
pub fn render_text(n: &Nodes, format: ReportFormat, self_time: bool) -> String {
    let mut out = render_trace(&n.profile, &n.rows, format, self_time);
    let Some(per) = n.per else {
        return out;
    };
    out.push_str(&stragglers_text(n, per));
    out.push('\n');
    for (key, g) in &n.groups {
        let mut input = tally::tally_input(g);
        for row in &mut input.rows {
            if let std::borrow::Cow::Owned(safe) = escape(&row.name) {
                row.name = safe.into();
            }
        }
        let table = tally::render_tally(
            &input,
            tally::TallyOptions {
                self_time,
                ..tally::TallyOptions::default()
            },
        );
        out.push_str(&escape_keep_newlines(&format!("{}\n{table}", key.title())));
    }
    out
}

fn plural(per: Per, n: usize) -> &'static str {
    match (per, n == 1) {
        (Per::Host, true) => "host",
        (Per::Host, false) => "hosts",
        (Per::Process, true) => "process",
        (Per::Process, false) => "processes",
        (Per::Thread, true) => "thread",
        (Per::Thread, false) => "threads",
    }
}

/// `Stragglers per host (...)` and one line per straggler, or why there is none.
pub fn stragglers_text(n: &Nodes, per: Per) -> String {
    let k = n.groups.len();
    let what = plural(per, k);
    if k < 3 {
        return format!(
            "Stragglers per {}: none sought ({k} {what}; at least 3 are needed to compare)\n",
            per.label()
        );
    }
    if n.stragglers.is_empty() {
        return format!(
            "Stragglers per {}: none ({k} {what} compared op by op)\n",
            per.label()
        );
    }
    let mut out = format!(
        "Stragglers per {} ({k} {what}; an op's calls on one of them against the others': |robust z| >= 3.5, >= 5%, Mann-Whitney, Holm, alpha 0.05):\n",
        per.label()
    );
    let order = tally_order(&n.rows);
    let mut list: Vec<&Straggler> = n.stragglers.iter().collect();
    list.sort_by_key(|s| (order(&s.op), s.rank));
    let dur = |ms: f64| tally::format_duration(ms * 1e6, false);
    let rows: Vec<[String; 7]> = list
        .iter()
        .map(|s| {
            [
                s.op.clone(),
                n.groups[s.rank].0.label(),
                format!("median {}", dur(s.median)),
                format!("{what} {}", dur(s.ranks_median)),
                ratio_text(s.median, s.ranks_median),
                format!("z {:.1}", s.z),
                format!("p {:.2e}", s.p_value),
            ]
        })
        .collect();
    let mut widths = [0usize; 7];
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(crate::escape::display_width(c));
        }
    }
    for (r, s) in rows.iter().zip(&list) {
        out.push_str("  ");
        for (i, (c, w)) in r.iter().zip(widths).enumerate() {
            if i == 0 {
                out.push_str(&crate::escape::pad_left(c, w));
            } else {
                out.push_str(&crate::escape::pad_right(c, w));
            }
            out.push_str(" | ");
        }
        out.push_str(&format!("{} calls\n", s.calls));
    }
    escape_keep_newlines(&out).into_owned()
}

fn ratio_text(m: f64, center: f64) -> String {
    if center > 0.0 {
        format!("{:.2}x", m / center)
    } else {
        "-".to_string()
    }
}

/// An op's place in the total tally (unknown ops last).
fn tally_order(tree: &RowTree) -> impl Fn(&str) -> usize + '_ {
    move |name| {
        tree.ops()
            .position(|o| o.name == name)
            .unwrap_or(usize::MAX)
    }
}

#[derive(Serialize)]
struct Doc<'a, D: Serialize> {
    #[serde(flatten)]
    trace: D,
    // Extensions of `cpuprof.trace/1` (only with --per).
    #[serde(skip_serializing_if = "Option::is_none")]
    per: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    breakdown: Option<Vec<GroupDoc<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stragglers: Option<Vec<StragglerDoc<'a>>>,
}

#[derive(Serialize)]
struct GroupDoc<'a> {
    host: &'a Option<Arc<str>>,
    /// Absent below `process`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pid: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tid: Option<i64>,
    threads: usize,
    ops: Vec<GroupOp<'a>>,
}

/// An op of one group, in ms like the document (min/max/median null when every call
/// failed).
#[derive(Serialize)]
struct GroupOp<'a> {
    name: &'a str,
    calls: u64,
    errors: u64,
    inclusive_total: f64,
    self_total: f64,
    min: Option<f64>,
    max: Option<f64>,
    median: Option<f64>,
}

#[derive(Serialize)]
struct StragglerDoc<'a> {
    op: &'a str,
    host: &'a Option<Arc<str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pid: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tid: Option<i64>,
    /// The group's median call and the median over the groups of theirs (ms).
    median: f64,
    groups_median: f64,
    ratio: Option<f64>,
    z: f64,
    p_value: f64,
    calls: usize,
    groups: usize,
}

/// An `op` row of a group as the breakdown writes it.
fn group_op(o: &Row) -> Option<GroupOp<'_>> {
    let ms = |ns: i64| ns as f64 / 1e6;
    let Facts::Op {
        calls,
        errors,
        inclusive_ns,
        self_ns,
        ..
    } = o.facts
    else {
        return None;
    };
    let extremes = o.min_max_ns();
    Some(GroupOp {
        name: &o.name,
        calls,
        errors,
        inclusive_total: ms(inclusive_ns),
        self_total: ms(self_ns),
        min: extremes.map(|e| ms(e.0)),
        max: extremes.map(|e| ms(e.1)),
        median: (o.stats.count > 0).then_some(o.stats.median()),
    })
}

fn json_doc(n: &Nodes) -> impl Serialize + '_ {
    Doc {
        trace: super::trace_json::json_doc(&n.profile, &n.rows),
        per: n.per.map(Per::label),
        breakdown: n.per.map(|_| {
            n.groups
                .iter()
                .map(|(k, g)| GroupDoc {
                    host: &k.host,
                    pid: k.pid,
                    tid: k.tid,
                    threads: g.threads().count(),
                    ops: g.ops().filter_map(group_op).collect(),
                })
                .collect()
        }),
        stragglers: n.per.map(|_| {
            n.stragglers
                .iter()
                .map(|s| {
                    let k = &n.groups[s.rank].0;
                    StragglerDoc {
                        op: &s.op,
                        host: &k.host,
                        pid: k.pid,
                        tid: k.tid,
                        median: s.median,
                        groups_median: s.ranks_median,
                        ratio: (s.ranks_median > 0.0).then(|| s.median / s.ranks_median),
                        z: s.z,
                        p_value: s.p_value,
                        calls: s.calls,
                        groups: s.ranks,
                    }
                })
                .collect()
        }),
    }
}
