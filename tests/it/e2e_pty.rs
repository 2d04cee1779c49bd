//! End to end: the real binary in a pseudo-terminal, driven by keys, read back through a
//! terminal emulator (vt100). Expected values come from `fixtures/cpu/wide_browse.truth.json`
//! (35 runs, 5 warm-up; 76 delegate operators + 3 non-delegated kernels; 10 names
//! contain "conv").

use std::thread;
use std::time::{Duration, Instant};

use crate::support::pty;

use pty::{ends_restored, Session};

const ROWS: u16 = 40;
const COLS: u16 = 120;

#[test]
fn browse_a_profile_then_quit() {
    let mut s = Session::start(
        ROWS,
        COLS,
        &["fixtures/cpu/wide_browse.etdp", "--warmup", "5"],
    );
    s.wait_for(&[
        "runs 30 kept, 5 warm-up dropped (of 35)",
        "Method::execute median",
        "delegate #1",
        "Operators · all delegates · 79",
    ]);
    // Tree: down to the first plan step, expand it, down to its first operator, open it.
    s.send("jj");
    s.wait_for(&["▸ XNNPACK/subgraph:conv2d+18"]);
    s.send("\r");
    s.wait_for(&["▾ XNNPACK/subgraph:conv2d+18", "Transpose (ND, X32) #1"]);
    s.send("j\r");
    let detail = s.wait_for(&["Detail", "per run", "5w + 30 kept", "in  [1,3,64,64]"]);
    assert!(detail.contains("Transpose (ND, X32) #1"));
    assert!(detail.contains("count   30"), "{detail}");
    assert!(detail.contains("in  [1,3,64,64]"), "{detail}");
    assert!(detail.contains("out [1,64,64,3]"), "{detail}");
    // Back to the operator table (limited to delegate #1: 21 + 1 + 21 + 1 + 1 + 21 = 66 rows).
    s.send("\x1b");
    s.wait_for(&["Operators · delegate #1 · 66"]);
    // Esc and the next key in one read would be Alt-a.
    thread::sleep(Duration::from_millis(150));
    // Filter: all delegates again, "conv" matches 10 operator names.
    s.send("a/conv");
    s.wait_for(&[
        "10 matches",
        "Operators · delegate #1 · 10 matching \"conv\"",
    ]);
    s.send("\r");
    // Sort by the next column (median -> min), then reverse.
    s.send("s");
    s.wait_for(&["M[i]n↓"]);
    s.send("S");
    s.wait_for(&["M[i]n↑"]);
    // The column's own key: Shift-X sorts by Max.
    s.send("X");
    s.wait_for(&["Ma[x]↓"]);
    // Mouse (SGR encoding, 1-based): a click on the "Operator" column title sorts by name.
    // At 120x40: header 3 rows, tree and detail 18 rows (half of 36, at least 18), table
    // border on row 21 and column titles on row 22 (0-based), i.e. SGR row 23.
    s.send("\x1b[<0;3;23M\x1b[<0;3;23m");
    s.wait_for(&["[O]perator↑"]);
    // Warm-up: one fewer dropped run, recomputed in the background.
    s.send("-");
    s.wait_for(&["runs 31 kept, 4 warm-up dropped (of 35)"]);
    // Resize to 80x24: the footer moves to the last row; it says what the warm-up
    // change moved (truth: method medians 1.113 ms with 5 dropped, 1.114 ms with 4).
    s.resize(24, 80);
    s.wait_for_row(23, "warm-up 5→4: Method::execute 1.113→1.114 ms");
    // The next key clears that notice.
    s.send("j");
    s.wait_for_row(23, "? help");
    s.send("q");
    let status = s.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    ends_restored(&s.final_output());
}

#[test]
fn bad_file_shows_a_dialog_and_q_quits() {
    let mut s = Session::start(ROWS, COLS, &["fixtures/real/bad_flipped.etdp"]);
    s.wait_for(&["Cannot load profile", "fixtures/real/bad_flipped.etdp"]);
    s.send("\r");
    s.wait_for(&["no profile"]);
    s.send("q");
    let status = s.wait_exit();
    assert!(status.success());
    ends_restored(&s.final_output());
}

