//! Findings, decoded plans and the runner log (`w`, `v`), with a cursor and search.

pub mod keys;
pub mod render;
pub mod state;
