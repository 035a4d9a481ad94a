//! `x-kubernetes-validations` rules of a CRD: compiled with the schema-derived types of
//! `self`/`oldSelf` and run on objects as apiextensions `pkg/apiserver/schema/cel` does.

use crate::crd::model::JsonSchemaProps;
use crate::field::{ErrorList, Path};
use serde_json::Value;

/// Runtime cost budget per object (AS `pkg/apis/cel/config.go`).
pub const RUNTIME_CEL_COST_BUDGET: i64 = 10_000_000;

/// The outcome of running the rules of one object.
pub struct CelOutcome {
    pub errors: ErrorList,
    pub warnings: ErrorList,
    pub remaining_budget: i64,
}

/// Runs every rule of `schema` over `obj` (with `old` on updates). Not implemented yet:
/// returns no errors and the whole budget.
pub fn validate(
    _schema: &JsonSchemaProps,
    _path: &Path,
    _obj: &Value,
    _old: Option<&Value>,
    _ratcheting: bool,
) -> CelOutcome {
    CelOutcome { errors: Vec::new(), warnings: Vec::new(), remaining_budget: RUNTIME_CEL_COST_BUDGET }
}
/// Every `x-kubernetes-validations` rule of a version, with its schema path. Costs are
/// left empty until the cost estimator exists.
pub fn rule_reports(version: &crate::crd::CompiledVersion) -> Vec<crate::request::RuleReport> {
    let mut out = Vec::new();
    if let Some(s) = &version.schema {
        collect_rules(s, "openAPIV3Schema", &mut out);
    }
    out
}

fn collect_rules(s: &JsonSchemaProps, path: &str, out: &mut Vec<crate::request::RuleReport>) {
    for (i, r) in s.x_validations.iter().enumerate() {
        out.push(crate::request::RuleReport {
            schema_path: format!("{}.x-kubernetes-validations[{}]", path, i),
            rule: r.rule.clone(),
            uses_old_self: r.rule.contains("oldSelf"),
            max_cost: None,
            max_cardinality: None,
            estimated_cost: None,
        });
    }
    for (k, p) in &s.properties {
        collect_rules(p, &format!("{}.properties[{}]", path, k), out);
    }
    if let Some(i) = s.items_schema() {
        collect_rules(i, &format!("{}.items", path), out);
    }
    if let Some(a) = s.additional_properties_schema() {
        collect_rules(a, &format!("{}.additionalProperties", path), out);
    }
}
