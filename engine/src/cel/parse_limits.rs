//! cel-go's parser limits, checked on the token stream before the `cel` crate parses:
//!
//! - `expression code point size exceeds limit: size: N, limit 100000` (cel-go's default
//!   `ExpressionSizeCodePointLimit`);
//! - `expression recursion limit exceeded: 250`: cel-go's `recursionListener` counts, per
//!   grammar rule, how deeply the ANTLR parser has entered it (left-recursive rules exit
//!   before each `pushNewRecursionContext`, so `a == b == c` stays at one level while
//!   parentheses, brackets, call arguments and right operands nest);
//! - `max recursion depth exceeded`: cel-go's visitor counts nested ternaries, relations,
//!   arithmetic operations, selections, member calls and indexes (so `a == b == c` nests,
//!   while parentheses, lists and global calls do not), at most 250 deep.
//!
//! One more bound is crdlab's own, not cel-go's: [`MAX_NESTING`] nested expressions
//! (parentheses, list and map literals, call arguments, indexes, ternary branches: each one
//! a new `expr` rule the ANTLR parser enters). The `cel` crate's generated parser takes about
//! 8 KiB of stack per nested `expr` (ten rule functions, then the visitor, the checker and the
//! interpreter each recurse once more), so cel-go's 250 would need 2 MiB of stack where
//! WebAssembly has 1 MiB (measured in node: 150 nested lists or 120 nested `exists` overflow
//! V8's stack); 64 keeps half of that as margin, and real rules nest fewer than ten deep.
//!
//! cel-go reports these as `ERROR: <input>:-1:0: <message>` and nothing else. The
//! scanner below mirrors the grammar's rule structure (`parser/gen/CEL.g4`) only as far as
//! needed to count; on input it cannot follow (a lexical or syntax error) it gives up and
//! leaves the diagnostics to the parser. It never recurses deeper than the limit allows.

/// cel-go's default maximum parse recursion depth.
pub const MAX_RECURSION_DEPTH: usize = 250;
/// crdlab's bound on nested expressions (see the module doc): deeper input is refused with
/// [`nesting_message`] before the recursive parser runs.
pub const MAX_NESTING: usize = 64;
/// cel-go's default expression size limit, in code points.
pub const EXPRESSION_SIZE_LIMIT: usize = 100_000;

/// The message of the limit `text` exceeds, if any.
pub fn exceeded(text: &str) -> Option<String> {
    // Every level any of the counters below reaches takes one more token (a rule is
    // entered again only after the parser consumed one), and the first level is free: a
    // text of fewer bytes than the smallest limit, MAX_NESTING, reaches none of them. Most
    // rules are that short, and the scan is a tenth of their compile.
    if text.len() < MAX_NESTING {
        return None;
    }
    let size = text.chars().count();
    if size > EXPRESSION_SIZE_LIMIT {
        return Some(format!(
            "expression code point size exceeds limit: size: {}, limit {}",
            size, EXPRESSION_SIZE_LIMIT
        ));
    }
    let Some(tokens) = lex(text) else {
        return rough_nesting_exceeded(text).then(nesting_message);
    };
    let mut s = Scanner {
        toks: &tokens,
        pos: 0,
        depth: [0; RULES],
        max_nesting: 0,
    };
    match s.start() {
        Ok(visitor_depth) if visitor_depth > MAX_RECURSION_DEPTH => {
            Some("max recursion depth exceeded".into())
        }
        Ok(_) if s.max_nesting > MAX_NESTING => Some(nesting_message()),
        Ok(_) => None,
        Err(Stop::Listener) => Some(format!(
            "expression recursion limit exceeded: {}",
            MAX_RECURSION_DEPTH
        )),
        // The parser recovers from the error and goes on, as deep as the rest nests.
        Err(Stop::Syntax) => (s.max_nesting > MAX_NESTING || rough_nesting_exceeded(text))
            .then(nesting_message),
    }
}

/// The error for an expression nested deeper than [`MAX_NESTING`]: crdlab's limit, which
/// the apiserver does not have (it stops at 250), so the text says whose it is.
pub fn nesting_message() -> String {
    format!(
        "expression nesting exceeds crdlab's limit: {} (the apiserver allows {})",
        MAX_NESTING, MAX_RECURSION_DEPTH
    )
}

