use super::*;
use serde_json::json;
use std::collections::HashMap;

// ------------------------------------------------------------------- real CRDs

fn shared_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared"))
}

/// Expected errors that come from CEL compilation or cost estimation (not checked here).
fn is_cel_error(detail: &str) -> bool {
    // Compile errors are checked now that CEL compiles rules; only the cost errors
    // (checked by the vector test) are left out here.
    [
        "estimated rule cost",
        "cost total",
        "contributed to",
        "estimated messageExpression cost",
    ]
    .iter()
    .any(|k| detail.contains(k))
}

/// Every compile-only vector of the four CRD sources: the non-CEL `crdErrors` expected
/// must equal ours, as multisets of messages.
#[test]
fn real_crds_match_the_apiserver() {
    let dir = shared_dir();
    if !dir.join("vectors").exists() {
        eprintln!("shared vectors not found; skipped");
        return;
    }
    let mut files: Vec<_> = [
        "openshift-api",
        "etcd-druid",
        "postgres-operator",
        "handmade",
    ]
    .iter()
    .flat_map(|src| {
        std::fs::read_dir(dir.join("vectors").join(src))
            .into_iter()
            .flatten()
            .flatten()
    })
    .map(|e| e.path())
    .filter(|p| p.extension().map(|e| e == "jsonl").unwrap_or(false))
    .collect();
    files.sort();
    let mut crds_checked = 0;
    let mut expected_total = 0;
    let mut got_total = 0;
    let mut failures = Vec::new();
    let mut cache: HashMap<String, CustomResourceDefinition> = HashMap::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let v: Value = serde_json::from_str(line).unwrap();
            let req = &v["request"];
            if req.get("object").is_some() || req.get("mode").is_some() {
                continue;
            }
            let Some(file) = req.get("crdFile").and_then(Value::as_str) else {
                continue;
            };
            let kube = req
                .get("kubernetesVersion")
                .and_then(Value::as_str)
                .map(|k| KubeVersion::parse(k).unwrap())
                .unwrap_or_default();
            let crd = cache
                .entry(file.to_string())
                .or_insert_with(|| {
                    let t = std::fs::read_to_string(dir.join("crds").join(file)).unwrap();
                    let val = crate::text::crd_document::parse_crd_text(&t).unwrap();
                    crate::crd::decode_crd(&val).unwrap()
                })
                .clone();
            let mut expected: Vec<String> = v["expect"]["crdErrors"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter(|e| !is_cel_error(e["detail"].as_str().unwrap_or("")))
                        .map(|e| e["message"].as_str().unwrap_or("").to_string())
                        .collect()
                })
                .unwrap_or_default();
            let (errs, _warnings) = validate_crd(&crd, kube);
            let mut got: Vec<String> =
                errs.iter().filter(|e| !is_cel_error(&e.detail)).map(|e| e.message()).collect();
            expected.sort();
            got.sort();
            crds_checked += 1;
            expected_total += expected.len();
            got_total += got.len();
            if expected != got {
                failures.push(format!(
                    "{}: expected {:?}\n   got {:?}",
                    v["id"], expected, got
                ));
            }
        }
    }
    eprintln!(
        "real CRDs: {} compile vectors, {} expected non-CEL errors, {} reported",
        crds_checked, expected_total, got_total
    );
    assert!(
        crds_checked > 80,
        "too few compile vectors found: {}",
        crds_checked
    );
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ------------------------------------------------------------------- small CRDs

/// The widgets CRD without `singular` and `listKind`, which the checks then default from the
/// plural and the kind.
fn base() -> Value {
    let mut c = crate::testing::widgets_json(json!({"type": "object"}));
    let names = c["spec"]["names"].as_object_mut().unwrap();
    names.remove("singular");
    names.remove("listKind");
    c
}

fn with_schema(schema: Value) -> Value {
    let mut c = base();
    c["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = schema;
    c
}

fn spec_schema(spec: Value) -> Value {
    with_schema(json!({"type": "object", "properties": {"spec": spec}}))
}

fn msgs(v: Value) -> Vec<String> {
    let crd = crate::crd::load::decode_crd(&v).unwrap();
    let (errs, _) = validate_crd(&crd, KubeVersion::default());
    // Cost errors are checked by the vector test and the cost tests; these unit tests
    // look at the other checks.
    let mut m: Vec<String> = errs.iter().filter(|e| !is_cel_error(&e.detail)).map(|e| e.message()).collect();
    m.sort();
    m
}

fn warnings(v: Value) -> Vec<String> {
    let crd = crate::crd::load::decode_crd(&v).unwrap();
    validate_crd(&crd, KubeVersion::default()).1
}

const SV: &str = "spec.validation.openAPIV3Schema";

#[test]
fn a_valid_crd_has_no_errors() {
    assert!(msgs(base()).is_empty());
    assert!(msgs(spec_schema(json!({"type": "object", "properties": {
        "replicas": {"type": "integer", "default": 1, "minimum": 0},
        "port": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
        "list": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}},
        "raw": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
        "tmpl": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}
    }, "x-kubernetes-validations": [{"rule": "self.replicas >= 0", "fieldPath": ".replicas", "reason": "FieldValueInvalid"}]})))
    .is_empty());
}

