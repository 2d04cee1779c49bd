//! Writing outputs safely: never over an input; a regular file (or a new path) is
//! replaced atomically (temp file in the same directory + rename), so a reader of the
//! output never sees half a file; a character device or a FIFO (`/dev/null`, a pipe made
//! with `mkfifo`, a terminal) is written into directly and never replaced. The temp file
//! is removed on errors and on SIGINT/SIGTERM/SIGHUP ([`crate::signals`]).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::escape::escape_cut;

/// Write `bytes` to `path` (see the module doc). `inputs` are files this run read; writing
/// over one of them is refused.
pub fn write_atomic(path: &Path, bytes: &[u8], inputs: &[&Path]) -> Result<(), String> {
    write_atomic_with(path, inputs, &mut |w| w.write_all(bytes))
}

/// What `-o PATH` points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputKind {
    /// A regular file or nothing yet: temp file + rename.
    Replace,
    /// A character device, FIFO or socket: written into directly.
    Stream,
}

/// Classify `path` (following symlinks), or say why it cannot be an output.
pub fn output_kind(path: &Path) -> Result<OutputKind, String> {
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(OutputKind::Replace),
        Err(e) => return Err(e.to_string()),
    };
    let ft = meta.file_type();
    if ft.is_file() {
        return Ok(OutputKind::Replace);
    }
    if ft.is_dir() {
        return Err("is a directory".into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_block_device() {
            return Err("is a block device; refusing to write a report into it".into());
        }
        if ft.is_char_device() || ft.is_fifo() || ft.is_socket() {
            return Ok(OutputKind::Stream);
        }
    }
    Err("is not a regular file, a character device or a FIFO".into())
}

/// Like [`write_atomic`], with the content produced by `write` into a buffered writer
/// (so a large output is never held in memory whole).
pub fn write_atomic_with(
    path: &Path,
    inputs: &[&Path],
    write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), String> {
    let target = absolute(path);
    for input in inputs {
        if same_file(&target, &absolute(input)) {
            return Err(format!(
                "refusing to overwrite the input file {}",
                escape_cut(&input.display().to_string(), 200)
            ));
        }
    }
    match output_kind(path)? {
        OutputKind::Stream => write_stream(path, write),
        OutputKind::Replace => write_replace(&target, write),
    }
}

/// Into a device, FIFO or socket: open for writing (no create, no truncate), write, flush;
/// every error is reported (`/dev/full` gives ENOSPC).
fn write_stream(
    path: &Path,
    write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), String> {
    let f = fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| e.to_string())?;
    let mut w = std::io::BufWriter::with_capacity(1 << 16, f);
    write(&mut w).map_err(|e| e.to_string())?;
    w.flush().map_err(|e| e.to_string())
}

fn write_replace(
    target: &Path,
    write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), String> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = target
        .file_name()
        .ok_or_else(|| "output path has no file name".to_string())?
        .to_string_lossy()
        .into_owned();
    let tmp = dir.join(format!(".{file_name}.{}.tmp", std::process::id()));
    // Registered before it exists: a signal between create and rename removes it.
    let guard = crate::signals::register_temp_file(&tmp);
    let result = (|| {
        let f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .or_else(|e| {
                // A temp file left by an earlier run killed with SIGKILL: same pid reused.
                if e.kind() == std::io::ErrorKind::AlreadyExists {
                    fs::remove_file(&tmp)?;
                    fs::OpenOptions::new()
                        .write(true)
                        .create_new(true)
                        .open(&tmp)
                } else {
                    Err(e)
                }
            })
            .map_err(|e| e.to_string())?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
        // Debug builds only: lets a test send a signal while the temp file exists.
        #[cfg(debug_assertions)]
        if let Some(ms) = std::env::var("CPUPROF_TUI_TEST_SLOW_WRITE")
            .ok()
            .and_then(|v| v.parse().ok())
        {
            std::thread::sleep(std::time::Duration::from_millis(ms));
        }
        write(&mut w).map_err(|e| e.to_string())?;
        // No fsync: rename already makes the switch atomic for readers, and an output can
        // always be regenerated; syncing a large report would double its run time.
        w.into_inner().map_err(|e| e.error().to_string())?;
        fs::rename(&tmp, target).map_err(|e| e.to_string())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    drop(guard);
    result
}

fn absolute(p: &Path) -> PathBuf {
    fs::canonicalize(p)
        .unwrap_or_else(|_| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
}

fn same_file(a: &Path, b: &Path) -> bool {
    a == b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_and_replaces_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("profile.json");
        write_atomic(&out, b"one", &[]).unwrap();
        write_atomic(&out, b"two", &[]).unwrap();
        assert_eq!(fs::read(&out).unwrap(), b"two");
        // No temp file left behind.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn refuses_to_overwrite_an_input() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("dump.etdp");
        fs::write(&input, b"data").unwrap();
        let err = write_atomic(&input, b"x", &[&input]).unwrap_err();
        assert!(err.contains("refusing"), "{err}");
        assert_eq!(fs::read(&input).unwrap(), b"data");
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_written_into_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        assert_eq!(
            output_kind(Path::new("/dev/null")).unwrap(),
            OutputKind::Stream
        );
        write_atomic(Path::new("/dev/null"), b"x", &[]).unwrap();
        assert!(fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device());
        if Path::new("/dev/full").exists() {
            let err = write_atomic(Path::new("/dev/full"), b"x", &[]).unwrap_err();
            assert!(err.contains("space"), "{err}");
        }
        let dir = tempfile::tempdir().unwrap();
        assert!(write_atomic(dir.path(), b"x", &[]).is_err());
    }
}
