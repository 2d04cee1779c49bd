//! The fleet as text: the summary table and the long CSV table (one line per profile and
//! row; a profile that failed to load is one line with its error and no row).

use std::fmt::Write as _;

use crate::escape::escape;
use crate::fleet::{value_text, Fleet};
use crate::units::duration_ms as format_ms;

/// Columns of the long table before and after the metadata columns.
const LEAD: [&str; 2] = ["profile_id", "path"];
const TAIL: [&str; 16] = [
    "model",
    "row_path",
    "kind",
    "name",
    "instruction_id",
    "count",
    "median_ms",
    "p10_ms",
    "p90_ms",
    "min_ms",
    "max_ms",
    "mean_ms",
    "flops",
    "bytes",
    "error",
    // Added after `error` (the columns before it are read by position elsewhere).
    "module",
];

/// The separator of `row_path`.
pub const PATH_SEPARATOR: &str = " › ";

/// The metadata keys of the fleet, in the order first seen; a key that is also a fixed
/// column is written as `meta.KEY` (`meta.meta.KEY` when that too is a column or a key:
/// every column name is distinct).
pub fn meta_columns(fleet: &Fleet) -> Vec<(String, String)> {
    meta_columns_beside(fleet, &[])
}

/// [`meta_columns`], a key that is one of `more` fixed columns also written `meta.KEY`
/// (the samples table's `run` and `ms`).
pub fn meta_columns_beside(fleet: &Fleet, more: &[&str]) -> Vec<(String, String)> {
    let mut keys: Vec<&String> = Vec::new();
    for p in &fleet.profiles {
        for k in p.meta.keys() {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    let is_fixed = |k: &str| LEAD.contains(&k) || TAIL.contains(&k) || more.contains(&k);
    // Names taken before any key is renamed: the fixed columns and every key kept as is.
    let mut taken: std::collections::HashSet<String> = LEAD
        .iter()
        .chain(TAIL.iter())
        .chain(more.iter())
        .map(|s| s.to_string())
        .chain(keys.iter().filter(|k| !is_fixed(k)).map(|k| k.to_string()))
        .collect();
    keys.into_iter()
        .map(|k| {
            if !is_fixed(k) {
                return (k.clone(), k.clone());
            }
            let mut column = format!("meta.{k}");
            while taken.contains(&column) {
                column.insert_str(0, "meta.");
            }
            taken.insert(column.clone());
            (k.clone(), column)
        })
        .collect()
}

pub fn fleet_csv(fleet: &Fleet) -> String {
    super::csv::document(|w| fleet_rows(w, fleet))
}

fn fleet_rows(w: &mut csv::Writer<Vec<u8>>, fleet: &Fleet) -> csv::Result<()> {
    let meta = meta_columns(fleet);
    let header = LEAD
        .iter()
        .copied()
        .chain(meta.iter().map(|(_, c)| c.as_str()))
        .chain(TAIL);
    w.write_record(header)?;
    let opt = |x: Option<u64>| x.map_or(String::new(), |v| v.to_string());
    for p in &fleet.profiles {
        let mut lead = vec![p.id.clone(), p.path.clone()];
        lead.extend(
            meta.iter()
                .map(|(k, _)| p.meta.get(k).map_or(String::new(), value_text)),
        );
        lead.push(p.model.clone().unwrap_or_default());
        if let Some(e) = &p.error {
            // Every row column empty but `error` (the last but one).
            let mut cells = lead.clone();
            cells.extend(std::iter::repeat_n(String::new(), TAIL.len() - 3));
            cells.extend([e.clone(), String::new()]);
            w.write_record(&cells)?;
            continue;
        }
        for r in &p.rows {
            let row = [
                r.path.join(PATH_SEPARATOR),
                r.kind.label().to_string(),
                r.name.clone(),
                r.instruction_id.map_or(String::new(), |i| i.to_string()),
                r.count.to_string(),
                r.median.to_string(),
                r.p10.to_string(),
                r.p90.to_string(),
                r.min.to_string(),
                r.max.to_string(),
                r.mean.to_string(),
                opt(r.flops),
                opt(r.bytes),
                String::new(),
                r.module.clone().unwrap_or_default(),
            ];
            w.write_record(lead.iter().chain(&row))?;
        }
    }
    Ok(())
}

/// The summary: profiles (metadata, model, method median, error), then per group its
/// rows with the across-profile columns, outliers and change.
pub fn fleet_table(fleet: &Fleet) -> String {
    let mut out = String::new();
    let failed = fleet.profiles.iter().filter(|p| p.error.is_some()).count();
    let _ = writeln!(
        out,
        "fleet: {} profile{}, {} failed, {} group{}",
        fleet.profiles.len(),
        if fleet.profiles.len() == 1 { "" } else { "s" },
        failed,
        fleet.groups.len(),
        if fleet.groups.len() == 1 { "" } else { "s" },
    );
    let meta = meta_columns(fleet);
    // Ids longer than ID_MAX are cut in the middle (both ends stay): the metadata or
    // error column keeps TABLE_WIDTH - (ID_MAX + 37) cells at least.
    let id_w = fleet
        .profiles
        .iter()
        .map(|p| crate::escape::display_width(&escape(&p.id)))
        .max()
        .unwrap_or(2)
        .clamp(7, ID_MAX);
    out.push('\n');
    let _ = writeln!(
        out,
        "{:<id_w$}  {:<12}  {:>5}  {:>10}  meta / error",
        "profile", "model", "runs", "method"
    );
    for p in &fleet.profiles {
        let what = match &p.error {
            Some(e) => format!("error: {e}"),
            None => meta
                .iter()
                .filter(|(k, _)| k != "mtime")
                .filter_map(|(k, c)| p.meta.get(k).map(|v| format!("{c}={}", value_text(v))))
                .collect::<Vec<_>>()
                .join(" "),
        };
        let method = p
            .method
            .as_ref()
            .map_or("-".into(), |s| format_ms(s.median()));
        let head = format!(
            "{}  {:<12}  {:>5}  {:>10}",
            crate::escape::pad_right(&crate::escape::cut_middle(&escape(&p.id), id_w), id_w),
            p.model.as_deref().unwrap_or("-"),
            p.runs,
            method,
        );
        push_wrapped(&mut out, &head, &[escape(&what).into_owned()]);
    }
    for g in &fleet.groups {
        out.push('\n');
        let by = match (&fleet.options.by, &g.by) {
            (Some(k), Some(v)) => format!(", {}={}", escape(k), escape(v)),
            (Some(k), None) => format!(", no {k}"),
            _ => String::new(),
        };
        let _ = writeln!(out, "model {}{by}: {} profiles", g.model, g.members.len());
        let name_w = g
            .rows
            .iter()
            .map(|r| 2 * (r.path.len() - 1) + crate::escape::display_width(&escape(&r.name)))
            .max()
            .unwrap_or(4)
            .clamp(4, NAME_MAX);
        let _ = writeln!(
            out,
            "  {:<name_w$}  {:>4}  {:>10}  {:>10}  {:>10}  {:>6}  slowest / outliers / change",
            "row", "n", "median", "p10", "p90", "cv"
        );
        for r in &g.rows {
            let name = format!("{}{}", "  ".repeat(r.path.len() - 1), escape(&r.name));
            let name = crate::escape::cut_middle(&name, name_w);
            let cv = r.cv.map_or("-".into(), |c| format!("{:.1}%", c * 100.0));
            let mut notes = vec![format!(
                "slowest {} ({})",
                fleet.profiles[r.slowest.0].id,
                format_ms(r.slowest.1)
            )];
            for o in &r.outliers {
                notes.push(format!(
                    "OUTLIER {} {} z={:.1} p={:.2e}",
                    fleet.profiles[o.profile].id,
                    format_ms(o.median),
                    o.z,
                    o.p_value
                ));
            }
            if let Some(c) = &r.change {
                notes.push(format!(
                    "CHANGE {:+.1}% from {} ({} -> {}, p={:.2e})",
                    c.delta_pct,
                    fleet.profiles[c.at].id,
                    format_ms(c.before),
                    format_ms(c.after),
                    c.p_value
                ));
            }
            let head = format!(
                "  {}  {:>4}  {:>10}  {:>10}  {:>10}  {:>6}",
                crate::escape::pad_right(&name, name_w),
                r.medians.len(),
                format_ms(r.median_of_medians),
                format_ms(r.p10),
                format_ms(r.p90),
                cv,
            );
            let notes: Vec<String> = notes.iter().map(|n| escape(n).into_owned()).collect();
            push_wrapped(&mut out, &head, &notes);
        }
    }
    out
}

/// Lines of the table are at most this many cells (a terminal of 120 columns).
pub const TABLE_WIDTH: usize = 120;
/// The widest profile id column, and row name column, before they are cut in the middle.
const ID_MAX: usize = 40;
const NAME_MAX: usize = 44;

/// `head` (the fixed columns), then the last column's `parts` (already escaped): the
/// first on the head's line when it fits within `TABLE_WIDTH`, each other on lines of
/// its own under the column (indented 6 when the column starts too far right), wrapped
/// at spaces; a word longer than a line is cut in its middle.
fn push_wrapped(out: &mut String, head: &str, parts: &[String]) {
    use crate::escape::{cut_middle, display_width};
    let col = display_width(head) + 2;
    let indent = if col <= TABLE_WIDTH - 40 { col } else { 6 };
    let parts: Vec<&String> = parts.iter().filter(|p| !p.is_empty()).collect();
    let mut line = head.to_string();
    for (k, part) in parts.iter().enumerate() {
        let part = if k + 1 < parts.len() {
            format!("{part};")
        } else {
            part.to_string()
        };
        if k == 0 && display_width(&line) + 2 + display_width(&part) <= TABLE_WIDTH {
            line.push_str("  ");
            line.push_str(&part);
            continue;
        }
        out.push_str(line.trim_end());
        out.push('\n');
        line = " ".repeat(indent);
        let mut used = indent;
        for word in part.split(' ').filter(|w| !w.is_empty()) {
            let word = cut_middle(word, TABLE_WIDTH - indent);
            let w = display_width(&word);
            let gap = usize::from(used > indent);
            if used + gap + w > TABLE_WIDTH {
                out.push_str(line.trim_end());
                out.push('\n');
                line = " ".repeat(indent);
                used = indent;
            } else {
                line.push_str(&" ".repeat(gap));
                used += gap;
            }
            line.push_str(&word);
            used += w;
        }
    }
    out.push_str(line.trim_end());
    out.push('\n');
}
