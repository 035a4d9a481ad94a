//! The custom-resource create/update path of the apiserver (apiextensions
//! `pkg/registry/customresource`: the codec's pruning and defaulting, `PrepareForCreate`/
//! `PrepareForUpdate`, `customResourceValidator` and the strategy's `Validate`/
//! `ValidateUpdate`, and the status strategy).

use crate::cel;
use crate::crd::{CompiledCrd, CompiledVersion};
use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::schema::{defaulting, listtype, objectmeta, pruning};
use crate::validation;
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
}

impl Default for ValidateOptions {
    fn default() -> Self {
        ValidateOptions { status_subresource: false, ratcheting: true, emulate_request: true }
    }
}

/// What validating one object yields.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// The object after pruning and defaulting, before request emulation.
    pub defaulted: Value,
    /// Paths of the fields pruned from the object.
    pub unknown_fields: Vec<String>,
    pub errors: ErrorList,
    /// Ratcheted CEL errors.
    pub warnings: ErrorList,
    /// Runtime CEL budget left; `None` when CEL did not run.
    pub remaining_budget: Option<i64>,
}

/// The text shown when a blocking schema error stops CEL validation.
pub const RULES_NOT_CHECKED: &str =
    "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation";

/// Decodes a request or stored object as the apiserver's codec does: pruning, dropping
/// non-nullable nulls, metadata coercion, defaulting. Returns unknown field paths.
fn decode(crd: &CompiledCrd, ver: &CompiledVersion, obj: &mut Value) -> (Vec<String>, Option<FieldError>) {
    let schema = ver.schema.as_ref();
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
pub fn validate_object(
    crd: &CompiledCrd,
    ver: &CompiledVersion,
    obj: &Value,
    old: Option<&Value>,
    opts: &ValidateOptions,
) -> Result<Outcome, String> {
    if !obj.is_object() {
        return Err(format!("object must be a JSON object, not {}", crate::crd::json_type_name(obj)));
    }
    if let Some(o) = old {
        if !o.is_object() {
            return Err(format!("oldObject must be a JSON object, not {}", crate::crd::json_type_name(o)));
        }
    }
    let mut new = obj.clone();
    let (unknown_fields, coerce_err) = decode(crd, ver, &mut new);
    let defaulted = new.clone();
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
            default_namespace(crd, o);
        }
        emulate(crd, ver, &mut new, old.as_ref(), opts);
    }

    let schema = ver.schema.as_ref();
    let kind = &crd.crd.spec.names.kind;
    let api_version = format!("{}/{}", crd.crd.spec.group, ver.name);
    let mut errs: ErrorList = Vec::new();

    // customResourceValidator: typemeta first; its errors end this validator's part.
    let mut typemeta = Vec::new();
    objectmeta::validate_type_meta(&new, kind, &api_version, &mut typemeta);
    if !typemeta.is_empty() {
        errs.extend(typemeta);
    } else {
        objectmeta::validate_root_meta(&new, old.as_ref(), crd.crd.namespaced(), &mut errs);
        if let Some(s) = schema {
            if opts.status_subresource {
                if let (Some(status), Some(status_schema)) = (new.get("status"), s.properties.get("status")) {
                    let old_status = old.as_ref().and_then(|o| o.get("status"));
                    validate_schema(status_schema, &Path::new("status"), status, old_status, opts.ratcheting, &mut errs);
                }
            } else {
                validate_schema(s, &Path::root(), &new, old.as_ref(), opts.ratcheting, &mut errs);
            }
        }
        if let Some(scale) = crd.crd.spec.versions.get(ver.index).and_then(|v| v.subresources.as_ref()).and_then(|s| s.scale.as_ref()) {
            if !opts.status_subresource {
                validate_scale_replicas(&new, &scale.spec_replicas_path, &mut errs);
            }
            validate_scale_replicas(&new, &scale.status_replicas_path, &mut errs);
        }
    }
    // The strategy's own steps see the whole object.
    objectmeta::validate_embedded(&Path::root(), &new, schema, true, &mut errs);
    listtype::validate_list_sets_and_maps(&Path::root(), schema, &new, &mut errs);

    if ver.has_cel_rules {
        if errs.iter().any(FieldError::is_blocking) {
            errs.push(FieldError::invalid(Path::root(), BadValue::Null, RULES_NOT_CHECKED));
        } else if let Some(rules) = &ver.rules {
            // CEL errors ratchet (as warnings) from 1.29; 1.28's gate covers schema errors only.
            let cel_ratcheting = opts.ratcheting && crd.kube_version.at_least(CEL_RATCHETING_SINCE);
            let c = cel::validate(rules, &new, old.as_ref(), cel_ratcheting);
            errs.extend(c.errors);
            out.warnings = c.warnings;
            out.remaining_budget = Some(c.remaining_budget);
        }
    }
    out.errors = errs;
    Ok(out)
}

