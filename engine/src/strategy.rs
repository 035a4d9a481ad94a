//! The custom-resource create/update path of the apiserver (apiextensions
//! `pkg/registry/customresource`: the codec's pruning and defaulting, `PrepareForCreate`/
//! `PrepareForUpdate`, `customResourceValidator` and the strategy's `Validate`/
//! `ValidateUpdate`, and the status strategy).

use crate::crd::compiled::{CompiledCrd, CompiledVersion};
use crate::crd::model::JsonSchemaProps;
use crate::field::{BadValue, ErrorList, ErrorType, FieldError, Path};
use crate::schema::cel::validation::validate as validate_rules;
use crate::schema::defaulting;
use crate::schema::listtype;
use crate::schema::objectmeta;
use crate::schema::pruning;
use crate::validation::schema::{validate_for as openapi_validate, validate_update_for as openapi_validate_update};
use crate::version::{Feature, KubeVersion};
use crate::k8s::request::{entity_too_large, MAX_REQUEST_BODY_BYTES};
use serde_json::Value;

/// The release whose ratcheting also covers CEL rules (kubernetes#121016).
const CEL_RATCHETING_SINCE: u32 = crate::version::Feature::CelRatcheting.since();

#[derive(Clone, Debug)]
pub struct ValidateOptions {
    /// A status-subresource update: only `.status` is schema-validated.
    pub status_subresource: bool,
    /// Validation ratcheting on updates.
    pub ratcheting: bool,
    /// Apply what the apiserver does to a request before validation.
    pub emulate_request: bool,
    /// Keep the object after pruning and defaulting in [`Outcome::defaulted`]. A caller
    /// that reads only the errors (the CLI over many files) turns it off and saves a deep
    /// copy of every object.
    pub keep_defaulted: bool,
}

impl Default for ValidateOptions {
    fn default() -> Self {
        ValidateOptions { status_subresource: false, ratcheting: true, emulate_request: true, keep_defaulted: true }
    }
}

/// What validating one object yields.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// The object after pruning and defaulting, before request emulation (`null` unless
    /// [`ValidateOptions::keep_defaulted`]).
    pub defaulted: Value,
    /// Paths of the fields pruned from the object.
    pub unknown_fields: Vec<String>,
    pub errors: ErrorList,
    /// Ratcheted CEL errors.
    pub warnings: ErrorList,
    /// Runtime CEL budget left; `None` when CEL did not run.
    pub remaining_budget: Option<i64>,
    /// The name request emulation gave a create that named only `generateName`
    /// (deterministic: [`GENERATED_NAME_SUFFIX`]).
    pub generated_name: Option<String>,
}

/// The text shown when a blocking schema error stops CEL validation.
pub const RULES_NOT_CHECKED: &str =
    "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation";

/// The size of the request body that carries `obj`: its JSON as kubectl sends it
/// (apimachinery's unstructured JSON scheme: `encoding/json`'s encoder, compact, then a
/// newline), counted without building it. Clients that send more (the client-side apply
/// annotation, whitespace) only get closer to the limit.
pub fn request_body_len(obj: &Value) -> usize {
    crate::go::json::json_marshal_len(obj, MAX_REQUEST_BODY_BYTES) + 1
}

/// `limitedReadBody`'s refusal (apimachinery `NewRequestEntityTooLargeError`, HTTP 413) of
/// a body over [`MAX_REQUEST_BODY_BYTES`] (3 MiB): the request is refused before decoding, so it
/// is a request error, not a field error.
pub fn request_entity_too_large(obj: &Value) -> Option<String> {
    (request_body_len(obj) > MAX_REQUEST_BODY_BYTES).then(entity_too_large)
}

/// Decodes a request or stored object as the apiserver's codec does: pruning, dropping
/// non-nullable nulls, metadata coercion, defaulting. Returns unknown field paths.
fn decode(crd: &CompiledCrd, ver: &CompiledVersion, obj: &mut Value) -> (Vec<String>, Option<FieldError>) {
    let schema = ver.schema.as_deref();
    crate::go::json::unstructured_numbers(obj);
    let mut unknown = Vec::new();
    if !crd.crd.spec.preserve_unknown_fields {
        unknown = pruning::prune(obj, schema, true);
        if let Some(s) = schema {
            pruning::prune_non_nullable_nulls_without_defaults(obj, s);
        }
    }
    let (err, meta_unknown) = objectmeta::coerce(obj, schema);
    unknown.extend(meta_unknown);
    defaulting::default(obj, schema);
    (unknown, err)
}

