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

use crate::text::json::read_json;
use crate::text::read_error::{ReadError, MAX_DEPTH};
use crate::text::source_map::{NodeStyle, PosChildren, PosNode, Range, SourceMap};
use crate::text::yaml;
use serde_json::{Map, Value};
use std::fmt;
use std::sync::OnceLock;

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
    fn of(r: Range) -> Pos {
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

fn at_suffix(at: &Option<Pos>) -> String {
    match at {
        Some(p) => format!(" (line {}, column {})", p.line, p.column),
        None => String::new(),
    }
}

fn show(pointer: &str) -> &str {
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
fn utf16_point(text: &str, byte: usize) -> (u32, u32, u32) {
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

/// Replaces the value at `pointer` (inserting a missing last key at the end of its mapping).
pub fn set(text: &str, doc: Doc, pointer: &str, value: &Value) -> Result<String, EditError> {
    Ok(plan(text, doc, pointer, Op::Set(value))?.apply(text))
}

/// Removes the mapping entry or list item at `pointer`; the last entry of a block mapping
/// leaves `{}`, the last item of a block list `[]`.
pub fn remove(text: &str, doc: Doc, pointer: &str) -> Result<String, EditError> {
    Ok(plan(text, doc, pointer, Op::Remove)?.apply(text))
}

/// Appends `value` to the list at `pointer`, creating the key (with a one-item list) when
/// the pointer's last key is missing in its mapping.
pub fn append(text: &str, doc: Doc, pointer: &str, value: &Value) -> Result<String, EditError> {
    Ok(plan(text, doc, pointer, Op::Append(value))?.apply(text))
}

/// The edit [`set`], [`remove`] or [`append`] make, as one minimal replacement (for editors
/// that apply changes to their own buffer, keeping undo history and cursors).
pub fn plan(text: &str, doc: Doc, pointer: &str, op: Op) -> Result<TextEdit, EditError> {
    Prepared::new(text, doc)?.plan(pointer, op)
}

/// A text read once, for planning several edits of it (previews of several fixes): each
/// [`Prepared::plan`] is an edit of this same text.
pub struct Prepared<'t> {
    text: &'t str,
    /// The byte-order mark's length: the reader's offsets start after it.
    bom: usize,
    docs: Vec<(Value, SourceMap)>,
    index: usize,
    json: bool,
    nl: &'static str,
    floor: usize,
    layout: OnceLock<(usize, usize)>,
    seps: OnceLock<(&'static str, &'static str)>,
}

impl<'t> Prepared<'t> {
    /// Reads `text` and picks the document to edit.
    pub fn new(text: &'t str, doc: Doc) -> Result<Prepared<'t>, EditError> {
        let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
        let body = &text[bom..];
        let docs = yaml::read_documents_with_positions(body)?;
        let index = choose(&docs, doc)?;
        Ok(Prepared {
            text,
            bom,
            json: is_json(body, docs.len()),
            nl: if body.contains("\r\n") { "\r\n" } else { "\n" },
            floor: doc_floor(&docs, index),
            docs,
            index,
            layout: OnceLock::new(),
            seps: OnceLock::new(),
        })
    }

    /// The edit `op` at `pointer` makes in the text.
    pub fn plan(&self, pointer: &str, op: Op) -> Result<TextEdit, EditError> {
        let (bom, body, json) = (self.bom, &self.text[self.bom..], self.json);
        let segs = parse_pointer(pointer)?;
        let (value, map) = &self.docs[self.index];
        let Some(root) = map.root.as_ref() else {
            return Err(EditError::NotFound {
                pointer: pointer.to_string(),
                at: None,
            });
        };
        let ed = Editor {
            t: body,
            b: body.as_bytes(),
            nl: self.nl,
            json,
            root,
            floor: self.floor,
            pointer,
            layout: &self.layout,
            seps: &self.seps,
        };
        if let Op::Set(v) | Op::Append(v) = op {
            if depth_of(v) > MAX_DEPTH {
                return Err(ed.unsupported(None, "the value nests too deeply"));
            }
        }
        // The value to write as the reader will read it back (YAML turns integral floats
        // into integers), and the document the new text must hold.
        let given = match op {
            Op::Set(v) | Op::Append(v) => Some(if json { v.clone() } else { normalize(v) }),
            Op::Remove => None,
        };
        let op = match (&op, given.as_ref()) {
            (Op::Set(_), Some(v)) => Op::Set(v),
            (Op::Append(_), Some(v)) => Op::Append(v),
            _ => Op::Remove,
        };
        let expected = match expected_value(value, &segs, op, pointer) {
            Ok(v) => v,
            // The walk through the text says the same with a position.
            Err(e) => {
                return Err(match ed.run(value, &segs, op) {
                    Err(p) if std::mem::discriminant(&p) == std::mem::discriminant(&e) => p,
                    _ => e,
                })
            }
        };
        if &expected == value {
            return Ok(TextEdit {
                start: bom,
                end: bom,
                text: String::new(),
            });
        }
        let splice = ed.run(value, &segs, op)?;
        if splice.start > splice.end
            || splice.end > body.len()
            || !body.is_char_boundary(splice.start)
            || !body.is_char_boundary(splice.end)
        {
            return Err(ed.unsupported(None, "the text's layout was not understood"));
        }
        let splice = minimize(body, splice);
        let new_body = splice.apply(body);
        verify(&new_body, &self.docs, self.index, &expected, json).map_err(|reason| {
            EditError::Unverified {
                pointer: pointer.to_string(),
                reason,
            }
        })?;
        Ok(TextEdit {
            start: splice.start + bom,
            end: splice.end + bom,
            text: splice.text,
        })
    }
}

/// The document to edit.
fn choose(docs: &[(Value, SourceMap)], doc: Doc) -> Result<usize, EditError> {
    let present: Vec<usize> = (0..docs.len()).filter(|&i| !docs[i].0.is_null()).collect();
    match doc {
        Doc::Single => match present.as_slice() {
            [i] => Ok(*i),
            _ => Err(EditError::NotSingle {
                documents: present.len(),
            }),
        },
        Doc::Crd => crate::text::crd_document::choose_crd_document(docs.iter().map(|(v, _)| v))
            .map_err(|e| EditError::NoCrd(e.to_string())),
    }
}

/// A JSON text (read as JSON, not as YAML), as the reader decides it.
fn is_json(body: &str, documents: usize) -> bool {
    let t = body.trim_start();
    documents == 1 && (t.starts_with('{') || t.starts_with('[')) && read_json(t).is_ok()
}

/// Where a document's text can begin: after the previous documents' nodes.
fn doc_floor(docs: &[(Value, SourceMap)], index: usize) -> usize {
    docs[..index]
        .iter()
        .filter_map(|(_, m)| m.root.as_ref())
        .map(|r| r.value_bytes.1)
        .max()
        .unwrap_or(0)
}

/// RFC 6901: `""` is the root, otherwise `/`-separated steps with `~1` for `/` and `~0` for
/// `~`.
fn parse_pointer(pointer: &str) -> Result<Vec<String>, EditError> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(EditError::BadPointer {
            pointer: pointer.to_string(),
            reason: "it must be empty or start with /".to_string(),
        });
    };
    let mut out = Vec::new();
    for seg in rest.split('/') {
        let mut s = String::with_capacity(seg.len());
        let mut it = seg.chars();
        while let Some(c) = it.next() {
            if c == '~' {
                match it.next() {
                    Some('0') => s.push('~'),
                    Some('1') => s.push('/'),
                    _ => {
                        return Err(EditError::BadPointer {
                            pointer: pointer.to_string(),
                            reason: "~ must be followed by 0 or 1".to_string(),
                        })
                    }
                }
            } else {
                s.push(c);
            }
        }
        out.push(s);
    }
    Ok(out)
}

fn escape_seg(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// A list index as RFC 6901 writes it (no sign, no leading zero).
fn parse_index(s: &str) -> Option<usize> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) || s.len() > 1 && s.starts_with('0') {
        return None;
    }
    s.parse().ok()
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// The value as the YAML reader reads it back: integral floats become integers (json.Marshal
/// prints them without a fraction), see `yaml::float_value`.
fn normalize(v: &Value) -> Value {
    match v {
        Value::Number(n) if n.is_f64() => match n.as_f64() {
            Some(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.2e18 => {
                Value::Number((f as i64).into())
            }
            _ => v.clone(),
        },
        Value::Array(a) => Value::Array(a.iter().map(normalize).collect()),
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, v)| (k.clone(), normalize(v))).collect())
        }
        _ => v.clone(),
    }
}

/// How deeply a value nests, without recursion.
fn depth_of(v: &Value) -> usize {
    let mut max = 0;
    let mut stack = vec![(v, 1usize)];
    while let Some((v, d)) = stack.pop() {
        max = max.max(d);
        if d > MAX_DEPTH {
            break;
        }
        match v {
            Value::Array(a) => stack.extend(a.iter().map(|x| (x, d + 1))),
            Value::Object(m) => stack.extend(m.values().map(|x| (x, d + 1))),
            _ => {}
        }
    }
    max
}

/// The document after the edit, by JSON pointer operations: what the new text must read as.
fn expected_value(doc: &Value, segs: &[String], op: Op, pointer: &str) -> Result<Value, EditError> {
    let mut out = doc.clone();
    let not_found = || EditError::NotFound {
        pointer: pointer.to_string(),
        at: None,
    };
    let Some((last, parents)) = segs.split_last() else {
        return match op {
            Op::Set(v) => Ok(v.clone()),
            Op::Remove => Err(EditError::BadPointer {
                pointer: pointer.to_string(),
                reason: "the document root cannot be removed".to_string(),
            }),
            Op::Append(v) => match out {
                Value::Array(mut a) => {
                    a.push(v.clone());
                    Ok(Value::Array(a))
                }
                Value::Null => Ok(Value::Array(vec![v.clone()])),
                other => Err(EditError::NotSequence {
                    pointer: pointer.to_string(),
                    found: type_name(&other),
                    at: None,
                }),
            },
        };
    };
    let mut cur = &mut out;
    for s in parents {
        cur = match cur {
            Value::Object(m) => m.get_mut(s).ok_or_else(not_found)?,
            Value::Array(a) => {
                let len = a.len();
                parse_index(s)
                    .and_then(|i| a.get_mut(i))
                    .ok_or_else(|| EditError::OutOfRange {
                        pointer: pointer.to_string(),
                        index: s.clone(),
                        len,
                        at: None,
                    })?
            }
            other => {
                return Err(EditError::NotContainer {
                    pointer: pointer.to_string(),
                    found: type_name(other),
                    at: None,
                })
            }
        };
    }
    let out_of_range = |len: usize| EditError::OutOfRange {
        pointer: pointer.to_string(),
        index: last.clone(),
        len,
        at: None,
    };
    match (cur, op) {
        (Value::Object(m), Op::Set(v)) => {
            m.insert(last.clone(), v.clone());
        }
        (Value::Object(m), Op::Remove) => {
            m.remove(last).ok_or_else(not_found)?;
        }
        (Value::Object(m), Op::Append(v)) => match m.get_mut(last) {
            None => {
                m.insert(last.clone(), Value::Array(vec![v.clone()]));
            }
            Some(Value::Array(a)) => a.push(v.clone()),
            Some(x @ Value::Null) => *x = Value::Array(vec![v.clone()]),
            Some(other) => {
                return Err(EditError::NotSequence {
                    pointer: pointer.to_string(),
                    found: type_name(other),
                    at: None,
                })
            }
        },
        (Value::Array(a), op) => {
            let len = a.len();
            if last == "-" {
                match op {
                    Op::Set(v) => a.push(v.clone()),
                    _ => return Err(out_of_range(len)),
                }
            } else {
                let i = parse_index(last)
                    .filter(|&i| i < len)
                    .ok_or_else(|| out_of_range(len))?;
                match op {
                    Op::Set(v) => a[i] = v.clone(),
                    Op::Remove => {
                        a.remove(i);
                    }
                    Op::Append(v) => match &mut a[i] {
                        Value::Array(x) => x.push(v.clone()),
                        x @ Value::Null => *x = Value::Array(vec![v.clone()]),
                        other => {
                            return Err(EditError::NotSequence {
                                pointer: pointer.to_string(),
                                found: type_name(other),
                                at: None,
                            })
                        }
                    },
                }
            }
        }
        (other, _) => {
            return Err(EditError::NotContainer {
                pointer: pointer.to_string(),
                found: type_name(other),
                at: None,
            })
        }
    }
    Ok(out)
}

/// The new text must read as the old documents with the one change.
fn verify(
    new_body: &str,
    docs: &[(Value, SourceMap)],
    index: usize,
    expected: &Value,
    json: bool,
) -> Result<(), String> {
    if json {
        read_json(new_body.trim_start()).map_err(|e| format!("no longer JSON: {}", e))?;
    }
    let new_docs = yaml::read_documents(new_body).map_err(|e| e.to_string())?;
    if new_docs.len() != docs.len() {
        return Err(format!(
            "{} documents instead of {}",
            new_docs.len(),
            docs.len()
        ));
    }
    for (i, (new, (old, _))) in new_docs.iter().zip(docs).enumerate() {
        let want = if i == index { expected } else { old };
        if new != want {
            return Err(format!("document {} reads differently", i + 1));
        }
    }
    Ok(())
}

