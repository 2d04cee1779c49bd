//! The timeline view: one run of a dump (lanes for the method, each delegate's call, its
//! plan steps and its operators) or a whole trace (one lane per thread and call depth),
//! with a movable selection, zoom around it and pan. Plain state and pure commands; the
//! timeline itself is loaded off the UI thread (`Effect::LoadTimeline`, then
//! `Action::TimelineLoaded`) with `source::load_timeline`.

use std::sync::Arc;
use unicode_width::UnicodeWidthStr;

use ratatui::layout::Rect;

use super::lanes::{dump_lanes, trace_lanes};
pub use super::lanes::{Bar, Lane, MAX_TRACE_DEPTH_LANES};
use crate::app::layout::MouseAction;
use crate::profile::Timeline;
use crate::timeline::AnyTimeline;

/// What a timeline key asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimelineCommand {
    PrevBar,
    NextBar,
    LaneUp,
    LaneDown,
    ZoomIn,
    ZoomOut,
    PanLeft,
    PanRight,
    Fit,
    PrevRun,
    NextRun,
    SlowestRun,
    MedianRun,
}

#[derive(Debug, Clone)]
pub struct TimelineView {
    /// The data generation this view belongs to (a newer profile closes it).
    pub generation: u64,
    /// None while loading.
    pub source: Option<Arc<AnyTimeline>>,
    pub error: Option<String>,
    /// Dumps: indexes into `Timeline::runs` of the kept runs, in run order.
    pub runs: Vec<usize>,
    /// Position in `runs` of the run shown.
    pub run_pos: usize,
    /// Absolute time (ns) of the run's (or trace's) first event: bars count from it.
    pub origin: i64,
    /// Extent of the run, relative to `origin`.
    pub span: (i64, i64),
    pub lanes: Vec<Lane>,
    pub lane: usize,
    pub bar: usize,
    /// First lane on screen.
    pub lane_offset: usize,
    /// Visible time window, relative to `origin`.
    pub view: (i64, i64),
    /// Positions in `runs` of the median and the slowest run, found once when the
    /// timeline arrives (a 1 GB dump has ~87,000 runs: not a scan per key).
    median_pos: Option<usize>,
    slowest_pos: Option<usize>,
    /// The operator the view was opened on (`t` on a table row): its bar is selected in
    /// the run it opens on (the median run).
    pub focus: Option<TimelineFocus>,
    /// What the timeline was loaded from: a big dump's timeline carries the events of a
    /// window of runs (`Timeline::partial`), and stepping out of it loads another.
    pub request: Option<crate::profile::ProfileRequest>,
    /// The run (index among the dump's runs) whose window is loading.
    pub reloading: Option<usize>,
    /// `/` and `]`/`[` over the bars' names (`timeline_search`).
    pub search: crate::app::search::Search,
}

/// An operator to select when the timeline arrives: its event name and, for an operator
/// of a delegate, the delegate's instruction id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimelineFocus {
    pub name: String,
    pub instruction_id: Option<i32>,
}

impl TimelineView {
    /// A view waiting for the timeline of data generation `generation`.
    pub fn loading(generation: u64) -> Self {
        TimelineView {
            generation,
            source: None,
            error: None,
            runs: Vec::new(),
            run_pos: 0,
            origin: 0,
            span: (0, 1),
            lanes: Vec::new(),
            lane: 0,
            bar: 0,
            lane_offset: 0,
            view: (0, 1),
            median_pos: None,
            slowest_pos: None,
            focus: None,
            request: None,
            reloading: None,
            search: Default::default(),
        }
    }

    pub fn selected(&self) -> Option<&Bar> {
        self.lanes.get(self.lane)?.bars.get(self.bar)
    }

    /// The dump run shown, if the source is a dump.
    pub fn dump_run(&self) -> Option<(&Timeline, usize)> {
        match self.source.as_deref()? {
            AnyTimeline::Dump(tl) => Some((tl, *self.runs.get(self.run_pos)?)),
            AnyTimeline::Trace(_) => None,
        }
    }
}

/// A timeline arrived for the view waiting on `generation` (a stale or second answer is
/// dropped), or the window of runs it asked for when stepping out of the one it had.
pub fn loaded(view: &mut TimelineView, generation: u64, result: Result<Box<AnyTimeline>, String>) {
    if view.generation != generation {
        return;
    }
    if let Some(run) = view.reloading.take() {
        match result {
            Err(e) => view.error = Some(e),
            Ok(source) => {
                let focus = view.focus.take();
                install(view, Arc::new(*source));
                view.focus = focus;
                if let Some(pos) = view.runs.iter().position(|&r| r == run) {
                    view.run_pos = pos;
                    show_run(view);
                }
            }
        }
        return;
    }
    if view.source.is_some() {
        return;
    }
    match result {
        Err(e) => view.error = Some(e),
        Ok(source) => install(view, Arc::new(*source)),
    }
}

