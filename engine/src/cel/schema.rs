//! The schema declarations generic CEL reads, as apiserver `pkg/cel/common/schemas.go`'s
//! `Schema` interface gives them: CEL values (`UnstructuredToVal`, values.go) and the size
//! estimates (`SchemaDeclType`) see a schema only through this trait, so `cel/` knows no CRD
//! type. The apiextensions side implements it for its OpenAPI model (as
//! `pkg/apiserver/schema/cel/model/adaptor.go` does for `Structural`).

use serde_json::Value;

/// One schema node. Only what values and size estimates read; the names follow the
/// OpenAPI keywords (`common.Schema`'s `Type()`, `Format()`, `Properties()`, ...).
pub trait Schema {
    /// `type`, or `""` when unset.
    fn type_name(&self) -> &str;
    /// `format`.
    fn format(&self) -> Option<&str>;
    /// The declared property `name`.
    fn property(&self, name: &str) -> Option<&dyn Schema>;
    /// Every declared property, in name order (the order `properties` iterate in the
    /// apiserver's sorted field lists).
    fn properties(&self) -> Box<dyn Iterator<Item = (&str, &dyn Schema)> + '_>;
    /// Whether `properties` is empty.
    fn has_no_properties(&self) -> bool;
    /// `additionalProperties` when it is a schema (not `true`/`false`).
    fn additional_properties(&self) -> Option<&dyn Schema>;
    /// `items` when it is one schema.
    fn items(&self) -> Option<&dyn Schema>;
    /// `required`.
    fn required(&self) -> &[String];
    /// Whether a `default` is set.
    fn has_default(&self) -> bool;
    /// `enum`.
    fn enum_values(&self) -> Option<&[Value]>;
    fn max_items(&self) -> Option<i64>;
    fn max_length(&self) -> Option<i64>;
    fn max_properties(&self) -> Option<i64>;
    fn nullable(&self) -> bool;
    /// `x-kubernetes-int-or-string`.
    fn is_x_int_or_string(&self) -> bool;
    /// `x-kubernetes-embedded-resource`.
    fn is_x_embedded_resource(&self) -> bool;
    /// `x-kubernetes-list-type`.
    fn x_list_type(&self) -> Option<&str>;
    /// `x-kubernetes-list-map-keys`.
    fn x_list_map_keys(&self) -> &[String];
}
