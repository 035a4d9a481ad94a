//! The npm package's fast path for `Expression.evaluate(vars)`: variables packed by the
//! package's JavaScript layer (engine/npm/wrap/core.js, `packVars`) into numbers and UTF-8
//! bytes instead of a JSON text, and plain results handed back as numbers and bytes.
//!
//! The JSON route (`JSON.stringify`, then `text::json::read_json` and
//! `cel::eval::typed_var`) costs several microseconds per call in WebAssembly, more than the
//! evaluation of a small expression. The packed route must give exactly the values the JSON
//! route gives, so the JavaScript layer packs only what it can carry without a difference
//! (safe integers, finite doubles with `-0` as `0`, well-formed strings, plain arrays and
//! objects without `undefined`, well under the request limit) and sends everything else the
//! JSON route; [`unpack`] refuses anything inconsistent the same way.
//!
//! Layout, per declared variable in declaration order: `1` (given) or `0` (absent), then for
//! a given one its value by type: a number for `int`, `uint`, `double` and `bool` (`0`/`1`);
//! for `string`, the string's length in UTF-8 bytes, its bytes taken in turn from the shared
//! bytes (the JavaScript layer encodes them straight into the module's memory); for
//! `list(T)`, the length and then each element; for `map(string, T)`, the length and then
//! each key (as a string) and value. Strings are borrowed from those bytes, not copied.

use crate::cel::types::Type;
use crate::cel::value::{EvalError, Str, Val};
use serde_json::{json, Value};

/// How deeply list and map types may nest and still take the packed route.
const MAX_PACKED_TYPE_DEPTH: usize = 32;

/// The packing spec of a declared type, for the JavaScript layer: `"int"`, `"uint"`,
/// `"double"`, `"string"`, `"bool"`, `["list", T]`, `["map", T]` (string keys), or `null`
/// for a type whose variables always take the JSON route.
pub fn spec(t: &Type) -> Value {
    spec_at(t, 0)
}

fn spec_at(t: &Type, depth: usize) -> Value {
    if depth > MAX_PACKED_TYPE_DEPTH {
        return Value::Null;
    }
    match t {
        Type::Int => json!("int"),
        Type::Uint => json!("uint"),
        Type::Double => json!("double"),
        Type::String => json!("string"),
        Type::Bool => json!("bool"),
        Type::List(e) => match spec_at(e, depth + 1) {
            Value::Null => Value::Null,
            s => json!(["list", s]),
        },
        Type::Map(k, v) if **k == Type::String => match spec_at(v, depth + 1) {
            Value::Null => Value::Null,
            s => json!(["map", s]),
        },
        _ => Value::Null,
    }
}

/// The variables of `decls` from their packed form; `None` when the numbers or the bytes do
/// not fit the types (the caller then takes the JSON route).
pub fn unpack<'d, 'b>(decls: &'d [(String, Type)], nums: &[f64], bytes: &'b [u8]) -> Option<Vec<(&'d str, Val<'b>)>> {
    let mut out = Vec::with_capacity(decls.len());
    read(decls, nums, bytes, |name, v| out.push((name, v)))?;
    Some(out)
}

/// `f` of the variables [`unpack`] reads, held on the stack when there are few (a vector's
/// allocation and release cost a tenth of a small evaluation in WebAssembly).
pub fn with_unpacked<'d, 'b, R>(
    decls: &'d [(String, Type)],
    nums: &[f64],
    bytes: &'b [u8],
    f: impl FnOnce(&[(&'d str, Val<'b>)]) -> R,
) -> Option<R> {
    const INLINE: usize = 8;
    if decls.len() > INLINE {
        return unpack(decls, nums, bytes).map(|vars| f(&vars));
    }
    let mut held: [(&'d str, Val<'b>); INLINE] = std::array::from_fn(|_| ("", Val::Null));
    let mut n = 0;
    read(decls, nums, bytes, |name, v| {
        held[n] = (name, v);
        n += 1;
    })?;
    Some(f(&held[..n]))
}

