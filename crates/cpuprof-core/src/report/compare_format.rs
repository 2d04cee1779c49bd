//! Renderers of a [`Comparison`]: the `cpuprof.compare/1` JSON, CSV, and a text table.

use std::fmt::Write;
use unicode_width::UnicodeWidthStr;

use serde::ser::{SerializeSeq, Serializer};
use serde::Serialize;
use serde_json::Value;

use crate::compare::{CompareRow, Comparison, Verdict, COMPARE_SCHEMA};
use crate::stats::Stats;

/// A finite number, or null.
fn num(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

fn opt(x: Option<f64>) -> Option<f64> {
    x.and_then(num)
}

#[derive(Serialize)]
struct SideDoc {
    count: usize,
    median: Option<f64>,
    p10: Option<f64>,
    p90: Option<f64>,
}

fn side_stats(s: &Option<Stats>) -> Option<SideDoc> {
    s.as_ref().map(|s| SideDoc {
        count: s.count,
        median: num(s.median()),
        p10: num(s.p10()),
        p90: num(s.p90()),
    })
}

/// One row of the document, borrowing from the comparison (field order as in
/// `cpuprof.compare/1` of docs/reference.md).
#[derive(Serialize)]
struct RowDoc<'a> {
    kind: &'static str,
    path: &'a [String],
    name: &'a str,
    instruction_id: Option<i32>,
    a: Option<SideDoc>,
    b: Option<SideDoc>,
    delta_pct: Option<f64>,
    ci_pct: Option<[Option<f64>; 2]>,
    p_value: Option<f64>,
    p_raw: Option<f64>,
    verdict: &'static str,
    // Extensions.
    module: Option<&'a str>,
    median_change_pct: Option<f64>,
}

fn row_doc(r: &CompareRow) -> RowDoc<'_> {
    RowDoc {
        kind: r.kind.label(),
        path: &r.path,
        name: &r.name,
        instruction_id: r.instruction_id,
        a: side_stats(&r.a),
        b: side_stats(&r.b),
        delta_pct: opt(r.delta_pct),
        ci_pct: r.ci_pct.map(|(lo, hi)| [num(lo), num(hi)]),
        p_value: opt(r.p_value),
        p_raw: opt(r.p_raw),
        verdict: r.verdict.label(),
        module: r.module.as_deref(),
        median_change_pct: opt(r.median_change_pct),
    }
}

/// The rows, serialised one at a time (a row object exists only while it is written).
struct Rows<'a>(&'a [CompareRow]);

impl Serialize for Rows<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for r in self.0 {
            seq.serialize_element(&row_doc(r))?;
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct SideSource<'a> {
    source: &'a str,
    runs: usize,
}

#[derive(Serialize)]
struct SummaryDoc {
    slower: usize,
    faster: usize,
    same: usize,
    too_few_samples: usize,
    added: usize,
    removed: usize,
    geomean_ratio: Option<f64>,
}

#[derive(Serialize)]
struct WarningDoc<'a> {
    kind: &'a str,
    message: &'a str,
}

/// The `cpuprof.compare/1` document borrowing from a comparison: serialised straight to a
/// writer, row by row, so its memory is that of the comparison (as CSV and the table),
/// not of a JSON tree of it.
#[derive(Serialize)]
pub struct ComparisonDoc<'a> {
    schema: &'static str,
    unit: &'static str,
    alpha: f64,
    min_change_pct: f64,
    method: &'a str,
    a: SideSource<'a>,
    b: SideSource<'a>,
    rows: Rows<'a>,
    summary: SummaryDoc,
    warnings: Vec<WarningDoc<'a>>,
}

