//! Patterns with Go RE2 semantics (`regexp.Compile`), on the `regex` crate.
//!
//! Both engines implement RE2 syntax, but they differ in details that change what a
//! pattern matches or whether it compiles at all. The pattern is therefore rewritten
//! into an equivalent `regex` pattern first:
//! - Perl classes `\d \s \w` (and negations) and `\b \B` are ASCII-only in Go; Go's `\s`
//!   is `[\t\n\f\r ]` (no `\v`);
//! - `\Q...\E` literal quoting, octal escapes (`\012`), escaped punctuation (`\<` is a
//!   literal `<` in Go, a word boundary in `regex`);
//! - a `{` that does not start a valid repetition is a literal; repetition counts over
//!   1000 are errors;
//! - inside classes, `[`, `&&`, `--`, `~~` are literals in Go (set operations in `regex`);
//! - `(?P<name>` / `(?<name>` names follow Go's rules (names are dropped: only matching
//!   matters here); flags other than `imsU` are errors; `\p{^X}` is `\P{X}`.
//!
//! Patterns match anywhere in the string unless anchored, like Go's `MatchString`.

use std::fmt::Write;

/// Compiles `pattern` with Go RE2 semantics.
pub fn compile_re2(pattern: &str) -> Result<regex::Regex, regex::Error> {
    match translate(pattern) {
        Ok(t) => build(&t),
        Err(msg) => Err(regex::Error::Syntax(msg)),
    }
}

/// The `regex` crate's own bounds, set around Go's: [`translate`] has already refused what
/// Go refuses (nesting over 1000, programs over Go's size, repeat counts), so the crate's
/// nest limit sits above anything Go accepts (our rewrite adds a level here and there:
/// `(?:…)` around `\Q…\E`, `(?-u:\b)`), and its size limit bounds the memory of the
/// compiled automaton: 64 MiB. A pattern Go accepts can still exceed that (Unicode classes
/// repeated thousands of times cost Go one instruction each, the crate a UTF-8 automaton
/// each); it is refused as `expression too large`, never built. Matching is linear in the
/// text (no backtracking): `(a*)*` or `(a|a)*b` cost what any pattern costs.
const REGEX_SIZE_LIMIT: usize = 1 << 26;
pub const REGEX_NEST_LIMIT: u32 = 2 * GO_MAX_HEIGHT + 16;
/// The capacity of each compiled pattern's lazy-DFA cache (per thread that matches with
/// it; it grows only as matching needs states). The crate's default, 2 MiB, is below what
/// the lazy DFA needs to start on real CRDs' large patterns (hostname patterns repeating
/// `[a-zA-Z0-9\p{S}\p{L}]` sixty times need about 5 MiB), which then run on the PikeVM,
/// 50–70 times slower: `crdlab test` over openshift/api spent a third of its validation
/// there. Which engine runs never changes what matches.
const REGEX_DFA_CACHE_LIMIT: usize = 8 << 20;

fn build(translated: &str) -> Result<regex::Regex, regex::Error> {
    regex::RegexBuilder::new(translated)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_DFA_CACHE_LIMIT)
        .nest_limit(REGEX_NEST_LIMIT)
        .build()
}

/// [`compile_re2`] through a process-wide cache that hands out one shared compiled pattern
/// per text. A CRD's `pattern`s are checked by the CRD checks, compiled into each version
/// that has them (per release, per edit) and CEL literal patterns are checked on each
/// compile: each distinct text is compiled once, by whichever thread asks first; a thread
/// that asks while it is being compiled waits for that compile. (Real CRDs have hostname
/// patterns that repeat `[a-zA-Z0-9\p{S}\p{L}]` sixty times: about 100 ms each to build as
/// a UTF-8 automaton, once per thread while the cache was per thread.) Shared, not cloned:
/// a `regex::Regex` clone starts with an empty pool of match caches, which its first match
/// allocates again (for large patterns, far more than the match costs); the pool keeps a
/// cache per thread that matches. Bounded (emptied when it holds
/// [`PATTERN_CACHE_CAPACITY`] patterns). Only for patterns of schemas and rules: patterns
/// that come from objects at run time are not worth keeping.
pub fn compile_re2_shared_result(
    pattern: &str,
) -> Result<std::sync::Arc<regex::Regex>, regex::Error> {
    use std::sync::{Arc, Mutex, OnceLock};
    type Slot = Arc<OnceLock<Result<Arc<regex::Regex>, regex::Error>>>;
    static SHARED: OnceLock<Mutex<std::collections::HashMap<String, Slot>>> = OnceLock::new();
    let slot: Slot = {
        // The map is only ever inserted into or emptied, so it is whole even if a panic
        // happened while it was locked: a poisoned lock is used as is.
        let mut c = SHARED.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
        match c.get(pattern) {
            Some(s) => s.clone(),
            None => {
                if c.len() >= PATTERN_CACHE_CAPACITY {
                    c.clear();
                }
                let s = Slot::default();
                c.insert(pattern.to_string(), s.clone());
                s
            }
        }
    };
    // Compiled outside the lock: other patterns are not held up.
    slot.get_or_init(|| compile_re2(pattern).map(Arc::new)).clone()
}

/// [`compile_re2_shared_result`], `None` when the pattern does not compile.
pub fn compile_re2_shared(pattern: &str) -> Option<std::sync::Arc<regex::Regex>> {
    compile_re2_shared_result(pattern).ok()
}

