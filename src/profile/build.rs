//! Assemble the profile from collected rows: delegates -> plan steps -> operators, other
//! operators, statistics over kept runs, and the checks.

use std::collections::{HashMap, HashSet};

use super::classify::parse_step_name;
use super::collect::{
    collect, ns_to_ms, Collected, Durations, EventRow, InstructionData, Label, RowKind, Series,
};
use super::fast_hash::FastMap;
use super::methods::group_runs;
use super::model::*;
use super::plan_match::match_plans;
use super::shapes::{decode_metadata, Metadata};
use super::warmup::{auto_warmup, Warmup};
use super::Stats;
use crate::etdump::{EtDump, ProfileEvent};
use crate::runlog::{CpuPlan, RunLog};

/// Why no profile can be built from a readable dump.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    #[error("no Execute runs in the dump (the method was loaded but never executed)")]
    NoExecuteRuns,
    #[error("--warmup {warmup} drops every run: the dump has {runs} Execute run(s)")]
    WarmupTooLarge { warmup: usize, runs: usize },
}

/// Build the profile of `dump`, with the plans of `log` if given, dropping `warmup`
/// leading runs of every method.
pub fn build_profile(
    dump: &EtDump,
    log: Option<&RunLog>,
    warmup: usize,
    source: ProfileSource,
) -> Result<Profile, BuildError> {
    build_profile_with(dump, log, Warmup::Runs(warmup), source)
}

/// [`build_profile`] with a warm-up that may be `auto` or `log` (see [`super::warmup`]).
pub fn build_profile_with(
    dump: &EtDump,
    log: Option<&RunLog>,
    requested: Warmup,
    source: ProfileSource,
) -> Result<Profile, BuildError> {
    let plan_step_names = plan_step_names(log);
    let (groups, speculative) = group_and_collect(dump, &plan_step_names);
    let mut resolution = ResolutionStep::default();
    for block in &dump.blocks {
        resolution.events(&dump.names, dump.block_events(block));
    }
    let prepared = Prepared {
        execute_runs: dump.blocks.iter().filter(|b| b.name == "Execute").count(),
        groups,
        speculative,
        loads: load_times(dump),
        resolution_step: resolution.step(),
    };
    assemble_profile(dump, log, requested, source, &plan_step_names, prepared)
}

/// Step names from the plans of `log`, so steps are recognised even when a plan names
/// them in a form the parser does not know.
pub(crate) fn plan_step_names(log: Option<&RunLog>) -> HashSet<String> {
    log.into_iter()
        .flat_map(|l| &l.sequences)
        .filter_map(|s| s.outcome.as_ref().ok())
        .flat_map(|p| p.regions.iter().map(|r| r.step_name()))
        .collect()
}

/// What a profile is built from besides the dump's names and metadata: found in a
/// decoded dump ([`build_profile_with`]) or while one is decoded
/// ([`super::stream`]).
pub(crate) struct Prepared {
    /// Number of `Execute` blocks.
    pub execute_runs: usize,
    pub groups: Vec<super::methods::RunGroup>,
    /// The collected rows of one group's blocks, if collected already.
    pub speculative: Option<(Vec<usize>, Collected)>,
    /// Load times of each `Default` block.
    pub loads: Vec<Option<LoadTimes>>,
    /// [`ResolutionStep::step`] over every block.
    pub resolution_step: u64,
}

