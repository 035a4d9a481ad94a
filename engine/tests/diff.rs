//! `crdlab diff`: every check and option of the crd-diff design and of crdify (names,
//! property paths and messages as crdify prints them), the CEL checks, both configuration
//! formats (the design's own examples among them), the output formats and exit codes, and
//! pairs of real CRDs from `../shared/crds`.

// Needs the `crdlab` binary, built with the `cli` feature (on by default).
#![cfg(feature = "cli")]

mod common;

use crdlab::analysis::diff::{
    self, report, Config, Enforcement, Finding, Options, Ratcheting, Report, SampleObject,
    Severity, Validator,
};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

// ------------------------------------------------------------------ helpers

/// A one-version CRD whose `spec` has the given properties (YAML flow or block text,
/// indented for `properties:` of spec).
fn crd_with(spec_extra: &str, props: &str) -> String {
    common::widgets_spec(&format!("{}            properties:\n{}\n", spec_extra, props))
}

fn crd(props: &str) -> String {
    crd_with("", props)
}

fn run(old: &str, new: &str) -> Report {
    diff::diff(old, new, &Options::default()).unwrap()
}

fn run_cfg(old: &str, new: &str, cfg: &str) -> Report {
    let config = Config::parse(cfg).unwrap();
    diff::diff(
        old,
        new,
        &Options {
            config,
            ..Default::default()
        },
    )
    .unwrap()
}

/// (check, field, message) of every finding.
fn triples(r: &Report) -> Vec<(String, Option<String>, String)> {
    r.findings
        .iter()
        .map(|f| (f.check.clone(), f.field.clone(), f.message.clone()))
        .collect()
}

fn only<'r>(r: &'r Report, check: &str) -> Vec<&'r Finding> {
    r.findings.iter().filter(|f| f.check == check).collect()
}

fn single(r: &Report) -> &Finding {
    assert_eq!(r.findings.len(), 1, "{:#?}", r.findings);
    &r.findings[0]
}

fn shared() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    p.join("crds").is_dir().then_some(p)
}

fn crdlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_crdlab"))
}

