//! The explorer's first screen (#22): the answer line under the header (dump and trace),
//! checked against the fixtures' truth files, and its snapshots at the four sizes.

use crate::support::explorer::ExplorerOf;
use std::collections::BTreeMap;

use cpuprof_tui::app::{update, Action, AppState, Effect, ExplorerData};
use cpuprof_tui::profile::ProfileRequest;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::support::explorer;
use explorer::{key, keys, opened, request, screen, SIZES};

fn snap(name: &str, size: (u16, u16), s: &AppState) {
    insta::assert_snapshot!(format!("{name}_{}x{}", size.0, size.1), screen(s));
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn samples(stats: &serde_json::Value) -> Vec<f64> {
    stats["samples_ms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

/// `Convolution (NHWC, F32) IGEMM #2` -> `Convolution (NHWC, F32) IGEMM`, by hand.
fn strip_instance(name: &str) -> String {
    match name.rsplit_once(" #") {
        Some((head, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => head.into(),
        _ => name.into(),
    }
}

/// Per-type sums of medians over Method::execute's median, from the truth file alone:
/// every operator event of every plan step and every native call of a non-delegated
/// instruction (type, share, instances), largest first.
fn truth_shares(truth: &str) -> Vec<(String, f64, usize)> {
    let t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(truth).unwrap()).unwrap();
    let mut by: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    for d in t["delegates"].as_array().unwrap() {
        for s in d["steps"].as_array().unwrap() {
            for o in s["operators"].as_array().into_iter().flatten() {
                let e = by
                    .entry(strip_instance(o["event"].as_str().unwrap()))
                    .or_default();
                e.0 += median(&samples(&o["stats"]));
                e.1 += 1;
            }
        }
    }
    for i in t["instructions"].as_array().unwrap() {
        if i["kind"] == "operator" {
            let e = by.entry(i["event"].as_str().unwrap().into()).or_default();
            e.0 += median(&samples(&i["native_call"]));
            e.1 += 1;
        }
    }
    let method = t["method_execute"]["median_ms"].as_f64().unwrap();
    let mut v: Vec<(String, f64, usize)> = by
        .into_iter()
        .map(|(k, (ms, n))| (k, ms / method, n))
        .collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1));
    v
}

/// cnn2_basic (3 warm-up, 20 timed): the answer's top types and shares equal the truth
/// file's per-type sums over Method::execute (IGEMM 79.37%, Transpose 4.03%,
/// pixel_shuffle 3.24% when worked out by hand from the truth's samples).
#[test]
fn dump_answer_equals_the_truth() {
    let truth = truth_shares("fixtures/cpu/cnn2_basic.truth.json");
    let s = opened("fixtures/cpu/cnn2_basic.etdp", 3, (160, 48));
    let data = s.session.data.as_ref().unwrap();
    let a = cpuprof_tui::views::explorer::answer::for_table(data, &s.explorer().table, 3).unwrap();
    assert_eq!(a.over, "Method::execute");
    assert_eq!(a.items.len(), 3);
    for (item, (ty, share, n)) in a.items.iter().zip(&truth) {
        assert_eq!(&*item.type_name, ty);
        assert!(
            (item.share - share).abs() < 1e-6,
            "{ty}: {} vs {share}",
            item.share
        );
        assert_eq!(item.count, *n);
    }
    let rest = 1.0 - truth[..3].iter().map(|t| t.1).sum::<f64>();
    assert!((a.other - rest).abs() < 1e-6);
    assert_eq!(
        a.to_string(),
        "IGEMM 79% (4) · Transpose 4% (5) · pixel_shuffle 3% · other 13%"
    );
    // The header says it under the total.
    let text = screen(&s);
    let third = text.lines().nth(2).unwrap();
    assert_eq!(
        third,
        "time of Method::execute: IGEMM 79% (4) · Transpose 4% (5) · pixel_shuffle 3% · Max Pooling 3% · neg 2% · other 9%"
    );
}

/// cnn_infer's `key_averages()`: self time shares of all ops, by hand from the golden.
#[test]
fn trace_answer_equals_key_averages() {
    let golden: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("fixtures/torch/cnn_infer.key_averages.json").unwrap(),
    )
    .unwrap();
    let mut ops: Vec<(String, f64)> = golden
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["name"].as_str().unwrap().to_string(),
                o["self_cpu_time_total_us"].as_f64().unwrap(),
            )
        })
        .collect();
    let total: f64 = ops.iter().map(|o| o.1).sum();
    ops.sort_by(|a, b| b.1.total_cmp(&a.1));
    let s = opened("fixtures/torch/cnn_infer.json", 0, (160, 48));
    let data = s.session.data.as_ref().unwrap();
    let a = cpuprof_tui::views::explorer::answer::for_table(data, &s.explorer().table, 3).unwrap();
    assert_eq!(a.over, "self time");
    for (item, (name, us)) in a.items.iter().zip(&ops) {
        assert_eq!(&*item.type_name, name);
        assert!((item.share - us / total).abs() < 1e-4, "{name}");
    }
    assert_eq!(&*a.items[0].type_name, "aten::mkldnn_convolution");
}

