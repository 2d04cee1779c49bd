//! The streamed timeline (two passes over the file, no decoded dump) is the timeline of
//! the decoded dump: on every fixture, for every kind of run selection, each chosen run
//! has the same events, on the same entries, nested the same; runs not chosen carry none.
//! And it holds no event array: a counting allocator measures the live heap's peak.

use cpuprof_testkit::counting_alloc;

#[global_allocator]
static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;
use cpuprof_testkit::etdump_build;

use std::path::{Path, PathBuf};

use counting_alloc::{one_at_a_time, peak_of};
use cpuprof_tui::etdump::TimeUnit;
use cpuprof_tui::profile::warmup::Warmup;
use cpuprof_tui::profile::{
    build_timeline, stream_timeline, RunSelection, Timeline, TimelineEntry, TimelineRun,
};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

/// Every dump a timeline is made of, with its log when there is one.
fn dumps() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["cpu", "real", "compare", "cpu-faults", "etrecord", "fleet"] {
        let Ok(entries) = std::fs::read_dir(fixture(dir)) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "etdp") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A dump's bytes, the dump decoded (ticks in ns) and its log when there is one; None
/// for a dump that does not decode.
fn decoded(
    path: &Path,
) -> Option<(
    Vec<u8>,
    cpuprof_tui::etdump::EtDump,
    Option<cpuprof_tui::runlog::RunLog>,
)> {
    let bytes = std::fs::read(path).unwrap();
    let mut dump = cpuprof_tui::etdump::parse(&bytes).ok()?;
    dump.convert_ticks_to_ns(TimeUnit::Ns);
    let log = std::fs::read(path.with_extension("log"))
        .ok()
        .map(|b| cpuprof_tui::runlog::parse(&b));
    Some((bytes, dump, log))
}

/// A run as what it shows: each event with its entry's content (not its index: entries
/// for scopes are made as runs are walked, so a walk of fewer runs may number them in
/// another order), start, duration and parent.
type Shown = (
    usize,
    bool,
    usize,
    Vec<(TimelineEntry, u64, u64, Option<u32>)>,
);

fn shown(tl: &Timeline, run: &TimelineRun) -> Shown {
    (
        run.index,
        run.warmup,
        run.method,
        run.events
            .iter()
            .map(|e| (tl.entry(e).clone(), e.start_ns, e.dur_ns, e.parent))
            .collect(),
    )
}

fn selections(runs: usize) -> Vec<RunSelection> {
    vec![
        RunSelection::all(),
        RunSelection::kept(),
        RunSelection::runs(1..3, true),
        RunSelection::runs(runs.saturating_sub(2)..usize::MAX, false),
        RunSelection::runs(runs + 5..runs + 9, true),
    ]
}

