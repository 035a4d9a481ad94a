//! Reading YAML and JSON the way Kubernetes does (sigs.k8s.io/yaml over go-yaml v2, then
//! the apiserver's JSON decoding): YAML 1.1 booleans, go-yaml's number resolution, no
//! timestamps, floats without a fraction becoming integers, duplicate keys rejected (as
//! kubectl's strict decoding does), anchors and aliases. The builder is iterative, so
//! hostile nesting ends in an error, never a stack overflow.

use serde_json::{Map, Value};
use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::Marker;
use crate::k8s::request::{entity_too_large, MAX_REQUEST_BODY_BYTES};
use crate::text::aliases::{AliasCounter, Excess};
use crate::text::json::{looks_like_json, min_len_of_scalar, read_json, too_big_to_send};
use crate::text::read_error::{
    err_at, stream_too_large, too_deep, ReadError, MAX_BYTES, MAX_DEPTH, MAX_POSITIONED_NODES, MAX_STREAM_JSON,
};
use crate::text::scalars::{resolve_key, resolve_scalar};
use crate::text::source_map::{json_source_map, PosBuilder, SourceMap};
use crate::text::node_index::NodeIndex;

/// Whether [`read_documents`] reads block-style text by the fast path (`text::block`), so
/// that reading without an index is faster than with one: native builds; the wasm builds
/// leave it out for the npm size budget.
pub(crate) const FAST_PATH: bool = cfg!(not(target_arch = "wasm32"));

/// Reads every document of a YAML stream (or one JSON document).
pub fn read_documents(text: &str) -> Result<Vec<Value>, ReadError> {
    // A byte-order mark is not part of the first key (editors on Windows write one).
    let text = strip_bom(text);
    Ok(read_documents_impl(text, false, &mut None)?
        .into_iter()
        .map(|(v, _)| v)
        .collect())
}

/// Reads every document like [`read_documents`], each with its [`SourceMap`]: where every
/// node of the JSON value stands in `text`.
pub fn read_documents_with_positions(text: &str) -> Result<Vec<(Value, SourceMap)>, ReadError> {
    let text = strip_bom(text);
    Ok(read_documents_impl(text, true, &mut None)?
        .into_iter()
        .map(|(v, p)| (v, p.unwrap_or_else(|| SourceMap::empty(text))))
        .collect())
}

/// Reads every document like [`read_documents`], with the [`NodeIndex`] that lets
/// [`crate::text::splice::splice`] re-read the text after an edit inside one scalar. No
/// index for a JSON text, a text that starts with a byte-order mark, or one of more than
/// `MAX_POSITIONED_NODES` nodes.
pub fn read_documents_indexed(full: &str) -> Result<(Vec<Value>, Option<NodeIndex>), ReadError> {
    let text = strip_bom(full);
    let mut index = (text.len() == full.len()).then(NodeIndex::new);
    let docs = read_documents_impl(text, false, &mut index)?;
    Ok((docs.into_iter().map(|(v, _)| v).collect(), index))
}

/// [`read_documents_indexed`] and [`read_documents_with_positions`] in one reading: the
/// documents, where their nodes stand, and the index (a reader that keeps positions across
/// edits, [`crate::text::splice::IndexedText::read_with_positions`]).
pub fn read_documents_indexed_with_positions(
    full: &str,
) -> Result<(Vec<Value>, Vec<SourceMap>, Option<NodeIndex>), ReadError> {
    let text = strip_bom(full);
    let mut index = (text.len() == full.len()).then(NodeIndex::new);
    let docs = read_documents_impl(text, true, &mut index)?;
    let (values, maps) = docs
        .into_iter()
        .map(|(v, p)| (v, p.unwrap_or_else(|| SourceMap::empty(text))))
        .unzip();
    Ok((values, maps, index))
}

fn read_documents_impl(
    text: &str,
    track: bool,
    index: &mut Option<NodeIndex>,
) -> Result<Vec<(Value, Option<SourceMap>)>, ReadError> {
    if text.len() > MAX_BYTES {
        return Err(err_at(
            format!(
                "document is {} bytes, more than the {} bytes crdlab reads",
                text.len(),
                MAX_BYTES
            ),
            None,
        ));
    }
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    // JSON too big to send goes to the YAML reader (JSON is YAML), which stops building at
    // the limit yet reads on for a syntax error; serde_json would build it all.
    if (trimmed.starts_with('{') || trimmed.starts_with('[')) && !too_big_to_send(trimmed) {
        // JSON: numbers keep the int/float distinction the apiserver's JSON decoder makes.
        // A JSON text that fails may still be YAML flow style; fall back to YAML then.
        match read_json(trimmed) {
            Ok(v) => {
                let map = if track {
                    Some(json_source_map(text, text.len() - trimmed.len()))
                } else {
                    None
                };
                *index = None;
                return Ok(vec![(v, map)]);
            }
            Err(e) if looks_like_json(trimmed) => {
                return Err(shift_position(e, &text[..text.len() - trimmed.len()]))
            }
            Err(_) => {}
        }
    }
    #[cfg_attr(target_arch = "wasm32", allow(unused_variables))]
    let breaks_as_yaml_rust2 = check_printable(text)?;
    // Block-style text (nearly every CRD and object) takes the fast path when nothing but
    // the values is wanted; it gives up on anything else, which the general reader reads.
    #[cfg(not(target_arch = "wasm32"))]
    if !track && index.is_none() && breaks_as_yaml_rust2 {
        if let Some(docs) = crate::text::block::read_block_documents(text) {
            return Ok(docs.into_iter().map(|v| (v, None)).collect());
        }
    }
    read_yaml_impl(text, track, index)
}

