//! CEL evaluation work alone, for profiling (`valgrind --tool=callgrind`, `perf stat`):
//! compiles each case of tests/bench/cel-cases.json whose name contains CASE_NAME once,
//! then runs its program N times (`CompiledExpression::eval`, the "program" row of
//! `cargo bench --bench engine`), and prints the value, cost and time per run.
//!
//!   cargo build --release --example cel_eval_loop
//!   target/release/examples/cel_eval_loop [N] [CASE_NAME]
use std::time::Instant;

#[path = "common/cel_cases.rs"]
mod cel_cases;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let only = args.next().unwrap_or_default();
    let kube = crdlab::KubeVersion::default();
    // {"$ints": N}: N ints (i * 7919) % 1000, as the bench expands them.
    let expand = |v: &serde_json::Value| -> serde_json::Value {
        match v.get("$ints").and_then(|n| n.as_u64()) {
            Some(n) => (0..n).map(|i| serde_json::Value::from((i * 7919) % 1000)).collect(),
            None => v.clone(),
        }
    };
    let cases = cel_cases::cases();
    // A case named exactly, else every case whose name contains the argument.
    let exact = cases.iter().any(|c| c.name == only);
    for case in &cases {
        let chosen = if exact { case.name == only } else { case.name.contains(only.as_str()) };
        if !chosen || case.vars.to_string().contains("$intMap") {
            continue;
        }
        let values: Vec<(String, crdlab::cel::value::Val<'static>)> = case
            .decls
            .iter()
            .map(|(k, t)| (k.clone(), crdlab::cel::eval::typed_var(&expand(&case.vars[k.as_str()]), t).expect("a value")))
            .collect();
        let Ok(compiled) = crdlab::cel::eval::compile(&case.expr, &case.decls, kube) else {
            eprintln!("{}: does not compile", case.name);
            continue;
        };
        let run: Vec<(&str, crdlab::cel::value::Val)> = values.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
        let t = Instant::now();
        let mut last = None;
        for _ in 0..n {
            last = Some(compiled.eval(&run));
        }
        let per = t.elapsed() / n.max(1);
        let (r, cost) = last.expect("one run");
        println!("{:<36} {:?} cost {} — {:?}/run", case.name, r.map_err(|e| e.message), cost, per);
    }
}
