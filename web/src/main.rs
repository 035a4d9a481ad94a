//! crdlab playground: paste a CRD and objects, edit rules, see per-field results and costs
//! live — all computed in the page by the engine (`crdlab::view`), nothing sent anywhere.
//!
//! One [`App`] component holds the texts and settings; every edit asks the engine for a new
//! analysis ([`crdlab::view::Workspace::analyze`], which reuses the compiled CRD while only
//! the objects change). The engine runs in a Web Worker ([`worker`]): typing never waits on
//! it, and edits made while it works are coalesced into its next job.
//! The panes are components that render what they are given and report changes through
//! callbacks: [`toolbar::Toolbar`], [`results::Results`], [`rules::Rules`], [`diff::Diff`],
//! [`tests_tab::Tests`].
//! They are struct components: none needs hooks, and Yew's hook machinery would add wasm
//! for each of them.
//! What the engine knows (budgets, releases, the edit policy for rule fields) comes from
//! `crdlab::view`.

mod crash;
mod diff;
mod editor;
mod results;
mod rules;
mod tests_tab;
mod toolbar;
mod worker;

use crdlab::view::policy::RuleEdit;
use crdlab::view::share::{self, State};
use crdlab::view::{Analysis, CrdView, Settings};
use editor::{Editor, Handle, Mark};
use gloo_events::{EventListener, EventListenerOptions};
use gloo_timers::callback::Timeout;
use results::Place;
use std::ops::Deref;
use std::rc::Rc;
use std::sync::Arc;
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
    /// Its test suite (`crdlab test`'s format), for the tests tab; empty when it has none.
    pub suite: &'static str,
    pub kubernetes_version: &'static str,
    pub status: bool,
}

/// The version matrix waits this long after the rules pane is on screen (it compiles every
/// rule at every release: the worker would be busy for a while with a big CRD).
const MATRIX_DELAY_MS: u32 = 200;

/// A shared value as a property: equal when it is the same allocation, so a pane re-renders
/// only when the app replaced what it shows (comparing an analysis field by field would cost
/// more than rendering it).
pub struct Same<P>(pub P);

impl<P: Clone> Clone for Same<P> {
    fn clone(&self) -> Self {
        Same(self.0.clone())
    }
}

