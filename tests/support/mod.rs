//! Helpers shared by the integration tests (`tests/it`), and by benches and the
//! allocation tests through `#[path]`.
#![allow(dead_code, unused_imports)]

pub mod big_dump;
pub mod child;
pub mod etdump_build;
pub mod explorer;
pub mod fleet_files;
pub mod pty;
pub mod render;
