//! Kubernetes lists library (apiserver `pkg/cel/library/lists.go`): isSorted, sum, min,
//! max, indexOf, lastIndexOf.

use crate::cel::env::{EnvOptions, Function};

/// The functions this library declares at the environment's compatibility version.
pub fn functions(_opts: &EnvOptions) -> Vec<Function> {
    Vec::new()
}
