//! Rendering a [`Report`]: `text` (grouped by validator, version and field), `markdown`
//! (a table per group, for pull-request comments), `json` (`{"breaking", "findings"}`)
//! and `yaml` (the same document).

use crate::analysis::diff::finding::{Finding, Ratcheting, Report, Severity, Validator};

/// The output formats of `crdlab diff`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Markdown,
    Json,
    Yaml,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "text" | "plaintext" => Some(Format::Text),
            "markdown" | "md" => Some(Format::Markdown),
            "json" => Some(Format::Json),
            "yaml" => Some(Format::Yaml),
            _ => None,
        }
    }
}

pub fn render(r: &Report, f: Format) -> String {
    match f {
        Format::Text => text(r),
        Format::Markdown => markdown(r),
        Format::Json => json(r),
        Format::Yaml => yaml(r),
    }
}

fn counts(r: &Report) -> (usize, usize) {
    let e = r
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    (e, r.findings.len() - e)
}

fn plural(n: usize, word: &str) -> String {
    format!("{} {}{}", n, word, if n == 1 { "" } else { "s" })
}

fn summary(r: &Report) -> String {
    let (e, w) = counts(r);
    format!(
        "{} ({}, {})",
        if r.breaking {
            "BREAKING"
        } else {
            "no breaking changes"
        },
        plural(e, "error"),
        plural(w, "warning")
    )
}

fn group_title(f: &Finding) -> String {
    match (&f.validator, &f.version) {
        (Validator::Crd, _) => "crd".into(),
        (v, Some(ver)) => format!("{} {}", v.as_str(), ver),
        (v, None) => v.as_str().into(),
    }
}

fn sev_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "ERROR",
        Severity::Warning => "WARNING",
    }
}

/// Plain text, grouped.
pub fn text(r: &Report) -> String {
    let mut out = format!("crdlab diff: {}\n", summary(r));
    let mut group = String::new();
    let mut field: Option<&str> = None;
    for f in &r.findings {
        let g = group_title(f);
        if g != group {
            out.push('\n');
            out.push_str(&g);
            out.push('\n');
            group = g;
            field = None;
        }
        let indent = if let Some(fl) = f.field.as_deref() {
            if field != Some(fl) {
                out.push_str(&format!("  {}\n", fl));
                field = Some(fl);
            }
            "    "
        } else {
            "  "
        };
        let head = format!("{}{:<8}{}: ", indent, sev_word(f.severity), f.check);
        let pad = " ".repeat(indent.len() + 8);
        let mut lines = f.message.lines();
        out.push_str(&head);
        out.push_str(lines.next().unwrap_or(""));
        out.push('\n');
        for l in lines {
            out.push_str(&pad);
            out.push_str(l);
            out.push('\n');
        }
        if f.ratcheting != Ratcheting::NotApplicable {
            out.push_str(&format!("{}{}\n", pad, f.ratcheting.explain()));
        }
        if !f.objects.is_empty() && f.check != "objects" {
            out.push_str(&format!(
                "{}sample objects: {}\n",
                pad,
                f.objects.join(", ")
            ));
        }
    }
    if !r.notes.is_empty() {
        out.push_str("\nnotes\n");
        for n in &r.notes {
            out.push_str(&format!("  - {}\n", n));
        }
    }
    out
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', "<br>")
}

fn ratchet_word(r: Ratcheting) -> &'static str {
    match r {
        Ratcheting::Softened => "softened",
        Ratcheting::NotSoftened => "not softened",
        Ratcheting::NotApplicable => "",
    }
}

/// Markdown: a table per validator and version.
pub fn markdown(r: &Report) -> String {
    let mut out = format!("## crdlab diff: {}\n", summary(r));
    let mut group = String::new();
    for f in &r.findings {
        let g = group_title(f);
        if g != group {
            out.push_str(&format!("\n### {}\n\n", g));
            out.push_str("| Field | Check | Severity | Ratcheting (1.30+) | Message |\n|---|---|---|---|---|\n");
            group = g;
        }
        let mut msg = md_cell(&f.message);
        if !f.objects.is_empty() && f.check != "objects" {
            msg.push_str(&format!(
                "<br>sample objects: {}",
                md_cell(&f.objects.join(", "))
            ));
        }
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            f.field
                .as_deref()
                .map(|x| format!("`{}`", md_cell(x)))
                .unwrap_or_default(),
            f.check,
            if f.severity == Severity::Error {
                "**error**"
            } else {
                "warning"
            },
            ratchet_word(f.ratcheting),
            msg
        ));
    }
    if !r.notes.is_empty() {
        out.push_str("\n#### Notes\n\n");
        for n in &r.notes {
            out.push_str(&format!("- {}\n", md_cell(n)));
        }
    }
    out
}

