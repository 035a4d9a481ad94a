//! CRD-specific CEL: apiextensions `pkg/apiserver/schema/cel`. [`model`] shows the CRD model
//! through generic CEL's schema trait (`model/adaptor.go`); [`compile`] compiles a CRD
//! schema's `x-kubernetes-validations` (`compilation.go`); [`validation`] runs them on
//! objects (`validation.go`). The generic CEL they build on is [`crate::cel`].

pub mod compile;
pub(crate) mod model;
pub(crate) mod validation;
