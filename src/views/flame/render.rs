//! The flame graph: title, breadcrumb of the zoomed frame's ancestors, one row of frames
//! per depth (placed by `views::flame::layout`), legend, status line. Colours by kind and
//! operator type (differential: by verdict); without colour each kind has its own fill
//! character after the label, and the legend says which. Render only.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use crate::compare::Verdict;
use crate::escape::escape;
use crate::ui::Theme;
use crate::views::flame::layout::SpanOf;
use crate::views::flame::model::{Frame as FlameFrame, FrameKind, OpType};
use crate::views::flame::sandwich::Half;
use crate::views::flame::state::{graph_area, FlameView};

/// One look: a background colour (two tones, alternating between neighbours) or, without
/// colour, a fill character.
struct Look {
    bg: [u8; 2],
    fill: char,
}

fn kind_look(kind: FrameKind, op: Option<OpType>) -> Look {
    let (bg, fill) = match (op, kind) {
        (Some(OpType::Gemm), _) => ([209, 203], '#'),
        (Some(OpType::Convolution), _) => ([178, 172], '%'),
        (Some(OpType::Elementwise), _) => ([114, 108], '~'),
        (None, FrameKind::Root) => ([252, 249], '='),
        (None, FrameKind::Delegate) => ([146, 140], '▓'),
        (None, FrameKind::Step) => ([111, 75], '▒'),
        (None, FrameKind::Operator) => ([222, 221], '░'),
        (None, FrameKind::Kernel) => ([180, 144], ':'),
        (None, FrameKind::Other) => ([187, 151], '.'),
    };
    Look { bg, fill }
}

fn diff_look(v: Verdict, delta: Option<f64>) -> Look {
    let d = delta.unwrap_or(0.0).abs();
    let step = if d < 10.0 {
        0
    } else if d < 50.0 {
        1
    } else {
        2
    };
    let (bg, fill) = match v {
        Verdict::Slower => ([[224, 224], [210, 210], [196, 196]][step], '+'),
        Verdict::Faster => ([[153, 153], [111, 111], [33, 33]][step], '-'),
        Verdict::Same => ([250, 248], ' '),
        Verdict::TooFewSamples => ([245, 244], '?'),
        Verdict::Added => ([120, 114], '>'),
        Verdict::Removed => ([240, 239], 'x'),
    };
    Look { bg, fill }
}

/// A differential frame's label: the verdict's mark and the change first.
fn diff_label(f: &FlameFrame) -> String {
    let label = escape(&f.label);
    match &f.diff {
        Some(d) => {
            let mark = crate::views::compare::state::verdict_mark(d.verdict);
            match (d.verdict, d.delta_pct) {
                (Verdict::Slower | Verdict::Faster, Some(c)) => format!("{mark}{c:+.0}% {label}"),
                _ => format!("{mark} {label}"),
            }
        }
        None => label.into_owned(),
    }
}

fn put(buf: &mut Buffer, area: Rect, y: u16, text: &str, style: Style) {
    if y < area.y + area.height && area.width > 0 {
        buf.set_stringn(area.x, y, text, area.width as usize, style);
    }
}

