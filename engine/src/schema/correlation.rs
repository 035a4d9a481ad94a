//! apiserver `pkg/cel/common/equality.go`: `CorrelatedObject`, a node of the new object
//! paired with its old value, walked alongside a schema. Validation ratcheting uses it for
//! both schema errors (`validation::schema`) and CEL rule errors (`schema::cel::validation`): an error is
//! dropped when its node (or, for a node that does not correlate, the nearest ancestor that
//! does) is `CachedDeepEqual` to its old value.
//!
//! Equality is schema-aware, not plain JSON equality: a key the schema does not describe
//! (below `x-kubernetes-preserve-unknown-fields`, say) has no correlated child, so its
//! object never counts as unchanged.

use crate::crd::model::JsonSchemaProps;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// A node of the new object correlated with its old value. `schema` decides how children
/// correlate (properties/additionalProperties for keys, list type for indexes).
#[derive(Clone, Copy)]
pub struct Correlated<'a> {
    pub old: &'a Value,
    pub new: &'a Value,
    pub schema: &'a JsonSchemaProps,
    /// Whether a list whose items do not correlate (not a map list) compares as a unit
    /// (1.29+, `CorrelatedObject.CachedDeepEqual`); 1.28's ratcheting validator compares
    /// lists only through the children it correlated, so such a non-empty list is never
    /// unchanged there.
    lists_as_units: bool,
}

/// apiextensions `MapIsCorrelatable`: granular, atomic and unset map types. (The CRD checks
/// forbid `oldSelf` below an object that is not; transition rules below it see no old value.)
pub(crate) fn map_is_correlatable(map_type: Option<&str>) -> bool {
    matches!(map_type, None | Some("granular") | Some("atomic"))
}

/// The old items of a map-type list by their list-map-key values (first wins): `MakeMapList`.
pub struct MapListIndex<'a> {
    by_key: HashMap<String, &'a Value>,
}

impl<'a> MapListIndex<'a> {
    pub fn build(schema: &JsonSchemaProps, old: &'a [Value]) -> MapListIndex<'a> {
        let mut by_key = HashMap::new();
        if schema.type_str() == "array" && !schema.x_list_map_keys.is_empty() {
            for item in old {
                if let Value::Object(m) = item {
                    if let Some(k) = composite_key(&schema.x_list_map_keys, m) {
                        by_key.entry(k).or_insert(item);
                    }
                }
            }
        }
        MapListIndex { by_key }
    }

    pub fn get(&self, keys: &[String], item: &Value) -> Option<&'a Value> {
        let Value::Object(m) = item else {
            return None;
        };
        let k = composite_key(keys, m)?;
        self.by_key.get(&k).copied()
    }
}

/// The old item paired with the new list item `item` (`correlateOldValueForChildAtNewIndex`
/// of a map-type list, schema/cel `makeMapList(...).Get`): the first old item with the same
/// list-map-key values; none in lists of another type, which do not correlate by item.
/// `cache` holds the old list's index between the items of one list.
pub(crate) fn old_list_item<'a>(
    schema: &JsonSchemaProps,
    old: &'a [Value],
    item: &Value,
    cache: &mut Option<MapListIndex<'a>>,
) -> Option<&'a Value> {
    if schema.x_list_type.as_deref() != Some("map") {
        return None;
    }
    let idx = cache.get_or_insert_with(|| MapListIndex::build(schema, old));
    idx.get(&schema.x_list_map_keys, item)
}

/// The old value transition rules see at a new object's child `field` (`oldSelf`: schema/cel
/// `validateMap`): the old object's value of the key, below a correlatable map type only.
/// Unlike [`Correlated::key`] (ratcheting), the map type counts and the schema need not
/// describe the key.
pub(crate) fn old_map_value<'a>(schema: &JsonSchemaProps, old: Option<&'a Value>, field: &str) -> Option<&'a Value> {
    if !map_is_correlatable(schema.x_map_type.as_deref()) {
        return None;
    }
    old?.as_object()?.get(field)
}

