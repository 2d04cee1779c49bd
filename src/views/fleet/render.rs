//! The fleet view: header (paths, counts, `--by`/`--order`), the profiles list (mark,
//! id, metadata columns, model, runs, median, error), the rows table of the selected
//! profile's group and its detail (`fleet_rows`), key hints. Render only; every text
//! from input (ids, paths, metadata, names, errors) is escaped.

use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use crate::escape::escape;
use crate::fleet::tree::total_median;
use crate::ui::pane_frame;
use crate::ui::text::{fit, fit_middle};
use crate::ui::Theme;
use crate::units::duration_ms;
use crate::views::fleet::state::{FleetPane, FleetView};

/// Where each part of the fleet view goes on a `width` × `height` screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FleetAreas {
    pub header: Rect,
    pub profiles: Rect,
    pub rows: Rect,
    pub detail: Rect,
    pub footer: Rect,
}

/// Lines of the detail pane (inside its border): path, slowest and outliers, trend.
const DETAIL_LINES: u16 = 3;

pub fn areas(width: u16, height: u16, profiles: usize) -> FleetAreas {
    let header = Rect::new(0, 0, width, 1.min(height));
    let footer_h = u16::from(height > 3);
    let footer = Rect::new(0, height.saturating_sub(footer_h), width, footer_h);
    let body_y = header.height;
    let body_h = height.saturating_sub(header.height + footer_h);
    let detail_h = (DETAIL_LINES + 2).min(body_h / 3);
    let rest = body_h - detail_h;
    // The profiles list takes what it needs, at most half of the rest.
    let want = (profiles as u16).saturating_add(3);
    let list_h = want.min((rest / 2).max(6)).min(rest);
    FleetAreas {
        header,
        profiles: Rect::new(0, body_y, width, list_h),
        rows: Rect::new(0, body_y + list_h, width, rest - list_h),
        detail: Rect::new(0, body_y + rest, width, detail_h),
        footer,
    }
}

/// Lines each list shows at this size (inside its border, under its title line).
pub fn pages(width: u16, height: u16, profiles: usize) -> (usize, usize) {
    let a = areas(width, height, profiles);
    (
        a.profiles.height.saturating_sub(3) as usize,
        a.rows.height.saturating_sub(3) as usize,
    )
}

pub fn draw(frame: &mut Frame, view: &FleetView, notice: Option<&str>, theme: &Theme) {
    let area = frame.area();
    if area.width < 10 || area.height < 4 {
        return;
    }
    let Some(fleet) = &view.fleet else {
        return draw_loading(frame, area, view, theme);
    };
    let a = areas(area.width, area.height, view.profiles.len());
    let failed = fleet.profiles.iter().filter(|p| p.error.is_some()).count();
    let mut head = format!(
        "Fleet {} · {} profiles",
        escape(&view.paths),
        fleet.profiles.len()
    );
    if failed > 0 {
        head.push_str(&format!(" ({failed} failed)"));
    }
    let n = fleet.groups.len();
    head.push_str(&format!(" · {n} group{}", if n == 1 { "" } else { "s" }));
    if let Some(k) = &fleet.options.by {
        head.push_str(&format!(" · by {}", escape(k)));
    }
    if let Some(k) = &fleet.options.order {
        head.push_str(&format!(" · order {}", escape(k)));
    }
    frame.render_widget(
        Paragraph::new(Span::styled(
            fit(&head, a.header.width as usize, false),
            theme.title(),
        )),
        a.header,
    );
    draw_profiles(frame, a.profiles, view, theme);
    super::rows::draw_rows(frame, a.rows, view, theme);
    super::rows::draw_detail(frame, a.detail, view, theme);
    draw_footer(frame, a.footer, view, notice, theme);
}

fn draw_loading(frame: &mut Frame, area: Rect, view: &FleetView, theme: &Theme) {
    let (text, style) = match &view.failed {
        Some(e) => (escape(e).into_owned(), theme.error_text()),
        None => (
            format!(
                "Loading the fleet: searching and loading {} …",
                escape(&view.paths)
            ),
            theme.title(),
        ),
    };
    let y = area.height / 2;
    frame.render_widget(
        Paragraph::new(Span::styled(fit(&text, area.width as usize, false), style)),
        Rect::new(0, y, area.width, 1),
    );
    let hint = if view.failed.is_some() {
        "q quit"
    } else {
        "q quit (works while loading)"
    };
    frame.render_widget(
        Paragraph::new(Span::styled(hint, theme.dim())),
        Rect::new(0, y + 1, area.width, 1.min(area.height - y - 1)),
    );
}

/// A column of the profiles list: title, cells, width.
struct Col {
    title: String,
    cells: Vec<String>,
    width: usize,
    right: bool,
}

fn column(title: &str, cells: Vec<String>, cap: usize, right: bool) -> Col {
    let width = cells
        .iter()
        .map(|c| c.width())
        .chain(std::iter::once(title.width()))
        .max()
        .unwrap_or(0)
        .min(cap);
    Col {
        title: title.to_string(),
        cells,
        width,
        right,
    }
}

