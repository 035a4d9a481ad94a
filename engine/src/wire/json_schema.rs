//! JSON Schema (draft-07) from a CRD, for the tools that read JSON Schema: the YAML language
//! server behind VS Code's, Neovim's, Helix's and JetBrains' YAML support (completion, hover,
//! red squiggles), kubeconform, ajv.
//!
//! One schema per kind and version ([`KindSchema`], named `{kind}_{version}.json` in lower
//! case as kubeconform's schema locations expect), carrying what JSON Schema can say of the
//! structural schema: types (`x-kubernetes-int-or-string` as `anyOf`, `nullable` as a
//! `"null"` type), formats JSON Schema shares with Kubernetes, enums, bounds, patterns
//! ([`crate::wire::ecmascript_regex`]), `required`, `additionalProperties: false` (kubectl's
//! default strict field validation rejects unknown fields) except under
//! `x-kubernetes-preserve-unknown-fields`, embedded resources, descriptions and defaults.
//! What it cannot say — CEL rules, map-list keys, formats without a JSON Schema twin, a
//! pattern ECMAScript cannot spell — is written into the node's description (so an editor
//! shows it on hover) and listed in [`KindSchema::notes`]; `crdlab validate` checks it all.

use crate::crd::model::{CustomResourceDefinition, JsonSchemaProps, SchemaOrArray, SchemaOrBool};
use crate::version::KubeVersion;
use crate::wire::ecmascript_regex::to_ecmascript;
use serde_json::{json, Map, Value};

/// The draft the YAML language server and kubeconform read.
pub const DRAFT_07: &str = "http://json-schema.org/draft-07/schema#";

/// One kind at one version of a CRD, as a JSON Schema.
#[derive(Clone, Debug)]
pub struct KindSchema {
    pub group: String,
    pub version: String,
    pub kind: String,
    /// `{kind}_{version}.json`, lower case.
    pub file_name: String,
    pub schema: Value,
    /// What the schema could not express, each with the node's path.
    pub notes: Vec<String>,
}

/// Kubernetes formats whose JSON Schema namesake accepts the same strings (kube-openapi's
/// `strfmt` registry against ajv-formats / the YAML language server). The others (`int32`,
/// `byte`, `cidr`, `mac`, `duration`, `isbn`…) are noted in the description instead.
const SHARED_FORMATS: [(&str, &str); 6] =
    [("date-time", "date-time"), ("datetime", "date-time"), ("date", "date"), ("email", "email"), ("ipv4", "ipv4"), ("ipv6", "ipv6")];

/// Every version of `crd` that has a schema, as `kube` validates it (the numeric formats'
/// ranges are checked from 1.36).
pub fn kind_schemas(crd: &CustomResourceDefinition, kube: KubeVersion) -> Vec<KindSchema> {
    let group = &crd.spec.group;
    let kind = &crd.spec.names.kind;
    crd.spec
        .versions
        .iter()
        .filter_map(|v| {
            let mut root = v.schema.as_ref()?.open_api_v3_schema.as_deref()?.clone();
            // The formats the release validates, and whether it checks numeric ranges.
            root.compile_for(kube);
            let mut notes = Vec::new();
            let api_version = format!("{}/{}", group, v.name);
            let mut schema = node(&root, "", Context::default(), &mut notes);
            let obj = schema.as_object_mut().expect("a node is an object");
            let mut head = Map::new();
            head.insert("$schema".into(), DRAFT_07.into());
            head.insert("title".into(), format!("{} ({})", kind, api_version).into());
            let props = obj.entry("properties").or_insert_with(|| json!({})).as_object_mut().expect("properties is an object");
            props.insert("apiVersion".into(), json!({"type": "string", "enum": [api_version], "description": "APIVersion defines the versioned schema of this representation of an object."}));
            props.insert("kind".into(), json!({"type": "string", "enum": [kind], "description": "Kind is a string value representing the REST resource this object represents."}));
            let meta = props.remove("metadata");
            props.insert("metadata".into(), object_meta(meta));
            let theirs = obj.remove("required").and_then(|r| r.as_array().cloned()).unwrap_or_default();
            let mut required: Vec<Value> = vec!["apiVersion".into(), "kind".into()];
            required.extend(theirs.into_iter().filter(|r| r != "apiVersion" && r != "kind"));
            obj.insert("required".into(), required.into());
            obj.entry("type").or_insert("object".into());
            head.append(obj);
            if !v.served {
                notes.push(format!("{}: the version is not served", api_version));
            }
            Some(KindSchema {
                group: group.clone(),
                version: v.name.clone(),
                kind: kind.clone(),
                file_name: format!("{}_{}.json", kind.to_lowercase(), v.name.to_lowercase()),
                schema: Value::Object(head),
                notes,
            })
        })
        .collect()
}

