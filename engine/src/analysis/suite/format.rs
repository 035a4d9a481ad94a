//! Reading a suite file (openshift/api `tests/types.go`'s `SuiteSpec`, read as its runner
//! reads it with sigs.k8s.io/yaml: unknown fields are ignored) plus crdlab's optional
//! fields, with the line of each test for reports.

use crate::text::source_map::{PathSeg, SourceMap};
use crate::text::yaml::read_document_with_positions;
use serde_json::Value;

/// One suite file, read.
#[derive(Clone, Debug, Default)]
pub struct Suite {
    /// `name`: the suite's name in reports.
    pub name: String,
    /// `crd`: a CRD file relative to the suite file.
    pub crd: Option<String>,
    /// crdlab's inline CRD: `crd` holding the CRD manifest itself (a mapping) instead of
    /// a file name, so that one file carries the suite and its CRD (the npm package and
    /// the playground have no files to name).
    pub crd_inline: Option<Value>,
    /// `crdName`: the CRD by name, found in openshift's layout.
    pub crd_name: Option<String>,
    /// `featureGates`: gates a CRD file's feature set must enable (`-Gate`: disable).
    pub feature_gates: Vec<String>,
    /// `version`: the CRD version the suite tests (the others are dropped, as the runner's
    /// `loadVersionedCRD` does).
    pub version: Option<String>,
    /// crdlab's `kubernetesVersions`: the releases the suite's tests hold on.
    pub kubernetes_versions: Option<Vec<String>>,
    /// crdlab's `expectedCost`: bounds on rules' estimated costs.
    pub expected_cost: Vec<CostBound>,
    pub on_create: Vec<Test>,
    pub on_update: Vec<Test>,
}

/// crdlab's `expectedCost` entry: the rule (its text, and optionally the path of the
/// schema that carries it, as `spec.x` or the schema path crdlab prints) may cost at most
/// `max` by the apiserver's estimate.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CostBound {
    pub path: Option<String>,
    pub rule: String,
    pub max: u64,
    pub line: u32,
}

/// Which table a test belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestKind {
    OnCreate,
    OnUpdate,
}

impl TestKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TestKind::OnCreate => "onCreate",
            TestKind::OnUpdate => "onUpdate",
        }
    }
}

/// One RFC 6902 operation of `initialCRDPatches`.
#[derive(Clone, Debug, PartialEq)]
pub struct Patch {
    pub op: String,
    pub path: String,
    pub from: Option<String>,
    pub value: Option<Value>,
}

/// One test of `onCreate` or `onUpdate`.
#[derive(Clone, Debug)]
pub struct Test {
    pub kind: TestKind,
    /// Its index in its table (for `--update`'s JSON pointer).
    pub index: usize,
    pub name: String,
    /// 1-based line of the test's entry in the suite file.
    pub line: u32,
    pub initial: String,
    pub updated: String,
    pub expected: String,
    pub expected_error: String,
    pub expected_status_error: String,
    pub initial_crd_patches: Vec<Patch>,
    /// crdlab's `expectedWarnings`: substrings each of some warning the apiserver returns.
    pub expected_warnings: Vec<String>,
    /// crdlab's `kubernetesVersions` for this test (over the suite's).
    pub kubernetes_versions: Option<Vec<String>>,
}

/// Whether a YAML document is a suite: a top-level `tests` map with `onCreate` or
/// `onUpdate`, and `crd` or `crdName`.
pub fn is_suite(doc: &Value) -> bool {
    has_tests(doc) && (doc.get("crd").is_some() || doc.get("crdName").is_some())
}

/// A top-level `tests` map with `onCreate` or `onUpdate`.
fn has_tests(doc: &Value) -> bool {
    doc.get("tests").is_some_and(|t| t.get("onCreate").is_some() || t.get("onUpdate").is_some())
}

/// Reads a suite file's text; the error says what is wrong, with a line where it can.
pub fn parse_suite(text: &str) -> Result<Suite, String> {
    parse_suite_with(text, false)
}

