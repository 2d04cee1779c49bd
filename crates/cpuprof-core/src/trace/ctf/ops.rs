//! Op events of a CTF directory, paired as they come, on two threads: this thread decodes
//! and merges the streams and the op events go in batches to a second thread that pairs
//! them (string interning is about half the work), so decoding and pairing overlap. The pairing is either the interval pairing of every
//! reader ([`read_dir_intervals`], for the model) or the tally pairing ([`tally_dir`]),
//! which keeps per-op totals and the open calls only: memory follows the ops and the
//! nesting depth, not the events.

use std::path::Path;

use super::super::detect::TraceFormat;
use super::super::error::TraceError;
use super::super::intervals::{ImportCounts, IntervalSet, TraceWarning, WarningLog};
use super::super::model::TraceProfile;
use super::super::pairing::{OpEvent, OpEventKind, OpSink, Pairer, TallyPairer};
use super::super::tally::TallyInput;
use super::decode::Value;
use super::flat::{FlatPlan, OpFieldIds, OpFields};
use super::{for_each_event_log, open_traces_log, CtfTrace};

const BATCH: usize = 4096;

/// What an event is to the pairing.
#[derive(Clone, Copy)]
enum Item<'a> {
    /// Not an op event: an event of this class of this trace.
    Ignored { trace: usize, class: usize },
    /// An op event without a `name` string.
    NoName { ignored_fields: u32 },
    /// An op event (its `line` is set in merge order).
    Op {
        ev: OpEvent<'a>,
        ignored_fields: u32,
        missing_ctx: bool,
    },
}

/// Tells what each event is to the pairing, per trace: the kind of each event class,
/// the ids of the fields the pairing takes, the host.
struct Classifier<'c> {
    kinds: &'c [Vec<Option<OpEventKind>>],
    ids: &'c [OpFieldIds],
    hosts: &'c [Option<String>],
    /// Per trace: the `vpid` of its environment (LTTng's per-process traces), for op
    /// events without one in their context.
    env_pids: &'c [Option<i64>],
}

impl<'c> Classifier<'c> {
    // Always inlined: on the serial path the `Item` then lives in registers instead of
    // being written out and copied again (80 instructions an event otherwise).
    #[inline(always)]
    fn item<'a>(&self, ev: &super::CtfEvent<'_, 'a>) -> Item<'a>
    where
        'c: 'a,
    {
        let ti = ev.trace_index;
        let Some(kind) = self.kinds[ti][ev.pos.class] else {
            return Item::Ignored {
                trace: ti,
                class: ev.pos.class,
            };
        };
        let fields = match ev.op_fields() {
            Some(f) => *f,
            None => {
                let mut f = OpFields::default();
                for l in ev.leaves[ev.pos.ctx_start..].iter().filter(|l| l.top) {
                    f.take(self.ids[ti].role(l.name), l.value);
                }
                f
            }
        };
        let Some(Value::S(name)) = fields.name else {
            return Item::NoName {
                ignored_fields: fields.ignored,
            };
        };
        let pid = fields.pid.or(self.env_pids[ti]);
        Item::Op {
            ignored_fields: fields.ignored,
            missing_ctx: pid.is_none() || fields.tid.is_none(),
            ev: OpEvent {
                kind,
                ts_ns: ev.ts_ns,
                source: ti as u32,
                host: self.hosts[ti].as_deref(),
                pid: pid.unwrap_or(-1),
                tid: fields.tid.unwrap_or(-1),
                name,
                overload: match fields.overload {
                    Some(Value::S(o)) => o,
                    _ => b"",
                },
                line: 0,
            },
        }
    }
}

/// The counts over the events, in merge order.
struct Tally<'c> {
    counts: ImportCounts,
    /// Per trace, per event class: the events that are not op events.
    ignored: &'c mut [Vec<u64>],
    missing_ctx: u64,
    no_name: u64,
}

