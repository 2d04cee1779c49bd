//! torch.profiler (Kineto) Chrome-trace JSON: complete events (`ph: "X"`) of categories
//! `cpu_op` and `user_annotation`. The event array is streamed through serde (no `Value`
//! tree, strings borrowed when unescaped), and a cut-off file keeps the events before
//! the cut.

mod args;
mod document;
mod lenient;
mod micros;

use std::collections::HashMap;

use serde::de::DeserializeSeed;

use super::detect::TraceFormat;
use super::error::TraceError;
use super::intervals::{
    FastMap, ImportCounts, InputSig, Interner, Interval, IntervalSet, ThreadTable, WarningLog,
};
use super::nesting::nest_by_containment;
use args::SigScratch;
use document::TopSeed;
use lenient::Scalar;
use micros::MicrosText;

/// The fields of one trace event that matter here (inputs go to the builder's scratch).
#[derive(Default)]
struct RawEvent<'a> {
    ph: Option<Scalar<'a>>,
    cat: Option<Scalar<'a>>,
    name: Option<Scalar<'a>>,
    pid: Option<Scalar<'a>>,
    tid: Option<Scalar<'a>>,
    ts: Option<MicrosText>,
    dur: Option<MicrosText>,
}

/// Accumulates intervals while the event array streams by.
#[derive(Default)]
struct Builder {
    threads: ThreadTable,
    names: Interner,
    /// Signature hash -> ids of the signatures with that hash.
    input_ids: FastMap<u64, Vec<u32>>,
    scratch: SigScratch,
    inputs: Vec<InputSig>,
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
}

impl Builder {
    fn ignore(&mut self, kind: String) {
        self.counts.ignored_events += 1;
        if self.ignored_kinds.len() < 64 || self.ignored_kinds.contains_key(&kind) {
            *self.ignored_kinds.entry(kind).or_insert(0) += 1;
        }
    }

    fn id_of(&mut self, v: Option<&Scalar<'_>>, what: &str) -> Option<i64> {
        match v? {
            Scalar::Int(i) => Some(*i),
            Scalar::Float(f) if f.fract() == 0.0 && f.abs() < 9e15 => Some(*f as i64),
            Scalar::Str(s) => match s.trim().parse::<i64>() {
                Ok(i) => Some(i),
                Err(_) => {
                    let next = -(self.string_ids.len() as i64) - 1;
                    let id = *self.string_ids.entry(s.to_string()).or_insert(next);
                    if id == next {
                        let s = s.to_string();
                        self.warnings.add("string_id", || {
                            format!("non-numeric {what} {s:?} shown as {id}")
                        });
                    }
                    Some(id)
                }
            },
            _ => None,
        }
    }

    fn add(&mut self, ev: RawEvent<'_>) {
        self.counts.events += 1;
        let ph = ev.ph.as_ref().and_then(Scalar::as_str);
        let cat = ev.cat.as_ref().and_then(Scalar::as_str);
        // Python frames (`with_stack=True`) nest ops and take their time out of their
        // parents' self time, as in `key_averages()`; they are no op rows.
        let frame = cat == Some("python_function");
        if ph != Some("X") || !(frame || matches!(cat, Some("cpu_op" | "user_annotation"))) {
            let show = |v: Option<&str>| {
                v.map(|s| format!("{:?}", s.chars().take(40).collect::<String>()))
                    .unwrap_or_else(|| "none".into())
            };
            self.ignore(format!("ph {} cat {}", show(ph), show(cat)));
            return;
        }
        let n = self.counts.events;
        let name = ev.name.as_ref().and_then(Scalar::as_str);
        let ts = ev.ts.as_ref().and_then(MicrosText::ns);
        let dur = ev.dur.as_ref().and_then(MicrosText::ns);
        let pid = self.id_of(ev.pid.as_ref(), "pid");
        let tid = self.id_of(ev.tid.as_ref(), "tid");
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
        let inputs = if frame {
            None
        } else if self.scratch.has_dims || self.scratch.has_types {
            let candidates = self.input_ids.entry(self.scratch.hash()).or_default();
            let found = candidates
                .iter()
                .copied()
                .find(|&id| self.scratch.matches(&self.inputs[id as usize]));
            Some(found.unwrap_or_else(|| {
                let id = self.inputs.len() as u32;
                self.inputs.push(self.scratch.to_sig());
                candidates.push(id);
                id
            }))
        } else {
            None
        };
        let thread = self.threads.id(None, pid, tid);
        let name = self.names.id(name);
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

pub(crate) fn read_chrome_json(bytes: &[u8]) -> Result<IntervalSet, TraceError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    read_chrome(&mut de, &mut |_| None)
}

/// Stream Chrome JSON from a reader (a gzip stream): memory grows with the events kept,
/// never with the size of the text. `io_problem` turns a reader error (which the reader
/// recorded itself) into `Some(Ok(warning))` to keep the events before it, or
/// `Some(Err(error))`; `None` reports the JSON error.
pub(crate) fn read_chrome_json_from(
    reader: impl std::io::Read,
    io_problem: &mut dyn FnMut(&serde_json::Error) -> Option<Result<String, TraceError>>,
) -> Result<IntervalSet, TraceError> {
    let mut de =
        serde_json::Deserializer::from_reader(std::io::BufReader::with_capacity(1 << 16, reader));
    read_chrome(&mut de, io_problem)
}

pub(crate) fn read_chrome<'de, R: serde_json::de::Read<'de>>(
    de: &mut serde_json::Deserializer<R>,
    io_problem: &mut dyn FnMut(&serde_json::Error) -> Option<Result<String, TraceError>>,
) -> Result<IntervalSet, TraceError> {
    let mut b = Builder::default();
    let parsed = TopSeed(&mut b)
        .deserialize(&mut *de)
        .and_then(|()| de.end());
    if let Err(e) = parsed {
        let kept = b.counts.op_events;
        match io_problem(&e) {
            Some(Err(fatal)) => return Err(fatal),
            Some(Ok(message)) if kept > 0 => {
                b.warnings.add("truncated", || {
                    format!("{message}; kept the {kept} complete op events before it")
                });
            }
            Some(Ok(message)) => return Err(TraceError::Gzip(message)),
            None => {
                // The trace-event format lets the event array end without its `]` (a
                // killed profiler leaves it so): a cut after whole events is read, and
                // one with no op event before it is reported as such below.
                let cut_short = e.classify() == serde_json::error::Category::Eof;
                if !cut_short || b.counts.events == 0 {
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
    for t in &mut threads {
        t.host.clone_from(&b.host);
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
