use crate::text::edit::error::*;
use crate::text::edit::plan::*;
use crate::text::edit::pointer::*;
use crate::text::edit::text_edit::*;
use crate::text::read_error::ReadError;
use crate::text::yaml;
use serde_json::Value;
use serde_json::json;

/// The document `doc` picks, as an index into `read_documents`.
fn doc_index(text: &str, doc: Doc) -> usize {
    let docs = yaml::read_documents(text).unwrap();
    match doc {
        Doc::Single => docs.iter().position(|d| !d.is_null()).unwrap(),
        Doc::Crd => {
            let crd = crate::text::positions::Source::read_crd(text).unwrap().value;
            docs.iter().position(|d| d == &crd).unwrap()
        }
    }
}

/// The document after the edit, by serde_json's own pointer operations.
fn expected(mut v: Value, pointer: &str, op: Op) -> Value {
    let (parent, last) = match pointer.rfind('/') {
        Some(i) => (
            &pointer[..i],
            pointer[i + 1..].replace("~1", "/").replace("~0", "~"),
        ),
        None => {
            return match (op, v) {
                (Op::Set(x), _) => x.clone(),
                (Op::Append(x), Value::Array(mut a)) => {
                    a.push(x.clone());
                    Value::Array(a)
                }
                _ => panic!("root"),
            }
        }
    };
    let target = v.pointer(pointer).cloned();
    let p = v.pointer_mut(parent).expect("parent");
    match (op, p) {
        (Op::Set(x), Value::Object(m)) => {
            m.insert(last, x.clone());
        }
        (Op::Set(x), Value::Array(a)) if last == "-" => a.push(x.clone()),
        (Op::Set(x), Value::Array(a)) => a[last.parse::<usize>().unwrap()] = x.clone(),
        (Op::Remove, Value::Object(m)) => {
            m.remove(&last);
        }
        (Op::Remove, Value::Array(a)) => {
            a.remove(last.parse::<usize>().unwrap());
        }
        (Op::Append(x), Value::Object(m)) => match target {
            Some(Value::Array(mut a)) => {
                a.push(x.clone());
                m.insert(last, Value::Array(a));
            }
            _ => {
                m.insert(last, json!([x]));
            }
        },
        (Op::Append(x), Value::Array(a)) => {
            let i = last.parse::<usize>().unwrap();
            match &mut a[i] {
                Value::Array(t) => t.push(x.clone()),
                t => *t = json!([x]),
            }
        }
        _ => panic!("unexpected parent"),
    }
    v
}

/// Applies the edit and checks the round trip: the new text reads as the old documents
/// with exactly the one change, and only bytes inside the edited node's parent changed.
fn edit(text: &str, doc: Doc, pointer: &str, op: Op) -> String {
    let plan = plan(text, doc, pointer, op).unwrap_or_else(|e| panic!("{}: {}", pointer, e));
    let out = plan.apply(text);
    let via_api = match op {
        Op::Set(v) => set(text, doc, pointer, v),
        Op::Remove => remove(text, doc, pointer),
        Op::Append(v) => append(text, doc, pointer, v),
    }
    .unwrap();
    assert_eq!(out, via_api);
    assert_eq!(&out[..plan.start], &text[..plan.start]);
    assert_eq!(&out[plan.start + plan.text.len()..], &text[plan.end..]);
    let old = yaml::read_documents(text).unwrap();
    let new = yaml::read_documents(&out)
        .unwrap_or_else(|e| panic!("{}: does not read back: {}\n{}", pointer, e, out));
    let i = doc_index(text, doc);
    let mut want = old.clone();
    want[i] = expected(old[i].clone(), pointer, op);
    assert_eq!(new, want, "{}: reads back differently:\n{}", pointer, out);
    // The change stays inside the lines of the edited node's parent.
    let docs =
        yaml::read_documents_with_positions(text.trim_start_matches('\u{feff}')).unwrap();
    let segs = parse_pointer(pointer).unwrap();
    let mut parent = Vec::new();
    let mut cur = &old[i];
    for s in &segs[..segs.len().saturating_sub(1)] {
        match cur {
            Value::Array(a) => {
                let k: usize = s.parse().unwrap();
                parent.push(crate::text::source_map::PathSeg::Index(k));
                cur = &a[k];
            }
            _ => {
                parent.push(crate::text::source_map::PathSeg::Key(s.clone()));
                cur = &cur[s.as_str()];
            }
        }
    }
    if plan.start == plan.end && plan.text.is_empty() {
        // No change (the value was already there).
        assert_eq!(out, text);
    } else if let Some(p) = docs[i].1.get(&parent) {
        let bom = text.len() - text.trim_start_matches('\u{feff}').len();
        let (a, b) = p.value_bytes;
        // From the parent's key line (the root: anywhere in the text before it).
        let a = match (p.key_bytes, parent.is_empty()) {
            (_, true) => 0,
            (Some((k, _)), _) => k,
            (None, _) => a,
        };
        let from = text[..a + bom].rfind('\n').map(|x| x + 1).unwrap_or(0);
        let to = text[b + bom..]
            .find('\n')
            .map(|x| b + bom + x + 1)
            .unwrap_or(text.len());
        assert!(
            plan.start >= from && plan.end <= to.max(from),
            "{}: edit {}..{} outside the parent's lines {}..{}",
            pointer,
            plan.start,
            plan.end,
            from,
            to
        );
    }
    out
}

fn set_(text: &str, pointer: &str, v: Value) -> String {
    edit(text, Doc::Single, pointer, Op::Set(&v))
}