/// For input the scanner does not follow (a lexical or syntax error, after which the parser
/// recovers and goes on): whether brackets outside quotes, or brackets and `?` together,
/// could nest deeper than [`MAX_NESTING`]. An over-estimate, so only broken input that holds
/// many brackets or `?` gets the nesting error instead of its syntax error.
fn rough_nesting_exceeded(text: &str) -> bool {
    let (mut depth, mut max, mut questions) = (0usize, 0usize, 0usize);
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in text.chars() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q || c == '\n' {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' | '[' | '{' => {
                depth += 1;
                max = max.max(depth);
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            '?' => questions += 1,
            _ => {}
        }
    }
    max + questions > MAX_NESTING
}

/// Code-point offsets of backtick-escaped identifiers (`` a.`b-c` ``) where the grammar
/// takes them (a selection, a message field), which cel-go rejects with
/// `unsupported syntax: '`'` unless `EnableIdentifierEscapeSyntax` is on.
pub fn escaped_identifiers(text: &str) -> Vec<usize> {
    let Some(toks) = lex(text) else {
        return Vec::new();
    };
    let kind = |i: usize, back: usize| -> Tok {
        i.checked_sub(back)
            .and_then(|j| toks.get(j))
            .map(|t| t.kind)
            .unwrap_or(Tok::Eof)
    };
    toks.iter()
        .enumerate()
        .filter(|(i, t)| {
            t.kind == Tok::EscIdent
                && (kind(*i, 1) == Tok::Dot
                    || (kind(*i, 1) == Tok::Question && kind(*i, 2) == Tok::Dot)
                    || (toks.get(i + 1).map(|n| n.kind) == Some(Tok::Colon)
                        && matches!(kind(*i, 1), Tok::LBrace | Tok::Comma | Tok::Question)))
        })
        .map(|(_, t)| t.offset)
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Ident,
    EscIdent,
    Literal,
    /// `-` (also a sign of a literal).
    Minus,
    Bang,
    /// `*`, `/`, `%`.
    MulOp,
    Plus,
    /// `<`, `<=`, `>=`, `>`, `==`, `!=`, `in`.
    RelOp,
    And,
    Or,
    Question,
    Colon,
    Dot,
    Comma,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    /// A backquote the lexer does not know (cel-go before v0.23).
    Backquote,
    Eof,
}

#[derive(Clone, Copy, Debug)]
struct Token {
    kind: Tok,
    /// Code-point offset.
    offset: usize,
}

/// The CEL lexer (`CEL.g4` lexer rules), enough to delimit tokens; `None` on input the
/// lexer would not accept.
fn lex(text: &str) -> Option<Vec<Token>> {
    lex_with(text, true)
}

/// [`lex`]; without `escapes` (the lexer of cel-go before v0.23) a backquote is a
/// one-character [`Tok::Backquote`], the character ANTLR's lexer reports and skips.
fn lex_with(text: &str, escapes: bool) -> Option<Vec<Token>> {
    let cs: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let at = |i: usize| cs.get(i).copied().unwrap_or('\0');
    while i < cs.len() {
        let c = cs[i];
        let start = i;
        if matches!(c, ' ' | '\t' | '\r' | '\n' | '\u{c}') {
            i += 1;
            continue;
        }
        if c == '/' && at(i + 1) == '/' {
            while i < cs.len() && cs[i] != '\n' {
                i += 1;
            }
            continue;
        }
        let two = (c, at(i + 1));
        let (kind, len) = match two {
            ('=', '=') | ('!', '=') | ('<', '=') | ('>', '=') => (Tok::RelOp, 2),
            ('&', '&') => (Tok::And, 2),
            ('|', '|') => (Tok::Or, 2),
            ('<', _) | ('>', _) => (Tok::RelOp, 1),
            ('!', _) => (Tok::Bang, 1),
            ('-', _) => (Tok::Minus, 1),
            ('+', _) => (Tok::Plus, 1),
            ('*', _) | ('/', _) | ('%', _) => (Tok::MulOp, 1),
            ('?', _) => (Tok::Question, 1),
            (':', _) => (Tok::Colon, 1),
            (',', _) => (Tok::Comma, 1),
            ('(', _) => (Tok::LParen, 1),
            (')', _) => (Tok::RParen, 1),
            ('[', _) => (Tok::LBracket, 1),
            (']', _) => (Tok::RBracket, 1),
            ('{', _) => (Tok::LBrace, 1),
            ('}', _) => (Tok::RBrace, 1),
            ('.', d) if d.is_ascii_digit() => {
                i = number_end(&cs, i)?;
                out.push(Token {
                    kind: Tok::Literal,
                    offset: start,
                });
                continue;
            }
            ('.', _) => (Tok::Dot, 1),
            ('`', _) if !escapes => (Tok::Backquote, 1),
            ('`', _) => {
                let mut j = i + 1;
                while j < cs.len()
                    && (cs[j].is_ascii_alphanumeric()
                        || matches!(cs[j], '_' | '.' | '-' | '/' | ' '))
                {
                    j += 1;
                }
                if j == i + 1 || at(j) != '`' {
                    return None;
                }
                i = j + 1;
                out.push(Token {
                    kind: Tok::EscIdent,
                    offset: start,
                });
                continue;
            }
            (d, _) if d.is_ascii_digit() => {
                i = number_end(&cs, i)?;
                out.push(Token {
                    kind: Tok::Literal,
                    offset: start,
                });
                continue;
            }
            ('"', _) | ('\'', _) => {
                i = string_end(&cs, i, false)?;
                out.push(Token {
                    kind: Tok::Literal,
                    offset: start,
                });
                continue;
            }
            (l, _) if l.is_ascii_alphabetic() || l == '_' => {
                let mut j = i;
                while j < cs.len() && (cs[j].is_ascii_alphanumeric() || cs[j] == '_') {
                    j += 1;
                }
                let word: String = cs[i..j].iter().collect();
                // String and bytes prefixes: r"..", b"..", br"..", bR'..'.
                let quote = matches!(at(j), '"' | '\'');
                let lower = word.to_ascii_lowercase();
                if quote && (lower == "r" || lower == "b" || lower == "br") {
                    let raw = lower.contains('r');
                    i = string_end(&cs, j, raw)?;
                    out.push(Token {
                        kind: Tok::Literal,
                        offset: start,
                    });
                    continue;
                }
                i = j;
                let kind = match word.as_str() {
                    "in" => Tok::RelOp,
                    "true" | "false" | "null" => Tok::Literal,
                    _ => Tok::Ident,
                };
                out.push(Token {
                    kind,
                    offset: start,
                });
                continue;
            }
            _ => return None,
        };
        i += len;
        out.push(Token {
            kind,
            offset: start,
        });
    }
    out.push(Token {
        kind: Tok::Eof,
        offset: cs.len(),
    });
    Some(out)
}

/// The end of a number literal starting at `i` (`NUM_FLOAT`, `NUM_INT`, `NUM_UINT`).
fn number_end(cs: &[char], mut i: usize) -> Option<usize> {
    let at = |i: usize| cs.get(i).copied().unwrap_or('\0');
    let digits = |mut i: usize| {
        while at(i).is_ascii_digit() {
            i += 1;
        }
        i
    };
    let exponent = |i: usize| -> usize {
        if matches!(at(i), 'e' | 'E') {
            let mut j = i + 1;
            if matches!(at(j), '+' | '-') {
                j += 1;
            }
            if at(j).is_ascii_digit() {
                return digits(j);
            }
        }
        i
    };
    if at(i) == '.' {
        return Some(exponent(digits(i + 1)));
    }
    if at(i) == '0' && at(i + 1) == 'x' && at(i + 2).is_ascii_hexdigit() {
        i += 2;
        while at(i).is_ascii_hexdigit() {
            i += 1;
        }
    } else {
        i = digits(i);
        if at(i) == '.' && at(i + 1).is_ascii_digit() {
            return Some(exponent(digits(i + 1)));
        }
        let e = exponent(i);
        if e != i {
            return Some(e);
        }
    }
    if matches!(at(i), 'u' | 'U') {
        i += 1;
    }
    Some(i)
}

/// The end of a quoted string starting at the quote `i`.
fn string_end(cs: &[char], i: usize, raw: bool) -> Option<usize> {
    let q = *cs.get(i)?;
    let triple = cs.get(i + 1) == Some(&q) && cs.get(i + 2) == Some(&q);
    let mut j = if triple { i + 3 } else { i + 1 };
    while j < cs.len() {
        let c = cs[j];
        if c == '\\' && !raw {
            // An escape consumes the next character (the lexer checks the sequence).
            j += 2;
            continue;
        }
        if triple {
            if c == q && cs.get(j + 1) == Some(&q) && cs.get(j + 2) == Some(&q) {
                return Some(j + 3);
            }
        } else {
            if c == '\n' || c == '\r' {
                return None;
            }
            if c == q {
                return Some(j + 1);
            }
        }
        j += 1;
    }
    None
}

/// Grammar rules the listener counts separately.
#[derive(Clone, Copy)]
enum Rule {
    Start,
    Expr,
    ConditionalOr,
    ConditionalAnd,
    Relation,
    Calc,
    Unary,
    Member,
    Primary,
    ExprList,
    ListInit,
    FieldInitializerList,
    OptField,
    MapInitializerList,
    EscapeIdent,
    OptExpr,
    Literal,
}

const RULES: usize = 17;

enum Stop {
    /// A rule was entered more than the limit allows.
    Listener,
    /// Input the scanner does not follow.
    Syntax,
}

struct Scanner<'t> {
    toks: &'t [Token],
    pos: usize,
    depth: [usize; RULES],
    /// The deepest `expr` nesting seen (the start rule's `expr` is 1).
    max_nesting: usize,
}

