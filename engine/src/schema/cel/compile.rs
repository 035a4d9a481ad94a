//! A CRD's `x-kubernetes-validations` rules compiled (apiextensions
//! `pkg/apiserver/schema/cel/compilation.go`: `Compile`, `SchemaDeclType` through
//! `prepareEnvSet`): the CEL types of `self`/`oldSelf` read off the schema, one compiled
//! rule tree per version schema mirroring the schema tree, each rule's static cost, the
//! environments `EnvLoader` chooses (new versus stored expressions), and the cache that
//! lets a re-compile after an edit compile only what changed.

use crate::cel::env::EnvOptions;
use crate::cel::interpreter::Program;
use crate::cel::types::{ObjectType, Type};
use crate::cel::value::escape;
use crate::crd::model::{JsonSchemaProps, SchemaOrBool, ValidationRule};
use crate::field::{ErrorList, Path};
use crate::schema::fingerprint::FastMap;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

/// A rule compiled at one schema node. Programs are shared (`Rc`): the same rule compiled
/// for the same `self` type in the same environment is one program, whichever version or
/// compile asked for it (see [`RuleCache`]).
#[derive(Clone)]
pub struct CompiledRule {
    pub rule: ValidationRule,
    /// The compile error (`compilation failed: ...`, `cel expression must evaluate to a bool`).
    pub error: Option<String>,
    pub program: Option<Rc<Program>>,
    pub uses_old_self: bool,
    pub message_program: Option<Rc<Program>>,
    pub message_error: Option<String>,
    /// `fieldPath` normalized to a field path suffix (`foo.bar`, `foo[key]`).
    pub field_path: Option<String>,
    /// The static cost of the rule (set by [`compile_rules`]).
    pub cost: Option<crate::cel::schema_sizes::RuleCost>,
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
    /// The schema as CEL types and reads values ([`cel_schema`], with only `type`,
    /// `format`, the structure, the bounds, `nullable` and the non-rule `x-kubernetes-*`
    /// extensions): shared by the rule sets of schemas that differ in nothing else.
    pub schema: Rc<JsonSchemaProps>,
    pub tree: RuleTree,
    /// Failed rules print the value from 1.35 (scalars) and the schema type before.
    pub print_values: bool,
}

impl std::fmt::Debug for RuleSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RuleSet")
    }
}

/// The object meta a resource root exposes to CEL (`WithTypeAndObjectMeta`).
fn add_type_and_object_meta(out: &mut JsonSchemaProps) {
    let string = JsonSchemaProps {
        type_: Some("string".into()),
        ..Default::default()
    };
    let string = Arc::new(string);
    out.properties.insert("kind".into(), string.clone());
    out.properties.insert("apiVersion".into(), string.clone());
    let mut meta = JsonSchemaProps {
        type_: Some("object".into()),
        ..Default::default()
    };
    meta.properties.insert("name".into(), string.clone());
    meta.properties.insert("generateName".into(), string);
    out.properties.insert("metadata".into(), Arc::new(meta));
}

/// The schema tree as CEL sees it: roots and embedded resources with their object meta
/// (`WithTypeAndObjectMeta`). Built in one pass over the nodes; descriptions are left out
/// (CEL typing and evaluation never read them, and they are most of a CRD's text).
fn cel_schema(s: &JsonSchemaProps, root: bool) -> JsonSchemaProps {
    cel_schema_at(s, root, true, 0)
}

/// Deeper than this the CEL view of a schema is cut off (values below it are invisible to
/// rules); schema readers bound nesting far below it.
const MAX_SCHEMA_DEPTH: usize = 1_000;

/// With `full` false the copy keeps only what types and reads values (`type`, `format`,
/// the structure, the bounds, `nullable` and the `x-kubernetes-*` extensions other than
/// rules): a rule set's schema, whose rules are in its tree and whose value validations
/// (`enum`, `pattern`, `allOf`, ... ) belong to the schema validator.
fn cel_schema_at(s: &JsonSchemaProps, root: bool, full: bool, depth: usize) -> JsonSchemaProps {
    let JsonSchemaProps {
        id,
        schema,
        reference,
        description: _,
        type_,
        format,
        title,
        default,
        maximum,
        exclusive_maximum,
        minimum,
        exclusive_minimum,
        max_length,
        min_length,
        pattern,
        max_items,
        min_items,
        unique_items,
        multiple_of,
        enum_,
        max_properties,
        min_properties,
        required,
        items,
        all_of,
        one_of,
        any_of,
        not,
        properties,
        additional_properties,
        pattern_properties,
        dependencies,
        additional_items,
        definitions,
        external_docs,
        example,
        nullable,
        x_preserve_unknown_fields,
        x_embedded_resource,
        x_int_or_string,
        x_list_map_keys,
        x_list_type,
        x_map_type,
        x_validations,
        pattern_re,
        validation_format,
        numeric_format_ranges,
        compiled_for,
        fingerprints: _,
    } = s;
    let below = depth < MAX_SCHEMA_DEPTH;
    let mut out = JsonSchemaProps {
        id: if full { id.clone() } else { None },
        schema: if full { schema.clone() } else { None },
        reference: if full { reference.clone() } else { None },
        description: None,
        type_: type_.clone(),
        format: format.clone(),
        title: if full { title.clone() } else { None },
        default: if full { default.clone() } else { None },
        maximum: *maximum,
        exclusive_maximum: *exclusive_maximum,
        minimum: *minimum,
        exclusive_minimum: *exclusive_minimum,
        max_length: *max_length,
        min_length: *min_length,
        pattern: if full { pattern.clone() } else { None },
        max_items: *max_items,
        min_items: *min_items,
        unique_items: *unique_items,
        multiple_of: *multiple_of,
        enum_: if full { enum_.clone() } else { None },
        max_properties: *max_properties,
        min_properties: *min_properties,
        required: if full { required.clone() } else { Vec::new() },
        items: match items {
            Some(crate::crd::model::SchemaOrArray::Schema(i)) if below => {
                Some(crate::crd::model::SchemaOrArray::Schema(Arc::new(
                    cel_schema_at(i, false, full, depth + 1),
                )))
            }
            Some(crate::crd::model::SchemaOrArray::Schema(_)) => None,
            other => other.clone(),
        },
        all_of: if full { all_of.clone() } else { Vec::new() },
        one_of: if full { one_of.clone() } else { Vec::new() },
        any_of: if full { any_of.clone() } else { Vec::new() },
        not: if full { not.clone() } else { None },
        properties: if below {
            properties
                .iter()
                .map(|(k, p)| (k.clone(), Arc::new(cel_schema_at(p, false, full, depth + 1))))
                .collect()
        } else {
            BTreeMap::new()
        },
        additional_properties: match additional_properties {
            Some(SchemaOrBool::Schema(a)) if below => Some(SchemaOrBool::Schema(Arc::new(
                cel_schema_at(a, false, full, depth + 1),
            ))),
            Some(SchemaOrBool::Schema(_)) => None,
            other => other.clone(),
        },
        pattern_properties: if full {
            pattern_properties.clone()
        } else {
            BTreeMap::new()
        },
        dependencies: if full {
            dependencies.clone()
        } else {
            BTreeMap::new()
        },
        additional_items: if full { additional_items.clone() } else { None },
        definitions: if full {
            definitions.clone()
        } else {
            BTreeMap::new()
        },
        external_docs: if full { external_docs.clone() } else { None },
        example: if full { example.clone() } else { None },
        nullable: *nullable,
        x_preserve_unknown_fields: *x_preserve_unknown_fields,
        x_embedded_resource: *x_embedded_resource,
        x_int_or_string: *x_int_or_string,
        x_list_map_keys: x_list_map_keys.clone(),
        x_list_type: x_list_type.clone(),
        x_map_type: x_map_type.clone(),
        x_validations: if full {
            x_validations.clone()
        } else {
            Vec::new()
        },
        pattern_re: if full { pattern_re.clone() } else { None },
        validation_format: if full { validation_format.clone() } else { String::new() },
        numeric_format_ranges: full && *numeric_format_ranges,
        compiled_for: if full { *compiled_for } else { None },
        fingerprints: Default::default(),
    };
    if root || *x_embedded_resource {
        // The resource's own kind/apiVersion/metadata give way to the plain CEL view.
        add_type_and_object_meta(&mut out);
    }
    out
}

