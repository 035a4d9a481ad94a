//! A CRD read and compiled as the apiserver's create would (`crdErrors`, `crdWarnings`,
//! every rule compiled and costed), for a release the input picks.
//! Input: [release] CRD text.
#![no_main]

use crdlab::CompiledCrd;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(data) = crdlab_fuzz::bounded(data) else { return };
    let ([r], rest) = crdlab_fuzz::header::<1>(data);
    let kube = crdlab_fuzz::release(r);
    let text = crdlab_fuzz::text(rest);
    let Ok(crd) = CompiledCrd::from_text(&text, kube) else { return };
    for e in &crd.crd_errors {
        let _ = e.message();
    }
    for v in &crd.versions {
        let _ = crdlab::wire::batch::rule_reports(v);
    }
});
