//! Warm-up: a fixed number of leading runs, or `auto`, which finds the cold leading runs
//! from the `Method::execute` durations.
//!
//! The `auto` rule (documented in docs/formats.md, "What the profile contains"):
//! - with fewer than 4 runs nothing is dropped (too few to tell cold from warm);
//! - the *reference* is the later half of the runs (runs `n / 2` ..): their median `m` and
//!   median absolute deviation `MAD`;
//! - a run is *cold* when it is slower than `m + max(3 × 1.4826 × MAD, 0.1 × m)`: three
//!   robust standard deviations, and at least 10 % above the median (a quantised clock
//!   can give a MAD of 0);
//! - the dropped runs are the leading cold runs: run 0 if it is cold, run 1 if it is cold
//!   too, and so on up to the first run that is not cold. A warm run is never dropped,
//!   even when a slower one follows, and no cap cuts a cold prefix short (at least half
//!   of the reference lies at or below `m`, so the prefix always ends).
//!
//! Examples (µs). A decode method reading 21.0, 3.7, 2.5, 3.4, 2.4, 3.2, then eighteen
//! runs near 2.85: threshold 3.13; runs 0 and 1 are cold, run 2 (2.5) is not, so 2 runs
//! are dropped (the runs at 2.5 and 2.4 are kept, and so are 3.4 and 3.2 after them).
//! An 8-bit CNN reading 111, 48, 42, 42, 27, 23, 26, 23, 22, 22, 23, 22, 23: reference
//! runs 6.. with median 23 and MAD 1, threshold 27.45; the first four runs are cold and
//! 27 is not: 4 runs are dropped (a cap of a quarter of the runs would keep 3).

use std::fmt;
use std::str::FromStr;

use crate::stats::percentile_select;

/// Robust standard deviations above the median for a cold run.
pub const COLD_MADS: f64 = 3.0;
/// A cold run is at least this fraction above the median.
pub const COLD_MIN_EXCESS: f64 = 0.1;
/// The reference is the runs from `runs / REFERENCE_START_DIV` on.
pub const REFERENCE_START_DIV: usize = 2;

/// `--warmup N`, `--warmup auto`, or the default `log`: the count the runner log states
/// (`Running 3 warm-up and 20 timed iteration(s).`), believed when its warm-up and timed
/// runs add up to the dump's runs, else `auto` (see [`resolve`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Warmup {
    Runs(usize),
    Auto,
    Stated,
}

/// The default: the runner log's count when it adds up, else `auto`.
impl Default for Warmup {
    fn default() -> Self {
        Warmup::Stated
    }
}

impl Warmup {
    /// The fixed number of runs (0 for `auto` and `log`, decided when building).
    pub fn runs(self) -> usize {
        match self {
            Warmup::Runs(n) => n,
            Warmup::Auto | Warmup::Stated => 0,
        }
    }

    pub fn is_auto(self) -> bool {
        self == Warmup::Auto
    }
}

impl FromStr for Warmup {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.eq_ignore_ascii_case("auto") {
            return Ok(Warmup::Auto);
        }
        if s.eq_ignore_ascii_case("log") {
            return Ok(Warmup::Stated);
        }
        s.parse::<usize>()
            .map(Warmup::Runs)
            .map_err(|_| format!("{s:?} is neither a number of runs nor `auto`"))
    }
}

impl fmt::Display for Warmup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warmup::Runs(n) => write!(f, "{n}"),
            Warmup::Auto => f.write_str("auto"),
            Warmup::Stated => f.write_str("log"),
        }
    }
}

/// Which rule chose the warm-up count (`profile.json` `warmup_rule`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WarmupRule {
    /// `given` (`--warmup N`), `runner_log` (the count the log states) or `auto` (the
    /// cold-run rule: asked for, or the default when the log states no usable count).
    pub rule: String,
    /// What was asked: `N`, `auto` or `log` (the default).
    pub requested: String,
    /// Runs dropped from the first method.
    pub dropped: usize,
    /// Why this rule (the log's counts, or why they were not used).
    pub reason: String,
    /// One line for a header: `3 cold runs dropped (auto) · 0 keeps all`.
    pub text: String,
}

