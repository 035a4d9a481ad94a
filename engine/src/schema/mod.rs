//! Structural-schema algorithms of apiextensions `pkg/apiserver/schema`, over the compiled
//! [`JsonSchemaProps`](crate::crd::model::JsonSchemaProps) tree (only its structural part:
//! properties, items, additionalProperties and the x-kubernetes extensions), and
//! [`cel`]: its `cel` package (a CRD's rules, compiled and run).

pub mod cel;
pub mod correlation;
pub mod defaulting;
pub mod fingerprint;
pub mod lazy_path;
pub mod listtype;
pub mod objectmeta;
pub mod pruning;
pub mod structural;
