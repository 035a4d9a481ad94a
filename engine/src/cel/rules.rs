//! `x-kubernetes-validations` rules of a CRD: compiled with the schema-derived types of
//! `self`/`oldSelf` and run on objects as apiextensions `pkg/apiserver/schema/cel` does.

use super::env::EnvOptions;
use super::interpreter::Program;
use super::types::{ObjectType, Type};
use super::value::{escape, ErrorKind, Val};
use crate::crd::model::{JsonSchemaProps, SchemaOrBool, ValidationRule};
use crate::field::{BadValue, ErrorList, ErrorType, FieldError, Path};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Runtime cost budget per object (AS `pkg/apis/cel/config.go`).
pub const RUNTIME_CEL_COST_BUDGET: i64 = 10_000_000;

/// The outcome of running the rules of one object.
pub struct CelOutcome {
    pub errors: ErrorList,
    pub warnings: ErrorList,
    pub remaining_budget: i64,
}

/// A rule compiled at one schema node.
pub struct CompiledRule {
    pub rule: ValidationRule,
    /// The compile error (`compilation failed: ...`, `cel expression must evaluate to a bool`).
    pub error: Option<String>,
    pub program: Option<Program>,
    pub uses_old_self: bool,
    pub message_program: Option<Program>,
    pub message_error: Option<String>,
    /// `fieldPath` normalized to a field path suffix (`foo.bar`, `foo[key]`).
    pub field_path: Option<String>,
    /// The static cost of the rule (set by [`compile_rules`]).
    pub cost: Option<super::cost::RuleCost>,
    /// The static maximum cost of the messageExpression.
    pub message_cost: Option<u64>,
    /// `openAPIV3Schema.properties[spec].x-kubernetes-validations[0]`.
    pub schema_path: String,
}

/// The rules of a schema node and of the nodes below it, mirroring the schema tree.
#[derive(Default)]
pub struct RuleTree {
    pub rules: Vec<CompiledRule>,
    pub properties: BTreeMap<String, RuleTree>,
    pub items: Option<Box<RuleTree>>,
    pub additional: Option<Box<RuleTree>>,
    pub is_resource_root: bool,
}

/// A CRD version's rules, with the schema as CEL sees it (resource roots and embedded
/// resources expose apiVersion, kind, metadata.name and metadata.generateName).
pub struct RuleSet {
    pub schema: JsonSchemaProps,
    pub tree: RuleTree,
    /// Failed rules print the value from 1.35 (scalars) and the schema type before.
    pub print_values: bool,
}

impl std::fmt::Debug for RuleSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RuleSet")
    }
}

/// `WithTypeAndObjectMeta`: a resource root as CEL types it.
fn with_type_and_object_meta(s: &JsonSchemaProps) -> JsonSchemaProps {
    let mut out = s.clone();
    let string = JsonSchemaProps { type_: Some("string".into()), ..Default::default() };
    out.properties.insert("kind".into(), string.clone());
    out.properties.insert("apiVersion".into(), string.clone());
    let mut meta = JsonSchemaProps { type_: Some("object".into()), ..Default::default() };
    meta.properties.insert("name".into(), string.clone());
    meta.properties.insert("generateName".into(), string);
    out.properties.insert("metadata".into(), meta);
    out
}

/// The schema tree as CEL sees it: roots and embedded resources with their object meta.
fn cel_schema(s: &JsonSchemaProps, root: bool) -> JsonSchemaProps {
    let mut out = if root || s.x_embedded_resource { with_type_and_object_meta(s) } else { s.clone() };
    for (k, p) in out.properties.iter_mut() {
        if root || s.x_embedded_resource {
            if k == "metadata" || k == "kind" || k == "apiVersion" {
                continue;
            }
        }
        *p = cel_schema(p, false);
    }
    if let Some(crate::crd::model::SchemaOrArray::Schema(i)) = &mut out.items {
        **i = cel_schema(i, false);
    }
    if let Some(SchemaOrBool::Schema(a)) = &mut out.additional_properties {
        **a = cel_schema(a, false);
    }
    out
}

