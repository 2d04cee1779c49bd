//! A small CTF 1.8 writer with LTTng-UST's layout, for tests and benchmarks: TSDL
//! metadata of the same shape as a THAPI PyTorch recording (plain or packetized), one
//! data stream file per "CPU" made of fixed-size packets (header, context, events,
//! padding), compact or extended event headers chosen as LTTng does (extended when the
//! timestamp moved too far for the compact field, or the id does not fit), and
//! `index/*.idx` files. Not a general tracer: it writes the op events and one other
//! event kind.

use std::io;
use std::path::Path;

/// CTF 1.8's packet magic (the first field of a packet header).
const PACKET_MAGIC: u64 = 0xC1FC_1FC1;
/// LTTng's index file magic (`index/*.idx`).
const INDEX_MAGIC: u32 = 0xC1F1_DCC1;
/// The magic of a packetized TSDL metadata packet.
const METADATA_MAGIC: u32 = 0x75D1_1D57;

const UUID: [u8; 16] = [
    0xd0, 0x1f, 0x6e, 0x87, 0xee, 0xdc, 0x4f, 0xef, 0xb1, 0x3c, 0x08, 0xe4, 0xa0, 0x09, 0x96, 0x48,
];
/// Packet header (32 bytes) + packet context (52 bytes).
const PACKET_PREAMBLE: usize = 84;

#[derive(Debug, Clone)]
pub struct WriterConfig {
    /// Number of per-CPU stream files.
    pub streams: usize,
    /// Bytes per packet (LTTng sub-buffer size).
    pub packet_size: usize,
    pub big_endian: bool,
    /// `event_header_compact` (5-bit id, 27-bit timestamp) instead of
    /// `event_header_large` (16-bit id, 32-bit timestamp, LTTng's choice for few events).
    pub compact_header: bool,
    /// Payloads carry `overload_name` (newer THAPI) or only `name` (older).
    pub with_overload: bool,
    pub hostname: String,
    pub clock_freq: u64,
    /// Clock offset in cycles.
    pub clock_offset: i64,
    pub clock_offset_s: i64,
    pub packetized_metadata: bool,
    pub write_index: bool,
}

impl Default for WriterConfig {
    fn default() -> Self {
        WriterConfig {
            streams: 2,
            packet_size: 4096,
            big_endian: false,
            compact_header: false,
            with_overload: true,
            hostname: "vm".into(),
            clock_freq: 1_000_000_000,
            clock_offset: 1_795_934_618_683_213_425,
            clock_offset_s: 0,
            packetized_metadata: true,
            write_index: true,
        }
    }
}

/// What one event carries.
#[derive(Debug, Clone, Copy)]
pub enum WriteEvent<'s> {
    Op {
        entry: bool,
        vpid: i32,
        vtid: i32,
        name: &'s str,
        overload: &'s str,
    },
    /// `lttng_ust_statedump:blob`: a string and a byte sequence (an event to ignore).
    Other {
        vpid: i32,
        vtid: i32,
        label: &'s str,
        data: &'s [u8],
    },
}

/// Bits appended MSB-first (big-endian) or LSB-first (little-endian) per CTF 1.8.
struct BitBuf {
    bytes: Vec<u8>,
    bits: usize,
    be: bool,
}

impl BitBuf {
    fn new(be: bool) -> Self {
        BitBuf {
            bytes: Vec::new(),
            bits: 0,
            be,
        }
    }
    fn align(&mut self, a: usize) {
        self.bits = self.bits.div_ceil(a) * a;
        self.bytes.resize(self.bits.div_ceil(8), 0);
    }
    fn int(&mut self, v: u64, size: usize, align: usize) {
        self.align(align);
        for i in 0..size {
            let bit = if self.be {
                (v >> (size - 1 - i)) & 1
            } else {
                (v >> i) & 1
            };
            let p = self.bits + i;
            if self.bytes.len() <= p / 8 {
                self.bytes.push(0);
            }
            if bit == 1 {
                let shift = if self.be { 7 - p % 8 } else { p % 8 };
                self.bytes[p / 8] |= 1 << shift;
            }
        }
        self.bits += size;
    }
    fn string(&mut self, s: &str) {
        self.align(8);
        self.bytes.extend_from_slice(s.as_bytes());
        self.bytes.push(0);
        self.bits = self.bytes.len() * 8;
    }
    fn raw(&mut self, b: &[u8]) {
        self.align(8);
        self.bytes.extend_from_slice(b);
        self.bits = self.bytes.len() * 8;
    }
}

#[derive(Default)]
struct StreamState {
    file: Vec<u8>,
    index: Vec<[u64; 9]>,
    events: Vec<u8>,
    begin: Option<u64>,
    last_ts: u64,
    seq: u64,
    discarded: u64,
}

