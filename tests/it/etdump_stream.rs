//! Decoding straight into collection (the load path, `profile::stream`) gives the very
//! profile that decoding the dump whole and building from it gives (`etdump::parse` +
//! `build_profile`), on every ETDump fixture and on generated dumps big enough to be
//! decoded in many chunks on several threads; and the same verdict on damaged dumps.

use crate::support::big_dump;
use crate::support::etdump_build;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use cpuprof_tui::etdump::{self, TimeUnit};
use cpuprof_tui::profile::{self, Finding, ProfileRequest, ProfileSource};

/// The profile JSON of `bytes` decoded whole and built (no log, no warm-up), with the
/// implausible-duration warnings the load adds; or the error line.
fn whole(bytes: &[u8]) -> Result<String, String> {
    let dump = etdump::parse(bytes).map_err(|e| format!("x.etdp: {e}"))?;
    let source = ProfileSource {
        etdump: "x.etdp".into(),
        log: None,
    };
    let mut p =
        profile::build_profile(&dump, None, 0, source).map_err(|e| format!("x.etdp: {e}"))?;
    for m in dump.implausible_durations(TimeUnit::Ns) {
        p.warnings.push(Finding::new("implausible_durations", m));
    }
    Ok(cpuprof_tui::report::profile_json(&p))
}

/// The same through the load path (streamed when the runs allow it).
fn loaded(bytes: &[u8]) -> Result<String, String> {
    // A name with nothing beside it: no log, ETRecord or program is found.
    let request = ProfileRequest::new(PathBuf::from("x.etdp"), None, 0).without_log();
    profile::load_profile_from_bytes(&request, bytes, &mut |_| {}, &AtomicBool::new(false))
        .map(|p| cpuprof_tui::report::profile_json(&p))
        .map_err(|e| e.to_string())
}

fn dumps(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("fixtures").flatten() {
        let path = entry.path();
        if path.is_dir() {
            dumps(&path, out);
        } else if path.extension().is_some_and(|e| e == "etdp") {
            out.push(path);
        }
    }
}

#[test]
fn every_fixture_streams_to_the_profile_built_whole() {
    let mut paths = Vec::new();
    dumps(Path::new("fixtures"), &mut paths);
    paths.sort();
    assert!(paths.len() > 50, "{} dumps", paths.len());
    let mut failed = 0;
    for path in &paths {
        let bytes = std::fs::read(path).expect("read");
        let (a, b) = (whole(&bytes), loaded(&bytes));
        match (&a, &b) {
            (Ok(x), Ok(y)) => assert!(x == y, "{}: profiles differ", path.display()),
            // The load's error lines add "; and not a recognised trace ..." to some.
            (Err(x), Err(y)) => {
                assert!(y.starts_with(x.as_str()), "{}: {x} vs {y}", path.display());
                failed += 1;
            }
            _ => panic!("{}: {a:?} vs {b:?}", path.display()),
        }
    }
    // The damaged fixtures of fixtures/real (bad_*.etdp) fail both ways.
    assert!(failed >= 5, "{failed} failed");
}

#[test]
fn many_chunks_on_several_threads_stream_alike() {
    // ~9 MB: over the size decoded on several threads, several chunks per thread.
    let bytes = etdump_build::build(0, &etdump_build::xnnpack_like(60_000));
    assert!(bytes.len() > 8 << 20, "{} bytes", bytes.len());
    assert_eq!(whole(&bytes), loaded(&bytes));
    // A CpuBackend dump repeated to ~12 MB (steps, operators, metadata in every run).
    let source = std::fs::read("fixtures/cpu/wide_browse.etdp").expect("fixture");
    let (big, runs) = big_dump::repeat_execute_runs(&source, 12_000_000);
    assert!(runs > 500, "{runs} runs");
    let a = whole(&big).expect("builds");
    assert_eq!(Ok(a), loaded(&big));
}

#[test]
fn a_damaged_run_late_in_a_big_dump_gives_the_same_error() {
    let mut bytes = etdump_build::build(0, &etdump_build::xnnpack_like(60_000));
    // Cut the file short of its size prefix: incomplete, both ways.
    let cut = bytes.len() * 9 / 10;
    bytes.truncate(cut);
    let (a, b) = (whole(&bytes), loaded(&bytes));
    let (a, b) = (a.expect_err("cut"), b.expect_err("cut"));
    assert!(b.starts_with(&a), "{a} vs {b}");
    // Overwrite bytes near the end (some run's tables): whatever the decoder makes of
    // it, the load says the same.
    let mut bytes = etdump_build::build(0, &etdump_build::xnnpack_like(60_000));
    let n = bytes.len();
    for b in &mut bytes[n - 200_000..n - 199_000] {
        *b = 0xff;
    }
    match (whole(&bytes), loaded(&bytes)) {
        (Ok(x), Ok(y)) => assert!(x == y),
        (Err(x), Err(y)) => assert!(y.starts_with(&x), "{x} vs {y}"),
        (x, y) => panic!("{x:?} vs {y:?}"),
    }
    // Two damaged runs far apart (chunks decoded by different threads, the later one
    // possibly first): the error is the one of the run first in run order, as decoding
    // whole reports it.
    let damaged = |ats: &[usize]| {
        let mut bytes = etdump_build::build(0, &etdump_build::xnnpack_like(60_000));
        for &at in ats {
            for b in &mut bytes[at..at + 1000] {
                *b = 0xff;
            }
        }
        bytes
    };
    let run_of = |e: &str| -> usize {
        let at = e.find("run_data[").expect("names the run") + "run_data[".len();
        e[at..].split(']').next().unwrap().parse().unwrap()
    };
    let spots = [n / 3, n - 200_000];
    let alone: Vec<String> = spots
        .iter()
        .map(|&at| whole(&damaged(&[at])).expect_err("damaged"))
        .collect();
    assert_ne!(run_of(&alone[0]), run_of(&alone[1]), "{alone:?}");
    let both = damaged(&spots);
    let (a, b) = (whole(&both), loaded(&both));
    let (a, b) = (a.expect_err("damaged"), b.expect_err("damaged"));
    assert!(b.starts_with(&a), "{a} vs {b}");
    let first = alone.iter().min_by_key(|e| run_of(e)).unwrap();
    assert_eq!(&a, first);
}
