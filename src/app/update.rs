//! `update(state, action) -> effects`: the one entry the shell calls. Keys go to the
//! top view's key table (`keymap`), then to that view's pure `command`, whose `Step`s are
//! applied here (pop, quit, notices, effects); loads, watcher events and timelines land
//! in the shared state whatever view is open.

use super::effect::Effect;
use super::explorer;
use super::keymap::{self, Command};
use super::layout::{self, MouseAction};
use super::mouse;
use super::state::{Action, AppState};
use super::step::Step;
use super::view::View;
use super::warmup::warmup_change;
use super::watch::{self, Outcome};
use crate::views::help::state::{self as help, HelpView};
use crate::views::log::state as log;
use crate::views::timeline::state as timeline;

/// Apply one action. Pure: all I/O is in the returned effects.
pub fn update(state: &mut AppState, action: Action) -> Vec<Effect> {
    match action {
        Action::Key(key) => {
            state.notice = None;
            let mode = state.mode();
            match keymap::lookup(mode, &key) {
                Some(cmd) => command(state, cmd),
                None => {
                    // A key that does nothing here says so (one line, no dialog).
                    state.notice = keymap::unbound_notice(mode, &key);
                    Vec::new()
                }
            }
        }
        Action::Command(cmd) => command(state, cmd),
        Action::Mouse { kind, x, y } => on_mouse(state, kind, x, y),
        Action::Resize(w, h) => {
            state.width = w;
            state.height = h;
            state.fix_tree_offset();
            state.fix_table_offset();
            watch::fix_runs_offset(state);
            Vec::new()
        }
        Action::Progress {
            generation,
            phase,
            bytes_done,
            bytes_total,
        } => {
            if let Some(l) = state.loading.as_mut() {
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
        Action::Loaded { generation, result } if state.watch.is_some() => {
            let outcome = match result {
                Ok(data) => Outcome::Loaded(data),
                Err(message) => Outcome::Failed(message),
            };
            let shown = state.data.as_ref().map(|d| d.files.clone());
            let effects = watch::on_loaded(state, generation, outcome);
            if state.data.as_ref().map(|d| &d.files) != shown.as_ref() {
                close_timelines(state); // they showed the previous profile
            }
            effects
        }
        Action::LoadIncomplete { generation, .. } if state.watch.is_some() => {
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
                timeline::loaded(view, generation, result);
            }
            Vec::new()
        }
        Action::Loaded { generation, result } => {
            if generation != state.generation {
                return Vec::new(); // stale: a newer request superseded it
            }
            state.loading = None;
            match result {
                Ok(data) => {
                    close_timelines(state); // they showed the previous profile
                    let before = state.install(*data);
                    if let (Some(old), Some(new)) = (&before, &state.data) {
                        state.notice = warmup_change(old, new);
                    }
                }
                Err(message) => show_error(state, message),
            }
            Vec::new()
        }
    }
}

/// A command for the view on top (the explorer when none is open).
fn command(state: &mut AppState, cmd: Command) -> Vec<Effect> {
    if cmd == Command::Quit {
        state.quit = true;
        return vec![Effect::Quit];
    }
    let kind = state.mode();
    let opens_help =
        cmd == Command::ToggleHelp && !matches!(state.views.top(), Some(View::Help(_)));
    if opens_help && state.views.top().is_some() {
        state.views.push(View::Help(HelpView::over(kind)));
        return Vec::new();
    }
    if cmd == Command::ToggleFlame {
        if let Some(View::Compare(c)) = state.views.top() {
            let tree = crate::views::flame::model::FlameTree::from_comparison(c.comparison());
            let view = crate::views::flame::state::FlameView::new(tree);
            state.views.push(View::Flame(Box::new(view)));
            return Vec::new();
        }
    }
    if matches!(state.views.top(), Some(View::Explorer)) {
        // The explorer over the fleet: its own back first, then back to the fleet.
        if cmd == Command::Back && explorer::nothing_to_undo(state) {
            return apply(state, vec![Step::Pop]);
        }
        return explorer::command(state, cmd);
    }
    let body = state.areas().body;
    let flame_area = flame_area(state);
    let log_width = state.log_width();
    let AppState { views, data, .. } = state;
    let steps = match views.top_mut() {
        None => return explorer::command(state, cmd),
        Some(View::Help(h)) => help::command(h, cmd, body),
        Some(View::Log(l)) => log::command(
            l,
            cmd,
            data.as_ref(),
            log_width,
            layout::inner_rows(Some(body)),
        ),
        Some(View::Timeline(t)) => {
            let lanes = timeline::lane_rows(body);
            match crate::views::timeline::search::command(t, cmd, lanes) {
                Some(steps) => steps,
                None => match cmd {
                    Command::Timeline(c) => timeline::command(t, c, lanes)
                        .map(Step::Effect)
                        .into_iter()
                        .collect(),
                    Command::ToggleTimeline | Command::Back => vec![Step::Pop],
                    _ => Vec::new(),
                },
            }
        }
        Some(View::Compare(c)) => c.command(cmd),
        Some(View::Modules(m)) => match data.as_ref() {
            Some(d) => m.command(cmd, d, crate::views::modules::state::list_rows(body)),
            None => vec![Step::Pop],
        },
        Some(View::Flame(f)) => f.command(cmd, flame_area),
        Some(View::Fleet(f)) => f.command(cmd),
        Some(View::Explorer) => Vec::new(), // handled above
        Some(View::Dialog(_)) => match cmd {
            Command::Dismiss | Command::Back => vec![Step::Pop],
            _ => Vec::new(),
        },
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
                    state.notice = Some("nothing to go back to: q quits".into());
                }
            }
            Step::Quit => {
                state.quit = true;
                effects.push(Effect::Quit);
            }
            Step::Notice(text) => state.notice = Some(text),
            Step::Reveal(node) => {
                state.views.pop();
                explorer::reveal_node(state, node);
            }
            Step::Effect(e) => effects.push(e),
            Step::OpenProfile(request) => {
                // Another profile than the one last shown: not the old one under the gauge.
                if state.request.as_ref().map(|r| &r.etdump) != Some(&request.etdump) {
                    state.data = None;
                }
                state.views.push(View::Explorer);
                effects.extend(state.load(request));
            }
            Step::CompareProfiles { a, b } => {
                let pair = state.views.fleet().and_then(|f| f.comparison(a, b));
                if let Some((forward, backward)) = pair {
                    let view = crate::views::compare::state::CompareView::new(forward, backward);
                    state.views.push(View::Compare(Box::new(view)));
                }
            }
        }
    }
    effects
}

