//! Writes a big ETDump by repeating the `Execute` runs of a real fixture, plus a copy of
//! its log, for benchmarks and measurement scripts.
//! `cargo run --release --example make_big_dump -- SOURCE.etdp OUT.etdp MEGABYTES`
use cpuprof_testkit::big_dump;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!("usage: make_big_dump SOURCE.etdp OUT.etdp MEGABYTES");
        std::process::exit(2);
    }
    let source = std::fs::read(&args[1]).expect("read source");
    let mb: usize = args[3].parse().expect("MEGABYTES is a number");
    let (bytes, runs) = big_dump::repeat_execute_runs(&source, mb * 1_000_000);
    std::fs::write(&args[2], &bytes).expect("write dump");
    let log = std::path::Path::new(&args[1]).with_extension("log");
    if log.is_file() {
        std::fs::copy(&log, std::path::Path::new(&args[2]).with_extension("log"))
            .expect("copy log");
    }
    println!(
        "{}: {:.1} MB, {runs} Execute runs",
        args[2],
        bytes.len() as f64 / 1e6
    );
}
