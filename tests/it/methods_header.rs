//! #43: the top of `report` and of the explorer on a dump of several methods says how
//! many methods and runs the dump holds and which method the top-level figures are of;
//! `report`'s top lines are per method. Truth: `fixtures/etrecord/three_method.run.json`
//! (the order the runner ran the methods in: 10 prefill, 20 decode, 5 score) and
//! `fixtures/real/two_method.inspector.json` (the Inspector's Execute blocks).

use crate::common;

use common::{fixture, json};

use crate::support::explorer;

/// Runs per method from run.json, in order of first run.
fn three_method_runs() -> Vec<(String, usize)> {
    let order = json("etrecord/three_method.run.json")["run_order"].clone();
    let mut seen: Vec<(String, usize)> = Vec::new();
    for m in order.as_array().unwrap() {
        let m = m.as_str().unwrap();
        match seen.iter_mut().find(|(n, _)| n == m) {
            Some(e) => e.1 += 1,
            None => seen.push((m.to_string(), 1)),
        }
    }
    seen
}

fn report(args: &[&str]) -> String {
    let out = common::report(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn report_table_opens_with_every_method_and_what_the_dump_holds() {
    let runs = three_method_runs();
    assert_eq!(runs.len(), 3);
    let dump = fixture("etrecord/three_method.etdp");
    let text = report(&[dump.to_str().unwrap(), "--warmup", "1"]);
    let lines: Vec<&str> = text.lines().collect();
    // One answer line per method, in run order, then the dump's methods and runs.
    for (line, (name, _)) in lines.iter().zip(&runs) {
        assert!(line.starts_with(&format!("{name}: ")), "{line}");
    }
    let total: usize = runs.iter().map(|r| r.1).sum();
    let each: Vec<String> = runs
        .iter()
        .map(|(n, r)| format!("{n} {} of {r}", r - 1))
        .collect();
    assert_eq!(
        lines[3],
        format!(
            "Methods 3 · {total} runs, {} kept: {}",
            total - 3,
            each.join(" · ")
        )
    );
}

#[test]
fn report_json_says_what_the_dump_holds() {
    let runs = three_method_runs();
    let dump = fixture("etrecord/three_method.etdp");
    let v: serde_json::Value = serde_json::from_str(&report(&[
        dump.to_str().unwrap(),
        "--warmup",
        "1",
        "--format",
        "json",
    ]))
    .unwrap();
    let total: usize = runs.iter().map(|r| r.1).sum();
    assert_eq!(v["dump"]["methods"], 3);
    assert_eq!(v["dump"]["runs_total"], total);
    assert_eq!(v["dump"]["runs_kept"], total - 3);
    assert_eq!(v["dump"]["top_level_method"], 0);
    // The contract kept: the top-level figures are methods[0]'s.
    assert_eq!(v["runs"], v["methods"][0]["runs"]);
    assert_eq!(v["methods"][0]["name"], runs[0].0.as_str());
    for (m, (name, n)) in v["methods"].as_array().unwrap().iter().zip(&runs) {
        assert_eq!(m["name"], name.as_str());
        assert_eq!(m["runs"]["total"], *n);
    }
    // One method: no `dump` (other reports stay as they were).
    let one = fixture("real/mlp_xnnpack.etdp");
    let v: serde_json::Value =
        serde_json::from_str(&report(&[one.to_str().unwrap(), "--format", "json"])).unwrap();
    assert!(v.get("dump").is_none());
}

/// The explorer's header on two_method: the Inspector's two Execute blocks (runs each);
/// the header shows the method with the most runs (not the first group, which on a
/// real program can be a constant method run once), named.
#[test]
fn explorer_header_names_the_method_shown_and_the_dump() {
    let golden = json("real/two_method.inspector.json");
    let blocks: Vec<usize> = golden["event_blocks"]
        .as_array()
        .or_else(|| golden["etdump_only"]["event_blocks"].as_array())
        .unwrap()
        .iter()
        .filter(|b| b["name"] == "Execute")
        .map(|b| b["events"][0]["num_samples"].as_u64().unwrap() as usize)
        .collect();
    assert_eq!(blocks.len(), 2);
    let total: usize = blocks.iter().sum();
    let s = explorer::opened(
        fixture("real/two_method.etdp").to_str().unwrap(),
        0,
        (160, 48),
    );
    let d = s.session.data.as_ref().unwrap();
    let several = d.runs.as_ref().unwrap().several.as_ref().unwrap();
    assert_eq!((several.methods, several.all_runs), (2, total));
    // The method with the most runs is the one shown: the Inspector's second block.
    let most = *blocks.iter().max().unwrap();
    assert_eq!(blocks[1], most);
    let p = common::load("real/two_method.etdp", None, 0);
    let main = &p.methods[1];
    assert_eq!(main.runs.total, most);
    assert_eq!(several.shown, main.name);
    let text = explorer::screen(&s);
    let head: Vec<&str> = text.lines().take(2).collect();
    assert!(
        head[0].contains(&format!(
            "{} · runs {most} kept, 0 warm-up dropped (of {most}) · {total} runs in 2 methods",
            main.name
        )),
        "{head:?}"
    );
    let median = cpuprof_tui::app::format::duration_ms(main.method.as_ref().unwrap().median());
    assert!(
        head[1].starts_with(&format!(
            "Method::execute · {} median {median} (",
            main.name
        )),
        "{head:?}"
    );
}
