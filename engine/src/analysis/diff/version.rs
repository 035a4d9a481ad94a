//! The version validators: `sameVersion` (each version of the old CRD against the same
//! version of the new one) and `servedVersion` (every pair of served versions of the new
//! CRD, lower priority first: `v1alpha1 -> v1`), as crdify pairs them.

use crate::analysis::diff::cel::ObjectRuns;
use crate::analysis::diff::config::Config;
use crate::analysis::diff::finding::{Finding, Validator};
use crate::analysis::diff::property::compare_schemas;
use crate::analysis::diff::side::{schema_of, Side};
use serde_json::Value;
use std::cmp::Ordering;

fn name_of(v: &Value) -> &str {
    v.get("name").and_then(Value::as_str).unwrap_or("")
}

/// The `sameVersion` findings; rule findings are judged on the sample objects.
pub fn same_version(old: &Side, new: &Side, cfg: &Config, objects: &ObjectRuns) -> Vec<Finding> {
    let mut out = Vec::new();
    if !cfg.same_version.enabled {
        return out;
    }
    for ov in old.versions() {
        let name = name_of(ov);
        let Some(nv) = new.version_json(name) else {
            continue;
        };
        for (path, steps, pf) in
            compare_schemas(schema_of(ov), schema_of(nv), &cfg.same_version.properties)
        {
            let mut f = Finding {
                validator: Validator::SameVersion,
                check: pf.check.to_string(),
                version: Some(name.to_string()),
                field: Some(path),
                severity: pf.severity,
                message: pf.message,
                ratcheting: pf.ratcheting,
                objects: Vec::new(),
            };
            if let Some(rule) = &pf.rule {
                objects.judge_rule(new, name, &steps, rule, &mut f);
            }
            out.push(f);
        }
    }
    out
}

/// `CompareKubeAwareVersionStrings`: `v1alpha1 < v1beta1 < v1 < v2`; names that are not
/// Kubernetes-like sort first, in reverse lexical order.
pub fn compare_kube_aware(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    match (parse_kube_version(a), parse_kube_version(b)) {
        (None, None) => b.cmp(a),
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(x), Some(y)) => (x.1, x.0, x.2).cmp(&(y.1, y.0, y.2)),
    }
}

/// (major, type: alpha 0 / beta 1 / GA 2, minor) of `v<major>[(alpha|beta)<minor>]`.
fn parse_kube_version(v: &str) -> Option<(u64, u8, u64)> {
    let rest = v.strip_prefix('v')?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let major: u64 = rest[..digits].parse().ok()?;
    let tail = &rest[digits..];
    if tail.is_empty() {
        return Some((major, 2, 0));
    }
    let (kind, num) = if let Some(n) = tail.strip_prefix("alpha") {
        (0, n)
    } else if let Some(n) = tail.strip_prefix("beta") {
        (1, n)
    } else {
        return None;
    };
    if num.is_empty() || !num.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some((major, kind, num.parse().ok()?))
}

/// The `servedVersion` findings: each pair of served versions (with schemas) of the new
/// CRD, less what the same pair of the old CRD already had (crdify's
/// `subtractExistingIssues`: only new incompatibilities are reported). Skipped when the new
/// CRD converts with a webhook and the configuration says so.
pub fn served_version(old: &Side, new: &Side, cfg: &Config) -> Vec<Finding> {
    if !cfg.served_version.enabled {
        return Vec::new();
    }
    let webhook = new
        .json
        .pointer("/spec/conversion/strategy")
        .and_then(Value::as_str)
        == Some("Webhook");
    if webhook && cfg.served_skip_with_webhook {
        return Vec::new();
    }
    let known = served_pairs(old, cfg);
    served_pairs(new, cfg)
        .into_iter()
        .filter(|f| {
            !known.iter().any(|k| {
                k.version == f.version
                    && k.field == f.field
                    && k.check == f.check
                    && k.message == f.message
            })
        })
        .collect()
}

fn served_pairs(crd: &Side, cfg: &Config) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut served: Vec<&Value> = crd
        .versions()
        .into_iter()
        .filter(|v| {
            v.get("served").and_then(Value::as_bool) == Some(true) && !schema_of(v).is_null()
        })
        .collect();
    crate::go::sort::sort_by(&mut served, |a, b| compare_kube_aware(name_of(a), name_of(b)));
    for (i, a) in served.iter().enumerate() {
        for b in &served[i + 1..] {
            let pair = format!("{} -> {}", name_of(a), name_of(b));
            for (path, _, pf) in
                compare_schemas(schema_of(a), schema_of(b), &cfg.served_version.properties)
            {
                out.push(Finding {
                    validator: Validator::ServedVersion,
                    check: pf.check.to_string(),
                    version: Some(pair.clone()),
                    field: Some(path),
                    severity: pf.severity,
                    message: pf.message,
                    ratcheting: pf.ratcheting,
                    objects: Vec::new(),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kube_aware_order() {
        let mut v = vec![
            "v1", "v2beta1", "v1alpha1", "foo", "v1beta2", "bar", "v1beta1", "v2", "v10",
        ];
        v.sort_by(|a, b| compare_kube_aware(a, b));
        assert_eq!(
            v,
            vec!["foo", "bar", "v1alpha1", "v1beta1", "v1beta2", "v2beta1", "v1", "v2", "v10"]
        );
    }
}
