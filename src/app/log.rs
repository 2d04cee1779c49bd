//! The warnings & log view (`w`, `v`): every finding (naming its delegate), the decoded
//! CpuBackend plans, then the raw runner log (traces: what the reader counted). Plain
//! state (the scroll position) and pure commands over the profile on screen.

use super::data::ExplorerData;
use super::keymap::Command;
use super::step::Step;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogView {
    /// First row on screen.
    pub scroll: usize,
    /// Cells of the raw log lines scrolled off to the left (`←`/`→`).
    pub hscroll: usize,
}

/// Cells one `←`/`→` scrolls the raw log lines.
pub const HSCROLL_STEP: usize = 8;

/// How far the raw log lines can scroll left in a view `width` cells wide: the longest
/// line (after its number) at the right edge.
pub fn max_hscroll(data: Option<&ExplorerData>, width: usize) -> usize {
    let Some(d) = data else { return 0 };
    let number_w = d.log.len().to_string().len() + 1;
    let longest = d.log.longest_chars();
    longest.saturating_sub(width.saturating_sub(number_w))
}

impl LogView {
    /// The view opened at its next section after the top (`v` in the explorer).
    pub fn at_next_section(data: Option<&ExplorerData>, width: usize) -> LogView {
        let mut v = LogView::default();
        if let Some(d) = data {
            v.scroll = next_section(d, 0, width);
        }
        v
    }
}

/// Rows of the whole view `width` cells wide (the part above the raw log, then its lines).
pub fn log_len(data: Option<&ExplorerData>, width: usize) -> usize {
    data.map(|d| log_rows(d, width).len() + d.log.len())
        .unwrap_or(0)
}

/// A key in the log view. `width` and `page`: the view's inside, in cells and rows.
pub fn command(
    view: &mut LogView,
    cmd: Command,
    data: Option<&ExplorerData>,
    width: usize,
    page: usize,
) -> Vec<Step> {
    use Command::*;
    let len = log_len(data, width);
    let last = len.saturating_sub(1);
    match cmd {
        Down => view.scroll = (view.scroll + 1).min(last),
        Up => view.scroll = view.scroll.saturating_sub(1),
        PageDown => view.scroll = (view.scroll + page.max(1)).min(last),
        PageUp => view.scroll = view.scroll.saturating_sub(page.max(1)),
        Top => view.scroll = 0,
        // The last page: the last row at the bottom of the view.
        Bottom => view.scroll = len.saturating_sub(page.max(1)),
        Collapse => view.hscroll = view.hscroll.saturating_sub(HSCROLL_STEP),
        Expand => {
            view.hscroll = (view.hscroll + HSCROLL_STEP).min(max_hscroll(data, width));
        }
        NextLogSection => {
            if let Some(d) = data {
                view.scroll = next_section(d, view.scroll, width);
            }
        }
        Reveal => {
            let Some(d) = data else {
                return Vec::new();
            };
            return match selected_finding(d, view.scroll, width) {
                Some(f) => match d.findings.get(f).and_then(|f| f.node) {
                    Some(n) => vec![Step::Reveal(n)],
                    None => vec![Step::Notice(
                        "this finding names no node of the tree".into(),
                    )],
                },
                None => vec![Step::Notice("no finding at the top of the view".into())],
            };
        }
        ToggleLog | Back => return vec![Step::Pop],
        _ => {}
    }
    Vec::new()
}

/// Scroll `delta` rows (the mouse wheel), within the view.
pub fn scroll_by(view: &mut LogView, delta: isize, data: Option<&ExplorerData>, width: usize) {
    let last = log_len(data, width).saturating_sub(1) as isize;
    view.scroll = (view.scroll as isize + delta).clamp(0, last.max(0)) as usize;
}

/// The first row of the section after row `from` (wrapping to the top).
pub fn next_section(data: &ExplorerData, from: usize, width: usize) -> usize {
    log_rows(data, width)
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r, LogRow::Heading(_)))
        .map(|(i, _)| i)
        .find(|&i| i > from)
        .unwrap_or(0)
}

/// The findings section of the log view, wrapped to `width`: (is error, first line of
/// its finding, text). Shared by rendering and scrolling so both count the same lines.
/// A finding as the warnings view writes it: `kind · delegate #1: message`.
pub fn finding_text(f: &super::data::FindingRow) -> String {
    match &f.delegate {
        Some(d) => format!("{} · {d}: {}", f.kind, f.message),
        None => format!("{}: {}", f.kind, f.message),
    }
}

pub fn finding_lines(data: &ExplorerData, width: usize) -> Vec<(Option<bool>, bool, String)> {
    let mut out = Vec::new();
    if data.findings.is_empty() {
        out.push((None, true, "no warnings or errors".to_string()));
    }
    for f in &data.findings {
        // "ERROR " / "warn  " take 6 cells; continuation lines are indented to match.
        let text = finding_text(f);
        for (i, line) in super::format::wrap(&text, width.saturating_sub(6))
            .into_iter()
            .enumerate()
        {
            out.push((Some(f.error), i == 0, line));
        }
    }
    out
}

/// The finding the warnings view scrolled to `scroll` has selected: the one whose lines
/// hold the top row of the view (the first one while the heading is at the top).
pub fn selected_finding(data: &ExplorerData, scroll: usize, width: usize) -> Option<usize> {
    let rows = log_rows(data, width);
    match rows.get(scroll) {
        Some(LogRow::Finding { index, .. }) => Some(*index),
        _ if scroll == 0 && !data.findings.is_empty() => Some(0),
        _ => None,
    }
}

/// A row of the warnings & log view above the raw log lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogRow {
    Heading(String),
    Finding {
        error: bool,
        first: bool,
        index: usize,
        text: String,
    },
    Text(String),
    Blank,
}

/// The warnings & log view down to the raw log: the findings, the decoded plans, the
/// heading of the log (`data.log` lines follow it).
pub fn log_rows(data: &ExplorerData, width: usize) -> Vec<LogRow> {
    let mut out = vec![LogRow::Heading("findings".into())];
    for (sev, first, text) in finding_lines(data, width) {
        out.push(match sev {
            None => LogRow::Text(text),
            Some(error) => LogRow::Finding {
                error,
                first,
                index: 0,
                text,
            },
        });
    }
    // Number the findings (each starts at a first line).
    let mut k = 0;
    for row in out.iter_mut() {
        if let LogRow::Finding { first, index, .. } = row {
            if *first {
                k += 1;
            }
            *index = k - 1;
        }
    }
    out.push(LogRow::Blank);
    for plan in &data.plans {
        out.push(LogRow::Heading(plan.title.clone()));
        for line in &plan.lines {
            let indent = line.len() - line.trim_start().len();
            for (i, l) in super::format::wrap(line.trim_start(), width.saturating_sub(indent + 4))
                .into_iter()
                .enumerate()
            {
                let pad = if i == 0 { indent } else { indent + 4 };
                out.push(LogRow::Text(format!("{}{l}", " ".repeat(pad))));
            }
        }
        out.push(LogRow::Blank);
    }
    let name = match data.kind {
        super::data::SourceKind::Etdump => "runner log",
        super::data::SourceKind::Trace => "trace reader",
    };
    out.push(LogRow::Heading(if data.log.is_empty() {
        format!("{name}: none")
    } else {
        format!("{name} (raw)")
    }));
    out
}