/// Reads the variables of `decls`, giving each one sent to `given`; `None` when the packing
/// does not fit the types.
fn read<'d, 'b>(
    decls: &'d [(String, Type)],
    nums: &[f64],
    bytes: &'b [u8],
    mut given: impl FnMut(&'d str, Val<'b>),
) -> Option<()> {
    let mut r = Reader { nums, at: 0, bytes, bytes_at: 0 };
    for (name, t) in decls {
        match r.num()? {
            0.0 => {}
            1.0 => given(name.as_str(), r.value(t, 0)?),
            _ => return None,
        }
    }
    // Everything sent was read.
    (r.at == nums.len() && r.bytes_at == bytes.len()).then_some(())
}

struct Reader<'n, 'b> {
    nums: &'n [f64],
    at: usize,
    bytes: &'b [u8],
    bytes_at: usize,
}

impl<'b> Reader<'_, 'b> {
    fn num(&mut self) -> Option<f64> {
        let n = *self.nums.get(self.at)?;
        self.at += 1;
        Some(n)
    }

    /// A count: a whole number no larger than what is left to read.
    fn len(&mut self) -> Option<usize> {
        let n = self.num()?;
        (n >= 0.0 && n.fract() == 0.0 && n <= (self.nums.len() + self.bytes.len()) as f64).then_some(n as usize)
    }

    /// A safe integer (±(2^53 − 1)), the ints the JSON text carries exactly.
    fn int(&mut self) -> Option<i64> {
        const MAX_SAFE: f64 = 9_007_199_254_740_991.0;
        let n = self.num()?;
        (n.fract() == 0.0 && n.abs() <= MAX_SAFE).then_some(n as i64)
    }

    /// The next string: its length in bytes, then that many of the shared bytes, which must
    /// be UTF-8 (the JavaScript layer's `TextEncoder` writes nothing else).
    fn string(&mut self) -> Option<&'b str> {
        let len = self.len()?;
        let end = self.bytes_at.checked_add(len)?;
        let s = std::str::from_utf8(self.bytes.get(self.bytes_at..end)?).ok()?;
        self.bytes_at = end;
        Some(s)
    }

    fn value(&mut self, t: &Type, depth: usize) -> Option<Val<'b>> {
        if depth > MAX_PACKED_TYPE_DEPTH {
            return None;
        }
        Some(match t {
            Type::Int => Val::Int(self.int()?),
            Type::Uint => Val::Uint(u64::try_from(self.int()?).ok()?),
            Type::Double => {
                let d = self.num()?;
                // JSON has no -0, NaN or infinities: the JavaScript layer never sends them.
                if !d.is_finite() || (d == 0.0 && d.is_sign_negative()) {
                    return None;
                }
                Val::Double(d)
            }
            Type::Bool => match self.num()? {
                0.0 => Val::Bool(false),
                1.0 => Val::Bool(true),
                _ => return None,
            },
            Type::String => Val::String(Str::Borrowed(self.string()?)),
            Type::List(e) => {
                let n = self.len()?;
                let mut items = Vec::with_capacity(n.min(self.nums.len()));
                for _ in 0..n {
                    items.push(self.value(e, depth + 1)?);
                }
                Val::list(items)
            }
            Type::Map(k, v) if **k == Type::String => {
                let n = self.len()?;
                let mut entries = Vec::with_capacity(n.min(self.nums.len()));
                for _ in 0..n {
                    let key = self.string()?;
                    entries.push((key, self.value(v, depth + 1)?));
                }
                // The JSON route reads the object into a serde_json map, which iterates its
                // keys in byte order; the entries keep that order. A JavaScript object has
                // no duplicate keys.
                crate::go::sort::sort_by(&mut entries, |a, b| a.0.cmp(&b.0));
                if entries.windows(2).any(|w| w[0].0 == w[1].0) {
                    return None;
                }
                Val::map(entries.into_iter().map(|(k, v)| (Val::String(Str::Borrowed(k)), v)).collect())
            }
            _ => return None,
        })
    }
}

/// The answer's code for a result that is no [`Plain`] one: the whole answer is JSON text.
pub const JSON_ANSWER: u32 = 0;
/// The answer's code when the packing does not fit (or the call cannot be made): the
/// JavaScript layer takes the JSON route. [`Plain::code`] gives 1–7.
pub const NOT_PACKED: u32 = 8;

