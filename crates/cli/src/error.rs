//! Errors that end a command, with their exit code.

use std::fmt;

/// Most problems reported by [`CliError::inputs`].
pub const MAX_LINES: usize = 50;

/// A command failure: bad usage or bad input (exit 2) unless stated otherwise.
#[derive(Debug)]
pub struct CliError {
    message: String,
    code: u8,
    quiet: bool,
}

impl CliError {
    /// Bad usage or input: exit code 2.
    pub fn input(message: impl Into<String>) -> Self {
        Self { message: message.into(), code: 2, quiet: false }
    }

    /// The check failed (exit code 1), e.g. a source that yields no knowledge.
    pub fn failure(message: impl Into<String>) -> Self {
        Self { message: message.into(), code: 1, quiet: false }
    }

    /// The reader of standard output went away (`| head -c1`): end quietly with exit 0, as
    /// `grep`, `rg` and `jq` do.
    pub fn closed_pipe() -> Self {
        Self { message: String::new(), code: 0, quiet: true }
    }

    /// True when nothing should be printed for this error.
    pub fn is_quiet(&self) -> bool {
        self.quiet
    }

    /// Several bad inputs at once: one line each (`error: ` is prefixed to every line), at
    /// most [`MAX_LINES`] of them.
    pub fn inputs(lines: &[String]) -> Self {
        let mut shown: Vec<&str> = lines.iter().take(MAX_LINES).map(String::as_str).collect();
        let more = lines.len().saturating_sub(MAX_LINES);
        let tail = format!("… and {more} more");
        if more > 0 {
            shown.push(&tail);
        }
        Self::input(shown.join("\nerror: "))
    }

    /// A store failure (missing store, busy, not a store, database error): exit code 2.
    pub fn store(e: warrant_store::StoreError) -> Self {
        Self::input(e.to_string())
    }

    /// The exit code for this error.
    pub fn exit_code(&self) -> u8 {
        self.code
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CliError {}

/// A use case's failure: every kind is bad input, a store or a model the user can fix (exit 2).
impl From<warrant::Error> for CliError {
    fn from(e: warrant::Error) -> Self {
        Self::input(e.message)
    }
}

/// Shorthand for command results.
pub type CliResult<T> = Result<T, CliError>;
