//! Reload latency of the directory watcher: time from a runner finishing its output (log,
//! then dump, fully written and closed) to the `WatchEvent::Ready` for it, with the default
//! configuration (debounce 200 ms, quiet 150 ms), native events and `poll`.
//! The budget: <= 500 ms plus the debounce interval (for the watcher part; the
//! explorer's pipeline then adds the load time of the dump).
//!
//! Each run starts with the watcher idle (no event pending in the debouncer), so the
//! figure is the full path: event -> debounce -> listing -> checks -> Ready. A plain
//! `main` (criterion's adaptive iteration counts would need minutes of idle gaps).
//!
//! `cargo bench --bench watch_latency`  (RUNS=n to change the 20 runs per mode)

use std::fs;
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use cpuprof_tui::watch::{spawn_watcher, WatchConfig, WatchEvent};

/// Idle time before each run: well over the debounce, so nothing is pending.
const IDLE: Duration = Duration::from_millis(600);

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/cpu")
        .join(name);
    fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

struct Rig {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    rx: Receiver<WatchEvent>,
    _handle: cpuprof_tui::watch::WatchHandle,
    dump: Vec<u8>,
    log: Vec<u8>,
    runs: usize,
    samples: Vec<Duration>,
}

impl Rig {
    fn new(poll: bool) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let (tx, rx) = mpsc::channel();
        let config = WatchConfig {
            poll,
            ..WatchConfig::new(&dir)
        };
        let handle = spawn_watcher(config, tx).unwrap();
        Rig {
            _tmp: tmp,
            dir,
            rx,
            _handle: handle,
            dump: fixture("mlp_basic.etdp"),
            log: fixture("mlp_basic.log"),
            runs: 0,
            samples: Vec::new(),
        }
    }

    /// One run: write its log and dump, wait for the Ready; record the latency.
    fn one_run(&mut self) {
        std::thread::sleep(IDLE);
        if let Ok(ev) = self.rx.try_recv() {
            panic!("unexpected {ev:?}");
        }
        self.runs += 1;
        let name = format!("run{:04}", self.runs);
        fs::write(self.dir.join(format!("{name}.log")), &self.log).unwrap();
        let dump = self.dir.join(format!("{name}.etdp"));
        fs::write(&dump, &self.dump).unwrap();
        let written = Instant::now();
        match self.rx.recv_timeout(Duration::from_secs(10)) {
            Ok(WatchEvent::Ready(pair)) if pair.etdump == dump => {}
            Ok(other) => panic!("unexpected {other:?}"),
            Err(e) => panic!("no Ready for {}: {e}", dump.display()),
        }
        self.samples.push(written.elapsed());
    }

    fn summary(&mut self, label: &str) {
        // Printed to stdout: this is the bench's result.
        self.samples.sort();
        let n = self.samples.len();
        if n == 0 {
            return;
        }
        let pct = |p: usize| self.samples[(n - 1) * p / 100];
        println!(
            "watch_latency {label}: {n} runs, min {:?}, median {:?}, p90 {:?}, max {:?}",
            self.samples[0],
            pct(50),
            pct(90),
            self.samples[n - 1]
        );
    }
}

fn main() {
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    for (label, poll) in [("native", false), ("poll", true)] {
        let mut rig = Rig::new(poll);
        for _ in 0..runs {
            rig.one_run();
        }
        rig.summary(label);
    }
}