#[test]
fn demo_opens_the_bundled_profile() {
    let mut s = Session::start(ROWS, COLS, &["--demo"]);
    s.wait_for(&[
        "demo.etdp",
        "runs 30 kept, 5 warm-up dropped (of 35)",
        "delegate #3",
    ]);
    s.send("?");
    s.wait_for(&["Help", "copy the selected row"]);
    s.send("q");
    assert!(s.wait_exit().success());
    ends_restored(&s.final_output());
}

/// A torch.profiler trace opens in the same explorer: call tree, op table with self time,
/// filter, quit.
#[test]
fn trace_opens_with_call_tree() {
    let trace = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/torch/cnn_infer.json");
    let mut s = Session::start(ROWS, COLS, &[trace]);
    s.wait_for(&["Call tree", "chrome_json", "iteration", "Sel[f]"]);
    s.send("\t/mkldnn\r");
    s.wait_for(&["1 matching \"mkldnn\"", "aten::mkldnn_convolution"]);
    s.send("q");
    assert!(s.wait_exit().success());
    ends_restored(&s.final_output());
}

/// A panic (forced in debug builds by an environment variable) still restores the terminal.
#[test]
fn panic_restores_the_terminal() {
    let mut s =
        Session::start_with_env(ROWS, COLS, &["--demo"], &[("CPUPROF_TUI_TEST_PANIC", "1")]);
    let status = s.wait_exit();
    assert!(!status.success());
    let out = s.final_output();
    let text = String::from_utf8_lossy(&out);
    let enter = text
        .rfind("\x1b[?1049h")
        .expect("entered the alternate screen");
    let leave = text
        .rfind("\x1b[?1049l")
        .expect("left the alternate screen");
    assert!(leave > enter);
    assert!(
        text[enter..leave].contains("\x1b[?1000l"),
        "mouse capture disabled"
    );
    // The panic message comes after, on the normal screen.
    assert!(text[leave..].contains("test panic after the first frame"));
}

/// `--watch` on an empty directory: a fixture pair copied in shows up, a second one makes
/// two runs. Prints the reload latency (copy finished -> profile on screen).
/// mlp_basic and cnn2_basic: 23 runs each, 3 warm-up -> 20 kept (truth files).
#[test]
fn watch_follows_a_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_str().unwrap().to_string();
    let mut s = Session::start(ROWS, COLS, &["--watch", &dir, "--warmup", "3"]);
    s.wait_for(&["waiting for ETDumps in", "watching", "0 profiles"]);
    let copy = |from: &str, to: &str| {
        std::fs::copy(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(from),
            tmp.path().join(to),
        )
        .unwrap();
    };
    copy("fixtures/cpu/mlp_basic.log", "mlp_basic.log");
    copy("fixtures/cpu/mlp_basic.etdp", "mlp_basic.etdp");
    let written = Instant::now();
    s.wait_for(&[
        "mlp_basic.etdp + ",
        "runs 20 kept, 3 warm-up dropped (of 23)",
        "Runs · 1",
        "1 profile",
    ]);
    let first = written.elapsed();
    // A second run under another name.
    copy("fixtures/cpu/cnn2_basic.log", "run2.log");
    copy("fixtures/cpu/cnn2_basic.etdp", "run2.etdp");
    let written = Instant::now();
    let screen = s.wait_for(&["run2.etdp + ", "Runs · 2", "2 profiles", "0 errors"]);
    let second = written.elapsed();
    // Both rows, newest first; they are different models (mlp, cnn2): no percentage.
    let run2 = screen.find("run2.etdp  ").expect("run2 row");
    let mlp = screen.find("mlp_basic.etdp  ").expect("mlp row");
    assert!(run2 < mlp, "newest first:\n{screen}");
    assert!(screen.contains("other model"), "{screen}");
    eprintln!(
        "reload latency (copy finished -> profile on screen): {} ms, {} ms",
        first.as_millis(),
        second.as_millis()
    );
    // The older run can be selected again.
    s.send("p");
    s.wait_for(&["mlp_basic.etdp + ", "not following — N for newest"]);
    s.send("q");
    let status = s.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    ends_restored(&s.final_output());
}

