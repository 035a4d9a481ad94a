//! cel-go optional types (`cel/library.go` optionalLib, 1.28+): optional.of/none/
//! ofNonZeroValue, hasValue, value, or, orValue, optMap/optFlatMap macros, `[?]` index.
//!
//! Kubernetes enables `cel.OptionalTypes()` without a version, so every version of the
//! library is present: version 1 adds `optFlatMap`, version 2 adds `first`, `last`,
//! `optional.unwrap` and `unwrapOpt` — as far as the release's cel-go has them (version 2
//! arrived in cel-go v0.23, Kubernetes 1.33: `Feature::OptionalListFunctions`).

use crate::cel::env::{EnvOptions, Function, Overload};
use crate::cel::types::Type;
use crate::cel::value::{EvalError, EvalResult, Map, Timestamp, Val};
use crate::version::Feature;
use cel::common::ast::{
    operators, CallExpr, ComprehensionExpr, Expr, IdedExpr, ListExpr, LiteralValue,
};
use cel::parser::{Macro, MacroExprHelper, ParseError};

/// The iteration variable of the comprehension the optMap/optFlatMap macros expand to.
const UNUSED_ITER_VAR: &str = "#unused";

/// The functions this library declares at the environment's compatibility version.
pub fn functions(opts: &EnvOptions) -> Vec<Function> {
    if opts.compat_minor < 28 {
        return Vec::new();
    }
    let v = || Type::param("V");
    let k = || Type::param("K");
    let opt_v = || Type::optional(v());
    let list_v = || Type::list(v());
    let map_kv = || Type::map(k(), v());
    let mut out = vec![
        Function::new(
            "optional.of",
            vec![Overload::global(
                "optional_of",
                vec![v()],
                opt_v(),
                optional_of,
            )],
        ),
        Function::new(
            "optional.ofNonZeroValue",
            vec![Overload::global(
                "optional_ofNonZeroValue",
                vec![v()],
                opt_v(),
                optional_of_non_zero,
            )],
        ),
        Function::new(
            "optional.none",
            vec![Overload::global(
                "optional_none",
                vec![],
                opt_v(),
                optional_none,
            )],
        ),
        Function::new(
            "value",
            vec![Overload::member(
                "optional_value",
                vec![opt_v()],
                v(),
                optional_value,
            )],
        ),
        Function::new(
            "hasValue",
            vec![Overload::member(
                "optional_hasValue",
                vec![opt_v()],
                Type::Bool,
                optional_has_value,
            )],
        ),
        // Evaluated by the interpreter itself, short-circuiting the right-hand side.
        Function::new(
            "or",
            vec![Overload::special(
                "optional_or_optional",
                true,
                vec![opt_v(), opt_v()],
                opt_v(),
            )],
        ),
        Function::new(
            "orValue",
            vec![Overload::special(
                "optional_orValue_value",
                true,
                vec![opt_v(), v()],
                v(),
            )],
        ),
        // Checked and evaluated specially: the result type is the field's type.
        Function::new(
            operators::OPT_SELECT,
            vec![Overload::special(
                "select_optional_field",
                false,
                vec![Type::Dyn, Type::String],
                opt_v(),
            )],
        ),
        Function::new(
            operators::OPT_INDEX,
            vec![
                Overload::global(
                    "list_optindex_optional_int",
                    vec![list_v(), Type::Int],
                    opt_v(),
                    optional_index,
                ),
                Overload::global(
                    "optional_list_optindex_optional_int",
                    vec![Type::optional(list_v()), Type::Int],
                    opt_v(),
                    optional_index,
                ),
                Overload::global(
                    "map_optindex_optional_value",
                    vec![map_kv(), k()],
                    opt_v(),
                    optional_index,
                ),
                Overload::global(
                    "optional_map_optindex_optional_value",
                    vec![Type::optional(map_kv()), k()],
                    opt_v(),
                    optional_index,
                ),
            ],
        ),
        // Indexing an optional value is optional indexing.
        Function::new(
            operators::INDEX,
            vec![
                Overload::global(
                    "optional_list_index_int",
                    vec![Type::optional(list_v()), Type::Int],
                    opt_v(),
                    optional_index,
                ),
                Overload::global(
                    "optional_map_index_value",
                    vec![Type::optional(map_kv()), k()],
                    opt_v(),
                    optional_index,
                ),
            ],
        ),
    ];
    // Version 2 (first, last, optional.unwrap, unwrapOpt): in the release's cel-go from
    // v0.23 only; Kubernetes does not cap the library's version.
    if !opts.code_has(Feature::OptionalListFunctions) {
        return out;
    }
    out.extend([
        Function::new(
            "last",
            vec![Overload::member(
                "list_last",
                vec![list_v()],
                opt_v(),
                list_last,
            )],
        ),
        Function::new(
            "first",
            vec![Overload::member(
                "list_first",
                vec![list_v()],
                opt_v(),
                list_first,
            )],
        ),
        Function::new(
            "optional.unwrap",
            vec![Overload::global(
                "optional_unwrap",
                vec![Type::list(opt_v())],
                list_v(),
                optional_unwrap,
            )],
        ),
        Function::new(
            "unwrapOpt",
            vec![Overload::member(
                "optional_unwrapOpt",
                vec![Type::list(opt_v())],
                list_v(),
                optional_unwrap,
            )],
        ),
    ]);
    out
}

