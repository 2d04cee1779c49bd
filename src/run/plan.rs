//! Where each run writes and what it is told: the output folder, the `<stem>-<n>` names
//! (never an earlier run's), and the runner's arguments with `{etdump}`, `{warmup}` and
//! `{timed}` replaced. Pure apart from creating the folder and claiming a name.

use std::ffi::{OsStr, OsString};
use std::fs::OpenOptions;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Where the default output folders go (`./cpuprof-runs/<time>`).
pub const DEFAULT_PARENT: &str = "cpuprof-runs";

/// The placeholders replaced in the runner's arguments.
pub const PLACEHOLDERS: [&str; 3] = ["{etdump}", "{warmup}", "{timed}"];

/// One run's files: the dump the runner is asked to write and the log of its stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunFiles {
    /// 1-based number in the name (`<stem>-<n>`).
    pub number: u64,
    pub etdump: PathBuf,
    pub log: PathBuf,
    /// The runner's standard output when the explorer has the terminal.
    pub stdout: PathBuf,
}

/// `YYYYMMDD-HHMMSS` (UTC) of `t`: the default folder's name.
pub fn time_name(t: SystemTime) -> String {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, day) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = crate::units::civil_from_days(days as i64);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        day / 3600,
        day % 3600 / 60,
        day % 60
    )
}

/// The output folder: `out` (created if missing; it may hold earlier runs), or a new
/// folder `./cpuprof-runs/<time>` ([`new_time_folder`]). Returned
/// absolute, so a runner that changes directory still writes where it is told.
pub fn out_dir(out: Option<&Path>, now: SystemTime) -> Result<PathBuf, String> {
    let dir = match out {
        Some(dir) => {
            if dir.exists() && !dir.is_dir() {
                return Err(format!("{}: not a directory", dir.display()));
            }
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("{}: cannot create the folder: {e}", dir.display()))?;
            dir.to_path_buf()
        }
        None => new_time_folder(Path::new(DEFAULT_PARENT), now)?,
    };
    std::path::absolute(&dir).map_err(|e| format!("{}: {e}", dir.display()))
}

/// A new folder `parent/<time>` (`<time>-2`, `-3`, … when that exists).
pub fn new_time_folder(parent: &Path, now: SystemTime) -> Result<PathBuf, String> {
    {
        {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("{}: cannot create the folder: {e}", parent.display()))?;
            let base = time_name(now);
            let mut n = 1u32;
            loop {
                let name = if n == 1 {
                    base.clone()
                } else {
                    format!("{base}-{n}")
                };
                let candidate = parent.join(name);
                // `create_dir` fails on an existing folder: two runs started in the same
                // second get two folders.
                match std::fs::create_dir(&candidate) {
                    Ok(()) => return Ok(candidate),
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => n += 1,
                    Err(e) => {
                        return Err(format!(
                            "{}: cannot create the folder: {e}",
                            candidate.display()
                        ))
                    }
                }
            }
        }
    }
}

/// A stem usable in file names: no separator, not hidden, not empty.
pub fn check_stem(stem: &str) -> Result<(), String> {
    if stem.is_empty() || stem.contains('/') || stem.starts_with('.') || stem.contains('\0') {
        return Err(format!(
            "--name `{stem}`: a file name stem is needed (no `/`, not starting with `.`)"
        ));
    }
    Ok(())
}

/// Claim the next free `<stem>-<n>` in `dir`, counting from `from`: the first number none
/// of whose files (`.etdp`, `.log`, `.out`) exists. The log is created empty (exclusive
/// create, so two processes never claim the same name); the dump is left to the runner.
pub fn claim(dir: &Path, stem: &str, from: u64) -> Result<RunFiles, String> {
    let mut n = from.max(1);
    loop {
        let files = RunFiles {
            number: n,
            etdump: dir.join(format!("{stem}-{n}.etdp")),
            log: dir.join(format!("{stem}-{n}.log")),
            stdout: dir.join(format!("{stem}-{n}.out")),
        };
        let taken = [&files.etdump, &files.stdout]
            .iter()
            .any(|p| p.symlink_metadata().is_ok());
        if !taken {
            match OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&files.log)
            {
                Ok(_) => return Ok(files),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => {
                    return Err(format!(
                        "{}: cannot create the log: {e}",
                        files.log.display()
                    ))
                }
            }
        }
        n = n
            .checked_add(1)
            .ok_or_else(|| format!("{}: no free run number", dir.display()))?;
    }
}

/// What the placeholders stand for in one run.
#[derive(Debug, Clone, Copy)]
pub struct Values<'a> {
    pub etdump: &'a Path,
    pub warmup: Option<usize>,
    pub timed: Option<usize>,
}

/// The placeholders used in `args` that have no value (`{warmup}` without `--warmup`).
pub fn missing_values(
    args: &[OsString],
    warmup: Option<usize>,
    timed: Option<usize>,
) -> Vec<&'static str> {
    let used = |p: &str| args.iter().any(|a| contains(a.as_bytes(), p.as_bytes()));
    let mut missing = Vec::new();
    if warmup.is_none() && used("{warmup}") {
        missing.push("{warmup} needs --warmup N");
    }
    if timed.is_none() && used("{timed}") {
        missing.push("{timed} needs --timed N");
    }
    missing
}

