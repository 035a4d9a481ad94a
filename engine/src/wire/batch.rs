//! The `crdlab batch` protocol (shared/docs/vector-format.md): one [`Request`] in, one
//! [`Answer`] out, converted to and from the engine's typed calls ([`crate::engine`]); the
//! [`Engine`] caches compiled CRDs across requests, so a batch (or an editor) compiles each
//! CRD once.

use crate::crd::compiled::{CompiledCrd, CompiledVersion};
use crate::schema::cel::compile::RuleSummary;
use crate::engine::{validate_options, version_of, CrdInput, Engine};
use crate::field::ErrorReport;
use crate::strategy;
use crate::version::KubeVersion;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

/// One request line. Unknown fields are ignored (forward compatibility).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    #[serde(default)]
    pub id: Value,
    /// The CRD: YAML/JSON text or a JSON object.
    #[serde(default)]
    pub crd: Option<Value>,
    /// A path to the CRD file.
    #[serde(default)]
    pub crd_file: Option<String>,
    /// The CRD being replaced (YAML/JSON text or a JSON object): its presence makes the CRD
    /// an update, where unchanged rules compile in the stored-expressions environment.
    #[serde(default)]
    pub old_crd: Option<Value>,
    /// A path to the old CRD file.
    #[serde(default)]
    pub old_crd_file: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    /// The object sent; absent: compile only. Text (YAML/JSON) or a JSON value.
    #[serde(default)]
    pub object: Option<Value>,
    #[serde(default)]
    pub old_object: Option<Value>,
    #[serde(default)]
    pub subresource: Option<String>,
    #[serde(default)]
    pub ratcheting: Option<bool>,
    #[serde(default)]
    pub emulate_request: Option<bool>,
    #[serde(default, rename = "skipCRDValidation")]
    pub skip_crd_validation: Option<bool>,
    #[serde(default)]
    pub mode: Option<String>,
    #[serde(default)]
    pub expr: Option<String>,
    #[serde(default)]
    pub vars: Option<Value>,
    #[serde(default)]
    pub var_types: Option<Value>,
}

/// A rule's static cost facts (filled by the CEL and cost issues).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RuleReport {
    pub schema_path: String,
    pub rule: String,
    pub uses_old_self: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_cost: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_cardinality: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_cost: Option<u64>,
    /// The static maximum cost of the rule's messageExpression, if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_cost: Option<u64>,
}

impl From<RuleSummary> for RuleReport {
    /// The batch protocol's shape of a rule's static facts: every cost is reported (a
    /// rule that did not compile with zeros).
    fn from(r: RuleSummary) -> RuleReport {
        RuleReport {
            schema_path: r.schema_path,
            rule: r.rule,
            uses_old_self: r.uses_old_self,
            max_cost: Some(r.max_cost),
            max_cardinality: Some(r.max_cardinality),
            estimated_cost: Some(r.estimated_cost),
            message_cost: r.message_cost,
        }
    }
}

/// Every `x-kubernetes-validations` rule of a version with its static cost, in the batch
/// protocol's shape ([`CompiledVersion::rule_summaries`]).
pub fn rule_reports(version: &CompiledVersion) -> Vec<RuleReport> {
    version.rule_summaries().into_iter().map(RuleReport::from).collect()
}

/// One answer line.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    pub id: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crd_errors: Option<Vec<ErrorReport>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crd_warnings: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<Vec<RuleReport>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule_cost_total: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub defaulted: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown_fields: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<ErrorReport>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warnings: Option<Vec<ErrorReport>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remaining_budget: Option<i64>,
    /// The name given to a create that named only `generateName` (the apiserver's name
    /// generator, made deterministic: `strategy::GENERATED_NAME_SUFFIX`). Beyond the
    /// vector format, which has no such field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generated_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Expression mode: compileError, outputType, estimatedCost, value, typedValue,
    /// evalError, actualCost; or `panic` alone where the release's cel-go crashes.
    #[serde(flatten)]
    pub eval: serde_json::Map<String, Value>,
}

impl Answer {
    pub fn failed(id: Value, message: impl Into<String>) -> Answer {
        Answer {
            id,
            error: Some(message.into()),
            ..Default::default()
        }
    }
}

/// Text or JSON value given for a CRD or object.
fn as_document(v: &Value, what: &str) -> Result<Value, String> {
    match v {
        Value::String(text) => {
            crate::text::yaml::read_document(text).map_err(|e| format!("cannot read {}: {}", what, e))
        }
        other => {
            crate::text::json::check_value_depth(other)
                .map_err(|e| format!("cannot read {}: {}", what, e))?;
            Ok(other.clone())
        }
    }
}

