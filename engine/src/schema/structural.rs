//! The structural-schema rules (apiextensions `pkg/apiserver/schema/validation.go`,
//! `complete.go`, and the errors of `convert.go`'s `NewStructural`): checked at CRD
//! creation by `crd::validation`.
//!
//! The apiserver first converts the schema into a `Structural` (properties, items,
//! additionalProperties, generic fields and extensions at each node; everything under
//! allOf/anyOf/oneOf/not as "value validation") and then checks its invariants. Here the
//! same rules run directly over [`JsonSchemaProps`]: a node reached through properties,
//! items or additionalProperties is structural; a node reached through allOf, anyOf,
//! oneOf or not is nested value validation, where generic fields and extensions are
//! forbidden.

use super::clean::{found_clean, keep_if_clean, key_in, Memo, Walk};
use super::fingerprint::descriptions_fingerprint;
use super::lazy_path::LazyPath;
use std::hash::Hasher;
use crate::crd::model::{JsonSchemaProps, SchemaOrArray, SchemaOrBool};
use crate::field::{BadValue, ErrorList, FieldError, Path};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Root,
    Item,
    Field,
}

fn str_set(s: &Option<String>) -> bool {
    s.as_deref().map(|x| !x.is_empty()).unwrap_or(false)
}


/// `NewStructural`'s error, if the schema cannot be converted (fields the structural
/// schema does not support, an `items` array, `x-kubernetes-preserve-unknown-fields: false`).
/// The first error in the apiserver's visiting order; properties in name order (the
/// apiserver's order there follows Go map iteration).
pub fn new_structural_error(s: &JsonSchemaProps) -> Option<String> {
    new_structural(s)
}

fn unsupported_fields(s: &JsonSchemaProps) -> Option<String> {
    let what = if str_set(&s.id) {
        "id"
    } else if str_set(&s.schema) {
        "schema"
    } else if str_set(&s.reference) {
        "$ref"
    } else if !s.pattern_properties.is_empty() {
        "patternProperties"
    } else if !s.dependencies.is_empty() {
        "dependencies"
    } else if s.additional_items.is_some() {
        "additionalItems"
    } else if !s.definitions.is_empty() {
        "definitions"
    } else {
        return None;
    };
    Some(format!("OpenAPIV3Schema '{}' is not supported", what))
}

fn value_validation_errors(s: &JsonSchemaProps) -> Option<String> {
    if let Some(n) = &s.not {
        if let Some(e) = new_nested(n) {
            return Some(e);
        }
    }
    for x in s
        .all_of
        .iter()
        .chain(s.any_of.iter())
        .chain(s.one_of.iter())
    {
        if let Some(e) = new_nested(x) {
            return Some(e);
        }
    }
    None
}

fn extensions_error(s: &JsonSchemaProps) -> Option<String> {
    if s.x_preserve_unknown_fields == Some(false) {
        return Some(
            "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined"
                .into(),
        );
    }
    None
}

const ITEMS_ARRAY: &str = "OpenAPIV3Schema 'items' must be a schema, but is an array";

fn new_structural(s: &JsonSchemaProps) -> Option<String> {
    // Kept in the node: a subtree shared by the compile of an edit elsewhere, or checked
    // again for a rule's fieldPath, is not walked again.
    s.fingerprints.structural_error(|| new_structural_walk(s)).map(str::to_string)
}

fn new_structural_walk(s: &JsonSchemaProps) -> Option<String> {
    if let Some(e) = unsupported_fields(s) {
        return Some(e);
    }
    if let Some(e) = value_validation_errors(s) {
        return Some(e);
    }
    if let Some(SchemaOrBool::Schema(ap)) = &s.additional_properties {
        if let Some(e) = new_structural(ap) {
            return Some(e);
        }
    }
    if let Some(e) = extensions_error(s) {
        return Some(e);
    }
    match &s.items {
        Some(SchemaOrArray::Array(a)) if !a.is_empty() => return Some(ITEMS_ARRAY.into()),
        Some(SchemaOrArray::Schema(i)) => {
            if let Some(e) = new_structural(i) {
                return Some(e);
            }
        }
        _ => {}
    }
    s.properties.values().find_map(|p| new_structural(p))
}

fn new_nested(s: &JsonSchemaProps) -> Option<String> {
    if let Some(e) = unsupported_fields(s) {
        return Some(e);
    }
    if let Some(e) = value_validation_errors(s) {
        return Some(e);
    }
    if let Some(SchemaOrBool::Schema(ap)) = &s.additional_properties {
        if let Some(e) = new_nested(ap) {
            return Some(e);
        }
    }
    if let Some(e) = extensions_error(s) {
        return Some(e);
    }
    match &s.items {
        Some(SchemaOrArray::Array(a)) if !a.is_empty() => return Some(ITEMS_ARRAY.into()),
        Some(SchemaOrArray::Schema(i)) => {
            if let Some(e) = new_nested(i) {
                return Some(e);
            }
        }
        _ => {}
    }
    s.properties.values().find_map(|p| new_nested(p))
}

