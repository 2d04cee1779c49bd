//! Operator table columns, sorting and filtering: pure functions over `OpRow`s.

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
    Share,
    /// Total self time (traces: inclusive minus direct children).
    SelfTime,
    Inputs,
    Outputs,
    /// Input dtypes (traces recorded with shapes).
    Dtypes,
}

impl Column {
    /// Display order for ETDump profiles; columns that do not fit are dropped from the
    /// end of this list.
    pub const ETDUMP: [Column; 11] = [
        Column::Name,
        Column::Delegate,
        Column::Step,
        Column::Count,
        Column::Median,
        Column::Min,
        Column::Max,
        Column::P90,
        Column::Share,
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
        Column::Share,
        Column::SelfTime,
        Column::Inputs,
        Column::Dtypes,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Column::Name => "Operator",
            Column::Delegate => "Deleg",
            Column::Step => "Step",
            Column::Count => "Count",
            Column::Median => "Median",
            Column::Min => "Min",
            Column::Max => "Max",
            Column::P90 => "P90",
            Column::Share => "Share",
            Column::SelfTime => "Self",
            Column::Inputs => "Input shapes",
            Column::Outputs => "Output shapes",
            Column::Dtypes => "Dtypes",
        }
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
                | Column::SelfTime
        )
    }
}

/// Width of each shown column for a table `width` cells wide (one space between
/// columns). The name column gets its content width (16..=33 cells, enough for `Fully Connected (NC, F32) GEMM #13`) as long as the core
/// columns (delegate, step, count, median) still fit; after that, columns that do not fit
/// whole are dropped from the right, never squashed.
pub fn column_widths(
    width: u16,
    longest_name: usize,
    longest_step: usize,
    columns: &[Column],
) -> Vec<(Column, u16)> {
    let fixed = |c: Column| -> u16 {
        match c {
            Column::Name => 0,
            Column::Delegate => 5,
            Column::Step => longest_step.clamp(4, 21) as u16,
            Column::Count => 5,
            Column::Median | Column::Min | Column::Max | Column::P90 => 8,
            Column::Share => 6,
            Column::SelfTime => 8,
            Column::Inputs => 22,
            Column::Outputs => 14,
            Column::Dtypes => 16,
        }
    };
    const NAME_MIN: u16 = 16;
    let name_want = (longest_name as u16).clamp(NAME_MIN, 33);
    let core: u16 = [
        Column::Delegate,
        Column::Step,
        Column::Count,
        Column::Median,
    ]
    .iter()
    .filter(|c| columns.contains(c))
    .map(|c| fixed(*c) + 1)
    .sum();
    let name = name_want
        .min(width.saturating_sub(core).max(NAME_MIN))
        .min(width);
    let mut cols: Vec<(Column, u16)> = vec![(Column::Name, name)];
    let mut used = name;
    for c in columns.iter().filter(|c| **c != Column::Name) {
        let w = fixed(*c);
        if used + 1 + w > width {
            break;
        }
        used += 1 + w;
        cols.push((*c, w));
    }
    // Shapes are long: the last shapes column takes the rest of the line.
    if let Some(last) = cols.last_mut() {
        if matches!(last.0, Column::Inputs | Column::Outputs | Column::Dtypes) {
            last.1 += width - used;
        }
    }
    cols
}

fn cmp_f64(a: f64, b: f64) -> Ordering {
    a.total_cmp(&b)
}

fn compare(a: &OpRow, b: &OpRow, column: Column) -> Ordering {
    match column {
        Column::Name => a.name.cmp(&b.name),
        Column::Delegate => a.scope.cmp(&b.scope),
        Column::Step => a.step.cmp(&b.step),
        Column::Count => a.stats.count.cmp(&b.stats.count),
        Column::Median => cmp_f64(a.stats.median, b.stats.median),
        Column::Min => cmp_f64(a.stats.min, b.stats.min),
        Column::Max => cmp_f64(a.stats.max, b.stats.max),
        Column::P90 => cmp_f64(a.stats.p90, b.stats.p90),
        Column::Share => cmp_f64(a.share, b.share),
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
mod tests {
    use super::*;

    fn names(cols: &[(Column, u16)]) -> Vec<Column> {
        cols.iter().map(|c| c.0).collect()
    }

    #[test]
    fn columns_drop_from_the_right_and_never_overflow() {
        use Column::*;
        // Core columns: delegate 5+1, step 21+1 (capped), count 5+1, median 8+1 = 43.
        // 78 cells: name at its content width 33; Min (9 more) would make 85.
        let c = column_widths(78, 33, 26, &Column::ETDUMP);
        assert_eq!(names(&c), [Name, Delegate, Step, Count, Median]);
        assert_eq!(c[0].1, 33);
        // 70 cells: the name gives way to the core columns (70 - 43 = 27).
        let c = column_widths(70, 33, 26, &Column::ETDUMP);
        assert_eq!(c[0].1, 27);
        assert_eq!(names(&c).len(), 5);
        // 110 cells: 33 + 43 + Min, Max, P90 (27) + Share (7) = 110 exactly.
        let c = column_widths(110, 33, 26, &Column::ETDUMP);
        assert_eq!(
            names(&c),
            [Name, Delegate, Step, Count, Median, Min, Max, P90, Share]
        );
        // Very wide: everything, the outputs column takes the rest.
        let c = column_widths(200, 33, 26, &Column::ETDUMP);
        assert_eq!(c.len(), 11);
        for w in [0u16, 5, 20, 40, 78, 110, 158, 200] {
            let c = column_widths(w, 60, 60, &Column::ETDUMP);
            let total: u16 = c.iter().map(|x| x.1).sum::<u16>() + c.len() as u16 - 1;
            assert!(total <= w.max(16), "width {w}: {c:?}");
        }
    }
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
