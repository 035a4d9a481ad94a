//! Source positions: where each node of a document stands in its text, built while the
//! reader parses (YAML events, or a scan of a JSON text), in the units editors take.

use yaml_rust2::scanner::{Marker, TScalarStyle};

/// A range of source text as editors take it: 1-based lines, 1-based columns counted in
/// UTF-16 code units (Monaco; CodeMirror 5 and LSP take the column minus one), the end
/// exclusive; the offsets count UTF-16 code units from the start of the text (CodeMirror 6,
/// `textarea.setSelectionRange`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct Range {
    pub start_line: u32,
    pub start_column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub start_offset: u32,
    pub end_offset: u32,
}

/// One step of a path into a JSON value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PathSeg {
    Key(String),
    Index(usize),
}

/// Where one node of a document stands: its key (when it is a map entry), its value, and
/// its children's positions.
#[derive(Clone, Debug, PartialEq)]
pub struct PosNode {
    /// The key's range, for a map entry.
    pub key: Option<Range>,
    /// The whole value: a scalar's text (quotes included), a flow collection with its
    /// brackets, a block collection from its first entry to the end of its last.
    pub value: Range,
    /// The value's first line (the whole value when it is on one line).
    pub head: Range,
    pub children: PosChildren,
    /// The key's byte offsets in the text read (after a byte-order mark), for tools that
    /// rewrite the text (`edit.rs`).
    pub key_bytes: Option<(usize, usize)>,
    /// The value's byte offsets, as `value` (an empty scalar's stand at the token after it).
    pub value_bytes: (usize, usize),
    /// How the value is written.
    pub style: NodeStyle,
    /// The value carries an anchor (`&a`), so aliases elsewhere repeat it.
    pub anchored: bool,
    /// The value carries an explicit tag (`!!str`).
    pub tagged: bool,
}

/// How a node is written in the source text (JSON strings are `DoubleQuoted`, other JSON
/// scalars `Plain`, JSON arrays and objects flow collections).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeStyle {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    /// `|`
    Literal,
    /// `>`
    Folded,
    /// `*name`
    Alias,
    BlockMap,
    BlockSeq,
    /// `{...}`
    FlowMap,
    /// `[...]`
    FlowSeq,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PosChildren {
    Leaf,
    Map(std::collections::HashMap<String, PosNode>),
    Seq(Vec<PosNode>),
}

/// The range an editor underlines for a problem with a node: a scalar's value (its key
/// when the value is empty), a collection's key (its first line in a list).
fn underline(children: &PosChildren, key: Option<Range>, value: Range, head: Range) -> Range {
    match (children, key) {
        (PosChildren::Leaf, Some(k)) if value.start_offset == value.end_offset => k,
        (PosChildren::Leaf, _) => value,
        (_, Some(k)) => k,
        (_, None) => head,
    }
}

impl PosNode {
    /// [`Placed::underline`] of the node as it was read.
    pub fn underline(&self) -> Range {
        underline(&self.children, self.key, self.value, self.head)
    }

    fn child(&self, seg: &PathSeg) -> Option<&PosNode> {
        match (&self.children, seg) {
            (PosChildren::Map(m), PathSeg::Key(k)) => m.get(k),
            (PosChildren::Seq(v), PathSeg::Index(i)) => v.get(*i),
            _ => None,
        }
    }

    fn at(&self, path: &[PathSeg]) -> Option<&PosNode> {
        path.iter().try_fold(self, |n, seg| n.child(seg))
    }

    fn at_mut(&mut self, path: &[PathSeg]) -> Option<&mut PosNode> {
        let mut n = self;
        for seg in path {
            n = match (&mut n.children, seg) {
                (PosChildren::Map(m), PathSeg::Key(k)) => m.get_mut(k)?,
                (PosChildren::Seq(v), PathSeg::Index(i)) => v.get_mut(*i)?,
                _ => return None,
            };
        }
        Some(n)
    }
}

/// The positions of one document's nodes, by JSON path (see [`read_document_with_positions`]).
///
/// An edit inside one scalar ([`crate::text::splice`]) moves every node after it. The
/// nodes are not moved then: the map keeps the edit's [`Shift`], and a node read through
/// [`SourceMap::get`] or [`SourceMap::nearest`] comes moved by the shifts since it was
/// (a keystroke's answer reads a few hundred nodes of a CRD's hundred thousand). Every
/// [`MAX_PENDING`] shifts the nodes are moved at once ([`SourceMap::settle`]). `root` holds
/// the nodes as last settled: read them through `get` and `nearest`.
#[derive(Clone, Default)]
pub struct SourceMap {
    /// `None` for an empty document.
    pub root: Option<PosNode>,
    /// The shifts not yet applied to `root`'s nodes, in order, each with whether this
    /// document holds the edited scalar (its path's nodes are set anew).
    pending: Vec<(std::sync::Arc<Shift>, bool)>,
}

/// Shifts a map keeps before it moves its nodes ([`SourceMap::settle`]).
pub const MAX_PENDING: usize = 32;

/// A map prints its nodes as they were last settled.
impl std::fmt::Debug for SourceMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SourceMap").field("root", &self.root).field("pending", &self.pending.len()).finish()
    }
}

/// Two maps are equal when their nodes stand at the same places.
impl PartialEq for SourceMap {
    fn eq(&self, other: &SourceMap) -> bool {
        let settled = |m: &SourceMap| {
            let mut m = m.clone();
            m.settle();
            m.root
        };
        settled(self) == settled(other)
    }
}

