//! The CEL standard library (cel-go `common/stdlib/standard.go` declarations, runtime
//! semantics of `common/types`): operators, conversions, size, string and time functions.
//!
//! Runtime behaviour follows cel-go v0.26: checked integer arithmetic (`integer overflow`,
//! `unsigned integer overflow`, `division by zero`, `modulus by zero`), cross-type numeric
//! ordering (`NaN values cannot be ordered`), timestamps limited to years 1..9999
//! (`timestamp overflow`), conversions through Go's `strconv`/`time` parsers
//! (`type conversion error from 'string' to 'int'`), and indexing errors as cel-go's
//! attribute qualifiers word them (`index out of bounds: 3`, `no such key: k`).

use crate::cel::env::{EnvOptions, Function, Impl, Overload};
use crate::version::Feature;
use crate::cel::types::Type;
use crate::cel::value::{
    compare_numbers, equal, same_map_keys, Duration, EvalError, EvalResult, List, ListKind,
    Timestamp, Val,
};
use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::rc::Rc;
use crate::go::time::CivilTime;

/// The earliest second of a valid timestamp (0001-01-01T00:00:00Z).
pub const MIN_UNIX_TIME: i64 = -62_135_596_800;
/// The last second of a valid timestamp (9999-12-31T23:59:59Z).
pub const MAX_UNIX_TIME: i64 = 253_402_300_799;

/// Concatenations producing more elements (or bytes) than this would cost more than the
/// per-call limit (cel-go charges 0.1 per element traversed), so they are refused up front.
const MAX_CONCAT: usize = 10_000_000;

/// The most elements a list concatenation may produce. cel-go concatenates lists in O(1)
/// (a view over both operands, charged one cost unit), so the budget does not bound their
/// growth: `[l + l].map(a, [a + a].map(…))` doubles per level for a few units each. crdlab
/// copies, so it refuses (as a cost-limit error) lists past 4,000,000 elements: twice the
/// most a 3 MiB request can hold (`[0,0,…]`), a peak of about 250 MiB. Where cel-go would
/// go on (with its views) crdlab answers the cost-limit error: a documented difference.
pub(crate) const MAX_LIST_CONCAT: usize = 4_000_000;

const NANOS_PER_SECOND: i64 = 1_000_000_000;

fn nso<'a>() -> EvalResult<'a> {
    Err(EvalError::no_such_overload())
}

fn fail<'a>(msg: impl Into<String>) -> EvalResult<'a> {
    Err(EvalError::new(msg))
}

fn int_overflow() -> EvalError {
    EvalError::new("integer overflow")
}

fn uint_overflow() -> EvalError {
    EvalError::new("unsigned integer overflow")
}

fn timestamp_overflow() -> EvalError {
    EvalError::new("timestamp overflow")
}

/// cel-go's `type conversion error from 'X' to 'Y'`.
fn conversion_error<'a>(from: &str, to: &str) -> EvalResult<'a> {
    fail(format!("type conversion error from '{}' to '{}'", from, to))
}

// ------------------------------------------------------------------ declarations

