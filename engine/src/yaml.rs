//! Reading YAML and JSON the way Kubernetes does (sigs.k8s.io/yaml over go-yaml v2, then
//! the apiserver's JSON decoding): YAML 1.1 booleans, go-yaml's number resolution, no
//! timestamps, floats without a fraction becoming integers, duplicate keys rejected (as
//! kubectl's strict decoding does), anchors and aliases. The builder is iterative, so
//! hostile nesting ends in an error, never a stack overflow.

use serde_json::{Map, Number, Value};
use std::fmt;
use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// Deepest nesting accepted in any document (objects plus lists).
pub const MAX_DEPTH: usize = 512;
/// Largest document accepted, in bytes (a generous multiple of the apiserver's 3 MiB limit,
/// so that oversized objects can still be read and reported by validation).
pub const MAX_BYTES: usize = 64 * 1024 * 1024;

/// A reading error with its position (1-based line and column) when known.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadError {
    pub message: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "line {}, column {}: {}", l, c, self.message),
            (Some(l), None) => write!(f, "line {}: {}", l, self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ReadError {}

fn err_at(message: impl Into<String>, mark: Option<&Marker>) -> ReadError {
    ReadError {
        message: message.into(),
        line: mark.map(|m| m.line()),
        column: mark.map(|m| m.col() + 1),
    }
}

/// Reads every document of a YAML stream (or one JSON document).
pub fn read_documents(text: &str) -> Result<Vec<Value>, ReadError> {
    if text.len() > MAX_BYTES {
        return Err(err_at(
            format!("document is {} bytes, more than the {} bytes crdlab reads", text.len(), MAX_BYTES),
            None,
        ));
    }
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        // JSON: numbers keep the int/float distinction the apiserver's JSON decoder makes.
        // A JSON text that fails may still be YAML flow style; fall back to YAML then.
        match read_json(trimmed) {
            Ok(v) => return Ok(vec![v]),
            Err(e) if looks_like_json(trimmed) => return Err(e),
            Err(_) => {}
        }
    }
    read_yaml(text)
}

/// Reads exactly one document; empty input is an error.
pub fn read_document(text: &str) -> Result<Value, ReadError> {
    let mut docs = read_documents(text)?;
    docs.retain(|d| !d.is_null());
    match docs.len() {
        0 => Err(err_at("empty document", None)),
        _ => Ok(docs.swap_remove(0)),
    }
}

fn looks_like_json(t: &str) -> bool {
    // A document that is JSON from its first line on (quoted keys) is judged as JSON.
    t.starts_with('{') && t[1..].trim_start().starts_with('"') || t.starts_with("[")
}

/// Reads JSON with serde_json after checking the nesting depth without recursion.
pub fn read_json(text: &str) -> Result<Value, ReadError> {
    check_json_depth(text)?;
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let v = <Value as serde::Deserialize>::deserialize(&mut de).map_err(json_err)?;
    de.end().map_err(json_err)?;
    Ok(v)
}

fn json_err(e: serde_json::Error) -> ReadError {
    ReadError { message: format!("invalid JSON: {}", strip_pos(&e.to_string())), line: Some(e.line()), column: Some(e.column()) }
}

fn strip_pos(s: &str) -> String {
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s.to_string(),
    }
}

fn check_json_depth(text: &str) -> Result<(), ReadError> {
    let mut depth = 0usize;
    let mut in_str = false;
    let mut esc = false;
    let (mut line, mut col) = (1usize, 0usize);
    for c in text.chars() {
        col += 1;
        if c == '\n' {
            line += 1;
            col = 0;
        }
        if in_str {
            if esc {
                esc = false;
            } else if c == '\\' {
                esc = true;
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '{' | '[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(ReadError {
                        message: format!("nesting deeper than {} levels", MAX_DEPTH),
                        line: Some(line),
                        column: Some(col),
                    });
                }
            }
            '}' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

enum Frame {
    Seq { items: Vec<Value>, anchor: usize },
    Map { map: Map<String, Value>, key: Option<(String, Marker)>, anchor: usize, merged: Vec<String> },
}

