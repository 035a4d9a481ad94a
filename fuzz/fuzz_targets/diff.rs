//! Breaking-change detection between two CRDs (`analysis::diff`), with sample objects,
//! every report format rendered.
//! Input: [release: 0 = inferred] old CRD text NUL new CRD text NUL sample objects text.
#![no_main]

use crdlab::analysis::diff::{diff, objects_from_text, report, Config, Options};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(data) = crdlab_fuzz::bounded(data) else { return };
    let ([r], rest) = crdlab_fuzz::header::<1>(data);
    let p = crdlab_fuzz::parts(rest, 3);
    let (old, new, objects) = (crdlab_fuzz::text(p[0]), crdlab_fuzz::text(p[1]), crdlab_fuzz::text(p[2]));
    let opts = Options {
        config: Config::default(),
        objects: objects_from_text("objects", &objects).unwrap_or_default(),
        kubernetes_version: (r != 0).then(|| crdlab_fuzz::release(r)),
    };
    if let Ok(r) = diff(&old, &new, &opts) {
        let _ = report::text(&r);
        let _ = report::markdown(&r);
        let _ = report::json(&r);
        let _ = report::yaml(&r);
    }
});