/// [`parse_suite`] for a suite whose CRD the caller gives (`crd_given`): then `crd` and
/// `crdName` may be absent, since the suite is run against that CRD whatever they say.
pub fn parse_suite_with(text: &str, crd_given: bool) -> Result<Suite, String> {
    let (doc, map) = read_document_with_positions(text).map_err(|e| e.to_string())?;
    if !(is_suite(&doc) || crd_given && has_tests(&doc)) {
        return Err(if crd_given {
            "not a test suite: it needs a top-level `tests` with `onCreate` or `onUpdate`".into()
        } else {
            "not a test suite: it needs a top-level `tests` with `onCreate` or `onUpdate`, and `crd` or `crdName`".into()
        });
    }
    let crd_inline = doc.get("crd").filter(|c| c.is_object()).cloned();
    let mut s = Suite {
        name: string_field(&doc, "name", &[], &map)?,
        crd: if crd_inline.is_some() { None } else { opt_string(&doc, "crd", &[], &map)? },
        crd_inline,
        crd_name: opt_string(&doc, "crdName", &[], &map)?,
        feature_gates: string_list(&doc, "featureGates", &[], &map)?,
        version: opt_string(&doc, "version", &[], &map)?,
        kubernetes_versions: opt_list(&doc, "kubernetesVersions", &[], &map)?,
        ..Default::default()
    };
    if let Some(costs) = doc.get("expectedCost").filter(|v| !v.is_null()) {
        let Value::Array(items) = costs else {
            return Err(at(&map, &[key("expectedCost")], "expectedCost must be a list of {path, rule, max}"));
        };
        for (i, c) in items.iter().enumerate() {
            let here = [key("expectedCost"), PathSeg::Index(i)];
            let max = c.get("max").and_then(Value::as_u64).ok_or_else(|| at(&map, &here, "expectedCost entries need `max`, a non-negative integer"))?;
            let rule = c.get("rule").and_then(Value::as_str).ok_or_else(|| at(&map, &here, "expectedCost entries need `rule`, the rule's text"))?;
            s.expected_cost.push(CostBound {
                path: c.get("path").and_then(Value::as_str).map(str::to_string),
                rule: rule.to_string(),
                max,
                line: line_of(&map, &here),
            });
        }
    }
    let tests = &doc["tests"];
    for kind in [TestKind::OnCreate, TestKind::OnUpdate] {
        let table = match tests.get(kind.as_str()) {
            None | Some(Value::Null) => continue,
            Some(Value::Array(a)) => a,
            Some(_) => return Err(at(&map, &[key("tests"), key(kind.as_str())], &format!("tests.{} must be a list", kind.as_str()))),
        };
        for (i, t) in table.iter().enumerate() {
            let here = [key("tests"), key(kind.as_str()), PathSeg::Index(i)];
            if !t.is_object() {
                return Err(at(&map, &here, "a test must be a mapping"));
            }
            let mut patches = Vec::new();
            if let Some(ps) = t.get("initialCRDPatches").filter(|v| !v.is_null()) {
                let Value::Array(ps) = ps else {
                    return Err(at(&map, &here, "initialCRDPatches must be a list of RFC 6902 operations"));
                };
                for p in ps {
                    let op = p.get("op").and_then(Value::as_str);
                    let path = p.get("path").and_then(Value::as_str);
                    let (Some(op), Some(path)) = (op, path) else {
                        return Err(at(&map, &here, "each initialCRDPatches entry needs `op` and `path`"));
                    };
                    patches.push(Patch {
                        op: op.to_string(),
                        path: path.to_string(),
                        from: p.get("from").and_then(Value::as_str).map(str::to_string),
                        value: p.get("value").cloned(),
                    });
                }
            }
            s_push(&mut s, kind, Test {
                kind,
                index: i,
                name: string_field(t, "name", &here, &map)?,
                line: line_of(&map, &here),
                initial: string_field(t, "initial", &here, &map)?,
                updated: string_field(t, "updated", &here, &map)?,
                expected: string_field(t, "expected", &here, &map)?,
                expected_error: string_field(t, "expectedError", &here, &map)?,
                expected_status_error: string_field(t, "expectedStatusError", &here, &map)?,
                initial_crd_patches: patches,
                expected_warnings: string_list(t, "expectedWarnings", &here, &map)?,
                kubernetes_versions: opt_list(t, "kubernetesVersions", &here, &map)?,
            });
        }
    }
    Ok(s)
}

