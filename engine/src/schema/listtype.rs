//! `x-kubernetes-list-type` set/map invariants (apiextensions `pkg/apiserver/schema/listtype`):
//! duplicates in sets, duplicate keys in list-maps.

use crate::crd::model::JsonSchemaProps;
use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::go::json::json_marshal;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// `ValidateListSetsAndMaps`: walks `obj` with its schema and reports every violation.
pub fn validate_list_sets_and_maps(path: &Path, s: Option<&JsonSchemaProps>, obj: &Value, errs: &mut ErrorList) {
    let Some(s) = s else { return };
    match obj {
        Value::Object(m) => {
            for (k, v) in m {
                if let Some(p) = s.properties.get(k) {
                    validate_list_sets_and_maps(&path.child(k), Some(p), v, errs);
                } else if let Some(ap) = s.additional_properties_schema() {
                    validate_list_sets_and_maps(&path.key(k), Some(ap), v, errs);
                }
            }
        }
        Value::Array(a) => {
            match s.x_list_type.as_deref() {
                Some("set") => {
                    for i in non_unique_indices(a) {
                        errs.push(FieldError::duplicate(path.index(i), BadValue::from_json(&a[i])));
                    }
                }
                Some("map") => validate_list_map(path, s, a, errs),
                _ => {}
            }
            if let Some(items) = s.items_schema() {
                for (i, v) in a.iter().enumerate() {
                    validate_list_sets_and_maps(&path.index(i), Some(items), v, errs);
                }
            }
        }
        _ => {}
    }
}

/// The strategies' update step (apiextensions `customResourceStrategy.ValidateUpdate` and
/// `statusStrategy.ValidateUpdate`, "ratcheting validation of x-kubernetes-list-type"): when
/// the stored object already breaks a set or map invariant anywhere, the new object's
/// list-type errors are not reported at all; otherwise they are. Not behind the
/// validation-ratcheting gate: every release does this. Without `old` (a create) the new
/// object is checked.
pub fn validate_list_sets_and_maps_update(
    path: &Path,
    s: Option<&JsonSchemaProps>,
    new: &Value,
    old: Option<&Value>,
    errs: &mut ErrorList,
) {
    if let Some(old) = old {
        let mut old_errs = Vec::new();
        validate_list_sets_and_maps(path, s, old, &mut old_errs);
        if !old_errs.is_empty() {
            return;
        }
    }
    validate_list_sets_and_maps(path, s, new, errs);
}

/// A hashable identity for JSON values: compounds by their JSON text (as the apiserver
/// uses json.Marshal), scalars by kind and value (so 1 and "1" differ, and 1 == 1.0 as Go's
/// float64/int64 interface comparison would not: an int64 1 and a float64 1 differ).
#[derive(Hash, PartialEq, Eq)]
enum Ident {
    Null,
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(String),
    Compound(String),
}

fn ident(v: &Value) -> Ident {
    match v {
        Value::Null => Ident::Null,
        Value::Bool(b) => Ident::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Ident::Int(i),
            None => Ident::Float(n.as_f64().unwrap_or(0.0).to_bits()),
        },
        Value::String(s) => Ident::Str(s.clone()),
        other => Ident::Compound(json_marshal(other)),
    }
}

/// Indices of the second occurrence of each repeated value (later repeats are not
/// reported again).
fn non_unique_indices(a: &[Value]) -> Vec<usize> {
    if a.len() <= 1 {
        return Vec::new();
    }
    let mut seen: HashMap<Ident, usize> = HashMap::with_capacity(a.len());
    let mut out = Vec::new();
    for (i, x) in a.iter().enumerate() {
        let n = seen.entry(ident(x)).or_insert(0);
        *n += 1;
        if *n == 2 {
            out.push(i);
        }
    }
    out
}

