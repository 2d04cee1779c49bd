//! Method load times: the `Method::init` and `Program::load_method` events of each
//! `Default` block.

use super::super::model::*;
use crate::etdump::EtDump;

/// Load-time events of each `Default` block (one per method load), in order.
pub(crate) fn load_times(dump: &EtDump) -> Vec<Option<LoadTimes>> {
    dump.blocks
        .iter()
        .filter(|b| b.name == "Default")
        .map(|block| {
            let mut t = LoadTimes::default();
            for ev in dump.block_events(block) {
                let ms = super::super::collect::duration_ms(ev.start_ticks, ev.end_ticks);
                match dump.name(ev) {
                    Some("Method::init") => t.method_init = ms,
                    Some("Program::load_method") => t.program_load_method = ms,
                    _ => {}
                }
            }
            (t.method_init.is_some() || t.program_load_method.is_some()).then_some(t)
        })
        .collect()
}
