//! The flame graph view (`f`): its plain state (the graph, weighting, zoom, selection,
//! search) and a pure `command`; `views::flame::render` draws it. Pushed over the explorer (the
//! profile on screen) or over the compare view (the differential graph).
//!
//! Screen rows of the view's area: the title, the breadcrumb of the zoomed frame's
//! ancestors, the graph (one row per depth), the legend, the status line.

use ratatui::layout::Rect;
use tui_input::Input;

use super::layout::{layout, Layout, SpanOf};
use super::model::{FlameCommand, FlameSource, FlameTree};
use super::sandwich::SandwichView;
use crate::app::command::Command;
use crate::app::layout::MouseAction;
use crate::app::step::Step;
use crate::units::{duration_ms, percent};

#[derive(Debug, Clone)]
pub struct FlameView {
    /// The graph drawn: `recorded`, or its left-heavy form.
    pub tree: std::sync::Arc<FlameTree>,
    /// The graph as built (shared with the loaded data, built once per load).
    pub recorded: std::sync::Arc<FlameTree>,
    /// Identical stacks merged (`s`).
    pub left_heavy: bool,
    /// One name's callers and callees (`i`), drawn instead of the graph while open.
    pub sandwich: Option<Box<SandwichView>>,
    /// Index into `tree.weightings`.
    pub weighting: usize,
    /// The frame filling the width.
    pub zoom: u32,
    pub selected: SpanOf,
    pub search: Input,
    /// The search text is being typed (`/`).
    pub search_editing: bool,
    /// Frames whose label contains the search (any case), in tree order.
    pub matches: Vec<u32>,
    /// Position in `matches` of the last `]`/`[`.
    pub match_at: Option<usize>,
    /// By frame: whether it matches.
    matched: Vec<bool>,
    /// The outermost matches' time under each weighting.
    match_totals: [u64; 2],
}

/// The graph's part of the view's area.
pub fn graph_area(area: Rect) -> Rect {
    let rows = area.height.saturating_sub(4);
    Rect::new(area.x, area.y + 2.min(area.height), area.width, rows)
}

impl FlameView {
    pub fn new(tree: impl Into<std::sync::Arc<FlameTree>>) -> FlameView {
        let tree = tree.into();
        FlameView {
            recorded: tree.clone(),
            left_heavy: false,
            sandwich: None,
            tree,
            weighting: 0,
            zoom: 0,
            selected: SpanOf::Frame(0),
            search: Input::default(),
            search_editing: false,
            matches: Vec::new(),
            match_at: None,
            matched: Vec::new(),
            match_totals: [0, 0],
        }
    }

    pub fn is_diff(&self) -> bool {
        self.tree.source == FlameSource::Compare
    }

    /// The layout drawn in `area` (the view's whole area).
    pub fn layout(&self, area: Rect) -> Layout {
        let g = graph_area(area);
        if self.tree.frames.is_empty() {
            return Layout::default();
        }
        layout(
            &self.tree,
            self.weighting,
            self.zoom,
            g.width,
            g.height as usize,
        )
    }

    /// Screen lines of each depth row of `l` (first line from the graph's top, lines):
    /// the rows share the graph's area, so a shallow graph fills it with taller rows and
    /// a graph as deep as the area is tall gets a line a row.
    pub fn row_lines(&self, l: &Layout, area: Rect) -> Vec<(u16, u16)> {
        let lines = graph_area(area).height as usize;
        // Rows of frames narrower than a cell only are not drawn: they take no lines.
        let drawn = l
            .rows
            .iter()
            .take_while(|r| r.iter().any(|s| s.x1 > s.x0))
            .count();
        let rows = drawn.clamp(1, lines.max(1));
        let top = |r: usize| (r * lines / rows) as u16;
        (0..drawn.min(rows))
            .map(|r| (top(r), top(r + 1) - top(r)))
            .collect()
    }

    /// The title: what the graph shows and what its widths stand for.
    pub fn title(&self) -> String {
        let mut t = self.graph_title();
        if let Some(s) = &self.sandwich {
            t = format!(
                "Sandwich of {} · callers above, callees below · {}",
                s.sandwich.name,
                t.split_once(" · ").map_or("", |(_, w)| w)
            );
        } else if self.left_heavy {
            t.push_str(" · left-heavy: stacks merged (s: as recorded)");
        }
        t
    }

    fn graph_title(&self) -> String {
        let what = match self.tree.source {
            FlameSource::Dump => "Flame graph",
            FlameSource::Trace => "Flame graph (call tree per thread)",
            FlameSource::Compare => "Differential flame graph (colour: verdict A → B)",
        };
        let w = self.tree.weightings[self.weighting];
        match self.tree.source {
            FlameSource::Trace => format!("{what} · widths: {w}"),
            _ => format!("{what} · widths: {w} (% toggles)"),
        }
    }

