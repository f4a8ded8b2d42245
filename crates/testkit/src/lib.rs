//! Helpers shared by Warrant's tests and benchmarks (a dev-dependency only).
//!
//! - **Shared data.** The licensed upstream data in `../shared/data` is never copied into the
//!   repository. Tests find it beside the checkout, or where `WARRANT_CONFORMANCE_DATA` points
//!   ([`data_dir`]). When it is missing, a test fails under `CI=true` and otherwise says loudly
//!   that it was not run.
//! - **The CLI.** [`warrant()`] (and [`warrant_at`], [`warrant_std`]) run the `warrant` binary
//!   in a clean environment, for `warrant-cli`'s integration tests ([`cli`]).
//! - **A fake LLM endpoint** on loopback ([`fake_llm`]).
//! - **Kill trials**: a process SIGKILLed at a chosen point ([`kill_trial`]).
//! - **Synthetic data** for benchmarks: a seeded generator and pseudo-words ([`synth`]).
//!
//! # Expected output: golden files and snapshots
//!
//! Output that must not change is kept in one of two forms, each with its own switch to accept
//! a deliberate change. Review the diff before committing either.
//!
//! - **Golden files**: whole files in the repository, compared byte for byte by
//!   [`golden::assert_golden`] (`crates/ckf/tests/golden/`, the evidence pack in
//!   `crates/evidence/tests/fixtures/`). `WARRANT_BLESS=1 cargo test -p CRATE --test TARGET`
//!   rewrites them; a failure prints the first differing line and that command. Use them when
//!   the file is itself an artefact (read by other tests, fuzz seeds, documentation).
//! - **Snapshots**: [insta](https://insta.rs) `.snap` files in `tests/snapshots/` beside the
//!   test (the demo's text, JSON and HTML reports in `crates/check/tests/snapshots/`).
//!   `INSTA_UPDATE=always cargo test -p CRATE --test TARGET` rewrites them, or `cargo insta
//!   review` (with `cargo-insta` installed) accepts them one by one. By default a failing
//!   snapshot leaves a `.snap.new` beside it (ignored by git); under `CI=true` it only fails.
#![warn(missing_docs)]

use std::path::{Path, PathBuf};

/// The workspace root (two levels above this crate).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
}

/// The shared data root, if present: `$WARRANT_CONFORMANCE_DATA`, else `<workspace>/../shared/data`.
pub fn data_root() -> Option<PathBuf> {
    let root = match std::env::var_os("WARRANT_CONFORMANCE_DATA") {
        Some(p) => PathBuf::from(p),
        None => workspace_root().join("../shared/data"),
    };
    root.is_dir().then_some(root)
}

/// A sub-directory of the shared data, or `None` after a loud note. Under `CI=true` a missing
/// directory is a test failure.
pub fn data_dir(sub: &str) -> Option<PathBuf> {
    match data_root().map(|r| r.join(sub)).filter(|p| p.exists()) {
        Some(p) => Some(p),
        None => {
            let msg = format!(
                "shared test data `{sub}` not found (looked in $WARRANT_CONFORMANCE_DATA, then ../shared/data beside the checkout)"
            );
            if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
                panic!("{msg}; CI requires it");
            }
            eprintln!("\n*** NOT RUN: {msg} ***\n");
            None
        }
    }
}

/// Reads a JSON file, panicking with the path on failure (tests only).
pub fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Reads a JSON Lines file into values (blank lines skipped).
pub fn read_jsonl(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1)))
        .collect()
}

/// Every GSM8K model solution and ground-truth solution text (the extraction benchmark corpus),
/// or `None` when the data is not present.
pub fn gsm8k_solution_texts() -> Option<Vec<String>> {
    let rows = read_jsonl(&data_root()?.join("gsm8k/example_model_solutions.jsonl"));
    let mut out = Vec::new();
    for r in rows {
        if let Some(t) = r["ground_truth"].as_str() {
            out.push(t.to_string());
        }
        for v in ["6b_finetuning", "6b_verification", "175b_finetuning", "175b_verification"] {
            if let Some(t) = r[v]["solution"].as_str() {
                out.push(t.to_string());
            }
        }
    }
    Some(out)
}

mod cli;
mod fake_llm;
mod golden;
mod kill;

pub mod synth;

/// Writes `content` to `dir/name` and returns the path (test fixtures).
pub fn write_file(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    path
}

pub use cli::{clean_env, warrant, warrant_at, warrant_bin, warrant_std};
pub use fake_llm::{FakeLlm, Reply, Rule};
pub use golden::assert_golden;
pub use kill::kill_trial;