/// The profile of `dump` (its names, metadata and skipped counts; its blocks and events
/// are used only for groups not collected in `prepared`).
pub(crate) fn assemble_profile(
    dump: &EtDump,
    log: Option<&RunLog>,
    requested: Warmup,
    source: ProfileSource,
    plan_step_names: &HashSet<String>,
    prepared: Prepared,
) -> Result<Profile, BuildError> {
    let Prepared {
        execute_runs,
        groups,
        mut speculative,
        loads,
        resolution_step,
    } = prepared;
    let (warmup, rule, rule_reason) = super::warmup::resolve(requested, log, execute_runs);
    let sequences: Vec<Option<&CpuPlan>> = log
        .map(|l| {
            l.sequences
                .iter()
                .map(|s| s.outcome.as_ref().ok())
                .collect()
        })
        .unwrap_or_default();
    if groups.is_empty() {
        return Err(BuildError::NoExecuteRuns);
    }
    let names = method_names(log, groups.len());
    let mut methods: Vec<MethodProfile> = Vec::with_capacity(groups.len());
    let mut plans_used = vec![false; sequences.len()];
    let mut log_warnings_done = false;
    let mut global_warnings: Vec<Finding> = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        let collected = match speculative.take() {
            Some((blocks, c)) if blocks == group.blocks => c,
            _ => collect(dump, plan_step_names, &group.blocks),
        };
        let (cold, why) = auto_warmup(&collected.method.ms());
        let mut warnings = Vec::new();
        let drop = match warmup {
            Warmup::Auto => {
                warnings.push(Finding::new(
                    "warmup_auto",
                    format!("--warmup auto dropped {cold} leading run(s): {why}"),
                ));
                cold
            }
            Warmup::Runs(n) if n >= collected.runs && g == 0 => {
                return Err(BuildError::WarmupTooLarge {
                    warmup: n,
                    runs: collected.runs,
                });
            }
            Warmup::Runs(n) if n >= collected.runs => {
                let keep = collected.runs.saturating_sub(1);
                warnings.push(Finding::new(
                    "warmup_too_large",
                    format!(
                        "--warmup {n} would drop every run of {} ({} run(s)); {keep} dropped",
                        names[g], collected.runs
                    ),
                ));
                keep
            }
            Warmup::Runs(n) => n,
            // Resolved above.
            Warmup::Stated => 0,
        };
        let mut b = Builder {
            dump,
            warmup: drop,
            kept: collected.runs - drop,
            expected_in_delegate: None,
            warnings,
            errors: Vec::new(),
            scratch: Default::default(),
            keys: Default::default(),
            precomputed: Default::default(),
        };
        b.precompute_stats(&collected);
        let with_log = if log_warnings_done { None } else { log };
        log_warnings_done = true;
        let mut m = b.assemble(&collected, with_log, &sequences, &source, &mut plans_used);
        m.index = g;
        m.name = names[g].clone();
        m.bundled_input_index = group.bundled_input_index;
        m.load = if loads.len() == groups.len() {
            loads[g]
        } else if g == 0 {
            loads.first().copied().flatten()
        } else {
            None
        };
        m.cold_runs = Some(ColdRuns {
            count: cold,
            dropped: warmup == Warmup::Auto,
            reason: why,
        });
        methods.push(m);
    }
    for (k, used) in plans_used.iter().enumerate() {
        if sequences[k].is_some() && !used {
            global_warnings.push(Finding::new(
                "plan_unmatched",
                format!("plan {k} of the log explains no delegate call in the dump (different model or run?)"),
            ));
        }
    }
    if methods.len() > 1 {
        let list: Vec<String> = methods
            .iter()
            .map(|m| format!("{} ({} runs)", m.name, m.runs.total))
            .collect();
        global_warnings.push(Finding::new(
            "several_methods",
            format!(
                "the dump holds {} kinds of run (methods or bundled inputs), profiled apart: {}; the top-level figures describe {}",
                methods.len(),
                list.join(", "),
                methods[0].name
            ),
        ));
    }
    // More method loads than run signatures: methods whose runs look alike were merged
    // into one profile (the Inspector's grouping); say so, and keep every load.
    let loaded: Vec<LoadTimes> = loads.iter().flatten().copied().collect();
    if loaded.len() > methods.len() {
        let each: Vec<String> = loaded
            .iter()
            .map(|l| {
                l.method_init
                    .map_or("-".to_string(), crate::units::duration_ms)
            })
            .collect();
        global_warnings.push(Finding::new(
            "merged_methods",
            format!(
                "the dump loaded {} methods but their runs have {} signature(s): methods with identical signatures are profiled together as one (as the Inspector groups them); every load is kept in `loads` (Method::init {})",
                loaded.len(),
                methods.len(),
                each.join(", ")
            ),
        ));
    }
    let resolution = resolution(resolution_step, &methods);
    if resolution.operators_below_resolution > 0 {
        global_warnings.push(Finding::new(
            "below_clock_resolution",
            format!(
                "XNNPACK operator durations are whole microseconds: {} operator(s) have a median under 1 µs (shown as <1 µs; their shares are upper bounds)",
                resolution.operators_below_resolution
            ),
        ));
    }
    let first = &methods[0];
    let warmup_rule = super::warmup::WarmupRule {
        rule: rule.to_string(),
        requested: requested.to_string(),
        dropped: first.runs.warmup_dropped,
        reason: rule_reason,
        text: super::warmup::header_text(rule, first.runs.warmup_dropped, first.runs.total),
    };
    let mut warnings = global_warnings;
    warnings.extend(first.warnings.iter().cloned());
    Ok(Profile {
        schema: PROFILE_SCHEMA.to_string(),
        unit: "ms".to_string(),
        source,
        runs: first.runs,
        method: first.method.clone(),
        delegates: first.delegates.clone(),
        other_operators: first.other_operators.clone(),
        remainder: first.remainder.clone(),
        load: loads.first().copied().flatten(),
        warnings,
        errors: first.errors.clone(),
        log_lines: log.map(|l| l.lines.clone()).unwrap_or_default(),
        cold_runs: first.cold_runs.clone(),
        resolution: Some(resolution),
        methods,
        modules: Vec::new(),
        model_files: None,
        loads: loaded,
        warmup_rule: Some(warmup_rule),
    })
}

