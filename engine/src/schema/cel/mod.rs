//! CRD-specific CEL (apiextensions `pkg/apiserver/schema/cel`): the CRD model seen through
//! generic CEL's schema trait.

pub mod model;