/// `SchemaDeclType`: the CEL type of values at a schema node (`None`: invisible to CEL).
pub fn decl_type(s: &JsonSchemaProps, name: &str) -> Option<Type> {
    decl_type_named(s, &mut name.to_string())
}

/// [`decl_type`] with the node's type name in a buffer the children extend and restore
/// (only object types keep a copy of it).
fn decl_type_named(s: &JsonSchemaProps, name: &mut String) -> Option<Type> {
    if s.x_int_or_string {
        return Some(Type::Dyn);
    }
    let below = |name: &mut String, s: &JsonSchemaProps, step: &str| {
        let len = name.len();
        name.push('.');
        name.push_str(step);
        let t = decl_type_named(s, name);
        name.truncate(len);
        t
    };
    match s.type_str() {
        "array" => s
            .items_schema()
            .and_then(|i| below(name, i, "@idx"))
            .map(Type::list),
        "object" => {
            if let Some(SchemaOrBool::Schema(ap)) = &s.additional_properties {
                return below(name, ap, "@elem").map(|v| Type::map(Type::String, v));
            }
            let mut fields = Vec::with_capacity(s.properties.len());
            for (k, p) in &s.properties {
                if let Some(esc) = escape(k, false) {
                    if let Some(t) = below(name, p, &esc) {
                        fields.push((esc, t));
                    }
                }
            }
            crate::go::sort::sort_by(&mut fields, |a, b| a.0.cmp(&b.0));
            Some(Type::Object(Arc::new(ObjectType {
                name: name.clone(),
                fields,
            })))
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
        Expr::Call(c) => {
            c.target
                .as_deref()
                .map(|t| uses_var(t, name))
                .unwrap_or(false)
                || c.args.iter().any(|a| uses_var(a, name))
        }
        Expr::List(l) => l.elements.iter().any(|x| uses_var(x, name)),
        Expr::Map(m) => m.entries.iter().any(|en| match &en.expr {
            EntryExpr::MapEntry(me) => uses_var(&me.key, name) || uses_var(&me.value, name),
            EntryExpr::StructField(f) => uses_var(&f.value, name),
        }),
        Expr::Comprehension(c) => [
            &c.iter_range,
            &c.accu_init,
            &c.loop_cond,
            &c.loop_step,
            &c.result,
        ]
        .iter()
        .any(|x| uses_var(x, name)),
        _ => false,
    }
}

/// The expressions of the CRD being replaced on an update (apiextensions
/// `findPreexistingExpressions`: every rule and messageExpression of every version).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PreexistingExpressions {
    pub rules: std::collections::HashSet<String>,
    pub message_expressions: std::collections::HashSet<String>,
    /// Versions whose schema the update leaves unchanged (`findVersionsWithUnchangedSchemas`):
    /// from 1.29 their rules are not held to the per-expression cost limit again.
    pub unchanged_schema_versions: std::collections::HashSet<String>,
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
            if let Some(s) = v
                .schema
                .as_ref()
                .and_then(|s| s.open_api_v3_schema.as_deref())
            {
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
        EnvLoader {
            new: opts.clone(),
            stored: opts.clone(),
            preexisting: None,
        }
    }

    /// The loader of a CRD create (`preexisting = None`) or update for a target release.
    pub fn for_release(
        kube: crate::version::KubeVersion,
        preexisting: Option<Arc<PreexistingExpressions>>,
    ) -> EnvLoader {
        EnvLoader {
            new: EnvOptions::for_version(kube.minor.saturating_sub(1)),
            stored: EnvOptions::stored(kube.minor),
            preexisting,
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

/// Compiles one rule at a node whose values have type `self_type`.
pub fn compile_rule(
    rule: &ValidationRule,
    self_type: &Type,
    opts: &EnvOptions,
    node: &JsonSchemaProps,
) -> CompiledRule {
    compile_rule_with(rule, self_type, &EnvLoader::single(opts), node)
}

/// Compiles one rule, the rule and its messageExpression each in the environment the
/// loader chooses for it.
pub fn compile_rule_with(
    rule: &ValidationRule,
    self_type: &Type,
    loader: &EnvLoader,
    node: &JsonSchemaProps,
) -> CompiledRule {
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
    let old_type = if rule.optional_old_self == Some(true) {
        Type::optional(self_type.clone())
    } else {
        self_type.clone()
    };
    let vars = [
        ("self".to_string(), self_type.clone()),
        ("oldSelf".to_string(), old_type),
    ];
    let rule_opts = loader.rule_env(&rule.rule);
    let env = Arc::new(crate::cel::env::env_with_variables(
        &crate::cel::environment::base_env(rule_opts),
        &vars,
    ));
    match crate::cel::compile::compile_program(env.clone(), &rule.rule) {
        Err(crate::cel::CompileError::Compile(e)) => {
            out.error = Some(format!("compilation failed: {}", e));
            return out;
        }
        Err(crate::cel::CompileError::Program(e)) => {
            out.error = Some(format!("program instantiation failed: {}", e));
            return out;
        }
        // The release's apiserver crashes on the request (the handler's panic is recovered
        // into a 500); no vector pins the response text, so the Go panic is reported as is.
        Err(crate::cel::CompileError::Panic(e)) => {
            out.error = Some(format!("compilation panicked: {}", e));
            return out;
        }
        Ok(p) => {
            if p.checked.output_type() != Type::Bool {
                out.error = Some("cel expression must evaluate to a bool".into());
                return out;
            }
            out.uses_old_self = uses_var(&p.checked.expr, "oldSelf");
            out.program = Some(Rc::new(p));
        }
    }
    if !rule.message_expression.is_empty() {
        let message_opts = loader.message_expression_env(&rule.message_expression);
        let env = if message_opts == rule_opts {
            env
        } else {
            Arc::new(crate::cel::env::env_with_variables(
                &crate::cel::environment::base_env(message_opts),
                &vars,
            ))
        };
        match crate::cel::compile::compile_program(env, &rule.message_expression) {
            Err(crate::cel::CompileError::Compile(e)) => {
                out.message_error = Some(format!("messageExpression compilation failed: {}", e))
            }
            Err(crate::cel::CompileError::Program(e)) => {
                out.message_error = Some(format!("messageExpression instantiation failed: {}", e))
            }
            Err(crate::cel::CompileError::Panic(e)) => {
                out.message_error = Some(format!("messageExpression compilation panicked: {}", e))
            }
            Ok(p) => {
                if p.checked.output_type() != Type::String {
                    out.message_error = Some("messageExpression must evaluate to a string".into());
                } else {
                    out.message_program = Some(Rc::new(p));
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

fn step<'s>(
    path: Path,
    s: &'s JsonSchemaProps,
    name: &str,
) -> Result<(Path, &'s JsonSchemaProps), String> {
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
pub fn compile_node_rules(
    node: &JsonSchemaProps,
    is_root: bool,
    kube: crate::version::KubeVersion,
) -> Vec<CompiledRule> {
    let loader = EnvLoader::single(&EnvOptions::for_version(kube.minor.saturating_sub(1)));
    compile_node_rules_with(node, is_root, &loader)
}

/// Compiles the rules of one schema node in the environments `loader` chooses (on a CRD
/// update, unchanged expressions in the stored environment).
pub(crate) fn compile_node_rules_with(node: &JsonSchemaProps, is_root: bool, loader: &EnvLoader) -> Vec<CompiledRule> {
    let cs = cel_schema(node, is_root);
    let ty = decl_type(&cs, crate::cel::types::SELF_TYPE_NAME).unwrap_or(Type::Dyn);
    cs.x_validations
        .iter()
        .map(|r| compile_rule_with(r, &ty, loader, &cs))
        .collect()
}

/// The rules of `node` and of every node below it, compiled as the apiserver's validator
/// of a default value compiles them (`cel.NewValidator(s, isResourceRoot, ...)`), in the
/// stored-expressions environment of the release.
pub fn compile_subtree_rules(
    node: &JsonSchemaProps,
    resource_root: bool,
    kube: crate::version::KubeVersion,
) -> RuleSet {
    let loader = EnvLoader::single(&EnvOptions::stored(kube.minor));
    let fingerprints = crate::schema::fingerprint::SchemaFingerprints::new();
    compile_set(node, &loader, None, fingerprints, Root::Node { resource_root, path: "default" }).0
}

/// Compiles every rule of a version's schema for a compatibility version, with costs (a
/// CRD update's loader, [`compile_rules_with`], compiles unchanged expressions in the
/// stored environment).
pub fn compile_rules(schema: &JsonSchemaProps, opts: &EnvOptions) -> RuleSet {
    compile_rules_with(schema, &EnvLoader::single(opts))
}

/// Compiles every rule of a version's schema in the environments the loader chooses.
pub fn compile_rules_with(schema: &JsonSchemaProps, loader: &EnvLoader) -> RuleSet {
    compile_rules_cached(schema, loader, None)
}

/// [`compile_rules_with`], taking already compiled rules from `cache` (and adding the new
/// ones to it). The result is the same with or without a cache.
pub fn compile_rules_cached(
    schema: &JsonSchemaProps,
    loader: &EnvLoader,
    cache: Option<&mut RuleCache>,
) -> RuleSet {
    compile_set(
        schema,
        loader,
        cache,
        crate::schema::fingerprint::SchemaFingerprints::new(),
        Root::Version,
    )
    .0
}

/// Where a rule set's schema sits: a version's `openAPIV3Schema`, or any node (a default
/// value's validator), a resource root or not.
#[derive(Clone, Copy)]
enum Root {
    Version,
    Node { resource_root: bool, path: &'static str },
}

fn compile_set(
    schema: &JsonSchemaProps,
    loader: &EnvLoader,
    cache: Option<&mut RuleCache>,
    fingerprints: crate::schema::fingerprint::SchemaFingerprints,
    root: Root,
) -> (RuleSet, crate::schema::fingerprint::SchemaFingerprints) {
    let (resource_root, path) = match root {
        Root::Version => (true, "openAPIV3Schema"),
        Root::Node { resource_root, path } => (resource_root, path),
    };
    let opts = &loader.new;
    let mut fingerprints = fingerprints;
    let (skeleton, cache) = match cache {
        Some(c) => {
            let generation = c.generation;
            let shape = fingerprints.of_shape(schema);
            let entry = c
                .skeletons
                .entry(shape)
                .or_insert_with(|| (Rc::new(Skeleton::of_node(schema, resource_root)), generation));
            entry.1 = generation;
            (entry.0.clone(), Some(c))
        }
        None => (Rc::new(Skeleton::of_node(schema, resource_root)), None),
    };
    let mut ancestors = Vec::new();
    let mut ctx = BuildCtx {
        loader,
        skeleton: skeleton.clone(),
        cache,
        fingerprints,
        has_rules: Default::default(),
        types: TypeFingerprints::default(),
    };
    let tree = build_tree(
        schema,
        skeleton.root_type.clone(),
        path,
        resource_root,
        &mut ancestors,
        &mut ctx,
        0,
    );
    (
        RuleSet {
            schema: skeleton.schema.clone(),
            tree,
            // The release's message rendering (1.35 prints scalar values).
            print_values: crate::version::Feature::PrintRuleValues.enabled_at(opts.release_minor),
        },
        ctx.fingerprints,
    )
}

/// A version schema's CEL view (typing fields only) and the type of its root: what a rule
/// set needs of the schema beside its rules. Computed from the schema's shape
/// ([`crate::schema::fingerprint::SchemaFingerprints::of_shape`], all but rules and
/// descriptions), so an edit of a rule keeps it.
struct Skeleton {
    schema: Rc<JsonSchemaProps>,
    root_type: Option<Type>,
    /// The type each node's rules see `self` as (the node's type named from the node,
    /// `with_type_name`) and its fingerprint, by the address of the node's type (a part of
    /// `root_type`, kept alive here, so an address names one type): the named copy of a
    /// large object's type is made once per shape, not at every compile of an edit.
    self_types: std::cell::RefCell<crate::schema::fingerprint::AddrMap<SelfType>>,
}

struct SelfType {
    /// The node's type (kept alive: its address is the key).
    _of: Type,
    named: Type,
    fingerprint: u128,
}

/// The address of the shared part of a type (`None`: a type without one, cheap to name).
fn type_address(t: &Type) -> Option<usize> {
    match t {
        Type::Object(o) => Some(Arc::as_ptr(o) as *const u8 as usize),
        Type::List(e) => Some(Arc::as_ptr(e) as *const u8 as usize),
        Type::Map(_, v) => Some(Arc::as_ptr(v) as *const u8 as usize),
        _ => None,
    }
}

impl Skeleton {
    /// The skeleton of a node: `resource_root` says whether it is a resource's root (the
    /// version's schema or an embedded resource).
    fn of_node(schema: &JsonSchemaProps, resource_root: bool) -> Skeleton {
        let cs = cel_schema_at(schema, resource_root, false, 0);
        // The root's type is built once; every node's type is read off its parent's, as the
        // apiserver's validator does with `declType.Fields` / `ElemType`.
        let root_type = decl_type(&cs, crate::cel::types::SELF_TYPE_NAME);
        Skeleton {
            schema: Rc::new(cs),
            root_type,
            self_types: Default::default(),
        }
    }
}

/// What one compile of a rule set carries down the schema.
struct BuildCtx<'l, 'c> {
    loader: &'l EnvLoader,
    skeleton: Rc<Skeleton>,
    cache: Option<&'c mut RuleCache>,
    fingerprints: crate::schema::fingerprint::SchemaFingerprints,
    /// [`BuildCtx::has_rules`] of the nodes seen, by address (the walk asks at every node).
    has_rules: crate::schema::fingerprint::AddrMap<bool>,
    types: TypeFingerprints,
}

/// Content fingerprints of CEL types. The object types of one schema are shared (`Arc`)
/// between a node's type and its parent's, so they are fingerprinted once each, memoized
/// by address; the memo keeps every type it saw alive, so an address is never reused for
/// another type while it is in use.
#[derive(Default)]
struct TypeFingerprints {
    objects: crate::schema::fingerprint::AddrMap<(Arc<ObjectType>, u128)>,
}

impl TypeFingerprints {
    fn of(&mut self, t: &Type) -> u128 {
        use std::hash::{Hash, Hasher};
        let mut h = crate::schema::fingerprint::Hasher128::new();
        match t {
            Type::List(e) => {
                h.write_u8(1);
                h.write_u128(self.of(e));
            }
            Type::Map(k, v) => {
                h.write_u8(2);
                h.write_u128(self.of(k));
                h.write_u128(self.of(v));
            }
            Type::Object(o) => {
                let addr = Arc::as_ptr(o) as usize;
                if let Some((_, f)) = self.objects.get(&addr) {
                    return *f;
                }
                h.write_u8(3);
                o.name.hash(&mut h);
                h.write_usize(o.fields.len());
                for (n, ft) in &o.fields {
                    n.hash(&mut h);
                    h.write_u128(self.of(ft));
                }
                let f = h.finish128();
                self.objects.insert(addr, (o.clone(), f));
                return f;
            }
            Type::Opaque(n, ps) => {
                h.write_u8(4);
                n.hash(&mut h);
                h.write_usize(ps.len());
                for p in ps {
                    h.write_u128(self.of(p));
                }
            }
            Type::TypeOf(e) => {
                h.write_u8(5);
                h.write_u128(self.of(e));
            }
            Type::Param(p) => {
                h.write_u8(6);
                p.hash(&mut h);
            }
            // Types without parts: their variant is all there is.
            other => {
                h.write_u8(7);
                std::mem::discriminant(other).hash(&mut h);
            }
        }
        h.finish128()
    }
}

impl BuildCtx<'_, '_> {
    /// The type a node's rules see `self` as, from the node's type `ty` (`None`: dynamic),
    /// named from the node below the root (`with_type_name`), with its fingerprint; kept in
    /// the skeleton by the address of `ty` when it is a part of the skeleton's type.
    fn self_type(&mut self, ty: Option<&Type>, depth: usize) -> (Type, u128) {
        let name = |t: &Type| match depth {
            0 => t.clone(),
            _ => crate::cel::types::with_type_name(t, crate::cel::types::SELF_TYPE_NAME),
        };
        let Some(t) = ty else {
            return (Type::Dyn, self.types.of(&Type::Dyn));
        };
        // (The npm module names each time: the memo's code is not worth its size there.)
        let Some(addr) = type_address(t).filter(|_| !cfg!(feature = "wasm")) else {
            let named = name(t);
            let f = self.types.of(&named);
            return (named, f);
        };
        // Addresses are aligned: the low bit tells the root's (unnamed) from a node's.
        let key = addr | (depth > 0) as usize;
        if let Some(st) = self.skeleton.self_types.borrow().get(&key) {
            return (st.named.clone(), st.fingerprint);
        }
        let named = name(t);
        let fingerprint = self.types.of(&named);
        self.skeleton.self_types.borrow_mut().insert(key, SelfType { _of: t.clone(), named: named.clone(), fingerprint });
        (named, fingerprint)
    }

    /// Whether a node or anything below it on the structural spine carries rules.
    fn has_rules(&mut self, s: &JsonSchemaProps, depth: usize) -> bool {
        let addr = s as *const JsonSchemaProps as usize;
        if let Some(b) = self.has_rules.get(&addr) {
            return *b;
        }
        let found = !s.x_validations.is_empty()
            || (depth < MAX_SCHEMA_DEPTH
                && (s.properties.values().any(|p| self.has_rules(p, depth + 1))
                    || s.items_schema()
                        .map(|i| self.has_rules(i, depth + 1))
                        .unwrap_or(false)
                    || s.additional_properties_schema()
                        .map(|a| self.has_rules(a, depth + 1))
                        .unwrap_or(false)));
        self.has_rules.insert(addr, found);
        found
    }
}

/// Everything a compiled rule (and its static costs, apart from the ancestors'
/// cardinality) is computed from.
#[derive(PartialEq, Eq, Hash)]
struct RuleKey {
    rule: ValidationRule,
    /// The CEL type of `self` (field names, nested types and the type names that appear in
    /// checker messages), as a fingerprint ([`TypeFingerprints`]).
    self_type: u128,
    /// The environments the rule and its messageExpression compile in (Kubernetes version,
    /// stored-versus-new expressions).
    rule_env: EnvOptions,
    message_env: EnvOptions,
    /// The root of a resource or an embedded resource (size estimates add object meta).
    resource_root: bool,
    /// The node's schema and everything below it (the size hints of `self`, `fieldPath`),
    /// rules aside: editing one rule leaves the others' keys alone.
    node: u128,
}

/// A compiled rule without its place in the tree (`schema_path`, the estimated cost that
/// multiplies in the ancestors' cardinality).
struct CachedRule {
    rule: CompiledRule,
    /// `(max_cost, max_cardinality)` of the rule, when it compiled.
    cost: Option<(u64, u64)>,
    last_used: u64,
}

/// Everything the CRD checks of one schema (`validateCustomResourceDefinitionValidation`)
/// depend on: the schema (but its descriptions, see [`KeptChecks`]), where it sits and
/// whether the status subresource is on, the release, and the rule environments.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ChecksKey {
    schema: u128,
    status_enabled: bool,
    path: String,
    kube: crate::version::KubeVersion,
    new: EnvOptions,
    stored: EnvOptions,
    preexisting: Option<u128>,
}

/// The outcome of the CRD checks of one schema (`validateCustomResourceDefinitionValidation`).
#[derive(Clone, Debug, Default)]
pub struct SchemaChecks {
    pub errors: ErrorList,
    /// The schema was structural with valid defaults, so the apiserver made its
    /// `CELSchemaContext` (`RootCELContext`) and compiled and costed its rules; otherwise
    /// (nil context) no rule of the schema was compiled and none counts to the cost total.
    pub cel_context: bool,
}

/// The CRD checks of a schema as the cache keeps them. Descriptions are not in the key:
/// they change no check, and only an error that prints the schema (or a part of it) shows
/// them. Hashing every description of a large schema costs as much as the fingerprint, so
/// it is done only for checks whose errors print values that can hold one.
#[derive(Clone, Debug)]
pub(crate) struct KeptChecks {
    checks: SchemaChecks,
    /// The schema's descriptions' hash, when an error prints a value that can hold them.
    descriptions: Option<u128>,
}

/// Whether an error of `checks` prints a value that may hold a schema's description (a
/// schema, a list of schemas, any rendered structure).
fn prints_structures(checks: &SchemaChecks) -> bool {
    use crate::field::BadValue;
    checks.errors.iter().any(|e| {
        matches!(e.value, BadValue::Json(_) | BadValue::Raw(_) | BadValue::GoStruct { .. })
    })
}

fn descriptions_hash(schema: &JsonSchemaProps) -> u128 {
    let mut h = crate::schema::fingerprint::Hasher128::new();
    crate::schema::fingerprint::hash_descriptions(schema, &mut h);
    h.finish128()
}

/// Everything a version's rule set is computed from: the schema (all but descriptions),
/// and the environments ([`EnvLoader`]: new-expressions and stored-expressions options,
/// and which expressions the old CRD of an update held).
#[derive(Clone, PartialEq, Eq, Hash)]
struct SetKey {
    schema: u128,
    new: EnvOptions,
    stored: EnvOptions,
    preexisting: Option<u128>,
}

/// Compiled rules and rule sets kept between compiles, keyed by everything their compile
/// results depend on ([`RuleKey`], [`SetKey`]): re-compiling a CRD after an edit compiles
/// only the rules whose inputs changed, and reuses the rule sets of unchanged schemas.
/// Bounded: when it holds more than its capacity, a new compile ([`RuleCache::begin`])
/// keeps only what the previous compile used.
pub struct RuleCache {
    entries: FastMap<RuleKey, CachedRule>,
    sets: FastMap<SetKey, (Rc<RuleSet>, u64)>,
    /// [`Skeleton`]s by the shape fingerprint of their schema.
    skeletons: FastMap<u128, (Rc<Skeleton>, u64)>,
    /// The CRD checks of one schema ([`RuleCompiler::checks`]).
    checks: FastMap<ChecksKey, (KeptChecks, u64)>,
    /// What a schema's `format`s warn of, by its shape and the release
    /// ([`RuleCompiler::format_warnings`]).
    formats: FastMap<(u128, crate::version::KubeVersion), (Rc<Vec<String>>, u64)>,
    /// Subtrees the CRD checks found clean ([`RuleCompiler::take_clean`]).
    clean: crate::schema::clean::Clean,
    generation: u64,
    capacity: usize,
    /// Rules taken from the cache / compiled, since the cache was made.
    pub hits: u64,
    pub misses: u64,
    /// Rule sets taken from the cache.
    pub set_hits: u64,
    /// Made for one compile ([`RuleCache::single_use`]): keeps only what that compile can
    /// reuse itself (rules and rule sets shared between versions).
    single_use: bool,
}

impl Default for RuleCache {
    fn default() -> Self {
        RuleCache::with_capacity(4096)
    }
}

/// Rule sets kept at most (a few CRDs' versions).
const MAX_SETS: usize = 32;

impl RuleCache {
    pub fn with_capacity(capacity: usize) -> RuleCache {
        RuleCache {
            entries: FastMap::default(),
            sets: FastMap::default(),
            skeletons: FastMap::default(),
            checks: FastMap::default(),
            formats: FastMap::default(),
            clean: Default::default(),
            generation: 1,
            capacity,
            hits: 0,
            misses: 0,
            set_hits: 0,
            single_use: false,
        }
    }

    /// A cache for one compile: nothing is kept for later compiles, so results that only a
    /// later compile could reuse are not keyed at all.
    pub fn single_use() -> RuleCache {
        RuleCache {
            single_use: true,
            ..RuleCache::with_capacity(usize::MAX)
        }
    }

    /// Starts a compile: entries it uses count as recent; older ones go when over capacity.
    pub fn begin(&mut self) {
        let last = self.generation;
        if self.entries.len() > self.capacity {
            self.entries.retain(|_, e| e.last_used == last);
            if self.entries.len() > self.capacity {
                self.entries.clear();
            }
        }
        // The least recently used go one at a time: an editor's compiles each add a few,
        // and freeing thirty rule trees at once made every eighth edit take twice as long.
        fn evict<K: Clone + Eq + std::hash::Hash, V>(m: &mut FastMap<K, V>, used: impl Fn(&V) -> u64) {
            // (The npm module, whose compiles are a tool's, not an editor's keystrokes, keeps
            // the smaller code: all but the last compile's go at once.)
            if cfg!(feature = "wasm") {
                if m.len() > MAX_SETS {
                    let last = m.values().map(&used).max().unwrap_or(0);
                    m.retain(|_, v| used(v) == last);
                }
                return;
            }
            while m.len() > MAX_SETS {
                let Some(oldest) = m.iter().min_by_key(|(_, v)| used(v)).map(|(k, _)| k.clone()) else { break };
                m.remove(&oldest);
            }
        }
        evict(&mut self.sets, |(_, used)| *used);
        evict(&mut self.skeletons, |(_, used)| *used);
        evict(&mut self.checks, |(_, used)| *used);
        evict(&mut self.formats, |(_, used)| *used);
        self.generation += 1;
    }

    /// Compiled rules held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Compiles the rule sets of one CRD compile in one loader's environments: each distinct
/// schema (descriptions aside) once, whether the CRD checks or a version asks for it, and
/// only the rules the cache does not already hold.
pub struct RuleCompiler<'c> {
    loader: EnvLoader,
    cache: &'c mut RuleCache,
    /// Fingerprints of the nodes of the schemas compiled, by address: valid while those
    /// schemas are borrowed unchanged, i.e. for the life of the compiler.
    fingerprints: crate::schema::fingerprint::SchemaFingerprints,
    preexisting: Option<u128>,
    /// Fingerprints of the schemas whose CRD checks made no CEL context.
    without_cel_context: FastMap<u128, bool>,
}

impl<'c> RuleCompiler<'c> {
    /// Starts a compile ([`RuleCache::begin`]) in the loader's environments.
    pub fn new(loader: EnvLoader, cache: &'c mut RuleCache) -> RuleCompiler<'c> {
        cache.begin();
        let preexisting = loader.preexisting.as_deref().map(|p| {
            use std::hash::Hash;
            let mut h = crate::schema::fingerprint::Hasher128::new();
            for set in [&p.rules, &p.message_expressions] {
                let mut v: Vec<&String> = set.iter().collect();
                crate::go::sort::sort(&mut v);
                v.hash(&mut h);
            }
            h.finish128()
        });
        RuleCompiler {
            loader,
            cache,
            fingerprints: crate::schema::fingerprint::SchemaFingerprints::new(),
            preexisting,
            without_cel_context: FastMap::default(),
        }
    }

    pub fn loader(&self) -> &EnvLoader {
        &self.loader
    }

    /// The key of the CRD checks of `schema` at `path` (see [`ChecksKey`]); `None` when
    /// the cache lives for one compile only, where no schema is checked twice at one path.
    pub fn checks_key(
        &mut self,
        schema: &JsonSchemaProps,
        status_enabled: bool,
        path: &str,
        kube: crate::version::KubeVersion,
    ) -> Option<ChecksKey> {
        if self.cache.single_use {
            return None;
        }
        Some(ChecksKey {
            schema: self.fingerprints.of(schema),
            status_enabled,
            path: path.to_string(),
            kube,
            new: self.loader.new.clone(),
            stored: self.loader.stored.clone(),
            preexisting: self.preexisting,
        })
    }

    /// The CRD checks kept for `key` (of `schema`), if a compile computed them.
    /// What `collect` finds in `schema` for `kube` (the formats it warns of), kept by the
    /// schema's shape (`format` and `type` are part of it): a version an edit did not reach
    /// is not walked again.
    pub fn format_warnings(
        &mut self,
        schema: &JsonSchemaProps,
        kube: crate::version::KubeVersion,
        collect: impl FnOnce() -> Vec<String>,
    ) -> Rc<Vec<String>> {
        // The npm module keeps no node between compiles (no `schema_decode`): nothing to
        // gain there for its size.
        if self.cache.single_use || cfg!(feature = "wasm") {
            return Rc::new(collect());
        }
        let key = (self.fingerprints.of_shape(schema), kube);
        let generation = self.cache.generation;
        let (found, used) = self.cache.formats.entry(key).or_insert_with(|| (Rc::new(collect()), generation));
        *used = generation;
        found.clone()
    }

    pub fn cached_checks(&mut self, key: &ChecksKey, schema: &JsonSchemaProps) -> Option<SchemaChecks> {
        let generation = self.cache.generation;
        let (kept, used) = self.cache.checks.get_mut(key)?;
        if kept.descriptions.is_some_and(|d| d != descriptions_hash(schema)) {
            return None;
        }
        *used = generation;
        Some(kept.checks.clone())
    }

    /// Keeps the CRD checks of `key` (of `schema`).
    pub fn store_checks(&mut self, key: ChecksKey, schema: &JsonSchemaProps, checks: &SchemaChecks) {
        let generation = self.cache.generation;
        let descriptions = prints_structures(checks).then(|| descriptions_hash(schema));
        self.cache.checks.insert(
            key,
            (KeptChecks { checks: checks.clone(), descriptions }, generation),
        );
    }

    /// The subtrees the CRD checks found clean in earlier compiles
    /// ([`crate::schema::clean`]), taken for one schema's checks and given back after
    /// ([`RuleCompiler::put_clean`]), with what the checks' findings depend on besides
    /// the schema (the release and the environments the rules compile in). `None` when
    /// the cache lives for one compile, in the npm module (its size is budgeted, and it
    /// keeps no node between compiles), and in the cache's first compile: a tool that
    /// compiles a CRD once does not pay for keying its nodes (an editor's first edit then
    /// keys them, and the edits after it skip what is clean).
    pub(crate) fn take_clean(&mut self, kube: crate::version::KubeVersion) -> crate::schema::clean::Memo {
        // `begin` made the first compile's generation 2.
        if self.cache.single_use || cfg!(feature = "wasm") || self.cache.generation <= 2 {
            return None;
        }
        use std::hash::Hash;
        let mut h = crate::schema::fingerprint::Hasher128::new();
        (kube, &self.loader.new, &self.loader.stored, self.preexisting).hash(&mut h);
        Some((std::mem::take(&mut self.cache.clean), h.finish128()))
    }

    /// Gives back what [`RuleCompiler::take_clean`] took, with what the checks added.
    pub(crate) fn put_clean(&mut self, clean: crate::schema::clean::Memo) {
        if let Some((c, _)) = clean {
            self.cache.clean = c;
        }
    }

    /// Records that the CRD checks of `schema` found it without a CEL context (see
    /// [`SchemaChecks::cel_context`]).
    pub fn note_without_cel_context(&mut self, schema: &JsonSchemaProps) {
        let fp = self.fingerprints.of(schema);
        self.without_cel_context.insert(fp, true);
    }

    /// Whether the CRD checks compiled the rules of `schema` (a schema the checks did not
    /// see, e.g. with the checks skipped, counts as compiled).
    pub fn has_cel_context(&mut self, schema: &JsonSchemaProps) -> bool {
        let fp = self.fingerprints.of(schema);
        !self.without_cel_context.contains_key(&fp)
    }

    /// The rule set of a version's schema ([`compile_rules_with`] in the loader's
    /// environments).
    pub fn rule_set(&mut self, schema: &JsonSchemaProps) -> Rc<RuleSet> {
        let key = SetKey {
            schema: self.fingerprints.of(schema),
            new: self.loader.new.clone(),
            stored: self.loader.stored.clone(),
            preexisting: self.preexisting,
        };
        let generation = self.cache.generation;
        if let Some((set, used)) = self.cache.sets.get_mut(&key) {
            *used = generation;
            self.cache.set_hits += 1;
            return set.clone();
        }
        let fingerprints = std::mem::take(&mut self.fingerprints);
        let (set, fingerprints) =
            compile_set(schema, &self.loader, Some(&mut *self.cache), fingerprints, Root::Version);
        self.fingerprints = fingerprints;
        let set = Rc::new(set);
        self.cache.sets.insert(key, (set.clone(), generation));
        set
    }

    /// The rule set objects are validated with: every rule and messageExpression of the
    /// schema compiled in the release's stored-expressions environment, whatever the CRD
    /// write compiled it in. apiextensions' `validator` (schema/cel/validation.go) compiles
    /// with `StoredExpressionsEnvLoader()`: a library the release has but new rules may not
    /// use yet (`isIP()` on 1.30, `format.dns1123Subdomain()` on 1.31) runs on objects.
    pub fn stored_rule_set(&mut self, schema: &JsonSchemaProps) -> Rc<RuleSet> {
        let stored = EnvLoader::single(&self.loader.stored);
        let loader = std::mem::replace(&mut self.loader, stored);
        let preexisting = self.preexisting.take();
        let set = self.rule_set(schema);
        self.loader = loader;
        self.preexisting = preexisting;
        set
    }
}

/// Compiles (or takes from the cache) one rule at node `s`, with its costs.
#[allow(clippy::too_many_arguments)]
fn compile_at(
    r: &ValidationRule,
    node_ty: &Type,
    self_fingerprint: u128,
    s: &JsonSchemaProps,
    ancestors: &[&JsonSchemaProps],
    resource_root: bool,
    ctx: &mut BuildCtx,
) -> CompiledRule {
    let estimated =
        |max_cost: u64| crate::cel::schema_sizes::rule_estimated_cost(max_cost, ancestors, s, resource_root);
    let key = match ctx.cache.is_some() {
        true => Some(RuleKey {
            rule: r.clone(),
            self_type: self_fingerprint,
            rule_env: ctx.loader.rule_env(&r.rule).clone(),
            message_env: ctx
                .loader
                .message_expression_env(&r.message_expression)
                .clone(),
            resource_root,
            node: ctx.fingerprints.of_shape(s),
        }),
        false => None,
    };
    if let (Some(cache), Some(key)) = (ctx.cache.as_deref_mut(), &key) {
        let generation = cache.generation;
        if let Some(e) = cache.entries.get_mut(key) {
            e.last_used = generation;
            cache.hits += 1;
            let mut c = e.rule.clone();
            c.cost = e
                .cost
                .map(|(max_cost, max_cardinality)| crate::cel::schema_sizes::RuleCost {
                    max_cost,
                    max_cardinality,
                    estimated_cost: estimated(max_cost),
                });
            return c;
        }
    }
    let mut c = compile_rule_with(r, node_ty, ctx.loader, s);
    if let Some(p) = &c.program {
        c.cost = Some(crate::cel::schema_sizes::rule_cost(
            &p.checked,
            s,
            ancestors,
            resource_root,
        ));
    }
    if let Some(m) = &c.message_program {
        c.message_cost =
            Some(crate::cel::schema_sizes::rule_cost(&m.checked, s, ancestors, resource_root).max_cost);
    }
    if let (Some(cache), Some(key)) = (ctx.cache.as_deref_mut(), key) {
        cache.misses += 1;
        let cost = c.cost.map(|x| (x.max_cost, x.max_cardinality));
        let entry = CachedRule {
            rule: c.clone(),
            cost,
            last_used: cache.generation,
        };
        cache.entries.insert(key, entry);
    }
    c
}

/// Walks the schema as written (costs are computed on it), with the node's CEL type.
fn build_tree<'s>(
    s: &'s JsonSchemaProps,
    ty: Option<Type>,
    path: &str,
    root: bool,
    ancestors: &mut Vec<&'s JsonSchemaProps>,
    ctx: &mut BuildCtx,
    depth: usize,
) -> RuleTree {
    let resource_root = root || s.x_embedded_resource;
    let mut t = RuleTree {
        is_resource_root: resource_root,
        ..Default::default()
    };
    if depth > MAX_SCHEMA_DEPTH || !ctx.has_rules(s, depth) {
        return t;
    }
    if !s.x_validations.is_empty() {
        // The node's rules see its type named from the node (`prepareEnvSet`).
        let (node_ty, self_fingerprint) = ctx.self_type(ty.as_ref(), depth);
        t.rules = s
            .x_validations
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut c = compile_at(r, &node_ty, self_fingerprint, s, ancestors, resource_root, ctx);
                c.schema_path = format!("{}.x-kubernetes-validations[{}]", path, i);
                c
            })
            .collect();
    }
    ancestors.push(s);
    for (k, p) in &s.properties {
        if !ctx.has_rules(p, depth + 1) {
            continue;
        }
        let child_ty = match escape(k, false) {
            Some(esc) => match &ty {
                Some(Type::Object(o)) => o.field(&esc).cloned(),
                Some(Type::Dyn) => Some(Type::Dyn),
                _ => None,
            },
            // Unescapable names are not fields of the parent type: type them on their own.
            None => decl_type(
                &cel_schema(p, p.x_embedded_resource),
                crate::cel::types::SELF_TYPE_NAME,
            ),
        };
        let child = build_tree(
            p,
            child_ty,
            &format!("{}.properties[{}]", path, k),
            false,
            ancestors,
            ctx,
            depth + 1,
        );
        if !child.is_empty() {
            t.properties.insert(k.clone(), child);
        }
    }
    if let Some(i) = s.items_schema() {
        let child_ty = match &ty {
            Some(Type::List(e)) => Some((**e).clone()),
            _ => None,
        };
        let child = build_tree(
            i,
            child_ty,
            &format!("{}.items", path),
            false,
            ancestors,
            ctx,
            depth + 1,
        );
        if !child.is_empty() {
            t.items = Some(Box::new(child));
        }
    }
    if let Some(SchemaOrBool::Schema(a)) = &s.additional_properties {
        let child_ty = match &ty {
            Some(Type::Map(_, v)) => Some((**v).clone()),
            _ => None,
        };
        let child = build_tree(
            a,
            child_ty,
            &format!("{}.additionalProperties", path),
            false,
            ancestors,
            ctx,
            depth + 1,
        );
        if !child.is_empty() {
            t.additional = Some(Box::new(child));
        }
    }
    ancestors.pop();
    t
}

impl RuleTree {
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
            && self.properties.is_empty()
            && self.items.is_none()
            && self.additional.is_none()
    }
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


/// A compiled rule's static facts as the apiserver's CRD checks know them: where it is,
/// whether it is a transition rule, and its costs (`RuleCost` of `cel.Compile`, the
/// estimated cost with the ancestors' cardinality multiplied in). A rule that does not
/// compile has zero costs, as the apiserver counts it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleSummary {
    /// `openAPIV3Schema.properties[spec].x-kubernetes-validations[0]`.
    pub schema_path: String,
    pub rule: String,
    pub uses_old_self: bool,
    pub max_cost: u64,
    pub max_cardinality: u64,
    pub estimated_cost: u64,
    /// The static maximum cost of the rule's messageExpression, if it has one that compiled.
    pub message_cost: Option<u64>,
}

impl RuleSet {
    /// Every rule of the set, parents before children ([`RuleTree::walk`]).
    pub fn summaries(&self) -> Vec<RuleSummary> {
        let mut out = Vec::new();
        self.tree.walk(&mut |c| {
            out.push(RuleSummary {
                schema_path: c.schema_path.clone(),
                rule: c.rule.rule.clone(),
                uses_old_self: c.uses_old_self,
                max_cost: c.cost.map(|x| x.max_cost).unwrap_or(0),
                max_cardinality: c.cost.map(|x| x.max_cardinality).unwrap_or(0),
                estimated_cost: c.cost.map(|x| x.estimated_cost).unwrap_or(0),
                message_cost: c.message_cost,
            })
        });
        out
    }
}
