//! The statistics behind `compare` against independently computed reference values.
//!
//! Every expected value below was printed by `scripts/compare-stats-reference.py`
//! (scipy 1.17.1, numpy 2.4.6), run as
//! `/work/venv/bin/python scripts/compare-stats-reference.py`, whose output was:
//! ```text
//! case1 exact 2.0 np.float64(0.017316017316017316)
//! case2 perm 5.0 np.float64(0.009906759906759906)
//! case2 asym 5.0 np.float64(0.013664457765133722)
//! a3= [37.0, 35.0, ...]   (copied below)
//! case3 asym 256.5 np.float64(0.04492715549245059)
//! case4 3v3 0.0 np.float64(0.1)
//! case5 4v4 0.0 np.float64(0.02857142857142857)
//! case6 20v20 171.0 np.float64(0.44496402484021574)
//! hl1 (2.1999999999999997, 4, (0.30000000000000027, 3.9))
//! hl2 (3.0, 9, (1.0, 4.0))
//! hl3 (2.0, 259, (0.0, 4.0))
//! ```
//! The `hl*` lines come from brute force (all pairwise differences with numpy, the null
//! distribution of U by enumerating rank subsets), not from the code under test.

use cpuprof_tui::stats::{
    hodges_lehmann, holm_adjust, kth_pairwise_difference, mann_whitney_u, min_attainable_p,
    MwMethod,
};

const A1: [f64; 5] = [1.1, 2.3, 0.7, 3.9, 2.8];
const B1: [f64; 6] = [4.2, 3.3, 5.0, 2.9, 6.1, 4.4];
const A2: [f64; 7] = [3.0, 3.0, 4.0, 5.0, 5.0, 5.0, 7.0];
const B2: [f64; 7] = [5.0, 6.0, 6.0, 7.0, 8.0, 8.0, 9.0];
const A3: [f64; 25] = [
    37.0, 35.0, 39.0, 42.0, 45.0, 40.0, 38.0, 37.0, 43.0, 47.0, 41.0, 35.0, 36.0, 47.0, 41.0, 34.0,
    40.0, 36.0, 38.0, 38.0, 37.0, 42.0, 40.0, 38.0, 42.0,
];
const B3: [f64; 30] = [
    47.0, 36.0, 42.0, 39.0, 42.0, 38.0, 43.0, 43.0, 42.0, 39.0, 41.0, 39.0, 38.0, 44.0, 38.0, 48.0,
    46.0, 35.0, 44.0, 39.0, 43.0, 43.0, 35.0, 42.0, 42.0, 47.0, 38.0, 46.0, 39.0, 42.0,
];

fn close(x: f64, y: f64, rel: f64) -> bool {
    (x - y).abs() <= rel * y.abs().max(1e-300)
}

#[test]
fn exact_without_ties_matches_scipy() {
    let r = mann_whitney_u(&A1, &B1).unwrap();
    assert_eq!(r.method, MwMethod::Exact);
    assert_eq!(r.u_a, 2.0);
    assert!(
        close(r.p_value, 0.017316017316017316, 1e-12),
        "{}",
        r.p_value
    );
    // Swapping the samples gives U_b = n_a n_b - U_a and the same two-sided p.
    let s = mann_whitney_u(&B1, &A1).unwrap();
    assert_eq!(s.u_a, 28.0);
    assert!(close(s.p_value, r.p_value, 1e-12));
}

#[test]
fn exact_with_ties_matches_scipy_permutation() {
    let r = mann_whitney_u(&A2, &B2).unwrap();
    assert_eq!(r.method, MwMethod::ExactTies);
    assert_eq!(r.u_a, 5.0);
    assert!(
        close(r.p_value, 0.009906759906759906, 1e-12),
        "{}",
        r.p_value
    );
}

#[test]
fn normal_approximation_with_ties_matches_scipy() {
    let r = mann_whitney_u(&A3, &B3).unwrap();
    assert_eq!(r.method, MwMethod::Normal);
    assert_eq!(r.u_a, 256.5);
    assert!(
        close(r.p_value, 0.04492715549245059, 1e-10),
        "{}",
        r.p_value
    );
}

