//! The engine off the UI thread: typing never waits on an analysis.
//!
//! The page's wasm module is loaded a second time, in a dedicated module worker: the same
//! `WebAssembly.Module` (posted to the worker, so nothing is fetched or compiled again) and
//! the same JS glue (the URL trunk's `modulepreload` link names; a second wasm holding only
//! the engine would not fit the size budget). In the worker there is no `window`: `main`
//! calls [`serve`] instead of rendering, which answers [`Job`]s with [`Answer`]s.
//!
//! The UI side is [`Client`]: one job at a time in the worker; while it is busy, newer edits
//! replace the pending job (rule edits and requests accumulate in it), so the queue never
//! grows and the worker always works on the newest texts. The texts travel as JS strings
//! beside the job's JSON, and the CRD text only when it changed: a keystroke in the object
//! copies no megabytes. An answer carries the CRD's half of the analysis only when it is
//! not the one the previous answer carried.
//!
//! On a cross-origin isolated page (served with `Cross-Origin-Opener-Policy: same-origin` and
//! `Cross-Origin-Embedder-Policy: require-corp`, as `trunk serve` and the tests serve it) the
//! answer also comes back through a [`Mailbox`], a `SharedArrayBuffer`: Chromium delivers a
//! worker's message only after the frame that follows a keystroke (half a frame at the median,
//! measured), so for a job that reuses the compiled CRD, which the worker answers in well
//! under a millisecond, the page waits a few milliseconds for the mailbox instead and shows
//! the results in the keystroke's own frame. Anywhere else the message brings the answer.
//!
//! A panic in the worker is posted to the page by the worker's panic hook (a trap without a
//! panic, such as a stack overflow, arrives as the worker's `error` event): the client
//! reports [`Event::Crashed`], and the app drops the worker and starts another. When no
//! worker can be started (no glue URL, a browser without module workers), the client runs
//! the same [`Engine`] on the UI thread, after the event that asked.

use crdlab::analysis::releases::Comparison;
use crdlab::analysis::versions::{rule_versions, RuleVersionRow};
use crdlab::text::positions::Source;
use crdlab::view::kubectl::Summary;
use crdlab::view::policy::{self, RuleEdit};
use crdlab::view::{Analysis, CrdView, ObjectView, Settings, Workspace};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::{AttrValue, Callback};

/// What the UI asks for (the texts travel beside it, see [`Client`]).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Job {
    pub seq: u64,
    pub settings: Settings,
    /// Rules pane edits, applied in order to the CRD text before the analysis.
    #[serde(default)]
    pub edits: Vec<RuleEdit>,
    /// Also compute the version matrix of the compiled CRD.
    #[serde(default)]
    pub matrix: bool,
    /// The CRD half the rules pane shows ([`Workspace::crd_view_full`]): the rules with
    /// their cost explanations, and every schema node. For a big CRD they are most of the
    /// work and of the answer (the postgres-operator's rules alone are 170 KB of JSON), so
    /// they are made and travel only while that pane is shown; other answers carry the rule
    /// counts.
    #[serde(default)]
    pub rules_pane: bool,
    /// Also diff the old CRD (sent beside, as `oldCrd`) against the CRD (the diff tab).
    #[serde(default)]
    pub diff: bool,
    /// Also run the tests tab's suite (sent beside, as `suite`) against the CRD.
    #[serde(default)]
    pub suite: bool,
    /// Panic with this text as the analysis starts (the recovery test's hook,
    /// [`crate::crash::panic_on_next_analysis`]).
    #[serde(default)]
    pub panic: Option<String>,
}

/// One analysis, as it travels back.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Answer {
    pub seq: u64,
    /// The CRD's half; `None`: the one of the previous answer (same text and release).
    pub crd: Option<CrdView>,
    /// `crd` has the rules and schema nodes ([`Job::rules_pane`]).
    #[serde(default)]
    pub rules_pane: bool,
    pub object: Option<ObjectView>,
    pub summary: Summary,
    pub releases: Option<Comparison>,
    pub matrix: Option<Vec<RuleVersionRow>>,
    /// Why a rule edit could not be made.
    pub notice: Option<String>,
    /// How long the analysis took when it compiled the CRD.
    pub compile_ms: Option<f64>,
    /// The job asked for the diff ([`Job::diff`]).
    #[serde(default)]
    pub diffed: bool,
    /// The diff (`None`: no old CRD).
    pub diff: Option<crate::diff::Outcome>,
    /// The job asked for the suite's run ([`Job::suite`]).
    #[serde(default)]
    pub suited: bool,
    /// The suite's run (`None`: no suite).
    #[serde(default)]
    pub suite: Option<crate::tests_tab::Outcome>,
}