    /// The selection, moved to what `l` shows: the frame itself, else its nearest drawn
    /// ancestor (or the merged span standing for it).
    fn fix_selection(&mut self, l: &Layout) {
        if l.find_drawn(self.selected).is_some() {
            return;
        }
        let mut at = match self.selected {
            SpanOf::Frame(f) => f,
            SpanOf::Merged(p) => p,
        };
        loop {
            if l.find_drawn(SpanOf::Frame(at)).is_some() {
                self.selected = SpanOf::Frame(at);
                return;
            }
            match self.tree.frames[at as usize].parent {
                Some(p) if l.find_drawn(SpanOf::Merged(p)).is_some() => {
                    self.selected = SpanOf::Merged(p);
                    return;
                }
                Some(p) => at = p,
                None => break,
            }
        }
        self.selected = SpanOf::Frame(self.zoom);
    }

    /// A key of the flame table (or of its search field).
    pub fn command(&mut self, cmd: Command, area: Rect) -> Vec<Step> {
        if self.tree.frames.is_empty() {
            return match cmd {
                Command::Back | Command::ToggleFlame => vec![Step::Pop],
                _ => Vec::new(),
            };
        }
        if self.sandwich.is_some() {
            return self.sandwich_command(cmd, area);
        }
        let l = self.layout(area);
        self.fix_selection(&l);
        match cmd {
            Command::Flame(c) => return self.flame_command(c, &l, area),
            Command::ToggleFlame => return vec![Step::Pop],
            Command::Back => {
                if let Some(p) = self.tree.frames[self.zoom as usize].parent {
                    self.zoom = p;
                } else if !self.search.value().is_empty() {
                    self.search.reset();
                    self.refresh_matches();
                } else {
                    return vec![Step::Pop];
                }
            }
            Command::Reveal => {
                return match self.selected {
                    SpanOf::Frame(f) => match self.tree.frames[f as usize].node {
                        Some(n) => vec![Step::Reveal(n)],
                        None if self.is_diff() => {
                            vec![Step::Notice(
                                "the compare view has no tree to reveal in".into(),
                            )]
                        }
                        None => vec![Step::Notice("this frame is no tree row".into())],
                    },
                    SpanOf::Merged(_) => vec![Step::Notice(
                        "merged frames: Enter zooms in until they are wide enough".into(),
                    )],
                }
            }
            Command::StartFilter => self.search_editing = true,
            Command::FilterAccept => self.search_editing = false,
            Command::FilterCancel => {
                self.search_editing = false;
                self.search.reset();
                self.refresh_matches();
            }
            Command::FilterEdit(req) => {
                self.search.handle(req);
                self.refresh_matches();
            }
            Command::NextMatch | Command::PrevMatch => {
                if self.matches.is_empty() {
                    return vec![Step::Notice("no frame matches: / searches".into())];
                }
                let n = self.matches.len();
                let i = match (self.match_at, cmd == Command::NextMatch) {
                    (None, true) => 0,
                    (None, false) => n - 1,
                    (Some(i), true) => (i + 1) % n,
                    (Some(i), false) => (i + n - 1) % n,
                };
                self.match_at = Some(i);
                self.show(self.matches[i], area);
            }
            _ => {}
        }
        Vec::new()
    }