/// A point of a text in a [`Range`]'s units: 1-based line and UTF-16 column, UTF-16 offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Point {
    pub(crate) line: u32,
    pub(crate) col: u32,
    pub(crate) off: u32,
}

/// How an edit inside one scalar moves the nodes (planned by [`crate::text::splice`]):
/// points from `from` on (old text) move by `lines`/`units` (`cols` on the line of `from`
/// itself), bytes from `from_byte` on by `bytes`; the scalar at `path` and its ancestors'
/// ends and heads, which stand on the re-read lines, are set anew.
pub(crate) struct Shift {
    pub(crate) moved: Move,
    pub(crate) path: Vec<PathSeg>,
    /// The scalar's value range, bytes and style.
    pub(crate) scalar: (Range, (usize, usize), NodeStyle),
    /// Per ancestor (from the root): its new value end (when it was the scalar's), and its head.
    pub(crate) ancestors: Vec<(Option<(Point, usize)>, Range)>,
}

/// Where a node stands: its positions, without its children.
#[derive(Clone, Copy)]
struct Spot {
    key: Option<Range>,
    value: Range,
    head: Range,
    key_bytes: Option<(usize, usize)>,
    value_bytes: (usize, usize),
    style: NodeStyle,
}

impl Spot {
    fn of(n: &PosNode) -> Spot {
        Spot { key: n.key, value: n.value, head: n.head, key_bytes: n.key_bytes, value_bytes: n.value_bytes, style: n.style }
    }
    fn write(self, n: &mut PosNode) {
        (n.key, n.value, n.head, n.key_bytes, n.value_bytes, n.style) = (self.key, self.value, self.head, self.key_bytes, self.value_bytes, self.style);
    }
}

/// How the nodes after an edit move ([`Shift`] without what it sets anew).
#[derive(Clone, Copy)]
pub(crate) struct Move {
    pub(crate) from: Point,
    pub(crate) lines: i64,
    pub(crate) units: i64,
    pub(crate) cols: i64,
    pub(crate) from_byte: usize,
    pub(crate) bytes: i64,
}

impl Move {
    /// `self` then `next` as one move, when `next` is a keystroke further along the same
    /// line that adds no line: every node point at or after `self.from` is at or after
    /// `next.from` once moved, and none is between the two (that is the re-read scalar's
    /// line, whose nodes are set anew), so the two moves add up.
    fn then(self, next: Move) -> Option<Move> {
        (self.lines == 0
            && next.lines == 0
            && next.from.line == self.from.line
            && next.from.off as i64 == self.from.off as i64 + self.units
            && next.from_byte as i64 == self.from_byte as i64 + self.bytes)
            .then_some(Move { units: self.units + next.units, cols: self.cols + next.cols, bytes: self.bytes + next.bytes, ..self })
    }

    fn point(&self, line: &mut u32, col: &mut u32, off: &mut u32) {
        if *off >= self.from.off {
            if *line == self.from.line {
                *col = (*col as i64 + self.cols) as u32;
            }
            *line = (*line as i64 + self.lines) as u32;
            *off = (*off as i64 + self.units) as u32;
        }
    }

    fn range(&self, r: &mut Range) {
        self.point(&mut r.start_line, &mut r.start_column, &mut r.start_offset);
        self.point(&mut r.end_line, &mut r.end_column, &mut r.end_offset);
    }

    fn byte(&self, b: &mut usize) {
        if *b >= self.from_byte {
            *b = (*b as i64 + self.bytes) as usize;
        }
    }

    /// [`Move::shift`] on the node itself.
    fn shift_node(&self, n: &mut PosNode) {
        self.shift_fields(&mut n.key, &mut n.value, &mut n.head, &mut n.key_bytes, &mut n.value_bytes)
    }

    /// Moves a node that is not on the edited scalar's path (or before it is set anew).
    fn shift(&self, s: &mut Spot) {
        self.shift_fields(&mut s.key, &mut s.value, &mut s.head, &mut s.key_bytes, &mut s.value_bytes)
    }

    fn shift_fields(&self, key: &mut Option<Range>, value: &mut Range, head: &mut Range, key_bytes: &mut Option<(usize, usize)>, value_bytes: &mut (usize, usize)) {
        // A node that ends before the re-read lines (and so does all it holds) stays.
        if value.end_offset < self.from.off && key.is_none_or(|k| k.end_offset < self.from.off) {
            return;
        }
        if let Some(k) = key.as_mut() {
            self.range(k);
        }
        self.range(value);
        self.range(head);
        if let Some((a, b)) = key_bytes.as_mut() {
            self.byte(a);
            self.byte(b);
        }
        self.byte(&mut value_bytes.0);
        self.byte(&mut value_bytes.1);
    }
}

impl Shift {
    fn shift(&self, s: &mut Spot) {
        self.moved.shift(s)
    }

    /// The node at `path` after the shift: moved, and set anew when it is the scalar or one
    /// of its ancestors.
    fn place(&self, s: &mut Spot, path: &[PathSeg]) {
        self.shift(s);
        if !self.path.starts_with(path) {
            return;
        }
        match self.ancestors.get(path.len()) {
            Some((end, head)) => {
                if let Some((p, b)) = end {
                    s.value.end_line = p.line;
                    s.value.end_column = p.col;
                    s.value.end_offset = p.off;
                    s.value_bytes.1 = *b;
                }
                s.head = *head;
            }
            None => {
                let (range, bytes, style) = self.scalar;
                (s.value, s.head, s.value_bytes, s.style) = (range, range, bytes, style);
            }
        }
    }
}

