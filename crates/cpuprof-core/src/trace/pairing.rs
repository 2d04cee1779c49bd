//! Entry/exit pairing for LTTng op events, THAPI's rule: a LIFO stack of open entries
//! per (host, vpid, vtid); the exit pops the top and names the call (`name` or
//! `name.overload_name`). Unlike THAPI, entries never exited are reported, and an exit
//! whose name differs from the entry it closes is a warning.

use std::collections::BTreeSet;

use super::intervals::{
    FastMap, ImportCounts, Interner, Interval, IntervalSet, ThreadTable, TraceWarning,
    Unterminated, WarningLog,
};
use super::tally::{TallyInput, TallyRow};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpEventKind {
    Entry,
    Exit,
}

impl OpEventKind {
    /// Which op event an event (class) name is: `<provider ending in pytorch>:op_entry`
    /// or `:op_exit` (THAPI text, babeltrace2 text and CTF all name them so).
    pub fn of_event(event: &str) -> Option<OpEventKind> {
        let (provider, ev) = event.rsplit_once(':')?;
        if !provider.ends_with("pytorch") {
            return None;
        }
        match ev {
            "op_entry" => Some(OpEventKind::Entry),
            "op_exit" => Some(OpEventKind::Exit),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Open {
    slot: u32,
    entry_name: u32,
}

/// Marks an interval whose exit has not been seen yet.
const OPEN: i64 = -1;

#[derive(Debug, Default)]
pub(crate) struct Pairer {
    threads: ThreadTable,
    names: Interner,
    stacks: Vec<Vec<Open>>,
    intervals: Vec<Interval>,
    name_buf: String,
    pub(crate) warnings: WarningLog,
    pub(crate) counts: ImportCounts,
}

impl Pairer {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn event(
        &mut self,
        kind: OpEventKind,
        ts_ns: i64,
        host: Option<&str>,
        pid: i64,
        tid: i64,
        name: &str,
        overload: &str,
        line: usize,
    ) {
        self.counts.op_events += 1;
        let thread = self.threads.id(host, pid, tid);
        if thread as usize >= self.stacks.len() {
            self.stacks.resize_with(thread as usize + 1, Vec::new);
        }
        self.name_buf.clear();
        self.name_buf.push_str(name);
        if !overload.is_empty() {
            self.name_buf.push('.');
            self.name_buf.push_str(overload);
        }
        let name_id = self.names.id(&self.name_buf);
        match kind {
            OpEventKind::Entry => {
                let parent = self.stacks[thread as usize].last().map(|o| o.slot);
                let slot = self.intervals.len() as u32;
                self.intervals.push(Interval {
                    thread,
                    name: name_id,
                    start_ns: ts_ns,
                    dur_ns: OPEN,
                    err: false,
                    frame: false,
                    inputs: None,
                    parent,
                });
                self.stacks[thread as usize].push(Open {
                    slot,
                    entry_name: name_id,
                });
            }
            OpEventKind::Exit => match self.stacks[thread as usize].pop() {
                Some(open) => {
                    let iv = &mut self.intervals[open.slot as usize];
                    // Saturating: hostile inputs may put entry and exit centuries apart.
                    let mut dur = ts_ns.saturating_sub(iv.start_ns);
                    if dur < 0 {
                        let names = &self.names.names;
                        negative_duration(&mut self.warnings, line, &names[name_id as usize], dur);
                        dur = 0;
                    }
                    iv.dur_ns = dur;
                    iv.name = name_id;
                    if open.entry_name != name_id {
                        let names = &self.names.names;
                        name_mismatch(
                            &mut self.warnings,
                            line,
                            (&names[name_id as usize], &names[open.entry_name as usize]),
                            (pid, tid),
                        );
                    }
                }
                None => {
                    self.intervals.push(Interval {
                        thread,
                        name: name_id,
                        start_ns: ts_ns,
                        dur_ns: 0,
                        err: true,
                        frame: false,
                        inputs: None,
                        parent: None,
                    });
                    let names = &self.names.names;
                    orphan_exit(
                        &mut self.warnings,
                        line,
                        &names[name_id as usize],
                        (pid, tid),
                    );
                }
            },
        }
    }

    /// Close the books: open entries become `unterminated`, their slots are removed (their
    /// closed children become roots of the call tree).
    pub(crate) fn finish(mut self) -> IntervalSet {
        let mut unterminated = Vec::new();
        for (tid_idx, stack) in self.stacks.iter().enumerate() {
            let key = &self.threads.threads[tid_idx];
            for open in stack {
                let iv = &self.intervals[open.slot as usize];
                unterminated.push(Unterminated {
                    name: self.names.names[open.entry_name as usize].clone(),
                    host: key.host.clone(),
                    pid: key.pid,
                    tid: key.tid,
                    start_ns: iv.start_ns,
                });
            }
        }
        unterminated.sort_by_key(|u| u.start_ns);
        if let Some(first) = unterminated.first() {
            unterminated_warning(&mut self.warnings, unterminated.len(), &first.name);
        }
        let intervals = compact(self.intervals);
        IntervalSet {
            format: None,
            threads: self.threads.threads,
            names: self.names.names,
            inputs: Vec::new(),
            intervals,
            unterminated,
            warnings: self.warnings.finish(),
            counts: self.counts,
        }
    }
}

fn negative_duration(w: &mut WarningLog, line: usize, name: &str, dur: i64) {
    w.add("negative_duration", || {
        format!(
            "line {line}: exit of {name} is {} ns before its entry; duration set to 0",
            dur.unsigned_abs()
        )
    });
}

fn name_mismatch(
    w: &mut WarningLog,
    line: usize,
    (exit, entry): (&str, &str),
    (pid, tid): (i64, i64),
) {
    w.add("name_mismatch", || {
        format!(
            "line {line}: exit of {exit} closes the entry of {entry} (pid {pid}, tid {tid}); named from the exit (babeltrace2 2.0.4 can print an entry with the overload name of an earlier call, so the exit's name is the call's)"
        )
    });
}

fn orphan_exit(w: &mut WarningLog, line: usize, name: &str, (pid, tid): (i64, i64)) {
    w.add("orphan_exit", || {
        format!(
            "line {line}: exit of {name} without an entry (pid {pid}, tid {tid}); counted as a failed call"
        )
    });
}

fn unterminated_warning(w: &mut WarningLog, n: usize, first: &str) {
    w.add("unterminated", || {
        let entries = if n == 1 { "entry" } else { "entries" };
        format!("{n} {entries} never exited (first: {first}); listed as unterminated, not counted")
    });
}

/// One op event as a reader of raw fields hands it to an [`OpSink`]: the name and
/// overload as the bytes of the trace (made text only where a sink needs it).
#[derive(Debug, Clone, Copy)]
pub(crate) struct OpEvent<'a> {
    pub kind: OpEventKind,
    pub ts_ns: i64,
    /// The trace the event came from: events of one source share `host`.
    pub source: u32,
    pub host: Option<&'a str>,
    pub pid: i64,
    pub tid: i64,
    pub name: &'a [u8],
    pub overload: &'a [u8],
    /// Where it is in the input (for warnings: `line N`).
    pub line: usize,
}

/// Bytes as text: borrowed when they are UTF-8, lossily converted otherwise.
pub(crate) fn utf8(b: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(b),
    }
}

/// Where paired op events go: [`Pairer`] (intervals, for the model) or [`TallyPairer`]
/// (per-op totals only). Both apply the same rule and give the same warnings.
pub(crate) trait OpSink: Default + Send {
    fn event(&mut self, ev: &OpEvent<'_>);
    /// Op events seen so far.
    fn op_events(&self) -> u64;
}

impl OpSink for Pairer {
    fn event(&mut self, ev: &OpEvent<'_>) {
        let (name, overload) = (utf8(ev.name), utf8(ev.overload));
        Pairer::event(
            self, ev.kind, ev.ts_ns, ev.host, ev.pid, ev.tid, &name, &overload, ev.line,
        )
    }
    fn op_events(&self) -> u64 {
        self.counts.op_events
    }
}

/// An open call of the tally pairing.
#[derive(Debug, Clone, Copy)]
struct Frame {
    entry_name: u32,
    /// The entry's name and overload as [`RawNames`] knows them.
    raw: u32,
    start_ns: i64,
    /// Durations of the closed direct children (saturating).
    child_ns: i64,
}

/// One op's totals, as [`crate::trace::TraceProfile::build`] computes them from the
/// intervals (inclusive and self time saturating, min/max over successful calls).
#[derive(Debug, Clone, Copy, Default)]
struct OpTotals {
    calls: u64,
    errors: u64,
    total_ns: i64,
    self_ns: i64,
    min_ns: Option<i64>,
    max_ns: Option<i64>,
}

/// Op names by their bytes in the trace (name, then overload): each distinct pair is
/// made text and interned once. A lookup first tries a hint (the open entry an exit
/// closes, the op last entered at that depth of the thread) by comparing bytes, so a
/// model whose ops repeat in the same order is paired without hashing.
#[derive(Debug, Default)]
struct RawNames {
    ids: FastMap<Box<[u8]>, u32>,
    /// Per raw name: its key (name length as 4 bytes, name, overload) ...
    keys: Vec<Box<[u8]>>,
    /// ... and its op (the interned text `name` or `name.overload`).
    ops: Vec<u32>,
    key: Vec<u8>,
}

impl RawNames {
    fn matches(&self, raw: u32, name: &[u8], overload: &[u8]) -> bool {
        let k = &self.keys[raw as usize];
        k.len() == 4 + name.len() + overload.len()
            && k[..4] == (name.len() as u32).to_le_bytes()
            && k[4..4 + name.len()] == *name
            && k[4 + name.len()..] == *overload
    }

