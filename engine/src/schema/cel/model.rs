//! The CRD model as generic CEL sees a schema: [`Schema`] for [`JsonSchemaProps`], as
//! apiextensions `pkg/apiserver/schema/cel/model/adaptor.go` adapts `Structural` to
//! apiserver `common.Schema`.

use crate::cel::schema::Schema;
use crate::crd::model::JsonSchemaProps;
use serde_json::Value;

impl Schema for JsonSchemaProps {
    #[inline]
    fn type_name(&self) -> &str {
        self.type_str()
    }
    #[inline]
    fn format(&self) -> Option<&str> {
        self.format.as_deref()
    }
    #[inline]
    fn property(&self, name: &str) -> Option<&dyn Schema> {
        self.properties.get(name).map(|p| &**p as &dyn Schema)
    }
    fn properties(&self) -> Box<dyn Iterator<Item = (&str, &dyn Schema)> + '_> {
        Box::new(self.properties.iter().map(|(k, p)| (k.as_str(), &**p as &dyn Schema)))
    }
    fn has_no_properties(&self) -> bool {
        self.properties.is_empty()
    }
    #[inline]
    fn additional_properties(&self) -> Option<&dyn Schema> {
        self.additional_properties_schema().map(|p| p as &dyn Schema)
    }
    #[inline]
    fn items(&self) -> Option<&dyn Schema> {
        self.items_schema().map(|p| p as &dyn Schema)
    }
    fn required(&self) -> &[String] {
        &self.required
    }
    fn has_default(&self) -> bool {
        self.default.is_some()
    }
    fn enum_values(&self) -> Option<&[Value]> {
        self.enum_.as_deref()
    }
    fn max_items(&self) -> Option<i64> {
        self.max_items
    }
    fn max_length(&self) -> Option<i64> {
        self.max_length
    }
    fn max_properties(&self) -> Option<i64> {
        self.max_properties
    }
    #[inline]
    fn nullable(&self) -> bool {
        self.nullable
    }
    #[inline]
    fn is_x_int_or_string(&self) -> bool {
        self.x_int_or_string
    }
    fn is_x_embedded_resource(&self) -> bool {
        self.x_embedded_resource
    }
    #[inline]
    fn x_list_type(&self) -> Option<&str> {
        self.x_list_type.as_deref()
    }
    #[inline]
    fn x_list_map_keys(&self) -> &[String] {
        &self.x_list_map_keys
    }
}
