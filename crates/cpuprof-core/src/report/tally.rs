//! THAPI `iprof`'s tally table (formats.md §5.3), optionally with a self-time column.
//!
//! Layout: title `BACKEND_PYTORCH | <n> Hostnames | <n> Processes | <n> Threads | `, an
//! empty line, the header, one row per op (total time descending, name as tie-break),
//! a `Total` row with Average/Min/Max blanked, an empty line. Every cell is right-aligned
//! to its column's widest value (header included) and followed by ` | `; a blanked cell
//! is spaces of the same width followed by three spaces. The Error column is blanked
//! when no call failed. Widths are measured over all rows, Total's hidden cells included.

use std::borrow::Cow;
use std::collections::BTreeSet;

use crate::rows::{Facts, RowTree};
use crate::trace::tally::{TallyInput, TallyRow};

pub const DEFAULT_MAX_NAME_SIZE: i64 = 80;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TallyOptions {
    /// Add a `Self` column (exclusive time) after `Time(%)`; iprof has none.
    pub self_time: bool,
    /// Cut longer names in the middle with `[...]`; negative = no limit.
    pub max_name_size: i64,
}

impl Default for TallyOptions {
    fn default() -> Self {
        TallyOptions {
            self_time: false,
            max_name_size: DEFAULT_MAX_NAME_SIZE,
        }
    }
}

/// The tally of a trace's rows (`RowTree::trace_ops`): one line per `op` row, and the
/// hosts, processes and threads counted as iprof does: distinct hostnames, distinct pids
/// and distinct tids over the threads that made calls, each counted on its own (THAPI
/// collects one set per key component).
pub fn tally_input(tree: &RowTree) -> TallyInput<'_> {
    let keys: Vec<_> = tree
        .threads()
        .filter_map(|t| match &t.facts {
            Facts::Thread { key, .. } => Some(key),
            _ => None,
        })
        .collect();
    TallyInput {
        hostnames: keys.iter().map(|k| &k.host).collect::<BTreeSet<_>>().len(),
        processes: keys.iter().map(|k| k.pid).collect::<BTreeSet<_>>().len(),
        threads: keys.iter().map(|k| k.tid).collect::<BTreeSet<_>>().len(),
        rows: tree
            .ops()
            .filter_map(|o| match o.facts {
                Facts::Op {
                    calls,
                    errors,
                    inclusive_ns,
                    self_ns,
                    ..
                } => {
                    let extremes = o.min_max_ns();
                    Some(TallyRow {
                        name: Cow::Borrowed(&o.name),
                        total_ns: inclusive_ns,
                        self_ns,
                        calls,
                        errors,
                        min_ns: extremes.map(|e| e.0),
                        max_ns: extremes.map(|e| e.1),
                    })
                }
                _ => None,
            })
            .collect(),
    }
}

/// iprof's duration format: largest unit giving a value >= 1 among h, min, s, ms, us,
/// two decimals; below 1 us integers print bare (`588ns`), floats with two decimals.
pub fn format_duration(ns: f64, is_integer: bool) -> String {
    const UNITS: [(f64, &str); 5] = [
        (3.6e12, "h"),
        (6e10, "min"),
        (1e9, "s"),
        (1e6, "ms"),
        (1e3, "us"),
    ];
    for (div, unit) in UNITS {
        if ns / div >= 1.0 {
            return format!("{:.2}{unit}", ns / div);
        }
    }
    if is_integer {
        format!("{}ns", ns as i64)
    } else {
        format!("{ns:.2}ns")
    }
}

/// iprof's name cut: keep `(n-5)/2` leading and the rest trailing characters around `[...]`.
pub fn limit_name(name: &str, max: i64) -> String {
    const JOIN: &str = "[...]";
    let len = name.chars().count();
    if max < 0 || max as usize >= len {
        return name.to_string();
    }
    let max = max as usize;
    if max <= JOIN.len() {
        return JOIN[..max].to_string();
    }
    let size = max - JOIN.len();
    let head = size / 2;
    let tail = head + size % 2;
    let prefix: String = name.chars().take(head).collect();
    let suffix: String = name.chars().skip(len - tail).collect();
    format!("{prefix}{JOIN}{suffix}")
}

struct Agg {
    total: i64,
    self_ns: i64,
    calls: u64,
    errors: u64,
    min: Option<i64>,
    max: Option<i64>,
}