/// Patterns [`compile_re2_shared_result`]'s cache keeps at most.
pub const PATTERN_CACHE_CAPACITY: usize = 256;

/// The Go error text for a pattern that does not compile (`error parsing regexp: ...`),
/// as far as it can be told; `None` when the pattern compiles.
pub fn go_compile_error(pattern: &str) -> Option<String> {
    match translate(pattern) {
        Err(msg) => Some(msg),
        Ok(t) => match build(&t) {
            Ok(_) => None,
            Err(regex::Error::CompiledTooBig(_)) => Some(format!(
                "error parsing regexp: expression too large: `{}`",
                pattern
            )),
            Err(e) => {
                let last = e
                    .to_string()
                    .lines()
                    .last()
                    .unwrap_or("")
                    .trim_start_matches("error: ")
                    .to_string();
                Some(format!("error parsing regexp: {}: `{}`", last, pattern))
            }
        },
    }
}

/// Go's `regexp/syntax` parser limits (parse.go), which it checks while parsing, before
/// any program is built: `maxHeight` (a parse tree deeper than 1000 nodes:
/// `expression nests too deeply`), `maxSize` (a program estimated over 128 MiB of
/// instructions, 3,355,443 of 40 bytes: `expression too large`), both reported with the
/// whole pattern, and `repeatIsValid` (nested `{n,m}` counts whose product exceeds 1000:
/// `invalid repeat count` with the outer repeat's text).
const GO_MAX_HEIGHT: u32 = 1000;
const GO_MAX_SIZE: i64 = (128 << 20) / 40;
const GO_MAX_REPEAT: u64 = 1000;

/// One parsed item of the pattern as Go's parse tree holds it: its height, its size
/// (`calcSize`), the least budget `repeatIsValid` needs for it, and whether it is a lone
/// literal character (Go merges runs of those into one literal node).
#[derive(Clone, Copy, Default)]
struct Item {
    height: u32,
    size: i64,
    repeat_need: u64,
    literal: bool,
}

impl Item {
    fn leaf(literal: bool) -> Item {
        Item { height: 1, size: 1, repeat_need: 0, literal }
    }
}

/// A concatenation being parsed (one branch of an alternation).
#[derive(Clone, Copy, Default)]
struct Branch {
    items: usize,
    height: u32,
    size: i64,
    repeat_need: u64,
    last_literal: bool,
}

impl Branch {
    fn push(&mut self, it: Item) {
        if it.literal && self.last_literal {
            // Merged into the previous literal: one rune more.
            self.size += 1;
            return;
        }
        self.items += 1;
        self.height = self.height.max(it.height);
        self.size += it.size;
        self.repeat_need = self.repeat_need.max(it.repeat_need);
        self.last_literal = it.literal;
    }
    /// The branch as one node: a concatenation of two or more items adds a level; an
    /// empty one is an empty-match node.
    fn node(&self) -> Item {
        match self.items {
            0 => Item::leaf(false),
            1 => Item { height: self.height, size: self.size.max(1), repeat_need: self.repeat_need, literal: false },
            _ => Item { height: self.height + 1, size: self.size.max(1), repeat_need: self.repeat_need, literal: false },
        }
    }
}

/// A group being parsed: its finished branches and the current one.
#[derive(Clone, Copy, Default)]
struct Group {
    capture: bool,
    branches: usize,
    height: u32,
    size: i64,
    repeat_need: u64,
    current: Branch,
    /// The last item, still open to a repetition operator.
    last: Option<Item>,
}

impl Group {
    fn commit(&mut self) {
        if let Some(it) = self.last.take() {
            self.current.push(it);
        }
    }
    fn end_branch(&mut self) {
        self.commit();
        let b = self.current.node();
        self.branches += 1;
        self.height = self.height.max(b.height);
        self.size += b.size;
        self.repeat_need = self.repeat_need.max(b.repeat_need);
        self.current = Branch::default();
    }
    fn node(mut self) -> Item {
        self.end_branch();
        let mut it = Item {
            height: if self.branches > 1 { self.height + 1 } else { self.height },
            size: (self.size + self.branches as i64 - 1).max(1),
            repeat_need: self.repeat_need,
            literal: false,
        };
        if self.capture {
            it.height += 1;
            it.size += 2;
        }
        it
    }
}

/// The parse-tree shape of a pattern, built as the pattern is read, for Go's limits.
struct Shape {
    groups: Vec<Group>,
}