fn remove_(text: &str, pointer: &str) -> String {
    edit(text, Doc::Single, pointer, Op::Remove)
}

fn append_(text: &str, pointer: &str, v: Value) -> String {
    edit(text, Doc::Single, pointer, Op::Append(&v))
}

const SCHEMA: &str = "\
spec:
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object # the spec
            properties:
              replicas:
                type: integer
            x-kubernetes-validations:
            - rule: \"self.replicas >= 0\"   # keep me
              message: must not be negative
            - rule: 'self.replicas < 10'
          list: {type: array, items: {type: string}}
";
const RULES: &str =
    "/spec/versions/0/schema/openAPIV3Schema/properties/spec/x-kubernetes-validations";

#[test]
fn set_keeps_quoting_and_comments() {
    let out = set_(
        SCHEMA,
        &format!("{}/0/rule", RULES),
        json!("self.replicas > 0"),
    );
    assert!(
        out.contains("- rule: \"self.replicas > 0\"   # keep me\n"),
        "{}",
        out
    );
    let out = set_(SCHEMA, &format!("{}/1/rule", RULES), json!("it's 1"));
    assert!(out.contains("- rule: 'it''s 1'\n"), "{}", out);
    let out = set_(SCHEMA, &format!("{}/0/message", RULES), json!("yes"));
    assert!(out.contains("  message: 'yes'\n"), "{}", out);
    let out = set_(SCHEMA, &format!("{}/0/message", RULES), json!("a: b"));
    assert!(out.contains("  message: 'a: b'\n"), "{}", out);
    let out = set_(SCHEMA, &format!("{}/0/message", RULES), json!("tab\there"));
    assert!(out.contains("  message: \"tab\\there\"\n"), "{}", out);
    let out = set_(
        SCHEMA,
        "/spec/versions/0/schema/openAPIV3Schema/properties/spec/type",
        json!("string"),
    );
    assert!(out.contains("type: string # the spec\n"), "{}", out);
    // Numbers, booleans and null as JSON, never quoted.
    let out = set_(SCHEMA, &format!("{}/0/message", RULES), json!(12));
    assert!(out.contains("  message: 12\n"), "{}", out);
    set_(SCHEMA, &format!("{}/1/rule", RULES), json!(null));
    set_(SCHEMA, &format!("{}/1/rule", RULES), json!(true));
    set_(SCHEMA, &format!("{}/1/rule", RULES), json!(-1.5));
    // An unchanged value: no edit.
    assert_eq!(
        plan(
            SCHEMA,
            Doc::Single,
            &format!("{}/0/message", RULES),
            Op::Set(&json!("must not be negative"))
        )
        .unwrap()
        .text,
        ""
    );
}

#[test]
fn strings_that_need_quotes() {
    for s in [
        "",
        " x",
        "x ",
        "yes",
        "No",
        "on",
        "~",
        "null",
        "true",
        "1",
        "0x1F",
        "017",
        "1.5",
        "1e3",
        ".inf",
        "-",
        "- x",
        "? x",
        ":x",
        ",",
        "[a]",
        "{a}",
        "#x",
        "a #b",
        "&a",
        "*a",
        "!t",
        "|",
        ">",
        "'q",
        "\"q",
        "%x",
        "@x",
        "`x",
        "a:",
        "<<",
        "x\ty",
        "é😀",
        "a'b",
        "a\"b\\c",
        "\u{7}",
        "line\u{2028}sep",
        "2024-01-01",
        "0o17",
        "+1",
        ".5",
        "1_000",
    ] {
        let text = "a: old\nb: [old]\n";
        set_(text, "/a", json!(s));
        set_(text, "/b/0", json!(s));
        set_("{\"a\": 1}", &format!("/{}", escape_seg(s)), json!(s));
        if s == "<<" {
            // The reader takes any `<<` key, quoted too, for a merge: refused.
            assert!(matches!(
                set(text, Doc::Single, "/<<", &json!(s)),
                Err(EditError::Unverified { .. })
            ));
            continue;
        }
        set_(text, &format!("/{}", escape_seg(s)), json!(s));
        set_("m: {a: 1}\n", &format!("/m/{}", escape_seg(s)), json!(s));
    }
    assert_eq!(set_("a: 1\n", "/a", json!("self.x > 1")), "a: self.x > 1\n");
    assert_eq!(set_("a: 1\n", "/a", json!("yes")), "a: 'yes'\n");
    assert_eq!(
        set_("a: 1\n", "/a", json!("it's\nx")),
        "a: |-\n  it's\n  x\n"
    );
    assert_eq!(set_("a: 1\n", "/a", json!("\u{1}'")), "a: \"\\u0001'\"\n");
}

