//! Latency histogram binning: a pure function of the samples and the pane width.

/// Columns one bin takes on screen (bar plus gap).
pub const CELLS_PER_BIN: u16 = 2;
/// Never more bins than this, however wide the pane.
pub const MAX_BINS: usize = 40;

#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    /// Lower edge of the first bin and upper edge of the last, in ms.
    pub lo: f64,
    pub hi: f64,
    /// Samples per bin; equal-width bins over `lo..=hi`.
    pub counts: Vec<usize>,
    /// Samples left out below `lo` and above `hi` (`bin_bulk`: a long tail).
    pub below: usize,
    pub above: usize,
}

impl Histogram {
    pub fn bin_width(&self) -> f64 {
        if self.counts.is_empty() {
            0.0
        } else {
            (self.hi - self.lo) / self.counts.len() as f64
        }
    }

    pub fn max_count(&self) -> usize {
        self.counts.iter().copied().max().unwrap_or(0)
    }
}

/// Number of bins for a pane `width` cells wide holding `samples` values: one bin per
/// `CELLS_PER_BIN` cells, at most `MAX_BINS`, never more than there are samples, at least 1.
pub fn bin_count(width: u16, samples: usize) -> usize {
    let by_width = (width / CELLS_PER_BIN) as usize;
    by_width.min(MAX_BINS).min(samples).max(1)
}

/// Bin `values` (ms) into equal-width bins sized for `width`. Non-finite values are
/// ignored; all-equal values make one bin. The maximum falls in the last bin.
pub fn bin(values: &[f64], width: u16) -> Histogram {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if finite.is_empty() {
        return Histogram {
            lo: 0.0,
            hi: 0.0,
            counts: Vec::new(),
            below: 0,
            above: 0,
        };
    }
    let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if hi <= lo {
        return Histogram {
            lo,
            hi,
            counts: vec![finite.len()],
            below: 0,
            above: 0,
        };
    }
    bin_between(&finite, lo, hi, width)
}

/// A tail is cut off when it reaches further beyond p1 (or p99) than this share of the
/// p1..p99 range: one 12 ms run among 1 ms runs would otherwise squeeze all the others
/// into one bin.
pub const TAIL_SHARE: f64 = 0.25;

/// Linear-interpolated quantile of sorted values (`q` in 0..=1).
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let i = pos.floor() as usize;
    let j = (i + 1).min(sorted.len() - 1);
    sorted[i] + (sorted[j] - sorted[i]) * (pos - i as f64)
}

/// Bin the bulk of `values`: over min..max, unless a tail reaches further than
/// `TAIL_SHARE` of the p1..p99 range beyond p1 or p99; then the bins span p1 (or p99)
/// and the samples beyond are counted in `below`/`above`.
pub fn bin_bulk(values: &[f64], width: u16) -> Histogram {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.len() < 3 {
        return bin(&sorted, width);
    }
    sorted.sort_by(f64::total_cmp);
    let (min, max) = (sorted[0], sorted[sorted.len() - 1]);
    let p1 = quantile(&sorted, 0.01);
    let p99 = quantile(&sorted, 0.99);
    let bulk = p99 - p1;
    if bulk <= 0.0 {
        return bin(&sorted, width);
    }
    let lo = if p1 - min > TAIL_SHARE * bulk {
        p1
    } else {
        min
    };
    let hi = if max - p99 > TAIL_SHARE * bulk {
        p99
    } else {
        max
    };
    let inside: Vec<f64> = sorted
        .iter()
        .copied()
        .filter(|v| *v >= lo && *v <= hi)
        .collect();
    let mut h = bin(&inside, width);
    // Keep the edges even when the values inside do not reach them.
    if inside.len() > 1 && (h.lo, h.hi) != (lo, hi) && hi > lo {
        h = bin_between(&inside, lo, hi, width);
    }
    h.below = sorted.iter().filter(|v| **v < lo).count();
    h.above = sorted.iter().filter(|v| **v > hi).count();
    h
}

