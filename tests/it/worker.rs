//! The loader thread: progress and results on one channel, generations, cancellation.

use std::sync::mpsc;
use std::time::Duration;

use cpuprof_tui::app::{update, AppState, Command};
use cpuprof_tui::app::{Action, Effect};
use cpuprof_tui::profile::{LoadPhase, ProfileRequest};
use cpuprof_tui::tui::action_for;
use cpuprof_tui::worker::{Event, Worker};

fn wide(warmup: usize) -> ProfileRequest {
    ProfileRequest::new("fixtures/cpu/wide_browse.etdp".into(), None, warmup)
}

/// Run effects through a worker and feed its events to `update` until nothing is loading.
fn settle(
    state: &mut AppState,
    worker: &mut Worker,
    rx: &mpsc::Receiver<Event>,
    effects: Vec<Effect>,
) -> Vec<u64> {
    for e in effects {
        if let Effect::Load {
            request,
            generation,
        } = e
        {
            worker.start(request, generation);
        }
    }
    let mut loaded = Vec::new();
    while state.session.loading.is_some() {
        let ev = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("worker answers");
        if let Event::Loaded { generation, .. } = &ev {
            loaded.push(*generation);
        }
        if let Some(a) = action_for(ev) {
            update(state, a);
        }
    }
    loaded
}

#[test]
fn newer_request_supersedes_older() {
    let (tx, rx) = mpsc::channel();
    let mut worker = Worker::new(tx);
    let mut state = AppState::new(80, 24);
    let mut effects = state.load(wide(5));
    // A second request before the first is handled: + gives warm-up 6... but there is no
    // data yet, so load directly with 4.
    effects.extend(state.load(wide(4)));
    let loaded = settle(&mut state, &mut worker, &rx, effects);
    // Generation 1 was cancelled (or, if it won the race, ignored as stale).
    assert_eq!(loaded.last(), Some(&2));
    let runs = state.session.data.as_ref().unwrap().runs.clone().unwrap();
    assert_eq!((runs.total, runs.dropped, runs.kept), (35, 4, 31));
    assert_eq!(state.session.shown_warmup(), Some(4));
    assert!(state.error().is_none());
    // + reloads in the background with 5 dropped.
    let effects = update(&mut state, Action::Command(Command::WarmupMore));
    settle(&mut state, &mut worker, &rx, effects);
    let runs = state.session.data.as_ref().unwrap().runs.clone().unwrap();
    assert_eq!((runs.dropped, runs.kept), (5, 30));
}

#[test]
fn progress_reports_phases_and_bytes() {
    let (tx, rx) = mpsc::channel();
    let mut worker = Worker::new(tx);
    worker.start(wide(5), 7);
    let mut phases = Vec::new();
    let mut total = 0;
    loop {
        match rx.recv_timeout(Duration::from_secs(10)).unwrap() {
            Event::Progress {
                generation,
                progress,
            } => {
                assert_eq!(generation, 7);
                if phases.last() != Some(&progress.phase) {
                    phases.push(progress.phase);
                }
                total = progress.bytes_total;
            }
            Event::Loaded { generation, result } => {
                assert_eq!(generation, 7);
                assert!(result.is_ok());
                break;
            }
            other => panic!("{other:?}"),
        }
    }
    // wide_browse.etdp is 403,128 bytes (fixtures/cpu/wide_browse.truth.json).
    assert_eq!(total, 403_128);
    assert_eq!(phases.first(), Some(&LoadPhase::Reading));
    assert!(phases.contains(&LoadPhase::Analysing));
}

