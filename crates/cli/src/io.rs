//! Reading inputs: files or stdin, UTF-8 checked, JSON parsed with located errors.

use std::io::Read;
use std::path::Path;

use serde_json::Value;

use crate::error::{CliError, CliResult};

/// Reads a file, or stdin for `-`, as UTF-8 text.
pub fn read_text(path: &str) -> CliResult<String> {
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
    String::from_utf8(bytes).map_err(|e| {
        CliError::input(format!(
            "{}: not UTF-8 text (invalid byte at offset {})",
            display_name(path),
            e.utf8_error().valid_up_to()
        ))
    })
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
