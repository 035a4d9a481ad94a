//! `cargo bench -p crdlab`: compile the postgres-operator PostgresCluster CRD (the largest
//! in ../shared) and validate one of its example objects, the two numbers crdlab's speed
//! targets are about (Go apiserver code: ~250 ms to compile, ~200 µs per object; targets:
//! 10× and 5× faster). Prints the median of repeated runs; no threshold is asserted.

use std::path::Path;
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
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
    // An example object from the vectors (the postgres-operator suite's example cluster).
    let vectors = shared.join("vectors/postgres-operator/postgres-operator.crunchydata.com_postgresclusters.jsonl");
    let request = std::fs::read_to_string(vectors)
        .ok()
        .and_then(|t| {
            t.lines()
                .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                .find(|v| v["request"]["object"].is_object())
        })
        .expect("an example object");
    let object = request["request"]["object"].clone();
    let version = compiled.version(request["request"]["version"].as_str()).expect("the example's version");
    let opts = crdlab::strategy::ValidateOptions::default();
    let mut validate = Vec::new();
    for _ in 0..200 {
        let t = Instant::now();
        let out = crdlab::strategy::validate_object(&compiled, version, &object, None, &opts).expect("validates");
        validate.push(t.elapsed());
        assert!(out.errors.is_empty(), "{:?}", out.errors);
    }
    println!("compile postgresclusters CRD: median {:?} (target ≤ 25 ms)", median(compile));
    println!("validate example object:      median {:?} (target ≤ 40 µs)", median(validate));
}
