//! Timelines for export and the explorer's timeline view: the per-event timeline of a dump
//! (built in `profile::timeline` from the profile's own attribution) or the paired calls
//! of a trace, loaded from files, and the two layout rules every consumer shares:
//! which events share a track ([`assign_tracks`]) and each event's self time with children
//! clipped into their parent ([`self_times`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::Path;

use crate::etdump::{self, EtDumpError};
use crate::profile::{
    build_timeline, default_log_for, stream_timeline, DumpTimelineError, ProfileRequest,
    RunSelection, Timeline, TimelineRun,
};
use crate::runlog;
use crate::trace::{self, IntervalSet};

/// A dump's timeline or a trace's calls.
#[derive(Debug, Clone)]
pub enum AnyTimeline {
    Dump(Timeline),
    Trace(TraceTimeline),
}

/// The paired calls of a trace, with each call's depth on its thread.
#[derive(Debug, Clone)]
pub struct TraceTimeline {
    pub set: IntervalSet,
    /// Per interval: 0 for a top-level call.
    pub depth: Vec<u32>,
}

impl TraceTimeline {
    pub fn new(set: IntervalSet) -> Self {
        let mut depth = vec![0u32; set.intervals.len()];
        for (i, iv) in set.intervals.iter().enumerate() {
            // Parents precede children (IntervalSet invariant), so their depth is known.
            if let Some(p) = iv.parent.filter(|&p| (p as usize) < i) {
                depth[i] = depth[p as usize].saturating_add(1);
            }
        }
        TraceTimeline { set, depth }
    }
}

/// Why a timeline could not be loaded; the text names the file.
pub type TimelineError = String;

/// The timeline of the dump `request` names, the runs `select` picks with their events.
/// Without `request.log`, the log beside the dump is read when `default_log` is set (as
/// the explorer does); `--no-log` reads none. The dump and the log are read once through
/// [`crate::input`] (pipes and FIFOs work), and a log beside the dump that cannot be read
/// is left out, as when profiling.
pub fn load_dump_timeline(
    request: &ProfileRequest,
    default_log: bool,
    select: &RunSelection,
) -> Result<Timeline, TimelineError> {
    load_dump_timeline_with(request, default_log, select, &mut |_, run| Some(run))
}

/// [`load_dump_timeline`], handing each chosen run to `each` in run order as it is made;
/// the timeline keeps what `each` returns (None: the run's events are let go). A dump of
/// one method is read in two streamed passes ([`stream_timeline`]), so memory is what
/// `each` keeps, not the file; any other is decoded whole.
pub fn load_dump_timeline_with(
    request: &ProfileRequest,
    default_log: bool,
    select: &RunSelection,
    each: &mut dyn FnMut(&Timeline, TimelineRun) -> Option<TimelineRun>,
) -> Result<Timeline, TimelineError> {
    let dump_name = crate::input::display_name(&request.etdump);
    // Mapped like the profile's load (a gigabyte dump is not copied again).
    let input = match request.embedded {
        Some(_) => None,
        None => Some(
            crate::input::read_input_mapped(&request.etdump, request.read.max_input_size)
                .map_err(|e| format!("{dump_name}: {e}"))?,
        ),
    };
    let bytes: &[u8] = match (&request.embedded, &input) {
        (Some(e), _) => e.etdump,
        (None, Some(i)) => &i.bytes,
        (None, None) => &[],
    };
    let log: Result<Option<runlog::RunLog>, String> = match (&request.embedded, &request.log) {
        _ if request.no_log => Ok(None),
        (Some(e), _) => Ok(Some(runlog::parse(e.log))),
        (None, Some(path)) => crate::input::read_input(path, request.read.max_input_size)
            .map(|input| Some(runlog::parse(&input.bytes)))
            .map_err(|e| format!("{}: {e}", crate::input::display_name(path))),
        (None, None) if !default_log || crate::input::is_stdin(&request.etdump) => Ok(None),
        (None, None) => Ok(default_log_for(&request.etdump)
            .and_then(|path| crate::input::read_input(&path, request.read.max_input_size).ok())
            .map(|input| runlog::parse(&input.bytes))),
    };
    let model_file = crate::profile::model_file_given_as_dump(bytes);
    let dump_error = |e: EtDumpError| match e {
        EtDumpError::Io(msg) => format!("{dump_name}: {}", io_words(&msg)),
        EtDumpError::NotEtDump(_) if model_file.is_some() => {
            format!("{dump_name}: {}", model_file.unwrap_or_default())
        }
        other => format!("{dump_name}: {other}"),
    };
    // A map of a file truncated or rewritten meanwhile: what was decoded is not the dump.
    let unchanged = || match input.as_ref().map(|i| i.check_unchanged()) {
        Some(Err(e)) => Err(format!("{dump_name}: {e}")),
        _ => Ok(()),
    };
    let warmup = request.warmup_setting();
    let unit = request.read.time_unit;
    // The dump's verdict comes before the log's, as when the dump was decoded first.
    let log = match log {
        Ok(log) => log,
        Err(log_error) => {
            let parsed = etdump::parse(bytes);
            unchanged()?;
            parsed.map_err(dump_error)?;
            return Err(log_error);
        }
    };
    let streamed = stream_timeline(bytes, log.as_ref(), warmup, unit, select, each);
    unchanged()?;
    match streamed {
        Ok(Some(tl)) => return Ok(tl),
        Ok(None) => {}
        Err(DumpTimelineError::Dump(e)) => return Err(dump_error(e)),
        Err(DumpTimelineError::Build(e)) => return Err(format!("{dump_name}: {e}")),
    }
    let parsed = etdump::parse(bytes);
    unchanged()?;
    let mut dump = parsed.map_err(dump_error)?;
    // `--time-unit`: the same ns ticks as the profile.
    dump.convert_ticks_to_ns(unit);
    let mut tl = build_timeline(&dump, log.as_ref(), warmup, select)
        .map_err(|e| format!("{dump_name}: {e}"))?;
    drop(dump);
    for i in 0..tl.runs.len() {
        if !select.wants(tl.runs[i].index, tl.runs[i].warmup) {
            continue;
        }
        let run = &mut tl.runs[i];
        let taken = TimelineRun {
            events: std::mem::take(&mut run.events),
            ..*run
        };
        let bare = TimelineRun {
            events: Vec::new(),
            ..taken
        };
        let kept = each(&tl, taken);
        tl.runs[i] = kept.unwrap_or(bare);
    }
    Ok(tl)
}