#[test]
fn multi_line_rules() {
    let p = format!("{}/1/rule", RULES);
    let out = set_(
        SCHEMA,
        &p,
        json!("self.replicas < 10 &&\n  self.replicas != 3"),
    );
    assert!(
        out.contains("            - rule: |-\n                self.replicas < 10 &&\n                  self.replicas != 3\n          list:"),
        "{}",
        out
    );
    // A block scalar replaced: a block again when multi-line, inline otherwise.
    let out2 = set_(&out, &p, json!("a\nb\n"));
    assert!(
        out2.contains("- rule: |\n                a\n                b\n          list:"),
        "{}",
        out2
    );
    let out3 = set_(&out2, &p, json!("a\n\n"));
    assert!(
        out3.contains("- rule: |+\n                a\n\n          list:"),
        "{}",
        out3
    );
    let out4 = set_(&out2, &p, json!("has(self.x)"));
    assert!(
        out4.contains("- rule: has(self.x)\n          list:"),
        "{}",
        out4
    );
    // A double-quoted rule stays double-quoted.
    let out5 = set_(SCHEMA, &format!("{}/0/rule", RULES), json!("a\nb"));
    assert!(out5.contains("- rule: \"a\\nb\"   # keep me\n"), "{}", out5);
    // Header comments and indentation of an existing block scalar are kept.
    let text = "a:\n  r: >-  # folded\n      one\n      two\n  b: 1\n";
    assert_eq!(
        set_(text, "/a/r", json!("x\ny")),
        "a:\n  r: |-  # folded\n      x\n      y\n  b: 1\n"
    );
    assert_eq!(
        set_(text, "/a/r", json!("x")),
        "a:\n  r: x  # folded\n  b: 1\n"
    );
    // Leading blanks cannot start a literal block: double quotes then.
    assert_eq!(set_("a: 1\n", "/a", json!("  x\ny")), "a: \"  x\\ny\"\n");
    set_("a: |\n\nb: 1\n", "/a", json!("p\nq"));
    set_("- |\n  x\n- y\n", "/0", json!("p\nq"));
    set_("- |\n  x\n- y\n", "/1", json!("p\nq"));
}

#[test]
fn insert_validations_into_a_schema_node() {
    let p = "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/replicas/x-kubernetes-validations";
    let out = append_(SCHEMA, p, json!({"rule": "self >= 0", "message": "no"}));
    assert!(
        out.contains(
            "              replicas:\n                type: integer\n                x-kubernetes-validations:\n                - rule: self >= 0\n                  message: 'no'\n            x-kubernetes-validations:"
        ),
        "{}",
        out
    );
    // With `set` too.
    set_(SCHEMA, p, json!([{"rule": "self >= 0"}]));
}

#[test]
fn append_and_remove_rules() {
    let out = append_(
        SCHEMA,
        RULES,
        json!({"rule": "has(self.x)", "messageExpression": "'x'"}),
    );
    assert!(
        out.contains("            - rule: 'self.replicas < 10'\n            - rule: has(self.x)\n              messageExpression: '''x'''\n          list:"),
        "{}",
        out
    );
    let out = remove_(SCHEMA, &format!("{}/0", RULES));
    assert!(
        out.contains(
            "            x-kubernetes-validations:\n            - rule: 'self.replicas < 10'\n"
        ),
        "{}",
        out
    );
    // The only rule: an empty list stays.
    let only = remove_(&out, &format!("{}/0", RULES));
    assert!(
        only.contains("            x-kubernetes-validations: []\n          list:"),
        "{}",
        only
    );
    // And a rule appended to `[]` goes into the brackets.
    let back = append_(&only, RULES, json!({"rule": "true"}));
    assert!(
        back.contains("x-kubernetes-validations: [{rule: 'true'}]\n"),
        "{}",
        back
    );
    // Removing a rule's first key moves the next one behind the `- `.
    let out = remove_(SCHEMA, &format!("{}/0/rule", RULES));
    assert!(
        out.contains("            - message: must not be negative\n            - rule:"),
        "{}",
        out
    );
    let out = remove_(SCHEMA, &format!("{}/0/message", RULES));
    assert!(
        out.contains(
            "            - rule: \"self.replicas >= 0\"   # keep me\n            - rule:"
        ),
        "{}",
        out
    );
    // Removing a whole mapping entry takes its lines.
    let out = remove_(
        SCHEMA,
        "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties",
    );
    assert!(
        out.contains("type: object # the spec\n            x-kubernetes-validations:"),
        "{}",
        out
    );
    // The last entry of a block mapping leaves `{}`.
    let out = remove_("a:\n  b: 1 # c\nz: 2\n", "/a/b");
    assert_eq!(out, "a: {}\nz: 2\n");
    let out = remove_("a:\n- 1\n- 2\n", "/a/1");
    assert_eq!(out, "a:\n- 1\n");
    let out = remove_("a:\n- 1\n", "/a/0");
    assert_eq!(out, "a: []\n");
    remove_("- - a\n  - b\n- c\n", "/0/0");
    remove_("- - a\n  - b\n- c\n", "/0/1");
    remove_("- - a\n  - b\n- c\n", "/1");
    remove_("- a: 1\n  b:\n- c\n", "/0/b");
    remove_("- a: 1\n  b:\n- c\n", "/0");
    append_("- a: 1\n  b:\n- c\n", "", json!("d"));
    append_(
        "x:\n  - a: 1\n    b:\n",
        "/x",
        json!({"k": [1, 2], "m": {"n": "o"}, "e": []}),
    );
}

