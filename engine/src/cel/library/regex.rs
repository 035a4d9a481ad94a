//! Kubernetes regex library (apiserver `pkg/cel/library/regex.go`): find, findAll.

use crate::cel::env::{EnvOptions, Function};

/// The functions this library declares at the environment's compatibility version.
pub fn functions(_opts: &EnvOptions) -> Vec<Function> {
    Vec::new()
}