/// A request's CRD as `crd`/`crdFile` (or `oldCrd`/`oldCrdFile`) give it: a file is read
/// (with the engine's `file_reader`) into `file_text`, which the input then borrows.
fn crd_input<'r>(
    engine: &Engine,
    file: &'r Option<String>,
    inline: &'r Option<Value>,
    what: &str,
    file_text: &'r mut Option<String>,
) -> Result<Option<CrdInput<'r>>, String> {
    if let Some(path) = file {
        let read = engine
            .file_reader
            .ok_or_else(|| format!("{}File is not available here; pass {}", what, what))?;
        let text = read(path).map_err(|e| format!("cannot read {}File {}: {}", what, path, e))?;
        let text = file_text.insert(text);
        return Ok(Some(CrdInput::File { path, text }));
    }
    match inline {
        Some(Value::String(t)) => Ok(Some(CrdInput::Text(t))),
        Some(v @ Value::Object(_)) => {
            crate::text::json::check_value_depth(v).map_err(|e| format!("cannot read {}: {}", what, e))?;
            Ok(Some(CrdInput::Json(v)))
        }
        Some(other) => Err(format!(
            "{} must be YAML/JSON text or an object, not {}",
            what,
            crate::text::crd_document::json_type_name(other)
        )),
        None => Ok(None),
    }
}

/// The batch protocol's calls on the engine: requests in, answers out.
impl Engine {
    /// The compiled CRD of a request, from the cache when the same CRD was seen before.
    pub fn compiled(&mut self, req: &Request, kube: KubeVersion) -> Result<Arc<CompiledCrd>, String> {
        let (mut crd_text, mut old_text) = (None, None);
        let crd = crd_input(self, &req.crd_file, &req.crd, "crd", &mut crd_text)?
            .ok_or_else(|| "the request names no CRD (crd or crdFile)".to_string())?;
        let old = crd_input(self, &req.old_crd_file, &req.old_crd, "oldCrd", &mut old_text)?;
        self.compile(crd, old, kube)
    }

    /// Answers one request; never panics on bad input (errors become `error`).
    pub fn handle(&mut self, req: &Request) -> Answer {
        let id = req.id.clone();
        match self.try_handle(req) {
            Ok(a) => a,
            Err(e) => Answer::failed(id, e),
        }
    }