/// A node as it stands in the text now (see [`SourceMap`]): its positions and its children.
#[derive(Clone, Copy)]
pub struct Placed<'m> {
    pub key: Option<Range>,
    pub value: Range,
    pub head: Range,
    pub key_bytes: Option<(usize, usize)>,
    pub value_bytes: (usize, usize),
    pub style: NodeStyle,
    pub children: &'m PosChildren,
}

impl Placed<'_> {
    /// The range an editor underlines for a problem with this node: a scalar's value (its
    /// key when the value is empty), a collection's key (its first line in a list).
    pub fn underline(&self) -> Range {
        underline(self.children, self.key, self.value, self.head)
    }
}

impl SourceMap {
    pub fn empty(_text: &str) -> SourceMap {
        SourceMap::default()
    }

    /// The node at `path`, if the text has it.
    pub fn get(&self, path: &[PathSeg]) -> Option<Placed<'_>> {
        let mut n = self.root.as_ref()?;
        for seg in path {
            n = n.child(seg)?;
        }
        Some(self.place(n, path))
    }

    /// The deepest node on `path` the text has, with how many steps of `path` it covers
    /// (`path.len()` when the node itself is there).
    pub fn nearest(&self, path: &[PathSeg]) -> Option<(Placed<'_>, usize)> {
        let mut n = self.root.as_ref()?;
        for (i, seg) in path.iter().enumerate() {
            match n.child(seg) {
                Some(c) => n = c,
                None => return Some((self.place(n, &path[..i]), i)),
            }
        }
        Some((self.place(n, path), path.len()))
    }

    /// The node `n` (at `path`) moved by the pending shifts.
    fn place<'m>(&'m self, n: &'m PosNode, path: &[PathSeg]) -> Placed<'m> {
        let mut s = Spot::of(n);
        for (shift, holds) in &self.pending {
            if *holds {
                shift.place(&mut s, path);
            } else {
                shift.shift(&mut s);
            }
        }
        Placed { key: s.key, value: s.value, head: s.head, key_bytes: s.key_bytes, value_bytes: s.value_bytes, style: s.style, children: &n.children }
    }

    /// Keeps a splice's shift (`holds`: this document holds the edited scalar); the nodes
    /// move when read, or all at once after [`MAX_PENDING`] shifts.
    pub(crate) fn push(&mut self, shift: std::sync::Arc<Shift>, holds: bool) {
        self.pending.push((shift, holds));
        if self.pending.len() >= MAX_PENDING {
            self.settle();
        }
    }

    /// Moves every node by the pending shifts (one walk over the nodes).
    pub fn settle(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        // The edited scalars' paths, placed first: set anew along the way.
        let mut fixed: Vec<(Vec<PathSeg>, Spot)> = Vec::new();
        for (shift, holds) in &self.pending {
            if *holds {
                for depth in 0..=shift.path.len() {
                    let path = &shift.path[..depth];
                    if let Some(n) = self.root.as_ref().and_then(|r| r.at(path)) {
                        let p = self.place(n, path);
                        let spot = Spot { key: p.key, value: p.value, head: p.head, key_bytes: p.key_bytes, value_bytes: p.value_bytes, style: p.style };
                        fixed.push((path.to_vec(), spot));
                    }
                }
            }
        }
        // Keystrokes along one line are one move.
        let mut moves: Vec<Move> = Vec::new();
        for (shift, _) in std::mem::take(&mut self.pending) {
            match moves.last().and_then(|m| m.then(shift.moved)) {
                Some(both) => *moves.last_mut().expect("a last move") = both,
                None => moves.push(shift.moved),
            }
        }
        if let Some(root) = self.root.as_mut() {
            let mut stack = vec![root];
            while let Some(n) = stack.pop() {
                // A node that ends before every move (and so does all it holds) stays.
                let before = |m: &Move| n.value.end_offset < m.from.off && n.key.is_none_or(|k| k.end_offset < m.from.off);
                if moves.iter().all(before) {
                    continue;
                }
                for m in &moves {
                    m.shift_node(n);
                }
                match &mut n.children {
                    PosChildren::Map(m) => stack.extend(m.values_mut()),
                    PosChildren::Seq(v) => stack.extend(v.iter_mut()),
                    PosChildren::Leaf => {}
                }
            }
        }
        for (path, spot) in fixed {
            if let Some(n) = self.root.as_mut().and_then(|r| r.at_mut(&path)) {
                spot.write(n);
            }
        }
    }
}

/// Converts char indices (yaml-rust2's markers) and byte offsets to lines and UTF-16
/// columns: a checkpoint at every line start and every 64 characters, so converting costs a
/// binary search and a short walk even in one-line (minified) texts. The readers ask in
/// text order, mostly a few characters after the last answer, so the last answer is kept
/// and a lookup just after it on the same line walks on from it instead (a flow list of a
/// million aliases asks millions of times).
struct Locator<'a> {
    text: &'a str,
    cps: Vec<Checkpoint>,
    /// The text has a `\r` line break not followed by `\n`.
    lone_cr: bool,
    /// The last point found.
    last: std::cell::Cell<Checkpoint>,
}

/// A point of the text: char index, byte offset, UTF-16 offset, line and its start.
#[derive(Clone, Copy)]
struct Checkpoint {
    ch: usize,
    byte: usize,
    u16: usize,
    /// 1-based line, and the UTF-16 offset and char index of its start.
    line: usize,
    line_u16: usize,
    line_ch: usize,
}

