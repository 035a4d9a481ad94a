//! CEL changes — what crd-diff and crdify leave out or only count:
//! - `xvalidations`: rules added, removed or changed at a property, and changed
//!   `message`, `messageExpression`, `reason`, `fieldPath`. crdify's messages for added and
//!   removed rules (`x-kubernetes-validations added: {…}`). With sample objects, an added or
//!   changed rule is judged by running it on them: it is an error only when an object that
//!   was valid with the old CRD fails it, a warning otherwise;
//! - `xvalidationsLibrary`: new or changed rules that do not compile in the CEL environment
//!   of the Kubernetes release the CRD targets (new rules compile at the release before
//!   the server's, the "compatibility version"), and rule fields the target does not know;
//! - `xvalidationsCost`: estimated costs crossing the apiserver's limits (per rule, per
//!   schema) or the per-call runtime limit;
//! - `objects`: sample objects valid with the old CRD that the new one rejects, each error
//!   with whether a no-op update still passes thanks to ratcheting.

use crate::analysis::diff::config::Config;
use crate::analysis::diff::finding::{severity, Finding, Ratcheting, Severity, Validator};
use crate::analysis::diff::property::{flatten, Step};
use crate::analysis::diff::side::{schema_of, SampleObject, Side};
use crate::analysis::diff::xvalidations::{as_rules, rule_text, str_field};
use crate::schema::cel::compile::{compile_node_rules, compile_rules, RuleTree};
use crate::schema::cel::validation::validate;
use crate::crd::model::JsonSchemaProps;
use crate::go::strconv::quote;
use crate::engine::{validate_options, version_of, CrdInput, Engine};
use crate::field::ErrorReport;
use crate::version::KubeVersion;
use serde_json::Value;

/// StaticEstimatedCostLimit: one rule's estimate times its cardinality.
pub const PER_RULE_COST_LIMIT: u64 = 10_000_000;
/// StaticEstimatedCRDCostLimit: the sum over one version's schema.
pub const PER_SCHEMA_COST_LIMIT: u64 = 100_000_000;

// ------------------------------------------------------------------ sample objects

/// One sample object run against both CRDs.
pub struct ObjectRun {
    /// `file.yaml (Kind/name)`.
    pub name: String,
    pub version: String,
    /// The object after pruning and defaulting by the new CRD (what its rules see).
    pub defaulted: Option<Value>,
    /// Errors of the new CRD: (crdify field, message, softened by ratcheting).
    pub errors: Vec<(Option<String>, String, bool)>,
}

/// The sample objects that were valid with the old CRD, run against the new one.
#[derive(Default)]
pub struct ObjectRuns {
    pub runs: Vec<ObjectRun>,
}

fn display_name(o: &SampleObject) -> String {
    let kind = o.value.get("kind").and_then(Value::as_str).unwrap_or("");
    let name = o
        .value
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    if kind.is_empty() && name.is_empty() {
        o.name.clone()
    } else {
        format!("{} ({}/{})", o.name, kind, name)
    }
}

/// An object's errors and defaulted value as the apiserver answers a create (or, with
/// `old_object`, an update) of `version` of the CRD `side`, ratcheting on and the CRD's own
/// checks skipped; `Err` when it cannot run (no such version, not an object).
struct ObjectAnswer {
    defaulted: Value,
    errors: Vec<ErrorReport>,
}

fn run_object(
    engine: &mut Engine,
    side: &Side,
    version: &str,
    object: &Value,
    old_object: Option<&Value>,
    kube: KubeVersion,
) -> Result<ObjectAnswer, String> {
    // The side was compiled for the latest release; another target compiles it again
    // (through the engine's cache, once per release).
    let compiled;
    let crd = if side.compiled.kube_version == kube {
        &side.compiled
    } else {
        compiled = engine.compile(CrdInput::Text(&side.text), None, kube)?;
        &*compiled
    };
    let ver = version_of(crd, Some(version))?;
    let opts = validate_options(None, Some(true), None, kube)?;
    let out = crate::strategy::validate_object(crd, ver, object, old_object, &opts)?;
    Ok(ObjectAnswer {
        defaulted: out.defaulted,
        errors: out.errors.iter().map(|e| e.to_report_for(kube)).collect(),
    })
}

