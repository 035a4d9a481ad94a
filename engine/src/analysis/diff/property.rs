//! Property checks, as crdify runs them: both schemas are flattened into
//! `property path → schema node` (`^`, `^.spec`, `^.spec.list.items`,
//! `^.spec.map.additionalProperties`, `^.spec.x.allOf[0]`…); for every path of the old
//! schema whose node differs (children left out) from the new one — or that the new one no
//! longer has, compared then with an empty node — each check compares its keywords and
//! marks them handled; whatever differs after all checks ran is `unhandled`.

use crate::analysis::diff::config::{EnumAddition, LimitCheck, PropertyChecks};
use crate::analysis::diff::config::Enforcement;
use crate::analysis::diff::finding::{severity, PropertyFinding, Ratcheting};
use crate::analysis::diff::xvalidations::compare_rules;
use crate::go::fmt::format_float_v;
use crate::go::json::json_marshal;
use crate::go::strconv::quote;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One step from a schema node to a child, as crdify's schema walker takes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Property(String),
    Items,
    ItemsAt(usize),
    AllOf(usize),
    AnyOf(usize),
    OneOf(usize),
    Not,
    AdditionalProperties,
    PatternProperties(String),
    AdditionalItems,
    Definitions(String),
    Dependencies(String),
}

impl Step {
    /// Steps CEL rules can live under (structural positions).
    pub fn is_structural(&self) -> bool {
        matches!(
            self,
            Step::Property(_) | Step::Items | Step::AdditionalProperties
        )
    }
}

/// A flattened node: the steps from the root and the node.
pub struct Node<'a> {
    pub steps: Vec<Step>,
    pub schema: &'a Value,
}

/// `FlattenCRDVersion`: every node of a schema by its crdify path. Later nodes win on a
/// repeated path, as in crdify's map.
pub fn flatten(schema: &Value) -> BTreeMap<String, Node<'_>> {
    let mut out = BTreeMap::new();
    if schema.is_object() {
        walk(schema, "^".to_string(), Vec::new(), &mut out, 0);
    }
    out
}

const MAX_DEPTH: usize = 600;

fn walk<'a>(
    s: &'a Value,
    path: String,
    steps: Vec<Step>,
    out: &mut BTreeMap<String, Node<'a>>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let Some(m) = s.as_object() else { return };
    out.insert(
        path.clone(),
        Node {
            steps: steps.clone(),
            schema: s,
        },
    );
    let mut go = |child: &'a Value, p: String, st: Step| {
        if child.is_object() {
            let mut steps = steps.clone();
            steps.push(st);
            walk(child, p, steps, out, depth + 1);
        }
    };
    match m.get("items") {
        Some(Value::Array(a)) => {
            for (i, c) in a.iter().enumerate() {
                go(c, format!("{}.items[{}]", path, i), Step::ItemsAt(i));
            }
        }
        Some(c) => go(c, format!("{}.items", path), Step::Items),
        None => {}
    }
    for (key, mk) in [
        ("allOf", Step::AllOf as fn(usize) -> Step),
        ("anyOf", Step::AnyOf),
        ("oneOf", Step::OneOf),
    ] {
        if let Some(Value::Array(a)) = m.get(key) {
            for (i, c) in a.iter().enumerate() {
                go(c, format!("{}.{}[{}]", path, key, i), mk(i));
            }
        }
    }
    if let Some(c) = m.get("not") {
        go(c, format!("{}.not", path), Step::Not);
    }
    if let Some(Value::Object(props)) = m.get("properties") {
        for (k, c) in props {
            go(c, format!("{}.{}", path, k), Step::Property(k.clone()));
        }
    }
    if let Some(c) = m.get("additionalProperties") {
        go(
            c,
            format!("{}.additionalProperties", path),
            Step::AdditionalProperties,
        );
    }
    if let Some(Value::Object(pp)) = m.get("patternProperties") {
        for (k, c) in pp {
            go(
                c,
                format!("{}.patternProperties[{}]", path, k),
                Step::PatternProperties(k.clone()),
            );
        }
    }
    if let Some(c) = m.get("additionalItems") {
        go(
            c,
            format!("{}.additionalItems", path),
            Step::AdditionalItems,
        );
    }
    if let Some(Value::Object(d)) = m.get("definitions") {
        for (k, c) in d {
            go(
                c,
                format!("{}.definitions[{}]", path, k),
                Step::Definitions(k.clone()),
            );
        }
    }
    if let Some(Value::Object(d)) = m.get("dependencies") {
        for (k, c) in d {
            go(
                c,
                format!("{}.dependencies[{}]", path, k),
                Step::Dependencies(k.clone()),
            );
        }
    }
}

