//! Structural-schema algorithms of apiextensions `pkg/apiserver/schema`, over the compiled
//! [`JsonSchemaProps`](crate::crd::model::JsonSchemaProps) tree (only its structural part:
//! properties, items, additionalProperties and the x-kubernetes extensions), and
//! [`cel`]: its `cel` package (a CRD's rules, compiled and run).

pub mod cel;
pub(crate) mod clean;
pub(crate) mod correlation;
pub(crate) mod defaulting;
pub(crate) mod fingerprint;
pub(crate) mod lazy_path;
pub(crate) mod listtype;
pub(crate) mod objectmeta;
pub(crate) mod pruning;
pub(crate) mod structural;
