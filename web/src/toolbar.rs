//! The toolbar: the example picker, the target release and the other releases to compare
//! with (a multi-select), the CRD version, the ratcheting and status-subresource switches,
//! Share and the theme. It shows the settings it is given and
//! reports changes through its callbacks; the app owns the settings.

use crate::{Same, EXAMPLES};
use crdlab::view::policy;
use crdlab::view::{CrdView, Settings};
use crdlab::KubeVersion;
use std::sync::Arc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub settings: Settings,
    /// The id of the example loaded (empty: none, or a shared/edited state).
    pub example: AttrValue,
    /// The analysed CRD (its versions for the CRD-version picker).
    pub crd: Same<Arc<CrdView>>,
    pub dark: bool,
    pub on_settings: Callback<Settings>,
    pub on_example: Callback<String>,
    pub on_share: Callback<()>,
    pub on_theme: Callback<()>,
}

/// The ratcheting switch's title on `release`: the releases come from the engine's feature
/// table (the gate's first release, the first that ratchets by default).
fn ratchet_title(release: KubeVersion) -> String {
    if release.ratcheting_available() {
        let gated: Vec<String> = (policy::RATCHETING_GATE_SINCE.minor..policy::RATCHETING_DEFAULT_SINCE.minor)
            .map(|minor| KubeVersion { minor }.to_string())
            .collect();
        format!(
            "Validation ratcheting: errors on fields an update leaves unchanged are let through (on by default from {}; {} behind the CRDValidationRatcheting feature gate)",
            policy::RATCHETING_DEFAULT_SINCE,
            gated.join(" and ")
        )
    } else {
        format!("Validation ratcheting arrived in Kubernetes {}: this release cannot ratchet", policy::RATCHETING_GATE_SINCE)
    }
}

/// The multi-select of releases to answer for besides the target one: a disclosure of
/// checkboxes, its summary naming the selection.
fn compare_picker(settings: &Settings, target: KubeVersion, on_compare: impl Fn(KubeVersion) -> Callback<Event>) -> Html {
    let selected = settings.compared_releases(target).unwrap_or_default();
    let others: Vec<String> = selected.iter().filter(|v| **v != target).map(|v| v.to_string()).collect();
    let summary = if others.is_empty() { "compare…".to_string() } else { format!("+ {}", others.join(", ")) };
    html! {
        <details class="field compare" data-testid="k8s-compare">
            <summary title="Answer for other Kubernetes releases too: the results show each one's verdict and which messages differ">{ summary }</summary>
            <fieldset aria-label="other Kubernetes releases to answer for">
                { for policy::releases_newest_first().into_iter().map(|v| {
                    let name = v.to_string();
                    let is_target = v == target;
                    html! {
                        <label class="toggle">
                            <input type="checkbox" data-testid={format!("k8s-compare-{}", name)} value={name.clone()}
                                checked={is_target || selected.contains(&v)} disabled={is_target} onchange={on_compare(v)} />
                            { name }
                        </label>
                    }
                }) }
            </fieldset>
        </details>
    }
}

pub struct Toolbar;

impl Component for Toolbar {
    type Message = ();
    type Properties = Props;

    fn create(_ctx: &Context<Self>) -> Self {
        Toolbar
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        view(ctx.props())
    }
}

fn view(p: &Props) -> Html {
    let settings = &p.settings;
    let with = |f: fn(&mut Settings, &web_sys::Event)| {
        let s = settings.clone();
        p.on_settings.reform(move |e: Event| {
            let mut s = s.clone();
            f(&mut s, &e);
            s
        })
    };
    let on_kube = with(|s, e| {
        let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
        s.kubernetes_version = Some(el.value());
    });
    let on_version = with(|s, e| {
        let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
        let v = el.value();
        s.version = if v.is_empty() { None } else { Some(v) };
    });
    let on_ratchet = with(|s, e| {
        let el: web_sys::HtmlInputElement = e.target_unchecked_into();
        s.ratcheting = Some(el.checked());
    });
    let on_status = with(|s, e| {
        let el: web_sys::HtmlInputElement = e.target_unchecked_into();
        s.status = el.checked();
    });
    // One checkbox per release: the release is answered for as well (the results pane
    // shows each selected release's verdict and what differs).
    let on_compare = |release: KubeVersion| {
        let s = settings.clone();
        p.on_settings.reform(move |e: Event| {
            let el: web_sys::HtmlInputElement = e.target_unchecked_into();
            s.with_compared(release, el.checked())
        })
    };
    let on_example = p.on_example.reform(|e: Event| {
        let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
        el.value()
    });
    // The picker lists the engine's releases newest first and starts on the release the
    // analysis targets when none is chosen.
    let kube = settings.kubernetes_version.clone().unwrap_or_else(|| policy::default_release().to_string());
    let release = KubeVersion::parse(&kube).unwrap_or_default();
    let versions = &p.crd.versions;
    let storage = p.crd.storage_version.clone().unwrap_or_default();
    let selected_version = settings.version.clone().unwrap_or_default();
    html! {
        <header class="toolbar" role="toolbar" aria-label="playground settings">
            <h1><span class="logo" aria-hidden="true">{ "⎈" }</span>{ " crdlab" }</h1>
            <label class="field">
                <span>{ "Example" }</span>
                <select data-testid="example-picker" onchange={on_example} aria-label="load an example">
                    <option value="" selected={p.example.is_empty()} disabled=true>{ "load an example…" }</option>
                    { for EXAMPLES.iter().map(|e| html! {
                        <option value={e.id} selected={p.example == e.id} title={e.description}>{ e.title }</option>
                    }) }
                </select>
            </label>
            <label class="field">
                <span>{ "Kubernetes" }</span>
                <select data-testid="k8s-version" onchange={on_kube} aria-label="target Kubernetes version">
                    { for policy::releases_newest_first().into_iter().map(|v| { let v = v.to_string(); let selected = kube == v; html! { <option value={v.clone()} selected={selected}>{ v }</option> } }) }
                </select>
            </label>
            { compare_picker(settings, release, on_compare) }
            if versions.len() > 1 {
                <label class="field">
                    <span>{ "CRD version" }</span>
                    <select data-testid="crd-version" onchange={on_version} aria-label="CRD version to validate against">
                        <option value="" selected={selected_version.is_empty()}>{ format!("storage ({})", storage) }</option>
                        { for versions.iter().map(|v| html! { <option value={v.clone()} selected={selected_version == *v}>{ v }</option> }) }
                    </select>
                </label>
            }
            <label class="toggle" title={ratchet_title(release)}>
                <input type="checkbox" data-testid="ratcheting" checked={settings.ratcheting_on(release)} disabled={!release.ratcheting_available()} onchange={on_ratchet} />
                { "ratcheting" }
            </label>
            <label class="toggle" title="Validate the write as the status subresource: only .status is validated">
                <input type="checkbox" data-testid="status-subresource" checked={settings.status} onchange={on_status} />
                { "status subresource" }
            </label>
            <span class="spacer" />
            <button data-testid="share" onclick={p.on_share.reform(|_| ())} title="Put the whole state in the link (compressed, in the #fragment: never sent to a server)">{ "Share" }</button>
            <button data-testid="theme" onclick={p.on_theme.reform(|_| ())} aria-label="switch light/dark theme">{ if p.dark { "☀ light" } else { "☾ dark" } }</button>
        </header>
    }
}
