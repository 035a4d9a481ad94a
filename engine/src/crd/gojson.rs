//! Go's `json.Marshal` of the internal apiextensions types (no json tags: Go field names,
//! struct field order), as 1.36 prints a struct given as a field error's value, e.g.
//! `spec.versions: Invalid value: [{"Name":"v1",...}]: must have exactly one version
//! marked as storage version`.

use super::model::{
    CustomResourceValidation, JsonSchemaProps, SchemaOrArray, SchemaOrBool, SchemaOrStringArray,
    Subresources, ValidationRule,
};
use crate::version::KubeVersion;
use crate::go::json::{format_float_json, json_marshal, json_string};
use serde_json::Value;

/// One `CustomResourceDefinitionVersion` of the internal API, after the v1 conversion
/// (which moves identical per-version schemas, subresources, printer columns and
/// selectable fields to the spec and clears them here).
#[derive(Clone, Copy, Debug)]
pub struct InternalVersion<'a> {
    pub name: &'a str,
    pub served: bool,
    pub storage: bool,
    pub deprecated: bool,
    pub deprecation_warning: Option<&'a str>,
    pub schema: Option<&'a CustomResourceValidation>,
    pub subresources: Option<&'a Subresources>,
    pub columns: Option<&'a [Value]>,
    pub selectable_fields: Option<&'a [Value]>,
}

struct Obj<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> Obj<'a> {
    fn new(out: &'a mut String) -> Self {
        out.push('{');
        Obj { out, first: true }
    }
    fn key(&mut self, k: &str) -> &mut String {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        json_string(k, self.out);
        self.out.push(':');
        self.out
    }
    fn str(&mut self, k: &str, v: &str) {
        let o = self.key(k);
        json_string(v, o);
    }
    fn opt_str(&mut self, k: &str, v: Option<&str>) {
        let o = self.key(k);
        match v {
            Some(v) => json_string(v, o),
            None => o.push_str("null"),
        }
    }
    fn bool(&mut self, k: &str, v: bool) {
        self.key(k).push_str(if v { "true" } else { "false" });
    }
    fn opt_bool(&mut self, k: &str, v: Option<bool>) {
        self.key(k).push_str(match v {
            Some(true) => "true",
            Some(false) => "false",
            None => "null",
        });
    }
    fn opt_f64(&mut self, k: &str, v: Option<f64>) {
        let o = self.key(k);
        match v {
            Some(f) => o.push_str(&format_float_json(f)),
            None => o.push_str("null"),
        }
    }
    fn opt_i64(&mut self, k: &str, v: Option<i64>) {
        let o = self.key(k);
        match v {
            Some(i) => o.push_str(&i.to_string()),
            None => o.push_str("null"),
        }
    }
    fn strs(&mut self, k: &str, v: &[String]) {
        let o = self.key(k);
        string_list(v, o);
    }
    fn raw(&mut self, k: &str, v: &str) {
        self.key(k).push_str(v);
    }
    fn end(self) {
        self.out.push('}');
    }
}

/// A `[]string`: `null` when empty (a nil slice; the model cannot tell `[]` from absent).
pub fn string_list(v: &[String], out: &mut String) {
    if v.is_empty() {
        out.push_str("null");
        return;
    }
    out.push('[');
    for (i, s) in v.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        json_string(s, out);
    }
    out.push(']');
}

/// A `*JSON` / `JSON` value: `null` when absent or JSON null.
fn json_value(v: Option<&Value>, out: &mut String) {
    match v {
        Some(v) => out.push_str(&json_marshal(v)),
        None => out.push_str("null"),
    }
}

fn non_empty(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("")
}

/// `json.Marshal(apiextensions.JSONSchemaProps)`.
pub fn schema_props(s: &JsonSchemaProps) -> String {
    let mut out = String::new();
    write_schema(s, &mut out);
    out
}

fn write_schema_list(v: &[JsonSchemaProps], out: &mut String) {
    if v.is_empty() {
        out.push_str("null");
        return;
    }
    out.push('[');
    for (i, s) in v.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_schema(s, out);
    }
    out.push(']');
}