/// A JSON Schema Store catalog (`catalog.json`) of `schemas`, each named by its file: what
/// the YAML language server's `yaml.schemaStore.url` reads.
pub fn catalog(schemas: &[KindSchema]) -> Value {
    let entries: Vec<Value> = schemas
        .iter()
        .map(|s| {
            json!({
                "name": format!("{} ({}/{})", s.kind, s.group, s.version),
                "description": format!("{} of {}/{}, from its CustomResourceDefinition (crdlab schema)", s.kind, s.group, s.version),
                "url": s.file_name,
                "fileMatch": [],
            })
        })
        .collect();
    json!({"$schema": "https://json.schemastore.org/schema-catalog.json", "version": 1, "schemas": entries})
}

/// `metadata`: what the apiserver's ObjectMeta accepts, with the CRD's own constraints on
/// `name`/`generateName` (the only ones a structural schema may set there).
fn object_meta(from_crd: Option<Value>) -> Value {
    let mut meta = json!({
        "type": "object",
        "description": "Standard object's metadata.",
        "properties": {
            "name": {"type": "string"},
            "generateName": {"type": "string"},
            "namespace": {"type": "string"},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
        },
    });
    if let Some(Value::Object(crd)) = from_crd {
        if let Some(Value::Object(props)) = crd.get("properties") {
            let mine = meta["properties"].as_object_mut().expect("properties");
            for key in ["name", "generateName"] {
                if let (Some(Value::Object(theirs)), Some(Value::Object(ours))) = (props.get(key), mine.get_mut(key)) {
                    for (k, v) in theirs {
                        ours.insert(k.clone(), v.clone());
                    }
                }
            }
        }
    }
    meta
}

/// `path` for notes: `.spec.x`, `.spec.items[*]`, `` (the root).
fn child(path: &str, key: &str) -> String {
    format!("{}.{}", path, key)
}

/// What a node's place adds to its own schema.
#[derive(Clone, Copy, Default)]
struct Context {
    /// A `null` here is accepted although the node is not nullable: the apiserver drops a
    /// non-nullable `null` field (or map value) before validating, or defaults it
    /// (`PruneNonNullableNullsWithoutDefaults`, `Default`).
    null_ok: bool,
    /// Unknown fields are kept here: the items of an array that keeps them (pruning's
    /// `skipPrune` carries `x-kubernetes-preserve-unknown-fields` into the items).
    preserve: bool,
}

