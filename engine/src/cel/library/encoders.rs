//! cel-go's encoders extension (`ext/encoders.go`): `base64.encode(bytes)` and
//! `base64.decode(string)`, which accepts padded input and, like cel-go, retries
//! without padding (`RawStdEncoding`) when the padded decoding finds corrupt input.
//!
//! The Kubernetes apiserver does not install this library: it is declared only when
//! `EnvOptions::conformance_extensions` is set, which only the CEL conformance harness
//! does.

use crate::cel::env::{EnvOptions, Function, Overload};
use crate::cel::types::Type;
use crate::cel::value::{EvalError, EvalResult, Val};
use std::rc::Rc;

/// The functions of the library, when the environment installs it.
pub fn functions(opts: &EnvOptions) -> Vec<Function> {
    if !opts.conformance_extensions {
        return Vec::new();
    }
    vec![
        Function::new(
            "base64.encode",
            vec![Overload::global(
                "base64_encode_bytes",
                vec![Type::Bytes],
                Type::String,
                encode,
            )],
        ),
        Function::new(
            "base64.decode",
            vec![Overload::global(
                "base64_decode_string",
                vec![Type::String],
                Type::Bytes,
                decode,
            )],
        ),
    ]
}

fn encode<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args {
        [Val::Bytes(b)] => Ok(Val::string(super::base64_encode(b))),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn decode<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let [Val::String(s)] = args else {
        return Err(EvalError::no_such_overload());
    };
    let text = s.as_str().as_bytes();
    let decoded = go_decode(text, true).or_else(|_| go_decode(text, false));
    match decoded {
        Ok(b) => Ok(Val::Bytes(Rc::from(b))),
        Err(at) => Err(EvalError::new(format!(
            "illegal base64 data at input byte {}",
            at
        ))),
    }
}

fn sextet(c: u8) -> Option<u32> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    } as u32)
}

/// Go's `base64.StdEncoding` (`padded`) or `RawStdEncoding` decoding: line breaks are
/// skipped, the bits after the last whole byte are ignored; `Err` is the offset of the
/// corrupt input.
fn go_decode(s: &[u8], padded: bool) -> Result<Vec<u8>, usize> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3 + 2);
    let mut quantum: [u32; 4] = [0; 4];
    let mut n = 0usize;
    // Offset where the current quantum started, for errors.
    let mut start = 0usize;
    let mut i = 0usize;
    let mut padding_at: Option<usize> = None;
    while i < s.len() {
        let c = s[i];
        if c == b'\r' || c == b'\n' {
            i += 1;
            continue;
        }
        if padding_at.is_some() {
            // Only line breaks may follow the padding.
            return Err(i);
        }
        if n == 0 {
            start = i;
        }
        if c == b'=' && padded {
            // Padding completes a quantum of 2 (`==`) or 3 (`=`) symbols.
            match n {
                2 => {
                    let mut j = i + 1;
                    while j < s.len() && (s[j] == b'\r' || s[j] == b'\n') {
                        j += 1;
                    }
                    if j >= s.len() || s[j] != b'=' {
                        return Err(j.min(s.len()));
                    }
                    padding_at = Some(i);
                    i = j + 1;
                }
                3 => {
                    padding_at = Some(i);
                    i += 1;
                }
                _ => return Err(i),
            }
            continue;
        }
        let Some(v) = sextet(c) else { return Err(i) };
        quantum[n] = v;
        n += 1;
        if n == 4 {
            let w = quantum[0] << 18 | quantum[1] << 12 | quantum[2] << 6 | quantum[3];
            out.extend_from_slice(&[(w >> 16) as u8, (w >> 8) as u8, w as u8]);
            n = 0;
        }
        i += 1;
    }
    match n {
        0 => {}
        1 => return Err(start),
        // A partial quantum needs padding in the padded encoding (where it was read, the
        // padding ended the loop with the quantum still partial).
        _ if padded && padding_at.is_none() => return Err(start),
        2 => {
            let w = quantum[0] << 18 | quantum[1] << 12;
            out.push((w >> 16) as u8);
        }
        _ => {
            let w = quantum[0] << 18 | quantum[1] << 12 | quantum[2] << 6;
            out.extend_from_slice(&[(w >> 16) as u8, (w >> 8) as u8]);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> Option<Vec<u8>> {
        match decode(&[Val::str(s)]) {
            Ok(Val::Bytes(b)) => Some(b.to_vec()),
            _ => None,
        }
    }

    #[test]
    fn decodes_padded_and_raw() {
        assert_eq!(dec("aGVsbG8="), Some(b"hello".to_vec()));
        assert_eq!(dec("aGVsbG8"), Some(b"hello".to_vec()));
        assert_eq!(dec("aGk="), Some(b"hi".to_vec()));
        assert_eq!(dec("aGk"), Some(b"hi".to_vec()));
        assert_eq!(dec("aG\nVsbG8="), Some(b"hello".to_vec()));
        assert_eq!(dec(""), Some(Vec::new()));
        assert_eq!(dec("a"), None);
        assert_eq!(dec("aGk=x"), None);
        assert_eq!(dec("a=Gk"), None);
        assert_eq!(
            decode(&[Val::str("a*")]).err().map(|e| e.message),
            Some("illegal base64 data at input byte 1".to_string())
        );
        match encode(&[Val::Bytes(Rc::from(&b"hello"[..]))]) {
            Ok(Val::String(s)) => assert_eq!(s.as_str(), "aGVsbG8="),
            other => panic!("{:?}", other),
        }
    }
}
