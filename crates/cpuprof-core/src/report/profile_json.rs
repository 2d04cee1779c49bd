//! `profile.json` written field by field; a big profile's text formatted once on a
//! thread of its own while the calling thread writes.
//!
//! The top-level `method`, `delegates`, `other_operators` and `remainder` describe
//! `methods[0]` (the contract keeps both), and they come in the same order in both
//! objects: nearly all of a big profile's text, twice. A second thread formats them once
//! and keeps that text; the caller writes it at the top level as it comes, then the
//! fields between, and then the same text again nested two levels deeper, which the
//! second thread re-indents meanwhile (our layout's only newlines are its own). Writing
//! a file costs the kernel about as much as formatting it, so on two cores the two
//! overlap. The rows come from the row model (`profile_rows`), the rest from the
//! profile; the bytes are exactly those of serializing [`Profile`] with
//! [`super::json_format::write_json`] (a test checks every fixture, and both paths).
//!
//! Memory: the kept text is about 10 bytes a sample, against the 8 a sample takes in the
//! profile, so the peak is bounded by the model; the chunks in flight are bounded too.

use std::io::{self, Write};

use serde::Serialize;

use super::json_chunks::{make_aside, send_reindented, ChunkSender};
use super::json_format::{write_value_at, TOP_LEVEL_INDENT};
use super::profile_rows::{MethodDoc, MethodRows};
use crate::profile::{MethodProfile, Profile};
use crate::rows::RowTree;

/// Chunks in flight from the formatting thread to the writer.
const CHUNKS_IN_FLIGHT: usize = 16;
/// Below this many samples one thread is as fast (no thread started).
const PARALLEL_MIN_SAMPLES: usize = 20_000;
/// The indent of `methods[0]`'s keys, and what nests its values deeper than the
/// top-level ones (two levels: the array, the object).
const FIRST_METHOD_INDENT: usize = TOP_LEVEL_INDENT + 2;
const TWO_LEVELS: &[u8] = b"    ";

/// Write `profile` as `profile.json`, newline-terminated: the document's own fields from
/// the profile, every row from `tree` (`RowTree::from_profile(profile)`: its method rows
/// are `profile.methods`, in order; the top-level rows are the first method's).
pub fn write_profile(w: &mut dyn Write, profile: &Profile, tree: &RowTree) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 18, w);
    let top = MethodRows::new(tree, tree.roots[0]);
    let methods: Vec<(&MethodProfile, MethodRows)> = profile
        .methods
        .iter()
        .zip(&tree.roots)
        .map(|(m, &root)| (m, MethodRows::new(tree, root)))
        .collect();
    let shared = methods
        .first()
        .filter(|_| sample_count(profile, tree) >= PARALLEL_MIN_SAMPLES);
    let Some(&(first, _)) = shared else {
        let mut fields = Fields::at(TOP_LEVEL_INDENT);
        before_rows(&mut out, &mut fields, profile)?;
        rows(&mut out, &mut fields, top)?;
        after_rows(&mut out, &mut fields, profile)?;
        let docs: Vec<MethodDoc> = methods
            .iter()
            .map(|&(m, rows)| MethodDoc::new(m, rows))
            .collect();
        fields.write(&mut out, "methods", &docs)?;
        tail(&mut out, &mut fields, profile)?;
        return out.flush();
    };
    std::thread::scope(|scope| -> io::Result<()> {
        let mut text = make_aside(scope, CHUNKS_IN_FLIGHT, move |w: &mut ChunkSender| {
            w.retain();
            // Separated and indented as the top-level fields after `runs`.
            rows(w, &mut Fields::after_first(TOP_LEVEL_INDENT), top)?;
            let kept = w.mark()?;
            send_reindented(w, kept, TWO_LEVELS)
        });
        let mut fields = Fields::at(TOP_LEVEL_INDENT);
        let before = before_rows(&mut out, &mut fields, profile)
            .and_then(|()| text.write_until_mark(&mut out).map(|_| ()))
            .and_then(|()| after_rows(&mut out, &mut fields, profile))
            .and_then(|()| {
                fields.key(&mut out, "methods")?;
                // `[`, then the first element on a line of its own, as the layout
                // writes an array of objects.
                out.write_all(b"[\n    ")?;
                first_method_head(&mut out, first)
            });
        if let Err(e) = before {
            text.abandon();
            return Err(e);
        }
        // The first method's rows (the top-level ones) again, two levels deeper.
        text.finish(&mut out)?;
        first_method_tail(&mut out, first)?;
        for &(m, rows) in &methods[1..] {
            out.write_all(b",\n    ")?;
            write_value_at(&mut out, &MethodDoc::new(m, rows), FIRST_METHOD_INDENT - 1)?;
        }
        out.write_all(b"\n  ]")?;
        tail(&mut out, &mut fields, profile)?;
        out.flush()
    })
}

