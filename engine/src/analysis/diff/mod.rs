//! Breaking-change detection between two CRDs (`crdlab diff OLD NEW`).
//!
//! The checks, their names, the property paths (`^.spec.mode`) and the message texts are
//! kubernetes-sigs/crdify's, so results compare one to one:
//! - [`crd`]: whole-CRD checks (`scope`, `existingFieldRemoval`, `storedVersionRemoval`);
//! - [`version`]: the `sameVersion` and `servedVersion` validators (which schema pairs are
//!   compared, conversion, unhandled changes);
//! - [`property`]: the property checks run on each pair of schema nodes (`enum`,
//!   `default`, `maximum`…, `required`, `type`, `description`, `pattern`, `nullable`,
//!   `unhandled`);
//! - [`cel`]: what no other tool checks — `x-kubernetes-validations` rules added, removed
//!   or changed (judged on sample objects when given), rules needing a newer Kubernetes
//!   than the target, estimated costs crossing the apiserver's limits, and sample objects
//!   that were valid and now fail;
//! - [`config`]: the crd-diff and crdify configuration formats;
//! - [`report`]: text, markdown, JSON and YAML output.
//!
//! Every finding says whether validation ratcheting (Kubernetes 1.30+) softens it: schema
//! value validations tightened on values an update leaves unchanged are ratcheted;
//! `required`, list types, `allOf/anyOf/oneOf/not` and transition rules are not.

pub mod cel;
pub mod config;
pub mod crd;
pub mod property;
pub mod report;
pub mod version;

pub use config::{Config, Enforcement};

use crate::version::KubeVersion;
use serde::Serialize;
use serde_json::Value;

/// Which validator produced a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Validator {
    /// Whole-CRD checks.
    #[serde(rename = "crd")]
    Crd,
    /// A version of the old CRD against the same version of the new one.
    #[serde(rename = "sameVersion")]
    SameVersion,
    /// Two served versions of the new CRD against each other.
    #[serde(rename = "servedVersion")]
    ServedVersion,
}

impl Validator {
    pub fn as_str(self) -> &'static str {
        match self {
            Validator::Crd => "crd",
            Validator::SameVersion => "sameVersion",
            Validator::ServedVersion => "servedVersion",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// Whether validation ratcheting (beta 1.30, GA 1.33) softens a finding on clusters that
/// have it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Ratcheting {
    /// A tightened value validation: existing objects still fail on create and on updates
    /// that change the value, but updates leaving the value unchanged pass.
    Softened,
    /// Never ratcheted: `required`, list-type/map-key changes, `allOf/anyOf/oneOf/not`,
    /// transition rules (those using `oldSelf`).
    NotSoftened,
    /// Not a validation change (scope, removed fields or versions, defaults, widened
    /// constraints, CRD-level problems).
    NotApplicable,
}

impl Ratcheting {
    pub fn explain(self) -> &'static str {
        match self {
            Ratcheting::Softened => {
                "ratcheting (1.30+) softens it: updates that leave the value unchanged still pass"
            }
            Ratcheting::NotSoftened => "ratcheting (1.30+) does not soften it",
            Ratcheting::NotApplicable => "",
        }
    }
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    pub validator: Validator,
    pub check: String,
    /// The version, `"v1 -> v2"` for a served pair, `None` for whole-CRD checks.
    pub version: Option<String>,
    /// The property in crdify's form (`^.spec.mode`), `None` for whole-CRD checks.
    pub field: Option<String>,
    pub severity: Severity,
    pub message: String,
    pub ratcheting: Ratcheting,
    /// Sample objects the finding concerns (failing ones; for a rule, those it rejects).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub objects: Vec<String>,
}

/// The outcome of a diff.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Report {
    /// Any finding has error severity.
    pub breaking: bool,
    pub findings: Vec<Finding>,
    /// Notes about the inputs (configuration warnings, sample objects skipped, the
    /// Kubernetes target used for library checks).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// A sample object (`--objects DIR`): its display name and value.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleObject {
    pub name: String,
    pub value: Value,
}

/// What a diff runs with.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub config: Config,
    pub objects: Vec<SampleObject>,
    /// The Kubernetes release the new CRD will be applied to (the old CRD's target). When
    /// absent it is inferred from the old CRD: the lowest release whose CEL environment
    /// compiles all of its rules (library findings are then warnings).
    pub kubernetes_version: Option<KubeVersion>,
}

/// One CRD as the diff reads it: its JSON (for crdify-style schema walks) and its typed,
/// compiled form (for CEL).
pub struct Side {
    pub text: String,
    pub json: Value,
    pub compiled: crate::crd::CompiledCrd,
}

