//! Every view of the stack in a real terminal (the binary in a pty): `Esc` goes back one
//! level (help over a view closes first, then the view, back to the explorer; in the
//! explorer `Esc` never quits), and `q` quits from inside the view: exit 0, the terminal
//! restored (main screen, cursor shown, mouse reporting off).

use std::path::Path;

use crate::support::pty;

use pty::Session;

const ROWS: u16 = 40;
const COLS: u16 = 120;
const DUMP: &[&str] = &["fixtures/cpu/wide_browse.etdp", "--warmup", "5"];
/// The explorer's tree pane title: the explorer is what fills the screen.
const EXPLORER: &str = "Plan tree";

/// Esc alone (a key right after it would read as Alt+key): wait for its effect.
fn esc(s: &mut Session) {
    s.send("\x1b");
}

/// Open a view with `open` (showing `shown`), help over it, then Esc twice: help closes,
/// then the view, back to the explorer; open it again and quit from inside it.
fn esc_pops_and_q_quits(open: &str, shown: &str) {
    let mut s = Session::start(ROWS, COLS, DUMP);
    s.wait_for(&[EXPLORER, "runs 30 kept"]);
    s.send(open);
    s.wait_for(&[shown]);
    s.wait_gone(EXPLORER);
    s.send("?");
    s.wait_for(&["Help ·"]);
    esc(&mut s);
    s.wait_gone("Help ·");
    s.wait_for(&[shown]);
    esc(&mut s);
    s.wait_for(&[EXPLORER]);
    s.wait_gone(shown);
    s.send(open);
    s.wait_for(&[shown]);
    s.send("q");
    s.exits_restored();
}

#[test]
fn log_view() {
    esc_pops_and_q_quits("w", "Warnings & runner log");
}

#[test]
fn timeline_view() {
    esc_pops_and_q_quits("t", "Timeline · run 32");
}

#[test]
fn flame_view() {
    esc_pops_and_q_quits("f", "Flame graph · widths: median run");
}

/// The explorer: Esc walks back (detail → table → tree) and never quits; q quits from
/// the help over it.
#[test]
fn explorer_and_help() {
    let mut s = Session::start(ROWS, COLS, DUMP);
    s.wait_for(&[EXPLORER, "runs 30 kept"]);
    s.send("\t");
    s.send("\r");
    s.settle();
    for _ in 0..4 {
        esc(&mut s);
        s.settle();
    }
    s.wait_for(&[EXPLORER, "Operators · all delegates · 79"]);
    s.send("?");
    s.wait_for(&["Help ·", "── Explorer ──"]);
    esc(&mut s);
    s.wait_gone("Help ·");
    s.send("?");
    s.wait_for(&["Help ·"]);
    s.send("q");
    s.exits_restored();
}

/// The error dialog: Esc dismisses it (the explorer stays, with nothing loaded), q quits
/// from it.
#[test]
fn error_dialog() {
    let mut s = Session::start(ROWS, COLS, &["fixtures/real/bad_flipped.etdp"]);
    s.wait_for(&["Cannot load profile"]);
    esc(&mut s);
    s.wait_for(&["no profile"]);
    s.wait_gone("Cannot load profile");
    s.send("q");
    s.exits_restored();
    let mut s = Session::start(ROWS, COLS, &["fixtures/real/bad_flipped.etdp"]);
    s.wait_for(&["Cannot load profile"]);
    s.send("q");
    s.exits_restored();
}

/// `compare A B`: the view is the whole program. Esc closes its help, then clears its
/// filter, then says how to quit (it never quits); q quits.
#[test]
fn compare_command() {
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
    s.wait_for(&["table by verdict · 26 rows"]);
    s.send("?");
    s.wait_for(&["compare keys"]);
    esc(&mut s);
    s.wait_gone("compare keys");
    s.send("/neg\r");
    s.wait_for(&["filter \"neg\""]);
    esc(&mut s);
    s.wait_for(&["table by verdict · 26 rows"]);
    esc(&mut s);
    s.wait_for(&[
        "nothing to go back to: q quits",
        "table by verdict · 26 rows",
    ]);
    s.send("q");
    s.exits_restored();
}

