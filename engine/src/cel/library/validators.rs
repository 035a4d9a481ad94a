//! cel-go's AST validators (`cel/validator.go`) that the Kubernetes base environment
//! enables: `ValidateDurationLiterals`, `ValidateTimestampLiterals`,
//! `ValidateRegexLiterals` (1.29+) and `ValidateHomogeneousAggregateLiterals` (always:
//! cel-go's `HomogeneousAggregateLiterals()`, on since 1.0, is this validator).
//!
//! - `duration(<literal>)` / `timestamp(<literal>)` calls are evaluated at compile time;
//!   a failure is `invalid duration argument` / `invalid timestamp argument` at the literal.
//! - the first argument of `matches` (the pattern of `s.matches(p)`, and, as in cel-go,
//!   the *string* of the global form `matches(s, p)`) must compile as a Go regexp when it
//!   is a literal: `invalid matches argument`.
//! - list and map literals must have elements (keys, values) of equivalent types, except
//!   the arguments of a `format` call (the strings extension exempts the function) and the
//!   literals nested in them through list/map literals only (cel-go's `inExemptFunction`:
//!   a literal under a macro, `dyn()` or any other call inside the arguments is checked):
//!   `expected type 'A' but found 'B'` (types in cel-go's `FormatCELType` notation) at the
//!   first differing element (lists) or at every differing key and value (maps).

use crate::cel::checker::{CheckIssue, Checked};
use crate::cel::env::EnvOptions;
use crate::cel::types::Type;
use crate::cel::value::{Timestamp, Val};
use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};

/// The function whose literal arguments the homogeneous aggregate literal validator
/// exempts: the strings extension registers `format` (cel-go
/// `HomogeneousAggregateLiteralExemptFunctions`).
const EXEMPT_FUNCTION: &str = "format";

/// The range of timestamps cel-go accepts: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
const MIN_UNIX_SECS: i64 = -62_135_596_800;
const MAX_UNIX_SECS: i64 = 253_402_300_799;

/// Issues of the validators; empty when clean.
///
/// The homogeneous aggregate literal check applies at every version (Kubernetes enables
/// `cel.HomogeneousAggregateLiterals()` from 1.0, which cel-go implements as this
/// validator); the duration, timestamp and regex literal checks only with
/// `opts.literal_validators` (1.29+).
pub fn validate(opts: &EnvOptions, checked: &Checked) -> Vec<CheckIssue> {
    let literals = opts.literal_validators;
    // Before cel-go v0.17 (Kubernetes 1.29) the checker itself reports mixed literals.
    let aggregates = crate::version::Feature::HomogeneousLiteralValidator.enabled_at(opts.release_minor);
    let env = crate::cel::environment::base_env(opts);
    let mut format_issues = Vec::new();
    let mut aggregate_issues = Vec::new();
    // Explicit stack (node, whether the node is exempt: its parent is a `format` call, or
    // an exempt list/map literal).
    let mut stack: Vec<(&IdedExpr, bool)> = vec![(&checked.expr, false)];
    while let Some((e, exempt)) = stack.pop() {
        match &e.expr {
            Expr::Call(c) => {
                if literals {
                    if let Some(issue) = check_literal_call(&env, checked, e.id, c) {
                        format_issues.push(issue);
                    }
                }
                let child_exempt = c.func_name == EXEMPT_FUNCTION;
                if let Some(t) = &c.target {
                    stack.push((t, child_exempt));
                }
                for a in c.args.iter().rev() {
                    stack.push((a, child_exempt));
                }
            }
            Expr::List(l) => {
                if !exempt && aggregates {
                    check_list(checked, l, &mut aggregate_issues);
                }
                for el in l.elements.iter().rev() {
                    stack.push((el, exempt));
                }
            }
            Expr::Map(m) => {
                if !exempt && aggregates {
                    check_map(checked, m, &mut aggregate_issues);
                }
                for en in m.entries.iter().rev() {
                    if let EntryExpr::MapEntry(me) = &en.expr {
                        stack.push((&me.value, exempt));
                        stack.push((&me.key, exempt));
                    }
                }
            }
            // Other parents end the exemption.
            Expr::Struct(s) => {
                for en in s.entries.iter().rev() {
                    match &en.expr {
                        EntryExpr::StructField(f) => stack.push((&f.value, false)),
                        EntryExpr::MapEntry(me) => {
                            stack.push((&me.value, false));
                            stack.push((&me.key, false));
                        }
                    }
                }
            }
            Expr::Select(s) => stack.push((&s.operand, false)),
            Expr::Comprehension(c) => {
                for x in [
                    &c.result,
                    &c.loop_step,
                    &c.loop_cond,
                    &c.accu_init,
                    &c.iter_range,
                ] {
                    stack.push((x, false));
                }
            }
            Expr::Literal(_) | Expr::Ident(_) | Expr::Unspecified => {}
        }
    }
    // cel-go runs the duration, timestamp and regex validators before the aggregate one;
    // the issues are sorted by position when printed.
    format_issues.extend(aggregate_issues);
    format_issues
}

