//! The flame view on a 100,000-frame trace call tree: what one key costs (the view's
//! update plus drawing the whole frame on a `TestBackend`), at 160x48 and 230x60, against
//! the 16 ms target; what opening the view (`f`: laying out and drawing the graph the
//! loader built) costs against the same target; and what building the graph costs on the
//! loader thread, once per load.
//!
//! `cargo bench --bench flame` (a short run: `-- --quick`)

use std::hint::black_box;
use std::time::{Duration, Instant};

use cpuprof_tui::app::{
    update, Action, AppState, Effect, ExplorerData, NodeKind, SourceKind, TreeNode,
};
use cpuprof_tui::profile::{ProfileRequest, Stats};
use cpuprof_tui::ui::{self, Theme};
use criterion::{criterion_group, criterion_main, Criterion};
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

const FRAMES: usize = 100_000;

fn node(name: String, parent: Option<usize>, depth: usize, ms: f64) -> TreeNode {
    TreeNode {
        name,
        kind: if parent.is_none() {
            NodeKind::Other
        } else {
            NodeKind::Operator
        },
        info: String::new(),
        depth,
        parent,
        children: Vec::new(),
        stats: Stats::from_ms(&[ms]),
        share: None,
        op_row: None,
        scope: None,
        findings: (0, 0),
        instruction: None,
        row: None,
    }
}

/// A trace's call tree of `FRAMES` nodes under one thread: every call has up to 8
/// children splitting part of its time unevenly (an LCG), down to depth 12, so rows hold
/// wide frames, many narrow ones and merged spans.
fn big_trace() -> ExplorerData {
    let mut data = ExplorerData {
        kind: SourceKind::Trace,
        files: vec!["big.json (chrome_json)".into()],
        total_label: "top-level calls".into(),
        ..ExplorerData::default()
    };
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rand = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as f64 / (1u64 << 31) as f64
    };
    data.nodes.push(node("thread 1".into(), None, 0, 10_000.0));
    data.roots.push(0);
    let mut queue = std::collections::VecDeque::from([0usize]);
    while let Some(p) = queue.pop_front() {
        if data.nodes.len() >= FRAMES {
            break;
        }
        let (depth, ms) = (data.nodes[p].depth, data.nodes[p].stats.median());
        if depth >= 12 {
            continue;
        }
        let n = 1 + (rand() * 8.0) as usize;
        let mut left = ms * 0.95;
        for k in 0..n {
            if data.nodes.len() >= FRAMES {
                break;
            }
            let part = left * (0.2 + 0.6 * rand());
            left -= part;
            let id = data.nodes.len();
            let name = format!("aten::op_{}_{k}", id % 977);
            data.nodes.push(node(name, Some(p), depth + 1, part));
            data.nodes[p].children.push(id);
            queue.push_back(id);
        }
    }
    data
}

fn opened(w: u16, h: u16) -> AppState {
    let mut s = AppState::new(w, h);
    let effects = s.load(ProfileRequest::new("big.json".into(), None, 0));
    let Some(Effect::Load { generation, .. }) = effects.first().cloned() else {
        unreachable!("load effect")
    };
    let mut data = big_trace();
    assert_eq!(data.nodes.len(), FRAMES);
    // What the loader thread does after making the data (`from_trace`, `from_profile`).
    cpuprof_tui::views::flame::build::attach(&mut data);
    update(
        &mut s,
        Action::Loaded {
            generation,
            result: Ok(Box::new(data)),
        },
    );
    s
}

