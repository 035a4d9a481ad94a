//! One line of the `crdlab batch` protocol (`wire::batch`), answered by a fresh engine
//! (no file system: `crdFile` is refused) and serialised as the CLI writes it.
//! Input: the line.
#![no_main]

use crdlab::Engine;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(data) = crdlab_fuzz::bounded(data) else { return };
    let line = crdlab_fuzz::text(data);
    let mut engine = Engine::new();
    let answer = engine.handle_line(&line);
    let _ = serde_json::to_string(&answer).expect("an answer serialises");
    // The same engine answers the same line again from its cache, identically.
    let again = engine.handle_line(&line);
    assert_eq!(
        serde_json::to_value(&answer).ok(),
        serde_json::to_value(&again).ok(),
        "a cached CRD answered differently"
    );
});
