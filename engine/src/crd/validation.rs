//! The checks apiextensions `pkg/apis/apiextensions/validation` runs when a CRD is created
//! (`ValidateCustomResourceDefinition`), reported as `crdErrors`, and the warnings of the
//! CRD strategy (unrecognized formats), reported as `crdWarnings`.
//!
//! The apiserver validates the *internal* form of the CRD: the v1 → internal conversion
//! first moves per-version schemas, subresources, printer columns and selectable fields
//! that are identical in every version to the spec (so a single-version CRD reports
//! schema errors under `spec.validation.openAPIV3Schema`), and v1 defaulting fills
//! `names.singular`, `names.listKind` and `conversion`. [`InternalSpec`] is that view.
//!
//! CEL compilation, rule costs and the rules run over default values go through
//! [`cel_rule_compile_errors`], [`cel_schema_cost_errors`] and [`cel_default_errors`].

use crate::crd::gojson::{self, InternalVersion};
use crate::crd::model::{RULE_REASONS, 
    CustomResourceDefinition, CustomResourceValidation, ObjectMeta, JsonSchemaProps, SchemaOrArray,
    SchemaOrBool, SchemaOrStringArray, Subresources,
};
use crate::k8s::names;
use crate::cel::env::EnvOptions;
use crate::schema::cel::compile::{
    compile_node_rules_with, compile_rules, compile_subtree_rules, EnvLoader, RuleCompiler, RuleSet,
    RuleTree, SchemaChecks,
};
use crate::schema::cel::validation::validate_at;
use crate::schema::correlation::map_is_correlatable;
use crate::field::{BadValue, ErrorList, FieldError, Path};
use crate::schema::clean::{found_clean, keep_if_clean, key_in, Memo, Walk};
use crate::schema::lazy_path::LazyPath;
use std::hash::Hasher;
use crate::schema::structural;
use crate::version::{Feature, KubeVersion};
use serde_json::Value;

/// Returns the create errors and warnings of `crd` for the targeted release (those of an
/// update come from [`validate_crd_with`] with the update's loader).
pub fn validate_crd(crd: &CustomResourceDefinition, kube: KubeVersion) -> (ErrorList, Vec<String>) {
    let loader = EnvLoader::single(&EnvOptions::for_version(kube.minor.saturating_sub(1)));
    let mut cache = crate::schema::cel::compile::RuleCache::single_use();
    validate_crd_with(crd, kube, &mut RuleCompiler::new(loader, &mut cache))
}

/// [`validate_crd`] with the rules compiled by `rules` (whose loader must be the one of
/// the targeted release, and holds the old CRD's expressions on an update), so that a CRD
/// compile shares them with its versions.
pub fn validate_crd_with(
    crd: &CustomResourceDefinition,
    kube: KubeVersion,
    rules: &mut RuleCompiler<'_>,
) -> (ErrorList, Vec<String>) {
    let spec = InternalSpec::from_v1(crd);
    let mut errs = ErrorList::new();
    validate_object_meta(&crd.metadata, &spec, kube, &mut errs);
    validate_spec(&spec, kube, rules, &mut errs);
    validate_stored_versions(&spec, &mut errs);
    validate_api_approval(&crd.metadata, &spec, &mut errs);
    if spec.preserve_unknown_fields {
        errs.push(FieldError::invalid(
            Path::new("spec").child("preserveUnknownFields"),
            BadValue::Bool(true),
            "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
        ));
    }
    let warnings = format_warnings(&spec, kube, rules);
    (errs, warnings)
}

/// The errors of the CRD checks that read `metadata` (`ValidateObjectMeta`'s and
/// `validateAPIApproval`'s), in the order [`validate_crd_with`] lists them. No other check
/// reads `metadata.annotations`, and nothing compiled from a CRD does: two CRDs equal but
/// for their annotations compile alike exactly when these errors read alike.
/// `meta` stands for the CRD's own metadata: a CRD that differs from `crd` in metadata only
/// is checked without being decoded whole.
pub fn metadata_errors(meta: &ObjectMeta, crd: &CustomResourceDefinition, kube: KubeVersion) -> ErrorList {
    let spec = InternalSpec::from_v1(crd);
    let mut errs = ErrorList::new();
    validate_object_meta(meta, &spec, kube, &mut errs);
    validate_api_approval(meta, &spec, &mut errs);
    errs
}

// ------------------------------------------------------------------ the internal view

/// A printer column as the internal type holds it.
#[derive(Clone, Debug, PartialEq)]
struct Column {
    name: String,
    type_: String,
    format: String,
    description: String,
    priority: i64,
    json_path: String,
}

fn value_str(v: &Value, k: &str) -> String {
    v.get(k).and_then(Value::as_str).unwrap_or("").to_string()
}

fn column(v: &Value) -> Column {
    Column {
        name: value_str(v, "name"),
        type_: value_str(v, "type"),
        format: value_str(v, "format"),
        description: value_str(v, "description"),
        priority: v.get("priority").and_then(Value::as_i64).unwrap_or(0),
        json_path: value_str(v, "jsonPath"),
    }
}

fn columns(v: &[Value]) -> Vec<Column> {
    v.iter().map(column).collect()
}

fn selectable_paths(v: &[Value]) -> Vec<String> {
    v.iter().map(|f| value_str(f, "jsonPath")).collect()
}

/// `apiequality.Semantic.DeepEqual` of two per-version schemas. The model keeps neither
/// nil-versus-empty slices nor number representations apart from Go's, so equality of the
/// derived debug rendering (field by field, maps sorted) is the comparison; it is computed
/// without printing ([`crate::schema::fingerprint::schema_eq`]).
fn validation_eq(
    a: Option<&CustomResourceValidation>,
    b: Option<&CustomResourceValidation>,
) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => match (&a.open_api_v3_schema, &b.open_api_v3_schema) {
            (None, None) => true,
            (Some(x), Some(y)) => crate::schema::fingerprint::schema_eq(x, y),
            _ => false,
        },
        _ => false,
    }
}

fn subresources_eq(a: Option<&Subresources>, b: Option<&Subresources>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            a.status.is_some() == b.status.is_some()
                && match (&a.scale, &b.scale) {
                    (None, None) => true,
                    (Some(x), Some(y)) => {
                        x.spec_replicas_path == y.spec_replicas_path
                            && x.status_replicas_path == y.status_replicas_path
                            && x.label_selector_path == y.label_selector_path
                    }
                    _ => false,
                }
        }
        _ => false,
    }
}

/// The internal `CustomResourceDefinitionSpec` the apiserver validates.
pub struct InternalSpec<'a> {
    group: &'a str,
    /// `spec.version`: the first version's name.
    version: &'a str,
    plural: &'a str,
    singular: String,
    kind: &'a str,
    list_kind: String,
    short_names: &'a [String],
    categories: &'a [String],
    scope: &'a str,
    validation: Option<&'a CustomResourceValidation>,
    subresources: Option<&'a Subresources>,
    columns: Option<&'a [Value]>,
    selectable_fields: Option<&'a [Value]>,
    versions: Vec<InternalVersion<'a>>,
    conversion_strategy: String,
    /// `conversion.webhook` (v1): its `clientConfig` is the internal `webhookClientConfig`.
    webhook: Option<&'a Value>,
    preserve_unknown_fields: bool,
}

impl<'a> InternalSpec<'a> {
    /// v1 defaulting and the v1 → internal conversion.
    pub fn from_v1(crd: &'a CustomResourceDefinition) -> Self {
        let s = &crd.spec;
        let vs = &s.versions;
        let singular = if s.names.singular.is_empty() {
            s.names.kind.to_lowercase()
        } else {
            s.names.singular.clone()
        };
        let list_kind = if s.names.list_kind.is_empty() && !s.names.kind.is_empty() {
            format!("{}List", s.names.kind)
        } else {
            s.names.list_kind.clone()
        };
        let (conversion_strategy, webhook) = match &s.conversion {
            None => ("None".to_string(), None),
            Some(c) => (
                c.strategy.clone(),
                c.webhook.as_ref().filter(|w| !w.is_null()),
            ),
        };
        let mut versions: Vec<InternalVersion<'a>> = vs
            .iter()
            .map(|v| InternalVersion {
                name: &v.name,
                served: v.served,
                storage: v.storage,
                deprecated: v.deprecated,
                deprecation_warning: v.deprecation_warning.as_deref(),
                schema: v.schema.as_ref(),
                subresources: v.subresources.as_ref(),
                columns: Some(v.additional_printer_columns.as_slice()).filter(|c| !c.is_empty()),
                selectable_fields: Some(v.selectable_fields.as_slice()).filter(|c| !c.is_empty()),
            })
            .collect();
        let mut spec = InternalSpec {
            group: &s.group,
            version: vs.first().map(|v| v.name.as_str()).unwrap_or(""),
            plural: &s.names.plural,
            singular,
            kind: &s.names.kind,
            list_kind,
            short_names: &s.names.short_names,
            categories: &s.names.categories,
            scope: &s.scope,
            validation: None,
            subresources: None,
            columns: None,
            selectable_fields: None,
            versions: Vec::new(),
            conversion_strategy,
            webhook,
            preserve_unknown_fields: s.preserve_unknown_fields,
        };
        if let Some(first) = versions.first().copied() {
            if versions
                .iter()
                .all(|v| validation_eq(v.schema, first.schema))
            {
                spec.validation = first.schema;
                versions.iter_mut().for_each(|v| v.schema = None);
            }
            if versions
                .iter()
                .all(|v| subresources_eq(v.subresources, first.subresources))
            {
                spec.subresources = first.subresources;
                versions.iter_mut().for_each(|v| v.subresources = None);
            }
            let first_cols = columns(first.columns.unwrap_or(&[]));
            if versions
                .iter()
                .all(|v| columns(v.columns.unwrap_or(&[])) == first_cols)
            {
                spec.columns = first.columns;
                versions.iter_mut().for_each(|v| v.columns = None);
            }
            let first_sel = selectable_paths(first.selectable_fields.unwrap_or(&[]));
            if versions
                .iter()
                .all(|v| selectable_paths(v.selectable_fields.unwrap_or(&[])) == first_sel)
            {
                spec.selectable_fields = first.selectable_fields;
                versions.iter_mut().for_each(|v| v.selectable_fields = None);
            }
        }
        spec.versions = versions;
        spec
    }

    fn has_per_version_subresources(&self) -> bool {
        self.versions.iter().any(|v| v.subresources.is_some())
    }

    /// `getSubresourcesForVersion`.
    fn subresources_for_version(&self, name: &str) -> Option<&'a Subresources> {
        if !self.has_per_version_subresources() {
            return self.subresources;
        }
        self.versions
            .iter()
            .find(|v| v.name == name)
            .and_then(|v| v.subresources)
    }

    /// `hasAnyStatusEnabled`.
    fn any_status_enabled(&self) -> bool {
        status_enabled(self.subresources)
            || self.versions.iter().any(|v| status_enabled(v.subresources))
    }

    /// The schemas of the spec, top-level then per version (`HasSchemaWith`'s order).
    fn schemas(&self) -> impl Iterator<Item = &'a JsonSchemaProps> + '_ {
        self.validation
            .into_iter()
            .chain(self.versions.iter().filter_map(|v| v.schema))
            .filter_map(|cv| cv.open_api_v3_schema.as_deref())
    }
}

fn status_enabled(s: Option<&Subresources>) -> bool {
    s.map(|s| s.status.is_some()).unwrap_or(false)
}

// ----------------------------------------------------------------------- metadata

