//! The modules view (`m`): its totals are `report --by-module`'s (and, where its match is
//! unambiguous, the Inspector's `find_total_for_module`), Enter on a row reveals the row
//! in the explorer's tree, `c` copies a module path or a row's `file:line`, and without
//! an ETRecord `m` only says so. Snapshots at the four sizes.

use crate::common;
use crate::support::explorer::ExplorerOf;

use std::collections::BTreeMap;

use common::{close, fixture, json, path};
use cpuprof_tui::app::{AppState, Effect, ExplorerData, ViewKind};
use cpuprof_tui::profile::ProfileRequest;
use cpuprof_tui::views::modules::state::{ModuleLine, ModulesView};
use ratatui::crossterm::event::KeyCode;
use serde_json::Value;

use crate::support::explorer;
use explorer::{key, keys, screen, SIZES};

const XNN: &str = "etrecord/modules_xnnpack.etdp";

fn opened(rel: &str, warmup: usize, size: (u16, u16)) -> AppState {
    // Relative to the crate root (the tests' working directory): the header names the
    // file, and a snapshot must not depend on where the checkout lies.
    let request = ProfileRequest::new(std::path::Path::new("fixtures").join(rel), None, warmup);
    explorer::opened_request(request, size)
}

fn view(s: &AppState) -> &ModulesView {
    match s.views.top().and_then(|v| v.downcast_ref::<ModulesView>()) {
        Some(m) => m,
        None => panic!("the modules view is not on top: {:?}", s.views.top()),
    }
}

fn data(s: &AppState) -> &ExplorerData {
    s.session.data.as_ref().unwrap()
}

/// Select the first line `pick` accepts.
fn select(s: &mut AppState, pick: impl Fn(&ExplorerData, ModuleLine) -> bool) {
    key(s, KeyCode::Home);
    for _ in 0..200 {
        let line = view(s).selected_line().unwrap();
        if pick(data(s), line) {
            return;
        }
        key(s, KeyCode::Down);
    }
    panic!("no such line");
}

