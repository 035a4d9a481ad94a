//! Pruning of unknown fields (apiextensions `pkg/apiserver/schema/pruning`).

use crate::crd::model::JsonSchemaProps;
use serde_json::{Map, Value};

const META_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

/// Prunes `obj` (a resource root when `is_resource_root`) in place and returns the sorted
/// paths of the fields removed, as `PruneWithOptions` with path tracking.
pub fn prune(obj: &mut Value, s: Option<&JsonSchemaProps>, is_resource_root: bool) -> Vec<String> {
    let mut p = Pruner { paths: Vec::new(), parent: String::new() };
    p.prune(obj, s, is_resource_root);
    crate::go::sort::sort(&mut p.paths);
    p.paths
}

struct Pruner {
    paths: Vec<String>,
    parent: String,
}

impl Pruner {
    fn record(&mut self, field: &str) {
        if self.parent.is_empty() {
            self.paths.push(field.to_string());
        } else {
            self.paths.push(format!("{}.{}", self.parent, field));
        }
    }

    fn push_key(&mut self, key: &str) -> usize {
        let l = self.parent.len();
        if l > 0 {
            self.parent.push('.');
        }
        self.parent.push_str(key);
        l
    }

    fn push_index(&mut self, i: usize) -> usize {
        let l = self.parent.len();
        self.parent.push('[');
        self.parent.push_str(&i.to_string());
        self.parent.push(']');
        l
    }

    /// `embedded` stands for `XEmbeddedResource` (forced on at the resource root).
    fn prune(&mut self, x: &mut Value, s: Option<&JsonSchemaProps>, root: bool) {
        if let Some(s) = s {
            if s.preserve_unknown_fields() {
                self.skip_prune(x, s, root);
                return;
            }
        }
        match x {
            Value::Object(m) => {
                let Some(s) = s else {
                    let keys: Vec<String> = m.keys().cloned().collect();
                    for k in keys {
                        self.record(&k);
                    }
                    m.clear();
                    return;
                };
                let embedded = root || s.x_embedded_resource;
                let mut remove = Vec::new();
                for (k, v) in m.iter_mut() {
                    if embedded && META_FIELDS.contains(&k.as_str()) {
                        continue;
                    }
                    if let Some(prop) = s.properties.get(k) {
                        let l = self.push_key(k);
                        self.prune(v, Some(prop), false);
                        self.parent.truncate(l);
                    } else if let Some(ap) = &s.additional_properties {
                        let l = self.push_key(k);
                        self.prune(v, additional(ap), false);
                        self.parent.truncate(l);
                    } else {
                        if !META_FIELDS.contains(&k.as_str()) || !self.parent.is_empty() {
                            self.record(k);
                        }
                        remove.push(k.clone());
                    }
                }
                for k in remove {
                    m.remove(&k);
                }
            }
            Value::Array(a) => {
                let items = s.and_then(|s| s.items_schema());
                for (i, v) in a.iter_mut().enumerate() {
                    let l = self.push_index(i);
                    self.prune(v, items, false);
                    self.parent.truncate(l);
                }
            }
            _ => {}
        }
    }

    fn skip_prune(&mut self, x: &mut Value, s: &JsonSchemaProps, root: bool) {
        match x {
            Value::Object(m) => {
                let embedded = root || s.x_embedded_resource;
                for (k, v) in m.iter_mut() {
                    if embedded && META_FIELDS.contains(&k.as_str()) {
                        continue;
                    }
                    if let Some(prop) = s.properties.get(k) {
                        let l = self.push_key(k);
                        self.prune(v, Some(prop), false);
                        self.parent.truncate(l);
                    } else if let Some(ap) = &s.additional_properties {
                        let l = self.push_key(k);
                        self.prune(v, additional(ap), false);
                        self.parent.truncate(l);
                    }
                }
            }
            Value::Array(a) => {
                if let Some(items) = s.items_schema() {
                    for (i, v) in a.iter_mut().enumerate() {
                        let l = self.push_index(i);
                        self.skip_prune(v, items, false);
                        self.parent.truncate(l);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The structural view of `additionalProperties`: a schema, or none for a boolean (the
/// structural schema keeps `additionalProperties: false` only with no schema to descend).
fn additional(ap: &crate::crd::model::SchemaOrBool) -> Option<&JsonSchemaProps> {
    match ap {
        crate::crd::model::SchemaOrBool::Schema(s) => Some(s),
        crate::crd::model::SchemaOrBool::Bool(_) => None,
    }
}

/// `PruneNonNullableNullsWithoutDefaults`: drops `null` values of non-nullable fields that
/// have no default (defaulting replaces the others).
pub fn prune_non_nullable_nulls_without_defaults(x: &mut Value, s: &JsonSchemaProps) {
    match x {
        Value::Object(m) => {
            prune_nulls_in_map(m, s);
        }
        Value::Array(a) => {
            if let Some(items) = s.items_schema() {
                for v in a.iter_mut() {
                    prune_non_nullable_nulls_without_defaults(v, items);
                }
            }
        }
        _ => {}
    }
}


fn prune_nulls_in_map(m: &mut Map<String, Value>, s: &JsonSchemaProps) {
    let mut remove = Vec::new();
    for (k, v) in m.iter_mut() {
        let prop = match s.properties.get(k) {
            Some(p) => p,
            None => match s.additional_properties_schema() {
                Some(ap) => ap,
                None => continue,
            },
        };
        if v.is_null() && !prop.applies_default() && !prop.nullable {
            remove.push(k.clone());
            continue;
        }
        prune_non_nullable_nulls_without_defaults(v, prop);
    }
    for k in remove {
        m.remove(&k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> JsonSchemaProps {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn prunes_unknown_fields_and_reports_paths() {
        let s = schema(json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "a": {"type": "string"},
            "l": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "integer"}}}},
            "p": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}));
        let mut o = json!({"apiVersion": "a/v1", "kind": "K", "metadata": {"name": "n"}, "extra": 1,
            "spec": {"a": "x", "b": 2, "l": [{"x": 1, "y": 2}], "p": {"anything": {"deep": 1}}}});
        let paths = prune(&mut o, Some(&s), true);
        assert_eq!(paths, vec!["extra", "spec.b", "spec.l[0].y"]);
        assert_eq!(o, json!({"apiVersion": "a/v1", "kind": "K", "metadata": {"name": "n"},
            "spec": {"a": "x", "l": [{"x": 1}], "p": {"anything": {"deep": 1}}}}));
    }

    #[test]
    fn drops_non_nullable_nulls() {
        let s = schema(json!({"type": "object", "properties": {
            "a": {"type": "string"}, "b": {"type": "string", "nullable": true}, "c": {"type": "string", "default": "x"}}}));
        let mut o = json!({"a": null, "b": null, "c": null});
        prune_non_nullable_nulls_without_defaults(&mut o, &s);
        assert_eq!(o, json!({"b": null, "c": null}));
    }
}
