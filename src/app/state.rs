//! The shell's state (plain data): the shared session every view borrows (`Session`:
//! the profile on screen, the runs list, the load in flight) and the stack of views (the
//! explorer among them). `update` changes it; what the shell does to the explorer (a new
//! profile installed, a node revealed, a resize) goes through `ViewStack::explorer_mut`.

use std::time::SystemTime;

use ratatui::crossterm::event::KeyEvent;

use super::data::ExplorerData;
use super::effect::Effect;
use super::keymap::{Command, ViewKind};
use super::layout::{self, Areas, MouseAction};
use super::session::Session;
use super::view::ViewStack;
use crate::folder_entry::WatchEvent;
use crate::profile::{LoadPhase, ProfileRequest};
use crate::views::compare::state::CompareView;
use crate::views::explorer::geometry::{Env, Geometry};
use crate::views::explorer::ExplorerView;
use crate::views::timeline::state::TimelineView;
use crate::views::Ctx;
use ratatui::layout::Rect;

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

#[derive(Debug, Clone)]
pub struct AppState {
    /// What every view borrows: the profile on screen, the load in flight, the runs
    /// list, the size, the notice, the options.
    pub session: Session,
    /// The views: the explorer at the base (or the fleet, or compare), the views over it
    /// (log, help, timeline, compare, error dialog); keys go to the top one.
    pub views: ViewStack,
    pub quit: bool,
}

impl AppState {
    pub fn new(width: u16, height: u16) -> AppState {
        AppState {
            session: Session::new(width, height),
            views: ViewStack::with_base(Box::new(ExplorerView::default())),
            quit: false,
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
        s.views = ViewStack::with_base(Box::new(view));
        s
    }

    /// The `compare` command: the compare view is the whole program (the base of the
    /// stack, never popped).
    pub fn for_compare(view: CompareView, width: u16, height: u16) -> AppState {
        let mut s = AppState::new(width, height);
        s.views = ViewStack::with_base(Box::new(view));
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
        self.views
            .screen()
            .is_some_and(|v| v.kind() == ViewKind::Log)
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
        self.views.top_kind() == Some(ViewKind::Help)
    }

    /// Whose key table is live: the top view's, or its text field's.
    pub fn mode(&self) -> ViewKind {
        self.views.top().map_or(ViewKind::Explorer, |v| v.mode())
    }

    /// What a view's `command` reads besides its own state: the shared session and the
    /// geometry of the last handled resize.
    pub fn ctx(&self) -> Ctx<'_> {
        self.ctx_for(self.session.width, self.session.height)
    }

