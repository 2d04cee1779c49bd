//! The SIGBUS guard of mapped inputs (`src/input/map_guard.rs`), for real: a file is
//! mapped, truncated from this same process, and read past its new end. Without the
//! guard that read kills the process with SIGBUS; with it the bytes read as zeros and
//! the input says it changed. A fault in a map the guard does not know keeps its
//! default action (checked in a child process, which must die of SIGBUS).
#![cfg(target_os = "linux")]

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::process::Command;
use std::sync::atomic::AtomicBool;

use cpuprof_tui::input::{read_input_mapped, InputError};
use cpuprof_tui::profile::{
    load_profile_from_bytes, load_profile_from_input, read_dump, unchanged_or, LoadError,
    ProfileRequest,
};

use crate::support::big_dump;

const MIB: usize = 1 << 20;

/// A file of `len` bytes, every byte 0xAB (so a zero can only come from the guard).
fn file_of(dir: &tempfile::TempDir, name: &str, len: usize) -> std::path::PathBuf {
    let path = dir.path().join(name);
    let mut f = std::fs::File::create(&path).unwrap();
    f.write_all(&vec![0xABu8; len]).unwrap();
    f.sync_all().unwrap();
    path
}

/// Read byte `i` the way the decoder does (a plain load), not optimised away.
fn read_at(bytes: &[u8], i: usize) -> u8 {
    // SAFETY: i < bytes.len() (checked by the index below); volatile keeps the load.
    unsafe { std::ptr::read_volatile(&bytes[i]) }
}

#[test]
fn truncated_while_mapped_reads_zeros_and_reports_changed() {
    let dir = tempfile::tempdir().unwrap();
    let path = file_of(&dir, "dump.etdp", 4 * MIB);
    let input = read_input_mapped(&path, cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).unwrap();
    assert!(input.is_mapped(), "a 4 MiB regular file is mapped");
    let bytes = &input.bytes;
    assert_eq!(read_at(bytes, 0), 0xAB);
    assert!(input.check_unchanged().is_ok());

    // Another program would do this; doing it here makes the fault certain.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(8192)
        .unwrap();

    // Inside the new length: still the file's bytes.
    assert_eq!(read_at(bytes, 8191), 0xAB);
    // Past it: the page would raise SIGBUS; the guard gives zeros from there to the end.
    assert_eq!(read_at(bytes, 3 * MIB), 0);
    assert_eq!(read_at(bytes, 2 * MIB + 5), 0);
    assert_eq!(read_at(bytes, 4 * MIB - 1), 0);
    assert_eq!(input.check_unchanged(), Err(InputError::Changed));
    let message = input.check_unchanged().unwrap_err().to_string();
    assert!(message.starts_with("changed while reading"), "{message}");
}

#[test]
fn rewritten_without_fault_is_still_changed() {
    // Grown by a writer (what watch mode sees while a dump is written): no fault, but
    // the size differs from the one mapped.
    let dir = tempfile::tempdir().unwrap();
    let path = file_of(&dir, "growing.etdp", 2 * MIB);
    let input = read_input_mapped(&path, cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).unwrap();
    assert!(input.check_unchanged().is_ok());
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(b"more")
        .unwrap();
    assert_eq!(read_at(&input.bytes, 2 * MIB - 1), 0xAB);
    assert_eq!(input.check_unchanged(), Err(InputError::Changed));
}

#[test]
fn a_second_map_of_the_same_file_is_guarded_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let a = file_of(&dir, "a.etdp", 2 * MIB);
    let b = file_of(&dir, "b.etdp", 2 * MIB);
    let first = read_input_mapped(&a, cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).unwrap();
    let second = read_input_mapped(&b, cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&b)
        .unwrap()
        .set_len(0)
        .unwrap();
    assert_eq!(read_at(&second.bytes, MIB), 0);
    assert_eq!(second.check_unchanged(), Err(InputError::Changed));
    // The untouched file's map is neither zeroed nor marked.
    assert_eq!(read_at(&first.bytes, MIB), 0xAB);
    assert!(first.check_unchanged().is_ok());
}

#[test]
fn small_files_and_pipes_are_read_not_mapped() {
    let dir = tempfile::tempdir().unwrap();
    let small = file_of(&dir, "small.etdp", 4096);
    assert!(
        !read_input_mapped(&small, cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE)
            .unwrap()
            .is_mapped()
    );
    let fifo = dir.path().join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let writer_path = fifo.clone();
    let writer = std::thread::spawn(move || {
        let mut w = std::fs::OpenOptions::new()
            .write(true)
            .open(writer_path)
            .unwrap();
        w.write_all(&vec![7u8; 2 * MIB]).unwrap();
    });
    let input = read_input_mapped(&fifo, cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).unwrap();
    writer.join().unwrap();
    assert!(!input.is_mapped());
    assert_eq!(input.bytes.len(), 2 * MIB);
    assert!(input.check_unchanged().is_ok());
}

