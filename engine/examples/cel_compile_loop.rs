//! CEL compile work alone, for profiling (`perf record -g` or `valgrind --tool=callgrind`):
//! compiles each case of tests/bench/cel-cases.json (`crdlab::cel::eval::compile`, what the
//! npm package's `compileExpression` runs) N times.
//!
//!   cargo build --release --example cel_compile_loop
//!   target/release/examples/cel_compile_loop [N] [CASE_NAME_SUBSTRING]
use std::time::Instant;

#[path = "common/cel_cases.rs"]
mod cel_cases;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let only = args.next().unwrap_or_default();
    let kube = crdlab::KubeVersion::default();
    for case in cel_cases::cases().iter().filter(|c| c.name.contains(only.as_str())) {
        let t = Instant::now();
        for _ in 0..n {
            drop(std::hint::black_box(crdlab::cel::eval::compile(&case.expr, &case.decls, kube)));
        }
        println!("{:<28} {:?} per compile", case.name, t.elapsed() / n);
    }
}