fn draw_profiles(frame: &mut Frame, area: Rect, view: &FleetView, theme: &Theme) {
    let Some(fleet) = &view.fleet else { return };
    let focused = view.focus == FleetPane::Profiles;
    let mut title = format!(
        " Profiles ({}) · sort {}{} ",
        view.profiles.len(),
        view.profile_sort.label(),
        if view.reverse && focused { " ↑" } else { "" }
    );
    if !view.profile_filter.value().is_empty() {
        title.push_str(&format!(
            "· filter \"{}\" ",
            escape(view.profile_filter.value())
        ));
    }
    let inner = pane_frame(frame, area, title, focused, theme);
    if inner.height < 2 || inner.width < 4 {
        return;
    }
    let rows = inner.height as usize - 1;
    let mut cursor = view.profile_cursor;
    cursor.fit(view.profiles.len(), rows);
    let shown: Vec<usize> = view
        .profiles
        .iter()
        .skip(cursor.offset)
        .take(rows)
        .copied()
        .collect();
    let ps = &fleet.profiles;
    let mut cols = vec![column(
        "profile",
        shown
            .iter()
            .map(|&i| escape(&ps[i].id).into_owned())
            .collect(),
        48,
        false,
    )];
    for k in &view.meta_keys {
        let cells = shown
            .iter()
            .map(|&i| {
                ps[i].meta.get(k).map_or(String::new(), |v| {
                    escape(&crate::fleet::value_text(v)).into_owned()
                })
            })
            .collect();
        cols.push(column(&escape(k), cells, 16, false));
    }
    let model = |i: usize| ps[i].model.clone().unwrap_or_default();
    cols.push(column(
        "model",
        shown.iter().map(|&i| model(i)).collect(),
        12,
        false,
    ));
    let runs = |i: usize| match ps[i].error {
        Some(_) => String::new(),
        None => ps[i].runs.to_string(),
    };
    cols.push(column(
        "runs",
        shown.iter().map(|&i| runs(i)).collect(),
        6,
        true,
    ));
    let median = |i: usize| total_median(&ps[i]).map_or(String::new(), duration_ms);
    cols.push(column(
        "median",
        shown.iter().map(|&i| median(i)).collect(),
        12,
        true,
    ));
    // Columns leave from the right (metadata last to go) until the rest fits beside
    // the mark; the error takes what is left.
    let width = inner.width as usize;
    let used = |cols: &[Col]| 2 + cols.iter().map(|c| c.width + 1).sum::<usize>();
    while cols.len() > 1 && used(&cols) > width {
        let drop = if cols.len() > 4 { 1 } else { cols.len() - 1 };
        cols.remove(drop);
    }
    let errors: Vec<String> = shown
        .iter()
        .map(|&i| {
            ps[i]
                .error
                .as_deref()
                .map_or(String::new(), |e| escape(e).into_owned())
        })
        .collect();
    // No error column when nothing failed (no blank column).
    let any_error = shown.iter().any(|&i| ps[i].error.is_some());
    let error_w = if any_error {
        width.saturating_sub(used(&cols))
    } else {
        // Nothing failed: the profile column takes the spare width, so the list fills
        // its pane instead of leaving a blank strip on the right.
        let spare = width.saturating_sub(used(&cols));
        if let Some(first) = cols.first_mut() {
            first.width += spare;
        }
        0
    };
    let mut head = String::from("  ");
    for c in &cols {
        head.push_str(&fit(&c.title, c.width, c.right));
        head.push(' ');
    }
    if error_w >= 5 {
        head.push_str(&fit("error", error_w, false));
    }
    let mut lines = vec![Line::from(Span::styled(
        fit(&head, width, false),
        theme.header_cell(false),
    ))];
    for (n, &i) in shown.iter().enumerate() {
        let mark = if ps[i].error.is_some() {
            "✗ "
        } else if view.is_outlier(i) {
            "! "
        } else {
            "  "
        };
        let mut text = String::from(mark);
        for c in &cols {
            let cell = &c.cells[n];
            if c.right {
                text.push_str(&fit(cell, c.width, true));
            } else {
                text.push_str(&fit_middle(cell, c.width));
            }
            text.push(' ');
        }
        if error_w >= 5 {
            text.push_str(&fit(&errors[n], error_w, false));
        }
        let text = fit(&text, width, false);
        let style = if cursor.offset + n == cursor.selected {
            theme.selected(focused)
        } else if ps[i].error.is_some() {
            theme.error_text()
        } else if view.is_outlier(i) {
            theme.slower()
        } else {
            ratatui::style::Style::new()
        };
        lines.push(Line::from(Span::styled(text, style)));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

fn draw_footer(
    frame: &mut Frame,
    area: Rect,
    view: &FleetView,
    notice: Option<&str>,
    theme: &Theme,
) {
    if area.height == 0 {
        return;
    }
    let mut spans = Vec::new();
    if view.filter_editing {
        let prefix = "filter /";
        let input = view.filter(view.focus);
        spans.push(Span::styled(prefix, theme.key()));
        spans.push(Span::raw(escape(input.value()).into_owned()));
        spans.push(Span::styled(
            format!("  {}", crate::app::hints::filter_prompt()),
            theme.dim(),
        ));
        let x = area.x + prefix.len() as u16 + input.visual_cursor() as u16;
        if x < area.x + area.width {
            frame.set_cursor_position(Position::new(x, area.y));
        }
    } else {
        if let Some(n) = notice {
            spans.push(Span::styled(format!("{} │ ", escape(n)), theme.warning()));
        }
        // From the fleet view's key table: whole hints only.
        let all = crate::views::Component::hints(view);
        let used: usize = spans.iter().map(|s| s.content.width()).sum();
        for h in crate::app::hints::fitting(&all, (area.width as usize).saturating_sub(used)) {
            spans.push(Span::styled(h.keys.clone(), theme.key()));
            spans.push(Span::styled(format!(" {}  ", h.what), theme.dim()));
        }
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
