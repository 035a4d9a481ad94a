//! A code editor: the CodeMirror 6 bundle of `web/editor/` (`window.CrdlabEditor`), driven
//! from Yew. The editor owns its text while the user types; the component pushes a new text
//! only when the props differ from what the editor holds (an example loaded, a rule edited
//! in the rules panel), so typing never fights the cursor. The editor reports what each edit
//! changed, which is applied to the text it holds ([`Held`]): its whole text is read out of
//! JavaScript only when that is not known here (megabytes, for a big CRD: 15 to 25 ms a
//! keystroke). The text is kept as the shared string the component hands out: when the app
//! hands that string back, the editor knows it holds it.

use crdlab::text::source_map::Range;
use crdlab::text::utf16::Change;
use wasm_bindgen::prelude::*;
use web_sys::Element;
use yew::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// A CodeMirror editor handle.
    pub type Handle;

    #[wasm_bindgen(js_namespace = CrdlabEditor, js_name = create, catch)]
    fn create_editor(parent: &Element, opts: &JsValue) -> Result<Handle, JsValue>;
    #[wasm_bindgen(method, js_name = getDoc)]
    fn get_doc(this: &Handle) -> String;
    #[wasm_bindgen(method, js_name = setDoc)]
    fn set_doc(this: &Handle, text: &str);
    #[wasm_bindgen(method, js_name = setDiagnostics)]
    fn set_diagnostics(this: &Handle, list: &JsValue);
    #[wasm_bindgen(method, js_name = setTheme)]
    fn set_theme(this: &Handle, dark: bool);
    #[wasm_bindgen(method, js_name = revealLine)]
    pub fn reveal_line(this: &Handle, line: u32, column: u32);
    #[wasm_bindgen(method)]
    pub fn focus(this: &Handle);
    #[wasm_bindgen(method)]
    fn destroy(this: &Handle);
}

/// One underline.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Mark {
    pub start_line: u32,
    pub start_column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub severity: &'static str,
    pub message: String,
}

impl Mark {
    pub fn new(r: &Range, severity: &'static str, message: impl Into<String>) -> Mark {
        Mark {
            start_line: r.start_line,
            start_column: r.start_column,
            end_line: r.end_line,
            end_column: r.end_column,
            severity,
            message: message.into(),
        }
    }
}

#[derive(Properties)]
pub struct Props {
    pub value: AttrValue,
    pub on_change: Callback<AttrValue>,
    pub testid: AttrValue,
    pub label: AttrValue,
    #[prop_or(AttrValue::Static("auto"))]
    pub language: AttrValue,
    #[prop_or_default]
    pub marks: Vec<Mark>,
    #[prop_or_default]
    pub dark: bool,
    #[prop_or_default]
    pub single_line: bool,
    #[prop_or_default]
    pub class: Classes,
    /// Receives the handle once created (to focus or reveal lines from elsewhere).
    #[prop_or_default]
    pub on_ready: Option<Callback<std::rc::Rc<Handle>>>,
}

impl PartialEq for Props {
    fn eq(&self, o: &Props) -> bool {
        crate::same_text(&self.value, &o.value)
            && self.on_change == o.on_change
            && self.testid == o.testid
            && self.label == o.label
            && self.language == o.language
            && self.marks == o.marks
            && self.dark == o.dark
            && self.single_line == o.single_line
            && self.class == o.class
            && self.on_ready == o.on_ready
    }
}

pub struct Editor {
    host: NodeRef,
    handle: Option<std::rc::Rc<Handle>>,
    /// The text the editor holds, as the app knows it.
    held: std::rc::Rc<std::cell::RefCell<Option<Held>>>,
    // Keeps the change callback alive as long as the editor.
    _on_change: Option<Closure<dyn Fn(JsValue, JsValue, JsValue)>>,
    error: Option<String>,
}

/// The text an editor holds (what it reported last, or what the app pushed into it), with its
/// length in UTF-16 units: the editor's next edit is applied to it rather than read whole.
struct Held {
    text: AttrValue,
    units: usize,
}

impl Held {
    /// What the editor holds after the app pushed `text` into it, when that is `text` itself:
    /// not in a single-line editor or with a carriage return (the editor changes those).
    fn pushed(text: &AttrValue, single_line: bool) -> Option<Held> {
        (!single_line && !text.as_bytes().contains(&b'\r')).then(|| Held { text: text.clone(), units: text.encode_utf16().count() })
    }

    /// The text after an edit the editor reported as `changes` (`from, to, inserted`, ...),
    /// `length` UTF-16 units long; `None` when they do not fit this text.
    fn after(&self, changes: &JsValue, length: &JsValue) -> Option<Held> {
        let list = changes.dyn_ref::<js_sys::Array>()?;
        let n = list.length();
        if n % 3 != 0 {
            return None;
        }
        let position = |i: u32| list.get(i).as_f64().filter(|x| *x >= 0.0 && x.fract() == 0.0).map(|x| x as usize);
        let mut inserted = Vec::with_capacity(n as usize / 3);
        for i in (0..n).step_by(3) {
            let js = list.get(i + 2);
            let units = js.dyn_ref::<js_sys::JsString>()?.length() as usize;
            inserted.push((position(i)?, position(i + 1)?, crate::js_text(&js)?, units));
        }
        let changes: Vec<Change<'_>> = inserted.iter().map(|(from, to, text, units)| Change { from: *from, to: *to, insert: text, insert_units: *units }).collect();
        let (text, units) = crdlab::text::utf16::apply(&self.text, self.units, &changes)?;
        (length.as_f64() == Some(units as f64)).then(|| Held { text: text.into(), units })
    }
}

