//! Comparing two profiles of the same kind (two ETDumps, or two PyTorch traces): rows
//! paired by [`matching`], each matched row tested for a change of its distribution, with
//! a verdict that respects noise.
//!
//! Per matched row: count, median, p10, p90 on each side; the change in percent (the
//! Hodges–Lehmann ratio of B to A, the median of the pairwise ratios, minus 1) and a
//! (1 − alpha) interval from the same ordered ratios (so it holds the change and lies
//! above −100%), plus the plain change of the median; a two-sided
//! Mann–Whitney U p-value, Holm-adjusted across every tested row of the comparison (see
//! [`crate::stats`] for why Holm). Verdicts:
//! - `too_few_samples`: the counts cannot give a p-value that passes the correction at
//!   alpha at all (Tarone's rule, see `reachable_rows`; e.g. 3 runs against 3, whose
//!   best p is 2/C(6,3) = 0.1), or a side has no sample;
//! - `slower` / `faster`: adjusted p ≤ alpha and the median moved by at least
//!   `min_change_pct` percent;
//! - `same`: otherwise;
//! - `added` / `removed`: the row exists only in B / only in A.
//!
//! A row whose two sides hold identical samples is `same` whatever its counts.
//! [`single_change`] applies the same test to one pair of sample sets (the watch mode's
//! change of the method median against a baseline run).

pub mod matching;

use crate::rows::{RowKind, RowTree, TreeSource};
use crate::stats::{
    hodges_lehmann, holm_adjust, mann_whitney_u, min_attainable_p, ratio_estimate, Stats,
    EXACT_MAX_N,
};

pub use matching::{match_trees, Pair};

pub const COMPARE_SCHEMA: &str = "cpuprof.compare/1";
pub const DEFAULT_ALPHA: f64 = 0.05;
/// A significant change smaller than this (percent of A's median) is `same`. 5%: the
/// run-to-run drift of a machine between two sessions (clock boost, thermal state, other
/// load) is of this order, and moves every row together; a change below it is rarely what
/// a code change did.
pub const DEFAULT_MIN_CHANGE_PCT: f64 = 5.0;
/// Runs per side below which the comparison warns that only large changes can be seen
/// (with 10 against 10 the exact test can reach p ≈ 1e-5 — enough for Holm over about a
/// thousand rows at alpha 0.05 — and the medians are stable to a few percent).
pub const RELIABLE_RUNS: usize = 10;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompareOptions {
    pub alpha: f64,
    pub min_change_pct: f64,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            alpha: DEFAULT_ALPHA,
            min_change_pct: DEFAULT_MIN_CHANGE_PCT,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    Slower,
    Faster,
    Same,
    TooFewSamples,
    Added,
    Removed,
}

