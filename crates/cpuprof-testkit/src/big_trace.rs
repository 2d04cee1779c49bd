//! Big torch.profiler traces for tests and benches, made from the real training trace
//! `fixtures/torch/cnn_train.json.gz` (Kineto's own text and layout): its event array
//! written `copies` times, each copy's `ts` shifted past the previous copy's end and its
//! `External id`s made fresh, inside the fixture's own top object. Every copy holds the
//! same calls, so the truth of a big trace is the fixture's times `copies`. Rank traces
//! of one job (`write_rank`) carry `distributedInfo.rank` and may have every time scaled
//! (a straggler): starts and ends scaled and rounded down alike keep every nesting.
#![allow(dead_code)]

use std::io::{self, Read, Write};

/// Where a copy differs from the fixture: a `ts` (in ns), a `dur` (in ns, and its text
/// as written) or an `External id`.
enum Piece {
    Text(Vec<u8>),
    Ts(i64),
    Dur(i64, Vec<u8>),
    ExternalId(u64),
}

/// The fixture's event array cut into pieces, and what surrounds it.
pub struct TraceTemplate {
    head: Vec<u8>,
    pieces: Vec<Piece>,
    tail: Vec<u8>,
    /// How far each copy's times are shifted (the fixture's span plus 1 ms).
    shift_ns: i64,
    /// How far each copy's ids are shifted.
    id_step: u64,
    /// The first start of the fixture (ns): times are scaled from it.
    first_ns: i64,
    /// Bytes of one copy of the event array.
    pub copy_bytes: usize,
    /// `cpu_op` + `user_annotation` events in one copy.
    pub op_events: usize,
}

const TS: &[u8] = b"\"ts\": ";
const ID: &[u8] = b"\"External id\": ";
const DUR: &[u8] = b"\"dur\": ";

/// µs written in decimal (`12`, `12.5`, `12.345`) in ns.
fn us_text_to_ns(num: &str) -> i64 {
    let (us, frac) = num.split_once('.').unwrap_or((num, "0"));
    let frac = format!("{frac:0<3}");
    us.parse::<i64>().unwrap() * 1000 + frac[..3].parse::<i64>().unwrap()
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i + from)
}

impl TraceTemplate {
    pub fn from_fixture() -> Self {
        let gz =
            std::fs::read(crate::root().join("fixtures/torch/cnn_train.json.gz")).expect("fixture");
        let mut text = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut text)
            .expect("gzip");
        let open = b"\"traceEvents\": [";
        let start = find(&text, open, 0).expect("traceEvents") + open.len();
        let end = text.iter().rposition(|&b| b == b']').expect("]");
        let body = &text[start..end];
        let mut pieces = Vec::new();
        let (mut at, mut lit) = (0, 0);
        let (mut lo, mut hi, mut max_id) = (i64::MAX, i64::MIN, 0u64);
        while at < body.len() {
            let hit = [TS, ID, DUR]
                .iter()
                .filter_map(|n| find(body, n, at).map(|i| (i, *n)))
                .min();
            let Some((i, needle)) = hit else { break };
            let num_start = i + needle.len();
            let num_end = num_start
                + body[num_start..]
                    .iter()
                    .position(|b| !(b.is_ascii_digit() || *b == b'.'))
                    .unwrap_or(0);
            let num = std::str::from_utf8(&body[num_start..num_end]).unwrap();
            pieces.push(Piece::Text(body[lit..num_start].to_vec()));
            if needle == TS {
                let ns = us_text_to_ns(num);
                lo = lo.min(ns);
                hi = hi.max(ns);
                pieces.push(Piece::Ts(ns));
            } else if needle == DUR {
                pieces.push(Piece::Dur(us_text_to_ns(num), num.as_bytes().to_vec()));
            } else {
                let id = num.parse::<u64>().unwrap();
                max_id = max_id.max(id);
                pieces.push(Piece::ExternalId(id));
            }
            at = num_end;
            lit = num_end;
        }
        pieces.push(Piece::Text(body[lit..].to_vec()));
        let count = |needle: &[u8]| body.windows(needle.len()).filter(|w| *w == needle).count();
        let op_events = count(b"\"cat\": \"cpu_op\"") + count(b"\"cat\": \"user_annotation\"");
        let mut t = TraceTemplate {
            head: text[..start].to_vec(),
            pieces,
            tail: text[end..].to_vec(),
            shift_ns: hi - lo + 1_000_000,
            id_step: max_id + 1,
            first_ns: lo,
            copy_bytes: 0,
            op_events,
        };
        t.copy_bytes = t.write_copy(&mut io::sink(), 0).unwrap();
        t
    }

    /// One copy of the events, the `k`-th; returns the bytes written.
    fn write_copy(&self, out: &mut impl Write, k: u64) -> io::Result<usize> {
        self.write_copy_scaled(out, k, (1, 1))
    }

    /// The `k`-th copy with every time scaled by `num / den` from the fixture's first
    /// start (each end and start rounded down alike: no nesting changes).
    fn write_copy_scaled(
        &self,
        out: &mut impl Write,
        k: u64,
        (num, den): (i64, i64),
    ) -> io::Result<usize> {
        let scaled = |v: i64| self.first_ns + (v - self.first_ns) * num / den;
        let us = |v: i64| format!("{}.{:03}", v / 1000, v % 1000);
        let mut n = 0;
        let mut last_ts = self.first_ns;
        for p in &self.pieces {
            n += match p {
                Piece::Text(t) => {
                    out.write_all(t)?;
                    t.len()
                }
                Piece::Ts(ns) => {
                    let v = ns + self.shift_ns * k as i64;
                    last_ts = v;
                    let s = us(scaled(v));
                    out.write_all(s.as_bytes())?;
                    s.len()
                }
                Piece::Dur(_, text) if num == den => {
                    out.write_all(text)?;
                    text.len()
                }
                Piece::Dur(ns, _) => {
                    let s = us(scaled(last_ts + ns) - scaled(last_ts));
                    out.write_all(s.as_bytes())?;
                    s.len()
                }
                Piece::ExternalId(id) => {
                    let s = (id + self.id_step * k).to_string();
                    out.write_all(s.as_bytes())?;
                    s.len()
                }
            };
        }
        Ok(n)
    }

    /// The whole trace with `copies` copies of the events.
    pub fn write(&self, out: &mut impl Write, copies: u64) -> io::Result<()> {
        out.write_all(&self.head)?;
        for k in 0..copies {
            if k > 0 {
                out.write_all(b",")?;
            }
            self.write_copy(out, k)?;
        }
        out.write_all(&self.tail)
    }

    /// Rank `rank` of a job: the trace with `copies` copies of the events,
    /// `"distributedInfo": {"rank": RANK}` first in its top object (as Kineto writes it
    /// for a distributed job), every time scaled by `num / den`.
    pub fn write_rank(
        &self,
        out: &mut impl Write,
        copies: u64,
        rank: u32,
        scale: (i64, i64),
    ) -> io::Result<()> {
        let open = self.head.iter().position(|&b| b == b'{').unwrap() + 1;
        out.write_all(&self.head[..open])?;
        write!(out, "\n  \"distributedInfo\": {{\"rank\": {rank}}},")?;
        out.write_all(&self.head[open..])?;
        for k in 0..copies {
            if k > 0 {
                out.write_all(b",")?;
            }
            self.write_copy_scaled(out, k, scale)?;
        }
        out.write_all(&self.tail)
    }

    /// Copies needed for a trace of about `bytes`.
    pub fn copies_for(&self, bytes: u64) -> u64 {
        (bytes / (self.copy_bytes as u64 + 1)).max(1)
    }
}
