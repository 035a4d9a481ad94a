//! Kubernetes URL library (apiserver `pkg/cel/library/urls.go`, all versions): CEL bindings
//! over [`crate::go::neturl`] (Go 1.26's `net/url`): `ParseRequestURI` and `Parse` with their error texts, and the
//! `URL` accessors the library exposes (`Hostname`, `Port`, `EscapedPath`, `Query`,
//! `String`). Bracketed hosts must be IPv6 addresses and a colon in a host starts the
//! port (`urlstrictcolons=1`), as Go 1.26 parses them.

use crate::cel::env::{EnvOptions, Function, Overload};
use crate::cel::types::{Type, URL};
use crate::cel::value::{EvalError, EvalResult, Opaque, Val};
use crate::go::neturl::{parse, parse_request_uri, Url};
use std::any::Any;
use std::rc::Rc;

/// The CEL value `kubernetes.URL`.
#[derive(Clone, Debug)]
pub struct UrlValue(pub Url);

impl Opaque for UrlValue {
    fn type_name(&self) -> &'static str {
        URL
    }
    fn equal(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<UrlValue>()
            .map(|o| o.0.to_go_string() == self.0.to_go_string())
            .unwrap_or(false)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn to_canonical(&self) -> String {
        self.0.to_go_string()
    }
}

fn u_arg<'v>(v: Option<&'v Val>) -> Result<&'v Url, EvalError> {
    match v {
        Some(Val::Opaque(o)) => o
            .as_any()
            .downcast_ref::<UrlValue>()
            .map(|u| &u.0)
            .ok_or_else(EvalError::no_such_overload),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn str_arg<'v>(v: Option<&'v Val>) -> Result<&'v str, EvalError> {
    v.and_then(|v| v.as_str())
        .ok_or_else(EvalError::no_such_overload)
}

fn bytes_val<'a>(b: &[u8]) -> Val<'a> {
    Val::string(String::from_utf8_lossy(b).into_owned())
}

fn string_to_url<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let s = str_arg(args.first())?;
    let conv = |e: String| {
        EvalError::new(format!(
            "URL parse error during conversion from string: {}",
            e
        ))
    };
    parse_request_uri(s).map_err(conv)?;
    let u = parse(s).map_err(conv)?;
    Ok(Val::Opaque(Rc::new(UrlValue(u))))
}

fn get_scheme_fn<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(bytes_val(&u_arg(args.first())?.scheme))
}

fn get_host<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(bytes_val(&u_arg(args.first())?.host))
}

fn get_hostname<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(bytes_val(&u_arg(args.first())?.hostname()))
}

fn get_port<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(bytes_val(&u_arg(args.first())?.port()))
}

fn get_escaped_path<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(bytes_val(&u_arg(args.first())?.escaped_path()))
}

fn get_query<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let q = u_arg(args.first())?.query();
    Ok(Val::map(
        q.into_iter()
            .map(|(k, vs)| {
                (
                    bytes_val(&k),
                    Val::list(vs.iter().map(|v| bytes_val(v)).collect()),
                )
            })
            .collect(),
    ))
}

fn is_url<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::Bool(parse_request_uri(str_arg(args.first())?).is_ok()))
}

/// The functions this library declares at the environment's compatibility version.
pub fn functions(_opts: &EnvOptions) -> Vec<Function> {
    let u = || Type::opaque(URL);
    vec![
        Function::new(
            "url",
            vec![Overload::global(
                "string_to_url",
                vec![Type::String],
                u(),
                string_to_url,
            )],
        ),
        Function::new(
            "getScheme",
            vec![Overload::member(
                "url_get_scheme",
                vec![u()],
                Type::String,
                get_scheme_fn,
            )],
        ),
        Function::new(
            "getHost",
            vec![Overload::member(
                "url_get_host",
                vec![u()],
                Type::String,
                get_host,
            )],
        ),
        Function::new(
            "getHostname",
            vec![Overload::member(
                "url_get_hostname",
                vec![u()],
                Type::String,
                get_hostname,
            )],
        ),
        Function::new(
            "getPort",
            vec![Overload::member(
                "url_get_port",
                vec![u()],
                Type::String,
                get_port,
            )],
        ),
        Function::new(
            "getEscapedPath",
            vec![Overload::member(
                "url_get_escaped_path",
                vec![u()],
                Type::String,
                get_escaped_path,
            )],
        ),
        Function::new(
            "getQuery",
            vec![Overload::member(
                "url_get_query",
                vec![u()],
                Type::map(Type::String, Type::list(Type::String)),
                get_query,
            )],
        ),
        Function::new(
            "isURL",
            vec![Overload::global(
                "is_url_string",
                vec![Type::String],
                Type::Bool,
                is_url,
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
            "url('https://a.io:8443/p?x=1').getPort() == '8443' && isURL('/x') && !isURL('x')",
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
