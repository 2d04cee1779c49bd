//! One run on a time axis (`t`): lanes, zoom, pan, run stepping, search.

pub mod keys;
pub mod lanes;
pub mod render;
pub mod search;
pub mod state;
