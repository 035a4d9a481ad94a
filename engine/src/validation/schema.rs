//! Keyword validation (kube-openapi `validate.SchemaValidator`), the conversion of its
//! results to field errors (apiextensions `kubeOpenAPIResultToFieldErrors`) and validation
//! ratcheting (apiextensions `RatchetingSchemaValidator` over apiserver's
//! `common.CorrelatedObject`).
//!
//! The walk mirrors kube-openapi: at each node the type, schema-props (allOf/anyOf/oneOf/
//! not/dependencies), string, format, number, slice, common (enum) and object validators
//! run when they apply. Errors carry kube-openapi's own message (the detail of `Invalid`
//! errors) and are deduplicated by that message like `Result.AddErrors`. Match counts are
//! kept as kube-openapi keeps them, since anyOf/oneOf report the failures of the branch
//! with the most matches.
//!
//! Paths: kube-openapi names values relative to the validated root (`spec.replicas`,
//! `.foo` for additionalProperties keys and required fields at the root, `spec.items[0]`);
//! the field error path is the caller's path plus that name without its leading dot.

use crate::k8s::strfmt as formats;
use crate::crd::model::{JsonSchemaProps, SchemaOrArray, SchemaOrBool, SchemaOrStringArray};
use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::schema::correlation::{Correlated, MapListIndex};
use crate::version::{Feature, KubeVersion};
use serde_json::{Map, Number, Value};
use std::collections::HashSet;

/// `ValidateCustomResource`: every keyword error of `value` against `schema`, as the
/// latest release's kube-openapi finds them.
#[cfg(test)]
pub fn validate(schema: &JsonSchemaProps, path: &Path, value: &Value, errs: &mut ErrorList) {
    validate_for(KubeVersion::LATEST, schema, path, value, errs)
}

/// [`validate`] with the kube-openapi of release `kube`.
pub fn validate_for(kube: KubeVersion, schema: &JsonSchemaProps, path: &Path, value: &Value, errs: &mut ErrorList) {
    let mut v = Validator { errs: Vec::new(), kube };
    v.node(schema, &KPath::Root, value, None);
    v.finish(path, errs);
}

/// `ValidateCustomResourceUpdate`: like [`validate`], but with validation ratcheting when
/// `ratcheting` is on: errors on values unchanged from `old` are dropped.
#[cfg(test)]
pub fn validate_update(
    schema: &JsonSchemaProps,
    path: &Path,
    value: &Value,
    old: &Value,
    ratcheting: bool,
    errs: &mut ErrorList,
) {
    validate_update_for(KubeVersion::LATEST, schema, path, value, old, ratcheting, errs)
}

/// [`validate_update`] with the kube-openapi of release `kube`.
pub fn validate_update_for(
    kube: KubeVersion,
    schema: &JsonSchemaProps,
    path: &Path,
    value: &Value,
    old: &Value,
    ratcheting: bool,
    errs: &mut ErrorList,
) {
    if !ratcheting {
        return validate_for(kube, schema, path, value, errs);
    }
    let mut v = Validator { errs: Vec::new(), kube };
    let mut corr = Correlated::new(value, old, schema);
    if !kube.has(Feature::RatchetingListsAsUnits) {
        corr = corr.with_uncorrelated_lists_unequal();
    }
    v.node(schema, &KPath::Root, value, Some(corr));
    v.finish(path, errs);
}

// ---------------------------------------------------------------------------------------
// Paths

