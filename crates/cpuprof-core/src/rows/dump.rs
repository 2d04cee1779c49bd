//! The rows of an ETDump profile: `Method::execute` (one per method of several), its
//! delegates (plan steps, operators, kernels, the delegate's `(overhead)`, unattributed
//! events), its non-delegated instructions (their kernels) and its `(remainder)`.

use super::overhead::overhead;
use super::{operator_type, row, Facts, Row, RowKind, RowTree, TreeSource};
use crate::profile::{
    Delegate, DelegateKind, OperatorKind, OperatorStats, OtherOperator, Profile, RowSource,
};
use crate::stats::Stats;

/// One method of the profile, as its rows are built.
struct MethodPart<'a> {
    name: String,
    method: Option<&'a Stats>,
    delegates: &'a [Delegate],
    other_operators: &'a [OtherOperator],
    remainder: Option<&'a Stats>,
    bundled_input_index: Option<i32>,
    kept: usize,
    warmup: usize,
    /// Which self-time rows to add.
    self_time: SelfTime,
}

/// The self-time rows a tree is built with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SelfTime {
    /// Each delegate's `(overhead)` and the method's `(remainder)`.
    All,
    /// The `(remainder)` only (the profile measured it; an `(overhead)` costs a pass
    /// over the runs and a sample per run).
    Remainder,
    /// None: the measured rows.
    None,
}

impl RowTree {
    /// Rows of an ETDump profile: `Method::execute`, its delegates (steps, operators,
    /// kernels, the overhead, unattributed events), non-delegated instructions (their
    /// kernels) and the method's remainder. A profile of several methods (run
    /// signatures) has one method row per group, named by the method (`encode`,
    /// `method 2`, with its bundled input when it has one), so every path starts with the
    /// method; one method keeps the single `Method::execute` root. Rows come from
    /// `profile.methods` (the top-level fields are a copy of the first's). A method row's
    /// `group` is its signature (its children's identities), which compare pairs methods by when
    /// their names differ.
    pub fn from_profile(profile: &Profile) -> RowTree {
        RowTree::from_profile_with(profile, SelfTime::All)
    }

    /// [`RowTree::from_profile`] without its self-time rows, which are never computed:
    /// equal to `from_profile(profile).measured()`, for a reader of the measured rows
    /// only (fleet, the Python frame): a delegate's `(overhead)` matches every run of its
    /// call and children.
    pub fn from_profile_measured(profile: &Profile) -> RowTree {
        RowTree::from_profile_with(profile, SelfTime::None)
    }

    /// [`RowTree::from_profile`] without the delegates' `(overhead)` rows (`profile.json`,
    /// which has the `(remainder)` but no such row).
    pub fn from_profile_without_overhead(profile: &Profile) -> RowTree {
        RowTree::from_profile_with(profile, SelfTime::Remainder)
    }

    fn from_profile_with(profile: &Profile, self_time: SelfTime) -> RowTree {
        let mut t = RowTree::new(
            TreeSource::Dump,
            profile.source.etdump.clone(),
            profile.runs.kept,
        );
        let several = profile.methods.len() > 1;
        for m in &profile.methods {
            let mut name = "Method::execute".to_string();
            if several {
                name.clone_from(&m.name);
                if let Some(b) = m.bundled_input_index {
                    name.push_str(&format!(" (bundled input {b})"));
                }
            }
            t.push_method(MethodPart {
                name,
                method: m.method.as_ref(),
                delegates: &m.delegates,
                other_operators: &m.other_operators,
                remainder: m.remainder.as_ref(),
                bundled_input_index: m.bundled_input_index,
                kept: m.runs.kept,
                warmup: m.runs.warmup_dropped,
                self_time,
            });
        }
        if profile.methods.is_empty() {
            // A profile without its per-method list (as older profile.json files are
            // read back): the top-level fields.
            t.push_method(MethodPart {
                name: "Method::execute".into(),
                method: profile.method.as_ref(),
                delegates: &profile.delegates,
                other_operators: &profile.other_operators,
                remainder: profile.remainder.as_ref(),
                bundled_input_index: None,
                kept: profile.runs.kept,
                warmup: profile.runs.warmup_dropped,
                self_time,
            });
        }
        t
    }

