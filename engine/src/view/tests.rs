use super::*;

const CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.min <= self.max
              message: min must not exceed max
            - rule: self.mode == oldSelf.mode
              message: mode is immutable
            properties:
              min: {type: integer, maximum: 10}
              max: {type: integer}
              mode: {type: string, default: fast}
              extra:
                type: object
                x-kubernetes-preserve-unknown-fields: true
          status:
            type: object
            properties:
              ready: {type: boolean}
"#;

fn obj(spec: &str) -> String {
    format!("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n{}", spec)
}

#[test]
fn create_with_errors() {
    let mut ws = Workspace::new();
    let a = ws.analyze(CRD, &obj("  min: 12\n  max: 3\n  bogus: 1\n  extra: {a: 1}\n"), "", &Settings::default());
    assert_eq!(a.crd.load_error, None);
    assert!(a.crd.errors.is_empty(), "{:?}", a.crd.errors);
    // The rules and schema nodes only when asked for (the rules pane); the count always.
    let lean = &a.crd.per_version[0];
    assert_eq!((lean.rule_count, lean.rules.len(), lean.nodes.len()), (2, 0, 0));
    let full = ws.crd_view_full().expect("analysed");
    let v = &full.per_version[0];
    assert_eq!((v.rule_count, v.rules.len()), (2, 2));
    assert_eq!(v.rules[0].pointer, "/spec/versions/0/schema/openAPIV3Schema/properties/spec/x-kubernetes-validations/0");
    assert_eq!(v.rules[0].message, "min must not exceed max");
    assert_eq!(v.rules[0].range.map(|r| r.start_line), Some(20));
    assert!(v.nodes.iter().any(|n| n.field == "spec.min" && n.type_name == "integer"));
    assert!(v.cost_total > 0 && v.cost_total == v.rules.iter().map(|r| r.estimated_cost).sum::<u64>());
    assert_eq!((full.errors.len(), &full.name), (a.crd.errors.len(), &a.crd.name));
    assert!(std::sync::Arc::ptr_eq(&full, &ws.crd_view_full().unwrap()), "made once per compiled CRD");
    let o = a.object.as_ref().unwrap();
    let msgs: Vec<_> = o.errors.iter().map(|e| e.message.as_str()).collect();
    assert_eq!(
        msgs,
        vec![
            "spec.min: Invalid value: 12: spec.min in body should be less than or equal to 10",
            "spec: Invalid value: min must not exceed max",
        ]
    );
    assert_eq!(o.pruned.len(), 1);
    assert_eq!(o.pruned[0].0, "spec.bogus");
    assert_eq!(o.defaulted_fields, vec!["spec.mode"]);
    let state = |p: &str| o.tree.iter().find(|n| n.path == p).map(|n| n.state);
    assert_eq!(state("spec.min"), Some(tree::State::Error));
    assert_eq!(state("spec"), Some(tree::State::Error));
    assert_eq!(state("spec.max"), Some(tree::State::Valid));
    assert_eq!(state("spec.bogus"), Some(tree::State::Pruned));
    assert_eq!(state("spec.mode"), Some(tree::State::Defaulted));
    assert_eq!(state("spec.extra.a"), Some(tree::State::NotChecked));
    assert_eq!(state("metadata.name"), Some(tree::State::Valid));
    assert!(o.tree[0].errors_below);
    assert_eq!(a.summary.verdict, kubectl::Verdict::Rejected);
    assert_eq!(
        a.summary.lines,
        vec![
            "customresourcedefinition.apiextensions.k8s.io/widgets.example.com created",
            "Warning: unknown field \"spec.bogus\"",
            "The Widget \"w\" is invalid: ",
            "* spec.min: Invalid value: 12: spec.min in body should be less than or equal to 10",
            "* spec: Invalid value: min must not exceed max",
        ]
    );
}