/// The functions this library declares at the environment's compatibility version.
pub fn functions(opts: &EnvOptions) -> Vec<Function> {
    use Type::{Bool, Bytes, Double, Dyn, Int, String as Str, Uint};
    // cel-go v0.12 (1.25–1.27) words a list index outside the list as its list's `Get` does.
    let index: Impl = if opts.code_has(Feature::IndexOutOfBoundsText) { index } else { index_v012 };
    let a = || Type::param("A");
    let b = || Type::param("B");
    let la = || Type::list(Type::param("A"));
    let mab = || Type::map(Type::param("A"), Type::param("B"));
    let ts = || Type::Timestamp;
    let du = || Type::Duration;
    let g = Overload::global;
    let m = Overload::member;

    let mut out = vec![
        // Logical operators: evaluated by the interpreter itself (non-strict).
        Function::new(
            "_?_:_",
            vec![Overload::special(
                "conditional",
                false,
                vec![Bool, a(), a()],
                a(),
            )],
        ),
        Function::new(
            "_&&_",
            vec![Overload::special(
                "logical_and",
                false,
                vec![Bool, Bool],
                Bool,
            )],
        ),
        Function::new(
            "_||_",
            vec![Overload::special(
                "logical_or",
                false,
                vec![Bool, Bool],
                Bool,
            )],
        ),
        Function::new("!_", vec![g("logical_not", vec![Bool], Bool, logical_not)]),
        Function::new(
            "@not_strictly_false",
            vec![Overload::special(
                "not_strictly_false",
                false,
                vec![Bool],
                Bool,
            )],
        ),
        // Equality.
        Function::new("_==_", vec![g("equals", vec![a(), a()], Bool, equals)]),
        Function::new(
            "_!=_",
            vec![g("not_equals", vec![a(), a()], Bool, not_equals)],
        ),
        // Arithmetic.
        Function::new(
            "_+_",
            vec![
                g("add_bytes", vec![Bytes, Bytes], Bytes, add),
                g("add_double", vec![Double, Double], Double, add),
                g("add_duration_duration", vec![du(), du()], du(), add),
                g("add_duration_timestamp", vec![du(), ts()], ts(), add),
                g("add_timestamp_duration", vec![ts(), du()], ts(), add),
                g("add_int64", vec![Int, Int], Int, add),
                g("add_list", vec![la(), la()], la(), add),
                g("add_string", vec![Str, Str], Str, add),
                g("add_uint64", vec![Uint, Uint], Uint, add),
            ],
        ),
        Function::new(
            "_/_",
            vec![
                g("divide_double", vec![Double, Double], Double, divide),
                g("divide_int64", vec![Int, Int], Int, divide),
                g("divide_uint64", vec![Uint, Uint], Uint, divide),
            ],
        ),
        Function::new(
            "_%_",
            vec![
                g("modulo_int64", vec![Int, Int], Int, modulo),
                g("modulo_uint64", vec![Uint, Uint], Uint, modulo),
            ],
        ),
        Function::new(
            "_*_",
            vec![
                g("multiply_double", vec![Double, Double], Double, multiply),
                g("multiply_int64", vec![Int, Int], Int, multiply),
                g("multiply_uint64", vec![Uint, Uint], Uint, multiply),
            ],
        ),
        Function::new(
            "-_",
            vec![
                g("negate_double", vec![Double], Double, negate),
                g("negate_int64", vec![Int], Int, negate),
            ],
        ),
        Function::new(
            "_-_",
            vec![
                g("subtract_double", vec![Double, Double], Double, subtract),
                g(
                    "subtract_duration_duration",
                    vec![du(), du()],
                    du(),
                    subtract,
                ),
                g("subtract_int64", vec![Int, Int], Int, subtract),
                g(
                    "subtract_timestamp_duration",
                    vec![ts(), du()],
                    ts(),
                    subtract,
                ),
                g(
                    "subtract_timestamp_timestamp",
                    vec![ts(), ts()],
                    du(),
                    subtract,
                ),
                g("subtract_uint64", vec![Uint, Uint], Uint, subtract),
            ],
        ),
    ];

    // Relations.
    macro_rules! relation {
        ($name:literal, $p:literal, $imp:expr) => {{
            let imp: Impl = $imp;
            let cross = opts.cross_type_numeric;
            let mut o = vec![
                g(concat!($p, "_bool"), vec![Bool, Bool], Bool, imp),
                g(concat!($p, "_int64"), vec![Int, Int], Bool, imp),
            ];
            if cross {
                o.push(g(
                    concat!($p, "_int64_double"),
                    vec![Int, Double],
                    Bool,
                    imp,
                ));
                o.push(g(concat!($p, "_int64_uint64"), vec![Int, Uint], Bool, imp));
            }
            o.push(g(concat!($p, "_uint64"), vec![Uint, Uint], Bool, imp));
            if cross {
                o.push(g(
                    concat!($p, "_uint64_double"),
                    vec![Uint, Double],
                    Bool,
                    imp,
                ));
                o.push(g(concat!($p, "_uint64_int64"), vec![Uint, Int], Bool, imp));
            }
            o.push(g(concat!($p, "_double"), vec![Double, Double], Bool, imp));
            if cross {
                o.push(g(
                    concat!($p, "_double_int64"),
                    vec![Double, Int],
                    Bool,
                    imp,
                ));
                o.push(g(
                    concat!($p, "_double_uint64"),
                    vec![Double, Uint],
                    Bool,
                    imp,
                ));
            }
            o.push(g(concat!($p, "_string"), vec![Str, Str], Bool, imp));
            o.push(g(concat!($p, "_bytes"), vec![Bytes, Bytes], Bool, imp));
            o.push(g(concat!($p, "_timestamp"), vec![ts(), ts()], Bool, imp));
            o.push(g(concat!($p, "_duration"), vec![du(), du()], Bool, imp));
            Function::new($name, o)
        }};
    }
    out.push(relation!("_<_", "less", less));
    out.push(relation!("_<=_", "less_equals", less_equals));
    out.push(relation!("_>_", "greater", greater));
    out.push(relation!("_>=_", "greater_equals", greater_equals));

    out.extend([
        // Indexing and membership.
        Function::new(
            "_[_]",
            vec![
                g("index_list", vec![la(), Int], a(), index),
                g("index_map", vec![mab(), a()], b(), index),
            ],
        ),
        Function::new(
            "@in",
            vec![
                g("in_list", vec![a(), la()], Bool, in_aggregate),
                g("in_map", vec![a(), mab()], Bool, in_aggregate),
            ],
        ),
        Function::new(
            "size",
            vec![
                g("size_bytes", vec![Bytes], Int, size),
                m("bytes_size", vec![Bytes], Int, size),
                g("size_list", vec![la()], Int, size),
                m("list_size", vec![la()], Int, size),
                g("size_map", vec![mab()], Int, size),
                m("map_size", vec![mab()], Int, size),
                g("size_string", vec![Str], Int, size),
                m("string_size", vec![Str], Int, size),
            ],
        ),
        // Conversions.
        Function::new(
            "type",
            vec![g("type", vec![a()], Type::type_of(a()), type_of)],
        ),
        Function::new(
            "bool",
            vec![
                g("bool_to_bool", vec![Bool], Bool, identity),
                g("string_to_bool", vec![Str], Bool, to_bool),
            ],
        ),
        Function::new(
            "bytes",
            vec![
                g("bytes_to_bytes", vec![Bytes], Bytes, identity),
                g("string_to_bytes", vec![Str], Bytes, to_bytes),
            ],
        ),
        Function::new(
            "double",
            vec![
                g("double_to_double", vec![Double], Double, identity),
                g("int64_to_double", vec![Int], Double, to_double),
                g("string_to_double", vec![Str], Double, to_double),
                g("uint64_to_double", vec![Uint], Double, to_double),
            ],
        ),
        Function::new(
            "duration",
            vec![
                g("duration_to_duration", vec![du()], du(), identity),
                g("int64_to_duration", vec![Int], du(), to_duration),
                g("string_to_duration", vec![Str], du(), to_duration),
            ],
        ),
        Function::new("dyn", vec![g("to_dyn", vec![a()], Dyn, identity)]),
        Function::new(
            "int",
            vec![
                g("int64_to_int64", vec![Int], Int, identity),
                g("double_to_int64", vec![Double], Int, to_int),
                g("duration_to_int64", vec![du()], Int, to_int),
                g("string_to_int64", vec![Str], Int, to_int),
                g("timestamp_to_int64", vec![ts()], Int, to_int),
                g("uint64_to_int64", vec![Uint], Int, to_int),
            ],
        ),
        Function::new(
            "string",
            vec![
                g("string_to_string", vec![Str], Str, identity),
                g("bool_to_string", vec![Bool], Str, to_string),
                g("bytes_to_string", vec![Bytes], Str, to_string),
                g("double_to_string", vec![Double], Str, to_string),
                g("duration_to_string", vec![du()], Str, to_string),
                g("int64_to_string", vec![Int], Str, to_string),
                g("timestamp_to_string", vec![ts()], Str, to_string),
                g("uint64_to_string", vec![Uint], Str, to_string),
            ],
        ),
        Function::new(
            "timestamp",
            vec![
                g("timestamp_to_timestamp", vec![ts()], ts(), identity),
                g("int64_to_timestamp", vec![Int], ts(), to_timestamp),
                g("string_to_timestamp", vec![Str], ts(), to_timestamp),
            ],
        ),
        Function::new(
            "uint",
            vec![
                g("uint64_to_uint64", vec![Uint], Uint, identity),
                g("double_to_uint64", vec![Double], Uint, to_uint),
                g("int64_to_uint64", vec![Int], Uint, to_uint),
                g("string_to_uint64", vec![Str], Uint, to_uint),
            ],
        ),
        // String functions.
        Function::new(
            "contains",
            vec![m("contains_string", vec![Str, Str], Bool, contains)],
        ),
        Function::new(
            "endsWith",
            vec![m("ends_with_string", vec![Str, Str], Bool, ends_with)],
        ),
        Function::new(
            "startsWith",
            vec![m("starts_with_string", vec![Str, Str], Bool, starts_with)],
        ),
        Function::new(
            "matches",
            // The global form came with cel-go v0.13 (google/cel-go#589); 1.25–1.27's
            // v0.12 has the member form only.
            [
                Some(g("matches", vec![Str, Str], Bool, matches_fn))
                    .filter(|_| opts.code_has(Feature::GlobalMatches)),
                Some(m("matches_string", vec![Str, Str], Bool, matches_fn)),
            ]
            .into_iter()
            .flatten()
            .collect(),
        ),
        // Timestamp / duration accessors.
        Function::new(
            "getFullYear",
            vec![
                m("timestamp_to_year", vec![ts()], Int, get_full_year),
                m(
                    "timestamp_to_year_with_tz",
                    vec![ts(), Str],
                    Int,
                    get_full_year,
                ),
            ],
        ),
        Function::new(
            "getMonth",
            vec![
                m("timestamp_to_month", vec![ts()], Int, get_month),
                m(
                    "timestamp_to_month_with_tz",
                    vec![ts(), Str],
                    Int,
                    get_month,
                ),
            ],
        ),
        Function::new(
            "getDayOfYear",
            vec![
                m("timestamp_to_day_of_year", vec![ts()], Int, get_day_of_year),
                m(
                    "timestamp_to_day_of_year_with_tz",
                    vec![ts(), Str],
                    Int,
                    get_day_of_year,
                ),
            ],
        ),
        Function::new(
            "getDayOfMonth",
            vec![
                m(
                    "timestamp_to_day_of_month",
                    vec![ts()],
                    Int,
                    get_day_of_month,
                ),
                m(
                    "timestamp_to_day_of_month_with_tz",
                    vec![ts(), Str],
                    Int,
                    get_day_of_month,
                ),
            ],
        ),
        Function::new(
            "getDate",
            vec![
                m(
                    "timestamp_to_day_of_month_1_based",
                    vec![ts()],
                    Int,
                    get_date,
                ),
                m(
                    "timestamp_to_day_of_month_1_based_with_tz",
                    vec![ts(), Str],
                    Int,
                    get_date,
                ),
            ],
        ),
        Function::new(
            "getDayOfWeek",
            vec![
                m("timestamp_to_day_of_week", vec![ts()], Int, get_day_of_week),
                m(
                    "timestamp_to_day_of_week_with_tz",
                    vec![ts(), Str],
                    Int,
                    get_day_of_week,
                ),
            ],
        ),
        Function::new(
            "getHours",
            vec![
                m("timestamp_to_hours", vec![ts()], Int, get_hours),
                m(
                    "timestamp_to_hours_with_tz",
                    vec![ts(), Str],
                    Int,
                    get_hours,
                ),
                m("duration_to_hours", vec![du()], Int, get_hours),
            ],
        ),
        Function::new(
            "getMinutes",
            vec![
                m("timestamp_to_minutes", vec![ts()], Int, get_minutes),
                m(
                    "timestamp_to_minutes_with_tz",
                    vec![ts(), Str],
                    Int,
                    get_minutes,
                ),
                m("duration_to_minutes", vec![du()], Int, get_minutes),
            ],
        ),
        Function::new(
            "getSeconds",
            vec![
                m("timestamp_to_seconds", vec![ts()], Int, get_seconds),
                m("timestamp_to_seconds_tz", vec![ts(), Str], Int, get_seconds),
                m("duration_to_seconds", vec![du()], Int, get_seconds),
            ],
        ),
        Function::new(
            "getMilliseconds",
            vec![
                m(
                    "timestamp_to_milliseconds",
                    vec![ts()],
                    Int,
                    get_milliseconds,
                ),
                m(
                    "timestamp_to_milliseconds_with_tz",
                    vec![ts(), Str],
                    Int,
                    get_milliseconds,
                ),
                m(
                    "duration_to_milliseconds",
                    vec![du()],
                    Int,
                    get_milliseconds,
                ),
            ],
        ),
    ]);
    out
}