/// `SchemaDeclType`: the CEL type of values at a schema node (`None`: invisible to CEL).
pub fn decl_type(s: &JsonSchemaProps, name: &str) -> Option<Type> {
    if s.x_int_or_string {
        return Some(Type::Dyn);
    }
    match s.type_str() {
        "array" => s.items_schema().and_then(|i| decl_type(i, &format!("{}.@idx", name))).map(Type::list),
        "object" => {
            if let Some(SchemaOrBool::Schema(ap)) = &s.additional_properties {
                return decl_type(ap, &format!("{}.@elem", name)).map(|v| Type::map(Type::String, v));
            }
            let mut fields = Vec::new();
            for (k, p) in &s.properties {
                if let Some(esc) = escape(k, false) {
                    if let Some(t) = decl_type(p, &format!("{}.{}", name, esc)) {
                        fields.push((esc, t));
                    }
                }
            }
            fields.sort_by(|a, b| a.0.cmp(&b.0));
            Some(Type::Object(Arc::new(ObjectType { name: name.to_string(), fields })))
        }
        "string" => Some(match s.format.as_deref() {
            Some("byte") => Type::Bytes,
            Some("duration") => Type::Duration,
            Some("date") | Some("date-time") => Type::Timestamp,
            _ => Type::String,
        }),
        "boolean" => Some(Type::Bool),
        "number" => Some(Type::Double),
        "integer" => Some(Type::Int),
        _ => None,
    }
}

/// Whether a checked expression refers to the variable `oldSelf`.
fn uses_var(e: &cel::common::ast::IdedExpr, name: &str) -> bool {
    use cel::common::ast::{EntryExpr, Expr};
    match &e.expr {
        Expr::Ident(n) => n == name,
        Expr::Select(s) => uses_var(&s.operand, name),
        Expr::Call(c) => c.target.as_deref().map(|t| uses_var(t, name)).unwrap_or(false) || c.args.iter().any(|a| uses_var(a, name)),
        Expr::List(l) => l.elements.iter().any(|x| uses_var(x, name)),
        Expr::Map(m) => m.entries.iter().any(|en| match &en.expr {
            EntryExpr::MapEntry(me) => uses_var(&me.key, name) || uses_var(&me.value, name),
            EntryExpr::StructField(f) => uses_var(&f.value, name),
        }),
        Expr::Comprehension(c) => [&c.iter_range, &c.accu_init, &c.loop_cond, &c.loop_step, &c.result].iter().any(|x| uses_var(x, name)),
        _ => false,
    }
}

/// The expressions of the CRD being replaced on an update (apiextensions
/// `findPreexistingExpressions`: every rule and messageExpression of every version).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PreexistingExpressions {
    pub rules: std::collections::HashSet<String>,
    pub message_expressions: std::collections::HashSet<String>,
}

impl PreexistingExpressions {
    /// Collects the expressions of a CRD's schemas (all versions).
    pub fn of_crd(crd: &crate::crd::model::CustomResourceDefinition) -> PreexistingExpressions {
        fn walk(s: &JsonSchemaProps, out: &mut PreexistingExpressions, depth: usize) {
            if depth > 512 {
                return;
            }
            for r in &s.x_validations {
                out.rules.insert(r.rule.clone());
                if !r.message_expression.is_empty() {
                    out.message_expressions.insert(r.message_expression.clone());
                }
            }
            for p in s.properties.values() {
                walk(p, out, depth + 1);
            }
            if let Some(i) = s.items_schema() {
                walk(i, out, depth + 1);
            }
            if let Some(a) = s.additional_properties_schema() {
                walk(a, out, depth + 1);
            }
        }
        let mut out = PreexistingExpressions::default();
        for v in &crd.spec.versions {
            if let Some(s) = v.schema.as_ref().and_then(|s| s.open_api_v3_schema.as_deref()) {
                walk(s, &mut out, 0);
            }
        }
        out
    }
}