/// A kube-openapi path, rendered only when an error needs it.
enum KPath<'p> {
    Root,
    /// A regular property: `name` at the root, `parent.name` below.
    Prop(&'p KPath<'p>, &'p str),
    /// additionalProperties/patternProperties keys, required fields, dependencies:
    /// always `parent.key` (`.key` at the root).
    Dot(&'p KPath<'p>, &'p str),
    Index(&'p KPath<'p>, usize),
}

impl KPath<'_> {
    fn render(&self) -> String {
        let mut s = String::new();
        self.render_into(&mut s);
        s
    }
    fn render_into(&self, out: &mut String) {
        match self {
            KPath::Root => {}
            KPath::Prop(p, name) => {
                p.render_into(out);
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
            KPath::Dot(p, name) => {
                p.render_into(out);
                out.push('.');
                out.push_str(name);
            }
            KPath::Index(p, i) => {
                p.render_into(out);
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
        }
    }
    fn is_root(&self) -> bool {
        matches!(self, KPath::Root)
    }
}

// ---------------------------------------------------------------------------------------
// Errors

/// One kube-openapi error: its `Error()` text (the dedup key) and how it converts.
struct KErr {
    msg: String,
    /// kube-openapi `Name` (None for composite errors, reported at the caller's path).
    name: Option<String>,
    conv: Conv,
}

enum Conv {
    Required,
    NotSupported {
        value: BadValue,
        values: Vec<String>,
    },
    TooLong {
        value: BadValue,
        max: i64,
    },
    TooMany {
        actual: i64,
        max: i64,
    },
    TypeInvalid {
        value: BadValue,
    },
    Invalid {
        value: BadValue,
    },
}

struct Validator {
    errs: Vec<KErr>,
    /// The release whose kube-openapi this is.
    kube: KubeVersion,
}

const IN: &str = "body";

impl Validator {
    fn finish(self, path: &Path, out: &mut ErrorList) {
        let mut seen: HashSet<&str> = HashSet::with_capacity(self.errs.len());
        for e in &self.errs {
            if !seen.insert(e.msg.as_str()) {
                continue;
            }
            let field = match &e.name {
                Some(n) if !n.is_empty() && n != "." => {
                    path.child(n.strip_prefix('.').unwrap_or(n))
                }
                _ => path.clone(),
            };
            let fe = match &e.conv {
                Conv::Required => FieldError::required(field, ""),
                Conv::NotSupported { value, values } => {
                    FieldError::not_supported(field, value.clone(), values)
                }
                Conv::TooLong { value, max } => {
                    FieldError::too_long_max_length(field, value.clone(), *max)
                }
                Conv::TooMany { actual, max } => FieldError::too_many(field, *actual, *max),
                Conv::TypeInvalid { value } => {
                    FieldError::type_invalid(field, value.clone(), e.msg.clone())
                }
                Conv::Invalid { value } => FieldError::invalid(field, value.clone(), e.msg.clone()),
            };
            out.push(fe);
        }
    }

    fn push(&mut self, name: Option<String>, msg: String, conv: Conv) {
        self.errs.push(KErr { msg, name, conv });
    }

    fn invalid_type(&mut self, kp: &KPath, type_name: &str, value: &str) {
        let name = kp.render();
        let msg = format!(
            "{} in {} must be of type {}: {}",
            name,
            IN,
            type_name,
            crate::go::strconv::quote(value)
        );
        self.push(
            Some(name),
            msg,
            Conv::TypeInvalid {
                value: BadValue::Str(value.to_string()),
            },
        );
    }

    fn invalid(&mut self, name: String, msg: String, value: BadValue) {
        self.push(Some(name), msg, Conv::Invalid { value });
    }

    /// Errors kube-openapi builds with `errors.New(CompositeErrorCode, ...)`: not
    /// `*errors.Validation`, so they land at the caller's path with the value "".
    fn composite(&mut self, msg: String) {
        self.push(
            None,
            msg,
            Conv::Invalid {
                value: BadValue::Str(String::new()),
            },
        );
    }

    // -----------------------------------------------------------------------------------
    // The schema validator

    /// `SchemaValidator.Validate` for one node, wrapped in ratcheting when `corr` says
    /// the node correlates to an old value. Returns kube-openapi's match count.
    fn node(&mut self, s: &JsonSchemaProps, kp: &KPath, v: &Value, corr: Option<Correlated>) -> u64 {
        let mark = self.errs.len();
        let count = self.node_inner(s, kp, v, corr);
        if let Some(c) = corr {
            if self.errs.len() > mark && c.deep_equal() {
                self.errs.truncate(mark);
            }
        }
        count
    }

    fn node_inner(
        &mut self,
        s: &JsonSchemaProps,
        kp: &KPath,
        v: &Value,
        corr: Option<Correlated>,
    ) -> u64 {
        let types = Types::of(s);
        // The format the release validates (apiextensions strips the others first).
        let format = s.validation_format.as_str();

        if v.is_null() {
            // Only the type and common validators run on null.
            let mut count = 0;
            if !types.is_empty() && !s.nullable {
                self.invalid_type(kp, &types.join(), "null");
            } else {
                count += 1;
            }
            self.enum_check(s, kp, v);
            return count;
        }

        let mut count = 0u64;
        // 1. type
        if !types.is_empty() || !format.is_empty() {
            count += self.type_check(&types, format, kp, v) + 1;
        }
        // 2. allOf/anyOf/oneOf/not/dependencies
        count += self.schema_props(s, kp, v) + 1;
        // 3. string, 4. format
        if let Value::String(str) = v {
            self.string_check(s, kp, str);
            count += 1;
            if formats::is_supported_string_format(format) {
                if !formats::check_format(format, str) {
                    self.invalid_type(kp, format, str);
                }
                count += 1;
            }
        }
        // 5. number
        if let Value::Number(n) = v {
            self.number_check(s, kp, n);
            count += 2;
        }
        // 6. slice
        if let Value::Array(items) = v {
            count += self.slice_check(s, kp, items, corr) + 1;
        }
        // 7. common (enum)
        self.enum_check(s, kp, v);
        count += 1;
        // 8. object
        if let Value::Object(map) = v {
            count += self.object_check(s, kp, map, corr) + 1;
        }
        count + 1
    }

    /// kube-openapi `typeValidator` on a non-null value. Returns its match count.
    #[allow(clippy::nonminimal_bool)] // kept in kube-openapi's shape
    fn type_check(&mut self, types: &Types, format: &str, kp: &KPath, v: &Value) -> u64 {
        let (sch_type, data_format) = match v {
            Value::Bool(_) => ("boolean", ""),
            Value::String(_) => ("string", ""),
            Value::Number(n) => match num(n) {
                Num::Int(_) => ("integer", "int64"),
                Num::Float(_) => ("number", "float64"),
            },
            Value::Array(_) => ("array", ""),
            Value::Object(_) => ("object", ""),
            Value::Null => return 1,
        };
        let is_string_or_slice = matches!(v, Value::String(_) | Value::Array(_));
        let is_float_int = match v {
            Value::Number(n) => match num(n) {
                Num::Float(f) => is_float64_json_integer(f) && types.contains("integer"),
                Num::Int(_) => false,
            },
            _ => false,
        };
        let is_int_float = sch_type == "integer" && types.contains("number");

        if !is_string_or_slice
            && !format.is_empty()
            && !(types.contains(sch_type) || data_format == format || is_float_int || is_int_float)
        {
            self.invalid_type(kp, format, data_format);
            return 0;
        }
        if !(types.contains("number") || types.contains("integer"))
            && !format.is_empty()
            && is_string_or_slice
        {
            return 1;
        }
        if !(types.contains(sch_type) || is_float_int || is_int_float) {
            self.invalid_type(kp, &types.join(), sch_type);
            return 0;
        }
        1
    }

    /// kube-openapi `stringValidator`: maxLength, minLength, pattern; the first failure ends it.
    fn string_check(&mut self, s: &JsonSchemaProps, kp: &KPath, data: &str) {
        let need_len = s.max_length.is_some() || s.min_length.is_some();
        let len = if need_len {
            data.chars().count() as i64
        } else {
            0
        };
        if let Some(max) = s.max_length {
            if len > max {
                let name = kp.render();
                let msg = format!("{} in {} should be at most {} chars long", name, IN, max);
                self.push(
                    Some(name),
                    msg,
                    Conv::TooLong {
                        value: BadValue::Str(data.to_string()),
                        max,
                    },
                );
                return;
            }
        }
        if let Some(min) = s.min_length {
            if len < min {
                let name = kp.render();
                let msg = format!("{} in {} should be at least {} chars long", name, IN, min);
                self.invalid(name, msg, BadValue::Str(data.to_string()));
                return;
            }
        }
        if let Some(pattern) = s.pattern.as_deref() {
            if pattern.is_empty() {
                return;
            }
            let shown = match &s.pattern_re {
                Some(re) => {
                    if re.is_match(data) {
                        return;
                    }
                    pattern.to_string()
                }
                None => match crate::schema::structural::regexp_error(pattern) {
                    // An invalid pattern: kube-openapi reports it on every value.
                    Some(e) => format!("{}, but pattern is invalid: {}", pattern, e),
                    // The schema was not compiled; the pattern is valid after all.
                    None => match crate::go::regexp::compile_re2_shared(pattern) {
                        Some(re) if re.is_match(data) => return,
                        _ => pattern.to_string(),
                    },
                },
            };
            let name = kp.render();
            let msg = format!("{} in {} should match '{}'", name, IN, shown);
            self.invalid(name, msg, BadValue::Str(data.to_string()));
        }
    }

    /// kube-openapi `numberValidator` (with the schema's type and format left out, as
    /// SchemaValidator builds it): multipleOf, maximum, minimum, natively for integers.
    /// kube-openapi `numberValidator`: the value's and each bound's range for the
    /// format (1.36+, `numeric_format_ranges`), then multipleOf, minimum, maximum. A bound
    /// outside the format's range is still applied, compared as float64.
    fn number_check(&mut self, s: &JsonSchemaProps, kp: &KPath, n: &Number) {
        let val = num(n);
        let (data, value) = match val {
            Num::Int(i) => (i as f64, BadValue::Int(i)),
            Num::Float(f) => (f, BadValue::Float(f)),
        };
        let ranged = s.numeric_format_ranges;
        let (ty, format) = (s.type_str(), s.validation_format.as_str());
        // `IsValueValidAgainstRange`: a plain error, reported at the validator's root.
        let in_range = |me: &mut Self, repr: &str, prefix: &str| -> bool {
            if !ranged || fits_format(repr, ty, format) {
                return true;
            }
            // An integer node without a format is checked against int64 and says so.
            let shown = if format.is_empty() {
                format!("{} (default format)", ty)
            } else {
                format!("{} with format {}", ty, format)
            };
            me.composite(format!(
                "{} value must be of type {} in {}",
                prefix,
                shown,
                kp.render()
            ));
            false
        };
        let repr = match val {
            Num::Int(i) => i.to_string(),
            Num::Float(f) => go_format_float_f(f),
        };
        in_range(self, &repr, "Checked");
        if let Some(factor) = s.multiple_of {
            if in_range(self, &go_format_float_f(factor), "MultipleOf") {
                match val {
                    Num::Int(i) => self.multiple_of_int(kp, i, factor),
                    Num::Float(f) => self.multiple_of_float(kp, f, factor, value.clone()),
                }
            } else {
                self.multiple_of_float(kp, data, factor, value.clone());
            }
        }
        if let Some(min) = s.minimum {
            let excl = s.exclusive_minimum;
            match val {
                Num::Int(i) if in_range(self, &go_format_float_f(min), "Minimum boundary") => {
                    let m = go_f64_to_i64(min);
                    if (!excl && i < m) || (excl && i <= m) {
                        let name = kp.render();
                        let msg = min_msg(&name, &m.to_string(), excl);
                        self.invalid(name, msg, BadValue::Int(i));
                    }
                }
                _ => {
                    if matches!(val, Num::Float(_)) {
                        in_range(self, &go_format_float_f(min), "Minimum boundary");
                    }
                    if (!excl && data < min) || (excl && data <= min) {
                        let name = kp.render();
                        let msg = min_msg(&name, &crate::go::fmt::format_float_v(min), excl);
                        self.invalid(name, msg, BadValue::Float(data));
                    }
                }
            }
        }
        if let Some(max) = s.maximum {
            let excl = s.exclusive_maximum;
            match val {
                Num::Int(i) if in_range(self, &go_format_float_f(max), "Maximum boundary") => {
                    let m = go_f64_to_i64(max);
                    if (!excl && i > m) || (excl && i >= m) {
                        let name = kp.render();
                        let msg = max_msg(&name, &m.to_string(), excl);
                        self.invalid(name, msg, BadValue::Int(i));
                    }
                }
                _ => {
                    if matches!(val, Num::Float(_)) {
                        in_range(self, &go_format_float_f(max), "Maximum boundary");
                    }
                    if (!excl && data > max) || (excl && data >= max) {
                        let name = kp.render();
                        let msg = max_msg(&name, &crate::go::fmt::format_float_v(max), excl);
                        self.invalid(name, msg, BadValue::Float(data));
                    }
                }
            }
        }
    }

    /// `MultipleOfInt` with the factor converted as Go's `int64(f)`.
    fn multiple_of_int(&mut self, kp: &KPath, data: i64, factor: f64) {
        let f = go_f64_to_i64(factor);
        if f < 0 {
            let name = kp.render();
            let msg = format!("factor MultipleOf declared for {} must be positive: {}", name, f);
            self.invalid(name, msg, BadValue::Int(f));
        } else if f == 0 {
            // Go divides by zero here (the apiserver's handler recovers the panic); check
            // as a float instead of failing.
            self.multiple_of_float(kp, data as f64, factor, BadValue::Int(data));
        } else if data.wrapping_div(f).wrapping_mul(f) != data {
            let name = kp.render();
            let msg = format!("{} in {} should be a multiple of {}", name, IN, f);
            self.invalid(name, msg, BadValue::Int(data));
        }
    }

    fn multiple_of_float(&mut self, kp: &KPath, data: f64, factor: f64, value: BadValue) {
        if factor < 0.0 {
            let name = kp.render();
            let msg = format!(
                "factor MultipleOf declared for {} must be positive: {}",
                name,
                crate::go::fmt::format_float_v(factor)
            );
            self.invalid(name, msg, BadValue::Float(factor));
            return;
        }
        let mult = if factor < 1.0 {
            1.0 / factor * data
        } else {
            data / factor
        };
        if !is_float64_json_integer(mult) {
            let name = kp.render();
            let msg = format!(
                "{} in {} should be a multiple of {}",
                name,
                IN,
                crate::go::fmt::format_float_v(factor)
            );
            self.invalid(name, msg, value);
        }
    }

    /// kube-openapi `basicCommonValidator`: enum, with Go's conversion rules.
    fn enum_check(&mut self, s: &JsonSchemaProps, kp: &KPath, v: &Value) {
        let Some(allowed) = &s.enum_ else {
            return;
        };
        if allowed.is_empty() {
            return;
        }
        if allowed.iter().any(|e| enum_matches(v, e)) {
            return;
        }
        let name = kp.render();
        let mut listed = String::from("[");
        for (i, e) in allowed.iter().enumerate() {
            if i > 0 {
                listed.push(' ');
            }
            crate::go::fmt::go_v_into(e, &mut listed);
        }
        listed.push(']');
        let msg = format!("{} in {} should be one of {}", name, IN, listed);
        let values = allowed
            .iter()
            .map(|e| match e {
                Value::String(s) => s.clone(),
                other => crate::go::json::json_marshal(other),
            })
            .collect();
        self.push(
            Some(name),
            msg,
            Conv::NotSupported {
                value: BadValue::from_json(v),
                values,
            },
        );
    }

    /// kube-openapi `schemaSliceValidator`. Returns its match count (without the Inc).
    fn slice_check<'c>(
        &mut self,
        s: &JsonSchemaProps,
        kp: &KPath,
        items: &[Value],
        corr: Option<Correlated<'c>>,
    ) -> u64 {
        let mut count = 0u64;
        let size = items.len();
        // Correlation of old items: only x-kubernetes-list-type=map lists correlate.
        let mut old_index: Option<MapListIndex<'c>> = None;
        let child_corr = |i: usize, old_index: &mut Option<MapListIndex<'c>>| -> Option<Correlated<'c>> {
            corr?.index(i, old_index)
        };
        let mut items_size = 0usize;
        match &s.items {
            Some(SchemaOrArray::Schema(item_schema)) => {
                for (i, item) in items.iter().enumerate() {
                    let cc = child_corr(i, &mut old_index);
                    count += self.node(item_schema, &KPath::Index(kp, i), item, cc);
                }
            }
            Some(SchemaOrArray::Array(schemas)) if !schemas.is_empty() => {
                items_size = schemas.len();
                for (i, sch) in schemas.iter().enumerate() {
                    if i >= size {
                        break;
                    }
                    // Tuple items never correlate (the correlation schema has no `items`).
                    count += self.node(sch, &KPath::Index(kp, i), &items[i], None);
                }
            }
            _ => {}
        }
        if let Some(ai) = &s.additional_items {
            if items_size < size {
                let is_tuple = matches!(&s.items, Some(SchemaOrArray::Array(a)) if !a.is_empty());
                if is_tuple && matches!(ai, SchemaOrBool::Bool(false)) {
                    self.composite("array doesn't allow for additional items".to_string());
                }
                if let SchemaOrBool::Schema(ai_schema) = ai {
                    // kube-openapi's bound is `size-itemsSize+1`; stay within the list.
                    let end = (size - items_size + 1).min(size);
                    for (i, item) in items.iter().enumerate().take(end).skip(items_size) {
                        let cc = child_corr(i, &mut old_index);
                        count += self.node(ai_schema, &KPath::Index(kp, i), item, cc);
                    }
                }
            }
        }
        let size = size as i64;
        if let Some(min) = s.min_items {
            if size < min {
                let name = kp.render();
                let msg = format!("{} in {} should have at least {} items", name, IN, min);
                self.invalid(name, msg, BadValue::Int(size));
            }
        }
        if let Some(max) = s.max_items {
            if size > max {
                let name = kp.render();
                let msg = format!("{} in {} should have at most {} items", name, IN, max);
                self.push(Some(name), msg, Conv::TooMany { actual: size, max });
            }
        }
        if s.unique_items && has_duplicates(items) {
            let name = kp.render();
            let msg = format!("{} in {} shouldn't contain duplicates", name, IN);
            self.invalid(name, msg, BadValue::Str(String::new()));
        }
        count
    }

    /// kube-openapi `objectValidator`. Returns its match count.
    fn object_check<'c>(
        &mut self,
        s: &JsonSchemaProps,
        kp: &KPath,
        map: &Map<String, Value>,
        corr: Option<Correlated<'c>>,
    ) -> u64 {
        let mut count = 0u64;
        let n = map.len() as i64;
        // Before kube-openapi#412 a property-count error is the object validator's whole
        // result: no property, required field or pattern below is looked at.
        let short_circuits = !self.kube.has(Feature::ObjectValidatorVisitsAll);
        if let Some(min) = s.min_properties {
            if n < min {
                let name = kp.render();
                let msg = format!("{} in {} should have at least {} properties", name, IN, min);
                self.invalid(name, msg, BadValue::Int(n));
                if short_circuits {
                    return 0;
                }
            }
        }
        if let Some(max) = s.max_properties {
            if n > max {
                let name = kp.render();
                let msg = format!("{} in {} should have at most {} properties", name, IN, max);
                self.push(Some(name), msg, Conv::TooMany { actual: n, max });
                if short_circuits {
                    return 0;
                }
            }
        }

        let root = kp.is_root();
        let field_corr = |field: &str| field_corr(root, corr, field);

        let has_patterns = !s.pattern_properties.is_empty();
        let patterns: Vec<(&String, &JsonSchemaProps, Option<regex::Regex>)> = if has_patterns {
            s.pattern_properties
                .iter()
                .map(|(p, sch)| (p, &**sch, crate::go::regexp::compile_re2(p).ok()))
                .collect()
        } else {
            Vec::new()
        };

        if matches!(s.additional_properties, Some(SchemaOrBool::Bool(false))) {
            for k in map.keys() {
                let regular = s.properties.contains_key(k);
                let matched = patterns
                    .iter()
                    .any(|(_, _, re)| re.as_ref().is_some_and(|r| r.is_match(k)));
                if !regular && !matched {
                    let name = kp.render();
                    let msg = format!("{}.{} in {} is a forbidden property", name, k, IN);
                    self.invalid(name, msg, BadValue::Str(k.clone()));
                }
            }
        } else {
            for (k, val) in map {
                let regular = s.properties.contains_key(k);
                let matched = if has_patterns {
                    self.pattern_props(&patterns, kp, k, val, &mut count, corr)
                } else {
                    false
                };
                if !(regular || matched) {
                    if let Some(SchemaOrBool::Schema(ap)) = &s.additional_properties {
                        count += self.node(ap, &KPath::Dot(kp, k), val, field_corr(k));
                    }
                }
            }
        }

        for (pname, pschema) in &s.properties {
            if let Some(val) = map.get(pname) {
                count += self.node(pschema, &KPath::Prop(kp, pname), val, field_corr(pname));
            }
        }

        for k in &s.required {
            if !map.contains_key(k) {
                let name = KPath::Dot(kp, k).render();
                let msg = format!("{} in {} is required", name, IN);
                self.push(Some(name), msg, Conv::Required);
            }
        }

        if has_patterns {
            for (k, val) in map {
                let regular = s.properties.contains_key(k);
                let matched = self.pattern_props(&patterns, kp, k, val, &mut count, corr);
                if !regular && matched {
                    for (_, sch, re) in &patterns {
                        if re.as_ref().is_some_and(|r| r.is_match(k)) {
                            count += self.node(sch, &KPath::Dot(kp, k), val, field_corr(k));
                        }
                    }
                }
            }
        }
        count
    }

    /// `validatePatternProperty`: validates `val` against every matching pattern schema.
    fn pattern_props(
        &mut self,
        patterns: &[(&String, &JsonSchemaProps, Option<regex::Regex>)],
        kp: &KPath,
        key: &str,
        val: &Value,
        count: &mut u64,
        corr: Option<Correlated>,
    ) -> bool {
        let mut matched = false;
        for (_, sch, re) in patterns {
            if re.as_ref().is_some_and(|r| r.is_match(key)) {
                matched = true;
                *count += self.node(
                    sch,
                    &KPath::Dot(kp, key),
                    val,
                    field_corr(kp.is_root(), corr, key),
                );
            }
        }
        matched
    }

    /// kube-openapi `schemaPropsValidator`: anyOf, oneOf, allOf, not, dependencies. The
    /// sub-schemas validate without ratcheting hooks. Returns its match count (w/o Inc).
    fn schema_props(&mut self, s: &JsonSchemaProps, kp: &KPath, v: &Value) -> u64 {
        let mut count = 0u64;

        if !s.any_of.is_empty() {
            let mut best: Option<(u64, Vec<KErr>)> = None;
            let mut first_success: Option<u64> = None;
            for sub in &s.any_of {
                let mark = self.errs.len();
                let c = self.node(sub, kp, v, None);
                let errs = self.errs.split_off(mark);
                if errs.is_empty() {
                    best = None;
                    first_success = Some(c);
                    break;
                }
                if best.as_ref().is_none_or(|(bc, _)| c > *bc) {
                    best = Some((c, errs));
                }
            }
            if first_success.is_none() {
                self.composite(format!(
                    "{} must validate at least one schema (anyOf)",
                    crate::go::strconv::quote(&kp.render())
                ));
            }
            if let Some((c, errs)) = best {
                count += c;
                self.errs.extend(errs);
            } else if let Some(c) = first_success {
                count += c;
            }
        }

        if !s.one_of.is_empty() {
            let mut best: Option<(u64, Vec<KErr>)> = None;
            let mut first_success: Option<u64> = None;
            let mut validated = 0usize;
            for sub in &s.one_of {
                let mark = self.errs.len();
                let c = self.node(sub, kp, v, None);
                let errs = self.errs.split_off(mark);
                if errs.is_empty() {
                    validated += 1;
                    best = None;
                    if first_success.is_none() {
                        first_success = Some(c);
                    }
                    continue;
                }
                if validated == 0 && best.as_ref().is_none_or(|(bc, _)| c > *bc) {
                    best = Some((c, errs));
                }
            }
            if validated != 1 {
                let additional = if validated == 0 {
                    "Found none valid".to_string()
                } else {
                    format!("Found {} valid alternatives", validated)
                };
                self.composite(format!(
                    "{} must validate one and only one schema (oneOf). {}",
                    crate::go::strconv::quote(&kp.render()),
                    additional
                ));
                if let Some((c, errs)) = best {
                    count += c;
                    self.errs.extend(errs);
                }
            } else if let Some(c) = first_success {
                count += c;
            }
        }

        if !s.all_of.is_empty() {
            let mut validated = 0usize;
            for sub in &s.all_of {
                let mark = self.errs.len();
                count += self.node(sub, kp, v, None);
                if self.errs.len() == mark {
                    validated += 1;
                }
            }
            if validated != s.all_of.len() {
                let additional = if validated == 0 {
                    ". None validated"
                } else {
                    ""
                };
                self.composite(format!(
                    "{} must validate all the schemas (allOf){}",
                    crate::go::strconv::quote(&kp.render()),
                    additional
                ));
            }
        }

        if let Some(not) = &s.not {
            let mark = self.errs.len();
            self.node(not, kp, v, None);
            let failed = self.errs.len() > mark;
            self.errs.truncate(mark);
            if !failed {
                self.composite(format!(
                    "{} must not validate the schema (not)",
                    crate::go::strconv::quote(&kp.render())
                ));
            }
        }

        if !s.dependencies.is_empty() {
            if let Value::Object(map) = v {
                for key in map.keys() {
                    match s.dependencies.get(key) {
                        Some(SchemaOrStringArray::Schema(dep)) => {
                            count += self.node(dep, &KPath::Dot(kp, key), v, None);
                        }
                        Some(SchemaOrStringArray::Strings(props)) => {
                            for dk in props {
                                if !map.contains_key(dk) {
                                    self.composite(format!(
                                        "{} has a dependency on {}",
                                        crate::go::strconv::quote(&kp.render()),
                                        dk
                                    ));
                                }
                            }
                        }
                        None => {}
                    }
                }
            }
        }
        count
    }
}