pub fn render(
    frame: &mut Frame,
    area: Rect,
    view: &FlameView,
    notice: Option<&str>,
    theme: &Theme,
) {
    frame.render_widget(ratatui::widgets::Clear, area);
    if area.width < 4 || area.height < 5 {
        return;
    }
    let buf = frame.buffer_mut();
    let l = view.layout(area);
    // The title; under it the search's summary and where the graph is (the breadcrumb
    // of the zoomed frame), or the search being typed. Whole parts only, but for a
    // breadcrumb, cut in the middle so both its ends stay.
    let width = area.width as usize;
    let title = fit_parts(&escape(&view.title()), width);
    put(buf, area, area.y, &title, theme.title());
    let line = if view.search_editing {
        format!(
            "search: {}▏ ({})",
            escape(view.search.value()),
            crate::app::hints::filter_prompt()
        )
    } else {
        let mut parts = Vec::new();
        if let Some((n, total, share)) = view.search_total() {
            parts.push(format!(
                "/{}: {n} frame{} · {} · {} of root",
                escape(view.search.value()),
                if n == 1 { "" } else { "s" },
                crate::units::duration_ms(total as f64 / 1e6),
                crate::units::percent(share)
            ));
        }
        let crumbs = view.breadcrumb();
        parts.push(if view.sandwich.is_some() {
            "Enter re-centres on the selected frame · i or Esc: back to the graph".to_string()
        } else if crumbs.is_empty() {
            "Enter zooms into the selected frame · i its callers and callees · ? keys".to_string()
        } else {
            let names: Vec<String> = crumbs
                .iter()
                .map(|&f| escape(&view.tree.frame(f).label).into_owned())
                .collect();
            format!("{} › (zoomed) · Esc zooms out", names.join(" › "))
        });
        // A breadcrumb keeps both ends (the root and the nearest ancestor); hints and the
        // search's figures are whole parts or none.
        if crumbs.is_empty() || view.sandwich.is_some() {
            fit_parts(&parts.join(" · "), width)
        } else {
            crate::escape::cut_middle(&parts.join(" · "), width)
        }
    };
    put(buf, area, area.y + 1, &line, theme.dim());

    let g = graph_area(area);
    let diff = view.is_diff();
    let status = match &view.sandwich {
        Some(sw) => {
            let sl = sw.layout(g, view.weighting);
            for half in [Half::Callers, Half::Callees] {
                let lay = sl.half(half);
                for (r, row) in lay.rows.iter().enumerate() {
                    // The centre is drawn once, with the callees.
                    if half == Half::Callers && r == 0 {
                        continue;
                    }
                    let Some(line) = sl.line_of(half, r) else {
                        continue;
                    };
                    let band = Band {
                        y: g.y + line,
                        height: sl.row_height.min(g.height - line),
                        total: lay.total,
                        gap: sl.row_height >= 3,
                    };
                    let selected =
                        (sw.half == half || sw.selected == SpanOf::Frame(0)).then_some(sw.selected);
                    draw_row(buf, g, band, row, sw.tree(half), view, selected, theme);
                }
            }
            sw.status(&sl, view.weighting)
        }
        None => {
            let bands = view.row_lines(&l, area);
            // Rows three lines tall or more leave their last line blank, all alike.
            let gap = bands.iter().all(|&(_, lines)| lines >= 3);
            for (row, (top, lines)) in l.rows.iter().zip(bands) {
                let band = Band {
                    y: g.y + top,
                    height: lines,
                    total: l.total,
                    gap,
                };
                draw_row(
                    buf,
                    g,
                    band,
                    row,
                    &view.tree,
                    view,
                    Some(view.selected),
                    theme,
                );
            }
            view.status(&l)
        }
    };
    // Legend (a notice takes its place), then the status line.
    let legend_y = area.y + area.height - 2;
    match notice {
        Some(n) if diff => put(buf, area, legend_y, &escape(n), theme.warning()),
        _ => legend(buf, Rect::new(area.x, legend_y, area.width, 1), diff, theme),
    }
    let status = fit_parts(&escape(&status), area.width as usize);
    put(
        buf,
        area,
        area.y + area.height - 1,
        &status,
        Style::new().add_modifier(Modifier::BOLD),
    );
}

/// Where a layout row is drawn: its first screen line, its lines, and the time the
/// whole width stands for (the second line's shares are of it).
#[derive(Clone, Copy)]
struct Band {
    y: u16,
    height: u16,
    total: u64,
    /// Leave the last line blank (rows stay apart).
    gap: bool,
}

