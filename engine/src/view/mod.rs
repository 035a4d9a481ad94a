//! What an editor front end shows for a CRD and objects being edited: the playground's
//! whole judgement, computed here so the Yew app (and any other front end) only renders.
//!
//! [`Workspace::analyze`] takes the three texts and the settings and returns an
//! [`Analysis`]: the CRD's problems with their ranges, every rule with its compile status,
//! costs and fixes, the object's per-field results as a tree, and the `kubectl` summary.
//! The CRD half is computed once per CRD text and target release and shared (`Arc`) by every
//! analysis of objects against it, so typing in the object editor never recompiles the CRD.
//!
//! - [`tree`]: the object's fields with their states;
//! - [`kubectl`]: what `kubectl apply` prints for the answer;
//! - [`share`]: the whole state in a URL fragment.

pub mod kubectl;
pub mod policy;
pub mod share;
pub mod tree;

use crate::cel::explain::{self, BoundFix, RuleExplanation};
use crate::crd::CompiledCrd;
use crate::positions::{self, Diagnostic, Source};
use crate::strategy;
use crate::version::KubeVersion;
use crate::yaml::Range;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

/// The switches beside the editors.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// The CRD version objects are validated against (`None`: the storage version).
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    /// Validation ratcheting on updates; `None`: what the release does (on from 1.30,
    /// [`KubeVersion::ratcheting_by_default`]). `Some(true)` before 1.28 is ignored: the
    /// release cannot ratchet.
    #[serde(default)]
    pub ratcheting: Option<bool>,
    /// Validate as a write to the status subresource.
    #[serde(default)]
    pub status: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { version: None, kubernetes_version: None, ratcheting: None, status: false }
    }
}

impl Settings {
    /// Whether updates ratchet on `kube`: the setting where the release can honour it,
    /// else the release's default.
    pub fn ratcheting_on(&self, kube: KubeVersion) -> bool {
        kube.ratcheting(self.ratcheting).unwrap_or(false)
    }
}

/// A text that could not be read: the reader's message and where.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InputError {
    pub message: String,
    pub range: Option<Range>,
}

/// Everything shown about the CRD (shared by all analyses of objects against it).
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CrdView {
    /// The CRD text could not be read or decoded; nothing else is then filled.
    pub load_error: Option<InputError>,
    pub kubernetes_version: String,
    /// `spec.versions[*].name`.
    pub versions: Vec<String>,
    pub storage_version: Option<String>,
    /// `spec.names.kind` and `spec.group`, for the summary line.
    pub kind: String,
    pub group: String,
    pub name: String,
    /// The apiserver's create checks, located in the CRD text.
    pub errors: Vec<Diagnostic>,
    pub warnings: Vec<String>,
    /// Per CRD version: its rules and schema nodes.
    pub per_version: Vec<VersionView>,
}

/// One CRD version's rules and the nodes rules can be added to.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionView {
    pub name: String,
    pub rules: Vec<RuleView>,
    /// The saturating sum of the rules' (and messageExpressions') estimated costs.
    pub cost_total: u64,
    pub per_rule_limit: u64,
    pub per_crd_limit: u64,
    /// `cost_total` as a percentage of `per_crd_limit`.
    pub total_share_percent: f64,
    /// Every schema node (properties, items, additionalProperties), in document order.
    pub nodes: Vec<SchemaNode>,
}

/// A schema node a rule can be added to.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SchemaNode {
    /// `spec.items[*]`, `<root>` for the root.
    pub field: String,
    /// JSON pointer to the node in the CRD document.
    pub pointer: String,
    /// `object`, `array`, `string`, ... (empty when the schema names none).
    pub type_name: String,
    pub depth: usize,
    pub rule_count: usize,
}

/// One `x-kubernetes-validations` entry as written, with what the apiserver makes of it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleView {
    /// `openAPIV3Schema.properties[spec].x-kubernetes-validations[0]`.
    pub schema_path: String,
    /// JSON pointer to the entry in the CRD document (edits write there).
    pub pointer: String,
    /// The node's field path (`spec.items[*]`, `<root>`).
    pub field: String,
    pub rule: String,
    pub message: String,
    pub message_expression: String,
    pub reason: String,
    pub field_path: String,
    pub optional_old_self: Option<bool>,
    /// Where the rule text stands in the CRD text.
    pub range: Option<Range>,
    /// The create checks reported on this entry (compile errors, cost errors, bad fields).
    pub errors: Vec<Diagnostic>,
    pub estimated_cost: u64,
    pub max_cardinality: u64,
    pub message_expression_cost: Option<u64>,
    pub per_rule_limit: u64,
    /// `estimated_cost` as a percentage of the per-CRD budget.
    pub share_percent: f64,
    pub over_limit: bool,
    /// The cost explanation (what drives the cost, the bounds that fix it).
    pub explanation: RuleExplanation,
}

