//! Kubernetes format library (apiserver `pkg/cel/library/format.go`, 1.31+): named string
//! formats (`format.dns1123Label()`, `format.named("uuid")`, ...) whose `validate(string)`
//! returns `optional.none()` or the list of apimachinery / kube-openapi messages.

use crate::cel::library::urls::parse_request_uri;
use crate::cel::env::{EnvOptions, Function, Overload};
use crate::cel::types::{Type, FORMAT};
use crate::cel::value::{EvalError, EvalResult, Opaque, Val};
use crate::schema::objectmeta::{
    is_dns1035_label, is_dns1123_label, is_dns1123_subdomain, is_qualified_name,
    is_valid_label_value,
};
use crate::validation::formats::check_format;
use std::any::Any;
use std::rc::Rc;

/// The library's `ConstantFormats`: (key in `format.named`, the format's `Name`).
const FORMATS: &[(&str, &str)] = &[
    ("dns1123Label", "DNS1123Label"),
    ("dns1123Subdomain", "DNS1123Subdomain"),
    ("dns1035Label", "DNS1035Label"),
    ("qualifiedName", "QualifiedName"),
    ("dns1123LabelPrefix", "DNS1123LabelPrefix"),
    ("dns1123SubdomainPrefix", "DNS1123SubdomainPrefix"),
    ("dns1035LabelPrefix", "DNS1035LabelPrefix"),
    ("labelValue", "LabelValue"),
    ("uri", "URI"),
    ("uuid", "uuid"),
    ("byte", "byte"),
    ("date", "date"),
    ("datetime", "datetime"),
];

/// apimachinery `maskTrailingDash`: a trailing dash (of a name longer than one byte)
/// replaces the last *two* bytes with "a", as upstream slices `name[:len(name)-2]`.
fn mask_trailing_dash(name: &str) -> String {
    let b = name.as_bytes();
    if b.len() > 1 && name.ends_with('-') {
        let mut kept: Vec<u8> = b[..b.len() - 2].to_vec();
        // A cut inside a multi-byte character leaves bytes no validator accepts; keep the
        // byte count (length limits count bytes) with an equally invalid ASCII filler.
        while std::str::from_utf8(&kept).is_err() {
            let valid = match std::str::from_utf8(&kept) {
                Err(e) => e.valid_up_to(),
                Ok(_) => kept.len(),
            };
            for x in kept.iter_mut().skip(valid) {
                *x = b'?';
            }
        }
        let mut s = String::from_utf8(kept).unwrap_or_default();
        s.push('a');
        s
    } else {
        name.to_string()
    }
}

/// A named format: `apiservercel.Format`.
#[derive(Clone, Debug)]
pub struct NamedFormat {
    key: &'static str,
    name: &'static str,
}

impl NamedFormat {
    /// `Format.ValidateFunc`.
    pub fn validate(&self, s: &str) -> Vec<String> {
        match self.key {
            "dns1123Label" => is_dns1123_label(s),
            "dns1123Subdomain" => is_dns1123_subdomain(s),
            "dns1035Label" => is_dns1035_label(s),
            // The release's wording is not threaded into CEL values; the latest's is used.
            "qualifiedName" => is_qualified_name(s, crate::version::KubeVersion::LATEST),
            "dns1123LabelPrefix" => is_dns1123_label(&mask_trailing_dash(s)),
            "dns1123SubdomainPrefix" => is_dns1123_subdomain(&mask_trailing_dash(s)),
            "dns1035LabelPrefix" => is_dns1035_label(&mask_trailing_dash(s)),
            "labelValue" => is_valid_label_value(s, crate::version::KubeVersion::LATEST),
            "uri" => match parse_request_uri(s) {
                Ok(_) => Vec::new(),
                Err(e) => vec![e],
            },
            "uuid" => failing(check_format("uuid", s), "does not match the UUID format"),
            "byte" => failing(check_format("byte", s), "invalid base64"),
            "date" => failing(check_format("date", s), "invalid date"),
            "datetime" => failing(check_format("datetime", s), "invalid datetime"),
            _ => Vec::new(),
        }
    }
}

fn failing(ok: bool, msg: &str) -> Vec<String> {
    if ok {
        Vec::new()
    } else {
        vec![msg.to_string()]
    }
}

impl Opaque for NamedFormat {
    fn type_name(&self) -> &'static str {
        FORMAT
    }
    fn equal(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<NamedFormat>()
            .map(|o| o.name == self.name)
            .unwrap_or(false)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn to_canonical(&self) -> String {
        self.name.to_string()
    }
}

fn named(key: &str) -> Option<NamedFormat> {
    FORMATS
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(k, n)| NamedFormat { key: k, name: n })
}

fn format_val(f: NamedFormat) -> Val<'static> {
    Val::Opaque(Rc::new(f))
}

fn format_named<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let s = args
        .first()
        .and_then(|v| v.as_str())
        .ok_or_else(EvalError::no_such_overload)?;
    Ok(Val::optional(named(s).map(format_val)))
}

