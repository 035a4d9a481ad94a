//! Size hints from a schema, as apiserver `pkg/cel/common/schemas.go` (`SchemaDeclType`,
//! `MaxElements`, `MinSerializedSize`) estimates them over its `Schema` interface, and the
//! cardinality apiextensions multiplies a rule's cost by (`maxCardinality`). Read through
//! [`Schema`], so any schema model can be sized.

use crate::cel::checker::Checked;
use crate::cel::cost::estimate;
use crate::cel::cost_model::{CostModel, SizeEstimate, SizeHints, MAX_REQUEST_SIZE_BYTES};
use crate::cel::schema::Schema;
use crate::cel::value::escape;

/// A schema node as apiserver `SchemaDeclType` sees it: the schema itself, or one of the
/// plain string / metadata nodes `WithTypeAndObjectMeta` adds at a resource root.
#[derive(Clone, Copy)]
enum Decl<'s> {
    Schema(&'s dyn Schema, bool),
    PlainString,
    /// The `metadata` `WithTypeAndObjectMeta` puts in place of the root's own (which it
    /// carries: from 1.37 the names keep its `maxLength` when shorter than the cap).
    Metadata(Option<&'s dyn Schema>),
    /// `metadata.name` (cap 253) or `metadata.generateName` (cap 252) of that metadata,
    /// with the root's own property of that name, if any.
    MetaName(Option<&'s dyn Schema>, i64),
    /// A map's key type (apiserver `StringType`: no maximum).
    Key,
}

/// apimachinery `DNS1123SubdomainMaxLength`: every custom resource's name is checked by
/// `NameIsDNSSubdomain`, so from 1.37 the CEL view of `metadata.name` is bounded by it
/// (kubernetes#139573, `cappedLengthStringType`); `generateName` one byte less (the
/// generated suffix is at least one byte).
const NAME_MAX_LENGTH: i64 = 253;

/// `SchemaDeclType(...)`'s verdict for a schema: `Some` when exposed to CEL.
fn decl<'s>(s: &'s dyn Schema, resource_root: bool) -> Option<Decl<'s>> {
    let d = Decl::Schema(s, resource_root);
    if exposed(d, 0) {
        Some(d)
    } else {
        None
    }
}

const MAX_SCHEMA_DEPTH: usize = 256;

/// Whether `SchemaDeclType` returns a type for the node.
fn exposed(d: Decl, depth: usize) -> bool {
    if depth > MAX_SCHEMA_DEPTH {
        return false;
    }
    let s = match d {
        Decl::Schema(s, _) => s,
        _ => return true,
    };
    if s.is_x_int_or_string() {
        return true;
    }
    match s.type_name() {
        "array" => match s.items() {
            Some(i) => exposed(Decl::Schema(i, i.is_x_embedded_resource()), depth + 1),
            None => false,
        },
        "object" => match s.additional_properties() {
            Some(a) => exposed(Decl::Schema(a, a.is_x_embedded_resource()), depth + 1),
            None => true,
        },
        "string" | "boolean" | "number" | "integer" => true,
        _ => false,
    }
}

/// Whether a resource root already has `kind`, `apiVersion`, `metadata.name` and
/// `metadata.generateName` as `WithTypeAndObjectMeta` wants them.
fn has_type_and_object_meta(s: &dyn Schema) -> bool {
    let is = |p: Option<&dyn Schema>, t: &str| p.map(|p| p.type_name() == t).unwrap_or(false);
    let meta = s.property("metadata");
    !s.has_no_properties()
        && is(s.property("kind"), "string")
        && is(s.property("apiVersion"), "string")
        && is(meta, "object")
        && meta.map(|m| !m.has_no_properties()).unwrap_or(false)
        && is(meta.and_then(|m| m.property("name")), "string")
        && is(
            meta.and_then(|m| m.property("generateName")),
            "string",
        )
}

