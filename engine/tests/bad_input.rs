//! Bad input never panics: each case gets a clear error (with a position where there is
//! source text).

use crdlab::engine::Engine;
use crdlab::wire::batch::Request;
use crdlab::{CompiledCrd, KubeVersion};
use serde_json::{json, Value};

mod common;

/// The widgets CRD with an open `spec`.
fn widgets() -> String {
    format!("\n{}", common::widgets_spec("            x-kubernetes-preserve-unknown-fields: true\n"))
}

fn compile_err(text: &str) -> String {
    CompiledCrd::from_text(text, KubeVersion::default()).unwrap_err().to_string()
}

fn answer(crd: &str, object: Value) -> crdlab::Answer {
    let req = Request { id: json!("t"), crd: Some(json!(crd)), object: Some(object), ..Default::default() };
    Engine::new().handle(&req)
}

#[test]
fn not_yaml() {
    let e = compile_err("a: [1, 2\nb: {");
    assert!(e.contains("cannot read CRD") && e.contains("line"), "{}", e);
}

#[test]
fn not_a_crd() {
    let e = compile_err("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n");
    assert!(e.contains("no CustomResourceDefinition found") && e.contains("ConfigMap"), "{}", e);
    let e = compile_err("- 1\n- 2\n");
    assert!(e.contains("no CustomResourceDefinition found"), "{}", e);
    let e = compile_err("");
    assert!(e.contains("empty"), "{}", e);
}

#[test]
fn wrong_api_version() {
    let e = compile_err(&widgets().replace("apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"));
    assert!(e.contains("unsupported apiVersion") && e.contains("v1beta1"), "{}", e);
}

#[test]
fn schema_that_is_not_an_object() {
    let bad = widgets().replace("        type: object\n        properties:", "        - 1\n        properties:");
    let e = compile_err(&bad);
    assert!(!e.is_empty());
    let e = compile_err(&widgets().replace("openAPIV3Schema:\n", "openAPIV3Schema: 5\n        x:\n"));
    assert!(e.contains("cannot"), "{}", e);
}

#[test]
fn huge_documents() {
    // A 4 MiB object: read, then refused as the apiserver refuses a body over 3 MiB; no panic.
    let big = "x".repeat(4 * 1024 * 1024);
    let a = answer(&widgets(), json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"s": big}}));
    assert_eq!(a.error.as_deref(), Some("Request entity too large: limit is 3145728"));
    // A 70 MiB text is refused with a clear error.
    let text = format!("a: \"{}\"", "x".repeat(70 * 1024 * 1024));
    let e = crdlab::text::yaml::read_document(&text).unwrap_err();
    assert!(e.message.contains("bytes"), "{}", e);
}

#[test]
fn deep_nesting() {
    let deep_json = "[".repeat(10_000) + &"]".repeat(10_000);
    let e = crdlab::text::yaml::read_document(&deep_json).unwrap_err();
    assert!(e.message.contains("nesting deeper than"), "{}", e);
    let deep_yaml: String = (0..10_000).map(|i| format!("{}a:\n", " ".repeat(i))).collect();
    let e = crdlab::text::yaml::read_document(&deep_yaml).unwrap_err();
    assert!(e.message.contains("nesting deeper than") && e.line.is_some(), "{}", e);
    // A deep object given as JSON text through the request path.
    let obj = format!("{{\"spec\": {}{}}}", "{\"a\":".repeat(10_000), "1".to_string() + &"}".repeat(10_000));
    let a = answer(&widgets(), Value::String(obj));
    assert!(a.error.as_deref().unwrap_or("").contains("nesting deeper than"), "{:?}", a.error);
}

#[test]
fn bad_requests_get_an_error_answer() {
    let mut e = Engine::new();
    assert!(e.handle_line("not json").error.unwrap().contains("not JSON"));
    assert!(e.handle_line("{\"id\": 1}").error.unwrap().contains("names no CRD"));
    let a = e.handle_line(&json!({"id": 2, "crd": widgets(), "version": "v9"}).to_string());
    assert!(a.error.unwrap().contains("no version \"v9\""));
    let a = e.handle_line(&json!({"id": 3, "crd": widgets(), "object": [1, 2]}).to_string());
    assert!(a.error.unwrap().contains("must be a JSON object"));
    let a = e.handle_line(&json!({"id": 4, "crd": widgets(), "kubernetesVersion": "2.0"}).to_string());
    assert!(a.error.unwrap().contains("kubernetesVersion"));
    let a = e.handle_line(&json!({"id": 5, "crd": 7}).to_string());
    assert!(a.error.unwrap().contains("crd must be"));
}

#[test]
fn hostile_rule_stops_at_the_cost_limit() {
    // self.all(a, self.all(b, self.all(c, true))) over 10,000 items would take 10^12 steps;
    // the per-call limit must stop it with the apiserver's error.
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "hs.example.com"},
        "spec": {"group": "example.com", "names": {"plural": "hs", "singular": "h", "kind": "H", "listKind": "HList"},
            "scope": "Namespaced", "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                "type": "object", "properties": {"spec": {"type": "object", "properties": {"items": {"type": "array",
                    "items": {"type": "integer"},
                    "x-kubernetes-validations": [{"rule": "self.all(a, self.all(b, self.all(c, true)))"}]}}}}}}}]}});
    let items: Vec<i64> = (0..10_000).collect();
    let obj = json!({"apiVersion": "example.com/v1", "kind": "H", "metadata": {"name": "x"}, "spec": {"items": items}});
    let req = Request { id: json!("h"), crd: Some(crd), object: Some(obj), skip_crd_validation: Some(true), ..Default::default() };
    let a = Engine::new().handle(&req);
    let errs = a.errors.expect("errors");
    assert_eq!(errs.len(), 1, "{:?}", errs);
    assert!(errs[0].message.contains("call cost exceeds limit for rule: self.all(a, self.all(b, self.all(c, true)))"), "{}", errs[0].message);
    assert_eq!(a.remaining_budget, Some(-1));
}
