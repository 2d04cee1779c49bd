//! One input, read once: a file path, `-` (standard input), a FIFO, `/dev/stdin`, a
//! process substitution (`<(cmd)`) or a character device. Content sniffing (by the
//! sources: `source::sniff`, `trace::detect`) and loading share the bytes of that one
//! read, so a pipe never loses its first bytes and a FIFO is never opened twice. Bytes
//! only: no trace or dump format is known here.
//!
//! Inputs that are not regular files can only be read once, so their bytes are kept for
//! the life of the process (the explorer reloads them on a warm-up change).
//!
//! Limit: an input (and the decompressed text of a gzip trace) larger than the `limit`
//! each read is given (default [`DEFAULT_MAX_INPUT_SIZE`], `--max-input-size`, carried by
//! the request: `profile::ReadOptions`) stops with an error instead of growing without
//! bound (an endless `yes |` pipe, a gzip bomb).

use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

mod json_ws;
mod map_guard;

pub use json_ws::{looks_like_json, SqueezeJsonWhitespace};

/// 4 GiB: larger than any ETDump (its size prefix is 32-bit) and than any trace text
/// this tool can show; small enough to stop an endless stream before it swaps.
pub const DEFAULT_MAX_INPUT_SIZE: u64 = 4 << 30;

/// Parse a size: a number of bytes with an optional suffix K, M, G, T, P, E (powers of
/// 1024; `KiB`, `MB`, .. are accepted too), e.g. `512M`, `1.5G`. At least one byte; a
/// size past `u64::MAX` bytes saturates there (no limit), it never wraps.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    if t.starts_with('-') {
        return Err(format!(
            "{t:?} is negative; expected a size such as 512M or 4G"
        ));
    }
    let digits = t
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .count();
    let number = &t[..digits];
    if !number.chars().any(|c| c.is_ascii_digit()) {
        return Err(format!("expected a size such as 512M or 4G, not {t:?}"));
    }
    let unit = t[digits..].trim().to_ascii_lowercase();
    let shift = match unit.trim_end_matches("ib").trim_end_matches('b') {
        "" => 0u32,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        "p" => 50,
        "e" => 60,
        _ => {
            return Err(format!(
                "unknown size unit in {t:?} (use K, M, G, T, P or E)"
            ))
        }
    };
    let bytes: u128 = if number.contains('.') {
        let v: f64 = number
            .parse()
            .map_err(|_| format!("expected a size such as 512M or 4G, not {t:?}"))?;
        // `as` saturates: a finite f64 past u128::MAX becomes u128::MAX.
        (v * (1u128 << shift) as f64) as u128
    } else {
        // Digits past u128 are far past u64::MAX: saturate.
        number
            .parse::<u128>()
            .map_or(u128::MAX, |n| n.saturating_mul(1u128 << shift))
    };
    if bytes == 0 {
        return Err(format!("{t:?} is less than one byte"));
    }
    Ok(u64::try_from(bytes).unwrap_or(u64::MAX))
}

/// Why an input could not be read. Display is one line without the path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputError {
    Io(String),
    /// `size`: the file's size when known before reading.
    TooLarge {
        limit: u64,
        size: Option<u64>,
    },
    Cancelled,
    /// A mapped file was truncated or rewritten while it was read ([`Input::check_unchanged`]).
    Changed,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Io(m) => f.write_str(m),
            InputError::TooLarge {
                limit,
                size: Some(size),
            } => {
                write!(f, "{size} bytes, larger than the input limit of {limit} bytes")?;
                if *size > u64::from(u32::MAX) + 4 {
                    // ETDumps carry a 32-bit size prefix.
                    f.write_str(" and larger than any ETDump")?;
                }
                f.write_str(" (not read; raise the limit with --max-input-size)")
            }
            InputError::TooLarge { limit, size: None } => write!(
                f,
                "input larger than the limit of {limit} bytes (stopped reading; raise it with --max-input-size)"
            ),
            InputError::Cancelled => f.write_str("cancelled"),
            InputError::Changed => f.write_str(
                "changed while reading (truncated or rewritten by another program); not loaded, try again once it is written",
            ),
        }
    }
}

