//! The typed model of an apiextensions.k8s.io/v1 CustomResourceDefinition, as far as the
//! apiserver reads it. Field names follow the Go types (`JSONSchemaProps`, ...).

use crate::field::ErrorType;
use crate::version::{Feature, KubeVersion};
use regex::Regex;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

// Left out of the npm module, whose download budget it would exceed (about 5 KB of gzip).
#[cfg(not(feature = "wasm"))]
pub mod schema_decode;

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomResourceDefinition {
    #[serde(default, deserialize_with = "null_default")]
    pub api_version: String,
    #[serde(default, deserialize_with = "null_default")]
    pub kind: String,
    #[serde(default, deserialize_with = "null_default")]
    pub metadata: ObjectMeta,
    #[serde(default, deserialize_with = "null_default")]
    pub spec: CrdSpec,
    #[serde(default)]
    pub status: Option<Value>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMeta {
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    #[serde(default, deserialize_with = "null_default")]
    pub generate_name: String,
    #[serde(default, deserialize_with = "null_default")]
    pub namespace: String,
    #[serde(default, deserialize_with = "null_default_values")]
    pub labels: BTreeMap<String, String>,
    #[serde(default, deserialize_with = "null_default_values")]
    pub annotations: BTreeMap<String, String>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrdSpec {
    #[serde(default, deserialize_with = "null_default")]
    pub group: String,
    #[serde(default, deserialize_with = "null_default")]
    pub names: Names,
    #[serde(default, deserialize_with = "null_default")]
    pub scope: String,
    #[serde(default, deserialize_with = "null_default_elems")]
    pub versions: Vec<CrdVersion>,
    #[serde(default)]
    pub conversion: Option<Conversion>,
    #[serde(default, deserialize_with = "null_default")]
    pub preserve_unknown_fields: bool,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Names {
    #[serde(default, deserialize_with = "null_default")]
    pub plural: String,
    #[serde(default, deserialize_with = "null_default")]
    pub singular: String,
    #[serde(default, deserialize_with = "null_default_elems")]
    pub short_names: Vec<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub kind: String,
    #[serde(default, deserialize_with = "null_default")]
    pub list_kind: String,
    #[serde(default, deserialize_with = "null_default_elems")]
    pub categories: Vec<String>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Conversion {
    #[serde(default, deserialize_with = "null_default")]
    pub strategy: String,
    #[serde(default)]
    pub webhook: Option<Value>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrdVersion {
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    #[serde(default, deserialize_with = "null_default")]
    pub served: bool,
    #[serde(default, deserialize_with = "null_default")]
    pub storage: bool,
    #[serde(default, deserialize_with = "null_default")]
    pub deprecated: bool,
    #[serde(default)]
    pub deprecation_warning: Option<String>,
    #[serde(default)]
    pub schema: Option<CustomResourceValidation>,
    #[serde(default)]
    pub subresources: Option<Subresources>,
    #[serde(default, deserialize_with = "null_default_elems")]
    pub additional_printer_columns: Vec<Value>,
    #[serde(default, deserialize_with = "null_default_elems")]
    pub selectable_fields: Vec<Value>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomResourceValidation {
    #[serde(rename = "openAPIV3Schema", default)]
    #[cfg_attr(not(feature = "wasm"), serde(deserialize_with = "schema_decode::prepared_or_derived"))]
    pub open_api_v3_schema: Option<Arc<JsonSchemaProps>>,
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
    #[serde(default, deserialize_with = "null_default")]
    pub spec_replicas_path: String,
    #[serde(default, deserialize_with = "null_default")]
    pub status_replicas_path: String,
    #[serde(default)]
    pub label_selector_path: Option<String>,
}

/// Named sub-schemas (`properties`, `patternProperties`, `definitions`). Each is shared
/// (`Arc`): a compile after an edit keeps the previous compile's nodes wherever the edit did
/// not reach ([`crate::crd::model::schema_decode`]), and copies a shared node only to change
/// it (`Arc::make_mut`).
pub type SchemaMap = BTreeMap<String, Arc<JsonSchemaProps>>;

/// What a decode may keep of an earlier compile's: each version's schema as that compile
/// holds it (by index in `spec.versions`; compiled for the same release), and the paths
/// from the CRD document's root of the scalars edited since (an editor's keystrokes, each
/// read by [`crate::text::splice`]). A node no such path goes through is the earlier one,
/// shared: an edit decodes the nodes on its path, not the schema.
pub struct Reuse<'r> {
    pub schemas: Vec<Option<&'r Arc<JsonSchemaProps>>>,
    pub dirty: &'r [Vec<crate::text::source_map::PathSeg>],
}

/// `items`: a schema, or (forbidden in v1, but decodable) an array of schemas.
/// Decoded as `#[serde(untagged)]` would ([`untagged`]).
#[derive(Clone, Debug)]
pub enum SchemaOrArray {
    Schema(Arc<JsonSchemaProps>),
    Array(Vec<JsonSchemaProps>),
}

/// `additionalProperties` / `additionalItems`: a boolean or a schema.
/// Decoded as `#[serde(untagged)]` would ([`untagged`]).
#[derive(Clone, Debug)]
pub enum SchemaOrBool {
    Bool(bool),
    Schema(Arc<JsonSchemaProps>),
}

/// `dependencies` values: a schema or a list of property names.
/// Decoded as `#[serde(untagged)]` would ([`untagged`]).
#[derive(Clone, Debug)]
pub enum SchemaOrStringArray {
    Strings(Vec<String>),
    Schema(Box<JsonSchemaProps>),
}

/// Decoding of the schema-or-something fields exactly as `#[serde(untagged)]` decodes them
/// (variants tried in declaration order; any failure is `data did not match any variant of
/// untagged enum <Name>`), without serde's untagged machinery, which first copies the whole
/// value into a buffer: under every `items` and `additionalProperties`, so a nested schema
/// was copied once per enclosing level.
mod untagged {
    use std::sync::Arc;
    use crate::crd::model::{JsonSchemaProps, SchemaOrArray, SchemaOrBool, SchemaOrStringArray};
    use serde::de::{
        self, value::MapAccessDeserializer, Deserialize, Deserializer, MapAccess, SeqAccess,
        Visitor,
    };
    use serde_json::Value;
    use std::fmt;

    fn no_variant<E: de::Error>(name: &str) -> E {
        E::custom(format!(
            "data did not match any variant of untagged enum {}",
            name
        ))
    }

    /// A sequence is read once, so it is kept to try each variant on it.
    fn buffer<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(v) = seq.next_element::<Value>()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    /// The variants' decoders; `Err(())` moves on to the next variant.
    fn schema<'de, M: MapAccess<'de>>(map: M) -> Result<JsonSchemaProps, ()> {
        JsonSchemaProps::deserialize(MapAccessDeserializer::new(map)).map_err(|_| ())
    }
    fn from_value<T: for<'x> Deserialize<'x>>(v: &Value) -> Result<T, ()> {
        T::deserialize(v).map_err(|_| ())
    }

    macro_rules! reject_scalars {
        ($name:expr) => {
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Err(no_variant($name))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Err(no_variant($name))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Err(no_variant($name))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Err(no_variant($name))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Err(no_variant($name))
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Err(no_variant($name))
            }
        };
    }

    struct ArrayVisitor;
    impl<'de> Visitor<'de> for ArrayVisitor {
        type Value = SchemaOrArray;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("untagged enum SchemaOrArray")
        }
        reject_scalars!("SchemaOrArray");
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<SchemaOrArray, E> {
            Err(no_variant("SchemaOrArray"))
        }
        fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<SchemaOrArray, M::Error> {
            // A map is no `Vec`: only the schema variant can match.
            schema(map)
                .map(|s| SchemaOrArray::Schema(Arc::new(s)))
                .map_err(|_| no_variant("SchemaOrArray"))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<SchemaOrArray, A::Error> {
            let v = buffer(seq)?;
            // A struct decodes from a sequence of its fields too, so the schema comes first.
            from_value::<JsonSchemaProps>(&v)
                .map(|s| SchemaOrArray::Schema(Arc::new(s)))
                .or_else(|_| from_value::<Vec<JsonSchemaProps>>(&v).map(SchemaOrArray::Array))
                .map_err(|_| no_variant("SchemaOrArray"))
        }
    }

    struct BoolVisitor;
    impl<'de> Visitor<'de> for BoolVisitor {
        type Value = SchemaOrBool;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("untagged enum SchemaOrBool")
        }
        reject_scalars!("SchemaOrBool");
        fn visit_bool<E: de::Error>(self, b: bool) -> Result<SchemaOrBool, E> {
            Ok(SchemaOrBool::Bool(b))
        }
        fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<SchemaOrBool, M::Error> {
            schema(map)
                .map(|s| SchemaOrBool::Schema(Arc::new(s)))
                .map_err(|_| no_variant("SchemaOrBool"))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<SchemaOrBool, A::Error> {
            let v = buffer(seq)?;
            from_value::<JsonSchemaProps>(&v)
                .map(|s| SchemaOrBool::Schema(Arc::new(s)))
                .map_err(|_| no_variant("SchemaOrBool"))
        }
    }

    struct StringArrayVisitor;
    impl<'de> Visitor<'de> for StringArrayVisitor {
        type Value = SchemaOrStringArray;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("untagged enum SchemaOrStringArray")
        }
        reject_scalars!("SchemaOrStringArray");
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<SchemaOrStringArray, E> {
            Err(no_variant("SchemaOrStringArray"))
        }
        fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<SchemaOrStringArray, M::Error> {
            schema(map)
                .map(|s| SchemaOrStringArray::Schema(Box::new(s)))
                .map_err(|_| no_variant("SchemaOrStringArray"))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<SchemaOrStringArray, A::Error> {
            let v = buffer(seq)?;
            from_value::<Vec<String>>(&v)
                .map(SchemaOrStringArray::Strings)
                .or_else(|_| {
                    from_value::<JsonSchemaProps>(&v)
                        .map(|s| SchemaOrStringArray::Schema(Box::new(s)))
                })
                .map_err(|_| no_variant("SchemaOrStringArray"))
        }
    }

    impl<'de> Deserialize<'de> for SchemaOrArray {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(ArrayVisitor)
        }
    }
    impl<'de> Deserialize<'de> for SchemaOrBool {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(BoolVisitor)
        }
    }
    impl<'de> Deserialize<'de> for SchemaOrStringArray {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(StringArrayVisitor)
        }
    }
}

/// The release that first knows each optional `x-kubernetes-validations` field with its
/// feature gates at their defaults. An earlier release never sees the field: it is
/// unknown to its decoder (`messageExpression`, `reason`, `fieldPath`), or dropped by the
/// CRD strategy's `dropDisabledFields` while its gate is off (`optionalOldSelf`, behind
/// `CRDValidationRatcheting` in 1.29, on by default from 1.30).
pub const MESSAGE_EXPRESSION_SINCE: u32 = Feature::MessageExpression.since();
pub const REASON_SINCE: u32 = Feature::ReasonAndFieldPath.since();
pub const FIELD_PATH_SINCE: u32 = Feature::ReasonAndFieldPath.since();
pub const OPTIONAL_OLD_SELF_SINCE: u32 = Feature::OptionalOldSelf.since();

/// The `reason` values a rule may name (apiextensions `FieldValueErrorReason`: the create
/// checks reject any other), default first (a failed rule that names none reports
/// `FieldValueInvalid`), as `field.ErrorType` names them.
pub const RULE_REASONS: [ErrorType; 4] = [ErrorType::Invalid, ErrorType::Forbidden, ErrorType::Required, ErrorType::Duplicate];

/// One `x-kubernetes-validations` entry.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "camelCase")]
pub struct ValidationRule {
    #[serde(default, deserialize_with = "null_default")]
    pub rule: String,
    #[serde(default, deserialize_with = "null_default")]
    pub message: String,
    #[serde(default, deserialize_with = "null_default")]
    pub message_expression: String,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default, deserialize_with = "null_default")]
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
    #[serde(default, deserialize_with = "null_default")]
    pub exclusive_maximum: bool,
    #[serde(default)]
    pub minimum: Option<f64>,
    #[serde(default, deserialize_with = "null_default")]
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
    #[serde(default, deserialize_with = "null_default")]
    pub unique_items: bool,
    #[serde(default)]
    pub multiple_of: Option<f64>,
    #[serde(rename = "enum", default)]
    pub enum_: Option<Vec<Value>>,
    #[serde(default)]
    pub max_properties: Option<i64>,
    #[serde(default)]
    pub min_properties: Option<i64>,
    #[serde(default, deserialize_with = "null_default_elems")]
    pub required: Vec<String>,
    #[serde(default)]
    pub items: Option<SchemaOrArray>,
    #[serde(default, deserialize_with = "null_default_elems")]
    pub all_of: Vec<JsonSchemaProps>,
    #[serde(default, deserialize_with = "null_default_elems")]
    pub one_of: Vec<JsonSchemaProps>,
    #[serde(default, deserialize_with = "null_default_elems")]
    pub any_of: Vec<JsonSchemaProps>,
    #[serde(default)]
    pub not: Option<Box<JsonSchemaProps>>,
    #[serde(default, deserialize_with = "null_default_values")]
    pub properties: SchemaMap,
    #[serde(default)]
    pub additional_properties: Option<SchemaOrBool>,
    #[serde(default, deserialize_with = "null_default_values")]
    pub pattern_properties: SchemaMap,
    #[serde(default, deserialize_with = "null_default")]
    pub dependencies: BTreeMap<String, SchemaOrStringArray>,
    #[serde(default)]
    pub additional_items: Option<SchemaOrBool>,
    #[serde(default, deserialize_with = "null_default_values")]
    pub definitions: SchemaMap,
    #[serde(default)]
    pub external_docs: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub example: Option<Value>,
    #[serde(default, deserialize_with = "null_default")]
    pub nullable: bool,
    #[serde(rename = "x-kubernetes-preserve-unknown-fields", default)]
    pub x_preserve_unknown_fields: Option<bool>,
    #[serde(rename = "x-kubernetes-embedded-resource", default, deserialize_with = "null_default")]
    pub x_embedded_resource: bool,
    #[serde(rename = "x-kubernetes-int-or-string", default, deserialize_with = "null_default")]
    pub x_int_or_string: bool,
    #[serde(rename = "x-kubernetes-list-map-keys", default, deserialize_with = "null_default_elems")]
    pub x_list_map_keys: Vec<String>,
    #[serde(rename = "x-kubernetes-list-type", default)]
    pub x_list_type: Option<String>,
    #[serde(rename = "x-kubernetes-map-type", default)]
    pub x_map_type: Option<String>,
    #[serde(rename = "x-kubernetes-validations", default, deserialize_with = "null_default_elems")]
    pub x_validations: Vec<ValidationRule>,

    /// `pattern` compiled with RE2 semantics; `None` when absent or invalid (invalid
    /// patterns are reported by CRD validation, and the apiserver then skips them).
    #[serde(skip)]
    pub pattern_re: Option<std::sync::Arc<Regex>>,
    /// The format object validation checks (`format` after the release's
    /// `StripUnsupportedFormats`; empty when stripped). Filled by
    /// [`JsonSchemaProps::compile_for`].
    #[serde(skip)]
    pub validation_format: String,
    /// Whether the release checks numeric values against `validation_format`'s range
    /// (int32/int64/float/double, and int64 for an integer without a format: from 1.36
    /// kube-openapi's numberValidator gets the node's type and format).
    #[serde(skip)]
    pub numeric_format_ranges: bool,
    /// The release [`JsonSchemaProps::compile_for`] prepared this node and everything below
    /// it for (its rule fields dropped, its patterns and formats compiled); `None` before.
    /// A shared node already prepared for the release is not copied to be prepared again.
    #[serde(skip)]
    pub compiled_for: Option<KubeVersion>,
    /// The node's content fingerprints, once computed
    /// ([`crate::schema::fingerprint::SchemaFingerprints`]). A node is not changed once it
    /// is fingerprinted (it is shared by then); a copy starts without them.
    #[serde(skip)]
    pub fingerprints: FingerprintCell,
}