fn tmp(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("crdlab-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

const MODE: &str = "              mode: {type: string, enum: [A, B]}";

// ------------------------------------------------------------------ whole-CRD checks

#[test]
fn scope_changed() {
    let old = crd(MODE);
    let new = old.replace("scope: Namespaced", "scope: Cluster");
    let r = run(&old, &new);
    let f = single(&r);
    assert_eq!(
        (
            f.validator,
            f.check.as_str(),
            f.version.as_deref(),
            f.field.as_deref()
        ),
        (Validator::Crd, "scope", None, None)
    );
    assert_eq!(f.message, r#"scope changed : "Namespaced" -> "Cluster""#);
    assert!(r.breaking);
    assert!(
        !run_cfg(
            &old,
            &new,
            "checks:\n  crd:\n    scope:\n      enabled: false\n"
        )
        .breaking
    );
}

#[test]
fn existing_field_removal() {
    let old = crd("              mode: {type: string}\n              size: {type: integer}");
    let new = crd("              size: {type: integer}");
    let r = run(&old, &new);
    let removed = only(&r, "existingFieldRemoval");
    assert_eq!(removed.len(), 1);
    assert_eq!(removed[0].message, "removed field : v1.^.spec.mode");
    // crdify also compares the removed property with an empty one.
    assert!(triples(&r).contains(&(
        "type".into(),
        Some("^.spec.mode".into()),
        r#"type changed : "string" -> """#.into()
    )));
    let r = run_cfg(
        &old,
        &new,
        "checks:\n  crd:\n    existingFieldRemoval:\n      enabled: false\n",
    );
    assert!(only(&r, "existingFieldRemoval").is_empty());
}

#[test]
fn stored_version_removal() {
    let two = |versions: &str| {
        format!(
            "{}  versions:\n{}status:\n  storedVersions: [v1alpha1, v1]\n",
            common::WIDGETS_HEAD,
            versions
        )
    };
    let v = |name: &str, storage: bool| {
        format!(
            "  - name: {}\n    served: true\n    storage: {}\n    schema:\n      openAPIV3Schema: {{type: object}}\n",
            name, storage
        )
    };
    let old = two(&format!("{}{}", v("v1alpha1", false), v("v1", true)));
    let new = two(&v("v1", true));
    let r = run(&old, &new);
    assert_eq!(single(&r).message, "stored versions removed : [v1alpha1]");
    assert_eq!(single(&r).check, "storedVersionRemoval");
    let r = run_cfg(
        &old,
        &new,
        "checks:\n  crd:\n    storedVersionRemoval:\n      enabled: false\n",
    );
    assert!(r.findings.is_empty());
}

// ------------------------------------------------------------------ property checks

#[test]
fn enum_removal_addition_and_options() {
    let old = crd(MODE);
    let removed = crd("              mode: {type: string, enum: [A]}");
    let added = crd("              mode: {type: string, enum: [A, B, C]}");
    let none = crd("              mode: {type: string}");
    let f = single(&run(&old, &removed)).clone();
    assert_eq!(
        (f.check.as_str(), f.version.as_deref(), f.field.as_deref()),
        ("enum", Some("v1"), Some("^.spec.mode"))
    );
    assert_eq!(f.message, r#"allowed enum values removed : ["B"]"#);
    assert_eq!(f.ratcheting, Ratcheting::Softened);
    assert_eq!(
        single(&run(&old, &added)).message,
        r#"allowed enum values added : ["C"]"#
    );
    assert_eq!(
        single(&run(&none, &old)).message,
        r#"enum constraint added when there was none previously : ["A" "B"]"#
    );
    let cfg = |a: &str, r: &str| {
        format!("checks:\n  version:\n    sameVersion:\n      enum:\n        additionEnforcement: {}\n        removalEnforcement: {}\n", a, r)
    };
    // IfPreviouslyConstrained: adding values is fine, constraining a free field is not.
    assert!(
        run_cfg(&old, &added, &cfg("IfPreviouslyConstrained", "Strict"))
            .findings
            .is_empty()
    );
    assert_eq!(
        run_cfg(&none, &old, &cfg("IfPreviouslyConstrained", "Strict"))
            .findings
            .len(),
        1
    );
    // None: neither.
    assert!(run_cfg(&none, &old, &cfg("None", "Strict"))
        .findings
        .is_empty());
    // Unknown addition value: IfPreviouslyConstrained, with a note.
    let r = run_cfg(&old, &added, &cfg("Sometimes", "Strict"));
    assert!(r.findings.is_empty());
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("IfPreviouslyConstrained")),
        "{:?}",
        r.notes
    );
    // Removal None; unknown removal value is Strict.
    assert!(run_cfg(&old, &removed, &cfg("Strict", "None"))
        .findings
        .is_empty());
    assert_eq!(
        run_cfg(&old, &removed, &cfg("Strict", "Whatever"))
            .findings
            .len(),
        1
    );
}

#[test]
fn default_change_removal_addition() {
    let a = crd("              mode: {type: string, default: fast}");
    let b = crd("              mode: {type: string, default: slow}");
    let none = crd("              mode: {type: string}");
    assert_eq!(
        single(&run(&a, &b)).message,
        r#"default value changed : "\"fast\"" -> "\"slow\"""#
    );
    assert_eq!(
        single(&run(&a, &none)).message,
        r#"default value removed : "\"fast\"""#
    );
    assert_eq!(
        single(&run(&none, &a)).message,
        r#"default added when there was none previously : "\"fast\"""#
    );
    assert_eq!(single(&run(&a, &b)).ratcheting, Ratcheting::NotApplicable);
    for (opt, old, new) in [
        ("changeEnforcement", &a, &b),
        ("removalEnforcement", &a, &none),
        ("additionEnforcement", &none, &a),
    ] {
        let cfg = format!(
            "checks:\n  version:\n    sameVersion:\n      default:\n        {}: None\n",
            opt
        );
        assert!(run_cfg(old, new, &cfg).findings.is_empty(), "{}", opt);
    }
}

#[test]
fn maximum_family_addition_and_decrease() {
    for (check, ty) in [
        ("maximum", "integer"),
        ("maxItems", "array"),
        ("maxLength", "string"),
        ("maxProperties", "object"),
    ] {
        let items = if ty == "array" {
            ", items: {type: string}"
        } else {
            ""
        };
        let none = crd(&format!("              x: {{type: {}{}}}", ty, items));
        let ten = crd(&format!(
            "              x: {{type: {}{}, {}: 10}}",
            ty, items, check
        ));
        let five = crd(&format!(
            "              x: {{type: {}{}, {}: 5}}",
            ty, items, check
        ));
        let f = single(&run(&none, &ten)).clone();
        assert_eq!(
            (f.check.as_str(), f.field.as_deref()),
            (check, Some("^.spec.x"))
        );
        assert_eq!(
            f.message,
            "maximum constraint added when there was none previously : 10"
        );
        assert_eq!(
            single(&run(&ten, &five)).message,
            "maximum decreased : 10 -> 5"
        );
        assert!(
            run(&five, &ten).findings.is_empty(),
            "raising a maximum is compatible"
        );
        let cfg = |o: &str| {
            format!(
                "checks:\n  version:\n    sameVersion:\n      {}:\n        {}: None\n",
                check, o
            )
        };
        assert!(run_cfg(&none, &ten, &cfg("additionEnforcement"))
            .findings
            .is_empty());
        assert!(run_cfg(&ten, &five, &cfg("decreaseEnforcement"))
            .findings
            .is_empty());
        assert_eq!(
            run_cfg(&ten, &five, &cfg("additionEnforcement"))
                .findings
                .len(),
            1
        );
    }
}

#[test]
fn minimum_family_addition_and_increase() {
    for (check, ty) in [
        ("minimum", "number"),
        ("minItems", "array"),
        ("minLength", "string"),
        ("minProperties", "object"),
    ] {
        let items = if ty == "array" {
            ", items: {type: string}"
        } else {
            ""
        };
        let none = crd(&format!("              x: {{type: {}{}}}", ty, items));
        let one = crd(&format!(
            "              x: {{type: {}{}, {}: 1}}",
            ty, items, check
        ));
        let two = crd(&format!(
            "              x: {{type: {}{}, {}: 2}}",
            ty, items, check
        ));
        assert_eq!(
            single(&run(&none, &one)).message,
            "minimum constraint added when there was none previously : 1"
        );
        assert_eq!(
            single(&run(&one, &two)).message,
            "minimum increased : 1 -> 2"
        );
        assert_eq!(single(&run(&one, &two)).check, check);
        assert!(run(&two, &one).findings.is_empty());
        let cfg = |o: &str| {
            format!(
                "checks:\n  version:\n    sameVersion:\n      {}:\n        {}: None\n",
                check, o
            )
        };
        assert!(run_cfg(&none, &one, &cfg("additionEnforcement"))
            .findings
            .is_empty());
        assert!(run_cfg(&one, &two, &cfg("increaseEnforcement"))
            .findings
            .is_empty());
    }
    // float minimums print as Go's %v.
    let a = crd("              x: {type: number, minimum: 0.5}");
    let b = crd("              x: {type: number, minimum: 2500000}");
    assert_eq!(
        single(&run(&a, &b)).message,
        "minimum increased : 0.5 -> 2.5e+06"
    );
}

#[test]
fn required_new_fields() {
    let old = crd(MODE);
    let new = crd_with("            required: [mode]\n", MODE);
    let f = single(&run(&old, &new)).clone();
    assert_eq!(
        (f.check.as_str(), f.field.as_deref()),
        ("required", Some("^.spec"))
    );
    assert_eq!(f.message, "new required fields: [mode]");
    assert_eq!(
        f.ratcheting,
        Ratcheting::NotSoftened,
        "required is never ratcheted"
    );
    let cfg =
        "checks:\n  version:\n    sameVersion:\n      required:\n        newEnforcement: None\n";
    assert!(run_cfg(&old, &new, cfg).findings.is_empty());
}

#[test]
fn type_changed() {
    let old = crd("              size: {type: integer}");
    let new = crd("              size: {type: string}");
    assert_eq!(
        single(&run(&old, &new)).message,
        r#"type changed : "integer" -> "string""#
    );
    let cfg =
        "checks:\n  version:\n    sameVersion:\n      type:\n        changeEnforcement: None\n";
    assert!(run_cfg(&old, &new, cfg).findings.is_empty());
    // Disabled: the change is no longer handled, so it is `unhandled`.
    let cfg = "checks:\n  version:\n    sameVersion:\n      type:\n        enabled: false\n";
    let r = run_cfg(&old, &new, cfg);
    assert_eq!(single(&r).check, "unhandled");
    assert_eq!(
        single(&r).message,
        "unhandled changes found :\n- Type: \"integer\"\n+ Type: \"string\""
    );
}

#[test]
fn crdify_description_pattern_nullable() {
    let old =
        crd("              a: {type: string, description: old, pattern: '^a$', nullable: true}");
    let new = crd("              a: {type: string, description: new, pattern: '^b$'}");
    assert_eq!(
        triples(&run(&old, &new))
            .into_iter()
            .map(|t| (t.0, t.2))
            .collect::<Vec<_>>(),
        vec![
            (
                "description".into(),
                r#"description changed : "old" -> "new""#.into()
            ),
            (
                "nullable".into(),
                "property changed from nullable to non-nullable".into()
            ),
            (
                "pattern".into(),
                r#"pattern changed : "^a$" -> "^b$""#.into()
            ),
        ]
    );
    let plain = crd("              a: {type: string}");
    let pat = crd("              a: {type: string, pattern: x, nullable: true}");
    assert_eq!(
        triples(&run(&plain, &pat))
            .into_iter()
            .map(|t| t.2)
            .collect::<Vec<_>>(),
        vec![
            "property changed from non-nullable to nullable",
            r#"pattern added : "" -> "x""#
        ]
    );
    assert!(triples(&run(&pat, &plain))
        .iter()
        .any(|t| t.2 == r#"pattern removed : "x" -> """#));
    // crdify's configuration: description as a warning, nullable and pattern relaxed.
    let cfg = "validations:\n- name: description\n  enforcement: Warn\n- name: nullable\n  enforcement: Error\n  \
               configuration: {toNullablePolicy: Allow}\n- name: pattern\n  enforcement: Error\n  configuration: {removalPolicy: Allow}\n";
    let r = run_cfg(&old, &new, cfg);
    assert_eq!(only(&r, "description")[0].severity, Severity::Warning);
    assert!(run_cfg(&pat, &plain, cfg)
        .findings
        .iter()
        .all(|f| f.check == "nullable"));
    assert!(run_cfg(&plain, &pat, cfg)
        .findings
        .iter()
        .all(|f| f.check == "pattern"));
}

#[test]
fn unhandled_failure_mode() {
    let old = crd("              a: {type: string}");
    let new = crd("              a: {type: string, format: email}");
    let f = single(&run(&old, &new)).clone();
    assert_eq!(f.check, "unhandled");
    assert_eq!(
        f.message,
        "unhandled changes found :\n- Format: \"\"\n+ Format: \"email\""
    );
    assert_eq!(f.ratcheting, Ratcheting::Softened);
    let open = "checks:\n  version:\n    sameVersion:\n      unhandledFailureMode: Open\n";
    assert!(run_cfg(&old, &new, open).findings.is_empty());
    let closed = "checks:\n  version:\n    sameVersion:\n      unhandledFailureMode: Closed\n";
    assert_eq!(run_cfg(&old, &new, closed).findings.len(), 1);
    assert_eq!(
        run_cfg(&old, &new, "unhandledEnforcement: Warn\n").findings[0].severity,
        Severity::Warning
    );
    // List-type changes are never ratcheted.
    let old = crd("              l: {type: array, items: {type: string}}");
    let new =
        crd("              l: {type: array, items: {type: string}, x-kubernetes-list-type: set}");
    assert_eq!(single(&run(&old, &new)).ratcheting, Ratcheting::NotSoftened);
}

#[test]
fn same_version_can_be_disabled() {
    let old = crd(MODE);
    let new = crd("              mode: {type: string, enum: [A]}");
    assert!(
        run_cfg(&old, &new, "checks:\n  sameVersion:\n    enabled: false\n")
            .findings
            .is_empty()
    );
}

// ------------------------------------------------------------------ served versions

fn served_crd(v1alpha1_props: &str, v1_props: &str, conversion: &str) -> String {
    format!(
        r#"{}{}  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties: {}
  - name: v1alpha1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties: {}
"#,
        common::WIDGETS_HEAD,
        conversion,
        v1_props,
        v1alpha1_props
    )
}

#[test]
fn served_version_pairs() {
    let old = served_crd("{mode: {type: string}}", "{mode: {type: string}}", "");
    let new = served_crd(
        "{mode: {type: string}}",
        "{mode: {type: string, maxLength: 8}}",
        "",
    );
    let r = run(&old, &new);
    let served: Vec<&Finding> = r
        .findings
        .iter()
        .filter(|f| f.validator == Validator::ServedVersion)
        .collect();
    assert_eq!(served.len(), 1, "{:#?}", r.findings);
    assert_eq!(served[0].version.as_deref(), Some("v1alpha1 -> v1"));
    assert_eq!(served[0].field.as_deref(), Some("^.spec.mode"));
    assert_eq!(
        served[0].message,
        "maximum constraint added when there was none previously : 8"
    );
    // What the old CRD's pair already had is not reported again.
    assert!(run(&new, &new).findings.is_empty());
    // servedVersion disabled.
    let cfg = "checks:\n  versions:\n    servedVersion:\n      enabled: false\n";
    assert!(run_cfg(&old, &new, cfg)
        .findings
        .iter()
        .all(|f| f.validator != Validator::ServedVersion));
}

#[test]
fn served_version_and_conversion() {
    let webhook = "  conversion:\n    strategy: Webhook\n    webhook:\n      conversionReviewVersions: [v1]\n      clientConfig: {url: 'https://example.com/convert'}\n";
    let old = served_crd("{mode: {type: string}}", "{mode: {type: string}}", webhook);
    let new = served_crd(
        "{mode: {type: string}}",
        "{mode: {type: string, maxLength: 8}}",
        webhook,
    );
    let served = |r: &Report| {
        r.findings
            .iter()
            .filter(|f| f.validator == Validator::ServedVersion)
            .count()
    };
    // crdify's default compares served versions even with a webhook…
    assert_eq!(served(&run(&old, &new)), 1);
    // …crd-diff's ignoreConversion: false passes automatically, true runs the checks…
    let cfg = |b: bool| {
        format!(
            "checks:\n  version:\n    servedVersion:\n      ignoreConversion: {}\n",
            b
        )
    };
    assert_eq!(served(&run_cfg(&old, &new, &cfg(false))), 0);
    assert_eq!(served(&run_cfg(&old, &new, &cfg(true))), 1);
    // …and crdify's conversion: Ignore skips them.
    assert_eq!(served(&run_cfg(&old, &new, "conversion: Ignore\n")), 0);
    // Without a webhook the checks always run.
    let old = served_crd("{mode: {type: string}}", "{mode: {type: string}}", "");
    let new = served_crd(
        "{mode: {type: string}}",
        "{mode: {type: string, maxLength: 8}}",
        "",
    );
    assert_eq!(served(&run_cfg(&old, &new, &cfg(false))), 1);
}

#[test]
fn served_version_unhandled_failure_mode() {
    let old = served_crd("{mode: {type: string}}", "{mode: {type: string}}", "");
    let new = served_crd(
        "{mode: {type: string}}",
        "{mode: {type: string, format: email}}",
        "",
    );
    let served = |r: &Report| {
        r.findings
            .iter()
            .filter(|f| f.validator == Validator::ServedVersion)
            .count()
    };
    assert_eq!(served(&run(&old, &new)), 1);
    let cfg = "checks:\n  version:\n    servedVersion:\n      unhandledFailureMode: Open\n";
    assert_eq!(served(&run_cfg(&old, &new, cfg)), 0);
}

// ------------------------------------------------------------------ CEL

fn rules_crd(rules: &str, props: &str) -> String {
    crd_with(
        &format!("            x-kubernetes-validations:\n{}", rules),
        props,
    )
}

const REPLICAS: &str = "              replicas: {type: integer}\n              tags: {type: array, maxItems: 10, items: {type: string, maxLength: 10}}";

#[test]
fn xvalidations_added_removed_changed() {
    let old = rules_crd(
        "            - {rule: 'self.replicas >= 0', message: replicas}\n",
        REPLICAS,
    );
    let changed = rules_crd(
        "            - {rule: 'self.replicas >= 1', message: replicas}\n",
        REPLICAS,
    );
    let added = rules_crd(
        "            - {rule: 'self.replicas >= 0', message: replicas}\n            - {rule: 'self.replicas < 100'}\n",
        REPLICAS,
    );
    let f = single(&run(&old, &changed)).clone();
    assert_eq!(
        (f.check.as_str(), f.field.as_deref()),
        ("xvalidations", Some("^.spec"))
    );
    assert_eq!(
        f.message,
        r#"x-kubernetes-validations rule changed : "self.replicas >= 0" -> "self.replicas >= 1""#
    );
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(f.ratcheting, Ratcheting::Softened);
    assert_eq!(
        single(&run(&old, &added)).message,
        r#"x-kubernetes-validations added: {"rule":"self.replicas \u003c 100"}"#
    );
    assert_eq!(
        single(&run(&added, &old)).message,
        r#"x-kubernetes-validations removed: {"rule":"self.replicas \u003c 100"}"#
    );
    // crdify policies.
    let cfg = "validations:\n- name: xvalidations\n  enforcement: Error\n  configuration: {additionPolicy: Allow, removalPolicy: Allow}\n";
    assert!(run_cfg(&old, &added, cfg).findings.is_empty());
    assert!(run_cfg(&added, &old, cfg).findings.is_empty());
}

#[test]
fn xvalidations_attribute_changes_are_warnings() {
    let old = rules_crd(
        "            - {rule: 'self.replicas >= 0', message: a}\n",
        REPLICAS,
    );
    let new = rules_crd(
        "            - {rule: 'self.replicas >= 0', messageExpression: \"'bad: ' + string(self.replicas)\", reason: FieldValueForbidden, fieldPath: .replicas}\n",
        REPLICAS,
    );
    let r = run_cfg(
        &old,
        &new,
        "checks:\n  sameVersion:\n    xvalidationsLibrary: {enabled: false}\n",
    );
    let msgs: Vec<&str> = r.findings.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(
        msgs,
        vec![
            r#"x-kubernetes-validations message changed for rule "self.replicas >= 0" : "a" -> """#,
            r#"x-kubernetes-validations messageExpression changed for rule "self.replicas >= 0" : "" -> "'bad: ' + string(self.replicas)""#,
            r#"x-kubernetes-validations reason changed for rule "self.replicas >= 0" : "" -> "FieldValueForbidden""#,
            r#"x-kubernetes-validations fieldPath changed for rule "self.replicas >= 0" : "" -> ".replicas""#,
        ]
    );
    assert!(r.findings.iter().all(|f| f.severity == Severity::Warning));
    assert!(!r.breaking);
}

#[test]
fn transition_rules_are_not_ratcheted() {
    let old = crd(REPLICAS);
    let new = rules_crd(
        "            - {rule: 'self.replicas >= oldSelf.replicas'}\n",
        REPLICAS,
    );
    let f = single(&run(&old, &new)).clone();
    assert_eq!(f.ratcheting, Ratcheting::NotSoftened);
}

fn obj(name: &str, spec: &str) -> SampleObject {
    let text = format!(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: {}}}\nspec: {}\n",
        name, spec
    );
    diff::objects_from_text(&format!("{}.yaml", name), &text)
        .unwrap()
        .remove(0)
}

#[test]
fn rules_are_judged_on_sample_objects() {
    let old = rules_crd("            - {rule: 'self.replicas >= 0'}\n", REPLICAS);
    let new = rules_crd(
        "            - {rule: 'self.replicas >= 1'}\n            - {rule: 'self.replicas < 100'}\n",
        REPLICAS,
    );
    let objects = vec![
        obj("zero", "{replicas: 0}"),
        obj("three", "{replicas: 3}"),
        obj("bad", "{replicas: -1}"),
    ];
    let opts = Options {
        objects,
        ..Default::default()
    };
    let r = diff::diff(&old, &new, &opts).unwrap();
    let rules = only(&r, "xvalidations");
    assert_eq!(rules.len(), 2, "{:#?}", r.findings);
    let (added, changed) = (rules[0], rules[1]);
    assert!(
        added
            .message
            .starts_with("x-kubernetes-validations added: "),
        "{}",
        added.message
    );
    // The changed rule rejects an object that was valid: an error naming it.
    assert_eq!(changed.severity, Severity::Error);
    assert_eq!(changed.objects, vec!["zero.yaml (Widget/zero)"]);
    assert!(
        changed
            .message
            .ends_with("(1 of 2 sample objects of v1 fail it)"),
        "{}",
        changed.message
    );
    // The added one rejects none: a warning.
    assert_eq!(added.severity, Severity::Warning);
    assert!(
        added
            .message
            .ends_with("(none of the 2 sample objects of v1 fails it)"),
        "{}",
        added.message
    );
    // The object itself is reported, with its ratcheting outcome.
    let objs = only(&r, "objects");
    assert_eq!(objs.len(), 1, "{:#?}", objs);
    assert_eq!(objs[0].message, "sample object zero.yaml (Widget/zero) was valid and now fails: spec: Invalid value: failed rule: self.replicas >= 1");
    assert_eq!(
        objs[0].ratcheting,
        Ratcheting::Softened,
        "a no-op update of the object passes"
    );
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("bad.yaml (Widget/bad): already invalid")),
        "{:?}",
        r.notes
    );
}

