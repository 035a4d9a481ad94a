//! Diagnostics an editor can underline: the `field.Path` of an error (as answers print it,
//! `spec.containers[0].env[FOO]`) mapped to the range of the CRD or object text it came
//! from, through the [`SourceMap`] the reader built ([`crate::text::yaml::read_document_with_positions`]).
//!
//! A printed path is ambiguous (`[0]` is an index or a key, a property name may hold a dot),
//! so it is resolved against the document's JSON value. A path the text does not have (a
//! required field that is missing, a value that came from an alias) maps to its deepest
//! ancestor the text has.

use crate::text::source_map::{PathSeg, Range, SourceMap};
use serde_json::Value;

/// One step of a printed field path: `.name` or `[text]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldSeg {
    Field(String),
    Bracket(String),
}

/// Splits a printed field path; `<nil>` and the empty path are the root. The delimiters
/// are ASCII, so the path is cut as bytes (the playground finds the range of every rule
/// this way after each CRD edit).
pub fn parse_field_path(path: &str) -> Vec<FieldSeg> {
    let mut out = Vec::new();
    if path == "<nil>" {
        return out;
    }
    let b = path.as_bytes();
    let mut name_start = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'.' => {
                if i > name_start {
                    out.push(FieldSeg::Field(path[name_start..i].to_string()));
                }
                i += 1;
                name_start = i;
            }
            b'[' => {
                if i > name_start {
                    out.push(FieldSeg::Field(path[name_start..i].to_string()));
                }
                // The bracket ends at the first `]` followed by `.`, `[` or the end (a key
                // may itself hold `]`).
                let rest = &path[i + 1..];
                let end = rest
                    .match_indices(']')
                    .map(|(j, _)| j)
                    .find(|&j| matches!(rest.as_bytes().get(j + 1), None | Some(b'.' | b'[')))
                    .unwrap_or(rest.len());
                out.push(FieldSeg::Bracket(rest[..end].to_string()));
                // Past the `]` (or the end).
                i += end + 2;
                name_start = i;
            }
            _ => i += 1,
        }
    }
    if name_start < b.len() {
        out.push(FieldSeg::Field(path[name_start..].to_string()));
    }
    out
}

/// Resolves a printed path against the document: `[n]` is an index in a list and a key in
/// a map; a name missing from a map is tried joined with the next names (`a.b` as one
/// property); `['k']` (CEL's `fieldPath` style) is the key `k`. Steps beyond the document
/// are kept as they read.
pub fn json_path(segs: &[FieldSeg], doc: &Value) -> Vec<PathSeg> {
    json_path_owned(segs.to_vec(), doc)
}

/// [`json_path`] of segments it may take apart: each step's name moves into the path
/// instead of being copied (the playground resolves every rule's path after each CRD edit).
pub fn json_path_owned(segs: Vec<FieldSeg>, doc: &Value) -> Vec<PathSeg> {
    resolve(segs, doc).0
}

