//! Several releases at once — beyond the apiserver: the same CRD (and old CRD) and object
//! (and old object) answered by each of a list of Kubernetes releases, and what differs
//! between their answers. Each release's answer is the engine's own (the compiled CRD of that
//! release from the [`Engine`]'s cache, `strategy::validate_object`), so a release's verdict
//! here is exactly what `crdlab validate --kubernetes-version` of that one release says.
//!
//! - [`parse_releases`]: `1.29,1.32,1.37` and `1.29-1.32` (every release of the table in
//!   between), what the CLI's `--kubernetes-version` and the playground's multi-select give;
//! - [`compare`]: the per-release answers ([`ReleaseAnswer`]) and every message with the
//!   releases that print it ([`Grouped`]);
//! - [`render_text`]: the CLI's text;
//! - [`compare_costs`] / [`render_costs_text`]: `crdlab cost` for several releases.

use crate::engine::{validate_options, version_of, CrdInput, Engine};
use crate::field::ErrorReport;
use crate::strategy;
use crate::version::KubeVersion;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// Releases one comparison answers for at most: every release of the table.
fn max_releases() -> usize {
    KubeVersion::supported().len()
}

/// Parses a list of releases: comma-separated versions (`1.29,1.32,1.37`) and ranges
/// (`1.29-1.32`: every release of the table from the first to the second). The result is
/// sorted oldest first without duplicates. A single version (`1.30`, `v1.37.0-beta.0`) is a
/// list of one.
///
/// # Example
///
/// ```
/// use crdlab::analysis::releases::parse_releases;
/// let names = |s| parse_releases(s).unwrap().iter().map(|v| v.to_string()).collect::<Vec<_>>();
/// assert_eq!(names("1.37,1.29-1.31"), ["1.29", "1.30", "1.31", "1.37"]);
/// assert_eq!(names("v1.37.0-beta.0"), ["1.37"]);
/// assert_eq!(names("all").len(), crdlab::KubeVersion::supported().len());
/// ```
pub fn parse_releases(s: &str) -> Result<Vec<KubeVersion>, String> {
    if s.trim() == "all" {
        return Ok(KubeVersion::supported().collect());
    }
    let mut out = Vec::new();
    for item in s.split(',') {
        let item = item.trim();
        if item.is_empty() {
            return Err(format!("kubernetesVersion {:?} has an empty item: list releases like \"1.29,1.32\"", s));
        }
        // A whole version first: `v1.37.0-beta.0` has a dash but is no range.
        match KubeVersion::parse(item) {
            Ok(v) => out.push(v),
            Err(whole) => {
                let Some((from, to)) = item.split_once('-') else {
                    return Err(whole);
                };
                let (from, to) = (KubeVersion::parse(from)?, KubeVersion::parse(to)?);
                if from > to {
                    return Err(format!("kubernetesVersion range {:?} runs backwards: write {}-{}", item, to, from));
                }
                out.extend(KubeVersion::supported().filter(|v| (from..=to).contains(v)));
            }
        }
    }
    crate::go::sort::sort(&mut out);
    out.dedup();
    Ok(out)
}

/// What is answered for, once for every release.
#[derive(Clone, Copy, Debug)]
pub struct Inputs<'a> {
    pub crd: CrdInput<'a>,
    /// The CRD being replaced: a CRD update.
    pub old_crd: Option<CrdInput<'a>>,
    /// The object (YAML or JSON text); `None`: the CRD's checks only.
    pub object: Option<&'a str>,
    /// The stored object: an update.
    pub old_object: Option<&'a str>,
    /// The CRD version (default: the storage version).
    pub version: Option<&'a str>,
    /// A status-subresource write.
    pub status: bool,
    pub ratcheting: Ratcheting,
}

/// The ratcheting asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ratcheting {
    /// What each release does (`KubeVersion::ratcheting_by_default`).
    #[default]
    ReleaseDefault,
    Off,
    /// On; a release without the gate (before 1.28) cannot, and answers with that error
    /// (`crdlab validate --ratcheting`).
    On,
    /// On where the release has the gate, else the release's default (the playground's
    /// switch, which a release without the gate greys out).
    OnWhereAvailable,
}

