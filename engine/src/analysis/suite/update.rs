//! `crdlab test --update`: rewrites each `expectedError`/`expectedStatusError` that no
//! longer matches with the current message, through the formatting-preserving edits of
//! [`crate::text::edit`] (comments, quoting and layout elsewhere stay as they were).

use crate::analysis::suite::run::{Case, Verdict};
use crate::text::edit::{Doc, Prepared};
use serde_json::Value;

/// The suite text with the failing cases' errors rewritten (the first release's message
/// for a case, the first CRD file's when several disagree); `None` when nothing changes.
pub fn rewrite_expected_errors(text: &str, cases: &[Case]) -> Result<Option<String>, String> {
    let mut edits: Vec<(String, String)> = Vec::new();
    for c in cases {
        let Some((field, msg)) = c.results.iter().find_map(|(_, v)| match v {
            Verdict::Fail(f) => f.rewrite.clone(),
            _ => None,
        }) else {
            continue;
        };
        let pointer = format!("/tests/{}/{}/{}", c.kind, c.index, field);
        if !edits.iter().any(|(p, _)| *p == pointer) {
            edits.push((pointer, msg));
        }
    }
    if edits.is_empty() {
        return Ok(None);
    }
    let mut out = text.to_string();
    for (pointer, msg) in edits {
        // Each edit is planned on the text the previous one left.
        let prepared = Prepared::new(&out, Doc::Single).map_err(|e| e.to_string())?;
        let edit = prepared
            .plan(&pointer, crate::text::edit::Op::Set(&Value::String(msg)))
            .map_err(|e| format!("{}: {}", pointer, e))?;
        out = edit.apply(&out);
    }
    Ok(Some(out))
}