/// The properties of an object node as `(name, child)`, after the resource-root additions.
fn properties<'s>(d: Decl<'s>) -> Vec<(&'s str, Decl<'s>)> {
    match d {
        Decl::Metadata(own) => {
            let own_prop = |k: &str| own.and_then(|m| m.property(k));
            vec![
                ("generateName", Decl::MetaName(own_prop("generateName"), NAME_MAX_LENGTH - 1)),
                ("name", Decl::MetaName(own_prop("name"), NAME_MAX_LENGTH)),
            ]
        }
        Decl::Schema(s, root) => {
            let add = root && !has_type_and_object_meta(s);
            let mut out: Vec<(&'s str, Decl<'s>)> = Vec::new();
            for (k, p) in s.properties() {
                if add && (k == "kind" || k == "apiVersion" || k == "metadata") {
                    continue;
                }
                out.push((k, Decl::Schema(p, p.is_x_embedded_resource())));
            }
            if add {
                out.push(("apiVersion", Decl::PlainString));
                out.push(("kind", Decl::PlainString));
                out.push(("metadata", Decl::Metadata(s.property("metadata"))));
            }
            out
        }
        _ => Vec::new(),
    }
}

fn is_object(d: Decl) -> bool {
    match d {
        Decl::Metadata(_) => true,
        Decl::Schema(s, _) => {
            !s.is_x_int_or_string()
                && s.type_name() == "object"
                && s.additional_properties().is_none()
        }
        _ => false,
    }
}

fn max_string_length_per_request(s: &dyn Schema) -> i64 {
    if s.is_x_int_or_string() {
        return MAX_REQUEST_SIZE_BYTES - 2;
    }
    match s.format() {
        Some("duration") => 32,
        Some("date") => 12,
        Some("date-time") => 32,
        _ => MAX_REQUEST_SIZE_BYTES - 2,
    }
}

fn zero_if_negative(v: i64) -> i64 {
    v.max(0)
}

/// `DeclType.MaxElements` of a node, as `model`'s release computes it.
fn max_elements(d: Decl, depth: usize, model: CostModel) -> i64 {
    let s = match d {
        Decl::Schema(s, _) => s,
        Decl::PlainString => return MAX_REQUEST_SIZE_BYTES - 2,
        Decl::MetaName(own, cap) => {
            if !model.caps_metadata_names() {
                return MAX_REQUEST_SIZE_BYTES - 2;
            }
            // `cappedLengthStringType`: the root's own maxLength when shorter, then a
            // string with a maxLength (× 4 for code points, `estimateMaxElementsFromMaxLength`).
            let own_max = own.and_then(|p| p.max_length());
            let max_length = own_max.map_or(cap, |m| m.min(cap));
            return zero_if_negative(max_length).saturating_mul(4);
        }
        Decl::Metadata(_) | Decl::Key => return 0,
    };
    if s.is_x_int_or_string() {
        return match s.max_length() {
            Some(m) if model.int_or_string_max_length() => zero_if_negative(m).saturating_mul(4),
            _ => max_string_length_per_request(s),
        };
    }
    match s.type_name() {
        "array" => {
            if let Some(m) = s.max_items() {
                return zero_if_negative(m);
            }
            match s.items() {
                Some(i) => {
                    (MAX_REQUEST_SIZE_BYTES - 2)
                        / (min_size(Decl::Schema(i, i.is_x_embedded_resource()), depth + 1) + 1)
                }
                None => 0,
            }
        }
        "object" => match s.additional_properties() {
            Some(a) => {
                if let Some(m) = s.max_properties() {
                    return zero_if_negative(m);
                }
                (MAX_REQUEST_SIZE_BYTES - 2)
                    / (min_size(Decl::Schema(a, a.is_x_embedded_resource()), depth + 1) + 6)
            }
            None => 0,
        },
        "string" => match s.format() {
            Some("byte") => match s.max_length() {
                Some(m) => zero_if_negative(m),
                None => max_string_length_per_request(s),
            },
            Some("duration") | Some("date") | Some("date-time") => max_string_length_per_request(s),
            _ => {
                if let Some(m) = s.max_length() {
                    zero_if_negative(m).saturating_mul(4)
                } else if model.enum_bounds_string_length()
                    && s.enum_values().map(|e| !e.is_empty()).unwrap_or(false)
                {
                    s.enum_values()
                        .into_iter()
                        .flatten()
                        .filter_map(|v| v.as_str())
                        .map(|v| v.len() as i64)
                        .max()
                        .unwrap_or(0)
                } else {
                    max_string_length_per_request(s)
                }
            }
        },
        _ => 0,
    }
}

