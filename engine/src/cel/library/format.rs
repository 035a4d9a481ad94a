//! Kubernetes format library (apiserver `pkg/cel/library/format.go`, 1.31+).

use crate::cel::env::{EnvOptions, Function};

/// The functions this library declares at the environment's compatibility version.
pub fn functions(_opts: &EnvOptions) -> Vec<Function> {
    Vec::new()
}