/// How a keyword compares when absent: Go's zero values of `JSONSchemaProps` fields.
#[derive(Clone, Copy, PartialEq)]
enum Zero {
    /// `string`: "" is absent.
    Str,
    /// `bool`: false is absent.
    Bool,
    /// Pointers: only null is absent.
    Ptr,
    /// Slices: empty is absent.
    List,
}

/// The keywords of a node itself (children excluded), with the Go field names go-cmp
/// prints in crdify's unhandled diffs.
const LOCAL_KEYS: [(&str, &str, Zero); 33] = [
    ("id", "ID", Zero::Str),
    ("$schema", "Schema", Zero::Str),
    ("$ref", "Ref", Zero::Ptr),
    ("description", "Description", Zero::Str),
    ("type", "Type", Zero::Str),
    ("format", "Format", Zero::Str),
    ("title", "Title", Zero::Str),
    ("default", "Default", Zero::Ptr),
    ("maximum", "Maximum", Zero::Ptr),
    ("exclusiveMaximum", "ExclusiveMaximum", Zero::Bool),
    ("minimum", "Minimum", Zero::Ptr),
    ("exclusiveMinimum", "ExclusiveMinimum", Zero::Bool),
    ("maxLength", "MaxLength", Zero::Ptr),
    ("minLength", "MinLength", Zero::Ptr),
    ("pattern", "Pattern", Zero::Str),
    ("maxItems", "MaxItems", Zero::Ptr),
    ("minItems", "MinItems", Zero::Ptr),
    ("uniqueItems", "UniqueItems", Zero::Bool),
    ("multipleOf", "MultipleOf", Zero::Ptr),
    ("enum", "Enum", Zero::List),
    ("maxProperties", "MaxProperties", Zero::Ptr),
    ("minProperties", "MinProperties", Zero::Ptr),
    ("required", "Required", Zero::List),
    ("externalDocs", "ExternalDocs", Zero::Ptr),
    ("example", "Example", Zero::Ptr),
    ("nullable", "Nullable", Zero::Bool),
    (
        "x-kubernetes-preserve-unknown-fields",
        "XPreserveUnknownFields",
        Zero::Ptr,
    ),
    (
        "x-kubernetes-embedded-resource",
        "XEmbeddedResource",
        Zero::Bool,
    ),
    ("x-kubernetes-int-or-string", "XIntOrString", Zero::Bool),
    ("x-kubernetes-list-map-keys", "XListMapKeys", Zero::List),
    ("x-kubernetes-list-type", "XListType", Zero::Ptr),
    ("x-kubernetes-map-type", "XMapType", Zero::Ptr),
    ("x-kubernetes-validations", "XValidations", Zero::List),
];

/// `DropChildrenPropertiesFromJSONSchema` and Go's zero values: the node's own keywords,
/// absent ones left out.
pub fn local(v: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    let Some(m) = v.as_object() else { return out };
    for (k, _, zero) in LOCAL_KEYS.iter() {
        let Some(x) = m.get(*k) else { continue };
        let absent = match (zero, x) {
            (_, Value::Null) => true,
            (Zero::Str, Value::String(s)) => s.is_empty(),
            (Zero::Bool, Value::Bool(b)) => !b,
            (Zero::List, Value::Array(a)) => a.is_empty(),
            _ => false,
        };
        if !absent {
            out.insert(k.to_string(), x.clone());
        }
    }
    out
}

/// Collects one check's messages under its enforcement.
struct Out<'o> {
    list: &'o mut Vec<PropertyFinding>,
}

