//! Trace Event Format JSON (`{"traceEvents": [...]}`), the format Perfetto and
//! chrome://tracing open: one complete event (`ph: "X"`, `ts`/`dur` in µs with ns
//! decimals) per kept ETDump event or per paired trace call, metadata events naming
//! processes and threads.
//!
//! Perfetto drops slices that overlap on one track without nesting, so tracks come from
//! [`assign_tracks`]: the main track of a process (or thread) holds every event that lies
//! inside its parent and after its earlier siblings; the rest (XNNPACK operators whose
//! synthesized start falls outside their step, calls overlapping a sibling) go, unchanged,
//! to extra tracks, and say why in `args.moved`.

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::Arc;

use crate::profile::{Timeline, TimelineKind, TimelineRun};
use crate::timeline::{assign_tracks, Span, TraceTimeline};

/// Writes `{"traceEvents":[...]...}` one event per line.
struct EventWriter<'a> {
    w: &'a mut dyn Write,
    first: bool,
}

impl<'a> EventWriter<'a> {
    fn begin(w: &'a mut dyn Write) -> io::Result<Self> {
        w.write_all(b"{\"traceEvents\":[\n")?;
        Ok(EventWriter { w, first: true })
    }

    fn event(&mut self, body: &str) -> io::Result<()> {
        if !self.first {
            self.w.write_all(b",\n")?;
        }
        self.first = false;
        self.w.write_all(body.as_bytes())
    }

    fn end(self, other: &serde_json::Value) -> io::Result<()> {
        write!(
            self.w,
            "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{other}}}\n"
        )
    }
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}

/// ns as µs with exactly three decimals (exact, no float rounding).
pub fn micros(ns: i64) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let a = ns.unsigned_abs();
    format!("{sign}{}.{:03}", a / 1000, a % 1000)
}

fn meta(pid: u32, tid: u32, name: &str, args: &str) -> String {
    format!("{{\"ph\":\"M\",\"pid\":{pid},\"tid\":{tid},\"name\":\"{name}\",\"args\":{args}}}")
}

fn shapes_json(s: &[Vec<i64>]) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "[]".to_string())
}

/// The chosen runs of a dump's timeline. `runs` are written in time order.
pub fn write_dump_chrome(
    w: &mut dyn Write,
    tl: &Timeline,
    runs: &[&TimelineRun],
    source: &str,
) -> io::Result<()> {
    let mut runs: Vec<&TimelineRun> = runs.to_vec();
    runs.sort_by_key(|r| (r.span().map_or(u64::MAX, |s| s.0), r.index));
    let origin = runs
        .iter()
        .filter_map(|r| r.span().map(|s| s.0))
        .min()
        .unwrap_or(0);
    let mut out = EventWriter::begin(w)?;
    // Several methods (run signatures): one process per method, on one time axis.
    let several = tl.methods.len() > 1;
    let labels = super::folded::entry_labels(tl);
    for m in 0..tl.methods.len().max(1) {
        let mine: Vec<&TimelineRun> = runs
            .iter()
            .copied()
            .filter(|r| !several || r.method == m)
            .collect();
        if mine.is_empty() {
            continue;
        }
        let (process, method) = match tl.methods.get(m) {
            Some(name) if several => (format!("ETDump {source} · {name}"), Some(name.as_str())),
            _ => (format!("ETDump {source}"), None),
        };
        let process = Process {
            pid: m as u32 + 1,
            name: &process,
            method,
            origin,
        };
        write_dump_process(&mut out, tl, &labels, &mine, &process)?;
    }
    let mut other = serde_json::json!({
        "generator": "cpuprof-tui",
        "source": source,
        "runs": runs.iter().map(|r| r.index).collect::<Vec<_>>(),
        "runs_total": tl.runs.len(),
        "warmup": tl.warmup,
        "time_origin_ns": origin,
        "unattributed_events": tl.unmatched_events,
    });
    if several {
        other["methods"] = serde_json::json!(tl.methods);
    }
    out.end(&other)
}

