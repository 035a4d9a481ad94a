//! The view model: what the playground renders for a CRD and an object, as plain data
//! (settings, the CRD's versions, schema nodes and rules, the object's results).

use crate::analysis::explain::{BoundFix, RuleExplanation};
use crate::text::source_map::Range;
use crate::version::KubeVersion;
use crate::view::diagnostics::Diagnostic;
use crate::view::tree;
use serde::{Deserialize, Serialize};

/// The switches beside the editors.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// The CRD version objects are validated against (`None`: the storage version).
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    /// Validation ratcheting on updates; `None`: what the release does (on from 1.30,
    /// [`KubeVersion::ratcheting_by_default`]). `Some(true)` before 1.28 is ignored: the
    /// release cannot ratchet.
    #[serde(default)]
    pub ratcheting: Option<bool>,
    /// Validate as a write to the status subresource.
    #[serde(default)]
    pub status: bool,
    /// Other releases to answer for as well (the release picker's multi-select): the
    /// analysis then compares `kubernetes_version` with them ([`crate::view::Analysis::releases`]).
    /// Empty: one release. (Absent from share links made before it.)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compare: Vec<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { version: None, kubernetes_version: None, ratcheting: None, status: false, compare: Vec::new() }
    }
}

impl Settings {
    /// Whether updates ratchet on `kube`: the setting where the release can honour it,
    /// else the release's default.
    pub fn ratcheting_on(&self, kube: KubeVersion) -> bool {
        kube.ratcheting(self.ratcheting).unwrap_or(false)
    }

    /// The releases a multi-release analysis answers for: the target release and the
    /// [`Settings::compare`] ones that name a supported release, oldest first, each once;
    /// `None` when only one release is selected.
    pub fn compared_releases(&self, target: KubeVersion) -> Option<Vec<KubeVersion>> {
        let mut all = vec![target];
        all.extend(self.compare.iter().filter_map(|c| KubeVersion::parse(c).ok()));
        crate::go::sort::sort(&mut all);
        all.dedup();
        (all.len() > 1).then_some(all)
    }

    /// `compare` with `release` selected or not (the multi-select's checkbox), oldest first.
    pub fn with_compared(&self, release: KubeVersion, selected: bool) -> Settings {
        let mut kept: Vec<KubeVersion> = self
            .compare
            .iter()
            .filter_map(|c| KubeVersion::parse(c).ok())
            .filter(|v| *v != release)
            .collect();
        if selected {
            kept.push(release);
        }
        crate::go::sort::sort(&mut kept);
        Settings { compare: kept.iter().map(|v| v.to_string()).collect(), ..self.clone() }
    }
}

/// A text that could not be read: the reader's message and where.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputError {
    pub message: String,
    pub range: Option<Range>,
}

/// Everything shown about the CRD (shared by all analyses of objects against it).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrdView {
    /// The CRD text could not be read or decoded; nothing else is then filled.
    pub load_error: Option<InputError>,
    pub kubernetes_version: String,
    /// `spec.versions[*].name`.
    pub versions: Vec<String>,
    pub storage_version: Option<String>,
    /// `spec.names.kind` and `spec.group`, for the summary line.
    pub kind: String,
    pub group: String,
    pub name: String,
    /// The apiserver's create checks, located in the CRD text.
    pub errors: Vec<Diagnostic>,
    pub warnings: Vec<String>,
    /// Per CRD version: its rule count (and in the rules pane's view, its rules and schema
    /// nodes).
    pub per_version: Vec<VersionView>,
}

/// One CRD version's rules and the nodes rules can be added to.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionView {
    pub name: String,
    /// How many `x-kubernetes-validations` rules the version has (every view says).
    pub rule_count: usize,
    /// The rules, their costs and the schema nodes below are in the rules pane's view only
    /// ([`crate::view::Workspace::crd_view_full`]): for a big CRD they are most of a CRD
    /// edit's work and of the view's size, and only that pane shows them.
    pub rules: Vec<RuleView>,
    /// The saturating sum of the rules' (and messageExpressions') estimated costs.
    pub cost_total: u64,
    pub per_rule_limit: u64,
    pub per_crd_limit: u64,
    /// `cost_total` as a percentage of `per_crd_limit`.
    pub total_share_percent: f64,
    /// Every schema node (properties, items, additionalProperties), in document order.
    pub nodes: Vec<SchemaNode>,
}

/// A schema node a rule can be added to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SchemaNode {
    /// `spec.items[*]`, `<root>` for the root.
    pub field: String,
    /// JSON pointer to the node in the CRD document.
    pub pointer: String,
    /// `object`, `array`, `string`, ... (empty when the schema names none).
    pub type_name: String,
    pub depth: usize,
    pub rule_count: usize,
}

/// One `x-kubernetes-validations` entry as written, with what the apiserver makes of it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleView {
    /// `openAPIV3Schema.properties[spec].x-kubernetes-validations[0]`.
    pub schema_path: String,
    /// JSON pointer to the entry in the CRD document (edits write there).
    pub pointer: String,
    /// The node's field path (`spec.items[*]`, `<root>`).
    pub field: String,
    pub rule: String,
    pub message: String,
    pub message_expression: String,
    pub reason: String,
    pub field_path: String,
    pub optional_old_self: Option<bool>,
    /// Where the rule text stands in the CRD text.
    pub range: Option<Range>,
    /// The create checks reported on this entry (compile errors, cost errors, bad fields).
    pub errors: Vec<Diagnostic>,
    pub estimated_cost: u64,
    pub max_cardinality: u64,
    pub message_expression_cost: Option<u64>,
    pub per_rule_limit: u64,
    /// `estimated_cost` as a percentage of the per-CRD budget.
    pub share_percent: f64,
    pub over_limit: bool,
    /// The cost explanation (what drives the cost, the bounds that fix it).
    pub explanation: RuleExplanation,
}

impl RuleView {
    /// The one-click fixes: single bounds first, else the combined one.
    pub fn fixes(&self) -> Vec<&BoundFix> {
        if !self.explanation.fixes.is_empty() {
            self.explanation.fixes.iter().collect()
        } else {
            self.explanation.combined_fix.iter().collect()
        }
    }
}

/// Everything shown about the object.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectView {
    /// The object (or old object) could not be read or is not an object.
    pub load_error: Option<InputError>,
    pub old_load_error: Option<InputError>,
    /// An update (an old object was given).
    pub update: bool,
    /// The version validated against.
    pub version: String,
    /// The object's `metadata.name`.
    pub name: String,
    pub errors: Vec<Diagnostic>,
    /// Errors ratcheting turned into warnings (unchanged fields of an update).
    pub ratcheted: Vec<Diagnostic>,
    pub remaining_budget: Option<i64>,
    /// The object after pruning and defaulting (pretty JSON).
    pub defaulted_text: String,
    /// Fields defaulting added (apiserver paths).
    pub defaulted_fields: Vec<String>,
    /// Fields pruning removed, with where they stand in the object text.
    pub pruned: Vec<(String, Option<Range>)>,
    pub tree: Vec<tree::Node>,
}