/// The answer line follows the delegate scope (`d`) and the filter (`/`).
#[test]
fn answer_line_dump() {
    for size in SIZES {
        let mut s = opened("fixtures/cpu/cnn2_basic.etdp", 3, size);
        snap("answer_dump", size, &s);
        key(&mut s, KeyCode::Tab);
        keys(&mut s, "/conv");
        key(&mut s, KeyCode::Enter);
        snap("answer_dump_filtered", size, &s);
    }
}

#[test]
fn answer_line_trace() {
    for size in SIZES {
        let s = opened("fixtures/torch/cnn_infer.json", 0, size);
        snap("answer_trace", size, &s);
    }
}

fn opened_with_peak(path: &str, warmup: usize, peak: Option<Peak>, (w, h): (u16, u16)) -> AppState {
    let mut s = AppState::new(w, h);
    s.session.peak = peak;
    explorer::load_into(s, request(path, warmup))
}

fn shift(s: &mut AppState, c: char) {
    update(
        s,
        Action::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::SHIFT)),
    );
}

use cpuprof_tui::app::table::cell;
use cpuprof_tui::app::Column;
use cpuprof_tui::profile::efficiency::Peak;

const PEAK: Peak = Peak {
    gflops: 100.0,
    gbps: 20.0,
};

/// cnn2_basic's convolutions by hand from their shapes (README of fixtures/cpu) and
/// whole-µs medians: IGEMM #2 of d0, input [1,16,30,30], weight [16,16,3,3], bias [16],
/// output [1,16,30,30]: FLOPs 2 × 14400 × 144 = 4,147,200 in 94 µs = 44.1 GFLOP/s;
/// bytes (14400 + 2304 + 16 + 14400) × 4 = 124,480 in 94 µs = 1.32 GB/s. With peaks
/// 100 GFLOP/s and 20 GB/s (ridge 5 FLOP/B) its intensity 33.3 FLOP/B is compute-bound:
/// 44.1 / min(100, 33.3 × 20) = 44%.
#[test]
fn efficiency_cells_by_hand() {
    let s = opened_with_peak("fixtures/cpu/cnn2_basic.etdp", 3, Some(PEAK), (160, 48));
    let d = s.session.data.as_ref().unwrap();
    let conv = d
        .ops
        .iter()
        .find(|o| o.name == "Convolution (NHWC, F32) IGEMM #2" && o.delegate == "d0")
        .unwrap();
    assert_eq!(conv.stats.median(), 0.094);
    assert_eq!(conv.cost.flops, Some(4_147_200));
    assert_eq!(conv.cost.bytes, Some(124_480));
    assert_eq!(cell(conv, Column::Gflops), "44.1");
    assert_eq!(cell(conv, Column::Gbps), "1.32");
    assert_eq!(cell(conv, Column::Peak), "44% comp");
    // A transpose moves data only: 0 FLOPs; (1·3·32·32 in + out) × 4 = 24,576 B in its
    // 2.5 µs median = 9.83 GB/s; intensity 0 < 5: memory-bound at 9.83 / 20 = 49%.
    let tr = d
        .ops
        .iter()
        .find(|o| o.name == "Transpose (ND, X32) #1" && o.delegate == "d0")
        .unwrap();
    assert_eq!(cell(tr, Column::Gflops), "0");
    assert_eq!(cell(tr, Column::Gbps), "9.83");
    assert_eq!(cell(tr, Column::Peak), "49% mem");
    // A kernel without shapes has no rates.
    let ps = d
        .ops
        .iter()
        .find(|o| o.name == "native_call_pixel_shuffle.out")
        .unwrap();
    assert_eq!(cell(ps, Column::Gflops), "-");
    assert_eq!(cell(ps, Column::Peak), "-");
    // The type's sums (`o`): the four IGEMMs, 4,147,200 + 1,806,336 ([1,4,30,30] ·
    // [32,4,3,3] → [1,32,28,28]: 2 × 25088 × 36) + 777,600 ([1,3,32,32] · [16,3,3,3]:
    // 2 × 14400 × 27) + 1,036,800 ([1,16,15,15] · [16,16,3,3]: 2 × 3600 × 144) =
    // 7,767,936 FLOPs in 94 + 42 + 27 + 24 = 187 µs: 41.5 GFLOP/s.
    let g = d
        .groups
        .iter()
        .find(|g| g.name == "Convolution (NHWC, F32) IGEMM")
        .unwrap();
    assert_eq!(g.cost.flops, Some(7_767_936));
    assert_eq!(cell(g, Column::Gflops), "41.5");
    // Without --peak there is no roofline column.
    let plain = opened("fixtures/cpu/cnn2_basic.etdp", 3, (160, 48));
    assert!(!plain.table_columns().contains(&Column::Peak));
    assert!(s.table_columns().contains(&Column::Peak));
}

