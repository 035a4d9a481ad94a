//! crdlab playground: edit a CRD and an object, see what the apiserver would answer.
//!
//! Every edit builds a [`Request`] and hands it to one [`Engine`] kept for the life of the
//! page, so a CRD is compiled once and reused while only the object changes.

use crdlab::field::ErrorReport;
use crdlab::request::{Answer, Engine, Request};
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

const EXAMPLE_CRD: &str = include_str!("../../static/examples/widget.crd.yaml");
const EXAMPLE_OBJECT: &str = include_str!("../../static/examples/widget.object.yaml");

/// What the user typed; the answer is a pure function of it (plus the engine's cache).
#[derive(Clone, PartialEq)]
struct Inputs {
    crd: String,
    object: String,
    old_object: String,
    version: String,
}

impl Inputs {
    fn request(&self) -> Request {
        let text = |s: &str| Some(Value::String(s.to_string()));
        let trimmed_or_none = |s: &str| if s.trim().is_empty() { None } else { Some(s.to_string()) };
        Request {
            id: Value::String("playground".into()),
            crd: text(&self.crd),
            // An empty object box means "compile only": the CRD checks still show.
            object: trimmed_or_none(&self.object).map(Value::String),
            // Presence of an old object makes the request an update.
            old_object: trimmed_or_none(&self.old_object).map(Value::String),
            version: trimmed_or_none(&self.version).map(|v| v.trim().to_string()),
            ..Default::default()
        }
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {}", word)
    } else {
        format!("{} {}s", n, word)
    }
}

/// The one-line verdict shown above the details.
fn summary(answer: &Answer) -> (String, &'static str) {
    if let Some(e) = &answer.error {
        return (format!("request error: {}", e), "bad");
    }
    let crd_errors = answer.crd_errors.as_ref().map_or(0, Vec::len);
    let errors = answer.errors.as_ref().map_or(0, Vec::len);
    let mut parts = Vec::new();
    if crd_errors > 0 {
        parts.push(format!("the CRD has {}", plural(crd_errors, "error")));
    }
    if answer.errors.is_none() {
        if crd_errors == 0 {
            return ("CRD valid (no object to validate)".into(), "ok");
        }
        return (parts.join("; "), "bad");
    }
    if errors > 0 {
        parts.push(plural(errors, "error"));
    }
    if parts.is_empty() {
        ("valid".into(), "ok")
    } else {
        (parts.join("; "), "bad")
    }
}

fn error_items(list: &[ErrorReport], class: &'static str) -> Html {
    list.iter()
        .map(|e| html! { <li class={class} data-field={e.field.clone()} data-type={e.kind.clone()}>{ &e.message }</li> })
        .collect()
}

fn section(title: &str, id: &'static str, body: Html) -> Html {
    html! {
        <section class="result" id={format!("{}-section", id)}>
            <h2>{ title }</h2>
            { body }
        </section>
    }
}