/// The worker's state: the CRD text it holds, and the workspace that keeps it compiled.
#[derive(Default)]
pub struct Engine {
    ws: Workspace,
    crd: String,
    /// The job that gave `crd` (sent it, or edited it): a change to the text names it.
    crd_seq: u64,
    /// `crd` is the text `ws` analysed last (so `ws.crd_value()` is its document).
    analysed: bool,
    /// The CRD half the last answer carried, and whether the rules pane's.
    sent: Option<Arc<CrdView>>,
    sent_rules_pane: bool,
    /// The last diff, recomputed only when an input changed.
    diff: crate::diff::Cache,
    /// The last run of the tests tab's suite, repeated only when an input changed.
    tests: crate::tests_tab::Cache,
}

impl Engine {
    /// Answers `job` on `crd` (`None`: the text of the previous job, or of its rule edits).
    /// Returns the answer and, after rule edits, the edited CRD text.
    pub fn handle(&mut self, job: Job, crd: Option<String>, object: &str, old_object: &str, old_crd: &str) -> (Answer, Option<String>) {
        if let Some(c) = crd {
            self.analysed = self.analysed && crdlab::text::bytes::same(c.as_bytes(), self.crd.as_bytes());
            self.crd = c;
            self.crd_seq = job.seq;
        }
        if let Some(message) = job.panic {
            panic!("{}", message);
        }
        let mut notice = None;
        let mut edited = false;
        for edit in &job.edits {
            // `apply_rule_edit` looks up whether an emptied field is there in the document.
            let parsed;
            let value = if self.analysed {
                self.ws.crd_value()
            } else {
                parsed = Source::read_crd(&self.crd).ok();
                parsed.as_ref().map(|s| &s.value)
            };
            match policy::apply_rule_edit(&self.crd, value, edit) {
                Ok(text) => {
                    if !crdlab::text::bytes::same(text.as_bytes(), self.crd.as_bytes()) {
                        self.crd = text;
                        self.crd_seq = job.seq;
                        self.analysed = false;
                        edited = true;
                    }
                    notice = None;
                }
                Err(e) => notice = Some(format!("could not edit the CRD text: {}", e)),
            }
        }
        let diff = if job.diff { self.diff.report(old_crd, &self.crd, object, old_object, &job.settings) } else { None };
        let t0 = now();
        let Analysis { crd: view, object, summary, releases } = self.ws.analyze(&self.crd, object, old_object, &job.settings);
        self.analysed = true;
        let compiled = !self.sent.as_ref().is_some_and(|s| Arc::ptr_eq(s, &view));
        let compile_ms = compiled.then(|| now() - t0);
        let new_crd = compiled || (job.rules_pane && !self.sent_rules_pane);
        if new_crd {
            self.sent_rules_pane = job.rules_pane;
        }
        let matrix = if job.matrix { self.ws.compiled().map(|c| rule_versions(&c)) } else { None };
        let answer = Answer {
            seq: job.seq,
            // The analysis' view has the rule counts; the rules pane's has the rules and
            // schema nodes.
            crd: new_crd.then(|| match job.rules_pane.then(|| self.ws.crd_view_full()).flatten() {
                Some(full) => (*full).clone(),
                None => (*view).clone(),
            }),
            rules_pane: self.sent_rules_pane,
            object,
            summary,
            releases: releases.map(|r| (*r).clone()),
            matrix,
            notice,
            compile_ms,
            diffed: job.diff,
            diff: diff.map(|d| (*d).clone()),
            ..Default::default()
        };
        self.sent = Some(view);
        (answer, edited.then(|| self.crd.clone()))
    }

    /// The CRD text after `change`, when it is a change of the text this engine holds.
    pub fn changed_crd(&self, change: &TextChange) -> Option<String> {
        let t = &self.crd;
        let TextChange { base, from, to, len, .. } = *change;
        let fits = base == self.crd_seq
            && from <= to
            && to <= t.len()
            && t.is_char_boundary(from)
            && t.is_char_boundary(to)
            && t.len() - (to - from) + change.insert.len() == len;
        if !fits {
            return None;
        }
        let mut out = String::with_capacity(len);
        out.push_str(&t[..from]);
        out.push_str(&change.insert);
        out.push_str(&t[to..]);
        Some(out)
    }

    /// Runs the tests tab's suite against the CRD the last [`Engine::handle`] analysed (after
    /// its rule edits), into its answer.
    pub fn run_suite(&self, answer: &mut Answer, suite: &str, settings: &Settings) {
        answer.suited = true;
        answer.suite = self.tests.outcome(suite, &self.crd, settings).map(|o| (*o).clone());
    }

    /// Forgets what the UI was sent (a new client).
    fn reset(&mut self) {
        self.sent = None;
        self.sent_rules_pane = false;
    }
}

