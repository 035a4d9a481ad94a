//! The playground's workspace: the CRD half computed once per CRD text and release and
//! shared by every analysis of objects against it; [`Workspace::analyze`] builds the view.

use crate::analysis::explain;
use crate::analysis::releases::{self, Comparison, Ratcheting};
use crate::engine::{CrdInput, Engine};
use crate::crd::CompiledCrd;
use crate::strategy;
use crate::text::edit::pointer::escape_seg;
use crate::text::positions::{self, Source};
use crate::text::source_map::SourceMap;
use crate::version::KubeVersion;
use crate::view::diagnostics::Diagnostic;
use crate::view::kubectl;
use crate::view::model::{CrdView, InputError, ObjectView, RuleView, SchemaNode, Settings, VersionView};
use crate::view::tree;
use serde_json::Value;
use std::sync::Arc;

/// The outcome of one analysis.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    pub crd: Arc<CrdView>,
    /// `None` when the object editor is empty (CRD checks only).
    pub object: Option<ObjectView>,
    /// What `kubectl apply` would print.
    pub summary: kubectl::Summary,
    /// With several releases selected ([`Settings::compare`]): each one's answer and the
    /// messages only some of them print (`analysis::releases`).
    pub releases: Option<Arc<Comparison>>,
}

struct CrdState {
    text: String,
    kube: KubeVersion,
    compiled: Option<Arc<CompiledCrd>>,
    /// Without the rules and schema nodes, with the rule counts: the rules pane alone lists
    /// them, and for a big CRD the rules' views (their places in the text, explanations)
    /// were a third of a CRD edit's work and the nodes a sixth ([`Workspace::crd_view_full`]
    /// adds them).
    view: Arc<CrdView>,
    /// `view` with every version's rules and schema nodes, made when first asked for.
    full: Option<Arc<CrdView>>,
}

/// Keeps the compiled CRD between analyses; one per editor.
pub struct Workspace {
    crd: Option<CrdState>,
    /// Compiles the CRD (for the other releases of a comparison too): an edit re-reads and
    /// re-compiles only what it changed, and the engine keeps where the CRD's nodes stand
    /// across edits (its cache keeps each release's compiled CRD while only the objects
    /// change).
    engine: Engine,
    /// The cost traces of the rules the last compiles explained: a rule the compile cache
    /// reused is not traced again.
    traces: explain::Traces,
}

