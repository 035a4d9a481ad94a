//! A re-compile after an edit (one `Engine`, whose compile cache reuses what earlier
//! compiles computed from identical inputs) answers byte for byte what a fresh compile
//! answers: crdErrors, warnings, rules and their costs, and the validation of objects of the
//! CRD's vectors. Real CRDs of ../shared/crds, edited the ways an editor does: a rule's text,
//! a `maxLength` that changes a rule's cost, a field's type, a rule added then removed, the
//! targeted release. And the cache stays bounded across the edits.

use crdlab::engine::Engine;
use crdlab::schema::cel::compile::RuleCache;
use crdlab::wire::batch::{Answer, Request};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared")
}

/// (CRD file under shared/crds, vectors file under shared/vectors).
const CASES: &[(&str, &str)] = &[
    (
        "etcd-druid/api/core/v1alpha1/crds/druid.gardener.cloud_etcds.yaml",
        "etcd-druid/druid.gardener.cloud_etcds.jsonl",
    ),
    (
        "openshift-api/config/v1alpha1/zz_generated.crd-manifests/0000_10_config-operator_01_clustermonitorings.crd.yaml",
        "openshift-api/config__v1alpha1__clustermonitorings.config.openshift.io__AAA_ungated.jsonl",
    ),
    (
        "openshift-api/config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_infrastructures-Default.crd.yaml",
        "openshift-api/config__v1__infrastructures.config.openshift.io__AAA_ungated.jsonl",
    ),
    (
        "postgres-operator/config/crd/bases/postgres-operator.crunchydata.com_postgresclusters.yaml",
        "postgres-operator/postgres-operator.crunchydata.com_postgresclusters.jsonl",
    ),
];

/// Up to three objects (with their version) the vectors validate against the CRD file.
fn objects(crd: &str, vectors: &Path) -> Vec<(Option<String>, Value)> {
    let Ok(text) = std::fs::read_to_string(vectors) else { return Vec::new() };
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| {
            let r = &v["request"];
            r["object"].is_object()
                && r["crdFile"].as_str().is_some_and(|f| crd.ends_with(f) || f.ends_with(crd))
        })
        .take(3)
        .map(|v| {
            let r = &v["request"];
            (r["version"].as_str().map(str::to_string), r["object"].clone())
        })
        .collect()
}

/// The line of `text` at byte `at` replaced by `f(line)`.
fn replace_line(text: &str, at: usize, f: impl Fn(&str) -> String) -> String {
    let start = text[..at].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let end = at + text[at..].find('\n').unwrap_or(text.len() - at);
    format!("{}{}{}", &text[..start], f(&text[start..end]), &text[end..])
}

/// The first line whose trimmed text (a list item's `- ` dropped) starts with `prefix`.
fn find_line(text: &str, prefix: &str) -> Option<usize> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_start().trim_start_matches("- ").starts_with(prefix) {
            return Some(at);
        }
        at += line.len();
    }
    None
}

/// The first rule's text `R` becomes `(n == n) && (R)`: a new rule text, same meaning.
fn edit_rule(text: &str, n: usize) -> Option<String> {
    let at = find_line(text, "rule: ")?;
    Some(replace_line(text, at, |line| {
        let i = line.find("rule: ").unwrap() + "rule: ".len();
        let expr = line[i..].trim();
        let edited = match expr.chars().next() {
            Some(q @ ('"' | '\'')) if expr.len() >= 2 => {
                format!("{q}({n} == {n}) && ({}){q}", &expr[1..expr.len() - 1])
            }
            _ => format!("'({n} == {n}) && ({})'", expr.replace('\'', "''")),
        };
        format!("{}{}", &line[..i], edited)
    }))
}

/// Every `maxLength: N` becomes `maxLength: 4N + 7` (the costs of rules over those
/// strings change).
fn edit_max_lengths(text: &str) -> Option<String> {
    find_line(text, "maxLength: ")?;
    Some(
        text.split_inclusive('\n')
            .map(|line| {
                let t = line.trim_start();
                match t.strip_prefix("maxLength: ").and_then(|n| n.trim().parse::<u64>().ok()) {
                    Some(n) => format!("{}maxLength: {}\n", &line[..line.len() - t.len()], 4 * n + 7),
                    None => line.to_string(),
                }
            })
            .collect(),
    )
}

