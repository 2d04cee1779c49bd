//! The compare view: pure key handling through its key table (default order, changed-only
//! rows, name filter, swap, tree), snapshots at 80x24 and 160x48 on the generated cnn2
//! pair (fixtures/compare: conv #3 1.5x and neg 1.4x slower, pixel_shuffle 0.6x), and the
//! compare rows of the key table in docs/reference.md.

use cpuprof_tui::app::keymap::{view_help, ViewKind};
use cpuprof_tui::app::{update, Action, AppState, Effect};
use cpuprof_tui::cli::CompareArgs;
use cpuprof_tui::compare::Verdict;
use cpuprof_tui::report::compare::load_both;
use cpuprof_tui::ui::{self, Theme};
use cpuprof_tui::views::compare::render as ui_compare;
use cpuprof_tui::views::compare::state::CompareView;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/compare");

use crate::support::explorer;
use explorer::render;

fn args(a: &str, b: &str, warmup: usize) -> CompareArgs {
    explorer::compare_args(format!("{DIR}/{a}"), format!("{DIR}/{b}"), warmup)
}

/// The `compare` command's screen: the view as the base of the stack.
fn view() -> AppState {
    let (f, b) = load_both(&args("cnn2_a.etdp", "cnn2_slow_b.etdp", 3)).unwrap();
    AppState::for_compare(CompareView::new(f, b), 160, 48)
}

/// Press `c`; true when the program quits.
fn press(s: &mut AppState, c: char) -> bool {
    press_key(s, KeyCode::Char(c))
}

fn press_key(s: &mut AppState, code: KeyCode) -> bool {
    update(s, Action::Key(KeyEvent::new(code, KeyModifiers::NONE))).contains(&Effect::Quit)
}

fn cv(s: &AppState) -> &CompareView {
    s.compare().expect("the compare view")
}

