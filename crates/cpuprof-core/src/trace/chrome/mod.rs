//! torch.profiler (Kineto) Chrome-trace JSON: complete events (`ph: "X"`) of categories
//! `cpu_op`, `user_annotation` and `python_function`. The text is scanned once through
//! a fixed buffer by our own scanner of the trace-event grammar (`scan`): each event is
//! handed to the builder as it is read, only the members the model uses are decoded
//! (into buffers reused from event to event), the rest skipped unbuilt. A cut-off file
//! keeps the events before the cut.

mod args;
mod document;
mod fast;
mod keys;
mod lenient;
mod memo;
mod micros;
mod parts;
mod scan;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Read;

use super::detect::TraceFormat;
use super::error::TraceError;
use super::intervals::{
    FastMap, ImportCounts, InputSig, Interner, Interval, IntervalSet, ThreadTable, WarningLog,
};
use super::nesting::nest_by_containment;
use args::{FlatSig, SigScratch};
use lenient::{Scalar, Texts};
pub(crate) use parts::{read_chrome_file, read_chrome_json_cut_at};
pub(crate) use scan::ScanError;
use scan::{Scan, Scanner};

/// The members of one trace event that matter here (strings in `Builder::texts`, inputs
/// in `Builder::scratch`).
#[derive(Default)]
struct RawEvent {
    ph: Option<Scalar>,
    cat: Option<Scalar>,
    name: Option<Scalar>,
    pid: Option<Scalar>,
    tid: Option<Scalar>,
    /// `ts`/`dur` in whole ns (`None`: absent or not a decimal number of µs).
    ts: Option<i64>,
    dur: Option<i64>,
}

impl RawEvent {
    /// The event with its strings in `text` (the builder's `texts.text`).
    fn view<'t>(&self, text: &'t str) -> EventView<'t> {
        let val = |v: &Option<Scalar>| {
            v.as_ref().map(|v| match v {
                Scalar::Int(i) => Val::Int(*i),
                Scalar::Float(f) => Val::Float(*f),
                Scalar::Str(r) => text.get(r.clone()).map_or(Val::Other, Val::Str),
                Scalar::Other => Val::Other,
            })
        };
        EventView {
            ph: val(&self.ph),
            cat: val(&self.cat),
            name: val(&self.name),
            pid: val(&self.pid),
            tid: val(&self.tid),
            ts: self.ts,
            dur: self.dur,
            name_id: None,
        }
    }
}

/// A scalar member of an event, its string borrowed (from the builder's text, or
/// straight from the scanner's window: `fast.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Val<'t> {
    Int(i64),
    Float(f64),
    Str(&'t str),
    Other,
}

