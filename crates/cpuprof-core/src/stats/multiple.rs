//! Correction for testing many rows in one comparison: Holm's step-down adjustment.
//!
//! Why Holm and not Benjamini–Hochberg: a comparison is read, and used as a CI gate
//! (`--fail-on-regression`), row by row: a single false `slower` fails a build or sends
//! someone after a regression that is not there. Holm bounds the probability of *any*
//! false verdict in the comparison by alpha (family-wise error rate), whatever the
//! dependence between rows — and rows are strongly dependent here (an operator's time is
//! part of its step's, its delegate's and the method's). Benjamini–Hochberg bounds only
//! the expected *share* of false verdicts among the flagged rows, so a real regression
//! would license a few false ones beside it. Holm costs power only when many rows change
//! at once, and the rows that matter (large changes, tens of runs) have p-values far
//! below alpha / rows.

/// Holm-adjusted p-values, in the order of `p`: the i-th smallest gets
/// max over j ≤ i of min(1, (m − j + 1) · p_(j)). A row is significant at level alpha
/// when its adjusted p-value is ≤ alpha.
pub fn holm_adjust(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&x, &y| p[x].total_cmp(&p[y]));
    let mut out = vec![1.0; m];
    let mut running = 0.0f64;
    for (j, &idx) in order.iter().enumerate() {
        let adj = ((m - j) as f64 * p[idx]).min(1.0);
        running = running.max(adj);
        out[idx] = running;
    }
    out
}
