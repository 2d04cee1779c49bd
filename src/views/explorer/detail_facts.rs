//! The detail pane's facts beyond the statistics: an operator's efficiency (FLOPs and
//! bytes per call, achieved rates, the roofline with `--peak`), why a share reads `–`
//! (a bound that says nothing), and the findings about the selected node.

use ratatui::text::Line;

use crate::app::data::{ExplorerData, OpRow};
use crate::app::format::{duration_ms, wrap};
use crate::app::table::rate_text;
use crate::profile::efficiency::{count_text, Bound};
use crate::ui::Theme;
use crate::units::XNNPACK_QUANTUM_MS;

/// FLOPs and bytes per call and the rates at the median (`-` where the shapes give
/// none); with the machine's peaks, the roofline. Nothing for rows without either count.
/// `gflops_shown`: the GFLOP/s is already beside the total.
pub fn efficiency(op: &OpRow, gflops_shown: bool, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let c = op.cost;
    if c.flops.is_none() && c.bytes.is_none() {
        return Vec::new();
    }
    let per = if op.instances > 0 { " summed" } else { "/call" };
    let mut texts = Vec::new();
    if !gflops_shown {
        texts.push(format!("GFLOP/s {}", rate_text(op.rates.gflops)));
    }
    texts.push(format!(
        "GB/s    {} · {} {}{per}",
        rate_text(op.rates.gbps),
        c.flops.map_or("- FLOP".into(), |f| count_text(f, "FLOP")),
        c.bytes.map_or("- B".into(), |b| count_text(b, "B")),
    ));
    if let Some(r) = op.roofline {
        let bound = match r.bound {
            Bound::Compute => "compute-bound",
            Bound::Memory => "memory-bound",
        };
        texts.push(format!(
            "%peak   {}, {bound}",
            crate::app::format::percent(r.peak_share)
        ));
    }
    texts
        .iter()
        .flat_map(|t| wrap(t, w))
        .map(|l| Line::styled(l, theme.dim()))
        .collect()
}

/// Why a share of a row under the clock quantum reads `–`: its share is only bounded by
/// the quantum (1 µs per instance) over the parent's (or the method's) median, and that
/// bound is 100% or more, so it bounds nothing (`units::percent_bound`).
pub fn no_bound(data: &ExplorerData, op: &OpRow, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let Some(parent) = op.below_resolution else {
        return Vec::new();
    };
    // One quantum per instance (µs: XNNPACK's events are whole microseconds).
    // Rounded to whole µs: 9 × 0.001 ms × 1e3 is 9.000000000000002 in floating point.
    let quantum = format!(
        "{} µs",
        (op.instances.max(1) as f64 * XNNPACK_QUANTUM_MS * 1e3).round()
    );
    let mut texts = Vec::new();
    // %parent: a group row has none.
    if op.instances == 0 && parent > 0.0 && XNNPACK_QUANTUM_MS / parent >= 1.0 {
        texts.push(format!(
            "%parent –: under the {} clock quantum the share is only known to be below \
             {quantum} of the parent's median {}, a bound of 100% or more, so none is given",
            crate::units::BELOW_QUANTUM.trim_start_matches('<'),
            duration_ms(parent)
        ));
    }
    let method = data.total.as_ref().map(|t| t.median());
    if let (Some(bound), Some(m)) = (op.share_method, method) {
        if bound >= 1.0 {
            texts.push(format!(
                "%method –: under the clock quantum the share is only known to be below \
                 {quantum} of {}'s median {}, a bound of 100% or more, so none is given",
                data.total_label,
                duration_ms(m)
            ));
        }
    }
    texts
        .iter()
        .flat_map(|t| wrap(t, w))
        .map(|l| Line::styled(l, theme.warning()))
        .collect()
}

/// The findings about node `id` itself (`✗` errors, `!` warnings), wrapped; and how many
/// more are about nodes below it (the tree's mark counts both).
pub fn findings(data: &ExplorerData, id: usize, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let mut own = (0, 0);
    for f in data.findings.iter().filter(|f| f.node == Some(id)) {
        let (mark, style) = if f.error {
            own.0 += 1;
            ("✗", theme.error_text())
        } else {
            own.1 += 1;
            ("!", theme.warning())
        };
        let text = crate::escape::escape(&format!("{mark} {}: {}", f.kind, f.message)).into_owned();
        lines.extend(wrap(&text, w).into_iter().map(|l| Line::styled(l, style)));
    }
    let Some(node) = data.nodes.get(id) else {
        return lines;
    };
    let below = (
        node.findings.0 - own.0.min(node.findings.0),
        node.findings.1 - own.1.min(node.findings.1),
    );
    if below != (0, 0) {
        let mut parts = Vec::new();
        if below.0 > 0 {
            parts.push(crate::app::format::count(below.0, "error"));
        }
        if below.1 > 0 {
            parts.push(crate::app::format::count(below.1, "warning"));
        }
        let text = format!("{} below this node (w lists them)", parts.join(", "));
        lines.extend(
            wrap(&text, w)
                .into_iter()
                .map(|l| Line::styled(l, theme.dim())),
        );
    }
    lines
}
