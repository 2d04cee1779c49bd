//! Snapshots of every view on a `TestBackend` at 80x24, 120x40, 160x48 and 230x60, on the real fixtures
//! loaded through the pipeline (`load_profile`). Numbers were checked against the
//! fixtures' truth files when the snapshots were accepted (see the comments per test).

use crate::support::explorer::ExplorerOf;
use std::sync::atomic::AtomicBool;

use cpuprof_tui::app::{update, Action, AppState, Effect, ExplorerData};
use cpuprof_tui::profile::{load_profile, LoadPhase, ProfileRequest};
use cpuprof_tui::ui::{self, Theme};
use cpuprof_tui::worker::load_explorer_data;
use ratatui::crossterm::event::KeyCode;

use crate::support::explorer;
use explorer::{key, keys, load, opened, request, screen, SIZES};

/// The demo as `--demo` opens it (5 warm-up runs).
fn opened_demo(size: (u16, u16)) -> AppState {
    explorer::opened_request(ProfileRequest::demo(None), size)
}

/// Every row of the table, as text (what a user would read with enough width).
fn table_text(s: &AppState) -> String {
    screen(s)
}

const WIDE: &str = "fixtures/cpu/wide_browse.etdp";

fn snap(name: &str, size: (u16, u16), s: &AppState) {
    insta::assert_snapshot!(format!("{name}_{}x{}", size.0, size.1), screen(s));
}

/// wide_browse, 5 warm-up: 30 kept of 35; Method::execute median 1.113 ms
/// (truth: method_execute samples, min 1.023497, max 1.201313); delegate #1 median
/// 1.048 ms (truth 1.048071), first step 486.89 µs (truth 0.4868905).
#[test]
fn plan_tree() {
    for size in SIZES {
        let mut s = opened(WIDE, 5, size);
        key(&mut s, KeyCode::Char('j'));
        snap("wide_tree", size, &s);
    }
    // cnn2_basic, 3 warm-up (truth: 23 runs; method median 0.23562 ms).
    for size in SIZES {
        let s = opened("fixtures/cpu/cnn2_basic.etdp", 3, size);
        snap("cnn2_tree", size, &s);
    }
}

/// 79 rows: 76 delegate operators + 3 non-delegated kernels (truth instructions).
#[test]
fn operator_table() {
    for size in SIZES {
        let mut s = opened(WIDE, 5, size);
        key(&mut s, KeyCode::Tab);
        snap("wide_table", size, &s);
    }
    // Plain XNNPACK (real runtime): three GEMM operators directly under the call.
    for size in SIZES {
        let mut s = opened("fixtures/real/mlp_xnnpack.etdp", 0, size);
        key(&mut s, KeyCode::Char('e'));
        key(&mut s, KeyCode::Tab);
        snap("mlp_xnnpack_table", size, &s);
    }
}

/// The only IGEMM convolution of wide_browse; its samples are in the truth file.
#[test]
fn detail_histogram() {
    for size in SIZES {
        let mut s = opened(WIDE, 5, size);
        key(&mut s, KeyCode::Char('/'));
        keys(&mut s, "igemm");
        key(&mut s, KeyCode::Enter);
        key(&mut s, KeyCode::Enter);
        snap("wide_detail", size, &s);
    }
}

/// cnn2_noplan: the one warning `no_cpu_plan_in_log`, then the log lines.
#[test]
fn warnings_and_log() {
    for size in SIZES {
        let mut s = opened("fixtures/cpu/cnn2_noplan.etdp", 2, size);
        key(&mut s, KeyCode::Char('w'));
        snap("cnn2_noplan_log", size, &s);
    }
}

#[test]
fn help() {
    for size in SIZES {
        let mut s = opened(WIDE, 5, size);
        key(&mut s, KeyCode::Char('?'));
        snap("help", size, &s);
    }
}

