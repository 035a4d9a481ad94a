//! The operations: replacing a value, inserting a mapping entry, appending a list item,
//! removing an entry or item, each as one replacement of the document's text.

use crate::text::edit::editor::{entries_in_order, is_void, items, Editor, Gap, Owner, Step};
use crate::text::edit::error::{type_name, EditError};
use crate::text::edit::pointer::escape_seg;
use crate::text::edit::text_edit::{splice, Op, Splice};
use crate::text::edit::write::{double_quote, FlowFormat};
use crate::text::source_map::{NodeStyle, PosChildren, PosNode};
use serde_json::{Map, Value};

impl<'a> Editor<'a> {
    // -----------------------------------------------------------------------------------
    // The operations.

    pub(crate) fn run(&self, doc: &'a Value, segs: &[String], op: Op) -> Result<Splice, EditError> {
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

    pub(crate) fn append_to(&self, s: &Step, v: &Value) -> Result<Splice, EditError> {
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
    pub(crate) fn replace(&self, s: &Step, v: &Value) -> Result<Splice, EditError> {
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

    pub(crate) fn replace_root(&self, s: &Step, v: &Value) -> Result<Splice, EditError> {
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
    pub(crate) fn replace_flow(&self, s: &Step, v: &Value) -> Result<Splice, EditError> {
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
    pub(crate) fn insert_entry(&self, p: &Step, key: &str, v: &Value) -> Result<Splice, EditError> {
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
    pub(crate) fn append_item(&self, p: &Step, v: &Value) -> Result<Splice, EditError> {
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
    pub(crate) fn remove_child(&self, p: &Step, c: &Step) -> Result<Splice, EditError> {
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

}
