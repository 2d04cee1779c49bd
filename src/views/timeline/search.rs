//! Search in the timeline view: `/` types a name (ignoring case), the bars whose event
//! name holds it are highlighted, `]` and `[` select the next and previous one (lane by
//! lane, in time within a lane), the view panning to it; the status line says `k of n`.

use super::lanes::Bar;
use super::state::{keep_selection_visible, TimelineView};
use crate::app::keymap::Command;
use crate::app::search;
use crate::app::step::Step;
use crate::timeline::AnyTimeline;

/// The event name of bar `b` of the run on screen.
pub fn bar_name(source: &AnyTimeline, view: &TimelineView, b: &Bar) -> String {
    match source {
        AnyTimeline::Dump(tl) => view
            .runs
            .get(view.run_pos)
            .and_then(|&r| tl.runs[r].events.get(b.event as usize))
            .map(|e| tl.entry(e).name.clone())
            .unwrap_or_default(),
        AnyTimeline::Trace(tt) => tt
            .set
            .intervals
            .get(b.event as usize)
            .map(|iv| tt.set.name(iv).to_string())
            .unwrap_or_default(),
    }
}

/// The bars (lane, bar) whose name holds the search text, lane by lane.
pub fn matches(view: &TimelineView) -> Vec<(usize, usize)> {
    let needle = view.search.needle();
    let Some(source) = view.source.as_deref() else {
        return Vec::new();
    };
    if needle.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (l, lane) in view.lanes.iter().enumerate() {
        for (i, b) in lane.bars.iter().enumerate() {
            if search::holds(&bar_name(source, view, b), &needle) {
                out.push((l, i));
            }
        }
    }
    out
}

/// A search key in the timeline; None: not one of them.
pub fn command(view: &mut TimelineView, cmd: Command, visible_lanes: usize) -> Option<Vec<Step>> {
    use Command::*;
    match cmd {
        StartFilter => view.search.editing = true,
        FilterAccept => view.search.editing = false,
        FilterCancel => view.search.clear(),
        FilterEdit(req) => {
            view.search.edit(req);
            let found = matches(view);
            let at = (view.lane, view.bar);
            if let Some(&m) = found.iter().find(|&&m| m >= at).or(found.first()) {
                select(view, m, visible_lanes);
            }
        }
        NextMatch | PrevMatch => {
            if !view.search.is_active() {
                return Some(vec![Step::Notice(
                    "no search: / searches the bars' names".into(),
                )]);
            }
            let found = matches(view);
            if let Some(m) = search::step(&found, (view.lane, view.bar), cmd == NextMatch) {
                select(view, m, visible_lanes);
            }
            return Some(vec![Step::Notice(search::status(
                view.search.input.value(),
                &found,
                (view.lane, view.bar),
            ))]);
        }
        Back if view.search.is_active() => view.search.clear(),
        _ => return None,
    }
    Some(Vec::new())
}

/// Select bar `(lane, bar)`, its lane on screen and the bar in the time window.
fn select(view: &mut TimelineView, (lane, bar): (usize, usize), visible_lanes: usize) {
    view.lane = lane;
    view.bar = bar;
    let rows = visible_lanes.max(1);
    if lane < view.lane_offset {
        view.lane_offset = lane;
    } else if lane >= view.lane_offset + rows {
        view.lane_offset = lane + 1 - rows;
    }
    keep_selection_visible(view);
}