impl ObjectRuns {
    /// Runs every sample object against the old CRD (create) and, when it was valid, against
    /// the new one (create, and a no-op update to see what ratcheting keeps).
    pub fn evaluate(
        old: &Side,
        new: &Side,
        objects: &[SampleObject],
        kube: Option<KubeVersion>,
        notes: &mut Vec<String>,
    ) -> ObjectRuns {
        let mut runs = ObjectRuns::default();
        if objects.is_empty() {
            return runs;
        }
        let kube = kube.unwrap_or(KubeVersion::PROTOCOL_DEFAULT);
        let mut engine = Engine::new();
        let group = old
            .json
            .pointer("/spec/group")
            .and_then(Value::as_str)
            .unwrap_or("");
        let mut skipped = Vec::new();
        for o in objects {
            let name = display_name(o);
            let api_version = o
                .value
                .get("apiVersion")
                .and_then(Value::as_str)
                .unwrap_or("");
            let (g, v) = api_version.rsplit_once('/').unwrap_or(("", api_version));
            if g != group || v.is_empty() {
                skipped.push(format!(
                    "{}: apiVersion {:?} is not of group {:?}",
                    name, api_version, group
                ));
                continue;
            }
            // Each object as a create (and a no-op update) of this version, ratcheting on, the
            // CRD's own checks skipped: the sides' compiled CRDs when compiled for `kube`.
            let mut run = |crd: &Side, old_object: Option<&Value>| {
                run_object(&mut engine, crd, v, &o.value, old_object, kube)
            };
            let before = match run(old, None) {
                Ok(out) => out,
                Err(e) => {
                    skipped.push(format!("{}: with the old CRD: {}", name, e));
                    continue;
                }
            };
            if !before.errors.is_empty() {
                skipped.push(format!("{}: already invalid with the old CRD", name));
                continue;
            }
            let after = run(new, None);
            let mut object_run = ObjectRun {
                name,
                version: v.to_string(),
                defaulted: after.as_ref().ok().map(|a| a.defaulted.clone()),
                errors: Vec::new(),
            };
            match after {
                Err(e) => object_run.errors.push((None, e, false)),
                Ok(after) if !after.errors.is_empty() => {
                let noop = run(new, Some(&o.value));
                let kept: Vec<String> = noop
                    .as_ref()
                    .map(|n| n.errors.iter().map(|e| e.message.clone()).collect())
                    .unwrap_or_default();
                let schema = new.version_json(v).map(schema_of).unwrap_or(&Value::Null);
                // "some validation rules were not checked because the object was invalid"
                // only echoes the schema errors reported beside it.
                let errs = after.errors;
                let many = errs.len() > 1;
                for e in errs {
                    if many
                        && e.field == "<nil>"
                        && e.message.contains("some validation rules were not checked")
                    {
                        continue;
                    }
                    let field = apiserver_path_to_crdify(&e.field, schema);
                    // A no-op update ratchets everything whose value is unchanged; `required`
                    // and list-type (duplicate) errors come back on any update that touches
                    // the enclosing object, so they count as not softened.
                    let softened = noop.is_ok()
                        && !kept.contains(&e.message)
                        && e.kind != "Required value"
                        && e.kind != "Duplicate value";
                    object_run.errors.push((Some(field), e.message, softened));
                }
                }
                Ok(_) => {}
            }
            runs.runs.push(object_run);
        }
        notes.push(format!(
            "objects: {} of {} sample objects were valid with the old CRD and were run against the new one",
            runs.runs.len(),
            objects.len()
        ));
        for s in skipped {
            notes.push(format!("objects: skipped {}", s));
        }
        runs
    }

