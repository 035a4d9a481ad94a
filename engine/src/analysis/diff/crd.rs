//! Whole-CRD checks: `scope`, `existingFieldRemoval`, `storedVersionRemoval` (crdify's
//! names and messages).

use crate::analysis::diff::config::{Config, Enforcement};
use crate::analysis::diff::finding::{Finding, Ratcheting, Severity, Validator};
use crate::analysis::diff::property::flatten;
use crate::analysis::diff::side::{schema_of, Side};
use crate::go::strconv::quote;
use serde_json::Value;

fn finding(check: &str, e: Enforcement, message: String) -> Option<Finding> {
    let severity = match e {
        Enforcement::Error => Severity::Error,
        Enforcement::Warn => Severity::Warning,
        _ => return None,
    };
    Some(Finding {
        validator: Validator::Crd,
        check: check.to_string(),
        version: None,
        field: None,
        severity,
        message,
        ratcheting: Ratcheting::NotApplicable,
        objects: Vec::new(),
    })
}

fn scope(crd: &Value) -> &str {
    crd.pointer("/spec/scope")
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The whole-CRD findings, in crdify's order.
pub fn check(old: &Side, new: &Side, cfg: &Config) -> Vec<Finding> {
    let mut out = Vec::new();
    if cfg.scope.reports() && scope(&old.json) != scope(&new.json) {
        out.extend(finding(
            "scope",
            cfg.scope,
            format!(
                "scope changed : {} -> {}",
                quote(scope(&old.json)),
                quote(scope(&new.json))
            ),
        ));
    }
    if cfg.existing_field_removal.reports() {
        for nv in new.versions() {
            let name = nv.get("name").and_then(Value::as_str).unwrap_or("");
            let Some(ov) = old.version_json(name) else {
                continue;
            };
            let new_fields = flatten(schema_of(nv));
            for path in flatten(schema_of(ov)).keys() {
                if !new_fields.contains_key(path) {
                    out.extend(finding(
                        "existingFieldRemoval",
                        cfg.existing_field_removal,
                        format!("removed field : {}.{}", name, path),
                    ));
                }
            }
        }
    }
    if cfg.stored_version_removal.reports() {
        let new_names: Vec<&str> = new
            .versions()
            .iter()
            .filter_map(|v| v.get("name").and_then(Value::as_str))
            .collect();
        let removed: Vec<String> = match old.json.pointer("/status/storedVersions") {
            Some(Value::Array(sv)) => sv
                .iter()
                .filter_map(Value::as_str)
                .filter(|s| !new_names.contains(s))
                .map(str::to_string)
                .collect(),
            _ => Vec::new(),
        };
        if !removed.is_empty() {
            out.extend(finding(
                "storedVersionRemoval",
                cfg.stored_version_removal,
                format!("stored versions removed : [{}]", removed.join(" ")),
            ));
        }
    }
    out
}