/// [`JsonSchemaProps::fingerprints`], and the other facts computed of the node's content
/// alone (so kept with it, and shared with it by the compiles after an edit elsewhere):
/// each set once; empty in a copy (a copy is made to be changed); printed as nothing (it is
/// no part of the schema).
#[derive(Default)]
pub struct FingerprintCell(
    std::sync::OnceLock<(u128, u128)>,
    std::sync::OnceLock<Option<Box<str>>>,
    std::sync::OnceLock<u128>,
);

impl FingerprintCell {
    pub const fn new() -> FingerprintCell {
        FingerprintCell(std::sync::OnceLock::new(), std::sync::OnceLock::new(), std::sync::OnceLock::new())
    }
    pub fn get(&self) -> Option<(u128, u128)> {
        self.0.get().copied()
    }
    pub fn set(&self, f: (u128, u128)) {
        let _ = self.0.set(f);
    }
    /// The node's `NewStructural` error ([`crate::schema::structural`]), computed once.
    pub(crate) fn structural_error(&self, compute: impl FnOnce() -> Option<String>) -> Option<&str> {
        self.1.get_or_init(|| compute().map(String::into_boxed_str)).as_deref()
    }
    /// The fingerprint of the descriptions below the node
    /// ([`crate::schema::fingerprint::descriptions_fingerprint`]), computed once.
    pub(crate) fn descriptions(&self, compute: impl FnOnce() -> u128) -> u128 {
        *self.2.get_or_init(compute)
    }
    fn reset(&mut self) {
        self.0.take();
        self.1.take();
        self.2.take();
    }
}