/// How far past the last answer a lookup walks on from it rather than searching.
const WALK_ON: usize = 256;

impl<'a> Locator<'a> {
    fn new(text: &'a str) -> Locator<'a> {
        let start = Checkpoint {
            ch: 0,
            byte: 0,
            u16: 0,
            line: 1,
            line_u16: 0,
            line_ch: 0,
        };
        let mut cps = vec![start];
        let (mut ch, mut u16, mut line, mut since) = (0usize, 0usize, 1usize, 0usize);
        for (byte, c) in text.char_indices() {
            ch += 1;
            u16 += c.len_utf16();
            since += 1;
            let next = byte + c.len_utf8();
            if c == '\n' {
                line += 1;
                cps.push(Checkpoint {
                    ch,
                    byte: next,
                    u16,
                    line,
                    line_u16: u16,
                    line_ch: ch,
                });
                since = 0;
            } else if since >= 64 {
                let (line_u16, line_ch) = cps.last().map(|c| (c.line_u16, c.line_ch)).unwrap_or((0, 0));
                cps.push(Checkpoint {
                    ch,
                    byte: next,
                    u16,
                    line,
                    line_u16,
                    line_ch,
                });
                since = 0;
            }
        }
        let b = text.as_bytes();
        let lone_cr = b
            .iter()
            .enumerate()
            .any(|(i, &c)| c == b'\r' && b.get(i + 1) != Some(&b'\n'));
        Locator {
            text,
            cps,
            lone_cr,
            last: std::cell::Cell::new(start),
        }
    }

    /// Walks from `from` (the start of a line, a checkpoint or the last answer) to the
    /// first point where `stop(char index, byte)` holds, never past the line's end.
    fn walk(&self, from: Checkpoint, stop: impl Fn(usize, usize) -> bool) -> Checkpoint {
        let mut p = from;
        for c in self.text[from.byte..].chars() {
            if stop(p.ch, p.byte) || c == '\n' {
                break;
            }
            p.ch += 1;
            p.byte += c.len_utf8();
            p.u16 += c.len_utf16();
        }
        self.last.set(p);
        p
    }

    /// The point at a char index (clamped to the text).
    fn at_char(&self, ch: usize) -> Checkpoint {
        let i = self.cps.partition_point(|c| c.ch <= ch).saturating_sub(1);
        self.walk(self.cps[i], |c, _| c >= ch)
    }

    /// The point at a yaml-rust2 marker. Its line and column are used, not its char index:
    /// the scanner counts a block scalar's content lines in bytes for the index (and the
    /// column, which a line break resets), so the index drifts after any `|` or `>` block
    /// holding multi-byte characters. A text with lone `\r` line breaks (which the scanner
    /// counts as lines, the checkpoints do not) falls back on the index.
    fn at_mark(&self, mark: &Marker) -> Checkpoint {
        if !self.lone_cr {
            let line = mark.line();
            let last = self.last.get();
            if last.line == line {
                let ch = last.line_ch + mark.col();
                if last.ch <= ch && ch - last.ch <= WALK_ON {
                    return self.walk(last, |c, _| c >= ch);
                }
            }
            let i = self.cps.partition_point(|c| c.line < line);
            if let Some(c) = self.cps.get(i).filter(|c| c.line == line) {
                return self.at_char(c.ch + mark.col());
            }
        }
        self.at_char(mark.index())
    }

    /// The point at a byte offset (clamped to the text).
    fn at_byte(&self, byte: usize) -> Checkpoint {
        let last = self.last.get();
        if last.byte <= byte
            && byte - last.byte <= WALK_ON
            && !self.text.as_bytes()[last.byte..byte.min(self.text.len())].contains(&b'\n')
        {
            return self.walk(last, |_, b| b >= byte);
        }
        let i = self
            .cps
            .partition_point(|c| c.byte <= byte)
            .saturating_sub(1);
        self.walk(self.cps[i], |_, b| b >= byte)
    }

    fn range(&self, start: usize, end: usize) -> Range {
        let a = self.at_byte(start);
        let b = self.at_byte(end.max(start));
        let n = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
        Range {
            start_line: n(a.line),
            start_column: n(a.u16 - a.line_u16 + 1),
            end_line: n(b.line),
            end_column: n(b.u16 - b.line_u16 + 1),
            start_offset: n(a.u16),
            end_offset: n(b.u16),
        }
    }

    /// The end of the line holding `byte`, trailing blanks left out (never before `byte`).
    fn line_end(&self, byte: usize) -> usize {
        let rest = &self.text[byte.min(self.text.len())..];
        let line = rest.split('\n').next().unwrap_or("");
        byte + line.trim_end().len()
    }
}

/// A node finished by the builder, waiting for its parent; `start`/`end` are the bytes it
/// covers with its key.
struct Built {
    node: PosNode,
    start: usize,
    end: usize,
}

struct PosFrame {
    open: usize,
    bracket: bool,
    key: Option<(usize, usize)>,
    pending_key: Option<(usize, usize)>,
    first: Option<usize>,
    last: usize,
    children: PosChildren,
    anchored: bool,
    tagged: bool,
}

/// Builds a [`SourceMap`] from the reader's events (YAML) or the JSON scanner's tokens,
/// with byte offsets.
pub(crate) struct PosBuilder<'a> {
    loc: Locator<'a>,
    stack: Vec<PosFrame>,
    done: Option<Built>,
    root: Option<PosNode>,
    /// YAML: a `<<` key merges, it is not a child.
    merge_keys: bool,
}

