//! The operator table's columns: names, sort keys, natural directions, display order of
//! each source kind and the order they leave a narrow table in. Plain data shared by the
//! view model (`data`), the table layout (`table`) and the key tables (`keymap`).

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
    /// Achieved GFLOP/s at the median (operators whose shapes give a FLOP count).
    Gflops,
    /// Achieved GB/s at the median (operators whose shapes and type give a byte count).
    Gbps,
    /// Share of the attainable rate on the roofline and the bound (`--peak` given).
    Peak,
}

/// Every column, for key lookups.
pub const ALL_COLUMNS: [Column; 18] = [
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
    Column::Gflops,
    Column::Gbps,
    Column::Peak,
];

/// Columns leave a table too narrow for all of them in this order (first leaves first).
/// The name and the sorted column never leave.
pub const DROP_ORDER: [Column; 17] = [
    Column::Outputs,
    Column::Dtypes,
    // The rates before the input shapes (#9: the shapes whole at 160 columns).
    Column::Peak,
    Column::Gbps,
    Column::Gflops,
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

/// `all` without `drop` (which it holds once): one list of columns for two tables.
const fn without<const N: usize, const M: usize>(all: [Column; N], drop: Column) -> [Column; M] {
    let mut out = [Column::Name; M];
    let (mut i, mut k) = (0, 0);
    while i < N {
        if all[i] as u8 != drop as u8 {
            out[k] = all[i];
            k += 1;
        }
        i += 1;
    }
    assert!(k == M, "the dropped column is in the list once");
    out
}

impl Column {
    /// Display order for ETDump profiles: the roofline's without its column.
    pub const ETDUMP: [Column; 14] = without(Column::ETDUMP_PEAK, Column::Peak);

    /// ETDump columns with the roofline's (`--peak` given).
    pub const ETDUMP_PEAK: [Column; 15] = [
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
        Column::Gflops,
        Column::Gbps,
        Column::Peak,
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
            // Every letter of `GFLOP/s` sorts another column: V.
            Column::Gflops => "[V]GFLOP/s",
            Column::Gbps => "G[B]/s",
            Column::Peak => "%pea[k]",
        }
    }

    /// The title in a table of a trace (`trace`) or a dump: a trace's median is per call
    /// and its self time a total over the calls, and the titles say so.
    pub fn title_in(self, trace: bool) -> &'static str {
        match self {
            Column::Median if trace => "[M]edian (per call)",
            Column::SelfTime if trace => "Sel[f] (total)",
            c => c.title(),
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
            Column::Gflops => "GFLOP/s",
            Column::Gbps => "GB/s",
            Column::Peak => "%peak",
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
                | Column::Gflops
                | Column::Gbps
                | Column::Peak
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
