//! The version matrix — beyond the apiserver: for every `x-kubernetes-validations` rule of a
//! CRD, the lowest supported Kubernetes release (`KubeVersion::MIN` to `LATEST`, 1.25 to 1.37) on which creating the CRD accepts it,
//! and why the release just below does not.
//!
//! A rule is accepted on a release when
//! - every field it sets is known there (`messageExpression` 1.27, `reason`/`fieldPath` 1.28,
//!   `optionalOldSelf` 1.30: it exists in 1.29 behind the `CRDValidationRatcheting` gate, off
//!   by default, and is dropped when the gate is off);
//! - the rule and its messageExpression compile in the new-expressions environment of that
//!   release (compatibility version = release − 1, `environment.DefaultCompatibilityVersion`);
//! - their estimated costs stay within the per-expression limit (`StaticEstimatedCostLimit`).
//!
//! The lowest version is the lowest release from which every later release (up to `KubeVersion::LATEST`)
//! accepts the rule. The reason is derived from what fails on the release just below: an
//! unknown field, or the compile error there, named after the library that brings the
//! missing function, macro or syntax.

use crate::cel::env::EnvOptions;
use crate::schema::cel::compile::{compile_rules, CompiledRule, RuleSet};
use crate::crd::model::{
    CustomResourceDefinition, ValidationRule, FIELD_PATH_SINCE, MESSAGE_EXPRESSION_SINCE,
    OPTIONAL_OLD_SELF_SINCE, REASON_SINCE,
};
use crate::crd::CompiledCrd;
use crate::text::crd_document::LoadError;
use crate::version::KubeVersion;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// One rule's row of the matrix.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RuleVersionRow {
    /// The CRD version (`spec.versions[].name`) the rule belongs to.
    pub crd_version: String,
    /// `openAPIV3Schema.properties[spec].x-kubernetes-validations[0]`.
    pub schema_path: String,
    pub rule: String,
    /// `1.31`; `None` when no supported release (up to `KubeVersion::LATEST`) accepts the rule.
    pub lowest_version: Option<String>,
    /// Why the release below `lowest_version` does not accept it (empty when the rule works
    /// on every supported release).
    pub reason: String,
}

/// What a release says about one rule.
#[derive(Clone, Debug, PartialEq)]
enum Verdict {
    Ok,
    /// A field the rule sets is unknown to this release.
    Field(String),
    /// The rule or its messageExpression does not compile.
    Compile(String),
    /// The estimated cost is over the per-expression limit.
    Cost(String),
}

/// The CRD fields of a rule and the release that first knows each (enabled by default):
/// the releases come from the feature table (`crd::model`'s `*_SINCE`, `Feature::since`),
/// the same that decides which fields a compiled CRD drops (`ValidationRule::drop_fields_unknown_to`).
fn field_floors(r: &ValidationRule) -> Vec<(u32, String)> {
    let v = |minor: u32| KubeVersion { minor };
    let mut out = Vec::new();
    if r.optional_old_self.is_some() {
        out.push((
            OPTIONAL_OLD_SELF_SINCE,
            format!(
                "field optionalOldSelf arrives in {} ({} knows it only behind the CRDValidationRatcheting \
                 feature gate, off by default, and drops it otherwise)",
                v(OPTIONAL_OLD_SELF_SINCE),
                v(OPTIONAL_OLD_SELF_SINCE - 1)
            ),
        ));
    }
    if !r.message_expression.is_empty() {
        out.push((
            MESSAGE_EXPRESSION_SINCE,
            format!("field messageExpression arrives in {} (dropped before)", v(MESSAGE_EXPRESSION_SINCE)),
        ));
    }
    if r.reason.is_some() {
        out.push((REASON_SINCE, format!("field reason arrives in {} (dropped before)", v(REASON_SINCE))));
    }
    if !r.field_path.is_empty() {
        out.push((FIELD_PATH_SINCE, format!("field fieldPath arrives in {} (dropped before)", v(FIELD_PATH_SINCE))));
    }
    out
}

