//! The dump's events grouped as the ExecuTorch Inspector groups them for its
//! `to_dataframe()`, from the decoded dump (not from our profile, which keeps no event
//! order): one block per distinct run (its name, the signatures of its events in order,
//! its bundled input), blocks in the order their first run comes; in a block one event
//! per signature (instruction id, name, delegate id), in the order the block's first run
//! first holds it; per run one sample, the signature's last event of the run. Samples
//! are computed as the Inspector computes them (ms as a float: an operator's tick
//! difference divided by 1e6, a delegate event's end and start each divided by 1e6 and
//! subtracted; a 32-bit wrap-around undone as it undoes it), the start times kept as
//! ticks (its `start_time`), and the figures as numpy's (`percentile`'s linear
//! interpolation, `mean`'s pairwise sum), so each cell equals the Inspector's.

use std::collections::HashMap;

use cpuprof_tui::etdump::{DelegateId, NameId, NameTable, ProfileEvent};
use cpuprof_tui::profile::Decoded;

/// An event's delegate debug identifier, as the Inspector gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ident {
    Int(i32),
    Str(String),
}

/// One event of a block: one row of the Inspector's frame.
pub struct Event {
    pub name: String,
    /// The event's instruction id; None where the dump has none (-1).
    pub instruction_id: Option<i64>,
    pub delegate: Option<Ident>,
    /// One sample per run of the block, ms.
    pub raw: Vec<f64>,
    /// The events' start times, ticks as in the dump.
    pub start: Vec<u64>,
    /// p10, p50, p90, avg, min, max of `raw`, as numpy's.
    pub figures: [f64; 6],
    /// No profile event, only debug events: no samples (the Inspector's None).
    pub unprofiled: bool,
    /// Such an event's nodes from the ETRecord given (our rows have none of it).
    pub source: Option<cpuprof_tui::profile::RowSource>,
    /// The intermediate outputs its debug events log (the first run's).
    pub debug_data: Vec<DebugValue>,
    /// Its samples are a delegate's (converted as the Inspector converts those).
    delegated_sample: bool,
}

/// A logged value as the dump gives it: a tensor by its sizes, dtype (a torch dtype
/// name) and offset in the debug buffer (the Inspector makes zeros of the sizes and dtype
/// without the buffer, the bytes at the offset with it).
#[derive(Clone, Debug, PartialEq)]
pub enum DebugValue {
    None,
    Int(i64),
    Bool(bool),
    Float(f64),
    Tensor(TensorRef),
    TensorList(Vec<TensorRef>),
}

/// A logged tensor: its sizes, torch dtype name and offset in the debug buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorRef {
    pub sizes: Vec<i64>,
    pub dtype: &'static str,
    pub offset: i64,
}

/// One event of a run, profile or debug: what the grouping reads of it.
#[derive(Clone, Copy)]
pub(crate) struct Ev {
    pub instruction_id: i32,
    pub chain_index: i64,
    pub name: Option<NameId>,
    pub delegate: Option<DelegateId>,
    pub kind: Kind,
}

#[derive(Clone, Copy)]
pub(crate) enum Kind {
    Profile {
        start: u64,
        end: u64,
    },
    /// Index of its value in the debug values; an output (the run's) is not collated.
    Debug {
        value: usize,
        output: bool,
    },
}

/// A block of runs of one signature.
pub struct Block {
    pub name: String,
    pub events: Vec<Event>,
}

/// A debug event's signature: (name, instruction id, delegate id).
type DebugSig = (Option<NameId>, i32, Option<DelegateId>);

/// The signature of an event in a run: (instruction id, name, delegate id, its
/// instruction's first debug event's signature); an absent or empty name is None. A
/// debug-only instruction's: (instruction id, None, None, its debug signature), with
/// `false` for "profiled".
type Signature = (
    i32,
    Option<NameId>,
    Option<DelegateId>,
    Option<DebugSig>,
    bool,
);

/// The key of an instruction event: the events the Inspector collates in a run.
type Collated = (i32, i64, Option<DelegateId>);

const MS_PER_TICK_DIVISOR: f64 = 1e6;
const MAX_U32: u64 = u32::MAX as u64;

