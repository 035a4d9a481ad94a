//! YAML/JSON reading (`crdlab::text::yaml`), with positions: every document of the input,
//! the source map of each, a range for every node path and for a reading error.
//! Reading without positions takes the block-style fast path (`text::block`) where it
//! can, with positions never: the two must agree, values and errors.
//! Input: the text.
#![no_main]

use crdlab::text::positions::{error_range, locate, object_range, Source};
use crdlab::text::source_map::PathSeg;
use crdlab::text::yaml;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// Node paths visited per document at most (a 64 KiB text has fewer nodes than this
/// unless aliases repeat them).
const MAX_PATHS: usize = 4096;

fuzz_target!(|data: &[u8]| {
    let Some(data) = crdlab_fuzz::bounded(data) else { return };
    let text = crdlab_fuzz::text(data);
    let plain = yaml::read_documents(&text);
    let tracked = yaml::read_documents_with_positions(&text);
    match (&plain, &tracked) {
        (Ok(a), Ok(b)) => {
            // Reading with positions gives the same documents.
            assert_eq!(a.len(), b.len());
            for (x, (y, _)) in a.iter().zip(b) {
                assert_eq!(x, y, "positions changed what was read");
            }
        }
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "positions changed the reading error");
            if let (Some(l), Some(c)) = (a.line, a.column) {
                let _ = error_range(&text, l, c);
            }
            let _ = a.to_string();
        }
        _ => panic!("read with and without positions disagree: {:?} vs {:?}", plain.is_ok(), tracked.is_ok()),
    }
    if let Ok(docs) = tracked {
        for (doc, map) in &docs {
            for path in paths(doc) {
                let _ = locate(&path, map);
                let _ = object_range(&printed(&path), doc, map);
            }
        }
    }
    let _ = yaml::read_document(&text);
    let _ = Source::read(&text);
    let _ = Source::read_crd(&text);
});

/// The paths of a value's nodes, breadth first (iterative: documents can be 512 deep).
fn paths(v: &Value) -> Vec<Vec<PathSeg>> {
    let mut out = vec![Vec::new()];
    let mut i = 0;
    while i < out.len() && out.len() < MAX_PATHS {
        let path = out[i].clone();
        let mut node = v;
        for seg in &path {
            node = match (node, seg) {
                (Value::Object(m), PathSeg::Key(k)) => &m[k],
                (Value::Array(a), PathSeg::Index(j)) => &a[*j],
                _ => unreachable!(),
            };
        }
        match node {
            Value::Object(m) => {
                for k in m.keys() {
                    let mut p = path.clone();
                    p.push(PathSeg::Key(k.clone()));
                    out.push(p);
                }
            }
            Value::Array(a) => {
                for j in 0..a.len() {
                    let mut p = path.clone();
                    p.push(PathSeg::Index(j));
                    out.push(p);
                }
            }
            _ => {}
        }
        i += 1;
    }
    out.truncate(MAX_PATHS);
    out
}

/// A path as field errors print it (`spec.x[0]`, `metadata.labels[a.b]`).
fn printed(path: &[PathSeg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            PathSeg::Key(k) if k.contains('.') || k.contains('[') => s.push_str(&format!("[{}]", k)),
            PathSeg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            PathSeg::Index(j) => s.push_str(&format!("[{}]", j)),
        }
    }
    s
}