#[test]
fn bad_file_error_names_the_file_and_keeps_the_profile() {
    let (tx, rx) = mpsc::channel();
    let mut worker = Worker::new(tx);
    let mut state = AppState::new(80, 24);
    let effects = state.load(wide(5));
    settle(&mut state, &mut worker, &rx, effects);
    let effects = state.load(ProfileRequest::new(
        "fixtures/real/bad_truncated.etdp".into(),
        None,
        0,
    ));
    settle(&mut state, &mut worker, &rx, effects);
    let msg = state.error().map(str::to_string).expect("error dialog");
    assert!(msg.starts_with("fixtures/real/bad_truncated.etdp"), "{msg}");
    assert_eq!(
        state
            .session
            .data
            .as_ref()
            .unwrap()
            .runs
            .as_ref()
            .unwrap()
            .kept,
        30
    );
    let effects = state.load(ProfileRequest::new(
        "fixtures/does_not_exist.etdp".into(),
        None,
        0,
    ));
    settle(&mut state, &mut worker, &rx, effects);
    assert!(state
        .error()
        .unwrap()
        .starts_with("fixtures/does_not_exist.etdp"));
}

fn panicking_loader(
    _: &ProfileRequest,
    _: &mut dyn FnMut(cpuprof_tui::profile::LoadProgress),
    _: &std::sync::atomic::AtomicBool,
) -> Result<cpuprof_tui::app::ExplorerData, cpuprof_tui::profile::LoadError> {
    panic!("loader exploded")
}

/// A panic in the loader becomes this load's error: the gauge goes, an error names the
/// file, and in watch mode the next dump loads.
#[test]
fn a_loader_panic_is_an_error_not_a_hang() {
    let (tx, rx) = mpsc::channel();
    let mut worker = Worker::with_loader(tx, panicking_loader);
    let mut state = AppState::new(80, 24);
    let effects = state.load(wide(0));
    settle(&mut state, &mut worker, &rx, effects);
    assert!(state.session.loading.is_none());
    assert_eq!(
        state.error(),
        Some("fixtures/cpu/wide_browse.etdp: internal error while loading: loader exploded")
    );

    // Watch mode: the entry fails and the queue moves on.
    let mut state = AppState::new(80, 24);
    state.start_watch("out", 0);
    let mut effects = Vec::new();
    for (i, name) in ["out/a.etdp", "out/b.etdp"].into_iter().enumerate() {
        effects.extend(update(
            &mut state,
            Action::Watch {
                event: cpuprof_tui::watch::WatchEvent::Ready(cpuprof_tui::watch::DumpPair {
                    etdump: name.into(),
                    log: None,
                    modified: std::time::UNIX_EPOCH + Duration::from_secs(i as u64),
                    size: 1,
                }),
                at: std::time::UNIX_EPOCH,
            },
        ));
    }
    let mut loads = 0;
    while let Some(Effect::Load {
        request,
        generation,
    }) = effects.pop()
    {
        loads += 1;
        worker.start(request, generation);
        let ev = loop {
            let ev = rx.recv_timeout(Duration::from_secs(10)).expect("answers");
            if matches!(ev, Event::Loaded { .. }) {
                break ev;
            }
        };
        effects = action_for(ev).map_or(Vec::new(), |a| update(&mut state, a));
    }
    assert_eq!(loads, 2);
    let w = state.session.watch.as_ref().unwrap();
    assert_eq!(w.errors(), 2);
    assert!(w.inflight.is_none() && state.session.loading.is_none());
}

/// The input thread ends with `InputClosed` when its reader fails or panics.
#[test]
fn the_input_thread_reports_a_panic_as_closed_input() {
    use cpuprof_tui::tui::spawn_input_from;
    use ratatui::crossterm::event::Event as TermEvent;

    let (tx, rx) = mpsc::channel();
    let mut n = 0;
    let handle = spawn_input_from(tx, move || {
        n += 1;
        if n == 1 {
            Ok(TermEvent::FocusGained)
        } else {
            panic!("input exploded")
        }
    })
    .unwrap();
    handle.join().unwrap();
    assert!(matches!(
        rx.try_recv(),
        Ok(Event::Input(TermEvent::FocusGained))
    ));
    assert!(matches!(rx.try_recv(), Ok(Event::InputClosed)));
}