/// The first `type: string` becomes `type: integer` (or the first integer a string).
fn edit_type(text: &str) -> Option<String> {
    if let Some(at) = find_line(text, "type: string") {
        return Some(replace_line(text, at, |l| l.replacen("type: string", "type: integer", 1)));
    }
    let at = find_line(text, "type: integer")?;
    Some(replace_line(text, at, |l| l.replacen("type: integer", "type: string", 1)))
}

/// A rule `self == self` added before the first rule of the first rule list.
fn add_rule(text: &str) -> Option<String> {
    let list = find_line(text, "x-kubernetes-validations:")?;
    let next = list + text[list..].find('\n')? + 1;
    let first = &text[next..next + text[next..].find('\n')?];
    let indent = &first[..first.len() - first.trim_start().len()];
    if !first.trim_start().starts_with("- ") {
        return None;
    }
    Some(format!(
        "{}{}- message: added\n{}  rule: self == self\n{}",
        &text[..next],
        indent,
        indent,
        &text[next..]
    ))
}

/// The requests asked of a CRD text: the CRD alone (crdErrors, rules, costs), and each object.
fn requests(text: &str, kube: &str, objects: &[(Option<String>, Value)]) -> Vec<Request> {
    let mut out = vec![json!({"crd": text, "kubernetesVersion": kube})];
    for (version, object) in objects {
        out.push(json!({"crd": text, "kubernetesVersion": kube, "version": version, "object": object}));
    }
    out.into_iter()
        .map(|r| serde_json::from_value(r).expect("a request"))
        .collect()
}

#[test]
fn recompiles_after_edits_answer_as_fresh_compiles() {
    let mut checked = 0;
    for (crd, vectors) in CASES {
        let Ok(text) = std::fs::read_to_string(shared().join("crds").join(crd)) else {
            eprintln!("{} not found: skipped", crd);
            continue;
        };
        let objects = objects(crd, &shared().join("vectors").join(vectors));
        // The edit series, each compiled by the same engine after the previous one.
        let mut series: Vec<(&str, String, &str)> = vec![("original", text.clone(), "1.36")];
        let mut push = |what: &'static str, t: Option<String>, kube: &'static str| {
            if let Some(t) = t {
                series.push((what, t, kube));
            }
        };
        push("rule text", edit_rule(&text, 1), "1.36");
        push("rule text again", edit_rule(&text, 2), "1.36");
        push("maxLength", edit_max_lengths(&text), "1.36");
        push("back", Some(text.clone()), "1.36");
        push("type", edit_type(&text), "1.36");
        push("rule added", add_rule(&text), "1.36");
        push("rule removed", Some(text.clone()), "1.36");
        push("release 1.30", Some(text.clone()), "1.30");
        push("release 1.25, rule text", edit_rule(&text, 3), "1.25");
        push("release 1.36 again", edit_rule(&text, 3), "1.36");
        // Two engines: the default cache (which reuses what any recent compile computed), and
        // one without spare capacity, which keeps only what the previous compile used and so
        // holds at most two compiles' worth whatever the number of edits.
        for capacity in [None, Some(0)] {
            let mut engine = Engine::new();
            if let Some(c) = capacity {
                engine.compile_cache.rules = RuleCache::with_capacity(c);
            }
            let mut first = 0;
            for (what, t, kube) in &series {
                for req in requests(t, kube, &objects) {
                    let incremental: Answer = engine.handle(&req);
                    let fresh: Answer = Engine::new().handle(&req);
                    assert!(
                        incremental == fresh,
                        "{} after the edit {:?} (release {}, cache capacity {:?}): incremental {}\nfresh {}",
                        crd,
                        what,
                        kube,
                        capacity,
                        serde_json::to_string(&incremental).unwrap(),
                        serde_json::to_string(&fresh).unwrap()
                    );
                    checked += 1;
                }
                let held = engine.compile_cache.rules.len();
                if *what == "original" {
                    first = held;
                }
                if capacity.is_some() {
                    assert!(
                        held <= 2 * first + 2,
                        "{}: the cache holds {} rules after {:?} ({} after one compile)",
                        crd,
                        held,
                        what,
                        first
                    );
                }
            }
        }
    }
    assert!(checked > 0 || !shared().join("crds").exists(), "nothing compared");
}