/// Method names from the runner log (`Using method NAME` lines, distinct, in order) when
/// they name as many methods as the dump has groups; else `method 1`, `method 2`, ...
pub(crate) fn method_names(log: Option<&RunLog>, groups: usize) -> Vec<String> {
    let mut logged: Vec<String> = Vec::new();
    for line in log.map(|l| l.lines.as_slice()).unwrap_or_default() {
        let text = line
            .et_log
            .as_ref()
            .map_or(line.text.as_str(), |e| e.message.as_str());
        if let Some(rest) = text.trim().strip_prefix("Using method ") {
            let name = rest.trim().to_string();
            if !name.is_empty() && !logged.contains(&name) {
                logged.push(name);
            }
        }
    }
    if logged.len() == groups {
        logged
    } else {
        (1..=groups).map(|k| format!("method {k}")).collect()
    }
}

/// The largest of 1 ns, 10 ns, 100 ns, 1 µs that every duration of events other than
/// XNNPACK operators is a multiple of, fed events in any order.
pub(crate) struct ResolutionStep {
    step: u64,
    /// Whether a delegate id names an XNNPACK operator, decided once per distinct name.
    is_operator: Vec<Option<bool>>,
}

impl Default for ResolutionStep {
    fn default() -> Self {
        ResolutionStep {
            step: 1_000,
            is_operator: Vec::new(),
        }
    }
}

impl ResolutionStep {
    pub fn events(&mut self, names: &crate::etdump::NameTable, events: &[ProfileEvent]) {
        if self.is_operator.len() < names.len() {
            self.is_operator.resize(names.len(), None);
        }
        let step = &mut self.step;
        for ev in events {
            if *step == 1 {
                break;
            }
            let xnnpack = match ev.delegate_id {
                Some(crate::etdump::DelegateId::Str(id)) => *self
                    .is_operator
                    .get_mut(id.0 as usize)
                    .map(|c| {
                        c.get_or_insert_with(|| {
                            super::classify::parse_operator_name(names.get(id)).is_some()
                        })
                    })
                    .unwrap_or(&mut false),
                _ => false,
            };
            if xnnpack {
                continue;
            }
            let d = ev.end_ticks.wrapping_sub(ev.start_ticks);
            while *step > 1 && d % *step != 0 {
                *step /= 10;
            }
        }
    }

    pub fn step(&self) -> u64 {
        self.step
    }
}

/// The resolution assumed: XNNPACK operators 1 µs; other events the dump's own (`step`
/// ns, see [`ResolutionStep`]).
fn resolution(step: u64, methods: &[MethodProfile]) -> Resolution {
    let below = methods
        .iter()
        .flat_map(|m| &m.delegates)
        .map(|d| {
            d.operators.iter().filter(|o| o.below_resolution()).count()
                + d.steps
                    .iter()
                    .flat_map(|s| &s.operators)
                    .filter(|o| o.below_resolution())
                    .count()
        })
        .sum();
    Resolution {
        xnnpack_operator_ms: XNNPACK_QUANTUM_MS,
        other_ms: step as f64 / 1e6,
        operators_below_resolution: below,
    }
}

