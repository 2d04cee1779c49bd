//! What the explorer's keys open over it: the timeline (`t`, on the table's operator)
//! the modules view (`m`) and the flame graph (`f`).

use super::effect::Effect;
use super::state::{AppState, Pane};
use crate::profile::ProfileRequest;
use crate::views::timeline::state::TimelineView;

/// `t` on an operator row of a dump's table: that operator, for the timeline to select.
fn timeline_focus(state: &AppState) -> Option<crate::views::timeline::state::TimelineFocus> {
    let data = state.session.data.as_ref()?;
    let t = &state.explorer.table;
    if state.explorer.focus != Pane::Table
        || t.grouped
        || data.kind != super::data::SourceKind::Etdump
    {
        return None;
    }
    let op = data.ops.get(state.selected_op()?)?;
    // `d1` (one method): instruction 1; other labels select by name alone.
    let instruction_id = op.delegate.strip_prefix('d').and_then(|id| id.parse().ok());
    Some(crate::views::timeline::state::TimelineFocus {
        name: op.name.clone(),
        instruction_id,
    })
}

/// `t`: the timeline of the profile on screen (pushed while it loads).
pub(super) fn open_timeline(state: &mut AppState) -> Vec<Effect> {
    if state.session.data.is_none() {
        return Vec::new();
    }
    // Watching: the run on screen; otherwise the last request.
    let request = match &state.session.watch {
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
        None => state.session.request.clone(),
    };
    let Some(request) = request else {
        return Vec::new();
    };
    let mut view = TimelineView::loading(state.session.generation);
    view.focus = timeline_focus(state);
    view.request = Some(request.clone());
    state.views.push(Box::new(view));
    vec![Effect::LoadTimeline {
        request,
        generation: state.session.generation,
        center: None,
    }]
}

/// `m`: the modules view, or one footer notice saying why there is none.
pub(super) fn open_modules(state: &mut AppState) {
    let Some(data) = &state.session.data else {
        state.session.notice = Some("no profile loaded".into());
        return;
    };
    if data.modules.is_empty() {
        state.session.notice = Some(match data.kind {
            super::data::SourceKind::Trace => "no module tree: a trace has no ETRecord".into(),
            super::data::SourceKind::Etdump => {
                "no module tree: no ETRecord read (--etrecord FILE or STEM.etrecord beside the dump; w says why)".into()
            }
        });
        return;
    }
    let view = crate::views::modules::state::ModulesView::new(data);
    state.views.push(Box::new(view));
}

/// `f`: the flame graph of the profile on screen.
pub(super) fn open_flame(state: &mut AppState) {
    let Some(data) = &state.session.data else {
        state.session.notice = Some("no profile yet".into());
        return;
    };
    let tree = data.flame.clone().unwrap_or_else(|| {
        std::sync::Arc::new(crate::views::flame::model::FlameTree::from_explorer(data))
    });
    let view = crate::views::flame::state::FlameView::new(tree);
    state.views.push(Box::new(view));
}
