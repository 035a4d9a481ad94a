//! Reading YAML and JSON the way Kubernetes does (sigs.k8s.io/yaml over go-yaml v2, then
//! the apiserver's JSON decoding): YAML 1.1 booleans, go-yaml's number resolution, no
//! timestamps, floats without a fraction becoming integers, duplicate keys rejected (as
//! kubectl's strict decoding does), anchors and aliases. The builder is iterative, so
//! hostile nesting ends in an error, never a stack overflow.

use serde_json::{Map, Value};
use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::Marker;
use crate::text::json::{looks_like_json, read_json};
use crate::text::read_error::{err_at, ReadError, MAX_BYTES, MAX_DEPTH};
use crate::text::scalars::{resolve_key, resolve_scalar};
use crate::text::source_map::{json_source_map, PosBuilder, SourceMap};

/// Reads every document of a YAML stream (or one JSON document).
pub fn read_documents(text: &str) -> Result<Vec<Value>, ReadError> {
    // A byte-order mark is not part of the first key (editors on Windows write one).
    let text = strip_bom(text);
    Ok(read_documents_impl(text, false)?
        .into_iter()
        .map(|(v, _)| v)
        .collect())
}

/// Reads every document like [`read_documents`], each with its [`SourceMap`]: where every
/// node of the JSON value stands in `text`.
pub fn read_documents_with_positions(text: &str) -> Result<Vec<(Value, SourceMap)>, ReadError> {
    let text = strip_bom(text);
    Ok(read_documents_impl(text, true)?
        .into_iter()
        .map(|(v, p)| (v, p.unwrap_or_else(|| SourceMap::empty(text))))
        .collect())
}

fn read_documents_impl(
    text: &str,
    track: bool,
) -> Result<Vec<(Value, Option<SourceMap>)>, ReadError> {
    if text.len() > MAX_BYTES {
        return Err(err_at(
            format!(
                "document is {} bytes, more than the {} bytes crdlab reads",
                text.len(),
                MAX_BYTES
            ),
            None,
        ));
    }
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        // JSON: numbers keep the int/float distinction the apiserver's JSON decoder makes.
        // A JSON text that fails may still be YAML flow style; fall back to YAML then.
        match read_json(trimmed) {
            Ok(v) => {
                let map = if track {
                    Some(json_source_map(text, text.len() - trimmed.len()))
                } else {
                    None
                };
                return Ok(vec![(v, map)]);
            }
            Err(e) if looks_like_json(trimmed) => {
                return Err(shift_position(e, &text[..text.len() - trimmed.len()]))
            }
            Err(_) => {}
        }
    }
    check_printable(text)?;
    read_yaml_impl(text, track)
}

/// go-yaml's reader (`yaml_parser_update_buffer`) refuses any character YAML does not
/// count as printable, wherever it stands (a quoted scalar, a comment): C0 controls but tab,
/// line feed and carriage return, DEL, C1 controls but NEL, U+FFFE and U+FFFF. Its error has
/// no line (a reader error sets no mark); sigs.k8s.io/yaml's `Unmarshal` wraps it. The place
/// is kept for the ranges the editors show.
fn check_printable(text: &str) -> Result<(), ReadError> {
    let printable = |c: char| {
        matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{7e}' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
    };
    let Some(at) = text.find(|c: char| !printable(c)) else { return Ok(()) };
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    Err(ReadError {
        message: "error converting YAML to JSON: yaml: control characters are not allowed".into(),
        line: Some(line),
        column: Some(column),
    })
}

/// Reads exactly one document; empty input is an error.
///
/// # Example
///
/// ```
/// let v = crdlab::text::yaml::read_document("on: yes\nk: 012\n").unwrap();
/// // YAML 1.1 booleans (keys become strings), go-yaml numbers: as the apiserver reads them.
/// assert_eq!(v, serde_json::json!({"true": true, "k": 10}));
/// ```
pub fn read_document(text: &str) -> Result<Value, ReadError> {
    let mut docs = read_documents(text)?;
    docs.retain(|d| !d.is_null());
    match docs.len() {
        0 => Err(err_at("empty document", None)),
        _ => Ok(docs.swap_remove(0)),
    }
}

/// Reads exactly one document like [`read_document`], with its [`SourceMap`].
pub fn read_document_with_positions(text: &str) -> Result<(Value, SourceMap), ReadError> {
    let mut docs = read_documents_with_positions(text)?;
    docs.retain(|(d, _)| !d.is_null());
    match docs.len() {
        0 => Err(err_at("empty document", None)),
        _ => Ok(docs.swap_remove(0)),
    }
}