/// apiextensions `EnvLoader`: which environment a rule and its messageExpression compile in.
/// New or changed expressions compile in the new-expressions environment (compatibility
/// version = target − 1); on a CRD update, expressions already present in the old CRD
/// compile in the stored-expressions environment (every library of the release that is
/// not removed), as `preexistingExpressions.RuleEnv`/`MessageExpressionEnv` choose.
#[derive(Clone, Debug)]
pub struct EnvLoader {
    pub new: EnvOptions,
    pub stored: EnvOptions,
    pub preexisting: Option<Arc<PreexistingExpressions>>,
}

impl EnvLoader {
    /// Every expression in one environment (`NewExpressionsEnvLoader` at `opts`).
    pub fn single(opts: &EnvOptions) -> EnvLoader {
        EnvLoader { new: opts.clone(), stored: opts.clone(), preexisting: None }
    }

    /// The loader of a CRD create (`preexisting = None`) or update for a target release.
    pub fn for_release(kube: crate::version::KubeVersion, preexisting: Option<Arc<PreexistingExpressions>>) -> EnvLoader {
        EnvLoader {
            new: EnvOptions::for_version(kube.minor.saturating_sub(1)),
            stored: EnvOptions::for_version(kube.minor),
            preexisting,
        }
    }

    /// The loader for a new-expressions options value, with the update context in effect
    /// (see [`with_preexisting`]) when there is one.
    fn from_new(opts: &EnvOptions) -> EnvLoader {
        match current_preexisting() {
            Some(pre) => EnvLoader {
                new: opts.clone(),
                stored: EnvOptions::for_version(opts.compat_minor + 1),
                preexisting: Some(pre),
            },
            None => EnvLoader::single(opts),
        }
    }

    pub fn rule_env(&self, rule: &str) -> &EnvOptions {
        match &self.preexisting {
            Some(p) if p.rules.contains(rule) => &self.stored,
            _ => &self.new,
        }
    }

    pub fn message_expression_env(&self, expr: &str) -> &EnvOptions {
        match &self.preexisting {
            Some(p) if p.message_expressions.contains(expr) => &self.stored,
            _ => &self.new,
        }
    }
}

thread_local! {
    static PREEXISTING: std::cell::RefCell<Option<Arc<PreexistingExpressions>>> = const { std::cell::RefCell::new(None) };
}

fn current_preexisting() -> Option<Arc<PreexistingExpressions>> {
    PREEXISTING.with(|p| p.borrow().clone())
}

/// Runs `f` as part of a CRD update whose old CRD held `pre`: the rule compilations inside
/// it ([`compile_rules`], [`compile_node_rules`], as the CRD checks call them) compile
/// unchanged expressions in the stored environment.
pub fn with_preexisting<R>(pre: Option<Arc<PreexistingExpressions>>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Arc<PreexistingExpressions>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let prev = self.0.take();
            PREEXISTING.with(|p| *p.borrow_mut() = prev);
        }
    }
    let prev = PREEXISTING.with(|p| std::mem::replace(&mut *p.borrow_mut(), pre));
    let _restore = Restore(prev);
    f()
}

/// Compiles one rule at a node whose values have type `self_type`.
pub fn compile_rule(rule: &ValidationRule, self_type: &Type, opts: &EnvOptions, node: &JsonSchemaProps) -> CompiledRule {
    compile_rule_with(rule, self_type, &EnvLoader::single(opts), node)
}