#[test]
fn list_indentation_follows_the_file() {
    let indented = "a:\n  b:\n    - x\n  c: 1\n";
    assert_eq!(
        append_(indented, "/a/d", json!("z")),
        "a:\n  b:\n    - x\n  c: 1\n  d:\n    - z\n"
    );
    assert_eq!(
        append_(indented, "/a/b", json!("z")),
        "a:\n  b:\n    - x\n    - z\n  c: 1\n"
    );
    let flat = "a:\n  b:\n  - x\n  c: 1\n";
    assert_eq!(
        append_(flat, "/a/d", json!("z")),
        "a:\n  b:\n  - x\n  c: 1\n  d:\n  - z\n"
    );
    // `y` is a boolean to go-yaml v2.
    assert_eq!(
        append_(flat, "/a/b", json!("y")),
        "a:\n  b:\n  - x\n  - 'y'\n  c: 1\n"
    );
    // Nested values: mappings one step in, lists in a list item.
    assert_eq!(
        set_(
            "a: 1\n",
            "/b",
            json!({"c": {"d": [1, {"e": "f", "g": [true]}]}})
        ),
        "a: 1\nb:\n  c:\n    d:\n    - 1\n    - e: f\n      g:\n      - true\n"
    );
    assert_eq!(
        set_("a:\n    b: 1\n", "/a/c", json!({"d": 1})),
        "a:\n    b: 1\n    c:\n        d: 1\n"
    );
    assert_eq!(
        set_("- a\n", "/0", json!([[1, 2], "x"])),
        "- - - 1\n    - 2\n  - x\n"
    );
    // Replacing a block mapping with another keeps its place and comments before it.
    assert_eq!(
        set_(
            "a: # c\n  # d\n  b: 1\n  c: 2\nz: 0\n",
            "/a",
            json!({"x": 1})
        ),
        "a: # c\n  # d\n  x: 1\nz: 0\n"
    );
    assert_eq!(
        set_("a: # c\n  b: 1\nz: 0\n", "/a", json!(5)),
        "a: 5 # c\nz: 0\n"
    );
    assert_eq!(
        set_("a: 5 # c\nz: 0\n", "/a", json!([1])),
        "a: # c\n- 1\nz: 0\n"
    );
    assert_eq!(
        set_("a:\nz: 0\n", "/a", json!({"k": "v"})),
        "a:\n  k: v\nz: 0\n"
    );
    assert_eq!(
        set_("a:   # c\nz: 0\n", "/a", json!("v")),
        "a: v   # c\nz: 0\n"
    );
}

#[test]
fn flow_collections() {
    // maxItems on a node written in flow style.
    let p = "/spec/versions/0/schema/openAPIV3Schema/properties/list";
    let out = set_(SCHEMA, &format!("{}/maxItems", p), json!(100));
    assert!(
        out.contains("list: {type: array, items: {type: string}, maxItems: 100}\n"),
        "{}",
        out
    );
    let out = set_(SCHEMA, &format!("{}/items/maxLength", p), json!(64));
    assert!(
        out.contains("items: {type: string, maxLength: 64}}"),
        "{}",
        out
    );
    let out = set_(
        SCHEMA,
        &format!("{}/items", p),
        json!({"type": "string", "enum": ["a", "b c", "d,e"]}),
    );
    assert!(
        out.contains("items: {enum: [a, b c, 'd,e'], type: string}}"),
        "{}",
        out
    );
    let out = remove_(SCHEMA, &format!("{}/type", p));
    assert!(out.contains("list: {items: {type: string}}\n"), "{}", out);
    let out = remove_(SCHEMA, &format!("{}/items", p));
    assert!(out.contains("list: {type: array}\n"), "{}", out);
    assert_eq!(remove_("a: {b: 1}\n", "/a/b"), "a: {}\n");
    assert_eq!(set_("a: {}\n", "/a/b", json!("x y")), "a: {b: x y}\n");
    assert_eq!(append_("a: []\n", "/a", json!("x")), "a: [x]\n");
    assert_eq!(append_("a: [1,2]\n", "/a", json!(3)), "a: [1,2,3]\n");
    assert_eq!(
        edit("a: [1, 2]\n", Doc::Single, "/a/-", Op::Set(&json!(3))),
        "a: [1, 2, 3]\n"
    );
    assert_eq!(remove_("a: [1, 2, 3]\n", "/a/1"), "a: [1, 3]\n");
    assert_eq!(remove_("a: [1, 2, 3]\n", "/a/2"), "a: [1, 2]\n");
    assert_eq!(
        set_("a: [1, 2]\n", "/a/0", json!("x\ny")),
        "a: [\"x\\ny\", 2]\n"
    );
    assert_eq!(
        set_("a: {\"k\": 1}\n", "/a/m", json!("v")),
        "a: {\"k\": 1, \"m\": \"v\"}\n"
    );
    assert_eq!(set_("a: {b, c: }\n", "/a/b", json!(1)), "a: {b: 1, c: }\n");
    assert_eq!(set_("a: {b, c: }\n", "/a/c", json!(1)), "a: {b, c: 1}\n");
    assert_eq!(
        set_("a: {b, c: }\n", "/a/d", json!(1)),
        "a: {b, c: , d: 1}\n"
    );
    assert_eq!(remove_("a: {b, c: }\n", "/a/c"), "a: {b}\n");
    set_("a: [\n  1,\n  2\n]\n", "/a/1", json!({"x": 1}));
    set_("a: {b: 1}\n", "/a", json!({"x": [1]}));
}

const PRETTY: &str = "{\n  \"apiVersion\": \"v1\",\n  \"spec\": {\n    \"list\": [\n      1\n    ],\n    \"empty\": []\n  }\n}\n";

