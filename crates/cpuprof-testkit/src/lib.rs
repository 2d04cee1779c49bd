//! Helpers for the tests, benches and examples of cpuprof-tui, kept out of the library
//! (and so out of the release binary): a dev-dependency of both crates.

pub mod ctf_writer;
pub mod sample;
