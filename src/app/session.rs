//! The shared session: what every view borrows and no view owns. The profile on screen
//! (`ExplorerData`), the load in flight, watch mode's runs list, the terminal's size, the
//! footer's notice and the options given on the command line. The explorer lists it; the
//! log, timeline, modules and flame views read it through `views::Ctx`.

use super::data::ExplorerData;
use super::effect::Effect;
use super::runs::WatchState;
use crate::profile::{LoadPhase, ProfileRequest};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loading {
    pub generation: u64,
    pub file: String,
    pub warmup: usize,
    pub phase: LoadPhase,
    pub bytes_done: u64,
    pub bytes_total: u64,
    /// Progress reports received in this phase after its first (a long phase without a
    /// byte count, such as analysing a big dump, sends them as a heartbeat: the gauge
    /// turns a spinner with them, so it never looks stuck).
    pub beats: u32,
}

#[derive(Debug, Clone, Default)]
pub struct Session {
    /// The last request (reloads reuse it with another warm-up).
    pub request: Option<ProfileRequest>,
    pub generation: u64,
    pub loading: Option<Loading>,
    /// The profile on screen.
    pub data: Option<ExplorerData>,
    pub width: u16,
    pub height: u16,
    /// Watch mode (`--watch DIR`): the runs list.
    pub watch: Option<WatchState>,
    /// A one-line message for the footer (what a change did, why a key did nothing);
    /// cleared by the next key.
    pub notice: Option<String>,
    /// The machine's peaks (`--peak`): the table's roofline column.
    pub peak: Option<crate::profile::efficiency::Peak>,
}

impl Session {
    pub fn new(width: u16, height: u16) -> Session {
        Session {
            width,
            height,
            ..Session::default()
        }
    }

    /// Start loading `request` (first load or reload).
    pub fn load(&mut self, request: ProfileRequest) -> Vec<Effect> {
        self.generation += 1;
        self.loading = Some(Loading {
            generation: self.generation,
            file: request.etdump.display().to_string(),
            warmup: request.warmup,
            phase: LoadPhase::Reading,
            bytes_done: 0,
            bytes_total: 0,
            beats: 0,
        });
        self.request = Some(request.clone());
        vec![Effect::Load {
            request,
            generation: self.generation,
        }]
    }

    /// The warm-up runs the footer names: those dropped in the profile on screen (it may
    /// have been built with an older warm-up), else the warm-up the next load will use.
    /// None for sources without runs (traces).
    pub fn shown_warmup(&self) -> Option<usize> {
        match &self.data {
            Some(d) => d.runs.as_ref().map(|r| r.dropped),
            None => Some(match (&self.watch, &self.request) {
                (Some(w), _) => w.warmup,
                (None, Some(r)) => r.warmup,
                (None, None) => 0,
            }),
        }
    }

    pub fn runs_total(&self) -> Option<usize> {
        self.data.as_ref()?.runs.as_ref().map(|r| r.total)
    }
}
