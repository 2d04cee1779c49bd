//! What a view's `command` asks of the shell. Views are pure: they change their own state
//! and say the rest (close me, quit, a footer message, an effect for the world, a change
//! to the shared session: another warm-up, another run).

use super::effect::Effect;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Close this view (back to the one below).
    Pop,
    Quit,
    /// The footer's one-line message.
    Notice(String),
    /// Close this view and show tree node `id` in the explorer.
    Reveal(usize),
    Effect(Effect),
    /// Push the explorer over this view and load `request` in it (the fleet's Enter).
    OpenProfile(crate::profile::ProfileRequest),
    /// Open `view` over this one (the compare view's flame graph).
    Push(Box<dyn crate::views::Component>),
    /// Push the compare view of fleet profile `a` (the baseline) against `b` (the
    /// fleet's `d`).
    CompareProfiles {
        a: usize,
        b: usize,
    },
    /// Reload with this many warm-up runs dropped (watch mode: every profile), the
    /// explorer's `+`/`-`.
    Warmup(usize),
    /// Watch mode: show the run at this index of the runs list.
    SelectRun(usize),
    /// Watch mode: the run on screen becomes its model's baseline (`b`).
    PinBaseline,
    /// Watch mode: compare the run on screen with its baseline (`B`).
    CompareBaseline,
}