fn format_validate<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let f = match args.first() {
        Some(Val::Opaque(o)) => o
            .as_any()
            .downcast_ref::<NamedFormat>()
            .ok_or_else(EvalError::no_such_overload)?,
        _ => return Err(EvalError::no_such_overload()),
    };
    let s = args
        .get(1)
        .and_then(|v| v.as_str())
        .ok_or_else(EvalError::no_such_overload)?;
    let res = f.validate(s);
    if res.is_empty() {
        return Ok(Val::optional(None));
    }
    Ok(Val::optional(Some(Val::list(
        res.into_iter().map(Val::string).collect(),
    ))))
}

macro_rules! constant_format {
    ($fname:ident, $key:literal) => {
        fn $fname<'a>(_args: &[Val<'a>]) -> EvalResult<'a> {
            named($key)
                .map(format_val)
                .ok_or_else(EvalError::no_such_overload)
        }
    };
}

constant_format!(f_dns1123_label, "dns1123Label");
constant_format!(f_dns1123_subdomain, "dns1123Subdomain");
constant_format!(f_dns1035_label, "dns1035Label");
constant_format!(f_qualified_name, "qualifiedName");
constant_format!(f_dns1123_label_prefix, "dns1123LabelPrefix");
constant_format!(f_dns1123_subdomain_prefix, "dns1123SubdomainPrefix");
constant_format!(f_dns1035_label_prefix, "dns1035LabelPrefix");
constant_format!(f_label_value, "labelValue");
constant_format!(f_uri, "uri");
constant_format!(f_uuid, "uuid");
constant_format!(f_byte, "byte");
constant_format!(f_date, "date");
constant_format!(f_datetime, "datetime");

/// The functions this library declares at the environment's compatibility version.
pub fn functions(opts: &EnvOptions) -> Vec<Function> {
    if opts.compat_minor < 31 {
        return Vec::new();
    }
    let f = || Type::opaque(FORMAT);
    let constant = |name: &'static str, imp: crate::cel::env::Impl| {
        Function::new(name, vec![Overload::global(name, vec![], f(), imp)])
    };
    vec![
        Function::new(
            "validate",
            vec![Overload::member(
                "format-validate",
                vec![f(), Type::String],
                Type::optional(Type::list(Type::String)),
                format_validate,
            )],
        ),
        Function::new(
            "format.named",
            vec![Overload::global(
                "format-named",
                vec![Type::String],
                Type::optional(f()),
                format_named,
            )],
        ),
        constant("format.dns1123Label", f_dns1123_label),
        constant("format.dns1123Subdomain", f_dns1123_subdomain),
        constant("format.dns1035Label", f_dns1035_label),
        constant("format.qualifiedName", f_qualified_name),
        constant("format.dns1123LabelPrefix", f_dns1123_label_prefix),
        constant("format.dns1123SubdomainPrefix", f_dns1123_subdomain_prefix),
        constant("format.dns1035LabelPrefix", f_dns1035_label_prefix),
        constant("format.labelValue", f_label_value),
        constant("format.uri", f_uri),
        constant("format.uuid", f_uuid),
        constant("format.byte", f_byte),
        constant("format.date", f_date),
        constant("format.datetime", f_datetime),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validates_like_apimachinery() {
        let v = |k: &str, s: &str| named(k).unwrap().validate(s);
        assert!(v("dns1123LabelPrefix", "my-label-prefix-").is_empty());
        assert!(v("dns1123SubdomainPrefix", "mysubdomain.prefix.-").is_empty());
        assert!(v("dns1035LabelPrefix", "my-label-prefix-").is_empty());
        assert_eq!(v("dns1123SubdomainPrefix", "contains a space-").len(), 1);
        assert!(v("dns1123LabelPrefix", "a_-").is_empty());
        assert!(v("qualifiedName", "apiextensions.k8s.io/v1beta1").is_empty());
        assert!(v("uuid", "123e4567-e89b-12d3-a456-426614174000").is_empty());
        assert_eq!(
            v("uuid", "x"),
            vec!["does not match the UUID format".to_string()]
        );
        assert!(v("byte", "aGVsbG8=").is_empty());
        assert!(v("date", "2021-01-01").is_empty());
        assert!(v("datetime", "2021-01-01T00:00:00Z").is_empty());
        assert_eq!(
            v("uri", "foo"),
            vec!["parse \"foo\": invalid URI for request".to_string()]
        );
        assert_eq!(mask_trailing_dash("-"), "-");
        assert_eq!(mask_trailing_dash("ab-"), "aa");
        assert_eq!(mask_trailing_dash("aé-").len(), 3);
    }

    #[test]
    fn evaluates_through_the_environment() {
        let v = crate::version::KubeVersion::parse("1.36").unwrap();
        let out = crate::cel::eval::evaluate("format.named('uuid').hasValue() && !format.named('nope').hasValue() && format.labelValue().validate('a b').hasValue()", None, None, v);
        assert_eq!(
            out.get("value"),
            Some(&serde_json::json!(true)),
            "{:?}",
            out
        );
    }
}