/// A sample as the Inspector computes it; NaN where it raises (an end before its start
/// beyond 32 bits): the load goes on (the profile reads such a dump with a warning).
fn sample(s: u64, t: u64, delegated: bool) -> Result<f64, String> {
    let wrapped = s > t;
    if wrapped && (s > MAX_U32 || t > MAX_U32) {
        return Ok(f64::NAN);
    }
    if delegated {
        // Each time converted to ms first (the Inspector's default delegate time converter).
        let (a, b) = (
            s as f64 / MS_PER_TICK_DIVISOR,
            t as f64 / MS_PER_TICK_DIVISOR,
        );
        Ok(if a > b {
            (MAX_U32 as f64 - a) + b
        } else {
            b - a
        })
    } else {
        let d = if wrapped { (MAX_U32 - s) + t } else { t - s };
        Ok(d as f64 / MS_PER_TICK_DIVISOR)
    }
}

/// The dump's blocks and events as the Inspector's frame lists them, from the runs the
/// profile's load decodes ([`Decoded`]: no second decode of the dump). A dump with debug
/// events (which the load counts, not decodes) is read by [`crate::debug_events::blocks`].
pub struct FromLoad {
    grouping: Grouping<'static>,
    run: Vec<Ev>,
    failed: Option<String>,
    debug_events: usize,
}

impl FromLoad {
    pub fn new() -> Self {
        FromLoad {
            grouping: Grouping::new(&[]),
            run: Vec::new(),
            failed: None,
            debug_events: 0,
        }
    }

    /// What the load hands over.
    pub fn observe(&mut self, d: Decoded<'_>) {
        match d {
            Decoded::Runs {
                blocks,
                events,
                names,
            } => {
                for block in blocks {
                    if self.failed.is_some() {
                        return;
                    }
                    let run = &events[block.events.clone()];
                    // Most runs are the last run's events again: their samples only, read
                    // from the decoded events (no copy of the run made first).
                    let name = &block.name;
                    let bundled = block.bundled_input_index;
                    if let Some(b) = self.grouping.same_events_as_last(name, bundled, run) {
                        let ticks = |i: usize| Some((run[i].start_ticks, run[i].end_ticks));
                        if let Err(e) = self.grouping.samples(b, ticks) {
                            self.failed = Some(e);
                        }
                        continue;
                    }
                    self.run.clear();
                    self.run
                        .extend(events[block.events.clone()].iter().map(|e| Ev {
                            instruction_id: e.instruction_id,
                            chain_index: i64::from(e.chain_index),
                            name: e.name,
                            delegate: e.delegate_id,
                            kind: Kind::Profile {
                                start: e.start_ticks,
                                end: e.end_ticks,
                            },
                        }));
                    if let Err(e) = self.grouping.run(names, name, bundled, &self.run) {
                        self.failed = Some(e);
                    }
                }
            }
            Decoded::Restart => *self = FromLoad::new(),
            Decoded::End { debug_events } => self.debug_events = debug_events,
        }
    }

    /// The blocks, once the load is done (`bytes`: the dump, read again for its debug
    /// events when it has any).
    pub fn finish(self, bytes: &[u8]) -> Result<Vec<Block>, String> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        if self.debug_events > 0 {
            return crate::debug_events::blocks(bytes);
        }
        Ok(self.grouping.finish())
    }
}

/// The values of the debug events of collated instruction event `c`.
fn debug_values(
    collated: &[(Collated, Vec<usize>)],
    values: &[DebugValue],
    events: &[Ev],
    c: usize,
) -> Vec<DebugValue> {
    collated[c]
        .1
        .iter()
        .filter_map(|&i| match events[i].kind {
            Kind::Debug { value, .. } => Some(values[value].clone()),
            Kind::Profile { .. } => None,
        })
        .collect()
}

/// The Inspector's grouping, run by run.
pub(crate) struct Grouping<'n> {
    values: &'n [DebugValue],
    /// Run signature (block name, bundled input, event signatures) -> block index.
    runs: HashMap<(String, i32, Vec<u32>), usize>,
    signatures: HashMap<Signature, u32>,
    out: Vec<Block>,
    // Per run, reused: the collated instruction events in first-seen order.
    collated: Vec<(Collated, Vec<usize>)>,
    collated_at: HashMap<Collated, usize>,
    run_sigs: Vec<u32>,
    /// Per signature of the run: its profile event (the last), its instruction's events.
    run_last: Vec<(Option<usize>, usize)>,
    sig_at: HashMap<u32, usize>,
    /// The last run's (name, bundled input, block) and its events' keys: a run of the
    /// same events (most are) takes its grouping as it is.
    last: Option<(String, i32, usize)>,
    last_keys: Vec<EvKey>,
}

