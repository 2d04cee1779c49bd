//! `profile.json` written field by field, with the `methods` array serialized on a
//! second thread while this one writes the top-level fields.
//!
//! The top-level fields describe `methods[0]` (the contract keeps both), so the two
//! halves of a big profile's JSON are about the same size: on two cores the document
//! takes about half the time. The bytes are exactly those of serializing [`Profile`]
//! with [`super::json_format::write_json`] (a test checks every fixture).
//!
//! Memory stays bounded: the second thread hands its text over in chunks through a
//! bounded channel, and blocks when the writer falls behind.

use std::io::{self, Write};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use serde::Serialize;

use super::json_format::{write_value_at, TOP_LEVEL_INDENT};
use crate::profile::Profile;

/// Chunks handed from the `methods` thread to the writer.
const CHUNK_BYTES: usize = 1 << 20;
/// Chunks in flight at most (the memory the second thread may run ahead by).
const CHUNKS_IN_FLIGHT: usize = 16;
/// Below this many samples in `methods` one thread is as fast (no thread started).
const PARALLEL_MIN_SAMPLES: usize = 20_000;

/// Write `profile` as `profile.json`, newline-terminated.
pub fn write_profile(w: &mut dyn Write, profile: &Profile) -> io::Result<()> {
    // Every field named, none skipped with `..`: a field added to `Profile` fails to
    // compile here until it is written (in the place the derive would put it).
    let Profile {
        schema,
        unit,
        source,
        runs,
        method,
        delegates,
        other_operators,
        remainder,
        load,
        warnings,
        errors,
        log_lines: _, // not part of profile.json
        methods,
        resolution,
        cold_runs,
        modules,
        model_files,
        loads,
        warmup_rule,
    } = profile;
    let mut out = io::BufWriter::with_capacity(1 << 18, w);
    out.write_all(b"{")?;
    let mut fields = Fields { first: true };
    // `methods`, when big enough to be worth its own thread.
    let methods_aside = (sample_count(profile) >= PARALLEL_MIN_SAMPLES).then_some(methods);
    std::thread::scope(|scope| -> io::Result<()> {
        let chunks = methods_aside.map(|methods| {
            let (tx, rx) = sync_channel::<Vec<u8>>(CHUNKS_IN_FLIGHT);
            // Written chunks come back to be filled again: a fresh megabyte each time
            // would cost its page faults (and a copy) again.
            let (spare_tx, spare_rx) = sync_channel::<Vec<u8>>(CHUNKS_IN_FLIGHT + 1);
            let handle = scope.spawn(move || {
                let mut sender = ChunkSender {
                    buf: Vec::with_capacity(CHUNK_BYTES),
                    tx,
                    spare: spare_rx,
                };
                write_value_at(&mut sender, methods, TOP_LEVEL_INDENT)?;
                sender.send_rest()
            });
            ((rx, spare_tx), handle)
        });
        fields.write(&mut out, "schema", schema)?;
        fields.write(&mut out, "unit", unit)?;
        fields.write(&mut out, "source", source)?;
        fields.write(&mut out, "runs", runs)?;
        fields.write(&mut out, "method", method)?;
        fields.write(&mut out, "delegates", delegates)?;
        fields.write(&mut out, "other_operators", other_operators)?;
        fields.write(&mut out, "remainder", remainder)?;
        fields.write(&mut out, "load", load)?;
        fields.write(&mut out, "warnings", warnings)?;
        fields.write(&mut out, "errors", errors)?;
        match chunks {
            Some(((rx, spare_tx), handle)) => {
                fields.key(&mut out, "methods")?;
                let copied = copy_chunks(&mut out, rx, spare_tx);
                // The thread's own error (or panic) first: a failed copy only tells
                // that the thread stopped.
                let produced = handle.join().unwrap_or_else(|payload| {
                    Err(io::Error::other(format!(
                        "internal error while writing JSON: {}",
                        crate::threads::panic_message(&*payload)
                    )))
                });
                produced.and(copied)?;
            }
            None => fields.write(&mut out, "methods", methods)?,
        }
        if let Some(resolution) = resolution {
            fields.write(&mut out, "resolution", resolution)?;
        }
        if let Some(cold_runs) = cold_runs {
            fields.write(&mut out, "cold_runs", cold_runs)?;
        }
        fields.write(&mut out, "modules", modules)?;
        if let Some(model_files) = model_files {
            fields.write(&mut out, "model_files", model_files)?;
        }
        if !loads.is_empty() {
            fields.write(&mut out, "loads", loads)?;
        }
        if let Some(rule) = warmup_rule {
            fields.write(&mut out, "warmup_rule", rule)?;
        }
        Ok(())
    })?;
    // As serde_json closes an object with keys ("{}" for none, which a profile never is).
    out.write_all(if fields.first { b"}\n" } else { b"\n}\n" })?;
    out.flush()
}