/// A shared sub-schema to change: copied first when shared (`Arc::make_mut`), and its
/// fingerprints forgotten (they are of what it held before the change).
pub fn schema_mut(s: &mut Arc<JsonSchemaProps>) -> &mut JsonSchemaProps {
    let s = Arc::make_mut(s);
    s.fingerprints.reset();
    s
}

impl Clone for FingerprintCell {
    fn clone(&self) -> Self {
        FingerprintCell::default()
    }
}

impl std::fmt::Debug for FingerprintCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("_")
    }
}

/// Go's `encoding/json` leaves a field alone when its JSON value is `null` (a string,
/// bool, number, slice, map or struct keeps its zero value; a pointer becomes nil), so a
/// CRD field written `null` reads as an absent one.
fn null_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// [`null_default`] for a slice: the slice itself, and each `null` element (a zero value).
/// Elements are read into the slice directly (a schema is large: no second pass moving
/// each one).
fn null_default_elems<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    struct Elems<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de> + Default> serde::de::Visitor<'de> for Elems<T> {
        type Value = Vec<T>;
        // serde's own `Vec` says so; the error texts stay the derived ones.
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a sequence")
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Vec<T>, E> {
            Ok(Vec::new())
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Vec<T>, E> {
            Ok(Vec::new())
        }
        fn visit_some<D2: serde::Deserializer<'de>>(self, d: D2) -> Result<Vec<T>, D2::Error> {
            d.deserialize_seq(self)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
            while let Some(x) = seq.next_element::<Option<T>>()? {
                out.push(x.unwrap_or_default());
            }
            Ok(out)
        }
    }
    d.deserialize_option(Elems(std::marker::PhantomData))
}