/// The opening brace and the top-level fields before the rows.
fn before_rows(w: &mut impl Write, fields: &mut Fields, profile: &Profile) -> io::Result<()> {
    // Every field named, none skipped with `..`: a field added to `Profile` fails to
    // compile here until it is written (in the place the derive would put it).
    let Profile {
        schema,
        unit,
        source,
        runs,
        method: _,
        delegates: _,
        other_operators: _,
        remainder: _, // the first method's rows, from the row model, in `rows`
        load: _,
        warnings: _,
        errors: _,    // these in `after_rows`
        log_lines: _, // not part of profile.json
        methods: _,   // written by the caller
        resolution: _,
        cold_runs: _,
        modules: _,
        model_files: _,
        loads: _,
        warmup_rule: _,
        dump: _, // these in `tail`
    } = profile;
    w.write_all(b"{")?;
    fields.write(w, "schema", schema)?;
    fields.write(w, "unit", unit)?;
    fields.write(w, "source", source)?;
    fields.write(w, "runs", runs)
}

/// The rows: `method`, `delegates`, `other_operators`, `remainder`.
fn rows(w: &mut impl Write, fields: &mut Fields, rows: MethodRows) -> io::Result<()> {
    fields.write(w, "method", &rows.method())?;
    fields.write(w, "delegates", &rows.delegates())?;
    fields.write(w, "other_operators", &rows.other_operators())?;
    fields.write(w, "remainder", &rows.remainder())
}

/// The top-level fields between the rows and `methods`.
fn after_rows(w: &mut impl Write, fields: &mut Fields, profile: &Profile) -> io::Result<()> {
    fields.write(w, "load", &profile.load)?;
    fields.write(w, "warnings", &profile.warnings)?;
    fields.write(w, "errors", &profile.errors)
}

/// `methods[0]` up to its rows: the opening brace and the fields before `method` (the
/// order `MethodDoc` writes them in).
fn first_method_head(w: &mut impl Write, m: &MethodProfile) -> io::Result<()> {
    let mut fields = Fields::at(FIRST_METHOD_INDENT);
    w.write_all(b"{")?;
    fields.write(w, "index", &m.index)?;
    fields.write(w, "name", &m.name)?;
    fields.write(w, "bundled_input_index", &m.bundled_input_index)?;
    fields.write(w, "runs", &m.runs)
}

/// `methods[0]` after its rows, and its closing brace.
fn first_method_tail(w: &mut impl Write, m: &MethodProfile) -> io::Result<()> {
    let mut fields = Fields::after_first(FIRST_METHOD_INDENT);
    fields.write(w, "warnings", &m.warnings)?;
    fields.write(w, "errors", &m.errors)?;
    fields.write(w, "load", &m.load)?;
    // Skipped when absent, as the derive says.
    if let Some(cold_runs) = &m.cold_runs {
        fields.write(w, "cold_runs", cold_runs)?;
    }
    fields.write(w, "modules", &m.modules)?;
    w.write_all(b"\n    }")
}