fn s_push(s: &mut Suite, kind: TestKind, t: Test) {
    match kind {
        TestKind::OnCreate => s.on_create.push(t),
        TestKind::OnUpdate => s.on_update.push(t),
    }
}

fn key(k: &str) -> PathSeg {
    PathSeg::Key(k.to_string())
}

/// The 1-based line where the node at `path` (or its nearest ancestor) starts.
fn line_of(map: &SourceMap, path: &[PathSeg]) -> u32 {
    map.nearest(path).map(|(n, _)| n.value.start_line).unwrap_or(1)
}

fn at(map: &SourceMap, path: &[PathSeg], msg: &str) -> String {
    format!("line {}: {}", line_of(map, path), msg)
}

/// A string field (Go's zero value, "", when absent or null); scalars of other types are
/// refused as the Go decoder refuses them.
fn string_field(v: &Value, k: &str, here: &[PathSeg], map: &SourceMap) -> Result<String, String> {
    Ok(opt_string(v, k, here, map)?.unwrap_or_default())
}

fn opt_string(v: &Value, k: &str, here: &[PathSeg], map: &SourceMap) -> Result<Option<String>, String> {
    match v.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => {
            let mut p = here.to_vec();
            p.push(key(k));
            Err(at(map, &p, &format!("`{}` must be a string, not {}", k, crate::text::crd_document::json_type_name(other))))
        }
    }
}

fn string_list(v: &Value, k: &str, here: &[PathSeg], map: &SourceMap) -> Result<Vec<String>, String> {
    Ok(opt_list(v, k, here, map)?.unwrap_or_default())
}

/// A list of strings; a single string is taken as a one-item list.
fn opt_list(v: &Value, k: &str, here: &[PathSeg], map: &SourceMap) -> Result<Option<Vec<String>>, String> {
    let mut p = here.to_vec();
    p.push(key(k));
    match v.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(vec![s.clone()])),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| match i {
                Value::String(s) => Ok(s.clone()),
                Value::Number(n) => Ok(n.to_string()),
                _ => Err(at(map, &p, &format!("`{}` must be a list of strings", k))),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(_) => Err(at(map, &p, &format!("`{}` must be a list of strings", k))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUITE: &str = "name: Foo\ncrdName: foos.example.com\nfeatureGates: [A, -B]\ntests:\n  onCreate:\n  - name: first\n    initial: |\n      kind: Foo\n    expectedError: boom\n  onUpdate:\n  - name: second\n    kubernetesVersions: ['1.30']\n    initialCRDPatches:\n    - op: remove\n      path: /spec/x\n    initial: 'a'\n    updated: 'b'\n";

    #[test]
    fn reads_tests_with_their_lines() {
        let s = parse_suite(SUITE).unwrap();
        assert_eq!(s.name, "Foo");
        assert_eq!(s.crd_name.as_deref(), Some("foos.example.com"));
        assert_eq!(s.feature_gates, vec!["A", "-B"]);
        assert_eq!(s.on_create[0].line, 6);
        assert_eq!(s.on_create[0].expected_error, "boom");
        assert_eq!(s.on_update[0].line, 11);
        assert_eq!(s.on_update[0].initial_crd_patches[0].op, "remove");
        assert_eq!(s.on_update[0].kubernetes_versions, Some(vec!["1.30".to_string()]));
    }

    #[test]
    fn refuses_what_is_not_a_suite() {
        assert!(parse_suite("kind: Foo\n").unwrap_err().starts_with("not a test suite"));
        assert_eq!(
            parse_suite("crd: x.yaml\ntests:\n  onCreate:\n  - name: x\n    initial: [1]\n").unwrap_err(),
            "line 5: `initial` must be a string, not array"
        );
    }
}