/// Compiles one rule, the rule and its messageExpression each in the environment the
/// loader chooses for it.
pub fn compile_rule_with(rule: &ValidationRule, self_type: &Type, loader: &EnvLoader, node: &JsonSchemaProps) -> CompiledRule {
    let mut out = CompiledRule {
        rule: rule.clone(),
        error: None,
        program: None,
        uses_old_self: false,
        message_program: None,
        message_error: None,
        field_path: None,
        cost: None,
        message_cost: None,
        schema_path: String::new(),
    };
    if !rule.field_path.is_empty() {
        out.field_path = normalize_field_path(&rule.field_path, node).ok();
    }
    if rule.rule.trim().is_empty() {
        return out;
    }
    let old_type = if rule.optional_old_self == Some(true) { Type::optional(self_type.clone()) } else { self_type.clone() };
    let vars = [("self".to_string(), self_type.clone()), ("oldSelf".to_string(), old_type)];
    let rule_opts = loader.rule_env(&rule.rule);
    let env = Arc::new(super::env_with_variables(&super::base_env(rule_opts), &vars));
    match super::compile_program(env.clone(), &rule.rule) {
        Err(super::CompileError::Compile(e)) => {
            out.error = Some(format!("compilation failed: {}", e));
            return out;
        }
        Err(super::CompileError::Program(e)) => {
            out.error = Some(format!("program instantiation failed: {}", e));
            return out;
        }
        Ok(p) => {
            if p.checked.output_type() != Type::Bool {
                out.error = Some("cel expression must evaluate to a bool".into());
                return out;
            }
            out.uses_old_self = uses_var(&p.checked.expr, "oldSelf");
            out.program = Some(p);
        }
    }
    if !rule.message_expression.is_empty() {
        let message_opts = loader.message_expression_env(&rule.message_expression);
        let env = if message_opts == rule_opts {
            env
        } else {
            Arc::new(super::env_with_variables(&super::base_env(message_opts), &vars))
        };
        match super::compile_program(env, &rule.message_expression) {
            Err(super::CompileError::Compile(e)) => {
                out.message_error = Some(format!("messageExpression compilation failed: {}", e))
            }
            Err(super::CompileError::Program(e)) => {
                out.message_error = Some(format!("program instantiation failed: {}", e))
            }
            Ok(p) => {
                if p.checked.output_type() != Type::String {
                    out.message_error = Some("messageExpression must evaluate to a string".into());
                } else {
                    out.message_program = Some(p);
                }
            }
        }
    }
    out
}

/// `ValidFieldPath` normalized: the path to append to the rule's field path.
pub fn normalize_field_path(json_path: &str, schema: &JsonSchemaProps) -> Result<String, String> {
    let mut out = Path::root();
    let mut s = schema;
    let b = json_path.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'.' => {
                i += 1;
                let st = i;
                while i < b.len() && b[i] != b'.' && b[i] != b'[' && b[i] != b']' {
                    i += 1;
                }
                let name = &json_path[st..i];
                if name.is_empty() {
                    return Err("unexpected end of JSON path".into());
                }
                (out, s) = step(out, s, name)?;
            }
            b'[' => {
                i += 1;
                if i >= b.len() || b[i] != b'\'' {
                    return Err("expected single quoted string".into());
                }
                let st = i + 1;
                i += 1;
                while i < b.len() && !(b[i] == b'\'' && b[i - 1] != b'\\') {
                    i += 1;
                }
                if i >= b.len() {
                    return Err("unexpected end of JSON path".into());
                }
                let raw = json_path[st..i].replace("\\'", "'").replace("\\\\", "\\");
                i += 1;
                if i >= b.len() || b[i] != b']' {
                    return Err("expected ]".into());
                }
                i += 1;
                (out, s) = step(out, s, &raw)?;
            }
            _ => return Err(format!("expected [ or . but got: {}", &json_path[i..])),
        }
    }
    Ok(out.as_str().to_string())
}

fn step<'s>(path: Path, s: &'s JsonSchemaProps, name: &str) -> Result<(Path, &'s JsonSchemaProps), String> {
    if !s.properties.is_empty() {
        match s.properties.get(name) {
            Some(p) => Ok((path.child(name), p)),
            None => Err("does not refer to a valid field".into()),
        }
    } else if let Some(SchemaOrBool::Schema(ap)) = &s.additional_properties {
        Ok((path.key(name), ap))
    } else {
        Err("does not refer to a valid field".into())
    }
}

/// Compiles the rules of one schema node as CRD creation does (new expressions, at the
/// target release's compatibility version).
pub fn compile_node_rules(node: &JsonSchemaProps, is_root: bool, kube: crate::version::KubeVersion) -> Vec<CompiledRule> {
    let loader = EnvLoader::from_new(&EnvOptions::for_version(kube.minor.saturating_sub(1)));
    let cs = cel_schema(node, is_root);
    let ty = decl_type(&cs, "selfType").unwrap_or(Type::Dyn);
    cs.x_validations.iter().map(|r| compile_rule_with(r, &ty, &loader, &cs)).collect()
}

