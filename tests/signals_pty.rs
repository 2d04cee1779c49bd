//! Signals restore the terminal: the real binary in a pseudo-terminal gets SIGTERM,
//! SIGINT or SIGHUP (in the explorer, in watch mode, right after the first frame while
//! it loads) and must leave the terminal as `q` does: main screen, cursor shown, mouse
//! reporting off (read back through vt100), raw mode off (the pty's termios), exit
//! status 128 + signal. Also: CSV sent to a terminal is escaped.
#![cfg(unix)]

use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, Child, CommandBuilder, MasterPty, PtySize};

const ROWS: u16 = 30;
const COLS: u16 = 100;

struct Session {
    child: Box<dyn Child + Send + Sync>,
    output: Arc<Mutex<Vec<u8>>>,
    master: Option<Box<dyn MasterPty + Send>>,
    stop_reading: Arc<AtomicBool>,
    reader: Option<thread::JoinHandle<()>>,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_cpuprof-tui"));
        cmd.args(args);
        Session::start_command(cmd)
    }

    fn start_command(mut cmd: CommandBuilder) -> Session {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("openpty");
        cmd.cwd(env!("CARGO_MANIFEST_DIR"));
        cmd.env("TERM", "xterm-256color");
        cmd.env("NO_COLOR", "1");
        let child = pty.slave.spawn_command(cmd).expect("spawn");
        drop(pty.slave);
        let mut reader = pty.master.try_clone_reader().expect("reader");
        // Non-blocking (the flag is shared with the reader's duplicate), so the reader
        // thread can be stopped and its descriptor closed: the terminal can be hung up.
        let fd = pty.master.as_raw_fd().expect("master fd");
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
        let output = Arc::new(Mutex::new(Vec::new()));
        let sink = output.clone();
        let stop_reading = Arc::new(AtomicBool::new(false));
        let stop = stop_reading.clone();
        let reader = thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => sink.lock().unwrap().extend_from_slice(&buf[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        if stop.load(Ordering::SeqCst) {
                            break;
                        }
                        thread::sleep(Duration::from_millis(5));
                    }
                    Err(_) => break,
                }
            }
        });
        Session {
            child,
            output,
            master: Some(pty.master),
            stop_reading,
            reader: Some(reader),
        }
    }

    fn parser(&self) -> vt100::Parser {
        let size = |n: u16| std::num::NonZeroU16::new(n).expect("non-zero size");
        let mut parser = vt100::Parser::new(size(ROWS), size(COLS), 0);
        parser.process(&self.output.lock().unwrap());
        parser
    }

    fn wait_until(&self, what: &str, ok: impl Fn(&vt100::Screen) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let parser = self.parser();
            if ok(parser.screen()) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; screen:\n{}",
                parser.screen().contents()
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    fn signal(&self, sig: i32) {
        let pid = self.child.process_id().expect("child pid") as i32;
        unsafe {
            libc::kill(pid, sig);
        }
    }

    fn wait_exit(&mut self) -> u32 {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.exit_code();
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!(
                    "did not exit; screen:\n{}",
                    self.parser().screen().contents()
                );
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// The pty's local modes: (canonical input, echo) — both on unless raw.
    fn cooked(&self) -> (bool, bool) {
        let fd = self
            .master
            .as_ref()
            .and_then(|m| m.as_raw_fd())
            .expect("master fd");
        let mut t: libc::termios = unsafe { std::mem::zeroed() };
        assert_eq!(unsafe { libc::tcgetattr(fd, &mut t) }, 0);
        (t.c_lflag & libc::ICANON != 0, t.c_lflag & libc::ECHO != 0)
    }

    /// Everything written, once the output stops growing.
    fn settle(&self) {
        let mut last = usize::MAX;
        for _ in 0..50 {
            thread::sleep(Duration::from_millis(40));
            let len = self.output.lock().unwrap().len();
            if len == last {
                return;
            }
            last = len;
        }
    }

    fn assert_restored(&self, what: &str) {
        self.settle();
        let parser = self.parser();
        let screen = parser.screen();
        assert!(
            !screen.alternate_screen(),
            "{what}: still on the alternate screen"
        );
        assert!(!screen.hide_cursor(), "{what}: cursor still hidden");
        assert_eq!(
            screen.mouse_protocol_mode(),
            vt100::MouseProtocolMode::None,
            "{what}: mouse reporting still on"
        );
        assert_eq!(self.cooked(), (true, true), "{what}: raw mode still on");
    }
}

fn explorer_on_screen(s: &vt100::Screen) -> bool {
    s.alternate_screen() && s.contents().contains("Method::execute median")
}

#[test]
fn each_signal_restores_the_explorer_terminal() {
    for (sig, name) in [
        (libc::SIGTERM, "TERM"),
        (libc::SIGINT, "INT"),
        (libc::SIGHUP, "HUP"),
    ] {
        let mut s = Session::start(&["fixtures/cpu/wide_browse.etdp", "--warmup", "5"]);
        s.wait_until("the profile", explorer_on_screen);
        // Raw mode is on while the explorer runs (the check below can fail).
        assert_eq!(s.cooked(), (false, false), "SIG{name}: raw mode was not on");
        s.signal(sig);
        assert_eq!(s.wait_exit(), 128 + sig as u32, "SIG{name}");
        s.assert_restored(&format!("SIG{name}"));
    }
}

#[test]
fn a_signal_in_watch_mode_restores_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::start(&["--watch", dir.path().to_str().unwrap(), "--poll"]);
    s.wait_until("watch mode", |sc| {
        sc.alternate_screen() && !sc.contents().trim().is_empty()
    });
    s.signal(libc::SIGTERM);
    assert_eq!(s.wait_exit(), 128 + libc::SIGTERM as u32);
    s.assert_restored("watch");
}