#[test]
fn objects_failing_schema_changes() {
    let old = crd(MODE);
    let new = crd_with(
        "            required: [mode]\n",
        "              mode: {type: string, enum: [A]}",
    );
    let opts = Options {
        objects: vec![obj("b", "{mode: B}"), obj("none", "{}")],
        ..Default::default()
    };
    let r = diff::diff(&old, &new, &opts).unwrap();
    let objs = only(&r, "objects");
    assert_eq!(objs.len(), 2, "{:#?}", objs);
    assert_eq!(objs[0].field.as_deref(), Some("^.spec.mode"));
    assert_eq!(
        objs[0].message,
        r#"sample object b.yaml (Widget/b) was valid and now fails: spec.mode: Unsupported value: "B": supported values: "A""#
    );
    assert_eq!(objs[0].ratcheting, Ratcheting::Softened);
    assert_eq!(
        objs[1].message,
        "sample object none.yaml (Widget/none) was valid and now fails: spec.mode: Required value"
    );
    assert_eq!(
        objs[1].ratcheting,
        Ratcheting::NotSoftened,
        "required is not ratcheted"
    );
    let cfg = Config::parse("validations:\n- {name: objects, enforcement: None}\n").unwrap();
    let r = diff::diff(
        &old,
        &new,
        &Options {
            config: cfg,
            objects: opts.objects.clone(),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(only(&r, "objects").is_empty());
}

#[test]
fn rules_needing_a_newer_kubernetes() {
    let old = crd("              addr: {type: string}");
    let new = crd("              addr:\n                type: string\n                x-kubernetes-validations:\n                - {rule: 'isIP(self)'}");
    let k = |v: &str| Options {
        kubernetes_version: Some(crdlab::KubeVersion::parse(v).unwrap()),
        ..Default::default()
    };
    let r = diff::diff(&old, &new, &k("1.29")).unwrap();
    let lib = only(&r, "xvalidationsLibrary");
    assert_eq!(lib.len(), 1, "{:#?}", r.findings);
    assert_eq!(lib[0].severity, Severity::Error);
    assert_eq!(lib[0].field.as_deref(), Some("^.spec.addr"));
    assert!(
        lib[0].message.starts_with(
            r#"rule "isIP(self)" needs Kubernetes 1.31 or later; at 1.29 it does not compile: "#
        ),
        "{}",
        lib[0].message
    );
    // At 1.31 the compatibility version (1.30) has the ip library.
    assert!(only(
        &diff::diff(&old, &new, &k("1.31")).unwrap(),
        "xvalidationsLibrary"
    )
    .is_empty());
    // Without a target: inferred from the old CRD (no rules: 1.25), reported as a warning.
    let r = run(&old, &new);
    assert_eq!(
        only(&r, "xvalidationsLibrary")[0].severity,
        Severity::Warning
    );
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("target Kubernetes 1.25 inferred")),
        "{:?}",
        r.notes
    );
    // Unchanged rules are not judged again.
    assert!(only(&run(&new, &new), "xvalidationsLibrary").is_empty());
    // Fields newer than the target.
    let new = crd("              addr:\n                type: string\n                x-kubernetes-validations:\n                - {rule: 'self != \"\"', reason: FieldValueForbidden}");
    let lib = diff::diff(&old, &new, &k("1.27")).unwrap();
    assert!(only(&lib, "xvalidationsLibrary")[0]
        .message
        .contains("uses reason, which Kubernetes 1.27 does not know"));
    // A rule that never compiles.
    let new = crd("              addr:\n                type: string\n                x-kubernetes-validations:\n                - {rule: 'self.nosuch()'}");
    let r = diff::diff(&old, &new, &k("1.30")).unwrap();
    assert!(only(&r, "xvalidationsLibrary")[0]
        .message
        .contains("does not compile at any Kubernetes release"));
}

