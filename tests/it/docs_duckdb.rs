//! The DuckDB queries of `docs/fleet.md` ("Querying the Parquet files with DuckDB"), run as
//! the page writes them: its `cpuprof-tui fleet` commands (only `$REPO` replaced by this
//! repository's root) write the Parquet files into a scratch folder, then each ```sql
//! block of the section runs there, verbatim, in DuckDB. Each must return at least one row
//! and the columns listed here, and the answers the page promises (`fixtures/fleet/truth.json`
//! says what was injected where).
//!
//! Needs a Python with the `duckdb` module (`pip install duckdb`): `$CPUPROF_PYTHON`, else
//! `/work/venv/bin/python`, else `python3`. Without one the test prints a SKIP line and passes.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const PAGE: &str = "docs/fleet.md";
const SECTION: &str = "## Querying the Parquet files with DuckDB";

/// The columns of each query, in the page's order.
const COLUMNS: [&[&str]; 3] = [
    &["device", "operator", "median_ms"],
    &["commit", "median_ms"],
    &["profile_id", "error"],
];

/// The section's text, up to the next `## ` heading.
fn section() -> String {
    let text = std::fs::read_to_string(Path::new(ROOT).join(PAGE)).unwrap();
    let start = text
        .find(SECTION)
        .unwrap_or_else(|| panic!("{PAGE} has no section {SECTION:?}"));
    let rest = &text[start + SECTION.len()..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    rest[..end].to_string()
}

/// The bodies of the fenced blocks of `lang` in `text`, in order.
fn blocks(text: &str, lang: &str) -> Vec<String> {
    let open = format!("```{lang}\n");
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(&open) {
        let body = &rest[i + open.len()..];
        let end = body.find("```").expect("an unclosed code block");
        out.push(body[..end].to_string());
        rest = &body[end + 3..];
    }
    out
}

/// `line` split into words as a POSIX shell splits it, for the quoting the page uses:
/// '...' literal, "..." with `$REPO` expanded, bare words with `$REPO` expanded.
fn shell_words(line: &str, repo: &str) -> Vec<String> {
    let other_syntax = line
        .match_indices('$')
        .any(|(i, _)| !line[i..].starts_with("$REPO"))
        || line.contains(['\\', '`', ';', '|', '&', '<', '>']);
    assert!(
        !other_syntax,
        "{PAGE}: a command uses shell syntax this test does not run: {line}"
    );
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                in_word = true;
                let mut quoted = String::new();
                for c in chars.by_ref() {
                    if c == '"' {
                        break;
                    }
                    quoted.push(c);
                }
                word.push_str(&quoted.replace("$REPO", repo));
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word).replace("$REPO", repo));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word.replace("$REPO", repo));
    }
    words
}

/// A Python that imports `duckdb`, and the ones tried.
fn duckdb_python() -> Result<String, Vec<String>> {
    let mut tried = Vec::new();
    let candidates = std::env::var("CPUPROF_PYTHON")
        .ok()
        .into_iter()
        .chain(["/work/venv/bin/python".to_string(), "python3".to_string()]);
    for py in candidates {
        let ok = Command::new(&py)
            .args(["-c", "import duckdb"])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Ok(py);
        }
        tried.push(py);
    }
    Err(tried)
}

/// Each query run in `dir`: its columns and rows (values as JSON; others as text).
fn run_queries(py: &str, dir: &Path, queries: &[String]) -> Vec<(Vec<String>, Vec<Value>)> {
    let script = r#"
import duckdb, json, sys
out = []
for q in json.load(sys.stdin):
    rel = duckdb.sql(q)
    out.append([rel.columns, [list(r) for r in rel.fetchall()]])
print(json.dumps(out, default=str))
"#;
    let mut child = Command::new(py)
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    serde_json::to_writer(child.stdin.take().unwrap(), queries).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "DuckDB refused a query of {PAGE}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Vec<(Vec<String>, Vec<Value>)> = serde_json::from_slice(&out.stdout).unwrap();
    v
}

