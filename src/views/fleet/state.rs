//! The fleet view (`cpuprof-tui fleet PATH...`, `cpuprof-tui DIR` on a folder of dumps):
//! the profiles list (metadata, model, runs, median, error) and the rows table of the
//! selected profile's group (across-profile columns, outliers, the `--order` trend).
//! Plain data and a pure `command`; its keys are `fleet_keys::FLEET`, `views::fleet::render`
//! renders it. The fleet arrives from a loading thread (`loaded`); Enter opens a
//! profile in the explorer (pushed over the fleet), `d` compares it with the fleet's
//! median profile (`fleet::tree::median_profile`) in the compare view.

use tui_input::{Input, InputRequest};

use crate::app::keymap::Command;
use crate::app::step::Step;
use crate::compare::{compare, CompareOptions, Comparison};
use crate::fleet::analysis::{Fleet, Group, GroupRow};
use crate::fleet::tree::{median_profile, row_tree, total_median};
use crate::fleet::{natural_cmp, FleetProfile};
use crate::profile::warmup::Warmup;
use crate::profile::ProfileRequest;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FleetPane {
    Profiles,
    Rows,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileSort {
    /// As found (in `--order` order when given).
    Found,
    /// Slowest total first.
    Median,
    Id,
    /// Failed loads first.
    Errors,
}

impl ProfileSort {
    pub fn label(self) -> &'static str {
        match self {
            ProfileSort::Found => "as found",
            ProfileSort::Median => "median",
            ProfileSort::Id => "id",
            ProfileSort::Errors => "errors",
        }
    }
    fn next(self) -> ProfileSort {
        match self {
            ProfileSort::Found => ProfileSort::Median,
            ProfileSort::Median => ProfileSort::Id,
            ProfileSort::Id => ProfileSort::Errors,
            ProfileSort::Errors => ProfileSort::Found,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowSort {
    /// The row tree's order.
    Program,
    /// Largest median of medians first.
    Median,
    /// Largest coefficient of variation first.
    Cv,
    /// Most outlier profiles first.
    Outliers,
}

impl RowSort {
    pub fn label(self) -> &'static str {
        match self {
            RowSort::Program => "program order",
            RowSort::Median => "median",
            RowSort::Cv => "CV",
            RowSort::Outliers => "outliers",
        }
    }
    fn next(self) -> RowSort {
        match self {
            RowSort::Program => RowSort::Median,
            RowSort::Median => RowSort::Cv,
            RowSort::Cv => RowSort::Outliers,
            RowSort::Outliers => RowSort::Program,
        }
    }
}

/// What the fleet's loading thread answers.
pub type FleetResult = Result<Box<Fleet>, String>;

/// A list's selection and scroll position.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cursor {
    pub selected: usize,
    pub offset: usize,
}

impl Cursor {
    fn go(&mut self, cmd: Command, len: usize, page: usize) -> bool {
        let before = self.selected;
        let last = len.saturating_sub(1);
        self.selected = match cmd {
            Command::Down => (self.selected + 1).min(last),
            Command::Up => self.selected.saturating_sub(1),
            Command::PageDown => (self.selected + page.max(1)).min(last),
            Command::PageUp => self.selected.saturating_sub(page.max(1)),
            Command::Top => 0,
            Command::Bottom => last,
            _ => self.selected,
        };
        self.selected != before
    }

    /// Keep the selection within `rows` lines from `offset`.
    pub fn fit(&mut self, len: usize, rows: usize) {
        self.selected = self.selected.min(len.saturating_sub(1));
        let rows = rows.max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + rows {
            self.offset = self.selected + 1 - rows;
        }
        self.offset = self.offset.min(len.saturating_sub(rows));
    }
}

#[derive(Debug, Clone)]
pub struct FleetView {
    /// None while the fleet is searched and loaded.
    pub fleet: Option<Box<Fleet>>,
    /// The paths searched (for the loading message and the header).
    pub paths: String,
    /// The search failed (nothing found, an unreadable folder): the one-line message.
    pub failed: Option<String>,
    /// How Enter loads a profile (as the fleet loaded it).
    pub warmup: Warmup,
    pub no_log: bool,
    /// `--etrecord` / `--program`, as the fleet loaded them.
    pub model: crate::profile::ModelFileArgs,
    /// `--max-input-size` / `--time-unit`, as the fleet loaded them.
    pub read: crate::profile::ReadOptions,
    /// Metadata keys shown as columns (every profile's, first seen first; not `mtime`).
    pub meta_keys: Vec<String>,
    pub focus: FleetPane,
    pub profile_sort: ProfileSort,
    pub row_sort: RowSort,
    pub reverse: bool,
    pub profile_filter: Input,
    pub row_filter: Input,
    /// A filter is being typed (`/`): the focused pane's.
    pub filter_editing: bool,
    /// Indices into `Fleet::profiles`, in display order.
    pub profiles: Vec<usize>,
    pub profile_cursor: Cursor,
    /// The group of the selected profile (index into `Fleet::groups`).
    pub group: Option<usize>,
    /// Indices into the group's rows, in display order.
    pub rows: Vec<usize>,
    pub row_cursor: Cursor,
    /// Lines each list showed in the last frame (for paging; set by the renderer).
    pub pages: (usize, usize),
}

impl FleetView {
    /// The view while `paths` load.
    pub fn loading(paths: String, warmup: Warmup, no_log: bool) -> FleetView {
        FleetView {
            fleet: None,
            paths,
            failed: None,
            warmup,
            no_log,
            model: crate::profile::ModelFileArgs::default(),
            read: crate::profile::ReadOptions::default(),
            meta_keys: Vec::new(),
            focus: FleetPane::Profiles,
            profile_sort: ProfileSort::Found,
            row_sort: RowSort::Program,
            reverse: false,
            profile_filter: Input::default(),
            row_filter: Input::default(),
            filter_editing: false,
            profiles: Vec::new(),
            profile_cursor: Cursor::default(),
            group: None,
            rows: Vec::new(),
            row_cursor: Cursor::default(),
            pages: (10, 10),
        }
    }

    /// The loading thread's answer.
    pub fn loaded(&mut self, result: FleetResult) {
        match result {
            Ok(fleet) => {
                let mut keys: Vec<String> = Vec::new();
                for p in &fleet.profiles {
                    for k in p.meta.keys() {
                        if k != "mtime" && !keys.contains(k) {
                            keys.push(k.clone());
                        }
                    }
                }
                self.meta_keys = keys;
                self.fleet = Some(fleet);
                self.refresh_profiles();
            }
            Err(message) => self.failed = Some(message),
        }
    }

    pub fn selected_profile(&self) -> Option<usize> {
        self.profiles.get(self.profile_cursor.selected).copied()
    }

    pub fn current_group(&self) -> Option<&Group> {
        let fleet = self.fleet.as_ref()?;
        fleet.groups.get(self.group?)
    }

    pub fn selected_row(&self) -> Option<&GroupRow> {
        let g = self.current_group()?;
        g.rows.get(*self.rows.get(self.row_cursor.selected)?)
    }

    /// The text a pane's filter is typed into.
    pub fn filter(&self, pane: FleetPane) -> &Input {
        match pane {
            FleetPane::Profiles => &self.profile_filter,
            FleetPane::Rows => &self.row_filter,
        }
    }

    fn filter_mut(&mut self) -> &mut Input {
        match self.focus {
            FleetPane::Profiles => &mut self.profile_filter,
            FleetPane::Rows => &mut self.row_filter,
        }
    }

    /// Rebuild the profiles list, keeping the selected profile when it stays listed.
    fn refresh_profiles(&mut self) {
        let keep = self.selected_profile();
        let Some(fleet) = &self.fleet else { return };
        let needle = self.profile_filter.value().to_lowercase();
        let mut list: Vec<usize> = (0..fleet.profiles.len())
            .filter(|&i| needle.is_empty() || profile_text(&fleet.profiles[i]).contains(&needle))
            .collect();
        let found: Vec<usize> = fleet
            .groups
            .iter()
            .flat_map(|g| g.members.clone())
            .collect();
        let rank = |i: usize| found.iter().position(|&m| m == i).unwrap_or(usize::MAX);
        let ps = &fleet.profiles;
        match self.profile_sort {
            // Group members first, in each group's order (the `--order` order), then the
            // profiles of no group (failed loads) as found.
            ProfileSort::Found => list.sort_by_key(|&i| (rank(i), i)),
            ProfileSort::Median => list.sort_by(|&a, &b| {
                let (x, y) = (total_median(&ps[a]), total_median(&ps[b]));
                y.unwrap_or(f64::NEG_INFINITY)
                    .total_cmp(&x.unwrap_or(f64::NEG_INFINITY))
                    .then(a.cmp(&b))
            }),
            ProfileSort::Id => list.sort_by(|&a, &b| natural_cmp(&ps[a].id, &ps[b].id)),
            ProfileSort::Errors => list.sort_by_key(|&i| (ps[i].error.is_none(), rank(i), i)),
        }
        if self.reverse && self.focus == FleetPane::Profiles {
            list.reverse();
        }
        self.profiles = list;
        self.profile_cursor.selected = keep
            .and_then(|k| self.profiles.iter().position(|&i| i == k))
            .unwrap_or(0);
        self.refresh_rows();
    }

    /// The selected profile's group and its rows (keeping the selected row by path).
    fn refresh_rows(&mut self) {
        let keep = self.selected_row().map(|r| r.path.clone());
        let Some(fleet) = &self.fleet else { return };
        self.group = self
            .selected_profile()
            .and_then(|p| fleet.groups.iter().position(|g| g.members.contains(&p)));
        let Some(g) = self.group.and_then(|i| fleet.groups.get(i)) else {
            self.rows.clear();
            return;
        };
        let needle = self.row_filter.value().to_lowercase();
        let mut rows: Vec<usize> = (0..g.rows.len())
            .filter(|&i| needle.is_empty() || g.rows[i].name.to_lowercase().contains(&needle))
            .collect();
        let r = &g.rows;
        match self.row_sort {
            RowSort::Program => {}
            RowSort::Median => rows.sort_by(|&a, &b| {
                r[b].median_of_medians
                    .total_cmp(&r[a].median_of_medians)
                    .then(a.cmp(&b))
            }),
            RowSort::Cv => rows.sort_by(|&a, &b| {
                let cv = |i: usize| r[i].cv.unwrap_or(f64::NEG_INFINITY);
                cv(b).total_cmp(&cv(a)).then(a.cmp(&b))
            }),
            RowSort::Outliers => rows.sort_by_key(|&i| (std::cmp::Reverse(r[i].outliers.len()), i)),
        }
        if self.reverse && self.focus == FleetPane::Rows {
            rows.reverse();
        }
        self.row_cursor.selected = keep
            .and_then(|k| rows.iter().position(|&i| r[i].path == k))
            .unwrap_or(0);
        self.rows = rows;
    }

    /// A key of the fleet's table (or of its filter's text field).
    pub fn command(&mut self, cmd: Command) -> Vec<Step> {
        use Command as K;
        if self.fleet.is_none() {
            return match cmd {
                K::Back => vec![Step::Pop],
                K::Quit => vec![Step::Quit],
                _ => vec![Step::Notice("the fleet is still loading".into())],
            };
        }
        match cmd {
            K::Up | K::Down | K::PageUp | K::PageDown | K::Top | K::Bottom => match self.focus {
                FleetPane::Profiles => {
                    let n = self.profiles.len();
                    if self.profile_cursor.go(cmd, n, self.pages.0) {
                        self.refresh_rows();
                    }
                }
                FleetPane::Rows => {
                    let n = self.rows.len();
                    self.row_cursor.go(cmd, n, self.pages.1);
                }
            },
            K::NextPane | K::PrevPane => {
                self.focus = match self.focus {
                    FleetPane::Profiles => FleetPane::Rows,
                    FleetPane::Rows => FleetPane::Profiles,
                };
                self.reverse = false;
            }
            K::Enter => return self.open_selected(),
            K::CompareBaseline => return self.compare_selected(),
            K::SortNext => {
                match self.focus {
                    FleetPane::Profiles => self.profile_sort = self.profile_sort.next(),
                    FleetPane::Rows => self.row_sort = self.row_sort.next(),
                }
                self.reverse = false;
                self.refresh_profiles();
            }
            K::SortReverse => {
                self.reverse = !self.reverse;
                self.refresh_profiles();
            }
            K::StartFilter => self.filter_editing = true,
            K::FilterEdit(req) => {
                self.filter_mut().handle(req);
                self.refresh_profiles();
            }
            K::FilterAccept => self.filter_editing = false,
            K::FilterCancel => {
                self.filter_editing = false;
                self.filter_mut().reset();
                self.refresh_profiles();
            }
            K::Back => {
                if !self.filter(self.focus).value().is_empty() {
                    self.filter_mut().reset();
                    self.refresh_profiles();
                } else if self.focus == FleetPane::Rows {
                    self.focus = FleetPane::Profiles;
                } else {
                    return vec![Step::Pop];
                }
            }
            K::Quit => return vec![Step::Quit],
            _ => {}
        }
        Vec::new()
    }

    /// Enter: the selected profile in the explorer, loaded as the fleet loaded it.
    fn open_selected(&self) -> Vec<Step> {
        let (Some(fleet), Some(i)) = (&self.fleet, self.selected_profile()) else {
            return Vec::new();
        };
        let p = &fleet.profiles[i];
        if let Some(e) = &p.error {
            return vec![Step::Notice(format!("{}: {e}", p.id))];
        }
        let mut request = ProfileRequest::new(std::path::PathBuf::from(&p.path), None, 0)
            .with_warmup(self.warmup)
            .with_model_files(self.model.clone())
            .with_read_options(self.read);
        if self.no_log {
            request = request.without_log();
        }
        vec![Step::OpenProfile(request)]
    }

    /// `d`: the selected profile against its group's median profile.
    fn compare_selected(&self) -> Vec<Step> {
        let (Some(fleet), Some(i)) = (&self.fleet, self.selected_profile()) else {
            return Vec::new();
        };
        let Some(g) = self.current_group() else {
            let p = &fleet.profiles[i];
            return vec![Step::Notice(format!(
                "{} did not load: no group to compare it with",
                p.id
            ))];
        };
        match median_profile(fleet, g) {
            Some(m) if m == i => vec![Step::Notice(format!(
                "{} is the median profile of its group: nothing to compare it with",
                fleet.profiles[i].id
            ))],
            Some(m) => vec![Step::CompareProfiles { a: m, b: i }],
            None => vec![Step::Notice("no median profile in this group".into())],
        }
    }

    /// Profile `a` against profile `b` and back (the compare view's two directions).
    pub fn comparison(&self, a: usize, b: usize) -> Option<(Comparison, Comparison)> {
        let fleet = self.fleet.as_ref()?;
        let (pa, pb) = (fleet.profiles.get(a)?, fleet.profiles.get(b)?);
        let (mut ta, tb) = (row_tree(pa), row_tree(pb));
        ta.source = format!("{} (median profile)", pa.id);
        let opts = CompareOptions {
            alpha: fleet.options.alpha,
            ..CompareOptions::default()
        };
        Some((compare(&ta, &tb, &opts), compare(&tb, &ta, &opts)))
    }

    /// Whether `profile` is an outlier of the selected row.
    pub fn is_outlier(&self, profile: usize) -> bool {
        self.selected_row()
            .is_some_and(|r| r.outliers.iter().any(|o| o.profile == profile))
    }
}

/// What the profiles filter searches: id, path, metadata values, model, error.
fn profile_text(p: &FleetProfile) -> String {
    let mut s = format!("{} {}", p.id, p.path);
    for v in p.meta.values() {
        s.push(' ');
        s.push_str(&crate::fleet::value_text(v));
    }
    for extra in [&p.model, &p.error].into_iter().flatten() {
        s.push(' ');
        s.push_str(extra);
    }
    s.to_lowercase()
}

/// The `--order` trend of a row: each member's median, in the group's order, and where
/// the change (if any) starts in that sequence.
pub fn trend(group: &Group, row: &GroupRow) -> (Vec<f64>, Option<usize>) {
    let mut seq: Vec<(usize, f64)> = Vec::with_capacity(row.medians.len());
    for &m in &group.members {
        if let Some(&(_, v)) = row.medians.iter().find(|(i, _)| *i == m) {
            seq.push((m, v));
        }
    }
    let at = row
        .change
        .as_ref()
        .and_then(|c| seq.iter().position(|(i, _)| *i == c.at));
    (seq.into_iter().map(|(_, v)| v).collect(), at)
}

/// Typing into a filter from a key (for tests and the shell).
pub fn insert(c: char) -> Command {
    Command::FilterEdit(InputRequest::InsertChar(c))
}
