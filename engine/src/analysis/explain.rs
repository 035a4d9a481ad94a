//! Beyond the apiserver: why a rule costs what it costs, and the smallest schema bound
//! that brings it under the per-rule limit.
//!
//! For every rule of a version: the figures the apiserver computes ([`crate::cel::cost`]), the
//! subexpressions that carry the estimate (comprehensions with their iteration counts,
//! expensive calls), the schema nodes the estimator read sizes from (and the ancestors whose
//! cardinality multiplies the rule), and — for a rule over
//! [`STATIC_ESTIMATED_COST_LIMIT`] — for each unbounded string, list or map on that path,
//! the smallest `maxLength` / `maxItems` / `maxProperties` that fixes it. Bounds are found
//! by binary search, re-running the estimator on a copy of the schema with the bound set.

use crate::cel::cost::{self, NodeTrace, TraceKind};
use crate::cel::cost_model::{SizeEstimate, SizeHints, MAX_REQUEST_SIZE_BYTES};
use crate::cel::schema_sizes::{self, RuleCost, SchemaSizes};
use crate::schema::cel::compile::{CompiledRule, RuleTree};
use crate::crd::model::{JsonSchemaProps, SchemaOrArray, SchemaOrBool};
use crate::crd::compiled::CompiledCrd;
use crate::cel::interpreter::Program;
use serde::Serialize;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Per-expression static cost limit (apiextensions `StaticEstimatedCostLimit`).
pub const STATIC_ESTIMATED_COST_LIMIT: u64 = 10_000_000;
/// Per-schema static cost limit (`StaticEstimatedCRDCostLimit`).
pub const STATIC_ESTIMATED_CRD_COST_LIMIT: u64 = 100_000_000;

/// One step from a schema node to a child.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Property(String),
    Items,
    AdditionalProperties,
}

/// The cost explanation of one version of a CRD.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CostExplanation {
    pub crd: String,
    pub version: String,
    pub kubernetes_version: String,
    pub rules: Vec<RuleExplanation>,
    /// The saturating sum of the rules' (and messageExpressions') estimated costs.
    pub total: u64,
    pub per_rule_limit: u64,
    pub per_crd_limit: u64,
    /// `total` as a percentage of `per_crd_limit`.
    pub total_share_percent: f64,
}

/// One rule, its figures and what drives them.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleExplanation {
    /// `openAPIV3Schema.properties[spec].x-kubernetes-validations[0]`.
    pub schema_path: String,
    /// The node's field path: `spec.items[*]` (`<root>` for the root).
    pub field: String,
    pub rule: String,
    /// The compile error, when the rule does not compile (its costs are then zero).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub max_cost: u64,
    pub max_cardinality: u64,
    pub estimated_cost: u64,
    /// `estimated_cost` as a percentage of the per-CRD budget.
    pub share_percent: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_expression_cost: Option<u64>,
    pub over_limit: bool,
    /// How many times the rule runs per request: the ancestors' `maxItems`/`maxProperties`
    /// product, or the unbounded estimate.
    pub cardinality: CardinalityExplanation,
    /// The subexpressions carrying the cost, most expensive first.
    pub breakdown: Vec<CostTerm>,
    /// The schema nodes whose sizes the estimator read.
    pub schema_nodes: Vec<SchemaNodeSize>,
    /// For a rule over the limit: the single bounds that bring it under.
    pub fixes: Vec<BoundFix>,
    /// When no single bound does: one value set on every unbounded node on the path
    /// (all of these together), the loosest that brings the rule under.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub combined_fix: Vec<BoundFix>,
}

#[derive(Clone, Debug, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CardinalityExplanation {
    /// The multiplier applied to `max_cost`.
    pub factor: u64,
    /// Ancestor lists and maps, root first, with their bound (`None`: unbounded).
    pub ancestors: Vec<AncestorBound>,
    /// True when an ancestor is unbounded and the factor is `maxCardinality`.
    pub unbounded: bool,
}

#[derive(Clone, Debug, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AncestorBound {
    pub field: String,
    pub keyword: String,
    pub bound: Option<u64>,
}

