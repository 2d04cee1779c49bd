//! The key tables (`?`), searchable, over the view it was opened from.

pub mod keys;
pub mod render;
pub mod state;
