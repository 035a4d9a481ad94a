//! crdlab playground: paste a CRD and objects, edit rules, see per-field results and costs
//! live — all computed in the page by the engine (`crdlab::view`), nothing sent anywhere.
//!
//! One [`App`] component holds the texts and settings; every edit re-runs
//! [`Workspace::analyze`], which reuses the compiled CRD while only the objects change.
//! The panes only render the [`Analysis`]: `results`, `rules`, `diff`.

mod diff;
mod editor;
mod results;
mod rules;

use crdlab::view::share::{self, State};
use crdlab::view::{Analysis, Settings, Workspace};
use editor::{Editor, Handle, Mark};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

include!(concat!(env!("OUT_DIR"), "/examples.rs"));

/// An example of `static/examples/index.json`, embedded at build time.
pub struct Example {
    pub id: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub crd: &'static str,
    pub object: &'static str,
    pub old_object: &'static str,
    pub kubernetes_version: &'static str,
    pub status: bool,
}


/// A CRD edit is analysed at once while compiling is quick; when the last compile took
/// longer than a frame, edits wait this long for the typing to pause.
const SLOW_COMPILE_MS: f64 = 16.0;
const CRD_DEBOUNCE_MS: i32 = 150;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Results,
    Rules,
    Diff,
}

impl Tab {
    fn id(self) -> &'static str {
        match self {
            Tab::Results => "results",
            Tab::Rules => "rules",
            Tab::Diff => "diff",
        }
    }
    fn from_id(s: &str) -> Tab {
        match s {
            "rules" => Tab::Rules,
            "diff" => Tab::Diff,
            _ => Tab::Results,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    Crd,
    Object,
    OldObject,
}

/// A change to one field of a rule in the rules panel.
#[derive(Clone, Debug, PartialEq)]
pub enum RuleEdit {
    Set { pointer: String, key: &'static str, value: serde_json::Value },
    Add { node_pointer: String },
    Delete { pointer: String },
    /// Schema bounds (`maxItems: 100`) set together: a cost fix.
    Bounds(Vec<(String, String, u64)>),
}

pub enum Msg {
    Crd(String),
    Object(String),
    OldObject(String),
    OldCrd(String),
    AnalyzeNow,
    Settings(Settings),
    Tab(Tab),
    Example(String),
    Share,
    ToggleTheme,
    Rule(RuleEdit),
    VersionMatrix,
    Ready(Pane, Rc<Handle>),
    Reveal(Pane, u32, u32),
    Focus(Pane),
    ShowOld(bool),
    HashChanged,
    CopyCrdToOld,
}

pub struct App {
    ws: Workspace,
    crd: String,
    object: String,
    old_object: String,
    old_crd: String,
    settings: Settings,
    tab: Tab,
    dark: bool,
    show_old: bool,
    analysis: Analysis,
    /// The CRD text the analysis was computed from (the editor may be ahead while debouncing).
    analysed_crd: String,
    last_compile_ms: f64,
    pending: Option<Timeout>,
    matrix_timer: Option<Timeout>,
    /// `performance.now()` at the first edit not yet on screen, and what was edited.
    edit_started: Option<(f64, &'static str)>,
    matrix: Option<(usize, Rc<Vec<crdlab::analysis::versions::RuleVersionRow>>)>,
    diff: diff::Cache,
    notice: Option<String>,
    share_url: Option<String>,
    editors: Vec<(Pane, Rc<Handle>)>,
    example: String,
    _keys: Option<EventListener>,
    _hash: Option<EventListener>,
}

/// A `setTimeout` that is cleared when dropped.
pub struct Timeout {
    id: i32,
    _closure: Closure<dyn FnMut()>,
}

impl Timeout {
    fn new(ms: i32, f: impl FnOnce() + 'static) -> Option<Timeout> {
        let mut f = Some(f);
        let closure = Closure::<dyn FnMut()>::new(move || {
            if let Some(f) = f.take() {
                f()
            }
        });
        let id = web_sys::window()?
            .set_timeout_with_callback_and_timeout_and_arguments_0(closure.as_ref().unchecked_ref(), ms)
            .ok()?;
        Some(Timeout { id, _closure: closure })
    }
}

impl Drop for Timeout {
    fn drop(&mut self) {
        if let Some(w) = web_sys::window() {
            w.clear_timeout_with_handle(self.id);
        }
    }
}

/// An event listener removed when dropped.
pub struct EventListener {
    target: web_sys::EventTarget,
    kind: &'static str,
    closure: Closure<dyn FnMut(web_sys::Event)>,
}

impl EventListener {
    fn new(target: &web_sys::EventTarget, kind: &'static str, f: impl FnMut(web_sys::Event) + 'static) -> EventListener {
        let closure = Closure::<dyn FnMut(web_sys::Event)>::new(f);
        let _ = target.add_event_listener_with_callback(kind, closure.as_ref().unchecked_ref());
        EventListener { target: target.clone(), kind, closure }
    }
}

impl Drop for EventListener {
    fn drop(&mut self) {
        let _ = self.target.remove_event_listener_with_callback(self.kind, self.closure.as_ref().unchecked_ref());
    }
}

fn now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map(|p| p.now()).unwrap_or(0.0)
}

fn location_hash() -> String {
    web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

fn prefers_dark() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .map(|m| m.matches())
        .unwrap_or(false)
}

/// Latency figures for the benchmark (`tests/browser/latency.bench.mjs`):
/// `window.__crdlabTimings` gets `{kind, ms}` per edit that reached the screen.
fn record_timing(kind: &str, ms: f64) {
    let Some(w) = web_sys::window() else { return };
    let key = JsValue::from_str("__crdlabTimings");
    let list = js_sys::Reflect::get(&w, &key).ok().filter(|v| v.is_object()).unwrap_or_else(|| {
        let a = js_sys::Array::new();
        let _ = js_sys::Reflect::set(&w, &key, &a);
        a.into()
    });
    let entry = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&entry, &"kind".into(), &kind.into());
    let _ = js_sys::Reflect::set(&entry, &"ms".into(), &ms.into());
    if let Some(a) = list.dyn_ref::<js_sys::Array>() {
        a.push(&entry);
    }
}

impl App {
    fn state(&self) -> State {
        State {
            crd: self.crd.clone(),
            object: self.object.clone(),
            old_object: self.old_object.clone(),
            old_crd: self.old_crd.clone(),
            settings: self.settings.clone(),
            tab: self.tab.id().to_string(),
        }
    }

    fn restore(&mut self, s: State) {
        self.crd = s.crd;
        self.object = s.object;
        self.show_old = !s.old_object.trim().is_empty();
        self.old_object = s.old_object;
        self.old_crd = s.old_crd;
        self.settings = s.settings;
        self.tab = Tab::from_id(&s.tab);
        self.example.clear();
    }

    fn load_example(&mut self, id: &str) -> bool {
        let Some(e) = EXAMPLES.iter().find(|e| e.id == id) else { return false };
        self.crd = e.crd.to_string();
        self.object = e.object.to_string();
        self.old_object = e.old_object.to_string();
        self.show_old = !e.old_object.is_empty();
        self.settings = Settings {
            version: None,
            kubernetes_version: if e.kubernetes_version.is_empty() { None } else { Some(e.kubernetes_version.to_string()) },
            ratcheting: None,
            status: e.status,
        };
        self.example = e.id.to_string();
        true
    }

    fn analyze(&mut self) {
        self.pending = None;
        let crd_changed = self.analysed_crd != self.crd;
        let t0 = now();
        let old = if self.show_old { self.old_object.as_str() } else { "" };
        self.analysis = self.ws.analyze(&self.crd, &self.object, old, &self.settings);
        if crd_changed {
            self.last_compile_ms = now() - t0;
            record_timing("compile", self.last_compile_ms);
            self.analysed_crd = self.crd.clone();
        }
    }

    fn crd_edited(&mut self, ctx: &Context<Self>) {
        if self.last_compile_ms > SLOW_COMPILE_MS {
            let link = ctx.link().clone();
            self.pending = Timeout::new(CRD_DEBOUNCE_MS, move || link.send_message(Msg::AnalyzeNow));
        } else {
            self.analyze();
        }
    }

    fn start_edit(&mut self, kind: &'static str) {
        if self.edit_started.is_none() {
            self.edit_started = Some((now(), kind));
        }
    }

    fn editor(&self, pane: Pane) -> Option<&Rc<Handle>> {
        self.editors.iter().find(|(p, _)| *p == pane).map(|(_, h)| h)
    }

    fn apply_rule_edit(&mut self, edit: RuleEdit) {
        use crdlab::text::edit::{self, Doc};
        let result = match &edit {
            RuleEdit::Set { pointer, key, value } => {
                let target = format!("{}/{}", pointer, key);
                let empty = value.as_str() == Some("") || value == &serde_json::Value::Bool(false) || value.is_null();
                if empty && *key != "rule" {
                    // An emptied optional field is removed, not written as "".
                    let exists = self.ws.crd_value().and_then(|v| v.pointer(&target)).is_some();
                    if exists {
                        edit::remove(&self.crd, Doc::Crd, &target)
                    } else {
                        Ok(self.crd.clone())
                    }
                } else {
                    edit::set(&self.crd, Doc::Crd, &target, value)
                }
            }
            RuleEdit::Add { node_pointer } => edit::append(
                &self.crd,
                Doc::Crd,
                &format!("{}/x-kubernetes-validations", node_pointer),
                &serde_json::json!({"rule": "self == self", "message": "describe what must hold"}),
            ),
            RuleEdit::Delete { pointer } => edit::remove(&self.crd, Doc::Crd, pointer),
            RuleEdit::Bounds(list) => list.iter().try_fold(self.crd.clone(), |text, (pointer, keyword, value)| {
                edit::set(&text, Doc::Crd, &format!("{}/{}", pointer, keyword), &serde_json::json!(value))
            }),
        };
        match result {
            Ok(text) => {
                self.crd = text;
                self.notice = None;
            }
            Err(e) => self.notice = Some(format!("could not edit the CRD text: {}", e)),
        }
    }

    fn marks_crd(&self) -> Vec<Mark> {
        let c = &self.analysis.crd;
        let mut marks = Vec::new();
        if let Some(e) = &c.load_error {
            if let Some(r) = &e.range {
                marks.push(Mark::new(r, "error", e.message.clone()));
            }
        }
        for d in &c.errors {
            if let Some(r) = &d.range {
                marks.push(Mark::new(r, "error", d.message.clone()));
            }
        }
        marks
    }

    fn marks_object(&self) -> Vec<Mark> {
        let mut marks = Vec::new();
        let Some(o) = &self.analysis.object else { return marks };
        if let Some(e) = &o.load_error {
            if let Some(r) = &e.range {
                marks.push(Mark::new(r, "error", e.message.clone()));
            }
        }
        for d in &o.errors {
            if let Some(r) = &d.range {
                marks.push(Mark::new(r, "error", d.message.clone()));
            }
        }
        for d in &o.ratcheted {
            if let Some(r) = &d.range {
                marks.push(Mark::new(r, "warning", format!("ratcheted (unchanged in this update): {}", d.message)));
            }
        }
        for (f, r) in &o.pruned {
            if let Some(r) = r {
                marks.push(Mark::new(r, "warning", format!("unknown field \"{}\": pruned", f)));
            }
        }
        marks
    }

    fn marks_old(&self) -> Vec<Mark> {
        let mut marks = Vec::new();
        if let Some(e) = self.analysis.object.as_ref().and_then(|o| o.old_load_error.as_ref()) {
            if let Some(r) = &e.range {
                marks.push(Mark::new(r, "error", e.message.clone()));
            }
        }
        marks
    }

    fn header(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let settings = self.settings.clone();
        let on_kube = {
            let s = settings.clone();
            link.callback(move |e: Event| {
                let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
                Msg::Settings(Settings { kubernetes_version: Some(el.value()), ..s.clone() })
            })
        };
        let on_version = {
            let s = settings.clone();
            link.callback(move |e: Event| {
                let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
                let v = el.value();
                Msg::Settings(Settings { version: if v.is_empty() { None } else { Some(v) }, ..s.clone() })
            })
        };
        let on_ratchet = {
            let s = settings.clone();
            link.callback(move |e: Event| {
                let el: web_sys::HtmlInputElement = e.target_unchecked_into();
                Msg::Settings(Settings { ratcheting: Some(el.checked()), ..s.clone() })
            })
        };
        let on_status = {
            let s = settings.clone();
            link.callback(move |e: Event| {
                let el: web_sys::HtmlInputElement = e.target_unchecked_into();
                Msg::Settings(Settings { status: el.checked(), ..s.clone() })
            })
        };
        let on_example = link.callback(|e: Event| {
            let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
            Msg::Example(el.value())
        });
        // The engine's release table (crdlab::version::RELEASES): the picker lists it newest
        // first and starts on the latest release.
        let kube = settings
            .kubernetes_version
            .clone()
            .unwrap_or_else(|| crdlab::KubeVersion::LATEST.to_string());
        let release = crdlab::KubeVersion::parse(&kube).unwrap_or_default();
        let ratchet_title = if release.ratcheting_available() {
            "Validation ratcheting: errors on fields an update leaves unchanged are let through (on by default from 1.30; 1.28 and 1.29 behind the CRDValidationRatcheting feature gate)"
        } else {
            "Validation ratcheting arrived in Kubernetes 1.28: this release cannot ratchet"
        };
        let versions = &self.analysis.crd.versions;
        let storage = self.analysis.crd.storage_version.clone().unwrap_or_default();
        let selected_version = settings.version.clone().unwrap_or_default();
        html! {
            <header class="toolbar" role="toolbar" aria-label="playground settings">
                <h1><span class="logo" aria-hidden="true">{ "⎈" }</span>{ " crdlab" }</h1>
                <label class="field">
                    <span>{ "Example" }</span>
                    <select data-testid="example-picker" onchange={on_example} aria-label="load an example">
                        <option value="" selected={self.example.is_empty()} disabled=true>{ "load an example…" }</option>
                        { for EXAMPLES.iter().map(|e| html! {
                            <option value={e.id} selected={self.example == e.id} title={e.description}>{ e.title }</option>
                        }) }
                    </select>
                </label>
                <label class="field">
                    <span>{ "Kubernetes" }</span>
                    <select data-testid="k8s-version" onchange={on_kube} aria-label="target Kubernetes version">
                        { for crdlab::KubeVersion::supported_names_newest_first().into_iter().map(|v| { let selected = kube == v; html! { <option value={v.clone()} selected={selected}>{ v }</option> } }) }
                    </select>
                </label>
                if versions.len() > 1 {
                    <label class="field">
                        <span>{ "CRD version" }</span>
                        <select data-testid="crd-version" onchange={on_version} aria-label="CRD version to validate against">
                            <option value="" selected={selected_version.is_empty()}>{ format!("storage ({})", storage) }</option>
                            { for versions.iter().map(|v| html! { <option value={v.clone()} selected={selected_version == *v}>{ v }</option> }) }
                        </select>
                    </label>
                }
                <label class="toggle" title={ratchet_title}>
                    <input type="checkbox" data-testid="ratcheting" checked={settings.ratcheting_on(release)} disabled={!release.ratcheting_available()} onchange={on_ratchet} />
                    { "ratcheting" }
                </label>
                <label class="toggle" title="Validate the write as the status subresource: only .status is validated">
                    <input type="checkbox" data-testid="status-subresource" checked={settings.status} onchange={on_status} />
                    { "status subresource" }
                </label>
                <span class="spacer" />
                <button data-testid="share" onclick={link.callback(|_| Msg::Share)} title="Put the whole state in the link (compressed, in the #fragment: never sent to a server)">{ "Share" }</button>
                <button data-testid="theme" onclick={link.callback(|_| Msg::ToggleTheme)} aria-label="switch light/dark theme">{ if self.dark { "☀ light" } else { "☾ dark" } }</button>
            </header>
        }
    }
}

impl Component for App {
    type Message = Msg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        let mut app = App {
            ws: Workspace::new(),
            crd: String::new(),
            object: String::new(),
            old_object: String::new(),
            old_crd: String::new(),
            settings: Settings::default(),
            tab: Tab::Results,
            dark: prefers_dark(),
            show_old: false,
            analysis: Analysis::default(),
            analysed_crd: String::new(),
            last_compile_ms: 0.0,
            pending: None,
            matrix_timer: None,
            edit_started: None,
            matrix: None,
            diff: diff::Cache::default(),
            notice: None,
            share_url: None,
            editors: Vec::new(),
            example: String::new(),
            _keys: None,
            _hash: None,
        };
        match share::decode(&location_hash()) {
            Ok(Some(s)) => app.restore(s),
            Ok(None) => {
                let first = EXAMPLES.first().map(|e| e.id).unwrap_or("");
                app.load_example(first);
            }
            Err(e) => {
                app.notice = Some(e.to_string());
                let first = EXAMPLES.first().map(|e| e.id).unwrap_or("");
                app.load_example(first);
            }
        }
        app.analyze();
        if let Some(w) = web_sys::window() {
            let link = ctx.link().clone();
            app._keys = Some(EventListener::new(&w, "keydown", move |e| {
                let Some(k) = e.dyn_ref::<web_sys::KeyboardEvent>() else { return };
                if !(k.alt_key() && k.shift_key()) {
                    return;
                }
                let msg = match k.code().as_str() {
                    "Digit1" => Msg::Focus(Pane::Crd),
                    "Digit2" => Msg::Focus(Pane::Object),
                    "Digit3" => Msg::Focus(Pane::OldObject),
                    "Digit4" => Msg::Tab(Tab::Results),
                    "Digit5" => Msg::Tab(Tab::Rules),
                    "Digit6" => Msg::Tab(Tab::Diff),
                    _ => return,
                };
                e.prevent_default();
                link.send_message(msg);
            }));
            let link = ctx.link().clone();
            app._hash = Some(EventListener::new(&w, "hashchange", move |_| link.send_message(Msg::HashChanged)));
        }
        app
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Crd(t) => {
                self.start_edit("crd");
                self.crd = t;
                self.crd_edited(ctx);
            }
            Msg::Object(t) => {
                self.start_edit("object");
                self.object = t;
                self.analyze();
            }
            Msg::OldObject(t) => {
                self.start_edit("object");
                self.old_object = t;
                self.analyze();
            }
            Msg::OldCrd(t) => self.old_crd = t,
            Msg::AnalyzeNow => self.analyze(),
            Msg::Settings(s) => {
                self.settings = s;
                self.analyze();
            }
            Msg::Tab(t) => self.tab = t,
            Msg::Example(id) => {
                if self.load_example(&id) {
                    self.analyze();
                }
            }
            Msg::Share => {
                let frag = share::encode(&self.state());
                if let Some(w) = web_sys::window() {
                    let loc = w.location();
                    let base = format!("{}{}{}", loc.origin().unwrap_or_default(), loc.pathname().unwrap_or_default(), loc.search().unwrap_or_default());
                    let url = format!("{}#{}", base, frag);
                    if let Ok(h) = w.history() {
                        let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(&format!("#{}", frag)));
                    }
                    let _ = w.navigator().clipboard().write_text(&url);
                    self.share_url = Some(url);
                }
            }
            Msg::HashChanged => match share::decode(&location_hash()) {
                Ok(Some(s)) if s != self.state() => {
                    self.restore(s);
                    self.analyze();
                }
                Ok(_) => return false,
                Err(e) => self.notice = Some(e.to_string()),
            },
            Msg::ToggleTheme => self.dark = !self.dark,
            Msg::Rule(edit) => {
                self.start_edit("rule");
                self.apply_rule_edit(edit);
                self.crd_edited(ctx);
            }
            Msg::VersionMatrix => {
                self.matrix_timer = None;
                if let Some(c) = self.ws.compiled() {
                    let id = std::sync::Arc::as_ptr(&c) as usize;
                    if self.matrix.as_ref().map(|m| m.0) != Some(id) {
                        self.matrix = Some((id, Rc::new(crdlab::analysis::versions::rule_versions(&c))));
                    }
                }
            }
            Msg::Ready(pane, h) => {
                self.editors.retain(|(p, _)| *p != pane);
                self.editors.push((pane, h));
                return false;
            }
            Msg::Reveal(pane, line, col) => {
                if pane == Pane::OldObject {
                    self.show_old = true;
                }
                if let Some(h) = self.editor(pane) {
                    h.reveal_line(line, col);
                }
                return false;
            }
            Msg::Focus(pane) => {
                if pane == Pane::OldObject && !self.show_old {
                    self.show_old = true;
                }
                if let Some(h) = self.editor(pane) {
                    h.focus();
                }
                return pane == Pane::OldObject;
            }
            Msg::ShowOld(on) => {
                self.show_old = on;
                self.analyze();
            }
            Msg::CopyCrdToOld => self.old_crd = self.crd.clone(),
        }
        true
    }

    fn rendered(&mut self, ctx: &Context<Self>, _first: bool) {
        if let Some((t0, kind)) = self.edit_started.take() {
            if self.pending.is_none() {
                record_timing(kind, now() - t0);
            } else {
                self.edit_started = Some((t0, kind));
            }
        }
        // The version matrix compiles every rule at 12 releases: only for the rules pane,
        // after it is on screen, and once per compiled CRD.
        if self.tab == Tab::Rules && self.matrix_timer.is_none() {
            let stale = match (&self.matrix, self.ws.compiled()) {
                (Some((id, _)), Some(c)) => *id != std::sync::Arc::as_ptr(&c) as usize,
                (None, Some(_)) => true,
                _ => false,
            };
            if stale {
                let link = ctx.link().clone();
                self.matrix_timer = Timeout::new(200, move || link.send_message(Msg::VersionMatrix));
            }
        }
        if let Some(body) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.body()) {
            let _ = body.set_attribute("data-theme", if self.dark { "dark" } else { "light" });
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let ready = |pane: Pane| link.callback(move |h: Rc<Handle>| Msg::Ready(pane, h));
        let tab_button = |t: Tab, label: &str, key: &str| {
            let selected = self.tab == t;
            html! {
                <button role="tab" id={format!("tab-{}", t.id())} aria-selected={selected.to_string()} aria-controls={format!("panel-{}", t.id())}
                    class={classes!("tab", selected.then_some("selected"))} data-testid={format!("tab-{}", t.id())}
                    title={format!("Alt+Shift+{}", key)} onclick={link.callback(move |_| Msg::Tab(t))}>{ label }</button>
            }
        };
        let on_show_old = link.callback(|e: Event| {
            let el: web_sys::HtmlInputElement = e.target_unchecked_into();
            Msg::ShowOld(el.checked())
        });
        let rule_count: usize = self.analysis.crd.per_version.iter().map(|v| v.rules.len()).sum();
        let error_count = self.analysis.object.as_ref().map(|o| o.errors.len()).unwrap_or(0);
        html! {
            <div class="app">
                { self.header(ctx) }
                if let Some(n) = &self.notice {
                    <p class="notice" role="alert" data-testid="notice">{ n }</p>
                }
                if let Some(u) = &self.share_url {
                    <p class="share-url">
                        <label>{ "Link (copied; the state is in the #fragment, which browsers never send): " }
                            <input readonly=true data-testid="share-url" value={u.clone()} onfocus={Callback::from(|e: FocusEvent| {
                                let el: web_sys::HtmlInputElement = e.target_unchecked_into();
                                el.select();
                            })} />
                        </label>
                    </p>
                }
                <main class="columns">
                    <section class="inputs" aria-label="inputs">
                        <div class="pane crd-pane">
                            <h2 id="crd-label">{ "CustomResourceDefinition" }<kbd>{ "Alt+Shift+1" }</kbd></h2>
                            <Editor value={AttrValue::from(self.crd.clone())} on_change={link.callback(Msg::Crd)} testid="crd-editor"
                                label="CustomResourceDefinition (YAML or JSON)" marks={self.marks_crd()} dark={self.dark}
                                on_ready={ready(Pane::Crd)} class="crd" />
                        </div>
                        <div class="pane object-pane">
                            <h2>{ "Object" }<kbd>{ "Alt+Shift+2" }</kbd></h2>
                            <Editor value={AttrValue::from(self.object.clone())} on_change={link.callback(Msg::Object)} testid="object-editor"
                                label="Object (YAML or JSON; empty: check the CRD only)" marks={self.marks_object()} dark={self.dark}
                                on_ready={ready(Pane::Object)} class="object" />
                        </div>
                        <div class={classes!("pane", "old-pane", (!self.show_old).then_some("collapsed"))}>
                            <h2>
                                <label class="toggle">
                                    <input type="checkbox" data-testid="old-object-toggle" checked={self.show_old} onchange={on_show_old} />
                                    { "Old object (an update)" }
                                </label>
                                <kbd>{ "Alt+Shift+3" }</kbd>
                            </h2>
                            <div hidden={!self.show_old}>
                                <Editor value={AttrValue::from(self.old_object.clone())} on_change={link.callback(Msg::OldObject)} testid="old-object-editor"
                                    label="Old object (present: the write is an update)" marks={self.marks_old()} dark={self.dark}
                                    on_ready={ready(Pane::OldObject)} class="old-object" />
                            </div>
                        </div>
                    </section>
                    <section class="outputs" aria-label="results">
                        <div role="tablist" class="tabs">
                            { tab_button(Tab::Results, &format!("Results{}", if error_count > 0 { format!(" ({})", error_count) } else { String::new() }), "4") }
                            { tab_button(Tab::Rules, &format!("Rules ({})", rule_count), "5") }
                            { tab_button(Tab::Diff, "Diff", "6") }
                        </div>
                        <div role="tabpanel" id={format!("panel-{}", self.tab.id())} aria-labelledby={format!("tab-{}", self.tab.id())} class="panel">
                            {
                                match self.tab {
                                    Tab::Results => results::view(&self.analysis, link),
                                    Tab::Rules => rules::view(&self.analysis, self.settings.version.as_deref(), self.matrix.as_ref().map(|m| m.1.clone()), link),
                                    Tab::Diff => self.diff.view(&self.old_crd, &self.crd, &self.object, if self.show_old { &self.old_object } else { "" }, &self.settings, self.dark, link),
                                }
                            }
                        </div>
                    </section>
                </main>
            </div>
        }
    }
}

fn main() {
    // Yew installs console_error_panic_hook: a panic shows in the browser console.
    yew::Renderer::<App>::new().render();
}
