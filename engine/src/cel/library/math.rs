//! cel-go's math extension (`ext/math.go`, version 2): the `math.greatest` / `math.least`
//! macros over the internal `math.@max` / `math.@min`, rounding (`ceil`, `floor`, `round`,
//! `trunc`), floating-point tests (`isInf`, `isNaN`, `isFinite`), `abs`, `sign`, `sqrt`,
//! and the bitwise functions.
//!
//! The Kubernetes apiserver does not install this library: it is declared only when
//! `EnvOptions::conformance_extensions` is set, which only the CEL conformance harness
//! does, so CRD rules and expression-mode requests never see it.

use crate::cel::library::stdlib::compare_values;
use crate::cel::env::{EnvOptions, Function, Overload};
use crate::cel::types::Type;
use crate::cel::value::{EvalError, EvalResult, Val};
use cel::common::ast::{Expr, IdedExpr, ListExpr, LiteralValue};
use cel::parser::{Macro, MacroExprHelper, ParseError};
use std::cmp::Ordering;

const MIN_FUNC: &str = "math.@min";
const MAX_FUNC: &str = "math.@max";

/// The functions of the library, when the environment installs it.
pub fn functions(opts: &EnvOptions) -> Vec<Function> {
    if !opts.conformance_extensions {
        return Vec::new();
    }
    let (d, i, u, b) = (|| Type::Double, || Type::Int, || Type::Uint, || Type::Bool);
    let g = Overload::global;
    let min_max = |name: &'static str,
                   ids: [&'static str; 12],
                   pair: crate::cel::env::Impl,
                   list: crate::cel::env::Impl| {
        Function::new(
            name,
            vec![
                g(ids[0], vec![d()], d(), identity),
                g(ids[1], vec![i()], i(), identity),
                g(ids[2], vec![u()], u(), identity),
                g(ids[3], vec![d(), d()], d(), pair),
                g(ids[4], vec![i(), i()], i(), pair),
                g(ids[5], vec![u(), u()], u(), pair),
                g(ids[6], vec![i(), u()], Type::Dyn, pair),
                g(ids[7], vec![i(), d()], Type::Dyn, pair),
                g(ids[8], vec![d(), i()], Type::Dyn, pair),
                g(ids[9], vec![d(), u()], Type::Dyn, pair),
                g(ids[10], vec![u(), i()], Type::Dyn, pair),
                g(ids[11], vec![u(), d()], Type::Dyn, pair),
                g(list_id(name, "double"), vec![Type::list(d())], d(), list),
                g(list_id(name, "int"), vec![Type::list(i())], i(), list),
                g(list_id(name, "uint"), vec![Type::list(u())], u(), list),
            ],
        )
    };
    vec![
        min_max(
            MIN_FUNC,
            [
                "math_@min_double",
                "math_@min_int",
                "math_@min_uint",
                "math_@min_double_double",
                "math_@min_int_int",
                "math_@min_uint_uint",
                "math_@min_int_uint",
                "math_@min_int_double",
                "math_@min_double_int",
                "math_@min_double_uint",
                "math_@min_uint_int",
                "math_@min_uint_double",
            ],
            min_pair,
            min_list,
        ),
        min_max(
            MAX_FUNC,
            [
                "math_@max_double",
                "math_@max_int",
                "math_@max_uint",
                "math_@max_double_double",
                "math_@max_int_int",
                "math_@max_uint_uint",
                "math_@max_int_uint",
                "math_@max_int_double",
                "math_@max_double_int",
                "math_@max_double_uint",
                "math_@max_uint_int",
                "math_@max_uint_double",
            ],
            max_pair,
            max_list,
        ),
        Function::new(
            "math.ceil",
            vec![g("math_ceil_double", vec![d()], d(), ceil)],
        ),
        Function::new(
            "math.floor",
            vec![g("math_floor_double", vec![d()], d(), floor)],
        ),
        Function::new(
            "math.round",
            vec![g("math_round_double", vec![d()], d(), round)],
        ),
        Function::new(
            "math.trunc",
            vec![g("math_trunc_double", vec![d()], d(), trunc)],
        ),
        Function::new(
            "math.isInf",
            vec![g("math_isInf_double", vec![d()], b(), is_inf)],
        ),
        Function::new(
            "math.isNaN",
            vec![g("math_isNaN_double", vec![d()], b(), is_nan)],
        ),
        Function::new(
            "math.isFinite",
            vec![g("math_isFinite_double", vec![d()], b(), is_finite)],
        ),
        Function::new(
            "math.abs",
            vec![
                g("math_abs_double", vec![d()], d(), abs),
                g("math_abs_int", vec![i()], i(), abs),
                g("math_abs_uint", vec![u()], u(), abs),
            ],
        ),
        Function::new(
            "math.sign",
            vec![
                g("math_sign_double", vec![d()], d(), sign),
                g("math_sign_int", vec![i()], i(), sign),
                g("math_sign_uint", vec![u()], u(), sign),
            ],
        ),
        Function::new(
            "math.sqrt",
            vec![
                g("math_sqrt_double", vec![d()], d(), sqrt),
                g("math_sqrt_int", vec![i()], d(), sqrt),
                g("math_sqrt_uint", vec![u()], d(), sqrt),
            ],
        ),
        Function::new(
            "math.bitAnd",
            vec![
                g("math_bitAnd_int_int", vec![i(), i()], i(), bit_and),
                g("math_bitAnd_uint_uint", vec![u(), u()], u(), bit_and),
            ],
        ),
        Function::new(
            "math.bitOr",
            vec![
                g("math_bitOr_int_int", vec![i(), i()], i(), bit_or),
                g("math_bitOr_uint_uint", vec![u(), u()], u(), bit_or),
            ],
        ),
        Function::new(
            "math.bitXor",
            vec![
                g("math_bitXor_int_int", vec![i(), i()], i(), bit_xor),
                g("math_bitXor_uint_uint", vec![u(), u()], u(), bit_xor),
            ],
        ),
        Function::new(
            "math.bitNot",
            vec![
                g("math_bitNot_int_int", vec![i()], i(), bit_not),
                g("math_bitNot_uint_uint", vec![u()], u(), bit_not),
            ],
        ),
        Function::new(
            "math.bitShiftLeft",
            vec![
                g("math_bitShiftLeft_int_int", vec![i(), i()], i(), shift_left),
                g(
                    "math_bitShiftLeft_uint_int",
                    vec![u(), i()],
                    u(),
                    shift_left,
                ),
            ],
        ),
        Function::new(
            "math.bitShiftRight",
            vec![
                g(
                    "math_bitShiftRight_int_int",
                    vec![i(), i()],
                    i(),
                    shift_right,
                ),
                g(
                    "math_bitShiftRight_uint_int",
                    vec![u(), i()],
                    u(),
                    shift_right,
                ),
            ],
        ),
    ]
}

/// `math_@min_list_double`, ... (the ids must be `'static`).
fn list_id(function: &str, elem: &str) -> &'static str {
    match (function, elem) {
        (MIN_FUNC, "double") => "math_@min_list_double",
        (MIN_FUNC, "int") => "math_@min_list_int",
        (MIN_FUNC, "uint") => "math_@min_list_uint",
        (_, "double") => "math_@max_list_double",
        (_, "int") => "math_@max_list_int",
        _ => "math_@max_list_uint",
    }
}