/// One layout row of `tree` on `band`'s lines: each frame's label on the first line (its
/// end kept: `Fully Con…GEMM #3`), its time and share on the second when the row has
/// two lines or more, the fill below.
#[allow(clippy::too_many_arguments)]
fn draw_row(
    buf: &mut Buffer,
    g: Rect,
    band: Band,
    row: &[crate::views::flame::layout::Span],
    tree: &crate::views::flame::model::FlameTree,
    view: &FlameView,
    selected: Option<SpanOf>,
    theme: &Theme,
) {
    let diff = view.is_diff();
    let in_sandwich = view.sandwich.is_some();
    for (i, span) in row.iter().enumerate() {
        if span.x1 <= span.x0 {
            continue;
        }
        let (look, text, matched) = match span.of {
            SpanOf::Merged(_) => (
                Look {
                    bg: [238, 238],
                    fill: '·',
                },
                "…".to_string(),
                false,
            ),
            SpanOf::Frame(f) => {
                let fr = tree.frame(f);
                // The graph's frames are matched by id; a sandwich's by their label.
                let matched = if in_sandwich {
                    view.label_matches(&fr.label)
                } else {
                    view.is_match(f)
                };
                match &fr.diff {
                    Some(d) if diff => (diff_look(d.verdict, d.delta_pct), diff_label(fr), matched),
                    _ => (
                        kind_look(fr.kind, fr.op_type),
                        escape(&fr.label).into_owned(),
                        matched,
                    ),
                }
            }
        };
        let mut style = if theme.color {
            let bg = if matched {
                Color::Indexed(201)
            } else {
                Color::Indexed(look.bg[i % 2])
            };
            Style::new().bg(bg).fg(Color::Black)
        } else if matches!(span.of, SpanOf::Merged(_)) {
            Style::new().add_modifier(Modifier::DIM)
        } else {
            Style::new()
        };
        if matched {
            style = style.add_modifier(Modifier::BOLD);
            if !theme.color {
                style = style.add_modifier(Modifier::UNDERLINED);
            }
        }
        if selected == Some(span.of) {
            style = style.add_modifier(Modifier::REVERSED | Modifier::BOLD);
        }
        let w = (span.x1 - span.x0) as usize;
        let fill = if theme.color { ' ' } else { look.fill };
        let cells: String = std::iter::repeat_n(fill, w).collect();
        // Without colour a frame of 3 cells or more ends in a bar, so neighbours stay
        // apart.
        let bar = !theme.color && w >= 3;
        let room = if bar { w - 1 } else { w };
        let x = g.x + span.x0;
        let drawn = if band.gap && band.height >= 2 {
            band.height - 1
        } else {
            band.height
        };
        for line in 0..drawn {
            let y = band.y + line;
            buf.set_stringn(x, y, &cells, w, style);
            let text = match line {
                0 => fit_label(&text, room),
                1 if matches!(span.of, SpanOf::Frame(_)) => {
                    time_and_share(span.value, band.total, room)
                }
                _ => String::new(),
            };
            buf.set_stringn(x, y, &text, room, style);
            if bar {
                buf.set_stringn(g.x + span.x1 - 1, y, "│", 1, style);
            }
        }
    }
}

/// `text` in `width` cells, whole parts only: the trailing ` · ` parts that do not fit
/// are left out (a word is never cut); a first part too long alone is cut in the middle.
pub fn fit_parts(text: &str, width: usize) -> String {
    use crate::escape::{cut_middle, display_width};
    if display_width(text) <= width {
        return text.to_string();
    }
    let mut out = String::new();
    for part in text.split(" · ") {
        let next = if out.is_empty() {
            part.to_string()
        } else {
            format!("{out} · {part}")
        };
        if display_width(&next) > width {
            break;
        }
        out = next;
    }
    if out.is_empty() {
        cut_middle(text, width)
    } else {
        out
    }
}

/// A frame's second line in `room` cells: its time and share of the width, else its
/// time, else nothing (a number is never cut).
fn time_and_share(ns: u64, total: u64, room: usize) -> String {
    let share = if total == 0 {
        0.0
    } else {
        ns as f64 / total as f64
    };
    let time = crate::units::duration_ms(ns as f64 / 1e6);
    let both = format!("{time} · {}", crate::units::percent(share));
    [both, time]
        .into_iter()
        .find(|t| crate::escape::display_width(t) <= room)
        .unwrap_or_default()
}