/// The correlated child for a property (SubPropertyValidator): none for apiVersion/kind at
/// the root, whose changes cannot be seen.
fn field_corr<'c>(root: bool, corr: Option<Correlated<'c>>, field: &str) -> Option<Correlated<'c>> {
    if root && (field == "kind" || field == "apiVersion") {
        return None;
    }
    corr?.key(field)
}

fn max_msg(name: &str, max: &str, exclusive: bool) -> String {
    if exclusive {
        format!("{} in {} should be less than {}", name, IN, max)
    } else {
        format!("{} in {} should be less than or equal to {}", name, IN, max)
    }
}

fn min_msg(name: &str, min: &str, exclusive: bool) -> String {
    if exclusive {
        format!("{} in {} should be greater than {}", name, IN, min)
    } else {
        format!(
            "{} in {} should be greater than or equal to {}",
            name, IN, min
        )
    }
}

// ---------------------------------------------------------------------------------------
// Types, formats, numbers

/// The schema's `type` as kube-openapi sees it: int-or-string is `[integer, string]`.
struct Types<'a> {
    one: Option<&'a str>,
    int_or_string: bool,
}

impl<'a> Types<'a> {
    fn of(s: &'a JsonSchemaProps) -> Types<'a> {
        if s.x_int_or_string {
            return Types {
                one: None,
                int_or_string: true,
            };
        }
        Types {
            one: s.type_.as_deref().filter(|t| !t.is_empty()),
            int_or_string: false,
        }
    }
    fn is_empty(&self) -> bool {
        self.one.is_none() && !self.int_or_string
    }
    fn contains(&self, t: &str) -> bool {
        if self.int_or_string {
            return t == "integer" || t == "string";
        }
        self.one == Some(t)
    }
    fn join(&self) -> String {
        if self.int_or_string {
            "integer,string".to_string()
        } else {
            self.one.unwrap_or("").to_string()
        }
    }
}

/// Go's `strconv.FormatFloat(f, 'f', -1, 64)` (swag's `FormatFloat64`): the shortest
/// digits that read back as `f`, never an exponent — what Rust's `Display` prints.
fn go_format_float_f(f: f64) -> String {
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_string();
    }
    format!("{}", f)
}

