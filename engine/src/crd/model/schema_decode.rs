//! `openAPIV3Schema` decoded straight from the JSON value, as the derived serde decoder of
//! [`JsonSchemaProps`] decodes it, for well-formed schemas only.
//!
//! The derived decoder goes through serde's visitor machinery for every field of every
//! node (a schema of 6,000 nodes was a quarter of a CRD re-compile in the playground). This
//! reader answers only where the answer is plain: every field of the type the derived
//! decoder wants, or `null` where it takes one. On anything else (a wrong type, a number out
//! of range, `items` as a list, `dependencies`) it gives up for the whole CRD and the
//! derived decoder runs, with its own errors. Where it answers, it answers as that decoder
//! does: the tests decode every schema of `../shared` both ways and compare. Native builds
//! and the playground have it; the npm module leaves it out for its size budget.

use crate::crd::model::{CustomResourceDefinition, Reuse, JsonSchemaProps, SchemaMap, SchemaOrArray, SchemaOrBool, ValidationRule};
use crate::text::source_map::PathSeg;
use serde::de::{Deserialize, Deserializer, IgnoredAny};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::sync::Arc;

/// A schema decoded before the derived decoder runs over the CRD: for each version, in
/// order, whose `schema` holds `openAPIV3Schema`.
type Prepared = Option<Arc<JsonSchemaProps>>;

/// How the edited paths meet a node's field.
enum Edited<'p> {
    /// No edit below it: the earlier decoding holds.
    Not,
    /// Edits below it, at these paths from it.
    Below(Vec<&'p [PathSeg]>),
    /// An edit replaced it, or one above it: decoded afresh.
    Whole,
}

/// Where `dirty` (paths from a node) meet the node's `key` (a field, or a name in a map).
fn edited<'p>(dirty: &[&'p [PathSeg]], key: &str) -> Edited<'p> {
    edited_at(dirty, |s| matches!(s, PathSeg::Key(k) if k == key))
}

/// Where `dirty` meet the step `is` takes.
fn edited_at<'p>(dirty: &[&'p [PathSeg]], is: impl Fn(&PathSeg) -> bool) -> Edited<'p> {
    let mut below = Vec::new();
    for p in dirty {
        match p.split_first() {
            None => return Edited::Whole,
            Some((s, rest)) if is(s) => {
                if rest.is_empty() {
                    return Edited::Whole;
                }
                below.push(rest);
            }
            Some(_) => {}
        }
    }
    if below.is_empty() {
        Edited::Not
    } else {
        Edited::Below(below)
    }
}

/// An earlier node and the edits below it since it was decoded.
type Earlier<'o, 'p> = Option<(&'o JsonSchemaProps, Vec<&'p [PathSeg]>)>;