/// A JSON error's position counted from the start of the whole text (JSON is read after
/// the leading blanks, `skipped`).
fn shift_position(mut e: ReadError, skipped: &str) -> ReadError {
    let newlines = skipped.matches('\n').count();
    if let Some(l) = e.line.as_mut() {
        if *l == 1 {
            let last = skipped.rsplit('\n').next().unwrap_or("");
            e.column = e.column.map(|c| c + last.chars().count());
        }
        *l += newlines;
    }
    e
}

enum Frame {
    Seq {
        items: Vec<Value>,
        anchor: usize,
    },
    Map {
        map: Map<String, Value>,
        key: Option<(String, Marker)>,
        anchor: usize,
        merged: Vec<String>,
    },
}

/// Reads a YAML stream into JSON values, one per document.
pub fn read_yaml(text: &str) -> Result<Vec<Value>, ReadError> {
    Ok(read_yaml_impl(text, false)?
        .into_iter()
        .map(|(v, _)| v)
        .collect())
}

/// The YAML builder; with `track`, a [`SourceMap`] is built beside each document.
///
/// The scanner is yaml-rust2 with go-yaml v2's acceptance of quoted scalars whose
/// continuation lines stand left of their block (vendor/yaml-rust2/CRDLAB-PATCH.md).
fn read_yaml_impl(text: &str, track: bool) -> Result<Vec<(Value, Option<SourceMap>)>, ReadError> {
    let mut parser = Parser::new_from_str(text);
    let mut pos = if track {
        Some(PosBuilder::for_yaml(text))
    } else {
        None
    };
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
                if let Some(p) = pos.as_mut() {
                    p.start_document();
                }
                None
            }
            Event::DocumentEnd => {
                let map = pos.as_mut().map(|p| p.take_root());
                docs.push((doc_value.take().unwrap_or(Value::Null), map));
                None
            }
            Event::Alias(id) => match anchors.get(&id) {
                Some(v) => {
                    if let Some(p) = pos.as_mut() {
                        p.leaf(&mark, None);
                    }
                    Some((v.clone(), 0))
                }
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
                    if let Some(p) = pos.as_mut() {
                        p.key(&mark, &s, style);
                    }
                    if anchor > 0 {
                        anchors.insert(anchor, Value::String(s));
                    }
                    None
                } else {
                    let v = resolve_scalar(&s, style, tag.as_ref(), &mark)?;
                    if let Some(p) = pos.as_mut() {
                        p.leaf(&mark, Some((&s, style)));
                        p.props(anchor > 0, tag.is_some());
                    }
                    Some((v, anchor))
                }
            }
            Event::SequenceStart(anchor, tag) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(err_at(
                        format!("nesting deeper than {} levels", MAX_DEPTH),
                        Some(&mark),
                    ));
                }
                stack.push(Frame::Seq {
                    items: Vec::new(),
                    anchor,
                });
                if let Some(p) = pos.as_mut() {
                    p.open(&mark, b'[');
                    p.open_props(anchor > 0, tag.is_some());
                }
                None
            }
            Event::MappingStart(anchor, tag) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(err_at(
                        format!("nesting deeper than {} levels", MAX_DEPTH),
                        Some(&mark),
                    ));
                }
                stack.push(Frame::Map {
                    map: Map::new(),
                    key: None,
                    anchor,
                    merged: Vec::new(),
                });
                if let Some(p) = pos.as_mut() {
                    p.open(&mark, b'{');
                    p.open_props(anchor > 0, tag.is_some());
                }
                None
            }
            Event::SequenceEnd => match stack.pop() {
                Some(Frame::Seq { items, anchor }) => {
                    if let Some(p) = pos.as_mut() {
                        p.close(&mark, b']');
                    }
                    Some((Value::Array(items), anchor))
                }
                _ => return Err(err_at("yaml: unbalanced sequence", Some(&mark))),
            },
            Event::MappingEnd => match stack.pop() {
                Some(Frame::Map { map, anchor, .. }) => {
                    if let Some(p) = pos.as_mut() {
                        p.close(&mark, b'}');
                    }
                    Some((Value::Object(map), anchor))
                }
                _ => return Err(err_at("yaml: unbalanced mapping", Some(&mark))),
            },
        };
        if let Some((value, anchor)) = finished {
            if anchor > 0 {
                anchors.insert(anchor, value.clone());
            }
            match stack.last_mut() {
                None => {
                    if let Some(p) = pos.as_mut() {
                        p.attach(None);
                    }
                    doc_value = Some(value)
                }
                Some(Frame::Seq { items, .. }) => {
                    if let Some(p) = pos.as_mut() {
                        p.attach(None);
                    }
                    items.push(value)
                }
                Some(Frame::Map {
                    map, key, merged, ..
                }) => {
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
                    if let Some(p) = pos.as_mut() {
                        p.attach(Some(&k));
                    }
                    if k == "<<" {
                        merge_into(map, merged, value, &kmark)?;
                    } else {
                        if map.contains_key(&k) && !merged.contains(&k) {
                            return Err(err_at(
                                format!(
                                    "error converting YAML to JSON: yaml: unmarshal errors:\n  line {}: key {} already set in map",
                                    kmark.line(),
                                    crate::go::strconv::quote(&k)
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
        let map = pos.as_mut().map(|p| p.take_root());
        docs.push((v, map));
    }
    Ok(docs)
}

/// `<<: *anchor` (or a list of them): keys not already present are merged in.
fn merge_into(
    map: &mut Map<String, Value>,
    merged: &mut Vec<String>,
    v: Value,
    mark: &Marker,
) -> Result<(), ReadError> {
    let sources = match v {
        Value::Object(m) => vec![m],
        Value::Array(a) => {
            let mut out = Vec::new();
            for x in a {
                match x {
                    Value::Object(m) => out.push(m),
                    _ => {
                        return Err(err_at(
                            "yaml: map merge requires map or sequence of maps as the value",
                            Some(mark),
                        ))
                    }
                }
            }
            out
        }
        _ => {
            return Err(err_at(
                "yaml: map merge requires map or sequence of maps as the value",
                Some(mark),
            ))
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(s: &str) -> Value {
        read_document(s).unwrap()
    }

    /// go-yaml's reader refuses control characters anywhere in a YAML text (a NUL no
    /// longer ends the scalar silently); tabs, NEL, a BOM and U+FFFD are printable.
    #[test]
    fn control_characters_are_refused() {
        let control = "error converting YAML to JSON: yaml: control characters are not allowed";
        for (text, line, column) in [
            ("a: \"x\u{1}\"\n", 1, 6),
            ("a: 1\nb: x\u{0}y\n", 2, 5),
            ("# \u{7f}\na: 1\n", 1, 3),
            ("a: \u{9f}\n", 1, 4),
            ("a: \u{ffff}\n", 1, 4),
        ] {
            let e = read_document(text).unwrap_err();
            assert_eq!((e.message.as_str(), e.line, e.column), (control, Some(line), Some(column)), "{:?}", text);
        }
        assert_eq!(one("a: \"b\tc\u{feff}\u{fffd}\"\n"), json!({"a": "b\tc\u{feff}\u{fffd}"}));
    }

    #[test]
    fn yaml11_booleans_and_numbers() {
        assert_eq!(one("a: yes\nb: off\nc: 'yes'\nd: 1.0\ne: 1.5\nf: 0x1F\ng: 017\nh: 2024-01-01\ni: ~\nj: 1_000"),
            json!({"a": true, "b": false, "c": "yes", "d": 1, "e": 1.5, "f": 31, "g": 15, "h": "2024-01-01", "i": null, "j": 1000}));
    }

    #[test]
    fn keys_become_strings() {
        // go-yaml v2 resolves `on` and `y` as booleans, keys included: both become "true".
        assert_eq!(
            one("1: a\non: c\n0x10: d\n"),
            json!({"1": "a", "true": "c", "16": "d"})
        );
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
        assert_eq!(
            one("base: &b {a: 1, b: 2}\nd:\n  <<: *b\n  b: 3\n"),
            json!({"base": {"a": 1, "b": 2}, "d": {"a": 1, "b": 3}})
        );
    }

    #[test]
    fn byte_order_mark_is_ignored() {
        assert_eq!(one("\u{feff}a: 1\n"), json!({"a": 1}));
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
        let deep_yaml = "a:\n".to_string()
            + &(1..3000)
                .map(|i| format!("{}a:\n", " ".repeat(i)))
                .collect::<String>();
        assert!(read_document(&deep_yaml).is_err());
    }

    #[test]
    fn malformed_yaml_has_position() {
        let e = read_document("a: [1, 2\nb: c").unwrap_err();
        assert!(e.line.is_some());
    }

}

/// The text without a leading UTF-8 byte-order mark.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}
