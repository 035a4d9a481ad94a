//! An editor's changes applied to the text it holds. Editors in the page (CodeMirror) count
//! positions in UTF-16 code units, as JavaScript strings do; the app keeps the text as UTF-8.
//! A keystroke in a 2.9 MB CRD then costs the app a copy of the text in wasm memory, where
//! reading the editor's whole text out of JavaScript again took 15 to 25 ms on the page's
//! thread: longer than a frame.

/// One change: UTF-16 units `from..to` of the text before the edit become `insert`, which is
/// `insert_units` UTF-16 units long (what JavaScript's `length` says).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Change<'a> {
    pub from: usize,
    pub to: usize,
    pub insert: &'a str,
    pub insert_units: usize,
}

/// `text`, `units` UTF-16 units long, after `changes` (ascending and apart, in the positions of
/// `text`, as CodeMirror's `ChangeSet.iterChanges` gives them): the new text and its length
/// in units. `None` when the changes do not fit the text — a position past its end, inside a
/// character's surrogate pair, out of order, or lengths that do not add up — and the caller
/// reads the editor's whole text instead.
pub fn apply(text: &str, units: usize, changes: &[Change<'_>]) -> Option<(String, usize)> {
    // Only ASCII has as many bytes as UTF-16 units: every other character has more bytes.
    let ascii = text.len() == units;
    let mut at = Cursor { byte: 0, unit: 0 };
    let mut spans = Vec::with_capacity(changes.len());
    let (mut removed, mut added, mut new_units) = (0usize, 0usize, units);
    for c in changes {
        if c.from > c.to || c.from < at.unit || c.to > units || c.insert.len() < c.insert_units {
            return None;
        }
        let (from, to) = if ascii {
            // `units` is the caller's word: a wrong one must not split a character.
            (text.is_char_boundary(c.from) && text.is_char_boundary(c.to)).then_some((c.from, c.to))?
        } else {
            (at.advance(text, c.from)?, at.advance(text, c.to)?)
        };
        at = Cursor { byte: to, unit: c.to };
        removed += to - from;
        added += c.insert.len();
        new_units = new_units - (c.to - c.from) + c.insert_units;
        spans.push((from, to, c.insert));
    }
    let mut out = String::with_capacity(text.len() - removed + added);
    let mut kept = 0;
    for (from, to, insert) in spans {
        out.push_str(&text[kept..from]);
        out.push_str(insert);
        kept = to;
    }
    out.push_str(&text[kept..]);
    Some((out, new_units))
}

/// A place in a text: its byte offset and its UTF-16 offset.
#[derive(Clone, Copy)]
struct Cursor {
    byte: usize,
    unit: usize,
}

impl Cursor {
    /// The byte offset of UTF-16 offset `unit` (not before the cursor's), reading on from
    /// the cursor; `None` past the end or inside a surrogate pair.
    fn advance(&mut self, text: &str, unit: usize) -> Option<usize> {
        let mut chars = text[self.byte..].chars();
        while self.unit < unit {
            let c = chars.next()?;
            self.unit += c.len_utf16();
            self.byte += c.len_utf8();
        }
        (self.unit == unit).then_some(self.byte)
    }
}

#[cfg(test)]
mod tests {
    use super::{apply, Change};

    fn units(s: &str) -> usize {
        s.encode_utf16().count()
    }

    fn change(from: usize, to: usize, insert: &str) -> Change<'_> {
        Change { from, to, insert, insert_units: units(insert) }
    }

    /// What JavaScript does: the text as UTF-16, each change spliced in.
    fn in_utf16(text: &str, changes: &[Change<'_>]) -> String {
        let old: Vec<u16> = text.encode_utf16().collect();
        let mut out = Vec::new();
        let mut kept = 0;
        for c in changes {
            out.extend_from_slice(&old[kept..c.from]);
            out.extend(c.insert.encode_utf16());
            kept = c.to;
        }
        out.extend_from_slice(&old[kept..]);
        String::from_utf16(&out).unwrap()
    }

    #[test]
    fn changes_land_where_an_editor_counts() {
        for text in ["name: x\nspec: {}\n", "näme: ü\n# 😀 ok\nspec: {}\n", "😀😀", ""] {
            let n = units(text);
            let sets: Vec<Vec<Change<'_>>> = vec![
                vec![change(0, 0, "a")],
                vec![change(n, n, "\n")],
                vec![change(0, n, "replaced: ✓")],
                vec![change(0, n.min(2), ""), change(n, n, "z")],
                vec![change(n / 2, n / 2, "é😀")],
            ];
            for changes in sets {
                let want = std::panic::catch_unwind(|| in_utf16(text, &changes));
                let got = apply(text, n, &changes);
                match want {
                    // A position inside a surrogate pair: JavaScript would split the pair.
                    Err(_) => assert_eq!(got, None),
                    Ok(want) => assert_eq!(got, Some((want.clone(), units(&want))), "{text:?} {changes:?}"),
                }
            }
        }
    }

    #[test]
    fn changes_that_do_not_fit_are_refused() {
        let text = "ab😀cd";
        let n = units(text);
        assert_eq!(apply(text, n, &[change(n + 1, n + 1, "x")]), None, "past the end");
        assert_eq!(apply(text, n, &[change(3, 3, "x")]), None, "inside the pair");
        assert_eq!(apply(text, n, &[change(4, 4, "x"), change(1, 1, "y")]), None, "out of order");
        assert_eq!(apply(text, n, &[change(2, 1, "x")]), None, "backwards");
        assert_eq!(apply(text, n, &[Change { from: 0, to: 0, insert: "x", insert_units: 2 }]), None, "more units than bytes");
        // An ASCII text read with the wrong length is a text with other characters: refused
        // when a position lands past its end.
        assert_eq!(apply("abc", 4, &[change(4, 4, "x")]), None);
        assert_eq!(apply("üb", 3, &[change(1, 1, "x")]), None, "a wrong length must not split a character");
    }
}
