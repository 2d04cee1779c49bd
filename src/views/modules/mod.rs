//! The nn.Module tree with inclusive times (`m`, with an ETRecord).

pub mod keys;
pub mod render;
pub mod state;
