//! The view stack: every view on screen, each a `Box<dyn views::Component>` (one
//! interface: keys, `command`, `render`). The explorer is the base (or, for `fleet`, is
//! pushed over the fleet view); opening a view pushes it, `Esc` pops it, `q` quits from
//! any of them. A popped view that `parks` (the explorer) is kept aside to be pushed
//! again. The shell draws the top view, over the one below it when it is a popup (help,
//! the error dialog). The explorer's state is found here (`explorer`, `explorer_mut`),
//! never in a field of the shell's.

use super::keymap::ViewKind;
use crate::views::compare::state::CompareView;
use crate::views::dialog::state::DialogView;
use crate::views::explorer::ExplorerView;
use crate::views::flame::state::FlameView;
use crate::views::fleet::state::FleetView;
use crate::views::help::state::HelpView;
use crate::views::log::state::LogView;
use crate::views::modules::state::ModulesView;
use crate::views::timeline::state::TimelineView;
use crate::views::Component;

/// A view in the stack.
pub type View = Box<dyn Component>;

/// The views, bottom first. `floor` views at the bottom never pop (the explorer; the
/// `compare` command's view is the whole program: Esc there says how to quit instead).
#[derive(Debug, Clone, Default)]
pub struct ViewStack {
    views: Vec<View>,
    floor: usize,
    /// The last popped view that `parks`, to be pushed again (`unpark`).
    parked: Option<View>,
}

impl ViewStack {
    /// A stack whose bottom is `base`, which never pops.
    pub fn with_base(base: View) -> ViewStack {
        ViewStack {
            views: vec![base],
            floor: 1,
            parked: None,
        }
    }

    pub fn push(&mut self, view: View) {
        self.views.push(view);
    }

    /// Remove the top view; None at the floor (nothing to go back to). A view that
    /// `parks` is kept aside (a copy is returned).
    pub fn pop(&mut self) -> Option<View> {
        if self.views.len() <= self.floor {
            return None;
        }
        let view = self.views.pop()?;
        if view.parks() {
            self.parked = Some(view.clone());
        }
        Some(view)
    }

    /// The parked view of `kind` (taken out of the parking), if any.
    pub fn unpark(&mut self, kind: ViewKind) -> Option<View> {
        if self.parked.as_ref().is_some_and(|v| v.kind() == kind) {
            self.parked.take()
        } else {
            None
        }
    }

    pub fn top(&self) -> Option<&dyn Component> {
        self.views.last().map(|v| &**v)
    }

    pub fn top_mut(&mut self) -> Option<&mut dyn Component> {
        self.views.last_mut().map(|v| &mut **v)
    }

    /// Which view is on top (None: an empty stack).
    pub fn top_kind(&self) -> Option<ViewKind> {
        self.top().map(|v| v.kind())
    }

    pub fn len(&self) -> usize {
        self.views.len()
    }

    pub fn is_empty(&self) -> bool {
        self.views.is_empty()
    }