/// Every scanner function returns the visitor depth of what it scanned.
type Depth = Result<usize, Stop>;

impl<'t> Scanner<'t> {
    fn peek(&self) -> Tok {
        self.toks.get(self.pos).map(|t| t.kind).unwrap_or(Tok::Eof)
    }
    fn peek_at(&self, n: usize) -> Tok {
        self.toks
            .get(self.pos + n)
            .map(|t| t.kind)
            .unwrap_or(Tok::Eof)
    }
    fn bump(&mut self) {
        self.pos += 1;
    }
    fn expect(&mut self, k: Tok) -> Result<(), Stop> {
        if self.peek() == k {
            self.bump();
            Ok(())
        } else {
            Err(Stop::Syntax)
        }
    }
    fn enter(&mut self, r: Rule) -> Result<(), Stop> {
        let d = &mut self.depth[r as usize];
        *d += 1;
        if matches!(r, Rule::Expr) {
            self.max_nesting = self.max_nesting.max(*d);
        }
        if *d > MAX_RECURSION_DEPTH {
            Err(Stop::Listener)
        } else {
            Ok(())
        }
    }
    fn exit(&mut self, r: Rule) {
        let d = &mut self.depth[r as usize];
        *d = d.saturating_sub(1);
    }
    fn rule(&mut self, r: Rule, f: impl FnOnce(&mut Self) -> Depth) -> Depth {
        self.enter(r)?;
        let out = f(self)?;
        self.exit(r);
        Ok(out)
    }

