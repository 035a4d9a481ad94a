//! Rough phase timings for one CRD (minimum of several runs): `cargo run --release
//! --example timing -- CRD_FILE`. The benchmark proper is `cargo bench`.
use std::time::{Duration, Instant};
fn main() {
    let path = std::env::args().nth(1).expect("crd path");
    let text = std::fs::read_to_string(&path).unwrap();
    let kube = crdlab::KubeVersion::default();
    let mut best = [Duration::MAX; 5];
    for _ in 0..7 {
        let t = Instant::now();
        let v = crdlab::text::crd_document::parse_crd_text(&text).unwrap();
        let t1 = t.elapsed();
        let crd = crdlab::crd::decode_crd(&v).unwrap();
        let t2 = t.elapsed();
        let _ = crdlab::crd::validation::validate_crd(&crd, kube);
        let t3 = t.elapsed();
        let schema = crd.spec.versions[0].schema.as_ref().unwrap().open_api_v3_schema.as_deref().unwrap();
        let _ = crdlab::schema::cel::compile::compile_rules(schema, &crdlab::cel::env::EnvOptions::for_version(35));
        let t4 = t.elapsed();
        let _ = crdlab::CompiledCrd::from_value(&v, kube).unwrap();
        let t5 = t.elapsed();
        for (i, d) in [t1, t2 - t1, t3 - t2, t4 - t3, t5 - t4].iter().enumerate() {
            best[i] = best[i].min(*d);
        }
    }
    println!(
        "read {:?} | decode {:?} | validate_crd {:?} | compile_rules(1 version) {:?} | CompiledCrd::from_value {:?}",
        best[0], best[1], best[2], best[3], best[4]
    );
}
