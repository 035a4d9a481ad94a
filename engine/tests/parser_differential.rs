//! The fast CEL parser against the `cel` crate's ANTLR parser, over every CEL expression of
//! the shared data: the `x-kubernetes-validations` rules and messageExpressions of the CRDs
//! (../shared/crds, and the CRDs embedded in vector requests) and the `expr` of eval-mode
//! requests. For each of a few releases, wherever the fast parser takes an expression, the
//! ANTLR parser must take it too, with the same AST, node ids, source info offsets and
//! resulting source offsets. Prints how many valid expressions the fast parser takes
//! (`PARSER_DIFF_VERBOSE=1` lists the valid ones it declines).
//!
//! Skipped, with a message, when ../shared is absent (`CRDLAB_SHARED` overrides the place).

use crdlab::cel::env::EnvOptions;
use crdlab::cel::{parse_with, Backend};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use yaml_rust2::{Yaml, YamlLoader};

fn shared_dir() -> PathBuf {
    if let Ok(d) = std::env::var("CRDLAB_SHARED") {
        return PathBuf::from(d);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("..").join("shared")
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Rules and messageExpressions under every `x-kubernetes-validations` of a JSON value.
fn from_json(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if k == "x-kubernetes-validations" {
                    for rule in x.as_array().into_iter().flatten() {
                        for key in ["rule", "messageExpression"] {
                            if let Some(s) = rule.get(key).and_then(Value::as_str) {
                                out.insert(s.to_string());
                            }
                        }
                    }
                }
                if k == "crd" {
                    if let Some(text) = x.as_str() {
                        from_text(text, out);
                    }
                }
                from_json(x, out);
            }
            if m.get("mode").and_then(Value::as_str) == Some("eval") {
                if let Some(e) = m.get("expr").and_then(Value::as_str) {
                    out.insert(e.to_string());
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| from_json(x, out)),
        _ => {}
    }
}

/// The same for YAML.
fn from_yaml(v: &Yaml, out: &mut BTreeSet<String>) {
    match v {
        Yaml::Hash(h) => {
            for (k, x) in h {
                if k.as_str() == Some("x-kubernetes-validations") {
                    if let Yaml::Array(rules) = x {
                        for rule in rules {
                            for key in ["rule", "messageExpression"] {
                                if let Some(s) = rule[key].as_str() {
                                    out.insert(s.to_string());
                                }
                            }
                        }
                    }
                }
                from_yaml(x, out);
            }
        }
        Yaml::Array(a) => a.iter().for_each(|x| from_yaml(x, out)),
        _ => {}
    }
}

fn from_text(text: &str, out: &mut BTreeSet<String>) {
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        from_json(&v, out);
    } else if let Ok(docs) = YamlLoader::load_from_str(text) {
        docs.iter().for_each(|d| from_yaml(d, out));
    }
}

fn corpus(shared: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut paths = Vec::new();
    files(&shared.join("vectors"), &mut paths);
    files(&shared.join("crds"), &mut paths);
    for p in paths {
        let Ok(text) = std::fs::read_to_string(&p) else { continue };
        match p.extension().and_then(|e| e.to_str()) {
            Some("jsonl") => {
                for line in text.lines() {
                    if let Ok(v) = serde_json::from_str::<Value>(line) {
                        from_json(&v, &mut out);
                    }
                }
            }
            Some("json" | "yaml" | "yml") => from_text(&text, &mut out),
            _ => {}
        }
    }
    out
}

#[test]
fn fast_parser_equals_antlr_over_the_shared_expressions() {
    let shared = shared_dir();
    if !shared.join("vectors").is_dir() {
        eprintln!("skipped: no shared vectors at {}", shared.display());
        return;
    }
    let exprs = corpus(&shared);
    assert!(exprs.len() > 1000, "only {} expressions found", exprs.len());
    let verbose = std::env::var("PARSER_DIFF_VERBOSE").is_ok();
    let mut mismatches = Vec::new();
    for release in [25, 28, 31, 36] {
        let opts = EnvOptions::stored(release);
        let (mut valid, mut taken, mut invalid) = (0usize, 0usize, 0usize);
        for e in &exprs {
            let fast = match parse_with(Backend::Fast, &opts, e) {
                Ok(f) => f,
                Err(_) => continue, // a parser limit, before either parser
            };
            let antlr = parse_with(Backend::Antlr, &opts, e);
            match (&fast, &antlr) {
                (Some(f), Ok(Some(a))) => {
                    valid += 1;
                    taken += 1;
                    if f != a {
                        mismatches.push(format!("1.{}: {:?}\n  fast:  {:?}\n  antlr: {:?}", release, e, f, a));
                    }
                }
                (Some(_), _) => mismatches.push(format!("1.{}: fast takes {:?}, ANTLR: {:?}", release, e, antlr)),
                (None, Ok(_)) => {
                    valid += 1;
                    if verbose {
                        eprintln!("1.{} declined: {:?}", release, e);
                    }
                }
                (None, Err(_)) => invalid += 1,
            }
        }
        eprintln!(
            "1.{}: {} expressions, {} valid, fast path takes {} ({:.2} %), {} invalid",
            release,
            exprs.len(),
            valid,
            taken,
            100.0 * taken as f64 / valid.max(1) as f64,
            invalid
        );
        assert!(taken * 100 >= valid * 95, "the fast path takes only {} of {} valid expressions at 1.{}", taken, valid, release);
    }
    assert!(mismatches.is_empty(), "{} mismatches:\n{}", mismatches.len(), mismatches.iter().take(20).cloned().collect::<Vec<_>>().join("\n"));
}

/// `cargo test --release -p crdlab --test parser_differential -- --ignored --nocapture`:
/// the time `parse` takes per expression over the corpus, and on one small expression,
/// with each parser (the limits check and the source offsets included in each).
#[test]
#[ignore]
fn time_parse() {
    use std::time::Instant;
    let shared = shared_dir();
    let exprs: Vec<String> = if shared.join("vectors").is_dir() { corpus(&shared).into_iter().collect() } else { Vec::new() };
    let opts = EnvOptions::stored(36);
    let small = vec!["x + y * 3 - x / 2 > 10".to_string()];
    for (name, set, rounds) in [("small expression", &small, 20000), ("corpus", &exprs, 5)] {
        for backend in [Backend::Fast, Backend::Antlr] {
            let t = Instant::now();
            let mut n = 0u32;
            for _ in 0..rounds {
                for e in set.iter() {
                    let r = match backend {
                        Backend::Fast => crdlab::cel::parse(&opts, e).is_ok(),
                        Backend::Antlr => parse_with(Backend::Antlr, &opts, e).is_ok(),
                    };
                    n += r as u32;
                }
            }
            let per = t.elapsed() / (rounds as u32 * set.len().max(1) as u32);
            eprintln!("{:<18} {:<28} {:?} per expression ({} parsed)", name, if backend == Backend::Fast { "parse (fast path first)" } else { "ANTLR path only" }, per, n);
        }
    }
}
