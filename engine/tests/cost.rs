//! `crdlab cost`: every rule with its cost and share of the per-CRD budget, and for rules
//! over the per-rule limit a bound that fixes them — verified here by applying the bound to
//! the CRD and re-running (the rule is then within the limit, and with one more it is not).

// Needs the `crdlab` binary, built with the `cli` feature (on by default).
#![cfg(feature = "cli")]

mod common;

use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

const POSTGRES: &str =
    "/work/shared/crds/postgres-operator/config/crd/bases/postgres-operator.crunchydata.com_postgresclusters.yaml";
const OVER_BUDGET: &str = "/work/shared/crds/handmade/d.crd.json";
const LIMIT: u64 = 10_000_000;

fn crdlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_crdlab"))
}

fn tmp(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("crdlab-cost-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

fn run(args: &[&str]) -> (i32, String) {
    let out = crdlab().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.is_empty() || !stderr.contains("stopped unexpectedly"),
        "{}",
        stderr
    );
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

fn json(args: &[&str]) -> (i32, Value) {
    let mut a = args.to_vec();
    a.extend(["-o", "json"]);
    let (code, out) = run(&a);
    (
        code,
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{}: {}", e, out)),
    )
}

fn have(p: &str) -> bool {
    let ok = Path::new(p).exists();
    if !ok {
        eprintln!("skipping: {} not found", p);
    }
    ok
}

#[test]
fn postgres_prints_every_rule_with_its_share() {
    if !have(POSTGRES) {
        return;
    }
    let (code, text) = run(&["cost", "--crd", POSTGRES, "--version", "v1beta1"]);
    assert_eq!(code, 0, "{}", text);
    assert!(text.contains("version v1beta1"), "{}", text);
    assert!(text.contains(": 66 rules"), "{}", text);
    let rule_lines = text
        .lines()
        .filter(|l| l.trim_start().starts_with("rule: "))
        .count();
    assert_eq!(rule_lines, 66, "{}", text);
    let share_lines = text
        .lines()
        .filter(|l| l.contains("estimatedCost ") && l.contains("% of the 100,000,000 budget)"))
        .count();
    assert_eq!(share_lines, 66, "{}", text);
    assert!(text.contains("total estimated cost "), "{}", text);

    // The JSON agrees with the apiserver's figures the engine reports elsewhere.
    let (_, j) = json(&["cost", "--crd", POSTGRES, "--version", "v1beta1"]);
    let rules = j["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 66);
    let crd = crdlab::crd::CompiledCrd::from_text(
        &std::fs::read_to_string(POSTGRES).unwrap(),
        Default::default(),
    )
    .unwrap();
    let reports = crdlab::wire::batch::rule_reports(crd.version(Some("v1beta1")).unwrap());
    assert_eq!(reports.len(), 66);
    let mut total: u64 = 0;
    for (r, rep) in rules.iter().zip(&reports) {
        assert_eq!(r["schemaPath"], rep.schema_path.as_str());
        assert_eq!(r["estimatedCost"].as_u64(), rep.estimated_cost);
        assert_eq!(r["maxCost"].as_u64(), rep.max_cost);
        assert_eq!(r["maxCardinality"].as_u64(), rep.max_cardinality);
        let share = r["sharePercent"].as_f64().unwrap();
        let expected = rep.estimated_cost.unwrap() as f64 * 100.0 / 100_000_000.0;
        assert!((share - expected).abs() < 1e-9, "{} vs {}", share, expected);
        assert_eq!(r["overLimit"], false);
        total = total
            .saturating_add(rep.estimated_cost.unwrap())
            .saturating_add(rep.message_cost.unwrap_or(0));
    }
    assert_eq!(j["total"].as_u64(), Some(total));
}

/// Sets `keyword: value` on the node at `pointer` of a CRD.
fn with_bound(crd: &Value, pointer: &str, keyword: &str, value: u64) -> String {
    let mut c = crd.clone();
    let node = c
        .pointer_mut(pointer)
        .unwrap_or_else(|| panic!("no {}", pointer));
    node[keyword] = Value::from(value);
    serde_json::to_string(&c).unwrap()
}

fn rule_cost(j: &Value, schema_path: &str) -> u64 {
    j["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["schemaPath"] == schema_path)
        .unwrap()["estimatedCost"]
        .as_u64()
        .unwrap()
}

#[test]
fn over_budget_rules_get_a_verified_bound() {
    if !have(OVER_BUDGET) {
        return;
    }
    let (code, text) = run(&["cost", "--crd", OVER_BUDGET]);
    assert_eq!(code, 1, "{}", text);
    assert!(text.contains("OVER the per-rule limit"), "{}", text);
    assert!(text.contains("fix: add maxItems: "), "{}", text);

    let (_, j) = json(&["cost", "--crd", OVER_BUDGET]);
    let crd: Value = serde_json::from_str(&std::fs::read_to_string(OVER_BUDGET).unwrap()).unwrap();
    let mut verified = 0;
    for r in j["rules"].as_array().unwrap() {
        let over = r["estimatedCost"].as_u64().unwrap() > LIMIT;
        assert_eq!(r["overLimit"], over);
        if !over {
            assert!(r["fixes"].as_array().unwrap().is_empty());
            continue;
        }
        let sp = r["schemaPath"].as_str().unwrap();
        for f in r["fixes"].as_array().unwrap() {
            let (ptr, kw, v) = (
                f["pointer"].as_str().unwrap(),
                f["keyword"].as_str().unwrap(),
                f["value"].as_u64().unwrap(),
            );
            let line = format!(
                "fix: add {}: {} to {} (rule cost would be ",
                kw,
                crdlab::analysis::explain::group(v),
                f["field"].as_str().unwrap()
            );
            assert!(text.contains(&line), "{} not in {}", line, text);

            // With the bound the rule is within the limit, at the cost promised...
            let fixed = tmp("fixed.json", &with_bound(&crd, ptr, kw, v));
            let (_, jf) = json(&["cost", "--crd", &fixed]);
            let c = rule_cost(&jf, sp);
            assert!(
                c <= LIMIT,
                "{} {} = {}: {} still costs {}",
                ptr,
                kw,
                v,
                sp,
                c
            );
            assert_eq!(Some(c), f["estimatedCost"].as_u64());
            // ... and the apiserver's checks agree (no cost error on that rule).
            let compiled = crdlab::crd::CompiledCrd::from_text(
                &with_bound(&crd, ptr, kw, v),
                Default::default(),
            )
            .unwrap();
            assert!(
                !compiled.crd_errors.iter().any(|e| e
                    .message()
                    .contains("estimated rule cost exceeds budget")
                    && e.field.as_str().contains(sp)),
                "{:?}",
                compiled
                    .crd_errors
                    .iter()
                    .map(|e| e.message())
                    .collect::<Vec<_>>()
            );
            // ... and the bound is the loosest that works: one more is over the limit.
            let looser = tmp("looser.json", &with_bound(&crd, ptr, kw, v + 1));
            let (_, jl) = json(&["cost", "--crd", &looser]);
            let c1 = rule_cost(&jl, sp);
            assert!(c1 > LIMIT, "{} {} = {} still fits: {}", ptr, kw, v + 1, c1);
            verified += 1;
        }
    }
    assert!(verified >= 1, "no fix was suggested: {}", text);
}

#[test]
fn combined_fix_when_no_single_bound_does() {
    if !have(OVER_BUDGET) {
        return;
    }
    let (_, j) = json(&["cost", "--crd", OVER_BUDGET]);
    let crd: Value = serde_json::from_str(&std::fs::read_to_string(OVER_BUDGET).unwrap()).unwrap();
    let r = j["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["rule"].as_str().unwrap().starts_with("self.matrix"))
        .unwrap();
    assert!(r["fixes"].as_array().unwrap().is_empty());
    let fixes = r["combinedFix"].as_array().unwrap();
    assert_eq!(fixes.len(), 3);
    let sp = r["schemaPath"].as_str().unwrap();
    let apply = |delta: u64| {
        let mut c = crd.clone();
        for f in fixes {
            let node = c.pointer_mut(f["pointer"].as_str().unwrap()).unwrap();
            node[f["keyword"].as_str().unwrap()] =
                Value::from(f["value"].as_u64().unwrap() + delta);
        }
        let p = tmp(
            &format!("combined{}.json", delta),
            &serde_json::to_string(&c).unwrap(),
        );
        rule_cost(&json(&["cost", "--crd", &p]).1, sp)
    };
    let c = apply(0);
    assert!(c <= LIMIT, "{}", c);
    assert_eq!(Some(c), fixes[0]["estimatedCost"].as_u64());
    assert!(apply(1) > LIMIT);
}

#[test]
fn names_rule_fix_is_max_items_3() {
    if !have(OVER_BUDGET) {
        return;
    }
    let (_, text) = run(&["cost", "--crd", OVER_BUDGET]);
    assert!(
        text.contains("fix: add maxItems: 3 to spec.names (rule cost would be 5,662,403)"),
        "{}",
        text
    );
    // The breakdown names the loop and the unbounded nodes driving it.
    assert!(
        text.contains("loop over self: up to 1,048,575 iterations"),
        "{}",
        text
    );
    assert!(
        text.contains("size of spec.names (self, list, no maxItems): up to 1,048,575"),
        "{}",
        text
    );
}

#[test]
fn engine_api_explains_a_version() {
    let crd = common::widgets_json(json!({
      "type":"object","properties":{"spec":{"type":"object","properties":{
        "tags":{"type":"array","items":{"type":"string"},
          "x-kubernetes-validations":[{"rule":"self.all(t, t.matches('^[a-z]+$'))"}]}}}}}))
    .to_string();
    let compiled = crdlab::crd::CompiledCrd::from_text(&crd, Default::default()).unwrap();
    let e = crdlab::analysis::explain::explain(&compiled, None).unwrap();
    assert_eq!(e.rules.len(), 1);
    let r = &e.rules[0];
    assert_eq!(r.field, "spec.tags");
    assert!(r.over_limit);
    assert!(!r.breakdown.is_empty());
    assert!(r
        .schema_nodes
        .iter()
        .any(|n| n.field == "spec.tags" && n.keyword == "maxItems" && n.bound.is_none()));
    assert!(r
        .schema_nodes
        .iter()
        .any(|n| n.field == "spec.tags[*]" && n.keyword == "maxLength"));
    assert!(!r.fixes.is_empty());
    assert!(crdlab::analysis::explain::explain(&compiled, Some("v9")).is_err());
}