/// What the new-expressions environment gains at each compatibility version
/// (apiserver `pkg/cel/environment/base.go`).
const LIBRARY_CHANGES: &[(u32, &str)] = &[
    (27, "the global `matches(string, string)` (1.28's cel-go v0.16; v0.12 has only `string.matches`)"),
    (28, "optional types and syntax (`?.`, `[?]`, `{?k: v}`, `optional.of`), cross-type numeric comparisons, quantity"),
    (29, "literal validators, strings extension v2, sets"),
    (30, "ip, cidr"),
    (31, "format, reserved words as field names"),
    (32, "two-variable comprehensions (`all`/`exists`/`existsOne` with two variables, `transformList`, `transformMap`, `transformMapEntry`)"),
    (33, "semver"),
    (34, "lists extension v3"),
];

/// The verdict of one compiled rule on a release.
fn verdict(c: &CompiledRule, kube: u32) -> Verdict {
    let floors = field_floors(&c.rule);
    if let Some((_, why)) = floors
        .iter()
        .filter(|(m, _)| kube < *m)
        .max_by_key(|(m, _)| *m)
    {
        return Verdict::Field(why.clone());
    }
    if let Some(e) = &c.error {
        return Verdict::Compile(e.clone());
    }
    if let Some(e) = &c.message_error {
        return Verdict::Compile(e.clone());
    }
    let limit = crate::crd::validation::STATIC_ESTIMATED_COST_LIMIT;
    if let Some(cost) = c.cost.filter(|x| x.estimated_cost > limit) {
        return Verdict::Cost(crate::crd::validation::cost_error_message(
            "estimated rule cost",
            cost.estimated_cost,
            limit,
        ));
    }
    if let Some(mc) = c.message_cost.filter(|x| *x > limit) {
        return Verdict::Cost(crate::crd::validation::cost_error_message(
            "estimated messageExpression cost",
            mc,
            limit,
        ));
    }
    Verdict::Ok
}

/// The first line of a compile error without its source position and snippet:
/// `compilation failed: undeclared reference to 'ip' (in container '')`.
pub fn brief_error(e: &str) -> String {
    let first = e.lines().next().unwrap_or("");
    let more = e
        .lines()
        .filter(|l| l.starts_with("ERROR: ") || l.contains(": ERROR: "))
        .count();
    let mut out = match first.find("ERROR: <input>:") {
        Some(i) => {
            let rest = &first[i + "ERROR: <input>:".len()..];
            // `1:16: message`
            let msg = rest
                .splitn(3, ':')
                .nth(2)
                .map(str::trim_start)
                .unwrap_or(rest);
            format!("{}{}", &first[..i], msg)
        }
        None => first.to_string(),
    };
    if more > 1 {
        out.push_str(&format!(" (and {} more)", more - 1));
    }
    out
}

/// `undeclared reference to 'ip'` → `ip`, for every occurrence.
fn quoted_names<'e>(e: &'e str, marker: &str) -> Vec<&'e str> {
    let mut out = Vec::new();
    let mut rest = e;
    while let Some(i) = rest.find(marker) {
        rest = &rest[i + marker.len()..];
        if let Some(end) = rest.find('\'') {
            out.push(&rest[..end]);
            rest = &rest[end..];
        }
    }
    out
}

/// Where `name(` is called in `text` (a whole name: not preceded by an identifier
/// character), if anywhere.
fn call_position(text: &str, name: &str) -> Option<usize> {
    let pat = format!("{}(", name);
    let mut from = 0;
    while let Some(i) = text[from..].find(&pat) {
        let at = from + i;
        let prev = text[..at].chars().next_back();
        if !prev
            .map(|c| c.is_alphanumeric() || c == '_')
            .unwrap_or(false)
        {
            return Some(at);
        }
        from = at + pat.len();
    }
    None
}