/// The `math.greatest` / `math.least` macros, when the environment installs the library.
pub fn macros(opts: &EnvOptions) -> Vec<Macro> {
    if !opts.conformance_extensions {
        return Vec::new();
    }
    vec![
        Macro::receiver_var_arg("greatest", |h, t, a| {
            min_max_macro(h, t, a, "math.greatest()", MAX_FUNC)
        }),
        Macro::receiver_var_arg("least", |h, t, a| {
            min_max_macro(h, t, a, "math.least()", MIN_FUNC)
        }),
    ]
}

/// cel-go `mathGreatest` / `mathLeast`: on the `math` namespace only; one argument (a
/// number or a non-empty list literal of numbers) becomes `math.@max(arg)`, two become
/// `math.@max(a, b)`, more become `math.@max([a, b, ...])`. Literal arguments other than
/// numbers are refused.
fn min_max_macro(
    helper: &mut MacroExprHelper<'_>,
    target: &mut Option<IdedExpr>,
    args: &mut Vec<IdedExpr>,
    name: &str,
    function: &str,
) -> Result<Option<IdedExpr>, ParseError> {
    let on_math = matches!(target.as_ref().map(|t| &t.expr), Some(Expr::Ident(n)) if n == "math");
    if !on_math {
        return Ok(None);
    }
    let target_id = target.as_ref().map(|t| t.id).unwrap_or(0);
    match args.len() {
        0 => Err(helper.new_error(
            target_id,
            format!("{} requires at least one argument", name),
        )),
        1 => {
            let ok = args
                .first()
                .map(|a| numeric_list_literal(a) || numeric_arg(a))
                .unwrap_or(false);
            if !ok {
                let id = args.first().map(|a| a.id).unwrap_or(target_id);
                return Err(helper.new_error(id, format!("{} invalid single argument value", name)));
            }
            let call_args = std::mem::take(args);
            target.take();
            Ok(Some(call(helper, function, call_args)))
        }
        n => {
            if let Some(bad) = args.iter().find(|a| !numeric_arg(a)) {
                return Err(helper.new_error(
                    bad.id,
                    format!("{} simple literal arguments must be numeric", name),
                ));
            }
            let mut call_args = std::mem::take(args);
            target.take();
            if n > 2 {
                let list = helper.next_expr(Expr::List(ListExpr::new(call_args)));
                call_args = vec![list];
            }
            Ok(Some(call(helper, function, call_args)))
        }
    }
}