/// Validates `obj` (an update when `old` is given) against one CRD version.
///
/// # Example
///
/// ```
/// const CRD: &str = r#"
/// apiVersion: apiextensions.k8s.io/v1
/// kind: CustomResourceDefinition
/// metadata: {name: widgets.example.com}
/// spec:
///   group: example.com
///   scope: Namespaced
///   names: {kind: Widget, plural: widgets}
///   versions:
///   - name: v1
///     served: true
///     storage: true
///     schema:
///       openAPIV3Schema:
///         type: object
///         properties:
///           spec:
///             type: object
///             properties:
///               replicas: {type: integer, minimum: 0}
///             x-kubernetes-validations:
///             - rule: "self.replicas <= 10"
///               message: at most 10 replicas
/// "#;
/// use crdlab::strategy::{validate_object, ValidateOptions};
/// use crdlab::{CompiledCrd, KubeVersion};
/// let crd = CompiledCrd::from_text(CRD, KubeVersion::LATEST).unwrap();
/// let v1 = crd.version(Some("v1")).unwrap();
/// let object = serde_json::json!({
///     "apiVersion": "example.com/v1", "kind": "Widget",
///     "metadata": {"name": "w", "namespace": "default"},
///     "spec": {"replicas": 12},
/// });
/// let outcome = validate_object(&crd, v1, &object, None, &ValidateOptions::default()).unwrap();
/// assert_eq!(outcome.errors[0].message(), "spec: Invalid value: at most 10 replicas");
/// ```
pub fn validate_object(
    crd: &CompiledCrd,
    ver: &CompiledVersion,
    obj: &Value,
    old: Option<&Value>,
    opts: &ValidateOptions,
) -> Result<Outcome, String> {
    // Every path (batch, CLI, npm, playground, analyses) validates through here: the one
    // place the request body limit applies. The stored object (`old`) was a request once,
    // so it is not measured again.
    if let Some(e) = request_entity_too_large(obj) {
        return Err(e);
    }
    if !obj.is_object() {
        return Err(format!("object must be a JSON object, not {}", crate::text::crd_document::json_type_name(obj)));
    }
    if let Some(o) = old {
        if !o.is_object() {
            return Err(format!("oldObject must be a JSON object, not {}", crate::text::crd_document::json_type_name(o)));
        }
    }
    let mut new = obj.clone();
    let (unknown_fields, coerce_err) = decode(crd, ver, &mut new);
    let defaulted = if opts.keep_defaulted { new.clone() } else { Value::Null };
    let mut out = Outcome { defaulted, unknown_fields, ..Default::default() };
    if let Some(e) = coerce_err {
        // The apiserver rejects such a request while decoding it, before validation.
        out.errors.push(e);
        return Ok(out);
    }
    let old = old.map(|o| {
        let mut o = o.clone();
        let _ = decode(crd, ver, &mut o);
        o
    });
    let mut old = old;
    if opts.emulate_request {
        // The stored object lives in the request's namespace too.
        if let Some(o) = old.as_mut() {
            request_namespace(crd, o);
        }
        out.generated_name = emulate(crd, ver, &mut new, old.as_ref(), opts);
    }

    let schema = ver.schema.as_deref();
    // 1.28's validator ratchets a status update itself (the gate is read inside
    // `ValidateCustomResourceUpdate`); from kubernetes#121016 the strategy passes the
    // ratcheting options, and the status strategy passed none until kubernetes#129506:
    // 1.29–1.32 ratchet neither schema nor CEL errors of a status update.
    let ratcheting = opts.ratcheting && !(opts.status_subresource && crd.kube_version.has(Feature::StatusUpdatesUnratcheted));
    let kind = &crd.crd.spec.names.kind;
    let api_version = format!("{}/{}", crd.crd.spec.group, ver.name);
    let mut errs: ErrorList = Vec::new();

    // customResourceValidator: typemeta first; its errors end this validator's part.
    let mut typemeta = Vec::new();
    objectmeta::validate_type_meta(&new, kind, &api_version, &mut typemeta);
    if !typemeta.is_empty() {
        errs.extend(typemeta);
    } else {
        objectmeta::validate_root_meta(&new, old.as_ref(), crd.crd.namespaced(), crd.kube_version, &mut errs);
        if let Some(s) = schema {
            if opts.status_subresource && crd.kube_version.has(Feature::StatusSchemaValidator) {
                // ValidateStatusUpdate from kubernetes#119340: `.status` alone, against the
                // status schema (kube-openapi's texts name paths from `status`), the error
                // paths rooted at `status` only from kubernetes#123822.
                if let (Some(status), Some(status_schema)) = (new.get("status"), s.properties.get("status")) {
                    let old_status = old.as_ref().and_then(|o| o.get("status"));
                    let root = if crd.kube_version.has(Feature::StatusErrorsUnderStatus) { Path::new("status") } else { Path::root() };
                    validate_schema(crd.kube_version, status_schema, &root, status, old_status, ratcheting, &mut errs);
                }
            } else {
                // Creates, main-resource updates, and before kubernetes#119340 status updates
                // too (`ValidateCustomResource(nil, u.UnstructuredContent(), a.schemaValidator)`).
                // Before 1.28 there is no ratcheting, so `opts.ratcheting` is off there.
                validate_schema(crd.kube_version, s, &Path::root(), &new, old.as_ref(), ratcheting, &mut errs);
            }
        }
        if let Some(scale) = crd.crd.spec.versions.get(ver.index).and_then(|v| v.subresources.as_ref()).and_then(|s| s.scale.as_ref()) {
            // ValidateScaleSpec runs on create and update, ValidateScaleStatus also on a
            // status update.
            if !opts.status_subresource {
                validate_scale_replicas(&new, &scale.spec_replicas_path, &mut errs);
            }
            validate_scale_replicas(&new, &scale.status_replicas_path, &mut errs);
            if let Some(sel) = scale.label_selector_path.as_deref() {
                validate_scale_selector(&new, sel, &mut errs);
            }
        }
    }
    // The strategy's own steps see the whole object.
    objectmeta::validate_embedded(&Path::root(), &new, schema, true, crd.kube_version, &mut errs);
    // The status strategy checks list types only from kubernetes#111866.
    if !opts.status_subresource || crd.kube_version.has(Feature::StatusListTypeValidation) {
        listtype::validate_list_sets_and_maps_update(&Path::root(), schema, &new, old.as_ref(), &mut errs);
    }

    if ver.has_cel_rules {
        if errs.iter().any(|e| blocks_cel(e, crd.kube_version)) {
            errs.push(FieldError::invalid(Path::root(), BadValue::Null, RULES_NOT_CHECKED));
        } else if let Some(rules) = &ver.object_rules {
            // CEL errors ratchet (as warnings) from 1.29; 1.28's gate covers schema errors only.
            let cel_ratcheting = ratcheting && crd.kube_version.at_least(CEL_RATCHETING_SINCE);
            let c = validate_rules(rules, &new, old.as_ref(), cel_ratcheting);
            errs.extend(c.errors);
            out.warnings = c.warnings;
            out.remaining_budget = Some(c.remaining_budget);
        }
    }
    out.errors = errs;
    Ok(out)
}

