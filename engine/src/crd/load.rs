//! Decoding a CustomResourceDefinition into the typed model, with the checks the apiserver
//! makes before it even accepts the request (apiVersion, kind, field types). Choosing the CRD
//! document of a text is the text layer's ([`crate::text::crd_document`]).

use crate::crd::model::CustomResourceDefinition;
use crate::text::crd_document::{json_type_name, LoadError};
use serde_json::Value;

/// Decodes a CRD JSON value into the typed model, checking what the apiserver needs to
/// even accept the request (apiVersion, kind, field types).
pub fn decode_crd(v: &Value) -> Result<CustomResourceDefinition, LoadError> {
    decode_crd_reusing(v, None)
}

/// [`decode_crd`] keeping the schema nodes of an earlier compile that the edits since did
/// not reach ([`crate::crd::model::Reuse`]). (The npm module, without the plain-schema reader, decodes all.)
pub fn decode_crd_reusing(v: &Value, reuse: Option<&crate::crd::model::Reuse<'_>>) -> Result<CustomResourceDefinition, LoadError> {
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
    // The schemas are read without serde's visitors when they are plain, which includes being
    // within the depth limit: the depth walk runs only when they are not.
    #[cfg(not(feature = "wasm"))]
    let fast = crate::crd::model::schema_decode::decode_crd(v, MAX_SCHEMA_DEPTH, reuse);
    #[cfg(feature = "wasm")]
    let fast = { let _ = reuse; None };
    if fast.is_none() {
        if let Some(path) = too_deep_schema(v) {
            return Err(LoadError::new(format!(
                "{}: schema nests deeper than crdlab's limit of {} levels",
                path, MAX_SCHEMA_DEPTH
            )));
        }
    }
    // Deserializing from the borrowed value avoids copying the whole document first.
    fast.unwrap_or_else(|| <CustomResourceDefinition as serde::Deserialize>::deserialize(v))
        .map_err(|e| LoadError::new(format!("cannot decode CustomResourceDefinition: {}", e)))
}


/// A CRD's `metadata` alone, as [`decode_crd`] would decode it (absent or `null`: empty);
/// `None` when it does not decode.
pub fn decode_metadata(v: &Value) -> Option<crate::crd::model::ObjectMeta> {
    match v.get("metadata") {
        None | Some(Value::Null) => Some(Default::default()),
        Some(m) => <crate::crd::model::ObjectMeta as serde::Deserialize>::deserialize(m).ok(),
    }
}

/// How deeply schemas may nest (`properties`, `items`, `allOf`, ...), counting the root as 1.
///
/// The apiserver has no such bound (a schema nests as deep as its text); crdlab's is for the
/// stack: decoding, cloning, compiling and walking a schema recurse once per level, several
/// KiB per level, and WebAssembly has a 1 MiB stack. Real CRDs nest fewer than 30 levels.
pub const MAX_SCHEMA_DEPTH: usize = 128;

/// The field path of the first schema below [`MAX_SCHEMA_DEPTH`] levels, found without
/// recursion before the (recursive) decoder runs.
fn too_deep_schema(crd: &Value) -> Option<String> {
    /// One schema seen: its parent's index and its step from there (`.key`, `.key[name]`,
    /// `.key[i]`), so a path is built only for the one that is too deep.
    enum Step<'v> {
        Root(usize),
        Key(&'v str),
        Named(&'v str, &'v str),
        Indexed(&'v str, usize),
    }
    let versions = crd.pointer("/spec/versions")?.as_array()?;
    let mut nodes: Vec<(usize, Step)> = Vec::new();
    let mut stack: Vec<(&Value, usize, usize)> = Vec::new();
    for (i, v) in versions.iter().enumerate() {
        if let Some(root) = v.pointer("/schema/openAPIV3Schema") {
            nodes.push((usize::MAX, Step::Root(i)));
            stack.push((root, 1, nodes.len() - 1));
        }
    }
    while let Some((schema, depth, node)) = stack.pop() {
        let Value::Object(m) = schema else { continue };
        if depth > MAX_SCHEMA_DEPTH {
            let mut steps = Vec::new();
            let mut n = node;
            while n != usize::MAX {
                steps.push(&nodes[n].1);
                n = nodes[n].0;
            }
            return Some(
                steps
                    .iter()
                    .rev()
                    .map(|s| match s {
                        Step::Root(i) => format!("spec.versions[{}].schema.openAPIV3Schema", i),
                        Step::Key(k) => format!(".{}", k),
                        Step::Named(k, name) => format!(".{}[{}]", k, name),
                        Step::Indexed(k, i) => format!(".{}[{}]", k, i),
                    })
                    .collect(),
            );
        }
        for (key, sub) in m {
            let key = key.as_str();
            match (key, sub) {
                ("properties" | "patternProperties" | "definitions" | "dependencies", Value::Object(children)) => {
                    for (name, c) in children {
                        nodes.push((node, Step::Named(key, name)));
                        stack.push((c, depth + 1, nodes.len() - 1));
                    }
                }
                ("allOf" | "anyOf" | "oneOf" | "items", Value::Array(children)) => {
                    for (j, c) in children.iter().enumerate() {
                        nodes.push((node, Step::Indexed(key, j)));
                        stack.push((c, depth + 1, nodes.len() - 1));
                    }
                }
                ("items" | "additionalProperties" | "additionalItems" | "not", c @ Value::Object(_)) => {
                    nodes.push((node, Step::Key(key)));
                    stack.push((c, depth + 1, nodes.len() - 1));
                }
                _ => {}
            }
        }
    }
    None
}
