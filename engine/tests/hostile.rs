//! The hostile-input catalogue (issue 16, item 4), natively: every entry of
//! `engine/tests/data/hostile/catalogue.json` goes through the same calls the npm package makes
//! (engine/src/wasm.rs: `compile`, `CompiledCrd.validate`, `validate`, `evaluate`, `diff`),
//! its error class or answer is asserted, and after each one the catalogue's `followUp`
//! requests (the widgets CRD compiled, a valid and an invalid object validated, `1 + 1`) must
//! get their exact answers: the process still works. `tests/npm/hostile.test.mjs` runs the same
//! file through the nodejs build of the package.
//!
//! Each entry is timed and its peak heap measured by the counting allocator below (this test
//! binary only); each must peak below 512 MB. The only timing assertion is a hang guard
//! (30 s per entry): speed targets live in benchmarks, never in timed tests. The figures are
//! printed and written to `target/hostile-figures.txt`.
//!
//! The inputs are built by the catalogue's small generator vocabulary (`$ref`, `$lines`,
//! `$concat`, `$repeat`, `$nest`, `$replace`, `$utf8lossy`, `$list`, `$range`), expanded identically here and in
//! the node test; the SHA-256 of each expanded input is kept in
//! `engine/tests/data/hostile/expanded.sha256`, which both tests compare against (rewrite it
//! with `CRDLAB_WRITE_HOSTILE_HASHES=1` after changing the catalogue).
//!
//! Env: `CRDLAB_CATALOGUE_ONLY=id,id` runs only those entries;
//! `CRDLAB_CATALOGUE_SHOW=1` prints each answer's facts (to write expectations).

use crdlab::engine::Engine;
use crdlab::text::positions::Source;
use crdlab::wire::annotated::EvalResult;
use crdlab::wire::batch::Request;
use crdlab::{CompiledCrd, KubeVersion};
use serde_json::{json, Map, Value};
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------------------
// The counting allocator: current and peak bytes, and a hard ceiling so that a runaway
// input aborts this test (allocation failure) rather than taking the machine down.

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Above this the allocator refuses (the test aborts with "memory allocation failed").
const CEILING: usize = 3 << 30;
/// What an entry may peak at.
const PEAK_LIMIT: usize = 512 << 20;
/// The hang guard.
const HANG_GUARD: Duration = Duration::from_secs(30);