impl<'a> PosBuilder<'a> {
    pub(crate) fn new(text: &'a str) -> PosBuilder<'a> {
        PosBuilder {
            loc: Locator::new(text),
            stack: Vec::new(),
            done: None,
            root: None,
            merge_keys: false,
        }
    }

    /// A builder for a YAML text, whose `<<` merge keys take no position of their own.
    pub(crate) fn for_yaml(text: &'a str) -> PosBuilder<'a> {
        PosBuilder {
            merge_keys: true,
            ..PosBuilder::new(text)
        }
    }

    pub(crate) fn text(&self) -> &'a str {
        self.loc.text
    }

    /// A new document of the stream begins: the previous one's root is dropped.
    pub(crate) fn start_document(&mut self) {
        self.root = None;
    }

    pub(crate) fn take_root(&mut self) -> SourceMap {
        self.stack.clear();
        self.done = None;
        SourceMap {
            root: self.root.take(),
            pending: Vec::new(),
        }
    }

    pub(crate) fn key_span(&mut self, start: usize, end: usize) {
        if let Some(f) = self.stack.last_mut() {
            f.pending_key = Some((start, end));
        }
    }

    pub(crate) fn leaf_span(&mut self, start: usize, end: usize) {
        let key = self.stack.last_mut().and_then(|f| f.pending_key.take());
        let value = self.loc.range(start, end);
        let style = if self.text().as_bytes().get(start) == Some(&b'"') {
            NodeStyle::DoubleQuoted
        } else {
            NodeStyle::Plain
        };
        self.done = Some(Built {
            node: PosNode {
                key: key.map(|(a, b)| self.loc.range(a, b)),
                value,
                head: value,
                children: PosChildren::Leaf,
                key_bytes: key,
                value_bytes: (start, end),
                style,
                anchored: false,
                tagged: false,
            },
            start: key.map(|k| k.0).unwrap_or(start),
            end,
        });
    }

    pub(crate) fn open_at(&mut self, byte: usize, bracket: u8) {
        let key = self.stack.last_mut().and_then(|f| f.pending_key.take());
        let is_bracket = self.text().as_bytes().get(byte) == Some(&bracket);
        let children = if bracket == b'{' {
            PosChildren::Map(Default::default())
        } else {
            PosChildren::Seq(Vec::new())
        };
        self.stack.push(PosFrame {
            open: byte,
            bracket: is_bracket,
            key,
            pending_key: None,
            first: None,
            last: byte,
            children,
            anchored: false,
            tagged: false,
        });
    }

    pub(crate) fn close_at(&mut self, byte: usize, bracket: u8) {
        let Some(f) = self.stack.pop() else { return };
        let flow = f.bracket && self.text().as_bytes().get(byte) == Some(&bracket);
        let (start, end) = match (flow, f.first) {
            (true, _) => (f.open, byte + 1),
            (false, Some(first)) => (first, f.last),
            (false, None) => (f.open, f.open),
        };
        let value = self.loc.range(start, end);
        let head = self
            .loc
            .range(start, self.loc.line_end(start).min(end).max(start));
        let style = match (&f.children, flow) {
            (PosChildren::Seq(_), true) => NodeStyle::FlowSeq,
            (PosChildren::Seq(_), false) => NodeStyle::BlockSeq,
            (_, true) => NodeStyle::FlowMap,
            (_, false) => NodeStyle::BlockMap,
        };
        self.done = Some(Built {
            node: PosNode {
                key: f.key.map(|(a, b)| self.loc.range(a, b)),
                value,
                head,
                children: f.children,
                key_bytes: f.key,
                value_bytes: (start, end),
                style,
                anchored: f.anchored,
                tagged: f.tagged,
            },
            start: f.key.map(|k| k.0).unwrap_or(start),
            end,
        });
    }

    /// Attaches the node just finished to its parent (under `key` in a map).
    pub(crate) fn attach(&mut self, key: Option<&str>) {
        let Some(b) = self.done.take() else { return };
        match self.stack.last_mut() {
            None => self.root = Some(b.node),
            Some(f) => {
                f.first.get_or_insert(b.start);
                f.last = f.last.max(b.end);
                match (&mut f.children, key) {
                    (PosChildren::Map(m), Some(k)) if !(self.merge_keys && k == "<<") => {
                        m.insert(k.to_string(), b.node);
                    }
                    (PosChildren::Seq(v), None) => v.push(b.node),
                    _ => {}
                }
            }
        }
    }

    // YAML events: markers count chars.

    pub(crate) fn byte_of(&self, mark: &Marker) -> usize {
        self.loc.at_mark(mark).byte
    }

    pub(crate) fn key(&mut self, mark: &Marker, s: &str, style: TScalarStyle) {
        let (a, b) = self.scalar_span(mark, s, style);
        self.key_span(a, b);
    }

    /// Records the anchor and tag of the node just finished (a scalar) or just opened (a
    /// collection).
    pub(crate) fn props(&mut self, anchored: bool, tagged: bool) {
        if let Some(b) = self.done.as_mut() {
            b.node.anchored = anchored;
            b.node.tagged = tagged;
        }
    }

    pub(crate) fn open_props(&mut self, anchored: bool, tagged: bool) {
        if let Some(f) = self.stack.last_mut() {
            f.anchored = anchored;
            f.tagged = tagged;
        }
    }

    /// A value scalar (`Some`) or an alias (`None`).
    pub(crate) fn leaf(&mut self, mark: &Marker, scalar: Option<(&str, TScalarStyle)>) {
        let (a, b) = match scalar {
            Some((s, style)) => self.scalar_span(mark, s, style),
            None => {
                let a = self.byte_of(mark);
                let rest = &self.text()[a..];
                let n = rest
                    .char_indices()
                    .skip(1)
                    .find(|&(_, c)| c.is_whitespace() || ",[]{}".contains(c))
                    .map(|(i, _)| i)
                    .unwrap_or(rest.len());
                (a, a + n)
            }
        };
        self.leaf_span(a, b);
        if let Some(d) = self.done.as_mut() {
            d.node.style = match scalar {
                None => NodeStyle::Alias,
                Some((_, TScalarStyle::SingleQuoted)) => NodeStyle::SingleQuoted,
                Some((_, TScalarStyle::DoubleQuoted)) => NodeStyle::DoubleQuoted,
                Some((_, TScalarStyle::Literal)) => NodeStyle::Literal,
                Some((_, TScalarStyle::Folded)) => NodeStyle::Folded,
                Some(_) => NodeStyle::Plain,
            };
        }
    }

    pub(crate) fn open(&mut self, mark: &Marker, bracket: u8) {
        let b = self.byte_of(mark);
        self.open_at(b, bracket);
    }

    pub(crate) fn close(&mut self, mark: &Marker, bracket: u8) {
        let b = self.byte_of(mark);
        self.close_at(b, bracket);
    }

    /// The bytes a scalar's text covers, from its marker (the scalar's first character;
    /// for block scalars the first content line) and its value.
    pub(crate) fn scalar_span(&self, mark: &Marker, s: &str, style: TScalarStyle) -> (usize, usize) {
        let text = self.text();
        let start = self.byte_of(mark);
        let rest = &text[start..];
        // The rest of the scalar's line, only where the scalar does not simply start at its
        // marker: scanning it for every scalar is quadratic on one long line (a flow list of
        // 100,000 items).
        let line = || rest.split('\n').next().unwrap_or("");
        match style {
            TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted => {
                let q = if style == TScalarStyle::SingleQuoted {
                    '\''
                } else {
                    '"'
                };
                let open = if rest.starts_with(q) { Some(0) } else { line().find(q) };
                let Some(open) = open else {
                    return (start, start + line().trim_end().len());
                };
                let body = &rest[open + 1..];
                let mut it = body.char_indices().peekable();
                let mut end = body.len();
                while let Some((i, c)) = it.next() {
                    if q == '"' && c == '\\' {
                        it.next();
                    } else if c == q {
                        if q == '\'' && matches!(it.peek(), Some((_, '\''))) {
                            it.next();
                        } else {
                            end = i + 1;
                            break;
                        }
                    }
                }
                (start + open, start + open + 1 + end)
            }
            TScalarStyle::Literal | TScalarStyle::Folded => {
                if s.is_empty() {
                    return (start, start);
                }
                // Content lines: the first, then every blank or at-least-as-indented line.
                let indent = mark.col();
                let line = line();
                let mut end = start + line.trim_end().len();
                let mut at = start + line.len();
                while at < text.len() {
                    let next = &text[at + 1..];
                    let l = next.split('\n').next().unwrap_or("");
                    let t = l.trim_start_matches(' ');
                    if !t.trim().is_empty() {
                        if l.len() - t.len() < indent {
                            break;
                        }
                        end = at + 1 + l.trim_end().len();
                    }
                    at += 1 + l.len();
                }
                (start, end)
            }
            _ => {
                if s.is_empty() {
                    return (start, start);
                }
                if rest.starts_with(s) {
                    return (start, start + s.len());
                }
                if let Some(i) = line().find(s) {
                    return (start + i, start + i + s.len());
                }
                // A multi-line plain scalar: line breaks folded into spaces.
                match match_folded(rest, s) {
                    Some(n) => (start, start + n),
                    None => (start, start + line().trim_end().len()),
                }
            }
        }
    }
}

/// How many bytes of `text` a folded plain scalar `s` covers: runs of whitespace (line
/// breaks included) in the text match runs of spaces or newlines in `s`.
fn match_folded(text: &str, s: &str) -> Option<usize> {
    let t = text.as_bytes();
    let v = s.as_bytes();
    let (mut i, mut j) = (0usize, 0usize);
    while j < v.len() {
        if v[j] == b' ' || v[j] == b'\n' {
            while j < v.len() && (v[j] == b' ' || v[j] == b'\n') {
                j += 1;
            }
            let ws = i;
            while i < t.len() && matches!(t[i], b' ' | b'\t' | b'\n' | b'\r') {
                i += 1;
            }
            if i == ws {
                return None;
            }
        } else if i < t.len() && t[i] == v[j] {
            i += 1;
            j += 1;
        } else {
            return None;
        }
    }
    Some(i)
}

/// The source map of a JSON text that `read_json` accepted, from byte `start` (after a BOM
/// and leading blanks). An iterative scanner: the text is known to be valid JSON.
pub(crate) fn json_source_map(text: &str, start: usize) -> SourceMap {
    struct Frame {
        object: bool,
        expect_key: bool,
        key: Option<String>,
    }
    let mut p = PosBuilder::new(text);
    let b = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = start;
    loop {
        while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        let finished = match b[i] {
            b'{' | b'[' => {
                p.open_at(i, if b[i] == b'{' { b'{' } else { b'[' });
                stack.push(Frame {
                    object: b[i] == b'{',
                    expect_key: b[i] == b'{',
                    key: None,
                });
                i += 1;
                false
            }
            b'}' | b']' => {
                p.close_at(i, b[i]);
                stack.pop();
                i += 1;
                true
            }
            b',' => {
                if let Some(f) = stack.last_mut() {
                    f.expect_key = f.object;
                }
                i += 1;
                false
            }
            b':' => {
                i += 1;
                false
            }
            b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let end = (j + 1).min(b.len());
                let raw = &text[i..end];
                let is_key = matches!(stack.last(), Some(f) if f.expect_key);
                i = end;
                if is_key {
                    let k = if raw.contains('\\') {
                        serde_json::from_str::<String>(raw).unwrap_or_else(|_| raw.to_string())
                    } else {
                        raw.trim_matches('"').to_string()
                    };
                    if let Some(f) = stack.last_mut() {
                        f.key = Some(k);
                        f.expect_key = false;
                    }
                    p.key_span(i - raw.len(), i);
                    false
                } else {
                    p.leaf_span(i - raw.len(), i);
                    true
                }
            }
            _ => {
                let mut j = i;
                while j < b.len()
                    && !matches!(b[j], b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r')
                {
                    j += 1;
                }
                p.leaf_span(i, j.max(i + 1));
                i = j.max(i + 1);
                true
            }
        };
        if finished {
            let key = stack.last_mut().and_then(|f| f.key.take());
            p.attach(key.as_deref());
            if stack.is_empty() {
                break;
            }
        }
    }
    p.take_root()
}


#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use crate::text::yaml::{read_document, read_document_with_positions, read_documents_with_positions};