fn validate_object_meta(
    meta: &ObjectMeta,
    spec: &InternalSpec<'_>,
    kube: KubeVersion,
    errs: &mut ErrorList,
) {
    let md = Path::new("metadata");
    let required = format!("{}.{}", spec.plural, spec.group);
    let name_fn = |name: &str, prefix: bool| {
        let mut r = names::name_is_dns_subdomain(name, prefix);
        if name != required {
            r.push("must be spec.names.plural+\".\"+spec.group".to_string());
        }
        r
    };
    if !meta.generate_name.is_empty() {
        for m in name_fn(&meta.generate_name, true) {
            errs.push(FieldError::invalid(
                md.child("generateName"),
                BadValue::Str(meta.generate_name.clone()),
                m,
            ));
        }
    }
    if meta.name.is_empty() {
        // With a generateName the apiserver generates a random name first (which then
        // fails the plural.group rule); that random part cannot be reproduced.
        if meta.generate_name.is_empty() {
            errs.push(FieldError::required(
                md.child("name"),
                "name or generateName is required",
            ));
        }
    } else {
        for m in name_fn(&meta.name, false) {
            errs.push(FieldError::invalid(
                md.child("name"),
                BadValue::Str(meta.name.clone()),
                m,
            ));
        }
    }
    for (k, v) in &meta.labels {
        for m in names::is_qualified_name(k, kube) {
            errs.push(FieldError::invalid(
                md.child("labels"),
                BadValue::Str(k.clone()),
                m,
            ));
        }
        for m in names::is_valid_label_value(v, kube) {
            errs.push(FieldError::invalid(
                md.child("labels"),
                BadValue::Str(v.clone()),
                m,
            ));
        }
    }
    let mut size = 0usize;
    for (k, v) in &meta.annotations {
        for m in names::is_qualified_name(&k.to_lowercase(), kube) {
            errs.push(FieldError::invalid(
                md.child("annotations"),
                BadValue::Str(k.clone()),
                m,
            ));
        }
        size += k.len() + v.len();
    }
    if size > 256 * 1024 {
        errs.push(FieldError::too_long(
            md.child("annotations"),
            BadValue::Str(String::new()),
            256 * 1024,
        ));
    }
}

/// `ValidateCustomResourceDefinitionStoredVersions` after `PrepareForCreate`, which sets
/// `status.storedVersions` to the first storage version.
fn validate_stored_versions(spec: &InternalSpec<'_>, errs: &mut ErrorList) {
    let path = Path::new("status").child("storedVersions");
    let stored: Vec<String> = spec
        .versions
        .iter()
        .find(|v| v.storage)
        .map(|v| vec![v.name.to_string()])
        .unwrap_or_default();
    if stored.is_empty() {
        // The value is a nil `[]string`: JSON `null` from 1.34, `%#v` before.
        errs.push(FieldError::invalid(
            path,
            BadValue::GoStruct { json: "null".into(), go: "[]string(nil)".into() },
            "must have at least one stored version",
        ));
        return;
    }
    let json = Value::Array(stored.iter().map(|s| Value::String(s.clone())).collect());
    for v in &spec.versions {
        if v.storage && !stored.iter().any(|s| s == v.name) {
            errs.push(FieldError::invalid(
                path.clone(),
                BadValue::Json(json.clone()),
                format!("must have the storage version {}", v.name),
            ));
        }
    }
}

const KUBE_API_APPROVED: &str = "api-approved.kubernetes.io";

/// `validateAPIApproval` for groups under k8s.io and kubernetes.io.
fn validate_api_approval(
    meta: &ObjectMeta,
    spec: &InternalSpec<'_>,
    errs: &mut ErrorList,
) {
    let g = spec.group;
    let protected = g == "k8s.io"
        || g.ends_with(".k8s.io")
        || g == "kubernetes.io"
        || g.ends_with(".kubernetes.io");
    if !protected {
        return;
    }
    let path = Path::new("metadata")
        .child("annotations")
        .key(KUBE_API_APPROVED);
    let annotation = meta
        .annotations
        .get(KUBE_API_APPROVED)
        .map(String::as_str)
        .unwrap_or("");
    if annotation.is_empty() {
        errs.push(FieldError::required(
            path,
            format!(
                "protected groups must have approval annotation {}, see https://github.com/kubernetes/enhancements/pull/1111",
                crate::go::strconv::quote(KUBE_API_APPROVED)
            ),
        ));
        return;
    }
    if annotation.starts_with("unapproved") {
        return;
    }
    // url.ParseRequestURI: an absolute URL with a scheme and a host.
    let approved = crate::go::neturl::parse_go_url(annotation)
        .map(|u| !u.scheme.is_empty() && !u.host.is_empty() && annotation.contains("://"))
        .unwrap_or(false);
    if !approved {
        errs.push(FieldError::invalid(
            path,
            BadValue::Str(annotation.to_string()),
            format!(
                "protected groups must have approval annotation {} with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111",
                crate::go::strconv::quote(KUBE_API_APPROVED)
            ),
        ));
    }
}

// --------------------------------------------------------------------------- spec

/// The release whose missing-schema error carries no detail (observed on v1.36.3).
const BARE_SCHEMA_REQUIRED_SINCE: u32 = Feature::BareSchemaRequired.since();

fn validate_spec(
    spec: &InternalSpec<'_>,
    kube: KubeVersion,
    rules: &mut RuleCompiler<'_>,
    errs: &mut ErrorList,
) {
    let sp = Path::new("spec");
    if spec.group.is_empty() {
        errs.push(FieldError::required(sp.child("group"), ""));
    } else {
        let e = names::is_dns1123_subdomain(spec.group);
        if !e.is_empty() {
            errs.push(FieldError::invalid(
                sp.child("group"),
                BadValue::Str(spec.group.into()),
                e.join(","),
            ));
        } else if spec.group.split('.').count() < 2 {
            errs.push(FieldError::invalid(
                sp.child("group"),
                BadValue::Str(spec.group.into()),
                "should be a domain with at least one dot",
            ));
        }
    }
    validate_enum(
        &sp.child("scope"),
        spec.scope,
        &["Cluster", "Namespaced"],
        errs,
    );

    // requireOpenAPISchema: every version needs a schema unless a top-level one exists.
    if spec
        .validation
        .and_then(|v| v.open_api_v3_schema.as_ref())
        .is_none()
    {
        for (i, v) in spec.versions.iter().enumerate() {
            if v.schema
                .and_then(|s| s.open_api_v3_schema.as_ref())
                .is_none()
            {
                // The v1.36 apiserver answers a version without schema with a bare
                // `Required value` (no detail); earlier releases' source says why.
                let detail = if kube.at_least(BARE_SCHEMA_REQUIRED_SINCE) { "" } else { "schemas are required" };
                errs.push(FieldError::required(
                    sp.child("versions")
                        .index(i)
                        .child("schema")
                        .child("openAPIV3Schema"),
                    detail,
                ));
            }
        }
    }
    if spec.preserve_unknown_fields && spec.schemas().any(|s| schema_has(s, &|n| n.applies_default())) {
        errs.push(FieldError::invalid(
            sp.child("preserveUnknownFields"),
            BadValue::Bool(true),
            "must be false in order to use defaults in the schema",
        ));
    }

    let mut storage = 0;
    let mut seen: Vec<&str> = Vec::new();
    let mut unique = true;
    for (i, v) in spec.versions.iter().enumerate() {
        if v.storage {
            storage += 1;
        }
        if seen.contains(&v.name) {
            unique = false;
        } else {
            seen.push(v.name);
        }
        let vp = sp.child("versions").index(i);
        let e = names::is_dns1035_label(v.name);
        if !e.is_empty() {
            errs.push(FieldError::invalid(
                vp.child("name"),
                BadValue::Str(v.name.into()),
                e.join(","),
            ));
        }
        let status = status_enabled(spec.subresources_for_version(v.name));
        validate_version(v, &vp, status, kube, rules, errs);
    }
    let versions_json = || BadValue::Raw(gojson::versions(&spec.versions));
    if !unique {
        errs.push(FieldError::invalid(
            sp.child("versions"),
            versions_json(),
            "must contain unique version names",
        ));
    }
    if storage != 1 {
        errs.push(FieldError::invalid(
            sp.child("versions"),
            versions_json(),
            "must have exactly one version marked as storage version",
        ));
    }
    if !spec.version.is_empty() {
        let e = names::is_dns1035_label(spec.version);
        if !e.is_empty() {
            errs.push(FieldError::invalid(
                sp.child("version"),
                BadValue::Str(spec.version.into()),
                e.join(","),
            ));
        }
    }

    let np = sp.child("names");
    if spec.plural.is_empty() {
        errs.push(FieldError::required(np.child("plural"), ""));
    }
    if spec.singular.is_empty() {
        errs.push(FieldError::required(np.child("singular"), ""));
    }
    if spec.kind.is_empty() {
        errs.push(FieldError::required(np.child("kind"), ""));
    }
    if spec.list_kind.is_empty() {
        errs.push(FieldError::required(np.child("listKind"), ""));
    }
    validate_names(spec, &np, errs);

    let mark = errs.len();
    validate_validation(
        spec.validation,
        spec.any_status_enabled(),
        &sp.child("validation"),
        kube,
        rules,
        errs,
    );
    // The top-level schema counts as the first version's (`spec.Version`).
    if let Some(first) = spec.versions.first() {
        suppress_cost_of_unchanged_schema(first.name, kube, rules.loader(), errs, mark);
    }
    validate_subresources(spec.subresources, &sp.child("subresources"), errs);
    for (i, c) in spec.columns.unwrap_or(&[]).iter().enumerate() {
        validate_column(
            &column(c),
            &sp.child("additionalPrinterColumns").index(i),
            errs,
        );
    }
    if let Some(fields) = spec
        .selectable_fields
        .filter(|_| kube.at_least(SELECTABLE_FIELDS_SINCE))
    {
        let fp = sp.child("selectableFields");
        match spec.validation {
            None => errs.push(FieldError::invalid(
                fp,
                BadValue::Str(String::new()),
                "selectableFields may only be set when validations.schema is included",
            )),
            Some(cv) => selectable_fields_with_schema(
                fields,
                cv.open_api_v3_schema.as_deref(),
                &sp,
                &fp,
                errs,
            ),
        }
    }

    if spec.conversion_strategy != "None" && spec.preserve_unknown_fields {
        errs.push(FieldError::invalid(
            sp.child("conversion").child("strategy"),
            BadValue::Str(spec.conversion_strategy.clone()),
            "must be None if spec.preserveUnknownFields is true",
        ));
    }
    validate_conversion(spec, &sp.child("conversion"), errs);
}

/// `validateEnumStrings` with `required`.
fn validate_enum(path: &Path, value: &str, accepted: &[&str], errs: &mut ErrorList) {
    if value.is_empty() {
        errs.push(FieldError::required(path.clone(), ""));
    } else if !accepted.contains(&value) {
        let valid: Vec<String> = accepted.iter().map(|s| s.to_string()).collect();
        errs.push(FieldError::not_supported(
            path.clone(),
            BadValue::Str(value.into()),
            &valid,
        ));
    }
}

/// `ValidateCustomResourceDefinitionNames` (spec.names, with v1 defaults applied).
fn validate_names(spec: &InternalSpec<'_>, np: &Path, errs: &mut ErrorList) {
    let plain = |errs: &mut ErrorList, field: &str, v: &str| {
        let e = names::is_dns1035_label(v);
        if !v.is_empty() && !e.is_empty() {
            errs.push(FieldError::invalid(
                np.child(field),
                BadValue::Str(v.into()),
                e.join(","),
            ));
        }
    };
    plain(errs, "plural", spec.plural);
    plain(errs, "singular", &spec.singular);
    let mixed = |errs: &mut ErrorList, field: &str, v: &str| {
        let e = names::is_dns1035_label(&v.to_lowercase());
        if !v.is_empty() && !e.is_empty() {
            errs.push(FieldError::invalid(
                np.child(field),
                BadValue::Str(v.into()),
                format!(
                    "may have mixed case, but should otherwise match: {}",
                    e.join(",")
                ),
            ));
        }
    };
    mixed(errs, "kind", spec.kind);
    mixed(errs, "listKind", &spec.list_kind);
    for (i, s) in spec.short_names.iter().enumerate() {
        let e = names::is_dns1035_label(s);
        if !e.is_empty() {
            errs.push(FieldError::invalid(
                np.child("shortNames").index(i),
                BadValue::Str(s.clone()),
                e.join(","),
            ));
        }
    }
    if !spec.kind.is_empty() && spec.kind == spec.list_kind {
        errs.push(FieldError::invalid(
            np.child("listKind"),
            BadValue::Str(spec.list_kind.clone()),
            "kind and listKind may not be the same",
        ));
    }
    for (i, c) in spec.categories.iter().enumerate() {
        let e = names::is_dns1035_label(c);
        if !e.is_empty() {
            errs.push(FieldError::invalid(
                np.child("categories").index(i),
                BadValue::Str(c.clone()),
                e.join(","),
            ));
        }
    }
}

