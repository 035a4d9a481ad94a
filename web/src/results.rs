//! The results pane: kubectl's summary, with several releases selected each release's
//! verdict and the messages only some of them print, the apiserver's messages, the field tree, what
//! pruning and defaulting did, and the runtime budget left. It renders the analysis it is
//! given; a click on a place asks the app (`on_reveal`) to show it in an editor.

use crate::{Pane, Same};
use crdlab::analysis::releases::{self as compared, Comparison};
use crdlab::view::diagnostics::Diagnostic;
use crdlab::view::kubectl::Verdict;
use crdlab::view::policy::RUNTIME_COST_BUDGET;
use crdlab::view::tree::State;
use crdlab::view::{Analysis, InputError};
use std::rc::Rc;
use yew::prelude::*;

/// A place in an editor: the pane, line and column (1-based).
pub type Place = (Pane, u32, u32);

#[derive(Properties, PartialEq)]
pub struct Props {
    pub analysis: Same<Rc<Analysis>>,
    pub on_reveal: Callback<Place>,
}

fn reveal(on_reveal: &Callback<Place>, pane: Pane, line: u32, column: u32) -> Callback<MouseEvent> {
    on_reveal.reform(move |_| (pane, line, column))
}

fn verdict_class(v: Verdict) -> &'static str {
    match v {
        Verdict::Accepted | Verdict::CrdAccepted => "ok",
        Verdict::Rejected | Verdict::CrdRejected | Verdict::InputError => "bad",
    }
}

fn input_error(e: &InputError, what: &str, pane: Pane, on_reveal: &Callback<Place>) -> Html {
    let at = e.range.map(|r| (r.start_line, r.start_column));
    let onclick = at.map(|(l, c)| reveal(on_reveal, pane, l, c));
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
fn diagnostics(list: &[Diagnostic], class: &'static str, pane: Pane, on_reveal: &Callback<Place>) -> Html {
    html! {
        <ul class={classes!("messages", class)}>
            { for list.iter().map(|d| {
                let at = d.range.map(|r| (r.start_line, r.start_column));
                html! {
                    <li class={class} data-field={d.field.clone()} data-type={d.kind.clone()}>
                        <span class="message">{ &d.message }</span>
                        if let Some((l, c)) = at {
                            { " " }
                            <button class="link at" title="show in the editor" onclick={reveal(on_reveal, pane, l, c)}>
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

pub struct Results;

impl Component for Results {
    type Message = ();
    type Properties = Props;

    fn create(_ctx: &Context<Self>) -> Self {
        Results
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        view(ctx.props())
    }
}

fn view(p: &Props) -> Html {
    let a: &Analysis = &p.analysis;
    let on_reveal = &p.on_reveal;
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
            if let Some(c) = &a.releases {
                { releases(c) }
            }
            if let Some(e) = &crd.load_error {
                { input_error(e, "CRD:", Pane::Crd, on_reveal) }
            }
            if !crd.errors.is_empty() {
                <section class="block">
                    <h3>{ format!("CRD errors ({})", crd.errors.len()) }</h3>
                    { diagnostics(&crd.errors, "crd-error", Pane::Crd, on_reveal) }
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
                            if let Some(e) = &o.load_error { { input_error(e, "Object:", Pane::Object, on_reveal) } }
                            if let Some(e) = &o.old_load_error { { input_error(e, "Old object:", Pane::OldObject, on_reveal) } }
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
                                        { diagnostics(&o.errors, "error", Pane::Object, on_reveal) }
                                    }
                                    if !o.ratcheted.is_empty() {
                                        <h4>{ "Let through by ratcheting (unchanged in this update)" }</h4>
                                        { diagnostics(&o.ratcheted, "ratcheted", Pane::Object, on_reveal) }
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
                                                            { " " }<button class="link at" onclick={reveal(on_reveal, Pane::Object, l, c)}>{ format!("{}:{}", l, c) }</button>
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

/// Each compared release's verdict, then the messages only some releases print, each with
/// those releases (the engine's grouping: `analysis::releases`).
fn releases(c: &Comparison) -> Html {
    let differing: Vec<_> = c.differences().collect();
    let same = c.common().count();
    html! {
        <section class="block releases" data-testid="releases">
            <h3>{ format!("{} releases", c.releases.len()) }</h3>
            <ul class="verdicts">
                { for c.releases.iter().map(|r| html! {
                    <li class={if r.verdict.accepts() { "ok" } else { "bad" }} data-release={r.kubernetes_version.to_string()}>
                        { compared::verdict_line(r) }
                    </li>
                }) }
            </ul>
            if differing.is_empty() {
                <p class="none">{ "Every release prints the same messages." }</p>
            } else {
                <h4>{ "What differs" }</h4>
                <ul class="messages differs">
                    { for differing.iter().map(|m| html! {
                        <li data-releases={compared::label(&m.releases)}>
                            <strong>{ format!("{}:", c.releases_label(&m.releases)) }</strong>
                            { " " }{ m.kind.label() }{ " " }
                            <span class="message">{ &m.message }</span>
                        </li>
                    }) }
                </ul>
                if same > 0 {
                    <p class="none">{ format!("{} more message{} every release prints (below).", same, if same == 1 { "" } else { "s" }) }</p>
                }
            }
        </section>
    }
}

fn budget(remaining: Option<i64>) -> Html {
    match remaining {
        None => html! { <p class="budget">{ "CEL runtime budget: no rule ran." }</p> },
        Some(r) => {
            let used = RUNTIME_COST_BUDGET.saturating_sub(r).max(0);
            let pct = used as f64 * 100.0 / RUNTIME_COST_BUDGET as f64;
            html! {
                <p class="budget" data-testid="remaining-budget">
                    { format!("CEL runtime budget: {} of {} used, remaining {} ", group(used as u64), group(RUNTIME_COST_BUDGET as u64), group(r.max(0) as u64)) }
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
