//! Operator table columns, their layout, sorting and filtering: pure functions over
//! `OpRow`s.

use std::cmp::Ordering;
use unicode_width::UnicodeWidthStr;

pub use super::column::{Column, ALL_COLUMNS, DROP_ORDER};
use super::data::OpRow;

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
                let title = c.title().width() as u16 + u16::from(c == sort);
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
        // A group without per-run sums: the sum of its instances' medians, said so.
        Column::Median if row.summed_median.is_some() => format!("Σ {}", time(row.shown_median())),
        Column::Median => time(row.shown_median()),
        Column::Min => time(s.min()),
        Column::Max => time(s.max()),
        Column::P90 => time(s.p90()),
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
        Column::Gflops => rate_text(row.rates.gflops),
        Column::Gbps => rate_text(row.rates.gbps),
        Column::Peak => row
            .roofline
            .map(roofline_text)
            .unwrap_or_else(|| "-".into()),
    }
}

/// Rates read the same in the table, the detail pane and the flame graph.
pub use crate::profile::efficiency::rate_text;

/// `41% mem`, `12% comp`: the share of the attainable rate and the roof that bounds it.
pub fn roofline_text(r: crate::profile::efficiency::Roofline) -> String {
    use crate::profile::efficiency::Bound;
    let pct = r.peak_share * 100.0;
    let pct = if pct < 9.95 {
        format!("{pct:.1}%")
    } else {
        format!("{pct:.0}%")
    };
    let bound = match r.bound {
        Bound::Compute => "comp",
        Bound::Memory => "mem",
    };
    format!("{pct} {bound}")
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
    if tail.len() < step.len() && tail.width() < width {
        return format!("…{tail}");
    }
    step.to_string()
}

/// Per row, the widths of its `MEASURED` text columns and of its step's `…tail` (last),
/// counted once per profile so that a filter keystroke only takes maxima.
pub type RowWidths = [u16; MEASURED.len() + 1];

pub fn row_widths(rows: &[OpRow]) -> Vec<RowWidths> {
    // Display width (a CJK name takes two cells a character), as the row is drawn.
    let n = |s: &str| crate::escape::display_width(s).min(u16::MAX as usize) as u16;
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
    trace: bool,
) -> u16 {
    let title = column.title_in(trace).width() as u16 + u16::from(sorted);
    let content = match text.iter().find(|(c, _)| *c == column) {
        Some((_, w)) => *w,
        None => window
            .iter()
            .filter_map(|&i| rows.get(i))
            .map(|r| cell(r, column).width() as u16)
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
        Column::Min => cmp_f64(a.stats.min(), b.stats.min()),
        Column::Max => cmp_f64(a.stats.max(), b.stats.max()),
        Column::P90 => cmp_f64(a.stats.p90(), b.stats.p90()),
        Column::Share | Column::SelfShare => cmp_f64(a.share, b.share),
        Column::ShareMethod => cmp_f64(
            a.share_method.unwrap_or(-1.0),
            b.share_method.unwrap_or(-1.0),
        ),
        Column::SelfTime => cmp_f64(a.self_total.unwrap_or(0.0), b.self_total.unwrap_or(0.0)),
        Column::Inputs => a.input_shapes.cmp(&b.input_shapes),
        Column::Outputs => a.output_shapes.cmp(&b.output_shapes),
        Column::Dtypes => a.dtypes.cmp(&b.dtypes),
        Column::Gflops => cmp_f64(
            a.rates.gflops.unwrap_or(-1.0),
            b.rates.gflops.unwrap_or(-1.0),
        ),
        Column::Gbps => cmp_f64(a.rates.gbps.unwrap_or(-1.0), b.rates.gbps.unwrap_or(-1.0)),
        Column::Peak => cmp_f64(
            a.roofline.map_or(-1.0, |r| r.peak_share),
            b.roofline.map_or(-1.0, |r| r.peak_share),
        ),
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
    use crate::app::ExplorerData;
    use cpuprof_testkit::sample;

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
mod layout_tests;
