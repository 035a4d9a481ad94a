//! The npm package `crdlab`: the engine as a WebAssembly module, for editors and docs pages
//! (feature `wasm`; built by `engine/npm/build.sh` with wasm-pack for the `web`, `bundler`
//! and `nodejs` targets).
//!
//! - [`validate`]: one `crdlab batch` request in, its answer out (with positions);
//! - [`compile`]: a [`CompiledCrdHandle`] (`CompiledCrd` in JS) to validate many objects
//!   against without recompiling (an editor revalidating per keystroke);
//! - [`evaluate`]: expression mode; [`compile_expression`]: an [`ExpressionHandle`]
//!   (`Expression` in JS) to evaluate many times without re-compiling; [`version`];
//! - [`run_suite`]: a CRD test suite (`crdlab test`'s format) run against a CRD, answered
//!   with `crdlab test -o json`'s report.
//!
//! Every error, warning, compile error and rule carries, where it came from text, the range
//! to underline ([`crate::text::source_map::Range`]: 1-based lines, 1-based UTF-16 columns, UTF-16
//! offsets); the answers are built in [`crate::text::positions`]. Documents cross the boundary as
//! JSON (text, or an object through `JSON.stringify`, then the engine's depth-limited
//! reader), so a hostile object cannot exhaust the wasm stack; options cross with
//! serde-wasm-bindgen. Failures are thrown as JS `Error`s (with `input`, and `line`,
//! `column`, `range` when the failure has a place in a text); nothing here unwraps data,
//! since a panic would abort the module. One that happens anyway (a bug) is the last line's
//! business: the panic hook keeps its text ([`last_panic`]), and the package's JavaScript
//! layer (engine/npm/wrap/, around wasm-bindgen's glue) re-creates the module and throws it
//! as `CrdlabInternalError`.

use crate::crd::CompiledVersion;
use crate::text::positions::{self, Source};
use crate::view::diagnostics::{Diagnostic, Rule};
use crate::wire::annotated::{AnnotatedAnswer, EvalResult};
use crate::engine::Engine;
use crate::wire::batch::Request;
use crate::strategy;
use crate::version::KubeVersion;
use crate::text::source_map::Range;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;
use tsify::Tsify;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A CRD or an object: YAML or JSON text (answers then carry ranges), or a parsed object. */
export type Document = string | { [key: string]: JsonValue };
/** One breaking-change finding (crdify's check names, fields and messages). */
export interface DiffFinding {
  validator: "crd" | "sameVersion" | "servedVersion";
  check: string;
  /** The version, "v1 -> v2" for a served pair, null for whole-CRD checks. */
  version: string | null;
  /** crdify's property path (`^.spec.mode`), null for whole-CRD checks. */
  field: string | null;
  severity: "error" | "warning";
  message: string;
  /** Whether validation ratcheting (1.30+) softens the finding. */
  ratcheting: "softened" | "notSoftened" | "notApplicable";
  /** Sample objects concerned, when objects were given. */
  objects?: string[];
}
/** A rule's lowest Kubernetes version, and why not below it. */
export interface RuleVersionRow { crdVersion: string; schemaPath: string; rule: string; lowestVersion: string | null; reason: string; }
/** A bound that brings an over-budget rule under the per-rule limit. */
export interface BoundFix { field: string; pointer: string; keyword: string; value: number; estimatedCost: number; }
/** Why a rule costs what it costs. Costs above 2^53 lose precision in JavaScript numbers. */
export interface RuleCostExplanation {
  schemaPath: string; field: string; rule: string; error?: string;
  maxCost: number; maxCardinality: number; estimatedCost: number; sharePercent: number;
  messageExpressionCost?: number; overLimit: boolean;
  cardinality: { factor: number; ancestors: { field: string; keyword: string; bound: number | null }[]; unbounded: boolean };
  breakdown: { expression: string; description: string; maxCost: number; loopDepth: number }[];
  schemaNodes: { celPath: string; field: string; kind: string; keyword: string; bound: number | null; estimatedMaxSize: number }[];
  fixes: BoundFix[]; combinedFix?: BoundFix[];
}
/** The cost explanation of one CRD version. */
export interface CostExplanation {
  crd: string; version: string; kubernetesVersion: string; rules: RuleCostExplanation[];
  total: number; perRuleLimit: number; perCrdLimit: number; totalSharePercent: number;
}
/** Options of `runSuite`: one release, or several (`["1.30", "1.37"]`, `"1.29-1.32"`, `"all"`); default the latest. */
export interface RunSuiteOptions { kubernetesVersion?: string; kubernetesVersions?: string | string[]; }
/** Why a test failed on a release: the step, what was expected, what the apiserver answered. */
export interface SuiteFailure { step: string; summary: string; expected: string | null; actual: string | null; diff: string[]; text: string; }
/** One test (× CRD file) of a suite, with its verdict on each release. */
export interface SuiteCase {
  name: string; kind: "onCreate" | "onUpdate" | "expectedCost"; line: number; crdFile: string; passed: boolean;
  results: { kubernetesVersion: string; status: "pass" | "fail" | "skip"; warnings?: string[]; failure?: SuiteFailure }[];
}
/** What `runSuite` answers: the report of `crdlab test -o json`. */
export interface SuiteRunReport {
  kubernetesVersions: string[];
  summary: { suites: number; tests: number; passed: number; failed: number; suiteErrors: number; seconds: number };
  suites: { file: string; name: string; error: string | null; cases: SuiteCase[] }[];
}
/** What `diff` answers. */
export interface DiffReport {
  breaking: boolean;
  findings: DiffFinding[];
  notes?: string[];
}
"#;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(s: &str);

    // The arguments' TypeScript types (declared by tsify below); values are read by hand so
    // that a bad argument becomes a thrown `Error`, never a trap.
    #[wasm_bindgen(typescript_type = "Document")]
    pub type DocumentArg;
    #[wasm_bindgen(typescript_type = "ValidateRequest")]
    pub type ValidateRequestArg;
    #[wasm_bindgen(typescript_type = "CompileOptions")]
    pub type CompileOptionsArg;
    #[wasm_bindgen(typescript_type = "ValidateOptions")]
    pub type ValidateOptionsArg;
    #[wasm_bindgen(typescript_type = "EvaluateOptions")]
    pub type EvaluateOptionsArg;
    #[wasm_bindgen(typescript_type = "Record<string, JsonValue>")]
    pub type VarsArg;
    #[wasm_bindgen(typescript_type = "RunSuiteOptions")]
    pub type RunSuiteOptionsArg;
    /// YAML text (checked by hand: a number would otherwise be a trap-free but unclear error).
    #[wasm_bindgen(typescript_type = "string")]
    pub type SuiteTextArg;
}