/// [`json_path_owned`], and the node the path ends at when the document has it.
fn resolve(mut segs: Vec<FieldSeg>, doc: &Value) -> (Vec<PathSeg>, Option<&Value>) {
    fn take(seg: &mut FieldSeg) -> String {
        match seg {
            FieldSeg::Field(s) | FieldSeg::Bracket(s) => std::mem::take(s),
        }
    }
    let mut out = Vec::with_capacity(segs.len());
    let mut cur = Some(doc);
    let mut i = 0;
    while i < segs.len() {
        // Most steps name a property the document has: found once, and not joined.
        if let (FieldSeg::Field(name), Some(Value::Object(m))) = (&segs[i], cur) {
            if let Some(v) = m.get(name.as_str()) {
                out.push(PathSeg::Key(take(&mut segs[i])));
                cur = Some(v);
                i += 1;
                continue;
            }
        }
        // `None`: the step as it reads (its name taken below).
        let (seg, used) = match (&segs[i], cur) {
            (FieldSeg::Field(name), Some(Value::Object(m))) => {
                let mut joined = name.clone();
                let mut found = None;
                let mut j = i + 1;
                while found.is_none() {
                    match segs.get(j) {
                        Some(FieldSeg::Field(n)) => {
                            joined.push('.');
                            joined.push_str(n);
                            j += 1;
                            if m.contains_key(&joined) {
                                found = Some(j - i);
                            }
                        }
                        _ => break,
                    }
                }
                match found {
                    Some(1) | None => (None, 1),
                    Some(n) => (Some(PathSeg::Key(joined)), n),
                }
            }
            (FieldSeg::Field(_), _) => (None, 1),
            (FieldSeg::Bracket(t), Some(Value::Array(_))) => match t.parse::<usize>() {
                Ok(n) => (Some(PathSeg::Index(n)), 1),
                Err(_) => (None, 1),
            },
            (FieldSeg::Bracket(t), Some(Value::Object(m))) => {
                if m.contains_key(t) {
                    (None, 1)
                } else {
                    (Some(PathSeg::Key(unquote(t).to_string())), 1)
                }
            }
            (FieldSeg::Bracket(t), _) => match t.parse::<usize>() {
                Ok(n) => (Some(PathSeg::Index(n)), 1),
                Err(_) => (Some(PathSeg::Key(unquote(t).to_string())), 1),
            },
        };
        let seg = seg.unwrap_or_else(|| PathSeg::Key(take(&mut segs[i])));
        cur = match (&seg, cur) {
            (PathSeg::Key(k), Some(Value::Object(m))) => m.get(k),
            (PathSeg::Index(n), Some(Value::Array(a))) => a.get(*n),
            _ => None,
        };
        out.push(seg);
        i += used;
    }
    (out, cur)
}

fn unquote(t: &str) -> &str {
    for q in ['\'', '"'] {
        if t.len() >= 2 && t.starts_with(q) && t.ends_with(q) {
            return &t[1..t.len() - 1];
        }
    }
    t
}

/// Where a path points in a document's text: the range to underline, and whether the node
/// itself is in the text (`false`: the range is its deepest ancestor's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Located {
    pub range: Range,
    pub exact: bool,
}

/// The range of a JSON path in a document's text.
pub fn locate(path: &[PathSeg], map: &SourceMap) -> Option<Located> {
    let (node, depth) = map.nearest(path)?;
    Some(Located {
        range: node.underline(),
        exact: depth == path.len(),
    })
}

/// The range an object's error (its printed field path) underlines in the object's text.
pub fn object_range(field: &str, doc: &Value, map: &SourceMap) -> Option<Located> {
    locate(&json_path_owned(parse_field_path(field), doc), map)
}

/// The range a CRD error (its printed field path) underlines in the CRD's text. The
/// apiserver validates its internal view of the CRD: when every version has the same
/// schema (always so for one version) it reports `spec.validation`, `spec.subresources` and
/// `spec.additionalPrinterColumns`, which the text holds under the (first) version.
pub fn crd_range(field: &str, crd: &Value, map: &SourceMap) -> Option<Located> {
    let segs = crd_text_path(parse_field_path(field), crd);
    locate(&json_path_owned(segs, crd), map)
}

/// The range of a rule's text in the CRD: `schema_path` as [`crate::wire::batch::RuleReport`]
/// prints it (`openAPIV3Schema.properties[spec].x-kubernetes-validations[0]`), in the
/// version at `version_index` of `spec.versions`.
pub fn rule_range(
    schema_path: &str,
    version_index: usize,
    crd: &Value,
    map: &SourceMap,
) -> Option<Located> {
    RuleEntry::find(parse_field_path(schema_path), version_index, crd).range(map)
}

/// A rule's entry (`{rule, message, …}`) in the CRD document, found from its schema path
/// once for everything asked of it (the playground asks each rule's entry and range after
/// every CRD edit).
pub struct RuleEntry<'d> {
    /// The entry's path in the document.
    path: Vec<PathSeg>,
    /// The entry, when the document has it there.
    pub value: Option<&'d Value>,
}

