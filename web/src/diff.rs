//! The diff tab: an old CRD against the CRD being edited (crd-diff/crdify checks plus CEL
//! rule changes, evaluated on the objects in the editors), findings grouped per field.
//!
//! The app keeps the last report ([`Cache`], so switching tabs does not recompute it) and
//! hands it to the [`Diff`] pane with the old CRD's text.

use crate::editor::Editor;
use crate::Same;
use crdlab::analysis::diff::{self, Report, Severity};
use crdlab::view::Settings;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// A diff's outcome: the report, or why the CRDs could not be compared.
pub type Outcome = Result<Report, String>;

/// The last diff, recomputed only when an input changed (kept by the engine worker).
#[derive(Default)]
pub struct Cache {
    last: RefCell<Option<(u64, Rc<Outcome>)>>,
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub old_crd: AttrValue,
    /// `None` while there is no old CRD.
    pub report: Option<Same<Rc<Outcome>>>,
    pub dark: bool,
    pub on_old_crd: Callback<AttrValue>,
    /// "use the current CRD as the old one".
    pub on_copy: Callback<()>,
}

fn key(parts: &[&str]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    parts.hash(&mut h);
    h.finish()
}

fn run(old_crd: &str, crd: &str, object: &str, old_object: &str, settings: &Settings) -> Result<Report, String> {
    let mut objects = Vec::new();
    for (name, text) in [("object", object), ("old object", old_object)] {
        if !text.trim().is_empty() {
            // Unreadable sample objects are skipped; the results pane reports them.
            if let Ok(mut o) = diff::objects_from_text(name, text) {
                objects.append(&mut o);
            }
        }
    }
    let kubernetes_version = match settings.kubernetes_version.as_deref() {
        Some(v) => Some(crdlab::KubeVersion::parse(v)?),
        None => None,
    };
    let opts = diff::Options { objects, kubernetes_version, ..Default::default() };
    diff::diff(old_crd, crd, &opts)
}

impl Cache {
    /// The diff of the inputs: the last one if they did not change (`None`: no old CRD).
    pub fn report(&self, old_crd: &str, crd: &str, object: &str, old_object: &str, settings: &Settings) -> Option<Rc<Outcome>> {
        if old_crd.trim().is_empty() {
            return None;
        }
        let k = key(&[old_crd, crd, object, old_object, settings.kubernetes_version.as_deref().unwrap_or("")]);
        let fresh = matches!(&*self.last.borrow(), Some((lk, _)) if *lk == k);
        if !fresh {
            *self.last.borrow_mut() = Some((k, Rc::new(run(old_crd, crd, object, old_object, settings))));
        }
        self.last.borrow().as_ref().map(|(_, r)| r.clone())
    }
}

pub struct Diff;

impl Component for Diff {
    type Message = ();
    type Properties = Props;

    fn create(_ctx: &Context<Self>) -> Self {
        Diff
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        view(ctx.props())
    }
}

fn view(p: &Props) -> Html {
    let report = p.report.as_ref().map(|r| &*r.0);
    html! {
            <div class="diff" data-testid="diff">
                <p class="hint">
                    { "Paste the CRD as it is deployed today; the CRD editor holds the new one. Findings say what breaks existing clients and stored objects; CEL rule changes are run on the objects in the editors. " }
                    <button class="link" data-testid="diff-copy" onclick={p.on_copy.reform(|_| ())}>{ "use the current CRD as the old one" }</button>
                </p>
                <Editor value={p.old_crd.clone()} on_change={p.on_old_crd.clone()} testid="old-crd-editor"
                    label="Old CustomResourceDefinition (as deployed)" dark={p.dark} class="old-crd" />
                {
                    match report {
                        None => html! { <p class="none">{ "No old CRD yet." }</p> },
                        Some(Err(e)) => html! { <p class="input-error" role="alert">{ e }</p> },
                        Some(Ok(r)) => findings(r),
                    }
                }
            </div>
        }
}

fn findings(r: &Report) -> Html {
    // Per field, in first-seen order; whole-CRD findings first.
    let mut groups: Vec<(String, Vec<&diff::Finding>)> = Vec::new();
    for f in &r.findings {
        let field = f.field.clone().unwrap_or_else(|| "(whole CRD)".into());
        match groups.iter_mut().find(|(g, _)| *g == field) {
            Some((_, v)) => v.push(f),
            None => groups.push((field, vec![f])),
        }
    }
    groups.sort_by_key(|(g, _)| g != "(whole CRD)");
    let errors = r.findings.iter().filter(|f| f.severity == Severity::Error).count();
    html! {
        <>
            <p class={classes!("summary", if r.breaking { "bad" } else { "ok" })} data-testid="diff-summary" aria-live="polite">
                { if r.breaking { format!("Breaking: {} error{}, {} warning{}", errors, if errors == 1 { "" } else { "s" }, r.findings.len() - errors, if r.findings.len() - errors == 1 { "" } else { "s" }) }
                  else if r.findings.is_empty() { "No findings: the change is compatible.".to_string() }
                  else { format!("Not breaking: {} warning{}", r.findings.len(), if r.findings.len() == 1 { "" } else { "s" }) } }
            </p>
            { for groups.iter().map(|(field, list)| html! {
                <section class="block finding-group" data-field={field.clone()}>
                    <h3><code>{ field }</code></h3>
                    <ul class="messages">
                        { for list.iter().map(|f| html! {
                            <li class={classes!("finding", if f.severity == Severity::Error { "error" } else { "warning" })} data-testid="finding" data-check={f.check.clone()}>
                                <span class="badge">{ if f.severity == Severity::Error { "error" } else { "warning" } }</span>
                                { " " }<code>{ format!("{}/{}", f.validator.as_str(), f.check) }</code>
                                if let Some(v) = &f.version { { format!(" [{}]", v) } }
                                { " " }<span class="message">{ &f.message }</span>
                                if !f.ratcheting.explain().is_empty() { <div class="note">{ f.ratcheting.explain() }</div> }
                                if !f.objects.is_empty() { <div class="note">{ format!("objects: {}", f.objects.join(", ")) }</div> }
                            </li>
                        }) }
                    </ul>
                </section>
            }) }
            if !r.notes.is_empty() {
                <ul class="notes">{ for r.notes.iter().map(|n| html! { <li>{ n }</li> }) }</ul>
            }
        </>
    }
}
