//! Why an edit was not made ([`EditError`]), which document it addresses ([`Doc`]) and
//! where in the text ([`Pos`]).

use crate::text::read_error::ReadError;
use crate::text::source_map::Range;
use serde_json::Value;
use std::fmt;

/// Which document of a stream to edit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Doc {
    /// The CRD, chosen as [`crate::text::positions::Source::read_crd`] chooses it.
    Crd,
    /// The only (non-empty) document of the text.
    Single,
}

/// A line and column (1-based; the column counts UTF-16 code units, as [`Range`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    pub line: u32,
    pub column: u32,
}

impl Pos {
    pub(crate) fn of(r: Range) -> Pos {
        Pos {
            line: r.start_line,
            column: r.start_column,
        }
    }
}

/// Why an edit was not made.
#[derive(Clone, Debug, PartialEq)]
pub enum EditError {
    /// The text does not read (the reader's error).
    Read(ReadError),
    /// [`Doc::Crd`]: the text holds no CRD (the loader's message).
    NoCrd(String),
    /// [`Doc::Single`]: the text holds no document, or several.
    NotSingle { documents: usize },
    /// The pointer is not an RFC 6901 pointer, or a step of it is not a list index.
    BadPointer { pointer: String, reason: String },
    /// The pointer names a key that is not there (and the edit cannot create it).
    NotFound { pointer: String, at: Option<Pos> },
    /// A list index past the end.
    OutOfRange {
        pointer: String,
        index: String,
        len: usize,
        at: Option<Pos>,
    },
    /// The pointer goes on through a scalar.
    NotContainer {
        pointer: String,
        found: &'static str,
        at: Option<Pos>,
    },
    /// `append` to something that is not a list.
    NotSequence {
        pointer: String,
        found: &'static str,
        at: Option<Pos>,
    },
    /// The node is an alias (`*name`): its text is elsewhere.
    Alias { pointer: String, at: Option<Pos> },
    /// The node (or one around it) carries an anchor: aliases elsewhere would change too.
    Anchored { pointer: String, at: Option<Pos> },
    /// The node carries an explicit tag (`!!str`) that the new value may not fit.
    Tagged { pointer: String, at: Option<Pos> },
    /// The key comes from a merge (`<<: *name`), or the mapping merges keys.
    Merged { pointer: String, at: Option<Pos> },
    /// A layout this module does not rewrite (tabs in indentation, empty list items, ...).
    Unsupported {
        pointer: String,
        at: Option<Pos>,
        reason: String,
    },
    /// The edit, read back, did not give the intended documents: refused rather than
    /// handed back wrong.
    Unverified { pointer: String, reason: String },
}

pub(crate) fn at_suffix(at: &Option<Pos>) -> String {
    match at {
        Some(p) => format!(" (line {}, column {})", p.line, p.column),
        None => String::new(),
    }
}

pub(crate) fn show(pointer: &str) -> &str {
    if pointer.is_empty() {
        "the document root"
    } else {
        pointer
    }
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditError::Read(e) => write!(f, "the text does not read: {}", e),
            EditError::NoCrd(m) => f.write_str(m),
            EditError::NotSingle { documents } => {
                write!(f, "expected one document, the text holds {}", documents)
            }
            EditError::BadPointer { pointer, reason } => {
                write!(f, "bad JSON pointer {:?}: {}", pointer, reason)
            }
            EditError::NotFound { pointer, at } => {
                write!(f, "{}: not found{}", show(pointer), at_suffix(at))
            }
            EditError::OutOfRange {
                pointer,
                index,
                len,
                at,
            } => write!(
                f,
                "{}: index {} is out of range, the list has {} item{}{}",
                show(pointer),
                index,
                len,
                if *len == 1 { "" } else { "s" },
                at_suffix(at)
            ),
            EditError::NotContainer { pointer, found, at } => write!(
                f,
                "{}: cannot go into {}{}",
                show(pointer),
                found,
                at_suffix(at)
            ),
            EditError::NotSequence { pointer, found, at } => write!(
                f,
                "{}: cannot append to {}, it is not a list{}",
                show(pointer),
                found,
                at_suffix(at)
            ),
            EditError::Alias { pointer, at } => write!(
                f,
                "{}: the node is an alias{}; edit the anchored node it repeats",
                show(pointer),
                at_suffix(at)
            ),
            EditError::Anchored { pointer, at } => write!(
                f,
                "{}: the node carries an anchor{}, so aliases of it would change too",
                show(pointer),
                at_suffix(at)
            ),
            EditError::Tagged { pointer, at } => write!(
                f,
                "{}: the node carries an explicit tag{}",
                show(pointer),
                at_suffix(at)
            ),
            EditError::Merged { pointer, at } => write!(
                f,
                "{}: the key comes from a merge (<<){}",
                show(pointer),
                at_suffix(at)
            ),
            EditError::Unsupported {
                pointer,
                at,
                reason,
            } => write!(
                f,
                "{}: cannot edit here{}: {}",
                show(pointer),
                at_suffix(at),
                reason
            ),
            EditError::Unverified { pointer, reason } => write!(
                f,
                "{}: the edit would not read back as intended ({}); the text was left unchanged",
                show(pointer),
                reason
            ),
        }
    }
}

impl std::error::Error for EditError {}

impl From<ReadError> for EditError {
    fn from(e: ReadError) -> EditError {
        EditError::Read(e)
    }
}


pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}
