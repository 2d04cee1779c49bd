//! Operator table columns, their layout, sorting and filtering: pure functions over
//! `OpRow`s.

use std::cmp::Ordering;

use super::data::OpRow;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Column {
    Name,
    Delegate,
    Step,
    Count,
    Median,
    Min,
    Max,
    P90,
    /// Share of the row's parent (the plan step, the delegate or the instruction).
    Share,
    /// Share of `Method::execute` (ETDump).
    ShareMethod,
    /// Share of all self time (traces).
    SelfShare,
    /// Total self time (traces: inclusive minus direct children).
    SelfTime,
    Inputs,
    Outputs,
    /// Input dtypes (traces recorded with shapes).
    Dtypes,
}

/// Every column, for key lookups.
pub const ALL_COLUMNS: [Column; 15] = [
    Column::Name,
    Column::Delegate,
    Column::Step,
    Column::Count,
    Column::Median,
    Column::Min,
    Column::Max,
    Column::P90,
    Column::Share,
    Column::ShareMethod,
    Column::SelfShare,
    Column::SelfTime,
    Column::Inputs,
    Column::Outputs,
    Column::Dtypes,
];

/// Columns leave a table too narrow for all of them in this order (first leaves first).
/// The name and the sorted column never leave.
pub const DROP_ORDER: [Column; 14] = [
    Column::Outputs,
    Column::Dtypes,
    Column::Inputs,
    Column::Step,
    Column::Min,
    Column::Max,
    Column::SelfTime,
    Column::P90,
    Column::Count,
    Column::Share,
    Column::SelfShare,
    Column::Delegate,
    Column::ShareMethod,
    Column::Median,
];

impl Column {
    /// Display order for ETDump profiles.
    pub const ETDUMP: [Column; 12] = [
        Column::Name,
        Column::Delegate,
        Column::Step,
        Column::Count,
        Column::Median,
        Column::Min,
        Column::Max,
        Column::P90,
        Column::Share,
        Column::ShareMethod,
        Column::Inputs,
        Column::Outputs,
    ];

    /// Display order for PyTorch traces (no delegates, steps or output shapes; self time
    /// and dtypes instead).
    pub const TRACE: [Column; 10] = [
        Column::Name,
        Column::Count,
        Column::Median,
        Column::Min,
        Column::Max,
        Column::P90,
        Column::SelfTime,
        Column::SelfShare,
        Column::Inputs,
        Column::Dtypes,
    ];

