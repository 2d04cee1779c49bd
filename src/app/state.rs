//! The explorer's state (plain data): the shared data every view borrows (the profile
//! on screen, the runs list, the load in flight), the explorer's own panes (tree, table,
//! focus) and the stack of views over it. `update` changes it; `listing` keeps its rows.

use std::time::SystemTime;

use ratatui::crossterm::event::KeyEvent;

use super::data::ExplorerData;
use super::effect::Effect;
pub use super::explorer_view::{ExplorerView, Pane, TableState, TreeState};
use super::keymap::{Command, ViewKind};
use super::layout::{self, Areas, MouseAction};
use super::runs::WatchState;
use super::view::{View, ViewStack};
use crate::folder_entry::WatchEvent;
use crate::profile::{LoadPhase, ProfileRequest};
use crate::views::compare::state::CompareView;
use crate::views::timeline::state::TimelineView;

/// Everything that can happen to the explorer.
#[derive(Debug)]
pub enum Action {
    Key(KeyEvent),
    Command(Command),
    Mouse {
        kind: MouseAction,
        x: u16,
        y: u16,
    },
    Resize(u16, u16),
    Progress {
        generation: u64,
        phase: LoadPhase,
        bytes_done: u64,
        bytes_total: u64,
    },
    /// A load finished; `Err` is the one-line message naming the file. (Cancelled loads
    /// send nothing: the worker drops their results.)
    Loaded {
        generation: u64,
        result: Result<Box<ExplorerData>, String>,
    },
    /// A load found the dump still being written (`message` names the file).
    LoadIncomplete {
        generation: u64,
        message: String,
    },
    /// The directory watcher reported `event` (received at `at`).
    Watch {
        event: WatchEvent,
        at: SystemTime,
    },
    /// A `RetryAfter` timer fired.
    RetryDue,
    /// The timeline asked for by `Effect::LoadTimeline` (`Err`: one line naming the file).
    TimelineLoaded {
        generation: u64,
        result: Result<Box<crate::timeline::AnyTimeline>, String>,
    },
    /// The fleet's loading thread finished (`Err`: why nothing could be loaded).
    FleetLoaded(crate::views::fleet::state::FleetResult),
}

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

#[derive(Debug, Clone)]
pub struct AppState {
    /// The last request (reloads reuse it with another warm-up).
    pub request: Option<ProfileRequest>,
    pub generation: u64,
    pub loading: Option<Loading>,
    pub data: Option<ExplorerData>,
    /// The explorer's own panes (the base view of the stack).
    pub explorer: ExplorerView,
    pub width: u16,
    pub height: u16,
    pub quit: bool,
    /// Watch mode (`--watch DIR`): the runs list.
    pub watch: Option<WatchState>,
    /// A one-line message for the footer (what a change did, why a key did nothing);
    /// cleared by the next key.
    pub notice: Option<String>,
    /// The views over the explorer (log, help, timeline, compare, error dialog); keys go
    /// to the top one.
    pub views: ViewStack,
    /// The machine's peaks (`--peak`): the table's roofline column.
    pub peak: Option<crate::profile::efficiency::Peak>,
}

impl AppState {
    pub fn new(width: u16, height: u16) -> AppState {
        AppState {
            request: None,
            generation: 0,
            loading: None,
            data: None,
            explorer: ExplorerView::default(),
            width,
            height,
            quit: false,
            watch: None,
            notice: None,
            views: ViewStack::default(),
            peak: None,
        }
    }

    /// The `fleet` command: the fleet view is the base of the stack (never popped); the
    /// explorer is pushed over it for a profile.
    pub fn for_fleet(
        view: crate::views::fleet::state::FleetView,
        width: u16,
        height: u16,
    ) -> AppState {
        let mut s = AppState::new(width, height);
        s.views = ViewStack::with_base(View::Fleet(Box::new(view)));
        s
    }