/// The run shown has no events in a timeline that holds a window of runs: the load of a
/// window around it (the view says so meanwhile); None when it is there.
fn load_if_missing(view: &mut TimelineView) -> Option<crate::app::Effect> {
    let (tl, run) = view.dump_run()?;
    if !tl.partial || !tl.runs[run].events.is_empty() {
        return None;
    }
    let request = view.request.clone()?;
    view.reloading = Some(run);
    Some(crate::app::Effect::LoadTimeline {
        request,
        generation: view.generation,
        center: Some(run),
    })
}

/// Show `source`: a dump opens on the run closest to the median `Method::execute`.
pub fn install(view: &mut TimelineView, source: Arc<AnyTimeline>) {
    view.runs = match &*source {
        AnyTimeline::Dump(tl) => (0..tl.runs.len()).filter(|&i| !tl.runs[i].warmup).collect(),
        AnyTimeline::Trace(_) => vec![0],
    };
    view.source = Some(source);
    (view.median_pos, view.slowest_pos) = median_and_slowest(view);
    view.run_pos = view.median_pos.unwrap_or(0);
    show_run(view);
    if let Some(focus) = view.focus.clone() {
        select_focus(view, &focus);
    }
}

/// Select the first bar of the run shown whose event is `focus` (by name, in its
/// delegate when it names one); false when the run has none.
pub fn select_focus(view: &mut TimelineView, focus: &TimelineFocus) -> bool {
    let Some((tl, run)) = view.dump_run() else {
        return false;
    };
    let events = &tl.runs[run].events;
    let is_it = |b: &Bar| {
        events.get(b.event as usize).is_some_and(|e| {
            let entry = tl.entry(e);
            entry.name == focus.name
                && (focus.instruction_id.is_none() || entry.instruction_id == focus.instruction_id)
        })
    };
    let found = view
        .lanes
        .iter()
        .enumerate()
        .find_map(|(l, lane)| lane.bars.iter().position(&is_it).map(|b| (l, b)));
    match found {
        Some((lane, bar)) => {
            view.lane = lane;
            view.bar = bar;
            true
        }
        None => false,
    }
}

/// `1st`, `2nd`, `3rd`, `4th`, `11th`, `22nd`.
pub fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn run_length(tl: &Timeline, run: usize) -> u64 {
    let r = &tl.runs[run];
    r.method_ns(tl)
        .or_else(|| r.span().map(|(a, b)| b - a))
        .unwrap_or(0)
}

/// Position in `view.runs` of the run whose `Method::execute` is closest to the median.
pub fn median_run(view: &TimelineView) -> Option<usize> {
    median_and_slowest(view).0
}

/// Positions in `view.runs` of the run closest to the median `Method::execute` and of the
/// slowest run (the first of equals), from one pass over the runs' lengths.
fn median_and_slowest(view: &TimelineView) -> (Option<usize>, Option<usize>) {
    let Some(AnyTimeline::Dump(tl)) = view.source.as_deref() else {
        return (None, None);
    };
    let lengths: Vec<u64> = view.runs.iter().map(|&r| run_length(tl, r)).collect();
    let closest = crate::profile::median_position(&lengths);
    let slowest = (0..lengths.len()).max_by_key(|&p| (lengths[p], std::cmp::Reverse(p)));
    (closest, slowest)
}

/// Lanes of the run at `view.run_pos`, selection on the first bar, whole run in view.
fn show_run(view: &mut TimelineView) {
    let Some(source) = view.source.clone() else {
        return;
    };
    let (origin, lanes) = match &*source {
        AnyTimeline::Dump(tl) => match view.runs.get(view.run_pos) {
            Some(&run) => dump_lanes(tl, run),
            None => (0, Vec::new()),
        },
        AnyTimeline::Trace(tt) => trace_lanes(tt),
    };
    view.origin = origin;
    let end = lanes
        .iter()
        .flat_map(|l| l.bars.iter().map(|b| b.end))
        .max()
        .unwrap_or(1)
        .max(1);
    view.span = (0, end);
    view.lanes = lanes;
    view.lane = 0;
    view.bar = 0;
    view.lane_offset = 0;
    fit(view);
}

fn fit(view: &mut TimelineView) {
    view.view = (view.span.0, view.span.1.max(view.span.0 + 1));
}

/// Rows inside the timeline pane: border (2), time axis (2), detail (4).
pub const CHROME_ROWS: u16 = 8;

