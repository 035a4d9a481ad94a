//! A CRD's RE2 `pattern` rewritten for ECMAScript, the regex dialect of JSON Schema tools
//! (ajv, the YAML language server, VS Code's JSON service: `new RegExp(pattern, "u")`).
//!
//! The two dialects differ in what matters: Go's `\s` is `[\t\n\f\r ]` and JavaScript's is
//! Unicode's; `.` excludes only `\n` in Go but also `\r`, U+2028 and U+2029 in JavaScript;
//! `(?i)`, `\Q…\E`, `[[:alpha:]]`, `\pN`, `\z` exist only in Go; and in "u" mode JavaScript
//! refuses a lone `{` or an escaped `\:` that Go reads as literals. Rewriting the text piece by
//! piece would chase these one by one. Instead the pattern goes through the same rewrite the
//! engine uses ([`crate::go::regexp::translate`], Go's semantics in the `regex` crate's
//! syntax), is parsed into `regex-syntax`'s HIR, where classes are explicit code-point ranges,
//! case folding is expanded and Perl classes are resolved, and the HIR is written back out in
//! the small subset of ECMAScript that means the same in every engine: escaped literals,
//! `[…]` of `\u{…}` ranges, `(?:…)`, `(…)`, `^`/`$` (no `m` flag, so both mean the text's
//! ends, like Go's `\A`/`\z` and `^`/`$` without `(?m)`), lookarounds for `(?m)`'s line
//! anchors, `\b`/`\B` (ASCII in both).
//!
//! Matching a JSON Schema `pattern` searches, like Go's `MatchString`, so anchoring carries
//! over unchanged.

use regex_syntax::hir::{Class, Hir, HirKind, Look};

/// The longest rewritten pattern kept: Unicode classes expand to their ranges (`\pL` alone
/// is about 13 KB), and a schema of a few hundred such patterns should stay readable.
pub const MAX_ECMASCRIPT_PATTERN: usize = 32 * 1024;

/// `pattern` (Go RE2) as an ECMAScript pattern for `new RegExp(p, "u")`, or why it cannot be
/// written as one.
pub fn to_ecmascript(pattern: &str) -> Result<String, String> {
    let translated = crate::go::regexp::translate(pattern)?;
    let hir = regex_syntax::ParserBuilder::new()
        .nest_limit(crate::go::regexp::REGEX_NEST_LIMIT)
        .build()
        .parse(&translated)
        .map_err(|e| e.to_string())?;
    let mut out = String::with_capacity(pattern.len() + 16);
    write(&hir, &mut out)?;
    if out.len() > MAX_ECMASCRIPT_PATTERN {
        return Err(format!(
            "its ECMAScript form is {} bytes (Unicode classes spelled out), more than the {} kept",
            out.len(),
            MAX_ECMASCRIPT_PATTERN
        ));
    }
    Ok(out)
}

/// Whether `hir` written out is one unit a quantifier applies to as a whole.
fn is_atom(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Literal(l) => std::str::from_utf8(&l.0).map(|s| s.chars().count() == 1).unwrap_or(false),
        HirKind::Class(_) | HirKind::Capture(_) => true,
        _ => false,
    }
}