impl Default for Workspace {
    fn default() -> Workspace {
        Workspace { crd: None, engine: Engine::with_positions(), traces: explain::Traces::default() }
    }
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
        let state = self.crd.as_ref()?;
        self.engine.crd_source(&state.text).map(|(v, _)| v)
    }

    /// Analyses the texts. `old_object` empty means a create; `object` empty, CRD checks only.
    ///
    /// # Example
    ///
    /// ```
    /// const CRD: &str = r#"
    /// apiVersion: apiextensions.k8s.io/v1
    /// kind: CustomResourceDefinition
    /// metadata: {name: widgets.example.com}
    /// spec:
    ///   group: example.com
    ///   scope: Namespaced
    ///   names: {kind: Widget, plural: widgets}
    ///   versions:
    ///   - name: v1
    ///     served: true
    ///     storage: true
    ///     schema:
    ///       openAPIV3Schema:
    ///         type: object
    ///         properties:
    ///           spec:
    ///             type: object
    ///             properties:
    ///               replicas: {type: integer, minimum: 0}
    ///             x-kubernetes-validations:
    ///             - rule: "self.replicas <= 10"
    ///               message: at most 10 replicas
    /// "#;
    /// use crdlab::view::{Settings, Workspace};
    /// let object = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: default}\nspec: {replicas: 12}\n";
    /// let mut ws = Workspace::new();
    /// let analysis = ws.analyze(CRD, object, "", &Settings::default());
    /// let printed = analysis.summary.lines.join("\n");
    /// assert!(printed.contains("at most 10 replicas"), "{printed}");
    /// ```
    pub fn analyze(&mut self, crd: &str, object: &str, old_object: &str, settings: &Settings) -> Analysis {
        let kube = match settings.kubernetes_version.as_deref().map(KubeVersion::parse) {
            Some(Ok(k)) => k,
            Some(Err(e)) => {
                let view = Arc::new(CrdView {
                    load_error: Some(InputError { message: e, range: None }),
                    ..Default::default()
                });
                return Analysis { summary: kubectl::summary(&view, None), crd: view, object: None, releases: None };
            }
            None => KubeVersion::default(),
        };
        let fresh = matches!(&self.crd, Some(c) if c.kube == kube && crate::text::bytes::same(c.text.as_bytes(), crd.as_bytes()));
        if !fresh {
            self.crd = Some(compile_crd(&mut self.engine, crd, kube));
        }
        let state = self.crd.as_ref().expect("set above");
        let view = state.view.clone();
        let object_text = object;
        let object = match &state.compiled {
            Some(compiled) if !object.trim().is_empty() => {
                Some(analyze_object(compiled, &view, object, old_object, settings))
            }
            _ => None,
        };
        // A CRD that cannot be read is the same error on every release: nothing to compare.
        let objects = (!object_text.trim().is_empty()).then_some((object_text, old_object));
        let releases = match settings.compared_releases(kube) {
            Some(list) if view.load_error.is_none() => Some(Arc::new(self.compare(crd, objects, settings, &list))),
            _ => None,
        };
        Analysis { summary: kubectl::summary(&view, object.as_ref()), crd: view, object, releases }
    }

    /// The CRD half of the last analysis as the rules pane shows it: with every version's
    /// rules (where they stand in the text, their costs and explanations) and schema nodes
    /// (the nodes a rule can be added to), made once per compiled CRD; `None` before any
    /// analysis.
    pub fn crd_view_full(&mut self) -> Option<Arc<CrdView>> {
        let Workspace { crd, engine, traces } = self;
        let state = crd.as_mut()?;
        if state.full.is_none() {
            let mut view = (*state.view).clone();
            if let Some(compiled) = &state.compiled {
                // The engine holds this text's reading unless another text was read since
                // (the workspace reads none but the last analysis'): then it is read again.
                let read;
                let source = match engine.crd_source(&state.text) {
                    Some(s) => Some(s),
                    None => {
                        read = Source::read_crd(&state.text).ok();
                        read.as_ref().map(|s| (&s.value, &s.map))
                    }
                };
                traces.next_round();
                for (out, v) in view.per_version.iter_mut().zip(&compiled.versions) {
                    if let Some((value, map)) = source {
                        *out = version_view(compiled, v, value, map, &view.errors, traces);
                    }
                    if let Some(schema) = &v.schema {
                        let mut pointer = format!("/spec/versions/{}/schema/openAPIV3Schema", v.index);
                        schema_nodes(schema, &mut pointer, &mut String::new(), 0, &mut out.nodes);
                    }
                }
            }
            state.full = Some(Arc::new(view));
        }
        state.full.clone()
    }

    /// The texts answered by each release of `list`: the engine's comparison, with the
    /// ratcheting switch honoured where a release can ratchet (it is greyed out elsewhere).
    fn compare(&mut self, crd: &str, objects: Option<(&str, &str)>, settings: &Settings, list: &[crate::version::KubeVersion]) -> Comparison {
        let non_empty = |t: &'_ str| -> bool { !t.trim().is_empty() };
        let (object, old_object) = match objects {
            Some((o, old)) => (Some(o), Some(old).filter(|t| non_empty(t))),
            None => (None, None),
        };
        let inputs = releases::Inputs {
            crd: CrdInput::Text(crd),
            old_crd: None,
            object,
            old_object,
            version: settings.version.as_deref(),
            status: settings.status,
            ratcheting: match settings.ratcheting {
                None => Ratcheting::ReleaseDefault,
                Some(false) => Ratcheting::Off,
                Some(true) => Ratcheting::OnWhereAvailable,
            },
        };
        releases::compare(&mut self.engine, &inputs, list)
    }
}