    fn push_method(&mut self, part: MethodPart<'_>) {
        let t = self;
        let method_median = part.method.map(|s| s.median());
        let mut mrow = row(
            RowKind::Method,
            &part.name,
            None,
            part.method.cloned().unwrap_or_default(),
        );
        mrow.facts = Facts::Method {
            kept: part.kept,
            warmup: part.warmup,
            timed: part.method.is_some(),
        };
        let method = t.push(None, mrow);
        for d in part.delegates {
            t.push_delegate(method, d, method_median, &part);
        }
        for o in part.other_operators {
            let mut orow = with_source(
                row(
                    RowKind::Instruction,
                    &o.name,
                    Some(o.instruction_id),
                    o.stats.clone(),
                ),
                o.source.as_ref(),
            );
            orow.share = share_of(o.stats.median(), method_median);
            let oi = t.push(Some(method), orow);
            for k in &o.kernels {
                let mut krow = with_source(
                    row(
                        RowKind::Kernel,
                        &k.name,
                        Some(o.instruction_id),
                        k.stats.clone(),
                    ),
                    k.source.as_ref(),
                );
                // Its module and source line: its own, else its instruction's.
                if k.source.is_none() {
                    if let Some(s) = &o.source {
                        krow.module = s.module.clone();
                        krow.source_line = s.source_line.clone();
                    }
                }
                krow.facts = Facts::Operator {
                    kind: OperatorKind::Kernel,
                    below_resolution: false,
                };
                krow.share =
                    Some(share_of(k.stats.median(), Some(o.stats.median())).unwrap_or(0.0));
                t.push(Some(oi), krow);
            }
        }
        if let Some(rem) = part.remainder.filter(|_| part.self_time != SelfTime::None) {
            let mut r = row(RowKind::Overhead, "(remainder)", None, rem.clone());
            r.facts = Facts::Remainder;
            r.share = share_of(rem.median(), method_median);
            t.push(Some(method), r);
        }
        // The method's signature: what it calls (delegates by instruction id, other
        // instructions by name and id) and its bundled input.
        let mut sig: Vec<String> = part
            .delegates
            .iter()
            .map(|d| format!("delegate {}", d.instruction_id))
            .chain(
                part.other_operators
                    .iter()
                    .map(|o| format!("{} {}", o.name, o.instruction_id)),
            )
            .collect();
        if let Some(b) = part.bundled_input_index {
            sig.push(format!("bundled input {b}"));
        }
        t.rows[method].group = Some(sig.join("\u{1}"));
    }

