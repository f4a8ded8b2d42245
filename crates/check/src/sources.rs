//! Reading source files for a check: files and folders (walked in sorted order), each a
//! document whose id is its path as given (folder paths joined with `/`).

use std::path::{Path, PathBuf};

use warrant_store::{IngestOptions, SqliteStore};

/// Default ceiling on the total bytes of sources read for one check.
pub const DEFAULT_MAX_SOURCE_BYTES: u64 = 256 * 1024 * 1024;

/// A source that could not be read, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{reason}", if path.is_empty() { String::new() } else { format!("{path}: ") })]
pub struct SourceError {
    /// The file or folder.
    pub path: String,
    /// What is wrong.
    pub reason: String,
}

fn err(path: &Path, reason: impl Into<String>) -> SourceError {
    SourceError { path: path.display().to_string(), reason: reason.into() }
}

/// Ingests `paths` (files and folders: text, Markdown, HTML, JSON Lines and JSON records) into
/// an in-memory store, refusing unreadable, binary and non-UTF-8 files, and refusing before
/// reading anything when their total size passes `max_bytes`. Hidden files and folders
/// (`.git`) are skipped inside folders.
pub fn ingest_sources(paths: &[String], max_bytes: u64) -> Result<SqliteStore, SourceError> {
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
    for f in &files {
        total = total.saturating_add(std::fs::metadata(f).map_err(|e| err(f, io_reason(&e)))?.len());
        if total > max_bytes {
            return Err(err(f, format!("sources exceed the limit of {max_bytes} bytes (raise it with --max-source-bytes)")));
        }
    }
    let given: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
    let set = warrant_store::read_sources_within(&given, None, max_bytes, &mut |_| {}).map_err(|errors| {
        let first = errors.first().map(ToString::to_string).unwrap_or_default();
        let more = if errors.len() > 1 { format!(" (and {} more problem(s))", errors.len() - 1) } else { String::new() };
        SourceError { path: String::new(), reason: format!("{first}{more}") }
    })?;
    let store = SqliteStore::open_in_memory().map_err(|e| SourceError { path: String::new(), reason: e.to_string() })?;
    warrant_store::ingest(&store, set.documents, Vec::new(), &IngestOptions::default(), &mut |_| {})
        .map_err(|e| SourceError { path: String::new(), reason: e.to_string() })?;
    Ok(store)
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

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or folder".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// An in-memory store of documents given as records (`POST /v1/check`'s `sources`), ingested
/// as `--sources` files are.
pub fn ingest_documents(documents: Vec<warrant_store::DocumentInput>) -> Result<SqliteStore, SourceError> {
    let store = SqliteStore::open_in_memory().map_err(|e| SourceError { path: String::new(), reason: e.to_string() })?;
    warrant_store::ingest(&store, documents, Vec::new(), &IngestOptions::default(), &mut |_| {})
        .map_err(|e| SourceError { path: String::new(), reason: e.to_string() })?;
    Ok(store)
}
