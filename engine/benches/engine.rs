//! `cargo bench -p crdlab`: compile the postgres-operator PostgresCluster CRD (the largest
//! in ../shared) and validate one of its example objects, the two numbers crdlab's speed
//! targets are about (Go apiserver code: ~250 ms to compile, ~200 µs per object; targets:
//! 10× and 5× faster), and re-compile the CRD after a one-rule edit through
//! `request::Engine`, as the playground does per keystroke (target: one frame, 16 ms).
//! Prints the median of repeated runs; no threshold is asserted.

use std::path::Path;
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The CRD text with its first rule changed to `(N == N) && (<rule>)`: a new rule text
/// (so nothing can be reused for that rule) that means the same.
fn edit_first_rule(text: &str, n: usize) -> Option<String> {
    let line = text.lines().find(|l| {
        l.trim_start()
            .trim_start_matches("- ")
            .starts_with("rule: ")
    })?;
    let line_at = line.as_ptr() as usize - text.as_ptr() as usize;
    let at = line_at + line.find("rule: ")? + "rule: ".len();
    let end = at + text[at..].find('\n')?;
    let expr = text[at..end].trim();
    let edited = match expr.chars().next() {
        Some(q @ ('"' | '\'')) if expr.len() >= 2 => {
            format!("{q}({n} == {n}) && ({}){q}", &expr[1..expr.len() - 1])
        }
        _ => format!("'({n} == {n}) && ({})'", expr.replace('\'', "''")),
    };
    Some(format!("{}{}{}", &text[..at], edited, &text[end..]))
}

fn main() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    let crd_path = shared.join("crds/postgres-operator/config/crd/bases/postgres-operator.crunchydata.com_postgresclusters.yaml");
    let Ok(crd_text) = std::fs::read_to_string(&crd_path) else {
        eprintln!("bench skipped: {} not found", crd_path.display());
        return;
    };
    let kube = crdlab::KubeVersion::default();
    let mut compile = Vec::new();
    let mut compiled = None;
    for _ in 0..10 {
        let t = Instant::now();
        compiled = Some(crdlab::CompiledCrd::from_text(&crd_text, kube).expect("compiles"));
        compile.push(t.elapsed());
    }
    let compiled = compiled.expect("compiled");
    // The YAML reading alone (yaml.rs), part of both the compile and the re-compile.
    let mut read = Vec::new();
    for _ in 0..10 {
        let t = Instant::now();
        let v = crdlab::text::crd_document::parse_crd_text(&crd_text).expect("reads");
        read.push(t.elapsed());
        drop(v);
    }

    // Re-compiles after an edit: every text is new (the engine's per-text cache misses),
    // one rule differs from the previous compile's; the engine's compile cache has the rest.
    let mut engine = crdlab::engine::Engine::new();
    let request = |text: String| crdlab::wire::batch::Request {
        crd: Some(serde_json::Value::String(text)),
        ..Default::default()
    };
    let first = engine.handle(&request(crd_text.clone()));
    assert!(first.error.is_none(), "{:?}", first.error);
    let mut recompile = Vec::new();
    let mut recompile_value = Vec::new();
    let mut cache = crdlab::crd::CompileCache::default();
    let value = crdlab::text::crd_document::parse_crd_text(&crd_text).expect("reads");
    crdlab::CompiledCrd::from_value_cached(&value, None, kube, &mut cache).expect("compiles");
    for n in 0..10 {
        let edited = edit_first_rule(&crd_text, n).expect("a rule to edit");
        let t = Instant::now();
        let answer = engine.handle(&request(edited.clone()));
        recompile.push(t.elapsed());
        assert!(answer.error.is_none(), "{:?}", answer.error);
        // The same without reading the YAML text (what the compile itself costs).
        let v = crdlab::text::crd_document::parse_crd_text(&edited).expect("reads");
        let t = Instant::now();
        let c =
            crdlab::CompiledCrd::from_value_cached(&v, None, kube, &mut cache).expect("compiles");
        recompile_value.push(t.elapsed());
        drop(c);
    }

    // An example object from the vectors (the postgres-operator suite's example cluster).
    let vectors = shared
        .join("vectors/postgres-operator/postgres-operator.crunchydata.com_postgresclusters.jsonl");
    let request = std::fs::read_to_string(vectors)
        .ok()
        .and_then(|t| {
            t.lines()
                .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                .find(|v| v["request"]["object"].is_object())
        })
        .expect("an example object");
    let object = request["request"]["object"].clone();
    let version = compiled
        .version(request["request"]["version"].as_str())
        .expect("the example's version");
    let opts = crdlab::strategy::ValidateOptions::default();
    let mut validate = Vec::new();
    for _ in 0..200 {
        let t = Instant::now();
        let out = crdlab::strategy::validate_object(&compiled, version, &object, None, &opts)
            .expect("validates");
        validate.push(t.elapsed());
        assert!(out.errors.is_empty(), "{:?}", out.errors);
    }
    println!(
        "compile postgresclusters CRD: median {:?} (target ≤ 25 ms)",
        median(compile)
    );
    println!(
        "  of which reading the YAML:  median {:?} (parse_crd_text)",
        median(read)
    );
    println!(
        "re-compile after a rule edit: median {:?} (Engine, from text; target ≤ 16 ms)",
        median(recompile)
    );
    println!(
        "  of which compiling the JSON: median {:?} (from_value_cached)",
        median(recompile_value)
    );
    println!(
        "validate example object:      median {:?} (target ≤ 40 µs)",
        median(validate)
    );
}