fn screen(s: &mut AppState, (w, h): (u16, u16)) -> String {
    if let Some(v) = s.views.compare_mut() {
        v.scroll_to_fit(ui_compare::list_height(w, h));
    }
    render::frame_text(w, h, |f| ui::draw(f, s, &Theme::plain()))
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
    let s = view();
    let v = cv(&s);
    let rows = shown(v);
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
fn changed_only_filter_swap_and_tree() {
    let mut s = view();
    let all = cv(&s).visible.len();
    // `u`: only the changed rows (c is copy everywhere, never "changed only").
    assert!(!press(&mut s, 'c'));
    assert_eq!(cv(&s).visible.len(), all);
    press(&mut s, 'u');
    assert!(cv(&s).visible.len() < all);
    assert!(shown(cv(&s)).iter().all(|r| r.1 != Verdict::Same));
    let before: Vec<_> = shown(cv(&s));
    // Swap: B against A, slower and faster trade places; the selected row stays.
    let sel = cv(&s).selected_row().unwrap().path.clone();
    press(&mut s, 'x');
    assert!(cv(&s).swapped);
    assert_eq!(cv(&s).selected_row().unwrap().path, sel);
    let after = shown(cv(&s));
    for (name, verdict, _) in &before {
        if name == "Convolution (NHWC, F32) IGEMM #3" {
            assert_eq!(*verdict, Verdict::Slower);
            assert!(after.iter().any(|r| &r.0 == name && r.1 == Verdict::Faster));
        }
    }
    press(&mut s, 'x');
    press(&mut s, 'u');
    assert_eq!(cv(&s).visible.len(), all);
    // Tab: the tree, in program order, the method first.
    press_key(&mut s, KeyCode::Tab);
    assert!(cv(&s).tree);
    assert_eq!(
        cv(&s).comparison().rows[cv(&s).visible[0]].name,
        "Method::execute"
    );
    assert_eq!(cv(&s).selected_row().unwrap().path, sel);
    // `/` filters by name (q is typed, not quit); Esc clears it, then says how to quit.
    press(&mut s, '/');
    for c in "q ".chars() {
        assert!(!press(&mut s, c));
    }
    press_key(&mut s, KeyCode::Backspace);
    press_key(&mut s, KeyCode::Backspace);
    for c in "neg".chars() {
        press(&mut s, c);
    }
    press_key(&mut s, KeyCode::Enter);
    let names: Vec<String> = shown(cv(&s)).into_iter().map(|r| r.0).collect();
    assert!(
        !names.is_empty() && names.iter().all(|n| n.to_lowercase().contains("neg")),
        "{names:?}"
    );
    assert!(!press_key(&mut s, KeyCode::Esc), "Esc never quits");
    assert_eq!(cv(&s).visible.len(), all, "Esc cleared the filter");
    assert!(!press_key(&mut s, KeyCode::Esc));
    assert!(
        s.compare().is_some(),
        "the compare command's view is the base"
    );
    assert_eq!(
        s.session.notice.as_deref(),
        Some("nothing to go back to: q quits")
    );
    // Moving; help is a view pushed over it; q quits from help too.
    press(&mut s, 'G');
    assert_eq!(cv(&s).selected, cv(&s).visible.len() - 1);
    press(&mut s, 'g');
    assert_eq!(cv(&s).selected, 0);
    assert!(!press(&mut s, '?'));
    assert!(s.help_open());
    assert!(!press_key(&mut s, KeyCode::Esc), "Esc closes help");
    assert!(!s.help_open());
    press(&mut s, '?');
    assert!(press(&mut s, 'q'), "q quits from the help");
}

#[test]
fn snapshots() {
    for size in crate::support::explorer::SIZES {
        let tag = format!("{}x{}", size.0, size.1);
        let mut v = view();
        insta::assert_snapshot!(format!("compare_table_{tag}"), screen(&mut v, size));
        press_key(&mut v, KeyCode::Tab);
        press(&mut v, 'u');
        // The footer shows the notice of `u` until the next key.
        v.session.notice = None;
        insta::assert_snapshot!(format!("compare_tree_changed_{tag}"), screen(&mut v, size));
        press(&mut v, 'x');
        insta::assert_snapshot!(format!("compare_swapped_{tag}"), screen(&mut v, size));
        press(&mut v, '?');
        insta::assert_snapshot!(format!("compare_help_{tag}"), screen(&mut v, size));
    }
    // Tiny samples: every verdict too few, the warning on screen.
    let (f, b) = load_both(&args("mlp3_a.etdp", "mlp3_b.etdp", 0)).unwrap();
    let mut v = AppState::for_compare(CompareView::new(f, b), 80, 24);
    insta::assert_snapshot!("compare_too_few_80x24", screen(&mut v, (80, 24)));
}

/// The null pair (no change): its rows by name, in the order shown.
fn null_pair() -> AppState {
    let (f, b) = load_both(&args("cnn2_a.etdp", "cnn2_null_b.etdp", 3)).unwrap();
    AppState::for_compare(CompareView::new(f, b), 160, 48)
}

fn type_filter(s: &mut AppState, text: &str) {
    press(s, '/');
    for c in text.chars() {
        press(s, c);
    }
    press_key(s, KeyCode::Enter);
}

/// cnn2 has two XNNPACK delegates (instructions 0 and 2, fixtures/compare/README.md), each
/// with its own `Transpose (ND, X32) #1`, and the non-delegated
/// `native_call_pixel_shuffle.out` instruction holds a kernel event of the same name: the
/// list tells them apart by kind and delegate, the detail by the whole path.
#[test]
fn same_named_rows_are_told_apart() {
    use cpuprof_tui::views::compare::state::{delegate_of, where_short};
    let mut s = null_pair();
    type_filter(&mut s, "Transpose (ND, X32) #1");
    let v = cv(&s);
    let mut delegates: Vec<Option<i32>> = v
        .visible
        .iter()
        .map(|&i| delegate_of(v.comparison(), i))
        .collect();
    delegates.sort();
    assert_eq!(delegates, vec![Some(0), Some(2)]);
    let screen_text = screen(&mut s, (160, 48));
    let lines: Vec<&str> = screen_text
        .lines()
        .filter(|l| l.starts_with("│= Transpose (ND, X32) #1") && l.contains("operator"))
        .collect();
    assert_eq!(lines.len(), 2, "{screen_text}");
    assert!(lines.iter().any(|l| l.contains(" d0 ")), "{screen_text}");
    assert!(lines.iter().any(|l| l.contains(" d2 ")), "{screen_text}");
    // The detail: the whole path of the selected one, down from the method.
    let v = cv(&s);
    let sel = v.selected_row().unwrap();
    let d = delegate_of(v.comparison(), v.visible[v.selected]).unwrap();
    assert_eq!(
        where_short(v.comparison(), v.visible[v.selected]),
        format!("d{d}")
    );
    assert!(
        screen_text.contains(&format!("in Method::execute › delegate #{d} ›")),
        "{screen_text}"
    );
    assert_eq!(
        sel.path.len(),
        4,
        "method, delegate, subgraph, operator: {:?}",
        sel.path
    );

    let mut s = null_pair();
    type_filter(&mut s, "native_call_pixel_shuffle.out");
    let v = cv(&s);
    let mut kinds: Vec<&str> = v
        .visible
        .iter()
        .map(|&i| v.comparison().rows[i].kind.label())
        .collect();
    kinds.sort();
    assert_eq!(kinds, vec!["kernel", "operator"]);
    for &i in &v.visible {
        assert_eq!(
            delegate_of(v.comparison(), i),
            None,
            "instruction 1 is not delegated"
        );
    }
}

#[test]
fn same_named_snapshots() {
    for size in [(80, 24), (120, 40), (160, 48), (230, 60)] {
        let tag = format!("{}x{}", size.0, size.1);
        let mut s = null_pair();
        type_filter(&mut s, "#1");
        insta::assert_snapshot!(format!("compare_same_named_{tag}"), screen(&mut s, size));
    }
}

#[test]
fn reference_lists_every_compare_key() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/reference.md")).unwrap();
    for (keys, help) in view_help(ViewKind::Compare) {
        let row = format!("| `{keys}` | {help} |");
        assert!(
            text.contains(&row),
            "docs/reference.md lacks the compare key row: {row}"
        );
    }
}

