//! A fixed amount of CRD compile work, for instruction counting:
//! `valgrind --tool=callgrind target/release/examples/compile_profile MODE CRD_FILE`.
//! MODE `cold` compiles the CRD once (a fresh `CompiledCrd::from_text`); `warm` compiles it
//! twice and `--toggle-collect='*compile_again'` counts the second; `edit` asks an
//! [`crdlab::engine::Engine`] for the CRD, then for the CRD with one rule edited (the
//! re-compile the playground does per keystroke; `--toggle-collect='*recompile'` counts only
//! that one); `edit-value` does the same below the YAML reading (`*recompile_value`).
use std::time::Instant;

// The CLI's allocator and its settings, so these figures are the CLI's.
#[cfg(feature = "cli")]
#[path = "../src/bin/cli/allocator.rs"]
mod allocator;

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "cold".into());
    let path = args
        .next()
        .expect("usage: compile_profile cold|edit CRD_FILE");
    let text = std::fs::read_to_string(&path).expect("readable CRD file");
    let kube = crdlab::KubeVersion::default();
    match mode.as_str() {
        "cold" => {
            let t = Instant::now();
            let c = crdlab::CompiledCrd::from_text(&text, kube).expect("compiles");
            eprintln!(
                "cold compile: {:?} ({} crdErrors)",
                t.elapsed(),
                c.crd_errors.len()
            );
        }
        "warm" => {
            // A second cold compile in the same process, as the benchmark's repetitions
            // are: no compile cache, but the CEL parser and per-thread caches are warm.
            crdlab::CompiledCrd::from_text(&text, kube).expect("compiles");
            let t = Instant::now();
            let c = compile_again(&text);
            eprintln!(
                "warm cold compile: {:?} ({} crdErrors)",
                t.elapsed(),
                c.crd_errors.len()
            );
        }
        "repeat" => {
            // Ten cold compiles in a row, as the benchmark runs them (for `perf stat`), and
            // what the parts cost.
            for _ in 0..10 {
                let t = Instant::now();
                let v = crdlab::text::crd_document::parse_crd_text(&text).expect("reads");
                let read = t.elapsed();
                let c = crdlab::CompiledCrd::from_value(&v, kube).expect("compiles");
                let compile = t.elapsed() - read;
                drop(v);
                let t2 = Instant::now();
                let n = c.versions.len();
                drop(c);
                eprintln!(
                    "cold compile: read {:?} + compile {:?}; dropping the value and the compiled CRD ({} versions): {:?}",
                    read,
                    compile,
                    n,
                    t2.elapsed() + (t.elapsed() - read - compile - t2.elapsed())
                );
            }
        }
        "explain" => {
            // What the playground computes per version after each compile: cost explanations.
            let c = crdlab::CompiledCrd::from_text(&text, kube).expect("compiles");
            let t = Instant::now();
            let n: usize = c
                .versions
                .iter()
                .filter_map(|v| crdlab::analysis::explain::explain(&c, Some(&v.name)).ok())
                .map(|e| e.rules.len())
                .sum();
            eprintln!("explain every version: {:?} ({} rules)", t.elapsed(), n);
        }
        "edit" => {
            let edited = edit_one_rule(&text).expect("the CRD has a rule to edit");
            let mut engine = crdlab::engine::Engine::new();
            let req = |t: &str| crdlab::wire::batch::Request {
                crd: Some(serde_json::Value::String(t.to_string())),
                ..Default::default()
            };
            let first = engine.handle(&req(&text));
            let t = Instant::now();
            let second = recompile(&mut engine, &req(&edited));
            eprintln!(
                "re-compile after a one-rule edit: {:?} ({} rules before, {} after)",
                t.elapsed(),
                first.rules.map(|r| r.len()).unwrap_or(0),
                second.rules.map(|r| r.len()).unwrap_or(0)
            );
        }
        "edit-value" => {
            // The same without the YAML reading: the compile of the JSON value only.
            let edited = edit_one_rule(&text).expect("the CRD has a rule to edit");
            let mut cache = crdlab::crd::CompileCache::default();
            let v = crdlab::text::crd_document::parse_crd_text(&text).expect("reads");
            crdlab::CompiledCrd::from_value_cached(&v, None, kube, &mut cache).expect("compiles");
            let v2 = crdlab::text::crd_document::parse_crd_text(&edited).expect("reads");
            let t = Instant::now();
            let c = recompile_value(&v2, &mut cache);
            eprintln!(
                "re-compile (JSON value) after a one-rule edit: {:?} ({} versions; rules: {} hits, {} compiled, {} rule sets reused)",
                t.elapsed(),
                c.versions.len(),
                cache.rules.hits,
                cache.rules.misses,
                cache.rules.set_hits
            );
        }
        "loop-read" | "loop-compile" | "loop-edit" => {
            // Many repetitions of one phase, for `perf record`: reading the YAML, compiling
            // the JSON value from scratch, or re-compiling the JSON after a one-rule edit.
            let n: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(50);
            let v = crdlab::text::crd_document::parse_crd_text(&text).expect("reads");
            let mut cache = crdlab::crd::CompileCache::default();
            crdlab::CompiledCrd::from_value_cached(&v, None, kube, &mut cache).expect("compiles");
            let t = Instant::now();
            for i in 0..n {
                match mode.as_str() {
                    "loop-read" => drop(crdlab::text::crd_document::parse_crd_text(&text).expect("reads")),
                    "loop-compile" => drop(crdlab::CompiledCrd::from_value(&v, kube).expect("compiles")),
                    _ => {
                        let mut v2 = v.clone();
                        bump_first_rule(&mut v2, i);
                        drop(recompile_value(&v2, &mut cache));
                    }
                }
            }
            eprintln!("{} x {}: {:?} each", mode, n, t.elapsed() / n as u32);
        }
        "ws-edit" => {
            // The playground's CRD edit: `view::Workspace::analyze` on the CRD, then on the
            // CRD with one rule edited (`--toggle-collect='*ws_edit'` counts that one).
            let edited = edit_one_rule(&text).expect("the CRD has a rule to edit");
            let mut ws = crdlab::view::Workspace::new();
            let settings = crdlab::view::Settings::default();
            ws.analyze(&text, "", "", &settings);
            let t = Instant::now();
            let a = ws_edit(&mut ws, &edited, &settings);
            eprintln!("playground CRD edit: {:?} ({} errors)", t.elapsed(), a.crd.errors.len());
        }
        "ws-loop" => {
            // The benchmark's playground row: N CRD edits in a row, each a new rule text,
            // each edit's time printed (`perf record` over the loop).
            let n: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(20);
            let mut ws = crdlab::view::Workspace::new();
            let settings = crdlab::view::Settings::default();
            ws.analyze(&text, "", "", &settings);
            let mut times = Vec::new();
            // The playground benchmark's paste edits a message; `ws-loop` a rule.
            let (at, with) = match std::env::var("EDIT").as_deref() {
                Ok("message") => ("message: ", "message: edit{i} "),
                _ => ("rule: ", "rule: {i} == {i} && "),
            };
            for i in 0..n {
                let edited = text.replacen(at, &with.replace("{i}", &i.to_string()), 1);
                let t = Instant::now();
                let a = ws_edit(&mut ws, &edited, &settings);
                times.push(t.elapsed());
                assert!(a.crd.load_error.is_none());
            }
            eprintln!("playground CRD edits: {:?}", times);
        }
        "engine-loop" => {
            // The benchmark's re-compile row: N one-rule edits through `Engine::handle`, each
            // a new text (`--toggle-collect='*recompile'` counts them).
            let n: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(20);
            let mut engine = crdlab::engine::Engine::new();
            let req = |t: String| crdlab::wire::batch::Request { crd: Some(serde_json::Value::String(t)), ..Default::default() };
            engine.handle(&req(text.clone()));
            let mut times = Vec::new();
            for i in 0..n {
                let edited = text.replacen("rule: self != \"trust\"", &format!("rule: self != \"trust{i}\""), 1);
                let r = req(edited);
                let t = Instant::now();
                let a = recompile(&mut engine, &r);
                times.push(t.elapsed());
                assert!(a.error.is_none(), "{:?}", a.error);
            }
            eprintln!("re-compiles: {:?}", times);
        }
        "ws-cold" => {
            // The same edited CRD in a fresh workspace: a whole reading and compile (what a
            // CRD edit cost before the workspace compiled through an `Engine`).
            let edited = edit_one_rule(&text).expect("the CRD has a rule to edit");
            let mut ws = crdlab::view::Workspace::new();
            let settings = crdlab::view::Settings::default();
            let t = Instant::now();
            let a = ws_edit(&mut ws, &edited, &settings);
            eprintln!("playground CRD edit, fresh workspace: {:?} ({} errors)", t.elapsed(), a.crd.errors.len());
        }
        other => panic!("unknown mode {}", other),
    }
}

