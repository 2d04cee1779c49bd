//! Writing outputs safely: never over an input; a regular file (or a new path) is
//! replaced atomically (temp file in the same directory + rename), so a reader of the
//! output never sees half a file; a character device or a FIFO (`/dev/null`, a pipe made
//! with `mkfifo`, a terminal) is written into directly and never replaced. The temp file
//! is removed on errors and on SIGINT/SIGTERM/SIGHUP (the binary's signal handler calls [`temp_files::remove_all`]).
//!
//! Inputs: every file the command reads is one, a CTF trace directory standing for every
//! file of it that the reader opens (metadata, stream files, indexes:
//! [`crate::trace::ctf::trace_files`]). `-o` naming one of them is refused, by device and
//! inode (so symlinks, `..` and hard links are caught) and by canonical path.
//!
//! Symlinks: `-o LINK` writes to the file the link points to (the link stays), also when
//! that file does not exist yet (a dangling link). `-o -` is standard output.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::escape::escape_cut;

pub mod temp_files;

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

/// Whether `path` means standard output (`-o -`).
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Classify `path` (following symlinks), or say why it cannot be an output.
pub fn output_kind(path: &Path) -> Result<OutputKind, String> {
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(OutputKind::Replace),
        Err(e) => return Err(crate::input::io_message(&e)),
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

/// The file `path` names once symlinks are followed, also through a dangling link (the
/// file it would create). Err for a symlink loop.
pub fn resolve_output(path: &Path) -> Result<PathBuf, String> {
    let mut p = path.to_path_buf();
    // As the kernel: at most 40 links in a chain.
    for _ in 0..40 {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = fs::read_link(&p).map_err(|e| crate::input::io_message(&e))?;
                p = if to.is_absolute() {
                    to
                } else {
                    p.parent().unwrap_or(Path::new("")).join(to)
                };
            }
            _ => {
                // `/dev/stdout` -> `/proc/self/fd/1` -> `pipe:[123]`: a magic link the
                // kernel follows but no path names; the path given opens it.
                let magic = fs::symlink_metadata(&p).is_err() && fs::metadata(path).is_ok();
                return Ok(if magic { path.to_path_buf() } else { p });
            }
        }
    }
    Err("too many levels of symbolic links".into())
}

/// Everything wrong with `path` as an output that can be known before any input is
/// read: it is one of the `inputs` (or one of the files of an input directory), a
/// directory, a block device, or in a folder that does not exist. The message names no
/// path of the output (the caller prefixes it).
pub fn check_output(path: &Path, inputs: &[&Path]) -> Result<(), String> {
    if is_stdout(path) {
        return Ok(());
    }
    let target = resolve_output(path)?;
    refuse_inputs(&target, inputs)?;
    if output_kind(&target)? == OutputKind::Replace {
        let dir = parent_dir(&target);
        match fs::metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(format!(
                    "not writable: {} is not a directory",
                    dir.display()
                ))
            }
            Err(e) => {
                return Err(format!(
                    "not writable: the folder {} cannot be used ({})",
                    escape_cut(&dir.display().to_string(), 200),
                    crate::input::io_message(&e)
                ))
            }
        }
    }
    Ok(())
}

/// Err when `target` (symlinks resolved) is one of the files read.
fn refuse_inputs(target: &Path, inputs: &[&Path]) -> Result<(), String> {
    let target_meta = fs::metadata(target).ok();
    let target_abs = absolute(target);
    for input in inputs {
        for file in input_files(input) {
            if same_file(&target_abs, target_meta.as_ref(), &file) {
                let shown = if file.as_path() == *input {
                    input.display().to_string()
                } else {
                    format!("{} (read as part of {})", file.display(), input.display())
                };
                return Err(format!(
                    "refusing to overwrite the input file {}",
                    escape_cut(&shown, 300)
                ));
            }
        }
    }
    Ok(())
}

/// The files read for the input `path`: itself, or every file of the CTF traces in a
/// directory; nothing for standard input.
fn input_files(path: &Path) -> Vec<PathBuf> {
    if crate::input::is_stdin(path) {
        return Vec::new();
    }
    if fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        let mut files = crate::trace::ctf::trace_files(path);
        files.push(path.to_path_buf());
        return files;
    }
    vec![path.to_path_buf()]
}

/// Like [`write_atomic`], with the content produced by `write` into a buffered writer
/// (so a large output is never held in memory whole). `-` writes to standard output.
pub fn write_atomic_with(
    path: &Path,
    inputs: &[&Path],
    write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), String> {
    if is_stdout(path) {
        let stdout = std::io::stdout();
        let mut w = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
        return quiet_broken_pipe(write(&mut w).and_then(|_| w.flush()));
    }
    let target = resolve_output(path)?;
    refuse_inputs(&target, inputs)?;
    match output_kind(&target)? {
        OutputKind::Stream => write_stream(&target, write),
        OutputKind::Replace => write_replace(&absolute(&target), write),
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
        .map_err(|e| format!("not writable: {}", crate::input::io_message(&e)))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 16, f);
    quiet_broken_pipe(write(&mut w).and_then(|()| w.flush()))
}