/// Every document of a YAML text as the general reader reads it, without the fast path
/// (for the fast path's differential tests).
#[cfg(test)]
pub(crate) fn read_documents_general(text: &str) -> Result<Vec<Value>, ReadError> {
    let text = strip_bom(text);
    check_printable(text)?;
    Ok(read_yaml_impl(text, false, &mut None)?.into_iter().map(|(v, _)| v).collect())
}

/// Whether `read_documents` would hand `text` to the fast path.
#[cfg(test)]
pub(crate) fn fast_path_may_read(text: &str) -> bool {
    text.len() == strip_bom(text).len() && text.len() <= MAX_BYTES && matches!(check_printable(text), Ok(true))
}

/// go-yaml's reader (`yaml_parser_update_buffer`) refuses any character YAML does not
/// count as printable, wherever it stands (a quoted scalar, a comment): C0 controls but tab,
/// line feed and carriage return, DEL, C1 controls but NEL, U+FFFE and U+FFFF. Its error has
/// no line (a reader error sets no mark); sigs.k8s.io/yaml's `Unmarshal` wraps it. The place
/// is kept for the ranges the editors show. `Ok(false)`: the text holds a character that
/// YAML 1.1 reads as a line break but yaml-rust2 does not (NEL, LS, PS) or a byte-order
/// mark, which the fast path ([`crate::text::block`]) leaves to the general reader.
fn check_printable(text: &str) -> Result<bool, ReadError> {
    let printable = |c: char| {
        matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{7e}' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
    };
    // Bytes first (a CRD is megabytes, nearly all printable ASCII): only from the first byte
    // that is not printable ASCII on are characters decoded.
    // Blocks of 64 bytes are checked without branches (the compiler vectorizes the fold).
    let ascii_ok = |b: u8| (0x20..=0x7e).contains(&b) | (b == b'\t') | (b == b'\n') | (b == b'\r');
    let bytes = text.as_bytes();
    let clean = bytes
        .chunks(64)
        .take_while(|c| c.iter().fold(true, |ok, &b| ok & ascii_ok(b)))
        .count()
        * 64;
    let from = (clean.min(bytes.len())..bytes.len())
        .find(|&i| !ascii_ok(bytes[i]))
        .unwrap_or(bytes.len());
    let mut plain_breaks = true;
    let Some(at) = text[from..]
        .find(|c: char| {
            plain_breaks &= !matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}');
            !printable(c)
        })
        .map(|i| from + i)
    else {
        return Ok(plain_breaks);
    };
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    Err(ReadError {
        message: "error converting YAML to JSON: yaml: control characters are not allowed".into(),
        line: Some(line),
        column: Some(column),
    })
}

/// Reads exactly one document; empty input is an error.
///
/// # Example
///
/// ```
/// let v = crdlab::text::yaml::read_document("on: yes\nk: 012\n").unwrap();
/// // YAML 1.1 booleans (keys become strings), go-yaml numbers: as the apiserver reads them.
/// assert_eq!(v, serde_json::json!({"true": true, "k": 10}));
/// ```
pub fn read_document(text: &str) -> Result<Value, ReadError> {
    let mut docs = read_documents(text)?;
    docs.retain(|d| !d.is_null());
    match docs.len() {
        0 => Err(err_at("empty document", None)),
        _ => Ok(docs.swap_remove(0)),
    }
}

/// Reads exactly one document like [`read_document`], with its [`SourceMap`].
pub fn read_document_with_positions(text: &str) -> Result<(Value, SourceMap), ReadError> {
    let mut docs = read_documents_with_positions(text)?;
    docs.retain(|(d, _)| !d.is_null());
    match docs.len() {
        0 => Err(err_at("empty document", None)),
        _ => Ok(docs.swap_remove(0)),
    }
}

/// A JSON error's position counted from the start of the whole text (JSON is read after
/// the leading blanks, `skipped`).
fn shift_position(mut e: ReadError, skipped: &str) -> ReadError {
    let newlines = skipped.matches('\n').count();
    if let Some(l) = e.line.as_mut() {
        if *l == 1 {
            let last = skipped.rsplit('\n').next().unwrap_or("");
            e.column = e.column.map(|c| c + last.chars().count());
        }
        *l += newlines;
    }
    e
}