fn call(helper: &mut MacroExprHelper<'_>, function: &str, args: Vec<IdedExpr>) -> IdedExpr {
    helper.next_expr(Expr::Call(cel::common::ast::CallExpr {
        func_name: function.to_string(),
        target: None,
        args,
    }))
}

/// cel-go `isNumericArgType`: a numeric literal, or anything that is not a literal or an
/// aggregate (its type is checked later).
fn numeric_arg(e: &IdedExpr) -> bool {
    match &e.expr {
        Expr::Literal(l) => matches!(
            l,
            LiteralValue::Int(_) | LiteralValue::UInt(_) | LiteralValue::Double(_)
        ),
        Expr::List(_) | Expr::Map(_) | Expr::Struct(_) => false,
        _ => true,
    }
}

/// cel-go `isListLiteralWithNumericArgs`: a non-empty list literal of numeric arguments.
fn numeric_list_literal(e: &IdedExpr) -> bool {
    match &e.expr {
        Expr::List(l) => !l.elements.is_empty() && l.elements.iter().all(numeric_arg),
        _ => false,
    }
}

fn nso<'a>() -> EvalResult<'a> {
    Err(EvalError::no_such_overload())
}

/// cel-go `maybeSuffixError`: the function's name after an error's text, once.
fn suffixed(err: EvalError, function: &str) -> EvalError {
    if err.message.contains(function) {
        return err;
    }
    EvalError {
        message: format!("{}: {}", err.message, function),
        kind: err.kind,
    }
}

fn identity<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [v @ (Val::Int(_) | Val::Uint(_) | Val::Double(_))] => Ok(v.clone()),
        _ => nso(),
    }
}

/// cel-go `minPair` / `maxPair`: the first unless the second orders before (`min`) or
/// after (`max`) it; a first value that cannot be compared is `no such overload`, and a
/// comparison that fails carries the function's name.
fn pick<'a>(first: &Val<'a>, second: &Val<'a>, want: Ordering, function: &str) -> EvalResult<'a> {
    if !matches!(
        first,
        Val::Bool(_)
            | Val::Int(_)
            | Val::Uint(_)
            | Val::Double(_)
            | Val::String(_)
            | Val::Bytes(_)
            | Val::Duration(_)
            | Val::Timestamp(_)
    ) {
        return nso();
    }
    match compare_values(first, second) {
        Ok(o) if o == want.reverse() => Ok(second.clone()),
        Ok(_) => Ok(first.clone()),
        Err(e) => Err(suffixed(e, function)),
    }
}

