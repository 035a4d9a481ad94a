//! crdlab: what a Kubernetes apiserver does with a CustomResourceDefinition, re-expressed.
//!
//! Data flows one way: **read** ([`text`]) → **model** ([`crd::model`]) → **compile**
//! ([`crd::CompiledCrd`]: CRD checks, compiled schemas, later CEL programs) → **validate**
//! ([`strategy`]: pruning, defaulting, request emulation, schema/metadata/list-type/CEL
//! validation) → the engine's typed API ([`engine`]) → **report** ([`wire::batch`]: the
//! `crdlab batch` answer).
//!
//! Module names follow the apiserver packages they reproduce, so the Go source can be
//! read beside ours:
//! - [`go`]: Go's standard library, one file per package (`strconv`, `fmt`, `json`, `regexp`,
//!   `netip`, `neturl`, `time`, ...), and [`k8s`]: Kubernetes primitives (quantities, names,
//!   semver, kube-openapi `strfmt`);
//! - [`text`]: sigs.k8s.io/yaml over go-yaml v2 (reading, source maps, text edits);
//! - [`field`]: apimachinery `util/validation/field` (paths, errors, their text);
//! - [`crd`]: the CRD model, loading, and apiextensions `validation` (the create checks);
//! - [`schema`]: apiextensions `apiserver/schema` (structural `pruning`, `defaulting`,
//!   `listtype`, `objectmeta`);
//! - [`validation`]: kube-openapi `validate` as apiextensions drives it (keywords, formats,
//!   ratcheting);
//! - [`cel`]: the seam where CEL rules compile and run (issue "CEL rules");
//! - [`strategy`]: apiextensions `registry/customresource` (the create/update path);
//! - [`engine`]: the compiled-CRD cache and the calls tools make;
//! - [`wire`]: the batch protocol of `shared/docs/vector-format.md`.
//!
//! Beyond the apiserver: [`analysis::explain`] (costs explained), [`analysis::versions`]
//! (each rule's lowest release), [`analysis::diff`] (breaking changes),
//! [`text::positions`] (ranges for editors), [`text::edit`] (formatting-preserving edits of
//! CRD text) and [`view`] (what the playground shows).

pub mod analysis;
pub mod cel;
pub mod crd;
pub mod engine;
pub mod field;
pub mod go;
pub mod k8s;
pub mod schema;
pub mod strategy;
pub mod text;
pub mod validation;
pub mod version;
pub mod view;
pub mod wire;

#[cfg(feature = "wasm")]
pub mod wasm;

// The shared CRD fixtures of the unit tests (and, through `#[path]`, of engine/tests).
#[cfg(test)]
pub(crate) mod testing;

pub use crd::compiled::CompiledCrd;
pub use engine::Engine;
pub use text::crd_document::LoadError;
pub use wire::batch::{Answer, Request};
pub use version::KubeVersion;