/// Bytes of an input.
#[derive(Debug, Clone)]
pub struct Input {
    /// For messages: the path, or `<stdin>`.
    pub name: String,
    pub bytes: Arc<InputBytes>,
}

/// The bytes of an input: read into memory, or a read-only map of a regular file
/// ([`read_input_mapped`]). Both deref to `[u8]`.
pub enum InputBytes {
    Owned(Vec<u8>),
    Mapped(MappedFile),
}

/// A read-only map of a regular file, registered with the SIGBUS guard
/// (`input/map_guard.rs`) for as long as it lives, with what the file looked like when
/// it was mapped.
pub struct MappedFile {
    map: memmap2::Mmap,
    slot: usize,
    path: PathBuf,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl Drop for MappedFile {
    fn drop(&mut self) {
        // Before the map goes (the field is dropped after this): the guard must never
        // zero-fill an address range that may be reused.
        map_guard::unregister(self.slot);
    }
}

impl MappedFile {
    /// Err([`InputError::Changed`]) when the file was truncated while mapped (pages of
    /// the map read as zeros) or its size or mtime differ from when it was mapped.
    fn check_unchanged(&self) -> Result<(), InputError> {
        if map_guard::faulted(self.slot) {
            return Err(InputError::Changed);
        }
        match std::fs::metadata(&self.path) {
            Ok(m) if m.len() == self.len && m.modified().ok() == self.modified => Ok(()),
            _ => Err(InputError::Changed),
        }
    }
}

impl Input {
    /// After decoding a mapped file: Err([`InputError::Changed`]) when it was truncated
    /// or rewritten meanwhile, so whatever was decoded (or the error the decoder gave on
    /// zeros) is not to be believed. Read inputs hold their own copy: always Ok.
    pub fn check_unchanged(&self) -> Result<(), InputError> {
        match &*self.bytes {
            InputBytes::Owned(_) => Ok(()),
            InputBytes::Mapped(m) => m.check_unchanged(),
        }
    }

    /// For a mapped file, the bytes the decoder has finished with so far (its progress,
    /// from [`release_mapped_pages`]); None for bytes read into memory.
    pub fn bytes_decoded(&self) -> Option<u64> {
        match &*self.bytes {
            InputBytes::Owned(_) => None,
            InputBytes::Mapped(m) => Some(map_guard::released(m.slot).min(m.len)),
        }
    }

    /// Whether the bytes are a map of the file (not a copy).
    pub fn is_mapped(&self) -> bool {
        matches!(&*self.bytes, InputBytes::Mapped(_))
    }
}

/// Lets the kernel drop the pages of `bytes` from this process's resident set if they
/// lie in a file map made by [`read_input_mapped`] (a reader calls this on ranges it has
/// decoded; they also count as the loader's progress, [`Input::bytes_decoded`]). The
/// bytes stay readable: touching them again faults them back in from the page cache.
/// Anything else (heap bytes) is left alone.
pub fn release_mapped_pages(bytes: &[u8]) {
    let (start, end) = (
        bytes.as_ptr() as usize,
        bytes.as_ptr() as usize + bytes.len(),
    );
    let Some(slot) = map_guard::slot_of(start, end) else {
        return;
    };
    map_guard::add_released(slot, bytes.len() as u64);
    #[cfg(unix)]
    {
        const PAGE: usize = 4096;
        let (lo, hi) = (start.div_ceil(PAGE) * PAGE, end / PAGE * PAGE);
        if hi > lo {
            // SAFETY: [lo, hi) lies inside a live read-only private file map; DONTNEED
            // only drops our page table entries, the contents are unchanged.
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_DONTNEED);
            }
        }
    }
}

impl std::ops::Deref for InputBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            InputBytes::Owned(v) => v,
            InputBytes::Mapped(m) => &m.map,
        }
    }
}

