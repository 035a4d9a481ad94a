//! The share-link decoder (`view::share`): any fragment decodes or fails cleanly, and a
//! decoded state encodes and decodes back to itself.
//! Input: [mode] rest. Even mode: the rest is a fragment. Odd mode: the rest's NUL-separated
//! parts make a state (crd, object, old object, old CRD, tab, version, release, compare),
//! which must round-trip.
#![no_main]

use crdlab::view::share::{decode, encode, State};
use libfuzzer_sys::fuzz_target;

fn round_trip(state: &State) {
    let link = encode(state);
    match decode(&link) {
        Ok(Some(back)) => assert_eq!(&back, state, "a state does not survive its link"),
        other => panic!("a link made by encode does not decode: {:?}", other),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(data) = crdlab_fuzz::bounded(data) else { return };
    let ([mode], rest) = crdlab_fuzz::header::<1>(data);
    if mode % 2 == 0 {
        if let Ok(Some(state)) = decode(&crdlab_fuzz::text(rest)) {
            round_trip(&state);
        }
        return;
    }
    let p = crdlab_fuzz::parts(rest, 8);
    let s = |i: usize| crdlab_fuzz::text(p[i]).into_owned();
    let opt = |i: usize| (!p[i].is_empty()).then(|| s(i));
    let mut state = State {
        crd: s(0),
        object: s(1),
        old_object: s(2),
        old_crd: s(3),
        tab: s(4),
        ..Default::default()
    };
    state.settings.version = opt(5);
    state.settings.kubernetes_version = opt(6);
    state.settings.ratcheting = match mode & 6 {
        2 => Some(true),
        4 => Some(false),
        _ => None,
    };
    state.settings.status = mode & 8 != 0;
    state.settings.compare = s(7).split(',').filter(|x| !x.is_empty()).map(str::to_string).collect();
    round_trip(&state);
});