/// About how many samples `methods` holds (what the cost of its text grows with): kept
/// runs times rows.
fn sample_count(profile: &Profile) -> usize {
    profile
        .methods
        .iter()
        .map(|m| {
            let rows: usize = m
                .delegates
                .iter()
                .map(|d| 1 + d.operators.len() + d.steps.len())
                .sum();
            m.runs
                .kept
                .saturating_mul(2 + rows + m.other_operators.len())
        })
        .fold(0, usize::saturating_add)
}

/// The keys of the top-level object, as serde_json separates and indents them.
struct Fields {
    first: bool,
}

impl Fields {
    fn key(&mut self, w: &mut impl Write, key: &str) -> io::Result<()> {
        w.write_all(if self.first { b"\n  \"" } else { b",\n  \"" })?;
        self.first = false;
        // Our own field names: plain ASCII, nothing to escape.
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
        write_value_at(w, value, TOP_LEVEL_INDENT)
    }
}

fn copy_chunks(
    out: &mut impl Write,
    rx: Receiver<Vec<u8>>,
    spare: SyncSender<Vec<u8>>,
) -> io::Result<()> {
    for mut chunk in rx {
        out.write_all(&chunk)?;
        chunk.clear();
        // Full only if the sender stopped taking them back; then the chunk is freed.
        let _ = spare.try_send(chunk);
    }
    Ok(())
}

/// A writer that sends what it is given in chunks of about [`CHUNK_BYTES`].
struct ChunkSender {
    buf: Vec<u8>,
    tx: SyncSender<Vec<u8>>,
    /// Chunks the writer is done with.
    spare: Receiver<Vec<u8>>,
}

impl ChunkSender {
    fn send(&mut self) -> io::Result<()> {
        let next = self
            .spare
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(CHUNK_BYTES));
        let full = std::mem::replace(&mut self.buf, next);
        // The receiver is gone only when the writer failed; it reports why.
        self.tx
            .send(full)
            .map_err(|_| io::Error::other("the JSON writer stopped"))
    }

    fn send_rest(mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        self.send()
    }
}

impl Write for ChunkSender {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.write_all(bytes)?;
        Ok(bytes.len())
    }

    #[inline]
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= CHUNK_BYTES {
            self.send()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real profile whose first method has enough samples for the second thread.
    fn big_profile() -> Profile {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(root.join("fixtures/real/mlp_xnnpack.etdp")).unwrap();
        let dump = crate::etdump::parse(&bytes).unwrap();
        let source = crate::profile::ProfileSource {
            etdump: "mlp_xnnpack.etdp".into(),
            log: None,
        };
        let mut profile = crate::profile::build_profile(&dump, None, 0, source).unwrap();
        let stats = profile.methods[0].method.as_mut().unwrap();
        stats.samples = vec![0.25; PARALLEL_MIN_SAMPLES].into();
        profile.methods[0].runs.kept = PARALLEL_MIN_SAMPLES;
        assert!(sample_count(&profile) >= PARALLEL_MIN_SAMPLES);
        profile
    }

    /// Every fixture's profile, and a big one, written field by field and in parallel,
    /// is byte for byte what serializing the whole `Profile` with the derive gives.
    #[test]
    fn same_bytes_as_the_derive() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut checked = 0;
        let mut profiles = vec![big_profile()];
        for dir in ["fixtures/real", "fixtures/cpu"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "etdp") {
                    let request = crate::profile::ProfileRequest::new(path.clone(), None, 0);
                    let cancel = std::sync::atomic::AtomicBool::new(false);
                    if let Ok(p) = crate::profile::load_profile(&request, &mut |_| {}, &cancel) {
                        profiles.push(p);
                    }
                }
            }
        }
        for mut profile in profiles {
            for cold in [false, true] {
                if cold {
                    // The optional tail fields too.
                    profile.cold_runs = Some(crate::profile::ColdRuns {
                        count: 2,
                        dropped: false,
                        reason: "test".into(),
                    });
                }
                let mut want = Vec::new();
                super::super::json_format::write_json(&mut want, &profile).unwrap();
                let mut got = Vec::new();
                write_profile(&mut got, &profile).unwrap();
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
        let err = write_profile(&mut Full, &profile).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::StorageFull);
    }
}