/// Makes the first rule of the value's first version unique to `i` (a fresh rule text).
fn bump_first_rule(v: &mut serde_json::Value, i: usize) {
    fn walk(v: &mut serde_json::Value, i: usize) -> bool {
        match v {
            serde_json::Value::Object(m) => {
                if let Some(serde_json::Value::String(r)) = m.get_mut("rule") {
                    *r = format!("({i} == {i}) && ({r})");
                    return true;
                }
                m.values_mut().any(|x| walk(x, i))
            }
            serde_json::Value::Array(a) => a.iter_mut().any(|x| walk(x, i)),
            _ => false,
        }
    }
    walk(v, i);
}

#[inline(never)]
fn ws_edit(ws: &mut crdlab::view::Workspace, text: &str, settings: &crdlab::view::Settings) -> crdlab::view::Analysis {
    ws.analyze(text, "", "", settings)
}

#[inline(never)]
fn compile_again(text: &str) -> crdlab::CompiledCrd {
    crdlab::CompiledCrd::from_text(text, crdlab::KubeVersion::default()).expect("compiles")
}

#[inline(never)]
fn recompile_value(
    v: &serde_json::Value,
    cache: &mut crdlab::crd::CompileCache,
) -> crdlab::CompiledCrd {
    crdlab::CompiledCrd::from_value_cached(v, None, crdlab::KubeVersion::default(), cache)
        .expect("compiles")
}

