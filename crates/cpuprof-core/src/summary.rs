//! What the time goes to, by operator type: the answer line
//! (`GEMM 58% (21) · DWConv 23% (9) · cumsum 2% · other 17%`) and the per-type sums of
//! time, FLOPs and bytes the grouped view shows.
//!
//! Operators are grouped by [`crate::rows::operator_type`] (the XNNPACK name without its
//! `#n`, a kernel's own name): the grouping of the explorer's `o`. For a dump the
//! operators are those the explorer's table lists (XNNPACK and other delegate events,
//! kernels in steps, kernels of non-delegated instructions) and shares are of
//! `Method::execute`'s median (of the delegate call's when scoped to one delegate); for
//! a trace, of the self time of all ops.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::profile::efficiency::{self, Cost, Rates};
use crate::rows::{operator_type, Facts, Row, RowKind, RowTree};

/// One operator (or kernel, or trace op) counted in a summary.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Unit<'a> {
    pub name: &'a str,
    /// Its time: the median per run (dump), or its total self time (trace).
    pub ms: f64,
    pub cost: Cost,
}

/// The operators of one type.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeGroup {
    /// The type: `Fully Connected (NC, F32) GEMM`, `native_call_cumsum.out`.
    pub type_name: Arc<str>,
    /// Its short form: `GEMM`, `cumsum` ([`type_label`]); the type itself shared when it
    /// is its own short form (a trace op's name: a huge one is held once).
    pub label: Arc<str>,
    /// Operators of this type.
    pub count: usize,
    /// Sum of their times (ms).
    pub ms: f64,
    /// `ms` over the total, when there is a total.
    pub share: Option<f64>,
    /// FLOPs of one call of each operator that has a count, summed; `flops_ms` is the
    /// time of those operators (so `flops / flops_ms` is their achieved rate).
    pub flops: Option<u64>,
    pub flops_ms: f64,
    /// As `flops`, for bytes.
    pub bytes: Option<u64>,
    pub bytes_ms: f64,
    /// Operators with a FLOP count.
    pub with_flops: usize,
}

impl TypeGroup {
    /// Achieved GFLOP/s and GB/s of the operators that have the counts.
    pub fn rates(&self) -> Rates {
        Rates {
            gflops: efficiency::rates(
                Cost {
                    flops: self.flops,
                    bytes: None,
                },
                self.flops_ms,
            )
            .gflops,
            gbps: efficiency::rates(
                Cost {
                    flops: None,
                    bytes: self.bytes,
                },
                self.bytes_ms,
            )
            .gbps,
        }
    }
}

/// The short form of an operator type: the implementation of a convolution, fully
/// connected or matrix multiply (`Convolution (NHWC, F32) DWConv` → `DWConv`,
/// `Fully Connected (NC, F32) GEMM` → `GEMM`), the operator of any other XNNPACK type
/// (`Mean (ND) Reduce2` → `Mean`), a portable kernel's operator
/// (`native_call_cumsum.out` → `cumsum`); anything else as it is.
pub fn type_label(type_name: &str) -> String {
    type_label_of(type_name).to_string()
}

/// [`type_label`], as the part of `type_name` it is.
fn type_label_of(type_name: &str) -> &str {
    if let Some(rest) = type_name.strip_prefix("native_call_") {
        let op = rest.split('.').next().unwrap_or("");
        if !op.is_empty() {
            return op;
        }
        return type_name;
    }
    let Some(open) = type_name.find(" (") else {
        return type_name;
    };
    let head = &type_name[..open];
    let tail = type_name[open..]
        .split_once(')')
        .map_or("", |(_, t)| t.trim());
    let by_implementation = matches!(
        head,
        "Convolution" | "Deconvolution" | "Fully Connected" | "Batch Matrix Multiply"
    );
    if by_implementation && !tail.is_empty() {
        tail
    } else {
        head
    }
}