/// The parser macros this library adds: `optMap` (version 0) and `optFlatMap` (version 1).
pub fn macros(opts: &EnvOptions) -> Vec<Macro> {
    if opts.compat_minor < 28 {
        return Vec::new();
    }
    vec![
        Macro::receiver("optMap", 2, |helper, target, args| {
            opt_map_expand(helper, target, args, true).map(Some)
        }),
        Macro::receiver("optFlatMap", 2, |helper, target, args| {
            opt_map_expand(helper, target, args, false).map(Some)
        }),
    ]
}

// ------------------------------------------------------------------------ macros

fn call(
    helper: &mut MacroExprHelper<'_>,
    name: &str,
    target: Option<IdedExpr>,
    args: Vec<IdedExpr>,
) -> IdedExpr {
    helper.next_expr(Expr::Call(CallExpr {
        func_name: name.to_string(),
        target: target.map(Box::new),
        args,
    }))
}

/// cel-go's `optMap` / `optFlatMap` expansion:
///
/// ```text
/// target.hasValue()
///   ? optional.of(<fold over [] with accu var = target.value(), result = expr>)  // optMap
///   ? <fold over [] with accu var = target.value(), result = expr>               // optFlatMap
///   : optional.none()
/// ```
///
/// The second use of `target` is a copy of the first (cel-go copies it with fresh ids at
/// the same source positions; keeping the ids keeps the positions here).
fn opt_map_expand(
    helper: &mut MacroExprHelper<'_>,
    target: &mut Option<IdedExpr>,
    args: &mut Vec<IdedExpr>,
    wrap: bool,
) -> Result<IdedExpr, ParseError> {
    let macro_name = if wrap { "optMap" } else { "optFlatMap" };
    let var_name = match args.first().map(|a| (&a.expr, a.id)) {
        Some((Expr::Ident(name), _)) => name.clone(),
        Some((_, id)) => {
            return Err(helper.new_error(
                id,
                format!("{}() variable name must be a simple identifier", macro_name),
            ))
        }
        None => return Err(helper.new_error(0, format!("{}() requires two arguments", macro_name))),
    };
    let map_expr = match args.pop() {
        Some(e) if args.len() == 1 => e,
        _ => return Err(helper.new_error(0, format!("{}() requires two arguments", macro_name))),
    };
    args.clear();
    let target = match target.take() {
        Some(t) => t,
        None => return Err(helper.new_error(0, format!("{}() requires a target", macro_name))),
    };
    let target_copy = target.clone();

    let has_value = call(helper, "hasValue", Some(target), Vec::new());
    let iter_range = helper.next_expr(Expr::List(ListExpr::new(Vec::new())));
    let accu_init = call(helper, "value", Some(target_copy), Vec::new());
    let loop_cond = helper.next_expr(Expr::Literal(LiteralValue::Boolean(false.into())));
    let loop_step = helper.next_expr(Expr::Ident(var_name.clone()));
    let fold = helper.next_expr(Expr::Comprehension(Box::new(ComprehensionExpr {
        iter_range,
        iter_var: UNUSED_ITER_VAR.to_string(),
        iter_var2: None,
        accu_var: var_name,
        accu_init,
        loop_cond,
        loop_step,
        result: map_expr,
    })));
    let present = if wrap {
        call(helper, "optional.of", None, vec![fold])
    } else {
        fold
    };
    let absent = call(helper, "optional.none", None, Vec::new());
    Ok(call(
        helper,
        operators::CONDITIONAL,
        None,
        vec![has_value, present, absent],
    ))
}

// ------------------------------------------------------------------------ functions

fn optional_of<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args.first() {
        Some(v) => Ok(Val::optional(Some(v.clone()))),
        None => Err(EvalError::no_such_overload()),
    }
}

