//! cel-go two-variable comprehensions (`ext/comprehensions.go`, 1.32+): all, exists,
//! existsOne, transformList, transformMap, transformMapEntry macros.
//!
//! The macros expand to comprehensions with two iteration variables (index and value for
//! lists, key and value for maps) over the accumulator `@result`; `transformMap` and
//! `transformMapEntry` build their map with the internal function `cel.@mapInsert`.

use crate::cel::env::{EnvOptions, Function, Overload};
use crate::cel::types::Type;
use crate::cel::value::{EvalError, EvalResult, Map, OwnedMap, Val};
use cel::common::ast::{
    operators, CallExpr, ComprehensionExpr, Expr, IdedExpr, ListExpr, LiteralValue, MapExpr,
};
use cel::parser::{Macro, MacroExprHelper, ParseError};
use std::rc::Rc;

/// The accumulator variable of the expanded comprehensions (cel-go's hidden accumulator).
const ACCU: &str = "@result";
/// The accumulator name of older cel-go versions, also refused as an iteration variable.
const LEGACY_ACCU: &str = "__result__";
/// The internal map-building function.
const MAP_INSERT: &str = "cel.@mapInsert";

/// The functions this library declares at the environment's compatibility version.
pub fn functions(opts: &EnvOptions) -> Vec<Function> {
    if opts.compat_minor < 32 {
        return Vec::new();
    }
    let k = || Type::param("K");
    let v = || Type::param("V");
    let map_kv = || Type::map(k(), v());
    vec![Function::new(
        MAP_INSERT,
        vec![
            Overload::global(
                "@mapInsert_map_key_value",
                vec![map_kv(), k(), v()],
                map_kv(),
                map_insert_key_value,
            ),
            Overload::global(
                "@mapInsert_map_map",
                vec![map_kv(), map_kv()],
                map_kv(),
                map_insert_map,
            ),
        ],
    )]
}

/// Which macro is being expanded.
#[derive(Clone, Copy)]
enum Kind {
    All,
    Exists,
    ExistsOne,
    TransformList,
    TransformMap,
    TransformMapEntry,
}

/// The parser macros this library adds. The three-argument `all`/`exists`/`existsOne`
/// leave the standard two-argument macros untouched (macros match on argument count).
pub fn macros(opts: &EnvOptions) -> Vec<Macro> {
    if opts.compat_minor < 32 {
        return Vec::new();
    }
    let m = |name: &str, argc: usize, kind: Kind| {
        Macro::receiver(name, argc, move |helper, target, args| {
            expand(helper, target, args, kind).map(Some)
        })
    };
    vec![
        m("all", 3, Kind::All),
        m("exists", 3, Kind::Exists),
        m("existsOne", 3, Kind::ExistsOne),
        m("exists_one", 3, Kind::ExistsOne),
        m("transformList", 3, Kind::TransformList),
        m("transformList", 4, Kind::TransformList),
        m("transformMap", 3, Kind::TransformMap),
        m("transformMap", 4, Kind::TransformMap),
        m("transformMapEntry", 3, Kind::TransformMapEntry),
        m("transformMapEntry", 4, Kind::TransformMapEntry),
    ]
}

// ------------------------------------------------------------------------ standard macros

/// The standard macros as cel-go's parser expands them (`parser/macro.go`): `has`, and the
/// one-variable `all`, `exists`, `exists_one`/`existsOne`, `map` (two and three arguments)
/// and `filter`, over the accumulator `@result`.
///
/// The `cel` crate's `Env::stdlib()` also registers the optional library's `optMap` and
/// `optFlatMap` with an expansion of its own (binding the target once), which cel-go does
/// not do; a parser built on `cel::Env::default()` with these macros plus
/// [`crate::cel::environment::library_macros`] expands every macro the way cel-go does.
pub fn standard_macros() -> Vec<Macro> {
    let q = |name: &str, kind: Kind| {
        Macro::receiver(name, 2, move |helper, target, args| {
            quantifier(helper, target, args, kind).map(Some)
        })
    };
    vec![
        Macro::global(operators::HAS, 1, |helper, _target, args| {
            has_macro(helper, args).map(Some)
        }),
        q(operators::ALL, Kind::All),
        q(operators::EXISTS, Kind::Exists),
        q(operators::EXISTS_ONE, Kind::ExistsOne),
        q("existsOne", Kind::ExistsOne),
        Macro::receiver(operators::MAP, 2, |helper, target, args| {
            map_macro(helper, target, args).map(Some)
        }),
        Macro::receiver(operators::MAP, 3, |helper, target, args| {
            map_macro(helper, target, args).map(Some)
        }),
        Macro::receiver(operators::FILTER, 2, |helper, target, args| {
            filter_macro(helper, target, args).map(Some)
        }),
    ]
}

