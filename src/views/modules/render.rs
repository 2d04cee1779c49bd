//! The modules view over the explorer's body: the nn.Module tree with inclusive median
//! and mean, share of `Method::execute` and the part not attributable to the module
//! alone; each module's rows under it; a line about the selection and one for the filter
//! or the keys. Render only.

use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use crate::app::ExplorerData;
use crate::ui::pane_frame;
use crate::ui::text::fit;
use crate::ui::Theme;
use crate::units::{duration_ms, percent};
use crate::views::modules::state::{list_rows, ModuleLine, ModulesView};

/// Width of each number column (and the gap before it).
const NUM: usize = 10;
const PCT: usize = 7;

pub fn render(
    frame: &mut Frame,
    area: Rect,
    view: &ModulesView,
    data: &ExplorerData,
    theme: &Theme,
) {
    frame.render_widget(Clear, area);
    let inner = pane_frame(
        frame,
        area,
        title(view, data, area.width as usize),
        true,
        theme,
    );
    if inner.width < 20 || inner.height < 4 {
        return;
    }
    let w = inner.width as usize;
    let numbers = NUM * 3 + PCT;
    // Types on wide screens: as wide as the longest, at most half of what the numbers leave.
    let longest_type = data
        .modules
        .iter()
        .flat_map(|mm| &mm.modules)
        .map(|m| m.ty.width())
        .max()
        .unwrap_or(0);
    let type_w = if w >= 110 {
        longest_type.clamp(4, (w - numbers) / 2)
    } else {
        0
    };
    // Labels no wider than the longest one: on a wide screen the numbers stay near them.
    let multi = usize::from(data.modules.len() > 1);
    let longest_label = data
        .modules
        .iter()
        .flat_map(|mm| &mm.modules)
        .flat_map(|m| {
            let own = 2 * (m.depth + multi) + 2 + m.path.width().max(6);
            let rows = m
                .rows
                .iter()
                .map(move |r| 2 * (m.depth + 1 + multi) + 4 + r.name.width() + 16);
            std::iter::once(own).chain(rows)
        })
        .max()
        .unwrap_or(0)
        .max(24);
    let label_w = w
        .saturating_sub(numbers + type_w + usize::from(type_w > 0))
        .min(longest_label + 2);
    let mut lines: Vec<Line> = Vec::with_capacity(inner.height as usize);
    let mut head = format!(
        "{}{}{}{}{}",
        fit("module", label_w, false),
        fit("median", NUM, true),
        fit("mean", NUM, true),
        fit("%exec", PCT, true),
        fit("shared", NUM, true),
    );
    if type_w > 0 {
        head.push(' ');
        head.push_str(&fit("type", type_w, false));
    }
    lines.push(Line::styled(head, theme.dim()));
    let rows = list_rows(area);
    // The view keeps its offset for the page it last saw; a resize since may need
    // another.
    let offset = crate::app::layout::fix_offset(view.selected, view.offset, rows.max(1));
    let end = (offset + rows).min(view.lines.len());
    for (pos, &line) in view.lines[offset.min(end)..end].iter().enumerate() {
        let text = line_text(view, data, line, label_w, type_w);
        let style = if offset + pos == view.selected {
            theme.selected(true)
        } else if matches!(line, ModuleLine::Row { .. }) {
            theme.dim()
        } else {
            ratatui::style::Style::default()
        };
        lines.push(Line::styled(text, style));
    }
    if view.lines.is_empty() {
        lines.push(Line::styled(
            fit(
                &format!("no module matches \"{}\"", esc(view.filter.value())),
                w,
                false,
            ),
            theme.warning(),
        ));
    }
    frame.render_widget(Paragraph::new(lines), inner);
    // The two lines at the bottom: the selection, then the filter or the keys.
    let about_y = inner.y + inner.height - 2;
    let about = view
        .selected_line()
        .map(|l| about_text(data, l))
        .unwrap_or_default();
    frame.render_widget(
        Paragraph::new(Line::styled(fit(&about, w, false), theme.dim())),
        Rect::new(inner.x, about_y, inner.width, 1),
    );
    let last = Rect::new(inner.x, about_y + 1, inner.width, 1);
    if view.filter_editing || !view.filter.value().is_empty() {
        let prefix = "filter /";
        let value = esc(view.filter.value());
        let shown = view
            .lines
            .iter()
            .filter(|l| matches!(l, ModuleLine::Module { .. }))
            .count();
        let hint = if view.filter_editing {
            crate::app::hints::filter_prompt()
        } else {
            "Esc clears".to_string()
        };
        let spans = vec![
            Span::styled(prefix, theme.key()),
            Span::raw(value.clone()),
            Span::styled(
                format!(
                    "  {shown} module{}  {hint}",
                    if shown == 1 { "" } else { "s" }
                ),
                theme.dim(),
            ),
        ];
        frame.render_widget(Paragraph::new(Line::from(spans)), last);
        if view.filter_editing {
            let x = last.x + (prefix.len() + view.filter.visual_cursor()) as u16;
            if x < last.x + last.width {
                frame.set_cursor_position(Position::new(x, last.y));
            }
        }
    }
}

