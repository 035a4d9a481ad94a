//! The structural-schema rules (apiextensions `pkg/apiserver/schema/validation.go`):
//! checked at CRD creation by `crd::validation`.