#[test]
fn json_texts() {
    assert_eq!(
        set_(PRETTY, "/spec/x", json!({"a": [1, "b"]})),
        "{\n  \"apiVersion\": \"v1\",\n  \"spec\": {\n    \"list\": [\n      1\n    ],\n    \"empty\": [],\n    \"x\": {\n      \"a\": [\n        1,\n        \"b\"\n      ]\n    }\n  }\n}\n"
    );
    assert_eq!(
        append_(PRETTY, "/spec/list", json!("two")),
        "{\n  \"apiVersion\": \"v1\",\n  \"spec\": {\n    \"list\": [\n      1,\n      \"two\"\n    ],\n    \"empty\": []\n  }\n}\n"
    );
    assert_eq!(
        append_(PRETTY, "/spec/empty", json!({"rule": "self > 0"})),
        PRETTY.replace("\"empty\": []", "\"empty\": [{\"rule\": \"self > 0\"}]")
    );
    assert_eq!(
        remove_(PRETTY, "/spec/empty"),
        "{\n  \"apiVersion\": \"v1\",\n  \"spec\": {\n    \"list\": [\n      1\n    ]\n  }\n}\n"
    );
    assert_eq!(
        remove_(PRETTY, "/spec/list"),
        "{\n  \"apiVersion\": \"v1\",\n  \"spec\": {\n    \"empty\": []\n  }\n}\n"
    );
    remove_(PRETTY, "/spec/list/0");
    set_(PRETTY, "/apiVersion", json!("it's \"x\"\n"));
    set_(PRETTY, "/spec/list/0", json!({"a": {}}));
    set_(PRETTY, "/spec", json!(1.5));
    let one = "{\"a\":1,\"b\":{\"c\":[true]}}";
    assert_eq!(
        set_(one, "/b/d", json!(null)),
        "{\"a\":1,\"b\":{\"c\":[true],\"d\":null}}"
    );
    assert_eq!(
        append_(one, "/b/c", json!(2.5)),
        "{\"a\":1,\"b\":{\"c\":[true,2.5]}}"
    );
    assert_eq!(remove_(one, "/a"), "{\"b\":{\"c\":[true]}}");
    assert_eq!(
        set_(one, "/a", json!("x")),
        "{\"a\":\"x\",\"b\":{\"c\":[true]}}"
    );
    // JSON keeps 2.0 a float.
    assert_eq!(
        set_(one, "/a", json!(2.0)),
        "{\"a\":2.0,\"b\":{\"c\":[true]}}"
    );
    // And YAML reads it back as the integer Kubernetes sees.
    assert_eq!(
        set("a: 1\n", Doc::Single, "/a", &json!(2.0)).unwrap(),
        "a: 2\n"
    );
    set_("[1, {\"a\": 2}]", "/1/a", json!([]));
    append_("[1, {\"a\": 2}]", "", json!(3));
}

#[test]
fn crd_after_another_document() {
    let text = format!(
        "# leading\napiVersion: v1\nkind: Namespace\nmetadata: {{name: x}}\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n{}---\nkind: Other\nspec: {{a: 1}}\n",
        SCHEMA
    );
    let out = edit(
        &text,
        Doc::Crd,
        &format!("{}/1/rule", RULES),
        Op::Set(&json!("self.replicas < 5")),
    );
    assert!(out.contains("- rule: 'self.replicas < 5'"), "{}", out);
    let out = edit(
        &text,
        Doc::Crd,
        "/spec/group",
        Op::Set(&json!("example.com")),
    );
    assert!(out.contains("  list: {type: array, items: {type: string}}\n  group: example.com\n---\nkind: Other"), "{}", out);
    edit(&text, Doc::Crd, RULES, Op::Append(&json!({"rule": "x"})));
    edit(&text, Doc::Crd, "/kind", Op::Remove);
    assert!(matches!(
        set(&text, Doc::Single, "/a", &json!(1)),
        Err(EditError::NotSingle { documents: 3 })
    ));
    // A list as the root of a later document.
    let list = "a: 1\n--- # c\n- x\n- y\n";
    assert!(matches!(
        set(list, Doc::Crd, "/a", &json!(1)),
        Err(EditError::NoCrd(_))
    ));
    let two = "---\n- x\n- y\n";
    assert_eq!(append_(two, "", json!("z")), "---\n- x\n- y\n- z\n");
    assert_eq!(remove_(two, "/0"), "---\n- y\n");
}

#[test]
fn line_endings_byte_order_mark_and_wide_characters() {
    let crlf = SCHEMA.replace('\n', "\r\n");
    let out = edit(
        &crlf,
        Doc::Single,
        RULES,
        Op::Append(&json!({"rule": "a\nb", "message": "m"})),
    );
    assert!(!out.replace("\r\n", "").contains('\n'), "{:?}", out);
    assert!(out.contains("\r\n            - rule: |-\r\n                a\r\n                b\r\n              message: m\r\n"), "{:?}", out);
    edit(&crlf, Doc::Single, &format!("{}/0", RULES), Op::Remove);
    edit(
        &crlf,
        Doc::Single,
        &format!("{}/1/rule", RULES),
        Op::Set(&json!("x\ny\n")),
    );
    edit(
        &crlf,
        Doc::Single,
        "/spec/versions/0/schema/openAPIV3Schema/properties/list/x",
        Op::Set(&json!(1)),
    );
    let wide = "a: \"é😀 ü\"  # ✓ ok\nb:\n  c: 'ß'\n  d: [日本, 語]\n";
    assert_eq!(
        set_(wide, "/b/c", json!("ñ")),
        "a: \"é😀 ü\"  # ✓ ok\nb:\n  c: 'ñ'\n  d: [日本, 語]\n"
    );
    assert_eq!(
        append_(wide, "/b/d", json!("字")),
        "a: \"é😀 ü\"  # ✓ ok\nb:\n  c: 'ß'\n  d: [日本, 語, 字]\n"
    );
    let bom = format!("\u{feff}{}", wide);
    let e = plan(&bom, Doc::Single, "/b/c", Op::Set(&json!("x"))).unwrap();
    // Only the changed character is replaced.
    assert_eq!((&bom[e.start..e.end], e.text.as_str()), ("ß", "x"));
    let r = e.range(&bom);
    assert_eq!((r.start_line, r.start_column, r.end_column), (3, 7, 8));
    assert_eq!(
        bom.encode_utf16().nth(r.start_offset as usize),
        Some('ß' as u16)
    );
    edit(&bom, Doc::Single, "/b/e", Op::Set(&json!("x")));
}

