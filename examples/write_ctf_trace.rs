//! Write a synthetic THAPI-like LTTng CTF trace (for benchmarks and manual checks):
//! `cargo run --release --example write_ctf_trace -- OUT_DIR [EVENTS]`.

use std::path::PathBuf;

use cpuprof_testkit::ctf_writer::{write_workload, WriterConfig};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(out) = args.next() else {
        eprintln!("usage: write_ctf_trace OUT_DIR [EVENTS]");
        std::process::exit(2);
    };
    let events = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let cfg = WriterConfig {
        streams: 4,
        packet_size: 256 * 1024,
        ..WriterConfig::default()
    };
    let dir = PathBuf::from(out).join("ust/uid/1000/64-bit");
    match write_workload(&dir, cfg, events, 8) {
        Ok(calls) => println!("{} closed calls written to {}", calls.len(), dir.display()),
        Err(e) => {
            eprintln!("write_ctf_trace: {}: {e}", dir.display());
            std::process::exit(2);
        }
    }
}