    /// The `Ctx` of a `width` x `height` screen.
    pub fn ctx_for(&self, width: u16, height: u16) -> Ctx<'_> {
        let body = self.areas_for(width, height).body;
        Ctx::new(&self.session, Rect::new(0, 0, width, height), body)
    }

    /// The stack, to change, beside the `Ctx` its views read on a `width` x `height`
    /// screen.
    pub fn views_and_ctx(&mut self, width: u16, height: u16) -> (&mut ViewStack, Ctx<'_>) {
        let body = self.areas_for(width, height).body;
        let AppState { views, session, .. } = self;
        (
            views,
            Ctx::new(session, Rect::new(0, 0, width, height), body),
        )
    }

    /// The explorer's geometry on the screen of the last handled resize (the log over
    /// its body or not, watch mode's runs list or not).
    pub fn geometry(&self) -> Geometry {
        Geometry {
            width: self.session.width,
            height: self.session.height,
            log_open: self.log_open(),
            watching: self.session.watch.is_some(),
        }
    }

    /// The explorer (in the stack or parked), beside what its shell-side changes read.
    fn explorer_and_env(&mut self) -> Option<(&mut ExplorerView, Env<'_>)> {
        let geometry = self.geometry();
        let AppState { views, session, .. } = self;
        Some((views.explorer_mut()?, Env::new(session, geometry)))
    }

    /// Keep the explorer's selected rows on screen after a resize.
    pub(super) fn fit_explorer(&mut self) {
        let geometry = self.geometry();
        if let Some(ex) = self.views.explorer_mut() {
            ex.fit_offsets(&geometry);
        }
    }

    /// Show `data` (the roofline filled in under `--peak`) and carry the explorer's panes
    /// over to it (`ExplorerView::install`). Returns the profile shown before.
    pub(super) fn install(&mut self, mut data: ExplorerData) -> Option<ExplorerData> {
        if let Some(peak) = self.session.peak {
            // The roofline of each operator and type (cheap: two numbers a row).
            for op in data.ops.iter_mut().chain(data.groups.iter_mut()) {
                op.roofline = crate::profile::efficiency::roofline(op.cost, op.cost_ms, peak);
            }
        }
        let peak = self.session.peak.is_some();
        let previous = self.session.data.replace(data);
        if let Some((ex, env)) = self.explorer_and_env() {
            ex.install(previous.as_ref(), &env, peak);
        }
        previous
    }

    /// Fit the view that fills the screen to a frame of `width` x `height` about to be
    /// drawn (`Component::fit`: its paging follows what it draws).
    pub fn fit_screen(&mut self, width: u16, height: u16) {
        let (views, ctx) = self.views_and_ctx(width, height);
        if let Some(view) = views.screen_mut() {
            view.fit(&ctx);
        }
    }

    /// The geometry of the last handled resize (what update's paging and mouse hits use).
    pub fn areas(&self) -> Areas {
        self.areas_for(self.session.width, self.session.height)
    }

    /// The geometry of this view on a `width` x `height` screen. Rendering uses the
    /// frame's own size: the terminal may have changed size since the last `Resize`.
    pub fn areas_for(&self, width: u16, height: u16) -> Areas {
        layout::compute(
            width,
            height,
            self.log_open(),
            self.views.explorer().is_some_and(|e| e.zooms_detail()),
            self.session.watch.is_some(),
        )
    }

    /// Start loading `request` (first load or reload).
    pub fn load(&mut self, request: ProfileRequest) -> Vec<Effect> {
        self.session.load(request)
    }

    /// Show tree node `id` in the explorer (what a view's `Step::Reveal` asks).
    pub fn reveal_node(&mut self, id: usize) {
        if let Some((ex, env)) = self.explorer_and_env() {
            ex.reveal_node(&env, id);
        }
    }

    /// The tree node the explorer's detail pane describes (`ExplorerView::detail_node`).
    pub fn detail_node(&self) -> Option<usize> {
        self.views
            .explorer()?
            .detail_node(self.session.data.as_ref())
    }

    /// The rows the explorer's table lists: operators, or operator types when grouped.
    pub fn table_ops<'a>(&self, data: &'a ExplorerData) -> &'a [super::data::OpRow] {
        self.views.explorer().map_or(&[], |e| e.table_ops(data))
    }

    pub fn selected_op(&self) -> Option<usize> {
        self.views.explorer()?.selected_op()
    }

    /// The columns the explorer's table can show (`ExplorerView::table_columns`).
    pub fn table_columns(&self) -> Vec<super::column::Column> {
        self.views
            .explorer()
            .map_or_else(Vec::new, |e| e.table_columns())
    }

    /// The explorer table's columns and widths (`ExplorerView::table_layout`).
    pub fn table_layout(&self, width: u16, rows: usize) -> Vec<(super::column::Column, u16)> {
        self.views.explorer().map_or_else(Vec::new, |e| {
            e.table_layout(self.session.data.as_ref(), width, rows)
        })
    }

    /// Lines of the warnings and log view.
    pub fn log_len(&self) -> usize {
        crate::views::log::state::log_len(self.session.data.as_ref(), self.log_width())
    }

    /// Cells inside the log view's border.
    pub fn log_width(&self) -> usize {
        let areas = layout::compute(
            self.session.width,
            self.session.height,
            true,
            false,
            self.session.watch.is_some(),
        );
        areas
            .log
            .map_or(self.session.width, |a| a.width.saturating_sub(2)) as usize
    }
}