fn press(s: &mut AppState, code: KeyCode) {
    update(s, Action::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

/// Keys of a walk through the graph: down, sideways, zoom, search, widths, out.
fn walk() -> Vec<KeyCode> {
    use KeyCode::*;
    let mut keys = vec![
        Char('j'),
        Char('j'),
        Char('l'),
        Char('l'),
        Char('j'),
        Enter,
        Char('j'),
        Char('h'),
        Enter,
    ];
    keys.extend([
        Char('/'),
        Char('o'),
        Char('p'),
        Char('_'),
        Char('1'),
        Enter,
        Char(']'),
        Char(']'),
        Char('['),
    ]);
    keys.extend([Char('%'), Esc, Esc, Esc, Char('k'), Char('l')]);
    keys
}

fn key_name(code: KeyCode) -> &'static str {
    match code {
        KeyCode::Char('j') => "j",
        KeyCode::Char('k') => "k",
        KeyCode::Char('h') => "h",
        KeyCode::Char('l') => "l",
        KeyCode::Char(']') => "]",
        KeyCode::Char('[') => "[",
        KeyCode::Char('%') => "%",
        KeyCode::Char('/') => "/",
        KeyCode::Char(_) => "a search character",
        KeyCode::Enter => "Enter",
        KeyCode::Esc => "Esc",
        _ => "other",
    }
}

/// The slowest key of the walk in the view (update + draw), and the cost of `f`.
fn worst_key(w: u16, h: u16) -> (Duration, Duration, &'static str) {
    let theme = Theme { color: true };
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    let mut s = opened(w, h);
    let t = Instant::now();
    press(&mut s, KeyCode::Char('f'));
    term.draw(|f| ui::draw(f, &s, &theme)).unwrap();
    let open = t.elapsed();
    let mut worst = (Duration::ZERO, "");
    for _ in 0..3 {
        for code in walk() {
            if s.views.flame().is_none() {
                press(&mut s, KeyCode::Char('f'));
            }
            let t = Instant::now();
            press(&mut s, code);
            term.draw(|f| ui::draw(f, black_box(&s), &theme)).unwrap();
            let d = t.elapsed();
            // A key that closes the view draws the explorer (benches/render.rs measures it).
            if d > worst.0 && s.views.flame().is_some() {
                worst = (d, key_name(code));
            }
        }
    }
    (worst.0, open, worst.1)
}

fn met(d: Duration) -> &'static str {
    if d.as_secs_f64() * 1e3 <= 16.0 {
        " (met)"
    } else {
        " (MISSED)"
    }
}

fn flame(c: &mut Criterion) {
    for (w, h) in [(160u16, 48u16), (230, 60)] {
        let (worst, open, which) = worst_key(w, h);
        println!(
            "flame {FRAMES} frames {w}x{h}: slowest key ({which}: update + draw) {:.2} ms, target 16 ms{}; opening (f: update + draw) {:.1} ms, target 16 ms{}",
            worst.as_secs_f64() * 1e3,
            met(worst),
            open.as_secs_f64() * 1e3,
            met(open),
        );
        let theme = Theme { color: true };
        let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
        let mut s = opened(w, h);
        press(&mut s, KeyCode::Char('f'));
        press(&mut s, KeyCode::Char('j'));
        let mut right = true;
        c.bench_function(&format!("flame_100k_key_and_draw_{w}x{h}"), |b| {
            b.iter(|| {
                // Sideways and back: a key that re-lays out and redraws the whole graph.
                press(
                    &mut s,
                    if right {
                        KeyCode::Char('l')
                    } else {
                        KeyCode::Char('h')
                    },
                );
                right = !right;
                term.draw(|f| ui::draw(f, black_box(&s), &theme)).unwrap();
            })
        });
    }
    let s = opened(160, 48);
    let data = s.session.data.clone().unwrap();
    // On the loader thread, once per load (not a key).
    c.bench_function("flame_100k_build_graph_on_load", |b| {
        b.iter(|| cpuprof_tui::views::flame::model::FlameTree::from_explorer(black_box(&data)))
    });
    c.bench_function("flame_100k_open", |b| {
        b.iter_batched(
            || s.clone(),
            |mut s| {
                press(&mut s, KeyCode::Char('f'));
                s
            },
            criterion::BatchSize::LargeInput,
        )
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(2));
    targets = flame
}
criterion_main!(benches);
