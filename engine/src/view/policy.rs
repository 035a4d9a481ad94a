//! What a front end may change in a CRD's rules, and the engine's limits and releases it
//! shows, read from the engine's own tables so the playground never re-declares them.
//!
//! - the rule fields the rules pane edits ([`RuleField`]) and how an edit becomes CRD text
//!   ([`apply_rule_edit`]: an emptied optional field is removed, a new rule starts from
//!   [`new_rule`]);
//! - the `reason` values apiextensions accepts ([`RULE_REASONS`], the apiextensions
//!   `FieldValueErrorReason` constants, named as apimachinery `field.ErrorType` names them);
//! - the runtime CEL budget per object ([`RUNTIME_COST_BUDGET`], apiserver
//!   `pkg/apis/cel/config.go` RuntimeCELCostBudget) and the request size cost estimates
//!   assume for unbounded lists ([`MAX_REQUEST_BYTES`]);
//! - the releases a front end offers ([`releases_newest_first`], [`default_release`]) and
//!   where validation ratcheting starts ([`RATCHETING_GATE_SINCE`], [`RATCHETING_DEFAULT_SINCE`]).

use crate::cel::cost_model::MAX_REQUEST_SIZE_BYTES;
use crate::schema::cel::validation::RUNTIME_CEL_COST_BUDGET;
use crate::text::edit::{self, Doc};
use crate::field::ErrorType;
use crate::version::{Feature, KubeVersion};
use serde_json::{json, Value};

/// The runtime cost budget one object's rules share (what the results pane's meter fills).
pub const RUNTIME_COST_BUDGET: i64 = RUNTIME_CEL_COST_BUDGET;

/// The largest request the apiserver accepts: cost estimates assume an unbounded list or
/// map holds as many entries as fit in it.
pub const MAX_REQUEST_BYTES: i64 = MAX_REQUEST_SIZE_BYTES;

/// The first release with the `CRDValidationRatcheting` gate (off by default).
pub const RATCHETING_GATE_SINCE: KubeVersion = KubeVersion { minor: Feature::RatchetingGate.since() };
/// The first release that ratchets by default.
pub const RATCHETING_DEFAULT_SINCE: KubeVersion = KubeVersion { minor: Feature::RatchetingByDefault.since() };

/// A panic message can quote input: the text kept of one (the npm module's last error,
/// the playground's crash banner) is cut at 4 KiB.
pub const MAX_PANIC_TEXT: usize = 4096;

/// A panic message as kept and shown: cut at [`MAX_PANIC_TEXT`] bytes (on a character
/// boundary), with `…` where it was cut.
pub fn panic_text(message: &str) -> String {
    if message.len() <= MAX_PANIC_TEXT {
        return message.to_string();
    }
    let mut end = MAX_PANIC_TEXT;
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &message[..end])
}

/// The releases a front end offers, newest first (the engine's release table).
pub fn releases_newest_first() -> Vec<KubeVersion> {
    KubeVersion::supported().rev().collect()
}

/// The release [`crate::view::Workspace::analyze`] targets when the settings name none.
pub fn default_release() -> KubeVersion {
    KubeVersion::default()
}

/// The `reason` values a rule may name (apiextensions validation rejects any other), in
/// the order a picker lists them: [`DEFAULT_RULE_REASON`] first.
pub use crate::crd::model::RULE_REASONS;

/// The reason of a failed rule that names none (apiextensions cel validation's default).
pub const DEFAULT_RULE_REASON: ErrorType = ErrorType::Invalid;

/// The key of a schema node's rule list.
pub const RULES_KEY: &str = "x-kubernetes-validations";

/// A field of an `x-kubernetes-validations` entry the rules pane edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum RuleField {
    Rule,
    Message,
    MessageExpression,
    Reason,
    FieldPath,
    OptionalOldSelf,
}

