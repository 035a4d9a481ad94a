//! From text to a program: parse, type-check, run cel-go's AST validators, plan (cel-go
//! `Env.Compile` then `Env.Program`), with the apiserver's wording for the failures.

use crate::cel::checker::{check, format_issues, CheckIssue};
use crate::cel::env::Env;
use crate::cel::interpreter::Program;
use crate::cel::library::strings::{format_validator_panic, validate_format_calls};
use crate::cel::library::validators;
use crate::cel::parser::parse;
use std::sync::Arc;

/// Why an expression did not become a program.
#[derive(Clone, Debug, PartialEq)]
pub enum CompileError {
    /// Parse or type-check issues, as cel-go prints them.
    Compile(String),
    /// The expression checked but planning it failed (a constant conversion error).
    Program(String),
    /// The release's cel-go panics compiling it (the Go runtime's text): the apiserver
    /// answers no type, cost or value.
    Panic(String),
}

/// Parses and type-checks `text` in `env` (which carries the variables), then plans it.
pub fn compile_program(env: Arc<Env>, text: &str) -> Result<Program, CompileError> {
    let (expr, source) = parse(&env.options, text).map_err(CompileError::Compile)?;
    let checked = check(&env, expr, source).map_err(CompileError::Compile)?;
    // cel-go runs the AST validators only on a clean check. The homogeneous aggregate
    // literal validator applies at every version, the literal ones from 1.29.
    if let Some(panic) = format_validator_panic(&env.options, &checked) {
        return Err(CompileError::Panic(panic.to_string()));
    }
    let mut issues = validators::validate(&env.options, &checked);
    issues.extend(validate_format_calls(&env.options, &checked));
    if !issues.is_empty() {
        return Err(CompileError::Compile(format_issues(&checked.source, &issues)));
    }
    Program::new(checked, env).map_err(CompileError::Program)
}

/// [`compile_program`] with the apiserver's wording for program errors.
pub fn compile(env: Arc<Env>, text: &str) -> Result<Program, String> {
    compile_program(env, text).map_err(|e| match e {
        CompileError::Compile(s) | CompileError::Panic(s) => s,
        CompileError::Program(s) => format!("program instantiation failed: {}", s),
    })
}

/// Issues found after checking (literal validators); `None` when clean.
pub type Issues = Option<Vec<CheckIssue>>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cel::config::PER_CALL_LIMIT;
    use crate::cel::env::{env_with_variables, EnvOptions};
    use crate::cel::environment::base_env;
    use crate::cel::eval;
    use crate::cel::types::Type;
    use crate::cel::value;

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
        let parens = format!("{}1{}", "(".repeat(31), ")".repeat(31));
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