/// `ValidateStructural`: structurality, the IntOrString and RawExtension rules, metadata
/// restrictions and completeness. Call only when [`new_structural_error`] is `None`.
/// `clean`: subtrees found clean before ([`crate::schema::clean`]), when the compile keeps
/// them.
pub fn validate_structural(path: &Path, s: &JsonSchemaProps, clean: &mut Memo) -> ErrorList {
    let mut errs = ErrorList::new();
    invariants(s, Level::Root, &LazyPath::new(path), &mut errs, clean);
    value_validation_completeness(s, Some(s), path, path, &mut errs);
    errs
}

/// A nested value validation equal to `{type: <t>}` and nothing else (the two entries
/// of the IntOrString `anyOf` pattern). Fields the structural schema drops (example,
/// externalDocs) do not count.
fn is_bare_type(s: &JsonSchemaProps, t: &str) -> bool {
    s.type_str() == t
        && !str_set(&s.format)
        && s.maximum.is_none()
        && !s.exclusive_maximum
        && s.minimum.is_none()
        && !s.exclusive_minimum
        && s.max_length.is_none()
        && s.min_length.is_none()
        && !str_set(&s.pattern)
        && s.max_items.is_none()
        && s.min_items.is_none()
        && !s.unique_items
        && s.multiple_of.is_none()
        && s.enum_.as_ref().map(|e| e.is_empty()).unwrap_or(true)
        && s.max_properties.is_none()
        && s.min_properties.is_none()
        && s.required.is_empty()
        && s.all_of.is_empty()
        && s.one_of.is_empty()
        && s.any_of.is_empty()
        && s.not.is_none()
        && s.x_validations.is_empty()
        && s.items.is_none()
        && s.properties.is_empty()
        && s.additional_properties.is_none()
        && !str_set(&s.description)
        && !str_set(&s.title)
        && !s.applies_default()
        && !s.nullable
        && s.x_preserve_unknown_fields.is_none()
        && !s.x_embedded_resource
        && !s.x_int_or_string
        && s.x_list_map_keys.is_empty()
        && s.x_list_type.is_none()
        && s.x_map_type.is_none()
}

fn is_int_or_string_any_of(any_of: &[JsonSchemaProps]) -> bool {
    any_of.len() == 2 && is_bare_type(&any_of[0], "integer") && is_bare_type(&any_of[1], "string")
}

/// `validateStructuralInvariants` of a node and everything below it; a subtree found clean
/// before at the same place and level (descriptions included: nested value validations
/// and metadata must not have them) is skipped.
fn invariants(s: &JsonSchemaProps, lvl: Level, path: &LazyPath<'_>, errs: &mut ErrorList, clean: &mut Memo) {
    let key = key_in(clean, Walk::Structural, s, path, |h| {
        h.write_u8(lvl as u8);
        h.write_u128(descriptions_fingerprint(s));
    });
    if found_clean(clean, key) {
        return;
    }
    let before = errs.len();
    invariants_walk(s, lvl, path, errs, clean);
    keep_if_clean(clean, key, errs.len() == before);
}

