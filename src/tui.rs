//! The interactive explorer: terminal set-up and the main loop.
//!
//! One `mpsc` channel carries input events (from an input thread) and loader events
//! (from the worker); the loop turns them into `Action`s for the pure `update` and
//! performs the returned effects. The terminal is restored on every exit path, on
//! panic, and on SIGINT/SIGTERM/SIGHUP ([`crate::signals`], exit status 128 + signal). With `--watch`, the directory watcher feeds the same channel.

use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread;
use std::time::SystemTime;

use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event as TermEvent, KeyEventKind, MouseButton,
    MouseEventKind,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::Terminal;

use crate::app::{update, Action, AppState, Effect, MouseAction};
use crate::cli::ExploreArgs;
use crate::escape::eprint_line;
use crate::profile::{LoadError, ProfileRequest};
use crate::ui::{self, Theme};
use crate::watch::{spawn_watcher, WatchConfig, WatchHandle};
use crate::worker::{Event, Worker};

/// The request the command line asks for, or the message for a usage error.
pub fn request_for(args: &ExploreArgs) -> Result<ProfileRequest, String> {
    if args.demo {
        let request =
            ProfileRequest::demo(args.warmup.map(|w| w.runs())).with_read_options(args.read);
        return Ok(match args.warmup {
            Some(w) if w.is_auto() => request.with_warmup(w),
            _ => request,
        });
    }
    if args.watch.is_some() {
        return Err("--watch opens a directory, not one profile".into());
    }
    match &args.file {
        Some(file) => {
            // A missing or unreadable file fails here, before the terminal is taken.
            for path in std::iter::once(file).chain(args.log.as_ref()) {
                if let Some(why) = crate::profile::check_openable(path) {
                    return Err(format!("{}: {why}", path.display()));
                }
            }
            let request = ProfileRequest::new(file.clone(), args.log.clone(), 0)
                .with_warmup(args.warmup.unwrap_or_default())
                .with_model_files(args.model.clone())
                .with_read_options(args.read);
            Ok(if args.no_log {
                request.without_log()
            } else {
                request
            })
        }
        None => Err("nothing to open: give FILE, or --demo (see --help)".into()),
    }
}

/// What the explorer opens.
enum Start {
    Profile(ProfileRequest),
    /// The watcher runs (and stops when this is dropped).
    Watch {
        dir: String,
        warmup: usize,
        warmup_auto: bool,
        warmup_stated: bool,
        model: crate::profile::ModelFileArgs,
        read: crate::profile::ReadOptions,
        _handle: WatchHandle,
    },
}

/// The watcher configuration the command line asks for.
pub fn watch_config(args: &ExploreArgs) -> Option<WatchConfig> {
    let dir = args.watch.as_ref()?;
    Some(WatchConfig {
        recursive: args.recursive,
        poll: args.poll,
        ..WatchConfig::new(dir)
    })
}

/// Start watching `config.dir`, sending its events into the explorer's channel.
pub fn start_watcher(
    config: WatchConfig,
    tx: Sender<Event>,
) -> Result<WatchHandle, crate::watch::WatchError> {
    spawn_watcher(config, move |ev| tx.send(Event::Watch(ev)).is_ok())
}

/// What follows the explorer from outside it (the runner of `cpuprof-tui run`): started
/// with the loop's channel (`Event::Redraw` asks for a frame), shown the state after each
/// batch of events, and drawn over every frame.
pub trait Companion {
    fn start(&mut self, tx: Sender<Event>);
    fn after_events(&mut self, state: &mut AppState);
    fn draw(&self, frame: &mut ratatui::Frame, theme: &Theme);
}

pub fn run(args: &ExploreArgs) -> ExitCode {
    run_with(args, None)
}