/// The mouse goes to the view on top: the timeline selects and zooms, the log scrolls,
/// popups and the compare view take none; else the explorer's panes.
fn on_mouse(state: &mut AppState, kind: MouseAction, x: u16, y: u16) -> Vec<Effect> {
    let areas = state.areas();
    let flame_area = flame_area(state);
    let log_width = state.log_width();
    let AppState { views, data, .. } = state;
    match views.top_mut() {
        None | Some(View::Explorer) => mouse::mouse(state, kind, x, y),
        Some(View::Flame(f)) => {
            let steps = f.mouse(flame_area, kind, x, y);
            apply(state, steps)
        }
        Some(View::Timeline(t)) => {
            timeline::mouse(t, areas.body, kind, x, y);
            Vec::new()
        }
        Some(View::Log(l)) => {
            if areas.log.is_some_and(|a| layout::contains(a, x, y)) {
                let d = match kind {
                    MouseAction::ScrollUp => -3,
                    MouseAction::ScrollDown => 3,
                    MouseAction::Click => 0,
                };
                log::scroll_by(l, d, data.as_ref(), log_width);
            }
            Vec::new()
        }
        Some(
            View::Help(_) | View::Dialog(_) | View::Compare(_) | View::Modules(_) | View::Fleet(_),
        ) => Vec::new(),
    }
}

/// Where the flame view is drawn: the explorer's body, or the whole screen over the
/// compare view.
pub fn flame_area(state: &AppState) -> ratatui::layout::Rect {
    match state.views.flame() {
        Some(f) if f.is_diff() => ratatui::layout::Rect::new(0, 0, state.width, state.height),
        _ => state.areas().body,
    }
}

/// A failed load: the error dialog (one at a time) over whatever is open.
fn show_error(state: &mut AppState, message: String) {
    state.views.retain(|v| !matches!(v, View::Dialog(_)));
    state.views.push(View::Dialog(message));
}

/// Timelines (and the modules view) show the profile they were opened on: a new one
/// closes them.
fn close_timelines(state: &mut AppState) {
    state
        .views
        .retain(|v| !matches!(v, View::Timeline(_) | View::Modules(_)));
}