/// `has(a.f)`: a presence test on the selection.
fn has_macro(
    helper: &mut MacroExprHelper<'_>,
    args: &mut Vec<IdedExpr>,
) -> Result<IdedExpr, ParseError> {
    match args.first() {
        Some(IdedExpr {
            expr: Expr::Select(_),
            ..
        }) => {}
        Some(other) => return Err(helper.new_error(other.id, "invalid argument to has() macro")),
        None => return Err(helper.new_error(0, "invalid argument to has() macro")),
    }
    let arg = args.remove(0);
    match arg.expr {
        Expr::Select(mut s) => {
            s.test = true;
            Ok(helper.next_expr(Expr::Select(s)))
        }
        _ => Err(helper.new_error(arg.id, "invalid argument to has() macro")),
    }
}

/// The one-variable iteration variable: a plain name that is not the accumulator.
fn single_var(
    helper: &MacroExprHelper<'_>,
    e: &IdedExpr,
    not_ident: &str,
) -> Result<String, ParseError> {
    let v = match &e.expr {
        Expr::Ident(name) => name.clone(),
        _ => return Err(helper.new_error(e.id, not_ident)),
    };
    if v == ACCU || v == LEGACY_ACCU {
        return Err(helper.new_error(e.id, "iteration variable overwrites accumulator variable"));
    }
    Ok(v)
}

fn fold(
    helper: &mut MacroExprHelper<'_>,
    range: IdedExpr,
    var: String,
    parts: (IdedExpr, IdedExpr, IdedExpr, IdedExpr),
) -> IdedExpr {
    let (accu_init, loop_cond, loop_step, result) = parts;
    helper.next_expr(Expr::Comprehension(Box::new(ComprehensionExpr {
        iter_range: range,
        iter_var: var,
        iter_var2: None,
        accu_var: ACCU.to_string(),
        accu_init,
        loop_cond,
        loop_step,
        result,
    })))
}

/// cel-go's `makeQuantifier`: `all`, `exists`, `exists_one`.
fn quantifier(
    helper: &mut MacroExprHelper<'_>,
    target: &mut Option<IdedExpr>,
    args: &mut Vec<IdedExpr>,
    kind: Kind,
) -> Result<IdedExpr, ParseError> {
    let Some(first) = args.first() else {
        return Err(helper.new_error(0, "unexpected number of macro arguments"));
    };
    let var = single_var(helper, first, "argument must be a simple name")?;
    let (Some(pred), Some(range)) = (args.pop(), target.take()) else {
        return Err(helper.new_error(0, "unexpected number of macro arguments"));
    };
    args.clear();
    let parts = quantifier_parts(helper, kind, pred);
    Ok(fold(helper, range, var, parts))
}

/// (init, condition, step, result) of a quantifier over the predicate `pred`.
fn quantifier_parts(
    helper: &mut MacroExprHelper<'_>,
    kind: Kind,
    pred: IdedExpr,
) -> (IdedExpr, IdedExpr, IdedExpr, IdedExpr) {
    match kind {
        Kind::Exists => {
            let init = bool_lit(helper, false);
            let a = accu(helper);
            let not = call(helper, operators::LOGICAL_NOT, vec![a]);
            let cond = call(helper, operators::NOT_STRICTLY_FALSE, vec![not]);
            let a = accu(helper);
            let step = call(helper, operators::LOGICAL_OR, vec![a, pred]);
            (init, cond, step, accu(helper))
        }
        Kind::ExistsOne => {
            let init = int_lit(helper, 0);
            let cond = bool_lit(helper, true);
            let a = accu(helper);
            let one = int_lit(helper, 1);
            let inc = call(helper, operators::ADD, vec![a, one]);
            let a = accu(helper);
            let step = call(helper, operators::CONDITIONAL, vec![pred, inc, a]);
            let a = accu(helper);
            let one = int_lit(helper, 1);
            let result = call(helper, operators::EQUALS, vec![a, one]);
            (init, cond, step, result)
        }
        _ => {
            let init = bool_lit(helper, true);
            let a = accu(helper);
            let cond = call(helper, operators::NOT_STRICTLY_FALSE, vec![a]);
            let a = accu(helper);
            let step = call(helper, operators::LOGICAL_AND, vec![a, pred]);
            (init, cond, step, accu(helper))
        }
    }
}

