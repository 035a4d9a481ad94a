//! cel-go's sets extension (`ext/sets.go`, from compatibility 1.29).

use crate::cel::env::{EnvOptions, Function};

/// The functions this library declares at the environment's compatibility version.
pub fn functions(_opts: &EnvOptions) -> Vec<Function> {
    Vec::new()
}