impl<T: ?Sized> PartialEq for Same<Rc<T>> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T: ?Sized> PartialEq for Same<Arc<T>> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl<P> Deref for Same<P> {
    type Target = P;
    fn deref(&self) -> &P {
        &self.0
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Results,
    Rules,
    Diff,
    Tests,
}

impl Tab {
    fn id(self) -> &'static str {
        match self {
            Tab::Results => "results",
            Tab::Rules => "rules",
            Tab::Diff => "diff",
            Tab::Tests => "tests",
        }
    }
    fn from_id(s: &str) -> Tab {
        match s {
            "rules" => Tab::Rules,
            "diff" => Tab::Diff,
            "tests" => Tab::Tests,
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

pub enum Msg {
    Crd(AttrValue),
    Object(AttrValue),
    OldObject(AttrValue),
    OldCrd(AttrValue),
    /// The tests tab's suite was edited.
    Suite(AttrValue),
    /// A test was clicked: its object and old object go into the editors.
    LoadTest((String, String)),
    /// What the engine worker answered.
    Engine(worker::Event),
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
    /// "Try again" after a crash: analyse the restored workspace.
    Retry,
}

/// The app's callbacks, made once so the panes' properties stay equal between renders.
struct Callbacks {
    crd: Callback<AttrValue>,
    object: Callback<AttrValue>,
    old_object: Callback<AttrValue>,
    old_crd: Callback<AttrValue>,
    suite: Callback<AttrValue>,
    load_test: Callback<(String, String)>,
    settings: Callback<Settings>,
    example: Callback<String>,
    share: Callback<()>,
    theme: Callback<()>,
    rule: Callback<RuleEdit>,
    reveal: Callback<Place>,
    copy_crd: Callback<()>,
}

impl Callbacks {
    fn new(link: &yew::html::Scope<App>) -> Callbacks {
        Callbacks {
            crd: link.callback(Msg::Crd),
            object: link.callback(Msg::Object),
            old_object: link.callback(Msg::OldObject),
            old_crd: link.callback(Msg::OldCrd),
            suite: link.callback(Msg::Suite),
            load_test: link.callback(Msg::LoadTest),
            settings: link.callback(Msg::Settings),
            example: link.callback(Msg::Example),
            share: link.callback(|()| Msg::Share),
            theme: link.callback(|()| Msg::ToggleTheme),
            rule: link.callback(Msg::Rule),
            reveal: link.callback(|(pane, line, column)| Msg::Reveal(pane, line, column)),
            copy_crd: link.callback(|()| Msg::CopyCrdToOld),
        }
    }
}

pub struct App {
    client: worker::Client,
    seq: u64,
    // The texts are shared strings: handing one to an editor or a pane copies no text.
    crd: AttrValue,
    object: AttrValue,
    old_object: AttrValue,
    old_crd: AttrValue,
    /// The tests tab's suite.
    suite: AttrValue,
    settings: Settings,
    tab: Tab,
    dark: bool,
    show_old: bool,
    analysis: Rc<Analysis>,
    /// The CRD half of the engine's last answer (an answer leaves it out when it is the same).
    crd_view: Arc<CrdView>,
    /// `crd_view` has the rules and schema nodes (sent only while the rules pane is shown).
    crd_view_rules: bool,
    /// `analysis.crd` has the rules (it is a `crd_view` with them).
    shown_rules: bool,
    /// An answer was taken in since the last render: the results on screen are for the
    /// newest texts.
    answered: bool,
    matrix_timer: Option<Timeout>,
    /// A job asking for the version matrix is with the engine.
    matrix_asked: bool,
    /// `performance.now()` at the first edit not yet on screen, and what was edited.
    edit_started: Option<(f64, &'static str)>,
    /// `performance.now()` as this thread took a keystroke (or an answer), until it rendered it.
    ui_started: Option<(f64, &'static str)>,
    /// The version matrix and the CRD half (pointer) it is for.
    matrix: Option<(usize, Rc<Vec<crdlab::analysis::versions::RuleVersionRow>>)>,
    /// The CRD text the engine's next rule-edit result builds on: an edited text it sends back
    /// replaces the editor's only while the editor still holds this one (typing into the CRD
    /// meanwhile wins).
    rule_base: Option<AttrValue>,
    /// The diff tab's report, from the engine's last answer that asked for it.
    diff: Option<Rc<diff::Outcome>>,
    /// The tests tab's run, from the engine's last answer that asked for it.
    tests: Option<Rc<tests_tab::Outcome>>,
    notice: Option<String>,
    /// The text of the panic the page restarted after ([`crash`]); nothing is analysed
    /// until the next edit.
    crashed: Option<String>,
    share_url: Option<String>,
    editors: Vec<(Pane, Rc<Handle>)>,
    example: AttrValue,
    callbacks: Callbacks,
    _keys: Option<EventListener>,
    _hash: Option<EventListener>,
}

/// Whether two texts are equal, without reading them when they are the same string: the
/// CRD text is megabytes, and every render hands the editors the texts they already hold.
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = TextEncoder)]
    type Utf8Encoder;
    #[wasm_bindgen(constructor, js_class = "TextEncoder")]
    fn new() -> Utf8Encoder;
    /// `{read, written}`: UTF-16 units read, bytes written (never part of a character).
    #[wasm_bindgen(method, js_class = "TextEncoder", js_name = encodeInto)]
    fn encode_into(this: &Utf8Encoder, text: &JsValue, dest: &js_sys::Uint8Array) -> JsValue;
}

/// A JS string as a Rust `String` (`None` for anything else). wasm-bindgen's own conversion
/// (`as_string`) copies an ASCII text into the module one character at a time in JavaScript:
/// 10–17 ms for the 2.9 MB postgres-operator CRD in Chromium, on every keystroke, on the
/// page (the editor's text) and again in the engine worker. `TextEncoder.encodeInto` writes
/// the UTF-8 straight into the string's buffer in the module's memory, about twice as fast
/// (`encode`, which returns a new array to copy in, is slower than the loop there). Lone
/// surrogates become U+FFFD either way.
pub fn js_text(js: &JsValue) -> Option<String> {
    const SMALL: usize = 16 * 1024;
    let text = js.dyn_ref::<js_sys::JsString>()?;
    let units = text.length() as usize;
    if units < SMALL {
        return js.as_string();
    }
    thread_local! {
        static ENCODER: Utf8Encoder = Utf8Encoder::new();
    }
    let number = |o: &JsValue, k: &str| js_sys::Reflect::get(o, &JsValue::from_str(k)).ok().and_then(|v| v.as_f64()).unwrap_or(0.0) as usize;
    // Room for an ASCII text first; the rest, if any, at three bytes per UTF-16 unit.
    let mut bytes: Vec<u8> = Vec::with_capacity(units);
    let mut read = 0;
    let mut rest = js.clone();
    loop {
        let spare = bytes.capacity() - bytes.len();
        // SAFETY: the view covers the vector's spare capacity and is used before anything
        // allocates (which could move the vector or grow the memory under the view).
        let view = unsafe { js_sys::Uint8Array::view_mut_raw(bytes.as_mut_ptr().add(bytes.len()), spare) };
        let r = ENCODER.with(|e| e.encode_into(&rest, &view));
        drop(view);
        let (n, written) = (number(&r, "read"), number(&r, "written"));
        if written > spare {
            return js.as_string();
        }
        // SAFETY: `encodeInto` wrote `written` bytes of UTF-8 there.
        unsafe { bytes.set_len(bytes.len() + written) };
        read += n;
        if read >= units {
            break;
        }
        if n == 0 && spare >= 4 {
            return js.as_string();
        }
        bytes.reserve((units - read) * 3);
        rest = text.slice(read as u32, units as u32).into();
    }
    String::from_utf8(bytes).ok()
}

pub fn same_text(a: &AttrValue, b: &AttrValue) -> bool {
    match (a, b) {
        (AttrValue::Rc(x), AttrValue::Rc(y)) if Rc::ptr_eq(x, y) => true,
        (AttrValue::Static(x), AttrValue::Static(y)) if std::ptr::eq(*x, *y) => true,
        // Eight bytes at a time (`==` compares a byte at a time in wasm32).
        _ => crdlab::text::bytes::same(a.as_bytes(), b.as_bytes()),
    }
}

use worker::now;

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
pub fn record_timing(kind: &str, ms: f64) {
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
            crd: self.crd.to_string(),
            object: self.object.to_string(),
            old_object: self.old_object.to_string(),
            old_crd: self.old_crd.to_string(),
            settings: self.settings.clone(),
            tab: self.tab.id().to_string(),
            suite: self.suite.to_string(),
        }
    }

