//! Hand-derived static cost estimates for edge-case CRDs.
//!
//! Every expected number below is derived by hand from cel-go `checker/cost.go`
//! (`costComprehension`, `functionCost`, `sizeOrUnknown`), the apiserver's size hints
//! (`pkg/cel/common/schemas.go`) and cardinality rules (apiextensions `validation.go`,
//! `getExpressionCost`), as summarised in /work/shared/docs/kubernetes-reference.md
//! "Static cost estimate".
//!
//! Building blocks used in the derivations (cel-go):
//! - ident = 1; `self.f` on an object = 1 (ident) + 1 (select) = 2; literal = 0.
//! - a call with no dedicated estimator = 1 + Σ argument costs (+ target cost).
//! - `a && b`: lhs + rhs (no +1).  `==`/`!=`/`<` on strings: ceil(0.1 × min(|a|max,|b|max)) + args.
//! - `a + b` on strings: ceil(0.1 × (|a|max + |b|max)) + args.
//! - `x.all(v, p)` expands to a comprehension: iterRange + accuInit(true: 0) + result(`__result__`: 1)
//!   + rangeCnt × (loopStep + loopCondition), with loopCondition `@not_strictly_false(__result__)`
//!   = 1 + 1 = 2 and loopStep `__result__ && p` = 1 + cost(p).
//! - sizes: string maxLength × 4, else longest enum value, else 3,145,726; list maxItems, else
//!   3,145,726 / (itemMinSize + 1); map maxProperties, else 3,145,726 / (valueMinSize + 6).
//! - cardinality: product of ancestor maxItems/maxProperties; if any ancestor is unbounded,
//!   3,145,728 / (minSerializedSize(node) + 1). The reported `max_cardinality` is always the
//!   latter (the compile result's MaxCardinality); `estimated_cost` uses whichever applies.

mod common;

use crdlab::wire::batch::{rule_reports, RuleReport};
use serde_json::{json, Value};

const MAX_REQUEST: u64 = 3_145_728;

fn crd(spec: Value) -> Value {
    common::widgets_json(json!({"type": "object", "properties": {"spec": spec}}))
}

fn reports(spec: Value) -> Vec<RuleReport> {
    let v = crd(spec);
    let compiled = crdlab::CompiledCrd::from_value(&v, crdlab::KubeVersion::default())
        .unwrap_or_else(|e| panic!("CRD did not compile: {:?}", e.message));
    rule_reports(compiled.version(None).unwrap())
}

/// (max_cost, max_cardinality, estimated_cost) of the rule with text `rule`.
fn cost_of(spec: Value, rule: &str) -> (u64, u64, u64) {
    let rs = reports(spec);
    let r = rs
        .iter()
        .find(|r| r.rule == rule)
        .unwrap_or_else(|| panic!("no rule {:?} in {:?}", rule, rs.iter().map(|r| &r.rule).collect::<Vec<_>>()));
    (
        r.max_cost.unwrap(),
        r.max_cardinality.unwrap(),
        r.estimated_cost.unwrap(),
    )
}

fn rule(r: &str) -> Value {
    json!([{"rule": r}])
}

// ---------------------------------------------------------------- nested comprehensions

const NESTED: &str = "self.matrix.all(row, row.all(x, x > 0))";

fn nested_spec(outer: Option<u64>, inner: Option<u64>) -> Value {
    let mut inner_list = json!({"type": "array", "items": {"type": "integer"}});
    if let Some(n) = inner {
        inner_list["maxItems"] = json!(n);
    }
    let mut outer_list = json!({"type": "array", "items": inner_list});
    if let Some(n) = outer {
        outer_list["maxItems"] = json!(n);
    }
    json!({
        "type": "object",
        "properties": {"matrix": outer_list},
        "x-kubernetes-validations": rule(NESTED)
    })
}

#[test]
fn nested_comprehension_bounded() {
    let (max, card, est) = cost_of(nested_spec(Some(10), Some(5)), NESTED);
    // inner `row.all(x, x > 0)`:
    //   iterRange `row` = 1, accuInit 0, result 1,
    //   step = `__result__`(1) && `x > 0`(1 + x 1 + 0 = 2) = 3, cond = 2,
    //   rangeCnt = |row| = maxItems 5 → 5 × (3 + 2) = 25;   inner = 1 + 0 + 1 + 25 = 27.
    // outer: iterRange `self.matrix` = 2, result 1, step = 1 + 27 = 28, cond 2,
    //   rangeCnt = maxItems 10 → 10 × 30 = 300;           total = 2 + 1 + 300 = 303.
    assert_eq!(max, 303);
    // `max_cardinality` is the compile result's MaxCardinality (apiextensions CompilationResult):
    // always 3,145,728 / (minSerializedSize(node) + 1), used only when an ancestor is unbounded;
    // spec (object, nothing required) minSize 2 → 1,048,576. With bounded (or no) ancestors the
    // estimate multiplies by the product of bounds instead (here 1).
    assert_eq!(card, MAX_REQUEST / 3);
    assert_eq!(est, 303); // 303 × 1
}

