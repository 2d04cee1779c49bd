//! What the explorer's worker does with a dump, timed: the first progress report, each
//! phase's start, and the profile. Run under `/usr/bin/time -f %M` for peak RSS.
//! `cargo run --release --example load_timing -- DUMP.etdp`
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use cpuprof_tui::profile::{load_profile, LoadPhase, ProfileRequest};

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: load_timing DUMP.etdp");
    let request = ProfileRequest::new(path.into(), None, 0);
    let t = Instant::now();
    let mut first = None;
    let mut phase: Option<LoadPhase> = None;
    let profile = load_profile(
        &request,
        &mut |p| {
            if first.is_none() {
                first = Some(t.elapsed());
            }
            if phase != Some(p.phase) {
                eprintln!("{:>8.1?}  {}", t.elapsed(), p.phase.label());
                phase = Some(p.phase);
            }
        },
        &AtomicBool::new(false),
    )
    .expect("loads");
    eprintln!(
        "first progress after {:.1?}; profile ({} runs) after {:.1?}",
        first.unwrap_or_default(),
        profile.runs.total,
        t.elapsed()
    );
    // What the explorer builds from it before its first frame.
    let t = Instant::now();
    let data = cpuprof_tui::app::ExplorerData::from_profile(&profile);
    let view = t.elapsed();
    drop(profile);
    eprintln!(
        "view model after {view:.1?}; profile dropped after {:.1?}",
        t.elapsed()
    );
    drop(data);
}