/// The rate columns with `--peak`, sorted by GFLOP/s (Shift-V), then by type (`o`).
#[test]
fn efficiency_columns() {
    for size in SIZES {
        let mut s = opened_with_peak("fixtures/cpu/cnn2_basic.etdp", 3, Some(PEAK), size);
        key(&mut s, KeyCode::Tab);
        shift(&mut s, 'V');
        snap("efficiency_by_gflops", size, &s);
        key(&mut s, KeyCode::Char('o'));
        snap("efficiency_by_type", size, &s);
    }
}

/// A trace opens on its answer: the call tree open along the hottest path, the table by
/// self time. cnn_infer's `key_averages()`: `aten::mkldnn_convolution` has the most self
/// time (265.4 ms of 384.4 ms), not the `iteration` wrapper (4.6 ms).
#[test]
fn trace_first_screen() {
    for size in SIZES {
        let s = opened("fixtures/torch/cnn_infer.json", 0, size);
        assert_eq!(s.explorer().table.sort, Column::SelfTime);
        let d = s.session.data.as_ref().unwrap();
        let top = &d.ops[s.explorer().table.rows[0]];
        assert_eq!(top.name, "aten::mkldnn_convolution");
        // The path iteration > aten::conv2d > ... > aten::mkldnn_convolution is open:
        // the convolution's node is listed in the tree.
        let listed: Vec<&str> = s
            .explorer()
            .tree
            .visible
            .iter()
            .map(|&i| d.nodes[i].name.as_str())
            .collect();
        assert!(listed.contains(&"aten::mkldnn_convolution"), "{listed:?}");
        // Selected where the time stops going to one child: the convolution (99.9% of
        // its parent; its hottest child, aten::empty, has 0.1%).
        let sel = s.explorer().tree.visible[s.explorer().tree.selected];
        assert_eq!(d.nodes[sel].name, "aten::mkldnn_convolution");
        let text = screen(&s);
        assert!(text.contains("Sel[f] (total)") || size.0 < 120, "{text}");
        assert!(!text.contains("o types"), "{text}");
        snap("trace_first_screen", size, &s);
    }
}

/// The tree keeps its share bars and `of parent` column at 120x40 with a delegate of the
/// real multi-delegate dump open (its long XNNPACK names are cut, then the info text).
/// multi_delegate (fixtures/real README): 4 XNNPACK delegates, instructions 5, 7, 9, 11;
/// multi_delegate8: 8 delegates, instructions 9, 11, ..., 23.
#[test]
fn tree_at_every_size() {
    for (dump, name) in [
        ("fixtures/real/multi_delegate.etdp", "tree_multi_delegate"),
        ("fixtures/real/multi_delegate8.etdp", "tree_multi_delegate8"),
    ] {
        tree_of(dump, name);
    }
}

fn tree_of(dump: &str, name: &str) {
    for size in SIZES {
        let mut s = opened(dump, 0, size);
        // Down to the first delegate and open it (its operators are its children).
        key(&mut s, KeyCode::Char('j'));
        key(&mut s, KeyCode::Char('l'));
        let text = screen(&s);
        assert!(text.contains("of parent"), "{text}");
        snap(name, size, &s);
        key(&mut s, KeyCode::Char('e'));
        let text = screen(&s);
        assert!(text.contains("of parent"), "{text}");
        assert!(text.contains('█'), "{text}");
        snap(&format!("{name}_all_open"), size, &s);
    }
}

