//! `cargo bench -p crdlab --bench cel`: CEL comprehensions that accumulate a result
//! (`map`, `filter`, `transformList`, `transformMap`) over lists of 10,000, 40,000 and
//! 160,000 elements. cel-go extends its accumulator in place, so the time grows linearly
//! with the length (about 4× per step, more once the data outgrows the caches); an
//! accumulator copied every iteration would grow it 16×. Prints the median of repeated runs
//! and the ratios; no threshold is asserted.

use crdlab::cel::env::EnvOptions;
use crdlab::cel::types::Type;
use crdlab::cel::value::Val;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let opts = EnvOptions::for_version(35);
    let base = crdlab::cel::base_env(&opts);
    let env = Arc::new(crdlab::cel::env_with_variables(
        &base,
        &[("xs".to_string(), Type::list(Type::Int))],
    ));
    for expr in [
        "xs.map(x, x * 2).size()",
        "xs.filter(x, x % 2 == 0).size()",
        "xs.transformList(i, x, i + x).size()",
        "xs.transformMap(i, x, x).size()",
    ] {
        let program = match crdlab::cel::compile_program(env.clone(), expr) {
            Ok(p) => p,
            Err(_) => {
                eprintln!("{}: does not compile", expr);
                continue;
            }
        };
        let mut medians = Vec::new();
        for n in [10_000i64, 40_000, 160_000] {
            let mut times = Vec::new();
            for _ in 0..7 {
                let xs = Val::list((0..n).map(Val::Int).collect());
                let t = Instant::now();
                let (r, _) = program.eval(&[("xs", xs)], None);
                times.push(t.elapsed());
                assert!(r.is_ok(), "{}: {:?}", expr, r.err());
            }
            medians.push(median(times));
        }
        let ratio = |a: Duration, b: Duration| b.as_secs_f64() / a.as_secs_f64().max(1e-9);
        println!(
            "{:<38} 10k {:>9.2?}  40k {:>9.2?}  160k {:>9.2?}  ratios {:.1} {:.1} (linear: 4, quadratic: 16)",
            expr,
            medians[0],
            medians[1],
            medians[2],
            ratio(medians[0], medians[1]),
            ratio(medians[1], medians[2])
        );
    }
}
