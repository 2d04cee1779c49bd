//! The timeline view (`t`): snapshots at 80x24 and 160x48 of the demo, a real XNNPACK dump
//! and a PyTorch trace, and the pure behaviour of its keys (default run, run stepping,
//! zoom around the selection, lane moves), checked against the fixtures' truth.

use crate::support::explorer::ExplorerOf;
use std::sync::atomic::AtomicBool;

use cpuprof_tui::app::{update, Action, AppState, Effect};
use cpuprof_tui::profile::ProfileRequest;
use cpuprof_tui::timeline::AnyTimeline;
use cpuprof_tui::views::timeline::state::{self as timeline, TimelineView};
use cpuprof_tui::worker::load_explorer_data;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::support::explorer;
use explorer::{press as key, screen, SIZES};

/// The explorer on `request`, then `t` with its timeline loaded as the shell would.
fn with_timeline(request: ProfileRequest, size: (u16, u16)) -> AppState {
    let mut s = explorer::opened_request(request, size);
    let asked = explorer::ask_timeline(&mut s);
    // While loading, the pane says so.
    assert!(screen(&s).contains("loading the timeline"));
    explorer::timeline_arrives(&mut s, asked);
    s
}

fn view(s: &AppState) -> &TimelineView {
    s.timeline().expect("timeline open")
}

fn snap(name: &str, size: (u16, u16), s: &AppState) {
    insta::assert_snapshot!(format!("{name}_{}x{}", size.0, size.1), screen(s));
}

fn truth(rel: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(format!("fixtures/{rel}")).unwrap()).unwrap()
}

