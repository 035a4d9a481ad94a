//! The rules pane: every `x-kubernetes-validations` rule of the CRD version, editable in
//! place (edits are written back into the CRD text, formatting kept), with its compile
//! status, estimated cost against the per-rule limit and the CRD budget, its lowest
//! Kubernetes version, and the cost explanation with one-click bound fixes. What may be
//! edited, and how an edit becomes CRD text, is the engine's (`crdlab::view::policy`): the
//! pane only reports [`RuleEdit`]s through `on_edit`.

use crate::results::{group, Place};
use crate::{Pane, Same};
use crdlab::analysis::versions::RuleVersionRow;
use crdlab::view::policy::{self, RuleEdit, RuleField};
use crdlab::view::{CrdView, RuleView, VersionView};
use serde_json::Value;
use std::rc::Rc;
use std::sync::Arc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub crd: Same<Arc<CrdView>>,
    /// `crd` is an answer from before the pane was shown, without the rules (they are on
    /// their way).
    #[prop_or_default]
    pub waiting: bool,
    /// The CRD version chosen in the settings (`None`: the storage version).
    pub version: Option<AttrValue>,
    /// Each rule's lowest release, once computed (`None`: still computing).
    pub matrix: Option<Same<Rc<Vec<RuleVersionRow>>>>,
    pub on_edit: Callback<RuleEdit>,
    pub on_reveal: Callback<Place>,
}

fn set(on_edit: &Callback<RuleEdit>, pointer: &str, field: RuleField) -> Callback<InputEvent> {
    let pointer = pointer.to_string();
    on_edit.reform(move |e: InputEvent| {
        let value = match e.target() {
            Some(t) => match t.dyn_ref::<web_sys::HtmlTextAreaElement>() {
                Some(ta) => ta.value(),
                None => t.unchecked_into::<web_sys::HtmlInputElement>().value(),
            },
            None => String::new(),
        };
        RuleEdit::Set { pointer: pointer.clone(), field, value: Value::String(value) }
    })
}

fn bar(value: u64, limit: u64, label: &str) -> Html {
    let pct = if limit == 0 { 0.0 } else { value as f64 * 100.0 / limit as f64 };
    let width = pct.clamp(0.0, 100.0);
    let class = if pct > 100.0 {
        "over"
    } else if pct > 50.0 {
        "high"
    } else {
        "fine"
    };
    html! {
        <div class={classes!("bar", class)} role="meter" aria-valuemin="0" aria-valuemax={limit.to_string()} aria-valuenow={value.to_string()} aria-label={label.to_string()}>
            <div class="fill" style={format!("width:{:.4}%", width.max(if value > 0 { 0.5 } else { 0.0 }))} />
        </div>
    }
}

fn percent(p: f64) -> String {
    if p == 0.0 {
        "0%".into()
    } else if p < 0.01 {
        "<0.01%".into()
    } else {
        format!("{:.2}%", p)
    }
}