/// `DeclType.MinSerializedSize` of a node.
fn min_size(d: Decl, depth: usize) -> i64 {
    if depth > MAX_SCHEMA_DEPTH {
        return 0;
    }
    let s = match d {
        Decl::Schema(s, _) => s,
        Decl::PlainString | Decl::MetaName(..) | Decl::Key => return 2,
        Decl::Metadata(_) => return 2,
    };
    if s.is_x_int_or_string() {
        return 1;
    }
    match s.type_name() {
        "array" => 2,
        "object" => {
            if s.additional_properties().is_some() {
                return 2;
            }
            let mut total: i64 = 2;
            for (name, p) in properties(d) {
                if !exposed(p, depth + 1) {
                    continue;
                }
                let required = s.required().iter().any(|r| r == name);
                let has_default = match p {
                    Decl::Schema(ps, _) => ps.has_default(),
                    _ => false,
                };
                if required && !has_default {
                    total = total.saturating_add(name.len() as i64 + min_size(p, depth + 1) + 4);
                }
            }
            total
        }
        "string" => match s.format() {
            Some("duration") => 3,
            Some("date") => 12,
            Some("date-time") => 21,
            _ => 2,
        },
        "boolean" => 4,
        "number" | "integer" => 1,
        _ => 0,
    }
}

/// The minimum serialized size of values of a schema (apiserver `DeclType.MinSerializedSize`
/// of `SchemaDeclType(schema, resourceRoot)`).
pub fn min_serialized_size(schema: &dyn Schema, resource_root: bool) -> i64 {
    min_size(Decl::Schema(schema, resource_root), 0)
}

/// Size hints for a rule's `self` / `oldSelf` bound to a schema node (apiextensions
/// `sizeEstimator` over `SchemaDeclType`). Give it the schema as written with
/// `resource_root` set for the root of a resource or an embedded resource; it adds
/// `apiVersion`, `kind` and `metadata.name/generateName` there as the apiserver does.
pub struct SchemaSizes<'s> {
    pub schema: &'s dyn Schema,
    /// The node is the root of a custom resource or an embedded resource.
    pub resource_root: bool,
    /// The release whose `SchemaDeclType` sizes the nodes.
    pub model: CostModel,
}

impl<'s> SchemaSizes<'s> {
    /// The sizes the latest release gives; see [`SchemaSizes::for_release`].
    pub fn new(schema: &'s dyn Schema, resource_root: bool) -> SchemaSizes<'s> {
        SchemaSizes {
            schema,
            resource_root,
            model: CostModel::LATEST,
        }
    }

    /// The sizes release `release_minor` gives.
    pub fn for_release(mut self, release_minor: u32) -> SchemaSizes<'s> {
        self.model = CostModel::for_release(release_minor);
        self
    }
}

fn field_matches(prop: &str, name: &str) -> bool {
    prop == name
        || escape(prop, false).as_deref() == Some(name)
        || escape(prop, true).as_deref() == Some(name)
}