/// The text with the first occurrence of `from` (after the first line starting with
/// `after`, if given) replaced by `to`.
fn replace_first(text: &str, after: Option<&str>, from: &str, to: &str) -> Option<String> {
    let base = match after {
        Some(a) => find_line(text, a)?,
        None => 0,
    };
    let at = base + text[base..].find(from)?;
    Some(format!("{}{}{}", &text[..at], to, &text[at + from.len()..]))
}

/// The edits an editor makes, each on the text the previous one left: (what, the edited
/// text, whether it lies inside scalars, one or a few apart).
fn text_edit_series(text: &str) -> Vec<(&'static str, String, bool)> {
    let mut series: Vec<(&str, String, bool)> = Vec::new();
    let mut last = text.to_string();
    let mut push = |what: &'static str, edit: &dyn Fn(&str) -> Option<String>, scalar: bool| {
        if let Some(t) = edit(&last) {
            series.push((what, t.clone(), scalar));
            last = t;
        }
    };
    push("inside a rule", &|t| edit_rule(t, 7), true);
    push("inside the rule again", &|t| edit_rule(t, 8), true);
    push("a number", &|t| {
        let at = find_line(t, "maxLength: ")?;
        Some(replace_line(t, at, |l| format!("{}1", l)))
    }, true);
    // Several scalars apart in one edit (a pasted file, edits made while the engine was
    // busy): each re-read (`text::splice::splice_hunks`).
    push("a rule and the last maxLength at once", &|t| {
        let t = edit_rule(t, 11)?;
        let at = t.rfind("maxLength: ")?;
        Some(replace_line(&t, at, |l| format!("{}5", l)))
    }, true);
    push("the name, a rule and the last maxLength at once", &|t| {
        let t = replace_first(t, None, "\n  name: ", "\n  name: x")?;
        let t = edit_rule(&t, 12)?;
        let at = t.rfind("maxLength: ")?;
        Some(replace_line(&t, at, |l| format!("{}6", l)))
    }, true);
    push("the name back", &|t| replace_first(t, None, "\n  name: x", "\n  name: "), true);
    // Scalars inside the schemas: the compile after each keeps the nodes the edit did not
    // reach (`CompiledCrd::from_value_reusing`), and must answer as a fresh one.
    push("a type", &|t| edit_type(t), false);
    push("the last maxLength", &|t| {
        let at = t.rfind("maxLength: ")?;
        Some(replace_line(t, at, |l| format!("{}3", l)))
    }, false);
    push("an enum value", &|t| {
        let list = find_line(t, "enum:")?;
        let next = list + t[list..].find('\n')? + 1;
        t[next..].trim_start().starts_with("- ").then(|| replace_line(t, next, |l| format!("{}x", l.trim_end_matches(['"', '\'']))))
    }, false);
    push("the type back", &|t| edit_type(t), false);
    push("a description", &|t| replace_first(t, Some("description: "), "description: ", "description: Edited. "), false);
    push("a multi-byte character", &|t| replace_first(t, Some("description: "), "description: ", "description: é "), false);
    push("back to ASCII", &|t| replace_first(t, Some("description: "), "description: é ", "description: "), false);
    push("a rule after that", &|t| edit_rule(t, 9), false);
    push("a key renamed", &|t| replace_first(t, None, "\n  group:", "\n  groupx:"), false);
    push("the key back", &|t| replace_first(t, None, "\n  groupx:", "\n  group:"), false);
    push("indentation", &|t| replace_first(t, None, "\n  group:", "\n   group:"), false);
    push("indentation back", &|t| replace_first(t, None, "\n   group:", "\n  group:"), false);
    push("invalid YAML", &|t| replace_first(t, None, "\n  group:", "\n  group: [x"), false);
    push("fixed", &|t| replace_first(t, None, "\n  group: [x", "\n  group:"), false);
    push("a scalar made invalid", &|t| {
        let at = find_line(t, "rule: ")?;
        Some(replace_line(t, at, |l| format!("{} '", l)))
    }, false);
    push("the scalar fixed", &|t| {
        let at = find_line(t, "rule: ")?;
        Some(replace_line(t, at, |l| l.strip_suffix(" '").unwrap_or(l).to_string()))
    }, false);
    push("a rule after a failed read", &|t| edit_rule(t, 10), false);
    push("a document added", &|t| Some(format!("{}---\napiVersion: v1\nkind: CrdlabAdded\nmetadata: {{name: crdlab-x}}\n", t)), false);
    push("an edit in the added document", &|t| replace_first(t, None, "kind: CrdlabAdded", "kind: CrdlabEdited"), false);
    push("a flow collection", &|t| replace_first(t, None, "{name: crdlab-x}", "{name: crdlab-y}"), false);
    push("a document before the CRD", &|t| Some(format!("kind: CrdlabOther\n---\n{}", t)), false);
    push("its kind made the CRD's", &|t| replace_first(t, None, "kind: CrdlabOther", "kind: CustomResourceDefinition"), false);
    push("deep: a type made invalid", &|t| replace_first(t, Some("x-kubernetes-validations:"), "type: string", "type: strin"), false);
    push("deep: the type fixed", &|t| replace_first(t, Some("x-kubernetes-validations:"), "type: strin\n", "type: string\n"), false);
    push("deep: a rule made invalid", &|t| {
        let at = find_line(t, "rule: ")?;
        Some(replace_line(t, at, |l| l.replacen("rule: ", "rule: self.nosuchfield || ", 1)))
    }, false);
    push("deep: the last rule edited", &|t| {
        let at = t.rfind("rule: ")?;
        Some(replace_line(t, at, |l| l.replacen("rule: ", "rule: true && ", 1).replace("rule: true && '", "rule: 'true && ").replace("rule: true && \"", "rule: \"true && ")))
    }, false);
    series
}

