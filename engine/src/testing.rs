//! Test fixtures: the one "widgets" CRD (`widgets.example.com`, kind `Widget`, one version
//! `v1`) that unit and integration tests fill with their own schema, so its text stands in one
//! place. Unit tests reach it as `crate::testing`; the integration tests include this same file
//! from `engine/tests/common/mod.rs` (a `#[path]` module), which is why it uses nothing of the
//! crate but `serde_json`.

// Each side (unit tests, each integration test) uses only part of it.
#![allow(dead_code)]

use serde_json::{json, Value};

/// The CRD down to (and with) `scope`: apiVersion, kind, metadata, group, names.
pub const WIDGETS_HEAD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  scope: Namespaced
";

/// The widgets CRD, YAML, with one served storage version `v1` whose `openAPIV3Schema` is
/// `schema`: its lines, indented 8 spaces.
pub fn widgets_yaml(schema: &str) -> String {
    format!(
        "{}  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
{}",
        WIDGETS_HEAD, schema
    )
}

/// [`widgets_yaml`] whose schema is an object with one property, `spec`, an object with
/// `spec_lines` (its keywords, indented 12 spaces).
pub fn widgets_spec(spec_lines: &str) -> String {
    widgets_yaml(&format!(
        "        type: object
        properties:
          spec:
            type: object
{}",
        spec_lines
    ))
}

/// The widgets CRD as a JSON value, with one served storage version `v1` whose
/// `openAPIV3Schema` is `schema`.
pub fn widgets_json(schema: Value) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": schema}
            }]
        }
    })
}

/// A widgets CRD with a status subresource and one rule that does not compile (`self.x >`):
/// the text whose lines and columns the position tests assert.
pub const WIDGETS_BROKEN_RULE: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
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
            - rule: self.x >
              message: broken
"#;

/// A deterministic pseudo-random source for generated test inputs (xorshift64): each call
/// gives a number below `n` (`n` > 0).
pub fn xorshift(seed: u64) -> impl FnMut(usize) -> usize {
    let mut state = seed.max(1);
    move |n| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    }
}

/// The files under `../shared/<sub>` (beside the repository) whose names end in one of
/// `exts`, sorted; `None` when that folder is absent (the caller says it skipped).
pub fn shared_files(sub: &str, exts: &[&str]) -> Option<Vec<std::path::PathBuf>> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared").join(sub);
    if !root.is_dir() {
        eprintln!("skipped: {} is absent", root.display());
        return None;
    }
    let mut files = Vec::new();
    let mut dirs = vec![root];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).ok()?.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().and_then(|x| x.to_str()).is_some_and(|x| exts.contains(&x)) {
                files.push(p);
            }
        }
    }
    files.sort();
    Some(files)
}