/// Reports a panic (a bug: it aborts the module) on the console, and keeps its text (where
/// and what) for the package's JavaScript layer, which reads it with [`last_panic`] after the
/// trap, re-creates the module and throws it as a `CrdlabInternalError`.
fn panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let text = crate::view::policy::panic_text(&info.to_string());
            console_error(&format!(
                "crdlab: internal error, the module cannot continue (please report it): {}",
                text
            ));
            LAST_PANIC.with(|p| p.set(Some(text)));
        }))
    });
}

thread_local! {
    /// The text of the panic that aborted the module (a `Cell`, not a `RefCell`: the trap may
    /// leave any borrow open, and this is read on the dead instance).
    static LAST_PANIC: std::cell::Cell<Option<String>> = const { std::cell::Cell::new(None) };
    /// Armed by [`panic_on_next_call`]: the next entry point panics with this text.
    static PANIC_ON_NEXT_CALL: std::cell::Cell<Option<String>> = const { std::cell::Cell::new(None) };
}

/// The text of the panic that aborted this instance (`panicked at FILE:LINE:COL:\nMESSAGE`),
/// if one did. Read by the package's JavaScript layer after a trap; not part of the API.
#[doc(hidden)]
#[wasm_bindgen(js_name = __crdlabLastPanic, skip_typescript)]
pub fn last_panic() -> Option<String> {
    LAST_PANIC.with(|p| {
        let text = p.take();
        p.set(text.clone());
        text
    })
}

/// Makes the next call of the API panic with `message`. Exists only so that the package's
/// recovery from a panic (a bug in the engine: the module is re-created and the call throws
/// `CrdlabInternalError`) can be tested; not part of the API.
#[doc(hidden)]
#[wasm_bindgen(js_name = __crdlabPanicOnNextCall, skip_typescript)]
pub fn panic_on_next_call(message: String) {
    PANIC_ON_NEXT_CALL.with(|p| p.set(Some(message)));
}

thread_local! {
    /// A call is running: set on entry, cleared when it returns (normally or with an error).
    static IN_CALL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// An earlier call never returned.
    static UNUSABLE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Held by every entry point while it runs.
struct Call;

impl Drop for Call {
    fn drop(&mut self) {
        IN_CALL.with(|c| c.set(false));
    }
}

/// Every entry point starts here. A call that never returned was unwound by the JavaScript
/// engine itself (its stack overflowed: the call came from deep recursion, or an input was
/// nested deeper than the engine's stack allows), skipping the module's own clean-up, so its
/// state cannot be trusted any more: later calls throw a clear error instead of running on it.
fn enter() -> Result<Call, JsValue> {
    panic_hook();
    if IN_CALL.with(|c| c.replace(true)) {
        UNUSABLE.with(|u| u.set(true));
    }
    if UNUSABLE.with(|u| u.get()) {
        return Err(js_error(
            "crdlab: an earlier call ran out of the JavaScript engine's stack (it was made from deep recursion, or an input was nested too deeply) and this instance of the module cannot be used any more; load it again",
            "module",
            None,
        ));
    }
    if let Some(message) = PANIC_ON_NEXT_CALL.with(|p| p.take()) {
        panic!("{}", message);
    }
    Ok(Call)
}

// ---------------------------------------------------------------------------------------
// Types of the API (their TypeScript declarations are generated by tsify).

/// One request of `crdlab batch` (`shared/docs/vector-format.md`); `crdFile` is not
/// available in the browser.
#[derive(Tsify, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct ValidateRequest {
    /// Echoed in the answer.
    #[tsify(optional, type = "JsonValue")]
    id: Option<Value>,
    /// The CRD: YAML/JSON text, or an object.
    #[tsify(optional, type = "Document")]
    crd: Option<Value>,
    /// The CRD version to validate against (default: the storage version).
    #[tsify(optional)]
    version: Option<String>,
    /// `"1.25"` to `"1.37"` (`version().kubernetesVersions`; default: the latest).
    #[tsify(optional)]
    kubernetes_version: Option<String>,
    /// The object; absent: the CRD is only compiled.
    #[tsify(optional, type = "Document")]
    object: Option<Value>,
    /// The stored object: the request is an update.
    #[tsify(optional, type = "Document | null")]
    old_object: Option<Value>,
    /// `"status"`: a status-subresource update.
    #[tsify(optional, type = "\"status\" | \"\"")]
    subresource: Option<String>,
    /// Validation ratcheting on updates (default: the release's, on from 1.30; `true` needs 1.28+).
    #[tsify(optional)]
    ratcheting: Option<bool>,
    /// Apply what the apiserver does to a request first (default true).
    #[tsify(optional)]
    emulate_request: Option<bool>,
    /// Leave out `crdErrors`/`crdWarnings`.
    #[serde(rename = "skipCRDValidation")]
    #[tsify(optional)]
    skip_crd_validation: Option<bool>,
    /// `"eval"`: expression mode (`expr`, `vars`, `varTypes`).
    #[tsify(optional, type = "\"eval\"")]
    mode: Option<String>,
    #[tsify(optional)]
    expr: Option<String>,
    #[tsify(optional, type = "Record<string, JsonValue>")]
    vars: Option<Value>,
    /// CEL types of `vars` (`int`, `list(string)`, `map(string, int)`, ...; default `dyn`).
    #[tsify(optional, type = "Record<string, string>")]
    var_types: Option<Value>,
}

/// Options of [`compile`].
#[derive(Tsify, Default)]
#[serde(rename_all = "camelCase")]
pub struct CompileOptions {
    /// `"1.25"` to `"1.37"` (`version().kubernetesVersions`; default: the latest).
    #[tsify(optional)]
    kubernetes_version: Option<String>,
}

/// Options of `CompiledCrd.validate`.
#[derive(Tsify, Default)]
#[serde(rename_all = "camelCase")]
#[tsify(rename = "ValidateOptions")]
pub struct ObjectOptions {
    /// The CRD version (default: the storage version).
    #[tsify(optional)]
    version: Option<String>,
    /// `"status"`: a status-subresource update.
    #[tsify(optional, type = "\"status\" | \"\"")]
    subresource: Option<String>,
    /// Validation ratcheting on updates (default: the release's, on from 1.30; `true` needs 1.28+).
    #[tsify(optional)]
    ratcheting: Option<bool>,
    /// Apply what the apiserver does to a request first (default true).
    #[tsify(optional)]
    emulate_request: Option<bool>,
}