fn node(p: &JsonSchemaProps, path: &str, cx: Context, notes: &mut Vec<String>) -> Value {
    let mut o = Map::new();
    let nullable = p.nullable || cx.null_ok;
    let mut described: Vec<String> = Vec::new();
    let shown_path = if path.is_empty() { "<root>" } else { &path[1..] };

    // Types. Keywords below are type-specific in JSON Schema, so they sit beside `anyOf`.
    if p.x_int_or_string {
        let mut types = vec![json!({"type": "integer"}), json!({"type": "string"})];
        if nullable {
            types.push(json!({"type": "null"}));
        }
        o.insert("anyOf".into(), types.into());
    } else if let Some(t) = p.type_.as_deref().filter(|t| !t.is_empty()) {
        o.insert("type".into(), if nullable { json!([t, "null"]) } else { json!(t) });
    }
    if let Some(d) = &p.description {
        described.push(d.clone());
    }
    if let Some(t) = &p.title {
        o.insert("title".into(), t.clone().into());
    }
    // `validation_format`: what the release checks (unsupported formats are stripped).
    let f = p.validation_format.as_str();
    if !f.is_empty() {
        match SHARED_FORMATS.iter().find(|(k, _)| *k == f) {
            Some((_, js)) => {
                o.insert("format".into(), (*js).into());
            }
            // Numeric formats bound ranges, below.
            None if matches!(f, "int32" | "int64" | "float" | "double") => {}
            None => {
                described.push(format!("Format: {} (checked by the apiserver, not by this schema).", f));
                notes.push(format!("{}: format {} has no JSON Schema equivalent", shown_path, f));
            }
        }
    }
    if let Some(d) = &p.default {
        o.insert("default".into(), d.clone());
    }
    if let Some(e) = &p.example {
        o.insert("examples".into(), json!([e]));
    }
    if let Some(values) = &p.enum_ {
        let mut values = values.clone();
        if nullable && !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
        o.insert("enum".into(), values.into());
    }
    // OpenAPI v3's boolean exclusive bounds are draft-07's numeric ones.
    if let Some(m) = p.maximum {
        o.insert(if p.exclusive_maximum { "exclusiveMaximum" } else { "maximum" }.into(), number(m));
    }
    if let Some(m) = p.minimum {
        o.insert(if p.exclusive_minimum { "exclusiveMinimum" } else { "minimum" }.into(), number(m));
    }
    // From 1.36 kube-openapi checks int32/int64/float/double ranges, and int64's for an
    // integer without a format.
    if p.numeric_format_ranges {
        // (int64's and double's ranges are left out: a JSON number beyond them does not
        // reach validation as a number of that type anyway.)
        let range = match f {
            "int32" => Some((f64::from(i32::MIN), f64::from(i32::MAX))),
            "float" => Some((-f64::from(f32::MAX), f64::from(f32::MAX))),
            _ => None,
        };
        if let Some((lo, hi)) = range {
            if p.minimum.is_none_or(|m| m < lo) {
                o.insert("minimum".into(), number(lo));
                o.remove("exclusiveMinimum");
            }
            if p.maximum.is_none_or(|m| m > hi) {
                o.insert("maximum".into(), number(hi));
                o.remove("exclusiveMaximum");
            }
        }
    }
    if let Some(m) = p.multiple_of {
        o.insert("multipleOf".into(), number(m));
    }
    for (key, v) in [
        ("maxLength", p.max_length),
        ("minLength", p.min_length),
        ("maxItems", p.max_items),
        ("minItems", p.min_items),
        ("maxProperties", p.max_properties),
        ("minProperties", p.min_properties),
    ] {
        if let Some(v) = v {
            o.insert(key.into(), v.into());
        }
    }
    if let Some(pattern) = &p.pattern {
        match to_ecmascript(pattern) {
            Ok(js) => {
                o.insert("pattern".into(), js.into());
            }
            Err(why) => {
                described.push(format!("Pattern: {} (checked by the apiserver, not by this schema).", pattern));
                notes.push(format!("{}: pattern {:?} left out: {}", shown_path, pattern, why));
            }
        }
    }
    // A set's items are unique; a map list's keys are, which JSON Schema cannot say.
    match p.x_list_type.as_deref() {
        Some("set") => {
            o.insert("uniqueItems".into(), true.into());
        }
        Some("map") if !p.x_list_map_keys.is_empty() => {
            described.push(format!("Items are unique by {}.", p.x_list_map_keys.join(", ")));
            notes.push(format!("{}: list-map keys {} are not unique-checked", shown_path, p.x_list_map_keys.join(", ")));
        }
        _ => {}
    }
    if p.unique_items {
        o.insert("uniqueItems".into(), true.into());
    }
    // A required field with a default is never missing once defaulted.
    let required: Vec<String> = p.required.iter().filter(|r| !p.properties.get(*r).is_some_and(|s| s.applies_default())).cloned().collect();
    if !required.is_empty() {
        o.insert("required".into(), required.into());
    }
    let preserve = p.x_preserve_unknown_fields == Some(true) || cx.preserve;
    // Items: a null is defaulted when the items have a default, else it is an error.
    let item_cx = |s: &JsonSchemaProps| Context { null_ok: s.applies_default(), preserve };
    match &p.items {
        Some(SchemaOrArray::Schema(s)) => {
            o.insert("items".into(), node(s, &format!("{}[*]", path), item_cx(s), notes));
        }
        Some(SchemaOrArray::Array(list)) => {
            let items: Vec<Value> = list.iter().map(|s| node(s, &format!("{}[*]", path), item_cx(s), notes)).collect();
            o.insert("items".into(), items.into());
        }
        None => {}
    }
    let mut props = Map::new();
    for (k, s) in &p.properties {
        // A null field is dropped (or defaulted), unless required: then it is missing.
        let null_ok = s.applies_default() || !p.required.contains(k);
        props.insert(k.clone(), node(s, &child(path, k), Context { null_ok, preserve: false }, notes));
    }
    let embedded = p.x_embedded_resource;
    if embedded {
        // The apiserver requires apiVersion and kind of an embedded object, and reads its
        // metadata as ObjectMeta.
        props.entry("apiVersion").or_insert_with(|| json!({"type": "string"}));
        props.entry("kind").or_insert_with(|| json!({"type": "string"}));
        let meta = props.remove("metadata");
        props.insert("metadata".into(), object_meta(meta));
        let req = o.entry("required").or_insert_with(|| json!([])).as_array_mut().expect("required is an array");
        for r in ["apiVersion", "kind"] {
            if !req.iter().any(|x| x == r) {
                req.push(r.into());
            }
        }
    }
    let has_props = !props.is_empty();
    if has_props {
        o.insert("properties".into(), props.into());
    }
    match &p.additional_properties {
        Some(SchemaOrBool::Schema(s)) => {
            let cx = Context { null_ok: true, preserve: false };
            o.insert("additionalProperties".into(), node(s, &format!("{}[*]", path), cx, notes));
        }
        Some(SchemaOrBool::Bool(b)) => {
            o.insert("additionalProperties".into(), (*b || preserve).into());
        }
        // Unknown fields are errors under kubectl's strict field validation, unless kept.
        None if !preserve && (has_props || p.type_.as_deref() == Some("object")) => {
            o.insert("additionalProperties".into(), false.into());
        }
        None => {}
    }
    for (key, list) in [("allOf", &p.all_of), ("anyOf", &p.any_of), ("oneOf", &p.one_of)] {
        if list.is_empty() {
            continue;
        }
        let converted: Vec<Value> = list.iter().map(|s| value_validation(s, p, path, notes)).collect();
        if key == "anyOf" && o.contains_key("anyOf") {
            // int-or-string's own anyOf: both must hold.
            let mut all = o.remove("allOf").and_then(|v| v.as_array().cloned()).unwrap_or_default();
            all.push(json!({"anyOf": converted}));
            o.insert("allOf".into(), all.into());
        } else {
            o.insert(key.into(), converted.into());
        }
    }
    if let Some(n) = &p.not {
        o.insert("not".into(), value_validation(n, p, path, notes));
    }
    if !p.x_validations.is_empty() {
        let mut lines = vec!["CEL rules (checked by the apiserver, and by `crdlab validate`, not by this schema):".to_string()];
        for r in &p.x_validations {
            let message = if !r.message.is_empty() { format!(" — {}", r.message) } else { String::new() };
            lines.push(format!("- {}{}", r.rule, message));
        }
        described.push(lines.join("\n"));
        notes.push(format!("{}: {} CEL rule(s)", shown_path, p.x_validations.len()));
    }
    if !described.is_empty() {
        o.insert("description".into(), described.join("\n\n").into());
    }
    Value::Object(o)
}

