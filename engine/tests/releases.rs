//! Behaviour that changes with the targeted Kubernetes release (engine/VERSIONS.md), seen
//! through the batch protocol as a user sees it: ratcheting per release, rule fields the
//! release does not know, and the other per-release differences.

mod common;

use common::crd;
use crdlab::engine::Engine;
use crdlab::wire::batch::Request;
use serde_json::{json, Value};

fn obj(spec: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec})
}

struct Outcome {
    errors: Vec<String>,
    crd_errors: Vec<String>,
}

fn run(crd: &str, minor: u32, object: Value, old: Option<Value>, ratcheting: Option<bool>) -> Outcome {
    let req = Request {
        crd: Some(Value::String(crd.to_string())),
        kubernetes_version: Some(format!("1.{}", minor)),
        object: Some(object),
        old_object: old,
        ratcheting,
        ..Default::default()
    };
    let a = Engine::new().handle(&req);
    assert!(a.error.is_none(), "1.{}: {:?}", minor, a.error);
    let msgs = |v: Option<Vec<crdlab::field::ErrorReport>>| -> Vec<String> {
        v.unwrap_or_default()
            .iter()
            .map(|e| serde_json::to_value(e).unwrap()["message"].as_str().unwrap().to_string())
            .collect()
    };
    Outcome { errors: msgs(a.errors), crd_errors: msgs(a.crd_errors) }
}

const NAME_PROPS: &str = "              name: {type: string, maxLength: 5}\n              other: {type: string}";

/// Feature::RatchetingGate (1.28): the batch protocol ratchets wherever the gate exists; before 1.28 asking for it is a request error.
#[test]
fn ratcheting_is_on_by_default_from_1_30() {
    let c = crd(NAME_PROPS, "            - rule: 'true'");
    // The stored object already breaks maxLength; the update leaves `name` unchanged.
    let old = obj(json!({"name": "toolong", "other": "a"}));
    let new = obj(json!({"name": "toolong", "other": "b"}));
    // (Before 1.32 the text is "may not be longer than 5".)
    let too_long = "spec.name: Too long: may not be longer than 5";
    // The batch protocol's `ratcheting` defaults to true: on wherever the release has the
    // gate, 1.28 and 1.29 included (where the gate is off by default, as the CLI keeps it).
    for minor in [28, 29, 30, 33, 36] {
        let o = run(&c, minor, new.clone(), Some(old.clone()), None);
        assert!(o.errors.is_empty(), "1.{}: {:?}", minor, o.errors);
    }
    for minor in [25, 27] {
        let o = run(&c, minor, new.clone(), Some(old.clone()), None);
        // The schema error, and the note that it kept CEL from running.
        assert_eq!(o.errors.len(), 2, "1.{}: {:?}", minor, o.errors);
        assert!(o.errors[0].starts_with(too_long), "1.{}: {:?}", minor, o.errors);
    }
    // 1.28 and 1.29 without the gate.
    assert_eq!(run(&c, 29, new.clone(), Some(old.clone()), Some(false)).errors.len(), 2);
    // Turned off on a release that ratchets by default.
    assert_eq!(run(&c, 36, new.clone(), Some(old.clone()), Some(false)).errors.len(), 2);
    // Before 1.28 the release cannot ratchet: asking for it is a request error.
    let req = Request {
        crd: Some(Value::String(c.clone())),
        kubernetes_version: Some("1.27".into()),
        object: Some(new),
        old_object: Some(old),
        ratcheting: Some(true),
        ..Default::default()
    };
    let e = Engine::new().handle(&req).error.expect("an error");
    assert!(e.contains("ratcheting is not available on Kubernetes 1.27"), "{}", e);
}