/// Edits an editor makes, each sent after the previous one to one engine (which re-reads
/// a text edited inside scalars by re-reading those scalars: `text::splice`), each
/// answered as a fresh compile of the edited text answers; the ones inside scalars are
/// spliced.
#[test]
fn text_edits_answer_as_fresh_reads() {
    let mut checked = 0;
    for (crd, vectors) in CASES {
        let Ok(text) = std::fs::read_to_string(shared().join("crds").join(crd)) else {
            eprintln!("{} not found: skipped", crd);
            continue;
        };
        let objects: Vec<_> = objects(crd, &shared().join("vectors").join(vectors)).into_iter().take(1).collect();
        // (what, the edited text, whether it lies inside scalars)
        let series = text_edit_series(&text);
        let mut engine = Engine::new();
        // An engine reads its first text without an index (the fast path); a text that
        // follows as an edit of the one before is indexed, and the edits after it spliced.
        // So the original comes as an edit of itself with one more line.
        for req in requests(&format!("{}\n", text), "1.36", &objects) {
            engine.handle(&req);
        }
        for (what, t, _) in std::iter::once(&("original", text.clone(), false)).chain(&series) {
            let spliced_before = engine.texts_spliced;
            // Each text for two releases: each release's compile keeps its own earlier one's
            // nodes, across the edits made while the other was compiled.
            let other = requests(t, "1.30", &[]);
            for req in requests(t, "1.36", &objects).into_iter().chain(other) {
                let incremental: Answer = engine.handle(&req);
                let fresh: Answer = Engine::new().handle(&req);
                assert!(
                    incremental == fresh,
                    "{} after the edit {:?}: incremental {}\nfresh {}",
                    crd,
                    what,
                    serde_json::to_string(&incremental).unwrap(),
                    serde_json::to_string(&fresh).unwrap()
                );
                checked += 1;
            }
            if series.iter().any(|(w, _, scalar)| w == what && *scalar) {
                assert!(engine.texts_spliced > spliced_before, "{}: {:?} was not spliced", crd, what);
            }
        }
    }
    assert!(checked > 0 || !shared().join("crds").exists(), "nothing compared");
}