#[test]
fn cost_crossing_the_limits() {
    let bounded =
        "              tags: {type: array, maxItems: 10, items: {type: string, maxLength: 10}}";
    let unbounded = "              tags: {type: array, items: {type: string}}";
    let rule = "            - {rule: 'self.tags.all(t, self.tags.all(u, t != u || t == u))'}\n";
    let old = rules_crd(rule, bounded);
    let new = rules_crd(rule, unbounded);
    let r = run(&old, &new);
    let cost = only(&r, "xvalidationsCost");
    assert_eq!(cost.len(), 2, "{:#?}", r.findings);
    assert_eq!(cost[0].field.as_deref(), Some("^"));
    assert!(cost[0].message.starts_with("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of"));
    assert_eq!(cost[1].field.as_deref(), Some("^.spec"));
    assert!(
        cost[1]
            .message
            .contains("estimated rule cost exceeds budget by factor of more than 100x"),
        "{}",
        cost[1].message
    );
    assert!(cost.iter().all(|f| f.severity == Severity::Error));
    // Already over the limit before: not reported again.
    assert!(only(&run(&new, &new), "xvalidationsCost").is_empty());
    assert!(only(&run(&new, &old), "xvalidationsCost").is_empty());
    let cfg = "validations:\n- {name: xvalidationsCost, enforcement: Warn}\n";
    assert!(only(&run_cfg(&old, &new, cfg), "xvalidationsCost")
        .iter()
        .all(|f| f.severity == Severity::Warning));
}