#[test]
fn nested_comprehension_unbounded() {
    let (max, card, est) = cost_of(nested_spec(None, None), NESTED);
    // |row| = 3,145,726 / (int minSize 1 + 1) = 1,572,863
    // inner = 1 + 1 + 1,572,863 × 5 = 7,864,317
    // |self.matrix| = 3,145,726 / (list minSize 2 + 1) = 1,048,575
    // outer = 2 + 1 + 1,048,575 × (1 + 7,864,317 + 2) = 8,246,329,344,003
    assert_eq!(max, 8_246_329_344_003);
    assert_eq!(card, MAX_REQUEST / 3); // spec object minSize 2; estimate uses ancestor product 1
    assert_eq!(est, 8_246_329_344_003);
}

#[test]
fn nested_comprehension_bounds_never_increase_cost() {
    let none = cost_of(nested_spec(None, None), NESTED).2;
    let outer = cost_of(nested_spec(Some(10), None), NESTED).2;
    let inner = cost_of(nested_spec(None, Some(5)), NESTED).2;
    let both = cost_of(nested_spec(Some(10), Some(5)), NESTED).2;
    assert!(outer <= none && inner <= none && both <= outer && both <= inner);
    // outer only: 2 + 1 + 10 × (1 + 7,864,317 + 2) = 78,643,203
    assert_eq!(outer, 78_643_203);
    // inner only: inner = 27 → 2 + 1 + 1,048,575 × 30 = 31,457,253
    assert_eq!(inner, 31_457_253);
}

#[test]
fn nested_list_items_cardinality_is_product_of_bounds() {
    let rule_text = "self > 0";
    let spec = json!({
        "type": "object",
        "properties": {"matrix": {
            "type": "array", "maxItems": 10,
            "items": {"type": "array", "maxItems": 5,
                      "items": {"type": "integer", "x-kubernetes-validations": rule(rule_text)}}
        }}
    });
    let (max, card, est) = cost_of(spec, rule_text);
    // `self > 0`: 1 (`_>_`) + 1 (self) + 0 = 2
    assert_eq!(max, 2);
    // reported MaxCardinality: integer minSize 1 → 3,145,728 / 2 = 1,572,864 (not used: ancestors bounded)
    assert_eq!(card, MAX_REQUEST / 2);
    // both ancestors bounded: estimate = 2 × (10 × 5) = 100
    assert_eq!(est, 100);
}

// ---------------------------------------------------------------- string concatenation in loops

const CONCAT: &str = "self.names.all(n, n + 'ab' != 'abc')";

fn concat_spec(max_items: Option<u64>, max_length: Option<u64>) -> Value {
    let mut item = json!({"type": "string"});
    if let Some(n) = max_length {
        item["maxLength"] = json!(n);
    }
    let mut list = json!({"type": "array", "items": item});
    if let Some(n) = max_items {
        list["maxItems"] = json!(n);
    }
    json!({"type": "object", "properties": {"names": list}, "x-kubernetes-validations": rule(CONCAT)})
}

#[test]
fn string_concatenation_in_loop_bounded() {
    let (max, card, est) = cost_of(concat_spec(Some(4), Some(8)), CONCAT);
    // |n| = 8 × 4 = 32; `n + 'ab'`: size 32 + 2 = 34 → ceil(3.4) = 4, + n 1 = 5
    // `… != 'abc'`: min(34, 3) = 3 → ceil(0.3) = 1, + 5 = 6
    // step = 1 + 6 = 7, cond 2; rangeCnt 4 → 36;  total = 2 + 1 + 36 = 39
    assert_eq!(max, 39);
    assert_eq!(card, MAX_REQUEST / 3); // spec object minSize 2; estimate uses ancestor product 1
    assert_eq!(est, 39);
}

#[test]
fn string_concatenation_in_loop_unbounded_string() {
    let (max, _, _) = cost_of(concat_spec(Some(4), None), CONCAT);
    // |n| = 3,145,726; + 2 = 3,145,728 → ceil(314,572.8) = 314,573, + 1 = 314,574
    // != 'abc' → 1 + 314,574 = 314,575; step = 314,576; + cond 2 = 314,578
    // 4 × 314,578 = 1,258,312; + 3 = 1,258,315
    assert_eq!(max, 1_258_315);
}

