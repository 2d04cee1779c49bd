//! Watch mode through the pure `update`: watcher events in, load effects out, results fed
//! back by hand. Expected medians come from the fixtures' truth files
//! (`method_execute.median_ms` with their 3 warm-up runs dropped): mlp_basic 0.03352 ms,
//! cnn2_basic 0.23562 ms, both 23 runs.

use crate::common;
use crate::support::explorer::ExplorerOf;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{fixture, json};
use cpuprof_testkit::sample;
use cpuprof_tui::app::runs::{delta, delta_label, retry_delay};
use cpuprof_tui::app::{
    update, Action, AppState, Column, Command, Effect, ExplorerData, MouseAction, Pane, RunStatus,
    ViewKind,
};
use cpuprof_tui::profile::{load_profile, ProfileRequest};
use cpuprof_tui::watch::{DumpPair, WatchEvent};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn at(secs: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(secs)
}

fn watching(w: u16, h: u16, warmup: usize) -> AppState {
    let mut s = AppState::new(w, h);
    s.start_watch("out", warmup);
    s
}

fn ready(s: &mut AppState, path: &str, secs: u64) -> Vec<Effect> {
    update(
        s,
        Action::Watch {
            event: WatchEvent::Ready(DumpPair {
                etdump: PathBuf::from(path),
                log: None,
                modified: at(secs),
                size: 100,
            }),
            at: at(secs + 1),
        },
    )
}

