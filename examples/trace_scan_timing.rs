//! The Chrome/Kineto JSON reader alone, in process, on a file held in memory: the
//! one-thread scan and the scan in two parts, each timed `N` times (interleaved), min
//! and median printed. `cargo run --release --example trace_scan_timing -- TRACE.json [N]`
use std::time::Instant;

use cpuprof_tui::trace;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: trace_scan_timing TRACE.json [N]");
    let n: usize = args.next().map_or(9, |s| s.parse().expect("N"));
    let text = std::fs::read(&path).expect("reads the file");
    let half = [text.len() as u64 / 2];
    let mut one = Vec::new();
    let mut two = Vec::new();
    let mut events = 0;
    for _ in 0..n {
        let t = Instant::now();
        let set = trace::read_chrome_json_cut_at(&text, &[], false)
            .0
            .expect("reads");
        one.push(t.elapsed().as_secs_f64() * 1e3);
        events = set.counts.events;
        let t = Instant::now();
        let (set, _) = trace::read_chrome_json_cut_at(&text, &half, true);
        two.push(t.elapsed().as_secs_f64() * 1e3);
        assert_eq!(set.expect("reads").counts.events, events);
    }
    let show = |what: &str, v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let mb = text.len() as f64 / 1e6;
        println!(
            "{what:<10} min {:>7.2} ms  median {:>7.2} ms  ({:.0} MB/s at the min)",
            v[0],
            v[v.len() / 2],
            mb / v[0] * 1e3
        );
    };
    println!(
        "{path}: {:.1} MB, {events} events, {n} runs",
        text.len() as f64 / 1e6
    );
    show("one thread", &mut one);
    show("two parts", &mut two);
}