/// cel-go's `MakeMap`: `range.map(v, f)` and `range.map(v, filter, f)`.
fn map_macro(
    helper: &mut MacroExprHelper<'_>,
    target: &mut Option<IdedExpr>,
    args: &mut Vec<IdedExpr>,
) -> Result<IdedExpr, ParseError> {
    let Some(first) = args.first() else {
        return Err(helper.new_error(0, "unexpected number of macro arguments"));
    };
    let var = single_var(helper, first, "argument is not an identifier")?;
    let (Some(func), Some(range)) = (args.pop(), target.take()) else {
        return Err(helper.new_error(0, "unexpected number of macro arguments"));
    };
    let filter = if args.len() == 2 { args.pop() } else { None };
    args.clear();
    let init = helper.next_expr(Expr::List(ListExpr::new(Vec::new())));
    let cond = bool_lit(helper, true);
    let a = accu(helper);
    let single = helper.next_expr(Expr::List(ListExpr::new(vec![func])));
    let step = call(helper, operators::ADD, vec![a, single]);
    let step = with_filter(helper, filter, step);
    let result = accu(helper);
    Ok(fold(helper, range, var, (init, cond, step, result)))
}

/// cel-go's `MakeFilter`: `range.filter(v, p)`.
fn filter_macro(
    helper: &mut MacroExprHelper<'_>,
    target: &mut Option<IdedExpr>,
    args: &mut Vec<IdedExpr>,
) -> Result<IdedExpr, ParseError> {
    let Some(first) = args.first() else {
        return Err(helper.new_error(0, "unexpected number of macro arguments"));
    };
    let var = single_var(helper, first, "argument is not an identifier")?;
    let (Some(pred), Some(range)) = (args.pop(), target.take()) else {
        return Err(helper.new_error(0, "unexpected number of macro arguments"));
    };
    // The element itself is the iteration variable's identifier (cel-go reuses the node).
    let elem = match args.pop() {
        Some(e) => e,
        None => return Err(helper.new_error(0, "unexpected number of macro arguments")),
    };
    args.clear();
    let init = helper.next_expr(Expr::List(ListExpr::new(Vec::new())));
    let cond = bool_lit(helper, true);
    let a = accu(helper);
    let single = helper.next_expr(Expr::List(ListExpr::new(vec![elem])));
    let step = call(helper, operators::ADD, vec![a, single]);
    let step = with_filter(helper, Some(pred), step);
    let result = accu(helper);
    Ok(fold(helper, range, var, (init, cond, step, result)))
}

// ------------------------------------------------------------------------ macros

fn ident(helper: &mut MacroExprHelper<'_>, name: &str) -> IdedExpr {
    helper.next_expr(Expr::Ident(name.to_string()))
}

fn accu(helper: &mut MacroExprHelper<'_>) -> IdedExpr {
    ident(helper, ACCU)
}

fn bool_lit(helper: &mut MacroExprHelper<'_>, b: bool) -> IdedExpr {
    helper.next_expr(Expr::Literal(LiteralValue::Boolean(b.into())))
}

fn int_lit(helper: &mut MacroExprHelper<'_>, i: i64) -> IdedExpr {
    helper.next_expr(Expr::Literal(LiteralValue::Int(i.into())))
}

fn call(helper: &mut MacroExprHelper<'_>, name: &str, args: Vec<IdedExpr>) -> IdedExpr {
    helper.next_expr(Expr::Call(CallExpr {
        func_name: name.to_string(),
        target: None,
        args,
    }))
}

/// An iteration variable: the argument must be a plain identifier.
fn iter_var(helper: &MacroExprHelper<'_>, e: &IdedExpr) -> Result<String, ParseError> {
    match &e.expr {
        Expr::Ident(name) => Ok(name.clone()),
        _ => Err(helper.new_error(e.id, "argument must be a simple name")),
    }
}

