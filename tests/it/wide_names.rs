//! #44: table widths in terminal cells. A CJK or full-width operator name takes 2 cells a
//! character; counted in characters, its row was shifted by one cell per such character.
//! Widths here are computed by hand: every non-ASCII character of these names is CJK or
//! full-width (2 cells), every ASCII one is 1 cell.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_cpuprof-tui");

/// `aten::加法` 10 cells, `ａｔｅｎ：：ｍｕｌ` (full-width) 18, `aten::矩阵乘法_前向` 19.
const NAMES: [&str; 4] = [
    "aten::加法",
    "aten::add",
    "ａｔｅｎ：：ｍｕｌ",
    "aten::矩阵乘法_前向",
];

fn cells(s: &str) -> usize {
    s.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum()
}

/// A torch.profiler-style trace: each name called 3 times on one thread.
fn write_trace(path: &std::path::Path) {
    let mut events = Vec::new();
    let mut ts = 1000;
    for name in NAMES {
        for i in 0..3 {
            events.push(format!(
                r#"{{"ph":"X","cat":"cpu_op","name":"{name}","pid":1,"tid":1,"ts":{ts},"dur":{}}}"#,
                10 + i
            ));
            ts += 20;
        }
    }
    std::fs::write(path, format!(r#"{{"traceEvents":[{}]}}"#, events.join(","))).unwrap();
}

/// The cell at which `sep` starts on `line`.
fn column_of(line: &str, sep: &str) -> usize {
    cells(&line[..line.find(sep).unwrap()])
}

#[test]
fn the_tally_columns_line_up_with_wide_names() {
    assert_eq!(cells("aten::加法"), 10);
    assert_eq!(cells("ａｔｅｎ：：ｍｕｌ"), 18);
    assert_eq!(cells("aten::矩阵乘法_前向"), 19);
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("wide.json");
    write_trace(&trace);
    for format in ["table", "tally"] {
        let o = Command::new(BIN)
            .args(["report", trace.to_str().unwrap(), "--format", format])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = String::from_utf8(o.stdout).unwrap();
        let rows: Vec<&str> = text
            .lines()
            .filter(|l| l.contains(" | ") && !l.starts_with("BACKEND"))
            .collect();
        // Header, 4 names, Total.
        assert_eq!(rows.len(), 6, "{text}");
        for name in NAMES {
            assert!(rows.iter().any(|r| r.contains(name)), "{name}: {text}");
        }
        // Names are right-aligned to the widest (19 cells): every first ` | ` at cell 19.
        for r in &rows {
            assert_eq!(column_of(r, " | "), 19, "{r:?}\n{text}");
        }
        // And every later column too: each row is as wide as the header.
        let width = cells(rows[0].trim_end());
        for r in &rows[1..rows.len() - 1] {
            assert_eq!(cells(r.trim_end()), width, "{r:?}\n{text}");
        }
    }
}

/// The fleet table: profile ids (file names) and row names padded to cells.
#[test]
fn the_fleet_table_lines_up_with_wide_names() {
    let dir = tempfile::tempdir().unwrap();
    write_trace(&dir.path().join("排名0.json"));
    write_trace(&dir.path().join("rank1.json"));
    let o = Command::new(BIN)
        .args(["fleet", dir.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    // Profiles: `profile`, `排名0.json` (10 cells), `rank1.json` (10): ids padded to 10,
    // then two spaces: the model column at cell 12 on the header and on both rows.
    let lines: Vec<&str> = text.lines().collect();
    let header = lines.iter().position(|l| l.starts_with("profile")).unwrap();
    for l in &lines[header..header + 3] {
        let gap = l.find("  ").unwrap();
        let after = &l[gap..];
        let model_at = cells(&l[..gap]) + (after.len() - after.trim_start().len());
        assert_eq!(model_at, 12, "{l:?}\n{text}");
    }
    // Rows of the model: names padded to the widest (19 cells) after a 2-cell indent, two
    // spaces, then `n` (2 profiles) right-aligned in 4 cells: the `2` at cell
    // 2 + 19 + 2 + 3 = 26, so "  2  " starts at cell 24.
    let rows: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| NAMES.iter().any(|n| l.trim_start().starts_with(n)))
        .collect();
    assert_eq!(rows.len(), 8, "{text}");
    for l in rows {
        assert_eq!(column_of(l, "  2  "), 24, "{l:?}\n{text}");
    }
}

/// A row name wider than the fleet table's name column (60 cells at most): cut in the
/// middle to 60 cells (not 60 characters, which for CJK would be 120 cells), so the `n`
/// column still starts where the header's does. The name: `aten::` and 40 CJK characters
/// (6 + 80 = 86 cells by hand).
#[test]
fn a_name_wider_than_the_fleet_column_is_cut_by_cells() {
    let long = format!("aten::{}", "卷积".repeat(20));
    assert_eq!(cells(&long), 86);
    let dir = tempfile::tempdir().unwrap();
    for rank in ["rank0.json", "rank1.json"] {
        let mut events = Vec::new();
        for i in 0..3 {
            events.push(format!(
                r#"{{"ph":"X","cat":"cpu_op","name":"{long}","pid":1,"tid":1,"ts":{},"dur":{}}}"#,
                1000 + 20 * i,
                10 + i
            ));
        }
        let text = format!(r#"{{"traceEvents":[{}]}}"#, events.join(","));
        std::fs::write(dir.path().join(rank), text).unwrap();
    }
    let o = Command::new(BIN)
        .args(["fleet", dir.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    let header = text
        .lines()
        .find(|l| l.trim_start().starts_with("row "))
        .unwrap();
    let row = text.lines().find(|l| l.contains('…')).unwrap();
    // 2-cell indent + 44-cell name column (the table fits 120 columns) + 2 spaces, then
    // `n` right-aligned in 4 cells: the header's `n` and the row's `2` both at cell
    // 2 + 44 + 2 + 3 = 51.
    assert_eq!(column_of(header, " n ") + 1, 51, "{header:?}\n{text}");
    // (`cells` counts every non-ASCII character as 2; the row's one `…` takes 1.)
    assert_eq!(column_of(row, " 2 ") - 1 + 1, 51, "{row:?}\n{text}");
}

/// The explorer sizes its panes in cells too (#46: display width by unicode-width, never
/// `chars()`): on a wide terminal the tree is as wide as its widest name needs, so every
/// name is drawn whole in the tree (counted in characters, `aten::矩阵乘法_前向`'s 13
/// characters made the column 6 cells short and the name was cut to `aten::矩阵乘…`).
#[test]
fn the_explorer_draws_wide_names_whole() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("wide.json");
    write_trace(&trace);
    let s = crate::support::explorer::opened(trace.to_str().unwrap(), 0, (160, 48));
    // The frame's text has a blank for a wide character's second cell: drop it.
    let mut text = String::new();
    let frame = crate::support::explorer::screen(&s);
    let mut chars = frame.chars().peekable();
    while let Some(c) = chars.next() {
        text.push(c);
        if NAMES.iter().any(|n| !c.is_ascii() && n.contains(c)) {
            chars.next_if_eq(&' ');
        }
    }
    let tree: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("│    ") && l.contains("3 calls · self"))
        .collect();
    assert_eq!(tree.len(), 4, "{text}");
    for name in NAMES {
        assert!(
            tree.iter().any(|l| l.contains(&format!("{name}  3 calls"))),
            "{name} cut in the tree:\n{text}"
        );
    }
}
