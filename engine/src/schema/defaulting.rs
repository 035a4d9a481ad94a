//! Structural defaulting (apiextensions `pkg/apiserver/schema/defaulting/algorithm.go`).

use crate::crd::model::JsonSchemaProps;
use serde_json::Value;

fn default_of(s: &JsonSchemaProps) -> Option<&Value> {
    match &s.default {
        Some(Value::Null) | None => None,
        Some(d) => Some(d),
    }
}

fn is_non_nullable_null(x: &Value, s: Option<&JsonSchemaProps>) -> bool {
    x.is_null() && s.map(|s| !s.nullable).unwrap_or(false)
}

/// Applies the schema's defaults to `x` in place: missing properties, and non-nullable
/// nulls, get their default; defaults are then defaulted themselves (a property default
/// is visited like any value), while a null list item or map value that was replaced is
/// not revisited (the apiserver recurses into the value it saw, the null).
pub fn default(x: &mut Value, s: Option<&JsonSchemaProps>) {
    let Some(s) = s else { return };
    match x {
        Value::Object(m) => {
            for (k, prop) in &s.properties {
                let Some(d) = default_of(prop) else { continue };
                let replace = match m.get(k) {
                    None => true,
                    Some(v) => is_non_nullable_null(v, Some(prop)),
                };
                if replace {
                    m.insert(k.clone(), d.clone());
                }
            }
            let ap = s.additional_properties_schema();
            let has_ap = s.additional_properties.is_some();
            for (k, v) in m.iter_mut() {
                if let Some(prop) = s.properties.get(k) {
                    default(v, Some(prop));
                } else if has_ap {
                    if is_non_nullable_null(v, ap) {
                        if let Some(d) = ap.and_then(default_of) {
                            *v = d.clone();
                        }
                        continue;
                    }
                    default(v, ap);
                }
            }
        }
        Value::Array(a) => {
            let items = s.items_schema();
            for v in a.iter_mut() {
                if is_non_nullable_null(v, items) {
                    if let Some(d) = items.and_then(default_of) {
                        *v = d.clone();
                    }
                    continue;
                }
                default(v, items);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_properties_items_and_map_values() {
        let s: JsonSchemaProps = serde_json::from_value(json!({"type": "object", "properties": {
            "a": {"type": "string", "default": "x"},
            "o": {"type": "object", "default": {}, "properties": {"n": {"type": "integer", "default": 3}}},
            "l": {"type": "array", "items": {"type": "object", "properties": {"p": {"type": "integer", "default": 80}}}},
            "m": {"type": "object", "additionalProperties": {"type": "object", "properties": {"q": {"type": "boolean", "default": true}}}}
        }})).unwrap();
        let mut o = json!({"l": [{}, {"p": 1}], "m": {"k": {}}});
        default(&mut o, Some(&s));
        assert_eq!(o, json!({"a": "x", "o": {"n": 3}, "l": [{"p": 80}, {"p": 1}], "m": {"k": {"q": true}}}));
    }
}
