//! Writing values as the text around them does: flow or block style, the document's
//! indentation and separators, quoting that reads back as the same value.

use crate::text::edit::editor::{entries_in_order, is_void, items, Editor};
use crate::text::source_map::{NodeStyle, PosChildren, PosNode};
use crate::text::yaml;
use serde_json::{Map, Value};

impl<'a> Editor<'a> {
    // -----------------------------------------------------------------------------------
    // Flow layout.

    /// Where a flow entry's text ends.
    pub(crate) fn flow_end(&self, k: &PosNode) -> usize {
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
    pub(crate) fn flow_format(&self, n: &PosNode, near: Option<&PosNode>) -> FlowFormat {
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
    pub(crate) fn flow_separators(&self) -> (&'static str, &'static str) {
        *self.seps.get_or_init(|| self.detect_separators())
    }

    pub(crate) fn detect_separators(&self) -> (&'static str, &'static str) {
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
    pub(crate) fn layout(&self) -> (usize, usize) {
        *self.layout.get_or_init(|| self.detect_layout())
    }

    /// The first nested block mapping and the first block list under a key, in text order.
    pub(crate) fn detect_layout(&self) -> (usize, usize) {
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
    pub(crate) fn after_key(&self, v: &Value, col: usize) -> String {
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
    pub(crate) fn after_dash(&self, v: &Value, col: usize) -> String {
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
    pub(crate) fn entries(&self, m: &Map<String, Value>, col: usize, quote: Option<NodeStyle>) -> String {
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
    pub(crate) fn items(&self, a: &[Value], col: usize) -> String {
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
    pub(crate) fn inline(&self, v: &Value, keep: Option<NodeStyle>) -> Option<String> {
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
    pub(crate) fn scalar(&self, v: &Value, flow: bool, key: bool, keep: Option<NodeStyle>) -> String {
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

    pub(crate) fn double(&self, s: &str) -> String {
        double_quote(s)
    }

    /// `s` as a literal block scalar whose lines stand at column `col`: (`|` with its
    /// chomping indicator, the line break and lines), or `None` when a literal block cannot
    /// hold it exactly.
    pub(crate) fn literal(&self, s: &str, col: usize) -> Option<(String, String)> {
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

    pub(crate) fn flow_key(&self, key: &str, json: bool) -> String {
        if json {
            double_quote(key)
        } else {
            self.scalar(&Value::String(key.to_string()), true, true, None)
        }
    }

    /// `v` in flow style (JSON in a JSON text or next to JSON-quoted keys).
    pub(crate) fn flow(&self, v: &Value, f: &FlowFormat, level: usize) -> String {
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


/// How flow values are written.
#[derive(Clone, Debug)]
pub(crate) struct FlowFormat {
    pub(crate) json: bool,
    pub(crate) colon: String,
    pub(crate) comma: String,
    pub(crate) pretty: Option<Pretty>,
}

#[derive(Clone, Debug)]
pub(crate) struct Pretty {
    /// The indentation of the entries beside which the value is written.
    pub(crate) base: String,
    /// One more level.
    pub(crate) unit: String,
}

impl FlowFormat {
    pub(crate) fn compact(json: bool) -> FlowFormat {
        FlowFormat {
            json,
            colon: ": ".to_string(),
            comma: ", ".to_string(),
            pretty: None,
        }
    }

    /// What goes between the last entry and a new one.
    pub(crate) fn separator(&self, nl: &str) -> String {
        match &self.pretty {
            Some(p) => format!(",{}{}", nl, p.base),
            None => self.comma.clone(),
        }
    }
}

/// A mapping's keys in writing order: `name` and `rule` first (a list item and a rule
/// read best that way; serde_json's maps are sorted, so the caller's order is lost), then
/// the map's order.
pub(crate) fn ordered_keys(m: &Map<String, Value>) -> Vec<&String> {
    let mut keys: Vec<&String> = m.keys().collect();
    crate::go::sort::sort_by_key(&mut keys, |k| match k.as_str() {
        "name" => 0,
        "rule" => 1,
        _ => 2,
    });
    keys
}

/// Characters a YAML scalar can only hold escaped (in double quotes).
pub(crate) fn needs_escape(c: char) -> bool {
    (c as u32) < 0x20
        || c == '\u{7f}'
        || ('\u{80}'..='\u{9f}').contains(&c)
        || c == '\u{2028}'
        || c == '\u{2029}'
        || c == '\u{feff}'
        || c == '\u{fffe}'
        || c == '\u{ffff}'
}

pub(crate) fn single_ok(s: &str) -> bool {
    !s.chars().any(|c| c != '\t' && needs_escape(c)) && !s.contains('\t') && !s.contains('\n')
}

pub(crate) fn single_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// A double-quoted scalar with JSON escapes (valid JSON and valid YAML).
pub(crate) fn double_quote(s: &str) -> String {
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
pub(crate) fn plain_ok(s: &str, flow: bool, key: bool) -> bool {
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

pub(crate) fn reads_as(text: &str, want: &Value) -> bool {
    matches!(yaml::read_documents(text), Ok(d) if d.len() == 1 && &d[0] == want)
}

