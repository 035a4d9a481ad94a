//! Loading a CRD's text: which document of a (multi-document) YAML/JSON stream is the
//! CustomResourceDefinition, and why a text holds none. Looks only at each document's
//! `kind`, so the loader, the editors' positions and the text edits make the same choice.

use crate::text::read_error::ReadError;
use crate::text::yaml::read_documents;
use serde_json::Value;
use std::fmt;

/// Why a CRD could not be loaded at all (as opposed to `crdErrors`, which a loaded CRD
/// gets from the apiserver's create checks).
#[derive(Clone, Debug, PartialEq)]
pub struct LoadError {
    pub message: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "{} (line {}, column {})", self.message, l, c),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for LoadError {}

impl LoadError {
    pub fn new(message: impl Into<String>) -> Self {
        LoadError {
            message: message.into(),
            line: None,
            column: None,
        }
    }
}

impl From<ReadError> for LoadError {
    fn from(e: ReadError) -> Self {
        LoadError {
            message: format!("cannot read CRD: {}", e.message),
            line: e.line,
            column: e.column,
        }
    }
}

/// Which document of a stream is the CRD: the first `CustomResourceDefinition`, or a lone
/// document without kind that has a `spec` (judged later, with a clear message); other
/// kinds in a multi-document file are skipped. The one choice the loader, the editors'
/// positions and the text edits all make.
pub fn choose_crd_document<'a>(docs: impl IntoIterator<Item = &'a Value>) -> Result<usize, LoadError> {
    let mut seen_kinds = Vec::new();
    for (i, d) in docs.into_iter().enumerate() {
        match d {
            Value::Null => continue,
            Value::Object(m) => {
                let kind = m.get("kind").and_then(Value::as_str).unwrap_or("");
                if kind == "CustomResourceDefinition"
                    || kind.is_empty() && m.contains_key("spec") && seen_kinds.is_empty()
                {
                    return Ok(i);
                }
                seen_kinds.push(if kind.is_empty() { "<no kind>".to_string() } else { kind.to_string() });
            }
            other => seen_kinds.push(format!("<{}>", json_type_name(other))),
        }
    }
    Err(LoadError::new(if seen_kinds.is_empty() {
        "no CustomResourceDefinition found: the document is empty".to_string()
    } else {
        format!("no CustomResourceDefinition found: the document holds {}", seen_kinds.join(", "))
    }))
}

/// Reads a YAML/JSON text and returns its CRD document ([`choose_crd_document`]).
pub fn parse_crd_text(text: &str) -> Result<Value, LoadError> {
    let mut docs = read_documents(text)?;
    let i = choose_crd_document(&docs)?;
    Ok(docs.swap_remove(i))
}

/// A JSON value's type as our messages name it (`object`, `array`, `number`...).
pub fn json_type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