impl fmt::Debug for InputBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputBytes::Owned(v) => write!(f, "Owned({} bytes)", v.len()),
            InputBytes::Mapped(m) => write!(f, "Mapped({} bytes)", m.map.len()),
        }
    }
}

/// Regular files at least this big are mapped by [`read_input_mapped`]; smaller ones
/// are cheaper to read.
const MAP_MIN_BYTES: u64 = 1 << 20;

/// Like [`read_input`], but a regular file of 1 MiB or more is mapped instead of read:
/// no copy, and the pages count once in the resident size (the page cache's). Pipes,
/// FIFOs, devices and small files are read as by [`read_input`], and so is everything
/// where maps cannot be guarded (`input/map_guard.rs`: Linux only).
///
/// A file truncated by another program while mapped would raise SIGBUS when the decoder
/// reads past its new end; the guard answers that fault with zeros instead. So after
/// decoding, call [`Input::check_unchanged`]: it tells whether the file changed under
/// the decoder.
///
/// `limit`: the most bytes read (or mapped) from the input (`--max-input-size`).
pub fn read_input_mapped(path: &Path, limit: u64) -> Result<Input, InputError> {
    read_input_mapped_with_progress(path, limit, &mut |_, _| {}, &AtomicBool::new(false))
}

/// [`read_input_mapped`] for the many files of one input (the stream files of a CTF
/// trace): every non-empty regular file is mapped, however small, so that the memory of
/// a trace of thousands of files is the pages being decoded, not the files read whole.
pub fn map_input(path: &Path, limit: u64) -> Result<Input, InputError> {
    map_from(
        path,
        1,
        false,
        limit,
        &mut |_, _| {},
        &AtomicBool::new(false),
    )
}

/// [`read_input_mapped`]; what is read rather than mapped reports `progress` and polls
/// `cancel` as [`read_input_with_progress`] does (a map takes no time to make).
pub fn read_input_mapped_with_progress(
    path: &Path,
    limit: u64,
    progress: &mut dyn FnMut(u64, u64),
    cancel: &AtomicBool,
) -> Result<Input, InputError> {
    map_from(path, MAP_MIN_BYTES, false, limit, progress, cancel)
}

/// [`read_input_mapped_with_progress`] of a path another process controls (a watched
/// folder's dump): every open is [`crate::regular_file::open`], so a FIFO or device
/// swapped in at the path is refused, naming what it is, and never waited on.
pub fn read_regular_mapped_with_progress(
    path: &Path,
    limit: u64,
    progress: &mut dyn FnMut(u64, u64),
    cancel: &AtomicBool,
) -> Result<Input, InputError> {
    map_from(path, MAP_MIN_BYTES, true, limit, progress, cancel)
}

/// Open `path` for reading; with `regular_only`, without blocking and only if it is a
/// regular file.
fn open_file(path: &Path, regular_only: bool) -> Result<std::fs::File, InputError> {
    use crate::regular_file::{self, OpenError};
    if !regular_only {
        return std::fs::File::open(path).map_err(|e| InputError::Io(io_message(&e)));
    }
    regular_file::open(path)
        .map(|(file, _)| file)
        .map_err(|e| match e {
            OpenError::Io(e) => InputError::Io(io_message(&e)),
            not_regular => InputError::Io(not_regular.to_string()),
        })
}