/// The top-level fields after `methods`, and the closing brace.
fn tail(w: &mut impl Write, fields: &mut Fields, profile: &Profile) -> io::Result<()> {
    let Profile {
        resolution,
        cold_runs,
        modules,
        model_files,
        loads,
        warmup_rule,
        dump,
        ..
    } = profile;
    if let Some(resolution) = resolution {
        fields.write(w, "resolution", resolution)?;
    }
    if let Some(cold_runs) = cold_runs {
        fields.write(w, "cold_runs", cold_runs)?;
    }
    fields.write(w, "modules", modules)?;
    if let Some(model_files) = model_files {
        fields.write(w, "model_files", model_files)?;
    }
    if !loads.is_empty() {
        fields.write(w, "loads", loads)?;
    }
    if let Some(rule) = warmup_rule {
        fields.write(w, "warmup_rule", rule)?;
    }
    if let Some(dump) = dump {
        fields.write(w, "dump", dump)?;
    }
    // As serde_json closes an object with keys ("{}" for none, which a profile never is).
    w.write_all(if fields.first { b"}\n" } else { b"\n}\n" })
}

/// About how many samples the profile holds (what the cost of its text grows with):
/// kept runs times rows.
fn sample_count(profile: &Profile, tree: &RowTree) -> usize {
    profile
        .methods
        .iter()
        .zip(&tree.roots)
        .map(|(m, &root)| {
            let rows = 1 + tree.descendant_count(root);
            m.runs.kept.saturating_mul(rows)
        })
        .fold(0, usize::saturating_add)
}

/// The keys of an object whose keys are at `indent`, as our layout separates and
/// indents them.
struct Fields {
    first: bool,
    indent: usize,
}

impl Fields {
    fn at(indent: usize) -> Fields {
        Fields {
            first: true,
            indent,
        }
    }

    /// Keys that follow others already written.
    fn after_first(indent: usize) -> Fields {
        Fields {
            first: false,
            indent,
        }
    }

    fn key(&mut self, w: &mut impl Write, key: &str) -> io::Result<()> {
        if !self.first {
            w.write_all(b",")?;
        }
        self.first = false;
        w.write_all(b"\n")?;
        for _ in 0..self.indent {
            w.write_all(b"  ")?;
        }
        // Our own field names: plain ASCII, nothing to escape.
        w.write_all(b"\"")?;
        w.write_all(key.as_bytes())?;
        w.write_all(b"\": ")
    }

