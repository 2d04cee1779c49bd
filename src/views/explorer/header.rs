//! Header: files, runs kept/dropped, top-level latency, warning and error counts, and
//! the answer line (where the time goes, `app::answer`).

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::state::ExplorerView;
use crate::app::format::duration_ms;
use crate::app::session::Session;
use crate::ui::Theme;

/// The explorer's header over `session`'s profile (the answer line from `ex`'s table).
pub fn render(frame: &mut Frame, area: Rect, session: &Session, ex: &ExplorerView, theme: &Theme) {
    let mut top = vec![Span::styled("cpuprof-tui ", theme.title())];
    let mut bottom = Vec::new();
    match &session.data {
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
                    .map(|s| (String::new(), (s.median(), s.min(), s.max()))),
            };
            let trace_ops =
                (d.kind == crate::app::SourceKind::Trace && several.is_none()).then(|| {
                    // Room left of ` │ N warnings  N errors`.
                    let counts = format!(
                        " │ {} {} ",
                        crate::app::format::count(d.warning_count(), "warning"),
                        crate::app::format::count(d.error_count(), "error")
                    );
                    top_level_text(d, (area.width as usize).saturating_sub(counts.len() + 1))
                });
            match total {
                _ if trace_ops.is_some() => {
                    bottom.push(Span::raw(trace_ops.unwrap_or_default()));
                }
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
            if let Some(l) = &session.loading {
                top.push(Span::raw(l.file.clone()));
            }
            bottom.push(Span::styled("no profile loaded yet", theme.dim()));
        }
    }
    let mut lines = vec![Line::from(top), Line::from(bottom)];
    // Where the time goes (`app::answer`), for the table's scope and filter.
    if let Some(d) = &session.data {
        if let Some(text) = super::answer::line(d, &ex.table, area.width as usize) {
            lines.push(Line::styled(
                crate::ui::text::fit(&text, area.width as usize, false),
                theme.title(),
            ));
        }
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// A trace's top-level calls within `width` cells: one op, its median per call and
/// range; several, each op's median per call and count, the longest total first (a
/// median across different ops says nothing), as many as fit (at least the first).
fn top_level_text(d: &crate::app::ExplorerData, width: usize) -> String {
    let esc = |s: &str| crate::escape::escape(s).into_owned();
    let ops: Vec<_> = d.top_level.iter().filter(|(_, s, _)| s.count > 0).collect();
    match ops.as_slice() {
        [] => "top-level calls: no samples".into(),
        [(name, s, _)] => format!(
            "top-level {} median {} ({}–{})",
            esc(name),
            duration_ms(s.median()),
            duration_ms(s.min()),
            duration_ms(s.max())
        ),
        _ => {
            let parts: Vec<String> = ops
                .iter()
                .map(|(name, s, _)| {
                    format!("{} {} ×{}", esc(name), duration_ms(s.median()), s.count)
                })
                .collect();
            let cells = crate::escape::display_width;
            let mut best = String::new();
            for prefix in [
                "top-level calls, median per call by op:",
                "top-level by op:",
                "top-level:",
            ] {
                let mut text = prefix.to_string();
                let mut shown = 0;
                for part in &parts {
                    let left = parts.len() - shown - 1;
                    let more = if left > 0 {
                        format!(" · +{left} more")
                    } else {
                        String::new()
                    };
                    let sep = if shown > 0 { " · " } else { " " };
                    if cells(&text) + sep.len() + cells(part) + cells(&more) > width {
                        break;
                    }
                    text.push_str(sep);
                    text.push_str(part);
                    shown += 1;
                }
                if shown < parts.len() {
                    text.push_str(&format!(" · +{} more", parts.len() - shown));
                }
                best = text;
                if shown > 0 {
                    break;
                }
            }
            best
        }
    }
}
