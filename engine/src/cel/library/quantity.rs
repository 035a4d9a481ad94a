//! Kubernetes quantity library (apiserver `pkg/cel/library/quantity.go`, 1.28+): CEL
//! bindings over [`crate::k8s::quantity`] (apimachinery's `resource.Quantity`).

use crate::cel::env::{EnvOptions, Function, Overload};
use crate::cel::types::{Type, QUANTITY};
use crate::cel::value::{EvalError, EvalResult, Opaque, Val};
use crate::k8s::quantity::{Quantity, TooLarge};
use std::any::Any;
use std::cmp::Ordering;
use std::rc::Rc;

impl From<TooLarge> for EvalError {
    fn from(e: TooLarge) -> EvalError {
        EvalError::new(e.to_string())
    }
}

impl Opaque for Quantity {
    fn type_name(&self) -> &'static str {
        QUANTITY
    }
    fn equal(&self, other: &dyn Opaque) -> bool {
        match other.as_any().downcast_ref::<Quantity>() {
            Some(o) => self.cmp(o) == Ordering::Equal,
            None => false,
        }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn to_canonical(&self) -> String {
        self.canonical()
    }
}

// ------------------------------------------------------------------ CEL functions

fn q_arg<'v>(v: &'v Val) -> Result<&'v Quantity, EvalError> {
    match v {
        Val::Opaque(o) => o
            .as_any()
            .downcast_ref::<Quantity>()
            .ok_or_else(EvalError::no_such_overload),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn str_arg<'v>(v: &'v Val) -> Result<&'v str, EvalError> {
    v.as_str().ok_or_else(EvalError::no_such_overload)
}

fn int_arg(v: &Val) -> Result<i64, EvalError> {
    match v {
        Val::Int(i) => Ok(*i),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn arg<'a, 'v>(args: &'v [Val<'a>], i: usize) -> Result<&'v Val<'a>, EvalError> {
    args.get(i).ok_or_else(EvalError::no_such_overload)
}

fn wrap(q: Quantity) -> Val<'static> {
    Val::Opaque(Rc::new(q))
}

fn string_to_quantity<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let s = str_arg(arg(args, 0)?)?;
    Quantity::parse(s).map(wrap).map_err(EvalError::new)
}

fn is_quantity<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let s = str_arg(arg(args, 0)?)?;
    Ok(Val::Bool(Quantity::parse(s).is_ok()))
}

fn quantity_sign<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::Int(q_arg(arg(args, 0)?)?.sign()))
}

fn cmp_args(args: &[Val]) -> Result<Ordering, EvalError> {
    Ok(q_arg(arg(args, 0)?)?.cmp(q_arg(arg(args, 1)?)?))
}

fn is_greater_than<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::Bool(cmp_args(args)? == Ordering::Greater))
}

fn is_less_than<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::Bool(cmp_args(args)? == Ordering::Less))
}

fn compare_to<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::Int(match cmp_args(args)? {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }))
}

fn get_float<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::Double(q_arg(arg(args, 0)?)?.as_approximate_float64()))
}

fn get_int<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match q_arg(arg(args, 0)?)?.as_int64() {
        Some(v) => Ok(Val::Int(v)),
        None => Err(EvalError::new("cannot convert value to integer")),
    }
}

fn is_integer<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::Bool(q_arg(arg(args, 0)?)?.as_int64().is_some()))
}

fn add_q<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(wrap(q_arg(arg(args, 0)?)?.add(q_arg(arg(args, 1)?)?)?))
}

fn add_int<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let y = Quantity::from_int(int_arg(arg(args, 1)?)?);
    Ok(wrap(q_arg(arg(args, 0)?)?.add(&y)?))
}

fn sub_q<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(wrap(q_arg(arg(args, 0)?)?.sub(q_arg(arg(args, 1)?)?)?))
}

fn sub_int<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let y = Quantity::from_int(int_arg(arg(args, 1)?)?);
    Ok(wrap(q_arg(arg(args, 0)?)?.sub(&y)?))
}

/// The functions this library declares at the environment's compatibility version.
pub fn functions(opts: &EnvOptions) -> Vec<Function> {
    if opts.compat_minor < 28 {
        return Vec::new();
    }
    let q = || Type::opaque(QUANTITY);
    vec![
        Function::new(
            "quantity",
            vec![Overload::global(
                "string_to_quantity",
                vec![Type::String],
                q(),
                string_to_quantity,
            )],
        ),
        Function::new(
            "isQuantity",
            vec![Overload::global(
                "is_quantity_string",
                vec![Type::String],
                Type::Bool,
                is_quantity,
            )],
        ),
        Function::new(
            "sign",
            vec![Overload::global(
                "quantity_sign",
                vec![q()],
                Type::Int,
                quantity_sign,
            )],
        ),
        Function::new(
            "isGreaterThan",
            vec![Overload::member(
                "quantity_is_greater_than",
                vec![q(), q()],
                Type::Bool,
                is_greater_than,
            )],
        ),
        Function::new(
            "isLessThan",
            vec![Overload::member(
                "quantity_is_less_than",
                vec![q(), q()],
                Type::Bool,
                is_less_than,
            )],
        ),
        Function::new(
            "compareTo",
            vec![Overload::member(
                "quantity_compare_to",
                vec![q(), q()],
                Type::Int,
                compare_to,
            )],
        ),
        Function::new(
            "asApproximateFloat",
            vec![Overload::member(
                "quantity_get_float",
                vec![q()],
                Type::Double,
                get_float,
            )],
        ),
        Function::new(
            "asInteger",
            vec![Overload::member(
                "quantity_get_int",
                vec![q()],
                Type::Int,
                get_int,
            )],
        ),
        Function::new(
            "isInteger",
            vec![Overload::member(
                "quantity_is_integer",
                vec![q()],
                Type::Bool,
                is_integer,
            )],
        ),
        Function::new(
            "add",
            vec![
                Overload::member("quantity_add", vec![q(), q()], q(), add_q),
                Overload::member("quantity_add_int", vec![q(), Type::Int], q(), add_int),
            ],
        ),
        Function::new(
            "sub",
            vec![
                Overload::member("quantity_sub", vec![q(), q()], q(), sub_q),
                Overload::member("quantity_sub_int", vec![q(), Type::Int], q(), sub_int),
            ],
        ),
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn evaluates_through_the_environment() {
        let v = crate::version::KubeVersion::parse("1.36").unwrap();
        let out = crate::cel::eval::evaluate("quantity('1.5Gi').add(quantity('512Mi')) == quantity('2Gi') && quantity('1500m').asApproximateFloat() == 1.5", None, None, v);
        assert_eq!(
            out.get("value"),
            Some(&serde_json::json!(true)),
            "{:?}",
            out
        );
    }
}