/// The warm-up to apply for `requested`: `log` becomes the count the runner log states
/// when its warm-up and timed iterations add up to `runs` (the dump's `Execute` runs),
/// else `auto`. Returns the warm-up (never `Stated`), the rule's name and why.
pub fn resolve(
    requested: Warmup,
    log: Option<&crate::runlog::RunLog>,
    runs: usize,
) -> (Warmup, &'static str, String) {
    match requested {
        Warmup::Runs(n) => (requested, "given", format!("--warmup {n}")),
        Warmup::Auto => (requested, "auto", "--warmup auto".to_string()),
        Warmup::Stated => match log.map(|l| l.stated_iterations()) {
            Some(Some((w, t))) if w.checked_add(t) == Some(runs) && w < runs => (
                Warmup::Runs(w),
                "runner_log",
                format!("the runner log states {w} warm-up and {t} timed iteration(s), as the dump's {runs} runs"),
            ),
            Some(Some((w, t))) => (
                Warmup::Auto,
                "auto",
                format!(
                    "the runner log states {w} warm-up and {t} timed iteration(s), but the dump has {runs} runs: the cold-run rule decides"
                ),
            ),
            Some(None) => (
                Warmup::Auto,
                "auto",
                "the runner log states no warm-up count: the cold-run rule decides".to_string(),
            ),
            None => (
                Warmup::Auto,
                "auto",
                "no runner log: the cold-run rule decides".to_string(),
            ),
        },
    }
}

/// The header line for `dropped` runs dropped by `rule`: `3 cold runs dropped (auto) ·
/// 0 keeps all`, `3 warm-up runs dropped (runner log) · 0 keeps all`, `all 13 runs kept
/// (--warmup 0)`.
pub fn header_text(rule: &str, dropped: usize, total: usize) -> String {
    let runs = |n: usize| if n == 1 { "run" } else { "runs" };
    match (rule, dropped) {
        ("auto", 0) => format!(
            "no cold run dropped (auto) · all {total} {} kept",
            runs(total)
        ),
        ("auto", d) => format!("{d} cold {} dropped (auto) · 0 keeps all", runs(d)),
        ("runner_log", 0) => format!(
            "all {total} {} kept (the runner log states no warm-up)",
            runs(total)
        ),
        ("runner_log", d) => format!("{d} warm-up {} dropped (runner log) · 0 keeps all", runs(d)),
        (_, 0) => format!("all {total} {} kept (--warmup 0)", runs(total)),
        (_, d) => format!(
            "{d} warm-up {} dropped (--warmup {d}) · 0 keeps all",
            runs(d)
        ),
    }
}

