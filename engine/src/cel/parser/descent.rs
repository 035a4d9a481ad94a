//! A hand-written recursive-descent CEL parser: the fast path in front of the `cel` crate's
//! ANTLR parser ([`crate::cel::parser::antlr`]).
//!
//! It re-expresses cel-go's grammar (`parser/gen/CEL.g4`: the lexer rules, and the parser
//! rules `expr`, `conditionalOr`, `conditionalAnd`, `relation`, `calc`, `unary`, `member`,
//! `primary`, `literal`) and the visitor that builds the AST from the parse tree (cel-go's
//! `parser/parser.go`, as the `cel` crate's `parser/parser.rs` implements it): the same
//! nodes, the same ids handed out in the same order, the same source offsets (UTF-8 byte
//! offsets of a token's first and last byte), and the standard macros expanded as
//! crdlab's `standard_macros` expand them.
//!
//! It only ever answers for input it reads exactly as the ANTLR path does: on anything
//! else (any lexical or syntax error, a reserved identifier, a literal the visitor refuses,
//! a backquote, a message literal, a call any non-standard macro could match, the rare
//! ambiguous `-` forms, nesting deeper than [`MAX_NESTING`]) it returns `None` and the
//! ANTLR path runs, so every error text stays the ANTLR path's. It never panics and never
//! recurses deeper than [`MAX_NESTING`] nested expressions.

use crate::cel::hash::IdMap;
use crate::cel::parse_limits::MAX_NESTING;
use cel::common::ast::{
    operators, CallExpr, ComprehensionExpr, EntryExpr, Expr, IdedEntryExpr, IdedExpr, ListExpr,
    LiteralValue, MapEntryExpr, MapExpr, SelectExpr,
};

/// The accumulator of the standard macros' comprehensions (crdlab's `standard_macros`).
const ACCU: &str = "@result";
/// The accumulator name of older cel-go versions, refused as an iteration variable.
const LEGACY_ACCU: &str = "__result__";

/// Function names of the library macros this parser does not expand (the lists library's
/// `sortBy`, the math library's `greatest`/`least`, and `bind`): any call of one of them
/// falls back, whatever its shape.
pub(crate) const FOREIGN_MACRO_NAMES: &[&str] = &["sortBy", "greatest", "least", "bind"];

/// Which macro, if any, a call matches (the crate's `Macros::find`: on the name, on
/// whether it has a target, and on the argument count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MacroShape {
    /// No macro: the call stays as written.
    None,
    /// A standard macro (crdlab's `standard_macros`).
    Standard,
    /// The optional library's `optMap`/`optFlatMap`.
    OptMap,
    /// A two-variable comprehension.
    TwoVariable,
    /// Possibly a macro this parser does not expand: fall back.
    Foreign,
}

/// The macro a call of `name` with `argc` arguments (on a target when `receiver`) matches.
pub(crate) fn macro_shape(opts: Options, receiver: bool, name: &str, argc: usize) -> MacroShape {
    if FOREIGN_MACRO_NAMES.contains(&name) {
        return MacroShape::Foreign;
    }
    match (receiver, name, argc) {
        (false, "has", 1)
        | (true, "all" | "exists" | "exists_one" | "existsOne" | "filter", 2)
        | (true, "map", 2 | 3) => MacroShape::Standard,
        (true, "optMap" | "optFlatMap", 2) if opts.opt_map_macros => MacroShape::OptMap,
        (true, "all" | "exists" | "exists_one" | "existsOne", 3) | (true, "transformList" | "transformMap" | "transformMapEntry", 3 | 4)
            if opts.two_variable_macros =>
        {
            MacroShape::TwoVariable
        }
        _ => MacroShape::None,
    }
}

/// The internal function the two-variable `transformMap` macros build their map with.
const MAP_INSERT: &str = "cel.@mapInsert";
/// The iteration variable of `optMap`'s comprehension (crdlab's optional library).
const UNUSED_ITER_VAR: &str = "#unused";

/// What the environment's parser has beyond the standard grammar and macros.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Options {
    /// The optional syntax (`.?`, `[?`, `{?`, `[?`) is part of the grammar and enabled.
    pub optional_syntax: bool,
    /// The optional library's `optMap`/`optFlatMap` macros (`optional::macros`).
    pub opt_map_macros: bool,
    /// The two-variable comprehension macros (`comprehensions::macros`).
    pub two_variable_macros: bool,
}

/// Parses `text`; `None` when the ANTLR path must (see the module doc).
pub(crate) fn parse(text: &str, opts: Options) -> Option<(IdedExpr, IdMap<(u32, u32)>)> {
    // Offsets are u32 in the source info.
    if text.len() >= u32::MAX as usize {
        return None;
    }
    let toks = lex(text)?;
    let mut p = Parser {
        text,
        toks,
        pos: 0,
        next_id: 1,
        offsets: IdMap::default(),
        depth: 0,
        optional: opts.optional_syntax,
        opts,
    };
    let e = p.expr()?;
    if p.peek() != T::Eof {
        return None;
    }
    Some((e, p.offsets))
}

// ------------------------------------------------------------------------ lexer

