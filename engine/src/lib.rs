//! crdlab: what a Kubernetes apiserver does with a CustomResourceDefinition, re-expressed.
//!
//! Data flows one way: **read** ([`yaml`]) → **model** ([`crd::model`]) → **compile**
//! ([`crd::CompiledCrd`]: CRD checks, compiled schemas, later CEL programs) → **validate**
//! ([`strategy`]: pruning, defaulting, request emulation, schema/metadata/list-type/CEL
//! validation) → **report** ([`request`]: the `crdlab batch` answer).
//!
//! Module names follow the apiserver packages they reproduce, so the Go source can be
//! read beside ours:
//! - [`go`]: Go's standard library, one file per package (`strconv`, `fmt`, `json`, `regexp`,
//!   `netip`, `neturl`, `time`, ...), and [`k8s`]: Kubernetes primitives (quantities, names,
//!   semver, kube-openapi `strfmt`);
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

pub mod cel;
pub mod crd;
pub mod diff;
pub mod edit;
pub mod field;
pub mod go;
pub mod k8s;
pub mod positions;
pub mod request;
pub mod schema;
pub mod strategy;
pub mod validation;
pub mod version;
pub mod versions;
pub mod view;
pub mod yaml;

#[cfg(feature = "wasm")]
pub mod wasm;

// The shared CRD fixtures of the unit tests (and, through `#[path]`, of engine/tests).
#[cfg(test)]
pub(crate) mod testing;

pub use crd::compiled::CompiledCrd;
pub use crd::load::LoadError;
pub use request::{Answer, Engine, Request};
pub use version::KubeVersion;