/// Options of [`evaluate`].
#[derive(Tsify, Default)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateOptions {
    /// CEL types of the variables (`int`, `list(string)`, ...; default `dyn`).
    #[tsify(optional, type = "Record<string, string>")]
    var_types: Option<BTreeMap<String, String>>,
    /// The release whose CEL environment compiles the expression (default: the latest).
    #[tsify(optional)]
    kubernetes_version: Option<String>,
}

/// What [`version`] answers.
#[derive(Tsify, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionInfo {
    /// The crdlab version.
    crdlab: String,
    /// The Kubernetes releases crdlab reproduces (`"1.25"` ...).
    kubernetes_versions: Vec<String>,
    /// The release used when a request names none.
    default_kubernetes_version: String,
}

// ---------------------------------------------------------------------------------------
// The boundary: errors, documents, answers.

/// A JS `Error` with `input` (which argument) and, when the failure has a place in a text,
/// `line`, `column` (1-based, UTF-16) and `range`.
fn js_error(message: &str, input: &str, range: Option<Range>) -> JsValue {
    let e = js_sys::Error::new(message);
    let set = |k: &str, v: JsValue| {
        let _ = js_sys::Reflect::set(&e, &JsValue::from_str(k), &v);
    };
    set("input", JsValue::from_str(input));
    if let Some(r) = range {
        set("line", JsValue::from(r.start_line));
        set("column", JsValue::from(r.start_column));
        if let Ok(v) = to_js(&r) {
            set("range", v);
        }
    }
    e.into()
}

/// The message of a thrown JS value (an `Error`'s `message`, else its string form).
fn js_message(v: &JsValue) -> String {
    if let Some(e) = v.dyn_ref::<js_sys::Error>() {
        return String::from(e.message());
    }
    v.as_string().unwrap_or_else(|| format!("{:?}", v))
}

/// A serializable answer as a plain JS object (through JSON: numbers as JavaScript reads
/// them, objects as objects).
fn to_js<T: Serialize>(v: &T) -> Result<JsValue, JsValue> {
    let s = serde_json::to_string(v).map_err(|e| {
        js_error(
            &format!("crdlab: cannot serialize the answer: {}", e),
            "answer",
            None,
        )
    })?;
    js_sys::JSON::parse(&s).map_err(|e| {
        js_error(
            &format!("crdlab: cannot serialize the answer: {}", js_message(&e)),
            "answer",
            None,
        )
    })
}

fn is_absent(v: &JsValue) -> bool {
    v.is_undefined() || v.is_null()
}

fn type_name(v: &JsValue) -> String {
    if js_sys::Array::is_array(v) {
        "an array".into()
    } else if v.is_null() {
        "null".into()
    } else {
        match v.js_typeof().as_string().as_deref() {
            Some("object") => "an object".into(),
            Some(t) => format!("a {}", t),
            None => "a value".into(),
        }
    }
}

/// A JS object or array as JSON, through `JSON.stringify` and the engine's reader (which
/// bounds the depth).
fn json_of(v: &JsValue, what: &str) -> Result<Value, JsValue> {
    let text = js_sys::JSON::stringify(v).map_err(|e| {
        js_error(
            &format!("{} cannot be converted to JSON: {}", what, js_message(&e)),
            what,
            None,
        )
    })?;
    let text = text.as_string().unwrap_or_default();
    crate::text::json::read_json(&text)
        .map_err(|e| js_error(&format!("{}: {}", what, e.message), what, None))
}

/// A document argument: text (kept for positions) or an object.
enum Doc {
    Text(String),
    Json(Value),
}

fn document(v: &JsValue, what: &str) -> Result<Doc, JsValue> {
    if let Some(s) = v.as_string() {
        return Ok(Doc::Text(s));
    }
    if v.is_object() && !js_sys::Array::is_array(v) {
        return Ok(Doc::Json(json_of(v, what)?));
    }
    Err(js_error(
        &format!(
            "{} must be YAML/JSON text or an object, not {}",
            what,
            type_name(v)
        ),
        what,
        None,
    ))
}

/// An options object, read by hand: a serde derive read through serde-wasm-bindgen costs
/// module size per options type, and these are a few optional strings and booleans. Keys
/// it does not know are ignored and `undefined`/`null` values are absent, as serde reads
/// them; a value of the wrong type is refused in serde's words.
struct Opts<'a> {
    obj: JsValue,
    what: &'a str,
}

/// Options types of the API, read from an [`Opts`].
trait FromOpts: Default {
    fn from_opts(o: &Opts) -> Result<Self, JsValue>;
}

impl Opts<'_> {
    fn get(&self, key: &str) -> Option<JsValue> {
        js_sys::Reflect::get(&self.obj, &JsValue::from_str(key)).ok().filter(|v| !is_absent(v))
    }

    fn invalid(&self, v: &JsValue, expected: &str) -> JsValue {
        js_error(&format!("{}: invalid type: {}, expected {}", self.what, unexpected(v), expected), self.what, None)
    }

    fn string(&self, key: &str) -> Result<Option<String>, JsValue> {
        self.get(key).map(|v| v.as_string().ok_or_else(|| self.invalid(&v, "a string"))).transpose()
    }

    fn bool(&self, key: &str) -> Result<Option<bool>, JsValue> {
        self.get(key).map(|v| v.as_bool().ok_or_else(|| self.invalid(&v, "a boolean"))).transpose()
    }

    /// An object of strings (`varTypes`).
    fn string_map(&self, key: &str) -> Result<Option<BTreeMap<String, String>>, JsValue> {
        let Some(v) = self.get(key) else { return Ok(None) };
        if !v.is_object() || js_sys::Array::is_array(&v) {
            return Err(self.invalid(&v, "a map"));
        }
        let mut out = BTreeMap::new();
        for entry in js_sys::Object::entries(v.unchecked_ref()).iter() {
            let pair: js_sys::Array = entry.unchecked_into();
            let (k, val) = (pair.get(0).as_string().unwrap_or_default(), pair.get(1));
            out.insert(k, val.as_string().ok_or_else(|| self.invalid(&val, "a string"))?);
        }
        Ok(Some(out))
    }
}

/// A JS value as serde's `Unexpected` names it in "invalid type" errors.
fn unexpected(v: &JsValue) -> String {
    if let Some(b) = v.as_bool() {
        format!("boolean `{}`", b)
    } else if let Some(n) = v.as_f64() {
        format!("floating point `{}`", n)
    } else if let Some(s) = v.as_string() {
        format!("string {:?}", s)
    } else if js_sys::Array::is_array(v) {
        "sequence".into()
    } else if v.is_object() {
        "map".into()
    } else {
        type_name(v)
    }
}