/// `validateCustomResourceDefinitionVersion`.
fn validate_version(
    v: &InternalVersion<'_>,
    vp: &Path,
    status: bool,
    kube: KubeVersion,
    rules: &mut RuleCompiler<'_>,
    errs: &mut ErrorList,
) {
    for m in deprecation_warning_errors(v.deprecated, v.deprecation_warning) {
        let value = match v.deprecation_warning {
            Some(w) => BadValue::Str(w.into()),
            None => BadValue::Null,
        };
        errs.push(FieldError::invalid(
            vp.child("deprecationWarning"),
            value,
            m,
        ));
    }
    let mark = errs.len();
    validate_validation(v.schema, status, &vp.child("schema"), kube, rules, errs);
    suppress_cost_of_unchanged_schema(v.name, kube, rules.loader(), errs, mark);
    validate_subresources(v.subresources, &vp.child("subresources"), errs);
    for (i, c) in v.columns.unwrap_or(&[]).iter().enumerate() {
        validate_column(
            &column(c),
            &vp.child("additionalPrinterColumns").index(i),
            errs,
        );
    }
    if let Some(fields) = v
        .selectable_fields
        .filter(|_| kube.at_least(SELECTABLE_FIELDS_SINCE))
    {
        let fp = vp.child("selectableFields");
        match v.schema.and_then(|s| s.open_api_v3_schema.as_deref()) {
            None => errs.push(FieldError::invalid(
                fp,
                BadValue::Str(String::new()),
                "selectableFields may only be set when version.schema.openAPIV3Schema is not included",
            )),
            Some(s) => selectable_fields_with_schema(fields, Some(s), vp, &fp, errs),
        }
    }
}

fn selectable_fields_with_schema(
    fields: &[Value],
    s: Option<&JsonSchemaProps>,
    parent: &Path,
    fp: &Path,
    errs: &mut ErrorList,
) {
    if let Some(s) = s {
        if let Some(e) = structural::new_structural_error(s) {
            errs.push(FieldError::invalid(
                parent.child("schema.openAPIV3Schema"),
                BadValue::Str(String::new()),
                e,
            ));
            return;
        }
    }
    validate_selectable_fields(fields, s, fp, errs);
}

fn deprecation_warning_errors(deprecated: bool, warning: Option<&str>) -> Vec<String> {
    let Some(w) = warning else { return Vec::new() };
    if !deprecated {
        return vec!["can only be set for deprecated versions".into()];
    }
    let mut errs = Vec::new();
    if w.len() > 256 {
        errs.push("must be <= 256 characters long".into());
    }
    if w.is_empty() {
        errs.push("must not be an empty string".into());
    }
    for (i, c) in w.char_indices() {
        // Go checks IsPrint before IsControl, so a control character is "non-printable".
        if !crate::go::unicode::is_print(c) {
            errs.push(format!("must only contain printable UTF-8 characters; non-printable character found at index {}", i));
            break;
        }
    }
    errs
}

/// `selectableFields` is decoded (feature on by default) from 1.31.
const SELECTABLE_FIELDS_SINCE: u32 = Feature::SelectableFields.since();

/// `ValidateCustomResourceSelectableFields` (`MaxSelectableFields` = 8).
fn validate_selectable_fields(
    fields: &[Value],
    s: Option<&JsonSchemaProps>,
    fp: &Path,
    errs: &mut ErrorList,
) {
    let mut unique: Vec<String> = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        let ip = fp.index(i).child("jsonPath");
        let jp = value_str(f, "jsonPath");
        if jp.is_empty() {
            errs.push(FieldError::required(ip, ""));
            continue;
        }
        let found = match s {
            None => Err("does not refer to a valid field".to_string()),
            Some(s) => valid_field_path(&jp, s, false),
        };
        let (path, root, schema) = match found {
            Err(e) => {
                errs.push(FieldError::invalid(
                    ip,
                    BadValue::Str(jp),
                    format!("is an invalid path: {}", e),
                ));
                continue;
            }
            Ok(x) => x,
        };
        if root == "metadata" {
            errs.push(FieldError::invalid(
                ip.clone(),
                BadValue::Str(jp.clone()),
                "must not point to fields in metadata",
            ));
        }
        if !schema
            .map(|s| matches!(s.type_str(), "string" | "boolean" | "integer"))
            .unwrap_or(false)
        {
            errs.push(FieldError::invalid(
                ip.clone(),
                BadValue::Str(jp.clone()),
                "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.",
            ));
        }
        if unique.contains(&path) {
            errs.push(FieldError::duplicate(ip, BadValue::Str(jp)));
        } else {
            unique.push(path);
        }
    }
    if unique.len() > 8 {
        errs.push(FieldError::too_many(fp.clone(), unique.len() as i64, 8));
    }
}

/// `cel.ValidFieldPath`: a JSON path of field and map accessors (`.a`, `['a.b']`) valid
/// for the structural schema `s`. Returns the path as `field.Path` prints it, the text of
/// its root element, and the schema found (none under a boolean additionalProperties).
pub fn valid_field_path<'s>(
    json_path: &str,
    s: &'s JsonSchemaProps,
    allow_array: bool,
) -> Result<(String, String, Option<&'s JsonSchemaProps>), String> {
    let tokens = field_path_tokens(json_path);
    let mut it = tokens.into_iter();
    let mut path = Path::root();
    let mut root: Option<String> = None;
    let mut schema: Option<&'s JsonSchemaProps> = Some(s);
    let invalid = || "does not refer to a valid field".to_string();
    while let Some(tok) = it.next() {
        let name = match tok.as_str() {
            "[" => {
                if !allow_array {
                    return Err("array notation is not allowed".into());
                }
                let Some(t) = it.next() else {
                    return Err("unexpected end of JSON path".into());
                };
                if t.len() < 2 || !t.starts_with('\'') || !t.ends_with('\'') {
                    return Err(format!("expected single quoted string but got {}", t));
                }
                let unescaped = unescape_single_quote(&t[1..t.len() - 1])
                    .map_err(|e| format!("invalid string literal: {}", e))?;
                let name = unescaped;
                (name, true)
            }
            "." => {
                let Some(t) = it.next() else {
                    return Err("unexpected end of JSON path".into());
                };
                (t, false)
            }
            other => return Err(format!("expected [ or . but got: {}", other)),
        };
        let (name, bracket) = name;
        let Some(cur) = schema else {
            return Err(invalid());
        };
        if !cur.properties.is_empty() {
            path = path.child(&name);
            if root.is_none() {
                root = Some(name.clone());
            }
            match cur.properties.get(&name) {
                Some(p) => schema = Some(p),
                None => return Err(invalid()),
            }
        } else if cur.additional_properties.is_some() {
            path = path.key(&name);
            if root.is_none() {
                root = Some(format!("[{}]", name));
            }
            schema = cur.additional_properties_schema();
        } else {
            return Err(invalid());
        }
        if bracket {
            match it.next() {
                None => return Err("unexpected end of JSON path".into()),
                Some(t) if t != "]" => return Err(format!("expected ] but got {}", t)),
                Some(_) => {}
            }
        }
    }
    Ok((path.as_str().to_string(), root.unwrap_or_default(), schema))
}

/// The tokens of Go's split function in `ValidFieldPath`: '.', '[' and ']' alone, a
/// single-quoted string up to its closing unescaped quote, anything else up to the next
/// delimiter.
fn field_path_tokens(s: &str) -> Vec<String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    while start < b.len() {
        let data = &b[start..];
        let mut adv = data.len();
        if data[0] == b'\'' {
            for i in 1..data.len() {
                if data[i] == b'\'' && data[i - 1] != b'\\' {
                    adv = i + 1;
                    break;
                }
            }
        } else {
            for (i, &c) in data.iter().enumerate() {
                if c == b'.' || c == b'[' || c == b']' {
                    adv = if i == 0 { 1 } else { i };
                    break;
                }
            }
        }
        out.push(String::from_utf8_lossy(&data[..adv]).into_owned());
        start += adv;
    }
    out
}

