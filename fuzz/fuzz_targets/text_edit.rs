//! The playground's formatting-preserving edits (`text::edit`) at a JSON pointer; an edit
//! that is made must read back.
//! Input: [op] pointer NUL value (JSON) NUL text. Op `% 3`: set / remove / append; bit
//! 0x10: the only document instead of the CRD.
#![no_main]

use crdlab::text::edit::{plan, Doc, Op};
use crdlab::text::yaml::read_documents;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Some(data) = crdlab_fuzz::bounded(data) else { return };
    let ([op], rest) = crdlab_fuzz::header::<1>(data);
    let p = crdlab_fuzz::parts(rest, 3);
    let pointer = crdlab_fuzz::text(p[0]);
    let value = crdlab_fuzz::json(p[1]).unwrap_or(Value::Null);
    let text = crdlab_fuzz::text(p[2]);
    let doc = if op & 0x10 == 0 { Doc::Crd } else { Doc::Single };
    let op = match op % 3 {
        0 => Op::Set(&value),
        1 => Op::Remove,
        _ => Op::Append(&value),
    };
    match plan(&text, doc, &pointer, op) {
        Ok(edit) => {
            let _ = edit.range(&text);
            let edited = edit.apply(&text);
            if let Err(e) = read_documents(&edited) {
                panic!("the edited text does not read back: {}\n--- edited:\n{}", e, edited);
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