/// An options argument; `undefined`/`null` are the defaults.
fn options<T: FromOpts>(v: Option<impl Into<JsValue>>, what: &str) -> Result<T, JsValue> {
    match v.map(Into::into) {
        Some(v) if !is_absent(&v) => {
            if !v.is_object() || js_sys::Array::is_array(&v) {
                return Err(js_error(
                    &format!("{} must be an object, not {}", what, type_name(&v)),
                    what,
                    None,
                ));
            }
            T::from_opts(&Opts { obj: v, what })
        }
        _ => Ok(T::default()),
    }
}

impl FromOpts for CompileOptions {
    fn from_opts(o: &Opts) -> Result<Self, JsValue> {
        Ok(CompileOptions { kubernetes_version: o.string("kubernetesVersion")? })
    }
}

impl FromOpts for ObjectOptions {
    fn from_opts(o: &Opts) -> Result<Self, JsValue> {
        Ok(ObjectOptions {
            version: o.string("version")?,
            subresource: o.string("subresource")?,
            ratcheting: o.bool("ratcheting")?,
            emulate_request: o.bool("emulateRequest")?,
        })
    }
}

impl FromOpts for EvaluateOptions {
    fn from_opts(o: &Opts) -> Result<Self, JsValue> {
        Ok(EvaluateOptions { var_types: o.string_map("varTypes")?, kubernetes_version: o.string("kubernetesVersion")? })
    }
}

/// Options of [`run_suite`] (declared by hand in the TypeScript section: `kubernetesVersions`
/// is a string or a list).
#[derive(Default)]
struct RunSuiteOptions {
    kubernetes_version: Option<String>,
    /// `kubernetesVersions` as given: a string, or the items of a list.
    kubernetes_versions: Option<Vec<String>>,
}

impl FromOpts for RunSuiteOptions {
    fn from_opts(o: &Opts) -> Result<Self, JsValue> {
        let kubernetes_versions = match o.get("kubernetesVersions") {
            None => None,
            Some(v) if js_sys::Array::is_array(&v) => Some(
                js_sys::Array::from(&v)
                    .iter()
                    .map(|i| i.as_string().ok_or_else(|| o.invalid(&i, "a string")))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            Some(v) => Some(vec![v.as_string().ok_or_else(|| o.invalid(&v, "a string or a list of strings"))?]),
        };
        Ok(RunSuiteOptions { kubernetes_version: o.string("kubernetesVersion")?, kubernetes_versions })
    }
}

fn kube_version(v: Option<&str>, what: &str) -> Result<KubeVersion, JsValue> {
    match v {
        Some(s) => KubeVersion::parse(s).map_err(|e| js_error(&e, what, None)),
        None => Ok(KubeVersion::default()),
    }
}

/// A reading error of a text, thrown with its place.
fn read_failure(
    message: String,
    text: &str,
    line: Option<usize>,
    column: Option<usize>,
    input: &str,
) -> JsValue {
    let range = match (line, column) {
        (Some(l), c) => positions::error_range(text, l, c.unwrap_or(1)),
        _ => None,
    };
    js_error(&message, input, range)
}

/// Reads an object argument: `(value, source map when text)`.
fn read_object(v: &JsValue, what: &str) -> Result<(Value, Option<Source>), JsValue> {
    match document(v, what)? {
        Doc::Json(value) => Ok((value, None)),
        Doc::Text(t) => match Source::read(&t) {
            Ok(s) => Ok((s.value.clone(), Some(s))),
            Err(e) => Err(read_failure(
                format!("cannot read {}: {}", what, e),
                &t,
                e.line,
                e.column,
                what,
            )),
        },
    }
}

// ---------------------------------------------------------------------------------------
// validate(request)

thread_local! {
    /// Compiled CRDs of earlier `validate` calls (the batch engine's cache).
    static ENGINE: RefCell<Engine> = RefCell::new(Engine::new());
}

/// Answers one `crdlab batch` request (`crd` as YAML/JSON text or an object) with the
/// batch answer, every error, warning and rule carrying its range in the text it came
/// from. A request the batch answers with `error` throws that message.
#[wasm_bindgen(unchecked_return_type = "Answer")]
pub fn validate(request: ValidateRequestArg) -> Result<JsValue, JsValue> {
    let _call = enter()?;
    let request: JsValue = request.into();
    if !request.is_object() || js_sys::Array::is_array(&request) {
        return Err(js_error(
            &format!(
                "the request must be an object like {{crd, object}}, not {}",
                type_name(&request)
            ),
            "request",
            None,
        ));
    }
    let value = json_of(&request, "request")?;
    let mut req: Request = serde_json::from_value(value)
        .map_err(|e| js_error(&format!("bad request: {}", e), "request", None))?;
    // The package's default is the latest release; only the batch protocol keeps 1.36
    // (`KubeVersion::PROTOCOL_DEFAULT`) for requests that name none.
    if req.kubernetes_version.is_none() {
        req.kubernetes_version = Some(KubeVersion::LATEST.to_string());
    }
    ENGINE.with(|engine| {
        let mut engine = engine.borrow_mut();
        let mut answer = engine.handle(&req);
        if let Some(message) = answer.error.take() {
            return Err(request_failure(&req, message));
        }
        // The texts again, now with positions (a batch answer has none).
        fn text_of(v: &Option<Value>) -> Option<&str> {
            v.as_ref().and_then(Value::as_str)
        }
        let crd = text_of(&req.crd).and_then(|t| Source::read_crd(t).ok());
        let object = text_of(&req.object).and_then(|t| Source::read(t).ok());
        let compiled = match req.mode.as_deref() {
            Some("eval") => None,
            _ => req
                .kubernetes_version
                .as_deref()
                .map_or(Ok(KubeVersion::default()), KubeVersion::parse)
                .ok()
                .and_then(|kube| engine.compiled(&req, kube).ok()),
        };
        let version: Option<&CompiledVersion> = compiled
            .as_ref()
            .and_then(|c| c.version(req.version.as_deref()));
        to_js(&crate::wire::annotated::annotate(
            answer,
            crd.as_ref(),
            version,
            object.as_ref(),
        ))
    })
}

/// The batch's failure message as a JS error, placed when a text could not be read.
fn request_failure(req: &Request, message: String) -> JsValue {
    if let Some(Value::String(t)) = &req.crd {
        if let Err(e) = Source::read_crd(t) {
            if message.contains(&e.message) {
                return read_failure(message, t, e.line, e.column, "crd");
            }
        }
    }
    for (what, v) in [("object", &req.object), ("oldObject", &req.old_object)] {
        if let Some(Value::String(t)) = v {
            if let Err(e) = Source::read(t) {
                if message.starts_with(&format!("cannot read {}:", what)) {
                    return read_failure(message, t, e.line, e.column, what);
                }
            }
        }
    }
    js_error(&message, "request", None)
}

// ---------------------------------------------------------------------------------------
// compile(crd, options) and the CompiledCrd handle

/// A CRD compiled once (its create checks, schemas and CEL rules), to validate many objects
/// against: an editor revalidates per keystroke without recompiling. Free it with `free()`
/// when done (or let the `FinalizationRegistry` do it).
#[wasm_bindgen(js_name = CompiledCrd)]
pub struct CompiledCrdHandle {
    crd: Arc<crate::CompiledCrd>,
    crd_errors: Vec<Diagnostic>,
    rules: Vec<Rule>,
}

/// Compiles a CRD (YAML/JSON text, or an object). Throws when the CRD cannot be read or
/// decoded at all (with `line`/`column`/`range` for a text's syntax errors); the
/// apiserver's create checks are the handle's `crdErrors`.
#[wasm_bindgen]
// An Arc as the batch engine shares compiled CRDs (`request::Engine`); wasm is one thread.
#[allow(clippy::arc_with_non_send_sync)]
pub fn compile(
    crd: DocumentArg,
    options: Option<CompileOptionsArg>,
) -> Result<CompiledCrdHandle, JsValue> {
    let _call = enter()?;
    let crd: JsValue = crd.into();
    let opts: CompileOptions = self::options(options, "options")?;
    let kube = kube_version(opts.kubernetes_version.as_deref(), "options")?;
    let (value, source) = match document(&crd, "crd")? {
        Doc::Json(v) => (v, None),
        Doc::Text(t) => match Source::read_crd(&t) {
            Ok(s) => (s.value.clone(), Some(s)),
            Err(e) => return Err(read_failure(e.to_string(), &t, e.line, e.column, "crd")),
        },
    };
    let compiled = crate::CompiledCrd::from_value(&value, kube)
        .map_err(|e| js_error(&e.to_string(), "crd", None))?;
    let reports: Vec<_> = compiled.crd_errors.iter().map(|e| e.to_report_for(compiled.kube_version)).collect();
    let crd_errors = crate::view::diagnostics::crd_diagnostics(&reports, source.as_ref());
    let rules = compiled
        .versions
        .iter()
        .flat_map(|v| crate::view::diagnostics::version_rules(v, source.as_ref()))
        .collect();
    Ok(CompiledCrdHandle {
        crd: Arc::new(compiled),
        crd_errors,
        rules,
    })
}

#[wasm_bindgen(js_class = CompiledCrd)]
impl CompiledCrdHandle {
    /// Each rule's cost explained (what drives it, and the bound that fixes an over-budget
    /// rule), for a CRD version (default: the storage version).
    #[wasm_bindgen(js_name = explainCosts, unchecked_return_type = "CostExplanation")]
    pub fn explain_costs(&self, version: Option<String>) -> Result<JsValue, JsValue> {
        let _call = enter()?;
        let e = crate::analysis::explain::explain(&self.crd, version.as_deref()).map_err(|e| js_error(&e, "version", None))?;
        to_js(&e)
    }