    fn flame_command(&mut self, c: FlameCommand, l: &Layout, area: Rect) -> Vec<Step> {
        let Some((row, i)) = l.find_drawn(self.selected) else {
            return Vec::new();
        };
        match c {
            FlameCommand::Left | FlameCommand::Right => {
                // The next span with a cell (a merged span may have none).
                let spans = &l.rows[row];
                let drawn = |j: &usize| spans[*j].x1 > spans[*j].x0;
                let j = if c == FlameCommand::Left {
                    (0..i).rev().find(drawn)
                } else {
                    (i + 1..spans.len()).find(drawn)
                };
                if let Some(j) = j {
                    self.selected = spans[j].of;
                }
            }
            FlameCommand::Child => {
                let SpanOf::Frame(f) = self.selected else {
                    return vec![Step::Notice(
                        "merged frames: Enter zooms into their parent".into(),
                    )];
                };
                let child = l.rows.get(row + 1).and_then(|r| {
                    r.iter().filter(|s| s.x1 > s.x0).find(|s| match s.of {
                        SpanOf::Frame(c) => self.tree.frames[c as usize].parent == Some(f),
                        SpanOf::Merged(p) => p == f,
                    })
                });
                match child {
                    Some(s) => self.selected = s.of,
                    None if self.tree.frames[f as usize].children.is_empty() => {
                        return vec![Step::Notice("no children".into())]
                    }
                    None => {
                        return vec![Step::Notice(
                            "children below the screen: Enter zooms in".into(),
                        )]
                    }
                }
            }
            FlameCommand::Parent => match self.selected {
                SpanOf::Merged(p) => self.selected = SpanOf::Frame(p),
                SpanOf::Frame(f) if f == self.zoom => {
                    return vec![Step::Notice("the zoomed frame: Esc zooms out".into())]
                }
                SpanOf::Frame(f) => {
                    if let Some(p) = self.tree.frames[f as usize].parent {
                        self.selected = SpanOf::Frame(p);
                    }
                }
            },
            FlameCommand::Zoom => match self.selected {
                SpanOf::Frame(f) => self.zoom = f,
                SpanOf::Merged(p) => {
                    self.zoom = p;
                    self.selected = SpanOf::Frame(p);
                }
            },
            FlameCommand::Order => {
                self.set_left_heavy(!self.left_heavy);
                return vec![Step::Notice(if self.left_heavy {
                    "left-heavy: identical stacks merged, widest first".into()
                } else {
                    "as recorded: repeated siblings apart".into()
                })];
            }
            FlameCommand::Sandwich => match self.selected {
                SpanOf::Frame(f) => {
                    let name = self.tree.frames[f as usize].name().to_string();
                    self.open_sandwich(&name);
                }
                SpanOf::Merged(_) => {
                    return vec![Step::Notice(
                        "merged frames: select one frame (Enter zooms in) for its sandwich".into(),
                    )]
                }
            },
            FlameCommand::Weighting => {
                let steps = self.toggle_weighting();
                let l = self.layout(area);
                self.fix_selection(&l);
                return steps;
            }
        }
        Vec::new()
    }

    /// `%`: the other weighting (a trace has one: it says so), named in a notice.
    pub(super) fn toggle_weighting(&mut self) -> Vec<Step> {
        if self.tree.source == FlameSource::Trace {
            return vec![Step::Notice(
                "a trace's widths are inclusive time only".into(),
            )];
        }
        self.weighting = 1 - self.weighting;
        vec![Step::Notice(format!(
            "widths: {}",
            self.tree.weightings[self.weighting]
        ))]
    }

    /// Select frame `f`, zooming out (or into its parent) until it is drawn.
    fn show(&mut self, f: u32, area: Rect) {
        if !self.tree.is_ancestor(self.zoom, f) {
            self.zoom = 0;
        }
        self.selected = SpanOf::Frame(f);
        if self.layout(area).find_drawn(self.selected).is_some() {
            return;
        }
        self.zoom = self.tree.frames[f as usize].parent.unwrap_or(f);
        if self.layout(area).find_drawn(self.selected).is_none() {
            self.zoom = f;
        }
    }

    pub(super) fn refresh_matches(&mut self) {
        let needle = self.search.value().to_lowercase();
        self.match_at = None;
        self.matches.clear();
        self.matched.clear();
        self.match_totals = [0, 0];
        if needle.is_empty() {
            return;
        }
        // Frames are stored parents first: one pass marks the matches and adds up the
        // outermost ones (a match inside another counts once).
        let n = self.tree.frames.len();
        self.matched = vec![false; n];
        let mut inside = vec![false; n];
        for f in 0..n {
            let fr = &self.tree.frames[f];
            let under = fr.parent.is_some_and(|p| inside[p as usize]);
            let hit = contains_ignore_case(&fr.label, &needle);
            if hit {
                self.matches.push(f as u32);
                self.matched[f] = true;
                if !under {
                    for w in 0..2 {
                        self.match_totals[w] = self.match_totals[w].saturating_add(fr.values[w]);
                    }
                }
            }
            inside[f] = hit || under;
        }
    }

    /// Whether a label (a sandwich's frame's) matches the search.
    pub fn label_matches(&self, label: &str) -> bool {
        let needle = self.search.value().to_lowercase();
        !needle.is_empty() && contains_ignore_case(label, &needle)
    }

    /// Whether frame `f` matches the search.
    pub fn is_match(&self, f: u32) -> bool {
        self.matched.get(f as usize).copied().unwrap_or(false)
    }

    /// The matches and their total share of the root (a match inside another counts
    /// once, in its outermost match).
    pub fn search_total(&self) -> Option<(usize, u64, f64)> {
        if self.search.value().is_empty() {
            return None;
        }
        let w = self.weighting;
        let total = self.match_totals[w];
        let root = self.tree.frames[0].values[w];
        Some((self.matches.len(), total, share(total, root)))
    }