fn literal_val<'a>(l: &LiteralValue) -> Val<'a> {
    match l {
        LiteralValue::Boolean(b) => Val::Bool(*b.inner()),
        LiteralValue::Bytes(b) => Val::Bytes(std::rc::Rc::from(b.inner())),
        LiteralValue::Double(d) => Val::Double(*d.inner()),
        LiteralValue::Int(i) => Val::Int(*i.inner()),
        LiteralValue::Null => Val::Null,
        LiteralValue::String(s) => Val::str(s.inner()),
        LiteralValue::UInt(u) => Val::Uint(*u.inner()),
    }
}

/// The duration, timestamp and regex literal checks of one call.
fn check_literal_call(
    env: &crate::cel::env::Env,
    checked: &Checked,
    call_id: u64,
    c: &cel::common::ast::CallExpr,
) -> Option<CheckIssue> {
    let name = c.func_name.as_str();
    if !matches!(name, "duration" | "timestamp" | "matches") {
        return None;
    }
    // A call resolved to a namespaced function (`x.duration(...)`) is not this one.
    if checked.qualified.contains_key(&call_id) {
        return None;
    }
    let arg = c.args.first()?;
    let Expr::Literal(lit) = &arg.expr else {
        return None;
    };
    let bad = match name {
        "matches" => match lit {
            // Through the thread's shared cache: each release's compile of the rule checks
            // the same literal, and the schema's patterns are often the same text.
            LiteralValue::String(s) => crate::go::regexp::compile_re2_shared(s.inner()).is_none(),
            _ => false,
        },
        _ => eval_fails(env, checked, call_id, name, &literal_val(lit)),
    };
    if bad {
        let offset = literal_offset(checked, arg.id, lit);
        Some(CheckIssue {
            offset,
            message: format!("invalid {} argument", name),
        })
    } else {
        None
    }
}

/// The position cel-go gives a literal: a negative number starts at its sign, where the
/// parser here places the node at its digits.
fn literal_offset(checked: &Checked, id: u64, lit: &LiteralValue) -> usize {
    let offset = checked.source.offset_of(id).unwrap_or(0);
    let negative = match lit {
        LiteralValue::Int(i) => *i.inner() < 0,
        LiteralValue::Double(d) => d.inner().is_sign_negative(),
        _ => false,
    };
    if !negative {
        return offset;
    }
    // Walk back over blanks to the sign, in code points.
    let before: Vec<char> = checked.source.text.chars().take(offset).collect();
    let mut i = before.len();
    while i > 0 && matches!(before[i - 1], ' ' | '\t' | '\n' | '\r' | '\x0c') {
        i -= 1;
    }
    if i > 0 && before[i - 1] == '-' {
        i - 1
    } else {
        offset
    }
}

/// Whether evaluating `name(<literal>)` fails, as cel-go finds out by running the call:
/// with the environment's implementation of the resolved overload, else the parsers.
fn eval_fails(
    env: &crate::cel::env::Env,
    checked: &Checked,
    call_id: u64,
    name: &str,
    arg: &Val,
) -> bool {
    if let Some(ids) = checked.overloads.get(&call_id) {
        if ids.len() == 1 {
            if let Some(Some(imp)) = env.impls.get(ids[0]) {
                return imp(std::slice::from_ref(arg)).is_err();
            }
        }
    }
    match (name, arg) {
        ("duration", Val::String(s)) => crate::cel::value::parse_duration(s.as_str()).is_none(),
        ("timestamp", Val::String(s)) => match crate::cel::value::parse_timestamp(s.as_str()) {
            Some(t) => !timestamp_in_range(t),
            None => true,
        },
        ("timestamp", Val::Int(secs)) => !(MIN_UNIX_SECS..=MAX_UNIX_SECS).contains(secs),
        _ => false,
    }
}

fn timestamp_in_range(t: Timestamp) -> bool {
    (MIN_UNIX_SECS..=MAX_UNIX_SECS).contains(&t.secs)
}