/// Compiles every rule of a version's schema for a compatibility version, with costs.
/// Inside [`with_preexisting`] (a CRD update), unchanged expressions compile in the stored
/// environment.
pub fn compile_rules(schema: &JsonSchemaProps, opts: &EnvOptions) -> RuleSet {
    compile_rules_with(schema, &EnvLoader::from_new(opts))
}

/// Compiles every rule of a version's schema in the environments the loader chooses.
pub fn compile_rules_with(schema: &JsonSchemaProps, loader: &EnvLoader) -> RuleSet {
    let opts = &loader.new;
    let cs = cel_schema(schema, true);
    // The root's type is built once; every node's type is read off its parent's, as the
    // apiserver's validator does with `declType.Fields` / `ElemType`.
    let root_type = decl_type(&cs, "selfType");
    let mut ancestors = Vec::new();
    let tree = build_tree(schema, root_type, "openAPIV3Schema", true, &mut ancestors, loader);
    RuleSet { schema: cs, tree, print_values: opts.compat_minor + 1 >= 35 }
}

/// Walks the schema as written (costs are computed on it), with the node's CEL type.
fn build_tree<'s>(
    s: &'s JsonSchemaProps,
    ty: Option<Type>,
    path: &str,
    root: bool,
    ancestors: &mut Vec<&'s JsonSchemaProps>,
    opts: &EnvLoader,
) -> RuleTree {
    let resource_root = root || s.x_embedded_resource;
    let mut t = RuleTree { is_resource_root: resource_root, ..Default::default() };
    if !has_any_rules(s) {
        return t;
    }
    if !s.x_validations.is_empty() {
        let node_ty = ty.clone().unwrap_or(Type::Dyn);
        t.rules = s
            .x_validations
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut c = compile_rule_with(r, &node_ty, opts, s);
                c.schema_path = format!("{}.x-kubernetes-validations[{}]", path, i);
                if let Some(p) = &c.program {
                    c.cost = Some(super::cost::rule_cost(&p.checked, s, ancestors, resource_root));
                }
                if let Some(m) = &c.message_program {
                    c.message_cost = Some(super::cost::rule_cost(&m.checked, s, ancestors, resource_root).max_cost);
                }
                c
            })
            .collect();
    }
    ancestors.push(s);
    for (k, p) in &s.properties {
        let child_ty = match escape(k, false) {
            Some(esc) => match &ty {
                Some(Type::Object(o)) => o.field(&esc).cloned(),
                Some(Type::Dyn) => Some(Type::Dyn),
                _ => None,
            },
            // Unescapable names are not fields of the parent type: type them on their own.
            None => decl_type(&cel_schema(p, p.x_embedded_resource), &format!("selfType.{}", k)),
        };
        let child = build_tree(p, child_ty, &format!("{}.properties[{}]", path, k), false, ancestors, opts);
        if !child.is_empty() {
            t.properties.insert(k.clone(), child);
        }
    }
    if let Some(i) = s.items_schema() {
        let child_ty = match &ty {
            Some(Type::List(e)) => Some((**e).clone()),
            _ => None,
        };
        let child = build_tree(i, child_ty, &format!("{}.items", path), false, ancestors, opts);
        if !child.is_empty() {
            t.items = Some(Box::new(child));
        }
    }
    if let Some(SchemaOrBool::Schema(a)) = &s.additional_properties {
        let child_ty = match &ty {
            Some(Type::Map(_, v)) => Some((**v).clone()),
            _ => None,
        };
        let child = build_tree(a, child_ty, &format!("{}.additionalProperties", path), false, ancestors, opts);
        if !child.is_empty() {
            t.additional = Some(Box::new(child));
        }
    }
    ancestors.pop();
    t
}