/// The two-variable comprehension macros (cel-go `ext.TwoVarComprehensions`).
const TWO_VAR_MACROS: &[&str] = &[
    "all",
    "exists",
    "existsOne",
    "transformList",
    "transformMap",
    "transformMapEntry",
];

/// Why a rule that fails on `below` with a compile error compiles on `below + 1`.
fn compile_reason(rule: &ValidationRule, error: &str, below: u32) -> String {
    let lowest = below + 1;
    let compat = below; // the compatibility version `lowest` compiles new rules at
    let newer = EnvOptions::for_version(compat);
    let older = EnvOptions::for_version(compat.saturating_sub(1));
    let context = format!(
        "1.{} compiles new rules at compatibility version 1.{}",
        lowest, compat
    );
    let texts = [rule.rule.as_str(), rule.message_expression.as_str()];
    // Syntax: the expression does not even parse at the older version.
    if newer.optional_syntax && !older.optional_syntax {
        let parses = |o: &EnvOptions| {
            texts
                .iter()
                .filter(|t| !t.is_empty())
                .all(|t| crate::cel::parser::parse(o, t).is_ok())
        };
        if !parses(&older) && parses(&newer) {
            return format!(
                "optional syntax (`?.`, `[?]`, `{{?k: v}}`) arrives in 1.{} ({})",
                lowest, context
            );
        }
    }
    // Macros: a two-variable comprehension is an unknown call before its library.
    let macros_grew =
        crate::cel::environment::library_macros(&newer).len() > crate::cel::environment::library_macros(&older).len();
    if macros_grew {
        if let Some(m) = quoted_names(error, "undeclared reference to '")
            .into_iter()
            .find(|n| TWO_VAR_MACROS.contains(n))
        {
            return format!(
                "two-variable comprehension {}() arrives in 1.{} ({})",
                m, lowest, context
            );
        }
    }
    // Functions: the functions new at this compatibility version that the rule calls.
    let (new_env, old_env) = (crate::cel::environment::base_env(&newer), crate::cel::environment::base_env(&older));
    let mut called: Vec<(usize, &str)> = new_env
        .functions
        .keys()
        .filter(|n| old_env.function(n).is_none())
        .filter_map(|n| {
            texts
                .iter()
                .filter_map(|t| call_position(t, n))
                .min()
                .map(|p| (p, *n))
        })
        .collect();
    crate::go::sort::sort(&mut called);
    // `format.named(` also matches `named(`: keep the qualified name only.
    let names: Vec<&str> = called
        .iter()
        .map(|(_, n)| *n)
        .filter(|n| {
            !called
                .iter()
                .any(|(_, m)| m != n && m.ends_with(&format!(".{}", n)))
        })
        .collect();
    match names.len() {
        0 => {}
        1 => {
            return format!(
                "function {} arrives in 1.{} ({})",
                names[0], lowest, context
            )
        }
        _ => {
            return format!(
                "functions {} arrive in 1.{} ({})",
                names.join(", "),
                lowest,
                context
            )
        }
    }
    let overloads: Vec<&str> = quoted_names(error, "found no matching overload for '")
        .into_iter()
        .filter(|n| new_env.function(n).is_some())
        .collect();
    if let Some(n) = overloads.first() {
        return format!("an overload of {} arrives in 1.{} ({})", n, lowest, context);
    }
    match LIBRARY_CHANGES
        .iter()
        .find(|(c, _)| *c == compat)
        .map(|(_, what)| *what)
    {
        Some(what) => format!(
            "1.{} adds {} ({}); 1.{} says: {}",
            lowest,
            what,
            context,
            below,
            brief_error(error)
        ),
        None => format!("1.{} says: {}", below, brief_error(error)),
    }
}

fn describe(rule: &ValidationRule, v: &Verdict, below: u32) -> String {
    match v {
        Verdict::Ok => String::new(),
        Verdict::Field(why) => why.clone(),
        Verdict::Compile(e) => compile_reason(rule, e, below),
        Verdict::Cost(e) => format!("1.{} rejects the cost: {}", below, e),
    }
}

