//! Recovery from a panic. The playground is itself the wasm module, and in WebAssembly a
//! panic aborts it: the page would stop answering. The hook installed here (after Yew's, which
//! logs the panic on the console and which it calls first) saves the workspace, as the share
//! link carries it ([`share::encode`]), and the panic's text to `sessionStorage`, then reloads
//! the page. On start, [`take_record`] gives them back: the app restores the texts, shows a
//! banner, and analyses nothing until the next edit (or "Try again"), so that a workspace that
//! makes the engine panic cannot reload the page in a loop. A second panic before any edit
//! does not reload either: the page says so and stops.
//!
//! The engine itself runs in a worker ([`crate::worker`]): a panic there only ends the worker,
//! which the app replaces, showing the same banner without reloading the page. The hook here
//! covers the page's own thread (rendering, the diff tab).

use crdlab::view::share::{self, State};
use crdlab::view::Settings;
use std::cell::{Cell, RefCell};
use wasm_bindgen::prelude::*;
use yew::AttrValue;

/// The `sessionStorage` key of the record (this tab only; removed when read).
const KEY: &str = "crdlab-crash";

/// What the share link carries, held as the app's shared strings: refreshing it at every
/// change copies no text; it is encoded only when a panic happens.
pub struct Snapshot {
    pub crd: AttrValue,
    pub object: AttrValue,
    pub old_object: AttrValue,
    pub old_crd: AttrValue,
    pub suite: AttrValue,
    pub settings: Settings,
    pub tab: &'static str,
}

impl Snapshot {
    fn state(&self) -> State {
        State {
            crd: self.crd.to_string(),
            object: self.object.to_string(),
            old_object: self.old_object.to_string(),
            old_crd: self.old_crd.to_string(),
            settings: self.settings.clone(),
            tab: self.tab.to_string(),
            suite: self.suite.to_string(),
        }
    }
}

thread_local! {
    static WORKSPACE: RefCell<Option<Snapshot>> = const { RefCell::new(None) };
    /// A restored workspace that nothing has analysed yet: a panic now is not the workspace's.
    static UNTOUCHED: Cell<bool> = const { Cell::new(false) };
    /// Armed by [`panic_on_next_analysis`].
    static FORCED: Cell<Option<String>> = const { Cell::new(None) };
}

/// Keeps the workspace a panic would save (a `try_borrow`: never panics itself).
pub fn remember(s: Snapshot) {
    WORKSPACE.with(|w| {
        if let Ok(mut w) = w.try_borrow_mut() {
            *w = Some(s);
        }
    });
}

/// Whether the app is showing a restored workspace that it has not analysed since.
pub fn set_untouched(on: bool) {
    UNTOUCHED.with(|u| u.set(on));
}

/// Makes the next analysis panic with `message` (in the engine worker: the job carries it).
/// Exists only so that the browser tests can force the recovery path (`window.wasmBindings.__crdlabPanicOnNextAnalysis`); no part of the
/// playground calls it.
#[doc(hidden)]
#[wasm_bindgen(js_name = __crdlabPanicOnNextAnalysis)]
pub fn panic_on_next_analysis(message: String) {
    FORCED.with(|f| f.set(Some(message)));
}

/// Panics at once, wherever the app is (outside an analysis). Exists only so that the browser
/// tests can check that a panic before any edit after a restart does not reload in a loop.
#[doc(hidden)]
#[wasm_bindgen(js_name = __crdlabPanicNow)]
pub fn panic_now(message: String) {
    panic!("{}", message);
}

/// The panic the test hook armed, if any: the next analysis job carries it to the engine
/// worker, which panics with it as the analysis starts.
pub fn take_forced() -> Option<String> {
    FORCED.with(|f| f.take())
}

/// Chains the recovery onto the hook in place (Yew's console hook: call after rendering).
pub fn install() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        previous(info);
        recover(&info.to_string());
    }));
}

fn recover(panic: &str) {
    let text = crdlab::view::policy::panic_text(panic);
    let Some(window) = web_sys::window() else { return };
    let fragment = WORKSPACE.with(|w| w.try_borrow().ok().and_then(|w| w.as_ref().map(|s| share::encode(&s.state()))));
    if let Ok(Some(storage)) = window.session_storage() {
        let record = serde_json::json!({ "panic": text, "fragment": fragment });
        // Over the storage quota: the panic alone.
        if storage.set_item(KEY, &record.to_string()).is_err() {
            let _ = storage.set_item(KEY, &serde_json::json!({ "panic": text }).to_string());
        }
    }
    if UNTOUCHED.with(|u| u.get()) {
        // It crashed again before anything was analysed: reloading could loop.
        if let Some((doc, body)) = window.document().and_then(|d| d.body().map(|b| (d, b))) {
            if let Ok(p) = doc.create_element("p") {
                p.set_class_name("notice");
                let _ = p.set_attribute("role", "alert");
                let _ = p.set_attribute("data-testid", "crash-fatal");
                p.set_text_content(Some(&format!("crdlab hit an internal error again and stopped; reload the page to try again: {}", text)));
                let _ = body.insert_adjacent_element("afterbegin", &p);
            }
        }
        return;
    }
    let _ = window.location().reload();
}

/// What a panic saved, removed from the storage: the workspace (when it could be kept) and the
/// panic's text.
pub fn take_record() -> Option<(Option<State>, String)> {
    let storage = web_sys::window()?.session_storage().ok()??;
    let raw = storage.get_item(KEY).ok()??;
    let _ = storage.remove_item(KEY);
    let record: serde_json::Value = serde_json::from_str(&raw).ok()?;
    let panic = record.get("panic").and_then(|p| p.as_str()).unwrap_or("").to_string();
    let state = record
        .get("fragment")
        .and_then(|f| f.as_str())
        .and_then(|f| share::decode(f).ok().flatten());
    Some((state, panic))
}