#[test]
fn update_runs_transition_rules_and_reuses_the_crd() {
    let mut ws = Workspace::new();
    let a = ws.analyze(CRD, &obj("  min: 1\n  max: 3\n  mode: slow\n"), "", &Settings::default());
    assert_eq!(a.summary.lines.last().unwrap(), "widget.example.com/w created");
    let b = ws.analyze(CRD, &obj("  min: 1\n  max: 3\n  mode: slow\n"), &obj("  min: 1\n  max: 3\n  mode: fast\n"), &Settings::default());
    assert!(Arc::ptr_eq(&a.crd, &b.crd), "the CRD view is reused while only objects change");
    let o = b.object.unwrap();
    assert!(o.update);
    assert_eq!(o.errors.len(), 1);
    assert_eq!(o.errors[0].message, "spec: Invalid value: mode is immutable");
    let c = ws.analyze(CRD, &obj("  min: 1\n  max: 3\n"), &obj("  min: 1\n  max: 3\n"), &Settings::default());
    assert_eq!(c.summary.lines.last().unwrap(), "widget.example.com/w configured");
}

#[test]
fn ratcheting_and_status() {
    let mut ws = Workspace::new();
    let bad = obj("  min: 12\n  max: 30\n");
    let a = ws.analyze(CRD, &bad, &bad, &Settings::default());
    let o = a.object.unwrap();
    assert!(o.errors.is_empty(), "{:?}", o.errors);
    let b = ws.analyze(CRD, &bad, &bad, &Settings { ratcheting: Some(false), ..Default::default() });
    assert_eq!(b.object.unwrap().errors.len(), 1);
    let status = format!("{}status:\n  ready: 3\n", bad);
    let c = ws.analyze(CRD, &status, &bad, &Settings { status: true, ..Default::default() });
    let o = c.object.unwrap();
    // The schema error, and the apiserver's note that CEL rules did not run.
    assert_eq!(o.errors.len(), 2, "{:?}", o.errors);
    assert_eq!(o.errors[0].field, "status.ready");
    assert_eq!(o.errors[1].field, "<nil>");
    assert_eq!(o.tree[0].state, tree::State::Error);
    let spec = o.tree.iter().find(|n| n.path == "spec.min").unwrap();
    assert_eq!(spec.state, tree::State::NotChecked);
}

#[test]
fn bad_inputs_are_reported_with_places() {
    let mut ws = Workspace::new();
    let a = ws.analyze("a: [1, 2\n", "", "", &Settings::default());
    let e = a.crd.load_error.as_ref().unwrap();
    assert!(e.range.is_some(), "{:?}", e);
    assert_eq!(a.summary.verdict, kubectl::Verdict::InputError);
    let b = ws.analyze(CRD, "spec: {min: [\n", "", &Settings::default());
    let e = b.object.unwrap().load_error.unwrap();
    assert!(e.message.starts_with("cannot read object"), "{}", e.message);
    assert!(e.range.is_some());
    let c = ws.analyze(CRD, "- 1\n", "", &Settings::default());
    assert!(c.object.unwrap().load_error.unwrap().message.contains("not array"));
    let d = ws.analyze(CRD, "{}", "", &Settings { kubernetes_version: Some("1.99".into()), ..Default::default() });
    assert!(d.crd.load_error.is_some());
    let e = ws.analyze(CRD, "{}", "", &Settings { version: Some("v9".into()), ..Default::default() });
    assert!(e.object.unwrap().load_error.unwrap().message.contains("v9"));
}

#[test]
fn compile_errors_attach_to_their_rule() {
    let crd = CRD.replace("self.min <= self.max", "self.min <= self.nope");
    let mut ws = Workspace::new();
    let a = ws.analyze(&crd, "", "", &Settings::default());
    let full = ws.crd_view_full().unwrap();
    let r = &full.per_version[0].rules[0];
    assert_eq!(r.errors.len(), 1, "{:?}", a.crd.errors);
    assert!(r.errors[0].message.contains("undefined field 'nope'"), "{}", r.errors[0].message);
    assert!(full.per_version[0].rules[1].errors.is_empty());
    assert_eq!(a.summary.verdict, kubectl::Verdict::CrdRejected);
    assert!(a.summary.lines[0].starts_with("The CustomResourceDefinition \"widgets.example.com\" is invalid: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: "), "{:?}", a.summary.lines);
}

#[test]
fn kubectl_lines() {
    assert_eq!(kubectl::invalid("X", "n", &["a: b", "a: b"]), vec!["The X \"n\" is invalid: a: b"]);
    assert_eq!(kubectl::invalid("X", "n", &["a", "b"]), vec!["The X \"n\" is invalid: ", "* a", "* b"]);
}