enum Frame {
    Seq {
        items: Vec<Value>,
        anchor: usize,
        /// go-yaml's decode count and the document's JSON lower bound before this node
        /// (its anchor's weight and JSON size are the differences at its end).
        start: u64,
        start_json: u64,
    },
    Map {
        map: Map<String, Value>,
        key: Option<(String, Marker)>,
        anchor: usize,
        merged: Vec<String>,
        start: u64,
        start_json: u64,
    },
}

impl Frame {
    fn anchor(&self) -> usize {
        match self {
            Frame::Seq { anchor, .. } | Frame::Map { anchor, .. } => *anchor,
        }
    }
    fn start(&self) -> u64 {
        match self {
            Frame::Seq { start, .. } | Frame::Map { start, .. } => *start,
        }
    }
}

/// An anchored value as first built, with what go-yaml decodes again at each alias of it:
/// `weight` nodes; and at least `json` bytes of JSON.
struct Anchored {
    value: Value,
    weight: u64,
    json: u64,
}

/// Reads a YAML stream into JSON values, one per document.
pub fn read_yaml(text: &str) -> Result<Vec<Value>, ReadError> {
    Ok(read_yaml_impl(text, false, &mut None)?
        .into_iter()
        .map(|(v, _)| v)
        .collect())
}

/// The name of the alias or anchor written at `mark` (`*name`): yaml-rust2's events carry
/// only its number, go-yaml's messages its name.
fn name_at(text: &str, mark: &Marker) -> String {
    let rest = match text.char_indices().nth(mark.index()) {
        Some((b, _)) => &text[b..],
        None => "",
    };
    let rest = rest.strip_prefix(['*', '&']).unwrap_or(rest);
    rest.chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, ',' | '[' | ']' | '{' | '}'))
        .collect()
}

/// go-yaml v2's strict decoding collects every duplicate key of a document
/// (`decoder.setMapIndex`, one `TypeError` line each) and reports them together once the
/// document is decoded, unless decoding failed outright first.
fn duplicate_keys_error(dups: &[(String, Marker)]) -> Option<ReadError> {
    let (_, first) = dups.first()?;
    let lines: Vec<String> = dups
        .iter()
        .map(|(k, m)| {
            format!(
                "line {}: key {} already set in map",
                m.line(),
                crate::go::strconv::quote(k)
            )
        })
        .collect();
    Some(err_at(
        format!(
            "error converting YAML to JSON: yaml: unmarshal errors:\n  {}",
            lines.join("\n  ")
        ),
        Some(first),
    ))
}