/// The explorer with `data` installed as a load would.
fn installed(data: ExplorerData, (w, h): (u16, u16)) -> AppState {
    let mut s = AppState::new(w, h);
    let effects = s.load(ProfileRequest::demo(None));
    let Some(Effect::Load { generation, .. }) = effects.first().cloned() else {
        unreachable!()
    };
    update(
        &mut s,
        Action::Loaded {
            generation,
            result: Ok(Box::new(data)),
        },
    );
    s
}

/// Select tree node `name` (the first with it) and show it in the detail.
fn select_node(s: &mut AppState, name: &str) {
    let id = s
        .session
        .data
        .as_ref()
        .unwrap()
        .nodes
        .iter()
        .position(|n| n.name == name)
        .unwrap();
    s.reveal_node(id);
}

/// cnn2_drop_ops (fixtures/cpu-faults README): the error
/// `xnnpack_operator_events_missing` is about step `XNNPACK/subgraph:conv_3+2`;
/// selecting the step shows it in the detail pane (before only `w` did), its delegate
/// says there is one below it.
#[test]
fn finding_in_the_detail_pane() {
    for size in SIZES {
        let mut s = opened("fixtures/cpu-faults/cnn2_drop_ops.etdp", 2, size);
        select_node(&mut s, "XNNPACK/subgraph:conv_3+2");
        if size.0 < 110 {
            // Narrow: the detail (of the tree's node) takes the screen when focused.
            key(&mut s, KeyCode::BackTab);
        }
        let text = screen(&s);
        assert!(text.contains("✗ xnnpack_operator_events_missing"), "{text}");
        snap("finding_in_detail", size, &s);
    }
    let mut s = opened("fixtures/cpu-faults/cnn2_drop_ops.etdp", 2, (160, 48));
    select_node(&mut s, "delegate #0");
    assert!(screen(&s).contains("1 error below this node (w lists them)"));
}

/// #20: a share bound of 100% or more reads `–` and the detail says why. By hand: the
/// sample's delegate #4 call made 0.8 µs in every run and its only operator, `Add`, 0 µs
/// (under the 1 µs quantum): the share of the delegate is below 1 µs / 0.8 µs = 125% —
/// no bound.
#[test]
fn a_share_without_a_bound_says_why() {
    use cpuprof_testkit::sample;
    let mut p = sample::profile();
    let d4 = &mut p.delegates[1];
    d4.call = sample::stats(&[0.0008; 6], &[0.0008; 2]);
    // The delegate holds only the Add (its GEMM left out, so its time adds up).
    d4.operators.retain(|o| o.name.starts_with("Add"));
    let add = d4
        .operators
        .iter_mut()
        .find(|o| o.name.starts_with("Add"))
        .unwrap();
    add.stats = sample::stats(&[0.0; 6], &[0.0; 2]);
    let data = ExplorerData::from_profile(&p);
    let add = data.ops.iter().find(|o| o.name.starts_with("Add")).unwrap();
    assert_eq!(cell(add, Column::Share), "–");
    // Of the method (1.075 ms) the bound 1 µs / 1.075 ms = 0.093% reads <0.1%.
    assert_eq!(cell(add, Column::ShareMethod), "<0.1%");
    for size in SIZES {
        let mut s = installed(data.clone(), size);
        select_node(&mut s, "Add (ND, F32) #1");
        if size.0 < 110 {
            key(&mut s, KeyCode::BackTab);
        }
        let text = screen(&s);
        assert!(text.contains("%parent –"), "{text}");
        snap("share_without_bound", size, &s);
    }
}

/// Profiles of several methods: the table lists the operators of every method, so the
/// shares are of the methods' Method::execute medians summed. two_method, by hand from
/// its rows: method 1 15.073 µs, method 2 4.0515 µs (19.1245 µs); GEMM 13 µs + 0 µs
/// (2 instances) = 68%, cumsum 0.756 µs = 4%, other 28%.
#[test]
fn answer_line_of_several_methods() {
    let s = opened("fixtures/real/two_method.etdp", 0, (160, 48));
    let d = s.session.data.as_ref().unwrap();
    let a = cpuprof_tui::views::explorer::answer::for_table(d, &s.explorer().table, 5).unwrap();
    assert_eq!(a.over, "Method::execute (2 methods)");
    assert_eq!(a.to_string(), "GEMM 68% (2) · cumsum 4% · other 28%");
    assert!((a.items[0].share - 0.013 / (0.015073 + 0.0040515)).abs() < 1e-9);
}
