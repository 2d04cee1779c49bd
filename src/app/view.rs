//! The view stack. The explorer is the base (its own state is `ExplorerView`, in
//! `AppState::explorer` beside the data every view borrows); opening a view pushes it, `Esc` pops it, `q` quits from any of
//! them. The shell draws the top view, over the one below it when it is a popup (help,
//! the error dialog).
//!
//! Adding a view is one module (its plain state and a pure `command` returning
//! `step::Step`s) plus one variant here, one key table in `keymap` and one arm in
//! `update` and `ui::draw`.

use super::keymap::ViewKind;
use crate::views::compare::state::CompareView;
use crate::views::flame::state::FlameView;
use crate::views::fleet::state::FleetView;
use crate::views::help::state::HelpView;
use crate::views::log::state::LogView;
use crate::views::modules::state::ModulesView;
use crate::views::timeline::state::TimelineView;

/// A view pushed over the explorer.
#[derive(Debug, Clone)]
pub enum View {
    /// Warnings, decoded plans and the raw log (`w`, `v`).
    Log(LogView),
    /// The key tables (`?`), over the view it was opened from.
    Help(HelpView),
    /// The timeline of one run (`t`).
    Timeline(Box<TimelineView>),
    /// Two runs compared (`compare A B`; watch mode: `d`).
    Compare(Box<CompareView>),
    /// The flame graph (`f`) of the explorer's profile or of the compare view's rows.
    Flame(Box<FlameView>),
    /// A load failed: the message naming the file (the last good profile stays).
    Dialog(String),
    /// The nn.Module tree with inclusive times (`m`).
    Modules(Box<ModulesView>),
    /// Many profiles at once: the base of the stack for `fleet PATH...`.
    Fleet(Box<FleetView>),
    /// The explorer pushed over a view (a fleet's profile, Enter): its state is the
    /// explorer's own (`AppState::explorer`, `AppState::data`), as at the base.
    Explorer,
}

impl View {
    pub fn kind(&self) -> ViewKind {
        match self {
            View::Log(_) => ViewKind::Log,
            View::Help(_) => ViewKind::Help,
            View::Timeline(_) => ViewKind::Timeline,
            View::Compare(_) => ViewKind::Compare,
            View::Flame(_) => ViewKind::Flame,
            View::Dialog(_) => ViewKind::Dialog,
            View::Modules(_) => ViewKind::Modules,
            View::Fleet(_) => ViewKind::Fleet,
            View::Explorer => ViewKind::Explorer,
        }
    }

    /// The view as a component (its key table and hints); None for the explorer (its
    /// table is the shell's: `key_tables::bindings(ViewKind::Explorer)`) and the dialog.
    pub fn component(&self) -> Option<&dyn crate::views::Component> {
        match self {
            View::Log(v) => Some(v),
            View::Help(v) => Some(v),
            View::Timeline(v) => Some(v.as_ref()),
            View::Compare(v) => Some(v.as_ref()),
            View::Flame(v) => Some(v.as_ref()),
            View::Modules(v) => Some(v.as_ref()),
            View::Fleet(v) => Some(v.as_ref()),
            View::Dialog(_) | View::Explorer => None,
        }
    }

    /// Drawn over the view below it (which stays visible around it).
    pub fn is_popup(&self) -> bool {
        matches!(self, View::Help(_) | View::Dialog(_))
    }
}

/// The views over the explorer, bottom first. `floor` views at the bottom never pop (the
/// `compare` command's view is the whole program: Esc there says how to quit instead).
#[derive(Debug, Clone, Default)]
pub struct ViewStack {
    views: Vec<View>,
    floor: usize,
}

impl ViewStack {
    /// A stack whose bottom is `base`, which never pops.
    pub fn with_base(base: View) -> ViewStack {
        ViewStack {
            views: vec![base],
            floor: 1,
        }
    }

    pub fn push(&mut self, view: View) {
        self.views.push(view);
    }

    /// Remove the top view; None at the floor (nothing to go back to).
    pub fn pop(&mut self) -> Option<View> {
        if self.views.len() > self.floor {
            self.views.pop()
        } else {
            None
        }
    }

    pub fn top(&self) -> Option<&View> {
        self.views.last()
    }

    pub fn top_mut(&mut self) -> Option<&mut View> {
        self.views.last_mut()
    }

    pub fn len(&self) -> usize {
        self.views.len()
    }

    pub fn is_empty(&self) -> bool {
        self.views.is_empty()
    }