/// `ValidateScaleSpec`/`ValidateScaleStatus`: the replicas at a scale path must be a
/// non-negative int32 when present.
fn validate_scale_replicas(obj: &Value, path: &str, errs: &mut ErrorList) {
    if path.is_empty() {
        return;
    }
    let fields: Vec<&str> = path.trim_start_matches('.').split('.').collect();
    let json_path = format!(".{}", fields.join("."));
    let fp = Path::new(path);
    let mut cur = obj;
    for (i, f) in fields.iter().enumerate() {
        match cur {
            Value::Object(m) => match m.get(*f) {
                Some(v) => cur = v,
                None => return,
            },
            other => {
                let at = format!(".{}", fields[..i].join("."));
                errs.push(FieldError::invalid(
                    fp,
                    BadValue::Int(0),
                    format!("{} accessor error: {} is of the type {}, expected map[string]interface{{}}", at, go_v(other), go_type(other)),
                ));
                return;
            }
        }
    }
    match cur.as_i64() {
        Some(n) if n < 0 => errs.push(FieldError::invalid(fp, BadValue::Int(n), "should be a non-negative integer")),
        Some(n) if n > i32::MAX as i64 => errs.push(FieldError::invalid(
            fp,
            BadValue::Int(n),
            format!("should be less than or equal to {}", i32::MAX),
        )),
        Some(_) => {}
        None => errs.push(FieldError::invalid(
            fp,
            BadValue::Int(0),
            format!("{} accessor error: {} is of the type {}, expected int64", json_path, go_v(cur), go_type(cur)),
        )),
    }
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

/// Go's `%v` of an unstructured scalar (compound values print as JSON here).
fn go_v(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".into(),
        Value::String(s) => s.clone(),
        Value::Number(n) if !n.is_i64() => crate::gofmt::format_float_v(n.as_f64().unwrap_or(0.0)),
        other => other.to_string(),
    }
}

fn validate_schema(
    s: &crate::crd::model::JsonSchemaProps,
    path: &Path,
    value: &Value,
    old: Option<&Value>,
    ratcheting: bool,
    errs: &mut ErrorList,
) {
    match old {
        Some(o) => validation::validate_update(s, path, value, o, ratcheting, errs),
        None => validation::validate(s, path, value, errs),
    }
}

/// What the apiserver does to a request before validating it.
fn emulate(crd: &CompiledCrd, ver: &CompiledVersion, new: &mut Value, old: Option<&Value>, opts: &ValidateOptions) {
    default_namespace(crd, new);
    let Some(m) = new.as_object_mut() else { return };
    match old {
        None => {
            // PrepareForCreate: status is dropped when the status subresource is enabled.
            if ver.status_subresource {
                m.remove("status");
            }
            set_meta(m, "generation", Value::from(1));
        }
        Some(old) => {
            if opts.status_subresource {
                // statusStrategy.PrepareForUpdate: everything but status comes from the old
                // object.
                let status = m.remove("status");
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
                    *m = std::mem::take(om);
                }
                return;
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
            // generation and resourceVersion come from the stored object; system fields too.
            for k in ["generation", "resourceVersion", "uid", "creationTimestamp"] {
                match old.get("metadata").and_then(|om| om.get(k)) {
                    Some(v) => set_meta(m, k, v.clone()),
                    None => {
                        if let Some(Value::Object(meta)) = m.get_mut("metadata") {
                            meta.remove(k);
                        }
                    }
                }
            }
        }
    }
}

/// Namespaced kinds get the request's namespace, `default` here.
fn default_namespace(crd: &CompiledCrd, obj: &mut Value) {
    if !crd.crd.namespaced() {
        return;
    }
    let Some(m) = obj.as_object_mut() else { return };
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