/// The document of `c` (field order as in `cpuprof.compare/1` of docs/reference.md).
pub fn comparison_doc(c: &Comparison) -> ComparisonDoc<'_> {
    let s = &c.summary;
    ComparisonDoc {
        schema: COMPARE_SCHEMA,
        unit: "ms",
        alpha: c.alpha,
        min_change_pct: c.min_change_pct,
        method: &c.method,
        a: SideSource {
            source: &c.a.source,
            runs: c.a.runs,
        },
        b: SideSource {
            source: &c.b.source,
            runs: c.b.runs,
        },
        rows: Rows(&c.rows),
        summary: SummaryDoc {
            slower: s.slower,
            faster: s.faster,
            same: s.same,
            too_few_samples: s.too_few_samples,
            added: s.added,
            removed: s.removed,
            geomean_ratio: opt(s.geomean_ratio),
        },
        warnings: c
            .warnings
            .iter()
            .map(|w| WarningDoc {
                kind: &w.kind,
                message: &w.message,
            })
            .collect(),
    }
}

/// The `cpuprof.compare/1` document as a JSON value (tests and callers that edit it;
/// `compare --format json` streams [`comparison_doc`] instead).
pub fn comparison_json(c: &Comparison) -> Value {
    serde_json::to_value(comparison_doc(c)).unwrap_or(Value::Null)
}

const CSV_HEADER: &str = "kind,path,name,instruction_id,a_count,a_median_ms,a_p10_ms,a_p90_ms,b_count,b_median_ms,b_p10_ms,b_p90_ms,delta_pct,ci_low_pct,ci_high_pct,p_value,p_raw,verdict,module,median_change_pct";

/// One CSV line per row; `path` joined with ` / `.
pub fn comparison_csv(c: &Comparison) -> String {
    super::csv::document(|w| comparison_rows(w, c))
}

fn comparison_rows(w: &mut csv::Writer<Vec<u8>>, c: &Comparison) -> csv::Result<()> {
    w.write_record(CSV_HEADER.split(','))?;
    let f = |x: Option<f64>| {
        x.filter(|v| v.is_finite())
            .map_or(String::new(), |v| v.to_string())
    };
    for r in &c.rows {
        let mut cells = vec![
            r.kind.label().to_string(),
            r.path.join(" / "),
            r.name.clone(),
            r.instruction_id.map_or(String::new(), |i| i.to_string()),
        ];
        for s in [&r.a, &r.b] {
            match s {
                Some(s) => cells.extend([
                    s.count.to_string(),
                    f(Some(s.median())),
                    f(Some(s.p10())),
                    f(Some(s.p90())),
                ]),
                None => cells.extend([String::new(), String::new(), String::new(), String::new()]),
            }
        }
        cells.extend([
            f(r.delta_pct),
            f(r.ci_pct.map(|c| c.0)),
            f(r.ci_pct.map(|c| c.1)),
            f(r.p_value),
            f(r.p_raw),
            r.verdict.label().to_string(),
            r.module.clone().unwrap_or_default(),
            f(r.median_change_pct),
        ]);
        w.write_record(&cells)?;
    }
    Ok(())
}

/// Input-derived text made safe for a terminal: control characters escaped.
pub fn printable(s: &str) -> String {
    crate::escape::escape(s).into_owned()
}

/// A signed percentage: `+12.3%`, `-4.0%`.
pub fn pct(x: f64) -> String {
    if x.is_finite() {
        format!("{x:+.1}%")
    } else {
        "-".into()
    }
}

/// The adjusted p of a row as the table prints it: `–` when it is 1 (the correction
/// leaves no evidence at all: see the legend), `-` when the row was not tested.
pub fn p_text(p: Option<f64>) -> String {
    match p {
        None => "-".to_string(),
        Some(p) if p >= 1.0 => crate::units::NO_BOUND.to_string(),
        Some(p) if p < 1e-4 => format!("{p:.0e}"),
        Some(p) => format!("{p:.4}"),
    }
}

/// The order of the table: significant changes first (`slower` by size of the change,
/// largest first, then `faster`, largest fall first), then every other row in program
/// order. Returns the three sections as row indexes.
pub fn table_sections(c: &Comparison) -> [Vec<usize>; 3] {
    let by = |v: Verdict| -> Vec<usize> {
        (0..c.rows.len())
            .filter(|&i| c.rows[i].verdict == v)
            .collect()
    };
    let size = |i: &usize| c.rows[*i].delta_pct.unwrap_or(f64::INFINITY);
    let mut slower = by(Verdict::Slower);
    slower.sort_by(|a, b| size(b).total_cmp(&size(a)).then(a.cmp(b)));
    let mut faster = by(Verdict::Faster);
    faster.sort_by(|a, b| size(a).total_cmp(&size(b)).then(a.cmp(b)));
    let rest = (0..c.rows.len())
        .filter(|&i| !matches!(c.rows[i].verdict, Verdict::Slower | Verdict::Faster))
        .collect();
    [slower, faster, rest]
}

