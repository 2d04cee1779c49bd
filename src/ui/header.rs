//! Header: files, runs kept/dropped, top-level latency, warning and error counts, and
//! the answer line (where the time goes, `app::answer`).

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::Theme;
use crate::app::format::duration_ms;
use crate::app::AppState;

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    let mut top = vec![Span::styled("cpuprof-tui ", theme.title())];
    let mut bottom = Vec::new();
    match &state.data {
        Some(d) => {
            let runs = d.runs.as_ref().map(|r| match (&r.several, &r.warmup_text) {
                // Several methods: the main one's runs, and what the dump holds.
                (Some(m), _) => format!(
                    "{} · runs {} kept, {} warm-up dropped (of {}) · {} runs in {} methods",
                    crate::escape::escape(&m.shown),
                    m.kept,
                    m.dropped,
                    m.total,
                    m.all_runs,
                    m.methods
                ),
                // Chosen for the user: say by which rule.
                (None, Some(t)) => format!("runs {} kept of {} · {t}", r.kept, r.total),
                (None, None) => format!(
                    "runs {} kept, {} warm-up dropped (of {})",
                    r.kept, r.dropped, r.total
                ),
            });
            let mut files = d.files.join(" + ");
            let width = crate::escape::display_width;
            let need = 12 + width(&files) + runs.as_ref().map_or(0, |r| width(r) + 3);
            if need > area.width as usize {
                // Narrow: file names without their directories.
                files = d
                    .files
                    .iter()
                    .map(|f| {
                        std::path::Path::new(f)
                            .file_name()
                            .map(|n| n.to_string_lossy().into_owned())
                            .unwrap_or_else(|| f.clone())
                    })
                    .collect::<Vec<_>>()
                    .join(" + ");
            }
            top.push(Span::raw(files));
            if let Some(runs) = runs {
                top.push(Span::styled(" │ ", theme.dim()));
                top.push(Span::raw(runs));
            }
            let several = d.runs.as_ref().and_then(|r| r.several.as_ref());
            let total = match several {
                Some(m) => m
                    .execute
                    .map(|e| (format!(" · {}", crate::escape::escape(&m.shown)), e)),
                None => d
                    .total
                    .as_ref()
                    .filter(|s| s.count > 0)
                    .map(|s| (String::new(), (s.median, s.min, s.max))),
            };
            match total {
                Some((whose, (median, min, max))) => bottom.push(Span::raw(format!(
                    "{}{whose} median {} ({}–{})",
                    d.total_label,
                    duration_ms(median),
                    duration_ms(min),
                    duration_ms(max)
                ))),
                _ => bottom.push(Span::raw(format!("{}: no samples", d.total_label))),
            }
            bottom.push(Span::styled(" │ ", theme.dim()));
            let (w, e) = (d.warning_count(), d.error_count());
            let wstyle = if w > 0 { theme.warning() } else { theme.dim() };
            let plural = crate::app::format::count;
            bottom.push(Span::styled(plural(w, "warning"), wstyle));
            bottom.push(Span::raw(" "));
            if e > 0 {
                bottom.push(Span::styled(
                    format!(" {} ", plural(e, "error")),
                    theme.error(),
                ));
            } else {
                bottom.push(Span::styled("0 errors", theme.dim()));
            }
        }
        None => {
            if let Some(l) = &state.loading {
                top.push(Span::raw(l.file.clone()));
            }
            bottom.push(Span::styled("no profile loaded yet", theme.dim()));
        }
    }
    let mut lines = vec![Line::from(top), Line::from(bottom)];
    // Where the time goes (`app::answer`), for the table's scope and filter.
    if let Some(d) = &state.data {
        if let Some(text) = crate::app::answer::line(d, &state.explorer.table, area.width as usize)
        {
            lines.push(Line::styled(
                super::text::fit(&text, area.width as usize, false),
                theme.title(),
            ));
        }
    }
    frame.render_widget(Paragraph::new(lines), area);
}