/// The earlier sub-schema `old` for a field `edits` meet as given: kept whole, decoded
/// again with what below it is kept, or (`None`) decoded afresh.
enum Child<'o, 'p> {
    Keep(&'o Arc<JsonSchemaProps>),
    Again(&'o JsonSchemaProps, Vec<&'p [PathSeg]>),
    Fresh,
}

fn child<'o, 'p>(old: Option<&'o Arc<JsonSchemaProps>>, edits: Edited<'p>) -> Child<'o, 'p> {
    match (old, edits) {
        (Some(o), Edited::Not) => Child::Keep(o),
        (Some(o), Edited::Below(b)) => Child::Again(o, b),
        _ => Child::Fresh,
    }
}

/// A sub-schema object: the earlier one, or decoded (again).
fn sub(o: &Map<String, Value>, c: Child<'_, '_>, depth: usize, max: usize) -> Option<Arc<JsonSchemaProps>> {
    match c {
        Child::Keep(k) => Some(k.clone()),
        Child::Again(old, b) => props(o, depth, max, Some((old, b))).map(Arc::new),
        Child::Fresh => props(o, depth, max, None).map(Arc::new),
    }
}

thread_local! {
    /// The schemas [`decode_crd`] prepared, taken in order by [`prepared_or_derived`] while
    /// the derived decoder runs.
    static PREPARED: RefCell<Option<std::vec::IntoIter<Prepared>>> = const { RefCell::new(None) };
}

/// The CRD `v` holds, decoded by the derived decoder with every `openAPIV3Schema` read
/// here when each one is plain; `None` when one is not (the caller runs the derived decoder
/// alone, which reports what is wrong).
///
/// A schema object `max_depth` levels down (the root is level 1) or deeper is not plain:
/// where this reader answers, the CRD is within the depth limit the caller enforces.
///
/// With `reuse`, the nodes the edits since an earlier compile did not reach are that
/// compile's.
pub(crate) fn decode_crd(v: &Value, max_depth: usize, reuse: Option<&Reuse<'_>>) -> Option<Result<CustomResourceDefinition, serde_json::Error>> {
    let versions = v.get("spec")?.get("versions")?.as_array()?;
    let mut prepared = Vec::with_capacity(versions.len());
    for (i, version) in versions.iter().enumerate() {
        let Some(s) = version.get("schema").filter(|s| s.is_object()).and_then(|s| s.get("openAPIV3Schema")) else { continue };
        prepared.push(match s {
            Value::Null => None,
            Value::Object(m) => Some(match reuse {
                Some(r) => {
                    let dirty: Vec<&[PathSeg]> = r.dirty.iter().map(Vec::as_slice).collect();
                    let steps: [&dyn Fn(&PathSeg) -> bool; 5] = [
                        &|s| matches!(s, PathSeg::Key(k) if k == "spec"),
                        &|s| matches!(s, PathSeg::Key(k) if k == "versions"),
                        &|s| matches!(s, PathSeg::Index(x) if *x == i),
                        &|s| matches!(s, PathSeg::Key(k) if k == "schema"),
                        &|s| matches!(s, PathSeg::Key(k) if k == "openAPIV3Schema"),
                    ];
                    let mut edits = Edited::Below(dirty);
                    for step in steps {
                        edits = match edits {
                            Edited::Below(b) => edited_at(&b, step),
                            other => other,
                        };
                    }
                    sub(m, child(r.schemas.get(i).copied().flatten(), edits), 1, max_depth)?
                }
                None => Arc::new(props(m, 1, max_depth, None)?),
            }),
            _ => return None,
        });
    }
    PREPARED.with(|p| *p.borrow_mut() = Some(prepared.into_iter()));
    let out = <CustomResourceDefinition as Deserialize>::deserialize(v);
    PREPARED.with(|p| *p.borrow_mut() = None);
    Some(out)
}

/// `openAPIV3Schema`'s decoder: the next prepared schema while [`decode_crd`] runs (the
/// JSON is skipped, which for a borrowed value costs nothing), else the derived decoder.
pub(crate) fn prepared_or_derived<'de, D: Deserializer<'de>>(d: D) -> Result<Prepared, D::Error> {
    if let Some(next) = PREPARED.with(|p| p.borrow_mut().as_mut().and_then(|it| it.next())) {
        IgnoredAny::deserialize(d)?;
        return Ok(next);
    }
    Option::<Arc<JsonSchemaProps>>::deserialize(d)
}

/// The schema object `m`, `depth` levels down (the root is level 1); with `earlier`, the
/// node an earlier compile decoded from this object and the edits below it since, whose
/// sub-schemas the edits did not reach are kept.
fn props(m: &Map<String, Value>, depth: usize, max: usize, earlier: Earlier<'_, '_>) -> Option<JsonSchemaProps> {
    if depth > max {
        return None;
    }
    let mut p = JsonSchemaProps::default();
    // The edits below a field of this node: what of the earlier node that field keeps.
    let at = |key: &str| match &earlier {
        Some((_, dirty)) => edited(dirty, key),
        None => Edited::Whole,
    };
    let old = earlier.as_ref().map(|(o, _)| *o);
    for (k, v) in m {
        match k.as_str() {
            "id" => p.id = opt_string(v)?,
            "$schema" => p.schema = opt_string(v)?,
            "$ref" => p.reference = opt_string(v)?,
            "description" => p.description = opt_string(v)?,
            "type" => p.type_ = opt_string(v)?,
            "format" => p.format = opt_string(v)?,
            "title" => p.title = opt_string(v)?,
            "default" => p.default = Some(v.clone()),
            "maximum" => p.maximum = opt_f64(v)?,
            "exclusiveMaximum" => p.exclusive_maximum = bool_or_null(v)?,
            "minimum" => p.minimum = opt_f64(v)?,
            "exclusiveMinimum" => p.exclusive_minimum = bool_or_null(v)?,
            "maxLength" => p.max_length = opt_i64(v)?,
            "minLength" => p.min_length = opt_i64(v)?,
            "pattern" => p.pattern = opt_string(v)?,
            "maxItems" => p.max_items = opt_i64(v)?,
            "minItems" => p.min_items = opt_i64(v)?,
            "uniqueItems" => p.unique_items = bool_or_null(v)?,
            "multipleOf" => p.multiple_of = opt_f64(v)?,
            "enum" => {
                p.enum_ = match v {
                    Value::Null => None,
                    Value::Array(a) => Some(a.clone()),
                    _ => return None,
                }
            }
            "maxProperties" => p.max_properties = opt_i64(v)?,
            "minProperties" => p.min_properties = opt_i64(v)?,
            "required" => p.required = strings(v)?,
            "items" => {
                p.items = match v {
                    Value::Null => None,
                    Value::Object(o) => {
                        let before = old.and_then(|o| match &o.items {
                            Some(SchemaOrArray::Schema(s)) => Some(s),
                            _ => None,
                        });
                        Some(SchemaOrArray::Schema(sub(o, child(before, at("items")), depth + 1, max)?))
                    }
                    _ => return None,
                }
            }
            "allOf" => p.all_of = schemas(v, depth, max)?,
            "oneOf" => p.one_of = schemas(v, depth, max)?,
            "anyOf" => p.any_of = schemas(v, depth, max)?,
            "not" => {
                p.not = match v {
                    Value::Null => None,
                    Value::Object(o) => Some(Box::new(props(o, depth + 1, max, None)?)),
                    _ => return None,
                }
            }
            "properties" => p.properties = named(v, depth, max, old.map(|o| &o.properties), at(k))?,
            "additionalProperties" => {
                let before = old.and_then(|o| match &o.additional_properties {
                    Some(SchemaOrBool::Schema(s)) => Some(s),
                    _ => None,
                });
                p.additional_properties = schema_or_bool(v, depth, max, before, at(k))?
            }
            "patternProperties" => p.pattern_properties = named(v, depth, max, old.map(|o| &o.pattern_properties), at(k))?,
            "dependencies" => match v {
                Value::Null => {}
                _ => return None,
            },
            "additionalItems" => p.additional_items = schema_or_bool(v, depth, max, None, Edited::Whole)?,
            "definitions" => p.definitions = named(v, depth, max, old.map(|o| &o.definitions), at(k))?,
            // `Option<Value>`: serde reads `null` as `None`.
            "externalDocs" => p.external_docs = (!v.is_null()).then(|| v.clone()),
            "example" => p.example = Some(v.clone()),
            "nullable" => p.nullable = bool_or_null(v)?,
            "x-kubernetes-preserve-unknown-fields" => p.x_preserve_unknown_fields = opt_bool(v)?,
            "x-kubernetes-embedded-resource" => p.x_embedded_resource = bool_or_null(v)?,
            "x-kubernetes-int-or-string" => p.x_int_or_string = bool_or_null(v)?,
            "x-kubernetes-list-map-keys" => p.x_list_map_keys = strings(v)?,
            "x-kubernetes-list-type" => p.x_list_type = opt_string(v)?,
            "x-kubernetes-map-type" => p.x_map_type = opt_string(v)?,
            "x-kubernetes-validations" => p.x_validations = rules(v)?,
            // The derived decoder ignores fields it does not know.
            _ => {}
        }
    }
    Some(p)
}

/// An `Option<T>` field: `null` is `None`, else what `read` takes (`None` from `read`: a
/// value of another type, which the derived decoder reports).
fn opt<'v, T>(v: &'v Value, read: impl FnOnce(&'v Value) -> Option<T>) -> Option<Option<T>> {
    if v.is_null() {
        Some(None)
    } else {
        read(v).map(Some)
    }
}

fn opt_string(v: &Value) -> Option<Option<String>> {
    opt(v, |v| v.as_str().map(str::to_owned))
}

fn opt_bool(v: &Value) -> Option<Option<bool>> {
    opt(v, Value::as_bool)
}

/// `Option<f64>`: serde's `f64` takes any JSON number.
fn opt_f64(v: &Value) -> Option<Option<f64>> {
    opt(v, Value::as_f64)
}

/// `Option<i64>`: an integer that fits (serde's `i64` takes no fraction and no larger
/// unsigned value).
fn opt_i64(v: &Value) -> Option<Option<i64>> {
    opt(v, Value::as_i64)
}

/// A `String` read with `null_default`: `null` is empty.
fn string_or_null(v: &Value) -> Option<String> {
    opt_string(v).map(Option::unwrap_or_default)
}

/// A `bool` read with `null_default`: `null` is false.
fn bool_or_null(v: &Value) -> Option<bool> {
    opt_bool(v).map(Option::unwrap_or_default)
}

/// A `Vec<String>` read with `null_default_elems`: `null` is empty, a `null` element "".
fn strings(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::Null => Some(Vec::new()),
        Value::Array(a) => a.iter().map(string_or_null).collect(),
        _ => None,
    }
}