    fn seg(path: &str) -> Vec<PathSeg> {
        path.split('/')
            .filter(|s| !s.is_empty())
            .map(|s| match s.parse::<usize>() {
                Ok(i) => PathSeg::Index(i),
                Err(_) => PathSeg::Key(s.to_string()),
            })
            .collect()
    }

    /// (start line, start column, end line, end column) of the underline of `path`.
    fn under(map: &SourceMap, path: &str) -> (u32, u32, u32, u32) {
        let r = map
            .get(&seg(path))
            .unwrap_or_else(|| panic!("no node at {}", path))
            .underline();
        (r.start_line, r.start_column, r.end_line, r.end_column)
    }

    fn value_range(map: &SourceMap, path: &str) -> (u32, u32, u32, u32) {
        let r = map
            .get(&seg(path))
            .unwrap_or_else(|| panic!("no node at {}", path))
            .value;
        (r.start_line, r.start_column, r.end_line, r.end_column)
    }

    const POS_YAML: &str = "a: 1\nspec:\n  replicas: \"é😀x\"\n  list:\n  - x\n  - {k: v, m: [1, 'it''s']}\n  rule: |\n    self.x > 1\n    && y\n\n  # c\n  folded: one\n    two\nz: plain text  # comment\nempty:\n";

    #[test]
    fn yaml_positions() {
        let (v, map) = read_document_with_positions(POS_YAML).unwrap();
        assert_eq!(v, read_document(POS_YAML).unwrap());
        assert_eq!(under(&map, "a"), (1, 4, 1, 5));
        // Keys of collections are underlined; UTF-16 columns: é is 1 unit, 😀 is 2.
        assert_eq!(under(&map, "spec"), (2, 1, 2, 5));
        assert_eq!(under(&map, "spec/replicas"), (3, 13, 3, 19));
        assert_eq!(
            map.get(&seg("spec/replicas"))
                .unwrap()
                .key
                .unwrap()
                .start_column,
            3
        );
        assert_eq!(under(&map, "spec/list/0"), (5, 5, 5, 6));
        assert_eq!(value_range(&map, "spec/list/1"), (6, 5, 6, 28));
        assert_eq!(under(&map, "spec/list/1/k"), (6, 9, 6, 10));
        assert_eq!(under(&map, "spec/list/1/m/1"), (6, 19, 6, 26));
        assert_eq!(value_range(&map, "spec/list/1/m"), (6, 15, 6, 27));
        // A block scalar: its content lines, the comment after it left out.
        assert_eq!(under(&map, "spec/rule"), (8, 5, 9, 9));
        assert_eq!(under(&map, "spec/folded"), (12, 11, 13, 8));
        assert_eq!(under(&map, "z"), (14, 4, 14, 14));
        // A null value: its key.
        assert_eq!(under(&map, "empty"), (15, 1, 15, 6));
        assert_eq!(value_range(&map, "spec"), (3, 3, 13, 8));
        // Offsets are UTF-16 code units from the start.
        let r = map.get(&seg("spec/replicas")).unwrap().value;
        let utf16: Vec<u16> = POS_YAML.encode_utf16().collect();
        assert_eq!(
            String::from_utf16(&utf16[r.start_offset as usize..r.end_offset as usize]).unwrap(),
            "\"é😀x\""
        );
        let (n, depth) = map.nearest(&seg("spec/list/1/nope/x")).unwrap();
        assert_eq!(depth, 3);
        assert_eq!(n.value, map.get(&seg("spec/list/1")).unwrap().value);
    }

