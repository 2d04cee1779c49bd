//! The views: one directory per view, each with its state and pure commands (`state`),
//! its key table (`keys`), its drawing (`render`), and in its `mod.rs` the one interface
//! the shell knows it by (`Component`). The shell (`app::update`, `ui::draw`) is a loop
//! over the stack (`app::view::ViewStack`) of `Box<dyn Component>`; the explorer is one of
//! them (at the base, or over the fleet). Views read the shared session through `Ctx`
//! and ask the shell to change it with `Step`s.

pub mod compare;
pub mod dialog;
pub mod explorer;
pub mod flame;
pub mod fleet;
pub mod help;
pub mod log;
pub mod modules;
pub mod timeline;

use std::any::Any;

use ratatui::layout::Rect;
use ratatui::Frame;

use crate::app::binding::Binding;
use crate::app::command::{Command, ViewKind};
use crate::app::data::ExplorerData;
use crate::app::hints::Hint;
use crate::app::keys::Meaning;
use crate::app::layout::MouseAction;
use crate::app::search::Search;
use crate::app::session::Session;
use crate::app::step::Step;
use crate::ui::Theme;

/// Where a view is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The whole screen (the explorer, compare, fleet, a diff flame graph).
    Screen,
    /// The explorer's body, between its header and its footer (log, timeline, modules,
    /// flame): the shell draws the explorer under it first.
    Body,
    /// Over the view below, which stays visible around it (help, the error dialog).
    Popup,
}

/// What a view reads besides its own state, the same for every view: the shared session
/// (read-only) and the geometry of this frame (the same pure `app::layout` that mouse
/// hits use).
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    /// The shared session: the profile on screen, the load in flight, watch mode's runs,
    /// the last request.
    pub session: &'a Session,
    /// The whole screen.
    pub screen: Rect,
    /// The explorer's body: where a `Place::Body` view is drawn.
    pub body: Rect,
    /// For a popup's `render`: the view that fills the screen under it.
    pub below: Option<&'a dyn Component>,
    /// For the `render` of a view under a view of its body (the explorer under the log):
    /// that view, on screen over it.
    pub above: Option<&'a dyn Component>,
    /// For `render`: the top of the stack (the explorer's footer shows its search).
    pub top: Option<&'a dyn Component>,
}

impl<'a> Ctx<'a> {
    /// The context of a `screen` whose views' body is `body`.
    pub fn new(session: &'a Session, screen: Rect, body: Rect) -> Ctx<'a> {
        Ctx {
            session,
            screen,
            body,
            below: None,
            above: None,
            top: None,
        }
    }

    /// The profile on screen (the session's), while one is loaded.
    pub fn data(&self) -> Option<&'a ExplorerData> {
        self.session.data.as_ref()
    }

    /// The footer's one-line message (the session's), if any.
    pub fn notice(&self) -> Option<&'a str> {
        self.session.notice.as_deref()
    }
}

/// The one interface of a view: which view it is, its key table and footer hints, its
/// pure `command` (keys, the mouse) returning `Step`s for the shell, and its `render`.
/// The shell never looks inside a view: it looks a key up in the top view's `keys`,
/// hands the command to its `command`, applies the steps, and draws the stack with
/// `render`.
pub trait Component: Any + std::fmt::Debug {
    fn kind(&self) -> ViewKind;

    /// The view's key table: what `update` looks a key up in, what the help lists.
    fn keys(&self) -> &'static [Binding] {
        crate::app::key_tables::bindings(self.kind())
    }

    /// The footer's hints, from the key table (`app::hints`).
    fn hints(&self) -> Vec<Hint> {
        crate::app::hints::hints_of(self.keys())
    }

    /// Whether a key of `meaning` does something here (the footer leaves out the hints of
    /// those that do not: the warm-up keys of a trace, the runs keys outside watch mode).
    fn hint_applies(&self, _meaning: Meaning, _ctx: &Ctx) -> bool {
        true
    }

    /// A text field is being typed in: keys go to the filter's table (`ViewKind::Filter`).
    fn editing(&self) -> bool {
        false
    }

    fn place(&self) -> Place {
        Place::Body
    }

    /// A key's command (already looked up in `keys`). `Quit` and opening the help never
    /// reach a view: the shell handles them for all.
    fn command(&mut self, cmd: Command, ctx: &Ctx) -> Vec<Step>;

    /// A click or wheel turn at (`x`, `y`).
    fn mouse(&mut self, _kind: MouseAction, _x: u16, _y: u16, _ctx: &Ctx) -> Vec<Step> {
        Vec::new()
    }

    /// The one way drawing geometry reaches a view's state: before each frame the shell
    /// calls this on the view that fills the screen, with that frame's `ctx` (the terminal
    /// may have changed size since the last `Resize`), so paging and scrolling fit what
    /// `render` is about to draw.
    fn fit(&mut self, _ctx: &Ctx) {}

    fn render(&self, frame: &mut Frame, ctx: &Ctx, theme: &Theme);

    /// Drawn after the view over this one's body (the explorer's loading gauge over the
    /// log).
    fn render_over(&self, _frame: &mut Frame, _ctx: &Ctx, _theme: &Theme) {}

    /// Popped, the view is kept aside (`ViewStack::unpark`) to be pushed again: the
    /// explorer's selection, sort and filter outlive a return to the fleet.
    fn parks(&self) -> bool {
        false
    }

    /// Draw `help` (the help popup opened over this view) in this view's own way; false
    /// to leave it to the help's own `render`.
    fn render_help(
        &self,
        _frame: &mut Frame,
        _help: &help::state::HelpView,
        _theme: &Theme,
    ) -> bool {
        false
    }

    /// The view's search and its footer status (`"conv": 2 of 5`), if it searches.
    fn search(&self, _ctx: &Ctx) -> Option<(&Search, String)> {
        None
    }

    fn clone_box(&self) -> Box<dyn Component>;
}

impl Clone for Box<dyn Component> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// Views compare by kind (what a `Step::Push` opens, in tests).
impl PartialEq for Box<dyn Component> {
    fn eq(&self, other: &Self) -> bool {
        self.kind() == other.kind()
    }
}

impl Eq for Box<dyn Component> {}

impl dyn Component {
    pub fn is_popup(&self) -> bool {
        self.place() == Place::Popup
    }

    /// Whose key table is live: the view's, or its text field's.
    pub fn mode(&self) -> ViewKind {
        if self.editing() {
            ViewKind::Filter
        } else {
            self.kind()
        }
    }

    pub fn downcast_ref<T: Component>(&self) -> Option<&T> {
        (self as &dyn Any).downcast_ref()
    }

    pub fn downcast_mut<T: Component>(&mut self) -> Option<&mut T> {
        (self as &mut dyn Any).downcast_mut()
    }
}

/// The `clone_box` of a view that is `Clone`.
#[macro_export]
macro_rules! clone_box {
    () => {
        fn clone_box(&self) -> Box<dyn $crate::views::Component> {
            Box::new(self.clone())
        }
    };
}