/// Whether a number's decimal text converts to the format's Go type without a range or
/// syntax error (kube-openapi `IsValueValidAgainstRange`: `strconv.ParseInt(s, 10, 32|64)`,
/// `strconv.ParseFloat(s, 32)`; `double` has nothing to check).
fn fits_format(repr: &str, ty: &str, format: &str) -> bool {
    match (ty, format) {
        ("integer", "int32") => repr.parse::<i32>().is_ok(),
        ("integer", _) => repr.parse::<i64>().is_ok(),
        (_, "float") => repr.parse::<f32>().map(|f| f.is_finite()).unwrap_or(false),
        _ => true,
    }
}

#[derive(Clone, Copy)]
enum Num {
    Int(i64),
    Float(f64),
}

/// A JSON number as the apiserver holds it: int64 when it fits, float64 otherwise.
fn num(n: &Number) -> Num {
    match n.as_i64() {
        Some(i) => Num::Int(i),
        None => Num::Float(n.as_f64().unwrap_or(0.0)),
    }
}

/// 2^63 as a float64.
const TWO_63: f64 = 9_223_372_036_854_775_808.0;

/// Go's `int64(f)` on amd64: out-of-range values (and NaN) become math.MinInt64.
fn go_f64_to_i64(f: f64) -> i64 {
    if f.is_nan() || !(-TWO_63..TWO_63).contains(&f) {
        i64::MIN
    } else {
        f.trunc() as i64
    }
}