    /// The `objects` findings: each error of an object that was valid before.
    pub fn findings(&self, cfg: &Config) -> Vec<Finding> {
        let Some(sev) = severity(cfg.objects) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for r in &self.runs {
            for (field, msg, softened) in &r.errors {
                out.push(Finding {
                    validator: Validator::SameVersion,
                    check: "objects".into(),
                    version: Some(r.version.clone()),
                    field: field.clone(),
                    severity: sev,
                    message: format!("sample object {} was valid and now fails: {}", r.name, msg),
                    ratcheting: if *softened {
                        Ratcheting::Softened
                    } else {
                        Ratcheting::NotSoftened
                    },
                    objects: vec![r.name.clone()],
                });
            }
        }
        out
    }

    /// Judges an added or changed rule on the sample objects of its version: lists those
    /// it rejects; with none, the finding becomes a warning.
    pub fn judge_rule(
        &self,
        new: &Side,
        version: &str,
        steps: &[Step],
        rule: &Value,
        f: &mut Finding,
    ) {
        let runs: Vec<&ObjectRun> = self
            .runs
            .iter()
            .filter(|r| r.version == version && r.defaulted.is_some())
            .collect();
        if runs.is_empty() || !steps.iter().all(Step::is_structural) {
            return;
        }
        let Some(vj) = new.version_json(version) else {
            return;
        };
        let mut schema = schema_of(vj).clone();
        strip_rules(&mut schema, 0);
        let Some(node) = descend_mut(&mut schema, steps) else {
            return;
        };
        let Some(m) = node.as_object_mut() else {
            return;
        };
        m.insert(
            "x-kubernetes-validations".into(),
            Value::Array(vec![rule.clone()]),
        );
        // From the borrowed value, as a CRD is decoded (`crd::load`): one decoder in the wasm.
        let Ok(mut typed) = <JsonSchemaProps as serde::Deserialize>::deserialize(&schema) else {
            return;
        };
        typed.compile();
        let opts = crate::cel::env::EnvOptions::for_version(KubeVersion::LATEST.minor - 1);
        let set = compile_rules(&typed, &opts);
        let Some(t) = tree_at(&set.tree, steps) else {
            return;
        };
        let Some(cr) = t.rules.first() else { return };
        if cr.program.is_none() {
            return;
        }
        let uses_old = cr.uses_old_self;
        let mut failing = Vec::new();
        for r in &runs {
            let Some(obj) = &r.defaulted else { continue };
            let outcome = validate(&set, obj, if uses_old { Some(obj) } else { None }, false);
            if !outcome.errors.is_empty() {
                failing.push(r.name.clone());
            }
        }
        f.ratcheting = if uses_old {
            Ratcheting::NotSoftened
        } else {
            Ratcheting::Softened
        };
        let how = if uses_old {
            " on a no-op update (a transition rule)"
        } else {
            ""
        };
        if failing.is_empty() {
            f.severity = Severity::Warning;
            f.message = format!(
                "{} (none of the {} sample objects of {} fails it{})",
                f.message,
                runs.len(),
                version,
                how
            );
        } else {
            f.message = format!(
                "{} ({} of {} sample objects of {} fail it{})",
                f.message,
                failing.len(),
                runs.len(),
                version,
                how
            );
            f.objects = failing;
        }
    }
}

fn strip_rules(v: &mut Value, depth: usize) {
    if depth > 600 {
        return;
    }
    match v {
        Value::Object(m) => {
            m.remove("x-kubernetes-validations");
            for (_, c) in m.iter_mut() {
                strip_rules(c, depth + 1);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|c| strip_rules(c, depth + 1)),
        _ => {}
    }
}

fn descend_mut<'a>(root: &'a mut Value, steps: &[Step]) -> Option<&'a mut Value> {
    let mut cur = root;
    for st in steps {
        cur = match st {
            Step::Property(k) => cur.get_mut("properties")?.get_mut(k)?,
            Step::Items => cur.get_mut("items")?,
            Step::AdditionalProperties => cur.get_mut("additionalProperties")?,
            _ => return None,
        };
    }
    Some(cur)
}

fn tree_at<'t>(t: &'t RuleTree, steps: &[Step]) -> Option<&'t RuleTree> {
    let mut cur = t;
    for st in steps {
        cur = match st {
            Step::Property(k) => cur.properties.get(k)?,
            Step::Items => cur.items.as_deref()?,
            Step::AdditionalProperties => cur.additional.as_deref()?,
            _ => return None,
        };
    }
    Some(cur)
}