    fn push_delegate(
        &mut self,
        method: usize,
        d: &Delegate,
        method_median: Option<f64>,
        part: &MethodPart<'_>,
    ) {
        let t = self;
        let id = Some(d.instruction_id);
        let mut drow = row(
            RowKind::Delegate,
            &crate::units::delegate_name(d.instruction_id),
            id,
            d.call.clone(),
        );
        drow.group = Some(
            match d.kind {
                DelegateKind::CpuPlan => "cpu_plan",
                DelegateKind::Xnnpack => "xnnpack",
                DelegateKind::Other => "other",
            }
            .to_string(),
        );
        drow.facts = Facts::Delegate {
            backend: d.kind,
            plan: d.plan.clone(),
            plan_sequence: d.plan_sequence,
        };
        drow.share = share_of(d.call.median(), method_median);
        let di = t.push(Some(method), with_source(drow, d.source.as_ref()));
        for s in &d.steps {
            let mut srow = row(RowKind::Step, &s.name, id, s.stats.clone());
            srow.facts = Facts::Step {
                provider: s.provider.clone(),
                implementation: s.implementation.clone(),
                node_count: s.node_count,
                nodes: s.nodes.clone(),
            };
            srow.share = Some(s.share);
            let si = t.push(Some(di), srow);
            for op in &s.operators {
                t.push(Some(si), op_row(op, d.instruction_id));
            }
        }
        for op in &d.operators {
            t.push(Some(di), op_row(op, d.instruction_id));
        }
        let with_overhead = part.self_time == SelfTime::All;
        let parts: Vec<&Stats> = if !with_overhead {
            Vec::new()
        } else if d.steps.is_empty() {
            d.operators.iter().map(|o| &o.stats).collect()
        } else {
            d.steps.iter().map(|s| &s.stats).collect()
        };
        let over = with_overhead
            .then(|| overhead(&d.call, &parts, part.warmup, part.kept))
            .flatten();
        if let Some(over) = over {
            let mut r = row(RowKind::Overhead, "(overhead)", id, over.stats);
            r.share = share_of(r.stats.median(), Some(over.call_per_run_median));
            r.facts = Facts::DelegateOverhead {
                steps: !d.steps.is_empty(),
            };
            t.push(Some(di), r);
        }
        for ev in &d.unattributed {
            let mut r = with_source(
                row(RowKind::Operator, &ev.name, id, ev.stats.clone()),
                ev.source.as_ref(),
            );
            r.facts = Facts::Unattributed;
            r.share = share_of(ev.stats.median(), Some(d.call.median()));
            t.push(Some(di), r);
        }
    }
}

fn op_row(op: &OperatorStats, instruction_id: i32) -> Row {
    let kind = match op.kind {
        OperatorKind::Kernel => RowKind::Kernel,
        OperatorKind::Xnnpack | OperatorKind::Delegate => RowKind::Operator,
    };
    let mut r = row(kind, &op.name, Some(instruction_id), op.stats.clone());
    if op.kind == OperatorKind::Xnnpack {
        r.group = Some(operator_type(&op.name).to_string());
    }
    r.facts = Facts::Operator {
        kind: op.kind,
        below_resolution: op.below_resolution(),
    };
    r.share = Some(op.share);
    r.input_shapes = op.input_shapes.clone();
    r.output_shapes = op.output_shapes.clone();
    r.flops = op.flops;
    r.bytes = op.bytes;
    with_source(r, op.source.as_ref())
}

/// `r` with `source`, its module and its source line.
fn with_source(mut r: Row, source: Option<&RowSource>) -> Row {
    if let Some(s) = source {
        r.module = s.module.clone();
        r.source_line = s.source_line.clone();
        r.source = Some(s.clone());
    }
    r
}

/// `part` as a share of `whole` (0..1), when the whole has a time.
pub fn share_of(part: f64, whole: Option<f64>) -> Option<f64> {
    match whole {
        Some(w) if w > 0.0 && part.is_finite() => Some(part / w),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Built without its self-time rows, a tree equals the whole tree without them, on
    /// every dump of fixtures/real and fixtures/cpu (one method and several, warm-ups).
    #[test]
    fn measured_build_equals_the_tree_measured() {
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        let mut checked = 0;
        let mut with_self_time = 0;
        for dir in ["fixtures/real", "fixtures/cpu", "fixtures/py"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_none_or(|e| e != "etdp") {
                    continue;
                }
                let request = crate::profile::ProfileRequest::new(path.clone(), None, 0);
                let cancel = std::sync::atomic::AtomicBool::new(false);
                let Ok(p) = crate::profile::load_profile(&request, &mut |_| {}, &cancel) else {
                    continue;
                };
                let whole = RowTree::from_profile(&p);
                with_self_time +=
                    usize::from(whole.rows.iter().any(|r| r.kind == RowKind::Overhead));
                assert!(
                    RowTree::from_profile_measured(&p) == whole.measured(),
                    "{}",
                    path.display()
                );
                checked += 1;
            }
        }
        assert!(
            checked >= 15 && with_self_time >= 5,
            "{checked} {with_self_time}"
        );
    }
}
