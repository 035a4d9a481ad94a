//! CEL as the apiserver runs it for `x-kubernetes-validations`, split the way cel-go
//! splits itself: the `cel` crate's parser (with our macros), [`checker`] (types and
//! overload resolution), [`interpreter`] (evaluation and runtime cost), [`library`] (one file
//! per function library) over [`types`]/[`value`]/[`env`]. [`rules`] compiles a CRD's rules
//! and runs them on objects; [`eval`] is the expression mode of `crdlab batch`.

pub mod checker;
pub mod cost;
pub mod env;
pub mod eval;
pub mod interpreter;
pub mod library;
pub mod parse_limits;
pub mod rules;
pub mod types;
pub mod value;

use checker::{format_issues, CheckIssue, Source};
use env::{Env, EnvOptions};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

pub use rules::{rule_reports, validate, CelOutcome, RUNTIME_CEL_COST_BUDGET};

/// Per-call cost limit (AS `pkg/apis/cel/config.go` PerCallLimit).
pub const PER_CALL_LIMIT: u64 = 1_000_000;

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
            for m in library::comprehensions::standard_macros().into_iter().chain(library::macros(opts)) {
                let _ = env.add_macro(m);
            }
            Arc::new(env)
        })
        .clone()
}

/// The base environment (no variables) at a compatibility version, shared.
pub fn base_env(opts: &EnvOptions) -> Arc<Env> {
    static CACHE: OnceLock<Mutex<HashMap<EnvOptions, Arc<Env>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut guard = match cache.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    };
    guard.entry(opts.clone()).or_insert_with(|| Arc::new(Env::base(opts.clone()))).clone()
}

/// Parses an expression; errors come formatted as cel-go prints them.
///
/// cel-go's parser limits (expression size, recursion) are checked first, on the token
/// stream: they are reported alone, without a location, and they keep the `cel` crate's
/// recursive parser away from input deeper than cel-go accepts. The crate parses with
/// backtick-escaped identifiers enabled so that, as in cel-go (which Kubernetes runs
/// without `EnableIdentifierEscapeSyntax`), each one is an `unsupported syntax` error at
/// the identifier and the expression around it still parses.
pub fn parse(opts: &EnvOptions, text: &str) -> Result<(cel::common::ast::IdedExpr, Source), String> {
    if let Some(msg) = parse_limits::exceeded(text) {
        return Err(format!("ERROR: <input>:-1:0: {}", msg));
    }
    let env = parser_env(opts);
    let escaped = parse_limits::escaped_identifiers(text);
    let parser = env
        .parser()
        .enable_ident_escape_syntax(true)
        .max_recursion_depth(parse_limits::MAX_RECURSION_DEPTH as u16);
    let source = |info: &cel::common::ast::SourceInfo, ids: Vec<u64>| Source::new(text, info, ids.into_iter());
    // (line, 0-based column, message) of every error, sorted by position as cel-go prints.
    let mut errors: Vec<(usize, usize, String)> = Vec::new();
    let plain = source(&cel::common::ast::SourceInfo::default(), Vec::new());
    for offset in &escaped {
        let (line, col) = plain.location(*offset);
        errors.push((line, col, "unsupported syntax: '`'".to_string()));
    }
    match parser.parse_with_source_info(text) {
        Ok((expr, info)) if errors.is_empty() => {
            let mut ids = Vec::new();
            checker::node_ids(&expr, &mut ids);
            let source = source(&info, ids);
            return Ok((expr, source));
        }
        Ok(_) => {}
        Err(errs) => {
            for e in &errs.errors {
                errors.push((e.pos.0.max(1) as usize, (e.pos.1.max(1) - 1) as usize, e.msg.clone()));
            }
        }
    }
    errors.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    Err(errors.iter().map(|(l, c, m)| plain.format_error(*l, *c, m)).collect::<Vec<_>>().join("\n"))
}

/// Why an expression did not become a program.
#[derive(Clone, Debug, PartialEq)]
pub enum CompileError {
    /// Parse or type-check issues, as cel-go prints them.
    Compile(String),
    /// The expression checked but planning it failed (a constant conversion error).
    Program(String),
}

/// Parses and type-checks `text` in `env` (which carries the variables), then plans it.
pub fn compile_program(env: Arc<Env>, text: &str) -> Result<interpreter::Program, CompileError> {
    let (expr, source) = parse(&env.options, text).map_err(CompileError::Compile)?;
    let checked = checker::check(&env, expr, source).map_err(CompileError::Compile)?;
    // cel-go runs the AST validators only on a clean check. The homogeneous aggregate
    // literal validator applies at every version, the literal ones from 1.29.
    let mut issues = library::validators::validate(&env.options, &checked);
    issues.extend(library::strings::validate_format_calls(&env.options, &checked));
    if !issues.is_empty() {
        return Err(CompileError::Compile(format_issues(&checked.source, &issues)));
    }
    interpreter::Program::new(checked, env).map_err(CompileError::Program)
}

/// [`compile_program`] with the apiserver's wording for program errors.
pub fn compile(env: Arc<Env>, text: &str) -> Result<interpreter::Program, String> {
    compile_program(env, text).map_err(|e| match e {
        CompileError::Compile(s) => s,
        CompileError::Program(s) => format!("program instantiation failed: {}", s),
    })
}

/// A copy of `base` with extra variables.
pub fn env_with_variables(base: &Env, vars: &[(String, types::Type)]) -> Env {
    let mut env = Env {
        options: base.options.clone(),
        functions: base.functions.clone(),
        variables: base.variables.clone(),
        impls: base.impls.clone(),
        params: base.params.clone(),
    };
    for (n, t) in vars {
        env.add_variable(n, t.clone());
    }
    env
}

/// Issues found after checking (literal validators); `None` when clean.
pub type Issues = Option<Vec<CheckIssue>>;