/// A subexpression and its cost.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CostTerm {
    /// The subexpression's text, as near as the source positions allow.
    pub expression: String,
    /// A readable account: `all over self.names: ≤ 349,524 iterations × 12`.
    pub description: String,
    /// The node's maximum cost, subexpressions included (once, not per enclosing loop).
    pub max_cost: u64,
    /// How many comprehensions enclose it.
    pub loop_depth: usize,
}

/// A schema node read by the estimator and the size it assumed.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SchemaNodeSize {
    /// The CEL path the estimator asked about: `self.names.@items`.
    pub cel_path: String,
    /// The field path of the schema node: `spec.names[*]`.
    pub field: String,
    /// `string`, `list` or `map`.
    pub kind: String,
    /// `maxLength`, `maxItems` or `maxProperties`.
    pub keyword: String,
    /// The declared bound, if any.
    pub bound: Option<u64>,
    /// The maximum size the estimator assumed.
    pub estimated_max_size: u64,
}

/// A bound that brings a rule under the per-rule limit.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BoundFix {
    /// The field path of the node: `spec.names`.
    pub field: String,
    /// A JSON pointer to the node in the CRD document.
    pub pointer: String,
    pub keyword: String,
    /// The loosest value that brings the rule under the limit: with `value` the rule is
    /// within the limit, with `value + 1` it is not.
    pub value: u64,
    /// The rule's estimated cost with the bound.
    pub estimated_cost: u64,
}

/// Explains the costs of a version (the named one, else the storage version).
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
/// use crdlab::{CompiledCrd, KubeVersion};
/// let crd = CompiledCrd::from_text(CRD, KubeVersion::LATEST).unwrap();
/// let e = crdlab::analysis::explain::explain(&crd, None).unwrap();
/// assert_eq!(e.rules[0].rule, "self.replicas <= 10");
/// assert!(e.rules[0].max_cost < e.per_rule_limit);
/// ```
pub fn explain(crd: &CompiledCrd, version: Option<&str>) -> Result<CostExplanation, String> {
    explain_with(crd, version, &mut Traces { keep: false, ..Traces::default() })
}

/// What the estimator reported for compiled rules, kept between explanations of successive
/// compiles of an edited CRD (the playground explains every version after every edit): a
/// rule the compile cache reused has the same program, and the same program means the same
/// node sizes, resource root and release (everything the compile cache keys a rule on), so
/// its trace is the same. Keyed by the program's address; an entry holds the program, so
/// the address is not reused while it is kept.
pub struct Traces {
    entries: HashMap<(usize, bool, u64), Traced>,
    round: u64,
    /// False for a single explanation ([`explain`]): nothing is kept.
    keep: bool,
}

impl Default for Traces {
    fn default() -> Traces {
        Traces { entries: HashMap::new(), round: 0, keep: true }
    }
}

struct Traced {
    _program: Rc<Program>,
    breakdown: Vec<CostTerm>,
    seen: Vec<(Vec<String>, Option<SizeEstimate>)>,
    used: u64,
}

impl Traces {
    /// Starts the explanations of another compile: entries used by neither it nor the one
    /// before are dropped (an undo finds the previous compile's).
    pub fn next_round(&mut self) {
        self.round += 1;
        let round = self.round;
        self.entries.retain(|_, t| t.used + 1 >= round);
    }
}

/// [`explain`], reusing the traces of rules explained before.
pub fn explain_with(crd: &CompiledCrd, version: Option<&str>, traces: &mut Traces) -> Result<CostExplanation, String> {
    let v = crd.version(version).ok_or_else(|| match version {
        Some(n) => format!("the CRD has no version {:?}", n),
        None => "the CRD has no versions".to_string(),
    })?;
    let mut out = CostExplanation {
        crd: crd.crd.metadata.name.clone(),
        version: v.name.clone(),
        kubernetes_version: format!("1.{}", crd.kube_version.minor),
        rules: Vec::new(),
        total: 0,
        per_rule_limit: STATIC_ESTIMATED_COST_LIMIT,
        per_crd_limit: STATIC_ESTIMATED_CRD_COST_LIMIT,
        total_share_percent: 0.0,
    };
    if let (Some(schema), Some(rs)) = (&v.schema, &v.rules) {
        let base = format!("/spec/versions/{}/schema/openAPIV3Schema", v.index);
        let mut steps = Vec::new();
        walk(&rs.tree, schema, schema, &mut steps, &base, traces, &mut out.rules);
    }
    for r in &out.rules {
        out.total = out.total.saturating_add(r.estimated_cost);
        if let Some(m) = r.message_expression_cost {
            out.total = out.total.saturating_add(m);
        }
    }
    out.total_share_percent = share(out.total);
    Ok(out)
}

