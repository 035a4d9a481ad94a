//! A CRD's compiled rules run on objects (apiextensions
//! `pkg/apiserver/schema/cel/validation.go`: `Validator.Validate`): the per-object cost
//! budget, `self`/`oldSelf` bound per node (transition rules see the old value the
//! [`crate::schema::correlation`] walker pairs with the node), validation ratcheting of
//! rule errors (`ratchetingOptions`), and the apiserver's error text.

use crate::cel::value::{ErrorKind, EvalResult, Val};
use crate::crd::model::{JsonSchemaProps, SchemaOrBool, ValidationRule};
use crate::field::{BadValue, ErrorList, ErrorType, FieldError, Path};
use crate::schema::cel::compile::{CompiledRule, RuleSet, RuleTree};
use crate::schema::correlation::{old_list_item, old_map_value, Correlated, MapListIndex};
use serde_json::Value;

/// Runtime cost budget per object (AS `pkg/apis/cel/config.go`).
pub const RUNTIME_CEL_COST_BUDGET: i64 = 10_000_000;

/// The outcome of running the rules of one object.
pub struct CelOutcome {
    pub errors: ErrorList,
    pub warnings: ErrorList,
    pub remaining_budget: i64,
}

/// Where ratcheting stands at a node (apiserver `ratchetingOptions`): the correlated
/// (new, old) pair of this node, if it correlates, and the nearest ancestor that does.
#[derive(Clone, Copy, Default)]
struct Correlation<'v> {
    current: Option<Correlated<'v>>,
    parent: Option<Correlated<'v>>,
}

impl<'v> Correlation<'v> {
    /// `shouldRatchetError`: the node, or else its nearest correlated ancestor, is
    /// `CachedDeepEqual` to its old value.
    fn should_ratchet(&self) -> bool {
        match (self.current, self.parent) {
            (Some(c), _) => c.deep_equal(),
            (None, Some(p)) => p.deep_equal(),
            _ => false,
        }
    }
    /// `ratchetingOptions.key`. apiVersion and kind at the root never ratchet: both
    /// objects are converted to the same version, so a change cannot be seen.
    fn key(&self, field: &str) -> Correlation<'v> {
        let Some(c) = self.current else { return *self };
        if self.parent.is_none() && (field == "apiVersion" || field == "kind") {
            return Correlation::default();
        }
        Correlation { current: c.key(field), parent: Some(c) }
    }
    /// `ratchetingOptions.index`.
    fn index(&self, i: usize, cache: &mut Option<MapListIndex<'v>>) -> Correlation<'v> {
        let Some(c) = self.current else { return *self };
        Correlation { current: c.index(i, cache), parent: Some(c) }
    }
}

struct Run<'a> {
    errors: ErrorList,
    warnings: ErrorList,
    budget: i64,
    print_values: bool,
    _p: std::marker::PhantomData<&'a ()>,
}

/// Runs every rule over `obj` (with `old` on updates), as apiextensions' CEL validator.
pub fn validate(rules: &RuleSet, obj: &Value, old: Option<&Value>, ratcheting: bool) -> CelOutcome {
    validate_at(rules, &Path::root(), obj, old, ratcheting)
}

/// [`validate`] with the errors' paths below `path` (a default value's, for instance).
pub fn validate_at(rules: &RuleSet, path: &Path, obj: &Value, old: Option<&Value>, ratcheting: bool) -> CelOutcome {
    let mut run = Run {
        errors: Vec::new(),
        warnings: Vec::new(),
        budget: RUNTIME_CEL_COST_BUDGET,
        print_values: true,
        _p: Default::default(),
    };
    let corr = match old {
        Some(o) if ratcheting => Correlation {
            current: Some(Correlated::new(obj, o, &rules.schema)),
            parent: None,
        },
        _ => Correlation::default(),
    };
    run.print_values = rules.print_values;
    run.node(&rules.tree, &rules.schema, path, obj, old, corr);
    CelOutcome {
        errors: run.errors,
        warnings: run.warnings,
        remaining_budget: run.budget,
    }
}

