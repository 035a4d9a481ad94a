//! The results pane: kubectl's summary, the apiserver's messages, the field tree, what
//! pruning and defaulting did, and the runtime budget left.

use crate::{App, Msg, Pane};
use crdlab::view::diagnostics::Diagnostic;
use crdlab::view::kubectl::Verdict;
use crdlab::view::tree::State;
use crdlab::view::{Analysis, InputError};
use yew::html::Scope;
use yew::prelude::*;

const RUNTIME_BUDGET: i64 = 10_000_000;

fn verdict_class(v: Verdict) -> &'static str {
    match v {
        Verdict::Accepted | Verdict::CrdAccepted => "ok",
        Verdict::Rejected | Verdict::CrdRejected | Verdict::InputError => "bad",
    }
}

fn input_error(e: &InputError, what: &str, pane: Pane, link: &Scope<App>) -> Html {
    let at = e.range.map(|r| (r.start_line, r.start_column));
    let onclick = at.map(|(l, c)| link.callback(move |_| Msg::Reveal(pane, l, c)));
    html! {
        <p class="input-error" role="alert">
            <strong>{ what }</strong>{ " " }{ &e.message }
            if let (Some((l, c)), Some(onclick)) = (at, onclick) {
                { " " }<button class="link" {onclick}>{ format!("line {}, column {}", l, c) }</button>
            }
        </p>
    }
}

/// A list of apiserver messages; each jumps to its place in an editor.
pub fn diagnostics(list: &[Diagnostic], class: &'static str, pane: Pane, link: &Scope<App>) -> Html {
    html! {
        <ul class={classes!("messages", class)}>
            { for list.iter().map(|d| {
                let at = d.range.map(|r| (r.start_line, r.start_column));
                html! {
                    <li class={class} data-field={d.field.clone()} data-type={d.kind.clone()}>
                        <span class="message">{ &d.message }</span>
                        if let Some((l, c)) = at {
                            { " " }
                            <button class="link at" title="show in the editor" onclick={link.callback(move |_| Msg::Reveal(pane, l, c))}>
                                { format!("{}:{}", l, c) }
                            </button>
                        }
                    </li>
                }
            }) }
        </ul>
    }
}

fn state_label(s: State) -> &'static str {
    match s {
        State::Valid => "✓",
        State::Error => "✗",
        State::Ratcheted => "≈",
        State::Pruned => "−",
        State::Defaulted => "+",
        State::NotChecked => "·",
    }
}

