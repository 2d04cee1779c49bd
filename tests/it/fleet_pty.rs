//! The fleet view in a real terminal (the binary in a pty): `fleet PATH...` and
//! `cpuprof-tui DIR` open it behind a loading message; Enter opens a profile in the
//! explorer, Esc returns to the fleet, `d` opens the compare view against the group's
//! median profile, Esc returns, `q` quits: exit 0, the terminal restored.

use crate::support::pty;

use pty::Session;

const ROWS: u16 = 40;
const COLS: u16 = 120;
/// The explorer's tree pane title: the explorer is what fills the screen.
const EXPLORER: &str = "Plan tree";

#[test]
fn fleet_enter_esc_d_esc_q() {
    let mut s = Session::start(
        ROWS,
        COLS,
        &[
            "fleet",
            "fixtures/fleet/devices",
            "--key",
            "{device}/{commit}/run-{n}.etdp",
        ],
    );
    s.wait_for(&["Profiles (12)", "Rows of model"]);
    // Down to dev02, into its profile.
    s.send("j");
    s.send("\r");
    s.wait_for(&[EXPLORER, "run-1.etdp + run-1.log"]);
    s.wait_gone("Profiles (12)");
    s.send("\x1b");
    s.wait_for(&["Profiles (12)"]);
    s.wait_gone(EXPLORER);
    // dev07, the outlier: compared with the median profile.
    for _ in 0..5 {
        s.send("j");
    }
    s.send("d");
    s.wait_for(&["(median profile)"]);
    s.wait_gone("Profiles (12)");
    s.send("\x1b");
    s.wait_for(&["Profiles (12)"]);
    s.send("q");
    s.exits_restored();
}

#[test]
fn a_folder_of_dumps_opens_the_fleet_view() {
    let mut s = Session::start(ROWS, COLS, &["fixtures/fleet/null"]);
    s.wait_for(&["Profiles (40)", "n01.etdp"]);
    s.send("q");
    s.exits_restored();
}
