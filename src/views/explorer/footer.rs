//! The explorer's footer, under its panes or under a view of its body (log, timeline,
//! modules, flame): the top view's search, the filter input with its match count, the
//! notice, the sort and warm-up, and the key hints of the view on screen (its key table,
//! `Component::hints`).

use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use super::state::ExplorerView;
use crate::app::hints::{fitting, Hint};
use crate::ui::Theme;
use crate::views::{Component, Ctx};

/// `ctx.above`: the view on screen over the explorer's body, if any; `ctx.top`: the top
/// of the stack (whose search the footer shows). `search_ctx`: the geometry that search
/// is counted on (the last handled resize).
pub fn render(
    frame: &mut Frame,
    area: Rect,
    ex: &ExplorerView,
    ctx: &Ctx,
    search_ctx: &Ctx,
    theme: &Theme,
) {
    if area.height == 0 {
        return;
    }
    let session = ctx.session;
    let t = &ex.table;
    let matches = t.rows.len();
    let mut spans = Vec::new();
    if let Some((search, status)) = ctx.top.and_then(|v| v.search(search_ctx)) {
        if search.editing {
            let prefix = "search /";
            spans.push(Span::styled(prefix, theme.key()));
            spans.push(Span::raw(
                crate::escape::escape(search.input.value()).into_owned(),
            ));
            spans.push(Span::styled(
                format!("  {status}  {}", crate::app::hints::filter_prompt()),
                theme.dim(),
            ));
            let x = area.x + prefix.len() as u16 + search.input.visual_cursor() as u16;
            if x < area.x + area.width {
                frame.set_cursor_position(Position::new(x, area.y));
            }
            frame.render_widget(Paragraph::new(Line::from(spans)), area);
            return;
        }
        if session.notice.is_none() && search.is_active() {
            spans.push(Span::styled(format!("{status} │ "), theme.warning()));
        }
    }
    if ex.filter_editing {
        let prefix = "filter /";
        let value = t.filter.value();
        spans.push(Span::styled(prefix, theme.key()));
        spans.push(Span::raw(value.to_string()));
        spans.push(Span::styled(
            format!(
                "  {matches} match{}  {}",
                if matches == 1 { "" } else { "es" },
                crate::app::hints::filter_prompt()
            ),
            theme.dim(),
        ));
        let x = area.x + prefix.len() as u16 + t.filter.visual_cursor() as u16;
        if x < area.x + area.width {
            frame.set_cursor_position(Position::new(x, area.y));
        }
    } else {
        if let Some(notice) = &session.notice {
            spans.push(Span::styled(format!("{notice} │ "), theme.warning()));
        }
        // The explorer's own state (its table's filter and sort, the warm-up) only under
        // the explorer: another view on screen has its own.
        let screen: &dyn Component = ctx.above.unwrap_or(ex);
        let explorer_on_screen = ctx.above.is_none();
        if explorer_on_screen && !t.filter.value().is_empty() {
            spans.push(Span::styled(
                format!("filter \"{}\": {matches} matches │ ", t.filter.value()),
                theme.warning(),
            ));
        }
        let dir = if t.descending { "↓" } else { "↑" };
        // Traces have no runs, so no warm-up to change.
        let warmup = session
            .shown_warmup()
            .map(|w| format!("warm-up {w} │ "))
            .unwrap_or_default();
        if explorer_on_screen {
            spans.push(Span::styled(
                format!("sort {}{dir} │ {warmup}", t.sort.label()),
                theme.dim(),
            ));
        }
        // Opened with no warm-up while the first runs are cold: say so, with the key.
        let cold = session
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
        let all: Vec<Hint> = screen
            .hints()
            .into_iter()
            .filter(|h| screen.hint_applies(h.meaning, ctx))
            .collect();
        let used: usize = spans.iter().map(|s| s.content.width()).sum();
        for h in fitting(&all, (area.width as usize).saturating_sub(used)) {
            spans.push(Span::styled(h.keys.clone(), theme.key()));
            spans.push(Span::raw(format!(" {}  ", h.what)));
        }
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
