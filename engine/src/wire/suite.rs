//! `crdlab test`'s reports: text (one line per test, failures indented, the release matrix
//! when several releases ran, a summary), JSON (one document, the shape the npm package
//! returns), and the [`CaseRecord`]s the JUnit and TAP writers take.

use crate::analysis::suite::run::{Case, Failure, Report, SuiteReport, Verdict};
use crate::version::KubeVersion;
use crate::wire::cases::CaseRecord;
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// A path as reports show it: relative to `base` when under it.
fn shown(p: &Path, base: Option<&Path>) -> String {
    base.and_then(|b| p.strip_prefix(b).ok()).unwrap_or(p).display().to_string()
}

/// The releases as ranges: `1.25–1.27, 1.30`.
pub fn release_ranges(vs: &[KubeVersion]) -> String {
    let mut vs = vs.to_vec();
    crate::go::sort::sort(&mut vs);
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < vs.len() {
        let mut j = i;
        while j + 1 < vs.len() && vs[j + 1].minor == vs[j].minor + 1 {
            j += 1;
        }
        parts.push(if i == j { vs[i].to_string() } else { format!("{}–{}", vs[i], vs[j]) });
        i = j + 1;
    }
    parts.join(", ")
}

fn case_title(c: &Case) -> String {
    format!("[{}] {}: {}", c.crd_file, c.kind, c.name)
}

/// A failure's text, several lines.
pub fn failure_text(f: &Failure) -> String {
    let mut s = format!("{}: {}", f.step, f.summary);
    if let Some(e) = &f.expected {
        s.push_str(&format!("\nexpected: {}", e));
    }
    if let Some(a) = &f.actual {
        s.push_str(&format!("\nactual:   {}", a));
    }
    if !f.diff.is_empty() {
        s.push_str("\ndiff (- expected, + stored):");
        for d in &f.diff {
            s.push_str("\n  ");
            s.push_str(d);
        }
    }
    s
}

/// The text report.
pub fn text_report(r: &Report, base: Option<&Path>) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail, and every piece written is a `str`.
    let _ = write_text_report(r, base, &mut out);
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The text report, written as it is made: a run over many releases reports hundreds of
/// megabytes, which need not be held at once.
pub fn write_text_report(r: &Report, base: Option<&Path>, out: &mut dyn Write) -> std::io::Result<()> {
    let multi = r.releases.len() > 1;
    for s in &r.suites {
        writeln!(out, "{} ({})", shown(&s.path, base), if s.name.is_empty() { "-" } else { &s.name })?;
        if let Some(e) = &s.error {
            writeln!(out, "  ✗ ERROR {}", e)?;
            continue;
        }
        // Long failures already shown in full in this suite, with the test (line, CRD file)
        // that showed them. A CRD refused on a release fails every test of the suite with
        // one multi-kilobyte error; over the release matrix that repeated text was most of
        // a 300 MB report. Later tests name the earlier one instead.
        let mut shown_in_full: Vec<(&Arc<Failure>, u32, &str)> = Vec::new();
        for c in &s.cases {
            let failed: Vec<(KubeVersion, &Arc<Failure>)> = c.results.iter().filter_map(|(k, v)| match v { Verdict::Fail(f) => Some((*k, f)), _ => None }).collect();
            let passed: Vec<KubeVersion> = c.results.iter().filter(|(_, v)| *v == Verdict::Pass).map(|(k, _)| *k).collect();
            let skipped = c.results.iter().all(|(_, v)| *v == Verdict::Skip);
            let mark = if !failed.is_empty() { "✗" } else if skipped { "-" } else { "✓" };
            write!(out, "  {} {} (line {})", mark, case_title(c), c.line)?;
            if multi && !failed.is_empty() {
                let fv: Vec<KubeVersion> = failed.iter().map(|(k, _)| *k).collect();
                write!(out, " — fails on {}", release_ranges(&fv))?;
                if !passed.is_empty() {
                    write!(out, ", passes on {}", release_ranges(&passed))?;
                }
            } else if skipped {
                out.write_all(" — skipped (kubernetesVersions)".as_bytes())?;
            }
            out.write_all(b"\n")?;
            // Each distinct failure once, with the releases that share it (a failure
            // shared by several releases is often one value: compared by address first).
            let mut groups: Vec<(Vec<KubeVersion>, &Arc<Failure>)> = Vec::new();
            for (k, f) in failed {
                match groups.iter_mut().find(|(_, g)| same_failure(g, f)) {
                    Some((ks, _)) => ks.push(k),
                    None => groups.push((vec![k], f)),
                }
            }
            for (ks, f) in groups {
                let prefix = if multi { format!("{}: ", release_ranges(&ks)) } else { String::new() };
                if is_long(f) {
                    if let Some((_, line, file)) = shown_in_full.iter().find(|(g, _, _)| same_failure(g, f)) {
                        write!(out, "      {}{}: {} (in full under the test on line {}", prefix, f.step, head(&f.summary), line)?;
                        if *file != c.crd_file {
                            write!(out, " with [{}]", file)?;
                        }
                        out.write_all(b" above)\n")?;
                        continue;
                    }
                    shown_in_full.push((f, c.line, &c.crd_file));
                }
                for (i, l) in failure_text(f).lines().enumerate() {
                    out.write_all(if i == 0 { b"      " } else { b"        " })?;
                    if i == 0 {
                        out.write_all(prefix.as_bytes())?;
                    }
                    out.write_all(l.as_bytes())?;
                    out.write_all(b"\n")?;
                }
            }
        }
    }
    let passed = r.cases() - r.failed();
    writeln!(
        out,
        "{} suites, {} tests, {} passed, {} failed{} on {} in {:.2}s",
        r.suites.len(),
        r.cases(),
        passed,
        r.failed(),
        if r.suite_errors() > 0 { format!(", {} suite errors", r.suite_errors()) } else { String::new() },
        release_ranges(&r.releases),
        r.elapsed.as_secs_f64()
    )
}