    /// The title, with its sort key in brackets (`[M]edian`: Shift-M sorts by it).
    pub fn title(self) -> &'static str {
        match self {
            Column::Name => "[O]perator",
            Column::Delegate => "[D]el",
            Column::Step => "S[t]ep",
            Column::Count => "[C]ount",
            Column::Median => "[M]edian",
            Column::Min => "M[i]n",
            Column::Max => "Ma[x]",
            Column::P90 => "[P]90",
            Column::Share => "%pa[r]ent",
            Column::ShareMethod => "%met[h]od",
            Column::SelfShare => "%se[l]f",
            Column::SelfTime => "Sel[f]",
            Column::Inputs => "Inp[u]t shapes",
            Column::Outputs => "Output sh[a]pes",
            Column::Dtypes => "Dt[y]pes",
        }
    }

    /// The title without its key mark (`Median`), for the footer and messages.
    pub fn label(self) -> &'static str {
        match self {
            Column::Name => "Operator",
            Column::Delegate => "Delegate",
            Column::Step => "Step",
            Column::Count => "Count",
            Column::Median => "Median",
            Column::Min => "Min",
            Column::Max => "Max",
            Column::P90 => "P90",
            Column::Share => "%parent",
            Column::ShareMethod => "%method",
            Column::SelfShare => "%self",
            Column::SelfTime => "Self",
            Column::Inputs => "Input shapes",
            Column::Outputs => "Output shapes",
            Column::Dtypes => "Dtypes",
        }
    }

    /// The key that sorts by this column: the bracketed letter of the title, shifted.
    pub fn key(self) -> char {
        let t = self.title();
        let i = t.find('[').map(|i| i + 1).unwrap_or(0);
        t[i..]
            .chars()
            .next()
            .map(|c| c.to_ascii_uppercase())
            .unwrap_or('?')
    }

    /// The column sorted by `key` (a shifted letter), if any.
    pub fn for_key(key: char) -> Option<Column> {
        ALL_COLUMNS.iter().copied().find(|c| c.key() == key)
    }

    /// Numbers read best largest first.
    pub fn default_descending(self) -> bool {
        !matches!(
            self,
            Column::Name
                | Column::Delegate
                | Column::Step
                | Column::Inputs
                | Column::Outputs
                | Column::Dtypes
        )
    }

    /// The column after this one among `columns` (wrapping).
    pub fn next(self, columns: &[Column]) -> Column {
        let i = columns.iter().position(|c| *c == self).unwrap_or(0);
        columns[(i + 1) % columns.len()]
    }

    pub fn right_aligned(self) -> bool {
        matches!(
            self,
            Column::Count
                | Column::Median
                | Column::Min
                | Column::Max
                | Column::P90
                | Column::Share
                | Column::ShareMethod
                | Column::SelfShare
                | Column::SelfTime
        )
    }

    /// Text columns share what the numbers leave: they can be cut (down to `FLEX_MIN`).
    pub fn flexible(self) -> bool {
        matches!(
            self,
            Column::Name | Column::Step | Column::Inputs | Column::Outputs | Column::Dtypes
        )
    }
}

/// A cut text column keeps at least this many cells (or its whole content if shorter).
pub const FLEX_MIN: u16 = 12;

