//! CEL in expression mode (the npm `evaluate` path, `cel::eval::evaluate`): parse, check,
//! cost and evaluate, with typed variables, for a release the input picks.
//! Input: [release] expression NUL vars (JSON object) NUL varTypes (JSON object).
//!
//! Found here: ~230 nested `{` after a token error overflowed the stack in the `cel` crate's
//! recursive ANTLR parser (crdlab's depth pre-check gave up on the lexical error); the
//! engine now bounds nesting on broken input too (`cel::parse_limits::MAX_NESTING`).
//! Regression input: corpus-min/cel/regression-deep-map-nesting.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(data) = crdlab_fuzz::bounded(data) else { return };
    let ([r], rest) = crdlab_fuzz::header::<1>(data);
    let kube = crdlab_fuzz::release(r);
    let p = crdlab_fuzz::parts(rest, 3);
    let expr = crdlab_fuzz::text(p[0]);
    let vars = crdlab_fuzz::json(p[1]);
    let types = crdlab_fuzz::json(p[2]);
    let out = crdlab::cel::eval::evaluate(&expr, vars.as_ref(), types.as_ref(), kube);
    let _ = serde_json::to_string(&out);
});