/// Reads a YAML stream into JSON values, one per document.
pub fn read_yaml(text: &str) -> Result<Vec<Value>, ReadError> {
    let mut parser = Parser::new_from_str(text);
    let mut docs = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut anchors: std::collections::HashMap<usize, Value> = Default::default();
    let mut doc_value: Option<Value> = None;
    loop {
        let (ev, mark) = parser.next_token().map_err(|e| {
            let m = *e.marker();
            err_at(format!("yaml: {}", e.info()), Some(&m))
        })?;
        let finished: Option<(Value, usize)> = match ev {
            Event::StreamStart | Event::Nothing => None,
            Event::StreamEnd => break,
            Event::DocumentStart => {
                doc_value = None;
                anchors.clear();
                None
            }
            Event::DocumentEnd => {
                docs.push(doc_value.take().unwrap_or(Value::Null));
                None
            }
            Event::Alias(id) => match anchors.get(&id) {
                Some(v) => Some((v.clone(), 0)),
                None => return Err(err_at("yaml: unknown anchor referenced", Some(&mark))),
            },
            Event::Scalar(s, style, anchor, tag) => {
                // Keys are resolved by the map frame (they become strings).
                let is_key = matches!(stack.last(), Some(Frame::Map { key: None, .. }));
                if is_key {
                    let k = resolve_key(&s, style, tag.as_ref(), &mark)?;
                    if let Some(Frame::Map { key, .. }) = stack.last_mut() {
                        *key = Some((k, mark));
                    }
                    if anchor > 0 {
                        anchors.insert(anchor, Value::String(s));
                    }
                    None
                } else {
                    Some((resolve_scalar(&s, style, tag.as_ref(), &mark)?, anchor))
                }
            }
            Event::SequenceStart(anchor, _) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(err_at(format!("nesting deeper than {} levels", MAX_DEPTH), Some(&mark)));
                }
                stack.push(Frame::Seq { items: Vec::new(), anchor });
                None
            }
            Event::MappingStart(anchor, _) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(err_at(format!("nesting deeper than {} levels", MAX_DEPTH), Some(&mark)));
                }
                stack.push(Frame::Map { map: Map::new(), key: None, anchor, merged: Vec::new() });
                None
            }
            Event::SequenceEnd => match stack.pop() {
                Some(Frame::Seq { items, anchor }) => Some((Value::Array(items), anchor)),
                _ => return Err(err_at("yaml: unbalanced sequence", Some(&mark))),
            },
            Event::MappingEnd => match stack.pop() {
                Some(Frame::Map { map, anchor, .. }) => Some((Value::Object(map), anchor)),
                _ => return Err(err_at("yaml: unbalanced mapping", Some(&mark))),
            },
        };
        if let Some((value, anchor)) = finished {
            if anchor > 0 {
                anchors.insert(anchor, value.clone());
            }
            match stack.last_mut() {
                None => doc_value = Some(value),
                Some(Frame::Seq { items, .. }) => items.push(value),
                Some(Frame::Map { map, key, merged, .. }) => {
                    let (k, kmark) = match key.take() {
                        Some(k) => k,
                        None => {
                            // A non-scalar key: go-yaml would make it a map key that JSON
                            // cannot hold.
                            return Err(err_at(
                                "error converting YAML to JSON: yaml: invalid map key: complex keys are not supported",
                                Some(&mark),
                            ));
                        }
                    };
                    if k == "<<" {
                        merge_into(map, merged, value, &kmark)?;
                    } else {
                        if map.contains_key(&k) && !merged.contains(&k) {
                            return Err(err_at(
                                format!(
                                    "error converting YAML to JSON: yaml: unmarshal errors:\n  line {}: key {} already set in map",
                                    kmark.line(),
                                    crate::gofmt::quote(&k)
                                ),
                                Some(&kmark),
                            ));
                        }
                        merged.retain(|m| m != &k);
                        map.insert(k, value);
                    }
                }
            }
        }
    }
    if let Some(v) = doc_value {
        docs.push(v);
    }
    Ok(docs)
}

/// `<<: *anchor` (or a list of them): keys not already present are merged in.
fn merge_into(map: &mut Map<String, Value>, merged: &mut Vec<String>, v: Value, mark: &Marker) -> Result<(), ReadError> {
    let sources = match v {
        Value::Object(m) => vec![m],
        Value::Array(a) => {
            let mut out = Vec::new();
            for x in a {
                match x {
                    Value::Object(m) => out.push(m),
                    _ => return Err(err_at("yaml: map merge requires map or sequence of maps as the value", Some(mark))),
                }
            }
            out
        }
        _ => return Err(err_at("yaml: map merge requires map or sequence of maps as the value", Some(mark))),
    };
    for m in sources {
        for (k, v) in m {
            if !map.contains_key(&k) {
                merged.push(k.clone());
                map.insert(k, v);
            }
        }
    }
    Ok(())
}