/// Lines of `screen` right of the list's border: the detail pane's text.
fn detail_lines(screen: &str) -> Vec<String> {
    screen
        .lines()
        .filter_map(|l| {
            l.split_once("││")
                .map(|(_, d)| d.trim_end_matches('│').to_string())
        })
        .collect()
}

/// Issue #47: at 120x40 the names keep the width they need before the optional columns
/// (p, interval) come in, and the detail's statistics are never cut. The null pair's
/// longest `#1` name is `Fully Connected (NC, F32) GEMM #1` (33 characters, from the
/// generator's XNNPACK operator names); the detail lists count, median, p10, p90.
#[test]
fn readable_at_120x40() {
    let mut s = null_pair();
    type_filter(&mut s, "#1");
    let text = screen(&mut s, (120, 40));
    assert!(
        text.contains("│= Fully Connected (NC, F32) GEMM #1 "),
        "the longest name whole:\n{text}"
    );
    let detail = detail_lines(&text);
    let head = detail.iter().find(|l| l.contains("count")).unwrap();
    for word in ["count", "median", "p10", "p90"] {
        assert!(head.contains(word), "{head:?}");
    }
    for side in ["A", "B"] {
        let line = detail
            .iter()
            .find(|l| l.trim_start().starts_with(&format!("{side} ")))
            .unwrap_or_else(|| panic!("no {side} line:\n{text}"));
        // Count and three durations, each ending in its unit.
        assert_eq!(line.matches(" µs").count(), 3, "{line:?}\n{text}");
        assert!(!line.contains('…'), "{line:?}");
    }
    // Columns give way before a name is cut: at 80 columns the tree of changed rows
    // holds `Convolution (NHWC, F32) IGEMM #3` (32 characters under 6 cells of indent)
    // whole, the kind column in its short form.
    let mut s = view();
    press_key(&mut s, KeyCode::Tab);
    press(&mut s, 'u');
    let text = screen(&mut s, (80, 24));
    assert!(
        text.contains("│▲       Convolution (NHWC, F32) IGEMM #3 "),
        "{text}"
    );
    // A name longer than the room is cut in its middle: both ends stay.
    let (mut f, b) = load_both(&args("cnn2_a.etdp", "cnn2_slow_b.etdp", 3)).unwrap();
    let i = f
        .rows
        .iter()
        .position(|r| r.name == "native_call_neg.out")
        .unwrap();
    f.rows[i].name = format!("head_of_the_name_{}_tail #9", "x".repeat(80));
    let mut s = AppState::for_compare(CompareView::new(f, b), 120, 40);
    let text = screen(&mut s, (120, 40));
    let line = text
        .lines()
        .find(|l| l.starts_with("│▲ head_of_the_name_"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("…") && line.contains("x_tail #9 "), "{line}");
    // The detail's title keeps both ends too.
    assert!(
        detail_lines(&text)
            .iter()
            .any(|l| l.starts_with("head_of_the_name") && l.contains("x_tail #9  kernel")),
        "{text}"
    );
}

/// `u` in the tree keeps the ancestors of the changed rows (dimmed, not counted): the
/// slow pair changes conv #3 and neg in delegate #0 and pixel_shuffle outside any
/// delegate (fixtures/compare/README.md), and their ancestors grow by the same amount, so
/// the only unchanged ancestor is `Method::execute`.
#[test]
fn changed_only_tree_keeps_ancestors() {
    let mut s = view();
    press_key(&mut s, KeyCode::Tab);
    press(&mut s, 'u');
    let v = cv(&s);
    let c = v.comparison();
    let context: Vec<&str> = v.context.iter().map(|&i| c.rows[i].name.as_str()).collect();
    assert_eq!(context, vec!["Method::execute"]);
    assert!(v.context.iter().all(|&i| !c.rows[i].verdict.is_change()));
    // Every changed row's ancestors are listed, above it.
    for (pos, &i) in v.visible.iter().enumerate() {
        let mut up = c.rows[i].parent;
        while let Some(p) = up {
            let at = v.visible.iter().position(|&j| j == p);
            assert!(
                at.is_some_and(|a| a < pos),
                "{} lacks its parent",
                c.rows[i].name
            );
            up = c.rows[p].parent;
        }
    }
    assert_eq!(v.listed(), v.visible.len() - 1);
    let text = screen(&mut s, (160, 48));
    assert!(
        text.contains("changed only, 1 dimmed around them"),
        "{text}"
    );
    assert!(text.contains("│= Method::execute"), "{text}");
    // The sorted table lists the changed rows alone.
    press_key(&mut s, KeyCode::Tab);
    assert!(cv(&s).context.is_empty());
    assert!(shown(cv(&s)).iter().all(|r| r.1.is_change()));
}

/// `c` copies the selected row as the explorer's `c` does (OSC 52 through
/// `Effect::Copy`): the default selection is the largest regression, `native_call_neg.out`
/// (1.4x in the generator; B's median 6.491 µs in the truth file).
#[test]
fn c_copies_the_selected_row() {
    let mut s = view();
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{DIR}/cnn2_slow_b.truth.json")).unwrap(),
    )
    .unwrap();
    let op = &truth["delegates"][0]["steps"][1]["operators"][0];
    assert_eq!(op["event"], "native_call_neg.out");
    let median_b = format!("{:.2} µs", op["stats"]["median_ms"].as_f64().unwrap() * 1e3);
    let effects = update(
        &mut s,
        Action::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::NONE)),
    );
    let [Effect::Copy(text)] = effects.as_slice() else {
        panic!("one copy: {effects:?}");
    };
    assert!(
        text.starts_with("native_call_neg.out · kernel · delegate #0 · "),
        "{text}"
    );
    assert!(text.contains(&format!("median B {median_b}")), "{text}");
    assert!(text.contains(" · slower · in Method::execute › delegate #0 › ET/registry:neg"));
    assert!(s
        .session
        .notice
        .as_deref()
        .unwrap()
        .starts_with("copied native_call_neg.out"));
    // Moving the selection copies the row under it.
    press(&mut s, 'j');
    let second = cv(&s).selected_row().unwrap().name.clone();
    let effects = update(
        &mut s,
        Action::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::NONE)),
    );
    assert!(matches!(&effects[..], [Effect::Copy(t)] if t.starts_with(&format!("{second} · "))));
}