fn share(cost: u64) -> f64 {
    cost as f64 * 100.0 / STATIC_ESTIMATED_CRD_COST_LIMIT as f64
}

fn walk(
    tree: &RuleTree,
    root: &JsonSchemaProps,
    node: &JsonSchemaProps,
    steps: &mut Vec<Step>,
    base: &str,
    traces: &mut Traces,
    out: &mut Vec<RuleExplanation>,
) {
    for r in &tree.rules {
        out.push(explain_rule(r, root, node, steps, base, traces));
    }
    for (k, child) in &tree.properties {
        if let Some(p) = node.properties.get(k) {
            steps.push(Step::Property(k.clone()));
            walk(child, root, p, steps, base, traces, out);
            steps.pop();
        }
    }
    if let (Some(child), Some(i)) = (&tree.items, node.items_schema()) {
        steps.push(Step::Items);
        walk(child, root, i, steps, base, traces, out);
        steps.pop();
    }
    if let (Some(child), Some(a)) = (&tree.additional, node.additional_properties_schema()) {
        steps.push(Step::AdditionalProperties);
        walk(child, root, a, steps, base, traces, out);
        steps.pop();
    }
}

/// The field path of a node: `spec.names[*].value`, `<root>` for the root.
pub fn field_of(steps: &[Step]) -> String {
    let mut s = String::new();
    for st in steps {
        match st {
            Step::Property(p) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(p);
            }
            Step::Items => s.push_str("[*]"),
            Step::AdditionalProperties => s.push_str("[*]"),
        }
    }
    if s.is_empty() {
        "<root>".into()
    } else {
        s
    }
}

/// The JSON pointer of a node below `base`.
pub fn pointer_of(base: &str, steps: &[Step]) -> String {
    let mut s = base.to_string();
    for st in steps {
        match st {
            Step::Property(p) => {
                s.push_str("/properties/");
                s.push_str(&crate::text::edit::pointer::escape_seg(p));
            }
            Step::Items => s.push_str("/items"),
            Step::AdditionalProperties => s.push_str("/additionalProperties"),
        }
    }
    s
}

/// The node at `steps` below `root`.
pub fn node_at<'s>(root: &'s JsonSchemaProps, steps: &[Step]) -> Option<&'s JsonSchemaProps> {
    let mut cur = root;
    for st in steps {
        cur = match st {
            Step::Property(p) => cur.properties.get(p)?,
            Step::Items => cur.items_schema()?,
            Step::AdditionalProperties => cur.additional_properties_schema()?,
        };
    }
    Some(cur)
}

fn node_at_mut<'s>(
    root: &'s mut JsonSchemaProps,
    steps: &[Step],
) -> Option<&'s mut JsonSchemaProps> {
    let mut cur = root;
    for st in steps {
        cur = match st {
            Step::Property(p) => crate::crd::model::schema_mut(cur.properties.get_mut(p)?),
            Step::Items => match cur.items.as_mut()? {
                SchemaOrArray::Schema(s) => crate::crd::model::schema_mut(s),
                SchemaOrArray::Array(_) => return None,
            },
            Step::AdditionalProperties => match cur.additional_properties.as_mut()? {
                SchemaOrBool::Schema(s) => crate::crd::model::schema_mut(s),
                SchemaOrBool::Bool(_) => return None,
            },
        };
    }
    Some(cur)
}

