//! `update(state, action) -> effects`: the one entry the shell calls. Keys go to the
//! top view's key table (`keymap`), then to that view's `Component::command`, whose
//! `Step`s are applied here (pop, push, quit, notices, effects); loads, watcher events
//! and timelines land in the shared state whatever view is open.

use super::effect::Effect;
use super::keymap::{self, Command, ViewKind};
use super::layout::MouseAction;
use super::state::{Action, AppState};
use super::step::Step;
use super::warmup::warmup_change;
use super::watch::{self, Outcome};
use crate::views::dialog::state::DialogView;
use crate::views::explorer::ExplorerView;
use crate::views::help::state::HelpView;

/// Apply one action. Pure: all I/O is in the returned effects.
pub fn update(state: &mut AppState, action: Action) -> Vec<Effect> {
    match action {
        Action::Key(key) => {
            state.session.notice = None;
            let mode = state.mode();
            match keymap::lookup(mode, &key) {
                Some(cmd) => command(state, cmd),
                None => {
                    // A key that does nothing here says so (one line, no dialog).
                    state.session.notice = keymap::unbound_notice(mode, &key);
                    Vec::new()
                }
            }
        }
        Action::Command(cmd) => command(state, cmd),
        Action::Mouse { kind, x, y } => on_mouse(state, kind, x, y),
        Action::Resize(w, h) => {
            state.session.width = w;
            state.session.height = h;
            state.fit_explorer();
            watch::fix_runs_offset(state);
            Vec::new()
        }
        Action::Progress {
            generation,
            phase,
            bytes_done,
            bytes_total,
        } => {
            if let Some(l) = state.session.loading.as_mut() {
                if l.generation == generation {
                    l.beats = if l.phase == phase {
                        l.beats.wrapping_add(1)
                    } else {
                        0
                    };
                    l.phase = phase;
                    l.bytes_done = bytes_done;
                    l.bytes_total = bytes_total;
                }
            }
            Vec::new()
        }
        Action::Loaded { generation, result } if state.session.watch.is_some() => {
            let outcome = match result {
                Ok(data) => Outcome::Loaded(data),
                Err(message) => Outcome::Failed(message),
            };
            let shown = state.session.data.as_ref().map(|d| d.files.clone());
            let effects = watch::on_loaded(state, generation, outcome);
            if state.session.data.as_ref().map(|d| &d.files) != shown.as_ref() {
                close_timelines(state); // they showed the previous profile
            }
            effects
        }
        Action::LoadIncomplete { generation, .. } if state.session.watch.is_some() => {
            watch::on_loaded(state, generation, Outcome::Incomplete)
        }
        Action::LoadIncomplete {
            generation,
            message,
        } => update(
            state,
            Action::Loaded {
                generation,
                result: Err(message),
            },
        ),
        Action::Watch { event, at } => watch::on_watch_event(state, event, at),
        Action::RetryDue => watch::on_retry(state),
        Action::FleetLoaded(result) => {
            if let Some(view) = state.views.fleet_mut() {
                view.loaded(result);
            }
            Vec::new()
        }
        Action::TimelineLoaded { generation, result } => {
            if let Some(view) = state.views.timeline_mut() {
                crate::views::timeline::state::loaded(view, generation, result);
            }
            Vec::new()
        }
        Action::Loaded { generation, result } => {
            if generation != state.session.generation {
                return Vec::new(); // stale: a newer request superseded it
            }
            state.session.loading = None;
            match result {
                Ok(data) => {
                    close_timelines(state); // they showed the previous profile
                    let before = state.install(*data);
                    if let (Some(old), Some(new)) = (&before, &state.session.data) {
                        state.session.notice = warmup_change(old, new);
                    }
                }
                Err(message) => show_error(state, message),
            }
            Vec::new()
        }
    }
}