/// Whether a node or anything below it (on the structural spine) carries rules.
fn has_any_rules(s: &JsonSchemaProps) -> bool {
    !s.x_validations.is_empty()
        || s.properties.values().any(has_any_rules)
        || s.items_schema().map(has_any_rules).unwrap_or(false)
        || s.additional_properties_schema().map(has_any_rules).unwrap_or(false)
}

impl RuleTree {
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty() && self.properties.is_empty() && self.items.is_none() && self.additional.is_none()
    }
}

/// Where ratcheting stands at a node (apiserver `ratchetingOptions`): the correlated
/// (new, old) pair of this node, if correlatable, and of the nearest correlatable ancestor.
#[derive(Clone, Copy, Default)]
struct Correlation<'v> {
    current: Option<(&'v Value, &'v Value)>,
    parent: Option<(&'v Value, &'v Value)>,
}

impl<'v> Correlation<'v> {
    fn should_ratchet(&self) -> bool {
        match (self.current, self.parent) {
            (Some((n, o)), _) => n == o,
            (None, Some((n, o))) => n == o,
            _ => false,
        }
    }
    /// The correlation of a child whose old value is `old` (None: not correlatable).
    fn child(&self, new: &'v Value, old: Option<&'v Value>) -> Correlation<'v> {
        if self.current.is_none() {
            return *self;
        }
        Correlation { current: old.map(|o| (new, o)), parent: self.current }
    }
}

struct Run<'a> {
    errors: ErrorList,
    warnings: ErrorList,
    budget: i64,
    print_values: bool,
    _p: std::marker::PhantomData<&'a ()>,
}

/// Runs every rule over `obj` (with `old` on updates), as apiextensions' CEL validator.
pub fn validate(rules: &RuleSet, obj: &Value, old: Option<&Value>, ratcheting: bool) -> CelOutcome {
    let mut run = Run {
        errors: Vec::new(),
        warnings: Vec::new(),
        budget: RUNTIME_CEL_COST_BUDGET,
        print_values: true,
        _p: Default::default(),
    };
    let corr = match old {
        Some(o) if ratcheting => Correlation { current: Some((obj, o)), parent: None },
        _ => Correlation::default(),
    };
    run.print_values = rules.print_values;
    run.node(&rules.tree, &rules.schema, &Path::root(), obj, old, corr);
    CelOutcome { errors: run.errors, warnings: run.warnings, remaining_budget: run.budget }
}