impl Shape {
    fn new() -> Shape {
        Shape { groups: vec![Group::default()] }
    }
    fn top(&mut self) -> &mut Group {
        if self.groups.is_empty() {
            self.groups.push(Group::default());
        }
        let n = self.groups.len() - 1;
        &mut self.groups[n]
    }
    fn atom(&mut self, it: Item, pattern: &str) -> Result<(), String> {
        let g = self.top();
        g.commit();
        g.last = Some(it);
        check_node(it, pattern)
    }
    fn open(&mut self, capture: bool) {
        self.top().commit();
        self.groups.push(Group { capture, ..Default::default() });
    }
    fn close(&mut self, pattern: &str) -> Result<(), String> {
        let g = self.groups.pop().unwrap_or_default();
        let it = g.node();
        self.atom(it, pattern)
    }
    fn bar(&mut self) {
        self.top().end_branch();
    }
    /// A repetition of the last item: `*` (min 0, max -1, star), `+`, `?`, or `{min,max}`
    /// (`counted`). `op` is the operator's text for Go's `invalid repeat count`.
    fn repeat(&mut self, min: i64, max: i64, counted: bool, op: &str, pattern: &str) -> Result<(), String> {
        let g = self.top();
        let Some(sub) = g.last else { return Ok(()) };
        let size = if !counted {
            if max == -1 && min == 0 { 2 + sub.size } else { 1 + sub.size }
        } else if max == -1 {
            if min == 0 { 2 + sub.size } else { 1 + min * sub.size }
        } else {
            max * sub.size + (max - min)
        };
        // repeatIsValid: the least budget n with valid(re, n) is m*need(sub), at least m,
        // for a counted repeat of m copies (max, or min when unbounded); `{0}` needs none.
        let repeat_need = if !counted {
            sub.repeat_need
        } else if max == 0 {
            0
        } else {
            let m = if max < 0 { min } else { max } as u64;
            if m == 0 { sub.repeat_need } else { m.max(m.saturating_mul(sub.repeat_need)) }
        };
        let it = Item { height: sub.height + 1, size: size.max(1), repeat_need, literal: false };
        g.last = Some(it);
        if counted && (min >= 2 || max >= 2) && repeat_need > GO_MAX_REPEAT {
            return Err(err("invalid repeat count", op));
        }
        check_node(it, pattern)
    }
    fn finish(mut self, pattern: &str) -> Result<(), String> {
        while self.groups.len() > 1 {
            self.close(pattern)?;
        }
        let root = self.groups.pop().unwrap_or_default().node();
        check_node(root, pattern)
    }
}

/// Go's `checkHeight` and `checkSize` on one node.
fn check_node(it: Item, pattern: &str) -> Result<(), String> {
    if it.height > GO_MAX_HEIGHT {
        return Err(err("expression nests too deeply", pattern));
    }
    if it.size > GO_MAX_SIZE {
        return Err(err("expression too large", pattern));
    }
    Ok(())
}

fn err(code: &str, expr: &str) -> String {
    format!("error parsing regexp: {}: `{}`", code, expr)
}

/// Rewrites a Go pattern into an equivalent `regex` pattern.
pub fn translate(pattern: &str) -> Result<String, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut i = 0usize;
    // Group nesting, to check for balanced parentheses like Go.
    let mut depth = 0usize;
    // Whether the previous item can be repeated, and whether it was itself a repetition.
    let mut can_repeat = false;
    let mut last_was_repeat = false;
    // Where the last repetition operator started (Go's `lastRepeat`).
    let mut last_repeat_start = 0usize;
    let mut shape = Shape::new();
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let (text, next) = translate_escape_top(&chars, i, pattern)?;
                out.push_str(&text);
                // A literal when the escape is one character (`\.`, `\x41`), else a class
                // or an assertion; `\Q…\E` a literal run.
                let lit = !matches!(chars.get(i + 1), Some('A' | 'z' | 'b' | 'B' | 'p' | 'P' | 'd' | 'D' | 's' | 'S' | 'w' | 'W'));
                let mut it = Item::leaf(lit);
                if chars.get(i + 1) == Some(&'Q') {
                    it.size = (next - i) as i64;
                }
                shape.atom(it, pattern)?;
                // \A \z \b \B are zero-width; Go still allows repeating them.
                can_repeat = true;
                last_was_repeat = false;
                i = next;
            }
            '[' => {
                let (text, next) = translate_class(&chars, i, pattern)?;
                out.push_str(&text);
                shape.atom(Item::leaf(false), pattern)?;
                can_repeat = true;
                last_was_repeat = false;
                i = next;
            }
            '(' => {
                if chars.get(i + 1) == Some(&'?') {
                    let (text, next, opens) = translate_group_start(&chars, i, pattern)?;
                    out.push_str(&text);
                    if opens {
                        depth += 1;
                        // A named group captures; `(?flags:` does not make a node.
                        shape.open(text == "(");
                        can_repeat = false;
                    } else {
                        // A bare flag setting like (?i) is not an operand.
                        can_repeat = false;
                    }
                    last_was_repeat = false;
                    i = next;
                } else {
                    out.push('(');
                    shape.open(true);
                    depth += 1;
                    can_repeat = false;
                    last_was_repeat = false;
                    i += 1;
                }
            }
            ')' => {
                if depth == 0 {
                    return Err(err("unexpected )", pattern));
                }
                depth -= 1;
                shape.close(pattern)?;
                out.push(')');
                can_repeat = true;
                last_was_repeat = false;
                i += 1;
            }
            '*' | '+' | '?' => {
                let start = i;
                let mut op_end = i + 1;
                // Non-greedy suffix.
                if chars.get(op_end) == Some(&'?') {
                    op_end += 1;
                }
                if last_was_repeat {
                    let expr: String = chars[last_repeat_start..op_end.min(chars.len())].iter().collect();
                    return Err(err("invalid nested repetition operator", &expr));
                }
                if !can_repeat {
                    let expr: String = chars[start..op_end].iter().collect();
                    return Err(err("missing argument to repetition operator", &expr));
                }
                for ch in &chars[start..op_end] {
                    out.push(*ch);
                }
                let (min, max) = match c {
                    '*' => (0, -1),
                    '+' => (1, -1),
                    _ => (0, 1),
                };
                shape.repeat(min, max, false, "", pattern)?;
                last_repeat_start = start;
                last_was_repeat = true;
                i = op_end;
            }
            '{' => {
                if let Some((min, max, end)) = parse_repeat(&chars, i) {
                    let mut op_end = end;
                    if chars.get(op_end) == Some(&'?') {
                        op_end += 1;
                    }
                    let expr: String = chars[i..end].iter().collect();
                    if min > 1000 || max > 1000 || (max >= 0 && min > max) {
                        return Err(err("invalid repeat count", &expr));
                    }
                    let op: String = chars[i..op_end].iter().collect();
                    if last_was_repeat {
                        let expr: String = chars[last_repeat_start..op_end].iter().collect();
                        return Err(err("invalid nested repetition operator", &expr));
                    }
                    if !can_repeat {
                        return Err(err("missing argument to repetition operator", &op));
                    }
                    for ch in &chars[i..op_end] {
                        out.push(*ch);
                    }
                    shape.repeat(min, max, true, &op, pattern)?;
                    last_repeat_start = i;
                    last_was_repeat = true;
                    i = op_end;
                } else {
                    out.push_str("\\{");
                    shape.atom(Item::leaf(true), pattern)?;
                    can_repeat = true;
                    last_was_repeat = false;
                    i += 1;
                }
            }
            '|' => {
                shape.bar();
                out.push('|');
                can_repeat = false;
                last_was_repeat = false;
                i += 1;
            }
            '^' | '$' | '.' => {
                shape.atom(Item::leaf(false), pattern)?;
                out.push(c);
                can_repeat = true;
                last_was_repeat = false;
                i += 1;
            }
            _ => {
                shape.atom(Item::leaf(true), pattern)?;
                push_literal(&mut out, c);
                can_repeat = true;
                last_was_repeat = false;
                i += 1;
            }
        }
    }
    if depth > 0 {
        return Err(err("missing closing )", pattern));
    }
    shape.finish(pattern)?;
    Ok(out)
}

