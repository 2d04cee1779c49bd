//! The real binary in a pseudo-terminal, read back through a terminal emulator (vt100).
//! One harness for every pty test: start the
//! binary (or any command) on a terminal of a given size, type keys, wait for text on the
//! screen, send signals, and check that the terminal was left as it was found.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, Child, CommandBuilder, MasterPty, PtySize};

/// How long a wait may take before the test fails with the screen it saw. Generous: the
/// suite runs many of these at once on a 2-core machine.
pub const PATIENCE: Duration = Duration::from_secs(20);

pub struct Session {
    pub child: Box<dyn Child + Send + Sync>,
    pub output: Arc<Mutex<Vec<u8>>>,
    /// Kept open so the child keeps its terminal (dropped to hang it up).
    pub master: Option<Box<dyn MasterPty + Send>>,
    writer: Option<Box<dyn Write + Send>>,
    stop_reading: Arc<AtomicBool>,
    reader: Option<thread::JoinHandle<()>>,
    rows: u16,
    cols: u16,
}

impl Session {
    /// `cpuprof-tui ARGS` on a `rows` x `cols` terminal, run from the crate's folder.
    pub fn start(rows: u16, cols: u16, args: &[&str]) -> Session {
        Session::start_with_env(rows, cols, args, &[])
    }

    pub fn start_with_env(rows: u16, cols: u16, args: &[&str], env: &[(&str, &str)]) -> Session {
        let mut cmd = CommandBuilder::new(crate::binary());
        cmd.args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        Session::start_command(rows, cols, cmd)
    }

    /// Any command (a shell pipeline, say) on a `rows` x `cols` terminal.
    pub fn start_command(rows: u16, cols: u16, mut cmd: CommandBuilder) -> Session {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("openpty");
        cmd.cwd(crate::root());
        cmd.env("TERM", "xterm-256color");
        cmd.env("NO_COLOR", "1");
        let child = pty.slave.spawn_command(cmd).expect("spawn");
        drop(pty.slave);
        let mut reader = pty.master.try_clone_reader().expect("reader");
        let writer = pty.master.take_writer().expect("writer");
        // Non-blocking (the flag is shared with the reader's duplicate), so the reader
        // thread can be stopped and its descriptor closed: the terminal can be hung up.
        #[cfg(unix)]
        if let Some(fd) = pty.master.as_raw_fd() {
            unsafe {
                let flags = libc::fcntl(fd, libc::F_GETFL);
                libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
            }
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
            writer: Some(writer),
            stop_reading,
            reader: Some(reader),
            rows,
            cols,
        }
    }

    /// The terminal as the program left it so far.
    pub fn parser(&self) -> vt100::Parser {
        let size = |n: u16| std::num::NonZeroU16::new(n).expect("non-zero size");
        let mut parser = vt100::Parser::new(size(self.rows), size(self.cols), 0);
        parser.process(&self.output.lock().unwrap());
        parser
    }

    pub fn screen(&self) -> String {
        self.parser().screen().contents()
    }

    /// Wait until `ok` holds for the screen.
    pub fn wait_until(&self, what: &str, ok: impl Fn(&vt100::Screen) -> bool) {
        let deadline = Instant::now() + PATIENCE;
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

    /// Wait until the screen shows every one of `needles`; the screen then.
    pub fn wait_for(&self, needles: &[&str]) -> String {
        let deadline = Instant::now() + PATIENCE;
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

    /// Wait until the screen no longer shows `needle`.
    pub fn wait_gone(&self, needle: &str) {
        let deadline = Instant::now() + PATIENCE;
        while self.screen().contains(needle) {
            assert!(
                Instant::now() < deadline,
                "{needle:?} did not go; screen:\n{}",
                self.screen()
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Wait until row `row` of the screen contains `needle`.
    pub fn wait_for_row(&self, row: usize, needle: &str) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let screen = self.screen();
            if screen.lines().nth(row).is_some_and(|l| l.contains(needle)) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {needle:?} on row {row}; screen:\n{screen}"
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Resize the terminal (the program gets SIGWINCH); the screen is read at the new size.
    pub fn resize(&mut self, rows: u16, cols: u16) {
        self.master
            .as_ref()
            .expect("terminal open")
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        self.rows = rows;
        self.cols = cols;
    }

    /// Type `keys` (bytes as a terminal sends them: `\x1b` for Esc, `\r` for Enter).
    pub fn send(&mut self, keys: &str) {
        let w = self.writer.as_mut().expect("terminal open");
        w.write_all(keys.as_bytes()).unwrap();
        w.flush().unwrap();
    }

    #[cfg(unix)]
    pub fn signal(&self, sig: i32) {
        let pid = self.child.process_id().expect("child pid") as i32;
        unsafe {
            libc::kill(pid, sig);
        }
    }

    /// Close every master descriptor: the terminal hangs up (SIGHUP, reads fail).
    pub fn hang_up(&mut self) {
        self.stop_reading.store(true, Ordering::SeqCst);
        if let Some(reader) = self.reader.take() {
            reader.join().unwrap();
        }
        self.writer.take();
        self.master.take();
    }

    pub fn wait_exit(&mut self) -> portable_pty::ExitStatus {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("did not exit; screen:\n{}", self.screen());
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Wait until the output stops growing (2 s at most).
    pub fn settle(&self) {
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

    /// Everything written, once the output stopped growing.
    pub fn final_output(&self) -> Vec<u8> {
        self.settle();
        self.output.lock().unwrap().clone()
    }

    /// The pty's local modes: (canonical input, echo), both on unless in raw mode.
    #[cfg(unix)]
    pub fn cooked(&self) -> (bool, bool) {
        let fd = self
            .master
            .as_ref()
            .and_then(|m| m.as_raw_fd())
            .expect("master fd");
        let mut t: libc::termios = unsafe { std::mem::zeroed() };
        assert_eq!(unsafe { libc::tcgetattr(fd, &mut t) }, 0);
        (t.c_lflag & libc::ICANON != 0, t.c_lflag & libc::ECHO != 0)
    }

    /// The terminal is as `q` leaves it: main screen, cursor shown, mouse reporting off,
    /// raw mode off.
    #[cfg(unix)]
    pub fn assert_restored(&self, what: &str) {
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

    /// The program exits with success and its output leaves the terminal as it found
    /// it: the last alternate-screen entry is followed by mouse capture off and the
    /// cursor shown, and the output ends by leaving the alternate screen.
    pub fn exits_restored(&mut self) {
        let status = self.wait_exit();
        assert!(status.success(), "exit status {status:?}");
        ends_restored(&self.final_output());
    }
}

/// `out` (a program's whole terminal output) leaves the terminal as it found it: the
/// last alternate-screen entry is followed by mouse capture off and the cursor shown,
/// and the output ends by leaving the alternate screen.
pub fn ends_restored(out: &[u8]) {
    let text = String::from_utf8_lossy(out);
    let enter = text
        .rfind("\x1b[?1049h")
        .expect("entered the alternate screen");
    let tail = &text[enter..];
    assert!(tail.contains("\x1b[?1000l"), "mouse capture disabled");
    assert!(tail.contains("\x1b[?25h"), "cursor shown");
    assert!(
        text.trim_end_matches(['\r', '\n']).ends_with("\x1b[?1049l"),
        "output ends by leaving the alternate screen: {:?}",
        &text[text.len().saturating_sub(80)..]
    );
}
