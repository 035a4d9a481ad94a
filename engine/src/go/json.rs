//! Go's `encoding/json` package, re-expressed: `Marshal` of unstructured values (sorted
//! keys, HTML-safe escaping), float64 text, and what apimachinery's `utiljson.Unmarshal`
//! makes of numbers (`convertNumber`).

use crate::go::strconv::{push_fixed, shortest_digits};
use serde_json::Value;

/// encoding/json's float64 formatting: 'f' unless the exponent is < -6 or >= 21, then 'e'
/// with a two-digit-minimum exponent trimmed ("1e-07" → "1e-7").
pub fn format_float_json(f: f64) -> String {
    if f == 0.0 {
        return if f.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let (neg, digits, exp) = shortest_digits(f);
    let abs = f.abs();
    let mut s = String::new();
    if neg {
        s.push('-');
    }
    if abs < 1e-6 || abs >= 1e21 {
        let x = exp - 1;
        s.push_str(&digits[..1]);
        if digits.len() > 1 {
            s.push('.');
            s.push_str(&digits[1..]);
        }
        s.push('e');
        s.push(if x < 0 { '-' } else { '+' });
        s.push_str(&x.abs().to_string());
    } else {
        push_fixed(&mut s, &digits, exp);
    }
    s
}

/// encoding/json's Marshal of an unstructured value: sorted keys, HTML-safe escaping.
pub fn json_marshal(v: &Value) -> String {
    let mut out = String::new();
    marshal_into(v, &mut out);
    out
}

fn marshal_into(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.push_str(&i.to_string());
            } else if let Some(u) = n.as_u64() {
                out.push_str(&u.to_string());
            } else {
                out.push_str(&format_float_json(n.as_f64().unwrap_or(0.0)));
            }
        }
        Value::String(s) => json_string(s, out),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                marshal_into(x, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            crate::go::sort::sort(&mut keys);
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_string(k, out);
                out.push(':');
                marshal_into(&m[k.as_str()], out);
            }
            out.push('}');
        }
    }
}

/// How many bytes [`json_marshal`] writes for `v`, counted without writing them, and
/// iteratively (request objects may be deep); counting stops once past `stop_after`.
pub fn json_marshal_len(v: &Value, stop_after: usize) -> usize {
    let mut total = 0usize;
    let mut stack: Vec<&Value> = vec![v];
    while let Some(v) = stack.pop() {
        if total > stop_after {
            break;
        }
        total += match v {
            Value::Null => 4,
            Value::Bool(true) => 4,
            Value::Bool(false) => 5,
            // Integers are counted by their digits (every request is measured: no text is
            // built for them); floats, rare, by their text.
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => decimal_digits(u),
                (None, Some(i)) => 1 + decimal_digits(i.unsigned_abs()),
                _ => format_float_json(n.as_f64().unwrap_or(0.0)).len(),
            },
            Value::String(s) => json_string_len(s),
            Value::Array(a) => {
                stack.extend(a.iter());
                // Brackets and commas.
                2 + a.len().saturating_sub(1)
            }
            Value::Object(m) => {
                // Braces, commas, and per member its key and colon.
                let mut n = 2 + m.len().saturating_sub(1);
                for (k, v) in m {
                    n += json_string_len(k) + 1;
                    stack.push(v);
                }
                n
            }
        };
    }
    total
}

/// The length of [`json_string`]'s output, counted over the bytes (a character that is
/// not escaped is written as its UTF-8 bytes).
fn json_string_len(s: &str) -> usize {
    let b = s.as_bytes();
    let mut n = 2 + b.len();
    // Most strings hold nothing to escape: a branchless count (vectorized) finds out.
    let special = |c: u8| (c < 0x20) | (c == b'"') | (c == b'\\') | (c == b'<') | (c == b'>') | (c == b'&') | (c == 0xe2);
    if b.iter().filter(|&&c| special(c)).count() == 0 {
        return n;
    }
    for (i, &c) in b.iter().enumerate() {
        n += match c {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' => 1,
            b'<' | b'>' | b'&' | 0..=0x1f => 5,
            // U+2028 and U+2029 (E2 80 A8, E2 80 A9) are written as `\u2028`, `\u2029`.
            0xe2 if b.get(i + 1) == Some(&0x80) && matches!(b.get(i + 2), Some(0xa8 | 0xa9)) => 3,
            _ => 0,
        };
    }
    n
}

