//! Kubernetes regex library (apiserver `pkg/cel/library/regex.go`): `find`, `findAll`,
//! with Go RE2 semantics (`crate::go::regexp`).

use crate::cel::env::{EnvOptions, Function, Overload};
use crate::cel::types::Type;
use crate::cel::value::{EvalError, EvalResult, Val};
use crate::go::regexp::{compile_re2, go_compile_error};
use std::cell::RefCell;

/// The functions this library declares at the environment's compatibility version
/// (present in every version).
pub fn functions(_opts: &EnvOptions) -> Vec<Function> {
    vec![
        Function::new(
            "find",
            vec![Overload::member(
                "string_find_string",
                vec![Type::String, Type::String],
                Type::String,
                find,
            )],
        ),
        Function::new(
            "findAll",
            vec![
                Overload::member(
                    "string_find_all_string",
                    vec![Type::String, Type::String],
                    Type::list(Type::String),
                    find_all,
                ),
                Overload::member(
                    "string_find_all_string_int",
                    vec![Type::String, Type::String, Type::Int],
                    Type::list(Type::String),
                    find_all,
                ),
            ],
        ),
    ]
}

thread_local! {
    /// Recently compiled patterns (a comprehension calls `find` once per element).
    static CACHE: RefCell<Vec<(String, regex::Regex)>> = const { RefCell::new(Vec::new()) };
}

/// Compiles a pattern with Go semantics; the error is the runtime one
/// (`Illegal regex: error parsing regexp: ...`).
fn compile(pattern: &str) -> Result<regex::Regex, EvalError> {
    if let Some(re) = CACHE.with(|c| {
        c.borrow()
            .iter()
            .find(|(p, _)| p == pattern)
            .map(|(_, r)| r.clone())
    }) {
        return Ok(re);
    }
    match compile_re2(pattern) {
        Ok(re) => {
            CACHE.with(|c| {
                let mut c = c.borrow_mut();
                if c.len() >= 16 {
                    c.remove(0);
                }
                c.push((pattern.to_string(), re.clone()));
            });
            Ok(re)
        }
        Err(_) => {
            let msg = go_compile_error(pattern)
                .unwrap_or_else(|| format!("error parsing regexp: `{}`", pattern));
            Err(EvalError::new(format!("Illegal regex: {}", msg)))
        }
    }
}

fn str_arg<'b>(args: &'b [Val], i: usize) -> Result<&'b str, EvalError> {
    match args.get(i) {
        Some(Val::String(s)) => Ok(s.as_str()),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `s.find(re)`: the leftmost-first match, or `""`.
fn find<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let s = str_arg(args, 0)?;
    let re = compile(str_arg(args, 1)?)?;
    Ok(Val::str(re.find(s).map(|m| m.as_str()).unwrap_or("")))
}

/// `s.findAll(re)` / `s.findAll(re, n)`: Go's `FindAllString(s, n)`: successive
/// non-overlapping matches, at most `n` when `n >= 0`.
fn find_all<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let s = str_arg(args, 0)?;
    let re = compile(str_arg(args, 1)?)?;
    let limit = match args.get(2) {
        None => -1,
        Some(Val::Int(n)) => *n,
        Some(_) => return Err(EvalError::no_such_overload()),
    };
    if limit == 0 {
        return Ok(Val::list(Vec::new()));
    }
    let mut out = Vec::new();
    for m in re.find_iter(s) {
        if limit > 0 && out.len() as i64 >= limit {
            break;
        }
        out.push(Val::str(m.as_str()));
    }
    Ok(Val::list(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(r: EvalResult) -> String {
        match r {
            Ok(v) => format!("{:?}", v),
            Err(e) => format!("error: {}", e),
        }
    }

    const S: &str = "this is a 123 string 456";

    #[test]
    fn find_first() {
        assert_eq!(show(find(&[Val::str(S), Val::str("[0-9]+")])), "\"123\"");
        assert_eq!(show(find(&[Val::str(S), Val::str("xyz")])), "\"\"");
    }

    #[test]
    fn find_all_with_limits() {
        assert_eq!(
            show(find_all(&[Val::str(S), Val::str("[0-9]+")])),
            "[\"123\", \"456\"]"
        );
        assert_eq!(
            show(find_all(&[Val::str(S), Val::str("[0-9]+"), Val::Int(-1)])),
            "[\"123\", \"456\"]"
        );
        assert_eq!(
            show(find_all(&[Val::str(S), Val::str("[0-9]+"), Val::Int(1)])),
            "[\"123\"]"
        );
        assert_eq!(
            show(find_all(&[Val::str(S), Val::str("[0-9]+"), Val::Int(0)])),
            "[]"
        );
        assert_eq!(show(find_all(&[Val::str(S), Val::str("xyz")])), "[]");
        // Go drops an empty match right after a previous match.
        assert_eq!(
            show(find_all(&[Val::str("baaac"), Val::str("a*")])),
            "[\"\", \"aaa\", \"\"]"
        );
    }

    #[test]
    fn invalid_patterns() {
        assert_eq!(
            show(find_all(&[Val::str(S), Val::str(")")])),
            "error: Illegal regex: error parsing regexp: unexpected ): `)`"
        );
    }
}
