//! Loading a fleet: each profile found is read with the usual rules (warm-up, runner log
//! beside it, `--time-unit`, size limit) on its own thread of a pool as wide as the
//! machine (`threads::map_pulled`), turned into its row tree, and kept only as
//! [`FleetRow`]s (statistics and compact samples): the profile itself is dropped before
//! the next is loaded, so memory grows with rows × runs, not with the dumps' size.
//! A profile that fails (or panics) is kept with its one-line error.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use super::discover::{Found, FoundKind};
use super::meta::{mtime_text, read_sidecar, KeyTemplate};
use super::{FleetProfile, FleetRow, RunIndex, Samples};
use crate::profile::warmup::Warmup;
use crate::profile::{load_profile_from_bytes, unchanged_or, LoadError, ProfileRequest};
use crate::rows::{RowTree, TreeSource};
use crate::stats::Stats;

#[derive(Debug, Clone)]
pub struct LoadOptions {
    pub warmup: Warmup,
    pub no_log: bool,
    pub key: Option<KeyTemplate>,
    /// Threads to load on (0: one per core).
    pub threads: usize,
    /// `--etrecord` / `--program`: read with every dump instead of those beside it.
    pub model: crate::profile::ModelFileArgs,
    /// `--max-input-size` / `--time-unit`.
    pub read: crate::profile::ReadOptions,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            warmup: Warmup::Stated,
            no_log: false,
            key: None,
            threads: 0,
            model: crate::profile::ModelFileArgs::default(),
            read: crate::profile::ReadOptions::default(),
        }
    }
}

/// Load every profile found, in the order found; ids are the relative paths (`#2`, `#3`
/// added to a repeated one).
pub fn load_all(found: Vec<Found>, opts: &LoadOptions) -> Vec<FleetProfile> {
    let threads = if opts.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        opts.threads
    };
    let names: Vec<(String, String)> = found
        .iter()
        .map(|f| (f.rel.clone(), f.path.display().to_string()))
        .collect();
    // One pool for the cores: with several workers, each file is read on its worker
    // alone (a big trace is otherwise cut into parts on every core: `chrome/parts.rs`).
    let file_threads = if threads > 1 && found.len() > 1 { 1 } else { 0 };
    let results =
        crate::threads::map_pulled(threads, found, |f| load_one_on(&f, opts, file_threads));
    let mut seen = std::collections::HashMap::<String, usize>::new();
    results
        .into_iter()
        .zip(names)
        .map(|(r, (rel, path))| {
            let mut p = r.unwrap_or_else(|panic| FleetProfile {
                id: rel.clone(),
                path,
                meta: Default::default(),
                model: None,
                kind: None,
                runs: 0,
                method: None,
                error: Some(crate::escape::message_line(&format!(
                    "internal error while loading: {panic}"
                ))),
                warnings: Vec::new(),
                rows: Vec::new(),
            });
            let n = seen.entry(rel.clone()).or_insert(0);
            *n += 1;
            p.id = if *n == 1 { rel } else { format!("{rel}#{n}") };
            p
        })
        .collect()
}

/// One profile: metadata always, rows when it loads.
pub fn load_one(f: &Found, opts: &LoadOptions) -> FleetProfile {
    load_one_on(f, opts, 0)
}

/// [`load_one`], a big trace read on up to `file_threads` threads (0: one per core).
fn load_one_on(f: &Found, opts: &LoadOptions, file_threads: usize) -> FleetProfile {
    let mut p = FleetProfile {
        id: f.rel.clone(),
        path: f.path.display().to_string(),
        meta: Default::default(),
        model: None,
        kind: None,
        runs: 0,
        method: None,
        error: None,
        warnings: Vec::new(),
        rows: Vec::new(),
    };
    if let Some(t) = &opts.key {
        for (k, v) in t.extract(&f.rel).unwrap_or_default() {
            p.meta.insert(k, serde_json::Value::String(v));
        }
    }
    match read_sidecar(&f.path) {
        Ok(Some(map)) => {
            for (k, v) in map {
                p.meta.entry(k).or_insert(v);
            }
        }
        Ok(None) => {}
        // The dump is still read: a bad sidecar costs its metadata, not the profile.
        Err(e) => p.warnings.push(crate::escape::message_line(&format!(
            "{e}; its metadata left out"
        ))),
    }
    if let Some(m) = mtime_text(&f.path) {
        p.meta
            .entry("mtime".to_string())
            .or_insert(serde_json::Value::String(m));
    }
    if p.error.is_some() {
        return p;
    }
    match load_tree(f, opts, file_threads) {
        Ok((tree, method, firsts)) => {
            p.kind = Some(match tree.source_kind {
                TreeSource::Dump => "etdump",
                TreeSource::Trace => "trace",
            });
            p.model = Some(model_id(&tree));
            p.runs = tree.runs;
            p.method = method;
            p.rows = compact_rows(tree, &firsts);
        }
        Err(e) => p.error = Some(crate::escape::message_line(&e)),
    }
    p
}

/// A profile's row tree, its `Method::execute` stats (no samples), and per root row (a
/// method) its first kept run (the warm-ups dropped before it).
type Loaded = (RowTree, Option<Stats>, Vec<usize>);