/// One process of a dump's export.
struct Process<'a> {
    pid: u32,
    name: &'a str,
    method: Option<&'a str>,
    origin: u64,
}

/// One process (`pid`) of a dump's export: the runs of one method (or all runs). Events
/// are named by `labels` (the explorer tree's names: `delegate #22`, `OPERATOR_CALL #6`).
fn write_dump_process(
    out: &mut EventWriter<'_>,
    tl: &Timeline,
    labels: &[String],
    runs: &[&TimelineRun],
    process: &Process<'_>,
) -> io::Result<()> {
    let (pid, method, origin) = (process.pid, process.method, process.origin);
    let process = process.name;
    let rel = |t: u64| i64::try_from(t.saturating_sub(origin)).unwrap_or(i64::MAX);
    let mut spans: Vec<Span> = Vec::new();
    let mut owner: Vec<(usize, usize)> = Vec::new(); // (run position, event index)
    for (k, run) in runs.iter().enumerate() {
        let offset = spans.len() as u32;
        for (i, e) in run.events.iter().enumerate() {
            spans.push(Span {
                start: rel(e.start_ns),
                end: rel(e.end_ns()),
                parent: e.parent.map(|p| p + offset),
            });
            owner.push((k, i));
        }
    }
    let tracks = assign_tracks(&spans);
    let extra = tracks.iter().map(|t| t.0).max().unwrap_or(0);

    out.event(&meta(
        pid,
        0,
        "process_name",
        &format!("{{\"name\":{}}}", json_str(process)),
    ))?;
    for t in 0..=extra {
        let name = if t == 0 {
            "Method::execute > delegate > plan step > operator".to_string()
        } else {
            format!("moved events {t} (outside their parent or overlapping a sibling)")
        };
        out.event(&meta(
            pid,
            t + 1,
            "thread_name",
            &format!("{{\"name\":{}}}", json_str(&name)),
        ))?;
        out.event(&meta(
            pid,
            t + 1,
            "thread_sort_index",
            &format!("{{\"sort_index\":{t}}}"),
        ))?;
    }
    let mut line = String::with_capacity(512);
    for (j, span) in spans.iter().enumerate() {
        let (k, i) = owner[j];
        let run = runs[k];
        let e = &run.events[i];
        let entry = tl.entry(e);
        line.clear();
        use std::fmt::Write as _;
        let _ = write!(
            line,
            "{{\"ph\":\"X\",\"pid\":{pid},\"tid\":{},\"name\":{},\"cat\":\"{}\",\"ts\":{},\"dur\":{},\"args\":{{\"run\":{}",
            tracks[j].0 + 1,
            json_str(&labels[e.entry as usize]),
            entry.kind.label(),
            micros(span.start),
            micros(span.end.saturating_sub(span.start)),
            run.index
        );
        if run.warmup {
            line.push_str(",\"warmup\":true");
        }
        if let Some(m) = method {
            let _ = write!(line, ",\"method\":{}", json_str(m));
        }
        if let Some(id) = entry.instruction_id {
            let _ = write!(line, ",\"instruction_id\":{id}");
            if entry.in_delegate {
                let _ = write!(line, ",\"delegate\":{id}");
            }
        }
        let step = match entry.kind {
            TimelineKind::Step => Some(entry.name.as_str()),
            _ => entry.step.map(|s| tl.entries[s as usize].name.as_str()),
        };
        if let Some(step) = step {
            let _ = write!(line, ",\"step\":{}", json_str(step));
        }
        if let Some(s) = &entry.input_shapes {
            let _ = write!(line, ",\"input_shapes\":{}", shapes_json(s));
        }
        if let Some(s) = &entry.output_shapes {
            let _ = write!(line, ",\"output_shapes\":{}", shapes_json(s));
        }
        if entry.kind == TimelineKind::XnnpackOperator {
            line.push_str(",\"synthesized_start\":true");
        }
        if let Some(m) = tracks[j].1 {
            let _ = write!(line, ",\"moved\":\"{}\"", m.label());
        }
        line.push_str("}}");
        out.event(&line)?;
    }
    Ok(())
}