/// `hasBlockingErr` of the release: required, type and size errors block the CEL rules,
/// enum violations (`Unsupported value`) only from kubernetes#121085.
fn blocks_cel(e: &FieldError, kube: KubeVersion) -> bool {
    e.is_blocking() && (e.kind != ErrorType::NotSupported || kube.has(Feature::EnumErrorsBlockCel))
}

/// Why `unstructured.NestedFieldNoCopy` and its typed wrappers fail: `%v accessor
/// error: %v is of the type %T, expected <type>`, the path printed as `.a.b`.
fn accessor_error(fields: &[&str], v: &Value, expected: &str) -> String {
    format!(
        ".{} accessor error: {} is of the type {}, expected {}",
        fields.join("."),
        crate::go::fmt::go_v(v),
        go_type(v),
        expected
    )
}

/// `unstructured.NestedFieldNoCopy`: `Ok(None)` when a field is missing or a value on the
/// way is null; an error when a value on the way is not a map (its path includes the
/// field looked up in it).
fn nested_field<'a>(obj: &'a Value, fields: &[&str]) -> Result<Option<&'a Value>, String> {
    let mut cur = obj;
    for (i, f) in fields.iter().enumerate() {
        match cur {
            Value::Null => return Ok(None),
            Value::Object(m) => match m.get(*f) {
                Some(v) => cur = v,
                None => return Ok(None),
            },
            other => return Err(accessor_error(&fields[..=i], other, "map[string]interface{}")),
        }
    }
    Ok(Some(cur))
}

/// A scale path split as the validator splits it (leading period dropped).
fn scale_fields(path: &str) -> Vec<&str> {
    path.strip_prefix('.').unwrap_or(path).split('.').collect()
}

