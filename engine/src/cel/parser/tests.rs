//! The fast parser against the ANTLR one on tricky input: where it answers, the same AST,
//! ids and offsets; where it must not, it declines.

use crate::cel::env::EnvOptions;
use crate::cel::parser::descent::{self, macro_shape, MacroShape};
use crate::cel::parser::{antlr, descent_options, parse, parse_with, Backend};

fn opts(release: u32) -> EnvOptions {
    EnvOptions::stored(release)
}

/// The fast parser takes `text` and gives exactly the ANTLR parser's result.
fn same(text: &str) {
    for release in [25, 28, 31, 36] {
        let o = opts(release);
        let fast = parse_with(Backend::Fast, &o, text).expect("within limits");
        let slow = parse_with(Backend::Antlr, &o, text).unwrap_or_else(|e| panic!("ANTLR refuses {:?}: {}", text, e));
        let fast = fast.unwrap_or_else(|| panic!("the fast parser declines {:?} at 1.{}", text, release));
        assert_eq!(fast, slow.expect("ANTLR answers"), "{:?} at 1.{}", text, release);
    }
}

/// The fast parser declines `text` (at 1.36), and `parse` gives the ANTLR path's answer.
fn declines(text: &str) {
    let o = opts(36);
    assert!(descent::parse(text, descent_options(&o)).is_none(), "the fast parser takes {:?}", text);
    let via_parse = parse(&o, text).map(|(e, _)| e);
    let via_antlr = antlr::parse(&o, text).map(|(e, _)| e);
    assert_eq!(via_parse, via_antlr, "{:?}", text);
}

#[test]
fn operators_and_precedence() {
    for t in [
        "x + y * 3 - x / 2 > 10",
        "a * b + c",
        "a - b + c - d",
        "a % b / c * d",
        "a < b == c",
        "a in b && c || d && e || f",
        "a || b || c || d || e",
        "a && b && c",
        "a ? b : c ? d : e",
        "(a ? b : c) ? d : e",
        "a || b ? c && d : e || f",
        "x != null && x.y >= 2 && x.z <= 3",
    ] {
        same(t);
    }
}

#[test]
fn unary_operators() {
    for t in ["!x", "!!x", "!!!x", "-x", "--x", "---x", "- x", "!(a && b)", "-(1)", "!-1", "-1", "- 1", "-1.5", "-0x10", "a - -1", "[-1, -2.5]"] {
        same(t);
    }
    // Ambiguous between a signed literal and a negation: left to ANTLR.
    for t in ["--1", "-1u", "- -1.5", "-1.f()", "-1[0]"] {
        declines(t);
    }
}

#[test]
fn numbers() {
    for t in [
        "-9223372036854775808",
        "9223372036854775807",
        "0x7fffffffffffffff",
        "-0x8000000000000000",
        "1u",
        "0u",
        "18446744073709551615u",
        "0xFFu",
        ".5",
        "1.5",
        "1e3",
        "1E-3",
        "1.5e+10",
        "00",
        "1.e3",
        "1.5.x",
        "0x1f",
    ] {
        same(t);
    }
    for t in ["9223372036854775808", "18446744073709551616u", "1e400", "0X1", "1 2"] {
        declines(t);
    }
}

#[test]
fn strings_and_bytes() {
    for t in [
        r#""abc""#,
        "'abc'",
        r#"'\a\b\f\n\r\t\v\\\?\"\'\`'"#,
        r#"'\x41\101\u00e9\U0001F600'"#,
        r#"b'\x41\101\xff'"#,
        "'héllo ✓' + \"日本\"",
        "r'\\d+\\.'",
        "R\"a\\b\"",
        "'''multi\nline'''",
        "\"\"\"tri'ple\"\"\"",
        "r'''raw\\n'''",
        "br'x\\y'",
        "B\"z\"",
        "''",
        "\"\"",
        "'a\\\\.b'.matches('^[a-z]+\\\\.[a-z]$')",
        "'''a\r\nb'''",
    ] {
        same(t);
    }
    for t in ["'\\q'", "'abc", "b'\\u0041'", "'\\uD800'", "'a\nb'"] {
        declines(t);
    }
}

#[test]
fn members_calls_and_literals() {
    for t in [
        "a.b.c()",
        "a.b.c(1, 2).d[0]",
        "f()",
        "f(a, b)",
        ".x",
        ".f(1)",
        ".x.y",
        "a.if",
        "a.as()",
        "[1,2,]",
        "[]",
        "{'a':1,}",
        "{}",
        "{'a': 1, 'b': [2, {'c': 3}]}",
        "x[1][2]",
        "truex || nullx || in_x",
        "self.spec.replicas <= self.spec.maxReplicas",
    ] {
        same(t);
    }
    for t in ["f(a,)", "[,]", "{,}", "if", "a.in", "A{b: 1}", "a.`b-c`", "x.y?.z", "var(1)"] {
        declines(t);
    }
}