/// A literal character, escaped when `regex` would read it as syntax.
fn push_literal(out: &mut String, c: char) {
    if regex_syntax_meta(c) {
        out.push('\\');
        out.push(c);
    } else if c.is_whitespace() || c == '#' {
        // Only special in verbose mode, which is never on; keep them unambiguous.
        let _ = write!(out, "\\x{{{:X}}}", c as u32);
    } else {
        out.push(c);
    }
}

fn regex_syntax_meta(c: char) -> bool {
    matches!(
        c,
        '\\' | '.'
            | '+'
            | '*'
            | '?'
            | '('
            | ')'
            | '|'
            | '['
            | ']'
            | '{'
            | '}'
            | '^'
            | '$'
            | '#'
            | '&'
            | '-'
            | '~'
    )
}

/// Go's parseRepeat: `{n}`, `{n,}`, `{n,m}` with decimal numbers without leading zeros.
/// Returns (min, max (-1 = unbounded), index after `}`).
fn parse_repeat(chars: &[char], start: usize) -> Option<(i64, i64, usize)> {
    let mut i = start + 1;
    let (min, ni) = parse_int(chars, i)?;
    i = ni;
    let max;
    if chars.get(i) == Some(&',') {
        i += 1;
        if chars.get(i) == Some(&'}') {
            max = -1;
        } else {
            let (m, ni) = parse_int(chars, i)?;
            max = m;
            i = ni;
        }
    } else {
        max = min;
    }
    if chars.get(i) != Some(&'}') {
        return None;
    }
    Some((min, max, i + 1))
}

fn parse_int(chars: &[char], start: usize) -> Option<(i64, usize)> {
    let mut i = start;
    while i < chars.len() && chars[i].is_ascii_digit() {
        i += 1;
    }
    if i == start {
        return None;
    }
    // Disallow leading zeros.
    if i - start >= 2 && chars[start] == '0' {
        return None;
    }
    let mut v: i64 = 0;
    for c in &chars[start..i] {
        // Go: numbers over 1e8 become -1 (then an invalid repeat size); saturate likewise.
        v = (v * 10 + (*c as i64 - '0' as i64)).min(100_000_000);
    }
    Some((v, i))
}

/// `(?` constructs: flags, non-capturing groups, named groups.
/// Returns (text, next index, whether a group was opened).
fn translate_group_start(
    chars: &[char],
    start: usize,
    pattern: &str,
) -> Result<(String, usize, bool), String> {
    let rest: String = chars[start..].iter().collect();
    // Named captures: (?P<name>re) and (?<name>re).
    let name_start = if rest.starts_with("(?P<") {
        Some(start + 4)
    } else if rest.starts_with("(?<") {
        Some(start + 3)
    } else {
        None
    };
    if let Some(ns) = name_start {
        let mut j = ns;
        while j < chars.len() && chars[j] != '>' {
            j += 1;
        }
        if j >= chars.len() {
            return Err(err("invalid named capture", &rest));
        }
        let name: String = chars[ns..j].iter().collect();
        let capture: String = chars[start..=j].iter().collect();
        if name.is_empty() || !name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric()) {
            return Err(err("invalid named capture", &capture));
        }
        return Ok(("(".to_string(), j + 1, true));
    }
    if rest.starts_with("(?P") {
        return Err(err("invalid named capture", &rest));
    }
    // Flags: (?flags) or (?flags:re)
    let mut j = start + 2;
    let mut text = String::from("(?");
    let mut sign_seen = false;
    let mut any_flag = false;
    let mut last_was_minus = false;
    loop {
        let Some(&c) = chars.get(j) else {
            return Err(err("missing closing )", pattern));
        };
        match c {
            'i' | 'm' | 's' | 'U' => {
                text.push(c);
                any_flag = true;
                last_was_minus = false;
            }
            '-' => {
                if sign_seen {
                    let expr: String = chars[start..=j].iter().collect();
                    return Err(err("invalid or unsupported Perl syntax", &expr));
                }
                sign_seen = true;
                last_was_minus = true;
                text.push('-');
            }
            ':' | ')' => {
                if last_was_minus || (sign_seen && !any_flag) {
                    let expr: String = chars[start..=j].iter().collect();
                    return Err(err("invalid or unsupported Perl syntax", &expr));
                }
                if c == ')' {
                    if !any_flag {
                        let expr: String = chars[start..=j].iter().collect();
                        return Err(err("missing argument to repetition operator", &expr));
                    }
                    text.push(')');
                    return Ok((text, j + 1, false));
                }
                text.push(':');
                return Ok((text, j + 1, true));
            }
            _ => {
                let expr: String = chars[start..=j].iter().collect();
                return Err(err("invalid or unsupported Perl syntax", &expr));
            }
        }
        j += 1;
    }
}

