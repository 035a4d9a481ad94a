//! Go's `fmt` package, re-expressed for the verbs messages use: `%v` of a float64
//! (`strconv.FormatFloat(f, 'g', -1, 64)`), `%v` and `%#v` of unstructured values.

use crate::go::strconv::{push_fixed, quote, shortest_digits};
use serde_json::Value;

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
            crate::go::sort::sort(&mut keys);
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
    }
}