fn write_schema_map<'a>(
    m: impl Iterator<Item = (&'a String, &'a std::sync::Arc<JsonSchemaProps>)>,
    empty: bool,
    out: &mut String,
) {
    if empty {
        out.push_str("null");
        return;
    }
    out.push('{');
    for (i, (k, s)) in m.enumerate() {
        if i > 0 {
            out.push(',');
        }
        json_string(k, out);
        out.push(':');
        write_schema(s, out);
    }
    out.push('}');
}

fn write_or_bool(v: &Option<SchemaOrBool>, out: &mut String) {
    match v {
        None => out.push_str("null"),
        Some(SchemaOrBool::Bool(b)) => out.push_str(if *b { "true" } else { "false" }),
        Some(SchemaOrBool::Schema(s)) => write_schema(s, out),
    }
}

fn write_items(v: &Option<SchemaOrArray>, out: &mut String) {
    match v {
        None => out.push_str("null"),
        Some(SchemaOrArray::Schema(s)) => write_schema(s, out),
        Some(SchemaOrArray::Array(a)) => {
            if a.is_empty() {
                // JSONSchemaPropsOrArray.MarshalJSON of an empty array: json.Marshal(nil schema).
                out.push_str("null");
            } else {
                write_schema_list(a, out);
            }
        }
    }
}

/// `json.Marshal(apiextensions.JSONSchemaPropsOrArray)` of an `items`.
pub fn items_json(v: &Option<SchemaOrArray>) -> String {
    let mut out = String::new();
    write_items(v, &mut out);
    out
}

/// `json.Marshal(apiextensions.ValidationRule)`.
pub fn validation_rule(r: &ValidationRule) -> String {
    let mut out = String::new();
    write_rule(r, &mut out);
    out
}

/// `fmt.Sprintf("%#v", apiextensions.ValidationRule)` as `kube` prints it: the internal
/// type's fields of that release (`MessageExpression` from 1.27, `Reason` and `FieldPath`
/// from 1.28, `OptionalOldSelf` from 1.29). A set pointer prints Go's heap address, which
/// no one can reproduce: crdlab prints `0xc000000000`.
pub fn validation_rule_go(r: &ValidationRule, kube: KubeVersion) -> String {
    use crate::go::strconv::quote;
    let ptr = |ty: &str, set: bool| {
        format!("(*{})({})", ty, if set { "0xc000000000" } else { "nil" })
    };
    let mut out = format!(
        "apiextensions.ValidationRule{{Rule:{}, Message:{}",
        quote(&r.rule),
        quote(&r.message)
    );
    if kube.at_least(27) {
        out.push_str(&format!(", MessageExpression:{}", quote(&r.message_expression)));
    }
    if kube.at_least(28) {
        out.push_str(&format!(
            ", Reason:{}, FieldPath:{}",
            ptr("apiextensions.FieldValueErrorReason", r.reason.is_some()),
            quote(&r.field_path)
        ));
    }
    if kube.at_least(29) {
        out.push_str(&format!(", OptionalOldSelf:{}", ptr("bool", r.optional_old_self.is_some())));
    }
    out.push('}');
    out
}

fn write_rule(r: &ValidationRule, out: &mut String) {
    let mut o = Obj::new(out);
    o.str("Rule", &r.rule);
    o.str("Message", &r.message);
    o.str("MessageExpression", &r.message_expression);
    o.opt_str("Reason", r.reason.as_deref());
    o.str("FieldPath", &r.field_path);
    o.opt_bool("OptionalOldSelf", r.optional_old_self);
    o.end();
}

