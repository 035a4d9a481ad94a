//! Input at the depth limits runs in a 1 MiB stack, the default WebAssembly stack (issue 16).
//!
//! Each case runs on a thread with a 1 MiB stack (an overflow aborts the test binary, so a
//! regression cannot pass); run in release (`cargo test --release --test deep`), which is
//! what ships. The limits: 512 nested values (`text::read_error::MAX_DEPTH`, YAML and JSON
//! text and JSON values alike), 128 nested schemas (`crd::load::MAX_SCHEMA_DEPTH`), cel-go's
//! parser limits (250) and crdlab's bound of 64 nested CEL expressions
//! (`cel::parse_limits::MAX_NESTING`).

use crdlab::analysis::diff;
use crdlab::engine::Engine;
use crdlab::text::positions::{object_range, Source};
use crdlab::view::share;
use crdlab::wire::batch::Request;
use serde_json::{json, Value};

mod common;

const STACK: usize = 1 << 20;

fn small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// `k` nested maps `{"a": ... {"a": 1}}`: depth `k`.
fn deep_map(k: usize) -> String {
    format!("{}1{}", "{\"a\":".repeat(k), "}".repeat(k))
}

/// `k` nested lists `[...[leaf]...]`: depth `k`.
fn deep_list(k: usize, leaf: &str) -> String {
    format!("{}{}{}", "[".repeat(k), leaf, "]".repeat(k))
}

fn object(spec: &str) -> String {
    format!(
        r#"{{"apiVersion":"example.com/v1","kind":"Widget","metadata":{{"name":"w","namespace":"default"}},"spec":{}}}"#,
        spec
    )
}

fn open_crd() -> String {
    common::widgets_spec("            x-kubernetes-preserve-unknown-fields: true\n")
}

fn req(crd: String, obj: Option<Value>, old: Option<Value>, sub: Option<&str>) -> Request {
    Request {
        id: json!(1),
        crd: Some(Value::String(crd)),
        object: obj,
        old_object: old,
        subresource: sub.map(str::to_string),
        ..Default::default()
    }
}

fn run(r: Request) -> Value {
    small_stack(move || serde_json::to_value(Engine::new().handle(&r)).unwrap())
}

fn messages(a: &Value, key: &str) -> Vec<String> {
    a[key]
        .as_array()
        .unwrap_or_else(|| panic!("no {} in {}", key, short(a)))
        .iter()
        .map(|e| e["message"].as_str().unwrap().to_string())
        .collect()
}

/// A JSON value parsed without serde_json's recursion limit (128).
fn unbounded(text: &str) -> Value {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    <Value as serde::Deserialize>::deserialize(&mut de).unwrap()
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    s.chars().take(2000).collect()
}

#[test]
fn object_at_the_reader_limit_through_create_update_status() {
    // 512 levels: the object, then 511 maps from `spec` down.
    let text = object(&deep_map(511));
    let parsed: Value = crdlab::text::yaml::read_document(&text).unwrap();
    for sub in [None, Some("status")] {
        let a = run(req(open_crd(), Some(json!(text)), None, sub));
        assert_eq!(messages(&a, "errors"), Vec::<String>::new(), "{:?}", sub);
        assert_eq!(a["defaulted"], parsed);
        let changed = object(&deep_map(511).replace(":1}", ":2}"));
        let a = run(req(open_crd(), Some(json!(changed)), Some(json!(text)), sub));
        assert_eq!(messages(&a, "errors"), Vec::<String>::new(), "{:?}", sub);
        assert_eq!(a["defaulted"]["metadata"]["name"], json!("w"));
    }
    // One more level is refused where it starts.
    let a = run(req(open_crd(), Some(json!(object(&deep_map(512)))), None, None));
    let e = a["error"].as_str().unwrap_or_else(|| panic!("{}", short(&a)));
    assert_eq!(e, "cannot read object: line 1, column 2656: nesting deeper than 512 levels: crdlab reads at most 512 (the apiserver's decoders allow 10000; crdlab's checks must fit the 1 MiB WebAssembly stack)");
}