fn performance() -> Option<web_sys::Performance> {
    js_sys::Reflect::get(&js_sys::global(), &"performance".into()).ok().and_then(|p| p.dyn_into::<web_sys::Performance>().ok())
}

/// `performance.now()` in the page or in a worker.
pub fn now() -> f64 {
    performance().map(|p| p.now()).unwrap_or(0.0)
}

/// A time both the page and the worker read alike (`performance.now()` counts from each
/// one's own start): for timing the two legs of a round trip.
fn wall_now() -> f64 {
    performance().map(|p| p.time_origin() + p.now()).unwrap_or(0.0)
}

fn set(o: &js_sys::Object, key: &str, value: &JsValue) {
    let _ = js_sys::Reflect::set(o, &JsValue::from_str(key), value);
}

/// A CRD text sent as its change from the text the worker holds (set by job `base`): bytes
/// `from..to` of that text become `insert`, giving a text of `len` bytes. A keystroke in a
/// 2.9 MB CRD then posts a few bytes instead of the whole text, which took about 8 ms to
/// post and as long again to read into the worker's memory.
pub struct TextChange {
    base: u64,
    from: usize,
    to: usize,
    insert: String,
    len: usize,
}

/// From this size on, a CRD text the worker holds an earlier version of is sent as a change.
const CHANGE_FROM: usize = 64 * 1024;

impl TextChange {
    fn between(base: u64, old: &str, new: &str) -> Option<TextChange> {
        let c = crdlab::text::splice::Change::between(old, new);
        // A change of most of the text is sent whole.
        (c.new_to - c.from <= new.len() / 2).then(|| TextChange { base, from: c.from, to: c.old_to, insert: new[c.from..c.new_to].to_string(), len: new.len() })
    }

    fn write(&self, msg: &js_sys::Object) {
        let change = js_sys::Object::new();
        for (k, v) in [("base", self.base as f64), ("from", self.from as f64), ("to", self.to as f64), ("len", self.len as f64)] {
            set(&change, k, &JsValue::from_f64(v));
        }
        set(&change, "insert", &JsValue::from_str(&self.insert));
        set(msg, "crdChange", &change);
    }

    fn read(msg: &JsValue) -> Option<TextChange> {
        let change = js_sys::Reflect::get(msg, &"crdChange".into()).ok().filter(|c| c.is_object())?;
        let n = |k: &str| js_sys::Reflect::get(&change, &k.into()).ok()?.as_f64().filter(|x| *x >= 0.0 && x.fract() == 0.0);
        Some(TextChange { base: n("base")? as u64, from: n("from")? as usize, to: n("to")? as usize, insert: get_str(&change, "insert")?, len: n("len")? as usize })
    }
}

/// Where the worker leaves an answer for a page that waits for it (see the module's text): a
/// `SharedArrayBuffer` of two `i32`s (the answer's job, low 32 bits, never 0; its length in
/// bytes, or -1 when it did not fit and travels in the message) and the answer's JSON.
/// The worker writes the JSON, then the length, then the job; the page reads in the other
/// order. Only one job is in the worker at a time and the page takes an answer out before it
/// posts the next job, so the worker never writes while the page reads.
#[derive(Clone)]
pub struct Mailbox {
    buffer: js_sys::SharedArrayBuffer,
    ctrl: js_sys::Int32Array,
    data: js_sys::Uint8Array,
}

/// What the page finds in the [`Mailbox`].
enum Mail {
    /// The worker has not answered the job yet.
    NotYet,
    /// It answered, too long for the mailbox: the message brings the answer.
    InMessage,
    Answer(String),
}

/// Room for answers: an object edit's answer for the postgres CRD is under a kilobyte, one
/// with the CRD half about 200 KB; a CRD half with every schema node can be megabytes, and
/// those travel in the message.
const MAILBOX_BYTES: u32 = 4 << 20;
/// How long the page waits for an answer in the mailbox before leaving it to the message: a
/// job that reuses the compiled CRD takes the worker under a millisecond for the postgres CRD.
const MAILBOX_WAIT_MS: f64 = 4.0;

impl Mailbox {
    /// A new mailbox, when the page may share memory with its worker.
    fn new() -> Option<Mailbox> {
        let isolated = js_sys::Reflect::get(&js_sys::global(), &"crossOriginIsolated".into()).ok()?.is_truthy();
        let has_sab = js_sys::Reflect::has(&js_sys::global(), &"SharedArrayBuffer".into()).unwrap_or(false);
        if !isolated || !has_sab {
            return None;
        }
        Self::of(js_sys::SharedArrayBuffer::new(8 + MAILBOX_BYTES).into())
    }

