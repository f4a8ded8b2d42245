//! Reading inputs: files or stdin, UTF-8 checked, JSON parsed with located errors.

use std::io::Read;
use std::path::Path;

use serde_json::Value;

use crate::error::{CliError, CliResult};

/// Reads a file, or stdin for `-`, as UTF-8 text.
pub fn read_text(path: &str) -> CliResult<String> {
    let bytes = read_bytes(path)?;
    String::from_utf8(bytes).map_err(|e| {
        CliError::input(format!(
            "{}: not UTF-8 text (invalid byte at offset {})",
            display_name(path),
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Reads a file, or stdin for `-`, as bytes.
pub fn read_bytes(path: &str) -> CliResult<Vec<u8>> {
    let bytes = if path == "-" {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf).map_err(|e| CliError::input(format!("<stdin>: cannot read: {e}")))?;
        buf
    } else {
        let p = Path::new(path);
        if p.is_dir() {
            return Err(CliError::input(format!("{path}: is a directory, expected a file")));
        }
        std::fs::read(p).map_err(|e| CliError::input(format!("{path}: cannot read: {}", io_reason(&e))))?
    };
    Ok(bytes)
}

/// Writes `content` to `path` atomically: a temporary file in the same directory, then a rename,
/// so readers never see a half-written file.
pub fn write_atomic(path: &str, content: &[u8]) -> CliResult<()> {
    use std::io::Write;
    let target = Path::new(path);
    if target.is_dir() {
        return Err(CliError::input(format!("{path}: is a directory, expected a file name")));
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let fail = |e: std::io::Error| CliError::input(format!("{path}: cannot write: {}", io_reason(&e)));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(fail)?;
    tmp.write_all(content).map_err(fail)?;
    tmp.as_file().sync_all().map_err(fail)?;
    tmp.persist(target).map_err(|e| fail(e.error))?;
    Ok(())
}

/// Parses JSON text, naming the file, line and column on failure.
pub fn parse_json(path: &str, text: &str) -> CliResult<Value> {
    serde_json::from_str(text).map_err(|e| CliError::input(format!("{}: invalid JSON: {e}", display_name(path))))
}

/// Reads and parses a JSON file.
pub fn read_json(path: &str) -> CliResult<Value> {
    let text = read_text(path)?;
    parse_json(path, &text)
}

/// `<stdin>` for `-`, else the path.
pub fn display_name(path: &str) -> &str {
    if path == "-" { "<stdin>" } else { path }
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// A JSON pointer for messages (`/` for the root).
pub fn pointer(p: &str) -> &str {
    if p.is_empty() { "/" } else { p }
}