pub struct CtfWriter {
    cfg: WriterConfig,
    streams: Vec<StreamState>,
    /// Events written per stream (for tests).
    pub extended_headers: u64,
}

impl CtfWriter {
    pub fn new(cfg: WriterConfig) -> Self {
        let streams = (0..cfg.streams.max(1))
            .map(|_| StreamState::default())
            .collect();
        CtfWriter {
            cfg,
            streams,
            extended_headers: 0,
        }
    }

    /// The metadata text this writer declares.
    pub fn metadata_text(&self) -> String {
        let c = &self.cfg;
        let order = if c.big_endian { "be" } else { "le" };
        let header = if c.compact_header {
            "event_header_compact"
        } else {
            "event_header_large"
        };
        let overload = if c.with_overload {
            "\n\t\tstring _overload_name;"
        } else {
            ""
        };
        format!(
            r#"/* CTF 1.8 */

typealias integer {{ size = 8; align = 8; signed = false; }} := uint8_t;
typealias integer {{ size = 16; align = 8; signed = false; }} := uint16_t;
typealias integer {{ size = 32; align = 8; signed = false; }} := uint32_t;
typealias integer {{ size = 64; align = 8; signed = false; }} := uint64_t;
typealias integer {{ size = 64; align = 8; signed = false; }} := unsigned long;
typealias integer {{ size = 5; align = 1; signed = false; }} := uint5_t;
typealias integer {{ size = 27; align = 1; signed = false; }} := uint27_t;

trace {{
	major = 1;
	minor = 8;
	uuid = "d01f6e87-eedc-4fef-b13c-08e4a0099648";
	byte_order = {order};
	packet.header := struct {{
		uint32_t magic;
		uint8_t  uuid[16];
		uint32_t stream_id;
		uint64_t stream_instance_id;
	}};
}};

env {{
	hostname = "{host}";
	domain = "ust";
	tracer_name = "lttng-ust";
	tracer_major = 2;
}};

clock {{
	name = "monotonic";
	uuid = "436623f8-29c8-4920-9e22-a719b2edfc4d";
	description = "Monotonic Clock";
	freq = {freq}; /* Frequency, in Hz */
	offset_s = {offset_s};
	offset = {offset};
}};

typealias integer {{
	size = 27; align = 1; signed = false;
	map = clock.monotonic.value;
}} := uint27_clock_monotonic_t;

typealias integer {{
	size = 32; align = 8; signed = false;
	map = clock.monotonic.value;
}} := uint32_clock_monotonic_t;

typealias integer {{
	size = 64; align = 8; signed = false;
	map = clock.monotonic.value;
}} := uint64_clock_monotonic_t;

struct packet_context {{
	uint64_clock_monotonic_t timestamp_begin;
	uint64_clock_monotonic_t timestamp_end;
	uint64_t content_size;
	uint64_t packet_size;
	uint64_t packet_seq_num;
	unsigned long events_discarded;
	uint32_t cpu_id;
}};

struct event_header_compact {{
	enum : uint5_t {{ compact = 0 ... 30, extended = 31 }} id;
	variant <id> {{
		struct {{
			uint27_clock_monotonic_t timestamp;
		}} compact;
		struct {{
			uint32_t id;
			uint64_clock_monotonic_t timestamp;
		}} extended;
	}} v;
}} align(8);

struct event_header_large {{
	enum : uint16_t {{ compact = 0 ... 65534, extended = 65535 }} id;
	variant <id> {{
		struct {{
			uint32_clock_monotonic_t timestamp;
		}} compact;
		struct {{
			uint32_t id;
			uint64_clock_monotonic_t timestamp;
		}} extended;
	}} v;
}} align(8);

stream {{
	id = 0;
	event.header := struct {header};
	packet.context := struct packet_context;
	event.context := struct {{
		integer {{ size = 32; align = 8; signed = 1; encoding = none; base = 10; }} _vpid;
		integer {{ size = 32; align = 8; signed = 1; encoding = none; base = 10; }} _vtid;
	}};
}};

event {{
	name = "lttng_ust_pytorch:op_entry";
	id = 0;
	stream_id = 0;
	loglevel = 13;
	fields := struct {{
		string _name;{overload}
	}};
}};

event {{
	name = "lttng_ust_pytorch:op_exit";
	id = 1;
	stream_id = 0;
	loglevel = 13;
	fields := struct {{
		string _name;{overload}
	}};
}};

event {{
	name = "lttng_ust_statedump:blob";
	id = 40;
	stream_id = 0;
	loglevel = 13;
	fields := struct {{
		string _label;
		uint32_t _len;
		uint8_t _data[_len];
	}};
}};

"#,
            host = c.hostname,
            freq = c.clock_freq,
            offset_s = c.clock_offset_s,
            offset = c.clock_offset,
        )
    }

