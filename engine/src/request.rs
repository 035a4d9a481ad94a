//! The `crdlab batch` protocol (shared/docs/vector-format.md): one [`Request`] in, one
//! [`Answer`] out. [`Engine`] caches compiled CRDs across requests, so a batch (or an editor)
//! compiles each CRD once.

use crate::crd::CompiledCrd;
use crate::field::ErrorReport;
use crate::strategy::{self, ValidateOptions};
use crate::version::KubeVersion;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Expression mode: compileError, outputType, estimatedCost, value, typedValue,
    /// evalError, actualCost.
    #[serde(flatten)]
    pub eval: serde_json::Map<String, Value>,
}

impl Answer {
    pub fn failed(id: Value, message: impl Into<String>) -> Answer {
        Answer { id, error: Some(message.into()), ..Default::default() }
    }
}

/// The named CRD version (default: the storage version), or the error that says which exist.
pub fn version_of<'c>(crd: &'c CompiledCrd, name: Option<&str>) -> Result<&'c crate::crd::CompiledVersion, String> {
    crd.version(name).ok_or_else(|| match name {
        Some(v) => format!(
            "the CRD has no version {:?} (it has {})",
            v,
            crd.crd.spec.versions.iter().map(|v| v.name.as_str()).collect::<Vec<_>>().join(", ")
        ),
        None => "the CRD has no versions".to_string(),
    })
}

/// The request's validation options (subresource, ratcheting, request emulation), with
/// their defaults.
pub fn validate_options(
    subresource: Option<&str>,
    ratcheting: Option<bool>,
    emulate_request: Option<bool>,
) -> Result<ValidateOptions, String> {
    Ok(ValidateOptions {
        status_subresource: match subresource {
            None | Some("") => false,
            Some("status") => true,
            Some(other) => return Err(format!("unsupported subresource {:?} (only \"status\")", other)),
        },
        ratcheting: ratcheting.unwrap_or(true),
        emulate_request: emulate_request.unwrap_or(true),
    })
}

/// Compiles CRDs on demand and keeps them for later requests.
#[derive(Default)]
pub struct Engine {
    cache: HashMap<(String, KubeVersion), Arc<CompiledCrd>>,
    /// Reads `crdFile` paths; `None` (as in wasm) rejects them.
    pub file_reader: Option<fn(&str) -> std::io::Result<String>>,
}

/// Text or JSON value given for a CRD or object.
fn as_document(v: &Value, what: &str) -> Result<Value, String> {
    match v {
        Value::String(text) => crate::yaml::read_document(text).map_err(|e| format!("cannot read {}: {}", what, e)),
        other => Ok(other.clone()),
    }
}

impl Engine {
    pub fn new() -> Engine {
        Engine::default()
    }

    /// An engine that reads `crdFile` paths from the file system.
    pub fn with_file_system() -> Engine {
        Engine { cache: HashMap::new(), file_reader: Some(|p| std::fs::read_to_string(p)) }
    }

    /// A CRD given as `crd`/`crdFile` (or `oldCrd`/`oldCrdFile`): its cache key, and its
    /// text or JSON value.
    fn crd_source<'r>(
        &self,
        file: &Option<String>,
        inline: &'r Option<Value>,
        what: &str,
    ) -> Result<Option<(String, Option<String>, Option<&'r Value>)>, String> {
        if let Some(path) = file {
            let read = self.file_reader.ok_or_else(|| format!("{}File is not available here; pass {}", what, what))?;
            let text = read(path).map_err(|e| format!("cannot read {}File {}: {}", what, path, e))?;
            return Ok(Some((format!("file:{}", path), Some(text), None)));
        }
        match inline {
            Some(Value::String(t)) => Ok(Some((format!("text:{}", t), Some(t.clone()), None))),
            Some(v @ Value::Object(_)) => Ok(Some((format!("json:{}", v), None, Some(v)))),
            Some(other) => Err(format!(
                "{} must be YAML/JSON text or an object, not {}",
                what,
                crate::crd::json_type_name(other)
            )),
            None => Ok(None),
        }
    }

    /// The compiled CRD of a request, from the cache when the same CRD was seen before.
    pub fn compiled(&mut self, req: &Request, kube: KubeVersion) -> Result<Arc<CompiledCrd>, String> {
        let (mut key, text, value) = self
            .crd_source(&req.crd_file, &req.crd, "crd")?
            .ok_or_else(|| "the request names no CRD (crd or crdFile)".to_string())?;
        let old = self.crd_source(&req.old_crd_file, &req.old_crd, "oldCrd")?;
        let old_value = match &old {
            Some((old_key, text, value)) => {
                key = format!("{}\u{0}old:{}", key, old_key);
                Some(match (text, value) {
                    (Some(t), _) => crate::crd::parse_crd_text(t).map_err(|e| format!("old CRD: {}", e))?,
                    (None, Some(v)) => (*v).clone(),
                    _ => unreachable!("either text or value is set"),
                })
            }
            None => None,
        };
        if let Some(c) = self.cache.get(&(key.clone(), kube)) {
            return Ok(c.clone());
        }
        let compiled = match (text, value) {
            (Some(t), _) => crate::crd::parse_crd_text(&t)
                .and_then(|v| CompiledCrd::from_value_update(&v, old_value.as_ref(), kube)),
            (None, Some(v)) => CompiledCrd::from_value_update(v, old_value.as_ref(), kube),
            _ => unreachable!("either text or value is set"),
        }
        .map_err(|e| e.to_string())?;
        let compiled = Arc::new(compiled);
        if self.cache.len() > 64 {
            self.cache.clear();
        }
        self.cache.insert((key, kube), compiled.clone());
        Ok(compiled)
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
            None => KubeVersion::default(),
        };
        if req.mode.as_deref() == Some("eval") {
            let expr = req.expr.as_deref().ok_or("expression mode needs expr")?;
            let mut fields = crate::cel::eval::evaluate(expr, req.vars.as_ref(), req.var_types.as_ref(), kube);
            if let Some(Value::String(e)) = fields.remove("error") {
                return Err(e);
            }
            return Ok(Answer { id: req.id.clone(), eval: fields, ..Default::default() });
        }
        let crd = self.compiled(req, kube)?;
        let version = version_of(&crd, req.version.as_deref())?;
        let mut answer = Answer { id: req.id.clone(), ..Default::default() };
        if !req.skip_crd_validation.unwrap_or(false) {
            answer.crd_errors = Some(crd.crd_errors.iter().map(|e| e.to_report_for(kube)).collect());
            answer.crd_warnings = Some(crd.crd_warnings.clone());
        }
        let rules = crate::cel::rule_reports(version);
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
        let opts = validate_options(req.subresource.as_deref(), req.ratcheting, req.emulate_request)?;
        let out = strategy::validate_object(&crd, version, &obj, old.as_ref(), &opts)?;
        answer.defaulted = Some(out.defaulted);
        answer.unknown_fields = Some(out.unknown_fields);
        answer.errors = Some(out.errors.iter().map(|e| e.to_report_for(kube)).collect());
        answer.warnings = Some(out.warnings.iter().map(|e| e.to_report_for(kube)).collect());
        answer.remaining_budget = out.remaining_budget;
        Ok(answer)
    }
}