/// The demo's kept runs (wide_browse, 5 warm-up) from its truth file: each one's
/// Method::execute in ns, and the positions of the run closest to their median (the lower
/// median of the 30: what the view aims at) and of the slowest.
fn demo_runs() -> (Vec<i64>, usize, usize) {
    let t = truth("cpu/wide_browse.truth.json");
    let samples: Vec<i64> = t["method_execute"]["samples_ns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    let mut sorted = samples.clone();
    sorted.sort();
    let median = sorted[(sorted.len() - 1) / 2];
    let closest = (0..samples.len())
        .min_by_key(|&i| (samples[i] - median).abs())
        .unwrap();
    let slowest = (0..samples.len()).max_by_key(|&i| samples[i]).unwrap();
    (samples, closest, slowest)
}

/// The demo (wide_browse, 5 warm-up): opens on the run closest to the median
/// Method::execute of the truth file, steps runs, jumps to the slowest.
#[test]
fn demo_timeline_runs_and_zoom() {
    let (samples, closest, slowest) = demo_runs();

    for size in SIZES {
        let mut s = with_timeline(ProfileRequest::demo(None), size);
        let v = view(&s);
        // Run indexes count warm-ups: kept run k is Execute run 5 + k.
        assert_eq!(v.runs[v.run_pos], 5 + closest, "median run");
        let AnyTimeline::Dump(tl) = v.source.as_deref().unwrap() else {
            panic!()
        };
        let run = &tl.runs[v.runs[v.run_pos]];
        assert_eq!(run.method_ns(tl), Some(samples[closest] as u64));
        // The first lane is Method::execute, its one bar spanning the run.
        assert_eq!(v.lanes[0].label, "Method::execute");
        assert_eq!(v.lanes[0].bars.len(), 1);
        snap("timeline_demo", size, &s);

        key(&mut s, 'n');
        assert_eq!(view(&s).runs[view(&s).run_pos], 5 + closest + 1);
        key(&mut s, 'p');
        key(&mut s, 'p');
        assert_eq!(view(&s).runs[view(&s).run_pos], 5 + closest - 1);
        key(&mut s, 'W');
        assert_eq!(view(&s).runs[view(&s).run_pos], 5 + slowest, "slowest run");
        key(&mut s, '~');
        assert_eq!(view(&s).runs[view(&s).run_pos], 5 + closest);

        // Down to the plan steps of the first delegate, a few steps right, zoom in twice:
        // the window halves each time and keeps the selected bar inside.
        for c in ['j', 'j', 'l'] {
            key(&mut s, c);
        }
        let before = view(&s).view;
        key(&mut s, 'z');
        key(&mut s, 'z');
        let v = view(&s);
        let w = v.view.1 - v.view.0;
        assert_eq!(w, (before.1 - before.0) / 4);
        let b = v.selected().unwrap();
        let centre = b.start + (b.end - b.start) / 2;
        assert!(v.view.0 <= centre && centre <= v.view.1);
        assert!(
            v.lanes[v.lane].label.contains("plan steps"),
            "{}",
            v.lanes[v.lane].label
        );
        snap("timeline_demo_zoomed", size, &s);
        key(&mut s, 'Z');
        key(&mut s, 'Z');
        key(&mut s, 'Z');
        assert_eq!(view(&s).view, view(&s).span, "zoomed out to the whole run");
        // `t` closes it, back to the panes.
        key(&mut s, 't');
        assert!(s.timeline().is_none());
    }
}

/// A real XNNPACK dump (no log): method, the delegate call and its three operators.
#[test]
fn real_dump_timeline() {
    for size in SIZES {
        let mut s = with_timeline(
            ProfileRequest::new("fixtures/real/mlp_xnnpack.etdp".into(), None, 0),
            size,
        );
        let labels: Vec<&str> = view(&s).lanes.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(labels[0], "Method::execute");
        assert!(
            labels.iter().any(|l| l.starts_with("delegate #")),
            "{labels:?}"
        );
        snap("timeline_mlp_xnnpack", size, &s);
        // The operators lane: select and show a GEMM's shapes.
        for _ in 0..labels.len() {
            key(&mut s, 'j');
        }
        let text = screen(&s);
        assert!(text.contains("inputs"), "{text}");
    }
}

/// The THAPI trace: one lane per thread and depth, the whole trace in one view.
#[test]
fn trace_timeline() {
    for size in SIZES {
        let mut s = with_timeline(
            ProfileRequest::new("fixtures/thapi/babeltrace2_pretty.txt".into(), None, 0),
            size,
        );
        let v = view(&s);
        let AnyTimeline::Trace(tt) = v.source.as_deref().unwrap() else {
            panic!()
        };
        // Every paired call is a bar (35 closed + 1 failed, as the fixture README says).
        assert_eq!(v.lanes.iter().map(|l| l.bars.len()).sum::<usize>(), 36);
        assert_eq!(tt.set.intervals.len(), 36);
        snap("timeline_thapi", size, &s);
        // Stepping runs does nothing on a trace, and does not panic.
        key(&mut s, 'n');
        key(&mut s, 'W');
        key(&mut s, 'z');
        key(&mut s, 'j');
        screen(&s);
    }
}

/// A timeline that cannot be loaded shows its error in the pane; Esc closes it.
#[test]
fn load_error_is_shown() {
    let mut s = AppState::new(80, 24);
    let request = ProfileRequest::demo(None);
    let effects = s.load(request.clone());
    let Some(Effect::Load { generation, .. }) = effects.first().cloned() else {
        unreachable!()
    };
    let data = load_explorer_data(&request, &mut |_| {}, &AtomicBool::new(false)).unwrap();
    update(
        &mut s,
        Action::Loaded {
            generation,
            result: Ok(Box::new(data)),
        },
    );
    let effects = key(&mut s, 't');
    let Some(Effect::LoadTimeline { generation, .. }) = effects.first().cloned() else {
        panic!()
    };
    // A stale result is ignored; the current one's error is shown.
    update(
        &mut s,
        Action::TimelineLoaded {
            generation: generation + 7,
            result: Err("x.etdp: stale".into()),
        },
    );
    assert!(view(&s).error.is_none());
    update(
        &mut s,
        Action::TimelineLoaded {
            generation,
            result: Err("x.etdp: not an ETDump".into()),
        },
    );
    assert!(screen(&s).contains("x.etdp: not an ETDump"));
    update(
        &mut s,
        Action::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)),
    );
    assert!(s.timeline().is_none());
}

mod keys_never_panic {
    use super::*;
    use cpuprof_tui::profile::{Timeline, TimelineRun};
    use proptest::prelude::*;
    use std::sync::Arc;

