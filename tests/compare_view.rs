//! The compare view: pure key handling (default order, changed-only filter, swap, tree)
//! and snapshots at 80x24 and 160x48 on the generated cnn2 pair (fixtures/compare: conv #3
//! 1.5x and neg 1.4x slower, pixel_shuffle 0.6x), and the README's compare key table.

use cpuprof_tui::app::compare::{CompareView, COMPARE_KEYS};
use cpuprof_tui::cli::CompareArgs;
use cpuprof_tui::compare::Verdict;
use cpuprof_tui::report::compare::load_both;
use cpuprof_tui::ui::{compare as ui_compare, Theme};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/compare");

#[path = "support/render.rs"]
mod render;

fn args(a: &str, b: &str, warmup: usize) -> CompareArgs {
    CompareArgs {
        a: format!("{DIR}/{a}").into(),
        b: format!("{DIR}/{b}").into(),
        format: None,
        output: None,
        log_a: None,
        log_b: None,
        no_log: false,
        warmup: cpuprof_tui::profile::warmup::Warmup::Runs(warmup),
        warmup_a: None,
        warmup_b: None,
        alpha: 0.05,
        min_change: 5.0,
        fail_on_regression: None,
        by_module: false,
    }
}

fn view() -> CompareView {
    let (f, b) = load_both(&args("cnn2_a.etdp", "cnn2_slow_b.etdp", 3)).unwrap();
    CompareView::new(f, b)
}

fn press(v: &mut CompareView, c: char) -> bool {
    v.key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn screen(v: &mut CompareView, (w, h): (u16, u16)) -> String {
    v.scroll_to_fit(ui_compare::list_height(w, h));
    render::frame_text(w, h, |f| ui_compare::draw(f, v, &Theme::plain()))
}

fn shown(v: &CompareView) -> Vec<(String, Verdict, Option<f64>)> {
    v.visible
        .iter()
        .map(|&i| {
            let r = &v.comparison().rows[i];
            (r.name.clone(), r.verdict, r.delta_pct)
        })
        .collect()
}

#[test]
fn default_order_is_regressions_largest_first_then_improvements() {
    let v = view();
    let rows = shown(&v);
    let slower: Vec<_> = rows.iter().take_while(|r| r.1 == Verdict::Slower).collect();
    assert!(slower.len() >= 2, "{rows:?}");
    for w in slower.windows(2) {
        assert!(w[0].2.unwrap() >= w[1].2.unwrap(), "{rows:?}");
    }
    let rest = &rows[slower.len()..];
    let faster: Vec<_> = rest.iter().take_while(|r| r.1 == Verdict::Faster).collect();
    assert!(!faster.is_empty());
    for w in faster.windows(2) {
        assert!(w[0].2.unwrap() <= w[1].2.unwrap(), "{rows:?}");
    }
    assert!(rest[faster.len()..].iter().all(|r| r.1 == Verdict::Same));
    // The selection starts on the largest regression.
    assert_eq!(v.selected_row().unwrap().verdict, Verdict::Slower);
}

#[test]
fn changed_only_swap_and_tree() {
    let mut v = view();
    let all = v.visible.len();
    press(&mut v, 'c');
    assert!(v.visible.len() < all);
    assert!(shown(&v).iter().all(|r| r.1 != Verdict::Same));
    let before: Vec<_> = shown(&v);
    // Swap: B against A, slower and faster trade places; the selected row stays.
    let sel = v.selected_row().unwrap().path.clone();
    press(&mut v, 'x');
    assert!(v.swapped);
    assert_eq!(v.selected_row().unwrap().path, sel);
    let after = shown(&v);
    for (name, verdict, _) in &before {
        if name == "Convolution (NHWC, F32) IGEMM #3" {
            assert_eq!(*verdict, Verdict::Slower);
            assert!(after.iter().any(|r| &r.0 == name && r.1 == Verdict::Faster));
        }
    }
    press(&mut v, 'x');
    press(&mut v, 'c');
    assert_eq!(v.visible.len(), all);
    // Tree: program order, the method first.
    press(&mut v, 't');
    assert!(v.tree);
    assert_eq!(v.comparison().rows[v.visible[0]].name, "Method::execute");
    assert_eq!(v.selected_row().unwrap().path, sel);
    // Moving and quitting.
    press(&mut v, 'G');
    assert_eq!(v.selected, v.visible.len() - 1);
    press(&mut v, 'g');
    assert_eq!(v.selected, 0);
    assert!(!press(&mut v, '?'));
    assert!(v.help);
    assert!(!press(&mut v, 'q'), "q closes help first");
    assert!(press(&mut v, 'q'));
}

#[test]
fn snapshots() {
    for size in [(80, 24), (160, 48)] {
        let tag = format!("{}x{}", size.0, size.1);
        let mut v = view();
        insta::assert_snapshot!(format!("compare_table_{tag}"), screen(&mut v, size));
        press(&mut v, 't');
        press(&mut v, 'c');
        insta::assert_snapshot!(format!("compare_tree_changed_{tag}"), screen(&mut v, size));
        press(&mut v, 'x');
        insta::assert_snapshot!(format!("compare_swapped_{tag}"), screen(&mut v, size));
        press(&mut v, '?');
        insta::assert_snapshot!(format!("compare_help_{tag}"), screen(&mut v, size));
    }
    // Tiny samples: every verdict too few, the warning on screen.
    let (f, b) = load_both(&args("mlp3_a.etdp", "mlp3_b.etdp", 0)).unwrap();
    let mut v = CompareView::new(f, b);
    insta::assert_snapshot!("compare_too_few_80x24", screen(&mut v, (80, 24)));
}

#[test]
fn readme_lists_every_compare_key() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    for (keys, help) in COMPARE_KEYS {
        let row = format!("| `{keys}` | {help} |");
        assert!(
            text.contains(&row),
            "README.md lacks the compare key row: {row}"
        );
    }
}