#[test]
fn json_values_are_bounded_like_text() {
    let ok = unbounded(&object(&deep_map(511)));
    let a = run(req(open_crd(), Some(ok), None, None));
    assert_eq!(messages(&a, "errors"), Vec::<String>::new());
    let deep = unbounded(&object(&deep_map(512)));
    let a = run(req(open_crd(), Some(deep.clone()), None, None));
    assert_eq!(a["error"], json!("cannot read object: nesting deeper than 512 levels: crdlab reads at most 512 (the apiserver's decoders allow 10000; crdlab's checks must fit the 1 MiB WebAssembly stack)"));
    let a = run(req(open_crd(), Some(json!(object("{}"))), Some(deep.clone()), None));
    assert_eq!(a["error"], json!("cannot read oldObject: nesting deeper than 512 levels: crdlab reads at most 512 (the apiserver's decoders allow 10000; crdlab's checks must fit the 1 MiB WebAssembly stack)"));
    // A batch line: serde_json's own bound (128) answers first.
    let line = format!(r#"{{"id":1,"crd":{},"object":{}}}"#, json!(open_crd()), object(&deep_map(200)));
    let a = small_stack(move || serde_json::to_value(Engine::new().handle_line(&line)).unwrap());
    assert!(a["error"].as_str().unwrap().starts_with("request is not JSON: recursion limit exceeded"), "{}", short(&a));
    // Eval variables.
    let r = Request { id: json!(1), mode: Some("eval".into()), expr: Some("1".into()), vars: Some(json!({"x": deep})), ..Default::default() };
    assert_eq!(run(r)["error"], json!("cannot read vars: nesting deeper than 512 levels: crdlab reads at most 512 (the apiserver's decoders allow 10000; crdlab's checks must fit the 1 MiB WebAssembly stack)"));
}

/// The widgets CRD whose `spec.x` is `arrays` nested arrays of `leaf` (JSON text): the
/// schema root, `spec`, `x` and the arrays below it count as levels.
fn deep_schema(arrays: usize, leaf: Value, top_rules: Value) -> String {
    let mut s = leaf;
    for _ in 0..arrays {
        s = json!({"type": "array", "items": s});
    }
    s["x-kubernetes-validations"] = top_rules;
    common::widgets_json(json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {"x": s}}}}))
        .to_string()
}

fn int_leaf(rule: &str) -> Value {
    json!({"type": "integer", "x-kubernetes-validations": [{"rule": rule}]})
}

#[test]
fn schema_at_the_depth_limit_with_rules_at_the_bottom() {
    // 128 levels: root, spec, x and 124 arrays below x, then the integer.
    let crd = deep_schema(125, int_leaf("self > 0"), json!([]));
    let obj = object(&format!("{{\"x\":{}}}", deep_list(125, "0")));
    let a = run(req(crd.clone(), Some(json!(obj)), None, None));
    assert_eq!(messages(&a, "crdErrors"), Vec::<String>::new());
    let at = format!("spec.x{}", "[0]".repeat(125));
    assert_eq!(messages(&a, "errors"), vec![format!("{}: Invalid value: 0: failed rule: self > 0", at)]);
    let ok = object(&format!("{{\"x\":{}}}", deep_list(125, "1")));
    let a = run(req(crd.clone(), Some(json!(ok.clone())), Some(json!(ok)), Some("status")));
    assert_eq!(messages(&a, "errors"), Vec::<String>::new());
    // One level more: refused before anything recurses, with the path of the deepest schema.
    let a = run(req(deep_schema(126, int_leaf("self > 0"), json!([])), None, None, None));
    let path = format!("spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[x]{}", ".items".repeat(126));
    assert_eq!(a["error"], json!(format!("{}: schema nests deeper than crdlab's limit of 128 levels", path)));
}

#[test]
fn deep_values_through_cel_at_the_top_of_a_deep_schema() {
    let rules = json!([
        {"rule": "self == oldSelf", "message": "immutable"},
        {"rule": "[self] == [oldSelf]"},
        {"rule": "self.all(e, size(e) == 1)"},
    ]);
    let crd = deep_schema(125, json!({"type": "integer"}), rules);
    let old = object(&format!("{{\"x\":{}}}", deep_list(125, "1")));
    let new = object(&format!("{{\"x\":{}}}", deep_list(125, "2")));
    let a = run(req(crd.clone(), Some(json!(old.clone())), Some(json!(old.clone())), None));
    assert_eq!(messages(&a, "crdErrors"), Vec::<String>::new());
    assert_eq!(messages(&a, "errors"), Vec::<String>::new());
    let a = run(req(crd, Some(json!(new)), Some(json!(old)), None));
    assert_eq!(
        messages(&a, "errors"),
        vec![
            "spec.x: Invalid value: immutable".to_string(),
            "spec.x: Invalid value: failed rule: [self] == [oldSelf]".to_string(),
        ]
    );
}