/// What decides an event's place in a run's grouping.
type EvKey = (i32, i64, Option<DelegateId>, Option<NameId>, bool);

fn ev_key(e: &Ev) -> EvKey {
    let profile = matches!(e.kind, Kind::Profile { .. });
    (e.instruction_id, e.chain_index, e.delegate, e.name, profile)
}

impl<'n> Grouping<'n> {
    pub fn new(values: &'n [DebugValue]) -> Self {
        Grouping {
            values,
            runs: HashMap::new(),
            signatures: HashMap::new(),
            out: Vec::new(),
            collated: Vec::new(),
            collated_at: HashMap::new(),
            run_sigs: Vec::new(),
            run_last: Vec::new(),
            sig_at: HashMap::new(),
            last: None,
            last_keys: Vec::new(),
        }
    }

    /// A run of the last run's events (by name, instruction, delegate and kind, in order)
    /// into the last run's block: its samples only. Not for dumps with debug events.
    fn same_as_last(&self, name: &str, bundled: i32, events: &[Ev]) -> Option<usize> {
        self.same_run_as_last(name, bundled, events, ev_key)
    }

    /// [`Self::same_as_last`] of a run as decoded (profile events only).
    fn same_events_as_last(
        &self,
        name: &str,
        bundled: i32,
        events: &[ProfileEvent],
    ) -> Option<usize> {
        self.same_run_as_last(name, bundled, events, |e| {
            let chain = i64::from(e.chain_index);
            (e.instruction_id, chain, e.delegate_id, e.name, true)
        })
    }

    /// The last run's block when `events`, keyed by `key`, are the last run's events.
    fn same_run_as_last<E>(
        &self,
        name: &str,
        bundled: i32,
        events: &[E],
        key: impl Fn(&E) -> EvKey,
    ) -> Option<usize> {
        let (n, bi, b) = self.last.as_ref()?;
        let same = self.values.is_empty()
            && n == name
            && *bi == bundled
            && events.len() == self.last_keys.len()
            && events
                .iter()
                .zip(&self.last_keys)
                .all(|(e, k)| key(e) == *k);
        same.then_some(*b)
    }

    /// The run's samples into block `b`: each of its signatures' profile event (by its
    /// index in the run), its start and end ticks by `ticks`.
    fn samples(
        &mut self,
        b: usize,
        ticks: impl Fn(usize) -> Option<(u64, u64)>,
    ) -> Result<(), String> {
        for (ev, &(p, _)) in self.out[b].events.iter_mut().zip(&self.run_last) {
            if let Some((start, end)) = p.and_then(&ticks) {
                ev.raw.push(sample(start, end, ev.delegated_sample)?);
                ev.start.push(start);
            }
        }
        Ok(())
    }

