//! The flame graph: title, breadcrumb of the zoomed frame's ancestors, one row of frames
//! per depth (placed by `app::flame_layout`), legend, status line. Colours by kind and
//! operator type (differential: by verdict); without colour each kind has its own fill
//! character after the label, and the legend says which. Render only.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::Frame;

use super::Theme;
use crate::app::flame::{Frame as FlameFrame, FrameKind, OpType};
use crate::app::flame_layout::SpanOf;
use crate::app::flame_view::{graph_area, FlameView};
use crate::compare::Verdict;
use crate::escape::escape;

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
            let mark = crate::app::compare::verdict_mark(d.verdict);
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
    // Title, and the search's summary.
    let mut title = view.title();
    if let Some((n, total, share)) = view.search_total() {
        title.push_str(&format!(
            " · /{}: {n} frame{} · {} · {} of root",
            escape(view.search.value()),
            if n == 1 { "" } else { "s" },
            crate::units::duration_ms(total as f64 / 1e6),
            crate::units::percent(share)
        ));
    }
    put(buf, area, area.y, &title, theme.title());
    // The breadcrumb (or the search being typed).
    let crumbs = view.breadcrumb();
    let line = if view.search_editing {
        format!(
            "search: {}▏ (Enter keeps, Esc clears)",
            escape(view.search.value())
        )
    } else if crumbs.is_empty() {
        "Enter zooms into the selected frame · ? keys".to_string()
    } else {
        let names: Vec<String> = crumbs
            .iter()
            .map(|&f| escape(&view.tree.frame(f).label).into_owned())
            .collect();
        format!("{} › (zoomed) · Esc zooms out", names.join(" › "))
    };
    put(buf, area, area.y + 1, &line, theme.dim());

    let g = graph_area(area);
    let diff = view.is_diff();
    for (r, row) in l.rows.iter().enumerate() {
        let y = g.y + r as u16;
        for (i, span) in row.iter().enumerate() {
            if span.x1 <= span.x0 {
                continue;
            }
            let (look, text, bold) = match span.of {
                SpanOf::Merged(_) => (
                    Look {
                        bg: [238, 238],
                        fill: '·',
                    },
                    "…".to_string(),
                    false,
                ),
                SpanOf::Frame(f) => {
                    let fr = view.tree.frame(f);
                    match &fr.diff {
                        Some(d) if diff => {
                            (diff_look(d.verdict, d.delta_pct), diff_label(fr), false)
                        }
                        _ => (
                            kind_look(fr.kind, fr.op_type),
                            escape(&fr.label).into_owned(),
                            view.is_match(f),
                        ),
                    }
                }
            };
            let selected = span.of == view.selected;
            let matched = match span.of {
                SpanOf::Frame(f) => view.is_match(f),
                SpanOf::Merged(_) => false,
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
            if matched || bold {
                style = style.add_modifier(Modifier::BOLD);
                if !theme.color {
                    style = style.add_modifier(Modifier::UNDERLINED);
                }
            }
            if selected {
                style = style.add_modifier(Modifier::REVERSED | Modifier::BOLD);
            }
            let w = (span.x1 - span.x0) as usize;
            let fill = if theme.color { ' ' } else { look.fill };
            let cells: String = std::iter::repeat_n(fill, w).collect();
            buf.set_stringn(g.x + span.x0, y, &cells, w, style);
            // Without colour a frame of 3 cells or more ends in a bar, so neighbours
            // stay apart.
            let bar = !theme.color && w >= 3;
            let room = if bar { w - 1 } else { w };
            buf.set_stringn(g.x + span.x0, y, &text, room, style);
            if bar {
                buf.set_stringn(g.x + span.x1 - 1, y, "│", 1, style);
            }
        }
    }

    // Legend (a notice takes its place), then the status line.
    let legend_y = area.y + area.height - 2;
    match notice {
        Some(n) if diff => put(buf, area, legend_y, &escape(n), theme.warning()),
        _ => legend(buf, Rect::new(area.x, legend_y, area.width, 1), diff, theme),
    }
    let status = escape(&view.status(&l)).into_owned();
    put(
        buf,
        area,
        area.y + area.height - 1,
        &status,
        Style::new().add_modifier(Modifier::BOLD),
    );
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
        let need = 2 + label.chars().count() as u16 + 1;
        if x + need > right {
            break;
        }
        buf.set_stringn(x, area.y, &swatch, 1, style);
        buf.set_stringn(x + 2, area.y, label, label.len(), theme.dim());
        x += need;
    }
}