/// `--watch`: two runs of one model (the same dump twice: identical samples, so the
/// change is `~+0.0%`, not significant); `d` opens the compare view of the newer run
/// against the older one over the explorer, `Esc` returns to the runs list.
#[test]
fn watch_compares_a_run_with_its_baseline() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_str().unwrap().to_string();
    let mut s = Session::start(ROWS, COLS, &["--watch", &dir, "--warmup", "3"]);
    s.wait_for(&["waiting for ETDumps in"]);
    let copy = |from: &str, to: &str| {
        std::fs::copy(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(from),
            tmp.path().join(to),
        )
        .unwrap();
    };
    copy("fixtures/cpu/mlp_basic.log", "mlp_basic.log");
    copy("fixtures/cpu/mlp_basic.etdp", "mlp_basic.etdp");
    s.wait_for(&["Runs · 1", "1 profile"]);
    copy("fixtures/cpu/mlp_basic.log", "run2.log");
    copy("fixtures/cpu/mlp_basic.etdp", "run2.etdp");
    s.wait_for(&["run2.etdp + ", "Runs · 2", "2 profiles", "~+0.0%"]);
    s.send("d");
    s.wait_for(&["compare", "A: mlp_basic.etdp", "B: run2.etdp"]);
    s.send("\x1b");
    s.wait_for(&["Runs · 2", "~+0.0%"]);
    s.send("q");
    let status = s.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    ends_restored(&s.final_output());
}

/// A missing directory: one line naming it, exit 2, the terminal untouched.
#[test]
fn watch_missing_directory_exits_2() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .args(["--watch", "/no/such/dir"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "cpuprof-tui: /no/such/dir: no such directory\n"
    );
    assert!(out.stdout.is_empty(), "terminal not touched");
}

/// A missing file named on the command line: one line naming it, exit 2, and the
/// terminal untouched (no alternate screen, no raw mode escape sequences).
#[test]
fn missing_file_exits_2_before_the_terminal_is_taken() {
    let mut s = Session::start(ROWS, COLS, &["fixtures/no_such_dump.etdp"]);
    let status = s.wait_exit();
    assert_eq!(status.exit_code(), 2, "{status:?}");
    let out = s.final_output();
    let text = String::from_utf8_lossy(&out);
    assert!(!text.contains("\x1b["), "no escape sequence: {text:?}");
    assert_eq!(
        text.trim_end(),
        "cpuprof-tui: fixtures/no_such_dump.etdp: no such file"
    );
    assert_eq!(text.trim_end().lines().count(), 1);
    // The same through the report command.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .args(["report", "fixtures/no_such_dump.etdp"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "cpuprof-tui: fixtures/no_such_dump.etdp: no such file\n"
    );
}

/// `/` searches the tree as well: `]` walks to the one IGEMM convolution of wide_browse
/// (truth: a single `Convolution (NHWC, F32) IGEMM #1`, in step
/// `XNNPACK/subgraph:conv2d+18`), opening its step. `r` on a table row shows it in the
/// tree: `Convolution (NHWC, F32) DWConv #9` lives in `XNNPACK/subgraph:constant_pad_nd+18`.
#[test]
fn tree_search_and_reveal() {
    let mut s = Session::start(
        ROWS,
        COLS,
        &["fixtures/cpu/wide_browse.etdp", "--warmup", "5"],
    );
    s.wait_for(&["Operators · all delegates · 79"]);
    s.send("/igemm\r");
    s.wait_for(&["1 match in the tree: ] next, [ previous"]);
    s.send("]");
    s.wait_for(&[
        "tree match 1 of 1 for \"igemm\"",
        "▾ XNNPACK/subgraph:conv2d+18",
        "    Convolution (NHWC, F32) IGEMM #1",
    ]);
    // A table row revealed in the tree.
    // Backspace deletes the search text (Ctrl-U means page up in every view).
    s.send("/\x7f\x7f\x7f\x7f\x7fDWConv #9\r");
    s.wait_for(&["1 matching \"DWConv #9\""]);
    s.send("r");
    // The tree row (indented under delegate #1 and its step), and the detail of it.
    s.wait_for(&[
        "│        Convolution (NHWC, F32) DWConv #9",
        "step XNNPACK/subgraph:constant_pad_nd+18",
    ]);
    s.send("q");
    assert!(s.wait_exit().success());
    ends_restored(&s.final_output());
}

