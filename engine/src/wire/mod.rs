//! The JSON wire shapes crdlab speaks: the `crdlab batch` protocol
//! (shared/docs/vector-format.md) over the engine's typed API; the report formats of
//! `crdlab test` (`suite`: text and JSON; `junit`, `tap` over [`cases::CaseRecord`]s, for any
//! command that reports cases) and of `crdlab validate --crds` (`findings`: SARIF, GitHub
//! annotations); and the JSON Schemas it exports for editors (`json_schema`, with
//! `ecmascript_regex` for patterns).

pub mod annotated;
pub mod batch;
pub mod cases;
pub mod ecmascript_regex;
pub mod findings;
pub mod json_schema;
pub mod junit;
#[cfg(any(feature = "wasm", test))]
pub(crate) mod packed;
pub mod suite;
pub mod tap;