/// `args` with every `{etdump}`, `{warmup}` and `{timed}` replaced (inside an argument
/// too: `--etdump_path={etdump}`). A placeholder without a value stays as it is
/// (`missing_values` rejects that before anything runs).
pub fn substitute(args: &[OsString], v: Values<'_>) -> Vec<OsString> {
    let warmup = v.warmup.map(|n| n.to_string());
    let timed = v.timed.map(|n| n.to_string());
    let pairs: [(&[u8], Option<&[u8]>); 3] = [
        (b"{etdump}", Some(v.etdump.as_os_str().as_bytes())),
        (b"{warmup}", warmup.as_deref().map(str::as_bytes)),
        (b"{timed}", timed.as_deref().map(str::as_bytes)),
    ];
    args.iter()
        .map(|a| {
            let bytes = a.as_bytes();
            let mut out = Vec::with_capacity(bytes.len());
            let mut i = 0;
            'scan: while i < bytes.len() {
                for (key, value) in &pairs {
                    if let Some(value) = value {
                        if bytes[i..].starts_with(key) {
                            out.extend_from_slice(value);
                            i += key.len();
                            continue 'scan;
                        }
                    }
                }
                out.push(bytes[i]);
                i += 1;
            }
            OsString::from_vec(out)
        })
        .collect()
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// The program's name for messages.
pub fn program_name(program: &OsStr) -> String {
    program.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn time_names_are_utc_dates() {
        // 2026-12-01 20:42:04 UTC = 1796157724 s (date -u -d @1796157724).
        let t = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_796_157_724);
        assert_eq!(time_name(t), "20261201-204204");
        assert_eq!(time_name(SystemTime::UNIX_EPOCH), "19700101-000000");
        // 2000-02-29 (a leap day of a century year): 951782400.
        let leap = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(951_782_400);
        assert_eq!(time_name(leap), "20000229-000000");
    }

    #[test]
    fn placeholders_are_replaced_inside_arguments() {
        let args = os(&[
            "--etdump_path",
            "{etdump}",
            "--x={etdump}.bak",
            "w{warmup}t{timed}",
            "{other}",
        ]);
        let got = substitute(
            &args,
            Values {
                etdump: Path::new("/o/run-1.etdp"),
                warmup: Some(3),
                timed: Some(20),
            },
        );
        assert_eq!(
            got,
            os(&[
                "--etdump_path",
                "/o/run-1.etdp",
                "--x=/o/run-1.etdp.bak",
                "w3t20",
                "{other}"
            ])
        );
    }

    #[test]
    fn placeholders_without_values_are_named() {
        let args = os(&["{warmup}", "{timed}"]);
        assert_eq!(
            missing_values(&args, None, Some(1)),
            vec!["{warmup} needs --warmup N"]
        );
        assert_eq!(
            missing_values(&args, Some(0), None),
            vec!["{timed} needs --timed N"]
        );
        assert!(missing_values(&args, Some(0), Some(1)).is_empty());
    }

    #[test]
    fn claim_skips_every_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("run-1.etdp"), b"x").unwrap();
        std::fs::write(dir.path().join("run-2.log"), b"x").unwrap();
        std::fs::write(dir.path().join("run-3.out"), b"x").unwrap();
        let f = claim(dir.path(), "run", 1).unwrap();
        assert_eq!(f.number, 4);
        assert!(f.log.is_file(), "the log is claimed");
        assert!(!f.etdump.exists(), "the dump is the runner's to write");
        // The claimed log makes the next claim move on.
        assert_eq!(claim(dir.path(), "run", 1).unwrap().number, 5);
        // The earlier files are untouched.
        assert_eq!(std::fs::read(dir.path().join("run-1.etdp")).unwrap(), b"x");
    }

    #[test]
    fn default_folders_never_reuse_a_name() {
        let cwd = tempfile::tempdir().unwrap();
        let t = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_796_157_724);
        let parent = cwd.path().join(DEFAULT_PARENT);
        let first = new_time_folder(&parent, t).unwrap();
        assert_eq!(first, parent.join("20261201-204204"));
        std::fs::write(first.join("run-1.etdp"), b"x").unwrap();
        let second = new_time_folder(&parent, t).unwrap();
        assert_eq!(second, parent.join("20261201-204204-2"));
        assert_eq!(std::fs::read(first.join("run-1.etdp")).unwrap(), b"x");
        // --out: an existing folder is used as it is, a file is refused.
        let given = out_dir(Some(&first), t).unwrap();
        assert!(given.is_absolute() && given.is_dir());
        assert!(out_dir(Some(&first.join("run-1.etdp")), t).is_err());
    }

    #[test]
    fn stems_must_be_file_names() {
        assert!(check_stem("run").is_ok());
        for bad in ["", "a/b", ".hidden"] {
            assert!(check_stem(bad).is_err(), "{bad:?}");
        }
    }
}