#[test]
fn empty_filter_result() {
    for size in SIZES {
        let mut s = opened(WIDE, 5, size);
        key(&mut s, KeyCode::Char('/'));
        keys(&mut s, "xyz");
        snap("empty_filter", size, &s);
    }
}

#[test]
fn loading_state() {
    for size in SIZES {
        let mut s = AppState::new(size.0, size.1);
        s.load(request("big.etdp", 5));
        update(
            &mut s,
            Action::Progress {
                generation: 1,
                phase: LoadPhase::Reading,
                bytes_done: 50 * 1024 * 1024,
                bytes_total: 200 * 1024 * 1024,
            },
        );
        snap("loading", size, &s);
    }
}

/// A failing reload (the real error for a corrupt dump) over the last good profile.
#[test]
fn error_dialog_over_last_good_profile() {
    let message = load("fixtures/real/bad_flipped.etdp", 0).unwrap_err();
    assert!(
        message.starts_with("fixtures/real/bad_flipped.etdp: "),
        "{message}"
    );
    for size in SIZES {
        let mut s = opened(WIDE, 5, size);
        key(&mut s, KeyCode::Char('+'));
        update(
            &mut s,
            Action::Loaded {
                generation: 2,
                result: Err(message.clone()),
            },
        );
        snap("error_dialog", size, &s);
    }
}

/// NO_COLOR: the plain theme paints no colour at all (selection uses reverse video).
#[test]
fn no_color_theme_uses_modifiers_only() {
    use ratatui::backend::TestBackend;
    use ratatui::style::{Color, Modifier};
    use ratatui::Terminal;
    let mut s = opened(WIDE, 5, (160, 48));
    key(&mut s, KeyCode::Tab);
    for (theme, want_color) in [(Theme::plain(), false), (Theme { color: true }, true)] {
        let mut t = Terminal::new(TestBackend::new(160, 48)).unwrap();
        t.draw(|f| ui::draw(f, &s, &theme)).unwrap();
        let buf = t.backend().buffer();
        let colored = buf
            .content()
            .iter()
            .any(|c| c.fg != Color::Reset || c.bg != Color::Reset);
        assert_eq!(colored, want_color);
        if !want_color {
            assert!(buf
                .content()
                .iter()
                .any(|c| c.modifier.contains(Modifier::REVERSED)));
        }
    }
}

// torch.profiler trace (fixtures/torch/cnn_infer.json): the call tree replaces the plan
// tree; checked against cnn_infer.key_averages.json when accepted: `iteration` 5 calls,
// self 4.597 ms; `aten::conv2d` 10 calls, self 117 µs.
#[test]
fn trace_call_tree_and_ops() {
    for size in SIZES {
        let mut s = opened("fixtures/torch/cnn_infer.json", 0, size);
        key(&mut s, KeyCode::Char('e'));
        snap("trace_call_tree", size, &s);
        key(&mut s, KeyCode::Tab);
        keys(&mut s, "/conv");
        key(&mut s, KeyCode::Enter);
        snap("trace_ops_filtered", size, &s);
    }
}

// THAPI LTTng text (babeltrace2 --clock-seconds): two threads, the orphan exit as a
// failed call (an error finding), the never-exited entry as a warning.
#[test]
fn trace_thapi_findings() {
    for size in SIZES {
        let mut s = opened(
            "fixtures/thapi/babeltrace2_pretty_clock_seconds.txt",
            0,
            size,
        );
        key(&mut s, KeyCode::Char('w'));
        snap("trace_thapi_findings", size, &s);
    }
}