fn io_words(msg: &str) -> String {
    if msg.contains("No such file") {
        "no such file".to_string()
    } else {
        msg.to_string()
    }
}

/// The paired calls of the trace at `path`, at most `limit` bytes of any one input read
/// (`--max-input-size`).
pub fn load_trace_timeline(path: &Path, limit: u64) -> Result<TraceTimeline, TimelineError> {
    let name = crate::input::display_name(path);
    // A CTF trace directory is read by the native reader; a file is read once
    // (`-`, FIFOs and process substitutions work as for `report`).
    let set = if path.is_dir() {
        trace::ctf::read_dir_intervals(path, limit).map_err(|e| format!("{name}: {e}"))?
    } else {
        let input = crate::input::read_input(path, limit).map_err(|e| format!("{name}: {e}"))?;
        trace::read_intervals(&input.bytes, limit).map_err(|e| format!("{name}: {e}"))?
    };
    Ok(TraceTimeline::new(set))
}

/// One event for the layout rules: a closed interval in ns and its parent (which comes
/// before it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: i64,
    pub end: i64,
    pub parent: Option<u32>,
}

/// Why an event left its parent's track.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moved {
    /// It starts before or ends after its parent.
    OutsideParent,
    /// It overlaps an earlier sibling, or would nest in it (a zero-length event starting
    /// with a longer sibling: a flame chart would draw it as that sibling's child).
    OverlapsSibling,
    /// Its parent was moved.
    ParentMoved,
}

impl Moved {
    pub fn label(self) -> &'static str {
        match self {
            Moved::OutsideParent => "outside_parent",
            Moved::OverlapsSibling => "overlaps_sibling",
            Moved::ParentMoved => "parent_moved",
        }
    }
}

/// Track of each span: 0 is the main track, where every span lies inside its parent and
/// after its earlier siblings (so the main track nests properly); spans that do not fit
/// go to tracks 1.., filled in start order so that spans sharing a track are disjoint.
/// Nothing is dropped and no time is changed.
pub fn assign_tracks(spans: &[Span]) -> Vec<(u32, Option<Moved>)> {
    let n = spans.len();
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut roots: Vec<u32> = Vec::new();
    for (i, s) in spans.iter().enumerate() {
        match s.parent {
            Some(p) if (p as usize) < i => children[p as usize].push(i as u32),
            _ => roots.push(i as u32),
        }
    }
    let by_time = |a: &u32, b: &u32| {
        let (x, y) = (&spans[*a as usize], &spans[*b as usize]);
        x.start.cmp(&y.start).then(y.end.cmp(&x.end)).then(a.cmp(b))
    };
    let mut out: Vec<(u32, Option<Moved>)> = vec![(0, None); n];
    let place_group = |group: &mut Vec<u32>,
                       bound: Option<(i64, i64)>,
                       parent_moved: bool,
                       out: &mut Vec<(u32, Option<Moved>)>| {
        group.sort_by(by_time);
        let mut cursor = bound.map_or(i64::MIN, |b| b.0);
        for &c in group.iter() {
            let s = &spans[c as usize];
            let moved = if parent_moved {
                Some(Moved::ParentMoved)
            } else if bound.is_some_and(|(lo, hi)| s.start < lo || s.end > hi) || s.end < s.start {
                Some(Moved::OutsideParent)
            } else if s.start < cursor {
                Some(Moved::OverlapsSibling)
            } else {
                None
            };
            if moved.is_none() {
                cursor = s.end;
            }
            out[c as usize] = (0, moved);
        }
    };
    place_group(&mut roots, None, false, &mut out);
    for i in 0..n {
        if children[i].is_empty() {
            continue;
        }
        let mut group = std::mem::take(&mut children[i]);
        let moved = out[i].1.is_some();
        place_group(
            &mut group,
            Some((spans[i].start, spans[i].end)),
            moved,
            &mut out,
        );
    }
    // Moved spans: interval partitioning in start order (a min-heap of track ends), so
    // spans sharing an extra track are disjoint and hostile overlaps cost n log n.
    let mut moved: Vec<u32> = (0..n as u32)
        .filter(|&i| out[i as usize].1.is_some())
        .collect();
    moved.sort_by(by_time);
    let mut free: BinaryHeap<Reverse<(i64, u32)>> = BinaryHeap::new();
    let mut tracks: u32 = 0;
    for i in moved {
        let s = &spans[i as usize];
        let end = s.end.max(s.start);
        let track = match free.peek() {
            Some(Reverse((e, t))) if *e <= s.start => {
                let t = *t;
                free.pop();
                t
            }
            _ => {
                tracks += 1;
                tracks
            }
        };
        free.push(Reverse((end, track)));
        out[i as usize].0 = track;
    }
    out
}