// ------------------------------------------------------------------ configuration

/// The design's configuration examples (shared/docs/seeds/crd-diff-validations.md), as
/// written: placeholders such as `{ true || false }` parse (as mappings) and are reported.
const SEED_EXAMPLES: [&str; 9] = [
    "checks:\n  crd:\n    scope:\n      enabled: false\n",
    "checks:\n  crd:\n    existingFieldRemoval:\n      enabled: false\n",
    "checks:\n  crd:\n    storedVersionRemoval:\n      enabled: false\n",
    "checks:\n  sameVersion:\n    enabled: { true || false }\n    # Open == Pass on unhandled failures, Closed == Fail on unhandled failures\n    unhandledFailureMode: { Open || Closed }\n    # property validation configurations go here\n",
    "checks:\n  versions:\n    servedVersion:\n      enabled: { true || false }\n      # Open == Pass on unhandled failures, Closed == Fail on unhandled failures\n      unhandledFailureMode: { Open || Closed }\n      # Setting this to true means all property validations are run even if a conversion strategy is\n      # specified. Setting this to false means if a conversion strategy is specified this validation\n      # will automatically pass without running any property validations.\n      ignoreConversion: { true || false }\n      # property validation configurations go here\n",
    "checks:\n  versions:\n   # in this example we are configuring the sameVersion validation's enum property validation.\n   # it is possible to configure this property validation separately in both the sameVersion and\n   # servedVersion validations.\n   sameVersion:\n    enum:\n      enabled: { true || false }\n      additionEnforcement: { Strict || IfPreviouslyConstrained || None }\n      removalEnforcement: { Strict || None }\n",
    "checks:\n  version:\n   # in this example we are configuring the sameVersion validation's enum property validation.\n    sameVersion:\n      default:\n        enabled: { true || false }\n        changeEnforcement: { Strict || None }\n        removalEnforcement: { Strict || None }\n        additionEnforcement: { Strict || None }\n",
    "checks:\n  version:\n    sameVersion:\n      # configuring the maximum validation here, but the same configuration options\n      # exist for the maxItems, maxLength, and maxProperties validations\n      maximum:\n        enabled: { true || false }\n        additionEnforcement: { Strict || None }\n        decreaseEnforcement: { Strict || None }\n      minimum:\n        enabled: { true || false }\n        additionEnforcement: { Strict || None }\n        increaseEnforcement: { Strict || None }\n",
    "checks:\n  version:\n    sameVersion:\n      required:\n        enabled: { true || false }\n        newEnforcement: { Strict || None }\n      type:\n        enabled: { true || false }\n        changeEnforcement: { Strict || None }\n",
];

