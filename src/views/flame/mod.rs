//! The flame graph (`f`): an icicle of the explorer's tree or of a comparison's rows, its sandwich and left-heavy forms.

pub mod build;
pub mod keys;
pub mod layout;
pub mod merge;
pub mod model;
pub mod modes;
pub mod render;
pub mod sandwich;
pub mod state;