/// Which bound keyword limits the size of a node, and its current value.
fn bound_keyword(s: &JsonSchemaProps) -> Option<(&'static str, &'static str, Option<u64>)> {
    if s.x_int_or_string {
        return None;
    }
    let b = |v: Option<i64>| v.map(|x| x.max(0) as u64);
    match s.type_str() {
        "string" => Some(("string", "maxLength", b(s.max_length))),
        "array" => Some(("list", "maxItems", b(s.max_items))),
        "object" if s.additional_properties_schema().is_some() => {
            Some(("map", "maxProperties", b(s.max_properties)))
        }
        _ => None,
    }
}

fn set_bound(s: &mut JsonSchemaProps, keyword: &str, v: u64) {
    let v = Some(v.min(i64::MAX as u64) as i64);
    match keyword {
        "maxLength" => s.max_length = v,
        "maxItems" => s.max_items = v,
        _ => s.max_properties = v,
    }
}

/// Records the paths the estimator asks sizes for.
struct Recording<'a> {
    inner: SchemaSizes<'a>,
    seen: RefCell<Vec<(Vec<String>, Option<SizeEstimate>)>>,
}

impl SizeHints for Recording<'_> {
    fn size(&self, path: &[&str]) -> Option<SizeEstimate> {
        let r = self.inner.size(path);
        let p: Vec<String> = path.iter().map(|s| s.to_string()).collect();
        let mut seen = self.seen.borrow_mut();
        if !seen.iter().any(|(q, _)| *q == p) {
            seen.push((p, r));
        }
        r
    }
}

/// The schema steps (relative to the rule's node) a CEL size path refers to.
fn steps_of_cel_path(node: &JsonSchemaProps, path: &[String]) -> Option<Vec<Step>> {
    let mut out = Vec::new();
    let mut cur = node;
    for name in path.iter().skip(1) {
        match name.as_str() {
            "@items" | "@values" => {
                if cur.type_str() == "array" {
                    cur = cur.items_schema()?;
                    out.push(Step::Items);
                } else {
                    cur = cur.additional_properties_schema()?;
                    out.push(Step::AdditionalProperties);
                }
            }
            "@keys" | "@indices" => return None,
            // A property's CEL name differs from it only by `__` escapes: a name without
            // `__` is the property of that name (looked up, not escaping each property).
            field if !field.contains("__") => {
                let (k, child) = cur.properties.get_key_value(field)?;
                out.push(Step::Property(k.clone()));
                cur = child;
            }
            field => {
                let (k, child) = cur.properties.iter().find(|(k, _)| {
                    k.as_str() == field
                        || crate::cel::value::escape(k, false).as_deref() == Some(field)
                        || crate::cel::value::escape(k, true).as_deref() == Some(field)
                })?;
                out.push(Step::Property(k.clone()));
                cur = child;
            }
        }
    }
    Some(out)
}

/// Re-estimates a rule at `steps` of `root` (schema as written).
fn rule_cost_at(
    checked: &crate::cel::checker::Checked,
    root: &JsonSchemaProps,
    steps: &[Step],
) -> Option<RuleCost> {
    let mut ancestors = Vec::with_capacity(steps.len());
    let mut cur = root;
    for st in steps {
        ancestors.push(cur);
        cur = match st {
            Step::Property(p) => cur.properties.get(p)?,
            Step::Items => cur.items_schema()?,
            Step::AdditionalProperties => cur.additional_properties_schema()?,
        };
    }
    let resource_root = steps.is_empty() || cur.x_embedded_resource;
    Some(schema_sizes::rule_cost(checked, cur, &ancestors, resource_root))
}