    fn restore(&mut self, s: State) {
        self.crd = s.crd.into();
        self.object = s.object.into();
        self.show_old = !s.old_object.trim().is_empty();
        self.old_object = s.old_object.into();
        self.old_crd = s.old_crd.into();
        self.settings = s.settings;
        self.tab = Tab::from_id(&s.tab);
        self.suite = s.suite.into();
        self.example = AttrValue::default();
    }

    fn load_example(&mut self, id: &str) -> bool {
        let Some(e) = EXAMPLES.iter().find(|e| e.id == id) else { return false };
        self.crd = AttrValue::Static(e.crd);
        self.object = AttrValue::Static(e.object);
        self.old_object = AttrValue::Static(e.old_object);
        self.show_old = !e.old_object.is_empty();
        self.suite = AttrValue::Static(e.suite);
        self.settings = Settings {
            version: None,
            kubernetes_version: if e.kubernetes_version.is_empty() { None } else { Some(e.kubernetes_version.to_string()) },
            ratcheting: None,
            status: e.status,
            compare: Vec::new(),
        };
        self.example = AttrValue::Static(e.id);
        true
    }

    /// What a panic would save (shared strings: nothing is copied).
    fn remember(&self) {
        crash::remember(crash::Snapshot {
            crd: self.crd.clone(),
            object: self.object.clone(),
            old_object: self.old_object.clone(),
            old_crd: self.old_crd.clone(),
            suite: self.suite.clone(),
            settings: self.settings.clone(),
            tab: self.tab.id(),
        });
    }

    fn analyze(&mut self) {
        self.ask(Vec::new(), false);
    }

    /// Sends the texts to the engine (with rules pane edits to make first, and whether the
    /// version matrix is wanted); the answer arrives as [`Msg::Engine`].
    fn ask(&mut self, edits: Vec<RuleEdit>, matrix: bool) {
        self.crashed = None;
        crash::set_untouched(false);
        self.remember();
        self.seq += 1;
        let job = worker::Job {
            seq: self.seq,
            settings: self.settings.clone(),
            edits,
            matrix,
            rules_pane: self.tab == Tab::Rules,
            diff: self.tab == Tab::Diff && !self.old_crd.trim().is_empty(),
            suite: self.tab == Tab::Tests && !self.suite.trim().is_empty(),
            panic: crash::take_forced(),
        };
        let old_object = if self.show_old { self.old_object.clone() } else { AttrValue::default() };
        let old_crd = if job.diff { self.old_crd.clone() } else { AttrValue::default() };
        let suite = if job.suite { self.suite.clone() } else { AttrValue::default() };
        self.client.submit(worker::Pending { job, crd: self.crd.clone(), object: self.object.clone(), old_object, old_crd, suite });
    }

