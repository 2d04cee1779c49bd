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
        };
    }
    let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if hi <= lo {
        return Histogram {
            lo,
            hi,
            counts: vec![finite.len()],
        };
    }
    let n = bin_count(width, finite.len());
    let mut counts = vec![0usize; n];
    let span = hi - lo;
    for v in finite {
        // A value on a bin edge belongs to the bin above it; the nudge keeps rounding
        // error (0.22 - 0.198 = 0.021999...) from moving it down.
        let x = (v - lo) / span * n as f64;
        let i = (x + 1e-9 * n as f64).floor() as usize;
        counts[i.min(n - 1)] += 1;
    }
    Histogram { lo, hi, counts }
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
    fn degenerate_inputs() {
        assert!(bin(&[], 40).counts.is_empty());
        assert_eq!(bin(&[2.0, 2.0, 2.0], 40).counts, vec![3]);
        assert_eq!(bin(&[f64::NAN, 1.0, 3.0], 40).counts, vec![1, 1]);
        assert_eq!(bin(&[1.0, 2.0], 0).counts, vec![2]);
    }
}
