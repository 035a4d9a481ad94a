//! Finding the text of a node: the editor over one document's text and source map, the
//! steps of a pointer's path, where values, keys, list dashes and comments stand.

use crate::text::edit::error::{type_name, EditError, Pos};
use crate::text::edit::pointer::{escape_seg, parse_index};
use crate::text::source_map::{NodeStyle, PosChildren, PosNode};
use serde_json::Value;
use std::sync::OnceLock;

// ---------------------------------------------------------------------------------------
// Finding the text of a node.

/// How a node hangs from its parent.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Owner {
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
pub(crate) struct Step<'a> {
    pub(crate) node: &'a PosNode,
    /// The collection holding it (none for the root).
    pub(crate) parent: Option<&'a PosNode>,
    pub(crate) value: &'a Value,
    pub(crate) slot: usize,
    pub(crate) owner: Owner,
    /// Inside a flow collection (or a JSON text): values are written in flow style.
    pub(crate) flow: bool,
    pub(crate) ptr: String,
}

pub(crate) struct Editor<'a> {
    pub(crate) t: &'a str,
    pub(crate) b: &'a [u8],
    pub(crate) nl: &'static str,
    pub(crate) json: bool,
    pub(crate) root: &'a PosNode,
    pub(crate) floor: usize,
    pub(crate) pointer: &'a str,
    /// (mapping indent step, list indent under a key), found on first use.
    pub(crate) layout: &'a OnceLock<(usize, usize)>,
    /// The flow separators (`:`, `,`) the text uses, found on first use.
    pub(crate) seps: &'a OnceLock<(&'static str, &'static str)>,
}

pub(crate) fn is_void(n: &PosNode) -> bool {
    matches!(n.children, PosChildren::Leaf)
        && n.value_bytes.0 == n.value_bytes.1
        && matches!(
            n.style,
            NodeStyle::Plain | NodeStyle::Literal | NodeStyle::Folded
        )
}

/// The entries of a mapping node in text order.
pub(crate) fn entries_in_order(n: &PosNode) -> Vec<(&String, &PosNode)> {
    let mut v: Vec<(&String, &PosNode)> = match &n.children {
        PosChildren::Map(m) => m.iter().collect(),
        _ => Vec::new(),
    };
    crate::go::sort::sort_by_key(&mut v, |(_, c)| c.key_bytes.map(|k| k.0).unwrap_or(c.value_bytes.0));
    v
}

pub(crate) fn items(n: &PosNode) -> &[PosNode] {
    match &n.children {
        PosChildren::Seq(v) => v,
        _ => &[],
    }
}

impl<'a> Editor<'a> {
    pub(crate) fn pos(&self, n: &PosNode) -> Option<Pos> {
        Some(Pos::of(match n.key {
            Some(k) if is_void(n) => k,
            _ => n.value,
        }))
    }

    pub(crate) fn unsupported(&self, n: Option<&PosNode>, reason: &str) -> EditError {
        EditError::Unsupported {
            pointer: self.pointer.to_string(),
            at: n.and_then(|n| self.pos(n)),
            reason: reason.to_string(),
        }
    }

    // Lines.

    pub(crate) fn line_start(&self, b: usize) -> usize {
        self.t[..b.min(self.t.len())]
            .rfind('\n')
            .map(|i| i + 1)
            .unwrap_or(0)
    }

    /// The end of the line holding `b`, before its line break.
    pub(crate) fn line_end(&self, b: usize) -> usize {
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
    pub(crate) fn next_line(&self, b: usize) -> usize {
        let b = b.min(self.t.len());
        self.t[b..]
            .find('\n')
            .map(|i| b + i + 1)
            .unwrap_or(self.t.len())
    }

    /// The column of `b` (characters from its line's start), refusing tabs in the
    /// indentation this edit would copy.
    pub(crate) fn col(&self, b: usize, n: Option<&PosNode>) -> Result<usize, EditError> {
        let prefix = &self.t[self.line_start(b)..b];
        if prefix.contains('\t') {
            return Err(self.unsupported(n, "a tab in the indentation"));
        }
        Ok(prefix.chars().count())
    }

    /// Where a block mapping entry begins: its key, or the `?` of an explicit key.
    pub(crate) fn entry_begin(&self, key: usize) -> usize {
        let before = self.t[self.line_start(key)..key].trim_end_matches([' ', '\t']);
        match before.strip_suffix('?') {
            Some(rest) if rest.is_empty() || rest.ends_with([' ', '\t', '-']) => {
                rest.len() + self.line_start(key)
            }
            _ => key,
        }
    }

    pub(crate) fn blank_before(&self, b: usize) -> bool {
        self.t[self.line_start(b)..b]
            .bytes()
            .all(|c| c == b' ' || c == b'\t')
    }

    // Tokens between nodes.

    /// Skips blanks, line breaks and comments.
    pub(crate) fn skip_blank(&self, mut i: usize, limit: usize) -> usize {
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

    pub(crate) fn token_end(&self, mut i: usize) -> usize {
        while i < self.b.len() && !matches!(self.b[i], b' ' | b'\t' | b'\r' | b'\n') {
            i += 1;
        }
        i
    }

    pub(crate) fn ends_token(&self, i: usize) -> bool {
        matches!(self.b.get(i), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
    }

    /// The byte after the `:` that follows a key ending at `key_end`.
    pub(crate) fn colon_after(&self, key_end: usize, n: &PosNode) -> Result<usize, EditError> {
        let i = self.skip_blank(key_end, self.b.len());
        if self.b.get(i) == Some(&b':') {
            Ok(i + 1)
        } else {
            Err(self.unsupported(Some(n), "no ':' after the key"))
        }
    }

    /// The first block-list `-` at or after `from` (past blanks, comments, document
    /// markers, directives, node properties and block scalar headers).
    pub(crate) fn dash_after(&self, from: usize, n: &PosNode) -> Result<usize, EditError> {
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
    pub(crate) fn dash_of(&self, seq: &Step, i: usize) -> Result<usize, EditError> {
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
    pub(crate) fn extent(&self, n: &PosNode) -> Result<(usize, bool), EditError> {
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
    pub(crate) fn after_lines(&self, end: (usize, bool)) -> usize {
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
    pub(crate) fn gap(&self, from: usize, to: usize) -> Gap {
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
    pub(crate) fn walk(&self, doc: &'a Value, segs: &[String]) -> Result<Vec<Step<'a>>, EditError> {
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

    pub(crate) fn check(&self, s: &Step) -> Result<(), EditError> {
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
    pub(crate) fn child(&self, p: &Step<'a>, seg: &str, ptr: String) -> Result<Step<'a>, EditError> {
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

}

/// What lies between a slot's start and its value: a block scalar's header, the first
/// comment on the slot's line (byte ranges).
pub(crate) struct Gap {
    pub(crate) header: Option<(usize, usize)>,
    pub(crate) comment: Option<(usize, usize)>,
}

