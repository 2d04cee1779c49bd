//! Where the time of a CTF tally goes, phase by phase, in process (perf is often not
//! available): opening (search, metadata, maps), decoding and merging alone, the
//! checksum pass over the same bytes, decoding with the tally pairing, and the whole
//! model. `cargo run --release --example ctf_phases -- DIR [REPEATS]`.

use std::path::PathBuf;
use std::time::Instant;

use cpuprof_tui::trace::ctf;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next().map(PathBuf::from) else {
        eprintln!("usage: ctf_phases DIR [REPEATS]");
        std::process::exit(2);
    };
    let repeats: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(3);
    let best = |label: &str, f: &mut dyn FnMut() -> u64| {
        let mut times = Vec::new();
        let mut out = 0;
        for _ in 0..repeats {
            let t = Instant::now();
            out = f();
            times.push(t.elapsed().as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        println!("{label:<40} {:>8.1} ms   ({out})", times[0] * 1e3);
    };
    best("open (search, metadata, map)", &mut || {
        let (traces, _) =
            ctf::open_traces(&dir, cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).expect("open");
        traces.iter().map(|t| t.streams.len() as u64).sum()
    });
    let (traces, _) =
        ctf::open_traces(&dir, cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).expect("open");
    best("checksum of the mapped streams", &mut || {
        let mut sum = 0u64;
        for s in traces.iter().flat_map(|t| &t.streams) {
            for w in s.data.bytes.chunks_exact(8) {
                sum = sum.wrapping_add(u64::from_le_bytes(w.try_into().unwrap()));
            }
        }
        sum
    });
    drop(traces);
    best("open + decode + merge (no pairing)", &mut || {
        let (traces, _) =
            ctf::open_traces(&dir, cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).expect("open");
        let mut n = 0u64;
        ctf::for_each_event(&traces, |ev| n += ev.cycles & 1).expect("decode");
        n
    });
    best("tally_dir (decode + tally pairing)", &mut || {
        let t = ctf::tally_dir(&dir, cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).expect("tally");
        t.tally.rows.iter().map(|r| r.calls).sum()
    });
    best("load_dir (decode + intervals + model)", &mut || {
        let p = ctf::load_dir(&dir, cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).expect("load");
        p.ops.iter().map(|o| o.calls).sum()
    });
}