/// A schema under `allOf`/`anyOf`/`oneOf`/`not` of `owner`: value validation only (a
/// structural schema declares no types or properties' schemas there), written without the
/// strictness of a node (no `additionalProperties`, which would reject the node's own
/// fields). Its `required` fields must not be `null` either: the apiserver drops a
/// non-nullable null field before this is judged, so for it the field is missing.
fn value_validation(p: &JsonSchemaProps, owner: &JsonSchemaProps, path: &str, notes: &mut Vec<String>) -> Value {
    let mut v = node(p, path, Context::default(), notes);
    if let Some(o) = v.as_object_mut() {
        o.remove("additionalProperties");
        o.remove("description");
        let dropped_when_null: Vec<&String> =
            p.required.iter().filter(|r| owner.properties.get(*r).is_some_and(|s| !s.nullable && !s.applies_default())).collect();
        if !dropped_when_null.is_empty() {
            let props = o.entry("properties").or_insert_with(|| json!({})).as_object_mut().expect("properties is an object");
            for r in dropped_when_null {
                props.entry(r.clone()).or_insert_with(|| json!({"not": {"type": "null"}}));
            }
        }
        // The branch's own `required` stands as written (defaults apply before it is judged,
        // but a branch is about presence: keep it).
        if !p.required.is_empty() {
            o.insert("required".into(), p.required.clone().into());
        }
    }
    v
}


/// Integral bounds as integers (`maximum: 10`, not `10.0`).
fn number(f: f64) -> Value {
    if f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 {
        json!(f as i64)
    } else {
        json!(f)
    }
}