fn min_pair<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [a, b] => pick(a, b, Ordering::Less, MIN_FUNC),
        _ => nso(),
    }
}

fn max_pair<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [a, b] => pick(a, b, Ordering::Greater, MAX_FUNC),
        _ => nso(),
    }
}

/// cel-go `minList` / `maxList`: folds the pairs over a non-empty list; the result must be
/// a number.
fn fold_list<'a>(args: &[Val<'a>], want: Ordering, function: &str) -> EvalResult<'a> {
    let [Val::List(l)] = args else { return nso() };
    let items = l.try_items()?;
    let Some(first) = items.first() else {
        return Err(EvalError::new(format!(
            "{}(list) argument must not be empty",
            function
        )));
    };
    let mut best = first.clone();
    for x in &items[1..] {
        best = pick(&best, x, want, function)?;
    }
    match best {
        Val::Int(_) | Val::Uint(_) | Val::Double(_) => Ok(best),
        _ => Err(EvalError::no_such_overload_for(function)),
    }
}

fn min_list<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    fold_list(args, Ordering::Less, MIN_FUNC)
}

fn max_list<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    fold_list(args, Ordering::Greater, MAX_FUNC)
}

fn double_op<'a>(args: &[Val<'a>], f: fn(f64) -> f64) -> EvalResult<'a> {
    match args {
        [Val::Double(x)] => Ok(Val::Double(f(*x))),
        _ => nso(),
    }
}

fn double_test<'a>(args: &[Val<'a>], f: fn(f64) -> bool) -> EvalResult<'a> {
    match args {
        [Val::Double(x)] => Ok(Val::Bool(f(*x))),
        _ => nso(),
    }
}

fn ceil<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    double_op(args, f64::ceil)
}

fn floor<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    double_op(args, f64::floor)
}

/// Go `math.Round`: half away from zero, as Rust's `round`.
fn round<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    double_op(args, f64::round)
}

fn trunc<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    double_op(args, f64::trunc)
}

fn is_inf<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    double_test(args, f64::is_infinite)
}

fn is_nan<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    double_test(args, f64::is_nan)
}

fn is_finite<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    double_test(args, f64::is_finite)
}

fn abs<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Double(x)] => Ok(Val::Double(x.abs())),
        [Val::Int(x)] => x
            .checked_abs()
            .map(Val::Int)
            .ok_or_else(|| EvalError::new("integer overflow")),
        [Val::Uint(x)] => Ok(Val::Uint(*x)),
        _ => nso(),
    }
}

/// -1, 0 or 1 in the argument's type; NaN stays NaN and both zeros give 0.
fn sign<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Double(x)] if x.is_nan() => Ok(Val::Double(*x)),
        [Val::Double(x)] => Ok(Val::Double(if *x > 0.0 {
            1.0
        } else if *x < 0.0 {
            -1.0
        } else {
            0.0
        })),
        [Val::Int(x)] => Ok(Val::Int(x.signum())),
        [Val::Uint(x)] => Ok(Val::Uint(u64::from(*x != 0))),
        _ => nso(),
    }
}

/// Go `math.Sqrt` of the value as a double (NaN for negative numbers).
fn sqrt<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Double(x)] => Ok(Val::Double(x.sqrt())),
        [Val::Int(x)] => Ok(Val::Double((*x as f64).sqrt())),
        [Val::Uint(x)] => Ok(Val::Double((*x as f64).sqrt())),
        _ => nso(),
    }
}

fn bitwise<'a>(args: &[Val<'a>], i: fn(i64, i64) -> i64, u: fn(u64, u64) -> u64) -> EvalResult<'a> {
    match args {
        [Val::Int(x), Val::Int(y)] => Ok(Val::Int(i(*x, *y))),
        [Val::Uint(x), Val::Uint(y)] => Ok(Val::Uint(u(*x, *y))),
        _ => nso(),
    }
}

