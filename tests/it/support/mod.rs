//! Helpers shared by the integration tests (`tests/it`); those the benches and the
//! allocation tests share too live in the dev-only `cpuprof-testkit` crate.
#![allow(dead_code, unused_imports)]

pub use cpuprof_testkit::{big_dump, etdump_build, pty};
pub mod child;
pub mod explorer;
pub mod fleet_files;
pub mod render;