/// `ValidateScaleSpec`/`ValidateScaleStatus` replicas: `unstructured.NestedInt64` at the
/// path; a failure reports the value 0 (what NestedInt64 returns with its error), a
/// present value must be a non-negative int32.
fn validate_scale_replicas(obj: &Value, path: &str, errs: &mut ErrorList) {
    let fields = scale_fields(path);
    let fp = Path::new(path);
    let found = match nested_field(obj, &fields) {
        Ok(f) => f,
        Err(e) => {
            errs.push(FieldError::invalid(fp, BadValue::Int(0), e));
            return;
        }
    };
    let Some(v) = found else { return };
    match v {
        Value::Number(n) if n.is_i64() => {
            let n = n.as_i64().unwrap_or(0);
            if n < 0 {
                errs.push(FieldError::invalid(fp, BadValue::Int(n), "should be a non-negative integer"));
            } else if n > i32::MAX as i64 {
                errs.push(FieldError::invalid(fp, BadValue::Int(n), format!("should be less than or equal to {}", i32::MAX)));
            }
        }
        other => errs.push(FieldError::invalid(fp, BadValue::Int(0), accessor_error(&fields, other, "int64"))),
    }
}

/// `ValidateScaleStatus` label selector: `unstructured.NestedString` at the path; a
/// failure reports the value "".
fn validate_scale_selector(obj: &Value, path: &str, errs: &mut ErrorList) {
    let fields = scale_fields(path);
    let err = match nested_field(obj, &fields) {
        Err(e) => e,
        Ok(None) | Ok(Some(Value::String(_))) => return,
        Ok(Some(other)) => accessor_error(&fields, other, "string"),
    };
    errs.push(FieldError::invalid(Path::new(path), BadValue::Str(String::new()), err));
}

/// Go's `%T` of an unstructured value.
fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}


fn validate_schema(
    kube: KubeVersion,
    s: &JsonSchemaProps,
    path: &Path,
    value: &Value,
    old: Option<&Value>,
    ratcheting: bool,
    errs: &mut ErrorList,
) {
    match old {
        Some(o) => openapi_validate_update(kube, s, path, value, o, ratcheting, errs),
        None => openapi_validate(kube, s, path, value, errs),
    }
}

/// What the apiserver does to a request before validating it (`rest.BeforeCreate`,
/// `rest.BeforeUpdate` and the strategies' `PrepareForCreate`/`PrepareForUpdate`).
/// Returns the name it generated, if any.
fn emulate(
    crd: &CompiledCrd,
    ver: &CompiledVersion,
    new: &mut Value,
    old: Option<&Value>,
    opts: &ValidateOptions,
) -> Option<String> {
    request_namespace(crd, new);
    let m = new.as_object_mut()?;
    let mut generated = None;
    match old {
        None => {
            generated = generate_name(m);
            // PrepareForCreate: status is dropped when the status subresource is enabled.
            if ver.status_subresource {
                m.remove("status");
            }
            set_meta(m, "generation", Value::from(1));
        }
        Some(old) => {
            if opts.status_subresource {
                // statusStrategy.PrepareForUpdate: everything but status (and the managed
                // fields, which track the status change) comes from the old object.
                let status = m.remove("status");
                let managed = m.get("metadata").and_then(|md| md.get("managedFields")).cloned();
                let mut o = old.clone();
                if let Some(om) = o.as_object_mut() {
                    match status {
                        Some(s) => {
                            om.insert("status".into(), s);
                        }
                        None => {
                            om.remove("status");
                        }
                    }
                    match managed {
                        Some(mf) => set_meta(om, "managedFields", mf),
                        None => {
                            if let Some(Value::Object(meta)) = om.get_mut("metadata") {
                                meta.remove("managedFields");
                            }
                        }
                    }
                    *m = std::mem::take(om);
                }
                return None;
            }
            if ver.status_subresource {
                match old.get("status") {
                    Some(s) => {
                        m.insert("status".into(), s.clone());
                    }
                    None => {
                        m.remove("status");
                    }
                }
            }
            before_update_meta(m, old);
        }
    }
    generated
}