/// [`null_default`] for a map: the map itself, and each `null` value (a zero value).
/// Values are read into the map directly (schemas are large: no second pass moving each).
fn null_default_values<'de, D, T>(d: D) -> Result<BTreeMap<String, T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    struct Values<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de> + Default> serde::de::Visitor<'de> for Values<T> {
        type Value = BTreeMap<String, T>;
        // serde's own `BTreeMap` says so; the error texts stay the derived ones.
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map")
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(BTreeMap::new())
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(BTreeMap::new())
        }
        fn visit_some<D2: serde::Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
            d.deserialize_map(self)
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some((k, v)) = m.next_entry::<String, Option<T>>()? {
                out.insert(k, v.unwrap_or_default());
            }
            Ok(out)
        }
    }
    d.deserialize_option(Values(std::marker::PhantomData))
}

/// Keeps an explicit JSON `null` as `Some(Value::Null)` (absent stays `None`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl ValidationRule {
    /// Forgets the fields `kube` does not know, as that release's apiserver would before
    /// storing the CRD (see [`MESSAGE_EXPRESSION_SINCE`] and the others).
    pub fn drop_fields_unknown_to(&mut self, kube: KubeVersion) {
        if !kube.at_least(MESSAGE_EXPRESSION_SINCE) {
            self.message_expression.clear();
        }
        if !kube.at_least(REASON_SINCE) {
            self.reason = None;
        }
        if !kube.at_least(FIELD_PATH_SINCE) {
            self.field_path.clear();
        }
        if !kube.at_least(OPTIONAL_OLD_SELF_SINCE) {
            self.optional_old_self = None;
        }
    }
}