impl<'a> Run<'a> {
    fn node<'v>(
        &mut self,
        t: &RuleTree,
        s: &JsonSchemaProps,
        path: &Path,
        obj: &'v Value,
        old: Option<&'v Value>,
        corr: Correlation<'v>,
    ) {
        if obj.is_null() || self.budget < 0 {
            return;
        }
        let old = old.filter(|o| !o.is_null());
        self.expressions(t, s, path, obj, old, corr);
        if self.budget < 0 {
            return;
        }
        match obj {
            Value::Array(items) => {
                let Some(it) = &t.items else { return };
                let Some(is) = s.items_schema() else { return };
                let old_items: Option<&Vec<Value>> = old.and_then(Value::as_array);
                // `oldSelf` of each item and the ratcheting correlation pair items alike
                // (by list-map keys); each keeps its own index of its old list.
                let mut old_index = None;
                let mut corr_index = None;
                for (i, v) in items.iter().enumerate() {
                    let ov = old_items.and_then(|oi| old_list_item(s, oi, v, &mut old_index));
                    let c = corr.index(i, &mut corr_index);
                    self.node(it, is, &path.index(i), v, ov, c);
                    if self.budget < 0 {
                        return;
                    }
                }
            }
            Value::Object(m) => {
                // `MapIsCorrelatable`: atomic maps correlate too (only an unknown map type
                // does not), so rules below them see `oldSelf`.
                if let (Some(at), Some(SchemaOrBool::Schema(aps))) =
                    (&t.additional, &s.additional_properties)
                {
                    for (k, v) in m {
                        let ov = old_map_value(s, old, k);
                        let c = corr.key(k);
                        self.node(at, aps, &path.key(k), v, ov, c);
                        if self.budget < 0 {
                            return;
                        }
                    }
                }
                for (k, v) in m {
                    let (Some(pt), Some(ps)) = (t.properties.get(k), s.properties.get(k)) else {
                        continue;
                    };
                    let ov = old_map_value(s, old, k);
                    let c = corr.key(k);
                    self.node(pt, ps, &path.child(k), v, ov, c);
                    if self.budget < 0 {
                        return;
                    }
                }
            }
            _ => {}
        }
    }

    fn expressions(
        &mut self,
        t: &RuleTree,
        s: &JsonSchemaProps,
        path: &Path,
        obj: &Value,
        old: Option<&Value>,
        corr: Correlation<'_>,
    ) {
        if t.rules.is_empty() {
            return;
        }
        let type_name = BadValue::Str(s.type_str().to_string());
        if self.budget <= 0 {
            self.errors.push(FieldError::invalid(
                path.clone(),
                type_name,
                "validation failed due to running out of cost budget, no further validation rules will be run",
            ));
            self.budget = -1;
            return;
        }
        // `self`/`oldSelf` are `UnstructuredToVal`'s results: an error value when the data
        // does not fit the schema, which each rule that reads it reports.
        let self_val = Val::from_json(obj, s);
        let old_val: Option<EvalResult> = old.map(|o| Val::from_json(o, s));
        for cr in &t.rules {
            let rule = &cr.rule;
            if let Some(e) = &cr.error {
                self.errors.push(FieldError::invalid(
                    path.clone(),
                    type_name.clone(),
                    format!("rule compile error: {}", e),
                ));
                continue;
            }
            let Some(program) = &cr.program else { continue };
            let optional_old = rule.optional_old_self == Some(true);
            if cr.uses_old_self && old_val.is_none() && !optional_old {
                continue;
            }
            let old_binding: EvalResult = match (&old_val, optional_old) {
                (Some(Err(e)), _) => Err(e.clone()),
                (Some(Ok(v)), true) => Ok(Val::optional(Some(v.clone()))),
                (None, true) => Ok(Val::optional(None)),
                (Some(Ok(v)), false) => Ok(v.clone()),
                (None, false) => Ok(Val::Null),
            };
            let vars: Vec<(&str, EvalResult)> = vec![("self", self_val.clone()), ("oldSelf", old_binding)];
            let (result, cost) = program.eval_results(&vars, Some(crate::cel::config::PER_CALL_LIMIT));
            if cost as i64 > self.budget || cost > i64::MAX as u64 {
                self.errors.push(FieldError::invalid(
                    path.clone(),
                    type_name,
                    "validation failed due to running out of cost budget, no further validation rules will be run",
                ));
                self.budget = -1;
                return;
            }
            self.budget -= cost as i64;
            if std::env::var_os("CRDLAB_TRACE_COST").is_some() {
                eprintln!("cost {:>6} {} :: {}", cost, path, rule.rule);
            }
            let failed = match result {
                Err(e) => {
                    match e.kind {
                        ErrorKind::NoSuchOverload => self.errors.push(FieldError::invalid(
                            path.clone(),
                            type_name.clone(),
                            format!("'{}': call arguments did not match a supported operator, function or macro signature for rule: {}", e.message, rule_error_string(rule)),
                        )),
                        ErrorKind::CostLimit => {
                            self.errors.push(FieldError::invalid(
                                path.clone(),
                                type_name,
                                format!("'{}': no further validation rules will be run due to call cost exceeds limit for rule: {}", e.message, rule_error_string(rule)),
                            ));
                            self.budget = -1;
                            return;
                        }
                        ErrorKind::Other => self.errors.push(FieldError::invalid(
                            path.clone(),
                            type_name.clone(),
                            format!("{} evaluating rule: {}", e.message, rule_error_string(rule)),
                        )),
                    }
                    continue;
                }
                Ok(Val::Bool(true)) => false,
                Ok(_) => true,
            };
            if !failed {
                continue;
            }
            let fpath = match &cr.field_path {
                Some(fp) if !fp.is_empty() => path.child(fp),
                _ => path.clone(),
            };
            let mut detail: Option<String> = None;
            if let Some(mp) = &cr.message_program {
                let vars: Vec<(&str, EvalResult)> = vec![
                    ("self", self_val.clone()),
                    ("oldSelf", old_val.clone().unwrap_or(Ok(Val::Null))),
                ];
                let (r, mcost) = mp.eval_results(&vars, Some(crate::cel::config::PER_CALL_LIMIT));
                if mcost as i64 > self.budget {
                    self.push(cr, corr, FieldError::invalid(
                        fpath,
                        type_name,
                        "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run",
                    ));
                    self.budget = -1;
                    return;
                }
                match r {
                    Err(e) if e.kind == ErrorKind::CostLimit => {
                        self.push(cr, corr, FieldError::invalid(
                            fpath,
                            type_name,
                            format!(
                                "no further validation rules will be run due to call cost exceeds limit for messageExpression: {}",
                                crate::go::strconv::quote(&rule.message_expression)
                            ),
                        ));
                        self.budget = -1;
                        return;
                    }
                    Err(_) => self.budget -= mcost as i64,
                    Ok(v) => {
                        self.budget -= mcost as i64;
                        if let Some(s) = v.as_str() {
                            let t = s.trim();
                            if !t.is_empty() && t.len() <= 5120 && !t.contains('\n') {
                                detail = Some(t.to_string());
                            }
                        }
                    }
                }
            }
            let detail = detail.unwrap_or_else(|| {
                if rule.message.is_empty() {
                    format!("failed rule: {}", rule_error_string(rule))
                } else {
                    rule.message.trim().to_string()
                }
            });
            let value = match obj {
                _ if !self.print_values => type_name.clone(),
                Value::Object(_) | Value::Array(_) => BadValue::Omit,
                other => BadValue::from_json(other),
            };
            let err = match rule.reason.as_deref() {
                Some("FieldValueForbidden") => FieldError::forbidden(fpath, detail),
                Some("FieldValueRequired") => FieldError::required(fpath, detail),
                Some("FieldValueDuplicate") => {
                    FieldError::new(ErrorType::Duplicate, fpath, value, "")
                }
                _ => FieldError::invalid(fpath, value, detail),
            };
            self.push(cr, corr, err);
        }
    }

    fn push(&mut self, cr: &CompiledRule, corr: Correlation<'_>, e: FieldError) {
        if !cr.uses_old_self && corr.should_ratchet() {
            self.warnings.push(e);
        } else {
            self.errors.push(e);
        }
    }
}

