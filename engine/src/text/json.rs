//! Reading a JSON document as the apiserver's JSON decoder does (numbers keep the int/float
//! distinction), with a nesting bound checked before serde_json recurses.

use crate::text::read_error::{too_deep, ReadError, MAX_DEPTH};
use serde_json::Value;

pub(crate) fn looks_like_json(t: &str) -> bool {
    // A document that is JSON from its first line on (quoted keys) is judged as JSON.
    t.starts_with('{') && t[1..].trim_start().starts_with('"') || t.starts_with("[")
}

/// Reads JSON with serde_json after checking the nesting depth without recursion.
pub fn read_json(text: &str) -> Result<Value, ReadError> {
    check_json_depth(text)?;
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