/// Lay out a table `width` cells wide (one space between columns). `natural(c)` is the
/// width column `c` needs for its title and the rows shown. `skip` columns (after the
/// name) are scrolled off to the left.
///
/// Numbers get their natural width. The name comes first (always shown, always first)
/// and keeps its natural width while it fits in half the table; step and shapes share
/// what is left, in display order. When the minimum widths do not fit, columns leave in
/// `DROP_ORDER`, never the name and never the `sort` column.
pub fn layout(
    width: u16,
    columns: &[Column],
    natural: impl Fn(Column) -> u16,
    cut_min: impl Fn(Column) -> u16,
    sort: Column,
    skip: usize,
) -> Vec<(Column, u16)> {
    let nat = |c: Column| natural(c).max(1);
    let name_nat = nat(Column::Name);
    let name_min = name_nat.min((width / 2).max(1));
    let min_w = |c: Column| -> u16 {
        match c {
            Column::Name => name_min,
            // A cut text column still shows its whole title.
            c if c.flexible() => {
                let title = c.title().chars().count() as u16 + u16::from(c == sort);
                nat(c).min(cut_min(c).max(title))
            }
            c => nat(c),
        }
    };
    // Name first, then the columns after the horizontal scroll (the sort column is never
    // scrolled off).
    let mut shown: Vec<Column> = vec![Column::Name];
    let mut skipped = 0;
    for &c in columns.iter().filter(|c| **c != Column::Name) {
        if skipped < skip && c != sort {
            skipped += 1;
            continue;
        }
        shown.push(c);
    }
    let total = |set: &[Column]| -> u32 {
        set.iter().map(|c| min_w(*c) as u32).sum::<u32>() + set.len().saturating_sub(1) as u32
    };
    let candidates = shown.clone();
    let mut left = Vec::new();
    for leaving in DROP_ORDER {
        if total(&shown) <= width as u32 {
            break;
        }
        if leaving != sort && shown.contains(&leaving) {
            shown.retain(|c| *c != leaving);
            left.push(leaving);
        }
    }
    // A column that left early may still fit in the room the later ones freed (the
    // input shapes in the cells a long step could not use): back it comes, in place.
    // Only when the text columns before it (the name, the shapes) can still be whole:
    // the output shapes do not come back at the cost of cutting the input shapes.
    let pos = |c: &Column| candidates.iter().position(|x| x == c);
    for back in left.into_iter().rev() {
        let mut with: Vec<Column> = shown.clone();
        with.push(back);
        with.sort_by_key(pos);
        let owed: u32 = with
            .iter()
            .filter(|c| c.flexible() && **c != Column::Step && pos(c) < pos(&back))
            .map(|c| (nat(*c) as u32).saturating_sub(min_w(*c) as u32))
            .sum();
        if total(&with) + owed <= width as u32 {
            shown = with;
        }
    }
    // Share the rest: the name first; then the shapes and dtypes, in display order; then
    // the step, whole if it can be (a cut step shows its distinguishing tail, which a few
    // more cells do not help). Returns the widths and the cells left over.
    let size = |shown: &[Column]| -> (Vec<(Column, u16)>, u32) {
        let mut widths: Vec<(Column, u16)> = shown.iter().map(|c| (*c, min_w(*c))).collect();
        let mut spare = (width as u32).saturating_sub(total(shown));
        let grow = |w: &mut u16, c: Column, spare: &mut u32, whole_only: bool| {
            let want = (nat(c) as u32).saturating_sub(*w as u32);
            if want == 0 || *spare == 0 || (whole_only && want > *spare) {
                return;
            }
            let more = want.min(*spare);
            *w += more as u16;
            *spare -= more;
        };
        if let Some((c, w)) = widths.first_mut() {
            grow(w, *c, &mut spare, false);
        }
        for (c, w) in widths
            .iter_mut()
            .skip(1)
            .filter(|(c, _)| c.flexible() && *c != Column::Step)
        {
            grow(w, *c, &mut spare, false);
        }
        for (c, w) in widths.iter_mut().filter(|(c, _)| *c == Column::Step) {
            grow(w, *c, &mut spare, true);
        }
        (widths, spare)
    };
    let (mut widths, mut spare) = size(&shown);
    // A cut shapes column is made whole by a less important column leaving (the output
    // shapes give way to the input shapes), when that is enough.
    loop {
        let cut = widths
            .iter()
            .skip(1)
            .find(|(c, w)| c.flexible() && *c != Column::Step && *w < nat(*c));
        let Some(&(cut, _)) = cut else { break };
        let rank = DROP_ORDER.iter().position(|d| *d == cut).unwrap_or(0);
        let Some(&leaving) = DROP_ORDER[..rank]
            .iter()
            .find(|d| **d != sort && shown.contains(d))
        else {
            break;
        };
        let fewer: Vec<Column> = shown.iter().copied().filter(|c| *c != leaving).collect();
        let (w2, s2) = size(&fewer);
        let whole = w2.iter().any(|(c, w)| *c == cut && *w >= nat(cut));
        if !whole {
            break;
        }
        shown = fewer;
        widths = w2;
        spare = s2;
    }
    // A cut step is made whole by min and max leaving, when that is enough: the step
    // says where an operator runs, and the detail pane still shows min and max.
    let step_cut = |widths: &[(Column, u16)]| {
        widths
            .iter()
            .any(|(c, w)| *c == Column::Step && *w < nat(Column::Step))
    };
    if step_cut(&widths) {
        let mut fewer = shown.clone();
        for leaving in [Column::Min, Column::Max] {
            if leaving == sort || !fewer.contains(&leaving) {
                continue;
            }
            fewer.retain(|c| *c != leaving);
            let (w2, s2) = size(&fewer);
            if !step_cut(&w2) {
                shown = fewer;
                widths = w2;
                spare = s2;
                break;
            }
        }
    }
    let used = total(&shown);
    // Room left over spreads the numbers apart (up to 2 more cells each, right-aligned
    // columns only), rather than leaving a blank band at the end of every row.
    let numbers = widths.iter().filter(|(c, _)| c.right_aligned()).count() as u32;
    if numbers > 0 && spare > 0 {
        let each = (spare / numbers).min(2) as u16;
        for (c, w) in widths.iter_mut() {
            if c.right_aligned() {
                *w += each;
            }
        }
    }
    // Still too wide (tiny tables): the name gives way, then the last columns.
    let mut over = used.saturating_sub(width as u32);
    for i in std::iter::once(0).chain((1..widths.len()).rev()) {
        if over == 0 {
            break;
        }
        let cut = (over as u16).min(widths[i].1);
        widths[i].1 -= cut;
        over -= cut as u32;
    }
    // Only the gaps remain: drop empty columns from the end.
    while over > 0 && widths.len() > 1 {
        widths.pop();
        over -= 1;
    }
    widths
}