    #[test]
    fn yaml_positions_multi_document_and_anchors() {
        let docs =
            read_documents_with_positions("a: 1\n---\nb: &x {c: 2}\nd: *x\ne:\n  <<: *x\n  f: 3\n")
                .unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(under(&docs[0].1, "a"), (1, 4, 1, 5));
        assert_eq!(under(&docs[1].1, "b/c"), (3, 11, 3, 12));
        assert_eq!(under(&docs[1].1, "d"), (4, 4, 4, 6));
        assert_eq!(under(&docs[1].1, "e/f"), (7, 6, 7, 7));
        assert!(docs[1].1.get(&seg("e/c")).is_none());
        let (_, map) = read_document_with_positions("---\n---\nkind: X\n").unwrap();
        assert_eq!(under(&map, "kind"), (3, 7, 3, 8));
    }

    #[test]
    fn positions_after_block_scalars_with_wide_characters() {
        // yaml-rust2 counts a block scalar's content lines in bytes in its markers' index.
        let text = "a: |\n  µµµ é😀\n  x\nb: 'q'\nc: >-\n  ü\n\nd: [1]\n";
        let (_, map) = read_document_with_positions(text).unwrap();
        assert_eq!(under(&map, "b"), (4, 4, 4, 7));
        assert_eq!(under(&map, "d/0"), (8, 5, 8, 6));
        assert_eq!(map.get(&seg("d")).unwrap().key.unwrap().start_column, 1);
        let n = map.get(&seg("d")).unwrap();
        assert_eq!(&text[n.value_bytes.0..n.value_bytes.1], "[1]");
        assert_eq!(n.key_bytes.map(|(a, b)| &text[a..b]), Some("d"));
        assert_eq!(under(&map, "a"), (2, 3, 3, 4));
        // Lone carriage returns: the scanner's lines are not the text's.
        let (_, map) = read_document_with_positions("a: 1\rb: 2\n").unwrap();
        assert_eq!(map.get(&seg("b")).unwrap().value_bytes, (8, 9));
    }