/// cel-go's `Type.IsEquivalentType`: the same type, type parameter names aside.
fn equivalent(a: &Type, b: &Type) -> bool {
    match (a, b) {
        (Type::Param(_), Type::Param(_)) => true,
        (Type::List(x), Type::List(y)) => equivalent(x, y),
        (Type::Map(k1, v1), Type::Map(k2, v2)) => equivalent(k1, k2) && equivalent(v1, v2),
        (Type::TypeOf(x), Type::TypeOf(y)) => equivalent(x, y),
        (Type::Opaque(n1, p1), Type::Opaque(n2, p2)) => {
            n1 == n2 && p1.len() == p2.len() && p1.iter().zip(p2).all(|(x, y)| equivalent(x, y))
        }
        (Type::Object(x), Type::Object(y)) => x.name == y.name,
        _ => a == b,
    }
}

/// The element type an entry contributes: the optional's parameter for `?` entries.
fn entry_type(t: Type, optional: bool) -> Type {
    if optional {
        if let Some(inner) = t.optional_elem() {
            return inner.clone();
        }
    }
    t
}

fn mismatch(checked: &Checked, e: &IdedExpr, expected: &Type, found: &Type) -> CheckIssue {
    let offset = match &e.expr {
        Expr::Literal(lit) => literal_offset(checked, e.id, lit),
        _ => checked.source.offset_of(e.id).unwrap_or(0),
    };
    CheckIssue {
        offset,
        message: format!(
            "expected type '{}' but found '{}'",
            expected.format_cel(),
            found.format_cel()
        ),
    }
}

fn check_list(checked: &Checked, l: &cel::common::ast::ListExpr, out: &mut Vec<CheckIssue>) {
    let mut first: Option<Type> = None;
    for (i, el) in l.elements.iter().enumerate() {
        let t = entry_type(checked.type_of(el.id), l.optional_indices.contains(&i));
        match &first {
            None => first = Some(t),
            Some(f) => {
                if !equivalent(f, &t) {
                    out.push(mismatch(checked, el, f, &t));
                    break;
                }
            }
        }
    }
}

