//! `crdlab schema`: a JSON Schema per kind and version of the CRDs named, for YAML
//! language servers and kubeconform (crdlab::wire::json_schema).

use crate::inputs;
use crdlab::wire::json_schema::{catalog, kind_schemas, KindSchema};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

pub fn run(crd_paths: &[String], out_dir: &Path, kube: crdlab::KubeVersion, show_notes: bool) -> ExitCode {
    let crds = match inputs::crds(crd_paths) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {}", e);
            return ExitCode::from(2);
        }
    };
    if crds.is_empty() {
        eprintln!("error: no CustomResourceDefinition in {}", crd_paths.join(", "));
        return ExitCode::from(2);
    }
    // `{kind}_{version}.json` is kubeconform's name; two groups with the same kind and version
    // (rare) keep it apart in a folder named after the group.
    let mut by_name: BTreeMap<String, String> = BTreeMap::new();
    let mut schemas: Vec<KindSchema> = Vec::new();
    for (_, crd) in &crds {
        for mut s in kind_schemas(crd, kube) {
            match by_name.get(&s.file_name) {
                Some(group) if *group == s.group => continue, // the same CRD named twice
                Some(_) => s.file_name = format!("{}/{}", s.group, s.file_name),
                None => {
                    by_name.insert(s.file_name.clone(), s.group.clone());
                }
            }
            schemas.push(s);
        }
    }
    let write = |name: &str, value: &serde_json::Value| -> Result<(), String> {
        let path = out_dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("cannot create {}: {}", parent.display(), e))?;
        }
        let text = serde_json::to_string_pretty(value).expect("JSON values serialize") + "\n";
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {}", path.display(), e))
    };
    for s in &schemas {
        if let Err(e) = write(&s.file_name, &s.schema) {
            eprintln!("error: {}", e);
            return ExitCode::from(2);
        }
        let notes = if s.notes.is_empty() { String::new() } else { format!("  ({} note{})", s.notes.len(), if s.notes.len() == 1 { "" } else { "s" }) };
        println!("{}{}", s.file_name, notes);
        if show_notes {
            for n in &s.notes {
                println!("  note: {}", n);
            }
        }
    }
    if let Err(e) = write("catalog.json", &catalog(&schemas)) {
        eprintln!("error: {}", e);
        return ExitCode::from(2);
    }
    println!(
        "wrote {} schema{} and catalog.json to {} (CEL rules and what else JSON Schema cannot check are in the descriptions{})",
        schemas.len(),
        if schemas.len() == 1 { "" } else { "s" },
        out_dir.display(),
        if show_notes { "" } else { "; --notes lists them" }
    );
    ExitCode::SUCCESS
}