#[inline(never)]
fn recompile(
    engine: &mut crdlab::engine::Engine,
    req: &crdlab::wire::batch::Request,
) -> crdlab::wire::batch::Answer {
    engine.handle(req)
}

/// The CRD text with its first `rule:` line changed (`self` → `(self)`-style no-op edits
/// would be recognised as identical text, so a real character is added).
pub fn edit_one_rule(text: &str) -> Option<String> {
    let line = text.lines().find(|l| {
        let t = l.trim_start().trim_start_matches("- ");
        t.starts_with("rule: ")
    })?;
    let line_at = line.as_ptr() as usize - text.as_ptr() as usize;
    let at = line_at + line.find("rule: ")? + "rule: ".len();
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..at]);
    // Wrap the expression in `true && (...)`: a different text, still a valid bool rule.
    let end = at + text[at..].find('\n')?;
    let expr = text[at..end].trim();
    let (quote, inner) = match expr.chars().next() {
        Some(q @ ('"' | '\'')) if expr.len() >= 2 => (Some(q), &expr[1..expr.len() - 1]),
        _ => (None, expr),
    };
    match quote {
        Some(q) => out.push_str(&format!("{q}true && ({inner}){q}")),
        None => out.push_str(&format!("'true && ({})'", inner.replace('\'', "''"))),
    }
    out.push_str(&text[end..]);
    Some(out)
}
