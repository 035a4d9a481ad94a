//! The tests tab: a CRD test suite (`crdlab test`'s format, openshift/api's) written or
//! pasted next to the CRD being edited, run by the engine against that CRD at every edit
//! (in the worker, which always works on the newest texts), one line per test with the
//! apiserver's answer against the expected one and the test's line in the suite.
//! Clicking a test loads its objects into the object editors.
//!
//! The engine judges ([`crdlab::analysis::suite::run_texts`], what `crdlab test` runs); the
//! worker turns its report into the [`SuiteView`] this pane renders.

use crate::editor::Editor;
use crate::Same;
use crdlab::analysis::suite::{self, Report, Verdict};
use crdlab::view::Settings;
use crdlab::KubeVersion;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// A run's outcome: the view, or why the suite (or the CRD) could not be read.
pub type Outcome = Result<SuiteView, String>;

/// What the pane shows of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SuiteView {
    pub name: String,
    pub kubernetes_version: String,
    /// Why no test ran (a refused CRD version, a bad `kubernetesVersions` entry).
    pub error: Option<String>,
    pub tests: Vec<TestView>,
}

/// One test and its verdict.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TestView {
    pub name: String,
    /// `onCreate`, `onUpdate`, `expectedCost`.
    pub kind: String,
    /// 1-based line in the suite.
    pub line: u32,
    /// `pass`, `fail`, `skip`.
    pub status: String,
    pub failure: Option<FailureView>,
    /// The objects clicking loads: the object editor's, and the old object's (an update).
    pub object: String,
    pub old_object: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FailureView {
    pub step: String,
    pub summary: String,
    pub expected: Option<String>,
    pub actual: Option<String>,
    pub diff: Vec<String>,
}

/// Runs `suite_text` against `crd` on the playground's release.
pub fn run(suite_text: &str, crd: &str, settings: &Settings) -> Outcome {
    let kube = match settings.kubernetes_version.as_deref() {
        Some(v) => KubeVersion::parse(v)?,
        None => KubeVersion::default(),
    };
    let report = suite::run_texts(suite_text, Some(crd), &[kube]).map_err(|e| format!("{}: {}", if e.input == suite::Input::Crd { "the CRD" } else { "the suite" }, e.message))?;
    // The objects of each test, for loading into the editors.
    let parsed = suite::parse_suite_with(suite_text, true).ok();
    Ok(view(&report, parsed.as_ref(), kube))
}

fn view(report: &Report, parsed: Option<&suite::Suite>, kube: KubeVersion) -> SuiteView {
    let Some(s) = report.suites.first() else { return SuiteView::default() };
    let tests = s
        .cases
        .iter()
        .map(|c| {
            let (status, failure) = match c.results.first().map(|(_, v)| v) {
                Some(Verdict::Fail(f)) => (
                    "fail",
                    Some(FailureView { step: f.step.clone(), summary: f.summary.clone(), expected: f.expected.clone(), actual: f.actual.clone(), diff: f.diff.clone() }),
                ),
                Some(Verdict::Skip) => ("skip", None),
                _ => ("pass", None),
            };
            let test = parsed.and_then(|p| match c.kind {
                "onCreate" => p.on_create.get(c.index),
                "onUpdate" => p.on_update.get(c.index),
                _ => None,
            });
            let (object, old_object) = match test {
                Some(t) if c.kind == "onUpdate" => (t.updated.clone(), t.initial.clone()),
                Some(t) => (t.initial.clone(), String::new()),
                None => (String::new(), String::new()),
            };
            TestView { name: c.name.clone(), kind: c.kind.to_string(), line: c.line, status: status.into(), failure, object, old_object }
        })
        .collect();
    SuiteView { name: s.name.clone(), kubernetes_version: kube.to_string(), error: s.error.clone(), tests }
}

/// The last run, repeated only when an input changed (kept by the engine worker: object
/// edits do not re-run the suite).
#[derive(Default)]
pub struct Cache {
    last: RefCell<Option<(u64, Rc<Outcome>)>>,
}