#[test]
fn huge_objects_are_capped() {
    let items: String = (0..10_000).map(|i| format!("    - {}\n", i)).collect();
    let crd = CRD.replace("              extra:\n", "              list: {type: array, items: {type: integer}}\n              extra:\n");
    let mut ws = Workspace::new();
    let a = ws.analyze(&crd, &obj(&format!("  min: 1\n  max: 2\n  list:\n{}", items)), "", &Settings::default());
    let o = a.object.unwrap();
    assert!(o.errors.is_empty(), "{:?}", o.errors);
    assert!(o.tree.len() <= tree::MAX_NODES + 1);
    assert!(o.tree.last().unwrap().omitted > 0);
}

#[test]
fn postgres_operator_crd() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/crds/postgres-operator/config/crd/bases/postgres-operator.crunchydata.com_postgresclusters.yaml");
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!("skipped: {} not found", path);
        return;
    };
    let mut ws = Workspace::new();
    let a = ws.analyze(&text, "apiVersion: postgres-operator.crunchydata.com/v1beta1\nkind: PostgresCluster\nmetadata: {name: hippo}\nspec: {postgresVersion: 16}\n", "", &Settings::default());
    assert!(a.crd.errors.is_empty());
    let full = ws.crd_view_full().unwrap();
    let rules: usize = full.per_version.iter().map(|v| v.rules.len()).sum();
    assert!(rules > 100, "{}", rules);
    for (lean, v) in a.crd.per_version.iter().zip(&full.per_version) {
        assert_eq!(lean.rule_count, v.rules.len(), "{}", v.name);
        for r in &v.rules {
            assert!(r.range.is_some(), "{} has no range", r.schema_path);
        }
    }
    let o = a.object.unwrap();
    assert!(!o.errors.is_empty());
}

/// Several releases selected: the analysis holds each release's answer (the engine's
/// comparison), the target release's row agrees with the kubectl summary, and the
/// messages only some releases print are grouped by those releases.
#[test]
fn compared_releases_answer_each_and_group_the_differences() {
    use crate::analysis::releases::{MessageKind, Verdict};
    let crd = crate::testing::widgets_spec(
        "            properties:\n              name: {type: string, maxLength: 5}\n            x-kubernetes-validations:\n            - rule: self.name.matches('^[a-z]+$')\n",
    );
    let object = obj("  name: toolong\n");
    let mut ws = Workspace::new();
    let single = ws.analyze(&crd, &object, "", &Settings::default());
    assert!(single.releases.is_none(), "one release: no comparison");
    let settings = Settings { compare: vec!["1.29".into(), "1.37".into(), "nonsense".into()], ..Default::default() };
    let a = ws.analyze(&crd, &object, "", &settings);
    let c = a.releases.as_ref().expect("1.29 and 1.37 selected");
    let rows: Vec<_> = c.releases.iter().map(|r| (r.kubernetes_version.to_string(), r.verdict)).collect();
    assert_eq!(rows, [("1.29".to_string(), Verdict::ObjectRejected), ("1.37".to_string(), Verdict::ObjectRejected)]);
    assert_eq!(a.summary.verdict, kubectl::Verdict::Rejected);
    let differs: Vec<String> = c
        .differences()
        .filter(|m| m.kind == MessageKind::ObjectError)
        .map(|m| format!("{}: {}", c.releases_label(&m.releases), m.message))
        .collect();
    assert!(differs.contains(&"1.29: spec.name: Too long: may not be longer than 5".to_string()), "{:?}", differs);
    assert!(differs.contains(&"1.37: spec.name: Too long: may not be more than 5 bytes".to_string()), "{:?}", differs);
    // The target release's messages are the object view's.
    let target = &c.releases[1];
    let messages: Vec<&str> = target.object.as_ref().unwrap().errors.iter().map(|e| e.message.as_str()).collect();
    let shown: Vec<&str> = a.object.as_ref().unwrap().errors.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(messages, shown);
    // The multi-select's checkboxes.
    let s = Settings::default().with_compared(KubeVersion { minor: 32 }, true).with_compared(KubeVersion { minor: 29 }, true);
    assert_eq!(s.compare, ["1.29", "1.32"]);
    assert_eq!(s.with_compared(KubeVersion { minor: 32 }, false).compare, ["1.29"]);
    // A CRD that cannot be read is not compared.
    assert!(ws.analyze("a: [", &object, "", &settings).releases.is_none());
}

