//! Status line: filter input with match count, sort, key hints.

use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::Theme;
use crate::app::hints::{fitting, hints, Hint};
use crate::app::keys::Meaning;
use crate::app::{AppState, ViewKind};

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    if area.height == 0 {
        return;
    }
    let t = &state.explorer.table;
    let matches = t.rows.len();
    let mut spans = Vec::new();
    if let Some((search, status)) = crate::app::search_status::of_top(state) {
        if search.editing {
            let prefix = "search /";
            spans.push(Span::styled(prefix, theme.key()));
            spans.push(Span::raw(
                crate::escape::escape(search.input.value()).into_owned(),
            ));
            spans.push(Span::styled(
                format!("  {status}  Enter keep · Esc clear"),
                theme.dim(),
            ));
            let x = area.x + prefix.len() as u16 + search.input.visual_cursor() as u16;
            if x < area.x + area.width {
                frame.set_cursor_position(Position::new(x, area.y));
            }
            frame.render_widget(Paragraph::new(Line::from(spans)), area);
            return;
        }
        if state.session.notice.is_none() && search.is_active() {
            spans.push(Span::styled(format!("{status} │ "), theme.warning()));
        }
    }
    if state.explorer.filter_editing {
        let prefix = "filter /";
        let value = t.filter.value();
        spans.push(Span::styled(prefix, theme.key()));
        spans.push(Span::raw(value.to_string()));
        spans.push(Span::styled(
            format!(
                "  {matches} match{}  Enter keep · Esc clear",
                if matches == 1 { "" } else { "es" }
            ),
            theme.dim(),
        ));
        let x = area.x + prefix.len() as u16 + t.filter.visual_cursor() as u16;
        if x < area.x + area.width {
            frame.set_cursor_position(Position::new(x, area.y));
        }
    } else {
        if let Some(notice) = &state.session.notice {
            spans.push(Span::styled(format!("{notice} │ "), theme.warning()));
        }
        // The explorer's own state (its table's filter and sort, the warm-up) only under
        // the explorer: another view on screen has its own.
        let explorer_on_screen = matches!(
            state.views.screen().map(|v| v.kind()),
            None | Some(ViewKind::Explorer)
        );
        if explorer_on_screen && !t.filter.value().is_empty() {
            spans.push(Span::styled(
                format!("filter \"{}\": {matches} matches │ ", t.filter.value()),
                theme.warning(),
            ));
        }
        let dir = if t.descending { "↓" } else { "↑" };
        // Traces have no runs, so no warm-up to change.
        let shown_warmup = state.session.shown_warmup();
        let has_runs = shown_warmup.is_some();
        let warmup = shown_warmup
            .map(|w| format!("warm-up {w} │ "))
            .unwrap_or_default();
        if explorer_on_screen {
            spans.push(Span::styled(
                format!("sort {}{dir} │ {warmup}", t.sort.label()),
                theme.dim(),
            ));
        }
        // Opened with no warm-up while the first runs are cold: say so, with the key.
        let cold = state
            .session
            .data
            .as_ref()
            .and_then(|d| d.runs.as_ref())
            .filter(|r| r.dropped == 0 && r.cold > 0)
            .map(|r| r.cold);
        if let Some(n) = cold.filter(|_| explorer_on_screen) {
            spans.push(Span::styled(
                format!(
                    "{n} cold first run{} (+ drops one) │ ",
                    if n == 1 { "" } else { "s" }
                ),
                theme.warning(),
            ));
        }
        // The hints of the view on screen, from its key table: what applies here, most
        // used first, whole hints only (the help lists every key).
        let screen = state.views.screen().map(|v| v.kind());
        let kind = screen.unwrap_or(ViewKind::Explorer);
        let data = state.session.data.as_ref();
        // `o` groups by type: only where there are types (not in a trace's by-name table).
        let has_types = data.is_some_and(|d| !d.groups.is_empty());
        let has_modules = data.is_some_and(|d| !d.modules.is_empty());
        let watching = state.session.watch.is_some();
        // The explorer's keys that need something (runs, types, an ETRecord, a watched
        // folder); another view's table binds only what it has.
        let explorer = kind == ViewKind::Explorer;
        let applies = |m: Meaning| match m {
            Meaning::Warmup if explorer => has_runs,
            Meaning::Types if explorer => has_types,
            Meaning::Modules if explorer => has_modules,
            Meaning::Runs | Meaning::Baseline | Meaning::CompareBaseline if explorer => watching,
            // The timeline steps through a dump's runs; a trace has none.
            Meaning::Runs if kind == ViewKind::Timeline => {
                data.is_some_and(|d| d.kind != crate::app::data::SourceKind::Trace)
            }
            _ => true,
        };
        let all: Vec<Hint> = state
            .views
            .screen()
            .map_or_else(|| hints(kind), |c| c.hints())
            .into_iter()
            .filter(|h| applies(h.meaning))
            .collect();
        let used: usize = spans.iter().map(|s| s.content.chars().count()).sum();
        for h in fitting(&all, (area.width as usize).saturating_sub(used)) {
            spans.push(Span::styled(h.keys.clone(), theme.key()));
            spans.push(Span::raw(format!(" {}  ", h.what)));
        }
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
