//! What `kubectl apply --validate=warn` prints for the answer (kubectl's `checkErr` and
//! `MultilineError` in `k8s.io/kubectl/pkg/cmd/util/helpers.go`): an Invalid status becomes
//! `The <Kind> "<name>" is invalid: <cause>` — one cause on the same line, several as
//! `* <field>: <message>` lines, identical causes once — and a success prints
//! `<kind>.<group>/<name> created|configured|unchanged`. Warnings (the CRD's, and the unknown
//! fields `--validate=warn` reports instead of rejecting) come first as `Warning: ...`.

use crate::view::model::{CrdView, ObjectView};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Verdict {
    /// The object would be accepted.
    Accepted,
    /// The object would be rejected.
    Rejected,
    /// The CRD itself would be rejected (or cannot be read).
    CrdRejected,
    /// Only the CRD was given, and it would be accepted.
    #[default]
    CrdAccepted,
    /// An input could not be read.
    InputError,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub verdict: Verdict,
    /// kubectl's output, line by line.
    pub lines: Vec<String>,
}

/// kubectl's `MultilineError(prefix, aggregate)` over `<field>: <message>` causes.
pub fn invalid(kind: &str, name: &str, messages: &[&str]) -> Vec<String> {
    let mut unique: Vec<&str> = Vec::new();
    for m in messages {
        if !unique.contains(m) {
            unique.push(m);
        }
    }
    let prefix = format!("The {} \"{}\" is invalid: ", kind, name);
    match unique.len() {
        0 => vec![prefix.trim_end().to_string()],
        1 => vec![format!("{}{}", prefix, unique[0])],
        _ => {
            // `fmt.Fprintln(buf, prefix)` keeps the prefix's trailing space.
            let mut lines = vec![prefix];
            lines.extend(unique.iter().map(|m| format!("* {}", m)));
            lines
        }
    }
}

/// The summary of an analysis.
pub fn summary(crd: &CrdView, object: Option<&ObjectView>) -> Summary {
    let mut lines = Vec::new();
    if let Some(e) = &crd.load_error {
        return Summary { verdict: Verdict::InputError, lines: vec![format!("error: {}", e.message)] };
    }
    for w in &crd.warnings {
        lines.push(format!("Warning: {}", w));
    }
    let crd_name = if crd.name.is_empty() { String::new() } else { crd.name.clone() };
    let mut verdict = if crd.errors.is_empty() {
        lines.push(format!("customresourcedefinition.apiextensions.k8s.io/{} created", crd_name));
        Verdict::CrdAccepted
    } else {
        let msgs: Vec<&str> = crd.errors.iter().map(|e| e.message.as_str()).collect();
        lines.extend(invalid("CustomResourceDefinition", &crd_name, &msgs));
        Verdict::CrdRejected
    };
    let Some(obj) = object else {
        return Summary { verdict, lines };
    };
    if let Some(e) = obj.load_error.as_ref().or(obj.old_load_error.as_ref()) {
        lines.push(format!("error: {}", e.message));
        return Summary { verdict: Verdict::InputError, lines };
    }
    for (field, _) in &obj.pruned {
        lines.push(format!("Warning: unknown field \"{}\"", field));
    }
    let name = obj.name.clone();
    if obj.errors.is_empty() {
        let action = if obj.update { "configured" } else { "created" };
        let kind_group = if crd.group.is_empty() {
            crd.kind.to_lowercase()
        } else {
            format!("{}.{}", crd.kind.to_lowercase(), crd.group)
        };
        lines.push(format!("{}/{} {}", kind_group, name, action));
        if verdict != Verdict::CrdRejected {
            verdict = Verdict::Accepted;
        }
    } else {
        let msgs: Vec<&str> = obj.errors.iter().map(|e| e.message.as_str()).collect();
        lines.extend(invalid(&crd.kind, &name, &msgs));
        if verdict != Verdict::CrdRejected {
            verdict = Verdict::Rejected;
        }
    }
    Summary { verdict, lines }
}
