//! Keyword validation (kube-openapi `validate.SchemaValidator`) and the conversion of its
//! results to field errors (apiextensions `kubeOpenAPIResultToFieldErrors`).

use crate::crd::model::JsonSchemaProps;
use crate::field::{ErrorList, Path};
use serde_json::Value;

/// `ValidateCustomResource`: every keyword error of `value` against `schema`.
pub fn validate(_schema: &JsonSchemaProps, _path: &Path, _value: &Value, _errs: &mut ErrorList) {}

/// `ValidateCustomResourceUpdate`: like [`validate`], but with validation ratcheting when
/// `ratcheting` is on: errors on values unchanged from `old` are dropped.
pub fn validate_update(
    schema: &JsonSchemaProps,
    path: &Path,
    value: &Value,
    _old: &Value,
    _ratcheting: bool,
    errs: &mut ErrorList,
) {
    validate(schema, path, value, errs)
}