/// Watch mode: two profiles and one error entry, newest (cnn2_basic) shown. Truth medians
/// with 3 warm-up: mlp_basic 33.52 µs, cnn2_basic 235.6 µs; they are different models, so
/// no percentage but "other model". Both 23 runs. Times are fixed (UTC): 10:00:05 and
/// 10:00:20; the error row (a path that does not exist) keeps its report time 10:00:30.
#[test]
fn watch_runs_list() {
    use cpuprof_tui::watch::{DumpPair, WatchEvent};
    use std::path::PathBuf;
    use std::time::{Duration, UNIX_EPOCH};
    let at = |s: u64| UNIX_EPOCH + Duration::from_secs(36_000 + s);
    for size in SIZES {
        let mut s = AppState::new(size.0, size.1);
        s.start_watch("fixtures/cpu", 3);
        for (stem, t) in [("mlp_basic", 5), ("cnn2_basic", 20)] {
            let etdump = PathBuf::from(format!("fixtures/cpu/{stem}.etdp"));
            let log = Some(etdump.with_extension("log"));
            let event = WatchEvent::Ready(DumpPair {
                etdump,
                log,
                modified: at(t),
                size: 1,
            });
            let effects = update(&mut s, Action::Watch { event, at: at(t) });
            let Some(Effect::Load {
                request,
                generation,
            }) = effects.first().cloned()
            else {
                panic!("no load: {effects:?}")
            };
            let result = load_profile(&request, &mut |_| {}, &AtomicBool::new(false))
                .map(|p| Box::new(ExplorerData::from_profile(&p)))
                .map_err(|e| e.to_string());
            update(&mut s, Action::Loaded { generation, result });
        }
        let event = WatchEvent::Error {
            path: "fixtures/cpu/junk.etdp".into(),
            message: "not an ETDump: identifier is \"XX00\", expected \"ED00\"".into(),
            modified: None,
        };
        update(&mut s, Action::Watch { event, at: at(30) });
        let text = screen(&s);
        assert!(text.contains("other model"), "{text}");
        assert!(!text.contains("+602.9%"), "{text}");
        snap("watch_runs", size, &s);
        // The error row selected: its message in full; `p` stops following.
        update(&mut s, Action::Command(cpuprof_tui::app::Command::Top));
        if size == (80, 24) {
            s.explorer_mut().focus = cpuprof_tui::app::Pane::Runs;
            update(&mut s, Action::Command(cpuprof_tui::app::Command::Top));
            let text = screen(&s);
            assert!(text.contains("expected \"ED00\""), "{text}");
            snap("watch_error_selected", size, &s);
        }
    }
}

/// The demo: tree, then the operator table (the slowest first), at every size. Nothing
/// may be cut at 160x48 and wider: the longest demo name, `Fully Connected (NC, F32)
/// GEMM #13` (33 cells), and the longest step, `XNNPACK/subgraph:constant_pad_nd+18`.
#[test]
fn demo_tree_and_table() {
    for size in SIZES {
        let mut s = opened_demo(size);
        snap("demo_tree", size, &s);
        key(&mut s, KeyCode::Tab);
        snap("demo_table", size, &s);
        let text = table_text(&s);
        if size.0 >= 160 {
            assert!(!text.contains("GEMM #…"), "{text}");
            assert!(text.contains("XNNPACK/subgraph:conv2d_10+18"), "{text}");
            assert!(text.contains("[1,16,32,32] [64,16,1,1] [64]"), "{text}");
        }
        // The delegate reads d1, never as part of the name.
        assert!(text.contains(" d1 "), "{text}");
    }
}

/// Sorting by P90 at 80x24 shows the P90 column (it is never the one that leaves).
#[test]
fn sorted_column_is_on_screen() {
    for size in SIZES {
        let mut s = opened_demo(size);
        key(&mut s, KeyCode::Tab);
        keys(&mut s, "P");
        let text = table_text(&s);
        assert!(text.contains("[P]90↓"), "{size:?}\n{text}");
        keys(&mut s, "U");
        let text = table_text(&s);
        assert!(text.contains("Inp[u]t shapes↑"), "{size:?}\n{text}");
        if size.0 == 80 {
            snap("demo_sorted_inputs", size, &s);
        }
    }
}