/// `{"breaking": bool, "findings": [...]}` (and `notes` when there are any).
pub fn json(r: &Report) -> String {
    serde_json::to_string_pretty(r).unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string()))
}

/// The JSON document as YAML, keys in the same order.
pub fn yaml(r: &Report) -> String {
    let mut out = format!("breaking: {}\n", r.breaking);
    if r.findings.is_empty() {
        out.push_str("findings: []\n");
    } else {
        out.push_str("findings:\n");
    }
    for f in &r.findings {
        let opt = |v: &Option<String>| v.as_deref().map(yaml_str).unwrap_or_else(|| "null".into());
        out.push_str(&format!("- validator: {}\n", f.validator.as_str()));
        out.push_str(&format!("  check: {}\n", yaml_str(&f.check)));
        out.push_str(&format!("  version: {}\n", opt(&f.version)));
        out.push_str(&format!("  field: {}\n", opt(&f.field)));
        out.push_str(&format!("  severity: {}\n", sev_json(f.severity)));
        out.push_str(&format!("  message: {}\n", yaml_str(&f.message)));
        out.push_str(&format!("  ratcheting: {}\n", ratchet_json(f.ratcheting)));
        if !f.objects.is_empty() {
            out.push_str("  objects:\n");
            for o in &f.objects {
                out.push_str(&format!("  - {}\n", yaml_str(o)));
            }
        }
    }
    if !r.notes.is_empty() {
        out.push_str("notes:\n");
        for n in &r.notes {
            out.push_str(&format!("- {}\n", yaml_str(n)));
        }
    }
    out
}

fn sev_json(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

fn ratchet_json(r: Ratcheting) -> &'static str {
    match r {
        Ratcheting::Softened => "softened",
        Ratcheting::NotSoftened => "notSoftened",
        Ratcheting::NotApplicable => "notApplicable",
    }
}

/// A plain scalar when YAML 1.1 reads it back as the same string, else double-quoted.
fn yaml_str(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .next()
            .map(|c| c.is_ascii_alphabetic())
            .unwrap_or(false)
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null"
        );
    if plain {
        s.to_string()
    } else {
        serde_json::to_string(s).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Report {
        Report {
            breaking: true,
            findings: vec![
                Finding {
                    validator: Validator::Crd,
                    check: "scope".into(),
                    version: None,
                    field: None,
                    severity: Severity::Error,
                    message: "scope changed : \"Namespaced\" -> \"Cluster\"".into(),
                    ratcheting: Ratcheting::NotApplicable,
                    objects: vec![],
                },
                Finding {
                    validator: Validator::SameVersion,
                    check: "unhandled".into(),
                    version: Some("v1".into()),
                    field: Some("^.spec.a".into()),
                    severity: Severity::Warning,
                    message: "unhandled changes found :\n- Format: \"\"\n+ Format: \"email\""
                        .into(),
                    ratcheting: Ratcheting::Softened,
                    objects: vec!["a.yaml (W/a)".into()],
                },
            ],
            notes: vec![],
        }
    }

    use serde_json::Value;

    #[test]
    fn json_shape() {
        let v: Value = serde_json::from_str(&json(&sample())).unwrap();
        assert_eq!(v["breaking"], true);
        assert_eq!(v["findings"][0]["validator"], "crd");
        assert_eq!(v["findings"][0]["version"], Value::Null);
        assert_eq!(v["findings"][0]["field"], Value::Null);
        assert_eq!(v["findings"][1]["severity"], "warning");
        assert_eq!(v["findings"][1]["ratcheting"], "softened");
        assert!(v.get("notes").is_none());
    }

    #[test]
    fn yaml_reads_back_as_the_json() {
        let r = sample();
        let y = yaml(&r);
        let back = crate::text::yaml::read_document(&y).unwrap();
        assert_eq!(back, serde_json::to_value(&r).unwrap(), "{}", y);
        assert!(
            y.starts_with(
                "breaking: true\nfindings:\n- validator: crd\n  check: scope\n  version: null\n"
            ),
            "{}",
            y
        );
    }

    #[test]
    fn text_and_markdown() {
        let t = text(&sample());
        assert!(
            t.starts_with("crdlab diff: BREAKING (1 error, 1 warning)"),
            "{}",
            t
        );
        assert!(t.contains("\nsameVersion v1\n  ^.spec.a\n    WARNING unhandled: unhandled changes found :\n            - Format"), "{}", t);
        let m = markdown(&sample());
        assert!(m.contains("| `^.spec.a` | unhandled | warning | softened | unhandled changes found :<br>- Format"), "{}", m);
    }
}
