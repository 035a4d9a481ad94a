//! A CRD compiled once into what validation reuses ([`CompiledCrd`]): the apiserver's
//! create checks (`crdErrors`, `crdWarnings`), each version's compiled schema and rules,
//! on a create or an update (apiextensions `preexistingExpressions`); and the cache that
//! compiles share ([`CompileCache`]).

use crate::crd::load::decode_crd;
use crate::text::crd_document::{parse_crd_text, LoadError};
use crate::crd::model::{CustomResourceDefinition, JsonSchemaProps};
use crate::crd::validation;
use crate::field::ErrorList;
use crate::schema::cel::compile::{EnvLoader, PreexistingExpressions, RuleCache, RuleCompiler, RuleSet, RuleSummary};
use crate::version::KubeVersion;
use serde_json::Value;
use std::rc::Rc;
use std::sync::Arc;

/// One CRD version compiled for validation.
#[derive(Debug)]
pub struct CompiledVersion {
    pub name: String,
    /// Index in `spec.versions`.
    pub index: usize,
    /// The version's `openAPIV3Schema` with compiled patterns; `None` when absent. (Moved
    /// here from the CRD: `CompiledCrd::crd` no longer has it.) Shared with later compiles
    /// of edits that did not reach it.
    pub schema: Option<Arc<JsonSchemaProps>>,
    /// Status subresource enabled.
    pub status_subresource: bool,
    /// Any `x-kubernetes-validations` anywhere in the schema: CEL validation runs (and the
    /// "some validation rules were not checked" entry can appear) only then.
    pub has_cel_rules: bool,
    /// The rules compiled for the targeted release (`None` when there are none); shared
    /// with other versions (and compiles) whose schema differs at most in descriptions.
    pub rules: Option<Rc<RuleSet>>,
    /// The rules objects are validated with (`None` when there are none): compiled in the
    /// release's stored-expressions environment, as apiextensions' object `validator`
    /// compiles them (`StoredExpressionsEnvLoader`), not in the environment the CRD write
    /// checked them in ([`CompiledVersion::rules`]). The same set when both environments
    /// are one.
    pub object_rules: Option<Rc<RuleSet>>,
    /// The CRD checks compiled the rules of this version's schema: it was structural with
    /// valid defaults (`validateCustomResourceDefinitionValidation` made a
    /// `CELSchemaContext`). When not, the apiserver reports no rule and no cost for it.
    pub cel_context: bool,
}

/// A CRD compiled once; immutable, shared by every validation of objects against it.
#[derive(Debug)]
pub struct CompiledCrd {
    /// The decoded CRD, except its versions' `schema.openAPIV3Schema`: each moved to
    /// `versions[i].schema` (compiled), where it is to be read.
    pub crd: CustomResourceDefinition,
    pub versions: Vec<CompiledVersion>,
    /// The apiserver's create checks (`crdErrors`), for the targeted release.
    pub crd_errors: ErrorList,
    /// Warnings the apiserver returns on create (`crdWarnings`).
    pub crd_warnings: Vec<String>,
    pub kube_version: KubeVersion,
}

impl CompiledVersion {
    /// Every `x-kubernetes-validations` rule of the version with its static cost; none
    /// without a CEL context (the CRD checks compiled none of the version's rules).
    pub fn rule_summaries(&self) -> Vec<RuleSummary> {
        match &self.rules {
            Some(rs) if self.cel_context => rs.summaries(),
            _ => Vec::new(),
        }
    }
}

impl CompiledCrd {
    /// Compiles a CRD given as YAML or JSON text.
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
    /// assert!(crd.crd_errors.is_empty());
    /// assert_eq!(crd.version(None).unwrap().name, "v1");
    /// ```
    pub fn from_text(text: &str, kube: KubeVersion) -> Result<CompiledCrd, LoadError> {
        let v = parse_crd_text(text)?;
        Self::from_value(&v, kube)
    }

    /// Compiles a CRD given as a JSON value.
    pub fn from_value(v: &Value, kube: KubeVersion) -> Result<CompiledCrd, LoadError> {
        Self::from_value_update(v, None, kube)
    }