/// A CpuBackend case with a fault: operator events of one step are missing (error
/// `xnnpack_operator_events_missing` on `XNNPACK/subgraph:conv_3+2`, per the README of
/// fixtures/cpu-faults).
#[test]
fn faulty_cpu_case() {
    for size in SIZES {
        let mut s = opened("fixtures/cpu-faults/cnn2_drop_ops.etdp", 2, size);
        snap("fault_drop_ops_tree", size, &s);
        key(&mut s, KeyCode::Tab);
        snap("fault_drop_ops_table", size, &s);
        key(&mut s, KeyCode::Char('w'));
        snap("fault_drop_ops_log", size, &s);
        // v: the next section, the decoded plan of delegate #0 (3 regions, 16 candidates
        // in its CPU_PLAN_CHUNK JSON), at the top of the view.
        key(&mut s, KeyCode::Char('v'));
        let text = screen(&s);
        let third = text.lines().nth(4).unwrap_or("");
        assert!(
            third.contains("── plan of delegate #0 (CpuBackend) ──"),
            "{text}"
        );
        assert!(text.contains("3 regions:"), "{text}");
        if size == (80, 24) {
            snap("fault_drop_ops_plan", size, &s);
        }
    }
}

/// `mlp_noshapes_hours` was written without shape metadata (fixtures/cpu-faults README):
/// the XNNPACK operators say "shapes not recorded" in the table and the detail.
#[test]
fn dump_without_shapes_says_so() {
    let mut s = opened("fixtures/cpu-faults/mlp_noshapes_hours.etdp", 2, (160, 48));
    key(&mut s, KeyCode::Tab);
    let text = screen(&s);
    assert!(text.contains("shapes not recorded"), "{text}");
    snap("noshapes_table", (160, 48), &s);
}

/// `--no-log`: the dump beside its log opens without it: the header names only the
/// dump, and the CpuBackend steps cannot be named from a plan (warning
/// `no_cpu_plan_in_log`).
#[test]
fn no_log_opens_the_dump_alone() {
    let req = request("fixtures/cpu/mlp_basic.etdp", 3).without_log();
    let data = load_explorer_data(&req, &mut |_| {}, &AtomicBool::new(false)).unwrap();
    assert_eq!(data.files, ["fixtures/cpu/mlp_basic.etdp"]);
    assert!(
        data.findings.iter().any(|f| f.kind == "no_cpu_plan_in_log"),
        "{:?}",
        data.findings
    );
    let with = load("fixtures/cpu/mlp_basic.etdp", 3).unwrap();
    assert_eq!(with.files.len(), 2);
}

/// The demo grouped by operator type (`o`): 20 types; the 21 GEMMs take 0.6465 ms a run
/// (median over runs) = 58.1% of Method::execute (from the truth file, see e2e_pty).
#[test]
fn demo_grouped_by_type() {
    for size in SIZES {
        let mut s = opened_demo(size);
        key(&mut s, KeyCode::Char('o'));
        let text = screen(&s);
        assert!(
            text.contains("Operator types · all delegates · 20"),
            "{text}"
        );
        snap("demo_types", size, &s);
    }
}

