//! ObjectMeta handling for custom resources: the coercion of `metadata` at the resource
//! root and in embedded resources (apiextensions `pkg/apiserver/schema/objectmeta`), the
//! embedded-resource checks, and the generic metadata validation the apiserver applies
//! (apimachinery `api/validation/objectmeta.go`, `util/validation`).

use crate::crd::model::JsonSchemaProps;
use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::version::KubeVersion;
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
    /// `[]metav1.OwnerReference`.
    OwnerRefs,
    /// `[]metav1.ManagedFieldsEntry`.
    ManagedFields,
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
    ("ownerReferences", Shape::OwnerRefs),
    ("finalizers", Shape::StrList),
    ("managedFields", Shape::ManagedFields),
];

/// `CoerceWithOptions` for a request: walks the object; at the root and every embedded
/// resource, `metadata` is round-tripped through ObjectMeta (unknown fields dropped and
/// reported, empty values dropped as Go's omitempty does, timestamps normalized) and
/// `apiVersion`/`kind` must be strings. Returns the first error and the unknown paths.
pub fn coerce(obj: &mut Value, s: Option<&JsonSchemaProps>) -> (Option<FieldError>, Vec<String>) {
    let mut unknown = Vec::new();
    let err = coerce_node(&Path::root(), obj, s, true, &mut unknown).err();
    crate::go::sort::sort(&mut unknown);
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
        compiled_for: None,
        fingerprints: crate::crd::model::FingerprintCell::new(),
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
            (Shape::OwnerRefs, Value::Array(a)) => {
                let mut out = Vec::with_capacity(a.len());
                for (i, x) in a.iter().enumerate() {
                    let p = format!("{}.{}[{}]", mpath.as_str(), k, i);
                    out.push(round_trip_struct(x, OWNER_REFERENCE, "OwnerReference", &k, &p, unknown).map_err(|e| e.at(&mpath))?);
                }
                (!out.is_empty()).then_some(Value::Array(out))
            }
            (Shape::OwnerRefs, _) => return Err(bad("[]v1.OwnerReference")),
            (Shape::ManagedFields, Value::Array(a)) => {
                let mut out = Vec::with_capacity(a.len());
                for (i, x) in a.iter().enumerate() {
                    let p = format!("{}.{}[{}]", mpath.as_str(), k, i);
                    out.push(round_trip_struct(x, MANAGED_FIELDS_ENTRY, "ManagedFieldsEntry", &k, &p, unknown).map_err(|e| e.at(&mpath))?);
                }
                (!out.is_empty()).then_some(Value::Array(out))
            }
            (Shape::ManagedFields, _) => return Err(bad("[]v1.ManagedFieldsEntry")),
        };
        if let Some(v) = keep {
            out.insert(k, v);
        }
    }
    *m = out;
    Ok(())
}

/// A field of a metav1 struct inside ObjectMeta, as its json tag declares it.
#[derive(Clone, Copy)]
enum Member {
    /// `string` without omitempty: always written, `""` when absent.
    Str,
    /// `string,omitempty`.
    OptStr,
    /// `*bool,omitempty`: written when set (also `false`).
    OptBool,
    /// `*Time,omitempty`.
    OptTime,
    /// `*FieldsV1,omitempty`: raw JSON, kept as sent.
    Raw,
}

/// `metav1.OwnerReference`: apiVersion, kind, name and uid are required json fields.
const OWNER_REFERENCE: &[(&str, Member)] = &[
    ("apiVersion", Member::Str),
    ("kind", Member::Str),
    ("name", Member::Str),
    ("uid", Member::Str),
    ("controller", Member::OptBool),
    ("blockOwnerDeletion", Member::OptBool),
];

/// `metav1.ManagedFieldsEntry`: every field is omitempty.
const MANAGED_FIELDS_ENTRY: &[(&str, Member)] = &[
    ("manager", Member::OptStr),
    ("operation", Member::OptStr),
    ("apiVersion", Member::OptStr),
    ("time", Member::OptTime),
    ("fieldsType", Member::OptStr),
    ("fieldsV1", Member::Raw),
    ("subresource", Member::OptStr),
];

/// A decode error inside ObjectMeta, before it gets the metadata path.
struct MemberError(String);

