//! What every reader produces: closed calls as per-thread intervals, with names, threads
//! and input signatures interned (a 1M-event trace should not hold 1M name strings).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use serde::Serialize;

use super::detect::TraceFormat;

/// A thread of execution: (host, pid, tid). LTTng gives vpid/vtid; Chrome traces pid/tid.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct ThreadKey {
    /// Shared by the threads of one host (a trace's one `host_name` is held once).
    pub host: Option<Arc<str>>,
    pub pid: i64,
    pub tid: i64,
}

/// Input shapes and dtypes of one call (Chrome traces recorded with `record_shapes`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct InputSig {
    /// One dim list per input (`[]` for non-tensors and tensor lists).
    pub shapes: Vec<Vec<i64>>,
    pub types: Vec<String>,
}

/// One call. Indices refer to the tables of the owning [`IntervalSet`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval {
    pub thread: u32,
    pub name: u32,
    pub start_ns: i64,
    /// 0 for failed calls.
    pub dur_ns: i64,
    /// An exit without entry (LTTng): a failed call.
    pub err: bool,
    /// A Python frame (torch.profiler `with_stack=True`, `python_function`), not an op:
    /// a parent in the call tree whose time its parent's self time excludes, as
    /// `key_averages()` counts it, but no op row of its own.
    pub frame: bool,
    pub inputs: Option<u32>,
    /// The enclosing call on the same thread. Invariant: `parent < own index`.
    pub parent: Option<u32>,
}

/// An entry that was never exited (crash, tracing stopped mid-op).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unterminated {
    pub name: String,
    pub host: Option<Arc<str>>,
    pub pid: i64,
    pub tid: i64,
    pub start_ns: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TraceWarning {
    pub kind: String,
    pub message: String,
}

/// What was read and what was left aside.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct ImportCounts {
    /// Records (text events or JSON trace events) seen.
    pub events: u64,
    /// Operator events used (entry/exit, or complete `X` events).
    pub op_events: u64,
    /// Events of other providers, phases or categories.
    pub ignored_events: u64,
    /// Fields not used by the importer (LTTng payload/context fields).
    pub ignored_fields: u64,
    /// Records that could not be parsed.
    pub malformed: u64,
}

/// Reader output: the intervals of all threads with their tables.
#[derive(Debug, Clone, Default)]
pub struct IntervalSet {
    pub format: Option<TraceFormat>,
    pub threads: Vec<ThreadKey>,
    pub names: Vec<String>,
    pub inputs: Vec<InputSig>,
    pub intervals: Vec<Interval>,
    pub unterminated: Vec<Unterminated>,
    pub warnings: Vec<TraceWarning>,
    pub counts: ImportCounts,
}

impl IntervalSet {
    pub fn thread(&self, iv: &Interval) -> &ThreadKey {
        &self.threads[iv.thread as usize]
    }
    pub fn name(&self, iv: &Interval) -> &str {
        &self.names[iv.name as usize]
    }
    pub fn input_sig(&self, iv: &Interval) -> Option<&InputSig> {
        iv.inputs.map(|i| &self.inputs[i as usize])
    }
}

/// A fast non-cryptographic hasher for the interners (keys are trace strings and small
/// integers; SipHash's DoS resistance buys nothing here and costs ~15% of text import).
#[derive(Default, Clone, Copy)]
pub(crate) struct FastHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(buf) ^ rest.len() as u64);
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_i64(&mut self, i: i64) {
        self.add(i as u64);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn finish(&self) -> u64 {
        // Final avalanche so the low bits (bucket index) depend on every input bit.
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^ (h >> 33)
    }
}

impl FastHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// String interner returning dense ids. Each name is held once, in `names`, plus a copy
/// of its bytes as the key of `ids` when it is short; a long one is found by its hash
/// (a 200 MB name costs its 200 MB, not twice that).
#[derive(Debug, Default)]
pub(crate) struct Interner {
    /// Keyed by the names' bytes, so that a name can be found before its bytes are
    /// checked as UTF-8 ([`Interner::get`]). Names of at most [`LONG_NAME_BYTES`] only.
    ids: FastMap<Box<[u8]>, u32>,
    /// The longer names: by the hash of their bytes, their ids.
    long: FastMap<u64, Vec<u32>>,
    pub(crate) names: Vec<String>,
}

