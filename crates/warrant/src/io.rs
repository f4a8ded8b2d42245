//! Reading inputs: files or stdin, UTF-8 checked, JSON parsed with located errors.

use std::io::{BufRead, BufReader};
use std::path::Path;

use serde_json::Value;
use warrant_text::io::ReadError;

use crate::error::{Error, Result};

/// A ceiling on what one input may hold, and the flag that raises it.
#[derive(Debug, Clone, Copy)]
pub struct Limit {
    /// Most bytes accepted.
    pub bytes: u64,
    /// The flag that sets it (`--max-bytes`), named in the refusal.
    pub flag: &'static str,
}

impl Limit {
    /// `bytes` as set by `flag`.
    pub fn new(bytes: impl TryInto<u64>, flag: &'static str) -> Self {
        Self { bytes: bytes.try_into().unwrap_or(u64::MAX), flag }
    }

    /// No ceiling but the input's own end (devices that never end are still refused).
    pub const NONE: Self = Self { bytes: u64::MAX, flag: "" };
}

/// Reads a file, or stdin for `-`, as UTF-8 text. Devices and other files that may never end
/// are refused; see [`read_text_within`] for a ceiling.
pub fn read_text(path: &str) -> Result<String> {
    read_text_within(path, Limit::NONE)
}

/// [`read_text`], refusing more than `limit` bytes while reading (memory stays bounded).
pub fn read_text_within(path: &str, limit: Limit) -> Result<String> {
    let bytes = read_bytes_within(path, limit)?;
    String::from_utf8(bytes).map_err(|e| {
        Error::in_file(
            display_name(path),
            format!("{}: not UTF-8 text (invalid byte at offset {})", display_name(path), e.utf8_error().valid_up_to()),
        )
    })
}

/// Reads a file, or stdin for `-`, as bytes, refusing more than `limit` bytes while reading.
pub fn read_bytes_within(path: &str, limit: Limit) -> Result<Vec<u8>> {
    let read = if path == "-" {
        warrant_text::io::read_bounded(std::io::stdin().lock(), limit.bytes)
    } else {
        let p = Path::new(path);
        if p.is_dir() {
            return Err(Error::in_file(path, format!("{path}: is a directory, expected a file")));
        }
        warrant_text::io::read_file_bounded(p, limit.bytes)
    };
    read.map_err(|e| read_error(path, &e, limit))
}

/// The one-line refusal for a failed read of `path`.
pub fn read_error(path: &str, e: &ReadError, limit: Limit) -> Error {
    let name = display_name(path);
    Error::in_file(
        name,
        match e {
            ReadError::TooLarge { .. } => {
                format!("{name}: input is {}; the limit is {} bytes (raise it with {})", e.size_text(), limit.bytes, limit.flag)
            }
            ReadError::NotRegular { .. } => format!("{name}: {e}"),
            ReadError::Io(_) => format!("{name}: cannot read: {e}"),
        },
    )
}

/// The lines of a file, or stdin for `-` (JSON Lines batches), read one at a time: memory
/// holds one line, of at most `limit` bytes, whatever the size of the input.
pub struct Lines {
    path: String,
    reader: Box<dyn BufRead>,
    buf: Vec<u8>,
    limit: Limit,
    number: usize,
}

impl Lines {
    /// Opens `path` (devices and other files that may never end are refused).
    pub fn open(path: &str, limit: Limit) -> Result<Self> {
        let reader: Box<dyn BufRead> = if path == "-" {
            Box::new(BufReader::new(std::io::stdin().lock()))
        } else {
            let p = Path::new(path);
            if p.is_dir() {
                return Err(Error::in_file(path, format!("{path}: is a directory, expected a file")));
            }
            let fail = |e: ReadError| read_error(path, &e, limit);
            warrant_text::io::check_readable(p).map_err(fail)?;
            Box::new(BufReader::new(std::fs::File::open(p).map_err(|e| fail(e.into()))?))
        };
        Ok(Self { path: path.to_string(), reader, buf: Vec::new(), limit, number: 0 })
    }

    /// The next line with its 1-based number: its text (without the line end), or why it
    /// cannot be read (longer than the limit, not UTF-8) when the lines after it still can.
    /// `None` at the end; an error when the input itself cannot be read further.
    pub fn next_line(&mut self) -> Result<Option<(usize, Result<String, String>)>> {
        self.number += 1;
        let line = match warrant_text::io::read_line_bounded(&mut self.reader, &mut self.buf, self.limit.bytes) {
            Ok(None) => return Ok(None),
            Ok(Some(())) => String::from_utf8(std::mem::take(&mut self.buf))
                .map_err(|e| format!("not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to())),
            Err(e @ ReadError::TooLarge { .. }) => Err(format!(
                "the line is {}; the limit is {} bytes (raise it with {})",
                e.size_text(),
                self.limit.bytes,
                self.limit.flag
            )),
            Err(e) => return Err(read_error(&self.path, &e, self.limit)),
        };
        Ok(Some((self.number, line)))
    }
}

/// Writes `content` to `path` atomically: a temporary file in the same directory, then a rename,
/// so readers never see a half-written file. Only a regular file (or a new name) is replaced:
/// a device (`-o /dev/full`), a FIFO or a socket is refused, never swapped for a regular file.
pub fn write_atomic(path: impl AsRef<Path>, content: &[u8]) -> Result<()> {
    use std::io::Write;
    let target = path.as_ref();
    let path = target.display();
    if target.is_dir() {
        return Err(Error::in_file(path.to_string(), format!("{path}: is a directory, expected a file name")));
    }
    if let Ok(meta) = std::fs::metadata(target)
        && !meta.is_file()
    {
        return Err(Error::in_file(
            path.to_string(),
            format!("{path}: not a regular file; refusing to replace it (write to a file instead)"),
        ));
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let fail = |e: std::io::Error| Error::in_file(path.to_string(), format!("{path}: cannot write: {}", io_reason(&e)));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(fail)?;
    tmp.write_all(content).map_err(fail)?;
    tmp.as_file().sync_all().map_err(fail)?;
    tmp.persist(target).map_err(|e| fail(e.error))?;
    Ok(())
}

/// Parses JSON text, naming the file, line and column on failure.
pub fn parse_json(path: &str, text: &str) -> Result<Value> {
    serde_json::from_str(text)
        .map_err(|e| Error::in_file(display_name(path), format!("{}: invalid JSON: {e}", display_name(path))).at_line(e.line()))
}

/// Reads and parses a JSON file.
pub fn read_json(path: &str) -> Result<Value> {
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