impl Ratcheting {
    /// The engine's `ratcheting` request field for `kube`.
    fn asked(self, kube: KubeVersion) -> Option<bool> {
        match self {
            Ratcheting::ReleaseDefault => None,
            Ratcheting::Off => Some(false),
            Ratcheting::On => Some(true),
            Ratcheting::OnWhereAvailable => kube.ratcheting_available().then_some(true),
        }
    }
}

fn release_name<S: Serializer>(v: &KubeVersion, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

fn release_names<S: Serializer>(v: &[KubeVersion], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().map(|r| r.to_string()))
}

/// The inverse of [`release_name`] (a front end reading an answer back, e.g. from a worker).
fn release_from_name<'de, D: Deserializer<'de>>(d: D) -> Result<KubeVersion, D::Error> {
    KubeVersion::parse(&String::deserialize(d)?).map_err(serde::de::Error::custom)
}

/// The inverse of [`release_names`].
fn releases_from_names<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<KubeVersion>, D::Error> {
    Vec::<String>::deserialize(d)?.iter().map(|r| KubeVersion::parse(r).map_err(serde::de::Error::custom)).collect()
}

/// One release's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseAnswer {
    #[serde(serialize_with = "release_name", deserialize_with = "release_from_name")]
    pub kubernetes_version: KubeVersion,
    pub verdict: Verdict,
    /// The request could not be answered (the CRD cannot be read, no such CRD version,
    /// ratcheting the release cannot do, an unreadable object).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The apiserver's create checks (`crdErrors`) at this release.
    pub crd_errors: Vec<ErrorReport>,
    pub crd_warnings: Vec<String>,
    /// `None` without an object (or when the request failed before validating it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<ObjectAnswer>,
}

/// The object's answer at one release.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectAnswer {
    /// The CRD version validated against.
    pub version: String,
    pub errors: Vec<ErrorReport>,
    /// Errors ratcheting let through as warnings.
    pub ratcheted: Vec<ErrorReport>,
    /// Fields pruning removed.
    pub unknown_fields: Vec<String>,
}

/// What a release makes of the request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Verdict {
    /// The CRD is accepted and so is the object.
    Accepted,
    /// The CRD is accepted, the object is not.
    ObjectRejected,
    /// The CRD's create checks fail (whatever the object).
    CrdRejected,
    /// Only a CRD was given, and it is accepted.
    CrdAccepted,
    /// The request could not be answered ([`ReleaseAnswer::error`]).
    Failed,
}

impl Verdict {
    /// Whether the release lets everything through.
    pub fn accepts(self) -> bool {
        matches!(self, Verdict::Accepted | Verdict::CrdAccepted)
    }
}

/// Where a message comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum MessageKind {
    /// The request failed ([`ReleaseAnswer::error`]).
    Error,
    CrdError,
    CrdWarning,
    ObjectError,
    /// An object error ratcheting let through.
    Ratcheted,
    UnknownField,
}

impl MessageKind {
    /// The label the CLI and the playground print before the message (the single-release
    /// CLI's wording: `CRD error:`, `Warning: CRD:`, ...).
    pub fn label(self) -> &'static str {
        match self {
            MessageKind::Error => "error:",
            MessageKind::CrdError => "CRD error:",
            MessageKind::CrdWarning => "Warning: CRD:",
            MessageKind::ObjectError => "invalid:",
            MessageKind::Ratcheted => "Warning (ratcheted):",
            MessageKind::UnknownField => "Warning:",
        }
    }
}

/// One message and the releases that print it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Grouped {
    pub kind: MessageKind,
    /// The apiserver's text (`unknown field "spec.x"` for a pruned field).
    pub message: String,
    /// The releases that print it, oldest first.
    #[serde(serialize_with = "release_names", deserialize_with = "releases_from_names")]
    pub releases: Vec<KubeVersion>,
    /// Every compared release prints it.
    pub everywhere: bool,
}

