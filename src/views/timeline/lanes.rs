//! The timeline's lanes: bars of one dump run (method, each delegate's call, its plan
//! steps and operators, then non-delegated operators and kernels) or of a whole trace
//! (one lane per thread and call depth). Pure; `views::timeline::state` shows them.

use std::collections::BTreeMap;

use crate::profile::{Timeline, TimelineKind};
use crate::timeline::TraceTimeline;

/// One bar: an event of the run shown, in ns from the run's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bar {
    pub start: i64,
    pub end: i64,
    /// Index into the run's events (dumps) or the trace's intervals.
    pub event: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lane {
    pub label: String,
    /// Sorted by start.
    pub bars: Vec<Bar>,
    /// Per bar: the index of the bar with the latest end among `bars[..=i]`, so whether
    /// any bar covers a time is one binary search (frames stay fast on a million bars).
    pub reach: Vec<u32>,
}

impl Lane {
    pub(super) fn new(label: String) -> Self {
        Lane {
            label,
            bars: Vec::new(),
            reach: Vec::new(),
        }
    }

    /// Sort the bars and compute `reach`.
    pub(super) fn finish(mut self) -> Self {
        self.bars
            .sort_by_key(|b| (b.start, std::cmp::Reverse(b.end), b.event));
        let mut best = 0u32;
        self.reach = (0..self.bars.len())
            .map(|i| {
                if self.bars[i].end > self.bars[best as usize].end {
                    best = i as u32;
                }
                best
            })
            .collect();
        self
    }

    /// The bar to show for the time cell `[from, to)`: one that starts in it, else one
    /// that covers its start.
    pub fn bar_in(&self, from: i64, to: i64) -> Option<usize> {
        let k = self.bars.partition_point(|b| b.start < to);
        let last = k.checked_sub(1)?;
        let b = &self.bars[last];
        if b.start >= from || b.end > from {
            return Some(last);
        }
        let r = self.reach[last] as usize;
        (self.bars[r].end > from).then_some(r)
    }
}

/// Deeper trace calls share the last lane of their thread.
pub const MAX_TRACE_DEPTH_LANES: u32 = 12;

pub(super) fn dump_lanes(tl: &Timeline, run: usize) -> (i64, Vec<Lane>) {
    let r = &tl.runs[run];
    let origin = r.span().map_or(0, |s| s.0);
    let rel = |t: u64| i64::try_from(t.saturating_sub(origin)).unwrap_or(i64::MAX);
    // Lane keys: (group, instruction, sub-lane) so lanes come out method, delegates by
    // instruction (call, steps, operators), then non-delegated operators and kernels.
    let mut lanes: BTreeMap<(u8, i32, u8), Lane> = BTreeMap::new();
    for (i, e) in r.events.iter().enumerate() {
        let entry = tl.entry(e);
        let instr = entry.instruction_id.unwrap_or(-1);
        let (key, label) = match entry.kind {
            TimelineKind::Method => ((0, 0, 0), "Method::execute".to_string()),
            TimelineKind::DelegateCall => ((1, instr, 0), crate::units::delegate_name(instr)),
            TimelineKind::Step => ((1, instr, 1), "  plan steps".to_string()),
            _ if entry.in_delegate => ((1, instr, 2), "  operators".to_string()),
            TimelineKind::InstructionCall => ((2, 0, 0), "operator calls".to_string()),
            _ => ((2, 0, 1), "  kernels".to_string()),
        };
        lanes
            .entry(key)
            .or_insert_with(|| Lane::new(label))
            .bars
            .push(Bar {
                start: rel(e.start_ns),
                end: rel(e.end_ns()),
                event: i as u32,
            });
    }
    let lanes = lanes.into_values().map(Lane::finish).collect();
    (i64::try_from(origin).unwrap_or(i64::MAX), lanes)
}

pub(super) fn trace_lanes(tt: &TraceTimeline) -> (i64, Vec<Lane>) {
    let set = &tt.set;
    let origin = set
        .intervals
        .iter()
        .map(|iv| iv.start_ns)
        .min()
        .unwrap_or(0);
    let mut lanes: BTreeMap<(u32, u32), Lane> = BTreeMap::new();
    for (i, iv) in set.intervals.iter().enumerate() {
        let depth = tt
            .depth
            .get(i)
            .copied()
            .unwrap_or(0)
            .min(MAX_TRACE_DEPTH_LANES);
        let key = set.thread(iv);
        lanes
            .entry((iv.thread, depth))
            .or_insert_with(|| {
                Lane::new(if depth == 0 {
                    format!("tid {}", key.tid)
                } else if depth == MAX_TRACE_DEPTH_LANES {
                    format!("  depth {depth}+")
                } else {
                    format!("  depth {depth}")
                })
            })
            .bars
            .push(Bar {
                start: iv.start_ns.saturating_sub(origin),
                end: iv
                    .start_ns
                    .saturating_add(iv.dur_ns.max(0))
                    .saturating_sub(origin),
                event: i as u32,
            });
    }
    let lanes = lanes.into_values().map(Lane::finish).collect();
    (origin, lanes)
}
