//! A reader run ahead of its consumer on a thread of its own (gzip: one core inflates
//! while the other scans). The text passes through a few chunks handed back and forth
//! (no allocation per chunk; memory is the chunks, whatever the size of the text), and
//! the consumer sees exactly the bytes, then the error or the end, that the reader
//! gave, in order. On a machine with one core the reader is read directly.

use std::io::{self, Read};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// Bytes in a chunk.
const CHUNK_BYTES: usize = 256 << 10;

/// Chunks in flight (filled or being filled) besides the one being read.
const CHUNKS_AHEAD: usize = 2;

/// A chunk as the thread filled it: its bytes, then what ended it early (the end of the
/// text: `Some(None)`; an error: `Some(Some(e))`).
type Filled = (Vec<u8>, usize, Option<Option<io::Error>>);

/// `consume(reader)`, the reader's bytes read ahead on another thread.
pub(crate) fn read_ahead<R: Read + Send, T>(
    mut reader: R,
    consume: &mut dyn FnMut(&mut dyn Read) -> T,
) -> T {
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        return consume(&mut reader);
    }
    let (full_tx, full_rx) = sync_channel::<Filled>(CHUNKS_AHEAD);
    let (empty_tx, empty_rx) = sync_channel::<Vec<u8>>(CHUNKS_AHEAD + 1);
    for _ in 0..=CHUNKS_AHEAD {
        let _ = empty_tx.send(vec![0; CHUNK_BYTES]);
    }
    std::thread::scope(|scope| {
        scope.spawn(move || fill_chunks(&mut reader, &empty_rx, &full_tx));
        let mut ahead = Ahead {
            full: full_rx,
            empty: empty_tx,
            chunk: Vec::new(),
            pos: 0,
            len: 0,
            end: None,
        };
        // Dropping `ahead` (its channels) stops the thread at its next chunk.
        consume(&mut ahead)
    })
}

/// The thread: fill each empty chunk from `reader` and pass it on, until the end.
fn fill_chunks(reader: &mut dyn Read, empty: &Receiver<Vec<u8>>, full: &SyncSender<Filled>) {
    while let Ok(mut chunk) = empty.recv() {
        let mut len = 0;
        let mut end = None;
        while len < chunk.len() {
            match reader.read(&mut chunk[len..]) {
                Ok(0) => {
                    end = Some(None);
                    break;
                }
                Ok(n) => len += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    end = Some(Some(e));
                    break;
                }
            }
        }
        let last = end.is_some();
        if full.send((chunk, len, end)).is_err() || last {
            return;
        }
    }
}

/// The consumer's side: the chunk being read, then the next ones.
struct Ahead {
    full: Receiver<Filled>,
    empty: SyncSender<Vec<u8>>,
    chunk: Vec<u8>,
    pos: usize,
    len: usize,
    /// How the text ended, once the last chunk came (an error is given once, then the
    /// end).
    end: Option<Option<io::Error>>,
}

impl Read for Ahead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.len {
            if let Some(end) = self.end.as_mut() {
                return match end.take() {
                    Some(e) => Err(e),
                    None => Ok(0),
                };
            }
            let Ok((chunk, len, end)) = self.full.recv() else {
                // The thread stopped without saying why (it panicked).
                self.end = Some(None);
                return Err(io::Error::other("the reading thread stopped"));
            };
            let done = std::mem::replace(&mut self.chunk, chunk);
            if !done.is_empty() {
                let _ = self.empty.send(done);
            }
            (self.pos, self.len, self.end) = (0, len, end);
        }
        let n = buf.len().min(self.len - self.pos);
        buf[..n].copy_from_slice(&self.chunk[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that gives its bytes a few at a time, then an error (or the end).
    struct Dribble {
        text: Vec<u8>,
        at: usize,
        fail: bool,
    }

    impl Read for Dribble {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.at == self.text.len() {
                return if std::mem::take(&mut self.fail) {
                    Err(io::Error::new(io::ErrorKind::InvalidData, "bad"))
                } else {
                    Ok(0)
                };
            }
            let n = buf.len().min(7919).min(self.text.len() - self.at);
            buf[..n].copy_from_slice(&self.text[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    #[test]
    fn the_bytes_then_the_error_in_order() {
        let text: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        for fail in [false, true] {
            let r = Dribble {
                text: text.clone(),
                at: 0,
                fail,
            };
            let (got, err) = read_ahead(r, &mut |r| {
                let mut got = Vec::new();
                let mut buf = vec![0; 100_003];
                loop {
                    match r.read(&mut buf) {
                        Ok(0) => return (got, None),
                        Ok(n) => got.extend_from_slice(&buf[..n]),
                        Err(e) => return (got, Some(e.to_string())),
                    }
                }
            });
            assert!(got == text, "fail {fail}: {} bytes", got.len());
            assert_eq!(err.as_deref(), fail.then_some("bad"));
        }
        // A consumer that stops early lets the thread go.
        let r = Dribble {
            text,
            at: 0,
            fail: false,
        };
        let first = read_ahead(r, &mut |r| {
            let mut b = [0u8; 3];
            r.read_exact(&mut b).map(|()| b)
        });
        assert_eq!(first.unwrap(), [0, 1, 2]);
    }
}
