//! The byte-flip suites, through a pipe: a mutated input given as `-` (standard input)
//! gets the same verdict as the same bytes in a file (exit status, report, messages),
//! and never a crash. The file path and `<stdin>` are the only difference allowed.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use proptest::prelude::*;

const BIN: &str = env!("CARGO_BIN_EXE_cpuprof-tui");

const INPUTS: [&[u8]; 5] = [
    include_bytes!("../../fixtures/cpu/mlp_basic.etdp"),
    include_bytes!("../../fixtures/thapi/babeltrace2_pretty_clock_seconds.txt"),
    include_bytes!("../../fixtures/hostile/thapi_missing_brace.txt"),
    include_bytes!("../../fixtures/torch/cnn_infer.json"),
    include_bytes!("../../fixtures/torch/cnn_train.json.gz"),
];

fn run(args: &[&str], stdin: Option<Vec<u8>>) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let writer = stdin.map(|bytes| {
        let mut pipe = child.stdin.take().unwrap();
        std::thread::spawn(move || {
            // Written in pieces: a pipe delivers short reads.
            for chunk in bytes.chunks(777) {
                if pipe.write_all(chunk).is_err() {
                    return;
                }
            }
        })
    });
    let out = child.wait_with_output().unwrap();
    if let Some(w) = writer {
        w.join().unwrap();
    }
    out
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 24,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_pipe_gets_the_verdict_of_a_file(
        which in 0..INPUTS.len(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        format in prop_oneof![Just("json"), Just("csv"), Just("table")],
    ) {
        let mut bytes = INPUTS[which].to_vec();
        for (at, b) in &flips {
            let i = at.index(bytes.len());
            bytes[i] = *b;
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("input.bin");
        std::fs::write(&path, &bytes).unwrap();
        let p = path.to_str().unwrap();
        let from_file = run(&["report", p, "--format", format, "--allow-missing"], None);
        let from_pipe = run(&["report", "-", "--format", format, "--allow-missing"], Some(bytes));
        prop_assert!(from_file.status.code().is_some(), "killed by a signal");
        prop_assert_eq!(from_file.status.code(), from_pipe.status.code());
        let norm = |o: &[u8]| String::from_utf8_lossy(o).replace(p, "<stdin>");
        prop_assert_eq!(norm(&from_file.stdout), norm(&from_pipe.stdout));
        prop_assert_eq!(norm(&from_file.stderr), norm(&from_pipe.stderr));
        // One line per message, each naming the tool.
        for line in norm(&from_pipe.stderr).lines() {
            prop_assert!(line.starts_with("cpuprof-tui: "), "{}", line);
        }
    }
}
