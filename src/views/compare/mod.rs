//! Two profiles compared (`compare A B`; `d` in watch mode and the fleet).

pub mod detail;
pub mod keys;
pub mod render;
pub mod state;
