//! The flame graph's sandwich (`i`) and left-heavy order (`s`), on real data: snapshots at
//! the four sizes, the keys' moves, and the left-heavy graph's widths against the folded
//! export (`cpuprof-tui export --format folded`, an output of its own path).

use cpuprof_tui::app::AppState;
use cpuprof_tui::ui::Theme;
use cpuprof_tui::views::flame::layout::SpanOf;
use cpuprof_tui::views::flame::sandwich::Half;
use cpuprof_tui::views::flame::state::FlameView;
use ratatui::crossterm::event::KeyCode;

use crate::support::explorer;
use explorer::{key, keys, opened, press, screen_with, SIZES};

const TRACE: &str = "fixtures/torch/cnn_infer.json";
const PORTABLE: &str = "fixtures/real/cnn_portable.etdp";

fn flame(s: &AppState) -> &FlameView {
    s.views.flame().expect("the flame view is open")
}

fn selected_label(s: &AppState) -> String {
    let v = flame(s);
    let sw = v.sandwich.as_ref().expect("the sandwich is open");
    match sw.selected {
        SpanOf::Frame(f) => sw.tree(sw.half).frames[f as usize].label.clone(),
        SpanOf::Merged(_) => "…".into(),
    }
}

/// `aten::addmm` in the CNN's trace: its caller is `aten::linear` (the model's Linear
/// layer, as PyTorch runs it), the centre's status gives its frames, total and self
/// time; Enter on a caller re-centres on it; `i` and Esc close the sandwich only.
#[test]
fn sandwich_of_addmm() {
    for size in SIZES {
        let mut s = opened(TRACE, 0, size);
        press(&mut s, 'f');
        press(&mut s, '/');
        keys(&mut s, "aten::addmm");
        key(&mut s, KeyCode::Enter);
        press(&mut s, ']');
        press(&mut s, 'i');
        let sw = flame(&s).sandwich.as_ref().expect("i opens the sandwich");
        assert_eq!(sw.sandwich.name, "aten::addmm");
        assert!(flame(&s).title().starts_with("Sandwich of aten::addmm"));
        insta::assert_snapshot!(
            format!("sandwich_addmm_{}x{}", size.0, size.1),
            screen_with(&s, Theme::plain())
        );
        // Up: the caller.
        press(&mut s, 'k');
        assert_eq!(flame(&s).sandwich.as_ref().unwrap().half, Half::Callers);
        assert_eq!(selected_label(&s), "aten::linear");
        // Down: back to the centre, then a callee.
        press(&mut s, 'j');
        assert_eq!(
            flame(&s).sandwich.as_ref().unwrap().selected,
            SpanOf::Frame(0)
        );
        press(&mut s, 'k');
        key(&mut s, KeyCode::Enter);
        assert_eq!(
            flame(&s).sandwich.as_ref().unwrap().sandwich.name,
            "aten::linear",
            "Enter re-centres"
        );
        press(&mut s, 'i');
        assert!(flame(&s).sandwich.is_none(), "i closes the sandwich");
        press(&mut s, 'i');
        key(&mut s, KeyCode::Esc);
        assert!(flame(&s).sandwich.is_none(), "Esc closes the sandwich only");
        assert!(s.views.flame().is_some());
    }
}

/// The centre's status line names the frames, total and self time; the figures are the
/// ones `flame_folded::sandwich_totals_equal_key_averages` checks against PyTorch.
#[test]
fn sandwich_status_line() {
    let mut s = opened(TRACE, 0, (160, 48));
    press(&mut s, 'f');
    press(&mut s, '/');
    keys(&mut s, "aten::conv2d");
    key(&mut s, KeyCode::Enter);
    press(&mut s, ']');
    press(&mut s, 'i');
    let text = screen_with(&s, Theme::plain());
    let status = text
        .lines()
        .find(|l| l.starts_with("aten::conv2d · "))
        .unwrap_or_else(|| panic!("no status line:\n{text}"));
    assert!(status.contains("total 266.4 ms"), "{status}");
    assert!(status.contains("callers above, callees below"), "{status}");
}