impl<'t> Val<'t> {
    fn as_str(self) -> Option<&'t str> {
        match self {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// The members of one trace event the builder reads.
#[derive(Default, Clone, Copy)]
struct EventView<'t> {
    ph: Option<Val<'t>>,
    cat: Option<Val<'t>>,
    name: Option<Val<'t>>,
    pid: Option<Val<'t>>,
    tid: Option<Val<'t>>,
    ts: Option<i64>,
    dur: Option<i64>,
    /// The id of `name` in the builder's names, when the fast path found it there by
    /// its bytes (`name` is then `Some(Val::Str(""))`, the name's bytes not checked
    /// again as UTF-8).
    name_id: Option<u32>,
}

/// Accumulates intervals while the event array streams by.
#[derive(Default)]
struct Builder {
    /// The scan stops at the first element of the event array that starts at or after
    /// this offset (the next part's start, when the text is read in parts: `parts.rs`).
    stop_at: u64,
    /// Where it stopped (`None`: it read to the end, or failed).
    stopped_at: Option<u64>,
    /// Parts read on other threads and merged into this one (`parts.rs`).
    merged_parts: usize,
    threads: ThreadTable,
    names: Interner,
    /// Signature hash -> ids of the signatures with that hash.
    input_ids: FastMap<u64, Vec<u32>>,
    scratch: SigScratch,
    /// `args` the fast path read before, by their bytes (`memo.rs`).
    memo: memo::ArgsMemo,
    /// Event heads the fast path read before (`memo.rs`).
    heads: memo::HeadMemo,
    texts: Texts,
    inputs: Vec<InputSig>,
    /// Each of `inputs` as the scratch holds it, to compare with.
    flat_inputs: Vec<FlatSig>,
    intervals: Vec<Interval>,
    host: Option<String>,
    string_ids: HashMap<String, i64>,
    saw_events_array: bool,
    /// Some start time has digits below the µs (the trace is not of whole µs).
    sub_us_starts: bool,
    warnings: WarningLog,
    counts: ImportCounts,
    /// Ignored events by kind (`ph "i" cat "ac2g"`), for the warning; a bounded set.
    ignored_kinds: std::collections::BTreeMap<String, u64>,
    /// The kind of the event being ignored, made here (no allocation unless it is new).
    kind: String,
    /// By name id: the id of the signature of that op's last call (`u32::MAX`: none).
    last_input: Vec<u32>,
    /// The last event's thread: `(pid, tid)` and its id (most events are on the thread
    /// of the one before).
    last_thread: Option<(i64, i64, u32)>,
    /// The (phase, category) pairs of the first ignored kinds met, with their kind.
    seen_kinds: Vec<(Option<String>, Option<String>, String)>,
}

/// How many (phase, category) pairs of ignored events are remembered.
const MAX_SEEN_KINDS: usize = 16;

/// How long the phase and category of a remembered pair may be, together.
const MAX_SEEN_BYTES: usize = 256;

/// `"text"` of at most 40 characters, or `none`.
fn show_kind(out: &mut String, v: Option<&str>) {
    match v {
        Some(s) => {
            let cut = s.char_indices().nth(40).map_or(s.len(), |(i, _)| i);
            let _ = write!(out, "{:?}", &s[..cut]);
        }
        None => out.push_str("none"),
    }
}

impl Builder {
    /// A builder whose scan stops at the first event at or after `stop_at`.
    fn new(stop_at: u64) -> Self {
        Builder {
            stop_at,
            ..Builder::default()
        }
    }

    fn stopped(&self) -> bool {
        self.stopped_at.is_some()
    }

    /// Count an ignored event of the kind `make` writes.
    fn ignore_kind(&mut self, make: impl FnOnce(&mut String)) {
        self.counts.ignored_events += 1;
        let mut kind = std::mem::take(&mut self.kind);
        kind.clear();
        make(&mut kind);
        if let Some(n) = self.ignored_kinds.get_mut(kind.as_str()) {
            *n += 1;
        } else if self.ignored_kinds.len() < 64 {
            self.ignored_kinds.insert(kind.clone(), 1);
        }
        self.kind = kind;
    }

    /// Count an ignored event of phase `ph` and category `cat`: a pair met before is
    /// found by its text (its kind not written again per event).
    fn ignore_event(&mut self, ph: Option<&str>, cat: Option<&str>) {
        let seen = self
            .seen_kinds
            .iter()
            .position(|(p, c, _)| p.as_deref() == ph && c.as_deref() == cat);
        if let Some(k) = seen {
            self.counts.ignored_events += 1;
            // Absent when the set was full as it was first met: not counted, as then.
            if let Some(n) = self.ignored_kinds.get_mut(self.seen_kinds[k].2.as_str()) {
                *n += 1;
            }
            return;
        }
        self.ignore_kind(|k| {
            k.push_str("ph ");
            show_kind(k, ph);
            k.push_str(" cat ");
            show_kind(k, cat);
        });
        // A pair of long texts is not remembered (nor copied): it is told by its kind.
        let short = ph.map_or(0, str::len) + cat.map_or(0, str::len) <= MAX_SEEN_BYTES;
        if short && self.seen_kinds.len() < MAX_SEEN_KINDS {
            let (ph, cat) = (ph.map(str::to_string), cat.map(str::to_string));
            self.seen_kinds.push((ph, cat, self.kind.clone()));
        }
    }