fn rule_card(r: &RuleView, index: usize, version: &str, matrix: Option<&RuleVersionRow>, on_edit: &Callback<RuleEdit>, on_reveal: &Callback<Place>) -> Html {
    let status = if r.over_limit {
        ("over-limit", "over the cost limit")
    } else if !r.errors.is_empty() {
        ("compile-error", "does not compile")
    } else {
        ("ok", "compiles")
    };
    let pointer = r.pointer.clone();
    let on_reason = {
        let pointer = pointer.clone();
        on_edit.reform(move |e: Event| {
            let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
            RuleEdit::Set { pointer: pointer.clone(), field: RuleField::Reason, value: Value::String(el.value()) }
        })
    };
    let on_optional = {
        let pointer = pointer.clone();
        on_edit.reform(move |e: Event| {
            let el: web_sys::HtmlInputElement = e.target_unchecked_into();
            RuleEdit::Set { pointer: pointer.clone(), field: RuleField::OptionalOldSelf, value: Value::Bool(el.checked()) }
        })
    };
    let on_delete = {
        let pointer = pointer.clone();
        on_edit.reform(move |_| RuleEdit::Delete { pointer: pointer.clone() })
    };
    let reveal = r.range.map(|rg| on_reveal.reform(move |_: MouseEvent| (Pane::Crd, rg.start_line, rg.start_column)));
    let id = format!("rule-{}-{}", version, index);
    let lowest = match matrix {
        None => html! { <span class="pending">{ "lowest Kubernetes version: computing…" }</span> },
        Some(m) => match &m.lowest_version {
            Some(v) => html! {
                <span data-testid="lowest-version" title={m.reason.clone()}>
                    { format!("works on Kubernetes {}+", v) }
                    if !m.reason.is_empty() { <span class="why">{ format!(" (below: {})", m.reason) }</span> }
                </span>
            },
            None => html! { <span data-testid="lowest-version" class="bad">{ format!("no supported Kubernetes version accepts it: {}", m.reason) }</span> },
        },
    };
    let fixes = r.fixes();
    let e = &r.explanation;
    html! {
        <article key={r.pointer.clone()} class={classes!("rule", status.0)} data-testid="rule" data-schema-path={r.schema_path.clone()} aria-labelledby={format!("{}-h", id)}>
            <header>
                <h3 id={format!("{}-h", id)}>
                    <code class="field">{ &r.field }</code>
                    <span class={classes!("badge", status.0)}>{ status.1 }</span>
                </h3>
                <span class="actions">
                    if let Some(onclick) = reveal {
                        <button class="link" {onclick} title="show the rule in the CRD editor">{ "in CRD" }</button>
                    }
                    <button class="link danger" data-testid="delete-rule" onclick={on_delete} aria-label={format!("delete rule {} at {}", index, r.field)}>{ "delete" }</button>
                </span>
            </header>
            <label class="rule-field">
                <span>{ "rule" }</span>
                <textarea class="cel" data-testid="rule-text" spellcheck="false" rows={(r.rule.lines().count().clamp(1, 8)).to_string()}
                    value={r.rule.clone()} oninput={set(on_edit, &pointer, RuleField::Rule)} aria-label={format!("rule at {}", r.field)} />
            </label>
            { for r.errors.iter().map(|d| html! { <pre class="compile-error" role="alert" data-testid="rule-error">{ &d.message }</pre> }) }
            <div class="rule-grid">
                <label><span>{ "message" }</span>
                    <input type="text" data-testid="rule-message" value={r.message.clone()} oninput={set(on_edit, &pointer, RuleField::Message)} /></label>
                <label><span>{ "messageExpression" }</span>
                    <textarea class="cel" rows="1" spellcheck="false" data-testid="rule-message-expression" value={r.message_expression.clone()} oninput={set(on_edit, &pointer, RuleField::MessageExpression)} /></label>
                <label><span>{ "reason" }</span>
                    <select onchange={on_reason} data-testid="rule-reason">
                        <option value="" selected={r.reason.is_empty()}>{ format!("(default: {})", policy::DEFAULT_RULE_REASON.reason()) }</option>
                        { for policy::RULE_REASONS.iter().map(|x| { let x = x.reason(); html! { <option value={x} selected={r.reason == x}>{ x }</option> } }) }
                    </select></label>
                <label><span>{ "fieldPath" }</span>
                    <input type="text" data-testid="rule-field-path" placeholder=".spec.field" value={r.field_path.clone()} oninput={set(on_edit, &pointer, RuleField::FieldPath)} /></label>
                <label class="toggle"><input type="checkbox" data-testid="rule-optional-old-self" checked={r.optional_old_self.unwrap_or(false)} onchange={on_optional} />{ "optionalOldSelf" }</label>
            </div>
            <div class="costs">
                <div class="cost-line" data-testid="rule-cost">
                    <span>{ format!("estimated cost {} of {} ({} of the per-rule limit)", group(r.estimated_cost), group(r.per_rule_limit), percent(r.estimated_cost as f64 * 100.0 / r.per_rule_limit.max(1) as f64)) }</span>
                    { bar(r.estimated_cost, r.per_rule_limit, "estimated cost against the per-rule limit") }
                </div>
                <div class="cost-line">
                    <span>{ format!("{} of the CRD budget", percent(r.share_percent)) }
                        if let Some(m) = r.message_expression_cost { { format!(" · messageExpression {}", group(m)) } }
                        { format!(" · runs up to {} times per object", group(r.max_cardinality)) }
                    </span>
                </div>
                <div class="cost-line">{ lowest }</div>
            </div>
            if !fixes.is_empty() {
                <div class="fixes" data-testid="fixes">
                    <p>{ if e.fixes.is_empty() { "Bound all of these together to bring the rule under the limit:" } else { "Any one of these bounds brings the rule under the limit:" } }</p>
                    <ul>
                        { for fixes.iter().map(|f| {
                            let edit = RuleEdit::Bounds(vec![(f.pointer.clone(), f.keyword.clone(), f.value)]);
                            html! {
                                <li>
                                    <button class="fix" data-testid="apply-fix" onclick={on_edit.reform(move |_| edit.clone())}>
                                        { format!("apply {}: {} at {}", f.keyword, f.value, f.field) }
                                    </button>
                                    { format!(" → estimated cost {}", group(f.estimated_cost)) }
                                </li>
                            }
                        }) }
                    </ul>
                    if e.fixes.is_empty() && fixes.len() > 1 {
                        <button class="fix" data-testid="apply-all-fixes" onclick={{
                            let edit = RuleEdit::Bounds(fixes.iter().map(|f| (f.pointer.clone(), f.keyword.clone(), f.value)).collect());
                            on_edit.reform(move |_| edit.clone())
                        }}>{ "apply all of them" }</button>
                    }
                </div>
            }
            <details class="explanation">
                <summary>{ "why this cost" }</summary>
                <p>{ if e.cardinality.unbounded {
                        format!("Runs up to {} times per object: an ancestor list or map has no maxItems/maxProperties, so the apiserver assumes the most that fit in a {} MiB request.", group(e.cardinality.factor), policy::MAX_REQUEST_BYTES >> 20)
                    } else {
                        format!("Runs up to {} times per object.", group(e.cardinality.factor))
                    } }</p>
                if !e.cardinality.ancestors.is_empty() {
                    <ul>{ for e.cardinality.ancestors.iter().map(|a| html! {
                        <li><code>{ &a.field }</code>{ format!(" {}: {}", a.keyword, a.bound.map(|b| b.to_string()).unwrap_or_else(|| "unbounded".into())) }</li>
                    }) }</ul>
                }
                if !e.breakdown.is_empty() {
                    <table class="breakdown">
                        <thead><tr><th>{ "expression" }</th><th>{ "what" }</th><th>{ "max cost" }</th></tr></thead>
                        <tbody>{ for e.breakdown.iter().map(|t| html! {
                            <tr><td><code>{ &t.expression }</code></td><td>{ &t.description }</td><td class="num">{ group(t.max_cost) }</td></tr>
                        }) }</tbody>
                    </table>
                }
                if !e.schema_nodes.is_empty() {
                    <ul class="sizes">{ for e.schema_nodes.iter().map(|n| html! {
                        <li><code>{ &n.cel_path }</code>{ format!(" ({}) {}: {} → assumed size {}", n.kind, n.keyword, n.bound.map(|b| b.to_string()).unwrap_or_else(|| "unbounded".into()), group(n.estimated_max_size)) }</li>
                    }) }</ul>
                }
            </details>
        </article>
    }
}

