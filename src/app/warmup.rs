//! The warm-up keys (`+`/`-`): the warm-up they ask for, decided from the session alone
//! (the explorer then asks the shell for the reload, `Step::Warmup`), and what the footer
//! says the change moved.

use super::data::ExplorerData;
use super::session::Session;

/// The warm-up `+` (`more`) or `-` asks for, read from the session alone; `Err` with the
/// footer's notice when there is none to go to (`Err(None)`: nothing was requested yet).
pub fn wanted_warmup(session: &Session, more: bool) -> Result<usize, Option<String>> {
    // Under `--warmup auto` the keys step from the runs the profile on screen dropped.
    let auto_dropped = session
        .data
        .as_ref()
        .and_then(|d| d.runs.as_ref())
        .map(|r| r.dropped);
    let current = match (&session.watch, &session.request) {
        (Some(w), _) if w.warmup_auto || w.warmup_stated => auto_dropped.unwrap_or(0),
        (Some(w), _) => w.warmup,
        (None, Some(r)) if r.warmup_auto || r.warmup_stated => auto_dropped.unwrap_or(0),
        (None, Some(r)) => r.warmup,
        (None, None) => return Err(None),
    };
    next_warmup(current, more, session.runs_total()).ok_or_else(|| {
        Some(match (more, session.runs_total()) {
            (false, _) => format!("warm-up is {current}: no dropped run to add back"),
            (true, Some(total)) => format!(
                "warm-up {current} of {}: at least one run must stay",
                super::format::count(total, "run")
            ),
            (true, None) => "warm-up: the number of runs is not known yet".to_string(),
        })
    })
}

/// What a reload with another warm-up moved: `warm-up 5→4: Method::execute 1.113→1.114
/// ms`. None when the warm-up did not change (a plain reload).
pub fn warmup_change(old: &ExplorerData, new: &ExplorerData) -> Option<String> {
    let (a, b) = (old.runs.as_ref()?.dropped, new.runs.as_ref()?.dropped);
    if a == b {
        return None;
    }
    let mut text = format!("warm-up {a}→{b}");
    if let (Some(x), Some(y)) = (&old.total, &new.total) {
        text.push_str(&format!(
            ": {} {}",
            new.total_label,
            super::format::duration_change(x.median(), y.median())
        ));
    }
    if let Some(r) = &new.runs {
        text.push_str(&format!(" · {} kept", super::format::count(r.kept, "run")));
    }
    Some(text)
}

/// The warm-up one step up or down from `current`, if allowed: never below 0, and at
/// least one of `runs_total` runs must stay (no step up while the total is unknown).
fn next_warmup(current: usize, more: bool, runs_total: Option<usize>) -> Option<usize> {
    if more {
        runs_total
            .filter(|&total| current + 1 < total)
            .map(|_| current + 1)
    } else {
        current.checked_sub(1)
    }
}