fn count_up(n: usize) -> bool {
    let now = CURRENT.fetch_add(n, Ordering::Relaxed) + n;
    if now > CEILING {
        CURRENT.fetch_sub(n, Ordering::Relaxed);
        return false;
    }
    PEAK.fetch_max(now, Ordering::Relaxed);
    true
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !count_up(layout.size()) {
            return std::ptr::null_mut();
        }
        let p = System.alloc(layout);
        if p.is_null() {
            CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !count_up(layout.size()) {
            return std::ptr::null_mut();
        }
        let p = System.alloc_zeroed(layout);
        if p.is_null() {
            CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        if new_size > old && !count_up(new_size - old) {
            return std::ptr::null_mut();
        }
        let p = System.realloc(ptr, layout, new_size);
        if p.is_null() {
            if new_size > old {
                CURRENT.fetch_sub(new_size - old, Ordering::Relaxed);
            }
        } else if new_size < old {
            CURRENT.fetch_sub(old - new_size, Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

// ---------------------------------------------------------------------------------------
// The generator vocabulary (tests/npm/hostile.test.mjs `expand` is its twin).

/// Expands the generators of `v`: an object whose only key starts with `$` (with its
/// parameters beside it) is a generator; everything else is kept, expanded inside.
fn expand(v: &Value, defs: &Map<String, Value>) -> Result<Value, String> {
    match v {
        Value::Array(items) => items.iter().map(|i| expand(i, defs)).collect::<Result<_, _>>().map(Value::Array),
        Value::Object(m) => {
            let generator = m.keys().find(|k| k.starts_with('$')).cloned();
            let Some(g) = generator else {
                return m
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), expand(v, defs)?)))
                    .collect::<Result<Map<_, _>, String>>()
                    .map(Value::Object);
            };
            let arg = expand(&m[&g], defs)?;
            let param = |k: &str| -> Result<Value, String> {
                m.get(k).map(|v| expand(v, defs)).transpose()?.ok_or_else(|| format!("{}: missing {}", g, k))
            };
            let text = |v: &Value| -> Result<String, String> {
                v.as_str().map(str::to_string).ok_or_else(|| format!("{}: expected a string, got {}", g, v))
            };
            let count = |k: &str| -> Result<usize, String> {
                param(k)?.as_u64().map(|n| n as usize).ok_or_else(|| format!("{}: {} must be a count", g, k))
            };
            let s = match g.as_str() {
                // A named value of the catalogue's `defs`.
                "$ref" => {
                    let name = text(&arg)?;
                    return expand(defs.get(&name).ok_or_else(|| format!("$ref: no def {}", name))?, defs);
                }
                // Lines, each followed by a newline.
                "$lines" => {
                    let mut out = String::new();
                    for l in arg.as_array().ok_or("$lines: expected an array")? {
                        out.push_str(&text(l)?);
                        out.push('\n');
                    }
                    out
                }
                "$concat" => {
                    let mut out = String::new();
                    for part in arg.as_array().ok_or("$concat: expected an array")? {
                        out.push_str(&text(part)?);
                    }
                    out
                }
                // `times` copies of the text joined by `sep` (default none); with `index`, each
                // occurrence of that marker in a copy becomes the copy's number (from 0).
                "$repeat" => {
                    let unit = text(&arg)?;
                    let times = count("times")?;
                    let sep = m.get("sep").map(|s| text(s)).transpose()?.unwrap_or_default();
                    let marker = m.get("index").map(|s| text(s)).transpose()?;
                    let mut out = String::with_capacity(times * (unit.len() + sep.len()));
                    for i in 0..times {
                        if i > 0 {
                            out.push_str(&sep);
                        }
                        match &marker {
                            Some(mk) => out.push_str(&unit.replace(mk.as_str(), &i.to_string())),
                            None => out.push_str(&unit),
                        }
                    }
                    out
                }
                // `open` × depth, `inner`, `close` × depth.
                "$nest" => {
                    let depth = count("depth")?;
                    let (open, close) = (text(&param("open")?)?, text(&param("close")?)?);
                    let inner = m.get("inner").map(|s| text(&expand(s, defs)?)).transpose()?.unwrap_or_default();
                    let _ = arg;
                    format!("{}{}{}", open.repeat(depth), inner, close.repeat(depth))
                }
                // Every occurrence of `from` in the text replaced by `to`.
                "$replace" => text(&arg)?.replace(&text(&param("from")?)?, &text(&param("to")?)?),
                // Bytes (hex) decoded as UTF-8 with U+FFFD for each invalid sequence (what a
                // reader that takes text makes of invalid UTF-8; TextDecoder does the same).
                "$utf8lossy" => {
                    let hex = text(&arg)?;
                    let bytes: Vec<u8> = (0..hex.len())
                        .step_by(2)
                        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|e| e.to_string()))
                        .collect::<Result<_, _>>()?;
                    String::from_utf8_lossy(&bytes).into_owned()
                }
                // `times` copies of a value.
                "$list" => return Ok(Value::Array(vec![arg; count("times")?])),
                // The integers 0 to n - 1.
                "$range" => {
                    let n = arg.as_u64().ok_or("$range: expected a count")?;
                    return Ok(Value::Array((0..n).map(|i| json!(i)).collect()));
                }
                other => return Err(format!("unknown generator {}", other)),
            };
            Ok(Value::String(s))
        }
        other => Ok(other.clone()),
    }
}

/// JSON with sorted keys (the node test writes the same bytes), for the hashes.
fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(k).unwrap());
                out.push(':');
                canonical(&m[k.as_str()], out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(x, out);
            }
            out.push(']');
        }
        other => out.push_str(&serde_json::to_string(other).unwrap()),
    }
}

