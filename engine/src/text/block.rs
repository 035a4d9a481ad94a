//! A fast path in front of the general YAML reader ([`crate::text::yaml`]), for the
//! block-style YAML that generators and people write: controller-gen's CRDs, kubectl's and
//! Helm's output, hand-written objects. It reads block mappings and sequences (compact
//! `- key: value` items, sequences level with their key), plain and quoted scalars over one
//! line or several (folded as yaml-rust2 folds them), literal block scalars (`|`, `|-`,
//! `|+`, with or without an indentation indicator), `{}` and `[]`, comments and `---`
//! between documents, without yaml-rust2's scanner and parser (the postgres-operator CRD,
//! values built: 22.8 → 14.7 ms), and resolves every scalar with the general reader's
//! rules ([`crate::text::scalars`]).
//!
//! Anything else gives up (`None`) and the general reader reads the whole text, with its
//! errors and positions: anchors, aliases, tags, directives, flow collections but the
//! empty ones, folded (`>`) scalars, explicit keys, double-quoted
//! line continuations and rare escapes, tabs outside scalars, carriage returns anywhere,
//! merge and duplicate keys, empty documents, a depth or size at the general reader's
//! bounds, and any text that is not YAML. So its one promise is: when it answers, the
//! general reader gives the same values (checked against it by a differential test over
//! every YAML file of `../shared` and mutations of them, and by the `read_text` fuzz
//! target, which reads each input with positions too, through the general reader alone).
//!
//! It reads line by line with a cursor (`Reader::pos`); each block node knows the
//! indentation of the node it belongs to (`parent`), which ends it. Nesting is bounded by
//! the general reader's [`MAX_DEPTH`], so its recursion is too.

use crate::k8s::request::MAX_REQUEST_BODY_BYTES;
use crate::text::json::min_len_of_scalar;
use crate::text::read_error::{MAX_DEPTH, MAX_STREAM_JSON};
use crate::text::scalars::{resolve_key, resolve_scalar};
use serde_json::{Map, Value};
use yaml_rust2::scanner::TScalarStyle;

/// The text is outside what this reader takes (or is no YAML): the general reader reads it.
struct GiveUp;

type Read<T> = Result<T, GiveUp>;

/// Every document of a block-style YAML stream, or `None` when the general reader must
/// read it. `text` has passed the general reader's checks of size and printable characters,
/// and holds none of the characters YAML 1.1 takes as line breaks but yaml-rust2 does not
/// (NEL, LS, PS) nor a byte-order mark.
pub(crate) fn read_block_documents(text: &str) -> Option<Vec<Value>> {
    // yaml-rust2 breaks lines at a carriage return too, wherever it stands (a comment): no
    // carriage return reaches the reader below.
    if text.as_bytes().contains(&b'\r') {
        return None;
    }
    let mut r = Reader { text, s: text.as_bytes(), pos: 0, line_start: 0, json: 0, depth: 0 };
    r.stream().ok()
}

struct Reader<'a> {
    text: &'a str,
    s: &'a [u8],
    /// The cursor, a byte offset.
    pos: usize,
    /// Where the cursor's line starts.
    line_start: usize,
    /// The current document's JSON size, counted as the general reader counts it (its lower
    /// bound), so that a document it would refuse as too large is left to it.
    json: u64,
    /// Collections open.
    depth: usize,
}

/// What a literal block scalar does with its final line breaks.
#[derive(Clone, Copy)]
enum Chomp {
    Clip,
    Strip,
    Keep,
}