    /// Count `n` events as lost by the tracer before the next packet of `stream`.
    pub fn discard(&mut self, stream: usize, n: u64) {
        if let Some(s) = self.streams.get_mut(stream) {
            s.discarded += n;
        }
    }

    /// Count `n` packets of `stream` as lost (the next packet's sequence number jumps).
    pub fn lose_packets(&mut self, stream: usize, n: u64) {
        if let Some(s) = self.streams.get_mut(stream) {
            s.seq += n;
        }
    }

    /// Append an event at `ts` cycles to `stream` (timestamps must not decrease per stream).
    pub fn event(&mut self, stream: usize, ts: u64, ev: WriteEvent<'_>) {
        let cfg = &self.cfg;
        let be = cfg.big_endian;
        let (id, vpid, vtid) = match ev {
            WriteEvent::Op {
                entry, vpid, vtid, ..
            } => (u64::from(!entry), vpid, vtid),
            WriteEvent::Other { vpid, vtid, .. } => (40, vpid, vtid),
        };
        let s = &mut self.streams[stream];
        // Body first: the header depends on the packet the event lands in.
        let mut body = BitBuf::new(be);
        body.int(vpid as u32 as u64, 32, 8);
        body.int(vtid as u32 as u64, 32, 8);
        match ev {
            WriteEvent::Op { name, overload, .. } => {
                body.string(name);
                if cfg.with_overload {
                    body.string(overload);
                }
            }
            WriteEvent::Other { label, data, .. } => {
                body.string(label);
                body.int(data.len() as u64, 32, 8);
                body.raw(data);
            }
        }
        // Longest header (extended) + body must fit in an empty packet.
        let need = 14 + body.bytes.len();
        assert!(
            PACKET_PREAMBLE + need <= cfg.packet_size,
            "event too large for the packet size"
        );
        if s.begin.is_some() && PACKET_PREAMBLE + s.events.len() + need > cfg.packet_size {
            Self::flush(cfg, s, stream);
        }
        if s.begin.is_none() {
            s.begin = Some(ts);
            s.last_ts = ts;
        }
        let (id_bits, ts_bits, ext_id) = if cfg.compact_header {
            (5, 27, 31)
        } else {
            (16, 32, 65535)
        };
        let compact = id < ext_id && ts >= s.last_ts && ts - s.last_ts < (1u64 << ts_bits);
        let mut h = BitBuf::new(be);
        if compact {
            h.int(id, id_bits, if cfg.compact_header { 1 } else { 8 });
            h.int(
                ts & ((1u64 << ts_bits) - 1),
                ts_bits,
                if cfg.compact_header { 1 } else { 8 },
            );
        } else {
            self.extended_headers += 1;
            h.int(ext_id, id_bits, if cfg.compact_header { 1 } else { 8 });
            h.int(id, 32, 8);
            h.int(ts, 64, 8);
        }
        // The body's fields are all byte-aligned, so it follows the header directly.
        h.align(8);
        s.events.extend_from_slice(&h.bytes);
        s.events.extend_from_slice(&body.bytes);
        s.last_ts = ts;
    }

    fn flush(cfg: &WriterConfig, s: &mut StreamState, stream: usize) {
        let Some(begin) = s.begin else {
            return;
        };
        let mut p = BitBuf::new(cfg.big_endian);
        p.int(PACKET_MAGIC, 32, 8);
        p.raw(&UUID);
        p.int(0, 32, 8);
        p.int(stream as u64, 64, 8);
        let content = (PACKET_PREAMBLE + s.events.len()) as u64 * 8;
        let packet = cfg.packet_size as u64 * 8;
        p.int(begin, 64, 8);
        p.int(s.last_ts, 64, 8);
        p.int(content, 64, 8);
        p.int(packet, 64, 8);
        p.int(s.seq, 64, 8);
        p.int(s.discarded, 64, 8);
        p.int(stream as u64, 32, 8);
        debug_assert_eq!(p.bytes.len(), PACKET_PREAMBLE);
        let offset = s.file.len() as u64;
        s.file.extend_from_slice(&p.bytes);
        s.file.extend_from_slice(&s.events);
        s.file.resize(offset as usize + cfg.packet_size, 0);
        s.index.push([
            offset,
            packet,
            content,
            begin,
            s.last_ts,
            s.discarded,
            0,
            stream as u64,
            s.seq,
        ]);
        s.seq += 1;
        s.events.clear();
        s.begin = None;
    }

