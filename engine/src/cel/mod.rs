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
use crate::version::Feature;

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
            // cel-go's parser.Visit reports a missing parse element ("unknown parse element
            // encountered") only while no error is known; after a syntax error the visitor
            // passes over the holes silently. The `cel` crate reports each hole.
            let any_syntax = errs.errors.iter().any(|e| e.msg.starts_with("Syntax error:"));
            for e in &errs.errors {
                if any_syntax && is_missing_parse_element(&e.msg) {
                    continue;
                }
                let msg = expected_tokens_of_release(&e.msg, opts.release_minor);
                errors.push((e.pos.0.max(1) as usize, (e.pos.1.max(1) - 1) as usize, msg));
            }
        }
    }
    errors.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    Err(errors.iter().map(|(l, c, m)| plain.format_error(*l, *c, m)).collect::<Vec<_>>().join("\n"))
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

#[cfg(test)]
mod tests {
    use super::*;
    use types::Type;

    #[test]
    fn carets_are_wide_only_under_a_wide_character() {
        // cel-go's ToDisplayString: full-width dots for the wide characters before the
        // column, a full-width caret only when the character at the column is wide.
        let e = run("'😁' == 1", &[]).unwrap_err();
        assert!(e.ends_with("\n | '😁' == 1\n | .．.....^"), "{}", e);
        let e = run("size(😁)", &[]).unwrap_err();
        assert!(e.contains("\n | size(😁)\n | .....＾"), "{}", e);
    }