fn report_modules(dump: &str) -> Vec<Value> {
    let o = common::report(&[
        &path(dump),
        "--by-module",
        "--format",
        "json",
        "--warmup",
        "0",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    v["modules"].as_array().unwrap().clone()
}

/// Every module line of the view shows the numbers of `report --by-module --format
/// json`; those are the Inspector's `find_total_for_module` wherever its substring match
/// is unambiguous (`fixtures/etrecord/*.inspector.json`).
#[test]
fn the_views_totals_are_the_reports_and_the_inspectors() {
    for stem in ["modules_xnnpack", "modules_portable"] {
        let dump = format!("etrecord/{stem}.etdp");
        let mut s = opened(&dump, 0, (120, 40));
        keys(&mut s, "m");
        keys(&mut s, "e");
        let v = view(&s);
        let d = data(&s);
        let shown: BTreeMap<String, (f64, f64, f64, f64)> = v
            .lines
            .iter()
            .filter(|l| matches!(l, ModuleLine::Module { .. }))
            .map(|&l| {
                let m = ModulesView::module_of(d, l).unwrap();
                (
                    m.path.clone(),
                    (
                        m.median_total,
                        m.mean_total,
                        m.share,
                        m.median_not_attributable,
                    ),
                )
            })
            .collect();
        let report = report_modules(&dump);
        assert_eq!(
            shown.len(),
            report.len(),
            "{stem}: every module is on screen"
        );
        for r in &report {
            let p = r["path"].as_str().unwrap();
            let (median, mean, share, shared) = shown[p];
            assert!(
                close(median, r["median_total"].as_f64().unwrap(), 1e-12),
                "{stem} {p}"
            );
            assert!(
                close(mean, r["mean_total"].as_f64().unwrap(), 1e-12),
                "{stem} {p}"
            );
            assert!(
                close(share, r["share"].as_f64().unwrap(), 1e-12),
                "{stem} {p}"
            );
            assert!(
                close(
                    shared,
                    r["median_not_attributable"].as_f64().unwrap(),
                    1e-12
                ),
                "{stem} {p}"
            );
        }
        let golden = json(&format!("etrecord/{stem}.inspector.json"));
        let mut checked = 0;
        for g in golden["modules"].as_array().unwrap() {
            if g["ambiguous"].as_bool().unwrap() {
                continue;
            }
            let p = g["path"].as_str().unwrap();
            let want = g["find_total_for_module"].as_f64().unwrap();
            assert!(
                close(shown[p].1, want, 1e-9),
                "{stem} {p}: {} vs {want}",
                shown[p].1
            );
            checked += 1;
        }
        assert!(checked >= 5, "{stem}: {checked}");
    }
}

/// The totals by hand from the profile's own rows (modules_xnnpack, no warm-up dropped):
/// `layers.0` holds the flip kernel of instruction 1 and the delegate of instruction 0
/// (which spans `embed`, `layers.0.fc` and `layers.0`, so it sits at the root and its time
/// is not attributable to `layers.0` alone); the root holds every delegate call and kernel.
#[test]
fn totals_by_hand_on_the_xnnpack_fixture() {
    let p = common::load(XNN, None, 0);
    let mut s = opened(XNN, 0, (120, 40));
    keys(&mut s, "me");
    let d = data(&s);
    let module = |path: &str| {
        view(&s)
            .lines
            .iter()
            .find_map(|&l| {
                ModulesView::module_of(d, l)
                    .filter(|m| m.path == path && matches!(l, ModuleLine::Module { .. }))
            })
            .unwrap_or_else(|| panic!("{path} not shown"))
    };
    let call = |i: i32| {
        p.delegates
            .iter()
            .find(|d| d.instruction_id == i)
            .unwrap()
            .call
            .clone()
    };
    let kernel = |i: i32| {
        p.other_operators
            .iter()
            .find(|o| o.instruction_id == i)
            .unwrap()
            .kernels[0]
            .stats
            .clone()
    };
    let l0 = module("layers.0");
    assert!(close(
        l0.median_total,
        call(0).median() + kernel(1).median(),
        1e-12
    ));
    assert!(close(
        l0.mean_total,
        call(0).mean() + kernel(1).mean(),
        1e-12
    ));
    assert!(close(l0.median_not_attributable, call(0).median(), 1e-12));
    let all_median: f64 = [0, 2, 5].iter().map(|&i| call(i).median()).sum::<f64>()
        + [1, 3, 4, 6]
            .iter()
            .map(|&i| kernel(i).median())
            .sum::<f64>();
    let root = module("");
    assert!(close(root.median_total, all_median, 1e-12));
    assert!(close(
        root.share,
        all_median / p.method.as_ref().unwrap().median(),
        1e-12
    ));
    // The spanning delegate is a row of the root, marked.
    let text = screen(&s);
    assert!(
        text.contains("· #0 DELEGATE_CALL [spans modules]"),
        "{text}"
    );
}

/// `m` without an ETRecord: one footer notice, no view.
#[test]
fn without_an_etrecord_m_says_so() {
    let mut s = opened("cpu/mlp_basic.etdp", 0, (120, 40));
    keys(&mut s, "m");
    assert_eq!(s.views.top_kind(), Some(ViewKind::Explorer));
    let notice = s.session.notice.clone().unwrap();
    assert!(notice.contains("no ETRecord"), "{notice}");
    assert!(screen(&s).contains("no module tree"));
}

/// Enter on a row closes the view and selects that row's node in the tree: the delegate
/// of instruction 5 (`head`), the flip kernel of instruction 3 (`layers.1`).
#[test]
fn enter_on_a_row_reveals_it_in_the_tree() {
    for (instr, kind, want) in [
        (5, "delegate", "delegate #5"),
        (3, "kernel", "native_call_flip.out"),
    ] {
        let mut s = opened(XNN, 0, (120, 40));
        keys(&mut s, "me");
        select(&mut s, |d, l| {
            ModulesView::row_of(d, l)
                .is_some_and(|(r, _)| r.instruction_id == instr && r.kind == kind)
        });
        key(&mut s, KeyCode::Enter);
        assert_eq!(
            s.views.top_kind(),
            Some(ViewKind::Explorer),
            "the view closed"
        );
        let id = s.explorer().tree.visible[s.explorer().tree.selected];
        let node = &data(&s).nodes[id];
        assert_eq!(node.name, want);
        if kind == "kernel" {
            let parent = &data(&s).nodes[node.parent.unwrap()];
            assert_eq!(parent.info, format!("instr {instr}"));
        }
    }
}

/// Enter on a module opens and closes it; `/` keeps the matches and their parents; `s`
/// sorts siblings by median (largest first); Esc clears the filter, then closes.
#[test]
fn fold_filter_sort_and_back() {
    let mut s = opened(XNN, 0, (120, 40));
    keys(&mut s, "m");
    let n = view(&s).lines.len();
    select(&mut s, |d, l| {
        matches!(l, ModuleLine::Module { .. })
            && ModulesView::module_of(d, l).unwrap().path == "layers.0"
    });
    key(&mut s, KeyCode::Enter);
    assert!(view(&s).lines.len() < n, "layers.0 closed");
    key(&mut s, KeyCode::Enter);
    assert_eq!(view(&s).lines.len(), n, "and open again");
    keys(&mut s, "/fc");
    key(&mut s, KeyCode::Enter);
    let paths: Vec<String> = view(&s)
        .lines
        .iter()
        .filter(|l| matches!(l, ModuleLine::Module { .. }))
        .map(|&l| ModulesView::module_of(data(&s), l).unwrap().path.clone())
        .collect();
    assert_eq!(
        paths,
        ["", "layers.0", "layers.0.fc", "layers.1", "layers.1.fc"]
    );
    key(&mut s, KeyCode::Esc);
    assert_eq!(view(&s).lines.len(), n, "Esc cleared the filter");
    keys(&mut s, "s");
    assert!(s.session.notice.as_deref().unwrap().contains("median"));
    // The root's children by median: layers.0 (10.2 µs) > embed (8.39) > layers.1 (5.83)
    // > head (3.99) > head_norm (0.60) (`report --by-module`).
    let top: Vec<String> = view(&s)
        .lines
        .iter()
        .filter_map(|&l| {
            ModulesView::module_of(data(&s), l)
                .filter(|m| m.depth == 1 && matches!(l, ModuleLine::Module { .. }))
        })
        .map(|m| m.path.clone())
        .collect();
    assert_eq!(top, ["layers.0", "embed", "layers.1", "head", "head_norm"]);
    key(&mut s, KeyCode::Esc);
    assert_eq!(
        s.views.top_kind(),
        Some(ViewKind::Explorer),
        "Esc closed the view"
    );
}

/// `c` on a module copies its path, on a row its source `file:line`; the footer says so.
#[test]
fn c_copies_the_module_path_or_the_rows_file_line() {
    let truth = json("etrecord/modules_xnnpack.truth.json");
    let mut s = opened(XNN, 0, (120, 40));
    keys(&mut s, "me");
    select(&mut s, |d, l| {
        matches!(l, ModuleLine::Module { .. })
            && ModulesView::module_of(d, l).unwrap().path == "layers.1.fc"
    });
    let e = key(&mut s, KeyCode::Char('c'));
    assert_eq!(e, [Effect::Copy("layers.1.fc".into())]);
    assert!(s
        .session
        .notice
        .as_deref()
        .unwrap()
        .contains("copied layers.1.fc"));
    select(&mut s, |d, l| {
        ModulesView::row_of(d, l).is_some_and(|(r, _)| r.instruction_id == 1)
    });
    let e = key(&mut s, KeyCode::Char('c'));
    // The first node of instruction 1 (the flip), its first frame, from the ETRecord's
    // own JSON (scripts/etrecord_truth.py).
    let node = &truth["methods"]["forward"]["instructions"]["1"]["nodes"][0];
    let frame = node["frame"].as_str().unwrap_or_else(|| panic!("{node}"));
    let Effect::Copy(text) = &e[0] else {
        panic!("{e:?}")
    };
    assert!(text.ends_with(&frame_file_line(frame)), "{text} vs {frame}");
    assert!(s.session.notice.as_deref().unwrap().contains(text.as_str()));
}

/// `File ".../make.py", line 83, in forward` or `make.py:83 in forward` → `make.py:83`.
fn frame_file_line(frame: &str) -> String {
    if let Some(rest) = frame.strip_prefix("File \"") {
        let (file, rest) = rest.split_once('"').unwrap();
        let line: String = rest
            .trim_start_matches(", line ")
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        let base = file.rsplit('/').next().unwrap();
        return format!("{base}:{line}");
    }
    frame
        .split(' ')
        .next()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_string()
}

/// Three methods: one heading per method, each with its own tree.
#[test]
fn several_methods_have_a_heading_each() {
    let mut s = opened("etrecord/three_method.etdp", 0, (120, 40));
    keys(&mut s, "m");
    let d = data(&s);
    let heads: Vec<&str> = view(&s)
        .lines
        .iter()
        .filter_map(|l| match l {
            ModuleLine::Method(k) => Some(d.modules[*k].method.as_str()),
            _ => None,
        })
        .collect();
    let mut sorted = heads.clone();
    sorted.sort();
    assert_eq!(sorted, ["decode", "prefill", "score"]);
}

#[test]
fn snapshots() {
    for size in SIZES {
        let mut s = opened(XNN, 0, size);
        keys(&mut s, "m");
        key(&mut s, KeyCode::Down);
        insta::assert_snapshot!(format!("modules_xnnpack_{}x{}", size.0, size.1), screen(&s));
    }
    // Typing a filter: the matches and their parents, the prompt at the bottom.
    let mut s = opened(XNN, 0, (80, 24));
    keys(&mut s, "m/flip");
    insta::assert_snapshot!("modules_xnnpack_filter_80x24", screen(&s));
    for size in SIZES {
        let mut s = opened("etrecord/three_method.etdp", 0, size);
        keys(&mut s, "m");
        insta::assert_snapshot!(format!("modules_three_{}x{}", size.0, size.1), screen(&s));
    }
}

/// The explorer: `c` on a tree row copies the row; in the detail pane of a row with a
/// source line it copies that `file:line` (the flip kernel of instruction 1:
/// `make_etrecord_fixtures.py:62` in the ETRecord's own JSON).
#[test]
fn explorer_c_copies_the_row_or_in_the_detail_its_file_line() {
    let truth = json("etrecord/modules_xnnpack.truth.json");
    let frame = truth["methods"]["forward"]["instructions"]["1"]["nodes"][0]["frame"]
        .as_str()
        .unwrap()
        .to_string();
    let mut s = opened(XNN, 0, (160, 48));
    // Reveal the flip kernel through the modules view, then copy in the tree.
    keys(&mut s, "me");
    select(&mut s, |d, l| {
        ModulesView::row_of(d, l).is_some_and(|(r, _)| r.instruction_id == 1)
    });
    key(&mut s, KeyCode::Enter);
    let e = key(&mut s, KeyCode::Char('c'));
    let Effect::Copy(row) = &e[0] else {
        panic!("{e:?}")
    };
    assert!(row.starts_with("native_call_flip.out · "), "{row}");
    // Tab to the detail pane (tree → table → detail): the detail still shows the tree's
    // node, and `c` copies its line.
    key(&mut s, KeyCode::Tab);
    key(&mut s, KeyCode::Tab);
    assert_eq!(s.explorer().focus, cpuprof_tui::app::Pane::Detail);
    let e = key(&mut s, KeyCode::Char('c'));
    let Effect::Copy(line) = &e[0] else {
        panic!("{e:?}")
    };
    assert!(
        line.ends_with(&frame_file_line(&frame)),
        "{line} vs {frame}"
    );
    assert!(s.session.notice.as_deref().unwrap().contains(line.as_str()));
    let text = screen(&s);
    assert!(text.contains("copies file:line"), "{text}");
}

/// The compare view's detail names the row's module (the flip kernel of instruction 3 is
/// `layers.1`'s, in the ETRecord's own JSON).
#[test]
fn the_compare_detail_names_the_module() {
    use cpuprof_tui::views::compare::state::CompareView;
    let truth = json("etrecord/modules_xnnpack.truth.json");
    let want = truth["methods"]["forward"]["instructions"]["3"]["nodes"][0]["module"]
        .as_str()
        .unwrap()
        .to_string();
    let dump = fixture(XNN);
    let args = explorer::compare_args(dump.clone(), dump, 0);
    let (f, b) = cpuprof_tui::report::compare::load_both(&args).unwrap();
    let mut s = AppState::for_compare(CompareView::new(f, b), 160, 48);
    keys(&mut s, "/flip");
    key(&mut s, KeyCode::Enter);
    for _ in 0..4 {
        let r = s.compare().unwrap().selected_row().unwrap();
        if r.instruction_id == Some(3) && r.kind.label() == "kernel" {
            break;
        }
        key(&mut s, KeyCode::Down);
    }
    let r = s.compare().unwrap().selected_row().unwrap();
    assert_eq!((r.instruction_id, r.kind.label()), (Some(3), "kernel"));
    assert_eq!(r.module.as_deref(), Some(want.as_str()));
    let text = screen(&s);
    assert!(text.contains(&format!("module {want}")), "{text}");
}

/// Any keys at any size over the modules view (tiny screens too) never panic, in
/// `update` or in drawing.
#[test]
fn any_keys_at_any_size_never_panic() {
    let keys = [
        KeyCode::Char('m'),
        KeyCode::Char('j'),
        KeyCode::Char('k'),
        KeyCode::Char('h'),
        KeyCode::Char('l'),
        KeyCode::Char('e'),
        KeyCode::Char('E'),
        KeyCode::Char('s'),
        KeyCode::Char('S'),
        KeyCode::Char('/'),
        KeyCode::Char('f'),
        KeyCode::Char('x'),
        KeyCode::Char('c'),
        KeyCode::Char('r'),
        KeyCode::Char('?'),
        KeyCode::Enter,
        KeyCode::Esc,
        KeyCode::Backspace,
        KeyCode::PageDown,
        KeyCode::PageUp,
        KeyCode::End,
        KeyCode::Home,
        KeyCode::Tab,
    ];
    let mut rng = cpuprof_testkit::rng::XorShift::new(0x2545_f491_4f6c_dd1d);
    let mut next = move || rng.next_u64();
    for stem in [XNN, "etrecord/three_method.etdp"] {
        for size in [
            (0, 0),
            (1, 1),
            (12, 3),
            (20, 6),
            (40, 9),
            (80, 24),
            (230, 60),
        ] {
            let mut s = opened(stem, 0, size);
            for _ in 0..300 {
                if s.quit {
                    break;
                }
                let k = keys[(next() % keys.len() as u64) as usize];
                if k == KeyCode::Char('q') {
                    continue;
                }
                key(&mut s, k);
                screen(&s);
            }
        }
    }
}

/// `compare --format csv` carries each row's module (the flip kernel of instruction 3 is
/// `layers.1`'s in the ETRecord's own JSON).
#[test]
fn compare_csv_carries_the_module() {
    let truth = json("etrecord/modules_xnnpack.truth.json");
    let want = truth["methods"]["forward"]["instructions"]["3"]["nodes"][0]["module"]
        .as_str()
        .unwrap();
    let a = path(XNN);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .args(["compare", &a, &a, "--format", "csv"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let (kind, instr, module) = (col("kind"), col("instruction_id"), col("module"));
    let row: Vec<&str> = lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .find(|r| r[kind] == "kernel" && r[instr] == "3")
        .expect("the kernel of instruction 3");
    assert_eq!(row[module], want);
}

/// Issue #47: the title says which model files the tree was read from (found beside
/// the dump: `modules_xnnpack.etrecord` and `modules_xnnpack.pte`), at every size; on a
/// narrow screen the ETRecord's name stays whole.
#[test]
fn title_names_the_model_files() {
    for size in SIZES {
        let mut s = opened(XNN, 0, size);
        keys(&mut s, "m");
        let text = screen(&s);
        let title = text
            .lines()
            .find(|l| l.contains("Modules · "))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(
            title.contains("modules_xnnpack.etrecord"),
            "{size:?}: {title}"
        );
        assert!(title.contains(" · by model order "), "{size:?}: {title}");
        if size.0 >= 120 {
            assert!(title.contains("modules_xnnpack.pte"), "{size:?}: {title}");
        }
    }
}