/// Token kinds of `CEL.g4` (keywords apart from identifiers; no escaped identifiers: a
/// backquote falls back).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum T {
    Ident,
    Int,
    Uint,
    Float,
    Str,
    Bytes,
    True,
    False,
    Null,
    In,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    LParen,
    RParen,
    Dot,
    Comma,
    Minus,
    Bang,
    Question,
    Colon,
    Plus,
    Star,
    Slash,
    Percent,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Eof,
}

/// A token: its kind and its byte range `[start, end)`.
#[derive(Clone, Copy, Debug)]
struct Tok {
    kind: T,
    start: u32,
    end: u32,
}

/// The tokens of `text` as the grammar's lexer cuts them (longest match; whitespace and
/// `//` comments on the hidden channel), ending with `Eof`. `None` on anything the lexer
/// would reject or this one does not follow (a backquote, a character outside the
/// grammar's, an invalid escape, an unterminated string).
fn lex(text: &str) -> Option<Vec<Tok>> {
    let b = text.as_bytes();
    let n = b.len();
    let mut out = Vec::with_capacity(n / 3 + 2);
    let mut i = 0;
    while i < n {
        let c = b[i];
        let start = i;
        let kind = match c {
            b'\t' | b' ' | b'\r' | b'\n' | 0x0C => {
                i += 1;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < n && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'0'..=b'9' => {
                let (end, kind) = number(b, i);
                i = end;
                kind
            }
            b'.' if b.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                let (end, kind) = number(b, i);
                i = end;
                kind
            }
            b'r' | b'R' if matches!(b.get(i + 1), Some(b'"' | b'\'')) => {
                i = string(b, i + 1, true)?;
                T::Str
            }
            b'b' | b'B' if matches!(b.get(i + 1), Some(b'"' | b'\'')) => {
                i = string(b, i + 1, false)?;
                T::Bytes
            }
            b'b' | b'B' if matches!(b.get(i + 1), Some(b'r' | b'R')) && matches!(b.get(i + 2), Some(b'"' | b'\'')) => {
                i = string(b, i + 2, true)?;
                T::Bytes
            }
            b'"' | b'\'' => {
                i = string(b, i, false)?;
                T::Str
            }
            b'A'..=b'Z' | b'a'..=b'z' | b'_' => {
                while i < n && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                match &text[start..i] {
                    "true" => T::True,
                    "false" => T::False,
                    "null" => T::Null,
                    "in" => T::In,
                    _ => T::Ident,
                }
            }
            _ => {
                let two = b.get(i + 1).copied();
                let (kind, len) = match (c, two) {
                    (b'=', Some(b'=')) => (T::Eq, 2),
                    (b'!', Some(b'=')) => (T::Ne, 2),
                    (b'<', Some(b'=')) => (T::Le, 2),
                    (b'>', Some(b'=')) => (T::Ge, 2),
                    (b'&', Some(b'&')) => (T::And, 2),
                    (b'|', Some(b'|')) => (T::Or, 2),
                    (b'<', _) => (T::Lt, 1),
                    (b'>', _) => (T::Gt, 1),
                    (b'!', _) => (T::Bang, 1),
                    (b'[', _) => (T::LBracket, 1),
                    (b']', _) => (T::RBracket, 1),
                    (b'{', _) => (T::LBrace, 1),
                    (b'}', _) => (T::RBrace, 1),
                    (b'(', _) => (T::LParen, 1),
                    (b')', _) => (T::RParen, 1),
                    (b'.', _) => (T::Dot, 1),
                    (b',', _) => (T::Comma, 1),
                    (b'-', _) => (T::Minus, 1),
                    (b'?', _) => (T::Question, 1),
                    (b':', _) => (T::Colon, 1),
                    (b'+', _) => (T::Plus, 1),
                    (b'*', _) => (T::Star, 1),
                    (b'/', _) => (T::Slash, 1),
                    (b'%', _) => (T::Percent, 1),
                    _ => return None,
                };
                i += len;
                kind
            }
        };
        out.push(Tok {
            kind,
            start: start as u32,
            end: i as u32,
        });
    }
    out.push(Tok {
        kind: T::Eof,
        start: n as u32,
        end: n as u32,
    });
    Some(out)
}

/// `NUM_FLOAT`, `NUM_INT` or `NUM_UINT` at `i` (a digit, or `.` and a digit), the longest
/// one: (end, kind).
fn number(b: &[u8], mut i: usize) -> (usize, T) {
    let digits = |b: &[u8], mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    // EXPONENT: ('e'|'E') ('+'|'-')? DIGIT+, only when complete.
    let exponent = |b: &[u8], i: usize| -> Option<usize> {
        if !matches!(b.get(i), Some(b'e' | b'E')) {
            return None;
        }
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        b.get(j).filter(|c| c.is_ascii_digit()).map(|_| digits(b, j))
    };
    if b[i] == b'.' {
        i = digits(b, i + 1);
        return (exponent(b, i).unwrap_or(i), T::Float);
    }
    if b[i] == b'0' && b.get(i + 1) == Some(&b'x') && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit) {
        i += 2;
        while i < b.len() && b[i].is_ascii_hexdigit() {
            i += 1;
        }
        if matches!(b.get(i), Some(b'u' | b'U')) {
            return (i + 1, T::Uint);
        }
        return (i, T::Int);
    }
    i = digits(b, i);
    if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
        i = digits(b, i + 1);
        return (exponent(b, i).unwrap_or(i), T::Float);
    }
    if let Some(end) = exponent(b, i) {
        return (end, T::Float);
    }
    if matches!(b.get(i), Some(b'u' | b'U')) {
        return (i + 1, T::Uint);
    }
    (i, T::Int)
}

