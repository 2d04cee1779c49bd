//! The timeline view in the real binary, in a pseudo-terminal read back through vt100:
//! open it on wide_browse (30 kept runs; the run closest to the median Method::execute of
//! the truth file is kept run 27, Execute run 32), zoom in and out, step runs, jump to
//! the slowest (truth: max 1.201313 ms, kept run 17 = Execute run 22), close, quit; the
//! terminal is restored.

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, CommandBuilder, PtySize};

const ROWS: u16 = 40;
const COLS: u16 = 120;

fn screen(output: &Arc<Mutex<Vec<u8>>>) -> String {
    let size = |n: u16| std::num::NonZeroU16::new(n).expect("non-zero size");
    let mut parser = vt100::Parser::new(size(ROWS), size(COLS), 0);
    parser.process(&output.lock().unwrap());
    parser.screen().contents()
}

fn wait_for(output: &Arc<Mutex<Vec<u8>>>, needles: &[&str]) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let s = screen(output);
        if needles.iter().all(|n| s.contains(n)) {
            return s;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {needles:?}; screen:\n{s}"
        );
        thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn open_zoom_step_runs_and_quit() {
    let pty = native_pty_system()
        .openpty(PtySize {
            rows: ROWS,
            cols: COLS,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("openpty");
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_cpuprof-tui"));
    cmd.args(["fixtures/cpu/wide_browse.etdp", "--warmup", "5"]);
    cmd.cwd(env!("CARGO_MANIFEST_DIR"));
    cmd.env("TERM", "xterm-256color");
    cmd.env("NO_COLOR", "1");
    let mut child = pty.slave.spawn_command(cmd).expect("spawn");
    drop(pty.slave);
    let mut reader = pty.master.try_clone_reader().expect("reader");
    let mut writer = pty.master.take_writer().expect("writer");
    let output = Arc::new(Mutex::new(Vec::new()));
    let sink = output.clone();
    thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    let mut send = |keys: &str| {
        writer.write_all(keys.as_bytes()).unwrap();
        writer.flush().unwrap();
    };

    wait_for(&output, &["runs 30 kept, 5 warm-up dropped (of 35)"]);
    send("t");
    // Median run: truth samples sorted, the 15th smallest is 1.112780 ms (kept run 27);
    // kept run 27 is the closest to it (it is that sample).
    wait_for(
        &output,
        &[
            "Timeline · run 32 (28/30 kept)",
            "Method::execute 1.113 ms",
            "plan steps",
        ],
    );
    // Down to the plan steps lane, zoom in twice around the first step.
    send("jj++");
    let zoomed = wait_for(&output, &["XNNPACK/subgraph:conv2d+18"]);
    assert!(zoomed.contains("start +"), "{zoomed}");
    send("--");
    send("n");
    wait_for(&output, &["Timeline · run 33 (29/30 kept)"]);
    send("pp");
    wait_for(&output, &["Timeline · run 31 (27/30 kept)"]);
    send("s");
    wait_for(
        &output,
        &["Timeline · run 22 (18/30 kept)", "Method::execute 1.201 ms"],
    );
    send("t");
    wait_for(&output, &["Plan tree"]);
    send("q");
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("explorer did not exit; screen:\n{}", screen(&output));
        }
        thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "exit status {status:?}");
    thread::sleep(Duration::from_millis(200));
    let text = String::from_utf8_lossy(&output.lock().unwrap()).into_owned();
    assert!(
        text.trim_end_matches(['\r', '\n']).ends_with("\x1b[?1049l"),
        "terminal left the alternate screen"
    );
    drop(pty.master);
}
