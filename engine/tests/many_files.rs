//! The CLI over many files (issue 20): `crdlab schema` (the CRDs of files, directories,
//! multi-document files and Lists become one JSON Schema per kind and version plus a catalog)
//! and `crdlab validate --crds` (every object of files, directories or stdin against the CRD
//! of its kind, each finding at its line). Bad input exits 2 naming the file.

#![cfg(feature = "cli")]

use std::path::PathBuf;
use std::process::Command;

mod common;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("crdlab-schema-{}-{}", std::process::id(), name));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn crdlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_crdlab"))
}

fn read(p: PathBuf) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {}", p.display(), e))).unwrap()
}

/// A second CRD, of another group and kind, with a pattern Go and JavaScript read differently.
const GADGETS: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.other.io}
spec:
  group: other.io
  scope: Cluster
  names: {kind: Gadget, plural: gadgets}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              name: {type: string, pattern: '^\s*\w+\:$'}
"#;

#[test]
fn directories_multi_document_files_and_lists_give_a_schema_per_kind_and_version() {
    let input = dir("in");
    std::fs::create_dir_all(input.join("nested")).unwrap();
    // A multi-document file with a non-CRD document in it, and a List in a nested folder.
    let widgets = common::widgets_spec("            properties:\n              replicas: {type: integer, maximum: 5}\n");
    std::fs::write(input.join("all.yaml"), format!("apiVersion: v1\nkind: Namespace\nmetadata: {{name: x}}\n---\n{}", widgets)).unwrap();
    let gadgets: serde_json::Value = serde_yaml_like(GADGETS);
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [gadgets]});
    std::fs::write(input.join("nested/list.json"), list.to_string()).unwrap();
    std::fs::write(input.join("notes.txt"), "not read").unwrap();
    let out = dir("out");
    let run = crdlab().args(["schema", "--crds"]).arg(&input).arg("-o").arg(&out).arg("--notes").output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{}{}", stdout, String::from_utf8_lossy(&run.stderr));
    assert!(stdout.contains("wrote 2 schemas and catalog.json"), "{}", stdout);
    let w = read(out.join("widget_v1.json"));
    assert_eq!(w["properties"]["spec"]["properties"]["replicas"]["maximum"], 5);
    assert_eq!(w["properties"]["apiVersion"]["enum"][0], "example.com/v1");
    let g = read(out.join("gadget_v1alpha1.json"));
    // Go's \s is [\t\n\f\r ], \w ASCII, \: a literal colon: spelled so in ECMAScript.
    assert_eq!(g["properties"]["spec"]["properties"]["name"]["pattern"], "^[\\u{9}-\\u{a}\\u{c}-\\u{d} ]*[0-9A-Z_a-z]+:$");
    let catalog = read(out.join("catalog.json"));
    let urls: Vec<&str> = catalog["schemas"].as_array().unwrap().iter().map(|s| s["url"].as_str().unwrap()).collect();
    assert_eq!(urls, ["widget_v1.json", "gadget_v1alpha1.json"]);
}

/// The YAML of GADGETS as JSON (through the crate's own reader).
fn serde_yaml_like(text: &str) -> serde_json::Value {
    crdlab::text::yaml::read_document(text).unwrap()
}

#[test]
fn bad_input_exits_2_with_the_file_and_line() {
    let input = dir("bad");
    std::fs::write(input.join("broken.yaml"), "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: [\n").unwrap();
    let out = dir("bad-out");
    let run = crdlab().args(["schema", "--crds"]).arg(&input).arg("-o").arg(&out).output().unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{}", stderr);
    assert!(stderr.contains("broken.yaml:"), "{}", stderr);
    let none = dir("none");
    std::fs::write(none.join("ns.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n").unwrap();
    let run = crdlab().args(["schema", "--crds"]).arg(&none).arg("-o").arg(&out).output().unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("no CustomResourceDefinition in"));
}

// `crdlab validate --crds`: many objects against many CRDs.

const WIDGET_OK: &str = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: ok}\nspec: {replicas: 1}\n";

fn many_crds(name: &str) -> PathBuf {
    let d = dir(name);
    std::fs::write(d.join("widgets.yaml"), common::widgets_spec("            properties:\n              replicas: {type: integer, maximum: 5}\n")).unwrap();
    d
}

#[test]
fn validate_many_reports_each_object_at_its_line_and_exits_1() {
    let crds = many_crds("many-crds-1");
    let objs = dir("many-objs");
    // Document 2 is invalid at line 9 (`replicas: 7`); document 3 is a kind no CRD defines.
    std::fs::write(
        objs.join("all.yaml"),
        format!("{}---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: big}}\nspec:\n  replicas: 7\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c}}\n", WIDGET_OK),
    )
    .unwrap();
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "in-list"}, "spec": {"replicas": "x"}}
    ]});
    std::fs::write(objs.join("list.json"), serde_json::to_string_pretty(&list).unwrap()).unwrap();
    let run = crdlab().args(["validate", "--crds"]).arg(&crds).arg(&objs).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(1), "{}", stdout);
    assert!(stdout.contains("  1:1: Widget ok is valid"), "{}", stdout);
    assert!(stdout.contains("  6:1: The Widget.example.com \"big\" is invalid:\n    10:13: spec.replicas: Invalid value: 7: spec.replicas in body should be less than or equal to 5"), "{}", stdout);
    assert!(stdout.contains("  12:1: ConfigMap c skipped: no CRD defines ConfigMap in the core group"), "{}", stdout);
    assert!(stdout.contains("spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\""), "{}", stdout);
    assert!(stdout.contains("4 objects: 1 valid, 2 invalid, 1 skipped"), "{}", stdout);

    // JSON: one record per object, with file, document, item and positions.
    let run = crdlab().args(["validate", "-o", "json", "--crds"]).arg(&crds).arg(&objs).output().unwrap();
    let records: Vec<serde_json::Value> = String::from_utf8_lossy(&run.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(records.len(), 4);
    assert_eq!(records[1]["status"], "invalid");
    assert_eq!(records[1]["document"], 1);
    assert_eq!((records[1]["errors"][0]["line"].as_u64(), records[1]["errors"][0]["column"].as_u64()), (Some(10), Some(13)));
    assert_eq!(records[2]["status"], "skipped");
    assert_eq!(records[3]["item"], 0);
}