/// The rule sets of one CRD version's schema at every supported release.
fn rule_sets(schema: &crate::crd::model::JsonSchemaProps) -> Vec<(u32, RuleSet)> {
    (KubeVersion::MIN.minor..=KubeVersion::LATEST.minor)
        .map(|m| (m, compile_rules(schema, &EnvOptions::for_version(m - 1))))
        .collect()
}

/// The version matrix of a decoded CRD (every version, every rule, in schema order).
pub fn rule_versions_of(crd: &CustomResourceDefinition) -> Vec<RuleVersionRow> {
    rows_of(crd.spec.versions.iter().filter_map(|ver| {
        let schema = ver
            .schema
            .as_ref()
            .and_then(|s| s.open_api_v3_schema.as_deref())?;
        Some((ver.name.as_str(), schema))
    }))
}

/// The version matrix of (version name, schema as written) pairs.
fn rows_of<'s>(
    versions: impl Iterator<Item = (&'s str, &'s crate::crd::model::JsonSchemaProps)>,
) -> Vec<RuleVersionRow> {
    let mut rows = Vec::new();
    for (name, schema) in versions {
        let sets = rule_sets(schema);
        // schema path → (rule, verdict per release, in release order)
        let mut by_path: BTreeMap<String, (ValidationRule, Vec<(u32, Verdict)>)> = BTreeMap::new();
        let mut order = Vec::new();
        for (m, set) in &sets {
            set.tree.walk(&mut |c| {
                let e = by_path.entry(c.schema_path.clone()).or_insert_with(|| {
                    order.push(c.schema_path.clone());
                    (c.rule.clone(), Vec::new())
                });
                e.1.push((*m, verdict(c, *m)));
            });
        }
        for path in order {
            let (rule, verdicts) = &by_path[&path];
            // The lowest release from which every later one accepts the rule.
            let mut lowest = None;
            for (m, v) in verdicts.iter().rev() {
                if *v != Verdict::Ok {
                    break;
                }
                lowest = Some(*m);
            }
            let (lowest_version, reason) = match lowest {
                Some(m) if m == KubeVersion::MIN.minor => (Some(format!("1.{}", m)), String::new()),
                Some(m) => {
                    let below = verdicts
                        .iter()
                        .find(|(x, _)| *x == m - 1)
                        .map(|(_, v)| v)
                        .unwrap_or(&Verdict::Ok);
                    (Some(format!("1.{}", m)), describe(rule, below, m - 1))
                }
                None => {
                    let last = verdicts
                        .last()
                        .map(|(_, v)| v.clone())
                        .unwrap_or(Verdict::Ok);
                    let why = match last {
                        Verdict::Ok => String::new(),
                        Verdict::Field(w) => w,
                        Verdict::Compile(e) | Verdict::Cost(e) => {
                            format!(
                                "no supported release accepts it; 1.{} says: {}",
                                KubeVersion::LATEST.minor,
                                brief_error(&e)
                            )
                        }
                    };
                    (None, why)
                }
            };
            rows.push(RuleVersionRow {
                crd_version: name.to_string(),
                schema_path: path,
                rule: rule.rule.clone(),
                lowest_version,
                reason,
            });
        }
    }
    rows
}

/// The version matrix of a compiled CRD (the release it was compiled for does not matter).
pub fn rule_versions(crd: &CompiledCrd) -> Vec<RuleVersionRow> {
    rows_of(
        crd.versions
            .iter()
            .filter_map(|v| Some((v.name.as_str(), v.schema.as_deref()?))),
    )
}

/// The version matrix of a CRD given as a JSON value.
pub fn rule_versions_of_value(v: &Value) -> Result<Vec<RuleVersionRow>, LoadError> {
    Ok(rule_versions_of(&crate::crd::load::decode_crd(v)?))
}