    /// Answers one JSON request line.
    ///
    /// # Example
    ///
    /// ```
    /// use crdlab::Engine;
    /// let mut engine = Engine::new();
    /// let answer = engine.handle_line(r#"{"id": 1, "mode": "eval", "expr": "1 + 2"}"#);
    /// let json = serde_json::to_value(&answer).unwrap();
    /// assert_eq!(json["typedValue"], serde_json::json!({"type": "int", "value": 3}));
    /// ```
    pub fn handle_line(&mut self, line: &str) -> Answer {
        let v: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => return Answer::failed(Value::Null, format!("request is not JSON: {}", e)),
        };
        let id = v.get("id").cloned().unwrap_or(Value::Null);
        match serde_json::from_value::<Request>(v) {
            Ok(r) => self.handle(&r),
            Err(e) => Answer::failed(id, format!("bad request: {}", e)),
        }
    }

    fn try_handle(&mut self, req: &Request) -> Result<Answer, String> {
        let kube = match &req.kubernetes_version {
            Some(s) => KubeVersion::parse(s)?,
            None => KubeVersion::PROTOCOL_DEFAULT,
        };
        if req.mode.as_deref() == Some("eval") {
            let expr = req.expr.as_deref().ok_or("expression mode needs expr")?;
            if let Some(vars) = &req.vars {
                crate::text::json::check_value_depth(vars).map_err(|e| format!("cannot read vars: {}", e))?;
            }
            let mut fields =
                crate::cel::eval::evaluate(expr, req.vars.as_ref(), req.var_types.as_ref(), kube);
            if let Some(Value::String(e)) = fields.remove("error") {
                return Err(e);
            }
            return Ok(Answer {
                id: req.id.clone(),
                eval: fields,
                ..Default::default()
            });
        }
        let crd = self.compiled(req, kube)?;
        let version = version_of(&crd, req.version.as_deref())?;
        let mut answer = Answer {
            id: req.id.clone(),
            ..Default::default()
        };
        if !req.skip_crd_validation.unwrap_or(false) {
            answer.crd_errors = Some(
                crd.crd_errors
                    .iter()
                    .map(|e| e.to_report_for(kube))
                    .collect(),
            );
            answer.crd_warnings = Some(crd.crd_warnings.clone());
        }
        let rules = rule_reports(version);
        // The apiserver's total adds every rule's estimate and every messageExpression's cost.
        answer.rule_cost_total = Some(
            rules
                .iter()
                .flat_map(|r| [r.estimated_cost, r.message_cost])
                .flatten()
                .fold(0u64, |a, b| a.saturating_add(b)),
        );
        answer.rules = Some(rules);
        let Some(obj) = &req.object else {
            return Ok(answer);
        };
        let obj = as_document(obj, "object")?;
        let old = match &req.old_object {
            Some(o) => Some(as_document(o, "oldObject")?),
            None => None,
        };
        let opts = validate_options(
            req.subresource.as_deref(),
            crate::engine::protocol_ratcheting(req.ratcheting, kube),
            req.emulate_request,
            kube,
        )?;
        let out = strategy::validate_object(&crd, version, &obj, old.as_ref(), &opts)?;
        answer.defaulted = Some(out.defaulted);
        answer.unknown_fields = Some(out.unknown_fields);
        answer.errors = Some(out.errors.iter().map(|e| e.to_report_for(kube)).collect());
        answer.warnings = Some(out.warnings.iter().map(|e| e.to_report_for(kube)).collect());
        answer.remaining_budget = out.remaining_budget;
        answer.generated_name = out.generated_name;
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-version CRD whose rules depend on everything a compile cache must key on:
    /// rule text, `self` types, size bounds (`maxItems`, `maxLength`), `fieldPath` targets,
    /// the Kubernetes version (optional syntax is new in 1.29 for new expressions) and, on
    /// updates, which expressions the old CRD held.
    const BASE: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-validations:
        - rule: "self.metadata.name.size() < 64"
        properties:
          spec:
            type: object
            description: the spec
            x-kubernetes-validations:
            - rule: "self.items.all(i, i.name.size() > 0)"
              messageExpression: "'bad items for mode ' + self.mode"
            - rule: "self.mode.startsWith('a')"
            - rule: "self.mode == oldSelf.mode"
              message: mode is immutable
            - rule: "self.?mode.orValue('') != 'x'"
            properties:
              mode: {type: string, maxLength: 10}
              extra:
                type: object
                properties:
                  inner:
                    type: object
                    properties: {a: {type: string}}
                    x-kubernetes-validations:
                    - rule: "self == 1"
              items:
                type: array
                maxItems: 20
                items:
                  type: object
                  properties:
                    name: {type: string, maxLength: 32}
                    tags: {type: array, maxItems: 5, items: {type: string, maxLength: 8}}
                  x-kubernetes-validations:
                  - rule: "self.tags.all(t, self.tags.exists_one(u, u == t))"
                    fieldPath: ".tags"
                  - rule: "self.name.matches('^[a-z]+$')"
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.items.all(i, i.name.size() > 0)"
            properties:
              items:
                type: array
                maxItems: 20
                items:
                  type: object
                  properties:
                    name: {type: string, maxLength: 32}
"#;

    fn request(crd: &str, old: Option<&str>, kube: &str) -> Request {
        Request {
            crd: Some(Value::String(crd.to_string())),
            old_crd: old.map(|o| Value::String(o.to_string())),
            kubernetes_version: Some(kube.to_string()),
            ..Default::default()
        }
    }

    fn replace(text: &str, from: &str, to: &str) -> String {
        assert!(text.contains(from), "{:?} not in the CRD", from);
        text.replacen(from, to, 1)
    }

    /// Every answer of an engine that compiled other CRDs before equals a fresh engine's:
    /// what the compile cache reuses is keyed by everything it depends on.
    #[test]
    fn cached_compiles_answer_as_cold_ones() {
        let rule_edit = replace(
            BASE,
            "i.name.size() > 0)\"\n              messageExpression",
            "i.name.size() > 1)\"\n              messageExpression",
        );
        let max_items = replace(BASE, "maxItems: 20", "maxItems: 2000");
        let inner_bound = replace(BASE, "maxItems: 5", "maxItems: 500");
        let max_length = replace(BASE, "{type: string, maxLength: 32}", "{type: string}");
        let retyped = replace(
            BASE,
            "mode: {type: string, maxLength: 10}",
            "mode: {type: integer}",
        );
        let renamed = replace(BASE, "tags: {type: array", "labels: {type: array");
        let without_optional = replace(BASE, "self.?mode.orValue('') != 'x'", "self.mode != 'x'");
        // Errors that print the schema (its descriptions included).
        let status = replace(
            &replace(
                BASE,
                "    storage: true\n",
                "    storage: true\n    subresources: {status: {}}\n",
            ),
            "        type: object\n        x-kubernetes-validations:",
            "        type: object\n        maxProperties: 5\n        x-kubernetes-validations:",
        );
        let status_described = replace(
            &status,
            "description: the spec",
            "description: the new spec",
        );
        // The same subtree under another name: its type is named after its path.
        let moved = replace(BASE, "              extra:", "              other:");
        let described = replace(BASE, "description: the spec", "description: the new spec");
        let same_versions = {
            // v2 with v1's schema: the versions share their compiled rules.
            let (head, _) = BASE.split_once("  - name: v2").expect("v2");
            let v1 = head.split_once("  - name: v1").expect("v1").1;
            format!(
                "{}  - name: v1{}  - name: v2{}",
                head.split_once("  - name: v1").expect("v1").0,
                v1,
                v1.replacen("storage: true", "storage: false", 1)
            )
        };
        let steps: Vec<(&str, Request)> = vec![
            ("base", request(BASE, None, "1.36")),
            ("rule edit", request(&rule_edit, None, "1.36")),
            ("maxItems", request(&max_items, None, "1.36")),
            ("nested maxItems", request(&inner_bound, None, "1.36")),
            ("maxLength", request(&max_length, None, "1.36")),
            ("type change", request(&retyped, None, "1.36")),
            ("fieldPath target renamed", request(&renamed, None, "1.36")),
            ("description", request(&described, None, "1.36")),
            ("subtree moved", request(&moved, None, "1.36")),
            ("status", request(&status, None, "1.36")),
            (
                "status, description",
                request(&status_described, None, "1.36"),
            ),
            ("identical versions", request(&same_versions, None, "1.36")),
            (
                "base v2",
                Request {
                    version: Some("v2".into()),
                    ..request(BASE, None, "1.36")
                },
            ),
            (
                "identical versions v2",
                Request {
                    version: Some("v2".into()),
                    ..request(&same_versions, None, "1.36")
                },
            ),
            ("kubernetes 1.28", request(BASE, None, "1.28")),
            ("kubernetes 1.30", request(BASE, None, "1.30")),
            ("update at 1.28", request(BASE, Some(BASE), "1.28")),
            (
                "update at 1.28, old CRD without the rule",
                request(BASE, Some(&without_optional), "1.28"),
            ),
            ("rule edit at 1.28", request(&rule_edit, None, "1.28")),
            ("update of an edit", request(&rule_edit, Some(BASE), "1.28")),
            ("base again", request(BASE, None, "1.36")),
        ];
        let mut warm = Engine::new();
        let mut answers = Vec::new();
        for (name, req) in &steps {
            let got = warm.handle(req);
            let cold = Engine::new().handle(req);
            assert!(cold.error.is_none(), "{}: {:?}", name, cold.error);
            assert_eq!(
                got, cold,
                "{}: the cached compile answers differently",
                name
            );
            answers.push((*name, cold));
        }
        // The steps change what they should (a cache that ignored them would fail above).
        let answer = |name: &str| &answers.iter().find(|(n, _)| *n == name).expect("a step").1;
        // (1.30 prints the rule of a compile error as Go's %#v, 1.36 as JSON: not the same.)
        for same in ["description", "base again"] {
            assert_eq!(answer(same), answer("base"), "{}", same);
        }
        for (step, from) in [
            ("rule edit", "base"),
            ("maxItems", "base"),
            ("nested maxItems", "base"),
            ("maxLength", "base"),
            ("type change", "base"),
            ("fieldPath target renamed", "base"),
            ("subtree moved", "base"),
            ("status", "base"),
            ("status, description", "status"),
            ("identical versions v2", "base v2"),
            ("kubernetes 1.28", "base"),
            // Unchanged rules compile in the stored environment, where optional syntax exists.
            ("update at 1.28", "kubernetes 1.28"),
            ("update at 1.28, old CRD without the rule", "update at 1.28"),
            ("update of an edit", "rule edit at 1.28"),
        ] {
            assert_ne!(answer(step), answer(from), "{} answers as {}", step, from);
        }
        let c = &warm.compile_cache.rules;
        assert!(
            c.hits > 0 && c.set_hits > 0,
            "nothing was reused: {} rule hits, {} set hits",
            c.hits,
            c.set_hits
        );
    }

    /// The same over every CRD in ../shared at two releases, in one engine.
    #[test]
    fn shared_crds_compile_alike_with_and_without_cache() {
        let files = crate::testing::shared_files("crds", &["yaml", "json"]).expect("../shared/crds");
        let mut warm = Engine::new();
        let mut compared = 0;
        for kube in ["1.36", "1.30"] {
            for f in &files {
                let Ok(text) = std::fs::read_to_string(f) else {
                    continue;
                };
                let req = request(&text, None, kube);
                let cold = Engine::new().handle(&req);
                if cold.error.is_some() {
                    continue;
                }
                assert_eq!(warm.handle(&req), cold, "{} at {}", f.display(), kube);
                compared += 1;
            }
        }
        if compared == 0 {
            eprintln!("skipped: no CRDs under ../shared/crds");
        }
    }
}
