//! `cargo bench -p crdlab --bench engine [-- --quick]`: for four CRDs of ../shared/crds (the
//! postgres-operator PostgresCluster CRD, the largest; etcd-druid's Etcd; two openshift
//! CRDs), compile the CRD, re-compile it after a one-rule edit through `engine::Engine`, as
//! the playground does per keystroke, and validate an example object of its vectors. The
//! postgres-operator figures are the ones crdlab's speed targets are about (issue 18: Go
//! apiserver code ~330–400 ms to compile; targets ≤ 30 ms compile, ≤ 8 ms re-compile).
//! Then the CEL cases of tests/bench/cel-cases.json, natively (compile, evaluate), for the
//! comparison with the npm package and two JS engines (tests/bench/cel-compare.mjs).
//! Prints the median of repeated runs, each also as a line `BENCH cargo <crd> <metric> crdlab
//! <ns>` (`BENCH cel <case> <metric> crdlab-native <ns>`) for scripts/bench; no threshold is
//! asserted. `--quick`: fewer runs.

use std::path::Path;
use std::time::{Duration, Instant};

// The CLI's allocator and its settings: issue 18's compile target is about the CLI.
#[cfg(feature = "cli")]
#[path = "../src/bin/cli/allocator.rs"]
mod allocator;

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

/// A CRD of ../shared/crds and the vectors file its example object comes from.
struct Case {
    name: &'static str,
    crd: &'static str,
    vectors: &'static str,
}

const CASES: &[Case] = &[
    Case {
        name: "postgres-operator postgresclusters",
        crd: "postgres-operator/config/crd/bases/postgres-operator.crunchydata.com_postgresclusters.yaml",
        vectors: "postgres-operator/postgres-operator.crunchydata.com_postgresclusters.jsonl",
    },
    Case {
        name: "etcd-druid etcds",
        crd: "etcd-druid/api/core/v1alpha1/crds/druid.gardener.cloud_etcds.yaml",
        vectors: "etcd-druid/druid.gardener.cloud_etcds.jsonl",
    },
    Case {
        name: "openshift clustermonitorings",
        crd: "openshift-api/config/v1alpha1/zz_generated.crd-manifests/0000_10_config-operator_01_clustermonitorings.crd.yaml",
        vectors: "openshift-api/config__v1alpha1__clustermonitorings.config.openshift.io__AAA_ungated.jsonl",
    },
    Case {
        name: "openshift infrastructures",
        crd: "openshift-api/config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_infrastructures-Default.crd.yaml",
        vectors: "openshift-api/config__v1__infrastructures.config.openshift.io__AAA_ungated.jsonl",
    },
];

/// Prints a figure for people and the line scripts/bench reads.
fn report(case: &str, metric: &str, what: &str, d: Duration) {
    println!("{:<36} {:<44} median {:?}", case, what, d);
    println!("BENCH cargo {} {} crdlab {}", case.replace(' ', "_"), metric, d.as_nanos());
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let runs = if quick { 3 } else { 10 };
    let validations = if quick { 20 } else { 200 };
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    // `--only-cel`: the CEL cases alone (the CRD cases take most of the run).
    let only_cel = std::env::args().any(|a| a == "--only-cel");
    // `CRDLAB_BENCH_ONLY=<text>`: the CRD cases whose name holds it.
    let only = std::env::var("CRDLAB_BENCH_ONLY").ok();
    for case in CASES.iter().filter(|_| !only_cel).filter(|c| only.as_deref().is_none_or(|o| c.name.contains(o))) {
        let crd_path = shared.join("crds").join(case.crd);
        let Ok(crd_text) = std::fs::read_to_string(&crd_path) else {
            eprintln!("bench {} skipped: {} not found", case.name, crd_path.display());
            continue;
        };
        bench_crd(case, &crd_text, &shared.join("vectors").join(case.vectors), runs, validations);
    }
    bench_cel_cases(quick);
}