/// An escape outside a class. Returns (text, next index).
fn translate_escape_top(
    chars: &[char],
    start: usize,
    pattern: &str,
) -> Result<(String, usize), String> {
    let Some(&c) = chars.get(start + 1) else {
        return Err(err("trailing backslash at end of expression", ""));
    };
    match c {
        'A' => Ok(("\\A".into(), start + 2)),
        'z' => Ok(("\\z".into(), start + 2)),
        'b' => Ok(("(?-u:\\b)".into(), start + 2)),
        'B' => Ok(("(?-u:\\B)".into(), start + 2)),
        'C' => Err(err("invalid escape sequence", "\\C")),
        'Q' => {
            // Literal text up to \E or the end.
            let mut j = start + 2;
            let mut lit = String::new();
            while j < chars.len() {
                if chars[j] == '\\' && chars.get(j + 1) == Some(&'E') {
                    j += 2;
                    break;
                }
                lit.push(chars[j]);
                j += 1;
            }
            let mut text = String::new();
            if lit.is_empty() {
                // Nothing to match; keep the pattern well-formed.
                text.push_str("(?:)");
            } else {
                text.push_str("(?:");
                for ch in lit.chars() {
                    push_literal(&mut text, ch);
                }
                text.push(')');
            }
            Ok((text, j))
        }
        'p' | 'P' => {
            let (text, next) = translate_unicode_class(chars, start, pattern)?;
            Ok((text, next))
        }
        'd' | 'D' | 's' | 'S' | 'w' | 'W' => Ok((perl_class(c, false), start + 2)),
        _ => {
            let (ch, next) = parse_escape(chars, start)?;
            let mut text = String::new();
            let _ = write!(text, "\\x{{{:X}}}", ch as u32);
            Ok((text, next))
        }
    }
}

/// `\pX`, `\p{Name}`, `\PX`, `\P{Name}`, `\p{^Name}`.
fn translate_unicode_class(
    chars: &[char],
    start: usize,
    _pattern: &str,
) -> Result<(String, usize), String> {
    let mut negate = chars[start + 1] == 'P';
    let Some(&c) = chars.get(start + 2) else {
        return Err(err(
            "invalid character class range",
            &chars[start..].iter().collect::<String>(),
        ));
    };
    let (mut name, next) = if c == '{' {
        let mut j = start + 3;
        while j < chars.len() && chars[j] != '}' {
            j += 1;
        }
        if j >= chars.len() {
            let expr: String = chars[start..].iter().collect();
            return Err(err("invalid character class range", &expr));
        }
        (chars[start + 3..j].iter().collect::<String>(), j + 1)
    } else {
        (c.to_string(), start + 3)
    };
    if let Some(stripped) = name.strip_prefix('^') {
        negate = !negate;
        name = stripped.to_string();
    }
    let expr: String = chars[start..next].iter().collect();
    if !go_unicode_class_name_ok(&name) {
        return Err(err("invalid character class range", &expr));
    }
    let mut text = String::new();
    text.push_str(if negate { "\\P{" } else { "\\p{" });
    text.push_str(&name);
    text.push('}');
    Ok((text, next))
}

/// Go's `unicode.Categories` keys (Go also accepts "Any").
const GO_CATEGORIES: [&str; 37] = [
    "C", "Cc", "Cf", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N", "Nd",
    "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm", "So", "Z", "Zl",
    "Zp", "Zs", "Any",
];

/// Go (`parseUnicodeClass`) looks a name up in `unicode.Categories` and `unicode.Scripts`
/// only, case-sensitively, plus "Any". The `regex` crate accepts more (long category names,
/// binary properties such as `White_Space`, loose matching): only its script table is
/// asked, for a name written as Go's tables write scripts (`Old_Italic`).
fn go_unicode_class_name_ok(name: &str) -> bool {
    if GO_CATEGORIES.contains(&name) {
        return true;
    }
    let script_form = !name.is_empty()
        && name.split('_').all(|w| w.starts_with(|c: char| c.is_ascii_uppercase()) && w.chars().all(|c| c.is_ascii_alphabetic()));
    script_form && regex::Regex::new(&format!("\\p{{Script={}}}", name)).is_ok()
}