/// The text table: a header naming both sides, the significant changes first (slower by
/// size, then faster), then the other rows in program order (indented by depth), with a
/// section line between; then a legend, the summary and the warnings.
pub fn comparison_table(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "A: {} ({} runs)\nB: {} ({} runs)\nalpha {} (Holm-corrected across rows), min change {}%",
        printable(&c.a.source),
        c.a.runs,
        printable(&c.b.source),
        c.b.runs,
        c.alpha,
        c.min_change_pct
    );
    // Warnings first: a pair of different models or too few runs must be read before
    // any percentage.
    for w in &c.warnings {
        let _ = writeln!(out, "warning: {}: {}", w.kind, printable(&w.message));
    }
    let _ = writeln!(
        out,
        "\n{:<15} {:<8} {:>9} {:>9} {:>8} {:>19} {:>8}  name",
        "verdict", "kind", "median A", "median B", "change", "interval", "p(Holm)"
    );
    let row_line = |out: &mut String, r: &CompareRow, name: String| {
        let operator = r.kind.is_operator();
        let med = |s: &Option<Stats>| crate::units::side_median(operator, s.as_ref());
        let interval = r.ci_pct.map_or("-".to_string(), |(lo, hi)| {
            format!("[{}, {}]", pct(lo), pct(hi))
        });
        let _ = writeln!(
            out,
            "{:<15} {:<8} {:>9} {:>9} {:>8} {:>19} {:>8}  {}",
            r.verdict.label(),
            r.kind.label(),
            med(&r.a),
            med(&r.b),
            r.delta_pct.map_or("-".to_string(), pct),
            interval,
            p_text(r.p_value),
            name
        );
    };
    let [slower, faster, rest] = table_sections(c);
    let titles = [
        format!("── slower ({}, largest change first) ", slower.len()),
        format!("── faster ({}, largest change first) ", faster.len()),
        "── other rows, in program order ".to_string(),
    ];
    let mut first = true;
    for (rows, title) in [slower, faster, rest].iter().zip(&titles) {
        if rows.is_empty() {
            continue;
        }
        // A section line between sections (none above the only one).
        if !(first && rows.len() == c.rows.len()) {
            let _ = writeln!(
                out,
                "{title}{}",
                "─".repeat(70usize.saturating_sub(title.width()))
            );
        }
        first = false;
        let program_order = std::ptr::eq(title, &titles[2]);
        for &i in rows {
            let r = &c.rows[i];
            // Significant rows leave the tree: their whole path says where they are.
            let name = if program_order {
                format!("{}{}", "  ".repeat(r.depth), printable(&r.name))
            } else {
                printable(&r.path.join(" / "))
            };
            row_line(&mut out, r, name);
        }
    }
    let tested = c.rows.iter().filter(|r| r.p_value.is_some()).count();
    let _ = writeln!(
        out,
        "\nchange: Hodges-Lehmann ratio B/A - 1 (median of the pairwise ratios); interval: its \
         {:.0}% distribution-free interval (-: the samples cannot give one). p(Holm): \
         Mann-Whitney p adjusted by Holm across the {tested} tested rows; – where the adjusted \
         p is 1 (no evidence of a change at all), - where the row was not tested.",
        (1.0 - c.alpha) * 100.0
    );
    let s = &c.summary;
    let counts: Vec<String> = Verdict::ALL
        .iter()
        .map(|v| format!("{} {}", s.count(*v), v.label()))
        .collect();
    let _ = writeln!(out, "\nsummary: {}", counts.join(", "));
    if let Some(g) = s.geomean_ratio {
        let _ = writeln!(
            out,
            "geometric mean of operator median ratios (B/A): {g:.4} ({})",
            pct((g - 1.0) * 100.0)
        );
    }
    out
}