/// Group `units` by type; largest time first (then by type). `total_ms` gives shares.
pub fn group_by_type<'a>(
    units: impl IntoIterator<Item = Unit<'a>>,
    total_ms: Option<f64>,
) -> Vec<TypeGroup> {
    let mut by_type: BTreeMap<&str, TypeGroup> = BTreeMap::new();
    for u in units {
        let ty = operator_type(u.name);
        let g = by_type.entry(ty).or_insert_with(|| {
            let type_name: Arc<str> = Arc::from(ty);
            let label = match type_label_of(ty) {
                // The label is a part of the type: all of it (shared), or less.
                all if all.len() == ty.len() => type_name.clone(),
                label => Arc::from(label),
            };
            TypeGroup {
                type_name,
                label,
                count: 0,
                ms: 0.0,
                share: None,
                flops: None,
                flops_ms: 0.0,
                bytes: None,
                bytes_ms: 0.0,
                with_flops: 0,
            }
        });
        g.count += 1;
        let ms = if u.ms.is_finite() { u.ms } else { 0.0 };
        g.ms += ms;
        if let Some(f) = u.cost.flops {
            g.flops = Some(g.flops.unwrap_or(0).saturating_add(f));
            g.flops_ms += ms;
            g.with_flops += 1;
        }
        if let Some(b) = u.cost.bytes {
            g.bytes = Some(g.bytes.unwrap_or(0).saturating_add(b));
            g.bytes_ms += ms;
        }
    }
    let total = total_ms.filter(|t| t.is_finite() && *t > 0.0);
    let mut groups: Vec<TypeGroup> = by_type
        .into_values()
        .map(|mut g| {
            g.share = total.map(|t| g.ms / t);
            g
        })
        .collect();
    groups.sort_by(|a, b| {
        b.ms.total_cmp(&a.ms)
            .then_with(|| a.type_name.cmp(&b.type_name))
    });
    groups
}

/// One entry of the answer line.
#[derive(Debug, Clone, PartialEq)]
pub struct AnswerItem {
    pub label: Arc<str>,
    pub type_name: Arc<str>,
    pub share: f64,
    /// Operators of the type (shown when more than one).
    pub count: usize,
}

/// The answer line: the top types and the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub items: Vec<AnswerItem>,
    /// What is left of the total (0..1): other types and time in no listed operator.
    pub other: f64,
    /// What the shares are of: `Method::execute`, `delegate #1`, `self time`.
    pub over: String,
}

/// The top `limit` groups of `groups` (as [`group_by_type`] sorts them, with shares) as
/// an answer line over `over`. None when there is no share to give (no total).
pub fn answer(groups: &[TypeGroup], limit: usize, over: &str) -> Option<Answer> {
    if groups.is_empty() || groups.iter().any(|g| g.share.is_none()) {
        return None;
    }
    let top: Vec<&TypeGroup> = groups.iter().filter(|g| g.ms > 0.0).take(limit).collect();
    // Two types with one short form (`GEMM` of a convolution and of a fully connected
    // operator) are written in full, and so is a type whose short form is another type's
    // real name (`async_compile.wait (dynamo_timed)` beside `async_compile.wait`, shown
    // or not).
    let label = |g: &TypeGroup| {
        let collides = top
            .iter()
            .any(|o| o.type_name != g.type_name && o.label == g.label)
            || groups
                .iter()
                .any(|o| o.type_name != g.type_name && o.type_name == g.label);
        if collides {
            g.type_name.clone()
        } else {
            g.label.clone()
        }
    };
    let items: Vec<AnswerItem> = top
        .iter()
        .map(|g| AnswerItem {
            label: label(g),
            type_name: g.type_name.clone(),
            share: g.share.unwrap_or(0.0),
            count: g.count,
        })
        .collect();
    let shown: f64 = items.iter().map(|i| i.share).sum();
    Some(Answer {
        items,
        other: (1.0 - shown).max(0.0),
        over: over.to_string(),
    })
}

/// A share as a whole percentage (`58%`), `<1%` for a share that rounds to 0 but is not.
pub fn whole_percent(share: f64) -> String {
    let p = share * 100.0;
    if p > 0.0 && p < 0.5 {
        "<1%".to_string()
    } else {
        format!("{p:.0}%")
    }
}

impl fmt::Display for Answer {
    /// `GEMM 58% (21) · DWConv 23% (9) · cumsum 2% · other 17%`; `other` is left out
    /// when it rounds to 0.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Written part by part (a label may be huge: a trace op's name).
        for (k, i) in self.items.iter().enumerate() {
            if k > 0 {
                f.write_str(" · ")?;
            }
            write!(f, "{} {}", i.label, whole_percent(i.share))?;
            if i.count > 1 {
                write!(f, " ({})", i.count)?;
            }
        }
        if self.other * 100.0 >= 0.5 || self.items.is_empty() {
            if !self.items.is_empty() {
                f.write_str(" · ")?;
            }
            write!(f, "other {}", whole_percent(self.other))?;
        }
        Ok(())
    }
}