#[test]
fn smallest_samples_and_largest_exact_case() {
    let r = mann_whitney_u(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]).unwrap();
    assert_eq!((r.u_a, r.p_value), (0.0, 0.1));
    let r = mann_whitney_u(&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0, 7.0, 8.0]).unwrap();
    assert!(close(r.p_value, 0.02857142857142857, 1e-12));
    // 20 against 20: the exact distribution at its largest.
    let a: Vec<f64> = (1..40).step_by(2).map(f64::from).collect();
    let b: Vec<f64> = (4..44).step_by(2).map(|x| f64::from(x) + 0.5).collect();
    let r = mann_whitney_u(&a, &b).unwrap();
    assert_eq!(r.method, MwMethod::Exact);
    assert_eq!(r.u_a, 171.0);
    assert!(
        close(r.p_value, 0.44496402484021574, 1e-10),
        "{}",
        r.p_value
    );
}

#[test]
fn degenerate_inputs() {
    assert!(mann_whitney_u(&[], &[1.0]).is_none());
    assert!(mann_whitney_u(&[f64::NAN], &[1.0]).is_none());
    // All values equal: no evidence at all.
    let r = mann_whitney_u(&[2.0; 30], &[2.0; 30]).unwrap();
    assert_eq!(r.p_value, 1.0);
    let r = mann_whitney_u(&[2.0; 5], &[2.0; 5]).unwrap();
    assert_eq!(r.p_value, 1.0);
}

#[test]
fn min_attainable_p_is_two_over_binomial() {
    // 2 / C(6,3) = 2/20, 2 / C(8,4) = 2/70, 2 / C(5,1) = 2/5 (hand-computed).
    assert!(close(min_attainable_p(3, 3), 0.1, 1e-15));
    assert!(close(min_attainable_p(4, 4), 2.0 / 70.0, 1e-15));
    assert!(close(min_attainable_p(1, 4), 0.4, 1e-15));
    assert_eq!(min_attainable_p(0, 4), 1.0);
    assert_eq!(min_attainable_p(1, 1), 1.0);
    // It is what the test gives on fully separated samples.
    let r = mann_whitney_u(&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0, 7.0, 8.0]).unwrap();
    assert!(close(r.p_value, min_attainable_p(4, 4), 1e-12));
    assert!(min_attainable_p(500, 500) < 1e-100);
}

#[test]
fn hodges_lehmann_and_moses_interval_match_brute_force() {
    let e = hodges_lehmann(&A1, &B1, 0.05).unwrap();
    assert!(close(e.shift, 2.2, 1e-12), "{}", e.shift);
    let (lo, hi) = e.ci.unwrap();
    assert!(close(lo, 0.30000000000000027, 1e-12) && close(hi, 3.9, 1e-12));

    let e = hodges_lehmann(&A2, &B2, 0.05).unwrap();
    assert_eq!((e.shift, e.ci), (3.0, Some((1.0, 4.0))));

    let e = hodges_lehmann(&A3, &B3, 0.05).unwrap();
    assert_eq!((e.shift, e.ci), (2.0, Some((0.0, 4.0))));

    // 2 against 2 cannot give a finite 95% interval (P(U = 0) = 1/6 > 0.025).
    let e = hodges_lehmann(&[1.0, 2.0], &[3.0, 4.0], 0.05).unwrap();
    assert_eq!(e.ci, None);
    assert_eq!(e.shift, 2.0);
}

#[test]
fn kth_pairwise_difference_by_hand() {
    // b - a for a = [0, 10], b = [1, 2, 30]: {1, 2, 30, -9, -8, 20} sorted
    // -9 -8 1 2 20 30.
    let a = [10.0, 0.0];
    let b = [1.0, 30.0, 2.0];
    let want = [-9.0, -8.0, 1.0, 2.0, 20.0, 30.0];
    for (k, w) in want.iter().enumerate() {
        assert_eq!(kth_pairwise_difference(&a, &b, k as u64 + 1), Some(*w));
    }
    assert_eq!(kth_pairwise_difference(&a, &b, 0), None);
    assert_eq!(kth_pairwise_difference(&a, &b, 7), None);
}

