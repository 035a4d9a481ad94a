//! Go's value printing, re-expressed: `%q` (strconv.Quote), `%v` of float64, and
//! encoding/json's Marshal. Error messages embed values printed by these, so they must
//! match byte for byte.

use serde_json::Value;

/// `strconv.Quote`: a double-quoted Go string literal, printable Unicode kept as is.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            c if is_print(c) => out.push(c),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// An approximation of Go's `unicode.IsPrint` (letters, marks, numbers, punctuation,
/// symbols and the ASCII space). Control, format, separator (other than U+0020),
/// private-use, surrogate and non-character code points are not printable. The one copy:
/// `%q` quoting, the managed-fields manager check and the CRD name checks use it.
pub fn is_print(c: char) -> bool {
    let u = c as u32;
    if u < 0x20 || u == 0x7f {
        return false;
    }
    if u < 0x7f {
        return true;
    }
    if (0x80..0xa0).contains(&u) || u == 0xad {
        return false;
    }
    // Separators and format characters Go does not print.
    if matches!(u, 0xa0 | 0x1680 | 0x2000..=0x200f | 0x2028..=0x202f | 0x205f..=0x206f | 0x3000 | 0xfeff | 0xfff9..=0xfffb) {
        return false;
    }
    if (0xe000..=0xf8ff).contains(&u) || (0xf0000..).contains(&u) {
        return false;
    }
    if matches!(u, 0xfffe | 0xffff) {
        return false;
    }
    true
}

/// `fmt.Sprintf("%v", f)` for a float64: strconv.FormatFloat(f, 'g', -1, 64): shortest
/// digits, exponent form when the exponent is < -4 or >= 6 (Go's shortest 'g' precision).
pub fn format_float_v(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf".into() } else { "-Inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let (neg, digits, exp) = shortest_digits(f);
    let x = exp - 1; // exponent of the first digit
    let mut s = String::new();
    if neg {
        s.push('-');
    }
    if x < -4 || x >= 6 {
        s.push_str(&digits[..1]);
        if digits.len() > 1 {
            s.push('.');
            s.push_str(&digits[1..]);
        }
        s.push('e');
        if x < 0 {
            s.push('-');
        } else {
            s.push('+');
        }
        let ax = x.abs();
        if ax < 10 {
            s.push('0');
        }
        s.push_str(&ax.to_string());
    } else {
        push_fixed(&mut s, &digits, exp);
    }
    s
}

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

/// Shortest round-trip decimal digits of |f| and the decimal exponent such that
/// value = 0.d1d2d3... × 10^exp.
fn shortest_digits(f: f64) -> (bool, String, i32) {
    // Rust's `{:e}` prints the shortest round-trip representation: "1.2345e6".
    let e = format!("{:e}", f.abs());
    let (mant, ex) = e.split_once('e').unwrap_or((&e, "0"));
    let ex: i32 = ex.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let digits = digits.trim_end_matches('0').to_string();
    let digits = if digits.is_empty() { "0".to_string() } else { digits };
    (f.is_sign_negative(), digits, ex + 1)
}

fn push_fixed(s: &mut String, digits: &str, exp: i32) {
    if exp <= 0 {
        s.push_str("0.");
        for _ in 0..(-exp) {
            s.push('0');
        }
        s.push_str(digits);
    } else {
        let e = exp as usize;
        if digits.len() <= e {
            s.push_str(digits);
            for _ in digits.len()..e {
                s.push('0');
            }
        } else {
            s.push_str(&digits[..e]);
            s.push('.');
            s.push_str(&digits[e..]);
        }
    }
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
            keys.sort();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_go() {
        assert_eq!(format_float_v(1.5), "1.5");
        assert_eq!(format_float_v(100000000.0), "1e+08");
        assert_eq!(format_float_v(123456789.0), "1.23456789e+08");
        assert_eq!(format_float_v(0.0001), "0.0001");
        assert_eq!(format_float_v(0.00001), "1e-05");
        assert_eq!(format_float_v(3.0), "3");
        assert_eq!(format_float_v(100000.0), "100000");
        assert_eq!(format_float_v(1000000.0), "1e+06");
        assert_eq!(format_float_json(1e21), "1e+21");
        assert_eq!(format_float_json(1e20), "100000000000000000000");
        assert_eq!(format_float_json(0.0000001), "1e-7");
        assert_eq!(format_float_json(2.5), "2.5");
    }

    #[test]
    fn quotes_like_go() {
        assert_eq!(quote("a\"b"), "\"a\\\"b\"");
        assert_eq!(quote("é\n"), "\"é\\n\"");
        assert_eq!(quote("\u{1}"), "\"\\x01\"");
    }

    #[test]
    fn marshals_like_go() {
        let v: Value = serde_json::from_str(r#"{"b":1,"a":"<x>","c":[1.5,null,true]}"#).unwrap();
        assert_eq!(json_marshal(&v), r#"{"a":"\u003cx\u003e","b":1,"c":[1.5,null,true]}"#);
    }
}

/// Go's `%#v` of an unstructured value (`map[string]interface {}{"a":1}`,
/// `[]interface {}{"x", 2}`), as field errors printed values before Kubernetes 1.34.
pub fn go_sharp_v(v: &Value) -> String {
    let mut out = String::new();
    sharp_into(v, &mut out, true);
    out
}

fn sharp_into(v: &Value, out: &mut String, top: bool) {
    match v {
        Value::Null => out.push_str(if top { "<nil>" } else { "interface {}(nil)" }),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match n.as_i64() {
            Some(i) => out.push_str(&i.to_string()),
            None => out.push_str(&format_float_v(n.as_f64().unwrap_or(0.0))),
        },
        Value::String(s) => out.push_str(&quote(s)),
        Value::Array(a) => {
            out.push_str("[]interface {}{");
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                sharp_into(x, out, false);
            }
            out.push('}');
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push_str("map[string]interface {}{");
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&quote(k));
                out.push(':');
                sharp_into(&m[k.as_str()], out, false);
            }
            out.push('}');
        }
    }
}

/// Go's `%v` of an unstructured value: `map[a:1 b:[x y]]` (fmt sorts map keys), `[1 2]`,
/// strings bare, nil as `<nil>`, floats as [`format_float_v`].
pub fn go_v(v: &Value) -> String {
    let mut out = String::new();
    go_v_into(v, &mut out);
    out
}

/// [`go_v`] into `out`.
pub fn go_v_into(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match n.as_i64() {
            Some(i) => out.push_str(&i.to_string()),
            None => out.push_str(&format_float_v(n.as_f64().unwrap_or(0.0))),
        },
        Value::String(s) => out.push_str(s),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                go_v_into(x, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            // serde_json's map is ordered by key, as fmt prints Go maps.
            out.push_str("map[");
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(k);
                out.push(':');
                go_v_into(x, out);
            }
            out.push(']');
        }
    }
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
mod go_json_tests {
    use super::*;

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
