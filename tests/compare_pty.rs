//! `cpuprof-tui compare A B` (the compare view) in a pseudo-terminal: open, swap, show
//! changed rows only, switch to the tree, open help, quit; the terminal is restored.
//! Expected rows come from fixtures/compare/README.md (conv #3 1.5x and neg 1.4x slower,
//! pixel_shuffle 0.6x: 5 slower rows with their ancestors, 2 faster, 26 rows in all).

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, Child, CommandBuilder, PtySize};

const ROWS: u16 = 30;
const COLS: u16 = 120;

struct Session {
    child: Box<dyn Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    output: Arc<Mutex<Vec<u8>>>,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("openpty");
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_cpuprof-tui"));
        cmd.args(args);
        cmd.cwd(env!("CARGO_MANIFEST_DIR"));
        cmd.env("TERM", "xterm-256color");
        cmd.env("NO_COLOR", "1");
        let child = pty.slave.spawn_command(cmd).expect("spawn");
        drop(pty.slave);
        let mut reader = pty.master.try_clone_reader().expect("reader");
        let writer = pty.master.take_writer().expect("writer");
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
        Session {
            child,
            writer,
            output,
            _master: pty.master,
        }
    }

    fn screen(&self) -> String {
        let size = |n: u16| std::num::NonZeroU16::new(n).expect("non-zero size");
        let mut parser = vt100::Parser::new(size(ROWS), size(COLS), 0);
        parser.process(&self.output.lock().unwrap());
        parser.screen().contents()
    }

    fn wait_for(&self, needles: &[&str]) -> String {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let screen = self.screen();
            if needles.iter().all(|n| screen.contains(n)) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {needles:?}; screen:\n{screen}"
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    fn send(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    fn wait_exit(&mut self) -> portable_pty::ExitStatus {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("compare view did not exit; screen:\n{}", self.screen());
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    fn final_output(&self) -> Vec<u8> {
        let deadline = Instant::now() + Duration::from_secs(2);
        let mut last = 0;
        loop {
            thread::sleep(Duration::from_millis(30));
            let len = self.output.lock().unwrap().len();
            if len == last || Instant::now() > deadline {
                return self.output.lock().unwrap().clone();
            }
            last = len;
        }
    }
}

#[test]
fn open_swap_filter_tree_help_quit() {
    let mut s = Session::start(&[
        "compare",
        "fixtures/compare/cnn2_a.etdp",
        "fixtures/compare/cnn2_slow_b.etdp",
        "--warmup",
        "3",
    ]);
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
    s.send("c");
    s.wait_for(&["table by verdict · 7 rows · changed only"]);
    s.send("x");
    s.wait_for(&["[swapped]", "▲ 2 slower", "▼ 5 faster", "median B"]);
    s.send("x");
    s.send("t");
    s.wait_for(&["tree · 7 rows · changed only"]);
    s.send("c");
    s.wait_for(&["tree · 26 rows", "Method::execute"]);
    s.send("?");
    s.wait_for(&["compare keys", "swap A and B"]);
    // Esc closes help (alone: Esc followed at once by a key reads as Alt+key).
    s.send("\x1b");
    let deadline = Instant::now() + Duration::from_secs(10);
    while s.screen().contains("compare keys") {
        assert!(Instant::now() < deadline, "help did not close");
        thread::sleep(Duration::from_millis(20));
    }
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