fn map_from(
    path: &Path,
    min_bytes: u64,
    regular_only: bool,
    limit: u64,
    progress: &mut dyn FnMut(u64, u64),
    cancel: &AtomicBool,
) -> Result<Input, InputError> {
    let limit = limit.max(1);
    // Judged by stat, before opening: opening a FIFO here and then again in
    // `read_input` would lose what the writer sent to the first open.
    let regular_and_big = !is_stdin(path)
        && std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() >= min_bytes);
    if regular_and_big && map_guard::available() {
        if let Ok(file) = open_file(path, regular_only) {
            if let Ok(meta) = file.metadata() {
                if meta.is_file() && meta.len() >= min_bytes {
                    if meta.len() > limit {
                        return Err(InputError::TooLarge {
                            limit,
                            size: Some(meta.len()),
                        });
                    }
                    // Not populated up front: the decoder's threads fault the pages in
                    // in parallel (faster on two cores than one `MAP_POPULATE`), and a
                    // big file is released behind the decoder, never resident whole.
                    let options = memmap2::MmapOptions::new();
                    // SAFETY: the map is read-only and private to this process, and the
                    // file is never written by us. Another program truncating it is
                    // answered by the SIGBUS guard it is registered with below, before
                    // any byte of it is read.
                    if let Ok(map) = unsafe { options.map(&file) } {
                        let start = map.as_ptr() as usize;
                        if let Some(slot) = map_guard::register(start, map.len()) {
                            let _ = map.advise(memmap2::Advice::Sequential);
                            let mapped = MappedFile {
                                map,
                                slot,
                                path: path.to_path_buf(),
                                len: meta.len(),
                                modified: meta.modified().ok(),
                            };
                            progress(0, meta.len());
                            return Ok(Input {
                                name: display_name(path),
                                bytes: Arc::new(InputBytes::Mapped(mapped)),
                            });
                        }
                    }
                }
            }
        }
    }
    read_with(path, regular_only, limit, progress, cancel)
}

/// Whether `path` means standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The name of `path` in messages (`-` is `<stdin>`).
pub fn display_name(path: &Path) -> String {
    if is_stdin(path) {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// Bytes of inputs that cannot be read twice (stdin, FIFOs, devices), by path.
fn once_cache() -> &'static Mutex<HashMap<PathBuf, Arc<InputBytes>>> {
    static CACHE: std::sync::OnceLock<Mutex<HashMap<PathBuf, Arc<InputBytes>>>> =
        std::sync::OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Read `path` once, without progress, at most `limit` bytes (`--max-input-size`).
pub fn read_input(path: &Path, limit: u64) -> Result<Input, InputError> {
    read_input_with_progress(path, limit, &mut |_, _| {}, &AtomicBool::new(false))
}

/// [`read_input`] of a path another process controls: only a regular file is read, a
/// FIFO or device there is refused without waiting (see
/// [`read_regular_mapped_with_progress`]).
pub fn read_regular(path: &Path, limit: u64) -> Result<Input, InputError> {
    read_with(path, true, limit, &mut |_, _| {}, &AtomicBool::new(false))
}

/// Read `path` once in chunks; `progress(done, total)` after each chunk (`total` is the
/// file size, or what was read so far for a stream); `cancel` is polled between chunks.
pub fn read_input_with_progress(
    path: &Path,
    limit: u64,
    progress: &mut dyn FnMut(u64, u64),
    cancel: &AtomicBool,
) -> Result<Input, InputError> {
    read_with(path, false, limit, progress, cancel)
}

fn read_with(
    path: &Path,
    regular_only: bool,
    limit: u64,
    progress: &mut dyn FnMut(u64, u64),
    cancel: &AtomicBool,
) -> Result<Input, InputError> {
    let name = display_name(path);
    let key = path.to_path_buf();
    if let Some(bytes) = once_cache()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&key)
    {
        return Ok(Input {
            name,
            bytes: bytes.clone(),
        });
    }
    // At least one byte (`--max-input-size` is parsed as one or more).
    let limit = limit.max(1);
    let (bytes, regular) = if is_stdin(path) {
        let stdin = std::io::stdin();
        let mut lock = stdin.lock();
        (read_stream(&mut lock, limit, progress, cancel)?, false)
    } else {
        let mut file = open_file(path, regular_only)?;
        let meta = file
            .metadata()
            .map_err(|e| InputError::Io(io_message(&e)))?;
        if meta.is_dir() {
            return Err(InputError::Io("is a directory, not a file".into()));
        }
        let regular = meta.is_file();
        let size = if regular { meta.len() } else { 0 };
        if size > limit {
            return Err(InputError::TooLarge {
                limit,
                size: Some(size),
            });
        }
        let bytes = if regular {
            read_limited(&mut file, size, limit, progress, cancel)?
        } else {
            read_stream(&mut file, limit, progress, cancel)?
        };
        (bytes, regular)
    };
    // Arc<Vec> rather than Arc<[u8]>: converting would copy the whole input once more.
    let bytes = Arc::new(InputBytes::Owned(bytes));
    if !regular {
        once_cache()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key, bytes.clone());
    }
    Ok(Input { name, bytes })
}