fn write_schema(s: &JsonSchemaProps, out: &mut String) {
    let mut o = Obj::new(out);
    o.str("ID", non_empty(&s.id));
    o.str("Schema", non_empty(&s.schema));
    o.opt_str("Ref", s.reference.as_deref());
    o.str("Description", non_empty(&s.description));
    o.str("Type", s.type_str());
    o.bool("Nullable", s.nullable);
    o.str("Format", non_empty(&s.format));
    o.str("Title", non_empty(&s.title));
    json_value(
        s.default.as_ref().filter(|d| !d.is_null()),
        o.key("Default"),
    );
    o.opt_f64("Maximum", s.maximum);
    o.bool("ExclusiveMaximum", s.exclusive_maximum);
    o.opt_f64("Minimum", s.minimum);
    o.bool("ExclusiveMinimum", s.exclusive_minimum);
    o.opt_i64("MaxLength", s.max_length);
    o.opt_i64("MinLength", s.min_length);
    o.str("Pattern", non_empty(&s.pattern));
    o.opt_i64("MaxItems", s.max_items);
    o.opt_i64("MinItems", s.min_items);
    o.bool("UniqueItems", s.unique_items);
    o.opt_f64("MultipleOf", s.multiple_of);
    {
        let k = o.key("Enum");
        match &s.enum_ {
            Some(e) if !e.is_empty() => k.push_str(&json_marshal(&Value::Array(e.clone()))),
            _ => k.push_str("null"),
        }
    }
    o.opt_i64("MaxProperties", s.max_properties);
    o.opt_i64("MinProperties", s.min_properties);
    o.strs("Required", &s.required);
    write_items(&s.items, o.key("Items"));
    write_schema_list(&s.all_of, o.key("AllOf"));
    write_schema_list(&s.one_of, o.key("OneOf"));
    write_schema_list(&s.any_of, o.key("AnyOf"));
    match &s.not {
        Some(n) => write_schema(n, o.key("Not")),
        None => o.raw("Not", "null"),
    }
    write_schema_map(
        s.properties.iter(),
        s.properties.is_empty(),
        o.key("Properties"),
    );
    write_or_bool(&s.additional_properties, o.key("AdditionalProperties"));
    write_schema_map(
        s.pattern_properties.iter(),
        s.pattern_properties.is_empty(),
        o.key("PatternProperties"),
    );
    {
        let k = o.key("Dependencies");
        if s.dependencies.is_empty() {
            k.push_str("null");
        } else {
            k.push('{');
            for (i, (name, d)) in s.dependencies.iter().enumerate() {
                if i > 0 {
                    k.push(',');
                }
                json_string(name, k);
                k.push(':');
                match d {
                    SchemaOrStringArray::Strings(v) => string_list(v, k),
                    SchemaOrStringArray::Schema(s) => write_schema(s, k),
                }
            }
            k.push('}');
        }
    }
    write_or_bool(&s.additional_items, o.key("AdditionalItems"));
    write_schema_map(
        s.definitions.iter(),
        s.definitions.is_empty(),
        o.key("Definitions"),
    );
    {
        let k = o.key("ExternalDocs");
        match &s.external_docs {
            Some(Value::Object(m)) => {
                let mut d = Obj::new(k);
                d.str(
                    "Description",
                    m.get("description").and_then(Value::as_str).unwrap_or(""),
                );
                d.str("URL", m.get("url").and_then(Value::as_str).unwrap_or(""));
                d.end();
            }
            _ => k.push_str("null"),
        }
    }
    json_value(
        s.example.as_ref().filter(|d| !d.is_null()),
        o.key("Example"),
    );
    o.opt_bool("XPreserveUnknownFields", s.x_preserve_unknown_fields);
    o.bool("XEmbeddedResource", s.x_embedded_resource);
    o.bool("XIntOrString", s.x_int_or_string);
    o.strs("XListMapKeys", &s.x_list_map_keys);
    o.opt_str("XListType", s.x_list_type.as_deref());
    o.opt_str("XMapType", s.x_map_type.as_deref());
    {
        let k = o.key("XValidations");
        if s.x_validations.is_empty() {
            k.push_str("null");
        } else {
            k.push('[');
            for (i, r) in s.x_validations.iter().enumerate() {
                if i > 0 {
                    k.push(',');
                }
                write_rule(r, k);
            }
            k.push(']');
        }
    }
    o.end();
}

fn value_str<'a>(m: &'a Value, k: &str) -> &'a str {
    m.get(k).and_then(Value::as_str).unwrap_or("")
}