/// The operators of a dump's method (its row `root` in the profile's row model), as the
/// explorer's table lists them: in every delegate (only delegate `scope` when given) the
/// operators of its steps and its own, and (unscoped) the kernels of non-delegated
/// instructions; names containing `filter` (ignoring case) only.
pub fn dump_units<'a>(
    tree: &'a RowTree,
    root: usize,
    scope: Option<i32>,
    filter: &str,
) -> Vec<Unit<'a>> {
    let needle = filter.to_lowercase();
    let keep = |name: &str| needle.is_empty() || name.to_lowercase().contains(&needle);
    let rows = &tree.rows;
    let mut units = Vec::new();
    let mut unit = |r: &'a Row, cost: Cost| {
        if keep(&r.name) {
            units.push(Unit {
                name: &r.name,
                ms: r.stats.median(),
                cost,
            });
        }
    };
    for &c in &rows[root].children {
        let top = &rows[c];
        match top.kind {
            RowKind::Delegate if scope.is_none_or(|id| top.instruction_id == Some(id)) => {
                for op in tree.delegate_operators(c) {
                    unit(op, op.cost());
                }
            }
            RowKind::Instruction if scope.is_none() => {
                for &k in &top.children {
                    unit(&rows[k], Cost::default());
                }
            }
            _ => {}
        }
    }
    units
}

/// The answer line of the method at row `root` of a dump's row model, over the method
/// (when it has a time) or, with `scope`, over that delegate's call.
pub fn dump_answer(
    tree: &RowTree,
    root: usize,
    scope: Option<i32>,
    filter: &str,
    limit: usize,
) -> Option<Answer> {
    let method = &tree.rows[root];
    let (total, over) = match scope {
        Some(id) => {
            let d = method
                .children
                .iter()
                .map(|&c| &tree.rows[c])
                .find(|r| r.kind == RowKind::Delegate && r.instruction_id == Some(id))?;
            (d.stats.median(), crate::units::delegate_name(id))
        }
        None if matches!(method.facts, Facts::Method { timed: true, .. }) => {
            (method.stats.median(), "Method::execute".to_string())
        }
        None => return None,
    };
    let units = dump_units(tree, root, scope, filter);
    answer(&group_by_type(units, Some(total)), limit, &over)
}

