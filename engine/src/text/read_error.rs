//! Why a text could not be read: the reading error every reader returns (with its 1-based
//! line and column, as go-yaml and encoding/json report them), and the bounds a read keeps
//! to, so that hostile input ends in an error, never in a stack overflow or unbounded memory.

use std::fmt;
use yaml_rust2::scanner::Marker;

/// Deepest nesting accepted in any document (objects plus lists).
///
/// Below the apiserver's own: encoding/json's scanner (`maxNestingDepth`), sigs.k8s.io/json
/// and go-yaml v2 (`exceeded max depth of 10000`) all stop at 10,000 levels, which a 3 MiB
/// body reaches easily (20 KB of brackets). crdlab's walkers (pruning, defaulting,
/// validation, CEL values, diff) must fit WebAssembly's 1 MiB stack, and do at 512 levels;
/// deeper documents are refused with [`too_deep`], at the bracket or key that goes past.
pub const MAX_DEPTH: usize = 512;

/// The message for a document nested deeper than [`MAX_DEPTH`]: says what crdlab reads
/// and why it differs from the apiserver.
pub(crate) fn too_deep() -> String {
    format!(
        "nesting deeper than {} levels: crdlab reads at most {} (the apiserver's decoders allow 10000; crdlab's checks must fit the 1 MiB WebAssembly stack)",
        MAX_DEPTH, MAX_DEPTH
    )
}
/// Largest text accepted, in bytes: a stream of many documents (a bundle of CRDs) may be
/// long; each of its documents is bounded by the request body limit (3 MiB of JSON, see
/// `text::yaml`), and all of them together by [`MAX_STREAM_JSON`].
pub const MAX_BYTES: usize = 64 * 1024 * 1024;

/// Most JSON (counted from below, as the documents are built) all the documents of one
/// text may hold together: the largest public CRD bundles hold a few MiB. Bounds what a
/// stream of documents, each under the request limit, builds in memory.
pub const MAX_STREAM_JSON: u64 = 16 * 1024 * 1024;

/// The message for a stream over [`MAX_STREAM_JSON`].
pub(crate) fn stream_too_large() -> String {
    format!(
        "the documents hold more than {} bytes of JSON together, more than crdlab reads from one text",
        MAX_STREAM_JSON
    )
}

/// Nodes of one text whose positions are kept (about 180 bytes each): past them, the
/// documents are still read but carry no positions (a 3 MiB list of a million numbers
/// would otherwise hold hundreds of MB of ranges).
pub const MAX_POSITIONED_NODES: u64 = 400_000;

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
