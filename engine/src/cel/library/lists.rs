//! Kubernetes lists library (apiserver `pkg/cel/library/lists.go`): isSorted, sum, min,
//! max, indexOf, lastIndexOf.

use crate::cel::env::{EnvOptions, Function, Overload};
use crate::cel::types::Type;
use crate::cel::value::{compare_numbers, equal, Duration, EvalError, EvalResult, Val};
use std::cmp::Ordering;

/// The comparable element types, in the order apiserver declares their overloads.
const COMPARABLE: [(&str, fn() -> Type); 8] = [
    ("int", || Type::Int),
    ("uint", || Type::Uint),
    ("double", || Type::Double),
    ("bool", || Type::Bool),
    ("duration", || Type::Duration),
    ("timestamp", || Type::Timestamp),
    ("string", || Type::String),
    ("bytes", || Type::Bytes),
];

/// The functions this library declares at the environment's compatibility version
/// (present in every version).
pub fn functions(_opts: &EnvOptions) -> Vec<Function> {
    let is_sorted_ids = [
        "list_int_is_sorted_bool",
        "list_uint_is_sorted_bool",
        "list_double_is_sorted_bool",
        "list_bool_is_sorted_bool",
        "list_duration_is_sorted_bool",
        "list_timestamp_is_sorted_bool",
        "list_string_is_sorted_bool",
        "list_bytes_is_sorted_bool",
    ];
    let max_ids = [
        "list_int_max_int",
        "list_uint_max_uint",
        "list_double_max_double",
        "list_bool_max_bool",
        "list_duration_max_duration",
        "list_timestamp_max_timestamp",
        "list_string_max_string",
        "list_bytes_max_bytes",
    ];
    let min_ids = [
        "list_int_min_int",
        "list_uint_min_uint",
        "list_double_min_double",
        "list_bool_min_bool",
        "list_duration_min_duration",
        "list_timestamp_min_timestamp",
        "list_string_min_string",
        "list_bytes_min_bytes",
    ];
    let mut is_sorted = Vec::new();
    let mut max = Vec::new();
    let mut min = Vec::new();
    for (i, (_, t)) in COMPARABLE.iter().enumerate() {
        is_sorted.push(Overload::member(
            is_sorted_ids[i],
            vec![Type::list(t())],
            Type::Bool,
            list_is_sorted,
        ));
        max.push(Overload::member(
            max_ids[i],
            vec![Type::list(t())],
            t(),
            list_max,
        ));
        min.push(Overload::member(
            min_ids[i],
            vec![Type::list(t())],
            t(),
            list_min,
        ));
    }
    let sum = vec![
        Overload::member(
            "list_int_sum_int",
            vec![Type::list(Type::Int)],
            Type::Int,
            sum_int,
        ),
        Overload::member(
            "list_uint_sum_uint",
            vec![Type::list(Type::Uint)],
            Type::Uint,
            sum_uint,
        ),
        Overload::member(
            "list_double_sum_double",
            vec![Type::list(Type::Double)],
            Type::Double,
            sum_double,
        ),
        Overload::member(
            "list_duration_sum_duration",
            vec![Type::list(Type::Duration)],
            Type::Duration,
            sum_duration,
        ),
    ];
    let a = || Type::param("A");
    vec![
        Function::new("isSorted", is_sorted),
        Function::new("sum", sum),
        Function::new("max", max),
        Function::new("min", min),
        Function::new(
            "indexOf",
            vec![Overload::member(
                "list_a_index_of_int",
                vec![Type::list(a()), a()],
                Type::Int,
                list_index_of,
            )],
        ),
        Function::new(
            "lastIndexOf",
            vec![Overload::member(
                "list_a_last_index_of_int",
                vec![Type::list(a()), a()],
                Type::Int,
                list_last_index_of,
            )],
        ),
    ]
}

/// cel-go's `traits.Comparer`: whether a value can be ordered at all.
pub fn is_comparable(v: &Val) -> bool {
    matches!(
        v,
        Val::Int(_)
            | Val::Uint(_)
            | Val::Double(_)
            | Val::Bool(_)
            | Val::String(_)
            | Val::Bytes(_)
            | Val::Duration(_)
            | Val::Timestamp(_)
    )
}

