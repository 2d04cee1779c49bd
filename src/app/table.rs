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
    Inputs,
    Outputs,
}

impl Column {
    /// Display order; columns that do not fit are dropped from the end of this list.
    pub const ALL: [Column; 11] = [
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
            Column::Inputs => "Input shapes",
            Column::Outputs => "Output shapes",
        }
    }

    /// Numbers read best largest first.
    pub fn default_descending(self) -> bool {
        !matches!(
            self,
            Column::Name | Column::Delegate | Column::Step | Column::Inputs | Column::Outputs
        )
    }

    pub fn next(self) -> Column {
        let i = Column::ALL.iter().position(|c| *c == self).unwrap_or(0);
        Column::ALL[(i + 1) % Column::ALL.len()]
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
        )
    }
}

/// Width of each shown column for a table `width` cells wide (one space between
/// columns). The name column takes what is left up to its content; columns that do not
/// fit at their minimum width are dropped from the right.
pub fn column_widths(width: u16, longest_name: usize, longest_step: usize) -> Vec<(Column, u16)> {
    let fixed = |c: Column| -> u16 {
        match c {
            Column::Name => 0,
            Column::Delegate => 5,
            Column::Step => longest_step.clamp(4, 24) as u16,
            Column::Count => 5,
            Column::Median | Column::Min | Column::Max | Column::P90 => 9,
            Column::Share => 6,
            Column::Inputs => 22,
            Column::Outputs => 14,
        }
    };
    let name_min: u16 = 16;
    let name_want = (longest_name.max(8) as u16).min(42);
    let mut cols: Vec<(Column, u16)> = vec![(Column::Name, name_min.min(width))];
    let mut used = name_min.min(width);
    for c in Column::ALL.iter().skip(1) {
        let w = fixed(*c);
        if used + 1 + w > width {
            break;
        }
        used += 1 + w;
        cols.push((*c, w));
    }
    // Give the rest to the name column (up to its content), then to the last column.
    let spare = width.saturating_sub(used);
    let grow = spare.min(name_want.saturating_sub(name_min));
    cols[0].1 += grow;
    if let Some(last) = cols.last_mut() {
        if last.0 == Column::Inputs || last.0 == Column::Outputs || last.0 == Column::Step {
            last.1 += spare - grow;
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
        Column::Inputs => a.input_shapes.cmp(&b.input_shapes),
        Column::Outputs => a.output_shapes.cmp(&b.output_shapes),
    }
}

/// Rows (indices into `rows`) in `scope` (None = all) whose name contains `filter`
/// (case-insensitive), sorted by `column` (stable; ties keep profile order).
pub fn visible_rows(
    rows: &[OpRow],
    scope: Option<usize>,
    filter: &str,
    column: Column,
    descending: bool,
) -> Vec<usize> {
    let needle = filter.to_lowercase();
    let mut out: Vec<usize> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| scope.is_none() || r.scope == scope)
        .filter(|(_, r)| needle.is_empty() || r.name.to_lowercase().contains(&needle))
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