    /// Bottom first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &dyn Component> {
        self.views.iter().map(|v| &**v)
    }

    pub fn kinds(&self) -> Vec<ViewKind> {
        self.iter().map(|v| v.kind()).collect()
    }

    /// The topmost view that is not a popup: what fills the screen under the popups.
    pub fn screen(&self) -> Option<&dyn Component> {
        self.iter().rev().find(|v| !v.is_popup())
    }

    /// The topmost non-popup view, mutable.
    pub fn screen_mut(&mut self) -> Option<&mut dyn Component> {
        self.views
            .iter_mut()
            .rev()
            .find(|v| !v.is_popup())
            .map(|v| &mut **v)
    }

    /// The popups drawn over `screen`, bottom first.
    pub fn popups(&self) -> impl Iterator<Item = &dyn Component> {
        let start = self
            .views
            .iter()
            .rposition(|v| !v.is_popup())
            .map_or(0, |i| i + 1);
        self.views[start..].iter().map(|v| &**v)
    }

    /// Drop the views `keep` rejects (a timeline of a profile no longer on screen); the
    /// floor stays.
    pub fn retain(&mut self, mut keep: impl FnMut(&dyn Component) -> bool) {
        let floor = self.floor;
        let mut i = 0;
        self.views.retain(|v| {
            i += 1;
            i <= floor || keep(&**v)
        });
    }

    /// The topmost view of type `T`.
    pub fn find<T: Component>(&self) -> Option<&T> {
        self.views.iter().rev().find_map(|v| v.downcast_ref::<T>())
    }

    pub fn find_mut<T: Component>(&mut self) -> Option<&mut T> {
        self.views
            .iter_mut()
            .rev()
            .find_map(|v| v.downcast_mut::<T>())
    }

    /// The explorer: the topmost in the stack, else the one parked (over the fleet, Esc
    /// left it; its state waits for the next profile).
    pub fn explorer(&self) -> Option<&ExplorerView> {
        self.find().or_else(|| self.parked.as_ref()?.downcast_ref())
    }

    pub fn explorer_mut(&mut self) -> Option<&mut ExplorerView> {
        if self.find::<ExplorerView>().is_some() {
            return self.find_mut();
        }
        self.parked.as_mut()?.downcast_mut()
    }

    pub fn timeline(&self) -> Option<&TimelineView> {
        self.find()
    }

    pub fn timeline_mut(&mut self) -> Option<&mut TimelineView> {
        self.find_mut()
    }

    pub fn compare(&self) -> Option<&CompareView> {
        self.find()
    }

    pub fn compare_mut(&mut self) -> Option<&mut CompareView> {
        self.find_mut()
    }

    pub fn modules(&self) -> Option<&ModulesView> {
        self.find()
    }

    pub fn fleet(&self) -> Option<&FleetView> {
        self.find()
    }

    pub fn fleet_mut(&mut self) -> Option<&mut FleetView> {
        self.find_mut()
    }

    pub fn flame(&self) -> Option<&FlameView> {
        self.find()
    }

    pub fn log(&self) -> Option<&LogView> {
        self.find()
    }

    pub fn help(&self) -> Option<&HelpView> {
        self.find()
    }

    pub fn error(&self) -> Option<&str> {
        self.find::<DialogView>().map(|d| d.message.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn explorer() -> View {
        Box::new(ExplorerView::default())
    }

    fn help() -> View {
        Box::new(HelpView::over(ViewKind::Explorer))
    }

    fn log() -> View {
        Box::new(LogView::default())
    }

    fn dialog(message: &str) -> View {
        Box::new(DialogView::new(message))
    }

    #[test]
    fn push_pop_and_the_floor() {
        let mut s = ViewStack::with_base(explorer());
        assert!(
            s.pop().is_none(),
            "the explorer at the base is never popped"
        );
        s.push(log());
        s.push(help());
        assert_eq!(
            s.kinds(),
            [ViewKind::Explorer, ViewKind::Log, ViewKind::Help]
        );
        assert_eq!(s.pop().map(|v| v.kind()), Some(ViewKind::Help));
        assert_eq!(s.pop().map(|v| v.kind()), Some(ViewKind::Log));
        assert!(s.pop().is_none());
        // A base view (the compare command) stays.
        let mut s = ViewStack::with_base(dialog("x"));
        s.push(help());
        assert!(s.pop().is_some());
        assert!(s.pop().is_none());
        assert_eq!(s.len(), 1);
    }

    /// Over the fleet, Esc pops the explorer; its state waits for the next Enter.
    #[test]
    fn a_popped_explorer_is_parked_and_found() {
        let mut s = ViewStack::with_base(dialog("the fleet"));
        let mut ex = ExplorerView::over_another();
        ex.table.hscroll = 3;
        s.push(Box::new(ex));
        s.push(log());
        s.pop();
        assert!(
            s.unpark(ViewKind::Explorer).is_none(),
            "the log does not park"
        );
        s.pop();
        assert_eq!(s.kinds(), [ViewKind::Dialog]);
        assert_eq!(s.explorer().map(|e| e.table.hscroll), Some(3));
        s.explorer_mut().unwrap().table.hscroll = 4;
        assert!(s.unpark(ViewKind::Log).is_none());
        let back = s.unpark(ViewKind::Explorer).unwrap();
        assert_eq!(
            back.downcast_ref::<ExplorerView>().unwrap().table.hscroll,
            4
        );
        assert!(s.explorer().is_none(), "taken out of the parking");
    }

    #[test]
    fn popups_are_drawn_over_the_view_below() {
        let mut s = ViewStack::with_base(explorer());
        assert_eq!(s.screen().map(|v| v.kind()), Some(ViewKind::Explorer));
        s.push(log());
        s.push(help());
        s.push(dialog("bad"));
        assert_eq!(s.screen().map(|v| v.kind()), Some(ViewKind::Log));
        let popups: Vec<ViewKind> = s.popups().map(|v| v.kind()).collect();
        assert_eq!(popups, [ViewKind::Help, ViewKind::Dialog]);
        assert_eq!(s.error(), Some("bad"));
        // Only popups: drawn over the explorer.
        let mut s = ViewStack::with_base(explorer());
        s.push(help());
        assert_eq!(s.screen().map(|v| v.kind()), Some(ViewKind::Explorer));
        assert_eq!(s.popups().count(), 1);
    }

    #[test]
    fn retain_keeps_the_floor_and_the_order() {
        let mut s = ViewStack::with_base(dialog("base"));
        s.push(log());
        s.push(help());
        s.retain(|v| !matches!(v.kind(), ViewKind::Log | ViewKind::Dialog));
        assert_eq!(s.kinds(), [ViewKind::Dialog, ViewKind::Help]);
    }
}
