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
        Ok(t) => regex::RegexBuilder::new(&t).size_limit(1 << 26).build(),
        Err(msg) => Err(regex::Error::Syntax(msg)),
    }
}

/// [`compile_re2`] through a per-thread cache of compiled schema patterns: a CRD's
/// `pattern`s are checked by the CRD checks, compiled into each version that has them, and
/// again on every re-compile after an edit; each distinct text is compiled once. Bounded
/// (emptied when it holds [`PATTERN_CACHE_CAPACITY`] patterns). Only for schema patterns:
/// patterns that come from objects at run time are not worth keeping.
pub fn compile_re2_cached(pattern: &str) -> Result<regex::Regex, regex::Error> {
    thread_local! {
        static PATTERNS: std::cell::RefCell<std::collections::HashMap<String, Result<regex::Regex, regex::Error>>> =
            std::cell::RefCell::new(std::collections::HashMap::new());
    }
    if let Some(r) = PATTERNS.with(|c| c.borrow().get(pattern).cloned()) {
        return r;
    }
    let r = compile_re2(pattern);
    PATTERNS.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= PATTERN_CACHE_CAPACITY {
            c.clear();
        }
        c.insert(pattern.to_string(), r.clone());
    });
    r
}

/// Patterns [`compile_re2_cached`] keeps at most.
pub const PATTERN_CACHE_CAPACITY: usize = 256;

/// The Go error text for a pattern that does not compile (`error parsing regexp: ...`),
/// as far as it can be told; `None` when the pattern compiles.
pub fn go_compile_error(pattern: &str) -> Option<String> {
    match translate(pattern) {
        Err(msg) => Some(msg),
        Ok(t) => match regex::RegexBuilder::new(&t).size_limit(1 << 26).build() {
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
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let (text, next) = translate_escape_top(&chars, i, pattern)?;
                out.push_str(&text);
                // \A \z \b \B are zero-width; Go still allows repeating them.
                can_repeat = true;
                last_was_repeat = false;
                i = next;
            }
            '[' => {
                let (text, next) = translate_class(&chars, i, pattern)?;
                out.push_str(&text);
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
                        can_repeat = false;
                    } else {
                        // A bare flag setting like (?i) is not an operand.
                        can_repeat = false;
                    }
                    last_was_repeat = false;
                    i = next;
                } else {
                    out.push('(');
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
                    let expr: String = chars[start - 1..op_end.min(chars.len())].iter().collect();
                    return Err(err("invalid nested repetition operator", &expr));
                }
                if !can_repeat {
                    let expr: String = chars[start..op_end].iter().collect();
                    return Err(err("missing argument to repetition operator", &expr));
                }
                for ch in &chars[start..op_end] {
                    out.push(*ch);
                }
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
                    if last_was_repeat {
                        return Err(err("invalid nested repetition operator", &expr));
                    }
                    if !can_repeat {
                        return Err(err("missing argument to repetition operator", &expr));
                    }
                    for ch in &chars[i..op_end] {
                        out.push(*ch);
                    }
                    last_was_repeat = true;
                    i = op_end;
                } else {
                    out.push_str("\\{");
                    can_repeat = true;
                    last_was_repeat = false;
                    i += 1;
                }
            }
            '|' => {
                out.push('|');
                can_repeat = false;
                last_was_repeat = false;
                i += 1;
            }
            '^' | '$' | '.' => {
                out.push(c);
                can_repeat = true;
                last_was_repeat = false;
                i += 1;
            }
            _ => {
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

/// Go accepts the Unicode general categories and script names of its tables, plus "Any".
/// The `regex` crate accepts more (aliases, loose matching); reject those Go would reject.
fn go_unicode_class_name_ok(name: &str) -> bool {
    if name.is_empty() {
        return false;
    }
    if name == "Any" {
        return true;
    }
    // Names are case-sensitive identifiers made of letters and underscores in Go.
    if !name.chars().all(|c| c.is_ascii_alphabetic() || c == '_') {
        return false;
    }
    regex::Regex::new(&format!("\\p{{{}}}", name)).is_ok()
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
