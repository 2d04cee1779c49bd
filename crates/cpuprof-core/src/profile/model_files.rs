//! The export-time files read with a dump: the ETRecord and the program (`.pte`). Named
//! with `--etrecord` / `--program` (for every dump a command reads), or found beside the
//! dump (`STEM.etrecord`, `STEM.etrecord.bin`, `etrecord.bin`; `STEM.pte`). Each is read
//! once through [`crate::input`]; one that cannot be read or decoded is one warning and
//! the profile loads without what it would have given.

use std::path::{Path, PathBuf};

use super::model::{Finding, ModelFiles, Profile, RowSource};
use super::source;

/// `--etrecord` / `--program` (the Python module's `etrecord=` / `program=`): the
/// ETRecord and program a dump is read with instead of those beside it. A value of each
/// load request ([`super::ProfileRequest::model`]), never a process-wide setting, so two
/// loads with different files at once do not race.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelFileArgs {
    pub etrecord: Option<PathBuf>,
    pub program: Option<PathBuf>,
}

/// The ETRecord beside `dump`: `STEM.etrecord`, `STEM.etrecord.bin`, then `etrecord.bin`
/// in the same directory.
pub fn default_etrecord_for(dump: &Path) -> Option<PathBuf> {
    let dir = dump.parent().unwrap_or(Path::new(""));
    [
        dump.with_extension("etrecord"),
        dump.with_extension("etrecord.bin"),
        dir.join("etrecord.bin"),
    ]
    .into_iter()
    .find(|p| p.is_file())
}

/// The program beside `dump`: `STEM.pte`.
pub fn default_program_for(dump: &Path) -> Option<PathBuf> {
    let p = dump.with_extension("pte");
    p.is_file().then_some(p)
}

/// Reads the model files for `dump` (named, else beside it; none for standard input or
/// the bundled demo) and applies them to `profile`: methods named from the program, rows
/// given their source and methods their module tree from the ETRecord.
/// `limit`: the most bytes read from each (`--max-input-size`).
pub fn apply(
    profile: &mut Profile,
    dump: &Path,
    look_beside: bool,
    args: &ModelFileArgs,
    limit: u64,
) {
    let (program_path, etrecord_path) = paths_for(dump, look_beside, args);
    if program_path.is_none() && etrecord_path.is_none() {
        return;
    }
    let mut findings: Vec<Finding> = Vec::new();
    let mut files = ModelFiles::default();
    if let Some(path) = &program_path {
        let name = crate::input::display_name(path);
        match read(path, limit)
            .and_then(|i| crate::program::parse(&i.bytes).map_err(|e| e.to_string()))
        {
            Ok(program) => {
                findings.extend(source::name_methods(profile, &program, &name));
                files.program = Some(name);
            }
            Err(e) => findings.push(Finding::new(
                "program_unreadable",
                format!("{name}: {e}; methods are not named from it"),
            )),
        }
    }
    if let Some(path) = &etrecord_path {
        let name = crate::input::display_name(path);
        match read(path, limit)
            .and_then(|i| crate::etrecord::parse(&i.bytes).map_err(|e| e.to_string()))
        {
            Ok(record) => {
                findings.extend(source::attach_sources(profile, &record, &name));
                let unmatched = findings.iter().any(|f| f.kind == "etrecord_unmatched");
                match judge_fit(profile, &name, unmatched) {
                    Ok(()) => files.etrecord = Some(name),
                    Err(finding) => findings.extend(finding),
                }
            }
            Err(e) => findings.push(Finding::new(
                "etrecord_unreadable",
                format!("{name}: {e}; loaded without sources"),
            )),
        }
    }
    source::refresh_top_level(profile);
    if files != ModelFiles::default() {
        profile.model_files = Some(files);
    }
    // Before the first method's own findings, which the table expects last.
    for (i, f) in findings.into_iter().enumerate() {
        profile.warnings.insert(i, f);
    }
}

/// What a file given as the dump is, when it is a model file instead: the message that
/// says so and how to pass it (`.pte` and `.bpte` as `--program`, an ETRecord's zip as
/// `--etrecord`).
pub fn model_file_given_as_dump(bytes: &[u8]) -> Option<&'static str> {
    match bytes.get(4..8)? {
        b"ET12" => {
            Some("this is an ExecuTorch program (.pte), not an ETDump; pass it as --program")
        }
        b"BP08" => Some(
            "this is an ExecuTorch bundled program (.bpte), not an ETDump; pass it as --program",
        ),
        _ if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") => Some(
            "this is a zip (an ETRecord, as etrecord.bin is), not an ETDump; pass it as --etrecord",
        ),
        _ => None,
    }
}

