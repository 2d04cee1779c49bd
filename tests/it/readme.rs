//! The README and `docs/` say what the program does, and these tests keep them true:
//!
//! - the picture of the explorer, `docs/explorer.txt`, is the demo as `--demo` opens it,
//!   drawn at 120x40 on ratatui's `TestBackend`, and the README's copy is that file;
//! - the key table of `docs/reference.md` is the keymap's help (so a new or changed key
//!   fails here until the page says so), its `--help` blocks are what the binary prints,
//!   and every flag they list is explained in the page's own text;
//! - the README's set-up commands are the ones CI runs, it stays a front page (under
//!   30 KB), and every relative link of the README and `docs/` finds its file and heading.
//!
//! `UPDATE_DOCS=1 cargo test --test it readme::` rewrites the generated parts (between their
//! `<!-- BEGIN GENERATED name ... -->` and `<!-- END GENERATED name -->` lines, and
//! `docs/explorer.txt`) instead of failing; review the diff before committing it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use cpuprof_tui::app::keymap::help_lines;
use cpuprof_tui::profile::ProfileRequest;

use crate::support::explorer;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const REFERENCE: &str = "docs/reference.md";
const PICTURE: &str = "docs/explorer.txt";
/// The picture's size: wide enough for the detail pane beside the tree.
const PICTURE_SIZE: (u16, u16) = (120, 40);

/// Read-modify-write of a page by one test at a time (two blocks share reference.md).
static WRITING: Mutex<()> = Mutex::new(());