    fn start(&mut self) -> Depth {
        self.rule(Rule::Start, |s| {
            let d = s.expr()?;
            s.expect(Tok::Eof)?;
            Ok(d)
        })
    }

    fn expr(&mut self) -> Depth {
        self.rule(Rule::Expr, |s| {
            let c = s.conditional_or()?;
            if s.peek() != Tok::Question {
                return Ok(c);
            }
            s.bump();
            let e1 = s.conditional_or()?;
            s.expect(Tok::Colon)?;
            let e2 = s.expr()?;
            Ok(1 + c.max(e1).max(e2))
        })
    }

    fn conditional_or(&mut self) -> Depth {
        self.rule(Rule::ConditionalOr, |s| {
            let mut d = s.conditional_and()?;
            while s.peek() == Tok::Or {
                s.bump();
                d = d.max(s.conditional_and()?);
            }
            Ok(d)
        })
    }

    fn conditional_and(&mut self) -> Depth {
        self.rule(Rule::ConditionalAnd, |s| {
            let mut d = s.relation(0)?;
            while s.peek() == Tok::And {
                s.bump();
                d = d.max(s.relation(0)?);
            }
            Ok(d)
        })
    }

    /// `relation[_p] : calc ({precpred(1)}? op relation[2])*`.
    fn relation(&mut self, p: u8) -> Depth {
        self.rule(Rule::Relation, |s| {
            let mut d = s.calc(0)?;
            while s.peek() == Tok::RelOp && 1 >= p {
                s.bump();
                let r = s.relation(2)?;
                d = 1 + d.max(r);
            }
            Ok(d)
        })
    }

    /// `calc[_p] : unary ({precpred(2)}? mulop calc[3] | {precpred(1)}? addop calc[2])*`.
    fn calc(&mut self, p: u8) -> Depth {
        self.rule(Rule::Calc, |s| {
            let mut d = s.unary()?;
            loop {
                let r = match s.peek() {
                    Tok::MulOp if 2 >= p => {
                        s.bump();
                        s.calc(3)?
                    }
                    Tok::Plus | Tok::Minus if 1 >= p => {
                        s.bump();
                        s.calc(2)?
                    }
                    _ => break,
                };
                d = 1 + d.max(r);
            }
            Ok(d)
        })
    }