    const KEYS: &[char] = &[
        'h', 'l', 'j', 'k', 'z', 'Z', '<', '>', ',', '.', '0', 'p', 'n', 'W', '~', '?',
    ];

    fn check(s: &AppState) {
        let v = view(s);
        assert!(v.view.0 < v.view.1, "{:?}", v.view);
        assert!(v.lanes.is_empty() || v.lane < v.lanes.len());
        if let Some(l) = v.lanes.get(v.lane) {
            assert!(l.bars.is_empty() || v.bar < l.bars.len());
        }
    }

    /// A run with no events at all: every key is harmless.
    #[test]
    fn empty_run() {
        let mut s = AppState::new(80, 24);
        let mut v = TimelineView::loading(0);
        let tl = Timeline {
            runs: vec![TimelineRun {
                index: 0,
                warmup: false,
                method: 0,
                events: Vec::new(),
                execute_ns: None,
            }],
            ..Timeline::default()
        };
        timeline::install(&mut v, Arc::new(AnyTimeline::Dump(tl)));
        s.views.push(Box::new(v));
        for &c in KEYS {
            key(&mut s, c);
            check(&s);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn random_keys_keep_the_view_valid(
            keys in prop::collection::vec(prop::sample::select(KEYS), 1..60),
            trace in any::<bool>(),
        ) {
            let request = if trace {
                ProfileRequest::new("fixtures/torch/cnn_infer.json".into(), None, 0)
            } else {
                ProfileRequest::demo(None)
            };
            let mut s = with_timeline(request, (100, 30));
            for c in keys {
                key(&mut s, c);
                if s.help_open() {
                    key(&mut s, '?');
                }
                check(&s);
                screen(&s);
            }
        }
    }
}

/// Watching a directory: `t` asks for the timeline of the run on screen, and a newer
/// profile replacing it closes the timeline (it showed the previous one).
#[test]
fn watch_mode_timeline_follows_the_run_on_screen() {
    use cpuprof_tui::watch::{DumpPair, WatchEvent};
    use std::time::{Duration, UNIX_EPOCH};

    let mut s = AppState::new(100, 30);
    s.start_watch("fixtures/cpu", 3);
    let ready = |s: &mut AppState, path: &str, secs: u64| {
        update(
            s,
            Action::Watch {
                event: WatchEvent::Ready(DumpPair {
                    etdump: path.into(),
                    log: Some(std::path::PathBuf::from(path).with_extension("log")),
                    modified: UNIX_EPOCH + Duration::from_secs(secs),
                    size: 100,
                }),
                at: UNIX_EPOCH + Duration::from_secs(secs + 1),
            },
        )
    };
    let answer = |s: &mut AppState, effects: Vec<Effect>| {
        for e in effects {
            if let Effect::Load {
                request,
                generation,
            } = e
            {
                let data =
                    load_explorer_data(&request, &mut |_| {}, &AtomicBool::new(false)).unwrap();
                update(
                    s,
                    Action::Loaded {
                        generation,
                        result: Ok(Box::new(data)),
                    },
                );
            }
        }
    };
    let effects = ready(&mut s, "fixtures/cpu/cnn2_basic.etdp", 10);
    answer(&mut s, effects);
    assert!(s.session.data.is_some());
    let effects = key(&mut s, 't');
    let Some(Effect::LoadTimeline { request, .. }) = effects.first().cloned() else {
        panic!("t asks for the timeline: {effects:?}")
    };
    assert_eq!(
        request.etdump,
        std::path::PathBuf::from("fixtures/cpu/cnn2_basic.etdp")
    );
    assert_eq!(request.warmup, 3);
    assert!(s.timeline().is_some());
    let effects = ready(&mut s, "fixtures/cpu/mlp_basic.etdp", 20);
    answer(&mut s, effects);
    assert!(
        s.timeline().is_none(),
        "a new profile on screen closes the timeline"
    );
}

/// Mouse: a click selects the bar under the pointer, the wheel zooms. At 160x48 the
/// pane's inner area starts at (1, 4) (under the header's 3 rows); lanes start on row 6; labels take 16 columns
/// ("Method::execute" + 1), so the plot starts at column 17.
#[test]
fn mouse_selects_and_zooms() {
    use cpuprof_tui::app::MouseAction;
    let mut s = with_timeline(ProfileRequest::demo(None), (160, 48));
    // Row 8 is lane 2 (the first delegate's plan steps). The plot is 158 - 16 = 142
    // cells for the 1.113 ms run, ~7.8 µs a cell; column 18 is cell 1, [7.8, 15.7) µs,
    // where the first step starts (9.6 µs into the run, as the export shows).
    update(
        &mut s,
        Action::Mouse {
            kind: MouseAction::Click,
            x: 18,
            y: 8,
        },
    );
    let v = view(&s);
    assert_eq!(v.lane, 2);
    assert!(v.lanes[2].label.contains("plan steps"));
    assert_eq!(v.bar, 0);
    // A click on the last plot column of the method lane keeps the one method bar.
    update(
        &mut s,
        Action::Mouse {
            kind: MouseAction::Click,
            x: 158,
            y: 6,
        },
    );
    assert_eq!((view(&s).lane, view(&s).bar), (0, 0));
    // Clicks outside the plot change nothing.
    update(
        &mut s,
        Action::Mouse {
            kind: MouseAction::Click,
            x: 3,
            y: 9,
        },
    );
    assert_eq!(view(&s).lane, 0);
    let before = view(&s).view;
    update(
        &mut s,
        Action::Mouse {
            kind: MouseAction::ScrollUp,
            x: 80,
            y: 10,
        },
    );
    let after = view(&s).view;
    assert_eq!(after.1 - after.0, (before.1 - before.0) / 2);
}

/// `t` on an operator row of the table opens the timeline on that operator's bar in the
/// median run (wide_browse: kept run k is Execute run 5 + k, the median run as in
/// `demo_timeline_runs_and_zoom`); the title says which run, and its rank among the kept.
#[test]
fn t_on_an_operator_selects_its_bar_in_the_median_run() {
    let t = truth("cpu/wide_browse.truth.json");
    let samples: Vec<i64> = t["method_execute"]["samples_ns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    let mut sorted = samples.clone();
    sorted.sort();
    let median = sorted[(sorted.len() - 1) / 2];
    let closest = (0..samples.len())
        .min_by_key(|&i| (samples[i] - median).abs())
        .unwrap();
    let request = ProfileRequest::demo(None);
    let mut s = AppState::new(160, 48);
    let effects = s.load(request.clone());
    let Some(Effect::Load { generation, .. }) = effects.first().cloned() else {
        unreachable!()
    };
    let data = load_explorer_data(&request, &mut |_| {}, &AtomicBool::new(false)).unwrap();
    update(
        &mut s,
        Action::Loaded {
            generation,
            result: Ok(Box::new(data)),
        },
    );
    // The table, third row down (whatever operator it is: its name is the check).
    update(
        &mut s,
        Action::Key(KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE)),
    );
    assert_eq!(s.explorer().focus, cpuprof_tui::app::Pane::Table);
    key(&mut s, 'j');
    key(&mut s, 'j');
    let d = s.session.data.as_ref().unwrap();
    let op = &d.ops[s.selected_op().unwrap()];
    let (name, delegate) = (op.name.clone(), op.delegate.clone());
    explorer::timeline(&mut s);
    let v = view(&s);
    assert_eq!(v.runs[v.run_pos], 5 + closest, "the median run");
    let AnyTimeline::Dump(tl) = v.source.as_deref().unwrap() else {
        panic!()
    };
    let bar = v.selected().unwrap();
    let entry = tl.entry(&tl.runs[v.runs[v.run_pos]].events[bar.event as usize]);
    assert_eq!(entry.name, name);
    assert_eq!(
        entry.instruction_id.map(|i| format!("d{i}")),
        Some(delegate)
    );
    let text = screen(&s);
    let n = closest + 1;
    let suffix = match n {
        11..=13 => "th",
        _ if n % 10 == 1 => "st",
        _ if n % 10 == 2 => "nd",
        _ if n % 10 == 3 => "rd",
        _ => "th",
    };
    let title = format!("run {} · {n}{suffix} of 30 kept", 5 + closest);
    assert!(text.contains(&title), "{title}\n{text}");
    assert!(text.contains(&name), "{text}");
}

/// A big dump's timeline holds the events of a window of runs (here a budget of 5 runs'
/// events, on the demo): it opens on the median run among its neighbours; `W` (the
/// slowest run, outside the window) asks for the window around it, says it is loading,
/// then shows that run. Runs from the truth file: 30 kept, run index = 5 + position.
#[test]
fn a_window_of_runs_and_the_next_window_loaded() {
    let (samples, closest, slowest) = demo_runs();
    // The budget: 5 runs of the dump's average events per Execute run.
    let dump = cpuprof_tui::etdump::parse(&std::fs::read("fixtures/cpu/wide_browse.etdp").unwrap())
        .unwrap();
    let execute: Vec<_> = dump.blocks.iter().filter(|b| b.name == "Execute").collect();
    let per_run = execute.iter().map(|b| b.events.len()).sum::<usize>() / execute.len();
    let budget = 5 * per_run;
    // The 5 kept runs around the median one (it sits third, or the last five at the end).
    let lo = closest.saturating_sub(2).min(samples.len() - 5);
    let window: Vec<usize> = (lo..lo + 5).map(|p| 5 + p).collect();
    assert!(
        !window.contains(&(5 + slowest)),
        "the slowest run is outside"
    );

    let mut s = explorer::opened_request(ProfileRequest::demo(None), (160, 48));
    let (request, generation) = explorer::ask_timeline(&mut s);
    let result = cpuprof_tui::source::load_timeline_with(&request, None, budget).map(Box::new);
    update(&mut s, Action::TimelineLoaded { generation, result });
    let v = view(&s);
    assert_eq!(v.runs.len(), 30);
    assert_eq!(v.runs[v.run_pos], 5 + closest, "the median run");
    let Some(AnyTimeline::Dump(tl)) = v.source.as_deref() else {
        panic!("a dump's timeline")
    };
    assert!(tl.partial);
    let with_events: Vec<usize> = (0..tl.runs.len())
        .filter(|&r| !tl.runs[r].events.is_empty())
        .collect();
    assert_eq!(with_events, window);
    // Every kept run is ranked by its Method::execute, with or without its events.
    for (p, &ns) in samples.iter().enumerate() {
        assert_eq!(
            tl.runs[5 + p].method_ns(tl),
            Some(ns as u64),
            "run {}",
            5 + p
        );
    }
    assert!(!v.lanes.is_empty());

    let effects = key(&mut s, 'W');
    let [Effect::LoadTimeline {
        request: asked,
        generation: g,
        center,
    }] = &effects[..]
    else {
        panic!("W outside the window loads another: {effects:?}")
    };
    assert_eq!(*center, Some(5 + slowest));
    assert_eq!(*g, generation);
    assert!(screen(&s).contains(&format!("loading run {}", 5 + slowest)));
    // Keys wait for the window meanwhile.
    assert!(key(&mut s, 'n').is_empty());
    let result = cpuprof_tui::source::load_timeline_with(asked, *center, budget).map(Box::new);
    update(&mut s, Action::TimelineLoaded { generation, result });
    let v = view(&s);
    assert_eq!(v.reloading, None);
    assert_eq!(v.runs[v.run_pos], 5 + slowest, "the slowest run, shown");
    assert!(!v.lanes.is_empty());
    let Some(AnyTimeline::Dump(tl)) = v.source.as_deref() else {
        panic!("a dump's timeline")
    };
    assert!(!tl.runs[5 + slowest].events.is_empty());
    assert!(tl.runs[5 + closest].events.is_empty() || (lo..lo + 5).contains(&slowest));
    // `~` back to the median run: outside this window, so loaded again.
    let effects = key(&mut s, '~');
    assert!(
        matches!(&effects[..], [Effect::LoadTimeline { center: Some(c), .. }] if *c == 5 + closest),
        "{effects:?}"
    );
}