#[test]
fn seed_examples_parse_as_written() {
    for (i, ex) in SEED_EXAMPLES.iter().enumerate() {
        let c = Config::parse(ex).unwrap_or_else(|e| panic!("example {}: {}", i, e));
        if ex.contains("||") {
            assert!(
                !c.warnings.is_empty(),
                "example {}: placeholders are reported",
                i
            );
        } else {
            assert!(c.warnings.is_empty(), "example {}: {:?}", i, c.warnings);
        }
    }
}

/// Every YAML block of the design document itself parses.
#[test]
fn seed_document_blocks_parse() {
    let Some(sh) = shared() else { return };
    let Ok(doc) = std::fs::read_to_string(sh.join("docs/seeds/crd-diff-validations.md")) else {
        return;
    };
    let blocks: Vec<&str> = doc
        .split("```yaml")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .collect();
    assert!(blocks.len() >= 9, "{}", blocks.len());
    for b in blocks {
        Config::parse(b).unwrap_or_else(|e| panic!("{}\n{}", e, b));
    }
}

/// The examples with their placeholders filled in are honoured.
#[test]
fn seed_examples_are_honoured() {
    let fill = |ex: &str, b: &str, mode: &str, add: &str, strat: &str| {
        ex.replace("{ true || false }", b)
            .replace("{ Open || Closed }", mode)
            .replace("{ Strict || IfPreviouslyConstrained || None }", add)
            .replace("{ Strict || None }", strat)
    };
    let c = Config::parse(&fill(SEED_EXAMPLES[3], "false", "Open", "", "")).unwrap();
    assert!(!c.same_version.enabled);
    assert_eq!(c.same_version.properties.unhandled, Enforcement::None);
    let c = Config::parse(&fill(SEED_EXAMPLES[4], "true", "Closed", "", "")).unwrap();
    assert!(c.served_version.enabled && !c.served_skip_with_webhook);
    assert_eq!(c.served_version.properties.unhandled, Enforcement::Error);
    let c = Config::parse(&fill(SEED_EXAMPLES[4], "false", "Open", "", "")).unwrap();
    assert!(!c.served_version.enabled && c.served_skip_with_webhook);
    let c = Config::parse(&fill(
        SEED_EXAMPLES[5],
        "true",
        "",
        "IfPreviouslyConstrained",
        "None",
    ))
    .unwrap();
    assert_eq!(
        c.same_version.properties.enum_addition,
        diff::config::EnumAddition::IfPreviouslyConstrained
    );
    assert!(!c.same_version.properties.enum_removal);
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    let c = Config::parse(&fill(SEED_EXAMPLES[5], "false", "", "None", "Strict")).unwrap();
    assert_eq!(c.same_version.properties.enum_check, Enforcement::Disabled);
    let c = Config::parse(&fill(SEED_EXAMPLES[6], "true", "", "", "None")).unwrap();
    let p = &c.same_version.properties;
    assert!(!p.default_change && !p.default_removal && !p.default_addition);
    let c = Config::parse(&fill(SEED_EXAMPLES[7], "true", "", "", "None")).unwrap();
    let p = &c.same_version.properties;
    assert!(
        !p.maximum.addition
            && !p.maximum.tightening
            && !p.minimum.addition
            && !p.minimum.tightening
    );
    assert!(p.max_items.tightening, "other limits keep their defaults");
    let c = Config::parse(&fill(SEED_EXAMPLES[8], "false", "", "", "Strict")).unwrap();
    assert_eq!(c.same_version.properties.required, Enforcement::Disabled);
    assert_eq!(c.same_version.properties.type_check, Enforcement::Disabled);
    // And on CRDs: scope example.
    let old = crd(MODE);
    let new = old.replace("scope: Namespaced", "scope: Cluster");
    assert!(run_cfg(&old, &new, SEED_EXAMPLES[0]).findings.is_empty());
    // Enum example with additions allowed if previously constrained.
    let added = crd("              mode: {type: string, enum: [A, B, C]}");
    assert!(run_cfg(
        &old,
        &added,
        &fill(
            SEED_EXAMPLES[5],
            "true",
            "",
            "IfPreviouslyConstrained",
            "Strict"
        )
    )
    .findings
    .is_empty());
    assert_eq!(
        run_cfg(
            &old,
            &added,
            &fill(SEED_EXAMPLES[5], "true", "", "Strict", "Strict")
        )
        .findings
        .len(),
        1
    );
}

