//! The answer line under the explorer's header: where the time goes, by operator type
//! (`GEMM 58% (21) · DWConv 23% (9) · cumsum 2% · other 17%`) for a dump, by op for a
//! trace (the ops with the most self time). The grouping is `o`'s (`groups::op_type`,
//! the rule of `crate::summary`); the operators counted are the table's: those of the
//! delegate it is scoped to (or of the step it lists, over the step's time) and matching
//! its filter. Computed from the rows on screen,
//! nothing is copied into `ExplorerData` for it.

use super::state::TableState;
use crate::app::data::{ExplorerData, NodeKind, SourceKind};
use crate::summary::{answer, group_by_type, Answer, Unit};
use unicode_width::UnicodeWidthStr;

/// The answer for the table's scope and filter, with at most `limit` entries; None
/// without a total to give shares of (a method with no samples).
pub fn for_table(data: &ExplorerData, table: &TableState, limit: usize) -> Option<Answer> {
    let (groups, over, total) = typed(data, table)?;
    shares(&groups, limit, &over, total)
}

/// The listed operators grouped by type, what their shares are of, and its time.
fn typed(
    data: &ExplorerData,
    table: &TableState,
) -> Option<(Vec<crate::summary::TypeGroup>, String, f64)> {
    let filter = table.filter.value().to_lowercase();
    let listed = |i: usize| {
        let op = &data.ops[i];
        let in_scope = table.scope.is_none() || op.scope == table.scope;
        let matches = filter.is_empty()
            || table.search.get(i).map_or_else(
                || op.name.to_lowercase().contains(&filter),
                |k| k.contains(&filter),
            );
        // Enter on a plan step (or instruction) lists only its operators.
        let within = table
            .within
            .is_none_or(|w| data.nodes.get(op.node).is_some_and(|n| n.parent == Some(w)));
        in_scope && matches && within
    };
    match data.kind {
        SourceKind::Etdump => {
            let within = table.within.and_then(|w| data.nodes.get(w));
            let (total, over) = match table.scope {
                // Limited to a step: shares of the step.
                _ if within.is_some() => {
                    let n = within?;
                    (n.stats.median(), n.name.clone())
                }
                Some(s) => {
                    let d = data
                        .nodes
                        .iter()
                        .find(|n| n.kind == NodeKind::Delegate && n.scope == Some(s))?;
                    (d.stats.median(), d.name.clone())
                }
                None => {
                    // Several methods: the table lists the operators of all, so the
                    // shares are of their Method::execute medians summed.
                    let methods: Vec<f64> = data
                        .roots
                        .iter()
                        .map(|&r| &data.nodes[r])
                        .filter(|n| n.kind == NodeKind::Method && n.stats.count > 0)
                        .map(|n| n.stats.median())
                        .collect();
                    if methods.len() > 1 {
                        (
                            methods.iter().sum(),
                            format!("{} ({} methods)", data.total_label, methods.len()),
                        )
                    } else {
                        (data.total.as_ref()?.median(), data.total_label.clone())
                    }
                }
            };
            let units = (0..data.ops.len()).filter(|&i| listed(i)).map(|i| Unit {
                name: &data.ops[i].name,
                ms: data.ops[i].stats.median(),
                cost: data.ops[i].cost,
            });
            Some((group_by_type(units, Some(total)), over, total))
        }
        SourceKind::Trace => {
            let total: f64 = data.ops.iter().filter_map(|o| o.self_total).sum();
            let units = (0..data.ops.len()).filter(|&i| listed(i)).map(|i| Unit {
                name: &data.ops[i].name,
                ms: data.ops[i].self_total.unwrap_or(0.0),
                cost: data.ops[i].cost,
            });
            Some((group_by_type(units, Some(total)), "self time".into(), total))
        }
    }
}

/// As `summary::answer`, but no listed operator (a filter that matches none) leaves the
/// whole total to `other` rather than no line.
fn shares(
    groups: &[crate::summary::TypeGroup],
    limit: usize,
    over: &str,
    total: f64,
) -> Option<Answer> {
    if groups.is_empty() && total.is_finite() && total > 0.0 {
        return Some(Answer {
            items: Vec::new(),
            other: 1.0,
            over: over.to_string(),
        });
    }
    answer(groups, limit, over)
}

/// The line as shown in `width` columns: `time of Method::execute: GEMM 58% (21) · …`,
/// with as many entries (up to 5) as fit; input names escaped.
pub fn line(data: &ExplorerData, table: &TableState, width: usize) -> Option<String> {
    // The operators are grouped once; only the number of entries shown varies.
    let (groups, over, total) = typed(data, table)?;
    let mut last = None;
    for limit in (1..=5).rev() {
        let a = shares(&groups, limit, &over, total)?;
        let text = format!("{}: {}", prefix(&a, data.kind), a);
        let text = crate::escape::escape(&text).into_owned();
        if text.width() <= width {
            return Some(text);
        }
        last = Some(text);
    }
    last
}

fn prefix(a: &Answer, kind: SourceKind) -> String {
    match kind {
        SourceKind::Etdump => format!("time of {}", a.over),
        SourceKind::Trace => "self time".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cpuprof_testkit::sample;

    /// The sample's medians are base × 1.075 of a method median of 1.075 ms, so each
    /// share is the base itself (`sample::profile`): IGEMM #1 + #2 = 0.20 + 0.22 = 42%,
    /// GEMM 15%, cumsum 10%, Clamp 5%, mean 3%, Add 1%; other with 3 entries =
    /// 100 − 67 = 33%.
    #[test]
    fn the_sample_answers_by_type() {
        let d = ExplorerData::from_profile(&sample::profile());
        let mut table = TableState::default();
        table.search = crate::app::table::search_keys(&d.ops);
        let a = for_table(&d, &table, 1).unwrap();
        assert_eq!(a.items.len(), 1);
        assert_eq!(&*a.items[0].label, "IGEMM");
        assert_eq!(a.items[0].count, 2);
        assert!((a.items[0].share - 0.42).abs() < 1e-9);
        assert!((a.other - 0.58).abs() < 1e-9);
        assert_eq!(a.over, "Method::execute");
        assert_eq!(
            for_table(&d, &table, 3).unwrap().to_string(),
            "IGEMM 42% (2) · GEMM 15% · cumsum 10% · other 33%"
        );
        // Scoped to delegate #4 (scope 1: GEMM 0.15 and Add 0.01 of its call, base
        // 0.2 in `sample::profile`): 75%, 5%, other 20%.
        table.scope = Some(1);
        let a = for_table(&d, &table, 3).unwrap();
        assert_eq!(a.over, "delegate #4");
        assert_eq!(a.to_string(), "GEMM 75% · Add 5% · other 20%");
        table.scope = None;
        // Limited to plan step conv2d+2 (base 0.5): IGEMM (0.20 + 0.22) / 0.5 = 84%,
        // Clamp 0.05 / 0.5 = 10%, other 6%.
        table.within = d
            .nodes
            .iter()
            .position(|n| n.name == "XNNPACK/subgraph:conv2d+2");
        let a = for_table(&d, &table, 3).unwrap();
        assert_eq!(a.over, "XNNPACK/subgraph:conv2d+2");
        assert_eq!(a.to_string(), "IGEMM 84% (2) · Clamp 10% · other 6%");
        table.within = None;
        // A filter that matches nothing leaves every share to `other`.
        table.filter = tui_input::Input::new("no such op".into());
        let a = for_table(&d, &table, 3).unwrap();
        assert!(a.items.is_empty());
        assert_eq!(a.to_string(), "other 100%");
    }
}