/// Feature::MessageExpression (1.27), Feature::ReasonAndFieldPath (1.28): rule fields the release does not know are dropped by its decoder.
#[test]
fn rule_fields_unknown_to_the_release_are_dropped() {
    let c = crd(
        NAME_PROPS,
        "            - rule: self.name == 'ok'\n              message: plain message\n              messageExpression: \"'expr ' + self.name\"\n              reason: FieldValueForbidden\n              fieldPath: .name",
    );
    let bad = obj(json!({"name": "nope"}));
    // 1.36: everything applies — fieldPath, reason (Forbidden drops the value), messageExpression.
    assert_eq!(run(&c, 36, bad.clone(), None, None).errors, vec!["spec.name: Forbidden: expr nope"]);
    // 1.27 knows messageExpression but not reason/fieldPath; before 1.35 the object's
    // schema type is printed and before 1.34 in Go's %#v.
    assert_eq!(
        run(&c, 27, bad.clone(), None, None).errors,
        vec![r#"spec: Invalid value: "object": expr nope"#]
    );
    // 1.26 knows none of them: the plain message.
    assert_eq!(
        run(&c, 26, bad.clone(), None, None).errors,
        vec![r#"spec: Invalid value: "object": plain message"#]
    );
}

/// Feature::OptionalOldSelf (1.30): `optionalOldSelf` is kept and checked; 1.29 drops it.
#[test]
fn optional_old_self_is_dropped_before_1_30() {
    // With optionalOldSelf, oldSelf is optional(string): hasValue() type-checks. A release
    // that drops the field types oldSelf as string, where hasValue() does not exist.
    let c = crd(
        NAME_PROPS,
        "            - rule: '!oldSelf.hasValue() || self.name == oldSelf.value().name'\n              optionalOldSelf: true\n              message: name is immutable",
    );
    let ok = run(&c, 30, obj(json!({"name": "a"})), None, None);
    assert!(ok.crd_errors.is_empty(), "{:?}", ok.crd_errors);
    let o29 = run(&c, 29, obj(json!({"name": "a"})), None, None);
    assert_eq!(o29.crd_errors.len(), 1, "{:?}", o29.crd_errors);
    assert!(o29.crd_errors[0].contains("compilation failed"), "{:?}", o29.crd_errors);
    // The CRD check on an optionalOldSelf that oldSelf does not use applies only where the
    // field is known.
    let unused = crd(NAME_PROPS, "            - rule: self.name != ''\n              optionalOldSelf: true");
    let msg = "may not be set if oldSelf is not used in rule";
    assert!(run(&unused, 36, obj(json!({"name": "a"})), None, None).crd_errors.iter().any(|e| e.contains(msg)));
    assert!(run(&unused, 29, obj(json!({"name": "a"})), None, None).crd_errors.is_empty());
}

const INT_PROPS: &str = "              port: {type: integer, format: int32, minimum: 1, maximum: 65535}\n              asn: {type: integer, format: int32, maximum: 4294967295}\n              big: {type: integer, format: int64}\n              ratio: {type: number, format: float}\n              plain: {type: integer}";

/// Feature::NumericFormats (1.36, kubernetes#136582): numeric formats are kept and checked.
#[test]
fn numeric_formats_are_enforced_from_1_36() {
    let c = crd(INT_PROPS, "            - rule: 'true'");
    // A wrong type: 1.36 names the format (kube-openapi's typeValidator sees it), earlier
    // releases strip it and name the type.
    let o = run(&c, 36, obj(json!({"port": true})), None, None);
    assert_eq!(o.errors[0], r#"spec.port: Invalid value: "": spec.port in body must be of type int32: """#);
    let o = run(&c, 35, obj(json!({"port": true})), None, None);
    assert_eq!(
        o.errors[0],
        r#"spec.port: Invalid value: "boolean": spec.port in body must be of type integer: "boolean""#
    );
    // Out of the format's range: rejected on 1.36 only.
    let over = obj(json!({"big": 1, "ratio": 3.5e38, "plain": 99999999999i64, "port": 80}));
    assert!(run(&c, 35, over.clone(), None, None).errors.is_empty());
    assert_eq!(
        run(&c, 36, over, None, None).errors,
        vec![r#"<nil>: Invalid value: "": Checked value must be of type number with format float in spec.ratio"#]
    );
    let o = run(&c, 36, obj(json!({"port": 2147483648i64})), None, None);
    assert_eq!(
        o.errors,
        vec![
            r#"<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.port"#,
            "spec.port: Invalid value: 2147483648: spec.port in body should be less than or equal to 65535",
        ]
    );
    // A bound outside the format's range fails every object that sets the field (the bound
    // is still applied, as a float).
    let o = run(&c, 36, obj(json!({"asn": 64512})), None, None);
    assert_eq!(
        o.errors,
        vec![r#"<nil>: Invalid value: "": Maximum boundary value must be of type integer with format int32 in spec.asn"#]
    );
    assert!(run(&c, 35, obj(json!({"asn": 64512})), None, None).errors.is_empty());
}

/// Feature::RewordedTooLongTooMany (1.32, kubernetes#128553): `may not be more than N bytes`, `must have at most 1 item`.
#[test]
fn too_long_and_too_many_texts_changed_in_1_32() {
    let c = crd(
        "              name: {type: string, maxLength: 1}\n              tags: {type: array, maxItems: 1, items: {type: string}}",
        "            - rule: 'true'",
    );
    let o = obj(json!({"name": "ab", "tags": ["a", "b"]}));
    let e32 = run(&c, 32, o.clone(), None, None).errors;
    assert_eq!(e32[0], "spec.name: Too long: may not be more than 1 byte");
    assert_eq!(e32[1], "spec.tags: Too many: 2: must have at most 1 item");
    let e31 = run(&c, 31, o, None, None).errors;
    assert_eq!(e31[0], "spec.name: Too long: may not be longer than 1");
    assert_eq!(e31[1], "spec.tags: Too many: 2: must have at most 1 items");
}

/// Feature::FormatWarnings (1.34), Feature::NumericFormats (1.36): `unrecognized format` CRD warnings, on every type from 1.36.
#[test]
fn unrecognized_format_warnings_per_release() {
    let c = crd(
        "              s: {type: string, format: bogus}\n              k: {type: string, format: k8s-short-name}\n              i: {type: integer, format: uint32}\n              n: {type: number, format: float64}\n              f: {type: number, format: float}\n              b: {type: boolean, format: flag}\n              u: {x-kubernetes-int-or-string: true, format: date}",
        "            - rule: 'true'",
    );
    let warnings = |minor: u32| -> Vec<String> {
        let req = Request {
            crd: Some(Value::String(c.clone())),
            kubernetes_version: Some(format!("1.{}", minor)),
            ..Default::default()
        };
        Engine::new().handle(&req).crd_warnings.unwrap_or_default()
    };
    let w = |fs: &[&str]| fs.iter().map(|f| format!("unrecognized format \"{}\"", f)).collect::<Vec<_>>();
    assert!(warnings(33).is_empty());
    // k8s-short-name is recognized from 1.35 (compatibility version 1.34).
    let mut w34 = warnings(34);
    w34.sort();
    assert_eq!(w34, w(&["bogus", "k8s-short-name"]));
    assert_eq!(warnings(35), w(&["bogus"]));
    // 1.36 also checks integers, numbers and other types; untyped nodes use the string list.
    let mut w36 = warnings(36);
    w36.sort();
    assert_eq!(w36, w(&["bogus", "flag", "float64", "uint32"]));
}

/// Feature::KeywordFieldNames (compatibility 1.31): reserved words usable as field names in new rules of a 1.32 server.
#[test]
fn reserved_words_as_field_names_from_compatibility_1_31() {
    let props = "              namespace: {type: string, maxLength: 63}";
    let c = crd(props, "            - rule: self.namespace != 'kube-system'\n              message: not there");
    let escaped = crd(props, "            - rule: self.__namespace__ != 'kube-system'\n              message: not there");
    let bad = obj(json!({"namespace": "kube-system"}));
    // A 1.31 server compiles new rules at 1.30: the word is an undefined field.
    let o = run(&c, 31, bad.clone(), None, None);
    assert_eq!(o.crd_errors.len(), 1, "{:?}", o.crd_errors);
    assert!(o.crd_errors[0].contains("undefined field 'namespace'"), "{:?}", o.crd_errors);
    // From 1.32 both spellings compile and read the same value.
    for text in [&c, &escaped] {
        let o = run(text, 32, bad.clone(), None, None);
        assert!(o.crd_errors.is_empty(), "{:?}", o.crd_errors);
        assert_eq!(o.errors, vec![r#"spec: Invalid value: "object": not there"#]);
        assert!(run(text, 36, obj(json!({"namespace": "apps"})), None, None).errors.is_empty());
    }
    assert!(run(&escaped, 25, bad.clone(), None, None).crd_errors.is_empty());
    // An unchanged rule on a 1.31 CRD update compiles in the stored environment (1.31).
    let req = Request {
        crd: Some(Value::String(c.clone())),
        old_crd: Some(Value::String(c.clone())),
        kubernetes_version: Some("1.31".into()),
        object: Some(bad),
        ..Default::default()
    };
    let a = Engine::new().handle(&req);
    assert!(a.crd_errors.unwrap_or_default().is_empty());
    // The version matrix names 1.32.
    let rows = crdlab::analysis::versions::rule_versions_of_text(&c).unwrap();
    assert_eq!(rows[0].lowest_version.as_deref(), Some("1.32"), "{:?}", rows[0]);
}

#[test]
fn transition_rules_below_atomic_maps_see_old_self() {
    // apiextensions' MapIsCorrelatable: atomic maps correlate like granular ones.
    let c = crd(
        "              cfg:\n                type: object\n                x-kubernetes-map-type: atomic\n                properties:\n                  mode:\n                    type: string\n                    x-kubernetes-validations:\n                    - rule: self == oldSelf\n                      message: mode is immutable",
        "            - rule: 'true'",
    );
    let old = obj(json!({"cfg": {"mode": "a"}}));
    let new = obj(json!({"cfg": {"mode": "b"}}));
    let o = run(&c, 36, new, Some(old), None);
    assert!(o.crd_errors.is_empty(), "{:?}", o.crd_errors);
    assert_eq!(o.errors, vec![r#"spec.cfg.mode: Invalid value: "b": mode is immutable"#]);
}

/// Feature::SuppressUnchangedSchemaCost (1.29): an update leaving a version's schema unchanged skips the per-rule cost errors.
#[test]
fn unchanged_schemas_skip_the_per_rule_cost_limit_on_update_from_1_29() {
    let c = crd(
        "              tags: {type: array, items: {type: string}}",
        "            - rule: self.tags.all(t, t.startsWith('a') && t.endsWith('b') && t.contains('c'))",
    );
    let errors = |old: Option<&str>, minor: u32| -> Vec<String> {
        let req = Request {
            crd: Some(Value::String(c.clone())),
            old_crd: old.map(|o| Value::String(o.to_string())),
            kubernetes_version: Some(format!("1.{}", minor)),
            ..Default::default()
        };
        let a = Engine::new().handle(&req);
        a.crd_errors.unwrap_or_default().iter().map(|e| e.message.clone()).collect()
    };
    let per_rule = |es: &[String]| es.iter().any(|e| e.contains("Forbidden: estimated rule cost exceeds budget"));
    let total = |es: &[String]| es.iter().any(|e| e.contains("estimated rule cost total for entire OpenAPIv3 schema"));
    // Create: both limits, on every release.
    assert!(per_rule(&errors(None, 29)) && total(&errors(None, 29)));
    // Update leaving the schema as it was: from 1.29 only the total still counts.
    let e = errors(Some(&c), 29);
    assert!(!per_rule(&e) && total(&e), "{:?}", e);
    let e = errors(Some(&c), 28);
    assert!(per_rule(&e) && total(&e), "{:?}", e);
    // A changed schema is held to the limit again.
    let older = c.replace("items: {type: string}", "items: {type: string, maxLength: 10}");
    assert!(per_rule(&errors(Some(&older), 36)));
}

/// Feature::CelRatcheting (1.29): CEL failures on unchanged values ratchet, as warnings.
#[test]
fn cel_errors_ratchet_from_1_29() {
    // The rule sits on `name`, which the update leaves unchanged.
    let c = crd(
        "              name:\n                type: string\n                x-kubernetes-validations:\n                - rule: self.startsWith('a')\n                  message: name must start with a\n              other: {type: string}",
        "            - rule: 'true'",
    );
    let old = obj(json!({"name": "bad", "other": "x"}));
    let new = obj(json!({"name": "bad", "other": "y"}));
    let req = |minor: u32| Request {
        crd: Some(Value::String(c.clone())),
        kubernetes_version: Some(format!("1.{}", minor)),
        object: Some(new.clone()),
        old_object: Some(old.clone()),
        ratcheting: Some(true),
        ..Default::default()
    };
    // 1.28's gate ratchets schema errors only: the unchanged rule failure is still an error.
    let a = Engine::new().handle(&req(28));
    assert_eq!(a.errors.unwrap().len(), 1);
    assert!(a.warnings.unwrap().is_empty());
    // From 1.29 (gate on), and by default from 1.30, it becomes a warning.
    for minor in [29, 30] {
        let a = Engine::new().handle(&req(minor));
        assert!(a.errors.unwrap().is_empty(), "1.{}", minor);
        assert_eq!(a.warnings.unwrap().len(), 1, "1.{}", minor);
    }
}

/// Feature::JsonFieldValues (1.34): the rule in a CRD error prints as JSON; before, Go's `%#v` of the release's ValidationRule.
#[test]
fn rule_compile_errors_print_the_rule_as_each_release_does() {
    let c = crd("              replicas: {type: integer}", "            - rule: self.replicas == true");
    let first = |minor: u32| run(&c, minor, obj(json!({})), None, None).crd_errors[0].clone();
    let path = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: ";
    let tail = ": compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(int, bool)'";
    // The Kubernetes documentation's example, as 1.25 and 1.26 print it (Go's %#v).
    assert!(first(26).starts_with(&format!(r#"{}apiextensions.ValidationRule{{Rule:"self.replicas == true", Message:""}}{}"#, path, tail)), "{}", first(26));
    assert!(first(33).starts_with(&format!(
        r#"{}apiextensions.ValidationRule{{Rule:"self.replicas == true", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}}{}"#,
        path, tail
    )));
    // From 1.34, JSON.
    assert!(first(34).starts_with(&format!(
        r#"{}{{"Rule":"self.replicas == true","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}}{}"#,
        path, tail
    )));
}

#[test]
fn rules_run_over_default_values() {
    let c = crd(
        "              x:\n                type: integer\n                default: 0\n                x-kubernetes-validations:\n                - rule: self > 0\n              z:\n                type: integer\n                default: 5\n                x-kubernetes-validations:\n                - rule: '!oldSelf.hasValue() || self == oldSelf.value()'\n                  optionalOldSelf: true\n                - rule: self == oldSelf",
        "            - rule: 'true'",
    );
    let errs = |minor: u32| run(&c, minor, obj(json!({})), None, None).crd_errors;
    let x = "spec.validation.openAPIV3Schema.properties[spec].properties[x].default: Invalid value: ";
    // Before 1.35 the schema type is printed, from 1.35 the value. Transition rules compare
    // the default with itself, and a default error keeps the rules' compile checks from running.
    assert_eq!(errs(34), vec![format!(r#"{}"integer": failed rule: self > 0"#, x)]);
    assert_eq!(errs(36), vec![format!("{}0: failed rule: self > 0", x)]);
    // From 1.30 a second pass runs without an old value when the first finds nothing: an
    // optionalOldSelf rule then sees optional.none().
    let c2 = crd(
        "              z:\n                type: integer\n                default: 5\n                x-kubernetes-validations:\n                - rule: oldSelf.hasValue()\n                  optionalOldSelf: true\n                  message: needs an old value",
        "            - rule: 'true'",
    );
    let o = run(&c2, 30, obj(json!({})), None, None);
    assert_eq!(
        o.crd_errors,
        vec![r#"spec.validation.openAPIV3Schema.properties[spec].properties[z].default: Invalid value: "integer": needs an old value"#]
    );
}

/// Feature::GrammarOptionalToken (1.28), Feature::GrammarEscapedIdentifier (1.33): the tokens a syntax error expects.
#[test]
fn syntax_errors_list_the_tokens_of_the_release_grammar() {
    let c = crd("              replicas: {type: integer}", "            - rule: 'Foo{{a}} == 1'");
    let first = |minor: u32| run(&c, minor, obj(json!({})), None, None).crd_errors[0].clone();
    let expecting = |minor: u32| {
        let e = first(minor);
        let i = e.find("expecting {").expect("a syntax error");
        e[i..].lines().next().unwrap().to_string()
    };
    assert_eq!(expecting(33), "expecting {'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}");
    assert_eq!(expecting(32), "expecting {'}', ',', '?', IDENTIFIER}");
    assert_eq!(expecting(27), "expecting {'}', ',', IDENTIFIER}");
}

/// Feature::JsonFieldValues (1.34): a nil list prints `null`; 1.33 prints Go's `[]string(nil)`.
#[test]
fn a_crd_without_a_storage_version_prints_the_nil_list_per_release() {
    let c = crd("              replicas: {type: integer}", "            - rule: 'true'").replace("storage: true", "storage: false");
    let stored = |minor: u32| {
        run(&c, minor, obj(json!({})), None, None)
            .crd_errors
            .into_iter()
            .find(|e| e.starts_with("status.storedVersions"))
            .expect("the stored-versions error")
    };
    assert_eq!(stored(33), "status.storedVersions: Invalid value: []string(nil): must have at least one stored version");
    assert_eq!(stored(34), "status.storedVersions: Invalid value: null: must have at least one stored version");
}

#[test]
fn cel_errors_ratchet_only_where_the_schema_correlates_the_old_value() {
    // `CorrelatedObject.CachedDeepEqual`: a key the schema does not describe (below
    // x-kubernetes-preserve-unknown-fields) has no correlated child, so `spec` never counts
    // as unchanged while `config` holds one, and its rule failure stays an error.
    let c = crd(
        "              mode: {type: string}\n              config: {type: object, x-kubernetes-preserve-unknown-fields: true}",
        "            - rule: self.mode == 'ok'\n              message: mode must be ok",
    );
    let outcome = |config: Value| {
        let o = obj(json!({"mode": "bad", "config": config}));
        let req = Request {
            crd: Some(Value::String(c.clone())),
            kubernetes_version: Some("1.36".into()),
            object: Some(o.clone()),
            old_object: Some(o),
            ..Default::default()
        };
        let a = Engine::new().handle(&req);
        (a.errors.unwrap().len(), a.warnings.unwrap().len())
    };
    assert_eq!(outcome(json!({"receivers": {"otlp": {}}})), (1, 0));
    assert_eq!(outcome(json!({})), (0, 1));
}

// ---------------------------------------------------------------------------- 1.37

/// A CRD whose root carries `rules` (and whose root `metadata` is `meta`, JSON text).
fn root_rules_crd(meta: &str, rules: &[&str]) -> String {
    let rules: Vec<String> = rules.iter().map(|r| format!("{{\"rule\": {:?}}}", r)).collect();
    let schema = format!(
        r#"{{
      "type": "object",
      "properties": {{"metadata": {meta}, "spec": {{"type": "object",
        "properties": {{"inner": {{"type": "object", "x-kubernetes-embedded-resource": true,
          "x-kubernetes-preserve-unknown-fields": true,
          "x-kubernetes-validations": [{{"rule": "self.metadata.name.contains('a')"}}]}}}}}}}},
      "x-kubernetes-validations": [{rules}]}}"#,
        meta = meta,
        rules = rules.join(", ")
    );
    // The schema stays JSON text as written here: tests edit it as text.
    common::widgets_json(Value::Null)
        .to_string()
        .replacen(r#""openAPIV3Schema":null"#, &format!(r#""openAPIV3Schema":{}"#, schema), 1)
}

/// The estimated cost of each rule, by rule text, on `minor`.
fn rule_costs(crd: &str, minor: u32) -> Vec<(String, u64)> {
    let req = Request {
        crd: Some(Value::String(crd.to_string())),
        kubernetes_version: Some(format!("1.{}", minor)),
        ..Default::default()
    };
    let a = Engine::new().handle(&req);
    assert!(a.error.is_none(), "{:?}", a.error);
    assert_eq!(a.crd_errors.as_deref().map(|e| e.len()), Some(0), "{:?}", a.crd_errors);
    a.rules
        .unwrap_or_default()
        .into_iter()
        .map(|r| (format!("{} @ {}", r.rule, r.schema_path), r.max_cost.unwrap_or(0)))
        .collect()
}

/// The cost of `rule` at the node `path` (one of its `x-kubernetes-validations`).
fn cost_of(costs: &[(String, u64)], rule: &str, path: &str) -> u64 {
    let key = format!("{} @ {}.x-kubernetes-validations[", rule, path);
    costs.iter().find(|(k, _)| k.starts_with(&key)).unwrap_or_else(|| panic!("{} not in {:?}", key, costs)).1
}

/// Feature::MetadataNameMaxLength (1.37):
/// kubernetes#139573 (1.37): `metadata.name` is at most 253 bytes and `generateName` 252,
/// so the `metadata` `WithTypeAndObjectMeta` adds is bounded in estimates: a string of
/// maxLength 253 has 1012 bytes (× 4 for code points). `x.contains('a')` costs
/// ceil(size × 0.1) × ceil(1 × 0.1) plus 3 for `self.metadata.name` (ident + 2 selects).
#[test]
fn metadata_name_bounded_in_cost_estimates_from_1_37() {
    let name = "self.metadata.name.contains('a')";
    let generate = "self.metadata.generateName.contains('a')";
    let c = root_rules_crd(r#"{"type": "object"}"#, &[name, generate]);
    let root = "openAPIV3Schema";
    let embedded = "openAPIV3Schema.properties[spec].properties[inner]";
    let c37 = rule_costs(&c, 37);
    // ceil(1012 × 0.1) = 102; generateName: ceil(1008 × 0.1) = 101.
    assert_eq!(cost_of(&c37, name, root), 102 + 3);
    assert_eq!(cost_of(&c37, generate, root), 101 + 3);
    // An embedded resource's root gets the same metadata (model.WithTypeAndObjectMeta).
    assert_eq!(cost_of(&c37, name, embedded), 102 + 3);
    // 1.36: a request-sized string (3 MiB − 2 bytes): ceil(3145726 × 0.1) = 314573.
    let c36 = rule_costs(&c, 36);
    assert_eq!(cost_of(&c36, name, root), 314_573 + 3);
    assert_eq!(cost_of(&c36, generate, root), 314_573 + 3);
    assert_eq!(cost_of(&c36, name, embedded), 314_573 + 3);
}

/// `cappedLengthStringType`: the root's own, shorter, maxLength wins; a root that declares
/// `kind`, `apiVersion` and both names as strings is left as written
/// (`WithTypeAndObjectMeta` returns it unchanged), so its unbounded name stays request-sized
/// on 1.37 too.
#[test]
fn metadata_name_cap_keeps_a_shorter_own_max_length() {
    let name = "self.metadata.name.contains('a')";
    let generate = "self.metadata.generateName.contains('a')";
    let root = "openAPIV3Schema";
    let own_name = root_rules_crd(
        r#"{"type": "object", "properties": {"name": {"type": "string", "maxLength": 63}}}"#,
        &[name, generate],
    );
    let c = rule_costs(&own_name, 37);
    // 63 × 4 = 252 bytes: ceil(25.2) = 26; generateName keeps the 252 cap.
    assert_eq!(cost_of(&c, name, root), 26 + 3);
    assert_eq!(cost_of(&c, generate, root), 101 + 3);
    let long_own = root_rules_crd(
        r#"{"type": "object", "properties": {"name": {"type": "string", "maxLength": 1000}}}"#,
        &[name],
    );
    assert_eq!(cost_of(&rule_costs(&long_own, 37), name, root), 102 + 3);
    let both_declared = root_rules_crd(
        r#"{"type": "object", "properties": {"name": {"type": "string"}, "generateName": {"type": "string"}}}"#,
        &[name],
    );
    // Without `kind` and `apiVersion` strings the root is still rebuilt, names capped.
    assert_eq!(cost_of(&rule_costs(&both_declared, 37), name, root), 102 + 3);
    let as_written = both_declared.replacen(
        r#""properties": {"metadata": "#,
        r#""properties": {"kind": {"type": "string"}, "apiVersion": {"type": "string"}, "metadata": "#,
        1,
    );
    assert_ne!(as_written, both_declared);
    assert_eq!(cost_of(&rule_costs(&as_written, 37), name, root), 314_573 + 3);
}

/// Feature::FormatWarnings (1.34):
/// The CRD strategy warns once per node with an unrecognized format (`WarningsOnCreate`
/// appends what `getUnrecognizedFormatsInSchema` finds at every node): the same format on
/// two fields is two warnings, on every release that warns (1.34+).
#[test]
fn unrecognized_format_warnings_repeat_per_field() {
    let c = crd(
        "              a: {type: string, format: ip}\n              b: {type: string, format: ip}\n              c: {type: string, format: ipv4}",
        "            - rule: 'true'",
    );
    for minor in [34, 36, 37] {
        let req = Request {
            crd: Some(Value::String(c.clone())),
            kubernetes_version: Some(format!("1.{}", minor)),
            ..Default::default()
        };
        let w = Engine::new().handle(&req).crd_warnings.unwrap_or_default();
        assert_eq!(w, vec!["unrecognized format \"ip\"", "unrecognized format \"ip\""], "1.{}", minor);
    }
}

/// Every place that lists releases reads the one table (crdlab::version::RELEASES): the
/// parser's range, the npm package's `version()` list, the playground's picker and its
/// default, the CLI help.
#[test]
fn release_lists_come_from_the_table() {
    use crdlab::version::{KubeVersion, RELEASES};
    let table: Vec<String> = RELEASES.iter().map(|r| r.version.to_string()).collect();
    assert_eq!(KubeVersion::supported_names(), table);
    let mut newest_first = table.clone();
    newest_first.reverse();
    assert_eq!(KubeVersion::supported_names_newest_first(), newest_first);
    assert_eq!(KubeVersion::MIN.to_string(), table[0]);
    assert_eq!(KubeVersion::LATEST.to_string(), *table.last().unwrap());
    assert_eq!(KubeVersion::LATEST.to_string(), "1.37");
    // The batch protocol keeps its own default; a request without a version targets it.
    assert_eq!(KubeVersion::PROTOCOL_DEFAULT.to_string(), "1.36");
    // The wasm API and the playground (which build only for wasm32) list the releases
    // through these functions and write no release of their own.
    let src = |p: &str| std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(p)).unwrap();
    let wasm = src("src/wasm.rs");
    assert!(wasm.contains("kubernetes_versions: KubeVersion::supported_names()"));
    // The playground reads them through crdlab::view::policy (its toolbar is web/src/toolbar.rs).
    let mut web = String::new();
    for f in ["main.rs", "toolbar.rs", "results.rs", "rules.rs", "diff.rs", "editor.rs"] {
        web.push_str(&src(&format!("../web/src/{}", f)));
    }
    assert!(web.contains("policy::releases_newest_first()"));
    assert!(web.contains("policy::default_release()"));
    assert_eq!(crdlab::view::policy::releases_newest_first().iter().map(|v| v.to_string()).collect::<Vec<_>>(), newest_first);
    assert_eq!(crdlab::view::policy::default_release(), KubeVersion::LATEST);
    let cli = src("src/bin/crdlab.rs");
    for code in [&web, &cli] {
        for v in &table {
            for quoted in [format!("\"{}\"", v), format!("(default {})", v)] {
                assert!(!code.contains(&quoted), "a hard-coded {} in the source", quoted);
            }
        }
    }
}

/// The compile error of an expression-mode request on a release (`compileError`).
fn compile_error(expr: &str, minor: u32) -> String {
    let req = Request {
        mode: Some("eval".into()),
        expr: Some(expr.into()),
        kubernetes_version: Some(format!("1.{}", minor)),
        ..Default::default()
    };
    let a = Engine::new().handle(&req);
    a.eval.get("compileError").and_then(Value::as_str).unwrap_or_default().to_string()
}

/// The `ERROR:` lines (position and message) of a compile error.
fn error_lines(expr: &str, minor: u32) -> Vec<String> {
    compile_error(expr, minor).lines().filter(|l| l.starts_with("ERROR:")).map(str::to_string).collect()
}

/// Feature::UndeclaredCallsTyped (1.29):
/// cel-go before v0.17 (1.25–1.28) leaves an undeclared member call without a type: the
/// enclosing call prints it as `<nil>` and finds no overload (a parameter bound to it
/// matches, but a result of that parameter counts as none); from 1.29 it is the error type,
/// silent in the enclosing call.
#[test]
fn undeclared_member_calls_are_untyped_before_1_29() {
    let e = "'a'.foo() <= 0";
    let undeclared = "ERROR: <input>:1:8: undeclared reference to 'foo' (in container '')";
    assert_eq!(
        error_lines(e, 28),
        vec![undeclared.to_string(), "ERROR: <input>:1:11: found no matching overload for '_<=_' applied to '(<nil>, int)'".into()]
    );
    assert_eq!(error_lines(e, 29), vec![undeclared.to_string()]);
    // (<nil>, <nil>) binds `_==_`'s parameter and matches; `_?_:_` returns it: no match.
    assert_eq!(error_lines("'a'.foo() == 'b'.bar()", 25).len(), 2);
    assert_eq!(
        error_lines("true ? 'a'.foo() : 'b'.bar()", 25)[0],
        "ERROR: <input>:1:6: found no matching overload for '_?_:_' applied to '(bool, <nil>, <nil>)'"
    );
    assert_eq!(error_lines("true ? 'a'.foo() : 'b'.bar()", 29).len(), 2);
    assert!(compile_error("!'a'.foo().x", 27).contains("type '<nil>' does not support field selection"));
}

/// Feature::OverloadErrorArgsSubstituted (1.28):
/// cel-go v0.12 (1.25–1.27) prints a failed call's argument types as recorded, type
/// variables included; from 1.28 unbound ones print as `dyn`.
#[test]
fn overload_errors_print_type_variables_before_1_28() {
    let msg = |minor: u32| error_lines("[] + 1", minor)[0].clone();
    assert_eq!(msg(27), "ERROR: <input>:1:4: found no matching overload for '_+_' applied to '(list(_var0), int)'");
    assert_eq!(msg(28), "ERROR: <input>:1:4: found no matching overload for '_+_' applied to '(list(dyn), int)'");
}

/// Feature::HomogeneousLiteralValidator (1.29):
/// Before 1.29 the checker itself rejects mixed-type literals (`joinTypes` with
/// homogeneous aggregate literals), at each element, with the other checker errors; from
/// 1.29 the validator after a clean check.
#[test]
fn mixed_literals_are_checker_errors_before_1_29() {
    assert_eq!(
        error_lines("[1, 2.0, 'c', 3].x() == 1", 28),
        vec![
            "ERROR: <input>:1:5: expected type 'int' but found 'double'".to_string(),
            "ERROR: <input>:1:15: expected type 'string' but found 'int'".into(),
            "ERROR: <input>:1:19: undeclared reference to 'x' (in container '')".into(),
            "ERROR: <input>:1:22: found no matching overload for '_==_' applied to '(<nil>, int)'".into(),
        ]
    );
    assert_eq!(
        error_lines("[1, [2]]", 28),
        vec!["ERROR: <input>:1:5: expected type 'int' but found 'list(int)'".to_string()]
    );
    assert_eq!(
        error_lines("[1, [2]]", 29),
        vec!["ERROR: <input>:1:5: expected type 'int' but found 'list(int)'".to_string()]
    );
    assert_eq!(error_lines("[1, [2]].x()", 29), vec!["ERROR: <input>:1:11: undeclared reference to 'x' (in container '')".to_string()]);
}

/// Feature::GlobalMatches (1.28):
/// cel-go v0.12 (1.25–1.27) has no global `matches(string, string)`.
#[test]
fn global_matches_from_1_28() {
    assert_eq!(
        error_lines("matches('a', 'b')", 27),
        vec!["ERROR: <input>:1:8: found no matching overload for 'matches' applied to '(string, string)'".to_string()]
    );
    assert_eq!(compile_error("matches('a', 'b')", 28), "");
    assert_eq!(compile_error("'a'.matches('b')", 25), "");
}

/// Feature::CheckerByteColumns (1.29):
/// Checker errors after a non-ASCII character: code-point columns before 1.29 (the 1.28
/// vectors); from 1.29 crdlab keeps the `cel` crate's byte offsets.
#[test]
fn checker_columns_in_code_points_before_1_29() {
    assert_eq!(
        error_lines("'😀' == 1", 28),
        vec!["ERROR: <input>:1:5: found no matching overload for '_==_' applied to '(string, int)'".to_string()]
    );
    assert_eq!(
        error_lines("'😀' == 1", 29),
        vec!["ERROR: <input>:1:8: found no matching overload for '_==_' applied to '(string, int)'".to_string()]
    );
}

/// Feature::GrammarEscapedIdentifier (1.33):
/// Before 1.33 (cel-go v0.23's lexer) every backquote is an ANTLR lexer error and is
/// skipped; from 1.33 an escaped field name is one `unsupported syntax` error.
#[test]
fn backquotes_are_lexer_errors_before_1_33() {
    assert_eq!(
        error_lines("m.`key-name` == 'v'", 32),
        vec![
            "ERROR: <input>:1:3: Syntax error: token recognition error at: '`'".to_string(),
            "ERROR: <input>:1:12: Syntax error: token recognition error at: '`'".into(),
        ]
    );
    assert_eq!(error_lines("m.`key-name` == 'v'", 33), vec!["ERROR: <input>:1:3: unsupported syntax: '`'".to_string()]);
}

/// Feature::GrammarOptionalToken (1.28):
/// cel-go v0.12's grammar (1.25–1.27) has no optional-syntax alternatives: a `?` after
/// `.`, `[` or `{` is one token too many, after a literal's `,` it ends the literal; from
/// 1.28 the parser's `unsupported syntax` (optional syntax comes with compatibility 1.28).
#[test]
fn optional_syntax_is_an_antlr_error_before_1_28() {
    let set = "'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER";
    assert_eq!(
        error_lines("self.?x.orValue(1) == self.l[?0]", 27),
        vec![
            "ERROR: <input>:1:6: Syntax error: extraneous input '?' expecting IDENTIFIER".to_string(),
            format!("ERROR: <input>:1:30: Syntax error: extraneous input '?' expecting {{{}}}", set),
        ]
    );
    assert_eq!(error_lines("self.?x", 28), vec!["ERROR: <input>:1:5: unsupported syntax '.?'".to_string()]);
    assert_eq!(
        error_lines("['a', ?x, 'c']", 27),
        vec![
            "ERROR: <input>:1:7: Syntax error: missing ']' at '?'".to_string(),
            "ERROR: <input>:1:9: Syntax error: mismatched input ',' expecting ':'".into(),
        ]
    );
    assert_eq!(
        error_lines("{?'k': x}", 27),
        vec!["ERROR: <input>:1:2: Syntax error: extraneous input '?' expecting {'[', '{', '}', '(', '.', ',', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}".to_string()]
    );
    assert_eq!(
        error_lines("x.in", 27)[0],
        "ERROR: <input>:1:3: Syntax error: missing IDENTIFIER at 'in'"
    );
    assert_eq!(error_lines("x.in", 28)[0], "ERROR: <input>:1:3: Syntax error: no viable alternative at input '.in'");
}

/// Feature::OutputTypeParameters (1.29):
/// Expression mode's `outputType` of a type of types: a bare `type` before 1.29 (cel-go
/// v0.12–v0.16's `cel.Type`), `type(int)` from 1.29.
#[test]
fn output_types_of_types_name_their_parameter_from_1_29() {
    let out = |minor: u32| {
        let req = Request {
            mode: Some("eval".into()),
            expr: Some("type(1)".into()),
            kubernetes_version: Some(format!("1.{}", minor)),
            ..Default::default()
        };
        Engine::new().handle(&req).eval.get("outputType").cloned()
    };
    assert_eq!(out(28), Some(json!("type")));
    assert_eq!(out(29), Some(json!("type(int)")));
}

// ---------------------------------------------------------------------------- cost per release

/// An expression-mode answer's estimated cost (`[min, max]`) and actual cost on `minor`,
/// `self` bound to `self_value` (dyn) unless it is null.
fn eval_costs(expr: &str, self_value: Value, minor: u32) -> ([u64; 2], u64) {
    let req = Request {
        mode: Some("eval".into()),
        expr: Some(expr.into()),
        vars: if self_value.is_null() { None } else { Some(json!({ "self": self_value })) },
        kubernetes_version: Some(format!("1.{}", minor)),
        ..Default::default()
    };
    let a = Engine::new().handle(&req);
    assert!(a.error.is_none(), "{:?}", a.error);
    let e = &a.eval;
    assert!(e.get("compileError").is_none(), "{} on 1.{}: {:?}", expr, minor, e);
    let est = &e["estimatedCost"];
    (
        [est["min"].as_u64().unwrap(), est["max"].as_u64().unwrap()],
        e["actualCost"].as_u64().unwrap(),
    )
}

/// Feature::PresenceTestCostsOperand (cel-go v0.16, google/cel-go#711, Kubernetes 1.28):
/// `has(x.f)` is estimated as its operand plus the presence test's own cost; before (cel-go
/// v0.12) it is estimated 0, and at run time only its operand's evaluation costs, so a
/// presence test on a literal costs nothing.
#[test]
fn presence_test_costs_its_operand_from_1_28() {
    let self_a = json!({"a": {"b": 1}});
    // 1.27: has() 0, `!_` 1 (estimate); at run time `self.a` (ident 1 + qualifier 1).
    assert_eq!(eval_costs("!has(self.a.b)", self_a.clone(), 27), ([1, 1], 3));
    // 1.28: `self.a` (ident 1; a select on `dyn` 0) + the presence test (1) + `!_` (1).
    assert_eq!(eval_costs("!has(self.a.b)", self_a.clone(), 28).0, [3, 3]);
    // A literal operand: 1.27 charges only the two comparisons at run time.
    let lit = "has({}.a) != true && has({'b': 1}.b) == true";
    assert_eq!(eval_costs(lit, Value::Null, 27), ([1, 2], 2));
    assert_eq!(eval_costs(lit, Value::Null, 28).1, 4);
}

/// Feature::PresenceTestFree (kubernetes#122193, 1.29): the presence test itself costs 0
/// again (`PresenceTestHasCost(false)`); its operand still counts.
#[test]
fn presence_test_itself_free_from_1_29() {
    let v = json!({"a": {"b": 1}});
    assert_eq!(eval_costs("!has(self.a.b)", v.clone(), 28).0, [3, 3]);
    assert_eq!(eval_costs("!has(self.a.b)", v, 29).0, [2, 2]);
}

/// Feature::CostFactorSaturates (cel-go v0.17, 1.29): `multiplyByCostFactor` saturates a
/// product of 2^64 or more; before, Go's float-to-uint64 conversion on amd64 gives 2^63:
/// `'a' in self.m` (a list of unknown size, factor 1) is 2^63 + 1 (`self` 1) on 1.28.
#[test]
fn cost_factor_overflow_saturates_from_1_29() {
    let v = json!({"m": {"a": 1}});
    assert_eq!(eval_costs("'a' in self.m", v.clone(), 28).0, [1, 9_223_372_036_854_775_809]);
    assert_eq!(eval_costs("'a' in self.m", v, 29).0, [1, u64::MAX]);
}

/// Feature::LibraryResultSizes (google/cel-go#787, in Kubernetes 1.26 and 1.27 patches): a
/// library call keeps the result size the apiserver's estimator gives; on 1.25 the result
/// of `upperAscii()` has an unknown size, so comparing two of them is a traversal of a
/// string of unknown length (ceil(2^64 × 0.1) + 6).
#[test]
fn library_result_sizes_from_1_26() {
    let e = "'ABCDEFGHIJ abcdefghij'.upperAscii() == 'abcdefghij ABCDEFGHIJ'.upperAscii()";
    assert_eq!(eval_costs(e, Value::Null, 25).0, [7, 1_844_674_407_370_955_270]);
    assert_eq!(eval_costs(e, Value::Null, 26).0, [7, 9]);
}

/// Feature::QuantityParseCost (apiserver cost.go, 1.30): `quantity(s)` and `isQuantity(s)`
/// cost a traversal of `s` (× 0.1), estimated and at run time; 1.29 has no entry for them:
/// cel-go's default, 1.
#[test]
fn quantity_parse_cost_from_1_30() {
    let e = "quantity(\"9999999999999999999999999999999999999G\").asInteger()";
    assert_eq!(eval_costs(e, Value::Null, 29), ([2, 2], 2));
    assert_eq!(eval_costs(e, Value::Null, 30), ([5, 5], 5));
}

// ---- Object validation flow per release (status strategy, hasBlockingErr, kube-openapi's
// object validator, ratcheting equality)

/// A widgets CRD with the status subresource; `status` and `spec` property schemas as JSON.
fn status_crd(status_props: Value) -> Value {
    let mut c = common::widgets_json(json!({
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
            "status": {"type": "object", "properties": status_props},
        },
    }));
    c["spec"]["versions"][0]["subresources"] = json!({"status": {}});
    c
}

/// The error messages of a status-subresource update (`ratcheting` left to the protocol).
fn run_status(crd: &Value, minor: u32, status: Value, old_status: Value) -> Vec<String> {
    let req = Request {
        crd: Some(crd.clone()),
        kubernetes_version: Some(format!("1.{}", minor)),
        object: Some(json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": 1}, "status": status})),
        old_object: Some(json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": 1}, "status": old_status})),
        subresource: Some("status".into()),
        ..Default::default()
    };
    let a = Engine::new().handle(&req);
    assert!(a.error.is_none(), "1.{}: {:?}", minor, a.error);
    a.errors
        .unwrap_or_default()
        .iter()
        .map(|e| serde_json::to_value(e).unwrap()["message"].as_str().unwrap().to_string())
        .collect()
}

/// Feature::StatusSchemaValidator (kubernetes#119340, 1.28): a status update validates
/// `.status` against the status schema, so kube-openapi names `count`, not `status.count`;
/// before, the whole object against the whole schema.
#[test]
fn status_updates_validate_the_status_schema_from_1_28() {
    let c = status_crd(json!({"count": {"type": "integer", "minimum": 1}, "note": {"type": "string"}}));
    assert_eq!(
        run_status(&c, 27, json!({"count": 0}), json!({"count": 2})),
        vec!["status.count: Invalid value: 0: status.count in body should be greater than or equal to 1"]
    );
    assert_eq!(
        run_status(&c, 28, json!({"count": 0}), json!({"count": 2})),
        vec!["count: Invalid value: 0: count in body should be greater than or equal to 1"]
    );
}

/// Feature::StatusErrorsUnderStatus (kubernetes#123822, 1.31): the status errors' paths
/// start with `status.` again; the kube-openapi text keeps its status-relative name.
#[test]
fn status_update_errors_are_rooted_at_status_from_1_31() {
    let c = status_crd(json!({"count": {"type": "integer", "minimum": 1}}));
    assert_eq!(
        run_status(&c, 30, json!({"count": 0}), json!({"count": 2})),
        vec!["count: Invalid value: 0: count in body should be greater than or equal to 1"]
    );
    assert_eq!(
        run_status(&c, 31, json!({"count": 0}), json!({"count": 2})),
        vec!["status.count: Invalid value: 0: count in body should be greater than or equal to 1"]
    );
}

/// Feature::StatusListTypeValidation (kubernetes#111866, 1.26): the status strategy checks
/// `x-kubernetes-list-type` sets and maps; 1.25's does not.
#[test]
fn status_updates_check_list_types_from_1_26() {
    let c = status_crd(json!({"tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}}));
    assert_eq!(run_status(&c, 25, json!({"tags": ["a", "a"]}), json!({"tags": ["a"]})), Vec::<String>::new());
    assert_eq!(
        run_status(&c, 26, json!({"tags": ["a", "a"]}), json!({"tags": ["a"]})),
        vec![r#"status.tags[1]: Duplicate value: "a""#]
    );
}

/// Feature::EnumErrorsBlockCel (kubernetes#121085, 1.29): an `Unsupported value` keeps the
/// CEL rules from running; before, the rules still run.
#[test]
fn enum_errors_block_cel_from_1_29() {
    let c = crd("              mode: {type: string, enum: [a, b]}", "            - rule: 'false'\n              message: never");
    assert_eq!(
        run(&c, 28, obj(json!({"mode": "c"})), None, None).errors,
        vec![r#"spec.mode: Unsupported value: "c": supported values: "a", "b""#, r#"spec: Invalid value: "object": never"#]
    );
    assert_eq!(
        run(&c, 29, obj(json!({"mode": "c"})), None, None).errors,
        vec![
            r#"spec.mode: Unsupported value: "c": supported values: "a", "b""#,
            r#"<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"#
        ]
    );
}

/// Feature::ObjectValidatorVisitsAll (kube-openapi#412, 1.28): after a `minProperties`
/// error the object's required fields are still checked; before, that error is all.
#[test]
fn object_validator_continues_after_property_counts_from_1_28() {
    let c = crd(
        "              cfg: {type: object, minProperties: 2, required: [x], properties: {x: {type: string}, y: {type: integer}}}",
        "            - rule: 'true'",
    );
    // (The value is 0 whatever the count: kube-openapi's TooFewProperties error carries none.)
    let min = "spec.cfg: Invalid value: 0: spec.cfg in body should have at least 2 properties";
    assert_eq!(run(&c, 27, obj(json!({"cfg": {"y": 1}})), None, None).errors, vec![min]);
    assert_eq!(
        run(&c, 28, obj(json!({"cfg": {"y": 1}})), None, None).errors,
        vec![
            min,
            "spec.cfg.x: Required value",
            r#"<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"#
        ]
    );
}

/// Feature::RatchetingListsAsUnits (1.29): an unchanged list that is not a map list
/// ratchets as a unit; 1.28's validator never finds it unchanged.
#[test]
fn unchanged_atomic_lists_ratchet_from_1_29() {
    let c = crd(
        "              items: {type: array, maxItems: 1, items: {type: string}}\n              other: {type: string}",
        "            - rule: 'true'",
    );
    let old = obj(json!({"items": ["a", "b"], "other": "x"}));
    let new = obj(json!({"items": ["a", "b"], "other": "y"}));
    assert_eq!(
        run(&c, 28, new.clone(), Some(old.clone()), None).errors,
        vec![
            "spec.items: Too many: 2: must have at most 1 items",
            r#"<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"#
        ]
    );
    assert_eq!(run(&c, 29, new, Some(old), None).errors, Vec::<String>::new());
}

/// Feature::StatusUpdatesUnratcheted (kubernetes#121016 → kubernetes#129506): 1.29–1.32
/// validate a status update without ratcheting; 1.28 and 1.33+ ratchet it.
#[test]
fn status_updates_do_not_ratchet_from_1_29_to_1_32() {
    let c = status_crd(json!({"count": {"type": "integer", "minimum": 1}, "note": {"type": "string"}}));
    let unchanged = |minor| run_status(&c, minor, json!({"count": 0, "note": "b"}), json!({"count": 0, "note": "a"}));
    assert_eq!(unchanged(28), Vec::<String>::new());
    assert_eq!(unchanged(29), vec!["count: Invalid value: 0: count in body should be greater than or equal to 1"]);
    assert_eq!(unchanged(32), vec!["status.count: Invalid value: 0: count in body should be greater than or equal to 1"]);
    assert_eq!(unchanged(33), Vec::<String>::new());
}

/// Objects are validated with the rules compiled in the release's stored-expressions
/// environment (apiextensions' object `validator` compiles with
/// `StoredExpressionsEnvLoader`): on 1.30, whose new rules may not call `isIP()` yet (ip
/// arrives at compatibility 1.30), the CRD write reports the compile error while an object
/// is checked by the rule; on 1.29 the release has no ip library at all.
#[test]
fn objects_are_validated_in_the_stored_expressions_environment() {
    let c = crd("              ip: {type: string}", "            - rule: 'isIP(self.ip)'");
    let undeclared = "undeclared reference to 'isIP' (in container '')\n | isIP(self.ip)\n | ....^";
    let good = obj(json!({"ip": "10.0.0.1"}));
    let bad = obj(json!({"ip": "nope"}));
    let o = run(&c, 30, good.clone(), None, None);
    assert_eq!(o.errors, Vec::<String>::new());
    assert_eq!(o.crd_errors.len(), 1, "{:?}", o.crd_errors);
    assert!(o.crd_errors[0].ends_with(&format!("compilation failed: ERROR: <input>:1:5: {}", undeclared)), "{:?}", o.crd_errors);
    let o = run(&c, 30, bad.clone(), None, None);
    assert_eq!(o.errors, vec!["spec: Invalid value: \"object\": failed rule: isIP(self.ip)"]);
    let o = run(&c, 31, bad, None, None);
    assert_eq!(o.crd_errors, Vec::<String>::new());
    assert_eq!(o.errors, vec!["spec: Invalid value: \"object\": failed rule: isIP(self.ip)"]);
    let o = run(&c, 29, good, None, None);
    assert_eq!(
        o.errors,
        vec![format!("spec: Invalid value: \"object\": rule compile error: compilation failed: ERROR: <input>:1:5: {}", undeclared)]
    );
}

/// An expression-mode answer (`"mode": "eval"`) at release 1.`minor`.
fn eval_at(expr: &str, minor: u32) -> serde_json::Map<String, Value> {
    let req = Request {
        mode: Some("eval".into()),
        expr: Some(expr.into()),
        kubernetes_version: Some(format!("1.{}", minor)),
        ..Default::default()
    };
    let a = Engine::new().handle(&req);
    assert!(a.error.is_none(), "1.{}: {:?}", minor, a.error);
    a.eval
}

/// Feature::OptionalTypeName (1.31):
/// The optional type is `optional_type` from cel-go v0.18.2 (google/cel-go#870; 1.31's
/// v0.20.1), `optional` in 1.29/1.30's v0.17.8: the output type and the typed value say so.
#[test]
fn optional_type_is_named_optional_before_1_31() {
    let expr = "{'k': 'v'}[?'k']";
    let at30 = eval_at(expr, 30);
    assert_eq!(at30["outputType"], json!("optional(string)"));
    assert_eq!(at30["typedValue"], json!({"type": "optional", "value": {"type": "string", "value": "v"}}));
    let at31 = eval_at(expr, 31);
    assert_eq!(at31["outputType"], json!("optional_type(string)"));
    assert_eq!(at31["typedValue"], json!({"type": "optional_type", "value": {"type": "string", "value": "v"}}));
}

/// Feature::FormatCallValidator (1.31):
/// A literal `format` call is checked when the expression compiles from 1.31 (cel-go's
/// `stringFormatValidator`); on 1.30 the same mistake is an evaluation error, and surplus
/// arguments are not one at all.
#[test]
fn format_calls_are_checked_at_compile_time_from_1_31() {
    let expr = "\"%d\".format([2.5])";
    let at30 = eval_at(expr, 30);
    assert_eq!(at30.get("compileError"), None);
    assert_eq!(at30["outputType"], json!("string"));
    assert_eq!(at30["evalError"], json!("error during formatting: decimal clause can only be used on integers, was given double"));
    assert_eq!(
        eval_at(expr, 31)["compileError"],
        json!("ERROR: <input>:1:14: error during formatting: decimal clause can only be used on integers, was given double\n | \"%d\".format([2.5])\n | .............^")
    );
    let surplus = "\"%s %s\".format([\"abc\", \"def\", \"ghi\"])";
    assert_eq!(eval_at(surplus, 30)["value"], json!("abc def"));
    assert_eq!(
        eval_at(surplus, 31)["compileError"],
        json!("ERROR: <input>:1:15: too many arguments supplied to string.format (expected 2, got 3)\n | \"%s %s\".format([\"abc\", \"def\", \"ghi\"])\n | ..............^")
    );
}

/// Feature::IndexOfPastEndNotFound (1.32):
/// `indexOf`/`lastIndexOf` with an offset past the end: `index out of range` before 1.32
/// (cel-go `indexOfOffset` before v0.22), -1 from 1.32.
#[test]
fn index_of_past_the_end_finds_nothing_from_1_32() {
    for expr in ["'tacocat'.indexOf('a', 30)", "'tacocat'.lastIndexOf('a', 30)"] {
        assert_eq!(eval_at(expr, 31)["evalError"], json!("index out of range: 30"), "{}", expr);
        assert_eq!(eval_at(expr, 25)["evalError"], json!("index out of range: 30"), "{}", expr);
        assert_eq!(eval_at(expr, 32)["value"], json!(-1), "{}", expr);
    }
}

/// Feature::OptionalListFunctions (1.33):
/// The optional library's `first()`, `last()`, `optional.unwrap()` and `unwrapOpt()` come
/// with cel-go v0.23 (1.33); 1.32's v0.22 does not declare them.
#[test]
fn optional_list_functions_arrive_in_1_33() {
    assert_eq!(
        eval_at("[1, 2, 3].last()", 32)["compileError"],
        json!("ERROR: <input>:1:15: undeclared reference to 'last' (in container '')\n | [1, 2, 3].last()\n | ..............^")
    );
    assert_eq!(
        eval_at("optional.unwrap([])", 32)["compileError"],
        json!("ERROR: <input>:1:1: undeclared reference to 'optional' (in container '')\n | optional.unwrap([])\n | ^\nERROR: <input>:1:16: undeclared reference to 'unwrap' (in container '')\n | optional.unwrap([])\n | ...............^")
    );
    let at33 = eval_at("[1, 2, 3].last()", 33);
    assert_eq!(at33["typedValue"], json!({"type": "optional_type", "value": {"type": "int", "value": 3}}));
    assert_eq!(eval_at("[optional.of(1), optional.none()].unwrapOpt()", 33)["value"], json!([1]));
}

/// Feature::ScientificWithoutSpaces (1.33):
/// `%e` puts narrow no-break spaces (U+202F) around the `×` up to 1.32 (golang.org/x/text's
/// en-US pattern as those releases vendor it), none from 1.33.
#[test]
fn scientific_format_drops_its_narrow_spaces_in_1_33() {
    let expr = "'%e'.format([1052.032911275])";
    assert_eq!(eval_at(expr, 32)["value"], json!("1.052033\u{202f}×\u{202f}10⁰³"));
    assert_eq!(eval_at(expr, 30)["value"], json!("1.052033\u{202f}×\u{202f}10⁰³"));
    assert_eq!(eval_at(expr, 33)["value"], json!("1.052033×10⁰³"));
}

/// Feature::GlobalMatches (1.28):
/// The global `matches(string, string)` arrived with cel-go v0.13 (google/cel-go#589):
/// 1.25–1.27 (v0.12) know only the member form.
#[test]
fn global_matches_in_crd_rules_from_1_28() {
    let c = crd("              name: {type: string}", "            - rule: \"matches(self.name, '^a')\"");
    let o = run(&c, 27, obj(json!({"name": "abc"})), None, None);
    assert_eq!(o.crd_errors.len(), 1, "{:?}", o.crd_errors);
    assert!(
        o.crd_errors[0].ends_with(
            "compilation failed: ERROR: <input>:1:8: found no matching overload for 'matches' applied to '(string, string)'\n | matches(self.name, '^a')\n | .......^"
        ),
        "{:?}",
        o.crd_errors
    );
    let o = run(&c, 28, obj(json!({"name": "xyz"})), None, None);
    assert_eq!(o.crd_errors, Vec::<String>::new());
    assert_eq!(o.errors, vec!["spec: Invalid value: \"object\": failed rule: matches(self.name, '^a')"]);
}

/// Feature::IndexOutOfBoundsText (1.28):
/// A list index outside the list: cel-go v0.12 (1.25–1.27) reports its list's `Get` error,
/// later releases `index out of bounds: N`.
#[test]
fn list_index_out_of_range_text_changed_in_1_28() {
    let expr = "[1, 2, 3][100] == 0";
    assert_eq!(eval_at(expr, 27)["evalError"], json!("index '100' out of range in list size '3'"));
    assert_eq!(eval_at(expr, 28)["evalError"], json!("index out of bounds: 100"));
    let c = crd("              items: {type: array, items: {type: string}}", "            - rule: \"self.items[1] == 'a'\"");
    let o = run(&c, 25, obj(json!({"items": ["x"]})), None, None);
    assert_eq!(o.errors, vec!["spec: Invalid value: \"object\": index '1' out of range in list size '1' evaluating rule: self.items[1] == 'a'"]);
    let o = run(&c, 28, obj(json!({"items": ["x"]})), None, None);
    assert_eq!(o.errors, vec!["spec: Invalid value: \"object\": index out of bounds: 1 evaluating rule: self.items[1] == 'a'"]);
}

/// Feature::FormatValidatorPanicsOnNonLiteral (1.31 until 1.32):
/// cel-go v0.20.1 (1.31 only) panics in its format validator on a `format` call whose
/// receiver is not a literal; 1.30 has no validator and 1.32's checks the receiver first.
#[test]
fn format_validator_panics_on_a_non_literal_receiver_at_1_31() {
    let expr = "strings.quote('%s %s').format(['hello', 'world']) == \"\\\"hello world\\\"\"";
    let a = eval_at(expr, 31);
    assert_eq!(
        a.get("panic").and_then(Value::as_str),
        Some("panic: runtime error: invalid memory address or nil pointer dereference (at github.com/google/cel-go/ext.matchConstantFormatStringWithListLiteralArgs.func1 github.com/google/cel-go@v0.20.1/ext/formatting.go:487)")
    );
    assert!(a.get("outputType").is_none() && a.get("estimatedCost").is_none(), "{:?}", a);
    for minor in [30, 32] {
        let a = eval_at(expr, minor);
        assert!(a.get("panic").is_none(), "1.{}: {:?}", minor, a);
        assert_eq!(a.get("typedValue"), Some(&json!({"type": "bool", "value": true})), "1.{}", minor);
    }
    // A literal receiver is validated, not a crash.
    let a = eval_at("'%d'.format(['x'])", 31);
    assert!(a.get("panic").is_none() && a.get("compileError").is_some(), "{:?}", a);
}

// ---------------------------------------------------------------------------- one test per switch

/// Feature::SelectableFields (1.31, the CustomResourceFieldSelectors gate beta, kubernetes#124162):
/// `ValidateCustomResourceSelectableFields` checks each `jsonPath`; 1.30 (gate alpha, off)
/// drops the field before validation (`dropDisabledFields`), so nothing is reported.
#[test]
fn selectable_fields_are_checked_from_1_31() {
    let c = crd("              name: {type: string}", "            - rule: 'true'").replace(
        "    storage: true\n",
        "    storage: true\n    selectableFields:\n    - jsonPath: .spec.missing\n    - jsonPath: .spec.name\n    - jsonPath: .spec.name\n",
    );
    assert_eq!(run(&c, 30, obj(json!({})), None, None).crd_errors, Vec::<String>::new());
    assert_eq!(
        run(&c, 31, obj(json!({})), None, None).crd_errors,
        vec![
            r#"spec.selectableFields[0].jsonPath: Invalid value: ".spec.missing": is an invalid path: does not refer to a valid field"#,
            r#"spec.selectableFields[2].jsonPath: Duplicate value: ".spec.name""#,
        ]
    );
}

/// The messages of a CRD write (no object) on `minor`.
fn crd_write_errors(crd: &str, minor: u32) -> Vec<String> {
    let req = Request {
        crd: Some(Value::String(crd.to_string())),
        kubernetes_version: Some(format!("1.{}", minor)),
        ..Default::default()
    };
    let a = Engine::new().handle(&req);
    assert!(a.error.is_none(), "1.{}: {:?}", minor, a.error);
    a.crd_errors.unwrap_or_default().iter().map(|e| e.message.clone()).collect()
}

/// Feature::BareSchemaRequired (1.36): a version without a schema is a bare `Required
/// value` (as the wild 1.36 vectors show); 1.35 adds the detail `schemas are required`.
#[test]
fn missing_schema_is_a_bare_required_value_from_1_36() {
    let c = format!("{}  versions:\n  - name: v1\n    served: true\n    storage: true\n", common::WIDGETS_HEAD);
    assert_eq!(
        crd_write_errors(&c, 35),
        vec!["spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required"]
    );
    assert_eq!(crd_write_errors(&c, 36), vec!["spec.versions[0].schema.openAPIV3Schema: Required value"]);
}

/// Feature::LabelChecksInBytes (1.35): label values are measured in bytes (`must be no more
/// than 63 bytes`, the 1.36 vectors' text) and annotation keys and finalizers are named `a
/// valid label key`; 1.34's apimachinery says `characters` and `a qualified name`.
#[test]
fn label_checks_speak_of_bytes_from_1_35() {
    let c = crd("              name: {type: string}", "            - rule: 'true'");
    let mut o = obj(json!({}));
    o["metadata"]["labels"] = json!({"app": "v".repeat(64)});
    o["metadata"]["finalizers"] = json!(["nope/a/b"]);
    let rest = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
    let label = format!("metadata.labels: Invalid value: \"{}\": must be no more than 63", "v".repeat(64));
    assert_eq!(
        run(&c, 34, o.clone(), None, None).errors,
        vec![format!("{} characters", label), format!("metadata.finalizers: Invalid value: \"nope/a/b\": a qualified name {}", rest)]
    );
    assert_eq!(
        run(&c, 35, o, None, None).errors,
        vec![format!("{} bytes", label), format!("metadata.finalizers: Invalid value: \"nope/a/b\": a valid label key {}", rest)]
    );
}

/// Feature::PrintRuleValues (1.35): a failed rule on a scalar prints the value; 1.34 prints
/// the schema type (`"string"`).
#[test]
fn failed_rules_print_scalar_values_from_1_35() {
    let c = crd(
        "              name:\n                type: string\n                x-kubernetes-validations:\n                - rule: self == 'ok'",
        "            - rule: 'true'",
    );
    let bad = obj(json!({"name": "bad"}));
    assert_eq!(run(&c, 34, bad.clone(), None, None).errors, vec![r#"spec.name: Invalid value: "string": failed rule: self == 'ok'"#]);
    assert_eq!(run(&c, 35, bad, None, None).errors, vec![r#"spec.name: Invalid value: "bad": failed rule: self == 'ok'"#]);
}

/// Feature::ReasonAndFieldPath (1.28): `reason` and `fieldPath` are decoded, so the failure
/// is a `Forbidden` at `spec.name`; 1.27 drops them (its messageExpression still applies).
#[test]
fn reason_and_field_path_from_1_28() {
    let c = crd(
        NAME_PROPS,
        "            - rule: self.name == 'ok'\n              messageExpression: \"'expr ' + self.name\"\n              reason: FieldValueForbidden\n              fieldPath: .name",
    );
    let bad = obj(json!({"name": "nope"}));
    assert_eq!(run(&c, 27, bad.clone(), None, None).errors, vec![r#"spec: Invalid value: "object": expr nope"#]);
    assert_eq!(run(&c, 28, bad, None, None).errors, vec!["spec.name: Forbidden: expr nope"]);
}

/// Feature::RatchetingByDefault (1.30, CRDValidationRatcheting beta): what a release does
/// when nobody sets the gate; 1.29 ships it off. (The batch protocol turns it on wherever it
/// exists, so the default shows through `KubeVersion::ratcheting`.)
#[test]
fn ratcheting_is_the_default_from_1_30() {
    use crdlab::version::KubeVersion;
    assert_eq!(KubeVersion { minor: 29 }.ratcheting(None), Ok(false));
    assert_eq!(KubeVersion { minor: 30 }.ratcheting(None), Ok(true));
    // What the gate changes on an update that leaves a broken value as it was.
    let c = crd(NAME_PROPS, "            - rule: 'true'");
    let old = obj(json!({"name": "toolong", "other": "a"}));
    let new = obj(json!({"name": "toolong", "other": "b"}));
    assert_eq!(
        run(&c, 29, new.clone(), Some(old.clone()), Some(false)).errors[0],
        "spec.name: Too long: may not be longer than 5"
    );
    assert_eq!(run(&c, 30, new, Some(old), Some(true)).errors, Vec::<String>::new());
}

/// Feature::OptionalSyntax (compatibility 1.28): new rules of a 1.28 server compile at 1.27,
/// without optional syntax (`unsupported syntax '.?'`); a 1.29 server's new rules have it.
/// (The object is still checked by the stored-expressions environment, which has it at 1.28.)
#[test]
fn optional_syntax_in_new_rules_from_compatibility_1_28() {
    let c = crd("              x: {type: string}", "            - rule: \"self.?x.orValue('') == 'a'\"");
    let failed = vec![r#"spec: Invalid value: "object": failed rule: self.?x.orValue('') == 'a'"#.to_string()];
    let o = run(&c, 28, obj(json!({})), None, None);
    assert_eq!(
        o.crd_errors,
        vec![r#"spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.?x.orValue('') == 'a'", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:""}: compilation failed: ERROR: <input>:1:5: unsupported syntax '.?'
 | self.?x.orValue('') == 'a'
 | ....^"#]
    );
    assert_eq!(o.errors, failed);
    let o = run(&c, 29, obj(json!({})), None, None);
    assert_eq!(o.crd_errors, Vec::<String>::new());
    assert_eq!(o.errors, failed);
}

/// Feature::LiteralValidators (compatibility 1.29): a constant `duration('1x')` is a compile
/// error for the new rules of a 1.30 server; a 1.29 server's new rules (compatibility 1.28)
/// compile, and cel-go's constant folding (`OptOptimize`) fails when the program is built.
#[test]
fn literal_arguments_are_checked_from_compatibility_1_29() {
    let c = crd("              x: {type: string}", "            - rule: \"duration('1x') == duration('1s')\"");
    let head = r#"spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"duration('1x') == duration('1s')", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: "#;
    let compile = "compilation failed: ERROR: <input>:1:10: invalid duration argument\n | duration('1x') == duration('1s')\n | .........^";
    assert_eq!(
        crd_write_errors(&c, 29),
        vec![format!("{}program instantiation failed: type conversion error from 'string' to 'google.protobuf.Duration'", head)]
    );
    assert_eq!(crd_write_errors(&c, 30), vec![format!("{}{}", head, compile)]);
}

/// Feature::LogicalOperandChecks (cel-go v0.17, 1.29): `_&&_`/`_||_` check each operand
/// (`expected type 'bool' but found 'int'`, the wild-crdmut vectors' text); cel-go v0.16
/// (1.28) resolves them as overloads.
#[test]
fn logical_operands_are_checked_one_by_one_from_1_29() {
    assert_eq!(
        error_lines("1 && true || 2", 28),
        vec![
            "ERROR: <input>:1:3: found no matching overload for '_&&_' applied to '(int, bool)'".to_string(),
            "ERROR: <input>:1:11: found no matching overload for '_||_' applied to '(!error!, int)'".into(),
        ]
    );
    assert_eq!(
        error_lines("1 && true || 2", 29),
        vec![
            "ERROR: <input>:1:1: expected type 'bool' but found 'int'".to_string(),
            "ERROR: <input>:1:14: expected type 'bool' but found 'int'".into(),
        ]
    );
}

/// Feature::DefaultsWithoutOldSelf (1.30): when a default passes its rules with itself as
/// the old value, a second pass runs without one, where an `optionalOldSelf` rule sees
/// `optional.none()` (`dyn(oldSelf).hasValue()` is false). 1.29 has neither the pass nor
/// `optionalOldSelf` (dropped: `oldSelf` is the default itself, `== 5`), so the rule passes.
#[test]
fn defaults_are_checked_without_an_old_value_from_1_30() {
    let c = crd(
        "              z:\n                type: integer\n                default: 5\n                x-kubernetes-validations:\n                - rule: dyn(oldSelf) == 5 || dyn(oldSelf).hasValue()\n                  optionalOldSelf: true\n                  message: needs an old value",
        "            - rule: 'true'",
    );
    assert_eq!(crd_write_errors(&c, 29), Vec::<String>::new());
    assert_eq!(
        crd_write_errors(&c, 30),
        vec![r#"spec.validation.openAPIV3Schema.properties[spec].properties[z].default: Invalid value: "integer": needs an old value"#]
    );
}

/// Feature::StringLiteralCodePoints (google/cel-go#664, 1.28): a string literal's size is its
/// code points; cel-go v0.12 (1.27) counts bytes. 20 × `é` is 40 bytes: `contains` costs
/// ceil(40 × 0.1) = 4 on 1.27, ceil(20 × 0.1) = 2 on 1.28.
#[test]
fn string_literal_sizes_in_code_points_from_1_28() {
    let e = "'éééééééééééééééééééé'.contains('a')";
    assert_eq!(eval_costs(e, Value::Null, 27).0, [4, 4]);
    assert_eq!(eval_costs(e, Value::Null, 28).0, [2, 2]);
}

/// Feature::EnumBoundsStringLength (1.29): a string with an `enum` and no `maxLength` is as
/// long as its longest value: `contains` costs ceil(40 × 0.1) + 2 (`self.mode`) = 6; 1.28
/// sizes it by the request limit: ceil(3145726 × 0.1) + 2.
#[test]
fn enum_values_bound_string_sizes_from_1_29() {
    let c = crd(
        "              mode: {type: string, enum: [aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, b]}",
        "            - rule: self.mode.contains('a')",
    );
    let spec = "openAPIV3Schema.properties[spec]";
    assert_eq!(cost_of(&rule_costs(&c, 28), "self.mode.contains('a')", spec), 314_575);
    assert_eq!(cost_of(&rule_costs(&c, 29), "self.mode.contains('a')", spec), 6);
}

/// The costs (maxCost per rule) and the number of CRD errors of a CRD write on `minor`,
/// over-budget CRDs included.
fn costs_and_errors(crd: &str, minor: u32) -> (Vec<u64>, usize) {
    let req = Request {
        crd: Some(Value::String(crd.to_string())),
        kubernetes_version: Some(format!("1.{}", minor)),
        ..Default::default()
    };
    let a = Engine::new().handle(&req);
    assert!(a.error.is_none(), "{:?}", a.error);
    (
        a.rules.unwrap_or_default().into_iter().map(|r| r.max_cost.unwrap_or(0)).collect(),
        a.crd_errors.unwrap_or_default().len(),
    )
}

/// Feature::ComprehensionResultRangeSize (google/cel-go#901, 1.29 until 1.33): a
/// comprehension's result has its range's size, so `.map(...).exists(...)` over a bounded
/// list is bounded; 1.28's result has an unknown size (over the budget: 2 rules, the total,
/// and 2 contributions). 1.33's coster gives the result its accumulator's size: the same
/// figure here.
#[test]
fn comprehension_results_have_their_range_size_from_1_29() {
    let c = crd(
        "              tags: {type: array, maxItems: 10, items: {type: string, maxLength: 10}}",
        "            - rule: self.tags.map(t, t + 'x').exists(x, x.contains('a'))\n            - rule: self.tags.filter(t, t != '').all(x, x.contains('a'))",
    );
    assert_eq!(costs_and_errors(&c, 28), (vec![u64::MAX, u64::MAX], 5));
    assert_eq!(costs_and_errors(&c, 29), (vec![244, 194], 0));
    assert_eq!(costs_and_errors(&c, 32), (vec![244, 194], 0));
    assert_eq!(costs_and_errors(&c, 33), (vec![244, 194], 0));
}

/// Feature::KubernetesTypeEquality (kubernetes#126359, 1.32): `_==_` on Kubernetes types
/// (quantity, ip, cidr, url) has the apiserver's own estimate; 1.31 estimates it as a
/// traversal of an unknown size (ceil(2^64 × 0.1) + 2 with the two calls). The k8s-1.31 and
/// k8s-1.32 vectors of `ip('192.168.0.1') == ip('192.168.0.1')` (apiserver cost_test.go).
#[test]
fn kubernetes_type_equality_costs_from_1_32() {
    let vector = "ip('192.168.0.1') == ip('192.168.0.1')";
    assert_eq!(eval_costs(vector, Value::Null, 31), ([5, 1_844_674_407_370_955_268], 5));
    assert_eq!(eval_costs(vector, Value::Null, 32), ([5, 5], 5));
    for e in ["quantity('1') == quantity('2')", "ip('1.2.3.4') == ip('1.2.3.4')", "url('https://a') == url('https://b')"] {
        assert_eq!(eval_costs(e, Value::Null, 31), ([3, 1_844_674_407_370_955_266], 3), "{}", e);
        assert_eq!(eval_costs(e, Value::Null, 32), ([3, 3], 3), "{}", e);
    }
}

/// Feature::CostTracksLocals (google/cel-go#1104, 1.33): list literals carry their entries'
/// sizes and iteration variables use them, so `x + x` over `['a', 'b']` is bounded; 1.32
/// looks `x` up by name (unknown size).
#[test]
fn cost_tracks_locals_from_1_33() {
    let e = "['a', 'b'].map(x, x + x).size() > 0";
    assert_eq!(eval_costs(e, Value::Null, 32), ([51, 3_689_348_814_741_910_579], 33));
    assert_eq!(eval_costs(e, Value::Null, 33), ([53, 53], 33));
}

/// Feature::IntOrStringMaxLength (kubernetes#132837, 1.34): `maxLength` bounds an
/// `x-kubernetes-int-or-string` value: `string(self.v).contains('a')` is 10 instead of
/// the request-sized 629148 of 1.33.
#[test]
fn max_length_bounds_int_or_string_from_1_34() {
    let c = crd(
        "              v: {x-kubernetes-int-or-string: true, maxLength: 10}",
        "            - rule: string(self.v).contains('a')",
    );
    assert_eq!(costs_and_errors(&c, 33), (vec![629_148], 0));
    assert_eq!(costs_and_errors(&c, 34), (vec![10], 0));
}

/// Every per-release switch (`Feature::ALL` in engine/src/version.rs) has a hand-written
/// test here whose doc comment starts a line with `/// Feature::Name` (a line may name
/// several), so each behaviour is explained, not only matched by the vectors.
#[test]
fn every_switch_has_a_test() {
    let src = |p: &str| std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(p)).unwrap();
    // The names `Feature::X` in `text`, in order.
    fn names(text: &str) -> Vec<String> {
        text.split("Feature::")
            .skip(1)
            .map(|rest| rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>())
            .filter(|n| !n.is_empty())
            .collect()
    }
    let version = src("src/version.rs");
    let start = version.find("pub const ALL: &'static [Feature] = &[").expect("Feature::ALL in version.rs");
    let end = start + version[start..].find("];").expect("the end of Feature::ALL");
    let all = names(&version[start..end]);
    assert!(all.len() >= 50, "Feature::ALL read as {:?}", all);
    assert_eq!(all.len(), crdlab::version::Feature::ALL.len());
    let tests = src("tests/releases.rs");
    let tagged: std::collections::HashSet<String> = tests
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("/// Feature::"))
        .flat_map(names)
        .collect();
    let missing: Vec<&String> = all.iter().filter(|f| !tagged.contains(*f)).collect();
    assert!(missing.is_empty(), "no `/// Feature::Name` test in tests/releases.rs for: {:?}", missing);
    let unknown: Vec<&String> = tagged.iter().filter(|f| !all.contains(f)).collect();
    assert!(unknown.is_empty(), "tests/releases.rs names features version.rs does not have: {:?}", unknown);
}