impl Tally<'_> {
    /// Counts one more event; its op event, numbered, if it is one to pair.
    #[inline]
    fn take<'a>(&mut self, item: &Item<'a>) -> Option<OpEvent<'a>> {
        self.counts.events += 1;
        match *item {
            Item::Ignored { trace, class } => {
                self.ignored[trace][class] += 1;
                self.counts.ignored_events += 1;
                None
            }
            Item::NoName { ignored_fields } => {
                self.counts.ignored_fields += u64::from(ignored_fields);
                self.no_name += 1;
                self.counts.malformed += 1;
                None
            }
            Item::Op {
                mut ev,
                ignored_fields,
                missing_ctx,
            } => {
                self.counts.ignored_fields += u64::from(ignored_fields);
                self.missing_ctx += u64::from(missing_ctx);
                ev.line = self.counts.events as usize;
                Some(ev)
            }
        }
    }
}

/// What decoding a directory into a sink gives besides the sink: the decoding warnings
/// (discarded events, skipped packets, ignored kinds, ..) and the counts.
struct Decoded<S> {
    sink: S,
    warnings: WarningLog,
    counts: ImportCounts,
    traces: usize,
}

/// Decode every stream of the directory, merged in time order, and feed the op events
/// to a sink on a second thread.
fn decode_into<S: OpSink>(root: &Path, limit: u64) -> Result<Decoded<S>, TraceError> {
    let mut warnings = WarningLog::default();
    let traces = open_traces_log(root, limit, &mut warnings)?;
    let (sink, counts) = pair_streams::<S>(&traces, &mut warnings)?;
    if sink.op_events() == 0 {
        return Err(TraceError::NoEvents(format!(
            "{} events in {} trace director{}, none of them lttng_ust_pytorch:op_entry/op_exit",
            counts.events,
            traces.len(),
            if traces.len() == 1 { "y" } else { "ies" }
        )));
    }
    Ok(Decoded {
        counts: ImportCounts {
            op_events: sink.op_events(),
            ..counts
        },
        sink,
        warnings,
        traces: traces.len(),
    })
}

fn pair_streams<S: OpSink>(
    traces: &[CtfTrace],
    warnings: &mut WarningLog,
) -> Result<(S, ImportCounts), TraceError> {
    // Per trace: name ids of the fields the pairing needs, the flat plans of its event
    // classes, and a counter per event class.
    let ids: Vec<OpFieldIds> = traces.iter().map(|t| OpFieldIds::of(&t.meta)).collect();
    let plans: Vec<Vec<Option<FlatPlan>>> = traces
        .iter()
        .zip(&ids)
        .map(|(t, ids)| t.compiled.flat_plans(&t.meta, ids))
        .collect();
    let mut ignored: Vec<Vec<u64>> = traces
        .iter()
        .map(|t| vec![0; t.meta.events.len()])
        .collect();
    let kinds: Vec<Vec<Option<OpEventKind>>> = traces
        .iter()
        .map(|t| {
            t.meta
                .events
                .iter()
                .map(|e| OpEventKind::of_event(&e.name))
                .collect()
        })
        .collect();
    let hosts: Vec<Option<String>> = traces
        .iter()
        .map(|t| t.meta.env_str("hostname").map(str::to_string))
        .collect();
    let env_pids: Vec<Option<i64>> = traces.iter().map(|t| t.meta.env_int("vpid")).collect();
    // What each event is, from its fields alone (so it can be found on the thread
    // that decodes); the counts and line numbers are kept in merge order.
    let classifier = Classifier {
        kinds: &kinds,
        ids: &ids,
        hosts: &hosts,
        env_pids: &env_pids,
    };
    let mut tally = Tally {
        counts: ImportCounts::default(),
        ignored: &mut ignored,
        missing_ctx: 0,
        no_name: 0,
    };
    let mut decoded = Ok(());
    // Two stages on two threads: this one decodes and merges the streams, the other
    // pairs op events. Batches go through a bounded channel and come back empty for
    // reuse, so memory stays flat.
    let paired = std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<OpEvent<'_>>>(4);
        let (back_tx, back_rx) = std::sync::mpsc::sync_channel::<Vec<OpEvent<'_>>>(8);
        let worker = scope.spawn(move || {
            let mut sink = S::default();
            for mut batch in rx {
                for ev in &batch {
                    sink.event(ev);
                }
                batch.clear();
                let _ = back_tx.try_send(batch);
            }
            sink
        });
        let mut batch: Vec<OpEvent<'_>> = Vec::with_capacity(BATCH);
        decoded = for_each_event_log(traces, Some(&plans), warnings, |ev| {
            let Some(op) = tally.take(&classifier.item(ev)) else {
                return;
            };
            batch.push(op);
            if batch.len() == BATCH {
                let next = back_rx
                    .try_recv()
                    .unwrap_or_else(|_| Vec::with_capacity(BATCH));
                let _ = tx.send(std::mem::replace(&mut batch, next));
            }
        });
        if !batch.is_empty() {
            let _ = tx.send(batch);
        }
        drop(tx);
        worker.join()
    });
    let Tally {
        counts,
        missing_ctx,
        no_name,
        ..
    } = tally;
    decoded?;
    let sink =
        paired.map_err(|_| TraceError::Ctf("internal error: the pairing thread stopped".into()))?;
    if no_name > 0 {
        warnings.add("malformed", || {
            format!("{no_name} op events without a `name` string field; skipped")
        });
    }
    if missing_ctx > 0 {
        warnings.add("missing_context", || {
            format!("{missing_ctx} op events without vpid/vtid context; put on thread -1")
        });
    }
    let mut ignored_kinds: Vec<(String, u64)> = Vec::new();
    for (t, counts) in traces.iter().zip(&ignored) {
        for (e, &n) in t.meta.events.iter().zip(counts) {
            if n == 0 {
                continue;
            }
            match ignored_kinds.iter_mut().find(|(k, _)| *k == e.name) {
                Some((_, c)) => *c += n,
                None => ignored_kinds.push((e.name.clone(), n)),
            }
        }
    }
    if !ignored_kinds.is_empty() {
        ignored_kinds.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let total: u64 = ignored_kinds.iter().map(|(_, n)| n).sum();
        let list = ignored_kinds
            .iter()
            .map(|(k, n)| format!("{k} ({n})"))
            .collect::<Vec<_>>()
            .join(", ");
        warnings.add("ignored_events", || {
            format!("{total} events of other kinds ignored: {list}")
        });
    }
    Ok((sink, counts))
}

