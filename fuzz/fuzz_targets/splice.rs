//! Re-reading a text after an edit (`text::splice`): the edited text spliced from the
//! reading of the old one (one scalar, or several apart: `splice_hunks`), with and without
//! positions, must read as the edited text read whole, documents and positions.
//! Input: [edits] the old text, NUL, then up to 4 edits of it, each [at_hi, at_lo, delete,
//! insert length] and the inserted bytes (offsets are the old text's, wrapped around its
//! length; an edit that overlaps an earlier one is left out).
#![no_main]

use crdlab::text::splice::{splice_hunks, IndexedText};
use crdlab::text::yaml;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(data) = crdlab_fuzz::bounded(data) else { return };
    let p = crdlab_fuzz::parts(data, 2);
    let old = crdlab_fuzz::text(p[0]).into_owned();
    let new = edited(&old, p[1]);
    for positions in [false, true] {
        let read = if positions { IndexedText::read_with_positions(&old) } else { IndexedText::read(&old) };
        let Ok(mut t) = read else { return };
        let spliced = t.splice(&new) || {
            // As the engine does: one scalar, else a few apart (the reading of a text in
            // between is left when that fails, and the new text is read whole).
            let mut again = if positions { IndexedText::read_with_positions(&old) } else { IndexedText::read(&old) }.expect("read before");
            let ok = splice_hunks(&mut again, &new).is_some();
            t = again;
            ok
        };
        if !spliced {
            continue;
        }
        assert_eq!(t.text, new);
        let whole = yaml::read_documents_with_positions(&new).expect("a spliced text reads whole");
        assert_eq!(t.docs, whole.iter().map(|(v, _)| v.clone()).collect::<Vec<_>>(), "spliced documents differ");
        if let Some(maps) = &t.maps {
            assert_eq!(maps.len(), whole.len());
            for (m, (_, w)) in maps.iter().zip(&whole) {
                assert!(m == w, "spliced positions differ");
            }
        }
    }
});

/// The old text with the input's edits made (on character boundaries).
fn edited(old: &str, mut spec: &[u8]) -> String {
    let mut edits = Vec::new();
    while spec.len() >= 4 && edits.len() < 4 {
        let at = usize::from(u16::from_be_bytes([spec[0], spec[1]]));
        let (delete, insert) = (usize::from(spec[2] % 16), usize::from(spec[3] % 16).min(spec.len() - 4));
        let text = String::from_utf8_lossy(&spec[4..4 + insert]).into_owned();
        spec = &spec[4 + insert..];
        let mut at = if old.is_empty() { 0 } else { at % (old.len() + 1) };
        while !old.is_char_boundary(at) {
            at -= 1;
        }
        let mut end = (at + delete).min(old.len());
        while !old.is_char_boundary(end) {
            end += 1;
        }
        edits.push((at, end, text));
    }
    edits.sort_by_key(|e| e.0);
    let mut out = String::new();
    let mut last = 0;
    for (at, end, text) in edits {
        if at < last {
            continue;
        }
        out.push_str(&old[last..at]);
        out.push_str(&text);
        last = end;
    }
    out.push_str(&old[last..]);
    out
}
