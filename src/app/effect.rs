//! What the shell must do after an update: the only way the pure state reaches the world.

use std::time::Duration;

use crate::profile::ProfileRequest;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Start loading `request` (cancelling any older load); tag events with `generation`.
    Load {
        request: ProfileRequest,
        generation: u64,
    },
    /// Send `Action::RetryDue` after this long (incomplete dumps are retried quietly).
    RetryAfter(Duration),
    /// Load the timeline of `request` off the UI thread (`source::load_timeline_around`),
    /// then send `Action::TimelineLoaded` with `generation`. A big dump's timeline holds a
    /// window of runs: around run `center`, else around the median run.
    LoadTimeline {
        request: ProfileRequest,
        generation: u64,
        center: Option<usize>,
    },
    /// Put this text on the clipboard (OSC 52, `app::copy::osc52`).
    Copy(String),
    Quit,
}