    /// Compiles a CRD given as a JSON value, as a create (`old` = `None`) or as an update of
    /// the `old` CRD: rules and messageExpressions already present in the old CRD compile in
    /// the stored-expressions environment (every library of the release), new or changed
    /// ones at compatibility version target − 1 (apiextensions `preexistingExpressions`).
    pub fn from_value_update(
        v: &Value,
        old: Option<&Value>,
        kube: KubeVersion,
    ) -> Result<CompiledCrd, LoadError> {
        Self::from_value_cached(v, old, kube, &mut CompileCache::single_use())
    }

    /// [`CompiledCrd::from_value_update`], reusing (and filling) `cache`: what an earlier
    /// compile already computed from identical inputs is not computed again. The result is
    /// the same as without a cache.
    pub fn from_value_cached(
        v: &Value,
        old: Option<&Value>,
        kube: KubeVersion,
        cache: &mut CompileCache,
    ) -> Result<CompiledCrd, LoadError> {
        Self::from_value_decoded(decode_crd(v)?, v, old, kube, cache)
    }

    /// [`CompiledCrd::from_value_cached`] of an edit of the CRD `earlier` compiled: `v` is
    /// the value that compile read with the scalars at `edits` (paths from the document's
    /// root) changed. The schema nodes no edit reached are `earlier`'s (shared, not decoded
    /// or fingerprinted again) when it was compiled for `kube`.
    pub fn from_value_reusing(
        v: &Value,
        old: Option<&Value>,
        kube: KubeVersion,
        cache: &mut CompileCache,
        earlier: Option<(&CompiledCrd, &[Vec<crate::text::source_map::PathSeg>])>,
    ) -> Result<CompiledCrd, LoadError> {
        let reuse = earlier.filter(|(e, _)| e.kube_version == kube).map(|(e, dirty)| crate::crd::model::Reuse {
            schemas: (0..e.crd.spec.versions.len())
                .map(|i| e.versions.iter().find(|cv| cv.index == i).and_then(|cv| cv.schema.as_ref()))
                .collect(),
            dirty,
        });
        let crd = crate::crd::load::decode_crd_reusing(v, reuse.as_ref())?;
        Self::from_value_decoded(crd, v, old, kube, cache)
    }

    /// The compile of `crd`, decoded from `v`, as an update of `old` when given.
    fn from_value_decoded(
        crd: CustomResourceDefinition,
        v: &Value,
        old: Option<&Value>,
        kube: KubeVersion,
        cache: &mut CompileCache,
    ) -> Result<CompiledCrd, LoadError> {
        let preexisting = match old {
            Some(o) => {
                let old_crd =
                    decode_crd(o).map_err(|e| LoadError::new(format!("old CRD: {}", e.message)))?;
                let mut pre = PreexistingExpressions::of_crd(&old_crd);
                pre.unchanged_schema_versions = unchanged_schema_versions(v, o);
                Some(Arc::new(pre))
            }
            None => None,
        };
        Self::compile(crd, preexisting, kube, cache)
    }

    /// [`CompiledCrd::from_value_cached`] of a CRD decoded already (as a create): a CRD
    /// compiled for several releases is decoded once (decoding does not depend on the
    /// release).
    pub fn from_decoded_cached(
        crd: CustomResourceDefinition,
        kube: KubeVersion,
        cache: &mut CompileCache,
    ) -> Result<CompiledCrd, LoadError> {
        Self::compile(crd, None, kube, cache)
    }

