//! ObjectMeta handling for custom resources: the coercion of `metadata` at the resource
//! root and in embedded resources (apiextensions `pkg/apiserver/schema/objectmeta`), the
//! embedded-resource checks, and the generic metadata validation the apiserver applies
//! (apimachinery `api/validation/objectmeta.go`, `util/validation`).

use crate::crd::model::JsonSchemaProps;
use crate::field::{BadValue, ErrorList, FieldError, Path};
use serde_json::{Map, Value};

// ---------------------------------------------------------------------------- coercion

/// Known ObjectMeta fields and their JSON shapes.
#[derive(Clone, Copy)]
enum Shape {
    Str,
    Int,
    Time,
    StrMap,
    StrList,
    List,
}

const META_FIELDS: &[(&str, Shape)] = &[
    ("name", Shape::Str),
    ("generateName", Shape::Str),
    ("namespace", Shape::Str),
    ("selfLink", Shape::Str),
    ("uid", Shape::Str),
    ("resourceVersion", Shape::Str),
    ("generation", Shape::Int),
    ("creationTimestamp", Shape::Time),
    ("deletionTimestamp", Shape::Time),
    ("deletionGracePeriodSeconds", Shape::Int),
    ("labels", Shape::StrMap),
    ("annotations", Shape::StrMap),
    ("ownerReferences", Shape::List),
    ("finalizers", Shape::StrList),
    ("managedFields", Shape::List),
];

/// `CoerceWithOptions` for a request: walks the object; at the root and every embedded
/// resource, `metadata` is round-tripped through ObjectMeta (unknown fields dropped and
/// reported, empty values dropped as Go's omitempty does, timestamps normalized) and
/// `apiVersion`/`kind` must be strings. Returns the first error and the unknown paths.
pub fn coerce(obj: &mut Value, s: Option<&JsonSchemaProps>) -> (Option<FieldError>, Vec<String>) {
    let mut unknown = Vec::new();
    let err = coerce_node(&Path::root(), obj, s, true, &mut unknown).err();
    unknown.sort();
    (err, unknown)
}

fn coerce_node(
    path: &Path,
    x: &mut Value,
    s: Option<&JsonSchemaProps>,
    root: bool,
    unknown: &mut Vec<String>,
) -> Result<(), FieldError> {
    let Some(s) = s.or(if root { Some(&EMPTY) } else { None }) else { return Ok(()) };
    match x {
        Value::Object(m) => {
            if root || s.x_embedded_resource {
                for k in ["apiVersion", "kind"] {
                    if let Some(v) = m.get(k) {
                        if !v.is_string() {
                            return Err(FieldError::invalid(path.child(k), BadValue::from_json(v), "must be a string"));
                        }
                    }
                }
                if let Some(meta) = m.get_mut("metadata") {
                    coerce_object_meta(path, meta, unknown)?;
                    if meta.as_object().map(|o| o.is_empty()).unwrap_or(false) {
                        // An empty ObjectMeta still marshals as `{}`: kept.
                    }
                }
            }
            for (k, v) in m.iter_mut() {
                if let Some(p) = s.properties.get(k) {
                    coerce_node(&path.child(k), v, Some(p), false, unknown)?;
                } else if let Some(ap) = s.additional_properties_schema() {
                    coerce_node(&path.key(k), v, Some(ap), false, unknown)?;
                }
            }
        }
        Value::Array(a) => {
            let items = s.items_schema();
            for (i, v) in a.iter_mut().enumerate() {
                coerce_node(&path.index(i), v, items, false, unknown)?;
            }
        }
        _ => {}
    }
    Ok(())
}

static EMPTY: JsonSchemaProps = empty_schema();