    pub fn run(
        &mut self,
        names: &NameTable,
        name: &str,
        bundled: i32,
        events: &[Ev],
    ) -> Result<(), String> {
        let ticks = |i: usize| match events[i].kind {
            Kind::Profile { start, end } => Some((start, end)),
            Kind::Debug { .. } => None,
        };
        if let Some(b) = self.same_as_last(name, bundled, events) {
            return self.samples(b, ticks);
        }
        let name_of = |id: Option<NameId>| id.filter(|n| !names.get(*n).is_empty());
        self.collated.clear();
        self.collated_at.clear();
        for (i, e) in events.iter().enumerate() {
            let key = (e.instruction_id, e.chain_index, e.delegate);
            let collated = &mut self.collated;
            let at = *self.collated_at.entry(key).or_insert_with(|| {
                collated.push((key, Vec::new()));
                collated.len() - 1
            });
            // A run's output (a debug event marked output) is not collated.
            if !matches!(e.kind, Kind::Debug { output: true, .. }) {
                self.collated[at].1.push(i);
            }
        }
        self.run_sigs.clear();
        self.run_last.clear();
        self.sig_at.clear();
        for (c, (_, list)) in self.collated.iter().enumerate() {
            let debug = list
                .iter()
                .map(|&i| &events[i])
                .find(|e| matches!(e.kind, Kind::Debug { .. }))
                .map(|e| (name_of(e.name), e.instruction_id, e.delegate));
            let is_profile = |i: &&usize| matches!(events[**i].kind, Kind::Profile { .. });
            let mut add = |sig: Signature, profile: Option<usize>| {
                let next = self.signatures.len() as u32;
                let id = *self.signatures.entry(sig).or_insert(next);
                // A signature met again in the run keeps its place and takes the later events.
                match self.sig_at.get(&id) {
                    Some(&k) => self.run_last[k] = (profile, c),
                    None => {
                        self.sig_at.insert(id, self.run_sigs.len());
                        self.run_sigs.push(id);
                        self.run_last.push((profile, c));
                    }
                }
            };
            if !list.iter().any(|i| is_profile(&i)) {
                if debug.is_some() {
                    let i = list[0];
                    add((events[i].instruction_id, None, None, debug, false), None);
                }
                continue;
            }
            for &i in list.iter().filter(is_profile) {
                let e = &events[i];
                add(
                    (e.instruction_id, name_of(e.name), e.delegate, debug, true),
                    Some(i),
                );
            }
        }
        let key = (
            name.to_string(),
            bundled,
            std::mem::take(&mut self.run_sigs),
        );
        let b = match self.runs.get(&key) {
            Some(&b) => b,
            None => {
                let evs = key
                    .2
                    .iter()
                    .zip(&self.run_last)
                    .map(|(_, &(p, c))| self.new_event(names, events, p, c))
                    .collect();
                self.out.push(Block {
                    name: name.to_string(),
                    events: evs,
                });
                let b = self.out.len() - 1;
                self.runs.insert(key.clone(), b);
                b
            }
        };
        self.run_sigs = key.2;
        self.samples(b, ticks)?;
        self.last = Some((name.to_string(), bundled, b));
        self.last_keys.clear();
        self.last_keys.extend(events.iter().map(ev_key));
        for (k, &(_, c)) in self.run_last.iter().enumerate() {
            let ev = &self.out[b].events[k];
            if !self.values.is_empty() && ev.debug_data.is_empty() {
                let values = debug_values(&self.collated, self.values, events, c);
                self.out[b].events[k].debug_data = values;
            }
        }
        Ok(())
    }

    fn new_event(&self, names: &NameTable, events: &[Ev], p: Option<usize>, c: usize) -> Event {
        let ident = |d: Option<DelegateId>| {
            d.map(|d| match d {
                DelegateId::Int(n) => Ident::Int(n),
                DelegateId::Str(s) => Ident::Str(names.get(s).to_string()),
            })
        };
        let label = |e: &Ev| match e.delegate {
            Some(DelegateId::Str(s)) => names.get(s).to_string(),
            Some(DelegateId::Int(n)) => n.to_string(),
            None => e.name.map(|n| names.get(n).to_string()).unwrap_or_default(),
        };
        let first_debug = self.collated[c]
            .1
            .iter()
            .map(|&i| &events[i])
            .find(|e| matches!(e.kind, Kind::Debug { .. }));
        let base = p.map(|i| &events[i]).or(first_debug).expect("an event");
        let mut name = if p.is_some() {
            label(base)
        } else {
            String::new()
        };
        let mut delegate = if p.is_some() {
            ident(base.delegate)
        } else {
            None
        };
        let delegated_sample = delegate.is_some();
        // The debug signature is applied after the profile one (as the Inspector does):
        // its name where it has one, its delegate id always.
        if let Some(d) = first_debug {
            let debug_name = label(d);
            if !debug_name.is_empty() {
                name = debug_name;
            }
            delegate = ident(d.delegate);
        }
        Event {
            name,
            instruction_id: (base.instruction_id != -1).then_some(i64::from(base.instruction_id)),
            delegate,
            raw: Vec::new(),
            start: Vec::new(),
            figures: [f64::NAN; 6],
            unprofiled: p.is_none(),
            source: None,
            debug_data: Vec::new(),
            delegated_sample,
        }
    }

    pub fn finish(mut self) -> Vec<Block> {
        for e in self.out.iter_mut().flat_map(|b| b.events.iter_mut()) {
            if !e.raw.is_empty() {
                e.figures = figures(&e.raw);
            }
        }
        self.out
    }
}

