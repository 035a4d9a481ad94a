//! Re-reading a YAML text after an edit without reading it all again: when the edit lies
//! inside one scalar value of a block mapping (the usual editor keystroke: a rule's text, a
//! number, a description), only that scalar's lines are read again and its value replaced
//! in the documents read before. Anything else (a key, indentation, a flow collection, an
//! anchor, a block scalar, a JSON text, a text with non-ASCII characters, an edit that makes
//! the text invalid) is reported as not spliceable, and the caller reads the whole text.
//!
//! The result is the one [`crate::text::yaml::read_documents`] gives for the new text: the
//! scalar's lines are read by the same reader (a small document that puts the scalar at the
//! same columns under a one-character key), and only where nothing outside those lines can
//! read differently (the next line of content stands no deeper than the scalar's key, so it
//! neither continues a plain scalar nor nests under the key).

use crate::k8s::request::MAX_REQUEST_BODY_BYTES;
use crate::text::json::min_len_of_scalar;
use crate::text::read_error::{MAX_BYTES, MAX_STREAM_JSON};
use serde_json::Value;

use crate::text::node_index::{Kind, NodeIndex, NONE};
use crate::text::source_map::{Move, NodeStyle, PathSeg, Point, PosChildren, Range, Shift, SourceMap};

/// A text read with its index: what [`splice`] needs of the previous text.
///
/// # Example
///
/// ```
/// use crdlab::text::splice::IndexedText;
/// let mut t = IndexedText::read("a:\n  rule: self > 1\n").unwrap();
/// assert!(t.splice("a:\n  rule: self > 10\n")); // one scalar read again
/// assert_eq!(t.docs[0], serde_json::json!({"a": {"rule": "self > 10"}}));
/// assert!(!t.splice("a:\n  rules: self > 10\n")); // a key: read the whole text
/// ```
#[derive(Clone, Debug)]
pub struct IndexedText {
    pub text: String,
    /// Every document of the stream, as [`crate::text::yaml::read_documents`] reads them.
    pub docs: Vec<Value>,
    pub index: NodeIndex,
    /// Where each document's nodes stand ([`crate::text::yaml::read_documents_with_positions`]),
    /// when the text was read with them ([`IndexedText::read_with_positions`]); a splice
    /// moves them with the edit, so an editor's ranges need no second reading.
    pub maps: Option<Vec<SourceMap>>,
}

impl IndexedText {
    /// Reads a text whole ([`crate::text::yaml::read_documents_indexed`]).
    pub fn read(text: &str) -> Result<IndexedText, crate::text::read_error::ReadError> {
        let (docs, index) = crate::text::yaml::read_documents_indexed(text)?;
        Ok(IndexedText {
            text: text.to_string(),
            docs,
            index: index.unwrap_or_else(NodeIndex::unusable),
            maps: None,
        })
    }

    /// Reads a text whole without an index ([`crate::text::yaml::read_documents`], which
    /// takes the block-style fast path where it can): no later text is spliced from it.
    /// For a text that is not an edit of the one before (a tool's first CRD, another file).
    pub fn read_unindexed(text: &str) -> Result<IndexedText, crate::text::read_error::ReadError> {
        Ok(IndexedText {
            text: text.to_string(),
            docs: crate::text::yaml::read_documents(text)?,
            index: NodeIndex::unusable(),
            maps: None,
        })
    }

    /// [`IndexedText::read`], keeping where each document's nodes stand (`maps`).
    pub fn read_with_positions(text: &str) -> Result<IndexedText, crate::text::read_error::ReadError> {
        let (docs, maps, index) = crate::text::yaml::read_documents_indexed_with_positions(text)?;
        Ok(IndexedText {
            text: text.to_string(),
            docs,
            index: index.unwrap_or_else(NodeIndex::unusable),
            maps: Some(maps),
        })
    }

    /// [`splice`]: whether `new` was read by re-reading one scalar (`self` is then `new`'s
    /// reading; otherwise it is unchanged).
    pub fn splice(&mut self, new: &str) -> bool {
        splice(self, new).is_some()
    }

    /// [`IndexedText::splice`], telling which scalar changed: its document and its path there.
    pub fn splice_at(&mut self, new: &str) -> Option<Spliced> {
        splice(self, new)
    }
}

/// The changed byte range of an edit, found by comparing the texts: `old[from..old_to]`
/// became `new[from..new_to]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Change {
    pub from: usize,
    pub old_to: usize,
    pub new_to: usize,
}

impl Change {
    /// The common prefix and suffix of the two texts (on character boundaries).
    pub fn between(old: &str, new: &str) -> Change {
        let (a, b) = (old.as_bytes(), new.as_bytes());
        let mut from = crate::text::bytes::common_prefix(a, b);
        while !old.is_char_boundary(from) || !new.is_char_boundary(from) {
            from -= 1;
        }
        let max = a.len().min(b.len()) - from;
        let mut suffix = crate::text::bytes::common_suffix(&a[from..], &b[from..]).min(max);
        while !old.is_char_boundary(a.len() - suffix) || !new.is_char_boundary(b.len() - suffix) {
            suffix -= 1;
        }
        Change {
            from,
            old_to: a.len() - suffix,
            new_to: b.len() - suffix,
        }
    }
}