impl<'d> RuleEntry<'d> {
    /// The entry at `schema_path` (its segments, as [`parse_field_path`] reads the printed
    /// `openAPIV3Schema.properties[spec].x-kubernetes-validations[0]`) in the version at
    /// `version_index` of `spec.versions`.
    pub fn find(schema_path: Vec<FieldSeg>, version_index: usize, crd: &'d Value) -> RuleEntry<'d> {
        let mut segs = Vec::with_capacity(schema_path.len() + 4);
        segs.extend([
            FieldSeg::Field("spec".into()),
            FieldSeg::Field("versions".into()),
            FieldSeg::Bracket(version_index.to_string()),
            FieldSeg::Field("schema".into()),
        ]);
        segs.extend(schema_path);
        let (path, value) = resolve(segs, crd);
        RuleEntry { path, value }
    }

    /// Where the rule's text (`rule`) stands.
    pub fn range(mut self, map: &SourceMap) -> Option<Located> {
        self.path.push(PathSeg::Key("rule".into()));
        locate(&self.path, map)
    }
}

/// Rewrites the internal view's version-independent fields to where the text has them.
fn crd_text_path(mut segs: Vec<FieldSeg>, crd: &Value) -> Vec<FieldSeg> {
    let hoisted = match (segs.first(), segs.get(1)) {
        (Some(FieldSeg::Field(a)), Some(FieldSeg::Field(b))) if a == "spec" => match b.as_str() {
            "validation" => Some("schema"),
            "subresources" => Some("subresources"),
            "additionalPrinterColumns" => Some("additionalPrinterColumns"),
            _ => None,
        },
        _ => None,
    };
    let Some(field) = hoisted else { return segs };
    let versions = crd.pointer("/spec/versions").and_then(Value::as_array);
    let index = versions
        .and_then(|vs| {
            vs.iter()
                .position(|v| v.get(field).is_some_and(|x| !x.is_null()))
        })
        .unwrap_or(0);
    segs.splice(
        1..2,
        [
            FieldSeg::Field("versions".into()),
            FieldSeg::Bracket(index.to_string()),
            FieldSeg::Field(field.into()),
        ],
    );
    segs
}

/// A range for a reading error at `line`/`column` (1-based, columns in characters, as
/// [`crate::text::read_error::ReadError`] counts them): from there to the end of the line (the last
/// character of the line when the error is at its end).
pub fn error_range(text: &str, line: usize, column: usize) -> Option<Range> {
    let lines: Vec<&str> = text.split('\n').collect();
    if line == 0 {
        return None;
    }
    // An error past the last line or on a blank one (the end of the text) is placed at the
    // end of the last line with text.
    let (mut line, mut column) = if line > lines.len() {
        (lines.len(), usize::MAX)
    } else {
        (line, column)
    };
    while line > 1 && lines[line - 1].trim().is_empty() {
        line -= 1;
        column = usize::MAX;
    }
    let offset: usize = lines[..line - 1]
        .iter()
        .map(|l| l.encode_utf16().count() + 1)
        .sum();
    let l = lines[line - 1];
    let content = l.strip_suffix('\r').unwrap_or(l).trim_end();
    let chars: Vec<char> = content.chars().collect();
    let mut start = column.saturating_sub(1).min(chars.len());
    if start == chars.len() && start > 0 {
        start -= 1;
    }
    let u16_of = |n: usize| chars[..n].iter().map(|c| c.len_utf16()).sum::<usize>();
    let (a, b) = (u16_of(start), u16_of(chars.len()));
    let n = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
    Some(Range {
        start_line: n(line),
        start_column: n(a + 1),
        end_line: n(line),
        end_column: n(b + 1),
        start_offset: n(offset + a),
        end_offset: n(offset + b),
    })
}


/// A document read from text: its JSON value and where each node stands.
#[derive(Clone, Debug)]
pub struct Source {
    pub value: Value,
    pub map: SourceMap,
}

impl Source {
    /// One document (see [`crate::text::yaml::read_document`]).
    pub fn read(text: &str) -> Result<Source, crate::text::read_error::ReadError> {
        let (value, map) = crate::text::yaml::read_document_with_positions(text)?;
        Ok(Source { value, map })
    }