fn bit_and<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    bitwise(args, |x, y| x & y, |x, y| x & y)
}

fn bit_or<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    bitwise(args, |x, y| x | y, |x, y| x | y)
}

fn bit_xor<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    bitwise(args, |x, y| x ^ y, |x, y| x ^ y)
}

fn bit_not<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Int(x)] => Ok(Val::Int(!x)),
        [Val::Uint(x)] => Ok(Val::Uint(!x)),
        _ => nso(),
    }
}

/// The shift amount: negative is an error, 64 or more shifts every bit out.
fn shift_bits(bits: i64, function: &str) -> Result<Option<u32>, EvalError> {
    if bits < 0 {
        return Err(EvalError::new(format!(
            "{}() negative offset: {}",
            function, bits
        )));
    }
    Ok(u32::try_from(bits).ok().filter(|b| *b < 64))
}

fn shift_left<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Int(x), Val::Int(b)] => Ok(Val::Int(
            shift_bits(*b, "math.bitShiftLeft")?
                .map(|b| x << b)
                .unwrap_or(0),
        )),
        [Val::Uint(x), Val::Int(b)] => Ok(Val::Uint(
            shift_bits(*b, "math.bitShiftLeft")?
                .map(|b| x << b)
                .unwrap_or(0),
        )),
        _ => nso(),
    }
}