/// Watch mode: `d` pushes the compare view over the explorer; Esc closes its help, then
/// the view (back to the runs list); q quits from inside it.
#[test]
fn compare_from_watch_mode() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_str().unwrap().to_string();
    let mut s = Session::start(ROWS, COLS, &["--watch", &dir, "--warmup", "3"]);
    s.wait_for(&["waiting for ETDumps in"]);
    let copy = |from: &str, to: &str| {
        std::fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(from),
            tmp.path().join(to),
        )
        .unwrap();
    };
    copy("fixtures/cpu/mlp_basic.log", "mlp_basic.log");
    copy("fixtures/cpu/mlp_basic.etdp", "mlp_basic.etdp");
    s.wait_for(&["Runs · 1", "1 profile"]);
    copy("fixtures/cpu/mlp_basic.log", "run2.log");
    copy("fixtures/cpu/mlp_basic.etdp", "run2.etdp");
    s.wait_for(&["Runs · 2", "2 profiles", "~+0.0%"]);
    s.send("d");
    s.wait_for(&["A: mlp_basic.etdp", "B: run2.etdp"]);
    s.send("?");
    s.wait_for(&["compare keys"]);
    esc(&mut s);
    s.wait_gone("compare keys");
    s.wait_for(&["B: run2.etdp"]);
    esc(&mut s);
    s.wait_for(&["Runs · 2", "~+0.0%"]);
    s.wait_gone("B: run2.etdp");
    s.send("d");
    s.wait_for(&["B: run2.etdp"]);
    s.send("q");
    s.exits_restored();
}

const MODULES_DUMP: &[&str] = &["fixtures/etrecord/modules_xnnpack.etdp", "--warmup", "0"];

/// The modules view (`m`, the dump's ETRecord beside it): Esc closes its help, then the
/// view; Enter on a row closes it and reveals the row in the tree (the cumsum kernel's
/// instruction opens); q quits from inside it.
#[test]
fn modules_view() {
    esc_pops_and_q_quits_in(MODULES_DUMP, "m", "Modules · forward");
    let mut s = Session::start(ROWS, COLS, MODULES_DUMP);
    s.wait_for(&[EXPLORER, "▸ native_call_cumsum.out"]);
    s.send("m");
    s.wait_for(&["Modules · forward", "#4 native_call_cumsum.out"]);
    // (root), #0 DELEGATE_CALL, #4 native_call_cumsum.out.
    s.send("jj");
    s.wait_for(&["kernel at instruction 4"]);
    s.send("\r");
    s.wait_for(&[EXPLORER, "▾ native_call_cumsum.out"]);
    s.wait_gone("Modules · forward");
    s.send("m");
    s.wait_for(&["Modules · forward"]);
    s.send("q");
    s.exits_restored();
}

/// [`esc_pops_and_q_quits`] on another dump.
fn esc_pops_and_q_quits_in(args: &[&str], open: &str, shown: &str) {
    let mut s = Session::start(ROWS, COLS, args);
    s.wait_for(&[EXPLORER]);
    s.send(open);
    s.wait_for(&[shown]);
    s.wait_gone(EXPLORER);
    s.send("?");
    s.wait_for(&["Help ·"]);
    esc(&mut s);
    s.wait_gone("Help ·");
    s.wait_for(&[shown]);
    esc(&mut s);
    s.wait_for(&[EXPLORER]);
    s.wait_gone(shown);
    s.send(open);
    s.wait_for(&[shown]);
    s.send("q");
    s.exits_restored();
}

/// A damaged ETRecord (`debug_handle_map` not JSON): the profile loads without sources,
/// and `m` says in the footer that there is no module tree instead of opening a view.
#[test]
fn modules_key_with_a_damaged_etrecord_says_so() {
    let mut s = Session::start(
        ROWS,
        COLS,
        &[
            "fixtures/etrecord/modules_xnnpack.etdp",
            "--etrecord",
            "fixtures/etrecord/bad_json.etrecord",
            "--warmup",
            "0",
        ],
    );
    s.wait_for(&[EXPLORER]);
    s.send("m");
    s.wait_for(&["no module tree: no ETRecord read", EXPLORER]);
    s.send("q");
    s.exits_restored();
}

/// In a real terminal: the log view's `G` shows the last page, `→`/`l` scroll its long
/// lines sideways, `←` back; help pages with Space and `G`.
#[test]
fn log_scrolls_sideways_and_help_pages() {
    let mut s = Session::start(ROWS, COLS, DUMP);
    s.wait_for(&[EXPLORER, "runs 30 kept"]);
    s.send("w");
    s.wait_for(&["Warnings & runner log"]);
    s.send("G");
    s.wait_for(&["275 I 00:00:00.059338 executorch:runner.cpp:301] ETDump written"]);
    s.send("\x1b[C");
    s.wait_for(&["275 00.059338 executorch:runner.cpp:301] ETDump written"]);
    s.send("l");
    s.wait_for(&["275 8 executorch:runner.cpp:301]"]);
    s.send("\x1b[D");
    s.wait_for(&["275 00.059338 executorch"]);
    s.send("?");
    s.wait_for(&["Help ·"]);
    s.send(" ");
    s.send("G");
    s.wait_for(&["Help ·", "wheel"]);
    s.send("q");
    s.exits_restored();
}
