//! The playground's examples (`static/examples/index.json`). Each example's CRD, object and
//! old object go through the engine the way the playground sends them, and the answer must
//! be the one the manifest states: the browser tests load the same manifest and expect the
//! same lists, so a change in the engine's answers shows up here first. The manifest itself
//! is checked too: unique ids, every file present and readable, every CRD decodable, and no
//! YAML file in the folder left out of the picker.

use crdlab::engine::Engine;
use crdlab::wire::batch::{Answer, Request};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("static")
        .join("examples")
}

fn read(rel: &str) -> String {
    let p = examples_dir().join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {}", p.display(), e))
}

fn manifest() -> Vec<Map<String, Value>> {
    let text = read("index.json");
    let v: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("index.json is not JSON: {}", e));
    let Value::Array(items) = v else {
        panic!("index.json must be an array of examples");
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, e)| match e {
            Value::Object(m) => m,
            other => panic!("index.json[{}] must be an object, not {}", i, other),
        })
        .collect()
}

fn id_of(e: &Map<String, Value>) -> String {
    e.get("id")
        .and_then(Value::as_str)
        .unwrap_or("<no id>")
        .to_string()
}

fn string_field<'e>(e: &'e Map<String, Value>, key: &str) -> &'e str {
    match e.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => s,
        other => panic!(
            "example {}: {} must be a non-empty string, not {:?}",
            id_of(e),
            key,
            other
        ),
    }
}

/// The example's file paths (crd, object, oldObject when set), relative to the examples folder.
fn files_of(e: &Map<String, Value>) -> Vec<String> {
    let mut files = vec![
        string_field(e, "crd").to_string(),
        string_field(e, "object").to_string(),
    ];
    match e.get("oldObject") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => files.push(s.clone()),
        Some(other) => panic!(
            "example {}: oldObject must be a path or null, not {}",
            id_of(e),
            other
        ),
    }
    files
}

fn expect_of(e: &Map<String, Value>) -> &Map<String, Value> {
    match e.get("expect") {
        Some(Value::Object(m)) => m,
        other => panic!(
            "example {}: expect must be an object, not {:?}",
            id_of(e),
            other
        ),
    }
}

/// An expected message list from the manifest (a missing list means none expected).
fn expected_messages(e: &Map<String, Value>, key: &str) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    match expect_of(e).get(key) {
        None => {}
        Some(Value::Array(items)) => {
            for m in items {
                let Some(s) = m.as_str() else {
                    panic!(
                        "example {}: expect.{} must hold strings, found {}",
                        id_of(e),
                        key,
                        m
                    );
                };
                *out.entry(s.to_string()).or_insert(0) += 1;
            }
        }
        Some(other) => panic!(
            "example {}: expect.{} must be a list, not {}",
            id_of(e),
            key,
            other
        ),
    }
    out
}

fn answered_messages(list: &Option<Vec<crdlab::field::ErrorReport>>) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for r in list.iter().flatten() {
        *out.entry(r.message.clone()).or_insert(0) += 1;
    }
    out
}

/// The difference of two multisets, for a readable failure.
fn diff(expected: &BTreeMap<String, usize>, got: &BTreeMap<String, usize>) -> String {
    let mut s = String::new();
    for (m, n) in expected {
        let g = got.get(m).copied().unwrap_or(0);
        if g < *n {
            s.push_str(&format!("\n  missing ({}x): {}", n - g, m));
        }
    }
    for (m, n) in got {
        let x = expected.get(m).copied().unwrap_or(0);
        if x < *n {
            s.push_str(&format!("\n  unexpected ({}x): {}", n - x, m));
        }
    }
    s
}

/// Runs one example as the playground does: the CRD, the object and the old object as text,
/// the manifest's Kubernetes version, and the status subresource when `status` is true.
fn run(engine: &mut Engine, e: &Map<String, Value>) -> Answer {
    let status = match e.get("status") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => panic!(
            "example {}: status must be a boolean, not {}",
            id_of(e),
            other
        ),
    };
    let kube = match e.get("kubernetesVersion") {
        None | Some(Value::Null) => None,
        Some(Value::String(v)) => Some(v.clone()),
        Some(other) => panic!(
            "example {}: kubernetesVersion must be a string, not {}",
            id_of(e),
            other
        ),
    };
    let old = match e.get("oldObject") {
        Some(Value::String(p)) => Some(Value::String(read(p))),
        _ => None,
    };
    let req = Request {
        id: Value::String(id_of(e)),
        crd: Some(Value::String(read(string_field(e, "crd")))),
        object: Some(Value::String(read(string_field(e, "object")))),
        old_object: old,
        kubernetes_version: kube,
        subresource: status.then(|| "status".to_string()),
        ..Default::default()
    };
    let answer = engine.handle(&req);
    if let Some(err) = &answer.error {
        panic!("example {}: the engine could not answer: {}", id_of(e), err);
    }
    answer
}