impl JsonSchemaProps {
    /// [`ValidationRule::drop_fields_unknown_to`] on every rule of this schema.
    pub fn drop_rule_fields_unknown_to(&mut self, kube: KubeVersion) {
        // A release that knows every rule field drops none: no walk.
        if [MESSAGE_EXPRESSION_SINCE, REASON_SINCE, FIELD_PATH_SINCE, OPTIONAL_OLD_SELF_SINCE]
            .iter()
            .all(|&since| kube.at_least(since))
        {
            return;
        }
        if self.compiled_for == Some(kube) {
            return;
        }
        for r in &mut self.x_validations {
            r.drop_fields_unknown_to(kube);
        }
        self.fingerprints.reset();
        self.for_each_child_mut_unless(&|c| c.compiled_for == Some(kube), true, &mut |c| c.drop_rule_fields_unknown_to(kube));
    }

    /// Compiles everything validation needs once (regexes), recursively, as the latest
    /// release validates.
    pub fn compile(&mut self) {
        self.compile_for(KubeVersion::LATEST)
    }

    /// Compiles everything validation needs once (regexes, the formats the release
    /// validates), recursively.
    pub fn compile_for(&mut self, kube: KubeVersion) {
        if let Some(p) = &self.pattern {
            self.pattern_re = crate::go::regexp::compile_re2_shared(p);
        }
        let ty = if self.x_int_or_string { "" } else { self.type_str() };
        let f = crate::k8s::strfmt::validation_format(
            self.format.as_deref().unwrap_or(""),
            ty,
            kube,
        );
        self.numeric_format_ranges = kube.at_least(crate::k8s::strfmt::NUMERIC_FORMATS_SINCE)
            && (matches!(f, "int32" | "int64" | "float" | "double") || ty == "integer");
        self.validation_format = f.to_string();
        // Sub-schemas shared with an earlier compile for this release are prepared already.
        // (The fingerprints stay: they leave out what this changes.)
        self.for_each_child_mut_unless(&|c| c.compiled_for == Some(kube), false, &mut |c| c.compile_for(kube));
        self.compiled_for = Some(kube);
    }

