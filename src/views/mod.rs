//! The views: one directory per view, each with its state and pure `command` (`state`),
//! its key table (`keys`; the explorer's is `app::key_tables`), and its
//! drawing (`render`). The shell (`app::update`, `ui::draw`) is a loop over the stack
//! (`app::view::ViewStack`); the explorer, the base of the stack, is `app::explorer*`.

pub mod compare;
pub mod dialog;
pub mod flame;
pub mod fleet;
pub mod help;
pub mod log;
pub mod modules;
pub mod timeline;

use crate::app::binding::Binding;
use crate::app::hints::Hint;
use crate::app::keymap::ViewKind;

/// What every view is to the shell, whatever its state: which view it is, its key table
/// and the footer hints made from it. (Each view's `command` and `render` take what that
/// view reads: the area, the loaded data, the theme.)
pub trait Component {
    fn kind(&self) -> ViewKind;

    /// The view's key table: what `update` looks a key up in, what the help lists.
    fn keys(&self) -> &'static [Binding] {
        crate::app::key_tables::bindings(self.kind())
    }

    /// The footer's hints, from the key table (`app::hints`).
    fn hints(&self) -> Vec<Hint> {
        crate::app::hints::hints_of(self.keys())
    }
}

macro_rules! component {
    ($($view:ty => $kind:ident),* $(,)?) => {
        $(impl Component for $view {
            fn kind(&self) -> ViewKind {
                ViewKind::$kind
            }
        })*
    };
}

component!(
    flame::state::FlameView => Flame,
    compare::state::CompareView => Compare,
    fleet::state::FleetView => Fleet,
    modules::state::ModulesView => Modules,
    log::state::LogView => Log,
    help::state::HelpView => Help,
    timeline::state::TimelineView => Timeline,
);
