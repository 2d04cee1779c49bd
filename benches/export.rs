//! `cpuprof-tui export` on a >= 100 MB CpuBackend dump (the Execute runs of
//! `fixtures/cpu/wide_browse.etdp` repeated, with its log), end to end (process start to
//! file written), side by side with `report --format json` on the same file. Short on
//! purpose: 10 samples each. A summary prints medians, ratios, output sizes and peak RSS
//! (from `/usr/bin/time` when installed).
//!
//! Then the timeline view on the largest inputs: building it (the background load) and
//! one 160x48 frame, for the 100 MB dump's median run and for a 1,000,000-call trace.

use cpuprof_testkit::big_dump;

use std::path::Path;
use std::time::Duration;

use cpuprof_tui::app::AppState;
use cpuprof_tui::profile::ProfileRequest;
use cpuprof_tui::ui::{self, Theme};
use cpuprof_tui::views::timeline::state::{self as timeline, TimelineView};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::sync::Arc;

use cpuprof_testkit::bench_run as run;

use run::*;

const RUNS: [(&str, &[&str]); 3] = [
    ("report --format json", &["report", "--format", "json"]),
    (
        "export --format folded",
        &["export", "--format", "folded", "--warmup", "5"],
    ),
    (
        "export --format chrome",
        &["export", "--format", "chrome", "--warmup", "5"],
    ),
];

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("tempdir");
    let source = std::fs::read(root.join("fixtures/cpu/wide_browse.etdp")).expect("fixture");
    let (bytes, runs) = big_dump::repeat_execute_runs(&source, 100_000_000);
    let input = dir.path().join("big_wide.etdp");
    std::fs::write(&input, &bytes).expect("write big dump");
    std::fs::copy(
        root.join("fixtures/cpu/wide_browse.log"),
        dir.path().join("big_wide.log"),
    )
    .expect("log");
    eprintln!(
        "export: built {:.1} MB dump, {runs} runs",
        bytes.len() as f64 / 1e6
    );
    let out = dir.path().join("out");

    let mut g = c.benchmark_group("export_100MB");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(5));
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    for (name, args) in RUNS {
        g.bench_function(name, |b| b.iter(|| run(args, &input, &out)));
    }
    g.finish();

    eprintln!("\nsummary (median of 5 runs each, same file, warm page cache)");
    eprintln!(
        "{:<24} {:>10} {:>8} {:>12} {:>10}",
        "command", "time", "ratio", "output", "peak RSS"
    );
    let mut base = None;
    for (name, args) in RUNS {
        let t = median_of(5, || run(args, &input, &out));
        let base = *base.get_or_insert(t);
        let size = std::fs::metadata(&out).map_or(0, |m| m.len());
        eprintln!(
            "{:<24} {:>8.0}ms {:>7.2}x {:>9.1} MB {:>10}",
            name,
            t.as_secs_f64() * 1e3,
            t.as_secs_f64() / base.as_secs_f64(),
            size as f64 / 1e6,
            peak_rss_kib(args, &input, &out)
                .map_or("n/a".into(), |k| format!("{:.0} MB", k as f64 / 1024.0))
        );
    }
}

/// A torch.profiler-style trace: `calls` cpu_op events on 4 threads, each top-level call
/// holding two children.
fn chrome_trace(calls: usize) -> String {
    let mut out = String::from("{\"traceEvents\":[\n");
    let mut t: u64 = 0;
    for i in 0..calls / 3 {
        let tid = i % 4;
        let ts = t as f64 / 1000.0;
        for (k, (off, dur)) in [(0u64, 9_000u64), (1_000, 3_000), (5_000, 3_000)]
            .iter()
            .enumerate()
        {
            if i > 0 || k > 0 {
                out.push_str(",\n");
            }
            out.push_str(&format!(
                "{{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op{k}\",\"pid\":1,\"tid\":{tid},\"ts\":{:.3},\"dur\":{:.3}}}",
                ts + *off as f64 / 1000.0,
                *dur as f64 / 1000.0
            ));
        }
        t += 10_000;
    }
    out.push_str("\n]}\n");
    out
}

/// The explorer with `view` open, as the UI loop holds it.
fn state_with(view: TimelineView) -> AppState {
    let mut state = AppState::new(160, 48);
    state.views.push(Box::new(view));
    // The timeline is drawn over the panes of the profile on screen.
    state.session.data = Some(cpuprof_tui::app::ExplorerData::default());
    state
}

fn timeline_bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("tempdir");
    let source = std::fs::read(root.join("fixtures/cpu/wide_browse.etdp")).expect("fixture");
    let (bytes, _) = big_dump::repeat_execute_runs(&source, 100_000_000);
    let dump = dir.path().join("big_wide.etdp");
    std::fs::write(&dump, &bytes).expect("write big dump");
    let trace = dir.path().join("big_trace.json");
    std::fs::write(&trace, chrome_trace(1_000_000)).expect("write trace");

    let mut g = c.benchmark_group("timeline_view");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(5));
    for (label, path, warmup) in [("dump_100MB", &dump, 5), ("trace_1M_calls", &trace, 0)] {
        let request = ProfileRequest::new(path.clone(), None, warmup);
        // The background load (on its thread), then what the UI thread does with it.
        g.bench_function(format!("{label}/load (worker thread)"), |b| {
            b.iter(|| cpuprof_tui::source::load_timeline(&request).expect("loads"))
        });
        let loaded = Arc::new(cpuprof_tui::source::load_timeline(&request).expect("loads"));
        g.bench_function(format!("{label}/install (UI thread)"), |b| {
            b.iter(|| {
                let mut v = TimelineView::loading(0);
                timeline::install(&mut v, loaded.clone());
                v
            })
        });
        let mut view = TimelineView::loading(0);
        timeline::install(&mut view, loaded.clone());
        let state = state_with(view);
        let mut term = Terminal::new(TestBackend::new(160, 48)).expect("terminal");
        g.bench_function(format!("{label}/frame_160x48"), |b| {
            b.iter(|| {
                term.draw(|f| ui::draw(f, &state, &Theme::plain()))
                    .expect("draw");
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench, timeline_bench);
criterion_main!(benches);