#[test]
fn schema_limit_then_unknown_fields_to_the_reader_limit() {
    // The deepest schema keeps unknown fields; the object goes on to 512 levels.
    let leaf = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true});
    let crd = deep_schema(125, leaf, json!([{"rule": "size(self) == 1 && self == self"}]));
    let obj = object(&format!("{{\"x\":{}}}", deep_list(125, &deep_map(385))));
    let a = run(req(crd, Some(json!(obj)), None, None));
    assert_eq!(messages(&a, "errors"), Vec::<String>::new(), "{}", short(&a));
}

fn eval_with(expr: String, vars: Option<Value>) -> Value {
    let r = Request { id: json!(1), mode: Some("eval".into()), expr: Some(expr), vars, ..Default::default() };
    run(r)
}

fn eval(expr: String) -> Value {
    eval_with(expr, None)
}

fn compile_error(a: &Value) -> &str {
    a["compileError"].as_str().unwrap_or_else(|| panic!("no compile error: {}", short(a)))
}

#[test]
fn cel_at_the_parser_limits() {
    let nest = |open: &str, close: &str, n: usize| format!("{}1{}", open.repeat(n), close.repeat(n));
    let crdlab_limit = "ERROR: <input>:-1:0: expression nesting exceeds crdlab's limit: 64 (the apiserver allows 250)";
    // 63 brackets and the whole expression: 64 nested expressions.
    assert_eq!(eval(nest("(", ")", 63))["value"], json!(1));
    assert_eq!(compile_error(&eval(nest("(", ")", 64))), crdlab_limit);
    assert_eq!(compile_error(&eval(nest("(", ")", 250))), "ERROR: <input>:-1:0: expression recursion limit exceeded: 250");
    assert_eq!(eval(nest("[", "]", 63))["outputType"], json!(format!("{}int{}", "list(".repeat(63), ")".repeat(63))));
    assert_eq!(compile_error(&eval(nest("[", "]", 64))), crdlab_limit);
    assert_eq!(eval(nest("{'a':", "}", 63))["estimatedCost"], json!({"max": 1890, "min": 1890}));
    assert_eq!(eval(nest("int(", ")", 63))["value"], json!(1));
    assert_eq!(eval(format!("{}1", "false ? 0 : ".repeat(63)))["value"], json!(1));
    assert_eq!(compile_error(&eval(format!("{}1", "false ? 0 : ".repeat(64)))), crdlab_limit);
    assert_eq!(compile_error(&eval(format!("{}1", "false ? 0 : ".repeat(250)))), "ERROR: <input>:-1:0: expression recursion limit exceeded: 250");
    // Broken input past which the parser would recover and go on nesting.
    assert_eq!(compile_error(&eval(format!("{} +", nest("(", ")", 200)))), crdlab_limit);
    assert_eq!(compile_error(&eval(format!("{} #", nest("(", ")", 200)))), crdlab_limit);
    // Chains are not nested expressions; cel-go's visitor bound (250) holds them.
    assert_eq!(eval(vec!["1"; 251].join(" + "))["value"], json!(251));
    assert_eq!(compile_error(&eval(vec!["1"; 252].join(" + "))), "ERROR: <input>:-1:0: max recursion depth exceeded");
    assert!(compile_error(&eval(vec!["1"; 250].join(" == "))).starts_with("ERROR: <input>:1:8: found no matching overload for '_==_' applied to '(bool, int)'"));
    let a = eval(format!("[1]{}", ".map(x, [x])".repeat(200)));
    assert_eq!(a["outputType"], json!(format!("{}int{}", "list(".repeat(201), ")".repeat(201))));
    assert_eq!(a["actualCost"], json!(4800));
}