pub fn view(a: &Analysis, link: &Scope<App>) -> Html {
    let crd = &a.crd;
    let summary = html! {
        <section class={classes!("summary", verdict_class(a.summary.verdict))} aria-live="polite" data-testid="summary">
            <h3 class="visually-hidden">{ "kubectl apply" }</h3>
            <pre class="kubectl" title="what kubectl apply --validate=warn prints">
                { for a.summary.lines.iter().map(|l| html! { <>{ l }{ "\n" }</> }) }
            </pre>
        </section>
    };
    html! {
        <div class="results" data-testid="results" id="results">
            { summary }
            if let Some(e) = &crd.load_error {
                { input_error(e, "CRD:", Pane::Crd, link) }
            }
            if !crd.errors.is_empty() {
                <section class="block">
                    <h3>{ format!("CRD errors ({})", crd.errors.len()) }</h3>
                    { diagnostics(&crd.errors, "crd-error", Pane::Crd, link) }
                </section>
            }
            if !crd.warnings.is_empty() {
                <section class="block">
                    <h3>{ "CRD warnings" }</h3>
                    <ul class="messages">{ for crd.warnings.iter().map(|w| html! { <li class="warning">{ w }</li> }) }</ul>
                </section>
            }
            {
                match &a.object {
                    None => if crd.load_error.is_none() {
                        html! { <p class="none">{ "No object: paste one in the object editor to validate it." }</p> }
                    } else { html! {} },
                    Some(o) => html! {
                        <>
                            if let Some(e) = &o.load_error { { input_error(e, "Object:", Pane::Object, link) } }
                            if let Some(e) = &o.old_load_error { { input_error(e, "Old object:", Pane::OldObject, link) } }
                            if o.load_error.is_none() && o.old_load_error.is_none() {
                                <section class="block">
                                    <h3>
                                        { format!("{} of {}/{} ", if o.update { "Update" } else { "Create" }, crd.kind, o.version) }
                                        <span class="counts">
                                            { format!("{} error{}", o.errors.len(), if o.errors.len() == 1 { "" } else { "s" }) }
                                            if !o.ratcheted.is_empty() { { format!(" · {} ratcheted", o.ratcheted.len()) } }
                                            if !o.pruned.is_empty() { { format!(" · {} pruned", o.pruned.len()) } }
                                            if !o.defaulted_fields.is_empty() { { format!(" · {} defaulted", o.defaulted_fields.len()) } }
                                        </span>
                                    </h3>
                                    if o.errors.is_empty() {
                                        <p class="none">{ "No errors." }</p>
                                    } else {
                                        { diagnostics(&o.errors, "error", Pane::Object, link) }
                                    }
                                    if !o.ratcheted.is_empty() {
                                        <h4>{ "Let through by ratcheting (unchanged in this update)" }</h4>
                                        { diagnostics(&o.ratcheted, "ratcheted", Pane::Object, link) }
                                    }
                                    { budget(o.remaining_budget) }
                                </section>
                                <section class="block">
                                    <h3>{ "Fields" }</h3>
                                    <p class="legend" aria-hidden="true">{ "✓ valid  ✗ error  ≈ ratcheted  − pruned  + defaulted  · not checked" }</p>
                                    <ul class="tree" role="tree" aria-label="object fields">
                                        { for o.tree.iter().map(|n| {
                                            let state = n.state.as_str();
                                            html! {
                                                <li role="treeitem" aria-level={(n.depth + 1).to_string()} class={classes!("node", state.replace(' ', "-"), n.errors_below.then_some("errors-below"))}
                                                    style={format!("--depth:{}", n.depth)} data-path={n.path.clone()} data-state={state}>
                                                    <span class="state" title={state}>{ state_label(n.state) }</span>
                                                    <span class="key">{ &n.key }</span>
                                                    <span class="value">{ &n.summary }</span>
                                                    <span class="visually-hidden">{ format!(" ({})", state) }</span>
                                                    { for n.messages.iter().map(|m| html! { <div class="node-message">{ m }</div> }) }
                                                </li>
                                            }
                                        }) }
                                    </ul>
                                </section>
                                if !o.pruned.is_empty() {
                                    <section class="block">
                                        <h3>{ "Pruned (unknown fields, dropped by the apiserver)" }</h3>
                                        <ul class="messages pruned">
                                            { for o.pruned.iter().map(|(f, r)| {
                                                let at = r.map(|r| (r.start_line, r.start_column));
                                                html! {
                                                    <li class="pruned">
                                                        { format!("unknown field \"{}\"", f) }
                                                        if let Some((l, c)) = at {
                                                            { " " }<button class="link at" onclick={link.callback(move |_| Msg::Reveal(Pane::Object, l, c))}>{ format!("{}:{}", l, c) }</button>
                                                        }
                                                    </li>
                                                }
                                            }) }
                                        </ul>
                                    </section>
                                }
                                <details class="block defaulted">
                                    <summary>{ format!("Object as stored (after pruning and defaulting){}", if o.defaulted_fields.is_empty() { String::new() } else { format!(": {} field{} added", o.defaulted_fields.len(), if o.defaulted_fields.len() == 1 { "" } else { "s" }) }) }</summary>
                                    if !o.defaulted_fields.is_empty() {
                                        <p>{ "Added by defaulting: " }{ for o.defaulted_fields.iter().map(|f| html! { <code class="added">{ f }</code> }) }</p>
                                    }
                                    <pre data-testid="defaulted">{ &o.defaulted_text }</pre>
                                </details>
                            }
                        </>
                    },
                }
            }
        </div>
    }
}

fn budget(remaining: Option<i64>) -> Html {
    match remaining {
        None => html! { <p class="budget">{ "CEL runtime budget: no rule ran." }</p> },
        Some(r) => {
            let used = RUNTIME_BUDGET.saturating_sub(r).max(0);
            let pct = used as f64 * 100.0 / RUNTIME_BUDGET as f64;
            html! {
                <p class="budget" data-testid="remaining-budget">
                    { format!("CEL runtime budget: {} of {} used, remaining {} ", group(used as u64), group(RUNTIME_BUDGET as u64), group(r.max(0) as u64)) }
                    <meter min="0" max="100" value={format!("{:.3}", pct)} aria-label="runtime budget used" />
                </p>
            }
        }
    }
}

/// `1234567` → `1,234,567`.
pub fn group(n: u64) -> String {
    crdlab::analysis::explain::group(n)
}