/// `c` copies the selected table row through OSC 52; the footer confirms. The first row
/// by median is `Fully Connected (NC, F32) GEMM #3` (truth: median 89.5 µs, the largest
/// operator median of wide_browse with 5 warm-up runs).
#[test]
fn copy_sends_the_row_through_osc52() {
    use base64::Engine;
    let mut s = Session::start(
        ROWS,
        COLS,
        &["fixtures/cpu/wide_browse.etdp", "--warmup", "5"],
    );
    s.wait_for(&["Operators · all delegates · 79"]);
    s.send("\t");
    thread::sleep(Duration::from_millis(100));
    s.send("c");
    s.wait_for(&["copied Fully Connected (NC, F32) GEMM #3"]);
    let out = s.output.lock().unwrap().clone();
    let text = String::from_utf8_lossy(&out);
    let start = text.find("\x1b]52;c;").expect("an OSC 52 sequence") + 7;
    let end = start + text[start..].find('\x07').expect("BEL-terminated");
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(&text[start..end])
        .unwrap();
    let row = String::from_utf8(decoded).unwrap();
    assert!(
        row.starts_with("Fully Connected (NC, F32) GEMM #3 · delegate #1 · step XNNPACK/subgraph:conv2d+18 · count 30 · median 89.5 µs"),
        "{row}"
    );
    assert!(
        row.contains(" · in [1,16,32,32] [64,16,1,1] [64] · out [1,64,32,32]"),
        "{row}"
    );
    s.send("q");
    assert!(s.wait_exit().success());
    ends_restored(&s.final_output());
}

/// `t` groups by operator type. A type's median is the median over the kept runs of its
/// instances' time in each run (#43), computed independently from the truth file
/// (python: `fixtures/cpu/wide_browse.truth.json`, every step operator's `samples_ms`
/// summed per run by name without ` #N`, `statistics.median`): the 21 GEMMs 0.6465 ms =
/// 58.06% of the method median, the 9 DWConvs 0.258 ms = 23.17% (the sums of their
/// medians, shown before, were 0.644 and 0.2575 ms). 0.6465 ms is exact (646,500 ns), so
/// three figures round it half to even as printf does (`printf '%.0f' 646.5`: 646); the
/// float sums of ms shown 647 before. Enter on the GEMM type lists its 21 instances.
#[test]
fn group_by_operator_type() {
    let mut s = Session::start(
        ROWS,
        COLS,
        &["fixtures/cpu/wide_browse.etdp", "--warmup", "5"],
    );
    s.wait_for(&["Operators · all delegates · 79"]);
    s.send("o");
    let screen = s.wait_for(&["Operator types · all delegates · 20"]);
    let gemm = screen
        .lines()
        .find(|l| l.starts_with("│Fully Connected (NC, F32) GEMM "))
        .expect("GEMM type row");
    assert!(
        gemm.contains("21×") && gemm.contains("646 µs") && gemm.contains("58.1%"),
        "{gemm}"
    );
    let dw = screen
        .lines()
        .find(|l| l.starts_with("│Convolution (NHWC, F32) DWConv "))
        .expect("DWConv type row");
    assert!(
        dw.contains("9×") && dw.contains("258 µs") && dw.contains("23.2%"),
        "{dw}"
    );
    s.send("\r");
    s.wait_for(&["Operators · all delegates · 21 matching \"Fully Connected (NC, F32) GEMM\""]);
    s.send("q");
    assert!(s.wait_exit().success());
    ends_restored(&s.final_output());
}