    /// A click selects the frame under it; a click on the selected frame (the second
    /// click of a double-click) zooms into it.
    pub fn mouse(&mut self, area: Rect, kind: MouseAction, x: u16, y: u16) -> Vec<Step> {
        if kind != MouseAction::Click || self.tree.frames.is_empty() {
            return Vec::new();
        }
        let g = graph_area(area);
        if x < g.x || y < g.y || x >= g.x + g.width || y >= g.y + g.height {
            return Vec::new();
        }
        if let Some(s) = self.sandwich.as_mut() {
            s.click(g, self.weighting, x, y);
            return Vec::new();
        }
        let l = self.layout(area);
        let y = y - g.y;
        let row = self
            .row_lines(&l, area)
            .iter()
            .position(|&(top, lines)| top <= y && y < top + lines);
        let Some(span) = row.and_then(|row| l.at(row, x - g.x)) else {
            return Vec::new();
        };
        if span.of == self.selected {
            self.flame_command(FlameCommand::Zoom, &l, area)
        } else {
            self.selected = span.of;
            Vec::new()
        }
    }

    /// The status line of the selection: name, time, share of the root and of the
    /// parent, efficiency where known; a compare row's change, interval and verdict.
    pub fn status(&self, l: &Layout) -> String {
        let w = self.weighting;
        let root = self.tree.frames.first().map_or(0, |f| f.values[w]);
        let Some((row, i)) = l.find(self.selected) else {
            return String::new();
        };
        let span = l.rows[row][i];
        match span.of {
            SpanOf::Merged(p) => format!(
                "… {} frames narrower than a cell under {}: {} · {} of root · {} of parent",
                span.count,
                self.tree.frames[p as usize].label,
                ns_text(span.value),
                percent(share(span.value, root)),
                percent(share(span.value, self.tree.frames[p as usize].values[w])),
            ),
            SpanOf::Frame(f) => {
                let fr = &self.tree.frames[f as usize];
                let v = fr.values[w];
                let mut parts = vec![
                    fr.label.clone(),
                    ns_text(v),
                    format!("{} of root", percent(share(v, root))),
                ];
                if let Some(p) = fr.parent {
                    parts.push(format!(
                        "{} of parent",
                        percent(share(v, self.tree.frames[p as usize].values[w]))
                    ));
                }
                if let Some(d) = &fr.diff {
                    parts.push(format!(
                        "B {} · A {}",
                        ns_text(fr.values[0]),
                        ns_text(fr.values[1])
                    ));
                    if let Some(c) = d.delta_pct {
                        parts.push(format!("change {c:+.1}%"));
                    }
                    if let Some((lo, hi)) = d.ci_pct {
                        parts.push(format!("[{lo:+.1}%, {hi:+.1}%]"));
                    }
                    parts.push(d.verdict.label().replace('_', " "));
                }
                if let Some(cost) = fr.cost {
                    let r = crate::profile::efficiency::rates(cost, fr.values[0] as f64 / 1e6);
                    if r.gflops.is_some() || r.gbps.is_some() {
                        parts.push(format!(
                            "{} GFLOP/s · {} GB/s at the median",
                            crate::app::table::rate_text(r.gflops),
                            crate::app::table::rate_text(r.gbps)
                        ));
                    }
                }
                parts.join(" · ")
            }
        }
    }

    /// The zoomed frame's ancestors, root first (the breadcrumb bar).
    pub fn breadcrumb(&self) -> Vec<u32> {
        let mut p = self.tree.path(self.zoom);
        p.pop();
        p
    }
}

/// Whether `hay` contains `needle` (already lower case), ignoring case; without
/// allocating for an ASCII needle (a search runs over every frame per key).
fn contains_ignore_case(hay: &str, needle: &str) -> bool {
    if !needle.is_ascii() {
        return hay.to_lowercase().contains(needle);
    }
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    n.is_empty() || h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

fn ns_text(ns: u64) -> String {
    duration_ms(ns as f64 / 1e6)
}

#[cfg(test)]
mod tests {
    use super::contains_ignore_case;

    #[test]
    fn search_ignores_case() {
        assert!(contains_ignore_case(
            "Fully Connected (NC, F32) GEMM #1",
            "gemm"
        ));
        assert!(contains_ignore_case("aten::ADDMM", "addmm"));
        assert!(!contains_ignore_case("aten::add", "addmm"));
        assert!(contains_ignore_case("Ärger", "ärg"));
        assert!(contains_ignore_case("x", ""));
    }
}