#[test]
fn cel_over_deep_values() {
    // x: 250 nested maps, the deepest select and index chains cel-go's visitor allows.
    let x = unbounded(&deep_map(250));
    let vars = Some(json!({"x": x}));
    assert_eq!(eval_with(format!("x{}", ".a".repeat(250)), vars.clone())["value"], json!(1));
    assert_eq!(eval_with(format!("x{}", "['a']".repeat(250)), vars.clone())["value"], json!(1));
    // 511 nested maps: with the variables object, 512 levels.
    let x = unbounded(&deep_map(511));
    let vars = Some(json!({"x": x.clone()}));
    assert_eq!(eval_with("x == x && [x] == [x] && x.map(k, x[k]) == [x.a]".into(), vars.clone())["value"], json!(true));
    // Out again (a map is printed as its entries).
    let out = eval_with("x".into(), vars.clone());
    assert_eq!(out["outputType"], json!("dyn"), "{}", short(&out));
    assert_eq!(out["value"][0][0], json!("a"));
    assert_eq!(eval_with("x.a != x".into(), vars.clone())["value"], json!(true));
}

#[test]
fn diff_of_deep_crds() {
    let old = deep_schema(125, json!({"type": "integer"}), json!([]));
    let new = deep_schema(125, json!({"type": "string"}), json!([]));
    let report = small_stack(move || diff::diff(&old, &new, &diff::Options::default()).unwrap());
    assert!(report.breaking);
    let fields: Vec<_> = report.findings.iter().map(|f| (f.check.as_str(), f.field.clone().unwrap_or_default())).collect();
    assert_eq!(fields, vec![("type", format!("^.spec.x{}", ".items".repeat(125)))]);
}

/// A YAML document whose `spec` holds maps nested `k` deep in block style.
fn deep_yaml(k: usize) -> String {
    let mut t = String::from("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n");
    for i in 0..k {
        t.push_str(&format!("{}a:\n", "  ".repeat(i + 1)));
    }
    t.push_str(&format!("{}1\n", "  ".repeat(k + 1)));
    t
}

#[test]
fn positions_and_share_links_of_deep_texts() {
    let text = deep_yaml(510);
    let (line, column) = small_stack(move || {
        let src = Source::read(&text).unwrap();
        let field = format!("spec{}", ".a".repeat(510));
        let at = object_range(&field, &src.value, &src.map).unwrap();
        assert!(at.exact);
        (at.range.start_line, at.range.start_column)
    });
    assert_eq!((line, column), (515, 1023));
    let state = share::State { crd: open_crd(), object: deep_yaml(510), old_object: object(&deep_map(511)), ..Default::default() };
    let back = small_stack(move || share::decode(&share::encode(&state)).unwrap().unwrap());
    assert_eq!(back.object, deep_yaml(510));
    assert_eq!(back.old_object, object(&deep_map(511)));
}

#[test]
fn playground_analysis_of_deep_texts() {
    let crd = open_crd();
    let analysis = small_stack(move || {
        let mut ws = crdlab::view::workspace::Workspace::new();
        let a = ws.analyze(&crd, &deep_yaml(510), &deep_yaml(510), &Default::default());
        serde_json::to_value(a.object.map(|o| o.errors.len())).unwrap()
    });
    assert_eq!(analysis, json!(0));
}

#[test]
fn schema_depth_counts_every_nesting_keyword() {
    // Alternating keywords, each one level: the root and 127 below it is the limit.
    let keys = ["properties", "items", "allOf", "additionalProperties", "not", "anyOf", "patternProperties"];
    let nest = |levels: usize| {
        let mut s = json!({"type": "string"});
        for i in 0..levels - 1 {
            s = match keys[i % keys.len()] {
                k @ ("properties" | "patternProperties") => json!({"type": "object", k: {"f": s}}),
                k @ ("allOf" | "anyOf") => json!({k: [s]}),
                k => json!({k: s}),
            };
        }
        s
    };
    let decode = |schema: Value| crdlab::crd::decode_crd(&common::widgets_json(schema)).map(|_| ()).map_err(|e| e.message);
    assert_eq!(decode(nest(128)), Ok(()));
    let e = decode(nest(129)).unwrap_err();
    // The outermost steps, from `nest`'s last keyword back.
    assert!(e.starts_with("spec.versions[0].schema.openAPIV3Schema.items.properties[f].patternProperties[f].anyOf[0].not.additionalProperties.allOf[0].items."), "{}", e);
    assert!(e.ends_with(": schema nests deeper than crdlab's limit of 128 levels"), "{}", e);
    assert_eq!(e.split(':').next().unwrap().matches('.').count(), 3 + 128, "{}", e);
    // Values under `default` or `example` are not schemas.
    let mut s = nest(3);
    let mut deep = json!(1);
    for _ in 0..200 {
        deep = json!({"items": deep});
    }
    s["example"] = deep;
    assert_eq!(decode(s), Ok(()));
}