fn read_error(text: &str, message: String, line: Option<usize>, column: Option<usize>) -> InputError {
    let range = match (line, column) {
        (Some(l), Some(c)) => positions::error_range(text, l, c),
        _ => None,
    };
    InputError { message, range }
}

fn compile_crd(engine: &mut Engine, text: &str, kube: KubeVersion) -> CrdState {
    let mut view = CrdView { kubernetes_version: kube.to_string(), ..Default::default() };
    let fail = |view: CrdView| CrdState {
        text: text.to_string(),
        kube,
        compiled: None,
        view: Arc::new(view),
        full: None,
    };
    if text.trim().is_empty() {
        view.load_error = Some(InputError {
            message: "paste a CustomResourceDefinition (YAML or JSON)".into(),
            range: None,
        });
        return fail(view);
    }
    // Through the engine: an edit inside one scalar re-reads that scalar (the positions
    // move with it) and re-compiles what it changed.
    let compiled = engine.compile_or_load_error(CrdInput::Text(text), None, kube);
    let Some((value, map)) = engine.crd_source(text) else {
        // Not read (a reading error, or no CRD document in the text).
        let e = compiled.err().unwrap_or_else(|| crate::text::crd_document::LoadError::new("the CRD text could not be read"));
        view.load_error = Some(read_error(text, e.message, e.line, e.column));
        return fail(view);
    };
    let compiled = match compiled {
        Ok(c) => c,
        Err(e) => {
            view.load_error = Some(InputError { message: e.to_string(), range: None });
            return fail(view);
        }
    };
    let reports: Vec<_> = compiled.crd_errors.iter().map(|e| e.to_report_for(kube)).collect();
    view.errors = crate::view::diagnostics::diagnostics(&reports, |f| positions::crd_range(f, value, map));
    view.warnings = compiled.crd_warnings.clone();
    view.versions = compiled.versions.iter().map(|v| v.name.clone()).collect();
    view.storage_version = compiled.version(None).map(|v| v.name.clone());
    view.kind = compiled.crd.spec.names.kind.clone();
    view.group = compiled.crd.spec.group.clone();
    view.name = compiled.crd.metadata.name.clone();
    view.per_version = compiled
        .versions
        .iter()
        .map(|v| VersionView { name: v.name.clone(), rule_count: rule_count(v), ..Default::default() })
        .collect();
    CrdState { text: text.to_string(), kube, compiled: Some(compiled), view: Arc::new(view), full: None }
}

/// JSON pointer escaping (RFC 6901).
pub fn pointer_escape(s: &str) -> String {
    escape_seg(s).into_owned()
}