    /// The CRD of a text, chosen as [`crate::text::crd_document::parse_crd_text`] chooses it.
    pub fn read_crd(text: &str) -> Result<Source, crate::text::crd_document::LoadError> {
        let mut docs = crate::text::yaml::read_documents_with_positions(text)?;
        let values: Vec<Value> = docs.iter_mut().map(|(v, _)| std::mem::take(v)).collect();
        let chosen = crate::text::crd_document::choose_crd_document(&values)?;
        let (_, map) = docs.swap_remove(chosen);
        let value = values.into_iter().nth(chosen).unwrap_or(Value::Null);
        Ok(Source { value, map })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::yaml::read_document_with_positions;

    /// The reading `parse_field_path` replaced, a character at a time: the reference.
    fn parse_field_path_by_chars(path: &str) -> Vec<FieldSeg> {
        let mut out = Vec::new();
        if path == "<nil>" {
            return out;
        }
        let mut name = String::new();
        let mut chars = path.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match c {
                '.' => {
                    if !name.is_empty() {
                        out.push(FieldSeg::Field(std::mem::take(&mut name)));
                    }
                }
                '[' => {
                    if !name.is_empty() {
                        out.push(FieldSeg::Field(std::mem::take(&mut name)));
                    }
                    // The bracket ends at the first `]` followed by `.`, `[` or the end (a key
                    // may itself hold `]`).
                    let rest = &path[i + 1..];
                    let mut end = None;
                    for (j, _) in rest.match_indices(']') {
                        if matches!(rest[j + 1..].chars().next(), None | Some('.') | Some('[')) {
                            end = Some(j);
                            break;
                        }
                    }
                    let end = end.unwrap_or(rest.len());
                    out.push(FieldSeg::Bracket(rest[..end].to_string()));
                    let stop = i + 1 + end;
                    while matches!(chars.peek(), Some(&(k, _)) if k <= stop) {
                        chars.next();
                    }
                }
                c => name.push(c),
            }
        }
        if !name.is_empty() {
            out.push(FieldSeg::Field(name));
        }
        out
    }

    #[test]
    fn field_paths_split_as_read_a_character_at_a_time() {
        let parts = ["a", ".", "[", "]", "0", "é", "'k'", "x.y", "]]", "[[", "<nil>", ""];
        // Every path of up to four parts.
        let mut paths = vec![String::new()];
        for _ in 0..4 {
            let mut next = Vec::new();
            for p in &paths {
                for q in parts {
                    next.push(format!("{}{}", p, q));
                }
            }
            paths.extend(next.iter().cloned());
            paths.dedup();
            if paths.len() > 30_000 {
                break;
            }
        }
        for p in paths.iter().chain([&"spec.containers[0].env[FOO]".to_string(), &"openAPIV3Schema.properties[spec].x-kubernetes-validations[0]".to_string()]) {
            assert_eq!(parse_field_path(p), parse_field_path_by_chars(p), "{:?}", p);
        }
    }


    fn lines(l: Option<Located>) -> (u32, u32, u32, u32, bool) {
        let l = l.expect("a range");
        (
            l.range.start_line,
            l.range.start_column,
            l.range.end_line,
            l.range.end_column,
            l.exact,
        )
    }

    #[test]
    fn parses_printed_paths() {
        use FieldSeg::*;
        assert_eq!(parse_field_path("<nil>"), vec![]);
        assert_eq!(
            parse_field_path("spec.containers[0].env[FOO]"),
            vec![
                Field("spec".into()),
                Field("containers".into()),
                Bracket("0".into()),
                Field("env".into()),
                Bracket("FOO".into())
            ]
        );
        assert_eq!(
            parse_field_path(".spec['a.b']"),
            vec![Field("spec".into()), Bracket("'a.b'".into())]
        );
        assert_eq!(
            parse_field_path("m[a]b].x"),
            vec![Field("m".into()), Bracket("a]b".into()), Field("x".into())]
        );
    }

    const OBJ: &str = "apiVersion: v1\nkind: X\nmetadata:\n  name: n\n  labels:\n    app.kubernetes.io/name: x\nspec:\n  containers:\n  - name: a\n    env:\n      FOO: bar\n  - name: b\n  \"0\": zero\n  a.b: dotted\n";

