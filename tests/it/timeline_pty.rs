//! The timeline view in the real binary, in a pseudo-terminal read back through vt100:
//! open it on wide_browse (30 kept runs; the run closest to the median Method::execute of
//! the truth file is kept run 27, Execute run 32), zoom in and out, step runs, jump to
//! the slowest (truth: max 1.201313 ms, kept run 17 = Execute run 22), close, quit; the
//! terminal is restored.

use crate::support::pty;

use pty::Session;

const ROWS: u16 = 40;
const COLS: u16 = 120;

#[test]
fn open_zoom_step_runs_and_quit() {
    let mut s = Session::start(
        ROWS,
        COLS,
        &["fixtures/cpu/wide_browse.etdp", "--warmup", "5"],
    );
    s.wait_for(&["runs 30 kept, 5 warm-up dropped (of 35)"]);
    s.send("t");
    // Median run: truth samples sorted, the 15th smallest is 1.112780 ms (kept run 27);
    // kept run 27 is the closest to it (it is that sample).
    s.wait_for(&[
        "Timeline · run 32 · 28th of 30 kept",
        "Method::execute 1.113 ms",
        "plan steps",
    ]);
    // Down to the plan steps lane: the step under the middle of the run is selected
    // (its detail below the lanes), the first step is in view.
    s.send("jj");
    s.wait_for(&[
        "XNNPACK/subgraph:conv2d+18",
        "XNNPACK/subgraph:conv2d_10+18",
        "start +",
    ]);
    // Zoom in twice around the selected step: the first step leaves the window. (Sent
    // after the frame above is read: with the four keys at once, that frame may never
    // be drawn.)
    s.send("zz");
    s.wait_gone("XNNPACK/subgraph:conv2d+18");
    s.send("ZZ");
    s.send("n");
    s.wait_for(&["Timeline · run 33 · 29th of 30 kept"]);
    s.send("pp");
    s.wait_for(&["Timeline · run 31 · 27th of 30 kept"]);
    s.send("W");
    s.wait_for(&[
        "Timeline · run 22 · 18th of 30 kept",
        "Method::execute 1.201 ms",
    ]);
    s.send("t");
    s.wait_for(&["Plan tree"]);
    s.send("q");
    let status = s.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    let text = String::from_utf8_lossy(&s.final_output()).into_owned();
    assert!(
        text.trim_end_matches(['\r', '\n']).ends_with("\x1b[?1049l"),
        "terminal left the alternate screen"
    );
}