/// SHA-256 (FIPS 180-4), hex.
fn sha256(data: &[u8]) -> String {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    ];
    let mut msg = data.to_vec();
    let bits = (data.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bits.to_be_bytes());
    for block in msg.chunks(64) {
        let mut w = [0u32; 64];
        for i in 0..16 {
            w[i] = u32::from_be_bytes([block[4 * i], block[4 * i + 1], block[4 * i + 2], block[4 * i + 3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
        }
        let mut v = h;
        for i in 0..64 {
            let s1 = v[4].rotate_right(6) ^ v[4].rotate_right(11) ^ v[4].rotate_right(25);
            let ch = (v[4] & v[5]) ^ (!v[4] & v[6]);
            let t1 = v[7].wrapping_add(s1).wrapping_add(ch).wrapping_add(K[i]).wrapping_add(w[i]);
            let s0 = v[0].rotate_right(2) ^ v[0].rotate_right(13) ^ v[0].rotate_right(22);
            let maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
            let t2 = s0.wrapping_add(maj);
            v = [t1.wrapping_add(t2), v[0], v[1], v[2], v[3].wrapping_add(t1), v[4], v[5], v[6]];
        }
        for i in 0..8 {
            h[i] = h[i].wrapping_add(v[i]);
        }
    }
    h.iter().map(|x| format!("{:08x}", x)).collect()
}

// ---------------------------------------------------------------------------------------
// The calls, as engine/src/wasm.rs makes them; each answers its JSON (what the package
// returns) or the message it throws.

type Outcome = Result<Value, String>;

fn kube_of(input: &Value) -> Result<KubeVersion, String> {
    match input.get("kubernetesVersion").and_then(Value::as_str) {
        Some(s) => KubeVersion::parse(s),
        None => Ok(KubeVersion::default()),
    }
}

/// `compile(crd)`: a text through `Source::read_crd`, an object as it is.
fn compile(input: &Value) -> Result<CompiledCrd, String> {
    let kube = kube_of(input)?;
    let value = match &input["crd"] {
        Value::String(t) => Source::read_crd(t).map_err(|e| e.to_string())?.value,
        v @ Value::Object(_) => v.clone(),
        other => return Err(format!("crd must be YAML/JSON text or an object, not {}", other)),
    };
    CompiledCrd::from_value(&value, kube).map_err(|e| e.to_string())
}

fn call_compile(input: &Value) -> Outcome {
    let crd = compile(input)?;
    let reports: Vec<_> = crd.crd_errors.iter().map(|e| e.to_report_for(crd.kube_version)).collect();
    let rules: Vec<_> = crd.versions.iter().flat_map(|v| crdlab::view::diagnostics::version_rules(v, None)).collect();
    Ok(json!({
        "crdErrors": reports,
        "crdWarnings": crd.crd_warnings,
        "rules": rules,
        "versions": crd.versions.iter().map(|v| v.name.clone()).collect::<Vec<_>>(),
    }))
}

/// `compile(crd).validate(object, oldObject, options)`.
fn call_validate_object(input: &Value) -> Outcome {
    let crd = compile(input)?;
    let opts = &input["options"];
    let s = |k: &str| opts.get(k).and_then(Value::as_str);
    let b = |k: &str| opts.get(k).and_then(Value::as_bool);
    let ver = crdlab::engine::version_of(&crd, s("version"))?;
    let read = |v: &Value, what: &str| -> Result<Value, String> {
        match v {
            Value::String(t) => Source::read(t).map(|s| s.value).map_err(|e| format!("cannot read {}: {}", what, e)),
            v @ Value::Object(_) => Ok(v.clone()),
            other => Err(format!("{} must be YAML/JSON text or an object, not {}", what, other)),
        }
    };
    let obj = read(&input["object"], "object")?;
    let old = match input.get("oldObject") {
        Some(o) if !o.is_null() => Some(read(o, "oldObject")?),
        _ => None,
    };
    let vopts = crdlab::engine::validate_options(s("subresource"), b("ratcheting"), b("emulateRequest"), crd.kube_version)?;
    let out = crdlab::strategy::validate_object(&crd, ver, &obj, old.as_ref(), &vopts)?;
    let reports = |l: &[crdlab::field::FieldError]| -> Vec<_> { l.iter().map(|e| e.to_report_for(crd.kube_version)).collect() };
    Ok(json!({
        "defaulted": out.defaulted,
        "unknownFields": out.unknown_fields,
        "errors": reports(&out.errors),
        "warnings": reports(&out.warnings),
        "remainingBudget": out.remaining_budget,
    }))
}

/// `validate(request)`: one batch request (the package defaults to the latest release).
fn call_validate(engine: &mut Engine, input: &Value) -> Outcome {
    let mut req: Request = serde_json::from_value(input["request"].clone()).map_err(|e| format!("bad request: {}", e))?;
    if req.kubernetes_version.is_none() {
        req.kubernetes_version = Some(KubeVersion::LATEST.to_string());
    }
    let mut answer = engine.handle(&req);
    if let Some(e) = answer.error.take() {
        return Err(e);
    }
    Ok(serde_json::to_value(&answer).unwrap())
}

/// `evaluate(expr, vars, {varTypes, kubernetesVersion})`.
fn call_evaluate(input: &Value) -> Outcome {
    let kube = kube_of(input)?;
    let expr = input["expr"].as_str().ok_or("evaluate needs expr")?;
    let vars = input.get("vars").filter(|v| !v.is_null());
    let types = input.get("varTypes").filter(|v| !v.is_null());
    let fields = crdlab::cel::eval::evaluate(expr, vars, types, kube);
    if let Some(e) = fields.get("error").and_then(Value::as_str) {
        return Err(e.to_string());
    }
    Ok(serde_json::to_value(EvalResult::from_fields(&fields)).unwrap())
}

/// `diff(old, new)`.
fn call_diff(input: &Value) -> Outcome {
    let opts = crdlab::analysis::diff::Options { config: Default::default(), objects: Vec::new(), kubernetes_version: None };
    let old = input["old"].as_str().ok_or("diff needs old")?;
    let new = input["new"].as_str().ok_or("diff needs new")?;
    let report = crdlab::analysis::diff::diff(old, new, &opts)?;
    Ok(serde_json::to_value(&report).unwrap())
}

fn run_call(engine: &mut Engine, call: &str, input: &Value) -> Outcome {
    match call {
        "compile" => call_compile(input),
        "validateObject" => call_validate_object(input),
        "validate" => call_validate(engine, input),
        "evaluate" => call_evaluate(input),
        "diff" => call_diff(input),
        other => panic!("unknown call {}", other),
    }
}

// ---------------------------------------------------------------------------------------
// Facts and expectations (the node test's `facts` and `matches` are their twins).

/// What an answer's expectation can name: messages of the diagnostics, the count of rules,
/// and the other fields as they are.
fn facts(answer: &Value) -> Value {
    let mut out = Map::new();
    for (k, v) in answer.as_object().into_iter().flatten() {
        let f = match (k.as_str(), v) {
            ("crdErrors" | "errors" | "warnings", Value::Array(a)) => {
                Value::Array(a.iter().map(|d| d["message"].clone()).collect())
            }
            ("findings", Value::Array(a)) => Value::Array(a.iter().map(|d| json!(format!("{}: {}", d["check"].as_str().unwrap_or(""), d["message"].as_str().unwrap_or("")))).collect()),
            ("rules", Value::Array(a)) => json!(a.len()),
            _ => v.clone(),
        };
        out.insert(k.clone(), f);
    }
    Value::Object(out)
}

/// Whether `actual` matches the expectation `want`: `{"$prefix": s}`, `{"$regex": s}`
/// (unanchored), `{"$len": n}` (an array's or string's length), an object (each key it names
/// matches), else equality.
fn matches(want: &Value, actual: Option<&Value>) -> bool {
    if let Value::Object(m) = want {
        if let Some(p) = m.get("$prefix") {
            return actual.and_then(Value::as_str).is_some_and(|a| a.starts_with(p.as_str().unwrap()));
        }
        if let Some(r) = m.get("$regex") {
            let re = regex::Regex::new(r.as_str().unwrap()).expect("a valid $regex");
            return actual.and_then(Value::as_str).is_some_and(|a| re.is_match(a));
        }
        if let Some(n) = m.get("$len") {
            let len = match actual {
                Some(Value::Array(a)) => a.len(),
                Some(Value::String(s)) => s.chars().map(char::len_utf16).sum(),
                _ => return false,
            };
            return n.as_u64() == Some(len as u64);
        }
        let Some(Value::Object(a)) = actual else { return false };
        return m.iter().all(|(k, w)| matches(w, a.get(k)));
    }
    if let (Value::Array(w), Some(Value::Array(a))) = (want, actual) {
        return w.len() == a.len() && w.iter().zip(a).all(|(w, a)| matches(w, Some(a)));
    }
    actual == Some(want)
}

/// `None` when `outcome` is what `expect` says (`{"error": M}` or `{"ok": {fact: M}}`),
/// else why not.
fn check(expect: &Value, outcome: &Outcome) -> Option<String> {
    match (expect.get("error"), expect.get("ok"), outcome) {
        (Some(w), _, Err(e)) if matches(w, Some(&json!(e))) => None,
        (_, Some(w), Ok(a)) if matches(w, Some(&facts(a))) => None,
        _ => Some(format!("expected {}, got {}", expect, shown(outcome))),
    }
}

/// An outcome for a person: long strings cut.
fn shown(outcome: &Outcome) -> String {
    fn cut(v: &Value) -> Value {
        match v {
            Value::String(s) if s.chars().count() > 600 => {
                let tail: String = s.chars().rev().take(200).collect::<Vec<_>>().into_iter().rev().collect();
                json!(format!("{}…{} ({} bytes)", s.chars().take(300).collect::<String>(), tail, s.len()))
            }
            Value::Array(a) if a.len() > 20 => json!(format!("[{} items: {}, …]", a.len(), cut(&a[0]))),
            Value::Array(a) => Value::Array(a.iter().map(cut).collect()),
            Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), cut(v))).collect()),
            other => other.clone(),
        }
    }
    match outcome {
        Ok(a) => format!("ok {}", cut(&facts(a))),
        Err(e) => format!("error {}", cut(&json!(e))),
    }
}