    #[test]
    fn object_paths() {
        let (doc, map) = read_document_with_positions(OBJ).unwrap();
        assert_eq!(
            lines(object_range("spec.containers[0].env[FOO]", &doc, &map)),
            (11, 12, 11, 15, true)
        );
        assert_eq!(
            lines(object_range("spec.containers[1].name", &doc, &map)),
            (12, 11, 12, 12, true)
        );
        // A list item without a key: its first line.
        assert_eq!(
            lines(object_range("spec.containers[1]", &doc, &map)),
            (12, 5, 12, 12, true)
        );
        assert_eq!(
            lines(object_range("spec[0]", &doc, &map)),
            (13, 8, 13, 12, true)
        );
        assert_eq!(
            lines(object_range("spec.a.b", &doc, &map)),
            (14, 8, 14, 14, true)
        );
        assert_eq!(
            lines(object_range(
                "metadata.labels[app.kubernetes.io/name]",
                &doc,
                &map
            )),
            (6, 29, 6, 30, true)
        );
        // Missing: the deepest ancestor, a collection's key.
        assert_eq!(
            lines(object_range("spec.replicas", &doc, &map)),
            (7, 1, 7, 5, false)
        );
        assert_eq!(
            lines(object_range("<nil>", &doc, &map)),
            (1, 1, 1, 15, true)
        );
    }

    const CRD: &str = crate::testing::WIDGETS_BROKEN_RULE;

    #[test]
    fn crd_paths() {
        let (doc, map) = read_document_with_positions(CRD).unwrap();
        let rule =
            "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule";
        assert_eq!(lines(crd_range(rule, &doc, &map)), (20, 21, 20, 29, true));
        let direct = "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule";
        assert_eq!(lines(crd_range(direct, &doc, &map)), (20, 21, 20, 29, true));
        assert_eq!(
            lines(crd_range("spec.subresources.status", &doc, &map)),
            (12, 20, 12, 26, true)
        );
        assert_eq!(
            lines(crd_range("spec.names.listKind", &doc, &map)),
            (6, 3, 6, 8, false)
        );
        assert_eq!(
            lines(crd_range("metadata.name", &doc, &map)),
            (3, 18, 3, 37, true)
        );
        let r = rule_range(
            "openAPIV3Schema.properties[spec].x-kubernetes-validations[0]",
            0,
            &doc,
            &map,
        );
        assert_eq!(lines(r), (20, 21, 20, 29, true));
    }

    #[test]
    fn crd_choice_matches_the_loader() {
        let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: {}\n";
        for text in [
            crd.to_string(),
            format!("kind: ConfigMap\n---\n{}", crd),
            "---\n---\nspec: {group: x}\n".to_string(),
            "kind: ConfigMap\n---\nspec: {}\n".to_string(),
            "- 1\n---\nkind: Secret\n---\n".to_string(),
            "".to_string(),
            "{\"kind\": \"CustomResourceDefinition\", \"spec\": {}}".to_string(),
        ] {
            let ours = Source::read_crd(&text).map(|s| s.value);
            let loader = crate::text::crd_document::parse_crd_text(&text);
            assert_eq!(ours, loader, "{:?}", text);
        }
    }

    #[test]
    fn error_ranges() {
        let r = error_range("a: 1\nbé: [1, 2\n", 2, 2).unwrap();
        assert_eq!(
            (
                r.start_line,
                r.start_column,
                r.end_line,
                r.end_column,
                r.start_offset,
                r.end_offset
            ),
            (2, 2, 2, 10, 6, 14)
        );
        let r = error_range("x\n", 1, 5).unwrap();
        assert_eq!((r.start_column, r.end_column), (1, 2));
        let r = error_range("a: [1", 2, 1).unwrap();
        assert_eq!((r.start_line, r.start_column, r.end_column), (1, 5, 6));
        let r = error_range("a: 1\nb: [1\n\n", 4, 1).unwrap();
        assert_eq!(
            (r.start_line, r.start_column, r.end_column, r.start_offset),
            (2, 5, 6, 9)
        );
        assert!(error_range("x", 0, 1).is_none());
    }
}