fn unescape_single_quote(s: &str) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    let mut err = None;
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('a') => out.push('\u{7}'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('v') => out.push('\u{b}'),
            Some('\'') => out.push('\''),
            Some('\\') => out.push('\\'),
            Some(o) => {
                err.get_or_insert_with(|| format!("invalid escape char \\{}", o));
            }
            None => out.push('\\'),
        }
    }
    match err {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// `ValidateCustomResourceColumnDefinition`.
fn validate_column(c: &Column, cp: &Path, errs: &mut ErrorList) {
    const TYPES: &str = "boolean,date,integer,number,string";
    const FORMATS: &str = "byte,date,date-time,double,float,int32,int64,password";
    if c.name.is_empty() {
        errs.push(FieldError::required(cp.child("name"), ""));
    }
    if c.type_.is_empty() {
        errs.push(FieldError::required(
            cp.child("type"),
            format!("must be one of {}", TYPES),
        ));
    } else if !TYPES.split(',').any(|t| t == c.type_) {
        errs.push(FieldError::invalid(
            cp.child("type"),
            BadValue::Str(c.type_.clone()),
            format!("must be one of {}", TYPES),
        ));
    }
    if !c.format.is_empty() && !FORMATS.split(',').any(|f| f == c.format) {
        errs.push(FieldError::invalid(
            cp.child("format"),
            BadValue::Str(c.format.clone()),
            format!("must be one of {}", FORMATS),
        ));
    }
    if c.json_path.is_empty() {
        errs.push(FieldError::required(cp.child("JSONPath"), ""));
    } else {
        errs.extend(simple_json_path_errors(&c.json_path, &cp.child("JSONPath")));
    }
}

/// `validateSimpleJSONPath`.
fn simple_json_path_errors(s: &str, p: &Path) -> ErrorList {
    if s.is_empty() {
        return vec![FieldError::invalid(
            p.clone(),
            BadValue::Str(String::new()),
            "must not be empty",
        )];
    }
    if !s.starts_with('.') {
        return vec![FieldError::invalid(
            p.clone(),
            BadValue::Str(s.into()),
            "must be a simple json path starting with .",
        )];
    }
    Vec::new()
}

/// `ValidateCustomResourceDefinitionSubresources`.
fn validate_subresources(sr: Option<&Subresources>, p: &Path, errs: &mut ErrorList) {
    let Some(scale) = sr.and_then(|s| s.scale.as_ref()) else {
        return;
    };
    let spec_path = p.child("scale.specReplicasPath");
    if scale.spec_replicas_path.is_empty() {
        errs.push(FieldError::required(spec_path, ""));
    } else {
        let e = simple_json_path_errors(&scale.spec_replicas_path, &spec_path);
        if !e.is_empty() {
            errs.extend(e);
        } else if !scale.spec_replicas_path.starts_with(".spec.") {
            errs.push(FieldError::invalid(
                spec_path,
                BadValue::Str(scale.spec_replicas_path.clone()),
                "should be a json path under .spec",
            ));
        }
    }
    let status_path = p.child("scale.statusReplicasPath");
    if scale.status_replicas_path.is_empty() {
        errs.push(FieldError::required(status_path, ""));
    } else {
        let e = simple_json_path_errors(&scale.status_replicas_path, &status_path);
        if !e.is_empty() {
            errs.extend(e);
        } else if !scale.status_replicas_path.starts_with(".status.") {
            errs.push(FieldError::invalid(
                status_path,
                BadValue::Str(scale.status_replicas_path.clone()),
                "should be a json path under .status",
            ));
        }
    }
    if let Some(ls) = scale
        .label_selector_path
        .as_deref()
        .filter(|s| !s.is_empty())
    {
        let lp = p.child("scale.labelSelectorPath");
        let e = simple_json_path_errors(ls, &lp);
        if !e.is_empty() {
            errs.extend(e);
        } else if !ls.starts_with(".spec.") && !ls.starts_with(".status.") {
            errs.push(FieldError::invalid(
                lp,
                BadValue::Str(ls.into()),
                "should be a json path under either .spec or .status",
            ));
        }
    }
}

// --------------------------------------------------------------------- conversion

fn validate_conversion(spec: &InternalSpec<'_>, cp: &Path, errs: &mut ErrorList) {
    validate_enum(
        &cp.child("strategy"),
        &spec.conversion_strategy,
        &["None", "Webhook"],
        errs,
    );
    let client_config = spec
        .webhook
        .and_then(|w| w.get("clientConfig"))
        .filter(|c| !c.is_null());
    let review_versions: Vec<String> = spec
        .webhook
        .and_then(|w| w.get("conversionReviewVersions"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|v| v.as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default();
    let wp = cp.child("webhookClientConfig");
    if spec.conversion_strategy == "Webhook" {
        match client_config {
            None => errs.push(FieldError::required(
                wp,
                "required when strategy is set to Webhook",
            )),
            Some(cc) => {
                let url = cc.get("url").and_then(Value::as_str);
                let service = cc.get("service").filter(|s| !s.is_null());
                match (url, service) {
                    (Some(_), Some(_)) | (None, None) => errs.push(FieldError::required(
                        wp,
                        "exactly one of url or service is required",
                    )),
                    (Some(u), None) => validate_webhook_url(&wp.child("url"), u, errs),
                    (None, Some(s)) => validate_webhook_service(&wp.child("service"), s, errs),
                }
                // An invalid caBundle is allowed on create.
            }
        }
        validate_review_versions(
            &review_versions,
            &cp.child("conversionReviewVersions"),
            errs,
        );
    } else {
        if client_config.is_some() {
            errs.push(FieldError::forbidden(
                wp,
                "should not be set when strategy is not set to Webhook",
            ));
        }
        if !review_versions.is_empty() {
            errs.push(FieldError::forbidden(
                cp.child("conversionReviewVersions"),
                "should not be set when strategy is not set to Webhook",
            ));
        }
    }
}

fn validate_review_versions(versions: &[String], p: &Path, errs: &mut ErrorList) {
    if versions.is_empty() {
        errs.push(FieldError::required(p.clone(), ""));
        return;
    }
    let mut seen: Vec<&str> = Vec::new();
    let mut accepted = false;
    for (i, v) in versions.iter().enumerate() {
        if seen.contains(&v.as_str()) {
            errs.push(FieldError::invalid(
                p.index(i),
                BadValue::Str(v.clone()),
                "duplicate version",
            ));
            continue;
        }
        seen.push(v);
        for m in names::is_dns1035_label(v) {
            errs.push(FieldError::invalid(p.index(i), BadValue::Str(v.clone()), m));
        }
        if v == "v1" || v == "v1beta1" {
            accepted = true;
        }
    }
    if !accepted {
        let json = Value::Array(versions.iter().map(|v| Value::String(v.clone())).collect());
        errs.push(FieldError::invalid(
            p.clone(),
            BadValue::Json(json),
            "must include at least one of v1, v1beta1",
        ));
    }
}

/// `webhook.ValidateWebhookURL` with `forceHttps`.
fn validate_webhook_url(p: &Path, url: &str, errs: &mut ErrorList) {
    const FORM: &str = "; desired format: https://host[/path]";
    match crate::go::neturl::parse_go_url(url) {
        Err(e) => errs.push(FieldError::required(
            p.clone(),
            format!("url must be a valid URL: {}{}", e, FORM),
        )),
        Ok(u) => {
            if u.scheme != "https" {
                errs.push(FieldError::invalid(
                    p.clone(),
                    BadValue::Str(u.scheme.clone()),
                    format!("'https' is the only allowed URL scheme{}", FORM),
                ));
            }
            if u.host.is_empty() {
                errs.push(FieldError::invalid(
                    p.clone(),
                    BadValue::Str(String::new()),
                    format!("host must be specified{}", FORM),
                ));
            }
            if let Some(user) = u.user {
                errs.push(FieldError::invalid(
                    p.clone(),
                    BadValue::Str(user),
                    "user information is not permitted in the URL",
                ));
            }
            if !u.fragment.is_empty() {
                errs.push(FieldError::invalid(
                    p.clone(),
                    BadValue::Str(u.fragment),
                    "fragments are not permitted in the URL",
                ));
            }
            if !u.raw_query.is_empty() {
                errs.push(FieldError::invalid(
                    p.clone(),
                    BadValue::Str(u.raw_query),
                    "query parameters are not permitted in the URL",
                ));
            }
        }
    }
}

/// `webhook.ValidateWebhookService` (the port defaults to 443).
fn validate_webhook_service(p: &Path, s: &Value, errs: &mut ErrorList) {
    let name = s.get("name").and_then(Value::as_str).unwrap_or("");
    let namespace = s.get("namespace").and_then(Value::as_str).unwrap_or("");
    let port = s.get("port").and_then(Value::as_i64).unwrap_or(443);
    if name.is_empty() {
        errs.push(FieldError::required(p.child("name"), ""));
    }
    if namespace.is_empty() {
        errs.push(FieldError::required(p.child("namespace"), ""));
    }
    if !(1..=65535).contains(&port) {
        errs.push(FieldError::invalid(
            p.child("port"),
            BadValue::Int(port),
            "port is not valid: must be between 1 and 65535, inclusive",
        ));
    }
    let Some(url_path) = s.get("path").and_then(Value::as_str) else {
        return;
    };
    if url_path == "/" || url_path.is_empty() {
        return;
    }
    let pp = p.child("path");
    if url_path == "//" {
        errs.push(FieldError::invalid(
            pp,
            BadValue::Str(url_path.into()),
            "segment[0] may not be empty",
        ));
        return;
    }
    if !url_path.starts_with('/') {
        errs.push(FieldError::invalid(
            pp.clone(),
            BadValue::Str(url_path.into()),
            "must start with a '/'",
        ));
    }
    let mut check = url_path.get(1..).unwrap_or("");
    if let Some(c) = check.strip_suffix('/') {
        check = c;
    }
    for (i, step) in check.split('/').enumerate() {
        if step.is_empty() {
            errs.push(FieldError::invalid(
                pp.clone(),
                BadValue::Str(url_path.into()),
                format!("segment[{}] may not be empty", i),
            ));
            continue;
        }
        for f in names::is_dns1123_subdomain(step) {
            errs.push(FieldError::invalid(
                pp.clone(),
                BadValue::Str(url_path.into()),
                format!("segment[{}]: {}", i, f),
            ));
        }
    }
}

// ------------------------------------------------------------------------- schemas


/// `SchemaHas`: whether `pred` holds for any node of the schema.
fn schema_has(s: &JsonSchemaProps, pred: &dyn Fn(&JsonSchemaProps) -> bool) -> bool {
    if pred(s) {
        return true;
    }
    match &s.items {
        Some(SchemaOrArray::Schema(i)) if schema_has(i, pred) => return true,
        Some(SchemaOrArray::Array(a)) if a.iter().any(|x| schema_has(x, pred)) => return true,
        _ => {}
    }
    if s.all_of
        .iter()
        .chain(s.any_of.iter())
        .chain(s.one_of.iter())
        .any(|x| schema_has(x, pred))
    {
        return true;
    }
    if s.not
        .as_deref()
        .map(|n| schema_has(n, pred))
        .unwrap_or(false)
    {
        return true;
    }
    if s.properties.values().any(|x| schema_has(x, pred)) {
        return true;
    }
    if let Some(SchemaOrBool::Schema(a)) = &s.additional_properties {
        if schema_has(a, pred) {
            return true;
        }
    }
    if s.pattern_properties.values().any(|x| schema_has(x, pred)) {
        return true;
    }
    if let Some(SchemaOrBool::Schema(a)) = &s.additional_items {
        if schema_has(a, pred) {
            return true;
        }
    }
    if s.definitions.values().any(|x| schema_has(x, pred)) {
        return true;
    }
    s.dependencies
        .values()
        .any(|d| matches!(d, SchemaOrStringArray::Schema(x) if schema_has(x, pred)))
}

/// The fields allowed at the root of a schema when the status subresource is enabled.
const ALLOWED_AT_ROOT: &str = "[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations]";

/// The first non-zero field of the root schema, in Go struct order, that is not allowed
/// with the status subresource (`Some("Type")` for a type other than object).
fn first_disallowed_root_field(s: &JsonSchemaProps) -> Option<&'static str> {
    let set = |b: bool, name: &'static str| if b { Some(name) } else { None };
    let str_set = |o: &Option<String>| o.as_deref().map(|x| !x.is_empty()).unwrap_or(false);
    let checks = [
        set(str_set(&s.id), "ID"),
        set(str_set(&s.schema), "Schema"),
        set(s.reference.is_some(), "Ref"),
        set(!s.type_str().is_empty() && s.type_str() != "object", "Type"),
        set(s.nullable, "Nullable"),
        set(s.applies_default(), "Default"),
        set(
            s.enum_.as_ref().map(|e| !e.is_empty()).unwrap_or(false),
            "Enum",
        ),
        set(s.max_properties.is_some(), "MaxProperties"),
        set(s.min_properties.is_some(), "MinProperties"),
        set(!s.all_of.is_empty(), "AllOf"),
        set(!s.one_of.is_empty(), "OneOf"),
        set(!s.any_of.is_empty(), "AnyOf"),
        set(s.not.is_some(), "Not"),
        set(s.additional_properties.is_some(), "AdditionalProperties"),
        set(!s.pattern_properties.is_empty(), "PatternProperties"),
        set(!s.dependencies.is_empty(), "Dependencies"),
        set(s.additional_items.is_some(), "AdditionalItems"),
        set(!s.definitions.is_empty(), "Definitions"),
        set(s.x_embedded_resource, "XEmbeddedResource"),
        set(s.x_int_or_string, "XIntOrString"),
        set(!s.x_list_map_keys.is_empty(), "XListMapKeys"),
        set(s.x_list_type.is_some(), "XListType"),
        set(s.x_map_type.is_some(), "XMapType"),
    ];
    checks.into_iter().flatten().next()
}

/// `validateCustomResourceDefinitionValidation` of one schema (`spec.validation` or a
/// version's `schema`), with `path` naming that field.
fn validate_validation(
    cv: Option<&CustomResourceValidation>,
    status_enabled: bool,
    path: &Path,
    kube: KubeVersion,
    rule_compiler: &mut RuleCompiler<'_>,
    errs: &mut ErrorList,
) {
    let Some(cv) = cv else { return };
    let Some(schema) = cv.open_api_v3_schema.as_deref() else {
        return;
    };
    // A schema checked by an earlier compile in the same context has the same errors.
    let key = rule_compiler.checks_key(schema, status_enabled, path.as_str(), kube);
    let checks = match key.as_ref().and_then(|k| rule_compiler.cached_checks(k, schema)) {
        Some(checks) => checks,
        None => {
            let checks = schema_checks(schema, status_enabled, path, kube, rule_compiler);
            if let Some(key) = key {
                rule_compiler.store_checks(key, schema, &checks);
            }
            checks
        }
    };
    if !checks.cel_context {
        rule_compiler.note_without_cel_context(schema);
    }
    errs.extend(checks.errors);
}

/// The checks of [`validate_validation`] on its schema.
fn schema_checks(
    schema: &JsonSchemaProps,
    status_enabled: bool,
    path: &Path,
    kube: KubeVersion,
    rule_compiler: &mut RuleCompiler<'_>,
) -> SchemaChecks {
    let mut local = ErrorList::new();
    if status_enabled {
        match first_disallowed_root_field(schema) {
            Some("Type") => local.push(FieldError::invalid(
                path.child("openAPIV3Schema.type"),
                BadValue::Str(schema.type_str().into()),
                "only \"object\" is allowed as the type at the root of the schema if the status subresource is enabled",
            )),
            Some(_) => local.push(FieldError::invalid(
                path.child("openAPIV3Schema"),
                BadValue::Raw(gojson::schema_props(schema)),
                format!("only {} fields are allowed at the root of the schema if the status subresource is enabled", ALLOWED_AT_ROOT),
            )),
            None => {}
        }
    }
    if schema.nullable {
        local.push(FieldError::forbidden(
            path.child("openAPIV3Schema.nullable"),
            "nullable cannot be true at the root",
        ));
    }
    let root = path.child("openAPIV3Schema");
    let mut clean = rule_compiler.take_clean(kube);
    let mut init_errs = ErrorList::new();
    let mut cel_ok = false;
    match structural::new_structural_error(schema) {
        Some(e) => init_errs.push(FieldError::invalid(
            root.clone(),
            BadValue::Str(String::new()),
            e,
        )),
        None => {
            let se = structural::validate_structural(&root, schema, &mut clean);
            if !se.is_empty() {
                local.extend(se);
            } else {
                let de = validate_defaults(&root, schema, kube, &mut clean);
                if !de.is_empty() {
                    local.extend(de);
                } else {
                    cel_ok = true;
                }
            }
        }
    }
    // The rules are compiled once for the whole schema (and shared with the compiled
    // versions); the per-node checks read their compile errors from it.
    let rules = cel_ok.then(|| rule_compiler.rule_set(schema));
    let cel = rules.as_ref().map(|rs| {
        let mut index = std::collections::HashMap::new();
        index_rule_errors(schema, &rs.tree, &mut index);
        CelChecks {
            rule_errors: index,
            loader: rule_compiler.loader(),
        }
    });
    let oe = openapi_schema(
        schema,
        &LazyPath::new(&root),
        &Ssv::default(),
        true,
        cel.as_ref(),
        kube,
        &mut clean,
    );
    drop(cel);
    rule_compiler.put_clean(clean);
    local.extend(oe.schema);
    local.extend(oe.cel);
    if local.is_empty() && !init_errs.is_empty() {
        local.extend(init_errs);
    }
    if let Some(rs) = &rules {
        local.extend(cel_schema_cost_errors_of(rs, &root));
    }
    SchemaChecks {
        errors: local,
        cel_context: cel_ok,
    }
}

/// A node's rule compile errors: (rule, rule error, messageExpression error) per rule.
type NodeRuleErrors = Vec<(
    crate::crd::model::ValidationRule,
    Option<String>,
    Option<String>,
)>;

/// The CEL context of a schema's checks (`CELSchemaContext`): the compile errors of the
/// schema's rules by node address, so that the per-node walk does not compile rules
/// again, and the environments they compile in.
struct CelChecks<'l> {
    rule_errors: std::collections::HashMap<usize, NodeRuleErrors>,
    loader: &'l EnvLoader,
}

fn index_rule_errors(
    s: &JsonSchemaProps,
    t: &RuleTree,
    index: &mut std::collections::HashMap<usize, NodeRuleErrors>,
) {
    if !t.rules.is_empty() {
        index.insert(
            s as *const JsonSchemaProps as usize,
            t.rules
                .iter()
                .map(|c| (c.rule.clone(), c.error.clone(), c.message_error.clone()))
                .collect(),
        );
    }
    for (k, child) in &t.properties {
        if let Some(p) = s.properties.get(k) {
            index_rule_errors(p, child, index);
        }
    }
    if let (Some(ct), Some(i)) = (&t.items, s.items_schema()) {
        index_rule_errors(i, ct, index);
    }
    if let (Some(ct), Some(a)) = (&t.additional, s.additional_properties_schema()) {
        index_rule_errors(a, ct, index);
    }
}

/// `specStandardValidatorV3` and the context `ValidateCustomResourceDefinitionOpenAPISchema`
/// passes down.
#[derive(Clone, Debug)]
struct Ssv {
    allow_defaults: bool,
    /// Shared: the context is copied at every node.
    disallow_defaults_reason: std::rc::Rc<str>,
    inside_resource_meta: bool,
    /// The highest ancestor below which old and new values cannot be correlated.
    uncorrelatable: Option<std::rc::Rc<Path>>,
}

impl Default for Ssv {
    fn default() -> Self {
        Ssv {
            allow_defaults: true,
            disallow_defaults_reason: std::rc::Rc::from(""),
            inside_resource_meta: false,
            uncorrelatable: None,
        }
    }
}

impl Ssv {
    /// Hashes what the checks below a node read of the context (a key of
    /// [`crate::schema::clean`]).
    fn hash_state(&self, h: &mut impl Hasher) {
        h.write_u8(self.allow_defaults as u8 | (self.inside_resource_meta as u8) << 1);
        h.write(self.disallow_defaults_reason.as_bytes());
        h.write_u8(0xff);
        if let Some(u) = &self.uncorrelatable {
            h.write(u.as_str().as_bytes());
        }
    }

    fn with_forbidden_defaults(&self, reason: &str) -> Ssv {
        Ssv {
            allow_defaults: false,
            disallow_defaults_reason: reason.into(),
            ..self.clone()
        }
    }
    fn with_inside_resource_meta(&self) -> Ssv {
        Ssv {
            inside_resource_meta: true,
            ..self.clone()
        }
    }
    fn with_forbid_old_self(&self, p: &LazyPath<'_>) -> Ssv {
        if self.uncorrelatable.is_some() {
            return self.clone();
        }
        Ssv {
            uncorrelatable: Some(std::rc::Rc::new(p.path())),
            ..self.clone()
        }
    }

    fn validate(&self, s: &JsonSchemaProps, p: &LazyPath<'_>, errs: &mut ErrorList) {
        const TYPES: [&str; 6] = ["array", "boolean", "integer", "number", "object", "string"];
        let t = s.type_str();
        if !t.is_empty() && !TYPES.contains(&t) {
            let valid: Vec<String> = TYPES.iter().map(|x| x.to_string()).collect();
            errs.push(FieldError::not_supported(
                p.path().child("type"),
                BadValue::Str(t.into()),
                &valid,
            ));
        }
        if s.applies_default() && !self.allow_defaults {
            let mut detail = "must not be set".to_string();
            if !self.disallow_defaults_reason.is_empty() {
                detail.push(' ');
                detail.push_str(&self.disallow_defaults_reason);
            }
            errs.push(FieldError::forbidden(p.path().child("default"), detail));
        }
        if s.id.as_deref().map(|x| !x.is_empty()).unwrap_or(false) {
            errs.push(FieldError::forbidden(
                p.path().child("id"),
                "id is not supported",
            ));
        }
        if s.additional_items.is_some() {
            errs.push(FieldError::forbidden(
                p.path().child("additionalItems"),
                "additionalItems is not supported",
            ));
        }
        if !s.pattern_properties.is_empty() {
            errs.push(FieldError::forbidden(
                p.path().child("patternProperties"),
                "patternProperties is not supported",
            ));
        }
        if !s.definitions.is_empty() {
            errs.push(FieldError::forbidden(
                p.path().child("definitions"),
                "definitions is not supported",
            ));
        }
        if !s.dependencies.is_empty() {
            errs.push(FieldError::forbidden(
                p.path().child("dependencies"),
                "dependencies is not supported",
            ));
        }
        if s.reference.is_some() {
            errs.push(FieldError::forbidden(
                p.path().child("$ref"),
                "$ref is not supported",
            ));
        }
        if t == "null" {
            errs.push(FieldError::forbidden(
                p.path().child("type"),
                "type cannot be set to null, use nullable as an alternative",
            ));
        }
        if matches!(&s.items, Some(SchemaOrArray::Array(a)) if !a.is_empty()) {
            errs.push(FieldError::forbidden(
                p.path().child("items"),
                "items must be a schema object and not an array",
            ));
        }
        if self.inside_resource_meta && s.x_embedded_resource {
            errs.push(FieldError::forbidden(
                p.path().child("x-kubernetes-embedded-resource"),
                "must not be used inside of resource meta",
            ));
        }
    }
}

#[derive(Default)]
struct OpenApiErrors {
    schema: ErrorList,
    cel: ErrorList,
}

impl OpenApiErrors {
    fn append(&mut self, o: OpenApiErrors) {
        self.schema.extend(o.schema);
        self.cel.extend(o.cel);
    }
}

const META_FIELDS: [&str; 3] = ["metadata", "kind", "apiVersion"];

/// `validateOpenAPISchema` of one node and everything below it, skipping a subtree an
/// earlier compile found clean in the same state ([`crate::schema::clean`]; `clean`, with
/// its context, when the compile keeps them).
fn openapi_schema(
    s: &JsonSchemaProps,
    p: &LazyPath<'_>,
    ssv: &Ssv,
    is_root: bool,
    cel: Option<&CelChecks<'_>>,
    kube: KubeVersion,
    clean: &mut Memo,
) -> OpenApiErrors {
    let key = key_in(clean, Walk::OpenApi, s, p, |h| {
        ssv.hash_state(h);
        h.write_u8(is_root as u8 | (cel.is_some() as u8) << 1);
    });
    if found_clean(clean, key) {
        return OpenApiErrors::default();
    }
    let out = openapi_node(s, p, ssv, is_root, cel, kube, clean);
    keep_if_clean(clean, key, out.schema.is_empty() && out.cel.is_empty());
    out
}

/// `ValidateCustomResourceDefinitionOpenAPISchema`: every node's checks. `cel` is the CEL
/// context, when it exists (the schema is structural and its defaults valid) and this node
/// is reached through properties, items or additionalProperties.
fn openapi_node(
    s: &JsonSchemaProps,
    p: &LazyPath<'_>,
    ssv: &Ssv,
    is_root: bool,
    cel: Option<&CelChecks<'_>>,
    kube: KubeVersion,
    clean: &mut Memo,
) -> OpenApiErrors {
    let mut out = OpenApiErrors::default();
    ssv.validate(s, p, &mut out.schema);
    if s.unique_items {
        out.schema.push(FieldError::forbidden(
            p.path().child("uniqueItems"),
            "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
        ));
    }
    if let Some(ap) = &s.additional_properties {
        if !s.properties.is_empty()
            && matches!(ap, SchemaOrBool::Bool(false) | SchemaOrBool::Schema(_))
        {
            out.schema.push(FieldError::forbidden(
                p.path().child("additionalProperties"),
                "additionalProperties and properties are mutual exclusive",
            ));
        }
        let sub = if ssv.inside_resource_meta {
            ssv.with_forbidden_defaults("inside additionalProperties applying to object metadata")
        } else {
            ssv.clone()
        };
        if let SchemaOrBool::Schema(a) = ap {
            out.append(openapi_schema(
                a,
                &p.child("additionalProperties"),
                &sub,
                false,
                cel,
                kube,
                clean,
            ));
        }
    }
    let properties = p.child("properties");
    for (k, prop) in &s.properties {
        let mut sub = ssv.clone();
        if !map_is_correlatable(s.x_map_type.as_deref()) {
            sub = sub.with_forbid_old_self(p);
        }
        if (is_root || s.x_embedded_resource) && META_FIELDS.contains(&k.as_str()) {
            sub = sub.with_inside_resource_meta();
            if is_root {
                sub = sub.with_forbidden_defaults(&format!("in top-level {}", k));
            }
        }
        out.append(openapi_schema(
            prop,
            &properties.key(k),
            &sub,
            false,
            cel,
            kube,
            clean,
        ));
    }
    if let Some(n) = &s.not {
        out.append(openapi_schema(n, &p.child("not"), ssv, false, None, kube, clean));
    }
    let all_of = p.child("allOf");
    for (i, x) in s.all_of.iter().enumerate() {
        out.append(openapi_schema(x, &all_of.index(i), ssv, false, None, kube, clean));
    }
    let one_of = p.child("oneOf");
    for (i, x) in s.one_of.iter().enumerate() {
        out.append(openapi_schema(x, &one_of.index(i), ssv, false, None, kube, clean));
    }
    let any_of = p.child("anyOf");
    for (i, x) in s.any_of.iter().enumerate() {
        out.append(openapi_schema(x, &any_of.index(i), ssv, false, None, kube, clean));
    }
    let definitions = p.child("definitions");
    for (k, x) in &s.definitions {
        out.append(openapi_schema(
            x,
            &definitions.key(k),
            ssv,
            false,
            None,
            kube,
            clean,
        ));
    }
    if let Some(items) = &s.items {
        let sub = if s.x_list_type.as_deref() != Some("map") {
            ssv.with_forbid_old_self(p)
        } else {
            ssv.clone()
        };
        match items {
            SchemaOrArray::Schema(i) => {
                out.append(openapi_schema(i, &p.child("items"), &sub, false, cel, kube, clean))
            }
            SchemaOrArray::Array(a) => {
                let items = p.child("items");
                for (i, x) in a.iter().enumerate() {
                    out.append(openapi_schema(x, &items.index(i), &sub, false, cel, kube, clean));
                }
            }
        }
    }
    let dependencies = p.child("dependencies");
    for (k, d) in &s.dependencies {
        if let SchemaOrStringArray::Schema(x) = d {
            out.append(openapi_schema(
                x,
                &dependencies.key(k),
                ssv,
                false,
                None,
                kube,
                clean,
            ));
        }
    }
    extension_errors(s, p, &mut out.schema);
    map_list_keys_map_set_errors(s, p, &mut out.schema);
    if !s.x_validations.is_empty() {
        let p = p.path();
        rule_field_errors(s, &p, kube, &mut out.schema);
        if let Some(cel) = cel.filter(|_| out.schema.is_empty()) {
            out.cel
                .extend(cel_rule_compile_errors(s, &p, is_root, cel, kube));
            old_self_errors(s, &p, ssv, kube, &mut out.cel);
        }
    }
    out
}

/// The x-kubernetes-* consistency checks of one node.
fn extension_errors(s: &JsonSchemaProps, p: &LazyPath<'_>, errs: &mut ErrorList) {
    let t = s.type_str();
    if s.x_preserve_unknown_fields == Some(false) {
        errs.push(FieldError::invalid(
            p.path().child("x-kubernetes-preserve-unknown-fields"),
            BadValue::Bool(false),
            "must be true or undefined",
        ));
    }
    if let Some(mt) = s.x_map_type.as_deref() {
        if t != "object" {
            if t.is_empty() {
                errs.push(FieldError::required(
                    p.path().child("type"),
                    "must be object if x-kubernetes-map-type is specified",
                ));
            } else {
                errs.push(FieldError::invalid(
                    p.path().child("type"),
                    BadValue::Str(t.into()),
                    "must be object if x-kubernetes-map-type is specified",
                ));
            }
        }
        if mt != "atomic" && mt != "granular" {
            errs.push(FieldError::not_supported(
                p.path().child("x-kubernetes-map-type"),
                BadValue::Str(mt.into()),
                &["atomic".to_string(), "granular".to_string()],
            ));
        }
    }
    let item_schema = s.items_schema();
    if let Some(lt) = s.x_list_type.as_deref() {
        if t != "array" {
            if t.is_empty() {
                errs.push(FieldError::required(
                    p.path().child("type"),
                    "must be array if x-kubernetes-list-type is specified",
                ));
            } else {
                errs.push(FieldError::invalid(
                    p.path().child("type"),
                    BadValue::Str(t.into()),
                    "must be array if x-kubernetes-list-type is specified",
                ));
            }
        } else if lt == "set" {
            if let Some(is) = item_schema {
                let bad_value = match is.x_list_type.as_deref() {
                    Some(v) => BadValue::Str(v.into()),
                    None => BadValue::Null,
                };
                match is.type_str() {
                    "array" => {
                        if is
                            .x_list_type
                            .as_deref()
                            .map(|v| v != "atomic")
                            .unwrap_or(false)
                        {
                            errs.push(FieldError::invalid(
                                p.path().child("items").child("x-kubernetes-list-type"),
                                bad_value,
                                "must be atomic as item of a list with x-kubernetes-list-type=set",
                            ));
                        }
                    }
                    "object" => {
                        if is.x_map_type.as_deref() != Some("atomic") {
                            // The apiserver prints the items' list type here.
                            errs.push(FieldError::invalid(
                                p.path().child("items").child("x-kubernetes-map-type"),
                                bad_value,
                                "must be atomic as item of a list with x-kubernetes-list-type=set",
                            ));
                        }
                    }
                    _ => {}
                }
            }
        }
        if lt != "atomic" && lt != "set" && lt != "map" {
            errs.push(FieldError::not_supported(
                p.path().child("x-kubernetes-list-type"),
                BadValue::Str(lt.into()),
                &["atomic".to_string(), "set".to_string(), "map".to_string()],
            ));
        }
    }
    let keys_json = || {
        BadValue::Json(Value::Array(
            s.x_list_map_keys
                .iter()
                .map(|k| Value::String(k.clone()))
                .collect(),
        ))
    };
    if !s.x_list_map_keys.is_empty() {
        match s.x_list_type.as_deref() {
            None => errs.push(FieldError::required(
                p.path().child("x-kubernetes-list-type"),
                "must be map if x-kubernetes-list-map-keys is non-empty",
            )),
            Some("map") => {}
            Some(lt) => errs.push(FieldError::invalid(
                p.path().child("x-kubernetes-list-type"),
                BadValue::Str(lt.into()),
                "must be map if x-kubernetes-list-map-keys is non-empty",
            )),
        }
    }
    if s.x_list_type.as_deref() == Some("map") {
        if s.x_list_map_keys.is_empty() {
            errs.push(FieldError::required(
                p.path().child("x-kubernetes-list-map-keys"),
                "must not be empty if x-kubernetes-list-type is map",
            ));
        }
        match &s.items {
            None => errs.push(FieldError::required(
                p.path().child("items"),
                "must have a schema if x-kubernetes-list-type is map",
            )),
            Some(SchemaOrArray::Array(_)) => errs.push(FieldError::invalid(
                p.path().child("items"),
                BadValue::Raw(gojson::items_json(&s.items)),
                "must only have a single schema if x-kubernetes-list-type is map",
            )),
            Some(SchemaOrArray::Schema(is)) => {
                if is.type_str() != "object" {
                    errs.push(FieldError::invalid(
                        p.path().child("items").child("type"),
                        BadValue::Str(is.type_str().into()),
                        "must be object if parent array's x-kubernetes-list-type is map",
                    ));
                } else {
                    let mut seen: Vec<&str> = Vec::new();
                    for k in &s.x_list_map_keys {
                        match is.properties.get(k) {
                            Some(ks) => {
                                if matches!(ks.type_str(), "array" | "object") {
                                    // The apiserver prints the items' type here.
                                    errs.push(FieldError::invalid(
                                        p.path().child("items").child("properties").key(k).child("type"),
                                        BadValue::Str(is.type_str().into()),
                                        "must be a scalar type if parent array's x-kubernetes-list-type is map",
                                    ));
                                }
                            }
                            None => errs.push(FieldError::invalid(
                                p.path().child("x-kubernetes-list-map-keys"),
                                keys_json(),
                                "entries must all be names of item properties",
                            )),
                        }
                        if seen.contains(&k.as_str()) {
                            errs.push(FieldError::invalid(
                                p.path().child("x-kubernetes-list-map-keys"),
                                keys_json(),
                                "must not contain duplicate entries",
                            ));
                        }
                        seen.push(k);
                    }
                }
            }
        }
    }
}

/// `validateMapListKeysMapSet`.
fn map_list_keys_map_set_errors(s: &JsonSchemaProps, p: &LazyPath<'_>, errs: &mut ErrorList) {
    let Some(is) = s.items_schema() else { return };
    let Some(lt) = s.x_list_type.as_deref() else {
        return;
    };
    if lt != "set" && lt != "map" {
        return;
    }
    if is.nullable {
        errs.push(FieldError::forbidden(
            p.path().child("items").child("nullable"),
            format!("cannot be nullable when x-kubernetes-list-type is {}", lt),
        ));
    }
    if lt == "map" {
        for k in &s.x_list_map_keys {
            let Some(ks) = is.properties.get(k) else {
                continue;
            };
            if !is.required.contains(k) && !ks.applies_default() {
                errs.push(FieldError::required(
                    p.path().child("items").child("properties").key(k).child("default"),
                    "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
                ));
            }
            if ks.nullable {
                errs.push(FieldError::forbidden(
                    p.path()
                        .child("items")
                        .child("properties")
                        .key(k)
                        .child("nullable"),
                    "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
                ));
            }
        }
    }
}

/// `[\n\r]+` (the line breaks of the CEL grammar).
fn has_newlines(s: &str) -> bool {
    s.contains('\n') || s.contains('\r')
}

/// Go's `strings.TrimSpace`.
fn trim_space(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || c == '\u{85}')
}

