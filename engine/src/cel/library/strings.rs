//! cel-go's strings extension (`ext/strings.go`), version 0 below compatibility 1.29
//! and version 2 from it.

use crate::cel::env::{EnvOptions, Function};

/// The functions this library declares at the environment's compatibility version.
pub fn functions(_opts: &EnvOptions) -> Vec<Function> {
    Vec::new()
}