/// `rest.BeforeUpdate`'s metadata: generation (and, by the protocol, resourceVersion)
/// come from the stored object; a missing uid, a zero creationTimestamp, a deletion
/// timestamp and a missing grace period are taken from it too, so only a different
/// value reaches the immutability checks.
fn before_update_meta(m: &mut serde_json::Map<String, Value>, old: &Value) {
    let old_meta = |k: &str| old.get("metadata").and_then(|om| om.get(k)).filter(|v| !v.is_null()).cloned();
    let new_has = |m: &serde_json::Map<String, Value>, k: &str| {
        m.get("metadata").and_then(|md| md.get(k)).is_some_and(|v| !v.is_null() && v.as_str() != Some(""))
    };
    for k in ["generation", "resourceVersion"] {
        match old_meta(k) {
            Some(v) => set_meta(m, k, v),
            None => {
                if let Some(Value::Object(meta)) = m.get_mut("metadata") {
                    meta.remove(k);
                }
            }
        }
    }
    for k in ["uid", "deletionGracePeriodSeconds"] {
        if !new_has(m, k) {
            if let Some(v) = old_meta(k) {
                set_meta(m, k, v);
            }
        }
    }
    for k in ["creationTimestamp", "deletionTimestamp"] {
        if let Some(v) = old_meta(k) {
            set_meta(m, k, v);
        }
    }
}

/// The suffix a generated name appends to `generateName`. The apiserver's
/// `names.SimpleNameGenerator` appends 5 random characters of
/// "bcdfghjklmnpqrstvwxz2456789"; crdlab appends the first five, so that answers are
/// deterministic (a valid generateName then yields a valid name, as upstream).
pub const GENERATED_NAME_SUFFIX: &str = "bcdfg";

/// `SimpleNameGenerator.GenerateName` for a create that names only `generateName`:
/// the base is cut to 58 bytes (63 minus the 5 random characters).
fn generate_name(m: &mut serde_json::Map<String, Value>) -> Option<String> {
    let Some(Value::Object(meta)) = m.get_mut("metadata") else { return None };
    let has_name = meta.get("name").and_then(Value::as_str).is_some_and(|n| !n.is_empty());
    let base = meta.get("generateName").and_then(Value::as_str).filter(|g| !g.is_empty())?;
    if has_name {
        return None;
    }
    const MAX_GENERATED_NAME_LENGTH: usize = 63 - 5;
    let mut cut = base.len().min(MAX_GENERATED_NAME_LENGTH);
    // Go slices bytes; a cut inside a character would leave invalid UTF-8, which the
    // name checks reject anyway: cut at the character boundary before it.
    while !base.is_char_boundary(cut) {
        cut -= 1;
    }
    let name = format!("{}{}", &base[..cut], GENERATED_NAME_SUFFIX);
    meta.insert("name".into(), Value::String(name.clone()));
    Some(name)
}

/// `EnsureObjectNamespaceMatchesRequestNamespace` with the request's namespace:
/// namespaced kinds get `default` when they name none; cluster-scoped kinds have their
/// namespace cleared (`BeforeCreate`/`BeforeUpdate` for `NamespaceScoped() == false`).
fn request_namespace(crd: &CompiledCrd, obj: &mut Value) {
    let Some(m) = obj.as_object_mut() else { return };
    if !crd.crd.namespaced() {
        if let Some(Value::Object(meta)) = m.get_mut("metadata") {
            meta.remove("namespace");
        }
        return;
    }
    let meta = m.entry("metadata").or_insert_with(|| Value::Object(Default::default()));
    if let Some(meta) = meta.as_object_mut() {
        let empty = meta.get("namespace").and_then(Value::as_str).map(str::is_empty).unwrap_or(true);
        if empty {
            meta.insert("namespace".into(), Value::String("default".into()));
        }
    }
}