const fn empty_schema() -> JsonSchemaProps {
    // A const-constructible empty schema: only the fields walked above matter.
    JsonSchemaProps {
        id: None,
        schema: None,
        reference: None,
        description: None,
        type_: None,
        format: None,
        title: None,
        default: None,
        maximum: None,
        exclusive_maximum: false,
        minimum: None,
        exclusive_minimum: false,
        max_length: None,
        min_length: None,
        pattern: None,
        max_items: None,
        min_items: None,
        unique_items: false,
        multiple_of: None,
        enum_: None,
        max_properties: None,
        min_properties: None,
        required: Vec::new(),
        items: None,
        all_of: Vec::new(),
        one_of: Vec::new(),
        any_of: Vec::new(),
        not: None,
        properties: std::collections::BTreeMap::new(),
        additional_properties: None,
        pattern_properties: std::collections::BTreeMap::new(),
        dependencies: std::collections::BTreeMap::new(),
        additional_items: None,
        definitions: std::collections::BTreeMap::new(),
        external_docs: None,
        example: None,
        nullable: false,
        x_preserve_unknown_fields: None,
        x_embedded_resource: false,
        x_int_or_string: false,
        x_list_map_keys: Vec::new(),
        x_list_type: None,
        x_map_type: None,
        x_validations: Vec::new(),
        pattern_re: None,
        validation_format: String::new(),
        numeric_format_ranges: false,
    }
}

fn coerce_object_meta(parent: &Path, meta: &mut Value, unknown: &mut Vec<String>) -> Result<(), FieldError> {
    let mpath = parent.child("metadata");
    let m = match meta {
        Value::Null => return Ok(()),
        Value::Object(m) => m,
        other => {
            return Err(FieldError::invalid(
                mpath,
                BadValue::from_json(other),
                format!("json: cannot unmarshal {} into Go value of type v1.ObjectMeta", go_json_kind(other)),
            ))
        }
    };
    let mut out = Map::new();
    for (k, v) in std::mem::take(m) {
        let Some((_, shape)) = META_FIELDS.iter().find(|(n, _)| *n == k) else {
            unknown.push(format!("{}.{}", mpath.as_str(), k).trim_start_matches('.').to_string());
            continue;
        };
        let bad = |what: &str| {
            FieldError::invalid(
                mpath.clone(),
                BadValue::Json(Value::Null),
                format!("json: cannot unmarshal {} into Go struct field ObjectMeta.{} of type {}", go_json_kind(&v), k, what),
            )
        };
        let keep = match (shape, &v) {
            (_, Value::Null) => None,
            (Shape::Str, Value::String(s)) => (!s.is_empty()).then(|| v.clone()),
            (Shape::Str, _) => return Err(bad("string")),
            (Shape::Int, Value::Number(n)) if n.is_i64() => {
                if k == "generation" && n.as_i64() == Some(0) {
                    None
                } else {
                    Some(v.clone())
                }
            }
            (Shape::Int, _) => return Err(bad("int64")),
            (Shape::Time, Value::String(s)) => match normalize_rfc3339(s) {
                Some(t) => Some(Value::String(t)),
                None => return Err(bad("v1.Time")),
            },
            (Shape::Time, _) => return Err(bad("v1.Time")),
            (Shape::StrMap, Value::Object(o)) => {
                if o.values().any(|x| !x.is_string() && !x.is_null()) {
                    return Err(bad("string"));
                }
                (!o.is_empty()).then(|| v.clone())
            }
            (Shape::StrMap, _) => return Err(bad("map[string]string")),
            (Shape::StrList, Value::Array(a)) => {
                if a.iter().any(|x| !x.is_string()) {
                    return Err(bad("string"));
                }
                (!a.is_empty()).then(|| v.clone())
            }
            (Shape::StrList, _) => return Err(bad("[]string")),
            (Shape::List, Value::Array(a)) => (!a.is_empty()).then(|| v.clone()),
            (Shape::List, _) => return Err(bad("[]")),
        };
        if let Some(v) = keep {
            out.insert(k, v);
        }
    }
    *m = out;
    Ok(())
}

