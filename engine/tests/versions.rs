//! The version matrix (`crdlab::analysis::versions`, `crdlab versions`) and the stored-expression
//! environment of CRD updates (`oldCrd`, `crdlab validate --old-crd`).

// Needs the `crdlab` binary, built with the `cli` feature (on by default).
#![cfg(feature = "cli")]

mod common;

use crdlab::engine::Engine;
use crdlab::wire::batch::Request;
use crdlab::analysis::versions::{accepted_on, rule_versions_of_text, RuleVersionRow};
use crdlab::{CompiledCrd, KubeVersion};
use serde_json::Value;
use std::process::Command;

const PROPS: &str = "              addr: {type: string, maxLength: 64}\n              name: {type: string, maxLength: 63}\n              replicas: {type: integer}\n              tags: {type: array, items: {type: string}}\n              labels: {type: object, maxProperties: 16, additionalProperties: {type: string, maxLength: 63}}";

fn crd(rules: &str) -> String {
    common::crd(PROPS, rules)
}

fn one(rule_yaml: &str) -> RuleVersionRow {
    let rows = rule_versions_of_text(&crd(rule_yaml)).unwrap();
    assert_eq!(rows.len(), 1, "{:?}", rows);
    rows.into_iter().next().unwrap()
}

/// The rule's paths in `crdErrors` when the CRD is created on `minor`.
fn rule_errors(text: &str, minor: u32) -> Vec<String> {
    let c = CompiledCrd::from_text(text, KubeVersion { minor }).unwrap();
    c.crd_errors
        .iter()
        .map(|e| e.field.as_str().to_string())
        .filter(|f| f.contains("x-kubernetes-validations["))
        .collect()
}

#[test]
fn ip_arrives_in_1_31() {
    // ip is introduced at compatibility 1.30; a 1.30 server compiles new rules at 1.29.
    let r = one("            - rule: ip(self.addr).family() == 4");
    assert_eq!(r.lowest_version.as_deref(), Some("1.31"), "{:?}", r);
    assert!(
        r.reason.starts_with("functions ip, family arrive in 1.31"),
        "{}",
        r.reason
    );
    assert_eq!(
        r.schema_path,
        "openAPIV3Schema.properties[spec].x-kubernetes-validations[0]"
    );
    assert_eq!(r.crd_version, "v1");
    // The matrix agrees with what the CRD checks report on each release.
    let text = crd("            - rule: ip(self.addr).family() == 4");
    assert_eq!(rule_errors(&text, 30).len(), 1);
    assert!(rule_errors(&text, 31).is_empty());
    assert!(!accepted_on(&r, KubeVersion { minor: 30 }));
    assert!(accepted_on(&r, KubeVersion { minor: 31 }));
}

#[test]
fn optional_old_self_arrives_in_1_30() {
    let r = one(
        "            - rule: \"!oldSelf.hasValue() || oldSelf.value().replicas <= self.replicas\"\n              optionalOldSelf: true",
    );
    assert_eq!(r.lowest_version.as_deref(), Some("1.30"), "{:?}", r);
    assert!(
        r.reason
            .starts_with("field optionalOldSelf arrives in 1.30"),
        "{}",
        r.reason
    );
}

#[test]
fn two_variable_comprehensions_arrive_in_1_33() {
    let r = one("            - rule: self.labels.all(k, v, k.size() > 0 && v.size() > 0)");
    assert_eq!(r.lowest_version.as_deref(), Some("1.33"), "{:?}", r);
    assert!(
        r.reason
            .starts_with("two-variable comprehension all() arrives in 1.33"),
        "{}",
        r.reason
    );
    let text = crd("            - rule: self.labels.all(k, v, k.size() > 0 && v.size() > 0)");
    assert_eq!(rule_errors(&text, 32).len(), 1);
    assert!(rule_errors(&text, 33).is_empty());
}

#[test]
fn format_named_arrives_in_1_32() {
    let r = one("            - rule: '!format.named(\"dns1123Label\").value().validate(self.name).hasValue()'");
    assert_eq!(r.lowest_version.as_deref(), Some("1.32"), "{:?}", r);
    assert!(
        r.reason
            .starts_with("functions format.named, validate arrive in 1.32"),
        "{}",
        r.reason
    );
}

#[test]
fn optional_syntax_and_plain_rules() {
    let r = one("            - rule: self.?name.orValue(\"\") != \"x\"");
    assert_eq!(r.lowest_version.as_deref(), Some("1.29"), "{:?}", r);
    assert!(r.reason.starts_with("optional syntax"), "{}", r.reason);
    let r = one("            - rule: self.replicas >= 0\n              fieldPath: .replicas");
    assert_eq!(r.lowest_version.as_deref(), Some("1.28"), "{:?}", r);
    assert!(
        r.reason.starts_with("field fieldPath arrives in 1.28"),
        "{}",
        r.reason
    );
    let r = one("            - rule: self.replicas >= 0");
    assert_eq!(r.lowest_version.as_deref(), Some("1.25"));
    assert_eq!(r.reason, "");
}

