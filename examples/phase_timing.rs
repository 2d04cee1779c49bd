//! Times each phase of `report --format json` on one dump: read, parse, build, JSON.
//! `cargo run --release --example phase_timing -- DUMP.etdp [LOG]`
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = std::path::Path::new(&args[1]);
    let t = Instant::now();
    let bytes = std::fs::read(path).unwrap();
    let read = t.elapsed();
    let t = Instant::now();
    let dump = cpuprof_tui::etdump::parse(&bytes).unwrap();
    let parse = t.elapsed();
    let log = args
        .get(2)
        .map(|l| cpuprof_tui::runlog::read_file(std::path::Path::new(l)).unwrap());
    let t = Instant::now();
    let source = cpuprof_tui::profile::ProfileSource {
        etdump: args[1].clone(),
        log: None,
    };
    let profile = cpuprof_tui::profile::build_profile(&dump, log.as_ref(), 0, source).unwrap();
    let build = t.elapsed();
    let t = Instant::now();
    let json = cpuprof_tui::report::profile_json(&profile);
    let js = t.elapsed();
    println!(
        "{} MB, {} events: read {read:?} parse {parse:?} build {build:?} json {js:?} ({} MB json)",
        bytes.len() as f64 / 1e6,
        dump.events.len(),
        json.len() as f64 / 1e6
    );
}