impl MemberError {
    fn at(self, mpath: &Path) -> FieldError {
        FieldError::invalid(mpath.clone(), BadValue::Json(Value::Null), self.0)
    }
}

/// One element of a struct list of ObjectMeta through Go's json decode and encode: unknown
/// members dropped (and reported), required strings written even when empty, omitempty
/// members dropped when empty, times normalized, members in the struct's order.
fn round_trip_struct(
    x: &Value,
    members: &[(&str, Member)],
    go_type: &str,
    list: &str,
    path: &str,
    unknown: &mut Vec<String>,
) -> Result<Value, MemberError> {
    let m = match x {
        Value::Object(m) => m,
        // A null element decodes as the zero struct.
        Value::Null => &Map::new(),
        other => {
            return Err(MemberError(
                format!("json: cannot unmarshal {} into Go struct field ObjectMeta.{} of type v1.{}", go_json_kind(other), list, go_type),
            ))
        }
    };
    for k in m.keys() {
        if !members.iter().any(|(n, _)| n == k) {
            unknown.push(format!("{}.{}", path, k).trim_start_matches('.').to_string());
        }
    }
    let mut out = Map::new();
    for (name, member) in members {
        let v = m.get(*name).unwrap_or(&Value::Null);
        let bad = |what: &str| {
            MemberError(
                format!("json: cannot unmarshal {} into Go struct field {}.{}.{} of type {}", go_json_kind(v), go_type, list, name, what),
            )
        };
        let keep = match (member, v) {
            (Member::Str, Value::Null) => Some(Value::String(String::new())),
            (Member::Str, Value::String(_)) => Some(v.clone()),
            (Member::Str | Member::OptStr, _) if !v.is_string() && !v.is_null() => return Err(bad("string")),
            (Member::OptStr, Value::String(s)) => (!s.is_empty()).then(|| v.clone()),
            (Member::OptBool, Value::Bool(_)) => Some(v.clone()),
            (Member::OptBool, Value::Null) => None,
            (Member::OptBool, _) => return Err(bad("bool")),
            (Member::OptTime, Value::String(s)) => match normalize_rfc3339(s) {
                Some(t) => Some(Value::String(t)),
                None => return Err(bad("v1.Time")),
            },
            (Member::OptTime, Value::Null) => None,
            (Member::OptTime, _) => return Err(bad("v1.Time")),
            (Member::Raw, Value::Null) => None,
            (Member::Raw, _) => Some(v.clone()),
            _ => None,
        };
        if let Some(v) = keep {
            out.insert(name.to_string(), v);
        }
    }
    Ok(Value::Object(out))
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

// The name and label rules (apimachinery `util/validation`) live in `k8s::names`, shared
// with the CRD checks and the CEL format library.
use crate::go::time::{civil_from_days, days_from_civil, days_in_month};
use crate::k8s::names::{
    is_dns1035_label, is_dns1123_label, is_qualified_name, is_valid_label_value, name_is_dns_subdomain,
};

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

/// `ValidateObjectMetaAccessor` over an unstructured (coerced) `metadata`: the create
/// checks, with `name_fn` for the name and generateName.
pub fn validate_object_meta(
    meta: &Map<String, Value>,
    requires_namespace: bool,
    name_fn: fn(&str, bool) -> Vec<String>,
    path: &Path,
    kube: KubeVersion,
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
    validate_common(meta, requires_namespace, path, kube, errs);
}

/// `validateObjectMetaAccessorWithOptsCommon`: namespace, generation, labels,
/// annotations, owner references, finalizers, managed fields.
fn validate_common(meta: &Map<String, Value>, is_namespaced: bool, path: &Path, kube: KubeVersion, errs: &mut ErrorList) {
    let ns = str_field(meta, "namespace");
    if is_namespaced {
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
    let generation = meta.get("generation").and_then(Value::as_i64).unwrap_or(0);
    if generation < 0 {
        errs.push(FieldError::invalid(path.child("generation"), BadValue::Int(generation), "must be greater than or equal to 0"));
    }
    validate_labels(meta, &path.child("labels"), kube, errs);
    validate_annotations(meta, &path.child("annotations"), kube, errs);
    validate_owner_references(meta, &path.child("ownerReferences"), errs);
    validate_finalizers(meta, &path.child("finalizers"), kube, errs);
    validate_managed_fields(meta, &path.child("managedFields"), errs);
}

/// v1validation `ValidateLabels`.
fn validate_labels(meta: &Map<String, Value>, lp: &Path, kube: KubeVersion, errs: &mut ErrorList) {
    if let Some(Value::Object(labels)) = meta.get("labels") {
        for (k, v) in labels {
            for msg in is_qualified_name(k, kube) {
                errs.push(FieldError::invalid(lp.clone(), BadValue::Str(k.clone()), msg));
            }
            let v = v.as_str().unwrap_or("");
            for msg in is_valid_label_value(v, kube) {
                errs.push(FieldError::invalid(lp.clone(), BadValue::Str(v.into()), msg));
            }
        }
    }
}

/// `ValidateAnnotations`: keys are qualified names in any case; 256 KiB in all.
fn validate_annotations(meta: &Map<String, Value>, ap: &Path, kube: KubeVersion, errs: &mut ErrorList) {
    if let Some(Value::Object(ann)) = meta.get("annotations") {
        let mut total = 0usize;
        for (k, v) in ann {
            for msg in is_qualified_name(&k.to_lowercase(), kube) {
                errs.push(FieldError::invalid(ap.clone(), BadValue::Str(k.clone()), msg));
            }
            total += k.len() + v.as_str().map(str::len).unwrap_or(0);
        }
        if total > TOTAL_ANNOTATION_SIZE_LIMIT {
            errs.push(FieldError::too_long(ap.clone(), BadValue::Str(String::new()), TOTAL_ANNOTATION_SIZE_LIMIT as i64));
        }
    }
}

/// `TotalAnnotationSizeLimitB`.
const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

/// A decoded `metav1.OwnerReference`.
struct OwnerRef<'a> {
    api_version: &'a str,
    kind: &'a str,
    name: &'a str,
    uid: &'a str,
    controller: Option<bool>,
    block_owner_deletion: Option<bool>,
}

impl<'a> OwnerRef<'a> {
    fn from_json(v: &'a Value) -> OwnerRef<'a> {
        let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("");
        let b = |k: &str| v.get(k).and_then(Value::as_bool);
        OwnerRef {
            api_version: s("apiVersion"),
            kind: s("kind"),
            name: s("name"),
            uid: s("uid"),
            controller: b("controller"),
            block_owner_deletion: b("blockOwnerDeletion"),
        }
    }

    /// json.Marshal of the struct (1.34+ error values).
    fn json(&self) -> String {
        let mut out = String::from("{");
        for (i, (k, v)) in [("apiVersion", self.api_version), ("kind", self.kind), ("name", self.name), ("uid", self.uid)].iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            crate::go::json::json_string(k, &mut out);
            out.push(':');
            crate::go::json::json_string(v, &mut out);
        }
        for (k, v) in [("controller", self.controller), ("blockOwnerDeletion", self.block_owner_deletion)] {
            if let Some(b) = v {
                out.push_str(&format!(",\"{}\":{}", k, b));
            }
        }
        out.push('}');
        out
    }

    /// Go's `%#v` of the struct (values before 1.34). The `*bool` members print their
    /// address, which cannot be reproduced; a fixed one stands for it.
    fn go(&self) -> String {
        let ptr = |b: Option<bool>| if b.is_some() { "(*bool)(0xc000000000)" } else { "(*bool)(nil)" };
        format!(
            "v1.OwnerReference{{APIVersion:{}, Kind:{}, Name:{}, UID:{}, Controller:{}, BlockOwnerDeletion:{}}}",
            crate::go::strconv::quote(self.api_version),
            crate::go::strconv::quote(self.kind),
            crate::go::strconv::quote(self.name),
            crate::go::strconv::quote(self.uid),
            ptr(self.controller),
            ptr(self.block_owner_deletion)
        )
    }
}

/// `schema.FromAPIVersionAndKind`'s group and version (`ParseGroupVersion`; an
/// unparsable apiVersion gives an empty one).
fn group_version(api_version: &str) -> (&str, &str) {
    if api_version.is_empty() || api_version == "/" {
        return ("", "");
    }
    match api_version.split_once('/') {
        None => ("", api_version),
        Some((g, v)) if !v.contains('/') => (g, v),
        Some(_) => ("", ""),
    }
}

/// `ValidateOwnerReferences`: the paths carry no index, as upstream builds them.
fn validate_owner_references(meta: &Map<String, Value>, op: &Path, errs: &mut ErrorList) {
    let Some(Value::Array(list)) = meta.get("ownerReferences") else { return };
    let refs: Vec<OwnerRef<'_>> = list.iter().map(OwnerRef::from_json).collect();
    let mut first_controller: Option<String> = None;
    for r in &refs {
        // validateOwnerReference
        let (group, version) = group_version(r.api_version);
        if version.is_empty() {
            errs.push(FieldError::invalid(op.child("apiVersion"), BadValue::Str(r.api_version.into()), "version must not be empty"));
        }
        if r.kind.is_empty() {
            errs.push(FieldError::invalid(op.child("kind"), BadValue::Str(String::new()), "must not be empty"));
        }
        if r.name.is_empty() {
            errs.push(FieldError::invalid(op.child("name"), BadValue::Str(String::new()), "must not be empty"));
        }
        if r.uid.is_empty() {
            errs.push(FieldError::invalid(op.child("uid"), BadValue::Str(String::new()), "must not be empty"));
        }
        // BannedOwners: core/v1 Event.
        if group.is_empty() && version == "v1" && r.kind == "Event" {
            errs.push(FieldError::invalid(
                op.clone(),
                BadValue::GoStruct { json: r.json(), go: r.go() },
                format!("{}/{}, Kind={} is disallowed from being an owner", group, version, r.kind),
            ));
        }
        if r.controller == Some(true) {
            let current = format!("{}/{}", r.kind, r.name);
            match &first_controller {
                Some(first) => {
                    let json = format!("[{}]", refs.iter().map(OwnerRef::json).collect::<Vec<_>>().join(","));
                    let go = format!("[]v1.OwnerReference{{{}}}", refs.iter().map(OwnerRef::go).collect::<Vec<_>>().join(", "));
                    errs.push(FieldError::invalid(
                        op.clone(),
                        BadValue::GoStruct { json, go },
                        format!(
                            "Only one reference can have Controller set to true. Found \"true\" in references for {} and {}",
                            first, current
                        ),
                    ));
                }
                None => first_controller = Some(current),
            }
        }
    }
}

/// `metav1.FinalizerOrphanDependents` and `metav1.FinalizerDeleteDependents`.
const FINALIZER_ORPHAN: &str = "orphan";
const FINALIZER_FOREGROUND: &str = "foregroundDeletion";

fn string_list(meta: &Map<String, Value>, k: &str) -> Vec<String> {
    match meta.get(k) {
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        _ => Vec::new(),
    }
}

/// A `[]string` as an error value: JSON from 1.34, `%#v` before.
fn string_list_value(list: &[String]) -> BadValue {
    let json = crate::go::json::json_marshal(&Value::Array(list.iter().cloned().map(Value::String).collect()));
    let go = format!("[]string{{{}}}", list.iter().map(|s| crate::go::strconv::quote(s)).collect::<Vec<_>>().join(", "));
    BadValue::GoStruct { json, go }
}

/// `ValidateFinalizers`: qualified names, and not both orphan and foregroundDeletion.
fn validate_finalizers(meta: &Map<String, Value>, fp: &Path, kube: KubeVersion, errs: &mut ErrorList) {
    let fin = string_list(meta, "finalizers");
    for f in &fin {
        for msg in is_qualified_name(f, kube) {
            errs.push(FieldError::invalid(fp.clone(), BadValue::Str(f.clone()), msg));
        }
    }
    if fin.iter().any(|f| f == FINALIZER_ORPHAN) && fin.iter().any(|f| f == FINALIZER_FOREGROUND) {
        errs.push(FieldError::invalid(
            fp.clone(),
            string_list_value(&fin),
            format!("finalizer {} and {} cannot be both set", FINALIZER_ORPHAN, FINALIZER_FOREGROUND),
        ));
    }
}

/// `FieldManagerMaxLength`, `MaxSubresourceNameLength`.
const FIELD_MANAGER_MAX_LENGTH: usize = 128;
const MAX_SUBRESOURCE_NAME_LENGTH: usize = 256;

/// v1validation `ValidateManagedFields` (with `ValidateFieldManager` for the manager).
fn validate_managed_fields(meta: &Map<String, Value>, mp: &Path, errs: &mut ErrorList) {
    let Some(Value::Array(list)) = meta.get("managedFields") else { return };
    for (i, e) in list.iter().enumerate() {
        let p = mp.index(i);
        let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("");
        let operation = s("operation");
        if operation != "Apply" && operation != "Update" {
            errs.push(FieldError::invalid(p.child("operation"), BadValue::Str(operation.into()), "must be `Apply` or `Update`"));
        }
        let fields_type = s("fieldsType");
        if !fields_type.is_empty() && fields_type != "FieldsV1" {
            errs.push(FieldError::invalid(p.child("fieldsType"), BadValue::Str(fields_type.into()), "must be `FieldsV1`"));
        }
        let manager = s("manager");
        if manager.len() > FIELD_MANAGER_MAX_LENGTH {
            errs.push(FieldError::too_long(p.child("manager"), BadValue::Str(manager.into()), FIELD_MANAGER_MAX_LENGTH as i64));
        }
        for (at, c) in manager.char_indices() {
            if !crate::go::unicode::is_print(c) {
                // %#U of a non-printable rune: U+XXXX without the quoted character.
                errs.push(FieldError::invalid(
                    p.child("manager"),
                    BadValue::Str(manager.into()),
                    format!("invalid character U+{:04X} (at position {})", c as u32, at),
                ));
            }
        }
        let subresource = s("subresource");
        if subresource.len() > MAX_SUBRESOURCE_NAME_LENGTH {
            errs.push(FieldError::too_long(
                p.child("subresource"),
                BadValue::Str(subresource.into()),
                MAX_SUBRESOURCE_NAME_LENGTH as i64,
            ));
        }
    }
}

/// A metav1.Time member as an error value: nil prints null, a time its `String()`
/// (`2006-01-02 15:04:05 +0000 UTC`: decoded times are in the server's zone, UTC).
fn time_value(v: Option<&Value>) -> BadValue {
    match v.and_then(Value::as_str) {
        None => BadValue::Null,
        Some(t) => BadValue::Raw(format!("{} +0000 UTC", t.trim_end_matches('Z').replacen('T', " ", 1))),
    }
}

/// `ValidateObjectMetaAccessorUpdate`: what the custom-resource strategy checks of the
/// metadata on an update (also a status update). Neither the name's nor the namespace's
/// format is checked again. The resourceVersion check ("must be specified for an update")
/// is left out: request emulation stands for a stored object, which always has one.
pub fn validate_object_meta_update(
    new: &Map<String, Value>,
    old: &Map<String, Value>,
    path: &Path,
    kube: KubeVersion,
    errs: &mut ErrorList,
) {
    // Finalizers cannot be added once the object is being deleted.
    if old.get("deletionTimestamp").is_some_and(|v| !v.is_null()) {
        let old_fin = string_list(old, "finalizers");
        let mut extra: Vec<String> = string_list(new, "finalizers").into_iter().filter(|f| !old_fin.contains(f)).collect();
        crate::go::sort::sort(&mut extra);
        extra.dedup();
        if !extra.is_empty() {
            let list = format!("[]string{{{}}}", extra.iter().map(|s| crate::go::strconv::quote(s)).collect::<Vec<_>>().join(", "));
            errs.push(FieldError::forbidden(
                path.child("finalizers"),
                format!("no new finalizers can be added if the object is being deleted, found new finalizers {}", list),
            ));
        }
    }
    let generation = |m: &Map<String, Value>| m.get("generation").and_then(Value::as_i64).unwrap_or(0);
    if generation(new) < generation(old) {
        errs.push(FieldError::invalid(path.child("generation"), BadValue::Int(generation(new)), "must not be decremented"));
    }
    // ValidateImmutableField, in upstream's order.
    for k in ["name", "namespace", "uid"] {
        let (a, b) = (str_field(new, k), str_field(old, k));
        if a != b {
            errs.push(FieldError::invalid(path.child(k), BadValue::Str(a.into()), "field is immutable"));
        }
    }
    for k in ["creationTimestamp", "deletionTimestamp"] {
        let (a, b) = (new.get(k).filter(|v| !v.is_null()), old.get(k).filter(|v| !v.is_null()));
        if a != b {
            // creationTimestamp is a Time (its zero prints as Go's zero time), deletionTimestamp
            // a *Time (nil prints null).
            let value = match (k, a) {
                ("creationTimestamp", None) => BadValue::Raw("0001-01-01 00:00:00 +0000 UTC".into()),
                _ => time_value(a),
            };
            errs.push(FieldError::invalid(path.child(k), value, "field is immutable"));
        }
    }
    let (a, b) = (new.get("deletionGracePeriodSeconds").and_then(Value::as_i64), old.get("deletionGracePeriodSeconds").and_then(Value::as_i64));
    if a != b {
        errs.push(FieldError::invalid(
            path.child("deletionGracePeriodSeconds"),
            a.map(BadValue::Int).unwrap_or(BadValue::Null),
            "field is immutable",
        ));
    }
    validate_labels(new, &path.child("labels"), kube, errs);
    validate_annotations(new, &path.child("annotations"), kube, errs);
    validate_owner_references(new, &path.child("ownerReferences"), errs);
    validate_managed_fields(new, &path.child("managedFields"), errs);
}

/// Metadata checks of the resource root: `ValidateObjectMetaAccessor` with
/// `NameIsDNSSubdomain` on create, `ValidateObjectMetaAccessorUpdate` on update.
pub fn validate_root_meta(obj: &Value, old: Option<&Value>, namespaced: bool, kube: KubeVersion, errs: &mut ErrorList) {
    let empty = Map::new();
    let meta = obj.get("metadata").and_then(Value::as_object).unwrap_or(&empty);
    let path = Path::new("metadata");
    match old {
        Some(old) => {
            let old_meta = old.get("metadata").and_then(Value::as_object).unwrap_or(&empty);
            validate_object_meta_update(meta, old_meta, &path, kube, errs)
        }
        None => validate_object_meta(meta, namespaced, name_is_dns_subdomain, &path, kube, errs),
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
pub fn validate_embedded(
    path: &Path,
    obj: &Value,
    s: Option<&JsonSchemaProps>,
    root: bool,
    kube: KubeVersion,
    errs: &mut ErrorList,
) {
    let Some(s) = s.or(if root { Some(&EMPTY) } else { None }) else { return };
    match obj {
        Value::Object(m) => {
            if s.x_embedded_resource && !root {
                validate_embedded_resource(path, m, kube, errs);
            }
            for (k, v) in m {
                if let Some(p) = s.properties.get(k) {
                    validate_embedded(&path.child(k), v, Some(p), false, kube, errs);
                } else if let Some(ap) = s.additional_properties_schema() {
                    validate_embedded(&path.key(k), v, Some(ap), false, kube, errs);
                }
            }
        }
        Value::Array(a) => {
            let items = s.items_schema();
            for (i, v) in a.iter().enumerate() {
                validate_embedded(&path.index(i), v, items, false, kube, errs);
            }
        }
        _ => {}
    }
}

/// `validateEmbeddedResource`: apiVersion and kind are required (a missing or empty one is
/// a bare `Required value`), metadata is optional and checked by `ValidateObjectMeta`
/// with `path.ValidatePathSegmentName` (a missing name stands as "fakename").
fn validate_embedded_resource(path: &Path, m: &Map<String, Value>, kube: KubeVersion, errs: &mut ErrorList) {
    if !m.contains_key("apiVersion") {
        errs.push(FieldError::required(path.child("apiVersion"), ""));
    }
    if !m.contains_key("kind") {
        errs.push(FieldError::required(path.child("kind"), ""));
    }
    for (k, v) in m {
        match k.as_str() {
            "apiVersion" => match v.as_str() {
                None => errs.push(FieldError::invalid(path.child(k), BadValue::from_json(v), "must be a string")),
                Some("") => errs.push(FieldError::required(path.child(k), "")),
                Some(av) => {
                    if let Err(e) = parse_group_version(av) {
                        errs.push(FieldError::invalid(path.child(k), BadValue::Str(av.into()), e));
                    }
                }
            },
            "kind" => match v.as_str() {
                None => errs.push(FieldError::invalid(path.child(k), BadValue::from_json(v), "must be a string")),
                Some("") => errs.push(FieldError::required(path.child(k), "")),
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
                    validate_object_meta(&meta, namespaced, validate_path_segment_name, &path.child("metadata"), kube, errs);
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
        validate_object_meta(meta.as_object().unwrap(), false, name_is_dns_subdomain, &Path::new("metadata"), KubeVersion::LATEST, &mut errs);
        assert_eq!(errs[0].message(), "metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    }

    #[test]
    fn embedded_resources_need_kind_and_api_version() {
        let s: JsonSchemaProps = serde_json::from_value(json!({"type": "object", "properties": {"t": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}}})).unwrap();
        let mut errs = Vec::new();
        validate_embedded(&Path::root(), &json!({"t": {"kind": "Pod"}}), Some(&s), true, KubeVersion::LATEST, &mut errs);
        assert_eq!(errs.iter().map(|e| e.message()).collect::<Vec<_>>(), vec!["t.apiVersion: Required value"]);
        let mut errs = Vec::new();
        validate_embedded(&Path::root(), &json!({"t": {"kind": "", "apiVersion": ""}}), Some(&s), true, KubeVersion::LATEST, &mut errs);
        let mut got: Vec<String> = errs.iter().map(|e| e.message()).collect();
        got.sort();
        assert_eq!(got, vec!["t.apiVersion: Required value", "t.kind: Required value"]);
    }

    fn messages(errs: &[FieldError]) -> Vec<String> {
        let mut m: Vec<String> = errs.iter().map(|e| e.message()).collect();
        m.sort();
        m
    }

    fn create_errors(meta: Value) -> Vec<String> {
        let mut errs = Vec::new();
        validate_object_meta(meta.as_object().unwrap(), false, name_is_dns_subdomain, &Path::new("metadata"), KubeVersion::LATEST, &mut errs);
        messages(&errs)
    }

    #[test]
    fn owner_references_are_checked_without_an_index() {
        let got = create_errors(json!({"name": "n", "ownerReferences": [{"apiVersion": "", "kind": "", "name": "", "uid": ""}]}));
        assert_eq!(got, vec![
            "metadata.ownerReferences.apiVersion: Invalid value: \"\": version must not be empty",
            "metadata.ownerReferences.kind: Invalid value: \"\": must not be empty",
            "metadata.ownerReferences.name: Invalid value: \"\": must not be empty",
            "metadata.ownerReferences.uid: Invalid value: \"\": must not be empty",
        ]);
        // "g/" and "a/b/c" have no version either.
        let got = create_errors(json!({"name": "n", "ownerReferences": [{"apiVersion": "g/", "kind": "K", "name": "a", "uid": "u"}]}));
        assert_eq!(got, vec!["metadata.ownerReferences.apiVersion: Invalid value: \"g/\": version must not be empty"]);
        let got = create_errors(json!({"name": "n", "ownerReferences": [{"apiVersion": "v1", "kind": "Event", "name": "a", "uid": "u"}]}));
        assert_eq!(got, vec!["metadata.ownerReferences: Invalid value: {\"apiVersion\":\"v1\",\"kind\":\"Event\",\"name\":\"a\",\"uid\":\"u\"}: /v1, Kind=Event is disallowed from being an owner"]);
    }

    #[test]
    fn only_one_owner_reference_is_the_controller() {
        let got = create_errors(json!({"name": "n", "ownerReferences": [
            {"apiVersion": "v1", "kind": "ConfigMap", "name": "a", "uid": "u1", "controller": true},
            {"apiVersion": "apps/v1", "kind": "Deployment", "name": "b", "uid": "u2", "controller": true}]}));
        assert_eq!(got, vec!["metadata.ownerReferences: Invalid value: [{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"a\",\"uid\":\"u1\",\"controller\":true},{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"name\":\"b\",\"uid\":\"u2\",\"controller\":true}]: Only one reference can have Controller set to true. Found \"true\" in references for ConfigMap/a and Deployment/b"]);
    }

    #[test]
    fn managed_fields_and_finalizers_are_checked() {
        let got = create_errors(json!({"name": "n", "managedFields": [{"operation": "Bogus", "fieldsType": "FieldsV2", "manager": "a\u{0007}"}]}));
        assert_eq!(got, vec![
            "metadata.managedFields[0].fieldsType: Invalid value: \"FieldsV2\": must be `FieldsV1`",
            "metadata.managedFields[0].manager: Invalid value: \"a\\a\": invalid character U+0007 (at position 1)",
            "metadata.managedFields[0].operation: Invalid value: \"Bogus\": must be `Apply` or `Update`",
        ]);
        let got = create_errors(json!({"name": "n", "finalizers": ["orphan", "foregroundDeletion"]}));
        assert_eq!(got, vec!["metadata.finalizers: Invalid value: [\"orphan\",\"foregroundDeletion\"]: finalizer orphan and foregroundDeletion cannot be both set"]);
    }

    #[test]
    fn label_lengths_follow_the_release() {
        let meta = json!({"name": "n", "labels": {"k": "v".repeat(64)}});
        let mut errs = Vec::new();
        validate_object_meta(meta.as_object().unwrap(), false, name_is_dns_subdomain, &Path::new("metadata"), KubeVersion { minor: 36 }, &mut errs);
        assert!(errs[0].message().ends_with("must be no more than 63 bytes"));
        let mut errs = Vec::new();
        validate_object_meta(meta.as_object().unwrap(), false, name_is_dns_subdomain, &Path::new("metadata"), KubeVersion { minor: 34 }, &mut errs);
        assert!(errs[0].message().ends_with("must be no more than 63 characters"));
    }

    #[test]
    fn updates_check_immutability_not_the_name_format() {
        let old = json!({"name": "Old_Name", "namespace": "default", "generation": 2});
        let new = json!({"name": "Old_Name", "namespace": "default", "generation": 2, "finalizers": ["a/b/c"]});
        let mut errs = Vec::new();
        validate_object_meta_update(new.as_object().unwrap(), old.as_object().unwrap(), &Path::new("metadata"), KubeVersion::LATEST, &mut errs);
        assert!(errs.is_empty(), "{:?}", messages(&errs));
        let new = json!({"name": "other", "namespace": "Bad_NS", "generation": 1, "uid": "x", "creationTimestamp": "2008-01-01T01:01:01Z", "deletionGracePeriodSeconds": 5});
        let mut errs = Vec::new();
        validate_object_meta_update(new.as_object().unwrap(), old.as_object().unwrap(), &Path::new("metadata"), KubeVersion::LATEST, &mut errs);
        assert_eq!(messages(&errs), vec![
            "metadata.creationTimestamp: Invalid value: 2008-01-01 01:01:01 +0000 UTC: field is immutable",
            "metadata.deletionGracePeriodSeconds: Invalid value: 5: field is immutable",
            "metadata.generation: Invalid value: 1: must not be decremented",
            "metadata.name: Invalid value: \"other\": field is immutable",
            "metadata.namespace: Invalid value: \"Bad_NS\": field is immutable",
            "metadata.uid: Invalid value: \"x\": field is immutable",
        ]);
        // Finalizers cannot be added to an object being deleted.
        let old = json!({"name": "n", "deletionTimestamp": "2009-01-01T01:01:01Z", "finalizers": ["a"]});
        let new = json!({"name": "n", "deletionTimestamp": "2009-01-01T01:01:01Z", "finalizers": ["a", "c", "b"]});
        let mut errs = Vec::new();
        validate_object_meta_update(new.as_object().unwrap(), old.as_object().unwrap(), &Path::new("metadata"), KubeVersion::LATEST, &mut errs);
        assert_eq!(messages(&errs), vec!["metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{\"b\", \"c\"}"]);
    }

    #[test]
    fn owner_references_round_trip_through_the_typed_struct() {
        let mut o = json!({"apiVersion": "a/v1", "kind": "K", "metadata": {"name": "n",
            "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "bogus": 1, "controller": false, "blockOwnerDeletion": null}],
            "managedFields": [{"manager": "", "operation": "Update", "time": "2024-01-01T01:00:00+01:00", "fieldsV1": {"f:a": {}}}]}});
        let (err, unknown) = coerce(&mut o, None);
        assert!(err.is_none());
        assert_eq!(unknown, vec!["metadata.ownerReferences[0].bogus"]);
        assert_eq!(o["metadata"]["ownerReferences"], json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "", "controller": false}]));
        assert_eq!(o["metadata"]["managedFields"], json!([{"operation": "Update", "time": "2024-01-01T00:00:00Z", "fieldsV1": {"f:a": {}}}]));
        let mut o = json!({"metadata": {"ownerReferences": [{"uid": 5}]}});
        let (err, _) = coerce(&mut o, None);
        assert_eq!(err.unwrap().message(), "metadata: Invalid value: null: json: cannot unmarshal number into Go struct field OwnerReference.ownerReferences.uid of type string");
    }
}
