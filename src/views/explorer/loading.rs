//! Loading gauge: bytes read and phase of the background load.

use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::{Block, Borders, Clear, Gauge, Paragraph};
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use crate::app::format::bytes;
use crate::app::session::Loading;
use crate::profile::LoadPhase;
use crate::ui::centered;
use crate::ui::Theme;

fn gauge<'a>(l: &Loading, theme: &Theme, block: Block<'a>) -> Gauge<'a> {
    let ratio = if l.bytes_total > 0 {
        (l.bytes_done as f64 / l.bytes_total as f64).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let label = if l.bytes_total > 0 {
        format!(
            "{} · {} of {} ({:.0}%)",
            l.phase.label(),
            bytes(l.bytes_done),
            bytes(l.bytes_total),
            ratio * 100.0
        )
    } else {
        format!("{} · {}", l.phase.label(), bytes(l.bytes_done))
    };
    // A heartbeat in a phase whose bytes do not move (analysing): a turning spinner.
    let label = if l.beats > 0 && l.phase == LoadPhase::Analysing {
        const SPINNER: [char; 4] = ['|', '/', '-', '\\'];
        format!("{label} {}", SPINNER[l.beats as usize % SPINNER.len()])
    } else {
        label
    };
    Gauge::default()
        .block(block)
        .gauge_style(theme.gauge())
        .ratio(ratio)
        .label(label)
        .use_unicode(true)
}

/// Nothing loaded yet: the gauge in the middle of the body.
pub fn render_full(frame: &mut Frame, body: Rect, l: &Loading, theme: &Theme) {
    let area = centered(body, 70, 3);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(true))
        .title(Span::styled(
            format!(" Loading {} (warm-up {}) · q quits ", l.file, l.warmup),
            theme.title(),
        ));
    frame.render_widget(gauge(l, theme, block), area);
}

/// A reload over a shown profile: a small gauge at the bottom of the body.
pub fn render_overlay(frame: &mut Frame, body: Rect, l: &Loading, theme: &Theme) {
    if body.height < 3 {
        return;
    }
    let w = body.width.min(70);
    let area = Rect::new(
        body.x + (body.width - w) / 2,
        body.y + body.height - 3,
        w,
        3,
    );
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(true))
        .title(Span::styled(
            format!(" Reloading with warm-up {} ", l.warmup),
            theme.title(),
        ));
    frame.render_widget(gauge(l, theme, block), area);
}

pub fn render_empty(frame: &mut Frame, body: Rect, theme: &Theme) {
    let area = centered(body, 40, 1);
    frame.render_widget(
        Paragraph::new(Span::styled("no profile", theme.dim())),
        area,
    );
}

/// Watch mode before the first profile.
pub fn render_waiting(frame: &mut Frame, body: Rect, theme: &Theme) {
    let text = "no profile yet: each complete ETDump in the directory shows up here";
    let area = centered(body, text.width() as u16, 1);
    frame.render_widget(Paragraph::new(Span::styled(text, theme.dim())), area);
}
