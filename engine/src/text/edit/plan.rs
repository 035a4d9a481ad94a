//! Planning an edit: read the text once ([`Prepared`]), compute the document the edit
//! must give, let the editor write it, and check that the new text reads back as exactly
//! that document.

use crate::text::edit::editor::Editor;
use crate::text::edit::error::{type_name, Doc, EditError};
use crate::text::edit::pointer::{parse_index, parse_pointer};
use crate::text::edit::text_edit::{minimize, Op, TextEdit};
use crate::text::json::read_json;
use crate::text::read_error::MAX_DEPTH;
use crate::text::source_map::SourceMap;
use crate::text::yaml;
use serde_json::Value;
use std::sync::OnceLock;

/// Replaces the value at `pointer` (inserting a missing last key at the end of its mapping).
///
/// # Example
///
/// ```
/// use crdlab::text::edit::{set, Doc};
/// let text = "spec:\n  replicas: 1 # keep me\n  name: w\n";
/// let edited = set(text, Doc::Crd, "/spec/name", &serde_json::json!("x")).unwrap();
/// assert_eq!(edited, "spec:\n  replicas: 1 # keep me\n  name: x\n");
/// ```
pub fn set(text: &str, doc: Doc, pointer: &str, value: &Value) -> Result<String, EditError> {
    Ok(plan(text, doc, pointer, Op::Set(value))?.apply(text))
}

/// Removes the mapping entry or list item at `pointer`; the last entry of a block mapping
/// leaves `{}`, the last item of a block list `[]`.
pub fn remove(text: &str, doc: Doc, pointer: &str) -> Result<String, EditError> {
    Ok(plan(text, doc, pointer, Op::Remove)?.apply(text))
}

/// Appends `value` to the list at `pointer`, creating the key (with a one-item list) when
/// the pointer's last key is missing in its mapping.
pub fn append(text: &str, doc: Doc, pointer: &str, value: &Value) -> Result<String, EditError> {
    Ok(plan(text, doc, pointer, Op::Append(value))?.apply(text))
}

/// The edit [`set`], [`remove`] or [`append`] make, as one minimal replacement (for editors
/// that apply changes to their own buffer, keeping undo history and cursors).
pub fn plan(text: &str, doc: Doc, pointer: &str, op: Op) -> Result<TextEdit, EditError> {
    Prepared::new(text, doc)?.plan(pointer, op)
}

/// A text read once, for planning several edits of it (previews of several fixes): each
/// [`Prepared::plan`] is an edit of this same text.
pub struct Prepared<'t> {
    text: &'t str,
    /// The byte-order mark's length: the reader's offsets start after it.
    bom: usize,
    docs: Vec<(Value, SourceMap)>,
    index: usize,
    json: bool,
    nl: &'static str,
    floor: usize,
    layout: OnceLock<(usize, usize)>,
    seps: OnceLock<(&'static str, &'static str)>,
}

