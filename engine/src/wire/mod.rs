//! The JSON wire shapes crdlab speaks: the `crdlab batch` protocol
//! (shared/docs/vector-format.md) over the engine's typed API.

pub mod annotated;
pub mod batch;
#[cfg(any(feature = "wasm", test))]
pub(crate) mod packed;