    /// Write `metadata`, the stream files `blocking-channel_<n>` and `index/` into `dir`
    /// (created if needed).
    pub fn finish(mut self, dir: &Path) -> io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let text = self.metadata_text();
        let meta = if self.cfg.packetized_metadata {
            packetize(text.as_bytes(), self.cfg.big_endian)
        } else {
            text.into_bytes()
        };
        std::fs::write(dir.join("metadata"), meta)?;
        if self.cfg.write_index {
            std::fs::create_dir_all(dir.join("index"))?;
        }
        for (i, s) in self.streams.iter_mut().enumerate() {
            Self::flush(&self.cfg, s, i);
            let name = format!("blocking-channel_{i}");
            std::fs::write(dir.join(&name), &s.file)?;
            if self.cfg.write_index {
                let mut idx = Vec::with_capacity(16 + 72 * s.index.len());
                for v in [INDEX_MAGIC, 1, 1, 72] {
                    idx.extend_from_slice(&v.to_be_bytes());
                }
                for e in &s.index {
                    for v in e {
                        idx.extend_from_slice(&v.to_be_bytes());
                    }
                }
                std::fs::write(dir.join("index").join(format!("{name}.idx")), idx)?;
            }
        }
        Ok(())
    }
}

/// TSDL text in metadata packets of at most 4096 bytes (37-byte headers).
pub fn packetize(text: &[u8], big_endian: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let w32 = |out: &mut Vec<u8>, v: u32| {
        if big_endian {
            out.extend_from_slice(&v.to_be_bytes())
        } else {
            out.extend_from_slice(&v.to_le_bytes())
        }
    };
    for chunk in text.chunks(4096 - 37) {
        let content = (37 + chunk.len()) as u32;
        w32(&mut out, METADATA_MAGIC);
        out.extend_from_slice(&UUID);
        w32(&mut out, 0);
        w32(&mut out, content * 8);
        w32(&mut out, 4096 * 8);
        out.extend_from_slice(&[0, 0, 0, 1, 8]);
        out.extend_from_slice(chunk);
        out.resize(out.len() + 4096 - content as usize, 0);
    }
    out
}

/// Op names of the generated workload (ATen-like), with overloads.
const OPS: [(&str, &str); 8] = [
    ("aten::linear", ""),
    ("aten::addmm", ""),
    ("aten::t", ""),
    ("aten::relu", ""),
    ("aten::empty", "memory_format"),
    ("aten::abs", ""),
    ("aten::abs", "out"),
    ("aten::conv2d", ""),
];

/// One closed call of a generated workload, for truth in tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TruthCall {
    pub name: String,
    pub tid: i32,
    pub start: u64,
    pub dur: u64,
}

/// Write a synthetic THAPI-like trace of about `events` op events to `dir`: `threads`
/// threads spread over the streams, each running nested calls (depth up to 3) with
/// deterministic pseudo-random durations. Returns the closed calls (absolute start in
/// cycles, duration in cycles) as truth.
pub fn write_workload(
    dir: &Path,
    cfg: WriterConfig,
    events: usize,
    threads: usize,
) -> io::Result<Vec<TruthCall>> {
    let mut w = CtfWriter::new(cfg.clone());
    let mut rng = crate::rng::XorShift::new(0x9E37_79B9_7F4A_7C15);
    let mut next = || rng.next_u64();
    let threads = threads.max(1);
    let streams = cfg.streams.max(1);
    // Per thread: its own clock and a stack of open calls; threads take turns so each
    // stream sees non-decreasing time.
    let mut clock = vec![1_000_000u64; threads];
    let mut stacks: Vec<Vec<(usize, u64)>> = vec![Vec::new(); threads];
    let mut truth = Vec::new();
    let mut written = 0;
    let mut global = 1_000_000u64;
    while written < events {
        if written + 2 > events && stacks.iter().all(Vec::is_empty) {
            break;
        }
        let t = (next() % threads as u64) as usize;
        let stream = t % streams;
        let step = 50 + next() % 2_000;
        global += step;
        clock[t] = clock[t].max(global);
        let ts = clock[t];
        let depth = stacks[t].len();
        let open = depth < 3 && (depth == 0 || next() % 2 == 0) && written + depth + 2 <= events;
        let (vpid, vtid) = (4242, 4242 + t as i32);
        if open {
            let op = (next() % OPS.len() as u64) as usize;
            stacks[t].push((op, ts));
            let (name, overload) = OPS[op];
            w.event(
                stream,
                ts,
                WriteEvent::Op {
                    entry: true,
                    vpid,
                    vtid,
                    name,
                    overload,
                },
            );
        } else if let Some((op, start)) = stacks[t].pop() {
            let (name, overload) = OPS[op];
            w.event(
                stream,
                ts,
                WriteEvent::Op {
                    entry: false,
                    vpid,
                    vtid,
                    name,
                    overload,
                },
            );
            let full = if overload.is_empty() {
                name.to_string()
            } else {
                format!("{name}.{overload}")
            };
            truth.push(TruthCall {
                name: full,
                tid: vtid,
                start,
                dur: ts - start,
            });
        } else {
            continue;
        }
        written += 1;
    }
    w.finish(dir)?;
    Ok(truth)
}