#[test]
fn streamed_timelines_equal_the_decoded_dumps_on_every_fixture() {
    let _one = one_at_a_time();
    let mut streamed_dumps = 0;
    let mut whole_only = 0;
    let files = dumps();
    assert!(files.len() >= 15, "{} dumps found", files.len());
    for path in files {
        let name = path.display().to_string();
        let Some((bytes, dump, log)) = decoded(&path) else {
            continue;
        };
        for warmup in [Warmup::Stated, Warmup::Auto, Warmup::Runs(1)] {
            let all = build_timeline(&dump, log.as_ref(), warmup, &RunSelection::all());
            for select in selections(all.as_ref().map_or(0, |t| t.runs.len())) {
                let whole = build_timeline(&dump, log.as_ref(), warmup, &select);
                let mut handed = Vec::new();
                let streamed = stream_timeline(
                    &bytes,
                    log.as_ref(),
                    warmup,
                    TimeUnit::Ns,
                    &select,
                    &mut |tl, run| {
                        handed.push(shown(tl, &run));
                        Some(run)
                    },
                );
                let (whole, streamed) = match (whole, streamed) {
                    (Ok(w), Ok(Some(s))) => (w, s),
                    // Not streamed (more than 16 methods, a method's lossy run before
                    // its whole one): the caller decodes the dump whole.
                    (_, Ok(None)) => {
                        whole_only += 1;
                        continue;
                    }
                    (Err(w), Err(s)) => {
                        // The same verdict: no Execute run, or too many warm-ups.
                        assert_eq!(format!("{s:?}"), format!("Build({w:?})"), "{name}");
                        continue;
                    }
                    (w, s) => panic!("{name} {select:?}: {w:?} against {s:?}"),
                };
                streamed_dumps += 1;
                let what = format!("{name} {warmup:?} {select:?}");
                assert_eq!(whole.runs.len(), streamed.runs.len(), "{what}");
                assert_eq!(
                    (&whole.methods, whole.warmup, whole.negative_durations),
                    (
                        &streamed.methods,
                        streamed.warmup,
                        streamed.negative_durations
                    ),
                    "{what}"
                );
                assert_eq!(streamed.unmatched_events, 0, "{what}");
                let mut chosen = 0;
                for (w, s) in whole.runs.iter().zip(&streamed.runs) {
                    assert_eq!(shown(&whole, w), shown(&streamed, s), "{what}");
                    if select.wants(w.index, w.warmup) {
                        chosen += 1;
                        assert!(!s.events.is_empty(), "{what}: run {}", s.index);
                    } else {
                        assert!(s.events.is_empty(), "{what}: run {}", s.index);
                    }
                }
                // Each chosen run was handed over once, in run order, as kept.
                assert_eq!(handed.len(), chosen, "{what}");
                let kept: Vec<Shown> = streamed
                    .runs
                    .iter()
                    .filter(|r| select.wants(r.index, r.warmup))
                    .map(|r| shown(&streamed, r))
                    .collect();
                assert_eq!(handed, kept, "{what}");
                // Every run chosen: the same timeline, entry for entry.
                if select == RunSelection::all() {
                    assert_eq!(whole, streamed, "{what}");
                }
            }
        }
    }
    eprintln!("{streamed_dumps} streamed timelines compared, {whole_only} left to the whole dump");
    assert!(streamed_dumps >= 100, "{streamed_dumps}");
    // Every fixture streams, those of two and three methods included.
    assert_eq!(whole_only, 0);
}

/// Peak heap of making the timeline of `runs` runs of the 3-operator XNNPACK model (5
/// events a run): decoded whole, streamed with each run let go once seen (what folded
/// export does), and streamed keeping 2 runs (with the largest single allocation then).
fn peaks(runs: usize) -> (usize, usize, usize, usize) {
    let bytes = etdump_build::build(0, &etdump_build::xnnpack_like(runs));
    let (whole_peak, whole) = peak_of(|| {
        let dump = cpuprof_tui::etdump::parse(&bytes).unwrap();
        build_timeline(&dump, None, Warmup::Runs(0), &RunSelection::all()).unwrap()
    });
    assert_eq!(whole.runs.len(), runs);
    drop(whole);
    let mut seen = 0usize;
    let (streamed_peak, streamed) = peak_of(|| {
        stream_timeline(
            &bytes,
            None,
            Warmup::Runs(0),
            TimeUnit::Ns,
            &RunSelection::all(),
            &mut |_, run| {
                seen += run.events.len();
                None
            },
        )
        .unwrap()
        .unwrap()
    });
    assert_eq!(seen, 5 * runs);
    assert!(streamed.runs.iter().all(|r| r.events.is_empty()));
    drop(streamed);
    let (two_peak, two) = peak_of(|| {
        stream_timeline(
            &bytes,
            None,
            Warmup::Runs(0),
            TimeUnit::Ns,
            &RunSelection::runs(runs / 2..runs / 2 + 2, false),
            &mut |_, run| Some(run),
        )
        .unwrap()
        .unwrap()
    });
    let largest = counting_alloc::LARGEST.load(std::sync::atomic::Ordering::Relaxed);
    let kept: usize = two.runs.iter().map(|r| r.events.len()).sum();
    assert_eq!(kept, 10);
    (whole_peak, streamed_peak, two_peak, largest)
}

