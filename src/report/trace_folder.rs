//! `report DIR` on a folder of trace files (HolisticTraceAnalysis' usual input: one Kineto
//! trace per rank, `*.json` / `*.json.gz`), rather than a CTF trace directory:
//! one line saying what the folder holds and which command reads it (#44), instead of
//! the CTF search's "not a CTF trace directory".

use std::path::Path;

use crate::source::{sniff, Content};

/// Entries of the folder looked at (a folder of a million files is not listed whole).
const MAX_ENTRIES: usize = 100_000;

/// The line for `report DIR` when `dir` holds no CTF trace but trace files directly in
/// it; None when it holds none (the CTF search's own message stands: it names the
/// ETDumps of a folder of dumps and suggests `--watch`).
pub(crate) fn folder_of_traces_line(dir: &Path, name: &str) -> Option<String> {
    let traces = count_traces(dir);
    if traces == 0 {
        return None;
    }
    Some(format!(
        "{name}: a folder of {}, not a CTF trace directory: `cpuprof-tui fleet {name}` \
         summarises them (or `cpuprof-tui report FILE MORE...` reads them as one)",
        plural(traces, "trace file")
    ))
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// Regular files directly in `dir` sniffed as traces, each by its first 4 KiB.
fn count_traces(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .take(MAX_ENTRIES)
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter(|p| {
            let head = read_head(p);
            !head.is_empty() && sniff(&head) == Content::Trace
        })
        .count()
}

fn read_head(path: &Path) -> Vec<u8> {
    use std::io::Read;
    let mut head = Vec::with_capacity(4096);
    let _ = std::fs::File::open(path).and_then(|f| f.take(4096).read_to_end(&mut head));
    head
}