struct Builder<'a> {
    dump: &'a EtDump,
    warmup: usize,
    kept: usize,
    /// Samples expected per event inside the delegate being built: its calls in kept runs
    /// (more than `kept` when the delegate is called more than once per run).
    expected_in_delegate: Option<usize>,
    warnings: Vec<Finding>,
    errors: Vec<Finding>,
    /// Reused by every `Stats` of the method (order statistics are selected in them).
    scratch: std::cell::RefCell<Vec<f64>>,
    keys: std::cell::RefCell<Vec<u32>>,
    /// Stats of big series computed ahead on two threads, by series address.
    precomputed: std::cell::RefCell<FastMap<usize, Stats>>,
}

impl Builder<'_> {
    fn assemble(
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

    fn label(&self, row: &EventRow) -> String {
        match row.label {
            Label::Name(n) | Label::DelegateStr(n) => self.dump.names.get(n).to_string(),
            Label::DelegateInt(i) => i.to_string(),
        }
    }

    /// Stats over kept runs; warm-up samples kept aside for the per-run view.
    fn stats(&self, s: &Series) -> Stats {
        let ahead = self
            .precomputed
            .borrow_mut()
            .remove(&(s as *const Series as usize));
        ahead
            .unwrap_or_else(|| series_stats(self.warmup, self.kept, s, &mut self.keys.borrow_mut()))
    }

    /// Computes the stats of the biggest series of `c` on two threads, for `stats` to
    /// take (the same figures as computing them there: only where they are made moves).
    fn precompute_stats(&self, c: &Collected) {
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

    fn check_count(&mut self, event: &str, instruction_id: Option<i32>, got: usize) {
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

    fn delegate(&mut self, instr: &InstructionData, plan: Option<(usize, &CpuPlan)>) -> Delegate {
        let id = instr.instruction_id;
        let call = self.stats(&instr.delegate_call);
        let repeated = self.kept > 0 && call.count > self.kept && call.count % self.kept == 0;
        if !repeated {
            self.check_count("DELEGATE_CALL", Some(id), call.count);
        }
        self.expected_in_delegate = (call.count > self.kept).then_some(call.count);
        let delegate = self.delegate_body(instr, plan, call);
        self.expected_in_delegate = None;
        delegate
    }

    fn delegate_body(
        &mut self,
        instr: &InstructionData,
        plan: Option<(usize, &CpuPlan)>,
        call: Stats,
    ) -> Delegate {
        let id = instr.instruction_id;
        let has_steps = instr.rows.iter().any(|r| r.kind == RowKind::Step);
        let kind = if has_steps || plan.is_some() {
            DelegateKind::CpuPlan
        } else if instr
            .rows
            .iter()
            .any(|r| r.kind == RowKind::XnnpackOperator)
        {
            DelegateKind::Xnnpack
        } else {
            DelegateKind::Other
        };
        let mut delegate = Delegate {
            instruction_id: id,
            kind,
            call,
            plan: plan.map(|(_, p)| p.clone()),
            plan_sequence: plan.map(|(k, _)| k),
            steps: Vec::new(),
            operators: Vec::new(),
            unattributed: Vec::new(),
            source: None,
        };
        if kind != DelegateKind::CpuPlan {
            let parent = delegate.call.median;
            delegate.operators = instr
                .rows
                .iter()
                .map(|r| self.operator(r, id, parent))
                .collect();
            return delegate;
        }

        // Step rows in the order the plan lists them (or in order of appearance).
        let step_rows: Vec<usize> = (0..instr.rows.len())
            .filter(|&i| instr.rows[i].kind == RowKind::Step)
            .collect();
        let mut used = vec![false; instr.rows.len()];
        let mut steps: Vec<(PlanStep, Option<usize>)> = Vec::new();
        match plan {
            Some((_, p)) => {
                // Step rows by (name, occurrence), and how often each name came so far in
                // the plan: both maps keep large plans linear.
                let by_name: HashMap<(String, u32), usize> = step_rows
                    .iter()
                    .map(|&i| ((self.label(&instr.rows[i]), instr.rows[i].occurrence), i))
                    .collect();
                let mut seen: HashMap<String, u32> = HashMap::new();
                for region in &p.regions {
                    let name = region.step_name();
                    let occurrence = seen.entry(name.clone()).or_insert(0);
                    let row = by_name.get(&(name.clone(), *occurrence)).copied();
                    *occurrence += 1;
                    if let Some(i) = row {
                        used[i] = true;
                    }
                    let stats = row
                        .map(|i| self.stats(&instr.rows[i].series))
                        .unwrap_or_default();
                    steps.push((
                        PlanStep {
                            name,
                            provider: region.provider.clone(),
                            implementation: region.implementation.clone(),
                            nodes: region.nodes.clone(),
                            node_count: region.nodes.len(),
                            stats,
                            share: 0.0,
                            operators: Vec::new(),
                        },
                        row,
                    ));
                }
            }
            None => {
                for &i in &step_rows {
                    used[i] = true;
                    let name = self.label(&instr.rows[i]);
                    let parsed = parse_step_name(&name);
                    steps.push((
                        PlanStep {
                            provider: parsed
                                .as_ref()
                                .map(|s| s.provider.clone())
                                .unwrap_or_default(),
                            implementation: parsed
                                .as_ref()
                                .map(|s| s.implementation.clone())
                                .unwrap_or_default(),
                            nodes: parsed
                                .as_ref()
                                .map(|s| vec![s.first_node.clone()])
                                .unwrap_or_default(),
                            node_count: parsed.as_ref().map_or(0, |s| s.node_count),
                            stats: self.stats(&instr.rows[i].series),
                            share: 0.0,
                            operators: Vec::new(),
                            name,
                        },
                        Some(i),
                    ));
                }
            }
        }
        let step_of_row: HashMap<usize, usize> = steps
            .iter()
            .enumerate()
            .filter_map(|(j, (_, row))| row.map(|r| (r, j)))
            .collect();
        // Events inside a step go under it; the rest are unattributed, never dropped.
        for (i, row) in instr.rows.iter().enumerate() {
            if row.kind == RowKind::Step {
                if !used[i] {
                    let name = self.label(row);
                    let stats = self.stats(&row.series);
                    self.check_count(&name, Some(id), stats.count);
                    delegate.unattributed.push(EventStats {
                        name,
                        stats,
                        source: None,
                    });
                }
                continue;
            }
            let step = row.voted_step().and_then(|s| step_of_row.get(&s).copied());
            match step {
                Some(s) => {
                    let parent = steps[s].0.stats.median;
                    let op = self.operator(row, id, parent);
                    steps[s].0.operators.push(op);
                }
                None => {
                    let op = self.operator(row, id, 0.0);
                    delegate.unattributed.push(EventStats {
                        name: op.name,
                        stats: op.stats,
                        source: None,
                    });
                }
            }
        }
        for (step, _) in &mut steps {
            step.share = share(step.stats.median, delegate.call.median);
        }
        delegate.steps = steps.into_iter().map(|(s, _)| s).collect();
        self.check_plan(&delegate);
        delegate
    }

    fn check_plan(&mut self, delegate: &Delegate) {
        let id = delegate.instruction_id;
        for step in &delegate.steps {
            if step.stats.count == 0 {
                let mut f = Finding::new(
                    "step_missing",
                    format!("plan step {:?} has no event in any kept run", step.name),
                );
                f.event = Some(step.name.clone());
                f.instruction_id = Some(id);
                self.errors.push(f);
                continue;
            }
            self.check_count(&step.name, Some(id), step.stats.count);
            let has_xnnpack_ops = step
                .operators
                .iter()
                .any(|o| o.kind == OperatorKind::Xnnpack);
            if step.provider == "XNNPACK" && !has_xnnpack_ops {
                let mut f = Finding::new(
                    "xnnpack_operator_events_missing",
                    format!(
                        "XNNPACK step {:?} (delegate at instruction {id}) has no XNNPACK operator events",
                        step.name
                    ),
                );
                f.event = Some(step.name.clone());
                f.instruction_id = Some(id);
                self.errors.push(f);
            }
        }
    }

    fn operator(
        &mut self,
        row: &EventRow,
        instruction_id: i32,
        parent_median: f64,
    ) -> OperatorStats {
        let name = self.label(row);
        let stats = self.stats(&row.series);
        self.check_count(&name, Some(instruction_id), stats.count);
        let kind = match row.kind {
            RowKind::XnnpackOperator => OperatorKind::Xnnpack,
            RowKind::Kernel => OperatorKind::Kernel,
            _ => OperatorKind::Delegate,
        };
        let metadata = row
            .metadata
            .map(|span| &self.dump.metadata[span.start as usize..span.end as usize]);
        let (input_shapes, output_shapes) = match decode_metadata(metadata) {
            Metadata::Shapes(s) => (Some(s.inputs), Some(s.outputs)),
            Metadata::Empty => (None, None),
            Metadata::Malformed(why) => {
                let mut f = Finding::new(
                    "malformed_operator_metadata",
                    format!("metadata of {name:?} is not the shape JSON ({why}); reported without shapes"),
                );
                f.event = Some(name.clone());
                f.instruction_id = Some(instruction_id);
                self.warnings.push(f);
                (None, None)
            }
        };
        let cost = super::efficiency::operator_cost(
            &name,
            input_shapes.as_deref(),
            output_shapes.as_deref(),
        );
        OperatorStats {
            share: share(stats.median, parent_median),
            name,
            kind,
            stats,
            input_shapes,
            output_shapes,
            flops: cost.flops,
            bytes: cost.bytes,
            source: None,
        }
    }

    fn other_operators(&mut self, instr: &InstructionData) -> Vec<OtherOperator> {
        let id = instr.instruction_id;
        let kernels: Vec<EventStats> = instr
            .rows
            .iter()
            .map(|r| {
                let name = self.label(r);
                let stats = self.stats(&r.series);
                self.check_count(&name, Some(id), stats.count);
                EventStats {
                    name,
                    stats,
                    source: None,
                }
            })
            .collect();
        if instr.instruction_calls.is_empty() {
            // Kernel events without an enclosing instruction scope: report them as they are.
            return kernels
                .into_iter()
                .map(|k| OtherOperator {
                    instruction_id: id,
                    name: k.name.clone(),
                    stats: k.stats.clone(),
                    kernels: vec![k],
                    source: None,
                })
                .collect();
        }
        let mut out = Vec::new();
        for (name, series) in &instr.instruction_calls {
            let call_name = self.dump.names.get(*name);
            let stats = self.stats(series);
            self.check_count(call_name, Some(id), stats.count);
            // The kernel name says what the instruction did; OPERATOR_CALL does not.
            let display = match kernels.as_slice() {
                [only] if call_name == "OPERATOR_CALL" => only.name.clone(),
                _ => call_name.to_string(),
            };
            out.push(OtherOperator {
                instruction_id: id,
                name: display,
                stats,
                kernels: if out.is_empty() {
                    kernels.clone()
                } else {
                    Vec::new()
                },
                source: None,
            });
        }
        out
    }

    /// Method time not covered by delegate calls and instruction scopes, per kept run.
    fn remainder(&self, c: &Collected) -> Stats {
        let mut covered = vec![0.0f64; c.runs];
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
                s.durations().for_each_ms(|i, ms| covered[s.run(i)] += ms);
            }
        }
        let m = &c.method;
        let split = m.partition_runs(self.warmup);
        let mut rest = Vec::with_capacity(m.len());
        m.durations()
            .for_each_ms(|i, ms| rest.push(ms - covered[m.run(i)]));
        let kept = rest[split..].to_vec();
        rest.truncate(split);
        let stats = Stats::from_samples_with(kept, &mut self.scratch.borrow_mut());
        with_runs(self.kept, m, stats, rest)
    }
}