/// The YAML builder; with `track`, a [`SourceMap`] is built beside each document.
///
/// The scanner is yaml-rust2 with go-yaml v2's acceptance of quoted scalars whose
/// continuation lines stand left of their block (vendor/yaml-rust2/CRDLAB-PATCH.md).
///
/// go-yaml parses a whole document before decoding it, so a syntax error anywhere in the
/// document wins over a decoding failure (excessive aliasing, an anchor containing itself),
/// which wins over the duplicate keys strict decoding collects: after a decoding failure
/// the rest of the document is only parsed, and duplicate keys are reported at its end.
fn read_yaml_impl(
    text: &str,
    track: bool,
    index: &mut Option<NodeIndex>,
) -> Result<Vec<(Value, Option<SourceMap>)>, ReadError> {
    let mut parser = Parser::new_from_str(text);
    let mut pos = if track {
        Some(PosBuilder::for_yaml(text))
    } else {
        None
    };
    let mut docs = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut anchors: std::collections::HashMap<usize, Anchored> = Default::default();
    let mut doc_value: Option<Value> = None;
    let mut count = AliasCounter::default();
    // A lower bound of the current document's JSON size. Once it passes the request body
    // limit the document cannot be sent (the apiserver refuses the body before decoding
    // it): nothing more is built, but the text is still parsed and aliases still counted,
    // since kubectl's reading (syntax, go-yaml's alias rule) fails before the apiserver
    // sees a body. So no document grows memory past what a 3 MiB request holds.
    let mut json: u64 = 0;
    let mut oversize = false;
    // The finished documents' JSON, and the nodes built with positions, in the whole text.
    let mut stream_json: u64 = 0;
    let mut positioned: u64 = 0;
    // The decoding failure of the current document, reported at its end.
    let mut failed: Option<ReadError> = None;
    let mut dups: Vec<(String, Marker)> = Vec::new();
    loop {
        let (ev, mark) = parser.next_token().map_err(|e| {
            let m = *e.marker();
            if e.info() == "while parsing node, found unknown anchor" {
                // go-yaml v2's parser (`parser.alias`).
                return err_at(
                    format!("yaml: unknown anchor '{}' referenced", name_at(text, &m)),
                    Some(&m),
                );
            }
            err_at(format!("yaml: {}", e.info()), Some(&m))
        })?;
        if failed.is_some() {
            match ev {
                Event::DocumentEnd | Event::StreamEnd => return Err(failed.take().unwrap_or_else(|| err_at("", None))),
                _ => continue,
            }
        }
        // The value being read is the value of a merge key `<<`.
        let merge_value = matches!(stack.last(), Some(Frame::Map { key: Some((k, _)), .. }) if k == "<<");
        // A finished node: its value, anchor, weight and JSON lower bound.
        let finished: Result<Option<(Value, usize, u64, u64)>, Excess> = match ev {
            Event::StreamStart | Event::Nothing => Ok(None),
            Event::StreamEnd => break,
            Event::DocumentStart => {
                doc_value = None;
                anchors.clear();
                dups.clear();
                count = AliasCounter::default();
                json = 0;
                oversize = false;
                // The document node is decoded (counted) too.
                let _ = count.node();
                if let Some(p) = pos.as_mut() {
                    p.start_document();
                }
                if let Some(ix) = index.as_mut() {
                    ix.start_document();
                }
                Ok(None)
            }
            Event::DocumentEnd => {
                if oversize {
                    return Err(err_at(entity_too_large(), None));
                }
                if let Some(e) = duplicate_keys_error(&dups) {
                    return Err(e);
                }
                let map = pos.as_mut().map(|p| p.take_root());
                if let Some(ix) = index.as_mut() {
                    ix.end_document(json);
                }
                docs.push((doc_value.take().unwrap_or(Value::Null), map));
                stream_json += json;
                json = 0;
                Ok(None)
            }
            Event::Alias(id) => match anchors.get(&id) {
                Some(a) => match count.expand(a.weight) {
                    // Counted (and refused) before anything is cloned.
                    Ok(()) => {
                        if let Some(p) = pos.as_mut() {
                            p.leaf(&mark, None);
                        }
                        if let Some(ix) = index.as_mut() {
                            ix.alias(mark.index());
                        }
                        json += a.json;
                        let v = if oversize { Value::Null } else { a.value.clone() };
                        Ok(Some((v, 0, 0, a.json)))
                    }
                    Err(e) => Err(e),
                },
                None => match stack.iter().find(|f| f.anchor() == id) {
                    Some(open) => {
                        // An alias inside its own anchored value: go-yaml decodes the alias
                        // node, then the anchored value again up to this alias (all under
                        // the alias), and fails there (`decoder.alias`) unless the ratio
                        // failed first.
                        let again = count.decode + 1 - open.start();
                        match count.expand(again) {
                            Err(e) => Err(e),
                            Ok(()) => {
                                failed = Some(err_at(
                                    format!(
                                        "yaml: anchor '{}' value contains itself",
                                        name_at(text, &mark)
                                    ),
                                    Some(&mark),
                                ));
                                continue;
                            }
                        }
                    }
                    None => {
                        return Err(err_at(
                            format!("yaml: unknown anchor '{}' referenced", name_at(text, &mark)),
                            Some(&mark),
                        ))
                    }
                },
            },
            Event::Scalar(s, style, anchor, tag) => {
                // Keys are resolved by the map frame (they become strings).
                let is_key = matches!(stack.last(), Some(Frame::Map { key: None, .. }));
                let start = count.decode;
                if is_key {
                    // The positions first: the scalar's text then moves into the key.
                    if let Some(p) = pos.as_mut() {
                        p.key(&mark, &s, style);
                    }
                    // An anchored key (rare) keeps its text as the anchor's value.
                    let anchored = (anchor > 0).then(|| (s.len() as u64 + 2, if oversize { Value::Null } else { Value::String(s.clone()) }));
                    let k = resolve_key(s, style, tag.as_ref(), Some(&mark))?;
                    if let Some(ix) = index.as_mut() {
                        ix.key(mark.index(), k == "<<" || anchor > 0 || tag.is_some());
                    }
                    // go-yaml's mapping decoder hands a merge key's value to `merge`
                    // without decoding the key.
                    let counted = if k == "<<" { Ok(()) } else { count.node() };
                    if k != "<<" {
                        json += k.len() as u64 + 3;
                    }
                    if let Some(Frame::Map { key, .. }) = stack.last_mut() {
                        *key = Some((k, mark));
                    }
                    if let Some((json, value)) = anchored {
                        anchors.insert(anchor, Anchored { weight: 1, json, value });
                    }
                    counted.map(|_| None)
                } else {
                    // The positions first: the scalar's text then moves into the value.
                    if let Some(p) = pos.as_mut() {
                        p.leaf(&mark, Some((&s, style)));
                        p.props(anchor > 0, tag.is_some());
                    }
                    if let Some(ix) = index.as_mut() {
                        ix.scalar(mark.index(), style, anchor > 0 || tag.is_some());
                    }
                    let v = resolve_scalar(s, style, tag.as_ref(), Some(&mark))?;
                    let j = min_len_of_scalar(&v);
                    json += j;
                    count
                        .node()
                        .map(|_| Some((v, anchor, count.decode - start, j)))
                }
            }
            Event::SequenceStart(anchor, tag) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(err_at(too_deep(), Some(&mark)));
                }
                // The sequence of `<<: [*a, *b]` is not decoded itself, only its items
                // (go-yaml's `decoder.merge`); aliased elsewhere it would be: its weight
                // counts it.
                let (start, counted) = if merge_value {
                    (count.decode.saturating_sub(1), Ok(()))
                } else {
                    (count.decode, count.node())
                };
                stack.push(Frame::Seq {
                    items: Vec::new(),
                    anchor,
                    start,
                    start_json: json,
                });
                // `[`, and `]` or a comma with each item.
                json += 1;
                if let Some(p) = pos.as_mut() {
                    p.open(&mark, b'[');
                    p.open_props(anchor > 0, tag.is_some());
                }
                if let Some(ix) = index.as_mut() {
                    ix.open(mark.index(), false, anchor > 0 || tag.is_some() || merge_value);
                }
                counted.map(|_| None)
            }
            Event::MappingStart(anchor, tag) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(err_at(too_deep(), Some(&mark)));
                }
                let start = count.decode;
                let counted = count.node();
                stack.push(Frame::Map {
                    map: Map::new(),
                    key: None,
                    anchor,
                    merged: Vec::new(),
                    start,
                    start_json: json,
                });
                json += 1;
                if let Some(p) = pos.as_mut() {
                    p.open(&mark, b'{');
                    p.open_props(anchor > 0, tag.is_some());
                }
                if let Some(ix) = index.as_mut() {
                    ix.open(mark.index(), true, anchor > 0 || tag.is_some() || merge_value);
                }
                counted.map(|_| None)
            }
            Event::SequenceEnd => match stack.pop() {
                Some(Frame::Seq {
                    items,
                    anchor,
                    start,
                    start_json,
                }) => {
                    if let Some(p) = pos.as_mut() {
                        p.close(&mark, b']');
                    }
                    if let Some(ix) = index.as_mut() {
                        ix.close();
                    }
                    Ok(Some((
                        Value::Array(items),
                        anchor,
                        count.decode - start,
                        json - start_json,
                    )))
                }
                _ => return Err(err_at("yaml: unbalanced sequence", Some(&mark))),
            },
            Event::MappingEnd => match stack.pop() {
                Some(Frame::Map {
                    map,
                    anchor,
                    start,
                    start_json,
                    ..
                }) => {
                    if let Some(p) = pos.as_mut() {
                        p.close(&mark, b'}');
                    }
                    if let Some(ix) = index.as_mut() {
                        ix.close();
                    }
                    Ok(Some((
                        Value::Object(map),
                        anchor,
                        count.decode - start,
                        json - start_json,
                    )))
                }
                _ => return Err(err_at("yaml: unbalanced mapping", Some(&mark))),
            },
        };
        let finished = match finished {
            Ok(f) => f,
            Err(excess) => {
                failed = Some(err_at(excess.message(), Some(&mark)));
                continue;
            }
        };
        if let Some((value, anchor, weight, value_json)) = finished {
            positioned += 1;
            if positioned > MAX_POSITIONED_NODES {
                pos = None;
                *index = None;
            }
            if anchor > 0 {
                anchors.insert(
                    anchor,
                    Anchored {
                        value: if oversize { Value::Null } else { value.clone() },
                        weight,
                        json: value_json,
                    },
                );
            }
            match stack.last_mut() {
                None => {
                    if let Some(p) = pos.as_mut() {
                        p.attach(None);
                    }
                    doc_value = Some(value)
                }
                Some(Frame::Seq { items, .. }) => {
                    if let Some(p) = pos.as_mut() {
                        p.attach(None);
                    }
                    json += 1;
                    if !oversize {
                        items.push(value)
                    }
                }
                Some(Frame::Map {
                    map, key, merged, ..
                }) => {
                    let (k, kmark) = match key.take() {
                        Some(k) => k,
                        None => {
                            // A non-scalar key: go-yaml would make it a map key that JSON
                            // cannot hold.
                            return Err(err_at(
                                "error converting YAML to JSON: yaml: invalid map key: complex keys are not supported",
                                Some(&mark),
                            ));
                        }
                    };
                    if let Some(p) = pos.as_mut() {
                        p.attach(Some(&k));
                    }
                    if oversize {
                        // Nothing is built any more, merges neither: a bad merge value
                        // past this point goes unseen in a document too big to send.
                        json += 1;
                    } else if k == "<<" {
                        // Merged keys may be overridden: not counted (a lower bound).
                        json -= value_json;
                        merge_into(map, merged, value, &kmark)?;
                    } else if map.contains_key(&k) && !merged.contains(&k) {
                        // Strict decoding keeps the first value and reports the key once
                        // the document is decoded.
                        json -= value_json + k.len() as u64 + 3;
                        dups.push((k, kmark));
                    } else {
                        json += 1;
                        merged.retain(|m| m != &k);
                        map.insert(k, value);
                    }
                }
            }
        }
        // An oversize document counts as one at the limit: refused on its own terms.
        if stream_json + json.min(MAX_REQUEST_BODY_BYTES as u64 + 1) > MAX_STREAM_JSON {
            return Err(err_at(stream_too_large(), Some(&mark)));
        }
        if !oversize && json > MAX_REQUEST_BODY_BYTES as u64 {
            // What was built is dropped now; the weights stay for the alias rule.
            oversize = true;
            pos = None;
            *index = None;
            doc_value = None;
            for f in stack.iter_mut() {
                match f {
                    Frame::Seq { items, .. } => *items = Vec::new(),
                    Frame::Map { map, merged, .. } => {
                        *map = Map::new();
                        *merged = Vec::new();
                    }
                }
            }
            for a in anchors.values_mut() {
                a.value = Value::Null;
            }
        }
    }
    if let Some(e) = failed.take() {
        return Err(e);
    }
    if oversize {
        return Err(err_at(entity_too_large(), None));
    }
    if let Some(v) = doc_value {
        if let Some(e) = duplicate_keys_error(&dups) {
            return Err(e);
        }
        // A document the stream ended without closing: no index (its size is unknown).
        *index = None;
        let map = pos.as_mut().map(|p| p.take_root());
        docs.push((v, map));
    }
    Ok(docs)
}

