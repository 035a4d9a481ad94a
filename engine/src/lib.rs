//! crdlab: what a Kubernetes apiserver does with a CustomResourceDefinition, re-expressed.
//!
//! Data flows one way, through layers that never import a higher one (ARCHITECTURE.md has
//! the table; `engine/tests/architecture.rs` enforces it), bottom to top:
//!
//! - [`go`] (Go's standard library, once, one file per package) and `k8s` (Kubernetes
//!   primitives: quantities, names, semver, kube-openapi `strfmt`); [`version`] (the
//!   releases and every per-release switch); [`field`] (apimachinery `field.Path`/`Error`);
//! - [`text`]: sigs.k8s.io/yaml over go-yaml v2 (reading, source maps, positions, edits);
//! - [`cel`]: generic CEL, split like cel-go; it knows no CRD type;
//! - [`crd::model`] (typed apiextensions v1), [`schema`] (apiextensions `apiserver/schema`:
//!   structural, pruning, defaulting, list types, ObjectMeta, correlation), `validation`
//!   (kube-openapi's validator), [`schema::cel`] (a CRD's CEL rules), [`crd`] (the create
//!   checks, [`CompiledCrd`]), [`strategy`] (the create/update/status path);
//! - [`engine`]: the typed API tools call, with the compiled-CRD cache;
//! - [`analysis`]: beyond the apiserver (cost explanations, each rule's lowest release,
//!   breaking changes between two CRDs);
//! - [`wire`] (the `crdlab batch` protocol), [`view`] (what the playground shows) and `wasm`
//!   (the npm API): the only code that knows JSON wire shapes.
//!
//! # Example
//!
//! ```
//! use crdlab::strategy::{validate_object, ValidateOptions};
//! use crdlab::{CompiledCrd, KubeVersion};
//!
//! let crd = CompiledCrd::from_text(r#"
//! apiVersion: apiextensions.k8s.io/v1
//! kind: CustomResourceDefinition
//! metadata: {name: widgets.example.com}
//! spec:
//!   group: example.com
//!   scope: Namespaced
//!   names: {kind: Widget, plural: widgets}
//!   versions:
//!   - name: v1
//!     served: true
//!     storage: true
//!     schema:
//!       openAPIV3Schema:
//!         type: object
//!         properties:
//!           spec:
//!             type: object
//!             properties:
//!               size: {type: string, enum: [S, M, L]}
//! "#, KubeVersion::LATEST).unwrap();
//! let object = serde_json::json!({
//!     "apiVersion": "example.com/v1", "kind": "Widget",
//!     "metadata": {"name": "w", "namespace": "default"},
//!     "spec": {"size": "XL"},
//! });
//! let v1 = crd.version(None).unwrap();
//! let outcome = validate_object(&crd, v1, &object, None, &ValidateOptions::default()).unwrap();
//! assert_eq!(
//!     outcome.errors[0].message(),
//!     r#"spec.size: Unsupported value: "XL": supported values: "S", "M", "L""#
//! );
//! ```

pub mod analysis;
pub mod cel;
pub mod crd;
pub mod engine;
pub mod field;
pub mod go;
pub(crate) mod k8s;
pub mod schema;
pub mod strategy;
pub mod text;
pub(crate) mod validation;
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
