//! Kubernetes primitives every layer above shares (rank 1): resource quantities, object
//! names and label values (apimachinery `util/validation`), semantic versions, the
//! kube-openapi `strfmt` format checks and the request body limit. Built on [`crate::go`] and [`crate::version`] only.

pub(crate) mod quantity;
pub(crate) mod semver;
pub(crate) mod names;
pub(crate) mod strfmt;
pub(crate) mod request;