/// The answers of several releases and what differs between them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    /// One answer per release, oldest first.
    pub releases: Vec<ReleaseAnswer>,
    /// Every message, once, with the releases that print it: the messages every release
    /// prints first, then the others ordered by their oldest release, each in the order the
    /// answers give them.
    pub messages: Vec<Grouped>,
}

impl Comparison {
    /// Whether every release accepts.
    pub fn all_accept(&self) -> bool {
        self.releases.iter().all(|r| r.verdict.accepts())
    }

    /// Whether the releases do not all give the same verdict.
    pub fn verdicts_differ(&self) -> bool {
        self.releases.windows(2).any(|w| w[0].verdict != w[1].verdict)
    }

    /// The messages only some releases print.
    pub fn differences(&self) -> impl Iterator<Item = &Grouped> {
        self.messages.iter().filter(|m| !m.everywhere)
    }

    /// The messages every release prints.
    pub fn common(&self) -> impl Iterator<Item = &Grouped> {
        self.messages.iter().filter(|m| m.everywhere)
    }

    /// `1.29, 1.32` — the releases of `set`, runs of three or more consecutive releases
    /// written `1.25-1.28` — or `all releases` when `set` is every compared release.
    pub fn releases_label(&self, set: &[KubeVersion]) -> String {
        if set.len() == self.releases.len() && self.releases.len() > 1 {
            return "all releases".to_string();
        }
        label(set)
    }
}

/// `1.25-1.28, 1.32`: runs of three or more consecutive releases as a range.
pub fn label(set: &[KubeVersion]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < set.len() {
        let mut j = i;
        while j + 1 < set.len() && set[j + 1].minor == set[j].minor + 1 {
            j += 1;
        }
        if j - i >= 2 {
            parts.push(format!("{}-{}", set[i], set[j]));
        } else {
            parts.extend(set[i..=j].iter().map(|v| v.to_string()));
        }
        i = j + 1;
    }
    parts.join(", ")
}

/// Answers the request for each release of `releases` (duplicates once, oldest first;
/// at most the table's releases), through `engine`'s cache of compiled CRDs.
///
/// # Example
///
/// ```
/// use crdlab::analysis::releases::{compare, Inputs, Ratcheting, Verdict};
/// use crdlab::engine::{CrdInput, Engine};
/// use crdlab::KubeVersion;
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
///             x-kubernetes-validations:
///             - rule: "isQuantity(self.size)"
///             properties:
///               size: {type: string, maxLength: 16}
/// "#;
/// let inputs = Inputs {
///     crd: CrdInput::Text(CRD), old_crd: None, object: None, old_object: None,
///     version: None, status: false, ratcheting: Ratcheting::ReleaseDefault,
/// };
/// let releases = [KubeVersion::parse("1.28").unwrap(), KubeVersion::parse("1.29").unwrap()];
/// let c = compare(&mut Engine::new(), &inputs, &releases);
/// assert_eq!(c.releases[0].verdict, Verdict::CrdRejected); // quantity arrives in 1.29
/// assert_eq!(c.releases[1].verdict, Verdict::CrdAccepted);
/// ```
pub fn compare(engine: &mut Engine, inputs: &Inputs<'_>, releases: &[KubeVersion]) -> Comparison {
    let mut releases = releases.to_vec();
    crate::go::sort::sort(&mut releases);
    releases.dedup();
    releases.truncate(max_releases());
    // The object texts are read once: reading them does not depend on the release.
    let read = |text: Option<&str>, what: &str| -> Result<Option<Value>, String> {
        text.map(|t| crate::text::yaml::read_document(t).map_err(|e| format!("cannot read {}: {}", what, e)))
            .transpose()
    };
    let objects = read(inputs.object, "object").and_then(|o| Ok((o, read(inputs.old_object, "oldObject")?)));
    let answers: Vec<ReleaseAnswer> = releases
        .iter()
        .map(|&kube| match &objects {
            Ok((object, old)) => answer(engine, inputs, object.as_ref(), old.as_ref(), kube),
            Err(e) => failed(kube, e.clone()),
        })
        .collect();
    let messages = group(&answers);
    Comparison { releases: answers, messages }
}