    /// Each rule's lowest Kubernetes version (1.25–1.37), and why not below it.
    #[wasm_bindgen(js_name = versionMatrix, unchecked_return_type = "RuleVersionRow[]")]
    pub fn version_matrix(&self) -> Result<JsValue, JsValue> {
        let _call = enter()?;
        to_js(&crate::analysis::versions::rule_versions(&self.crd))
    }
}

#[wasm_bindgen(js_class = CompiledCrd)]
impl CompiledCrdHandle {
    /// The apiserver's create checks, each with its range in the CRD's text (a CEL rule's
    /// compile error points at the rule).
    #[wasm_bindgen(getter, js_name = crdErrors, unchecked_return_type = "Diagnostic[]")]
    pub fn crd_errors(&self) -> Result<JsValue, JsValue> {
        let _call = enter()?;
        to_js(&self.crd_errors)
    }

    /// Warnings the apiserver returns on create.
    #[wasm_bindgen(getter, js_name = crdWarnings)]
    pub fn crd_warnings(&self) -> Vec<String> {
        self.crd.crd_warnings.clone()
    }

    /// Every CEL rule of every version, with its range in the CRD's text.
    #[wasm_bindgen(getter, unchecked_return_type = "Rule[]")]
    pub fn rules(&self) -> Result<JsValue, JsValue> {
        let _call = enter()?;
        to_js(&self.rules)
    }

    /// The CRD's `metadata.name` (kubectl's `customresourcedefinition…/<name> created`).
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.crd.crd.metadata.name.clone()
    }

    /// The names in `spec.versions`.
    #[wasm_bindgen(getter)]
    pub fn versions(&self) -> Vec<String> {
        self.crd.versions.iter().map(|v| v.name.clone()).collect()
    }

    /// The version objects are validated against by default.
    #[wasm_bindgen(getter, js_name = storageVersion)]
    pub fn storage_version(&self) -> Option<String> {
        self.crd.version(None).map(|v| v.name.clone())
    }

    /// The Kubernetes release the CRD was compiled for.
    #[wasm_bindgen(getter, js_name = kubernetesVersion)]
    pub fn kubernetes_version(&self) -> String {
        self.crd.kube_version.to_string()
    }

    /// Validates an object (a create; an update with `oldObject`) as the apiserver would:
    /// pruning, defaulting, schema, metadata, list-type and CEL validation. The answer has
    /// `defaulted`, `unknownFields`, `errors`, `warnings` and `remainingBudget`, with ranges
    /// in the object's text. Throws when the object cannot be read (with its place).
    #[wasm_bindgen(unchecked_return_type = "Answer")]
    pub fn validate(
        &self,
        object: DocumentArg,
        #[wasm_bindgen(js_name = oldObject)] old_object: Option<DocumentArg>,
        options: Option<ValidateOptionsArg>,
    ) -> Result<JsValue, JsValue> {
        let _call = enter()?;
        let object: JsValue = object.into();
        let old_object: Option<JsValue> = old_object.map(Into::into);
        let opts: ObjectOptions = self::options(options, "options")?;
        let crd = &self.crd;
        let ver = crate::engine::version_of(crd, opts.version.as_deref()).map_err(|m| js_error(&m, "options", None))?;
        let (obj, obj_source) = read_object(&object, "object")?;
        let old = match old_object {
            Some(o) if !is_absent(&o) => Some(read_object(&o, "oldObject")?.0),
            _ => None,
        };
        let vopts = crate::engine::validate_options(opts.subresource.as_deref(), opts.ratcheting, opts.emulate_request, crd.kube_version)
            .map_err(|m| js_error(&m, "options", None))?;
        let out = strategy::validate_object(crd, ver, &obj, old.as_ref(), &vopts)
            .map_err(|e| js_error(&e, "object", None))?;
        let src = obj_source.as_ref();
        let errors: Vec<_> = out.errors.iter().map(|e| e.to_report_for(crd.kube_version)).collect();
        let warnings: Vec<_> = out.warnings.iter().map(|e| e.to_report_for(crd.kube_version)).collect();
        let answer = AnnotatedAnswer {
            unknown_field_ranges: src
                .map(|s| crate::view::diagnostics::unknown_field_ranges(&out.unknown_fields, s)),
            defaulted: Some(out.defaulted),
            unknown_fields: Some(out.unknown_fields),
            errors: Some(crate::view::diagnostics::object_diagnostics(&errors, src)),
            warnings: Some(crate::view::diagnostics::object_diagnostics(&warnings, src)),
            remaining_budget: out.remaining_budget,
            ..Default::default()
        };
        to_js(&answer)
    }
}

