//! The cases of tests/bench/cel-cases.json (the CEL benchmark's expressions), as the
//! profiling examples read them. Included by each example with `#[path]`: an example is a
//! crate of its own.

/// One case: its name, expression, declared variables with their types, and their values
/// as the file writes them.
pub struct Case {
    pub name: String,
    pub expr: String,
    pub decls: Vec<(String, crdlab::cel::types::Type)>,
    // Only the examples that evaluate read the values.
    #[allow(dead_code)]
    pub vars: serde_json::Value,
}

/// Every case of the file, in order.
pub fn cases() -> Vec<Case> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/bench/cel-cases.json");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("cel-cases.json")).expect("JSON");
    doc["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|case| Case {
            name: case["name"].as_str().unwrap_or("").to_string(),
            expr: case["expr"].as_str().unwrap_or("").to_string(),
            decls: case["types"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, t)| (k.clone(), crdlab::cel::eval::parse_type(t.as_str().unwrap_or("dyn")).expect("a type")))
                .collect(),
            vars: case["vars"].clone(),
        })
        .collect()
}
