//! Folded stacks (`frame;frame;frame VALUE`), the text flame-graph tools read: one line
//! per distinct stack, VALUE = self time in integer ns summed over the exported runs.
//!
//! Exactness: times are integer ns (ETDump ticks, trace ns) and never rounded. Self time
//! is computed by [`self_times`], which clips each child into its parent and after its
//! earlier siblings, so a tree's self times add up to its root's duration exactly and none
//! is negative; the values therefore add up to the total of `Method::execute` over the
//! runs (dumps) or of the top-level calls (traces). Stacks whose self time is 0 are left
//! out. Lines are sorted by stack. `;` in a name becomes `:`, line breaks become spaces
//! and other control characters `\xNN`, so every frame stays one frame and no input
//! byte can steer a terminal.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};

use crate::profile::{Timeline, TimelineRun};
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
        let own = self_times(spans);
        let mut stack_of: Vec<u32> = Vec::with_capacity(spans.len());
        let mut depth: Vec<u32> = Vec::with_capacity(spans.len());
        for (i, s) in spans.iter().enumerate() {
            let up = s.parent.filter(|&p| (p as usize) < i);
            let d = up.map_or(0, |p| depth[p as usize] + 1);
            depth.push(d);
            let parent = up.map_or(u32::MAX, |p| stack_of[p as usize]);
            if d > MAX_DEPTH {
                // Deeper calls add their time to the one merged frame below the cap.
                let id = stack_of[up.map_or(0, |p| p as usize)];
                self.values[id as usize] = self.values[id as usize].saturating_add(own[i]);
                stack_of.push(id);
                continue;
            }
            let name = if d == MAX_DEPTH { DEEPER } else { name_ids[i] };
            let key = (parent, name);
            let id = match self.index.get(&key) {
                Some(&id) => id,
                None => {
                    let id = self.stacks.len() as u32;
                    self.stacks.push(key);
                    self.values.push(0);
                    self.index.insert(key, id);
                    id
                }
            };
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

/// The folded stacks of the chosen runs of a dump.
pub fn write_dump_folded(
    w: &mut dyn Write,
    tl: &Timeline,
    runs: &[&TimelineRun],
) -> io::Result<()> {
    let mut folder = Folder::default();
    for run in runs {
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
        folder.add(&spans, &names);
    }
    folder.write(w, &|n| tl.entries[n as usize].name.clone())
}

/// The folded stacks of a trace's calls (all threads together).
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
    folder.add(&spans, &names);
    folder.write(w, &|n| set.names[n as usize].clone())
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