#[test]
fn every_example_answers_as_its_manifest_says() {
    let mut engine = Engine::new();
    let mut failures = Vec::new();
    let examples = manifest();
    assert!(!examples.is_empty(), "index.json lists no examples");
    for e in &examples {
        let id = id_of(e);
        let answer = run(&mut engine, e);
        for (key, got) in [
            ("crdErrors", answered_messages(&answer.crd_errors)),
            ("errors", answered_messages(&answer.errors)),
            ("warnings", answered_messages(&answer.warnings)),
        ] {
            let want = expected_messages(e, key);
            if want != got {
                failures.push(format!("{}: {} differ:{}", id, key, diff(&want, &got)));
            }
        }
        let rules = answer.rules.as_deref().unwrap_or(&[]);
        let costs = match expect_of(e).get("ruleCosts") {
            None => Vec::new(),
            Some(Value::Array(c)) => c.clone(),
            Some(other) => panic!(
                "example {}: expect.ruleCosts must be a list, not {}",
                id, other
            ),
        };
        for c in &costs {
            let rule = c.get("rule").and_then(Value::as_str).unwrap_or_else(|| {
                panic!("example {}: a ruleCosts entry has no rule text: {}", id, c)
            });
            let want = c
                .get("estimatedCost")
                .and_then(Value::as_u64)
                .unwrap_or_else(|| {
                    panic!(
                        "example {}: ruleCosts entry for {:?} needs an integer estimatedCost",
                        id, rule
                    )
                });
            let path = c.get("schemaPath").and_then(Value::as_str);
            let found: Vec<_> = rules
                .iter()
                .filter(|r| r.rule == rule && path.is_none_or(|p| r.schema_path == p))
                .collect();
            match found.as_slice() {
                [] => failures.push(format!("{}: no rule {:?} at {:?}", id, rule, path)),
                [r] => {
                    if r.estimated_cost != Some(want) {
                        failures.push(format!(
                            "{}: rule {:?} at {}: estimatedCost {:?}, manifest says {}",
                            id, rule, r.schema_path, r.estimated_cost, want
                        ))
                    }
                }
                _ => failures.push(format!(
                    "{}: rule {:?} occurs {} times; give its schemaPath",
                    id,
                    rule,
                    found.len()
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn manifest_ids_are_unique_and_entries_complete() {
    let mut seen = BTreeSet::new();
    for e in manifest() {
        let id = string_field(&e, "id").to_string();
        assert!(
            id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "id {:?}: use lowercase letters, digits and dashes (it names a folder and a URL fragment)",
            id
        );
        assert!(
            seen.insert(id.clone()),
            "id {:?} appears twice in index.json",
            id
        );
        string_field(&e, "title");
        string_field(&e, "description");
        // The manifest lists every expectation explicitly, so a reader sees "none" as [].
        for key in ["crdErrors", "errors", "warnings", "ruleCosts"] {
            assert!(
                matches!(expect_of(&e).get(key), Some(Value::Array(_))),
                "example {}: expect.{} must be a list",
                id,
                key
            );
        }
        for f in files_of(&e) {
            assert!(
                !f.starts_with('/') && !f.split('/').any(|part| part == ".." || part.is_empty()),
                "example {}: {:?} must be a plain path inside static/examples",
                id,
                f
            );
        }
    }
}

#[test]
fn every_example_file_reads_and_every_crd_decodes() {
    for e in manifest() {
        let id = id_of(&e);
        let files = files_of(&e);
        let crd_text = read(&files[0]);
        let crd = crdlab::text::crd_document::parse_crd_text(&crd_text)
            .unwrap_or_else(|err| panic!("example {}: {}: {}", id, files[0], err));
        let model = crdlab::crd::decode_crd(&crd)
            .unwrap_or_else(|err| panic!("example {}: {}: {}", id, files[0], err));
        assert!(
            !model.spec.versions.is_empty(),
            "example {}: the CRD has no versions",
            id
        );
        for f in &files[1..] {
            let obj = crdlab::text::yaml::read_document(&read(f))
                .unwrap_or_else(|err| panic!("example {}: {}: {}", id, f, err));
            // The object must be of the CRD's kind, or the example validates nothing useful.
            assert_eq!(
                obj.get("kind").and_then(Value::as_str),
                Some(model.spec.names.kind.as_str()),
                "example {}: {} is not a {}",
                id,
                f,
                model.spec.names.kind
            );
        }
    }
}

/// Every YAML file under static/examples, as a path relative to it with `/` separators.
fn yaml_files(dir: &Path, rel: &str, out: &mut BTreeSet<String>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {}", dir.display(), e));
    for entry in entries {
        let entry = entry.unwrap_or_else(|e| panic!("cannot list {}: {}", dir.display(), e));
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        let child = if rel.is_empty() {
            name.clone()
        } else {
            format!("{}/{}", rel, name)
        };
        if path.is_dir() {
            yaml_files(&path, &child, out);
        } else if name.ends_with(".yaml") || name.ends_with(".yml") {
            out.insert(child);
        }
    }
}

#[test]
fn every_yaml_file_is_referenced_by_the_manifest() {
    let mut on_disk = BTreeSet::new();
    yaml_files(&examples_dir(), "", &mut on_disk);
    let mut referenced: BTreeSet<String> = manifest().iter().flat_map(files_of).collect();
    // An example's `crdlab test` suite (engine/tests/suite.rs runs it).
    referenced.extend(manifest().iter().filter_map(|e| e.get("suite").and_then(Value::as_str).map(str::to_string)));
    let unreferenced: Vec<_> = on_disk.difference(&referenced).collect();
    assert!(
        unreferenced.is_empty(),
        "not in index.json (the picker would never offer them): {:?}",
        unreferenced
    );
    let missing: Vec<_> = referenced.difference(&on_disk).collect();
    assert!(
        missing.is_empty(),
        "index.json names files that do not exist: {:?}",
        missing
    );
}