    fn id(&mut self, name: &[u8], overload: &[u8], hint: Option<u32>, ops: &mut Interner) -> u32 {
        if let Some(h) = hint {
            if self.matches(h, name, overload) {
                return h;
            }
        }
        self.key.clear();
        self.key
            .extend_from_slice(&(name.len() as u32).to_le_bytes());
        self.key.extend_from_slice(name);
        self.key.extend_from_slice(overload);
        if let Some(&raw) = self.ids.get(self.key.as_slice()) {
            return raw;
        }
        let mut text = utf8(name).into_owned();
        if !overload.is_empty() {
            text.push('.');
            text.push_str(&utf8(overload));
        }
        let raw = self.keys.len() as u32;
        self.ops.push(ops.id(&text));
        self.keys.push(self.key.as_slice().into());
        self.ids.insert(self.key.as_slice().into(), raw);
        raw
    }
}

/// The pairing of [`Pairer`] folded straight into the tally: each call is added to its
/// op's totals when it exits (its name is the exit's, its self time its duration minus
/// its closed children's), so only the open calls and one row per op are kept.
#[derive(Debug, Default)]
pub(crate) struct TallyPairer {
    threads: ThreadTable,
    /// (source, pid, tid) -> thread, and the last one looked up (a stream's events
    /// come from one thread at a time).
    thread_ids: FastMap<(u32, i64, i64), u32>,
    last_thread: Option<((u32, i64, i64), u32)>,
    names: Interner,
    raw: RawNames,
    stacks: Vec<Vec<Frame>>,
    /// Per thread and depth: the raw name last entered there.
    entry_hints: Vec<Vec<u32>>,
    /// Per thread: closed and failed calls.
    thread_calls: Vec<u64>,
    ops: Vec<OpTotals>,
    clamps: u64,
    warnings: WarningLog,
    op_events: u64,
}

impl TallyPairer {
    fn thread(&mut self, ev: &OpEvent<'_>) -> usize {
        let key = (ev.source, ev.pid, ev.tid);
        if let Some((k, t)) = self.last_thread {
            if k == key {
                return t as usize;
            }
        }
        let t = match self.thread_ids.get(&key) {
            Some(&t) => t,
            None => {
                let t = self.threads.id(ev.host, ev.pid, ev.tid);
                self.thread_ids.insert(key, t);
                t
            }
        };
        self.last_thread = Some((key, t));
        if t as usize >= self.stacks.len() {
            self.stacks.resize_with(t as usize + 1, Vec::new);
            self.entry_hints.resize_with(t as usize + 1, Vec::new);
            self.thread_calls.resize(t as usize + 1, 0);
        }
        t as usize
    }
}

impl OpSink for TallyPairer {
    fn event(&mut self, ev: &OpEvent<'_>) {
        self.op_events += 1;
        let thread = self.thread(ev);
        let depth = self.stacks[thread].len();
        let hint = match ev.kind {
            OpEventKind::Entry => self.entry_hints[thread].get(depth).copied(),
            OpEventKind::Exit => self.stacks[thread].last().map(|f| f.raw),
        };
        let raw = self.raw.id(ev.name, ev.overload, hint, &mut self.names);
        let name_id = self.raw.ops[raw as usize];
        if name_id as usize >= self.ops.len() {
            self.ops.resize(name_id as usize + 1, OpTotals::default());
        }
        let (line, pid, tid) = (ev.line, ev.pid, ev.tid);
        match ev.kind {
            OpEventKind::Entry => {
                let hints = &mut self.entry_hints[thread];
                if depth < hints.len() {
                    hints[depth] = raw;
                } else {
                    hints.push(raw);
                }
                self.stacks[thread].push(Frame {
                    entry_name: name_id,
                    raw,
                    start_ns: ev.ts_ns,
                    child_ns: 0,
                })
            }
            OpEventKind::Exit => {
                let ts_ns = ev.ts_ns;
                self.thread_calls[thread] += 1;
                let names = &self.names.names;
                let op = &mut self.ops[name_id as usize];
                op.calls += 1;
                let Some(open) = self.stacks[thread].pop() else {
                    op.errors += 1;
                    orphan_exit(
                        &mut self.warnings,
                        line,
                        &names[name_id as usize],
                        (pid, tid),
                    );
                    return;
                };
                let mut dur = ts_ns.saturating_sub(open.start_ns);
                if dur < 0 {
                    negative_duration(&mut self.warnings, line, &names[name_id as usize], dur);
                    dur = 0;
                }
                if open.entry_name != name_id {
                    name_mismatch(
                        &mut self.warnings,
                        line,
                        (&names[name_id as usize], &names[open.entry_name as usize]),
                        (pid, tid),
                    );
                }
                op.total_ns = op.total_ns.saturating_add(dur);
                let own = dur.saturating_sub(open.child_ns);
                if own < 0 {
                    self.clamps += 1;
                } else {
                    op.self_ns = op.self_ns.saturating_add(own);
                }
                op.min_ns = Some(op.min_ns.map_or(dur, |m| m.min(dur)));
                op.max_ns = Some(op.max_ns.map_or(dur, |m| m.max(dur)));
                if let Some(parent) = self.stacks[thread].last_mut() {
                    parent.child_ns = parent.child_ns.saturating_add(dur);
                }
            }
        }
    }
    fn op_events(&self) -> u64 {
        self.op_events
    }
}

impl TallyPairer {
    /// The tally (rows in tally order), the pairing's warnings (as [`Pairer::finish`]
    /// gives them) and the number of self times clamped to 0.
    pub(crate) fn finish(mut self) -> (TallyInput<'static>, Vec<TraceWarning>, u64) {
        // Entries never exited: as Pairer::finish lists them (thread order, then stack
        // order, stably sorted by start), only the count and the first are needed.
        let mut first: Option<(i64, u32)> = None;
        let mut open = 0usize;
        for f in self.stacks.iter().flatten() {
            open += 1;
            if first.is_none_or(|(t, _)| f.start_ns < t) {
                first = Some((f.start_ns, f.entry_name));
            }
        }
        if let Some((_, name)) = first {
            unterminated_warning(&mut self.warnings, open, &self.names.names[name as usize]);
        }
        let keys = self
            .threads
            .threads
            .iter()
            .zip(&self.thread_calls)
            .filter(|(_, &c)| c > 0)
            .map(|(k, _)| k);
        let hostnames = keys.clone().map(|k| &k.host).collect::<BTreeSet<_>>().len();
        let processes = keys.clone().map(|k| k.pid).collect::<BTreeSet<_>>().len();
        let threads = keys.map(|k| k.tid).collect::<BTreeSet<_>>().len();
        let mut rows: Vec<TallyRow> = self
            .ops
            .iter()
            .zip(self.names.names)
            .filter(|(o, _)| o.calls > 0)
            .map(|(o, name)| TallyRow {
                name: name.into(),
                total_ns: o.total_ns,
                self_ns: o.self_ns,
                calls: o.calls,
                errors: o.errors,
                min_ns: o.min_ns,
                max_ns: o.max_ns,
            })
            .collect();
        rows.sort_by(|a, b| {
            b.total_ns
                .cmp(&a.total_ns)
                .then_with(|| a.name.cmp(&b.name))
        });
        let input = TallyInput {
            hostnames,
            processes,
            threads,
            rows,
        };
        (input, self.warnings.finish(), self.clamps)
    }
}

/// Drop open slots, renumbering parents (a parent that is dropped becomes None).
fn compact(intervals: Vec<Interval>) -> Vec<Interval> {
    if intervals.iter().all(|iv| iv.dur_ns != OPEN) {
        return intervals;
    }
    let mut remap = vec![u32::MAX; intervals.len()];
    let mut out = Vec::with_capacity(intervals.len());
    for (i, iv) in intervals.into_iter().enumerate() {
        if iv.dur_ns == OPEN {
            continue;
        }
        remap[i] = out.len() as u32;
        let parent = iv
            .parent
            .map(|p| remap[p as usize])
            .filter(|&p| p != u32::MAX);
        out.push(Interval { parent, ..iv });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_and_exit_centuries_apart_saturate() {
        // Entry in 1677, exit in 2262: the true difference does not fit an i64.
        let mut p = Pairer::default();
        p.event(OpEventKind::Entry, i64::MIN + 1, None, 1, 1, "a", "", 1);
        p.event(OpEventKind::Exit, i64::MAX - 1, None, 1, 1, "a", "", 2);
        // And an exit far before its entry: a negative duration that saturates too.
        p.event(OpEventKind::Entry, i64::MAX - 1, None, 1, 1, "b", "", 3);
        p.event(OpEventKind::Exit, i64::MIN + 1, None, 1, 1, "b", "", 4);
        let set = p.finish();
        assert_eq!(set.intervals[0].dur_ns, i64::MAX);
        assert_eq!(set.intervals[1].dur_ns, 0);
        assert!(set.warnings.iter().any(|w| w.kind == "negative_duration"));
    }

    /// The tally pairing's byte-level names and caches against the model's pairing on
    /// random event sequences: threads of two traces taking turns at random, ops
    /// repeating and not, overloads, names that are not UTF-8 (two different byte
    /// strings with one lossy text are one op), orphan exits and mismatched names.
    #[test]
    fn the_tally_pairing_equals_the_model_s_on_random_sequences() {
        use crate::trace::tally::TallyInput;
        let names: [&[u8]; 6] = [
            b"aten::mm",
            b"aten::add",
            b"aten::add",
            b"a\xff",
            b"a\xfe",
            b"x",
        ];
        let overloads: [&[u8]; 3] = [b"", b"Tensor", b"\xff"];
        let hosts = [Some("n0"), None];
        let mut rng = cpuprof_testkit::rng::XorShift::new(0x2545_F491_4F6C_DD1D);
        let mut next = |n: u64| rng.below(n);
        for round in 0..50 {
            let mut model = Pairer::default();
            let mut tally = TallyPairer::default();
            let mut depth = [0usize; 6];
            let mut ts = 0i64;
            for line in 1..=400 {
                let t = next(6) as usize;
                let source = (t % 2) as u32;
                // Mostly well nested, sometimes an exit with no entry or another name.
                let entry = depth[t] == 0 && next(8) != 0 || depth[t] < 4 && next(2) == 0;
                let kind = if entry {
                    depth[t] += 1;
                    OpEventKind::Entry
                } else {
                    depth[t] = depth[t].saturating_sub(1);
                    OpEventKind::Exit
                };
                // Round 0: one op everywhere (every hint hits); later rounds: random.
                let name = if round == 0 {
                    names[0]
                } else {
                    names[next(6) as usize]
                };
                let overload = overloads[next(3) as usize];
                ts += next(100) as i64 - 10;
                let ev = OpEvent {
                    kind,
                    ts_ns: ts,
                    source,
                    host: hosts[source as usize],
                    pid: 3,
                    tid: (t / 2) as i64,
                    name,
                    overload,
                    line,
                };
                OpSink::event(&mut model, &ev);
                OpSink::event(&mut tally, &ev);
            }
            let (got, mut warnings, clamps) = tally.finish();
            let profile = crate::trace::TraceProfile::build(model.finish(), "t");
            assert_eq!(got, TallyInput::from_profile(&profile), "round {round}");
            warnings.extend(crate::trace::model::self_time_clamped(clamps));
            assert_eq!(warnings, profile.warnings, "round {round}");
        }
    }

    /// Every case of the rule at once: a child ending after its parent (self time
    /// clamped), an exit without entry, an exit closing an entry of another name before
    /// it (negative duration), and an entry never exited on another thread.
    #[test]
    fn the_tally_pairing_gives_the_model_s_tally() {
        use crate::trace::tally::{TallyInput, TallyRow};
        use OpEventKind::{Entry, Exit};
        let events: [(OpEventKind, i64, i64, &str); 8] = [
            (Entry, 0, 1, "P"),
            (Entry, 1, 1, "C"),
            (Exit, 10, 1, "C"),
            (Exit, 5, 1, "P"),
            (Exit, 20, 1, "X"),
            (Entry, 30, 1, "A"),
            (Exit, 25, 1, "B"),
            (Entry, 40, 2, "U"),
        ];
        let mut intervals = Pairer::default();
        let mut tally = TallyPairer::default();
        for (line, &(kind, ts, tid, name)) in events.iter().enumerate() {
            intervals.event(kind, ts, None, 7, tid, name, "", line + 1);
            OpSink::event(
                &mut tally,
                &OpEvent {
                    kind,
                    ts_ns: ts,
                    source: 0,
                    host: None,
                    pid: 7,
                    tid,
                    name: name.as_bytes(),
                    overload: b"",
                    line: line + 1,
                },
            );
        }
        let (got, warnings, clamps) = tally.finish();
        // By hand: C 1..10 (9 ns, no children); P 0..5 (5 ns, its child took 9: self 0,
        // one clamp); X failed; B closes A: 30..25, negative, 0 ns. Thread 2 has no
        // closed call, so one thread is counted. Total descending, then name.
        let row = |name: &'static str, total, self_ns, errors, min: Option<i64>| TallyRow {
            name: name.into(),
            total_ns: total,
            self_ns,
            calls: 1,
            errors,
            min_ns: min,
            max_ns: min,
        };
        let want = TallyInput {
            hostnames: 1,
            processes: 1,
            threads: 1,
            rows: vec![
                row("C", 9, 9, 0, Some(9)),
                row("P", 5, 0, 0, Some(5)),
                row("B", 0, 0, 0, Some(0)),
                row("X", 0, 0, 1, None),
            ],
        };
        assert_eq!(got, want);
        assert_eq!(clamps, 1);
        let kinds: Vec<&str> = warnings.iter().map(|w| w.kind.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "orphan_exit",
                "negative_duration",
                "name_mismatch",
                "unterminated"
            ]
        );
        // The interval pairing and the model agree, warnings included.
        let profile = crate::trace::TraceProfile::build(intervals.finish(), "t");
        assert_eq!(TallyInput::from_profile(&profile), want);
        let mut all = warnings;
        all.extend(crate::trace::model::self_time_clamped(clamps));
        assert_eq!(all, profile.warnings);
    }
}
