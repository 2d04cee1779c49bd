//! Writing outputs safely: never over an input, always atomically (temp file + rename),
//! so a reader of the output never sees half a file.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Write `bytes` to `path` atomically. `inputs` are files this run read; writing over one
/// of them is refused.
pub fn write_atomic(path: &Path, bytes: &[u8], inputs: &[&Path]) -> Result<(), String> {
    write_atomic_with(path, inputs, &mut |w| w.write_all(bytes))
}

/// Like [`write_atomic`], with the content produced by `write` into a buffered writer
/// (so a large output is never held in memory whole).
pub fn write_atomic_with(
    path: &Path,
    inputs: &[&Path],
    write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), String> {
    let target = absolute(path);
    for input in inputs {
        if same_file(&target, &absolute(input)) {
            return Err(format!(
                "refusing to overwrite the input file {}",
                input.display()
            ));
        }
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = target
        .file_name()
        .ok_or_else(|| "output path has no file name".to_string())?
        .to_string_lossy()
        .into_owned();
    let tmp = dir.join(format!(".{file_name}.{}.tmp", std::process::id()));
    let result = (|| {
        let f = fs::File::create(&tmp).map_err(|e| e.to_string())?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
        write(&mut w).map_err(|e| e.to_string())?;
        // No fsync: rename already makes the switch atomic for readers, and an output can
        // always be regenerated; syncing a large report would double its run time.
        w.into_inner().map_err(|e| e.to_string())?;
        fs::rename(&tmp, &target).map_err(|e| e.to_string())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

fn absolute(p: &Path) -> PathBuf {
    fs::canonicalize(p)
        .unwrap_or_else(|_| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
}

fn same_file(a: &Path, b: &Path) -> bool {
    a == b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_and_replaces_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("profile.json");
        write_atomic(&out, b"one", &[]).unwrap();
        write_atomic(&out, b"two", &[]).unwrap();
        assert_eq!(fs::read(&out).unwrap(), b"two");
        // No temp file left behind.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn refuses_to_overwrite_an_input() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("dump.etdp");
        fs::write(&input, b"data").unwrap();
        let err = write_atomic(&input, b"x", &[&input]).unwrap_err();
        assert!(err.contains("refusing"), "{err}");
        assert_eq!(fs::read(&input).unwrap(), b"data");
    }
}
