//! Resolving YAML scalars as go-yaml v2 does (`resolve.go`) and sigs.k8s.io/yaml then
//! turns them into JSON: YAML 1.1 booleans, Go's integer and float syntax, no timestamps,
//! floats without a fraction becoming integers, keys becoming strings.

use crate::text::read_error::{err_at, ReadError};
use serde_json::{Number, Value};
use yaml_rust2::parser::Tag;
use yaml_rust2::scanner::{Marker, TScalarStyle};

pub(crate) fn tag_suffix(tag: Option<&Tag>) -> Option<&str> {
    tag.map(|t| t.suffix.as_str())
}

/// A resolved plain scalar, per go-yaml v2's `resolve`.
enum Resolved {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    Str,
}

fn resolve_plain(s: &str) -> Resolved {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Resolved::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Resolved::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Resolved::Bool(false)
        }
        ".nan" | ".NaN" | ".NAN" => return Resolved::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Resolved::Float(f64::INFINITY)
        }
        "-.inf" | "-.Inf" | "-.INF" => return Resolved::Float(f64::NEG_INFINITY),
        _ => {}
    }
    let first = s.as_bytes()[0];
    if !(first.is_ascii_digit() || first == b'-' || first == b'+' || first == b'.') {
        return Resolved::Str;
    }
    let plain: String = s.chars().filter(|&c| c != '_').collect();
    if let Some(i) = go_parse_int(&plain) {
        return Resolved::Int(i);
    }
    if let Some(u) = go_parse_uint(&plain) {
        return Resolved::Uint(u);
    }
    if is_yaml_float(&plain) {
        if let Ok(f) = plain.parse::<f64>() {
            return Resolved::Float(f);
        }
    }
    if let Some(rest) = plain.strip_prefix("0b") {
        if let Ok(i) = i64::from_str_radix(rest, 2) {
            return Resolved::Int(i);
        }
    } else if let Some(rest) = plain.strip_prefix("-0b") {
        if let Ok(i) = i64::from_str_radix(rest, 2) {
            return Resolved::Int(-i);
        }
    }
    Resolved::Str
}

/// `strconv.ParseInt(s, 0, 64)`: sign, then 0x/0o/0b prefixes or a leading 0 for octal.
fn go_parse_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let u = go_parse_uint(body)?;
    if neg {
        if u <= i64::MAX as u64 + 1 {
            Some((u as i128 * -1) as i64)
        } else {
            None
        }
    } else if u <= i64::MAX as u64 {
        Some(u as i64)
    } else {
        None
    }
}

fn go_parse_uint(s: &str) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let (radix, digits) = if let Some(r) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (16, r)
    } else if let Some(r) = s.strip_prefix("0o").or_else(|| s.strip_prefix("0O")) {
        (8, r)
    } else if let Some(r) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        (2, r)
    } else if s.len() > 1 && s.starts_with('0') {
        (8, &s[1..])
    } else {
        (10, s)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// go-yaml's `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
    }
    let start = i;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let d = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == d {
            return false;
        }
    } else {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
            i += 1;
        }
        let d = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == d {
            return false;
        }
    }
    i == b.len()
}

/// A float as it reaches the apiserver after sigs.k8s.io/yaml's JSON step: json.Marshal
/// prints integral values without a fraction, which then decode as integers.
fn float_value(f: f64, mark: Option<&Marker>) -> Result<Value, ReadError> {
    if !f.is_finite() {
        return Err(err_at(
            format!(
                "error converting YAML to JSON: json: unsupported value: {}",
                crate::go::fmt::format_float_v(f)
            ),
            mark,
        ));
    }
    let printed = crate::go::json::format_float_json(f);
    if !printed.contains(['.', 'e', 'E']) {
        if let Ok(i) = printed.parse::<i64>() {
            return Ok(Value::Number(i.into()));
        }
    }
    Ok(Number::from_f64(f)
        .map(Value::Number)
        .unwrap_or(Value::Null))
}

///
/// The scalar's text is taken by value: a string scalar (most of a CRD: descriptions,
/// names) becomes the JSON string without a copy.
pub(crate) fn resolve_scalar(
    s: String,
    style: TScalarStyle,
    tag: Option<&Tag>,
    mark: Option<&Marker>,
) -> Result<Value, ReadError> {
    let explicit = tag_suffix(tag);
    if style != TScalarStyle::Plain
        || explicit == Some("str")
        || explicit == Some("tag:yaml.org,2002:str")
    {
        return Ok(Value::String(s));
    }
    if explicit == Some("binary") {
        return Ok(Value::String(s.split_whitespace().collect()));
    }
    Ok(match resolve_plain(&s) {
        Resolved::Null => Value::Null,
        Resolved::Bool(b) => Value::Bool(b),
        Resolved::Int(i) => Value::Number(i.into()),
        // Beyond int64 the apiserver's JSON decoder keeps a float64.
        Resolved::Uint(u) => float_value(u as f64, mark)?,
        Resolved::Float(f) => float_value(f, mark)?,
        Resolved::Str => Value::String(s),
    })
}

/// Map keys become JSON strings the way sigs.k8s.io/yaml converts go-yaml's keys (the
/// key's text taken by value: a string key is kept without a copy).
pub(crate) fn resolve_key(
    s: String,
    style: TScalarStyle,
    tag: Option<&Tag>,
    mark: Option<&Marker>,
) -> Result<String, ReadError> {
    if style != TScalarStyle::Plain || tag_suffix(tag) == Some("str") {
        return Ok(s);
    }
    Ok(match resolve_plain(&s) {
        Resolved::Null => "null".to_string(),
        Resolved::Bool(b) => b.to_string(),
        Resolved::Int(i) => i.to_string(),
        Resolved::Uint(u) => u.to_string(),
        Resolved::Float(f) => {
            if !f.is_finite() {
                return Err(err_at(
                    "error converting YAML to JSON: invalid map key",
                    mark,
                ));
            }
            crate::go::fmt::format_float_v(f)
        }
        Resolved::Str => s,
    })
}