impl RuleView {
    /// The one-click fixes: single bounds first, else the combined one.
    pub fn fixes(&self) -> Vec<&BoundFix> {
        if !self.explanation.fixes.is_empty() {
            self.explanation.fixes.iter().collect()
        } else {
            self.explanation.combined_fix.iter().collect()
        }
    }
}

/// Everything shown about the object.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectView {
    /// The object (or old object) could not be read or is not an object.
    pub load_error: Option<InputError>,
    pub old_load_error: Option<InputError>,
    /// An update (an old object was given).
    pub update: bool,
    /// The version validated against.
    pub version: String,
    /// The object's `metadata.name`.
    pub name: String,
    pub errors: Vec<Diagnostic>,
    /// Errors ratcheting turned into warnings (unchanged fields of an update).
    pub ratcheted: Vec<Diagnostic>,
    pub remaining_budget: Option<i64>,
    /// The object after pruning and defaulting (pretty JSON).
    pub defaulted_text: String,
    /// Fields defaulting added (apiserver paths).
    pub defaulted_fields: Vec<String>,
    /// Fields pruning removed, with where they stand in the object text.
    pub pruned: Vec<(String, Option<Range>)>,
    pub tree: Vec<tree::Node>,
}

/// The outcome of one analysis.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    pub crd: Arc<CrdView>,
    /// `None` when the object editor is empty (CRD checks only).
    pub object: Option<ObjectView>,
    /// What `kubectl apply` would print.
    pub summary: kubectl::Summary,
}

struct CrdState {
    text: String,
    kube: KubeVersion,
    source: Option<Source>,
    compiled: Option<Arc<CompiledCrd>>,
    view: Arc<CrdView>,
}

/// Keeps the compiled CRD between analyses; one per editor.
#[derive(Default)]
pub struct Workspace {
    crd: Option<CrdState>,
}

impl Workspace {
    pub fn new() -> Workspace {
        Workspace::default()
    }

    /// The compiled CRD of the last analysis (for version matrices, diffs).
    pub fn compiled(&self) -> Option<Arc<CompiledCrd>> {
        self.crd.as_ref().and_then(|c| c.compiled.clone())
    }

    /// The CRD document of the last analysis.
    pub fn crd_value(&self) -> Option<&Value> {
        self.crd.as_ref().and_then(|c| c.source.as_ref()).map(|s| &s.value)
    }

    /// Analyses the texts. `old_object` empty means a create; `object` empty, CRD checks only.
    pub fn analyze(&mut self, crd: &str, object: &str, old_object: &str, settings: &Settings) -> Analysis {
        let kube = match settings.kubernetes_version.as_deref().map(KubeVersion::parse) {
            Some(Ok(k)) => k,
            Some(Err(e)) => {
                let view = Arc::new(CrdView {
                    load_error: Some(InputError { message: e, range: None }),
                    ..Default::default()
                });
                return Analysis { summary: kubectl::summary(&view, None), crd: view, object: None };
            }
            None => KubeVersion::default(),
        };
        let fresh = matches!(&self.crd, Some(c) if c.text == crd && c.kube == kube);
        if !fresh {
            self.crd = Some(compile_crd(crd, kube));
        }
        let state = self.crd.as_ref().expect("set above");
        let view = state.view.clone();
        let object = match &state.compiled {
            Some(compiled) if !object.trim().is_empty() => {
                Some(analyze_object(compiled, &view, object, old_object, settings))
            }
            _ => None,
        };
        Analysis { summary: kubectl::summary(&view, object.as_ref()), crd: view, object }
    }
}

fn read_error(text: &str, message: String, line: Option<usize>, column: Option<usize>) -> InputError {
    let range = match (line, column) {
        (Some(l), Some(c)) => positions::error_range(text, l, c),
        _ => None,
    };
    InputError { message, range }
}

