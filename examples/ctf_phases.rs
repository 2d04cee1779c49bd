use cpuprof_tui::trace::{ctf, tally, TraceProfile};
struct Instant(u64);
impl Instant {
    fn now() -> Self { Instant(cpu()) }
    fn elapsed(&self) -> std::time::Duration { std::time::Duration::from_nanos(cpu() - self.0) }
}
fn cpu() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat").unwrap().split_whitespace().next().unwrap().parse().unwrap()
}
fn main() {
    let root = std::path::PathBuf::from(std::env::args().nth(1).unwrap());
    let t = Instant::now();
    let (traces, _) = ctf::open_traces(&root).unwrap();
    println!("open {:?}", t.elapsed());
    let t = Instant::now();
    let mut n = 0u64;
    ctf::for_each_event(&traces, |ev| n += ev.cycles & 1).unwrap();
    println!("decode {:?}", t.elapsed());
    drop(traces);
    let t = Instant::now();
    let set = ctf::read_dir_intervals(&root).unwrap();
    println!("intervals {:?}", t.elapsed());
    let t = Instant::now();
    let p = TraceProfile::build(set, "x");
    println!("build {:?}", t.elapsed());
    let t = Instant::now();
    let s = tally::render_tally(
        &tally::TallyInput::from_profile(&p),
        tally::TallyOptions::default(),
    );
    println!("render {:?} {}", t.elapsed(), s.len() + n as usize);
}