/// A command for the view on top. `Quit` and opening the help are the shell's, the same
/// from every view; any other goes to the top view's `command` and its steps are applied.
fn command(state: &mut AppState, cmd: Command) -> Vec<Effect> {
    if cmd == Command::Quit {
        return apply(state, vec![Step::Quit]);
    }
    let top = state.views.top_kind().unwrap_or(ViewKind::Explorer);
    if cmd == Command::ToggleHelp && top != ViewKind::Help {
        state.views.push(Box::new(HelpView::over(top)));
        return Vec::new();
    }
    let (views, ctx) = state.views_and_ctx(state.session.width, state.session.height);
    let steps = match views.top_mut() {
        Some(view) => view.command(cmd, &ctx),
        None => Vec::new(),
    };
    apply(state, steps)
}

/// Carry out what a view asked for.
fn apply(state: &mut AppState, steps: Vec<Step>) -> Vec<Effect> {
    let mut effects = Vec::new();
    for step in steps {
        match step {
            Step::Pop => {
                if state.views.pop().is_none() {
                    state.session.notice = Some("nothing to go back to: q quits".into());
                }
            }
            Step::Quit => {
                state.quit = true;
                effects.push(Effect::Quit);
            }
            Step::Notice(text) => state.session.notice = Some(text),
            Step::Reveal(node) => {
                state.views.pop();
                state.reveal_node(node);
            }
            Step::Effect(e) => effects.push(e),
            Step::Push(view) => state.views.push(view),
            Step::OpenProfile(request) => {
                // Another profile than the one last shown: not the old one under the gauge.
                if state.session.request.as_ref().map(|r| &r.etdump) != Some(&request.etdump) {
                    state.session.data = None;
                }
                // The explorer Esc left over the fleet comes back as it was.
                let explorer = state.views.unpark(ViewKind::Explorer);
                state
                    .views
                    .push(explorer.unwrap_or_else(|| Box::new(ExplorerView::over_another())));
                effects.extend(state.load(request));
            }
            Step::CompareProfiles { a, b } => {
                let pair = state.views.fleet().and_then(|f| f.comparison(a, b));
                if let Some((forward, backward)) = pair {
                    let view = crate::views::compare::state::CompareView::new(forward, backward);
                    state.views.push(Box::new(view));
                }
            }
            Step::Warmup(wanted) => effects.extend(reload_warmup(state, wanted)),
            Step::SelectRun(index) => effects.extend(watch::select_run(state, index)),
            Step::PinBaseline => watch::pin_baseline(state),
            Step::CompareBaseline => watch::open_compare(state),
        }
    }
    effects
}

/// Reload with `wanted` warm-up runs dropped (watch mode: every profile).
fn reload_warmup(state: &mut AppState, wanted: usize) -> Vec<Effect> {
    if state.session.watch.is_some() {
        return watch::change_watch_warmup(state, wanted);
    }
    let Some(mut request) = state.session.request.clone() else {
        return Vec::new();
    };
    request.warmup = wanted;
    request.warmup_auto = false;
    request.warmup_stated = false;
    state.load(request)
}

/// The mouse goes to the view on top.
fn on_mouse(state: &mut AppState, kind: MouseAction, x: u16, y: u16) -> Vec<Effect> {
    let (views, ctx) = state.views_and_ctx(state.session.width, state.session.height);
    let steps = match views.top_mut() {
        Some(view) => view.mouse(kind, x, y, &ctx),
        None => Vec::new(),
    };
    apply(state, steps)
}

/// A failed load: the error dialog (one at a time) over whatever is open.
fn show_error(state: &mut AppState, message: String) {
    state.views.retain(|v| v.kind() != ViewKind::Dialog);
    state.views.push(Box::new(DialogView::new(message)));
}

/// Timelines (and the modules view) show the profile they were opened on: a new one
/// closes them.
fn close_timelines(state: &mut AppState) {
    state
        .views
        .retain(|v| !matches!(v.kind(), ViewKind::Timeline | ViewKind::Modules));
}