#[cfg(test)]
mod tests {
    use super::{catalog, kind_schemas};
    use crate::crd::load::decode_crd;
    use crate::text::crd_document::parse_crd_text;
    use serde_json::json;

    fn schemas(text: &str) -> Vec<super::KindSchema> {
        kind_schemas(&decode_crd(&parse_crd_text(text).unwrap()).unwrap(), crate::version::KubeVersion::LATEST)
    }

    const CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            x-kubernetes-validations:
            - rule: self.replicas <= 10
              message: at most ten
            properties:
              size: {type: string, enum: [S, M, L], description: How big.}
              replicas: {type: integer, minimum: 0, maximum: 10, exclusiveMaximum: true, default: 1}
              port: {x-kubernetes-int-or-string: true, pattern: '^\d+$'}
              when: {type: string, format: date-time}
              ports32: {type: integer, format: int32}
              cidr: {type: string, format: cidr, nullable: true}
              tags: {type: array, x-kubernetes-list-type: set, items: {type: string, maxLength: 63}}
              labels: {type: object, additionalProperties: {type: string}}
              raw: {type: object, x-kubernetes-preserve-unknown-fields: true}
              template: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
  - name: v2
    served: false
    storage: false
    schema: {openAPIV3Schema: {type: object}}
"#;

    #[test]
    fn a_crd_becomes_one_schema_per_version() {
        let all = schemas(CRD);
        assert_eq!(all.iter().map(|s| s.file_name.as_str()).collect::<Vec<_>>(), ["widget_v1.json", "widget_v2.json"]);
        let s = &all[0].schema;
        assert_eq!(s["$schema"], "http://json-schema.org/draft-07/schema#");
        assert_eq!(s["properties"]["apiVersion"]["enum"], json!(["example.com/v1"]));
        assert_eq!(s["properties"]["kind"]["enum"], json!(["Widget"]));
        assert_eq!(s["required"], json!(["apiVersion", "kind"]));
        assert_eq!(s["additionalProperties"], false);
        let spec = &s["properties"]["spec"];
        assert_eq!(spec["required"], json!(["size"]));
        assert_eq!(spec["additionalProperties"], false);
        assert!(spec["description"].as_str().unwrap().contains("- self.replicas <= 10 — at most ten"));
        let p = &spec["properties"];
        assert_eq!(p["size"], json!({"type": "string", "enum": ["S", "M", "L"], "description": "How big."}));
        assert_eq!(p["tags"]["items"]["type"], "string");
        // An optional field may be null (the apiserver drops it), a required one may not.
        assert_eq!(p["replicas"], json!({"type": ["integer", "null"], "minimum": 0, "exclusiveMaximum": 10, "default": 1}));
        assert_eq!(p["port"], json!({"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}], "pattern": "^[0-9]+$"}));
        assert_eq!(p["when"]["format"], "date-time");
        assert_eq!(p["ports32"], json!({"type": ["integer", "null"], "minimum": -2147483648, "maximum": 2147483647}));
        assert_eq!(p["cidr"]["type"], json!(["string", "null"]));
        assert!(p["cidr"].get("format").is_none());
        assert_eq!(p["tags"]["uniqueItems"], true);
        assert_eq!(p["tags"]["items"]["maxLength"], 63);
        // A map's null value is dropped too.
        assert_eq!(p["labels"]["additionalProperties"], json!({"type": ["string", "null"]}));
        assert!(p["raw"].get("additionalProperties").is_none());
        assert_eq!(p["template"]["required"], json!(["apiVersion", "kind"]));
        assert_eq!(p["template"]["properties"]["metadata"]["type"], "object");
        assert!(all[0].notes.iter().any(|n| n == "spec.cidr: format cidr has no JSON Schema equivalent"), "{:?}", all[0].notes);
        assert!(all[0].notes.iter().any(|n| n == "spec: 1 CEL rule(s)"), "{:?}", all[0].notes);
        assert!(all[1].notes.iter().any(|n| n == "example.com/v2: the version is not served"));
    }

    #[test]
    fn the_catalog_names_every_file() {
        let all = schemas(CRD);
        let c = catalog(&all);
        assert_eq!(c["schemas"][0]["url"], "widget_v1.json");
        assert_eq!(c["schemas"][1]["name"], "Widget (example.com/v2)");
    }
}