fn validate_list_map(path: &Path, s: &JsonSchemaProps, a: &[Value], errs: &mut ErrorList) {
    for (i, x) in a.iter().enumerate() {
        if !x.is_null() && !x.is_object() {
            errs.push(FieldError::invalid(
                path.index(i),
                BadValue::from_json(x),
                "must be an object for an array of list-type map",
            ));
            return;
        }
    }
    if a.len() <= 1 {
        return;
    }
    let keys = &s.x_list_map_keys;
    // `validateListSet` over the keys: only an identity's second occurrence is reported.
    let mut seen: HashMap<Vec<Ident>, usize> = HashMap::with_capacity(a.len());
    for (i, x) in a.iter().enumerate() {
        // A null item, or a missing key, is "unspecified": for one key, two of them are
        // duplicates (`Duplicate value: {}`); for several, the missing keys are left out of
        // the identity. Keys are never defaulted here (defaulting ran before).
        let mut entry = Map::new();
        let mut id = Vec::with_capacity(keys.len());
        if let Some(m) = x.as_object() {
            for k in keys {
                if let Some(v) = m.get(k) {
                    entry.insert(k.clone(), v.clone());
                    id.push(ident(v));
                }
            }
        }
        let n = seen.entry(id).or_insert(0);
        *n += 1;
        if *n == 2 {
            errs.push(FieldError::duplicate(path.index(i), BadValue::Json(Value::Object(entry))));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unspecified_single_keys_collide_and_only_second_occurrences_count() {
        let schema = json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "properties": {"name": {"type": "string"}, "v": {"type": "integer"}}}});
        // Two items without the key (or null) are duplicates of each other: `{}`.
        assert_eq!(run(schema.clone(), json!([{"v": 1}, null, {"v": 2}])), vec!["[1]: Duplicate value: {}"]);
        // A third occurrence of a key is not reported again (apiextensions `validateListSet`).
        assert_eq!(
            run(schema, json!([{"name": "a"}, {"name": "a"}, {"name": "a"}])),
            vec![r#"[1]: Duplicate value: {"name":"a"}"#]
        );
    }

    fn run(schema: Value, obj: Value) -> Vec<String> {
        let s: JsonSchemaProps = serde_json::from_value(schema).unwrap();
        let mut errs = Vec::new();
        validate_list_sets_and_maps(&Path::root(), Some(&s), &obj, &mut errs);
        errs.iter().map(|e| e.message()).collect()
    }

    #[test]
    fn old_object_violations_silence_the_new_ones() {
        let s: JsonSchemaProps = serde_json::from_value(json!({"type": "object", "properties": {
            "l": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "integer"}},
            "m": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "integer"}}}}))
        .unwrap();
        let run_upd = |new: Value, old: Option<Value>| {
            let mut errs = Vec::new();
            validate_list_sets_and_maps_update(&Path::root(), Some(&s), &new, old.as_ref(), &mut errs);
            errs.iter().map(|e| e.message()).collect::<Vec<_>>()
        };
        // The old object has a duplicate (anywhere): nothing is reported, even elsewhere.
        assert!(run_upd(json!({"l": [1, 1], "m": [2, 2]}), Some(json!({"l": [1, 1]}))).is_empty());
        // A clean old object: the new one is checked.
        assert_eq!(run_upd(json!({"l": [1, 1]}), Some(json!({"l": [1]}))), vec!["l[1]: Duplicate value: 1"]);
        assert_eq!(run_upd(json!({"l": [1, 1]}), None), vec!["l[1]: Duplicate value: 1"]);
    }

    #[test]
    fn set_duplicates() {
        let s = json!({"type": "object", "properties": {"l": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}}});
        assert_eq!(run(s, json!({"l": ["a", "b", "a", "a"]})), vec!["l[2]: Duplicate value: \"a\""]);
    }

    #[test]
    fn map_duplicates() {
        let s = json!({"type": "object", "properties": {"l": {"type": "array", "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name"], "items": {"type": "object", "properties": {"name": {"type": "string"}}}}}});
        assert_eq!(run(s, json!({"l": [{"name": "cpu", "x": 1}, {"name": "cpu"}]})), vec!["l[1]: Duplicate value: {\"name\":\"cpu\"}"]);
    }
}