fn compile_crd(text: &str, kube: KubeVersion) -> CrdState {
    let mut view = CrdView { kubernetes_version: kube.to_string(), ..Default::default() };
    let fail = |view: CrdView| CrdState {
        text: text.to_string(),
        kube,
        source: None,
        compiled: None,
        view: Arc::new(view),
    };
    if text.trim().is_empty() {
        view.load_error = Some(InputError {
            message: "paste a CustomResourceDefinition (YAML or JSON)".into(),
            range: None,
        });
        return fail(view);
    }
    let source = match Source::read_crd(text) {
        Ok(s) => s,
        Err(e) => {
            view.load_error = Some(read_error(text, e.message.clone(), e.line, e.column));
            return fail(view);
        }
    };
    let compiled = match CompiledCrd::from_value(&source.value, kube) {
        Ok(c) => Arc::new(c),
        Err(e) => {
            view.load_error = Some(InputError { message: e.to_string(), range: None });
            return CrdState { text: text.to_string(), kube, source: Some(source), compiled: None, view: Arc::new(view) };
        }
    };
    let reports: Vec<_> = compiled.crd_errors.iter().map(|e| e.to_report_for(kube)).collect();
    view.errors = positions::crd_diagnostics(&reports, Some(&source));
    view.warnings = compiled.crd_warnings.clone();
    view.versions = compiled.versions.iter().map(|v| v.name.clone()).collect();
    view.storage_version = compiled.version(None).map(|v| v.name.clone());
    view.kind = compiled.crd.spec.names.kind.clone();
    view.group = compiled.crd.spec.group.clone();
    view.name = compiled.crd.metadata.name.clone();
    view.per_version = compiled
        .versions
        .iter()
        .map(|v| version_view(&compiled, v, &source, &view.errors))
        .collect();
    CrdState { text: text.to_string(), kube, source: Some(source), compiled: Some(compiled), view: Arc::new(view) }
}