/// A list of objects read with `null_default_elems`: `null` is empty, a `null` element the
/// zero value, an object what `read` makes of it.
fn elems<T: Default>(v: &Value, mut read: impl FnMut(&Map<String, Value>) -> Option<T>) -> Option<Vec<T>> {
    match v {
        Value::Null => Some(Vec::new()),
        Value::Array(a) => a
            .iter()
            .map(|x| match x {
                Value::Null => Some(T::default()),
                Value::Object(o) => read(o),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// A `Vec<JsonSchemaProps>` read with `null_default_elems`.
fn schemas(v: &Value, depth: usize, max: usize) -> Option<Vec<JsonSchemaProps>> {
    elems(v, |o| props(o, depth + 1, max, None))
}

/// A [`SchemaMap`] read with `null_default_values`; `old` is the earlier node's map, kept
/// as far as `edits` allow.
fn named(v: &Value, depth: usize, max: usize, old: Option<&SchemaMap>, edits: Edited<'_>) -> Option<SchemaMap> {
    if let (Some(old), Edited::Not) = (old, &edits) {
        return Some(old.clone());
    }
    match v {
        Value::Null => Some(SchemaMap::new()),
        Value::Object(m) => {
            let mut out = SchemaMap::new();
            for (k, x) in m {
                let s = match x {
                    Value::Null => Arc::new(JsonSchemaProps::default()),
                    Value::Object(o) => {
                        let c = match &edits {
                            Edited::Below(b) => child(old.and_then(|o| o.get(k)), edited(b, k)),
                            _ => Child::Fresh,
                        };
                        sub(o, c, depth + 1, max)?
                    }
                    _ => return None,
                };
                out.insert(k.clone(), s);
            }
            Some(out)
        }
        _ => None,
    }
}

fn schema_or_bool(v: &Value, depth: usize, max: usize, old: Option<&Arc<JsonSchemaProps>>, edits: Edited<'_>) -> Option<Option<SchemaOrBool>> {
    match v {
        Value::Null => Some(None),
        Value::Bool(b) => Some(Some(SchemaOrBool::Bool(*b))),
        Value::Object(o) => Some(Some(SchemaOrBool::Schema(sub(o, child(old, edits), depth + 1, max)?))),
        _ => None,
    }
}

/// `x-kubernetes-validations`, read with `null_default_elems`.
fn rules(v: &Value) -> Option<Vec<ValidationRule>> {
    elems(v, |m| {
        let mut r = ValidationRule::default();
        for (k, v) in m {
            match k.as_str() {
                "rule" => r.rule = string_or_null(v)?,
                "message" => r.message = string_or_null(v)?,
                "messageExpression" => r.message_expression = string_or_null(v)?,
                "reason" => r.reason = opt_string(v)?,
                "fieldPath" => r.field_path = string_or_null(v)?,
                "optionalOldSelf" => r.optional_old_self = opt_bool(v)?,
                _ => {}
            }
        }
        Some(r)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both decoders on `v`: the same CRD (as `Debug` prints it) or the same error, and
    /// whether this reader answered.
    fn agree(v: &Value, what: &str) -> bool {
        let derived = <CustomResourceDefinition as Deserialize>::deserialize(v).map(|c| format!("{:?}", c)).map_err(|e| e.to_string());
        match decode_crd(v, crate::crd::load::MAX_SCHEMA_DEPTH, None) {
            None => false,
            Some(fast) => {
                assert_eq!(fast.map(|c| format!("{:?}", c)).map_err(|e| e.to_string()), derived, "{}", what);
                true
            }
        }
    }

    /// Schemas this reader leaves to the derived decoder, and plain ones it reads.
    #[test]
    fn reads_plain_schemas_and_leaves_the_rest() {
        let crd = |schema: &str| -> Value {
            serde_json::from_str(&format!(
                r#"{{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{{"name":"a.b"}},
                "spec":{{"group":"b","names":{{"kind":"A","plural":"a"}},"scope":"Namespaced",
                "versions":[{{"name":"v1","served":true,"storage":true,"schema":{{"openAPIV3Schema":{schema}}}}},{{"name":"v2","served":true,"storage":false}}]}}}}"#
            ))
            .unwrap()
        };
        for plain in [
            r#"{"type":"object","properties":{"a":{"type":"string","maxLength":3,"default":null,"x-kubernetes-validations":[{"rule":"self != ''","message":null,"reason":"FieldValueForbidden"},null]},"b":null}}"#,
            r#"{"type":"array","items":{"type":"integer","maximum":1.5,"minimum":-3,"multipleOf":2,"enum":[1,2,null]},"maxItems":null,"required":["x",null],"nullable":null}"#,
            r#"{"type":"object","additionalProperties":false,"x-kubernetes-preserve-unknown-fields":null,"externalDocs":null,"example":null,"unknownField":[1,{"x":2}]}"#,
            r#"{"allOf":[{"required":["a"]},null],"anyOf":null,"not":{"type":"string"},"additionalProperties":{"type":"string"},"x-kubernetes-list-map-keys":["k"],"definitions":{"d":{}}}"#,
            "null",
        ] {
            assert!(agree(&crd(plain), plain), "{} was left to the derived decoder", plain);
        }
        for odd in [
            r#"{"type":1}"#,
            r#"{"maxLength":1.5}"#,
            r#"{"maxLength":18446744073709551615}"#,
            r#"{"items":[{"type":"string"}]}"#,
            r#"{"dependencies":{"a":["b"]}}"#,
            r#"{"properties":{"a":true}}"#,
            r#"{"x-kubernetes-validations":[{"rule":3}]}"#,
            r#"{"required":"a"}"#,
            r#""not a schema""#,
        ] {
            assert!(!agree(&crd(odd), odd), "{} was read here", odd);
        }
    }

    /// A schema as deep as the limit is read here; one level deeper is left to the depth
    /// walk and the derived decoder.
    #[test]
    fn reads_down_to_the_depth_limit() {
        let max = crate::crd::load::MAX_SCHEMA_DEPTH;
        let nested = |levels: usize| {
            let mut schema = serde_json::json!({"type": "string"});
            for _ in 1..levels {
                schema = serde_json::json!({"type": "object", "properties": {"a": schema}});
            }
            serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema": schema}}]}})
        };
        assert!(agree(&nested(max), "at the limit"));
        assert!(!agree(&nested(max + 1), "one deeper"));
        let e = crate::crd::load::decode_crd(&nested(max + 1)).unwrap_err();
        assert!(e.message.contains("schema nests deeper than crdlab's limit of 128 levels"), "{}", e.message);
        assert!(crate::crd::load::decode_crd(&nested(max)).is_ok());
    }

    /// Every CRD of ../shared/crds (published and mutated ones): where this reader answers,
    /// the derived decoder answers the same.
    #[test]
    fn agrees_with_the_derived_decoder_on_the_shared_crds() {
        let Some(files) = crate::testing::shared_files("crds", &["yaml", "yml", "json"]) else { return };
        let (mut crds, mut read) = (0, 0);
        for p in files {
            let Ok(text) = std::fs::read_to_string(&p) else { continue };
            let Ok(docs) = crate::text::yaml::read_documents(&text) else { continue };
            for v in docs.iter().filter(|v| v.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition")) {
                crds += 1;
                read += agree(v, &p.display().to_string()) as usize;
            }
        }
        eprintln!("{crds} CRDs, {read} read by this reader");
        assert!(crds > 100 && read * 10 > crds * 9, "{read} of {crds} CRDs read here");
    }
}
