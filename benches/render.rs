//! Render cost: one frame with 100,000 operator rows on a 160x48 `TestBackend`
//! (target ≤ 16 ms: only the visible rows are formatted).
//!
//! `cargo bench --bench render`

use std::hint::black_box;

use cpuprof_tui::app::sample;
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
            result: Ok(Box::new(sample::big(rows))),
        },
    );
    assert_eq!(s.table.rows.len(), rows);
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

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = render, filter
}
criterion_main!(benches);
