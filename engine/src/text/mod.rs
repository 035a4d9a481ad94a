//! Text: reading YAML and JSON as Kubernetes does (sigs.k8s.io/yaml over go-yaml v2),
//! where each node stands in the text, and formatting-preserving edits of that text.
//! Knows nothing of CRDs beyond a document's `kind`; imports nothing above it.
//!
//! - [`yaml`]: the reader (documents of a stream, anchors, duplicate keys) over
//!   [`scalars`] (go-yaml's scalar resolution), [`json`] (JSON texts) and
//!   [`read_error`] (its error and bounds) and [`aliases`] (go-yaml's alias expansion rule),
//!   with `block` in front (native builds): a fast path for block-style text that leaves
//!   anything else to the general reader;
//! - [`source_map`]: where each node stands ([`source_map::Range`] in editors' units);
//! - [`positions`]: a printed field path (`spec.x[0]`) mapped to its range;
//! - [`crd_document`]: which document of a stream is the CRD;
//! - [`splice`]: re-reading a text after an edit inside one scalar without reading it all;
//! - [`edit`]: formatting-preserving edits addressed by JSON pointer;
//! - [`bytes`]: comparing long texts (fast in wasm32 too);
//! - [`utf16`]: an editor's changes, in its UTF-16 positions, applied to the text.

pub(crate) mod aliases;
pub mod bytes;
// Native builds only: the wasm builds leave it out for the npm size budget (the playground
// reads with positions, which it never serves).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) mod block;
pub mod crd_document;
pub mod edit;
pub(crate) mod json;
pub mod node_index;
pub mod positions;
pub(crate) mod read_error;
pub(crate) mod scalars;
pub mod source_map;
pub mod splice;
pub mod utf16;
pub mod yaml;