/// The CEL cases of tests/bench/cel-cases.json (which tests/bench/cel-compare.mjs runs in
/// node through the npm package and two JS engines), natively: the expression compiled once
/// (`cel::eval::compile`, what `compileExpression` runs) and run (`CompiledExpression::run`,
/// the typed answer: what `Expression.evaluate` computes before packing a plain result),
/// the run with its JSON answer built (`Answer::into_map`, what the batch protocol
/// returns) and the program alone, each the median of a batch.
fn bench_cel_cases(quick: bool) {
    use crdlab::cel::eval::{compile, parse_type, typed_var};
    use serde_json::Value;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/bench/cel-cases.json");
    let Some(doc) = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
    else {
        eprintln!("CEL cases skipped: {} not readable", path.display());
        return;
    };
    // {"$ints": N}: N ints (i * 7919) % 1000; {"$intMap": N}: k0.. to those ints.
    fn expand(v: &Value) -> Value {
        let ints = |n: &Value| (0..n.as_u64().unwrap_or(0)).map(|i| (i * 7919) % 1000);
        match v {
            Value::Object(m) if m.contains_key("$ints") => ints(&m["$ints"]).map(Value::from).collect(),
            Value::Object(m) if m.contains_key("$intMap") => Value::Object(
                ints(&m["$intMap"]).enumerate().map(|(i, x)| (format!("k{}", i), Value::from(x))).collect(),
            ),
            Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), expand(x))).collect()),
            other => other.clone(),
        }
    }
    let kube = crdlab::KubeVersion::default();
    let samples = if quick { 5 } else { 21 };
    let batch_time = Duration::from_micros(if quick { 200 } else { 1000 });
    // The median time of one call: batches long enough for the clock.
    let time = |f: &mut dyn FnMut()| -> Duration {
        let mut batch = 1u32;
        loop {
            let t = Instant::now();
            for _ in 0..batch {
                f();
            }
            if t.elapsed() > batch_time || batch >= 1 << 20 {
                break;
            }
            batch *= 2;
        }
        median(
            (0..samples)
                .map(|_| {
                    let t = Instant::now();
                    for _ in 0..batch {
                        f();
                    }
                    t.elapsed() / batch
                })
                .collect(),
        )
    };
    for case in doc["cases"].as_array().into_iter().flatten() {
        let (Some(name), Some(expr), Some(types)) = (case["name"].as_str(), case["expr"].as_str(), case["types"].as_object()) else {
            continue;
        };
        let decls: Vec<(String, crdlab::cel::types::Type)> = types
            .iter()
            .map(|(n, t)| (n.clone(), parse_type(t.as_str().unwrap_or("dyn")).expect("a type")))
            .collect();
        let vars = expand(&case["vars"]);
        let values: Vec<(String, crdlab::cel::value::Val<'static>)> = decls
            .iter()
            .map(|(n, t)| (n.clone(), typed_var(&vars[n.as_str()], t).expect("a value")))
            .collect();
        let Ok(compiled) = compile(expr, &decls, kube) else {
            eprintln!("CEL case {}: does not compile", name);
            continue;
        };
        let run: Vec<(&str, crdlab::cel::value::Val)> = values.iter().map(|(n, v)| (n.as_str(), v.clone())).collect();
        let compile_time = time(&mut || drop(compile(expr, &decls, kube)));
        let eval_time = time(&mut || drop(compiled.run(&run)));
        // The run with its JSON answer built (what the batch protocol returns).
        let answer_time = time(&mut || drop(compiled.run(&run).into_map()));
        // The program alone (`CompiledExpression::eval`: the interpreter and its runtime
        // cost, no answer built), what issue 18's native evaluation targets measure.
        let program_time = time(&mut || drop(compiled.eval(&run)));
        for (metric, d) in [("compile", compile_time), ("evaluate", eval_time), ("answer", answer_time), ("program", program_time)] {
            println!("{:<36} {:<44} median {:?}", name, format!("CEL {} (native)", metric), d);
            println!("BENCH cel {} {} crdlab-native {}", name.replace(' ', "_"), metric, d.as_nanos());
        }
    }
}

/// The median time of a `crdlab batch` process answering a request for the CRD file (a
/// path under ../shared/crds) minus that of one answering a request without a CRD, runs of
/// the two alternated; `None` when the binary does not run.
#[cfg(feature = "cli")]
fn fresh_process_compile(crd: &str, runs: usize) -> Option<Duration> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/crds").join(crd);
    let path = path.canonicalize().ok()?;
    let with_crd = format!("{}\n", serde_json::json!({"id": 1, "crdFile": path.to_str()?}));
    let without = "{\"id\": 1, \"crd\": \"kind: ConfigMap\"}\n".to_string();
    let run = |request: &str| -> Option<Duration> {
        let t = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_crdlab"))
            .arg("batch")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        child.stdin.take()?.write_all(request.as_bytes()).ok()?;
        let out = child.wait_with_output().ok()?;
        let d = t.elapsed();
        (out.status.success() && out.stdout.starts_with(b"{\"id\":1")).then_some(d)
    };
    let (mut with, mut base) = (Vec::new(), Vec::new());
    run(&with_crd)?;
    for _ in 0..runs {
        with.push(run(&with_crd)?);
        base.push(run(&without)?);
    }
    Some(median(with).saturating_sub(median(base)))
}

