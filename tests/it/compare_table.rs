//! `compare --format table` read at a glance: significant changes first (slower by size,
//! then faster, largest fall first), then every other row in program order, a section
//! line between; the `p(Holm)` column shows the adjusted p, `–` where it is 1, with a
//! legend. The verdicts, changes and p-values come from the JSON of the same pair.

use crate::common;

use std::process::Command;

fn run(format: &str) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .args([
            "compare",
            &common::path("compare/cnn2_a.etdp"),
            &common::path("compare/cnn2_slow_b.etdp"),
            "--warmup",
            "3",
            "--format",
            format,
        ])
        .output()
        .unwrap();
    assert!(o.status.success());
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn significant_changes_come_first_then_program_order() {
    let v: serde_json::Value = serde_json::from_str(&run("json")).unwrap();
    let rows = v["rows"].as_array().unwrap();
    let path = |r: &serde_json::Value| {
        r["path"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect::<Vec<_>>()
            .join(" / ")
    };
    let mut slower: Vec<(f64, String)> = rows
        .iter()
        .filter(|r| r["verdict"] == "slower")
        .map(|r| (r["delta_pct"].as_f64().unwrap(), path(r)))
        .collect();
    slower.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut faster: Vec<(f64, String)> = rows
        .iter()
        .filter(|r| r["verdict"] == "faster")
        .map(|r| (r["delta_pct"].as_f64().unwrap(), path(r)))
        .collect();
    faster.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert!(!slower.is_empty() && !faster.is_empty());

    let text = run("table");
    let lines: Vec<&str> = text.lines().collect();
    let header = lines.iter().position(|l| l.starts_with("verdict")).unwrap();
    assert!(lines[header].contains("p(Holm)"), "{}", lines[header]);
    let body: Vec<&str> = lines[header + 1..]
        .iter()
        .take_while(|l| !l.is_empty())
        .copied()
        .collect();
    // Section lines, in order.
    let sections: Vec<usize> = (0..body.len())
        .filter(|&i| body[i].starts_with("── "))
        .collect();
    assert_eq!(sections.len(), 3, "{body:#?}");
    assert!(body[sections[0]].contains("slower"));
    assert!(body[sections[1]].contains("faster"));
    assert!(body[sections[2]].contains("program order"));
    // Slower rows by size, with their whole path; then faster.
    let named = |i: usize| body[i].to_string();
    for (k, (_, p)) in slower.iter().enumerate() {
        let line = named(sections[0] + 1 + k);
        assert!(
            line.starts_with("slower") && line.ends_with(p.as_str()),
            "{line} / {p}"
        );
    }
    for (k, (_, p)) in faster.iter().enumerate() {
        let line = named(sections[1] + 1 + k);
        assert!(
            line.starts_with("faster") && line.ends_with(p.as_str()),
            "{line} / {p}"
        );
    }
    // The rest: every other row, in the JSON's (program) order.
    let rest: Vec<&serde_json::Value> = rows
        .iter()
        .filter(|r| r["verdict"] != "slower" && r["verdict"] != "faster")
        .collect();
    let rest_lines = &body[sections[2] + 1..];
    assert_eq!(rest_lines.len(), rest.len());
    for (line, r) in rest_lines.iter().zip(&rest) {
        assert!(
            line.trim_end().ends_with(r["name"].as_str().unwrap()),
            "{line}"
        );
        // Adjusted p of 1 reads `–`; a tested row below 1 shows its value.
        let p = r["p_value"].as_f64();
        let cell = line
            .split_whitespace()
            .rev()
            .nth(r["name"].as_str().unwrap().split_whitespace().count());
        match p {
            Some(p) if p >= 1.0 => assert_eq!(cell, Some("–"), "{line}"),
            Some(_) => assert_ne!(cell, Some("–"), "{line}"),
            None => assert_eq!(cell, Some("-"), "{line}"),
        }
    }
    assert!(text.contains("– where the adjusted p is 1"), "legend");
}