/// numpy's pairwise sum of float64 (`np.add.reduce`), the order its additions take.
fn pairwise_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for x in a {
            res += x;
        }
        res
    } else if n <= 128 {
        let mut r = [0.0f64; 8];
        r.copy_from_slice(&a[..8]);
        let mut i = 8;
        while i < n - (n % 8) {
            for j in 0..8 {
                r[j] += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        while i < n {
            res += a[i];
            i += 1;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
    }
}

/// Where `np.percentile(.., q)` (linear) reads `n` sorted samples: the ranks of the two
/// it interpolates between and how far between them.
fn percentile_at(n: usize, q: f64) -> (usize, usize, f64) {
    let virtual_index = (n - 1) as f64 * (q / 100.0);
    let below = virtual_index.floor();
    let (lo, hi) = if virtual_index >= (n - 1) as f64 {
        (n - 1, n - 1)
    } else {
        (below as usize, below as usize + 1)
    };
    (lo, hi, virtual_index - below)
}

/// numpy's linear interpolation between the samples `a` (below) and `b` at `t`.
fn interpolate(a: f64, b: f64, t: f64) -> f64 {
    let diff = b - a;
    if t >= 0.5 {
        b - diff * (1.0 - t)
    } else {
        a + diff * t
    }
}

/// Puts the samples of the `ranks` asked (ascending, each below `v.len()` plus
/// `offset`) at their places in `v` as sorted (by `total_cmp`), the rest left unsorted:
/// a selection per rank, each in the part the ranks before it left, not a whole sort.
fn select_ranks(v: &mut [f64], offset: usize, ranks: &[usize]) {
    if ranks.is_empty() || v.is_empty() {
        return;
    }
    let mid = ranks.len() / 2;
    let k = ranks[mid] - offset;
    let (below, _, above) = v.select_nth_unstable_by(k, f64::total_cmp);
    select_ranks(below, offset, &ranks[..mid]);
    select_ranks(above, offset + k + 1, &ranks[mid + 1..]);
}

/// The Inspector's figures of one event's samples: p10, p50, p90, avg, min, max.
/// The percentiles are of the samples sorted (by `total_cmp`: samples equal under it are
/// the same bits); only the ranks they read are put in place (a sort of every sample was
/// the load's largest cost of the frame's).
pub fn figures(raw: &[f64]) -> [f64; 6] {
    if raw.is_empty() {
        return [f64::NAN; 6];
    }
    let n = raw.len();
    let at = [10.0, 50.0, 90.0].map(|q| percentile_at(n, q));
    let mut ranks: Vec<usize> = vec![0, n - 1];
    ranks.extend(at.iter().flat_map(|&(lo, hi, _)| [lo, hi]));
    ranks.sort_unstable();
    ranks.dedup();
    let mut v = raw.to_vec();
    select_ranks(&mut v, 0, &ranks);
    let [p10, p50, p90] = at.map(|(lo, hi, t)| interpolate(v[lo], v[hi], t));
    let mean = pairwise_sum(raw) / n as f64;
    [p10, p50, p90, mean, v[0], v[n - 1]]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The figures read from the samples sorted whole, as numpy sorts them.
    fn by_sort(raw: &[f64]) -> [f64; 6] {
        let mut s = raw.to_vec();
        s.sort_by(f64::total_cmp);
        let p = |q| {
            let (lo, hi, t) = percentile_at(s.len(), q);
            interpolate(s[lo], s[hi], t)
        };
        let mean = pairwise_sum(raw) / raw.len() as f64;
        [p(10.0), p(50.0), p(90.0), mean, s[0], s[s.len() - 1]]
    }

    /// The ranks selected are the ranks of the whole sort, bit for bit, for every length
    /// from 1 to 300 and samples with ties, signed zeros and NaN.
    #[test]
    fn selected_ranks_are_the_sorted_ones() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for n in 1..300 {
            let raw: Vec<f64> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    match x % 17 {
                        0 => f64::NAN,
                        1 => -0.0,
                        2 => 0.0,
                        k => (k % 5) as f64 / 1e3 + (x % 1000) as f64 / 1e6,
                    }
                })
                .collect();
            let got = figures(&raw).map(f64::to_bits);
            assert_eq!(got, by_sort(&raw).map(f64::to_bits), "n = {n}");
        }
    }
}
