//! The collector's per-run memos and indexes: lookups answered from the previous run
//! while a run repeats it (`PositionMemo`, `RunCounters`), rows and instructions by key.

use super::super::fast_hash::FastMap;
use super::samples::{Collected, InstructionData, Label};
use crate::etdump::ProfileEvent;

/// A lookup whose answer for a key never changes once made, memoised by position: the
/// k-th lookup of a run is answered without hashing when the previous run's k-th lookup
/// had the same key (runs of one method repeat their keys in order).
pub(super) struct PositionMemo<K> {
    prev: Vec<(K, usize)>,
    cur: Vec<(K, usize)>,
}

impl<K> Default for PositionMemo<K> {
    fn default() -> Self {
        PositionMemo {
            prev: Vec::new(),
            cur: Vec::new(),
        }
    }
}

impl<K: Copy + Eq> PositionMemo<K> {
    pub(super) fn start_run(&mut self) {
        std::mem::swap(&mut self.prev, &mut self.cur);
        self.cur.clear();
    }

    #[inline(always)]
    pub(super) fn get(&mut self, key: K, lookup: impl FnOnce() -> usize) -> usize {
        let value = match self.prev.get(self.cur.len()) {
            Some(&(k, v)) if k == key => v,
            _ => lookup(),
        };
        self.cur.push((key, value));
        value
    }
}

/// Occurrence counters that restart every run: `next(key)` is how many times `key` came
/// before in this run. While a run repeats the previous run's keys in order, the answers
/// are the previous run's; at the first difference the keys so far are replayed into the
/// map, which answers from then on.
pub(super) struct RunCounters<K> {
    map: FastMap<K, u32>,
    prev: Vec<(K, u32)>,
    cur: Vec<(K, u32)>,
    replaying: bool,
}

impl<K> Default for RunCounters<K> {
    fn default() -> Self {
        RunCounters {
            map: FastMap::default(),
            prev: Vec::new(),
            cur: Vec::new(),
            replaying: true,
        }
    }
}

impl<K: Copy + Eq + std::hash::Hash> RunCounters<K> {
    pub(super) fn start_run(&mut self) {
        std::mem::swap(&mut self.prev, &mut self.cur);
        self.cur.clear();
        if !self.map.is_empty() {
            self.map.clear();
        }
        self.replaying = true;
    }

    #[inline(always)]
    pub(super) fn next(&mut self, key: K) -> u32 {
        if self.replaying {
            if let Some(&(k, v)) = self.prev.get(self.cur.len()) {
                if k == key {
                    self.cur.push((key, v));
                    return v;
                }
            }
            self.replaying = false;
            for &(k, _) in &self.cur {
                *self.map.entry(k).or_insert(0) += 1;
            }
        }
        let c = self.map.entry(key).or_insert(0);
        let v = *c;
        *c += 1;
        self.cur.push((key, v));
        v
    }
}

/// Where an event sits, which is what tells same-named events of one run apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Slot {
    /// A step event: its occurrence among same-named steps of the delegate call.
    StepOccurrence(u32),
    /// An event contained in a step: (step row, occurrence among same-named events in it).
    InStep(u32, u32),
    /// Anything else: occurrence among same-named events of the call.
    Order(u32),
}

/// (instruction, label, slot) -> row index within the instruction.
#[derive(Default)]
pub(super) struct RowIndex {
    /// Samples a new row reserves room for (one per run, for rows of the first run while
    /// `reserve_budget` lasts; 0 afterwards): rows then never grow by copying.
    pub(super) capacity: usize,
    /// Samples left to reserve: at most the group's event count, so reserving never
    /// holds more than the samples themselves would.
    pub(super) reserve_budget: usize,
    pub(super) map: FastMap<(usize, Label, Slot), usize>,
    pub(super) memo: PositionMemo<(usize, Label, Slot)>,
}

/// Instruction id -> index in `Collected::instructions`: ids are small in practice, so
/// a table serves them; others go through a map.
#[derive(Default)]
pub(super) struct InstructionIndex {
    table: Vec<u32>,
    map: FastMap<i32, usize>,
}

/// Instruction ids below this are looked up in a table.
const INSTRUCTION_TABLE_MAX: i32 = 1 << 16;

impl InstructionIndex {
    pub(super) fn get(&mut self, out: &mut Collected, ev: &ProfileEvent) -> usize {
        let id = ev.instruction_id;
        let mut create = || {
            out.instructions.push(InstructionData {
                instruction_id: id,
                ..Default::default()
            });
            out.instructions.len() - 1
        };
        if (0..INSTRUCTION_TABLE_MAX).contains(&id) {
            let slot = id as usize;
            if self.table.len() <= slot {
                self.table.resize(slot + 1, u32::MAX);
            }
            if self.table[slot] == u32::MAX {
                self.table[slot] = create() as u32;
            }
            self.table[slot] as usize
        } else {
            *self.map.entry(id).or_insert_with(create)
        }
    }
}
