//! Status line: filter input with match count, sort, key hints.

use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::Theme;
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
        if state.notice.is_none() && search.is_active() {
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
        if let Some(notice) = &state.notice {
            spans.push(Span::styled(format!("{notice} │ "), theme.warning()));
        }
        if !t.filter.value().is_empty() {
            spans.push(Span::styled(
                format!("filter \"{}\": {matches} matches │ ", t.filter.value()),
                theme.warning(),
            ));
        }
        let dir = if t.descending { "↓" } else { "↑" };
        // Traces have no runs, so no warm-up to change.
        let shown_warmup = state.shown_warmup();
        let has_runs = shown_warmup.is_some();
        let warmup = shown_warmup
            .map(|w| format!("warm-up {w} │ "))
            .unwrap_or_default();
        // The modules view has its own sort and no warm-up key: the explorer's are not its.
        let modules_on_screen = matches!(state.views.screen(), Some(crate::app::View::Modules(_)));
        if !modules_on_screen {
            spans.push(Span::styled(
                format!("sort {}{dir} │ {warmup}", t.sort.label()),
                theme.dim(),
            ));
        }
        // Opened with no warm-up while the first runs are cold: say so, with the key.
        let cold = state
            .data
            .as_ref()
            .and_then(|d| d.runs.as_ref())
            .filter(|r| r.dropped == 0 && r.cold > 0)
            .map(|r| r.cold);
        if let Some(n) = cold.filter(|_| !modules_on_screen) {
            spans.push(Span::styled(
                format!(
                    "{n} cold first run{} (+ drops one) │ ",
                    if n == 1 { "" } else { "s" }
                ),
                theme.warning(),
            ));
        }
        // The hints of the view on screen: its keys only (the help lists them all).
        let watch_hint = state.watch.as_ref().map(|_| ("n/p", "run"));
        let screen = state.views.screen().map(|v| v.kind());
        // The log's and the timeline's hints come from their key tables.
        if let Some(kind @ (ViewKind::Log | ViewKind::Timeline)) = screen {
            spans.extend(hint_spans(
                &crate::app::keymap::footer_hints(kind),
                (area.width as usize).saturating_sub(Line::from(spans.clone()).width()),
                theme,
            ));
            frame.render_widget(Paragraph::new(Line::from(spans)), area);
            return;
        }
        let keys: Vec<(&str, &str)> = match screen {
            Some(ViewKind::Modules) => vec![
                ("?", "help"),
                ("q", "quit"),
                ("Esc", "back"),
                ("m", "close"),
            ],
            Some(ViewKind::Flame) => vec![
                ("?", "help"),
                ("q", "quit"),
                ("Esc", "zoom out/back"),
                ("hjkl", "move"),
                ("Enter", "zoom"),
                ("/", "search"),
                ("%", "widths"),
                ("r", "reveal"),
            ],
            _ => [("?", "help"), ("q", "quit"), ("Tab", "pane")]
                .into_iter()
                .chain(watch_hint)
                .chain([
                    ("/", "filter"),
                    ("s", "sort"),
                    ("w", "log"),
                    ("+/-", "warm-up"),
                    ("t", "timeline"),
                    ("o", "types"),
                    ("r", "reveal"),
                    ("c", "copy"),
                ])
                .collect(),
        };
        // `o` groups by type: only where there are types (not in a trace's by-name table).
        let has_types = state.data.as_ref().is_some_and(|d| !d.groups.is_empty());
        for (k, what) in keys
            .into_iter()
            .filter(|(k, _)| has_runs || *k != "+/-")
            .filter(|(k, _)| has_types || *k != "o")
        {
            spans.push(Span::styled(k, theme.key()));
            spans.push(Span::raw(format!(" {what} ")));
        }
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// Key hints (`keymap::footer_hints`) as spans, each whole or not at all within `width`
/// cells: a narrow footer drops the last hints, never cuts one.
pub fn hint_spans(hints: &[(String, &str)], width: usize, theme: &Theme) -> Vec<Span<'static>> {
    let mut spans = vec![Span::raw(" ")];
    let mut used = 1;
    for (keys, word) in hints {
        let cells = keys.chars().count() + 1 + word.chars().count() + 2;
        if used + cells - 2 > width {
            break;
        }
        used += cells;
        spans.push(Span::styled(keys.clone(), theme.key()));
        spans.push(Span::styled(format!(" {word}  "), theme.dim()));
    }
    spans
}
