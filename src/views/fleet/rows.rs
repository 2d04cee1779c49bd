//! The fleet view's rows table (the selected profile's group: profiles, median of
//! medians, p10, p90, CV, slowest profile, outliers, `--order` change) and the detail of
//! the selected row (its path, the slowest profile and every outlier, the sparkline of
//! its median over the ordered profiles with the change marked). Render only.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use crate::escape::escape;
use crate::fleet::analysis::{Fleet, GroupRow};
use crate::ui::pane_frame;
use crate::ui::text::{block, fit, fit_middle};
use crate::ui::Theme;
use crate::units::duration_ms;
use crate::views::fleet::state::{trend, FleetPane, FleetView};

/// A numeric column: title, width, what it shows of a row.
struct NumCol {
    title: &'static str,
    width: usize,
    cell: fn(&Fleet, &GroupRow) -> String,
}

fn cv_text(r: &GroupRow) -> String {
    r.cv.map_or("–".into(), |c| format!("{:.1}%", c * 100.0))
}

fn change_text(r: &GroupRow) -> String {
    r.change
        .as_ref()
        .map_or(String::new(), |c| format!("{:+.1}%", c.delta_pct))
}

/// In display order.
const COLUMNS: &[NumCol] = &[
    NumCol {
        title: "profiles",
        width: 8,
        cell: |_, r| r.medians.len().to_string(),
    },
    NumCol {
        title: "median",
        width: 10,
        cell: |_, r| duration_ms(r.median_of_medians),
    },
    NumCol {
        title: "p10",
        width: 10,
        cell: |_, r| duration_ms(r.p10),
    },
    NumCol {
        title: "p90",
        width: 10,
        cell: |_, r| duration_ms(r.p90),
    },
    NumCol {
        title: "CV",
        width: 6,
        cell: |_, r| cv_text(r),
    },
    NumCol {
        title: "slowest",
        width: 10,
        cell: |_, r| duration_ms(r.slowest.1),
    },
    NumCol {
        title: "out",
        width: 3,
        cell: |_, r| match r.outliers.len() {
            0 => String::new(),
            n => format!("!{n}"),
        },
    },
    NumCol {
        title: "change",
        width: 7,
        cell: |_, r| change_text(r),
    },
];

/// Leave order on a narrow screen: slowest, p10, p90, change, CV (profiles, median and
/// the outlier mark stay).
const DROP: [&str; 5] = ["slowest", "p10", "p90", "change", "CV"];

/// The indented name of a row.
fn label(r: &GroupRow) -> String {
    format!(
        "{}{}",
        "  ".repeat(r.path.len().saturating_sub(1)),
        escape(&r.name)
    )
}