// ---------------------------------------------------------------------------------------
// evaluate, version

/// Expression mode: compiles `expr` in the CEL environment new rules get at the release,
/// with `vars` as variables (typed by `options.varTypes`, else `dyn`), and runs it.
/// Compile and evaluation errors are in the answer; bad variables throw.
#[wasm_bindgen(unchecked_return_type = "EvalResult")]
pub fn evaluate(
    expr: &str,
    vars: Option<VarsArg>,
    options: Option<EvaluateOptionsArg>,
) -> Result<JsValue, JsValue> {
    let _call = enter()?;
    let vars: Option<JsValue> = vars.map(Into::into);
    let opts: EvaluateOptions = self::options(options, "options")?;
    let kube = kube_version(opts.kubernetes_version.as_deref(), "options")?;
    let vars = vars_of(vars)?;
    // Inserted one by one: collecting into a map sorts, with a copy of the standard
    // library's sort of its own (the npm module's size budget, `go::sort`).
    let types = opts.var_types.map(|m| {
        let mut types = serde_json::Map::new();
        for (k, v) in m {
            types.insert(k, Value::String(v));
        }
        Value::Object(types)
    });
    let fields = crate::cel::eval::evaluate(expr, vars.as_ref(), types.as_ref(), kube);
    if let Some(e) = fields.get("error").and_then(Value::as_str) {
        return Err(js_error(e, "vars", None));
    }
    to_js(&EvalResult::from_fields(&fields))
}

/// The JS `vars` argument as a JSON object (`None` when absent).
fn vars_of(vars: Option<JsValue>) -> Result<Option<Value>, JsValue> {
    match vars {
        Some(v) if !is_absent(&v) => {
            if !v.is_object() || js_sys::Array::is_array(&v) {
                return Err(js_error(
                    &format!("vars must be an object, not {}", type_name(&v)),
                    "vars",
                    None,
                ));
            }
            Ok(Some(json_of(&v, "vars")?))
        }
        _ => Ok(None),
    }
}

// ---------------------------------------------------------------------------------------
// compileExpression(expr, options) and the Expression handle

/// An expression compiled once (parsed, type-checked, validated, planned and cost-estimated
/// in the CEL environment new rules get at the release), to evaluate many times. Made by
/// `compileExpression`; free it with `free()` when done (or let the `FinalizationRegistry`
/// do it).
#[wasm_bindgen(js_name = Expression)]
pub struct ExpressionHandle {
    /// The program, or (the expression does not compile) the answer every evaluation gives.
    compiled: Result<crate::cel::eval::CompiledExpression, serde_json::Map<String, Value>>,
}

/// Compiles `expr` once, with the variables of `options.varTypes` (each declared with its
/// CEL type; `dyn` accepts every JSON value), for `Expression.evaluate(vars)`. As with
/// `evaluate`, an expression that does not compile is not thrown: every `evaluate` of it
/// answers the `compileError` (or `programError`, `panic`) that `evaluate` answers, and
/// `compileError` holds it. Throws for a bad option (an unknown type name or release).
#[wasm_bindgen(js_name = compileExpression)]
pub fn compile_expression(
    expr: &str,
    options: Option<EvaluateOptionsArg>,
) -> Result<ExpressionHandle, JsValue> {
    let _call = enter()?;
    let opts: EvaluateOptions = self::options(options, "options")?;
    compile_expression_with(expr, opts)
}

/// `compileExpression` with its options read by the package's JavaScript layer
/// (engine/npm/wrap/core.js), which reading them here through `Reflect` would cost more
/// than compiling a small expression: `var_types` holds each variable's name and type,
/// all separated by NUL characters (none of them holds one). Not part of the API.
#[doc(hidden)]
#[wasm_bindgen(js_name = __compileExpressionPacked, skip_typescript)]
pub fn compile_expression_packed(
    expr: &str,
    var_types: &str,
    kubernetes_version: Option<String>,
) -> Result<ExpressionHandle, JsValue> {
    let _call = enter()?;
    let mut types = BTreeMap::new();
    let mut parts = var_types.split('\0');
    while let (Some(name), Some(t)) = (parts.next(), parts.next()) {
        types.insert(name.to_string(), t.to_string());
    }
    compile_expression_with(expr, EvaluateOptions { var_types: Some(types), kubernetes_version })
}

