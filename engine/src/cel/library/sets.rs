//! cel-go's sets extension (`ext/sets.go`, from compatibility 1.29): `sets.contains`,
//! `sets.equivalent`, `sets.intersects` over lists, with CEL (heterogeneous) equality.

use crate::cel::env::{EnvOptions, Function, Overload};
use crate::cel::types::Type;
use crate::cel::value::{equal, EvalError, EvalResult, Val};

/// The functions this library declares at the environment's compatibility version.
pub fn functions(opts: &EnvOptions) -> Vec<Function> {
    if opts.compat_minor < 29 {
        return Vec::new();
    }
    let list_t = || Type::list(Type::param("T"));
    vec![
        Function::new(
            "sets.contains",
            vec![Overload::global(
                "list_sets_contains_list",
                vec![list_t(), list_t()],
                Type::Bool,
                sets_contains,
            )],
        ),
        Function::new(
            "sets.equivalent",
            vec![Overload::global(
                "list_sets_equivalent_list",
                vec![list_t(), list_t()],
                Type::Bool,
                sets_equivalent,
            )],
        ),
        Function::new(
            "sets.intersects",
            vec![Overload::global(
                "list_sets_intersects_list",
                vec![list_t(), list_t()],
                Type::Bool,
                sets_intersects,
            )],
        ),
    ]
}

/// The elements of a list argument.
fn items<'a>(v: &Val<'a>) -> Result<Vec<Val<'a>>, EvalError> {
    match v {
        Val::List(l) => l.try_items(),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// The call costs `1 + |a|·|b|·factor`: past the per-call limit it can never complete,
/// so the quadratic comparison is refused before it starts.
fn guard(a: &[Val], b: &[Val], factor: u64) -> Result<(), EvalError> {
    let cost = (a.len() as u64)
        .saturating_mul(b.len() as u64)
        .saturating_mul(factor)
        .saturating_add(1);
    if cost > crate::cel::config::PER_CALL_LIMIT {
        return Err(EvalError::cost_limit());
    }
    Ok(())
}

/// Whether every element of `sub` is in `list`.
fn contains_all(list: &[Val], sub: &[Val]) -> bool {
    sub.iter().all(|x| list.iter().any(|y| equal(x, y)))
}

fn sets_contains<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let (Some(a), Some(b)) = (args.first(), args.get(1)) else {
        return Err(EvalError::no_such_overload());
    };
    let (a, b) = (items(a)?, items(b)?);
    guard(&a, &b, 1)?;
    Ok(Val::Bool(contains_all(&a, &b)))
}

fn sets_equivalent<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let (Some(a), Some(b)) = (args.first(), args.get(1)) else {
        return Err(EvalError::no_such_overload());
    };
    let (a, b) = (items(a)?, items(b)?);
    guard(&a, &b, 2)?;
    Ok(Val::Bool(contains_all(&a, &b) && contains_all(&b, &a)))
}

fn sets_intersects<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let (Some(a), Some(b)) = (args.first(), args.get(1)) else {
        return Err(EvalError::no_such_overload());
    };
    let (a, b) = (items(a)?, items(b)?);
    guard(&a, &b, 1)?;
    Ok(Val::Bool(a.iter().any(|x| b.iter().any(|y| equal(y, x)))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(v: Vec<Val<'static>>) -> Val<'static> {
        Val::list(v)
    }

    fn b(r: EvalResult) -> bool {
        match r {
            Ok(Val::Bool(b)) => b,
            other => panic!("not a bool: {:?}", other.map(|v| format!("{:?}", v))),
        }
    }

    #[test]
    fn contains_uses_cel_equality() {
        let x = l(vec![Val::Int(1), Val::Double(2.0), Val::Uint(3)]);
        let y = l(vec![Val::Double(1.0), Val::Uint(2), Val::Int(3)]);
        assert!(b(sets_contains(&[x.clone(), y.clone()])));
        assert!(b(sets_contains(&[l(vec![]), l(vec![])])));
        assert!(!b(sets_contains(&[l(vec![]), l(vec![Val::Int(1)])])));
        assert!(b(sets_equivalent(&[x, y])));
    }

    #[test]
    fn equivalent_ignores_duplicates() {
        assert!(b(sets_equivalent(&[
            l(vec![Val::Int(1)]),
            l(vec![Val::Int(1), Val::Int(1)])
        ])));
        assert!(!b(sets_equivalent(&[
            l(vec![Val::Int(1)]),
            l(vec![Val::Int(1), Val::Int(2)])
        ])));
    }

    #[test]
    fn intersects() {
        assert!(!b(sets_intersects(&[l(vec![Val::Int(1)]), l(vec![])])));
        assert!(b(sets_intersects(&[
            l(vec![Val::Int(1)]),
            l(vec![Val::Int(2), Val::Uint(1)])
        ])));
        let nested = l(vec![
            l(vec![Val::Int(1)]),
            l(vec![Val::Int(2), Val::Int(3)]),
        ]);
        let other = l(vec![
            l(vec![Val::Int(1), Val::Int(2)]),
            l(vec![Val::Int(2), Val::Double(3.0)]),
        ]);
        assert!(b(sets_intersects(&[nested, other])));
    }

    #[test]
    fn huge_inputs_are_refused() {
        let big = l((0..2000).map(Val::Int).collect());
        let r = sets_contains(&[big.clone(), big]);
        assert_eq!(
            r.err().map(|e| e.message),
            Some("operation cancelled: actual cost limit exceeded".to_string())
        );
    }

    #[test]
    fn absent_before_1_29() {
        assert!(functions(&EnvOptions::for_version(28)).is_empty());
        assert_eq!(functions(&EnvOptions::for_version(29)).len(), 3);
    }
}
