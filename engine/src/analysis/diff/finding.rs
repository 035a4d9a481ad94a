//! The findings of a diff: which validator and check produced them, their severity, and
//! whether validation ratcheting softens them (crdify's result shapes).

use crate::analysis::diff::config::Enforcement;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Which validator produced a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// Whether validation ratcheting (beta 1.30, GA 1.33) softens a finding on clusters that
/// have it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub objects: Vec<String>,
}

/// The outcome of a diff.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Any finding has error severity.
    pub breaking: bool,
    pub findings: Vec<Finding>,
    /// Notes about the inputs (configuration warnings, sample objects skipped, the
    /// Kubernetes target used for library checks).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One result of a property check.
#[derive(Clone, Debug, PartialEq)]
pub struct PropertyFinding {
    pub check: &'static str,
    pub message: String,
    pub severity: Severity,
    pub ratcheting: Ratcheting,
    /// For `xvalidations` findings on an added or changed rule: the rule (JSON) and
    /// whether it uses `oldSelf`, so sample objects can judge it.
    pub rule: Option<Value>,
}

/// The severity a check's enforcement gives its findings (`None`: the check is off).
pub(crate) fn severity(e: Enforcement) -> Option<Severity> {
    match e {
        Enforcement::Error => Some(Severity::Error),
        Enforcement::Warn => Some(Severity::Warning),
        _ => None,
    }
}

