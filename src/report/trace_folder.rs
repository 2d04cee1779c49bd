//! `report DIR` on a folder of trace files (HolisticTraceAnalysis' usual input: one Kineto
//! trace per rank, `*.json` / `*.json.gz`) or of dumps, rather than a CTF trace directory:
//! one line saying what the folder holds and which command reads it (#44), instead of
//! the CTF search's "not a CTF trace directory".

use std::path::Path;

use crate::source::{sniff, Content};

/// Entries of the folder looked at (a folder of a million files is not listed whole).
const MAX_ENTRIES: usize = 100_000;

/// The line for `report DIR` when `dir` holds no CTF trace but trace files or ETDumps
/// directly in it; None when it holds neither (the CTF search's own message stands).
pub(crate) fn folder_of_profiles_line(dir: &Path, name: &str) -> Option<String> {
    let (traces, dumps) = count_profiles(dir);
    if traces == 0 && dumps == 0 {
        return None;
    }
    let what = match (traces, dumps) {
        (t, 0) => plural(t, "trace file"),
        (0, d) => plural(d, "ETDump"),
        (t, d) => format!("{} and {}", plural(t, "trace file"), plural(d, "ETDump")),
    };
    let several = if dumps == 0 {
        " (or `cpuprof-tui report FILE MORE...` reads the traces as one)"
    } else {
        ""
    };
    Some(format!(
        "{name}: a folder of {what}, not a CTF trace directory: `cpuprof-tui fleet {name}` \
         summarises them{several}"
    ))
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// Regular files directly in `dir` sniffed as traces and as ETDumps (bytes 8..12 `ED00`),
/// each by its first 4 KiB.
fn count_profiles(dir: &Path) -> (usize, usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (0, 0);
    };
    let (mut traces, mut dumps) = (0, 0);
    for entry in entries.take(MAX_ENTRIES).flatten() {
        let path = entry.path();
        if !path.is_file() {
            continue;
        }
        let head = read_head(&path);
        if head.is_empty() {
            continue;
        }
        if sniff(&head) == Content::Trace {
            traces += 1;
        } else if head.len() >= 12 && &head[8..12] == b"ED00" {
            dumps += 1;
        }
    }
    (traces, dumps)
}

fn read_head(path: &Path) -> Vec<u8> {
    use std::io::Read;
    let mut head = Vec::with_capacity(4096);
    let _ = std::fs::File::open(path).and_then(|f| f.take(4096).read_to_end(&mut head));
    head
}