#[test]
fn macros() {
    for t in [
        "has(a.b)",
        "has(a.b.c) && has(self.x)",
        "x.all(e, e > 0)",
        "x.exists(e, e == 1)",
        "x.exists_one(e, e == 1)",
        "x.existsOne(e, e == 1)",
        "x.map(e, e * 2)",
        "x.map(e, e > 0, e * 2)",
        "x.filter(e, e > 0)",
        "x.all(e, e.all(f, f > e.size()))",
        ".has(a.b)",
        "a.has(b)",
        "x.all(e)",
        "map(x, e, e)",
        "self.items.map(i, i.name).filter(n, n.startsWith('a')).size() > 0",
    ] {
        same(t);
    }
    // A macro's error, or a macro this parser does not expand: left to ANTLR.
    for t in ["has(a)", "x.all(1, true)", "x.all(__result__, true)", "x.all(k, k, true)", "x.sortBy(e, e)", "x.optMap(1, e)"] {
        declines(t);
    }
}

#[test]
fn optional_syntax() {
    for t in ["a.?b", "a[?0]", "[?a, b]", "{?'k': v}", "a.?b.orValue(1)"] {
        // Optional syntax is in the grammar from 1.28.
        for release in [28, 31, 36] {
            let o = opts(release);
            let fast = parse_with(Backend::Fast, &o, t).unwrap().unwrap_or_else(|| panic!("declines {:?}", t));
            assert_eq!(Some(fast), parse_with(Backend::Antlr, &o, t).unwrap(), "{:?}", t);
        }
        assert!(parse_with(Backend::Fast, &opts(25), t).unwrap().is_none(), "{:?} at 1.25", t);
    }
}

#[test]
fn comments_and_whitespace() {
    for t in [
        "a // comment",
        "// first\na",
        "a +\n  b",
        "a\r\n&& b",
        "a\t\x0c&& b",
        "x.all(e, // each\n e > 0)",
    ] {
        same(t);
    }
}

#[test]
fn parse_takes_the_fast_path_and_keeps_antlr_errors() {
    let o = opts(36);
    assert!(descent::parse("a + 1", descent_options(&o)).is_some());
    let err = parse(&o, "a +").err().expect("a syntax error");
    assert!(err.starts_with("ERROR: <input>:1:4: Syntax error:"), "{}", err);
    let err = parse(&o, "has(a)").err().expect("a macro error");
    assert!(err.contains("invalid argument to has() macro"), "{}", err);
}

/// The library macros the fast parser expands, at the compatibility versions the libraries
/// add them.
#[test]
fn fast_macros_are_the_library_macros() {
    use crate::cel::environment::library_macros;
    for minor in 25..=37 {
        let o = EnvOptions::stored(minor);
        let names: Vec<String> = library_macros(&o).iter().map(|m| format!("{:?}", m)).collect();
        let has = |n: &str| names.iter().any(|d| d.contains(&format!("\"{}\"", n)));
        let f = descent_options(&o);
        assert_eq!(f.opt_map_macros, has("optMap") && has("optFlatMap"), "1.{}", minor);
        assert_eq!(f.two_variable_macros, has("transformList") && has("transformMapEntry"), "1.{}", minor);
    }
    for t in [
        "a.optMap(v, v + 1)",
        "a.?b.optFlatMap(v, v.?c)",
        "x.all(k, v, k < v)",
        "x.exists(k, v, k < v)",
        "x.existsOne(k, v, k < v)",
        "x.exists_one(k, v, k < v)",
        "x.transformList(i, v, v * 2)",
        "x.transformList(i, v, i > 0, v * 2)",
        "x.transformMap(k, v, v * 2)",
        "x.transformMap(k, v, k != 'a', v * 2)",
        "x.transformMapEntry(k, v, {v: k})",
        "x.transformMapEntry(k, v, v > 0, {v: k})",
    ] {
        for release in [25, 28, 31, 32, 36] {
            let o = opts(release);
            let fast = parse_with(Backend::Fast, &o, t).unwrap();
            let slow = parse_with(Backend::Antlr, &o, t).ok().flatten();
            if let Some(f) = fast {
                assert_eq!(Some(f), slow, "{:?} at 1.{}", t, release);
            } else {
                assert!(release < 32 || (release < 28 && t.contains("opt")), "{:?} declined at 1.{}", t, release);
            }
        }
    }
}