// ------------------------------------------------------------------ logic and equality

fn logical_not<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Bool(b)] => Ok(Val::Bool(!b)),
        _ => nso(),
    }
}

fn equals<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [x, y] => Ok(Val::Bool(equal(x, y))),
        _ => nso(),
    }
}

fn not_equals<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [x, y] => Ok(Val::Bool(!equal(x, y))),
        _ => nso(),
    }
}

fn identity<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [x] => Ok(x.clone()),
        _ => nso(),
    }
}

// ------------------------------------------------------------------ arithmetic

fn add<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Int(x), Val::Int(y)] => x.checked_add(*y).map(Val::Int).ok_or_else(int_overflow),
        [Val::Uint(x), Val::Uint(y)] => x.checked_add(*y).map(Val::Uint).ok_or_else(uint_overflow),
        [Val::Double(x), Val::Double(y)] => Ok(Val::Double(x + y)),
        [Val::String(x), Val::String(y)] => {
            let (x, y) = (x.as_str(), y.as_str());
            if x.len().saturating_add(y.len()) > MAX_CONCAT {
                return Err(EvalError::cost_limit());
            }
            Ok(Val::String(crate::cel::value::Str::Owned(concat_str(x, y))))
        }
        [Val::Bytes(x), Val::Bytes(y)] => {
            if x.len().saturating_add(y.len()) > MAX_CONCAT {
                return Err(EvalError::cost_limit());
            }
            let mut v = Vec::with_capacity(x.len() + y.len());
            v.extend_from_slice(x);
            v.extend_from_slice(y);
            Ok(Val::Bytes(Rc::from(v)))
        }
        [Val::List(x), Val::List(y)] => concat_lists(x, y),
        [Val::Duration(x), Val::Duration(y)] => {
            x.0.checked_add(y.0)
                .map(|d| Val::Duration(Duration(d)))
                .ok_or_else(int_overflow)
        }
        [Val::Timestamp(t), Val::Duration(d)] | [Val::Duration(d), Val::Timestamp(t)] => {
            add_timestamp_duration(*t, *d).map(Val::Timestamp)
        }
        _ => nso(),
    }
}

/// `x + y` as a shared string made in one allocation (`Rc::from(String)` makes a second and
/// copies into it): a short one is put together on the stack first.
fn concat_str(x: &str, y: &str) -> Rc<str> {
    const SHORT: usize = 128;
    let n = x.len() + y.len();
    if n <= SHORT {
        let mut buf = [0u8; SHORT];
        buf[..x.len()].copy_from_slice(x.as_bytes());
        buf[x.len()..n].copy_from_slice(y.as_bytes());
        // Two strings' bytes one after the other are a string: this never fails.
        if let Ok(s) = std::str::from_utf8(&buf[..n]) {
            return Rc::from(s);
        }
    }
    let mut s = String::with_capacity(n);
    s.push_str(x);
    s.push_str(y);
    Rc::from(s)
}

/// `x + y` for a comprehension's accumulator `x` (`@result + [f(v)]` of `map`, `filter`,
/// `transformList`): the same value as `_+_`, but an atomic list is extended in place when
/// the accumulator holds the only reference to it, as cel-go appends to its mutable
/// accumulator list, so building an n-element list is linear. Anything else goes through
/// `_+_` unchanged.
pub fn concat_accumulator<'a>(x: Val<'a>, y: &Val<'a>) -> EvalResult<'a> {
    match (x, y) {
        (
            Val::List(List::Owned {
                mut items,
                kind: crate::cel::value::ListKind::Atomic,
                keys,
            }),
            Val::List(yl),
        ) if !items.is_empty() => {
            if items.len().saturating_add(yl.len()) > MAX_LIST_CONCAT {
                return Err(EvalError::cost_limit());
            }
            match yl {
                // A computed list's elements are values already: no vector in between.
                List::Owned { items: tail, .. } => {
                    Rc::make_mut(&mut items).extend(tail.iter().cloned())
                }
                List::Json { .. } => {
                    let tail = yl.try_items()?;
                    Rc::make_mut(&mut items).extend(tail);
                }
            }
            Ok(Val::List(List::Owned {
                items,
                kind: crate::cel::value::ListKind::Atomic,
                keys,
            }))
        }
        (x, y) => add(&[x, y.clone()]),
    }
}

/// [`concat_accumulator`] of `x` and the one-element list `[v]` (the step of `map` and
/// `filter`), without making that list when `x` is extended in place. For the compact plan,
/// which the playground's module leaves out.
#[cfg(any(not(target_arch = "wasm32"), feature = "wasm"))]
pub fn append_accumulator<'a>(x: Val<'a>, v: Val<'a>) -> EvalResult<'a> {
    match x {
        Val::List(List::Owned { mut items, kind: crate::cel::value::ListKind::Atomic, keys }) if !items.is_empty() => {
            if items.len().saturating_add(1) > MAX_LIST_CONCAT {
                return Err(EvalError::cost_limit());
            }
            Rc::make_mut(&mut items).push(v);
            Ok(Val::List(List::Owned { items, kind: crate::cel::value::ListKind::Atomic, keys }))
        }
        x => concat_accumulator(x, &Val::list(vec![v])),
    }
}

/// `list + list`: cel-go returns an operand unchanged when the other is empty; otherwise
/// the Kubernetes list types decide (set lists union, map lists merge by key).
fn concat_lists<'a>(x: &List<'a>, y: &List<'a>) -> EvalResult<'a> {
    if x.len().saturating_add(y.len()) > MAX_LIST_CONCAT {
        return Err(EvalError::cost_limit());
    }
    if y.is_empty() {
        return Ok(Val::List(x.clone()));
    }
    if x.is_empty() {
        return Ok(Val::List(y.clone()));
    }
    add_lists(x, y)
}

/// `list + list` for Kubernetes list types: set lists union, map lists merge by key.
fn add_lists<'a>(a: &List<'a>, b: &List<'a>) -> EvalResult<'a> {
    let (kind, keys) = a.kind();
    let mut items = a.try_items()?;
    match kind {
        ListKind::Atomic => items.extend(b.try_items()?),
        ListKind::Set => {
            for v in b.try_items()? {
                if !items.iter().any(|x| equal(x, &v)) {
                    items.push(v);
                }
            }
        }
        ListKind::Map => {
            let ks = keys.unwrap_or(&[]);
            for v in b.try_items()? {
                match items
                    .iter()
                    .position(|x| same_map_keys(x, &v, ks))
                {
                    Some(i) => items[i] = v,
                    None => items.push(v),
                }
            }
        }
    }
    Ok(Val::List(List::Owned {
        items: Rc::new(items),
        kind,
        keys,
    }))
}

fn subtract<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Int(x), Val::Int(y)] => x.checked_sub(*y).map(Val::Int).ok_or_else(int_overflow),
        [Val::Uint(x), Val::Uint(y)] => x.checked_sub(*y).map(Val::Uint).ok_or_else(uint_overflow),
        [Val::Double(x), Val::Double(y)] => Ok(Val::Double(x - y)),
        [Val::Duration(x), Val::Duration(y)] => {
            x.0.checked_sub(y.0)
                .map(|d| Val::Duration(Duration(d)))
                .ok_or_else(int_overflow)
        }
        [Val::Timestamp(t), Val::Duration(d)] => {
            let neg = d.0.checked_neg().ok_or_else(int_overflow)?;
            add_timestamp_duration(*t, Duration(neg)).map(Val::Timestamp)
        }
        [Val::Timestamp(x), Val::Timestamp(y)] => subtract_timestamps(*x, *y).map(Val::Duration),
        _ => nso(),
    }
}

