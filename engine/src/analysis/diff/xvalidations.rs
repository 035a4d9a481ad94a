//! The `xvalidations` check (crdify's, extended): `x-kubernetes-validations` rules added,
//! removed or changed at one property, matched by rule text, then message, then position.

use crate::analysis::diff::config::PropertyChecks;
use crate::analysis::diff::finding::{severity, PropertyFinding, Ratcheting, Severity};
use crate::go::json::json_string;
use crate::go::strconv::quote;
use serde_json::Value;

pub(crate) fn rule_text(r: &Value) -> &str {
    r.get("rule").and_then(Value::as_str).unwrap_or("")
}

pub(crate) fn str_field<'v>(r: &'v Value, k: &str) -> &'v str {
    r.get(k).and_then(Value::as_str).unwrap_or("")
}

/// `json.Marshal(apiextensionsv1.ValidationRule)` (omitempty fields, pointers kept).
pub fn rule_json(r: &Value) -> String {
    let mut out = String::from("{");
    let mut first = true;
    let mut field = |out: &mut String, k: &str, v: &Value| {
        if !first {
            out.push(',');
        }
        first = false;
        json_string(k, out);
        out.push(':');
        out.push_str(&crate::go::json::json_marshal(v));
    };
    for k in ["rule", "message", "messageExpression"] {
        if let Some(Value::String(s)) = r.get(k) {
            if !s.is_empty() {
                field(&mut out, k, &Value::String(s.clone()));
            }
        }
    }
    if let Some(v @ Value::String(_)) = r.get("reason") {
        field(&mut out, "reason", v);
    }
    if let Some(Value::String(s)) = r.get("fieldPath") {
        if !s.is_empty() {
            field(&mut out, "fieldPath", &Value::String(s.clone()));
        }
    }
    if let Some(v @ Value::Bool(_)) = r.get("optionalOldSelf") {
        field(&mut out, "optionalOldSelf", v);
    }
    out.push('}');
    out
}

pub(crate) fn as_rules(v: Option<&Value>) -> Vec<&Value> {
    match v {
        Some(Value::Array(a)) => a.iter().filter(|r| r.is_object()).collect(),
        _ => Vec::new(),
    }
}

/// The `xvalidations` check on one property: rules are matched by their text; those left
/// over are paired as "changed" when they share a message (or, failing that, their
/// position), the rest are added or removed.
pub fn compare_rules(
    old: Option<&Value>,
    new: Option<&Value>,
    cfg: &PropertyChecks,
) -> Vec<PropertyFinding> {
    let olds = as_rules(old);
    let news = as_rules(new);
    let mut old_used = vec![false; olds.len()];
    let mut new_pair: Vec<Option<usize>> = vec![None; news.len()];
    // 1. Same rule text.
    for (j, n) in news.iter().enumerate() {
        if let Some(i) =
            (0..olds.len()).find(|&i| !old_used[i] && rule_text(olds[i]) == rule_text(n))
        {
            old_used[i] = true;
            new_pair[j] = Some(i);
        }
    }
    let mut changed: Vec<(usize, usize)> = Vec::new();
    // 2. Same message or messageExpression.
    for (j, n) in news.iter().enumerate() {
        if new_pair[j].is_some() {
            continue;
        }
        let same_msg = |o: &Value| {
            (!str_field(n, "message").is_empty()
                && str_field(n, "message") == str_field(o, "message"))
                || (!str_field(n, "messageExpression").is_empty()
                    && str_field(n, "messageExpression") == str_field(o, "messageExpression"))
        };
        if let Some(i) = (0..olds.len()).find(|&i| !old_used[i] && same_msg(olds[i])) {
            old_used[i] = true;
            new_pair[j] = Some(i);
            changed.push((i, j));
        }
    }
    // 3. Same position.
    for j in 0..news.len() {
        if new_pair[j].is_none() && j < olds.len() && !old_used[j] {
            old_used[j] = true;
            new_pair[j] = Some(j);
            changed.push((j, j));
        }
    }
    let e = cfg.xvalidations;
    let Some(sev) = severity(e) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let rule_finding = |message: String, rule: &Value| PropertyFinding {
        check: "xvalidations",
        message,
        severity: sev,
        ratcheting: if rule_text(rule).contains("oldSelf") {
            Ratcheting::NotSoftened
        } else {
            Ratcheting::Softened
        },
        rule: Some(rule.clone()),
    };
    if cfg.xvalidations_removal {
        for (i, o) in olds.iter().enumerate() {
            if !old_used[i] {
                out.push(PropertyFinding {
                    check: "xvalidations",
                    message: format!("x-kubernetes-validations removed: {}", rule_json(o)),
                    severity: sev,
                    ratcheting: Ratcheting::NotApplicable,
                    rule: None,
                });
            }
        }
    }
    if cfg.xvalidations_addition {
        for (j, n) in news.iter().enumerate() {
            if new_pair[j].is_none() {
                out.push(rule_finding(
                    format!("x-kubernetes-validations added: {}", rule_json(n)),
                    n,
                ));
            }
        }
    }
    for (j, n) in news.iter().enumerate() {
        let Some(i) = new_pair[j] else { continue };
        let o = olds[i];
        let is_changed = changed.contains(&(i, j));
        if (is_changed || o.get("optionalOldSelf") != n.get("optionalOldSelf"))
            && cfg.xvalidations_addition
        {
            {
                let what = if is_changed {
                    format!(
                        "x-kubernetes-validations rule changed : {} -> {}",
                        quote(rule_text(o)),
                        quote(rule_text(n))
                    )
                } else {
                    format!(
                        "x-kubernetes-validations optionalOldSelf changed for rule {} : {} -> {}",
                        quote(rule_text(n)),
                        show_opt(o.get("optionalOldSelf")),
                        show_opt(n.get("optionalOldSelf"))
                    )
                };
                out.push(rule_finding(what, n));
            }
        }
        for (k, name) in [
            ("message", "message"),
            ("messageExpression", "messageExpression"),
            ("reason", "reason"),
            ("fieldPath", "fieldPath"),
        ] {
            let (x, y) = (str_field(o, k), str_field(n, k));
            if x != y {
                out.push(PropertyFinding {
                    check: "xvalidations",
                    message: format!(
                        "x-kubernetes-validations {} changed for rule {} : {} -> {}",
                        name,
                        quote(rule_text(n)),
                        quote(x),
                        quote(y)
                    ),
                    severity: Severity::Warning,
                    ratcheting: Ratcheting::NotApplicable,
                    rule: None,
                });
            }
        }
    }
    out
}

fn show_opt(v: Option<&Value>) -> String {
    match v {
        Some(v) => crate::go::json::json_marshal(v),
        None => "nil".into(),
    }
}

