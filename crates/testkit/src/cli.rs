//! The `warrant` binary for the CLI's integration tests, in a clean environment.
//!
//! Every command starts without the variables the binary reads from its environment, so a
//! developer's shell (a `WARRANT_STORE`, a `SOURCE_DATE_EPOCH`, an LLM key) cannot change what a
//! test sees. A test that needs one sets it on the command (`.env(...)` after the helper wins).
//!
//! The binary is found at run time (`CARGO_BIN_EXE_warrant`, set by Cargo for the integration
//! tests of the package that builds it, or beside the test executable), so these helpers work
//! from `warrant-cli`'s tests (`crates/cli/tests`), where the copies they replace lived.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use assert_cmd::cargo::CommandCargoExt;

/// Variables the binary reads, always removed (whether or not the caller has them set).
pub const CLEARED_ENV: [&str; 5] =
    ["WARRANT_STORE", "WARRANT_STORE_CACHE_MB", "WARRANT_LLM_API_KEY", "WARRANT_LOG", "SOURCE_DATE_EPOCH"];

/// The path of the `warrant` binary built for this test run.
pub fn warrant_bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("warrant")
}

/// The names to remove from a child's environment: [`CLEARED_ENV`], and every other `WARRANT_*`
/// variable the caller has set (`WARRANT_LLM_*` and any a test or shell adds later).
fn cleared() -> Vec<OsString> {
    let mut names: Vec<OsString> = CLEARED_ENV.iter().map(OsString::from).collect();
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(|n| n.starts_with("WARRANT_")) && !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// Removes the variables of [`CLEARED_ENV`] and every `WARRANT_*` variable from `cmd`.
pub fn clean_env(cmd: &mut std::process::Command) -> &mut std::process::Command {
    for name in cleared() {
        cmd.env_remove(name);
    }
    cmd
}

/// `warrant` as an [`assert_cmd::Command`] in a clean environment, in the test's working
/// directory (the package's directory, `crates/cli`, under `cargo test`).
pub fn warrant() -> assert_cmd::Command {
    assert_cmd::Command::from_std(warrant_std())
}

/// [`warrant`] run in `dir`.
pub fn warrant_at(dir: impl AsRef<Path>) -> assert_cmd::Command {
    let mut c = warrant();
    c.current_dir(dir);
    c
}

/// `warrant` as a [`std::process::Command`] in a clean environment, for tests that spawn the
/// process themselves (kill it, time it, close its pipes).
pub fn warrant_std() -> std::process::Command {
    // As `assert_cmd::Command::cargo_bin` builds it (a configured target runner included).
    let mut c = std::process::Command::cargo_bin("warrant").unwrap_or_else(|e| panic!("the warrant binary: {e}"));
    clean_env(&mut c);
    c
}