#[test]
fn string_concatenation_in_loop_unbounded_everything() {
    let (max, _, _) = cost_of(concat_spec(None, None), CONCAT);
    // |names| = 3,145,726 / (string minSize 2 + 1) = 1,048,575
    // 1,048,575 × 314,578 + 3 = 329,858,626,353
    assert_eq!(max, 329_858_626_353);
}

#[test]
fn string_concatenation_bounds_never_increase_cost() {
    let variants = [
        concat_spec(None, None),
        concat_spec(Some(4), None),
        concat_spec(None, Some(8)),
        concat_spec(Some(4), Some(8)),
    ];
    let c: Vec<u64> = variants.into_iter().map(|s| cost_of(s, CONCAT).2).collect();
    assert!(c[1] <= c[0] && c[2] <= c[0] && c[3] <= c[1] && c[3] <= c[2], "{:?}", c);
    // maxLength only: 1,048,575 × (1 + 6 + 2) + 3 = 9,437,178
    assert_eq!(c[2], 9_437_178);
}

// ---------------------------------------------------------------- maps of lists

const MAP_OF_LISTS: &str = "self.groups.all(k, self.groups[k].all(v, v.size() < 5))";

fn map_spec(max_props: Option<u64>, max_items: Option<u64>) -> Value {
    let mut list = json!({"type": "array", "items": {"type": "string"}});
    if let Some(n) = max_items {
        list["maxItems"] = json!(n);
    }
    let mut map = json!({"type": "object", "additionalProperties": list});
    if let Some(n) = max_props {
        map["maxProperties"] = json!(n);
    }
    json!({"type": "object", "properties": {"groups": map}, "x-kubernetes-validations": rule(MAP_OF_LISTS)})
}

#[test]
fn map_of_lists_bounded() {
    let (max, card, est) = cost_of(map_spec(Some(5), Some(3)), MAP_OF_LISTS);
    // inner iterRange `self.groups[k]`: index 1 + self.groups 2 + k 1 = 4; its size = map value = maxItems 3
    // `v.size() < 5`: size() 1 + v 1 = 2; `<` 1 + 2 = 3; step 1 + 3 = 4; cond 2 → 3 × 6 = 18
    // inner = 4 + 0 + 1 + 18 = 23
    // outer: |self.groups| = maxProperties 5; step 1 + 23 = 24; 5 × 26 = 130; total = 2 + 1 + 130 = 133
    assert_eq!(max, 133);
    assert_eq!(card, MAX_REQUEST / 3); // spec object minSize 2; estimate uses ancestor product 1
    assert_eq!(est, 133);
}

#[test]
fn map_of_lists_unbounded() {
    let (max, _, _) = cost_of(map_spec(None, None), MAP_OF_LISTS);
    // |value list| = 3,145,726 / (2 + 1) = 1,048,575 → inner = 4 + 1 + 1,048,575 × 6 = 6,291,455
    // |map| = 3,145,726 / (list minSize 2 + 6) = 393,215
    // total = 3 + 393,215 × (1 + 6,291,455 + 2) = 2,473,895,657,473
    assert_eq!(max, 2_473_895_657_473);
    let props_only = cost_of(map_spec(Some(5), None), MAP_OF_LISTS).0;
    let items_only = cost_of(map_spec(None, Some(3)), MAP_OF_LISTS).0;
    // props only: 3 + 5 × 6,291,458 = 31,457,293; items only: 3 + 393,215 × 26 = 10,223,593
    assert_eq!(props_only, 31_457_293);
    assert_eq!(items_only, 10_223_593);
    assert!(props_only <= max && items_only <= max);
}

#[test]
fn map_of_lists_item_cardinality() {
    let r = "self.size() > 0";
    let spec = |props: Option<u64>| {
        let mut map = json!({"type": "object", "additionalProperties": {
            "type": "array", "maxItems": 3,
            "items": {"type": "string", "x-kubernetes-validations": rule(r)}}});
        if let Some(n) = props {
            map["maxProperties"] = json!(n);
        }
        json!({"type": "object", "properties": {"groups": map}})
    };
    // `self.size() > 0`: size() 1 + self 1 = 2; `>` 1 + 2 = 3
    let (max, card, est) = cost_of(spec(Some(5)), r);
    // reported MaxCardinality = 3,145,728 / (string minSize 2 + 1); estimate uses 5 × 3 = 15 → 45
    assert_eq!((max, card, est), (3, MAX_REQUEST / 3, 45));
    // map unbounded → 3,145,728 / (string minSize 2 + 1) = 1,048,576
    let (max, card, est) = cost_of(spec(None), r);
    assert_eq!((max, card, est), (3, MAX_REQUEST / 3, 3 * 1_048_576));
}

