//! Running a diff: every validator over the two CRDs, findings grouped as crdify prints them.

use crate::analysis::diff::finding::{Finding, Report, Severity, Validator};
use crate::analysis::diff::side::{Options, Side};
use crate::analysis::diff::cel;
use crate::analysis::diff::crd;
use crate::analysis::diff::version;

/// Compares two CRDs (YAML or JSON text).
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
/// use crdlab::analysis::diff::{diff, Options};
/// let tighter = CRD.replace("minimum: 0", "minimum: 1");
/// let report = diff(CRD, &tighter, &Options::default()).unwrap();
/// assert!(report.breaking);
/// ```
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
    crate::go::sort::sort_by(findings, |a, b| {
        let va = versions.iter().position(|v| *v == a.version);
        let vb = versions.iter().position(|v| *v == b.version);
        (rank(a.validator), va, &a.field).cmp(&(rank(b.validator), vb, &b.field))
    });
}