    /// The mailbox the page posted.
    fn of(buffer: JsValue) -> Option<Mailbox> {
        let buffer = buffer.dyn_into::<js_sys::SharedArrayBuffer>().ok()?;
        let len = buffer.byte_length();
        if len < 8 {
            return None;
        }
        let ctrl = js_sys::Int32Array::new_with_byte_offset_and_length(&buffer, 0, 2);
        let data = js_sys::Uint8Array::new_with_byte_offset_and_length(&buffer, 8, len - 8);
        Some(Mailbox { buffer, ctrl, data })
    }

    fn tag(seq: u64) -> i32 {
        (seq as u32 as i32).max(1)
    }

    /// The worker's side: leaves `json` as the answer to `seq`; false when it does not fit.
    fn put(&self, seq: u64, json: &str) -> bool {
        let fits = json.len() <= self.data.length() as usize;
        if fits {
            self.data.subarray(0, json.len() as u32).copy_from(json.as_bytes());
        }
        let _ = js_sys::Atomics::store(&self.ctrl, 1, if fits { json.len() as i32 } else { -1 });
        let _ = js_sys::Atomics::store(&self.ctrl, 0, Self::tag(seq));
        fits
    }

    /// The page's side: what the worker left for `seq`.
    fn take(&self, seq: u64) -> Mail {
        if js_sys::Atomics::load(&self.ctrl, 0).ok() != Some(Self::tag(seq)) {
            return Mail::NotYet;
        }
        let Some(len) = js_sys::Atomics::load(&self.ctrl, 1).ok().and_then(|n| usize::try_from(n).ok()) else { return Mail::InMessage };
        if len > self.data.length() as usize {
            return Mail::InMessage;
        }
        // Into this module's memory first: TextDecoder does not read shared memory.
        let mut bytes = vec![0u8; len];
        self.data.subarray(0, len as u32).copy_to(&mut bytes);
        match String::from_utf8(bytes) {
            Ok(json) => Mail::Answer(json),
            Err(_) => Mail::InMessage,
        }
    }
}

fn get_str(o: &JsValue, key: &str) -> Option<String> {
    js_sys::Reflect::get(o, &JsValue::from_str(key)).ok().and_then(|v| crate::js_text(&v))
}

/// The worker's side: answers every message with one answer. Called by `main` when the
/// module starts without a `window`.
pub fn serve() {
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    // The page learns of a panic from this message (the trap that follows ends the call).
    let hook_scope = scope.clone();
    std::panic::set_hook(Box::new(move |info| {
        let text = policy::panic_text(&info.to_string());
        web_sys::console::error_1(&JsValue::from_str(&text));
        let msg = js_sys::Object::new();
        set(&msg, "panic", &JsValue::from_str(&text));
        let _ = hook_scope.post_message(&msg);
    }));
    let engine = RefCell::new(Engine::default());
    let mailbox: RefCell<Option<Mailbox>> = RefCell::new(None);
    let reply = scope.clone();
    let on_message = Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
        let received = wall_now();
        let data = e.data();
        if let Some(m) = js_sys::Reflect::get(&data, &"mailbox".into()).ok().and_then(Mailbox::of) {
            *mailbox.borrow_mut() = Some(m);
        }
        let Some(job) = get_str(&data, "job").and_then(|j| serde_json::from_str::<Job>(&j).ok()) else { return };
        let object = get_str(&data, "object").unwrap_or_default();
        let old_object = get_str(&data, "oldObject").unwrap_or_default();
        let old_crd = get_str(&data, "oldCrd").unwrap_or_default();
        let Ok(mut engine) = engine.try_borrow_mut() else { return };
        let t0 = now();
        let crd = match (get_str(&data, "crd"), TextChange::read(&data)) {
            (Some(text), _) => Some(text),
            (None, Some(change)) => match engine.changed_crd(&change) {
                Some(text) => Some(text),
                None => {
                    // Not a change of the text held here: the page sends the whole text.
                    let msg = js_sys::Object::new();
                    set(&msg, "resend", &JsValue::TRUE);
                    let _ = reply.post_message(&msg);
                    return;
                }
            },
            (None, None) => None,
        };
        let suite_settings = job.suite.then(|| job.settings.clone());
        let seq = job.seq;
        let (mut answer, crd) = engine.handle(job, crd, &object, &old_object, &old_crd);
        if let Some(settings) = suite_settings {
            engine.run_suite(&mut answer, &get_str(&data, "suite").unwrap_or_default(), &settings);
        }
        drop(engine);
        let t1 = now();
        let json = serde_json::to_string(&answer).unwrap_or_default();
        let msg = js_sys::Object::new();
        set(&msg, "seq", &JsValue::from_f64(seq as f64));
        // In the mailbox, the message only says so (the page may have taken it already).
        let mailed = mailbox.borrow().as_ref().is_some_and(|m| m.put(seq, &json));
        if mailed {
            set(&msg, "mailed", &JsValue::TRUE);
        }
        // What the worker spent, for the latency benchmark.
        set(&msg, "engineMs", &JsValue::from_f64(t1 - t0));
        set(&msg, "writeMs", &JsValue::from_f64(now() - t1));
        set(&msg, "receivedAt", &JsValue::from_f64(received));
        if !mailed {
            set(&msg, "answer", &JsValue::from_str(&json));
        }
        if let Some(c) = crd {
            set(&msg, "crd", &JsValue::from_str(&c));
        }
        set(&msg, "postedAt", &JsValue::from_f64(wall_now()));
        let _ = reply.post_message(&msg);
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let ready = js_sys::Object::new();
    set(&ready, "ready", &JsValue::TRUE);
    let _ = scope.post_message(&ready);
}

