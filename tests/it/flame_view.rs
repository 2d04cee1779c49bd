//! The flame graph view (`f`): snapshots at 80x24, 120x40, 160x48 and 230x60 of a dump,
//! a trace and a compare pair, with colour and without (the theme is a parameter); zoom,
//! search highlight and merged narrow frames; the keys' behaviour.

use crate::support::explorer::ExplorerOf;
use cpuprof_tui::app::{update, Action, AppState, Effect};
use cpuprof_tui::cli::CompareArgs;
use cpuprof_tui::report::compare::load_both;
use cpuprof_tui::ui::{self, Theme};
use cpuprof_tui::views::compare::state::CompareView;
use cpuprof_tui::views::flame::layout::SpanOf;
use cpuprof_tui::views::flame::model::FlameTree;
use cpuprof_tui::views::flame::state::FlameView;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;
use ratatui::Terminal;

use crate::support::explorer;
use explorer::{key, keys, opened, press, screen_with, SIZES};

const DUMP: &str = "fixtures/real/mlp_xnnpack.etdp";
const TRACE: &str = "fixtures/torch/cnn_infer.json";
const COMPARE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/compare");

fn compare_args(a: &str, b: &str, warmup: usize) -> CompareArgs {
    explorer::compare_args(
        format!("{COMPARE_DIR}/{a}"),
        format!("{COMPARE_DIR}/{b}"),
        warmup,
    )
}

fn compared((w, h): (u16, u16)) -> AppState {
    let (f, b) = load_both(&compare_args("cnn2_a.etdp", "cnn2_slow_b.etdp", 3)).unwrap();
    AppState::for_compare(CompareView::new(f, b), w, h)
}

fn flame(s: &AppState) -> &FlameView {
    s.views.flame().expect("the flame view is open")
}

/// The frame's cells with their colours, for the colour snapshots: each row's text,
/// then the background colour of each cell run.
fn colour_screen(s: &AppState) -> String {
    let mut t = Terminal::new(TestBackend::new(s.session.width, s.session.height)).unwrap();
    t.draw(|f| ui::draw(f, s, &Theme { color: true })).unwrap();
    let buf = t.backend().buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        let mut line = String::new();
        let mut runs: Vec<String> = Vec::new();
        let mut last: Option<(ratatui::style::Color, u16)> = None;
        for x in 0..buf.area.width {
            let c = &buf[(x, y)];
            line.push_str(c.symbol());
            match last {
                Some((bg, _)) if bg == c.bg => {}
                _ => {
                    if let Some((bg, from)) = last {
                        runs.push(format!("{from}-{}:{bg:?}", x - 1));
                    }
                    last = Some((c.bg, x));
                }
            }
        }
        if let Some((bg, from)) = last {
            if from > 0 || bg != ratatui::style::Color::Reset {
                runs.push(format!("{from}-{}:{bg:?}", buf.area.width - 1));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
        if runs.len() > 1 || runs.first().is_some_and(|r| !r.ends_with("Reset")) {
            out.push_str(&format!("  bg {}\n", runs.join(" ")));
        }
    }
    out
}

fn snap(name: &str, s: &AppState) {
    let tag = format!("{}x{}", s.session.width, s.session.height);
    insta::assert_snapshot!(format!("{name}_{tag}"), screen_with(s, Theme::plain()));
    insta::assert_snapshot!(format!("{name}_colour_{tag}"), colour_screen(s));
}

#[test]
fn dump_snapshots() {
    for size in SIZES {
        let mut s = opened(DUMP, 0, size);
        press(&mut s, 'f');
        assert!(s.views.flame().is_some());
        snap("flame_dump", &s);
    }
}

#[test]
fn trace_snapshots() {
    for size in SIZES {
        let mut s = opened(TRACE, 0, size);
        press(&mut s, 'f');
        snap("flame_trace", &s);
    }
}

#[test]
fn compare_snapshots() {
    for size in SIZES {
        let mut s = compared(size);
        press(&mut s, 'f');
        assert!(flame(&s).is_diff());
        snap("flame_compare", &s);
    }
}

const WIDE: &str = "fixtures/cpu/wide_browse.etdp";

fn label_of(s: &AppState, of: SpanOf) -> String {
    let v = flame(s);
    match of {
        SpanOf::Frame(f) => v.tree.frame(f).label.clone(),
        SpanOf::Merged(p) => format!("… under {}", v.tree.frame(p).label),
    }
}

/// Zoom into a plan step (breadcrumb and status line), then Esc zooms out level by
/// level, clears nothing more and closes the view.
#[test]
fn zoom_breadcrumb_and_esc_out() {
    for size in SIZES {
        let mut s = opened(WIDE, 5, size);
        press(&mut s, 'f');
        press(&mut s, 'j');
        assert_eq!(label_of(&s, flame(&s).selected), "delegate #1");
        press(&mut s, 'j');
        // The widest step of delegate #1 at the median run.
        assert_eq!(
            label_of(&s, flame(&s).selected),
            "XNNPACK/subgraph:conv2d+18"
        );
        key(&mut s, KeyCode::Enter);
        let v = flame(&s);
        assert_eq!(v.tree.frame(v.zoom).label, "XNNPACK/subgraph:conv2d+18");
        let crumbs: Vec<&str> = v
            .breadcrumb()
            .iter()
            .map(|&f| v.tree.frame(f).label.as_str())
            .collect();
        assert_eq!(crumbs, ["Method::execute", "delegate #1"]);
        snap("flame_zoomed", &s);
        key(&mut s, KeyCode::Esc);
        assert_eq!(flame(&s).tree.frame(flame(&s).zoom).label, "delegate #1");
        // Backspace outside the search field is Esc: zoom out, then leave.
        key(&mut s, KeyCode::Backspace);
        assert_eq!(flame(&s).zoom, 0);
        key(&mut s, KeyCode::Backspace);
        assert!(
            s.views.flame().is_none(),
            "Backspace at the root leaves the view"
        );
        press(&mut s, 'f');
        key(&mut s, KeyCode::Esc);
        assert!(s.views.flame().is_none(), "Esc at the root leaves the view");
        // q quits from the flame view.
        press(&mut s, 'f');
        assert!(press(&mut s, 'q').contains(&Effect::Quit));
    }
}

/// The status line of a step: its median (the truth file's), share of the root and of
/// the parent.
#[test]
fn status_line_gives_time_and_shares() {
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("fixtures/cpu/wide_browse.truth.json").unwrap(),
    )
    .unwrap();
    let mut s = opened(WIDE, 5, (160, 48));
    press(&mut s, 'f');
    press(&mut s, 'j');
    let v = flame(&s);
    let area = s.areas().body;
    let status = v.status(&v.layout(area));
    let SpanOf::Frame(d) = v.selected else {
        panic!()
    };
    let method = v.tree.frame(0).values[0] as f64;
    let delegate = v.tree.frame(d).values[0] as f64;
    // The medians are the truth file's Method::execute and delegate call medians.
    let median_ns = |v: &serde_json::Value| (v["median_ms"].as_f64().unwrap() * 1e6).round();
    assert_eq!(method, median_ns(&truth["method_execute"]));
    assert!(status.starts_with("delegate #1 · "), "{status}");
    assert!(
        status.contains(&format!("{:.1}% of root", delegate / method * 100.0)),
        "{status}"
    );
    assert!(
        status.contains(&format!("{:.1}% of parent", delegate / method * 100.0)),
        "{status}"
    );
}