/// `json.Marshal([]apiextensions.CustomResourceDefinitionVersion)`.
pub fn versions(vs: &[InternalVersion<'_>]) -> String {
    if vs.is_empty() {
        return "null".to_string();
    }
    let mut out = String::from("[");
    for (i, v) in vs.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let mut o = Obj::new(&mut out);
        o.str("Name", v.name);
        o.bool("Served", v.served);
        o.bool("Storage", v.storage);
        o.bool("Deprecated", v.deprecated);
        o.opt_str("DeprecationWarning", v.deprecation_warning);
        {
            let k = o.key("Schema");
            match v.schema {
                None => k.push_str("null"),
                Some(cv) => {
                    let mut so = Obj::new(k);
                    match &cv.open_api_v3_schema {
                        Some(s) => write_schema(s, so.key("OpenAPIV3Schema")),
                        None => so.raw("OpenAPIV3Schema", "null"),
                    }
                    so.end();
                }
            }
        }
        {
            let k = o.key("Subresources");
            match v.subresources {
                None => k.push_str("null"),
                Some(sr) => {
                    let mut so = Obj::new(k);
                    so.raw("Status", if sr.status.is_some() { "{}" } else { "null" });
                    {
                        let sk = so.key("Scale");
                        match &sr.scale {
                            None => sk.push_str("null"),
                            Some(sc) => {
                                let mut c = Obj::new(sk);
                                c.str("SpecReplicasPath", &sc.spec_replicas_path);
                                c.str("StatusReplicasPath", &sc.status_replicas_path);
                                c.opt_str("LabelSelectorPath", sc.label_selector_path.as_deref());
                                c.end();
                            }
                        }
                    }
                    so.end();
                }
            }
        }
        {
            let k = o.key("AdditionalPrinterColumns");
            match v.columns {
                Some(cols) if !cols.is_empty() => {
                    k.push('[');
                    for (j, c) in cols.iter().enumerate() {
                        if j > 0 {
                            k.push(',');
                        }
                        let mut co = Obj::new(k);
                        co.str("Name", value_str(c, "name"));
                        co.str("Type", value_str(c, "type"));
                        co.str("Format", value_str(c, "format"));
                        co.str("Description", value_str(c, "description"));
                        co.raw(
                            "Priority",
                            &c.get("priority")
                                .and_then(Value::as_i64)
                                .unwrap_or(0)
                                .to_string(),
                        );
                        co.str("JSONPath", value_str(c, "jsonPath"));
                        co.end();
                    }
                    k.push(']');
                }
                _ => k.push_str("null"),
            }
        }
        {
            let k = o.key("SelectableFields");
            match v.selectable_fields {
                Some(fs) if !fs.is_empty() => {
                    k.push('[');
                    for (j, f) in fs.iter().enumerate() {
                        if j > 0 {
                            k.push(',');
                        }
                        let mut fo = Obj::new(k);
                        fo.str("JSONPath", value_str(f, "jsonPath"));
                        fo.end();
                    }
                    k.push(']');
                }
                _ => k.push_str("null"),
            }
        }
        o.end();
    }
    out.push(']');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_prints_like_go_sharp_v_per_release() {
        let r = ValidationRule { rule: "self.a".into(), reason: Some("FieldValueForbidden".into()), ..Default::default() };
        assert_eq!(
            validation_rule_go(&r, KubeVersion { minor: 26 }),
            r#"apiextensions.ValidationRule{Rule:"self.a", Message:""}"#
        );
        assert_eq!(
            validation_rule_go(&r, KubeVersion { minor: 33 }),
            r#"apiextensions.ValidationRule{Rule:"self.a", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(0xc000000000), FieldPath:"", OptionalOldSelf:(*bool)(nil)}"#
        );
    }

    #[test]
    fn rule_prints_like_go() {
        let r = ValidationRule {
            rule: "self.a".into(),
            message_expression: "1".into(),
            ..Default::default()
        };
        assert_eq!(
            validation_rule(&r),
            r#"{"Rule":"self.a","Message":"","MessageExpression":"1","Reason":null,"FieldPath":"","OptionalOldSelf":null}"#
        );
    }

    #[test]
    fn schema_prints_all_fields_in_order() {
        let s: JsonSchemaProps = serde_json::from_value(
            serde_json::json!({"type": "object", "properties": {"a": {"type": "string"}}}),
        )
        .unwrap();
        let j = schema_props(&s);
        assert!(j.starts_with(
            r#"{"ID":"","Schema":"","Ref":null,"Description":"","Type":"object","Nullable":false"#
        ));
        assert!(j.contains(r#""Properties":{"a":{"ID":"""#));
        assert!(j.ends_with(r#""XListType":null,"XMapType":null,"XValidations":null}"#));
    }
}
