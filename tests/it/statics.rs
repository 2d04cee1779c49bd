//! Options travel as a value (#46): no option, flag or serde switch in a `static` or a
//! `thread_local!`. The statics that remain are each named below with why a static is the
//! only place for it (signal handlers, process-wide tables of constants, caches of
//! immutable data); a new one fails this test until it is added here with its reason.

use std::collections::BTreeSet;
use std::path::Path;

use crate::source_layout::{code, rs_files};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// (file under the repository, static's name): the reason.
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "src/signals.rs",
        "TERMINAL_RESTORE",
        "read by the signal thread",
    ),
    (
        "src/signals.rs",
        "INSTALL",
        "the handlers are installed once per process",
    ),
    (
        "src/signals.rs",
        "FORWARD",
        "read by the signal thread (run's grace in its closure)",
    ),
    (
        "src/signals.rs",
        "BY_PROCESS",
        "written by an async-signal-safe handler",
    ),
    (
        "src/tui.rs",
        "RESTORED",
        "read by the panic hook and the signal thread",
    ),
    (
        "src/run/child.rs",
        "ACTIVE",
        "the runner, for the signal thread",
    ),
    ("src/run/child.rs", "CHANGED", "waits on ACTIVE"),
    ("src/run/child.rs", "SIGNALLED", "set by the signal thread"),
    ("src/app/key_tables.rs", "FILTER", "a constant key table"),
    ("src/app/keys.rs", "LANGUAGE", "a constant key table"),
    (
        "src/views/compare/keys.rs",
        "COMPARE",
        "a constant key table",
    ),
    ("src/views/dialog/keys.rs", "DIALOG", "a constant key table"),
    (
        "src/views/explorer/keys.rs",
        "EXPLORER",
        "a constant key table",
    ),
    ("src/views/flame/keys.rs", "FLAME", "a constant key table"),
    ("src/views/fleet/keys.rs", "FLEET", "a constant key table"),
    ("src/views/help/keys.rs", "HELP", "a constant key table"),
    ("src/views/log/keys.rs", "LOG", "a constant key table"),
    (
        "src/views/modules/keys.rs",
        "MODULES",
        "a constant key table",
    ),
    (
        "src/views/timeline/keys.rs",
        "TIMELINE",
        "a constant key table",
    ),
    (
        "crates/cpuprof-core/src/input.rs",
        "CACHE",
        "bytes of inputs already read (immutable)",
    ),
    (
        "crates/cpuprof-core/src/trace/fields.rs",
        "CLASS",
        "a constant byte table",
    ),
    (
        "crates/cpuprof-core/src/stats/shift.rs",
        "CDFS",
        "a cache of constant tables",
    ),
    (
        "crates/cpuprof-core/src/report/json_format.rs",
        "TEXT",
        "a constant text table",
    ),
    (
        "crates/cpuprof-core/src/input/map_guard.rs",
        "TABLE",
        "mapped ranges, for the SIGBUS handler",
    ),
    (
        "crates/cpuprof-core/src/input/map_guard.rs",
        "HIGH",
        "for the SIGBUS handler",
    ),
    (
        "crates/cpuprof-core/src/input/map_guard.rs",
        "PREVIOUS",
        "the SIGBUS handler it chains to",
    ),
    (
        "crates/cpuprof-core/src/input/map_guard.rs",
        "PAGE",
        "the page size, for the SIGBUS handler",
    ),
    (
        "crates/cpuprof-core/src/output/temp_files.rs",
        "TEMP_FILES",
        "removed by the signal thread",
    ),
];

/// Every `static NAME` (and `static mut NAME`) of the library code: the TUI crate, the
/// core, the Python bindings; the trailing unit-test module and comments left out.
fn statics() -> BTreeSet<(String, String)> {
    let files = ["src", "crates/cpuprof-core/src", "python/src"]
        .into_iter()
        .flat_map(|dir| rs_files(&Path::new(ROOT).join(dir)));
    let mut found = BTreeSet::new();
    for f in files {
        let rel = f.strip_prefix(ROOT).unwrap().display().to_string();
        for line in code(&f).lines() {
            let l = line.trim_start();
            // `static X`, `pub static X`, `pub(crate) static X`.
            let l = match l.strip_prefix("pub") {
                Some(r) if r.starts_with('(') => r.split_once(") ").map_or(r, |(_, r)| r),
                Some(r) => r.trim_start(),
                None => l,
            };
            let Some(rest) = l.strip_prefix("static ") else {
                continue;
            };
            let rest = rest.trim_start_matches("mut ");
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.insert((rel.clone(), name));
            }
        }
    }
    found
}

#[test]
fn no_option_lives_in_a_static() {
    let allowed: BTreeSet<(String, String)> = ALLOWED
        .iter()
        .map(|(f, n, _)| (f.to_string(), n.to_string()))
        .collect();
    let found = statics();
    let new: Vec<_> = found.difference(&allowed).collect();
    assert!(
        new.is_empty(),
        "statics not in the list (an option belongs in the request/options value): {new:#?}"
    );
    // The list is kept true: a static removed from the code leaves it too.
    let gone: Vec<_> = allowed.difference(&found).collect();
    assert!(gone.is_empty(), "listed but gone: {gone:#?}");
}

/// The scan sees statics (it would pass on an empty scan otherwise).
#[test]
fn the_scan_finds_the_signal_statics() {
    let found = statics();
    assert!(found.contains(&("src/signals.rs".into(), "FORWARD".into())));
    assert!(found.len() >= 20, "{}", found.len());
}
