//! The explorer maps a big dump (`input::read_input_mapped`); another program truncating
//! it while it loads must not kill the explorer with SIGBUS (terminal left raw): the
//! real binary in a pseudo-terminal, the dump cut to a tenth as soon as the gauge says
//! it is being parsed (the map exists from then on), must show one line naming the file,
//! keep running, and leave the terminal restored on `q`.
#![cfg(target_os = "linux")]

use crate::support::big_dump;
use crate::support::pty;

use pty::Session;

#[test]
fn a_dump_truncated_while_it_loads_is_a_message_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read("fixtures/cpu/wide_browse.etdp").unwrap();
    // ~24 MB: the (unoptimised) test binary takes long enough decoding and building it
    // that the truncation below lands while the load is under way.
    let (bytes, _) = big_dump::repeat_execute_runs(&source, 24 << 20);
    let path = dir.path().join("big.etdp");
    std::fs::write(&path, &bytes).unwrap();
    let name = path.to_str().unwrap().to_string();

    let mut s = Session::start(30, 120, &[&name, "--no-log"]);
    s.wait_until("the gauge parsing", |sc| sc.contents().contains("parsing"));
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(bytes.len() as u64 / 10)
        .unwrap();
    // Without the guard the process dies of SIGBUS here and this never shows.
    let screen = s.wait_for(&["changed while reading"]);
    assert!(
        screen.contains("big.etdp"),
        "the message names the file:\n{screen}"
    );
    assert!(
        s.child.try_wait().unwrap().is_none(),
        "the explorer is still running"
    );
    s.send("q");
    assert_eq!(s.wait_exit().exit_code(), 0);
    s.assert_restored("after a truncated load");
}
