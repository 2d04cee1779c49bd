//! Text made on one thread and written on another: a [`ChunkSender`] is a writer that
//! hands what it is given over in chunks of about a megabyte through a bounded channel
//! (so the maker blocks when the writer falls behind, and memory holds a few chunks);
//! [`Chunks::write_into`] writes them as they come. A sender may also keep what it sent
//! ([`ChunkSender::retain`]) to send it again later, re-indented ([`send_reindented`]).

use std::io::{self, Write};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::{Scope, ScopedJoinHandle};

/// Bytes of text per chunk.
pub(super) const CHUNK_BYTES: usize = 1 << 20;
/// Room past [`CHUNK_BYTES`] in a chunk: a write of up to [`SMALL`] bytes always fits.
const SLACK: usize = 64;
/// Writes up to this long are copied in fixed-size pieces (no copy call): most writes of
/// a profile are a sample and its separator.
const SMALL: usize = 16;

/// Text in `bytes[..len]`; the rest of `bytes` is initialized room.
pub(super) struct Chunk {
    bytes: Vec<u8>,
    len: usize,
}

impl Chunk {
    fn new() -> Chunk {
        Chunk {
            bytes: vec![0; CHUNK_BYTES + SLACK],
            len: 0,
        }
    }

    pub(super) fn text(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// What goes through the channel: text, or a mark between two parts of it (the writer
/// writes something of its own there).
pub(super) enum Piece {
    Text(Arc<Chunk>),
    Mark,
}

/// `src` (at most [`SMALL`] bytes) into the start of `dst` in two overlapping copies of
/// a fixed size, which compile to a few moves.
#[inline(always)]
fn copy_small(dst: &mut [u8; SMALL], src: &[u8]) {
    let n = src.len();
    if n >= 8 {
        dst[..8].copy_from_slice(&src[..8]);
        dst[n - 8..n].copy_from_slice(&src[n - 8..]);
    } else if n >= 4 {
        dst[..4].copy_from_slice(&src[..4]);
        dst[n - 4..n].copy_from_slice(&src[n - 4..]);
    } else if n > 0 {
        dst[0] = src[0];
        dst[n / 2] = src[n / 2];
        dst[n - 1] = src[n - 1];
    }
}

/// A writer that sends what it is given in chunks of about [`CHUNK_BYTES`].
pub(super) struct ChunkSender {
    /// Never holds [`CHUNK_BYTES`] or more between writes (it is sent then).
    buf: Chunk,
    tx: SyncSender<Piece>,
    /// Chunks the writer is done with, to fill again (fresh pages cost their faults).
    spare: Receiver<Chunk>,
    /// Chunks sent while retaining, kept to be sent again.
    kept: Option<Vec<Arc<Chunk>>>,
}

impl ChunkSender {
    fn send(&mut self) -> io::Result<()> {
        let next = self.spare.try_recv().unwrap_or_else(|_| Chunk::new());
        let full = Arc::new(std::mem::replace(&mut self.buf, next));
        if let Some(kept) = &mut self.kept {
            kept.push(Arc::clone(&full));
        }
        self.put(Piece::Text(full))
    }

    fn put(&self, piece: Piece) -> io::Result<()> {
        // The receiver is gone only when the writer failed; it reports why.
        self.tx
            .send(piece)
            .map_err(|_| io::Error::other("the JSON writer stopped"))
    }

    /// Sends what is not sent yet.
    fn send_rest(&mut self) -> io::Result<()> {
        if self.buf.len == 0 {
            return Ok(());
        }
        self.send()
    }

    /// From now on, keep what is sent (to send it again with [`Self::take_kept`]).
    pub(super) fn retain(&mut self) {
        self.kept = Some(Vec::new());
    }

    /// Sends what is written so far, then a [`Piece::Mark`]; returns the chunks kept since
    /// [`Self::retain`] (and stops keeping).
    pub(super) fn mark(&mut self) -> io::Result<Vec<Arc<Chunk>>> {
        self.send_rest()?;
        self.put(Piece::Mark)?;
        Ok(self.kept.take().unwrap_or_default())
    }
}

impl Write for ChunkSender {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.write_all(bytes)?;
        Ok(bytes.len())
    }

    #[inline]
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        let at = self.buf.len;
        if bytes.len() <= SMALL {
            // Fits: fewer than CHUNK_BYTES are held, and SLACK >= SMALL.
            if let Some(dst) = self
                .buf
                .bytes
                .get_mut(at..at + SMALL)
                .and_then(|d| <&mut [u8; SMALL]>::try_from(d).ok())
            {
                copy_small(dst, bytes);
                self.buf.len = at + bytes.len();
                if self.buf.len >= CHUNK_BYTES {
                    self.send()?;
                }
                return Ok(());
            }
        }
        let mut rest = bytes;
        while !rest.is_empty() {
            let at = self.buf.len;
            let take = rest.len().min(self.buf.bytes.len() - at);
            self.buf.bytes[at..at + take].copy_from_slice(&rest[..take]);
            self.buf.len = at + take;
            rest = &rest[take..];
            if self.buf.len >= CHUNK_BYTES {
                self.send()?;
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `kept`'s text with `indent` after every newline, through `w`: the same JSON nested
/// deeper (our layout's only newlines are its own; strings hold `\n` escaped). Each
/// kept chunk is let go once re-sent.
pub(super) fn send_reindented(
    w: &mut ChunkSender,
    kept: Vec<Arc<Chunk>>,
    indent: &[u8],
) -> io::Result<()> {
    for chunk in kept {
        let text = chunk.text();
        let mut from = 0;
        for nl in memchr::memchr_iter(b'\n', text) {
            w.write_all(&text[from..=nl])?;
            w.write_all(indent)?;
            from = nl + 1;
        }
        w.write_all(&text[from..])?;
    }
    Ok(())
}

/// Text made on a thread of its own, handed over in chunks.
pub(super) struct Chunks<'scope> {
    pieces: Receiver<Piece>,
    spare: SyncSender<Chunk>,
    handle: ScopedJoinHandle<'scope, io::Result<()>>,
}

/// Starts `make` on a thread of `scope`, writing into chunks of which at most `ahead`
/// wait for the writer.
pub(super) fn make_aside<'scope, 'env, F>(
    scope: &'scope Scope<'scope, 'env>,
    ahead: usize,
    make: F,
) -> Chunks<'scope>
where
    F: FnOnce(&mut ChunkSender) -> io::Result<()> + Send + 'scope,
{
    let (tx, pieces) = sync_channel::<Piece>(ahead);
    let (spare, spare_rx) = sync_channel::<Chunk>(ahead + 1);
    let handle = scope.spawn(move || {
        let mut sender = ChunkSender {
            buf: Chunk::new(),
            tx,
            spare: spare_rx,
            kept: None,
        };
        make(&mut sender)?;
        sender.send_rest()
    });
    Chunks {
        pieces,
        spare,
        handle,
    }
}

impl Chunks<'_> {
    /// Writes the text into `out` as it comes, up to the next [`Piece::Mark`] (Ok(true))
    /// or the end (Ok(false)). An error is the write's, or the thread's (then it stopped
    /// early): call [`Self::finish`] for the thread's.
    pub(super) fn write_until_mark(&mut self, out: &mut impl Write) -> io::Result<bool> {
        for piece in self.pieces.iter() {
            match piece {
                Piece::Mark => return Ok(true),
                Piece::Text(chunk) => {
                    out.write_all(chunk.text())?;
                    // Back to the sender unless it keeps it; full only if the sender
                    // stopped taking them back (then the chunk is freed).
                    if let Ok(mut chunk) = Arc::try_unwrap(chunk) {
                        chunk.len = 0;
                        let _ = self.spare.try_send(chunk);
                    }
                }
            }
        }
        Ok(false)
    }

    /// Stops the thread (its next send fails) and waits for it, whatever it says: the
    /// writer failed, and that is the error to report.
    pub(super) fn abandon(self) {
        drop(self.pieces);
        let _ = self.handle.join();
    }

    /// Writes the rest, then the thread's verdict: a failed write first (the thread then
    /// only saw the channel close), else the thread's own error or panic.
    pub(super) fn finish(mut self, out: &mut impl Write) -> io::Result<()> {
        let mut copied = Ok(());
        while copied.is_ok() {
            match self.write_until_mark(out) {
                Ok(true) => continue,
                Ok(false) => break,
                Err(e) => copied = Err(e),
            }
        }
        let Chunks { pieces, handle, .. } = self;
        drop(pieces);
        let produced = handle.join().unwrap_or_else(|payload| {
            Err(io::Error::other(format!(
                "internal error while writing JSON: {}",
                crate::threads::panic_message(&*payload)
            )))
        });
        copied.and(produced)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length, small and large, arrives whole and in order, with marks where they
    /// were put; re-indenting adds the indent after each newline only.
    #[test]
    fn text_arrives_whole_and_reindented() {
        let mut want = Vec::new();
        let mut pieces: Vec<Vec<u8>> = Vec::new();
        for n in (0..40).chain([CHUNK_BYTES - 3, CHUNK_BYTES + SLACK + 5, 3 * CHUNK_BYTES]) {
            let piece: Vec<u8> = (0..n).map(|i| b"ab\ncdefg"[(i * 7 + n) % 8]).collect();
            want.extend_from_slice(&piece);
            pieces.push(piece);
        }
        let reindented: Vec<u8> = want
            .iter()
            .flat_map(|&b| {
                if b == b'\n' {
                    b"\n    ".to_vec()
                } else {
                    vec![b]
                }
            })
            .collect();
        let mut got = Vec::new();
        std::thread::scope(|scope| {
            let mut chunks = make_aside(scope, 2, |w| {
                w.retain();
                for p in &pieces {
                    w.write_all(p)?;
                }
                let kept = w.mark()?;
                send_reindented(w, kept, b"    ")
            });
            assert!(chunks.write_until_mark(&mut got).unwrap());
            assert!(got == want, "first part");
            got.clear();
            chunks.finish(&mut got).unwrap();
        });
        assert!(got == reindented, "re-indented part");
    }

    #[test]
    fn small_copies_are_exact() {
        for n in 0..=SMALL {
            let src: Vec<u8> = (1..=n as u8).collect();
            let mut dst = [0u8; SMALL];
            copy_small(&mut dst, &src);
            assert_eq!(&dst[..n], &src[..], "{n}");
            assert!(dst[n..].iter().all(|&b| b == 0), "{n}: wrote past the end");
        }
    }
}
