//! The `crdlab batch` answer with positions, as the npm package returns it (`src/wasm.rs`):
//! built here, outside the wasm-only code, so that native tests cover it.

use crate::text::positions::Source;
use crate::text::source_map::Range;
use crate::view::diagnostics::{crd_diagnostics, object_diagnostics, unknown_field_ranges, version_rules, Diagnostic, Rule};
use serde_json::Value;

/// A cost range `{min, max}`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct CostEstimate {
    pub min: u64,
    pub max: u64,
}

/// Expression mode's answer (`evaluate`, or a request with `mode: "eval"`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct EvalResult {
    /// The expression does not compile (parse or type-check error, cel-go's text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub compile_error: Option<String>,
    /// The expression checks but cannot become a program (e.g. a bad constant regex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub program_error: Option<String>,
    /// The release's cel-go crashes compiling it (the Go panic's text; cel-go v0.20.1's
    /// format validator on 1.31): no type, cost or value follows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub panic: Option<String>,
    /// The CEL type of the result (`int`, `list(string)`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub output_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub estimated_cost: Option<CostEstimate>,
    /// The result as plain JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional, type = "JsonValue"))]
    pub value: Option<Value>,
    /// The result with its CEL types (`{"int": 1}`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional, type = "JsonValue"))]
    pub typed_value: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub eval_error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub actual_cost: Option<u64>,
}

impl EvalResult {
    /// From expression mode's answer fields ([`crate::cel::eval::evaluate`]); a JSON `null`
    /// result stays a value.
    pub fn from_fields(f: &serde_json::Map<String, Value>) -> EvalResult {
        let s = |k: &str| f.get(k).and_then(Value::as_str).map(str::to_string);
        let u = |k: &str| f.get(k).and_then(Value::as_u64);
        EvalResult {
            compile_error: s("compileError"),
            program_error: s("programError"),
            panic: s("panic"),
            output_type: s("outputType"),
            estimated_cost: f.get("estimatedCost").and_then(|c| {
                Some(CostEstimate {
                    min: c.get("min")?.as_u64()?,
                    max: c.get("max")?.as_u64()?,
                })
            }),
            value: f.get("value").cloned(),
            typed_value: f.get("typedValue").cloned(),
            eval_error: s("evalError"),
            actual_cost: u("actualCost"),
        }
    }
}

/// The `crdlab batch` answer with positions: every error, warning and rule carries the
/// range of the text it came from. Failures (`error` in a batch answer) are not here: the
/// npm package throws them.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify), tsify(rename = "Answer"))]
pub struct AnnotatedAnswer {
    /// The request's `id` (absent for a compiled CRD's `validate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional, type = "JsonValue"))]
    pub id: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub crd_errors: Option<Vec<Diagnostic>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub crd_warnings: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub rules: Option<Vec<Rule>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub rule_cost_total: Option<u64>,
    /// The object after pruning and defaulting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional, type = "JsonValue"))]
    pub defaulted: Option<Value>,
    /// Paths of the fields pruned from the object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub unknown_fields: Option<Vec<String>>,
    /// Beside `unknownFields`, one each: where the pruned field stands in the object's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional, type = "(Range | null)[]"))]
    pub unknown_field_ranges: Option<Vec<Option<Range>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub errors: Option<Vec<Diagnostic>>,
    /// Ratcheted errors (updates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub warnings: Option<Vec<Diagnostic>>,
    /// CEL's runtime budget left (absent when no rule ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(optional))]
    pub remaining_budget: Option<i64>,
    /// Expression mode's fields.
    #[serde(flatten)]
    pub eval: EvalResult,
}

/// A batch answer with positions: `crd` is the CRD's text (when given as text) and
/// `version` the version validated against; `obj` is the object's text.
pub fn annotate(
    answer: crate::wire::batch::Answer,
    crd: Option<&Source>,
    version: Option<&crate::crd::CompiledVersion>,
    obj: Option<&Source>,
) -> AnnotatedAnswer {
    let unknown_field_ranges = match (&answer.unknown_fields, obj) {
        (Some(u), Some(s)) => Some(unknown_field_ranges(u, s)),
        _ => None,
    };
    let rules = match (answer.rules, version) {
        (Some(_), Some(v)) => Some(version_rules(v, crd)),
        (Some(rs), None) => Some(
            rs.into_iter()
                .map(|r| Rule {
                    version: String::new(),
                    schema_path: r.schema_path,
                    rule: r.rule,
                    uses_old_self: r.uses_old_self,
                    max_cost: r.max_cost,
                    max_cardinality: r.max_cardinality,
                    estimated_cost: r.estimated_cost,
                    range: None,
                })
                .collect(),
        ),
        (None, _) => None,
    };
    AnnotatedAnswer {
        id: Some(answer.id),
        crd_errors: answer.crd_errors.map(|e| crd_diagnostics(&e, crd)),
        crd_warnings: answer.crd_warnings,
        rules,
        rule_cost_total: answer.rule_cost_total,
        defaulted: answer.defaulted,
        unknown_fields: answer.unknown_fields,
        unknown_field_ranges,
        errors: answer.errors.map(|e| object_diagnostics(&e, obj)),
        warnings: answer.warnings.map(|e| object_diagnostics(&e, obj)),
        remaining_budget: answer.remaining_budget,
        eval: EvalResult::from_fields(&answer.eval),
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::positions::Source;

    const CRD: &str = crate::testing::WIDGETS_BROKEN_RULE;

    #[test]
    fn answers_carry_ranges() {
        let crd_text = CRD.replace("self.x >", "self.x > 1").replace(
            "names: {kind: Widget, plural: widgets}",
            "names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}",
        );
        let crd_text = crd_text.replace("            type: object\n            x-kubernetes", "            type: object\n            properties:\n              x: {type: integer, maximum: 5}\n            x-kubernetes");
        let obj_text = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  x: 7\n  extra: 1\n";
        let req = crate::Request {
            crd: Some(Value::String(crd_text.clone())),
            object: Some(Value::String(obj_text.into())),
            ..Default::default()
        };
        let mut engine = crate::Engine::new();
        let answer = engine.handle(&req);
        assert_eq!(answer.error, None);
        let crd = Source::read_crd(&crd_text).unwrap();
        let compiled = engine
            .compiled(&req, crate::KubeVersion::default())
            .unwrap();
        let obj = Source::read(obj_text).unwrap();
        let a = annotate(answer, Some(&crd), compiled.version(None), Some(&obj));
        assert_eq!(a.crd_errors.as_deref(), Some(&[][..]));
        let errs = a.errors.unwrap();
        assert_eq!(errs.len(), 1, "{:?}", errs);
        assert_eq!(errs[0].field, "spec.x");
        let r = errs[0].range.unwrap();
        assert_eq!(
            (r.start_line, r.start_column, r.end_line, r.end_column),
            (5, 6, 5, 7)
        );
        let rules = a.rules.unwrap();
        let r = rules[0].range.unwrap();
        assert_eq!((r.start_line, r.start_column, r.end_column), (22, 21, 31));
        assert_eq!(a.unknown_fields.unwrap(), vec!["spec.extra"]);
        let r = a.unknown_field_ranges.unwrap()[0].unwrap();
        assert_eq!((r.start_line, r.start_column, r.end_column), (6, 3, 8));
    }
}
