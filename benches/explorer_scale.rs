//! The explorer on a big CpuBackend dump (issue #13), figures printed beside their
//! targets:
//! - the real binary in a 160x48 pseudo-terminal: time from spawn to the first frame
//!   with the loading gauge (target <= 100 ms) and to the first frame with the profile
//!   (target <= 1 s, issue #26; 3 s in issue #13), and its peak RSS (`/usr/bin/time -f %M`; target <= 1.5 x file +
//!   64 MB);
//! - in process, on the loaded profile: update + render at 160x48 on `TestBackend` of
//!   each key path a user hits (target <= 16 ms per key), and the time to load the
//!   timeline (`t`, off the UI thread) and the cost of its keys.
//!
//! Input: a dump made by repeating the Execute runs of `fixtures/cpu/wide_browse.etdp`,
//! ~100 MB, or ~1 GB with `CPUPROF_BENCH_1GB=1` (~20 s to build; the shape of
//! `/tmp/cpu1g.etdp`: 86,835 runs, ~8 M events). Built in a temporary folder, never kept.
//! The machine is shared: the load average is printed with the figures, and the
//! process's CPU time beside wall times.
//!
//! `cargo bench --bench explorer_scale` (a plain main, no criterion: a 1 GB load takes
//! seconds, and the figure that matters per key is the worst one, not a mean).

use cpuprof_testkit::big_dump;
use cpuprof_testkit::pty;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use cpuprof_tui::app::{update, Action, AppState, Column, Command, Effect};
use cpuprof_tui::profile::ProfileRequest;
use cpuprof_tui::ui::{self, Theme};
use cpuprof_tui::views::timeline::state::TimelineCommand;
use portable_pty::CommandBuilder;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

const BIN: &str = env!("CARGO_BIN_EXE_cpuprof-tui");

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

fn vm_rss() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .map(|l| l.trim_start_matches("VmRSS:").trim().to_string())
        })
        .unwrap_or_else(|| "?".into())
}

/// User + system CPU time of this process so far.
fn cpu_time() -> Duration {
    // SAFETY: getrusage fills a zeroed struct.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(u.ru_utime) + tv(u.ru_stime)
}

fn build_input(dir: &Path) -> (PathBuf, usize) {
    let big = std::env::var_os("CPUPROF_BENCH_1GB").is_some();
    let target = if big { 1_000_000_000 } else { 100_000_000 };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read(root.join("fixtures/cpu/wide_browse.etdp")).expect("fixture");
    let t = Instant::now();
    let (bytes, runs) = big_dump::repeat_execute_runs(&source, target);
    let name = if big { "cpu_1gb" } else { "cpu_100mb" };
    let path = dir.join(format!("{name}.etdp"));
    // Written out before timing: a gigabyte of dirty pages being flushed meanwhile
    // would slow the first runs' start, not the explorer.
    let mut f = std::fs::File::create(&path).expect("create dump");
    std::io::Write::write_all(&mut f, &bytes).expect("write dump");
    f.sync_all().expect("sync dump");
    std::fs::copy(
        root.join("fixtures/cpu/wide_browse.log"),
        dir.join(format!("{name}.log")),
    )
    .expect("log");
    eprintln!(
        "explorer_scale: built {} ({:.1} MB, {runs} runs) in {:.1?}{}",
        path.display(),
        bytes.len() as f64 / 1e6,
        t.elapsed(),
        if big {
            ""
        } else {
            " (CPUPROF_BENCH_1GB=1 for the 1 GB target)"
        }
    );
    (path, bytes.len())
}

struct PtyRun {
    first_progress: Option<Duration>,
    profile: Option<Duration>,
    peak_rss_kib: Option<u64>,
}