/// How many lanes fit in a timeline drawn in `body`.
pub fn lane_rows(body: ratatui::layout::Rect) -> usize {
    body.height.saturating_sub(CHROME_ROWS).max(1) as usize
}

/// The pane's inner area when drawn in `body` (inside its border).
pub fn inner_area(body: Rect) -> Rect {
    Rect::new(
        body.x.saturating_add(1),
        body.y.saturating_add(1),
        body.width.saturating_sub(2),
        body.height.saturating_sub(2),
    )
}

/// First column and width of the time plot in the pane's inner area (right of the
/// lane labels); shared by rendering and mouse hits.
pub fn plot_columns(view: &TimelineView, inner: Rect) -> (u16, u16) {
    let label_w = view
        .lanes
        .iter()
        .map(|l| l.label.width() + 1)
        .max()
        .unwrap_or(8)
        .clamp(8, 22)
        .min(inner.width as usize / 4) as u16;
    (
        inner.x + label_w,
        inner.width.saturating_sub(label_w).max(1),
    )
}

/// A click selects the bar under the pointer (or the nearest in that lane); the wheel
/// zooms around the selection.
/// `body`: where the timeline is drawn.
pub fn mouse(view: &mut TimelineView, body: Rect, kind: MouseAction, x: u16, y: u16) {
    let rows = lane_rows(body);
    match kind {
        // Zooming never steps to another run, so it asks for no load.
        MouseAction::ScrollUp => {
            command(view, TimelineCommand::ZoomIn, rows);
            return;
        }
        MouseAction::ScrollDown => {
            command(view, TimelineCommand::ZoomOut, rows);
            return;
        }
        MouseAction::Click => {}
    }
    let inner = inner_area(body);
    let first_lane_y = inner.y + 2;
    if y < first_lane_y || usize::from(y - first_lane_y) >= rows {
        return;
    }
    let lane = view.lane_offset + usize::from(y - first_lane_y);
    let (plot_x, plot_w) = plot_columns(view, inner);
    if lane >= view.lanes.len() || x < plot_x || x >= plot_x + plot_w {
        return;
    }
    let (v0, v1) = view.view;
    let w = i128::from(v1.saturating_sub(v0).max(1));
    let at = |c: u16| (i128::from(v0) + i128::from(c) * w / i128::from(plot_w)) as i64;
    let (from, to) = (at(x - plot_x), at(x - plot_x + 1));
    let l = &view.lanes[lane];
    view.bar = l
        .bar_in(from, to.max(from + 1))
        .unwrap_or_else(|| nearest_bar(l, from));
    view.lane = lane;
}

/// Narrowest window: 40 ns (a few columns per ns-scale event).
const MIN_WINDOW: i64 = 40;