/// What the client tells the app.
pub enum Event {
    /// An answer; `fresh` when no newer job is waiting (the app renders only those). `crd`:
    /// the text the job's rule edits made, which the engine now holds.
    Answer { answer: Box<Answer>, crd: Option<AttrValue>, fresh: bool, ms: f64 },
    /// The worker panicked (or trapped): its text.
    Crashed(String),
}

/// A job and the texts it is for.
#[derive(Clone)]
pub struct Pending {
    pub job: Job,
    pub crd: AttrValue,
    pub object: AttrValue,
    pub old_object: AttrValue,
    /// The diff tab's old CRD (sent only with [`Job::diff`]).
    pub old_crd: AttrValue,
    /// The tests tab's suite (sent only with [`Job::suite`]).
    pub suite: AttrValue,
}

struct Inner {
    worker: Option<web_sys::Worker>,
    /// The worker's `main` ran: jobs can be posted.
    ready: bool,
    /// A job is in the worker (or, without one, scheduled on this thread).
    busy: bool,
    /// When the job in the worker was posted ([`now`], and [`wall_now`]).
    sent_at: f64,
    sent_wall: f64,
    pending: Option<Pending>,
    /// The CRD text the worker holds (`None`: not known), and the job that gave it.
    sent_crd: Option<AttrValue>,
    sent_crd_seq: u64,
    /// The job in the worker, sent again when the worker did not hold the text its CRD
    /// change was made against.
    in_worker: Option<Pending>,
    /// The answers' shared mailbox (a cross-origin isolated page), whether the worker has it,
    /// and the last job whose answer the page took from it (messages up to it are ignored).
    mailbox: Option<Mailbox>,
    mailbox_posted: bool,
    taken: Option<u64>,
    /// The settings of the last job posted: a job with the same ones, the CRD text the
    /// worker holds and no rule edits reuses the compiled CRD, so the page waits for it.
    last_settings: Option<Settings>,
    /// No worker: the engine on this thread.
    local: Option<Rc<RefCell<Engine>>>,
    on_event: Callback<Event>,
    closures: Vec<Closure<dyn Fn(JsValue)>>,
}

/// The UI's side of the engine.
#[derive(Clone)]
pub struct Client(Rc<RefCell<Inner>>);

/// The URL of the JS glue trunk built (its `modulepreload` link).
fn glue_url() -> Option<String> {
    let doc = web_sys::window()?.document()?;
    let link = doc.query_selector("link[rel=modulepreload][href$='.js']").ok()??;
    js_sys::Reflect::get(&link, &"href".into()).ok()?.as_string()
}

/// A module worker that imports the glue and starts the module it is posted.
fn spawn() -> Result<web_sys::Worker, JsValue> {
    let glue = glue_url().ok_or_else(|| JsValue::from_str("no modulepreload link names the JS glue"))?;
    let glue = serde_json::to_string(&glue).unwrap_or_default();
    let source = format!(
        "import init from {glue};\n\
         self.onmessage = (e) => {{\n\
         \x20 self.onmessage = null;\n\
         \x20 init({{ module_or_path: e.data }}).catch((err) => self.postMessage({{ failed: String(err) }}));\n\
         }};\n"
    );
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("text/javascript");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&js_sys::Array::of1(&source.into()), &options)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let options = web_sys::WorkerOptions::new();
    options.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(&url, &options)?;
    worker.post_message(&wasm_bindgen::module())?;
    Ok(worker)
}

impl Client {
    pub fn new(on_event: Callback<Event>) -> Client {
        let client = Client(Rc::new(RefCell::new(Inner {
            worker: None,
            ready: false,
            busy: false,
            sent_at: 0.0,
            sent_wall: 0.0,
            pending: None,
            sent_crd: None,
            sent_crd_seq: 0,
            in_worker: None,
            mailbox: None,
            mailbox_posted: false,
            taken: None,
            last_settings: None,
            local: None,
            on_event,
            closures: Vec::new(),
        })));
        client.start();
        client
    }