/// The text of `row` in `column`, as the table shows it (and the copy key copies it).
pub fn cell(row: &OpRow, column: Column) -> String {
    use super::format::{duration_ms, percent};
    use crate::units::{duration_or_below, percent_bound, percent_or_bound, XNNPACK_QUANTUM_MS};
    let s = &row.stats;
    // An XNNPACK operator under the 1 µs clock quantum: `<1 µs`, not a time of 0.
    let time = |ms: f64| {
        duration_or_below(
            ms,
            row.below_resolution.is_some() && ms < XNNPACK_QUANTUM_MS,
        )
    };
    match column {
        Column::Name => row.name.clone(),
        Column::Delegate => row.delegate.clone(),
        Column::Step => row.step.clone(),
        Column::Count if row.instances > 0 => format!("{}×", row.instances),
        // Calls and failures as the tally counts them (a failed call has no duration).
        Column::Count if row.failed > 0 => {
            format!("{} ({} failed)", s.count as u64 + row.failed, row.failed)
        }
        Column::Count => s.count.to_string(),
        Column::Median => time(row.shown_median()),
        Column::Min => time(s.min),
        Column::Max => time(s.max),
        Column::P90 => time(s.p90),
        Column::Share if row.instances > 0 => "-".into(),
        Column::Share => match row.below_resolution {
            Some(parent) => percent_or_bound(row.share, true, XNNPACK_QUANTUM_MS, parent),
            None => percent(row.share),
        },
        Column::SelfShare => percent(row.share),
        // Under the quantum, `share_method` holds the bound (1 µs of the method).
        Column::ShareMethod => match (row.share_method, row.below_resolution) {
            (Some(bound), Some(_)) => percent_bound(bound),
            (Some(x), None) => percent(x),
            (None, _) => "-".into(),
        },
        Column::SelfTime => row.self_total.map(duration_ms).unwrap_or_default(),
        Column::Inputs => row.input_shapes.clone(),
        Column::Outputs => row.output_shapes.clone(),
        Column::Dtypes => row.dtypes.clone(),
    }
}

/// Text columns whose width is measured over every row listed (not only those on
/// screen), so the name column does not change width while scrolling. Only counting
/// characters: cheap even for 100,000 rows.
const MEASURED: [Column; 6] = [
    Column::Name,
    Column::Delegate,
    Column::Step,
    Column::Inputs,
    Column::Outputs,
    Column::Dtypes,
];

/// The part of a step name that tells steps apart: after the provider
/// (`XNNPACK/subgraph:conv2d_10+18` -> `conv2d_10+18`).
pub fn step_tail(step: &str) -> &str {
    step.rsplit_once(':').map(|(_, t)| t).unwrap_or(step)
}

/// A step in a column `width` cells wide that holds whole steps up to `whole` cells:
/// whole if every step fits, else (so all rows read alike) `…` and its tail.
pub fn step_cell(step: &str, width: usize, whole: usize) -> String {
    if whole <= width {
        return step.to_string();
    }
    let tail = step_tail(step);
    if tail.len() < step.len() && tail.chars().count() < width {
        return format!("…{tail}");
    }
    step.to_string()
}