impl Out<'_> {
    fn push(
        &mut self,
        check: &'static str,
        e: Enforcement,
        message: String,
        ratcheting: Ratcheting,
    ) {
        if let Some(sev) = severity(e) {
            self.list.push(PropertyFinding {
                check,
                message,
                severity: sev,
                ratcheting,
                rule: None,
            });
        }
    }
}

/// `CompareProperties`: every enabled check in crdify's order, then `unhandled`.
pub fn compare_properties(
    old: &Map<String, Value>,
    new: &Map<String, Value>,
    cfg: &PropertyChecks,
    path: &str,
) -> Vec<PropertyFinding> {
    let mut a = old.clone();
    let mut b = new.clone();
    let mut list = Vec::new();
    let mut out = Out { list: &mut list };
    if cfg.default.runs() {
        default_check(&mut a, &mut b, cfg, &mut out);
    }
    if cfg.enum_check.runs() {
        enum_check(&mut a, &mut b, cfg, &mut out);
    }
    for (check, key, lc, is_max, float) in [
        ("maximum", "maximum", cfg.maximum, true, true),
        ("maxItems", "maxItems", cfg.max_items, true, false),
        ("maxLength", "maxLength", cfg.max_length, true, false),
        (
            "maxProperties",
            "maxProperties",
            cfg.max_properties,
            true,
            false,
        ),
        ("minimum", "minimum", cfg.minimum, false, true),
        ("minItems", "minItems", cfg.min_items, false, false),
        ("minLength", "minLength", cfg.min_length, false, false),
        (
            "minProperties",
            "minProperties",
            cfg.min_properties,
            false,
            false,
        ),
    ] {
        if lc.enforcement.runs() {
            limit_check(&mut a, &mut b, check, key, lc, is_max, float, &mut out);
        }
    }
    if cfg.required.runs() {
        required_check(&mut a, &mut b, cfg, &mut out);
    }
    if cfg.type_check.runs() {
        type_check(&mut a, &mut b, cfg, &mut out);
    }
    if cfg.description.runs() {
        let (x, y) = (
            take_str(&mut a, "description"),
            take_str(&mut b, "description"),
        );
        if x != y {
            out.push(
                "description",
                cfg.description,
                format!("description changed : {} -> {}", quote(&x), quote(&y)),
                Ratcheting::NotApplicable,
            );
        }
    }
    if cfg.nullable.runs() {
        let (x, y) = (take_bool(&mut a, "nullable"), take_bool(&mut b, "nullable"));
        if !x && y && cfg.nullable_to_nullable {
            out.push(
                "nullable",
                cfg.nullable,
                "property changed from non-nullable to nullable".into(),
                Ratcheting::NotApplicable,
            );
        } else if x && !y {
            out.push(
                "nullable",
                cfg.nullable,
                "property changed from nullable to non-nullable".into(),
                Ratcheting::Softened,
            );
        }
    }
    if cfg.pattern.runs() {
        pattern_check(&mut a, &mut b, cfg, &mut out);
    }
    if cfg.xvalidations.runs() {
        let x = a.remove("x-kubernetes-validations");
        let y = b.remove("x-kubernetes-validations");
        if x != y {
            for f in compare_rules(x.as_ref(), y.as_ref(), cfg) {
                out.list.push(f);
            }
        }
    }
    if cfg.unhandled.runs() && a != b {
        out.push(
            "unhandled",
            cfg.unhandled,
            unhandled_message(&a, &b),
            unhandled_ratcheting(&a, &b),
        );
    }
    // Validation inside allOf/anyOf/oneOf/not is never ratcheted.
    if in_junctor(path) {
        for f in list.iter_mut() {
            if f.ratcheting == Ratcheting::Softened {
                f.ratcheting = Ratcheting::NotSoftened;
            }
        }
    }
    list
}

fn in_junctor(path: &str) -> bool {
    path.contains(".allOf[")
        || path.contains(".anyOf[")
        || path.contains(".oneOf[")
        || path.split('.').any(|s| s == "not")
}