/// The decoding warnings, then the pairing's (which name positions `line N`; in a CTF
/// trace N is the event's ordinal).
fn join_warnings(decoding: WarningLog, mut pairing: Vec<TraceWarning>) -> Vec<TraceWarning> {
    for w in &mut pairing {
        if let Some(rest) = w.message.strip_prefix("line ") {
            w.message = format!("event {rest}");
        }
    }
    let mut all = decoding.finish();
    all.append(&mut pairing);
    all
}

/// The reader stage for a CTF directory: op events paired into intervals. `limit`: the
/// most bytes read or mapped of any one file (`--max-input-size`).
pub fn read_dir_intervals(root: &Path, limit: u64) -> Result<IntervalSet, TraceError> {
    let Decoded {
        sink: mut pairer,
        warnings,
        counts,
        ..
    } = decode_into::<Pairer>(root, limit)?;
    pairer.counts = counts;
    let mut set = pairer.finish();
    set.warnings = join_warnings(warnings, std::mem::take(&mut set.warnings));
    set.format = Some(TraceFormat::CtfDir);
    Ok(set)
}

/// Import a CTF trace directory into the trace model.
pub fn load_dir(root: &Path, limit: u64) -> Result<TraceProfile, TraceError> {
    read_dir_intervals(root, limit).map(|set| TraceProfile::build(set, &root.display().to_string()))
}

/// The iprof tally of a CTF directory without the model: what
/// the tally of `load_dir(root, limit)?`'s rows gives, and the profile's warnings, in
/// memory that follows the ops and open calls (no interval per call, no samples).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CtfTally {
    pub tally: TallyInput<'static>,
    /// As [`TraceProfile::warnings`] of the same directory, in the same order.
    pub warnings: Vec<TraceWarning>,
    pub counts: ImportCounts,
    /// Trace directories read.
    pub traces: usize,
}

/// Decode a CTF directory straight into its tally ([`CtfTally`]).
pub fn tally_dir(root: &Path, limit: u64) -> Result<CtfTally, TraceError> {
    let Decoded {
        sink,
        warnings,
        counts,
        traces,
    } = decode_into::<TallyPairer>(root, limit)?;
    let (tally, pairing, clamps) = sink.finish();
    let mut warnings = join_warnings(warnings, pairing);
    if let Some(w) = super::super::model::self_time_clamped(clamps) {
        warnings.push(w);
    }
    Ok(CtfTally {
        tally,
        warnings,
        counts,
        traces,
    })
}
