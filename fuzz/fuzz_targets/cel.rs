//! CEL in expression mode (the npm `evaluate` path, `cel::eval::evaluate`): parse, check,
//! cost and evaluate, with typed variables, for a release the input picks.
//! Input: [release] expression NUL vars (JSON object) NUL varTypes (JSON object).
//!
//! Expressions whose brackets nest deeper than [`MAX_NESTING`] are skipped: under ASan's
//! larger frames the `cel` crate's recursive ANTLR parser overflows the 8 MiB stack at
//! ~230 nested `{` when the text also has a token error (so crdlab's depth pre-check,
//! `cel::parse_limits`, gives up). Bounding CEL nesting is issue 16's "deep" work (crdlab's
//! own nesting limit, 32); regression input: corpus-min/cel/regression-deep-map-nesting.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// crdlab's CEL nesting limit (the "deep" branch of issue 16).
const MAX_NESTING: usize = 32;

fuzz_target!(|data: &[u8]| {
    let Some(data) = crdlab_fuzz::bounded(data) else { return };
    let ([r], rest) = crdlab_fuzz::header::<1>(data);
    let kube = crdlab_fuzz::release(r);
    let p = crdlab_fuzz::parts(rest, 3);
    if crdlab_fuzz::bracket_depth(p[0]) > MAX_NESTING {
        return;
    }
    let expr = crdlab_fuzz::text(p[0]);
    let vars = crdlab_fuzz::json(p[1]);
    let types = crdlab_fuzz::json(p[2]);
    let out = crdlab::cel::eval::evaluate(&expr, vars.as_ref(), types.as_ref(), kube);
    let _ = serde_json::to_string(&out);
});
