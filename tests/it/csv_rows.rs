//! The CSV outputs read back by a CSV reader: one record per row, each as wide as the
//! header, whatever a name holds (a comma, a quote, a line break).

use cpuprof_testkit::sample;
use cpuprof_tui::report::profile_csv;

/// Header width and records of a CSV text, as the `csv` crate's reader parses it.
fn records(text: &str) -> (usize, Vec<csv::StringRecord>) {
    let mut r = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let width = r.headers().unwrap().len();
    (width, r.records().map(Result::unwrap).collect())
}

#[test]
fn a_name_with_a_line_break_keeps_its_row_whole() {
    let plain = profile_csv(&sample::profile());
    let (width, rows) = records(&plain);
    // The header's 29 columns (`level` .. `source_line`).
    assert_eq!(width, 29);
    assert!(rows.iter().all(|r| r.len() == width));

    let name = "fused\nconv, \"relu\"";
    let mut p = sample::profile();
    let op = &mut p.delegates[0].steps[0].operators[0];
    let before = op.name.clone();
    op.name = name.to_string();
    let (width, odd) = records(&profile_csv(&p));
    // As many records as with a plain name, every one as wide as the header, the name
    // whole in its `name` column and the row's `method` cell where it belongs.
    assert_eq!(odd.len(), rows.len());
    assert!(odd.iter().all(|r| r.len() == width), "{odd:?}");
    let i = rows.iter().position(|r| r[4] == before).unwrap();
    assert_eq!(&odd[i][4], name);
    assert_eq!(odd[i][20], rows[i][20]);
}