/// The title within `width` cells: the method(s), the model files the tree was read
/// from (shortened, never cut at the end, to fit) and the sort.
fn title(view: &ModulesView, data: &ExplorerData, width: usize) -> String {
    let (what, exec) = match data.modules.as_slice() {
        [one] => (
            esc(&one.method),
            one.execute
                .map(|e| format!(" · Method::execute {}", duration_ms(e)))
                .unwrap_or_default(),
        ),
        many => (format!("{} methods", many.len()), String::new()),
    };
    let tail = format!(" · by {} ", view.sort_label());
    // Which model files the tree comes from (file names): the longest form that fits,
    // else (the header says Method::execute too) the time left out for a file's name.
    let forms = model_file_forms(data);
    for exec in [exec.as_str(), ""] {
        let base = format!(" Modules · {what}{exec}");
        let room = width.saturating_sub(4 + base.width() + tail.width());
        if let Some(from) = forms.iter().find(|f| f.width() <= room) {
            return format!("{base}{from}{tail}");
        }
    }
    format!(" Modules · {what}{tail}")
}

/// ` · from ETRecord a.etrecord, program a.pte` and its shorter forms, longest first;
/// none without model files.
fn model_file_forms(data: &ExplorerData) -> Vec<String> {
    let Some(f) = &data.model_files else {
        return vec![String::new()];
    };
    let name = |p: &Option<String>| {
        p.as_deref().map(|p| {
            let file = std::path::Path::new(p)
                .file_name()
                .map_or_else(|| p.to_string(), |n| n.to_string_lossy().into_owned());
            esc(&file)
        })
    };
    let (etrecord, program) = (name(&f.etrecord), name(&f.program));
    match (&etrecord, &program) {
        (Some(e), Some(p)) => vec![
            format!(" · from ETRecord {e}, program {p}"),
            format!(" · from {e}, {p}"),
            format!(" · from {e}"),
        ],
        (Some(e), None) => vec![format!(" · from ETRecord {e}"), format!(" · from {e}")],
        (None, Some(p)) => vec![format!(" · from program {p}"), format!(" · from {p}")],
        (None, None) => vec![String::new()],
    }
}

