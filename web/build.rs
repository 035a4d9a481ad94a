//! Embeds the examples of `static/examples/index.json` into the app (`examples.rs` in
//! OUT_DIR): loading one is a click, never a network request.

use std::fmt::Write;
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../static/examples");
    let index = dir.join("index.json");
    println!("cargo:rerun-if-changed={}", index.display());
    let text = std::fs::read_to_string(&index).unwrap_or_else(|_| "[]".into());
    let list: Vec<serde_json::Value> = serde_json::from_str(&text).expect("static/examples/index.json is a JSON list");
    let mut out = String::from("/// The examples of static/examples/index.json, in its order.\npub static EXAMPLES: &[Example] = &[\n");
    let s = |e: &serde_json::Value, k: &str| e.get(k).and_then(|v| v.as_str()).unwrap_or("").to_string();
    let file = |e: &serde_json::Value, k: &str| -> String {
        match e.get(k).and_then(|v| v.as_str()) {
            Some(f) => {
                let p = dir.join(f);
                println!("cargo:rerun-if-changed={}", p.display());
                assert!(p.exists(), "static/examples/{} (named by index.json) is missing", f);
                format!("include_str!({:?})", p.canonicalize().unwrap().display().to_string())
            }
            None => "\"\"".into(),
        }
    };
    for e in &list {
        let _ = writeln!(
            out,
            "    Example {{ id: {:?}, title: {:?}, description: {:?}, crd: {}, object: {}, old_object: {}, suite: {}, kubernetes_version: {:?}, status: {} }},",
            s(e, "id"),
            s(e, "title"),
            s(e, "description"),
            file(e, "crd"),
            file(e, "object"),
            file(e, "oldObject"),
            file(e, "suite"),
            s(e, "kubernetesVersion"),
            e.get("status").and_then(|v| v.as_bool()).unwrap_or(false),
        );
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("examples.rs");
    std::fs::write(dest, out).unwrap();
}