/// `text` in `room` cells: whole when it fits; else its end kept behind a `…` (the end
/// tells apart `Fully Connected (NC, F32) GEMM #1` and `#3`), with a little of its start
/// when there is room; nothing in fewer than 2 cells (the fill shows the frame).
pub fn fit_label(text: &str, room: usize) -> String {
    use crate::escape::display_width;
    if display_width(text) <= room {
        return text.to_string();
    }
    if room < 2 {
        return String::new();
    }
    let head_room = if room > 12 { (room - 1) / 3 } else { 0 };
    crate::ui::text::cut_around(text, room, head_room)
}

fn legend(buf: &mut Buffer, area: Rect, diff: bool, theme: &Theme) {
    let items: Vec<(Look, &str)> = if diff {
        vec![
            (
                diff_look(Verdict::Slower, Some(60.0)),
                "▲ slower (deeper: more)",
            ),
            (diff_look(Verdict::Faster, Some(60.0)), "▼ faster"),
            (diff_look(Verdict::Same, None), "= same"),
            (diff_look(Verdict::TooFewSamples, None), "? too few runs"),
            (diff_look(Verdict::Added, None), "+ added"),
            (diff_look(Verdict::Removed, None), "− removed"),
        ]
    } else {
        vec![
            (kind_look(FrameKind::Delegate, None), "delegate"),
            (kind_look(FrameKind::Step, None), "step"),
            (kind_look(FrameKind::Operator, None), "XNNPACK op"),
            (kind_look(FrameKind::Kernel, None), "kernel"),
            (kind_look(FrameKind::Other, None), "other"),
            (kind_look(FrameKind::Other, Some(OpType::Gemm)), "GEMM"),
            (
                kind_look(FrameKind::Other, Some(OpType::Convolution)),
                "conv",
            ),
            (
                kind_look(FrameKind::Other, Some(OpType::Elementwise)),
                "elementwise",
            ),
            (
                Look {
                    bg: [238, 238],
                    fill: '·',
                },
                "… merged",
            ),
        ]
    };
    let mut x = area.x;
    let right = area.x + area.width;
    for (look, label) in items {
        let (swatch, style) = if theme.color {
            (" ".to_string(), Style::new().bg(Color::Indexed(look.bg[0])))
        } else {
            (look.fill.to_string(), Style::new())
        };
        let need = 2 + label.width() as u16 + 1;
        if x + need > right {
            break;
        }
        buf.set_stringn(x, area.y, &swatch, 1, style);
        buf.set_stringn(x + 2, area.y, label, label.len(), theme.dim());
        x += need;
    }
}

#[cfg(test)]
mod tests {
    use super::{fit_label, fit_parts};

    #[test]
    fn labels_keep_their_end() {
        let name = "Fully Connected (NC, F32) GEMM #3";
        assert_eq!(fit_label(name, 40), name);
        assert_eq!(fit_label(name, 9), "… GEMM #3", "short: the end only");
        assert_eq!(
            fit_label(name, 16),
            "Fully…2) GEMM #3",
            "a third for the start"
        );
        assert_eq!(fit_label(name, 2), "…3");
        assert_eq!(fit_label(name, 1), "");
        // Wide characters count two cells and are never split.
        assert_eq!(fit_label("算子算子", 5), "…算子");
    }

    #[test]
    fn status_parts_are_never_cut() {
        assert_eq!(fit_parts("abc · 1.0 ms · 50%", 30), "abc · 1.0 ms · 50%");
        assert_eq!(fit_parts("abc · 1.0 ms · 50%", 14), "abc · 1.0 ms");
        assert_eq!(fit_parts("abcdefghij · x", 6), "abcd…x");
    }
}