impl RuleField {
    /// Every editable field, in the order of the apiextensions `ValidationRule` type.
    pub const ALL: [RuleField; 6] = [
        RuleField::Rule,
        RuleField::Message,
        RuleField::MessageExpression,
        RuleField::Reason,
        RuleField::FieldPath,
        RuleField::OptionalOldSelf,
    ];

    /// The field's JSON key.
    pub fn key(self) -> &'static str {
        match self {
            RuleField::Rule => "rule",
            RuleField::Message => "message",
            RuleField::MessageExpression => "messageExpression",
            RuleField::Reason => "reason",
            RuleField::FieldPath => "fieldPath",
            RuleField::OptionalOldSelf => "optionalOldSelf",
        }
    }

    /// `rule` is required: emptied, it stays (as `""`) so the create check reports it
    /// (`rule is not specified`); every other field emptied is removed, as a person
    /// deleting it would.
    pub fn required(self) -> bool {
        self == RuleField::Rule
    }
}

/// A change the rules pane makes to the CRD text.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum RuleEdit {
    /// One field of the rule entry at `pointer` (a JSON pointer into the CRD document).
    Set { pointer: String, field: RuleField, value: Value },
    /// A new rule ([`new_rule`]) at the end of the schema node's rule list.
    Add { node_pointer: String },
    /// The rule entry at `pointer` removed.
    Delete { pointer: String },
    /// Schema bounds (`(node pointer, keyword, value)`, e.g. `maxItems: 100`) set together:
    /// a cost fix.
    Bounds(Vec<(String, String, u64)>),
}

/// The entry a new rule starts as: a rule that compiles and always holds.
pub fn new_rule() -> Value {
    json!({"rule": "self == self", "message": "describe what must hold"})
}

/// Whether a value empties an optional field (`""`, `false`, `null`).
fn is_empty(value: &Value) -> bool {
    value.as_str() == Some("") || value == &Value::Bool(false) || value.is_null()
}