fn compile_expression_with(expr: &str, opts: EvaluateOptions) -> Result<ExpressionHandle, JsValue> {
    let kube = kube_version(opts.kubernetes_version.as_deref(), "options")?;
    let decls = opts
        .var_types
        .unwrap_or_default()
        .into_iter()
        .map(|(name, t)| match crate::cel::eval::parse_type(&t) {
            Ok(t) => Ok((name, t)),
            Err(e) => Err(js_error(&format!("varTypes.{}: {}", name, e), "options", None)),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ExpressionHandle {
        compiled: crate::cel::eval::compile(expr, &decls, kube),
    })
}

thread_local! {
    /// `Expression.evaluate`'s numbers (engine/npm/wrap/core.js): the answer's
    /// [`PACKED_HEAD`], then the packed variables'. The JavaScript layer writes and reads them
    /// in place, through a `Float64Array` over the module's memory ([`scratch`], [`memory`]):
    /// wasm-bindgen would copy a slice argument in and out on every call.
    static SCRATCH: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
    /// The packed variables' strings, as UTF-8, which the JavaScript layer encodes straight
    /// into the module's memory ([`scratch_bytes`]): wasm-bindgen would allocate a string
    /// argument, and free it, on every call.
    static SCRATCH_BYTES: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// The text of the last packed answer (a string result, an `evalError` or a whole JSON
    /// answer), which the JavaScript layer decodes from the module's memory.
    static ANSWER_TEXT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The numbers of a packed answer before the variables' in the scratch buffer: the result's
/// number, the actual cost, and where the answer's text is in the module's memory and how
/// many bytes it has.
const PACKED_HEAD: usize = 4;

/// Makes the scratch buffer hold at least `len` numbers (keeping those it holds) and returns
/// where it is in the module's memory; it stays there until a larger `len` is asked for.
/// For the package's JavaScript layer; not part of the API.
#[doc(hidden)]
#[wasm_bindgen(js_name = __scratch, skip_typescript)]
pub fn scratch(len: usize) -> Result<usize, JsValue> {
    let _call = enter()?;
    Ok(SCRATCH.with(|s| grown(&mut s.borrow_mut(), len)))
}

/// Makes `buffer` hold at least `len` elements (keeping those it holds); where it is.
fn grown<T: Copy + Default>(buffer: &mut Vec<T>, len: usize) -> usize {
    if buffer.len() < len {
        buffer.resize(len, T::default());
    }
    buffer.as_mut_ptr() as usize
}

/// [`scratch`] for the strings' bytes ([`SCRATCH_BYTES`]).
#[doc(hidden)]
#[wasm_bindgen(js_name = __scratchBytes, skip_typescript)]
pub fn scratch_bytes(len: usize) -> Result<usize, JsValue> {
    let _call = enter()?;
    Ok(SCRATCH_BYTES.with(|s| grown(&mut s.borrow_mut(), len)))
}

/// The module's memory (`WebAssembly.Memory`), for views of the scratch buffer.
#[doc(hidden)]
#[wasm_bindgen(js_name = __memory, skip_typescript)]
pub fn memory() -> JsValue {
    wasm_bindgen::memory()
}

#[wasm_bindgen(js_class = Expression)]
impl ExpressionHandle {
    /// Runs the compiled expression with `vars` (each a variable declared in `varTypes`;
    /// one not given fails at run time as `evalError`): the answer `evaluate` gives. A
    /// value that does not fit its declared type, or a variable not declared, throws.
    #[wasm_bindgen(unchecked_return_type = "EvalResult")]
    pub fn evaluate(&self, vars: Option<VarsArg>) -> Result<JsValue, JsValue> {
        let _call = enter()?;
        let vars = vars_of(vars.map(Into::into))?;
        let compiled = match &self.compiled {
            Ok(c) => c,
            Err(answer) => return to_js(&EvalResult::from_fields(answer)),
        };
        let empty = serde_json::Map::new();
        let given = vars.as_ref().and_then(Value::as_object).unwrap_or(&empty);
        if let Some(name) = given.keys().find(|k| !compiled.decls().iter().any(|(n, _)| n == *k)) {
            return Err(js_error(
                &format!("variable {} is not declared in varTypes", name),
                "vars",
                None,
            ));
        }
        let mut values = Vec::with_capacity(given.len());
        for (name, t) in compiled.decls() {
            if let Some(v) = given.get(name) {
                let val = crate::cel::eval::typed_var(v, t)
                    .map_err(|e| js_error(&format!("variable {}: {}", name, e), "vars", None))?;
                values.push((name.as_str(), val));
            }
        }
        to_js(&EvalResult::from_fields(&compiled.run(&values).into_map()))
    }

    /// For the package's JavaScript layer (`Expression.evaluate`, engine/npm/wrap/core.js):
    /// the head of every answer (`outputType`, `estimatedCost`) and how each declared
    /// variable packs (`[[name, spec], ...]`, see `wire::packed`); `null` when the
    /// expression does not compile (every evaluation answers the same, by the JSON route).
    #[doc(hidden)]
    #[wasm_bindgen(js_name = __packSpec, skip_typescript)]
    pub fn pack_spec(&self) -> Result<JsValue, JsValue> {
        let _call = enter()?;
        let Ok(compiled) = &self.compiled else {
            return Ok(JsValue::NULL);
        };
        let vars: Vec<Value> = compiled
            .decls()
            .iter()
            .map(|(name, t)| serde_json::json!([name, crate::wire::packed::spec(t)]))
            .collect();
        let cost = compiled.estimated_cost();
        to_js(&serde_json::json!({
            "outputType": compiled.output_type(),
            "estimatedCost": {"min": cost.min, "max": cost.max},
            "vars": vars,
        }))
    }

    /// For the package's JavaScript layer: `evaluate` with the variables packed
    /// (`wire::packed`): their `n` numbers in the scratch buffer ([`scratch`]) after its first
    /// [`PACKED_HEAD`], the first `bytes` of [`scratch_bytes`] their strings. Returns what the
    /// answer is: 0, the whole answer as JSON text (a result that is not a plain value); 1–6
    /// a plain result (null, bool, int, uint, double, string); 7 `evalError`; 8, take the JSON
    /// route (the packing did not fit the types, or the call could not be made: the JSON
    /// route then throws the error). The scratch's first numbers are then the result's number,
    /// the actual cost, and where the text (codes 0, 6, 7) is in memory and its length in
    /// bytes. No `Result` and no string cross the boundary: each would cost more than a small
    /// evaluation.
    #[doc(hidden)]
    #[wasm_bindgen(js_name = __evaluatePacked, skip_typescript)]
    pub fn evaluate_packed(&self, n: usize, bytes: usize) -> u32 {
        use crate::wire::packed::NOT_PACKED;
        let Ok(_call) = enter() else {
            return NOT_PACKED;
        };
        let Ok(compiled) = &self.compiled else {
            return NOT_PACKED;
        };
        SCRATCH.with(|s| {
            SCRATCH_BYTES.with(|b| {
                let (Ok(mut s), Ok(b)) = (s.try_borrow_mut(), b.try_borrow()) else {
                    return NOT_PACKED;
                };
                if s.len() < PACKED_HEAD || n > s.len() - PACKED_HEAD || bytes > b.len() {
                    return NOT_PACKED;
                }
                let (out, nums) = s.split_at_mut(PACKED_HEAD);
                let run = |values: &[(&str, _)]| {
                    let (result, cost) = compiled.eval(values);
                    write_packed(compiled, result, cost, out)
                };
                crate::wire::packed::with_unpacked(compiled.decls(), &nums[..n], &b[..bytes], run).unwrap_or(NOT_PACKED)
            })
        })
    }

    /// The compile error (cel-go's text), when the expression does not compile.
    #[wasm_bindgen(getter, js_name = compileError)]
    pub fn compile_error(&self) -> Result<Option<String>, JsValue> {
        let _call = enter()?;
        let Some(answer) = self.compiled.as_ref().err() else {
            return Ok(None);
        };
        Ok(["compileError", "programError", "panic"]
            .iter()
            .find_map(|k| answer.get(*k).and_then(Value::as_str))
            .map(str::to_string))
    }
}

/// Writes a packed answer ([`ExpressionHandle::evaluate_packed`]) in `out` and
/// [`ANSWER_TEXT`]; returns its code.
fn write_packed(
    compiled: &crate::cel::eval::CompiledExpression,
    result: Result<crate::cel::value::Val, crate::cel::value::EvalError>,
    cost: u64,
    out: &mut [f64],
) -> u32 {
    ANSWER_TEXT.with(|t| {
        let Ok(mut text) = t.try_borrow_mut() else {
            return crate::wire::packed::NOT_PACKED;
        };
        // A large answer's buffer is not kept for the calls after it.
        if text.capacity() > 1 << 20 {
            *text = Vec::new();
        }
        text.clear();
        let code = packed_answer(compiled, result, cost, out, &mut text);
        out[2] = text.as_ptr() as usize as f64;
        out[3] = text.len() as f64;
        code
    })
}

/// A packed answer: the result's number and the cost in `out`, its text in `text`; returns
/// its code.
fn packed_answer(
    compiled: &crate::cel::eval::CompiledExpression,
    result: Result<crate::cel::value::Val, crate::cel::value::EvalError>,
    cost: u64,
    out: &mut [f64],
    text: &mut Vec<u8>,
) -> u32 {
    use crate::wire::packed::{Plain, JSON_ANSWER, NOT_PACKED};
    // Costs past 2^53 would not survive a double (the JSON route's number would not
    // either, but it is the reference).
    const MAX_EXACT: u64 = 1 << 53;
    if cost <= MAX_EXACT {
        if let Some(p) = crate::wire::packed::plain(&result) {
            out[0] = p.number();
            out[1] = cost as f64;
            if let Plain::String(s) | Plain::Error(s) = p {
                text.extend_from_slice(s.as_bytes());
            }
            return p.code();
        }
    }
    let answer = EvalResult::from_fields(&compiled.answer(result, cost));
    match serde_json::to_writer(&mut *text, &answer) {
        Ok(()) => JSON_ANSWER,
        // The JSON route meets the same failure and throws it.
        Err(_) => NOT_PACKED,
    }
}

/// The crdlab version and the Kubernetes releases it reproduces.
#[wasm_bindgen(unchecked_return_type = "VersionInfo")]
pub fn version() -> Result<JsValue, JsValue> {
    let _call = enter()?;
    to_js(&VersionInfo {
        crdlab: env!("CARGO_PKG_VERSION").to_string(),
        // The release table (crate::version::RELEASES), as the playground's picker.
        kubernetes_versions: KubeVersion::supported_names(),
        default_kubernetes_version: KubeVersion::default().to_string(),
    })
}

/// `diff(oldCrd, newCrd, config?, kubernetesVersion?)`: breaking changes between two CRDs
/// given as YAML/JSON text; `config` is a crd-diff or crdify configuration (YAML/JSON text).
#[wasm_bindgen(unchecked_return_type = "DiffReport")]
pub fn diff(
    old_crd: &str,
    new_crd: &str,
    config: Option<String>,
    kubernetes_version: Option<String>,
) -> Result<JsValue, JsValue> {
    let _call = enter()?;
    let config = match config.as_deref() {
        Some(text) if !text.trim().is_empty() => {
            crate::analysis::diff::config::Config::parse(text).map_err(|e| js_error(&e, "config", None))?
        }
        _ => crate::analysis::diff::config::Config::default(),
    };
    let kubernetes_version = match kubernetes_version.as_deref() {
        Some(v) => Some(crate::version::KubeVersion::parse(v).map_err(|e| js_error(&e, "kubernetesVersion", None))?),
        None => None,
    };
    let opts = crate::analysis::diff::side::Options { config, objects: Vec::new(), kubernetes_version };
    let report = crate::analysis::diff::run::diff(old_crd, new_crd, &opts).map_err(|e| js_error(&e, "crd", None))?;
    to_js(&report)
}

// ---------------------------------------------------------------------------------------
// runSuite(suite, crd, options)

/// Runs a CRD test suite (openshift/api's format, `crdlab test`'s: YAML text) against `crd`
/// (YAML/JSON text or an object), or, when `crd` is absent, against the CRD manifest the
/// suite holds under `crd:`; on `options.kubernetesVersion` or each of
/// `options.kubernetesVersions` (default: the latest). Answers `crdlab test -o json`'s
/// report; failed tests are in it, not thrown. A suite or CRD that cannot be read, or a bad
/// option, throws.
#[wasm_bindgen(js_name = runSuite, unchecked_return_type = "SuiteRunReport")]
pub fn run_suite(
    suite: SuiteTextArg,
    crd: Option<DocumentArg>,
    options: Option<RunSuiteOptionsArg>,
) -> Result<JsValue, JsValue> {
    let _call = enter()?;
    let suite = JsValue::from(suite);
    let Some(suite) = suite.as_string() else {
        return Err(js_error(&format!("suite must be YAML text, not {}", type_name(&suite)), "suite", None));
    };
    let crd: Option<String> = match crd.map(JsValue::from).filter(|v| !is_absent(v)) {
        None => None,
        Some(v) => Some(match document(&v, "crd")? {
            Doc::Text(t) => t,
            Doc::Json(j) => j.to_string(),
        }),
    };
    let releases = suite_releases(self::options(options, "options")?)?;
    let start = js_sys::Date::now();
    let mut report = crate::analysis::suite::run_texts(&suite, crd.as_deref(), &releases)
        .map_err(|e| js_error(&e.message, e.input.as_str(), None))?;
    report.elapsed = std::time::Duration::from_secs_f64(((js_sys::Date::now() - start) / 1000.0).max(0.0));
    to_js(&crate::wire::suite::json_report(&report, None))
}

/// The releases `runSuite` runs on: `kubernetesVersion` (one), or `kubernetesVersions`
/// (each item as the CLI's `--kubernetes-version` takes it: `1.30`, `1.29-1.32`, `all`);
/// the latest when neither.
fn suite_releases(o: RunSuiteOptions) -> Result<Vec<KubeVersion>, JsValue> {
    let mut out = Vec::new();
    match (o.kubernetes_version, o.kubernetes_versions) {
        (Some(_), Some(_)) => {
            return Err(js_error("options: give kubernetesVersion or kubernetesVersions, not both", "options", None));
        }
        (Some(v), None) => out.push(kube_version(Some(&v), "options")?),
        (None, Some(list)) => {
            for item in list {
                out.extend(crate::analysis::releases::parse_releases(&item).map_err(|e| js_error(&e, "options", None))?);
            }
            crate::go::sort::sort(&mut out);
            out.dedup();
        }
        (None, None) => {}
    }
    if out.is_empty() {
        out.push(KubeVersion::LATEST);
    }
    Ok(out)
}