/// `keyStrategy.CompositeKeyFor`: scalar key values only; types stay distinct.
fn composite_key(keys: &[String], m: &Map<String, Value>) -> Option<String> {
    let mut s = String::new();
    for k in keys {
        let v = m.get(k)?;
        s.push('\0');
        match v {
            Value::Bool(b) => {
                s.push('b');
                s.push_str(if *b { "true" } else { "false" });
            }
            Value::Number(n) => match n.as_i64() {
                Some(i) => {
                    s.push('i');
                    s.push_str(&i.to_string());
                }
                None => {
                    let f = n.as_f64().unwrap_or(f64::NAN);
                    s.push('f');
                    if keys.len() == 1 {
                        s.push_str(&f.to_bits().to_string());
                    } else {
                        // The multi-key strategy prints floats with %f.
                        s.push_str(&format!("{:.6}", f));
                    }
                }
            },
            Value::String(x) => {
                s.push('s');
                s.push_str(x);
            }
            _ => return None,
        }
    }
    Some(s)
}

impl<'a> Correlated<'a> {
    pub fn new(new: &'a Value, old: &'a Value, schema: &'a JsonSchemaProps) -> Correlated<'a> {
        Correlated { old, new, schema, lists_as_units: true }
    }

    /// 1.28's equality (`ratchetingValueValidator.CachedDeepEqual` of kubernetes#118990):
    /// a non-empty list that is not a map list never counts as unchanged.
    pub fn with_uncorrelated_lists_unequal(self) -> Correlated<'a> {
        Correlated { lists_as_units: false, ..self }
    }