fn multiply<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Int(x), Val::Int(y)] => x.checked_mul(*y).map(Val::Int).ok_or_else(int_overflow),
        [Val::Uint(x), Val::Uint(y)] => x.checked_mul(*y).map(Val::Uint).ok_or_else(uint_overflow),
        [Val::Double(x), Val::Double(y)] => Ok(Val::Double(x * y)),
        _ => nso(),
    }
}

fn divide<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Int(_), Val::Int(0)] | [Val::Uint(_), Val::Uint(0)] => fail("division by zero"),
        [Val::Int(x), Val::Int(y)] => x.checked_div(*y).map(Val::Int).ok_or_else(int_overflow),
        [Val::Uint(x), Val::Uint(y)] => Ok(Val::Uint(x / y)),
        [Val::Double(x), Val::Double(y)] => Ok(Val::Double(x / y)),
        _ => nso(),
    }
}

fn modulo<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Int(_), Val::Int(0)] | [Val::Uint(_), Val::Uint(0)] => fail("modulus by zero"),
        [Val::Int(x), Val::Int(y)] => x.checked_rem(*y).map(Val::Int).ok_or_else(int_overflow),
        [Val::Uint(x), Val::Uint(y)] => Ok(Val::Uint(x % y)),
        _ => nso(),
    }
}

fn negate<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Int(x)] => x.checked_neg().map(Val::Int).ok_or_else(int_overflow),
        [Val::Double(x)] => Ok(Val::Double(-x)),
        _ => nso(),
    }
}

/// cel-go `addTimeDurationChecked`: seconds and nanoseconds added separately, the result
/// limited to years 1..9999.
pub fn add_timestamp_duration(t: Timestamp, d: Duration) -> Result<Timestamp, EvalError> {
    let sec2 = d.0 / NANOS_PER_SECOND;
    let nsec2 = d.0 % NANOS_PER_SECOND;
    let mut sec = t.secs.checked_add(sec2).ok_or_else(int_overflow)?;
    let mut nsec = t.nanos as i64 + nsec2;
    if !(0..NANOS_PER_SECOND).contains(&nsec) {
        sec = sec
            .checked_add(nsec / NANOS_PER_SECOND)
            .ok_or_else(int_overflow)?;
        nsec -= (nsec / NANOS_PER_SECOND) * NANOS_PER_SECOND;
        if nsec < 0 {
            sec = sec.checked_sub(1).ok_or_else(int_overflow)?;
            nsec += NANOS_PER_SECOND;
        }
    }
    if !(MIN_UNIX_TIME..=MAX_UNIX_TIME).contains(&sec) {
        return Err(timestamp_overflow());
    }
    // Go's `Time.Add` keeps the location: the offset carries over.
    Ok(Timestamp {
        secs: sec,
        nanos: nsec as u32,
        offset: t.offset,
    })
}

/// cel-go `subtractTimeChecked`: the difference as a duration, `integer overflow` when it
/// does not fit in int64 nanoseconds.
pub fn subtract_timestamps(x: Timestamp, y: Timestamp) -> Result<Duration, EvalError> {
    let sec = x.secs.checked_sub(y.secs).ok_or_else(int_overflow)?;
    let nsec = x.nanos as i64 - y.nanos as i64;
    let tsec = sec.checked_mul(NANOS_PER_SECOND).ok_or_else(int_overflow)?;
    tsec.checked_add(nsec)
        .map(Duration)
        .ok_or_else(int_overflow)
}

// ------------------------------------------------------------------ ordering

/// cel-go's `Compare` between two values: same-kind values of the orderable types, and
/// numbers across int/uint/double. `NaN values cannot be ordered`; other combinations are
/// `no such overload`.
pub fn compare_values(x: &Val, y: &Val) -> Result<Ordering, EvalError> {
    match (x, y) {
        (Val::Bool(a), Val::Bool(b)) => Ok(a.cmp(b)),
        (Val::Int(a), Val::Int(b)) => Ok(a.cmp(b)),
        (Val::Uint(a), Val::Uint(b)) => Ok(a.cmp(b)),
        (
            Val::Int(_) | Val::Uint(_) | Val::Double(_),
            Val::Int(_) | Val::Uint(_) | Val::Double(_),
        ) => {
            let nan = |v: &Val| matches!(v, Val::Double(d) if d.is_nan());
            if nan(x) || nan(y) {
                return Err(EvalError::new("NaN values cannot be ordered"));
            }
            Ok(match (x, y) {
                (Val::Double(d), Val::Int(i)) => compare_double_int(*d, *i),
                (Val::Int(i), Val::Double(d)) => compare_double_int(*d, *i).reverse(),
                (Val::Double(d), Val::Uint(u)) => compare_double_uint(*d, *u),
                (Val::Uint(u), Val::Double(d)) => compare_double_uint(*d, *u).reverse(),
                (Val::Double(a), Val::Double(b)) => compare_doubles(*a, *b),
                _ => compare_numbers(x, y).unwrap_or(Ordering::Equal),
            })
        }
        (Val::String(a), Val::String(b)) => Ok(a.as_str().cmp(b.as_str())),
        (Val::Bytes(a), Val::Bytes(b)) => Ok(a.as_ref().cmp(b.as_ref())),
        (Val::Timestamp(a), Val::Timestamp(b)) => Ok((a.secs, a.nanos).cmp(&(b.secs, b.nanos))),
        (Val::Duration(a), Val::Duration(b)) => Ok(a.0.cmp(&b.0)),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// cel-go `compareDouble`: by `<` and `>` (callers rule NaN out).
fn compare_doubles(a: f64, b: f64) -> Ordering {
    if a < b {
        Ordering::Less
    } else if a > b {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// cel-go `compareDoubleInt`: doubles outside the int64 range order by range, others compare
/// with the int converted to a double (so `9223372036854775807 < 9223372036854775808.0` is
/// false, as cel-go and the conformance suite have it).
fn compare_double_int(d: f64, i: i64) -> Ordering {
    if d < i64::MIN as f64 {
        return Ordering::Less;
    }
    if d > i64::MAX as f64 {
        return Ordering::Greater;
    }
    compare_doubles(d, i as f64)
}

/// cel-go `compareDoubleUint`.
fn compare_double_uint(d: f64, u: u64) -> Ordering {
    if d < 0.0 {
        return Ordering::Less;
    }
    if d > u64::MAX as f64 {
        return Ordering::Greater;
    }
    compare_doubles(d, u as f64)
}

fn relation<'a>(args: &[Val<'a>], accept: fn(Ordering) -> bool) -> EvalResult<'a> {
    match args {
        [x, y] => compare_values(x, y).map(|o| Val::Bool(accept(o))),
        _ => nso(),
    }
}

fn less<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    relation(args, |o| o == Ordering::Less)
}

fn less_equals<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    relation(args, |o| o != Ordering::Greater)
}

fn greater<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    relation(args, |o| o == Ordering::Greater)
}

fn greater_equals<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    relation(args, |o| o != Ordering::Less)
}

// ------------------------------------------------------------------ indexing, membership, size

/// Go's `%v` of a CEL value, as cel-go embeds keys and indexes in error messages.
pub fn go_value_text(v: &Val) -> String {
    match v {
        Val::Null => "NULL_VALUE".into(),
        Val::Bool(b) => b.to_string(),
        Val::Int(i) => i.to_string(),
        Val::Uint(u) => u.to_string(),
        Val::Double(d) => crate::go::fmt::format_float_v(*d),
        Val::String(s) => s.as_str().to_string(),
        Val::Bytes(b) => {
            let parts: Vec<String> = b.iter().map(|x| x.to_string()).collect();
            format!("[{}]", parts.join(" "))
        }
        Val::Duration(d) => crate::cel::time_format::format_duration(*d),
        Val::Timestamp(t) => crate::cel::time_format::format_timestamp(*t),
        Val::Type(t) => t.to_string(),
        Val::Opaque(o) => o.to_canonical(),
        other => format!("{:?}", other),
    }
}

