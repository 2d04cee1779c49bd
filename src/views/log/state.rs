//! The warnings & log view (`w`, `v`): every finding (naming its delegate), the decoded
//! CpuBackend plans, then the raw runner log (traces: what the reader counted). Plain
//! state (the scroll position) and pure commands over the profile on screen.

use crate::app::data::ExplorerData;
use crate::app::effect::Effect;
use crate::app::keymap::Command;
use crate::app::search::{self, Search};
use crate::app::step::Step;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogView {
    /// First row on screen.
    pub scroll: usize,
    /// Cells of the raw log lines scrolled off to the left (`←`/`→`).
    pub hscroll: usize,
    /// The selected row (`j`/`k`): `r` and `c` act on the finding it lies in.
    pub cursor: usize,
    /// `/` and `]`/`[` over every row's text.
    pub search: Search,
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
    /// The view as `w` opens it: the cursor on the first finding, if any.
    pub fn opened(data: Option<&ExplorerData>) -> LogView {
        LogView {
            cursor: usize::from(data.is_some_and(|d| !d.findings.is_empty())),
            ..LogView::default()
        }
    }

    /// The view opened at its next section after the top (`v` in the explorer).
    pub fn at_next_section(data: Option<&ExplorerData>, width: usize) -> LogView {
        let mut v = LogView::default();
        if let Some(d) = data {
            v.scroll = next_section(d, 0, width);
            v.cursor = v.scroll;
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
    let page = page.max(1);
    match cmd {
        Down => view.cursor = (view.cursor + 1).min(last),
        Up => view.cursor = view.cursor.saturating_sub(1),
        PageDown => {
            view.cursor = (view.cursor + page).min(last);
            view.scroll = (view.scroll + page).min(last);
        }
        PageUp => {
            view.cursor = view.cursor.saturating_sub(page);
            view.scroll = view.scroll.saturating_sub(page);
        }
        Top => (view.cursor, view.scroll) = (0, 0),
        // The last page: the last row at the bottom of the view.
        Bottom => (view.cursor, view.scroll) = (last, len.saturating_sub(page)),
        Collapse => view.hscroll = view.hscroll.saturating_sub(HSCROLL_STEP),
        Expand => {
            view.hscroll = (view.hscroll + HSCROLL_STEP).min(max_hscroll(data, width));
        }
        NextLogSection => {
            if let Some(d) = data {
                view.scroll = next_section(d, view.scroll, width);
                view.cursor = view.scroll;
            }
        }
        Reveal => {
            let Some(d) = data else {
                return Vec::new();
            };
            return match selected_finding(d, view.cursor, width) {
                Some(f) => match d.findings.get(f).and_then(|f| f.node) {
                    Some(n) => vec![Step::Reveal(n)],
                    None => vec![Step::Notice(
                        "this finding names no node of the tree".into(),
                    )],
                },
                None => vec![Step::Notice(
                    "r: no finding selected (j/k select one)".into(),
                )],
            };
        }
        CopyRow => return copy_selected(view, data, width),
        StartFilter => view.search.editing = true,
        FilterAccept => view.search.editing = false,
        FilterCancel => view.search.clear(),
        FilterEdit(req) => {
            view.search.edit(req);
            // Live: the first match from the cursor on.
            if let Some(d) = data {
                let found = search_rows(d, &view.search.needle(), width);
                if let Some(&at) = found.iter().find(|&&i| i >= view.cursor).or(found.first()) {
                    view.cursor = at;
                }
            }
        }
        NextMatch | PrevMatch => {
            let Some(d) = data else {
                return Vec::new();
            };
            if !view.search.is_active() {
                return vec![Step::Notice("no search: / searches the log".into())];
            }
            let needle = view.search.needle();
            let found = search_rows(d, &needle, width);
            if let Some(at) = search::step(&found, view.cursor, cmd == NextMatch) {
                view.cursor = at;
            }
            return vec![Step::Notice(search::status(
                view.search.input.value(),
                &found,
                view.cursor,
            ))];
        }
        Back if view.search.is_active() => view.search.clear(),
        ToggleLog | Back => return vec![Step::Pop],
        _ => {}
    }
    // The cursor stays on screen.
    if view.cursor < view.scroll {
        view.scroll = view.cursor;
    } else if view.cursor >= view.scroll + page {
        view.scroll = view.cursor + 1 - page;
    }
    Vec::new()
}

/// `c`: the selected finding's whole text (every wrapped line), else the selected line.
fn copy_selected(view: &LogView, data: Option<&ExplorerData>, width: usize) -> Vec<Step> {
    let Some(d) = data else {
        return Vec::new();
    };
    let text = match selected_finding(d, view.cursor, width) {
        Some(f) => d.findings.get(f).map(finding_text),
        None => row_text(d, view.cursor, width),
    };
    match text.filter(|t| !t.is_empty()) {
        Some(text) => vec![
            Step::Notice(format!(
                "copied {} characters to the clipboard (OSC 52)",
                text.chars().count()
            )),
            Step::Effect(Effect::Copy(text)),
        ],
        None => vec![Step::Notice("nothing on this line to copy".into())],
    }
}

/// The text of row `i` of the view (a heading, a finding's line, a plan line or a raw
/// log line).
pub fn row_text(data: &ExplorerData, i: usize, width: usize) -> Option<String> {
    let head = log_rows(data, width);
    match head.get(i) {
        Some(LogRow::Heading(t) | LogRow::Text(t) | LogRow::Finding { text: t, .. }) => {
            Some(t.clone())
        }
        Some(LogRow::Blank) => Some(String::new()),
        None => data.log.text(i - head.len()).map(str::to_string),
    }
}

/// The rows holding `needle` (lower-cased): headings, findings, plans, raw log lines.
pub fn search_rows(data: &ExplorerData, needle: &str, width: usize) -> Vec<usize> {
    if needle.is_empty() {
        return Vec::new();
    }
    let head = log_rows(data, width);
    let mut found = search::matches(
        head.iter().map(|r| match r {
            LogRow::Heading(t) | LogRow::Text(t) | LogRow::Finding { text: t, .. } => t.as_str(),
            LogRow::Blank => "",
        }),
        needle,
    );
    found.extend(
        (0..data.log.len())
            .filter(|&n| search::holds(data.log.text(n).unwrap_or(""), needle))
            .map(|n| head.len() + n),
    );
    found
}

/// Scroll `delta` rows (the mouse wheel), within the view.
pub fn scroll_by(view: &mut LogView, delta: isize, data: Option<&ExplorerData>, width: usize) {
    let last = log_len(data, width).saturating_sub(1) as isize;
    view.scroll = (view.scroll as isize + delta).clamp(0, last.max(0)) as usize;
    view.cursor = (view.cursor as isize + delta).clamp(0, last.max(0)) as usize;
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
pub fn finding_text(f: &crate::app::data::FindingRow) -> String {
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
        // The selection mark and "ERROR " / "warn  " take 7 cells; continuation lines
        // are indented to match.
        let text = finding_text(f);
        for (i, line) in crate::app::format::wrap(&text, width.saturating_sub(7))
            .into_iter()
            .enumerate()
        {
            out.push((Some(f.error), i == 0, line));
        }
    }
    out
}

/// The finding row `cursor` of the view lies in (any of its wrapped lines).
pub fn selected_finding(data: &ExplorerData, cursor: usize, width: usize) -> Option<usize> {
    match log_rows(data, width).get(cursor) {
        Some(LogRow::Finding { index, .. }) => Some(*index),
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
            for (i, l) in
                crate::app::format::wrap(line.trim_start(), width.saturating_sub(indent + 4))
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
        crate::app::data::SourceKind::Etdump => "runner log",
        crate::app::data::SourceKind::Trace => "trace reader",
    };
    out.push(LogRow::Heading(if data.log.is_empty() {
        format!("{name}: none")
    } else {
        format!("{name} (raw)")
    }));
    out
}