fn write(hir: &Hir, out: &mut String) -> Result<(), String> {
    match hir.kind() {
        HirKind::Empty => {}
        HirKind::Literal(lit) => {
            let s = std::str::from_utf8(&lit.0).map_err(|_| "a byte literal outside UTF-8".to_string())?;
            for c in s.chars() {
                literal(c, false, out);
            }
        }
        HirKind::Class(Class::Unicode(class)) => {
            out.push('[');
            for r in class.ranges() {
                literal(r.start(), true, out);
                if r.end() != r.start() {
                    out.push('-');
                    literal(r.end(), true, out);
                }
            }
            out.push(']');
        }
        HirKind::Class(Class::Bytes(_)) => return Err("a byte class ((?-u) mode)".into()),
        HirKind::Look(look) => out.push_str(match look {
            Look::Start => "^",
            Look::End => "$",
            // `(?m)`: after a newline or at the start; before a newline or at the end.
            Look::StartLF => "(?:^|(?<=\\n))",
            Look::EndLF => "(?:$|(?=\\n))",
            Look::WordAscii => "\\b",
            Look::WordAsciiNegate => "\\B",
            other => return Err(format!("the assertion {:?}", other)),
        }),
        HirKind::Repetition(rep) => {
            if is_atom(&rep.sub) {
                write(&rep.sub, out)?;
            } else {
                out.push_str("(?:");
                write(&rep.sub, out)?;
                out.push(')');
            }
            match (rep.min, rep.max) {
                (0, None) => out.push('*'),
                (1, None) => out.push('+'),
                (0, Some(1)) => out.push('?'),
                (n, None) => out.push_str(&format!("{{{},}}", n)),
                (n, Some(m)) if n == m => out.push_str(&format!("{{{}}}", n)),
                (n, Some(m)) => out.push_str(&format!("{{{},{}}}", n, m)),
            }
            if !rep.greedy {
                out.push('?');
            }
        }
        // Group names are dropped: a schema pattern only matches or not.
        HirKind::Capture(cap) => {
            out.push('(');
            write(&cap.sub, out)?;
            out.push(')');
        }
        HirKind::Concat(parts) => {
            for p in parts {
                if matches!(p.kind(), HirKind::Alternation(_)) {
                    out.push_str("(?:");
                    write(p, out)?;
                    out.push(')');
                } else {
                    write(p, out)?;
                }
            }
        }
        HirKind::Alternation(parts) => {
            for (i, p) in parts.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                write(p, out)?;
            }
        }
    }
    Ok(())
}

/// One code point, escaped where ECMAScript's "u" mode needs it (in a class: `\ ] [ ^ -`;
/// outside: the syntax characters and `/`), and spelled `\u{…}` when not printable ASCII so
/// the schema file stays plain.
fn literal(c: char, in_class: bool, out: &mut String) {
    let special = if in_class {
        matches!(c, '\\' | ']' | '[' | '^' | '-')
    } else {
        matches!(c, '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|' | '/')
    };
    if special {
        out.push('\\');
        out.push(c);
    } else if c.is_ascii_graphic() || c == ' ' {
        out.push(c);
    } else {
        out.push_str(&format!("\\u{{{:x}}}", c as u32));
    }
}

#[cfg(test)]
mod tests {
    use super::to_ecmascript;

    #[test]
    fn plain_patterns_stay_readable() {
        assert_eq!(to_ecmascript("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$").unwrap(), "^[0-9a-z]([\\-0-9a-z]*[0-9a-z])?$");
        assert_eq!(to_ecmascript("^v[0-9]+\\.[0-9]+$").unwrap(), "^v[0-9]+\\.[0-9]+$");
        assert_eq!(to_ecmascript("a|bc").unwrap(), "a|bc");
        assert_eq!(to_ecmascript("(?:ab)+x{2,3}?").unwrap(), "(?:ab)+x{2,3}?");
    }

    #[test]
    fn go_only_syntax_becomes_ecmascript() {
        // Go's \s has no \v; `.` excludes only \n.
        assert_eq!(to_ecmascript("\\s").unwrap(), "[\\u{9}-\\u{a}\\u{c}-\\u{d} ]");
        assert_eq!(to_ecmascript("^.$").unwrap(), "^[\\u{0}-\\u{9}\\u{b}-\\u{10ffff}]$");
        // Case folding spelled out, \Q…\E quoted, a literal brace, an escaped colon.
        assert_eq!(to_ecmascript("(?i)ab").unwrap(), "[Aa][Bb]");
        assert_eq!(to_ecmascript("\\Q.*\\E").unwrap(), "\\.\\*");
        assert_eq!(to_ecmascript("a{,2}\\:").unwrap(), "a\\{,2\\}:");
        assert_eq!(to_ecmascript("[[:digit:]]\\z").unwrap(), "[0-9]$");
        assert_eq!(to_ecmascript("(?P<year>\\d{4})").unwrap(), "([0-9]{4})");
        assert_eq!(to_ecmascript("(?m)^a$").unwrap(), "(?:^|(?<=\\n))a(?:$|(?=\\n))");
    }

    #[test]
    fn what_go_refuses_is_refused() {
        assert!(to_ecmascript("a**").is_err());
        assert!(to_ecmascript("(").is_err());
        // \pL is about 13 KB spelled out: kept; four of them in a row are not.
        assert!(to_ecmascript("\\pL").is_ok());
        assert!(to_ecmascript("\\pL\\pL\\pL\\pL").is_err());
    }
}
