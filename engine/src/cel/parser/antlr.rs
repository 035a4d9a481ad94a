//! The `cel` crate's ANTLR-generated parser with cel-go's macros and the library macros of
//! the version (`parser.NewParser` with the options of apiserver
//! `pkg/cel/environment/base.go`), and its errors printed as cel-go prints them: the path
//! every expression the fast parser (`descent`) does not take goes, and the only one that
//! reports errors.

use crate::cel::checker::Source;
use crate::cel::env::EnvOptions;
use crate::cel::environment::library_macros;
use crate::cel::library::comprehensions::standard_macros;
use crate::cel::parse_limits;
use crate::version::Feature;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The parser for an environment: optional syntax per options, the standard macros plus
/// the library macros of the version.
fn parser_env(opts: &EnvOptions) -> Arc<cel::Env> {
    static CACHE: OnceLock<Mutex<HashMap<EnvOptions, Arc<cel::Env>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut guard = match cache.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    };
    guard
        .entry(opts.clone())
        .or_insert_with(|| {
            // cel-go's own macro expansions (the `cel` crate's stdlib adds its own
            // optMap/optFlatMap, which would shadow the library's cel-go-shaped ones).
            let mut env = cel::Env::default().with_optional_support(opts.optional_syntax);
            for m in standard_macros().into_iter().chain(library_macros(opts)) {
                let _ = env.add_macro(m);
            }
            Arc::new(env)
        })
        .clone()
}

/// Parses an expression (within cel-go's parser limits, checked before); errors come
/// formatted as cel-go prints them.
///
/// The crate parses with backtick-escaped identifiers enabled so that, as in cel-go (which
/// Kubernetes runs without `EnableIdentifierEscapeSyntax`), each one is an `unsupported
/// syntax` error at the identifier and the expression around it still parses.
pub(crate) fn parse(
    opts: &EnvOptions,
    text: &str,
) -> Result<(cel::common::ast::IdedExpr, cel::common::ast::SourceInfo), String> {
    let env = parser_env(opts);
    // (line, 0-based column, message) of every error, sorted by position as cel-go prints.
    let mut errors: Vec<(usize, usize, String)> = Vec::new();
    let plain = Source::new(text, super::Offsets::Info(cel::common::ast::SourceInfo::default()), false);
    // An older release's grammar reports some input itself (backquotes before cel-go
    // v0.23, optional syntax before v0.14); the crate parses what its recovery leaves.
    let old = parse_limits::old_grammar(
        text,
        Feature::GrammarEscapedIdentifier.enabled_at(opts.release_minor),
        Feature::GrammarOptionalToken.enabled_at(opts.release_minor),
    );
    let read: &str = match &old {
        Some(o) => {
            for (offset, msg) in &o.errors {
                let (line, col) = plain.location(*offset);
                errors.push((line, col, msg.clone()));
            }
            &o.text
        }
        None => text,
    };
    let escaped = parse_limits::escaped_identifiers(read);
    let parser = env
        .parser()
        .enable_ident_escape_syntax(true)
        .max_recursion_depth(parse_limits::MAX_RECURSION_DEPTH as u16);
    for offset in &escaped {
        let (line, col) = plain.location(*offset);
        errors.push((line, col, "unsupported syntax: '`'".to_string()));
    }
    match parser.parse_with_source_info(read) {
        Ok((expr, info)) if errors.is_empty() => return Ok((expr, info)),
        Ok(_) => {}
        Err(errs) => {
            // cel-go's parser.Visit reports a missing parse element ("unknown parse element
            // encountered") only while no error is known; after a syntax error the visitor
            // passes over the holes silently. The `cel` crate reports each hole.
            let any_syntax = errs.errors.iter().any(|e| e.msg.starts_with("Syntax error:"));
            for e in &errs.errors {
                if any_syntax && is_missing_parse_element(&e.msg) {
                    continue;
                }
                let msg = old_grammar_message(&expected_tokens_of_release(&e.msg, opts.release_minor), opts.release_minor);
                errors.push((e.pos.0.max(1) as usize, (e.pos.1.max(1) - 1) as usize, msg));
            }
        }
    }
    crate::go::sort::sort_by(&mut errors, |a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    Err(errors.iter().map(|(l, c, m)| plain.format_error(*l, *c, m)).collect::<Vec<_>>().join("\n"))
}


/// A reserved word after `.`: the crate's grammar (cel-go v0.14+, two `member` alternatives
/// starting with `.`) finds no viable alternative at `.in`; cel-go v0.12's single one
/// conjures the identifier (`missing IDENTIFIER at 'in'`, ANTLR's single-token insertion:
/// `in` may follow an identifier).
fn old_grammar_message(msg: &str, release_minor: u32) -> String {
    if !Feature::GrammarOptionalToken.enabled_at(release_minor) && msg == "Syntax error: no viable alternative at input '.in'" {
        return "Syntax error: missing IDENTIFIER at 'in'".to_string();
    }
    msg.to_string()
}

/// The `cel` crate's visitor reports of a parse-tree node left incomplete by error
/// recovery (`Incomplete …!`, `No `…`!`, `Unknown `…` operator!`).
fn is_missing_parse_element(msg: &str) -> bool {
    msg.starts_with("Incomplete ") || msg.starts_with("No `") || msg.starts_with("Unknown `")
}

/// A syntax error's `expecting {…}` set as the release's cel-go grammar lists it: the `cel`
/// crate's grammar is cel-go v0.23's, which added `ESC_IDENTIFIER` (escaped field
/// selectors, Kubernetes 1.33); the optional-syntax `'?'` came with v0.14 (1.28).
fn expected_tokens_of_release(msg: &str, release_minor: u32) -> String {
    let Some(i) = msg.find("expecting {") else {
        return msg.to_string();
    };
    let (head, set) = msg.split_at(i + "expecting ".len());
    let mut set = set.to_string();
    if !Feature::GrammarEscapedIdentifier.enabled_at(release_minor) {
        set = set.replace(", ESC_IDENTIFIER", "");
    }
    if !Feature::GrammarOptionalToken.enabled_at(release_minor) {
        set = set.replace(", '?'", "");
    }
    format!("{}{}", head, set)
}