/// `<<: *anchor` (or a list of them): keys not already present are merged in.
fn merge_into(
    map: &mut Map<String, Value>,
    merged: &mut Vec<String>,
    v: Value,
    mark: &Marker,
) -> Result<(), ReadError> {
    let sources = match v {
        Value::Object(m) => vec![m],
        Value::Array(a) => {
            let mut out = Vec::new();
            for x in a {
                match x {
                    Value::Object(m) => out.push(m),
                    _ => {
                        return Err(err_at(
                            "yaml: map merge requires map or sequence of maps as the value",
                            Some(mark),
                        ))
                    }
                }
            }
            out
        }
        _ => {
            return Err(err_at(
                "yaml: map merge requires map or sequence of maps as the value",
                Some(mark),
            ))
        }
    };
    for m in sources {
        for (k, v) in m {
            if !map.contains_key(&k) {
                merged.push(k.clone());
                map.insert(k, v);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(s: &str) -> Value {
        read_document(s).unwrap()
    }

    /// go-yaml's reader refuses control characters anywhere in a YAML text (a NUL no
    /// longer ends the scalar silently); tabs, NEL, a BOM and U+FFFD are printable.
    #[test]
    fn control_characters_are_refused() {
        let control = "error converting YAML to JSON: yaml: control characters are not allowed";
        for (text, line, column) in [
            ("a: \"x\u{1}\"\n", 1, 6),
            ("a: 1\nb: x\u{0}y\n", 2, 5),
            ("# \u{7f}\na: 1\n", 1, 3),
            ("a: \u{9f}\n", 1, 4),
            ("a: \u{ffff}\n", 1, 4),
        ] {
            let e = read_document(text).unwrap_err();
            assert_eq!((e.message.as_str(), e.line, e.column), (control, Some(line), Some(column)), "{:?}", text);
        }
        assert_eq!(one("a: \"b\tc\u{feff}\u{fffd}\"\n"), json!({"a": "b\tc\u{feff}\u{fffd}"}));
    }

    #[test]
    fn yaml11_booleans_and_numbers() {
        assert_eq!(one("a: yes\nb: off\nc: 'yes'\nd: 1.0\ne: 1.5\nf: 0x1F\ng: 017\nh: 2024-01-01\ni: ~\nj: 1_000"),
            json!({"a": true, "b": false, "c": "yes", "d": 1, "e": 1.5, "f": 31, "g": 15, "h": "2024-01-01", "i": null, "j": 1000}));
    }

    #[test]
    fn keys_become_strings() {
        // go-yaml v2 resolves `on` and `y` as booleans, keys included: both become "true".
        assert_eq!(
            one("1: a\non: c\n0x10: d\n"),
            json!({"1": "a", "true": "c", "16": "d"})
        );
        assert_eq!(one("y: 1\nn: 2\n"), json!({"true": 1, "false": 2}));
    }

    #[test]
    fn duplicate_keys_are_errors() {
        let e = read_document("a: 1\nb: 2\na: 3\n").unwrap_err();
        assert!(e.message.contains("key \"a\" already set in map"), "{}", e);
        assert_eq!(e.line, Some(3));
    }

    #[test]
    fn anchors_and_merge() {
        assert_eq!(
            one("base: &b {a: 1, b: 2}\nd:\n  <<: *b\n  b: 3\n"),
            json!({"base": {"a": 1, "b": 2}, "d": {"a": 1, "b": 3}})
        );
    }

    #[test]
    fn byte_order_mark_is_ignored() {
        assert_eq!(one("\u{feff}a: 1\n"), json!({"a": 1}));
    }

    #[test]
    fn multi_document() {
        let d = read_documents("a: 1\n---\nb: 2\n").unwrap();
        assert_eq!(d, vec![json!({"a": 1}), json!({"b": 2})]);
    }

    #[test]
    fn json_keeps_float_vs_int() {
        let v = one("{\"a\": 1.0, \"b\": 2}");
        assert!(v["a"].is_f64());
        assert!(v["b"].is_i64());
    }

    #[test]
    fn deep_nesting_is_an_error() {
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        let e = read_document(&deep).unwrap_err();
        assert!(e.message.contains("nesting deeper than"), "{}", e);
        let deep_yaml = "a:\n".to_string()
            + &(1..3000)
                .map(|i| format!("{}a:\n", " ".repeat(i)))
                .collect::<String>();
        assert!(read_document(&deep_yaml).is_err());
    }

    /// An anchored list of 120 scalars (weight 121) aliased `n` times: the document
    /// decodes 126 + 122n nodes, 121n of them under an alias.
    fn aliased_list(n: usize) -> String {
        format!(
            "a: &a [{}x]\nb: [{}*a]\n",
            "x,".repeat(119),
            "*a,".repeat(n - 1)
        )
    }

    #[test]
    fn alias_ratio_is_go_yamls_to_the_node() {
        // 121*567 / (126 + 122*567) is exactly 0.99: allowed; one more alias is not.
        let v = read_document(&aliased_list(567)).unwrap();
        assert_eq!(v["b"].as_array().unwrap().len(), 567);
        let e = read_document(&aliased_list(568)).unwrap_err();
        assert_eq!(e.message, "yaml: document contains excessive aliasing");
    }

    #[test]
    fn merge_keys_are_not_counted() {
        // A map of 120 pairs (weight 241) merged n times: each item decodes its map, the
        // alias and the anchored map again (243), the `<<` key not at all. Were the key
        // counted, the ratio would tend to 241/244 < 0.99 and never fail.
        let doc = |n: usize| {
            let keys: Vec<String> = (0..120).map(|i| format!("k{}: 0", i)).collect();
            format!(
                "m: &m {{{}}}\nl: [{}{{<<: *m}}]\n",
                keys.join(", "),
                "{<<: *m}, ".repeat(n - 1)
            )
        };
        assert!(read_document(&doc(566)).is_ok());
        let e = read_document(&doc(567)).unwrap_err();
        assert_eq!(e.message, "yaml: document contains excessive aliasing");
    }

    #[test]
    fn billion_laughs_costs_nothing() {
        let mut doc = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for i in 1..=11 {
            doc += &format!("a{}: &a{} [{}]\n", i, i, vec![format!("*a{}", i - 1); 10].join(", "));
        }
        let t = std::time::Instant::now();
        let e = read_document(&doc).unwrap_err();
        assert_eq!(e.message, "yaml: document contains excessive aliasing");
        assert!(t.elapsed() < std::time::Duration::from_secs(1));
        // Counting is per document: the next one starts afresh.
        let ok = format!("{}---\nb: 1\n", aliased_list(500));
        assert_eq!(read_documents(&ok).unwrap().len(), 2);
    }

    #[test]
    fn long_strings_cannot_be_multiplied_past_the_request_limit() {
        // Within go-yaml's ratio, but 600 copies of a 1 MiB string: more than a request
        // holds, so nothing past the third copy is built.
        let doc = format!("s: &s {}\nl: [{}*s]\n", "x".repeat(1 << 20), "*s, ".repeat(599));
        let e = read_document(&doc).unwrap_err();
        assert_eq!(e.to_string(), "Request entity too large: limit is 3145728");
    }

    /// A flow list of `n` ones: 2n + 3 bytes of JSON (`{"a":[1,…]}`).
    fn ones(n: usize) -> String {
        format!("a: [{}1]\n", "1,".repeat(n - 1))
    }

    #[test]
    fn a_document_too_big_to_send_is_refused_while_read() {
        // `{"a":[1,…,1]}` is 2n + 7 bytes, all of which the bound counts here.
        let n = (MAX_REQUEST_BODY_BYTES - 7) / 2;
        assert!(read_document(&ones(n)).is_ok());
        let e = read_document(&ones(n + 1)).unwrap_err();
        assert_eq!(e.to_string(), "Request entity too large: limit is 3145728");
        // kubectl reads the whole file before sending: a later syntax error wins, and so
        // does go-yaml's alias rule.
        let bad = format!("{}b: [\n", ones(n + 1));
        assert!(read_document(&bad).unwrap_err().message.starts_with("yaml: "), "{}", read_document(&bad).unwrap_err());
        let aliased = format!("{}x: &x y\nl: [{}*x]\n", ones(n + 1), "*x,".repeat(2_000_000));
        assert_eq!(read_document(&aliased).unwrap_err().message, "yaml: document contains excessive aliasing");
    }

    #[test]
    fn positions_stop_past_their_bound_but_values_do_not() {
        let big = ones(MAX_POSITIONED_NODES as usize + 10);
        let (v, map) = read_document_with_positions(&big).unwrap();
        assert_eq!(v["a"].as_array().unwrap().len(), MAX_POSITIONED_NODES as usize + 10);
        assert!(map.root.is_none());
        let (_, map) = read_document_with_positions(&ones(1000)).unwrap();
        assert!(map.root.is_some());
    }

    #[test]
    fn a_stream_holds_at_most_its_bound() {
        let doc = format!("s: {}\n", "x".repeat(3_000_000));
        let within = vec![doc.as_str(); 5].join("---\n");
        assert_eq!(read_documents(&within).unwrap().len(), 5);
        let over = vec![doc.as_str(); 6].join("---\n");
        let e = read_documents(&over).unwrap_err();
        assert!(e.message.starts_with("the documents hold more than 16777216 bytes of JSON"), "{}", e);
    }

    #[test]
    fn anchor_containing_itself() {
        let e = read_document("a: &x [1, *x]\n").unwrap_err();
        assert_eq!(e.message, "yaml: anchor 'x' value contains itself");
        let e = read_document("a: *nope\n").unwrap_err();
        assert_eq!(e.message, "yaml: unknown anchor 'nope' referenced");
    }

    #[test]
    fn syntax_errors_win_over_aliasing_which_wins_over_duplicate_keys() {
        // go-yaml parses the whole document before decoding it.
        let bomb = aliased_list(600);
        let e = read_document(&format!("{}c: [1, 2\n", bomb)).unwrap_err();
        assert!(e.message.starts_with("yaml: ") && !e.message.contains("aliasing"), "{}", e);
        // A decoding failure drops the duplicate keys strict decoding collected.
        let e = read_document(&format!("z: 1\nz: 2\n{}", bomb)).unwrap_err();
        assert_eq!(e.message, "yaml: document contains excessive aliasing");
        // Every duplicate key of the document is listed.
        let e = read_document("a: 1\nb: 2\na: 3\nb: 4\n").unwrap_err();
        assert_eq!(
            e.message,
            "error converting YAML to JSON: yaml: unmarshal errors:\n  line 3: key \"a\" already set in map\n  line 4: key \"b\" already set in map"
        );
        assert_eq!(e.line, Some(3));
    }

    /// Every event with its mark, or the error, of a scanner over `input`.
    fn events<T: yaml_rust2::scanner::Input>(input: T) -> Vec<Result<(Event, Marker), String>> {
        let mut parser = Parser::new(input);
        let mut out = Vec::new();
        loop {
            match parser.next_token() {
                Ok((Event::StreamEnd, m)) => {
                    out.push(Ok((Event::StreamEnd, m)));
                    return out;
                }
                Ok(e) => out.push(Ok(e)),
                Err(e) => {
                    out.push(Err(format!("{} at {:?}", e.info(), e.marker())));
                    return out;
                }
            }
        }
    }

    /// The scanner's bulk reading of a string (vendor/yaml-rust2/CRDLAB-PATCH.md) gives the
    /// events, marks and errors of its one-character-at-a-time reading: on every prefix of
    /// texts with what ends or interrupts a run (blanks, tabs, breaks, `:`, `#`, non-ASCII,
    /// deep block scalars), and on every CRD of ../shared/crds.
    #[test]
    fn bulk_reading_reads_as_one_character_at_a_time() {
        let same = |text: &str| {
            let bulk = events(text.chars());
            let one = events(yaml_rust2::scanner::CharInput(text.chars()));
            if bulk != one {
                let at = bulk.iter().zip(&one).position(|(a, b)| a != b).unwrap_or(bulk.len().min(one.len()));
                panic!("{:?}: bulk {:?} one {:?}", text, bulk.get(at), one.get(at));
            }
        };
        let indent = " ".repeat(40);
        let samples = [
            "a: plain words here   \n  and more  words\n\n  after a blank line\nb: x\n".to_string(),
            "a: word # comment\nb: a#b c:d e: f\n".to_string(),
            "a: tab\there\t\n  next\tline \t\nb: 1".to_string(),
            "a: caf\u{e9} na\u{ef}ve \u{2014} words\n  \u{e9}t\u{e9}\n".to_string(),
            "a: crlf words \r\n  next line\r\nb: |\r\n  block\r\n  text \r\n".to_string(),
            format!("x:\n{i}y:\n{i}  description: |-\n{i}    first line of text\n\n{i}    second \u{e9} line  \n{i}     more indented\n{i}  z: w\n", i = indent),
            format!("x:\n{i}d: >\n{i}  folded text\n{i}  goes on\n\n{i}  \ttab\n{i}e: f\n", i = indent),
            "- [a b, c: d, {e f: g}]\n- {h: i j k}\n- a: b: c\n".to_string(),
            "---\na: b\n...\n--- c d\n".to_string(),
            "a: 'quoted ''x'' text'\nb: \"dq \\u00e9 x\"\nc: &anc words here\nd: *anc\n".to_string(),
            "a: b:\n  c\nd:  e  \n".to_string(),
        ];
        for text in &samples {
            for (i, _) in text.char_indices() {
                same(&text[..i]);
            }
            same(text);
        }
        let crds = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/crds");
        let mut stack = vec![crds];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
                    if let Ok(text) = std::fs::read_to_string(&p) {
                        same(&text);
                    }
                }
            }
        }
    }

    #[test]
    fn malformed_yaml_has_position() {
        let e = read_document("a: [1, 2\nb: c").unwrap_err();
        assert!(e.line.is_some());
    }

}

/// The text without a leading UTF-8 byte-order mark.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}
