//! Opening a file that another process controls (a dump a runner left, a watched folder's
//! entry) without ever blocking: `open(2)` of a FIFO waits for a writer, and of some
//! devices for the device. The path is opened with `O_NONBLOCK | O_NOCTTY`, the opened
//! descriptor is checked with `fstat` (not the path, which may change between a `stat`
//! and the `open`), anything but a regular file is refused with what it is, and
//! `O_NONBLOCK` is cleared again before the file is handed over.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::Path;

/// Why a path did not open as a regular file.
#[derive(Debug)]
pub enum OpenError {
    /// The open failed (missing, permission, ...).
    Io(io::Error),
    /// Something else is there: "a directory", "a FIFO", "a character device"...
    NotRegular(&'static str),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Io(e) => write!(f, "{e}"),
            OpenError::NotRegular(what) => write!(f, "{what}, not a regular file"),
        }
    }
}

/// Open `path` for reading if it is a regular file (a symbolic link is followed), never
/// blocking. The file and its metadata (from the opened descriptor).
pub fn open(path: &Path) -> Result<(File, Metadata), OpenError> {
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
    {
        Ok(f) => f,
        // A socket cannot be opened (ENXIO); say what it is rather than the errno.
        Err(e) => {
            return Err(match std::fs::metadata(path) {
                Ok(m) if m.file_type().is_socket() => OpenError::NotRegular("a socket"),
                _ => OpenError::Io(e),
            })
        }
    };
    let meta = file.metadata().map_err(OpenError::Io)?;
    if !meta.is_file() {
        return Err(OpenError::NotRegular(kind_name(&meta.file_type())));
    }
    // Reads of a regular file never block anyway; cleared so that the descriptor behaves
    // as `File::open`'s would wherever it goes.
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function owns; no memory is passed.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
        }
    }
    Ok((file, meta))
}

/// What a file type is, with its article: "a directory", "a FIFO", ...
pub fn kind_name(ft: &std::fs::FileType) -> &'static str {
    if ft.is_dir() {
        "a directory"
    } else if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_block_device() {
        "a block device"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::time::{Duration, Instant};

    fn refused(path: &Path) -> &'static str {
        match open(path) {
            Err(OpenError::NotRegular(what)) => what,
            Err(OpenError::Io(e)) => panic!("{}: {e}", path.display()),
            Ok(_) => panic!("{}: opened", path.display()),
        }
    }

    #[test]
    fn only_regular_files_open_and_nothing_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, b"abc").unwrap();
        let (mut f, meta) = open(&file).unwrap();
        assert_eq!(meta.len(), 3);
        let mut s = String::new();
        f.read_to_string(&mut s).unwrap();
        assert_eq!(s, "abc");
        // O_NONBLOCK is off again on what is handed over.
        let flags = unsafe { libc::fcntl(f.as_raw_fd(), libc::F_GETFL) };
        assert_eq!(flags & libc::O_NONBLOCK, 0);

        assert_eq!(refused(dir.path()), "a directory");
        // A FIFO with no writer: a blocking open would never return.
        let fifo = dir.path().join("p");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let t = Instant::now();
        assert_eq!(refused(&fifo), "a FIFO");
        assert!(t.elapsed() < Duration::from_secs(2));
        // Through a symbolic link: what it points at.
        let link = dir.path().join("z");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert_eq!(refused(&link), "a character device");
        let sock = dir.path().join("s");
        let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        assert_eq!(refused(&sock), "a socket");
        assert!(matches!(
            open(&dir.path().join("missing")),
            Err(OpenError::Io(e)) if e.kind() == io::ErrorKind::NotFound
        ));
    }
}
