//! A load failed: the message naming the file, over the last good profile.

pub mod keys;
pub mod render;