#[test]
fn holm_by_hand() {
    // p = [0.01, 0.04, 0.03, 0.005], m = 4. Sorted: 0.005 (x4 = 0.02), 0.01 (x3 = 0.03),
    // 0.03 (x2 = 0.06), 0.04 (x1 = 0.04 -> running max 0.06).
    let adj = holm_adjust(&[0.01, 0.04, 0.03, 0.005]);
    let want = [0.03, 0.06, 0.06, 0.02];
    for (x, w) in adj.iter().zip(want) {
        assert!((x - w).abs() < 1e-15, "{adj:?}");
    }
    assert_eq!(holm_adjust(&[0.9, 0.8]), vec![1.0, 1.0]);
    assert!(holm_adjust(&[]).is_empty());
}

mod props {
    use super::*;
    use proptest::prelude::*;

    /// Two-sided exact permutation p-value by enumerating every split of the pooled
    /// values (midranks for ties): an independent, brute-force version of the test.
    fn brute_force_p(a: &[f64], b: &[f64]) -> f64 {
        let pooled: Vec<f64> = a.iter().chain(b).copied().collect();
        let n = pooled.len();
        let rank = |x: f64| {
            let below = pooled.iter().filter(|&&y| y < x).count() as f64;
            let equal = pooled.iter().filter(|&&y| y == x).count() as f64;
            below + (equal + 1.0) / 2.0
        };
        let ranks: Vec<f64> = pooled.iter().map(|&x| rank(x)).collect();
        let observed: f64 = ranks[..a.len()].iter().sum();
        let (mut le, mut ge, mut total) = (0u64, 0u64, 0u64);
        for mask in 0u32..(1 << n) {
            if mask.count_ones() as usize != a.len() {
                continue;
            }
            let s: f64 = (0..n)
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| ranks[i])
                .sum();
            total += 1;
            if s <= observed + 1e-9 {
                le += 1;
            }
            if s >= observed - 1e-9 {
                ge += 1;
            }
        }
        (2.0 * le.min(ge) as f64 / total as f64).min(1.0)
    }

    fn sample(max: usize) -> impl Strategy<Value = Vec<f64>> {
        // Whole numbers 0..6: ties are common, as with XNNPACK's whole microseconds.
        prop::collection::vec((0u8..6).prop_map(f64::from), 1..=max)
    }

    proptest! {
        #[test]
        fn exact_p_equals_brute_force(a in sample(6), b in sample(6)) {
            let r = mann_whitney_u(&a, &b).unwrap();
            let want = brute_force_p(&a, &b);
            prop_assert!((r.p_value - want).abs() < 1e-12, "{} vs {}", r.p_value, want);
            prop_assert!(r.p_value >= min_attainable_p(a.len(), b.len()) - 1e-12);
        }

        #[test]
        fn swap_keeps_p_and_mirrors_u(a in sample(25), b in sample(25)) {
            let x = mann_whitney_u(&a, &b).unwrap();
            let y = mann_whitney_u(&b, &a).unwrap();
            prop_assert!((x.p_value - y.p_value).abs() < 1e-12);
            prop_assert!((0.0..=1.0).contains(&x.p_value));
            prop_assert_eq!(x.u_a + y.u_a, (a.len() * b.len()) as f64);
        }

        #[test]
        fn shift_moves_with_b(a in sample(15), b in sample(15), c in 0u8..50) {
            let c = f64::from(c);
            let e = hodges_lehmann(&a, &b, 0.05).unwrap();
            let moved: Vec<f64> = b.iter().map(|x| x + c).collect();
            let f = hodges_lehmann(&a, &moved, 0.05).unwrap();
            prop_assert!((f.shift - e.shift - c).abs() < 1e-9);
            if let (Some((lo, hi)), Some((flo, fhi))) = (e.ci, f.ci) {
                prop_assert!(lo <= e.shift && e.shift <= hi);
                prop_assert!((flo - lo - c).abs() < 1e-9 && (fhi - hi - c).abs() < 1e-9);
            }
        }
    }
}