/// The explorer with a [`Companion`] (`run` uses it on the watch view of its folder).
pub fn run_with(args: &ExploreArgs, companion: Option<&mut dyn Companion>) -> ExitCode {
    let (tx, rx): (Sender<Event>, Receiver<Event>) = mpsc::channel();
    // Everything that can fail on bad arguments or a bad directory fails before the
    // terminal is touched.
    let start = match watch_config(args) {
        Some(config) => {
            let dir = config.dir.display().to_string();
            match start_watcher(config, tx.clone()) {
                Ok(handle) => Start::Watch {
                    dir,
                    warmup: args.warmup.unwrap_or_default().runs(),
                    warmup_auto: args.warmup.is_some_and(|w| w.is_auto()),
                    warmup_stated: args.warmup.unwrap_or_default()
                        == crate::profile::warmup::Warmup::Stated,
                    model: args.model.clone(),
                    read: args.read,
                    _handle: handle,
                },
                Err(e) => {
                    eprint_line(&e.to_string());
                    return ExitCode::from(2);
                }
            }
        }
        None => match request_for(args) {
            Ok(r) => {
                // Standard input (and a FIFO or process substitution) is read now, before
                // the terminal is taken over: keys then come from /dev/tty (crossterm
                // opens it when stdin is not a terminal), and the bytes are kept for the
                // loads that follow.
                let stream = crate::input::is_stdin(&r.etdump)
                    || std::fs::metadata(&r.etdump).is_ok_and(|m| !m.is_file() && !m.is_dir());
                if r.embedded.is_none() && stream {
                    if let Err(e) = crate::input::read_input(&r.etdump, r.read.max_input_size) {
                        eprint_line(&format!("{}: {e}", crate::input::display_name(&r.etdump)));
                        return ExitCode::from(2);
                    }
                }
                // A log named with --log must be readable (one found beside the dump
                // that cannot be read is only a warning).
                if let (None, Some(log)) = (r.embedded, &r.log) {
                    if let Err(e) = crate::input::read_input(log, r.read.max_input_size) {
                        eprint_line(&format!("{}: {e}", log.display()));
                        return ExitCode::from(2);
                    }
                }
                Start::Profile(r)
            }
            Err(msg) => {
                eprint_line(&msg);
                return ExitCode::from(2);
            }
        },
    };
    let guard = match TerminalGuard::enter() {
        Ok(g) => g,
        Err(e) => {
            eprint_line(&format!("cannot open the terminal: {e}"));
            return ExitCode::from(2);
        }
    };
    let result = main_loop(&start, args.peak, tx, rx, companion);
    drop(guard);
    drop(start);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprint_line(&format!("terminal error: {e}"));
            ExitCode::from(1)
        }
    }
}

static RESTORED: AtomicBool = AtomicBool::new(true);

/// Undo everything `TerminalGuard::enter` did. Safe to call twice (panic + drop).
fn restore_terminal() {
    if RESTORED.swap(true, Ordering::SeqCst) {
        return;
    }
    let mut out = io::stdout();
    // Leaving the alternate screen comes last so nothing is written to the main screen.
    let _ = execute!(
        out,
        DisableMouseCapture,
        ratatui::crossterm::cursor::Show,
        LeaveAlternateScreen
    );
    let _ = out.flush();
    let _ = disable_raw_mode();
}

pub(crate) struct TerminalGuard;

impl TerminalGuard {
    pub(crate) fn enter() -> io::Result<TerminalGuard> {
        // SIGINT/SIGTERM/SIGHUP (a closed terminal) restore it like `q` does.
        crate::signals::set_terminal_restore(restore_terminal);
        enable_raw_mode()?;
        RESTORED.store(false, Ordering::SeqCst);
        // Restore the terminal first, then let color-eyre print a readable report (plain
        // under NO_COLOR, by the rule the explorer's colours follow) on the normal screen.
        let theme = if !Theme::from_env().color {
            color_eyre::config::Theme::new()
        } else {
            color_eyre::config::Theme::dark()
        };
        let (panic_hook, _) = color_eyre::config::HookBuilder::default()
            .theme(theme)
            .display_env_section(false)
            .into_hooks();
        let report = panic_hook.into_panic_hook();
        // Only a main-thread panic ends the process. The other threads catch theirs and
        // report them in the UI (a failed load, closed input, a watcher error), so the
        // terminal must stay as it is and nothing may be printed over the screen.
        std::panic::set_hook(Box::new(move |info| {
            if crate::threads::panicking_thread_is_main() {
                restore_terminal();
                report(info);
            }
        }));
        if let Err(e) = execute!(
            io::stdout(),
            EnterAlternateScreen,
            EnableMouseCapture,
            Clear(ClearType::All)
        ) {
            restore_terminal();
            return Err(e);
        }
        Ok(TerminalGuard)
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

fn spawn_input(tx: Sender<Event>) {
    let _ = spawn_input_from(tx, event::read);
}

/// The input thread: terminal events from `read` into the channel until it fails (or
/// panics), which ends with `Event::InputClosed` (the explorer quits, never hangs).
pub fn spawn_input_from(
    tx: Sender<Event>,
    mut read: impl FnMut() -> io::Result<TermEvent> + Send + 'static,
) -> io::Result<thread::JoinHandle<()>> {
    thread::Builder::new().name("input".into()).spawn(move || {
        let pump = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| loop {
            match read() {
                Ok(ev) => {
                    if tx.send(Event::Input(ev)).is_err() {
                        return;
                    }
                }
                Err(_) => {
                    let _ = tx.send(Event::InputClosed);
                    return;
                }
            }
        }));
        if pump.is_err() {
            let _ = tx.send(Event::InputClosed);
        }
    })
}