/// The end of the `STRING` whose opening quote is at `i`. Triple-quoted strings end at the
/// first closing triple quote (non-greedy); single-quoted ones hold no line break; outside
/// raw strings a backslash must start an `ESC_SEQ`. `None` when the string does not close
/// as the rule's first alternatives read it.
fn string(b: &[u8], i: usize, raw: bool) -> Option<usize> {
    let q = b[i];
    let triple = b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q);
    if triple {
        let mut j = i + 3;
        loop {
            if j >= b.len() {
                return None;
            }
            if b[j] == q && b.get(j + 1) == Some(&q) && b.get(j + 2) == Some(&q) {
                return Some(j + 3);
            }
            if b[j] == b'\\' && !raw {
                j = escape(b, j)?;
            } else {
                j += 1;
            }
        }
    }
    let mut j = i + 1;
    loop {
        match b.get(j) {
            None | Some(b'\n' | b'\r') => return None,
            Some(&c) if c == q => return Some(j + 1),
            Some(b'\\') if !raw => j = escape(b, j)?,
            Some(_) => j += 1,
        }
    }
}

/// The end of the `ESC_SEQ` at `i` (a backslash).
fn escape(b: &[u8], i: usize) -> Option<usize> {
    let hex = |from: usize, count: usize| -> Option<usize> {
        (from..from + count).all(|k| b.get(k).is_some_and(u8::is_ascii_hexdigit)).then_some(from + count)
    };
    match b.get(i + 1)? {
        b'a' | b'b' | b'f' | b'n' | b'r' | b't' | b'v' | b'"' | b'\'' | b'\\' | b'?' | b'`' => Some(i + 2),
        b'0'..=b'3' => {
            let oct = |k: usize| matches!(b.get(k), Some(b'0'..=b'7'));
            (oct(i + 2) && oct(i + 3)).then_some(i + 4)
        }
        b'x' | b'X' => hex(i + 2, 2),
        b'u' => hex(i + 2, 4),
        b'U' => hex(i + 2, 8),
        _ => None,
    }
}

/// The value of a string or bytes literal's text (without the `b` of bytes): the `cel`
/// crate's `parse::unescape` (cel-go's `parser/unescape.go`), `None` where it fails.
fn unescape(value: &str, is_bytes: bool) -> Option<Vec<u8>> {
    // Line breaks in the source read as `\n`.
    let normalized;
    let mut val = if value.contains('\r') {
        normalized = value.replace("\r\n", "\n").replace('\r', "\n");
        normalized.as_str()
    } else {
        value
    };
    if val.len() < 2 {
        return None;
    }
    let is_raw = val.starts_with('r') || val.starts_with('R');
    if is_raw {
        val = &val[1..];
    }
    if val.len() < 2 {
        return None;
    }
    let first = val.chars().next()?;
    let last = val.chars().last()?;
    if (first != '"' && first != '\'') || last != first {
        return None;
    }
    if val.len() >= 6 && (val.starts_with("'''") || val.starts_with("\"\"\"")) {
        let triple = if first == '\'' { "'''" } else { "\"\"\"" };
        if !val.ends_with(triple) {
            return None;
        }
        val = &val[3..val.len() - 3];
    } else {
        val = &val[1..val.len() - 1];
    }
    if is_raw || !val.contains('\\') {
        return Some(val.as_bytes().to_vec());
    }
    let mut out = Vec::with_capacity(val.len());
    let mut chars = val.chars();
    let mut buf = [0u8; 4];
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        let esc = chars.next()?;
        match esc {
            'a' => out.push(0x07),
            'b' => out.push(0x08),
            'f' => out.push(0x0C),
            'n' => out.push(b'\n'),
            'r' => out.push(b'\r'),
            't' => out.push(b'\t'),
            'v' => out.push(0x0B),
            '\\' => out.push(b'\\'),
            '\'' => out.push(b'\''),
            '"' => out.push(b'"'),
            '`' => out.push(b'`'),
            '?' => out.push(b'?'),
            'x' | 'X' | 'u' | 'U' => {
                let width = match esc {
                    'x' | 'X' => 2,
                    _ if is_bytes => return None,
                    'u' => 4,
                    _ => 8,
                };
                let mut v: u32 = 0;
                for _ in 0..width {
                    v = v * 16 + chars.next()?.to_digit(16)?;
                }
                if is_bytes {
                    out.push(v as u8);
                } else {
                    out.extend_from_slice(char::from_u32(v)?.encode_utf8(&mut buf).as_bytes());
                }
            }
            n @ '0'..='3' => {
                let mut v = n as u32 - '0' as u32;
                for _ in 0..2 {
                    let d = chars.next()?;
                    if !('0'..='7').contains(&d) {
                        return None;
                    }
                    v = v * 8 + (d as u32 - '0' as u32);
                }
                if is_bytes {
                    out.push(v as u8);
                } else {
                    out.extend_from_slice(char::from_u32(v)?.encode_utf8(&mut buf).as_bytes());
                }
            }
            _ => return None,
        }
    }
    Some(out)
}

