//! Errors that end a command, with their exit code.

use std::fmt;

/// A command failure: bad usage or bad input (exit 2) unless stated otherwise.
#[derive(Debug)]
pub struct CliError {
    message: String,
    code: u8,
}

impl CliError {
    /// Bad usage or input: exit code 2.
    pub fn input(message: impl Into<String>) -> Self {
        Self { message: message.into(), code: 2 }
    }

    /// The check failed (exit code 1), e.g. a source that yields no knowledge.
    pub fn failure(message: impl Into<String>) -> Self {
        Self { message: message.into(), code: 1 }
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

/// Shorthand for command results.
pub type CliResult<T> = Result<T, CliError>;
