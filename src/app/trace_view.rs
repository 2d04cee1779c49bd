//! The explorer's view of a PyTorch operator trace: call trees per thread instead of the
//! plan tree, and one operator row per op name.

use super::ExplorerData;
use crate::trace::TraceProfile;

impl ExplorerData {
    pub fn from_trace(trace: &TraceProfile) -> ExplorerData {
        let _ = trace;
        ExplorerData::default()
    }
}