impl SizeHints for SchemaSizes<'_> {
    fn size(&self, path: &[&str]) -> Option<SizeEstimate> {
        // apiextensions' estimator skips the first element without looking at it (in a
        // rule only `self` and `oldSelf` are variables), so paths rooted elsewhere — the
        // `@items` of a literal list, a type name — are read from the node too.
        path.first()?;
        let mut cur = decl(self.schema, self.resource_root)?;
        for name in &path[1..] {
            cur = match *name {
                "@items" | "@values" => match cur {
                    Decl::Schema(s, _) if !s.is_x_int_or_string() => match s.type_name() {
                        "array" => {
                            let i = s.items()?;
                            decl(i, i.is_x_embedded_resource())?
                        }
                        "object" => {
                            let a = s.additional_properties()?;
                            decl(a, a.is_x_embedded_resource())?
                        }
                        _ => return None,
                    },
                    _ => return None,
                },
                "@keys" => match cur {
                    Decl::Schema(s, _)
                        if !s.is_x_int_or_string()
                            && s.type_name() == "object"
                            && s.additional_properties().is_some() =>
                    {
                        Decl::Key
                    }
                    _ => return None,
                },
                field => {
                    if !is_object(cur) {
                        return None;
                    }
                    let (_, child) = properties(cur)
                        .into_iter()
                        .find(|(p, c)| field_matches(p, field) && exposed(*c, 0))?;
                    child
                }
            };
        }
        let m = max_elements(cur, 0, self.model);
        Some(SizeEstimate {
            min: 0,
            max: m.max(0) as u64,
        })
    }
}

/// The cardinality one schema node contributes to its descendants (apiextensions
/// `maxCardinality`): an array its `maxItems`, a map its `maxProperties`, anything else 1;
/// `None` when unbounded.
pub fn node_cardinality<S: Schema + ?Sized>(s: &S) -> Option<u64> {
    if s.type_name() == "array" {
        return s.max_items().map(|m| zero_if_negative(m) as u64);
    }
    if s.type_name() == "object" && s.additional_properties().is_some() {
        return s.max_properties().map(|m| zero_if_negative(m) as u64);
    }
    Some(1)
}

/// The product of the cardinalities of a node's ancestors (root first, the node itself
/// excluded), saturating; `None` when one of them is unbounded.
pub fn max_cardinality<S: Schema + ?Sized>(ancestors: &[&S]) -> Option<u64> {
    let mut product: u64 = 1;
    for a in ancestors {
        let c = node_cardinality(*a)?;
        product = product.saturating_mul(c);
    }
    Some(product)
}

/// The cardinality a compiled rule reports (apiextensions `maxCardinality(minSize)`):
/// how many values of the node's minimum size fit in one request.
pub fn unbounded_cardinality(schema: &dyn Schema, resource_root: bool) -> u64 {
    let min = min_serialized_size(schema, resource_root).max(0);
    (MAX_REQUEST_SIZE_BYTES / (min + 1)) as u64
}

/// A rule's estimated cost: `max_cost` times the ancestors' cardinality when bounded,
/// else times [`unbounded_cardinality`], saturating.
pub fn rule_estimated_cost<S: Schema + ?Sized>(
    max_cost: u64,
    ancestors: &[&S],
    node: &dyn Schema,
    resource_root: bool,
) -> u64 {
    match max_cardinality(ancestors) {
        Some(c) => max_cost.saturating_mul(c),
        None => max_cost.saturating_mul(unbounded_cardinality(node, resource_root)),
    }
}

/// The figures the apiserver reports for one compiled rule (or messageExpression).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleCost {
    /// `EstimateCost(...).Max` with the node's size hints.
    pub max_cost: u64,
    /// How many values of the node's minimum size fit in one request.
    pub max_cardinality: u64,
    /// `max_cost` times the ancestors' cardinality (or `max_cardinality` when unbounded).
    pub estimated_cost: u64,
}

/// Costs a checked rule at a schema node: `node` is the schema as written (not the
/// `WithTypeAndObjectMeta` copy), `ancestors` the nodes from the root down to its parent,
/// `resource_root` true at the root and at embedded resources.
pub fn rule_cost<S: Schema + ?Sized>(
    checked: &Checked,
    node: &dyn Schema,
    ancestors: &[&S],
    resource_root: bool,
) -> RuleCost {
    let sizes = SchemaSizes::new(node, resource_root).for_release(checked.release_minor);
    let max_cost = estimate(checked, Some(&sizes)).max;
    RuleCost {
        max_cost,
        max_cardinality: unbounded_cardinality(node, resource_root),
        estimated_cost: rule_estimated_cost(max_cost, ancestors, node, resource_root),
    }
}

