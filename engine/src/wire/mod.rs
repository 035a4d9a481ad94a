//! The JSON wire shapes crdlab speaks: the `crdlab batch` protocol
//! (shared/docs/vector-format.md) over the engine's typed API; and the report formats of
//! `crdlab test` (`suite`: text and JSON; `junit`, `tap` over [`cases::CaseRecord`]s,
//! for any command that reports cases).

pub mod annotated;
pub mod batch;
pub mod cases;
pub mod junit;
#[cfg(any(feature = "wasm", test))]
pub(crate) mod packed;
pub mod suite;
pub mod tap;