/// The field checks of every `x-kubernetes-validations` entry that need no CEL compiler.
/// Releases before a field existed drop it when decoding the CRD, so its checks do not
/// apply there (messageExpression 1.27, reason and fieldPath 1.28).
fn rule_field_errors(s: &JsonSchemaProps, p: &Path, kube: KubeVersion, errs: &mut ErrorList) {
    for (i, r) in s.x_validations.iter().enumerate() {
        let rp = p.child("x-kubernetes-validations").index(i);
        let rule = trim_space(&r.rule);
        let msg = trim_space(&r.message);
        if rule.is_empty() {
            errs.push(FieldError::required(
                rp.child("rule"),
                "rule is not specified",
            ));
        } else if !r.message.is_empty() && msg.is_empty() {
            errs.push(FieldError::invalid(
                rp.child("message"),
                BadValue::Str(r.message.clone()),
                "message must be non-empty if specified",
            ));
        } else if has_newlines(msg) {
            errs.push(FieldError::invalid(
                rp.child("message"),
                BadValue::Str(r.message.clone()),
                "message must not contain line breaks",
            ));
        } else if has_newlines(rule) && msg.is_empty() {
            errs.push(FieldError::required(
                rp.child("message"),
                "message must be specified if rule contains line breaks",
            ));
        }
        if kube.has(Feature::MessageExpression)
            && !r.message_expression.is_empty()
            && trim_space(&r.message_expression).is_empty()
        {
            errs.push(FieldError::required(
                rp.child("messageExpression"),
                "messageExpression must be non-empty if specified",
            ));
        }
        if !kube.has(Feature::ReasonAndFieldPath) {
            continue;
        }
        if let Some(reason) = &r.reason {
            if !RULE_REASONS.iter().any(|t| t.reason() == reason.as_str()) {
                // `sets.List(supportedValidationReason)`: the names sorted.
                let mut valid: Vec<String> = RULE_REASONS.iter().map(|t| t.reason().to_string()).collect();
                crate::go::sort::sort(&mut valid);
                errs.push(FieldError::not_supported(
                    rp.child("reason"),
                    BadValue::Str(reason.clone()),
                    &valid,
                ));
            }
        }
        if !r.field_path.is_empty() && trim_space(&r.field_path).is_empty() {
            errs.push(FieldError::invalid(
                rp.child("fieldPath"),
                BadValue::Str(r.field_path.clone()),
                "fieldPath must be non-empty if specified",
            ));
        }
        if has_newlines(&r.field_path) {
            errs.push(FieldError::invalid(
                rp.child("fieldPath"),
                BadValue::Str(r.field_path.clone()),
                "fieldPath must not contain line breaks",
            ));
        }
        if !r.field_path.is_empty() && !field_path_valid(s, &r.field_path) {
            errs.push(FieldError::invalid(
                rp.child("fieldPath"),
                BadValue::Str(r.field_path.clone()),
                "fieldPath must be a valid path",
            ));
        }
    }
}

