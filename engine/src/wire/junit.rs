//! JUnit XML (the format CI systems read: `testsuites`/`testsuite`/`testcase`, with
//! `failure` and `skipped`; `file` and `line` attributes as pytest and Jest reporters
//! write them).

use crate::wire::cases::CaseRecord;

/// The document for `cases`, grouped by [`CaseRecord::group`] in order of appearance.
pub fn write_junit(name: &str, cases: &[CaseRecord], seconds: f64) -> String {
    let mut groups: Vec<(&str, Vec<&CaseRecord>)> = Vec::new();
    for c in cases {
        match groups.iter_mut().find(|(g, _)| *g == c.group) {
            Some((_, v)) => v.push(c),
            None => groups.push((&c.group, vec![c])),
        }
    }
    let failures = cases.iter().filter(|c| c.failure.is_some()).count();
    let skipped = cases.iter().filter(|c| c.skipped.is_some()).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{:.3}\">\n",
        esc(name),
        cases.len(),
        failures,
        skipped,
        seconds
    ));
    for (g, cs) in &groups {
        let f = cs.iter().filter(|c| c.failure.is_some()).count();
        let s = cs.iter().filter(|c| c.skipped.is_some()).count();
        let file = cs.first().map(|c| c.file.as_str()).unwrap_or("");
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" file=\"{}\">\n",
            esc(g),
            cs.len(),
            f,
            s,
            esc(file)
        ));
        for c in cs {
            let open = format!(
                "    <testcase name=\"{}\" classname=\"{}\" file=\"{}\" line=\"{}\"",
                esc(&c.name),
                esc(g),
                esc(&c.file),
                c.line
            );
            match (&c.failure, &c.skipped) {
                (Some(f), _) => {
                    let first = f.lines().next().unwrap_or("");
                    out.push_str(&format!(
                        "{}>\n      <failure message=\"{}\" type=\"AssertionError\">{}</failure>\n    </testcase>\n",
                        open,
                        esc(first),
                        esc(f)
                    ));
                }
                (None, Some(s)) => out.push_str(&format!("{}>\n      <skipped message=\"{}\"/>\n    </testcase>\n", open, esc(s))),
                (None, None) => out.push_str(&format!("{}/>\n", open)),
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// XML text escaping; characters XML 1.0 cannot hold become U+FFFD.
fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            '\n' | '\t' | '\r' => o.push(ch),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => o.push('\u{FFFD}'),
            c => o.push(c),
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_failures_skips_and_escapes() {
        let cases = vec![
            CaseRecord { group: "S".into(), name: "a <b>".into(), file: "f.yaml".into(), line: 3, failure: None, skipped: None },
            CaseRecord { group: "S".into(), name: "c".into(), file: "f.yaml".into(), line: 9, failure: Some("x \"y\"\nmore".into()), skipped: None },
        ];
        let x = write_junit("crdlab", &cases, 0.5);
        assert!(x.contains("<testsuites name=\"crdlab\" tests=\"2\" failures=\"1\""));
        assert!(x.contains("<testcase name=\"a &lt;b&gt;\" classname=\"S\" file=\"f.yaml\" line=\"3\"/>"));
        assert!(x.contains("<failure message=\"x &quot;y&quot;\" type=\"AssertionError\">x &quot;y&quot;\nmore</failure>"));
    }
}