/// cel-go `IndexOrError`: an int, or a uint/double that converts to an int losslessly.
pub fn list_index(idx: &Val) -> Result<i64, EvalError> {
    match idx {
        Val::Int(i) => Ok(*i),
        Val::Uint(u) => i64::try_from(*u).map_err(|_| {
            EvalError::new(format!(
                "unsupported index value {} in list",
                go_value_text(idx)
            ))
        }),
        Val::Double(d) => {
            let i = *d as i64;
            if d.is_finite()
                && (i as f64) == *d
                && *d > -9.223_372_036_854_776e18
                && *d < 9.223_372_036_854_776e18
            {
                Ok(i)
            } else {
                Err(EvalError::new(format!(
                    "unsupported index value {} in list",
                    go_value_text(idx)
                )))
            }
        }
        other => Err(EvalError::new(format!(
            "unsupported index type '{}' in list",
            other.type_name()
        ))),
    }
}

/// `container[key]` as cel-go's attribute qualification evaluates it.
pub fn index_value<'a>(container: &Val<'a>, key: &Val<'a>) -> EvalResult<'a> {
    index_value_at(container, key, false)
}

/// [`index_value`]; `v012_text`: a list index outside the list is cel-go v0.12's
/// `index '100' out of range in list size '8'` (its list `Get`), not `index out of bounds:
/// 100` ([`Feature::IndexOutOfBoundsText`]).
fn index_value_at<'a>(container: &Val<'a>, key: &Val<'a>, v012_text: bool) -> EvalResult<'a> {
    match container {
        Val::List(l) => {
            let i = list_index(key)?;
            if i < 0 || i as u64 >= l.len() as u64 {
                if v012_text {
                    return fail(format!("index '{}' out of range in list size '{}'", i, l.len()));
                }
                return fail(format!("index out of bounds: {}", go_value_text(key)));
            }
            match l.get(i as usize) {
                Some(r) => r,
                None => fail(format!("index out of bounds: {}", go_value_text(key))),
            }
        }
        Val::Map(m) => match m.get(key) {
            Some(r) => r,
            None => fail(format!("no such key: {}", go_value_text(key))),
        },
        _ => fail(format!("no such key: {}", go_value_text(key))),
    }
}

fn index_v012<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [c, k] => index_value_at(c, k, true),
        _ => nso(),
    }
}

fn index<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [c, k] => index_value(c, k),
        _ => nso(),
    }
}

fn in_aggregate<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [x, Val::List(l)] => {
            for i in 0..l.len() {
                if let Some(Ok(v)) = l.get(i) {
                    if equal(x, &v) {
                        return Ok(Val::Bool(true));
                    }
                }
            }
            Ok(Val::Bool(false))
        }
        [x, Val::Map(m)] => Ok(Val::Bool(m.get(x).is_some())),
        _ => nso(),
    }
}

fn size<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let n = match args {
        [Val::String(s)] => s.as_str().chars().count(),
        [Val::Bytes(b)] => b.len(),
        [Val::List(l)] => l.len(),
        [Val::Map(m)] => m.len(),
        _ => return nso(),
    };
    Ok(Val::Int(n as i64))
}

// ------------------------------------------------------------------ conversions

fn type_of<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [x] => Ok(Val::Type(x.type_of())),
        _ => nso(),
    }
}

fn to_bool<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Bool(b)] => Ok(Val::Bool(*b)),
        [Val::String(s)] => match go_parse_bool(s.as_str()) {
            Some(b) => Ok(Val::Bool(b)),
            None => conversion_error("string", "bool"),
        },
        _ => nso(),
    }
}

fn to_bytes<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Bytes(b)] => Ok(Val::Bytes(b.clone())),
        [Val::String(s)] => Ok(Val::Bytes(Rc::from(s.as_str().as_bytes()))),
        _ => nso(),
    }
}

fn to_double<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Double(d)] => Ok(Val::Double(*d)),
        [Val::Int(i)] => Ok(Val::Double(*i as f64)),
        [Val::Uint(u)] => Ok(Val::Double(*u as f64)),
        [Val::String(s)] => match go_parse_float(s.as_str()) {
            Some(d) => Ok(Val::Double(d)),
            None => conversion_error("string", "double"),
        },
        _ => nso(),
    }
}

fn to_duration<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Duration(d)] => Ok(Val::Duration(*d)),
        [Val::String(s)] => match crate::cel::value::parse_duration(s.as_str()) {
            Some(d) => Ok(Val::Duration(d)),
            None => conversion_error("string", "google.protobuf.Duration"),
        },
        // cel-go declares int64_to_duration, but Int has no conversion to Duration.
        [Val::Int(_)] => conversion_error("int", "google.protobuf.Duration"),
        _ => nso(),
    }
}

fn to_int<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Int(i)] => Ok(Val::Int(*i)),
        [Val::Uint(u)] => i64::try_from(*u).map(Val::Int).map_err(|_| int_overflow()),
        [Val::Double(d)] => double_to_int(*d).map(Val::Int),
        [Val::Duration(d)] => Ok(Val::Int(d.0)),
        [Val::Timestamp(t)] => Ok(Val::Int(t.secs)),
        [Val::String(s)] => match go_parse_int(s.as_str()) {
            Some(i) => Ok(Val::Int(i)),
            None => conversion_error("string", "int"),
        },
        _ => nso(),
    }
}

/// cel-go `doubleToInt64Checked`: truncation, `integer overflow` outside (-2^63, 2^63).
pub fn double_to_int(d: f64) -> Result<i64, EvalError> {
    if !d.is_finite() || d <= -9.223_372_036_854_775_808e18 || d >= 9.223_372_036_854_775_808e18 {
        return Err(int_overflow());
    }
    Ok(d as i64)
}

/// cel-go `doubleToUint64Checked`: truncation, `unsigned integer overflow` outside [0, 2^64).
pub fn double_to_uint(d: f64) -> Result<u64, EvalError> {
    if !d.is_finite() || d < 0.0 || d >= 18_446_744_073_709_551_616.0 {
        return Err(uint_overflow());
    }
    Ok(d as u64)
}

fn to_uint<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Uint(u)] => Ok(Val::Uint(*u)),
        [Val::Int(i)] => u64::try_from(*i)
            .map(Val::Uint)
            .map_err(|_| uint_overflow()),
        [Val::Double(d)] => double_to_uint(*d).map(Val::Uint),
        [Val::String(s)] => match go_parse_uint(s.as_str()) {
            Some(u) => Ok(Val::Uint(u)),
            None => conversion_error("string", "uint"),
        },
        _ => nso(),
    }
}

/// `string(x)` as cel-go converts each type.
pub fn convert_to_string<'a>(v: &Val<'a>) -> EvalResult<'a> {
    Ok(match v {
        Val::String(s) => Val::String(s.clone()),
        Val::Bool(b) => Val::str(if *b { "true" } else { "false" }),
        Val::Int(i) => Val::string(i.to_string()),
        Val::Uint(u) => Val::string(u.to_string()),
        Val::Double(d) => Val::string(crate::go::fmt::format_float_v(*d)),
        Val::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => Val::str(s),
            Err(_) => return fail("invalid UTF-8 in bytes, cannot convert to string"),
        },
        Val::Duration(d) => Val::string(duration_seconds_text(*d)),
        Val::Timestamp(t) => Val::string(crate::cel::time_format::format_timestamp(*t)),
        _ => return nso(),
    })
}

fn to_string<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [x] => convert_to_string(x),
        _ => nso(),
    }
}

/// A duration as cel-go's `string(duration)`: seconds, shortest decimal, `s` suffix.
pub fn duration_seconds_text(d: Duration) -> String {
    format!("{}s", go_seconds(d))
}

fn to_timestamp<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Timestamp(t)] => Ok(Val::Timestamp(*t)),
        [Val::Int(i)] => {
            if !(MIN_UNIX_TIME..=MAX_UNIX_TIME).contains(i) {
                return Err(timestamp_overflow());
            }
            Ok(Val::Timestamp(Timestamp::utc(*i, 0)))
        }
        [Val::String(s)] => match go_parse_rfc3339(s.as_str()) {
            Some(t) => {
                if !(MIN_UNIX_TIME..=MAX_UNIX_TIME).contains(&t.secs) {
                    return Err(timestamp_overflow());
                }
                Ok(Val::Timestamp(t))
            }
            None => conversion_error("string", "google.protobuf.Timestamp"),
        },
        _ => nso(),
    }
}