/// Go's `uint64(f)` on amd64 (for positive values below 2^63 a truncation; otherwise the
/// bits of the int64 conversion, or the 2^63-offset conversion above 2^63).
fn go_f64_to_u64(f: f64) -> u64 {
    if f.is_nan() {
        return 1 << 63;
    }
    if f < TWO_63 {
        go_f64_to_i64(f) as u64
    } else if f < 2.0 * TWO_63 {
        ((f - TWO_63) as i64 as u64) ^ (1 << 63)
    } else {
        1 << 63
    }
}

/// swag `IsFloat64AJSONInteger`.
fn is_float64_json_integer(f: f64) -> bool {
    const MAX_JSON_FLOAT: f64 = 9007199254740991.0; // 1<<53 - 1
    const EPSILON: f64 = 1e-9;
    if f.is_nan() || !(-MAX_JSON_FLOAT..=MAX_JSON_FLOAT).contains(&f) {
        return false;
    }
    let fa = f.abs();
    let g = go_f64_to_u64(f) as f64;
    let ga = g.abs();
    let diff = (f - g).abs();
    if f == g {
        return true;
    }
    if f == go_f64_to_i64(f) as f64 || f == go_f64_to_u64(f) as f64 {
        return true;
    }
    if f == 0.0 || g == 0.0 || diff < f64::MIN_POSITIVE * f64::EPSILON {
        // math.SmallestNonzeroFloat64 is the smallest subnormal.
        let smallest = f64::from_bits(1);
        return diff < EPSILON * smallest;
    }
    diff / (fa + ga).min(f64::MAX) < EPSILON
}

/// `reflect.Value.Convert` + `reflect.DeepEqual` as basicCommonValidator compares a value
/// with one enum entry.
fn enum_matches(data: &Value, e: &Value) -> bool {
    match (data, e) {
        (Value::Null, _) | (_, Value::Null) => false,
        (Value::String(a), Value::String(b)) => a == b,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Number(a), Value::Number(b)) => match (num(a), num(b)) {
            (Num::Int(x), Num::Int(y)) => x == y,
            (Num::Int(x), Num::Float(y)) => (x as f64) == y,
            (Num::Float(x), Num::Int(y)) => go_f64_to_i64(x) == y,
            (Num::Float(x), Num::Float(y)) => x == y,
        },
        // An int64 converts to a string as a rune.
        (Value::Number(a), Value::String(b)) => match num(a) {
            Num::Int(x) => {
                let r = u32::try_from(x)
                    .ok()
                    .and_then(char::from_u32)
                    .unwrap_or('\u{FFFD}');
                let mut buf = [0u8; 4];
                b.as_str() == &*r.encode_utf8(&mut buf)
            }
            Num::Float(_) => false,
        },
        (Value::Array(_), Value::Array(_)) | (Value::Object(_), Value::Object(_)) => data == e,
        _ => false,
    }
}


