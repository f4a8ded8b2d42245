//! Reading inputs with a ceiling: memory stays bounded by the limit whatever arrives (a 1 GB
//! pipe, `/dev/zero`), because the limit is enforced while reading, not after.
//!
//! - [`read_bounded`]: at most `limit` bytes from any reader; one byte more is a refusal.
//! - [`read_file_bounded`]: a file by path. Regular files over the limit are refused before
//!   anything is read; devices, sockets and other files that may never end are refused
//!   outright (pipes and FIFOs end, and are read through the bound).
//! - [`read_line_bounded`]: one line of a stream (JSON Lines batches), at most `limit` bytes; an
//!   overlong line is skipped to its end without being kept.

use std::fs::File;
use std::io::{BufRead, ErrorKind, Read};
use std::path::Path;

/// Why a bounded read failed.
#[derive(Debug)]
pub enum ReadError {
    /// More than `limit` bytes. `size` is the whole size when it is known (a regular file);
    /// for a stream only "more than `limit`" is known.
    TooLarge {
        /// The size of the input, when known.
        size: Option<u64>,
        /// The limit.
        limit: u64,
    },
    /// Not a regular file, a pipe or a FIFO: a device (`/dev/zero`), a socket or a folder.
    NotRegular {
        /// What it is (`a character device`, `a folder`, …).
        kind: &'static str,
    },
    /// The read itself failed.
    Io(std::io::Error),
}

impl ReadError {
    /// `1234 bytes`, or `more than 1000 bytes` when the whole size is unknown.
    pub fn size_text(&self) -> String {
        match self {
            Self::TooLarge { size: Some(n), .. } => format!("{n} bytes"),
            Self::TooLarge { size: None, limit } => format!("more than {limit} bytes"),
            _ => String::new(),
        }
    }
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooLarge { limit, .. } => write!(f, "input is {}; the limit is {limit} bytes", self.size_text()),
            Self::NotRegular { kind } => write!(f, "{kind}, not a regular file: refusing to read it"),
            Self::Io(e) => match e.kind() {
                ErrorKind::NotFound => f.write_str("no such file"),
                ErrorKind::PermissionDenied => f.write_str("permission denied"),
                _ => write!(f, "{e}"),
            },
        }
    }
}

impl std::error::Error for ReadError {}

impl From<std::io::Error> for ReadError {
    fn from(e: std::io::Error) -> Self {
        Self::Io(e)
    }
}

/// Reads all of `r`, refusing (without keeping more than `limit + 1` bytes) an input longer
/// than `limit` bytes.
pub fn read_bounded(r: impl Read, limit: u64) -> Result<Vec<u8>, ReadError> {
    read_bounded_hint(r, limit, 0)
}

fn read_bounded_hint(r: impl Read, limit: u64, hint: u64) -> Result<Vec<u8>, ReadError> {
    let mut buf = Vec::with_capacity(usize::try_from(hint.min(limit)).unwrap_or(0).saturating_add(1));
    r.take(limit.saturating_add(1)).read_to_end(&mut buf)?;
    if buf.len() as u64 > limit {
        return Err(ReadError::TooLarge { size: None, limit });
    }
    Ok(buf)
}

/// What a file is, when it is not something [`read_file_bounded`] reads.
fn refused_kind(meta: &std::fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return None;
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("a special file")
}

/// Checks that `path` is something [`read_file_bounded`] would read (a regular file, a pipe
/// or a FIFO), without reading it.
pub fn check_readable(path: &Path) -> Result<(), ReadError> {
    let meta = std::fs::metadata(path)?;
    match refused_kind(&meta) {
        Some(kind) => Err(ReadError::NotRegular { kind }),
        None => Ok(()),
    }
}

/// Reads the file at `path`, at most `limit` bytes. A regular file over the limit is refused
/// before reading (with its size); a pipe or FIFO is read through the bound; anything else
/// (a device such as `/dev/zero`, a socket, a folder) is refused.
pub fn read_file_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let file = File::open(path)?;
    let meta = file.metadata()?;
    if let Some(kind) = refused_kind(&meta) {
        return Err(ReadError::NotRegular { kind });
    }
    if meta.is_file() && meta.len() > limit {
        return Err(ReadError::TooLarge { size: Some(meta.len()), limit });
    }
    // A regular file may still grow while it is read: the bound holds either way.
    read_bounded_hint(file, limit, if meta.is_file() { meta.len() } else { 0 })
}