fn set_meta(m: &mut serde_json::Map<String, Value>, k: &str, v: Value) {
    let meta = m.entry("metadata").or_insert_with(|| Value::Object(Default::default()));
    if let Some(meta) = meta.as_object_mut() {
        meta.insert(k.to_string(), v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::KubeVersion;
    use serde_json::json;

    fn crd(scope: &str) -> CompiledCrd {
        let v = json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "things.example.com"},
            "spec": {"group": "example.com", "scope": scope,
                "names": {"plural": "things", "singular": "thing", "kind": "Thing", "listKind": "ThingList"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas", "labelSelectorPath": ".status.selector"}},
                    "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}});
        CompiledCrd::from_value(&v, KubeVersion::PROTOCOL_DEFAULT).unwrap()
    }

    fn run(c: &CompiledCrd, obj: Value, old: Option<Value>, status: bool) -> Vec<String> {
        let ver = c.version(None).unwrap();
        let opts = ValidateOptions { status_subresource: status, ..Default::default() };
        let out = validate_object(c, ver, &obj, old.as_ref(), &opts).unwrap();
        let mut m: Vec<String> = out.errors.iter().map(|e| e.message()).collect();
        m.sort();
        m
    }

    #[test]
    fn cluster_scoped_namespace_is_cleared_and_names_are_generated() {
        let c = crd("Cluster");
        let obj = json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"generateName": "t-", "namespace": "ns"}});
        assert!(run(&c, obj.clone(), None, false).is_empty());
        let ver = c.version(None).unwrap();
        let out = validate_object(&c, ver, &obj, None, &ValidateOptions::default()).unwrap();
        // `defaulted` is the object before request emulation.
        assert_eq!(out.defaulted["metadata"], json!({"generateName": "t-", "namespace": "ns"}));
        // The answer says which name was used.
        assert_eq!(out.generated_name.as_deref(), Some("t-bcdfg"));
        let named = json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "n", "generateName": "t-"}});
        let out = validate_object(&c, ver, &named, None, &ValidateOptions::default()).unwrap();
        assert_eq!(out.generated_name, None);
        let bad = json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"generateName": "T_"}});
        assert!(run(&c, bad, None, false).iter().any(|m| m.starts_with("metadata.name: Invalid value: \"T_bcdfg\"")));
    }

    #[test]
    fn without_keep_defaulted_the_errors_are_the_same_and_no_copy_is_kept() {
        let c = crd("Namespaced");
        let ver = c.version(None).unwrap();
        let obj = json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"generateName": "T_"}, "spec": {"replicas": "x"}});
        let kept = validate_object(&c, ver, &obj, None, &ValidateOptions::default()).unwrap();
        let lean = validate_object(&c, ver, &obj, None, &ValidateOptions { keep_defaulted: false, ..Default::default() }).unwrap();
        assert!(kept.defaulted.is_object());
        assert_eq!(lean.defaulted, Value::Null);
        let messages = |o: &Outcome| o.errors.iter().map(|e| e.message()).collect::<Vec<_>>();
        assert!(!messages(&kept).is_empty());
        assert_eq!(messages(&kept), messages(&lean));
        assert_eq!(kept.generated_name, lean.generated_name);
    }

    #[test]
    fn updates_do_not_recheck_the_name_format() {
        let c = crd("Namespaced");
        let old = json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "${NAME}", "resourceVersion": "1"}});
        let new = json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "${NAME}", "labels": {"a": "b"}}});
        assert!(run(&c, new.clone(), Some(old.clone()), false).is_empty());
        assert!(run(&c, new, Some(old), true).is_empty());
    }

    #[test]
    fn status_updates_keep_the_requests_managed_fields() {
        let c = crd("Namespaced");
        let old = json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "n"}});
        let new = json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "n", "managedFields": [{"operation": "Bogus"}]}});
        assert_eq!(run(&c, new, Some(old), true), vec!["metadata.managedFields[0].operation: Invalid value: \"Bogus\": must be `Apply` or `Update`"]);
    }

    #[test]
    fn scale_paths_print_accessor_errors_like_unstructured_helpers() {
        let c = crd("Namespaced");
        let old = json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "n"}, "spec": {"replicas": 1}});
        let new = json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "n"}, "spec": true, "status": [{}]});
        assert_eq!(run(&c, new.clone(), Some(old.clone()), true), vec![
            ".status.replicas: Invalid value: 0: .status.replicas accessor error: [map[]] is of the type []interface {}, expected map[string]interface{}",
            ".status.selector: Invalid value: \"\": .status.selector accessor error: [map[]] is of the type []interface {}, expected map[string]interface{}",
        ]);
        // A main-resource update checks spec (status comes from the stored object).
        assert_eq!(run(&c, new, Some(old), false), vec![
            ".spec.replicas: Invalid value: 0: .spec.replicas accessor error: true is of the type bool, expected map[string]interface{}",
        ]);
        let new = json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "n"}, "spec": {"replicas": "3"}, "status": {"selector": 1, "replicas": null}});
        let old = json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "n"}});
        assert_eq!(run(&c, new, Some(old), true), vec![
            ".status.replicas: Invalid value: 0: .status.replicas accessor error: <nil> is of the type <nil>, expected int64",
            ".status.selector: Invalid value: \"\": .status.selector accessor error: 1 is of the type int64, expected string",
        ]);
        assert_eq!(crate::go::fmt::go_v(&json!({"b": [1.5, null], "a": "x"})), "map[a:x b:[1.5 <nil>]]");
    }
}