// ---------------------------------------------------------------------------------------

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

struct Figure {
    id: String,
    ms: f64,
    peak_mb: f64,
    outcome: String,
}

#[test]
fn hostile_catalogue() {
    let dir = root().join("engine/tests/data/hostile");
    let catalogue: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("catalogue.json")).unwrap()).unwrap();
    let defs = catalogue["defs"].as_object().cloned().unwrap_or_default();
    let entries = catalogue["entries"].as_array().unwrap().clone();
    let follow_up: Vec<(String, Value, Value)> = catalogue["followUp"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["call"].as_str().unwrap().to_string(), expand(&f["input"], &defs).unwrap(), f["expect"].clone()))
        .collect();
    let only: Option<Vec<String>> = std::env::var("CRDLAB_CATALOGUE_ONLY").ok().map(|s| s.split(',').map(str::to_string).collect());
    let show = std::env::var("CRDLAB_CATALOGUE_SHOW").is_ok_and(|v| v == "1");

    // The catalogue is well formed: unique ids, known calls and keys.
    let mut ids = std::collections::BTreeSet::new();
    for e in &entries {
        let id = e["id"].as_str().expect("an id");
        assert!(ids.insert(id.to_string()), "duplicate id {}", id);
        assert!(e["what"].is_string(), "{}: what", id);
        assert!(["compile", "validateObject", "validate", "evaluate", "diff"].contains(&e["call"].as_str().unwrap()), "{}: call", id);
        assert!(e["expect"].get("error").is_some() != e["expect"].get("ok").is_some(), "{}: expect has error or ok", id);
        for k in e.as_object().unwrap().keys() {
            assert!(["id", "what", "call", "input", "expect"].contains(&k.as_str()), "{}: unknown key {}", id, k);
        }
    }
    assert!(entries.len() >= 60, "the catalogue has {} entries", entries.len());

    // The expansions, hashed: the node test expands to the same bytes.
    let mut hashes = String::new();
    let mut expanded = Vec::new();
    for e in &entries {
        let input = expand(&e["input"], &defs).unwrap_or_else(|m| panic!("{}: {}", e["id"], m));
        let mut text = String::new();
        canonical(&input, &mut text);
        hashes.push_str(&format!("{} {}\n", e["id"].as_str().unwrap(), sha256(text.as_bytes())));
        expanded.push(input);
    }
    let hash_file = dir.join("expanded.sha256");
    if std::env::var("CRDLAB_WRITE_HOSTILE_HASHES").is_ok_and(|v| v == "1") {
        std::fs::write(&hash_file, &hashes).unwrap();
    } else {
        let kept = std::fs::read_to_string(&hash_file).unwrap_or_default();
        assert!(kept == hashes, "{} is out of date: rerun with CRDLAB_WRITE_HOSTILE_HASHES=1", hash_file.display());
    }

    // Entries run on one worker thread (one engine, as the package's module has one), each
    // followed by the follow-up requests; the main thread is the hang guard.
    let (to_worker, jobs) = std::sync::mpsc::channel::<(String, String, Value)>();
    let (to_main, results) = std::sync::mpsc::channel::<(Outcome, f64, usize, Vec<Option<String>>)>();
    let follow = follow_up.clone();
    let worker = std::thread::Builder::new()
        .name("hostile".into())
        .stack_size(8 << 20)
        .spawn(move || {
            let mut engine = Engine::new();
            for (_id, call, input) in jobs {
                let base = CURRENT.load(Ordering::Relaxed);
                PEAK.store(base, Ordering::Relaxed);
                let start = Instant::now();
                let outcome = run_call(&mut engine, &call, &input);
                let ms = start.elapsed().as_secs_f64() * 1000.0;
                let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
                let after: Vec<Option<String>> = follow
                    .iter()
                    .map(|(c, i, x)| check(x, &run_call(&mut engine, c, i)).map(|m| format!("{} {}", c, m)))
                    .collect();
                if to_main.send((outcome, ms, peak, after)).is_err() {
                    return;
                }
            }
        })
        .unwrap();

    let mut figures = Vec::new();
    let mut failures = Vec::new();
    for (e, input) in entries.iter().zip(expanded) {
        let id = e["id"].as_str().unwrap().to_string();
        if only.as_ref().is_some_and(|o| !o.contains(&id)) {
            continue;
        }
        to_worker.send((id.clone(), e["call"].as_str().unwrap().to_string(), input)).unwrap();
        let (outcome, ms, peak, after) = match results.recv_timeout(HANG_GUARD) {
            Ok(r) => r,
            Err(_) => {
                eprintln!("hostile: {} did not answer within {:?}", id, HANG_GUARD);
                std::process::exit(1);
            }
        };
        if show {
            println!("SHOW {} {}", id, shown(&outcome));
        }
        if let Some(m) = check(&e["expect"], &outcome) {
            failures.push(format!("{}: {}", id, m));
        }
        if peak >= PEAK_LIMIT {
            failures.push(format!("{}: peak heap {} MB, over {} MB", id, peak >> 20, PEAK_LIMIT >> 20));
        }
        for m in after.into_iter().flatten() {
            failures.push(format!("{}: the follow-up request failed: {}", id, m));
        }
        figures.push(Figure {
            id,
            ms,
            peak_mb: peak as f64 / (1 << 20) as f64,
            outcome: match &outcome {
                Ok(_) => "ok".into(),
                Err(_) => "error".into(),
            },
        });
    }
    drop(to_worker);
    let _ = worker.join();

    let mut table = format!("{:<40} {:>10} {:>10}  answer\n", "id", "ms", "peak MB");
    for f in &figures {
        table.push_str(&format!("{:<40} {:>10.1} {:>10.1}  {}\n", f.id, f.ms, f.peak_mb, f.outcome));
    }
    let max_ms = figures.iter().map(|f| f.ms).fold(0.0, f64::max);
    let max_mb = figures.iter().map(|f| f.peak_mb).fold(0.0, f64::max);
    table.push_str(&format!("{} entries run; max {:.1} ms, max peak {:.1} MB\n", figures.len(), max_ms, max_mb));
    println!("{}", table);
    let out = root().join("target");
    let _ = std::fs::create_dir_all(&out);
    let _ = std::fs::write(out.join("hostile-figures.txt"), &table);
    assert!(failures.is_empty(), "{} of {} entries failed:\n{}", failures.len(), figures.len(), failures.join("\n"));
}
