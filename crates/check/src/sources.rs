//! Reading source files for a check: files and folders (walked in sorted order), each a
//! document whose id is its path as given (folder paths joined with `/`).

use std::path::{Path, PathBuf};

use warrant_verify::Source;

/// Default ceiling on the total bytes of sources read for one check.
pub const DEFAULT_MAX_SOURCE_BYTES: u64 = 256 * 1024 * 1024;

/// A source that could not be read, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct SourceError {
    /// The file or folder.
    pub path: String,
    /// What is wrong.
    pub reason: String,
}

fn err(path: &Path, reason: impl Into<String>) -> SourceError {
    SourceError { path: path.display().to_string(), reason: reason.into() }
}

/// Reads `paths` (files or folders) into sources, refusing unreadable, binary and non-UTF-8
/// files and stopping before the total size passes `max_bytes`. Hidden files and folders
/// (`.git`) are skipped inside folders.
pub fn read_sources(paths: &[String], max_bytes: u64) -> Result<Vec<Source>, SourceError> {
    let mut files: Vec<PathBuf> = Vec::new();
    for p in paths {
        let path = Path::new(p);
        let meta = std::fs::metadata(path).map_err(|e| err(path, io_reason(&e)))?;
        if meta.is_dir() {
            walk(path, &mut files)?;
        } else {
            files.push(path.to_path_buf());
        }
    }
    let mut total = 0u64;
    let mut out = Vec::with_capacity(files.len());
    for f in files {
        let len = std::fs::metadata(&f).map_err(|e| err(&f, io_reason(&e)))?.len();
        total = total.saturating_add(len);
        if total > max_bytes {
            return Err(err(&f, format!("sources exceed the limit of {max_bytes} bytes (raise it with --max-source-bytes)")));
        }
        let bytes = std::fs::read(&f).map_err(|e| err(&f, io_reason(&e)))?;
        out.push(Source::new(id_of(&f), decode(&f, bytes)?));
    }
    Ok(out)
}

/// A source's text: UTF-8 (a BOM is dropped), never binary.
fn decode(path: &Path, bytes: Vec<u8>) -> Result<String, SourceError> {
    if bytes.iter().take(8192).any(|b| *b == 0) {
        return Err(err(path, "a binary file, not text"));
    }
    let mut text = String::from_utf8(bytes)
        .map_err(|e| err(path, format!("not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to())))?;
    if text.starts_with('\u{feff}') {
        text.drain(..3);
    }
    Ok(text)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), SourceError> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| err(dir, io_reason(&e)))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| !p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with('.')))
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out)?;
        } else {
            out.push(p);
        }
    }
    Ok(())
}

fn id_of(path: &Path) -> String {
    path.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).filter(|c| c != ".").collect::<Vec<_>>().join("/")
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or folder".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}
