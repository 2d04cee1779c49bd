//! Folded stacks (`frame;frame;frame VALUE`), the text flame-graph tools read: one line
//! per distinct stack, VALUE = self time in integer ns summed over the exported runs.
//!
//! Exactness: times are integer ns (ETDump ticks, trace ns) and never rounded. Self time
//! is computed by [`self_times`], which clips each child into its parent and after its
//! earlier siblings, so a tree's self times add up to its root's duration exactly and none
//! is negative; the values therefore add up to the total of `Method::execute` over the
//! runs (dumps) or of the top-level calls (traces). Stacks whose self time is 0 are left
//! out. Lines are sorted by stack. A dump of several methods (run signatures) puts each
//! run's stacks under a frame naming its method (`encode;Method::execute;...`). `;` in a
//! name becomes `:`, line breaks become spaces and other control characters `\xNN`, so
//! every frame stays one frame and no input byte can steer a terminal.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};

use crate::profile::{Timeline, TimelineKind, TimelineRun};
use crate::timeline::{self_times, Span, TraceTimeline};

fn frame(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            ';' => out.push(':'),
            '\n' | '\r' => out.push(' '),
            // Other control characters (an ESC in a name must not reach a terminal).
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Stacks interned as (parent stack, name id), so a large dump costs a hash lookup per
/// event rather than a string.
/// Frames below this depth are merged into one `[deeper calls]` frame (a hostile trace
/// nesting a million calls would otherwise make lines of a million frames); their self
/// time stays, so the sums do not change.
const MAX_DEPTH: u32 = 1_000;
const DEEPER: u32 = u32::MAX;

#[derive(Default)]
struct Folder {
    index: HashMap<(u32, u32), u32>,
    /// (parent stack or `u32::MAX`, name id)
    stacks: Vec<(u32, u32)>,
    values: Vec<u64>,
}

impl Folder {
    /// Add one tree: `name_ids[i]` names node i; parents precede children.
    fn add(&mut self, spans: &[Span], name_ids: &[u32]) {
        self.add_under(spans, name_ids, None)
    }

    /// The stack id of `(parent, name)`, interned.
    fn intern(&mut self, key: (u32, u32)) -> u32 {
        match self.index.get(&key) {
            Some(&id) => id,
            None => {
                let id = self.stacks.len() as u32;
                self.stacks.push(key);
                self.values.push(0);
                self.index.insert(key, id);
                id
            }
        }
    }

    /// As `add`, below a root frame `root` (a name id) of its own with no self time
    /// (the method of a dump's run when there are several), so the sums do not change.
    fn add_under(&mut self, spans: &[Span], name_ids: &[u32], root: Option<u32>) {
        self.add_rooted(spans, name_ids, &vec![root; spans.len()], &[])
    }

    /// As `add_under`, with the root frame of each top-level span given per span (the
    /// thread of a trace's call). `via[i]`, when given, is a frame (name id) span i sits
    /// in below its parent's stack: the plan step an operator voted for, in a run that
    /// lost that step's event (the tree keeps the operator under its step). That frame
    /// has no self time of its own from this span, so the sums do not change.
    fn add_rooted(
        &mut self,
        spans: &[Span],
        name_ids: &[u32],
        roots: &[Option<u32>],
        via: &[Option<u32>],
    ) {
        let own = self_times(spans);
        let mut stack_of: Vec<u32> = Vec::with_capacity(spans.len());
        let mut depth: Vec<u32> = Vec::with_capacity(spans.len());
        for (i, s) in spans.iter().enumerate() {
            let up = s.parent.filter(|&p| (p as usize) < i);
            let d = up.map_or(0, |p| depth[p as usize] + 1);
            depth.push(d);
            let mut parent = match up {
                Some(p) => stack_of[p as usize],
                None => match roots.get(i).copied().flatten() {
                    Some(r) => self.intern((u32::MAX, r)),
                    None => u32::MAX,
                },
            };
            if let Some(v) = via.get(i).copied().flatten() {
                parent = self.intern((parent, v));
            }
            if d > MAX_DEPTH {
                // Deeper calls add their time to the one merged frame below the cap.
                let id = stack_of[up.map_or(0, |p| p as usize)];
                self.values[id as usize] = self.values[id as usize].saturating_add(own[i]);
                stack_of.push(id);
                continue;
            }
            let name = if d == MAX_DEPTH { DEEPER } else { name_ids[i] };
            let id = self.intern((parent, name));
            self.values[id as usize] = self.values[id as usize].saturating_add(own[i]);
            stack_of.push(id);
        }
    }

    fn write(&self, w: &mut dyn Write, name: &dyn Fn(u32) -> String) -> io::Result<()> {
        let mut text: Vec<String> = Vec::with_capacity(self.stacks.len());
        for &(parent, n) in &self.stacks {
            // Parents are interned before their children.
            let f = if n == DEEPER {
                "[deeper calls]".to_string()
            } else {
                frame(&name(n))
            };
            text.push(match text.get(parent as usize) {
                Some(p) => format!("{p};{f}"),
                None => f,
            });
        }
        let mut lines: BTreeMap<&str, u64> = BTreeMap::new();
        for (t, &v) in text.iter().zip(&self.values) {
            if v > 0 {
                let e = lines.entry(t.as_str()).or_insert(0);
                *e = e.saturating_add(v);
            }
        }
        for (stack, v) in lines {
            writeln!(w, "{stack} {v}")?;
        }
        Ok(())
    }
}

/// The frame of each timeline entry: what the explorer's tree names it, short. A delegate
/// call is `delegate #I` (I its instruction), an instruction scope is named with its
/// instruction (`OPERATOR_CALL #I`), plan steps, operators and kernels by their name, and
/// the second, third, ... row of one name under one parent (a step or an operator
/// repeated in one call) `name (2)`, `name (3)`. Two operators of two delegates, or two
/// kernels of two instructions, thus never share a stack. Chrome export names its events
/// the same way.
pub fn entry_labels(tl: &Timeline) -> Vec<String> {
    // (instruction, voted step, kind, name): the rows of one tree parent.
    type RowKey<'a> = (Option<i32>, Option<u32>, u8, &'a str);
    let mut seen: HashMap<RowKey<'_>, u32> = HashMap::new();
    tl.entries
        .iter()
        .map(|e| match (e.kind, e.instruction_id) {
            (TimelineKind::Method, _) => e.name.clone(),
            (TimelineKind::DelegateCall, Some(i)) => crate::units::delegate_name(i),
            (TimelineKind::InstructionCall, Some(i)) => crate::units::instruction_frame(&e.name, i),
            _ => {
                // Rows of one parent: same instruction, same step (operators), same kind.
                let step = (e.kind != TimelineKind::Step).then_some(e.step).flatten();
                let n = seen
                    .entry((e.instruction_id, step, e.kind as u8, e.name.as_str()))
                    .or_insert(0);
                *n += 1;
                if *n == 1 {
                    e.name.clone()
                } else {
                    format!("{} ({n})", e.name)
                }
            }
        })
        .collect()
}

