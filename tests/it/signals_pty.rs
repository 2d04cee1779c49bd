//! Signals restore the terminal: the real binary in a pseudo-terminal gets SIGTERM,
//! SIGINT or SIGHUP (in the explorer, in watch mode, right after the first frame while
//! it loads) and must leave the terminal as `q` does: main screen, cursor shown, mouse
//! reporting off (read back through vt100), raw mode off (the pty's termios), exit
//! status 128 + signal. Also: CSV sent to a terminal is escaped.
#![cfg(unix)]

use crate::support::pty;

use portable_pty::CommandBuilder;
use pty::Session;

const ROWS: u16 = 30;
const COLS: u16 = 100;

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
        let mut s = Session::start(
            ROWS,
            COLS,
            &["fixtures/cpu/wide_browse.etdp", "--warmup", "5"],
        );
        s.wait_until("the profile", explorer_on_screen);
        // Raw mode is on while the explorer runs (the check below can fail).
        assert_eq!(s.cooked(), (false, false), "SIG{name}: raw mode was not on");
        s.signal(sig);
        assert_eq!(s.wait_exit().exit_code(), 128 + sig as u32, "SIG{name}");
        s.assert_restored(&format!("SIG{name}"));
    }
}

#[test]
fn a_signal_in_watch_mode_restores_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::start(
        ROWS,
        COLS,
        &["--watch", dir.path().to_str().unwrap(), "--poll"],
    );
    s.wait_until("watch mode", |sc| {
        sc.alternate_screen() && !sc.contents().trim().is_empty()
    });
    s.signal(libc::SIGTERM);
    assert_eq!(s.wait_exit().exit_code(), 128 + libc::SIGTERM as u32);
    s.assert_restored("watch");
}

#[test]
fn a_signal_right_after_the_first_frame_restores_the_terminal() {
    // The first frame (the loading gauge) is drawn before a byte is read.
    let mut s = Session::start(ROWS, COLS, &["fixtures/cpu/wide_browse.etdp"]);
    s.wait_until("the alternate screen", |sc| sc.alternate_screen());
    s.signal(libc::SIGTERM);
    assert_eq!(s.wait_exit().exit_code(), 128 + libc::SIGTERM as u32);
    s.assert_restored("loading");
}

#[test]
fn a_closed_terminal_ends_the_explorer() {
    let mut s = Session::start(
        ROWS,
        COLS,
        &["fixtures/cpu/wide_browse.etdp", "--warmup", "5"],
    );
    s.wait_until("the profile", explorer_on_screen);
    // Closing every master descriptor hangs up the terminal: SIGHUP, and reads fail.
    s.hang_up();
    let code = s.wait_exit().exit_code();
    assert!(code == 129 || code == 0, "exit {code}");
}

#[test]
fn csv_on_a_terminal_is_escaped() {
    let mut s = Session::start(
        ROWS,
        COLS,
        &[
            "report",
            "fixtures/hostile/ansi_name.etdp",
            "--format",
            "csv",
        ],
    );
    s.wait_exit().exit_code();
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
    let mut s = Session::start_command(ROWS, COLS, cmd);
    s.wait_until("the profile", |sc| {
        explorer_on_screen(sc)
            && sc
                .contents()
                .contains("runs 30 kept, 5 warm-up dropped (of 35)")
    });
    s.send("q");
    assert_eq!(s.wait_exit().exit_code(), 0);
    s.assert_restored("stdin");
}
