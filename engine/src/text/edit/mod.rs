//! Minimal, formatting-preserving edits to YAML and JSON text, addressed by JSON pointer
//! (RFC 6901): what the playground's rule panel and one-click fixes write back into the
//! editor. Only the bytes that change are touched: comments, quoting, key order,
//! indentation, line endings and the other documents of a stream stay as they were.
//!
//! Positions come from the reader's [`crate::text::source_map::SourceMap`], so the text is read
//! exactly as the rest of crdlab reads it. Every edit is checked before it is returned:
//! the new text, read again, must give the old documents with exactly the one change
//! applied; an edit that would not (a layout this module does not model) is refused with
//! [`EditError::Unverified`] rather than handed back wrong.


mod editor;
pub(crate) mod error;
mod ops;
pub(crate) mod plan;
pub(crate) mod pointer;
pub(crate) mod text_edit;
mod write;

pub use error::{Doc, EditError, Pos};
pub use plan::{append, plan, remove, set, Prepared};
pub use text_edit::{Op, TextEdit};

#[cfg(test)]
mod tests;