/// Where the run of spaces from `at` ends. Indentation in generated CRDs runs to dozens of
/// spaces a line, so it is read eight bytes at a time: about a tenth of reading a 2.9 MB
/// CRD went to this scan a byte at a time.
fn indentation_end(s: &[u8], mut at: usize) -> usize {
    const SPACES: u64 = u64::from_le_bytes([b' '; 8]);
    while let Some(chunk) = s.get(at..at + 8) {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        // Zero bytes of `diff` are spaces; the lowest set bit is in the first other byte.
        let diff = u64::from_le_bytes(word) ^ SPACES;
        if diff != 0 {
            return at + (diff.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while s.get(at) == Some(&b' ') {
        at += 1;
    }
    at
}

impl<'a> Reader<'a> {
    fn stream(&mut self) -> Read<Vec<Value>> {
        let mut docs = Vec::new();
        let mut stream_json: u64 = 0;
        loop {
            let mut i = self.next_line()?;
            if i < 0 && self.at_marker(b"---") {
                self.pos += 3;
                self.end_line()?;
                i = self.next_line()?;
                // `---` then nothing, or another marker: an empty document.
                if i < 0 {
                    return Err(GiveUp);
                }
            }
            if i < 0 {
                // The end (`...` or an empty stream are the general reader's).
                if self.pos < self.s.len() || docs.is_empty() {
                    return Err(GiveUp);
                }
                return Ok(docs);
            }
            self.json = 0;
            let v = self.node(i as usize, -1)?;
            // A root node ends only at a marker or at the end.
            if self.next_line()? >= 0 {
                return Err(GiveUp);
            }
            stream_json += self.json;
            if self.json > MAX_REQUEST_BODY_BYTES as u64 || stream_json > MAX_STREAM_JSON {
                return Err(GiveUp);
            }
            docs.push(v);
        }
    }

    fn byte(&self, at: usize) -> Option<u8> {
        self.s.get(at).copied()
    }

    /// At a line start: whether the line is the document marker `m` (`---` or `...`).
    fn at_marker(&self, m: &[u8]) -> bool {
        self.s[self.pos..].starts_with(m) && matches!(self.byte(self.pos + 3), None | Some(b' ' | b'\n'))
    }

    /// From a line start, past blank and comment lines: the indentation of the next line
    /// with content (the cursor stays at its start), or -1 at the end or a document marker.
    fn next_line(&mut self) -> Read<isize> {
        loop {
            self.line_start = self.pos;
            let i = indentation_end(self.s, self.pos);
            match self.byte(i) {
                None => {
                    self.pos = i;
                    self.line_start = i;
                    return Ok(-1);
                }
                Some(b'\n') => self.pos = i + 1,
                Some(b'#') => self.pos = (self.line_end(i) + 1).min(self.s.len()),
                Some(b'\t') => return Err(GiveUp),
                Some(_) => {
                    if i == self.pos && (self.at_marker(b"---") || self.at_marker(b"...")) {
                        return Ok(-1);
                    }
                    return Ok((i - self.pos) as isize);
                }
            }
        }
    }

    /// Where the line holding `at` ends (its `\n`, or the end of the text).
    fn line_end(&self, at: usize) -> usize {
        // `str::find` of one ASCII byte runs memchr.
        self.text[at..].find('\n').map_or(self.s.len(), |n| at + n)
    }

    /// The rest of a line after a node: blanks and a comment, then the next line.
    fn end_line(&mut self) -> Read<()> {
        let start = self.pos;
        while self.byte(self.pos) == Some(b' ') {
            self.pos += 1;
        }
        match self.byte(self.pos) {
            None => Ok(()),
            Some(b'\n') => {
                self.pos += 1;
                self.line_start = self.pos;
                Ok(())
            }
            // A comment needs a blank before it.
            Some(b'#') if self.pos > start => {
                self.pos = (self.line_end(self.pos) + 1).min(self.s.len());
                self.line_start = self.pos;
                Ok(())
            }
            _ => Err(GiveUp),
        }
    }

    fn skip_spaces(&mut self) {
        while self.byte(self.pos) == Some(b' ') {
            self.pos += 1;
        }
    }

    /// A `-` that opens a sequence item.
    fn is_item(&self, at: usize) -> bool {
        self.byte(at) == Some(b'-') && matches!(self.byte(at + 1), None | Some(b' ' | b'\n'))
    }

    fn open(&mut self) -> Read<()> {
        self.depth += 1;
        // The general reader refuses at MAX_DEPTH: leave it that text, with a margin.
        if self.depth + 2 >= MAX_DEPTH {
            return Err(GiveUp);
        }
        // `[` or `{`.
        self.json += 1;
        Ok(())
    }

    /// A block node whose content starts `i` columns into the cursor's line, inside a node
    /// indented `parent`.
    fn node(&mut self, i: usize, parent: isize) -> Read<Value> {
        self.pos = self.line_start + i;
        if self.is_item(self.pos) {
            self.sequence(i, false)
        } else if self.key_ahead()? {
            self.mapping(i)
        } else {
            self.scalar(parent)
        }
    }

    /// A block mapping whose keys stand at column `c`; the cursor is at the first key.
    fn mapping(&mut self, c: usize) -> Read<Value> {
        self.open()?;
        let mut map = Map::new();
        loop {
            let key = self.key()?;
            if key == "<<" {
                return Err(GiveUp);
            }
            self.json += key.len() as u64 + 3;
            let v = self.value(c as isize, true)?;
            self.json += 1;
            if map.insert(key, v).is_some() {
                // Duplicate keys: the general reader's error.
                return Err(GiveUp);
            }
            let i = self.next_line()?;
            if i != c as isize {
                if i > c as isize {
                    return Err(GiveUp);
                }
                self.depth -= 1;
                return Ok(Value::Object(map));
            }
            self.pos = self.line_start + c;
            if self.is_item(self.pos) {
                return Err(GiveUp);
            }
        }
    }

    /// A block sequence whose `-` stand at column `c`; the cursor is at the first `-`.
    /// `level`: the sequence is a mapping value level with its key, which ends it at the
    /// first line of that column that is no item.
    fn sequence(&mut self, c: usize, level: bool) -> Read<Value> {
        self.open()?;
        let mut items = Vec::new();
        loop {
            self.pos += 1;
            let v = self.item(c)?;
            self.json += 1;
            items.push(v);
            let i = self.next_line()?;
            if i == c as isize && self.is_item(self.line_start + c) {
                self.pos = self.line_start + c;
                continue;
            }
            if i > c as isize || (i == c as isize && !level) {
                return Err(GiveUp);
            }
            self.depth -= 1;
            return Ok(Value::Array(items));
        }
    }

    /// A sequence item, the cursor after its `-` at column `c`.
    fn item(&mut self, c: usize) -> Read<Value> {
        self.skip_spaces();
        match self.byte(self.pos) {
            None | Some(b'\n' | b'#') => self.value(c as isize, false),
            _ if self.is_item(self.pos) => Err(GiveUp),
            _ => {
                if self.key_ahead()? {
                    let col = self.pos - self.line_start;
                    self.mapping(col)
                } else {
                    self.scalar(c as isize)
                }
            }
        }
    }

    /// A mapping's value or an item's, the cursor after the `:` or the `-`, inside a node
    /// indented `parent`. `key`: a mapping value, which a sequence level with the key may be.
    fn value(&mut self, parent: isize, key: bool) -> Read<Value> {
        self.skip_spaces();
        match self.byte(self.pos) {
            None | Some(b'\n' | b'#') => {
                self.end_line()?;
                let i = self.next_line()?;
                if i > parent {
                    return self.node(i as usize, parent);
                }
                if key && i == parent && self.is_item(self.line_start + i as usize) {
                    self.pos = self.line_start + i as usize;
                    return self.sequence(i as usize, true);
                }
                // Nothing: null.
                self.json += 4;
                Ok(Value::Null)
            }
            _ => self.scalar(parent),
        }
    }

    /// A scalar (or `{}`, `[]`) at the cursor, in a node indented `parent`; then the rest of
    /// its line.
    fn scalar(&mut self, parent: isize) -> Read<Value> {
        let (v, plain) = match self.byte(self.pos).ok_or(GiveUp)? {
            b'|' => return self.literal(parent),
            b'\'' => (Value::String(self.single_quoted()?), false),
            b'"' => (Value::String(self.double_quoted()?), false),
            open @ (b'{' | b'[') => {
                let close = if open == b'{' { b'}' } else { b']' };
                if self.byte(self.pos + 1) != Some(close) || self.depth + 3 >= MAX_DEPTH {
                    return Err(GiveUp);
                }
                self.pos += 2;
                self.end_line()?;
                // `{` or `[`, as the general reader counts an empty collection.
                self.json += 1;
                return Ok(if open == b'{' { Value::Object(Map::new()) } else { Value::Array(Vec::new()) });
            }
            b'-' if !self.is_item(self.pos) => (self.plain(parent)?, true),
            b'-' | b'?' | b':' | b',' | b']' | b'}' | b'#' | b'&' | b'*' | b'!' | b'>' | b'%' | b'@' | b'`' => {
                return Err(GiveUp)
            }
            _ => (self.plain(parent)?, true),
        };
        self.end_line()?;
        // A plain scalar goes on over lines indented past its parent: the general reader's
        // (so is anything else indented there).
        if plain && self.next_line()? > parent {
            return Err(GiveUp);
        }
        self.json += min_len_of_scalar(&v);
        Ok(v)
    }

    /// A plain scalar, resolved (null, booleans, numbers, strings), in a node indented
    /// `parent`: it goes on over the lines indented past `parent`, folded as yaml-rust2's
    /// `scan_plain_scalar` folds them (a line break is a space, each blank line between
    /// two a line feed); a comment, a line not indented past `parent` or the end ends it.
    /// The cursor ends after its last character.
    fn plain(&mut self, parent: isize) -> Read<Value> {
        let (first, mut end, mut open) = self.plain_line(self.pos)?;
        let mut folded: Option<String> = None;
        // Further lines: a root scalar's are the general reader's.
        while open && parent >= 0 {
            let mut at = self.line_end(end) + 1;
            let mut blanks = 0;
            let col = loop {
                if at >= self.s.len() {
                    break None;
                }
                let spaces = indentation_end(self.s, at) - at;
                match self.byte(at + spaces) {
                    None => break None,
                    Some(b'\n') => {
                        blanks += 1;
                        at += spaces + 1;
                    }
                    Some(b'\t') => return Err(GiveUp),
                    Some(b'#') => break None,
                    Some(_) => break Some((at, spaces)),
                }
            };
            let Some((line, spaces)) = col.filter(|&(_, sp)| sp as isize > parent) else { break };
            let (text, line_end, still_open) = self.plain_line(line + spaces)?;
            let s = folded.get_or_insert_with(|| first.to_string());
            if blanks == 0 {
                s.push(' ');
            } else {
                s.extend(std::iter::repeat_n('\n', blanks));
            }
            s.push_str(text);
            end = line_end;
            open = still_open;
        }
        self.pos = end;
        let s = folded.unwrap_or_else(|| first.to_string());
        resolve_scalar(s, TScalarStyle::Plain, None, None).map_err(|_| GiveUp)
    }

    /// One line of a plain scalar from `start`: its text (trailing blanks trimmed), where it
    /// ends, and whether the line ends there (a comment ends the scalar).
    fn plain_line(&self, start: usize) -> Read<(&'a str, usize, bool)> {
        let mut i = start;
        let (end, open) = loop {
            match self.byte(i) {
                None | Some(b'\n') => break (i, true),
                Some(b':') if matches!(self.byte(i + 1), None | Some(b' ' | b'\n')) => return Err(GiveUp),
                Some(b' ') if self.byte(i + 1) == Some(b'#') => break (i, false),
                Some(b'\t') => return Err(GiveUp),
                Some(_) => i += 1,
            }
        };
        let text = self.text[start..end].trim_end_matches(' ');
        Ok((text, end, open))
    }

    /// A single-quoted scalar; the cursor ends after its closing quote.
    fn single_quoted(&mut self) -> Read<String> {
        self.quoted(b'\'')
    }

    /// A double-quoted scalar with the common escapes; the cursor ends after its closing
    /// quote.
    fn double_quoted(&mut self) -> Read<String> {
        self.quoted(b'"')
    }

    /// A quoted scalar (`q` is its quote), over one line or several, folded as yaml-rust2's
    /// `scan_flow_scalar` folds it: blanks before a line break are dropped, and those
    /// starting the next line; one line break is a space, each blank line between two a line
    /// feed. Go-yaml (so the general reader) does not check the indentation of its lines.
    fn quoted(&mut self, q: u8) -> Read<String> {
        let mut out = String::new();
        let mut i = self.pos + 1;
        let mut from = i;
        loop {
            match self.byte(i).ok_or(GiveUp)? {
                b'\'' if q == b'\'' && self.byte(i + 1) == Some(b'\'') => {
                    out.push_str(&self.text[from..=i]);
                    i += 2;
                    from = i;
                }
                c if c == q => {
                    out.push_str(&self.text[from..i]);
                    self.pos = i + 1;
                    return Ok(out);
                }
                b'\\' if q == b'"' => {
                    out.push_str(&self.text[from..i]);
                    let (c, len) = match self.byte(i + 1).ok_or(GiveUp)? {
                        b'\\' => ('\\', 2),
                        b'"' => ('"', 2),
                        b'/' => ('/', 2),
                        b'n' => ('\n', 2),
                        b't' => ('\t', 2),
                        b'r' => ('\r', 2),
                        b'0' => ('\0', 2),
                        b'a' => ('\u{7}', 2),
                        b'b' => ('\u{8}', 2),
                        b'e' => ('\u{1b}', 2),
                        b'f' => ('\u{c}', 2),
                        b'v' => ('\u{b}', 2),
                        b'x' => (self.hex_escape(i + 2, 2)?, 4),
                        b'u' => (self.hex_escape(i + 2, 4)?, 6),
                        b'U' => (self.hex_escape(i + 2, 8)?, 10),
                        _ => return Err(GiveUp),
                    };
                    out.push(c);
                    i += len;
                    from = i;
                }
                b'\n' => {
                    // Raw blanks before the break are dropped (escaped ones were pushed).
                    out.push_str(self.text[from..i].trim_end_matches([' ', '\t']));
                    let mut at = i + 1;
                    let mut blanks = 0;
                    loop {
                        let spaces = self.s[at.min(self.s.len())..].iter().take_while(|&&b| b == b' ').count();
                        match self.byte(at + spaces) {
                            Some(b'\n') => {
                                blanks += 1;
                                at += spaces + 1;
                            }
                            None | Some(b'\t') => return Err(GiveUp),
                            Some(_) => {
                                // A document marker inside: the general reader's error.
                                if spaces == 0 && (self.s[at..].starts_with(b"---") || self.s[at..].starts_with(b"...")) {
                                    return Err(GiveUp);
                                }
                                at += spaces;
                                break;
                            }
                        }
                    }
                    if blanks == 0 {
                        out.push(' ');
                    } else {
                        out.extend(std::iter::repeat_n('\n', blanks));
                    }
                    i = at;
                    from = at;
                }
                _ => i += 1,
            }
        }
    }

    fn hex_escape(&self, at: usize, n: usize) -> Read<char> {
        let digits = self.text.get(at..at + n).ok_or(GiveUp)?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(GiveUp);
        }
        u32::from_str_radix(digits, 16).ok().and_then(char::from_u32).ok_or(GiveUp)
    }

    /// Whether a mapping key starts at the cursor: a one-line plain or quoted scalar, then
    /// `:` and a blank or the line's end. Nothing is consumed.
    fn key_ahead(&self) -> Read<bool> {
        Ok(self.key_end()?.is_some())
    }

    /// Where the `:` of a key at the cursor stands, if a key stands there.
    fn key_end(&self) -> Read<Option<usize>> {
        let colon = |at: usize| self.byte(at) == Some(b':') && matches!(self.byte(at + 1), None | Some(b' ' | b'\n'));
        let first = self.byte(self.pos).ok_or(GiveUp)?;
        if first == b'\'' || first == b'"' {
            // The closing quote, on this line.
            let mut i = self.pos + 1;
            loop {
                match self.byte(i).ok_or(GiveUp)? {
                    b'\n' => return Err(GiveUp),
                    b'\\' if first == b'"' => i += 2,
                    b'\'' if first == b'\'' && self.byte(i + 1) == Some(b'\'') => i += 2,
                    b if b == first => return Ok(colon(i + 1).then_some(i + 1)),
                    _ => i += 1,
                }
            }
        }
        if b"-?:,[]{}#&*!|>%@`".contains(&first) {
            return Ok(None);
        }
        let mut i = self.pos;
        loop {
            match self.byte(i) {
                None | Some(b'\n') => return Ok(None),
                Some(b':') if colon(i) => {
                    // YAML's bound on an implicit key.
                    return if i - self.pos > 1024 { Err(GiveUp) } else { Ok(Some(i)) };
                }
                Some(b' ') if self.byte(i + 1) == Some(b'#') => return Ok(None),
                Some(b'\t') => return Err(GiveUp),
                Some(_) => i += 1,
            }
        }
    }

    /// The key at the cursor, as a JSON key; the cursor ends after its `:`.
    fn key(&mut self) -> Read<String> {
        let colon = self.key_end()?.ok_or(GiveUp)?;
        let key = match self.byte(self.pos) {
            Some(q @ (b'\'' | b'"')) => {
                let (s, style) = if q == b'\'' {
                    (self.single_quoted()?, TScalarStyle::SingleQuoted)
                } else {
                    (self.double_quoted()?, TScalarStyle::DoubleQuoted)
                };
                // The quote `key_end` found closing it.
                if self.pos != colon {
                    return Err(GiveUp);
                }
                resolve_key(s, style, None, None)
            }
            _ => {
                let s = &self.text[self.pos..colon];
                if s.ends_with(' ') {
                    return Err(GiveUp);
                }
                resolve_key(s.to_string(), TScalarStyle::Plain, None, None)
            }
        }
        .map_err(|_| GiveUp)?;
        self.pos = colon + 1;
        Ok(key)
    }

    /// A literal block scalar (`|`, `|-`, `|+`, `|2-`, ...), the cursor at its `|`, in a node
    /// indented `parent`; its content is indented as its indentation indicator says (past
    /// `parent`), or else as its first non-blank line, past `parent`.
    fn literal(&mut self, parent: isize) -> Read<Value> {
        if parent < 0 {
            return Err(GiveUp);
        }
        self.pos += 1;
        // The header: a chomping indicator and an indentation indicator (1–9, columns past
        // `parent`), each optional, in either order.
        let mut chomp = Chomp::Clip;
        let mut indent: Option<usize> = None;
        for _ in 0..2 {
            match self.byte(self.pos) {
                Some(b'-') if matches!(chomp, Chomp::Clip) => chomp = Chomp::Strip,
                Some(b'+') if matches!(chomp, Chomp::Clip) => chomp = Chomp::Keep,
                Some(d @ b'1'..=b'9') if indent.is_none() => indent = Some(parent as usize + usize::from(d - b'0')),
                Some(b'0'..=b'9') => return Err(GiveUp),
                _ => break,
            }
            self.pos += 1;
        }
        self.end_line()?;
        let mut out = String::new();
        // Whether a content line was taken (none: the general reader's).
        let mut content = false;
        // The most spaces on a blank line before the first content line.
        let mut leading = 0;
        // Blank lines since the last content line.
        let mut breaks = 0;
        while self.pos < self.s.len() {
            let end = self.line_end(self.pos);
            let line = &self.s[self.pos..end];
            let spaces = line.iter().take_while(|&&b| b == b' ').count();
            if spaces == line.len() {
                // A blank line; one at the end of the text without a line break, or one
                // with more spaces than the content's indentation (content), is left.
                if end == self.s.len() || indent.is_some_and(|k| spaces > k) {
                    return Err(GiveUp);
                }
                leading = leading.max(spaces);
                breaks += 1;
                self.pos = end + 1;
                continue;
            }
            let k = match indent {
                Some(k) => k,
                None => {
                    if spaces as isize <= parent {
                        // No content line: the general reader's.
                        return Err(GiveUp);
                    }
                    if leading > spaces {
                        return Err(GiveUp);
                    }
                    indent = Some(spaces);
                    spaces
                }
            };
            if spaces < k {
                break;
            }
            if end == self.s.len() {
                return Err(GiveUp);
            }
            content = true;
            for _ in 0..breaks {
                out.push('\n');
            }
            breaks = 0;
            out.push_str(&self.text[self.pos + k..end]);
            out.push('\n');
            self.pos = end + 1;
        }
        if !content {
            return Err(GiveUp);
        }
        self.line_start = self.pos;
        match chomp {
            Chomp::Clip => {}
            Chomp::Strip => {
                out.pop();
            }
            Chomp::Keep => out.extend(std::iter::repeat_n('\n', breaks)),
        }
        let v = Value::String(out);
        self.json += min_len_of_scalar(&v);
        Ok(v)
    }
}


#[cfg(test)]
mod tests {
    use super::read_block_documents;
    use crate::text::yaml::{fast_path_may_read, read_documents_general};
    use serde_json::Value;

    #[test]
    fn indentation_ends_where_the_spaces_end() {
        // Against a byte-at-a-time scan, across the eight-byte steps and the text's end.
        for len in 0..40 {
            for spaces in 0..=len {
                for other in [b'a', b'\n', b'\t', 0x80, b'#'] {
                    let mut text = vec![b' '; spaces];
                    text.resize(len, other);
                    for at in 0..=len {
                        let slow = at + text[at..].iter().take_while(|&&b| b == b' ').count();
                        assert_eq!(super::indentation_end(&text, at), slow, "{:?} from {}", text, at);
                    }
                }
            }
        }
    }

    /// The promise: where the fast path answers, the general reader answers the same.
    fn check(text: &str, what: &str) -> bool {
        // What `read_documents` hands the fast path: a text without a leading byte-order
        // mark, printable, and without the characters it leaves to the general reader.
        if !fast_path_may_read(text) {
            return false;
        }
        let Some(fast) = read_block_documents(text) else { return false };
        match read_documents_general(text) {
            Ok(slow) => assert!(fast == slow, "{}: the fast path read other values than the general reader\n{}", what, text),
            Err(e) => panic!("{}: the fast path read a text the general reader refuses ({})\n{}", what, e, text),
        }
        true
    }

    #[test]
    fn reads_what_it_takes_as_the_general_reader_does() {
        let cases = [
            "a: 1\nb: [ ]\n",
            "a: 1\nb: []\nc: {}\nd: ~\ne: yes\nf: 0x1F\ng: 1.0\nh: 1e3\ni: .inf\n",
            "on: off\n'q': \"x\\ty\\u00e9\"\n'it''s': 'a''b'\n",
            "k:\n- a\n- b: 1\n  c: 2\n-\n- - x\nz: 1\n",
            "k:\n  - a # c\n  -   b\n  - 'c' #\n#x\n\n  - |\n    x\n     y\n\n    z\n\n  - |-\n    q\n  - |+\n    r\n\n\nn: 1\n",
            "---\na: 1\n--- # two\nb: 2\n",
            "a: 1\n---\n",
            "a: b: c\n",
            "a: 1\na: 2\n",
            "a: &x 1\nb: *x\n",
            "  a: 1\n  b:\n    c: d\n",
            "a: |2\n   x\n",
            "a: |2-\n    x\n   y\n\n  z\nb: |-1\n  q\n",
            "- |1\n  x\n- k: |+3\n       y\n\n",
            "a: |0\n  x\n",
            "a: |2\n\n     \n  x\n",
            "a: >\n  x\n  y\n",
            "a: plain\n  more\n",
            "a: plain\n  more: x\n",
            "a: plain\n  more\n\n   and # c\nb: x\n",
            "d: 'a\n  b\n\n  c' # x\ne: \"p \\t\n\n\n   q\"\n",
            "a: 1\nb: []\nc: {}\nd: ~\ne: yes\nf: 0x1F\ng: 1.0\nh: 1e3\n",
            "a:\n  - x\n  y: 1\n",
            "- a\n- b\n",
            "a: 'x' y\n",
            "a: \"\\N\"\n",
            "a: |\n  x\n\n",
            "a: |\n  x\n  ",
            "a: |\n\n   \n  x\n",
            "a:\tb\n",
            "a: b\r\n",
            "x: -1\ny: -foo\nz: - a\n",
            "u: 123456789012345678901234567890\n",
            "a: b #c\nd: e#f\ng: h:i\n",
            "\"a\\\"b\": 1\n",
            "? a\n: b\n",
            "<<: {}\n",
            "a: !!str 1\n",
            "# only a comment\n",
            "",
            "a: 1\n...\n",
            // Found by the fuzzer: a comment broken by a carriage return.
            "\u{fffd}{*:-./v\",\n #\u{fffd}d\rexsl\u{fffd}m}",
            "a: 1 # c\rb: 2\n",
        ];
        let taken: Vec<bool> = cases.iter().map(|c| check(c, "case")).collect();
        // The shapes generators write are taken; the rest is the general reader's.
        for (c, want) in [
            ("a: 1\nb: [ ]\n", false),
            ("a: 1\nb: []\nc: {}\nd: ~\ne: yes\nf: 0x1F\ng: 1.0\nh: 1e3\ni: .inf\n", false),
            ("a: 1\nb: []\nc: {}\nd: ~\ne: yes\nf: 0x1F\ng: 1.0\nh: 1e3\n", true),
            ("d: 'a\n  b\n\n  c' # x\ne: \"p \\t\n\n\n   q\"\n", true),
            ("a: plain\n  more\n\n   and # c\nb: x\n", true),
            ("k:\n  - a # c\n  -   b\n  - 'c' #\n#x\n\n  - |\n    x\n     y\n\n    z\n\n  - |-\n    q\n  - |+\n    r\n\n\nn: 1\n", true),
            ("---\na: 1\n--- # two\nb: 2\n", true),
            ("a: 1\na: 2\n", false),
            ("a: &x 1\nb: *x\n", false),
            ("  a: 1\n  b:\n    c: d\n", true),
            ("a: plain\n  more\n", true),
            ("a: plain\n  more: x\n", false),
            ("a: |2-\n    x\n   y\n\n  z\nb: |-1\n  q\n", true),
            ("- |1\n  x\n- k: |+3\n       y\n\n", true),
            ("x: -1\ny: -foo\nz: - a\n", false),
        ] {
            let i = cases.iter().position(|x| *x == c).unwrap();
            assert_eq!(taken[i], want, "{:?}", c);
        }
    }

    /// Every YAML file of ../shared (CRDs, suites, their embedded objects) and mutations of
    /// them: the fast path reads what it takes as the general reader does.
    #[test]
    fn agrees_with_the_general_reader_on_the_shared_files_and_their_mutations() {
        let Some(files) = crate::testing::shared_files("", &["yaml", "yml"]) else { return };
        let (mut texts, mut taken, mut embedded) = (0, 0, 0);
        let mut next = crate::testing::xorshift(0x5eed);
        for (n, f) in files.iter().enumerate() {
            let Ok(text) = std::fs::read_to_string(f) else { continue };
            let what = f.display().to_string();
            texts += 1;
            taken += check(&text, &what) as usize;
            // Objects and CRDs given as strings inside suites.
            if let Ok(docs) = read_documents_general(&text) {
                let mut stack: Vec<&Value> = docs.iter().collect();
                while let Some(v) = stack.pop() {
                    match v {
                        Value::String(s) if s.contains(":") && s.contains('\n') => {
                            embedded += check(s, &what) as usize;
                        }
                        Value::Array(a) => stack.extend(a),
                        Value::Object(m) => stack.extend(m.values()),
                        _ => {}
                    }
                }
            }
            // Mutations of a sample of the smaller files, around the bytes that matter.
            if n % 4 == 0 && text.len() < 300_000 && text.is_ascii() {
                let lines: Vec<&str> = text.split_inclusive('\n').collect();
                for _ in 0..40 {
                    let l = next(lines.len());
                    let mut m: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
                    let at = next(m[l].len() + 1).min(m[l].len());
                    let pieces = [":", " ", "-", "#", "'", "\"", "|", ">", "{", "[", "\t", "\n", "---\n", "- ", ": ", " #", "&a ", "*a", "\\", "|-\n", "  ", "\r", "# x\r"];
                    match next(8) {
                        0 => m[l].insert_str(at, pieces[next(pieces.len())]),
                        1 if at < m[l].len() => {
                            m[l].remove(at);
                        }
                        2 => m[l].insert(0, ' '),
                        3 if m[l].starts_with(' ') => {
                            m[l].remove(0);
                        }
                        4 => {
                            let dup = m[l].clone();
                            m.insert(l, dup);
                        }
                        5 if l + 1 < m.len() => {
                            let joined = m[l].trim_end_matches('\n').to_string() + &m[l + 1];
                            m[l] = joined;
                            m.remove(l + 1);
                        }
                        6 => m[l].truncate(at),
                        _ => m[l].insert_str(0, "  "),
                    }
                    check(&m.concat(), &format!("a mutation of {}", what));
                }
            }
        }
        eprintln!("fast path: {} of {} files, {} embedded texts", taken, texts, embedded);
        // Nearly every generated file is taken (or the fast path serves nothing).
        assert!(texts < 100 || taken * 10 >= texts * 8, "the fast path took only {} of {} files", taken, texts);
    }
}

