//! Entry/exit pairing for LTTng op events, THAPI's rule: a LIFO stack of open entries
//! per (host, vpid, vtid); the exit pops the top and names the call (`name` or
//! `name.overload_name`). Unlike THAPI, entries never exited are reported, and an exit
//! whose name differs from the entry it closes is a warning.

use super::intervals::{
    ImportCounts, Interner, Interval, IntervalSet, ThreadTable, Unterminated, WarningLog,
};

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
                        self.warnings.add("negative_duration", || {
                            format!("line {line}: exit of {} is {} ns before its entry; duration set to 0", names[name_id as usize], dur.unsigned_abs())
                        });
                        dur = 0;
                    }
                    iv.dur_ns = dur;
                    iv.name = name_id;
                    if open.entry_name != name_id {
                        let names = &self.names.names;
                        self.warnings.add("name_mismatch", || {
                            format!(
                                "line {line}: exit of {} closes the entry of {} (pid {pid}, tid {tid}); named from the exit (babeltrace2 2.0.4 can print an entry with the overload name of an earlier call, so the exit's name is the call's)",
                                names[name_id as usize], names[open.entry_name as usize]
                            )
                        });
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
                    self.warnings.add("orphan_exit", || {
                        format!(
                            "line {line}: exit of {} without an entry (pid {pid}, tid {tid}); counted as a failed call",
                            names[name_id as usize]
                        )
                    });
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
        if !unterminated.is_empty() {
            let n = unterminated.len();
            let first = unterminated[0].name.clone();
            self.warnings.add("unterminated", || {
                let entries = if n == 1 { "entry" } else { "entries" };
                format!("{n} {entries} never exited (first: {first}); listed as unterminated, not counted")
            });
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
}
