//! Entry/exit pairing for LTTng op events, THAPI's rule: a LIFO stack of open entries
//! per (host, vpid, vtid); the exit pops the top and names the call (`name` or
//! `name.overload_name`). Unlike THAPI, entries never exited are reported, and an exit
//! whose name differs from the entry it closes is a warning.

use std::collections::BTreeSet;

use super::intervals::{
    ImportCounts, Interner, Interval, IntervalSet, ThreadTable, TraceWarning, Unterminated,
    WarningLog,
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

/// Where paired op events go: [`Pairer`] (intervals, for the model) or [`TallyPairer`]
/// (per-op totals only). Both apply the same rule and give the same warnings.
pub(crate) trait OpSink: Default + Send {
    #[allow(clippy::too_many_arguments)]
    fn event(
        &mut self,
        kind: OpEventKind,
        ts_ns: i64,
        host: Option<&str>,
        pid: i64,
        tid: i64,
        name: &str,
        overload: &str,
        line: usize,
    );
    /// Op events seen so far.
    fn op_events(&self) -> u64;
}

impl OpSink for Pairer {
    fn event(
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
        Pairer::event(self, kind, ts_ns, host, pid, tid, name, overload, line)
    }
    fn op_events(&self) -> u64 {
        self.counts.op_events
    }
}

/// An open call of the tally pairing.
#[derive(Debug, Clone, Copy)]
struct Frame {
    entry_name: u32,
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

/// The pairing of [`Pairer`] folded straight into the tally: each call is added to its
/// op's totals when it exits (its name is the exit's, its self time its duration minus
/// its closed children's), so only the open calls and one row per op are kept.
#[derive(Debug, Default)]
pub(crate) struct TallyPairer {
    threads: ThreadTable,
    names: Interner,
    stacks: Vec<Vec<Frame>>,
    /// Per thread: closed and failed calls.
    thread_calls: Vec<u64>,
    ops: Vec<OpTotals>,
    name_buf: String,
    clamps: u64,
    warnings: WarningLog,
    op_events: u64,
}

impl OpSink for TallyPairer {
    fn event(
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
        self.op_events += 1;
        let thread = self.threads.id(host, pid, tid) as usize;
        if thread >= self.stacks.len() {
            self.stacks.resize_with(thread + 1, Vec::new);
            self.thread_calls.resize(thread + 1, 0);
        }
        self.name_buf.clear();
        self.name_buf.push_str(name);
        if !overload.is_empty() {
            self.name_buf.push('.');
            self.name_buf.push_str(overload);
        }
        let name_id = self.names.id(&self.name_buf);
        if name_id as usize >= self.ops.len() {
            self.ops.resize(name_id as usize + 1, OpTotals::default());
        }
        match kind {
            OpEventKind::Entry => self.stacks[thread].push(Frame {
                entry_name: name_id,
                start_ns: ts_ns,
                child_ns: 0,
            }),
            OpEventKind::Exit => {
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
    pub(crate) fn finish(mut self) -> (TallyInput, Vec<TraceWarning>, u64) {
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
                name,
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
            OpSink::event(&mut tally, kind, ts, None, 7, tid, name, "", line + 1);
        }
        let (got, warnings, clamps) = tally.finish();
        // By hand: C 1..10 (9 ns, no children); P 0..5 (5 ns, its child took 9: self 0,
        // one clamp); X failed; B closes A: 30..25, negative, 0 ns. Thread 2 has no
        // closed call, so one thread is counted. Total descending, then name.
        let row = |name: &str, total, self_ns, errors, min: Option<i64>| TallyRow {
            name: name.to_string(),
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
