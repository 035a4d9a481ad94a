//! Kubernetes semver library (apiserver `pkg/cel/library/semverlib.go`, 1.33+, library
//! version 1): CEL bindings over [`crate::k8s::semver`] (blang/semver v4: `semver.Parse`
//! with its error texts, `Version.Compare`, `Version.String()`, `normalizeAndParse`).

use crate::cel::env::{EnvOptions, Function, Overload};
use crate::cel::types::{Type, SEMVER};
use crate::cel::value::{EvalError, EvalResult, Opaque, Val};
use crate::k8s::semver::{normalize_and_parse, parse, Version};
use std::any::Any;
use std::cmp::Ordering;
use std::rc::Rc;

/// The CEL value `kubernetes.Semver`.
#[derive(Clone, Debug)]
pub struct SemverValue(pub Version);

impl Opaque for SemverValue {
    fn type_name(&self) -> &'static str {
        SEMVER
    }
    fn equal(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<SemverValue>()
            .map(|o| self.0.compare(&o.0) == Ordering::Equal)
            .unwrap_or(false)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn to_canonical(&self) -> String {
        self.0.to_go_string()
    }
}

fn v_arg<'v>(v: Option<&'v Val>) -> Result<&'v Version, EvalError> {
    match v {
        Some(Val::Opaque(o)) => o
            .as_any()
            .downcast_ref::<SemverValue>()
            .map(|s| &s.0)
            .ok_or_else(EvalError::no_such_overload),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn str_arg<'v>(v: Option<&'v Val>) -> Result<&'v str, EvalError> {
    v.and_then(|v| v.as_str())
        .ok_or_else(EvalError::no_such_overload)
}

fn bool_arg(v: Option<&Val>) -> Result<bool, EvalError> {
    match v {
        Some(Val::Bool(b)) => Ok(*b),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn parse_with(s: &str, normalize: bool) -> Result<Version, String> {
    if normalize {
        normalize_and_parse(s)
    } else {
        parse(s)
    }
}

fn to_semver<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let s = str_arg(args.first())?;
    let normalize = if args.len() > 1 {
        bool_arg(args.get(1))?
    } else {
        false
    };
    parse_with(s, normalize)
        .map(|v| Val::Opaque(Rc::new(SemverValue(v))))
        .map_err(EvalError::new)
}

fn is_semver<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let s = str_arg(args.first())?;
    let normalize = if args.len() > 1 {
        bool_arg(args.get(1))?
    } else {
        false
    };
    Ok(Val::Bool(parse_with(s, normalize).is_ok()))
}

fn major<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::Int(v_arg(args.first())?.major as i64))
}

fn minor<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::Int(v_arg(args.first())?.minor as i64))
}

fn patch<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::Int(v_arg(args.first())?.patch as i64))
}

fn cmp_args(args: &[Val]) -> Result<Ordering, EvalError> {
    Ok(v_arg(args.first())?.compare(v_arg(args.get(1))?))
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

/// The functions this library declares at the environment's compatibility version.
pub fn functions(opts: &EnvOptions) -> Vec<Function> {
    if opts.compat_minor < 33 {
        return Vec::new();
    }
    let sv = || Type::opaque(SEMVER);
    vec![
        Function::new(
            "semver",
            vec![
                Overload::global("string_to_semver", vec![Type::String], sv(), to_semver),
                Overload::global(
                    "string_bool_to_semver",
                    vec![Type::String, Type::Bool],
                    sv(),
                    to_semver,
                ),
            ],
        ),
        Function::new(
            "isSemver",
            vec![
                Overload::global(
                    "is_semver_string",
                    vec![Type::String],
                    Type::Bool,
                    is_semver,
                ),
                Overload::global(
                    "is_semver_string_bool",
                    vec![Type::String, Type::Bool],
                    Type::Bool,
                    is_semver,
                ),
            ],
        ),
        Function::new(
            "isGreaterThan",
            vec![Overload::member(
                "semver_is_greater_than",
                vec![sv(), sv()],
                Type::Bool,
                is_greater_than,
            )],
        ),
        Function::new(
            "isLessThan",
            vec![Overload::member(
                "semver_is_less_than",
                vec![sv(), sv()],
                Type::Bool,
                is_less_than,
            )],
        ),
        Function::new(
            "compareTo",
            vec![Overload::member(
                "semver_compare_to",
                vec![sv(), sv()],
                Type::Int,
                compare_to,
            )],
        ),
        Function::new(
            "major",
            vec![Overload::member(
                "semver_major",
                vec![sv()],
                Type::Int,
                major,
            )],
        ),
        Function::new(
            "minor",
            vec![Overload::member(
                "semver_minor",
                vec![sv()],
                Type::Int,
                minor,
            )],
        ),
        Function::new(
            "patch",
            vec![Overload::member(
                "semver_patch",
                vec![sv()],
                Type::Int,
                patch,
            )],
        ),
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn evaluates_through_the_environment() {
        let v = crate::version::KubeVersion::parse("1.36").unwrap();
        let out = crate::cel::eval::evaluate(
            "semver('1.2.3').major() == 1 && semver('v1.2', true).isGreaterThan(semver('1.1.9'))",
            None,
            None,
            v,
        );
        assert_eq!(
            out.get("value"),
            Some(&serde_json::json!(true)),
            "{:?}",
            out
        );
    }
}
