//! TAP version 14 (Test Anything Protocol): a plan, one `ok`/`not ok` line per case, the
//! failure as a YAML diagnostic block (`message`, `at: {file, line}`, `details`).

use crate::wire::cases::CaseRecord;

pub fn write_tap(cases: &[CaseRecord]) -> String {
    let mut out = format!("TAP version 14\n1..{}\n", cases.len());
    for (i, c) in cases.iter().enumerate() {
        let name = format!("{} {}", c.group, c.name).replace('#', "\\#").replace('\n', " ");
        match (&c.failure, &c.skipped) {
            (Some(f), _) => {
                out.push_str(&format!("not ok {} - {}\n", i + 1, name));
                out.push_str("  ---\n");
                out.push_str(&format!("  message: {}\n", quote(f.lines().next().unwrap_or(""))));
                out.push_str("  at:\n");
                out.push_str(&format!("    file: {}\n", quote(&c.file)));
                out.push_str(&format!("    line: {}\n", c.line));
                out.push_str("  details: |-\n");
                for l in f.lines() {
                    out.push_str("    ");
                    out.push_str(l);
                    out.push('\n');
                }
                out.push_str("  ...\n");
            }
            (None, Some(s)) => out.push_str(&format!("ok {} - {} # SKIP {}\n", i + 1, name, s.replace('\n', " "))),
            (None, None) => out.push_str(&format!("ok {} - {}\n", i + 1, name)),
        }
    }
    out
}

/// A YAML double-quoted scalar (JSON's string syntax is valid YAML).
fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_plan_lines_and_diagnostics() {
        let cases = vec![
            CaseRecord { group: "S".into(), name: "a # b".into(), file: "f.yaml".into(), line: 3, ..Default::default() },
            CaseRecord { group: "S".into(), name: "c".into(), file: "f.yaml".into(), line: 9, failure: Some("boom\n  detail".into()), skipped: None },
        ];
        assert_eq!(
            write_tap(&cases),
            "TAP version 14\n1..2\nok 1 - S a \\# b\nnot ok 2 - S c\n  ---\n  message: \"boom\"\n  at:\n    file: \"f.yaml\"\n    line: 9\n  details: |-\n    boom\n      detail\n  ...\n"
        );
    }
}