// ------------------------------------------------------------------------ parser

struct Parser<'a> {
    text: &'a str,
    toks: Vec<Tok>,
    pos: usize,
    /// The next node id (the crate's `ParserHelper::next_id`).
    next_id: u64,
    /// Each node's first and last byte (what the crate's parser records in its
    /// `SourceInfo`; a vector by id here, as ids are dense: a tree map's inserts were a
    /// tenth of a small parse).
    offsets: IdMap<(u32, u32)>,
    /// Nested `expr` rules entered.
    depth: usize,
    optional: bool,
    opts: Options,
}

fn call(id: u64, func: &str, target: Option<IdedExpr>, args: Vec<IdedExpr>) -> IdedExpr {
    IdedExpr {
        id,
        expr: Expr::Call(CallExpr {
            func_name: func.to_string(),
            target: target.map(Box::new),
            args,
        }),
    }
}

impl<'a> Parser<'a> {
    fn peek(&self) -> T {
        self.toks[self.pos].kind
    }

    fn peek_at(&self, ahead: usize) -> T {
        self.toks.get(self.pos + ahead).map_or(T::Eof, |t| t.kind)
    }

    fn bump(&mut self) -> Tok {
        let t = self.toks[self.pos];
        if t.kind != T::Eof {
            self.pos += 1;
        }
        t
    }

    fn expect(&mut self, kind: T) -> Option<Tok> {
        (self.peek() == kind).then(|| self.bump())
    }

