//! What an edit is: the operation asked at a pointer ([`Op`]) and the one replacement of
//! bytes it makes in the text ([`TextEdit`]), kept minimal.

use crate::text::source_map::Range;
use serde_json::Value;

/// One replacement in the text: bytes `start..end` become `text`. Offsets count bytes of
/// the text given to the edit (a byte-order mark included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

impl TextEdit {
    /// The edited text.
    pub fn apply(&self, text: &str) -> String {
        let (a, b) = (self.start.min(text.len()), self.end.min(text.len()));
        let mut out = String::with_capacity(text.len() + self.text.len());
        out.push_str(text.get(..a).unwrap_or(""));
        out.push_str(&self.text);
        out.push_str(text.get(b..).unwrap_or(""));
        out
    }

    /// The replaced range as editors take it (see [`Range`]).
    pub fn range(&self, text: &str) -> Range {
        let (a, b) = (utf16_point(text, self.start), utf16_point(text, self.end));
        Range {
            start_line: a.0,
            start_column: a.1,
            end_line: b.0,
            end_column: b.1,
            start_offset: a.2,
            end_offset: b.2,
        }
    }
}

/// (line, column, offset) of a byte offset, in UTF-16 units, 1-based line and column.
pub(crate) fn utf16_point(text: &str, byte: usize) -> (u32, u32, u32) {
    let (mut line, mut col, mut off) = (1usize, 1usize, 0usize);
    for (i, c) in text.char_indices() {
        if i >= byte {
            break;
        }
        off += c.len_utf16();
        if c == '\n' {
            line += 1;
            col = 1;
        } else {
            col += c.len_utf16();
        }
    }
    let n = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
    (n(line), n(col), n(off))
}

/// What to do at the pointer.
#[derive(Clone, Copy, Debug)]
pub enum Op<'v> {
    /// Replace the value; a missing last key of an existing mapping is inserted at its end.
    Set(&'v Value),
    /// Remove a mapping entry or a list item.
    Remove,
    /// Append to the list; a missing last key of an existing mapping is created holding a
    /// one-item list, and a null value becomes one.
    Append(&'v Value),
}


/// The smallest replacement with the same result: the common head and tail dropped.
pub(crate) fn minimize(body: &str, s: Splice) -> Splice {
    let old = &body[s.start..s.end];
    let mut head = old
        .bytes()
        .zip(s.text.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(head) || !s.text.is_char_boundary(head) {
        head -= 1;
    }
    let (o, n) = (&old[head..], &s.text[head..]);
    let mut tail = o
        .bytes()
        .rev()
        .zip(n.bytes().rev())
        .take_while(|(a, b)| a == b)
        .count();
    while !o.is_char_boundary(o.len() - tail) || !n.is_char_boundary(n.len() - tail) {
        tail -= 1;
    }
    Splice {
        start: s.start + head,
        end: s.end - tail,
        text: n[..n.len() - tail].to_string(),
    }
}

pub(crate) type Splice = TextEdit;

pub(crate) fn splice(start: usize, end: usize, text: String) -> Splice {
    TextEdit { start, end, text }
}