fn go_json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Parses RFC 3339 and prints it as metav1.Time marshals: UTC, second precision.
pub fn normalize_rfc3339(s: &str) -> Option<String> {
    let b = s.as_bytes();
    if b.len() < 20 {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> { std::str::from_utf8(b.get(r)?).ok()?.parse().ok() };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if b[4] != b'-' || b[7] != b'-' || !(b[10] == b'T' || b[10] == b't') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut i = 19;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let st = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == st {
            return None;
        }
    }
    let offset_min = match b.get(i)? {
        b'Z' | b'z' if i + 1 == b.len() => 0,
        c @ (b'+' | b'-') if b.len() == i + 6 && b[i + 3] == b':' => {
            let oh = num(i + 1..i + 3)?;
            let om = num(i + 4..i + 6)?;
            let o = oh * 60 + om;
            if *c == b'-' {
                -o
            } else {
                o
            }
        }
        _ => return None,
    };
    if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || sec > 59 {
        return None;
    }
    let days = days_from_civil(y, mo, d);
    let t = days * 86400 + h * 3600 + mi * 60 + sec - offset_min * 60;
    let (dd, rem) = (t.div_euclid(86400), t.rem_euclid(86400));
    let (yy, mm, day) = civil_from_days(dd);
    Some(format!("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", yy, mm, day, rem / 3600, rem % 3600 / 60, rem % 60))
}

// ------------------------------------------------------------------ name and label rules

// The name and label rules (apimachinery `util/validation`) live in `crd::names`, shared
// with the CRD checks.
pub use crate::crd::names::{
    is_dns1035_label, is_dns1123_label, is_dns1123_subdomain, is_qualified_name, is_valid_label_value,
    name_is_dns_subdomain, regex_error,
};
use crate::cel::library::{civil_from_days, days_from_civil, days_in_month};

/// `path.ValidatePathSegmentName`, used for embedded resources' names.
fn validate_path_segment_name(name: &str, prefix: bool) -> Vec<String> {
    if !prefix && (name == "." || name == "..") {
        return vec![format!("may not be '{}'", name)];
    }
    let mut errs = Vec::new();
    for bad in ["/", "%"] {
        if name.contains(bad) {
            errs.push(format!("may not contain '{}'", bad));
        }
    }
    errs
}

fn str_field<'a>(m: &'a Map<String, Value>, k: &str) -> &'a str {
    m.get(k).and_then(Value::as_str).unwrap_or("")
}

/// `ValidateObjectMetaAccessor` over an unstructured `metadata`.
pub fn validate_object_meta(
    meta: &Map<String, Value>,
    requires_namespace: bool,
    name_fn: fn(&str, bool) -> Vec<String>,
    path: &Path,
    errs: &mut ErrorList,
) {
    let generate_name = str_field(meta, "generateName");
    if !generate_name.is_empty() {
        for msg in name_fn(generate_name, true) {
            errs.push(FieldError::invalid(path.child("generateName"), BadValue::Str(generate_name.into()), msg));
        }
    }
    let name = str_field(meta, "name");
    if name.is_empty() {
        errs.push(FieldError::required(path.child("name"), "name or generateName is required"));
    } else {
        for msg in name_fn(name, false) {
            errs.push(FieldError::invalid(path.child("name"), BadValue::Str(name.into()), msg));
        }
    }
    let ns = str_field(meta, "namespace");
    if requires_namespace {
        if ns.is_empty() {
            errs.push(FieldError::required(path.child("namespace"), ""));
        } else {
            for msg in is_dns1123_label(ns) {
                errs.push(FieldError::invalid(path.child("namespace"), BadValue::Str(ns.into()), msg));
            }
        }
    } else if !ns.is_empty() {
        errs.push(FieldError::forbidden(path.child("namespace"), "not allowed on this type"));
    }
    if let Some(g) = meta.get("generation").and_then(Value::as_i64) {
        if g < 0 {
            errs.push(FieldError::invalid(path.child("generation"), BadValue::Int(g), "must be greater than or equal to 0"));
        }
    }
    if let Some(Value::Object(labels)) = meta.get("labels") {
        let lp = path.child("labels");
        for (k, v) in labels {
            for msg in is_qualified_name(k) {
                errs.push(FieldError::invalid(lp.clone(), BadValue::Str(k.clone()), msg));
            }
            let v = v.as_str().unwrap_or("");
            for msg in is_valid_label_value(v) {
                errs.push(FieldError::invalid(lp.clone(), BadValue::Str(v.into()), msg));
            }
        }
    }
    if let Some(Value::Object(ann)) = meta.get("annotations") {
        let ap = path.child("annotations");
        let mut total = 0usize;
        for (k, v) in ann {
            for msg in is_qualified_name(&k.to_lowercase()) {
                errs.push(FieldError::invalid(ap.clone(), BadValue::Str(k.clone()), msg));
            }
            total += k.len() + v.as_str().map(str::len).unwrap_or(0);
        }
        if total > 256 * 1024 {
            errs.push(FieldError::too_long(ap, BadValue::Str(String::new()), 256 * 1024));
        }
    }
    if let Some(Value::Array(fin)) = meta.get("finalizers") {
        let fp = path.child("finalizers");
        for f in fin.iter().filter_map(Value::as_str) {
            for msg in is_qualified_name(f) {
                errs.push(FieldError::invalid(fp.clone(), BadValue::Str(f.into()), msg));
            }
        }
    }
}