fn key(s: &mut AppState, code: KeyCode) -> Vec<Effect> {
    update(s, Action::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn fixture_data(stem: &str, warmup: usize) -> ExplorerData {
    let request = ProfileRequest::new(
        fixture(&format!("cpu/{stem}.etdp")),
        Some(fixture(&format!("cpu/{stem}.log"))),
        warmup,
    );
    let p = load_profile(&request, &mut |_| {}, &Default::default()).unwrap();
    ExplorerData::from_profile(&p)
}

/// The one load in `effects`: (path, generation).
fn the_load(effects: &[Effect]) -> (PathBuf, u64) {
    match effects {
        [Effect::Load {
            request,
            generation,
        }] => (request.etdump.clone(), *generation),
        other => panic!("expected one load, got {other:?}"),
    }
}

/// Answer loads until none is asked for; `answer` gives each path's result.
fn settle(
    s: &mut AppState,
    mut effects: Vec<Effect>,
    answer: &dyn Fn(&Path) -> Result<ExplorerData, String>,
) -> Vec<PathBuf> {
    let mut order = Vec::new();
    while let Some(Effect::Load {
        request,
        generation,
    }) = effects.first().cloned()
    {
        order.push(request.etdump.clone());
        let result = answer(&request.etdump).map(Box::new);
        effects = update(s, Action::Loaded { generation, result });
    }
    order
}

fn names(s: &AppState) -> Vec<String> {
    let w = s.session.watch.as_ref().unwrap();
    w.entries.iter().map(|e| e.file_name()).collect()
}

fn shown_name(s: &AppState) -> String {
    let w = s.session.watch.as_ref().unwrap();
    let id = w.shown.unwrap();
    w.entries[w.index_of(id).unwrap()].file_name()
}

fn truth_median(stem: &str) -> f64 {
    json(&format!("cpu/{stem}.truth.json"))["method_execute"]["median_ms"]
        .as_f64()
        .unwrap()
}

#[test]
fn delta_against_the_previous_profile_from_truth_medians() {
    let (mlp, cnn) = (fixture_data("mlp_basic", 3), fixture_data("cnn2_basic", 3));
    let answer = |p: &Path| -> Result<ExplorerData, String> {
        let name = p.file_name().unwrap().to_string_lossy();
        Ok(if name.starts_with("mlp") {
            mlp.clone()
        } else {
            cnn.clone()
        })
    };
    let mut s = watching(80, 24, 3);
    let e = ready(&mut s, "out/mlp.etdp", 100);
    assert_eq!(the_load(&e).0, PathBuf::from("out/mlp.etdp"));
    settle(&mut s, e, &answer);
    let e = ready(&mut s, "out/cnn.etdp", 200);
    settle(&mut s, e, &answer);
    let e = ready(&mut s, "out/mlp2.etdp", 300);
    assert!(matches!(&e[..], [Effect::Load { request, .. }] if request.warmup == 3));
    settle(&mut s, e, &answer);
    assert_eq!(names(&s), ["mlp2.etdp", "cnn.etdp", "mlp.etdp"]);
    let w = s.session.watch.as_ref().unwrap();
    let (m, c) = (truth_median("mlp_basic"), truth_median("cnn2_basic"));
    assert_eq!((m, c), (0.03352, 0.23562));
    let medians: Vec<f64> = w
        .entries
        .iter()
        .map(|e| e.facts.unwrap().median_ms.unwrap())
        .collect();
    assert!(
        (medians[0] - m).abs() < 1e-9 && (medians[1] - c).abs() < 1e-9,
        "{medians:?}"
    );
    assert_eq!(w.entries[0].facts.unwrap().runs_total, Some(23));
    // cnn after mlp: (0.23562 - 0.03352) / 0.03352 = +6.02924 = +602.9%.
    // mlp2 after cnn: (0.03352 - 0.23562) / 0.23562 = -0.85774 = -85.8%.
    let d1 = delta(&w.entries, 1).unwrap();
    let d0 = delta(&w.entries, 0).unwrap();
    assert!((d1 - 6.029236).abs() < 1e-5, "{d1}");
    assert!((d0 + 0.857737).abs() < 1e-5, "{d0}");
    assert_eq!(delta_label(d1), "+602.9%");
    assert_eq!(delta_label(d0), "-85.8%");
    assert_eq!(
        delta(&w.entries, 2),
        None,
        "the first profile has nothing before it"
    );
    // Following: the newest profile is on screen.
    assert_eq!(shown_name(&s), "mlp2.etdp");
    assert_eq!(w.profiles(), 3);
    assert_eq!(w.errors(), 0);
}

/// Profile B: the sample without delegate #1, so every node of delegate #4 sits at
/// another index than in A.
fn shifted_sample() -> ExplorerData {
    let mut p = sample::profile();
    p.delegates.remove(0);
    ExplorerData::from_profile(&p)
}

#[test]
fn arrivals_keep_selection_sort_filter_and_expansion_by_name() {
    let a = ExplorerData::from_profile(&sample::profile());
    let b = shifted_sample();
    let mut s = watching(160, 48, 0);
    let e = ready(&mut s, "out/a.etdp", 100);
    settle(&mut s, e, &|_| Ok(a.clone()));
    // Tree: collapse delegate #1 (index 1), select "Add (ND, F32) #1".
    key(&mut s, KeyCode::Tab); // runs -> tree
    assert_eq!(s.explorer().focus, Pane::Tree);
    key(&mut s, KeyCode::Char('j'));
    key(&mut s, KeyCode::Left);
    let d = s.session.data.as_ref().unwrap();
    let add = s
        .explorer()
        .tree
        .visible
        .iter()
        .position(|&i| d.nodes[i].name == "Add (ND, F32) #1")
        .unwrap();
    for _ in 1..add {
        key(&mut s, KeyCode::Char('j'));
    }
    let d = s.session.data.as_ref().unwrap();
    let old_add_id = s.explorer().tree.visible[s.explorer().tree.selected];
    assert_eq!(d.nodes[old_add_id].name, "Add (ND, F32) #1");
    // Table: sort by name ascending, filter "f32", select "Fully Connected (NC, F32) GEMM #1".
    key(&mut s, KeyCode::Tab);
    update(&mut s, Action::Command(Command::SortNext)); // median -> min
    while s.explorer().table.sort != Column::Name {
        update(&mut s, Action::Command(Command::SortNext));
    }
    key(&mut s, KeyCode::Char('/'));
    for c in "f32".chars() {
        key(&mut s, KeyCode::Char(c));
    }
    key(&mut s, KeyCode::Enter);
    let rows = |s: &AppState| -> Vec<String> {
        let d = s.session.data.as_ref().unwrap();
        s.explorer()
            .table
            .rows
            .iter()
            .map(|&r| d.ops[r].name.clone())
            .collect()
    };
    // Name ascending, "f32" in: Add, Clamp, IGEMM #1, IGEMM #2, FC GEMM #1.
    assert_eq!(rows(&s).len(), 5);
    let fc = rows(&s)
        .iter()
        .position(|n| n == "Fully Connected (NC, F32) GEMM #1")
        .unwrap();
    for _ in 0..fc {
        key(&mut s, KeyCode::Char('j'));
    }
    let (sort, desc) = (s.explorer().table.sort, s.explorer().table.descending);

    // B arrives (newer) and is shown: same rows by name, other indices.
    let e = ready(&mut s, "out/b.etdp", 200);
    settle(&mut s, e, &|_| Ok(b.clone()));
    assert_eq!(shown_name(&s), "b.etdp");
    let d = s.session.data.as_ref().unwrap();
    let new_add_id = s.explorer().tree.visible[s.explorer().tree.selected];
    assert_eq!(d.nodes[new_add_id].name, "Add (ND, F32) #1");
    assert_ne!(
        new_add_id, old_add_id,
        "indices moved; the name path matched"
    );
    assert_eq!(
        (s.explorer().table.sort, s.explorer().table.descending),
        (sort, desc)
    );
    assert_eq!(s.explorer().table.filter.value(), "f32");
    // B has no convolutions or clamp: Add, FC GEMM #1 remain; FC still selected.
    assert_eq!(
        rows(&s),
        ["Add (ND, F32) #1", "Fully Connected (NC, F32) GEMM #1"]
    );
    assert_eq!(
        rows(&s)[s.explorer().table.selected],
        "Fully Connected (NC, F32) GEMM #1"
    );
    assert_eq!(s.explorer().focus, Pane::Table);

    // Back to A (p: older): delegate #1 is still collapsed, Add still selected.
    key(&mut s, KeyCode::Char('p'));
    assert_eq!(shown_name(&s), "a.etdp");
    let d = s.session.data.as_ref().unwrap();
    let tree: Vec<&str> = s
        .explorer()
        .tree
        .visible
        .iter()
        .map(|&i| d.nodes[i].name.as_str())
        .collect();
    assert_eq!(
        tree,
        [
            "Method::execute",
            "delegate #1",
            "delegate #4",
            "Fully Connected (NC, F32) GEMM #1",
            "Add (ND, F32) #1",
            "(overhead)",
            "aten::mean",
            "(remainder)"
        ]
    );
    assert_eq!(tree[s.explorer().tree.selected], "Add (ND, F32) #1");
    assert_eq!(
        rows(&s)[s.explorer().table.selected],
        "Fully Connected (NC, F32) GEMM #1"
    );
}

#[test]
fn selecting_runs_with_keys_and_mouse_and_following() {
    let a = ExplorerData::from_profile(&sample::profile());
    let b = shifted_sample();
    let answer = |p: &Path| -> Result<ExplorerData, String> {
        Ok(if p.ends_with("b.etdp") {
            b.clone()
        } else {
            a.clone()
        })
    };
    let mut s = watching(80, 24, 0);
    assert_eq!(s.explorer().focus, Pane::Runs);
    for (name, t) in [("out/a.etdp", 100), ("out/b.etdp", 200)] {
        let e = ready(&mut s, name, t);
        settle(&mut s, e, &answer);
    }
    assert_eq!(shown_name(&s), "b.etdp");
    // j in the runs pane: the older run is shown; following stops.
    key(&mut s, KeyCode::Char('j'));
    assert_eq!(shown_name(&s), "a.etdp");
    assert_eq!(s.session.data.as_ref().unwrap().nodes.len(), a.nodes.len());
    // A newer run arrives: listed on top, loaded, but the chosen run stays on screen.
    let e = ready(&mut s, "out/c.etdp", 300);
    settle(&mut s, e, &answer);
    assert_eq!(names(&s), ["c.etdp", "b.etdp", "a.etdp"]);
    assert_eq!(shown_name(&s), "a.etdp");
    assert_eq!(
        s.session.watch.as_ref().unwrap().selected,
        2,
        "selection follows the entry"
    );
    // N: newest and follow again.
    key(&mut s, KeyCode::Char('N'));
    assert_eq!(shown_name(&s), "c.etdp");
    let e = ready(&mut s, "out/d.etdp", 400);
    settle(&mut s, e, &answer);
    assert_eq!(shown_name(&s), "d.etdp");
    // p / n step through the list.
    key(&mut s, KeyCode::Char('p'));
    assert_eq!(shown_name(&s), "c.etdp");
    key(&mut s, KeyCode::Char('n'));
    assert_eq!(shown_name(&s), "d.etdp");
    // Mouse: the runs pane starts at row 3 (border; the header's 3 rows above), rows
    // from y = 4; the 3rd row is b.
    let runs = s.areas().runs.unwrap();
    assert_eq!(runs.y, 3);
    let fx = update(
        &mut s,
        Action::Mouse {
            kind: MouseAction::Click,
            x: 10,
            y: runs.y + 3,
        },
    );
    assert!(fx.is_empty(), "cached: no reload");
    assert_eq!(shown_name(&s), "b.etdp");
    assert_eq!(s.explorer().focus, Pane::Runs);
}

#[test]
fn errors_incomplete_and_removed_never_replace_the_last_good_profile() {
    let a = ExplorerData::from_profile(&sample::profile());
    let mut s = watching(80, 24, 0);
    let e = ready(&mut s, "out/good.etdp", 100);
    settle(&mut s, e, &|_| Ok(a.clone()));
    // The watcher reports garbage: an error entry naming the file, no dialog.
    update(
        &mut s,
        Action::Watch {
            event: WatchEvent::Error {
                path: "out/junk.etdp".into(),
                message: "not an ETDump: identifier is \"XX00\", expected \"ED00\"".into(),
                modified: None,
            },
            at: at(150),
        },
    );
    // A pair that fails to load: the loader's one-line message.
    let e = ready(&mut s, "out/bad.etdp", 200);
    settle(&mut s, e, &|_| Err("out/bad.etdp: corrupt ETDump".into()));
    assert_eq!(s.error(), None);
    assert_eq!(s.mode(), ViewKind::Explorer);
    assert_eq!(shown_name(&s), "good.etdp");
    let w = s.session.watch.as_ref().unwrap();
    assert_eq!(names(&s), ["bad.etdp", "junk.etdp", "good.etdp"]);
    let messages: Vec<String> = w
        .entries
        .iter()
        .filter_map(|e| match &e.status {
            RunStatus::Failed { message, .. } => Some(message.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        messages,
        [
            "out/bad.etdp: corrupt ETDump",
            "junk.etdp: not an ETDump: identifier is \"XX00\", expected \"ED00\""
        ]
    );
    assert_eq!((w.profiles(), w.errors()), (1, 2));
    assert_eq!(w.last_update, Some(at(201)));
    // Selecting an error row keeps the last good profile.
    key(&mut s, KeyCode::Char('g'));
    assert_eq!(shown_name(&s), "good.etdp");
    // N goes to the newest profile, skipping the error rows above it, and follows.
    key(&mut s, KeyCode::Char('N'));
    let w = s.session.watch.as_ref().unwrap();
    assert_eq!((w.selected, w.follow), (2, true));

    // Incomplete: quietly waiting, retried with backoff, then loads.
    let e = ready(&mut s, "out/slow.etdp", 300);
    let (_, generation) = the_load(&e);
    let fx = update(
        &mut s,
        Action::LoadIncomplete {
            generation,
            message: "out/slow.etdp: incomplete ETDump".into(),
        },
    );
    assert_eq!(fx, [Effect::RetryAfter(Duration::from_millis(200))]);
    assert_eq!(retry_delay(2), Duration::from_millis(400));
    assert_eq!(retry_delay(30), Duration::from_secs(5));
    let w = s.session.watch.as_ref().unwrap();
    assert_eq!(w.entries[0].status, RunStatus::Waiting { attempts: 1 });
    assert_eq!(w.errors(), 2, "incomplete is not an error");
    assert_eq!(s.error(), None);
    let e = update(&mut s, Action::RetryDue);
    assert_eq!(the_load(&e).0, PathBuf::from("out/slow.etdp"));
    settle(&mut s, e, &|_| Ok(a.clone()));
    assert_eq!(shown_name(&s), "slow.etdp");

    // Removed: a loaded entry is marked and stays viewable; a queued one is dropped.
    update(
        &mut s,
        Action::Watch {
            event: WatchEvent::Removed("out/slow.etdp".into()),
            at: at(400),
        },
    );
    let w = s.session.watch.as_ref().unwrap();
    assert!(w.entries[0].removed);
    assert!(s.session.data.is_some());
    let e = ready(&mut s, "out/gone.etdp", 500);
    assert_eq!(the_load(&e).0, PathBuf::from("out/gone.etdp"));
    update(
        &mut s,
        Action::Watch {
            event: WatchEvent::Removed("out/gone.etdp".into()),
            at: at(501),
        },
    );
    assert!(!names(&s).contains(&"gone.etdp".to_string()));
    // Its late result is stale and ignored.
    let fx = update(
        &mut s,
        Action::Loaded {
            generation: the_load(&e).1,
            result: Ok(Box::new(a.clone())),
        },
    );
    assert!(fx.is_empty());
    assert_eq!(shown_name(&s), "slow.etdp");
}

#[test]
fn a_burst_loads_newest_first_and_keeps_every_entry() {
    let a = ExplorerData::from_profile(&sample::profile());
    let mut s = watching(80, 24, 0);
    let mut effects = Vec::new();
    for (name, t) in [
        ("out/r1.etdp", 10),
        ("out/r2.etdp", 20),
        ("out/r3.etdp", 30),
    ] {
        effects.extend(ready(&mut s, name, t));
    }
    // r1 started loading when it arrived; then r3 (newest) before r2.
    let order = settle(&mut s, effects, &|_| Ok(a.clone()));
    assert_eq!(
        order,
        [
            PathBuf::from("out/r1.etdp"),
            "out/r3.etdp".into(),
            "out/r2.etdp".into()
        ]
    );
    assert_eq!(names(&s), ["r3.etdp", "r2.etdp", "r1.etdp"]);
    assert_eq!(shown_name(&s), "r3.etdp");
    let w = s.session.watch.as_ref().unwrap();
    assert!(w.entries.iter().all(|e| e.status == RunStatus::Loaded));
    // A new version of the same file is a new entry (runners overwrite their output).
    let e = ready(&mut s, "out/r3.etdp", 40);
    settle(&mut s, e, &|_| Ok(a.clone()));
    assert_eq!(names(&s), ["r3.etdp", "r3.etdp", "r2.etdp", "r1.etdp"]);
}

#[test]
fn warmup_change_reloads_every_run_shown_first() {
    let (m3, m4) = (fixture_data("mlp_basic", 3), fixture_data("mlp_basic", 4));
    let mut s = watching(80, 24, 3);
    for (name, t) in [("out/x.etdp", 1), ("out/y.etdp", 2)] {
        let e = ready(&mut s, name, t);
        settle(&mut s, e, &|_| Ok(m3.clone()));
    }
    key(&mut s, KeyCode::Char('j')); // show x (older)
    let e = key(&mut s, KeyCode::Char('+'));
    match &e[..] {
        [Effect::Load { request, .. }] => {
            assert_eq!(request.warmup, 4);
            assert_eq!(request.etdump, PathBuf::from("out/x.etdp"));
        }
        other => panic!("{other:?}"),
    }
    let order = settle(&mut s, e, &|_| Ok(m4.clone()));
    assert_eq!(order.len(), 2);
    assert_eq!(s.session.shown_warmup(), Some(4));
    assert_eq!(shown_name(&s), "x.etdp");
    assert_eq!(
        s.session.data.as_ref().unwrap().runs.as_ref().unwrap().kept,
        19
    );
}

/// Any mix of watcher events, load results, keys, clicks and resizes: no panic, and the
/// list invariants hold (selection in range, at most one load in flight). A fixed
/// pseudo-random sequence so a failure reproduces.
#[test]
fn random_event_mix_never_panics() {
    let a = ExplorerData::from_profile(&sample::profile());
    let b = shifted_sample();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    for (w, h) in [(80, 24), (160, 48), (20, 6), (3, 2)] {
        let mut s = watching(w, h, 1);
        let mut pending: Vec<u64> = Vec::new();
        for step in 0..3000u64 {
            let path = format!("out/f{}.etdp", next(5));
            let action = match next(12) {
                0 | 1 => Action::Watch {
                    event: WatchEvent::Ready(DumpPair {
                        etdump: path.into(),
                        log: None,
                        modified: at(next(50)),
                        size: 1,
                    }),
                    at: at(step),
                },
                2 => Action::Watch {
                    event: WatchEvent::Removed(path.into()),
                    at: at(step),
                },
                3 => Action::Watch {
                    event: WatchEvent::Error {
                        path: path.into(),
                        message: "not an ETDump\nsecond line".into(),
                        modified: None,
                    },
                    at: at(step),
                },
                4 | 5 => match pending.pop() {
                    Some(generation) => Action::Loaded {
                        generation,
                        result: match next(4) {
                            0 => Err("x: bad".into()),
                            1 => Err("y: unreadable".into()),
                            2 => Ok(Box::new(b.clone())),
                            _ => Ok(Box::new(a.clone())),
                        },
                    },
                    None => Action::RetryDue,
                },
                6 => Action::LoadIncomplete {
                    generation: pending.pop().unwrap_or(0),
                    message: "x: incomplete".into(),
                },
                7 => Action::RetryDue,
                8 => Action::Mouse {
                    kind: [
                        MouseAction::Click,
                        MouseAction::ScrollDown,
                        MouseAction::ScrollUp,
                    ][next(3) as usize],
                    x: next(w as u64 + 2) as u16,
                    y: next(h as u64 + 2) as u16,
                },
                9 => Action::Resize(w + next(3) as u16, h + next(3) as u16),
                _ => {
                    let keys = ['j', 'k', 'n', 'p', 'N', '+', '-', 'e', 'E', 's', 'g', 'G'];
                    let code = match next(14) {
                        12 => KeyCode::Tab,
                        13 => KeyCode::Esc,
                        i => KeyCode::Char(keys[i as usize]),
                    };
                    Action::Key(KeyEvent::new(code, KeyModifiers::NONE))
                }
            };
            for e in update(&mut s, action) {
                if let Effect::Load { generation, .. } = e {
                    pending.push(generation);
                }
            }
            let ws = s.session.watch.as_ref().unwrap();
            assert!(ws.entries.is_empty() || ws.selected < ws.entries.len());
            let loading = ws
                .entries
                .iter()
                .filter(|e| e.status == RunStatus::Loading)
                .count();
            assert!(loading <= 1, "step {step}: {loading} loading");
            // The gauge, if any, is the load in flight's.
            let inflight = ws.inflight.map(|(g, _)| g);
            assert!(
                s.session
                    .loading
                    .as_ref()
                    .is_none_or(|l| Some(l.generation) == inflight),
                "step {step}: stale gauge"
            );
            assert!(ws.entries.iter().all(|e| match &e.status {
                RunStatus::Failed { message, .. } => !message.contains('\n'),
                _ => true,
            }));
            let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(
                s.session.width,
                s.session.height,
            ))
            .unwrap();
            t.draw(|f| cpuprof_tui::ui::draw(f, &s, &cpuprof_tui::ui::Theme::plain()))
                .unwrap();
        }
    }
}

/// The first dump is removed (or turns into garbage) while it loads: its gauge goes at
/// once, the next queued dump loads, and the late result changes nothing.
#[test]
fn gauge_of_a_dump_removed_while_loading_goes() {
    let a = ExplorerData::from_profile(&sample::profile());
    for garbage in [false, true] {
        let mut s = watching(80, 24, 0);
        let e = ready(&mut s, "out/first.etdp", 100);
        let (_, first) = the_load(&e);
        assert_eq!(
            s.session.loading.as_ref().map(|l| l.generation),
            Some(first)
        );
        let event = if garbage {
            WatchEvent::Error {
                path: "out/first.etdp".into(),
                message: "not an ETDump".into(),
                modified: None,
            }
        } else {
            WatchEvent::Removed("out/first.etdp".into())
        };
        let fx = update(&mut s, Action::Watch { event, at: at(101) });
        assert!(fx.is_empty());
        assert_eq!(s.session.loading, None, "no load in flight, no gauge");
        // The late result is stale: nothing shown, no gauge.
        let fx = update(
            &mut s,
            Action::Loaded {
                generation: first,
                result: Ok(Box::new(a.clone())),
            },
        );
        assert!(fx.is_empty());
        assert_eq!(s.session.loading, None);
        assert!(s.session.data.is_none());
        // The next dump loads normally.
        let e = ready(&mut s, "out/second.etdp", 200);
        let (_, second) = the_load(&e);
        assert_eq!(
            s.session.loading.as_ref().map(|l| l.generation),
            Some(second)
        );
        settle(&mut s, e, &|_| Ok(a.clone()));
        assert_eq!(s.session.loading, None);
        assert_eq!(shown_name(&s), "second.etdp");
    }
}

/// A removed run keeps the profile it was built with after a warm-up change; the footer
/// names that profile's warm-up, not the new one.
#[test]
fn footer_names_the_warmup_of_the_profile_shown() {
    use cpuprof_tui::ui::{self, Theme};
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;

    fn footer(s: &AppState) -> String {
        let mut t = Terminal::new(TestBackend::new(s.session.width, s.session.height)).unwrap();
        t.draw(|f| ui::draw(f, s, &Theme::plain())).unwrap();
        let buf = t.backend().buffer();
        (0..buf.area.width)
            .map(|x| buf[(x, buf.area.height - 1)].symbol().to_string())
            .collect()
    }

    let (m3, m4) = (fixture_data("mlp_basic", 3), fixture_data("mlp_basic", 4));
    let mut s = watching(120, 30, 3);
    for (name, t) in [("out/x.etdp", 1), ("out/y.etdp", 2)] {
        let e = ready(&mut s, name, t);
        settle(&mut s, e, &|_| Ok(m3.clone()));
    }
    update(
        &mut s,
        Action::Watch {
            event: WatchEvent::Removed("out/x.etdp".into()),
            at: at(10),
        },
    );
    let e = key(&mut s, KeyCode::Char('+'));
    let order = settle(&mut s, e, &|_| Ok(m4.clone()));
    assert_eq!(
        order,
        [PathBuf::from("out/y.etdp")],
        "x is gone: not reloaded"
    );
    assert!(footer(&s).contains("warm-up 4 │"), "{}", footer(&s));
    key(&mut s, KeyCode::Char('j')); // show x, built with warm-up 3
    assert_eq!(shown_name(&s), "x.etdp");
    assert!(footer(&s).contains("warm-up 3 │"), "{}", footer(&s));
    assert_eq!(s.session.shown_warmup(), Some(3));
}

/// A run of the sample program whose `Method::execute` took `samples` (ms), from `name`;
/// `other` drops an operator (another model).
fn run_with(name: &str, samples: Vec<f64>, other: bool) -> ExplorerData {
    let mut p = sample::profile();
    p.method = Some(cpuprof_tui::stats::Stats::from_ms(&samples));
    p.source.etdump = name.into();
    if other {
        p.delegates.remove(0);
    }
    ExplorerData::from_profile(&p)
}

/// Eight runs `start`, `start + 0.1`, … ms (no ties, so scipy's exact test applies).
fn eight(start: f64) -> Vec<f64> {
    (0..8).map(|i| start + 0.1 * i as f64).collect()
}

/// Five runs of one model (a, b, c, d, e) and a newer run `o` of another. Medians: a
/// 10.35, b 10.40, c 11.35, d 11.80, e 9.35 ms. Reference verdicts (two-sided exact
/// Mann–Whitney U; changes under 5% are `same` whatever p, as in `compare`):
///
/// ```text
/// /work/venv/bin/python -c "
/// from scipy.stats import mannwhitneyu
/// r = lambda s: [s + 0.1*i for i in range(8)]
/// for n, x, y in [('b/a',10.05,10.0),('c/b',11.0,10.05),('d/c',11.45,11.0),('e/d',9.0,11.45),
///                 ('c/a',11.0,10.0),('d/a',11.45,10.0),('e/a',9.0,10.0)]:
///     print(n, mannwhitneyu(r(y), r(x), alternative='two-sided', method='exact').pvalue)"
/// b/a 0.7209013209013208      (+0.4831%: not significant -> ~+0.5%)
/// c/b 0.0001554001554001554   (+9.1346%: slower -> +9.1%)
/// d/c 0.004662004662004662    (+3.9648%: significant but under 5% -> ~+4.0%)
/// e/d 0.0001554001554001554   (-20.7627%: faster -> -20.8%)
/// c/a 0.0001554001554001554   (+9.6618% -> +9.7%)
/// d/a 0.0001554001554001554   (+14.0097% -> +14.0%)
/// e/a 0.0001554001554001554   (-9.6618% -> -9.7%)
/// ```
fn baseline_runs(w: u16, h: u16) -> AppState {
    let runs: Vec<(&str, ExplorerData)> = vec![
        ("out/a.etdp", run_with("out/a.etdp", eight(10.0), false)),
        ("out/b.etdp", run_with("out/b.etdp", eight(10.05), false)),
        ("out/c.etdp", run_with("out/c.etdp", eight(11.0), false)),
        ("out/d.etdp", run_with("out/d.etdp", eight(11.45), false)),
        ("out/e.etdp", run_with("out/e.etdp", eight(9.0), false)),
        ("out/o.etdp", run_with("out/o.etdp", eight(5.0), true)),
    ];
    let mut s = watching(w, h, 0);
    for (i, (path, data)) in runs.iter().enumerate() {
        let e = ready(&mut s, path, 36_000 + 100 * (i as u64 + 1));
        let data = data.clone();
        settle(&mut s, e, &move |_| Ok(data.clone()));
    }
    s
}

fn change_labels(s: &AppState) -> Vec<String> {
    use cpuprof_tui::app::runs::change;
    let w = s.session.watch.as_ref().unwrap();
    (0..w.entries.len())
        .map(|i| {
            let c = change(&w.entries, w.baseline, i);
            // What the list draws is the cached change, kept up to date.
            assert_eq!(w.entries[i].change, c, "entry {i}");
            c.map(|c| c.label()).unwrap_or_default()
        })
        .collect()
}

#[test]
fn change_column_tests_each_run_against_the_previous_run_of_its_model() {
    use cpuprof_tui::app::runs::{baseline_of, change, Change};
    use cpuprof_tui::compare::Verdict;
    let s = baseline_runs(160, 48);
    assert_eq!(
        names(&s),
        ["o.etdp", "e.etdp", "d.etdp", "c.etdp", "b.etdp", "a.etdp"]
    );
    let w = s.session.watch.as_ref().unwrap();
    // Default baseline: the next older run of the same model; `o` has none.
    let bases: Vec<Option<usize>> = (0..6).map(|i| baseline_of(&w.entries, None, i)).collect();
    assert_eq!(bases, [None, Some(2), Some(3), Some(4), Some(5), None]);
    let verdicts: Vec<Option<Verdict>> = (0..6)
        .map(|i| match change(&w.entries, None, i) {
            Some(Change::Relative { verdict, .. }) => Some(verdict),
            _ => None,
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            None,
            Some(Verdict::Faster),
            Some(Verdict::Same),
            Some(Verdict::Slower),
            Some(Verdict::Same),
            None
        ]
    );
    match change(&w.entries, None, 3) {
        Some(Change::Relative { delta, .. }) => assert!((delta - 0.091346).abs() < 1e-6),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        change_labels(&s),
        ["other model", "-20.8%", "~+4.0%", "+9.1%", "~+0.5%", ""]
    );
}

#[test]
fn b_pins_the_selected_run_as_baseline_and_again_unpins_it() {
    let mut s = baseline_runs(160, 48);
    // Select a (the oldest: five rows down from the newest) and pin it.
    for _ in 0..5 {
        update(&mut s, Action::Command(Command::OlderRun));
    }
    assert_eq!(s.session.watch.as_ref().unwrap().selected, 5);
    key(&mut s, KeyCode::Char('b'));
    let w = s.session.watch.as_ref().unwrap();
    assert_eq!(w.baseline, Some(w.entries[5].id));
    assert_eq!(s.session.notice.as_deref(), Some("baseline: a.etdp"));
    // Every run of a's model against a; `o` (another model) keeps its own (none).
    assert_eq!(
        change_labels(&s),
        [
            "other model",
            "-9.7%",
            "+14.0%",
            "+9.7%",
            "~+0.5%",
            "baseline"
        ]
    );
    // Again on the pinned run: back to the previous run of the same model.
    key(&mut s, KeyCode::Char('b'));
    assert_eq!(s.session.watch.as_ref().unwrap().baseline, None);
    assert_eq!(
        change_labels(&s),
        ["other model", "-20.8%", "~+4.0%", "+9.1%", "~+0.5%", ""]
    );
    // A run that is not loaded cannot be the baseline.
    let e = ready(&mut s, "out/late.etdp", 40_000);
    assert_eq!(e.len(), 1, "late is loading");
    update(&mut s, Action::Command(Command::Top));
    update(&mut s, Action::Command(Command::NewestRun));
    let w = s.session.watch.as_ref().unwrap();
    assert_eq!(w.entries[0].file_name(), "late.etdp");
    s.session.watch.as_mut().unwrap().selected = 0;
    key(&mut s, KeyCode::Char('b'));
    assert_eq!(s.session.watch.as_ref().unwrap().baseline, None);
    assert_eq!(
        s.session.notice.as_deref(),
        Some("only a loaded run can be the baseline")
    );
}

#[test]
fn d_opens_the_compare_view_of_the_selected_run_against_its_baseline() {
    use cpuprof_tui::compare::Verdict;
    use cpuprof_tui::rows::RowKind;
    let mut s = baseline_runs(160, 48);
    // `o` has no baseline: nothing opens, the footer says why.
    key(&mut s, KeyCode::Char('d'));
    assert!(s.compare().is_none());
    assert_eq!(
        s.session.notice.as_deref(),
        Some("no baseline: no other loaded run of this model")
    );
    // e against its default baseline d: Method::execute faster by 20.76% (see
    // `baseline_runs`; Holm over the one tested row changes nothing).
    update(&mut s, Action::Command(Command::OlderRun));
    key(&mut s, KeyCode::Char('d'));
    let view = s.compare().expect("the compare view is open");
    let c = view.comparison();
    assert_eq!(
        (c.a.source.as_str(), c.b.source.as_str()),
        ("out/d.etdp", "out/e.etdp")
    );
    let m = c.rows.iter().find(|r| r.kind == RowKind::Method).unwrap();
    assert_eq!(m.verdict, Verdict::Faster);
    assert!(
        (m.delta_pct.unwrap() + 20.7627).abs() < 1e-3,
        "{:?}",
        m.delta_pct
    );
    // Its keys go to the view (x swaps A and B), not to the explorer.
    let selected = s.session.watch.as_ref().unwrap().selected;
    key(&mut s, KeyCode::Char('x'));
    key(&mut s, KeyCode::Char('j'));
    assert!(s.compare().unwrap().swapped);
    assert_eq!(s.session.watch.as_ref().unwrap().selected, selected);
    // Mouse clicks do nothing under it; Esc returns to the explorer as it was.
    update(
        &mut s,
        Action::Mouse {
            kind: MouseAction::Click,
            x: 5,
            y: 5,
        },
    );
    assert!(s.compare().is_some());
    key(&mut s, KeyCode::Esc);
    assert!(s.compare().is_none());
    assert_eq!(s.session.watch.as_ref().unwrap().selected, selected);
    // Pinned a: e against a (faster by 9.66%).
    for _ in 0..4 {
        update(&mut s, Action::Command(Command::OlderRun));
    }
    key(&mut s, KeyCode::Char('b'));
    for _ in 0..4 {
        update(&mut s, Action::Command(Command::NewerRun));
    }
    key(&mut s, KeyCode::Char('d'));
    let c = s.compare().unwrap().comparison();
    assert_eq!(c.a.source, "out/a.etdp");
    let m = c.rows.iter().find(|r| r.kind == RowKind::Method).unwrap();
    assert!(
        (m.delta_pct.unwrap() + 9.6618).abs() < 1e-3,
        "{:?}",
        m.delta_pct
    );
    assert_eq!(m.verdict, Verdict::Faster);
    // Ctrl-C quits from the compare view too.
    let effects = update(
        &mut s,
        Action::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
    );
    assert!(effects.contains(&Effect::Quit) || s.quit, "{effects:?}");
}