    /// Visits every direct sub-schema to change it; a shared one is copied first
    /// ([`schema_mut`]).
    pub fn for_each_child_mut(&mut self, f: &mut dyn FnMut(&mut JsonSchemaProps)) {
        self.fingerprints.reset();
        self.for_each_child_mut_unless(&|_| false, true, f)
    }

    /// [`JsonSchemaProps::for_each_child_mut`], leaving alone the shared (`Arc`) sub-schemas
    /// `keep` takes as they are (those are not copied), and keeping the children's
    /// fingerprints unless `reset` (for changes that leave out what they hash).
    fn for_each_child_mut_unless(&mut self, keep: &dyn Fn(&JsonSchemaProps) -> bool, reset: bool, f: &mut dyn FnMut(&mut JsonSchemaProps)) {
        let mut shared = |s: &mut Arc<JsonSchemaProps>| {
            if !keep(s) {
                f(if reset { schema_mut(s) } else { Arc::make_mut(s) })
            }
        };
        for p in self.properties.values_mut() {
            shared(p);
        }
        if let Some(SchemaOrArray::Schema(s)) = &mut self.items {
            shared(s);
        }
        if let Some(SchemaOrBool::Schema(s)) = &mut self.additional_properties {
            shared(s);
        }
        if let Some(SchemaOrBool::Schema(s)) = &mut self.additional_items {
            shared(s);
        }
        for s in self
            .pattern_properties
            .values_mut()
            .chain(self.definitions.values_mut())
        {
            shared(s);
        }
        // Sub-schemas owned here (rare in CRDs: not shared between compiles).
        let mut owned = |s: &mut JsonSchemaProps| {
            if reset {
                s.fingerprints.reset();
            }
            f(s)
        };
        if let Some(SchemaOrArray::Array(a)) = &mut self.items {
            a.iter_mut().for_each(&mut owned);
        }
        for s in self
            .all_of
            .iter_mut()
            .chain(self.one_of.iter_mut())
            .chain(self.any_of.iter_mut())
        {
            owned(s);
        }
        if let Some(n) = &mut self.not {
            owned(n);
        }
        for d in self.dependencies.values_mut() {
            if let SchemaOrStringArray::Schema(s) = d {
                owned(s);
            }
        }
    }