/// The node picker and its button: the node is read from the picker when clicked.
fn add_rule(v: &VersionView, node: &NodeRef, on_edit: &Callback<RuleEdit>) -> Html {
    let onclick = {
        let node = node.clone();
        on_edit.reform(move |_| {
            let pointer = node.cast::<web_sys::HtmlSelectElement>().map(|e| e.value()).unwrap_or_default();
            RuleEdit::Add { node_pointer: pointer }
        })
    };
    html! {
        <div class="add-rule">
            <label for="add-rule-node">{ "Add a rule at " }</label>
            <select id="add-rule-node" data-testid="add-rule-node" ref={node.clone()}>
                { for v.nodes.iter().map(|n| html! {
                    <option value={n.pointer.clone()}>
                        { format!("{}{}{}{}", "\u{a0}\u{a0}".repeat(n.depth), n.field, if n.type_name.is_empty() { String::new() } else { format!(" ({})", n.type_name) }, if n.rule_count > 0 { format!(" — {} rule{}", n.rule_count, if n.rule_count == 1 { "" } else { "s" }) } else { String::new() }) }
                    </option>
                }) }
            </select>
            <button data-testid="add-rule" {onclick}>{ "Add rule" }</button>
        </div>
    }
}

pub struct Rules {
    /// The add-rule node picker, read when its button is clicked.
    node: NodeRef,
}

impl Component for Rules {
    type Message = ();
    type Properties = Props;

    fn create(_ctx: &Context<Self>) -> Self {
        Rules { node: NodeRef::default() }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        view(ctx.props(), &self.node)
    }
}

fn view(p: &Props, node: &NodeRef) -> Html {
    let crd: &CrdView = &p.crd;
    let version = p.version.as_deref();
    let matrix = p.matrix.as_ref();
    if let Some(e) = &crd.load_error {
        return html! { <div class="rules" data-testid="rules"><p class="input-error">{ format!("The CRD cannot be read: {}", e.message) }</p></div> };
    }
    if p.waiting {
        return html! { <div class="rules" data-testid="rules"><p class="none" data-testid="rules-waiting">{ "Reading the rules…" }</p></div> };
    }
    let name = version.map(str::to_string).or_else(|| crd.storage_version.clone()).unwrap_or_default();
    let Some(v) = crd.per_version.iter().find(|v| v.name == name) else {
        return html! { <div class="rules" data-testid="rules"><p class="none">{ format!("The CRD has no version {:?}.", name) }</p></div> };
    };
    let row = |r: &RuleView| {
        matrix.as_ref().and_then(|m| m.iter().find(|x| x.crd_version == v.name && x.schema_path == r.schema_path))
    };
    html! {
        <div class="rules" data-testid="rules">
            <section class="block totals">
                <h3>{ format!("{} rule{} in {}", v.rules.len(), if v.rules.len() == 1 { "" } else { "s" }, v.name) }</h3>
                <div class="cost-line" data-testid="crd-cost">
                    <span>{ format!("CRD total estimated cost {} of {} ({})", group(v.cost_total), group(v.per_crd_limit), percent(v.total_share_percent)) }</span>
                    { bar(v.cost_total, v.per_crd_limit, "estimated cost against the CRD budget") }
                </div>
                { add_rule(v, node, &p.on_edit) }
            </section>
            if v.rules.is_empty() {
                <p class="none">{ "No x-kubernetes-validations rules yet: add one above." }</p>
            }
            { for v.rules.iter().enumerate().map(|(i, r)| rule_card(r, i, &v.name, row(r), &p.on_edit, &p.on_reveal)) }
        </div>
    }
}
