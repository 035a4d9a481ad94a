//! CEL compile work alone, for profiling (`perf record -g` or `valgrind --tool=callgrind`):
//! compiles each case of tests/bench/cel-cases.json (`crdlab::cel::eval::compile`, what the
//! npm package's `compileExpression` runs) N times.
//!
//!   cargo build --release --example cel_compile_loop
//!   target/release/examples/cel_compile_loop [N] [CASE_NAME_SUBSTRING]
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let only = args.next().unwrap_or_default();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/bench/cel-cases.json");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("cel-cases.json")).expect("JSON");
    let kube = crdlab::KubeVersion::default();
    for case in doc["cases"].as_array().into_iter().flatten() {
        let name = case["name"].as_str().unwrap_or("");
        if !name.contains(only.as_str()) {
            continue;
        }
        let expr = case["expr"].as_str().unwrap_or("");
        let decls: Vec<(String, crdlab::cel::types::Type)> = case["types"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, t)| (k.clone(), crdlab::cel::eval::parse_type(t.as_str().unwrap_or("dyn")).expect("a type")))
            .collect();
        let t = Instant::now();
        for _ in 0..n {
            drop(std::hint::black_box(crdlab::cel::eval::compile(expr, &decls, kube)));
        }
        println!("{:<28} {:?} per compile", name, t.elapsed() / n);
    }
}