/// `pathValid`: a fieldPath is checked only when the node converts to a structural schema.
fn field_path_valid(s: &JsonSchemaProps, path: &str) -> bool {
    if structural::new_structural_error(s).is_some() {
        return true;
    }
    valid_field_path(path, s, true).is_ok()
}

/// Whether a rule refers to the `oldSelf` variable (a transition rule). The CEL compiler
/// knows this from the checked expression; here the rule is scanned for an `oldSelf`
/// identifier outside string literals and not selected as a field (`x.oldSelf`).
pub fn rule_uses_old_self(rule: &str) -> bool {
    let b = rule.as_bytes();
    let mut i = 0;
    let mut prev_sig: u8 = 0; // last non-space byte outside strings
    while i < b.len() {
        let c = b[i];
        // string literals, with optional r/R (raw) and b/B prefixes
        let (raw, q_at) = {
            let mut j = i;
            let mut raw = false;
            while j < b.len() && j < i + 2 && matches!(b[j], b'r' | b'R' | b'b' | b'B') {
                if matches!(b[j], b'r' | b'R') {
                    raw = true;
                }
                j += 1;
            }
            let is_prefix_start = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
            if j < b.len() && (b[j] == b'"' || b[j] == b'\'') && (j == i || is_prefix_start) {
                (raw, Some(j))
            } else {
                (false, None)
            }
        };
        if let Some(q) = q_at {
            let quote = b[q];
            let triple = q + 2 < b.len() && b[q + 1] == quote && b[q + 2] == quote;
            let mut k = if triple { q + 3 } else { q + 1 };
            loop {
                if k >= b.len() {
                    break;
                }
                if b[k] == b'\\' && !raw {
                    k += 2;
                    continue;
                }
                if triple {
                    if k + 2 < b.len() && b[k] == quote && b[k + 1] == quote && b[k + 2] == quote {
                        k += 3;
                        break;
                    }
                } else if b[k] == quote {
                    k += 1;
                    break;
                }
                k += 1;
            }
            i = k;
            prev_sig = b'"';
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            if &rule[start..i] == "oldSelf" && prev_sig != b'.' {
                return true;
            }
            prev_sig = b'a';
            continue;
        }
        if !c.is_ascii_whitespace() {
            prev_sig = c;
        }
        i += 1;
    }
    false
}