impl Side {
    pub fn load(text: &str, what: &str) -> Result<Side, String> {
        let json = crate::crd::parse_crd_text(text).map_err(|e| format!("{}: {}", what, e))?;
        let compiled = crate::crd::CompiledCrd::from_value(&json, KubeVersion::LATEST)
            .map_err(|e| format!("{}: {}", what, e))?;
        Ok(Side {
            text: text.to_string(),
            json,
            compiled,
        })
    }

    /// `spec.versions[i]` as JSON.
    pub fn versions(&self) -> Vec<&Value> {
        match self.json.pointer("/spec/versions") {
            Some(Value::Array(a)) => a.iter().collect(),
            _ => Vec::new(),
        }
    }

    pub fn version_json(&self, name: &str) -> Option<&Value> {
        self.versions()
            .into_iter()
            .find(|v| v.get("name").and_then(Value::as_str) == Some(name))
    }
}

/// The `openAPIV3Schema` of a version's JSON (`Null` when absent).
pub fn schema_of(version: &Value) -> &Value {
    version
        .pointer("/schema/openAPIV3Schema")
        .unwrap_or(&Value::Null)
}

/// Compares two CRDs (YAML or JSON text).
pub fn diff(old_text: &str, new_text: &str, opts: &Options) -> Result<Report, String> {
    let old = Side::load(old_text, "old CRD")?;
    let new = Side::load(new_text, "new CRD")?;
    Ok(diff_sides(&old, &new, opts))
}

/// Compares two loaded CRDs.
pub fn diff_sides(old: &Side, new: &Side, opts: &Options) -> Report {
    let cfg = &opts.config;
    let mut report = Report {
        notes: cfg
            .warnings
            .iter()
            .map(|w| format!("config: {}", w))
            .collect(),
        ..Default::default()
    };
    report.findings.extend(crd::check(old, new, cfg));
    let objects = cel::ObjectRuns::evaluate(
        old,
        new,
        &opts.objects,
        opts.kubernetes_version,
        &mut report.notes,
    );
    report
        .findings
        .extend(version::same_version(old, new, cfg, &objects));
    report.findings.extend(cel::library_findings(
        old,
        new,
        cfg,
        opts.kubernetes_version,
        &mut report.notes,
    ));
    report.findings.extend(cel::cost_findings(old, new, cfg));
    report.findings.extend(objects.findings(cfg));
    report
        .findings
        .extend(version::served_version(old, new, cfg));
    group_findings(&mut report.findings);
    report.breaking = report
        .findings
        .iter()
        .any(|f| f.severity == Severity::Error);
    report
}

/// Orders findings by validator, then version (in order of first appearance), then field,
/// keeping the checks' own order otherwise: a stable sort.
fn group_findings(findings: &mut [Finding]) {
    let mut versions: Vec<Option<String>> = Vec::new();
    for f in findings.iter() {
        if !versions.contains(&f.version) {
            versions.push(f.version.clone());
        }
    }
    let rank = |v: Validator| match v {
        Validator::Crd => 0,
        Validator::SameVersion => 1,
        Validator::ServedVersion => 2,
    };
    findings.sort_by(|a, b| {
        let va = versions.iter().position(|v| *v == a.version);
        let vb = versions.iter().position(|v| *v == b.version);
        (rank(a.validator), va, &a.field).cmp(&(rank(b.validator), vb, &b.field))
    });
}

/// Reads sample objects from a directory: every `.yaml`, `.yml` and `.json` file, sorted
/// by name; a multi-document file gives one object per document (`file.yaml#2`).
pub fn load_objects_dir(dir: &str) -> Result<Vec<SampleObject>, String> {
    let rd = std::fs::read_dir(dir).map_err(|e| format!("cannot read --objects {}: {}", dir, e))?;
    let mut files: Vec<std::path::PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && matches!(
                    p.extension().and_then(|x| x.to_str()),
                    Some("yaml") | Some("yml") | Some("json")
                )
        })
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f)
            .map_err(|e| format!("cannot read {}: {}", f.display(), e))?;
        let base = f
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("object")
            .to_string();
        out.extend(objects_from_text(&base, &text)?);
    }
    Ok(out)
}

/// The objects of one YAML/JSON text (empty documents skipped).
pub fn objects_from_text(name: &str, text: &str) -> Result<Vec<SampleObject>, String> {
    let docs =
        crate::text::yaml::read_documents(text).map_err(|e| format!("cannot read {}: {}", name, e))?;
    let docs: Vec<Value> = docs.into_iter().filter(|d| !d.is_null()).collect();
    let many = docs.len() > 1;
    Ok(docs
        .into_iter()
        .enumerate()
        .map(|(i, value)| SampleObject {
            name: if many {
                format!("{}#{}", name, i + 1)
            } else {
                name.to_string()
            },
            value,
        })
        .collect())
}