    /// Compiles in the Kubernetes 1.36 environment (compatibility 1.35) and evaluates:
    /// `Ok((output type, typed value))`, or the compile/evaluation error text.
    fn run(
        text: &str,
        vars: &[(&str, Type, value::Val<'static>)],
    ) -> Result<(String, serde_json::Value), String> {
        let base = base_env(&EnvOptions::for_version(35));
        let decls: Vec<(String, Type)> = vars
            .iter()
            .map(|(n, t, _)| (n.to_string(), t.clone()))
            .collect();
        let env = Arc::new(env_with_variables(&base, &decls));
        let program = compile(env, text)?;
        let vals: Vec<(&str, value::Val)> = vars.iter().map(|(n, _, v)| (*n, v.clone())).collect();
        let (r, _) = program.eval(&vals, Some(PER_CALL_LIMIT));
        let t = program.checked.output_type().to_string();
        r.map(|v| (t, eval::typed_value(&v))).map_err(|e| e.message)
    }

    fn value(text: &str) -> serde_json::Value {
        match run(text, &[]) {
            Ok((_, v)) => v,
            Err(e) => panic!("{}: {}", text, e),
        }
    }

    #[test]
    fn mixed_literals_check_as_dyn_then_fail_the_homogeneity_validator() {
        // cel-go joins mixed element types to dyn; Kubernetes' validator rejects the literal
        // afterwards, alone (no overload error for `@in` over list(int)).
        assert_eq!(
            run("'elem' in [1, 'elem', 2]", &[]).unwrap_err(),
            "ERROR: <input>:1:15: expected type 'int' but found 'string'\n | 'elem' in [1, 'elem', 2]\n | ..............^"
        );
        // Below a `format` call mixed lists are allowed, and typed list(dyn).
        assert_eq!(
            value("'%s %d'.format(['a', 1])"),
            serde_json::json!({"type": "string", "value": "a 1"})
        );
    }

    #[test]
    fn type_names() {
        // cel-go declares no `dyn` type name.
        assert!(run("dyn", &[])
            .unwrap_err()
            .contains("undeclared reference to 'dyn'"));
        assert_eq!(
            value("type(optional.none()) == optional_type"),
            serde_json::json!({"type": "bool", "value": true})
        );
        assert_eq!(
            value("google.protobuf.Timestamp == type(timestamp('2009-02-13T23:31:30Z'))"),
            serde_json::json!({"type": "bool", "value": true})
        );
        let (t, v) = run(
            "type(cidr('10.0.0.0/8')) == net.CIDR && type(ip('::1')) == net.IP",
            &[],
        )
        .unwrap();
        assert_eq!(
            (t.as_str(), v),
            ("bool", serde_json::json!({"type": "bool", "value": true}))
        );
        assert_eq!(run("net.IP", &[]).unwrap().0, "type(net.IP)");
    }

    #[test]
    fn qualified_variables_resolve_as_the_checker_did() {
        let vars = [
            (
                "a",
                Type::map(Type::String, Type::Int),
                value::Val::map(vec![(value::Val::str("b"), value::Val::Int(1))]),
            ),
            ("a.b", Type::Int, value::Val::Int(2)),
        ];
        assert_eq!(
            run("a.b", &vars).unwrap().1,
            serde_json::json!({"type": "int", "value": 2})
        );
    }

    #[test]
    fn checker_messages_use_cel_go_type_notation() {
        let e = run("null < timestamp('2000-01-01T00:00:00Z')", &[]).unwrap_err();
        assert!(e.contains("applied to '(null, timestamp)'"), "{}", e);
        let e = run("undeclared.contains([duration('1s')], [])", &[]).unwrap_err();
        assert!(e.contains("'!error!.(list(duration), list(dyn))'"), "{}", e);
    }

    #[test]
    fn selection_on_values_without_fields() {
        assert_eq!(run("dyn(1).foo", &[]).unwrap_err(), "no such key: foo");
        assert_eq!(
            run("dyn([1]).foo", &[]).unwrap_err(),
            "unsupported index type 'string' in list"
        );
        assert_eq!(
            value("has(dyn(1).foo)"),
            serde_json::json!({"type": "bool", "value": false})
        );
        // cel-go's QualifyIfPresent: `.?` on a value without fields is absent.
        assert_eq!(
            value("{'zero_field': dyn(0)}.?zero_field.?invalid"),
            serde_json::json!({"type": "optional_type", "value": null})
        );
    }

    #[test]
    fn indexing_dyn_values_qualifies_like_cel_go() {
        assert_eq!(run("dyn(1)[0]", &[]).unwrap_err(), "no such key: 0");
        assert_eq!(run("dyn('abc')[0]", &[]).unwrap_err(), "no such key: 0");
        assert_eq!(run("dyn([1])['a']", &[]).unwrap_err(), "unsupported index type 'string' in list");
        assert_eq!(run("dyn([1])[1.5]", &[]).unwrap_err(), "unsupported index value 1.5 in list");
        assert_eq!(value("dyn(1)[?0]"), serde_json::json!({"type": "optional_type", "value": null}));
    }

    #[test]
    fn comprehension_over_a_value_that_is_not_iterable() {
        assert_eq!(run("dyn(1).all(x, x == 1)", &[]).unwrap_err(), "got 'types.Int', expected iterable type");
        assert_eq!(
            run("dyn('a').all(i, v, v == 1)", &[]).unwrap_err(),
            "unsupported comprehension range type: types.String"
        );
    }

    #[test]
    fn syntax_errors_expect_what_the_go_runtime_expects() {
        // The ANTLR Go runtime reports the one token `match` wanted, not the follow set of
        // an earlier loop; the `cel` crate's holes after the error are not reported.
        assert_eq!(
            run("true ? 'a'", &[]).unwrap_err(),
            "ERROR: <input>:1:11: Syntax error: mismatched input '<EOF>' expecting ':'\n | true ? 'a'\n | ..........^"
        );
        assert_eq!(
            run("1 = = 2 + 1", &[]).unwrap_err(),
            "ERROR: <input>:1:3: Syntax error: token recognition error at: '= '\n | 1 = = 2 + 1\n | ..^\n\
             ERROR: <input>:1:5: Syntax error: token recognition error at: '= '\n | 1 = = 2 + 1\n | ....^\n\
             ERROR: <input>:1:7: Syntax error: mismatched input '2' expecting <EOF>\n | 1 = = 2 + 1\n | ......^"
        );
        // A state with several alternatives still lists them all.
        assert!(run("1 &&", &[]).unwrap_err().contains(
            "mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"
        ));
    }

    #[test]
    fn logical_operands_must_be_bool() {
        // cel-go v0.17+ checks `_&&_`/`_||_` operand by operand.
        assert_eq!(
            run("1 > 0 && 1", &[]).unwrap_err(),
            "ERROR: <input>:1:10: expected type 'bool' but found 'int'\n | 1 > 0 && 1\n | .........^"
        );
        assert!(run("'a' || 1 > 0", &[]).unwrap_err().starts_with("ERROR: <input>:1:1: expected type 'bool' but found 'string'"));
        // Before (Kubernetes 1.28, cel-go v0.16) an overload error at the operator.
        let base = base_env(&EnvOptions::for_version(27));
        let env = Arc::new(env_with_variables(&base, &[]));
        assert_eq!(
            compile(env, "1 > 0 && 1").err().unwrap(),
            "ERROR: <input>:1:7: found no matching overload for '_&&_' applied to '(bool, int)'\n | 1 > 0 && 1\n | ......^"
        );
    }

    #[test]
    fn parser_limits_and_escaped_identifiers() {
        let deep = vec!["self.val1"; 251].join(" == ");
        let vars = [(
            "self",
            Type::map(Type::String, Type::Int),
            value::Val::map(vec![]),
        )];
        assert_eq!(
            run(&deep, &vars).unwrap_err(),
            "ERROR: <input>:-1:0: max recursion depth exceeded"
        );
        let parens = format!("{}1{}", "(".repeat(200), ")".repeat(200));
        assert_eq!(
            value(&parens),
            serde_json::json!({"type": "int", "value": 1})
        );
        assert_eq!(
            run(&format!("{}1{}", "(".repeat(300), ")".repeat(300)), &[]).unwrap_err(),
            "ERROR: <input>:-1:0: expression recursion limit exceeded: 250"
        );
        // The error is at the identifier, and has() sees a selection (no second error).
        assert_eq!(
            run(
                "has(m.`a-b`)",
                &[(
                    "m",
                    Type::map(Type::String, Type::Int),
                    value::Val::map(vec![])
                )]
            )
            .unwrap_err(),
            "ERROR: <input>:1:7: unsupported syntax: '`'\n | has(m.`a-b`)\n | ......^"
        );
    }
}
