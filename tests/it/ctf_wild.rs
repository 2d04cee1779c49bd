//! The CTF reader on traces nobody on this project wrote: babeltrace2's own CTF test
//! corpus (`fixtures/ctf-wild/succeed`, `fail`; origin and licence in its README) against
//! what babeltrace2 2.0.4 printed for each (`fixtures/ctf-wild/golden`, made by the
//! commands in the README: no babeltrace2 needed here), a trace of op events whose names
//! are text sequences and arrays (written byte by byte by
//! `scripts/make-ctf-text-array-trace.py`, read by babeltrace2 for the golden), and the
//! directory layouts LTTng and babeltrace2 know, built from the real recording
//! `fixtures/thapi/ctf` (72 events, README there).

use crate::common;

use std::path::{Path, PathBuf};

use common::{copy_dir, fixture, report};
use cpuprof_tui::trace::{self, ctf, OpEventKind};

fn wild(rel: &str) -> PathBuf {
    fixture("ctf-wild").join(rel)
}

/// `SECONDS.NANOS` of an absolute ns time, as `babeltrace2 --clock-seconds` prints it.
fn seconds(ns: i64) -> String {
    format!(
        "{}.{:09}",
        ns.div_euclid(1_000_000_000),
        ns.rem_euclid(1_000_000_000)
    )
}

/// Events as (absolute ns, event class name), and warnings.
type Read = (Vec<(i64, String)>, Vec<String>);

/// Every event of the trace directory `dir`, in our merge order, and the warnings; or
/// the error.
fn our_events(dir: &Path) -> Result<Read, String> {
    let (traces, mut warnings) = ctf::open_traces(dir, cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE)
        .map_err(|e| e.to_string())?;
    let mut events = Vec::new();
    let more = ctf::for_each_event(&traces, |ev| {
        events.push((ev.ts_ns, ev.class_name.to_string()))
    })
    .map_err(|e| e.to_string())?;
    warnings.extend(more);
    Ok((events, warnings.into_iter().map(|w| w.message).collect()))
}

#[test]
fn every_succeed_trace_reads_as_babeltrace2_prints_it() {
    let mut goldens: Vec<PathBuf> = std::fs::read_dir(wild("golden"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".bt2.txt"))
        .collect();
    goldens.sort();
    let mut compared = 0;
    let mut events_total = 0;
    for golden in goldens {
        let file = golden.file_name().unwrap().to_string_lossy().into_owned();
        let name = file.trim_end_matches(".bt2.txt");
        let dir = wild("succeed").join(name);
        if !dir.is_dir() {
            continue; // thapi-text-array's golden is babeltrace2's pretty text, below
        }
        let text = std::fs::read_to_string(&golden).unwrap();
        let want: Vec<(&str, &str)> = text.lines().map(|l| l.split_once(' ').unwrap()).collect();
        let (got, warnings) = our_events(&dir).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got.len(), want.len(), "{name}: event count");
        // Names in order where babeltrace2 printed no time; else the same (time, name)
        // pairs (the order of equal times is the merge's own) and times never going back.
        if want.iter().all(|(ts, _)| *ts == "-") {
            let names: Vec<&str> = got.iter().map(|(_, n)| n.as_str()).collect();
            let want_names: Vec<&str> = want.iter().map(|(_, n)| *n).collect();
            assert_eq!(names, want_names, "{name}");
        } else {
            let mut ours: Vec<String> = got
                .iter()
                .map(|(ts, n)| format!("{} {n}", seconds(*ts)))
                .collect();
            let mut theirs: Vec<String> = want.iter().map(|(t, n)| format!("{t} {n}")).collect();
            ours.sort();
            theirs.sort();
            assert_eq!(ours, theirs, "{name}");
            assert!(got.windows(2).all(|w| w[0].0 <= w[1].0), "{name}: order");
        }
        for w in &warnings {
            assert!(!w.contains("Path(") && !w.contains("[\""), "{name}: {w}");
        }
        compared += 1;
        events_total += want.len();
    }
    // 26 traces, every one babeltrace2 reads (meta-ctx-sequence: babeltrace2 2.0.4 aborts
    // on it, its golden is empty and ours reads no event either).
    assert_eq!(compared, 26);
    assert_eq!(events_total, 7809 * 2 + 4272 + 4000 + 400 + 266 + 65);
}

