//! `report --by-module`: the nn.Module tree of each method with inclusive times (from the
//! ETRecord), as text or CSV: the `module` rows of the row model (`RowTree::modules_of`,
//! the numbers of the profile's `modules[]`); this only lays them out.

use std::fmt::Write;

use crate::escape::escape;
use crate::profile::Profile;
use crate::rows::{Facts, Row, RowKind, RowTree};
use crate::units::{duration_ms, percent};

const PATH_WIDTH: usize = 36;

/// Every method's module tree (`(no ETRecord)` when there is none).
pub fn modules_table(p: &Profile) -> String {
    let tree = RowTree::modules_of(p, &RowTree::from_profile(p));
    let mut o = String::new();
    let _ = writeln!(o, "ETDump    {}", escape(&p.source.etdump));
    let files = p.model_files.clone().unwrap_or_default();
    let _ = writeln!(
        o,
        "ETRecord  {}",
        escape(files.etrecord.as_deref().unwrap_or("(none)"))
    );
    for (name, modules, execute) in sections(&tree) {
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
        for (m, f) in modules {
            let indent = "  ".repeat(m.depth - 1);
            let width = PATH_WIDTH.saturating_sub(indent.len());
            let shared = if f.not_attributable > 0.0 {
                duration_ms(f.not_attributable)
            } else {
                String::new()
            };
            let _ = writeln!(
                o,
                "{indent}{:<width$} {:>11} {:>11} {:>7} {:>11}  {}",
                escape(&m.name),
                duration_ms(f.median_total),
                duration_ms(f.mean_total),
                percent(f.share),
                shared,
                escape(f.ty)
            );
            for r in f.rows {
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

/// A module row's figures (`Facts::Module`), borrowed.
struct ModuleFigures<'a> {
    ty: &'a str,
    median_total: f64,
    mean_total: f64,
    share: f64,
    not_attributable: f64,
    rows: &'a [crate::rows::ModuleMember],
}

/// A method's name, its module rows in pre-order with their figures, its
/// `Method::execute` median.
type Section<'a> = (&'a str, Vec<(&'a Row, ModuleFigures<'a>)>, Option<f64>);

/// Per method row of `tree` (`RowTree::modules_of`), its section.
fn sections(tree: &RowTree) -> Vec<Section<'_>> {
    tree.roots
        .iter()
        .map(|&root| {
            let m = &tree.rows[root];
            let modules = tree
                .descendants(root)
                .into_iter()
                .map(|i| &tree.rows[i])
                .filter(|r| r.kind == RowKind::Module)
                .filter_map(|r| match &r.facts {
                    Facts::Module {
                        ty,
                        median_total,
                        mean_total,
                        share,
                        not_attributable,
                        rows,
                    } => Some((
                        r,
                        ModuleFigures {
                            ty,
                            median_total: *median_total,
                            mean_total: *mean_total,
                            share: *share,
                            not_attributable: *not_attributable,
                            rows,
                        },
                    )),
                    _ => None,
                })
                .collect();
            let timed = matches!(m.facts, Facts::Method { timed: true, .. });
            (m.name.as_str(), modules, timed.then_some(m.stats.median()))
        })
        .collect()
}

/// One CSV row per module of every method.
pub fn modules_csv(p: &Profile) -> String {
    let tree = RowTree::modules_of(p, &RowTree::from_profile(p));
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
        for (name, modules, _) in sections(&tree) {
            for (m, f) in modules {
                w.write_record([
                    name,
                    m.module.as_deref().unwrap_or_default(),
                    f.ty,
                    &(m.depth - 1).to_string(),
                    &f.median_total.to_string(),
                    &f.mean_total.to_string(),
                    &f.share.to_string(),
                    &f.not_attributable.to_string(),
                    &f.rows.len().to_string(),
                ])?;
            }
        }
        Ok(())
    })
}
