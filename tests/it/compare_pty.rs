//! `cpuprof-tui compare A B` (the compare view) in a pseudo-terminal: open, swap, show
//! changed rows only (`u`), switch to the tree (Tab), open help, quit; the terminal is
//! restored.
//! Expected rows come from fixtures/compare/README.md (conv #3 1.5x and neg 1.4x slower,
//! pixel_shuffle 0.6x: 5 slower rows with their ancestors, 2 faster, 26 rows in all).

use crate::support::pty;

use pty::Session;

const ROWS: u16 = 30;
const COLS: u16 = 120;

#[test]
fn open_swap_filter_tree_help_quit() {
    let mut s = Session::start(
        ROWS,
        COLS,
        &[
            "compare",
            "fixtures/compare/cnn2_a.etdp",
            "fixtures/compare/cnn2_slow_b.etdp",
            "--warmup",
            "3",
        ],
    );
    let first = s.wait_for(&[
        "A: cnn2_a.etdp (20 runs)",
        "▲ 5 slower",
        "▼ 2 faster",
        "table by verdict · 26 rows",
        "hist A",
        "runs B",
    ]);
    // The largest regression is first and selected (neg 1.4x: +51.4% on its kernel).
    assert!(first.contains("▲ native_call_neg.out"), "{first}");
    s.send("u");
    s.wait_for(&["table by verdict · 7 rows · changed only"]);
    s.send("x");
    s.wait_for(&["[swapped]", "▲ 2 slower", "▼ 5 faster", "median B"]);
    s.send("x");
    s.send("\t");
    s.wait_for(&["tree · 7 rows · changed only"]);
    s.send("u");
    s.wait_for(&["tree · 26 rows", "Method::execute"]);
    s.send("?");
    s.wait_for(&["compare keys", "swap A and B"]);
    // Esc closes help (alone: Esc followed at once by a key reads as Alt+key).
    s.send("\x1b");
    s.wait_gone("compare keys");
    s.send("q");
    let status = s.wait_exit();
    assert!(status.success(), "{status:?}");
    let out = s.final_output();
    let text = String::from_utf8_lossy(&out);
    let enter = text
        .rfind("\x1b[?1049h")
        .expect("entered the alternate screen");
    let tail = &text[enter..];
    assert!(tail.contains("\x1b[?25h"), "cursor shown");
    assert!(
        text.trim_end_matches(['\r', '\n']).ends_with("\x1b[?1049l"),
        "output ends by leaving the alternate screen"
    );
}

#[test]
fn bad_input_exits_2_before_the_terminal() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "compare",
            "fixtures/compare/cnn2_a.etdp",
            "fixtures/compare/trace_a.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("\x1b[?1049h"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}