/// Whether a failure is worth naming rather than repeating: over [`LONG_FAILURE`] bytes,
/// several lines, or a diff.
fn is_long(f: &Failure) -> bool {
    f.summary.len() + f.expected.as_ref().map_or(0, String::len) + f.actual.as_ref().map_or(0, String::len) > LONG_FAILURE
        || f.summary.contains('\n')
        || !f.diff.is_empty()
}

const LONG_FAILURE: usize = 400;

/// The start of a summary, to name a failure shown in full earlier: its first line, cut at
/// [`HEAD_CHARS`] characters.
fn head(summary: &str) -> String {
    let line = summary.lines().next().unwrap_or("");
    match line.char_indices().nth(HEAD_CHARS) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

const HEAD_CHARS: usize = 120;

/// Whether two failures read alike (one shared value, or equal ones).
fn same_failure(a: &Arc<Failure>, b: &Arc<Failure>) -> bool {
    Arc::ptr_eq(a, b) || **a == **b
}

fn failure_json(f: &Failure) -> Value {
    json!({
        "step": f.step,
        "summary": f.summary,
        "expected": f.expected,
        "actual": f.actual,
        "diff": f.diff,
        "text": failure_text(f),
    })
}

fn case_json(c: &Case) -> Value {
    let results: Vec<Value> = c
        .results
        .iter()
        .map(|(k, v)| {
            let warnings = c.warnings.iter().find(|(w, _)| w == k).map(|(_, w)| w.clone()).unwrap_or_default();
            match v {
                Verdict::Pass => json!({"kubernetesVersion": k.to_string(), "status": "pass", "warnings": warnings}),
                Verdict::Skip => json!({"kubernetesVersion": k.to_string(), "status": "skip"}),
                Verdict::Fail(f) => json!({"kubernetesVersion": k.to_string(), "status": "fail", "warnings": warnings, "failure": failure_json(f)}),
            }
        })
        .collect();
    json!({
        "name": c.name,
        "kind": c.kind,
        "line": c.line,
        "crdFile": c.crd_file,
        "passed": c.passed(),
        "results": results,
    })
}

fn suite_json(s: &SuiteReport, base: Option<&Path>) -> Value {
    json!({
        "file": shown(&s.path, base),
        "name": s.name,
        "error": s.error,
        "cases": s.cases.iter().map(case_json).collect::<Vec<_>>(),
    })
}

/// The JSON report: `{kubernetesVersions, summary: {suites, tests, passed, failed,
/// suiteErrors, seconds}, suites: [{file, name, error, cases: [{name, kind, line, crdFile,
/// passed, results: [{kubernetesVersion, status, warnings, failure?}]}]}]}`.
pub fn json_report(r: &Report, base: Option<&Path>) -> Value {
    json!({
        "kubernetesVersions": r.releases.iter().map(|k| k.to_string()).collect::<Vec<_>>(),
        "summary": {
            "suites": r.suites.len(),
            "tests": r.cases(),
            "passed": r.cases() - r.failed(),
            "failed": r.failed(),
            "suiteErrors": r.suite_errors(),
            "seconds": r.elapsed.as_secs_f64(),
        },
        "suites": r.suites.iter().map(|s| suite_json(s, base)).collect::<Vec<_>>(),
    })
}

/// One record per case and release (per case when one release ran), and one per suite
/// that could not run.
pub fn records(r: &Report, base: Option<&Path>) -> Vec<CaseRecord> {
    let multi = r.releases.len() > 1;
    let mut out = Vec::new();
    for s in &r.suites {
        let file = shown(&s.path, base);
        let group = if s.name.is_empty() { file.clone() } else { format!("{} ({})", s.name, file) };
        if let Some(e) = &s.error {
            out.push(CaseRecord { group: group.clone(), name: "suite".into(), file: file.clone(), line: 1, failure: Some(e.clone()), skipped: None });
        }
        for c in &s.cases {
            for (k, v) in &c.results {
                let name = if multi { format!("{} [{}]", case_title(c), k) } else { case_title(c) };
                let (failure, skipped) = match v {
                    Verdict::Pass => (None, None),
                    Verdict::Skip => (None, Some(format!("not run on {} (kubernetesVersions)", k))),
                    Verdict::Fail(f) => (Some(failure_text(f)), None),
                };
                out.push(CaseRecord { group: group.clone(), name, file: file.clone(), line: c.line, failure, skipped });
            }
        }
    }
    out
}