/// Run as a child (`CPUPROF_GUARD_CHILD=1`): install the guard through a registered map,
/// then fault in a map the guard does not know. Must die of SIGBUS.
#[test]
fn foreign_fault_child() {
    let Ok(dir) = std::env::var("CPUPROF_GUARD_CHILD") else {
        return; // only meaningful as the child of the test below
    };
    let dir = std::path::Path::new(&dir);
    let known = dir.join("known.etdp");
    let foreign = dir.join("foreign.bin");
    let _registered =
        read_input_mapped(&known, cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).unwrap();
    let file = std::fs::File::open(&foreign).unwrap();
    // SAFETY: a read-only map the test truncates on purpose to fault.
    let map = unsafe { memmap2::Mmap::map(&file).unwrap() };
    std::fs::OpenOptions::new()
        .write(true)
        .open(&foreign)
        .unwrap()
        .set_len(0)
        .unwrap();
    let v = read_at(&map, MIB);
    // Not reached when the default action holds.
    println!("survived with {v}");
    std::process::exit(0);
}

#[test]
fn a_fault_outside_registered_maps_keeps_the_default_action() {
    let dir = tempfile::tempdir().unwrap();
    file_of(&dir, "known.etdp", 2 * MIB);
    file_of(&dir, "foreign.bin", 2 * MIB);
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .args([
            "--exact",
            "input_map_guard::foreign_fault_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("CPUPROF_GUARD_CHILD", dir.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.signal(),
        Some(libc::SIGBUS),
        "child should die of SIGBUS; status {:?}, stdout {}",
        out.status,
        String::from_utf8_lossy(&out.stdout)
    );
}

/// A real dump of a few MiB (the runs of `fixtures/cpu/wide_browse.etdp`, repeated).
fn real_dump(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let source = std::fs::read("fixtures/cpu/wide_browse.etdp").unwrap();
    let (bytes, _runs) = big_dump::repeat_execute_runs(&source, 4 * MIB);
    assert!(bytes.len() >= 2 * MIB, "big enough to be mapped");
    let path = dir.path().join("big.etdp");
    std::fs::write(&path, &bytes).unwrap();
    path
}

#[test]
fn the_loader_says_changed_when_the_dump_is_truncated_under_the_decoder() {
    let dir = tempfile::tempdir().unwrap();
    let path = real_dump(&dir);
    let request = ProfileRequest::new(path.clone(), None, 0).without_log();
    let never = AtomicBool::new(false);

    // Untouched: it loads (the control, so the error below comes from the truncation).
    let input = read_dump(&request, &mut |_| {}, &never).unwrap();
    assert!(input.is_mapped());
    assert!(load_profile_from_input(&request, &input, &mut |_| {}, &never).is_ok());
    drop(input);

    // Mapped, then cut to a third before the decoder runs: everything it reads past the
    // cut would fault; it reads zeros instead, and the load is "changed while reading".
    let input = read_dump(&request, &mut |_| {}, &never).unwrap();
    let len = std::fs::metadata(&path).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(len / 3)
        .unwrap();
    let err = load_profile_from_input(&request, &input, &mut |_| {}, &never).unwrap_err();
    assert!(matches!(err, LoadError::Incomplete { .. }), "{err:?}");
    let line = err.to_string();
    assert!(
        line.starts_with(&format!("{}: changed while reading", path.display())),
        "{line}"
    );
    assert!(!line.contains('\n'));
    // `report`'s way (the bytes, then the check): the same line.
    let loaded = load_profile_from_bytes(&request, &input.bytes, &mut |_| {}, &never);
    let err = unchanged_or(&input, &path, loaded).unwrap_err();
    assert_eq!(err.to_string(), line);
}

#[test]
fn report_exits_2_on_a_dump_that_changed_before_it_was_decoded() {
    // Not a race: the dump is already short when `report` maps it, so this checks the
    // ordinary path (corrupt or incomplete, exit 2, one line naming the file) still holds
    // with the map; the truncation during decoding is the test above.
    let dir = tempfile::tempdir().unwrap();
    let path = real_dump(&dir);
    let len = std::fs::metadata(&path).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .args(["report", "--no-log", "--format", "json", "-o"])
        .arg(dir.path().join("out.json"))
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(&path.display().to_string()), "{err}");
}

#[test]
fn the_decoder_reports_its_way_through_a_map() {
    // The gauge's progress while parsing is the bytes the decoder says it is done with
    // (`release_mapped_pages`): after a load it covers most of the file (the run tables;
    // the rest is the header and the names), never more than all of it.
    let dir = tempfile::tempdir().unwrap();
    let path = real_dump(&dir);
    let len = std::fs::metadata(&path).unwrap().len();
    let request = ProfileRequest::new(path, None, 0).without_log();
    let never = AtomicBool::new(false);
    let input = read_dump(&request, &mut |_| {}, &never).unwrap();
    assert_eq!(input.bytes_decoded(), Some(0));
    let mut parsing = Vec::new();
    load_profile_from_input(
        &request,
        &input,
        &mut |p| {
            if p.phase == cpuprof_tui::profile::LoadPhase::Parsing {
                parsing.push((p.bytes_done, p.bytes_total));
            }
        },
        &never,
    )
    .unwrap();
    assert_eq!(
        parsing.first(),
        Some(&(0, len)),
        "parsing starts at 0 of the file"
    );
    assert!(parsing.windows(2).all(|w| w[0].0 <= w[1].0), "{parsing:?}");
    let done = input.bytes_decoded().unwrap();
    assert!(done > len / 2 && done <= len, "{done} of {len}");
}