/// cel-go's `Compare`: the order of `a` and `b`, or `None` when cel-go answers with an
/// error (different types, NaN, not comparable). Numbers compare across int/uint/double.
pub fn compare(a: &Val, b: &Val) -> Option<Ordering> {
    match (a, b) {
        (
            Val::Int(_) | Val::Uint(_) | Val::Double(_),
            Val::Int(_) | Val::Uint(_) | Val::Double(_),
        ) => compare_numbers(a, b),
        (Val::Bool(x), Val::Bool(y)) => Some(x.cmp(y)),
        (Val::String(x), Val::String(y)) => Some(x.as_str().as_bytes().cmp(y.as_str().as_bytes())),
        (Val::Bytes(x), Val::Bytes(y)) => Some(x[..].cmp(&y[..])),
        (Val::Duration(x), Val::Duration(y)) => Some(x.cmp(y)),
        (Val::Timestamp(x), Val::Timestamp(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

fn list_items<'a>(v: Option<&Val<'a>>) -> Result<Vec<Val<'a>>, EvalError> {
    match v {
        Some(Val::List(l)) => l.try_items(),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn list_is_sorted<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let items = list_items(args.first())?;
    let mut prev: Option<&Val> = None;
    for next in &items {
        if !is_comparable(next) {
            return Err(EvalError::no_such_overload());
        }
        if let Some(p) = prev {
            if compare(p, next) == Some(Ordering::Greater) {
                return Ok(Val::Bool(false));
            }
        }
        prev = Some(next);
    }
    Ok(Val::Bool(true))
}

/// min/max: keeps the first element, replacing it by each later one that compares as
/// `prefer` against it (errors from mixed types are ignored, as cel-go does).
fn extreme<'a>(args: &[Val<'a>], name: &str, replace_when: Ordering) -> EvalResult<'a> {
    let items = list_items(args.first())?;
    let mut result: Option<Val<'a>> = None;
    for next in items {
        if !is_comparable(&next) {
            return Err(EvalError::no_such_overload());
        }
        match &result {
            None => result = Some(next),
            Some(r) => {
                if compare(r, &next) == Some(replace_when) {
                    result = Some(next);
                }
            }
        }
    }
    result.ok_or_else(|| EvalError::new(format!("{} called on empty list", name)))
}

fn list_max<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    extreme(args, "max", Ordering::Less)
}

fn list_min<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    extreme(args, "min", Ordering::Greater)
}

/// `a + b` for the summable types, with cel-go's overflow errors.
fn add<'a>(a: &Val<'a>, b: &Val<'a>) -> EvalResult<'a> {
    match (a, b) {
        (Val::Int(x), Val::Int(y)) => x
            .checked_add(*y)
            .map(Val::Int)
            .ok_or_else(|| EvalError::new("integer overflow")),
        (Val::Uint(x), Val::Uint(y)) => x
            .checked_add(*y)
            .map(Val::Uint)
            .ok_or_else(|| EvalError::new("unsigned integer overflow")),
        (Val::Double(x), Val::Double(y)) => Ok(Val::Double(x + y)),
        (Val::Duration(x), Val::Duration(y)) => {
            x.0.checked_add(y.0)
                .map(|d| Val::Duration(Duration(d)))
                .ok_or_else(|| EvalError::new("integer overflow"))
        }
        _ => Err(EvalError::no_such_overload()),
    }
}

/// The sum, starting from the zero of the overload cel-go dispatches to: for a list
/// typed `dyn` at check time that is the one matching the first element's type.
fn sum<'a>(args: &[Val<'a>], zero: Val<'a>) -> EvalResult<'a> {
    let items = list_items(args.first())?;
    let mut acc = match items.first() {
        None => zero,
        Some(Val::Int(_)) => Val::Int(0),
        Some(Val::Uint(_)) => Val::Uint(0),
        Some(Val::Double(_)) => Val::Double(0.0),
        Some(Val::Duration(_)) => Val::Duration(Duration(0)),
        Some(_) => return Err(EvalError::no_such_overload()),
    };
    for next in &items {
        acc = add(&acc, next)?;
    }
    Ok(acc)
}

fn sum_int<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    sum(args, Val::Int(0))
}

fn sum_uint<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    sum(args, Val::Uint(0))
}

fn sum_double<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    sum(args, Val::Double(0.0))
}

fn sum_duration<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    sum(args, Val::Duration(Duration(0)))
}

fn list_index_of<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let items = list_items(args.first())?;
    let item = args.get(1).ok_or_else(EvalError::no_such_overload)?;
    Ok(Val::Int(
        items
            .iter()
            .position(|x| equal(x, item))
            .map(|i| i as i64)
            .unwrap_or(-1),
    ))
}