/// Per row, the widths of its `MEASURED` text columns and of its step's `…tail` (last),
/// counted once per profile so that a filter keystroke only takes maxima.
pub type RowWidths = [u16; MEASURED.len() + 1];

pub fn row_widths(rows: &[OpRow]) -> Vec<RowWidths> {
    let n = |s: &str| s.chars().count().min(u16::MAX as usize) as u16;
    rows.iter()
        .map(|r| {
            [
                n(&r.name),
                n(&r.delegate),
                n(&r.step),
                n(&r.input_shapes),
                n(&r.output_shapes),
                n(&r.dtypes),
                n(step_tail(&r.step)).saturating_add(1),
            ]
        })
        .collect()
}

/// The widest content of each text column over `listed` rows, and the longest `…tail`
/// of a step (the narrowest a cut step column may be).
pub fn text_widths(widths: &[RowWidths], listed: &[usize]) -> (Vec<(Column, u16)>, u16) {
    let mut max: RowWidths = [0; MEASURED.len() + 1];
    for w in listed.iter().filter_map(|&i| widths.get(i)) {
        for (m, v) in max.iter_mut().zip(w) {
            *m = (*m).max(*v);
        }
    }
    let cols = MEASURED.iter().copied().zip(max).collect();
    (cols, max[MEASURED.len()])
}

/// The width `column` needs: its title (plus the sort arrow when sorted) and its
/// content, measured over all listed rows for text (`text`) and over the rows on screen
/// (`window`) for numbers.
pub fn natural_width(
    column: Column,
    rows: &[OpRow],
    window: &[usize],
    text: &[(Column, u16)],
    sorted: bool,
) -> u16 {
    let title = column.title().chars().count() as u16 + u16::from(sorted);
    let content = match text.iter().find(|(c, _)| *c == column) {
        Some((_, w)) => *w,
        None => window
            .iter()
            .filter_map(|&i| rows.get(i))
            .map(|r| cell(r, column).chars().count() as u16)
            .max()
            .unwrap_or(0),
    };
    title.max(content)
}

fn cmp_f64(a: f64, b: f64) -> Ordering {
    a.total_cmp(&b)
}

fn compare(a: &OpRow, b: &OpRow, column: Column) -> Ordering {
    match column {
        Column::Name => a.name.cmp(&b.name),
        Column::Delegate => a.scope.cmp(&b.scope),
        Column::Step => a.step.cmp(&b.step),
        Column::Count => (a.instances, a.stats.count).cmp(&(b.instances, b.stats.count)),
        Column::Median => cmp_f64(a.shown_median(), b.shown_median()),
        Column::Min => cmp_f64(a.stats.min, b.stats.min),
        Column::Max => cmp_f64(a.stats.max, b.stats.max),
        Column::P90 => cmp_f64(a.stats.p90, b.stats.p90),
        Column::Share | Column::SelfShare => cmp_f64(a.share, b.share),
        Column::ShareMethod => cmp_f64(
            a.share_method.unwrap_or(-1.0),
            b.share_method.unwrap_or(-1.0),
        ),
        Column::SelfTime => cmp_f64(a.self_total.unwrap_or(0.0), b.self_total.unwrap_or(0.0)),
        Column::Inputs => a.input_shapes.cmp(&b.input_shapes),
        Column::Outputs => a.output_shapes.cmp(&b.output_shapes),
        Column::Dtypes => a.dtypes.cmp(&b.dtypes),
    }
}

/// Rows (indices into `rows`) in `scope` (None = all), sorted by `column` (stable: ties
/// keep profile order).
pub fn sorted_rows(
    rows: &[OpRow],
    scope: Option<usize>,
    column: Column,
    descending: bool,
) -> Vec<usize> {
    let mut out: Vec<usize> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| scope.is_none() || r.scope == scope)
        .map(|(i, _)| i)
        .collect();
    out.sort_by(|&a, &b| {
        let o = compare(&rows[a], &rows[b], column);
        if descending {
            o.reverse()
        } else {
            o
        }
    });
    out
}

