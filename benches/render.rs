//! Render cost: one frame with 100,000 operator rows on a 160x48 `TestBackend`
//! (target ≤ 16 ms: only the visible rows are formatted).
//!
//! Also time to first frame: the real binary in a pseudo-terminal on a ~109 MB dump built
//! with the flatbuffers builder (`cpuprof-testkit`'s `etdump_build`): the loading gauge must
//! be on screen within 100 ms of start, long before loading ends.
//!
//! `cargo bench --bench render`

use cpuprof_testkit::etdump_build as build;

use std::hint::black_box;
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cpuprof_testkit::sample;
use cpuprof_tui::app::{update, Action, AppState, Command, Effect};
use cpuprof_tui::profile::ProfileRequest;
use cpuprof_tui::ui::{self, Theme};
use criterion::{criterion_group, criterion_main, Criterion};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn loaded(rows: usize, w: u16, h: u16) -> AppState {
    let mut s = AppState::new(w, h);
    let effects = s.load(ProfileRequest::new("big.etdp".into(), None, 0));
    let Some(Effect::Load { generation, .. }) = effects.first().cloned() else {
        unreachable!("load effect")
    };
    update(
        &mut s,
        Action::Loaded {
            generation,
            result: Ok(Box::new(cpuprof_tui::app::ExplorerData::from_profile(
                &sample::big(rows),
            ))),
        },
    );
    let listed = s.views.explorer().map(|e| e.table.rows.len());
    assert_eq!(listed, Some(rows));
    s
}

fn render(c: &mut Criterion) {
    let mut table = loaded(100_000, 160, 48);
    update(&mut table, Action::Command(Command::NextPane));
    // Somewhere in the middle, so offsets are not trivially zero.
    for _ in 0..50 {
        update(&mut table, Action::Command(Command::PageDown));
    }
    let mut term = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let theme = Theme::from_env();
    c.bench_function("frame_100k_ops_160x48", |b| {
        b.iter(|| {
            term.draw(|f| ui::draw(f, black_box(&table), &theme))
                .unwrap();
        })
    });
    // The tree with every node open (100,004 rows).
    let mut tree = loaded(100_000, 160, 48);
    update(&mut tree, Action::Command(Command::ExpandAll));
    update(&mut tree, Action::Command(Command::Bottom));
    c.bench_function("frame_100k_tree_rows_160x48", |b| {
        b.iter(|| {
            term.draw(|f| ui::draw(f, black_box(&tree), &theme))
                .unwrap();
        })
    });
    let mut small = Terminal::new(TestBackend::new(80, 24)).unwrap();
    let table80 = loaded(100_000, 80, 24);
    c.bench_function("frame_100k_ops_80x24", |b| {
        b.iter(|| {
            small
                .draw(|f| ui::draw(f, black_box(&table80), &theme))
                .unwrap();
        })
    });
}

/// Not a frame, but what a keystroke in the filter costs on 100,000 rows.
fn filter(c: &mut Criterion) {
    let base = loaded(100_000, 160, 48);
    c.bench_function("filter_keystroke_100k_ops", |b| {
        b.iter_batched(
            || base.clone(),
            |mut s| {
                update(&mut s, Action::Command(Command::StartFilter));
                update(
                    &mut s,
                    Action::Command(Command::FilterEdit(tui_input::InputRequest::InsertChar(
                        '7',
                    ))),
                );
                s // dropped outside the timing
            },
            criterion::BatchSize::LargeInput,
        )
    });
}

/// Spawn the explorer on `dump` in an 120x40 pty; return (time until the screen shows
/// `first`, time until it shows `then` if given), then quit with `q`.
fn timed_session(
    dump: &std::path::Path,
    first: &str,
    then: Option<&str>,
) -> (Duration, Option<Duration>) {
    use portable_pty::{native_pty_system, CommandBuilder, PtySize};
    let pty = native_pty_system()
        .openpty(PtySize {
            rows: 40,
            cols: 120,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_cpuprof-tui"));
    cmd.arg(dump);
    let start = Instant::now();
    let mut child = pty.slave.spawn_command(cmd).unwrap();
    drop(pty.slave);
    let mut reader = pty.master.try_clone_reader().unwrap();
    let mut writer = pty.master.take_writer().unwrap();
    let parser = Arc::new(Mutex::new(vt100::Parser::new(
        40.try_into().unwrap(),
        120.try_into().unwrap(),
        0,
    )));
    let sink = parser.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().process(&buf[..n]);
        }
    });
    let wait = |needle: &str| -> Duration {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if parser.lock().unwrap().screen().contents().contains(needle) {
                return start.elapsed();
            }
            assert!(Instant::now() < deadline, "no {needle:?} on screen");
            std::thread::sleep(Duration::from_micros(200));
        }
    };
    let first_at = wait(first);
    if then.is_some() {
        // Show what the user sees while loading (the gauge with bytes and phase).
        std::thread::sleep(Duration::from_millis(250));
        let screen = parser.lock().unwrap().screen().contents();
        for line in screen
            .lines()
            .filter(|l| l.contains('│') && l.contains(" · "))
        {
            eprintln!("first_frame: at 250 ms: {}", line.trim());
        }
    }
    let then_at = then.map(wait);
    writer.write_all(b"q").unwrap();
    writer.flush().unwrap();
    let status = child.wait().unwrap();
    assert!(status.success());
    (first_at, then_at)
}

fn first_frame(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("big.etdp");
    std::fs::write(&dump, build::build(0, &build::xnnpack_like(250_000))).unwrap();
    let size = std::fs::metadata(&dump).unwrap().len();
    let (first, loaded) = timed_session(&dump, "Loading", Some("Method::execute median"));
    eprintln!(
        "first_frame: {:.1} MB dump: gauge after {:.1?}, profile shown after {:.1?}",
        size as f64 / 1e6,
        first,
        loaded.unwrap()
    );
    let mut group = c.benchmark_group("startup");
    group.sample_size(10);
    group.bench_function("first_frame_109mb_dump", |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| timed_session(&dump, "Loading", None).0)
                .sum()
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = render, filter, first_frame
}
criterion_main!(benches);