/// An apiserver field path (`spec.list[0].name`, `spec.map[key]`) in crdify's form
/// (`^.spec.list.items.name`, `^.spec.map.additionalProperties`), following the schema.
pub fn apiserver_path_to_crdify(path: &str, schema: &Value) -> String {
    if path.is_empty() || path == "<nil>" {
        return "^".into();
    }
    let mut out = String::from("^");
    let mut cur = Some(schema);
    let b = path.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'[' {
            let end = path[i..].find(']').map(|e| i + e).unwrap_or(b.len());
            let key = &path[(i + 1).min(end)..end];
            i = end + 1;
            let items = cur.and_then(|s| s.get("items")).filter(|x| x.is_object());
            let ap = cur
                .and_then(|s| s.get("additionalProperties"))
                .filter(|x| x.is_object());
            if let Some(it) = items {
                out.push_str(".items");
                cur = Some(it);
            } else if let Some(a) = ap {
                out.push_str(".additionalProperties");
                cur = Some(a);
            } else {
                out.push_str(&format!("[{}]", key));
                cur = None;
            }
        } else {
            if b[i] == b'.' {
                i += 1;
            }
            let st = i;
            while i < b.len() && b[i] != b'.' && b[i] != b'[' {
                i += 1;
            }
            let name = &path[st..i];
            let prop = cur
                .and_then(|s| s.get("properties"))
                .and_then(|p| p.get(name));
            let ap = cur
                .and_then(|s| s.get("additionalProperties"))
                .filter(|x| x.is_object());
            if let Some(p) = prop {
                out.push('.');
                out.push_str(name);
                cur = Some(p);
            } else if let Some(a) = ap {
                out.push_str(".additionalProperties");
                cur = Some(a);
            } else {
                out.push('.');
                out.push_str(name);
                cur = None;
            }
        }
    }
    out
}

// ------------------------------------------------------------------ library versions

/// The rules of a schema: (crdify path, steps, node JSON, rule JSON), structural
/// positions only (the apiserver ignores rules elsewhere).
fn rules_of(schema: &Value) -> Vec<(String, Vec<Step>, &Value, &Value)> {
    let mut out = Vec::new();
    for (path, node) in flatten(schema) {
        if !node.steps.iter().all(Step::is_structural) {
            continue;
        }
        for r in as_rules(node.schema.get("x-kubernetes-validations")) {
            out.push((path.clone(), node.steps.clone(), node.schema, r));
        }
    }
    out
}

/// Compiles one rule alone at its node for a server release: the first error (rule or
/// messageExpression), `None` when it compiles.
fn compile_error_at(node: &Value, is_root: bool, rule: &Value, minor: u32) -> Option<String> {
    let mut n = node.clone();
    if let Some(m) = n.as_object_mut() {
        m.insert(
            "x-kubernetes-validations".into(),
            Value::Array(vec![rule.clone()]),
        );
    }
    let mut typed = <JsonSchemaProps as serde::Deserialize>::deserialize(&n).ok()?;
    typed.compile();
    let compiled = compile_node_rules(&typed, is_root, KubeVersion { minor });
    let c = compiled.first()?;
    c.error.clone().or_else(|| c.message_error.clone())
}