/// Read a stream (stdin, a pipe, a FIFO, a device) of at most `limit` bytes. One that
/// ends within [`STREAM_WINDOW`] is kept as read, like a file. One that goes on and is
/// a JSON document (a Chrome trace) keeps one byte of each run of whitespace outside strings as it is
/// read: the JSON means the same, and a gigabyte of padding costs time, not memory (a
/// regular file that large is parsed from the file as a stream instead). Every byte read
/// counts toward the limit, kept or not, so an endless stream still stops there.
fn read_stream(
    r: &mut dyn Read,
    limit: u64,
    progress: &mut dyn FnMut(u64, u64),
    cancel: &AtomicBool,
) -> Result<Vec<u8>, InputError> {
    let window = STREAM_WINDOW.min(limit.saturating_add(1));
    let mut head = Vec::new();
    (&mut *r)
        .take(window)
        .read_to_end(&mut head)
        .map_err(|e| InputError::Io(io_message(&e)))?;
    progress(head.len() as u64, head.len() as u64);
    if (head.len() as u64) < window {
        return Ok(head);
    }
    let body = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&head);
    let json = looks_like_json(body);
    let mut stream = std::io::Read::chain(&head[..], r);
    if !json {
        return read_limited(&mut stream, 0, limit, progress, cancel);
    }
    let over = std::cell::Cell::new(false);
    let counted = LimitedReader {
        inner: stream,
        left: limit,
        over: &over,
    };
    let mut squeezed = SqueezeJsonWhitespace::new(counted);
    match read_limited(&mut squeezed, 0, limit, progress, cancel) {
        Err(InputError::Io(_)) if over.get() => Err(InputError::TooLarge { limit, size: None }),
        other => other,
    }
}

/// How much of a stream is kept exactly as read before Chrome JSON is squeezed (the
/// same window as a regular file parsed in memory).
pub const STREAM_WINDOW: u64 = 64 << 20;

/// A reader that fails once more than `left` bytes have been read from `inner`.
struct LimitedReader<'a, R> {
    inner: R,
    left: u64,
    over: &'a std::cell::Cell<bool>,
}

