//! One method's profile from its collected rows (`Builder::assemble`: plans matched, checks,
//! remainder) and the helpers every record uses: labels, stats over kept runs, counts.

use std::collections::HashSet;

use super::super::collect::{
    wide_ns, Collected, Durations, EventRow, InstructionData, Label, RowKind, Series,
};
use super::super::model::*;
use super::super::plan_match::match_plans;
use super::super::Stats;
use super::{cores, Builder};
use crate::runlog::{CpuPlan, RunLog};

impl Builder<'_> {
    pub(super) fn assemble(
        &mut self,
        c: &Collected,
        log: Option<&RunLog>,
        sequences: &[Option<&CpuPlan>],
        source: &ProfileSource,
        plans_used: &mut [bool],
    ) -> MethodProfile {
        let delegate_instrs: Vec<&InstructionData> =
            c.instructions.iter().filter(|i| i.is_delegate()).collect();
        let observed_steps: Vec<HashSet<String>> = delegate_instrs
            .iter()
            .map(|i| {
                i.rows
                    .iter()
                    .filter(|r| r.kind == RowKind::Step)
                    .map(|r| self.label(r))
                    .collect()
            })
            .collect();
        // A delegate with XNNPACK operator events and no step event is a plain XNNPACK
        // delegate: no CpuBackend plan is ever forced onto it.
        let plain_xnnpack: Vec<bool> = delegate_instrs
            .iter()
            .zip(&observed_steps)
            .map(|(i, steps)| {
                steps.is_empty() && i.rows.iter().any(|r| r.kind == RowKind::XnnpackOperator)
            })
            .collect();
        let seq_names: Vec<Option<Vec<String>>> = sequences
            .iter()
            .map(|p| p.map(|p| p.regions.iter().map(|r| r.step_name()).collect()))
            .collect();
        let matched = match_plans(&seq_names, &observed_steps, &plain_xnnpack);
        for k in matched.plan_for.iter().flatten() {
            if let Some(u) = plans_used.get_mut(*k) {
                *u = true;
            }
        }

        if let Some(log) = log {
            for w in &log.warnings {
                let mut f = Finding::new(w.code, w.message.clone());
                if let Some(d) = matched
                    .broken_for
                    .iter()
                    .position(|b| *b == Some(w.sequence))
                {
                    f.instruction_id = Some(delegate_instrs[d].instruction_id);
                    f.message = format!(
                        "{}; delegate at instruction {} is analysed from the ETDump alone",
                        f.message, delegate_instrs[d].instruction_id
                    );
                }
                self.warnings.push(f);
            }
        }
        let cpu_without_plan = (0..delegate_instrs.len())
            .any(|d| !observed_steps[d].is_empty() && matched.plan_for[d].is_none());
        let log_has_plans = log.is_some_and(|l| !l.sequences.is_empty());
        if cpu_without_plan && !log_has_plans {
            let why = match (&source.log, log) {
                (None, _) | (_, None) => "no runner log",
                _ => "the log has no CPU_PLAN_CHUNK line",
            };
            self.warnings.push(Finding::new(
                "no_cpu_plan_in_log",
                format!("{why}: CPU delegate steps are named from the ETDump alone (no node lists or plan figures)"),
            ));
        }

        let mut delegates = Vec::new();
        for (d, instr) in delegate_instrs.iter().enumerate() {
            let plan = matched.plan_for[d].and_then(|k| sequences[k].map(|p| (k, p)));
            delegates.push(self.delegate(instr, plan));
        }
        let other_operators: Vec<OtherOperator> = c
            .instructions
            .iter()
            .filter(|i| !i.is_delegate())
            .flat_map(|i| self.other_operators(i))
            .collect();

        let method = (!c.method.is_empty()).then(|| self.stats(&c.method));
        if let Some(m) = &method {
            self.check_count("Method::execute", None, m.count);
        }
        let remainder = method.as_ref().map(|_| self.remainder(c));
        if c.negative_durations > 0 {
            self.warnings.push(Finding::new(
                "negative_duration",
                format!(
                    "{} event(s) end before they start and were left out, e.g. {}",
                    c.negative_durations,
                    c.negative_examples.join("; ")
                ),
            ));
        }
        if c.repeated_calls > 0 {
            self.warnings.push(Finding::new(
                "repeated_delegate_calls",
                format!(
                    "{} delegate call(s) repeat a delegate within a run; each call adds a sample to the same steps and operators",
                    c.repeated_calls
                ),
            ));
        }
        if c.nearest_step_events > 0 {
            self.warnings.push(Finding::new(
                "outside_step",
                format!(
                    "{} delegate event(s) lie outside every step (beyond one clock quantum) and are placed under the nearest step",
                    c.nearest_step_events
                ),
            ));
        }
        let skipped = &self.dump.skipped;
        if skipped.allocation + skipped.debug + skipped.empty + c.ignored_events > 0 {
            self.warnings.push(Finding::new(
                "skipped_events",
                format!(
                    "not profiled: {} allocation, {} debug, {} empty event(s), {} framework event(s) outside instructions",
                    skipped.allocation, skipped.debug, skipped.empty, c.ignored_events
                ),
            ));
        }

        MethodProfile {
            index: 0,
            name: String::new(),
            bundled_input_index: None,
            runs: RunCounts {
                total: c.runs,
                warmup_dropped: self.warmup,
                kept: self.kept,
            },
            method,
            delegates,
            other_operators,
            remainder,
            warnings: std::mem::take(&mut self.warnings),
            errors: std::mem::take(&mut self.errors),
            load: None,
            cold_runs: None,
            modules: Vec::new(),
        }
    }

    pub(super) fn label(&self, row: &EventRow) -> String {
        match row.label {
            Label::Name(n) | Label::DelegateStr(n) => self.dump.names.get(n).to_string(),
            Label::DelegateInt(i) => i.to_string(),
        }
    }

    /// Stats over kept runs; warm-up samples kept aside for the per-run view.
    pub(super) fn stats(&self, s: &Series) -> Stats {
        let ahead = self
            .precomputed
            .borrow_mut()
            .remove(&(s as *const Series as usize));
        ahead
            .unwrap_or_else(|| series_stats(self.warmup, self.kept, s, &mut self.keys.borrow_mut()))
    }

    /// Computes the stats of the biggest series of `c` on two threads, for `stats` to
    /// take (the same figures as computing them there: only where they are made moves).
    pub(super) fn precompute_stats(&self, c: &Collected) {
        const WORTH_A_THREAD: usize = 100_000;
        let mut series: Vec<&Series> = std::iter::once(&c.method)
            .chain(c.instructions.iter().flat_map(|i| {
                std::iter::once(&i.delegate_call)
                    .chain(i.instruction_calls.iter().map(|(_, s)| s))
                    .chain(i.rows.iter().map(|r| &r.series))
            }))
            .collect();
        let total: usize = series.iter().map(|s| s.len()).sum();
        if total < WORTH_A_THREAD || cores() < 2 {
            return;
        }
        // Biggest first, each to the lighter half.
        series.sort_by_key(|s| std::cmp::Reverse(s.len()));
        let mut halves: [Vec<&Series>; 2] = [Vec::new(), Vec::new()];
        let mut load = [0usize; 2];
        for s in series {
            let h = usize::from(load[1] < load[0]);
            load[h] += s.len();
            halves[h].push(s);
        }
        let [mine, theirs] = halves;
        let (warmup, kept_runs) = (self.warmup, self.kept);
        let compute = |list: Vec<&Series>| -> Vec<(usize, Stats)> {
            let mut keys = Vec::new();
            list.into_iter()
                .map(|s| {
                    let stats = series_stats(warmup, kept_runs, s, &mut keys);
                    (s as *const Series as usize, stats)
                })
                .collect()
        };
        let (a, b) = std::thread::scope(|scope| {
            let other = scope.spawn(|| compute(theirs));
            let a = compute(mine);
            (a, other.join())
        });
        let mut map = self.precomputed.borrow_mut();
        map.extend(a);
        // A panic there is a bug; those stats are then computed where needed.
        if let Ok(b) = b {
            map.extend(b);
        }
    }

    pub(super) fn check_count(&mut self, event: &str, instruction_id: Option<i32>, got: usize) {
        let expected = self.expected_in_delegate.unwrap_or(self.kept);
        if got != expected && got > 0 {
            let mut f = Finding::new(
                "unexpected_sample_count",
                format!(
                    "{event:?} has {got} samples in {} kept runs{}; it is still reported with the samples it has",
                    self.kept,
                    if expected != self.kept { format!(" ({expected} calls)") } else { String::new() }
                ),
            );
            f.event = Some(event.to_string());
            f.instruction_id = instruction_id;
            self.warnings.push(f);
        }
    }

    /// Method time not covered by delegate calls and instruction scopes, per kept run.
    /// Subtracted in whole ns, so each sample is an exact number of ns (`0.000652`, not the
    /// `0.0006519999999999998` a difference of ms gives), like every other sample.
    fn remainder(&self, c: &Collected) -> Stats {
        let mut covered = vec![0u64; c.runs];
        for instr in &c.instructions {
            // Kernel events with no enclosing instruction scope are other operators of
            // their own (see `other_operators`), so their time is covered too.
            let bare_kernels = !instr.is_delegate() && instr.instruction_calls.is_empty();
            let series = std::iter::once(&instr.delegate_call)
                .chain(instr.instruction_calls.iter().map(|(_, s)| s))
                .chain(
                    instr
                        .rows
                        .iter()
                        .filter(|_| bare_kernels)
                        .map(|r| &r.series),
                );
            for s in series {
                s.durations().for_each_ns(|i, ns| {
                    let run = &mut covered[s.run(i)];
                    *run = run.saturating_add(ns);
                });
            }
        }
        let m = &c.method;
        let split = m.partition_runs(self.warmup);
        let mut rest = Vec::with_capacity(m.len());
        m.durations().for_each_ns(|i, ns| {
            // Negative when the scopes overlap or outlast the method.
            let covered = covered[m.run(i)];
            rest.push(if ns >= covered {
                wide_ns(ns - covered)
            } else {
                -wide_ns(covered - ns)
            })
        });
        let kept = rest[split..].to_vec();
        rest.truncate(split);
        let stats = Stats::from_ns_with(kept, &mut self.scratch.borrow_mut());
        with_runs(self.kept, m, stats, rest)
    }
}