/// Go's Perl classes, ASCII-only. `in_class`: rendered for use inside a bracket class.
fn perl_class(c: char, in_class: bool) -> String {
    let (set, neg) = match c {
        'd' => ("0-9", false),
        'D' => ("0-9", true),
        's' => ("\\t\\n\\x0C\\r ", false),
        'S' => ("\\t\\n\\x0C\\r ", true),
        'w' => ("0-9A-Za-z_", false),
        _ => ("0-9A-Za-z_", true),
    };
    if in_class && !neg {
        set.to_string()
    } else if neg {
        format!("[^{}]", set)
    } else {
        format!("[{}]", set)
    }
}

/// Go's parseEscape: one escaped character (not a class). Returns (char, next index).
fn parse_escape(chars: &[char], start: usize) -> Result<(char, usize), String> {
    let Some(&c) = chars.get(start + 1) else {
        return Err(err("trailing backslash at end of expression", ""));
    };
    let bad = |end: usize| -> String {
        let expr: String = chars[start..end.min(chars.len())].iter().collect();
        err("invalid escape sequence", &expr)
    };
    match c {
        '1'..='7'
            if !chars
                .get(start + 2)
                .is_some_and(|d| ('0'..='7').contains(d)) =>
        {
            Err(bad(start + 2))
        }
        '0'..='7' => {
            // Up to three octal digits.
            let mut v: u32 = 0;
            let mut j = start + 1;
            while j < chars.len() && j < start + 4 && ('0'..='7').contains(&chars[j]) {
                v = v * 8 + (chars[j] as u32 - '0' as u32);
                j += 1;
            }
            Ok((char::from_u32(v).unwrap_or('\u{FFFD}'), j))
        }
        'x' => {
            let Some(&n) = chars.get(start + 2) else {
                return Err(bad(start + 2));
            };
            if n == '{' {
                let mut j = start + 3;
                let mut v: u32 = 0;
                let mut digits = 0;
                while j < chars.len() && chars[j] != '}' {
                    let Some(d) = chars[j].to_digit(16) else {
                        return Err(bad(j + 1));
                    };
                    v = v.saturating_mul(16).saturating_add(d);
                    digits += 1;
                    if v > 0x10FFFF {
                        return Err(bad(j + 1));
                    }
                    j += 1;
                }
                if j >= chars.len() || digits == 0 {
                    return Err(bad(j));
                }
                match char::from_u32(v) {
                    Some(ch) => Ok((ch, j + 1)),
                    // Surrogates: Go accepts them as runes that never match text.
                    None => Ok(('\u{FFFD}', j + 1)),
                }
            } else {
                let (Some(h), Some(l)) = (
                    chars.get(start + 2).and_then(|c| c.to_digit(16)),
                    chars.get(start + 3).and_then(|c| c.to_digit(16)),
                ) else {
                    return Err(bad(start + 4));
                };
                Ok((char::from_u32(h * 16 + l).unwrap_or('\u{FFFD}'), start + 4))
            }
        }
        'a' => Ok(('\u{7}', start + 2)),
        'f' => Ok(('\u{C}', start + 2)),
        'n' => Ok(('\n', start + 2)),
        'r' => Ok(('\r', start + 2)),
        't' => Ok(('\t', start + 2)),
        'v' => Ok(('\u{B}', start + 2)),
        c if (c as u32) < 0x80 && !c.is_ascii_alphanumeric() => Ok((c, start + 2)),
        _ => Err(bad(start + 2)),
    }
}

/// A bracket class. Returns (text, next index).
fn translate_class(chars: &[char], start: usize, pattern: &str) -> Result<(String, usize), String> {
    let mut i = start + 1;
    let mut out = String::from("[");
    if chars.get(i) == Some(&'^') {
        out.push('^');
        i += 1;
    }
    let mut first = true;
    let mut items = 0usize;
    loop {
        let Some(&c) = chars.get(i) else {
            let expr: String = chars[start..].iter().collect();
            let _ = pattern;
            return Err(err("missing closing ]", &expr));
        };
        if c == ']' && !first {
            i += 1;
            break;
        }
        first = false;
        // POSIX classes [:alpha:] / [:^alpha:]
        if c == '[' && chars.get(i + 1) == Some(&':') {
            let mut j = i + 2;
            while j + 1 < chars.len() && !(chars[j] == ':' && chars[j + 1] == ']') {
                j += 1;
            }
            if j + 1 < chars.len() {
                let name: String = chars[i + 2..j].iter().collect();
                let bare = name.strip_prefix('^').unwrap_or(&name);
                const NAMES: [&str; 14] = [
                    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower",
                    "print", "punct", "space", "upper", "word", "xdigit",
                ];
                if NAMES.contains(&bare) {
                    out.push_str("[:");
                    out.push_str(&name);
                    out.push_str(":]");
                    items += 1;
                    i = j + 2;
                    continue;
                }
                let expr: String = chars[i..j + 2].iter().collect();
                return Err(err("invalid character class range", &expr));
            }
        }
        if c == '\\' {
            match chars.get(i + 1) {
                Some(&('p' | 'P')) => {
                    let (text, next) = translate_unicode_class(chars, i, pattern)?;
                    out.push_str(&text);
                    items += 1;
                    i = next;
                    continue;
                }
                Some(&p @ ('d' | 'D' | 's' | 'S' | 'w' | 'W')) => {
                    out.push_str(&perl_class(p, true));
                    items += 1;
                    i += 2;
                    continue;
                }
                _ => {}
            }
        }
        // Single character or range.
        let (lo, next) = class_char(chars, i, start)?;
        i = next;
        let mut hi = lo;
        if chars.get(i) == Some(&'-') && chars.get(i + 1).is_some_and(|c| *c != ']') {
            let range_start = i;
            let (h, next) = class_char(chars, i + 1, start)?;
            hi = h;
            if hi < lo {
                let expr: String = chars[range_start.saturating_sub(1)..next].iter().collect();
                return Err(err("invalid character class range", &expr));
            }
            i = next;
        }
        let _ = write!(out, "\\x{{{:X}}}", lo as u32);
        if hi != lo {
            let _ = write!(out, "-\\x{{{:X}}}", hi as u32);
        }
        items += 1;
    }
    let _ = items;
    out.push(']');
    Ok((out, i))
}

