//! The apiserver's limits, each with the text it answers (ARCHITECTURE.md, "Limits"), and
//! the memory what the engine builds from the largest inputs takes, measured by a counting
//! allocator.

use crdlab::engine::Engine;
use crdlab::wire::batch::Request;
use crdlab::{CompiledCrd, KubeVersion};
use serde_json::{json, Value};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

mod common;

/// Counts the bytes allocated now and the peak since the last [`reset_peak`].
struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Measurements run one at a time (tests run on parallel threads).
static MEASURE: Mutex<()> = Mutex::new(());

/// The peak of bytes allocated while `f` runs, above what was allocated before.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed).saturating_sub(base))
}

const MIB: usize = 1 << 20;

fn widgets(spec_lines: &str) -> String {
    common::widgets_spec(spec_lines)
}

fn answer(crd: &str, object: Value) -> crdlab::Answer {
    let req = Request { id: json!("t"), crd: Some(json!(crd)), object: Some(object), ..Default::default() };
    Engine::new().handle(&req)
}

fn eval(expr: &str) -> Value {
    let line = json!({"id": 1, "mode": "eval", "expr": expr}).to_string();
    serde_json::to_value(Engine::new().handle_line(&line)).unwrap()
}

/// The error of an expression-mode answer, whichever stage it comes from.
fn eval_error(a: &Value) -> String {
    ["error", "compileError", "evalError"]
        .iter()
        .find_map(|k| a[*k].as_str())
        .unwrap_or("")
        .to_string()
}

/// The eleven-level "billion laughs" document of the issue (about 600 bytes).
fn billion_laughs() -> String {
    let mut doc = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..=11 {
        doc += &format!("a{}: &a{} [{}]\n", i, i, vec![format!("*a{}", i - 1); 10].join(", "));
    }
    doc
}

#[test]
fn yaml_alias_bomb_is_go_yamls_error_at_no_cost() {
    let _g = MEASURE.lock();
    let doc = billion_laughs();
    let t = std::time::Instant::now();
    let (r, peak) = peak_of(|| crdlab::text::yaml::read_document(&doc));
    assert_eq!(r.unwrap_err().message, "yaml: document contains excessive aliasing");
    assert!(t.elapsed() < std::time::Duration::from_millis(500), "{:?}", t.elapsed());
    assert!(peak < MIB, "{} bytes", peak);
    // As an object, and as a CRD.
    let crd = widgets("            x-kubernetes-preserve-unknown-fields: true\n");
    let a = answer(&crd, json!(doc));
    assert!(a.error.as_deref().unwrap_or("").contains("yaml: document contains excessive aliasing"), "{:?}", a.error);
    let e = CompiledCrd::from_text(&doc, KubeVersion::default()).unwrap_err().to_string();
    assert!(e.contains("yaml: document contains excessive aliasing"), "{}", e);
    // An anchor inside its own value.
    let e = crdlab::text::yaml::read_document("a: &x {b: *x}\n").unwrap_err();
    assert_eq!(e.message, "yaml: anchor 'x' value contains itself");
}

#[test]
fn request_body_over_3_mib_is_refused() {
    let crd = widgets("            x-kubernetes-preserve-unknown-fields: true\n");
    // The body is the object's JSON as encoding/json writes it, plus the encoder's newline.
    let sized = |n: usize| {
        let mut o = json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "namespace": "default"}, "spec": {"s": ""}});
        let len = crdlab::go::json::json_marshal(&o).len() + 1;
        o["spec"]["s"] = json!("x".repeat(n - len));
        o
    };
    let a = answer(&crd, sized(3 * MIB));
    assert_eq!(a.error, None);
    let a = answer(&crd, sized(3 * MIB + 1));
    assert_eq!(a.error.as_deref(), Some("Request entity too large: limit is 3145728"));
    // HTML characters count as encoding/json escapes them (6 bytes each).
    let mut o = sized(3 * MIB - 5 * 1024);
    o["spec"]["t"] = json!("<".repeat(1024));
    let a = answer(&crd, o);
    assert_eq!(a.error.as_deref(), Some("Request entity too large: limit is 3145728"));
}

