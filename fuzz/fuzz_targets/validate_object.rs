//! The object validation path (create, update, status update) against a rotating set of
//! real CRDs from `shared/crds`, compiled once at start-up.
//! Input: [crd index u16 LE][version][operation] object text NUL old object text.
//! Operation: `% 3` create / update / status update; bit 0x10 ratcheting off, bit 0x20
//! no request emulation. Version 255: the storage version.
#![no_main]

use crdlab::crd::CompiledCrd;
use crdlab::strategy::{validate_object, ValidateOptions};
use crdlab::text::yaml::read_document;
use libfuzzer_sys::fuzz_target;

thread_local! {
    // `CompiledCrd` shares rule sets through `Rc`: one per thread (libFuzzer runs one).
    static CRDS: Vec<Option<CompiledCrd>> = crdlab_fuzz::compile_crd_set();
}

fuzz_target!(
    init: {
        CRDS.with(|_| ());
    },
    |data: &[u8]| {
    let Some(data) = crdlab_fuzz::bounded(data) else { return };
    let ([i0, i1, ver, op], rest) = crdlab_fuzz::header::<4>(data);
    let p = crdlab_fuzz::parts(rest, 2);
    let Ok(object) = read_document(&crdlab_fuzz::text(p[0])) else { return };
    let old = match op % 3 {
        0 => None,
        _ => match read_document(&crdlab_fuzz::text(p[1])) {
            Ok(o) => Some(o),
            // An update of an object by itself when the input holds no old object.
            Err(_) => Some(object.clone()),
        },
    };
    CRDS.with(|crds| {
        let index = usize::from(u16::from_le_bytes([i0, i1])) % crds.len();
        let Some(crd) = &crds[index] else { return };
        let version = match ver {
            255 => crd.version(None),
            v => crd.versions.get(usize::from(v) % crd.versions.len()),
        };
        let Some(version) = version else { return };
        let opts = ValidateOptions {
            status_subresource: op % 3 == 2,
            ratcheting: op & 0x10 == 0 && crd.kube_version.ratcheting_available(),
            emulate_request: op & 0x20 == 0,
            keep_defaulted: op & 0x40 == 0,
        };
        if let Ok(outcome) = validate_object(crd, version, &object, old.as_ref(), &opts) {
            for e in outcome.errors.iter().chain(&outcome.warnings) {
                let _ = e.message();
            }
        }
    });
});
