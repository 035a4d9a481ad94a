//! cel-go optional types (`cel/library.go` optionalLib, 1.28+): optional.of/none/
//! ofNonZeroValue, hasValue, value, or, orValue, optMap/optFlatMap macros, `[?]` index.

use crate::cel::env::{EnvOptions, Function};

/// The functions this library declares at the environment's compatibility version.
pub fn functions(_opts: &EnvOptions) -> Vec<Function> {
    Vec::new()
}

/// The parser macros this library adds.
pub fn macros(_opts: &EnvOptions) -> Vec<cel::parser::Macro> {
    Vec::new()
}
