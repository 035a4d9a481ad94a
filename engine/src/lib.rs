//! crdlab: what a Kubernetes apiserver does with a CustomResourceDefinition, re-expressed.
//!
//! Data flows one way: **read** ([`yaml`]) → **model** ([`crd::model`]) → **compile**
//! ([`crd::CompiledCrd`]: CRD checks, compiled schemas, later CEL programs) → **validate**
//! ([`strategy`]: pruning, defaulting, request emulation, schema/metadata/list-type/CEL
//! validation) → **report** ([`request`]: the `crdlab batch` answer).
//!
//! Module names follow the apiserver packages they reproduce, so the Go source can be
//! read beside ours:
//! - [`field`]: apimachinery `util/validation/field` (paths, errors, their text);
//! - [`crd`]: the CRD model, loading, and apiextensions `validation` (the create checks);
//! - [`schema`]: apiextensions `apiserver/schema` (structural `pruning`, `defaulting`,
//!   `listtype`, `objectmeta`);
//! - [`validation`]: kube-openapi `validate` as apiextensions drives it (keywords, formats,
//!   ratcheting);
//! - [`cel`]: the seam where CEL rules compile and run (issue "CEL rules");
//! - [`strategy`]: apiextensions `registry/customresource` (the create/update path);
//! - [`request`]: the batch protocol of `shared/docs/vector-format.md`.
//!
//! Beyond the apiserver: [`cel::explain`] (costs explained), [`versions`] (each rule's
//! lowest release), [`diff`] (breaking changes), [`positions`] (ranges for editors),
//! [`edit`] (formatting-preserving edits of CRD text) and [`view`] (what the playground shows).

pub mod analysis;
pub mod cel;
pub mod crd;
pub mod engine;
pub mod field;
pub mod gofmt;
pub mod schema;
pub mod strategy;
pub mod text;
pub mod validation;
pub mod version;
pub mod view;
pub mod wire;

#[cfg(feature = "wasm")]
pub mod wasm;

pub use crd::CompiledCrd;
pub use text::crd_document::LoadError;
pub use engine::Engine;
pub use wire::batch::{Answer, Request};
pub use version::KubeVersion;