fn optional_none<'a>(_args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::optional(None))
}

/// The earliest timestamp cel-go (and Go's `time.Time.IsZero`) treats as the zero time:
/// 0001-01-01T00:00:00Z.
const GO_ZERO_TIME_SECS: i64 = -62_135_596_800;

/// cel-go's `traits.Zeroer`: the zero values of the types that have one.
pub fn is_zero_value(v: &Val) -> bool {
    match v {
        Val::Null => true,
        Val::Bool(b) => !*b,
        Val::Int(i) => *i == 0,
        Val::Uint(u) => *u == 0,
        Val::Double(d) => *d == 0.0,
        Val::String(s) => s.as_str().is_empty(),
        Val::Bytes(b) => b.is_empty(),
        Val::Duration(d) => d.0 == 0,
        Val::Timestamp(t) => *t == Timestamp::utc(GO_ZERO_TIME_SECS, 0),
        Val::List(l) => l.is_empty(),
        Val::Map(m) => m.is_empty(),
        Val::Optional(_) | Val::Type(_) | Val::Opaque(_) => false,
    }
}

fn optional_of_non_zero<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args.first() {
        Some(v) if is_zero_value(v) => Ok(Val::optional(None)),
        Some(v) => Ok(Val::optional(Some(v.clone()))),
        None => Err(EvalError::no_such_overload()),
    }
}