#[test]
fn the_fleet_page_duckdb_queries_run_as_written() {
    let text = section();
    // The page's commands and queries are found whether or not DuckDB is here.
    let commands: Vec<String> = blocks(&text, "sh")
        .iter()
        .flat_map(|b| b.lines().map(str::to_string).collect::<Vec<_>>())
        .filter(|l| l.starts_with("cpuprof-tui "))
        .collect();
    assert_eq!(commands.len(), 2, "{PAGE}: the two fleet commands");
    let queries = blocks(&text, "sql");
    assert_eq!(
        queries.len(),
        COLUMNS.len(),
        "{PAGE}: one ```sql block per query; a new query needs its columns in COLUMNS"
    );
    let py = match duckdb_python() {
        Ok(py) => py,
        Err(tried) => {
            eprintln!(
                "SKIP docs_duckdb: no Python with the duckdb module (tried {}); \
                 install it with `pip install duckdb`, or set CPUPROF_PYTHON to a Python that has it",
                tried.join(", ")
            );
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    for line in &commands {
        let words = shell_words(line, ROOT);
        assert_eq!(words[0], "cpuprof-tui");
        let out = Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
            .args(&words[1..])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{line}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let results = run_queries(&py, dir.path(), &queries);
    for ((columns, rows), (want, query)) in results.iter().zip(COLUMNS.iter().zip(&queries)) {
        assert_eq!(columns, want, "the columns of\n{query}");
        assert!(!rows.is_empty(), "no row from\n{query}");
    }
    let truth: Value = serde_json::from_str(
        &std::fs::read_to_string(PathBuf::from(ROOT).join("fixtures/fleet/truth.json")).unwrap(),
    )
    .unwrap();
    // 1. One row per device; the slowest of all is the slowed operator of the slowed device.
    let per_device = &results[0].1;
    assert_eq!(per_device.len(), 12);
    let worst = per_device
        .iter()
        .max_by(|x, y| x[2].as_f64().unwrap().total_cmp(&y[2].as_f64().unwrap()))
        .unwrap();
    let want = &truth["devices"]["outlier"];
    assert_eq!(worst[0], want["device"]);
    assert_eq!(worst[1], want["row"]);
    // 2. Commits c1..c10 in natural order, the level up by the factor from the change on.
    let trend = &results[1].1;
    let commits: Vec<&str> = trend.iter().map(|r| r[0].as_str().unwrap()).collect();
    let expect: Vec<String> = (1..=10).map(|c| format!("c{c}")).collect();
    assert_eq!(commits, expect);
    let at = trend
        .iter()
        .position(|r| r[0] == truth["commits"]["change"]["from_commit"])
        .unwrap();
    let level =
        |r: &[Value]| r.iter().map(|x| x[1].as_f64().unwrap()).sum::<f64>() / r.len() as f64;
    let ratio = level(&trend[at..]) / level(&trend[..at]);
    let factor = truth["commits"]["change"]["factor"].as_f64().unwrap();
    assert!((ratio - factor).abs() < 0.1, "{ratio} against {factor}");
    // 3. The damaged dump, and only it, with its error.
    let errors = &results[2].1;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0][0], "bad_truncated.etdp");
    assert!(errors[0][1].as_str().unwrap().contains("incomplete ETDump"));
}

#[test]
fn shell_words_split_as_a_shell_does() {
    assert_eq!(
        shell_words(
            r#"cpuprof-tui fleet "$REPO/a b" --key '{x}/{y}' -o out"#,
            "/r"
        ),
        [
            "cpuprof-tui",
            "fleet",
            "/r/a b",
            "--key",
            "{x}/{y}",
            "-o",
            "out"
        ]
    );
    assert_eq!(shell_words("a $REPO/x", "/r"), ["a", "/r/x"]);
}