#[test]
fn cost_over_the_limit_and_unknown_fields_have_no_version() {
    let r = one("            - rule: self.tags.all(a, self.tags.all(b, a.contains(b)))");
    assert_eq!(r.lowest_version, None, "{:?}", r);
    assert!(
        r.reason.contains("estimated rule cost exceeds budget"),
        "{}",
        r.reason
    );
    let r = one("            - rule: self.nope == 1");
    assert_eq!(r.lowest_version, None);
    assert!(r.reason.contains("undefined field 'nope'"), "{}", r.reason);
}

fn answer_rule_errors(req: Request) -> Vec<String> {
    let a = Engine::new().handle(&req);
    assert!(a.error.is_none(), "{:?}", a.error);
    a.crd_errors
        .unwrap()
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .filter_map(|e| e.get("field").and_then(Value::as_str).map(str::to_string))
        .filter(|f| f.contains("x-kubernetes-validations["))
        .collect()
}

#[test]
fn unchanged_rules_compile_in_the_stored_environment() {
    let old = crd("            - rule: ip(self.addr).family() == 4");
    let changed = crd("            - rule: ip(self.addr).family() == 6");
    let req = |crd: &str, old: Option<&str>| Request {
        crd: Some(Value::String(crd.to_string())),
        old_crd: old.map(|o| Value::String(o.to_string())),
        kubernetes_version: Some("1.30".into()),
        ..Default::default()
    };
    // Create on 1.30: new rules compile at 1.29, without ip.
    assert_eq!(answer_rule_errors(req(&old, None)).len(), 1);
    // Update on 1.30 keeping the rule: the stored environment has ip.
    assert!(answer_rule_errors(req(&old, Some(&old))).is_empty());
    // A changed rule is new: compiled at 1.29 again.
    assert_eq!(answer_rule_errors(req(&changed, Some(&old))).len(), 1);
    // The stored environment is the release's own: two-variable comprehensions (1.32)
    // are not in a 1.30 server even for unchanged rules.
    let tv = crd("            - rule: self.labels.all(k, v, v != '')");
    assert_eq!(answer_rule_errors(req(&tv, Some(&tv))).len(), 1);
}

fn tmp(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("crdlab-versions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn cli_versions_and_old_crd() {
    let bin = env!("CARGO_BIN_EXE_crdlab");
    let text = crd(
        "            - rule: ip(self.addr).family() == 4\n            - rule: self.replicas >= 0",
    );
    let f = tmp("crd.yaml", &text);
    let out = Command::new(bin)
        .args(["versions", "--crd", &f])
        .output()
        .unwrap();
    assert!(out.status.success());
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("lowest: 1.31"), "{}", s);
    assert!(s.contains("function") && s.contains("ip"), "{}", s);
    let out = Command::new(bin)
        .args(["versions", "--crd", &f, "--version", "1.30", "-o", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["lowestVersion"], "1.31");
    assert_eq!(rows[0]["acceptedOnTarget"], false);
    assert_eq!(rows[1]["lowestVersion"], "1.25");
    let out = Command::new(bin)
        .args(["versions", "--crd", &f, "--version", "1.31"])
        .output()
        .unwrap();
    assert!(out.status.success());

    let obj = tmp(
        "obj.yaml",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {addr: 10.0.0.1, replicas: 1}\n",
    );
    let validate = |old_crd: Option<&str>| {
        let mut c = Command::new(bin);
        c.args([
            "validate",
            "--crd",
            &f,
            "--object",
            &obj,
            "--kubernetes-version",
            "1.30",
        ]);
        if let Some(o) = old_crd {
            c.args(["--old-crd", o]);
        }
        c.output().unwrap()
    };
    let create = validate(None);
    assert_eq!(
        create.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&create.stdout)
    );
    assert!(String::from_utf8_lossy(&create.stdout).contains("undeclared reference to 'ip'"));
    let update = validate(Some(&f));
    assert!(
        update.status.success(),
        "{}",
        String::from_utf8_lossy(&update.stdout)
    );
}

/// 1.37 bounds `metadata.name` (253 bytes) and `generateName` (252) in estimates
/// (kubernetes#139573): a root rule comparing them is far over the per-rule limit on every
/// earlier release (both request-sized) and costs 102 × 101 + 6 on 1.37.
#[test]
fn metadata_name_rule_arrives_in_1_37() {
    let text = &common::widgets_yaml(
        "        type: object\n        x-kubernetes-validations:\n        - rule: self.metadata.name.contains(self.metadata.generateName)\n",
    );
    let rows = rule_versions_of_text(text).unwrap();
    assert_eq!(rows.len(), 1, "{:?}", rows);
    let r = &rows[0];
    assert_eq!(r.lowest_version.as_deref(), Some("1.37"), "{:?}", r);
    assert_eq!(
        r.reason,
        "1.36 rejects the cost: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    );
    // The rule's own limit and the schema's total both fail on 1.36.
    let c = CompiledCrd::from_text(text, KubeVersion { minor: 36 }).unwrap();
    let msgs: Vec<String> = c.crd_errors.iter().map(|e| e.message()).collect();
    let over = "exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)";
    assert_eq!(
        msgs,
        vec![
            format!("spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost {}", over),
            format!("spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema {}", over),
            "spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema".to_string(),
        ]
    );
    let c37 = CompiledCrd::from_text(text, KubeVersion { minor: 37 }).unwrap();
    assert!(c37.crd_errors.is_empty(), "{:?}", c37.crd_errors);
}