/// The stretches an edit changed, first to last, when it changed several places apart (a
/// paste of an edited file, an undo of several edits, edits made while the engine was busy):
/// each is `old[from..old_to]` becoming `new[new_from..new_to]`, and the texts are equal
/// between them. Found line by line: a stretch of differing lines ends where the next
/// [`RESYNC_LINES`] lines of both texts agree again, looked for within [`MAX_HUNK_LINES`]
/// lines of either side. `None` when the edit is one stretch, or not a few small ones
/// (then the caller reads the whole text).
pub fn hunks(old: &str, new: &str) -> Option<Vec<Hunk>> {
    let c = Change::between(old, new);
    // Whole lines around the change (the texts are equal before `from` and after the ends).
    let lo = old[..c.from].rfind('\n').map_or(0, |i| i + 1);
    let old_hi = line_end(old, c.old_to);
    let new_hi = c.new_to + (old_hi - c.old_to);
    let a: Vec<&str> = old[lo..old_hi].split_inclusive('\n').collect();
    let b: Vec<&str> = new[lo..new_hi].split_inclusive('\n').collect();
    let agree = |i: usize, j: usize| -> bool {
        let k = RESYNC_LINES.min(a.len() - i).min(b.len() - j);
        // At the end of both, or the next lines equal.
        (k == 0 && i == a.len() && j == b.len()) || (k > 0 && (0..k).all(|t| a[i + t] == b[j + t]) && (k == RESYNC_LINES || (i + k == a.len() && j + k == b.len())))
    };
    let (mut out, mut i, mut j) = (Vec::new(), 0, 0);
    // Byte offsets of the current lines.
    let (mut oa, mut ob) = (lo, lo);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            oa += a[i].len();
            ob += b[j].len();
            i += 1;
            j += 1;
            continue;
        }
        // The nearest place where both agree again (fewest lines skipped in all).
        let (di, dj) = (0..=2 * MAX_HUNK_LINES)
            .flat_map(|sum| (0..=sum).map(move |di| (di, sum - di)))
            .filter(|&(di, dj)| di <= MAX_HUNK_LINES && dj <= MAX_HUNK_LINES && i + di <= a.len() && j + dj <= b.len())
            .find(|&(di, dj)| (di, dj) != (0, 0) && agree(i + di, j + dj))?;
        let la: usize = a[i..i + di].iter().map(|l| l.len()).sum();
        let lb: usize = b[j..j + dj].iter().map(|l| l.len()).sum();
        if out.len() == MAX_HUNKS {
            return None;
        }
        out.push(Hunk { from: oa, old_to: oa + la, new_from: ob, new_to: ob + lb });
        (oa, ob, i, j) = (oa + la, ob + lb, i + di, j + dj);
    }
    (out.len() > 1).then_some(out)
}

/// Lines both texts must agree on after a stretch of [`hunks`] (or both end).
const RESYNC_LINES: usize = 3;
/// Lines a stretch of [`hunks`] may span on either side.
const MAX_HUNK_LINES: usize = 24;
/// Stretches [`hunks`] finds at most.
const MAX_HUNKS: usize = 16;

/// One changed stretch of [`hunks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hunk {
    pub from: usize,
    pub old_to: usize,
    pub new_from: usize,
    pub new_to: usize,
}

/// [`splice`] of each stretch of [`hunks`] in turn, when an edit changed several scalars
/// apart: the scalars read again, first to last. `None` when one of them cannot be spliced;
/// `prev` may then be the reading of a text between the two, and `new` must be read whole.
pub fn splice_hunks(prev: &mut IndexedText, new: &str) -> Option<Vec<Spliced>> {
    let hunks = hunks(&prev.text, new)?;
    let old = prev.text.clone();
    let mut out = Vec::with_capacity(hunks.len());
    for h in &hunks {
        // The new text up to this stretch's end, the old one after it.
        let mut step = String::with_capacity(h.new_to + (old.len() - h.old_to));
        step.push_str(&new[..h.new_to]);
        step.push_str(&old[h.old_to..]);
        out.push(splice(prev, &step)?);
    }
    Some(out)
}

/// The scalar a splice read again: its document (index in the stream) and its path there.
#[derive(Clone)]
pub struct Spliced {
    pub doc: usize,
    pub path: Vec<PathSeg>,
}