#[test]
fn quoted_and_escaped_keys() {
    let text = "\"a/b\": 1\n'c~d': {\"e/f~g\": 2}\nh:\n  \"i\": 3\n";
    assert_eq!(
        set_(text, "/a~1b", json!(5)),
        "\"a/b\": 5\n'c~d': {\"e/f~g\": 2}\nh:\n  \"i\": 3\n"
    );
    assert_eq!(
        set_(text, "/c~0d/e~1f~0g", json!("x")),
        "\"a/b\": 1\n'c~d': {\"e/f~g\": \"x\"}\nh:\n  \"i\": 3\n"
    );
    assert_eq!(
        set_(text, "/h/j", json!(4)),
        "\"a/b\": 1\n'c~d': {\"e/f~g\": 2}\nh:\n  \"i\": 3\n  \"j\": 4\n"
    );
    assert_eq!(set_(text, "/k~1l", json!(4)), format!("{}k/l: 4\n", text));
    remove_(text, "/c~0d/e~1f~0g");
    remove_(text, "/a~1b");
    // Keys that YAML would read as something else are quoted.
    assert_eq!(set_("a: 1\n", "/on", json!(1)), "a: 1\n'on': 1\n");
    assert_eq!(set_("a: 1\n", "/1.0", json!(1)), "a: 1\n'1.0': 1\n");
    // A key the reader resolved (`on:` is "true").
    assert_eq!(set_("on: 1\n", "/true", json!(2)), "on: 2\n");
}

#[test]
fn errors_not_panics() {
    let text = "a: 1\nb: [1, 2]\nc: &x {d: 1}\ne: *x\nf:\n  <<: *x\n  g: 2\n";
    let err = |p: &str, op: Op| plan(text, Doc::Single, p, op).unwrap_err();
    let v = json!(7);
    assert!(matches!(
        err("/a/x", Op::Set(&v)),
        EditError::NotContainer { .. }
    ));
    assert!(matches!(
        err("/b/2", Op::Set(&v)),
        EditError::OutOfRange { len: 2, .. }
    ));
    assert!(matches!(
        err("/b/01", Op::Remove),
        EditError::OutOfRange { .. }
    ));
    assert!(matches!(
        err("/b/x", Op::Remove),
        EditError::OutOfRange { .. }
    ));
    assert!(matches!(err("/zz", Op::Remove), EditError::NotFound { .. }));
    assert!(matches!(
        err("/zz/y", Op::Set(&v)),
        EditError::NotFound { .. }
    ));
    assert!(matches!(
        err("/a", Op::Append(&v)),
        EditError::NotSequence { .. }
    ));
    assert!(matches!(err("a", Op::Remove), EditError::BadPointer { .. }));
    assert!(matches!(
        err("/a~2", Op::Remove),
        EditError::BadPointer { .. }
    ));
    assert!(matches!(err("", Op::Remove), EditError::BadPointer { .. }));
    let e = err("/e/d", Op::Set(&v));
    assert!(matches!(e, EditError::Alias { .. }), "{:?}", e);
    assert_eq!(
        e.to_string(),
        "/e: the node is an alias (line 4, column 4); edit the anchored node it repeats"
    );
    assert!(matches!(err("/e", Op::Set(&v)), EditError::Alias { .. }));
    assert!(matches!(
        err("/c/d", Op::Set(&v)),
        EditError::Anchored { .. }
    ));
    assert!(matches!(err("/f/d", Op::Set(&v)), EditError::Merged { .. }));
    assert!(matches!(err("/f/g", Op::Remove), EditError::Merged { .. }));
    // Editing beside an alias is fine.
    set_(text, "/f/g", json!(3));
    set_(text, "/a", json!(3));
    assert!(matches!(
        set("a: !!str 1\n", Doc::Single, "/a", &v),
        Err(EditError::Tagged { .. })
    ));
    // Text that does not read: the reader's error.
    let e = set("a: [1\nb: 2\n", Doc::Single, "/a", &v).unwrap_err();
    assert!(
        matches!(e, EditError::Read(ReadError { line: Some(_), .. })),
        "{:?}",
        e
    );
    assert!(matches!(
        set("a:\n\tb: 1\n", Doc::Single, "/a", &v),
        Err(EditError::Read(_))
    ));
    assert!(matches!(
        set("", Doc::Single, "/a", &v),
        Err(EditError::NotSingle { documents: 0 })
    ));
    // Tabs where the edit would copy the indentation.
    let e = set("-\ta: 1\n", Doc::Single, "/0/b", &v).unwrap_err();
    assert!(matches!(e, EditError::Unsupported { .. }), "{:?}", e);
    assert!(e.to_string().contains("tab"), "{}", e);
    // A tab matters only where its column would be copied.
    assert_eq!(set_("-\ta: 1\n", "/0/a", json!(2)), "-\ta: 2\n");
    assert!(matches!(
        set("kind: Pod\n", Doc::Crd, "/a", &v),
        Err(EditError::NoCrd(_))
    ));
    // Tabs between tokens are only separators.
    assert_eq!(set_("a: \t1\t# c\n", "/a", json!(2)), "a: \t2\t# c\n");
    // Deep values are refused, not overflowed.
    let mut deep = json!(1);
    for _ in 0..2000 {
        deep = json!([deep]);
    }
    assert!(set("a: 1\n", Doc::Single, "/a", &deep).is_err());
    assert!(set("[1]", Doc::Single, "/0", &deep).is_err());
    // Odd inputs still give an answer or an error.
    for t in [
        "-\n- a\n",
        "a:\n-\n",
        "? a\n: 1\n",
        "a: |\n",
        "--- |\n  x\n",
        "[",
        "a: 'x\n",
        "\u{feff}",
        "...\n",
    ] {
        for p in ["", "/a", "/0", "/a/0", "/-", "/a/-"] {
            let _ = set(t, Doc::Single, p, &json!({"x": [1]}));
            let _ = remove(t, Doc::Single, p);
            let _ = append(t, Doc::Single, p, &json!("y"));
        }
    }
}

