//! The JSON wire shapes crdlab speaks: the `crdlab batch` protocol
//! (shared/docs/vector-format.md) over the engine's typed API, and the JSON Schemas it
//! exports for editors (`json_schema`, with `ecmascript_regex` for patterns).

pub mod annotated;
pub mod batch;
pub mod ecmascript_regex;
pub mod findings;
pub mod json_schema;
#[cfg(any(feature = "wasm", test))]
pub(crate) mod packed;