/// `prev` turned into the reading of `new` when the edit lies inside one scalar value of a
/// block mapping (see the module comment); `None` when the whole text must be read again.
/// `prev` is left as it was on `None`.
pub fn splice(prev: &mut IndexedText, new: &str) -> Option<Spliced> {
    if new.len() > MAX_BYTES || prev.index.broken || prev.index.docs.len() != prev.docs.len() {
        return None;
    }
    let old = prev.text.as_str();
    let c = Change::between(old, new);
    let nodes = &prev.index.nodes;
    // The last node starting at or before the edit must be a scalar value.
    let from_ch = count_chars(&old[..c.from]);
    let n = nodes.partition_point(|nd| nd.start as usize <= from_ch).checked_sub(1)?;
    let node = nodes[n];
    if !matches!(node.kind, Kind::Plain | Kind::SingleQuoted | Kind::DoubleQuoted) || node.special || node.key == NONE {
        return None;
    }
    // Its ancestors, each a block mapping or sequence without anchors, tags or merges.
    let mut chain = vec![n];
    while let Some(&at) = chain.last() {
        let p = nodes[at].parent;
        if p == NONE {
            break;
        }
        let pn = &nodes[p as usize];
        if pn.special || (pn.kind == Kind::Map) != (nodes[at].key != NONE) {
            return None;
        }
        chain.push(p as usize);
    }
    // Byte offsets of what is looked at: the scalar, its key, the ancestors' keys and starts.
    let mut wanted: Vec<usize> = chain
        .iter()
        .flat_map(|&i| [nodes[i].start, nodes[i].key])
        .filter(|&x| x != NONE)
        .map(|x| x as usize)
        .collect();
    crate::go::sort::sort(&mut wanted);
    wanted.dedup();
    let bytes = chars_to_bytes(old, &wanted)?;
    let byte = |ch: u32| -> Option<usize> { wanted.binary_search(&(ch as usize)).ok().map(|i| bytes[i]) };
    for &i in &chain[1..] {
        if matches!(old.as_bytes().get(byte(nodes[i].start)?), Some(b'{' | b'[')) {
            return None;
        }
    }
    // Its lines: from the scalar to the end of the line where it ends.
    let start = byte(node.start)?;
    let scalar_end = match node.kind {
        Kind::Plain => start,
        _ => closing_quote(old, start, node.kind)?,
    };
    let region_end = line_end(old, scalar_end);
    if c.old_to > region_end || c.from < start {
        return None;
    }
    let new_region_end = region_end + c.new_to - c.old_to;
    // A block mapping's value on its key's line.
    let key = byte(node.key)?;
    let line_start = old[..key].rfind('\n').map_or(0, |i| i + 1);
    // A value behind a comment is none (`a: # c` is null; an edit after the `#` stays in
    // the comment: found by the splice fuzz target).
    if old[key..start].contains('\n') || old[key..start].contains('#') {
        return None;
    }
    // The value stands apart from its key's colon by a space (an empty value edited right
    // after the colon would join the key, and a tab alone may not separate it: found by
    // the splice fuzz target).
    if !old[..start].ends_with(' ') {
        return None;
    }
    // A carriage return not followed by a line feed breaks a line in YAML, where the lines
    // here are broken at line feeds: such lines are read whole.
    if lone_cr(old, line_start, region_end) || lone_cr(new, line_start, new_region_end) {
        return None;
    }
    let key_col = count_chars(&old[line_start..key]);
    let start_col = count_chars(&old[line_start..start]);
    if start_col < key_col + 2 || !old[line_start..key].bytes().all(|b| b == b' ' || b == b'-') {
        return None;
    }
    // The new value starts where the old one did: not after more blank space (behind which
    // an anchor, a block scalar's indicator or a comment would go unseen: found by the
    // splice fuzz target), nor with an indicator.
    let region = &new[start..new_region_end];
    if region.starts_with(['&', '*', '!', '|', '>', '%', '@', '`', ' ', '\t']) {
        return None;
    }
    // Nor on a later line, where the next line's first character may be an indicator
    // (`a:` then ` >` is a folded block scalar: found by the splice fuzz target).
    if region.starts_with(['\n', '\r']) {
        return None;
    }
    // The next line of content stands no deeper than the key.
    if next_content_column(new, new_region_end).is_some_and(|col| col > key_col) {
        return None;
    }
    // The scalar read again, at its columns under a one-character key; and the old one
    // read the same way, which must give the value read before (so the index is trusted
    // only where it agrees with the text).
    let value = read_scalar(region, key_col, start_col)?;
    let old_value = read_scalar(&old[start..region_end], key_col, start_col)?;
    let kind = match region.as_bytes().first() {
        Some(b'\'') => Kind::SingleQuoted,
        Some(b'"') => Kind::DoubleQuoted,
        _ => Kind::Plain,
    };
    // The path from the document's root.
    let root = *chain.last()? as u32;
    let d = prev.index.docs.iter().position(|d| d.root == root)?;
    let mut steps = Vec::with_capacity(chain.len());
    for &i in chain[..chain.len() - 1].iter().rev() {
        let nd = &nodes[i];
        steps.push(match nd.key {
            NONE => Err(nd.seq_index as usize),
            k => Ok(key_at(old, byte(k)?)?),
        });
    }
    let mut target = &mut prev.docs[d];
    for step in &steps {
        target = match (step, target) {
            (Ok(k), Value::Object(m)) => m.get_mut(k.as_str())?,
            (Err(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    if *target != old_value {
        return None;
    }
    let path: Vec<PathSeg> = steps
        .into_iter()
        .map(|s| match s {
            Ok(k) => PathSeg::Key(k),
            Err(i) => PathSeg::Index(i),
        })
        .collect();
    // Where the nodes will stand, worked out before anything changes (`None`: read whole).
    let moves = match prev.maps.as_ref() {
        Some(maps) => {
            let edit = Edit { old, new, start, region_end, new_region_end, key_col, start_col };
            Some(plan_moves(maps.get(d)?, path.clone(), &edit)?)
        }
        None => None,
    };
    // The reader's size accounting, for the document and the stream.
    let json = (prev.index.docs[d].json + min_len_of_scalar(&value)).checked_sub(min_len_of_scalar(target))?;
    let stream: u64 = prev.index.docs.iter().enumerate().map(|(i, doc)| if i == d { json } else { doc.json }).sum();
    if json > MAX_REQUEST_BODY_BYTES as u64 || stream > MAX_STREAM_JSON {
        return None;
    }
    *target = value;
    prev.index.docs[d].json = json;
    prev.index.nodes[n].kind = kind;
    // Positions after the edit shift by its length difference (in characters). (The new
    // text is at most `MAX_BYTES` long, so offsets stay within `u32`.)
    let delta = count_chars(&new[c.from..c.new_to]) as i64 - count_chars(&old[c.from..c.old_to]) as i64;
    let shift = |at: u32| (at as i64 + delta) as u32;
    for nd in &mut prev.index.nodes[n + 1..] {
        nd.start = shift(nd.start);
        if nd.key != NONE && nd.key as usize > from_ch {
            nd.key = shift(nd.key);
        }
    }
    // Every document's nodes after the edit move (when read, or every few edits).
    if let (Some(moves), Some(maps)) = (moves, prev.maps.as_mut()) {
        let moves = std::sync::Arc::new(moves);
        for (i, m) in maps.iter_mut().enumerate() {
            m.push(moves.clone(), i == d);
        }
    }
    prev.text.replace_range(c.from..c.old_to, &new[c.from..c.new_to]);
    debug_assert_eq!(prev.text, new);
    Some(Spliced { doc: d, path })
}

/// A splice's edit as the positions see it: the scalar at byte `start` and the rest of its
/// lines, up to `region_end` in `old` and `new_region_end` in `new` (the key at `key_col`,
/// the scalar at `start_col`, in characters).
struct Edit<'t> {
    old: &'t str,
    new: &'t str,
    start: usize,
    region_end: usize,
    new_region_end: usize,
    key_col: usize,
    start_col: usize,
}

/// Points of one text from the start of a line whose point is known on: what a splice
/// computes of the few lines it re-read.
struct Near<'t> {
    text: &'t str,
    /// The line's first byte, line and UTF-16 offset.
    base: usize,
    line: u32,
    off: u32,
}

impl Near<'_> {
    fn at(&self, byte: usize) -> Option<Point> {
        let walked = self.text.get(self.base..byte)?;
        let (mut line, mut off, mut line_off) = (self.line, self.off, self.off);
        for ch in walked.chars() {
            off += ch.len_utf16() as u32;
            if ch == '\n' {
                line += 1;
                line_off = off;
            }
        }
        Some(Point { line, col: off - line_off + 1, off })
    }
}

fn range_of(a: Point, b: Point) -> Range {
    Range {
        start_line: a.line,
        start_column: a.col,
        end_line: b.line,
        end_column: b.col,
        start_offset: a.off,
        end_offset: b.off,
    }
}

fn start_of(r: &Range) -> Point {
    Point { line: r.start_line, col: r.start_column, off: r.start_offset }
}


/// The end of the line holding `byte`, trailing blanks left out (never before `byte`): as
/// the position builder's heads end.
fn head_line_end(text: &str, byte: usize) -> usize {
    let rest = &text[byte.min(text.len())..];
    let line = rest.split('\n').next().unwrap_or("");
    byte + line.trim_end().len()
}

/// Plans how the positions of the document `map` move when the scalar at `path` is
/// re-read; `None` when they do not fit the plan (the caller reads the text whole).
fn plan_moves(map: &SourceMap, path: Vec<PathSeg>, e: &Edit<'_>) -> Option<Shift> {
    let old_node = map.get(&path)?;
    if !matches!(old_node.children, PosChildren::Leaf) || old_node.value_bytes.0 != e.start {
        return None;
    }
    let s = start_of(&old_node.value);
    let base = e.old[..e.start].rfind('\n').map_or(0, |i| i + 1);
    let line_off = s.off.checked_sub(s.col.checked_sub(1)?)?;
    let old_near = Near { text: e.old, base, line: s.line, off: line_off };
    let new_near = Near { text: e.new, base, line: s.line, off: line_off };
    let old_end = old_near.at(e.region_end)?;
    let new_end = new_near.at(e.new_region_end)?;
    // The scalar re-read with positions at its columns (as `read_scalar` reads it).
    let (rel, style) = scalar_extent(&e.new[e.start..e.new_region_end], e.key_col, e.start_col)?;
    let scalar_bytes = (e.start, e.start + rel);
    let scalar_end = new_near.at(scalar_bytes.1)?;
    let scalar_range = range_of(new_near.at(e.start)?, scalar_end);
    // Each ancestor ends where the scalar did (it was its last node), or after the lines.
    let mut ancestors = Vec::with_capacity(path.len());
    for depth in 0..path.len() {
        let node = map.get(&path[..depth])?;
        let (vs, ve) = node.value_bytes;
        let (end, end_byte) = if ve == old_node.value_bytes.1 {
            (Some((scalar_end, scalar_bytes.1)), scalar_bytes.1)
        } else if ve >= e.region_end {
            (None, (ve as i64 + e.new_region_end as i64 - e.region_end as i64) as usize)
        } else {
            return None;
        };
        let head_end = head_line_end(e.new, vs).min(end_byte).max(vs);
        let head = if head_end < base {
            node.head
        } else {
            range_of(start_of(&node.head), new_near.at(head_end)?)
        };
        ancestors.push((end, head));
    }
    Some(Shift {
        moved: Move {
            from: old_end,
            lines: new_end.line as i64 - old_end.line as i64,
            units: new_end.off as i64 - old_end.off as i64,
            cols: new_end.col as i64 - old_end.col as i64,
            from_byte: e.region_end,
            bytes: e.new_region_end as i64 - e.region_end as i64,
        },
        path,
        scalar: (scalar_range, scalar_bytes, style),
        ancestors,
    })
}

/// Where the scalar `region` ends (bytes into it) and how it is written, read as
/// [`read_scalar`] reads it.
fn scalar_extent(region: &str, key_col: usize, start_col: usize) -> Option<(usize, NodeStyle)> {
    let mut doc = String::with_capacity(start_col + region.len() + 1);
    doc.extend(std::iter::repeat_n(' ', key_col));
    doc.push_str("k:");
    doc.extend(std::iter::repeat_n(' ', start_col - key_col - 2));
    doc.push_str(region);
    doc.push('\n');
    let (_, map) = crate::text::yaml::read_document_with_positions(&doc).ok()?;
    let node = map.get(&[PathSeg::Key("k".into())])?;
    // The prefix before the region is `start_col` ASCII characters.
    let end = node.value_bytes.1.checked_sub(start_col)?;
    (node.value_bytes.0 == start_col && matches!(node.children, PosChildren::Leaf)).then_some((end, node.style))
}

/// The scalar `region` (the rest of its lines) as the reader reads it at column `start_col`
/// as the value of a key at column `key_col`; `None` unless that is one scalar.
fn read_scalar(region: &str, key_col: usize, start_col: usize) -> Option<Value> {
    let mut doc = String::with_capacity(start_col + region.len() + 1);
    doc.extend(std::iter::repeat_n(' ', key_col));
    doc.push_str("k:");
    doc.extend(std::iter::repeat_n(' ', start_col - key_col - 2));
    doc.push_str(region);
    doc.push('\n');
    let mut read = crate::text::yaml::read_documents(&doc).ok()?;
    if read.len() != 1 {
        return None;
    }
    let Value::Object(mut m) = read.pop()? else { return None };
    if m.len() != 1 {
        return None;
    }
    let value = m.remove("k")?;
    (!value.is_object() && !value.is_array()).then_some(value)
}

/// The characters of a text (counting the bytes that start one).
fn count_chars(s: &str) -> usize {
    s.bytes().filter(|&b| (b as i8) >= -0x40).count()
}

/// The byte offsets of the character offsets `chars` (sorted), in one pass over the text;
/// `None` when one is past its end.
fn chars_to_bytes(text: &str, chars: &[usize]) -> Option<Vec<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(chars.len());
    let (mut byte, mut ch) = (0usize, 0usize);
    for &want in chars {
        // Whole blocks first (counting is cheap), then byte by byte.
        while byte + 64 <= b.len() {
            let n = b[byte..byte + 64].iter().filter(|&&x| (x as i8) >= -0x40).count();
            if ch + n > want {
                break;
            }
            ch += n;
            byte += 64;
        }
        // `ch` counts the characters that start in `b[..byte]`.
        while ch < want || (byte < b.len() && (b[byte] as i8) < -0x40) {
            if byte >= b.len() {
                return None;
            }
            ch += ((b[byte] as i8) >= -0x40) as usize;
            byte += 1;
        }
        out.push(byte);
    }
    Some(out)
}