const CORPUS: &[&str] = &[
    SCHEMA,
    PRETTY,
    "{\"a\":1,\"b\":{\"c\":[true,{\"d\":null}],\"e\":{}},\"f\":[]}",
    "# head\na: 1 # one\n\n# about b\nb:\n    # inside\n    c: 'x'\n    d: \"y\"  # dq\n    e:\n      - 1\n      -   2\n      - k: v\n        l: [m, {n: o}]\n# tail\n",
    "a: |\n  literal\n  text\nb: >-\n  folded\n  text\n\nc: |+\n  keep\n\nd: plain\n  continued\ne: \"dq\n  continued\"\n",
    "- - a\n  - b\n- c: 1\n  d:\n  - e\n- {f: [g, h], i: j}\n- [k, {l: m}]\n",
    "a: {\n  b: 1,\n  c: [\n    2,\n    3\n  ]\n}\nz:\n- x\n",
    "---\nkind: A\n...\n---\nkind: CustomResourceDefinition\nspec:\n  x: [1]\n  y:\n    z: 2\n",
    "\"quoted key\": 1\n'single': {\"in\": 2}\non: 3\n? complex\n: 4\nnull: 5\n",
    "a: 1\r\nb:\r\n  - c: 2\r\n    d: |\r\n      e\r\n      f\r\n",
    "a:\n  b: c",
    "x: [a, b]",
];

/// Every node of every text of the corpus: set to values of each shape, removed, appended
/// to, given a new key; each edit must read back as intended.
#[test]
fn every_node_of_a_corpus() {
    let values = [
        json!("s p"),
        json!("multi\nline\n"),
        json!(7),
        json!(null),
        json!({"rule": "r", "message": "m: x"}),
        json!([1, {"a": "b", "c": [true]}]),
        json!({}),
        json!([]),
    ];
    let mut edits = 0;
    for text in CORPUS {
        let doc = if yaml::read_documents(text)
            .unwrap()
            .iter()
            .filter(|d| !d.is_null())
            .count()
            > 1
        {
            Doc::Crd
        } else {
            Doc::Single
        };
        let i = doc_index(text, doc);
        let root = yaml::read_documents(text).unwrap().swap_remove(i);
        let mut pointers = Vec::new();
        let mut stack = vec![(String::new(), &root)];
        while let Some((p, v)) = stack.pop() {
            pointers.push((p.clone(), v));
            match v {
                Value::Object(m) => stack.extend(
                    m.iter()
                        .map(|(k, c)| (format!("{}/{}", p, escape_seg(k)), c)),
                ),
                Value::Array(a) => stack.extend(
                    a.iter()
                        .enumerate()
                        .map(|(k, c)| (format!("{}/{}", p, k), c)),
                ),
                _ => {}
            }
        }
        for (p, v) in pointers {
            for x in &values {
                if !p.is_empty() {
                    edit(text, doc, &p, Op::Set(x));
                    edits += 1;
                }
                match v {
                    Value::Array(_) | Value::Null => {
                        edit(text, doc, &p, Op::Append(x));
                        edits += 1;
                    }
                    Value::Object(_) => {
                        edit(text, doc, &format!("{}/new~1key", p), Op::Set(x));
                        edit(text, doc, &format!("{}/new~1list", p), Op::Append(x));
                        edits += 2;
                    }
                    _ => {}
                }
            }
            if !p.is_empty() {
                edit(text, doc, &p, Op::Remove);
                edits += 1;
            }
        }
    }
    assert!(edits > 1000, "{} edits", edits);
}

