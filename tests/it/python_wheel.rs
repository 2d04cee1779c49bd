//! The Python package (#49) as a user gets it: a fresh venv, `pip install` of the project
//! root (maturin builds `python/`, the `cpuprof` module and the `cpuprof-tui` console
//! script), then `pytest python/tests` in that venv (the Inspector's goldens; pyarrow for
//! the Arrow tables; no executorch there, so the live-Inspector tests skip).
//!
//! Skips with a printed line when there is no `python3` with `venv`, or when the package
//! index cannot be reached. The wheel is built with the dev profile into
//! `target/python-wheel` (kept between runs, so only the first build is long).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("command runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn pip_install_gives_the_module_and_the_command() {
    let Ok(probe) = Command::new("python3")
        .args(["-m", "venv", "--help"])
        .output()
    else {
        eprintln!("skipped: python3 not installed");
        return;
    };
    if !probe.status.success() {
        eprintln!("skipped: python3 venv module not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let venv = tmp.path().join("venv");
    let made = run(Command::new("python3").arg("-m").arg("venv").arg(&venv));
    if !made.status.success() {
        eprintln!(
            "skipped: python3 -m venv failed (ensurepip missing?): {}",
            text(&made)
        );
        return;
    }
    let bin = venv.join("bin");
    let pip = |args: &[&str]| -> Output {
        run(Command::new(bin.join("python"))
            .args([
                "-m",
                "pip",
                "--disable-pip-version-check",
                "--timeout",
                "30",
            ])
            .args(args))
    };
    // The build and test tools (and pyarrow, for `to_arrow`) from the index; if it cannot
    // be reached, nothing to test.
    let tools = pip(&[
        "install",
        "--retries",
        "1",
        "maturin>=1.5,<2",
        "pandas",
        "pyarrow",
        "pytest",
    ]);
    if !tools.status.success() {
        eprintln!(
            "skipped: package index unreachable ({})",
            last_line(&text(&tools))
        );
        return;
    }
    let target: PathBuf = Path::new(ROOT).join("target").join("python-wheel");
    let installed = run(Command::new(bin.join("python"))
        .args([
            "-m",
            "pip",
            "install",
            "--no-build-isolation",
            "--no-deps",
            ROOT,
        ])
        .env("CARGO_TARGET_DIR", &target)
        // The build backend runs the venv's `maturin`.
        .env("PATH", path_with(&bin))
        .env("MATURIN_PEP517_ARGS", "--profile dev"));
    assert!(
        installed.status.success(),
        "pip install .: {}",
        text(&installed)
    );
    // The console script is the command.
    let version = run(Command::new(bin.join("cpuprof-tui")).arg("--version"));
    assert!(version.status.success(), "{}", text(&version));
    assert!(String::from_utf8_lossy(&version.stdout).contains(env!("CARGO_PKG_VERSION")));
    // pytest from outside the tree: `import cpuprof` is the installed package.
    let tests = run(Command::new(bin.join("python"))
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(Path::new(ROOT).join("python").join("tests"))
        .current_dir(tmp.path()));
    assert!(tests.status.success(), "pytest: {}", text(&tests));
    assert!(String::from_utf8_lossy(&tests.stdout).contains(" passed"));
}

fn last_line(s: &str) -> &str {
    s.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("")
}

fn path_with(bin: &Path) -> std::ffi::OsString {
    let mut dirs = vec![bin.to_path_buf()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).expect("PATH entries")
}