/// The byte offset just past the closing quote of the quoted scalar at `start`.
fn closing_quote(text: &str, start: usize, kind: Kind) -> Option<usize> {
    let q = if kind == Kind::SingleQuoted { b'\'' } else { b'"' };
    let b = text.as_bytes();
    if b.get(start) != Some(&q) {
        return None;
    }
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' if q == b'"' => i += 2,
            x if x == q => {
                if q == b'\'' && b.get(i + 1) == Some(&b'\'') {
                    i += 2;
                } else {
                    return Some(i + 1);
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// The end of the line at byte `at` (its line break's offset, or the text's end).
/// Whether `text[from..to]` holds a carriage return that no line feed follows.
fn lone_cr(text: &str, from: usize, to: usize) -> bool {
    let b = text.as_bytes();
    b[from..to].iter().enumerate().any(|(i, &c)| c == b'\r' && b.get(from + i + 1) != Some(&b'\n'))
}

fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i)
}

/// The column of the first line after byte `at` (a line break) that holds more than blanks
/// and a comment; `None` at the end of the text.
fn next_content_column(text: &str, at: usize) -> Option<usize> {
    let rest = text.get(at..)?;
    // (A lone carriage return breaks a line too; a CRLF gives an empty line between.)
    for line in rest.split(['\n', '\r']).skip(1) {
        let t = line.trim_start_matches([' ', '\t']);
        let t = t.trim_end_matches('\r');
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        return Some(line.len() - line.trim_start_matches([' ', '\t']).len());
    }
    None
}

/// The map key written at byte `at` (plain or quoted, on one line), read as the reader
/// reads keys.
fn key_at(text: &str, at: usize) -> Option<String> {
    let line = &text[at..line_end(text, at)];
    let b = line.as_bytes();
    let end = (0..b.len()).find(|&i| b[i] == b':' && matches!(b.get(i + 1), None | Some(b' ' | b'\t' | b'\r')))?;
    let doc = format!("{}: 0\n", &line[..end]);
    match crate::text::yaml::read_documents(&doc).ok()?.pop()? {
        Value::Object(m) if m.len() == 1 => m.into_iter().next().map(|(k, _)| k),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::yaml::{read_documents, read_documents_indexed};

    /// Splices `old` into `new` (or reads `new` whole) and checks the result is `new`'s
    /// reading; returns whether the splice was taken.
    fn check(old: &str, new: &str) -> bool {
        let (docs, index) = read_documents_indexed(old).unwrap();
        let mut prev = IndexedText { text: old.to_string(), docs, index: index.expect("indexed"), maps: None };
        let spliced = splice(&mut prev, new).is_some();
        if spliced {
            assert_eq!(prev.docs, read_documents(new).unwrap(), "{:?} -> {:?}", old, new);
            assert_eq!(prev.text, new);
        }
        // With positions: the same choice, and the positions a whole reading gives.
        let mut positioned = IndexedText::read_with_positions(old).unwrap();
        assert!(positioned.index.docs.len() == positioned.docs.len());
        let spliced_too = splice(&mut positioned, new).is_some();
        if spliced_too {
            assert_positions(&positioned, new);
        }
        assert!(spliced_too <= spliced, "positions never allow more: {:?} -> {:?}", old, new);
        spliced
    }

    /// `t`'s documents and positions are those of a whole reading of `new`.
    fn assert_positions(t: &IndexedText, new: &str) {
        let fresh = crate::text::yaml::read_documents_with_positions(new).unwrap();
        assert_eq!(t.text, new);
        assert_eq!(t.docs, fresh.iter().map(|(v, _)| v.clone()).collect::<Vec<_>>());
        let maps = t.maps.as_ref().expect("positions kept");
        assert_eq!(maps.len(), fresh.len());
        for (m, (_, f)) in maps.iter().zip(&fresh) {
            assert_eq!(m, f, "positions after the edit to {:?}", new);
            // Every node read as the editor reads it (moved by the shifts not yet applied).
            let mut paths = vec![Vec::new()];
            let mut i = 0;
            while i < paths.len() {
                let path: Vec<PathSeg> = paths[i].clone();
                let placed = |m: &SourceMap| m.get(&path).map(|p| (p.key, p.value, p.head, p.key_bytes, p.value_bytes, p.style));
                assert_eq!(placed(m), placed(f), "{:?} after the edit to {:?}", path, new);
                if let Some(n) = f.get(&path) {
                    match n.children {
                        PosChildren::Map(c) => paths.extend(c.keys().map(|k| [path.clone(), vec![PathSeg::Key(k.clone())]].concat())),
                        PosChildren::Seq(c) => paths.extend((0..c.len()).map(|k| [path.clone(), vec![PathSeg::Index(k)]].concat())),
                        PosChildren::Leaf => {}
                    }
                }
                i += 1;
            }
        }
    }

    #[test]
    fn positions_move_with_the_edit() {
        let wide = DOC.replace("a:\n", "é:\n").replace("d: x", "d: é");
        let texts = [
            DOC.to_string(),
            wide.clone(),
            "---\na: 1\n---\nb: 2\nc: 3\n".to_string(),
            "a:\n  - x: 1\n    y: 'q'   # t\n  - rule: \"a\n    b\"\n    z: 2\nlast: v".to_string(),
            // Windows line breaks, and a value whose line ends in blanks.
            DOC.replace('\n', "\r\n"),
            "a:\n  b: x  \n  c:\n    d: 'y'\n".to_string(),
        ];
        // Every one-character insertion and deletion; each, when spliced, moves the
        // positions to where a whole reading puts them.
        let mut spliced = 0;
        for text in &texts {
            let chars: Vec<(usize, char)> = text.char_indices().collect();
            for &(i, ch) in &chars {
                for new in [
                    format!("{}x{}", &text[..i], &text[i..]),
                    format!("{} {}", &text[..i], &text[i..]),
                    format!("{}ü{}", &text[..i], &text[i..]),
                    format!("{}{}", &text[..i], &text[i + ch.len_utf8()..]),
                    format!("{}\n{}", &text[..i], &text[i..]),
                ] {
                    if crate::text::yaml::read_documents(&new).is_err() {
                        continue;
                    }
                    let mut t = IndexedText::read_with_positions(text).unwrap();
                    if splice(&mut t, &new).is_some() {
                        assert_positions(&t, &new);
                        spliced += 1;
                    }
                }
            }
        }
        assert!(spliced > 100, "{spliced}");
        // Edit after edit.
        let mut t = IndexedText::read_with_positions(DOC).unwrap();
        let one = DOC.replace("b: 1", "b: 1234");
        let two = one.replace("name: x", "name: xyz");
        let three = two.replace("plain text", "plain");
        let four = three.replace("d: x", "d: y");
        let five = four.replace("self.x > 0", "self.x >\n    0");
        for n in [&one, &two, &three, &four, &five] {
            assert!(splice(&mut t, n).is_some(), "{:?}", n);
            assert_positions(&t, n);
        }
        // Many edits, more than a map keeps shifts of before it moves its nodes, in three
        // documents, some adding lines.
        let stream = "---\na:\n  b: 1\n  r: \"x\"\n---\nc: [1]\nd: 'q'\n---\ne: z\n";
        let mut t = IndexedText::read_with_positions(stream).unwrap();
        let mut text = stream.to_string();
        for i in 0..3 * crate::text::source_map::MAX_PENDING {
            let next = match i % 4 {
                0 => text.replacen("b: 1", "b: 12", 1).replacen("b: 12", &format!("b: 1{}", "2".repeat(i % 7)), 1),
                1 => text.replacen("r: \"x", "r: \"x\n    y", 1),
                2 => text.replacen("d: 'q", "d: 'qé", 1),
                _ => text.replacen("e: z", "e: zz", 1),
            };
            if next == text || splice(&mut t, &next).is_none() {
                continue;
            }
            text = next;
            assert_positions(&t, &text);
        }
        assert!(t.text.len() > stream.len() + 40, "{:?}", t.text);
        // Typing along one line (the moves a map adds up): characters in, some out, in
        // scalars of two documents and before a comment.
        let stream = "---\na:\n  r: 'x'\n  n: 1\n---\nc: plain # note\nd: 2\n";
        let mut t = IndexedText::read_with_positions(stream).unwrap();
        let mut text = stream.to_string();
        for i in 0..4 * crate::text::source_map::MAX_PENDING {
            let next = match (i / 10 % 2, i % 3) {
                (0, 0) => text.replacen("r: 'x", "r: 'xé", 1),
                (0, _) => text.replacen("c: plain", "c: plainq", 1),
                (_, 0) => text.replacen("r: 'xé", "r: 'x", 1),
                _ => text.replacen("c: plainq", "c: plain", 1),
            };
            if next == text {
                continue;
            }
            assert!(splice(&mut t, &next).is_some(), "{:?}", next);
            text = next;
            assert_positions(&t, &text);
        }
    }

    const DOC: &str = "a:\n  b: 1\n  rule: \"self.x > 0\"\n  list:\n  - name: x\n    rule: 'a'\nc: plain text # c\nd: x\n";

    #[test]
    fn edits_inside_one_scalar_are_spliced() {
        assert!(check(DOC, &DOC.replace("b: 1", "b: 12")));
        assert!(check(DOC, &DOC.replace("self.x > 0", "self.x > 10")));
        assert!(check(DOC, &DOC.replace("rule: 'a'", "rule: 'ab'")));
        assert!(check(DOC, &DOC.replace("plain text", "plain texts")));
        assert!(check(DOC, &DOC.replace("# c", "# comment")));
        assert!(check(DOC, &DOC.replace("b: 1", "b: true")));
        assert!(check(DOC, &DOC.replace("b: 1", "b: \"1\"")));
        // In a later document of a stream.
        let stream = "---\na: 1\n---\nb: 2\nc: 3\n";
        assert!(check(stream, &stream.replace("c: 3", "c: 4")));
        assert!(check(stream, &stream.replace("a: 1", "a: x")));
        // Later edits use the shifted positions.
        let (docs, index) = read_documents_indexed(DOC).unwrap();
        let mut prev = IndexedText { text: DOC.to_string(), docs, index: index.unwrap(), maps: None };
        let one = DOC.replace("b: 1", "b: 1234");
        let two = one.replace("name: x", "name: xyz");
        let three = two.replace("plain text", "plain");
        let four = three.replace("d: x", "d: y");
        for t in [&one, &two, &three, &four] {
            assert!(splice(&mut prev, t).is_some(), "{:?}", t);
            assert_eq!(prev.docs, read_documents(t).unwrap());
        }
    }

    #[test]
    fn structural_edits_are_read_whole() {
        // A key, indentation, a new entry, a mapping value, an anchor, a line break.
        assert!(!check(DOC, &DOC.replace("b: 1", "bb: 1")));
        assert!(!check(DOC, &DOC.replace("  b: 1", "   b: 1")));
        assert!(!check(DOC, &DOC.replace("b: 1", "b: 1\n  e: 2")));
        assert!(!check(DOC, &DOC.replace("b: 1", "b: x: 1")));
        assert!(!check(DOC, &DOC.replace("b: 1", "b: &x 1")));
        assert!(!check(DOC, &DOC.replace("b: 1", "b: 1\n   continued")));
        assert!(!check(DOC, &DOC.replace("self.x > 0", "self.x\" > 0")));
        assert!(!check(DOC, &DOC.replace("b: 1", "b: [1]")));
        // An empty value behind a comment: an edit after it stays in the comment.
        assert!(!check("a:\t#\t  ", "a:\t#\t  \u{FFFD} -"));
        assert!(!check("a: # c  ", "a: # c  x"));
        assert!(!check("a:\t#\t  \n", "a:\t#\t  x -\n"));
        // A value edited to start on the next line: there `>` is a folded block scalar's
        // indicator, not text (found by the splice fuzz target).
        assert!(!check("a:\t\t  .\u{FFFD}1 >", "a:\t\t  \n >"));
        assert!(!check("a: x\n", "a: \n >\n"));
        assert!(check(DOC, &DOC.replace("b: 1", "b: é")));
        let wide = DOC.replace("a:\n", "é:\n").replace("d: x", "d: é");
        assert!(check(&wide, &wide.replace("b: 1", "b: ü2")));
        assert!(check(&wide, &wide.replace("d: é", "d: éè")));
        assert!(!check("a: {b: 1}\n", "a: {b: 2}\n"));
        assert!(!check("a: &x\n  b: 1\nc: *x\n", "a: &x\n  b: 2\nc: *x\n"));
        assert!(!check("a: |\n  x\n", "a: |\n  xy\n"));
        // A lone carriage return breaks a line (found by the splice fuzz target); a CRLF
        // line is spliced.
        assert!(!check("a::\r", "a::\r\u{fffd}"));
        assert!(!check(" FALSE:", " FALSE:S"));
        assert!(!check("::\t", "::\t333"));
        assert!(!check("a: x\rb: 1\n", "a: xy\rb: 1\n"));
        assert!(check("a: x\r\nb: 1\r\n", "a: xy\r\nb: 1\r\n"));
        // Blank space inserted before the value, and an anchor or a block scalar behind it
        // (found by the splice fuzz target), or a comment.
        assert!(!check("a:\t\t  .\u{fffd}1 >", "a:\t\t   &+e::a:\u{fffd}\u{fffd}1 >"));
        assert!(!check(DOC, &DOC.replace("b: 1", "b:  >")));
        assert!(!check(DOC, &DOC.replace("b: 1", "b:  #1")));
        assert!(!check(DOC, &DOC.replace("b: 1", "b:\t1")));
    }

    /// A text of `n` numbered entries, each with a rule and a message (lines that repeat).
    fn entries(n: usize) -> String {
        (0..n).map(|i| format!("e{i}:\n  type: string\n  rule: self.size() > {i}\n  message: too short\n")).collect()
    }

    #[test]
    fn an_edit_of_several_places_is_found_in_stretches() {
        let old = entries(40);
        // Two values far apart, one of them longer: two stretches, equal text between.
        let new = old.replace("self.size() > 3\n", "self.size() > 33\n").replace("e30:\n  type: string\n  rule: self.size() > 30\n  message: too short", "e30:\n  type: string\n  rule: self.size() > 30\n  message: much too short");
        let hs = hunks(&old, &new).expect("two stretches");
        assert_eq!(hs.len(), 2, "{hs:?}");
        let mut rebuilt = String::new();
        let mut at = 0;
        for h in &hs {
            assert!(h.from >= at);
            // Between the stretches the texts agree, and each stretch is a line or two.
            assert_eq!(&old[at..h.from], &new[rebuilt.len()..h.new_from]);
            rebuilt.push_str(&old[at..h.from]);
            rebuilt.push_str(&new[h.new_from..h.new_to]);
            assert!(new[h.new_from..h.new_to].lines().count() <= 2, "{:?}", &new[h.new_from..h.new_to]);
            at = h.old_to;
        }
        rebuilt.push_str(&old[at..]);
        assert_eq!(rebuilt, new);
        // One stretch, or too many lines apart on one side: nothing to split.
        assert_eq!(hunks(&old, &old.replace("> 7\n", "> 8\n")), None);
        let inserted = old.replace("e5:\n", &format!("{}e5:\n", "x: 1\n".repeat(MAX_HUNK_LINES + 1))).replace("> 30\n", "> 31\n");
        assert_eq!(hunks(&old, &inserted), None);
    }

    #[test]
    fn scalars_apart_are_spliced_in_turn() {
        let old = entries(40);
        let new = old.replace("> 2\n", "> 22\n").replace("> 20\n", "> 2\n").replace("e39:\n  type: string\n  rule: self.size() > 39\n  message: too short", "e39:\n  type: string\n  rule: self.size() > 39\n  message: 'é short'");
        for positions in [false, true] {
            let mut t = if positions { IndexedText::read_with_positions(&old).unwrap() } else { IndexedText::read(&old).unwrap() };
            let all = splice_hunks(&mut t, &new).expect("three scalars re-read");
            let paths: Vec<String> = all.iter().map(|s| format!("{:?}", s.path)).collect();
            assert_eq!(paths.len(), 3, "{paths:?}");
            assert!(paths[0].contains("e2") && paths[1].contains("e20") && paths[2].contains("e39"), "{paths:?}");
            assert_eq!(t.docs, read_documents(&new).unwrap());
            if positions {
                assert_positions(&t, &new);
            }
        }
        // A key changed among them: not spliced, and the whole text is read instead.
        let keyed = new.replace("e30:", "f30:");
        let mut t = IndexedText::read(&old).unwrap();
        assert!(splice_hunks(&mut t, &keyed).is_none());
    }

    #[test]
    fn character_offsets_become_byte_offsets() {
        assert_eq!(chars_to_bytes("aé€b", &[0, 1, 2, 3, 4]), Some(vec![0, 1, 3, 6, 7]));
        let long = format!("{}é{}x", "a".repeat(100), "b".repeat(100));
        assert_eq!(chars_to_bytes(&long, &[100, 101, 201]), Some(vec![100, 102, 202]));
        assert_eq!(chars_to_bytes("ab", &[3]), None);
        // A character across a block's end.
        let across = format!("{}éb", "a".repeat(63));
        assert_eq!(chars_to_bytes(&across, &[63, 64, 65]), Some(vec![63, 65, 66]));
    }

    #[test]
    fn changes_are_found_on_character_boundaries() {
        assert_eq!(Change::between("abc", "abXc"), Change { from: 2, old_to: 2, new_to: 3 });
        assert_eq!(Change::between("aaa", "aa"), Change { from: 2, old_to: 3, new_to: 2 });
        let c = Change::between("xé", "xè");
        assert!(c.from == 1 && c.old_to == 3 && c.new_to == 3);
        // Across and inside the blocks compared whole: as a byte-by-byte comparison finds.
        let base: String = (0..300).map(|i| (b'a' + (i % 26) as u8) as char).collect();
        for at in [0, 1, 63, 64, 65, 127, 128, 200, 299, 300] {
            for (ins, del) in [("X", 0), ("", 1), ("XYZ", 2), ("aa", 0)] {
                let del = del.min(base.len() - at);
                let new = format!("{}{}{}", &base[..at], ins, &base[at + del..]);
                let (a, b) = (base.as_bytes(), new.as_bytes());
                let from = a.iter().zip(b).take_while(|(x, y)| x == y).count();
                let max = a.len().min(b.len()) - from;
                let suffix = a.iter().rev().zip(b.iter().rev()).take(max).take_while(|(x, y)| x == y).count();
                let want = Change { from, old_to: a.len() - suffix, new_to: b.len() - suffix };
                assert_eq!(Change::between(&base, &new), want, "{at} {ins:?} {del}");
            }
        }
    }
}