/// Lower-cased operator names, built once per load so a filter keystroke only scans.
pub fn search_keys(rows: &[OpRow]) -> Vec<String> {
    rows.iter().map(|r| r.name.to_lowercase()).collect()
}

/// The rows of `sorted` whose name contains `filter`, ignoring case; order kept.
/// `keys` are `search_keys(rows)`.
pub fn filter_rows(keys: &[String], sorted: &[usize], filter: &str) -> Vec<usize> {
    if filter.is_empty() {
        return sorted.to_vec();
    }
    let needle = filter.to_lowercase();
    sorted
        .iter()
        .copied()
        .filter(|&i| keys.get(i).is_some_and(|k| k.contains(&needle)))
        .collect()
}

#[cfg(test)]
mod filter_tests {
    use super::*;
    use crate::app::sample;
    use crate::app::ExplorerData;

    /// Scope, filter and sort in one go.
    fn visible_rows(
        rows: &[OpRow],
        scope: Option<usize>,
        filter: &str,
        column: Column,
        descending: bool,
    ) -> Vec<usize> {
        filter_rows(
            &search_keys(rows),
            &sorted_rows(rows, scope, column, descending),
            filter,
        )
    }

    #[test]
    fn sort_and_filter_by_hand() {
        let d = ExplorerData::from_profile(&sample::profile());
        let names =
            |v: Vec<usize>| -> Vec<String> { v.iter().map(|&i| d.ops[i].name.clone()).collect() };
        // Delegate #4 (scope 1) has two operators; by median ascending: Add, then FC.
        assert_eq!(
            names(visible_rows(&d.ops, Some(1), "", Column::Median, false)),
            ["Add (ND, F32) #1", "Fully Connected (NC, F32) GEMM #1"]
        );
        // "igemm" matches the two convolutions, in name order for Name ascending.
        assert_eq!(
            names(visible_rows(&d.ops, None, "IgEmM", Column::Name, false)),
            [
                "Convolution (NHWC, F32) IGEMM #1",
                "Convolution (NHWC, F32) IGEMM #2"
            ]
        );
        // "native_call" matches the cumsum and mean kernels; "." too (both have one).
        assert_eq!(
            visible_rows(&d.ops, None, "native_call", Column::Count, true).len(),
            2
        );
        assert_eq!(
            visible_rows(&d.ops, None, ".", Column::Count, true).len(),
            2
        );
        // "#1": IGEMM #1, Clamp #1, GEMM #1, Add #1 (the kernels have no number).
        assert_eq!(
            visible_rows(&d.ops, None, "#1", Column::Count, true).len(),
            4
        );
        assert!(visible_rows(&d.ops, None, "zzz", Column::Count, true).is_empty());
        // Non-ASCII needle falls back to full lower-casing without panicking.
        assert!(visible_rows(&d.ops, None, "µ", Column::Count, true).is_empty());
        // Equal counts keep profile order (stable sort).
        let all = visible_rows(&d.ops, None, "", Column::Count, true);
        assert_eq!(all, (0..7).collect::<Vec<_>>());
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;
    use proptest::prelude::*;

    /// Natural widths of a wide_browse-like table: name 46, delegate title 5, step 35,
    /// numbers 7..9, shapes 30 and 15.
    fn demo_natural(c: Column) -> u16 {
        match c {
            Column::Name => 46,
            Column::Delegate => 5,
            Column::Step => 35,
            Column::Count => 7,
            Column::Median => 9,
            Column::Min | Column::Max | Column::P90 => 7,
            Column::Share | Column::ShareMethod => 9,
            Column::Inputs => 30,
            Column::Outputs => 15,
            _ => 6,
        }
    }

    fn total(cols: &[(Column, u16)]) -> u32 {
        cols.iter().map(|c| c.1 as u32).sum::<u32>() + cols.len().saturating_sub(1) as u32
    }

    fn names(cols: &[(Column, u16)]) -> Vec<Column> {
        cols.iter().map(|c| c.0).collect()
    }

    #[test]
    fn everything_at_natural_width_when_it_fits() {
        // 46+5+35+7+9+7+7+7+9+9+30+15 = 186, plus 11 gaps = 197.
        let c = layout(
            197,
            &Column::ETDUMP,
            demo_natural,
            |_| 12,
            Column::Median,
            0,
        );
        assert_eq!(names(&c), Column::ETDUMP.to_vec());
        for (col, w) in &c {
            assert_eq!(*w, demo_natural(*col), "{col:?}");
        }
        assert_eq!(total(&c), 197);
    }

    #[test]
    fn text_columns_are_cut_before_any_column_leaves() {
        // 158 cells: the minimum widths (step 19, inputs "Inp[u]t shapes" 14, outputs
        // "Output sh[a]pes" 15) make 46+5+19+7+9+7+7+7+9+9+14+15 = 154 + 11 gaps = 165:
        // outputs leave (165 - 16 = 149). Spare 9: step needs 16 to be whole, inputs 16:
        // the shapes (inputs) take the 9 -> 23.
        let c = layout(
            158,
            &Column::ETDUMP,
            demo_natural,
            |c| if c == Column::Step { 19 } else { 12 },
            Column::Median,
            0,
        );
        use Column::*;
        assert_eq!(
            names(&c),
            [
                Name,
                Delegate,
                Step,
                Count,
                Median,
                Min,
                Max,
                P90,
                Share,
                ShareMethod,
                Inputs
            ]
        );
        assert_eq!(c[0].1, 46);
        assert_eq!(c[2].1, 19);
        assert_eq!(c[10].1, 23);
        assert_eq!(total(&c), 158);
    }

    #[test]
    fn columns_leave_in_order_but_never_the_sorted_one() {
        use Column::*;
        // 78 cells (80x24): name gets min(46, 39) = 39 at least.
        let c = layout(78, &Column::ETDUMP, demo_natural, |_| 12, Column::Median, 0);
        assert!(c[0].1 >= 39);
        assert!(!names(&c).contains(&Inputs));
        assert!(!names(&c).contains(&Step));
        assert!(names(&c).contains(&Median));
        // Sorted by Min: Min stays while Max (after it in the drop order) goes.
        let c = layout(78, &Column::ETDUMP, demo_natural, |_| 12, Min, 0);
        assert!(names(&c).contains(&Min), "{c:?}");
        assert!(!names(&c).contains(&Max), "{c:?}");
        // Sorted by input shapes: they stay, cut, with their whole title.
        let c = layout(78, &Column::ETDUMP, demo_natural, |_| 12, Inputs, 0);
        let w = c.iter().find(|x| x.0 == Inputs).map(|x| x.1);
        assert_eq!(w, Some("Inp[u]t shapes".len() as u16 + 1));
    }

    #[test]
    fn a_column_that_left_comes_back_into_room_freed_later() {
        use Column::*;
        // 130 cells, minimum widths as above (165 with everything): outputs leave (149),
        // inputs leave (134), the step leaves (114, spare 16). The step (19 + gap) still
        // does not fit back; the inputs (14 + gap = 15) do: 129, and take the last cell.
        let step19 = |c| if c == Step { 19 } else { 12 };
        let c = layout(130, &Column::ETDUMP, demo_natural, step19, Median, 0);
        assert_eq!(
            names(&c),
            [
                Name,
                Delegate,
                Count,
                Median,
                Min,
                Max,
                P90,
                Share,
                ShareMethod,
                Inputs
            ]
        );
        assert_eq!(c[9].1, 15);
        assert_eq!(total(&c), 130);
    }

    #[test]
    fn output_shapes_leave_rather_than_cut_the_input_shapes() {
        use Column::*;
        // The demo at 160x48 (158 inside), one count for all rows (no Count column),
        // inputs 31 wide. Minimum widths: 46+5+19+9+7+7+7+9+9+14+15 = 147 + 10 gaps = 157:
        // all fit, but the inputs would get 15 of 31. Without the outputs (16 less):
        // 141, spare 17: the inputs take 17 -> 31, whole; the step would keep its tail
        // (19 of 35). Min and max leave too (14 + 2 gaps): 125, spare 33 >= 35 - 19 = 16,
        // so the step is whole: 46+5+35+9+7+9+9+31 = 151 + 7 gaps = 158.
        let nat = |c: Column| match c {
            Inputs => 31,
            c => demo_natural(c),
        };
        let cols: Vec<Column> = Column::ETDUMP
            .iter()
            .copied()
            .filter(|c| *c != Count)
            .collect();
        let step19 = |c| if c == Step { 19 } else { 12 };
        let c = layout(158, &cols, nat, step19, Median, 0);
        assert!(!names(&c).contains(&Outputs), "{c:?}");
        assert!(
            !names(&c).contains(&Min) && !names(&c).contains(&Max),
            "{c:?}"
        );
        assert_eq!(c.iter().find(|x| x.0 == Inputs).map(|x| x.1), Some(31));
        assert_eq!(c.iter().find(|x| x.0 == Step).map(|x| x.1), Some(35));
        assert_eq!(total(&c), 158);
    }

    #[test]
    fn scrolling_right_brings_back_the_columns_that_left() {
        use Column::*;
        let c0 = layout(78, &Column::ETDUMP, demo_natural, |_| 12, Median, 0);
        assert!(!names(&c0).contains(&Outputs));
        // Skip the 9 columns between the name and the inputs: inputs and outputs show.
        let c = layout(78, &Column::ETDUMP, demo_natural, |_| 12, Median, 9);
        assert_eq!(names(&c)[0], Name);
        assert!(
            names(&c).contains(&Median),
            "sorted column never scrolls off"
        );
        assert!(names(&c).contains(&Outputs), "{c:?}");
    }

    fn column_set() -> impl Strategy<Value = (bool, Vec<u16>)> {
        (any::<bool>(), proptest::collection::vec(1u16..80, 15))
    }

    proptest! {
        #[test]
        fn layout_properties(
            width in 0u16..300,
            (etdump, nat) in column_set(),
            sort_i in 0usize..12,
            skip in 0usize..12,
            cut in 1u16..30,
        ) {
            let columns: &[Column] = if etdump { &Column::ETDUMP } else { &Column::TRACE };
            let sort = columns[sort_i % columns.len()];
            let natural = |c: Column| nat[ALL_COLUMNS.iter().position(|x| *x == c).unwrap()];
            let c = layout(width, columns, natural, |_| cut, sort, skip);
            // Widths never exceed the area.
            prop_assert!(total(&c) <= width as u32 || width == 0 && c.len() <= 1, "{c:?}");
            // The name is first and never narrower than min(longest, half the width).
            prop_assert_eq!(c[0].0, Column::Name);
            let name_nat = natural(Column::Name);
            // The sorted column needs its own width plus a gap; below that the name
            // gives way (tiny tables only).
            let sort_room = if sort == Column::Name { 0 } else {
                let t = sort.title().chars().count() as u16 + 1;
                let need = if sort.flexible() { natural(sort).min(cut.max(t)) } else { natural(sort) };
                need as u32 + 1
            };
            if (width as u32) >= (width / 2) as u32 + sort_room {
                prop_assert!(c[0].1 >= name_nat.min(width / 2), "{c:?}");
                // The sorted column is always shown.
                prop_assert!(c.iter().any(|x| x.0 == sort), "{sort:?} {c:?}");
            }
            // No column twice; all from this source.
            for (i, (col, _)) in c.iter().enumerate() {
                prop_assert!(columns.contains(col));
                prop_assert!(!c[..i].iter().any(|x| x.0 == *col));
            }
        }
    }
}