    fn text_of(&self, t: Tok) -> &'a str {
        &self.text[t.start as usize..t.end as usize]
    }

    /// A new id at the token (the crate's `ParserHelper::next_id`: the token's first and
    /// last byte).
    fn id(&mut self, t: Tok) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.offsets.insert(id, (t.start, t.end.saturating_sub(1)));
        id
    }

    /// A new id whose offsets are set later (a map entry's id, taken at its `:` before the
    /// key is visited).
    fn reserve_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// A new id placed where `at` is (`ParserHelper::next_id_for`: macro expansions).
    fn id_for(&mut self, at: u64) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let at = self.offsets.get(&at).copied().unwrap_or((0, 0));
        self.offsets.insert(id, at);
        id
    }

    /// `expr : e=conditionalOr (op='?' e1=conditionalOr ':' e2=expr)?`
    fn expr(&mut self) -> Option<IdedExpr> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return None;
        }
        let cond = self.logic(T::Or)?;
        let e = if self.peek() == T::Question {
            let q = self.bump();
            let id = self.id(q);
            let if_true = self.logic(T::Or)?;
            self.expect(T::Colon)?;
            let if_false = self.expr()?;
            call(id, operators::CONDITIONAL, None, vec![cond, if_true, if_false])
        } else {
            cond
        };
        self.depth -= 1;
        Some(e)
    }

    /// `conditionalOr` (`op` `||`) and `conditionalAnd` (`op` `&&`): the terms, each
    /// operator's id taken after the term it precedes, as a balanced tree (the crate's
    /// `LogicManager`, cel-go's `balancer`).
    fn logic(&mut self, op: T) -> Option<IdedExpr> {
        let term = |p: &mut Self| if op == T::Or { p.logic(T::And) } else { p.relation() };
        let first = term(self)?;
        if self.peek() != op {
            return Some(first);
        }
        let mut terms = vec![first];
        let mut ops = Vec::new();
        while self.peek() == op {
            let t = self.bump();
            let next = term(self)?;
            ops.push(self.id(t));
            terms.push(next);
        }
        let func = if op == T::Or { operators::LOGICAL_OR } else { operators::LOGICAL_AND };
        let hi = ops.len() - 1;
        Some(balanced(func, &mut terms, &ops, 0, hi))
    }

    /// `relation`: left-associative, one precedence level.
    fn relation(&mut self) -> Option<IdedExpr> {
        let mut lhs = self.calc(0)?;
        loop {
            let func = match self.peek() {
                T::Lt => operators::LESS,
                T::Le => operators::LESS_EQUALS,
                T::Ge => operators::GREATER_EQUALS,
                T::Gt => operators::GREATER,
                T::Eq => operators::EQUALS,
                T::Ne => operators::NOT_EQUALS,
                T::In => operators::IN,
                _ => return Some(lhs),
            };
            let t = self.bump();
            let id = self.id(t);
            let rhs = self.calc(0)?;
            lhs = call(id, func, None, vec![lhs, rhs]);
        }
    }

    /// `calc`: level 0 `+ -`, level 1 `* / %`, each left-associative.
    fn calc(&mut self, level: u8) -> Option<IdedExpr> {
        let operand = |p: &mut Self| if level == 0 { p.calc(1) } else { p.unary() };
        let mut lhs = operand(self)?;
        loop {
            let func = match (level, self.peek()) {
                (0, T::Plus) => operators::ADD,
                (0, T::Minus) => operators::SUBSTRACT,
                (1, T::Star) => operators::MULTIPLY,
                (1, T::Slash) => operators::DIVIDE,
                (1, T::Percent) => operators::MODULO,
                _ => return Some(lhs),
            };
            let t = self.bump();
            let id = self.id(t);
            let rhs = operand(self)?;
            lhs = call(id, func, None, vec![lhs, rhs]);
        }
    }

    /// `unary`: `member`, `!`+ `member` (`LogicalNot`), `-`+ `member` (`Negate`); an even
    /// run of operators cancels out without a node. A `-` right before a number is the
    /// literal's sign (the `MemberExpr` alternative, which ANTLR prefers); runs of `-`
    /// before a number, and `-` before an unsigned one, fall back.
    fn unary(&mut self) -> Option<IdedExpr> {
        let (kind, func) = match self.peek() {
            T::Bang => (T::Bang, operators::LOGICAL_NOT),
            T::Minus => {
                match self.peek_at(1) {
                    T::Int | T::Float => return self.member(),
                    T::Uint | T::Minus if self.minus_run_before_number() => return None,
                    _ => {}
                }
                (T::Minus, operators::NEGATE)
            }
            _ => return self.member(),
        };
        let first = self.bump();
        let mut count = 1;
        while self.peek() == kind {
            self.bump();
            count += 1;
        }
        if count % 2 == 0 {
            return self.member();
        }
        let id = self.id(first);
        let operand = self.member()?;
        Some(call(id, func, None, vec![operand]))
    }

    /// Whether the `-` run here ends at a number (an ambiguous sign or negation).
    fn minus_run_before_number(&self) -> bool {
        let mut k = 0;
        while self.peek_at(k) == T::Minus {
            k += 1;
        }
        matches!(self.peek_at(k), T::Int | T::Uint | T::Float)
    }

    /// `member`: a primary and its selections, member calls and indexes.
    fn member(&mut self) -> Option<IdedExpr> {
        let signed = self.peek() == T::Minus;
        let mut e = self.primary()?;
        // `-1.f()`, `-1[0]`: which alternative ANTLR prefers is not worth the risk.
        if signed && matches!(self.peek(), T::Dot | T::LBracket) {
            return None;
        }
        loop {
            match self.peek() {
                T::Dot => {
                    let dot = self.bump();
                    let opt = self.optional_mark()?;
                    let name_tok = self.expect(T::Ident)?;
                    let name = self.text_of(name_tok);
                    if !opt && self.peek() == T::LParen {
                        let open = self.bump();
                        let id = self.id(open);
                        let args = self.args()?;
                        e = self.call_or_macro(id, name, Some(e), args)?;
                    } else if opt {
                        let field = self.id(dot);
                        let field = IdedExpr {
                            id: field,
                            expr: Expr::Literal(LiteralValue::String(name.to_string().into())),
                        };
                        let id = self.id(dot);
                        e = call(id, operators::OPT_SELECT, None, vec![e, field]);
                    } else {
                        let id = self.id(dot);
                        e = IdedExpr {
                            id,
                            expr: Expr::Select(SelectExpr {
                                operand: Box::new(e),
                                field: name.to_string(),
                                test: false,
                            }),
                        };
                    }
                }
                T::LBracket => {
                    let open = self.bump();
                    let opt = self.optional_mark()?;
                    let id = self.id(open);
                    let index = self.expr()?;
                    self.expect(T::RBracket)?;
                    let func = if opt { operators::OPT_INDEX } else { operators::INDEX };
                    e = call(id, func, None, vec![e, index]);
                }
                _ => return Some(e),
            }
        }
    }

    /// An optional-syntax `?` here: `Some(true)` taken, `Some(false)` none, `None` where
    /// the grammar or environment does not have it.
    fn optional_mark(&mut self) -> Option<bool> {
        if self.peek() != T::Question {
            return Some(false);
        }
        if !self.optional {
            return None;
        }
        self.bump();
        Some(true)
    }

    /// `exprList? ')'` after a call's `(`: no trailing comma.
    fn args(&mut self) -> Option<Vec<IdedExpr>> {
        let mut args = Vec::new();
        if self.peek() == T::RParen {
            self.bump();
            return Some(args);
        }
        loop {
            args.push(self.expr()?);
            match self.bump().kind {
                T::Comma => {}
                T::RParen => return Some(args),
                _ => return None,
            }
        }
    }

    /// `primary` (without message literals).
    fn primary(&mut self) -> Option<IdedExpr> {
        let t = self.bump();
        match t.kind {
            T::Dot | T::Ident => {
                let (dot, name_tok) = if t.kind == T::Dot { (true, self.expect(T::Ident)?) } else { (false, t) };
                let raw = self.text_of(name_tok);
                if is_reserved_id(raw) {
                    return None;
                }
                let name = if dot { format!(".{}", raw) } else { raw.to_string() };
                match self.peek() {
                    T::LParen => {
                        let open = self.bump();
                        let id = self.id(open);
                        let args = self.args()?;
                        self.call_or_macro(id, &name, None, args)
                    }
                    // A message literal (`CreateMessage`): rare in Kubernetes rules.
                    T::LBrace => None,
                    _ => {
                        let id = self.id(name_tok);
                        Some(IdedExpr { id, expr: Expr::Ident(name) })
                    }
                }
            }
            T::LParen => {
                let e = self.expr()?;
                self.expect(T::RParen)?;
                Some(e)
            }
            T::LBracket => self.list(t),
            T::LBrace => self.map(t),
            T::Minus => {
                let num = self.bump();
                self.literal(num, true)
            }
            _ => self.literal(t, false),
        }
    }

    /// `'[' listInit? ','? ']'` after the `[`.
    fn list(&mut self, open: Tok) -> Option<IdedExpr> {
        let id = self.id(open);
        let mut elements = Vec::new();
        let mut optionals = Vec::new();
        if self.peek() != T::RBracket {
            loop {
                if self.optional_mark()? {
                    optionals.push(elements.len());
                }
                elements.push(self.expr()?);
                match self.peek() {
                    T::Comma => {
                        self.bump();
                        if self.peek() == T::RBracket {
                            break;
                        }
                    }
                    T::RBracket => break,
                    _ => return None,
                }
            }
        }
        self.expect(T::RBracket)?;
        Some(IdedExpr {
            id,
            expr: Expr::List(ListExpr::new_with_optionals(elements, optionals)),
        })
    }

    /// `'{' mapInitializerList? ','? '}'` after the `{`: each entry's id is taken at its
    /// `:` before the key is visited.
    fn map(&mut self, open: Tok) -> Option<IdedExpr> {
        let id = self.id(open);
        let mut entries = Vec::new();
        if self.peek() != T::RBrace {
            loop {
                let entry = self.reserve_id();
                let optional = self.optional_mark()?;
                let key = self.expr()?;
                let col = self.expect(T::Colon)?;
                self.offsets.insert(entry, (col.start, col.end.saturating_sub(1)));
                let value = self.expr()?;
                entries.push(IdedEntryExpr {
                    id: entry,
                    expr: EntryExpr::MapEntry(MapEntryExpr { key, value, optional }),
                });
                match self.peek() {
                    T::Comma => {
                        self.bump();
                        if self.peek() == T::RBrace {
                            break;
                        }
                    }
                    T::RBrace => break,
                    _ => return None,
                }
            }
        }
        self.expect(T::RBrace)?;
        Some(IdedExpr { id, expr: Expr::Map(MapExpr { entries }) })
    }

    /// `literal`, with the sign of `Int`/`Double`: the crate's `visit_Int`, `visit_Uint`,
    /// `visit_Double`, `visit_String`, `visit_Bytes` conversions; the node is at the
    /// literal's token (not the sign).
    fn literal(&mut self, t: Tok, signed: bool) -> Option<IdedExpr> {
        let text = self.text_of(t);
        let value = match (t.kind, signed) {
            (T::Int, _) => {
                let (radix, digits) = match text.strip_prefix("0x") {
                    Some(rest) => (16, rest),
                    None => (10, text),
                };
                let v = if signed {
                    i64::from_str_radix(&format!("-{}", digits), radix).ok()?
                } else {
                    i64::from_str_radix(digits, radix).ok()?
                };
                LiteralValue::Int(v.into())
            }
            (T::Uint, false) => {
                let digits = &text[..text.len() - 1];
                let v = match digits.strip_prefix("0x") {
                    Some(hex) => u64::from_str_radix(hex, 16).ok()?,
                    None => digits.parse::<u64>().ok()?,
                };
                LiteralValue::UInt(v.into())
            }
            (T::Float, _) => {
                let d = if signed { format!("-{}", text).parse::<f64>().ok()? } else { text.parse::<f64>().ok()? };
                if !d.is_finite() {
                    return None;
                }
                LiteralValue::Double(d.into())
            }
            (T::Str, false) => {
                let bytes = unescape(text, false)?;
                LiteralValue::String(String::from_utf8(bytes).ok()?.into())
            }
            (T::Bytes, false) => LiteralValue::Bytes(unescape(&text[1..], true)?.into()),
            (T::True, false) => LiteralValue::Boolean(true.into()),
            (T::False, false) => LiteralValue::Boolean(false.into()),
            (T::Null, false) => LiteralValue::Null,
            _ => return None,
        };
        let id = self.id(t);
        Some(IdedExpr { id, expr: Expr::Literal(value) })
    }

    /// The crate's `call_or_macro`: the standard macros expanded as crdlab's
    /// `standard_macros` do (cel-go's `parser/macro.go`), and the optional and two-variable
    /// comprehension library macros as those libraries do; a call that a macro this parser
    /// does not expand could match falls back, as does any macro error.
    fn call_or_macro(&mut self, id: u64, name: &str, target: Option<IdedExpr>, mut args: Vec<IdedExpr>) -> Option<IdedExpr> {
        let shape = macro_shape(self.opts, target.is_some(), name, args.len());
        match shape {
            MacroShape::None => return Some(call(id, name, target, args)),
            MacroShape::Foreign => return None,
            _ => {}
        }
        let Some(range) = target else {
            // `has(a.f)`: the selection becomes a presence test with a new id.
            let arg = args.pop()?;
            let Expr::Select(mut s) = arg.expr else {
                return None;
            };
            s.test = true;
            let id = self.id_for(id);
            return Some(IdedExpr { id, expr: Expr::Select(s) });
        };
        if shape == MacroShape::OptMap {
            return self.opt_map(id, name == "optMap", range, args);
        }
        if shape == MacroShape::TwoVariable {
            return self.two_variable(id, name, range, args);
        }
        match (name, args.len()) {
            ("all" | "exists" | "exists_one" | "existsOne", 2) => {
                let var = single_var(&args[0])?;
                let pred = args.pop()?;
                let parts = self.quantifier_parts(id, name, pred);
                Some(self.fold(id, range, var, parts))
            }
            ("map", 2 | 3) => {
                let var = single_var(&args[0])?;
                let func = args.pop()?;
                let filter = if args.len() == 2 { args.pop() } else { None };
                let init = self.next(id, Expr::List(ListExpr::new(Vec::new())));
                let cond = self.lit(id, LiteralValue::Boolean(true.into()));
                let a = self.accu(id);
                let single = self.next(id, Expr::List(ListExpr::new(vec![func])));
                let step = self.call_for(id, operators::ADD, vec![a, single]);
                let step = self.with_filter(id, filter, step);
                let result = self.accu(id);
                Some(self.fold(id, range, var, (init, cond, step, result)))
            }
            ("filter", 2) => {
                let var = single_var(&args[0])?;
                let pred = args.pop()?;
                // The element is the iteration variable's own node (cel-go reuses it).
                let elem = args.pop()?;
                let init = self.next(id, Expr::List(ListExpr::new(Vec::new())));
                let cond = self.lit(id, LiteralValue::Boolean(true.into()));
                let a = self.accu(id);
                let single = self.next(id, Expr::List(ListExpr::new(vec![elem])));
                let step = self.call_for(id, operators::ADD, vec![a, single]);
                let step = self.with_filter(id, Some(pred), step);
                let result = self.accu(id);
                Some(self.fold(id, range, var, (init, cond, step, result)))
            }
            _ => None,
        }
    }

    /// The optional library's `optMap` (`wrap`) / `optFlatMap` expansion (crdlab's
    /// `optional::opt_map_expand`, cel-go's `optMap`): `target.hasValue() ?
    /// optional.of(<fold binding the variable to target.value()>) : optional.none()`.
    fn opt_map(&mut self, id: u64, wrap: bool, target: IdedExpr, mut args: Vec<IdedExpr>) -> Option<IdedExpr> {
        let var = match &args[0].expr {
            Expr::Ident(name) => name.clone(),
            _ => return None,
        };
        let map_expr = args.pop()?;
        let target_copy = target.clone();
        let has_value = self.next(id, Expr::Call(CallExpr { func_name: "hasValue".to_string(), target: Some(Box::new(target)), args: Vec::new() }));
        let iter_range = self.next(id, Expr::List(ListExpr::new(Vec::new())));
        let accu_init = self.next(id, Expr::Call(CallExpr { func_name: "value".to_string(), target: Some(Box::new(target_copy)), args: Vec::new() }));
        let loop_cond = self.lit(id, LiteralValue::Boolean(false.into()));
        let loop_step = self.next(id, Expr::Ident(var.clone()));
        let fold = self.next(
            id,
            Expr::Comprehension(Box::new(ComprehensionExpr {
                iter_range,
                iter_var: UNUSED_ITER_VAR.to_string(),
                iter_var2: None,
                accu_var: var,
                accu_init,
                loop_cond,
                loop_step,
                result: map_expr,
            })),
        );
        let present = if wrap { self.call_for(id, "optional.of", vec![fold]) } else { fold };
        let absent = self.call_for(id, "optional.none", Vec::new());
        Some(self.call_for(id, operators::CONDITIONAL, vec![has_value, present, absent]))
    }

    /// The two-variable comprehensions (crdlab's `comprehensions::expand`, cel-go's
    /// `ext/comprehensions.go`): quantifiers with a predicate, transforms with an
    /// optional filter.
    fn two_variable(&mut self, id: u64, name: &str, range: IdedExpr, args: Vec<IdedExpr>) -> Option<IdedExpr> {
        let (v1, v2) = match (&args[0].expr, &args[1].expr) {
            (Expr::Ident(a), Expr::Ident(b)) if a != b && ![a, b].iter().any(|v| *v == ACCU || *v == LEGACY_ACCU) => (a.clone(), b.clone()),
            _ => return None,
        };
        let mut rest: Vec<IdedExpr> = args.into_iter().skip(2).collect();
        let last = rest.pop()?;
        let filter = rest.pop();
        let (init, cond, step, result) = match name {
            "transformList" => {
                let a = self.accu(id);
                let single = self.next(id, Expr::List(ListExpr::new(vec![last])));
                let step = self.call_for(id, operators::ADD, vec![a, single]);
                let step = self.with_filter(id, filter, step);
                let init = self.next(id, Expr::List(ListExpr::new(Vec::new())));
                let cond = self.lit(id, LiteralValue::Boolean(true.into()));
                (init, cond, step, self.accu(id))
            }
            "transformMap" | "transformMapEntry" => {
                let a = self.accu(id);
                let step = if name == "transformMap" {
                    let key = self.next(id, Expr::Ident(v1.clone()));
                    self.call_for(id, MAP_INSERT, vec![a, key, last])
                } else {
                    self.call_for(id, MAP_INSERT, vec![a, last])
                };
                let step = self.with_filter(id, filter, step);
                let init = self.next(id, Expr::Map(MapExpr::default()));
                let cond = self.lit(id, LiteralValue::Boolean(true.into()));
                (init, cond, step, self.accu(id))
            }
            _ => {
                if filter.is_some() {
                    return None;
                }
                self.quantifier_parts(id, name, last)
            }
        };
        Some(self.next(
            id,
            Expr::Comprehension(Box::new(ComprehensionExpr {
                iter_range: range,
                iter_var: v1,
                iter_var2: Some(v2),
                accu_var: ACCU.to_string(),
                accu_init: init,
                loop_cond: cond,
                loop_step: step,
                result,
            })),
        ))
    }

    /// A macro expansion's node (`MacroExprHelper::next_expr`).
    fn next(&mut self, at: u64, expr: Expr) -> IdedExpr {
        let id = self.id_for(at);
        IdedExpr { id, expr }
    }

    fn lit(&mut self, at: u64, v: LiteralValue) -> IdedExpr {
        self.next(at, Expr::Literal(v))
    }

    fn accu(&mut self, at: u64) -> IdedExpr {
        self.next(at, Expr::Ident(ACCU.to_string()))
    }

    fn call_for(&mut self, at: u64, func: &str, args: Vec<IdedExpr>) -> IdedExpr {
        let id = self.id_for(at);
        call(id, func, None, args)
    }

    /// `filter ? step : @result` when there is a filter.
    fn with_filter(&mut self, at: u64, filter: Option<IdedExpr>, step: IdedExpr) -> IdedExpr {
        match filter {
            Some(f) => {
                let a = self.accu(at);
                self.call_for(at, operators::CONDITIONAL, vec![f, step, a])
            }
            None => step,
        }
    }

    /// (init, condition, step, result) of cel-go's `makeQuantifier` over `pred`.
    fn quantifier_parts(&mut self, at: u64, name: &str, pred: IdedExpr) -> (IdedExpr, IdedExpr, IdedExpr, IdedExpr) {
        match name {
            "exists" => {
                let init = self.lit(at, LiteralValue::Boolean(false.into()));
                let a = self.accu(at);
                let not = self.call_for(at, operators::LOGICAL_NOT, vec![a]);
                let cond = self.call_for(at, operators::NOT_STRICTLY_FALSE, vec![not]);
                let a = self.accu(at);
                let step = self.call_for(at, operators::LOGICAL_OR, vec![a, pred]);
                let result = self.accu(at);
                (init, cond, step, result)
            }
            "exists_one" | "existsOne" => {
                let init = self.lit(at, LiteralValue::Int(0.into()));
                let cond = self.lit(at, LiteralValue::Boolean(true.into()));
                let a = self.accu(at);
                let one = self.lit(at, LiteralValue::Int(1.into()));
                let inc = self.call_for(at, operators::ADD, vec![a, one]);
                let a = self.accu(at);
                let step = self.call_for(at, operators::CONDITIONAL, vec![pred, inc, a]);
                let a = self.accu(at);
                let one = self.lit(at, LiteralValue::Int(1.into()));
                let result = self.call_for(at, operators::EQUALS, vec![a, one]);
                (init, cond, step, result)
            }
            _ => {
                let init = self.lit(at, LiteralValue::Boolean(true.into()));
                let a = self.accu(at);
                let cond = self.call_for(at, operators::NOT_STRICTLY_FALSE, vec![a]);
                let a = self.accu(at);
                let step = self.call_for(at, operators::LOGICAL_AND, vec![a, pred]);
                let result = self.accu(at);
                (init, cond, step, result)
            }
        }
    }

    fn fold(&mut self, at: u64, range: IdedExpr, var: String, parts: (IdedExpr, IdedExpr, IdedExpr, IdedExpr)) -> IdedExpr {
        let (accu_init, loop_cond, loop_step, result) = parts;
        self.next(
            at,
            Expr::Comprehension(Box::new(ComprehensionExpr {
                iter_range: range,
                iter_var: var,
                iter_var2: None,
                accu_var: ACCU.to_string(),
                accu_init,
                loop_cond,
                loop_step,
                result,
            })),
        )
    }
}