/// cel-go's `extractIterVars`: both names simple, distinct, and not the accumulator.
fn iter_vars(
    helper: &MacroExprHelper<'_>,
    a0: &IdedExpr,
    a1: &IdedExpr,
) -> Result<(String, String), ParseError> {
    let v1 = iter_var(helper, a0)?;
    let v2 = iter_var(helper, a1)?;
    if v1 == v2 {
        return Err(helper.new_error(a1.id, format!("duplicate variable name: {}", v1)));
    }
    if v1 == ACCU || v1 == LEGACY_ACCU {
        return Err(helper.new_error(a0.id, "iteration variable overwrites accumulator variable"));
    }
    if v2 == ACCU || v2 == LEGACY_ACCU {
        return Err(helper.new_error(a1.id, "iteration variable overwrites accumulator variable"));
    }
    Ok((v1, v2))
}

fn expand(
    helper: &mut MacroExprHelper<'_>,
    target: &mut Option<IdedExpr>,
    args: &mut Vec<IdedExpr>,
    kind: Kind,
) -> Result<IdedExpr, ParseError> {
    if args.len() < 3 || args.len() > 4 {
        return Err(helper.new_error(0, "unexpected number of macro arguments"));
    }
    let (v1, v2) = iter_vars(helper, &args[0], &args[1])?;
    let Some(range) = target.take() else {
        return Err(helper.new_error(0, "macro requires a target"));
    };
    let mut rest: Vec<IdedExpr> = args.drain(..).skip(2).collect();
    // (filter, transform) for the transforms; the predicate for the quantifiers.
    let last = match rest.pop() {
        Some(e) => e,
        None => return Err(helper.new_error(0, "unexpected number of macro arguments")),
    };
    let filter = rest.pop();

    let (init, cond, step, result) = match kind {
        Kind::All | Kind::Exists | Kind::ExistsOne => quantifier_parts(helper, kind, last),
        Kind::TransformList => {
            let a = accu(helper);
            let single = helper.next_expr(Expr::List(ListExpr::new(vec![last])));
            let step = call(helper, operators::ADD, vec![a, single]);
            let step = with_filter(helper, filter, step);
            let init = helper.next_expr(Expr::List(ListExpr::new(Vec::new())));
            let cond = bool_lit(helper, true);
            (init, cond, step, accu(helper))
        }
        Kind::TransformMap => {
            let a = accu(helper);
            let key = ident(helper, &v1);
            let step = call(helper, MAP_INSERT, vec![a, key, last]);
            let step = with_filter(helper, filter, step);
            let init = helper.next_expr(Expr::Map(MapExpr::default()));
            let cond = bool_lit(helper, true);
            (init, cond, step, accu(helper))
        }
        Kind::TransformMapEntry => {
            let a = accu(helper);
            let step = call(helper, MAP_INSERT, vec![a, last]);
            let step = with_filter(helper, filter, step);
            let init = helper.next_expr(Expr::Map(MapExpr::default()));
            let cond = bool_lit(helper, true);
            (init, cond, step, accu(helper))
        }
    };
    Ok(
        helper.next_expr(Expr::Comprehension(Box::new(ComprehensionExpr {
            iter_range: range,
            iter_var: v1,
            iter_var2: Some(v2),
            accu_var: ACCU.to_string(),
            accu_init: init,
            loop_cond: cond,
            loop_step: step,
            result,
        }))),
    )
}

/// `filter ? step : @result` when there is a filter.
fn with_filter(
    helper: &mut MacroExprHelper<'_>,
    filter: Option<IdedExpr>,
    step: IdedExpr,
) -> IdedExpr {
    match filter {
        Some(f) => {
            let a = accu(helper);
            call(helper, operators::CONDITIONAL, vec![f, step, a])
        }
        None => step,
    }
}

// ------------------------------------------------------------------------ cel.@mapInsert

/// Go's `%v` of a map key, as in `insert failed: key 1 already exists`.
fn key_text(k: &Val) -> String {
    match k {
        Val::String(s) => s.as_str().to_string(),
        Val::Int(i) => i.to_string(),
        Val::Uint(u) => u.to_string(),
        Val::Bool(b) => b.to_string(),
        Val::Double(d) => {
            if d.is_finite() && d.fract() == 0.0 && d.abs() < 1e21 {
                format!("{}", *d as i128)
            } else {
                format!("{}", d)
            }
        }
        Val::Null => "NULL_VALUE".to_string(),
        other => format!("{:?}", other),
    }
}