fn class_char(chars: &[char], i: usize, class_start: usize) -> Result<(char, usize), String> {
    match chars.get(i) {
        None => {
            let expr: String = chars[class_start..].iter().collect();
            Err(err("missing closing ]", &expr))
        }
        Some('\\') => parse_escape(chars, i),
        Some(&c) => Ok((c, i + 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, s: &str) -> bool {
        compile_re2(p)
            .unwrap_or_else(|e| panic!("{p}: {e}"))
            .is_match(s)
    }

    #[test]
    fn one_compiled_pattern_serves_every_thread() {
        // Other tests share the cache and may empty it between two asks: one of a few
        // tries sees both threads handed the same compiled pattern.
        let pattern = "^shared-across-threads-[a-z]{3}$";
        let same = (0..5).any(|_| {
            let here = compile_re2_shared_result(pattern).unwrap();
            let there = std::thread::spawn(move || compile_re2_shared_result(pattern).unwrap()).join().unwrap();
            std::sync::Arc::ptr_eq(&here, &there)
        });
        assert!(same);
        assert!(compile_re2_shared(pattern).unwrap().is_match("shared-across-threads-abc"));
        // A pattern that does not compile answers its error each time, from any thread.
        let bad = std::thread::spawn(|| compile_re2_shared_result("a(b").unwrap_err().to_string()).join().unwrap();
        assert_eq!(compile_re2_shared_result("a(b").unwrap_err().to_string(), bad);
    }

    #[test]
    fn perl_classes_are_ascii() {
        assert!(m(r"^\d+$", "123"));
        assert!(!m(r"^\d+$", "١٢٣")); // Arabic-Indic digits: Unicode \d in Rust, not in Go
        assert!(!m(r"^\w+$", "é"));
        assert!(m(r"^\w+$", "a_1"));
        assert!(!m(r"^\s$", "\u{b}")); // Go's \s has no \v
        assert!(m(r"^\s$", "\t"));
        assert!(m(r"^[\d\s]+$", "1 2"));
        assert!(m(r"^[^\d]+$", "ab"));
        assert!(m(r"^[\D]+$", "ab"));
        assert!(!m(r"^[\D]+$", "a1"));
        assert!(m(r"\bfoo\b", "a foo b"));
        assert!(m(r"\bfoo\b", "éfooé")); // ASCII word boundary: é is not a word char in Go
    }

    #[test]
    fn go_only_syntax() {
        assert!(m(r"^a\z", "a"));
        assert!(!m(r"^a\z", "a\n"));
        assert!(!m(r"^a$", "a\n"));
        assert!(m(r"\Qa.b\E", "a.b"));
        assert!(!m(r"\Qa.b\E", "axb"));
        assert!(m(r"^\Qa+", "a+"));
        assert!(m(r"^\101$", "A"));
        assert!(m(r"^\<a\>$", "<a>"));
        assert!(m(r"^a{$", "a{"));
        assert!(m(r"^a{,2}$", "a{,2}"));
        assert!(m(r"^{}$", "{}"));
        assert!(m(r"^a{2}$", "aa"));
        assert!(m(r"^[[]+$", "[["));
        assert!(m(r"^[a&&b]+$", "&&"));
        assert!(m(r"^[]a]+$", "]a"));
        assert!(m(r"^[a-]+$", "-a"));
        assert!(m(r"^(?P<1x>a)$", "a"));
        assert!(m(r"^(?<n>a)$", "a"));
        // Go looks names up in its categories and scripts only: properties are refused.
        for p in [r"\p{Alphabetic}", r"\p{White_Space}", r"\p{Emoji}"] {
            assert!(translate(p).is_err(), "{}", p);
        }
        assert!(m(r"^\p{Any}+$", "aα"));
        assert!(m(r"^\p{^Greek}$", "a"));
        assert!(!m(r"^\p{^Greek}$", "α"));
        assert!(m(r"^[[:alpha:]]+$", "ab"));
        assert!(m(r"(?i)^ABC$", "abc"));
        assert!(m(r"^a#b c$", "a#b c"));
        assert!(m(r"^\#$", "#"));
    }

    #[test]
    fn go_rejects() {
        for p in [
            r"a{1001}",
            r"a{2,1}",
            r"(?x)a",
            r"\1",
            r"\8",
            r"\C",
            r"(",
            r")",
            r"[a",
            r"a**",
            r"*",
            r"[z-a]",
            r"\p{Nope}",
            r"(?P=n)",
            r"(?=a)",
            r"x\Z",
            r"[[:nope:]]",
        ] {
            assert!(compile_re2(p).is_err(), "{p} should not compile");
        }
        assert!(compile_re2(r"a{1000}").is_ok());
        assert!(compile_re2(r"a*?").is_ok());
    }

    #[test]
    fn go_parser_limits() {
        let e = |p: &str| go_compile_error(p).unwrap_or_default();
        // repeatIsValid: nested counts multiply.
        assert_eq!(e("(a{1000}){2}"), "error parsing regexp: invalid repeat count: `{2}`");
        assert_eq!(e("((a{10}){10}){11}"), "error parsing regexp: invalid repeat count: `{11}`");
        assert!(compile_re2("((a{10}){10}){10}").is_ok());
        assert!(compile_re2("((a{500}){0}){2}").is_ok());
        assert!(compile_re2("(a*){1000}").is_ok());
        assert!(compile_re2("(a{1000}){1}").is_ok());
        assert_eq!(e("a{1001}"), "error parsing regexp: invalid repeat count: `{1001}`");
        // Go's lastRepeat: the text from the first operator through the second.
        assert_eq!(e("a{1000}{1000}"), "error parsing regexp: invalid nested repetition operator: `{1000}{1000}`");
        assert_eq!(e("a{2}*"), "error parsing regexp: invalid nested repetition operator: `{2}*`");
        assert_eq!(e("a**"), "error parsing regexp: invalid nested repetition operator: `**`");
        // maxHeight: 1000.
        let deep = |n: usize| format!("{}a{}", "(".repeat(n), ")".repeat(n));
        assert!(compile_re2(&deep(999)).is_ok());
        let p = deep(1000);
        assert_eq!(e(&p), format!("error parsing regexp: expression nests too deeply: `{}`", p));
        let stars = "(?:a*)*".repeat(1) + &"(?:b+)?".repeat(3);
        assert!(compile_re2(&stars).is_ok());
        // maxSize: 3,355,443 instructions.
        let p = "(?:a{1000}){1}".to_string() + &"[ab]{1000}".repeat(3356);
        assert_eq!(e(&p), format!("error parsing regexp: expression too large: `{}`", p));
        assert!(compile_re2(&"x{1000}".repeat(300)).is_ok());
        // Within Go's size, past the crate's 64 MiB automaton: refused with Go's text.
        let p = "x{1000}".repeat(3000);
        assert_eq!(e(&p), format!("error parsing regexp: expression too large: `{}`", p));
    }

    #[test]
    fn hostile_patterns_compile_and_match_in_linear_time() {
        // RE2 semantics: no backtracking, time linear in the text times the program (a
        // thousand-state program over 100,000 characters takes seconds, in Go too). A
        // backtracking engine would not finish these (2^10,000 paths); no time is asserted
        // (the machine's load decides wall time), the answers are.
        let s = "a".repeat(10_000);
        for (p, want) in [("(a*)*$", true), ("(a|a)*b", false), ("(a+)+b", false), ("((a{10}){10}){10}b", false), ("(?:a?){30}a{30}$", true)] {
            let r = compile_re2(p).unwrap_or_else(|e| panic!("{p}: {e}"));
            assert_eq!(r.is_match(&s), want, "{p}");
        }
    }

    #[test]
    fn deepest_pattern_go_accepts_fits_a_small_stack() {
        // The wasm stack is 1 MiB: compile the deepest nesting Go accepts on such a thread.
        let h = std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(|| {
                let p = format!("{}a{}", "(".repeat(999), ")".repeat(999));
                assert!(compile_re2(&p).unwrap().is_match("a"));
                let p = format!("{}a{}", "(?:".repeat(499), "*)".repeat(499));
                assert!(compile_re2(&p).unwrap().is_match("aaa"));
                let p = format!("{}a{}", "(a|".repeat(499), ")".repeat(499));
                assert!(compile_re2(&p).unwrap().is_match("a"));
            })
            .unwrap();
        assert!(h.join().is_ok());
    }

    #[test]
    fn real_patterns() {
        let cron = r"^(@(annually|yearly|monthly|weekly|daily|hourly))|(\*|(?:\*|(?:[0-9]|(?:[1-5][0-9])))\/(?:[0-9]|(?:[1-5][0-9]))|(?:[0-9]|(?:[1-5][0-9]))(?:(?:\-[0-9]|\-(?:[1-5][0-9]))?|(?:\,(?:[0-9]|(?:[1-5][0-9])))*)) (\*|(?:\*|(?:\*|(?:[0-9]|1[0-9]|2[0-3])))\/(?:[0-9]|1[0-9]|2[0-3])|(?:[0-9]|1[0-9]|2[0-3])(?:(?:\-(?:[0-9]|1[0-9]|2[0-3]))?|(?:\,(?:[0-9]|1[0-9]|2[0-3]))*))$";
        assert!(compile_re2(cron).is_ok());
        assert!(m(r"^[a-zA-Z0-9-_ ]+$", "re-source group"));
        assert!(!m(r"^[a-zA-Z0-9-_ ]+$", "re$ource"));
        assert!(m(
            r"^([A-Za-z_]+([+-]*0)*|[A-Za-z_]+(\/[A-Za-z_]+){1,2})(\/GMT[+-]\d{1,2})?$",
            "Etc/UTC"
        ));
        assert!(!m(
            r"^([A-Za-z_]+([+-]*0)*|[A-Za-z_]+(\/[A-Za-z_]+){1,2})(\/GMT[+-]\d{1,2})?$",
            "GMT2"
        ));
        // Unanchored patterns match anywhere.
        assert!(m("b", "abc"));
    }
}