pub fn render_tally(input: &TallyInput, opts: TallyOptions) -> String {
    let mut rows: Vec<(&str, Agg)> = input
        .rows
        .iter()
        .map(|r| {
            (
                &*r.name,
                Agg {
                    total: r.total_ns,
                    self_ns: r.self_ns,
                    calls: r.calls,
                    errors: r.errors,
                    min: r.min_ns,
                    max: r.max_ns,
                },
            )
        })
        .collect();
    rows.sort_by(|a, b| b.1.total.cmp(&a.1.total).then_with(|| a.0.cmp(b.0)));
    let total = Agg {
        total: rows.iter().fold(0i64, |a, r| a.saturating_add(r.1.total)),
        self_ns: rows.iter().fold(0i64, |a, r| a.saturating_add(r.1.self_ns)),
        calls: rows.iter().map(|r| r.1.calls).sum(),
        errors: rows.iter().map(|r| r.1.errors).sum(),
        min: rows.iter().filter_map(|r| r.1.min).min(),
        max: rows.iter().filter_map(|r| r.1.max).max(),
    };
    let grand = total.total;
    rows.push(("Total", total));

    let mut header = vec!["Time", "Time(%)"];
    if opts.self_time {
        header.push("Self");
    }
    header.extend(["Calls", "Average", "Min", "Max", "Error"]);
    let avg_col = header.len() - 4;
    let error_col = header.len() - 1;

    let cells: Vec<(String, Vec<String>)> = rows
        .iter()
        .map(|(name, a)| {
            (
                limit_name(name, opts.max_name_size),
                row_cells(a, grand, opts.self_time),
            )
        })
        .collect();
    let name_w = cells
        .iter()
        .map(|(n, _)| crate::escape::display_width(n))
        .chain(std::iter::once(4))
        .max()
        .unwrap_or(4);
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for (_, c) in &cells {
        for (w, v) in widths.iter_mut().zip(c) {
            *w = (*w).max(v.chars().count());
        }
    }
    let show_errors = rows.last().is_some_and(|(_, t)| t.errors > 0);

    let mut out = format!(
        "BACKEND_PYTORCH | {} Hostnames | {} Processes | {} Threads | \n\n",
        input.hostnames, input.processes, input.threads
    );
    let line = |out: &mut String, name: &str, vals: &[&str], hidden: &dyn Fn(usize) -> bool| {
        // Padded by display width: a CJK name takes two cells a character.
        out.push_str(&crate::escape::pad_left(name, name_w));
        out.push_str(" | ");
        for (i, v) in vals.iter().enumerate() {
            let w = widths[i];
            if hidden(i) {
                out.push_str(&" ".repeat(w + 3));
            } else {
                out.push_str(&format!("{v:>w$} | "));
            }
        }
        out.push('\n');
    };
    let hide_error = |i: usize| i == error_col && !show_errors;
    line(&mut out, "Name", &header, &hide_error);
    let last = cells.len() - 1;
    for (k, (name, c)) in cells.iter().enumerate() {
        let vals: Vec<&str> = c.iter().map(String::as_str).collect();
        if k == last {
            let hide_total = |i: usize| hide_error(i) || (avg_col..avg_col + 3).contains(&i);
            line(&mut out, name, &vals, &hide_total);
        } else {
            line(&mut out, name, &vals, &hide_error);
        }
    }
    out.push('\n');
    out
}

/// Cells after the name. A row whose every call failed shows only Calls and Error.
fn row_cells(a: &Agg, grand: i64, with_self: bool) -> Vec<String> {
    let all_failed = a.calls == a.errors;
    let ok = a.calls - a.errors;
    let avg = if a.calls > 0 && ok > 0 {
        a.total as f64 / ok as f64
    } else {
        0.0
    };
    let pct = |v: i64| {
        if grand == 0 {
            // iprof would divide by zero; an all-zero table shows 0.00%.
            "0.00%".to_string()
        } else {
            format!("{:.2}%", 100.0 * v as f64 / grand as f64)
        }
    };
    let blank_or = |s: String| if all_failed { String::new() } else { s };
    let mut c = vec![
        blank_or(format_duration(a.total as f64, true)),
        blank_or(pct(a.total)),
    ];
    if with_self {
        c.push(blank_or(format_duration(a.self_ns as f64, true)));
    }
    c.push(a.calls.to_string());
    c.push(blank_or(format_duration(avg, false)));
    c.push(blank_or(format_duration(a.min.unwrap_or(0) as f64, true)));
    c.push(blank_or(format_duration(a.max.unwrap_or(0) as f64, true)));
    c.push(a.errors.to_string());
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_bare_integers() {
        assert_eq!(format_duration(588.0, true), "588ns");
        assert_eq!(format_duration(588.0, false), "588.00ns");
        assert_eq!(format_duration(64_610_000.0, true), "64.61ms");
        assert_eq!(format_duration(1_050_000_000.0, true), "1.05s");
        assert_eq!(format_duration(90e9, true), "1.50min");
        assert_eq!(format_duration(7.2e12, true), "2.00h");
        // Ties round to even on the exact binary value, as printf does.
        assert_eq!(format_duration(1125.0, true), "1.12us");
    }

    #[test]
    fn name_cut_in_the_middle() {
        assert_eq!(limit_name("abcdefghij", 9), "ab[...]ij");
        assert_eq!(limit_name("abcdefghij", 8), "a[...]ij");
        assert_eq!(limit_name("abcdefghij", 10), "abcdefghij");
        assert_eq!(limit_name("abcdefghij", 3), "[..");
        assert_eq!(limit_name("abcdefghij", -1), "abcdefghij");
    }

    #[test]
    fn title_counts_each_key_component_like_iprof() {
        let text = "[1.0] h1 lttng_ust_pytorch:op_exit: { vpid = 1, vtid = 5 }, { name = \"a\" }\n\
                    [1.1] h2 lttng_ust_pytorch:op_exit: { vpid = 1, vtid = 5 }, { name = \"a\" }\n\
                    [1.2] h2 lttng_ust_pytorch:op_exit: { vpid = 1, vtid = 6 }, { name = \"a\" }\n";
        let p = crate::trace::parse_trace(text.as_bytes(), "t").unwrap();
        let tree = RowTree::trace_ops(&p);
        let t = tally_input(&tree);
        assert_eq!((t.hostnames, t.processes, t.threads), (2, 1, 2));
        // Every call failed: the row shows only Calls and Error.
        let out = render_tally(&t, TallyOptions::default());
        assert!(
            out.contains("    a |      |         |     3 |         |     |     |     3 | "),
            "{out}"
        );
    }
}