fn valid_key(k: &Val) -> Result<(), EvalError> {
    match k {
        Val::String(_) | Val::Int(_) | Val::Uint(_) | Val::Bool(_) => Ok(()),
        other => Err(EvalError::new(format!(
            "unsupported key type: {}",
            other.type_name()
        ))),
    }
}

/// Adds `new` entries to `base`, refusing keys already present (CEL key equality:
/// numerically equal keys collide across int/uint/double). A computed map that nothing
/// else references is extended in place (the accumulator of `transformMap`); otherwise
/// the entries are copied first.
pub fn insert_all<'a>(base: Val<'a>, new: Vec<(Val<'a>, Val<'a>)>) -> EvalResult<'a> {
    let mut owned = match base {
        Val::Map(Map::Owned(m)) => m,
        Val::Map(m) => Rc::new(OwnedMap::new(m.entries())),
        _ => return Err(EvalError::no_such_overload()),
    };
    let m = Rc::make_mut(&mut owned);
    for (k, v) in new {
        valid_key(&k)?;
        if m.find(&k).is_some() {
            return Err(EvalError::new(format!(
                "insert failed: key {} already exists",
                key_text(&k)
            )));
        }
        m.push(k, v);
    }
    Ok(Val::Map(Map::Owned(owned)))
}