impl<'t> Prepared<'t> {
    /// Reads `text` and picks the document to edit.
    pub fn new(text: &'t str, doc: Doc) -> Result<Prepared<'t>, EditError> {
        let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
        let body = &text[bom..];
        let docs = yaml::read_documents_with_positions(body)?;
        let index = choose(&docs, doc)?;
        Ok(Prepared {
            text,
            bom,
            json: is_json(body, docs.len()),
            nl: if body.contains("\r\n") { "\r\n" } else { "\n" },
            floor: doc_floor(&docs, index),
            docs,
            index,
            layout: OnceLock::new(),
            seps: OnceLock::new(),
        })
    }

    /// The edit `op` at `pointer` makes in the text.
    pub fn plan(&self, pointer: &str, op: Op) -> Result<TextEdit, EditError> {
        let (bom, body, json) = (self.bom, &self.text[self.bom..], self.json);
        let segs = parse_pointer(pointer)?;
        let (value, map) = &self.docs[self.index];
        let Some(root) = map.root.as_ref() else {
            return Err(EditError::NotFound {
                pointer: pointer.to_string(),
                at: None,
            });
        };
        let ed = Editor {
            t: body,
            b: body.as_bytes(),
            nl: self.nl,
            json,
            root,
            floor: self.floor,
            pointer,
            layout: &self.layout,
            seps: &self.seps,
        };
        if let Op::Set(v) | Op::Append(v) = op {
            if depth_of(v) > MAX_DEPTH {
                return Err(ed.unsupported(None, "the value nests too deeply"));
            }
        }
        // The value to write as the reader will read it back (YAML turns integral floats
        // into integers), and the document the new text must hold.
        let given = match op {
            Op::Set(v) | Op::Append(v) => Some(if json { v.clone() } else { normalize(v) }),
            Op::Remove => None,
        };
        let op = match (&op, given.as_ref()) {
            (Op::Set(_), Some(v)) => Op::Set(v),
            (Op::Append(_), Some(v)) => Op::Append(v),
            _ => Op::Remove,
        };
        let expected = match expected_value(value, &segs, op, pointer) {
            Ok(v) => v,
            // The walk through the text says the same with a position.
            Err(e) => {
                return Err(match ed.run(value, &segs, op) {
                    Err(p) if std::mem::discriminant(&p) == std::mem::discriminant(&e) => p,
                    _ => e,
                })
            }
        };
        if &expected == value {
            return Ok(TextEdit {
                start: bom,
                end: bom,
                text: String::new(),
            });
        }
        let splice = ed.run(value, &segs, op)?;
        if splice.start > splice.end
            || splice.end > body.len()
            || !body.is_char_boundary(splice.start)
            || !body.is_char_boundary(splice.end)
        {
            return Err(ed.unsupported(None, "the text's layout was not understood"));
        }
        let splice = minimize(body, splice);
        let new_body = splice.apply(body);
        verify(&new_body, &self.docs, self.index, &expected, json).map_err(|reason| {
            EditError::Unverified {
                pointer: pointer.to_string(),
                reason,
            }
        })?;
        Ok(TextEdit {
            start: splice.start + bom,
            end: splice.end + bom,
            text: splice.text,
        })
    }
}

/// The document to edit.
pub(crate) fn choose(docs: &[(Value, SourceMap)], doc: Doc) -> Result<usize, EditError> {
    let present: Vec<usize> = (0..docs.len()).filter(|&i| !docs[i].0.is_null()).collect();
    match doc {
        Doc::Single => match present.as_slice() {
            [i] => Ok(*i),
            _ => Err(EditError::NotSingle {
                documents: present.len(),
            }),
        },
        Doc::Crd => crate::text::crd_document::choose_crd_document(docs.iter().map(|(v, _)| v))
            .map_err(|e| EditError::NoCrd(e.to_string())),
    }
}

/// A JSON text (read as JSON, not as YAML), as the reader decides it.
pub(crate) fn is_json(body: &str, documents: usize) -> bool {
    let t = body.trim_start();
    documents == 1 && (t.starts_with('{') || t.starts_with('[')) && read_json(t).is_ok()
}

/// Where a document's text can begin: after the previous documents' nodes.
pub(crate) fn doc_floor(docs: &[(Value, SourceMap)], index: usize) -> usize {
    docs[..index]
        .iter()
        .filter_map(|(_, m)| m.root.as_ref())
        .map(|r| r.value_bytes.1)
        .max()
        .unwrap_or(0)
}


/// The value as the YAML reader reads it back: integral floats become integers (json.Marshal
/// prints them without a fraction), see `yaml::float_value`.
pub(crate) fn normalize(v: &Value) -> Value {
    match v {
        Value::Number(n) if n.is_f64() => match n.as_f64() {
            Some(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.2e18 => {
                Value::Number((f as i64).into())
            }
            _ => v.clone(),
        },
        Value::Array(a) => Value::Array(a.iter().map(normalize).collect()),
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, v)| (k.clone(), normalize(v))).collect())
        }
        _ => v.clone(),
    }
}

/// How deeply a value nests, without recursion.
pub(crate) fn depth_of(v: &Value) -> usize {
    let mut max = 0;
    let mut stack = vec![(v, 1usize)];
    while let Some((v, d)) = stack.pop() {
        max = max.max(d);
        if d > MAX_DEPTH {
            break;
        }
        match v {
            Value::Array(a) => stack.extend(a.iter().map(|x| (x, d + 1))),
            Value::Object(m) => stack.extend(m.values().map(|x| (x, d + 1))),
            _ => {}
        }
    }
    max
}