/// The smallest replacement with the same result: the common head and tail dropped.
fn minimize(body: &str, s: Splice) -> Splice {
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

type Splice = TextEdit;

fn splice(start: usize, end: usize, text: String) -> Splice {
    TextEdit { start, end, text }
}

// ---------------------------------------------------------------------------------------
// Finding the text of a node.

/// How a node hangs from its parent.
#[derive(Clone, Copy, Debug)]
enum Owner {
    Root,
    /// A mapping entry; where its key begins.
    Entry {
        key: usize,
    },
    /// An item of a block list; its `-`.
    BlockItem {
        dash: usize,
    },
    /// An item of a flow list.
    FlowItem,
}

/// A node on the pointer's path, with where its value's slot begins: after the key's `:`,
/// after the item's `-`, or (the root) where the document may begin.
#[derive(Clone)]
struct Step<'a> {
    node: &'a PosNode,
    /// The collection holding it (none for the root).
    parent: Option<&'a PosNode>,
    value: &'a Value,
    slot: usize,
    owner: Owner,
    /// Inside a flow collection (or a JSON text): values are written in flow style.
    flow: bool,
    ptr: String,
}

struct Editor<'a> {
    t: &'a str,
    b: &'a [u8],
    nl: &'static str,
    json: bool,
    root: &'a PosNode,
    floor: usize,
    pointer: &'a str,
    /// (mapping indent step, list indent under a key), found on first use.
    layout: &'a OnceLock<(usize, usize)>,
    /// The flow separators (`:`, `,`) the text uses, found on first use.
    seps: &'a OnceLock<(&'static str, &'static str)>,
}

fn is_void(n: &PosNode) -> bool {
    matches!(n.children, PosChildren::Leaf)
        && n.value_bytes.0 == n.value_bytes.1
        && matches!(
            n.style,
            NodeStyle::Plain | NodeStyle::Literal | NodeStyle::Folded
        )
}

/// The entries of a mapping node in text order.
fn entries_in_order(n: &PosNode) -> Vec<(&String, &PosNode)> {
    let mut v: Vec<(&String, &PosNode)> = match &n.children {
        PosChildren::Map(m) => m.iter().collect(),
        _ => Vec::new(),
    };
    v.sort_by_key(|(_, c)| c.key_bytes.map(|k| k.0).unwrap_or(c.value_bytes.0));
    v
}

fn items(n: &PosNode) -> &[PosNode] {
    match &n.children {
        PosChildren::Seq(v) => v,
        _ => &[],
    }
}

impl<'a> Editor<'a> {
    fn pos(&self, n: &PosNode) -> Option<Pos> {
        Some(Pos::of(match n.key {
            Some(k) if is_void(n) => k,
            _ => n.value,
        }))
    }

    fn unsupported(&self, n: Option<&PosNode>, reason: &str) -> EditError {
        EditError::Unsupported {
            pointer: self.pointer.to_string(),
            at: n.and_then(|n| self.pos(n)),
            reason: reason.to_string(),
        }
    }

    // Lines.

    fn line_start(&self, b: usize) -> usize {
        self.t[..b.min(self.t.len())]
            .rfind('\n')
            .map(|i| i + 1)
            .unwrap_or(0)
    }

    /// The end of the line holding `b`, before its line break.
    fn line_end(&self, b: usize) -> usize {
        let b = b.min(self.t.len());
        let n = self.t[b..]
            .find('\n')
            .map(|i| b + i)
            .unwrap_or(self.t.len());
        if n > b && self.b.get(n - 1) == Some(&b'\r') && self.b.get(n) == Some(&b'\n') {
            n - 1
        } else {
            n
        }
    }

    /// The start of the line after the one holding `b` (the text's end on the last line).
    fn next_line(&self, b: usize) -> usize {
        let b = b.min(self.t.len());
        self.t[b..]
            .find('\n')
            .map(|i| b + i + 1)
            .unwrap_or(self.t.len())
    }

    /// The column of `b` (characters from its line's start), refusing tabs in the
    /// indentation this edit would copy.
    fn col(&self, b: usize, n: Option<&PosNode>) -> Result<usize, EditError> {
        let prefix = &self.t[self.line_start(b)..b];
        if prefix.contains('\t') {
            return Err(self.unsupported(n, "a tab in the indentation"));
        }
        Ok(prefix.chars().count())
    }

    /// Where a block mapping entry begins: its key, or the `?` of an explicit key.
    fn entry_begin(&self, key: usize) -> usize {
        let before = self.t[self.line_start(key)..key].trim_end_matches([' ', '\t']);
        match before.strip_suffix('?') {
            Some(rest) if rest.is_empty() || rest.ends_with([' ', '\t', '-']) => {
                rest.len() + self.line_start(key)
            }
            _ => key,
        }
    }

    fn blank_before(&self, b: usize) -> bool {
        self.t[self.line_start(b)..b]
            .bytes()
            .all(|c| c == b' ' || c == b'\t')
    }

    // Tokens between nodes.

    /// Skips blanks, line breaks and comments.
    fn skip_blank(&self, mut i: usize, limit: usize) -> usize {
        let limit = limit.min(self.b.len());
        while i < limit {
            match self.b[i] {
                b' ' | b'\t' | b'\r' | b'\n' => i += 1,
                b'#' => {
                    while i < limit && self.b[i] != b'\n' {
                        i += 1;
                    }
                }
                _ => break,
            }
        }
        i
    }

    fn token_end(&self, mut i: usize) -> usize {
        while i < self.b.len() && !matches!(self.b[i], b' ' | b'\t' | b'\r' | b'\n') {
            i += 1;
        }
        i
    }

