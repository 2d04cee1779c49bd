//! Which `Execute` runs belong together: one group per run signature, as the ExecuTorch
//! Inspector groups them (the events of the run in order, each by name or delegate id and
//! instruction id, and the bundled input index). Two methods of one program run into one
//! dump, or one method run on two bundled inputs, are kept apart this way.
//!
//! One deviation, for dumps with lost events: a group whose signature is the signature of
//! another group with a few delegate or kernel events left out (at most one in four of
//! them: a step, operator or kernel event missing in that run), with the same
//! framework events
//! (`DELEGATE_CALL`, `OPERATOR_CALL`, ...), the same bundled input and no more runs, is
//! that group's runs with missing events, and joins it. Real runs of two methods differ in
//! their framework events or in their delegate events both ways, so they stay apart.

use std::hash::{Hash, Hasher};

use super::classify::{classify_framework, FrameworkEvent};
use super::fast_hash::{FastMap, WordHasher};
use crate::etdump::{DelegateId, EtDump, NameTable, ProfileEvent, RunBlock};

/// One group of `Execute` runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RunGroup {
    /// Indexes into `dump.blocks`, in run order.
    pub blocks: Vec<usize>,
    /// None when the runs have no bundled input (-1).
    pub bundled_input_index: Option<i32>,
}

/// An event of a signature: (may be lost: a delegate or kernel event, name or delegate
/// id, instruction id).
pub(crate) type SigEvent = (bool, u64, i32);

/// The signature events of a dump's events; whether a name is a kernel is decided once
/// per distinct name.
pub(crate) struct Signer {
    kernel: Vec<Option<bool>>,
}

impl Signer {
    pub(crate) fn new(names: usize) -> Self {
        Signer {
            kernel: vec![None; names],
        }
    }

    /// The signature event of `ev`, its name in `names`.
    pub(crate) fn event(&mut self, names: &NameTable, ev: &ProfileEvent) -> SigEvent {
        match (ev.delegate_id, ev.name) {
            (Some(DelegateId::Str(s)), _) => (true, u64::from(s.0), ev.instruction_id),
            (Some(DelegateId::Int(i)), _) => {
                (true, (1u64 << 40) | i as u32 as u64, ev.instruction_id)
            }
            (None, Some(n)) => {
                if self.kernel.len() <= n.0 as usize {
                    self.kernel.resize(names.len().max(n.0 as usize + 1), None);
                }
                let kernel = *self.kernel[n.0 as usize].get_or_insert_with(|| {
                    classify_framework(names.get(n)) == FrameworkEvent::Kernel
                });
                (kernel, u64::from(n.0), ev.instruction_id)
            }
            (None, None) => (false, u64::MAX, ev.instruction_id),
        }
    }

    /// Whether `block`'s events have signature `sig`, the signature of `like` (no
    /// allocation). Events with the same name, delegate id and instruction as `like`'s
    /// have its signature by construction, which is checked first as the cheaper test.
    fn matches(
        &mut self,
        dump: &EtDump,
        sig: &[SigEvent],
        like: &RunBlock,
        block: &RunBlock,
    ) -> bool {
        let events = dump.block_events(block);
        let same = |a: &ProfileEvent, b: &ProfileEvent| {
            a.name == b.name
                && a.delegate_id == b.delegate_id
                && a.instruction_id == b.instruction_id
        };
        let like_events = dump.block_events(like);
        if events.len() == like_events.len()
            && events.iter().zip(like_events).all(|(a, b)| same(a, b))
        {
            return true;
        }
        events.len() == sig.len()
            && events
                .iter()
                .zip(sig)
                .all(|(ev, s)| self.event(&dump.names, ev) == *s)
    }
}