fn invariants_walk(s: &JsonSchemaProps, lvl: Level, path: &LazyPath<'_>, errs: &mut ErrorList, clean: &mut Memo) {
    let items = s.items_schema();
    if s.type_str() == "array" && items.is_none() {
        errs.push(FieldError::required(
            path.path().child("items"),
            "must be specified",
        ));
    }
    if let Some(i) = items {
        invariants(i, Level::Item, &path.child("items"), errs, clean);
    }
    let properties = path.child("properties");
    for (k, v) in &s.properties {
        invariants(v, Level::Field, &properties.key(k), errs, clean);
    }
    if let Some(ap) = &s.additional_properties {
        if lvl == Level::Root {
            errs.push(FieldError::forbidden(
                path.path().child("additionalProperties"),
                "must not be used at the root",
            ));
        }
        if let SchemaOrBool::Schema(aps) = ap {
            invariants(aps, Level::Field, &path.child("additionalProperties"), errs, clean);
        }
    }

    // validateExtensions
    let preserve = s.preserve_unknown_fields();
    if s.x_int_or_string && preserve {
        errs.push(FieldError::invalid(
            path.path().child("x-kubernetes-preserve-unknown-fields"),
            BadValue::Bool(true),
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }
    if s.x_int_or_string && s.x_embedded_resource {
        errs.push(FieldError::invalid(
            path.path().child("x-kubernetes-embedded-resource"),
            BadValue::Bool(true),
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }

    let skip_any_of = is_int_or_string_any_of(&s.any_of);
    let skip_first_all_of_any_of =
        !s.all_of.is_empty() && is_int_or_string_any_of(&s.all_of[0].any_of);
    value_validation(s, skip_any_of, skip_first_all_of_any_of, path, errs);

    let check_metadata = lvl == Level::Root || s.x_embedded_resource;
    let t = s.type_str();
    if s.x_embedded_resource && t != "object" {
        if t.is_empty() {
            errs.push(FieldError::required(
                path.path().child("type"),
                "must be object if x-kubernetes-embedded-resource is true",
            ));
        } else {
            errs.push(FieldError::invalid(
                path.path().child("type"),
                BadValue::Str(t.into()),
                "must be object if x-kubernetes-embedded-resource is true",
            ));
        }
    } else if t.is_empty() && !s.x_int_or_string && !preserve {
        let detail = match lvl {
            Level::Root => "must not be empty at the root",
            Level::Item => "must not be empty for specified array items",
            Level::Field => "must not be empty for specified object fields",
        };
        errs.push(FieldError::required(path.path().child("type"), detail));
    }
    if s.x_embedded_resource && s.additional_properties.is_some() {
        errs.push(FieldError::forbidden(
            path.path().child("additionalProperties"),
            "must not be used if x-kubernetes-embedded-resource is set",
        ));
    }
    if lvl == Level::Root && !t.is_empty() && t != "object" {
        errs.push(FieldError::invalid(
            path.path().child("type"),
            BadValue::Str(t.into()),
            "must be object at the root",
        ));
    }
    if check_metadata {
        for k in ["kind", "apiVersion"] {
            if let Some(p) = s.properties.get(k) {
                if p.type_str() != "string" {
                    errs.push(FieldError::invalid(
                        path.path().child("properties").key(k).child("type"),
                        BadValue::Str(p.type_str().into()),
                        "must be string",
                    ));
                }
            }
        }
    }
    if let Some(m) = s.properties.get("metadata") {
        metadata_invariants(m, check_metadata, lvl, &properties.key("metadata"), errs);
    }
    if s.x_embedded_resource && !preserve && s.properties.is_empty() {
        errs.push(FieldError::required(
            path.path().child("properties"),
            "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
        ));
    }
}

/// Whether the structural view of `s` has anything but a type, a default and the given
/// properties (what the root `metadata` may specify).
fn metadata_specifies_more(s: &JsonSchemaProps) -> bool {
    let props_ok = {
        let n = s.properties.len();
        let name = s.properties.contains_key("name");
        let gen = s.properties.contains_key("generateName");
        n == 0 || (name && gen && n == 2) || ((name || gen) && n == 1)
    };
    !props_ok
        || s.items.is_some()
        || s.additional_properties.is_some()
        || str_set(&s.description)
        || str_set(&s.title)
        || s.nullable
        || s.x_preserve_unknown_fields.is_some()
        || s.x_embedded_resource
        || s.x_int_or_string
        || !s.x_list_map_keys.is_empty()
        || s.x_list_type.is_some()
        || s.x_map_type.is_some()
        || !s.x_validations.is_empty()
        || str_set(&s.format)
        || s.maximum.is_some()
        || s.exclusive_maximum
        || s.minimum.is_some()
        || s.exclusive_minimum
        || s.max_length.is_some()
        || s.min_length.is_some()
        || str_set(&s.pattern)
        || s.max_items.is_some()
        || s.min_items.is_some()
        || s.unique_items
        || s.multiple_of.is_some()
        || s.enum_.as_ref().map(|e| !e.is_empty()).unwrap_or(false)
        || s.max_properties.is_some()
        || s.min_properties.is_some()
        || !s.required.is_empty()
        || !s.all_of.is_empty()
        || !s.one_of.is_empty()
        || !s.any_of.is_empty()
        || s.not.is_some()
}

fn metadata_invariants(
    s: &JsonSchemaProps,
    check_metadata: bool,
    lvl: Level,
    path: &LazyPath<'_>,
    errs: &mut ErrorList,
) {
    if check_metadata && s.type_str() != "object" {
        errs.push(FieldError::invalid(
            path.path().child("type"),
            BadValue::Str(s.type_str().into()),
            "must be object",
        ));
    }
    if lvl == Level::Root && metadata_specifies_more(s) {
        errs.push(FieldError::forbidden(
            path.path(),
            "must not specify anything other than name and generateName, but metadata is implicitly specified",
        ));
    }
}

/// `validateValueValidation`: the junctors of a node and its pattern.
fn value_validation(
    v: &JsonSchemaProps,
    skip_any_of: bool,
    skip_first_all_of_any_of: bool,
    path: &LazyPath<'_>,
    errs: &mut ErrorList,
) {
    if !skip_any_of {
        for (i, x) in v.any_of.iter().enumerate() {
            nested_value_validation(x, false, false, &path.path().child("anyOf").index(i), errs);
        }
    }
    for (i, x) in v.all_of.iter().enumerate() {
        let skip = skip_first_all_of_any_of && i == 0;
        nested_value_validation(x, skip, false, &path.path().child("allOf").index(i), errs);
    }
    for (i, x) in v.one_of.iter().enumerate() {
        nested_value_validation(x, false, false, &path.path().child("oneOf").index(i), errs);
    }
    if let Some(n) = &v.not {
        nested_value_validation(n, false, false, &path.path().child("not"), errs);
    }
    if let Some(p) = v.pattern.as_deref() {
        if !p.is_empty() {
            if let Some(e) = regexp_error(p) {
                errs.push(FieldError::invalid(
                    path.path().child("pattern"),
                    BadValue::Str(p.into()),
                    format!("must be a valid regular expression, but isn't: {}", e),
                ));
            }
        }
    }
}

fn nested_value_validation(
    v: &JsonSchemaProps,
    skip_any_of: bool,
    skip_all_of_any_of: bool,
    path: &Path,
    errs: &mut ErrorList,
) {
    value_validation(
        v,
        skip_any_of,
        skip_all_of_any_of,
        &LazyPath::new(path),
        errs,
    );
    if let Some(i) = v.items_schema() {
        nested_value_validation(i, false, false, &path.child("items"), errs);
    }
    for (k, p) in &v.properties {
        nested_value_validation(p, false, false, &path.child("properties").key(k), errs);
    }
    let forbid =
        |errs: &mut ErrorList, f: &str, d: &str| errs.push(FieldError::forbidden(path.child(f), d));
    if !v.type_str().is_empty() {
        forbid(errs, "type", "must be empty to be structural");
    }
    if v.additional_properties.is_some() {
        forbid(
            errs,
            "additionalProperties",
            "must be undefined to be structural",
        );
    }
    if v.applies_default() {
        forbid(errs, "default", "must be undefined to be structural");
    }
    if str_set(&v.title) {
        forbid(errs, "title", "must be empty to be structural");
    }
    if str_set(&v.description) {
        forbid(errs, "description", "must be empty to be structural");
    }
    if v.nullable {
        forbid(errs, "nullable", "must be false to be structural");
    }
    if v.preserve_unknown_fields() {
        forbid(
            errs,
            "x-kubernetes-preserve-unknown-fields",
            "must be false to be structural",
        );
    }
    if v.x_embedded_resource {
        forbid(
            errs,
            "x-kubernetes-embedded-resource",
            "must be false to be structural",
        );
    }
    if v.x_int_or_string {
        forbid(
            errs,
            "x-kubernetes-int-or-string",
            "must be false to be structural",
        );
    }
    if !v.x_list_map_keys.is_empty() {
        forbid(
            errs,
            "x-kubernetes-list-map-keys",
            "must be empty to be structural",
        );
    }
    if v.x_list_type.is_some() {
        forbid(
            errs,
            "x-kubernetes-list-type",
            "must be undefined to be structural",
        );
    }
    if v.x_map_type.is_some() {
        forbid(
            errs,
            "x-kubernetes-map-type",
            "must be undefined to be structural",
        );
    }
    if !v.x_validations.is_empty() {
        forbid(
            errs,
            "x-kubernetes-validations",
            "must be empty to be structural",
        );
    }
    if v.properties.contains_key("metadata") {
        errs.push(FieldError::forbidden(
            path.child("properties").key("metadata"),
            "must not be specified in a nested context",
        ));
    }
}

/// `validateValueValidationCompleteness`: every property or items under a junctor must
/// also be specified in the structural node it applies to. Starts at the root only, as
/// the apiserver does.
fn value_validation_completeness(
    v: &JsonSchemaProps,
    s: Option<&JsonSchemaProps>,
    s_path: &Path,
    v_path: &Path,
    errs: &mut ErrorList,
) {
    let Some(s) = s else {
        errs.push(FieldError::required(
            s_path.clone(),
            format!("because it is defined in {}", v_path),
        ));
        return;
    };
    if let Some(n) = &v.not {
        nested_completeness(n, Some(s), s_path, &v_path.child("not"), errs);
    }
    for (i, x) in v.all_of.iter().enumerate() {
        nested_completeness(x, Some(s), s_path, &v_path.child("allOf").index(i), errs);
    }
    for (i, x) in v.any_of.iter().enumerate() {
        nested_completeness(x, Some(s), s_path, &v_path.child("anyOf").index(i), errs);
    }
    for (i, x) in v.one_of.iter().enumerate() {
        nested_completeness(x, Some(s), s_path, &v_path.child("oneOf").index(i), errs);
    }
}

fn nested_completeness(
    v: &JsonSchemaProps,
    s: Option<&JsonSchemaProps>,
    s_path: &Path,
    v_path: &Path,
    errs: &mut ErrorList,
) {
    let Some(s) = s else {
        errs.push(FieldError::required(
            s_path.clone(),
            format!("because it is defined in {}", v_path),
        ));
        return;
    };
    value_validation_completeness(v, Some(s), s_path, v_path, errs);
    if let Some(vi) = v.items_schema() {
        nested_completeness(
            vi,
            s.items_schema(),
            &s_path.child("items"),
            &v_path.child("items"),
            errs,
        );
    }
    for (k, vf) in &v.properties {
        match s.properties.get(k) {
            None => errs.push(FieldError::required(
                s_path.child("properties").key(k),
                format!(
                    "because it is defined in {}",
                    v_path.child("properties").key(k)
                ),
            )),
            Some(sf) => nested_completeness(
                vf,
                Some(sf),
                &s_path.child("properties").key(k),
                &v_path.child("properties").key(k),
                errs,
            ),
        }
    }
}

// ------------------------------------------------------------------------- patterns

/// Go's `regexp.Compile` error for `p`, if `p` is not a valid RE2 pattern. Validity is
/// decided by [`crate::go::regexp::compile_re2`]; the text follows Go's
/// `error parsing regexp: <code>: `<expr>`` for the errors recognized here.
pub fn regexp_error(p: &str) -> Option<String> {
    // Through the process-wide pattern cache, where the compiled schema takes the pattern
    // from next (`JsonSchemaProps::compile_for`): one compile serves both.
    let err = crate::go::regexp::compile_re2_shared_result(p).err()?;
    if let Some((code, expr)) = go_regexp_parse_error(p) {
        return Some(format!("error parsing regexp: {}: `{}`", code, expr));
    }
    // Go's parser limits (nesting, size, nested repeat counts) and the crate's own
    // refusals are named by `go_compile_error`.
    crate::go::regexp::go_compile_error(p).or_else(|| Some(err.to_string()))
}

/// A partial re-expression of Go's `regexp/syntax` parser, only to name the first syntax
/// error the way Go does: `(code, expr)`.
fn go_regexp_parse_error(p: &str) -> Option<(&'static str, String)> {
    let chars: Vec<(usize, char)> = p.char_indices().collect();
    let n = chars.len();
    let at = |i: usize| chars.get(i).map(|c| c.1);
    let byte = |i: usize| chars.get(i).map(|c| c.0).unwrap_or(p.len());
    let mut depth = 0usize;
    // Whether the last item on the parse stack can be repeated (false at the start,
    // after '(' and '|'), and the text of the repetition just parsed, if any.
    let mut can_repeat = false;
    let mut last_repeat_start: Option<usize> = None;
    let mut i = 0;
    while i < n {
        let c = chars[i].1;
        let mut this_repeat: Option<usize> = None;
        match c {
            '(' => {
                if at(i + 1) == Some('?') {
                    let rest = &p[byte(i)..];
                    if rest.starts_with("(?P<")
                        || (rest.starts_with("(?<")
                            && !rest.starts_with("(?<=")
                            && !rest.starts_with("(?<!"))
                    {
                        let begin = if rest.starts_with("(?P<") { 4 } else { 3 };
                        match rest.find('>') {
                            None => return Some(("invalid named capture", rest.to_string())),
                            Some(end) => {
                                let name = &rest[begin..end];
                                let ok = !name.is_empty()
                                    && name.chars().all(|c| c.is_alphanumeric() || c == '_');
                                if !ok {
                                    return Some((
                                        "invalid named capture",
                                        rest[..end + 1].to_string(),
                                    ));
                                }
                                let skip = rest[..end + 1].chars().count();
                                depth += 1;
                                can_repeat = false;
                                i += skip;
                                last_repeat_start = None;
                                continue;
                            }
                        }
                    }
                    // flags: (?flags) or (?flags:
                    let mut j = i + 2;
                    let mut neg = false;
                    let mut saw_flag = false;
                    loop {
                        match at(j) {
                            Some('i') | Some('m') | Some('s') | Some('U') => {
                                saw_flag = true;
                                j += 1;
                            }
                            Some('-') if !neg => {
                                neg = true;
                                saw_flag = false;
                                j += 1;
                            }
                            Some(':') | Some(')') if !(neg && !saw_flag) => {
                                if at(j) == Some(':') {
                                    depth += 1;
                                    can_repeat = false;
                                }
                                j += 1;
                                break;
                            }
                            Some(_) => {
                                return Some((
                                    "invalid or unsupported Perl syntax",
                                    p[byte(i)..byte(j + 1)].to_string(),
                                ))
                            }
                            None => return Some(("missing closing )", p.to_string())),
                        }
                    }
                    i = j;
                    last_repeat_start = None;
                    continue;
                }
                depth += 1;
                can_repeat = false;
            }
            ')' => {
                if depth == 0 {
                    return Some(("unexpected )", p.to_string()));
                }
                depth -= 1;
                can_repeat = true;
            }
            '|' => can_repeat = false,
            '*' | '+' | '?' => {
                let start = i;
                let mut end = i + 1;
                if at(end) == Some('?') {
                    end += 1;
                }
                if let Some(ls) = last_repeat_start {
                    return Some((
                        "invalid nested repetition operator",
                        p[byte(ls)..byte(end)].to_string(),
                    ));
                }
                if !can_repeat {
                    return Some((
                        "missing argument to repetition operator",
                        p[byte(start)..byte(end)].to_string(),
                    ));
                }
                this_repeat = Some(start);
                i = end;
                last_repeat_start = this_repeat;
                continue;
            }
            '{' => {
                // {n}, {n,}, {n,m}; otherwise a literal '{'.
                let mut j = i + 1;
                let mut min = String::new();
                while let Some(d) = at(j).filter(|d| d.is_ascii_digit()) {
                    min.push(d);
                    j += 1;
                }
                let mut max: Option<String> = None;
                let mut ok = !min.is_empty();
                if ok && at(j) == Some(',') {
                    j += 1;
                    let mut m = String::new();
                    while let Some(d) = at(j).filter(|d| d.is_ascii_digit()) {
                        m.push(d);
                        j += 1;
                    }
                    max = Some(m);
                }
                ok = ok && at(j) == Some('}');
                if ok {
                    let mut end = j + 1;
                    if at(end) == Some('?') {
                        end += 1;
                    }
                    if let Some(ls) = last_repeat_start {
                        return Some((
                            "invalid nested repetition operator",
                            p[byte(ls)..byte(end)].to_string(),
                        ));
                    }
                    if !can_repeat {
                        return Some((
                            "missing argument to repetition operator",
                            p[byte(i)..byte(end)].to_string(),
                        ));
                    }
                    let lo: i64 = min.parse().unwrap_or(i64::MAX);
                    let hi: i64 = match &max {
                        None => lo,
                        Some(m) if m.is_empty() => -1,
                        Some(m) => m.parse().unwrap_or(i64::MAX),
                    };
                    if lo > 1000 || hi > 1000 || (hi >= 0 && lo > hi) {
                        return Some(("invalid repeat count", p[byte(i)..byte(j + 1)].to_string()));
                    }
                    this_repeat = Some(i);
                    i = end;
                    last_repeat_start = this_repeat;
                    continue;
                }
                can_repeat = true;
            }
            '^' | '$' | '.' => can_repeat = true,
            '\\' => match escape(p, &chars, i) {
                Err(e) => return Some(e),
                Ok(next) => {
                    i = next;
                    can_repeat = true;
                    last_repeat_start = None;
                    continue;
                }
            },
            '[' => match class(p, &chars, i) {
                Err(e) => return Some(e),
                Ok(next) => {
                    i = next;
                    can_repeat = true;
                    last_repeat_start = None;
                    continue;
                }
            },
            _ => can_repeat = true,
        }
        last_repeat_start = this_repeat;
        i += 1;
    }
    if depth > 0 {
        return Some(("missing closing )", p.to_string()));
    }
    None
}

/// Parses the escape at `chars[i]` (a backslash); returns the index after it.
fn escape(p: &str, chars: &[(usize, char)], i: usize) -> Result<usize, (&'static str, String)> {
    let byte = |k: usize| chars.get(k).map(|c| c.0).unwrap_or(p.len());
    let Some(&(_, c)) = chars.get(i + 1) else {
        return Err(("trailing backslash at end of expression", String::new()));
    };
    let bad = || {
        Err((
            "invalid escape sequence",
            p[byte(i)..byte(i + 2)].to_string(),
        ))
    };
    match c {
        c if (c as u32) < 0x80 && !c.is_ascii_alphanumeric() => Ok(i + 2),
        // Octal: \0, or \1-\7 followed by an octal digit (a lone \1-\9 would be a
        // backreference, which RE2 does not support).
        '0'..='7' => {
            let octal = |k: usize| {
                chars
                    .get(k)
                    .map(|c| ('0'..='7').contains(&c.1))
                    .unwrap_or(false)
            };
            if c != '0' && !octal(i + 2) {
                return bad();
            }
            let mut k = i + 2;
            while k < i + 4 && octal(k) {
                k += 1;
            }
            Ok(k)
        }
        '8' | '9' => bad(),
        'a' | 'f' | 'n' | 'r' | 't' | 'v' | 'A' | 'b' | 'B' | 'z' | 'd' | 'D' | 's' | 'S' | 'w'
        | 'W' => Ok(i + 2),
        'Q' => {
            let rest = &p[byte(i + 2)..];
            match rest.find("\\E") {
                Some(e) => Ok(i + 2 + rest[..e + 2].chars().count()),
                None => Ok(chars.len()),
            }
        }
        'p' | 'P' => match chars.get(i + 2).map(|c| c.1) {
            Some('{') => {
                let rest = &p[byte(i + 2)..];
                match rest.find('}') {
                    Some(e) => Ok(i + 2 + rest[..e + 1].chars().count()),
                    None => Err(("invalid character class range", p[byte(i)..].to_string())),
                }
            }
            Some(_) => Ok(i + 3),
            None => Err(("invalid character class range", p[byte(i)..].to_string())),
        },
        'x' => match chars.get(i + 2).map(|c| c.1) {
            Some('{') => {
                let rest = &p[byte(i + 3)..];
                match rest.find('}') {
                    Some(e) if e > 0 && rest[..e].chars().all(|h| h.is_ascii_hexdigit()) => {
                        Ok(i + 3 + rest[..e + 1].chars().count())
                    }
                    _ => Err((
                        "invalid escape sequence",
                        p[byte(i)..].chars().take(3).collect(),
                    )),
                }
            }
            Some(h1) if h1.is_ascii_hexdigit() => match chars.get(i + 3).map(|c| c.1) {
                Some(h2) if h2.is_ascii_hexdigit() => Ok(i + 4),
                _ => Err((
                    "invalid escape sequence",
                    p[byte(i)..byte(i + 4)].to_string(),
                )),
            },
            _ => Err((
                "invalid escape sequence",
                p[byte(i)..byte(i + 3)].to_string(),
            )),
        },
        _ => bad(),
    }
}

/// Parses the character class opening at `chars[i]`; returns the index after it.
fn class(p: &str, chars: &[(usize, char)], i: usize) -> Result<usize, (&'static str, String)> {
    let byte = |k: usize| chars.get(k).map(|c| c.0).unwrap_or(p.len());
    let missing = || Err(("missing closing ]", p[byte(i)..].to_string()));
    let mut j = i + 1;
    if chars.get(j).map(|c| c.1) == Some('^') {
        j += 1;
    }
    let mut first = true;
    while j < chars.len() {
        let c = chars[j].1;
        if c == ']' && !first {
            return Ok(j + 1);
        }
        first = false;
        // [:alpha:]
        if c == '[' && chars.get(j + 1).map(|c| c.1) == Some(':') {
            let rest = &p[byte(j)..];
            if let Some(e) = rest[2..].find(":]") {
                j += rest[..e + 4].chars().count();
                continue;
            }
        }
        let lo_start = j;
        let lo = match c {
            '\\' => {
                let next = escape(p, chars, j)?;
                let single = next == j + 2
                    && chars
                        .get(j + 1)
                        .map(|c| !c.1.is_ascii_alphanumeric())
                        .unwrap_or(false);
                let v = if single {
                    chars.get(j + 1).map(|c| c.1)
                } else {
                    None
                };
                j = next;
                v
            }
            _ => {
                j += 1;
                Some(c)
            }
        };
        if chars.get(j).map(|c| c.1) == Some('-')
            && chars
                .get(j + 1)
                .map(|c| c.1)
                .map(|c| c != ']')
                .unwrap_or(false)
        {
            j += 1;
            let hi = match chars.get(j).map(|c| c.1) {
                Some('\\') => {
                    let next = escape(p, chars, j)?;
                    let v = chars
                        .get(j + 1)
                        .map(|c| c.1)
                        .filter(|c| !c.is_ascii_alphanumeric());
                    j = next;
                    v
                }
                Some(h) => {
                    j += 1;
                    Some(h)
                }
                None => return missing(),
            };
            if let (Some(lo), Some(hi)) = (lo, hi) {
                if hi < lo {
                    return Err((
                        "invalid character class range",
                        p[byte(lo_start)..byte(j)].to_string(),
                    ));
                }
            }
        }
    }
    missing()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: serde_json::Value) -> JsonSchemaProps {
        serde_json::from_value(v).unwrap()
    }

    fn messages(s: serde_json::Value) -> Vec<String> {
        let s = schema(s);
        assert_eq!(new_structural_error(&s), None);
        let mut m: Vec<String> = validate_structural(&Path::new("x"), &s, &mut None)
            .iter()
            .map(|e| e.message())
            .collect();
        m.sort();
        m
    }

    #[test]
    fn untyped_fields_and_items() {
        assert_eq!(
            messages(json!({"type": "object", "properties": {"a": {}, "l": {"type": "array", "items": {}}, "m": {"type": "array"}}})),
            vec![
                "x.properties[a].type: Required value: must not be empty for specified object fields",
                "x.properties[l].items.type: Required value: must not be empty for specified array items",
                "x.properties[m].items: Required value: must be specified",
            ]
        );
        assert_eq!(
            messages(json!({})),
            vec!["x.type: Required value: must not be empty at the root"]
        );
        assert_eq!(
            messages(json!({"type": "string"})),
            vec!["x.type: Invalid value: \"string\": must be object at the root"]
        );
    }

    #[test]
    fn int_or_string_patterns_are_allowed() {
        assert!(messages(
            json!({"type": "object", "properties": {"p": {"x-kubernetes-int-or-string": true,
            "anyOf": [{"type": "integer"}, {"type": "string"}]}}})
        )
        .is_empty());
        assert!(messages(
            json!({"type": "object", "properties": {"p": {"x-kubernetes-int-or-string": true,
            "allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}, {"maximum": 3}]}}})
        )
        .is_empty());
        assert_eq!(
            messages(
                json!({"type": "object", "properties": {"p": {"x-kubernetes-int-or-string": true,
                "anyOf": [{"type": "string"}, {"type": "integer"}]}}})
            ),
            vec![
                "x.properties[p].anyOf[0].type: Forbidden: must be empty to be structural",
                "x.properties[p].anyOf[1].type: Forbidden: must be empty to be structural",
            ]
        );
    }

    #[test]
    fn nested_generics_and_extensions_are_forbidden() {
        assert_eq!(
            messages(json!({"type": "object", "properties": {"a": {"type": "string"}}, "anyOf": [{"description": "d",
                "nullable": true, "x-kubernetes-validations": [{"rule": "true"}], "properties": {"a": {"default": "x"}, "metadata": {}}}]})),
            vec![
                "x.anyOf[0].description: Forbidden: must be empty to be structural",
                "x.anyOf[0].nullable: Forbidden: must be false to be structural",
                "x.anyOf[0].properties[a].default: Forbidden: must be undefined to be structural",
                "x.anyOf[0].properties[metadata]: Forbidden: must not be specified in a nested context",
                "x.anyOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural",
                "x.properties[metadata]: Required value: because it is defined in x.anyOf[0].properties[metadata]",
            ]
        );
    }

    #[test]
    fn completeness() {
        assert_eq!(
            messages(json!({"type": "object", "properties": {"a": {"type": "string"}},
                "oneOf": [{"required": ["a"]}, {"properties": {"b": {"minLength": 1}}}]})),
            vec!["x.properties[b]: Required value: because it is defined in x.oneOf[1].properties[b]"]
        );
    }

    #[test]
    fn metadata_at_the_root_and_embedded_resources() {
        assert!(messages(
            json!({"type": "object", "properties": {"metadata": {"type": "object",
            "properties": {"name": {"type": "string", "maxLength": 3}}}}})
        )
        .is_empty());
        assert_eq!(
            messages(json!({"type": "object", "properties": {"metadata": {"type": "object",
                "properties": {"labels": {"type": "object"}}}, "kind": {"type": "integer"}}})),
            vec![
                "x.properties[kind].type: Invalid value: \"integer\": must be string",
                "x.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
            ]
        );
        assert_eq!(
            messages(json!({"type": "object", "properties": {"e": {"x-kubernetes-embedded-resource": true}}})),
            vec![
                "x.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
                "x.properties[e].type: Required value: must be object if x-kubernetes-embedded-resource is true",
            ]
        );
        assert_eq!(
            messages(json!({"type": "object", "additionalProperties": {"type": "string"}})),
            vec!["x.additionalProperties: Forbidden: must not be used at the root"]
        );
    }

    #[test]
    fn int_or_string_extension_conflicts() {
        assert_eq!(
            messages(json!({"type": "object", "properties": {"p": {"x-kubernetes-int-or-string": true,
                "x-kubernetes-preserve-unknown-fields": true}}})),
            vec!["x.properties[p].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true"]
        );
    }

    #[test]
    fn new_structural_errors() {
        assert_eq!(
            new_structural_error(&schema(json!({"type": "object", "$schema": "x"}))).as_deref(),
            Some("OpenAPIV3Schema 'schema' is not supported")
        );
        assert_eq!(
            new_structural_error(&schema(
                json!({"type": "array", "items": [{"type": "string"}]})
            ))
            .as_deref(),
            Some(ITEMS_ARRAY)
        );
        assert_eq!(
            new_structural_error(&schema(
                json!({"properties": {"a": {"x-kubernetes-preserve-unknown-fields": false}}})
            ))
            .as_deref(),
            Some(
                "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined"
            )
        );
    }

    #[test]
    fn go_regexp_errors() {
        let e = |p: &str| go_regexp_parse_error(p).map(|(c, x)| format!("{}: `{}`", c, x));
        assert_eq!(e("[a-z"), Some("missing closing ]: `[a-z`".into()));
        assert_eq!(e("(ab"), Some("missing closing ): `(ab`".into()));
        assert_eq!(e("ab)"), Some("unexpected ): `ab)`".into()));
        assert_eq!(
            e("*a"),
            Some("missing argument to repetition operator: `*`".into())
        );
        assert_eq!(
            e("a**"),
            Some("invalid nested repetition operator: `**`".into())
        );
        assert_eq!(e("a\\q"), Some("invalid escape sequence: `\\q`".into()));
        assert_eq!(
            e("(?=a)"),
            Some("invalid or unsupported Perl syntax: `(?=`".into())
        );
        assert_eq!(
            e("[z-a]"),
            Some("invalid character class range: `z-a`".into())
        );
        assert_eq!(e("a{2,1}"), Some("invalid repeat count: `{2,1}`".into()));
        assert_eq!(
            e("a\\"),
            Some("trailing backslash at end of expression: ``".into())
        );
        assert_eq!(e("\\1"), Some("invalid escape sequence: `\\1`".into()));
        for ok in [
            "\\012",
            "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
            "a{",
            "x{1,}y",
            "[]a]",
            "[^]a]",
            "(?i)abc",
            "(?:a|b)+?",
            "\\.\\-",
            "[[:alpha:]_-]",
        ] {
            assert_eq!(e(ok), None, "{}", ok);
        }
    }

    /// Go's `regexp.Compile` names an unknown Unicode class once: the refusal of
    /// `go::regexp::translate` is not wrapped in a second `error parsing regexp:`.
    #[test]
    fn regexp_error_unknown_class_is_worded_once() {
        assert_eq!(
            regexp_error("\\p{Foo}").as_deref(),
            Some("error parsing regexp: invalid character class range: `\\p{Foo}`")
        );
        assert_eq!(regexp_error("^[a-z]+$"), None);
    }
}