fn line_text(
    view: &ModulesView,
    data: &ExplorerData,
    line: ModuleLine,
    label_w: usize,
    type_w: usize,
) -> String {
    let expanded = |method: usize, module: usize| {
        view.expanded
            .get(method)
            .and_then(|e| e.get(module))
            .copied()
            .unwrap_or(false)
            || !view.filter.value().is_empty()
    };
    match line {
        ModuleLine::Method(k) => {
            let Some(mm) = data.modules.get(k) else {
                return String::new();
            };
            let open = view.methods_open.get(k).copied().unwrap_or(true);
            let mark = if open { "▾ " } else { "▸ " };
            let exec = mm.execute.map(duration_ms).unwrap_or_default();
            format!(
                "{}{}",
                fit(
                    &format!("{mark}{} · Method::execute", esc(&mm.method)),
                    label_w,
                    false
                ),
                fit(&exec, NUM, true)
            )
        }
        ModuleLine::Module { method, module } => {
            let Some(mm) = data.modules.get(method) else {
                return String::new();
            };
            let Some(m) = mm.modules.get(module) else {
                return String::new();
            };
            let depth = m.depth + usize::from(data.modules.len() > 1);
            let has_children =
                !m.rows.is_empty() || mm.modules.iter().any(|c| c.parent == Some(module));
            let mark = match (has_children, expanded(method, module)) {
                (false, _) => "  ",
                (true, true) => "▾ ",
                (true, false) => "▸ ",
            };
            let name = if m.path.is_empty() {
                "(root)".to_string()
            } else {
                esc(&m.path)
            };
            let shared = if m.median_not_attributable > 0.0 {
                duration_ms(m.median_not_attributable)
            } else {
                String::new()
            };
            let mut s = format!(
                "{}{}{}{}{}",
                fit(
                    &format!("{}{mark}{name}", "  ".repeat(depth)),
                    label_w,
                    false
                ),
                fit(&duration_ms(m.median_total), NUM, true),
                fit(&duration_ms(m.mean_total), NUM, true),
                fit(&percent(m.share), PCT, true),
                fit(&shared, NUM, true),
            );
            if type_w > 0 {
                s.push(' ');
                s.push_str(&fit(&esc(&m.ty), type_w, false));
            }
            s
        }
        ModuleLine::Row { method, module, .. } => {
            let Some((r, _)) = ModulesView::row_of(data, line) else {
                return String::new();
            };
            let depth = data
                .modules
                .get(method)
                .and_then(|mm| mm.modules.get(module))
                .map_or(0, |m| m.depth)
                + 1
                + usize::from(data.modules.len() > 1);
            let exec = data.modules.get(method).and_then(|mm| mm.execute);
            let share = exec
                .filter(|&e| e > 0.0)
                .map(|e| percent(r.median / e))
                .unwrap_or_default();
            let mark = if r.spans_children {
                " [spans modules]"
            } else {
                ""
            };
            format!(
                "{}{}{}{}",
                fit(
                    &format!(
                        "{}· #{} {}{mark}",
                        "  ".repeat(depth),
                        r.instruction_id,
                        esc(&r.name)
                    ),
                    label_w,
                    false
                ),
                fit(&duration_ms(r.median), NUM, true),
                fit(&duration_ms(r.mean), NUM, true),
                fit(&share, PCT, true),
            )
        }
    }
}

/// The line about the selection: a module's type and what its `shared` means; a row's
/// kind, whether its split is attributable, its source line.
fn about_text(data: &ExplorerData, line: ModuleLine) -> String {
    match line {
        ModuleLine::Method(k) => data
            .modules
            .get(k)
            .map(|mm| format!("method {} · {} modules", esc(&mm.method), mm.modules.len()))
            .unwrap_or_default(),
        ModuleLine::Module { .. } => {
            let Some(m) = ModulesView::module_of(data, line) else {
                return String::new();
            };
            let mut parts = vec![esc(&m.ty)];
            parts.push(format!("{} own rows", m.rows.len()));
            if m.median_not_attributable > 0.0 {
                parts.push(format!(
                    "{} of it from rows spanning other modules: not attributable to it alone",
                    duration_ms(m.median_not_attributable)
                ));
            }
            parts.join(" · ")
        }
        ModuleLine::Row { .. } => {
            let Some((r, node)) = ModulesView::row_of(data, line) else {
                return String::new();
            };
            let mut parts = vec![format!("{} at instruction {}", r.kind, r.instruction_id)];
            if r.spans_children {
                parts
                    .push("spans modules below: the split between them is not attributable".into());
            }
            if let Some(src) = node.and_then(|n| data.sources.get(&n)) {
                if let Some(l) = &src.source_line {
                    parts.push(esc(l));
                }
            }
            if node.is_none() {
                parts.push("not in the tree".into());
            }
            parts.join(" · ")
        }
    }
}

fn esc(s: &str) -> String {
    crate::escape::escape(s).into_owned()
}