impl<'a> Run<'a> {
    fn node<'v>(&mut self, t: &RuleTree, s: &JsonSchemaProps, path: &Path, obj: &'v Value, old: Option<&'v Value>, corr: Correlation<'v>) {
        if obj.is_null() || self.budget < 0 {
            return;
        }
        let old = old.filter(|o| !o.is_null());
        self.expressions(t, s, path, obj, old, corr);
        if self.budget < 0 {
            return;
        }
        match obj {
            Value::Array(items) => {
                let Some(it) = &t.items else { return };
                let Some(is) = s.items_schema() else { return };
                let old_items: Option<&Vec<Value>> = old.and_then(Value::as_array);
                for (i, v) in items.iter().enumerate() {
                    let ov = if s.x_list_type.as_deref() == Some("map") {
                        old_items.and_then(|oi| oi.iter().find(|o| same_keys(o, v, &s.x_list_map_keys)))
                    } else {
                        None
                    };
                    // Sets correlate by value: an element also in the old list is unchanged.
                    let corr_old = match s.x_list_type.as_deref() {
                        Some("set") => old_items.and_then(|oi| oi.iter().find(|o| *o == v)),
                        _ => ov,
                    };
                    let c = corr.child(v, corr_old);
                    self.node(it, is, &path.index(i), v, ov, c);
                    if self.budget < 0 {
                        return;
                    }
                }
            }
            Value::Object(m) => {
                let correlatable = s.x_map_type.as_deref() != Some("atomic");
                let om = old.and_then(Value::as_object);
                if let (Some(at), Some(SchemaOrBool::Schema(aps))) = (&t.additional, &s.additional_properties) {
                    for (k, v) in m {
                        let ov = if correlatable { om.and_then(|o| o.get(k)) } else { None };
                        let c = corr.child(v, ov);
                        self.node(at, aps, &path.key(k), v, ov, c);
                        if self.budget < 0 {
                            return;
                        }
                    }
                }
                for (k, v) in m {
                    let (Some(pt), Some(ps)) = (t.properties.get(k), s.properties.get(k)) else { continue };
                    let ov = if correlatable { om.and_then(|o| o.get(k)) } else { None };
                    let c = corr.child(v, ov);
                    self.node(pt, ps, &path.child(k), v, ov, c);
                    if self.budget < 0 {
                        return;
                    }
                }
            }
            _ => {}
        }
    }

    fn expressions(&mut self, t: &RuleTree, s: &JsonSchemaProps, path: &Path, obj: &Value, old: Option<&Value>, corr: Correlation<'_>) {
        if t.rules.is_empty() {
            return;
        }
        let type_name = BadValue::Str(s.type_str().to_string());
        if self.budget <= 0 {
            self.errors.push(FieldError::invalid(
                path.clone(),
                type_name,
                "validation failed due to running out of cost budget, no further validation rules will be run",
            ));
            self.budget = -1;
            return;
        }
        let self_val = match Val::from_json(obj, s) {
            Ok(v) => v,
            Err(e) => {
                self.errors.push(FieldError::invalid(path.clone(), type_name, format!("{}", e)));
                return;
            }
        };
        let old_val = match old.map(|o| Val::from_json(o, s)) {
            Some(Ok(v)) => Some(v),
            _ => None,
        };
        for cr in &t.rules {
            let rule = &cr.rule;
            if let Some(e) = &cr.error {
                self.errors.push(FieldError::invalid(path.clone(), type_name.clone(), format!("rule compile error: {}", e)));
                continue;
            }
            let Some(program) = &cr.program else { continue };
            let optional_old = rule.optional_old_self == Some(true);
            if cr.uses_old_self && old_val.is_none() && !optional_old {
                continue;
            }
            let old_binding = if optional_old {
                Val::optional(old_val.clone())
            } else {
                old_val.clone().unwrap_or(Val::Null)
            };
            let vars: Vec<(&str, Val)> = vec![("self", self_val.clone()), ("oldSelf", old_binding)];
            let (result, cost) = program.eval(&vars, Some(super::PER_CALL_LIMIT));
            if cost as i64 > self.budget || cost > i64::MAX as u64 {
                self.errors.push(FieldError::invalid(
                    path.clone(),
                    type_name,
                    "validation failed due to running out of cost budget, no further validation rules will be run",
                ));
                self.budget = -1;
                return;
            }
            self.budget -= cost as i64;
            if std::env::var_os("CRDLAB_TRACE_COST").is_some() {
                eprintln!("cost {:>6} {} :: {}", cost, path, rule.rule);
            }
            let failed = match result {
                Err(e) => {
                    match e.kind {
                        ErrorKind::NoSuchOverload => self.errors.push(FieldError::invalid(
                            path.clone(),
                            type_name.clone(),
                            format!("'{}': call arguments did not match a supported operator, function or macro signature for rule: {}", e.message, rule_error_string(rule)),
                        )),
                        ErrorKind::CostLimit => {
                            self.errors.push(FieldError::invalid(
                                path.clone(),
                                type_name,
                                format!("'{}': no further validation rules will be run due to call cost exceeds limit for rule: {}", e.message, rule_error_string(rule)),
                            ));
                            self.budget = -1;
                            return;
                        }
                        ErrorKind::Other => self.errors.push(FieldError::invalid(
                            path.clone(),
                            type_name.clone(),
                            format!("{} evaluating rule: {}", e.message, rule_error_string(rule)),
                        )),
                    }
                    continue;
                }
                Ok(Val::Bool(true)) => false,
                Ok(_) => true,
            };
            if !failed {
                continue;
            }
            let fpath = match &cr.field_path {
                Some(fp) if !fp.is_empty() => path.child(fp),
                _ => path.clone(),
            };
            let mut detail: Option<String> = None;
            if let Some(mp) = &cr.message_program {
                let vars: Vec<(&str, Val)> =
                    vec![("self", self_val.clone()), ("oldSelf", old_val.clone().unwrap_or(Val::Null))];
                let (r, mcost) = mp.eval(&vars, Some(super::PER_CALL_LIMIT));
                if mcost as i64 > self.budget {
                    self.push(cr, corr, FieldError::invalid(
                        fpath,
                        type_name,
                        "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run",
                    ));
                    self.budget = -1;
                    return;
                }
                match r {
                    Err(e) if e.kind == ErrorKind::CostLimit => {
                        self.push(cr, corr, FieldError::invalid(
                            fpath,
                            type_name,
                            format!(
                                "no further validation rules will be run due to call cost exceeds limit for messageExpression: {}",
                                crate::gofmt::quote(&rule.message_expression)
                            ),
                        ));
                        self.budget = -1;
                        return;
                    }
                    Err(_) => self.budget -= mcost as i64,
                    Ok(v) => {
                        self.budget -= mcost as i64;
                        if let Some(s) = v.as_str() {
                            let t = s.trim();
                            if !t.is_empty() && t.len() <= 5120 && !t.contains('\n') {
                                detail = Some(t.to_string());
                            }
                        }
                    }
                }
            }
            let detail = detail.unwrap_or_else(|| {
                if rule.message.is_empty() {
                    format!("failed rule: {}", rule_error_string(rule))
                } else {
                    rule.message.trim().to_string()
                }
            });
            let value = match obj {
                _ if !self.print_values => type_name.clone(),
                Value::Object(_) | Value::Array(_) => BadValue::Omit,
                other => BadValue::from_json(other),
            };
            let err = match rule.reason.as_deref() {
                Some("FieldValueForbidden") => FieldError::forbidden(fpath, detail),
                Some("FieldValueRequired") => FieldError::required(fpath, detail),
                Some("FieldValueDuplicate") => FieldError::new(ErrorType::Duplicate, fpath, value, ""),
                _ => FieldError::invalid(fpath, value, detail),
            };
            self.push(cr, corr, err);
        }
    }

    fn push(&mut self, cr: &CompiledRule, corr: Correlation<'_>, e: FieldError) {
        if !cr.uses_old_self && corr.should_ratchet() {
            self.warnings.push(e);
        } else {
            self.errors.push(e);
        }
    }
}