/// Leading cold runs of `method_ms` (`Method::execute` per run, in run order) by the rule
/// above, and a sentence saying why.
pub fn auto_warmup(method_ms: &[f64]) -> (usize, String) {
    let n = method_ms.len();
    if n < 4 {
        return (
            0,
            format!("{n} run(s): too few to tell cold runs from warm ones"),
        );
    }
    let start = n / REFERENCE_START_DIV;
    // Medians by selection: bit for bit the medians of the sorted values.
    let mut reference: Vec<f64> = method_ms[start..].to_vec();
    let median = percentile_select(&mut reference, 50.0);
    let mut dev: Vec<f64> = reference.iter().map(|x| (x - median).abs()).collect();
    let mad = percentile_select(&mut dev, 50.0);
    let threshold = median + (COLD_MADS * 1.4826 * mad).max(COLD_MIN_EXCESS * median);
    // The leading cold runs: up to the first run that is not cold (NaN is not cold).
    let cold = method_ms
        .iter()
        .position(|&x| x.partial_cmp(&threshold) != Some(std::cmp::Ordering::Greater))
        .unwrap_or(n);
    let us = |ms: f64| crate::units::duration_ms(ms);
    let why = if cold == 0 {
        format!(
            "the first run's Method::execute ({}) is not above {} (median {} of the later half of the {n} runs + max(3 MAD, 10%))",
            us(method_ms[0]),
            us(threshold),
            us(median)
        )
    } else {
        format!(
            "Method::execute of the first {cold} run(s) reaches {} against a median of {} over the later half of the {n} runs (cold above {}: median + max(3 MAD, 10%); the runs up to the first one not above it are dropped)",
            us(method_ms[..cold].iter().copied().fold(f64::MIN, f64::max)),
            us(median),
            us(threshold)
        )
    };
    (cold, why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_believes_a_log_whose_counts_add_up() {
        let log = |text: &str| crate::runlog::parse(text.as_bytes());
        let stated = log("I 00:00:00.007132 executorch:runner.cpp:240] Running 3 warm-up and 20 timed iteration(s).\n");
        assert_eq!(
            resolve(Warmup::Stated, Some(&stated), 23).0,
            Warmup::Runs(3)
        );
        assert_eq!(resolve(Warmup::Stated, Some(&stated), 23).1, "runner_log");
        // Counts that do not add up to the dump's runs: auto, and why.
        let (w, rule, why) = resolve(Warmup::Stated, Some(&stated), 13);
        assert_eq!((w, rule), (Warmup::Auto, "auto"));
        assert!(why.contains("the dump has 13 runs"), "{why}");
        // No count, no log: auto. A given count is kept.
        let silent = log("hello\n");
        assert_eq!(resolve(Warmup::Stated, Some(&silent), 13).0, Warmup::Auto);
        assert_eq!(resolve(Warmup::Stated, None, 13).0, Warmup::Auto);
        assert_eq!(
            resolve(Warmup::Runs(0), Some(&stated), 23).0,
            Warmup::Runs(0)
        );
        assert_eq!(
            header_text("auto", 3, 13),
            "3 cold runs dropped (auto) · 0 keeps all"
        );
        assert_eq!(header_text("given", 0, 13), "all 13 runs kept (--warmup 0)");
    }

    #[test]
    fn parses() {
        assert_eq!("log".parse::<Warmup>(), Ok(Warmup::Stated));
        assert_eq!("auto".parse::<Warmup>(), Ok(Warmup::Auto));
        assert_eq!("3".parse::<Warmup>(), Ok(Warmup::Runs(3)));
        assert!("-1".parse::<Warmup>().is_err());
    }

    #[test]
    fn rule_by_hand() {
        // 8 runs: reference runs 4..8 = [10, 12, 10, 11]: sorted [10, 10, 11, 12], median
        // 10.5, deviations [.5, .5, .5, 1.5] -> MAD 0.5; threshold 10.5 + max(3*1.4826*0.5
        // = 2.2239, 1.05) = 12.7239. Run 0 (30) and run 1 (12.8) are above it, run 2 is
        // not: 2 dropped.
        let x = [30.0, 12.8, 10.0, 11.0, 10.0, 12.0, 10.0, 11.0];
        assert_eq!(auto_warmup(&x).0, 2);
        // Only run 0 above: run 1 = 12.7 < 12.7239.
        let x = [30.0, 12.7, 10.0, 11.0, 10.0, 12.0, 10.0, 11.0];
        assert_eq!(auto_warmup(&x).0, 1);
        // A slow run after a warm first run is not a cold start: nothing is dropped.
        let x = [10.0, 30.0, 10.0, 11.0, 10.0, 12.0, 10.0, 11.0];
        assert_eq!(auto_warmup(&x).0, 0);
        // Flat: nothing. Too few runs: nothing.
        assert_eq!(auto_warmup(&[1.0; 10]).0, 0);
        assert_eq!(auto_warmup(&[9.0, 1.0, 1.0]).0, 0);
    }

    /// The decode method of the issue: 21.0, 3.7, 2.5, 3.4, 2.4, 3.2 µs, then 18 runs
    /// near 2.85 µs (24 runs). Reference runs 12..24 = [2.85, 2.8, 2.9, 2.8, 2.85, 2.9,
    /// 2.8, 2.85, 2.9, 2.8, 2.85, 2.9]: median 2.85, deviations 0 or 0.05 -> MAD 0.05;
    /// threshold 2.85 + max(3*1.4826*0.05 = 0.2224, 0.285) = 3.135 µs. 21.0 and 3.7 are
    /// above it, 2.5 is not: 2 dropped (the quarter cap used to drop 6, the warm 2.5 and
    /// 2.4 among them).
    #[test]
    fn a_warm_run_ends_the_cold_prefix() {
        let mut us = vec![21.0, 3.7, 2.5, 3.4, 2.4, 3.2];
        us.extend([
            2.8, 2.9, 2.85, 2.8, 2.9, 2.85, 2.85, 2.8, 2.9, 2.8, 2.85, 2.9, 2.8, 2.85, 2.9, 2.8,
            2.85, 2.9,
        ]);
        let ms: Vec<f64> = us.iter().map(|x| x / 1000.0).collect();
        let (n, why) = auto_warmup(&ms);
        assert_eq!(n, 2, "{why}");
        // 3.135 µs printed with 3 significant digits.
        assert!(why.contains("cold above 3.14 µs"), "{why}");
    }

    /// The 8-bit CNN of the issue (13 runs): 111, 48, 42, 42, 27, 23, 26, 23, 22, 22, 23,
    /// 22, 23 µs. Reference runs 6..13 = [26, 23, 22, 22, 23, 22, 23]: median 23,
    /// deviations [3, 0, 1, 1, 0, 1, 0] -> MAD 1; threshold 23 + max(4.4478, 2.3) =
    /// 27.4478. Runs 0-3 are above it, 27 is not: 4 dropped (a cap of 13/4 = 3 cut it).
    #[test]
    fn no_cap_cuts_a_cold_prefix_short() {
        let us = [
            111.0, 48.0, 42.0, 42.0, 27.0, 23.0, 26.0, 23.0, 22.0, 22.0, 23.0, 22.0, 23.0,
        ];
        let ms: Vec<f64> = us.iter().map(|x| x / 1000.0).collect();
        assert_eq!(auto_warmup(&ms).0, 4);
    }
}
