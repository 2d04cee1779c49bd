//! The README documents what the program does: its key table is the keymap's help (so a
//! new or changed key fails here until the README says so), and its set-up commands are
//! the ones CI runs.

use cpuprof_tui::app::keymap::help_lines;

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
}

/// The README's key table as the help writes it (every view's table, in order).
fn key_rows() -> Vec<String> {
    help_lines()
        .into_iter()
        .map(|(keys, help)| {
            if keys.is_empty() {
                format!("| | **{}** |", help.trim_matches(|c| c == '─' || c == ' '))
            } else {
                format!("| `{keys}` | {help} |")
            }
        })
        .collect()
}

#[test]
fn readme_lists_every_key_binding() {
    let text = readme();
    let rows = key_rows();
    let table = rows.join("\n");
    for row in &rows {
        assert!(
            text.contains(row.as_str()),
            "README.md lacks the key row: {row}\nthe table should read:\n{table}"
        );
    }
    // In the help's order, one block.
    assert!(
        text.contains(&table),
        "README.md's key table is out of order:\n{table}"
    );
}

#[test]
fn readme_gives_the_two_commands_and_ci_runs_the_test_one() {
    let text = readme();
    assert!(text.contains("cargo run --release -- --demo"));
    assert!(text.contains("cargo test"));
    let ci = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/run")).unwrap();
    assert!(
        ci.lines().any(|l| l.trim() == "cargo test"),
        ".ci/run must run `cargo test`"
    );
}