fn failed(kube: KubeVersion, error: String) -> ReleaseAnswer {
    ReleaseAnswer {
        kubernetes_version: kube,
        verdict: Verdict::Failed,
        error: Some(error),
        crd_errors: Vec::new(),
        crd_warnings: Vec::new(),
        object: None,
    }
}

/// One release's answer: what `Engine::handle` computes for a `crdlab batch` request of
/// that release, in typed form.
fn answer(
    engine: &mut Engine,
    inputs: &Inputs<'_>,
    object: Option<&Value>,
    old: Option<&Value>,
    kube: KubeVersion,
) -> ReleaseAnswer {
    let crd = match engine.compile(inputs.crd, inputs.old_crd, kube) {
        Ok(c) => c,
        Err(e) => return failed(kube, e),
    };
    let crd_errors: Vec<ErrorReport> = crd.crd_errors.iter().map(|e| e.to_report_for(kube)).collect();
    let mut out = ReleaseAnswer {
        kubernetes_version: kube,
        verdict: if crd_errors.is_empty() { Verdict::CrdAccepted } else { Verdict::CrdRejected },
        error: None,
        crd_errors,
        crd_warnings: crd.crd_warnings.clone(),
        object: None,
    };
    let fail = |mut out: ReleaseAnswer, e: String| {
        out.verdict = Verdict::Failed;
        out.error = Some(e);
        out
    };
    let version = match version_of(&crd, inputs.version) {
        Ok(v) => v,
        Err(e) => return fail(out, e),
    };
    let Some(object) = object else {
        return out;
    };
    let subresource = inputs.status.then_some("status");
    let opts = match validate_options(subresource, inputs.ratcheting.asked(kube), None, kube) {
        Ok(o) => o,
        Err(e) => return fail(out, e),
    };
    let outcome = match strategy::validate_object(&crd, version, object, old, &opts) {
        Ok(o) => o,
        Err(e) => return fail(out, e),
    };
    let errors: Vec<ErrorReport> = outcome.errors.iter().map(|e| e.to_report_for(kube)).collect();
    if out.verdict == Verdict::CrdAccepted {
        out.verdict = if errors.is_empty() { Verdict::Accepted } else { Verdict::ObjectRejected };
    }
    out.object = Some(ObjectAnswer {
        version: version.name.clone(),
        errors,
        ratcheted: outcome.warnings.iter().map(|e| e.to_report_for(kube)).collect(),
        unknown_fields: outcome.unknown_fields,
    });
    out
}

/// The messages of an answer, in the order the single-release CLI prints them.
fn messages_of(a: &ReleaseAnswer) -> Vec<(MessageKind, String)> {
    let mut out = Vec::new();
    if let Some(e) = &a.error {
        out.push((MessageKind::Error, e.clone()));
    }
    out.extend(a.crd_warnings.iter().map(|w| (MessageKind::CrdWarning, w.clone())));
    out.extend(a.crd_errors.iter().map(|e| (MessageKind::CrdError, e.message.clone())));
    if let Some(o) = &a.object {
        out.extend(o.unknown_fields.iter().map(|f| (MessageKind::UnknownField, format!("unknown field \"{}\"", f))));
        out.extend(o.ratcheted.iter().map(|e| (MessageKind::Ratcheted, e.message.clone())));
        out.extend(o.errors.iter().map(|e| (MessageKind::ObjectError, e.message.clone())));
    }
    out
}

/// Every message once with the releases that print it.
fn group(answers: &[ReleaseAnswer]) -> Vec<Grouped> {
    let mut index: std::collections::HashMap<(MessageKind, String), usize> = Default::default();
    let mut groups: Vec<Grouped> = Vec::new();
    for a in answers {
        for (kind, message) in messages_of(a) {
            let key = (kind, message);
            let i = match index.get(&key) {
                Some(&i) => i,
                None => {
                    groups.push(Grouped { kind: key.0, message: key.1.clone(), releases: Vec::new(), everywhere: false });
                    index.insert(key, groups.len() - 1);
                    groups.len() - 1
                }
            };
            // A message an answer gives twice counts once for its release.
            if groups[i].releases.last() != Some(&a.kubernetes_version) {
                groups[i].releases.push(a.kubernetes_version);
            }
        }
    }
    for g in &mut groups {
        g.everywhere = g.releases.len() == answers.len();
    }
    // Common messages first, then by oldest release; the sort is stable, so each keeps
    // the answers' order.
    crate::go::sort::sort_by_key(&mut groups, |g| (!g.everywhere, g.releases.first().copied()));
    groups
}