// ------------------------------------------------------------------ Go parsers

/// Go `strconv.ParseBool`.
pub fn go_parse_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// Go `strconv.ParseInt(s, 10, 64)`.
pub fn go_parse_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Go `strconv.ParseUint(s, 10, 64)`: digits only, no sign.
pub fn go_parse_uint(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Go `strconv.ParseFloat(s, 64)`: decimal and hexadecimal literals with Go's underscore
/// rules, `Inf`/`Infinity`/`NaN` in any case; out-of-range values are errors.
pub fn go_parse_float(s: &str) -> Option<f64> {
    if s.is_empty() {
        return None;
    }
    let (neg, body) = match s.as_bytes()[0] {
        b'+' => (false, &s[1..]),
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    let lower = body.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return Some(if neg {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    if lower == "nan" {
        // Go accepts NaN only without a sign.
        return if body.len() == s.len() {
            Some(f64::NAN)
        } else {
            None
        };
    }
    if !go_underscores_ok(s) {
        return None;
    }
    let cleaned: String = body.chars().filter(|c| *c != '_').collect();
    let value = if cleaned.len() > 2
        && cleaned.as_bytes()[0] == b'0'
        && (cleaned.as_bytes()[1] | 0x20) == b'x'
    {
        parse_hex_float(&cleaned[2..])?
    } else {
        let b = cleaned.as_bytes();
        let mut i = 0;
        let mut digits = 0;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
                digits += 1;
            }
        }
        if digits == 0 {
            return None;
        }
        if i < b.len() && (b[i] | 0x20) == b'e' {
            i += 1;
            if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
                i += 1;
            }
            let st = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i == st {
                return None;
            }
        }
        if i != b.len() {
            return None;
        }
        cleaned.parse::<f64>().ok()?
    };
    if value.is_infinite() {
        return None;
    }
    Some(if neg { -value } else { value })
}

/// Go `underscoreOK`: underscores only between digits (or after a base prefix).
fn go_underscores_ok(s: &str) -> bool {
    if !s.contains('_') {
        return true;
    }
    let mut b = s.as_bytes();
    if let Some((&c, rest)) = b.split_first() {
        if c == b'+' || c == b'-' {
            b = rest;
        }
    }
    let mut saw = b'^';
    let mut i = 0;
    let mut hex = false;
    if b.len() >= 2 && b[0] == b'0' && matches!(b[1] | 0x20, b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = (b[1] | 0x20) == b'x';
    }
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() || (hex && (c | 0x20).is_ascii_hexdigit()) {
            saw = b'0';
        } else if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else {
            if saw == b'_' {
                return false;
            }
            saw = b'!';
        }
        i += 1;
    }
    saw != b'_'
}

/// The part of a Go hexadecimal float after `0x`: mantissa with optional point, mandatory
/// binary exponent `p`.
fn parse_hex_float(s: &str) -> Option<f64> {
    let p = s.find(['p', 'P'])?;
    let (mant, exp) = (&s[..p], &s[p + 1..]);
    let exp_digits = exp.strip_prefix(['+', '-']).unwrap_or(exp);
    if exp_digits.is_empty() || !exp_digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut e: i64 = exp_digits.parse().unwrap_or(i64::MAX / 2).min(100_000);
    if exp.starts_with('-') {
        e = -e;
    }
    let mut value = 0f64;
    let mut seen_point = false;
    let mut digits = 0;
    for c in mant.chars() {
        if c == '.' {
            if seen_point {
                return None;
            }
            seen_point = true;
            continue;
        }
        let d = c.to_digit(16)?;
        value = value * 16.0 + d as f64;
        digits += 1;
        if seen_point {
            e -= 4;
        }
    }
    if digits == 0 {
        return None;
    }
    Some(value * 2f64.powi(e.clamp(-2000, 2000) as i32))
}

/// Go `time.Parse(time.RFC3339, s)` (the strict fast path and the general layout parser it
/// falls back to): `2006-01-02T15:04:05[.frac](Z|±hh:mm)`, one- or two-digit hours, a
/// fraction of any length (truncated to nanoseconds) after `.` or `,`.
pub fn go_parse_rfc3339(s: &str) -> Option<Timestamp> {
    let b = s.as_bytes();
    let digit = |i: usize| b.get(i).map(|c| c.is_ascii_digit()).unwrap_or(false);
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = b.get(r)?;
        let mut v = 0i64;
        for c in t {
            if !c.is_ascii_digit() {
                return None;
            }
            v = v * 10 + (c - b'0') as i64;
        }
        Some(v)
    };
    let year = num(0..4)?;
    if b.get(4) != Some(&b'-') {
        return None;
    }
    let month = num(5..7)?;
    if b.get(7) != Some(&b'-') {
        return None;
    }
    let day = num(8..10)?;
    if b.get(10) != Some(&b'T') {
        return None;
    }
    // Hours: one or two digits.
    let mut i = 11;
    if !digit(i) {
        return None;
    }
    let hour = if digit(i + 1) {
        i += 2;
        num(11..13)?
    } else {
        i += 1;
        num(11..12)?
    };
    if b.get(i) != Some(&b':') {
        return None;
    }
    let minute = num(i + 1..i + 3)?;
    if b.get(i + 3) != Some(&b':') {
        return None;
    }
    let second = num(i + 4..i + 6)?;
    i += 6;
    let mut nanos: i64 = 0;
    if matches!(b.get(i), Some(b'.') | Some(b',')) && digit(i + 1) {
        let st = i + 1;
        let mut n = st;
        while digit(n) {
            n += 1;
        }
        let frac = &b[st..n.min(st + 9)];
        for c in frac {
            nanos = nanos * 10 + (c - b'0') as i64;
        }
        for _ in frac.len()..9 {
            nanos *= 10;
        }
        i = n;
    }
    let offset = match b.get(i) {
        Some(b'Z') => {
            i += 1;
            0
        }
        Some(&sign @ (b'+' | b'-')) => {
            if b.get(i + 3) != Some(&b':') {
                return None;
            }
            let oh = num(i + 1..i + 3)?;
            let om = num(i + 4..i + 6)?;
            if oh > 24 || om > 60 {
                return None;
            }
            i += 6;
            let o = (oh * 60 + om) * 60;
            if sign == b'-' {
                -o
            } else {
                o
            }
        }
        _ => return None,
    };
    if i != b.len() {
        return None;
    }
    if !(1..=12).contains(&month)
        || day < 1
        || day > crate::go::time::days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let secs =
        crate::go::time::days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second
            - offset;
    // The time stays in the zone it was written in (a fixed zone of that offset).
    Some(Timestamp {
        secs,
        nanos: nanos as u32,
        offset: offset as i32,
    })
}

// ------------------------------------------------------------------ strings

fn string_pair<'x, 'a>(args: &'x [Val<'a>]) -> Option<(&'x str, &'x str)> {
    match args {
        [Val::String(a), Val::String(b)] => Some((a.as_str(), b.as_str())),
        _ => None,
    }
}

fn contains<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match string_pair(args) {
        Some((s, sub)) => Ok(Val::Bool(s.contains(sub))),
        None => nso(),
    }
}

fn starts_with<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match string_pair(args) {
        Some((s, p)) => Ok(Val::Bool(s.starts_with(p))),
        None => nso(),
    }
}

fn ends_with<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match string_pair(args) {
        Some((s, p)) => Ok(Val::Bool(s.ends_with(p))),
        None => nso(),
    }
}

thread_local! {
    static REGEX_CACHE: RefCell<HashMap<String, Result<regex::Regex, String>>> = RefCell::new(HashMap::new());
}