impl<R: Read> Read for LimitedReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n as u64 > self.left {
            self.over.set(true);
            return Err(std::io::Error::other("input over the size limit"));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

/// Read at most `limit` bytes; one more is an error (the stream does not end in time).
fn read_limited(
    r: &mut dyn Read,
    size_hint: u64,
    limit: u64,
    progress: &mut dyn FnMut(u64, u64),
    cancel: &AtomicBool,
) -> Result<Vec<u8>, InputError> {
    const CHUNK: u64 = 8 << 20;
    let mut bytes = Vec::with_capacity(size_hint.min(limit) as usize);
    loop {
        if cancel.load(Ordering::Relaxed) {
            return Err(InputError::Cancelled);
        }
        let room = limit.saturating_add(1).saturating_sub(bytes.len() as u64);
        let step = CHUNK.min(room);
        reserve_within(&mut bytes, step, limit.saturating_add(1));
        let n = r
            .take(step)
            .read_to_end(&mut bytes)
            .map_err(|e| InputError::Io(io_message(&e)))?;
        if bytes.len() as u64 > limit {
            return Err(InputError::TooLarge { limit, size: None });
        }
        let done = bytes.len() as u64;
        progress(done, size_hint.max(done));
        if n == 0 {
            return Ok(bytes);
        }
    }
}

/// Make room for `step` more bytes without letting the buffer's capacity pass `cap`
/// (the limit + 1 byte): the capacity doubles while it can, then stops at `cap`, so
/// `read_to_end` into it never has to grow it (its own growth doubles past the limit:
/// an endless stream read to a 4 GiB limit would ask for 8 GiB).
fn reserve_within(bytes: &mut Vec<u8>, step: u64, cap: u64) {
    let len = bytes.len() as u64;
    let need = len.saturating_add(step);
    if (bytes.capacity() as u64) >= need {
        return;
    }
    let doubled = (bytes.capacity() as u64).saturating_mul(2);
    let target = doubled.max(need).min(cap.max(need));
    bytes.reserve_exact(usize::try_from(target - len).unwrap_or(usize::MAX));
}

/// A short reason for an I/O error (no OS error number).
pub fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An endless stream read to a limit never holds more than the limit + 1 byte of
    /// buffer (`read_to_end`'s own doubling asked for twice the limit).
    #[test]
    fn an_endless_stream_stops_at_the_limit_without_doubling() {
        for limit in [
            0u64,
            1,
            5 << 20,
            (8 << 20) - 1,
            8 << 20,
            (8 << 20) + 1,
            37 << 20,
        ] {
            let mut bytes = Vec::new();
            let cap = limit + 1;
            let mut r = std::io::repeat(7);
            loop {
                let room = cap - bytes.len() as u64;
                let step = (8u64 << 20).min(room);
                reserve_within(&mut bytes, step, cap);
                (&mut r).take(step).read_to_end(&mut bytes).unwrap();
                assert!(
                    bytes.capacity() as u64 <= cap,
                    "{limit}: {}",
                    bytes.capacity()
                );
                if bytes.len() as u64 == cap {
                    break;
                }
            }
        }
        let got = read_limited(
            &mut std::io::repeat(0),
            0,
            3 << 20,
            &mut |_, _| {},
            &AtomicBool::new(false),
        );
        assert!(matches!(got, Err(InputError::TooLarge { limit, size: None }) if limit == 3 << 20));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("512").unwrap(), 512);
        assert_eq!(parse_size("4G").unwrap(), 4 << 30);
        assert_eq!(parse_size("16 MiB").unwrap(), 16 << 20);
        assert_eq!(parse_size("2kb").unwrap(), 2048);
        assert_eq!(parse_size("1.5K").unwrap(), 1536);
        assert!(parse_size("-1").is_err());
        assert!(parse_size("-1G").is_err());
        assert!(parse_size("0").is_err());
        assert!(parse_size("0.1").is_err());
        assert!(parse_size("3X").is_err());
        assert!(parse_size(".").is_err());
        assert!(parse_size("1.2.3").is_err());
        // Saturating, never wrapping: any size up to u64::MAX is taken as it is.
        assert_eq!(parse_size("18446744073709551615").unwrap(), u64::MAX);
        assert_eq!(parse_size("18446744073709551616").unwrap(), u64::MAX);
        assert_eq!(parse_size("99999999999T").unwrap(), u64::MAX);
        assert_eq!(parse_size(&"9".repeat(60)).unwrap(), u64::MAX);
        assert_eq!(parse_size("16E").unwrap(), u64::MAX);
    }

    #[test]
    fn limit_stops_an_endless_stream() {
        let mut endless = std::io::repeat(b'y');
        let err = read_limited(
            &mut endless,
            0,
            1000,
            &mut |_, _| {},
            &AtomicBool::new(false),
        )
        .unwrap_err();
        assert_eq!(
            err,
            InputError::TooLarge {
                limit: 1000,
                size: None
            }
        );
        // The largest limit reads a file whole (limit + 1 must not wrap to 0).
        let mut some: &[u8] = &[7u8; 10];
        let all = read_limited(
            &mut some,
            10,
            u64::MAX,
            &mut |_, _| {},
            &AtomicBool::new(false),
        );
        assert_eq!(all.unwrap().len(), 10);
        let mut exact: &[u8] = &[1u8; 1000];
        let ok = read_limited(&mut exact, 0, 1000, &mut |_, _| {}, &AtomicBool::new(false));
        assert_eq!(ok.unwrap().len(), 1000);
    }
}