    fn unary(&mut self) -> Depth {
        self.rule(Rule::Unary, |s| {
            match s.peek() {
                Tok::Bang => {
                    while s.peek() == Tok::Bang {
                        s.bump();
                    }
                }
                // `-1` is a literal with a sign; `-x` negates: either way no depth.
                Tok::Minus if s.peek_at(1) != Tok::Literal => {
                    while s.peek() == Tok::Minus && s.peek_at(1) != Tok::Literal {
                        s.bump();
                    }
                }
                _ => {}
            }
            s.member()
        })
    }

    fn member(&mut self) -> Depth {
        self.rule(Rule::Member, |s| {
            let mut d = s.primary()?;
            loop {
                match s.peek() {
                    Tok::Dot => {
                        s.bump();
                        let optional = s.peek() == Tok::Question;
                        if optional {
                            s.bump();
                        }
                        if !optional && s.peek() == Tok::Ident && s.peek_at(1) == Tok::LParen {
                            s.bump();
                            s.bump();
                            let args = if s.peek() == Tok::RParen {
                                0
                            } else {
                                s.expr_list()?
                            };
                            s.expect(Tok::RParen)?;
                            d = 1 + d.max(args);
                        } else {
                            s.escape_ident()?;
                            d += 1;
                        }
                    }
                    Tok::LBracket => {
                        s.bump();
                        if s.peek() == Tok::Question {
                            s.bump();
                        }
                        let i = s.expr()?;
                        s.expect(Tok::RBracket)?;
                        d = 1 + d.max(i);
                    }
                    _ => break,
                }
            }
            Ok(d)
        })
    }

    fn escape_ident(&mut self) -> Result<(), Stop> {
        self.rule(Rule::EscapeIdent, |s| match s.peek() {
            Tok::Ident | Tok::EscIdent => {
                s.bump();
                Ok(0)
            }
            _ => Err(Stop::Syntax),
        })
        .map(|_| ())
    }

    fn primary(&mut self) -> Depth {
        self.rule(Rule::Primary, |s| match s.peek() {
            Tok::Dot | Tok::Ident => {
                if s.peek() == Tok::Dot {
                    s.bump();
                }
                s.expect(Tok::Ident)?;
                // A message construction `a.b.C{...}`?
                let mut n = 0;
                while s.peek_at(n) == Tok::Dot && s.peek_at(n + 1) == Tok::Ident {
                    n += 2;
                }
                if s.peek_at(n) == Tok::LBrace {
                    s.pos += n + 1;
                    let d = if s.peek() == Tok::RBrace || s.peek() == Tok::Comma {
                        0
                    } else {
                        s.field_initializer_list()?
                    };
                    if s.peek() == Tok::Comma {
                        s.bump();
                    }
                    s.expect(Tok::RBrace)?;
                    return Ok(d);
                }
                if s.peek() == Tok::LParen {
                    s.bump();
                    let args = if s.peek() == Tok::RParen {
                        0
                    } else {
                        s.expr_list()?
                    };
                    s.expect(Tok::RParen)?;
                    return Ok(args);
                }
                Ok(0)
            }
            Tok::LParen => {
                s.bump();
                let d = s.expr()?;
                s.expect(Tok::RParen)?;
                Ok(d)
            }
            Tok::LBracket => {
                s.bump();
                let d = if matches!(s.peek(), Tok::RBracket | Tok::Comma) {
                    0
                } else {
                    s.list_init()?
                };
                if s.peek() == Tok::Comma {
                    s.bump();
                }
                s.expect(Tok::RBracket)?;
                Ok(d)
            }
            Tok::LBrace => {
                s.bump();
                let d = if matches!(s.peek(), Tok::RBrace | Tok::Comma) {
                    0
                } else {
                    s.map_initializer_list()?
                };
                if s.peek() == Tok::Comma {
                    s.bump();
                }
                s.expect(Tok::RBrace)?;
                Ok(d)
            }
            Tok::Literal | Tok::Minus => s.rule(Rule::Literal, |s| {
                if s.peek() == Tok::Minus {
                    s.bump();
                }
                s.expect(Tok::Literal)?;
                Ok(0)
            }),
            _ => Err(Stop::Syntax),
        })
    }

    fn expr_list(&mut self) -> Depth {
        self.rule(Rule::ExprList, |s| {
            let mut d = s.expr()?;
            while s.peek() == Tok::Comma {
                s.bump();
                d = d.max(s.expr()?);
            }
            Ok(d)
        })
    }

    fn opt_expr(&mut self) -> Depth {
        self.rule(Rule::OptExpr, |s| {
            if s.peek() == Tok::Question {
                s.bump();
            }
            s.expr()
        })
    }