/// True when `small` is `big` with a few delegate or kernel events removed (order kept):
/// at most one in four of them. (A method whose delegate has one operator less than
/// another's is another method: with two operators, one lost is one in two.)
pub(crate) fn lost_delegate_events(small: &[SigEvent], big: &[SigEvent]) -> bool {
    if small.len() >= big.len() {
        return false;
    }
    let losable = big.iter().filter(|e| e.0).count();
    if big.len() - small.len() > losable / 4 {
        return false;
    }
    let mut it = small.iter().peekable();
    for b in big {
        match it.peek() {
            Some(s) if *s == b => {
                it.next();
            }
            _ if b.0 => {} // a delegate event lost in `small`
            _ => return false,
        }
    }
    it.peek().is_none()
}

/// Group the `Execute` runs of `dump` (first appearance order).
pub(crate) fn group_runs(dump: &EtDump) -> Vec<RunGroup> {
    // Groups by a hash of their signature (with a fast hasher: the keys are our own
    // integers); a run is first compared with the previous run's group, which it usually
    // joins, so most runs cost one comparison and no allocation.
    let mut index: FastMap<(u64, i32), Vec<usize>> = FastMap::default();
    let mut groups: Vec<(Vec<SigEvent>, i32, Vec<usize>)> = Vec::new();
    let mut signer = Signer::new(dump.names.len());
    let mut last: Option<usize> = None;
    for (b, block) in dump.blocks.iter().enumerate() {
        if block.name != "Execute" {
            continue;
        }
        if let Some(g) = last {
            let like = &dump.blocks[groups[g].2[0]];
            if groups[g].1 == block.bundled_input_index
                && signer.matches(dump, &groups[g].0, like, block)
            {
                groups[g].2.push(b);
                continue;
            }
        }
        let sig: Vec<SigEvent> = dump
            .block_events(block)
            .iter()
            .map(|ev| signer.event(&dump.names, ev))
            .collect();
        let mut hasher = WordHasher::default();
        sig.hash(&mut hasher);
        let candidates = index
            .entry((hasher.finish(), block.bundled_input_index))
            .or_default();
        let g = match candidates.iter().find(|&&g| groups[g].0 == sig) {
            Some(&g) => {
                groups[g].2.push(b);
                g
            }
            None => {
                candidates.push(groups.len());
                groups.push((sig, block.bundled_input_index, vec![b]));
                groups.len() - 1
            }
        };
        last = Some(g);
    }
    merge_groups(groups)
}

/// Groups a group of runs with lost events may merge into: the ones with the most runs.
const MERGE_TARGETS: usize = 64;