// ---------------------------------------------------------------- int-or-string

#[test]
fn int_or_string_items_under_unbounded_list() {
    let r = "self == 1";
    let spec = json!({"type": "object", "properties": {"ports": {
        "type": "array",
        "items": {"x-kubernetes-int-or-string": true, "x-kubernetes-validations": rule(r)}}}});
    let (max, card, est) = cost_of(spec, r);
    // `self == 1`: sizes |self| = 3,145,726 (int-or-string), |1| = 1 → min 1 → ceil(0.1) = 1, + self 1 = 2
    assert_eq!(max, 2);
    // int-or-string minSerializedSize 1 → 3,145,728 / 2 = 1,572,864
    assert_eq!(card, MAX_REQUEST / (1 + 1));
    assert_eq!(card, 1_572_864);
    assert_eq!(est, 3_145_728);
}

#[test]
fn int_or_string_list_size() {
    let r = "self.ports.all(p, p == 1)";
    let spec = |max_items: Option<u64>| {
        let mut list = json!({"type": "array", "items": {"x-kubernetes-int-or-string": true}});
        if let Some(n) = max_items {
            list["maxItems"] = json!(n);
        }
        json!({"type": "object", "properties": {"ports": list}, "x-kubernetes-validations": rule(r)})
    };
    // step = 1 + (`p == 1` = 2) = 3; cond 2 → 5 per item
    // unbounded: |ports| = 3,145,726 / (1 + 1) = 1,572,863 → 2 + 1 + 7,864,315 = 7,864,318
    assert_eq!(cost_of(spec(None), r).0, 7_864_318);
    // maxItems 7: 3 + 35 = 38
    assert_eq!(cost_of(spec(Some(7)), r).0, 38);
}

// ---------------------------------------------------------------- enums

const ENUM_RULE: &str = "self.color + 'x' == 'y'";

fn enum_spec(max_length: Option<u64>, with_enum: bool) -> Value {
    let mut color = json!({"type": "string"});
    if with_enum {
        color["enum"] = json!(["red", "green", "purple-ish"]);
    }
    if let Some(n) = max_length {
        color["maxLength"] = json!(n);
    }
    json!({"type": "object", "properties": {"color": color}, "x-kubernetes-validations": rule(ENUM_RULE)})
}

#[test]
fn enum_without_max_length_uses_longest_value() {
    let (max, _, _) = cost_of(enum_spec(None, true), ENUM_RULE);
    // |self.color| = len("purple-ish") = 10; + 'x' → 11 → ceil(1.1) = 2, + 2 = 4
    // == 'y': min(11, 1) = 1 → 1, + 4 = 5
    assert_eq!(max, 5);
}

#[test]
fn enum_max_length_takes_precedence() {
    let (max, _, _) = cost_of(enum_spec(Some(20), true), ENUM_RULE);
    // maxLength wins: 20 × 4 = 80; + 1 = 81 → ceil(8.1) = 9, + 2 = 11; == 'y' → 12
    assert_eq!(max, 12);
}

#[test]
fn string_without_enum_or_max_length() {
    let (max, _, _) = cost_of(enum_spec(None, false), ENUM_RULE);
    // 3,145,726 + 1 = 3,145,727 → ceil(314,572.7) = 314,573, + 2 = 314,575; == → 314,576
    assert_eq!(max, 314_576);
    assert!(cost_of(enum_spec(None, true), ENUM_RULE).0 <= max);
    assert!(cost_of(enum_spec(Some(20), false), ENUM_RULE).0 <= max);
}

// ---------------------------------------------------------------- date-time

const TS: &str = "self < timestamp('2030-01-01T00:00:00Z')";

#[test]
fn date_time_items_under_unbounded_list() {
    let spec = json!({"type": "object", "properties": {"times": {
        "type": "array",
        "items": {"type": "string", "format": "date-time", "x-kubernetes-validations": rule(TS)}}}});
    let (max, card, est) = cost_of(spec, TS);
    // self 1; timestamp(literal) 1 + 0 = 1; `<` on timestamps 1 + 2 = 3
    assert_eq!(max, 3);
    // date-time minSerializedSize 21 → 3,145,728 / 22 = 142,987
    assert_eq!(card, MAX_REQUEST / (21 + 1));
    assert_eq!(card, 142_987);
    assert_eq!(est, 428_961); // 3 × 142,987
}