/// A closed pipe (`| head`, a FIFO's reader gone) is the reader's choice: the command
/// ends quietly, as on standard output.
fn quiet_broken_pipe(r: std::io::Result<()>) -> Result<(), String> {
    match r {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r.map_err(|e| e.to_string()),
    }
}

/// A file being written, whose pages are handed to the disk as they fill
/// ([`WriteBehind::EVERY`] bytes at a time) rather than all at once later: ext4 starts
/// writing out every dirty page of the new file when a rename replaces a file
/// (`auto_da_alloc`), and the rename waits for that; started behind the writer, that
/// work overlaps with making the rest of the output (a 120 MB report's rename took
/// ~60 ms of it). Only starts writing: nothing is waited for, and it promises nothing
/// more on a crash than before (no fsync).
struct WriteBehind {
    file: fs::File,
    written: u64,
    /// Bytes before this are handed over already.
    started: u64,
}

impl WriteBehind {
    const EVERY: u64 = 8 << 20;

    fn new(file: fs::File) -> Self {
        WriteBehind {
            file,
            written: 0,
            started: 0,
        }
    }
}

impl Write for WriteBehind {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        if self.written - self.started >= Self::EVERY {
            #[cfg(target_os = "linux")]
            {
                use std::os::fd::AsRawFd;
                // SAFETY: a plain syscall on our open file descriptor; a failure only
                // means the pages are written out later, as without it.
                unsafe {
                    libc::sync_file_range(
                        self.file.as_raw_fd(),
                        self.started as libc::off64_t,
                        (self.written - self.started) as libc::off64_t,
                        libc::SYNC_FILE_RANGE_WRITE,
                    );
                }
            }
            self.started = self.written;
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

fn write_replace(
    target: &Path,
    write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), String> {
    let dir = parent_dir(target);
    let file_name = target
        .file_name()
        .ok_or_else(|| "output path has no file name".to_string())?
        .to_string_lossy()
        .into_owned();
    let tmp = dir.join(format!(".{file_name}.{}.tmp", std::process::id()));
    // Registered before it exists: a signal between create and rename removes it.
    let guard = temp_files::register(&tmp);
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
            .map_err(|e| not_writable(target, &dir, &e))?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, WriteBehind::new(f));
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
        fs::rename(&tmp, target).map_err(|e| not_writable(target, &dir, &e))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    drop(guard);
    result
}

/// Why `target` cannot be replaced, from the error of making or renaming the temp file
/// beside it: "not writable" and the reason (a read-only file system, a folder without
/// write permission, a pseudo file system such as /proc that makes no files).
fn not_writable(target: &Path, dir: &Path, e: &std::io::Error) -> String {
    let read_only_file = fs::metadata(target).is_ok_and(|m| m.permissions().readonly());
    if read_only_file {
        return "not writable: a read-only file (permission denied)".to_string();
    }
    let why = match e.raw_os_error() {
        Some(libc::EROFS) => "read-only file system".to_string(),
        Some(libc::EACCES) | Some(libc::EPERM) => "permission denied".to_string(),
        _ => crate::input::io_message(e),
    };
    {
        format!(
            "not writable: cannot create a file in {} ({why})",
            escape_cut(&dir.display().to_string(), 200)
        )
    }
}

fn parent_dir(target: &Path) -> PathBuf {
    match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Canonical when it exists; else its folder canonical and its name.
fn absolute(p: &Path) -> PathBuf {
    if let Ok(c) = fs::canonicalize(p) {
        return c;
    }
    if let (Some(name), Ok(dir)) = (p.file_name(), fs::canonicalize(parent_dir(p))) {
        return dir.join(name);
    }
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// `file` (an input) is the output `target` (absolute; `target_meta` when it exists):
/// the same device and inode, or the same canonical path.
fn same_file(target: &Path, target_meta: Option<&fs::Metadata>, file: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Some(t), Ok(f)) = (target_meta, fs::metadata(file)) {
            if t.dev() == f.dev() && t.ino() == f.ino() {
                return true;
            }
        }
    }
    #[cfg(not(unix))]
    let _ = target_meta;
    absolute(file) == target
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

    /// Bigger than a few write-behind steps, in writes of odd sizes: every byte lands
    /// where it was written, and the replaced file is the new one whole.
    #[test]
    fn a_big_output_written_behind_is_whole() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("big.json");
        write_atomic(&out, b"old", &[]).unwrap();
        let want: Vec<u8> = (0..(3 * WriteBehind::EVERY as usize + 12_345))
            .map(|i| (i * 31 % 251) as u8)
            .collect();
        write_atomic_with(&out, &[], &mut |w| {
            for piece in want.chunks(1_000_003) {
                w.write_all(piece)?;
            }
            Ok(())
        })
        .unwrap();
        assert!(fs::read(&out).unwrap() == want);
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
