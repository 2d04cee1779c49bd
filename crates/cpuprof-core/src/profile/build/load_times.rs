//! Method load times: the `Method::init` and `Program::load_method` events of each
//! `Default` block, and which run group each load belongs to.

use super::super::model::*;
use crate::etdump::EtDump;

/// One `Default` block (one method load): its times and its place among the dump's blocks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MethodLoad {
    /// Index of the block in the whole dump (runs of every kind counted).
    pub block: usize,
    pub times: Option<LoadTimes>,
}

/// Load-time events of each `Default` block of `dump`, in order. `positions` gives the
/// index in the whole dump of each of `dump.blocks` when they are a selection of its
/// blocks (the stream keeps only the blocks that are not `Execute`); None when they are
/// all of them.
pub(crate) fn load_times(dump: &EtDump, positions: Option<&[usize]>) -> Vec<MethodLoad> {
    dump.blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| b.name == "Default")
        .map(|(i, block)| {
            let mut t = LoadTimes::default();
            for ev in dump.block_events(block) {
                let ms = super::super::collect::duration_ms(ev.start_ticks, ev.end_ticks);
                match dump.name(ev) {
                    Some("Method::init") => t.method_init = ms,
                    Some("Program::load_method") => t.program_load_method = ms,
                    _ => {}
                }
            }
            MethodLoad {
                block: positions.and_then(|p| p.get(i).copied()).unwrap_or(i),
                times: (t.method_init.is_some() || t.program_load_method.is_some()).then_some(t),
            }
        })
        .collect()
}

/// The load of each run group, given the dump index of each group's first run. A runtime
/// that loads each method on first use (the pybindings, a runner's `Module`) writes the
/// method's `Default` block just before its first run: when every load is such a lone
/// block (no two loads in a row), a group's load is the one just before its first run
/// (constant methods and `prefill`/`decode` each get their own; a group whose method was
/// loaded for an earlier group, a `torch.cond` branch, gets none). Loads made together
/// up front are given in order when there are as many as groups, else the first to the
/// first group.
pub(crate) fn group_loads(loads: &[MethodLoad], first_runs: &[usize]) -> Vec<Option<LoadTimes>> {
    let lone = loads.windows(2).all(|w| w[1].block != w[0].block + 1);
    if lone && !loads.is_empty() {
        return first_runs
            .iter()
            .map(|&f| {
                loads
                    .iter()
                    .find(|l| l.block + 1 == f)
                    .and_then(|l| l.times)
            })
            .collect();
    }
    (0..first_runs.len())
        .map(|g| {
            if loads.len() == first_runs.len() {
                loads[g].times
            } else if g == 0 {
                loads.first().and_then(|l| l.times)
            } else {
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(block: usize, init: f64) -> MethodLoad {
        MethodLoad {
            block,
            times: Some(LoadTimes {
                method_init: Some(init),
                program_load_method: None,
            }),
        }
    }

    fn inits(v: Vec<Option<LoadTimes>>) -> Vec<Option<f64>> {
        v.into_iter()
            .map(|l| l.and_then(|l| l.method_init))
            .collect()
    }

    #[test]
    fn each_group_gets_the_load_just_before_its_first_run() {
        // fixtures/wild/const_methods: D E D E D E D E(prefill) D E(decode) ...: three
        // constant methods in one group (first run 1), prefill (7), decode (9).
        let loads = [
            load(0, 1.0),
            load(2, 2.0),
            load(4, 3.0),
            load(6, 4.0),
            load(8, 5.0),
        ];
        assert_eq!(
            inits(group_loads(&loads, &[1, 7, 9])),
            [Some(1.0), Some(4.0), Some(5.0)]
        );
        // A second branch group of a method loaded once: no load of its own.
        assert_eq!(
            inits(group_loads(&[load(0, 1.0)], &[1, 3])),
            [Some(1.0), None]
        );
    }

    #[test]
    fn loads_made_up_front_go_in_order() {
        let loads = [load(0, 1.0), load(1, 2.0)];
        assert_eq!(inits(group_loads(&loads, &[2, 3])), [Some(1.0), Some(2.0)]);
        assert_eq!(inits(group_loads(&loads, &[2])), [Some(1.0)]);
        assert_eq!(
            inits(group_loads(&loads, &[2, 3, 5])),
            [Some(1.0), None, None]
        );
        assert_eq!(inits(group_loads(&[], &[0])), [None]);
    }
}