fn share(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        part / whole
    } else {
        0.0
    }
}

/// Load-time events of each `Default` block (one per method load), in order.
pub(crate) fn load_times(dump: &EtDump) -> Vec<Option<LoadTimes>> {
    dump.blocks
        .iter()
        .filter(|b| b.name == "Default")
        .map(|block| {
            let mut t = LoadTimes::default();
            for ev in dump.block_events(block) {
                let ms = super::collect::duration_ms(ev.start_ticks, ev.end_ticks);
                match dump.name(ev) {
                    Some("Method::init") => t.method_init = ms,
                    Some("Program::load_method") => t.program_load_method = ms,
                    _ => {}
                }
            }
            (t.method_init.is_some() || t.program_load_method.is_some()).then_some(t)
        })
        .collect()
}

/// The groups of `Execute` runs, and, when they are likely one group of every run (the
/// first and last runs have the same events), the collected rows of all runs, made on a
/// second thread while the runs are grouped. The caller uses them when the one group is
/// indeed every run (the usual dump), and collects per group otherwise.
#[allow(clippy::type_complexity)]
fn group_and_collect(
    dump: &EtDump,
    plan_step_names: &HashSet<String>,
) -> (
    Vec<super::methods::RunGroup>,
    Option<(Vec<usize>, Collected)>,
) {
    let execute: Vec<usize> = (0..dump.blocks.len())
        .filter(|&b| dump.blocks[b].name == "Execute")
        .collect();
    let alike = |a: usize, b: usize| {
        let (x, y) = (&dump.blocks[a], &dump.blocks[b]);
        let (ex, ey) = (dump.block_events(x), dump.block_events(y));
        x.bundled_input_index == y.bundled_input_index
            && ex.len() == ey.len()
            && ex.iter().zip(ey).all(|(p, q)| {
                p.name == q.name
                    && p.delegate_id == q.delegate_id
                    && p.instruction_id == q.instruction_id
            })
    };
    let one_group_likely = match (execute.first(), execute.last()) {
        (Some(&first), Some(&last)) => execute.len() >= 2 && alike(first, last),
        _ => false,
    };
    let events: usize = execute.iter().map(|&b| dump.blocks[b].events.len()).sum();
    const WORTH_A_THREAD: usize = 100_000;
    if !one_group_likely || events < WORTH_A_THREAD || cores() < 2 {
        return (group_runs(dump), None);
    }
    std::thread::scope(|scope| {
        let grouping = scope.spawn(|| group_runs(dump));
        let collected = collect(dump, plan_step_names, &execute);
        match grouping.join() {
            Ok(groups) => (groups, Some((execute, collected))),
            // A panic there is a bug; group again here (and panic alike, visibly).
            Err(_) => (group_runs(dump), None),
        }
    })
}