/// The largest value of `keyword` on the node at `target` that keeps the rule at
/// `rule_steps` within the limit (one more does not), by binary search over re-estimates:
/// the loosest bound that fixes the rule. `None` when even 0 does not.
fn loosest_bound(
    checked: &crate::cel::checker::Checked,
    root: &JsonSchemaProps,
    rule_steps: &[Step],
    targets: &[(Vec<Step>, &'static str)],
) -> Option<(u64, u64)> {
    let mut schema = root.clone();
    let mut cost_with = |v: u64| -> Option<u64> {
        for (target, keyword) in targets {
            set_bound(node_at_mut(&mut schema, target)?, keyword, v);
        }
        Some(rule_cost_at(checked, &schema, rule_steps)?.estimated_cost)
    };
    let mut lo_cost = cost_with(0)?;
    if lo_cost > STATIC_ESTIMATED_COST_LIMIT {
        return None;
    }
    // Nothing larger than a request fits in one: past it a bound changes nothing.
    let mut hi = MAX_REQUEST_SIZE_BYTES as u64;
    let hi_cost = cost_with(hi)?;
    if hi_cost <= STATIC_ESTIMATED_COST_LIMIT {
        return Some((hi, hi_cost));
    }
    // Invariant: cost(lo) <= limit < cost(hi).
    let mut lo = 0;
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let c = cost_with(mid)?;
        if c > STATIC_ESTIMATED_COST_LIMIT {
            hi = mid;
        } else {
            lo = mid;
            lo_cost = c;
        }
    }
    Some((lo, lo_cost))
}

fn explain_rule(
    r: &CompiledRule,
    root: &JsonSchemaProps,
    node: &JsonSchemaProps,
    steps: &[Step],
    base: &str,
    traces: &mut Traces,
) -> RuleExplanation {
    let (max_cost, max_cardinality, estimated_cost) = match r.cost {
        Some(c) => (c.max_cost, c.max_cardinality, c.estimated_cost),
        None => (0, 0, 0),
    };
    let mut ancestors = Vec::new();
    let mut unbounded = false;
    let mut factor: u64 = 1;
    {
        let mut cur = root;
        for (i, st) in steps.iter().enumerate() {
            if let Some((_, kw, bound)) = bound_keyword(cur).filter(|(k, _, _)| *k != "string") {
                ancestors.push(AncestorBound {
                    field: field_of(&steps[..i]),
                    keyword: kw.into(),
                    bound,
                });
                match bound {
                    Some(b) => factor = factor.saturating_mul(b),
                    None => unbounded = true,
                }
            }
            cur = match node_at(cur, std::slice::from_ref(st)) {
                Some(c) => c,
                None => break,
            };
        }
    }
    if unbounded {
        factor = max_cardinality;
    }
    let mut out = RuleExplanation {
        schema_path: r.schema_path.clone(),
        field: field_of(steps),
        rule: r.rule.rule.clone(),
        error: r.error.clone(),
        max_cost,
        max_cardinality,
        estimated_cost,
        share_percent: share(estimated_cost),
        message_expression_cost: r.message_cost,
        over_limit: estimated_cost > STATIC_ESTIMATED_COST_LIMIT,
        cardinality: CardinalityExplanation {
            factor,
            ancestors,
            unbounded,
        },
        breakdown: Vec::new(),
        schema_nodes: Vec::new(),
        fixes: Vec::new(),
        combined_fix: Vec::new(),
    };
    let Some(program) = &r.program else {
        return out;
    };
    let checked = &program.checked;
    let resource_root = steps.is_empty() || node.x_embedded_resource;
    let key = (Rc::as_ptr(program) as usize, resource_root, max_cost);
    let round = traces.round;
    let trace = || {
        let rec = Recording {
            inner: SchemaSizes::new(node, resource_root).for_release(checked.release_minor),
            seen: RefCell::new(Vec::new()),
        };
        let (_, trace) = cost::estimate_traced(checked, Some(&rec));
        Traced { _program: program.clone(), breakdown: breakdown(checked, &trace, max_cost), seen: rec.seen.into_inner(), used: round }
    };
    let once;
    let traced = if traces.keep {
        let t = traces.entries.entry(key).or_insert_with(trace);
        t.used = round;
        &*t
    } else {
        once = trace();
        &once
    };
    out.breakdown = traced.breakdown.clone();

    // Schema nodes read by the estimator.
    let mut targets: Vec<(Vec<Step>, &'static str)> = Vec::new();
    for (path, size) in traced.seen.iter() {
        let Some(rel) = steps_of_cel_path(node, path) else {
            continue;
        };
        let Some(n) = node_at(node, &rel) else {
            continue;
        };
        let Some((kind, kw, bound)) = bound_keyword(n) else {
            continue;
        };
        let mut abs = steps.to_vec();
        abs.extend(rel);
        out.schema_nodes.push(SchemaNodeSize {
            cel_path: path.join("."),
            field: field_of(&abs),
            kind: kind.into(),
            keyword: kw.into(),
            bound,
            estimated_max_size: size.map(|s| s.max).unwrap_or(u64::MAX),
        });
        if bound.is_none() && !targets.iter().any(|(t, _)| *t == abs) {
            targets.push((abs, kw));
        }
    }
    if !out.over_limit {
        return out;
    }
    // Unbounded ancestors multiply the rule too.
    for i in 0..steps.len() {
        if let Some((kind, kw, None)) = node_at(root, &steps[..i]).and_then(bound_keyword) {
            if kind != "string" && !targets.iter().any(|(t, _)| t.as_slice() == &steps[..i]) {
                targets.push((steps[..i].to_vec(), kw));
            }
        }
    }
    for (target, kw) in &targets {
        let (target, kw) = (target.clone(), *kw);
        // A bound of 0 forbids the values altogether: not a fix worth suggesting.
        if let Some((value, cost)) =
            loosest_bound(checked, root, steps, &[(target.clone(), kw)]).filter(|(v, _)| *v > 0)
        {
            out.fixes.push(BoundFix {
                field: field_of(&target),
                pointer: pointer_of(base, &target),
                keyword: kw.into(),
                value,
                estimated_cost: cost,
            });
        }
    }
    // The loosest bound (the largest value) first: the least intrusive change.
    crate::go::sort::sort_by(&mut out.fixes, |a, b| b.value.cmp(&a.value));
    // No single bound does it: the same bound on every unbounded node on the path.
    if out.fixes.is_empty() && targets.len() > 1 {
        if let Some((value, cost)) =
            loosest_bound(checked, root, steps, &targets).filter(|(v, _)| *v > 0)
        {
            out.combined_fix = targets
                .iter()
                .map(|(t, kw)| BoundFix {
                    field: field_of(t),
                    pointer: pointer_of(base, t),
                    keyword: (*kw).into(),
                    value,
                    estimated_cost: cost,
                })
                .collect();
        }
    }
    out
}

/// The comprehensions and calls carrying the cost, most expensive first.
fn breakdown(
    checked: &crate::cel::checker::Checked,
    trace: &[NodeTrace],
    max_cost: u64,
) -> Vec<CostTerm> {
    let mut terms: Vec<CostTerm> = Vec::new();
    let mut sorted: Vec<&NodeTrace> = trace.iter().collect();
    crate::go::sort::sort_by(&mut sorted, |a, b| b.total.max.cmp(&a.total.max).then(a.depth.cmp(&b.depth)));
    let threshold = max_cost / 100;
    for t in sorted {
        if terms.len() >= 6 {
            break;
        }
        let description = match &t.kind {
            TraceKind::Comprehension {
                range_path,
                range_size,
                per_iteration,
            } => {
                let over = if range_path
                    .first()
                    .map(|p| p.starts_with('@'))
                    .unwrap_or(true)
                {
                    "a computed collection".to_string()
                } else {
                    range_path.join(".")
                };
                format!(
                    "loop over {}: up to {} iterations × {} per iteration",
                    over,
                    group(range_size.max),
                    group(per_iteration.max)
                )
            }
            TraceKind::Call {
                function,
                target_path,
                arg_paths,
                cost,
            } => {
                // Only calls that cost more than a step or two are worth a line.
                if cost.max <= 2 || t.total.max < threshold.min(100) {
                    continue;
                }
                let mut on: Vec<String> = Vec::new();
                if !target_path.is_empty() {
                    on.push(target_path.join("."));
                }
                on.extend(
                    arg_paths
                        .iter()
                        .filter(|p| !p.is_empty())
                        .map(|p| p.join(".")),
                );
                let on = if on.is_empty() {
                    String::new()
                } else {
                    format!(" on {}", on.join(", "))
                };
                format!(
                    "{}{}: {} for the call itself",
                    display_function(function),
                    on,
                    group(cost.max)
                )
            }
        };
        terms.push(CostTerm {
            expression: snippet(checked, t.id),
            description,
            max_cost: t.total.max,
            loop_depth: t.loop_depth,
        });
    }
    terms
}

fn display_function(f: &str) -> String {
    match f {
        "_==_" => "==".into(),
        "_!=_" => "!=".into(),
        "_+_" => "+".into(),
        "_<_" => "<".into(),
        "_<=_" => "<=".into(),
        "_>_" => ">".into(),
        "_>=_" => ">=".into(),
        "_&&_" => "&&".into(),
        "_||_" => "||".into(),
        "@in" => "in".into(),
        "_[_]" => "[ ]".into(),
        f => format!("{}()", f),
    }
}

/// The source text of a node, from its position to where its brackets close.
fn snippet(checked: &crate::cel::checker::Checked, id: u64) -> String {
    let text: Vec<char> = checked.source.text.chars().collect();
    let ids = subtree_ids(&checked.expr, id);
    let offs: Vec<usize> = ids
        .iter()
        .filter_map(|i| checked.source.offset_of(*i))
        .collect();
    let (Some(&start), Some(&last)) = (offs.iter().min(), offs.iter().max()) else {
        return String::new();
    };
    if start >= text.len() {
        return String::new();
    }
    // Back up over a receiver: `self.all(` has its offset at `.all` in some parsers.
    let mut start = start;
    while start > 0
        && (text[start - 1].is_alphanumeric() || text[start - 1] == '_' || text[start - 1] == '.')
    {
        start -= 1;
    }
    let mut depth: i64 = 0;
    let mut i = start;
    let mut in_str: Option<char> = None;
    let limit = text.len();
    while i < limit {
        let c = text[i];
        if let Some(q) = in_str {
            if c == '\\' {
                i += 2;
                continue;
            }
            if c == q {
                in_str = None;
            }
            i += 1;
            continue;
        }
        match c {
            '\'' | '"' => in_str = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
                if depth == 0 && i >= last {
                    i += 1;
                    break;
                }
            }
            ',' if depth == 0 && i >= last => break,
            _ => {
                if depth == 0 && i > last && (c.is_whitespace() || "&|?:".contains(c)) {
                    break;
                }
            }
        }
        i += 1;
    }
    let s: String = text[start..i.min(limit)].iter().collect();
    let s = s.trim().to_string();
    if s.chars().count() > 120 {
        let t: String = s.chars().take(117).collect();
        format!("{}...", t)
    } else {
        s
    }
}

fn subtree_ids(e: &cel::common::ast::IdedExpr, id: u64) -> Vec<u64> {
    fn find<'e>(
        e: &'e cel::common::ast::IdedExpr,
        id: u64,
        d: usize,
    ) -> Option<&'e cel::common::ast::IdedExpr> {
        if e.id == id {
            return Some(e);
        }
        if d > 2_000 {
            return None;
        }
        children(e).into_iter().find_map(|c| find(c, id, d + 1))
    }
    fn collect(e: &cel::common::ast::IdedExpr, out: &mut Vec<u64>, d: usize) {
        out.push(e.id);
        if d > 2_000 {
            return;
        }
        for c in children(e) {
            collect(c, out, d + 1);
        }
    }
    let mut out = Vec::new();
    if let Some(n) = find(e, id, 0) {
        collect(n, &mut out, 0);
    }
    out
}