/// The playground's workspace (`view::Workspace`, which compiles through an `Engine` that
/// keeps the CRD's positions across edits) answers each edit of the series as a fresh
/// workspace answers the edited text: the CRD's view (errors and rules with their ranges,
/// costs, schema nodes), the object's view, and the CRD document it holds.
#[test]
fn workspace_edits_answer_as_fresh_workspaces() {
    use crdlab::view::{Settings, Workspace};
    let mut checked = 0;
    for (crd, vectors) in CASES {
        let Ok(text) = std::fs::read_to_string(shared().join("crds").join(crd)) else {
            eprintln!("{} not found: skipped", crd);
            continue;
        };
        let object = objects(crd, &shared().join("vectors").join(vectors))
            .into_iter()
            .next()
            .map(|(_, o)| serde_json::to_string_pretty(&o).unwrap())
            .unwrap_or_default();
        let settings = Settings::default();
        let mut ws = Workspace::new();
        let answer = |ws: &mut Workspace, t: &str| {
            let a = ws.analyze(t, &object, "", &settings);
            let view = json!({"crd": &*a.crd, "object": a.object, "summary": a.summary});
            (view, ws.crd_value().cloned())
        };
        for (what, t, _) in std::iter::once(("original", text.clone(), false)).chain(text_edit_series(&text)) {
            let incremental = answer(&mut ws, &t);
            let fresh = answer(&mut Workspace::new(), &t);
            assert!(
                incremental == fresh,
                "{} after the edit {:?}: incremental {}\nfresh {}",
                crd,
                what,
                serde_json::to_string(&incremental.0).unwrap(),
                serde_json::to_string(&fresh.0).unwrap()
            );
            checked += 1;
        }
    }
    assert!(checked > 0 || !shared().join("crds").exists(), "nothing compared");
}

/// An engine reads a text that is no edit of the one before without an index (the YAML
/// fast path); the text that follows it as an edit is read whole and indexed, and the next
/// edit inside one scalar is spliced. Every answer is a fresh engine's.
#[test]
fn a_first_text_is_read_unindexed_and_the_edits_after_it_spliced() {
    let crd = |rule: &str, kind: &str| {
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {p}.example.com\nspec:\n  group: example.com\n  names:\n    kind: {k}\n    plural: {p}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            x-kubernetes-validations:\n            - rule: '{r}'\n            properties:\n              n:\n                type: integer\n",
            p = kind.to_lowercase() + "s",
            k = kind,
            r = rule
        )
    };
    let mut engine = Engine::new();
    let mut step = |text: String, spliced: u64| {
        for req in requests(&text, "1.36", &[(None, json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "a"}, "spec": {"n": 1}}))]) {
            let incremental: Answer = engine.handle(&req);
            assert!(incremental == Engine::new().handle(&req), "{}", text);
        }
        assert_eq!(engine.texts_spliced, spliced, "{}", text);
    };
    step(crd("self.n > 0", "Widget"), 0);
    // The first edit is read whole (indexed), the next ones are spliced.
    step(crd("self.n > 1", "Widget"), 0);
    step(crd("self.n > 2", "Widget"), 1);
    step(crd("self.n > 3", "Widget"), 2);
    // Another CRD is no edit: read without an index again, so its first edit is not spliced.
    step(crd("self.n > 0", "Gadget"), 2);
    step(crd("self.n > 1", "Gadget"), 2);
    step(crd("self.n > 2", "Gadget"), 3);
}
