//! cel-go two-variable comprehensions (`ext/comprehensions.go`, 1.32+): all, exists,
//! existsOne, transformList, transformMap, transformMapEntry macros.

use crate::cel::env::{EnvOptions, Function};

/// The functions this library declares at the environment's compatibility version.
pub fn functions(_opts: &EnvOptions) -> Vec<Function> {
    Vec::new()
}

/// The parser macros this library adds.
pub fn macros(_opts: &EnvOptions) -> Vec<cel::parser::Macro> {
    Vec::new()
}