/// `ValidateObjectMetaAccessorUpdate`: immutable fields, then the create checks.
pub fn validate_object_meta_update(
    new: &Map<String, Value>,
    old: &Map<String, Value>,
    requires_namespace: bool,
    path: &Path,
    errs: &mut ErrorList,
) {
    validate_object_meta(new, requires_namespace, name_is_dns_subdomain, path, errs);
    for k in ["name", "namespace", "uid", "creationTimestamp"] {
        let (a, b) = (new.get(k), old.get(k));
        if a != b && !(k == "creationTimestamp" && a.is_none()) {
            errs.push(FieldError::invalid(
                path.child(k),
                a.map(BadValue::from_json).unwrap_or(BadValue::Str(String::new())),
                "field is immutable",
            ));
        }
    }
}

/// Metadata checks of the resource root.
pub fn validate_root_meta(obj: &Value, old: Option<&Value>, namespaced: bool, errs: &mut ErrorList) {
    let empty = Map::new();
    let meta = obj.get("metadata").and_then(Value::as_object).unwrap_or(&empty);
    let path = Path::new("metadata");
    match old.and_then(|o| o.get("metadata")).and_then(Value::as_object) {
        Some(old_meta) => validate_object_meta_update(meta, old_meta, namespaced, &path, errs),
        None => validate_object_meta(meta, namespaced, name_is_dns_subdomain, &path, errs),
    }
}

/// `ValidateTypeMeta` of the custom resource validator.
pub fn validate_type_meta(obj: &Value, kind: &str, api_version: &str, errs: &mut ErrorList) {
    let got_kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
    if got_kind != kind {
        errs.push(FieldError::invalid(Path::new("kind"), BadValue::Str(got_kind.into()), format!("must be {}", kind)));
    }
    let got_av = obj.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    if got_av != api_version {
        errs.push(FieldError::invalid(
            Path::new("apiVersion"),
            BadValue::Str(got_av.into()),
            format!("must be {}", api_version),
        ));
    }
}

// ------------------------------------------------------------------ embedded resources

/// `schemaobjectmeta.Validate`: apiVersion/kind/metadata checks of embedded resources.
pub fn validate_embedded(path: &Path, obj: &Value, s: Option<&JsonSchemaProps>, root: bool, errs: &mut ErrorList) {
    let Some(s) = s.or(if root { Some(&EMPTY) } else { None }) else { return };
    match obj {
        Value::Object(m) => {
            if s.x_embedded_resource && !root {
                validate_embedded_resource(path, m, errs);
            }
            for (k, v) in m {
                if let Some(p) = s.properties.get(k) {
                    validate_embedded(&path.child(k), v, Some(p), false, errs);
                } else if let Some(ap) = s.additional_properties_schema() {
                    validate_embedded(&path.key(k), v, Some(ap), false, errs);
                }
            }
        }
        Value::Array(a) => {
            let items = s.items_schema();
            for (i, v) in a.iter().enumerate() {
                validate_embedded(&path.index(i), v, items, false, errs);
            }
        }
        _ => {}
    }
}