/// JSON pointer escaping (RFC 6901).
pub fn pointer_escape(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// `openAPIV3Schema.properties[spec].x-kubernetes-validations[0]` → the JSON pointer below
/// `/spec/versions/<i>/schema`.
fn schema_path_pointer(version_index: usize, schema_path: &str) -> String {
    let mut p = format!("/spec/versions/{}/schema", version_index);
    for seg in positions::parse_field_path(schema_path) {
        p.push('/');
        match seg {
            positions::FieldSeg::Field(f) | positions::FieldSeg::Bracket(f) => p.push_str(&pointer_escape(&f)),
        }
    }
    p
}

/// The create-check errors reported on a rule entry: the apiserver names it under
/// `spec.versions[i].schema.` or, when every version shares one schema, `spec.validation.`.
fn rule_errors(errors: &[Diagnostic], version_index: usize, schema_path: &str) -> Vec<Diagnostic> {
    let direct = format!("spec.versions[{}].schema.{}", version_index, schema_path);
    let hoisted = format!("spec.validation.{}", schema_path);
    errors
        .iter()
        .filter(|e| {
            [&direct, &hoisted].iter().any(|p| {
                e.field == **p
                    || e.field
                        .strip_prefix(p.as_str())
                        .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
            })
        })
        .cloned()
        .collect()
}

fn version_view(
    compiled: &CompiledCrd,
    v: &crate::crd::CompiledVersion,
    source: &Source,
    errors: &[Diagnostic],
) -> VersionView {
    let mut out = VersionView { name: v.name.clone(), ..Default::default() };
    if let Ok(e) = explain::explain(compiled, Some(&v.name)) {
        out.cost_total = e.total;
        out.per_rule_limit = e.per_rule_limit;
        out.per_crd_limit = e.per_crd_limit;
        out.total_share_percent = e.total_share_percent;
        for r in e.rules {
            let pointer = schema_path_pointer(v.index, &r.schema_path);
            let entry = source.value.pointer(&pointer);
            let s = |k: &str| entry.and_then(|e| e.get(k)).and_then(Value::as_str).unwrap_or("").to_string();
            let range = positions::rule_range(&r.schema_path, v.index, &source.value, &source.map).map(|l| l.range);
            out.rules.push(RuleView {
                pointer,
                field: r.field.clone(),
                rule: r.rule.clone(),
                message: s("message"),
                message_expression: s("messageExpression"),
                reason: s("reason"),
                field_path: s("fieldPath"),
                optional_old_self: entry.and_then(|e| e.get("optionalOldSelf")).and_then(Value::as_bool),
                range,
                errors: rule_errors(errors, v.index, &r.schema_path),
                estimated_cost: r.estimated_cost,
                max_cardinality: r.max_cardinality,
                message_expression_cost: r.message_expression_cost,
                per_rule_limit: e.per_rule_limit,
                share_percent: r.share_percent,
                over_limit: r.over_limit,
                schema_path: r.schema_path.clone(),
                explanation: r,
            });
        }
    }
    if let Some(schema) = &v.schema {
        let base = format!("/spec/versions/{}/schema/openAPIV3Schema", v.index);
        let mut steps = Vec::new();
        schema_nodes(schema, &base, &mut steps, &mut out.nodes);
    }
    out
}

/// Lists the nodes of a structural schema in document order (bounded: a schema has at most
/// a few thousand nodes, and recursion depth is the schema's, which the reader bounds).
fn schema_nodes(
    node: &crate::crd::model::JsonSchemaProps,
    pointer: &str,
    steps: &mut Vec<explain::Step>,
    out: &mut Vec<SchemaNode>,
) {
    if out.len() >= 20_000 {
        return;
    }
    out.push(SchemaNode {
        field: explain::field_of(steps),
        pointer: pointer.to_string(),
        type_name: node.type_.clone().unwrap_or_default(),
        depth: steps.len(),
        rule_count: node.x_validations.len(),
    });
    for (k, p) in &node.properties {
        steps.push(explain::Step::Property(k.clone()));
        schema_nodes(p, &format!("{}/properties/{}", pointer, pointer_escape(k)), steps, out);
        steps.pop();
    }
    if let Some(i) = node.items_schema() {
        steps.push(explain::Step::Items);
        schema_nodes(i, &format!("{}/items", pointer), steps, out);
        steps.pop();
    }
    if let Some(a) = node.additional_properties_schema() {
        steps.push(explain::Step::AdditionalProperties);
        schema_nodes(a, &format!("{}/additionalProperties", pointer), steps, out);
        steps.pop();
    }
}

fn read_object_text(text: &str, what: &str) -> Result<Source, InputError> {
    let s = Source::read(text).map_err(|e| read_error(text, format!("cannot read {}: {}", what, e.message), e.line, e.column))?;
    if !s.value.is_object() {
        return Err(InputError {
            message: format!("the {} must be a YAML/JSON object, not {}", what, crate::crd::json_type_name(&s.value)),
            range: None,
        });
    }
    Ok(s)
}

fn analyze_object(
    compiled: &CompiledCrd,
    crd: &CrdView,
    object: &str,
    old_object: &str,
    settings: &Settings,
) -> ObjectView {
    let mut out = ObjectView { update: !old_object.trim().is_empty(), ..Default::default() };
    let version = match crate::request::version_of(compiled, settings.version.as_deref()) {
        Ok(v) => v,
        Err(e) => {
            out.load_error = Some(InputError { message: e, range: None });
            return out;
        }
    };
    out.version = version.name.clone();
    let obj = match read_object_text(object, "object") {
        Ok(s) => s,
        Err(e) => {
            out.load_error = Some(e);
            return out;
        }
    };
    out.name = obj.value.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("").to_string();
    let old = if out.update {
        match read_object_text(old_object, "old object") {
            Ok(s) => Some(s),
            Err(e) => {
                out.old_load_error = Some(e);
                return out;
            }
        }
    } else {
        None
    };
    let opts = strategy::ValidateOptions {
        status_subresource: settings.status,
        ratcheting: settings.ratcheting_on(compiled.kube_version),
        emulate_request: true,
    };
    let outcome = match strategy::validate_object(compiled, version, &obj.value, old.as_ref().map(|o| &o.value), &opts) {
        Ok(o) => o,
        Err(e) => {
            out.load_error = Some(InputError { message: e, range: None });
            return out;
        }
    };
    let kube = compiled.kube_version;
    let errors: Vec<_> = outcome.errors.iter().map(|e| e.to_report_for(kube)).collect();
    let warnings: Vec<_> = outcome.warnings.iter().map(|e| e.to_report_for(kube)).collect();
    out.errors = positions::object_diagnostics(&errors, Some(&obj));
    out.ratcheted = positions::object_diagnostics(&warnings, Some(&obj));
    out.remaining_budget = outcome.remaining_budget;
    // kubectl prints the name the apiserver generated.
    if let Some(g) = &outcome.generated_name {
        out.name = g.clone();
    }
    out.pruned = outcome
        .unknown_fields
        .iter()
        .cloned()
        .zip(positions::unknown_field_ranges(&outcome.unknown_fields, &obj))
        .collect();
    out.defaulted_fields = tree::added_fields(&obj.value, &outcome.defaulted, &outcome.unknown_fields);
    out.defaulted_text = serde_json::to_string_pretty(&outcome.defaulted).unwrap_or_default();
    out.tree = tree::build(&tree::Inputs {
        object: &obj.value,
        defaulted: &outcome.defaulted,
        schema: version.schema.as_ref(),
        errors: &out.errors,
        ratcheted: &out.ratcheted,
        pruned: &outcome.unknown_fields,
        status_only: settings.status,
    });
    let _ = crd;
    out
}

#[cfg(test)]
mod tests;