/// The answer line of a trace: the `op` rows of its row model with the most self time
/// (names containing `filter`), as shares of the self time of all ops.
pub fn trace_answer(tree: &RowTree, filter: &str, limit: usize) -> Option<Answer> {
    let ms = |ns: i64| ns.max(0) as f64 / 1e6;
    let self_ms = |r: &Row| match r.facts {
        Facts::Op { self_ns, .. } => ms(self_ns),
        _ => 0.0,
    };
    let total: f64 = tree.ops().map(self_ms).sum();
    let needle = filter.to_lowercase();
    let units = tree
        .ops()
        .filter(|o| needle.is_empty() || o.name.to_lowercase().contains(&needle))
        .map(|o| Unit {
            name: &o.name,
            ms: self_ms(o),
            cost: Cost::default(),
        });
    answer(&group_by_type(units, Some(total)), limit, "self time")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(name: &str, ms: f64) -> Unit<'_> {
        Unit {
            name,
            ms,
            cost: Cost::default(),
        }
    }

    #[test]
    fn labels() {
        assert_eq!(type_label("Fully Connected (NC, F32) GEMM"), "GEMM");
        assert_eq!(type_label("Convolution (NHWC, F32) DWConv"), "DWConv");
        assert_eq!(type_label("Convolution (NHWC, F32) IGEMM"), "IGEMM");
        assert_eq!(type_label("Mean (ND) Reduce2"), "Mean");
        assert_eq!(type_label("Transpose (ND, X32)"), "Transpose");
        assert_eq!(
            type_label("Average Pooling (NHWC, F32) Average Pooling"),
            "Average Pooling"
        );
        assert_eq!(type_label("native_call_cumsum.out"), "cumsum");
        assert_eq!(type_label("native_call_.out"), "native_call_.out");
        assert_eq!(type_label("aten::linear"), "aten::linear");
    }

    #[test]
    fn a_short_form_that_is_another_key_is_written_in_full() {
        // `torch.compile` traces: `X (dynamo_timed)` holds the time, `X` is a real key too.
        let units = vec![
            unit("async_compile.wait (dynamo_timed)", 6.0),
            unit("Scheduler.codegen (dynamo_timed)", 3.0),
            unit("async_compile.wait", 0.001),
            unit("Scheduler.codegen", 0.001),
            unit("aten::mm", 0.998),
        ];
        let a = answer(&group_by_type(units, Some(10.0)), 2, "self time").unwrap();
        let labels: Vec<&str> = a.items.iter().map(|i| &*i.label).collect();
        assert_eq!(
            labels,
            [
                "async_compile.wait (dynamo_timed)",
                "Scheduler.codegen (dynamo_timed)"
            ]
        );
        // Without the real key beside it, the short form stays.
        let units = vec![unit("Mean (ND) Reduce2", 1.0)];
        let a = answer(&group_by_type(units, Some(1.0)), 2, "x").unwrap();
        assert_eq!(&*a.items[0].label, "Mean");
    }

    /// Worked by hand: total 10 ms; GEMM #1..#3 = 3 + 2 + 1 = 6 ms (60%, 3), DWConv 2 ms
    /// (20%), cumsum 0.2 ms (2%), Add 0.1 ms (1%, left out with limit 3); other =
    /// 100 − 82 = 18%.
    #[test]
    fn the_answer_line_by_hand() {
        let units = vec![
            unit("Fully Connected (NC, F32) GEMM #1", 3.0),
            unit("Convolution (NHWC, F32) DWConv #1", 2.0),
            unit("Fully Connected (NC, F32) GEMM #2", 2.0),
            unit("native_call_cumsum.out", 0.2),
            unit("Fully Connected (NC, F32) GEMM #3", 1.0),
            unit("Add (ND) #1", 0.1),
        ];
        let groups = group_by_type(units, Some(10.0));
        assert_eq!(groups.len(), 4);
        let a = answer(&groups, 3, "Method::execute").unwrap();
        assert_eq!(
            a.to_string(),
            "GEMM 60% (3) · DWConv 20% · cumsum 2% · other 18%"
        );
        // Two types with the same short form are written in full.
        let units = vec![
            unit("Fully Connected (NC, F32) GEMM #1", 3.0),
            unit("Convolution (NHWC, F32) GEMM #1", 1.0),
        ];
        let a = answer(&group_by_type(units, Some(4.0)), 3, "x").unwrap();
        assert_eq!(
            a.to_string(),
            "Fully Connected (NC, F32) GEMM 75% · Convolution (NHWC, F32) GEMM 25%"
        );
        assert!(answer(&group_by_type(vec![unit("a", 1.0)], None), 3, "x").is_none());
    }

    /// FLOPs and bytes summed over the instances that have them; the rate is over their
    /// time only: (2000 + 6000) FLOPs in (1 + 3) µs = 2 GFLOP/s.
    #[test]
    fn per_type_sums() {
        let cost = |f: u64| Cost {
            flops: Some(f),
            bytes: Some(f / 2),
        };
        let units = vec![
            Unit {
                name: "Convolution (NHWC, F32) IGEMM #1",
                ms: 0.001,
                cost: cost(2000),
            },
            Unit {
                name: "Convolution (NHWC, F32) IGEMM #2",
                ms: 0.003,
                cost: cost(6000),
            },
            unit("Convolution (NHWC, F32) IGEMM #3", 0.004),
        ];
        let g = &group_by_type(units, Some(0.016))[0];
        assert_eq!(
            (g.count, g.with_flops, g.flops, g.bytes),
            (3, 2, Some(8000), Some(4000))
        );
        assert!((g.ms - 0.008).abs() < 1e-12);
        assert!((g.share.unwrap() - 0.5).abs() < 1e-12);
        let r = g.rates();
        assert!((r.gflops.unwrap() - 2.0).abs() < 1e-9);
        assert!((r.gbps.unwrap() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn percents() {
        assert_eq!(whole_percent(0.584), "58%");
        assert_eq!(whole_percent(0.004), "<1%");
        assert_eq!(whole_percent(0.0), "0%");
    }
}