fn validate_embedded_resource(path: &Path, m: &Map<String, Value>, errs: &mut ErrorList) {
    if !m.contains_key("apiVersion") {
        errs.push(FieldError::required(path.child("apiVersion"), "must not be empty"));
    }
    if !m.contains_key("kind") {
        errs.push(FieldError::required(path.child("kind"), "must not be empty"));
    }
    for (k, v) in m {
        match k.as_str() {
            "apiVersion" => match v.as_str() {
                None => errs.push(FieldError::invalid(path.child(k), BadValue::from_json(v), "must be a string")),
                Some("") => errs.push(FieldError::invalid(path.child(k), BadValue::Str(String::new()), "must not be empty")),
                Some(av) => {
                    if let Err(e) = parse_group_version(av) {
                        errs.push(FieldError::invalid(path.child(k), BadValue::Str(av.into()), e));
                    }
                }
            },
            "kind" => match v.as_str() {
                None => errs.push(FieldError::invalid(path.child(k), BadValue::from_json(v), "must be a string")),
                Some("") => errs.push(FieldError::invalid(path.child(k), BadValue::Str(String::new()), "must not be empty")),
                Some(kind) => {
                    let e = is_dns1035_label(&kind.to_lowercase());
                    if !e.is_empty() {
                        errs.push(FieldError::invalid(
                            path.child(k),
                            BadValue::Str(kind.into()),
                            format!("may have mixed case, but should otherwise match: {}", e.join(",")),
                        ));
                    }
                }
            },
            "metadata" => match v {
                Value::Object(meta) => {
                    let mut meta = meta.clone();
                    if str_field(&meta, "name").is_empty() {
                        meta.insert("name".into(), Value::String("fakename".into()));
                    }
                    let namespaced = !str_field(&meta, "namespace").is_empty();
                    validate_object_meta(&meta, namespaced, validate_path_segment_name, &path.child("metadata"), errs);
                }
                Value::Null => {}
                other => errs.push(FieldError::invalid(
                    path.child("metadata"),
                    BadValue::from_json(other),
                    format!("json: cannot unmarshal {} into Go value of type v1.ObjectMeta", go_json_kind(other)),
                )),
            },
            _ => {}
        }
    }
}

/// `schema.ParseGroupVersion`.
fn parse_group_version(gv: &str) -> Result<(), String> {
    if gv.is_empty() || gv == "/" {
        return Ok(());
    }
    match gv.matches('/').count() {
        0 | 1 => Ok(()),
        _ => Err(format!("unexpected GroupVersion string: {}", gv)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rfc3339_is_normalized_to_utc_seconds() {
        assert_eq!(normalize_rfc3339("2024-02-29T23:30:00.123+01:00").as_deref(), Some("2024-02-29T22:30:00Z"));
        assert_eq!(normalize_rfc3339("2024-01-01T00:00:00-00:30").as_deref(), Some("2024-01-01T00:30:00Z"));
        assert_eq!(normalize_rfc3339("2024-13-01T00:00:00Z"), None);
    }

    #[test]
    fn metadata_is_coerced() {
        let mut o = json!({"apiVersion": "a/v1", "kind": "K", "metadata": {"name": "n", "labels": {}, "bogus": 1, "generation": 0}});
        let (err, unknown) = coerce(&mut o, None);
        assert!(err.is_none());
        assert_eq!(unknown, vec!["metadata.bogus"]);
        assert_eq!(o["metadata"], json!({"name": "n"}));
    }

    #[test]
    fn names_are_checked() {
        let mut errs = Vec::new();
        let meta = json!({"name": "Bad_Name"});
        validate_object_meta(meta.as_object().unwrap(), false, name_is_dns_subdomain, &Path::new("metadata"), &mut errs);
        assert_eq!(errs[0].message(), "metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    }

    #[test]
    fn embedded_resources_need_kind_and_api_version() {
        let s: JsonSchemaProps = serde_json::from_value(json!({"type": "object", "properties": {"t": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}}})).unwrap();
        let mut errs = Vec::new();
        validate_embedded(&Path::root(), &json!({"t": {"kind": "Pod"}}), Some(&s), true, &mut errs);
        assert_eq!(errs.iter().map(|e| e.message()).collect::<Vec<_>>(), vec!["t.apiVersion: Required value: must not be empty"]);
    }
}