/// `1.29: CRD accepted, object invalid (2 errors)`.
pub fn verdict_line(a: &ReleaseAnswer) -> String {
    let n = |count: usize, what: &str| format!("{} {}{}", count, what, if count == 1 { "" } else { "s" });
    let mut line = format!("{}: ", a.kubernetes_version);
    if let Some(e) = &a.error {
        line.push_str(&format!("cannot answer ({})", e));
        return line;
    }
    if a.crd_errors.is_empty() {
        line.push_str("CRD accepted");
    } else {
        line.push_str(&format!("CRD rejected ({})", n(a.crd_errors.len(), "error")));
    }
    if let Some(o) = &a.object {
        if o.errors.is_empty() {
            line.push_str(", object valid");
        } else {
            line.push_str(&format!(", object invalid ({})", n(o.errors.len(), "error")));
        }
        if !o.ratcheted.is_empty() {
            line.push_str(&format!(", {} ratcheted", o.ratcheted.len()));
        }
    }
    line
}

/// The CLI's text: a verdict line per release, then every message with the releases that
/// print it (`all releases: ...` first, then `1.29, 1.32: ...`).
pub fn render_text(c: &Comparison) -> String {
    let mut out = String::new();
    for a in &c.releases {
        out.push_str(&verdict_line(a));
        out.push('\n');
    }
    if c.messages.is_empty() {
        return out;
    }
    out.push('\n');
    for m in &c.messages {
        out.push_str(&format!("{}: {} {}\n", c.releases_label(&m.releases), m.kind.label(), m.message));
    }
    if c.differences().next().is_none() && c.releases.len() > 1 {
        out.push_str("no message differs between the releases\n");
    }
    out
}

/// One release's cost explanation of a CRD version (`crdlab cost` for that release).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseCosts {
    #[serde(serialize_with = "release_name")]
    pub kubernetes_version: KubeVersion,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<crate::analysis::explain::CostExplanation>,
    /// Why there is none (the CRD cannot be read, no such version).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl ReleaseCosts {
    /// A rule or the total is over its limit.
    pub fn over_limit(&self) -> bool {
        self.explanation
            .as_ref()
            .is_some_and(|e| e.total > e.per_crd_limit || e.rules.iter().any(|r| r.over_limit))
    }
}

/// The cost explanation of one CRD version at each release of `releases` (oldest first,
/// each once), compiled through `engine`'s cache.
pub fn compare_costs(engine: &mut Engine, crd: CrdInput<'_>, version: Option<&str>, releases: &[KubeVersion]) -> Vec<ReleaseCosts> {
    let mut releases = releases.to_vec();
    crate::go::sort::sort(&mut releases);
    releases.dedup();
    releases.truncate(max_releases());
    releases
        .into_iter()
        .map(|kube| {
            match engine.compile(crd, None, kube).and_then(|c| crate::analysis::explain::explain(&c, version)) {
                Ok(e) => ReleaseCosts { kubernetes_version: kube, explanation: Some(e), error: None },
                Err(e) => ReleaseCosts { kubernetes_version: kube, explanation: None, error: Some(e) },
            }
        })
        .collect()
}

/// A rule's figure at one release, as the cost comparison prints it.
fn rule_figure(r: &crate::analysis::explain::RuleExplanation) -> String {
    if r.error.is_some() {
        return "does not compile".to_string();
    }
    let mut out = crate::analysis::explain::group(r.estimated_cost);
    if let Some(m) = r.message_expression_cost {
        out.push_str(&format!(" (+ messageExpression {})", crate::analysis::explain::group(m)));
    }
    if r.over_limit {
        out.push_str(" over the limit");
    }
    out
}