    /// Bottom first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &View> {
        self.views.iter()
    }

    pub fn kinds(&self) -> Vec<ViewKind> {
        self.views.iter().map(View::kind).collect()
    }

    /// The topmost view that is not a popup: what fills the screen under the popups
    /// (None: the explorer).
    pub fn screen(&self) -> Option<&View> {
        self.views.iter().rev().find(|v| !v.is_popup())
    }

    /// The popups drawn over `screen`, bottom first.
    pub fn popups(&self) -> impl Iterator<Item = &View> {
        let start = self
            .views
            .iter()
            .rposition(|v| !v.is_popup())
            .map_or(0, |i| i + 1);
        self.views[start..].iter()
    }

    /// Drop the views `keep` rejects (a timeline of a profile no longer on screen); the
    /// floor stays.
    pub fn retain(&mut self, mut keep: impl FnMut(&View) -> bool) {
        let floor = self.floor;
        let mut i = 0;
        self.views.retain(|v| {
            i += 1;
            i <= floor || keep(v)
        });
    }

    pub fn timeline(&self) -> Option<&TimelineView> {
        self.views.iter().rev().find_map(|v| match v {
            View::Timeline(t) => Some(&**t),
            _ => None,
        })
    }

    pub fn timeline_mut(&mut self) -> Option<&mut TimelineView> {
        self.views.iter_mut().rev().find_map(|v| match v {
            View::Timeline(t) => Some(&mut **t),
            _ => None,
        })
    }

    pub fn compare(&self) -> Option<&CompareView> {
        self.views.iter().rev().find_map(|v| match v {
            View::Compare(c) => Some(&**c),
            _ => None,
        })
    }

    pub fn compare_mut(&mut self) -> Option<&mut CompareView> {
        self.views.iter_mut().rev().find_map(|v| match v {
            View::Compare(c) => Some(&mut **c),
            _ => None,
        })
    }

    pub fn modules(&self) -> Option<&ModulesView> {
        self.views.iter().rev().find_map(|v| match v {
            View::Modules(m) => Some(&**m),
            _ => None,
        })
    }
    pub fn fleet(&self) -> Option<&FleetView> {
        self.views.iter().rev().find_map(|v| match v {
            View::Fleet(f) => Some(&**f),
            _ => None,
        })
    }

    pub fn fleet_mut(&mut self) -> Option<&mut FleetView> {
        self.views.iter_mut().rev().find_map(|v| match v {
            View::Fleet(f) => Some(&mut **f),
            _ => None,
        })
    }

    pub fn flame(&self) -> Option<&FlameView> {
        self.views.iter().rev().find_map(|v| match v {
            View::Flame(f) => Some(&**f),
            _ => None,
        })
    }

    pub fn log(&self) -> Option<&LogView> {
        self.views.iter().rev().find_map(|v| match v {
            View::Log(l) => Some(l),
            _ => None,
        })
    }

    pub fn help(&self) -> Option<&HelpView> {
        self.views.iter().rev().find_map(|v| match v {
            View::Help(h) => Some(h),
            _ => None,
        })
    }

    pub fn error(&self) -> Option<&str> {
        self.views.iter().rev().find_map(|v| match v {
            View::Dialog(m) => Some(m.as_str()),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn help() -> View {
        View::Help(HelpView::over(ViewKind::Explorer))
    }

    #[test]
    fn push_pop_and_the_floor() {
        let mut s = ViewStack::default();
        assert!(s.pop().is_none(), "the explorer is never popped");
        s.push(View::Log(LogView::default()));
        s.push(help());
        assert_eq!(s.kinds(), [ViewKind::Log, ViewKind::Help]);
        assert!(matches!(s.pop(), Some(View::Help(_))));
        assert!(matches!(s.pop(), Some(View::Log(_))));
        assert!(s.pop().is_none());
        // A base view (the compare command) stays.
        let mut s = ViewStack::with_base(View::Dialog("x".into()));
        s.push(help());
        assert!(s.pop().is_some());
        assert!(s.pop().is_none());
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn popups_are_drawn_over_the_view_below() {
        let mut s = ViewStack::default();
        assert!(s.screen().is_none());
        s.push(View::Log(LogView::default()));
        s.push(help());
        s.push(View::Dialog("bad".into()));
        assert!(matches!(s.screen(), Some(View::Log(_))));
        let popups: Vec<ViewKind> = s.popups().map(View::kind).collect();
        assert_eq!(popups, [ViewKind::Help, ViewKind::Dialog]);
        assert_eq!(s.error(), Some("bad"));
        // Only popups: drawn over the explorer.
        let mut s = ViewStack::default();
        s.push(help());
        assert!(s.screen().is_none());
        assert_eq!(s.popups().count(), 1);
    }

    #[test]
    fn retain_keeps_the_floor_and_the_order() {
        let mut s = ViewStack::with_base(View::Dialog("base".into()));
        s.push(View::Log(LogView::default()));
        s.push(help());
        s.retain(|v| !matches!(v, View::Log(_) | View::Dialog(_)));
        assert_eq!(s.kinds(), [ViewKind::Dialog, ViewKind::Help]);
    }
}