/// The folded stacks of the chosen runs of a dump.
pub fn write_dump_folded(
    w: &mut dyn Write,
    tl: &Timeline,
    runs: &[&TimelineRun],
) -> io::Result<()> {
    let mut folder = DumpFolder::default();
    for run in runs {
        folder.add(tl, run);
    }
    folder.write(w, tl)
}

/// The folded stacks of a dump's runs, added one run at a time as a streamed timeline
/// makes them: memory is the distinct stacks, not the runs.
#[derive(Default)]
pub struct DumpFolder {
    folder: Folder,
}

impl DumpFolder {
    /// Adds the stacks of `run` (its entries in `tl`, which may grow later).
    pub fn add(&mut self, tl: &Timeline, run: &TimelineRun) {
        let spans: Vec<Span> = run
            .events
            .iter()
            .map(|e| Span {
                start: i64::try_from(e.start_ns).unwrap_or(i64::MAX),
                end: i64::try_from(e.end_ns()).unwrap_or(i64::MAX),
                parent: e.parent,
            })
            .collect();
        let names: Vec<u32> = run.events.iter().map(|e| e.entry).collect();
        // Several methods: each run's stacks start with its method (name ids past the
        // entries; `METHOD_NAMES` apart from them, as entries may still be added).
        let root = (tl.methods.len() > 1).then(|| METHOD_NAMES + run.method as u32);
        // An operator whose voted step has no event in this run sits in its delegate
        // call: its frame still goes under the step, as in the tree.
        let via: Vec<Option<u32>> = run
            .events
            .iter()
            .map(|e| {
                let step = tl.entries[e.entry as usize].step?;
                let parent = e.parent.map(|p| run.events[p as usize].entry);
                (parent != Some(step)).then_some(step)
            })
            .collect();
        self.folder
            .add_rooted(&spans, &names, &vec![root; spans.len()], &via);
    }

    /// Writes the stacks added, named by the entries of `tl` (complete by now).
    pub fn write(&self, w: &mut dyn Write, tl: &Timeline) -> io::Result<()> {
        let labels = entry_labels(tl);
        self.folder
            .write(w, &|n| match n.checked_sub(METHOD_NAMES) {
                Some(m) => tl.methods.get(m as usize).cloned().unwrap_or_default(),
                None => labels.get(n as usize).cloned().unwrap_or_default(),
            })
    }
}