thread_local! {
    /// The JS strings of the last texts the editors reported, with the shared strings made of
    /// them: sending one of these texts to the engine worker posts the JS string as it is.
    static REPORTED_JS: std::cell::RefCell<Vec<(AttrValue, JsValue)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// How many reported texts [`js_string`] remembers (one per editor, a few editors).
const REPORTED_KEPT: usize = 4;

fn remember_js(doc: &AttrValue, js: JsValue) {
    REPORTED_JS.with(|r| {
        if let Ok(mut r) = r.try_borrow_mut() {
            if r.len() >= REPORTED_KEPT {
                r.remove(0);
            }
            r.push((doc.clone(), js));
        }
    });
}

/// The JS string an editor reported, when `text` is the very string made of it (compared by
/// address, never by content): posting it copies nothing through the wasm memory.
pub fn js_string(text: &AttrValue) -> Option<JsValue> {
    let AttrValue::Rc(t) = text else { return None };
    REPORTED_JS.with(|r| {
        r.try_borrow().ok()?.iter().find_map(|(d, js)| match d {
            AttrValue::Rc(d) if std::rc::Rc::ptr_eq(d, t) => Some(js.clone()),
            _ => None,
        })
    })
}

fn to_js<T: serde::Serialize>(v: &T) -> JsValue {
    serde_wasm_bindgen::to_value(v).unwrap_or(JsValue::NULL)
}

impl Component for Editor {
    type Message = ();
    type Properties = Props;

    fn create(_ctx: &Context<Self>) -> Self {
        Editor { host: NodeRef::default(), handle: None, held: Default::default(), _on_change: None, error: None }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let p = ctx.props();
        let class = classes!("editor", p.single_line.then_some("single-line"), p.class.clone());
        html! {
            <div class={class}>
                <div class="editor-host" ref={self.host.clone()} />
                if let Some(e) = &self.error {
                    // The bundle did not load: say so rather than show an empty box.
                    <p class="editor-error" role="alert">{ format!("the code editor could not start: {}", e) }</p>
                }
            </div>
        }
    }

    fn rendered(&mut self, ctx: &Context<Self>, first: bool) {
        if !first {
            return;
        }
        let p = ctx.props();
        let Some(host) = self.host.cast::<Element>() else { return };
        let cb = p.on_change.clone();
        let held = self.held.clone();
        *held.borrow_mut() = Held::pushed(&p.value, p.single_line);
        let closure = Closure::<dyn Fn(JsValue, JsValue, JsValue)>::new(move |changes: JsValue, length: JsValue, doc: JsValue| {
            let after = held.try_borrow().ok().and_then(|h| h.as_ref()?.after(&changes, &length));
            let now = after.unwrap_or_else(|| {
                // Not an edit of the text known here: the editor's whole text.
                let js = doc.dyn_ref::<js_sys::Function>().and_then(|f| f.call0(&JsValue::NULL).ok()).unwrap_or(JsValue::UNDEFINED);
                let units = js.dyn_ref::<js_sys::JsString>().map_or(0, |s| s.length() as usize);
                let text = AttrValue::from(crate::js_text(&js).unwrap_or_default());
                remember_js(&text, js);
                Held { text, units }
            });
            let text = now.text.clone();
            if let Ok(mut h) = held.try_borrow_mut() {
                *h = Some(now);
            }
            cb.emit(text)
        });
        let opts = js_sys::Object::new();
        let set = |k: &str, v: JsValue| {
            let _ = js_sys::Reflect::set(&opts, &JsValue::from_str(k), &v);
        };
        set("doc", JsValue::from_str(&p.value));
        set("language", JsValue::from_str(&p.language));
        set("testid", JsValue::from_str(&p.testid));
        set("label", JsValue::from_str(&p.label));
        set("dark", JsValue::from_bool(p.dark));
        set("singleLine", JsValue::from_bool(p.single_line));
        set("onChanges", closure.as_ref().clone());
        match create_editor(&host, &opts) {
            Ok(h) => {
                let h = std::rc::Rc::new(h);
                if !p.marks.is_empty() {
                    h.set_diagnostics(&to_js(&p.marks));
                }
                if let Some(r) = &p.on_ready {
                    r.emit(h.clone());
                }
                self.handle = Some(h);
                self._on_change = Some(closure);
            }
            Err(e) => {
                self.error = Some(e.as_string().unwrap_or_else(|| "CrdlabEditor is missing".into()));
                ctx.link().send_message(());
            }
        }
    }

    fn update(&mut self, _ctx: &Context<Self>, _msg: ()) -> bool {
        true
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &Props) -> bool {
        let p = ctx.props();
        if let Some(h) = &self.handle {
            let held = self.held.try_borrow().is_ok_and(|r| r.as_ref().is_some_and(|r| crate::same_text(&r.text, &p.value)));
            if !crate::same_text(&p.value, &old.value) && !held {
                if h.get_doc() != p.value.as_str() {
                    h.set_doc(&p.value);
                }
                if let Ok(mut r) = self.held.try_borrow_mut() {
                    *r = Held::pushed(&p.value, p.single_line);
                }
            }
            if p.marks != old.marks {
                h.set_diagnostics(&to_js(&p.marks));
            }
            if p.dark != old.dark {
                h.set_theme(p.dark);
            }
        }
        // The host element never changes; CodeMirror renders inside it.
        self.error.is_some()
    }

    fn destroy(&mut self, _ctx: &Context<Self>) {
        if let Some(h) = self.handle.take() {
            h.destroy();
        }
    }
}