/// How many digits `u` has in decimal.
fn decimal_digits(u: u64) -> usize {
    u.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// A JSON string as encoding/json writes it (escapes <, >, & and U+2028/U+2029).
pub fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A serde_json formatter that writes float64 values as encoding/json does
/// ([`format_float_json`]): answers carry values the apiserver holds as float64 (an integer
/// beyond int64 in a request, `1e20`), and its JSON prints them `9223372036854776000`, never
/// `9.223372036854776e18`.
struct GoFloatFormatter;

impl serde_json::ser::Formatter for GoFloatFormatter {
    fn write_f64<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, value: f64) -> std::io::Result<()> {
        writer.write_all(format_float_json(value).as_bytes())
    }
    fn write_f32<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, value: f32) -> std::io::Result<()> {
        self.write_f64(writer, value as f64)
    }
}

/// Serializes `v` as compact JSON with Go's float64 text (see [`GoFloatFormatter`]).
pub fn to_json_string<T: serde::Serialize + ?Sized>(v: &T) -> Result<String, serde_json::Error> {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, GoFloatFormatter);
    v.serialize(&mut ser)?;
    // serde_json writes only valid UTF-8.
    Ok(String::from_utf8(out).unwrap_or_default())
}

/// What apimachinery's `utiljson.Unmarshal` does to numbers when it decodes a request into
/// an unstructured object (`convertNumber`): an integer that fits int64 stays an integer,
/// any other number becomes a float64. serde_json keeps integers up to u64::MAX; these
/// become floats here. Iterative: request objects may be deep.
pub fn unstructured_numbers(v: &mut Value) {
    let mut stack: Vec<&mut Value> = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Number(n) if n.as_i64().is_none() && n.as_u64().is_some() => {
                if let Some(f) = n.as_f64().and_then(serde_json::Number::from_f64) {
                    *n = f;
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(m) => stack.extend(m.values_mut()),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_go() {
        assert_eq!(format_float_json(1e21), "1e+21");
        assert_eq!(format_float_json(1e20), "100000000000000000000");
        assert_eq!(format_float_json(0.0000001), "1e-7");
        assert_eq!(format_float_json(2.5), "2.5");
    }

    #[test]
    fn marshal_len_counts_what_marshal_writes() {
        for t in [
            r#"{"b":1,"a":"<x>","c":[1.5,null,true,false,1e21,-3,18446744073709551615],"d":{},"e":[],"f":"\u2028\u0001\"\\é\n"}"#,
            r#"[0,9,10,-1,-10,99,100,-9223372036854775808,9223372036854775807,1e-7,-0.5,"\u2029\u2027\u00e2\u0080\u001f\u007f&>\t\r 日本"]"#,
            "[]",
            "\"\"",
            "[[[{}]]]",
        ] {
            let v: Value = serde_json::from_str(t).unwrap();
            assert_eq!(json_marshal_len(&v, usize::MAX), json_marshal(&v).len(), "{}", t);
        }
        let big = Value::Array(vec![Value::String("x".repeat(100)); 1000]);
        let n = json_marshal_len(&big, 500);
        assert!(n > 500 && n < 2000, "{}", n);
    }

    #[test]
    fn marshals_like_go() {
        let v: Value = serde_json::from_str(r#"{"b":1,"a":"<x>","c":[1.5,null,true]}"#).unwrap();
        assert_eq!(json_marshal(&v), r#"{"a":"\u003cx\u003e","b":1,"c":[1.5,null,true]}"#);
    }


    #[test]
    fn integers_beyond_int64_become_float64_and_print_as_go_does() {
        let mut v: Value = serde_json::from_str(
            r#"{"a": 9223372036854775808, "b": [18446744073709551615, 9223372036854775807, -9223372036854775808], "c": 1e20, "d": 1.5e-7}"#,
        )
        .unwrap();
        unstructured_numbers(&mut v);
        assert!(v["a"].is_f64());
        assert!(v["b"][0].is_f64());
        assert_eq!(v["b"][1].as_i64(), Some(i64::MAX));
        assert_eq!(v["b"][2].as_i64(), Some(i64::MIN));
        assert_eq!(
            to_json_string(&v).unwrap(),
            r#"{"a":9223372036854776000,"b":[18446744073709552000,9223372036854775807,-9223372036854775808],"c":100000000000000000000,"d":1.5e-7}"#
        );
    }
}