/// The oldSelf placement checks of the CEL compilation step: a transition rule below a
/// list that is not a map list (or a map with an unknown map type) is rejected, and
/// `optionalOldSelf` needs a transition rule (the field exists from 1.29, on by default
/// from 1.30).
fn old_self_errors(
    s: &JsonSchemaProps,
    p: &Path,
    ssv: &Ssv,
    kube: KubeVersion,
    errs: &mut ErrorList,
) {
    for (i, r) in s.x_validations.iter().enumerate() {
        let rp = p.child("x-kubernetes-validations").index(i);
        if rule_uses_old_self(&r.rule) {
            if let Some(u) = &ssv.uncorrelatable {
                errs.push(FieldError::invalid(
                    rp.child("rule"),
                    BadValue::Str(r.rule.clone()),
                    format!("oldSelf cannot be used on the uncorrelatable portion of the schema within {}", u),
                ));
            }
        } else if let Some(b) = r.optional_old_self.filter(|_| kube.has(Feature::OptionalOldSelf)) {
            errs.push(FieldError::invalid(
                rp.child("optionalOldSelf"),
                BadValue::Bool(b),
                "may not be set if oldSelf is not used in rule",
            ));
        }
    }
}

// ------------------------------------------------------------------------ defaults

/// `structuraldefaulting.ValidateDefaults` at the resource root: every default must be
/// valid against its schema and survive pruning.
fn validate_defaults(root_path: &Path, root: &JsonSchemaProps, kube: KubeVersion, clean: &mut Memo) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut walk = DefaultsWalk {
        kube,
        resource_root: root,
        steps: Vec::new(),
        errs: &mut errs,
        clean,
    };
    walk.node(&LazyPath::new(root_path), root, true, false);
    errs
}

/// One step of `SurroundingObjectFunc` from the resource root down to a default.
enum Step<'s> {
    Child(&'s str),
    Index,
}

/// The recursion of `structuraldefaulting.validate`.
struct DefaultsWalk<'s, 'e> {
    kube: KubeVersion,
    /// The resource (schema root or embedded resource) the current node belongs to.
    resource_root: &'s JsonSchemaProps,
    /// The steps from `resource_root` to the current node.
    steps: Vec<Step<'s>>,
    errs: &'e mut ErrorList,
    /// Subtrees found clean before ([`crate::schema::clean`]), when the compile keeps them.
    clean: &'e mut Memo,
}

impl<'s> DefaultsWalk<'s, '_> {
    /// A subtree found clean before is skipped; one found clean now is kept. (A default
    /// inside metadata is checked within the object around it: not skipped.)
    fn node(&mut self, p: &LazyPath<'_>, s: &'s JsonSchemaProps, is_resource_root: bool, inside_meta: bool) {
        let key = if inside_meta { None } else { key_in(self.clean, Walk::Defaults, s, p, |h| h.write_u8(is_resource_root as u8)) };
        if found_clean(self.clean, key) {
            return;
        }
        let before = self.errs.len();
        self.node_walk(p, s, is_resource_root, inside_meta);
        keep_if_clean(self.clean, key, self.errs.len() == before);
    }

    fn node_walk(&mut self, p: &LazyPath<'_>, s: &'s JsonSchemaProps, is_resource_root: bool, inside_meta: bool) {
        let embedded = is_resource_root || s.x_embedded_resource;
        let inside_meta = if embedded { false } else { inside_meta };
        let (outer_root, outer_steps) = if embedded {
            (std::mem::replace(&mut self.resource_root, s), std::mem::take(&mut self.steps))
        } else {
            (self.resource_root, Vec::new())
        };
        if let Some(d) = s.default.as_ref().filter(|d| !d.is_null()) {
            let dp = p.path().child("default");
            let errs = if inside_meta {
                self.meta_default_errors(&dp, s, d, is_resource_root)
            } else {
                let mut errs = ErrorList::new();
                let mut pruned = d.clone();
                crate::schema::pruning::prune(&mut pruned, Some(s), embedded);
                if &pruned != d {
                    errs.push(FieldError::invalid(
                        dp.clone(),
                        BadValue::from_json(d),
                        "must not have unknown fields",
                    ));
                }
                let mut me = ErrorList::new();
                crate::schema::objectmeta::validate_embedded(&dp, d, Some(s), false, self.kube, &mut me);
                if !me.is_empty() {
                    errs.extend(me);
                } else {
                    errs.extend(default_value_errors(s, &dp, d, is_resource_root, self.kube));
                }
                errs
            };
            self.errs.extend(errs);
        }
        // additionalProperties are not followed.
        if let Some(i) = s.items_schema() {
            self.steps.push(Step::Index);
            self.node(&p.child("items"), i, false, inside_meta);
            self.steps.pop();
        }
        let properties = p.child("properties");
        for (k, prop) in &s.properties {
            let sub_inside = inside_meta || (embedded && META_FIELDS.contains(&k.as_str()));
            self.steps.push(Step::Child(k));
            self.node(&properties.key(k), prop, false, sub_inside);
            self.steps.pop();
        }
        if embedded {
            self.resource_root = outer_root;
            self.steps = outer_steps;
        }
    }

    /// A default inside `metadata`/`apiVersion`/`kind`: the object around it (the resource
    /// with only this value, `apiVersion: validation/v1`, `kind: Validation` where unset,
    /// as `NewRootObjectFunc().WithTypeMeta(...)` builds it) must coerce and validate as
    /// object metadata before the value itself is validated.
    fn meta_default_errors(&self, dp: &Path, s: &JsonSchemaProps, d: &Value, is_resource_root: bool) -> ErrorList {
        let mut obj = d.clone();
        for step in self.steps.iter().rev() {
            obj = match step {
                Step::Child(k) => Value::Object(std::iter::once((k.to_string(), obj)).collect()),
                Step::Index => Value::Array(vec![obj]),
            };
        }
        let mut errs = ErrorList::new();
        let Value::Object(mut m) = obj else {
            // `f` fails only when the root object is not a map, which cannot happen here.
            return errs;
        };
        m.entry("kind").or_insert_with(|| Value::String("Validation".into()));
        m.entry("apiVersion").or_insert_with(|| Value::String("validation/v1".into()));
        let mut obj = Value::Object(m);
        let invalid = |detail: String| FieldError::invalid(dp.clone(), BadValue::from_json(d), format!("must result in valid metadata: {}", detail));
        // `schemaobjectmeta.Coerce/Validate(nil, obj, rootSchema, isResourceRoot=true)`: the
        // resource root is checked as an embedded resource.
        let mut root = self.resource_root.clone();
        root.x_embedded_resource = true;
        if let (Some(e), _) = crate::schema::objectmeta::coerce(&mut obj, Some(&root)) {
            errs.push(invalid(e.message()));
            return errs;
        }
        let mut me = ErrorList::new();
        crate::schema::objectmeta::validate_embedded(&Path::root(), &obj, Some(&root), false, self.kube, &mut me);
        if !me.is_empty() {
            errs.push(invalid(crate::field::aggregate(&me.iter().map(FieldError::message).collect::<Vec<_>>())));
            return errs;
        }
        default_value_errors(s, dp, d, is_resource_root, self.kube)
    }
}


/// `ValidateCustomResource` of a default with `NewSchemaValidatorFromOpenAPI(s.ToKubeOpenAPI())`,
/// then its CEL rules. That validator sees the schema's formats as written (no
/// `StripUnsupportedFormats`): a default of the wrong type under a format reports the
/// format (`must be of type date-time: "int64"`).
fn default_value_errors(s: &JsonSchemaProps, dp: &Path, d: &Value, is_resource_root: bool, kube: KubeVersion) -> ErrorList {
    let mut ve = ErrorList::new();
    if schema_has(s, &|n: &JsonSchemaProps| n.format.as_deref().is_some_and(|f| !f.is_empty())) {
        let mut unstripped = s.clone();
        with_written_formats(&mut unstripped, kube);
        crate::validation::schema::validate_for(kube, &unstripped, dp, d, &mut ve);
    } else {
        crate::validation::schema::validate_for(kube, s, dp, d, &mut ve);
    }
    if ve.is_empty() {
        ve.extend(cel_default_errors(s, dp, d, is_resource_root, kube));
    }
    ve
}

/// Sets every node's validated format to its written `format`.
fn with_written_formats(s: &mut JsonSchemaProps, kube: KubeVersion) {
    let f = s.format.clone().unwrap_or_default();
    s.numeric_format_ranges = kube.at_least(crate::k8s::strfmt::NUMERIC_FORMATS_SINCE)
        && matches!(f.as_str(), "int32" | "int64" | "float" | "double");
    s.validation_format = f;
    s.for_each_child_mut(&mut |c| with_written_formats(c, kube));
}

// ----------------------------------------------------------------------- CEL seams