#[test]
fn nesting_past_512_levels_is_a_located_error() {
    let msg = "nesting deeper than 512 levels: crdlab reads at most 512 (the apiserver's decoders allow 10000; crdlab's checks must fit the 1 MiB WebAssembly stack)";
    let json = |n: usize| "[".repeat(n) + &"]".repeat(n);
    assert!(crdlab::text::yaml::read_document(&json(512)).is_ok());
    let e = crdlab::text::yaml::read_document(&json(513)).unwrap_err();
    assert_eq!(e.message, msg);
    assert_eq!((e.line, e.column), (Some(1), Some(513)));
    let yaml: String = (0..600).map(|i| format!("{}a:\n", " ".repeat(i))).collect();
    let e = crdlab::text::yaml::read_document(&yaml).unwrap_err();
    assert_eq!(e.message, msg);
    // At the key whose value opens the 513th mapping.
    assert_eq!(e.line, Some(513));
}

#[test]
fn re2_limits_for_pattern_and_cel_regexes() {
    let crd = |pattern: &str| {
        widgets(&format!("            properties:\n              s: {{type: string, pattern: {}}}\n", json!(pattern)))
    };
    let crd_errors = |pattern: &str| -> Vec<String> {
        match CompiledCrd::from_text(&crd(pattern), KubeVersion::default()) {
            Ok(c) => c.crd_errors.iter().map(|e| e.message()).collect(),
            Err(e) => vec![e.to_string()],
        }
    };
    for (pattern, text) in [
        ("a{1001}", "error parsing regexp: invalid repeat count: `{1001}`"),
        ("(a{1000}){2}", "error parsing regexp: invalid repeat count: `{2}`"),
        ("a{1000}{1000}", "error parsing regexp: invalid nested repetition operator: `{1000}{1000}`"),
    ] {
        let errs = crd_errors(pattern);
        assert!(errs.iter().any(|e| e.contains(text)), "{}: {:?}", pattern, errs);
        // CEL: the same parser, at run time; a literal pattern is refused when the rule is
        // compiled (1.29+ literal validators).
        let a = eval(&format!("'a'.matches('' + {})", json!(pattern)));
        assert!(eval_error(&a).contains(text), "{}: {}", pattern, a);
        let a = eval(&format!("'a'.matches({})", json!(pattern)));
        assert!(eval_error(&a).contains("invalid matches argument"), "{}: {}", pattern, a);
    }
    let deep = format!("{}a{}", "(".repeat(1000), ")".repeat(1000));
    let errs = crd_errors(&deep);
    assert!(errs.iter().any(|e| e.contains("error parsing regexp: expression nests too deeply")), "{:?}", errs);
    // Patterns Go accepts compile, and match in linear time.
    for pattern in ["(a*)*", "(a|a)*b", "((a{10}){10}){10}"] {
        assert!(crd_errors(pattern).is_empty(), "{}", pattern);
    }
    let t = std::time::Instant::now();
    let a = eval(&format!("'{}'.matches('^(a|a)*b$')", "a".repeat(5000)));
    assert_eq!(a["value"], json!(false), "{}", a);
    assert!(t.elapsed() < std::time::Duration::from_secs(1));
}

#[test]
fn cel_expression_size_applies_in_every_mode() {
    let big = format!("{}1", "1 + ".repeat(25_000));
    // 100,001 code points.
    let expr = format!("{}{}", " ".repeat(100_001 - big.chars().count()), big);
    let a = eval(&expr);
    assert!(
        eval_error(&a).contains("expression code point size exceeds limit: size: 100001, limit 100000"),
        "{}",
        eval_error(&a)
    );
    let rule = format!("            x-kubernetes-validations:\n            - rule: {}\n", json!(format!("{} == 0", " ".repeat(100_000))));
    let c = CompiledCrd::from_text(&widgets(&rule), KubeVersion::default()).unwrap();
    let errs: Vec<String> = c.crd_errors.iter().map(|e| e.message()).collect();
    assert!(errs.iter().any(|e| e.contains("expression code point size exceeds limit: size: 100005, limit 100000")), "{:?}", errs);
}