#[test]
fn unknown_attributes_are_warnings_on_babeltrace2s_lines() {
    let (events, warnings) = our_events(&wild("succeed/warnings")).unwrap();
    assert_eq!(events.len(), 7809);
    // babeltrace2's warnings (stderr, kept in the golden): the same attributes, the same
    // metadata lines.
    let theirs = std::fs::read_to_string(wild("golden/warnings.bt2-stderr.txt")).unwrap();
    let mut n = 0;
    for l in theirs.lines() {
        let line: usize = l["At line ".len()..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let attr = l
            .rsplit_once("attr-name=\"")
            .unwrap()
            .1
            .trim_end_matches('"');
        let want = format!("metadata: line {line}: unknown attribute `{attr}`");
        assert!(
            warnings.iter().any(|w| w.starts_with(&want)),
            "{want} in {warnings:?}"
        );
        n += 1;
    }
    assert_eq!(n, 5);
    // Through the CLI: it holds no op event (one line, exit 2), and no Rust debug text.
    let o = report(&[
        wild("succeed/warnings").to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("7809 events in 1 trace directory"), "{err}");
    assert!(!err.contains("Path(") && !err.contains("[\""), "{err}");
}

#[test]
fn character_constants_and_escapes_parse_as_in_c() {
    // succeed3: `test3 = '\n';` and `"?\x20\040?"` in the trace block.
    let (events, _) = our_events(&wild("succeed/succeed3")).unwrap();
    assert_eq!(events.len(), 7809);
    let env = |text: &str| {
        let m = ctf::tsdl::parse_metadata(&format!(
            "/* CTF 1.8 */\ntrace {{ major = 1; minor = 8; byte_order = le; }};\nenv {{\n{text}\n}};\n"
        ));
        m.map(|m| m.env)
    };
    use ctf::tsdl::EnvValue::{Int, Str};
    let e = env("a = '\\n'; b = 'A'; c = '\\x41'; d = '\\101'; s = \"?\\x20\\040?\\\"\";").unwrap();
    assert_eq!(
        e,
        vec![
            ("a".into(), Int(10)),
            ("b".into(), Int(65)),
            ("c".into(), Int(65)),
            ("d".into(), Int(65)),
            ("s".into(), Str("?  ?\"".into())),
        ]
    );
    // fail2 of the corpus: a valid '\n' on one line, the bad `\o` escape on the next; the
    // error is the escape, on its line (babeltrace2: line 9 for fail2).
    let e = env("a = '\\n';\nb = \"?\\o040\";").unwrap_err();
    assert_eq!(e.line, 5, "{e}");
    assert!(e.message.contains("unknown escape sequence `\\o`"), "{e}");
    for bad in ["a = '';", "a = 'ab';", "a = '\\q';", "a = 'x"] {
        let e = env(bad).unwrap_err();
        assert_eq!(e.line, 4, "{bad}: {e}");
    }
}

#[test]
fn fail_traces_are_errors_where_babeltrace2_fails() {
    let table = std::fs::read_to_string(wild("golden/fail.bt2.tsv")).unwrap();
    let mut n = 0;
    for row in table.lines() {
        let f: Vec<&str> = row.split('\t').collect();
        let (name, line, printed) = (f[0], f[2], f[3].parse::<usize>().unwrap());
        let dir = wild("fail").join(name);
        let got = our_events(&dir);
        n += 1;
        match name {
            // babeltrace2: "Invalid target field path for path string: path=\"len\"" (a
            // struct where the sequence length belongs), the same for a variant tag.
            "invalid-sequence-length-field-class" => {
                let e = got.err().unwrap();
                assert!(
                    e.contains("sequence length `len` is not an integer field"),
                    "{e}"
                );
                continue;
            }
            "invalid-variant-selector-field-class" => {
                let e = got.err().unwrap();
                assert!(
                    e.contains("variant tag `selector` is not an enum field"),
                    "{e}"
                );
                continue;
            }
            // babeltrace2 prints the 2 good events then fails; we give them with a warning
            // naming the bad event.
            "valid-events-then-invalid-events" => {
                let (events, warnings) = got.unwrap();
                assert_eq!(events.len(), printed, "{name}");
                assert!(
                    warnings.iter().any(|w| w.contains("unknown event id 255")),
                    "{warnings:?}"
                );
                continue;
            }
            _ => {}
        }
        let e = got
            .err()
            .unwrap_or_else(|| panic!("{name}: read without an error"));
        assert!(!e.contains("Path(") && !e.contains("[\""), "{name}: {e}");
        if line != "-" {
            assert!(
                e.contains(&format!("metadata: line {line}: ")),
                "{name}: {e}"
            );
        }
        if name == "packet-based-metadata" || name == "lttng-modules-2.0-pre1" {
            // babeltrace2: "Invalid metadata packet version: version=116.121, offset=0".
            assert!(
                e.contains("metadata packet at offset 0") && e.contains("version 116.121"),
                "{name}: {e}"
            );
        }
    }
    assert_eq!(n, 11);
}

/// The fields babeltrace2 printed for each event of the text-array trace: (event name,
/// vtid, name, overload_name).
fn bt2_text_array_events() -> Vec<(String, i64, String, String)> {
    let text = std::fs::read_to_string(wild("golden/thapi-text-array.bt2.txt")).unwrap();
    let field = |l: &str, key: &str| -> String {
        let at = l.find(&format!(" {key} = ")).unwrap() + key.len() + 4;
        let rest = &l[at..];
        match rest.strip_prefix('"') {
            Some(q) => q[..q.find('"').unwrap()].to_string(),
            None => rest[..rest.find([',', ' ']).unwrap()].to_string(),
        }
    };
    text.lines()
        .map(|l| {
            // `[time] (+delta) host:procname:(vpid) EVENT: { ...`
            assert!(l.contains("wild:textarr:(4242) "), "{l}");
            let ev = l.split(") ").nth(2).unwrap();
            let ev = ev[..ev.find(": ").unwrap()].to_string();
            (
                ev,
                field(l, "vtid").parse().unwrap(),
                field(l, "name"),
                field(l, "overload_name"),
            )
        })
        .collect()
}

#[test]
fn op_names_in_text_sequences_and_arrays_read_as_babeltrace2_shows_them() {
    let dir = wild("thapi-text-array");
    let want = bt2_text_array_events();
    assert_eq!(want.len(), 8);
    let (events, warnings) =
        ctf::read_op_events(&dir, cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(events.len(), want.len());
    for (e, (ev, vtid, name, overload)) in events.iter().zip(&want) {
        let kind = match ev.as_str() {
            "lttng_ust_pytorch:op_entry" => OpEventKind::Entry,
            _ => OpEventKind::Exit,
        };
        assert_eq!(e.kind, kind);
        assert_eq!(e.vtid, *vtid);
        // The process id is only in the trace environment (babeltrace2 prints it as
        // `(4242)` from there).
        assert_eq!(e.vpid, 4242);
        assert_eq!(&e.name, name);
        assert_eq!(e.overload_name.as_deref(), Some(overload.as_str()));
    }
    // Paired: times from the script's table (ns after the clock offset).
    let p = trace::load_trace(&dir).unwrap();
    assert!(
        !p.warnings.iter().any(|w| w.kind == "missing_context"),
        "{:?}",
        p.warnings
    );
    let op = |n: &str| p.op(n).unwrap_or_else(|| panic!("{n}"));
    assert_eq!(op("aten::linear").calls, 1);
    assert_eq!(op("aten::linear").inclusive_total_ns, 1000);
    // An op with an overload is keyed `name.overload`, as THAPI names it.
    assert_eq!(op("aten::addmm.out").inclusive_total_ns, 400);
    assert_eq!(op("aten::relu").inclusive_total_ns, 100);
    assert_eq!(op("aten::abs.out").inclusive_total_ns, 300);
    assert!(
        p.threads.iter().all(|t| t.key.pid == 4242),
        "{:?}",
        p.threads
    );
    assert_eq!(p.threads.len(), 2);
}

#[test]
fn babeltrace2_text_of_a_per_process_trace_keeps_its_pid() {
    // babeltrace2 prints the environment's vpid before the event name
    // (`wild:textarr:(4242)`, `trace:vpid = (4242)` with --names=all); the text reader
    // takes it, and the host is the host alone.
    let native = trace::load_trace(&wild("thapi-text-array")).unwrap();
    for golden in [
        "golden/thapi-text-array.bt2.txt",
        "golden/thapi-text-array.bt2-names-all.txt",
    ] {
        let p = trace::load_trace(&wild(golden)).unwrap();
        assert!(
            !p.warnings.iter().any(|w| w.kind == "missing_context"),
            "{golden}: {:?}",
            p.warnings
        );
        let keys: Vec<_> = p.threads.iter().map(|t| t.key.clone()).collect();
        assert_eq!(
            keys,
            native
                .threads
                .iter()
                .map(|t| t.key.clone())
                .collect::<Vec<_>>(),
            "{golden}"
        );
        assert!(keys
            .iter()
            .all(|k| k.pid == 4242 && k.host.as_deref() == Some("wild")));
        for op in &native.ops {
            let o = p.op(&op.name).unwrap();
            assert_eq!(
                (o.calls, o.inclusive_total_ns),
                (op.calls, op.inclusive_total_ns),
                "{golden}: {}",
                op.name
            );
        }
    }
}

// ------------------------------------------------------------------ layouts

/// The real recording's trace directory (72 events, 72 op events: its README).
fn recording() -> PathBuf {
    fixture("thapi/ctf/ust/uid/0/64-bit")
}

const RECORDING_EVENTS: u64 = 72;

/// The profile of `root` and its note of the traces read (`traces_read`, or
/// `traces_below_root` when some were found below the session's own layout).
fn load_with_note(root: &Path) -> (trace::TraceProfile, String) {
    let p = trace::load_trace(root).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
    let note = p
        .warnings
        .iter()
        .filter(|w| w.kind == "traces_read" || w.kind == "traces_below_root")
        .map(|w| w.message.clone())
        .collect::<Vec<_>>()
        .join("\n");
    (p, note)
}

#[test]
fn a_session_with_kernel_and_a_ust_holding_its_metadata_is_read_whole() {
    // multi-domains of babeltrace2's corpus has this layout (4,272 events, 4,000 of them
    // in ust/): checked against babeltrace2 above; here with op events.
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&recording(), &tmp.path().join("kernel"));
    copy_dir(&recording(), &tmp.path().join("ust"));
    let (p, note) = load_with_note(tmp.path());
    assert_eq!(p.counts.events, 2 * RECORDING_EVENTS);
    assert_eq!(p.counts.op_events, 2 * RECORDING_EVENTS);
    assert_eq!(p.op("aten::linear").unwrap().calls, 10);
    assert!(p.warnings.iter().any(|w| w.kind == "traces_read"));
    assert!(
        note.contains("2 trace directories read together: kernel (72 events), ust (72 events); 144 events in all"),
        "{note}"
    );
}

#[test]
fn session_rotation_chunks_and_lttng_archives_are_all_found() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    // Rotation chunks two levels down (babeltrace2's session-rotation: a/1/ust/...).
    copy_dir(&recording(), &root.join("rot/a/1/ust/uid/0/64-bit"));
    copy_dir(&recording(), &root.join("rot/a/2/ust/uid/0/64-bit"));
    copy_dir(
        &recording(),
        &root.join("rot/3/ust/pid/app-12-20261201/64-bit"),
    );
    let (p, note) = load_with_note(&root.join("rot"));
    assert_eq!(p.counts.events, 3 * RECORDING_EVENTS);
    // The kind the note had before #44 for traces below the root.
    assert!(p.warnings.iter().any(|w| w.kind == "traces_below_root"));
    assert!(
        note.starts_with("3 trace directories found in folders below the root, read together: 3/ust/pid/app-12-20261201/64-bit (72 events), a/1/ust/uid/0/64-bit (72 events), a/2/ust/uid/0/64-bit (72 events); 216 events in all"),
        "{note}"
    );
    // LTTng's own rotation: archives/<chunk>/ust/uid/0/64-bit, in a folder of sessions.
    let chunk = |i: u32| {
        format!("sessions/s1-20261201-000000/archives/20261201T00000{i}+0000-20261201T00000{}+0000-{i}/ust/uid/0/64-bit", i + 1)
    };
    for i in 0..4 {
        copy_dir(&recording(), &root.join(chunk(i)));
    }
    let (p, note) = load_with_note(&root.join("sessions"));
    assert_eq!(p.counts.events, 4 * RECORDING_EVENTS);
    assert_eq!(p.counts.op_events, 4 * RECORDING_EVENTS);
    assert!(note.starts_with("4 trace directories found"), "{note}");
    assert!(note.ends_with("; 288 events in all"), "{note}");
    // Through the CLI: read, and the note says what was read from where.
    let o = report(&[root.join("sessions").to_str().unwrap(), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("s1-20261201-000000/archives/"), "{err}");
    assert!(err.contains("288 events in all"), "{err}");
}

/// A folder of sessions with a second name for one (`latest -> s1`, as scripts make) and
/// a link back up (`s1/up -> ..`): each trace is read once, by its first name in the
/// search's sorted order, never twice nor in a loop (72 events a copy, the recording's).
#[test]
fn symlinked_folders_never_read_a_trace_twice() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("sessions");
    copy_dir(&recording(), &root.join("s1/ust/uid/0/64-bit"));
    copy_dir(&recording(), &root.join("s2/ust/uid/0/64-bit"));
    std::os::unix::fs::symlink("s1", root.join("latest")).unwrap();
    std::os::unix::fs::symlink("..", root.join("s1/up")).unwrap();
    let (p, note) = load_with_note(&root);
    assert_eq!(p.counts.events, 2 * RECORDING_EVENTS, "{note}");
    assert!(note.ends_with("; 144 events in all"), "{note}");
}

#[test]
fn the_search_stays_bounded_in_depth() {
    let tmp = tempfile::tempdir().unwrap();
    // 10 folders below the root: found; 11: not.
    let deep = |n: usize| {
        (0..n)
            .map(|i| format!("d{i}"))
            .collect::<Vec<_>>()
            .join("/")
    };
    copy_dir(&recording(), &tmp.path().join("ok").join(deep(10)));
    copy_dir(&recording(), &tmp.path().join("no").join(deep(11)));
    assert_eq!(ctf::MAX_SEARCH_DEPTH, 10);
    assert_eq!(
        ctf::find_trace_dirs(&tmp.path().join("ok")).unwrap().len(),
        1
    );
    let e = ctf::find_trace_dirs(&tmp.path().join("no"))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("not a CTF trace directory"), "{e}");
}