    /// Takes in an answer; whether to render (only the answer to the newest texts is shown).
    fn answer(&mut self, event: worker::Event) -> bool {
        match event {
            worker::Event::Answer { answer, crd, fresh, ms } => {
                let answer = *answer;
                if let Some(view) = answer.crd {
                    self.crd_view = Arc::new(view);
                    self.crd_view_rules = answer.rules_pane;
                }
                if let Some(ms) = answer.compile_ms {
                    record_timing("compile", ms);
                }
                record_timing("engine", ms);
                if answer.diffed {
                    self.diff = answer.diff.map(Rc::new);
                }
                if answer.suited {
                    self.tests = answer.suite.map(Rc::new);
                }
                if let Some(rows) = answer.matrix {
                    self.matrix = Some((Arc::as_ptr(&self.crd_view) as usize, Rc::new(rows)));
                    self.matrix_asked = false;
                }
                let edited = crd.is_some();
                let base = self.rule_base.as_ref().is_some_and(|b| same_text(b, &self.crd));
                if let Some(text) = crd.filter(|_| base) {
                    // A rule edit made by the engine: the CRD editor shows its text.
                    self.crd = text;
                    self.rule_base = Some(self.crd.clone());
                    self.notice = None;
                }
                if let Some(n) = answer.notice {
                    self.notice = Some(n);
                }
                if !fresh {
                    return false;
                }
                self.shown_rules = self.crd_view_rules;
                self.analysis = Rc::new(Analysis {
                    crd: self.crd_view.clone(),
                    object: answer.object,
                    summary: answer.summary,
                    releases: answer.releases.map(Arc::new),
                });
                self.answered = true;
                if edited {
                    self.remember();
                }
                true
            }
            worker::Event::Crashed(panic) => {
                // The worker is gone: another one starts; nothing is analysed until the next
                // edit (the texts could be what panicked), as after a restart of the page.
                self.client.restart();
                self.client.reset_local();
                self.crashed = Some(panic);
                self.analysis = Rc::default();
                self.crd_view = Arc::default();
                self.crd_view_rules = false;
                self.shown_rules = false;
                self.diff = None;
                self.tests = None;
                self.matrix_asked = false;
                self.edit_started = None;
                crash::set_untouched(true);
                self.remember();
                true
            }
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

    /// The rules pane shows a CRD the matrix is not for (and that one compiles).
    fn matrix_stale(&self) -> bool {
        let c = &self.analysis.crd;
        let compiled = c.load_error.is_none() && !c.per_version.is_empty();
        compiled && self.matrix.as_ref().map(|m| m.0) != Some(Arc::as_ptr(c) as usize)
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
}

impl Component for App {
    type Message = Msg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        let mut app = App {
            client: worker::Client::new(ctx.link().callback(Msg::Engine)),
            seq: 0,
            crd: AttrValue::default(),
            object: AttrValue::default(),
            old_object: AttrValue::default(),
            old_crd: AttrValue::default(),
            suite: AttrValue::default(),
            settings: Settings::default(),
            tab: Tab::Results,
            dark: prefers_dark(),
            show_old: false,
            analysis: Rc::default(),
            crd_view: Arc::default(),
            crd_view_rules: false,
            shown_rules: false,
            answered: false,
            matrix_timer: None,
            matrix_asked: false,
            edit_started: None,
            ui_started: None,
            matrix: None,
            rule_base: None,
            diff: None,
            tests: None,
            notice: None,
            crashed: None,
            share_url: None,
            editors: Vec::new(),
            example: AttrValue::default(),
            callbacks: Callbacks::new(ctx.link()),
            _keys: None,
            _hash: None,
        };
        if let Some((state, panic)) = crash::take_record() {
            // Restarted after a panic: the workspace back, analysed at the next edit only.
            match state {
                Some(s) => app.restore(s),
                None => {
                    let first = EXAMPLES.first().map(|e| e.id).unwrap_or("");
                    app.load_example(first);
                }
            }
            app.crashed = Some(panic);
            crash::set_untouched(true);
            app.remember();
        } else {
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
        }
        if let Some(w) = web_sys::window() {
            let link = ctx.link().clone();
            // Not passive: the shortcut's default action is prevented.
            let options = EventListenerOptions::enable_prevent_default();
            app._keys = Some(EventListener::new_with_options(&w, "keydown", options, move |e| {
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
                    "Digit7" => Msg::Tab(Tab::Tests),
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

    fn update(&mut self, _ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Crd(t) => {
                self.ui_started = Some((now(), "ui-crd"));
                self.start_edit("crd");
                self.crd = t;
                self.analyze();
            }
            Msg::Object(t) => {
                self.ui_started = Some((now(), "ui-object"));
                self.start_edit("object");
                self.object = t;
                self.analyze();
            }
            Msg::OldObject(t) => {
                self.ui_started = Some((now(), "ui-object"));
                self.start_edit("object");
                self.old_object = t;
                self.analyze();
            }
            Msg::OldCrd(t) => {
                self.old_crd = t;
                self.analyze();
            }
            Msg::Suite(t) => {
                self.suite = t;
                if self.suite.trim().is_empty() {
                    self.tests = None;
                }
                self.analyze();
            }
            Msg::LoadTest((object, old_object)) => {
                self.object = object.into();
                self.show_old = !old_object.trim().is_empty();
                self.old_object = old_object.into();
                self.analyze();
            }
            Msg::Engine(e) => {
                let t0 = now();
                let render = self.answer(e);
                if render {
                    self.ui_started = Some((t0, "ui-answer"));
                }
                return render;
            }
            Msg::Settings(s) => {
                self.settings = s;
                self.analyze();
            }
            Msg::Tab(t) => {
                self.tab = t;
                // The rules pane lists the rules and schema nodes, which answers leave out
                // until then.
                if t == Tab::Rules && !self.crd_view_rules && self.crashed.is_none() && self.analysis.crd.load_error.is_none() {
                    self.analyze();
                }
                // The diff is computed by the engine while the diff tab is shown.
                if t == Tab::Diff && self.crashed.is_none() && !self.old_crd.trim().is_empty() {
                    self.analyze();
                }
                // So is the suite's run while the tests tab is shown.
                if t == Tab::Tests && self.crashed.is_none() && !self.suite.trim().is_empty() {
                    self.analyze();
                }
            }
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
                // The engine makes the edit (its edit policy: what an edit writes, that an
                // emptied optional field is removed) and answers with the new CRD text.
                self.start_edit("rule");
                self.rule_base = Some(self.crd.clone());
                self.ask(vec![edit], false);
            }
            Msg::VersionMatrix => {
                self.matrix_timer = None;
                if self.matrix_stale() && !self.matrix_asked && self.crashed.is_none() {
                    self.matrix_asked = true;
                    self.ask(Vec::new(), true);
                }
                return false;
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
            Msg::CopyCrdToOld => {
                self.old_crd = self.crd.clone();
                self.analyze();
            }
            Msg::Retry => self.analyze(),
        }
        self.remember();
        true
    }

    fn rendered(&mut self, ctx: &Context<Self>, _first: bool) {
        if let Some((t0, kind)) = self.ui_started.take() {
            record_timing(kind, now() - t0);
        }
        if self.answered {
            self.answered = false;
            if let Some((t0, kind)) = self.edit_started.take() {
                record_timing(kind, now() - t0);
            }
        }
        // The version matrix compiles every rule at every release: only for the rules pane,
        // after it is on screen, and once per compiled CRD.
        if self.tab == Tab::Rules && self.matrix_timer.is_none() && !self.matrix_asked {
            if self.matrix_stale() {
                let link = ctx.link().clone();
                self.matrix_timer = Some(Timeout::new(MATRIX_DELAY_MS, move || link.send_message(Msg::VersionMatrix)));
            }
        }
        if let Some(body) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.body()) {
            let _ = body.set_attribute("data-theme", if self.dark { "dark" } else { "light" });
            // Where the engine runs (the browser tests check that it is the worker).
            let _ = body.set_attribute("data-engine", if self.client.in_worker() { "worker" } else { "page" });
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let cb = &self.callbacks;
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
        let rule_count: usize = self.analysis.crd.per_version.iter().map(|v| v.rule_count).sum();
        let error_count = self.analysis.object.as_ref().map(|o| o.errors.len()).unwrap_or(0);
        let tests_label = match self.tests.as_deref() {
            Some(Ok(v)) if !self.suite.trim().is_empty() => {
                let failed = v.tests.iter().filter(|t| t.status == "fail").count();
                if failed > 0 { format!("Tests ({} failed)", failed) } else { format!("Tests ({})", v.tests.len()) }
            }
            _ => "Tests".to_string(),
        };
        let example_suite = EXAMPLES.iter().find(|e| e.id == self.example.as_str()).map(|e| e.suite).filter(|s| !s.is_empty());
        html! {
            <div class="app">
                <toolbar::Toolbar settings={self.settings.clone()} example={self.example.clone()} crd={Same(self.analysis.crd.clone())}
                    dark={self.dark} on_settings={cb.settings.clone()} on_example={cb.example.clone()} on_share={cb.share.clone()}
                    on_theme={cb.theme.clone()} />
                if let Some(n) = &self.notice {
                    <p class="notice" role="alert" data-testid="notice">{ n }</p>
                }
                if let Some(p) = &self.crashed {
                    <div class="notice crash" role="alert" data-testid="crash-banner">
                        { "crdlab hit an internal error and restarted; your texts are kept: " }
                        <code data-testid="crash-panic">{ p }</code>
                        { " " }
                        <button data-testid="crash-retry" onclick={link.callback(|_| Msg::Retry)}>{ "Try again" }</button>
                    </div>
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
                            <Editor value={self.crd.clone()} on_change={cb.crd.clone()} testid="crd-editor"
                                label="CustomResourceDefinition (YAML or JSON)" marks={self.marks_crd()} dark={self.dark}
                                on_ready={ready(Pane::Crd)} class="crd" />
                        </div>
                        <div class="pane object-pane">
                            <h2>{ "Object" }<kbd>{ "Alt+Shift+2" }</kbd></h2>
                            <Editor value={self.object.clone()} on_change={cb.object.clone()} testid="object-editor"
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
                                <Editor value={self.old_object.clone()} on_change={cb.old_object.clone()} testid="old-object-editor"
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
                            { tab_button(Tab::Tests, &tests_label, "7") }
                        </div>
                        <div role="tabpanel" id={format!("panel-{}", self.tab.id())} aria-labelledby={format!("tab-{}", self.tab.id())} class="panel">
                            {
                                match self.tab {
                                    Tab::Results => html! {
                                        <results::Results analysis={Same(self.analysis.clone())} on_reveal={cb.reveal.clone()} />
                                    },
                                    Tab::Rules => html! {
                                        <rules::Rules crd={Same(self.analysis.crd.clone())} waiting={!self.shown_rules && self.analysis.crd.load_error.is_none() && !self.analysis.crd.per_version.is_empty()} version={self.settings.version.clone().map(AttrValue::from)}
                                            matrix={self.matrix.as_ref().map(|m| Same(m.1.clone()))} on_edit={cb.rule.clone()} on_reveal={cb.reveal.clone()} />
                                    },
                                    Tab::Diff => {
                                        // Not after a crash until the next edit: the diff may be what panicked.
                                        let report = if self.crashed.is_some() || self.old_crd.trim().is_empty() {
                                            None
                                        } else {
                                            self.diff.clone()
                                        };
                                        html! {
                                            <diff::Diff old_crd={self.old_crd.clone()} report={report.map(Same)} dark={self.dark}
                                                on_old_crd={cb.old_crd.clone()} on_copy={cb.copy_crd.clone()} />
                                        }
                                    }
                                    Tab::Tests => {
                                        // Not after a crash until the next edit: the suite may be what panicked.
                                        let outcome = if self.crashed.is_some() || self.suite.trim().is_empty() { None } else { self.tests.clone() };
                                        html! {
                                            <tests_tab::Tests suite={self.suite.clone()} outcome={outcome.map(Same)} dark={self.dark}
                                                on_suite={cb.suite.clone()} on_load={cb.load_test.clone()} {example_suite} />
                                        }
                                    }
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
    // The same module, started in the engine worker: it answers jobs, and renders nothing.
    if web_sys::window().is_none() {
        worker::serve();
        return;
    }
    // Yew installs console_error_panic_hook as it renders (a panic shows in the browser
    // console); the recovery hook chains onto it. The app is created later, from Yew's
    // scheduler, so the hook is in place before any analysis.
    yew::Renderer::<App>::new().render();
    crash::install();
}