    /// Whether the engine runs in a worker (else on this thread).
    pub fn in_worker(&self) -> bool {
        self.0.borrow().local.is_none()
    }

    fn start(&self) {
        let worker = match spawn() {
            Ok(w) => w,
            Err(e) => {
                web_sys::console::warn_1(&JsValue::from_str(&format!(
                    "crdlab: the engine runs on the page's thread (no worker: {})",
                    e.as_string().unwrap_or_else(|| format!("{:?}", e))
                )));
                self.0.borrow_mut().local = Some(Rc::default());
                return;
            }
        };
        let me = self.clone();
        let on_message = Closure::<dyn Fn(JsValue)>::new(move |e: JsValue| {
            let data = js_sys::Reflect::get(&e, &"data".into()).unwrap_or(JsValue::UNDEFINED);
            me.message(data);
        });
        let me = self.clone();
        let on_error = Closure::<dyn Fn(JsValue)>::new(move |e: JsValue| {
            let text = get_str(&e, "message").unwrap_or_else(|| "the engine worker failed".into());
            me.failed(text);
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let mut inner = self.0.borrow_mut();
        inner.worker = Some(worker);
        inner.ready = false;
        inner.busy = false;
        inner.sent_crd = None;
        inner.closures = vec![on_message, on_error];
        inner.mailbox = Mailbox::new();
        inner.mailbox_posted = false;
        inner.taken = None;
        inner.last_settings = None;
    }

    fn stop(&self) {
        let mut inner = self.0.borrow_mut();
        if let Some(w) = inner.worker.take() {
            w.set_onmessage(None);
            w.set_onerror(None);
            w.terminate();
        }
        inner.pending = None;
        inner.busy = false;
    }

    /// Drops the worker (after a crash) and starts another; the next job sends every text.
    pub fn restart(&self) {
        self.stop();
        self.0.borrow_mut().closures.clear();
        self.start();
    }

    /// The worker could not start before its first answer: the engine moves to this thread.
    fn fall_back(&self, why: &str) {
        web_sys::console::warn_1(&JsValue::from_str(&format!("crdlab: the engine runs on the page's thread ({})", why)));
        let pending = self.0.borrow_mut().pending.take();
        self.stop();
        {
            let mut inner = self.0.borrow_mut();
            inner.local = Some(Rc::default());
            inner.sent_crd = None;
        }
        if let Some(p) = pending {
            self.submit(p);
        }
    }

    fn failed(&self, text: String) {
        let ready = self.0.borrow().ready;
        if ready {
            let cb = self.0.borrow().on_event.clone();
            cb.emit(Event::Crashed(text));
        } else {
            self.fall_back(&text);
        }
    }

    fn message(&self, data: JsValue) {
        if let Some(p) = get_str(&data, "panic") {
            // The trap follows: the worker is dropped, whatever it still sends.
            self.stop();
            let cb = self.0.borrow().on_event.clone();
            cb.emit(Event::Crashed(p));
            return;
        }
        if let Some(f) = get_str(&data, "failed") {
            self.fall_back(&f);
            return;
        }
        if js_sys::Reflect::get(&data, &"ready".into()).ok().is_some_and(|v| v.is_truthy()) {
            self.0.borrow_mut().ready = true;
            self.send_pending();
            return;
        }
        if js_sys::Reflect::get(&data, &"resend".into()).ok().is_some_and(|v| v.is_truthy()) {
            let mut inner = self.0.borrow_mut();
            inner.sent_crd = None;
            inner.busy = false;
            // The newer job, if one waits, has the newer texts; else this one goes again.
            if inner.pending.is_none() {
                inner.pending = inner.in_worker.take();
            }
            drop(inner);
            self.send_pending();
            return;
        }
        let at = |key: &str| js_sys::Reflect::get(&data, &key.into()).ok().and_then(|v| v.as_f64());
        let seq = at("seq").map(|s| s as u64);
        // What the worker spent (for the benchmark), whichever way the answer came.
        for (key, kind) in [("engineMs", "worker-analysis"), ("writeMs", "answer-write")] {
            if let Some(ms) = at(key) {
                crate::record_timing(kind, ms);
            }
        }
        if seq.is_some() && seq <= self.0.borrow().taken {
            // Taken from the mailbox while the page waited for it. Messages come in the
            // order of the jobs and a job is posted only after the previous answer was
            // taken, so every message up to the last answer taken is one of those.
            return;
        }
        let json = if js_sys::Reflect::get(&data, &"mailed".into()).ok().is_some_and(|v| v.is_truthy()) {
            let mailbox = self.0.borrow().mailbox.clone();
            match mailbox.zip(seq).map(|(m, seq)| m.take(seq)) {
                Some(Mail::Answer(json)) => json,
                _ => {
                    web_sys::console::error_1(&JsValue::from_str("crdlab: the engine's answer is not in its mailbox"));
                    return;
                }
            }
        } else {
            let Some(json) = get_str(&data, "answer") else { return };
            json
        };
        // The two legs of the round trip (the benchmark's diagnosis of the time outside the
        // analysis): page → worker, worker → page.
        let arrived = wall_now();
        if let (Some(received), Some(posted)) = (at("receivedAt"), at("postedAt")) {
            crate::record_timing("to-worker", received - self.0.borrow().sent_wall);
            crate::record_timing("from-worker", arrived - posted);
        }
        self.deliver(&json, get_str(&data, "crd"));
    }

    /// Waits (a few milliseconds at most) for the worker to leave the answer to `seq` in the
    /// mailbox, and delivers it; else the message will.
    fn wait_for_mail(&self, seq: u64) {
        // Still this job in this worker (not restarted, not answered by a message); nothing
        // else runs on this thread while it waits, so that holds for the whole wait.
        let mailbox = {
            let inner = self.0.borrow();
            let current = inner.busy && inner.in_worker.as_ref().is_some_and(|p| p.job.seq == seq);
            match (&inner.mailbox, current) {
                (Some(m), true) => m.clone(),
                _ => return,
            }
        };
        let t0 = now();
        loop {
            match mailbox.take(seq) {
                Mail::NotYet if now() - t0 < MAILBOX_WAIT_MS => continue,
                Mail::NotYet | Mail::InMessage => {
                    crate::record_timing("mailbox-missed", now() - t0);
                    return;
                }
                Mail::Answer(json) => {
                    crate::record_timing("mailbox-wait", now() - t0);
                    self.0.borrow_mut().taken = Some(seq);
                    self.deliver(&json, None);
                    return;
                }
            }
        }
    }

    /// Reads an answer (with the CRD text its rule edits made) and tells the app.
    fn deliver(&self, json: &str, crd: Option<String>) {
        let ms = now() - self.0.borrow().sent_at;
        self.0.borrow_mut().busy = false;
        let crd = crd.map(|text| {
            let answered = self.0.borrow().in_worker.as_ref().map(|p| (p.job.seq, p.crd.clone()));
            let (seq, base) = answered.unzip();
            self.rules_edited(text, seq.unwrap_or(0), base)
        });
        // The next job goes first: the worker works while this thread renders.
        let fresh = self.0.borrow().pending.is_none();
        self.send_pending();
        let t0 = now();
        let read = serde_json::from_str::<Answer>(json);
        crate::record_timing("answer-read", now() - t0);
        crate::record_timing("answer-bytes", json.len() as f64);
        match read {
            Ok(answer) => {
                let cb = self.0.borrow().on_event.clone();
                cb.emit(Event::Answer { answer: Box::new(answer), crd, fresh, ms });
            }
            Err(e) => web_sys::console::error_1(&JsValue::from_str(&format!("crdlab: unreadable answer: {}", e))),
        }
    }

    /// Asks for an analysis: sent now when the engine is idle, else kept as the next job
    /// (replacing the one kept before, whose rule edits and requests it takes over).
    pub fn submit(&self, mut p: Pending) {
        {
            let mut inner = self.0.borrow_mut();
            if let Some(old) = inner.pending.take() {
                let mut edits = old.job.edits;
                edits.append(&mut p.job.edits);
                p.job.edits = edits;
                p.job.matrix |= old.job.matrix;
            p.job.rules_pane |= old.job.rules_pane;
                p.job.panic = p.job.panic.or(old.job.panic);
            }
            inner.pending = Some(p);
        }
        self.send_pending();
    }

    fn send_pending(&self) {
        let mut inner = self.0.borrow_mut();
        if inner.busy || (inner.local.is_none() && !inner.ready) {
            return;
        }
        let Some(mut p) = inner.pending.take() else { return };
        inner.busy = true;
        inner.sent_at = now();
        inner.sent_wall = wall_now();
        // The CRD text only when the worker does not hold it: a large text the worker holds
        // an earlier version of goes as the change between the two.
        let crd = match &inner.sent_crd {
            Some(s) if crate::same_text(s, &p.crd) => None,
            _ => Some(p.crd.clone()),
        };
        let change = match (&crd, &inner.sent_crd) {
            (Some(new), Some(old)) if inner.local.is_none() && new.len() >= CHANGE_FROM => TextChange::between(inner.sent_crd_seq, old, new),
            _ => None,
        };
        if crd.is_some() {
            inner.sent_crd_seq = p.job.seq;
        }
        // Rule edits change the text in the engine: it is known again with their answer
        // ([`Client::rules_edited`]).
        inner.sent_crd = p.job.edits.is_empty().then(|| p.crd.clone());
        if inner.local.is_none() {
            inner.in_worker = Some(p.clone());
        }
        if let Some(engine) = inner.local.clone() {
            let me = self.clone();
            drop(inner);
            // After the event that asked, as an answer from a worker would come.
            gloo_timers::callback::Timeout::new(0, move || {
                let t0 = now();
                let job = std::mem::take(&mut p.job);
                let suite_settings = job.suite.then(|| job.settings.clone());
                let seq = job.seq;
                let (mut answer, crd) = engine.borrow_mut().handle(job, crd.map(|c| c.to_string()), &p.object, &p.old_object, &p.old_crd);
                if let Some(settings) = suite_settings {
                    engine.borrow().run_suite(&mut answer, &p.suite, &settings);
                }
                me.0.borrow_mut().busy = false;
                let crd = crd.map(|text| me.rules_edited(text, seq, Some(p.crd.clone())));
                let fresh = me.0.borrow().pending.is_none();
                let cb = me.0.borrow().on_event.clone();
                cb.emit(Event::Answer { answer: Box::new(answer), crd, fresh, ms: now() - t0 });
                me.send_pending();
            })
            .forget();
            return;
        }
        // A job that reuses the compiled CRD: the page waits for its answer in the mailbox.
        let same_settings = inner.last_settings.as_ref() == Some(&p.job.settings);
        let wait = inner.mailbox.is_some() && same_settings && crd.is_none() && change.is_none() && p.job.edits.is_empty() && !p.job.matrix;
        inner.last_settings = Some(p.job.settings.clone());
        let msg = js_sys::Object::new();
        if let (Some(m), false) = (&inner.mailbox, inner.mailbox_posted) {
            set(&msg, "mailbox", &m.buffer);
            inner.mailbox_posted = true;
        }
        set(&msg, "job", &JsValue::from_str(&serde_json::to_string(&p.job).unwrap_or_default()));
        // The editors' own JS strings where the texts are the ones they reported.
        let js = |t: &AttrValue| crate::editor::js_string(t).unwrap_or_else(|| JsValue::from_str(t));
        match (change, crd) {
            (Some(change), _) => change.write(&msg),
            (None, Some(c)) => set(&msg, "crd", &js(&c)),
            (None, None) => {}
        }
        set(&msg, "object", &js(&p.object));
        set(&msg, "oldObject", &js(&p.old_object));
        if p.job.diff {
            set(&msg, "oldCrd", &js(&p.old_crd));
        }
        if p.job.suite {
            set(&msg, "suite", &js(&p.suite));
        }
        if let Some(w) = &inner.worker {
            if let Err(e) = w.post_message(&msg) {
                web_sys::console::error_2(&JsValue::from_str("crdlab: could not post to the engine worker"), &e);
                return;
            }
        }
        if wait {
            // After the event that asked (the app's update ends first), before the frame.
            let me = self.clone();
            let seq = p.job.seq;
            drop(inner);
            let task = Closure::once_into_js(move || me.wait_for_mail(seq));
            let queued = js_sys::Reflect::get(&js_sys::global(), &"queueMicrotask".into())
                .ok()
                .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
                .map(|f| f.call1(&JsValue::NULL, &task));
            if !matches!(queued, Some(Ok(_))) {
                web_sys::console::warn_1(&JsValue::from_str("crdlab: no queueMicrotask; answers come by message"));
            }
        }
    }

    /// The answered job `seq`, asked with the CRD text `base`, made rule edits: the engine
    /// holds their `text` now. A job asked meanwhile (the version matrix's, say) carries
    /// `base` too; it goes with `text` instead, which the app is about to show — sent as it
    /// was, it would put the rules back as they were before the edit, in the engine and in
    /// every answer after it, while the editor shows them edited.
    fn rules_edited(&self, text: String, seq: u64, base: Option<AttrValue>) -> AttrValue {
        let text = AttrValue::from(text);
        let mut inner = self.0.borrow_mut();
        inner.sent_crd = Some(text.clone());
        inner.sent_crd_seq = seq;
        if let (Some(waiting), Some(base)) = (inner.pending.as_mut(), base) {
            if crate::same_text(&waiting.crd, &base) {
                waiting.crd = text.clone();
            }
        }
        text
    }

    /// Forgets the local engine's answers too (after a crash).
    pub fn reset_local(&self) {
        if let Some(l) = &self.0.borrow().local {
            if let Ok(mut l) = l.try_borrow_mut() {
                l.reset();
            }
        }
    }
}