/// Seam: compiling the `x-kubernetes-validations` of one schema node (the `cel.Compile`
/// block of `ValidateCustomResourceDefinitionOpenAPISchema`): compile errors
/// (`compilation failed: ...`, `cel expression must evaluate to a bool`), messageExpression
/// errors, and the per-expression cost limit. Called only when the schema is structural,
/// its defaults are valid and no schema error was found at or below this node. Returns
/// nothing until the CEL issue implements it.
fn cel_rule_compile_errors(
    node: &JsonSchemaProps,
    node_path: &Path,
    is_root: bool,
    cel: &CelChecks<'_>,
    kube: KubeVersion,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let key = node as *const JsonSchemaProps as usize;
    let compiled: NodeRuleErrors =
        match cel.rule_errors.get(&key).cloned() {
            Some(c) => c,
            None => compile_node_rules_with(node, is_root, cel.loader)
                .into_iter()
                .map(|c| (c.rule, c.error, c.message_error))
                .collect(),
        };
    for (i, (rule, error, message_error)) in compiled.iter().enumerate() {
        let rp = node_path.child("x-kubernetes-validations").index(i);
        let value = || BadValue::GoStruct {
            json: gojson::validation_rule(rule),
            go: gojson::validation_rule_go(rule, kube),
        };
        if let Some(e) = error {
            errs.push(FieldError::invalid(rp.child("rule"), value(), e.clone()));
        }
        if let Some(e) = message_error {
            errs.push(FieldError::invalid(
                rp.child("messageExpression"),
                value(),
                e.clone(),
            ));
        }
    }
    errs
}

/// Seam: the total estimated cost of a schema's rules against the per-CRD limit
/// (`x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema
/// exceeds budget ...` and the `contributed to ...` errors on the most expensive rules).
/// Returns nothing until the cost estimator exists.
pub fn cel_schema_cost_errors(
    root: &JsonSchemaProps,
    root_path: &Path,
    kube: KubeVersion,
) -> ErrorList {
    let opts = crate::cel::env::EnvOptions::for_version(kube.minor.saturating_sub(1));
    cel_schema_cost_errors_of(&compile_rules(root, &opts), root_path)
}

/// The cost errors of an already compiled rule set.
pub fn cel_schema_cost_errors_of(
    rules: &RuleSet,
    root_path: &Path,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut total = TotalCost::default();
    // `ValidateCustomResourceDefinitionOpenAPISchema` recurses into additionalProperties,
    // properties and items before it compiles (and observes the costs of) the node's own
    // rules: the order ties of `MostExpensive` keep.
    fn walk(t: &RuleTree, p: &Path, errs: &mut ErrorList, total: &mut TotalCost) {
        if let Some(a) = &t.additional {
            walk(a, &p.child("additionalProperties"), errs, total);
        }
        for (k, child) in &t.properties {
            walk(child, &p.child("properties").key(k), errs, total);
        }
        if let Some(i) = &t.items {
            walk(i, &p.child("items"), errs, total);
        }
        for (i, c) in t.rules.iter().enumerate() {
            let rp = p.child("x-kubernetes-validations").index(i);
            if let Some(cost) = c.cost {
                let rule_path = rp.child("rule");
                if cost.estimated_cost > STATIC_ESTIMATED_COST_LIMIT {
                    errs.push(FieldError::forbidden(
                        rule_path.clone(),
                        cost_error_message(
                            RULE_COST_NAME,
                            cost.estimated_cost,
                            STATIC_ESTIMATED_COST_LIMIT,
                        ),
                    ));
                }
                total.observe(rule_path, cost.estimated_cost);
            }
            if let Some(mc) = c.message_cost {
                let mp = rp.child("messageExpression");
                if mc > STATIC_ESTIMATED_COST_LIMIT {
                    errs.push(FieldError::forbidden(
                        mp.clone(),
                        cost_error_message(
                            MESSAGE_COST_NAME,
                            mc,
                            STATIC_ESTIMATED_COST_LIMIT,
                        ),
                    ));
                }
                total.observe(mp, mc);
            }
        }
    }
    walk(&rules.tree, root_path, &mut errs, &mut total);
    if total.total > STATIC_ESTIMATED_CRD_COST_LIMIT {
        errs.push(FieldError::forbidden(
            root_path.clone(),
            cost_error_message(
                "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
                total.total,
                STATIC_ESTIMATED_CRD_COST_LIMIT,
            ),
        ));
        for (p, _) in &total.most_expensive {
            errs.push(FieldError::forbidden(
                p.clone(),
                "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
            ));
        }
    }
    errs
}

/// The release from which unchanged version schemas skip the per-expression cost limit.
const SUPPRESS_UNCHANGED_COST_SINCE: u32 = Feature::SuppressUnchangedSchemaCost.since();
const RULE_COST_NAME: &str = "estimated rule cost";
const MESSAGE_COST_NAME: &str = "estimated messageExpression cost";

/// From 1.29 an update does not hold the rules of a version whose schema it leaves
/// unchanged to the per-expression cost limit again (`suppressExpressionCostForUnchangedSchema`;
/// the schema's total still counts), so that a control-plane upgrade never rejects a CRD
/// that was accepted: drops those errors from `errs[mark..]`.
fn suppress_cost_of_unchanged_schema(
    version: &str,
    kube: KubeVersion,
    loader: &EnvLoader,
    errs: &mut ErrorList,
    mark: usize,
) {
    let unchanged = loader
        .preexisting
        .as_deref()
        .map(|p| p.unchanged_schema_versions.contains(version))
        .unwrap_or(false);
    if !unchanged || !kube.at_least(SUPPRESS_UNCHANGED_COST_SINCE) {
        return;
    }
    let mut i = mark;
    while i < errs.len() {
        if is_per_expression_cost_error(&errs[i]) {
            errs.remove(i);
        } else {
            i += 1;
        }
    }
}

/// A per-rule or per-messageExpression cost error of [`cel_schema_cost_errors_of`].
fn is_per_expression_cost_error(e: &FieldError) -> bool {
    e.kind == crate::field::ErrorType::Forbidden
        && [RULE_COST_NAME, MESSAGE_COST_NAME]
            .iter()
            .any(|n| e.detail.strip_prefix(n).is_some_and(|rest| rest.starts_with(" exceeds budget")))
}

/// Per-expression static cost limit (AX validation.go `StaticEstimatedCostLimit`).
pub const STATIC_ESTIMATED_COST_LIMIT: u64 = 10_000_000;
/// Per-schema static cost limit (`StaticEstimatedCRDCostLimit`).
pub const STATIC_ESTIMATED_CRD_COST_LIMIT: u64 = 100_000_000;

/// `TotalCost`: the saturating sum of a schema's expression costs and its (at most 4)
/// most expensive expressions of at least 1% of the per-expression limit.
#[derive(Default)]
struct TotalCost {
    total: u64,
    most_expensive: Vec<(Path, u64)>,
}

impl TotalCost {
    fn observe(&mut self, p: Path, cost: u64) {
        self.total = self.total.saturating_add(cost);
        // `ObserveExpressionCost` keeps only rules of at least 1% of the per-schema limit.
        if cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100 {
            return;
        }
        self.most_expensive.push((p, cost));
        // Go's sort.Slice on at most 5 elements is an insertion sort: stable, ties keep
        // the order they were observed in.
        crate::go::sort::sort_by(&mut self.most_expensive, |a, b| b.1.cmp(&a.1));
        self.most_expensive.truncate(4);
    }
}

/// `getCostErrorMessage`: the factor printed `%f` below 1.5, `%.1f` up to 100, else
/// "more than 100x".
pub fn cost_error_message(name: &str, cost: u64, limit: u64) -> String {
    let factor = cost as f64 / limit as f64;
    let f = if factor > 100.0 {
        "more than 100x".to_string()
    } else if factor < 1.5 {
        format!("{:.6}x", factor)
    } else {
        format!("{:.1}x", factor)
    };
    format!(
        "{} exceeds budget by factor of {} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
        name, f
    )
}

/// `ValidateDefaults`' CEL step: the rules of a node and of the nodes below it run over its
/// default value (once its schema validation passed), compiled in the stored-expressions
/// environment, with the default as its own old value (transition rules compare it with
/// itself). From 1.30 (the `CRDValidationRatcheting` gate, on by default), when that pass
/// finds nothing, a second one runs with no old value, where `optionalOldSelf` rules see
/// `optional.none()`. Errors are the object-validation ones, below `default_path`.
pub fn cel_default_errors(
    node: &JsonSchemaProps,
    default_path: &Path,
    default: &Value,
    is_resource_root: bool,
    kube: KubeVersion,
) -> ErrorList {
    if !subtree_has_rules(node, 0) {
        return ErrorList::new();
    }
    let rules = compile_subtree_rules(node, is_resource_root, kube);
    let first = validate_at(&rules, default_path, default, Some(default), false);
    if !first.errors.is_empty() || first.remaining_budget < 0 || !kube.at_least(DEFAULTS_WITHOUT_OLD_SINCE) {
        return first.errors;
    }
    validate_at(&rules, default_path, default, None, false).errors
}

/// The release whose default check also runs without an old value.
const DEFAULTS_WITHOUT_OLD_SINCE: u32 = Feature::DefaultsWithoutOldSelf.since();

fn subtree_has_rules(s: &JsonSchemaProps, depth: usize) -> bool {
    if depth > 512 {
        return false;
    }
    if !s.x_validations.is_empty() {
        return true;
    }
    let mut found = false;
    let mut visit = |c: &JsonSchemaProps| found = found || subtree_has_rules(c, depth + 1);
    for p in s.properties.values() {
        visit(p);
    }
    if let Some(i) = s.items_schema() {
        visit(i);
    }
    if let Some(a) = s.additional_properties_schema() {
        visit(a);
    }
    for a in &s.all_of {
        visit(a);
    }
    found
}

// ------------------------------------------------------------------------ warnings

/// String formats the apiserver recognizes at the release (compatibility version).
fn format_recognized(format: &str, kube: KubeVersion) -> bool {
    crate::k8s::strfmt::is_supported_string_format_at(format, kube)
}

/// The CRD strategy's warnings (`WarningsOnCreate`, `getUnrecognizedFormatsInCRD`):
/// `unrecognized format "<f>"` for every node whose format the apiserver does not know, once
/// per node — the same format on 19 fields is 19 warnings, as the strategy appends one per
/// node it visits and nothing removes repeats (from 1.34 on string fields; from 1.36 on
/// every type, see `collect_formats`).
fn format_warnings(spec: &InternalSpec<'_>, kube: KubeVersion, rules: &mut RuleCompiler<'_>) -> Vec<String> {
    if !kube.has(Feature::FormatWarnings) {
        return Vec::new();
    }
    let mut found: Vec<String> = Vec::new();
    for s in spec.schemas() {
        found.extend(rules.format_warnings(s, kube, || {
            let mut found = Vec::new();
            collect_formats(s, kube, &mut found);
            found
        }).iter().cloned());
    }
    found
        .into_iter()
        .map(|f| format!("unrecognized format {}", crate::go::strconv::quote(&f)))
        .collect()
}

fn collect_formats(s: &JsonSchemaProps, kube: KubeVersion, out: &mut Vec<String>) {
    if let Some(f) = s.format.as_deref().filter(|f| !f.is_empty()) {
        // 1.34 and 1.35 warn on strings only; 1.36 (kubernetes PR 136582, with numeric
        // formats kept) also on untyped nodes (against the string list), integers
        // (other than int32/int64), numbers (other than float/double) and every other type.
        let warn = match (s.type_str(), kube.at_least(crate::k8s::strfmt::NUMERIC_FORMATS_SINCE)) {
            ("string", _) => !format_recognized(f, kube),
            (_, false) => false,
            ("", true) => !format_recognized(f, kube),
            ("integer", true) => f != "int32" && f != "int64",
            ("number", true) => f != "float" && f != "double",
            (_, true) => true,
        };
        if warn {
            out.push(f.to_string());
        }
    }
    let mut visit = |x: &JsonSchemaProps| collect_formats(x, kube, out);
    match &s.items {
        Some(SchemaOrArray::Schema(i)) => visit(i),
        Some(SchemaOrArray::Array(a)) => a.iter().for_each(&mut visit),
        None => {}
    }
    s.all_of
        .iter()
        .chain(s.any_of.iter())
        .chain(s.one_of.iter())
        .for_each(&mut visit);
    if let Some(n) = &s.not {
        visit(n);
    }
    s.properties.values().for_each(|p| visit(p));
    if let Some(SchemaOrBool::Schema(a)) = &s.additional_properties {
        visit(a);
    }
}

#[cfg(test)]
mod tests;