    /// The `compare` command: the compare view is the whole program (the base of the
    /// stack, never popped).
    pub fn for_compare(view: CompareView, width: u16, height: u16) -> AppState {
        let mut s = AppState::new(width, height);
        s.views = ViewStack::with_base(View::Compare(Box::new(view)));
        s
    }

    /// The error dialog's message, while it is open.
    pub fn error(&self) -> Option<&str> {
        self.views.error()
    }

    pub fn timeline(&self) -> Option<&TimelineView> {
        self.views.timeline()
    }

    pub fn compare(&self) -> Option<&CompareView> {
        self.views.compare()
    }

    /// The warnings & log view fills the body (it is the top view under any popups).
    pub fn log_open(&self) -> bool {
        matches!(self.views.screen(), Some(View::Log(_)))
    }

    /// The log view's scroll position (0 when it is closed).
    pub fn log_scroll(&self) -> usize {
        self.views.log().map_or(0, |l| l.scroll)
    }

    /// Cells the log view's raw lines are scrolled sideways.
    pub fn log_hscroll(&self) -> usize {
        self.views.log().map_or(0, |l| l.hscroll)
    }

    pub fn help_open(&self) -> bool {
        matches!(self.views.top(), Some(View::Help(_)))
    }

    /// Whose key table is live: the top view's, or a filter's text field.
    pub fn mode(&self) -> ViewKind {
        match self.views.top() {
            Some(View::Compare(c)) if c.filter_editing => ViewKind::Filter,
            Some(View::Modules(m)) if m.filter_editing => ViewKind::Filter,
            Some(View::Flame(f)) if f.search_editing => ViewKind::Filter,
            Some(View::Fleet(f)) if f.filter_editing => ViewKind::Filter,
            Some(View::Log(l)) if l.search.editing => ViewKind::Filter,
            Some(View::Help(h)) if h.search.editing => ViewKind::Filter,
            Some(View::Timeline(t)) if t.search.editing => ViewKind::Filter,
            Some(View::Explorer) if self.explorer.filter_editing => ViewKind::Filter,
            Some(v) => v.kind(),
            None if self.explorer.filter_editing => ViewKind::Filter,
            None => ViewKind::Explorer,
        }
    }

    /// The geometry of the last handled resize (what update's paging and mouse hits use).
    pub fn areas(&self) -> Areas {
        self.areas_for(self.width, self.height)
    }

    /// The geometry of this view on a `width` x `height` screen. Rendering uses the
    /// frame's own size: the terminal may have changed size since the last `Resize`.
    pub fn areas_for(&self, width: u16, height: u16) -> Areas {
        layout::compute(
            width,
            height,
            self.log_open(),
            self.explorer.focus == Pane::Detail,
            self.watch.is_some(),
        )
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

    /// The tree node the detail pane describes.
    pub fn detail_node(&self) -> Option<usize> {
        let data = self.data.as_ref()?;
        match self.explorer.detail_source {
            Pane::Table => {
                let row = *self.explorer.table.rows.get(self.explorer.table.selected)?;
                self.table_ops(data).get(row).map(|r| r.node)
            }
            _ => self.explorer.tree.selected_node(),
        }
    }

    /// The rows the table lists: operators, or operator types when grouped.
    pub fn table_ops<'a>(&self, data: &'a ExplorerData) -> &'a [super::data::OpRow] {
        if self.explorer.table.grouped {
            &data.groups
        } else {
            &data.ops
        }
    }

    pub fn selected_op(&self) -> Option<usize> {
        self.explorer
            .table
            .rows
            .get(self.explorer.table.selected)
            .copied()
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

    /// Lines of the warnings and log view.
    pub fn log_len(&self) -> usize {
        crate::views::log::state::log_len(self.data.as_ref(), self.log_width())
    }

    /// Cells inside the log view's border.
    pub fn log_width(&self) -> usize {
        let areas = layout::compute(self.width, self.height, true, false, self.watch.is_some());
        areas.log.map_or(self.width, |a| a.width.saturating_sub(2)) as usize
    }
}
