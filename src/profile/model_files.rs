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
                files.etrecord = Some(name);
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
