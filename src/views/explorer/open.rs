//! What the explorer's keys open over it: the timeline (`t`, on the table's operator)
//! the modules view (`m`) and the flame graph (`f`). Pure: each reads the explorer's
//! state and the session and returns the steps for the shell (a view to push, its load,
//! or a footer notice saying why there is none).

use super::state::{ExplorerView, Pane};
use crate::app::command::Command;
use crate::app::data::{ExplorerData, SourceKind};
use crate::app::effect::Effect;
use crate::app::session::Session;
use crate::app::step::Step;
use crate::profile::ProfileRequest;
use crate::views::timeline::state::{TimelineFocus, TimelineView};

/// The steps of an explorer key that opens a view over it (`t`, `m`, `f`); None for
/// any other command.
pub(super) fn opens(cmd: Command, ex: &ExplorerView, session: &Session) -> Option<Vec<Step>> {
    let data = session.data.as_ref();
    Some(match cmd {
        Command::ToggleTimeline => open_timeline(ex, session),
        Command::ToggleFlame => open_flame(data),
        Command::ToggleModules => open_modules(data),
        _ => return None,
    })
}

/// `t` on an operator row of a dump's table: that operator, for the timeline to select.
fn timeline_focus(ex: &ExplorerView, data: &ExplorerData) -> Option<TimelineFocus> {
    let t = &ex.table;
    if ex.focus != Pane::Table || t.grouped || data.kind != SourceKind::Etdump {
        return None;
    }
    let op = data.ops.get(ex.selected_op()?)?;
    // `d1` (one method): instruction 1; other labels select by name alone.
    let instruction_id = op.delegate.strip_prefix('d').and_then(|id| id.parse().ok());
    Some(TimelineFocus {
        name: op.name.clone(),
        instruction_id,
    })
}

/// `t`: the timeline of the profile on screen (pushed while it loads).
fn open_timeline(ex: &ExplorerView, session: &Session) -> Vec<Step> {
    let Some(data) = &session.data else {
        return Vec::new();
    };
    // Watching: the run on screen; otherwise the last request.
    let request = match &session.watch {
        Some(w) => w
            .shown
            .and_then(|id| w.index_of(id))
            .map(|i| &w.entries[i])
            .map(|e| {
                let mut request = ProfileRequest::new(e.etdump.clone(), e.log.clone(), w.warmup);
                request.warmup_auto = w.warmup_auto;
                request.warmup_stated = w.warmup_stated;
                request.model = w.model.clone();
                request.read = w.read;
                request
            }),
        None => session.request.clone(),
    };
    let Some(request) = request else {
        return Vec::new();
    };
    let mut view = TimelineView::loading(session.generation);
    view.focus = timeline_focus(ex, data);
    view.request = Some(request.clone());
    vec![
        Step::Push(Box::new(view)),
        Step::Effect(Effect::LoadTimeline {
            request,
            generation: session.generation,
            center: None,
        }),
    ]
}

/// `m`: the modules view, or one footer notice saying why there is none.
fn open_modules(data: Option<&ExplorerData>) -> Vec<Step> {
    let Some(data) = data else {
        return vec![Step::Notice("no profile loaded".into())];
    };
    if data.modules.is_empty() {
        return vec![Step::Notice(match data.kind {
            SourceKind::Trace => "no module tree: a trace has no ETRecord".into(),
            SourceKind::Etdump => {
                "no module tree: no ETRecord read (--etrecord FILE or STEM.etrecord beside the dump; w says why)".into()
            }
        })];
    }
    let view = crate::views::modules::state::ModulesView::new(data);
    vec![Step::Push(Box::new(view))]
}

/// `f`: the flame graph of the profile on screen.
fn open_flame(data: Option<&ExplorerData>) -> Vec<Step> {
    let Some(data) = data else {
        return vec![Step::Notice("no profile yet".into())];
    };
    let tree = data.flame.clone().unwrap_or_else(|| {
        std::sync::Arc::new(crate::views::flame::model::FlameTree::from_explorer(data))
    });
    let view = crate::views::flame::state::FlameView::new(tree);
    vec![Step::Push(Box::new(view))]
}