impl Cache {
    /// The run of the inputs (`None`: no suite).
    pub fn outcome(&self, suite_text: &str, crd: &str, settings: &Settings) -> Option<Rc<Outcome>> {
        if suite_text.trim().is_empty() {
            return None;
        }
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (suite_text, crd, settings.kubernetes_version.as_deref()).hash(&mut h);
        let k = h.finish();
        let fresh = matches!(&*self.last.borrow(), Some((lk, _)) if *lk == k);
        if !fresh {
            *self.last.borrow_mut() = Some((k, Rc::new(run(suite_text, crd, settings))));
        }
        self.last.borrow().as_ref().map(|(_, r)| r.clone())
    }
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub suite: AttrValue,
    /// `None` while there is no suite (or no answer for it yet).
    pub outcome: Option<Same<Rc<Outcome>>>,
    pub dark: bool,
    pub on_suite: Callback<AttrValue>,
    /// A test clicked: its (object, old object).
    pub on_load: Callback<(String, String)>,
    /// The example's own suite, when it has one.
    pub example_suite: Option<&'static str>,
}

pub struct Tests;

impl Component for Tests {
    type Message = ();
    type Properties = Props;

    fn create(_ctx: &Context<Self>) -> Self {
        Tests
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let p = ctx.props();
        let outcome = p.outcome.as_ref().map(|o| &*o.0);
        html! {
            <div class="tests" data-testid="tests">
                <p class="hint">
                    { "A test suite for the CRD in the editor (the format of " }<code>{ "crdlab test" }</code>
                    { ", openshift/api's): each test creates or updates objects and says what the apiserver answers. Click a test to load its objects. " }
                    if let Some(s) = p.example_suite {
                        <button class="link" data-testid="tests-example" onclick={p.on_suite.reform(move |_| AttrValue::Static(s))}>{ "use this example's suite" }</button>
                    }
                </p>
                <Editor value={p.suite.clone()} on_change={p.on_suite.clone()} testid="suite-editor"
                    label="Test suite (YAML)" dark={p.dark} class="suite" />
                {
                    match outcome {
                        None => html! { <p class="none">{ "No suite yet." }</p> },
                        Some(Err(e)) => html! { <p class="input-error" role="alert" data-testid="tests-error">{ e }</p> },
                        Some(Ok(v)) => results(v, &p.on_load),
                    }
                }
            </div>
        }
    }
}

fn results(v: &SuiteView, on_load: &Callback<(String, String)>) -> Html {
    let failed = v.tests.iter().filter(|t| t.status == "fail").count();
    let passed = v.tests.iter().filter(|t| t.status == "pass").count();
    let skipped = v.tests.len() - failed - passed;
    let ok = failed == 0 && v.error.is_none();
    html! {
        <>
            <p class={classes!("summary", if ok { "ok" } else { "bad" })} data-testid="tests-summary" aria-live="polite">
                { format!("{}{} tests on {}: {} passed, {} failed{}", if v.name.is_empty() { String::new() } else { format!("{}: ", v.name) }, v.tests.len(), v.kubernetes_version, passed, failed,
                    if skipped > 0 { format!(", {} skipped", skipped) } else { String::new() }) }
            </p>
            if let Some(e) = &v.error {
                <p class="input-error" role="alert" data-testid="tests-error">{ e }</p>
            }
            <ul class="messages test-list">
                { for v.tests.iter().map(|t| {
                    let load = (t.object.clone(), t.old_object.clone());
                    let onclick = on_load.reform(move |_| load.clone());
                    html! {
                        <li class={classes!("test", t.status.clone())} data-testid="test" data-status={t.status.clone()} data-line={t.line.to_string()}>
                            <button class="link test-name" data-testid="test-load" title="load this test's objects into the editors" {onclick}>
                                <span class="badge">{ match t.status.as_str() { "pass" => "✓ pass", "fail" => "✗ fail", _ => "– skip" } }</span>
                                { " " }{ &t.name }
                            </button>
                            <span class="note">{ format!(" {} · line {}", t.kind, t.line) }</span>
                            if let Some(f) = &t.failure {
                                <div class="failure" data-testid="test-failure">
                                    <div>{ format!("{}: {}", f.step, f.summary) }</div>
                                    if let Some(e) = &f.expected {
                                        <div><span class="label">{ "expected " }</span><code data-testid="test-expected">{ e }</code></div>
                                    }
                                    if let Some(a) = &f.actual {
                                        <div><span class="label">{ "got " }</span><code data-testid="test-actual">{ a }</code></div>
                                    }
                                    if !f.diff.is_empty() {
                                        <pre class="diff-lines">{ f.diff.join("\n") }</pre>
                                    }
                                </div>
                            }
                        </li>
                    }
                }) }
            </ul>
        </>
    }
}
