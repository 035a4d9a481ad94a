//! The CEL standard library (cel-go `checker/decls` standard declarations and
//! `interpreter/functions/standard.go`): operators, conversions, size, string and
//! time functions.

use crate::cel::env::{EnvOptions, Function};

/// The functions this library declares at the environment's compatibility version.
pub fn functions(_opts: &EnvOptions) -> Vec<Function> {
    Vec::new()
}