    fn compile(
        mut crd: CustomResourceDefinition,
        preexisting: Option<Arc<PreexistingExpressions>>,
        kube: KubeVersion,
        cache: &mut CompileCache,
    ) -> Result<CompiledCrd, LoadError> {
        // What the release does not know never reaches its checks, rules or validation.
        for v in &mut crd.spec.versions {
            // A schema shared with an earlier compile for the release is prepared already.
            if let Some(s) = v.schema.as_mut().and_then(|s| s.open_api_v3_schema.as_mut()).filter(|s| s.compiled_for != Some(kube)) {
                crate::crd::model::schema_mut(s).drop_rule_fields_unknown_to(kube);
            }
        }
        // The update context (the old CRD's expressions) reaches every rule compile of the
        // CRD checks and of the versions through this one loader.
        let loader = EnvLoader::for_release(kube, preexisting);
        let mut rules = RuleCompiler::new(loader, &mut cache.rules);
        // The CRD checks and the versions share one compile of each schema's rules.
        let (crd_errors, crd_warnings) = validation::validate_crd_with(&crd, kube, &mut rules);
        let sets: Vec<(bool, Option<Rc<RuleSet>>, Option<Rc<RuleSet>>, bool)> = crd
            .spec
            .versions
            .iter()
            .map(|ver| {
                let written = ver
                    .schema
                    .as_ref()
                    .and_then(|s| s.open_api_v3_schema.as_deref());
                let has_cel_rules = written.map(has_rules).unwrap_or(false);
                let (set, object_set) = match (written, has_cel_rules) {
                    (Some(s), true) => (Some(rules.rule_set(s)), Some(rules.stored_rule_set(s))),
                    _ => (None, None),
                };
                let cel_context = written.map(|s| rules.has_cel_context(s)).unwrap_or(true);
                (has_cel_rules, set, object_set, cel_context)
            })
            .collect();
        drop(rules);
        // Each version's schema moves into its compiled version (no copy of a large schema
        // is made; `crd` keeps everything else).
        let versions = crd
            .spec
            .versions
            .iter_mut()
            .zip(sets)
            .enumerate()
            .map(|(index, (ver, (has_cel_rules, rules, object_rules, cel_context)))| {
                let schema = ver
                    .schema
                    .as_mut()
                    .and_then(|s| s.open_api_v3_schema.take())
                    .map(|mut s| {
                        if s.compiled_for != Some(kube) {
                            Arc::make_mut(&mut s).compile_for(kube);
                        }
                        s
                    });
                CompiledVersion {
                    rules,
                    object_rules,
                    name: ver.name.clone(),
                    index,
                    schema,
                    status_subresource: ver
                        .subresources
                        .as_ref()
                        .map(|s| s.status.is_some())
                        .unwrap_or(false),
                    has_cel_rules,
                    cel_context,
                }
            })
            .collect();
        Ok(CompiledCrd {
            crd,
            versions,
            crd_errors,
            crd_warnings,
            kube_version: kube,
        })
    }

    /// The named version, or the storage version.
    pub fn version(&self, name: Option<&str>) -> Option<&CompiledVersion> {
        let (i, _) = self.crd.version(name)?;
        self.versions.get(i)
    }
}

/// What compiles of CRDs share ([`CompiledCrd::from_value_cached`]): compiled rules and
/// rule sets ([`RuleCache`]). Bounded; held by
/// [`crate::wire::batch::Engine`] across requests. (Compiled `pattern`s are shared by all threads:
/// [`crate::go::regexp::compile_re2_shared_result`].)
#[derive(Default)]
pub struct CompileCache {
    pub rules: RuleCache,
}

impl CompileCache {
    /// A cache for one compile (what versions of one CRD share), not kept afterwards.
    pub fn single_use() -> CompileCache {
        CompileCache {
            rules: RuleCache::single_use(),
        }
    }
}

/// apiextensions `findVersionsWithUnchangedSchemas`: the versions of `new` whose schema is
/// (semantically) the one of the same-named version of `old`.
fn unchanged_schema_versions(new: &Value, old: &Value) -> std::collections::HashSet<String> {
    // (name, schema) of each version, borrowed: schemas can be megabytes.
    fn versions(crd: &Value) -> Vec<(&str, Option<&Value>)> {
        crd.pointer("/spec/versions")
            .and_then(Value::as_array)
            .map(|vs| vs.iter().filter_map(|v| Some((v.get("name")?.as_str()?, v.get("schema")))).collect())
            .unwrap_or_default()
    }
    let old_versions = versions(old);
    versions(new)
        .into_iter()
        .filter(|(name, schema)| old_versions.iter().any(|(n, s)| n == name && s == schema))
        .map(|(name, _)| name.to_string())
        .collect()
}

fn has_rules(s: &JsonSchemaProps) -> bool {
    if !s.x_validations.is_empty() {
        return true;
    }
    let mut found = false;
    // Rules only count where the structural schema has them: properties, items,
    // additionalProperties (not inside allOf/anyOf/oneOf/not).
    for p in s.properties.values() {
        found |= has_rules(p);
    }
    if let Some(i) = s.items_schema() {
        found |= has_rules(i);
    }
    if let Some(a) = s.additional_properties_schema() {
        found |= has_rules(a);
    }
    found
}