#[test]
fn explanations_after_edits_are_those_of_a_fresh_workspace() {
    // Rules whose costs depend on sizes: an edit of a bound changes the trace of the rules
    // below it, an edit of one rule leaves the others' traces to be reused.
    let crd = |max_items: u32, rule: &str| {
        CRD.replace(
            "              extra:\n",
            &format!(
                "              tags:\n                type: array\n                maxItems: {max_items}\n                items: {{type: string, maxLength: 64}}\n                x-kubernetes-validations:\n                - rule: {rule}\n                - rule: self.all(t, self.exists(u, u.startsWith(t)))\n              extra:\n"
            ),
        )
    };
    let json = |a: &CrdView| {
        let rules: Vec<_> = a.per_version.iter().flat_map(|v| v.rules.iter().map(|r| serde_json::to_value(&r.explanation).unwrap())).collect();
        serde_json::Value::Array(rules)
    };
    let mut ws = Workspace::new();
    let settings = Settings::default();
    for (max_items, rule) in [(10, "self.size() > 0"), (10, "self.size() > 1"), (100000, "self.size() > 1"), (10, "self.size() > 0"), (10, "self.all(t, t != 'x')")] {
        let text = crd(max_items, rule);
        let a = ws.analyze(&text, "", "", &settings);
        assert!(a.crd.load_error.is_none(), "{:?}", a.crd);
        // maxItems 100000 puts the nested loop over the limit: its explanation has fixes.
        assert_eq!(a.crd.errors.is_empty(), max_items == 10, "{:?}", a.crd.errors);
        let kept = ws.crd_view_full().unwrap();
        let mut other = Workspace::new();
        other.analyze(&text, "", "", &settings);
        let fresh = other.crd_view_full().unwrap();
        assert_eq!(json(&kept), json(&fresh), "maxItems {max_items}, rule {rule}");
        // And those of one explanation, which keeps no trace.
        let compiled = ws.compiled().expect("compiled");
        let single: Vec<_> = compiled.versions.iter().flat_map(|v| crate::analysis::explain::explain(&compiled, Some(&v.name)).unwrap().rules).map(|r| serde_json::to_value(&r).unwrap()).collect();
        assert_eq!(json(&kept), serde_json::Value::Array(single), "maxItems {max_items}, rule {rule}");
        assert_eq!(kept.per_version[0].rules.len(), 4);
    }
}

/// Every rule of every CRD under ../shared/crds: the entry the rules pane shows (its rule
/// and message) is the one at the rule's JSON pointer, and its range underlines that rule's
/// text.
#[test]
fn each_rule_entry_is_the_one_at_its_pointer() {
    let files = crate::testing::shared_files("crds", &["yaml", "yml"]).expect("../shared/crds");
    let mut rules = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let mut ws = Workspace::new();
        let a = ws.analyze(&text, "", "", &Settings::default());
        if a.crd.load_error.is_some() {
            continue;
        }
        let doc = ws.crd_value().unwrap().clone();
        let full = ws.crd_view_full().unwrap();
        for (lean, v) in a.crd.per_version.iter().zip(&full.per_version) {
            assert_eq!(lean.rule_count, v.rules.len(), "{}: {}", f.display(), v.name);
            for r in &v.rules {
                let entry = doc.pointer(&r.pointer).unwrap_or_else(|| panic!("{}: {}", f.display(), r.pointer));
                assert_eq!(entry.get("rule").and_then(Value::as_str), Some(r.rule.as_str()), "{}: {}", f.display(), r.pointer);
                assert_eq!(entry.get("message").and_then(Value::as_str).unwrap_or(""), r.message, "{}: {}", f.display(), r.pointer);
                // The range of the rule's text, as an error at `….rule` underlines it.
                let index = r.pointer.split('/').nth(3).unwrap();
                let field = format!("spec.versions[{}].schema.{}.rule", index, r.schema_path);
                let (value, map) = ws.engine.crd_source(&text).unwrap();
                let want = crate::text::positions::crd_range(&field, value, map).map(|l| l.range);
                assert!(r.range.is_some(), "{}: {} has no range", f.display(), r.pointer);
                assert_eq!(r.range, want, "{}: {}", f.display(), field);
                rules += 1;
            }
        }
    }
    assert!(rules > 500, "{} rules", rules);
}