fn tag_suffix(tag: Option<&Tag>) -> Option<&str> {
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
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return Resolved::Float(f64::INFINITY),
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
fn float_value(f: f64, mark: &Marker) -> Result<Value, ReadError> {
    if !f.is_finite() {
        return Err(err_at(
            format!("error converting YAML to JSON: json: unsupported value: {}", crate::gofmt::format_float_v(f)),
            Some(mark),
        ));
    }
    let printed = crate::gofmt::format_float_json(f);
    if !printed.contains(['.', 'e', 'E']) {
        if let Ok(i) = printed.parse::<i64>() {
            return Ok(Value::Number(i.into()));
        }
    }
    Ok(Number::from_f64(f).map(Value::Number).unwrap_or(Value::Null))
}

fn resolve_scalar(s: &str, style: TScalarStyle, tag: Option<&Tag>, mark: &Marker) -> Result<Value, ReadError> {
    let explicit = tag_suffix(tag);
    if style != TScalarStyle::Plain || explicit == Some("str") || explicit == Some("tag:yaml.org,2002:str") {
        return Ok(Value::String(s.to_string()));
    }
    if explicit == Some("binary") {
        return Ok(Value::String(s.split_whitespace().collect()));
    }
    Ok(match resolve_plain(s) {
        Resolved::Null => Value::Null,
        Resolved::Bool(b) => Value::Bool(b),
        Resolved::Int(i) => Value::Number(i.into()),
        // Beyond int64 the apiserver's JSON decoder keeps a float64.
        Resolved::Uint(u) => float_value(u as f64, mark)?,
        Resolved::Float(f) => float_value(f, mark)?,
        Resolved::Str => Value::String(s.to_string()),
    })
}

/// Map keys become JSON strings the way sigs.k8s.io/yaml converts go-yaml's keys.
fn resolve_key(s: &str, style: TScalarStyle, tag: Option<&Tag>, mark: &Marker) -> Result<String, ReadError> {
    if style != TScalarStyle::Plain || tag_suffix(tag) == Some("str") {
        return Ok(s.to_string());
    }
    Ok(match resolve_plain(s) {
        Resolved::Null => "null".to_string(),
        Resolved::Bool(b) => b.to_string(),
        Resolved::Int(i) => i.to_string(),
        Resolved::Uint(u) => u.to_string(),
        Resolved::Float(f) => {
            if !f.is_finite() {
                return Err(err_at("error converting YAML to JSON: invalid map key", Some(mark)));
            }
            crate::gofmt::format_float_v(f)
        }
        Resolved::Str => s.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(s: &str) -> Value {
        read_document(s).unwrap()
    }

    #[test]
    fn yaml11_booleans_and_numbers() {
        assert_eq!(one("a: yes\nb: off\nc: 'yes'\nd: 1.0\ne: 1.5\nf: 0x1F\ng: 017\nh: 2024-01-01\ni: ~\nj: 1_000"),
            json!({"a": true, "b": false, "c": "yes", "d": 1, "e": 1.5, "f": 31, "g": 15, "h": "2024-01-01", "i": null, "j": 1000}));
    }

    #[test]
    fn keys_become_strings() {
        // go-yaml v2 resolves `on` and `y` as booleans, keys included: both become "true".
        assert_eq!(one("1: a\non: c\n0x10: d\n"), json!({"1": "a", "true": "c", "16": "d"}));
        assert_eq!(one("y: 1\nn: 2\n"), json!({"true": 1, "false": 2}));
    }

    #[test]
    fn duplicate_keys_are_errors() {
        let e = read_document("a: 1\nb: 2\na: 3\n").unwrap_err();
        assert!(e.message.contains("key \"a\" already set in map"), "{}", e);
        assert_eq!(e.line, Some(3));
    }

    #[test]
    fn anchors_and_merge() {
        assert_eq!(one("base: &b {a: 1, b: 2}\nd:\n  <<: *b\n  b: 3\n"), json!({"base": {"a": 1, "b": 2}, "d": {"a": 1, "b": 3}}));
    }

    #[test]
    fn multi_document() {
        let d = read_documents("a: 1\n---\nb: 2\n").unwrap();
        assert_eq!(d, vec![json!({"a": 1}), json!({"b": 2})]);
    }

    #[test]
    fn json_keeps_float_vs_int() {
        let v = one("{\"a\": 1.0, \"b\": 2}");
        assert!(v["a"].is_f64());
        assert!(v["b"].is_i64());
    }

    #[test]
    fn deep_nesting_is_an_error() {
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        let e = read_document(&deep).unwrap_err();
        assert!(e.message.contains("nesting deeper than"), "{}", e);
        let deep_yaml = "a:\n".to_string() + &(1..3000).map(|i| format!("{}a:\n", " ".repeat(i))).collect::<String>();
        assert!(read_document(&deep_yaml).is_err());
    }

    #[test]
    fn malformed_yaml_has_position() {
        let e = read_document("a: [1, 2\nb: c").unwrap_err();
        assert!(e.line.is_some());
    }
}