/// `ruleErrorString`: the trimmed message, else the trimmed rule.
fn rule_error_string(rule: &ValidationRule) -> String {
    if !rule.message.is_empty() {
        rule.message.trim().to_string()
    } else {
        rule.rule.trim().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::cel::compile::compile_subtree_rules;
    use serde_json::json;

    fn messages(schema: Value, obj: Value) -> (Vec<String>, i64) {
        let s: JsonSchemaProps = serde_json::from_value(schema).unwrap();
        let rules = compile_subtree_rules(&s, false, crate::version::KubeVersion::default());
        let out = validate_at(&rules, &Path::new("spec"), &obj, None, false);
        (out.errors.iter().map(|e| e.message()).collect(), out.remaining_budget)
    }

    #[test]
    fn data_that_does_not_fit_its_schema_fails_the_rules_that_read_it() {
        // `self` is `UnstructuredToVal`'s error value: each rule reading it reports it.
        let schema = json!({"type": "object", "properties": {"m": {"type": "object",
            "additionalProperties": {"type": "string"},
            "x-kubernetes-validations": [{"rule": "self.all(k, k != 'x')", "message": "no x"}, {"rule": "true"}]}},
            "x-kubernetes-validations": [{"rule": "has(self.m)", "message": "m required"}]});
        let (mut m, budget) = messages(schema, json!({"m": true}));
        m.sort();
        assert_eq!(
            m,
            vec![
                "spec.m: Invalid value: \"object\": invalid data, expected a map for the provided schema with type=object evaluating rule: no x",
                "spec: Invalid value: \"object\": invalid data, expected a map for the provided schema with type=object evaluating rule: m required",
            ]
        );
        // `self` costs 1 in each rule that reads it; `true` costs nothing.
        assert_eq!(budget, RUNTIME_CEL_COST_BUDGET - 2);
        // A null list element is an error value the step sees.
        let schema = json!({"type": "object", "properties": {"l": {"type": "array", "items": {"type": "string"},
            "x-kubernetes-validations": [{"rule": "self.all(x, x != 'a')"}]}}});
        let (m, _) = messages(schema, json!({"l": ["b", null]}));
        assert_eq!(
            m,
            vec!["spec.l: Invalid value: \"array\": invalid data, got null for schema with nullable=false evaluating rule: self.all(x, x != 'a')"]
        );
    }

    /// (errors, warnings) of `obj` updating `old` at `spec`.
    fn update(schema: Value, obj: Value, old: Value, ratcheting: bool) -> (Vec<String>, Vec<String>) {
        let s: JsonSchemaProps = serde_json::from_value(schema).unwrap();
        let rules = compile_subtree_rules(&s, false, crate::version::KubeVersion::default());
        let out = validate_at(&rules, &Path::new("spec"), &obj, Some(&old), ratcheting);
        let text = |l: &ErrorList| l.iter().map(|e| e.message()).collect();
        (text(&out.errors), text(&out.warnings))
    }

    fn map_list() -> Value {
        json!({"type": "object", "properties": {"l": {"type": "array",
            "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
            "items": {"type": "object", "properties": {"k": {"type": "string"}, "v": {"type": "integer"}},
                "x-kubernetes-validations": [{"rule": "self.v >= oldSelf.v", "message": "v may not decrease"}]}}}})
    }

    #[test]
    fn transition_rules_see_the_old_item_with_the_same_list_map_keys() {
        // Reordered: each item's oldSelf is the old item with its key, not its index.
        let old = json!({"l": [{"k": "a", "v": 2}, {"k": "b", "v": 1}]});
        let (errs, _) = update(map_list(), json!({"l": [{"k": "b", "v": 1}, {"k": "a", "v": 1}]}), old.clone(), false);
        assert_eq!(errs, vec!["spec.l[1]: Invalid value: v may not decrease"]);
        // A new key has no old item: the transition rule does not run.
        let (errs, _) = update(map_list(), json!({"l": [{"k": "c", "v": 0}]}), old, false);
        assert!(errs.is_empty());
        // An item without its key does not correlate (`MakeMapList`'s key strategy), even
        // with an old item also without it.
        let (errs, _) = update(map_list(), json!({"l": [{"v": 0}]}), json!({"l": [{"v": 5}]}), false);
        assert!(errs.is_empty());
    }

    #[test]
    fn transition_rules_below_a_map_that_does_not_correlate_see_no_old_value() {
        // `MapIsCorrelatable`: an unknown map type pairs no old value with its keys.
        let schema = |map_type: &str| {
            json!({"type": "object", "properties": {"m": {"type": "object", "x-kubernetes-map-type": map_type,
                "properties": {"v": {"type": "integer",
                    "x-kubernetes-validations": [{"rule": "self >= oldSelf", "message": "v may not decrease"}]}}}}})
        };
        let (new, old) = (json!({"m": {"v": 1}}), json!({"m": {"v": 2}}));
        assert_eq!(update(schema("atomic"), new.clone(), old.clone(), false).0, vec!["spec.m.v: Invalid value: 1: v may not decrease"]);
        assert!(update(schema("other"), new, old, false).0.is_empty());
    }

    #[test]
    fn ratcheting_keeps_errors_of_unchanged_map_list_items_as_warnings() {
        // The item `b` (moved, unchanged) ratchets its rule's error; `a` (changed) does not.
        let schema = json!({"type": "object", "properties": {"l": {"type": "array",
            "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
            "items": {"type": "object", "properties": {"k": {"type": "string"}, "v": {"type": "integer"}},
                "x-kubernetes-validations": [{"rule": "self.v > 1", "message": "v must exceed 1"}]}}}});
        let old = json!({"l": [{"k": "a", "v": 1}, {"k": "b", "v": 0}]});
        let new = json!({"l": [{"k": "b", "v": 0}, {"k": "a", "v": 0}]});
        let (errs, warnings) = update(schema, new, old, true);
        assert_eq!(errs, vec!["spec.l[1]: Invalid value: v must exceed 1"]);
        assert_eq!(warnings, vec!["spec.l[0]: Invalid value: v must exceed 1"]);
    }
}