    /// `CorrelatedObject.Key`: the child `field`, present in both objects and described by
    /// the schema (a property, else additionalProperties).
    pub fn key(self, field: &str) -> Option<Correlated<'a>> {
        let (Value::Object(old), Value::Object(new)) = (self.old, self.new) else {
            return None;
        };
        let (Some(o), Some(n)) = (old.get(field), new.get(field)) else {
            return None;
        };
        let schema = match self.schema.properties.get(field) {
            Some(p) => p,
            None => self.schema.additional_properties_schema()?,
        };
        Some(Correlated { old: o, new: n, schema, ..self })
    }

    /// `CorrelatedObject.Index` (`correlateOldValueForChildAtNewIndex`): map-type lists
    /// correlate by their keys; sets, atomic lists and lists without a list type (atomic for
    /// a CRD) not at all. (The Go function correlates an empty list type by index, but the
    /// CRD schema never reaches it that way: the apiserver's answers ratchet no error inside
    /// such a list.)
    pub fn index(self, i: usize, cache: &mut Option<MapListIndex<'a>>) -> Option<Correlated<'a>> {
        let (Value::Array(old), Value::Array(new)) = (self.old, self.new) else {
            return None;
        };
        let item = new.get(i)?;
        let o = old_list_item(self.schema, old, item, cache)?;
        // Go's nil old value (a JSON null) does not correlate.
        if o.is_null() {
            return None;
        }
        let schema = self.schema.items_schema()?;
        Some(Correlated { old: o, new: item, schema, ..self })
    }

    /// `CorrelatedObject.CachedDeepEqual`. Iterative over an explicit stack: objects may be
    /// deep.
    pub fn deep_equal(self) -> bool {
        let mut stack = vec![self];
        while let Some(c) = stack.pop() {
            if !c.shallow_equal(&mut stack) {
                return false;
            }
        }
        true
    }

    /// One node of [`Self::deep_equal`]: false when this node differs; children still to
    /// compare are pushed on `stack`.
    fn shallow_equal(self, stack: &mut Vec<Correlated<'a>>) -> bool {
        match (self.old, self.new) {
            (Value::Null, Value::Null) => true,
            (Value::Null, _) | (_, Value::Null) => false,
            (Value::Array(old), Value::Array(new)) => {
                if old.len() != new.len() {
                    return false;
                }
                let is_map_list = self.schema.x_list_type.as_deref() == Some("map");
                let mut cache = None;
                let mut children = Vec::with_capacity(new.len());
                for i in 0..new.len() {
                    match self.index(i, &mut cache) {
                        // A list that does not correlate is compared as a unit (1.29+); a
                        // map list with an item whose old item is gone is not equal.
                        None => return self.lists_as_units && !is_map_list && old == new,
                        Some(c) => children.push(c),
                    }
                }
                stack.extend(children);
                true
            }
            (Value::Object(old), Value::Object(new)) => {
                if old.len() != new.len() {
                    return false;
                }
                for k in new.keys() {
                    match self.key(k) {
                        None => return false,
                        Some(c) => stack.push(c),
                    }
                }
                true
            }
            (Value::Array(_), _) | (_, Value::Array(_)) | (Value::Object(_), _) | (_, Value::Object(_)) => false,
            (o, n) => o == n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> JsonSchemaProps {
        let mut s: JsonSchemaProps = serde_json::from_value(v).expect("schema");
        s.compile();
        s
    }

    #[test]
    fn keys_outside_the_schema_never_count_as_unchanged() {
        let s = schema(json!({"type": "object", "properties": {
            "mode": {"type": "string"},
            "config": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
        }}));
        let v = json!({"mode": "a", "config": {"receivers": {}}});
        assert!(!Correlated::new(&v, &v, &s).deep_equal());
        let w = json!({"mode": "a", "config": {}});
        assert!(Correlated::new(&w, &w, &s).deep_equal());
    }

    /// 1.28's ratcheting equality: a non-empty list that is not a map list is never
    /// unchanged (its items are not correlated); a map list and an empty list can be.
    #[test]
    fn uncorrelated_lists_are_unequal_in_1_28_equality() {
        let s = schema(json!({"type": "object", "properties": {
            "plain": {"type": "array", "items": {"type": "string"}},
            "map": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
                    "items": {"type": "object", "properties": {"k": {"type": "string"}}}}
        }}));
        let v = json!({"plain": ["a"], "map": [{"k": "a"}]});
        assert!(Correlated::new(&v, &v, &s).deep_equal());
        let c = Correlated::new(&v, &v, &s).with_uncorrelated_lists_unequal();
        assert!(!c.deep_equal());
        assert!(c.key("map").unwrap().deep_equal());
        let empty = json!({"plain": [], "map": [{"k": "a"}]});
        assert!(Correlated::new(&empty, &empty, &s).with_uncorrelated_lists_unequal().deep_equal());
    }

    #[test]
    fn lists_correlate_by_their_list_type() {
        let s = schema(json!({"type": "object", "properties": {
            "plain": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "integer"}}}},
            "set": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "map": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
                    "items": {"type": "object", "properties": {"k": {"type": "string"}, "v": {"type": "integer"}}}}
        }}));
        let old = json!({"plain": [{"a": 1}], "set": ["x", "y"], "map": [{"k": "a", "v": 1}, {"k": "b", "v": 2}]});
        let new = json!({"plain": [{"a": 1}], "set": ["x", "y"], "map": [{"k": "b", "v": 2}, {"k": "a", "v": 1}]});
        let c = Correlated::new(&new, &old, &s);
        // By key for a map list, not at all for a set or a list without a list type.
        assert!(c.key("plain").unwrap().index(0, &mut None).is_none());
        assert!(c.key("set").unwrap().index(0, &mut None).is_none());
        assert_eq!(c.key("map").unwrap().index(0, &mut None).unwrap().old, &json!({"k": "b", "v": 2}));
        // A reordered map list is unchanged; a set compares as a unit.
        assert!(c.deep_equal());
        let reordered_set = json!({"plain": [{"a": 1}], "set": ["y", "x"], "map": [{"k": "a", "v": 1}, {"k": "b", "v": 2}]});
        assert!(!Correlated::new(&reordered_set, &old, &s).deep_equal());
    }
}