fn take_str(m: &mut Map<String, Value>, k: &str) -> String {
    match m.remove(k) {
        Some(Value::String(s)) => s,
        Some(other) => json_marshal(&other),
        None => String::new(),
    }
}

fn take_bool(m: &mut Map<String, Value>, k: &str) -> bool {
    matches!(m.remove(k), Some(Value::Bool(true)))
}

/// The raw JSON of a value as apiextensions `JSON.Raw` holds it after sigs.k8s.io/yaml.
fn raw(v: &Value) -> String {
    json_marshal(v)
}

fn default_check(
    a: &mut Map<String, Value>,
    b: &mut Map<String, Value>,
    cfg: &PropertyChecks,
    out: &mut Out<'_>,
) {
    let x = a.remove("default");
    let y = b.remove("default");
    let msg = match (&x, &y) {
        (None, Some(n)) if cfg.default_addition => Some(format!(
            "default added when there was none previously : {}",
            quote(&raw(n))
        )),
        (Some(o), None) if cfg.default_removal => {
            Some(format!("default value removed : {}", quote(&raw(o))))
        }
        (Some(o), Some(n)) if o != n && cfg.default_change => Some(format!(
            "default value changed : {} -> {}",
            quote(&raw(o)),
            quote(&raw(n))
        )),
        _ => None,
    };
    if let Some(m) = msg {
        out.push("default", cfg.default, m, Ratcheting::NotApplicable);
    }
}

/// Go's `%v` of a sorted `[]string`.
fn go_list(items: &[String]) -> String {
    format!("[{}]", items.join(" "))
}

fn enum_check(
    a: &mut Map<String, Value>,
    b: &mut Map<String, Value>,
    cfg: &PropertyChecks,
    out: &mut Out<'_>,
) {
    let set = |v: Option<Value>| -> Vec<String> {
        let mut s: Vec<String> = match v {
            Some(Value::Array(items)) => items.iter().map(raw).collect(),
            _ => Vec::new(),
        };
        crate::go::sort::sort(&mut s);
        s.dedup();
        s
    };
    let old = set(a.remove("enum"));
    let new = set(b.remove("enum"));
    let removed: Vec<String> = old.iter().filter(|x| !new.contains(x)).cloned().collect();
    let added: Vec<String> = new.iter().filter(|x| !old.contains(x)).cloned().collect();
    let (msg, ratchet) =
        if old.is_empty() && !new.is_empty() && cfg.enum_addition != EnumAddition::None {
            (
                format!(
                    "enum constraint added when there was none previously : {}",
                    go_list(&new)
                ),
                Ratcheting::Softened,
            )
        } else if !removed.is_empty() && cfg.enum_removal {
            (
                format!("allowed enum values removed : {}", go_list(&removed)),
                Ratcheting::Softened,
            )
        } else if !added.is_empty() && cfg.enum_addition == EnumAddition::Strict {
            (
                format!("allowed enum values added : {}", go_list(&added)),
                Ratcheting::NotApplicable,
            )
        } else {
            return;
        };
    out.push("enum", cfg.enum_check, msg, ratchet);
}

fn number(v: &Value) -> Option<f64> {
    v.as_f64()
}

fn show_number(v: &Value, float: bool) -> String {
    match v {
        Value::Number(n) if float => format_float_v(n.as_f64().unwrap_or(0.0)),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.to_string(),
            (_, Some(u)) => u.to_string(),
            _ => format_float_v(n.as_f64().unwrap_or(0.0)),
        },
        other => json_marshal(other),
    }
}

#[allow(clippy::too_many_arguments)]
fn limit_check(
    a: &mut Map<String, Value>,
    b: &mut Map<String, Value>,
    check: &'static str,
    key: &str,
    lc: LimitCheck,
    is_max: bool,
    float: bool,
    out: &mut Out<'_>,
) {
    let x = a.remove(key);
    let y = b.remove(key);
    let word = if is_max { "maximum" } else { "minimum" };
    let msg = match (&x, &y) {
        (None, Some(n)) if lc.addition => Some(format!(
            "{} constraint added when there was none previously : {}",
            word,
            show_number(n, float)
        )),
        (Some(o), Some(n)) if lc.tightening => {
            let (Some(of), Some(nf)) = (number(o), number(n)) else {
                return;
            };
            let tighter = if is_max { nf < of } else { nf > of };
            tighter.then(|| {
                format!(
                    "{} {} : {} -> {}",
                    word,
                    if is_max { "decreased" } else { "increased" },
                    show_number(o, float),
                    show_number(n, float)
                )
            })
        }
        _ => None,
    };
    if let Some(m) = msg {
        out.push(check, lc.enforcement, m, Ratcheting::Softened);
    }
}