fn has_duplicates(items: &[Value]) -> bool {
    for i in 0..items.len() {
        for j in 0..i {
            if items[i] == items[j] {
                return true;
            }
        }
    }
    false
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

    fn msgs(s: &JsonSchemaProps, v: Value) -> Vec<String> {
        let mut errs = Vec::new();
        validate(s, &Path::root(), &v, &mut errs);
        let mut m: Vec<String> = errs.iter().map(|e| e.message()).collect();
        crate::go::sort::sort(&mut m);
        m
    }

    fn upd(s: &JsonSchemaProps, v: Value, old: Value, ratcheting: bool) -> Vec<String> {
        let mut errs = Vec::new();
        validate_update(s, &Path::root(), &v, &old, ratcheting, &mut errs);
        let mut m: Vec<String> = errs.iter().map(|e| e.message()).collect();
        crate::go::sort::sort(&mut m);
        m
    }

    fn spec(props: Value) -> JsonSchemaProps {
        schema(
            json!({"type": "object", "properties": {"spec": {"type": "object", "properties": props}}}),
        )
    }

    #[test]
    fn handmade_f() {
        let s = spec(json!({
            "code": {"type": "string", "pattern": "^[a-z]{3}$"},
            "color": {"type": "string", "enum": ["red", "green", "blue"]},
            "label": {"type": "string", "maxLength": 5},
            "tags": {"type": "array", "maxItems": 2, "items": {"type": "string"}}
        }));
        let m = msgs(
            &s,
            json!({"spec": {"code": "ABCD", "color": "purple", "label": "much-too-long", "tags": ["a", "b", "c"]}}),
        );
        assert_eq!(
            m,
            vec![
                r#"spec.code: Invalid value: "ABCD": spec.code in body should match '^[a-z]{3}$'"#,
                r#"spec.color: Unsupported value: "purple": supported values: "red", "green", "blue""#,
                "spec.label: Too long: may not be more than 5 bytes",
                "spec.tags: Too many: 3: must have at most 2 items",
            ]
        );
    }

    #[test]
    fn types() {
        let s = spec(json!({
            "replicas": {"type": "integer"},
            "n": {"type": "number"},
            "b": {"type": "boolean"},
            "o": {"type": "object"},
            "a": {"type": "array"},
            "i32": {"type": "integer", "format": "int32"}
        }));
        assert_eq!(
            msgs(&s, json!({"spec": {"replicas": "three"}})),
            vec![
                r#"spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string""#
            ]
        );
        // 1.0 is an integer for kube-openapi; ints are numbers.
        assert!(msgs(&s, json!({"spec": {"replicas": 1.0, "n": 3}})).is_empty());
        assert_eq!(
            msgs(&s, json!({"spec": {"replicas": 1.5}})),
            vec![
                // 1.36: an integer without a format is range-checked as int64.
                r#"<nil>: Invalid value: "": Checked value must be of type integer (default format) in spec.replicas"#,
                r#"spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number""#,
            ]
        );
        // Beyond int64 the apiserver holds a float64 ("100000000000000000000" is no int64,
        // nor, beyond 2^53, a JSON integer for swag).
        assert_eq!(
            msgs(&s, json!({"spec": {"replicas": 1e20}})),
            vec![
                r#"<nil>: Invalid value: "": Checked value must be of type integer (default format) in spec.replicas"#,
                r#"spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number""#,
            ]
        );
        // An int-or-string value: the anyOf branch `type: integer` is range-checked too.
        let ios = spec(json!({
            "m": {"x-kubernetes-int-or-string": true,
                  "anyOf": [{"type": "integer"}, {"type": "string"}]}
        }));
        assert_eq!(
            msgs(&ios, json!({"spec": {"m": 1.5}})),
            vec![
                r#"<nil>: Invalid value: "": "spec.m" must validate at least one schema (anyOf)"#,
                r#"<nil>: Invalid value: "": Checked value must be of type integer (default format) in spec.m"#,
                r#"spec.m: Invalid value: "number": spec.m in body must be of type integer,string: "number""#,
                r#"spec.m: Invalid value: "number": spec.m in body must be of type integer: "number""#,
            ]
        );
        assert_eq!(
            msgs(&s, json!({"spec": {"b": 1, "o": [], "a": {}}})),
            vec![
                r#"spec.a: Invalid value: "object": spec.a in body must be of type array: "object""#,
                r#"spec.b: Invalid value: "integer": spec.b in body must be of type boolean: "integer""#,
                r#"spec.o: Invalid value: "array": spec.o in body must be of type object: "array""#,
            ]
        );
        // With a format, a non-string mismatch reports the format.
        assert_eq!(
            msgs(&s, json!({"spec": {"i32": true}})),
            vec![r#"spec.i32: Invalid value: "": spec.i32 in body must be of type int32: """#]
        );
        assert_eq!(
            msgs(&s, json!({"spec": {"i32": "x"}})),
            vec![
                r#"spec.i32: Invalid value: "string": spec.i32 in body must be of type integer: "string""#
            ]
        );
        // 1.36 checks the value against the format's range (a plain kube-openapi error,
        // reported at the validator's root).
        assert_eq!(
            msgs(&s, json!({"spec": {"i32": 99999999999i64}})),
            vec![r#"<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.i32"#]
        );
        let mut errs = Vec::new();
        validate(
            &s,
            &Path::root(),
            &json!({"spec": {"replicas": "x"}}),
            &mut errs,
        );
        assert!(errs[0].is_blocking());
    }

    #[test]
    fn nullable_and_null() {
        let s = spec(json!({
            "a": {"type": "string"},
            "b": {"type": "string", "nullable": true},
            "c": {"type": "string", "nullable": true, "enum": ["x"]}
        }));
        assert_eq!(
            msgs(&s, json!({"spec": {"a": null, "b": null}})),
            vec![r#"spec.a: Invalid value: "null": spec.a in body must be of type string: "null""#]
        );
        // null never matches an enum.
        assert_eq!(
            msgs(&s, json!({"spec": {"c": null}})),
            vec![r#"spec.c: Unsupported value: null: supported values: "x""#]
        );
    }

    #[test]
    fn int_or_string() {
        let s = spec(
            json!({"p": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]}}),
        );
        assert!(msgs(&s, json!({"spec": {"p": 1}})).is_empty());
        assert!(msgs(&s, json!({"spec": {"p": "50%"}})).is_empty());
        let m = msgs(&s, json!({"spec": {"p": true}}));
        assert!(m.contains(
            &r#"spec.p: Invalid value: "boolean": spec.p in body must be of type integer,string: "boolean""#.to_string()
        ));
        assert!(m.contains(
            &r#"<nil>: Invalid value: "": "spec.p" must validate at least one schema (anyOf)"#
                .to_string()
        ));
        assert!(m.contains(&r#"spec.p: Invalid value: "boolean": spec.p in body must be of type integer: "boolean""#.to_string()));
        assert_eq!(m.len(), 3);
    }

    #[test]
    fn numbers() {
        let s = spec(json!({
            "k": {"type": "integer", "minimum": 2048, "maximum": 8192, "multipleOf": 1024},
            "f": {"type": "number", "minimum": 0.5, "exclusiveMaximum": true, "maximum": 1000000},
            "m": {"type": "number", "multipleOf": 0.1}
        }));
        assert_eq!(
            msgs(&s, json!({"spec": {"k": 1024}})),
            vec!["spec.k: Invalid value: 1024: spec.k in body should be greater than or equal to 2048"]
        );
        assert_eq!(
            msgs(&s, json!({"spec": {"k": 9216}})),
            vec![
                "spec.k: Invalid value: 9216: spec.k in body should be less than or equal to 8192"
            ]
        );
        assert_eq!(
            msgs(&s, json!({"spec": {"k": 3000}})),
            vec!["spec.k: Invalid value: 3000: spec.k in body should be a multiple of 1024"]
        );
        assert_eq!(
            msgs(&s, json!({"spec": {"f": 0.25}})),
            vec!["spec.f: Invalid value: 0.25: spec.f in body should be greater than or equal to 0.5"]
        );
        assert_eq!(
            msgs(&s, json!({"spec": {"f": 1e6}})),
            vec!["spec.f: Invalid value: 1e+06: spec.f in body should be less than 1e+06"]
        );
        assert!(msgs(&s, json!({"spec": {"m": 0.3}})).is_empty());
        assert_eq!(
            msgs(&s, json!({"spec": {"m": 0.35}})),
            vec!["spec.m: Invalid value: 0.35: spec.m in body should be a multiple of 0.1"]
        );
    }

    #[test]
    fn strings_and_formats() {
        let s = spec(json!({
            "min": {"type": "string", "minLength": 1},
            "ip": {"type": "string", "format": "ipv4"},
            "uuid": {"type": "string", "format": "uuid", "minLength": 36},
            "unknown": {"type": "string", "format": "bogus-format"},
            "ip2": {"type": "string", "format": "ip"},
            "unicode": {"type": "string", "maxLength": 3}
        }));
        assert_eq!(
            msgs(&s, json!({"spec": {"min": ""}})),
            vec![
                r#"spec.min: Invalid value: "": spec.min in body should be at least 1 chars long"#
            ]
        );
        assert_eq!(
            msgs(&s, json!({"spec": {"ip": "999.999.999.999"}})),
            vec![
                r#"spec.ip: Invalid value: "999.999.999.999": spec.ip in body must be of type ipv4: "999.999.999.999""#
            ]
        );
        assert_eq!(
            msgs(&s, json!({"spec": {"uuid": "not-a-uuid"}})),
            vec![
                r#"spec.uuid: Invalid value: "not-a-uuid": spec.uuid in body must be of type uuid: "not-a-uuid""#,
                r#"spec.uuid: Invalid value: "not-a-uuid": spec.uuid in body should be at least 36 chars long"#,
            ]
        );
        assert!(msgs(
            &s,
            json!({"spec": {"unknown": "x", "ip2": "nope", "unicode": "äöü"}})
        )
        .is_empty());
        let mut errs = Vec::new();
        validate(&s, &Path::root(), &json!({"spec": {"ip": "x"}}), &mut errs);
        assert!(errs[0].is_blocking());
    }

    #[test]
    fn objects_and_lists() {
        let s = spec(json!({
            "o": {"type": "object", "minProperties": 1, "maxProperties": 2, "additionalProperties": {"type": "string"}},
            "l": {"type": "array", "minItems": 1, "items": {"type": "integer"}},
            "r": {"type": "object", "required": ["x", "y"], "properties": {"x": {"type": "string"}}},
            "closed": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}
        }));
        assert_eq!(
            msgs(&s, json!({"spec": {"o": {}, "l": []}})),
            vec![
                "spec.l: Invalid value: 0: spec.l in body should have at least 1 items",
                "spec.o: Invalid value: 0: spec.o in body should have at least 1 properties",
            ]
        );
        assert_eq!(
            msgs(
                &s,
                json!({"spec": {"o": {"a": "1", "b": 2, "c": "3"}, "l": [1, "x"]}})
            ),
            vec![
                r#"spec.l[1]: Invalid value: "string": spec.l[1] in body must be of type integer: "string""#,
                r#"spec.o.b: Invalid value: "integer": spec.o.b in body must be of type string: "integer""#,
                "spec.o: Too many: 3: must have at most 2 items",
            ]
        );
        assert_eq!(
            msgs(&s, json!({"spec": {"r": {}}})),
            vec!["spec.r.x: Required value", "spec.r.y: Required value"]
        );
        assert_eq!(
            msgs(&s, json!({"spec": {"closed": {"a": "1", "b": 1}}})),
            vec![
                r#"spec.closed: Invalid value: "b": spec.closed.b in body is a forbidden property"#
            ]
        );
        // Root-level required and additionalProperties names start with a dot.
        let root = schema(
            json!({"type": "object", "required": ["spec"], "additionalProperties": {"type": "string"}}),
        );
        assert_eq!(
            msgs(&root, json!({"x": 1})),
            vec![
                "spec: Required value",
                r#"x: Invalid value: "integer": .x in body must be of type string: "integer""#,
            ]
        );
    }

    #[test]
    fn status_paths_are_relative() {
        let s = schema(
            json!({"type": "object", "properties": {"conditionalUpdates": {"type": "array", "items": {
            "type": "object", "properties": {"riskNames": {"type": "array", "minItems": 1, "items": {"type": "string"}}}}}}}),
        );
        let mut errs = Vec::new();
        validate(
            &s,
            &Path::new("status"),
            &json!({"conditionalUpdates": [{"riskNames": []}]}),
            &mut errs,
        );
        assert_eq!(
            errs[0].message(),
            "status.conditionalUpdates[0].riskNames: Invalid value: 0: conditionalUpdates[0].riskNames in body should have at least 1 items"
        );
    }

    /// kube-openapi before #412 (releases before 1.28): a property-count error is the
    /// object validator's whole result; from 1.28 the properties and `required` follow.
    #[test]
    fn property_count_errors_end_the_object_before_1_28() {
        let s = schema(json!({"type": "object", "properties": {"cfg": {"type": "object", "minProperties": 2,
            "required": ["x"], "properties": {"x": {"type": "string"}, "y": {"type": "integer", "minimum": 5}}}}}));
        let v = json!({"cfg": {"y": 1}});
        let run = |minor| {
            let mut errs = Vec::new();
            let kube = KubeVersion { minor };
            validate_for(kube, &s, &Path::root(), &v, &mut errs);
            // Field and detail (the value printed is the converter's business).
            let mut m = errs.iter().map(|e| format!("{}: {}", e.field, e.detail)).collect::<Vec<_>>();
            crate::go::sort::sort(&mut m);
            m
        };
        assert_eq!(run(27), vec!["cfg: cfg in body should have at least 2 properties"]);
        assert_eq!(
            run(28),
            vec![
                "cfg.x: ",
                "cfg.y: cfg.y in body should be greater than or equal to 5",
                "cfg: cfg in body should have at least 2 properties",
            ]
        );
    }

    #[test]
    fn enums() {
        let s = spec(json!({
            "n": {"enum": [1, 2.5, null, {"a": 1}, "x"]},
            "i": {"type": "integer", "enum": [1, 2]}
        }));
        assert!(msgs(&s, json!({"spec": {"n": 1}})).is_empty());
        assert!(msgs(&s, json!({"spec": {"n": 2.5}})).is_empty());
        assert!(msgs(&s, json!({"spec": {"n": {"a": 1}}})).is_empty());
        // Go converts a float to the enum's int64 type: 1.7 -> 1.
        assert!(msgs(&s, json!({"spec": {"n": 1.7}})).is_empty());
        assert_eq!(
            msgs(&s, json!({"spec": {"n": 3}})),
            vec![
                r#"spec.n: Unsupported value: 3: supported values: "1", "2.5", "null", "{\"a\":1}", "x""#
            ]
        );
        assert_eq!(
            msgs(&s, json!({"spec": {"i": 3}})),
            vec![r#"spec.i: Unsupported value: 3: supported values: "1", "2""#]
        );
    }

    #[test]
    fn composition() {
        let s = spec(json!({
            "one": {"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}]},
            "all": {"type": "string", "allOf": [{"minLength": 2}, {"maxLength": 3}]},
            "not": {"type": "string", "not": {"enum": ["bad"]}}
        }));
        assert!(msgs(&s, json!({"spec": {"one": {"a": 1}}})).is_empty());
        assert_eq!(
            msgs(&s, json!({"spec": {"one": {"a": 1, "b": 2}}})),
            vec![
                r#"<nil>: Invalid value: "": "spec.one" must validate one and only one schema (oneOf). Found 2 valid alternatives"#
            ]
        );
        let m = msgs(&s, json!({"spec": {"one": {}}}));
        assert_eq!(
            m,
            vec![
                r#"<nil>: Invalid value: "": "spec.one" must validate one and only one schema (oneOf). Found none valid"#,
                "spec.one.a: Required value",
            ]
        );
        assert_eq!(
            msgs(&s, json!({"spec": {"all": "a"}})),
            vec![
                r#"<nil>: Invalid value: "": "spec.all" must validate all the schemas (allOf)"#,
                r#"spec.all: Invalid value: "a": spec.all in body should be at least 2 chars long"#,
            ]
        );
        assert_eq!(
            msgs(&s, json!({"spec": {"not": "bad"}})),
            vec![r#"<nil>: Invalid value: "": "spec.not" must not validate the schema (not)"#]
        );
    }

    #[test]
    fn ratcheting() {
        let s = spec(json!({
            "code": {"type": "string", "pattern": "^[a-z]{3}$"},
            "color": {"type": "string", "enum": ["red"]},
            "label": {"type": "string", "maxLength": 5}
        }));
        let old = json!({"spec": {"code": "abc", "color": "red", "label": "much-too-long"}});
        let new = json!({"spec": {"code": "ABCD", "color": "red", "label": "much-too-long"}});
        assert_eq!(
            upd(&s, new.clone(), old.clone(), true),
            vec![
                r#"spec.code: Invalid value: "ABCD": spec.code in body should match '^[a-z]{3}$'"#
            ]
        );
        assert_eq!(upd(&s, new.clone(), old.clone(), false).len(), 2);
        // An unchanged invalid value whose parent changed is still ratcheted.
        let new2 =
            json!({"spec": {"code": "abc", "color": "red", "label": "much-too-long", "x": 1}});
        assert!(upd(&s, new2, old, true).is_empty());
    }

    #[test]
    fn required_is_not_ratcheted() {
        let s = schema(
            json!({"type": "object", "properties": {"spec": {"type": "object", "required": ["a"],
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}}}),
        );
        // The object changed (b), so its missing required field is reported.
        let m = upd(
            &s,
            json!({"spec": {"b": "2"}}),
            json!({"spec": {"b": "1"}}),
            true,
        );
        assert_eq!(m, vec!["spec.a: Required value"]);
        // Nothing changed: the whole object is ratcheted.
        assert!(upd(
            &s,
            json!({"spec": {"b": "1"}}),
            json!({"spec": {"b": "1"}}),
            true
        )
        .is_empty());
    }

    #[test]
    fn ratcheting_lists() {
        let s = spec(json!({
            "m": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                  "items": {"type": "object", "properties": {"name": {"type": "string"}, "v": {"type": "string", "maxLength": 1}}}},
            "atomic": {"type": "array", "items": {"type": "string", "maxLength": 1}}
        }));
        // Map lists correlate by key, whatever the order.
        let old = json!({"spec": {"m": [{"name": "a", "v": "long"}, {"name": "b", "v": "x"}], "atomic": ["long", "x"]}});
        let new = json!({"spec": {"m": [{"name": "b", "v": "y"}, {"name": "a", "v": "long"}], "atomic": ["long", "y"]}});
        assert_eq!(
            upd(&s, new, old, true),
            vec!["spec.atomic[0]: Too long: may not be more than 1 byte"]
        );
    }

    #[test]
    fn invalid_pattern() {
        let s = spec(json!({"p": {"type": "string", "pattern": "("}}));
        assert_eq!(
            msgs(&s, json!({"spec": {"p": "x"}})),
            vec!["spec.p: Invalid value: \"x\": spec.p in body should match '(, but pattern is invalid: error parsing regexp: missing closing ): `(`'"]
        );
    }

    #[test]
    fn float_integers() {
        assert!(is_float64_json_integer(1.0));
        assert!(is_float64_json_integer(-3.0));
        assert!(!is_float64_json_integer(1.5));
        assert!(!is_float64_json_integer(-2.5));
        assert!(!is_float64_json_integer(0.5));
        assert!(is_float64_json_integer(1000000000.5)); // relative error below 1e-9
        assert!(!is_float64_json_integer(1e300));
    }
}

#[cfg(test)]
mod robustness {
    use super::*;
    use serde_json::json;

    /// Odd values against odd schemas: no panics.
    #[test]
    fn no_panics() {
        let schemas = [
            json!({"type": "integer", "multipleOf": 0.5, "minimum": 1e300, "maximum": -1e300}),
            json!({"type": "integer", "multipleOf": -3, "exclusiveMinimum": true, "minimum": 5}),
            json!({"type": "number", "multipleOf": 0.0}),
            json!({"type": "string", "pattern": "(", "format": "quantity", "maxLength": -1, "minLength": 1000}),
            json!({"type": "array", "items": [{"type": "string"}], "additionalItems": {"type": "integer"}, "uniqueItems": true}),
            json!({"type": "array", "items": [{"type": "string"}], "additionalItems": false, "minItems": 5, "maxItems": 0}),
            json!({"type": "object", "patternProperties": {"^a": {"type": "string"}, "(": {}}, "additionalProperties": false,
                   "dependencies": {"a": ["b"], "c": {"required": ["d"]}}, "minProperties": 9, "maxProperties": 0}),
            json!({"x-kubernetes-int-or-string": true, "format": "date-time", "enum": [65, "A", null, [1], {"a": {}}],
                   "anyOf": [{"type": "integer"}], "oneOf": [{}, {}], "not": {}, "allOf": [{"type": "boolean"}]}),
            json!({"format": "email"}),
            json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k", "j"],
                   "items": {"type": "object", "properties": {"k": {"type": "string", "maxLength": 0}}}}),
        ];
        let values = [
            json!(null),
            json!(18446744073709551615u64),
            json!(-9223372036854775808i64),
            json!(1e308),
            json!(-0.0),
            json!(65),
            json!(""),
            json!("1.5Gi"),
            json!("a@b"),
            json!([1, 1, "x", null, [], {}]),
            json!([{"k": "a", "j": 1.5}, {"k": "a", "j": 1.5}, {"k": 1}, 3]),
            json!({"a": 1, "c": 2, "aa": "x"}),
            json!({}),
            json!(true),
        ];
        for s in &schemas {
            let s = {
                let mut s: JsonSchemaProps = serde_json::from_value(s.clone()).expect("schema");
                s.compile();
                s
            };
            for v in &values {
                for old in &values {
                    let mut errs = Vec::new();
                    validate(&s, &Path::root(), v, &mut errs);
                    validate_update(&s, &Path::new("status"), v, old, true, &mut errs);
                    for e in &errs {
                        let _ = e.message();
                    }
                }
                for f in [
                    "ipv4",
                    "ipv6",
                    "cidr",
                    "mac",
                    "uri",
                    "email",
                    "hostname",
                    "date",
                    "date-time",
                    "duration",
                    "quantity",
                    "byte",
                    "isbn",
                    "creditcard",
                ] {
                    if let Value::String(x) = v {
                        let _ = formats::check_format(f, x);
                    }
                }
            }
        }
        for x in [
            "",
            "%",
            "%%",
            "[",
            "[::1",
            "http://[",
            "a@",
            "\"",
            "(",
            "=?x?q?=zz?=",
            "1:",
            ":",
            "..",
            "1.",
            "-",
            "+",
            "µ",
            "0x",
            "::ffff:1.2.3",
            "1e99999999999999999999",
            "99999999999999999999h",
        ] {
            for f in [
                "ipv4",
                "ipv6",
                "cidr",
                "mac",
                "uri",
                "email",
                "hostname",
                "date",
                "date-time",
                "duration",
                "quantity",
                "byte",
                "isbn",
                "creditcard",
                "uuid",
                "k8s-long-name",
            ] {
                let _ = formats::check_format(f, x);
            }
            let _ = crate::go::regexp::compile_re2(x);
        }
    }
}

#[cfg(test)]
mod bench {
    use super::*;
    use serde_json::json;

    /// `cargo test --release -p crdlab --lib validation::schema::bench -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn large_object() {
        let mut s: JsonSchemaProps = serde_json::from_value(json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {"items": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "required": ["name"], "properties": {
                    "name": {"type": "string", "pattern": "^[a-z0-9-]+$", "maxLength": 63},
                    "port": {"type": "integer", "format": "int32", "minimum": 1, "maximum": 65535},
                    "ip": {"type": "string", "format": "ipv4"},
                    "mode": {"type": "string", "enum": ["A", "B", "C"]},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}}}}}}}}}))
        .expect("schema");
        s.compile();
        let items: Vec<Value> = (0..20000)
            .map(|i| json!({"name": format!("item-{i}"), "port": 8080, "ip": "10.0.0.1", "mode": "B", "labels": {"a": "b", "c": "d"}}))
            .collect();
        let obj = json!({"spec": {"items": items}});
        let t = std::time::Instant::now();
        let mut errs = Vec::new();
        validate(&s, &Path::root(), &obj, &mut errs);
        let create = t.elapsed();
        let t = std::time::Instant::now();
        validate_update(&s, &Path::root(), &obj, &obj, true, &mut errs);
        println!(
            "create {:?}, update {:?}, errors {}",
            create,
            t.elapsed(),
            errs.len()
        );
    }
}