#[test]
fn a_streamed_timeline_holds_no_event_array() {
    let _one = one_at_a_time();
    // What more runs add to the peak, per event added: the decoder's chunks in flight
    // are a fixed amount (2 MiB of file each, a few per core), so the growth is what
    // is kept per event. Decoded whole: the event array (56 bytes an event) and the
    // timeline's events (32). Streamed: the samples (4 bytes an event), the placements
    // of the runs chosen (8) and each run's listing (48 bytes a run of 5 events), vectors
    // up to twice their length while they grow; never an event array (56).
    let (small, big) = (60_000, 120_000);
    let a = peaks(small);
    let b = peaks(big);
    let added = (5 * (big - small)) as f64;
    let per_event = |x: usize, y: usize| (y as f64 - x as f64) / added;
    let whole = per_event(a.0, b.0);
    let streamed = per_event(a.1, b.1);
    eprintln!(
        "peak heap, {small} -> {big} runs: decoded whole {} -> {} ({whole:.1} B/event), \
         streamed {} -> {} ({streamed:.1} B/event); two runs {} -> {}, largest allocation {}",
        a.0, b.0, a.1, b.1, a.2, b.2, b.3
    );
    let event = std::mem::size_of::<cpuprof_tui::etdump::ProfileEvent>() as f64;
    assert!(
        whole > event,
        "decoded whole grows {whole:.1} bytes an event, under the event array's {event}: \
         the measure is broken"
    );
    assert!(streamed < event, "streamed: {streamed:.1} bytes an event");
    // Two runs: what the timeline keeps grows by the listing of each run only (the
    // placements of the runs not chosen are left out: `profile::stream`'s unit test;
    // the peak here moves by a chunk or two with the threads' timing).
    assert!(
        b.2 < b.1,
        "two runs of {big}: {} bytes at the peak, every run {}",
        b.2,
        b.1
    );
}

/// With `max_events`, a window of consecutive wanted runs carries the events (as many
/// runs as the budget holds at the dump's average events per run), around the center
/// asked for or the median run; each of them as the decoded dump's timeline has it, and
/// every run ranked by its own Method::execute.
#[test]
fn a_budget_keeps_a_window_of_runs() {
    let _one = one_at_a_time();
    let mut windows = 0;
    for path in dumps() {
        let name = path.display().to_string();
        let Some((bytes, dump, log)) = decoded(&path) else {
            continue;
        };
        let Ok(whole) = build_timeline(&dump, log.as_ref(), Warmup::Stated, &RunSelection::all())
        else {
            continue;
        };
        let execute: Vec<_> = dump.blocks.iter().filter(|b| b.name == "Execute").collect();
        let per_run =
            (execute.iter().map(|b| b.events.len()).sum::<usize>() / execute.len()).max(1);
        let kept: Vec<usize> = whole.kept_runs().map(|r| r.index).collect();
        // The median run, by the rule the view opens on (lower middle, closest, first).
        let lengths: Vec<u64> = kept
            .iter()
            .map(|&r| whole.runs[r].method_ns(&whole).unwrap_or(0))
            .collect();
        let mut sorted = lengths.clone();
        sorted.sort();
        let median = sorted[(sorted.len() - 1) / 2];
        let median_run = kept[(0..kept.len())
            .min_by_key(|&p| lengths[p].abs_diff(median))
            .unwrap()];
        for fit in [1usize, 3] {
            for center in [None, Some(kept[0]), kept.last().copied()] {
                let select = RunSelection {
                    max_events: Some(fit * per_run),
                    center,
                    ..RunSelection::kept()
                };
                let Some(tl) = stream_timeline(
                    &bytes,
                    log.as_ref(),
                    Warmup::Stated,
                    TimeUnit::Ns,
                    &select,
                    &mut |_, run| Some(run),
                )
                .unwrap() else {
                    break;
                };
                let what = format!("{name} fit {fit} center {center:?}");
                let walked: Vec<usize> = tl
                    .runs
                    .iter()
                    .filter(|r| !r.events.is_empty())
                    .map(|r| r.index)
                    .collect();
                assert_eq!(tl.partial, kept.len() > fit, "{what}");
                assert_eq!(walked.len(), fit.min(kept.len()), "{what}");
                // Consecutive kept runs, holding the center.
                let at = kept.iter().position(|&r| r == walked[0]).unwrap();
                assert_eq!(&kept[at..at + walked.len()], &walked[..], "{what}");
                let target = center.unwrap_or(median_run);
                assert!(
                    walked.contains(&target),
                    "{what}: {walked:?} without {target}"
                );
                for r in &tl.runs {
                    assert_eq!(
                        r.method_ns(&tl),
                        whole.runs[r.index].method_ns(&whole),
                        "{what} run {}",
                        r.index
                    );
                    if !r.events.is_empty() {
                        assert_eq!(shown(&tl, r), shown(&whole, &whole.runs[r.index]), "{what}");
                    }
                }
                windows += 1;
            }
        }
    }
    assert!(windows >= 60, "{windows}");
}