/// The version matrix of a CRD given as YAML or JSON text.
///
/// # Example
///
/// ```
/// const CRD: &str = r#"
/// apiVersion: apiextensions.k8s.io/v1
/// kind: CustomResourceDefinition
/// metadata: {name: widgets.example.com}
/// spec:
///   group: example.com
///   scope: Namespaced
///   names: {kind: Widget, plural: widgets}
///   versions:
///   - name: v1
///     served: true
///     storage: true
///     schema:
///       openAPIV3Schema:
///         type: object
///         properties:
///           spec:
///             type: object
///             properties:
///               replicas: {type: integer, minimum: 0}
///             x-kubernetes-validations:
///             - rule: "self.replicas <= 10"
///               message: at most 10 replicas
/// "#;
/// let rows = crdlab::analysis::versions::rule_versions_of_text(CRD).unwrap();
/// assert_eq!(rows[0].rule, "self.replicas <= 10");
/// assert_eq!(rows[0].lowest_version.as_deref(), Some("1.25"));
/// ```
pub fn rule_versions_of_text(text: &str) -> Result<Vec<RuleVersionRow>, LoadError> {
    rule_versions_of_value(&crate::text::crd_document::parse_crd_text(text)?)
}

/// Whether a rule row is accepted on `kube`.
pub fn accepted_on(row: &RuleVersionRow, kube: KubeVersion) -> bool {
    match &row.lowest_version {
        Some(v) => KubeVersion::parse(v).map(|l| kube >= l).unwrap_or(false),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd(rules: &str) -> String {
        crate::testing::widgets_spec(&format!(
            "            properties:
              addr: {{type: string, maxLength: 64}}
              m: {{type: object, maxProperties: 8, additionalProperties: {{type: integer}}}}
            x-kubernetes-validations:
{}
",
            rules
        ))
    }

    #[test]
    fn plain_rule_works_everywhere() {
        let rows = rule_versions_of_text(&crd("            - rule: self.addr.size() > 0")).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].lowest_version.as_deref(), Some("1.25"));
        assert_eq!(rows[0].reason, "");
    }

    #[test]
    fn quantity_needs_1_29() {
        let rows =
            rule_versions_of_text(&crd("            - rule: isQuantity(self.addr)")).unwrap();
        assert_eq!(
            rows[0].lowest_version.as_deref(),
            Some("1.29"),
            "{:?}",
            rows
        );
        assert!(
            rows[0]
                .reason
                .contains("function isQuantity arrives in 1.29"),
            "{}",
            rows[0].reason
        );
    }

    #[test]
    fn never_compiling_rule_has_no_version() {
        let rows = rule_versions_of_text(&crd("            - rule: self.nope == 1")).unwrap();
        assert_eq!(rows[0].lowest_version, None);
        assert!(
            rows[0].reason.contains("no supported release"),
            "{}",
            rows[0].reason
        );
    }

    /// The matrix and the apiserver's create checks read the same tables: a rule the
    /// matrix accepts on a release compiles there without a create error, and a rule it
    /// does not accept has one (every rule here only gains releases).
    #[test]
    fn lowest_release_agrees_with_each_releases_create_checks() {
        let text = crate::testing::widgets_spec(
            "            properties:
              s: {type: string, maxLength: 64}
              o: {type: string, maxLength: 64}
              l: {type: array, maxItems: 4, items: {type: string, maxLength: 8}}
            x-kubernetes-validations:
            - rule: self.s.size() > 0
            - rule: isQuantity(self.s)
            - rule: self.?o.orValue('') == ''
            - rule: self.s.lowerAscii() == self.s
            - rule: self.s.indexOf('a', 1) >= 0
            - rule: ip(self.s).family() == 4
            - rule: cidr(self.s).prefixLength() > 8
            - rule: format.dns1123Label().validate(self.s).hasValue()
            - rule: self.l.all(i, v, v.size() > i)
            - rule: isSemver(self.s)
            - rule: self.l.sortBy(e, e) == self.l
            - rule: sets.contains(self.l, ['a'])
",
        );
        let rows = rule_versions_of_text(&text).unwrap();
        assert_eq!(rows.len(), 12);
        let mut lowest = Vec::new();
        for kube in KubeVersion::supported() {
            let crd = CompiledCrd::from_text(&text, kube).unwrap();
            for r in &rows {
                let rejected: Vec<String> = crd
                    .crd_errors
                    .iter()
                    .filter(|e| e.field.to_string().ends_with(&format!("{}.rule", r.schema_path)))
                    .map(|e| e.to_string())
                    .collect();
                assert_eq!(
                    accepted_on(r, kube),
                    rejected.is_empty(),
                    "{} on {}: lowest {:?}, create errors {:?}",
                    r.rule,
                    kube,
                    r.lowest_version,
                    rejected
                );
            }
        }
        for r in &rows {
            lowest.push(format!("{} {}", r.lowest_version.as_deref().unwrap_or("-"), r.rule));
        }
        assert_eq!(
            lowest,
            [
                "1.25 self.s.size() > 0",
                "1.29 isQuantity(self.s)",
                "1.29 self.?o.orValue('') == ''",
                "1.25 self.s.lowerAscii() == self.s",
                "1.25 self.s.indexOf('a', 1) >= 0",
                "1.31 ip(self.s).family() == 4",
                "1.31 cidr(self.s).prefixLength() > 8",
                "1.32 format.dns1123Label().validate(self.s).hasValue()",
                "1.33 self.l.all(i, v, v.size() > i)",
                "1.34 isSemver(self.s)",
                "1.35 self.l.sortBy(e, e) == self.l",
                "1.30 sets.contains(self.l, ['a'])",
            ]
        );
    }

    /// [`LIBRARY_CHANGES`] names exactly the compatibility versions (of the supported
    /// releases' new-expressions environments) where the environment changes: functions,
    /// overloads, macros or syntax.
    #[test]
    fn library_changes_follow_the_environments() {
        let shape = |c: u32| {
            let o = EnvOptions::for_version(c);
            let env = crate::cel::environment::base_env(&o);
            let mut fns: Vec<(&str, usize)> = env.functions.values().map(|f| (f.name, f.overloads.len())).collect();
            fns.sort();
            (fns, crate::cel::environment::library_macros(&o).len(), o.optional_syntax, o.literal_validators)
        };
        let changed: Vec<u32> = (KubeVersion::MIN.minor..KubeVersion::LATEST.minor)
            .filter(|&c| shape(c) != shape(c - 1))
            .collect();
        let listed: Vec<u32> = LIBRARY_CHANGES.iter().map(|(c, _)| *c).collect();
        assert_eq!(listed, changed);
    }

    /// A field a release does not know: the rule's lowest release is the field's, from the
    /// table that makes a compiled CRD of an older release drop it.
    #[test]
    fn field_floors_come_from_the_feature_table() {
        let rows = rule_versions_of_text(&crd(
            "            - rule: self.addr.size() > 0\n              messageExpression: \"'bad'\"\n            - rule: self.addr.size() > 0\n              reason: FieldValueForbidden",
        ))
        .unwrap();
        assert_eq!(rows[0].lowest_version.as_deref(), Some("1.27"));
        assert_eq!(rows[0].reason, "field messageExpression arrives in 1.27 (dropped before)");
        assert_eq!(rows[1].lowest_version.as_deref(), Some("1.28"));
        assert_eq!(rows[1].reason, "field reason arrives in 1.28 (dropped before)");
        let text = crd("            - rule: self.addr.size() > 0\n              messageExpression: \"'bad'\"");
        let dropped = |minor| {
            let c = CompiledCrd::from_text(&text, KubeVersion { minor }).unwrap();
            let v = c.version(None).unwrap();
            v.schema.as_ref().unwrap().properties["spec"].x_validations[0].message_expression.is_empty()
        };
        assert!(dropped(MESSAGE_EXPRESSION_SINCE - 1) && !dropped(MESSAGE_EXPRESSION_SINCE));
    }
}