/// Bin `values` into equal-width bins over `lo..=hi` (`hi > lo`), sized for `width`.
fn bin_between(values: &[f64], lo: f64, hi: f64, width: u16) -> Histogram {
    let n = bin_count(width, values.len());
    let mut counts = vec![0usize; n];
    let span = hi - lo;
    for v in values {
        // A value on a bin edge belongs to the bin above it; the nudge keeps rounding
        // error (0.22 - 0.198 = 0.021999...) from moving it down.
        let x = (v - lo) / span * n as f64;
        let i = (x + 1e-9 * n as f64).floor().max(0.0) as usize;
        counts[i.min(n - 1)] += 1;
    }
    Histogram {
        lo,
        hi,
        counts,
        below: 0,
        above: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bin_count_follows_width_and_samples() {
        assert_eq!(bin_count(80, 1000), 40);
        assert_eq!(bin_count(20, 1000), 10);
        assert_eq!(bin_count(20, 3), 3);
        assert_eq!(bin_count(1, 50), 1);
        assert_eq!(bin_count(0, 0), 1);
        assert_eq!(bin_count(200, 1000), MAX_BINS);
    }

    #[test]
    fn values_land_in_hand_computed_bins() {
        // 0..=9 over 5 bins of width 1.8: [0,1.8) [1.8,3.6) [3.6,5.4) [5.4,7.2) [7.2,9]
        let v: Vec<f64> = (0..10).map(f64::from).collect();
        let h = bin(&v, 10);
        assert_eq!(h.counts, vec![2, 2, 2, 2, 2]);
        assert_eq!((h.lo, h.hi), (0.0, 9.0));
        assert!((h.bin_width() - 1.8).abs() < 1e-12);
        // Skewed: one outlier goes alone to the last bin.
        let h = bin(&[1.0, 1.0, 1.1, 1.2, 5.0], 8);
        assert_eq!(h.counts, vec![4, 0, 0, 1]);
    }

    #[test]
    fn values_on_bin_edges_go_up() {
        // 198..264 µs in 6 bins of 11 µs: 220, 231, 242, 253 sit exactly on edges.
        let v = [0.22, 0.264, 0.242, 0.198, 0.231, 0.253];
        assert_eq!(bin(&v, 12).counts, vec![1, 0, 1, 1, 1, 2]);
    }

    #[test]
    fn bulk_leaves_a_far_outlier_out_and_counts_it() {
        // 99 runs at 1.00..=1.98 ms (step 0.01) and one at 12 ms. Sorted, p1 sits at
        // position 0.99 -> 1.00 + 0.99 * 0.01 = 1.0099; p99 at position 98.01 -> 1.98 +
        // 0.01 * (12 - 1.98) = 2.0802. Bulk 1.0703; the max is 9.92 beyond p99 (> 0.27):
        // cut; the min is 0.0099 below p1 (< 0.27): kept. Bins span 1.00..2.0802.
        let mut v: Vec<f64> = (0..99).map(|i| 1.0 + i as f64 * 0.01).collect();
        v.push(12.0);
        let h = bin_bulk(&v, 80);
        assert_eq!((h.below, h.above), (0, 1));
        assert_eq!(h.lo, 1.0);
        assert!((h.hi - 2.0802).abs() < 1e-9, "{}", h.hi);
        assert_eq!(h.counts.iter().sum::<usize>(), 99);
        // 40 bins over 1.0802 ms: no bin holds more than 3 of the 99 evenly spread runs.
        assert_eq!(h.counts.len(), 40);
        assert!(h.max_count() <= 3, "{:?}", h.counts);
        // The plain binning puts 99 of 100 in the first 4 of 40 bins.
        let plain = bin(&v, 80);
        assert_eq!(plain.counts[..4].iter().sum::<usize>(), 99);
        // No long tail: same as plain binning, nothing left out.
        let even: Vec<f64> = (0..50).map(f64::from).collect();
        assert_eq!(bin_bulk(&even, 40), bin(&even, 40));
    }

    #[test]
    fn degenerate_inputs() {
        assert!(bin(&[], 40).counts.is_empty());
        assert_eq!(bin(&[2.0, 2.0, 2.0], 40).counts, vec![3]);
        assert_eq!(bin(&[f64::NAN, 1.0, 3.0], 40).counts, vec![1, 1]);
        assert_eq!(bin(&[1.0, 2.0], 0).counts, vec![2]);
    }
}