fn check_map(checked: &Checked, m: &cel::common::ast::MapExpr, out: &mut Vec<CheckIssue>) {
    let mut first: Option<(Type, Type)> = None;
    for en in &m.entries {
        let EntryExpr::MapEntry(me) = &en.expr else {
            continue;
        };
        let kt = checked.type_of(me.key.id);
        let vt = entry_type(checked.type_of(me.value.id), me.optional);
        match &first {
            None => first = Some((kt, vt)),
            Some((fk, fv)) => {
                if !equivalent(fk, &kt) {
                    out.push(mismatch(checked, &me.key, fk, &kt));
                }
                if !equivalent(fv, &vt) {
                    out.push(mismatch(checked, &me.value, fv, &vt));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cel::env::EnvOptions;

    /// Parses and checks in the base environment, then runs the validators.
    fn issues(minor: u32, text: &str, vars: &[(&str, Type)]) -> Result<Vec<String>, String> {
        let opts = EnvOptions::for_version(minor);
        let mut env = crate::cel::environment::build_base_env(opts.clone());
        for (n, t) in vars {
            env.add_variable(n, t.clone());
        }
        let (expr, source) = crate::cel::parser::parse(&opts, text)?;
        let checked = crate::cel::checker::check(&env, expr, source)?;
        let mut found = validate(&opts, &checked);
        found.sort_by_key(|i| i.offset);
        Ok(found
            .into_iter()
            .map(|i| format!("{}: {}", i.offset, i.message))
            .collect())
    }

    #[test]
    fn literal_checks_without_stdlib() {
        // Only parsers are needed: evaluate the helpers directly.
        let env = crate::cel::environment::build_base_env(EnvOptions::for_version(35));
        let opts = EnvOptions::for_version(35);
        let (expr, source) = crate::cel::parser::parse(&opts, "x").expect("parses");
        let mut e2 = crate::cel::environment::build_base_env(opts.clone());
        e2.add_variable("x", Type::Dyn);
        let checked = crate::cel::checker::check(&e2, expr, source).expect("checks");
        assert!(eval_fails(&env, &checked, 999, "duration", &Val::str("1d")));
        assert!(!eval_fails(
            &env,
            &checked,
            999,
            "duration",
            &Val::str("1h")
        ));
        assert!(eval_fails(&env, &checked, 999, "timestamp", &Val::str("1")));
        assert!(eval_fails(
            &env,
            &checked,
            999,
            "timestamp",
            &Val::str("1000-00-00T00:00:00Z")
        ));
        assert!(eval_fails(
            &env,
            &checked,
            999,
            "timestamp",
            &Val::str("0001-01-01T00:00:00+01:00")
        ));
        assert!(!eval_fails(
            &env,
            &checked,
            999,
            "timestamp",
            &Val::str("0001-01-01T00:00:00Z")
        ));
        assert!(eval_fails(
            &env,
            &checked,
            999,
            "timestamp",
            &Val::Int(-62135596801)
        ));
        assert!(!eval_fails(
            &env,
            &checked,
            999,
            "timestamp",
            &Val::Int(-62135596800)
        ));
        assert!(eval_fails(
            &env,
            &checked,
            999,
            "timestamp",
            &Val::Int(253402300800)
        ));
    }

    #[test]
    fn equivalence() {
        assert!(equivalent(&Type::list(Type::Int), &Type::list(Type::Int)));
        assert!(!equivalent(&Type::Int, &Type::Dyn));
        assert!(!equivalent(
            &Type::optional(Type::Int),
            &Type::optional(Type::String)
        ));
        assert!(equivalent(&Type::param("A"), &Type::param("B")));
    }

    #[test]
    fn aggregate_literals() {
        // `x` is dyn: mixing it with an int is refused by the validator (the checker allows it).
        let found = issues(35, "[x, 1]", &[("x", Type::Dyn)]);
        if let Ok(found) = found {
            assert_eq!(
                found,
                vec!["4: expected type 'dyn' but found 'int'".to_string()]
            );
        }
        // Inside format calls, mixed literals are fine.
        if let Ok(found) = issues(35, "'%s %s'.format([x, 1])", &[("x", Type::Dyn)]) {
            assert!(found.is_empty(), "{:?}", found);
        }
        // Literals nested in the arguments through lists and maps only.
        if let Ok(found) = issues(
            35,
            "'%s'.format([[x, 1], {'a': [x, 'b'], 1: {x: 2, 'k': 'v'}}])",
            &[("x", Type::Dyn)],
        ) {
            assert!(found.is_empty(), "{:?}", found);
        }
        // Any other parent ends the exemption (cel-go `inExemptFunction`): a macro, a call.
        assert_eq!(
            issues(35, "'%s'.format([[x, 1].map(y, y)])", &[("x", Type::Dyn)]).unwrap(),
            vec!["17: expected type 'dyn' but found 'int'".to_string()]
        );
        assert_eq!(
            issues(35, "'%s'.format([dyn([1, 2.0])])", &[]).unwrap(),
            vec!["21: expected type 'int' but found 'double'".to_string()]
        );
        assert_eq!(
            issues(35, "'%s'.format([[1].exists(y, [y, 'a'] == [])])", &[]).unwrap(),
            vec!["31: expected type 'int' but found 'string'".to_string()]
        );
        // Types print in cel-go's FormatCELType notation.
        assert_eq!(
            issues(35, "[1, null]", &[]).unwrap(),
            vec!["4: expected type 'int' but found 'null'".to_string()]
        );
        assert_eq!(
            issues(
                35,
                "{'a': timestamp(1), 'b': duration('1s'), 'c': [null]}",
                &[]
            )
            .unwrap(),
            vec![
                "33: expected type 'timestamp' but found 'duration'".to_string(),
                "46: expected type 'timestamp' but found 'list(null)'".to_string()
            ]
        );
        // Negative literals are positioned at their sign.
        if let Ok(found) = issues(35, "[1, -2.0]", &[]) {
            assert_eq!(
                found,
                vec!["4: expected type 'int' but found 'double'".to_string()]
            );
        }
        if let Ok(found) = issues(35, "{'a': x, 'b': 1, 1: x}", &[("x", Type::Dyn)]) {
            assert_eq!(
                found,
                vec![
                    "14: expected type 'dyn' but found 'int'".to_string(),
                    "17: expected type 'string' but found 'int'".to_string()
                ]
            );
        }
        // The aggregate check is the validator's from 1.29 (cel-go v0.17); before, the
        // checker's `joinTypes`, which lets dyn join anything. The literal checks from 1.29.
        if let Ok(found) = issues(29, "[x, 1]", &[("x", Type::Dyn)]) {
            assert_eq!(found.len(), 1);
        }
        if let Ok(found) = issues(27, "[x, 1]", &[("x", Type::Dyn)]) {
            assert!(found.is_empty(), "{:?}", found);
        }
        if let Ok(found) = issues(28, "duration('1d')", &[]) {
            assert!(found.is_empty(), "{:?}", found);
        }
        if let Ok(found) = issues(29, "duration('1d')", &[]) {
            assert_eq!(found, vec!["9: invalid duration argument".to_string()]);
        }
    }

    #[test]
    fn regex_literals() {
        // `matches` needs the standard library to type-check; skip until it is there.
        if let Ok(found) = issues(35, "'hello'.matches('?^()')", &[]) {
            assert_eq!(found, vec!["16: invalid matches argument".to_string()]);
        }
        if let Ok(found) = issues(35, "'hello'.matches('^h')", &[]) {
            assert!(found.is_empty());
        }
    }
}