    fn write<T: Serialize + ?Sized>(
        &mut self,
        w: &mut impl Write,
        key: &str,
        value: &T,
    ) -> io::Result<()> {
        self.key(w, key)?;
        write_value_at(w, value, self.indent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real profile whose first method has enough samples for the second thread, its
    /// top-level rows sharing them as a built profile's do (so the text is formatted
    /// once and written twice).
    fn big_profile() -> Profile {
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        let bytes = std::fs::read(root.join("fixtures/real/mlp_xnnpack.etdp")).unwrap();
        let dump = crate::etdump::parse(&bytes).unwrap();
        let source = crate::profile::ProfileSource {
            etdump: "mlp_xnnpack.etdp".into(),
            log: None,
        };
        let mut profile = crate::profile::build_profile(&dump, None, 0, source).unwrap();
        let stats = profile.methods[0].method.as_mut().unwrap();
        stats.samples = (0..PARALLEL_MIN_SAMPLES)
            .map(|i| (i * 7919 % 100_003) as i64)
            .collect::<Vec<i64>>()
            .into();
        profile.method = profile.methods[0].method.clone();
        profile.methods[0].runs.kept = PARALLEL_MIN_SAMPLES;
        let tree = RowTree::from_profile(&profile);
        assert!(sample_count(&profile, &tree) >= PARALLEL_MIN_SAMPLES);
        profile
    }

    /// A second method after the first (written by the derive after the re-indented
    /// first one).
    fn big_profile_two_methods() -> Profile {
        let mut profile = big_profile();
        let mut second = profile.methods[0].clone();
        second.index = 1;
        second.name = "forward \"2\"\n".into();
        second.cold_runs = None;
        profile.methods.push(second);
        profile
    }

    /// `profile` with a delegate event no step or operator claims (no fixture has one),
    /// in the first method and so at the top level.
    fn with_unattributed(mut profile: Profile) -> Profile {
        let d = &profile.methods[0].delegates[0];
        let event = crate::profile::EventStats {
            name: "unclaimed \"event\"".into(),
            stats: d.call.clone(),
            source: d.operators.iter().find_map(|o| o.source.clone()),
        };
        profile.methods[0].delegates[0].unattributed.push(event);
        profile.delegates = profile.methods[0].delegates.clone();
        profile
    }

    /// Every fixture's profile, and a big one, written field by field and in parallel,
    /// is byte for byte what serializing the whole `Profile` with the derive gives.
    #[test]
    fn same_bytes_as_the_derive() {
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        let mut checked = 0;
        let mut profiles = vec![
            big_profile(),
            big_profile_two_methods(),
            with_unattributed(big_profile()),
        ];
        for dir in ["fixtures/real", "fixtures/cpu", "fixtures/etrecord"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "etdp") {
                    // The log beside it (plans) and the ETRecord (sources), when there.
                    let mut request = crate::profile::ProfileRequest::new(path.clone(), None, 0);
                    request.model.etrecord = crate::profile::default_etrecord_for(&path);
                    let cancel = std::sync::atomic::AtomicBool::new(false);
                    if let Ok(p) = crate::profile::load_profile(&request, &mut |_| {}, &cancel) {
                        profiles.push(p);
                    }
                }
            }
        }
        // What the rows must carry is there: plans, steps' nodes, sources, kernels.
        let trees: Vec<RowTree> = profiles.iter().map(RowTree::from_profile).collect();
        let has = |f: &dyn Fn(&crate::rows::Row) -> bool| trees.iter().flat_map(|t| &t.rows).any(f);
        use crate::rows::{Facts, RowKind};
        assert!(has(&|r| matches!(
            &r.facts,
            Facts::Delegate { plan: Some(_), .. }
        )));
        assert!(has(
            &|r| matches!(&r.facts, Facts::Step { nodes, .. } if nodes.len() > 1)
        ));
        assert!(has(&|r| r.kind == RowKind::Operator && r.source.is_some()));
        assert!(has(&|r| r.kind == RowKind::Kernel && r.source.is_some()));
        assert!(has(&|r| r.facts == Facts::Unattributed));
        assert!(has(&|r| r.facts == Facts::Remainder));
        assert!(has(&|r| r.input_shapes.is_some() && r.flops.is_some()));
        assert!(profiles.iter().any(|p| p.methods.len() > 2));
        for mut profile in profiles {
            for cold in [false, true] {
                if cold {
                    // The optional tail fields too, the first method's included.
                    let cold = crate::profile::ColdRuns {
                        count: 2,
                        dropped: false,
                        reason: "test".into(),
                    };
                    profile.cold_runs = Some(cold.clone());
                    if let Some(m) = profile.methods.first_mut() {
                        m.cold_runs = Some(cold);
                    }
                }
                let mut want = Vec::new();
                super::super::json_format::write_json(&mut want, &profile).unwrap();
                let mut got = Vec::new();
                write_profile(
                    &mut got,
                    &profile,
                    &RowTree::from_profile_without_overhead(&profile),
                )
                .unwrap();
                assert!(got == want, "{}", profile.source.etdump);
                checked += 1;
            }
        }
        assert!(checked >= 20, "only {checked} profiles");
    }

    /// A closed writer: the methods thread must stop (not block forever) and the error
    /// must reach the caller.
    #[test]
    fn a_failing_writer_stops_both_threads() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let profile = big_profile();
        let tree = RowTree::from_profile(&profile);
        let err = write_profile(&mut Full, &profile, &tree).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::StorageFull);
    }
}