/// A pattern compiled with Go RE2 semantics (cached per thread); `Err` carries Go's
/// `error parsing regexp: ...` text.
pub fn compile_regex(pattern: &str) -> Result<regex::Regex, EvalError> {
    let cached = REGEX_CACHE.with(|c| c.borrow().get(pattern).cloned());
    let result = match cached {
        Some(r) => r,
        None => {
            let r = crate::go::regexp::compile_re2(pattern).map_err(|_| {
                crate::go::regexp::go_compile_error(pattern).unwrap_or_else(|| {
                    format!("error parsing regexp: invalid pattern: `{}`", pattern)
                })
            });
            REGEX_CACHE.with(|c| {
                let mut c = c.borrow_mut();
                if c.len() >= 256 {
                    c.clear();
                }
                if pattern.len() <= 4096 {
                    c.insert(pattern.to_string(), r.clone());
                }
            });
            r
        }
    };
    result.map_err(EvalError::new)
}

/// `s.matches(pattern)`: Go's `regexp.MatchString` (unanchored search).
pub fn regex_matches(s: &str, pattern: &str) -> Result<bool, EvalError> {
    Ok(compile_regex(pattern)?.is_match(s))
}

fn matches_fn<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match string_pair(args) {
        Some((s, p)) => regex_matches(s, p).map(Val::Bool),
        None => nso(),
    }
}

// ------------------------------------------------------------------ time accessors

/// The civil fields of `t` at a UTC offset in seconds.
pub fn civil_time(t: Timestamp, offset: i64) -> CivilTime {
    crate::go::time::civil_time(t.secs, t.nanos, offset)
}

/// cel-go `inTimeZone`: a `±hh:mm` offset when the text has a colon, otherwise an IANA
/// zone name through Go's `time.LoadLocation` (a built-in table of common zones here).
/// Returns the UTC offset in seconds in effect at `t`.
pub fn zone_offset(t: Timestamp, tz: &str) -> Result<i64, EvalError> {
    if let Some(ind) = tz.find(':') {
        let hr = go_atoi(&tz[..ind])?;
        let min = go_atoi(&tz[ind + 1..])?;
        let offset = if tz.starts_with('-') {
            hr.wrapping_mul(60).wrapping_sub(min)
        } else {
            hr.wrapping_mul(60).wrapping_add(min)
        };
        // time.Duration(offset) * time.Minute, then whole seconds.
        let nanos = offset.wrapping_mul(60_000_000_000);
        return Ok(nanos / NANOS_PER_SECOND);
    }
    if tz.is_empty() || tz == "UTC" || tz == "Local" {
        return Ok(0);
    }
    if tz.contains("..") || tz.starts_with('/') || tz.starts_with('\\') {
        return Err(EvalError::new("time: invalid location name"));
    }
    match crate::go::time::zone_rule(tz) {
        Some((std, rule)) => Ok(crate::go::time::rule_offset(t.secs, std, rule)),
        None => Err(EvalError::new(format!("unknown time zone {}", tz))),
    }
}

/// Go `strconv.Atoi` with its error text.
fn go_atoi(s: &str) -> Result<i64, EvalError> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(EvalError::new(format!(
            "strconv.Atoi: parsing {}: invalid syntax",
            crate::go::strconv::quote(s)
        )));
    }
    s.parse::<i64>().map_err(|_| {
        EvalError::new(format!(
            "strconv.Atoi: parsing {}: value out of range",
            crate::go::strconv::quote(s)
        ))
    })
}

/// The timestamp's civil time in the zone named by the optional second argument (UTC
/// without one).
fn local_time(args: &[Val]) -> Result<CivilTime, EvalError> {
    match args {
        [Val::Timestamp(t)] => Ok(civil_time(*t, 0)),
        [Val::Timestamp(t), Val::String(tz)] => Ok(civil_time(*t, zone_offset(*t, tz.as_str())?)),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn get_full_year<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    local_time(args).map(|c| Val::Int(c.year))
}

fn get_month<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    local_time(args).map(|c| Val::Int(c.month - 1))
}

fn get_day_of_year<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    local_time(args).map(|c| Val::Int(c.year_day - 1))
}

fn get_day_of_month<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    local_time(args).map(|c| Val::Int(c.day - 1))
}

fn get_date<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    local_time(args).map(|c| Val::Int(c.day))
}

fn get_day_of_week<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    local_time(args).map(|c| Val::Int(c.weekday))
}

/// Go's `Duration.Hours()`/`Minutes()`/`Seconds()` truncated to an int, as cel-go does.
fn go_duration_units(d: Duration, unit: i64) -> i64 {
    let whole = d.0 / unit;
    let rest = d.0 % unit;
    (whole as f64 + rest as f64 / unit as f64) as i64
}

/// Go's `Duration.Seconds()` as a float.
fn go_seconds(d: Duration) -> f64 {
    let whole = d.0 / NANOS_PER_SECOND;
    let rest = d.0 % NANOS_PER_SECOND;
    whole as f64 + rest as f64 / 1e9
}

fn get_hours<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Duration(d)] => Ok(Val::Int(go_duration_units(*d, 3_600_000_000_000))),
        _ => local_time(args).map(|c| Val::Int(c.hour)),
    }
}

fn get_minutes<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Duration(d)] => Ok(Val::Int(go_duration_units(*d, 60_000_000_000))),
        _ => local_time(args).map(|c| Val::Int(c.minute)),
    }
}

fn get_seconds<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Duration(d)] => Ok(Val::Int(go_duration_units(*d, NANOS_PER_SECOND))),
        _ => local_time(args).map(|c| Val::Int(c.second)),
    }
}

