//! Go's `strconv` package, re-expressed: `strconv.Quote` (the `%q` verb) and the shortest
//! round-trip digits `strconv.FormatFloat(f, fmt, -1, 64)` starts from. Error messages embed
//! values printed by these, so they must match byte for byte.

use crate::go::unicode::is_print;

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

/// Shortest round-trip decimal digits of |f| and the decimal exponent such that
/// value = 0.d1d2d3... × 10^exp.
pub(crate) fn shortest_digits(f: f64) -> (bool, String, i32) {
    // Rust's `{:e}` prints the shortest round-trip representation: "1.2345e6".
    let e = format!("{:e}", f.abs());
    let (mant, ex) = e.split_once('e').unwrap_or((&e, "0"));
    let ex: i32 = ex.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let digits = digits.trim_end_matches('0').to_string();
    let digits = if digits.is_empty() { "0".to_string() } else { digits };
    (f.is_sign_negative(), digits, ex + 1)
}

/// The fixed (`%f`-style) text of `digits` with the decimal exponent `exp` (value =
/// 0.d1d2d3... × 10^exp), as strconv's `fmtF` writes it.
pub(crate) fn push_fixed(s: &mut String, digits: &str, exp: i32) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_like_go() {
        assert_eq!(quote("a\"b"), "\"a\\\"b\"");
        assert_eq!(quote("é\n"), "\"é\\n\"");
        assert_eq!(quote("\u{1}"), "\"\\x01\"");
    }
}
