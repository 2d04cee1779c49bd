//! The flame view in the real binary, in a pseudo-terminal read back through vt100: open
//! it with `f` on wide_browse, go down to a plan step and zoom (the breadcrumb names its
//! ancestors), search, the sandwich and the left-heavy order, Esc back out to the
//! explorer, q; the terminal is restored.

use crate::support::pty;

use pty::Session;

#[test]
fn open_zoom_search_esc_out_and_quit() {
    let mut s = Session::start(40, 120, &["fixtures/cpu/wide_browse.etdp", "--warmup", "5"]);
    s.wait_for(&["runs 30 kept, 5 warm-up dropped (of 35)"]);
    s.send("f");
    s.wait_for(&[
        "Flame graph · widths: median run",
        "Method::execute · 1.113 ms · 100.0% of root",
    ]);
    // Down to delegate #1, then its widest step; zoom into it.
    s.send("jj\r");
    s.wait_for(&[
        "Method::execute › delegate #1 › (zoomed)",
        "XNNPACK/subgraph:conv2d+18 · 487 µs",
    ]);
    s.send("/gemm\r");
    s.wait_for(&["/gemm: 22 frames"]);
    // Esc: out of the zoom, out of delegate #1's, the search, then the view.
    s.send("\x1b");
    s.wait_for(&["Method::execute › (zoomed)"]);
    s.send("\x1b");
    s.wait_for(&["Enter zooms into the selected frame"]);
    // The sandwich of the selected frame, and back; left-heavy, and back.
    s.send("i");
    s.wait_for(&[
        "Sandwich of XNNPACK/subgraph:conv2d+18",
        "i or Esc: back to the graph",
    ]);
    s.send("i");
    s.wait_for(&["Enter zooms into the selected frame"]);
    s.send("s");
    s.wait_for(&["left-heavy: stacks merged"]);
    s.send("s");
    s.wait_gone("left-heavy: stacks merged");
    s.send("\x1b");
    s.wait_gone("/gemm:");
    s.send("\x1b");
    s.wait_for(&["Plan tree"]);
    s.send("q");
    let status = s.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    let text = String::from_utf8_lossy(&s.final_output()).into_owned();
    assert!(
        text.trim_end_matches(['\r', '\n']).ends_with("\x1b[?1049l"),
        "terminal left the alternate screen"
    );
    s.assert_restored("q from the explorer after the flame view");
}