fn same_keys(a: &Value, b: &Value, keys: &[String]) -> bool {
    keys.iter().all(|k| a.get(k) == b.get(k))
}

/// `ruleErrorString`: the trimmed message, else the trimmed rule.
fn rule_error_string(rule: &ValidationRule) -> String {
    if !rule.message.is_empty() {
        rule.message.trim().to_string()
    } else {
        rule.rule.trim().to_string()
    }
}
/// Every `x-kubernetes-validations` rule of a version with its static cost.
pub fn rule_reports(version: &crate::crd::CompiledVersion) -> Vec<crate::request::RuleReport> {
    let mut out = Vec::new();
    if let Some(rs) = &version.rules {
        rs.tree.walk(&mut |c| {
            out.push(crate::request::RuleReport {
                schema_path: c.schema_path.clone(),
                rule: c.rule.rule.clone(),
                uses_old_self: c.uses_old_self,
                // A rule that does not compile reports zero costs, as the apiserver does.
                max_cost: Some(c.cost.map(|x| x.max_cost).unwrap_or(0)),
                max_cardinality: Some(c.cost.map(|x| x.max_cardinality).unwrap_or(0)),
                estimated_cost: Some(c.cost.map(|x| x.estimated_cost).unwrap_or(0)),
                message_cost: c.message_cost,
            })
        });
    }
    out
}

impl RuleTree {
    /// Visits every compiled rule, parents before children.
    pub fn walk<'t>(&'t self, f: &mut dyn FnMut(&'t CompiledRule)) {
        self.rules.iter().for_each(|r| f(r));
        for p in self.properties.values() {
            p.walk(f);
        }
        if let Some(i) = &self.items {
            i.walk(f);
        }
        if let Some(a) = &self.additional {
            a.walk(f);
        }
    }
}
