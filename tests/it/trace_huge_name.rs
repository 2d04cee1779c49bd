//! A huge op name (a Kineto event whose `name` is tens of MiB) is kept whole and held
//! about once: `report`'s peak memory grows by about twice the name (while its event is
//! read: the event's text and the interned name), not four or five times (the scanner's
//! token, the interner's key, the op keys, the op rows, the call nodes and the tally's
//! rows each held a copy); the table, whose answer line names the op, by four times, not
//! seven. Memory is measured in the child (`/usr/bin/time`), never in this process.

use std::io::Write;
use std::path::Path;

use crate::support::child;

const BIN: &str = env!("CARGO_BIN_EXE_cpuprof-tui");

/// Big beside the program's own few tens of MiB, small enough for a debug build.
const NAME_BYTES: usize = 32 << 20;

/// The budget: 2.5 times the name, plus the program.
fn budget_kib() -> i64 {
    (NAME_BYTES as i64 * 5 / 2 + (40 << 20)) / 1024
}

/// The table's budget: 4.5 times the name, plus the program. Its answer line names the
/// op: the model's name, the rows' own copy, the answer's and the line's are four (it
/// was seven).
fn table_budget_kib() -> i64 {
    (NAME_BYTES as i64 * 9 / 2 + (40 << 20)) / 1024
}

/// Writes a trace of normal cpu_op events and one whose name is [`NAME_BYTES`] bytes
/// (its last character written as an escape, `\u00e9`); returns that name.
fn write_trace(path: &Path) -> String {
    let head = "aten::huge_";
    let mut name = String::with_capacity(NAME_BYTES);
    name.push_str(head);
    name.extend(std::iter::repeat_n('a', NAME_BYTES - head.len() - 2));
    name.push('é');
    assert_eq!(name.len(), NAME_BYTES);
    let ev = |name: &str, ts: u32, dur: u32| {
        format!(
            r#"{{"ph":"X","cat":"cpu_op","name":"{name}","pid":1,"tid":1,"ts":{ts},"dur":{dur}}},"#
        )
    };
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    f.write_all(b"{\"traceEvents\":[\n").unwrap();
    f.write_all(ev("aten::linear", 10, 100).as_bytes()).unwrap();
    f.write_all(ev("aten::addmm", 20, 50).as_bytes()).unwrap();
    f.write_all(br#"{"ph":"X","cat":"cpu_op","pid":1,"tid":1,"ts":200,"dur":1000,"name":""#)
        .unwrap();
    f.write_all(&name.as_bytes()[..name.len() - 2]).unwrap();
    f.write_all(b"\\u00e9\"},\n").unwrap();
    f.write_all(ev("aten::relu", 3000, 20).as_bytes()).unwrap();
    f.write_all(
        br#"{"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":1,"ts":4000,"dur":20}]}"#,
    )
    .unwrap();
    f.flush().unwrap();
    name
}

#[cfg(target_os = "linux")]
#[test]
fn a_huge_name_is_kept_whole_and_held_about_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge_name.json");
    let name = write_trace(&path);
    let (trace, out) = (path.to_str().unwrap(), dir.path().join("out"));
    let out = out.to_str().unwrap();

    let (code, kib) =
        child::peak_rss_kib_or_zero(BIN, &["report", "--format", "json", "-o", out, trace]);
    assert_eq!(code, Some(0));
    eprintln!(
        "json: peak RSS {kib} KiB for a name of {} KiB",
        NAME_BYTES / 1024
    );
    assert!(
        kib < budget_kib(),
        "json: peak RSS {kib} KiB > {} KiB",
        budget_kib()
    );
    // The name is all there, once, with its one call.
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(out).unwrap()).unwrap();
    let ops = v["ops"].as_array().unwrap();
    let huge: Vec<_> = ops
        .iter()
        .filter(|o| o["name"].as_str().unwrap().len() > 100)
        .collect();
    assert_eq!(huge.len(), 1);
    assert!(
        huge[0]["name"].as_str() == Some(name.as_str()),
        "the name is not kept whole"
    );
    assert_eq!(huge[0]["calls"], 1);
    assert_eq!(huge[0]["inclusive_total"], 1.0); // 1000 µs in ms
    assert_eq!(ops.len(), 4);

    let (code, kib) =
        child::peak_rss_kib_or_zero(BIN, &["report", "--format", "tally", "-o", out, trace]);
    assert_eq!(code, Some(0));
    eprintln!("tally: peak RSS {kib} KiB");
    assert!(
        kib < budget_kib(),
        "tally: peak RSS {kib} KiB > {} KiB",
        budget_kib()
    );
    // iprof's cut of an 80-character name column: 37 characters, `[...]`, the last 38.
    let cut = format!("{}[...]{}", &name[..37], &name[name.len() - 39..]);
    let tally = std::fs::read_to_string(out).unwrap();
    assert!(tally.contains(&format!("{cut} | ")), "{tally}");

    let (code, kib) = child::peak_rss_kib_or_zero(BIN, &["report", "-o", out, trace]);
    assert_eq!(code, Some(0));
    eprintln!("table: peak RSS {kib} KiB");
    let budget = table_budget_kib();
    assert!(kib < budget, "table: peak RSS {kib} KiB > {budget} KiB");
    // The op with the most self time (1000 µs, none of it in children) opens the answer
    // line, its name whole.
    let table = std::fs::read_to_string(out).unwrap();
    assert!(
        table.starts_with(&format!("{name} ")),
        "the answer line does not name it"
    );
}