fn children(e: &cel::common::ast::IdedExpr) -> Vec<&cel::common::ast::IdedExpr> {
    use cel::common::ast::{EntryExpr, Expr};
    match &e.expr {
        Expr::Select(s) => vec![&*s.operand],
        Expr::Call(c) => c
            .target
            .as_deref()
            .into_iter()
            .chain(c.args.iter())
            .collect(),
        Expr::List(l) => l.elements.iter().collect(),
        Expr::Map(m) => m
            .entries
            .iter()
            .flat_map(|en| match &en.expr {
                EntryExpr::MapEntry(me) => vec![&me.key, &me.value],
                _ => vec![],
            })
            .collect(),
        Expr::Struct(s) => s
            .entries
            .iter()
            .flat_map(|en| match &en.expr {
                EntryExpr::StructField(f) => vec![&f.value],
                _ => vec![],
            })
            .collect(),
        Expr::Comprehension(c) => vec![
            &c.iter_range,
            &c.accu_init,
            &c.loop_cond,
            &c.loop_step,
            &c.result,
        ],
        _ => vec![],
    }
}

/// `1234567` as `1,234,567`.
pub fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A share for people: `12.5000`, `0.0042`, `<0.0001`.
fn percent(p: f64) -> String {
    if p > 0.0 && p < 0.0001 {
        "<0.0001".into()
    } else if p >= 1000.0 {
        format!("{:.0}", p)
    } else {
        format!("{:.4}", p)
    }
}