impl Verdict {
    pub const ALL: [Verdict; 6] = [
        Verdict::Slower,
        Verdict::Faster,
        Verdict::Same,
        Verdict::TooFewSamples,
        Verdict::Added,
        Verdict::Removed,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Verdict::Slower => "slower",
            Verdict::Faster => "faster",
            Verdict::Same => "same",
            Verdict::TooFewSamples => "too_few_samples",
            Verdict::Added => "added",
            Verdict::Removed => "removed",
        }
    }

    /// Whether the row changed (the compare view's "changed only" filter keeps these).
    pub fn is_change(self) -> bool {
        matches!(
            self,
            Verdict::Slower | Verdict::Faster | Verdict::Added | Verdict::Removed
        )
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    pub source: String,
    pub runs: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CompareRow {
    pub kind: RowKind,
    pub path: Vec<String>,
    pub name: String,
    pub instruction_id: Option<i32>,
    /// The module the row's nodes lie in (from B's ETRecord, else A's), when known.
    pub module: Option<String>,
    pub a: Option<Stats>,
    pub b: Option<Stats>,
    /// The change, in percent: the Hodges–Lehmann ratio of B to A (median of the
    /// pairwise ratios) minus 1. None when A's median is 0 or a side has no sample.
    pub delta_pct: Option<f64>,
    /// The (1 − alpha) interval of that same ratio, in percent; it holds `delta_pct` and
    /// lies above −100%. None when the samples cannot give one (too few, or an end at 0
    /// or +∞).
    pub ci_pct: Option<(f64, f64)>,
    /// The change of the median, in percent of A's median (the plain comparison of the
    /// two medians, kept beside the estimate).
    pub median_change_pct: Option<f64>,
    /// Holm-adjusted p-value (compare with alpha directly).
    pub p_value: Option<f64>,
    /// The unadjusted Mann–Whitney p-value.
    pub p_raw: Option<f64>,
    pub verdict: Verdict,
    pub depth: usize,
    /// Index of the parent row in [`Comparison::rows`].
    pub parent: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Summary {
    pub slower: usize,
    pub faster: usize,
    pub same: usize,
    pub too_few_samples: usize,
    pub added: usize,
    pub removed: usize,
    /// Geometric mean of median B / median A over matched operators (and kernels, trace
    /// ops) with both medians above zero.
    pub geomean_ratio: Option<f64>,
}

impl Summary {
    pub fn count(&self, v: Verdict) -> usize {
        match v {
            Verdict::Slower => self.slower,
            Verdict::Faster => self.faster,
            Verdict::Same => self.same,
            Verdict::TooFewSamples => self.too_few_samples,
            Verdict::Added => self.added,
            Verdict::Removed => self.removed,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompareWarning {
    pub kind: String,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub a: Side,
    pub b: Side,
    pub alpha: f64,
    pub min_change_pct: f64,
    pub method: String,
    pub rows: Vec<CompareRow>,
    pub summary: Summary,
    pub warnings: Vec<CompareWarning>,
}

impl Comparison {
    /// The largest change of a `slower` row, in percent (for `--fail-on-regression`).
    pub fn worst_regression_pct(&self) -> Option<f64> {
        self.rows
            .iter()
            .filter(|r| r.verdict == Verdict::Slower)
            .filter_map(|r| r.delta_pct)
            .reduce(f64::max)
    }
}

/// Below this many samples in the rows to estimate and test, one thread does it.
const PARALLEL_MIN_SAMPLES: usize = 20_000;

/// Compare `b` against `a`. Two trees of different kinds (dump and trace) compare as
/// wholly different (every row added or removed); callers reject that pair earlier.
pub fn compare(a: &RowTree, b: &RowTree, opts: &CompareOptions) -> Comparison {
    // A trace's call trees pair with the threads merged (thread ids differ between two
    // recordings of one program, call paths do not).
    let merged = |t: &RowTree| {
        t.rows
            .iter()
            .any(|r| r.kind == RowKind::Scope)
            .then(|| t.merged_threads())
    };
    let (ma, mb) = (merged(a), merged(b));
    compare_on(
        ma.as_ref().unwrap_or(a),
        mb.as_ref().unwrap_or(b),
        opts,
        None,
    )
}

/// [`compare`] on `threads` threads (None: every core when the rows are big).
fn compare_on(
    a: &RowTree,
    b: &RowTree,
    opts: &CompareOptions,
    threads: Option<usize>,
) -> Comparison {
    let pairs = match_trees(a, b);
    let alpha = opts.alpha;
    let mut rows: Vec<CompareRow> = Vec::with_capacity(pairs.len());
    // (row index, smallest p its counts allow) of every matched row with samples.
    let mut candidates: Vec<(usize, f64)> = Vec::new();
    // Matched rows whose change and interval are estimated.
    let mut estimated: Vec<usize> = Vec::new();
    for p in &pairs {
        let ra = p.a.map(|i| &a.rows[i]);
        let rb = p.b.map(|i| &b.rows[i]);
        let any = ra.or(rb).expect("a pair has at least one side");
        let path = match (p.a, p.b) {
            (Some(i), _) => a.path(i),
            (None, Some(j)) => b.path(j),
            (None, None) => Vec::new(),
        };
        let mut row = CompareRow {
            kind: any.kind,
            path,
            name: any.name.clone(),
            instruction_id: ra
                .and_then(|r| r.instruction_id)
                .or(rb.and_then(|r| r.instruction_id)),
            module: rb
                .and_then(|r| r.module.clone())
                .or_else(|| ra.and_then(|r| r.module.clone())),
            a: ra.map(|r| r.stats.clone()),
            b: rb.map(|r| r.stats.clone()),
            delta_pct: None,
            ci_pct: None,
            median_change_pct: None,
            p_value: None,
            p_raw: None,
            verdict: Verdict::Same,
            depth: p.depth,
            parent: p.parent,
        };
        match (ra, rb) {
            (Some(_), None) => row.verdict = Verdict::Removed,
            (None, Some(_)) => row.verdict = Verdict::Added,
            (Some(ra), Some(rb)) => {
                let (sa, sb) = (&ra.stats, &rb.stats);
                if sa.count > 0 && sb.count > 0 && sa.median() > 0.0 {
                    row.median_change_pct = Some((sb.median() - sa.median()) / sa.median() * 100.0);
                    estimated.push(rows.len());
                }
                if sa.count == 0 || sb.count == 0 {
                    row.verdict = Verdict::TooFewSamples;
                } else {
                    candidates.push((rows.len(), min_attainable_p(sa.count, sb.count)));
                }
            }
            (None, None) => {}
        }
        rows.push(row);
    }

    // Rows whose counts could give a significant verdict even in the best case; the
    // rest are `too_few_samples`. Then the test on each of them, and Holm across them.
    let reachable = reachable_rows(&candidates, alpha);
    // The estimates and the tests, row by row on every core when the rows are big (each
    // row's figures are its own: the same on any number of threads).
    let work: Vec<usize> = {
        let mut w: Vec<usize> = estimated.iter().chain(reachable.iter()).copied().collect();
        w.sort_unstable();
        w.dedup();
        w
    };
    let big = work
        .iter()
        .map(|&i| {
            rows[i].a.as_ref().map_or(0, |s| s.count) + rows[i].b.as_ref().map_or(0, |s| s.count)
        })
        .sum::<usize>()
        >= PARALLEL_MIN_SAMPLES;
    let threads = threads.unwrap_or(if big {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
    } else {
        1
    });
    let figures = crate::threads::map_pulled(threads, work.clone(), |i| {
        let row = &rows[i];
        let (sa, sb) = (row.a.as_ref(), row.b.as_ref());
        let both = sa.zip(sb);
        let change = both
            .filter(|_| estimated.binary_search(&i).is_ok())
            .map(|(sa, sb)| change_and_interval(sa, sb, alpha));
        let test = both
            .filter(|_| reachable.contains(&i))
            .and_then(|(sa, sb)| mann_whitney_u(&sa.samples.to_ms(), &sb.samples.to_ms()));
        (change, test)
    });
    let mut tests: Vec<Option<f64>> = vec![None; rows.len()];
    for (&i, result) in work.iter().zip(figures) {
        let (change, test) = result.unwrap_or_else(|message| panic!("{message}"));
        if let Some(change) = change {
            (rows[i].delta_pct, rows[i].ci_pct) = change;
        }
        tests[i] = test.map(|mw| mw.p_value);
    }
    let mut tested: Vec<(usize, f64)> = Vec::new();
    for &(i, _) in &candidates {
        if !reachable.contains(&i) {
            // Identical samples need no test to say nothing changed (a profile against
            // itself is `same` everywhere, however few its runs).
            rows[i].verdict = if same_samples(&rows[i]) {
                Verdict::Same
            } else {
                Verdict::TooFewSamples
            };
            continue;
        }
        if let Some(p) = tests[i] {
            rows[i].p_raw = Some(p);
            tested.push((i, p));
        }
    }
    let adjusted = holm_adjust(&tested.iter().map(|t| t.1).collect::<Vec<_>>());
    for (&(i, _), &padj) in tested.iter().zip(&adjusted) {
        let row = &mut rows[i];
        row.p_value = Some(padj);
        let (ma, mb) = (
            row.a.as_ref().map_or(0.0, |s| s.median()),
            row.b.as_ref().map_or(0.0, |s| s.median()),
        );
        row.verdict = if padj > alpha {
            Verdict::Same
        } else {
            match row.delta_pct {
                Some(d) if d.abs() >= opts.min_change_pct => {
                    if d > 0.0 {
                        Verdict::Slower
                    } else {
                        Verdict::Faster
                    }
                }
                Some(_) => Verdict::Same,
                // A's median is zero: any significant rise is a change of unbounded size.
                None if mb > ma => Verdict::Slower,
                None => Verdict::Same,
            }
        };
    }

    let mut summary = Summary::default();
    for r in &rows {
        match r.verdict {
            Verdict::Slower => summary.slower += 1,
            Verdict::Faster => summary.faster += 1,
            Verdict::Same => summary.same += 1,
            Verdict::TooFewSamples => summary.too_few_samples += 1,
            Verdict::Added => summary.added += 1,
            Verdict::Removed => summary.removed += 1,
        }
    }
    let logs: Vec<f64> = rows
        .iter()
        .filter(|r| {
            matches!(
                r.kind,
                RowKind::Operator | RowKind::Instruction | RowKind::Kernel | RowKind::Op
            )
        })
        .filter_map(|r| match (&r.a, &r.b) {
            (Some(a), Some(b))
                if a.count > 0 && b.count > 0 && a.median() > 0.0 && b.median() > 0.0 =>
            {
                Some((b.median() / a.median()).ln())
            }
            _ => None,
        })
        .collect();
    if !logs.is_empty() {
        summary.geomean_ratio = Some((logs.iter().sum::<f64>() / logs.len() as f64).exp());
    }

    let warnings = warnings_for(a, b, &rows, alpha);
    Comparison {
        a: Side {
            source: a.source.clone(),
            runs: a.runs,
        },
        b: Side {
            source: b.source.clone(),
            runs: b.runs,
        },
        alpha,
        min_change_pct: opts.min_change_pct,
        method: method_text(tested.len()),
        rows,
        summary,
        warnings,
    }
}

/// The change of `b` against `a` and its interval, in percent, from one estimator: the
/// Hodges–Lehmann ratio and its distribution-free interval ([`ratio_estimate`]). Rows
/// with negative samples (differences such as a remainder, not durations) use the
/// Hodges–Lehmann shift and its Moses interval instead, both in percent of A's median.
fn change_and_interval(a: &Stats, b: &Stats, alpha: f64) -> (Option<f64>, Option<(f64, f64)>) {
    let pct = |r: f64| (r - 1.0) * 100.0;
    let (a_ms, b_ms) = (a.samples.to_ms(), b.samples.to_ms());
    if let Some(e) = ratio_estimate(&a_ms, &b_ms, alpha) {
        return (Some(pct(e.ratio)), e.ci.map(|(lo, hi)| (pct(lo), pct(hi))));
    }
    // Durations whose ratio has no finite estimate (A mostly zeros under the clock
    // quantum): no change can be given in percent, and none is invented.
    if a.samples.ns().iter().chain(b.samples.ns()).all(|x| *x >= 0) {
        return (None, None);
    }
    let scale = a.median().abs();
    match hodges_lehmann(&a_ms, &b_ms, alpha) {
        Some(e) if scale > 0.0 => (
            Some(e.shift / scale * 100.0),
            e.ci.map(|(lo, hi)| (lo / scale * 100.0, hi / scale * 100.0)),
        ),
        _ => (None, None),
    }
}

/// The change from `a` to `b` of one row tested alone (no correction: one test):
/// change of the median in percent of `a`'s, the Mann–Whitney p-value, and the verdict
/// under the same rules as [`compare`] (`too_few_samples` when the counts cannot reach
/// alpha; a significant change below `min_change_pct` is `same`).
pub fn single_change(
    a: &Stats,
    b: &Stats,
    opts: &CompareOptions,
) -> (Option<f64>, Option<f64>, Verdict) {
    let row = |s: &Stats| crate::rows::row(RowKind::Method, "Method::execute", None, s.clone());
    let tree = |s: &Stats| RowTree {
        source_kind: TreeSource::Dump,
        source: String::new(),
        runs: s.count,
        rows: vec![row(s)],
        roots: vec![0],
    };
    let c = compare(&tree(a), &tree(b), opts);
    let r = &c.rows[0];
    (r.delta_pct, r.p_value, r.verdict)
}

/// Whether both sides hold the same samples (as multisets).
fn same_samples(r: &CompareRow) -> bool {
    match (&r.a, &r.b) {
        (Some(a), Some(b)) if a.count == b.count => {
            let mut x = a.samples.ns().to_vec();
            let mut y = b.samples.ns().to_vec();
            x.sort_unstable();
            y.sort_unstable();
            x == y
        }
        _ => false,
    }
}

/// The rows (by index) whose counts let them reach `alpha` after the correction: Tarone's
/// rule for discrete tests. A row's counts fix the smallest p-value its test can give
/// (pmin, [`min_attainable_p`]); K is the smallest number such that at most K rows have
/// pmin ≤ alpha/K, and those rows form the family that is tested (Holm-corrected). The
/// others cannot reach alpha at all with these counts — e.g. 3 runs against 3 (pmin =
/// 2/C(6,3) = 0.1 > 0.05), or 26 rows of 5 runs against 5 (pmin = 2/252 = 0.0079: with 6
/// rows or fewer they could pass, 26 of them never can). The family depends on the counts
/// only, never on the outcomes, so the correction keeps its guarantee; rows that could
/// never be significant do not dilute the others' alpha.
fn reachable_rows(candidates: &[(usize, f64)], alpha: f64) -> std::collections::HashSet<usize> {
    let mut pmins: Vec<f64> = candidates.iter().map(|c| c.1).collect();
    pmins.sort_by(f64::total_cmp);
    let mut k = 1usize;
    let limit = loop {
        let limit = alpha / k as f64;
        let count = pmins.partition_point(|&p| p <= limit);
        if count <= k {
            break limit;
        }
        k += 1;
    };
    candidates
        .iter()
        .filter(|c| c.1 <= limit)
        .map(|c| c.0)
        .collect()
}

fn method_text(tested: usize) -> String {
    format!(
        "Mann-Whitney U, two-sided (exact permutation distribution, ties included, when both \
         sides have at most {EXACT_MAX_N} samples; else normal approximation with tie and \
         continuity correction); Holm correction across the {tested} tested rows (p_value is \
         Holm-adjusted; rows whose counts cannot reach alpha after the correction, by \
         Tarone's rule, are too_few_samples and not tested); delta_pct and ci_pct: Hodges-Lehmann \
         ratio B/A (median of the pairwise ratios) minus 1 and its distribution-free (1 - \
         alpha) interval from the same ordered ratios (the Moses interval on a log scale), in \
         percent; median_change_pct: change of the median in percent of A's median"
    )
}

/// `1 operator`, `3 operators`.
fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

fn warnings_for(a: &RowTree, b: &RowTree, rows: &[CompareRow], alpha: f64) -> Vec<CompareWarning> {
    let mut out = Vec::new();
    let unit = match a.source_kind {
        TreeSource::Dump => "runs",
        TreeSource::Trace => "iterations (calls of the top-level op)",
    };
    if a.runs < RELIABLE_RUNS || b.runs < RELIABLE_RUNS {
        let reach = if min_attainable_p(a.runs, b.runs) > alpha {
            format!(
                "; {} against {} cannot reach alpha {alpha} at all",
                a.runs, b.runs
            )
        } else {
            String::new()
        };
        out.push(CompareWarning {
            kind: "few_runs".into(),
            message: format!(
                "A has {} {unit}, B has {}: fewer than {RELIABLE_RUNS} per side, so only large \
                 changes can be told from noise{reach}",
                a.runs, b.runs
            ),
        });
    }
    // Rows that cannot reach alpha: say why, with the counts of the first of them.
    let few: Vec<&CompareRow> = rows
        .iter()
        .filter(|r| r.verdict == Verdict::TooFewSamples)
        .collect();
    if let Some(first) = few.first() {
        let (na, nb) = (
            first.a.as_ref().map_or(0, |s| s.count),
            first.b.as_ref().map_or(0, |s| s.count),
        );
        let tested = rows.iter().filter(|r| r.p_value.is_some()).count();
        out.push(CompareWarning {
            kind: "too_few_samples".into(),
            message: {
                let matched = rows
                    .iter()
                    .filter(|r| r.a.is_some() && r.b.is_some())
                    .count();
                let share = if few.len() == matched {
                    format!("none of the {matched} matched rows can")
                } else {
                    format!("{} of the {matched} matched rows cannot", few.len())
                };
                format!(
                    "{share} reach alpha {alpha} with their counts (e.g. {na} against {nb} \
                     samples: the smallest possible p is {:.3}, and {} rows would share \
                     alpha); record more runs",
                    min_attainable_p(na, nb),
                    few.len() + tested
                )
            }
            .replace(
                "none of the 1 matched rows can",
                "the one matched row cannot",
            ),
        });
    }
    // Different models: most leaf rows without a partner.
    let leaf = |k: RowKind| {
        matches!(
            k,
            RowKind::Operator | RowKind::Instruction | RowKind::Kernel | RowKind::Op
        )
    };
    let count =
        |f: &dyn Fn(&CompareRow) -> bool| rows.iter().filter(|r| leaf(r.kind) && f(r)).count();
    let matched = count(&|r| r.a.is_some() && r.b.is_some());
    let in_a = count(&|r| r.a.is_some());
    let in_b = count(&|r| r.b.is_some());
    let largest = in_a.max(in_b);
    let ops = |n: usize| plural(n, "operator");
    if largest > 0 && (matched as f64) < 0.5 * largest as f64 {
        out.push(CompareWarning {
            kind: "different_models".into(),
            message: format!(
                "A and B look like different models: {} of A's {} and B's {} have a partner \
                 ({} only in A, {} only in B); the verdicts compare what matched, not the models",
                if matched == 0 {
                    "none".to_string()
                } else {
                    matched.to_string()
                },
                ops(in_a),
                in_b,
                in_a - matched,
                in_b - matched
            ),
        });
    } else if matched < largest {
        let only = |n: usize, side: &str, what: &str| {
            (n > 0).then(|| format!("{} only in {side} ({what})", ops(n)))
        };
        let parts: Vec<String> = [
            only(in_a - matched, "A", "removed"),
            only(in_b - matched, "B", "added"),
        ]
        .into_iter()
        .flatten()
        .collect();
        out.push(CompareWarning {
            kind: "unmatched_rows".into(),
            message: format!(
                "{}; the other {} are in both",
                parts.join(", "),
                ops(matched)
            ),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rows::{Row, RowTree, TreeSource};

    /// A flat tree of operators named op0.. with the given samples.
    fn flat(samples: &[Vec<f64>]) -> RowTree {
        let rows = samples
            .iter()
            .enumerate()
            .map(|(i, s)| Row {
                kind: RowKind::Operator,
                name: format!("op{i}"),
                instruction_id: None,
                group: None,
                facts: Default::default(),
                share: None,
                source: None,
                input_shapes: None,
                output_shapes: None,
                flops: None,
                bytes: None,
                module: None,
                source_line: None,
                stats: Stats::from_ms(s),
                parent: None,
                children: Vec::new(),
                depth: 0,
            })
            .collect::<Vec<_>>();
        RowTree {
            source_kind: TreeSource::Dump,
            source: "t".into(),
            runs: samples.first().map_or(0, Vec::len),
            roots: (0..rows.len()).collect(),
            rows,
        }
    }

    fn run(n: usize, base: f64) -> Vec<f64> {
        (0..n).map(|i| base + i as f64 * 0.01).collect()
    }

    #[test]
    fn rows_estimated_and_tested_on_several_threads_get_their_own_figures() {
        // Rows of 4,000 runs, big enough for the threads: B is A with every other row
        // 20% slower. Each row's figures must be its own whatever thread computed them.
        let sa: Vec<Vec<f64>> = (0..12).map(|i| run(4_000, 1.0 + i as f64)).collect();
        let sb: Vec<Vec<f64>> = sa
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let f = if i % 2 == 1 { 1.2 } else { 1.0 };
                s.iter().map(|x| x * f).collect()
            })
            .collect();
        let (a, b) = (flat(&sa), flat(&sb));
        let opts = CompareOptions::default();
        let one = compare_on(&a, &b, &opts, Some(1));
        for threads in [2, 3, 8] {
            assert_eq!(
                compare_on(&a, &b, &opts, Some(threads)),
                one,
                "{threads} threads"
            );
        }
        assert_eq!(compare(&a, &b, &opts), one);
        for (i, r) in one.rows.iter().enumerate() {
            if i % 2 == 1 {
                // Every ratio b_j / a_k of a row scaled by 1.2 against itself has the
                // median 1.2 (the pairs (j, k) and (k, j) balance around it).
                assert_eq!(r.verdict, Verdict::Slower, "row {i}");
                assert!((r.delta_pct.unwrap() - 20.0).abs() < 1e-6, "row {i}: {r:?}");
            } else {
                assert_eq!(r.verdict, Verdict::Same, "row {i}");
                assert_eq!(r.delta_pct, Some(0.0), "row {i}");
            }
        }
    }

    #[test]
    fn counts_that_cannot_survive_the_correction_are_too_few() {
        // 26 rows of 5 runs against 5, B fully above A: each raw p = 2/252 = 0.0079 (the
        // smallest possible), but 26 rows need 0.05/26 = 0.0019 (Tarone: K = 7, no row
        // has pmin <= 0.05/7): no row can ever be significant, so none may say `same`.
        let a = flat(&vec![run(5, 1.0); 26]);
        let b = flat(&vec![run(5, 2.0); 26]);
        let c = compare(&a, &b, &CompareOptions::default());
        assert!(c.rows.iter().all(|r| r.verdict == Verdict::TooFewSamples));
        // Six such rows: 6 * 0.0079 = 0.048 <= 0.05, all reachable, and all slower
        // (Holm: every adjusted p = 6 * 2/252).
        let a = flat(&vec![run(5, 1.0); 6]);
        let b = flat(&vec![run(5, 2.0); 6]);
        let c = compare(&a, &b, &CompareOptions::default());
        for r in &c.rows {
            assert_eq!(r.verdict, Verdict::Slower);
            assert!((r.p_value.unwrap() - 6.0 * 2.0 / 252.0).abs() < 1e-12);
        }
    }

    #[test]
    fn one_small_row_among_large_ones_stays_testable() {
        // Five rows of 30 runs (pmin ~ 1e-17) and one of 5 against 5: the small row is
        // last in Holm's order, where the multiplier is 1, so it can reach 0.05.
        let mut sa = vec![run(30, 1.0); 5];
        let mut sb = vec![run(30, 1.0); 5];
        sa.push(run(5, 1.0));
        sb.push(run(5, 2.0));
        let c = compare(&flat(&sa), &flat(&sb), &CompareOptions::default());
        assert_eq!(c.rows[5].verdict, Verdict::Slower);
        assert!(c.rows[..5].iter().all(|r| r.verdict == Verdict::Same));
    }

    #[test]
    fn single_change_is_one_uncorrected_test() {
        // 5 against 5, fully separated: p = 2/252 (one test, no correction), +100%.
        let a = Stats::from_ms(&run(5, 1.0));
        let b = Stats::from_ms(&run(5, 2.0));
        let (d, p, v) = single_change(&a, &b, &CompareOptions::default());
        assert_eq!(v, Verdict::Slower);
        assert!((p.unwrap() - 2.0 / 252.0).abs() < 1e-12);
        assert!((d.unwrap() - (2.02 - 1.02) / 1.02 * 100.0).abs() < 1e-9);
        // 3 against 3 cannot reach 0.05; against itself it is the same.
        let a3 = Stats::from_ms(&run(3, 1.0));
        let b3 = Stats::from_ms(&run(3, 2.0));
        assert_eq!(
            single_change(&a3, &b3, &CompareOptions::default()).2,
            Verdict::TooFewSamples
        );
        assert_eq!(
            single_change(&a3, &a3, &CompareOptions::default()).2,
            Verdict::Same
        );
    }

    #[test]
    fn min_change_turns_small_significant_changes_into_same() {
        // 40 runs each, B = 1.03 A + 0.5 (fully separated ranks): significant, +7.9%,
        // so slower at the 5% default and same with --min-change 10.
        let a = flat(&[run(40, 10.0)]);
        let b = flat(&[a.rows[0]
            .stats
            .samples
            .iter_ms()
            .map(|x| x * 1.03 + 0.5)
            .collect()]);
        let c = compare(&a, &b, &CompareOptions::default());
        assert!(c.rows[0].p_value.unwrap() < 1e-6);
        // delta: median A 10.195, B 10.195 * 1.03 + 0.5 = 11.00085 -> +7.9%.
        assert_eq!(c.rows[0].verdict, Verdict::Slower);
        let opts = CompareOptions {
            alpha: 0.05,
            min_change_pct: 10.0,
        };
        assert_eq!(compare(&a, &b, &opts).rows[0].verdict, Verdict::Same);
    }
}