#[test]
fn a_signal_right_after_the_first_frame_restores_the_terminal() {
    // The first frame (the loading gauge) is drawn before a byte is read.
    let mut s = Session::start(&["fixtures/cpu/wide_browse.etdp"]);
    s.wait_until("the alternate screen", |sc| sc.alternate_screen());
    s.signal(libc::SIGTERM);
    assert_eq!(s.wait_exit(), 128 + libc::SIGTERM as u32);
    s.assert_restored("loading");
}

#[test]
fn a_closed_terminal_ends_the_explorer() {
    let mut s = Session::start(&["fixtures/cpu/wide_browse.etdp", "--warmup", "5"]);
    s.wait_until("the profile", explorer_on_screen);
    // Closing every master descriptor hangs up the terminal: SIGHUP, and reads fail.
    s.stop_reading.store(true, Ordering::SeqCst);
    s.reader.take().unwrap().join().unwrap();
    drop(s.master.take());
    let code = s.wait_exit();
    assert!(code == 129 || code == 0, "exit {code}");
}

#[test]
fn csv_on_a_terminal_is_escaped() {
    let mut s = Session::start(&[
        "report",
        "fixtures/hostile/ansi_name.etdp",
        "--format",
        "csv",
    ]);
    s.wait_exit();
    s.settle();
    let out = s.output.lock().unwrap().clone();
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains("\\x1b]0;PWNED-TITLE\\x07"), "{text}");
    // The pty turns `\n` into `\r\n`; nothing else below 0x20 may arrive.
    assert!(
        !out.iter().any(|&b| b < 0x20 && b != b'\n' && b != b'\r'),
        "{text:?}"
    );
}

#[test]
fn the_explorer_reads_a_profile_from_standard_input() {
    if !std::path::Path::new("/bin/sh").exists() {
        return;
    }
    // stdin is a pipe; keys come from the terminal (/dev/tty).
    let mut cmd = CommandBuilder::new("/bin/sh");
    cmd.args([
        "-c",
        &format!(
            "cat fixtures/cpu/wide_browse.etdp | \"{}\" - --warmup 5",
            env!("CARGO_BIN_EXE_cpuprof-tui")
        ),
    ]);
    let mut s = Session::start_command(cmd);
    s.wait_until("the profile", |sc| {
        explorer_on_screen(sc)
            && sc
                .contents()
                .contains("runs 30 kept, 5 warm-up dropped (of 35)")
    });
    let mut w = s.master.as_ref().unwrap().take_writer().unwrap();
    std::io::Write::write_all(&mut w, b"q").unwrap();
    assert_eq!(s.wait_exit(), 0);
    s.assert_restored("stdin");
}