    fn ends_token(&self, i: usize) -> bool {
        matches!(self.b.get(i), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
    }

    /// The byte after the `:` that follows a key ending at `key_end`.
    fn colon_after(&self, key_end: usize, n: &PosNode) -> Result<usize, EditError> {
        let i = self.skip_blank(key_end, self.b.len());
        if self.b.get(i) == Some(&b':') {
            Ok(i + 1)
        } else {
            Err(self.unsupported(Some(n), "no ':' after the key"))
        }
    }

    /// The first block-list `-` at or after `from` (past blanks, comments, document
    /// markers, directives, node properties and block scalar headers).
    fn dash_after(&self, from: usize, n: &PosNode) -> Result<usize, EditError> {
        let mut i = from;
        loop {
            i = self.skip_blank(i, self.b.len());
            let at_line_start = self.line_start(i) == i;
            let rest = &self.b[i.min(self.b.len())..];
            if at_line_start
                && (rest.starts_with(b"---") || rest.starts_with(b"..."))
                && self.ends_token(i + 3)
            {
                i += 3;
            } else if at_line_start && rest.first() == Some(&b'%') {
                i = self.line_end(i);
            } else {
                match rest.first() {
                    Some(b'-') if self.ends_token(i + 1) => return Ok(i),
                    Some(b'&' | b'!' | b'|' | b'>') => i = self.token_end(i),
                    _ => return Err(self.unsupported(Some(n), "no '-' before the list item")),
                }
            }
        }
    }

    /// The `-` of item `i` of the block list `seq`.
    fn dash_of(&self, seq: &Step, i: usize) -> Result<usize, EditError> {
        let its = items(seq.node);
        let mut j = i.min(its.len());
        // An empty item's position is the token after it: count dashes from the last item
        // before that has text.
        while j > 0 && is_void(&its[j - 1]) {
            j -= 1;
        }
        let mut floor = if j == 0 {
            seq.slot
        } else {
            self.extent(&its[j - 1])?.0
        };
        loop {
            let d = self.dash_after(floor, seq.node)?;
            if j >= i {
                return Ok(d);
            }
            floor = d + 1;
            j += 1;
        }
    }

    /// Where a node's text ends (a byte on its last line), and whether it ends in a block
    /// scalar (whose trailing blank lines may belong to it). An empty value ends at its key.
    fn extent(&self, n: &PosNode) -> Result<(usize, bool), EditError> {
        let mut n = n;
        loop {
            match n.style {
                NodeStyle::BlockMap => {
                    let Some((_, c)) = entries_in_order(n).pop() else {
                        return Ok((n.value_bytes.1, false));
                    };
                    if is_void(c) {
                        // `key:` and nothing after it on the line but a header or comment.
                        let ke = c.key_bytes.map(|k| k.1).unwrap_or(c.value_bytes.1);
                        return Ok((self.line_end(ke), false));
                    }
                    n = c;
                }
                NodeStyle::BlockSeq => {
                    let Some(c) = items(n).last() else {
                        return Ok((n.value_bytes.1, false));
                    };
                    if is_void(c) {
                        return Err(self.unsupported(Some(c), "an empty list item ('-' alone)"));
                    }
                    n = c;
                }
                NodeStyle::Literal | NodeStyle::Folded => return Ok((n.value_bytes.1, true)),
                _ => return Ok((n.value_bytes.1, false)),
            }
        }
    }

    /// The start of the line after a node's text (past a block scalar's blank lines).
    fn after_lines(&self, end: (usize, bool)) -> usize {
        let mut at = self.next_line(self.line_end(end.0));
        if end.1 {
            while at < self.t.len() {
                let e = self.line_end(at);
                if !self.t[at..e].trim().is_empty() {
                    break;
                }
                let next = self.next_line(at);
                if next == at {
                    break;
                }
                at = next;
            }
        }
        at
    }

    /// A block scalar's header (`|-`, `>2`, ...) between `from` and `to`, and the first
    /// comment on `from`'s line.
    fn gap(&self, from: usize, to: usize) -> Gap {
        let (mut header, mut comment, mut newline) = (None, None, false);
        let mut i = from;
        let to = to.min(self.b.len());
        while i < to {
            match self.b[i] {
                b' ' | b'\t' | b'\r' => i += 1,
                b'\n' => {
                    newline = true;
                    i += 1;
                }
                b'#' => {
                    let e = self.line_end(i);
                    if !newline && comment.is_none() {
                        comment = Some((i, e));
                    }
                    i = e.max(i + 1);
                }
                b'|' | b'>' => {
                    let e = self.token_end(i);
                    header = Some((i, e));
                    i = e;
                }
                _ => i = self.token_end(i).max(i + 1),
            }
        }
        Gap { header, comment }
    }

    /// The path's steps from the root to the node at `segs` (which must all exist).
    fn walk(&self, doc: &'a Value, segs: &[String]) -> Result<Vec<Step<'a>>, EditError> {
        let root = Step {
            node: self.root,
            parent: None,
            value: doc,
            slot: self.floor,
            owner: Owner::Root,
            flow: self.json,
            ptr: String::new(),
        };
        self.check(&root)?;
        let mut steps = vec![root];
        for s in segs {
            let Some(p) = steps.last() else { break };
            let ptr = format!("{}/{}", p.ptr, escape_seg(s));
            let step = self.child(p, s, ptr)?;
            self.check(&step)?;
            steps.push(step);
        }
        Ok(steps)
    }

    fn check(&self, s: &Step) -> Result<(), EditError> {
        let at = self.pos(s.node);
        if s.node.style == NodeStyle::Alias {
            return Err(EditError::Alias {
                pointer: s.ptr.clone(),
                at,
            });
        }
        if s.node.anchored {
            return Err(EditError::Anchored {
                pointer: s.ptr.clone(),
                at,
            });
        }
        Ok(())
    }

    /// The step from `p` to its child `seg`.
    fn child(&self, p: &Step<'a>, seg: &str, ptr: String) -> Result<Step<'a>, EditError> {
        let flow = p.flow || matches!(p.node.style, NodeStyle::FlowMap | NodeStyle::FlowSeq);
        match p.value {
            Value::Object(m) => {
                let Some(v) = m.get(seg) else {
                    return Err(EditError::NotFound {
                        pointer: ptr,
                        at: self.pos(p.node),
                    });
                };
                let node = match &p.node.children {
                    PosChildren::Map(c) => c.get(seg),
                    _ => None,
                };
                let Some(node) = node else {
                    return Err(EditError::Merged {
                        pointer: ptr,
                        at: self.pos(p.node),
                    });
                };
                let Some((ks, ke)) = node.key_bytes else {
                    return Err(self.unsupported(Some(node), "a mapping entry without a key"));
                };
                // `{a, b}`: a flow entry may have no `:`.
                let slot = match self.colon_after(ke, node) {
                    Err(_) if flow => ke,
                    r => r?,
                };
                Ok(Step {
                    node,
                    parent: Some(p.node),
                    value: v,
                    slot,
                    owner: Owner::Entry { key: ks },
                    flow,
                    ptr,
                })
            }
            Value::Array(a) => {
                let i = parse_index(seg).filter(|&i| i < a.len()).ok_or_else(|| {
                    EditError::OutOfRange {
                        pointer: ptr.clone(),
                        index: seg.to_string(),
                        len: a.len(),
                        at: self.pos(p.node),
                    }
                })?;
                let Some(node) = items(p.node).get(i) else {
                    return Err(self.unsupported(Some(p.node), "the list's text was not found"));
                };
                let (slot, owner) = if p.node.style == NodeStyle::BlockSeq {
                    let d = self.dash_of(p, i)?;
                    (d + 1, Owner::BlockItem { dash: d })
                } else {
                    (node.value_bytes.0, Owner::FlowItem)
                };
                Ok(Step {
                    node,
                    parent: Some(p.node),
                    value: &a[i],
                    slot,
                    owner,
                    flow,
                    ptr,
                })
            }
            other => Err(EditError::NotContainer {
                pointer: ptr,
                found: type_name(other),
                at: self.pos(p.node),
            }),
        }
    }

    // -----------------------------------------------------------------------------------
    // The operations.

    fn run(&self, doc: &'a Value, segs: &[String], op: Op) -> Result<Splice, EditError> {
        let Some((last, parents)) = segs.split_last() else {
            let steps = self.walk(doc, segs)?;
            let root = &steps[0];
            return match op {
                Op::Set(v) => self.replace(root, v),
                Op::Append(v) => self.append_to(root, v),
                Op::Remove => Err(self.unsupported(None, "the document root cannot be removed")),
            };
        };
        let steps = self.walk(doc, parents)?;
        let Some(p) = steps.last() else {
            return Err(self.unsupported(None, "empty path"));
        };
        let ptr = format!("{}/{}", p.ptr, escape_seg(last));
        match (p.value, op) {
            (Value::Object(m), _) if !m.contains_key(last.as_str()) => match op {
                Op::Set(v) => self.insert_entry(p, last, v),
                Op::Append(v) => self.insert_entry(p, last, &Value::Array(vec![v.clone()])),
                Op::Remove => Err(EditError::NotFound {
                    pointer: ptr,
                    at: self.pos(p.node),
                }),
            },
            (Value::Array(_), Op::Set(v)) if last == "-" => self.append_item(p, v),
            (Value::Object(m), Op::Remove) => {
                let c = self.child(p, last, ptr)?;
                self.check(&c)?;
                let in_text = match &p.node.children {
                    PosChildren::Map(x) => x.len(),
                    _ => 0,
                };
                if in_text != m.len() {
                    return Err(EditError::Merged {
                        pointer: c.ptr.clone(),
                        at: self.pos(p.node),
                    });
                }
                self.remove_child(p, &c)
            }
            (Value::Array(_), Op::Remove) => {
                let c = self.child(p, last, ptr)?;
                self.check(&c)?;
                self.remove_child(p, &c)
            }
            (_, Op::Remove) => Err(EditError::NotContainer {
                pointer: ptr,
                found: type_name(p.value),
                at: self.pos(p.node),
            }),
            (_, Op::Set(v)) => {
                let c = self.child(p, last, ptr)?;
                self.check(&c)?;
                self.replace(&c, v)
            }
            (_, Op::Append(v)) => {
                let c = self.child(p, last, ptr)?;
                self.check(&c)?;
                self.append_to(&c, v)
            }
        }
    }

    fn append_to(&self, s: &Step, v: &Value) -> Result<Splice, EditError> {
        match s.value {
            Value::Array(_) => self.append_item(s, v),
            Value::Null => self.replace(s, &Value::Array(vec![v.clone()])),
            other => Err(EditError::NotSequence {
                pointer: s.ptr.clone(),
                found: type_name(other),
                at: self.pos(s.node),
            }),
        }
    }

    /// Replaces the value of `s` with `v`.
    fn replace(&self, s: &Step, v: &Value) -> Result<Splice, EditError> {
        let n = s.node;
        if n.tagged {
            return Err(EditError::Tagged {
                pointer: s.ptr.clone(),
                at: self.pos(n),
            });
        }
        if s.flow {
            return self.replace_flow(s, v);
        }
        // The key's or the `-`'s column, taken only where new lines are indented after it.
        let (owner, item) = match s.owner {
            Owner::Entry { key } => (self.entry_begin(key), false),
            Owner::BlockItem { dash } => (dash, true),
            Owner::Root => return self.replace_root(s, v),
            Owner::FlowItem => return self.replace_flow(s, v),
        };
        let owner_col = || self.col(owner, Some(n));
        let void = is_void(n);
        let end = if void { s.slot } else { self.extent(n)?.0 };
        let line_end = self.line_end(end);
        let Gap {
            header,
            comment: gap_comment,
        } = self.gap(
            s.slot,
            if void {
                self.line_end(s.slot)
            } else {
                n.value_bytes.0
            },
        );
        if void && n.style == NodeStyle::Plain {
            if let Some(text) = self.inline(v, None) {
                return Ok(splice(s.slot, s.slot, format!(" {}", text)));
            }
        }
        match n.style {
            NodeStyle::Plain
            | NodeStyle::SingleQuoted
            | NodeStyle::DoubleQuoted
            | NodeStyle::FlowMap
            | NodeStyle::FlowSeq
                if !void =>
            {
                if let Some(text) = self.inline(v, Some(n.style)) {
                    return Ok(splice(n.value_bytes.0, n.value_bytes.1, text));
                }
            }
            NodeStyle::Literal | NodeStyle::Folded => {
                let Some((h0, h1)) = header else {
                    return Err(self.unsupported(Some(n), "no block scalar header"));
                };
                let region_end = if void { self.line_end(h1) } else { line_end };
                let tail = self.t[h1..self.line_end(h1)].trim_end();
                if let Value::String(text) = v {
                    let content_col = if void {
                        owner_col()? + if item { 2 } else { self.layout().0 }
                    } else {
                        self.col(n.value_bytes.0, Some(n))?
                    };
                    if let Some((head, body)) = self.literal(text, content_col) {
                        return Ok(splice(h0, region_end, format!("{}{}{}", head, tail, body)));
                    }
                }
                if let Some(text) = self.inline(v, None) {
                    let tail = if tail.trim().is_empty() { "" } else { tail };
                    return Ok(splice(h0, region_end, format!("{}{}", text, tail)));
                }
            }
            NodeStyle::BlockMap => {
                if let Value::Object(m) = v {
                    if !m.is_empty() {
                        let start = n.value_bytes.0;
                        let col = self.col(start, Some(n))?;
                        let text = self.entries(m, col, None);
                        return Ok(splice(start, line_end, text[col..].to_string()));
                    }
                }
            }
            NodeStyle::BlockSeq => {
                if let Value::Array(a) = v {
                    if !a.is_empty() {
                        let dash = self.dash_of(s, 0)?;
                        let col = self.col(dash, Some(n))?;
                        let text = self.items(a, col);
                        return Ok(splice(dash, line_end, text[col..].to_string()));
                    }
                }
            }
            _ => {}
        }
        // The general form: the whole slot after `key:` or `-` rewritten, one comment kept
        // on its first line: the one on the key's line, or the one after the old value when
        // that value began on the key's line (a comment inside an old block goes with it).
        let tail = self.t[end.min(line_end)..line_end].trim();
        let same_line = void || !self.t[s.slot..n.value_bytes.0.max(s.slot)].contains('\n');
        let comment = match gap_comment {
            Some((a, b)) => Some(self.t[a..b].trim_end()),
            None if same_line && tail.starts_with('#') => Some(tail),
            None => None,
        };
        let body = if item {
            self.after_dash(v, owner_col()?)
        } else {
            self.after_key(v, owner_col()?)
        };
        let text = match comment {
            Some(c) => {
                let first = body.find(['\r', '\n']).unwrap_or(body.len());
                format!("{} {}{}", &body[..first], c, &body[first..])
            }
            None => body,
        };
        Ok(splice(s.slot, line_end.max(s.slot), text))
    }

    fn replace_root(&self, s: &Step, v: &Value) -> Result<Splice, EditError> {
        let n = s.node;
        if matches!(n.style, NodeStyle::FlowMap | NodeStyle::FlowSeq) || self.json {
            return self.replace_flow(s, v);
        }
        let (end, _) = self.extent(n)?;
        let line_end = self.line_end(end);
        let text = match (n.style, v) {
            (NodeStyle::BlockMap, Value::Object(m)) if !m.is_empty() => {
                let col = self.col(n.value_bytes.0, Some(n))?;
                self.entries(m, col, None)[col..].to_string()
            }
            (NodeStyle::BlockSeq, Value::Array(a)) if !a.is_empty() => {
                let dash = self.dash_of(s, 0)?;
                let col = self.col(dash, Some(n))?;
                return Ok(splice(
                    dash,
                    line_end,
                    self.items(a, col)[col..].to_string(),
                ));
            }
            (_, Value::Object(m)) if !m.is_empty() => self.entries(m, 0, None),
            (_, Value::Array(a)) if !a.is_empty() => self.items(a, 0),
            _ => match self.inline(v, Some(n.style)) {
                Some(t) => t,
                None => self.double(v.as_str().unwrap_or("")),
            },
        };
        Ok(splice(n.value_bytes.0, line_end, text))
    }

    /// Replaces a value written in flow style (or in a JSON text).
    fn replace_flow(&self, s: &Step, v: &Value) -> Result<Splice, EditError> {
        let n = s.node;
        let f = match s.parent {
            Some(p) if matches!(p.style, NodeStyle::FlowMap | NodeStyle::FlowSeq) => {
                self.flow_format(p, Some(n))
            }
            _ => FlowFormat::compact(self.json),
        };
        let text = match v {
            Value::Array(_) | Value::Object(_) => self.flow(v, &f, 0),
            Value::String(x) if f.json => double_quote(x),
            _ => self.scalar(v, true, false, Some(n.style)),
        };
        if is_void(n) {
            // `{a}` or `{a: }`: the value goes after the key's `:` (written if missing).
            let Some((_, ke)) = n.key_bytes else {
                return Err(self.unsupported(Some(n), "an empty flow list item"));
            };
            let i = self.skip_blank(ke, self.b.len());
            return Ok(if self.b.get(i) == Some(&b':') {
                if self.b.get(i + 1) == Some(&b' ') {
                    splice(i + 2, i + 2, text)
                } else {
                    splice(i + 1, i + 1, format!(" {}", text))
                }
            } else {
                splice(ke, ke, format!(": {}", text))
            });
        }
        Ok(splice(n.value_bytes.0, n.value_bytes.1, text))
    }

    /// Inserts `key: v` at the end of the mapping `p`.
    fn insert_entry(&self, p: &Step, key: &str, v: &Value) -> Result<Splice, EditError> {
        let n = p.node;
        match n.style {
            NodeStyle::FlowMap => {
                let entries = entries_in_order(n);
                let last = entries.last().map(|(_, c)| *c);
                let f = self.flow_format(n, last);
                let entry = format!(
                    "{}{}{}",
                    self.flow_key(key, f.json),
                    f.colon,
                    self.flow(v, &f, 0)
                );
                Ok(match last {
                    // `{}`: the entry goes inside the braces.
                    None => splice(n.value_bytes.0 + 1, n.value_bytes.0 + 1, entry),
                    Some(last) => {
                        let end = self.flow_end(last);
                        splice(end, end, format!("{}{}", f.separator(self.nl), entry))
                    }
                })
            }
            NodeStyle::BlockMap => {
                let entries = entries_in_order(n);
                let Some((_, last)) = entries.last() else {
                    return Err(self.unsupported(Some(n), "an empty block mapping"));
                };
                let Some((ks, _)) = last.key_bytes else {
                    return Err(self.unsupported(Some(last), "a mapping entry without a key"));
                };
                let col = self.col(self.entry_begin(ks), Some(last))?;
                let quote = match self.b.get(ks) {
                    Some(b'"') => Some(NodeStyle::DoubleQuoted),
                    Some(b'\'') => Some(NodeStyle::SingleQuoted),
                    _ => None,
                };
                let end = if is_void(last) {
                    (
                        self.colon_after(last.key_bytes.map(|k| k.1).unwrap_or(ks), last)?,
                        false,
                    )
                } else {
                    self.extent(last)?
                };
                let at = self.after_lines(end);
                let mut text = format!(
                    "{}{}:{}{}",
                    " ".repeat(col),
                    self.scalar(&Value::String(key.to_string()), false, true, quote),
                    self.after_key(v, col),
                    self.nl
                );
                if at == self.t.len() && !self.t.ends_with('\n') {
                    text = format!("{}{}", self.nl, text.trim_end_matches(['\r', '\n']));
                }
                Ok(splice(at, at, text))
            }
            _ => Err(self.unsupported(Some(n), "not a mapping written in the text")),
        }
    }

    /// Appends `v` to the list `p`.
    fn append_item(&self, p: &Step, v: &Value) -> Result<Splice, EditError> {
        let n = p.node;
        match n.style {
            NodeStyle::FlowSeq => {
                let last = items(n).last();
                let f = self.flow_format(n, last);
                let item = self.flow(v, &f, 0);
                Ok(match last {
                    None => splice(n.value_bytes.0 + 1, n.value_bytes.0 + 1, item),
                    Some(last) => {
                        let end = self.flow_end(last);
                        splice(end, end, format!("{}{}", f.separator(self.nl), item))
                    }
                })
            }
            NodeStyle::BlockSeq => {
                let its = items(n);
                let last = its.len().saturating_sub(1);
                let dash = self.dash_of(p, last)?;
                let col = self.col(dash, Some(n))?;
                let end = match its.last() {
                    Some(c) if !is_void(c) => self.extent(c)?,
                    _ => (dash + 1, false),
                };
                let at = self.after_lines(end);
                let mut text =
                    format!("{}-{}{}", " ".repeat(col), self.after_dash(v, col), self.nl);
                if at == self.t.len() && !self.t.ends_with('\n') {
                    text = format!("{}{}", self.nl, text.trim_end_matches(['\r', '\n']));
                }
                Ok(splice(at, at, text))
            }
            _ => Err(self.unsupported(Some(n), "not a list written in the text")),
        }
    }

    /// Removes the entry or item `c` of `p`.
    fn remove_child(&self, p: &Step, c: &Step) -> Result<Splice, EditError> {
        let n = p.node;
        match n.style {
            NodeStyle::FlowMap | NodeStyle::FlowSeq => {
                let kids: Vec<&PosNode> = match &n.children {
                    PosChildren::Map(_) => {
                        entries_in_order(n).into_iter().map(|(_, c)| c).collect()
                    }
                    _ => items(n).iter().collect(),
                };
                let i = kids
                    .iter()
                    .position(|k| std::ptr::eq(*k, c.node))
                    .ok_or_else(|| self.unsupported(Some(c.node), "the entry was not found"))?;
                let start = |k: &PosNode| k.key_bytes.map(|x| x.0).unwrap_or(k.value_bytes.0);
                if kids.len() == 1 {
                    let (open, close) = n.value_bytes;
                    return Ok(splice(
                        open + 1,
                        close.saturating_sub(1).max(open + 1),
                        String::new(),
                    ));
                }
                if i + 1 < kids.len() {
                    Ok(splice(start(kids[i]), start(kids[i + 1]), String::new()))
                } else {
                    Ok(splice(
                        self.flow_end(kids[i - 1]),
                        self.flow_end(kids[i]),
                        String::new(),
                    ))
                }
            }
            NodeStyle::BlockMap | NodeStyle::BlockSeq => {
                let count = match &n.children {
                    PosChildren::Map(m) => m.len(),
                    PosChildren::Seq(v) => v.len(),
                    _ => 0,
                };
                if count == 1 {
                    // The last entry leaves an empty flow collection behind.
                    let empty = if n.style == NodeStyle::BlockMap {
                        Value::Object(Map::new())
                    } else {
                        Value::Array(Vec::new())
                    };
                    return self.replace(p, &empty);
                }
                // Where the entry begins: its key, or its `-`.
                let (begin, next) = if n.style == NodeStyle::BlockMap {
                    let entries = entries_in_order(n);
                    let i = entries
                        .iter()
                        .position(|(_, k)| std::ptr::eq(*k, c.node))
                        .ok_or_else(|| self.unsupported(Some(c.node), "the entry was not found"))?;
                    let begin = self.entry_begin(
                        c.node
                            .key_bytes
                            .map(|k| k.0)
                            .unwrap_or(c.node.value_bytes.0),
                    );
                    let next = entries
                        .get(i + 1)
                        .and_then(|(_, k)| k.key_bytes.map(|x| x.0));
                    (begin, next)
                } else {
                    let i = items(n)
                        .iter()
                        .position(|k| std::ptr::eq(k, c.node))
                        .ok_or_else(|| self.unsupported(Some(c.node), "the item was not found"))?;
                    let dash = c.slot.saturating_sub(1);
                    let next = if i + 1 < count {
                        Some(self.dash_of(p, i + 1)?)
                    } else {
                        None
                    };
                    (dash, next)
                };
                if self.blank_before(begin) {
                    // Whole lines go.
                    let end = if is_void(c.node) {
                        (c.slot, false)
                    } else {
                        self.extent(c.node)?
                    };
                    let stop = self.next_line(self.line_end(end.0));
                    return Ok(splice(self.line_start(begin), stop, String::new()));
                }
                // The first entry of a mapping in a list item (`- key: v`): the next entry
                // moves up behind the `- `.
                match next {
                    Some(nx) => Ok(splice(begin, nx, String::new())),
                    None => {
                        Err(self.unsupported(Some(c.node), "an entry that does not begin its line"))
                    }
                }
            }
            _ => Err(self.unsupported(Some(n), "not a collection written in the text")),
        }
    }

    // -----------------------------------------------------------------------------------
    // Flow layout.

    /// Where a flow entry's text ends.
    fn flow_end(&self, k: &PosNode) -> usize {
        if is_void(k) {
            match k.key_bytes {
                Some((_, ke)) => {
                    let i = self.skip_blank(ke, self.b.len());
                    if self.b.get(i) == Some(&b':') {
                        let mut j = i + 1;
                        while matches!(self.b.get(j), Some(b' ' | b'\t')) {
                            j += 1;
                        }
                        j
                    } else {
                        ke
                    }
                }
                None => k.value_bytes.0,
            }
        } else {
            k.value_bytes.1
        }
    }

    /// How to write into the flow collection `n` beside its child `near`: JSON when the
    /// text is JSON or the mapping's keys are double-quoted; the `:` and `,` separators the
    /// collection uses; one entry per line (indented as `near`, nested values one step
    /// deeper) when `near` begins its line.
    fn flow_format(&self, n: &PosNode, near: Option<&PosNode>) -> FlowFormat {
        let start = |k: &PosNode| k.key_bytes.map(|x| x.0).unwrap_or(k.value_bytes.0);
        let mut f = FlowFormat::compact(self.json);
        let (colon, comma) = self.flow_separators();
        f.colon = colon.to_string();
        f.comma = comma.to_string();
        let kids: Vec<&PosNode> = match &n.children {
            PosChildren::Map(_) => entries_in_order(n).into_iter().map(|(_, c)| c).collect(),
            _ => items(n).iter().collect(),
        };
        if let Some((ks, _)) = kids.last().and_then(|k| k.key_bytes) {
            f.json |= self.b.get(ks) == Some(&b'"');
        }
        if let Some(k) = near {
            if let Some((_, ke)) = k.key_bytes {
                if !is_void(k) && ke <= k.value_bytes.0 {
                    let between = &self.t[ke..k.value_bytes.0];
                    if between.trim() == ":" && !between.contains('\n') {
                        f.colon = between.to_string();
                    }
                }
            }
        }
        if let [.., a, b] = kids.as_slice() {
            let (e, s) = (self.flow_end(a), start(b));
            if e <= s {
                let between = &self.t[e..s];
                if between.trim() == "," && !between.contains('\n') {
                    f.comma = between.to_string();
                }
            }
        }
        if let Some(k) = near {
            let at = start(k);
            let open_line = self.line_start(n.value_bytes.0);
            if self.blank_before(at) && self.line_start(at) > open_line {
                let base = &self.t[self.line_start(at)..at];
                let outer_len = self.t[open_line..]
                    .bytes()
                    .take_while(|c| *c == b' ' || *c == b'\t')
                    .count();
                let outer = &self.t[open_line..open_line + outer_len];
                let unit = base
                    .strip_prefix(outer)
                    .filter(|u| !u.is_empty())
                    .unwrap_or("  ");
                f.pretty = Some(Pretty {
                    base: base.to_string(),
                    unit: unit.to_string(),
                });
            }
        }
        f
    }

    /// The `:` and `,` separators the document's flow collections use (first found in text
    /// order), for a collection that shows neither.
    fn flow_separators(&self) -> (&'static str, &'static str) {
        *self.seps.get_or_init(|| self.detect_separators())
    }

    fn detect_separators(&self) -> (&'static str, &'static str) {
        // The first separator of each kind in text order: (where, followed by a blank).
        type Seen = Option<(usize, bool)>;
        let (mut colon, mut comma): (Seen, Seen) = (None, None);
        let mut stack = vec![self.root];
        let mut seen = 0usize;
        while let Some(n) = stack.pop() {
            seen += 1;
            if seen > 200_000 {
                break;
            }
            let flow = matches!(n.style, NodeStyle::FlowMap | NodeStyle::FlowSeq);
            let kids: Vec<&PosNode> = match &n.children {
                PosChildren::Map(_) => entries_in_order(n).into_iter().map(|(_, c)| c).collect(),
                PosChildren::Seq(v) => v.iter().collect(),
                PosChildren::Leaf => Vec::new(),
            };
            if flow {
                for k in &kids {
                    if let Some((_, ke)) = k.key_bytes {
                        if !is_void(k)
                            && ke <= k.value_bytes.0
                            && colon.map(|c| ke < c.0).unwrap_or(true)
                        {
                            let between = &self.t[ke..k.value_bytes.0];
                            if between.trim() == ":" && !between.contains('\n') {
                                colon = Some((ke, between.len() > 1));
                            }
                        }
                    }
                }
                for w in kids.windows(2) {
                    let e = self.flow_end(w[0]);
                    let st = w[1].key_bytes.map(|x| x.0).unwrap_or(w[1].value_bytes.0);
                    if e <= st && comma.map(|c| e < c.0).unwrap_or(true) {
                        let between = &self.t[e..st];
                        if between.trim() == "," && !between.contains('\n') {
                            comma = Some((e, between.len() > 1));
                        }
                    }
                }
            }
            stack.extend(kids);
        }
        // A text that writes `"a":1` without blanks is taken as compact throughout.
        let spaced_colon = colon.map(|c| c.1).unwrap_or(true);
        let spaced_comma = comma.map(|c| c.1).unwrap_or(spaced_colon);
        (
            if spaced_colon { ": " } else { ":" },
            if spaced_comma { ", " } else { "," },
        )
    }

    // -----------------------------------------------------------------------------------
    // Writing values.

    /// (mapping indent step, list indent under a key) as the document writes them.
    fn layout(&self) -> (usize, usize) {
        *self.layout.get_or_init(|| self.detect_layout())
    }

    /// The first nested block mapping and the first block list under a key, in text order.
    fn detect_layout(&self) -> (usize, usize) {
        let mut map_ev: Option<(usize, &PosNode, &PosNode)> = None;
        let mut seq_ev: Option<(usize, &PosNode)> = None;
        let mut stack = vec![self.root];
        let mut seen = 0usize;
        while let Some(n) = stack.pop() {
            seen += 1;
            if seen > 200_000 {
                break;
            }
            match &n.children {
                PosChildren::Map(m) if n.style == NodeStyle::BlockMap => {
                    for c in m.values() {
                        let Some((ks, _)) = c.key_bytes else { continue };
                        match c.style {
                            NodeStyle::BlockMap
                                if map_ev.map(|(k, _, _)| ks < k).unwrap_or(true) =>
                            {
                                map_ev = Some((ks, n, c));
                            }
                            NodeStyle::BlockSeq if seq_ev.map(|(k, _)| ks < k).unwrap_or(true) => {
                                seq_ev = Some((ks, c));
                            }
                            _ => {}
                        }
                        stack.push(c);
                    }
                }
                PosChildren::Map(m) => stack.extend(m.values()),
                PosChildren::Seq(v) => stack.extend(v.iter()),
                PosChildren::Leaf => {}
            }
        }
        let col = |b: usize| self.t[self.line_start(b)..b].chars().count();
        let step = map_ev
            .and_then(|(ks, _, c)| {
                let first = entries_in_order(c)
                    .first()
                    .and_then(|(_, x)| x.key_bytes)?
                    .0;
                col(first).checked_sub(col(ks)).filter(|s| *s > 0)
            })
            .unwrap_or(2);
        let offset = seq_ev
            .and_then(|(ks, c)| {
                let ke = c.key_bytes?.1;
                let slot = self.colon_after(ke, c).ok()?;
                let dash = self.dash_after(slot, c).ok()?;
                col(dash).checked_sub(col(ks))
            })
            .unwrap_or(0);
        (step, offset)
    }

    /// What follows `key:` for `v`, the key at column `col`: ` scalar`, ` |` and indented
    /// lines, or a line break and the nested block.
    fn after_key(&self, v: &Value, col: usize) -> String {
        let (step, offset) = self.layout();
        match v {
            Value::Object(m) if !m.is_empty() => {
                format!("{}{}", self.nl, self.entries(m, col + step, None))
            }
            Value::Array(a) if !a.is_empty() => {
                format!("{}{}", self.nl, self.items(a, col + offset))
            }
            Value::String(s) if s.contains('\n') => match self.literal(s, col + step) {
                Some((h, b)) => format!(" {}{}", h, b),
                None => format!(" {}", self.double(s)),
            },
            _ => format!(" {}", self.inline(v, None).unwrap_or_default()),
        }
    }

    /// What follows `-` for `v`, the `-` at column `col`.
    fn after_dash(&self, v: &Value, col: usize) -> String {
        match v {
            Value::Object(m) if !m.is_empty() => {
                format!(" {}", &self.entries(m, col + 2, None)[col + 2..])
            }
            Value::Array(a) if !a.is_empty() => format!(" {}", &self.items(a, col + 2)[col + 2..]),
            Value::String(s) if s.contains('\n') => match self.literal(s, col + 2) {
                Some((h, b)) => format!(" {}{}", h, b),
                None => format!(" {}", self.double(s)),
            },
            _ => format!(" {}", self.inline(v, None).unwrap_or_default()),
        }
    }

    /// Block mapping entries at column `col`, each line indented, no final line break.
    fn entries(&self, m: &Map<String, Value>, col: usize, quote: Option<NodeStyle>) -> String {
        let mut out = String::new();
        for (i, k) in ordered_keys(m).into_iter().enumerate() {
            if i > 0 {
                out.push_str(self.nl);
            }
            out.push_str(&" ".repeat(col));
            out.push_str(&self.scalar(&Value::String(k.clone()), false, true, quote));
            out.push(':');
            out.push_str(&self.after_key(&m[k], col));
        }
        out
    }

    /// Block list items with their `-` at column `col`, each line indented.
    fn items(&self, a: &[Value], col: usize) -> String {
        let mut out = String::new();
        for (i, v) in a.iter().enumerate() {
            if i > 0 {
                out.push_str(self.nl);
            }
            out.push_str(&" ".repeat(col));
            out.push('-');
            out.push_str(&self.after_dash(v, col));
        }
        out
    }

    /// A value written on one line in block context (keeping `keep`'s quoting where the new
    /// value allows it), or `None` when it wants a block: a multi-line string outside double
    /// quotes, a non-empty collection outside flow style.
    fn inline(&self, v: &Value, keep: Option<NodeStyle>) -> Option<String> {
        match v {
            Value::String(s) if s.contains('\n') => {
                (keep == Some(NodeStyle::DoubleQuoted)).then(|| self.double(s))
            }
            Value::Array(a) if a.is_empty() => Some("[]".to_string()),
            Value::Object(m) if m.is_empty() => Some("{}".to_string()),
            Value::Array(_) | Value::Object(_) => match keep {
                Some(NodeStyle::FlowMap | NodeStyle::FlowSeq) => {
                    Some(self.flow(v, &FlowFormat::compact(false), 0))
                }
                _ => None,
            },
            _ => Some(self.scalar(v, false, false, keep)),
        }
    }

    /// A scalar: numbers, booleans and null as JSON; strings plain when they read back as
    /// themselves, else single-quoted when on one line, else double-quoted; `keep` is the
    /// quoting the replaced scalar had.
    fn scalar(&self, v: &Value, flow: bool, key: bool, keep: Option<NodeStyle>) -> String {
        let s = match v {
            Value::String(s) => s,
            Value::Null => return "null".to_string(),
            other => return other.to_string(),
        };
        if self.json {
            return self.double(s);
        }
        let single = single_ok(s);
        match keep {
            Some(NodeStyle::DoubleQuoted) => return self.double(s),
            Some(NodeStyle::SingleQuoted) if single => return single_quote(s),
            _ => {}
        }
        if plain_ok(s, flow, key) {
            s.clone()
        } else if single {
            single_quote(s)
        } else {
            self.double(s)
        }
    }

    fn double(&self, s: &str) -> String {
        double_quote(s)
    }

    /// `s` as a literal block scalar whose lines stand at column `col`: (`|` with its
    /// chomping indicator, the line break and lines), or `None` when a literal block cannot
    /// hold it exactly.
    fn literal(&self, s: &str, col: usize) -> Option<(String, String)> {
        if !s.contains('\n') || s.chars().any(|c| c != '\n' && c != '\t' && needs_escape(c)) {
            return None;
        }
        let (body, chomp) = if let Some(b) = s.strip_suffix('\n') {
            if b.ends_with('\n') || b.is_empty() {
                (b, "+")
            } else {
                (b, "")
            }
        } else {
            (s, "-")
        };
        let lines: Vec<&str> = body.split('\n').collect();
        // The first line with text sets the indentation: it may not begin with a blank,
        // and no line before it may hold spaces.
        let first = lines.iter().position(|l| !l.is_empty())?;
        if lines[first].starts_with([' ', '\t']) || lines[..first].iter().any(|l| !l.is_empty()) {
            return None;
        }
        if lines[first].trim().is_empty() {
            return None;
        }
        let mut out = String::new();
        for l in &lines {
            out.push_str(self.nl);
            if !l.is_empty() {
                out.push_str(&" ".repeat(col));
                out.push_str(l);
            }
        }
        let head = format!("|{}", chomp);
        // Read it back on its own: what the reader takes is what gets written.
        let probe = format!("k: {}{}\n", head, out.replace(self.nl, "\n"));
        let want = Value::Object(Map::from_iter([(
            "k".to_string(),
            Value::String(s.to_string()),
        )]));
        reads_as(&probe, &want).then_some((head, out))
    }

    fn flow_key(&self, key: &str, json: bool) -> String {
        if json {
            double_quote(key)
        } else {
            self.scalar(&Value::String(key.to_string()), true, true, None)
        }
    }

    /// `v` in flow style (JSON in a JSON text or next to JSON-quoted keys).
    fn flow(&self, v: &Value, f: &FlowFormat, level: usize) -> String {
        let (open, close) = match v {
            Value::Object(m) if !m.is_empty() => ('{', '}'),
            Value::Array(a) if !a.is_empty() => ('[', ']'),
            Value::Object(_) => return "{}".to_string(),
            Value::Array(_) => return "[]".to_string(),
            Value::String(s) if f.json => return double_quote(s),
            _ => return self.scalar(v, true, false, None),
        };
        let parts: Vec<String> = match v {
            Value::Object(m) => ordered_keys(m)
                .into_iter()
                .map(|k| {
                    format!(
                        "{}{}{}",
                        self.flow_key(k, f.json),
                        f.colon,
                        self.flow(&m[k], f, level + 1)
                    )
                })
                .collect(),
            Value::Array(a) => a.iter().map(|x| self.flow(x, f, level + 1)).collect(),
            _ => Vec::new(),
        };
        match &f.pretty {
            Some(p) => {
                let inner = format!("{}{}", p.base, p.unit.repeat(level + 1));
                let outer = format!("{}{}", p.base, p.unit.repeat(level));
                format!(
                    "{}{}{}{}{}{}{}",
                    open,
                    self.nl,
                    inner,
                    parts.join(&format!(",{}{}", self.nl, inner)),
                    self.nl,
                    outer,
                    close
                )
            }
            None => format!("{}{}{}", open, parts.join(&f.comma), close),
        }
    }
}

/// What lies between a slot's start and its value: a block scalar's header, the first
/// comment on the slot's line (byte ranges).
struct Gap {
    header: Option<(usize, usize)>,
    comment: Option<(usize, usize)>,
}

/// How flow values are written.
#[derive(Clone, Debug)]
struct FlowFormat {
    json: bool,
    colon: String,
    comma: String,
    pretty: Option<Pretty>,
}

#[derive(Clone, Debug)]
struct Pretty {
    /// The indentation of the entries beside which the value is written.
    base: String,
    /// One more level.
    unit: String,
}

impl FlowFormat {
    fn compact(json: bool) -> FlowFormat {
        FlowFormat {
            json,
            colon: ": ".to_string(),
            comma: ", ".to_string(),
            pretty: None,
        }
    }

    /// What goes between the last entry and a new one.
    fn separator(&self, nl: &str) -> String {
        match &self.pretty {
            Some(p) => format!(",{}{}", nl, p.base),
            None => self.comma.clone(),
        }
    }
}

/// A mapping's keys in writing order: `name` and `rule` first (a list item and a rule
/// read best that way; serde_json's maps are sorted, so the caller's order is lost), then
/// the map's order.
fn ordered_keys(m: &Map<String, Value>) -> Vec<&String> {
    let mut keys: Vec<&String> = m.keys().collect();
    keys.sort_by_key(|k| match k.as_str() {
        "name" => 0,
        "rule" => 1,
        _ => 2,
    });
    keys
}

/// Characters a YAML scalar can only hold escaped (in double quotes).
fn needs_escape(c: char) -> bool {
    (c as u32) < 0x20
        || c == '\u{7f}'
        || ('\u{80}'..='\u{9f}').contains(&c)
        || c == '\u{2028}'
        || c == '\u{2029}'
        || c == '\u{feff}'
        || c == '\u{fffe}'
        || c == '\u{ffff}'
}

fn single_ok(s: &str) -> bool {
    !s.chars().any(|c| c != '\t' && needs_escape(c)) && !s.contains('\t') && !s.contains('\n')
}

fn single_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// A double-quoted scalar with JSON escapes (valid JSON and valid YAML).
fn double_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => {
                let mut buf = [0u16; 2];
                for u in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{:04x}", u));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether `s` can be written plain and read back as the same string by go-yaml v2
/// (checked against the reader too).
fn plain_ok(s: &str, flow: bool, key: bool) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if s.starts_with([' ', '\t'])
        || s.ends_with([' ', '\t', ':'])
        || "-?:,[]{}#&*!|>'\"%@`".contains(first)
        || s.contains(": ")
        || s.contains(" #")
        || s.contains(":\t")
        || s.contains("\t#")
        || s.chars().any(|c| c == '\t' || needs_escape(c))
        || s == "<<"
        || flow && s.contains([',', '[', ']', '{', '}'])
    {
        return false;
    }
    let probe = match (flow, key) {
        (false, false) => format!("k: {}\n", s),
        (false, true) => format!("{}: 0\n", s),
        (true, false) => format!("k: [{}]\n", s),
        (true, true) => format!("k: {{{}: 0}}\n", s),
    };
    let str_ = Value::String(s.to_string());
    let want = match (flow, key) {
        (false, false) => Value::Object(Map::from_iter([("k".to_string(), str_)])),
        (false, true) => Value::Object(Map::from_iter([(s.to_string(), Value::from(0))])),
        (true, false) => Value::Object(Map::from_iter([(
            "k".to_string(),
            Value::Array(vec![str_]),
        )])),
        (true, true) => Value::Object(Map::from_iter([(
            "k".to_string(),
            Value::Object(Map::from_iter([(s.to_string(), Value::from(0))])),
        )])),
    };
    reads_as(&probe, &want)
}

fn reads_as(text: &str, want: &Value) -> bool {
    matches!(yaml::read_documents(text), Ok(d) if d.len() == 1 && &d[0] == want)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The document `doc` picks, as an index into `read_documents`.
    fn doc_index(text: &str, doc: Doc) -> usize {
        let docs = yaml::read_documents(text).unwrap();
        match doc {
            Doc::Single => docs.iter().position(|d| !d.is_null()).unwrap(),
            Doc::Crd => {
                let crd = crate::text::positions::Source::read_crd(text).unwrap().value;
                docs.iter().position(|d| d == &crd).unwrap()
            }
        }
    }

    /// The document after the edit, by serde_json's own pointer operations.
    fn expected(mut v: Value, pointer: &str, op: Op) -> Value {
        let (parent, last) = match pointer.rfind('/') {
            Some(i) => (
                &pointer[..i],
                pointer[i + 1..].replace("~1", "/").replace("~0", "~"),
            ),
            None => {
                return match (op, v) {
                    (Op::Set(x), _) => x.clone(),
                    (Op::Append(x), Value::Array(mut a)) => {
                        a.push(x.clone());
                        Value::Array(a)
                    }
                    _ => panic!("root"),
                }
            }
        };
        let target = v.pointer(pointer).cloned();
        let p = v.pointer_mut(parent).expect("parent");
        match (op, p) {
            (Op::Set(x), Value::Object(m)) => {
                m.insert(last, x.clone());
            }
            (Op::Set(x), Value::Array(a)) if last == "-" => a.push(x.clone()),
            (Op::Set(x), Value::Array(a)) => a[last.parse::<usize>().unwrap()] = x.clone(),
            (Op::Remove, Value::Object(m)) => {
                m.remove(&last);
            }
            (Op::Remove, Value::Array(a)) => {
                a.remove(last.parse::<usize>().unwrap());
            }
            (Op::Append(x), Value::Object(m)) => match target {
                Some(Value::Array(mut a)) => {
                    a.push(x.clone());
                    m.insert(last, Value::Array(a));
                }
                _ => {
                    m.insert(last, json!([x]));
                }
            },
            (Op::Append(x), Value::Array(a)) => {
                let i = last.parse::<usize>().unwrap();
                match &mut a[i] {
                    Value::Array(t) => t.push(x.clone()),
                    t => *t = json!([x]),
                }
            }
            _ => panic!("unexpected parent"),
        }
        v
    }

    /// Applies the edit and checks the round trip: the new text reads as the old documents
    /// with exactly the one change, and only bytes inside the edited node's parent changed.
    fn edit(text: &str, doc: Doc, pointer: &str, op: Op) -> String {
        let plan = plan(text, doc, pointer, op).unwrap_or_else(|e| panic!("{}: {}", pointer, e));
        let out = plan.apply(text);
        let via_api = match op {
            Op::Set(v) => set(text, doc, pointer, v),
            Op::Remove => remove(text, doc, pointer),
            Op::Append(v) => append(text, doc, pointer, v),
        }
        .unwrap();
        assert_eq!(out, via_api);
        assert_eq!(&out[..plan.start], &text[..plan.start]);
        assert_eq!(&out[plan.start + plan.text.len()..], &text[plan.end..]);
        let old = yaml::read_documents(text).unwrap();
        let new = yaml::read_documents(&out)
            .unwrap_or_else(|e| panic!("{}: does not read back: {}\n{}", pointer, e, out));
        let i = doc_index(text, doc);
        let mut want = old.clone();
        want[i] = expected(old[i].clone(), pointer, op);
        assert_eq!(new, want, "{}: reads back differently:\n{}", pointer, out);
        // The change stays inside the lines of the edited node's parent.
        let docs =
            yaml::read_documents_with_positions(text.trim_start_matches('\u{feff}')).unwrap();
        let segs = parse_pointer(pointer).unwrap();
        let mut parent = Vec::new();
        let mut cur = &old[i];
        for s in &segs[..segs.len().saturating_sub(1)] {
            match cur {
                Value::Array(a) => {
                    let k: usize = s.parse().unwrap();
                    parent.push(crate::text::source_map::PathSeg::Index(k));
                    cur = &a[k];
                }
                _ => {
                    parent.push(crate::text::source_map::PathSeg::Key(s.clone()));
                    cur = &cur[s.as_str()];
                }
            }
        }
        if plan.start == plan.end && plan.text.is_empty() {
            // No change (the value was already there).
            assert_eq!(out, text);
        } else if let Some(p) = docs[i].1.get(&parent) {
            let bom = text.len() - text.trim_start_matches('\u{feff}').len();
            let (a, b) = p.value_bytes;
            // From the parent's key line (the root: anywhere in the text before it).
            let a = match (p.key_bytes, parent.is_empty()) {
                (_, true) => 0,
                (Some((k, _)), _) => k,
                (None, _) => a,
            };
            let from = text[..a + bom].rfind('\n').map(|x| x + 1).unwrap_or(0);
            let to = text[b + bom..]
                .find('\n')
                .map(|x| b + bom + x + 1)
                .unwrap_or(text.len());
            assert!(
                plan.start >= from && plan.end <= to.max(from),
                "{}: edit {}..{} outside the parent's lines {}..{}",
                pointer,
                plan.start,
                plan.end,
                from,
                to
            );
        }
        out
    }

    fn set_(text: &str, pointer: &str, v: Value) -> String {
        edit(text, Doc::Single, pointer, Op::Set(&v))
    }

    fn remove_(text: &str, pointer: &str) -> String {
        edit(text, Doc::Single, pointer, Op::Remove)
    }

    fn append_(text: &str, pointer: &str, v: Value) -> String {
        edit(text, Doc::Single, pointer, Op::Append(&v))
    }

    const SCHEMA: &str = "\
spec:
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object # the spec
            properties:
              replicas:
                type: integer
            x-kubernetes-validations:
            - rule: \"self.replicas >= 0\"   # keep me
              message: must not be negative
            - rule: 'self.replicas < 10'
          list: {type: array, items: {type: string}}
";
    const RULES: &str =
        "/spec/versions/0/schema/openAPIV3Schema/properties/spec/x-kubernetes-validations";

    #[test]
    fn set_keeps_quoting_and_comments() {
        let out = set_(
            SCHEMA,
            &format!("{}/0/rule", RULES),
            json!("self.replicas > 0"),
        );
        assert!(
            out.contains("- rule: \"self.replicas > 0\"   # keep me\n"),
            "{}",
            out
        );
        let out = set_(SCHEMA, &format!("{}/1/rule", RULES), json!("it's 1"));
        assert!(out.contains("- rule: 'it''s 1'\n"), "{}", out);
        let out = set_(SCHEMA, &format!("{}/0/message", RULES), json!("yes"));
        assert!(out.contains("  message: 'yes'\n"), "{}", out);
        let out = set_(SCHEMA, &format!("{}/0/message", RULES), json!("a: b"));
        assert!(out.contains("  message: 'a: b'\n"), "{}", out);
        let out = set_(SCHEMA, &format!("{}/0/message", RULES), json!("tab\there"));
        assert!(out.contains("  message: \"tab\\there\"\n"), "{}", out);
        let out = set_(
            SCHEMA,
            "/spec/versions/0/schema/openAPIV3Schema/properties/spec/type",
            json!("string"),
        );
        assert!(out.contains("type: string # the spec\n"), "{}", out);
        // Numbers, booleans and null as JSON, never quoted.
        let out = set_(SCHEMA, &format!("{}/0/message", RULES), json!(12));
        assert!(out.contains("  message: 12\n"), "{}", out);
        set_(SCHEMA, &format!("{}/1/rule", RULES), json!(null));
        set_(SCHEMA, &format!("{}/1/rule", RULES), json!(true));
        set_(SCHEMA, &format!("{}/1/rule", RULES), json!(-1.5));
        // An unchanged value: no edit.
        assert_eq!(
            plan(
                SCHEMA,
                Doc::Single,
                &format!("{}/0/message", RULES),
                Op::Set(&json!("must not be negative"))
            )
            .unwrap()
            .text,
            ""
        );
    }

    #[test]
    fn strings_that_need_quotes() {
        for s in [
            "",
            " x",
            "x ",
            "yes",
            "No",
            "on",
            "~",
            "null",
            "true",
            "1",
            "0x1F",
            "017",
            "1.5",
            "1e3",
            ".inf",
            "-",
            "- x",
            "? x",
            ":x",
            ",",
            "[a]",
            "{a}",
            "#x",
            "a #b",
            "&a",
            "*a",
            "!t",
            "|",
            ">",
            "'q",
            "\"q",
            "%x",
            "@x",
            "`x",
            "a:",
            "<<",
            "x\ty",
            "é😀",
            "a'b",
            "a\"b\\c",
            "\u{7}",
            "line\u{2028}sep",
            "2024-01-01",
            "0o17",
            "+1",
            ".5",
            "1_000",
        ] {
            let text = "a: old\nb: [old]\n";
            set_(text, "/a", json!(s));
            set_(text, "/b/0", json!(s));
            set_("{\"a\": 1}", &format!("/{}", escape_seg(s)), json!(s));
            if s == "<<" {
                // The reader takes any `<<` key, quoted too, for a merge: refused.
                assert!(matches!(
                    set(text, Doc::Single, "/<<", &json!(s)),
                    Err(EditError::Unverified { .. })
                ));
                continue;
            }
            set_(text, &format!("/{}", escape_seg(s)), json!(s));
            set_("m: {a: 1}\n", &format!("/m/{}", escape_seg(s)), json!(s));
        }
        assert_eq!(set_("a: 1\n", "/a", json!("self.x > 1")), "a: self.x > 1\n");
        assert_eq!(set_("a: 1\n", "/a", json!("yes")), "a: 'yes'\n");
        assert_eq!(
            set_("a: 1\n", "/a", json!("it's\nx")),
            "a: |-\n  it's\n  x\n"
        );
        assert_eq!(set_("a: 1\n", "/a", json!("\u{1}'")), "a: \"\\u0001'\"\n");
    }

    #[test]
    fn multi_line_rules() {
        let p = format!("{}/1/rule", RULES);
        let out = set_(
            SCHEMA,
            &p,
            json!("self.replicas < 10 &&\n  self.replicas != 3"),
        );
        assert!(
            out.contains("            - rule: |-\n                self.replicas < 10 &&\n                  self.replicas != 3\n          list:"),
            "{}",
            out
        );
        // A block scalar replaced: a block again when multi-line, inline otherwise.
        let out2 = set_(&out, &p, json!("a\nb\n"));
        assert!(
            out2.contains("- rule: |\n                a\n                b\n          list:"),
            "{}",
            out2
        );
        let out3 = set_(&out2, &p, json!("a\n\n"));
        assert!(
            out3.contains("- rule: |+\n                a\n\n          list:"),
            "{}",
            out3
        );
        let out4 = set_(&out2, &p, json!("has(self.x)"));
        assert!(
            out4.contains("- rule: has(self.x)\n          list:"),
            "{}",
            out4
        );
        // A double-quoted rule stays double-quoted.
        let out5 = set_(SCHEMA, &format!("{}/0/rule", RULES), json!("a\nb"));
        assert!(out5.contains("- rule: \"a\\nb\"   # keep me\n"), "{}", out5);
        // Header comments and indentation of an existing block scalar are kept.
        let text = "a:\n  r: >-  # folded\n      one\n      two\n  b: 1\n";
        assert_eq!(
            set_(text, "/a/r", json!("x\ny")),
            "a:\n  r: |-  # folded\n      x\n      y\n  b: 1\n"
        );
        assert_eq!(
            set_(text, "/a/r", json!("x")),
            "a:\n  r: x  # folded\n  b: 1\n"
        );
        // Leading blanks cannot start a literal block: double quotes then.
        assert_eq!(set_("a: 1\n", "/a", json!("  x\ny")), "a: \"  x\\ny\"\n");
        set_("a: |\n\nb: 1\n", "/a", json!("p\nq"));
        set_("- |\n  x\n- y\n", "/0", json!("p\nq"));
        set_("- |\n  x\n- y\n", "/1", json!("p\nq"));
    }

    #[test]
    fn insert_validations_into_a_schema_node() {
        let p = "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/replicas/x-kubernetes-validations";
        let out = append_(SCHEMA, p, json!({"rule": "self >= 0", "message": "no"}));
        assert!(
            out.contains(
                "              replicas:\n                type: integer\n                x-kubernetes-validations:\n                - rule: self >= 0\n                  message: 'no'\n            x-kubernetes-validations:"
            ),
            "{}",
            out
        );
        // With `set` too.
        set_(SCHEMA, p, json!([{"rule": "self >= 0"}]));
    }

    #[test]
    fn append_and_remove_rules() {
        let out = append_(
            SCHEMA,
            RULES,
            json!({"rule": "has(self.x)", "messageExpression": "'x'"}),
        );
        assert!(
            out.contains("            - rule: 'self.replicas < 10'\n            - rule: has(self.x)\n              messageExpression: '''x'''\n          list:"),
            "{}",
            out
        );
        let out = remove_(SCHEMA, &format!("{}/0", RULES));
        assert!(
            out.contains(
                "            x-kubernetes-validations:\n            - rule: 'self.replicas < 10'\n"
            ),
            "{}",
            out
        );
        // The only rule: an empty list stays.
        let only = remove_(&out, &format!("{}/0", RULES));
        assert!(
            only.contains("            x-kubernetes-validations: []\n          list:"),
            "{}",
            only
        );
        // And a rule appended to `[]` goes into the brackets.
        let back = append_(&only, RULES, json!({"rule": "true"}));
        assert!(
            back.contains("x-kubernetes-validations: [{rule: 'true'}]\n"),
            "{}",
            back
        );
        // Removing a rule's first key moves the next one behind the `- `.
        let out = remove_(SCHEMA, &format!("{}/0/rule", RULES));
        assert!(
            out.contains("            - message: must not be negative\n            - rule:"),
            "{}",
            out
        );
        let out = remove_(SCHEMA, &format!("{}/0/message", RULES));
        assert!(
            out.contains(
                "            - rule: \"self.replicas >= 0\"   # keep me\n            - rule:"
            ),
            "{}",
            out
        );
        // Removing a whole mapping entry takes its lines.
        let out = remove_(
            SCHEMA,
            "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties",
        );
        assert!(
            out.contains("type: object # the spec\n            x-kubernetes-validations:"),
            "{}",
            out
        );
        // The last entry of a block mapping leaves `{}`.
        let out = remove_("a:\n  b: 1 # c\nz: 2\n", "/a/b");
        assert_eq!(out, "a: {}\nz: 2\n");
        let out = remove_("a:\n- 1\n- 2\n", "/a/1");
        assert_eq!(out, "a:\n- 1\n");
        let out = remove_("a:\n- 1\n", "/a/0");
        assert_eq!(out, "a: []\n");
        remove_("- - a\n  - b\n- c\n", "/0/0");
        remove_("- - a\n  - b\n- c\n", "/0/1");
        remove_("- - a\n  - b\n- c\n", "/1");
        remove_("- a: 1\n  b:\n- c\n", "/0/b");
        remove_("- a: 1\n  b:\n- c\n", "/0");
        append_("- a: 1\n  b:\n- c\n", "", json!("d"));
        append_(
            "x:\n  - a: 1\n    b:\n",
            "/x",
            json!({"k": [1, 2], "m": {"n": "o"}, "e": []}),
        );
    }

    #[test]
    fn list_indentation_follows_the_file() {
        let indented = "a:\n  b:\n    - x\n  c: 1\n";
        assert_eq!(
            append_(indented, "/a/d", json!("z")),
            "a:\n  b:\n    - x\n  c: 1\n  d:\n    - z\n"
        );
        assert_eq!(
            append_(indented, "/a/b", json!("z")),
            "a:\n  b:\n    - x\n    - z\n  c: 1\n"
        );
        let flat = "a:\n  b:\n  - x\n  c: 1\n";
        assert_eq!(
            append_(flat, "/a/d", json!("z")),
            "a:\n  b:\n  - x\n  c: 1\n  d:\n  - z\n"
        );
        // `y` is a boolean to go-yaml v2.
        assert_eq!(
            append_(flat, "/a/b", json!("y")),
            "a:\n  b:\n  - x\n  - 'y'\n  c: 1\n"
        );
        // Nested values: mappings one step in, lists in a list item.
        assert_eq!(
            set_(
                "a: 1\n",
                "/b",
                json!({"c": {"d": [1, {"e": "f", "g": [true]}]}})
            ),
            "a: 1\nb:\n  c:\n    d:\n    - 1\n    - e: f\n      g:\n      - true\n"
        );
        assert_eq!(
            set_("a:\n    b: 1\n", "/a/c", json!({"d": 1})),
            "a:\n    b: 1\n    c:\n        d: 1\n"
        );
        assert_eq!(
            set_("- a\n", "/0", json!([[1, 2], "x"])),
            "- - - 1\n    - 2\n  - x\n"
        );
        // Replacing a block mapping with another keeps its place and comments before it.
        assert_eq!(
            set_(
                "a: # c\n  # d\n  b: 1\n  c: 2\nz: 0\n",
                "/a",
                json!({"x": 1})
            ),
            "a: # c\n  # d\n  x: 1\nz: 0\n"
        );
        assert_eq!(
            set_("a: # c\n  b: 1\nz: 0\n", "/a", json!(5)),
            "a: 5 # c\nz: 0\n"
        );
        assert_eq!(
            set_("a: 5 # c\nz: 0\n", "/a", json!([1])),
            "a: # c\n- 1\nz: 0\n"
        );
        assert_eq!(
            set_("a:\nz: 0\n", "/a", json!({"k": "v"})),
            "a:\n  k: v\nz: 0\n"
        );
        assert_eq!(
            set_("a:   # c\nz: 0\n", "/a", json!("v")),
            "a: v   # c\nz: 0\n"
        );
    }

    #[test]
    fn flow_collections() {
        // maxItems on a node written in flow style.
        let p = "/spec/versions/0/schema/openAPIV3Schema/properties/list";
        let out = set_(SCHEMA, &format!("{}/maxItems", p), json!(100));
        assert!(
            out.contains("list: {type: array, items: {type: string}, maxItems: 100}\n"),
            "{}",
            out
        );
        let out = set_(SCHEMA, &format!("{}/items/maxLength", p), json!(64));
        assert!(
            out.contains("items: {type: string, maxLength: 64}}"),
            "{}",
            out
        );
        let out = set_(
            SCHEMA,
            &format!("{}/items", p),
            json!({"type": "string", "enum": ["a", "b c", "d,e"]}),
        );
        assert!(
            out.contains("items: {enum: [a, b c, 'd,e'], type: string}}"),
            "{}",
            out
        );
        let out = remove_(SCHEMA, &format!("{}/type", p));
        assert!(out.contains("list: {items: {type: string}}\n"), "{}", out);
        let out = remove_(SCHEMA, &format!("{}/items", p));
        assert!(out.contains("list: {type: array}\n"), "{}", out);
        assert_eq!(remove_("a: {b: 1}\n", "/a/b"), "a: {}\n");
        assert_eq!(set_("a: {}\n", "/a/b", json!("x y")), "a: {b: x y}\n");
        assert_eq!(append_("a: []\n", "/a", json!("x")), "a: [x]\n");
        assert_eq!(append_("a: [1,2]\n", "/a", json!(3)), "a: [1,2,3]\n");
        assert_eq!(
            edit("a: [1, 2]\n", Doc::Single, "/a/-", Op::Set(&json!(3))),
            "a: [1, 2, 3]\n"
        );
        assert_eq!(remove_("a: [1, 2, 3]\n", "/a/1"), "a: [1, 3]\n");
        assert_eq!(remove_("a: [1, 2, 3]\n", "/a/2"), "a: [1, 2]\n");
        assert_eq!(
            set_("a: [1, 2]\n", "/a/0", json!("x\ny")),
            "a: [\"x\\ny\", 2]\n"
        );
        assert_eq!(
            set_("a: {\"k\": 1}\n", "/a/m", json!("v")),
            "a: {\"k\": 1, \"m\": \"v\"}\n"
        );
        assert_eq!(set_("a: {b, c: }\n", "/a/b", json!(1)), "a: {b: 1, c: }\n");
        assert_eq!(set_("a: {b, c: }\n", "/a/c", json!(1)), "a: {b, c: 1}\n");
        assert_eq!(
            set_("a: {b, c: }\n", "/a/d", json!(1)),
            "a: {b, c: , d: 1}\n"
        );
        assert_eq!(remove_("a: {b, c: }\n", "/a/c"), "a: {b}\n");
        set_("a: [\n  1,\n  2\n]\n", "/a/1", json!({"x": 1}));
        set_("a: {b: 1}\n", "/a", json!({"x": [1]}));
    }

    const PRETTY: &str = "{\n  \"apiVersion\": \"v1\",\n  \"spec\": {\n    \"list\": [\n      1\n    ],\n    \"empty\": []\n  }\n}\n";

    #[test]
    fn json_texts() {
        assert_eq!(
            set_(PRETTY, "/spec/x", json!({"a": [1, "b"]})),
            "{\n  \"apiVersion\": \"v1\",\n  \"spec\": {\n    \"list\": [\n      1\n    ],\n    \"empty\": [],\n    \"x\": {\n      \"a\": [\n        1,\n        \"b\"\n      ]\n    }\n  }\n}\n"
        );
        assert_eq!(
            append_(PRETTY, "/spec/list", json!("two")),
            "{\n  \"apiVersion\": \"v1\",\n  \"spec\": {\n    \"list\": [\n      1,\n      \"two\"\n    ],\n    \"empty\": []\n  }\n}\n"
        );
        assert_eq!(
            append_(PRETTY, "/spec/empty", json!({"rule": "self > 0"})),
            PRETTY.replace("\"empty\": []", "\"empty\": [{\"rule\": \"self > 0\"}]")
        );
        assert_eq!(
            remove_(PRETTY, "/spec/empty"),
            "{\n  \"apiVersion\": \"v1\",\n  \"spec\": {\n    \"list\": [\n      1\n    ]\n  }\n}\n"
        );
        assert_eq!(
            remove_(PRETTY, "/spec/list"),
            "{\n  \"apiVersion\": \"v1\",\n  \"spec\": {\n    \"empty\": []\n  }\n}\n"
        );
        remove_(PRETTY, "/spec/list/0");
        set_(PRETTY, "/apiVersion", json!("it's \"x\"\n"));
        set_(PRETTY, "/spec/list/0", json!({"a": {}}));
        set_(PRETTY, "/spec", json!(1.5));
        let one = "{\"a\":1,\"b\":{\"c\":[true]}}";
        assert_eq!(
            set_(one, "/b/d", json!(null)),
            "{\"a\":1,\"b\":{\"c\":[true],\"d\":null}}"
        );
        assert_eq!(
            append_(one, "/b/c", json!(2.5)),
            "{\"a\":1,\"b\":{\"c\":[true,2.5]}}"
        );
        assert_eq!(remove_(one, "/a"), "{\"b\":{\"c\":[true]}}");
        assert_eq!(
            set_(one, "/a", json!("x")),
            "{\"a\":\"x\",\"b\":{\"c\":[true]}}"
        );
        // JSON keeps 2.0 a float.
        assert_eq!(
            set_(one, "/a", json!(2.0)),
            "{\"a\":2.0,\"b\":{\"c\":[true]}}"
        );
        // And YAML reads it back as the integer Kubernetes sees.
        assert_eq!(
            set("a: 1\n", Doc::Single, "/a", &json!(2.0)).unwrap(),
            "a: 2\n"
        );
        set_("[1, {\"a\": 2}]", "/1/a", json!([]));
        append_("[1, {\"a\": 2}]", "", json!(3));
    }

    #[test]
    fn crd_after_another_document() {
        let text = format!(
            "# leading\napiVersion: v1\nkind: Namespace\nmetadata: {{name: x}}\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n{}---\nkind: Other\nspec: {{a: 1}}\n",
            SCHEMA
        );
        let out = edit(
            &text,
            Doc::Crd,
            &format!("{}/1/rule", RULES),
            Op::Set(&json!("self.replicas < 5")),
        );
        assert!(out.contains("- rule: 'self.replicas < 5'"), "{}", out);
        let out = edit(
            &text,
            Doc::Crd,
            "/spec/group",
            Op::Set(&json!("example.com")),
        );
        assert!(out.contains("  list: {type: array, items: {type: string}}\n  group: example.com\n---\nkind: Other"), "{}", out);
        edit(&text, Doc::Crd, RULES, Op::Append(&json!({"rule": "x"})));
        edit(&text, Doc::Crd, "/kind", Op::Remove);
        assert!(matches!(
            set(&text, Doc::Single, "/a", &json!(1)),
            Err(EditError::NotSingle { documents: 3 })
        ));
        // A list as the root of a later document.
        let list = "a: 1\n--- # c\n- x\n- y\n";
        assert!(matches!(
            set(list, Doc::Crd, "/a", &json!(1)),
            Err(EditError::NoCrd(_))
        ));
        let two = "---\n- x\n- y\n";
        assert_eq!(append_(two, "", json!("z")), "---\n- x\n- y\n- z\n");
        assert_eq!(remove_(two, "/0"), "---\n- y\n");
    }

    #[test]
    fn line_endings_byte_order_mark_and_wide_characters() {
        let crlf = SCHEMA.replace('\n', "\r\n");
        let out = edit(
            &crlf,
            Doc::Single,
            RULES,
            Op::Append(&json!({"rule": "a\nb", "message": "m"})),
        );
        assert!(!out.replace("\r\n", "").contains('\n'), "{:?}", out);
        assert!(out.contains("\r\n            - rule: |-\r\n                a\r\n                b\r\n              message: m\r\n"), "{:?}", out);
        edit(&crlf, Doc::Single, &format!("{}/0", RULES), Op::Remove);
        edit(
            &crlf,
            Doc::Single,
            &format!("{}/1/rule", RULES),
            Op::Set(&json!("x\ny\n")),
        );
        edit(
            &crlf,
            Doc::Single,
            "/spec/versions/0/schema/openAPIV3Schema/properties/list/x",
            Op::Set(&json!(1)),
        );
        let wide = "a: \"é😀 ü\"  # ✓ ok\nb:\n  c: 'ß'\n  d: [日本, 語]\n";
        assert_eq!(
            set_(wide, "/b/c", json!("ñ")),
            "a: \"é😀 ü\"  # ✓ ok\nb:\n  c: 'ñ'\n  d: [日本, 語]\n"
        );
        assert_eq!(
            append_(wide, "/b/d", json!("字")),
            "a: \"é😀 ü\"  # ✓ ok\nb:\n  c: 'ß'\n  d: [日本, 語, 字]\n"
        );
        let bom = format!("\u{feff}{}", wide);
        let e = plan(&bom, Doc::Single, "/b/c", Op::Set(&json!("x"))).unwrap();
        // Only the changed character is replaced.
        assert_eq!((&bom[e.start..e.end], e.text.as_str()), ("ß", "x"));
        let r = e.range(&bom);
        assert_eq!((r.start_line, r.start_column, r.end_column), (3, 7, 8));
        assert_eq!(
            bom.encode_utf16().nth(r.start_offset as usize),
            Some('ß' as u16)
        );
        edit(&bom, Doc::Single, "/b/e", Op::Set(&json!("x")));
    }

    #[test]
    fn quoted_and_escaped_keys() {
        let text = "\"a/b\": 1\n'c~d': {\"e/f~g\": 2}\nh:\n  \"i\": 3\n";
        assert_eq!(
            set_(text, "/a~1b", json!(5)),
            "\"a/b\": 5\n'c~d': {\"e/f~g\": 2}\nh:\n  \"i\": 3\n"
        );
        assert_eq!(
            set_(text, "/c~0d/e~1f~0g", json!("x")),
            "\"a/b\": 1\n'c~d': {\"e/f~g\": \"x\"}\nh:\n  \"i\": 3\n"
        );
        assert_eq!(
            set_(text, "/h/j", json!(4)),
            "\"a/b\": 1\n'c~d': {\"e/f~g\": 2}\nh:\n  \"i\": 3\n  \"j\": 4\n"
        );
        assert_eq!(set_(text, "/k~1l", json!(4)), format!("{}k/l: 4\n", text));
        remove_(text, "/c~0d/e~1f~0g");
        remove_(text, "/a~1b");
        // Keys that YAML would read as something else are quoted.
        assert_eq!(set_("a: 1\n", "/on", json!(1)), "a: 1\n'on': 1\n");
        assert_eq!(set_("a: 1\n", "/1.0", json!(1)), "a: 1\n'1.0': 1\n");
        // A key the reader resolved (`on:` is "true").
        assert_eq!(set_("on: 1\n", "/true", json!(2)), "on: 2\n");
    }

    #[test]
    fn errors_not_panics() {
        let text = "a: 1\nb: [1, 2]\nc: &x {d: 1}\ne: *x\nf:\n  <<: *x\n  g: 2\n";
        let err = |p: &str, op: Op| plan(text, Doc::Single, p, op).unwrap_err();
        let v = json!(7);
        assert!(matches!(
            err("/a/x", Op::Set(&v)),
            EditError::NotContainer { .. }
        ));
        assert!(matches!(
            err("/b/2", Op::Set(&v)),
            EditError::OutOfRange { len: 2, .. }
        ));
        assert!(matches!(
            err("/b/01", Op::Remove),
            EditError::OutOfRange { .. }
        ));
        assert!(matches!(
            err("/b/x", Op::Remove),
            EditError::OutOfRange { .. }
        ));
        assert!(matches!(err("/zz", Op::Remove), EditError::NotFound { .. }));
        assert!(matches!(
            err("/zz/y", Op::Set(&v)),
            EditError::NotFound { .. }
        ));
        assert!(matches!(
            err("/a", Op::Append(&v)),
            EditError::NotSequence { .. }
        ));
        assert!(matches!(err("a", Op::Remove), EditError::BadPointer { .. }));
        assert!(matches!(
            err("/a~2", Op::Remove),
            EditError::BadPointer { .. }
        ));
        assert!(matches!(err("", Op::Remove), EditError::BadPointer { .. }));
        let e = err("/e/d", Op::Set(&v));
        assert!(matches!(e, EditError::Alias { .. }), "{:?}", e);
        assert_eq!(
            e.to_string(),
            "/e: the node is an alias (line 4, column 4); edit the anchored node it repeats"
        );
        assert!(matches!(err("/e", Op::Set(&v)), EditError::Alias { .. }));
        assert!(matches!(
            err("/c/d", Op::Set(&v)),
            EditError::Anchored { .. }
        ));
        assert!(matches!(err("/f/d", Op::Set(&v)), EditError::Merged { .. }));
        assert!(matches!(err("/f/g", Op::Remove), EditError::Merged { .. }));
        // Editing beside an alias is fine.
        set_(text, "/f/g", json!(3));
        set_(text, "/a", json!(3));
        assert!(matches!(
            set("a: !!str 1\n", Doc::Single, "/a", &v),
            Err(EditError::Tagged { .. })
        ));
        // Text that does not read: the reader's error.
        let e = set("a: [1\nb: 2\n", Doc::Single, "/a", &v).unwrap_err();
        assert!(
            matches!(e, EditError::Read(ReadError { line: Some(_), .. })),
            "{:?}",
            e
        );
        assert!(matches!(
            set("a:\n\tb: 1\n", Doc::Single, "/a", &v),
            Err(EditError::Read(_))
        ));
        assert!(matches!(
            set("", Doc::Single, "/a", &v),
            Err(EditError::NotSingle { documents: 0 })
        ));
        // Tabs where the edit would copy the indentation.
        let e = set("-\ta: 1\n", Doc::Single, "/0/b", &v).unwrap_err();
        assert!(matches!(e, EditError::Unsupported { .. }), "{:?}", e);
        assert!(e.to_string().contains("tab"), "{}", e);
        // A tab matters only where its column would be copied.
        assert_eq!(set_("-\ta: 1\n", "/0/a", json!(2)), "-\ta: 2\n");
        assert!(matches!(
            set("kind: Pod\n", Doc::Crd, "/a", &v),
            Err(EditError::NoCrd(_))
        ));
        // Tabs between tokens are only separators.
        assert_eq!(set_("a: \t1\t# c\n", "/a", json!(2)), "a: \t2\t# c\n");
        // Deep values are refused, not overflowed.
        let mut deep = json!(1);
        for _ in 0..2000 {
            deep = json!([deep]);
        }
        assert!(set("a: 1\n", Doc::Single, "/a", &deep).is_err());
        assert!(set("[1]", Doc::Single, "/0", &deep).is_err());
        // Odd inputs still give an answer or an error.
        for t in [
            "-\n- a\n",
            "a:\n-\n",
            "? a\n: 1\n",
            "a: |\n",
            "--- |\n  x\n",
            "[",
            "a: 'x\n",
            "\u{feff}",
            "...\n",
        ] {
            for p in ["", "/a", "/0", "/a/0", "/-", "/a/-"] {
                let _ = set(t, Doc::Single, p, &json!({"x": [1]}));
                let _ = remove(t, Doc::Single, p);
                let _ = append(t, Doc::Single, p, &json!("y"));
            }
        }
    }

    const CORPUS: &[&str] = &[
        SCHEMA,
        PRETTY,
        "{\"a\":1,\"b\":{\"c\":[true,{\"d\":null}],\"e\":{}},\"f\":[]}",
        "# head\na: 1 # one\n\n# about b\nb:\n    # inside\n    c: 'x'\n    d: \"y\"  # dq\n    e:\n      - 1\n      -   2\n      - k: v\n        l: [m, {n: o}]\n# tail\n",
        "a: |\n  literal\n  text\nb: >-\n  folded\n  text\n\nc: |+\n  keep\n\nd: plain\n  continued\ne: \"dq\n  continued\"\n",
        "- - a\n  - b\n- c: 1\n  d:\n  - e\n- {f: [g, h], i: j}\n- [k, {l: m}]\n",
        "a: {\n  b: 1,\n  c: [\n    2,\n    3\n  ]\n}\nz:\n- x\n",
        "---\nkind: A\n...\n---\nkind: CustomResourceDefinition\nspec:\n  x: [1]\n  y:\n    z: 2\n",
        "\"quoted key\": 1\n'single': {\"in\": 2}\non: 3\n? complex\n: 4\nnull: 5\n",
        "a: 1\r\nb:\r\n  - c: 2\r\n    d: |\r\n      e\r\n      f\r\n",
        "a:\n  b: c",
        "x: [a, b]",
    ];

    /// Every node of every text of the corpus: set to values of each shape, removed, appended
    /// to, given a new key; each edit must read back as intended.
    #[test]
    fn every_node_of_a_corpus() {
        let values = [
            json!("s p"),
            json!("multi\nline\n"),
            json!(7),
            json!(null),
            json!({"rule": "r", "message": "m: x"}),
            json!([1, {"a": "b", "c": [true]}]),
            json!({}),
            json!([]),
        ];
        let mut edits = 0;
        for text in CORPUS {
            let doc = if yaml::read_documents(text)
                .unwrap()
                .iter()
                .filter(|d| !d.is_null())
                .count()
                > 1
            {
                Doc::Crd
            } else {
                Doc::Single
            };
            let i = doc_index(text, doc);
            let root = yaml::read_documents(text).unwrap().swap_remove(i);
            let mut pointers = Vec::new();
            let mut stack = vec![(String::new(), &root)];
            while let Some((p, v)) = stack.pop() {
                pointers.push((p.clone(), v));
                match v {
                    Value::Object(m) => stack.extend(
                        m.iter()
                            .map(|(k, c)| (format!("{}/{}", p, escape_seg(k)), c)),
                    ),
                    Value::Array(a) => stack.extend(
                        a.iter()
                            .enumerate()
                            .map(|(k, c)| (format!("{}/{}", p, k), c)),
                    ),
                    _ => {}
                }
            }
            for (p, v) in pointers {
                for x in &values {
                    if !p.is_empty() {
                        edit(text, doc, &p, Op::Set(x));
                        edits += 1;
                    }
                    match v {
                        Value::Array(_) | Value::Null => {
                            edit(text, doc, &p, Op::Append(x));
                            edits += 1;
                        }
                        Value::Object(_) => {
                            edit(text, doc, &format!("{}/new~1key", p), Op::Set(x));
                            edit(text, doc, &format!("{}/new~1list", p), Op::Append(x));
                            edits += 2;
                        }
                        _ => {}
                    }
                }
                if !p.is_empty() {
                    edit(text, doc, &p, Op::Remove);
                    edits += 1;
                }
            }
        }
        assert!(edits > 1000, "{} edits", edits);
    }

    /// Every rule of a real CRD (2.8 MB of YAML): changed (on one line or on several, by
    /// turns), removed, and a rule added beside it; each edit read back.
    #[test]
    fn every_rule_of_a_real_crd() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "../../shared/crds/postgres-operator/config/crd/bases/postgres-operator.crunchydata.com_postgresclusters.yaml",
        );
        let Ok(text) = std::fs::read_to_string(&path) else {
            eprintln!("skipped: {} is missing", path.display());
            return;
        };
        let crd = crate::text::crd_document::parse_crd_text(&text).unwrap();
        // Every `x-kubernetes-validations` list, by pointer.
        let mut lists = Vec::new();
        let mut stack = vec![(String::new(), &crd)];
        while let Some((p, v)) = stack.pop() {
            match v {
                Value::Object(m) => {
                    for (k, c) in m {
                        let cp = format!("{}/{}", p, escape_seg(k));
                        if k == "x-kubernetes-validations" && c.is_array() {
                            lists.push((cp.clone(), c.as_array().map(Vec::len).unwrap_or(0)));
                        }
                        stack.push((cp, c));
                    }
                }
                Value::Array(a) => {
                    for (i, c) in a.iter().enumerate() {
                        stack.push((format!("{}/{}", p, i), c));
                    }
                }
                _ => {}
            }
        }
        lists.sort();
        let rules: usize = lists.iter().map(|(_, n)| n).sum();
        assert!(rules > 50, "{} rules", rules);
        let started = std::time::Instant::now();
        let jobs: Vec<(usize, &String, usize)> = lists
            .iter()
            .flat_map(|(list, n)| (0..*n).map(move |i| (list, i)))
            .enumerate()
            .map(|(k, (list, i))| (k, list, i))
            .collect();
        // The text is read once; each edit is read back twice (by the edit and here), by
        // two workers.
        let prepared = Prepared::new(&text, Doc::Crd).unwrap();
        std::thread::scope(|scope| {
            for half in jobs.chunks(jobs.len().div_ceil(2)) {
                let (text, crd, prepared) = (&text, &crd, &prepared);
                scope.spawn(move || {
                    for &(k, list, i) in half {
                        let rule = format!("{}/{}/rule", list, i);
                        let old = crd.pointer(&rule).and_then(Value::as_str).unwrap_or("true");
                        let new = if k % 2 == 0 {
                            format!("{} && true", old)
                        } else {
                            format!("{}\n|| false", old)
                        };
                        check_edit(prepared, text, crd, &rule, Op::Set(&json!(new)));
                        check_edit(prepared, text, crd, &format!("{}/{}", list, i), Op::Remove);
                        let added = json!({"rule": "self == self", "message": "added"});
                        check_edit(prepared, text, crd, list, Op::Append(&added));
                    }
                });
            }
        });
        eprintln!(
            "{} rules, {} edits in {:?}",
            rules,
            rules * 3,
            started.elapsed()
        );
    }

    /// The round trip in a large text: the CRD read back is the old one with the change.
    fn check_edit(prepared: &Prepared, text: &str, old: &Value, pointer: &str, op: Op) {
        let e = prepared
            .plan(pointer, op)
            .unwrap_or_else(|e| panic!("{}: {}", pointer, e));
        let out = e.apply(text);
        let new = crate::text::crd_document::parse_crd_text(&out).unwrap();
        assert_eq!(new, expected(old.clone(), pointer, op), "{}", pointer);
        assert!(e.end - e.start < 2000, "{}: a large edit", pointer);
    }

    /// Every CRD under ../shared/crds: each rule changed, removed and one added beside it;
    /// `maxItems` set on array schemas and a rule added to object schemas (a sample per file).
    /// Slow (a minute or more): `cargo test --release -p crdlab --lib every_shared_crd -- --ignored`.
    #[test]
    #[ignore]
    fn every_shared_crd() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/crds");
        let mut files = Vec::new();
        let mut dirs = vec![root.clone()];
        while let Some(d) = dirs.pop() {
            let Ok(rd) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in rd.flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else {
                    files.push(p);
                }
            }
        }
        if files.is_empty() {
            eprintln!("skipped: {} is missing", root.display());
            return;
        }
        files.sort();
        let (mut edits, mut failures) = (0usize, Vec::new());
        for f in &files {
            let Ok(text) = std::fs::read_to_string(f) else {
                continue;
            };
            let Ok(prepared) = Prepared::new(&text, Doc::Crd) else {
                continue;
            };
            let Ok(crd) = crate::text::crd_document::parse_crd_text(&text) else {
                continue;
            };
            let mut ops: Vec<(String, &str, Value)> = Vec::new();
            let mut stack = vec![(String::new(), &crd)];
            let (mut arrays, mut objects) = (0, 0);
            while let Some((p, v)) = stack.pop() {
                if let Value::Object(m) = v {
                    if m.get("type") == Some(&json!("array")) && arrays < 10 {
                        arrays += 1;
                        ops.push((format!("{}/maxItems", p), "set", json!(100)));
                    }
                    if m.get("type") == Some(&json!("object")) && objects < 10 {
                        objects += 1;
                        ops.push((
                            format!("{}/x-kubernetes-validations", p),
                            "append",
                            json!({"rule": "has(self.x)", "message": "x: needed"}),
                        ));
                    }
                    for (k, c) in m {
                        let cp = format!("{}/{}", p, escape_seg(k));
                        if k == "x-kubernetes-validations" {
                            for (i, r) in c.as_array().into_iter().flatten().enumerate() {
                                let rule = r.get("rule").and_then(Value::as_str).unwrap_or("");
                                ops.push((
                                    format!("{}/{}/rule", cp, i),
                                    "set",
                                    json!(format!("{}\n&& true", rule)),
                                ));
                                ops.push((
                                    format!("{}/{}/rule", cp, i),
                                    "set",
                                    json!(format!("{} || false", rule)),
                                ));
                                ops.push((format!("{}/{}", cp, i), "remove", Value::Null));
                            }
                        }
                        stack.push((cp, c));
                    }
                } else if let Value::Array(a) = v {
                    for (i, c) in a.iter().enumerate() {
                        stack.push((format!("{}/{}", p, i), c));
                    }
                }
            }
            for (p, o, v) in &ops {
                let op = match *o {
                    "set" => Op::Set(v),
                    "append" => Op::Append(v),
                    _ => Op::Remove,
                };
                edits += 1;
                match prepared.plan(p, op) {
                    Ok(e) => {
                        let out = e.apply(&text);
                        let new = crate::text::crd_document::parse_crd_text(&out).unwrap();
                        assert_eq!(new, expected(crd.clone(), p, op), "{}", p);
                    }
                    Err(e) => failures.push(format!("{}: {}: {}", f.display(), p, e)),
                }
            }
        }
        eprintln!(
            "{} files, {} edits, {} refused",
            files.len(),
            edits,
            failures.len()
        );
        for f in failures.iter().take(40) {
            eprintln!("{}", f);
        }
        assert!(failures.is_empty());
    }
}
