//! The typed model of an apiextensions.k8s.io/v1 CustomResourceDefinition, as far as the
//! apiserver reads it. Field names follow the Go types (`JSONSchemaProps`, ...).

use regex::Regex;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomResourceDefinition {
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: CrdSpec,
    #[serde(default)]
    pub status: Option<Value>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMeta {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub generate_name: String,
    #[serde(default)]
    pub namespace: String,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrdSpec {
    #[serde(default)]
    pub group: String,
    #[serde(default)]
    pub names: Names,
    #[serde(default)]
    pub scope: String,
    #[serde(default)]
    pub versions: Vec<CrdVersion>,
    #[serde(default)]
    pub conversion: Option<Conversion>,
    #[serde(default)]
    pub preserve_unknown_fields: bool,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Names {
    #[serde(default)]
    pub plural: String,
    #[serde(default)]
    pub singular: String,
    #[serde(default)]
    pub short_names: Vec<String>,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub list_kind: String,
    #[serde(default)]
    pub categories: Vec<String>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Conversion {
    #[serde(default)]
    pub strategy: String,
    #[serde(default)]
    pub webhook: Option<Value>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrdVersion {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub served: bool,
    #[serde(default)]
    pub storage: bool,
    #[serde(default)]
    pub deprecated: bool,
    #[serde(default)]
    pub deprecation_warning: Option<String>,
    #[serde(default)]
    pub schema: Option<CustomResourceValidation>,
    #[serde(default)]
    pub subresources: Option<Subresources>,
    #[serde(default)]
    pub additional_printer_columns: Vec<Value>,
    #[serde(default)]
    pub selectable_fields: Vec<Value>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomResourceValidation {
    #[serde(rename = "openAPIV3Schema", default)]
    pub open_api_v3_schema: Option<Box<JsonSchemaProps>>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Subresources {
    /// Present (even as `{}`) means the status subresource is enabled.
    #[serde(default)]
    pub status: Option<Value>,
    #[serde(default)]
    pub scale: Option<ScaleSubresource>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleSubresource {
    #[serde(default)]
    pub spec_replicas_path: String,
    #[serde(default)]
    pub status_replicas_path: String,
    #[serde(default)]
    pub label_selector_path: Option<String>,
}

/// `items`: a schema, or (forbidden in v1, but decodable) an array of schemas.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum SchemaOrArray {
    Schema(Box<JsonSchemaProps>),
    Array(Vec<JsonSchemaProps>),
}

/// `additionalProperties` / `additionalItems`: a boolean or a schema.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum SchemaOrBool {
    Bool(bool),
    Schema(Box<JsonSchemaProps>),
}

/// `dependencies` values: a schema or a list of property names.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum SchemaOrStringArray {
    Strings(Vec<String>),
    Schema(Box<JsonSchemaProps>),
}

/// One `x-kubernetes-validations` entry.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "camelCase")]
pub struct ValidationRule {
    #[serde(default)]
    pub rule: String,
    #[serde(default)]
    pub message: String,
    #[serde(default)]
    pub message_expression: String,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub field_path: String,
    #[serde(default)]
    pub optional_old_self: Option<bool>,
}

/// apiextensions `JSONSchemaProps`, plus the compiled `pattern` (filled by
/// [`JsonSchemaProps::compile`], so validation never recompiles a regex).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JsonSchemaProps {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(rename = "$schema", default)]
    pub schema: Option<String>,
    #[serde(rename = "$ref", default)]
    pub reference: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(rename = "type", default)]
    pub type_: Option<String>,
    #[serde(default)]
    pub format: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    /// `default`: `Some(Value::Null)` is an explicit `default: null`.
    #[serde(default, deserialize_with = "present")]
    pub default: Option<Value>,
    #[serde(default)]
    pub maximum: Option<f64>,
    #[serde(default)]
    pub exclusive_maximum: bool,
    #[serde(default)]
    pub minimum: Option<f64>,
    #[serde(default)]
    pub exclusive_minimum: bool,
    #[serde(default)]
    pub max_length: Option<i64>,
    #[serde(default)]
    pub min_length: Option<i64>,
    #[serde(default)]
    pub pattern: Option<String>,
    #[serde(default)]
    pub max_items: Option<i64>,
    #[serde(default)]
    pub min_items: Option<i64>,
    #[serde(default)]
    pub unique_items: bool,
    #[serde(default)]
    pub multiple_of: Option<f64>,
    #[serde(rename = "enum", default)]
    pub enum_: Option<Vec<Value>>,
    #[serde(default)]
    pub max_properties: Option<i64>,
    #[serde(default)]
    pub min_properties: Option<i64>,
    #[serde(default)]
    pub required: Vec<String>,
    #[serde(default)]
    pub items: Option<SchemaOrArray>,
    #[serde(default)]
    pub all_of: Vec<JsonSchemaProps>,
    #[serde(default)]
    pub one_of: Vec<JsonSchemaProps>,
    #[serde(default)]
    pub any_of: Vec<JsonSchemaProps>,
    #[serde(default)]
    pub not: Option<Box<JsonSchemaProps>>,
    #[serde(default)]
    pub properties: BTreeMap<String, JsonSchemaProps>,
    #[serde(default)]
    pub additional_properties: Option<SchemaOrBool>,
    #[serde(default)]
    pub pattern_properties: BTreeMap<String, JsonSchemaProps>,
    #[serde(default)]
    pub dependencies: BTreeMap<String, SchemaOrStringArray>,
    #[serde(default)]
    pub additional_items: Option<SchemaOrBool>,
    #[serde(default)]
    pub definitions: BTreeMap<String, JsonSchemaProps>,
    #[serde(default)]
    pub external_docs: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub example: Option<Value>,
    #[serde(default)]
    pub nullable: bool,
    #[serde(rename = "x-kubernetes-preserve-unknown-fields", default)]
    pub x_preserve_unknown_fields: Option<bool>,
    #[serde(rename = "x-kubernetes-embedded-resource", default)]
    pub x_embedded_resource: bool,
    #[serde(rename = "x-kubernetes-int-or-string", default)]
    pub x_int_or_string: bool,
    #[serde(rename = "x-kubernetes-list-map-keys", default)]
    pub x_list_map_keys: Vec<String>,
    #[serde(rename = "x-kubernetes-list-type", default)]
    pub x_list_type: Option<String>,
    #[serde(rename = "x-kubernetes-map-type", default)]
    pub x_map_type: Option<String>,
    #[serde(rename = "x-kubernetes-validations", default)]
    pub x_validations: Vec<ValidationRule>,

    /// `pattern` compiled with RE2 semantics; `None` when absent or invalid (invalid
    /// patterns are reported by CRD validation, and the apiserver then skips them).
    #[serde(skip)]
    pub pattern_re: Option<Regex>,
}

/// Keeps an explicit JSON `null` as `Some(Value::Null)` (absent stays `None`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl JsonSchemaProps {
    /// Compiles everything validation needs once (regexes), recursively.
    pub fn compile(&mut self) {
        if let Some(p) = &self.pattern {
            self.pattern_re = crate::validation::regex::compile_re2_cached(p).ok();
        }
        self.for_each_child_mut(&mut |c| c.compile());
    }

    /// Visits every direct sub-schema.
    pub fn for_each_child_mut(&mut self, f: &mut dyn FnMut(&mut JsonSchemaProps)) {
        for p in self.properties.values_mut() {
            f(p);
        }
        match &mut self.items {
            Some(SchemaOrArray::Schema(s)) => f(s),
            Some(SchemaOrArray::Array(a)) => a.iter_mut().for_each(|s| f(s)),
            None => {}
        }
        if let Some(SchemaOrBool::Schema(s)) = &mut self.additional_properties {
            f(s);
        }
        if let Some(SchemaOrBool::Schema(s)) = &mut self.additional_items {
            f(s);
        }
        for s in self.all_of.iter_mut().chain(self.one_of.iter_mut()).chain(self.any_of.iter_mut()) {
            f(s);
        }
        if let Some(n) = &mut self.not {
            f(n);
        }
        for s in self.pattern_properties.values_mut().chain(self.definitions.values_mut()) {
            f(s);
        }
        for d in self.dependencies.values_mut() {
            if let SchemaOrStringArray::Schema(s) = d {
                f(s);
            }
        }
    }

    /// The item schema when `items` is a single schema.
    pub fn items_schema(&self) -> Option<&JsonSchemaProps> {
        match &self.items {
            Some(SchemaOrArray::Schema(s)) => Some(s),
            _ => None,
        }
    }

    /// The `additionalProperties` schema, if it is one.
    pub fn additional_properties_schema(&self) -> Option<&JsonSchemaProps> {
        match &self.additional_properties {
            Some(SchemaOrBool::Schema(s)) => Some(s),
            _ => None,
        }
    }

    pub fn type_str(&self) -> &str {
        self.type_.as_deref().unwrap_or("")
    }

    pub fn preserve_unknown_fields(&self) -> bool {
        self.x_preserve_unknown_fields == Some(true)
    }
}

impl CustomResourceDefinition {
    /// The version named `name`, or the storage version when `name` is `None`.
    pub fn version(&self, name: Option<&str>) -> Option<(usize, &CrdVersion)> {
        match name {
            Some(n) => self.spec.versions.iter().enumerate().find(|(_, v)| v.name == n),
            None => self
                .spec
                .versions
                .iter()
                .enumerate()
                .find(|(_, v)| v.storage)
                .or_else(|| self.spec.versions.iter().enumerate().next()),
        }
    }

    pub fn namespaced(&self) -> bool {
        self.spec.scope != "Cluster"
    }
}