/// The lowest server release (minor) from `from` whose compatibility environment compiles
/// the rule; `Err(error at the latest)` when none does.
fn lowest_release(node: &Value, is_root: bool, rule: &Value, from: u32) -> Result<u32, String> {
    let mut last = String::new();
    for minor in from..=KubeVersion::LATEST.minor {
        match compile_error_at(node, is_root, rule, minor) {
            None => return Ok(minor),
            Some(e) => last = e,
        }
    }
    Err(last)
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// The `xvalidationsLibrary` findings.
pub fn library_findings(
    old: &Side,
    new: &Side,
    cfg: &Config,
    kube: Option<KubeVersion>,
    notes: &mut Vec<String>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(explicit_sev) = severity(cfg.xvalidations_library) else {
        return out;
    };
    // What is new or changed, by version.
    let mut candidates = Vec::new();
    for nv in new.versions() {
        let name = nv
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let old_rules: Vec<(String, String, String)> = old
            .version_json(&name)
            .map(|ov| {
                rules_of(schema_of(ov))
                    .into_iter()
                    .map(|(p, _, _, r)| {
                        (
                            p,
                            rule_text(r).to_string(),
                            str_field(r, "messageExpression").to_string(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        for (path, steps, node, rule) in rules_of(schema_of(nv)) {
            let key = (
                path.clone(),
                rule_text(rule).to_string(),
                str_field(rule, "messageExpression").to_string(),
            );
            if !old_rules.contains(&key) {
                candidates.push((name.clone(), path, steps, node.clone(), rule.clone()));
            }
        }
    }
    if candidates.is_empty() {
        return out;
    }
    let (target, sev) = match kube {
        Some(k) => (k.minor, explicit_sev),
        None => {
            let mut t = KubeVersion::MIN.minor;
            for ov in old.versions() {
                for (_, steps, node, rule) in rules_of(schema_of(ov)) {
                    if let Ok(m) = lowest_release(node, steps.is_empty(), rule, t) {
                        t = t.max(m);
                    }
                }
            }
            notes.push(format!(
                "xvalidationsLibrary: target Kubernetes 1.{} inferred from the old CRD's rules (set it with --kubernetes-version)",
                t
            ));
            (t, Severity::Warning)
        }
    };
    for (version, path, steps, node, rule) in candidates {
        let mut msgs = Vec::new();
        if compile_error_at(&node, steps.is_empty(), &rule, target).is_some() {
            match lowest_release(&node, steps.is_empty(), &rule, target + 1) {
                Ok(m) => msgs.push((
                    format!(
                        "rule {} needs Kubernetes 1.{} or later; at 1.{} it does not compile: {}",
                        quote(rule_text(&rule)),
                        m,
                        target,
                        first_line(
                            &compile_error_at(&node, steps.is_empty(), &rule, target)
                                .unwrap_or_default()
                        )
                    ),
                    sev,
                )),
                Err(e) => msgs.push((
                    format!(
                        "rule {} does not compile at any Kubernetes release up to 1.{}: {}",
                        quote(rule_text(&rule)),
                        KubeVersion::LATEST.minor,
                        first_line(&e)
                    ),
                    explicit_sev,
                )),
            }
        }
        for (k, since) in [
            ("messageExpression", 27),
            ("reason", 28),
            ("fieldPath", 28),
            ("optionalOldSelf", 30),
        ] {
            let set = match rule.get(k) {
                Some(Value::String(s)) => !s.is_empty() || k == "reason",
                Some(Value::Bool(_)) => true,
                _ => false,
            };
            if set && target < since {
                msgs.push((
                    format!(
                        "rule {} uses {}, which Kubernetes 1.{} does not know (it needs 1.{}); the field is dropped there",
                        quote(rule_text(&rule)),
                        k,
                        target,
                        since
                    ),
                    sev,
                ));
            }
        }
        for (message, severity) in msgs {
            out.push(Finding {
                validator: Validator::SameVersion,
                check: "xvalidationsLibrary".into(),
                version: Some(version.clone()),
                field: Some(path.clone()),
                severity,
                message,
                ratcheting: Ratcheting::NotApplicable,
                objects: Vec::new(),
            });
        }
    }
    out
}

// ------------------------------------------------------------------------- costs

struct RuleCost {
    path: String,
    rule: String,
    max_cost: u64,
    estimated: u64,
}

/// The estimated costs of a compiled version's rules (those that compiled), by crdify path.
fn rule_costs(v: &crate::crd::compiled::CompiledVersion) -> Vec<RuleCost> {
    let mut out = Vec::new();
    if let Some(set) = &v.rules {
        walk_costs(&set.tree, "^".into(), &mut out, 0);
    }
    out
}

fn walk_costs(t: &RuleTree, path: String, out: &mut Vec<RuleCost>, depth: usize) {
    if depth > 600 {
        return;
    }
    for cr in &t.rules {
        let Some(c) = &cr.cost else { continue };
        out.push(RuleCost {
            path: path.clone(),
            rule: cr.rule.rule.clone(),
            max_cost: c.max_cost,
            estimated: c.estimated_cost,
        });
    }
    for (k, ct) in &t.properties {
        walk_costs(ct, format!("{}.{}", path, k), out, depth + 1);
    }
    if let Some(it) = &t.items {
        walk_costs(it, format!("{}.items", path), out, depth + 1);
    }
    if let Some(at) = &t.additional {
        walk_costs(at, format!("{}.additionalProperties", path), out, depth + 1);
    }
}

/// The apiserver's `getCostErrorMessage`.
pub fn cost_error_message(what: &str, cost: u64, limit: u64) -> String {
    let f = cost as f64 / limit as f64;
    let factor = if f > 100.0 {
        "more than 100x".to_string()
    } else if f < 1.5 {
        format!("{:.6}x", f)
    } else {
        format!("{:.1}x", f)
    };
    format!(
        "{} exceeds budget by factor of {} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
        what, factor
    )
}

/// The `xvalidationsCost` findings: limits the new CRD crosses that the old one did not.
pub fn cost_findings(old: &Side, new: &Side, cfg: &Config) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(sev) = severity(cfg.xvalidations_cost) else {
        return out;
    };
    for nv in &new.compiled.versions {
        let new_costs = rule_costs(nv);
        let old_costs: Vec<RuleCost> = old
            .compiled
            .versions
            .iter()
            .find(|v| v.name == nv.name)
            .map(rule_costs)
            .unwrap_or_default();
        let old_of = |c: &RuleCost| {
            old_costs
                .iter()
                .find(|o| o.path == c.path && o.rule == c.rule)
        };
        let mut push = |field: String, severity: Severity, message: String| {
            out.push(Finding {
                validator: Validator::SameVersion,
                check: "xvalidationsCost".into(),
                version: Some(nv.name.clone()),
                field: Some(field),
                severity,
                message,
                ratcheting: Ratcheting::NotApplicable,
                objects: Vec::new(),
            })
        };
        for c in &new_costs {
            let before = old_of(c);
            if c.estimated > PER_RULE_COST_LIMIT
                && before
                    .map(|b| b.estimated <= PER_RULE_COST_LIMIT)
                    .unwrap_or(true)
            {
                push(
                    c.path.clone(),
                    sev,
                    format!(
                        "rule {}: {} (estimated cost {}{}); the apiserver rejects the CRD",
                        quote(&c.rule),
                        cost_error_message("estimated rule cost", c.estimated, PER_RULE_COST_LIMIT),
                        c.estimated,
                        before
                            .map(|b| format!(", was {}", b.estimated))
                            .unwrap_or_default()
                    ),
                );
            } else if c.max_cost > crate::cel::config::PER_CALL_LIMIT
                && before
                    .map(|b| b.max_cost <= crate::cel::config::PER_CALL_LIMIT)
                    .unwrap_or(true)
            {
                push(
                    c.path.clone(),
                    Severity::Warning,
                    format!(
                        "rule {}: estimated cost of one evaluation {} exceeds the per-call limit {}{}; large objects may fail at run time",
                        quote(&c.rule),
                        c.max_cost,
                        crate::cel::config::PER_CALL_LIMIT,
                        before.map(|b| format!(" (was {})", b.max_cost)).unwrap_or_default()
                    ),
                );
            }
        }
        let total = |cs: &[RuleCost]| cs.iter().fold(0u64, |a, c| a.saturating_add(c.estimated));
        let (nt, ot) = (total(&new_costs), total(&old_costs));
        if nt > PER_SCHEMA_COST_LIMIT && ot <= PER_SCHEMA_COST_LIMIT {
            push(
                "^".into(),
                sev,
                format!(
                    "{} (total {}, was {}); the apiserver rejects the CRD",
                    cost_error_message(
                        "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
                        nt,
                        PER_SCHEMA_COST_LIMIT
                    ),
                    nt,
                    ot
                ),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::field_reassign_with_default)]
    use super::*;
    use crate::analysis::diff::config::PropertyChecks;
    use crate::analysis::diff::xvalidations::compare_rules;
    use serde_json::json;

    fn cmp(old: Value, new: Value) -> Vec<String> {
        compare_rules(Some(&old), Some(&new), &PropertyChecks::default())
            .into_iter()
            .map(|f| f.message)
            .collect()
    }

    #[test]
    fn added_removed_changed() {
        let o = json!([{"rule": "self.a > 0", "message": "a"}, {"rule": "self.b > 0"}]);
        let n = json!([{"rule": "self.a > 1", "message": "a"}, {"rule": "self.c > 0", "reason": "FieldValueForbidden"}]);
        assert_eq!(
            cmp(o, n),
            vec![
                r#"x-kubernetes-validations rule changed : "self.a > 0" -> "self.a > 1""#.to_string(),
                r#"x-kubernetes-validations rule changed : "self.b > 0" -> "self.c > 0""#.to_string(),
                r#"x-kubernetes-validations reason changed for rule "self.c > 0" : "" -> "FieldValueForbidden""#.to_string(),
            ]
        );
        let o = json!([{"rule": "self.a > 0"}]);
        let n = json!([{"rule": "self.a > 0"}, {"rule": "self.b < 3", "message": "b & c"}]);
        assert_eq!(
            cmp(o.clone(), n.clone()),
            vec![
                r#"x-kubernetes-validations added: {"rule":"self.b \u003c 3","message":"b \u0026 c"}"#
            ]
        );
        assert_eq!(
            cmp(n, o),
            vec![
                r#"x-kubernetes-validations removed: {"rule":"self.b \u003c 3","message":"b \u0026 c"}"#
            ]
        );
    }

    #[test]
    fn attribute_changes_are_warnings() {
        let o = json!([{"rule": "self.a > 0", "message": "m1", "fieldPath": ".a"}]);
        let n = json!([{"rule": "self.a > 0", "messageExpression": "'x'", "fieldPath": ".b"}]);
        let r = compare_rules(Some(&o), Some(&n), &PropertyChecks::default());
        assert_eq!(r.len(), 3);
        assert!(r.iter().all(|f| f.severity == Severity::Warning));
        assert_eq!(
            r[0].message,
            r#"x-kubernetes-validations message changed for rule "self.a > 0" : "m1" -> """#
        );
    }

    #[test]
    fn policies() {
        let mut c = PropertyChecks::default();
        c.xvalidations_addition = false;
        c.xvalidations_removal = false;
        let o = json!([{"rule": "a"}]);
        let n = json!([{"rule": "a"}, {"rule": "b"}]);
        assert!(compare_rules(Some(&o), Some(&n), &c).is_empty());
        assert!(compare_rules(Some(&n), Some(&o), &c).is_empty());
    }

    #[test]
    fn transition_rules_are_not_ratcheted() {
        let r = compare_rules(
            None,
            Some(&json!([{"rule": "self == oldSelf"}])),
            &PropertyChecks::default(),
        );
        assert_eq!(r[0].ratcheting, Ratcheting::NotSoftened);
    }

    #[test]
    fn apiserver_paths() {
        let s = json!({"type":"object","properties":{"spec":{"type":"object","properties":{
            "list":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}}},
            "map":{"type":"object","additionalProperties":{"type":"string"}}}}}});
        assert_eq!(
            apiserver_path_to_crdify("spec.list[0].name", &s),
            "^.spec.list.items.name"
        );
        assert_eq!(
            apiserver_path_to_crdify("spec.map[a.b]", &s),
            "^.spec.map.additionalProperties"
        );
        assert_eq!(
            apiserver_path_to_crdify("metadata.name", &s),
            "^.metadata.name"
        );
        assert_eq!(apiserver_path_to_crdify("<nil>", &s), "^");
    }

    #[test]
    fn cost_factor_wording() {
        assert!(cost_error_message("x", 12_000_000, 10_000_000).contains("factor of 1.200000x"));
        assert!(cost_error_message("x", 23_000_000, 10_000_000).contains("factor of 2.3x"));
        assert!(
            cost_error_message("x", 2_000_000_000, 10_000_000).contains("factor of more than 100x")
        );
    }
}