fn list_last_index_of<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let items = list_items(args.first())?;
    let item = args.get(1).ok_or_else(EvalError::no_such_overload)?;
    Ok(Val::Int(
        items
            .iter()
            .rposition(|x| equal(x, item))
            .map(|i| i as i64)
            .unwrap_or(-1),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64]) -> Val<'static> {
        Val::list(v.iter().map(|i| Val::Int(*i)).collect())
    }

    fn show(r: EvalResult) -> String {
        match r {
            Ok(v) => format!("{:?}", v),
            Err(e) => format!("error: {}", e),
        }
    }

    #[test]
    fn sorted() {
        assert_eq!(show(list_is_sorted(&[ints(&[1, 2, 2, 3])])), "true");
        assert_eq!(show(list_is_sorted(&[ints(&[2, 1])])), "false");
        assert_eq!(show(list_is_sorted(&[ints(&[])])), "true");
        let bools = Val::list(vec![Val::Bool(false), Val::Bool(true), Val::Bool(false)]);
        assert_eq!(show(list_is_sorted(&[bools])), "false");
        // Mixed types are ignored, as cel-go's Compare errors are.
        let mixed = Val::list(vec![Val::Int(1), Val::str("a")]);
        assert_eq!(show(list_is_sorted(&[mixed])), "true");
        let nulls = Val::list(vec![Val::Null]);
        assert_eq!(show(list_is_sorted(&[nulls])), "error: no such overload");
    }

    #[test]
    fn min_max() {
        assert_eq!(show(list_max(&[ints(&[1, 5, 3])])), "5");
        assert_eq!(show(list_min(&[ints(&[4, 1, 3])])), "1");
        assert_eq!(
            show(list_max(&[ints(&[])])),
            "error: max called on empty list"
        );
        assert_eq!(
            show(list_min(&[ints(&[])])),
            "error: min called on empty list"
        );
        let strs = Val::list(vec![Val::str("b"), Val::str("c"), Val::str("a")]);
        assert_eq!(show(list_max(&[strs])), "\"c\"");
        let mixed = Val::list(vec![Val::Int(2), Val::Double(2.5), Val::Uint(1)]);
        assert_eq!(show(list_max(&[mixed.clone()])), "2.5");
        assert_eq!(show(list_min(&[mixed])), "1u");
    }

    #[test]
    fn sums() {
        assert_eq!(show(sum_int(&[ints(&[1, 2, 3])])), "6");
        assert_eq!(show(sum_int(&[ints(&[])])), "0");
        assert_eq!(show(sum_double(&[ints(&[])])), "0.0");
        assert_eq!(
            show(sum_int(&[ints(&[i64::MAX, 1])])),
            "error: integer overflow"
        );
        let doubles = Val::list(vec![Val::Double(1.0), Val::Double(2.0)]);
        // A dyn list dispatched to the int overload sums as doubles, like cel-go.
        assert_eq!(show(sum_int(&[doubles])), "3.0");
        let durs = Val::list(vec![
            Val::Duration(Duration(60_000_000_000)),
            Val::Duration(Duration(1_000_000_000)),
        ]);
        assert_eq!(show(sum_duration(&[durs])), "duration(61000000000ns)");
        let mixed = Val::list(vec![Val::Int(1), Val::Double(2.0)]);
        assert_eq!(show(sum_int(&[mixed])), "error: no such overload");
        let us = Val::list(vec![Val::Uint(u64::MAX), Val::Uint(1)]);
        assert_eq!(show(sum_uint(&[us])), "error: unsigned integer overflow");
    }

    #[test]
    fn index_of() {
        assert_eq!(
            show(list_index_of(&[ints(&[1, 2, 2, 3]), Val::Int(2)])),
            "1"
        );
        assert_eq!(
            show(list_last_index_of(&[ints(&[1, 2, 2, 3]), Val::Int(2)])),
            "2"
        );
        assert_eq!(show(list_index_of(&[ints(&[1]), Val::Double(1.1)])), "-1");
        assert_eq!(show(list_index_of(&[ints(&[1, 2]), Val::Double(2.0)])), "1");
        let nested = Val::list(vec![ints(&[1]), ints(&[2])]);
        assert_eq!(show(list_index_of(&[nested, ints(&[2])])), "1");
    }
}
