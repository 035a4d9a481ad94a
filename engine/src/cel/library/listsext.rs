//! cel-go's lists extension (`ext/lists.go`, version 3 from compatibility 1.34).

use crate::cel::env::{EnvOptions, Function};

/// The functions this library declares at the environment's compatibility version.
pub fn functions(_opts: &EnvOptions) -> Vec<Function> {
    Vec::new()
}

/// The parser macros this library adds.
pub fn macros(_opts: &EnvOptions) -> Vec<cel::parser::Macro> {
    Vec::new()
}