fn render_answer(answer: &Answer) -> Html {
    let (text, class) = summary(answer);
    let empty: Vec<ErrorReport> = Vec::new();
    let errors = answer.errors.as_ref().unwrap_or(&empty);
    let crd_errors = answer.crd_errors.as_ref().unwrap_or(&empty);
    let warnings = answer.warnings.as_ref().unwrap_or(&empty);
    let crd_warnings = answer.crd_warnings.clone().unwrap_or_default();
    let unknown = answer.unknown_fields.clone().unwrap_or_default();
    let defaulted = answer
        .defaulted
        .as_ref()
        .map(|v| serde_json::to_string_pretty(v).unwrap_or_else(|e| format!("<{}>", e)));
    html! {
        <>
            <p id="summary" class={classes!("summary", class)}>{ text }</p>
            if let Some(e) = &answer.error {
                <p id="request-error" class="request-error">{ e }</p>
            }
            if !crd_errors.is_empty() {
                { section("CRD errors", "crd-errors", html! { <ul id="crd-errors">{ error_items(crd_errors, "crd-error") }</ul> }) }
            }
            if !crd_warnings.is_empty() {
                { section("CRD warnings", "crd-warnings", html! {
                    <ul id="crd-warnings">{ for crd_warnings.iter().map(|w| html! { <li class="warning">{ w }</li> }) }</ul>
                }) }
            }
            { section("Errors", "errors", html! {
                <>
                    <ul id="errors">{ error_items(errors, "error") }</ul>
                    if errors.is_empty() { <p class="none">{ "none" }</p> }
                </>
            }) }
            if !warnings.is_empty() {
                { section("Warnings", "warnings", html! { <ul id="warnings">{ error_items(warnings, "warning") }</ul> }) }
            }
            if !unknown.is_empty() {
                { section("Unknown fields (pruned)", "unknown-fields", html! {
                    <ul id="unknown-fields">{ for unknown.iter().map(|f| html! { <li class="unknown-field">{ f }</li> }) }</ul>
                }) }
            }
            if let Some(d) = defaulted {
                { section("Object after pruning and defaulting", "defaulted", html! { <pre id="defaulted">{ d }</pre> }) }
            }
        </>
    }
}

#[function_component(App)]
fn app() -> Html {
    let engine: Rc<RefCell<Engine>> = use_mut_ref(Engine::new);
    let inputs = use_state(|| Inputs {
        crd: EXAMPLE_CRD.to_string(),
        object: EXAMPLE_OBJECT.to_string(),
        old_object: String::new(),
        version: String::new(),
    });

    let answer = {
        let engine = engine.clone();
        use_memo((*inputs).clone(), move |inputs| engine.borrow_mut().handle(&inputs.request()))
    };

    let textarea_input = |set: fn(&mut Inputs, String)| {
        let inputs = inputs.clone();
        Callback::from(move |e: InputEvent| {
            let el: HtmlTextAreaElement = e.target_unchecked_into();
            let mut next = (*inputs).clone();
            set(&mut next, el.value());
            inputs.set(next);
        })
    };
    let on_crd = textarea_input(|i, v| i.crd = v);
    let on_object = textarea_input(|i, v| i.object = v);
    let on_old = textarea_input(|i, v| i.old_object = v);
    let on_version = {
        let inputs = inputs.clone();
        Callback::from(move |e: InputEvent| {
            let el: HtmlInputElement = e.target_unchecked_into();
            let mut next = (*inputs).clone();
            next.version = el.value();
            inputs.set(next);
        })
    };

    html! {
        <main>
            <header>
                <h1>{ "crdlab playground" }</h1>
                <p class="tagline">
                    { "What a Kubernetes apiserver answers for this CustomResourceDefinition and object — computed in your browser, offline." }
                </p>
            </header>
            <div class="columns">
                <div class="inputs">
                    <label for="crd">{ "CustomResourceDefinition (YAML or JSON)" }</label>
                    <textarea id="crd" spellcheck="false" rows="24" value={inputs.crd.clone()} oninput={on_crd} />
                    <label for="object">{ "Object (YAML or JSON; empty: check the CRD only)" }</label>
                    <textarea id="object" spellcheck="false" rows="12" value={inputs.object.clone()} oninput={on_object} />
                    <label for="old-object">{ "Old object (optional; present = update)" }</label>
                    <textarea id="old-object" spellcheck="false" rows="6" value={inputs.old_object.clone()} oninput={on_old} />
                    <label for="version">{ "Version (optional; default: the storage version)" }</label>
                    <input id="version" type="text" placeholder="v1" value={inputs.version.clone()} oninput={on_version} />
                </div>
                <div class="outputs" id="results">
                    { render_answer(&answer) }
                </div>
            </div>
        </main>
    }
}

fn main() {
    // Yew installs console_error_panic_hook: a panic shows in the browser console.
    yew::Renderer::<App>::new().render();
}