/// Folded stacks of the portable CNN, each frame's instance number dropped (`OPERATOR_CALL
/// #3` → `OPERATOR_CALL`): the left-heavy graph's frame widths (weighting: sum over kept
/// runs, the folded values') are the sums of these stacks.
#[test]
fn left_heavy_widths_equal_the_folded_stacks_merged() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .args(["export", PORTABLE, "--format", "folded", "--warmup", "0"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let strip = |f: &str| match f.rsplit_once(" #") {
        Some((head, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            head.to_string()
        }
        _ => f.to_string(),
    };
    // Inclusive time of each merged path (without the root).
    let mut want: std::collections::BTreeMap<Vec<String>, u64> = Default::default();
    for line in text.lines() {
        let (stack, v) = line.rsplit_once(' ').unwrap();
        let v: u64 = v.parse().unwrap();
        let frames: Vec<String> = stack.split(';').skip(1).map(strip).collect();
        for depth in 1..=frames.len() {
            *want.entry(frames[..depth].to_vec()).or_default() += v;
        }
    }
    let mut s = opened(PORTABLE, 0, (160, 48));
    press(&mut s, 'f');
    press(&mut s, '%');
    press(&mut s, 's');
    assert!(flame(&s).left_heavy);
    assert!(flame(&s).title().contains("left-heavy"));
    let t = &flame(&s).tree;
    let mut got: std::collections::BTreeMap<Vec<String>, u64> = Default::default();
    for (i, f) in t.frames.iter().enumerate().skip(1) {
        let path: Vec<String> = t.path(i as u32)[1..]
            .iter()
            .map(|&p| t.frames[p as usize].label.clone())
            .collect();
        got.insert(path, f.values[1]);
    }
    assert_eq!(got, want);
    assert!(
        want.keys().any(|p| p == &["OPERATOR_CALL".to_string()]),
        "the portable dump's instructions merge into one OPERATOR_CALL"
    );
    insta::assert_snapshot!(
        "left_heavy_portable_160x48",
        screen_with(&s, Theme::plain())
    );
    press(&mut s, 's');
    assert!(!flame(&s).left_heavy);
    assert!(!flame(&s).title().contains("left-heavy"));
}

/// The differential graph has the sandwich and the left-heavy order too: the delegate's
/// sandwich in the compare pair has the method as its caller, and its total is B's median
/// of the delegate row (weighting 0: B's widths), as the comparison has it.
#[test]
fn differential_graph_sandwich_and_left_heavy() {
    use cpuprof_tui::app::AppState;
    use cpuprof_tui::report::compare::load_both;
    use cpuprof_tui::views::compare::state::CompareView;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/compare");
    let args = crate::support::explorer::compare_args(
        format!("{dir}/cnn2_a.etdp"),
        format!("{dir}/cnn2_slow_b.etdp"),
        3,
    );
    let (f, b) = load_both(&args).unwrap();
    let view = CompareView::new(f, b);
    let delegate_b = view
        .comparison()
        .rows
        .iter()
        .find(|r| r.name == "delegate #0")
        .and_then(|r| r.b.as_ref())
        .map(|s| (s.median() * 1e6).round() as u64)
        .expect("delegate #0 in B");
    let mut s = AppState::for_compare(view, 120, 40);
    press(&mut s, 'f');
    assert!(flame(&s).is_diff());
    // Down to the first delegate (widest first: delegate #0), its sandwich.
    press(&mut s, 'j');
    press(&mut s, 'i');
    let sw = flame(&s).sandwich.as_ref().expect("i opens the sandwich");
    assert_eq!(sw.sandwich.name, "delegate #0");
    assert_eq!(sw.sandwich.total[0], delegate_b);
    assert_eq!(sw.sandwich.callers.frames[1].label, "Method::execute");
    key(&mut s, KeyCode::Esc);
    press(&mut s, 's');
    assert!(flame(&s).left_heavy);
    assert!(flame(&s).title().contains("left-heavy"));
}
