//! Helpers for the tests, benches and examples of cpuprof-tui, kept out of the library
//! (and so out of the release binary): a dev-dependency of both crates.

pub mod bench_run;
pub mod big_dump;
pub mod big_trace;
pub mod counting_alloc;
pub mod ctf_writer;
pub mod etdump_build;
pub mod fleet_hta;
pub mod pty;
pub mod rng;
pub mod sample;

/// The `cpuprof-tui` binary of the test or bench running (beside its `deps/` folder, as
/// cargo lays a target directory out), or `CPUPROF_TUI_BIN` when set.
pub fn binary() -> std::path::PathBuf {
    if let Some(p) = std::env::var_os("CPUPROF_TUI_BIN") {
        return p.into();
    }
    let exe = std::env::current_exe().expect("the running test's path");
    let mut dir = exe.parent().expect("a folder").to_path_buf();
    if dir.ends_with("deps") {
        dir.pop();
    }
    dir.join(format!("cpuprof-tui{}", std::env::consts::EXE_SUFFIX))
}

/// The project's root folder (the workspace's), where the fixtures are.
pub fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}