/// At 160x48 every fixture's table holds every operator name, every step and, where
/// shapes were recorded, the input shapes whole (issue #9). Longest texts are measured
/// here from the rows themselves.
#[test]
fn every_fixture_fits_at_160x48() {
    use cpuprof_tui::app::Column;
    let files = [
        "fixtures/cpu/cnn2_basic.etdp",
        "fixtures/cpu/cnn2_crlf_noise.etdp",
        "fixtures/cpu/cnn2_noplan.etdp",
        "fixtures/cpu/mlp_basic.etdp",
        "fixtures/cpu/mlp_w0_t1.etdp",
        "fixtures/cpu/wide_browse.etdp",
        "fixtures/cpu-faults/cnn2_bad_metadata.etdp",
        "fixtures/cpu-faults/cnn2_drop_ops.etdp",
        "fixtures/cpu-faults/cnn2_drop_step.etdp",
        "fixtures/cpu-faults/cnn2_gap_plan.etdp",
        "fixtures/cpu-faults/cnn2_truncated_plan.etdp",
        "fixtures/cpu-faults/mlp_noshapes_hours.etdp",
        "fixtures/real/cnn_portable.etdp",
        "fixtures/real/mlp_portable_debugbuf.etdp",
        "fixtures/real/mlp_xnnpack.etdp",
    ];
    for file in files {
        let mut s = opened(file, 0, (160, 48));
        key(&mut s, KeyCode::Tab);
        let d = s.session.data.as_ref().unwrap();
        let longest = |f: &dyn Fn(&cpuprof_tui::app::OpRow) -> &str| {
            d.ops
                .iter()
                .map(|o| f(o).chars().count())
                .max()
                .unwrap_or(0) as u16
        };
        let name = longest(&|o| &o.name);
        let step = longest(&|o| &o.step);
        let inputs = longest(&|o| &o.input_shapes);
        // A step or shape that every row shares is said once in the title instead.
        let in_title = |c: Column| s.explorer().table.uniform_text.iter().any(|(u, _)| *u == c);
        let step = if in_title(Column::Step) { 0 } else { step };
        let inputs = if in_title(Column::Inputs) { 0 } else { inputs };
        let layout = s.table_layout(158, 20);
        let width = |c: Column| layout.iter().find(|x| x.0 == c).map(|x| x.1);
        assert!(width(Column::Name).unwrap() >= name, "{file}: {layout:?}");
        if step > 0 {
            assert!(
                width(Column::Step).unwrap_or(0) >= step,
                "{file}: {layout:?}"
            );
        }
        if inputs > 0 {
            assert!(
                width(Column::Inputs).unwrap_or(0) >= inputs,
                "{file}: {layout:?}"
            );
        }
        let screen = screen(&s);
        // The rows on screen (the table lists at least 20 at this size) show it whole.
        for &i in s.explorer().table.rows.iter().take(20) {
            let o = &d.ops[i];
            assert!(screen.contains(&o.step), "{file}: {} not on screen", o.step);
        }
    }
}

/// Every finding of the CpuBackend fault cases names its delegate (README of
/// fixtures/cpu-faults: missing step events, missing operator events, bad metadata,
/// incomplete plans are all about one delegate's step or operator).
#[test]
fn fault_findings_name_their_delegate() {
    for (file, warmup) in [
        ("fixtures/cpu-faults/cnn2_drop_step.etdp", 2),
        ("fixtures/cpu-faults/cnn2_drop_ops.etdp", 2),
        ("fixtures/cpu-faults/cnn2_bad_metadata.etdp", 1),
    ] {
        let d = load(file, warmup).unwrap();
        assert!(!d.findings.is_empty(), "{file}");
        // `below_clock_resolution` is about the whole profile (its XNNPACK operators in
        // every delegate), not one delegate's step or operator.
        for f in d
            .findings
            .iter()
            .filter(|f| f.kind != "below_clock_resolution")
        {
            assert!(f.delegate.is_some(), "{file}: {f:?}");
        }
    }
}

#[test]
fn footer_names_cold_first_runs_when_opened_without_warmup() {
    // cnn_portable: by the auto rule its first 2 runs are cold (tests/profile_warmup.rs
    // works the threshold out by hand). Opened with warm-up 0, the footer says so with the
    // key that drops one; opened with warm-up 2, it does not.
    let s = opened("fixtures/real/cnn_portable.etdp", 0, (160, 48));
    let text = screen(&s);
    let footer = text.lines().rev().find(|l| !l.is_empty()).unwrap();
    assert!(
        footer.contains("2 cold first runs (+ drops one)"),
        "{footer}"
    );
    let s = opened("fixtures/real/cnn_portable.etdp", 2, (160, 48));
    assert!(!screen(&s).contains("cold first run"));
}