#[test]
fn validate_many_reads_stdin_and_strict_fails_skipped_kinds() {
    let crds = many_crds("many-crds-2");
    let run_with = |args: &[&str], input: &str| {
        let mut child = crdlab()
            .args(["validate", "--crds"])
            .arg(&crds)
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    };
    let out = run_with(&[], WIDGET_OK);
    assert_eq!(out.status.code(), Some(0), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("-\n  1:1: Widget ok is valid"));
    let other = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n";
    assert_eq!(run_with(&["-"], other).status.code(), Some(0));
    assert_eq!(run_with(&["--strict", "-"], other).status.code(), Some(1));
    // Unreadable input: exit 2 with the place.
    let out = run_with(&["-"], "a: [\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: -:"), "{}", String::from_utf8_lossy(&out.stderr));
}

/// `--old`: an object with an old one of the same apiVersion, kind, namespace and name is
/// an update (ratcheting keeps an unchanged invalid value, as the apiserver does from 1.30);
/// any other is a create; old objects without a new one are not reported.
#[test]
fn validate_many_with_old_objects_validates_updates() {
    let crds = many_crds("many-crds-old");
    let objs = dir("many-objs-new");
    let olds = dir("many-objs-old");
    let widget = |name: &str, ns: &str, replicas: u32, label: &str| {
        format!("apiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: {}, namespace: {}, labels: {{l: {}}}}}\nspec: {{replicas: {}}}\n", name, ns, label, replicas)
    };
    // `kept`: replicas 7 (over the maximum) unchanged, a label changed: ratcheted on update.
    // `moved`: the old one is in another namespace, so it is a create and 7 is refused.
    std::fs::write(objs.join("new.yaml"), format!("{}---\n{}", widget("kept", "a", 7, "new"), widget("moved", "a", 7, "x"))).unwrap();
    std::fs::write(olds.join("old.yaml"), format!("{}---\n{}---\n{}", widget("kept", "a", 7, "old"), widget("moved", "b", 7, "x"), widget("gone", "a", 1, "x"))).unwrap();
    let run = |extra: &[&str]| {
        let out = crdlab().args(["validate", "--crds"]).arg(&crds).arg(&objs).arg("--old").arg(&olds).args(extra).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, stdout, _) = run(&[]);
    assert_eq!(code, Some(1), "{}", stdout);
    assert!(stdout.contains("  1:1: update: Widget kept is valid"), "{}", stdout);
    assert!(stdout.contains("  6:1: The Widget.example.com \"moved\" is invalid:"), "{}", stdout);
    assert!(stdout.contains("2 objects: 1 valid, 1 invalid, 0 skipped (1 update)"), "{}", stdout);
    assert!(!stdout.contains("gone"), "{}", stdout);

    // JSON records say which operation each object was.
    let (_, stdout, _) = run(&["-o", "json"]);
    let records: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(records.len(), 2);
    assert_eq!((records[0]["operation"].as_str(), records[0]["status"].as_str()), (Some("update"), Some("valid")));
    assert_eq!((records[1]["operation"].as_str(), records[1]["status"].as_str()), (Some("create"), Some("invalid")));

    // Without ratcheting (or before 1.30, where it is off by default) the update is refused too.
    for extra in [&["--no-ratcheting"][..], &["--kubernetes-version", "1.29"][..]] {
        let (code, stdout, _) = run(extra);
        assert_eq!(code, Some(1), "{:?}: {}", extra, stdout);
        assert!(stdout.contains("  1:1: update: The Widget.example.com \"kept\" is invalid:"), "{:?}: {}", extra, stdout);
        assert!(stdout.contains("2 objects: 0 valid, 2 invalid"), "{:?}: {}", extra, stdout);
    }
    // 1.29 has the gate: --ratcheting turns it on.
    let (code, stdout, _) = run(&["--kubernetes-version", "1.29", "--ratcheting"]);
    assert_eq!(code, Some(1), "{}", stdout);
    assert!(stdout.contains("update: Widget kept is valid"), "{}", stdout);

    // Only valid objects: exit 0.
    std::fs::write(objs.join("new.yaml"), widget("kept", "a", 7, "new")).unwrap();
    let (code, stdout, _) = run(&[]);
    assert_eq!(code, Some(0), "{}", stdout);

    // Old objects come from files: stdin holds the new ones; an unreadable path exits 2.
    let out = crdlab().args(["validate", "--crds"]).arg(&crds).arg(&objs).args(["--old", "-"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--old reads files and directories"));
    let out = crdlab().args(["validate", "--crds"]).arg(&crds).arg(&objs).args(["--old", "/nonexistent/crdlab-old"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}