/// One complete event per paired call of a trace, one main track per thread; failed calls
/// (exits without entry) and entries never exited are instant events with `args.failed`
/// or `args.unterminated`.
pub fn write_trace_chrome(w: &mut dyn Write, tt: &TraceTimeline, source: &str) -> io::Result<()> {
    let set = &tt.set;
    let origin = set
        .intervals
        .iter()
        .map(|iv| iv.start_ns)
        .chain(set.unterminated.iter().map(|u| u.start_ns))
        .min()
        .unwrap_or(0);
    let rel = |t: i64| t.saturating_sub(origin);
    // Intervals per thread, each thread's parents mapped into its own list.
    // Failed calls (an exit without entry) were never paired: they are marked with an
    // instant event, not given a complete event.
    let mut per_thread: Vec<Vec<u32>> = vec![Vec::new(); set.threads.len()];
    let mut failed: Vec<Vec<u32>> = vec![Vec::new(); set.threads.len()];
    for (i, iv) in set.intervals.iter().enumerate() {
        let list = if iv.err { &mut failed } else { &mut per_thread };
        if let Some(v) = list.get_mut(iv.thread as usize) {
            v.push(i as u32);
        }
    }
    // Process ids: one per (host, pid), numbered from 1 in first-seen order.
    let mut processes: HashMap<(Option<Arc<str>>, i64), u32> = HashMap::new();
    let pid_of = |processes: &mut HashMap<(Option<Arc<str>>, i64), u32>,
                  host: &Option<Arc<str>>,
                  pid: i64| {
        let next = processes.len() as u32 + 1;
        *processes.entry((host.clone(), pid)).or_insert(next)
    };
    // Thread of each unterminated entry, by key (not a scan per entry).
    let thread_index: HashMap<&crate::trace::ThreadKey, usize> = set
        .threads
        .iter()
        .enumerate()
        .map(|(i, k)| (k, i))
        .collect();
    let mut out = EventWriter::begin(w)?;
    let mut next_tid: u32 = 1;
    let mut main_tid: Vec<Option<(u32, u32)>> = vec![None; set.threads.len()];
    let mut line = String::with_capacity(512);
    // Position of each interval within its thread's list (parents share the thread).
    let mut local = vec![u32::MAX; set.intervals.len()];
    for (t, ids) in per_thread.iter().enumerate() {
        let key = &set.threads[t];
        let known = processes.len();
        let pid = pid_of(&mut processes, &key.host, key.pid);
        if processes.len() > known {
            let name = match &key.host {
                Some(h) => format!("{h} pid {}", key.pid),
                None => format!("pid {}", key.pid),
            };
            out.event(&meta(
                pid,
                0,
                "process_name",
                &format!("{{\"name\":{}}}", json_str(&name)),
            ))?;
        }
        if ids.is_empty() && failed[t].is_empty() {
            continue;
        }
        let mut spans = Vec::with_capacity(ids.len());
        for (j, &i) in ids.iter().enumerate() {
            local[i as usize] = j as u32;
            let iv = &set.intervals[i as usize];
            let start = rel(iv.start_ns);
            spans.push(Span {
                start,
                end: start.saturating_add(iv.dur_ns.max(0)),
                parent: iv
                    .parent
                    .filter(|&p| {
                        set.intervals
                            .get(p as usize)
                            .is_some_and(|q| q.thread == iv.thread)
                    })
                    .map(|p| local[p as usize])
                    .filter(|&p| p != u32::MAX),
            });
        }
        let tracks = assign_tracks(&spans);
        let extra = tracks.iter().map(|t| t.0).max().unwrap_or(0);
        let base = next_tid;
        next_tid += extra + 1;
        main_tid[t] = Some((pid, base));
        for k in 0..=extra {
            let name = if k == 0 {
                format!("tid {}", key.tid)
            } else {
                format!("tid {} overlapping calls {k}", key.tid)
            };
            out.event(&meta(
                pid,
                base + k,
                "thread_name",
                &format!("{{\"name\":{}}}", json_str(&name)),
            ))?;
        }
        for (j, &i) in ids.iter().enumerate() {
            let iv = &set.intervals[i as usize];
            let span = &spans[j];
            line.clear();
            use std::fmt::Write as _;
            let _ = write!(
                line,
                "{{\"ph\":\"X\",\"pid\":{pid},\"tid\":{},\"name\":{},\"cat\":\"op\",\"ts\":{},\"dur\":{},\"args\":{{\"depth\":{},\"pid\":{},\"tid\":{}",
                base + tracks[j].0,
                json_str(set.name(iv)),
                micros(span.start),
                micros(span.end.saturating_sub(span.start)),
                tt.depth.get(i as usize).copied().unwrap_or(0),
                key.pid,
                key.tid,
            );
            if let Some(h) = &key.host {
                let _ = write!(line, ",\"host\":{}", json_str(h));
            }
            if let Some(sig) = set.input_sig(iv) {
                let _ = write!(line, ",\"input_shapes\":{}", shapes_json(&sig.shapes));
                let types = serde_json::to_string(&sig.types).unwrap_or_else(|_| "[]".into());
                let _ = write!(line, ",\"input_types\":{types}");
            }
            if let Some(m) = tracks[j].1 {
                let _ = write!(line, ",\"moved\":\"{}\"", m.label());
            }
            line.push_str("}}");
            out.event(&line)?;
        }
        for &i in &failed[t] {
            let iv = &set.intervals[i as usize];
            out.event(&format!(
                "{{\"ph\":\"i\",\"s\":\"t\",\"pid\":{pid},\"tid\":{base},\"name\":{},\"cat\":\"op\",\"ts\":{},\"args\":{{\"failed\":true,\"pid\":{},\"tid\":{}}}}}",
                json_str(set.name(iv)),
                micros(rel(iv.start_ns)),
                key.pid,
                key.tid
            ))?;
        }
    }
    for u in &set.unterminated {
        let t = thread_index
            .get(&crate::trace::ThreadKey {
                host: u.host.clone(),
                pid: u.pid,
                tid: u.tid,
            })
            .copied();
        let (pid, tid) = match t.and_then(|t| main_tid[t]) {
            Some(ids) => ids,
            None => {
                let known = processes.len();
                let pid = pid_of(&mut processes, &u.host, u.pid);
                if processes.len() > known {
                    out.event(&meta(
                        pid,
                        0,
                        "process_name",
                        &format!("{{\"name\":{}}}", json_str(&format!("pid {}", u.pid))),
                    ))?;
                }
                let tid = next_tid;
                next_tid += 1;
                if let Some(t) = t {
                    main_tid[t] = Some((pid, tid));
                }
                out.event(&meta(
                    pid,
                    tid,
                    "thread_name",
                    &format!("{{\"name\":{}}}", json_str(&format!("tid {}", u.tid))),
                ))?;
                (pid, tid)
            }
        };
        out.event(&format!(
            "{{\"ph\":\"i\",\"s\":\"t\",\"pid\":{pid},\"tid\":{tid},\"name\":{},\"cat\":\"op\",\"ts\":{},\"args\":{{\"unterminated\":true,\"pid\":{},\"tid\":{}}}}}",
            json_str(&u.name),
            micros(rel(u.start_ns)),
            u.pid,
            u.tid
        ))?;
    }
    let other = serde_json::json!({
        "generator": "cpuprof-tui",
        "source": source,
        "time_origin_ns": origin,
        "calls": set.intervals.len(),
        "failed_calls": set.intervals.iter().filter(|iv| iv.err).count(),
        "unterminated": set.unterminated.len(),
    });
    out.end(&other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn micros_are_exact() {
        assert_eq!(micros(0), "0.000");
        assert_eq!(micros(1), "0.001");
        assert_eq!(micros(1_234_567), "1234.567");
        assert_eq!(micros(-1_500), "-1.500");
    }
}