fn bench_crd(case: &Case, crd_text: &str, vectors: &Path, runs: usize, validations: usize) {
    let kube = crdlab::KubeVersion::default();
    let mut compile = Vec::new();
    let mut compiled = None;
    for _ in 0..runs {
        // The previous compile is freed before the clock starts.
        drop(compiled.take());
        let t = Instant::now();
        compiled = Some(crdlab::CompiledCrd::from_text(crd_text, kube).expect("compiles"));
        compile.push(t.elapsed());
    }
    let compiled = compiled.expect("compiled");
    // Issue 18's compile figure as it is defined: the CRD created in one fresh `crdlab
    // batch` process (read, CRD checks, every rule compiled and costed, the answer written),
    // the start-up of a process answering a request without a CRD subtracted.
    #[cfg(feature = "cli")]
    if let Some(d) = fresh_process_compile(case.crd, runs.max(5) * 2) {
        report(case.name, "compile_process", "create in a fresh `crdlab batch` process", d);
    }
    // The YAML reading alone, part of both the compile and the re-compile.
    let mut read = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let v = crdlab::text::crd_document::parse_crd_text(crd_text).expect("reads");
        read.push(t.elapsed());
        drop(v);
    }
    report(case.name, "compile", "compile (text to CompiledCrd)", median(compile));
    report(case.name, "read_yaml", "  of which reading the YAML", median(read));

    // Re-compiles after an edit: every text is new (the engine's per-text cache misses),
    // one rule differs from the previous compile's; the engine's compile cache has the rest.
    if edit_first_rule(crd_text, 0).is_some() {
        let mut engine = crdlab::engine::Engine::new();
        let request = |text: String| crdlab::wire::batch::Request {
            crd: Some(serde_json::Value::String(text)),
            ..Default::default()
        };
        let first = engine.handle(&request(crd_text.to_string()));
        assert!(first.error.is_none(), "{:?}", first.error);
        let mut recompile = Vec::new();
        let mut recompile_value = Vec::new();
        let mut cache = crdlab::crd::CompileCache::default();
        let value = crdlab::text::crd_document::parse_crd_text(crd_text).expect("reads");
        crdlab::CompiledCrd::from_value_cached(&value, None, kube, &mut cache).expect("compiles");
        for n in 0..runs {
            let edited = edit_first_rule(crd_text, n).expect("a rule to edit");
            let t = Instant::now();
            let answer = engine.handle(&request(edited.clone()));
            recompile.push(t.elapsed());
            assert!(answer.error.is_none(), "{:?}", answer.error);
            // The same JSON compiled through the compile cache alone: no earlier compile's
            // nodes are kept (what a tool handing the engine JSON values pays).
            let v = crdlab::text::crd_document::parse_crd_text(&edited).expect("reads");
            let t = Instant::now();
            let c = crdlab::CompiledCrd::from_value_cached(&v, None, kube, &mut cache)
                .expect("compiles");
            recompile_value.push(t.elapsed());
            drop(c);
        }
        report(case.name, "recompile", "re-compile after a rule edit (Engine)", median(recompile));
        report(case.name, "recompile_value", "  the edited JSON compiled through the cache alone (no nodes kept)", median(recompile_value));

        // The playground's CRD edit, natively: `view::Workspace::analyze` (what the worker
        // runs) after a one-rule edit, with the CRD's view (errors, rule counts) and no
        // object; and with the rules pane shown, which adds every rule's view (its range in
        // the text, its cost explanation) and the schema nodes (`crd_view_full`).
        for (metric, label, pane) in [
            ("playground_edit", "playground CRD edit (Workspace, native)", false),
            ("playground_edit_rules", "  the same, the rules pane shown", true),
        ] {
            let mut ws = crdlab::view::Workspace::new();
            let settings = crdlab::view::Settings::default();
            let a = ws.analyze(crd_text, "", "", &settings);
            assert!(a.crd.load_error.is_none(), "{:?}", a.crd.load_error);
            let mut edit = Vec::new();
            for n in 0..runs {
                let edited = edit_first_rule(crd_text, n + 1).expect("a rule to edit");
                let t = Instant::now();
                let a = ws.analyze(&edited, "", "", &settings);
                let full = if pane { ws.crd_view_full() } else { None };
                edit.push(t.elapsed());
                assert!(a.crd.load_error.is_none());
                assert_eq!(full.is_some(), pane);
            }
            report(case.name, metric, label, median(edit));
        }
    }

    // An example object of the vectors: the first create request against this CRD file.
    let Some(request) = std::fs::read_to_string(vectors).ok().and_then(|t| {
        t.lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .find(|v| {
                let r = &v["request"];
                r["object"].is_object()
                    && r["oldObject"].is_null()
                    && r["crdFile"].as_str().is_some_and(|f| case.crd.ends_with(f) || f.ends_with(case.crd))
            })
    }) else {
        eprintln!("bench {}: no example object in {}", case.name, vectors.display());
        return;
    };
    let object = request["request"]["object"].clone();
    let version = compiled
        .version(request["request"]["version"].as_str())
        .expect("the example's version");
    let opts = crdlab::strategy::ValidateOptions::default();
    let mut validate = Vec::new();
    for _ in 0..validations {
        let t = Instant::now();
        let out = crdlab::strategy::validate_object(&compiled, version, &object, None, &opts)
            .expect("validates");
        validate.push(t.elapsed());
        drop(out);
    }
    report(case.name, "validate", "validate an example object", median(validate));
}