/// Every macro of every release (name, target or not, argument count) is one the fast
/// parser expands or falls back on, never one it takes for a plain call.
#[test]
fn every_macro_is_expanded_or_declined() {
    use crate::cel::environment::library_macros;
    use crate::cel::library::comprehensions::standard_macros;
    for minor in 25..=37 {
        let mut o = EnvOptions::stored(minor);
        o.conformance_extensions = true;
        let f = descent_options(&o);
        for m in standard_macros().into_iter().chain(library_macros(&o)) {
            // `Macro { function: "has", receiver_style: false, arity: Exactly(1), .. }`
            let debug = format!("{:?}", m);
            let name = debug.split('"').nth(1).expect("the macro's name");
            let receiver = debug.contains("receiver_style: true");
            let arities: Vec<usize> = match debug.split("Exactly(").nth(1) {
                Some(rest) => vec![rest.split(')').next().and_then(|n| n.parse().ok()).expect("an arity")],
                None => (0..6).collect(),
            };
            for argc in arities {
                assert_ne!(macro_shape(f, receiver, name, argc), MacroShape::None, "{} at 1.{}", debug, minor);
            }
        }
    }
}

/// Random bytes and mutations of real rules: the fast parser never panics, and what it
/// takes, ANTLR takes the same way.
#[test]
fn fuzzish_inputs_match_or_fall_back() {
    let seeds = [
        "self.spec.replicas <= self.spec.maxReplicas && has(self.status)",
        "x.all(e, e.name.startsWith('a') || e.size() > 2u) ? [1, -2.5, b'x'] : {'k': r'v\\d'}",
        "a.?b[?0].orValue(\"\"\"t\"\"\") in [?x] && !-1 != --y",
        "self.map(k, k > 0, k * 2).filter(x, x % 2 == 0).exists_one(z, z == 4) // c",
    ];
    let alphabet: Vec<u8> = b"ab.()[]{}?:!-+*/%<>=&|,'\"`\\ 019xu.eE_\n".to_vec();
    let mut next = crate::testing::xorshift(0x2545_F491_4F6C_DD1D);
    let o = opts(36);
    let mut checked = 0;
    for round in 0..3000 {
        let mut bytes: Vec<u8> = if round % 3 == 0 {
            (0..next(24)).map(|_| alphabet[next(alphabet.len())]).collect()
        } else {
            seeds[next(seeds.len())].as_bytes().to_vec()
        };
        for _ in 0..1 + next(3) {
            if bytes.is_empty() {
                break;
            }
            let at = next(bytes.len());
            match next(3) {
                0 => {
                    bytes.remove(at);
                }
                1 => bytes.insert(at, alphabet[next(alphabet.len())]),
                _ => bytes[at] = alphabet[next(alphabet.len())],
            }
        }
        let Ok(text) = String::from_utf8(bytes) else { continue };
        let Ok(fast) = parse_with(Backend::Fast, &o, &text) else { continue };
        if let Some(fast) = fast {
            let slow = parse_with(Backend::Antlr, &o, &text).unwrap_or_else(|e| panic!("fast takes {:?}, ANTLR: {}", text, e));
            assert_eq!(Some(fast), slow, "{:?}", text);
            checked += 1;
        }
    }
    assert!(checked > 100, "only {} inputs taken", checked);
}

/// `cargo test --release -p crdlab --lib cel::parser::tests::time_parts -- --ignored --nocapture`:
/// where a small expression's parse time goes on the fast path.
#[test]
#[ignore]
fn time_parts() {
    use crate::cel::parse_limits;
    use std::time::Instant;
    let text = "x + y * 3 - x / 2 > 10";
    let o = opts(36);
    let rounds = 50_000u32;
    let t = Instant::now();
    for _ in 0..rounds {
        std::hint::black_box(parse_limits::exceeded(std::hint::black_box(text)));
    }
    eprintln!("limits check       {:?}", t.elapsed() / rounds);
    let t = Instant::now();
    for _ in 0..rounds {
        std::hint::black_box(descent::parse(std::hint::black_box(text), descent_options(&o)));
    }
    eprintln!("fast parser        {:?}", t.elapsed() / rounds);
    let t = Instant::now();
    for _ in 0..rounds {
        std::hint::black_box(parse(&o, std::hint::black_box(text)).is_ok());
    }
    eprintln!("parse (all of it)  {:?}", t.elapsed() / rounds);
}
