//! Findings at a place in a file, in the formats CI systems read: SARIF 2.1.0 (GitHub code
//! scanning and other SARIF consumers) and GitHub Actions' workflow commands (annotations on
//! the line of a pull request's diff). `crdlab validate --crds` writes its errors this way.

use serde_json::{json, Value};

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
}

impl Level {
    fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
        }
    }
}

/// One finding: a message at a file's line and column (1-based; 0 when unknown).
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub level: Level,
    /// A stable id of the kind of finding (`Invalid value`, `Required value`, …): SARIF's
    /// `ruleId`, the annotation's title.
    pub rule: String,
    pub message: String,
}

/// A SARIF 2.1.0 log of one run of `tool` (`version`) holding `findings`. Files are given as
/// relative URIs, as code scanning resolves them against the repository.
pub fn write_sarif(tool: &str, version: &str, information_uri: &str, findings: &[Finding]) -> String {
    let mut rules: Vec<&str> = findings.iter().map(|f| f.rule.as_str()).collect();
    crate::go::sort::sort(&mut rules);
    rules.dedup();
    let results: Vec<Value> = findings
        .iter()
        .map(|f| {
            let mut region = json!({});
            if f.line > 0 {
                region["startLine"] = f.line.into();
                if f.column > 0 {
                    region["startColumn"] = f.column.into();
                }
            }
            let mut location = json!({"artifactLocation": {"uri": uri(&f.file)}});
            if f.line > 0 {
                location["region"] = region;
            }
            json!({
                "ruleId": f.rule,
                "ruleIndex": rules.iter().position(|r| *r == f.rule).unwrap_or(0),
                "level": f.level.as_str(),
                "message": {"text": f.message},
                "locations": [{"physicalLocation": location}],
            })
        })
        .collect();
    let rules: Vec<Value> = rules.iter().map(|r| json!({"id": r, "shortDescription": {"text": r}})).collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": tool, "version": version, "informationUri": information_uri, "rules": rules}},
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&log).expect("JSON values serialize") + "\n"
}

/// A relative path as a URI reference: `/` separators, and the characters a URI cannot hold
/// percent-encoded.
fn uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let path = path.strip_prefix("./").unwrap_or(&path);
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{:02X}", b));
        }
    }
    out
}

/// GitHub Actions workflow commands, one line per finding: `::error file=…,line=…,col=…,title=…::message`.
pub fn write_github(findings: &[Finding]) -> String {
    let mut out = String::new();
    for f in findings {
        let mut props = vec![format!("file={}", property(&f.file))];
        if f.line > 0 {
            props.push(format!("line={}", f.line));
            if f.column > 0 {
                props.push(format!("col={}", f.column));
            }
        }
        props.push(format!("title={}", property(&format!("crdlab: {}", f.rule))));
        out.push_str(&format!("::{} {}::{}\n", f.level.as_str(), props.join(","), data(&f.message)));
    }
    out
}

/// A command's message: `%`, CR and LF escaped (the runner's `escapeData`).
fn data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A command's property value: also `:` and `,` (the runner's `escapeProperty`).
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding() -> Finding {
        Finding {
            file: "deploy/a b.yaml".into(),
            line: 10,
            column: 13,
            level: Level::Error,
            rule: "Invalid value".into(),
            message: "spec.replicas: Invalid value: 7: 100%,\nsecond line".into(),
        }
    }

    #[test]
    fn github_commands_escape_what_the_runner_unescapes() {
        assert_eq!(
            write_github(&[finding()]),
            "::error file=deploy/a b.yaml,line=10,col=13,title=crdlab%3A Invalid value::spec.replicas: Invalid value: 7: 100%25,%0Asecond line\n"
        );
    }

    #[test]
    fn sarif_results_point_at_the_line() {
        let log: Value = serde_json::from_str(&write_sarif("crdlab", "0.1.0", "https://example.com", &[finding()])).unwrap();
        let r = &log["runs"][0]["results"][0];
        assert_eq!(r["level"], "error");
        assert_eq!(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "deploy/a%20b.yaml");
        assert_eq!(r["locations"][0]["physicalLocation"]["region"], json!({"startLine": 10, "startColumn": 13}));
        assert_eq!(log["runs"][0]["tool"]["driver"]["rules"][0]["id"], "Invalid value");
    }
}