    #[test]
    fn yaml_positions_with_crlf() {
        let (_, map) = read_document_with_positions("a: é\r\nb: 'x'\r\n").unwrap();
        assert_eq!(under(&map, "a"), (1, 4, 1, 5));
        assert_eq!(under(&map, "b"), (2, 4, 2, 7));
    }

    #[test]
    fn json_positions() {
        let text = "\u{feff}\n {\"a\": [1, {\"b\\u0041\": \"x\\\"y\"}, true],\n  \"c\": {}, \"é\": -1.5e3}";
        let (v, map) = read_document_with_positions(text).unwrap();
        assert_eq!(v, read_document(text).unwrap());
        assert_eq!(under(&map, "a"), (2, 3, 2, 6));
        assert_eq!(under(&map, "a/0"), (2, 9, 2, 10));
        assert_eq!(under(&map, "a/1/bA"), (2, 24, 2, 30));
        assert_eq!(value_range(&map, "a/1"), (2, 12, 2, 31));
        assert_eq!(under(&map, "a/2"), (2, 33, 2, 37));
        assert_eq!(value_range(&map, "c"), (3, 8, 3, 10));
        assert_eq!(under(&map, "é"), (3, 17, 3, 23));
        assert_eq!(value_range(&map, ""), (2, 2, 3, 24));
    }

    #[test]
    fn positions_in_a_long_line() {
        let items: Vec<String> = (0..2000).map(|i| format!("{{\"n\":\"ü{}\"}}", i)).collect();
        let text = format!("{{\"items\":[{}]}}", items.join(","));
        let (_, map) = read_document_with_positions(&text).unwrap();
        let r = map.get(&seg("items/1999/n")).unwrap().value;
        let utf16: Vec<u16> = text.encode_utf16().collect();
        assert_eq!(
            String::from_utf16(&utf16[r.start_offset as usize..r.end_offset as usize]).unwrap(),
            "\"ü1999\""
        );
        assert_eq!(r.start_line, 1);
        assert_eq!(r.start_column, r.start_offset + 1);
    }

    #[test]
    fn positions_keep_reading_errors() {
        assert_eq!(
            read_document_with_positions("a: 1\na: 2\n").unwrap_err(),
            read_document("a: 1\na: 2\n").unwrap_err()
        );
        assert!(read_document_with_positions("").is_err());
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert!(read_document_with_positions(&deep).is_err());
    }

    #[test]
    fn quoted_scalars_may_continue_left_of_their_block() {
        // go-yaml v2 folds the lines of a quoted scalar whatever their indentation.
        let text = "a:\n  - d: 'one two\n  three ''x''\n\n   four'\n    e: \"x\\\"y\n z\\\n w\"\n  - 1\nb: 2\n";
        assert_eq!(
            read_document(text).unwrap(),
            json!({"a": [{"d": "one two three 'x'\nfour", "e": "x\"y zw"}, 1], "b": 2})
        );
        // Positions stay those of the original text.
        let (_, map) = read_document_with_positions(text).unwrap();
        let b = map.get(&seg("b")).unwrap();
        assert_eq!((b.value.start_line, b.value.start_column), (10, 4));
        let e = map.get(&seg("a/0/e")).unwrap();
        assert_eq!(
            (e.value.start_line, e.value.start_column, e.value.end_line, e.value.end_column),
            (6, 8, 8, 4)
        );
        // A document indicator or the end of the stream still ends it with an error.
        assert!(read_document("a:\n  b: 'x\n---\n'\n").is_err());
        assert!(read_document("a:\n  b: \"x\ny").is_err());
    }
}

