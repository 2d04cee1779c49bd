//! `report --by-module`: the nn.Module tree of each method with inclusive times (from the
//! ETRecord), as text or CSV. The numbers are the profile's `modules[]` (see
//! [`crate::profile::ModuleTotal`]); this only lays them out.

use std::fmt::Write;

use crate::escape::escape;
use crate::profile::{ModuleTotal, Profile};
use crate::units::{duration_ms, percent};

const PATH_WIDTH: usize = 36;

/// Every method's module tree (`(no ETRecord)` when there is none).
pub fn modules_table(p: &Profile) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "ETDump    {}", escape(&p.source.etdump));
    let files = p.model_files.clone().unwrap_or_default();
    let _ = writeln!(
        o,
        "ETRecord  {}",
        escape(files.etrecord.as_deref().unwrap_or("(none)"))
    );
    for (name, modules, execute) in sections(p) {
        let _ = writeln!(o, "\n== {} ", escape(name));
        if modules.is_empty() {
            let _ = writeln!(o, "no module tree (no ETRecord read for this method)");
            continue;
        }
        let _ = writeln!(
            o,
            "{:<PATH_WIDTH$} {:>11} {:>11} {:>7} {:>11}  type",
            "module", "median", "mean", "share", "shared"
        );
        for m in modules {
            let indent = "  ".repeat(m.depth);
            let label = if m.path.is_empty() { "(root)" } else { &m.path };
            let width = PATH_WIDTH.saturating_sub(indent.len());
            let shared = if m.median_not_attributable > 0.0 {
                duration_ms(m.median_not_attributable)
            } else {
                String::new()
            };
            let _ = writeln!(
                o,
                "{indent}{:<width$} {:>11} {:>11} {:>7} {:>11}  {}",
                escape(label),
                duration_ms(m.median_total),
                duration_ms(m.mean_total),
                percent(m.share),
                shared,
                escape(&m.ty)
            );
            for r in &m.rows {
                let mark = if r.spans_children {
                    "  [spans modules: split not attributable]"
                } else {
                    ""
                };
                let _ = writeln!(
                    o,
                    "{indent}  · #{} {:<w$} {:>11} {:>11}{mark}",
                    r.instruction_id,
                    escape(&r.name),
                    duration_ms(r.median),
                    duration_ms(r.mean),
                    w = width.saturating_sub(6 + digits(r.instruction_id)),
                );
            }
        }
        if let Some(e) = execute {
            let _ = writeln!(o, "Method::execute median {}", duration_ms(e));
        }
    }
    let _ = writeln!(
        o,
        "\nmedian/mean: sums over the rows (delegate calls and kernels) with a node in the module or below, each row once; shared: the part from rows that also have nodes outside the module"
    );
    o
}

fn digits(n: i32) -> usize {
    n.to_string().len()
}

/// (method name, its modules, its `Method::execute` median).
fn sections(p: &Profile) -> Vec<(&str, &[ModuleTotal], Option<f64>)> {
    if p.methods.len() > 1 {
        p.methods
            .iter()
            .map(|m| {
                (
                    m.name.as_str(),
                    m.modules.as_slice(),
                    m.method.as_ref().map(|s| s.median),
                )
            })
            .collect()
    } else {
        let name = p.methods.first().map_or("method 1", |m| m.name.as_str());
        vec![(
            name,
            p.modules.as_slice(),
            p.method.as_ref().map(|s| s.median),
        )]
    }
}

/// One CSV row per module of every method.
pub fn modules_csv(p: &Profile) -> String {
    super::csv::document(|w| {
        w.write_record([
            "method",
            "path",
            "type",
            "depth",
            "median_total_ms",
            "mean_total_ms",
            "share",
            "median_not_attributable_ms",
            "rows",
        ])?;
        for (name, modules, _) in sections(p) {
            for m in modules {
                w.write_record([
                    name,
                    &m.path,
                    &m.ty,
                    &m.depth.to_string(),
                    &m.median_total.to_string(),
                    &m.mean_total.to_string(),
                    &m.share.to_string(),
                    &m.median_not_attributable.to_string(),
                    &m.rows.len().to_string(),
                ])?;
            }
        }
        Ok(())
    })
}
