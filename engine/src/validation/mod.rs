//! Object validation against an OpenAPI v3 schema as the apiserver runs it: kube-openapi's
//! `validate` package driven by apiextensions `pkg/apiserver/validation`, with its error
//! conversion, formats and validation ratcheting.

pub(crate) mod schema;