fn path(rel: &str) -> PathBuf {
    Path::new(ROOT).join(rel)
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn updating() -> bool {
    std::env::var("UPDATE_DOCS").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Where the body of the generated block `name` lies in `text`: from the line after its
/// BEGIN marker to the start of its END marker line.
fn block_span(text: &str, name: &str) -> Option<(usize, usize)> {
    let begin = format!("<!-- BEGIN GENERATED {name}");
    let end = format!("<!-- END GENERATED {name} -->");
    let b = text.find(&begin)?;
    let body = b + text[b..].find('\n')? + 1;
    let e = body + text[body..].find(&end)?;
    Some((body, e))
}

/// The first line where `have` and `want` differ, for the failure message.
fn first_difference(have: &str, want: &str) -> String {
    let (h, w): (Vec<_>, Vec<_>) = (have.lines().collect(), want.lines().collect());
    for i in 0..h.len().max(w.len()) {
        if h.get(i) != w.get(i) {
            return format!(
                "line {} of the block\n  page: {:?}\n  want: {:?}",
                i + 1,
                h.get(i).copied().unwrap_or("<none>"),
                w.get(i).copied().unwrap_or("<none>")
            );
        }
    }
    "trailing newline".into()
}

/// The generated block `name` of `rel` is `want`; with UPDATE_DOCS it is made so.
fn check_block(rel: &str, name: &str, want: &str) {
    let _one = WRITING.lock().unwrap_or_else(|e| e.into_inner());
    let text = read(rel);
    let (a, b) = block_span(&text, name).unwrap_or_else(|| {
        panic!(
            "{rel} has no generated block `{name}`: put the lines \
             `<!-- BEGIN GENERATED {name}: UPDATE_DOCS=1 cargo test --test it readme:: -->` and \
             `<!-- END GENERATED {name} -->` where it goes"
        )
    });
    if text[a..b] == *want {
        return;
    }
    if updating() {
        let new = format!("{}{want}{}", &text[..a], &text[b..]);
        std::fs::write(path(rel), new).unwrap();
        eprintln!("UPDATE_DOCS: rewrote the `{name}` block of {rel}");
        return;
    }
    panic!(
        "{rel}: the generated block `{name}` is out of date ({}); \
         run `UPDATE_DOCS=1 cargo test --test it readme::` and review the diff",
        first_difference(&text[a..b], want)
    );
}

/// The whole file `rel` is `want`; with UPDATE_DOCS it is made so.
fn check_file(rel: &str, want: &str) {
    let _one = WRITING.lock().unwrap_or_else(|e| e.into_inner());
    let have = std::fs::read_to_string(path(rel)).unwrap_or_default();
    if have == want {
        return;
    }
    if updating() {
        std::fs::write(path(rel), want).unwrap();
        eprintln!("UPDATE_DOCS: rewrote {rel}");
        return;
    }
    panic!(
        "{rel} is out of date ({}); run `UPDATE_DOCS=1 cargo test --test it readme::` and \
         review the diff",
        first_difference(&have, want)
    );
}

/// The key table as the help writes it (every view's table, in order).
fn key_table() -> String {
    let mut out = String::from("| keys | action |\n|---|---|\n");
    for (keys, help) in help_lines() {
        if keys.is_empty() {
            let title = help.trim_matches(|c| c == '─' || c == ' ');
            out.push_str(&format!("| | **{title}** |\n"));
        } else {
            out.push_str(&format!("| `{keys}` | {help} |\n"));
        }
    }
    out
}

#[test]
fn reference_lists_every_key_binding() {
    let table = key_table();
    // Every view's heading and every key, in the help's order, as one block.
    assert!(table.contains("| | **Explorer** |"), "{table}");
    assert!(table.contains("| `q Ctrl-c` |"), "{table}");
    check_block(REFERENCE, "keys", &table);
}

/// `cpuprof-tui [COMMAND] --help` as the binary prints it into a pipe.
fn help(command: Option<&str>) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .args(command)
        .arg("--help")
        .env_remove("COLUMNS")
        .output()
        .unwrap();
    assert!(out.status.success(), "{command:?} --help");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn reference_has_every_help_as_printed() {
    let mut want = String::new();
    for command in [
        None,
        Some("report"),
        Some("compare"),
        Some("export"),
        Some("run"),
        Some("fleet"),
    ] {
        let name = command.map_or("cpuprof-tui --help".into(), |c| {
            format!("cpuprof-tui {c} --help")
        });
        let text = help(command);
        assert!(text.contains("Usage: cpuprof-tui"), "{name}:\n{text}");
        assert!(!text.contains("```"), "{name} would end the code block");
        want.push_str(&format!("#### `{name}`\n\n```text\n{text}```\n\n"));
    }
    // The top-level help names every command the page gives a block of.
    let top = help(None);
    for c in ["report", "compare", "export", "run", "fleet"] {
        assert!(
            top.lines().any(|l| l.trim_start().starts_with(c)),
            "`{c}` is not in --help:\n{top}"
        );
    }
    check_block(REFERENCE, "help", &want);
}

/// The `--long` flags named in `text`.
fn long_flags(text: &str) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let b = text.as_bytes();
    for (i, _) in text.match_indices("--") {
        let before = i.checked_sub(1).map(|j| b[j]);
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'-') {
            continue;
        }
        let name: String = text[i + 2..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '-')
            .collect();
        if name.starts_with(|c: char| c.is_ascii_lowercase()) {
            out.insert(format!("--{}", name.trim_end_matches('-')));
        }
    }
    out
}

/// Every flag a `--help` lists is written about in the reference's own text (not only in
/// its generated copy of the help), and the synopsis names no flag the binary lacks.
#[test]
fn reference_explains_every_flag() {
    let page = read(REFERENCE);
    let (a, b) = block_span(&page, "help").expect("the help block");
    let own = format!("{}{}", &page[..a], &page[b..]);
    let mut helped = std::collections::BTreeSet::new();
    for command in [
        None,
        Some("report"),
        Some("compare"),
        Some("export"),
        Some("run"),
        Some("fleet"),
    ] {
        helped.extend(long_flags(&help(command)));
    }
    assert!(
        helped.contains("--warmup") && helped.contains("--partition-by"),
        "{helped:?}"
    );
    // `--output` is written `-o`, `--help` and `--version` explain themselves.
    let unexplained: Vec<_> = helped
        .iter()
        .filter(|f| !["--help", "--version", "--output"].contains(&f.as_str()))
        .filter(|f| !long_flags(&own).contains(*f))
        .collect();
    assert!(
        unexplained.is_empty(),
        "{REFERENCE} does not explain {unexplained:?} (only its generated help lists them)"
    );
    let synopsis = &own[own.find("### Synopsis").unwrap()..own.find("### Common flags").unwrap()];
    let unknown: Vec<_> = long_flags(synopsis)
        .into_iter()
        .filter(|f| !helped.contains(f))
        .collect();
    assert!(
        unknown.is_empty(),
        "the synopsis of {REFERENCE} names flags no --help lists: {unknown:?}"
    );
}

