//! Text: reading YAML and JSON as Kubernetes does (sigs.k8s.io/yaml over go-yaml v2),
//! where each node stands in the text, and formatting-preserving edits of that text.
//! Knows nothing of CRDs beyond a document's `kind`.

pub mod crd_document;
pub mod edit;
pub mod positions;
pub mod json;
pub mod read_error;
pub mod scalars;
pub mod source_map;
pub mod yaml;
