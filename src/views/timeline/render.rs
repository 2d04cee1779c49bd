//! The timeline pane: a time axis, one row per lane (label, then bars placed by time;
//! neighbouring bars alternate `█`/`▓` so back-to-back events stay apart, idle time is
//! blank), and the selected bar's detail. Render only.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use crate::profile::TimelineKind;
use crate::timeline::AnyTimeline;
use crate::ui::pane_frame;
use crate::ui::text::fit;
use crate::ui::Theme;
use crate::units::duration_ms;
use crate::views::timeline::search::bar_name;
use crate::views::timeline::state::{lane_rows, plot_columns, Bar, TimelineView};

fn ns_text(ns: i64) -> String {
    duration_ms(ns as f64 / 1e6)
}

/// A point in time (axis ticks, starts and ends): 0 is the origin, not a duration under
/// the clock quantum.
fn at_text(ns: i64) -> String {
    crate::units::position_ms(ns as f64 / 1e6)
}

/// Input text without control characters (names come from the files).
fn clean(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

fn put(buf: &mut Buffer, x: u16, y: u16, s: &str, style: Style, right: u16) {
    for (x, c) in (x..right).zip(s.chars()) {
        buf[(x, y)].set_char(c).set_style(style);
    }
}

/// A tick step of 1, 2 or 5 × 10^k ns, at least `min`.
fn nice_step(min: i64) -> i64 {
    let mut p: i64 = 1;
    loop {
        for m in [1, 2, 5] {
            let s = p.saturating_mul(m);
            if s >= min {
                return s;
            }
        }
        if p > i64::MAX / 10 {
            return i64::MAX;
        }
        p *= 10;
    }
}

pub fn render(frame: &mut Frame, area: Rect, view: &TimelineView, theme: &Theme) {
    frame.render_widget(ratatui::widgets::Clear, area);
    let title = title(view);
    let inner = pane_frame(frame, area, title, true, theme);
    if inner.width < 10 || inner.height < 3 {
        return;
    }
    let buf = frame.buffer_mut();
    let right = inner.x + inner.width;
    if let Some(e) = &view.error {
        put(buf, inner.x, inner.y, &clean(e), theme.error_text(), right);
        return;
    }
    let Some(source) = view.source.as_deref() else {
        put(
            buf,
            inner.x,
            inner.y,
            "loading the timeline…",
            theme.dim(),
            right,
        );
        return;
    };
    if let Some(run) = view.reloading {
        let text = format!("loading run {run} (a big dump's timeline holds a window of runs)…");
        put(buf, inner.x, inner.y, &text, theme.dim(), right);
        return;
    }
    let (plot_x, plot_w) = plot_columns(view, inner);
    let label_w = plot_x - inner.x;
    let (v0, v1) = view.view;
    let w = (v1 - v0).max(1);
    let col = |t: i64| -> i64 {
        ((i128::from(t) - i128::from(v0)) * i128::from(plot_w) / i128::from(w)) as i64
    };

    // Time axis: labels on the first row, ticks on the second.
    let step = nice_step((w as i128 * 14 / i128::from(plot_w)).max(1) as i64);
    let first = if v0 <= 0 {
        v0 - v0 % step
    } else {
        v0 + (step - v0 % step) % step
    };
    for x in 0..plot_w {
        buf[(plot_x + x, inner.y + 1)]
            .set_char('─')
            .set_style(theme.dim());
    }
    put(
        buf,
        inner.x,
        inner.y,
        &fit("time", label_w as usize, false),
        theme.dim(),
        right,
    );
    let mut t = first;
    let mut free_from: i64 = 0;
    while t <= v1 {
        let c = col(t);
        if (0..i64::from(plot_w)).contains(&c) {
            buf[(plot_x + c as u16, inner.y + 1)].set_char('┬');
            let label = at_text(t);
            let fits = c + label.width() as i64 <= i64::from(plot_w);
            if c >= free_from && fits {
                put(buf, plot_x + c as u16, inner.y, &label, theme.dim(), right);
                free_from = c + label.width() as i64 + 1;
            }
        }
        match t.checked_add(step) {
            Some(n) => t = n,
            None => break,
        }
    }

    // Lanes.
    let rows = lane_rows(area).min(inner.height.saturating_sub(2) as usize);
    let names = |b: &Bar| -> String { bar_name(source, view, b) };
    // The bars the search finds, in the warning colour.
    let found: std::collections::HashSet<(usize, usize)> =
        crate::views::timeline::search::matches(view)
            .into_iter()
            .collect();
    for (row, lane_idx) in (view.lane_offset..view.lanes.len()).take(rows).enumerate() {
        let y = inner.y + 2 + row as u16;
        let lane = &view.lanes[lane_idx];
        let selected_lane = lane_idx == view.lane;
        let style = if selected_lane {
            theme.selected(true)
        } else {
            Style::default()
        };
        put(
            buf,
            inner.x,
            y,
            &fit(
                &clean(&lane.label),
                label_w.saturating_sub(1) as usize,
                false,
            ),
            style,
            plot_x,
        );
        // One lookup per cell (a frame costs the same on a million bars); a run of cells
        // showing the same bar gets its name when it is wide enough.
        let cell_time = |c: i64| -> i64 {
            (i128::from(v0) + i128::from(c) * i128::from(w) / i128::from(plot_w)) as i64
        };
        let label_run = |buf: &mut Buffer, bar: usize, from: i64, to: i64| {
            let cells = (to - from + 1) as usize;
            if cells >= 6 {
                let name = fit(&clean(&names(&lane.bars[bar])), cells - 2, false);
                let style = if selected_lane && bar == view.bar {
                    theme.selected(true)
                } else {
                    theme.bar()
                };
                put(
                    buf,
                    plot_x + from as u16 + 1,
                    y,
                    name.trim_end(),
                    style,
                    plot_x + to as u16 + 1,
                );
            }
        };
        let mut run: Option<(usize, i64)> = None; // (bar, first cell)
        for c in 0..i64::from(plot_w) {
            let ta = cell_time(c);
            let tb = cell_time(c + 1).max(ta + 1);
            let shown = lane.bar_in(ta, tb);
            if let Some((bar, first)) = run {
                if shown != Some(bar) {
                    label_run(buf, bar, first, c - 1);
                    run = None;
                }
            }
            let Some(bar) = shown else { continue };
            if run.is_none() {
                run = Some((bar, c));
            }
            let ch = if bar % 2 == 0 { '█' } else { '▓' };
            let style = if found.contains(&(lane_idx, bar)) {
                theme.warning()
            } else {
                theme.bar()
            };
            buf[(plot_x + c as u16, y)].set_char(ch).set_style(style);
        }
        if let Some((bar, first)) = run {
            label_run(buf, bar, first, i64::from(plot_w) - 1);
        }
        // The selected bar over everything, at least one cell wide.
        if let Some(b) = lane.bars.get(view.bar).filter(|_| selected_lane) {
            if b.end >= v0 && b.start <= v1 {
                let x0 = col(b.start.max(v0)).clamp(0, i64::from(plot_w) - 1);
                let x1 = (col(b.end.min(v1)) - 1).clamp(x0, i64::from(plot_w) - 1);
                let style = theme.selected(true);
                for x in x0..=x1 {
                    buf[(plot_x + x as u16, y)].set_char('▒').set_style(style);
                }
                label_run(buf, view.bar, x0, x1);
            }
        }
    }

    // Detail of the selected bar, below the last lane.
    let shown = view.lanes.len().saturating_sub(view.lane_offset).min(rows);
    let detail_y = inner.y + 2 + shown as u16 + u16::from(shown < rows);
    let lines = detail_lines(source, view);
    for (k, line) in lines.iter().enumerate() {
        let y = detail_y + k as u16;
        if y >= inner.y + inner.height {
            break;
        }
        let style = if k == 0 {
            theme.title()
        } else {
            Style::default()
        };
        put(
            buf,
            inner.x,
            y,
            &fit(&clean(line), inner.width as usize, false),
            style,
            right,
        );
    }
}

fn title(view: &TimelineView) -> String {
    match view.source.as_deref() {
        Some(AnyTimeline::Dump(tl)) => {
            let Some(&run) = view.runs.get(view.run_pos) else {
                return " Timeline · no kept run ".to_string();
            };
            let r = &tl.runs[run];
            let method = r
                .method_ns(tl)
                .map(|m| ns_text(m as i64))
                .unwrap_or_else(|| "-".into());
            format!(
                " Timeline · run {run} · {} of {} kept · Method::execute {method} ",
                crate::views::timeline::state::ordinal(view.run_pos + 1),
                view.runs.len()
            )
        }
        Some(AnyTimeline::Trace(tt)) => format!(
            " Timeline · {} calls, {} thread(s) ",
            tt.set.intervals.len(),
            tt.set.threads.len()
        ),
        None => " Timeline ".to_string(),
    }
}

/// Shapes in the table's notation (`[1,240,5,5] [80,240,1,1] [80]`, `units::shape_list`).
fn shapes(s: &Option<Vec<Vec<i64>>>) -> String {
    s.as_ref()
        .map(|v| crate::units::shape_list(v))
        .unwrap_or_else(|| "-".to_string())
}

/// Name; start offset, duration, idle time before it in its lane; attribution; shapes.
fn detail_lines(source: &AnyTimeline, view: &TimelineView) -> Vec<String> {
    let Some(b) = view.selected() else {
        return vec!["(no event in this run)".to_string()];
    };
    let lane = &view.lanes[view.lane];
    let gap = view
        .bar
        .checked_sub(1)
        .and_then(|p| lane.bars.get(p))
        .map(|p| ns_text(b.start.saturating_sub(p.end).max(0)))
        .unwrap_or_else(|| "-".to_string());
    let timing = format!(
        "start +{}  duration {}  end +{}  idle before (in lane) {gap}",
        at_text(b.start),
        ns_text(b.end.saturating_sub(b.start)),
        at_text(b.end)
    );
    match source {
        AnyTimeline::Dump(tl) => {
            let Some(e) = view
                .runs
                .get(view.run_pos)
                .and_then(|&r| tl.runs[r].events.get(b.event as usize))
            else {
                return Vec::new();
            };
            let entry = tl.entry(e);
            let step = match entry.kind {
                TimelineKind::Step => None,
                _ => entry.step.map(|s| tl.entries[s as usize].name.as_str()),
            };
            let mut attribution = entry.kind.label().to_string();
            if let Some(i) = entry.instruction_id {
                attribution.push_str(&match entry.kind {
                    TimelineKind::DelegateCall
                    | TimelineKind::XnnpackOperator
                    | TimelineKind::OtherDelegate => {
                        format!(" · {}", crate::units::delegate_name(i))
                    }
                    _ => format!(" · instruction {i}"),
                });
            }
            if let Some(s) = step {
                attribution.push_str(&format!(" · step {s}"));
            }
            if entry.kind == TimelineKind::XnnpackOperator {
                attribution.push_str(" · start synthesized by XNNPACK");
            }
            vec![
                entry.name.clone(),
                timing,
                attribution,
                format!(
                    "inputs {}  outputs {}",
                    shapes(&entry.input_shapes),
                    shapes(&entry.output_shapes)
                ),
            ]
        }
        AnyTimeline::Trace(tt) => {
            let Some(iv) = tt.set.intervals.get(b.event as usize) else {
                return Vec::new();
            };
            let key = tt.set.thread(iv);
            let mut who = format!(
                "pid {} tid {} · depth {}",
                key.pid,
                key.tid,
                tt.depth.get(b.event as usize).copied().unwrap_or(0)
            );
            if iv.err {
                who.push_str(" · failed call (exit without entry)");
            }
            let inputs = tt
                .set
                .input_sig(iv)
                .map(|s| format!("inputs {}", crate::units::shape_list(&s.shapes)))
                .unwrap_or_else(|| "inputs -".to_string());
            vec![tt.set.name(iv).to_string(), timing, who, inputs]
        }
    }
}