#[test]
fn crdify_enforcement_error_warn_none() {
    let old = crd(MODE);
    let new = crd("              mode: {type: string, enum: [A]}");
    let with = |e: &str| {
        run_cfg(
            &old,
            &new,
            &format!("validations:\n- name: enum\n  enforcement: {}\n", e),
        )
    };
    assert_eq!(with("Error").findings[0].severity, Severity::Error);
    let w = with("Warn");
    assert_eq!(w.findings[0].severity, Severity::Warning);
    assert!(!w.breaking);
    // None: the check still handles the change, so nothing is left unhandled.
    assert!(with("None").findings.is_empty());
    // Unknown enforcement: Error, with a note.
    let u = with("Loud");
    assert_eq!(u.findings[0].severity, Severity::Error);
    assert!(
        u.notes.iter().any(|n| n.contains("unknown enforcement")),
        "{:?}",
        u.notes
    );
}

// ------------------------------------------------------------------ outputs and CLI

#[test]
fn json_output_shape() {
    let old = crd(MODE);
    let new = crd("              mode: {type: string, enum: [A]}")
        .replace("scope: Namespaced", "scope: Cluster");
    let v: Value = serde_json::from_str(&report::json(&run(&old, &new))).unwrap();
    assert_eq!(v["breaking"], true);
    let f = &v["findings"];
    assert_eq!(f[0]["validator"], "crd");
    assert_eq!(f[0]["version"], Value::Null);
    assert_eq!(f[0]["field"], Value::Null);
    assert_eq!(f[1]["validator"], "sameVersion");
    assert_eq!(f[1]["check"], "enum");
    assert_eq!(f[1]["version"], "v1");
    assert_eq!(f[1]["field"], "^.spec.mode");
    assert_eq!(f[1]["severity"], "error");
    assert_eq!(f[1]["ratcheting"], "softened");
    for k in [
        "validator",
        "check",
        "version",
        "field",
        "severity",
        "message",
    ] {
        assert!(f[1].get(k).is_some(), "{}", k);
    }
}