/// The demo as `--demo` opens it, drawn at the picture's size, as text.
fn picture() -> String {
    let s = explorer::opened_request(ProfileRequest::demo(None), PICTURE_SIZE);
    explorer::screen(&s)
}

#[test]
fn explorer_picture_is_the_demo_as_drawn() {
    let text = picture();
    // The picture shows the demo loaded: the tree's root and the operator table.
    assert!(text.contains("Method::execute"), "{text}");
    assert!(text.contains("GEMM"), "{text}");
    assert_eq!(text.lines().count(), usize::from(PICTURE_SIZE.1));
    check_file(PICTURE, &text);
    check_block("README.md", "explorer", &format!("```text\n{text}```\n"));
}

#[test]
fn readme_gives_the_two_commands_and_ci_runs_the_test_one() {
    let text = read("README.md");
    assert!(text.contains("cargo run --release -- --demo"));
    assert!(text.contains("cargo test"));
    let ci = read(".ci/run");
    assert!(
        ci.lines().any(|l| l.trim() == "cargo test"),
        ".ci/run must run `cargo test`"
    );
}

#[test]
fn readme_stays_a_front_page() {
    let size = std::fs::metadata(path("README.md")).unwrap().len();
    assert!(
        size < 30_000,
        "README.md is {size} bytes: keep it under 30 KB and move detail into docs/"
    );
}

/// GitHub's anchor for a heading: lower case, punctuation other than `-` and `_` dropped,
/// spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a page's headings (outside code blocks).
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

/// The relative link targets of a page: `](target)`, outside code blocks.
fn links(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            let target = &after[..end];
            if !target.contains("://") && !target.starts_with("mailto:") {
                out.push(target.to_string());
            }
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn every_relative_link_finds_its_page_and_heading() {
    let mut pages = vec!["README.md".to_string()];
    for e in std::fs::read_dir(path("docs")).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".md") {
            pages.push(format!("docs/{name}"));
        }
    }
    let mut broken = Vec::new();
    for page in &pages {
        let text = read(page);
        let dir = Path::new(page).parent().unwrap();
        for target in links(&text) {
            let (file, frag) = target.split_once('#').unwrap_or((&target, ""));
            let rel = if file.is_empty() {
                PathBuf::from(page)
            } else {
                dir.join(file)
            };
            let full = path(rel.to_str().unwrap());
            if !full.exists() {
                broken.push(format!("{page}: ({target}): no {}", rel.display()));
                continue;
            }
            if !frag.is_empty() && full.is_file() {
                let there = std::fs::read_to_string(&full).unwrap();
                if !anchors(&there).iter().any(|a| a == frag) {
                    broken.push(format!("{page}: ({target}): no such heading"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn anchors_are_githubs() {
    assert_eq!(
        anchor(" `profile.json` (`cpuprof.profile/1`)"),
        "profilejson-cpuprofprofile1"
    );
    assert_eq!(
        anchor(" THAPI / HPC jobs: one tally across nodes, and the stragglers"),
        "thapi--hpc-jobs-one-tally-across-nodes-and-the-stragglers"
    );
    assert_eq!(anchor(" Every `--help`"), "every---help");
}