/// Watch mode's change column against a baseline: five runs of the sample program with
/// constructed `Method::execute` samples (eight runs each, `s`, `s + 0.1`, …: a 10.0,
/// b 10.05, c 11.0, d 11.45, e 9.0) and one of another model. Verdicts (scipy's exact
/// `mannwhitneyu`, written out in `tests/watch_update.rs::baseline_runs`): default
/// baselines give e `-20.8%`, d `~+4.0%` (p 0.0047 but under the 5% minimum change),
/// c `+9.1%`, b `~+0.5%` (p 0.72); with a pinned: e `-9.7%`, d `+14.0%`, c `+9.7%`, b
/// `~+0.5%`, a `baseline`. The compare view of e against a at 160x48 follows.
#[test]
fn watch_runs_against_a_baseline() {
    use cpuprof_testkit::sample;
    use cpuprof_tui::app::Command;
    use cpuprof_tui::watch::{DumpPair, WatchEvent};
    use std::time::{Duration, UNIX_EPOCH};
    let at = |s: u64| UNIX_EPOCH + Duration::from_secs(36_000 + s);
    let run = |name: &str, start: f64, other: bool| {
        let mut p = sample::profile();
        p.method = Some(cpuprof_tui::stats::Stats::from_ms(
            &(0..8).map(|i| start + 0.1 * i as f64).collect::<Vec<_>>(),
        ));
        p.source.etdump = name.into();
        if other {
            p.delegates.remove(0);
        }
        ExplorerData::from_profile(&p)
    };
    for size in [(80, 24), (160, 48)] {
        let mut s = AppState::new(size.0, size.1);
        s.start_watch("out", 0);
        for (i, (name, start, other)) in [
            ("out/a.etdp", 10.0, false),
            ("out/b.etdp", 10.05, false),
            ("out/c.etdp", 11.0, false),
            ("out/d.etdp", 11.45, false),
            ("out/e.etdp", 9.0, false),
            ("out/o.etdp", 5.0, true),
        ]
        .into_iter()
        .enumerate()
        {
            let event = WatchEvent::Ready(DumpPair {
                etdump: name.into(),
                log: None,
                modified: at(10 * i as u64),
                size: 1,
            });
            let effects = update(
                &mut s,
                Action::Watch {
                    event,
                    at: at(10 * i as u64),
                },
            );
            let Some(Effect::Load { generation, .. }) = effects.first().cloned() else {
                panic!("no load: {effects:?}")
            };
            let result = Ok(Box::new(run(name, start, other)));
            update(&mut s, Action::Loaded { generation, result });
        }
        let text = screen(&s);
        // 80x24 shows three rows: o, e, d.
        assert!(text.contains("~+4.0%") && text.contains("-20.8%"), "{text}");
        if size.1 >= 48 {
            assert!(text.contains("+9.1%") && text.contains("~+0.5%"), "{text}");
        }
        snap("watch_runs_default_baseline", size, &s);
        for _ in 0..5 {
            update(&mut s, Action::Command(Command::OlderRun));
        }
        key(&mut s, KeyCode::Char('b'));
        let text = screen(&s);
        assert!(
            text.contains("baseline") && text.contains("~+0.5%"),
            "{text}"
        );
        if size.1 >= 48 {
            assert!(text.contains("+14.0%") && text.contains("-9.7%"), "{text}");
        }
        snap("watch_runs_pinned_baseline", size, &s);
        if size == (160, 48) {
            for _ in 0..4 {
                update(&mut s, Action::Command(Command::NewerRun));
            }
            key(&mut s, KeyCode::Char('d'));
            if let Some(v) = s.views.compare_mut() {
                v.scroll_to_fit(cpuprof_tui::views::compare::render::list_height(
                    size.0, size.1,
                ));
            }
            let text = screen(&s);
            assert!(
                text.contains("A: a.etdp") && text.contains("B: e.etdp"),
                "{text}"
            );
            snap("watch_compare_e_against_a", size, &s);
        }
    }
}