/// Turn a channel event into an action (None: nothing for `update`).
pub fn action_for(event: Event) -> Option<Action> {
    match event {
        Event::Input(TermEvent::Key(k)) if k.kind != KeyEventKind::Release => Some(Action::Key(k)),
        Event::Input(TermEvent::Mouse(m)) => {
            let kind = match m.kind {
                MouseEventKind::Down(MouseButton::Left) => MouseAction::Click,
                MouseEventKind::ScrollUp => MouseAction::ScrollUp,
                MouseEventKind::ScrollDown => MouseAction::ScrollDown,
                _ => return None,
            };
            Some(Action::Mouse {
                kind,
                x: m.column,
                y: m.row,
            })
        }
        Event::Input(TermEvent::Resize(w, h)) => Some(Action::Resize(w, h)),
        Event::Input(_) => None,
        Event::InputClosed => Some(Action::Command(crate::app::Command::Quit)),
        Event::Progress {
            generation,
            progress,
        } => Some(Action::Progress {
            generation,
            phase: progress.phase,
            bytes_done: progress.bytes_done,
            bytes_total: progress.bytes_total,
        }),
        Event::Loaded {
            generation,
            result: Err(e @ LoadError::Incomplete { .. }),
        } => Some(Action::LoadIncomplete {
            generation,
            message: e.to_string(),
        }),
        // The worker drops cancelled loads; one that got here anyway is superseded.
        Event::Loaded {
            result: Err(LoadError::Cancelled),
            ..
        } => None,
        Event::Loaded { generation, result } => Some(Action::Loaded {
            generation,
            result: result.map_err(|e| e.to_string()),
        }),
        Event::Watch(event) => Some(Action::Watch {
            event,
            at: SystemTime::now(),
        }),
        Event::RetryDue => Some(Action::RetryDue),
        Event::Redraw => None,
        Event::TimelineLoaded { generation, result } => {
            Some(Action::TimelineLoaded { generation, result })
        }
        Event::FleetLoaded(result) => Some(Action::FleetLoaded(result)),
    }
}

fn main_loop(
    start: &Start,
    peak: Option<crate::profile::efficiency::Peak>,
    tx: Sender<Event>,
    rx: Receiver<Event>,
    companion: Option<&mut dyn Companion>,
) -> io::Result<()> {
    // No `terminal.clear()`: it asks the terminal for the cursor position, which some
    // terminals (and pipes in tests) never answer. The screen was cleared on entry.
    let terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    let size = terminal.size()?;
    let mut state = AppState::new(size.width, size.height);
    state.session.peak = peak;
    let effects = match start {
        Start::Profile(request) => state.load(request.clone()),
        Start::Watch {
            dir,
            warmup,
            warmup_auto,
            warmup_stated,
            model,
            read,
            ..
        } => {
            state.start_watch(dir.clone(), *warmup);
            if let Some(w) = state.session.watch.as_mut() {
                w.warmup_auto = *warmup_auto;
                w.warmup_stated = *warmup_stated;
                w.model = model.clone();
                w.read = *read;
            }
            Vec::new()
        }
    };
    shell(terminal, state, effects, tx, rx, companion)
}

/// The one event loop of every screen (explorer, watch mode, the compare command): draw
/// the view stack, turn channel events into actions for `update`, perform the effects.
pub(crate) fn shell(
    mut terminal: Terminal<CrosstermBackend<io::Stdout>>,
    mut state: AppState,
    effects: Vec<Effect>,
    tx: Sender<Event>,
    rx: Receiver<Event>,
    mut companion: Option<&mut dyn Companion>,
) -> io::Result<()> {
    let theme = Theme::from_env();
    let mut worker = Worker::new(tx.clone());
    if let Some(c) = companion.as_deref_mut() {
        c.start(tx.clone());
    }
    // First frame at once: the gauge, before any byte is read.
    draw(&mut terminal, &mut state, &theme, companion.as_deref())?;
    if apply(effects, &mut worker, &tx) {
        return Ok(());
    }
    // Debug builds only: lets the end-to-end test check the panic path restores the terminal.
    #[cfg(debug_assertions)]
    if std::env::var_os("CPUPROF_TUI_TEST_PANIC").is_some() {
        panic!("test panic after the first frame");
    }
    spawn_input(tx.clone());
    while let Ok(first) = rx.recv() {
        let mut pending = vec![first];
        // Coalesce a burst (key repeat, progress) into one frame.
        while let Ok(more) = rx.try_recv() {
            pending.push(more);
            if pending.len() >= 256 {
                break;
            }
        }
        for ev in pending {
            if let Some(action) = action_for(ev) {
                if apply(update(&mut state, action), &mut worker, &tx) {
                    return Ok(());
                }
            }
        }
        if let Some(c) = companion.as_deref_mut() {
            c.after_events(&mut state);
        }
        draw(&mut terminal, &mut state, &theme, companion.as_deref())?;
    }
    Ok(())
}