/// The CRD text after `edit`, formatting kept. `crd_value` is the CRD document the
/// pointers were taken from (an emptied field that is not there leaves the text as it is).
pub fn apply_rule_edit(crd: &str, crd_value: Option<&Value>, edit: &RuleEdit) -> Result<String, edit::EditError> {
    match edit {
        RuleEdit::Set { pointer, field, value } => {
            let target = format!("{}/{}", pointer, field.key());
            if is_empty(value) && !field.required() {
                if crd_value.and_then(|v| v.pointer(&target)).is_some() {
                    edit::remove(crd, Doc::Crd, &target)
                } else {
                    Ok(crd.to_string())
                }
            } else {
                edit::set(crd, Doc::Crd, &target, value)
            }
        }
        RuleEdit::Add { node_pointer } => {
            edit::append(crd, Doc::Crd, &format!("{}/{}", node_pointer, RULES_KEY), &new_rule())
        }
        RuleEdit::Delete { pointer } => edit::remove(crd, Doc::Crd, pointer),
        RuleEdit::Bounds(list) => list.iter().try_fold(crd.to_string(), |text, (pointer, keyword, value)| {
            edit::set(&text, Doc::Crd, &format!("{}/{}", pointer, keyword), &json!(value))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::{Settings, Workspace};

    #[test]
    fn panic_text_is_cut_on_a_character() {
        assert_eq!(panic_text("short"), "short");
        let long = format!("{}é{}", "x".repeat(MAX_PANIC_TEXT - 1), "y".repeat(10));
        let cut = panic_text(&long);
        assert_eq!(cut, format!("{}…", "x".repeat(MAX_PANIC_TEXT - 1)));
    }

    const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.a > 0
              message: a must be positive
            properties:
              a: {type: integer}
              items: {type: array, items: {type: string}}
";
    const RULE: &str = "/spec/versions/0/schema/openAPIV3Schema/properties/spec/x-kubernetes-validations/0";
    const SPEC: &str = "/spec/versions/0/schema/openAPIV3Schema/properties/spec";

    fn value(text: &str) -> Value {
        crate::text::positions::Source::read_crd(text).unwrap().value
    }

    fn apply(text: &str, e: RuleEdit) -> String {
        apply_rule_edit(text, Some(&value(text)), &e).unwrap()
    }

    fn set(field: RuleField, v: Value) -> RuleEdit {
        RuleEdit::Set { pointer: RULE.into(), field, value: v }
    }

    /// The create-check messages of a CRD text, as the playground shows them.
    fn crd_errors(text: &str) -> Vec<String> {
        let a = Workspace::new().analyze(text, "", "", &Settings::default());
        assert!(a.crd.load_error.is_none(), "{:?}", a.crd.load_error);
        a.crd.errors.iter().map(|d| d.message.clone()).collect()
    }

    #[test]
    fn every_listed_reason_is_accepted_and_others_are_not() {
        assert_eq!(RULE_REASONS[0], DEFAULT_RULE_REASON);
        for r in RULE_REASONS {
            let text = apply(CRD, set(RuleField::Reason, json!(r.reason())));
            assert!(text.contains(&format!("reason: {}", r.reason())), "{}", text);
            assert_eq!(crd_errors(&text), Vec::<String>::new(), "{}", r.reason());
        }
        let text = apply(CRD, set(RuleField::Reason, json!(ErrorType::TooLong.reason())));
        assert_eq!(
            crd_errors(&text),
            vec!["spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].reason: Unsupported value: \"FieldValueTooLong\": supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\"".to_string()]
        );
    }

    #[test]
    fn an_emptied_optional_field_is_removed_and_an_emptied_rule_is_kept() {
        let text = apply(CRD, set(RuleField::Message, json!("")));
        assert!(!text.contains("message:"), "{}", text);
        // Removing what is not there leaves the text alone.
        assert_eq!(apply(CRD, set(RuleField::FieldPath, json!(""))), CRD);
        assert_eq!(apply(CRD, set(RuleField::OptionalOldSelf, json!(false))), CRD);
        let text = apply(CRD, set(RuleField::Rule, json!("")));
        assert!(text.contains("rule: ''"), "{}", text);
        assert_eq!(
            crd_errors(&text),
            vec!["spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Required value: rule is not specified".to_string()]
        );
    }

    #[test]
    fn add_delete_and_bounds_edit_the_text() {
        let text = apply(CRD, RuleEdit::Add { node_pointer: SPEC.into() });
        let v = value(&text);
        assert_eq!(v.pointer(&format!("{}/{}/1", SPEC, RULES_KEY)), Some(&new_rule()));
        assert_eq!(crd_errors(&text), Vec::<String>::new());
        let text = apply(&text, RuleEdit::Delete { pointer: RULE.into() });
        assert_eq!(value(&text).pointer(&format!("{}/{}", SPEC, RULES_KEY)), Some(&json!([new_rule()])));
        let items = format!("{}/properties/items", SPEC);
        let text = apply(CRD, RuleEdit::Bounds(vec![(items.clone(), "maxItems".into(), 100)]));
        assert_eq!(value(&text).pointer(&format!("{}/maxItems", items)), Some(&json!(100)));
    }

    #[test]
    fn releases_come_from_the_release_table() {
        let list = releases_newest_first();
        assert_eq!(list.first(), Some(&KubeVersion::LATEST));
        assert_eq!(list.last(), Some(&KubeVersion::MIN));
        assert_eq!(list.len(), crate::version::RELEASES.len());
        assert!(RATCHETING_GATE_SINCE.ratcheting_available());
        assert!(!KubeVersion { minor: RATCHETING_GATE_SINCE.minor - 1 }.ratcheting_available());
        assert!(RATCHETING_DEFAULT_SINCE.ratcheting_by_default());
        assert!(!KubeVersion { minor: RATCHETING_DEFAULT_SINCE.minor - 1 }.ratcheting_by_default());
        assert_eq!(RUNTIME_COST_BUDGET, 10_000_000);
        assert_eq!(MAX_REQUEST_BYTES, 3 << 20);
    }
}
