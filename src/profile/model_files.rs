//! The export-time files read with a dump: the ETRecord and the program (`.pte`). Named
//! with `--etrecord` / `--program` (for every dump a command reads), or found beside the
//! dump (`STEM.etrecord`, `STEM.etrecord.bin`, `etrecord.bin`; `STEM.pte`). Each is read
//! once through [`crate::input`]; one that cannot be read or decoded is one warning and
//! the profile loads without what it would have given.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::model::{Finding, ModelFiles, Profile};
use super::source;

/// `--etrecord` / `--program` as given on the command line (set once by `main`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelFileArgs {
    pub etrecord: Option<PathBuf>,
    pub program: Option<PathBuf>,
}

static ARGS: Mutex<ModelFileArgs> = Mutex::new(ModelFileArgs {
    etrecord: None,
    program: None,
});

/// Name the ETRecord and program every dump is read with (instead of those beside it).
pub fn set_model_files(args: ModelFileArgs) {
    *ARGS.lock().unwrap_or_else(|e| e.into_inner()) = args;
}

pub fn model_file_args() -> ModelFileArgs {
    ARGS.lock().unwrap_or_else(|e| e.into_inner()).clone()
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
pub fn apply(profile: &mut Profile, dump: &Path, look_beside: bool) {
    let (program_path, etrecord_path) = paths_for(dump, look_beside);
    if program_path.is_none() && etrecord_path.is_none() {
        return;
    }
    let mut findings: Vec<Finding> = Vec::new();
    let mut files = ModelFiles::default();
    if let Some(path) = &program_path {
        let name = crate::input::display_name(path);
        match read(path).and_then(|i| crate::program::parse(&i.bytes).map_err(|e| e.to_string())) {
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
        match read(path).and_then(|i| crate::etrecord::parse(&i.bytes).map_err(|e| e.to_string())) {
            Ok(record) => {
                findings.extend(source::attach_sources(profile, &record, &name));
                if mapped_rows(profile) > 0 {
                    files.etrecord = Some(name);
                } else if !findings.iter().any(|f| f.kind == "etrecord_unmatched") {
                    for m in &mut profile.methods {
                        m.modules.clear();
                    }
                    // Read, matched, yet no handle of it reaches a node of its program
                    // (an older layout, or an ETRecord of another export): not used.
                    findings.push(Finding::new(
                        "etrecord_unmapped",
                        format!(
                            "ETRecord {name}: maps no instruction of the dump to a node of its program (an older layout, or another export?); loaded without sources"
                        ),
                    ));
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

/// Rows whose source names at least one node of the ETRecord's program.
fn mapped_rows(profile: &Profile) -> usize {
    let mapped =
        |s: &Option<super::model::RowSource>| s.as_ref().is_some_and(|s| !s.nodes.is_empty());
    profile
        .methods
        .iter()
        .map(|m| {
            m.delegates.iter().filter(|d| mapped(&d.source)).count()
                + m.other_operators
                    .iter()
                    .filter(|o| mapped(&o.source))
                    .count()
        })
        .sum()
}

/// (program, ETRecord) read with `dump`: named, else beside it.
fn paths_for(dump: &Path, look_beside: bool) -> (Option<PathBuf>, Option<PathBuf>) {
    let args = model_file_args();
    let beside = look_beside && !crate::input::is_stdin(dump);
    let program = args
        .program
        .or_else(|| beside.then(|| default_program_for(dump)).flatten());
    let etrecord = args
        .etrecord
        .or_else(|| beside.then(|| default_etrecord_for(dump)).flatten());
    (program, etrecord)
}

/// The model files a load of `dump` reads (inputs an output must never replace).
pub fn model_input_paths(dump: &Path) -> Vec<PathBuf> {
    let (p, e) = paths_for(dump, true);
    p.into_iter().chain(e).collect()
}

fn read(path: &Path) -> Result<crate::input::Input, String> {
    crate::input::read_input(path).map_err(|e| e.to_string())
}
