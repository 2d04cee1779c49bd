//! Assemble the profile from collected rows: delegates -> plan steps -> operators, other
//! operators, statistics over kept runs, and the checks.
//!
//! Here: the entry points, the assembly of the methods into one profile, the `Builder`
//! (its methods in `method` and `operators`); `resolution` and `load_times` apart.

mod load_times;
mod method;
mod operators;
mod resolution;

use std::collections::HashSet;

use super::collect::{collect, Collected};
use super::fast_hash::FastMap;
use super::methods::group_runs;
use super::model::*;
use super::warmup::{auto_warmup, Warmup};
use super::Stats;
use crate::etdump::EtDump;
use crate::runlog::{CpuPlan, RunLog};

pub(crate) use load_times::{load_times, MethodLoad};
use resolution::resolution;
pub(crate) use resolution::ResolutionStep;

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
        speculative: speculative.into_iter().collect(),
        loads: load_times(dump, None),
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
    /// The collected rows of groups' blocks, for those collected already.
    pub speculative: Vec<(Vec<usize>, Collected)>,
    /// Load times of each `Default` block, with its place in the dump.
    pub loads: Vec<MethodLoad>,
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
    let first_runs: Vec<usize> = groups
        .iter()
        .map(|g| g.blocks.first().copied().unwrap_or(usize::MAX))
        .collect();
    let group_loads = load_times::group_loads(&loads, &first_runs);
    let mut methods: Vec<MethodProfile> = Vec::with_capacity(groups.len());
    let mut plans_used = vec![false; sequences.len()];
    let mut log_warnings_done = false;
    let mut global_warnings: Vec<Finding> = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        let collected = match speculative.iter().position(|(b, _)| *b == group.blocks) {
            Some(i) => speculative.swap_remove(i).1,
            None => collect(dump, plan_step_names, &group.blocks),
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
        m.load = group_loads[g];
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
    let loaded: Vec<LoadTimes> = loads.iter().filter_map(|l| l.times).collect();
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
        load: loads.first().and_then(|l| l.times),
        warnings,
        errors: first.errors.clone(),
        log_lines: log.map(|l| l.lines.clone()).unwrap_or_default(),
        cold_runs: first.cold_runs.clone(),
        resolution: Some(resolution),
        dump: super::model::DumpMethods::of(&methods),
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
    for line in log
        .into_iter()
        .flat_map(|l| l.lines.containing("Using method "))
    {
        let text = line
            .et_log
            .as_ref()
            .map_or(line.text, |e| e.message.as_str());
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
    scratch: std::cell::RefCell<Vec<i64>>,
    keys: std::cell::RefCell<Vec<u32>>,
    /// Stats of big series computed ahead on two threads, by series address.
    precomputed: std::cell::RefCell<FastMap<usize, Stats>>,
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

/// Cores this process may use (1 when unknown).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
