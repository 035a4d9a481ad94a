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
use crate::go::base64::{decode as decode_base64, std_encode};
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
        [Val::Bytes(b)] => Ok(Val::string(std_encode(b))),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn decode<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let [Val::String(s)] = args else {
        return Err(EvalError::no_such_overload());
    };
    let text = s.as_str().as_bytes();
    let decoded = decode_base64(text, true).or_else(|_| decode_base64(text, false));
    match decoded {
        Ok(b) => Ok(Val::Bytes(Rc::from(b))),
        Err(at) => Err(EvalError::new(format!(
            "illegal base64 data at input byte {}",
            at
        ))),
    }
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