#[test]
fn message_expression_over_5_kib_falls_back_to_the_message() {
    let crd = |n: usize| {
        widgets(&format!(
            "            x-kubernetes-preserve-unknown-fields: true\n            x-kubernetes-validations:\n            - rule: 'false'\n              message: static\n              messageExpression: \"'{}'\"\n",
            "m".repeat(n)
        ))
    };
    let obj = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "d"}, "spec": {}});
    let detail = |n: usize| answer(&crd(n), obj.clone()).errors.unwrap_or_default().first().map(|e| e.detail.clone());
    assert_eq!(detail(5120), Some("m".repeat(5120)));
    assert_eq!(detail(5121), Some("static".to_string()));
}

#[test]
fn expression_mode_runs_within_the_per_call_limit() {
    // Without a limit given, expression mode stops at the per-call limit (1,000,000).
    let a = eval("[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, true))))))");
    assert_eq!(eval_error(&a), "operation cancelled: actual cost limit exceeded", "{}", a);
    assert_eq!(a["actualCost"], json!(1_000_001));
}

#[test]
fn memory_of_what_the_engine_builds_stays_bounded() {
    let _g = MEASURE.lock();
    // A CRD with 10,000 properties, each with a rule.
    let mut props = String::from("            properties:\n");
    for i in 0..10_000 {
        props += &format!(
            "              p{i}:\n                type: string\n                maxLength: 10\n                x-kubernetes-validations:\n                - rule: self != 'x{i}'\n"
        );
    }
    let text = widgets(&props);
    let (crd, peak) = peak_of(|| CompiledCrd::from_text(&text, KubeVersion::default()).unwrap());
    eprintln!("CRD of {} bytes, 10,000 properties and rules: peak {} MiB", text.len(), peak / MIB);
    assert!(peak < 512 * MIB, "{} MiB", peak / MIB);
    drop(crd);
    // An object with a list of 100,000 items, defaulted and validated.
    let crd = widgets(
        "            properties:\n              items:\n                type: array\n                maxItems: 200000\n                items: {type: object, properties: {a: {type: integer, default: 1}}}\n",
    );
    let items: Vec<Value> = (0..100_000).map(|_| json!({})).collect();
    let obj = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "d"}, "spec": {"items": items}});
    let (a, peak) = peak_of(|| answer(&crd, obj.clone()));
    assert_eq!(a.error, None);
    eprintln!("object of 100,000 list items: peak {} MiB", peak / MIB);
    assert!(peak < 256 * MIB, "{} MiB", peak / MIB);
    // Lists doubled by nested comprehensions (cel-go's O(1) concatenation): refused past
    // 4,000,000 elements as a cost-limit error, well below 512 MiB.
    let mut expr = String::new();
    let mut prev = "[1,2,3,4,5,6,7,8]".to_string();
    for i in 0..34 {
        expr += &format!("[{p} + {p}].map(v{i}, ", p = prev);
        prev = format!("v{}", i);
    }
    expr += &format!("size({}){}", prev, ")".repeat(34));
    let t = std::time::Instant::now();
    let (a, peak) = peak_of(|| eval(&expr));
    assert_eq!(eval_error(&a), "operation cancelled: actual cost limit exceeded", "{}", a);
    eprintln!("list doubling in comprehensions: peak {} MiB in {:?}", peak / MIB, t.elapsed());
    assert!(peak < 512 * MIB, "{} MiB", peak / MIB);
    // Aliases of a long string, within go-yaml's ratio: the reader stops building at the
    // request limit, so the copies never pass it.
    let doc = format!("s: &s {}\nl: [{}*s]\n", "x".repeat(MIB), "*s, ".repeat(60));
    let (r, peak) = peak_of(|| crdlab::text::yaml::read_document(&doc));
    assert_eq!(r.unwrap_err().to_string(), "Request entity too large: limit is 3145728");
    eprintln!("61 aliases of a 1 MiB string: peak {} MiB", peak / MIB);
    assert!(peak < 16 * MIB, "{} MiB", peak / MIB);
    // Five million numbers in 10 MB of text, read with positions (as the playground
    // does): built up to the limit, then only parsed.
    let doc = format!("a: [{}1]\n", "1,".repeat(5_000_000));
    let (r, peak) = peak_of(|| crdlab::text::positions::Source::read(&doc));
    assert_eq!(r.unwrap_err().to_string(), "Request entity too large: limit is 3145728");
    eprintln!("a 10 MB list: peak {} MiB", peak / MIB);
    assert!(peak < 160 * MIB, "{} MiB", peak / MIB);
}