fn required_check(
    a: &mut Map<String, Value>,
    b: &mut Map<String, Value>,
    cfg: &PropertyChecks,
    out: &mut Out<'_>,
) {
    let names = |v: Option<Value>| -> Vec<String> {
        match v {
            Some(Value::Array(items)) => items
                .iter()
                .map(|x| x.as_str().map(str::to_string).unwrap_or_else(|| raw(x)))
                .collect(),
            _ => Vec::new(),
        }
    };
    let old = names(a.remove("required"));
    let new = names(b.remove("required"));
    let mut added: Vec<String> = new.into_iter().filter(|n| !old.contains(n)).collect();
    crate::go::sort::sort(&mut added);
    added.dedup();
    if !added.is_empty() && cfg.required_new {
        out.push(
            "required",
            cfg.required,
            format!("new required fields: {}", go_list(&added)),
            Ratcheting::NotSoftened,
        );
    }
}

fn type_check(
    a: &mut Map<String, Value>,
    b: &mut Map<String, Value>,
    cfg: &PropertyChecks,
    out: &mut Out<'_>,
) {
    let x = take_str(a, "type");
    let y = take_str(b, "type");
    if x != y && cfg.type_change {
        out.push(
            "type",
            cfg.type_check,
            format!("type changed : {} -> {}", quote(&x), quote(&y)),
            Ratcheting::Softened,
        );
    }
}

fn pattern_check(
    a: &mut Map<String, Value>,
    b: &mut Map<String, Value>,
    cfg: &PropertyChecks,
    out: &mut Out<'_>,
) {
    let x = take_str(a, "pattern");
    let y = take_str(b, "pattern");
    let (what, r) = if x == y {
        return;
    } else if x.is_empty() {
        ("pattern added", Ratcheting::Softened)
    } else if y.is_empty() {
        if !cfg.pattern_removal {
            return;
        }
        ("pattern removed", Ratcheting::NotApplicable)
    } else {
        ("pattern changed", Ratcheting::Softened)
    };
    out.push(
        "pattern",
        cfg.pattern,
        format!("{} : {} -> {}", what, quote(&x), quote(&y)),
        r,
    );
}

/// `unhandled changes found :` and a go-cmp-like listing of the keywords that differ.
fn unhandled_message(a: &Map<String, Value>, b: &Map<String, Value>) -> String {
    let mut lines = vec!["unhandled changes found :".to_string()];
    for (k, go, zero) in LOCAL_KEYS.iter() {
        let (x, y) = (a.get(*k), b.get(*k));
        if x == y {
            continue;
        }
        let show = |v: Option<&Value>| -> String {
            match (v, zero) {
                (Some(Value::String(s)), Zero::Str) => quote(s),
                (Some(v), Zero::Ptr) if v.is_string() => {
                    format!("&{}", quote(v.as_str().unwrap_or("")))
                }
                (Some(v), _) => json_marshal(v),
                (None, Zero::Str) => "\"\"".into(),
                (None, Zero::Bool) => "false".into(),
                (None, _) => "nil".into(),
            }
        };
        lines.push(format!("- {}: {}", go, show(x)));
        lines.push(format!("+ {}: {}", go, show(y)));
    }
    lines.join("\n")
}