/// A row name with control characters (an input's bytes) reaches neither the screen nor
/// the clipboard sequence unescaped.
#[test]
fn copied_and_drawn_names_are_escaped() {
    let (mut f, b) = load_both(&args("cnn2_a.etdp", "cnn2_slow_b.etdp", 3)).unwrap();
    let i = f
        .rows
        .iter()
        .position(|r| r.name == "native_call_neg.out")
        .unwrap();
    f.rows[i].name = "neg\n\x1b]52;c;evil\x07".into();
    let mut s = AppState::for_compare(CompareView::new(f, b), 160, 48);
    let effects = update(
        &mut s,
        Action::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::NONE)),
    );
    let [Effect::Copy(text)] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    let seq = cpuprof_tui::app::copy::osc52(text);
    // One escape sequence: its own ESC and BEL, no other control character.
    assert_eq!(seq.chars().filter(|c| c.is_control()).count(), 2, "{seq:?}");
    assert!(!s
        .session
        .notice
        .as_deref()
        .unwrap()
        .chars()
        .any(|c| c.is_control()));
    let text = screen(&mut s, (160, 48));
    assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text}");
}

/// `/` in the help over the compare view: the lines holding the text are counted in the
/// title and the first one is brought into view, at 80x24 where the keys do not all fit.
#[test]
fn help_over_compare_searches() {
    let mut s = view();
    press(&mut s, '?');
    press(&mut s, '/');
    for c in "swap".chars() {
        press(&mut s, c);
    }
    press_key(&mut s, KeyCode::Enter);
    let text = screen(&mut s, (80, 24));
    assert!(text.contains("/swap: 1 line"), "{text}");
    assert!(text.contains("swap A and B"), "{text}");
    // A text on the last lines of the help (the verdict marks) is scrolled to.
    press(&mut s, '/');
    for c in "marks".chars() {
        press(&mut s, c);
    }
    press_key(&mut s, KeyCode::Enter);
    let text = screen(&mut s, (80, 24));
    assert!(text.contains("marks: ▲ slower"), "{text}");
}
