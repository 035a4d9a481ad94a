//! Parsing an expression as the Kubernetes CEL environment's parser does (cel-go's
//! `parser.NewParser` with the options of apiserver `pkg/cel/environment/base.go`):
//! cel-go's parser limits first, then a hand-written parser ([`descent`]) for the
//! expressions it knows it reads exactly as the `cel` crate's ANTLR parser does, and that
//! parser ([`antlr`]) for every other one, errors included.
//!
//! Both give the same AST, node ids and source offsets for what the fast one accepts
//! (engine/tests/parser_differential.rs compares them over every rule of the shared
//! vectors and CRDs); the ANTLR path costs most of a small rule's compile time.

pub(crate) mod antlr;
pub(crate) mod descent;
#[cfg(test)]
mod tests;

use crate::cel::checker::{node_ids, Offsets, Source};
use crate::cel::env::EnvOptions;
use crate::cel::hash::IdMap;
use crate::cel::parse_limits;
use crate::version::Feature;
use cel::common::ast::IdedExpr;

/// Parses an expression; errors come formatted as cel-go prints them.
///
/// cel-go's parser limits (expression size, recursion) are checked first, on the token
/// stream: they are reported alone, without a location, and they keep both recursive
/// parsers away from input deeper than cel-go accepts.
pub fn parse(opts: &EnvOptions, text: &str) -> Result<(IdedExpr, Source), String> {
    if let Some(msg) = parse_limits::exceeded(text) {
        return Err(format!("ERROR: <input>:-1:0: {}", msg));
    }
    let (expr, offsets) = match fast(opts, text) {
        Some((e, ids)) => (e, Offsets::Ids(ids)),
        None => antlr::parse(opts, text).map(|(e, info)| (e, Offsets::Info(info)))?,
    };
    let source = source_of(opts, text, offsets);
    Ok((expr, source))
}

/// The fast parser, for the release's grammar: optional syntax only where the release's
/// grammar has it and the environment enables it.
fn fast(opts: &EnvOptions, text: &str) -> Option<(IdedExpr, IdMap<(u32, u32)>)> {
    descent::parse(text, descent_options(opts))
}

/// The fast parser's grammar and macros for an environment: optional syntax where the
/// release's grammar has it and the environment enables it; the library macros at the
/// compatibility versions `optional::macros` (1.28) and `comprehensions::macros` (1.32)
/// add them (`tests::fast_macros_are_the_library_macros` holds them together).
pub(crate) fn descent_options(opts: &EnvOptions) -> descent::Options {
    descent::Options {
        optional_syntax: opts.optional_syntax && Feature::GrammarOptionalToken.enabled_at(opts.release_minor),
        opt_map_macros: opts.compat_minor >= 28,
        two_variable_macros: opts.compat_minor >= 32,
    }
}

/// The node offsets of a parsed expression, as code points before cel-go v0.17.
fn source_of(opts: &EnvOptions, text: &str, offsets: Offsets) -> Source {
    Source::new(text, offsets, !Feature::CheckerByteColumns.enabled_at(opts.release_minor))
}


/// One parser's result, in a form tests outside the crate compare: the AST, every id's
/// recorded offsets (start, stop), the source text the info holds, and the offsets the
/// resulting [`Source`] gives each node.
#[doc(hidden)]
#[derive(Debug, PartialEq)]
pub struct Parsed {
    pub expr: IdedExpr,
    pub info_offsets: Vec<(u64, u32, u32)>,
    pub info_source: String,
    pub source_offsets: Vec<(u64, Option<usize>)>,
}

/// Which parser [`parse_with`] runs.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The hand-written one: `None` when it does not take the expression.
    Fast,
    /// The `cel` crate's ANTLR parser.
    Antlr,
}

/// The result of one parser alone, after the limits (for the differential tests).
/// `Ok(None)`: the fast parser declined.
#[doc(hidden)]
pub fn parse_with(backend: Backend, opts: &EnvOptions, text: &str) -> Result<Option<Parsed>, String> {
    if let Some(msg) = parse_limits::exceeded(text) {
        return Err(format!("ERROR: <input>:-1:0: {}", msg));
    }
    let (expr, offsets, info_source) = match backend {
        Backend::Fast => match fast(opts, text) {
            // The crate's parser keeps the text in its source info.
            Some((e, ids)) => (e, Offsets::Ids(ids), text.to_string()),
            None => return Ok(None),
        },
        Backend::Antlr => {
            let (e, info) = antlr::parse(opts, text)?;
            let source = info.source.clone();
            (e, Offsets::Info(info), source)
        }
    };
    let mut ids = Vec::new();
    node_ids(&expr, &mut ids);
    let max = ids.iter().copied().max().unwrap_or(0);
    // Ids are handed out densely from 1; the ones a macro drops are still recorded.
    let info_offsets = (0..=max.saturating_mul(2) + 64)
        .filter_map(|id| offsets.get(id).map(|(s, e)| (id, s, e)))
        .collect();
    let source = source_of(opts, text, offsets);
    let source_offsets = ids.iter().map(|&id| (id, source.offset_of(id))).collect();
    Ok(Some(Parsed { expr, info_offsets, info_source, source_offsets }))
}