/// `openAPIV3Schema.properties[spec].x-kubernetes-validations[0]` (read by
/// [`positions::parse_field_path`]) → the JSON pointer below `/spec/versions/<i>/schema`.
fn schema_path_pointer(version_index: usize, schema_path: &[positions::FieldSeg]) -> String {
    let mut p = format!("/spec/versions/{}/schema", version_index);
    for seg in schema_path {
        p.push('/');
        match seg {
            positions::FieldSeg::Field(f) | positions::FieldSeg::Bracket(f) => p.push_str(&escape_seg(f)),
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

/// The rules of a version: those [`explain::explain_with`] lists, one per compiled rule.
fn rule_count(v: &crate::crd::CompiledVersion) -> usize {
    let mut n = 0;
    if let Some(rs) = &v.rules {
        rs.tree.walk(&mut |_| n += 1);
    }
    n
}

fn version_view(
    compiled: &CompiledCrd,
    v: &crate::crd::CompiledVersion,
    value: &Value,
    map: &SourceMap,
    errors: &[Diagnostic],
    traces: &mut explain::Traces,
) -> VersionView {
    let mut out = VersionView { name: v.name.clone(), rule_count: rule_count(v), ..Default::default() };
    if let Ok(e) = explain::explain_with(compiled, Some(&v.name), traces) {
        out.cost_total = e.total;
        out.per_rule_limit = e.per_rule_limit;
        out.per_crd_limit = e.per_crd_limit;
        out.total_share_percent = e.total_share_percent;
        for r in e.rules {
            let segs = positions::parse_field_path(&r.schema_path);
            let pointer = schema_path_pointer(v.index, &segs);
            let found = positions::RuleEntry::find(segs, v.index, value);
            let entry = found.value;
            let s = |k: &str| entry.and_then(|e| e.get(k)).and_then(Value::as_str).unwrap_or("").to_string();
            let range = found.range(map).map(|l| l.range);
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
    out
}

/// Lists the nodes of a structural schema in document order (bounded: a schema has at most
/// a few thousand nodes, and recursion depth is the schema's, which the reader bounds).
/// `pointer` and `field` (as [`explain::field_of`] prints it, empty at the root) grow and
/// shrink with the walk: each node costs its own strings only.
fn schema_nodes(
    node: &crate::crd::model::JsonSchemaProps,
    pointer: &mut String,
    field: &mut String,
    depth: usize,
    out: &mut Vec<SchemaNode>,
) {
    if out.len() >= 20_000 {
        return;
    }
    out.push(SchemaNode {
        field: if field.is_empty() { "<root>".to_string() } else { field.clone() },
        pointer: pointer.clone(),
        type_name: node.type_.clone().unwrap_or_default(),
        depth,
        rule_count: node.x_validations.len(),
    });
    let (p_len, f_len) = (pointer.len(), field.len());
    for (k, p) in &node.properties {
        pointer.push_str("/properties/");
        pointer.push_str(&escape_seg(k));
        if !field.is_empty() {
            field.push('.');
        }
        field.push_str(k);
        schema_nodes(p, pointer, field, depth + 1, out);
        pointer.truncate(p_len);
        field.truncate(f_len);
    }
    if let Some(i) = node.items_schema() {
        pointer.push_str("/items");
        field.push_str("[*]");
        schema_nodes(i, pointer, field, depth + 1, out);
        pointer.truncate(p_len);
        field.truncate(f_len);
    }
    if let Some(a) = node.additional_properties_schema() {
        pointer.push_str("/additionalProperties");
        field.push_str("[*]");
        schema_nodes(a, pointer, field, depth + 1, out);
        pointer.truncate(p_len);
        field.truncate(f_len);
    }
}

fn read_object_text(text: &str, what: &str) -> Result<Source, InputError> {
    let s = Source::read(text).map_err(|e| read_error(text, format!("cannot read {}: {}", what, e.message), e.line, e.column))?;
    if !s.value.is_object() {
        return Err(InputError {
            message: format!("the {} must be a YAML/JSON object, not {}", what, crate::text::crd_document::json_type_name(&s.value)),
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
    let version = match crate::engine::version_of(compiled, settings.version.as_deref()) {
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
        keep_defaulted: true,
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
    out.errors = crate::view::diagnostics::object_diagnostics(&errors, Some(&obj));
    out.ratcheted = crate::view::diagnostics::object_diagnostics(&warnings, Some(&obj));
    out.remaining_budget = outcome.remaining_budget;
    // kubectl prints the name the apiserver generated.
    if let Some(g) = &outcome.generated_name {
        out.name = g.clone();
    }
    out.pruned = outcome
        .unknown_fields
        .iter()
        .cloned()
        .zip(crate::view::diagnostics::unknown_field_ranges(&outcome.unknown_fields, &obj))
        .collect();
    out.defaulted_fields = tree::added_fields(&obj.value, &outcome.defaulted, &outcome.unknown_fields);
    out.defaulted_text = serde_json::to_string_pretty(&outcome.defaulted).unwrap_or_default();
    out.tree = tree::build(&tree::Inputs {
        object: &obj.value,
        defaulted: &outcome.defaulted,
        schema: version.schema.as_deref(),
        errors: &out.errors,
        ratcheted: &out.ratcheted,
        pruned: &outcome.unknown_fields,
        status_only: settings.status,
    });
    let _ = crd;
    out
}


#[cfg(test)]
#[path = "tests.rs"]
mod tests;