/// The document after the edit, by JSON pointer operations: what the new text must read as.
pub(crate) fn expected_value(doc: &Value, segs: &[String], op: Op, pointer: &str) -> Result<Value, EditError> {
    let mut out = doc.clone();
    let not_found = || EditError::NotFound {
        pointer: pointer.to_string(),
        at: None,
    };
    let Some((last, parents)) = segs.split_last() else {
        return match op {
            Op::Set(v) => Ok(v.clone()),
            Op::Remove => Err(EditError::BadPointer {
                pointer: pointer.to_string(),
                reason: "the document root cannot be removed".to_string(),
            }),
            Op::Append(v) => match out {
                Value::Array(mut a) => {
                    a.push(v.clone());
                    Ok(Value::Array(a))
                }
                Value::Null => Ok(Value::Array(vec![v.clone()])),
                other => Err(EditError::NotSequence {
                    pointer: pointer.to_string(),
                    found: type_name(&other),
                    at: None,
                }),
            },
        };
    };
    let mut cur = &mut out;
    for s in parents {
        cur = match cur {
            Value::Object(m) => m.get_mut(s).ok_or_else(not_found)?,
            Value::Array(a) => {
                let len = a.len();
                parse_index(s)
                    .and_then(|i| a.get_mut(i))
                    .ok_or_else(|| EditError::OutOfRange {
                        pointer: pointer.to_string(),
                        index: s.clone(),
                        len,
                        at: None,
                    })?
            }
            other => {
                return Err(EditError::NotContainer {
                    pointer: pointer.to_string(),
                    found: type_name(other),
                    at: None,
                })
            }
        };
    }
    let out_of_range = |len: usize| EditError::OutOfRange {
        pointer: pointer.to_string(),
        index: last.clone(),
        len,
        at: None,
    };
    match (cur, op) {
        (Value::Object(m), Op::Set(v)) => {
            m.insert(last.clone(), v.clone());
        }
        (Value::Object(m), Op::Remove) => {
            m.remove(last).ok_or_else(not_found)?;
        }
        (Value::Object(m), Op::Append(v)) => match m.get_mut(last) {
            None => {
                m.insert(last.clone(), Value::Array(vec![v.clone()]));
            }
            Some(Value::Array(a)) => a.push(v.clone()),
            Some(x @ Value::Null) => *x = Value::Array(vec![v.clone()]),
            Some(other) => {
                return Err(EditError::NotSequence {
                    pointer: pointer.to_string(),
                    found: type_name(other),
                    at: None,
                })
            }
        },
        (Value::Array(a), op) => {
            let len = a.len();
            if last == "-" {
                match op {
                    Op::Set(v) => a.push(v.clone()),
                    _ => return Err(out_of_range(len)),
                }
            } else {
                let i = parse_index(last)
                    .filter(|&i| i < len)
                    .ok_or_else(|| out_of_range(len))?;
                match op {
                    Op::Set(v) => a[i] = v.clone(),
                    Op::Remove => {
                        a.remove(i);
                    }
                    Op::Append(v) => match &mut a[i] {
                        Value::Array(x) => x.push(v.clone()),
                        x @ Value::Null => *x = Value::Array(vec![v.clone()]),
                        other => {
                            return Err(EditError::NotSequence {
                                pointer: pointer.to_string(),
                                found: type_name(other),
                                at: None,
                            })
                        }
                    },
                }
            }
        }
        (other, _) => {
            return Err(EditError::NotContainer {
                pointer: pointer.to_string(),
                found: type_name(other),
                at: None,
            })
        }
    }
    Ok(out)
}

/// The new text must read as the old documents with the one change.
pub(crate) fn verify(
    new_body: &str,
    docs: &[(Value, SourceMap)],
    index: usize,
    expected: &Value,
    json: bool,
) -> Result<(), String> {
    if json {
        read_json(new_body.trim_start()).map_err(|e| format!("no longer JSON: {}", e))?;
    }
    let new_docs = yaml::read_documents(new_body).map_err(|e| e.to_string())?;
    if new_docs.len() != docs.len() {
        return Err(format!(
            "{} documents instead of {}",
            new_docs.len(),
            docs.len()
        ));
    }
    for (i, (new, (old, _))) in new_docs.iter().zip(docs).enumerate() {
        let want = if i == index { expected } else { old };
        if new != want {
            return Err(format!("document {} reads differently", i + 1));
        }
    }
    Ok(())
}