/// Stats of `s` over kept runs (`warmup` runs dropped, `kept_runs` left); warm-up
/// samples kept aside for the per-run view.
fn series_stats(warmup: usize, kept_runs: usize, s: &Series, keys: &mut Vec<u32>) -> Stats {
    // Runs are pushed in increasing order, so the warm-up runs are a prefix.
    let split = s.partition_runs(warmup);
    let n = s.len();
    let d = s.durations();
    let kept = d.ms(split..n);
    // Order statistics are selected among the whole ns (see `from_samples_keyed`).
    let stats = match d {
        Durations::Narrow(ns) => {
            keys.clear();
            keys.extend_from_slice(&ns[split..n]);
            Stats::from_samples_keyed(kept, keys, |k| ns_to_ms(u64::from(k)))
        }
        Durations::Wide(ns) => {
            Stats::from_samples_keyed(kept, &mut ns[split..n].to_vec(), ns_to_ms)
        }
    };
    with_runs(kept_runs, s, stats, d.ms(0..split))
}

/// `stats` (of the samples of `s` from kept runs) with their runs, and the `warmup`
/// samples aside.
fn with_runs(kept_runs: usize, s: &Series, stats: Stats, warmup: Vec<f64>) -> Stats {
    let split = warmup.len();
    // Run indexes are only informative when some kept run has no sample.
    let runs = if stats.count == kept_runs {
        Vec::new()
    } else {
        s.runs(split..s.len())
    };
    stats.with_runs(runs).with_warmup(warmup)
}

/// Cores this process may use (1 when unknown).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