/// Keywords whose tightening ratcheting softens, and those it never does.
fn unhandled_ratcheting(a: &Map<String, Value>, b: &Map<String, Value>) -> Ratcheting {
    let changed = |k: &str| a.get(k) != b.get(k);
    if [
        "x-kubernetes-list-type",
        "x-kubernetes-list-map-keys",
        "x-kubernetes-map-type",
    ]
    .iter()
    .any(|k| changed(k))
    {
        Ratcheting::NotSoftened
    } else if [
        "format",
        "multipleOf",
        "exclusiveMaximum",
        "exclusiveMinimum",
        "uniqueItems",
    ]
    .iter()
    .any(|k| changed(k))
    {
        Ratcheting::Softened
    } else {
        Ratcheting::NotApplicable
    }
}

/// `CompareVersions`: the findings of every differing property, by path.
pub fn compare_schemas(
    old: &Value,
    new: &Value,
    cfg: &PropertyChecks,
) -> Vec<(String, Vec<Step>, PropertyFinding)> {
    let of = flatten(old);
    let nf = flatten(new);
    let mut out = Vec::new();
    for (path, node) in &of {
        let a = local(node.schema);
        let b = nf.get(path).map(|n| local(n.schema)).unwrap_or_default();
        if nf.contains_key(path) && a == b {
            continue;
        }
        for f in compare_properties(&a, &b, cfg, path) {
            out.push((path.clone(), node.steps.clone(), f));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::field_reassign_with_default)]
    use super::*;
    use serde_json::json;

    fn run(old: Value, new: Value) -> Vec<(String, &'static str, String)> {
        run_with(old, new, &PropertyChecks::default())
    }

    fn run_with(
        old: Value,
        new: Value,
        cfg: &PropertyChecks,
    ) -> Vec<(String, &'static str, String)> {
        compare_schemas(&old, &new, cfg)
            .into_iter()
            .map(|(p, _, f)| (p, f.check, f.message))
            .collect()
    }

    fn one(old: Value, new: Value) -> (String, &'static str, String) {
        let r = run(old, new);
        assert_eq!(r.len(), 1, "{:?}", r);
        r.into_iter().next().unwrap()
    }

    fn spec(p: Value) -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": p}}})
    }

    #[test]
    fn flatten_uses_crdify_paths() {
        let s = json!({"type":"object","properties":{"spec":{"type":"object","properties":{
            "list":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}}},
            "map":{"type":"object","additionalProperties":{"type":"string"}},
            "x":{"allOf":[{"type":"string"}],"not":{"type":"integer"}}}}}});
        let keys: Vec<String> = flatten(&s).into_keys().collect();
        assert_eq!(
            keys,
            vec![
                "^",
                "^.spec",
                "^.spec.list",
                "^.spec.list.items",
                "^.spec.list.items.name",
                "^.spec.map",
                "^.spec.map.additionalProperties",
                "^.spec.x",
                "^.spec.x.allOf[0]",
                "^.spec.x.not"
            ]
        );
    }

    #[test]
    fn enum_messages() {
        let o = spec(json!({"mode": {"type": "string", "enum": ["A", "B"]}}));
        let n = spec(json!({"mode": {"type": "string", "enum": ["A"]}}));
        assert_eq!(
            one(o.clone(), n),
            (
                "^.spec.mode".into(),
                "enum",
                "allowed enum values removed : [\"B\"]".into()
            )
        );
        let n = spec(json!({"mode": {"type": "string", "enum": ["A", "B", "C"]}}));
        assert_eq!(one(o, n).2, "allowed enum values added : [\"C\"]");
        let o = spec(json!({"mode": {"type": "string"}}));
        let n = spec(json!({"mode": {"type": "string", "enum": ["B", "A"]}}));
        assert_eq!(
            one(o, n).2,
            "enum constraint added when there was none previously : [\"A\" \"B\"]"
        );
    }

    #[test]
    fn enum_enforcement_options() {
        let o = spec(json!({"m": {"type": "string", "enum": ["A", "B"]}}));
        let added = spec(json!({"m": {"type": "string", "enum": ["A", "B", "C"]}}));
        let removed = spec(json!({"m": {"type": "string", "enum": ["A"]}}));
        let unconstrained = spec(json!({"m": {"type": "string"}}));
        let mut c = PropertyChecks::default();
        c.enum_addition = EnumAddition::IfPreviouslyConstrained;
        assert!(run_with(o.clone(), added.clone(), &c).is_empty());
        assert_eq!(run_with(unconstrained.clone(), o.clone(), &c).len(), 1);
        c.enum_addition = EnumAddition::None;
        assert!(run_with(unconstrained, o.clone(), &c).is_empty());
        c.enum_removal = false;
        assert!(run_with(o.clone(), removed.clone(), &c).is_empty());
        c.enum_check = Enforcement::Disabled;
        let r = run_with(o, removed, &c);
        assert_eq!(r.len(), 1);
        assert_eq!(
            r[0].1, "unhandled",
            "a disabled check leaves its changes unhandled"
        );
    }

    #[test]
    fn default_messages_and_options() {
        let o = spec(json!({"m": {"type": "string", "default": "a"}}));
        let n = spec(json!({"m": {"type": "string", "default": "b"}}));
        assert_eq!(
            one(o.clone(), n.clone()).2,
            r#"default value changed : "\"a\"" -> "\"b\"""#
        );
        let none = spec(json!({"m": {"type": "string"}}));
        assert_eq!(
            one(o.clone(), none.clone()).2,
            r#"default value removed : "\"a\"""#
        );
        assert_eq!(
            one(none.clone(), o.clone()).2,
            r#"default added when there was none previously : "\"a\"""#
        );
        let mut c = PropertyChecks::default();
        c.default_change = false;
        c.default_removal = false;
        c.default_addition = false;
        assert!(run_with(o.clone(), n, &c).is_empty());
        assert!(run_with(o.clone(), none.clone(), &c).is_empty());
        assert!(run_with(none, o, &c).is_empty());
    }

    #[test]
    fn max_and_min_messages_and_options() {
        let o = spec(
            json!({"n": {"type": "integer", "maximum": 20, "minimum": 1}, "s": {"type": "string"}}),
        );
        let n = spec(
            json!({"n": {"type": "integer", "maximum": 10, "minimum": 1000000}, "s": {"type": "string", "maxLength": 5}}),
        );
        let r = run(o.clone(), n.clone());
        assert_eq!(
            r,
            vec![
                (
                    "^.spec.n".into(),
                    "maximum",
                    "maximum decreased : 20 -> 10".into()
                ),
                (
                    "^.spec.n".into(),
                    "minimum",
                    "minimum increased : 1 -> 1e+06".into()
                ),
                (
                    "^.spec.s".into(),
                    "maxLength",
                    "maximum constraint added when there was none previously : 5".into()
                ),
            ]
        );
        let mut c = PropertyChecks::default();
        c.maximum.tightening = false;
        c.minimum.tightening = false;
        c.max_length.addition = false;
        assert!(run_with(o.clone(), n.clone(), &c).is_empty());
        // Widening is fine.
        assert!(run(n, o)
            .into_iter()
            .all(|(_, c, _)| c != "maximum" && c != "minimum"));
        for (k, word) in [
            ("maxItems", "maximum"),
            ("maxProperties", "maximum"),
            ("minItems", "minimum"),
            ("minLength", "minimum"),
            ("minProperties", "minimum"),
        ] {
            let o = spec(json!({"x": {"type": "array"}}));
            let n = spec(json!({"x": {"type": "array", k: 3}}));
            assert_eq!(
                one(o, n),
                (
                    "^.spec.x".into(),
                    match k {
                        "maxItems" => "maxItems",
                        "maxProperties" => "maxProperties",
                        "minItems" => "minItems",
                        "minLength" => "minLength",
                        _ => "minProperties",
                    },
                    format!(
                        "{} constraint added when there was none previously : 3",
                        word
                    )
                )
            );
        }
    }

    #[test]
    fn required_type_description_pattern_nullable() {
        let o = json!({"type": "object", "properties": {"spec": {"type": "object", "description": "old", "properties": {
            "a": {"type": "string", "pattern": "^a$", "nullable": true}, "b": {"type": "string"}}}}});
        let n = json!({"type": "object", "properties": {"spec": {"type": "object", "description": "new", "required": ["b", "a"], "properties": {
            "a": {"type": "string", "pattern": "^b$"}, "b": {"type": "integer"}}}}});
        assert_eq!(
            run(o, n),
            vec![
                (
                    "^.spec".into(),
                    "required",
                    "new required fields: [a b]".into()
                ),
                (
                    "^.spec".into(),
                    "description",
                    r#"description changed : "old" -> "new""#.into()
                ),
                (
                    "^.spec.a".into(),
                    "nullable",
                    "property changed from nullable to non-nullable".into()
                ),
                (
                    "^.spec.a".into(),
                    "pattern",
                    r#"pattern changed : "^a$" -> "^b$""#.into()
                ),
                (
                    "^.spec.b".into(),
                    "type",
                    r#"type changed : "string" -> "integer""#.into()
                ),
            ]
        );
        let o = spec(json!({"a": {"type": "string"}}));
        let n = spec(json!({"a": {"type": "string", "pattern": "x", "nullable": true}}));
        assert_eq!(
            run(o.clone(), n.clone())
                .into_iter()
                .map(|x| x.2)
                .collect::<Vec<_>>(),
            vec![
                "property changed from non-nullable to nullable",
                r#"pattern added : "" -> "x""#
            ]
        );
        assert_eq!(
            run(n.clone(), o.clone())
                .into_iter()
                .map(|x| x.2)
                .collect::<Vec<_>>(),
            vec![
                "property changed from nullable to non-nullable",
                r#"pattern removed : "x" -> """#
            ]
        );
        let mut c = PropertyChecks::default();
        c.nullable_to_nullable = false;
        c.pattern_removal = false;
        assert_eq!(
            run_with(o.clone(), n.clone(), &c).len(),
            1,
            "pattern added is still flagged"
        );
        assert_eq!(
            run_with(n, o, &c)
                .into_iter()
                .map(|x| x.2)
                .collect::<Vec<_>>(),
            vec!["property changed from nullable to non-nullable"],
            "pattern removal allowed; making a property non-nullable is always flagged"
        );
    }

    #[test]
    fn removed_property_is_compared_with_an_empty_node() {
        let o = spec(json!({"a": {"type": "string", "default": "x"}}));
        let n = spec(json!({}));
        assert_eq!(
            run(o, n).into_iter().map(|x| x.2).collect::<Vec<_>>(),
            vec![
                r#"default value removed : "\"x\"""#,
                r#"type changed : "string" -> """#
            ]
        );
    }

    #[test]
    fn unhandled_lists_go_fields() {
        let o = spec(json!({"a": {"type": "string"}}));
        let n = spec(json!({"a": {"type": "string", "format": "email"}}));
        assert_eq!(
            one(o, n),
            (
                "^.spec.a".into(),
                "unhandled",
                "unhandled changes found :\n- Format: \"\"\n+ Format: \"email\"".into()
            )
        );
        let mut c = PropertyChecks::default();
        c.unhandled = Enforcement::None;
        let o = spec(json!({"a": {"type": "array", "x-kubernetes-list-type": "atomic"}}));
        let n = spec(json!({"a": {"type": "array", "x-kubernetes-list-type": "set"}}));
        assert!(run_with(o.clone(), n.clone(), &c).is_empty());
        let f = &compare_schemas(&o, &n, &PropertyChecks::default())[0].2;
        assert_eq!(f.ratcheting, Ratcheting::NotSoftened);
    }

    #[test]
    fn go_zero_values_are_absent() {
        let o = spec(
            json!({"a": {"type": "string", "nullable": false, "description": "", "enum": []}}),
        );
        let n = spec(json!({"a": {"type": "string"}}));
        assert!(run(o, n).is_empty());
    }

    #[test]
    fn junctor_findings_are_not_ratcheted() {
        let o = spec(json!({"a": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}));
        let n =
            spec(json!({"a": {"anyOf": [{"type": "integer", "maximum": 3}, {"type": "string"}]}}));
        let r = compare_schemas(&o, &n, &PropertyChecks::default());
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].0, "^.spec.a.anyOf[0]");
        assert_eq!(r[0].2.ratcheting, Ratcheting::NotSoftened);
    }
}