/// The row tree of one profile, and its `Method::execute` stats without samples.
fn load_tree(f: &Found, opts: &LoadOptions, file_threads: usize) -> Result<Loaded, String> {
    let name = crate::input::display_name(&f.path);
    let trace_tree = |t: crate::trace::TraceProfile| {
        (RowTree::from_trace(&t).merged_threads(), None, Vec::new())
    };
    match f.kind {
        FoundKind::Ctf => {
            return crate::trace::load_trace_with_limit(&f.path, opts.read.max_input_size)
                .map(trace_tree)
                .map_err(|e| e.to_string())
        }
        FoundKind::Trace => {
            let limit = opts.read.max_input_size;
            let options = crate::trace::BuildOptions::default();
            if let Some(streamed) = crate::trace::load_large_chrome_json_on(
                &f.path,
                &name,
                options,
                limit,
                file_threads,
            ) {
                return streamed.map(trace_tree).map_err(|e| e.to_string());
            }
        }
        FoundKind::Dump => {}
    }
    let limit = opts.read.max_input_size;
    let input = crate::input::read_input_mapped(&f.path, limit).map_err(|e| e.to_string())?;
    if crate::trace::looks_like_trace(&input.bytes) {
        let options = crate::trace::BuildOptions::default();
        let t = crate::trace::parse_trace_with(&input.bytes, &name, options, limit).map_err(|e| {
            LoadError::BadInput {
                path: name.clone(),
                detail: e.to_string(),
            }
        });
        return unchanged_or(&input, &f.path, t)
            .map(trace_tree)
            .map_err(|e| detail(&e));
    }
    let mut request = ProfileRequest::new(PathBuf::from(&f.path), None, 0)
        .with_warmup(opts.warmup)
        .with_model_files(opts.model.clone())
        .with_read_options(opts.read);
    if opts.no_log {
        request = request.without_log();
    }
    let never = AtomicBool::new(false);
    let loaded = load_profile_from_bytes(&request, &input.bytes, &mut |_| {}, &never);
    let profile = unchanged_or(&input, &f.path, loaded).map_err(|e| detail(&e))?;
    let method = profile.method.clone().map(|mut s| {
        s.samples = Default::default();
        s.runs = Vec::new();
        s.warmup_samples = Default::default();
        s
    });
    // One root per method when there are several (as `RowTree::from_profile` makes them).
    let firsts = if profile.methods.len() > 1 {
        profile
            .methods
            .iter()
            .map(|m| m.runs.warmup_dropped)
            .collect()
    } else {
        vec![profile.runs.warmup_dropped]
    };
    Ok((RowTree::from_profile_measured(&profile), method, firsts))
}

/// What is wrong, without the path (the profile's entry names it).
fn detail(e: &LoadError) -> String {
    match e {
        LoadError::BadInput { detail, .. } | LoadError::Incomplete { detail, .. } => detail.clone(),
        LoadError::Cancelled => "cancelled".into(),
    }
}

fn compact_rows(tree: RowTree, firsts: &[usize]) -> Vec<FleetRow> {
    // Each row's root (parents come before their children), then that root's first run.
    let mut root_of: Vec<usize> = Vec::with_capacity(tree.rows.len());
    for (i, r) in tree.rows.iter().enumerate() {
        let root = r.parent.filter(|&p| p < i).map_or(i, |p| root_of[p]);
        root_of.push(root);
    }
    let first_of = |row: usize| {
        tree.roots
            .iter()
            .position(|&r| r == root_of[row])
            .and_then(|k| firsts.get(k))
            .copied()
            .unwrap_or(0)
    };
    let firsts: Vec<usize> = (0..tree.rows.len()).map(first_of).collect();
    let paths: Vec<Vec<String>> = (0..tree.rows.len()).map(|i| tree.path(i)).collect();
    tree.rows
        .into_iter()
        .zip(firsts)
        .zip(paths)
        .map(|((r, first), path)| FleetRow {
            samples: Samples::from_ns(r.stats.samples.ns()),
            runs: RunIndex::new(first, &r.stats.runs),
            kind: r.kind,
            name: r.name,
            path,
            instruction_id: r.instruction_id,
            count: r.stats.count,
            median: r.stats.median(),
            p10: r.stats.p10(),
            p90: r.stats.p90(),
            min: r.stats.min(),
            max: r.stats.max(),
            mean: r.stats.mean(),
            flops: r.flops,
            bytes: r.bytes,
            module: r.module,
        })
        .collect()
}

/// A short id of a profile's run signature: FNV-1a (64 bit) of the kind of profile and
/// each row's kind, name path and instruction id, in tree order, as 12 hex digits. Two
/// dumps of one program (the same operators in the same delegates and steps) share it,
/// whatever their timings.
pub fn model_id(tree: &RowTree) -> String {
    let mut fnv = Fnv1a::default();
    let mut eat = |bytes: &[u8]| fnv.eat(bytes);
    eat(match tree.source_kind {
        TreeSource::Dump => b"etdump\n",
        TreeSource::Trace => b"trace\n",
    });
    for (i, r) in tree.rows.iter().enumerate() {
        eat(r.kind.label().as_bytes());
        for part in &tree.path(i) {
            eat(b"\x1f");
            eat(part.as_bytes());
        }
        eat(b"\x1e");
        if let Some(i) = r.instruction_id {
            eat(i.to_string().as_bytes());
        }
        eat(b"\n");
    }
    format!("{:012x}", fnv.0 >> 16)
}

/// FNV-1a, 64 bits: a stable hash of bytes fed in pieces (ids, names cut to fit).
pub struct Fnv1a(pub u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    pub fn eat(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}