/// The binary (under `/usr/bin/time` when installed) on `path` in a 160x48 terminal:
/// when the gauge and then the profile first show, then `q` and its peak RSS.
fn pty_run(path: &Path, open_timeline: bool) -> PtyRun {
    let time = Path::new("/usr/bin/time").is_file();
    let mut cmd = if time {
        let mut c = CommandBuilder::new("/usr/bin/time");
        c.args(["-f", "peak-rss-kib=%M", BIN]);
        c
    } else {
        CommandBuilder::new(BIN)
    };
    cmd.arg(path);
    let start = Instant::now();
    let mut s = pty::Session::start_command(48, 160, cmd);
    let (mut first_progress, mut profile) = (None, None);
    // One terminal emulator fed only the new bytes: re-parsing all the output every
    // poll (what `Session::screen` does) would take CPU from the explorer on 2 cores.
    let size = |n: u16| std::num::NonZeroU16::new(n).expect("non-zero");
    let mut parser = vt100::Parser::new(size(48), size(160), 0);
    let mut fed = 0;
    while start.elapsed() < Duration::from_secs(60) {
        {
            let out = s.output.lock().expect("output");
            parser.process(&out[fed..]);
            fed = out.len();
        }
        let screen = parser.screen().contents();
        if first_progress.is_none() && screen.contains("Loading") {
            first_progress = Some(start.elapsed());
        }
        // The header's run count ("runs N kept, M warm-up dropped (of T)", or "runs N
        // kept of T · <rule>" when the warm-up was chosen by a rule) is only drawn for a
        // loaded profile.
        if screen.contains("runs ") && screen.contains(" kept") {
            profile = Some(start.elapsed());
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    if open_timeline && profile.is_some() {
        s.send("t");
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(120) {
            {
                let out = s.output.lock().expect("output");
                parser.process(&out[fed..]);
                fed = out.len();
            }
            if parser.screen().contents().contains("Timeline · run") {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        s.send("t");
    }
    s.send("q");
    s.wait_exit();
    let out = String::from_utf8_lossy(&s.final_output()).into_owned();
    let peak_rss_kib = out
        .split("peak-rss-kib=")
        .nth(1)
        .and_then(|t| t.split_whitespace().next()?.parse().ok());
    PtyRun {
        first_progress,
        profile,
        peak_rss_kib,
    }
}

fn key(c: char) -> Action {
    Action::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

/// Update + render of each action of `path`: (median, worst) in ms.
fn time_path(
    state: &mut AppState,
    term: &mut Terminal<TestBackend>,
    theme: &Theme,
    actions: Vec<Action>,
) -> (f64, f64) {
    let mut times: Vec<f64> = actions
        .into_iter()
        .map(|a| {
            let t = Instant::now();
            update(state, a);
            term.draw(|f| ui::draw(f, state, theme)).expect("draw");
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[times.len() - 1])
}

fn main() {
    // `cargo bench` passes --bench; a filter argument is not supported (one report).
    let dir = tempfile::tempdir().expect("tempdir");
    let (path, size) = build_input(dir.path());
    let mb = size as f64 / 1e6;
    // Building the dump left this process's heap large; the pty harness forks it, and
    // a fork copies the page tables of all that: give the memory back first, so the
    // time to first frame measures the explorer, not the fork.
    #[cfg(target_os = "linux")]
    // SAFETY: malloc_trim only returns free heap memory to the system.
    unsafe {
        libc::malloc_trim(0);
    }
    eprintln!(
        "explorer_scale: this process's resident set before the pty runs: {}",
        vm_rss()
    );
    let rss_target_mb = 1.5 * mb + 64.0;

    eprintln!(
        "\nexplorer_scale: real binary in a 160x48 pty (load average {})",
        load_average()
    );
    let runs: Vec<PtyRun> = (0..3).map(|_| pty_run(&path, false)).collect();
    let ms = |d: Option<Duration>| d.map_or(f64::NAN, |d| d.as_secs_f64() * 1e3);
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let progress = median(runs.iter().map(|r| ms(r.first_progress)).collect());
    let profile = median(runs.iter().map(|r| ms(r.profile)).collect());
    let rss = runs.iter().filter_map(|r| r.peak_rss_kib).max();
    eprintln!(
        "  {:<34} {:>12} {:>14}",
        "measure (median of 3)", "now", "target"
    );
    eprintln!(
        "  {:<34} {:>9.0} ms {:>11} ms",
        "first frame with progress", progress, 100
    );
    eprintln!(
        "  {:<34} {:>9.0} ms {:>11} ms  {}",
        "first frame with the profile",
        profile,
        1000,
        if profile <= 1000.0 { "ok" } else { "MISSED" }
    );
    match rss {
        Some(k) => eprintln!(
            "  {:<34} {:>9.0} MB {:>11.0} MB  (1.5 x {mb:.0} MB + 64 MB)",
            "peak RSS (worst of 3)",
            k as f64 * 1024.0 / 1e6,
            rss_target_mb
        ),
        None => eprintln!("  peak RSS: /usr/bin/time not installed"),
    }
    if let Some(k) = pty_run(&path, true).peak_rss_kib {
        eprintln!(
            "  {:<34} {:>9.0} MB {:>11.0} MB",
            "peak RSS, timeline opened (t)",
            k as f64 * 1024.0 / 1e6,
            rss_target_mb
        );
    }

    // In process: load as the worker does, then keys on TestBackend.
    let request = ProfileRequest::new(path.clone(), None, 0);
    let never = AtomicBool::new(false);
    let (t, cpu) = (Instant::now(), cpu_time());
    let input = cpuprof_tui::profile::read_dump(&request, &mut |_| {}, &never).expect("dump");
    let profile =
        cpuprof_tui::profile::load_profile_from_input(&request, &input, &mut |_| {}, &never)
            .expect("profile loads");
    drop(input);
    let (t_profile, cpu_profile) = (t.elapsed(), cpu_time() - cpu);
    let (t, cpu) = (Instant::now(), cpu_time());
    let data = cpuprof_tui::app::ExplorerData::from_profile(&profile);
    drop(profile);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    eprintln!(
        "\nexplorer_scale: in process (load average {}): map + decode + build {:.0} ms wall, {:.0} ms CPU; view model {:.0} ms wall, {:.0} ms CPU",
        load_average(),
        ms(t_profile),
        ms(cpu_profile),
        ms(t.elapsed()),
        ms(cpu_time() - cpu)
    );
    let mut state = AppState::new(160, 48);
    let generation = match state.load(request.clone()).first() {
        Some(Effect::Load { generation, .. }) => *generation,
        _ => unreachable!("a load effect"),
    };
    update(
        &mut state,
        Action::Loaded {
            generation,
            result: Ok(Box::new(data)),
        },
    );
    let mut term = Terminal::new(TestBackend::new(160, 48)).expect("terminal");
    let theme = Theme::from_env();
    term.draw(|f| ui::draw(f, &state, &theme)).expect("draw");

    let cmd = |c: Command, n: usize| (0..n).map(move |_| Action::Command(c));
    let paths: Vec<(&str, Vec<Action>)> = vec![
        ("move down (tree)", cmd(Command::Down, 30).collect()),
        ("drill down / up (tree)", {
            let mut v = Vec::new();
            for _ in 0..10 {
                v.push(Action::Command(Command::Expand));
                v.push(Action::Command(Command::Down));
            }
            v.extend(cmd(Command::CollapseAll, 1));
            v.extend(cmd(Command::ExpandAll, 1));
            v.extend(cmd(Command::Collapse, 5));
            v
        }),
        ("page down / bottom / top (tree)", {
            let mut v: Vec<Action> = cmd(Command::PageDown, 10).collect();
            v.extend(cmd(Command::Bottom, 1));
            v.extend(cmd(Command::Top, 1));
            v
        }),
        ("next pane (table)", cmd(Command::NextPane, 1).collect()),
        ("move down (table)", cmd(Command::Down, 30).collect()),
        ("enter / back (table)", {
            let mut v = Vec::new();
            for _ in 0..5 {
                v.push(Action::Command(Command::Enter));
                v.push(Action::Command(Command::Back));
            }
            v
        }),
        ("sort keys (table)", {
            let mut v: Vec<Action> = cmd(Command::SortNext, 8).collect();
            v.extend(cmd(Command::SortReverse, 2));
            v.push(Action::Command(Command::SortColumn(Column::Median)));
            v.push(Action::Command(Command::SortColumn(Column::Name)));
            v
        }),
        (
            "group by type and back",
            cmd(Command::GroupByType, 2).collect(),
        ),
        ("filter typing (/conv, Esc)", {
            let mut v = vec![key('/')];
            v.extend("conv".chars().map(key));
            v.push(Action::Key(KeyEvent::new(
                KeyCode::Backspace,
                KeyModifiers::NONE,
            )));
            v.push(Action::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)));
            v
        }),
        ("detail pane (histogram, runs)", {
            let mut v: Vec<Action> = cmd(Command::NextPane, 1).collect();
            v.extend(cmd(Command::Down, 10));
            v.extend(cmd(Command::PrevPane, 1));
            v
        }),
        ("help, log view", {
            let mut v: Vec<Action> = cmd(Command::ToggleHelp, 2).collect();
            v.extend(cmd(Command::ToggleLog, 2));
            v
        }),
    ];
    eprintln!(
        "\nexplorer_scale: key paths, update + render at 160x48 (target <= 16 ms per key; load average {})",
        load_average()
    );
    eprintln!(
        "  {:<34} {:>8} {:>8} {:>8}",
        "path", "median", "worst", "target"
    );
    for (name, actions) in paths {
        let (med, worst) = time_path(&mut state, &mut term, &theme, actions);
        let flag = if worst > 16.0 { "  OVER" } else { "" };
        eprintln!(
            "  {name:<34} {med:>5.2} ms {worst:>5.2} ms {:>5} ms{flag}",
            16
        );
    }

    // `t`: the key itself only starts a background load; the timeline then arrives.
    let (med, worst) = time_path(&mut state, &mut term, &theme, vec![key('t')]);
    eprintln!(
        "  {:<34} {med:>5.2} ms {worst:>5.2} ms {:>5} ms",
        "timeline key t (starts the load)", 16
    );
    let (t, cpu) = (Instant::now(), cpu_time());
    let timeline = cpuprof_tui::source::load_timeline(&request).expect("timeline");
    eprintln!(
        "  timeline load (background thread): {:.0} ms wall, {:.0} ms CPU",
        t.elapsed().as_secs_f64() * 1e3,
        (cpu_time() - cpu).as_secs_f64() * 1e3
    );
    let generation = state.session.generation;
    let arrived = vec![Action::TimelineLoaded {
        generation,
        result: Ok(Box::new(timeline)),
    }];
    let t = Instant::now();
    for a in arrived {
        update(&mut state, a);
    }
    let install = t.elapsed().as_secs_f64() * 1e3;
    term.draw(|f| ui::draw(f, &state, &theme)).expect("draw");
    let (med, worst) = (install, t.elapsed().as_secs_f64() * 1e3);
    eprintln!(
        "  {:<34} {med:>5.2} ms {worst:>5.2} ms {:>5} ms  (update only, then + render)",
        "timeline arrives (first frame)", 16
    );
    let tl =
        |c: TimelineCommand, n: usize| (0..n).map(move |_| Action::Command(Command::Timeline(c)));
    let mut keys: Vec<Action> = tl(TimelineCommand::NextBar, 10).collect();
    keys.extend(tl(TimelineCommand::ZoomIn, 3));
    keys.extend(tl(TimelineCommand::PanRight, 3));
    keys.extend(tl(TimelineCommand::Fit, 1));
    keys.extend(tl(TimelineCommand::NextRun, 10));
    keys.extend(tl(TimelineCommand::SlowestRun, 1));
    keys.extend(tl(TimelineCommand::MedianRun, 1));
    keys.extend(tl(TimelineCommand::LaneDown, 3));
    let (med, worst) = time_path(&mut state, &mut term, &theme, keys);
    let flag = if worst > 16.0 { "  OVER" } else { "" };
    eprintln!(
        "  {:<34} {med:>5.2} ms {worst:>5.2} ms {:>5} ms{flag}",
        "timeline keys (bars, zoom, runs)", 16
    );
    eprintln!("  (compare view: only in --watch with a pinned baseline; not on one dump)");
}
