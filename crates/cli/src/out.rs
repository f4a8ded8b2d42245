//! Standard output for every command, with write errors handled in one place.
//!
//! A reader that goes away (`warrant extract big.md | head -c1`) ends the command quietly with
//! exit 0, as `rg` does; any other write error (a full disk: `> /dev/full`) ends it with one
//! line and exit 2. Commands print through [`Out`] (the [`outln!`] macro for lines), never
//! with `println!`, which panics on both.

use std::fmt;
use std::io::{BufWriter, ErrorKind, StdoutLock, Write};

use crate::error::{CliError, CliResult};

/// Buffered standard output. Dropping it flushes what is left (ignoring errors: a command
/// that fails reports its own error); call [`Out::finish`] to learn whether the output got out.
pub struct Out {
    w: BufWriter<StdoutLock<'static>>,
}

impl Out {
    /// Standard output, locked for this command.
    pub fn new() -> Self {
        Self { w: BufWriter::new(std::io::stdout().lock()) }
    }

    /// Writes `s` as is.
    pub fn print(&mut self, s: &str) -> CliResult<()> {
        self.w.write_all(s.as_bytes()).map_err(write_error)
    }

    /// Writes formatted text and a newline (see [`outln!`]).
    pub fn line(&mut self, args: fmt::Arguments<'_>) -> CliResult<()> {
        self.w.write_fmt(args).and_then(|()| self.w.write_all(b"\n")).map_err(write_error)
    }

    /// Writes a JSON value, pretty and newline-terminated.
    pub fn json<T: serde::Serialize + ?Sized>(&mut self, v: &T) -> CliResult<()> {
        let s = serde_json::to_string_pretty(v).map_err(|e| CliError::input(format!("cannot serialise output: {e}")))?;
        self.print(&s)?;
        self.print("\n")
    }

    /// Sends what is buffered.
    pub fn flush(&mut self) -> CliResult<()> {
        self.w.flush().map_err(write_error)
    }

    /// Flushes and ends the output.
    pub fn finish(mut self) -> CliResult<()> {
        self.flush()
    }
}

/// A write error on standard output as the command's result: a closed pipe ends it quietly
/// (exit 0), anything else is one line and exit 2.
pub fn write_error(e: std::io::Error) -> CliError {
    if e.kind() == ErrorKind::BrokenPipe { CliError::closed_pipe() } else { CliError::input(format!("cannot write output: {e}")) }
}

/// `outln!(out, "format", args…)`: one line on [`Out`], `?`-able.
macro_rules! outln {
    ($out:expr) => {
        $out.line(format_args!(""))
    };
    ($out:expr, $($arg:tt)*) => {
        $out.line(format_args!($($arg)*))
    };
}
pub(crate) use outln;