/// A one-variable macro's iteration variable: a plain name that is not the accumulator
/// (else the macro's error, left to the ANTLR path).
fn single_var(e: &IdedExpr) -> Option<String> {
    match &e.expr {
        Expr::Ident(name) if name != ACCU && name != LEGACY_ACCU => Some(name.clone()),
        _ => None,
    }
}

/// The crate's `LogicManager::balanced_tree` over `terms[lo..=hi+1]` and `ops[lo..=hi]`.
fn balanced(func: &str, terms: &mut [IdedExpr], ops: &[u64], lo: usize, hi: usize) -> IdedExpr {
    let mid = (lo + hi).div_ceil(2);
    let left = if mid == lo { std::mem::take(&mut terms[mid]) } else { balanced(func, terms, ops, lo, mid - 1) };
    let right = if mid == hi { std::mem::take(&mut terms[mid + 1]) } else { balanced(func, terms, ops, mid + 1, hi) };
    call(ops[mid], func, None, vec![left, right])
}

/// cel-go's reserved identifiers (the crate's `is_reserved_id`), refused as identifiers and
/// global function names.
fn is_reserved_id(name: &str) -> bool {
    matches!(
        name,
        "as" | "break"
            | "const"
            | "continue"
            | "else"
            | "for"
            | "function"
            | "if"
            | "import"
            | "let"
            | "loop"
            | "package"
            | "namespace"
            | "return"
            | "var"
            | "void"
            | "while"
    )
}