/// Reads the next line of `r` into `line` (cleared first, without the `\n`), keeping at most
/// `limit` bytes. `Ok(None)` at the end of the input; a line longer than `limit` is read to its
/// end without being kept and refused with [`ReadError::TooLarge`], so the caller can go on
/// with the next line.
pub fn read_line_bounded(r: &mut impl BufRead, line: &mut Vec<u8>, limit: u64) -> Result<Option<()>, ReadError> {
    line.clear();
    let mut over = false;
    let mut any = false;
    loop {
        let (done, used) = {
            let chunk = match r.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            };
            if chunk.is_empty() {
                break;
            }
            any = true;
            let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (&chunk[..i], Some(i + 1)),
                None => (chunk, None),
            };
            if !over {
                if (line.len() + part.len()) as u64 > limit {
                    over = true;
                    line.clear();
                } else {
                    line.extend_from_slice(part);
                }
            }
            (done.is_some(), done.unwrap_or(chunk.len()))
        };
        r.consume(used);
        if done {
            break;
        }
    }
    if !any {
        return Ok(None);
    }
    if over {
        return Err(ReadError::TooLarge { size: None, limit });
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Ok(Some(()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    /// An endless stream of `b'a'` that counts what is read from it.
    struct Endless {
        read: u64,
    }

    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            buf.fill(b'a');
            self.read += buf.len() as u64;
            Ok(buf.len())
        }
    }

    #[test]
    fn a_gigabyte_stream_is_refused_after_the_limit_not_after_the_stream() {
        // 1 GB offered; only the limit (plus one byte) is ever read or kept.
        let mut src = Endless { read: 0 };
        let limit = 1000;
        let e = read_bounded((&mut src).take(1 << 30), limit).expect_err("over the limit");
        assert!(matches!(e, ReadError::TooLarge { size: None, limit: 1000 }), "{e:?}");
        assert_eq!(e.to_string(), "input is more than 1000 bytes; the limit is 1000 bytes");
        assert!(src.read <= limit + 1 + 8192, "read {} bytes of the stream", src.read);
    }

    #[test]
    fn inputs_within_the_limit_are_read_whole() {
        assert_eq!(read_bounded(&b"hello"[..], 5).expect("fits"), b"hello");
        assert!(matches!(read_bounded(&b"hello!"[..], 5), Err(ReadError::TooLarge { .. })));
        assert_eq!(read_bounded(&b""[..], 0).expect("empty"), b"");
    }

    #[test]
    fn files_over_the_limit_are_refused_with_their_size_and_devices_outright() {
        let dir = std::env::temp_dir().join(format!("warrant-text-io-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let f = dir.join("a.txt");
        std::fs::write(&f, "0123456789").expect("write");
        assert_eq!(read_file_bounded(&f, 10).expect("fits"), b"0123456789");
        let e = read_file_bounded(&f, 4).expect_err("too large");
        assert_eq!(e.to_string(), "input is 10 bytes; the limit is 4 bytes");
        assert_eq!(e.size_text(), "10 bytes");
        assert!(matches!(read_file_bounded(&dir, 4), Err(ReadError::NotRegular { kind: "a folder" })));
        assert!(matches!(read_file_bounded(&dir.join("missing"), 4), Err(ReadError::Io(_))));
        #[cfg(unix)]
        {
            let e = read_file_bounded(Path::new("/dev/zero"), 1 << 40).expect_err("never ends");
            assert_eq!(e.to_string(), "a character device, not a regular file: refusing to read it");
            assert!(check_readable(Path::new("/dev/zero")).is_err());
            assert!(check_readable(&f).is_ok());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn lines_are_bounded_and_an_overlong_one_is_skipped() {
        let text = b"one\r\n0123456789abcdef\nthree\n\nlast";
        let mut r = BufReader::with_capacity(4, &text[..]);
        let mut line = Vec::new();
        let mut got = Vec::new();
        loop {
            match read_line_bounded(&mut r, &mut line, 8) {
                Ok(Some(())) => got.push(String::from_utf8_lossy(&line).into_owned()),
                Ok(None) => break,
                Err(e) => got.push(format!("error: {e}")),
            }
        }
        assert_eq!(got, ["one", "error: input is more than 8 bytes; the limit is 8 bytes", "three", "", "last"]);
    }

    #[test]
    fn an_endless_line_is_read_in_constant_memory() {
        let mut src = BufReader::new(Endless { read: 0 }.take(1 << 24));
        let mut line = Vec::new();
        assert!(matches!(read_line_bounded(&mut src, &mut line, 100), Err(ReadError::TooLarge { .. })));
        assert!(line.capacity() <= 8192, "kept {} bytes", line.capacity());
        assert!(matches!(read_line_bounded(&mut src, &mut line, 100), Ok(None)));
    }
}
