//! Gzip input: members decoded one after another from bytes already read, as a stream
//! (so Chrome JSON is parsed while it inflates and never held whole), with what went
//! wrong named precisely: a stream cut short, a CRC that does not match (corrupt data,
//! an error), bytes after the last member (ignored with a warning), or more output than
//! the input limit (a gzip bomb).

use std::io::{self, Read};
use std::sync::Mutex;

use super::detect::GZIP_MAGIC;
use super::error::TraceError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum GzProblem {
    /// The compressed data ends inside a member.
    Truncated,
    /// The CRC32 or length in a member's trailer does not match what was inflated.
    BadCrc,
    /// Deflate data that cannot be decoded, or a bad member header.
    Corrupt(String),
    /// Inflated output passed the input limit.
    TooLarge(u64),
    /// Bytes after the last member that are not another member (nor zero padding).
    TrailingJunk(usize),
}

impl GzProblem {
    /// `Ok(warning)` when what was inflated before the problem is usable.
    pub(crate) fn verdict(&self) -> Result<String, TraceError> {
        match self {
            GzProblem::Truncated => Ok("gzip stream ends early (file cut short?)".into()),
            GzProblem::TrailingJunk(n) => Ok(format!(
                "{n} bytes of trailing data after the gzip stream ignored"
            )),
            GzProblem::BadCrc => Err(TraceError::Gzip(
                "CRC mismatch: the decompressed data does not match the gzip checksum (corrupt file)"
                    .into(),
            )),
            GzProblem::Corrupt(m) => Err(TraceError::Gzip(m.clone())),
            GzProblem::TooLarge(limit) => Err(TraceError::Gzip(format!(
                "decompresses to more than the input limit of {limit} bytes (stopped; raise it with --max-input-size)"
            ))),
        }
    }
}

/// The problem recorded so far (a poisoned lock still holds it).
pub(crate) fn lock(p: &Mutex<Option<GzProblem>>) -> std::sync::MutexGuard<'_, Option<GzProblem>> {
    p.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Inflate `bytes` member by member; problems are recorded in `problem` (the reader
/// error itself carries the same text).
pub(crate) struct GzStream<'a, 'p> {
    decoder: Option<flate2::bufread::GzDecoder<&'a [u8]>>,
    produced: u64,
    limit: u64,
    problem: &'p Mutex<Option<GzProblem>>,
}

impl<'a, 'p> GzStream<'a, 'p> {
    pub(crate) fn new(bytes: &'a [u8], limit: u64, problem: &'p Mutex<Option<GzProblem>>) -> Self {
        GzStream {
            decoder: Some(flate2::bufread::GzDecoder::new(bytes)),
            produced: 0,
            limit,
            problem,
        }
    }

    fn fail(&mut self, p: GzProblem) -> io::Error {
        let message = match p.verdict() {
            Ok(m) => m,
            Err(e) => e.to_string(),
        };
        let kind = if p == GzProblem::Truncated {
            io::ErrorKind::UnexpectedEof
        } else {
            io::ErrorKind::InvalidData
        };
        *lock(self.problem) = Some(p);
        self.decoder = None;
        io::Error::new(kind, message)
    }
}

impl Read for GzStream<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(decoder) = self.decoder.as_mut() else {
                return Ok(0);
            };
            match decoder.read(buf) {
                Ok(0) if !buf.is_empty() => {
                    let Some(done) = self.decoder.take() else {
                        return Ok(0);
                    };
                    let rest = done.into_inner();
                    if rest.starts_with(&GZIP_MAGIC) {
                        self.decoder = Some(flate2::bufread::GzDecoder::new(rest));
                    } else if rest.iter().any(|&b| b != 0) {
                        // Zero padding (tape blocks) is common and harmless; anything else
                        // is named, but what was inflated is intact (its CRC matched).
                        *lock(self.problem) = Some(GzProblem::TrailingJunk(rest.len()));
                        return Ok(0);
                    } else {
                        return Ok(0);
                    }
                }
                Ok(n) => {
                    self.produced += n as u64;
                    if self.produced > self.limit {
                        let limit = self.limit;
                        return Err(self.fail(GzProblem::TooLarge(limit)));
                    }
                    return Ok(n);
                }
                Err(e) => {
                    let p = if e.kind() == io::ErrorKind::UnexpectedEof {
                        GzProblem::Truncated
                    } else if e.to_string().contains("checksum") {
                        GzProblem::BadCrc
                    } else {
                        GzProblem::Corrupt(e.to_string())
                    };
                    return Err(self.fail(p));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn inflate(bytes: &[u8], limit: u64) -> (Vec<u8>, Option<GzProblem>) {
        let cell = Mutex::new(None);
        let mut out = Vec::new();
        let _ = GzStream::new(bytes, limit, &cell).read_to_end(&mut out);
        let p = lock(&cell).clone();
        (out, p)
    }

    #[test]
    fn each_problem_is_named() {
        let data = b"hello world, hello gzip ".repeat(100);
        let good = gz(&data);
        assert_eq!(inflate(&good, u64::MAX), (data.clone(), None));
        // Two members concatenated (`cat a.gz b.gz`) and zero padding: fine.
        let mut two = good.clone();
        two.extend_from_slice(&good);
        two.extend_from_slice(&[0; 512]);
        assert_eq!(inflate(&two, u64::MAX).0.len(), 2 * data.len());
        assert_eq!(inflate(&two, u64::MAX).1, None);
        // Trailing junk.
        let mut junk = good.clone();
        junk.extend_from_slice(b"JUNK!");
        assert_eq!(
            inflate(&junk, u64::MAX),
            (data.clone(), Some(GzProblem::TrailingJunk(5)))
        );
        // CRC32 is the 8th..5th byte from the end (RFC 1952): flip one bit.
        let mut crc = good.clone();
        let at = crc.len() - 8;
        crc[at] ^= 1;
        assert_eq!(inflate(&crc, u64::MAX).1, Some(GzProblem::BadCrc));
        // Cut inside the deflate data.
        let cut = &good[..good.len() / 2];
        assert_eq!(inflate(cut, u64::MAX).1, Some(GzProblem::Truncated));
        // Cut inside the trailer.
        let cut = &good[..good.len() - 3];
        assert_eq!(inflate(cut, u64::MAX).1, Some(GzProblem::Truncated));
        // Over the limit.
        assert_eq!(inflate(&good, 100).1, Some(GzProblem::TooLarge(100)));
    }
}