/// The CLI's text for several releases' costs: the total per release, then each rule whose
/// figure is not the same on every release, its figures grouped by the releases that have them.
pub fn render_costs_text(list: &[ReleaseCosts]) -> String {
    use crate::analysis::explain::group as g;
    let mut out = String::new();
    for r in list {
        match (&r.explanation, &r.error) {
            (Some(e), _) => {
                let over = e.rules.iter().filter(|x| x.over_limit).count();
                out.push_str(&format!(
                    "{}: total {} of {} ({:.2}%), {} rule{}, {} over the per-rule limit of {}{}\n",
                    r.kubernetes_version,
                    g(e.total),
                    g(e.per_crd_limit),
                    e.total_share_percent,
                    e.rules.len(),
                    if e.rules.len() == 1 { "" } else { "s" },
                    over,
                    g(e.per_rule_limit),
                    if e.total > e.per_crd_limit { "; the total is over the per-CRD limit" } else { "" },
                ));
            }
            (None, e) => out.push_str(&format!("{}: cannot answer ({})\n", r.kubernetes_version, e.as_deref().unwrap_or(""))),
        }
    }
    // schema path → (rule, [(release, figure)]), in the order the releases list the rules.
    let mut order: Vec<(String, String)> = Vec::new();
    let mut figures: std::collections::HashMap<String, Vec<(KubeVersion, String)>> = Default::default();
    for r in list {
        for x in r.explanation.iter().flat_map(|e| &e.rules) {
            let f = figures.entry(x.schema_path.clone()).or_default();
            if f.is_empty() {
                order.push((x.schema_path.clone(), x.rule.clone()));
            }
            f.push((r.kubernetes_version, rule_figure(x)));
        }
    }
    let answered = list.iter().filter(|r| r.explanation.is_some()).count();
    let mut differing = 0;
    for (path, rule) in &order {
        let f = &figures[path];
        if f.len() == answered && f.windows(2).all(|w| w[0].1 == w[1].1) {
            continue;
        }
        if differing == 0 {
            out.push('\n');
        }
        differing += 1;
        // Figures in order of first appearance, each with its releases.
        let mut groups: Vec<(&str, Vec<KubeVersion>)> = Vec::new();
        for (v, fig) in f {
            match groups.iter_mut().find(|(x, _)| x == fig) {
                Some((_, vs)) => vs.push(*v),
                None => groups.push((fig, vec![*v])),
            }
        }
        out.push_str(&format!("{}\n  rule: {}\n", path, rule.replace('\n', "\n        ")));
        for (fig, vs) in groups {
            out.push_str(&format!("  {}: {}\n", label(&vs), fig));
        }
    }
    if differing == 0 && list.len() > 1 && answered > 0 {
        out.push_str("every rule costs the same on these releases\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(minor: u32) -> KubeVersion {
        KubeVersion { minor }
    }

    /// A CRD whose `name` is bounded and whose rule calls `ip()` (new for rules in 1.31).
    fn crd(rule: &str) -> String {
        crate::testing::widgets_spec(&format!(
            "            properties:
              name: {{type: string, maxLength: 5}}
              addr: {{type: string, maxLength: 64}}
            x-kubernetes-validations:
            - rule: {}
",
            rule
        ))
    }

    const OBJECT: &str = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: default}\nspec: {name: toolong, addr: 10.0.0.1}\n";

    fn inputs<'a>(crd: &'a str, object: Option<&'a str>) -> Inputs<'a> {
        Inputs {
            crd: CrdInput::Text(crd),
            old_crd: None,
            object,
            old_object: None,
            version: None,
            status: false,
            ratcheting: Ratcheting::ReleaseDefault,
        }
    }

    #[test]
    fn parses_lists_and_ranges_from_the_table() {
        assert_eq!(parse_releases("1.32, 1.29,1.37,1.29").unwrap(), [v(29), v(32), v(37)]);
        assert_eq!(parse_releases("1.29-1.31,1.37").unwrap(), [v(29), v(30), v(31), v(37)]);
        assert_eq!(parse_releases("1.30").unwrap(), [v(30)]);
        assert_eq!(parse_releases("v1.37.0-beta.0").unwrap(), [v(37)]);
        assert_eq!(parse_releases("1.25-1.37").unwrap().len(), KubeVersion::supported().len());
        assert_eq!(
            parse_releases("1.29,1.24").unwrap_err(),
            "kubernetesVersion \"1.24\" is not supported: crdlab targets 1.25 to 1.37"
        );
        assert_eq!(
            parse_releases("1.32-1.29").unwrap_err(),
            "kubernetesVersion range \"1.32-1.29\" runs backwards: write 1.29-1.32"
        );
        assert_eq!(
            parse_releases("1.29,").unwrap_err(),
            "kubernetesVersion \"1.29,\" has an empty item: list releases like \"1.29,1.32\""
        );
        assert!(parse_releases("1.29-x").is_err());
    }

    #[test]
    fn labels_write_runs_as_ranges() {
        assert_eq!(label(&[v(29), v(32)]), "1.29, 1.32");
        assert_eq!(label(&[v(25), v(26), v(27), v(28), v(32)]), "1.25-1.28, 1.32");
        assert_eq!(label(&[v(30), v(31)]), "1.30, 1.31");
    }

    /// 1.29 and 1.32 differ twice: `ip()` does not compile for new rules before 1.31, and
    /// 1.32 rewords Too long (kubernetes#128553).
    #[test]
    fn compares_releases_where_the_answers_differ() {
        let crd = crd("ip(self.addr).family() == 4");
        let c = compare(&mut Engine::new(), &inputs(&crd, Some(OBJECT)), &[v(37), v(32), v(29)]);
        let verdicts: Vec<_> = c.releases.iter().map(|a| (a.kubernetes_version, a.verdict)).collect();
        assert_eq!(
            verdicts,
            [(v(29), Verdict::CrdRejected), (v(32), Verdict::ObjectRejected), (v(37), Verdict::ObjectRejected)]
        );
        assert!(c.verdicts_differ() && !c.all_accept());
        let lines: Vec<String> = c
            .messages
            .iter()
            .map(|m| format!("{}: {} {}", c.releases_label(&m.releases), m.kind.label(), m.message))
            .collect();
        assert_eq!(
            lines,
            [
                "1.29: CRD error: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:\"ip(self.addr).family() == 4\", Message:\"\", MessageExpression:\"\", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:\"\", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:3: undeclared reference to 'ip' (in container '')\n | ip(self.addr).family() == 4\n | ..^\nERROR: <input>:1:21: undeclared reference to 'family' (in container '')\n | ip(self.addr).family() == 4\n | ....................^",
                "1.29: invalid: spec.name: Too long: may not be longer than 5",
                // Field values print as JSON from 1.34.
                "1.29, 1.32: invalid: <nil>: Invalid value: \"null\": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
                "1.32, 1.37: invalid: spec.name: Too long: may not be more than 5 bytes",
                "1.37: invalid: <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
            ]
        );
        assert_eq!(
            render_text(&c).lines().take(3).collect::<Vec<_>>(),
            [
                "1.29: CRD rejected (1 error), object invalid (2 errors)",
                "1.32: CRD accepted, object invalid (2 errors)",
                "1.37: CRD accepted, object invalid (2 errors)",
            ]
        );
    }

    /// Each release's answer is the engine's own: the same as a batch request for it.
    #[test]
    fn each_answer_is_the_single_release_answer() {
        let crd = crd("ip(self.addr).family() == 4");
        let mut engine = Engine::new();
        let c = compare(&mut engine, &inputs(&crd, Some(OBJECT)), &parse_releases("1.25-1.37").unwrap());
        for a in &c.releases {
            let req = crate::wire::batch::Request {
                crd: Some(Value::String(crd.clone())),
                object: Some(Value::String(OBJECT.into())),
                kubernetes_version: Some(a.kubernetes_version.to_string()),
                ..Default::default()
            };
            let single = engine.handle(&req);
            assert_eq!(single.crd_errors.as_ref(), Some(&a.crd_errors), "{}", a.kubernetes_version);
            assert_eq!(single.errors.as_ref(), a.object.as_ref().map(|o| &o.errors), "{}", a.kubernetes_version);
        }
    }

    #[test]
    fn the_same_answer_everywhere_is_said_once() {
        let crd = crd("self.addr.size() > 0");
        let c = compare(&mut Engine::new(), &inputs(&crd, Some(OBJECT)), &[v(34), v(37)]);
        assert_eq!(c.differences().count(), 0);
        assert_eq!(
            render_text(&c),
            "1.34: CRD accepted, object invalid (2 errors)\n1.37: CRD accepted, object invalid (2 errors)\n\n\
             all releases: invalid: spec.name: Too long: may not be more than 5 bytes\n\
             all releases: invalid: <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation\n\
             no message differs between the releases\n"
        );
    }

    #[test]
    fn release_independent_failures_fail_every_release() {
        let crd = crd("self.addr.size() > 0");
        let c = compare(&mut Engine::new(), &inputs(&crd, Some("a: [")), &[v(29), v(37)]);
        assert!(c.releases.iter().all(|a| a.verdict == Verdict::Failed));
        assert_eq!(c.messages.len(), 1);
        assert!(c.messages[0].everywhere && c.messages[0].message.starts_with("cannot read object: "), "{:?}", c.messages);
        // Ratcheting asked for where the release cannot: that release fails, the others answer.
        let mut i = inputs(&crd, Some(OBJECT));
        i.old_object = Some(OBJECT);
        i.ratcheting = Ratcheting::On;
        let c = compare(&mut Engine::new(), &i, &[v(27), v(30)]);
        assert_eq!(c.releases[0].verdict, Verdict::Failed);
        assert_eq!(
            c.releases[0].error.as_deref(),
            Some("ratcheting is not available on Kubernetes 1.27: validation ratcheting arrived in 1.28 (the CRDValidationRatcheting feature gate; on by default from 1.30)")
        );
        assert_eq!(c.releases[1].verdict, Verdict::Accepted, "unchanged fields ratchet");
        i.ratcheting = Ratcheting::OnWhereAvailable;
        let c = compare(&mut Engine::new(), &i, &[v(27), v(30)]);
        assert_eq!(c.releases[0].verdict, Verdict::ObjectRejected);
    }

    /// `isQuantity` does not compile on 1.28 (quantity arrives at compatibility 1.28), costs
    /// cel-go's default on 1.29 and a traversal of its argument from 1.30
    /// (`Feature::QuantityParseCost`).
    #[test]
    fn compares_costs_per_release() {
        let crd = crate::testing::widgets_spec(
            "            properties:\n              s: {type: string, maxLength: 64}\n              l: {type: array, maxItems: 10, items: {type: string, maxLength: 10}}\n            x-kubernetes-validations:\n            - rule: isQuantity(self.s)\n            - rule: self.l.all(x, x.size() > 0)\n",
        );
        let list = compare_costs(&mut Engine::new(), CrdInput::Text(&crd), None, &[v(37), v(28), v(29)]);
        assert_eq!(list.iter().map(|r| r.kubernetes_version).collect::<Vec<_>>(), [v(28), v(29), v(37)]);
        assert!(list.iter().all(|r| !r.over_limit()));
        let text = render_costs_text(&list);
        assert!(
            text.contains("openAPIV3Schema.properties[spec].x-kubernetes-validations[0]\n  rule: isQuantity(self.s)\n  1.28: does not compile\n  1.29: 3\n  1.37: 28\n"),
            "{}",
            text
        );
        assert!(!text.contains("x-kubernetes-validations[1]"), "the same cost everywhere is not repeated: {}", text);
        let missing = compare_costs(&mut Engine::new(), CrdInput::Text(&crd), Some("v9"), &[v(29), v(37)]);
        assert_eq!(
            render_costs_text(&missing),
            "1.29: cannot answer (the CRD has no version \"v9\")\n1.37: cannot answer (the CRD has no version \"v9\")\n"
        );
    }
}