/// Every rule of a real CRD (2.8 MB of YAML): changed (on one line or on several, by
/// turns), removed, and a rule added beside it; each edit read back.
#[test]
fn every_rule_of_a_real_crd() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../shared/crds/postgres-operator/config/crd/bases/postgres-operator.crunchydata.com_postgresclusters.yaml",
    );
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("skipped: {} is missing", path.display());
        return;
    };
    let crd = crate::text::crd_document::parse_crd_text(&text).unwrap();
    // Every `x-kubernetes-validations` list, by pointer.
    let mut lists = Vec::new();
    let mut stack = vec![(String::new(), &crd)];
    while let Some((p, v)) = stack.pop() {
        match v {
            Value::Object(m) => {
                for (k, c) in m {
                    let cp = format!("{}/{}", p, escape_seg(k));
                    if k == "x-kubernetes-validations" && c.is_array() {
                        lists.push((cp.clone(), c.as_array().map(Vec::len).unwrap_or(0)));
                    }
                    stack.push((cp, c));
                }
            }
            Value::Array(a) => {
                for (i, c) in a.iter().enumerate() {
                    stack.push((format!("{}/{}", p, i), c));
                }
            }
            _ => {}
        }
    }
    lists.sort();
    let rules: usize = lists.iter().map(|(_, n)| n).sum();
    assert!(rules > 50, "{} rules", rules);
    let started = std::time::Instant::now();
    let jobs: Vec<(usize, &String, usize)> = lists
        .iter()
        .flat_map(|(list, n)| (0..*n).map(move |i| (list, i)))
        .enumerate()
        .map(|(k, (list, i))| (k, list, i))
        .collect();
    // The text is read once; each edit is read back twice (by the edit and here), by
    // two workers.
    let prepared = Prepared::new(&text, Doc::Crd).unwrap();
    std::thread::scope(|scope| {
        for half in jobs.chunks(jobs.len().div_ceil(2)) {
            let (text, crd, prepared) = (&text, &crd, &prepared);
            scope.spawn(move || {
                for &(k, list, i) in half {
                    let rule = format!("{}/{}/rule", list, i);
                    let old = crd.pointer(&rule).and_then(Value::as_str).unwrap_or("true");
                    let new = if k % 2 == 0 {
                        format!("{} && true", old)
                    } else {
                        format!("{}\n|| false", old)
                    };
                    check_edit(prepared, text, crd, &rule, Op::Set(&json!(new)));
                    check_edit(prepared, text, crd, &format!("{}/{}", list, i), Op::Remove);
                    let added = json!({"rule": "self == self", "message": "added"});
                    check_edit(prepared, text, crd, list, Op::Append(&added));
                }
            });
        }
    });
    eprintln!(
        "{} rules, {} edits in {:?}",
        rules,
        rules * 3,
        started.elapsed()
    );
}

/// The round trip in a large text: the CRD read back is the old one with the change.
fn check_edit(prepared: &Prepared, text: &str, old: &Value, pointer: &str, op: Op) {
    let e = prepared
        .plan(pointer, op)
        .unwrap_or_else(|e| panic!("{}: {}", pointer, e));
    let out = e.apply(text);
    let new = crate::text::crd_document::parse_crd_text(&out).unwrap();
    assert_eq!(new, expected(old.clone(), pointer, op), "{}", pointer);
    assert!(e.end - e.start < 2000, "{}: a large edit", pointer);
}

/// Every CRD under ../shared/crds: each rule changed, removed and one added beside it;
/// `maxItems` set on array schemas and a rule added to object schemas (a sample per file).
/// Slow (a minute or more): `cargo test --release -p crdlab --lib every_shared_crd -- --ignored`.
#[test]
#[ignore]
fn every_shared_crd() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/crds");
    let mut files = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(d) = dirs.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                files.push(p);
            }
        }
    }
    if files.is_empty() {
        eprintln!("skipped: {} is missing", root.display());
        return;
    }
    files.sort();
    let (mut edits, mut failures) = (0usize, Vec::new());
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let Ok(prepared) = Prepared::new(&text, Doc::Crd) else {
            continue;
        };
        let Ok(crd) = crate::text::crd_document::parse_crd_text(&text) else {
            continue;
        };
        let mut ops: Vec<(String, &str, Value)> = Vec::new();
        let mut stack = vec![(String::new(), &crd)];
        let (mut arrays, mut objects) = (0, 0);
        while let Some((p, v)) = stack.pop() {
            if let Value::Object(m) = v {
                if m.get("type") == Some(&json!("array")) && arrays < 10 {
                    arrays += 1;
                    ops.push((format!("{}/maxItems", p), "set", json!(100)));
                }
                if m.get("type") == Some(&json!("object")) && objects < 10 {
                    objects += 1;
                    ops.push((
                        format!("{}/x-kubernetes-validations", p),
                        "append",
                        json!({"rule": "has(self.x)", "message": "x: needed"}),
                    ));
                }
                for (k, c) in m {
                    let cp = format!("{}/{}", p, escape_seg(k));
                    if k == "x-kubernetes-validations" {
                        for (i, r) in c.as_array().into_iter().flatten().enumerate() {
                            let rule = r.get("rule").and_then(Value::as_str).unwrap_or("");
                            ops.push((
                                format!("{}/{}/rule", cp, i),
                                "set",
                                json!(format!("{}\n&& true", rule)),
                            ));
                            ops.push((
                                format!("{}/{}/rule", cp, i),
                                "set",
                                json!(format!("{} || false", rule)),
                            ));
                            ops.push((format!("{}/{}", cp, i), "remove", Value::Null));
                        }
                    }
                    stack.push((cp, c));
                }
            } else if let Value::Array(a) = v {
                for (i, c) in a.iter().enumerate() {
                    stack.push((format!("{}/{}", p, i), c));
                }
            }
        }
        for (p, o, v) in &ops {
            let op = match *o {
                "set" => Op::Set(v),
                "append" => Op::Append(v),
                _ => Op::Remove,
            };
            edits += 1;
            match prepared.plan(p, op) {
                Ok(e) => {
                    let out = e.apply(&text);
                    let new = crate::text::crd_document::parse_crd_text(&out).unwrap();
                    assert_eq!(new, expected(crd.clone(), p, op), "{}", p);
                }
                Err(e) => failures.push(format!("{}: {}: {}", f.display(), p, e)),
            }
        }
    }
    eprintln!(
        "{} files, {} edits, {} refused",
        files.len(),
        edits,
        failures.len()
    );
    for f in failures.iter().take(40) {
        eprintln!("{}", f);
    }
    assert!(failures.is_empty());
}