/// Name ids of methods in a dump's stacks: past every entry a timeline can have (an
/// entry is made per collected row or scope, each from at least one event of a file
/// under 4 GiB, and an event takes more than 2 bytes).
const METHOD_NAMES: u32 = 1 << 31;

/// The frame of each thread of a trace, as the explorer's call tree roots name them
/// (`thread TID`; `pid P thread TID` when two processes share a thread id, with the host
/// first when two hosts share both).
pub fn thread_labels(threads: &[crate::trace::ThreadKey]) -> Vec<String> {
    let mut tids: HashMap<i64, usize> = HashMap::new();
    let mut pids: HashMap<(i64, i64), usize> = HashMap::new();
    for t in threads {
        *tids.entry(t.tid).or_insert(0) += 1;
        *pids.entry((t.pid, t.tid)).or_insert(0) += 1;
    }
    threads
        .iter()
        .map(|t| match (tids[&t.tid], pids[&(t.pid, t.tid)], &t.host) {
            (1, _, _) => format!("thread {}", t.tid),
            (_, 1, _) | (_, _, None) => format!("pid {} thread {}", t.pid, t.tid),
            (_, _, Some(h)) => format!("{h} pid {} thread {}", t.pid, t.tid),
        })
        .collect()
}

/// The folded stacks of a trace's calls. With several threads each thread's stacks start
/// with a frame naming it (the explorer's call tree has one root per thread), so a call
/// path on two threads is two stacks.
pub fn write_trace_folded(w: &mut dyn Write, tt: &TraceTimeline) -> io::Result<()> {
    let set = &tt.set;
    let spans: Vec<Span> = set
        .intervals
        .iter()
        .map(|iv| Span {
            start: iv.start_ns,
            end: iv.start_ns.saturating_add(iv.dur_ns.max(0)),
            parent: iv.parent,
        })
        .collect();
    let names: Vec<u32> = set.intervals.iter().map(|iv| iv.name).collect();
    let mut folder = Folder::default();
    let used: Vec<bool> = {
        let mut u = vec![false; set.threads.len()];
        for iv in &set.intervals {
            if let Some(x) = u.get_mut(iv.thread as usize) {
                *x = true;
            }
        }
        u
    };
    let n_names = set.names.len();
    if used.iter().filter(|&&u| u).count() > 1 {
        // One tree per thread, under a root frame (name ids past the op names).
        let roots: Vec<Option<u32>> = set
            .intervals
            .iter()
            .map(|iv| Some((n_names + iv.thread as usize) as u32))
            .collect();
        folder.add_rooted(&spans, &names, &roots, &[]);
    } else {
        folder.add(&spans, &names);
    }
    let threads = thread_labels(&set.threads);
    folder.write(w, &|n| match (n as usize).checked_sub(n_names) {
        Some(t) => threads.get(t).cloned().unwrap_or_default(),
        None => set.names[n as usize].clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deep_chain_is_capped_and_still_adds_up() {
        use crate::trace::{Interval, IntervalSet, ThreadKey};
        // 1,500 calls, each nested in the previous: [i, 3000 - i]. Self time 2 ns each
        // except the innermost ([1499, 1501]: 2 ns); root length 3000.
        let n = 1_500u32;
        let set = IntervalSet {
            threads: vec![ThreadKey {
                host: None,
                pid: 1,
                tid: 1,
            }],
            names: vec!["f".into()],
            intervals: (0..n)
                .map(|i| Interval {
                    thread: 0,
                    name: 0,
                    start_ns: i64::from(i),
                    dur_ns: 3000 - 2 * i64::from(i),
                    err: false,
                    frame: false,
                    inputs: None,
                    parent: i.checked_sub(1),
                })
                .collect(),
            ..IntervalSet::default()
        };
        let mut out = Vec::new();
        write_trace_folded(&mut out, &TraceTimeline::new(set)).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // 1,000 frames of f, then one merged frame holding the 500 deeper calls.
        assert_eq!(lines.len(), MAX_DEPTH as usize + 1);
        let total: u64 = lines
            .iter()
            .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
            .sum();
        assert_eq!(total, 3000);
        let deepest = lines.iter().find(|l| l.contains("[deeper calls]")).unwrap();
        assert!(
            deepest.ends_with(" 1000"),
            "500 calls x 2 ns: {}",
            &deepest[deepest.len() - 20..]
        );
    }

    #[test]
    fn frames_stay_one_frame_and_printable() {
        assert_eq!(frame("a;b"), "a:b");
        assert_eq!(frame("x\ny"), "x y");
        assert_eq!(frame("\u{1b}[31mred"), "\\x1b[31mred");
        assert_eq!(frame("Add (ND) #1"), "Add (ND) #1");
    }
}
