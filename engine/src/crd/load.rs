//! Decoding a CustomResourceDefinition into the typed model, with the checks the apiserver
//! makes before it even accepts the request (apiVersion, kind, field types). Choosing the CRD
//! document of a text is the text layer's ([`crate::text::crd_document`]).

use crate::crd::model::CustomResourceDefinition;
use crate::text::crd_document::{json_type_name, LoadError};
use serde_json::Value;

/// Decodes a CRD JSON value into the typed model, checking what the apiserver needs to
/// even accept the request (apiVersion, kind, field types).
pub fn decode_crd(v: &Value) -> Result<CustomResourceDefinition, LoadError> {
    let m = match v {
        Value::Object(m) => m,
        other => {
            return Err(LoadError::new(format!(
                "a CustomResourceDefinition must be an object, not {}",
                json_type_name(other)
            )))
        }
    };
    let api_version = m.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = m.get("kind").and_then(Value::as_str).unwrap_or("");
    if kind != "CustomResourceDefinition" {
        return Err(LoadError::new(format!(
            "not a CustomResourceDefinition: kind is {:?}",
            kind
        )));
    }
    if api_version != "apiextensions.k8s.io/v1" {
        let hint = if api_version == "apiextensions.k8s.io/v1beta1" {
            " (v1beta1 was removed in Kubernetes 1.22; convert the CRD to apiextensions.k8s.io/v1)"
        } else {
            ""
        };
        return Err(LoadError::new(format!(
            "unsupported apiVersion {:?}: crdlab reads apiextensions.k8s.io/v1 CustomResourceDefinitions{}",
            api_version, hint
        )));
    }
    // Deserializing from the borrowed value avoids copying the whole document first.
    <CustomResourceDefinition as serde::Deserialize>::deserialize(v)
        .map_err(|e| LoadError::new(format!("cannot decode CustomResourceDefinition: {}", e)))
}