#[test]
fn date_time_list_comprehension() {
    let r = "self.times.all(t, t < timestamp('2030-01-01T00:00:00Z'))";
    let spec = |max_items: Option<u64>| {
        let mut list = json!({"type": "array", "items": {"type": "string", "format": "date-time"}});
        if let Some(n) = max_items {
            list["maxItems"] = json!(n);
        }
        json!({"type": "object", "properties": {"times": list}, "x-kubernetes-validations": rule(r)})
    };
    // step = 1 + 3 = 4; cond 2 → 6 per item
    // unbounded: |times| = 3,145,726 / 22 = 142,987 → 2 + 1 + 857,922 = 857,925
    let unbounded = cost_of(spec(None), r).0;
    assert_eq!(unbounded, 857_925);
    // maxItems 100: 3 + 600 = 603
    let bounded = cost_of(spec(Some(100)), r).0;
    assert_eq!(bounded, 603);
    assert!(bounded <= unbounded);
}

// ---------------------------------------------------------------- unbounded everything

fn unbounded_spec(items_max: Option<u64>, tags_max: Option<u64>, len: Option<u64>) -> Value {
    let mut tag = json!({"type": "string", "x-kubernetes-validations": rule("self.startsWith('a')")});
    if let Some(n) = len {
        tag["maxLength"] = json!(n);
    }
    let mut tags = json!({"type": "array", "items": tag});
    if let Some(n) = tags_max {
        tags["maxItems"] = json!(n);
    }
    let mut items = json!({"type": "array", "items": {
        "type": "object", "required": ["name"],
        "properties": {"name": {"type": "string"}, "tags": tags},
        "x-kubernetes-validations": rule("self.tags.all(t, t + self.name != 'x')")
    }});
    if let Some(n) = items_max {
        items["maxItems"] = json!(n);
    }
    json!({"type": "object", "properties": {"items": items}})
}

#[test]
fn unbounded_everything() {
    let spec = unbounded_spec(None, None, None);
    // tag rule `self.startsWith('a')`: self 1 + ceil(0.1 × 1) = 1 → 2
    let (max, card, est) = cost_of(spec.clone(), "self.startsWith('a')");
    assert_eq!(max, 2);
    // ancestors unbounded → 3,145,728 / (string minSize 2 + 1) = 1,048,576 (not a product)
    assert_eq!(card, MAX_REQUEST / 3);
    assert_eq!(est, 2_097_152);

    // object rule `self.tags.all(t, t + self.name != 'x')`:
    //   `t + self.name`: 3,145,726 × 2 = 6,291,452 → ceil(629,145.2) = 629,146, + t 1 + self.name 2 = 629,149
    //   `!= 'x'`: 1 + 629,149 = 629,150; step = 629,151; cond 2 → 629,153 per item
    //   |tags| = 3,145,726 / 3 = 1,048,575 → 629,153 × 1,048,575 = 659,714,913,975; + 2 + 1
    let r = "self.tags.all(t, t + self.name != 'x')";
    let (max, card, est) = cost_of(spec, r);
    assert_eq!(max, 659_714_106_978);
    // object minSerializedSize = 2 + (len("name") 4 + string 2 + 4) = 12 → 3,145,728 / 13 = 241,979
    assert_eq!(card, MAX_REQUEST / (12 + 1));
    assert_eq!(card, 241_979);
    // 659,714,913,978 × 241,979 overflows u64? no: ≈ 1.596e17 < 1.8e19
    assert_eq!(est, 659_714_106_978u64 * 241_979);
}

#[test]
fn unbounded_everything_bounds_never_increase_cost() {
    let r = "self.tags.all(t, t + self.name != 'x')";
    let t = "self.startsWith('a')";
    let all = [
        unbounded_spec(None, None, None),
        unbounded_spec(Some(10), None, None),
        unbounded_spec(None, Some(10), None),
        unbounded_spec(None, None, Some(10)),
        unbounded_spec(Some(10), Some(10), Some(10)),
    ];
    let base_r = cost_of(all[0].clone(), r).2;
    let base_t = cost_of(all[0].clone(), t).2;
    for s in &all[1..] {
        assert!(cost_of(s.clone(), r).2 <= base_r);
        assert!(cost_of(s.clone(), t).2 <= base_t);
    }
    // fully bounded tag rule: cost 2 × (10 × 10) = 200; reported MaxCardinality stays 3,145,728 / 3
    assert_eq!(cost_of(all[4].clone(), t), (2, MAX_REQUEST / 3, 200));
    // only the outer list bounded: tags still unbounded → estimate 2 × 3,145,728 / 3
    assert_eq!(cost_of(all[1].clone(), t).2, 2 * (MAX_REQUEST / 3));
}