fn optional_value<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args.first() {
        Some(Val::Optional(Some(v))) => Ok((**v).clone()),
        Some(Val::Optional(None)) => Err(EvalError::new("optional.none() dereference")),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn optional_has_value<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args.first() {
        Some(Val::Optional(o)) => Ok(Val::Bool(o.is_some())),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// A list position from an index value: ints, and uints and whole doubles as cel-go's
/// lists accept them. `Err` for other index types.
fn list_position(len: usize, idx: &Val) -> Result<Option<usize>, EvalError> {
    let i: i128 = match idx {
        Val::Int(i) => *i as i128,
        Val::Uint(u) => *u as i128,
        Val::Double(d) if d.is_finite() && d.fract() == 0.0 && d.abs() < 1e18 => *d as i128,
        Val::Double(d) => {
            return Err(EvalError::new(format!(
                "unsupported index value {:?} in list",
                d
            )))
        }
        other => {
            return Err(EvalError::new(format!(
                "unsupported index type '{}' in list",
                other.type_name()
            )))
        }
    };
    if i < 0 || i >= len as i128 {
        return Ok(None);
    }
    Ok(Some(i as usize))
}

/// `container[?index]`, and `optional[index]`: an optional of the element when present,
/// `optional.none()` when absent (or when the operand is itself `optional.none()`).
fn optional_index<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let (Some(operand), Some(index)) = (args.first(), args.get(1)) else {
        return Err(EvalError::no_such_overload());
    };
    let container: &Val<'a> = match operand {
        Val::Optional(None) => return Ok(Val::optional(None)),
        Val::Optional(Some(inner)) => inner,
        other => other,
    };
    match container {
        Val::List(l) => match list_position(l.len(), index)? {
            Some(i) => match l.get(i) {
                Some(r) => Ok(Val::optional(Some(r?))),
                None => Ok(Val::optional(None)),
            },
            None => Ok(Val::optional(None)),
        },
        Val::Map(m) => map_lookup(m, index),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn map_lookup<'a>(m: &Map<'a>, key: &Val<'a>) -> EvalResult<'a> {
    match key {
        Val::String(_) | Val::Int(_) | Val::Uint(_) | Val::Double(_) | Val::Bool(_) => {
            match m.get(key) {
                Some(r) => Ok(Val::optional(Some(r?))),
                None => Ok(Val::optional(None)),
            }
        }
        other => Err(EvalError::new(format!(
            "unsupported key type: {}",
            other.type_name()
        ))),
    }
}

fn list_first<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args.first() {
        Some(Val::List(l)) => match l.get(0) {
            Some(r) => Ok(Val::optional(Some(r?))),
            None => Ok(Val::optional(None)),
        },
        _ => Err(EvalError::no_such_overload()),
    }
}

fn list_last<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args.first() {
        Some(Val::List(l)) if !l.is_empty() => match l.get(l.len() - 1) {
            Some(r) => Ok(Val::optional(Some(r?))),
            None => Ok(Val::optional(None)),
        },
        Some(Val::List(_)) => Ok(Val::optional(None)),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `optional.unwrap(list)` / `list.unwrapOpt()`: the values of the non-empty optionals.
fn optional_unwrap<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let Some(Val::List(l)) = args.first() else {
        return Err(EvalError::no_such_overload());
    };
    let mut out = Vec::new();
    for i in 0..l.len() {
        let Some(item) = l.get(i) else { break };
        match item? {
            Val::Optional(Some(v)) => out.push((*v).clone()),
            Val::Optional(None) => {}
            other => {
                return Err(EvalError::new(format!(
                    "value {} is not optional",
                    go_display(&other)
                )))
            }
        }
    }
    Ok(Val::list(out))
}

/// Go's `%v` of a CEL value, as far as error texts need it.
fn go_display(v: &Val) -> String {
    go_display_at(v, 0)
}

/// [`go_display`] with a nesting bound (values from objects can be nested deeply).
fn go_display_at(v: &Val, depth: usize) -> String {
    const MAX_DEPTH: usize = 16;
    const MAX_ITEMS: usize = 64;
    match v {
        Val::Null => "NULL_VALUE".to_string(),
        Val::Bool(b) => b.to_string(),
        Val::Int(i) => i.to_string(),
        Val::Uint(u) => u.to_string(),
        Val::Double(d) => {
            if d.is_finite() && d.fract() == 0.0 && d.abs() < 1e21 {
                format!("{}", *d as i128)
            } else {
                format!("{}", d)
            }
        }
        Val::String(s) => s.as_str().to_string(),
        Val::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Val::List(_) | Val::Map(_) | Val::Optional(_) if depth >= MAX_DEPTH => "...".to_string(),
        Val::List(l) => {
            let items: Vec<String> = l
                .iter()
                .take(MAX_ITEMS)
                .map(|x| go_display_at(&x, depth + 1))
                .collect();
            format!("[{}]", items.join(" "))
        }
        Val::Map(m) => {
            let items: Vec<String> = m
                .entries()
                .iter()
                .take(MAX_ITEMS)
                .map(|(k, x)| {
                    format!(
                        "{}:{}",
                        go_display_at(k, depth + 1),
                        go_display_at(x, depth + 1)
                    )
                })
                .collect();
            format!("map[{}]", items.join(" "))
        }
        Val::Optional(Some(x)) => format!("optional({})", go_display_at(x, depth + 1)),
        Val::Optional(None) => "optional.none()".to_string(),
        Val::Type(t) => t.to_string(),
        Val::Duration(d) => format!("{}ns", d.0),
        Val::Timestamp(t) => format!("{}s", t.secs),
        Val::Opaque(o) => o.to_canonical(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cel::env::EnvOptions;

    fn opts(minor: u32) -> EnvOptions {
        EnvOptions::for_version(minor)
    }

    #[test]
    fn gated_on_version() {
        assert!(functions(&opts(27)).is_empty());
        assert!(macros(&opts(27)).is_empty());
        let fs = functions(&opts(28));
        for name in [
            "optional.of",
            "optional.none",
            "optional.ofNonZeroValue",
            "hasValue",
            "value",
            "or",
            "orValue",
            "_[?_]",
        ] {
            assert!(fs.iter().any(|f| f.name == name), "{}", name);
        }
        // Version 2 comes with the release's cel-go (v0.23, 1.33), whatever the
        // compatibility version.
        let version2 = ["first", "last", "optional.unwrap", "unwrapOpt"];
        for name in version2 {
            assert!(!fs.iter().any(|f| f.name == name), "{}", name);
            assert!(!functions(&EnvOptions::stored(32)).iter().any(|f| f.name == name), "{}", name);
            assert!(functions(&opts(32)).iter().any(|f| f.name == name), "{}", name);
        }
        assert_eq!(macros(&opts(35)).len(), 2);
    }

    #[test]
    fn zero_values() {
        assert!(is_zero_value(&Val::Int(0)));
        assert!(is_zero_value(&Val::Double(-0.0)));
        assert!(is_zero_value(&Val::str("")));
        assert!(is_zero_value(&Val::list(vec![])));
        assert!(is_zero_value(&Val::Null));
        assert!(!is_zero_value(&Val::Double(f64::NAN)));
        assert!(!is_zero_value(&Val::Timestamp(Timestamp::utc(0, 0))));
        assert!(is_zero_value(&Val::Timestamp(Timestamp::utc(
            GO_ZERO_TIME_SECS,
            0
        ))));
        assert!(!is_zero_value(&Val::optional(None)));
    }

    #[test]
    fn optional_indexing() {
        let l = Val::list(vec![Val::Int(1), Val::Int(2)]);
        let r = optional_index(&[l.clone(), Val::Int(1)]).expect("ok");
        assert!(matches!(r, Val::Optional(Some(ref v)) if matches!(**v, Val::Int(2))));
        assert!(matches!(
            optional_index(&[l.clone(), Val::Int(2)]),
            Ok(Val::Optional(None))
        ));
        assert!(matches!(
            optional_index(&[l.clone(), Val::Int(-1)]),
            Ok(Val::Optional(None))
        ));
        let m = Val::map(vec![(Val::str("a"), Val::Int(1))]);
        assert!(matches!(
            optional_index(&[m.clone(), Val::str("b")]),
            Ok(Val::Optional(None))
        ));
        assert!(matches!(
            optional_index(&[Val::optional(Some(m.clone())), Val::str("a")]),
            Ok(Val::Optional(Some(_)))
        ));
        assert!(matches!(
            optional_index(&[Val::optional(None), Val::str("a")]),
            Ok(Val::Optional(None))
        ));
        assert!(optional_index(&[Val::Int(1), Val::Int(0)]).is_err());
    }

    #[test]
    fn value_and_unwrap() {
        let e = optional_value(&[Val::optional(None)]).err().expect("error");
        assert_eq!(e.message, "optional.none() dereference");
        let l = Val::list(vec![Val::optional(Some(Val::Int(42))), Val::optional(None)]);
        match optional_unwrap(&[l]) {
            Ok(Val::List(out)) => assert_eq!(out.len(), 1),
            _ => panic!("unwrap"),
        }
        let bad = Val::list(vec![Val::Int(1)]);
        assert_eq!(
            optional_unwrap(&[bad]).err().map(|e| e.message),
            Some("value 1 is not optional".to_string())
        );
    }

    #[test]
    fn first_and_last() {
        let l = Val::list(vec![Val::Int(1), Val::Int(3)]);
        assert!(
            matches!(list_last(&[l.clone()]), Ok(Val::Optional(Some(ref v))) if matches!(**v, Val::Int(3)))
        );
        assert!(
            matches!(list_first(&[l]), Ok(Val::Optional(Some(ref v))) if matches!(**v, Val::Int(1)))
        );
        assert!(matches!(
            list_last(&[Val::list(vec![])]),
            Ok(Val::Optional(None))
        ));
    }

    /// A parser with cel-go's standard macros and this library's, independent of how the
    /// crate's parser environment is assembled.
    fn parse(text: &str) -> Result<IdedExpr, String> {
        let mut env = cel::Env::default().with_optional_support(true);
        let all = crate::cel::library::comprehensions::standard_macros()
            .into_iter()
            .chain(macros(&opts(35)));
        for m in all {
            env.add_macro(m).map_err(|e| format!("{:?}", e))?;
        }
        env.parser().parse(text).map_err(|e| e.to_string())
    }

    #[test]
    fn opt_map_expands() {
        let expr = parse("m.?key.optMap(k, k.size())").expect("parses");
        let Expr::Call(c) = &expr.expr else {
            panic!("call")
        };
        assert_eq!(c.func_name, "_?_:_");
        assert_eq!(c.args.len(), 3);
        let Expr::Call(has) = &c.args[0].expr else {
            panic!("hasValue")
        };
        assert_eq!(has.func_name, "hasValue");
        let Expr::Call(of) = &c.args[1].expr else {
            panic!("optional.of")
        };
        assert_eq!(of.func_name, "optional.of");
        let Expr::Comprehension(fold) = &of.args[0].expr else {
            panic!("fold")
        };
        assert_eq!(fold.iter_var, "#unused");
        assert_eq!(fold.accu_var, "k");
        let Expr::Call(value) = &fold.accu_init.expr else {
            panic!("value")
        };
        assert_eq!(value.func_name, "value");
        // The target is evaluated twice, as cel-go's copy is.
        assert_eq!(value.target, has.target);
        let Expr::Call(none) = &c.args[2].expr else {
            panic!("none")
        };
        assert_eq!(none.func_name, "optional.none");

        let flat = parse("m.?key.optFlatMap(k, k.?x)").expect("parses");
        let Expr::Call(c) = &flat.expr else {
            panic!("call")
        };
        assert!(matches!(c.args[1].expr, Expr::Comprehension(_)));

        let err = parse("m.?key.optMap(k.j, k)").err().expect("error");
        assert!(
            err.contains("optMap() variable name must be a simple identifier"),
            "{}",
            err
        );
        let err = parse("m.?key.optFlatMap(1, k)").err().expect("error");
        assert!(
            err.contains("optFlatMap() variable name must be a simple identifier"),
            "{}",
            err
        );
    }
}
