//! Golden files: output compared byte for byte with a file in the repository.
//!
//! [`assert_golden`] passes when the file holds exactly `actual`. Otherwise it fails with the
//! first line that differs and the command that rewrites the file. With `WARRANT_BLESS=1` it
//! writes `actual` to the file instead (after a deliberate change; review the diff before
//! committing). Snapshots kept by insta (`tests/snapshots/*.snap`) are accepted with
//! `INSTA_UPDATE=always` or `cargo insta review` instead: see the crate's documentation.

use std::fmt::Write as _;
use std::path::Path;

/// The variable that makes [`assert_golden`] rewrite golden files.
pub const BLESS_ENV: &str = "WARRANT_BLESS";

/// True when golden files are to be rewritten (`WARRANT_BLESS=1`).
pub fn blessing() -> bool {
    std::env::var(BLESS_ENV).is_ok_and(|v| v == "1")
}

/// Asserts that the file at `path` holds exactly `actual`, or writes it there under
/// `WARRANT_BLESS=1`.
#[track_caller]
pub fn assert_golden(path: impl AsRef<Path>, actual: &str) {
    let path = path.as_ref();
    if blessing() {
        std::fs::write(path, actual).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let expected = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => panic!("{}: {e}\n(run `{}` to write it)", path.display(), bless_command()),
    };
    if let Some(message) = difference(&expected, actual) {
        panic!(
            "the output differs from the golden file {} {message}\n(run `{}` if the change is intended, then review the diff)",
            path.display(),
            bless_command()
        );
    }
}

/// Where `actual` first departs from `expected`, or `None` when they are equal.
fn difference(expected: &str, actual: &str) -> Option<String> {
    if expected == actual {
        return None;
    }
    // `split('\n')` rather than `lines()`: a missing or extra final newline is a difference too.
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.split('\n').collect(), actual.split('\n').collect());
    let line = (0..e.len().max(a.len())).find(|&i| e.get(i) != a.get(i)).unwrap_or(0);
    let show = |l: Option<&&str>| l.map_or_else(|| "(end of file)".to_string(), |l| format!("{l:?}"));
    Some(format!("at line {}:\n  golden: {}\n  actual: {}", line + 1, show(e.get(line)), show(a.get(line))))
}

/// `WARRANT_BLESS=1 cargo test -p PACKAGE --test TARGET`, for the running test.
fn bless_command() -> String {
    let package = std::env::var("CARGO_PKG_NAME").ok();
    // A test executable is named `TARGET-HASH`.
    let target = std::env::current_exe().ok().and_then(|p| {
        let stem = p.file_stem()?.to_str()?.to_string();
        Some(stem.rsplit_once('-').map_or(stem.clone(), |(t, _)| t.to_string()))
    });
    let mut cmd = format!("{BLESS_ENV}=1 cargo test");
    if let Some(p) = package {
        let _ = write!(cmd, " -p {p}");
    }
    if let Some(t) = target {
        let _ = write!(cmd, " --test {t}");
    }
    cmd
}

#[cfg(test)]
mod tests {
    use super::difference;

    #[test]
    fn the_first_differing_line_is_named() {
        assert_eq!(difference("a\nb\n", "a\nb\n"), None);
        let d = difference("a\nb\nc\n", "a\nx\nc\n").unwrap_or_default();
        assert!(d.starts_with("at line 2:") && d.contains("\"b\"") && d.contains("\"x\""), "{d}");
        let d = difference("a\n", "a").unwrap_or_default();
        assert!(d.starts_with("at line 2:") && d.contains("golden: \"\"") && d.contains("(end of file)"), "{d}");
        let d = difference("a\n", "a\nb\n").unwrap_or_default();
        assert!(d.starts_with("at line 2:") && d.contains("actual: \"b\""), "{d}");
    }
}
