//! Reading a JSON document as the apiserver's JSON decoder does (numbers keep the int/float
//! distinction), with a nesting bound checked before serde_json recurses, and a document
//! too big to send refused before it is built.

use crate::k8s::request::{entity_too_large, MAX_REQUEST_BODY_BYTES};
use crate::text::read_error::{err_at, too_deep, ReadError, MAX_DEPTH};
use serde_json::Value;

pub(crate) fn looks_like_json(t: &str) -> bool {
    // A document that is JSON from its first line on (quoted keys) is judged as JSON.
    t.starts_with('{') && t[1..].trim_start().starts_with('"') || t.starts_with("[")
}

/// Reads JSON with serde_json after checking the nesting depth without recursion.
pub fn read_json(text: &str) -> Result<Value, ReadError> {
    check_json_depth(text)?;
    if too_big_to_send(text) {
        // Whatever it holds. (`text::yaml` reads such a text as YAML instead, which
        // builds nothing past the limit but still finds a syntax error, which the client
        // reports before it sends anything.)
        return Err(err_at(entity_too_large(), None));
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let v = <Value as serde::Deserialize>::deserialize(&mut de).map_err(|e| json_err(text, e))?;
    de.end().map_err(|e| json_err(text, e))?;
    Ok(v)
}

/// serde_json counts columns in bytes; ours count characters.
fn json_err(text: &str, e: serde_json::Error) -> ReadError {
    let column = text
        .split('\n')
        .nth(e.line().saturating_sub(1))
        .map(|l| {
            let mut b = e.column().min(l.len());
            while !l.is_char_boundary(b) {
                b -= 1;
            }
            l[..b].chars().count().max(1)
        })
        .unwrap_or(e.column());
    ReadError {
        message: format!("invalid JSON: {}", strip_pos(&e.to_string())),
        line: Some(e.line()),
        column: Some(column),
    }
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
                        message: too_deep(),
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


/// The reader's nesting bound for a value that did not come through it (a JSON value in a
/// batch request or from a library caller): walked without recursion, before anything that
/// recurses sees it.
pub fn check_value_depth(v: &Value) -> Result<(), ReadError> {
    let mut stack = vec![(v, 1usize)];
    while let Some((v, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(a) => Box::new(a.iter()),
            Value::Object(m) => Box::new(m.values()),
            _ => continue,
        };
        if depth > MAX_DEPTH {
            return Err(ReadError {
                message: too_deep(),
                line: None,
                column: None,
            });
        }
        stack.extend(children.map(|c| (c, depth + 1)));
    }
    Ok(())
}

#[cfg(test)]
mod depth_tests {
    use super::*;

    fn nested(levels: usize) -> Value {
        let mut v = Value::from(1);
        for _ in 0..levels {
            v = Value::Array(vec![v]);
        }
        v
    }

    #[test]
    fn value_depth_is_the_readers() {
        assert!(check_value_depth(&nested(MAX_DEPTH)).is_ok());
        assert_eq!(
            check_value_depth(&nested(MAX_DEPTH + 1)).unwrap_err().message,
            too_deep()
        );
        // The text reader agrees on where the bound lies.
        let text = format!("{}1{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(read_json(&text).is_ok());
        let text = format!("{}1{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert!(read_json(&text).is_err());
    }
}

/// The JSON `text` cannot fit in a request body, by [`min_len_of_text`].
pub(crate) fn too_big_to_send(text: &str) -> bool {
    text.len() > MAX_REQUEST_BODY_BYTES && min_len_of_text(text) > MAX_REQUEST_BODY_BYTES as u64
}

/// A lower bound of the size of the JSON Go's encoder writes for the document of a JSON
/// `text`: blanks between tokens dropped, a number counted as one byte (`1.0` is printed
/// `1`), an escape in a string as one (`\u00e9` is printed `é`).
pub(crate) fn min_len_of_text(text: &str) -> u64 {
    let (mut n, mut in_string, mut escaped, mut in_number) = (0u64, false, false, false);
    let mut hex_left = 0u8;
    for &b in text.as_bytes() {
        if in_string {
            if hex_left > 0 {
                hex_left -= 1;
            } else if escaped {
                escaped = false;
                if b == b'u' {
                    hex_left = 4;
                }
            } else if b == b'\\' {
                escaped = true;
                n += 1;
            } else if b == b'"' {
                in_string = false;
                n += 1;
            } else {
                n += 1;
            }
            continue;
        }
        let number = matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9');
        if number {
            if !in_number {
                n += 1;
            }
            in_number = true;
            continue;
        }
        in_number = false;
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => {}
            b'"' => {
                in_string = true;
                n += 1;
            }
            _ => n += 1,
        }
    }
    n
}

/// A lower bound of the size of a scalar's JSON: a string's bytes and quotes (escapes only
/// add), 1 for a number (`1.0` is printed `1`), the literals' length.
pub(crate) fn min_len_of_scalar(v: &Value) -> u64 {
    match v {
        Value::String(s) => s.len() as u64 + 2,
        Value::Number(_) => 1,
        Value::Bool(true) | Value::Null => 4,
        Value::Bool(false) => 5,
        // Containers are counted as they are built.
        Value::Array(_) | Value::Object(_) => 2,
    }
}

#[cfg(test)]
mod size_tests {
    use super::*;

    #[test]
    fn the_lower_bound_never_passes_gos_length() {
        for text in [
            r#"{"a": [1.0, 2e3, -0.5], "s": "\u00e9\n\/", "t": true, "f": false, "n": null}"#,
            "[ ]",
            r#"{"k":"<&>"}"#,
        ] {
            let v: Value = serde_json::from_str(text).unwrap();
            let go = crate::go::json::json_marshal_len(&v, usize::MAX) as u64;
            assert!(min_len_of_text(text) <= go, "{}: {} > {}", text, min_len_of_text(text), go);
        }
        // `{"a":[1,22]}` with `22` counted as one byte.
        assert_eq!(min_len_of_text(r#"{ "a" : [ 1 , 22 ] }"#), 11);
    }

    #[test]
    fn a_json_text_too_big_to_send_is_refused_unbuilt() {
        let big = format!("[{}1]", "1, ".repeat(MAX_REQUEST_BODY_BYTES / 2));
        assert_eq!(read_json(&big).unwrap_err().to_string(), "Request entity too large: limit is 3145728");
        // Blanks do not count: the same items spaced out under the limit are read.
        let spaced = format!("[{}1]", "1,     ".repeat(MAX_REQUEST_BODY_BYTES / 4));
        assert!(read_json(&spaced).is_ok());
        // Read as a document, a syntax error anywhere comes first (found by the YAML
        // reader, which builds nothing past the limit).
        let bad = format!("[{}1}}", "1, ".repeat(MAX_REQUEST_BODY_BYTES / 2));
        let e = crate::text::yaml::read_document(&bad).unwrap_err();
        assert!(e.message.starts_with("yaml: "), "{}", e);
        let e = crate::text::yaml::read_document(&big).unwrap_err();
        assert_eq!(e.to_string(), "Request entity too large: limit is 3145728");
    }
}
