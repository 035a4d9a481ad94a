//! An editor's changes applied to its text (`text::utf16::apply`, the playground's editors'
//! path for every keystroke): against splicing the text's UTF-16 units, as JavaScript does.
//! Changes that fit (ascending, apart, inside the text, never inside a surrogate pair) must
//! give that text and its length; any others must be refused, never panic.
//! Input: [changes] the text, NUL, then up to 4 changes, each [from u16 BE][to u16 BE]
//! [insert length] and the inserted bytes (positions wrapped around the text's length + 2,
//! so that a few land past its end).
#![no_main]

use crdlab::text::utf16::{apply, Change};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(data) = crdlab_fuzz::bounded(data) else { return };
    let p = crdlab_fuzz::parts(data, 2);
    let text = crdlab_fuzz::text(p[0]).into_owned();
    let units: Vec<u16> = text.encode_utf16().collect();
    let inserts = changes(p[1], units.len() + 2);
    let changes: Vec<Change<'_>> = inserts
        .iter()
        .map(|(from, to, s)| Change { from: *from, to: *to, insert: s, insert_units: s.encode_utf16().count() })
        .collect();
    let got = apply(&text, units.len(), &changes);

    // JavaScript's splice, where the changes are in order and inside the text.
    let in_order = changes.windows(2).all(|w| w[0].to <= w[1].from) && changes.iter().all(|c| c.from <= c.to && c.to <= units.len());
    let inside_pair = |at: usize| at > 0 && at < units.len() && (0xDC00..0xE000).contains(&units[at]);
    let fits = in_order && !changes.iter().any(|c| inside_pair(c.from) || inside_pair(c.to));
    if !fits {
        assert_eq!(got, None, "changes that do not fit were applied: {changes:?}");
        return;
    }
    let mut out: Vec<u16> = Vec::new();
    let mut kept = 0;
    for c in &changes {
        out.extend_from_slice(&units[kept..c.from]);
        out.extend(c.insert.encode_utf16());
        kept = c.to;
    }
    out.extend_from_slice(&units[kept..]);
    let want = String::from_utf16(&out).expect("whole code points spliced");
    assert_eq!(got, Some((want, out.len())));
});

/// Up to 4 changes: positions wrapped around `room`, inserted bytes read as text.
fn changes(mut data: &[u8], room: usize) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    while out.len() < 4 && data.len() >= 5 {
        let from = u16::from_be_bytes([data[0], data[1]]) as usize % room;
        let to = u16::from_be_bytes([data[2], data[3]]) as usize % room;
        let n = (data[4] as usize).min(data.len() - 5);
        out.push((from, to, crdlab_fuzz::text(&data[5..5 + n]).into_owned()));
        data = &data[5 + n..];
    }
    out
}