/// The groups of runs by signature, (signature, bundled input, blocks in run order) in
/// order of first appearance, with the groups of runs with lost delegate events merged
/// into their full group (see the module's note), in order of their first run.
pub(crate) fn merge_groups(groups: Vec<(Vec<SigEvent>, i32, Vec<usize>)>) -> Vec<RunGroup> {
    // Merge groups of runs with lost delegate events into their full group. The full group
    // is among the ones with the most runs (lost events are the exception), so only the
    // `MERGE_TARGETS` largest groups are candidates: with fewer groups every group is, and
    // a dump of very many signatures (hostile, or no lost events at all) stays linear.
    let mut largest: Vec<usize> = (0..groups.len()).collect();
    largest.sort_by_key(|&h| (std::cmp::Reverse(groups[h].2.len()), h));
    largest.truncate(MERGE_TARGETS);
    largest.sort_unstable();
    let mut merged_into: Vec<Option<usize>> = vec![None; groups.len()];
    for g in 0..groups.len() {
        let target = largest
            .iter()
            .copied()
            .filter(|&h| h != g && merged_into[h].is_none())
            .filter(|&h| groups[h].1 == groups[g].1 && groups[g].2.len() <= groups[h].2.len())
            .filter(|&h| lost_delegate_events(&groups[g].0, &groups[h].0))
            .max_by_key(|&h| groups[h].2.len());
        merged_into[g] = target;
    }
    let mut out: Vec<RunGroup> = Vec::new();
    let mut slot: Vec<Option<usize>> = vec![None; groups.len()];
    let mut order: Vec<(usize, usize)> = Vec::new(); // (first block, group)
    for (g, grp) in groups.iter().enumerate() {
        if merged_into[g].is_none() {
            order.push((grp.2[0], g));
        }
    }
    order.sort_unstable();
    for &(_, g) in &order {
        slot[g] = Some(out.len());
        out.push(RunGroup {
            blocks: groups[g].2.clone(),
            bundled_input_index: (groups[g].1 >= 0).then_some(groups[g].1),
        });
    }
    for (g, grp) in groups.iter().enumerate() {
        // Follow merges to the kept group. No cycle can form: a group only merges into
        // one that had not merged yet, and a merged group is never a target afterwards.
        let mut t = g;
        while let Some(n) = merged_into[t] {
            t = n;
        }
        if t != g {
            if let Some(s) = slot[t] {
                out[s].blocks.extend(&grp.2);
            }
        }
    }
    for grp in &mut out {
        grp.blocks.sort_unstable();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lost_delegate_events_only() {
        let big = [(false, 1, 0), (true, 2, 0), (true, 3, 0), (false, 4, 0)];
        // One of two delegate events lost, or two of two: more than one in four.
        assert!(!lost_delegate_events(
            &[(false, 1, 0), (true, 2, 0), (false, 4, 0)],
            &big
        ));
        assert!(!lost_delegate_events(&[(false, 1, 0), (false, 4, 0)], &big));
        // One of four lost: the same method with a missing event.
        let big4 = [
            (true, 2, 0),
            (true, 3, 0),
            (true, 5, 0),
            (true, 6, 0),
            (false, 4, 0),
        ];
        assert!(lost_delegate_events(
            &[(true, 2, 0), (true, 5, 0), (true, 6, 0), (false, 4, 0)],
            &big4
        ));
        // A lost framework event is another method, not a lost event.
        let big5 = [
            (false, 1, 0),
            (true, 2, 0),
            (true, 3, 0),
            (true, 5, 0),
            (true, 6, 0),
        ];
        assert!(!lost_delegate_events(
            &[(true, 2, 0), (true, 3, 0), (true, 5, 0), (true, 6, 0)],
            &big5
        ));
        // An event the big signature does not have.
        assert!(!lost_delegate_events(
            &[(true, 2, 0), (true, 9, 0), (true, 6, 0), (false, 4, 0)],
            &big4
        ));
        assert!(!lost_delegate_events(&big, &big));
    }

    /// A dump of very many signatures that all lose events of one full signature: each
    /// merges into the full group (the one with the most runs), in time linear in the
    /// groups (a check of every pair took minutes here: 40,000 groups are 1.6e9 pairs).
    #[test]
    fn many_lossy_signatures_merge_into_the_full_one_quickly() {
        let ops = 40u64;
        // 40 delegate events, then the delegate call and Method::execute.
        let full: Vec<SigEvent> = (0..ops)
            .map(|k| (true, k, 0))
            .chain([(false, 100, 0), (false, 101, 0)])
            .collect();
        let mut groups = vec![(full.clone(), -1, vec![0, 1])];
        'made: for a in 0..ops {
            for b in a + 1..ops {
                for c in b + 1..ops {
                    for d in c + 1..ops {
                        if groups.len() > 40_000 {
                            break 'made;
                        }
                        let lossy = full
                            .iter()
                            .copied()
                            .filter(|e| !(e.0 && [a, b, c, d].contains(&e.1)))
                            .collect();
                        let block = groups.len() + 1;
                        groups.push((lossy, -1, vec![block]));
                    }
                }
            }
        }
        let blocks: usize = groups.iter().map(|g| g.2.len()).sum();
        let started = std::time::Instant::now();
        let merged = merge_groups(groups);
        let took = started.elapsed();
        assert_eq!(merged.len(), 1);
        assert_eq!(merged[0].blocks, (0..blocks).collect::<Vec<_>>());
        assert!(took.as_secs() < 5, "merging took {took:?}");
    }
}