fn draw(
    terminal: &mut Terminal<CrosstermBackend<io::Stdout>>,
    state: &mut AppState,
    theme: &Theme,
    companion: Option<&dyn Companion>,
) -> io::Result<()> {
    // The view on screen fits its paging to this frame (`Component::fit`).
    let size = terminal.size()?;
    state.fit_screen(size.width, size.height);
    terminal.draw(|f| {
        ui::draw(f, state, theme);
        if let Some(c) = companion {
            c.draw(f, theme);
        }
    })?;
    Ok(())
}

/// Perform effects; true when the explorer should quit. `tx` is the loop's channel
/// (retry timers send into it).
pub fn apply(effects: Vec<Effect>, worker: &mut Worker, tx: &Sender<Event>) -> bool {
    for e in effects {
        match e {
            Effect::Quit => {
                worker.cancel();
                return true;
            }
            Effect::Load {
                request,
                generation,
            } => worker.start(request, generation),
            Effect::LoadTimeline {
                request,
                generation,
                center,
            } => {
                let tx = tx.clone();
                let _ = thread::Builder::new()
                    .name("timeline".into())
                    .spawn(move || {
                        // A panic on one input is that timeline's error, not a view stuck loading.
                        let result = std::panic::catch_unwind(|| {
                            crate::source::load_timeline_around(&request, center)
                        })
                        .unwrap_or_else(|p| {
                            Err(format!(
                                "{}: internal error while building the timeline: {}",
                                request.etdump.display(),
                                crate::threads::panic_message(&*p)
                            ))
                        })
                        .map(Box::new);
                        let _ = tx.send(Event::TimelineLoaded { generation, result });
                        crate::worker::release_freed_heap();
                    });
            }
            Effect::Copy(text) => {
                // OSC 52 goes straight to the terminal; it draws nothing.
                let mut out = io::stdout();
                let _ = out.write_all(crate::app::copy::osc52(&text).as_bytes());
                let _ = out.flush();
            }
            Effect::RetryAfter(delay) => {
                let tx = tx.clone();
                let _ = thread::Builder::new().name("retry".into()).spawn(move || {
                    thread::sleep(delay);
                    let _ = tx.send(Event::RetryDue);
                });
            }
        }
    }
    false
}

/// `compare A B` on a terminal without `--format`: the compare view (`views::compare::state`,
/// drawn by `views::compare::render`) as the base of the view stack, in the explorer's shell. Both
/// sides load before the terminal is touched, so bad input is one line and exit 2 as for
/// `report`. The exit code is `--fail-on-regression`'s, as when printing.
pub fn run_compare(args: &crate::cli::CompareArgs) -> ExitCode {
    let (forward, backward) = match crate::report::compare::load_both(args) {
        Ok(x) => x,
        Err(line) => {
            crate::escape::eprint_line(&line);
            return ExitCode::from(2);
        }
    };
    let code = crate::report::compare::exit_code(&forward, args.fail_on_regression);
    let view = crate::views::compare::state::CompareView::new(forward, backward);
    let guard = match TerminalGuard::enter() {
        Ok(g) => g,
        Err(e) => {
            crate::escape::eprint_line(&format!("cannot open the terminal: {e}"));
            return ExitCode::from(2);
        }
    };
    let result = (|| {
        let terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
        let size = terminal.size()?;
        let state = AppState::for_compare(view, size.width, size.height);
        let (tx, rx) = mpsc::channel();
        shell(terminal, state, Vec::new(), tx, rx, None)
    })();
    drop(guard);
    match result {
        Ok(()) => code,
        Err(e) => {
            crate::escape::eprint_line(&format!("terminal error: {e}"));
            ExitCode::from(1)
        }
    }
}