fn get_milliseconds<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        // cel-go: Duration.Milliseconds(), the whole duration in milliseconds.
        [Val::Duration(d)] => Ok(Val::Int(d.0 / 1_000_000)),
        _ => local_time(args).map(|c| Val::Int(c.nanos as i64 / 1_000_000)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Timestamp {
        go_parse_rfc3339(s).expect("timestamp")
    }

    fn int(r: EvalResult) -> i64 {
        match r {
            Ok(Val::Int(i)) => i,
            other => panic!("not an int: {:?}", other.map(|v| format!("{:?}", v))),
        }
    }

    fn err_text(r: EvalResult) -> String {
        match r {
            Err(e) => e.message,
            Ok(v) => panic!("expected an error, got {:?}", v),
        }
    }

    #[test]
    fn integer_arithmetic_checks_overflow() {
        assert_eq!(
            err_text(add(&[Val::Int(i64::MAX), Val::Int(1)])),
            "integer overflow"
        );
        assert_eq!(
            err_text(subtract(&[Val::Uint(1), Val::Uint(2)])),
            "unsigned integer overflow"
        );
        assert_eq!(
            err_text(divide(&[Val::Int(1), Val::Int(0)])),
            "division by zero"
        );
        assert_eq!(
            err_text(modulo(&[Val::Uint(1), Val::Uint(0)])),
            "modulus by zero"
        );
        assert_eq!(
            err_text(divide(&[Val::Int(i64::MIN), Val::Int(-1)])),
            "integer overflow"
        );
        assert_eq!(err_text(negate(&[Val::Int(i64::MIN)])), "integer overflow");
        assert_eq!(int(modulo(&[Val::Int(-7), Val::Int(3)])), -1);
        assert_eq!(int(divide(&[Val::Int(-7), Val::Int(2)])), -3);
    }

    #[test]
    fn comparisons_cross_numeric_types() {
        assert_eq!(
            compare_values(&Val::Int(1), &Val::Double(1.5)),
            Ok(Ordering::Less)
        );
        assert_eq!(
            compare_values(&Val::Uint(3), &Val::Int(-1)),
            Ok(Ordering::Greater)
        );
        assert_eq!(
            compare_values(&Val::Double(f64::NAN), &Val::Int(1)).map_err(|e| e.message),
            Err("NaN values cannot be ordered".to_string())
        );
        assert!(compare_values(&Val::Int(1), &Val::str("a")).is_err());
        assert_eq!(
            compare_values(&Val::Bool(false), &Val::Bool(true)),
            Ok(Ordering::Less)
        );
    }

    #[test]
    fn conversions_follow_cel_go() {
        assert_eq!(
            err_text(to_int(&[Val::str("abc")])),
            "type conversion error from 'string' to 'int'"
        );
        assert_eq!(err_text(to_int(&[Val::Double(1e99)])), "integer overflow");
        assert_eq!(err_text(to_int(&[Val::Uint(u64::MAX)])), "integer overflow");
        assert_eq!(
            err_text(to_uint(&[Val::Int(-1)])),
            "unsigned integer overflow"
        );
        assert_eq!(int(to_int(&[Val::Double(-7.9)])), -7);
        assert!(matches!(to_uint(&[Val::str("+1")]), Err(_)));
        assert!(matches!(to_bool(&[Val::str("TrUe")]), Err(_)));
        assert!(matches!(to_bool(&[Val::str("T")]), Ok(Val::Bool(true))));
        let s = |v: Val<'static>| match convert_to_string(&v) {
            Ok(Val::String(s)) => s.as_str().to_string(),
            _ => panic!("not a string"),
        };
        assert_eq!(s(Val::Double(-4.5e-3)), "-0.0045");
        assert_eq!(s(Val::Double(1.5e10)), "1.5e+10");
        assert_eq!(s(Val::Duration(Duration(5_400_000_000_000))), "5400s");
        assert_eq!(
            s(Val::Duration(Duration(7_384_000_005_000))),
            "7384.000005s"
        );
        assert_eq!(
            err_text(convert_to_string(&Val::Bytes(Rc::from(&[0u8, 0xff][..])))),
            "invalid UTF-8 in bytes, cannot convert to string"
        );
        assert!(matches!(to_double(&[Val::str("1_000.5")]), Ok(Val::Double(d)) if d == 1000.5));
        assert!(
            matches!(to_double(&[Val::str("-Inf")]), Ok(Val::Double(d)) if d == f64::NEG_INFINITY)
        );
        assert!(to_double(&[Val::str("1e400")]).is_err());
        assert!(to_double(&[Val::str("0x1p-2")])
            .map(|v| matches!(v, Val::Double(d) if d == 0.25))
            .unwrap_or(false));
        assert_eq!(
            err_text(to_timestamp(&[Val::Int(-62135596801)])),
            "timestamp overflow"
        );
        assert_eq!(
            err_text(to_timestamp(&[Val::str("0000-01-01T00:00:00Z")])),
            "timestamp overflow"
        );
        assert_eq!(
            err_text(to_duration(&[Val::Int(1)])),
            "type conversion error from 'int' to 'google.protobuf.Duration'"
        );
    }

    #[test]
    fn rfc3339_parses_like_go() {
        assert_eq!(ts("2009-02-13T23:31:30Z").secs, 1_234_567_890);
        assert_eq!(ts("2009-02-13T23:31:30.123456789123Z").nanos, 123_456_789);
        assert_eq!(ts("2009-02-13T3:31:30Z").secs, 1_234_567_890 - 20 * 3600);
        assert_eq!(ts("1970-01-01T01:00:00+01:00").secs, 0);
        assert!(go_parse_rfc3339("2009-02-13t23:31:30Z").is_none());
        assert!(go_parse_rfc3339("2009-02-30T23:31:30Z").is_none());
        assert!(go_parse_rfc3339("10000-01-01T00:00:00Z").is_none());
    }

    #[test]
    fn timestamp_arithmetic_checks_range() {
        let t = ts("9999-12-31T23:59:59.999999999Z");
        assert_eq!(
            add_timestamp_duration(t, Duration(1)).map_err(|e| e.message),
            Err("timestamp overflow".to_string())
        );
        let a = ts("0001-01-01T00:00:01.000000001Z");
        assert_eq!(
            add_timestamp_duration(a, Duration(-999_999_999)),
            Ok(ts("0001-01-01T00:00:00.000000002Z"))
        );
        let r = subtract_timestamps(ts("9999-12-31T23:59:59Z"), ts("0001-01-01T00:00:00Z"));
        assert_eq!(
            r.map_err(|e| e.message),
            Err("integer overflow".to_string())
        );
    }

    #[test]
    fn time_accessors_and_zones() {
        let t = Val::Timestamp(ts("2009-02-13T23:31:30Z"));
        let tz = |s: &str| Val::str(s);
        assert_eq!(int(get_date(&[t.clone()])), 13);
        assert_eq!(int(get_day_of_month(&[t.clone()])), 12);
        assert_eq!(int(get_day_of_week(&[t.clone()])), 5);
        assert_eq!(int(get_day_of_year(&[t.clone()])), 43);
        assert_eq!(int(get_month(&[t.clone()])), 1);
        assert_eq!(int(get_date(&[t.clone(), tz("Australia/Sydney")])), 14);
        assert_eq!(int(get_day_of_month(&[t.clone(), tz("US/Central")])), 12);
        assert_eq!(int(get_day_of_month(&[t.clone(), tz("+11:00")])), 13);
        assert_eq!(int(get_hours(&[t.clone(), tz("02:00")])), 1);
        assert_eq!(int(get_minutes(&[t.clone(), tz("Asia/Kathmandu")])), 16);
        assert_eq!(int(get_seconds(&[t.clone(), tz("-00:00")])), 30);
        let early = Val::Timestamp(ts("2009-02-13T02:00:00Z"));
        assert_eq!(int(get_day_of_month(&[early.clone(), tz("-02:30")])), 11);
        assert_eq!(int(get_day_of_month(&[early, tz("America/St_Johns")])), 11);
        assert_eq!(
            err_text(get_hours(&[t.clone(), tz("Mars/Olympus")])),
            "unknown time zone Mars/Olympus"
        );
        assert_eq!(
            err_text(get_hours(&[t.clone(), tz("x:00")])),
            "strconv.Atoi: parsing \"x\": invalid syntax"
        );
        // Summer time.
        let summer = Val::Timestamp(ts("2023-07-01T12:00:00Z"));
        assert_eq!(int(get_hours(&[summer.clone(), tz("America/New_York")])), 8);
        assert_eq!(int(get_hours(&[summer.clone(), tz("Europe/Berlin")])), 14);
        assert_eq!(int(get_hours(&[summer, tz("Australia/Sydney")])), 22);
        let d = Val::Duration(Duration(123_321_456_789));
        assert_eq!(int(get_milliseconds(&[d])), 123_321);
        assert_eq!(
            int(get_minutes(&[Val::Duration(Duration(3_730_000_000_000))])),
            62
        );
        assert_eq!(
            int(get_hours(&[Val::Duration(Duration(-5_400_000_000_000))])),
            -1
        );
    }

    #[test]
    fn indexing_errors_read_like_cel_go() {
        let l = Val::list(vec![Val::Int(1), Val::Int(2)]);
        assert_eq!(int(index_value(&l, &Val::Double(1.0))), 2);
        assert_eq!(
            err_text(index_value(&l, &Val::Int(2))),
            "index out of bounds: 2"
        );
        assert_eq!(
            err_text(index_value(&l, &Val::Double(1.5))),
            "unsupported index value 1.5 in list"
        );
        assert_eq!(
            err_text(index_value(&l, &Val::str("a"))),
            "unsupported index type 'string' in list"
        );
        let m = Val::map(vec![
            (Val::str("a"), Val::Int(1)),
            (Val::Int(2), Val::Int(3)),
        ]);
        assert_eq!(err_text(index_value(&m, &Val::str("b"))), "no such key: b");
        assert_eq!(int(index_value(&m, &Val::Uint(2))), 3);
        assert!(matches!(
            in_aggregate(&[Val::Double(2.0), m.clone()]),
            Ok(Val::Bool(true))
        ));
        assert!(matches!(
            in_aggregate(&[Val::Double(2.0), l]),
            Ok(Val::Bool(true))
        ));
        assert_eq!(int(size(&[Val::str("héllo")])), 5);
    }

    #[test]
    fn matches_uses_re2() {
        assert_eq!(regex_matches("123 abc", "[0-9]+"), Ok(true));
        assert_eq!(regex_matches("abc", "^b"), Ok(false));
        assert!(regex_matches("abc", "(").is_err());
    }

    #[test]
    fn declarations_follow_options() {
        let mut o = EnvOptions::for_version(27);
        let fs = functions(&o);
        let less = fs
            .iter()
            .find(|f| f.name == "_<_")
            .map(|f| f.overloads.len());
        assert_eq!(less, Some(8));
        o.cross_type_numeric = true;
        let fs = functions(&o);
        let less = fs
            .iter()
            .find(|f| f.name == "_<_")
            .map(|f| f.overloads.len());
        assert_eq!(less, Some(14));
    }
}