pub fn draw_rows(frame: &mut Frame, area: Rect, view: &FleetView, theme: &Theme) {
    let Some(fleet) = &view.fleet else { return };
    let focused = view.focus == FleetPane::Rows;
    let group = view.current_group();
    let mut title = match group {
        Some(g) => {
            let mut t = format!(" Rows of model {}", g.model);
            if let (Some(k), Some(v)) = (&fleet.options.by, &g.by) {
                t.push_str(&format!(" · {}={}", escape(k), escape(v)));
            }
            format!(
                "{t} ({} profiles) · sort {}{} ",
                g.members.len(),
                view.row_sort.label(),
                if view.reverse && focused { " ↑" } else { "" }
            )
        }
        None => " Rows ".to_string(),
    };
    if !view.row_filter.value().is_empty() {
        title.push_str(&format!(
            "· filter \"{}\" ",
            escape(view.row_filter.value())
        ));
    }
    // Too wide for the border: the model's id and the count give way (the profiles list
    // shows the model), so the sort and the filter in force stay readable.
    if title.width() + 2 > area.width as usize {
        if let Some(g) = group {
            let mut t = String::from(" Rows");
            if let (Some(k), Some(v)) = (&fleet.options.by, &g.by) {
                t.push_str(&format!(" · {}={}", escape(k), escape(v)));
            }
            t.push_str(&format!(
                " · sort {}{} ",
                view.row_sort.label(),
                if view.reverse && focused { " ↑" } else { "" }
            ));
            if !view.row_filter.value().is_empty() {
                t.push_str(&format!(
                    "· filter \"{}\" ",
                    escape(view.row_filter.value())
                ));
            }
            title = t;
        }
    }
    let inner = pane_frame(frame, area, title, focused, theme);
    if inner.height < 2 || inner.width < 4 {
        return;
    }
    let Some(g) = group else {
        let text = match view.selected_profile().map(|i| &fleet.profiles[i]) {
            Some(p) => format!(
                "{} did not load: {}",
                escape(&p.id),
                escape(p.error.as_deref().unwrap_or("no rows"))
            ),
            None => "no profile selected".into(),
        };
        frame.render_widget(
            Paragraph::new(Span::styled(text, theme.error_text())),
            inner,
        );
        return;
    };
    let width = inner.width as usize;
    let rows = inner.height as usize - 1;
    let mut cursor = view.row_cursor;
    cursor.fit(view.rows.len(), rows);
    let shown: Vec<&GroupRow> = view
        .rows
        .iter()
        .skip(cursor.offset)
        .take(rows)
        .map(|&i| &g.rows[i])
        .collect();
    let name_w = shown
        .iter()
        .map(|r| label(r).width())
        .chain(std::iter::once(4))
        .max()
        .unwrap_or(4);
    let mut cols: Vec<&NumCol> = COLUMNS
        .iter()
        .filter(|c| c.title != "change" || fleet.options.order.is_some())
        .collect();
    let need = |cols: &[&NumCol]| cols.iter().map(|c| c.width + 1).sum::<usize>();
    for d in DROP {
        if name_w + need(&cols) <= width {
            break;
        }
        cols.retain(|c| c.title != d);
    }
    // The name takes the width the numbers leave (never cut while it fits), so the
    // numbers end at the pane's right edge and no blank strip is left beside them.
    let name_col = width.saturating_sub(need(&cols)).max(4);
    let mut head = fit("row", name_col, false);
    for c in &cols {
        head.push(' ');
        head.push_str(&fit(c.title, c.width, true));
    }
    let mut lines = vec![Line::from(Span::styled(
        fit(&head, width, false),
        theme.header_cell(false),
    ))];
    for (n, r) in shown.iter().enumerate() {
        let mut text = fit_middle(&label(r), name_col);
        for c in &cols {
            text.push(' ');
            text.push_str(&fit(&(c.cell)(fleet, r), c.width, true));
        }
        let style = if cursor.offset + n == cursor.selected {
            theme.selected(focused)
        } else if !r.outliers.is_empty() || r.change.is_some() {
            theme.slower()
        } else {
            Style::new()
        };
        lines.push(Line::from(Span::styled(fit(&text, width, false), style)));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// Eighths of the range between the smallest and the largest value (1..=8).
pub fn sparkline(values: &[f64]) -> String {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    values
        .iter()
        .map(|&v| {
            let level = if hi > lo {
                1 + ((v - lo) / (hi - lo) * 7.0).round() as usize
            } else {
                4
            };
            block(level)
        })
        .collect()
}

pub fn draw_detail(frame: &mut Frame, area: Rect, view: &FleetView, theme: &Theme) {
    let Some(fleet) = &view.fleet else { return };
    if area.height < 3 {
        return;
    }
    let inner = pane_frame(frame, area, " Detail ", false, theme);
    let width = inner.width as usize;
    let (Some(g), Some(r)) = (view.current_group(), view.selected_row()) else {
        return;
    };
    let id = |i: usize| escape(&fleet.profiles[i].id).into_owned();
    let path: Vec<String> = r.path.iter().map(|p| escape(p).into_owned()).collect();
    let mut lines = vec![Line::from(Span::raw(fit_middle(&path.join(" › "), width)))];
    let mut second = format!(
        "slowest {} {} · ",
        id(r.slowest.0),
        duration_ms(r.slowest.1)
    );
    if r.outliers.is_empty() {
        second.push_str("no outlier profile");
    } else {
        let list: Vec<String> = r
            .outliers
            .iter()
            .map(|o| {
                format!(
                    "{} {} (z {:+.1}, p {})",
                    id(o.profile),
                    duration_ms(o.median),
                    o.z,
                    p_text(o.p_value)
                )
            })
            .collect();
        second.push_str(&format!("outliers: {}", list.join("; ")));
    }
    let style = if r.outliers.is_empty() {
        Style::new()
    } else {
        theme.slower()
    };
    lines.push(Line::from(Span::styled(fit(&second, width, false), style)));
    match &fleet.options.order {
        Some(key) => {
            let (values, at) = trend(g, r);
            let Some(&first) = values.first() else {
                return frame.render_widget(Paragraph::new(lines), inner);
            };
            let spark = sparkline(&values);
            let mut spans = vec![Span::styled(
                format!("{} {} ", escape(key), duration_ms(first)),
                theme.dim(),
            )];
            for (i, c) in spark.chars().enumerate() {
                if at == Some(i) && i > 0 {
                    spans.push(Span::styled("|", theme.slower())); // where the change starts
                }
                let s = if at.is_some_and(|a| i >= a) {
                    theme.slower()
                } else {
                    theme.bar()
                };
                spans.push(Span::styled(c.to_string(), s));
            }
            let tail = match &r.change {
                Some(c) => format!(
                    " {} · change {:+.1}% from {} ({} → {}, p {})",
                    duration_ms(*values.last().unwrap_or(&0.0)),
                    c.delta_pct,
                    id(c.at),
                    duration_ms(c.before),
                    duration_ms(c.after),
                    p_text(c.p_value)
                ),
                None => format!(
                    " {} · no change",
                    duration_ms(*values.last().unwrap_or(&0.0))
                ),
            };
            let used: usize = spans.iter().map(|s| s.content.width()).sum();
            spans.push(Span::raw(fit(&tail, width.saturating_sub(used), false)));
            lines.push(Line::from(spans));
        }
        None => lines.push(Line::from(Span::styled(
            fit(
                &format!(
                    "{} profiles · p10 {} · p90 {} · CV {}",
                    r.medians.len(),
                    duration_ms(r.p10),
                    duration_ms(r.p90),
                    cv_text(r)
                ),
                width,
                false,
            ),
            theme.dim(),
        ))),
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

fn p_text(p: f64) -> String {
    if p < 1e-3 {
        format!("{p:.0e}")
    } else {
        format!("{p:.3}")
    }
}
