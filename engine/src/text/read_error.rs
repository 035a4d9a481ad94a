//! Why a text could not be read: the reading error every reader returns (with its 1-based
//! line and column, as go-yaml and encoding/json report them), and the bounds a read keeps
//! to, so that hostile input ends in an error, never in a stack overflow or unbounded memory.

use std::fmt;
use yaml_rust2::scanner::Marker;

/// Deepest nesting accepted in any document (objects plus lists).
pub const MAX_DEPTH: usize = 512;
/// Largest document accepted, in bytes (a generous multiple of the apiserver's 3 MiB limit,
/// so that oversized objects can still be read and reported by validation).
pub const MAX_BYTES: usize = 64 * 1024 * 1024;

/// A reading error with its position (1-based line and column) when known.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadError {
    pub message: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "line {}, column {}: {}", l, c, self.message),
            (Some(l), None) => write!(f, "line {}: {}", l, self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ReadError {}

/// An error at a parser position (its column made 1-based), or without one.
pub(crate) fn err_at(message: impl Into<String>, mark: Option<&Marker>) -> ReadError {
    ReadError {
        message: message.into(),
        line: mark.map(|m| m.line()),
        column: mark.map(|m| m.col() + 1),
    }
}
