//! Many profiles at once (`fleet PATH...`): profiles list, rows table of a group, detail.

pub mod keys;
pub mod render;
pub mod rows;
pub mod state;
