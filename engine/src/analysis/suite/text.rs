//! One suite run from texts, for callers without a file system (the npm package's
//! `runSuite`, the playground's Tests tab, the docs widget): the suite's YAML and the CRD's
//! YAML (or the suite's inline `crd:` mapping) in, the [`Report`] `crdlab test` builds out,
//! so the three show exactly what the CLI judges.

use crate::analysis::suite::format::parse_suite_with;
use crate::analysis::suite::layout::CrdFile;
use crate::analysis::suite::run::{Report, Runner, SuiteReport};
use crate::text::crd_document::parse_crd_text;
use crate::version::KubeVersion;
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

/// The file name reports give a suite that came as text.
pub const SUITE_FILE: &str = "suite.yaml";

/// Which input could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    Suite,
    Crd,
}

impl Input {
    /// The argument's name, as the npm package's errors give it.
    pub fn as_str(self) -> &'static str {
        match self {
            Input::Suite => "suite",
            Input::Crd => "crd",
        }
    }
}

/// An input that could not be read: which, and the reader's message (with its line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    pub input: Input,
    pub message: String,
}

/// Runs the suite in `suite` against `crd` (a CRD manifest's YAML or JSON; the first CRD
/// of a stream), or, when `crd` is `None`, against the suite's inline `crd:` mapping, on
/// each of `releases`. With a CRD given, the suite's `crd`/`crdName` and `featureGates` are
/// not needed and not used. A suite or CRD that cannot be read is an [`InputError`];
/// everything the apiserver would answer (a refused CRD too) is in the report, as with
/// `crdlab test`. `elapsed` is left zero: the caller times the run with its own clock
/// (wasm has no `Instant`).
pub fn run_texts(suite: &str, crd: Option<&str>, releases: &[KubeVersion]) -> Result<Report, InputError> {
    let fail = |input, message| InputError { input, message };
    let parsed = parse_suite_with(suite, crd.is_some()).map_err(|e| fail(Input::Suite, e))?;
    let value: Value = match (crd, &parsed.crd_inline) {
        (Some(text), _) => parse_crd_text(text).map_err(|e| fail(Input::Crd, e.to_string()))?,
        (None, Some(v)) => v.clone(),
        (None, None) => {
            return Err(fail(
                Input::Crd,
                "no CRD: give one, or put the CRD manifest itself under the suite's `crd:`".into(),
            ))
        }
    };
    // Reports name the CRD file: the one the suite names, else the CRD's name.
    let crd_name = parsed
        .crd
        .clone()
        .filter(|c| !c.is_empty())
        .or_else(|| value.pointer("/metadata/name").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| "crd".into());
    let files = [CrdFile { path: PathBuf::from(crd_name), value: std::sync::Arc::new(value) }];
    let mut rep = SuiteReport { path: PathBuf::from(SUITE_FILE), name: parsed.name.clone(), error: None, cases: Vec::new() };
    match Runner::default().run_suite(&parsed, &files, releases) {
        Ok(cases) => rep.cases = cases,
        Err(e) => rep.error = Some(e),
    }
    Ok(Report { releases: releases.to_vec(), suites: vec![rep], elapsed: Duration::ZERO })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CRD: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: foos.example.com}\nspec:\n  group: example.com\n  names: {kind: Foo, plural: foos, singular: foo, listKind: FooList}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              count: {type: integer, minimum: 0}\n";

    const TESTS: &str = "tests:\n  onCreate:\n  - name: accepts 1\n    initial: |\n      apiVersion: example.com/v1\n      kind: Foo\n      spec: {count: 1}\n    expected: |\n      apiVersion: example.com/v1\n      kind: Foo\n      spec: {count: 1}\n  - name: refuses -1\n    initial: |\n      apiVersion: example.com/v1\n      kind: Foo\n      spec: {count: -1}\n    expectedError: \"spec.count: Invalid value: -1: spec.count in body should be greater than or equal to 0\"\n";

    fn statuses(r: &Report) -> Vec<(u32, bool)> {
        r.suites[0].cases.iter().map(|c| (c.line, c.passed())).collect()
    }

    #[test]
    fn runs_against_the_given_crd_without_crd_or_crd_name() {
        let r = run_texts(TESTS, Some(CRD), &[KubeVersion::LATEST]).unwrap();
        assert_eq!(r.suites[0].error, None);
        assert_eq!(statuses(&r), [(3, true), (12, true)]);
        assert_eq!(r.suites[0].cases[0].crd_file, "foos.example.com");
    }

    #[test]
    fn runs_against_an_inline_crd() {
        let inline: String = CRD.lines().map(|l| format!("  {}\n", l)).collect();
        let suite = format!("name: inline\ncrd:\n{}{}", inline, TESTS);
        let r = run_texts(&suite, None, &[KubeVersion::LATEST]).unwrap();
        assert_eq!(r.suites[0].name, "inline");
        assert_eq!(statuses(&r).iter().filter(|(_, ok)| *ok).count(), 2);
    }

    #[test]
    fn a_changed_expected_error_fails_with_the_apiservers_message() {
        let suite = TESTS.replace("greater than or equal to 0", "less than 0");
        let r = run_texts(&suite, Some(CRD), &[KubeVersion::LATEST]).unwrap();
        let c = &r.suites[0].cases[1];
        assert!(!c.passed());
        let crate::analysis::suite::Verdict::Fail(f) = &c.results[0].1 else { panic!("{:?}", c.results) };
        assert!(f.actual.as_deref().unwrap_or("").contains("spec.count in body should be greater than or equal to 0"), "{:?}", f);
    }

    #[test]
    fn unreadable_inputs_say_which() {
        assert_eq!(run_texts("kind: Foo\n", Some(CRD), &[KubeVersion::LATEST]).unwrap_err().input, Input::Suite);
        assert_eq!(run_texts(TESTS, Some("a: [\n"), &[KubeVersion::LATEST]).unwrap_err().input, Input::Crd);
        let e = run_texts("crd: foo.yaml\ntests: {onCreate: []}\n", None, &[KubeVersion::LATEST]).unwrap_err();
        assert_eq!(e.input, Input::Crd);
    }
}