/// A timeline key; `visible_lanes`: how many lanes the pane shows. Stepping to a run
/// outside the window of runs loaded asks for that window (the effect returned).
pub fn command(
    view: &mut TimelineView,
    cmd: TimelineCommand,
    visible_lanes: usize,
) -> Option<crate::app::Effect> {
    if view.source.is_none() || view.reloading.is_some() {
        return None;
    }
    let width = view.view.1.saturating_sub(view.view.0).max(1);
    match cmd {
        TimelineCommand::PrevBar => {
            view.bar = view.bar.saturating_sub(1);
            keep_selection_visible(view);
        }
        TimelineCommand::NextBar => {
            let n = view.lanes.get(view.lane).map_or(0, |l| l.bars.len());
            view.bar = (view.bar + 1).min(n.saturating_sub(1));
            keep_selection_visible(view);
        }
        TimelineCommand::LaneUp | TimelineCommand::LaneDown if !view.lanes.is_empty() => {
            let at = view
                .selected()
                .map(|b| b.start.saturating_add(b.end.saturating_sub(b.start) / 2));
            let lane = if cmd == TimelineCommand::LaneUp {
                view.lane.saturating_sub(1)
            } else {
                (view.lane + 1).min(view.lanes.len().saturating_sub(1))
            };
            view.lane = lane;
            view.bar = nearest_bar(&view.lanes[lane], at.unwrap_or(view.view.0));
            keep_selection_visible(view);
        }
        TimelineCommand::ZoomIn => {
            let w = (width / 2).max(MIN_WINDOW);
            let centre = view
                .selected()
                .map(|b| b.start.saturating_add(b.end.saturating_sub(b.start) / 2))
                .unwrap_or(view.view.0.saturating_add(width / 2));
            let start = centre.saturating_sub(w / 2);
            view.view = (start, start.saturating_add(w));
        }
        TimelineCommand::ZoomOut => {
            let span = (view.span.1 - view.span.0).max(1);
            let w = width.saturating_mul(2).min(span.saturating_mul(2));
            let centre = view.view.0.saturating_add(width / 2);
            let start = centre.saturating_sub(w / 2);
            view.view = (start, start.saturating_add(w));
            if w >= span {
                fit(view);
            }
        }
        TimelineCommand::PanLeft | TimelineCommand::PanRight => {
            let d = (width / 4).max(1);
            let d = if cmd == TimelineCommand::PanLeft {
                -d
            } else {
                d
            };
            // Never further than one window beyond the run on either side.
            let lo = view.span.0.saturating_sub(width);
            let hi = view.span.1.saturating_add(width);
            let start = view
                .view
                .0
                .saturating_add(d)
                .clamp(lo, hi.saturating_sub(width).max(lo));
            view.view = (start, start.saturating_add(width));
        }
        TimelineCommand::LaneUp | TimelineCommand::LaneDown => {}
        TimelineCommand::Fit => fit(view),
        TimelineCommand::PrevRun | TimelineCommand::NextRun => {
            let pos = if cmd == TimelineCommand::PrevRun {
                view.run_pos.saturating_sub(1)
            } else {
                (view.run_pos + 1).min(view.runs.len().saturating_sub(1))
            };
            if pos != view.run_pos {
                view.run_pos = pos;
                show_run(view);
                return load_if_missing(view);
            }
        }
        TimelineCommand::SlowestRun => {
            if let Some(p) = view.slowest_pos {
                view.run_pos = p;
                show_run(view);
                return load_if_missing(view);
            }
        }
        TimelineCommand::MedianRun => {
            if let Some(p) = view.median_pos {
                view.run_pos = p;
                show_run(view);
                return load_if_missing(view);
            }
        }
    }
    // Keep the selected lane on screen.
    let rows = visible_lanes.max(1);
    if view.lane < view.lane_offset {
        view.lane_offset = view.lane;
    } else if view.lane >= view.lane_offset + rows {
        view.lane_offset = view.lane + 1 - rows;
    }
    None
}

fn nearest_bar(lane: &Lane, at: i64) -> usize {
    let i = lane.bars.partition_point(|b| b.start <= at);
    // The bar starting at or before `at` if it covers it, else the closer neighbour.
    match i {
        0 => 0,
        i if i >= lane.bars.len() => lane.bars.len() - 1,
        i => {
            let before = &lane.bars[i - 1];
            let after = &lane.bars[i];
            if before.end >= at || at - before.end <= after.start - at {
                i - 1
            } else {
                i
            }
        }
    }
}

/// Pan (never zoom) so the selected bar's start is in view.
pub(super) fn keep_selection_visible(view: &mut TimelineView) {
    let Some(b) = view.selected().copied() else {
        return;
    };
    let w = view.view.1.saturating_sub(view.view.0);
    if b.start < view.view.0 || b.start >= view.view.1 {
        let start = b.start.saturating_sub(w / 8);
        view.view = (start, start.saturating_add(w));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_bar_prefers_the_covering_one() {
        let mut lane = Lane::new(String::new());
        lane.bars = vec![
            Bar {
                start: 0,
                end: 10,
                event: 0,
            },
            Bar {
                start: 20,
                end: 30,
                event: 1,
            },
            Bar {
                start: 100,
                end: 110,
                event: 2,
            },
        ];
        let lane = lane.finish();
        assert_eq!(nearest_bar(&lane, 5), 0);
        assert_eq!(nearest_bar(&lane, 14), 0);
        assert_eq!(nearest_bar(&lane, 16), 1);
        assert_eq!(nearest_bar(&lane, 70), 2);
        assert_eq!(nearest_bar(&lane, 500), 2);
    }

    #[test]
    fn bar_in_finds_starting_and_covering_bars() {
        // A long bar [0,100] and short ones after it (as in a lane with an overlap).
        let mut lane = Lane::new(String::new());
        lane.bars = vec![
            Bar {
                start: 0,
                end: 100,
                event: 0,
            },
            Bar {
                start: 10,
                end: 12,
                event: 1,
            },
            Bar {
                start: 150,
                end: 150,
                event: 2,
            },
        ];
        let lane = lane.finish();
        assert_eq!(lane.bar_in(-10, -5), None);
        assert_eq!(lane.bar_in(0, 5), Some(0));
        // [20,30): bar 1 ended, bar 0 still covers it.
        assert_eq!(lane.bar_in(20, 30), Some(0));
        assert_eq!(lane.bar_in(100, 140), None);
        // A zero-length bar shows in the cell it starts in.
        assert_eq!(lane.bar_in(145, 155), Some(2));
        assert_eq!(lane.bar_in(151, 160), None);
    }
}
