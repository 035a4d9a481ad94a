//! The inputs of a diff: the two CRDs as read and compiled, the sample objects, the options.

use crate::analysis::diff::config::Config;
use crate::version::KubeVersion;
use serde_json::Value;

/// A sample object (`--objects DIR`): its display name and value.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleObject {
    pub name: String,
    pub value: Value,
}

/// What a diff runs with.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub config: Config,
    pub objects: Vec<SampleObject>,
    /// The Kubernetes release the new CRD will be applied to (the old CRD's target). When
    /// absent it is inferred from the old CRD: the lowest release whose CEL environment
    /// compiles all of its rules (library findings are then warnings).
    pub kubernetes_version: Option<KubeVersion>,
}

/// One CRD as the diff reads it: its JSON (for crdify-style schema walks) and its typed,
/// compiled form (for CEL).
pub struct Side {
    pub text: String,
    pub json: Value,
    pub compiled: crate::crd::CompiledCrd,
}

impl Side {
    pub fn load(text: &str, what: &str) -> Result<Side, String> {
        let json = crate::text::crd_document::parse_crd_text(text).map_err(|e| format!("{}: {}", what, e))?;
        let compiled = crate::crd::CompiledCrd::from_value(&json, KubeVersion::LATEST)
            .map_err(|e| format!("{}: {}", what, e))?;
        Ok(Side {
            text: text.to_string(),
            json,
            compiled,
        })
    }

    /// `spec.versions[i]` as JSON.
    pub fn versions(&self) -> Vec<&Value> {
        match self.json.pointer("/spec/versions") {
            Some(Value::Array(a)) => a.iter().collect(),
            _ => Vec::new(),
        }
    }

    pub fn version_json(&self, name: &str) -> Option<&Value> {
        self.versions()
            .into_iter()
            .find(|v| v.get("name").and_then(Value::as_str) == Some(name))
    }
}

/// The `openAPIV3Schema` of a version's JSON (`Null` when absent).
pub fn schema_of(version: &Value) -> &Value {
    version
        .pointer("/schema/openAPIV3Schema")
        .unwrap_or(&Value::Null)
}

/// Reads sample objects from a directory: every `.yaml`, `.yml` and `.json` file, sorted
/// by name; a multi-document file gives one object per document (`file.yaml#2`).
pub fn load_objects_dir(dir: &str) -> Result<Vec<SampleObject>, String> {
    let rd = std::fs::read_dir(dir).map_err(|e| format!("cannot read --objects {}: {}", dir, e))?;
    let mut files: Vec<std::path::PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && matches!(
                    p.extension().and_then(|x| x.to_str()),
                    Some("yaml") | Some("yml") | Some("json")
                )
        })
        .collect();
    crate::go::sort::sort(&mut files);
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f)
            .map_err(|e| format!("cannot read {}: {}", f.display(), e))?;
        let base = f
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("object")
            .to_string();
        out.extend(objects_from_text(&base, &text)?);
    }
    Ok(out)
}

/// The objects of one YAML/JSON text (empty documents skipped).
pub fn objects_from_text(name: &str, text: &str) -> Result<Vec<SampleObject>, String> {
    let docs =
        crate::text::yaml::read_documents(text).map_err(|e| format!("cannot read {}: {}", name, e))?;
    let docs: Vec<Value> = docs.into_iter().filter(|d| !d.is_null()).collect();
    let many = docs.len() > 1;
    Ok(docs
        .into_iter()
        .enumerate()
        .map(|(i, value)| SampleObject {
            name: if many {
                format!("{}#{}", name, i + 1)
            } else {
                name.to_string()
            },
            value,
        })
        .collect())
}
