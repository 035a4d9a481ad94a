//! Kubernetes quantity library (apiserver `pkg/cel/library/quantity.go`, 1.28+).

use crate::cel::env::{EnvOptions, Function};

/// The functions this library declares at the environment's compatibility version.
pub fn functions(_opts: &EnvOptions) -> Vec<Function> {
    Vec::new()
}
