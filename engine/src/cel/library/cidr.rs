//! Kubernetes CIDR library (apiserver `pkg/cel/library/cidr.go`, 1.30+).

use crate::cel::env::{EnvOptions, Function};

/// The functions this library declares at the environment's compatibility version.
pub fn functions(_opts: &EnvOptions) -> Vec<Function> {
    Vec::new()
}
