//! Diagnostics an editor shows: an answer's errors and the CRD's rules, each with the range
//! of the text it came from ([`crate::text::positions`] maps the apiserver's field paths).

use crate::field::ErrorReport;
use crate::text::positions::{crd_range, json_path_owned, object_range, parse_field_path, rule_range, Located, Source};
use crate::text::source_map::Range;

/// An error of an answer (`{field, type, detail, message}`), with the range of the text it
/// came from when there is one: the CRD's text for `crdErrors`, the object's for `errors`
/// and `warnings`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct Diagnostic {
    /// The field path, as the apiserver prints it (`spec.containers[0].name`).
    pub field: String,
    /// `Invalid value`, `Required value`, ...
    #[serde(rename = "type")]
    pub kind: String,
    pub detail: String,
    /// The apiserver's message: `<field>: <type>: <value>: <detail>`.
    pub message: String,
    /// Where to underline (absent when the input was given as an object, not text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub range: Option<Range>,
    /// `false` when the field is not in the text (a missing required field): `range` is
    /// then its closest ancestor's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub exact: Option<bool>,
}

/// A CEL rule of the CRD (`x-kubernetes-validations`), with the range of its `rule` text.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct Rule {
    /// The CRD version the rule belongs to.
    pub version: String,
    /// `openAPIV3Schema.properties[spec].x-kubernetes-validations[0]`.
    pub schema_path: String,
    pub rule: String,
    pub uses_old_self: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub max_cost: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub max_cardinality: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub estimated_cost: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub range: Option<Range>,
}

/// Errors with the ranges `locate` finds for their fields.
pub fn diagnostics(
    errs: &[ErrorReport],
    locate: impl Fn(&str) -> Option<Located>,
) -> Vec<Diagnostic> {
    errs.iter()
        .map(|e| {
            let at = locate(&e.field);
            Diagnostic {
                field: e.field.clone(),
                kind: e.kind.clone(),
                detail: e.detail.clone(),
                message: e.message.clone(),
                range: at.map(|l| l.range),
                exact: at.map(|l| l.exact),
            }
        })
        .collect()
}

/// A CRD's `crdErrors`, located in its text.
pub fn crd_diagnostics(
    errs: &[ErrorReport],
    crd: Option<&Source>,
) -> Vec<Diagnostic> {
    diagnostics(errs, |f| crd.and_then(|s| crd_range(f, &s.value, &s.map)))
}

/// An object's errors, located in its text.
pub fn object_diagnostics(
    errs: &[ErrorReport],
    obj: Option<&Source>,
) -> Vec<Diagnostic> {
    diagnostics(errs, |f| {
        obj.and_then(|s| object_range(f, &s.value, &s.map))
    })
}

/// Where each pruned field (`unknownFields`) stands in the object's text: its key.
pub fn unknown_field_ranges(fields: &[String], obj: &Source) -> Vec<Option<Range>> {
    fields
        .iter()
        .map(|f| {
            let path = json_path_owned(parse_field_path(f), &obj.value);
            let (node, depth) = obj.map.nearest(&path)?;
            Some(match node.key {
                Some(k) if depth == path.len() => k,
                _ => node.underline(),
            })
        })
        .collect()
}

/// The rules of one version, each with the range of its text in the CRD.
pub fn version_rules(ver: &crate::crd::CompiledVersion, crd: Option<&Source>) -> Vec<Rule> {
    ver.rule_summaries()
        .into_iter()
        .map(|r| Rule {
            range: crd
                .and_then(|s| rule_range(&r.schema_path, ver.index, &s.value, &s.map))
                .map(|l| l.range),
            version: ver.name.clone(),
            schema_path: r.schema_path,
            rule: r.rule,
            uses_old_self: r.uses_old_self,
            max_cost: Some(r.max_cost),
            max_cardinality: Some(r.max_cardinality),
            estimated_cost: Some(r.estimated_cost),
        })
        .collect()
}