    fn id_of_in(&mut self, v: Option<Val>, what: &str) -> Option<i64> {
        match v? {
            Val::Int(i) => Some(i),
            Val::Float(f) if f.fract() == 0.0 && f.abs() < 9e15 => Some(f as i64),
            Val::Str(s) => match s.trim().parse::<i64>() {
                Ok(i) => Some(i),
                Err(_) => {
                    if let Some(&id) = self.string_ids.get(s) {
                        return Some(id);
                    }
                    let id = -(self.string_ids.len() as i64) - 1;
                    self.string_ids.insert(s.to_string(), id);
                    // Shown as an ignored kind is: at most 40 characters of it.
                    self.warnings.add("string_id", || {
                        let mut shown = String::new();
                        show_kind(&mut shown, Some(s));
                        format!("non-numeric {what} {shown} shown as {id}")
                    });
                    Some(id)
                }
            },
            _ => None,
        }
    }

    /// The id of the signature in `scratch`, for a call of the op named `name`: most
    /// calls repeat their op's last signature, compared first (no hash); else found by
    /// its hash, or added. Distinct signatures are kept once each, so both ways give the
    /// same id.
    fn input_id(&mut self, name: u32) -> u32 {
        let slot = name as usize;
        if let Some(&id) = self.last_input.get(slot) {
            if id != u32::MAX && self.scratch.matches(&self.flat_inputs[id as usize]) {
                return id;
            }
        }
        let candidates = self.input_ids.entry(self.scratch.hash()).or_default();
        let found = candidates
            .iter()
            .copied()
            .find(|&id| self.scratch.matches(&self.flat_inputs[id as usize]));
        let id = found.unwrap_or_else(|| {
            let id = self.inputs.len() as u32;
            self.inputs.push(self.scratch.to_sig());
            self.flat_inputs.push(self.scratch.take_flat());
            candidates.push(id);
            id
        });
        if self.last_input.len() <= slot {
            self.last_input.resize(slot + 1, u32::MAX);
        }
        self.last_input[slot] = id;
        id
    }

    /// An event read by the scanner into `texts` (`document.rs`).
    fn add(&mut self, ev: &RawEvent) {
        let text = std::mem::take(&mut self.texts.text);
        self.add_view(&ev.view(&text));
        self.texts.text = text;
    }