/// The text report of `crdlab cost`.
pub fn render_text(e: &CostExplanation) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "CRD {} version {} (Kubernetes {}): {} rules",
        e.crd,
        e.version,
        e.kubernetes_version,
        e.rules.len()
    );
    for (i, r) in e.rules.iter().enumerate() {
        let _ = writeln!(s);
        let _ = writeln!(s, "[{}] {}", i + 1, r.schema_path);
        let _ = writeln!(s, "    rule: {}", r.rule.trim());
        if let Some(err) = &r.error {
            let _ = writeln!(s, "    error: {}", err);
        }
        let _ = writeln!(
            s,
            "    maxCost {}  maxCardinality {}  estimatedCost {}  ({}% of the {} budget){}",
            group(r.max_cost),
            group(r.max_cardinality),
            group(r.estimated_cost),
            percent(r.share_percent),
            group(e.per_crd_limit),
            if r.over_limit {
                "  OVER the per-rule limit"
            } else {
                ""
            }
        );
        if let Some(m) = r.message_expression_cost {
            let _ = writeln!(s, "    messageExpression maxCost {}", group(m));
        }
        let c = &r.cardinality;
        if !c.ancestors.is_empty() {
            let parts: Vec<String> = c
                .ancestors
                .iter()
                .map(|a| match a.bound {
                    Some(b) => format!("{} ({}: {})", a.field, a.keyword, group(b)),
                    None => format!("{} (no {})", a.field, a.keyword),
                })
                .collect();
            let _ = writeln!(
                s,
                "    runs up to {} times per request{}: {}",
                group(c.factor),
                if c.unbounded {
                    " (unbounded ancestors, estimated from the request size)"
                } else {
                    ""
                },
                parts.join(", ")
            );
        }
        for t in &r.breakdown {
            let per = match t.loop_depth {
                0 => String::new(),
                1 => " (each time the enclosing loop iterates)".to_string(),
                n => format!(" (each iteration of {} enclosing loops)", n),
            };
            let _ = writeln!(
                s,
                "    cost {:>14}  {}  — {}{}",
                group(t.max_cost),
                t.expression,
                t.description,
                per
            );
        }
        for n in &r.schema_nodes {
            let b = match n.bound {
                Some(b) => format!("{}: {}", n.keyword, group(b)),
                None => format!("no {}", n.keyword),
            };
            let _ = writeln!(
                s,
                "    size of {} ({}, {}, {}): up to {}",
                n.field,
                n.cel_path,
                n.kind,
                b,
                group(n.estimated_max_size)
            );
        }
        if r.over_limit {
            if r.fixes.is_empty() {
                let _ = writeln!(
                    s,
                    "    no single maxLength/maxItems/maxProperties brings this rule under the limit"
                );
                if let Some(f) = r.combined_fix.first() {
                    let all: Vec<String> = r
                        .combined_fix
                        .iter()
                        .map(|f| format!("{}: {} to {}", f.keyword, group(f.value), f.field))
                        .collect();
                    let _ = writeln!(
                        s,
                        "    fix: add {} (rule cost would be {})",
                        all.join(", "),
                        group(f.estimated_cost)
                    );
                }
            }
            for f in &r.fixes {
                let _ = writeln!(
                    s,
                    "    fix: add {}: {} to {} (rule cost would be {})",
                    f.keyword,
                    group(f.value),
                    f.field,
                    group(f.estimated_cost)
                );
            }
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "total estimated cost {} ({}% of the {} budget){}",
        group(e.total),
        percent(e.total_share_percent),
        group(e.per_crd_limit),
        if e.total > e.per_crd_limit {
            "  OVER the per-CRD limit"
        } else {
            ""
        }
    );
    s
}