/// Right shifts fill with zeros, for ints too (cel-go shifts the bits as unsigned).
fn shift_right<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Int(x), Val::Int(b)] => Ok(Val::Int(
            shift_bits(*b, "math.bitShiftRight")?
                .map(|b| ((*x as u64) >> b) as i64)
                .unwrap_or(0),
        )),
        [Val::Uint(x), Val::Int(b)] => Ok(Val::Uint(
            shift_bits(*b, "math.bitShiftRight")?
                .map(|b| x >> b)
                .unwrap_or(0),
        )),
        _ => nso(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Compiles and evaluates `expr` in the 1.36 environment, with or without the
    /// conformance-only extensions: the value as the vectors print it, or the error.
    fn run(expr: &str, extensions: bool) -> Result<serde_json::Value, String> {
        let mut opts = EnvOptions::for_version(35);
        opts.conformance_extensions = extensions;
        let env = crate::cel::environment::base_env(&opts);
        let program = match crate::cel::compile::compile_program(env, expr) {
            Ok(p) => p,
            Err(crate::cel::compile::CompileError::Compile(e))
            | Err(crate::cel::compile::CompileError::Program(e))
            | Err(crate::cel::compile::CompileError::Panic(e)) => return Err(e),
        };
        let (r, _) = program.eval(&[], None);
        r.map(|v| crate::cel::eval::typed_value(&v))
            .map_err(|e| e.message)
    }

    #[test]
    fn only_the_conformance_environment_has_the_extensions() {
        for expr in [
            "math.ceil(1.2)",
            "math.greatest(1, 2)",
            "math.least([1, 2])",
            "base64.encode(b'hi')",
            "math.sqrt(4)",
        ] {
            let err = run(expr, false).expect_err(expr);
            assert!(err.contains("undeclared reference"), "{}: {}", expr, err);
            assert!(run(expr, true).is_ok(), "{}", expr);
        }
        // The Kubernetes environments of every version leave them out.
        for minor in 24..=40 {
            let opts = EnvOptions::for_version(minor);
            assert!(functions(&opts).is_empty() && macros(&opts).is_empty());
            assert!(super::super::encoders::functions(&opts).is_empty());
        }
    }

    #[test]
    fn macros_expand_and_evaluate() {
        use serde_json::json;
        assert_eq!(
            run("math.greatest(1, 2.5)", true),
            Ok(json!({"type": "double", "value": 2.5}))
        );
        assert_eq!(
            run("math.least(3u, 1u, 2u)", true),
            Ok(json!({"type": "uint", "value": 1}))
        );
        assert_eq!(
            run("math.greatest([dyn(1), dyn(7u), dyn(2.5)])", true),
            Ok(json!({"type": "uint", "value": 7}))
        );
        assert_eq!(
            run("math.least(-5)", true),
            Ok(json!({"type": "int", "value": -5}))
        );
        // Macro errors are parse errors at the argument.
        let err = run("math.greatest('a', 1)", true).expect_err("a string literal");
        assert!(
            err.contains("math.greatest() simple literal arguments must be numeric"),
            "{}",
            err
        );
        let err = run("math.least()", true).expect_err("no argument");
        assert!(
            err.contains("math.least() requires at least one argument"),
            "{}",
            err
        );
        // Another receiver is not the macro.
        assert!(run("[1].greatest(1)", true).is_err());
        assert_eq!(
            run("base64.decode(base64.encode(b'Hello World!'))", true),
            Ok(json!({"type": "bytes", "value": "SGVsbG8gV29ybGQh"}))
        );
        assert_eq!(
            run("math.bitShiftRight(-1024, 3)", true),
            Ok(json!({"type": "int", "value": 2305843009213693824i64}))
        );
    }

    #[test]
    fn min_max_follow_cel_go() {
        let max = |a: Val<'static>, b: Val<'static>| max_pair(&[a, b]);
        assert!(matches!(
            max(Val::Int(1), Val::Double(1.0)),
            Ok(Val::Int(1))
        ));
        assert!(matches!(max(Val::Uint(3), Val::Int(-3)), Ok(Val::Uint(3))));
        assert!(matches!(
            min_pair(&[Val::Double(1.5), Val::Int(1)]),
            Ok(Val::Int(1))
        ));
        assert_eq!(
            max(Val::Double(f64::NAN), Val::Int(1))
                .err()
                .map(|e| e.message),
            Some("NaN values cannot be ordered: math.@max".to_string())
        );
        assert_eq!(
            max(Val::Null, Val::Int(1)).err().map(|e| e.message),
            Some("no such overload".to_string())
        );
        assert_eq!(
            max_list(&[Val::list(vec![])]).err().map(|e| e.message),
            Some("math.@max(list) argument must not be empty".to_string())
        );
        assert_eq!(
            min_list(&[Val::list(vec![Val::str("a")])])
                .err()
                .map(|e| e.message),
            Some("no such overload: math.@min".to_string())
        );
        assert!(matches!(
            max_list(&[Val::list(vec![
                Val::Double(5.4),
                Val::Uint(10),
                Val::Int(3)
            ])]),
            Ok(Val::Uint(10))
        ));
    }

    #[test]
    fn bits_and_rounding() {
        assert!(matches!(
            shift_right(&[Val::Int(-1024), Val::Int(3)]),
            Ok(Val::Int(2305843009213693824))
        ));
        assert!(matches!(
            shift_right(&[Val::Int(-1024), Val::Int(64)]),
            Ok(Val::Int(0))
        ));
        assert!(matches!(
            shift_left(&[Val::Int(-1), Val::Int(200)]),
            Ok(Val::Int(0))
        ));
        assert!(matches!(
            shift_left(&[Val::Uint(1), Val::Int(2)]),
            Ok(Val::Uint(4))
        ));
        assert_eq!(
            shift_left(&[Val::Uint(1), Val::Int(-1)])
                .err()
                .map(|e| e.message),
            Some("math.bitShiftLeft() negative offset: -1".to_string())
        );
        assert!(matches!(round(&[Val::Double(-1.5)]), Ok(Val::Double(d)) if d == -2.0));
        assert!(matches!(abs(&[Val::Int(i64::MIN)]), Err(_)));
        assert!(
            matches!(sign(&[Val::Double(-0.0)]), Ok(Val::Double(d)) if d == 0.0 && d.is_sign_positive())
        );
        assert!(matches!(sqrt(&[Val::Int(9)]), Ok(Val::Double(d)) if d == 3.0));
        // A `dyn` argument of another type is refused at run time.
        assert!(ceil(&[Val::Int(1)]).is_err());
    }
}
