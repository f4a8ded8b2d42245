//! The one error type every use case returns: what kind of failure, what went wrong, and where.

use std::fmt;

use serde::Serialize;

/// What kind of failure an [`Error`] is; each shell maps it to its own signal (the CLI to an
/// exit code, the server to an HTTP status, Python to an exception class).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The request's shape is wrong (exclusive fields both given, neither given).
    Usage,
    /// The caller's input is wrong: a file that cannot be read, JSON of the wrong shape, an
    /// unknown pack, an empty answer.
    Input,
    /// The knowledge store cannot be opened or read.
    Store,
    /// The store is busy (another writer holds it): retry.
    StoreBusy,
    /// A model was asked for and cannot be used.
    Model,
    /// A failure that is not the caller's (a built-in pack that does not load, a bug).
    Internal,
}

/// Where an input error is: a file, a line in it, a JSON pointer (into the file, or into the
/// request when there is no file).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Location {
    /// The file (`<stdin>` for standard input).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The 1-based line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The JSON pointer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
}

/// One of several problems an error reports at once (every bad record of an ingest).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The JSON pointer into the request.
    pub pointer: String,
    /// What is wrong there.
    pub message: String,
}

impl Problem {
    /// A problem at `pointer`.
    pub fn at(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self { pointer: pointer.into(), message: message.into() }
    }
}

/// A failed use case. The message is complete on its own (it names the file or pointer and
/// what was expected); [`Error::location`] carries the same place for machines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Error {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// What went wrong and what was expected, for a person.
    pub message: String,
    /// Where.
    pub location: Location,
    /// Every problem, when there are several (the message names the first).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<Problem>,
}

impl Error {
    fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into(), location: Location::default(), problems: Vec::new() }
    }

    /// Bad input.
    pub fn input(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Input, message)
    }

    /// A request of the wrong shape.
    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Usage, message)
    }

    /// Bad input at a JSON pointer of the request.
    pub fn input_at(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self::input(message).at_pointer(pointer)
    }

    /// Bad input in a file.
    pub fn in_file(file: impl Into<String>, message: impl Into<String>) -> Self {
        Self::input(message).in_named_file(file)
    }

    /// A model that cannot be used.
    pub fn model(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Model, message)
    }

    /// A failure that is not the caller's.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, message)
    }

    /// A store failure, with `context` (the flag or file that named the store) before its
    /// message when given.
    pub fn store(e: warrant_store::StoreError, context: Option<&str>) -> Self {
        let message = match context {
            Some(c) => format!("{c}: {e}"),
            None => e.to_string(),
        };
        match e {
            warrant_store::StoreError::Busy => Self::new(ErrorKind::StoreBusy, message),
            warrant_store::StoreError::Invalid(_) => Self::input(message),
            _ => Self::new(ErrorKind::Store, message),
        }
    }

    /// The same error, at `pointer`.
    pub fn at_pointer(mut self, pointer: impl Into<String>) -> Self {
        self.location.pointer = Some(pointer.into());
        self
    }

    /// The same error, in `file`.
    pub fn in_named_file(mut self, file: impl Into<String>) -> Self {
        self.location.file = Some(file.into());
        self
    }

    /// The same error, listing every problem.
    pub fn with_problems(mut self, problems: Vec<Problem>) -> Self {
        self.problems = problems;
        self
    }

    /// The same error, at `line`.
    pub fn at_line(mut self, line: usize) -> Self {
        self.location.line = Some(line);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// Use-case results.
pub type Result<T, E = Error> = std::result::Result<T, E>;