/// A result the JavaScript layer builds its answer from without JSON.
#[derive(Debug, PartialEq)]
pub enum Plain<'r> {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    /// Finite: the answer of a NaN or an infinity is a string, built by the JSON route.
    Double(f64),
    String(&'r str),
    /// `evalError`.
    Error(&'r str),
}

impl Plain<'_> {
    /// The code the JavaScript layer reads (engine/npm/wrap/core.js).
    pub fn code(&self) -> u32 {
        match self {
            Plain::Null => 1,
            Plain::Bool(_) => 2,
            Plain::Int(_) => 3,
            Plain::Uint(_) => 4,
            Plain::Double(_) => 5,
            Plain::String(_) => 6,
            Plain::Error(_) => 7,
        }
    }

    /// The number the JavaScript layer reads (what `JSON.parse` makes of the
    /// JSON route's number: the nearest double, as `as f64` rounds).
    pub fn number(&self) -> f64 {
        match self {
            Plain::Bool(b) => f64::from(u8::from(*b)),
            Plain::Int(i) => *i as f64,
            Plain::Uint(u) => *u as f64,
            Plain::Double(d) => *d,
            _ => 0.0,
        }
    }
}

/// The result as a [`Plain`] one, if it is one.
pub fn plain<'r>(result: &'r Result<Val, EvalError>) -> Option<Plain<'r>> {
    Some(match result {
        Err(e) => Plain::Error(&e.message),
        Ok(Val::Null) => Plain::Null,
        Ok(Val::Bool(b)) => Plain::Bool(*b),
        Ok(Val::Int(i)) => Plain::Int(*i),
        Ok(Val::Uint(u)) => Plain::Uint(*u),
        Ok(Val::Double(d)) if d.is_finite() => Plain::Double(*d),
        Ok(Val::String(s)) => Plain::String(s.as_str()),
        Ok(_) => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cel::eval::{parse_type, typed_var};

    fn decls(ts: &[(&str, &str)]) -> Vec<(String, Type)> {
        ts.iter().map(|(n, t)| (n.to_string(), parse_type(t).unwrap())).collect()
    }

    /// What the JSON route makes of `json` for each declared variable, printed.
    fn via_json(d: &[(String, Type)], json: &Value) -> Vec<String> {
        d.iter()
            .filter_map(|(n, t)| json.get(n).map(|v| format!("{} {:?}", n, typed_var(v, t).unwrap())))
            .collect()
    }

    fn via_packed(d: &[(String, Type)], nums: &[f64], text: &str) -> Vec<String> {
        unpack(d, nums, text.as_bytes()).unwrap().iter().map(|(n, v)| format!("{} {:?}", n, v)).collect()
    }

    #[test]
    fn packed_variables_equal_the_json_ones() {
        let d = decls(&[
            ("i", "int"),
            ("u", "uint"),
            ("f", "double"),
            ("b", "bool"),
            ("s", "string"),
            ("xs", "list(int)"),
            ("m", "map(string, list(string))"),
            ("absent", "int"),
        ]);
        let json = json!({
            "i": -9007199254740991i64, "u": 42, "f": 2.5, "b": true, "s": "h€llo 🙂",
            "xs": [1, 2, 3], "m": {"b": ["x"], "a": [], "é": ["🙂", ""]}
        });
        // "h€llo 🙂" is 12 bytes of UTF-8 (€ takes 3, the emoji 4), "é" 2.
        let nums = [
            1.0, -9007199254740991.0, 1.0, 42.0, 1.0, 2.5, 1.0, 1.0, 1.0, 12.0, 1.0, 3.0, 1.0, 2.0, 3.0, 1.0, 3.0, 1.0,
            1.0, 1.0, 1.0, 0.0, 2.0, 2.0, 4.0, 0.0, 0.0,
        ];
        // Keys in the object's own order (b, a, é); unpack sorts them as serde_json does.
        let text = "h€llo 🙂bxaé🙂";
        assert_eq!(via_packed(&d, &nums, text), via_json(&d, &json));
    }

    #[test]
    fn variables_held_on_the_stack_are_the_unpacked_ones() {
        // Up to eight declarations are held on the stack, more in a vector: both give what
        // `unpack` gives, and refuse what it refuses.
        for n in [0usize, 1, 7, 8, 9, 20] {
            let names: Vec<String> = (0..n).map(|i| format!("v{i}")).collect();
            let d: Vec<(String, Type)> = names.iter().map(|name| (name.clone(), parse_type("string").unwrap())).collect();
            // Every other variable given, each a string of its index's length in bytes.
            let mut nums = Vec::new();
            let mut bytes = String::new();
            for i in 0..n {
                if i % 2 == 0 {
                    nums.extend([1.0, i as f64]);
                    bytes.push_str(&"é".repeat(i / 2));
                } else {
                    nums.push(0.0);
                }
            }
            let want = unpack(&d, &nums, bytes.as_bytes()).map(|v| format!("{:?}", v));
            assert!(want.is_some(), "{n} variables");
            let held = with_unpacked(&d, &nums, bytes.as_bytes(), |v| format!("{:?}", v));
            assert_eq!(held, want, "{n} variables");
            let mut short = nums.clone();
            short.push(0.0);
            assert_eq!(with_unpacked(&d, &short, bytes.as_bytes(), |v| v.len()), None, "{n} variables, a number too many");
        }
    }

    #[test]
    fn inconsistent_packing_is_refused() {
        let d = decls(&[("i", "int"), ("s", "string"), ("f", "double")]);
        // A fraction, an unsafe integer, a flag other than 0/1, a string past the bytes, a
        // UTF-8 sequence cut in two, bytes that are not UTF-8, bytes left over, -0, NaN,
        // missing numbers.
        for (nums, bytes) in [
            (vec![1.0, 1.5, 0.0, 0.0], &b""[..]),
            (vec![1.0, 9007199254740992.0, 0.0, 0.0], b""),
            (vec![2.0, 0.0, 0.0], b""),
            (vec![0.0, 1.0, 4.0, 0.0], b"abc"),
            (vec![0.0, 1.0, 1.0, 0.0], "🙂".as_bytes()),
            (vec![0.0, 1.0, 3.0, 0.0], &"🙂".as_bytes()[..3]),
            (vec![0.0, 1.0, 2.0, 0.0], b"\xff\xfe"),
            (vec![0.0, 1.0, 3.0, 0.0], b"\xed\xa0\x80"),
            (vec![0.0, 0.0, 0.0], b"x"),
            (vec![0.0, 0.0, 1.0, -0.0], b""),
            (vec![0.0, 0.0, 1.0, f64::NAN], b""),
            (vec![1.0], b""),
        ] {
            assert!(unpack(&d, &nums, bytes).is_none(), "{:?} {:?}", nums, bytes);
        }
        // The same strings, whole and well-formed, are read.
        assert!(unpack(&d, &[0.0, 1.0, 4.0, 0.0], "🙂".as_bytes()).is_some());
        // A list longer than what was sent is refused before anything is reserved.
        let l = decls(&[("xs", "list(int)")]);
        assert!(unpack(&l, &[1.0, 1e15, 1.0], b"").is_none());
    }

    #[test]
    fn only_plain_types_pack() {
        for (t, want) in [
            ("int", json!("int")),
            ("list(map(string, double))", json!(["list", ["map", "double"]])),
            ("map(int, string)", Value::Null),
            ("list(timestamp)", Value::Null),
            ("dyn", Value::Null),
        ] {
            assert_eq!(spec(&parse_type(t).unwrap()), want, "{}", t);
        }
    }

    #[test]
    fn plain_results_and_their_numbers() {
        assert_eq!(plain(&Ok(Val::Int(i64::MAX))).map(|p| p.number()), Some(9.223372036854776e18));
        assert_eq!(plain(&Ok(Val::Double(f64::NAN))), None);
        assert_eq!(plain(&Ok(Val::Bool(true))).map(|p| (p.code(), p.number())), Some((2, 1.0)));
        assert!(plain(&Ok(Val::list(vec![]))).is_none());
        // The codes the JavaScript layer reads are distinct: a plain result never reads as a
        // JSON answer or as "take the JSON route".
        let err = EvalError::new("boom");
        let codes: Vec<u32> = [Ok(Val::Null), Ok(Val::Bool(true)), Ok(Val::Int(1)), Ok(Val::Uint(1)), Ok(Val::Double(1.0)), Ok(Val::str("s")), Err(err)]
            .iter()
            .map(|r| plain(r).unwrap().code())
            .collect();
        assert_eq!(codes, [1, 2, 3, 4, 5, 6, 7]);
        assert!(!codes.contains(&JSON_ANSWER) && !codes.contains(&NOT_PACKED) && JSON_ANSWER != NOT_PACKED);
    }
}