    /// One event, its input signature in `scratch`.
    fn add_view(&mut self, ev: &EventView) {
        self.counts.events += 1;
        let span = self.memo.current.take();
        let ph = ev.ph.and_then(Val::as_str);
        let cat = ev.cat.and_then(Val::as_str);
        // Python frames (`with_stack=True`) nest ops and take their time out of their
        // parents' self time, as in `key_averages()`; they are no op rows.
        let frame = cat == Some("python_function");
        if ph != Some("X") || !(frame || matches!(cat, Some("cpu_op" | "user_annotation"))) {
            self.ignore_event(ph, cat);
            return;
        }
        let n = self.counts.events;
        let name = ev.name.and_then(Val::as_str);
        let (ts, dur) = (ev.ts, ev.dur);
        let pid = self.id_of_in(ev.pid, "pid");
        let tid = self.id_of_in(ev.tid, "tid");
        let (Some(name), Some(ts), Some(dur), Some(pid), Some(tid)) = (name, ts, dur, pid, tid)
        else {
            self.counts.malformed += 1;
            self.warnings.add("malformed", || {
                format!("trace event {n}: missing or invalid name/ts/dur/pid/tid; skipped")
            });
            return;
        };
        if dur < 0 {
            self.counts.malformed += 1;
            self.warnings.add("malformed", || {
                format!("trace event {n}: negative dur; skipped")
            });
            return;
        }
        self.sub_us_starts |= ts % 1000 != 0;
        if !frame {
            self.counts.op_events += 1;
        }
        let name = match ev.name_id {
            Some(id) => id,
            None => self.names.id(name),
        };
        let inputs = if frame {
            None
        } else if !self.scratch.is_empty() {
            // A span of `args` read before knows its signature's id once it is found.
            Some(match span.and_then(|r| self.memo.sig_id(r)) {
                Some(id) => id,
                None => {
                    let id = self.input_id(name);
                    if let Some(r) = span {
                        self.memo.set_sig_id(r, id);
                    }
                    id
                }
            })
        } else {
            None
        };
        let thread = match self.last_thread {
            Some((p, t, id)) if (p, t) == (pid, tid) => id,
            _ => {
                let id = self.threads.id(None, pid, tid);
                self.last_thread = Some((pid, tid, id));
                id
            }
        };
        self.intervals.push(Interval {
            thread,
            name,
            start_ns: ts,
            dur_ns: dur,
            err: false,
            frame,
            inputs,
            parent: None,
        });
    }
}

/// Read Chrome JSON held in memory (a big text in parts, on every core: `parts.rs`).
pub(crate) fn read_chrome_json(bytes: &[u8]) -> Result<IntervalSet, TraceError> {
    let (b, scanned) = parts::read_bytes_in_parts(bytes);
    finish(b, scanned, &mut |_| None)
}

/// Read Chrome JSON from a reader (a file, a gzip stream) through the scanner's fixed
/// buffer: memory grows with the events kept, never with the size of the text.
/// `io_problem` turns a reader error or an early end (which the reader may have recorded
/// itself: a gzip stream cut short) into `Some(Ok(warning))` to keep the events before
/// it, or `Some(Err(error))`; `None` reports the JSON error.
pub(crate) fn read_chrome_json_from(
    reader: &mut dyn Read,
    io_problem: &mut dyn FnMut(&ScanError) -> Option<Result<String, TraceError>>,
) -> Result<IntervalSet, TraceError> {
    let mut scanner = Scanner::new(reader);
    read_chrome(&mut scanner, io_problem)
}

fn read_chrome(
    scanner: &mut Scanner,
    io_problem: &mut dyn FnMut(&ScanError) -> Option<Result<String, TraceError>>,
) -> Result<IntervalSet, TraceError> {
    let mut b = Builder::new(u64::MAX);
    let scanned = document::read_document(scanner, &mut b);
    finish(b, scanned, io_problem)
}

/// The intervals of a scan that ended with `scanned`, or its error.
fn finish(
    mut b: Builder,
    scanned: Scan<()>,
    io_problem: &mut dyn FnMut(&ScanError) -> Option<Result<String, TraceError>>,
) -> Result<IntervalSet, TraceError> {
    // A scan that failed inside a huge value leaves it in the buffers.
    b.texts.release_big();
    if let Err(e) = scanned {
        let kept = b.counts.op_events;
        match io_problem(&e) {
            Some(Err(fatal)) => return Err(fatal),
            Some(Ok(message)) if kept > 0 => {
                b.warnings.add("truncated", || {
                    format!("{message}; kept the {kept} complete op events before it")
                });
            }
            Some(Ok(message)) => return Err(TraceError::Gzip(message)),
            None if e.is_io() => return Err(TraceError::Io(e.to_string())),
            None => {
                // The trace-event format lets the event array end without its `]` (a
                // killed profiler leaves it so): a cut after whole events is read, and
                // one with no op event before it is reported as such below.
                if !e.is_eof() || b.counts.events == 0 {
                    return Err(TraceError::Json(e.to_string()));
                }
                b.warnings.add("truncated", || {
                    format!(
                        "JSON ends early ({e}); kept the {kept} complete op events before the cut"
                    )
                });
            }
        }
    }
    if !b.saw_events_array {
        return Err(TraceError::NoEvents("no traceEvents array".into()));
    }
    if b.counts.op_events == 0 {
        return Err(TraceError::NoEvents(format!(
            "{} trace events, none of them complete (ph \"X\") cpu_op/user_annotation events",
            b.counts.events
        )));
    }
    if b.counts.ignored_events > 0 {
        let n = b.counts.ignored_events;
        let kinds = super::kinds_list(&b.ignored_kinds);
        b.warnings.add("ignored_events", || {
            format!("{n} events of other phases/categories ignored: {kinds}")
        });
    }
    let mut threads = b.threads.threads;
    // One host name, shared by the threads.
    let host: Option<std::sync::Arc<str>> = b.host.take().map(Into::into);
    for t in &mut threads {
        t.host.clone_from(&host);
    }
    // A trace of whole µs (older Kineto) is nested with a 1 µs tolerance for rounding;
    // one with ns digits exactly, as `key_averages()` nests it.
    let tolerance = if b.sub_us_starts {
        0
    } else {
        super::nesting::CONTAINMENT_TOLERANCE_NS
    };
    let intervals = nest_by_containment(b.intervals, threads.len(), tolerance);
    Ok(IntervalSet {
        format: Some(TraceFormat::ChromeJson),
        threads,
        names: b.names.names,
        inputs: b.inputs,
        intervals,
        unterminated: Vec::new(),
        warnings: b.warnings.finish(),
        counts: b.counts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_ids_shapes_and_ignored() {
        let json = br#"{"host_name":"h","traceEvents":[
            {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":"7","tid":8,"ts":1.5,"dur":2.0,
             "args":{"Input Dims":[[2,3],[3,4],[[1],[2]]],"Input type":["float","float",null]}},
            {"ph":"X","cat":"cpu_op","name":"aten::t","pid":7,"tid":8,"ts":1.6,"dur":0.5},
            {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":"stream 7","ts":1,"dur":1},
            {"ph":"M","name":"thread_name","pid":7,"tid":8},
            17, {"ph":"X","cat":"cpu_op","name":"odd","pid":"Spans","tid":"x","ts":"3","dur":1}
        ]}"#;
        let set = read_chrome_json(json).unwrap();
        assert_eq!(set.intervals.len(), 3);
        assert_eq!(set.counts.ignored_events, 3);
        assert_eq!(set.threads[0].host.as_deref(), Some("h"));
        let mm = &set.intervals[0];
        assert_eq!((mm.start_ns, mm.dur_ns, mm.parent), (1500, 2000, None));
        assert_eq!(set.intervals[1].parent, Some(0));
        let sig = set.input_sig(mm).unwrap();
        assert_eq!(sig.shapes, vec![vec![2, 3], vec![3, 4], vec![]]);
        assert_eq!(sig.types, vec!["float", "float", ""]);
        assert_eq!((set.threads[1].pid, set.threads[1].tid), (-1, -2));
    }

    /// The scanner's window only changes when bytes are read: every token straddling a
    /// refill gives the same trace, cut or whole, as the text read at once.
    #[test]
    fn the_window_size_changes_nothing() {
        let json: &[u8] = include_bytes!("../../../../../fixtures/torch/cnn_infer.json");
        for text in [json, &json[..json.len() / 2], &json[..json.len() - 1]] {
            let whole = format!("{:?}", read_chrome_json(text));
            for window in [1, 2, 7, 64, 4096] {
                let mut r = text;
                let mut s = Scanner::with_buffer(&mut r, window);
                let set = format!("{:?}", read_chrome(&mut s, &mut |_| None));
                assert_eq!(set, whole, "window {window}");
            }
        }
    }

    /// Ignored events are counted per kind, the first 64 kinds kept, whether their
    /// (phase, category) pair is among the remembered ones or not.
    #[test]
    fn ignored_kinds_counted_past_the_remembered_pairs() {
        let mut events = vec![
            r#"{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":1}"#.to_string(),
        ];
        for round in 0..3 {
            for k in 0..70 {
                events.push(format!(
                    r#"{{"ph":"i","cat":"c{k}","name":"n","ts":{round}}}"#
                ));
            }
        }
        let json = format!("[{}]", events.join(",\n"));
        let mut r = json.as_bytes();
        let mut s = Scanner::new(&mut r);
        let mut b = Builder::new(u64::MAX);
        document::read_document(&mut s, &mut b).unwrap();
        assert_eq!(b.counts.ignored_events, 210);
        let want: std::collections::BTreeMap<String, u64> = (0..64)
            .map(|k| (format!(r#"ph "i" cat "c{k}""#), 3))
            .collect();
        assert_eq!(b.ignored_kinds, want);
    }

    #[test]
    fn truncated_json_keeps_complete_events() {
        let json = br#"{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":1},{"ph":"X","cat":"cpu"#;
        let set = read_chrome_json(json).unwrap();
        assert_eq!(set.intervals.len(), 1);
        assert!(set.warnings.iter().any(|w| w.kind == "truncated"));
        assert!(matches!(
            read_chrome_json(br#"{"traceEvents":[{"ph""#),
            Err(TraceError::Json(_))
        ));
        assert!(matches!(
            read_chrome_json(br#"{"a":1}"#),
            Err(TraceError::NoEvents(_))
        ));
    }
}