/// How the ETRecord's nodes fit the dump's rows.
#[derive(Default)]
struct Fit {
    /// Delegate calls given nodes, and kernels whose operator their nodes name.
    fitting: usize,
    /// The first kernel (`native_call_*`) whose nodes name other operators.
    first_misfit: Option<String>,
}

fn fit(profile: &Profile) -> Fit {
    let mut f = Fit::default();
    fn nodes_of(s: &Option<RowSource>) -> Option<&RowSource> {
        s.as_ref().filter(|s| !s.nodes.is_empty())
    }
    for m in &profile.methods {
        f.fitting += m
            .delegates
            .iter()
            .filter(|d| nodes_of(&d.source).is_some())
            .count();
        for o in &m.other_operators {
            for k in &o.kernels {
                let (Some(op), Some(s)) =
                    (k.name.strip_prefix("native_call_"), nodes_of(&k.source))
                else {
                    continue;
                };
                let base = op.split('.').next().unwrap_or(op);
                let base = base.rsplit("::").next().unwrap_or(base);
                if s.op_types.iter().any(|t| t.split('.').any(|p| p == base)) {
                    f.fitting += 1;
                } else {
                    f.first_misfit.get_or_insert_with(|| {
                        format!(
                            "#{} {} where its nodes are {}",
                            o.instruction_id,
                            k.name,
                            s.op_types.join(", ")
                        )
                    });
                }
            }
        }
    }
    f
}

/// An ETRecord that gives no row a node of its program, or whose nodes name other
/// operators than every kernel it maps (an older layout, another export's file), is not
/// used: a warning, and the rows keep no source. (A correct one may give a kernel
/// inserted by a pass, `_to_dim_order_copy`, its neighbour's node: only none fitting
/// at all is judged.)
/// `Ok` when it fits (the file is used); else the warning to give, if
/// `etrecord_unmatched` has not said so already.
fn judge_fit(profile: &mut Profile, name: &str, unmatched: bool) -> Result<(), Option<Finding>> {
    let f = fit(profile);
    let first = f
        .first_misfit
        .map(|m| format!(" (first: {m})"))
        .unwrap_or_default();
    if f.fitting == 0 {
        if unmatched {
            return Err(None); // etrecord_unmatched said so
        }
        for m in &mut profile.methods {
            clear_sources(m);
        }
        return Err(Some(Finding::new(
            "etrecord_unmapped",
            format!(
                "ETRecord {name}: maps no instruction of the dump to a node of its program that fits it{first} (an older layout, or another export?); loaded without sources"
            ),
        )));
    }
    Ok(())
}

fn clear_sources(m: &mut super::model::MethodProfile) {
    for d in &mut m.delegates {
        d.source = None;
        for op in &mut d.operators {
            op.source = None;
        }
        for s in &mut d.steps {
            for op in &mut s.operators {
                op.source = None;
            }
        }
        for u in &mut d.unattributed {
            u.source = None;
        }
    }
    for o in &mut m.other_operators {
        o.source = None;
        for k in &mut o.kernels {
            k.source = None;
        }
    }
    m.modules.clear();
}

/// (program, ETRecord) read with `dump`: named, else beside it.
fn paths_for(
    dump: &Path,
    look_beside: bool,
    args: &ModelFileArgs,
) -> (Option<PathBuf>, Option<PathBuf>) {
    let beside = look_beside && !crate::input::is_stdin(dump);
    let program = args
        .program
        .clone()
        .or_else(|| beside.then(|| default_program_for(dump)).flatten());
    let etrecord = args
        .etrecord
        .clone()
        .or_else(|| beside.then(|| default_etrecord_for(dump)).flatten());
    (program, etrecord)
}

/// The model files a load of `dump` with `args` reads (inputs an output must never
/// replace).
pub fn model_input_paths(dump: &Path, args: &ModelFileArgs) -> Vec<PathBuf> {
    let (p, e) = paths_for(dump, true, args);
    p.into_iter().chain(e).collect()
}

fn read(path: &Path, limit: u64) -> Result<crate::input::Input, String> {
    crate::input::read_input(path, limit).map_err(|e| e.to_string())
}