    /// Whether the apiserver applies a default here: `default: null` is none (a null
    /// default is dropped, and a non-nullable `null` value is pruned, not defaulted).
    pub fn applies_default(&self) -> bool {
        matches!(&self.default, Some(d) if !d.is_null())
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
            Some(n) => self
                .spec
                .versions
                .iter()
                .enumerate()
                .find(|(_, v)| v.name == n),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_fields_read_as_absent() {
        // encoding/json leaves a field at its zero value for `null`, elements included.
        let s: JsonSchemaProps = serde_json::from_value(serde_json::json!({
            "type": "object", "required": null, "nullable": null, "uniqueItems": null,
            "x-kubernetes-validations": null, "x-kubernetes-list-map-keys": null,
            "allOf": null, "x-kubernetes-int-or-string": null, "enum": null, "maxLength": null,
            "description": null, "x-kubernetes-embedded-resource": null,
            "properties": {"a": null, "b": {"type": "string", "required": [null, "x"]}},
            "patternProperties": null, "definitions": null, "dependencies": null,
        }))
        .unwrap();
        assert!(s.required.is_empty() && !s.nullable && !s.unique_items && !s.x_int_or_string);
        assert!(s.x_validations.is_empty() && s.x_list_map_keys.is_empty() && s.all_of.is_empty());
        assert!(s.enum_.is_none() && s.max_length.is_none() && s.description.is_none());
        assert!(s.properties["a"].type_.is_none());
        assert_eq!(s.properties["b"].required, vec!["".to_string(), "x".to_string()]);
        let c: CustomResourceDefinition = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "a.b", "labels": null, "annotations": {"k": null}},
            "spec": {"group": null, "names": {"shortNames": null, "categories": null, "kind": "A"},
                "preserveUnknownFields": null,
                "versions": [{"name": "v1", "served": null, "additionalPrinterColumns": null,
                    "selectableFields": null,
                    "schema": {"openAPIV3Schema": {"type": "object",
                        "x-kubernetes-validations": [{"rule": "true", "message": null}]}}}]}
        }))
        .unwrap();
        assert_eq!(c.metadata.annotations["k"], "");
        assert!(c.spec.group.is_empty() && !c.spec.versions[0].served);
    }

    /// The derived untagged decoders the hand-written ones replace.
    #[derive(Debug, Deserialize)]
    #[serde(untagged)]
    #[allow(dead_code)] // read only through Debug, to compare with the new decoders
    enum OldArray {
        Schema(Box<JsonSchemaProps>),
        Array(Vec<JsonSchemaProps>),
    }
    #[derive(Debug, Deserialize)]
    #[serde(untagged)]
    #[allow(dead_code)] // read only through Debug, to compare with the new decoders
    enum OldBool {
        Bool(bool),
        Schema(Box<JsonSchemaProps>),
    }
    #[derive(Debug, Deserialize)]
    #[serde(untagged)]
    #[allow(dead_code)] // read only through Debug, to compare with the new decoders
    enum OldStrings {
        Strings(Vec<String>),
        Schema(Box<JsonSchemaProps>),
    }

    /// The same value (variants print by name only, so the renamed copies print alike), or
    /// the same error once the copies' names are put back.
    fn same<A: std::fmt::Debug, B: std::fmt::Debug>(
        new: Result<A, serde_json::Error>,
        old: Result<B, serde_json::Error>,
        old_name: &str,
        name: &str,
    ) -> bool {
        match (new, old) {
            (Ok(a), Ok(b)) => format!("{:?}", a) == format!("{:?}", b),
            (Err(a), Err(b)) => a.to_string() == b.to_string().replace(old_name, name),
            _ => false,
        }
    }

    #[test]
    fn schema_or_fields_decode_as_untagged_enums() {
        let inputs = [
            serde_json::json!({"type": "string"}),
            serde_json::json!({"type": 5}),
            serde_json::json!({"items": {"items": {"type": "integer", "maxItems": 1.5}}}),
            serde_json::json!([]),
            serde_json::json!([{}]),
            serde_json::json!([{"type": "string"}, {"type": "object"}]),
            serde_json::json!(["an-id"]),
            serde_json::json!(["a", "b"]),
            serde_json::json!([1]),
            serde_json::json!(true),
            serde_json::json!(false),
            serde_json::json!(5),
            serde_json::json!(-5),
            serde_json::json!(1.5),
            serde_json::json!("x"),
            serde_json::json!(null),
        ];
        for v in &inputs {
            assert!(
                same(
                    SchemaOrArray::deserialize(v),
                    OldArray::deserialize(v),
                    "OldArray",
                    "SchemaOrArray"
                ),
                "items: {}",
                v
            );
            assert!(
                same(
                    SchemaOrBool::deserialize(v),
                    OldBool::deserialize(v),
                    "OldBool",
                    "SchemaOrBool"
                ),
                "additionalProperties: {}",
                v
            );
            assert!(
                same(
                    SchemaOrStringArray::deserialize(v),
                    OldStrings::deserialize(v),
                    "OldStrings",
                    "SchemaOrStringArray"
                ),
                "dependencies: {}",
                v
            );
        }
    }
}