/// `cel.@mapInsert(map, key, value)` / `cel.@mapInsert(map, otherMap)` with the map taken
/// by value (the accumulator, extended in place).
pub fn map_insert_into<'a>(map: Val<'a>, rest: &[Val<'a>]) -> EvalResult<'a> {
    match rest {
        [k, v] => insert_all(map, vec![(k.clone(), v.clone())]),
        [Val::Map(other)] => insert_all(map, other.entries()),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `cel.@mapInsert(map, key, value)`.
fn map_insert_key_value<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let (Some(m), Some(k), Some(v)) = (args.first(), args.get(1), args.get(2)) else {
        return Err(EvalError::no_such_overload());
    };
    insert_all(m.clone(), vec![(k.clone(), v.clone())])
}

/// `cel.@mapInsert(map, otherMap)`.
fn map_insert_map<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let (Some(m), Some(Val::Map(other))) = (args.first(), args.get(1)) else {
        return Err(EvalError::no_such_overload());
    };
    insert_all(m.clone(), other.entries())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cel::env::EnvOptions;

    fn parse(minor: u32, text: &str) -> Result<IdedExpr, String> {
        crate::cel::parser::parse(&EnvOptions::for_version(minor), text).map(|(e, _)| e)
    }

    fn comprehension(e: &IdedExpr) -> &ComprehensionExpr {
        match &e.expr {
            Expr::Comprehension(c) => c,
            other => panic!("not a comprehension: {:?}", other),
        }
    }

    #[test]
    fn gated_on_version() {
        assert!(functions(&EnvOptions::for_version(31)).is_empty());
        assert!(macros(&EnvOptions::for_version(31)).is_empty());
        assert_eq!(functions(&EnvOptions::for_version(32)).len(), 1);
        // Below 1.32 the three-argument forms stay plain calls.
        let e = parse(31, "[1].all(i, v, v > 0)").expect("parses");
        assert!(matches!(e.expr, Expr::Call(_)));
    }

    #[test]
    fn two_variable_forms_expand() {
        let e = parse(35, "[1].all(i, v, v > 0)").expect("parses");
        let c = comprehension(&e);
        assert_eq!(c.iter_var, "i");
        assert_eq!(c.iter_var2.as_deref(), Some("v"));
        assert_eq!(c.accu_var, "@result");
        // The standard one-variable macros still work.
        let e = parse(35, "[1].all(v, v > 0)").expect("parses");
        assert_eq!(comprehension(&e).iter_var2, None);
        let e = parse(35, "[1].exists_one(v, v > 0)").expect("parses");
        assert_eq!(comprehension(&e).iter_var2, None);
        for text in [
            "[1].exists(i, v, v > 0)",
            "[1].existsOne(i, v, v > 0)",
            "[1].exists_one(i, v, v > 0)",
            "[1].transformList(i, v, v)",
            "[1].transformList(i, v, v > 0, v)",
            "{1: 2}.transformMap(k, v, v)",
            "{1: 2}.transformMap(k, v, v > 0, v)",
            "{1: 2}.transformMapEntry(k, v, {v: k})",
            "{1: 2}.transformMapEntry(k, v, v > 0, {v: k})",
        ] {
            let e = parse(35, text).unwrap_or_else(|err| panic!("{}: {}", text, err));
            assert_eq!(
                comprehension(&e).iter_var2.as_deref(),
                Some("v"),
                "{}",
                text
            );
        }
    }

    #[test]
    fn macro_errors() {
        let err = parse(35, "[].transformList(j, i.k, j + i.k)")
            .err()
            .expect("error");
        assert!(
            err.starts_with("ERROR: <input>:1:22: argument must be a simple name"),
            "{}",
            err
        );
        let err = parse(35, "[].all(j, __result__, __result__ < j)")
            .err()
            .expect("error");
        assert!(
            err.starts_with(
                "ERROR: <input>:1:11: iteration variable overwrites accumulator variable"
            ),
            "{}",
            err
        );
        let err = parse(35, "[].all(j, j, j < j)").err().expect("error");
        assert!(
            err.starts_with("ERROR: <input>:1:11: duplicate variable name: j"),
            "{}",
            err
        );
    }

    /// A parser with only cel-go's standard macros.
    fn parse_standard(text: &str) -> Result<IdedExpr, String> {
        let mut env = cel::Env::default();
        for m in standard_macros() {
            env.add_macro(m).map_err(|e| format!("{:?}", e))?;
        }
        env.parser().parse(text).map_err(|e| e.to_string())
    }

    #[test]
    fn standard_macros_expand_like_cel_go() {
        for text in [
            "[1].all(x, x > 0)",
            "[1].exists(x, x > 0)",
            "[1].exists_one(x, x > 0)",
            "[1].existsOne(x, x > 0)",
            "[1].map(x, x + 1)",
            "[1].map(x, x > 0, x + 1)",
            "[1].filter(x, x > 0)",
        ] {
            let e = parse_standard(text).unwrap_or_else(|err| panic!("{}: {}", text, err));
            let c = comprehension(&e);
            assert_eq!(
                (c.iter_var.as_str(), c.accu_var.as_str()),
                ("x", "@result"),
                "{}",
                text
            );
        }
        let e = parse_standard("has(a.b)").expect("parses");
        assert!(matches!(e.expr, Expr::Select(ref s) if s.test));
        let err = parse_standard("has(a)").err().expect("error");
        assert!(err.contains("invalid argument to has() macro"), "{}", err);
        let err = parse_standard("[1].map(x.y, x)").err().expect("error");
        assert!(err.contains("argument is not an identifier"), "{}", err);
        let err = parse_standard("[1].filter(1, true)").err().expect("error");
        assert!(err.contains("argument is not an identifier"), "{}", err);
        let err = parse_standard("[1].all(x.y, true)").err().expect("error");
        assert!(err.contains("argument must be a simple name"), "{}", err);
        let err = parse_standard("[1].exists(__result__, true)")
            .err()
            .expect("error");
        assert!(
            err.contains("iteration variable overwrites accumulator variable"),
            "{}",
            err
        );
    }

    #[test]
    fn map_insert() {
        let m = Val::map(vec![(Val::Int(1), Val::Int(0))]);
        let e = map_insert_key_value(&[m.clone(), Val::Int(1), Val::Int(1)])
            .err()
            .expect("duplicate");
        assert_eq!(e.message, "insert failed: key 1 already exists");
        let e = map_insert_key_value(&[m.clone(), Val::Uint(1), Val::Int(1)])
            .err()
            .expect("duplicate");
        assert_eq!(e.message, "insert failed: key 1 already exists");
        match map_insert_key_value(&[m.clone(), Val::Int(2), Val::Int(1)]) {
            Ok(Val::Map(r)) => assert_eq!(r.len(), 2),
            _ => panic!("insert"),
        }
        let other = Val::map(vec![
            (Val::str("a"), Val::Int(1)),
            (Val::str("b"), Val::Int(2)),
        ]);
        match map_insert_map(&[Val::map(vec![]), other.clone()]) {
            Ok(Val::Map(r)) => assert_eq!(r.len(), 2),
            _ => panic!("insert map"),
        }
        let e = map_insert_map(&[other.clone(), other])
            .err()
            .expect("duplicate");
        assert_eq!(e.message, "insert failed: key a already exists");
    }
}