#[test]
fn cli_formats_and_exit_codes() {
    let old = tmp("old.yaml", &crd(MODE));
    let bad = tmp(
        "bad.yaml",
        &crd("              mode: {type: string, enum: [A]}"),
    );
    let ok = tmp(
        "ok.yaml",
        &crd("              mode: {type: string, enum: [A, B], description: the mode}"),
    );
    let out = crdlab().args(["diff", &old, &bad]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{}", text);
    assert!(text.starts_with("crdlab diff: BREAKING (1 error, 0 warnings)\n\nsameVersion v1\n  ^.spec.mode\n    ERROR   enum: allowed enum values removed : [\"B\"]\n"), "{}", text);
    for (fmt, probe) in [
        ("json", "\"breaking\": true"),
        ("yaml", "breaking: true"),
        ("markdown", "| `^.spec.mode` | enum | **error** |"),
    ] {
        let out = crdlab()
            .args(["diff", &old, &bad, "-o", fmt])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(probe),
            "{}: {}",
            fmt,
            String::from_utf8_lossy(&out.stdout)
        );
    }
    // A description change under a crdify config that only warns: exit 0.
    let cfg = tmp(
        "cfg.yaml",
        "validations:\n- name: description\n  enforcement: Warn\n",
    );
    let out = crdlab()
        .args(["diff", &old, &ok, "--config", &cfg])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // Objects from a directory.
    let dir = std::path::Path::new(&tmp(
        "objs/w.yaml",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {mode: B}\n",
    ))
    .parent()
    .unwrap()
    .to_string_lossy()
    .into_owned();
    let out = crdlab()
        .args(["diff", &old, &bad, "--objects", &dir, "-o", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["check"] == "objects" && f["objects"][0] == "w.yaml (Widget/w)"),
        "{}",
        v
    );
    // Unreadable input: exit 2.
    let out = crdlab()
        .args(["diff", &old, "/nonexistent.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = crdlab()
        .args(["diff", &old, &bad, "--kubernetes-version", "2.0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

// ------------------------------------------------------------------ real CRDs

fn crd_files(root: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if matches!(
                p.extension().and_then(|x| x.to_str()),
                Some("yaml") | Some("json")
            ) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A CRD compared with itself has no findings.
#[test]
fn real_crds_against_themselves() {
    let Some(sh) = shared() else { return };
    let mut n = 0;
    // The `.patched-*` variants are near copies of their base: leave them to the pairs test.
    for f in crd_files(&sh.join("crds"))
        .into_iter()
        .filter(|f| !f.to_string_lossy().contains(".patched-"))
    {
        let text = std::fs::read_to_string(&f).unwrap();
        let Ok(r) = diff::diff(&text, &text, &Options::default()) else {
            continue;
        };
        assert!(r.findings.is_empty(), "{}: {:#?}", f.display(), r.findings);
        n += 1;
    }
    assert!(n > 20, "{}", n);
}

/// Two states of the same CRD from the OpenShift API history: the patched variants add
/// rules and limits to `images` and `authentications`.
#[test]
fn real_crd_history_pairs() {
    let Some(sh) = shared() else { return };
    let dir = sh.join("crds/openshift-api/config/v1/zz_generated.crd-manifests");
    let read = |n: &str| std::fs::read_to_string(dir.join(n)).ok();
    let (Some(base), Some(patched)) = (
        read("0000_10_config-operator_01_images.crd.yaml"),
        read("0000_10_config-operator_01_images.crd.patched-5df57dfe2858.json"),
    ) else {
        return;
    };
    // The patched variant is the state before the rule was added.
    let r = run(&patched, &base);
    let f = single(&r);
    assert_eq!(f.field.as_deref(), Some("^.spec.registrySources"));
    assert!(f.message.starts_with(r#"x-kubernetes-validations added: {"rule":"has(self.blockedRegistries) ? !has(self.allowedRegistries) : true""#), "{}", f.message);
    // Going back removes the rule.
    assert!(single(&run(&base, &patched))
        .message
        .starts_with("x-kubernetes-validations removed: "));
    // With objects: one using both lists fails the new rule, one using a single list does not.
    let objs = diff::objects_from_text(
        "images.yaml",
        "apiVersion: config.openshift.io/v1\nkind: Image\nmetadata: {name: cluster}\nspec:\n  registrySources:\n    allowedRegistries: [a.example.com]\n    blockedRegistries: [b.example.com]\n---\n\
         apiVersion: config.openshift.io/v1\nkind: Image\nmetadata: {name: other}\nspec:\n  registrySources:\n    allowedRegistries: [a.example.com]\n",
    )
    .unwrap();
    let r = diff::diff(
        &patched,
        &base,
        &Options {
            objects: objs,
            ..Default::default()
        },
    )
    .unwrap();
    let rule = only(&r, "xvalidations")[0];
    assert_eq!(rule.severity, Severity::Error);
    assert_eq!(rule.objects, vec!["images.yaml#1 (Image/cluster)"]);
    assert_eq!(only(&r, "objects").len(), 1, "{:#?}", r.findings);

    // authentications: TechPreviewNoUpgrade → Default drops fields.
    let (Some(tp), Some(def)) = (
        read("0000_10_config-operator_01_authentications-TechPreviewNoUpgrade.crd.yaml"),
        read("0000_10_config-operator_01_authentications-Default.crd.yaml"),
    ) else {
        return;
    };
    let r = run(&tp, &def);
    assert!(only(&r, "existingFieldRemoval").iter().any(
        |f| f.message == "removed field : v1.^.spec.oidcProviders.items.externalClaimsSources"
    ));
    assert!(
        !run(&def, &tp).breaking,
        "adding optional fields is compatible"
    );
}

/// The postgres-operator development and release CRDs have the same schemas; their two
/// served versions differ, which is not new and so not reported.
#[test]
fn real_multi_version_crd() {
    let Some(sh) = shared() else { return };
    let p = |d: &str| {
        sh.join(format!("crds/postgres-operator/config/{}crd/bases/postgres-operator.crunchydata.com_postgresclusters.yaml", d))
    };
    let (Ok(a), Ok(b)) = (
        std::fs::read_to_string(p("")),
        std::fs::read_to_string(p("dev/")),
    ) else {
        return;
    };
    assert!(run(&a, &b).findings.is_empty());
    // Against a CRD with a single served version, every served-version difference is new.
    let only_v1 = Config::parse("checks:\n  sameVersion:\n    enabled: false\n").unwrap();
    let mut old: Value = crdlab::text::crd_document::parse_crd_text(&a).unwrap();
    old["spec"]["versions"]
        .as_array_mut()
        .unwrap()
        .retain(|v| v["name"] == "v1");
    let r = diff::diff(
        &serde_json::to_string(&old).unwrap(),
        &b,
        &Options {
            config: only_v1,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(
        r.findings
            .iter()
            .any(|f| f.version.as_deref() == Some("v1beta1 -> v1")),
        "{:#?}",
        r.findings
    );
}