/// Stats of `s` over kept runs (`warmup` runs dropped, `kept_runs` left); warm-up
/// samples kept aside for the per-run view.
fn series_stats(warmup: usize, kept_runs: usize, s: &Series, keys: &mut Vec<u32>) -> Stats {
    // Runs are pushed in increasing order, so the warm-up runs are a prefix.
    let split = s.partition_runs(warmup);
    let n = s.len();
    let d = s.durations();
    let kept = d.ns(split..n);
    // Narrow samples: order statistics selected among the u32 (see `from_ns_keyed`).
    let stats = match d {
        Durations::Narrow(ns) => {
            keys.clear();
            keys.extend_from_slice(&ns[split..n]);
            Stats::from_ns_keyed(kept, keys, i64::from)
        }
        Durations::Wide(_) => Stats::from_ns(kept),
    };
    with_runs(kept_runs, s, stats, d.ns(0..split))
}

/// `stats` (of the samples of `s` from kept runs) with their runs, and the `warmup`
/// samples aside.
fn with_runs(kept_runs: usize, s: &Series, stats: Stats, warmup: Vec<i64>) -> Stats {
    let split = warmup.len();
    // Run indexes are only informative when some kept run has no sample.
    let runs = if stats.count == kept_runs {
        Vec::new()
    } else {
        s.runs(split..s.len())
    };
    stats.with_runs(runs).with_warmup(warmup)
}