/// `/GEMM`: every frame naming a GEMM highlighted; at the sum over kept runs their total
/// is the folded export's total of the stacks through a GEMM frame.
#[test]
fn search_highlights_and_totals_matches() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .args(["export", WIDE, "--format", "folded", "--warmup", "5"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let want: u64 = text
        .lines()
        .filter_map(|l| l.rsplit_once(' '))
        .filter(|(stack, _)| stack.split(';').any(|f| f.to_lowercase().contains("gemm")))
        .map(|(_, v)| v.parse::<u64>().unwrap())
        .sum();
    let root: u64 = text
        .lines()
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum();
    for size in SIZES {
        let mut s = opened(WIDE, 5, size);
        press(&mut s, 'f');
        press(&mut s, '%');
        assert!(flame(&s).title().contains("sum over kept runs"));
        press(&mut s, '/');
        keys(&mut s, "gemm");
        key(&mut s, KeyCode::Enter);
        let (n, total, share) = flame(&s).search_total().unwrap();
        assert!(n > 10, "{n}");
        assert_eq!(total, want);
        assert!((share - want as f64 / root as f64).abs() < 1e-12);
        press(&mut s, ']');
        let sel = label_of(&s, flame(&s).selected);
        assert!(sel.to_lowercase().contains("gemm"), "{sel}");
        snap("flame_search", &s);
        // Esc: zooms out to the root, clears the search, then leaves.
        while flame(&s).zoom != 0 {
            key(&mut s, KeyCode::Esc);
        }
        key(&mut s, KeyCode::Esc);
        assert!(s.views.flame().is_some_and(|v| v.search_total().is_none()));
        key(&mut s, KeyCode::Esc);
        assert!(s.views.flame().is_none());
    }
}

/// Narrow frames: delegate #1's narrowest children are one `…` span (after its wide
/// children) whose status names them and their total.
#[test]
fn narrow_frames_merge_into_one() {
    let mut s = opened(WIDE, 5, (80, 24));
    press(&mut s, 'f');
    press(&mut s, '%');
    press(&mut s, 'j');
    press(&mut s, 'j');
    for _ in 0..20 {
        if matches!(flame(&s).selected, SpanOf::Merged(_)) {
            break;
        }
        press(&mut s, 'l');
    }
    let v = flame(&s);
    let SpanOf::Merged(p) = v.selected else {
        panic!(
            "the last span of the row is the merged one: {:?}",
            v.selected
        )
    };
    assert_eq!(v.tree.frame(p).label, "delegate #1");
    let l = v.layout(s.areas().body);
    let (r, i) = l.find(v.selected).unwrap();
    let span = l.rows[r][i];
    // The merged children are the narrowest (of those with a time): their times add up.
    let kids: Vec<u32> = v
        .tree
        .sorted_children(p, 1)
        .iter()
        .copied()
        .filter(|&c| v.tree.frame(c).values[1] > 0)
        .collect();
    let narrow: u64 = kids[kids.len() - span.count as usize..]
        .iter()
        .map(|&c| v.tree.frame(c).values[1])
        .sum();
    assert_eq!(span.value, narrow);
    assert!((narrow as u128) * 80 < v.tree.frame(0).values[1] as u128 * span.count as u128);
    let status = v.status(&l);
    assert!(
        status.starts_with(&format!(
            "… {} frames narrower than a cell under delegate #1",
            span.count
        )),
        "{status}"
    );
    snap("flame_merged", &s);
}

/// `r` reveals the selected frame's row in the explorer's tree; clicks select, a second
/// click zooms.
#[test]
fn reveal_and_mouse() {
    let mut s = opened(WIDE, 5, (160, 48));
    press(&mut s, 'f');
    press(&mut s, 'j');
    press(&mut s, 'j');
    let SpanOf::Frame(f) = flame(&s).selected else {
        panic!()
    };
    let node = flame(&s).tree.frame(f).node.unwrap();
    press(&mut s, 'r');
    assert!(s.views.flame().is_none());
    let shown = s.explorer().tree.visible[s.explorer().tree.selected];
    assert_eq!(shown, node);
    assert_eq!(
        s.session.data.as_ref().unwrap().nodes[node].name,
        "XNNPACK/subgraph:conv2d+18"
    );

    press(&mut s, 'f');
    let body = s.areas().body;
    let g = cpuprof_tui::views::flame::state::graph_area(body);
    let l = flame(&s).layout(body);
    let target = l.rows[2][1];
    // Depth rows fill the graph: a shallow graph's rows are taller than a line.
    let (top, h) = flame(&s).row_lines(&l, body)[2];
    assert!(h > 1, "a shallow graph gets rows taller than a line");
    let click = |s: &mut AppState| {
        update(
            s,
            Action::Mouse {
                kind: cpuprof_tui::app::MouseAction::Click,
                x: g.x + target.x0,
                y: g.y + top + h - 1,
            },
        )
    };
    click(&mut s);
    assert_eq!(flame(&s).selected, target.of);
    assert_eq!(flame(&s).zoom, 0);
    click(&mut s);
    let SpanOf::Frame(t) = target.of else {
        panic!()
    };
    assert_eq!(flame(&s).zoom, t, "the second click zooms");
}

/// The differential graph: `%` shows A's widths; the status line gives the row's
/// change, interval and verdict as the comparison has them.
#[test]
fn differential_status_and_widths() {
    let mut s = compared((160, 48));
    let row = s
        .compare()
        .unwrap()
        .comparison()
        .rows
        .iter()
        .find(|r| r.name == "delegate #0")
        .cloned()
        .unwrap();
    press(&mut s, 'f');
    press(&mut s, 'j');
    let v = flame(&s);
    let SpanOf::Frame(f) = v.selected else {
        panic!()
    };
    assert_eq!(v.tree.frame(f).label, "delegate #0");
    let status = v.status(&v.layout(ratatui::layout::Rect::new(0, 0, 160, 48)));
    let (lo, hi) = row.ci_pct.unwrap();
    assert!(
        status.contains(&format!("change {:+.1}%", row.delta_pct.unwrap())),
        "{status}"
    );
    assert!(
        status.contains(&format!("[{lo:+.1}%, {hi:+.1}%]")),
        "{status}"
    );
    assert!(status.ends_with(row.verdict.label()), "{status}");
    let b_ns = (row.b.as_ref().unwrap().median() * 1e6).round() as u64;
    let a_ns = (row.a.as_ref().unwrap().median() * 1e6).round() as u64;
    assert_eq!(v.tree.frame(f).values, [b_ns, a_ns]);
    press(&mut s, '%');
    assert!(flame(&s).title().contains("A's median"));
    snap("flame_compare_a_widths", &s);
    key(&mut s, KeyCode::Esc);
    assert!(
        s.views.top_kind() == Some(cpuprof_tui::app::ViewKind::Compare),
        "Esc returns to the compare view"
    );
}

/// A dump of two methods: one root over a frame per method (then its `Method::execute`,
/// as the folded export writes them), each the method's median.
#[test]
fn two_methods_under_one_root() {
    let mut s = opened("fixtures/real/two_method.etdp", 0, (120, 40));
    press(&mut s, 'f');
    let v = flame(&s);
    let data = s.session.data.as_ref().unwrap();
    assert_eq!(v.tree.frame(0).label, "all methods");
    let methods: Vec<&str> = v
        .tree
        .frame(0)
        .children
        .iter()
        .map(|&c| v.tree.frame(c).label.as_str())
        .collect();
    let roots: Vec<&str> = data
        .roots
        .iter()
        .map(|&r| data.nodes[r].name.trim_start_matches("Method::execute · "))
        .collect();
    assert_eq!(methods, roots);
    assert_eq!(methods.len(), 2);
    // Each method's one child is its Method::execute, of the same time.
    for &m in &v.tree.frame(0).children {
        let kids = &v.tree.frame(m).children;
        assert_eq!(kids.len(), 1);
        assert_eq!(v.tree.frame(kids[0]).label, "Method::execute");
        assert_eq!(v.tree.frame(kids[0]).values, v.tree.frame(m).values);
    }
    snap("flame_two_methods", &s);
}

/// A profile with no tree: the graph is empty, its keys do nothing, Esc closes it.
#[test]
fn empty_profile_opens_an_empty_graph() {
    use cpuprof_tui::app::Command;
    use cpuprof_tui::views::flame::model::FlameTree;
    let mut v = FlameView::new(FlameTree::from_explorer(
        &cpuprof_tui::app::ExplorerData::default(),
    ));
    let area = ratatui::layout::Rect::new(0, 0, 80, 20);
    assert_eq!(v.tree.frame(0).values, [0, 0]);
    assert!(v.layout(area).rows.is_empty());
    for c in [
        Command::Down,
        Command::NextMatch,
        Command::Reveal,
        Command::Enter,
    ] {
        // At most a notice (nothing to match, no tree row); never a pop or a reveal.
        let steps = v.command(c, area);
        assert!(
            steps
                .iter()
                .all(|s| matches!(s, cpuprof_tui::app::step::Step::Notice(_))),
            "{steps:?}"
        );
    }
    assert_eq!(v.status(&v.layout(area)), "");
    assert_eq!(
        v.command(Command::Back, area),
        [cpuprof_tui::app::step::Step::Pop]
    );
}

/// Two traces compared: the differential graph is the call tree (the ops-by-name rows are
/// no frames), one frame per call-tree row.
#[test]
fn differential_trace_is_the_call_tree() {
    let mut args = compare_args("trace_a.json", "trace_slow_b.json", 0);
    args.warmup = cpuprof_tui::profile::warmup::Warmup::default();
    let (f, b) = load_both(&args).unwrap();
    let nodes = f
        .rows
        .iter()
        .filter(|r| r.kind == cpuprof_tui::rows::RowKind::Node)
        .count();
    let roots = f
        .rows
        .iter()
        .filter(|r| r.kind == cpuprof_tui::rows::RowKind::Node && r.parent.is_none())
        .count();
    assert!(nodes > 2);
    let mut s = AppState::for_compare(CompareView::new(f, b), 120, 40);
    press(&mut s, 'f');
    let v = flame(&s);
    let synthetic = usize::from(roots != 1);
    assert_eq!(v.tree.frames.len(), nodes + synthetic);
    assert!(v
        .tree
        .frames
        .iter()
        .all(|fr| fr.diff.is_some() || fr.parent.is_none()));
    snap("flame_compare_trace", &s);
}

/// `f` lays out the graph the loader built with the data (once per load, off the UI
/// thread), and builds none itself: the view shares the loaded graph, which equals one
/// built afresh from the same data.
#[test]
fn f_shows_the_graph_built_on_load() {
    for path in [TRACE, DUMP, WIDE] {
        let mut s = opened(path, 0, (120, 40));
        let loaded = s.session.data.as_ref().unwrap().flame.clone();
        let loaded = loaded.unwrap_or_else(|| panic!("{path}: the loader built no graph"));
        press(&mut s, 'f');
        assert!(std::sync::Arc::ptr_eq(&flame(&s).tree, &loaded), "{path}");
        let fresh = FlameTree::from_explorer(s.session.data.as_ref().unwrap());
        assert_eq!(*loaded, fresh, "{path}");
    }
}