#[test]
fn untyped_property_reports_under_hoisted_validation() {
    assert_eq!(
        msgs(spec_schema(json!({}))),
        vec![format!("{}.properties[spec].type: Required value: must not be empty for specified object fields", SV)]
    );
}

#[test]
fn different_version_schemas_report_per_version() {
    let mut c = spec_schema(json!({"type": "object"}));
    c["spec"]["versions"] = json!([
        {"name": "v1alpha1", "served": true, "storage": false, "schema": {"openAPIV3Schema": {"type": "object"}}},
        {"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {}}}}}
    ]);
    assert_eq!(
        msgs(c),
        vec!["spec.versions[1].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields"]
    );
}

#[test]
fn names_group_scope_and_metadata() {
    let mut c = base();
    c["metadata"]["name"] = json!("other.example.com");
    assert_eq!(msgs(c), vec!["metadata.name: Invalid value: \"other.example.com\": must be spec.names.plural+\".\"+spec.group"]);

    let mut c = base();
    c["spec"]["group"] = json!("example");
    c["metadata"]["name"] = json!("widgets.example");
    assert_eq!(
        msgs(c),
        vec!["spec.group: Invalid value: \"example\": should be a domain with at least one dot"]
    );

    let mut c = base();
    c["spec"]["scope"] = json!("Global");
    assert_eq!(msgs(c), vec!["spec.scope: Unsupported value: \"Global\": supported values: \"Cluster\", \"Namespaced\""]);

    let mut c = base();
    c["spec"]["names"]["kind"] = json!("");
    assert_eq!(
        msgs(c),
        vec![
            "spec.names.kind: Required value",
            "spec.names.listKind: Required value",
            "spec.names.singular: Required value"
        ]
    );

    let mut c = base();
    c["spec"]["names"]["shortNames"] = json!(["W"]);
    assert_eq!(msgs(c), vec!["spec.names.shortNames[0]: Invalid value: \"W\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"]);

    let mut c = base();
    c["spec"]["names"]["listKind"] = json!("Widget");
    assert_eq!(
        msgs(c),
        vec![
            "spec.names.listKind: Invalid value: \"Widget\": kind and listKind may not be the same"
        ]
    );

    let mut c = base();
    c["metadata"]["annotations"] = json!({"a/b/c": "x"});
    assert_eq!(msgs(c), vec!["metadata.annotations: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]);
}

#[test]
fn protected_groups_need_approval() {
    let mut c = base();
    c["spec"]["group"] = json!("x.k8s.io");
    c["metadata"]["name"] = json!("widgets.x.k8s.io");
    assert_eq!(msgs(c.clone()), vec!["metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation \"api-approved.kubernetes.io\", see https://github.com/kubernetes/enhancements/pull/1111"]);
    c["metadata"]["annotations"] = json!({"api-approved.kubernetes.io": "yes"});
    assert_eq!(msgs(c.clone()), vec!["metadata.annotations[api-approved.kubernetes.io]: Invalid value: \"yes\": protected groups must have approval annotation \"api-approved.kubernetes.io\" with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111"]);
    c["metadata"]["annotations"] =
        json!({"api-approved.kubernetes.io": "https://github.com/kubernetes/kubernetes/pull/1"});
    assert!(msgs(c.clone()).is_empty());
    c["metadata"]["annotations"] = json!({"api-approved.kubernetes.io": "unapproved, testing"});
    assert!(msgs(c).is_empty());
}

#[test]
fn versions_storage_and_names() {
    let mut c = base();
    c["spec"]["versions"][0]["storage"] = json!(false);
    assert_eq!(
        msgs(c),
        vec![
            "spec.versions: Invalid value: [{\"Name\":\"v1\",\"Served\":true,\"Storage\":false,\"Deprecated\":false,\"DeprecationWarning\":null,\"Schema\":null,\"Subresources\":null,\"AdditionalPrinterColumns\":null,\"SelectableFields\":null}]: must have exactly one version marked as storage version",
            "status.storedVersions: Invalid value: null: must have at least one stored version",
        ]
    );
    let mut c = base();
    let v = c["spec"]["versions"][0].clone();
    c["spec"]["versions"] = json!([v.clone(), v]);
    let m = msgs(c);
    assert_eq!(m.len(), 2, "{:?}", m);
    assert!(m[0].starts_with("spec.versions: Invalid value: [{\"Name\":\"v1\""));
    assert!(m
        .iter()
        .any(|x| x.ends_with(": must contain unique version names")));
    assert!(m
        .iter()
        .any(|x| x.ends_with(": must have exactly one version marked as storage version")));

    let mut c = base();
    c["spec"]["versions"][0]["name"] = json!("V1");
    let m = msgs(c);
    assert_eq!(m.len(), 2);
    assert!(m[0].starts_with("spec.version: Invalid value: \"V1\": a DNS-1035 label"));
    assert!(m[1].starts_with("spec.versions[0].name: Invalid value: \"V1\": a DNS-1035 label"));
}

#[test]
fn schemas_are_required() {
    let mut c = base();
    c["spec"]["versions"][0]
        .as_object_mut()
        .unwrap()
        .remove("schema");
    assert_eq!(
        msgs(c),
        vec!["spec.versions[0].schema.openAPIV3Schema: Required value"]
    );
}

#[test]
fn deprecation_warning() {
    let mut c = base();
    c["spec"]["versions"][0]["deprecationWarning"] = json!("old");
    assert_eq!(msgs(c.clone()), vec!["spec.versions[0].deprecationWarning: Invalid value: \"old\": can only be set for deprecated versions"]);
    c["spec"]["versions"][0]["deprecated"] = json!(true);
    assert!(msgs(c.clone()).is_empty());
    c["spec"]["versions"][0]["deprecationWarning"] = json!("a\u{1}b");
    assert_eq!(msgs(c), vec!["spec.versions[0].deprecationWarning: Invalid value: \"a\\x01b\": must only contain printable UTF-8 characters; non-printable character found at index 1"]);
}

#[test]
fn subresources_and_printer_columns() {
    let mut c = base();
    c["spec"]["versions"][0]["subresources"] = json!({"scale": {"specReplicasPath": "spec.replicas", "statusReplicasPath": ".spec.x", "labelSelectorPath": ".metadata.x"}});
    assert_eq!(
        msgs(c),
        vec![
            "spec.subresources.scale.labelSelectorPath: Invalid value: \".metadata.x\": should be a json path under either .spec or .status",
            "spec.subresources.scale.specReplicasPath: Invalid value: \"spec.replicas\": must be a simple json path starting with .",
            "spec.subresources.scale.statusReplicasPath: Invalid value: \".spec.x\": should be a json path under .status",
        ]
    );
    let mut c = base();
    c["spec"]["versions"][0]["additionalPrinterColumns"] =
        json!([{"name": "", "type": "time", "format": "hex", "jsonPath": "status"}]);
    assert_eq!(
        msgs(c),
        vec![
            "spec.additionalPrinterColumns[0].JSONPath: Invalid value: \"status\": must be a simple json path starting with .",
            "spec.additionalPrinterColumns[0].format: Invalid value: \"hex\": must be one of byte,date,date-time,double,float,int32,int64,password",
            "spec.additionalPrinterColumns[0].name: Required value",
            "spec.additionalPrinterColumns[0].type: Invalid value: \"time\": must be one of boolean,date,integer,number,string",
        ]
    );
}

#[test]
fn status_subresource_restricts_the_root() {
    let mut c = with_schema(json!({"type": "object", "nullable": true}));
    c["spec"]["versions"][0]["subresources"] = json!({"status": {}});
    let m = msgs(c);
    assert_eq!(m.len(), 2);
    assert_eq!(
        m[0],
        format!(
            "{}.nullable: Forbidden: nullable cannot be true at the root",
            SV
        )
    );
    assert_eq!(m[1], format!("{}: Invalid value: {}: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled", SV,
        r#"{"ID":"","Schema":"","Ref":null,"Description":"","Type":"object","Nullable":true,"Format":"","Title":"","Default":null,"Maximum":null,"ExclusiveMaximum":false,"Minimum":null,"ExclusiveMinimum":false,"MaxLength":null,"MinLength":null,"Pattern":"","MaxItems":null,"MinItems":null,"UniqueItems":false,"MultipleOf":null,"Enum":null,"MaxProperties":null,"MinProperties":null,"Required":null,"Items":null,"AllOf":null,"OneOf":null,"AnyOf":null,"Not":null,"Properties":null,"AdditionalProperties":null,"PatternProperties":null,"Dependencies":null,"AdditionalItems":null,"Definitions":null,"ExternalDocs":null,"Example":null,"XPreserveUnknownFields":null,"XEmbeddedResource":false,"XIntOrString":false,"XListMapKeys":null,"XListType":null,"XMapType":null,"XValidations":null}"#));
    let mut c = with_schema(json!({"type": "array", "items": {"type": "string"}}));
    c["spec"]["versions"][0]["subresources"] = json!({"status": {}});
    assert!(msgs(c).contains(&format!("{}.type: Invalid value: \"array\": only \"object\" is allowed as the type at the root of the schema if the status subresource is enabled", SV)));
}

#[test]
fn forbidden_schema_keywords() {
    assert_eq!(
        msgs(spec_schema(json!({"type": "array", "uniqueItems": true, "items": {"type": "string"}}))),
        vec![format!("{}.properties[spec].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic", SV)]
    );
    assert_eq!(
        msgs(spec_schema(json!({"type": "object", "$ref": "#/x"}))),
        vec![format!(
            "{}.properties[spec].$ref: Forbidden: $ref is not supported",
            SV
        )]
    );
    assert_eq!(
        msgs(spec_schema(json!({"type": "null"}))),
        vec![
            format!("{}.properties[spec].type: Forbidden: type cannot be set to null, use nullable as an alternative", SV),
            format!("{}.properties[spec].type: Unsupported value: \"null\": supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"", SV),
        ]
    );
    assert_eq!(
        msgs(spec_schema(json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}}))),
        vec![format!("{}.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive", SV)]
    );
    // Only the NewStructural error: reported when nothing else is wrong.
    assert_eq!(
        msgs(with_schema(
            json!({"type": "object", "$schema": "http://json-schema.org/draft-04/schema#"})
        )),
        vec![format!(
            "{}: Invalid value: \"\": OpenAPIV3Schema 'schema' is not supported",
            SV
        )]
    );
}

#[test]
fn defaults_in_metadata_are_forbidden() {
    assert_eq!(
        msgs(with_schema(
            json!({"type": "object", "properties": {"metadata": {"type": "object", "default": {}},
            "kind": {"type": "string", "default": "Widget"}}})
        )),
        vec![
            format!(
                "{}.properties[kind].default: Forbidden: must not be set in top-level kind",
                SV
            ),
            format!(
                "{}.properties[metadata].default: Forbidden: must not be set in top-level metadata",
                SV
            ),
        ]
    );
    assert_eq!(
        msgs(spec_schema(json!({"type": "object", "x-kubernetes-embedded-resource": true, "properties": {
            "metadata": {"type": "object", "additionalProperties": {"type": "string", "default": "x"}}}}))),
        vec![format!("{}.properties[spec].properties[metadata].additionalProperties.default: Forbidden: must not be set inside additionalProperties applying to object metadata", SV)]
    );
}

#[test]
fn defaults_must_survive_pruning() {
    assert_eq!(
        msgs(spec_schema(
            json!({"type": "object", "default": {"a": 1}, "properties": {"b": {"type": "integer"}}})
        )),
        vec![format!(
            "{}.properties[spec].default: Invalid value: {{\"a\":1}}: must not have unknown fields",
            SV
        )]
    );
    assert!(msgs(spec_schema(
        json!({"type": "object", "default": {"b": 1}, "properties": {"b": {"type": "integer"}}})
    ))
    .is_empty());
}

#[test]
fn list_and_map_extensions() {
    assert_eq!(
        msgs(spec_schema(json!({"type": "object", "x-kubernetes-list-type": "map"}))),
        vec![
            format!("{}.properties[spec].type: Invalid value: \"object\": must be array if x-kubernetes-list-type is specified", SV),
            format!("{}.properties[spec].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map", SV),
            format!("{}.properties[spec].items: Required value: must have a schema if x-kubernetes-list-type is map", SV),
        ]
        .into_iter()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect::<Vec<_>>()
    );
    assert_eq!(
        msgs(spec_schema(json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k", "o", "x"],
            "items": {"type": "object", "properties": {"k": {"type": "string", "nullable": true}, "o": {"type": "object"}}}}))),
        vec![
            format!("{}.properties[spec].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property", SV),
            format!("{}.properties[spec].items.properties[k].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable", SV),
            format!("{}.properties[spec].items.properties[o].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property", SV),
            format!("{}.properties[spec].items.properties[o].type: Invalid value: \"object\": must be a scalar type if parent array's x-kubernetes-list-type is map", SV),
            format!("{}.properties[spec].x-kubernetes-list-map-keys: Invalid value: [\"k\",\"o\",\"x\"]: entries must all be names of item properties", SV),
        ]
    );
    assert_eq!(
        msgs(spec_schema(json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object"}}))),
        vec![format!("{}.properties[spec].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set", SV)]
    );
    assert_eq!(
        msgs(spec_schema(json!({"type": "array", "x-kubernetes-list-type": "bag", "items": {"type": "string"}}))),
        vec![format!("{}.properties[spec].x-kubernetes-list-type: Unsupported value: \"bag\": supported values: \"atomic\", \"set\", \"map\"", SV)]
    );
    assert_eq!(
        msgs(spec_schema(json!({"type": "object", "x-kubernetes-map-type": "loose"}))),
        vec![format!("{}.properties[spec].x-kubernetes-map-type: Unsupported value: \"loose\": supported values: \"atomic\", \"granular\"", SV)]
    );
    assert_eq!(
        msgs(spec_schema(json!({"type": "object", "x-kubernetes-preserve-unknown-fields": false}))),
        vec![format!("{}.properties[spec].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined", SV)]
    );
}

#[test]
fn rule_fields() {
    let rules = |r: Value| {
        msgs(spec_schema(
            json!({"type": "object", "properties": {"a": {"type": "string"}, "m": {"type": "object", "additionalProperties": {"type": "string"}}}, "x-kubernetes-validations": r}),
        ))
    };
    let p = format!("{}.properties[spec].x-kubernetes-validations[0]", SV);
    assert_eq!(
        rules(json!([{"rule": " "}])),
        vec![format!("{}.rule: Required value: rule is not specified", p)]
    );
    assert_eq!(
        rules(json!([{"rule": "true", "message": " "}])),
        vec![format!(
            "{}.message: Invalid value: \" \": message must be non-empty if specified",
            p
        )]
    );
    assert_eq!(
        rules(json!([{"rule": "true", "message": "a\nb"}])),
        vec![format!(
            "{}.message: Invalid value: \"a\\nb\": message must not contain line breaks",
            p
        )]
    );
    assert_eq!(
        rules(json!([{"rule": "true &&\ntrue"}])),
        vec![format!(
            "{}.message: Required value: message must be specified if rule contains line breaks",
            p
        )]
    );
    assert_eq!(rules(json!([{"rule": "true", "messageExpression": "  "}])), vec![format!("{}.messageExpression: Required value: messageExpression must be non-empty if specified", p)]);
    assert_eq!(rules(json!([{"rule": "true", "reason": "Bad"}])), vec![format!("{}.reason: Unsupported value: \"Bad\": supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\"", p)]);
    assert_eq!(
        rules(json!([{"rule": "true", "fieldPath": ".b"}])),
        vec![format!(
            "{}.fieldPath: Invalid value: \".b\": fieldPath must be a valid path",
            p
        )]
    );
    assert_eq!(
        rules(json!([{"rule": "true", "fieldPath": "a"}])),
        vec![format!(
            "{}.fieldPath: Invalid value: \"a\": fieldPath must be a valid path",
            p
        )]
    );
    assert_eq!(
        rules(json!([{"rule": "true", "fieldPath": ".a\n"}])),
        vec![
            format!(
                "{}.fieldPath: Invalid value: \".a\\n\": fieldPath must be a valid path",
                p
            ),
            format!(
                "{}.fieldPath: Invalid value: \".a\\n\": fieldPath must not contain line breaks",
                p
            ),
        ]
    );
    assert!(rules(json!([{"rule": "true", "fieldPath": ".a"}])).is_empty());
    assert!(rules(json!([{"rule": "true", "fieldPath": ".m.anything"}])).is_empty());
    assert!(rules(json!([{"rule": "true", "fieldPath": "['a']"}])).is_empty());
    assert!(rules(json!([{"rule": "true", "fieldPath": ".m['x.y']"}])).is_empty());
}

#[test]
fn old_self_placement() {
    let p = format!(
        "{}.properties[spec].properties[l].items.x-kubernetes-validations[0]",
        SV
    );
    assert_eq!(
        msgs(spec_schema(json!({"type": "object", "properties": {"l": {"type": "array", "items": {"type": "string",
            "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}}))),
        vec![format!("{}.rule: Invalid value: \"self == oldSelf\": oldSelf cannot be used on the uncorrelatable portion of the schema within {}.properties[spec].properties[l]", p, SV)]
    );
    // A map list correlates items; atomic maps correlate fields.
    assert!(msgs(spec_schema(json!({"type": "object", "properties": {"l": {"type": "array", "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["k"], "items": {"type": "object", "required": ["k"], "properties": {"k": {"type": "string"}},
            "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}},
        "m": {"type": "object", "x-kubernetes-map-type": "atomic", "properties": {"x": {"type": "string",
            "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}}})))
    .is_empty());
    assert_eq!(
        msgs(spec_schema(json!({"type": "object", "x-kubernetes-validations": [{"rule": "self != null && 'oldSelf' != ''", "optionalOldSelf": true}]}))),
        vec![format!("{}.properties[spec].x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule", SV)]
    );
}

#[test]
fn uses_old_self_scanner() {
    assert!(rule_uses_old_self("self == oldSelf"));
    assert!(rule_uses_old_self("oldSelf.hasValue()"));
    assert!(!rule_uses_old_self("self.oldSelf == 1"));
    assert!(!rule_uses_old_self("self.x == 'oldSelf'"));
    assert!(!rule_uses_old_self("self.x == \"\"\"a oldSelf\"\"\""));
    assert!(!rule_uses_old_self("self.oldSelfish"));
    assert!(rule_uses_old_self("r'x' == oldSelf.y"));
}

#[test]
fn conversion_webhook() {
    let mut c = base();
    c["spec"]["conversion"] = json!({"strategy": "Webhook"});
    assert_eq!(
        msgs(c.clone()),
        vec![
            "spec.conversion.conversionReviewVersions: Required value",
            "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook",
        ]
    );
    c["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v2"],
        "clientConfig": {"url": "http://u@h/p?q#f"}}});
    assert_eq!(
        msgs(c.clone()),
        vec![
            "spec.conversion.conversionReviewVersions: Invalid value: [\"v2\"]: must include at least one of v1, v1beta1",
            "spec.conversion.webhookClientConfig.url: Invalid value: \"f\": fragments are not permitted in the URL",
            "spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
            "spec.conversion.webhookClientConfig.url: Invalid value: \"q\": query parameters are not permitted in the URL",
            "spec.conversion.webhookClientConfig.url: Invalid value: \"u\": user information is not permitted in the URL",
        ]
    );
    c["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"],
        "clientConfig": {"service": {"name": "s", "namespace": "n", "path": "/a//b", "port": 0}}}});
    assert_eq!(
        msgs(c.clone()),
        vec![
            "spec.conversion.webhookClientConfig.service.path: Invalid value: \"/a//b\": segment[1] may not be empty",
            "spec.conversion.webhookClientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive",
        ]
    );
    c["spec"]["conversion"] =
        json!({"strategy": "None", "webhook": {"conversionReviewVersions": ["v1"]}});
    assert_eq!(msgs(c), vec!["spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook"]);
}

#[test]
fn preserve_unknown_fields_true() {
    let mut c = spec_schema(json!({"type": "string", "default": "x"}));
    c["spec"]["preserveUnknownFields"] = json!(true);
    assert_eq!(
        msgs(c),
        vec![
            "spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
            "spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema",
        ]
    );
}

#[test]
fn selectable_fields() {
    let mut c = spec_schema(
        json!({"type": "object", "properties": {"a": {"type": "string"}, "o": {"type": "object"}}}),
    );
    c["spec"]["versions"][0]["selectableFields"] = json!([{"jsonPath": ".spec.a"}, {"jsonPath": ".spec.a"}, {"jsonPath": ".spec.o"}, {"jsonPath": ".spec.zz"}, {"jsonPath": ".spec['a']"}, {"jsonPath": ""}]);
    assert_eq!(
        msgs(c),
        vec![
            "spec.selectableFields[1].jsonPath: Duplicate value: \".spec.a\"",
            "spec.selectableFields[2].jsonPath: Invalid value: \".spec.o\": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.",
            "spec.selectableFields[3].jsonPath: Invalid value: \".spec.zz\": is an invalid path: does not refer to a valid field",
            "spec.selectableFields[4].jsonPath: Invalid value: \".spec['a']\": is an invalid path: array notation is not allowed",
            "spec.selectableFields[5].jsonPath: Required value",
        ]
    );
}

#[test]
fn unrecognized_formats_warn() {
    assert_eq!(
        warnings(spec_schema(
            json!({"type": "object", "properties": {"a": {"type": "string", "format": "bogus"},
            "b": {"type": "string", "format": "bogus"}, "c": {"type": "integer", "format": "int32"}, "d": {"type": "string", "format": "date-time"}}})
        )),
        vec!["unrecognized format \"bogus\"".to_string(), "unrecognized format \"bogus\"".to_string()]
    );
}

#[test]
fn no_panic_on_odd_input() {
    let odd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {},
        "spec": {"versions": [{"name": "", "schema": {"openAPIV3Schema": {"items": [], "additionalProperties": false,
            "x-kubernetes-validations": [{"rule": "", "fieldPath": "['"}, {"rule": "x", "fieldPath": "[']"}, {"rule": "x", "fieldPath": ".a["}],
            "properties": {"a": {"type": "array", "x-kubernetes-list-type": "map", "items": [{"type": "object"}]}}}},
            "subresources": {"scale": {}}}]}});
    let _ = msgs(odd);
}

/// Features of gateway-api's GatewayClass CRD (accepted by real clusters): a protected
/// group with an approval URL, escaped '/' in patterns, a status default holding a
/// condition list, map lists with required keys, a transition rule on a scalar field.
#[test]
fn gateway_class_like_crd_is_valid() {
    let cond = json!({"type": "object", "required": ["lastTransitionTime", "message", "reason", "status", "type"], "properties": {
        "lastTransitionTime": {"type": "string", "format": "date-time"},
        "message": {"type": "string", "maxLength": 32768},
        "observedGeneration": {"type": "integer", "format": "int64", "minimum": 0},
        "reason": {"type": "string", "maxLength": 1024, "minLength": 1, "pattern": "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"},
        "status": {"type": "string", "enum": ["True", "False", "Unknown"]},
        "type": {"type": "string", "maxLength": 316, "pattern": "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$"}}});
    let default_conds = json!([{"lastTransitionTime": "1970-01-01T00:00:00Z", "message": "Waiting for controller", "reason": "Pending", "status": "Unknown", "type": "Accepted"}]);
    let schema = json!({"type": "object", "required": ["spec"], "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
        "spec": {"type": "object", "required": ["controllerName"], "properties": {
            "controllerName": {"type": "string", "maxLength": 253, "minLength": 1,
                "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\\/[A-Za-z0-9\\/\\-._~%!$&'()*+,;=:]+$",
                "x-kubernetes-validations": [{"message": "Value is immutable", "rule": "self == oldSelf"}]},
            "parametersRef": {"type": "object", "required": ["group", "kind", "name"], "properties": {
                "group": {"type": "string", "maxLength": 253, "pattern": "^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"},
                "kind": {"type": "string", "pattern": "^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$"},
                "name": {"type": "string"}}}}},
        "status": {"type": "object", "default": {"conditions": default_conds.clone()}, "properties": {
            "conditions": {"type": "array", "default": default_conds, "maxItems": 8, "items": cond,
                "x-kubernetes-list-map-keys": ["type"], "x-kubernetes-list-type": "map"},
            "supportedFeatures": {"type": "array", "maxItems": 64, "x-kubernetes-list-map-keys": ["name"], "x-kubernetes-list-type": "map",
                "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}}}}}});
    let mut c = with_schema(schema.clone());
    c["metadata"] = json!({"name": "gatewayclasses.gateway.networking.k8s.io", "annotations": {
        "api-approved.kubernetes.io": "https://github.com/kubernetes-sigs/gateway-api/pull/4530",
        "gateway.networking.k8s.io/bundle-version": "v1.6.0-rc.1", "gateway.networking.k8s.io/channel": "standard"}});
    c["spec"]["group"] = json!("gateway.networking.k8s.io");
    c["spec"]["scope"] = json!("Cluster");
    c["spec"]["names"] = json!({"categories": ["gateway-api"], "kind": "GatewayClass", "listKind": "GatewayClassList",
        "plural": "gatewayclasses", "shortNames": ["gc"], "singular": "gatewayclass"});
    let cols = json!([{"jsonPath": ".spec.controllerName", "name": "Controller", "type": "string"},
        {"jsonPath": ".status.conditions[?(@.type==\"Accepted\")].status", "name": "Accepted", "type": "string"},
        {"jsonPath": ".metadata.creationTimestamp", "name": "Age", "type": "date"},
        {"jsonPath": ".spec.description", "name": "Description", "priority": 1, "type": "string"}]);
    let v1 = json!({"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
        "additionalPrinterColumns": cols.clone(), "schema": {"openAPIV3Schema": schema.clone()}});
    let mut v1beta1 = v1.clone();
    v1beta1["name"] = json!("v1beta1");
    v1beta1["storage"] = json!(false);
    v1beta1["schema"]["openAPIV3Schema"]["description"] = json!("older text");
    c["spec"]["versions"] = json!([v1, v1beta1]);
    assert_eq!(msgs(c), Vec::<String>::new());
}

#[test]
fn defaults_must_validate() {
    assert_eq!(
        msgs(spec_schema(json!({"type": "object", "properties": {"s": {"type": "string", "enum": ["a"], "default": "b"},
            "n": {"type": "integer", "maximum": 3, "default": 4}}}))),
        vec![
            format!("{}.properties[spec].properties[n].default: Invalid value: 4:  in body should be less than or equal to 3", SV),
            format!("{}.properties[spec].properties[s].default: Unsupported value: \"b\": supported values: \"a\"", SV),
        ]
    );
    // Defaults of embedded resources need apiVersion and kind.
    assert_eq!(
        msgs(spec_schema(json!({"type": "object", "properties": {"e": {"type": "object", "x-kubernetes-embedded-resource": true,
            "x-kubernetes-preserve-unknown-fields": true, "default": {"metadata": {"name": "x"}}}}}))),
        vec![
            format!("{}.properties[spec].properties[e].default.apiVersion: Required value", SV),
            format!("{}.properties[spec].properties[e].default.kind: Required value", SV),
        ]
    );
}

/// The deepest schema the reader accepts (512 JSON levels, about 256 schema levels) must
/// not exhaust a 2 MiB test-thread stack, even in debug builds. Built directly: decoding
/// such a schema is the reader's and the model's business.
#[test]
fn deeply_nested_schema() {
    let mut s = JsonSchemaProps {
        type_: Some("string".into()),
        default: Some(json!("x")),
        ..Default::default()
    };
    for i in 0..300 {
        let mut o = JsonSchemaProps::default();
        if i % 2 == 0 {
            o.type_ = Some("object".into());
            o.properties.insert("p".into(), std::sync::Arc::new(s));
            o.x_validations = vec![crate::crd::model::ValidationRule {
                rule: "self == oldSelf".into(),
                field_path: ".p".into(),
                ..Default::default()
            }];
        } else {
            o.type_ = Some("array".into());
            o.items = Some(SchemaOrArray::Schema(std::sync::Arc::new(s)));
        }
        s = o;
    }
    let mut crd = crate::crd::load::decode_crd(&base()).unwrap();
    crd.spec.versions[0].schema = Some(CustomResourceValidation {
        open_api_v3_schema: Some(std::sync::Arc::new(s)),
    });
    let (errs, _) = validate_crd(&crd, KubeVersion::default());
    // The root is an array: the only structural error; then the openAPI checks run.
    assert!(
        errs.iter()
            .any(|e| e.message().ends_with("must be object at the root")),
        "{:?}",
        errs
    );
}

#[test]
fn metadata_defaults_must_make_valid_metadata() {
    // `structuraldefaulting.validate`: the resource around a TypeMeta/ObjectMeta default is
    // coerced first, then the value's own schema is checked.
    assert_eq!(
        msgs(with_schema(json!({"type": "object", "properties": {
            "kind": {"type": "string", "default": 12}}}))),
        vec![
            format!("{}.properties[kind].default: Forbidden: must not be set in top-level kind", SV),
            format!("{}.properties[kind].default: Invalid value: 12: must result in valid metadata: kind: Invalid value: 12: must be a string", SV),
        ]
    );
}

#[test]
fn defaults_are_checked_against_written_formats() {
    // The default validator does not strip formats: the wrong type under `date-time`
    // reports the format and Go's type of the value.
    assert_eq!(
        msgs(spec_schema(json!({"type": "object", "properties": {
            "t": {"type": "string", "format": "date-time", "default": 12}}}))),
        vec![format!(
            "{}.properties[spec].properties[t].default: Invalid value: \"int64\":  in body must be of type date-time: \"int64\"",
            SV
        )]
    );
}

#[test]
fn rules_of_a_schema_with_invalid_defaults_are_not_compiled() {
    // No CEL context without valid defaults: the rule's compile error is not reported and
    // the version reports no rules (and so no cost).
    let crd = spec_schema(json!({"type": "object", "x-kubernetes-validations": [{"rule": "self.nope"}],
        "properties": {"n": {"type": "integer", "default": "x"}}}));
    let m = msgs(crd.clone());
    assert_eq!(m.len(), 1, "{:?}", m);
    assert!(m[0].ends_with("must be of type integer: \"string\""), "{:?}", m);
    let compiled = crate::crd::compiled::CompiledCrd::from_value(&crd, KubeVersion::default()).unwrap();
    assert!(compiled.versions[0].rule_summaries().is_empty());
    // With a valid default the rule compiles (and fails).
    let crd = spec_schema(json!({"type": "object", "x-kubernetes-validations": [{"rule": "self.nope"}],
        "properties": {"n": {"type": "integer", "default": 1}}}));
    let compiled = crate::crd::compiled::CompiledCrd::from_value(&crd, KubeVersion::default()).unwrap();
    // A rule that does not compile has zero costs (the apiserver counts it so).
    let summaries = compiled.versions[0].rule_summaries();
    assert_eq!(summaries.len(), 1);
    let s = &summaries[0];
    assert_eq!(s.schema_path, "openAPIV3Schema.properties[spec].x-kubernetes-validations[0]");
    assert_eq!((s.rule.as_str(), s.max_cost, s.max_cardinality, s.estimated_cost, s.message_cost), ("self.nope", 0, 0, 0, None));
}

#[test]
fn self_types_are_named_from_the_rule_node() {
    // prepareEnvSet names the node's own type (`selfType<N>`, N fixed at 0 here); list
    // elements are `.@idx` of it, not paths from the schema root.
    let m = msgs(spec_schema(json!({"type": "object", "properties": {"l": {"type": "array",
        "items": {"type": "object", "properties": {"a": {"type": "string"}}},
        "x-kubernetes-validations": [{"rule": "self.a == 'x'"}]}}})));
    assert_eq!(m.len(), 1, "{:?}", m);
    assert!(
        m[0].contains("compilation failed: ERROR: <input>:1:5: type 'list(selfType0.@idx)' does not support field selection"),
        "{:?}",
        m
    );
}

#[test]
fn total_cost_keeps_rules_of_one_percent_of_the_schema_limit() {
    let mut t = TotalCost::default();
    t.observe(Path::new("a"), STATIC_ESTIMATED_CRD_COST_LIMIT / 100 - 1);
    t.observe(Path::new("b"), STATIC_ESTIMATED_CRD_COST_LIMIT / 100);
    t.observe(Path::new("c"), STATIC_ESTIMATED_CRD_COST_LIMIT / 100);
    let kept: Vec<String> = t.most_expensive.iter().map(|(p, _)| p.to_string()).collect();
    // Ties keep the order they were observed in.
    assert_eq!(kept, vec!["b".to_string(), "c".to_string()]);
}

// ------------------------------------------------------------------- the checks cache

/// The CRD checks cache keys a schema without its descriptions: a description edit reuses
/// the checks whose errors print no schema, and re-runs those whose errors print one (here
/// the root schema, which a status subresource allows only some fields of), so that the
/// new description is what they print.
#[test]
fn cached_checks_print_the_edited_descriptions() {
    use crate::crd::{CompileCache, CompiledCrd};
    let crd = |description: &str, root_extra: Value| {
        let mut root = json!({
            "type": "object",
            "properties": {"spec": {"type": "object", "description": description,
                "x-kubernetes-validations": [{"rule": "self.size() < 3"}]}}
        });
        root.as_object_mut().unwrap().extend(root_extra.as_object().unwrap().clone());
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"kind": "Widget", "plural": "widgets"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "subresources": {"status": {}},
                    "schema": {"openAPIV3Schema": root}}]}
        })
    };
    let kube = KubeVersion::LATEST;
    for root_extra in [json!({"minProperties": 1}), json!({})] {
        let mut cache = CompileCache::default();
        for description in ["first words", "other words", "first words"] {
            let v = crd(description, root_extra.clone());
            let cached = CompiledCrd::from_value_cached(&v, None, kube, &mut cache).unwrap();
            let fresh = CompiledCrd::from_value(&v, kube).unwrap();
            let text = |c: &CompiledCrd| c.crd_errors.iter().map(|e| e.to_string()).collect::<Vec<_>>();
            assert_eq!(text(&cached), text(&fresh), "{} with {}", description, root_extra);
            let printed = text(&cached).iter().any(|e| e.contains(description));
            assert_eq!(printed, root_extra != json!({}), "{:?}", text(&cached));
        }
    }
}