/// Names longer than this are not copied into the interner's keys.
const LONG_NAME_BYTES: usize = 4096;

impl Interner {
    pub(crate) fn id(&mut self, s: &str) -> u32 {
        match self.get(s.as_bytes()) {
            Some(id) => id,
            None => self.add(s.to_string()),
        }
    }

    /// [`Interner::id`] of a name given by value: a new one is kept without a copy.
    pub(crate) fn id_owned(&mut self, s: String) -> u32 {
        match self.get(s.as_bytes()) {
            Some(id) => id,
            None => self.add(s),
        }
    }

    fn add(&mut self, s: String) -> u32 {
        let id = self.names.len() as u32;
        if s.len() > LONG_NAME_BYTES {
            self.long
                .entry(long_hash(s.as_bytes()))
                .or_default()
                .push(id);
        } else {
            self.ids.insert(s.as_bytes().into(), id);
        }
        self.names.push(s);
        id
    }

    /// The id of the name whose bytes are `bytes`, if it was met before (then `bytes`
    /// are that name's, valid UTF-8).
    #[inline]
    pub(crate) fn get(&self, bytes: &[u8]) -> Option<u32> {
        if bytes.len() > LONG_NAME_BYTES {
            return self.get_long(bytes);
        }
        self.ids.get(bytes).copied()
    }

    #[cold]
    fn get_long(&self, bytes: &[u8]) -> Option<u32> {
        self.long
            .get(&long_hash(bytes))?
            .iter()
            .copied()
            .find(|&id| self.names[id as usize].as_bytes() == bytes)
    }
}

fn long_hash(bytes: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    BuildHasherDefault::<FastHasher>::default().hash_one(bytes)
}

/// Thread interner: hosts as strings, then (host id, pid, tid).
#[derive(Debug, Default)]
pub(crate) struct ThreadTable {
    hosts: Interner,
    ids: FastMap<(u32, i64, i64), u32>,
    pub(crate) threads: Vec<ThreadKey>,
}

impl ThreadTable {
    pub(crate) fn id(&mut self, host: Option<&str>, pid: i64, tid: i64) -> u32 {
        let h = host.map_or(u32::MAX, |h| self.hosts.id(h));
        let next = self.threads.len() as u32;
        let id = *self.ids.entry((h, pid, tid)).or_insert(next);
        if id == next {
            self.threads.push(ThreadKey {
                host: host.map(Arc::from),
                pid,
                tid,
            });
        }
        id
    }
}

/// Warnings grouped by kind: the first few messages of a kind are kept verbatim, the
/// rest are summarised in one line, so a damaged 1M-event file gives a readable list.
#[derive(Debug, Default)]
pub(crate) struct WarningLog {
    kinds: Vec<(String, Vec<String>, u64)>,
}

const KEEP_PER_KIND: usize = 5;

impl WarningLog {
    pub(crate) fn add(&mut self, kind: &str, message: impl FnOnce() -> String) {
        let slot = match self.kinds.iter().position(|(k, _, _)| k == kind) {
            Some(i) => i,
            None => {
                self.kinds.push((kind.to_string(), Vec::new(), 0));
                self.kinds.len() - 1
            }
        };
        let (_, kept, count) = &mut self.kinds[slot];
        *count += 1;
        if kept.len() < KEEP_PER_KIND {
            kept.push(message());
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    pub(crate) fn finish(self) -> Vec<TraceWarning> {
        let mut out = Vec::new();
        for (kind, kept, count) in self.kinds {
            let extra = count - kept.len() as u64;
            for message in kept {
                out.push(TraceWarning {
                    kind: kind.clone(),
                    message,
                });
            }
            if extra > 0 {
                out.push(TraceWarning {
                    kind: kind.clone(),
                    message: format!("{extra} more warnings of this kind"),
                });
            }
        }
        out
    }
}