/// Self time of each span: its length minus its children's, where each child is first
/// clipped into its parent (as clipped itself) and after its earlier siblings. In integer
/// ns, so the self times of a tree add up exactly to its root's length; values are never
/// negative.
pub fn self_times(spans: &[Span]) -> Vec<u64> {
    let n = spans.len();
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (i, s) in spans.iter().enumerate() {
        match s.parent {
            Some(p) if (p as usize) < i => children[p as usize].push(i as u32),
            _ => roots.push(i as u32),
        }
    }
    // Clipped interval of each span; roots keep theirs.
    let mut clipped: Vec<(i64, i64)> = spans
        .iter()
        .map(|s| (s.start, s.end.max(s.start)))
        .collect();
    let mut own: Vec<u64> = vec![0; n];
    for i in 0..n {
        let (lo, hi) = clipped[i];
        let mut group = std::mem::take(&mut children[i]);
        group.sort_by(|a, b| {
            let (x, y) = (&spans[*a as usize], &spans[*b as usize]);
            x.start.cmp(&y.start).then(y.end.cmp(&x.end)).then(a.cmp(b))
        });
        let mut cursor = lo;
        let mut covered: u64 = 0;
        for c in group {
            let s = &spans[c as usize];
            let start = s.start.clamp(cursor, hi);
            let end = s.end.clamp(start, hi);
            clipped[c as usize] = (start, end);
            covered = covered.saturating_add(span_len(start, end));
            cursor = end;
        }
        own[i] = span_len(lo, hi).saturating_sub(covered);
    }
    own
}

/// `end - start` for `end >= start`, without overflow on hostile extremes.
pub fn span_len(start: i64, end: i64) -> u64 {
    (i128::from(end) - i128::from(start)).clamp(0, i128::from(u64::MAX)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(start: i64, end: i64, parent: Option<u32>) -> Span {
        Span { start, end, parent }
    }

    #[test]
    fn tracks_keep_nesting_and_move_what_does_not_fit() {
        // 0: root [0,100]; 1: child [10,40]; 2: child [30,60] overlaps 1;
        // 3: child [90,120] leaves the root; 4: grandchild of 2 [35,40].
        let spans = [
            span(0, 100, None),
            span(10, 40, Some(0)),
            span(30, 60, Some(0)),
            span(90, 120, Some(0)),
            span(35, 40, Some(2)),
        ];
        let t = assign_tracks(&spans);
        assert_eq!(t[0], (0, None));
        assert_eq!(t[1], (0, None));
        assert_eq!(t[2].1, Some(Moved::OverlapsSibling));
        assert_eq!(t[3].1, Some(Moved::OutsideParent));
        assert_eq!(t[4].1, Some(Moved::ParentMoved));
        // Extra tracks hold disjoint spans: 2 [30,60] on track 1, 4 [35,40] overlaps it
        // (track 2), 3 [90,120] starts after both end and takes the track that freed
        // first (track 2, free since 40).
        assert_eq!(t[2].0, 1);
        assert_eq!(t[4].0, 2);
        assert_eq!(t[3].0, 2);
    }

    #[test]
    fn self_times_add_up_to_the_root() {
        // Root [0,100]: children [10,40] and [30,60] (clipped to [40,60]) and [90,120]
        // (clipped to [90,100]); grandchild [35,40] under [30,60] clipped to [40,40].
        // Self: root 100-30-20-10 = 40; 30; 20; 10; 0. Sum = 100.
        let spans = [
            span(0, 100, None),
            span(10, 40, Some(0)),
            span(30, 60, Some(0)),
            span(90, 120, Some(0)),
            span(35, 40, Some(2)),
        ];
        assert_eq!(self_times(&spans), vec![40, 30, 20, 10, 0]);
    }
}
