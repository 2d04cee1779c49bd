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

use cpuprof_tui::etdump::{DelegateId, EtDump, NameId, ProfileEvent};

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
}

/// A block of runs of one signature.
pub struct Block {
    pub name: String,
    pub events: Vec<Event>,
}

/// The signature of an event in a run: (instruction id, name, delegate id); an absent or
/// empty name is None.
type Signature = (i32, Option<NameId>, Option<DelegateId>);

/// The key of an instruction event: the events the Inspector collates in a run.
type Collated = (i32, i32, Option<DelegateId>);

const MS_PER_TICK_DIVISOR: f64 = 1e6;
const MAX_U32: u64 = u32::MAX as u64;

/// A sample as the Inspector computes it. Err where the Inspector raises (an end before
/// its start beyond 32 bits).
fn sample(e: &ProfileEvent, delegated: bool) -> Result<f64, String> {
    let (s, t) = (e.start_ticks, e.end_ticks);
    let wrapped = s > t;
    if wrapped && (s > MAX_U32 || t > MAX_U32) {
        return Err(format!(
            "an event ends before it starts (start {s}, end {t}) beyond 32-bit wrap-around"
        ));
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

/// The dump's blocks and events as the Inspector's frame lists them.
pub fn blocks(dump: &EtDump) -> Result<Vec<Block>, String> {
    let names = &dump.names;
    let name_of = |id: Option<NameId>| id.filter(|n| !names.get(*n).is_empty());
    // Run signature (block name, bundled input, event signatures) -> block index.
    let mut runs: HashMap<(&str, i32, Vec<u32>), usize> = HashMap::new();
    let mut signatures: HashMap<Signature, u32> = HashMap::new();
    let mut out: Vec<Block> = Vec::new();
    // Per run, reused: the collated instruction events in first-seen order.
    let mut collated: Vec<(Collated, Vec<usize>)> = Vec::new();
    let mut collated_at: HashMap<Collated, usize> = HashMap::new();
    let mut run_sigs: Vec<u32> = Vec::new();
    let mut run_last: Vec<usize> = Vec::new();
    let mut sig_at: HashMap<u32, usize> = HashMap::new();
    for block in &dump.blocks {
        let events = dump.block_events(block);
        if block.events.is_empty() {
            // A run without events has no block (the Inspector skips it).
            continue;
        }
        collated.clear();
        collated_at.clear();
        for (i, e) in events.iter().enumerate() {
            let key = (e.instruction_id, e.chain_index, e.delegate_id);
            let at = *collated_at.entry(key).or_insert_with(|| {
                collated.push((key, Vec::new()));
                collated.len() - 1
            });
            collated[at].1.push(i);
        }
        run_sigs.clear();
        run_last.clear();
        sig_at.clear();
        for (_, list) in &collated {
            for &i in list {
                let e = &events[i];
                let sig: Signature = (e.instruction_id, name_of(e.name), e.delegate_id);
                let next = signatures.len() as u32;
                let id = *signatures.entry(sig).or_insert(next);
                // A signature met again in the run keeps its place and takes the later event.
                match sig_at.get(&id) {
                    Some(&k) => run_last[k] = i,
                    None => {
                        sig_at.insert(id, run_sigs.len());
                        run_sigs.push(id);
                        run_last.push(i);
                    }
                }
            }
        }
        let key = (
            block.name.as_ref(),
            block.bundled_input_index,
            run_sigs.clone(),
        );
        let b = match runs.get(&key) {
            Some(&b) => b,
            None => {
                let evs = run_last
                    .iter()
                    .map(|&i| {
                        let e = &events[i];
                        Event {
                            name: dump.label(e).into_owned(),
                            instruction_id: (e.instruction_id != -1)
                                .then_some(i64::from(e.instruction_id)),
                            delegate: e.delegate_id.map(|d| match d {
                                DelegateId::Int(n) => Ident::Int(n),
                                DelegateId::Str(s) => Ident::Str(names.get(s).to_string()),
                            }),
                            raw: Vec::new(),
                            start: Vec::new(),
                            figures: [f64::NAN; 6],
                        }
                    })
                    .collect();
                out.push(Block {
                    name: block.name.to_string(),
                    events: evs,
                });
                runs.insert(key, out.len() - 1);
                out.len() - 1
            }
        };
        for (ev, &i) in out[b].events.iter_mut().zip(&run_last) {
            let e = &events[i];
            ev.raw.push(sample(e, ev.delegate.is_some())?);
            ev.start.push(e.start_ticks);
        }
    }
    for e in out.iter_mut().flat_map(|b| b.events.iter_mut()) {
        e.figures = figures(&e.raw);
    }
    Ok(out)
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

/// `np.percentile(sorted, q)` (linear) of sorted samples.
fn percentile(sorted: &[f64], q: f64) -> f64 {
    let n = sorted.len();
    let virtual_index = (n - 1) as f64 * (q / 100.0);
    let below = virtual_index.floor();
    let (lo, hi) = if virtual_index >= (n - 1) as f64 {
        (n - 1, n - 1)
    } else {
        (below as usize, below as usize + 1)
    };
    let t = virtual_index - below;
    let (a, b) = (sorted[lo], sorted[hi]);
    let diff = b - a;
    if t >= 0.5 {
        b - diff * (1.0 - t)
    } else {
        a + diff * t
    }
}

/// The Inspector's figures of one event's samples: p10, p50, p90, avg, min, max.
pub fn figures(raw: &[f64]) -> [f64; 6] {
    if raw.is_empty() {
        return [f64::NAN; 6];
    }
    let mut sorted = raw.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mean = pairwise_sum(raw) / raw.len() as f64;
    [
        percentile(&sorted, 10.0),
        percentile(&sorted, 50.0),
        percentile(&sorted, 90.0),
        mean,
        sorted[0],
        sorted[sorted.len() - 1],
    ]
}