    fn list_init(&mut self) -> Depth {
        self.rule(Rule::ListInit, |s| {
            let mut d = s.opt_expr()?;
            while s.peek() == Tok::Comma && s.peek_at(1) != Tok::RBracket {
                s.bump();
                d = d.max(s.opt_expr()?);
            }
            Ok(d)
        })
    }

    fn map_initializer_list(&mut self) -> Depth {
        self.rule(Rule::MapInitializerList, |s| {
            let mut d = 0;
            loop {
                d = d.max(s.opt_expr()?);
                s.expect(Tok::Colon)?;
                d = d.max(s.expr()?);
                if s.peek() == Tok::Comma && s.peek_at(1) != Tok::RBrace {
                    s.bump();
                } else {
                    return Ok(d);
                }
            }
        })
    }

    fn field_initializer_list(&mut self) -> Depth {
        self.rule(Rule::FieldInitializerList, |s| {
            let mut d = 0;
            loop {
                s.rule(Rule::OptField, |s| {
                    if s.peek() == Tok::Question {
                        s.bump();
                    }
                    s.escape_ident()?;
                    Ok(0)
                })?;
                s.expect(Tok::Colon)?;
                d = d.max(s.expr()?);
                if s.peek() == Tok::Comma && s.peek_at(1) != Tok::RBrace {
                    s.bump();
                } else {
                    return Ok(d);
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_grammar_reports_backquotes_and_optional_question_marks() {
        // cel-go before v0.23: each backquote, skipped.
        let o = old_grammar("m.`a-b` == 1", false, true).unwrap();
        assert_eq!(o.text, "m. a-b  == 1");
        let at: Vec<usize> = o.errors.iter().map(|e| e.0).collect();
        assert_eq!(at, vec![2, 6]);
        assert_eq!(o.errors[0].1, "Syntax error: token recognition error at: '`'");
        assert!(old_grammar("m.`a-b` == 1", true, true).is_none());
        assert!(old_grammar("'`' == x", false, true).is_none(), "inside a string");
        // cel-go v0.12: `?` after `.` (deleted), a list's `,` (ends the list).
        let o = old_grammar("a.?b + [1, ?c]", true, false).unwrap();
        assert_eq!(o.text, "a. b + [1] ?c]");
        assert_eq!(o.errors[0], (2, "Syntax error: extraneous input '?' expecting IDENTIFIER".to_string()));
        assert_eq!(o.errors[1], (11, "Syntax error: missing ']' at '?'".to_string()));
        // A message literal's field set; a map's.
        let o = old_grammar("M{?f: 1} == {?1: 2}", true, false).unwrap();
        assert_eq!(o.errors[0].1, "Syntax error: extraneous input '?' expecting {'}', ',', IDENTIFIER}");
        assert!(o.errors[1].1.starts_with("Syntax error: extraneous input '?' expecting {'[', '{', '}', '('"));
        // A conditional is not optional syntax.
        assert!(old_grammar("a ? b : c", true, false).is_none());
        // `.?` not followed by an identifier is left to the parser.
        assert!(old_grammar("a.?(b)", true, false).is_none());
    }

    fn chain(op: &str, n: usize, leaf: &str) -> String {
        vec![leaf; n + 1].join(op)
    }

    #[test]
    fn visitor_depth_counts_operator_chains() {
        // 250 relations over a selection: 251 visitor levels (the apiserver's vector).
        assert_eq!(
            exceeded(&chain(" == ", 250, "self.val1")).as_deref(),
            Some("max recursion depth exceeded")
        );
        assert_eq!(exceeded(&chain(" == ", 249, "self.val1")), None);
        assert_eq!(exceeded(&chain(" == ", 250, "x")), None);
        assert_eq!(
            exceeded(&chain(" + ", 251, "1")).as_deref(),
            Some("max recursion depth exceeded")
        );
        // Logical operators are flat lists; unary operators are not counted.
        assert_eq!(exceeded(&chain(" && ", 5000, "true")), None);
        assert_eq!(exceeded(&format!("{}1", "-".repeat(5000))), None);
        // Member chains nest.
        assert_eq!(
            exceeded(&format!("a{}", ".b".repeat(251))).as_deref(),
            Some("max recursion depth exceeded")
        );
        assert_eq!(exceeded(&format!("a{}", ".b".repeat(250))), None);
    }

    #[test]
    fn listener_counts_nesting() {
        let parens = |n: usize| format!("{}1{}", "(".repeat(n), ")".repeat(n));
        // cel-go accepts 249 (crdlab's own bound answers first, see below).
        assert_eq!(exceeded(&parens(249)), Some(nesting_message()));
        assert_eq!(
            exceeded(&parens(250)).as_deref(),
            Some("expression recursion limit exceeded: 250")
        );
        let lists = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
        assert_eq!(exceeded(&lists(249)), Some(nesting_message()));
        assert_eq!(
            exceeded(&lists(250)).as_deref(),
            Some("expression recursion limit exceeded: 250")
        );
        // Deep input the scanner cannot follow past its error is left to the parser.
        assert_eq!(exceeded("(((1"), None);
        assert_eq!(exceeded(&format!("{}#", "(".repeat(10))), None);
    }

    #[test]
    fn crdlab_bounds_nested_expressions() {
        assert_eq!(
            nesting_message(),
            "expression nesting exceeds crdlab's limit: 64 (the apiserver allows 250)"
        );
        let parens = |n: usize| format!("{}1{}", "(".repeat(n), ")".repeat(n));
        // The whole expression is the first `expr`: MAX_NESTING - 1 brackets make MAX_NESTING.
        assert_eq!(exceeded(&parens(MAX_NESTING - 1)), None);
        assert_eq!(exceeded(&parens(MAX_NESTING)), Some(nesting_message()));
        let calls = |n: usize| format!("{}1{}", "f(".repeat(n), ")".repeat(n));
        assert_eq!(exceeded(&calls(MAX_NESTING - 1)), None);
        assert_eq!(exceeded(&calls(MAX_NESTING)), Some(nesting_message()));
        let maps = |n: usize| format!("{}1{}", "{1: ".repeat(n), "}".repeat(n));
        assert_eq!(exceeded(&maps(MAX_NESTING)), Some(nesting_message()));
        // A ternary's `else` branch is a nested expression; chains and `!`/`-` are loops.
        let ternaries = |n: usize| format!("{}1", "a ? b : ".repeat(n));
        assert_eq!(exceeded(&ternaries(MAX_NESTING - 1)), None);
        assert_eq!(exceeded(&ternaries(MAX_NESTING)), Some(nesting_message()));
        assert_eq!(exceeded(&format!("a{}", ".b(c)".repeat(200))), None);
        assert_eq!(exceeded(&format!("{}a", "!".repeat(1000))), None);
        // Broken input: the parser recovers and nests on, so brackets are counted roughly.
        assert_eq!(exceeded(&format!("{} +", parens(MAX_NESTING + 8))), Some(nesting_message()));
        assert_eq!(exceeded(&format!("{} #", parens(MAX_NESTING + 8))), Some(nesting_message()));
        assert_eq!(exceeded(&format!("{} #", parens(10))), None);
        assert_eq!(exceeded(&format!("'((((' + {} #", parens(10))), None);
    }

    #[test]
    fn size_limit() {
        let long = format!("'{}'", "a".repeat(EXPRESSION_SIZE_LIMIT));
        assert_eq!(
            exceeded(&long).as_deref(),
            Some("expression code point size exceeds limit: size: 100002, limit 100000")
        );
    }

    #[test]
    fn lexes_literals_and_escapes() {
        assert_eq!(
            exceeded("r'a\\' + b\"x\" + br'''y''' + 1.5e3 + .5 + 0x1Fu + 1u + \"\\\"\" // c"),
            None
        );
        assert_eq!(escaped_identifiers("m.`a-b` == '`x`'"), vec![2]);
        assert_eq!(escaped_identifiers("m.b"), Vec::<usize>::new());
    }
}

/// What cel-go's ANTLR parser of an older grammar reports before the `cel` crate (whose
/// grammar is cel-go v0.23's) sees the text: the errors, and the text as that parser
/// reads it after its error recovery (same length in code points, so positions hold).
pub struct OldGrammar {
    pub text: String,
    /// (code-point offset, message).
    pub errors: Vec<(usize, String)>,
}

/// The token sets of cel-go v0.12's grammar (no `'?'` alternatives) where a `?` of
/// optional syntax stands: an expression (an index), a list element or `]`, a map entry or
/// `}`, a message field or `}`. ANTLR lists them in token-type order.
const EXPR_START: &str = "'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER";
const LIST_START: &str = "'[', ']', '{', '(', '.', ',', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER";
const MAP_START: &str = "'[', '{', '}', '(', '.', ',', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER";
const FIELD_START: &str = "'}', ',', IDENTIFIER";

/// The bracket a token sits in, for the scan of [`old_grammar`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    Paren,
    List,
    Index,
    Map,
    Message,
}

/// The ANTLR lexer and parser errors of an older cel-go grammar that the `cel` crate's
/// grammar does not give, and the text its recovery leaves:
///
/// - without `escapes` (cel-go before v0.23): every backquote is `token recognition error
///   at: '`'`, and the lexer skips it (`` m.`a-b` `` reads as `m.a-b`);
/// - without `optional` (cel-go v0.12, no `?` alternatives in `member`/`primary`): a `?`
///   after `.`, after an index's `[`, or opening a list, map or message literal is one
///   token too many (`recoverInline`/`sync`'s single-token deletion:
///   `extraneous input '?' expecting IDENTIFIER`, or the set the rule expects), when the
///   next token is one the rule takes; after a `,` in a list or map literal the comma ends
///   the literal (its optional trailing comma) and the closing bracket is conjured
///   (single-token insertion: `missing ']' at '?'`), the `?` then reads as a conditional.
///
/// `None` when there is nothing to report (or the text does not lex).
pub fn old_grammar(text: &str, escapes: bool, optional: bool) -> Option<OldGrammar> {
    if escapes && optional {
        return None;
    }
    let toks = lex_with(text, escapes)?;
    let mut chars: Vec<char> = text.chars().collect();
    let mut errors = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    // The previous token the parser sees (backquotes are skipped by the lexer).
    let mut prev = Tok::Eof;
    let starts_expr = |k: Tok| {
        matches!(
            k,
            Tok::LBracket | Tok::LBrace | Tok::LParen | Tok::Dot | Tok::Minus | Tok::Bang | Tok::Literal | Tok::Ident
        )
    };
    let ends_operand =
        |k: Tok| matches!(k, Tok::Ident | Tok::EscIdent | Tok::Literal | Tok::RParen | Tok::RBracket | Tok::RBrace);
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        let next = toks[i + 1..].iter().find(|n| n.kind != Tok::Backquote).map(|n| n.kind).unwrap_or(Tok::Eof);
        match t.kind {
            Tok::Backquote => {
                errors.push((t.offset, "Syntax error: token recognition error at: '`'".to_string()));
                chars[t.offset] = ' ';
                i += 1;
                continue;
            }
            Tok::Question if !optional => {
                let set = match prev {
                    Tok::Dot if next == Tok::Ident => Some("IDENTIFIER".to_string()),
                    Tok::LBracket if stack.last() == Some(&Open::Index) && starts_expr(next) => {
                        Some(format!("{{{}}}", EXPR_START))
                    }
                    Tok::LBracket
                        if stack.last() == Some(&Open::List)
                            && (starts_expr(next) || matches!(next, Tok::RBracket | Tok::Comma)) =>
                    {
                        Some(format!("{{{}}}", LIST_START))
                    }
                    Tok::LBrace if stack.last() == Some(&Open::Message) => {
                        matches!(next, Tok::Ident | Tok::RBrace | Tok::Comma).then(|| format!("{{{}}}", FIELD_START))
                    }
                    Tok::LBrace
                        if stack.last() == Some(&Open::Map)
                            && (starts_expr(next) || matches!(next, Tok::RBrace | Tok::Comma)) =>
                    {
                        Some(format!("{{{}}}", MAP_START))
                    }
                    _ => None,
                };
                if let Some(set) = set {
                    errors.push((t.offset, format!("Syntax error: extraneous input '?' expecting {}", set)));
                    chars[t.offset] = ' ';
                    i += 1;
                    continue;
                }
                if prev == Tok::Comma {
                    let close = match stack.last() {
                        Some(Open::List) => Some((']', "']'")),
                        Some(Open::Map | Open::Message) => Some(('}', "'}'")),
                        _ => None,
                    };
                    if let Some((c, name)) = close {
                        errors.push((t.offset, format!("Syntax error: missing {} at '?'", name)));
                        // The comma before was the literal's trailing comma; the literal
                        // ends there.
                        if let Some(comma) = toks[..i].iter().rev().find(|p| p.kind == Tok::Comma) {
                            chars[comma.offset] = c;
                        }
                        stack.pop();
                    }
                }
            }
            Tok::LParen => stack.push(Open::Paren),
            Tok::LBracket => stack.push(if ends_operand(prev) { Open::Index } else { Open::List }),
            Tok::LBrace => stack.push(if prev == Tok::Ident { Open::Message } else { Open::Map }),
            Tok::RParen | Tok::RBracket | Tok::RBrace => {
                stack.pop();
            }
            _ => {}
        }
        prev = t.kind;
        i += 1;
    }
    if errors.is_empty() {
        return None;
    }
    Some(OldGrammar { text: chars.into_iter().collect(), errors })
}
