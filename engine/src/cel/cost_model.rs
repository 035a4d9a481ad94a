//! The vocabulary both cost estimators share: cel-go's cost constants (`common/cost.go`),
//! the estimate types and the size-hint interface of `checker/cost.go` (`SizeEstimate`,
//! `CostEstimate`, `CallEstimate`, `AstNode`, `CostEstimator.EstimateSize`), and
//! [`CostModel`], the release whose cost code runs. The expression walker
//! ([`crate::cel::cost`]) and the library estimator ([`crate::cel::library::cost`]) both
//! build on it, so neither imports the other's file for it.

use crate::cel::types::Type;
use crate::version::Feature;
use cel::common::ast::{Expr, IdedExpr, LiteralValue};

/// cel-go `common.StringTraversalCostFactor`.
pub const STRING_TRAVERSAL_COST_FACTOR: f64 = 0.1;
/// cel-go `common.RegexStringLengthCostFactor`.
pub const REGEX_STRING_LENGTH_COST_FACTOR: f64 = 0.25;
/// cel-go `common.ListCreateBaseCost`.
pub const LIST_CREATE_BASE_COST: u64 = 10;
/// cel-go `common.MapCreateBaseCost`.
pub const MAP_CREATE_BASE_COST: u64 = 30;
/// cel-go `common.StructCreateBaseCost`.
pub const STRUCT_CREATE_BASE_COST: u64 = 40;
/// apiserver `DefaultMaxRequestSizeBytes` (3 MiB), the request body limit.
pub const MAX_REQUEST_SIZE_BYTES: i64 = crate::k8s::request::MAX_REQUEST_BODY_BYTES as i64;

/// The cost code a Kubernetes release runs: its cel-go (`checker/cost.go`) and its apiserver
/// (`pkg/cel/library/cost.go`, `pkg/cel/common/schemas.go`). Chosen by the server binary
/// (the release), not by the compatibility version; see `engine/VERSIONS.md` "Cost per
/// release" for where each switch comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CostModel {
    pub release_minor: u32,
    /// [`Self::tracks_locals`], asked at nearly every node the estimator visits.
    locals: bool,
}

impl CostModel {
    pub const LATEST: CostModel = CostModel::for_release(crate::version::KubeVersion::LATEST.minor);

    pub const fn for_release(release_minor: u32) -> CostModel {
        CostModel { release_minor, locals: Feature::CostTracksLocals.enabled_at(release_minor) }
    }

    /// cel-go v0.23 (google/cel-go#1104, Kubernetes 1.33): local variables (accumulators,
    /// bindings) carry their path and size, list and map literals their entry sizes,
    /// `dyn()` passes its argument's size through, `cel.bind`-shaped comprehensions are
    /// costed as bindings, `optional(T)` of a scalar is a scalar. Before it: the coster of
    /// cel-go v0.12 to v0.22, where only iteration variables get a path (from the range's
    /// type) and every other identifier is looked up by its own name.
    pub fn tracks_locals(self) -> bool {
        self.locals
    }

    /// cel-go v0.17.8 (google/cel-go#901, backported as #902; Kubernetes 1.29 patches and
    /// 1.30): a comprehension's result has the size of its range. From v0.23 the size is
    /// the accumulator's instead ([`Self::tracks_locals`]); before v0.17.8 it has none.
    pub fn comprehension_result_has_range_size(self) -> bool {
        Feature::ComprehensionResultRangeSize.enabled_at(self.release_minor)
    }

    /// cel-go v0.16 (google/cel-go#711, Kubernetes 1.28): `has(x.f)` costs like the
    /// select `x.f`: its operand `x` plus the presence test's own cost
    /// ([`Self::presence_test_cost`]). Before (cel-go v0.12 `costSelect`): a test-only
    /// select returns the zero estimate at once and its operand is not walked.
    pub fn presence_test_costs_operand(self) -> bool {
        Feature::PresenceTestCostsOperand.enabled_at(self.release_minor)
    }

    /// The presence test's own cost: 1 in cel-go v0.16 (google/cel-go#711; the opt-out of
    /// google/cel-go#721 unused by Kubernetes 1.28), 0 from Kubernetes 1.29, which passes
    /// `PresenceTestHasCost(false)` to the estimator and the cost tracker (kubernetes#122193).
    pub fn presence_test_cost(self) -> u64 {
        if self.presence_test_costs_operand() && !Feature::PresenceTestFree.enabled_at(self.release_minor) {
            1
        } else {
            0
        }
    }

    /// cel-go v0.17 (Kubernetes 1.29): `multiplyByCostFactor` saturates at 2^64 − 1 a
    /// product that does not fit; before, Go's float-to-uint64 conversion gives 2^63
    /// ([`multiply_by_cost_factor_unguarded`]): `x in <list of unknown size>` is estimated
    /// 2^63 + 1 on 1.25–1.28.
    pub fn guards_cost_factor(self) -> bool {
        Feature::CostFactorSaturates.enabled_at(self.release_minor)
    }

    /// google/cel-go#787 (cherry-picked into Kubernetes 1.26 and 1.27 patches as
    /// kubernetes#119810/#119809, in cel-go v0.16 of 1.28): `functionCost` keeps the result
    /// size the apiserver's estimator gives a library call (`lowerAscii`, `replace`,
    /// `split`, ...), and gives `string(bytes)`/`bytes(string)` one. 1.25's cel-go v0.12
    /// has neither: those results have an unknown size.
    pub fn library_result_sizes(self) -> bool {
        Feature::LibraryResultSizes.enabled_at(self.release_minor)
    }

    /// Kubernetes 1.30: `quantity(s)` and `isQuantity(s)` cost a traversal of `s` (× 0.1),
    /// at estimate and at run time (`pkg/cel/library/cost.go`); 1.29's file has no entry
    /// for them, so cel-go's default applies: 1.
    pub fn quantity_parse_costs(self) -> bool {
        Feature::QuantityParseCost.enabled_at(self.release_minor)
    }

    /// google/cel-go#664 (March 2023: in the v0.16 of Kubernetes 1.28, not in v0.12): a
    /// string literal's size is its code-point count; before, its UTF-8 byte length.
    pub fn string_literal_code_points(self) -> bool {
        Feature::StringLiteralCodePoints.enabled_at(self.release_minor)
    }

    /// kubernetes#126359 (Kubernetes 1.32): `_==_` between Kubernetes types (quantity, ip,
    /// cidr, format, url, semver) has its own estimate. Before, cel-go's default
    /// equality estimate applies (sized by the operands, unknown for these values).
    pub fn kubernetes_type_equality(self) -> bool {
        Feature::KubernetesTypeEquality.enabled_at(self.release_minor)
    }

    /// kubernetes#121085 (Kubernetes 1.29): a string with an `enum` and no `maxLength` is
    /// as long as its longest enum value.
    pub fn enum_bounds_string_length(self) -> bool {
        Feature::EnumBoundsStringLength.enabled_at(self.release_minor)
    }

    /// kubernetes#132837 (Kubernetes 1.34): `maxLength` bounds an
    /// `x-kubernetes-int-or-string` (× 4); before, it is always a request-sized string.
    pub fn int_or_string_max_length(self) -> bool {
        Feature::IntOrStringMaxLength.enabled_at(self.release_minor)
    }

    /// kubernetes#139573 (Kubernetes 1.37, not gated on the compatibility version): at a
    /// resource root whose schema does not itself declare `metadata.name` and
    /// `metadata.generateName` as strings, the `metadata` `WithTypeAndObjectMeta` adds has
    /// `name` bounded to 253 bytes and `generateName` to 252 (or the root's own, shorter,
    /// `maxLength`). Before, both are request-sized strings.
    pub fn caps_metadata_names(self) -> bool {
        Feature::MetadataNameMaxLength.enabled_at(self.release_minor)
    }
}

impl Default for CostModel {
    fn default() -> Self {
        CostModel::LATEST
    }
}

/// The estimated size of a string (code points), bytes, list or map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SizeEstimate {
    pub min: u64,
    pub max: u64,
}

/// An estimated cost range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CostEstimate {
    pub min: u64,
    pub max: u64,
}

/// The cost of a call and, when known, the size of its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallEstimate {
    pub cost: CostEstimate,
    pub result_size: Option<SizeEstimate>,
}

/// The overloads of cel-go's default cost that compare two sized operands (orderings of
/// strings and bytes, equality): a traversal of the smaller, estimated and at run time.
pub fn compares_sized_operands(overload_id: &str) -> bool {
    matches!(
        overload_id,
        "less_string"
            | "greater_string"
            | "less_equals_string"
            | "greater_equals_string"
            | "less_bytes"
            | "greater_bytes"
            | "less_equals_bytes"
            | "greater_equals_bytes"
            | "equals"
            | "not_equals"
    )
}

/// cel-go `multiplyByCostFactor`: `ceil(x * y)` in `f64`, saturating.
pub fn multiply_by_cost_factor(x: u64, y: f64) -> u64 {
    let xf = x as f64;
    if xf > 0.0 && y > 0.0 && xf > (u64::MAX as f64) / y {
        return u64::MAX;
    }
    let c = (xf * y).ceil();
    if c >= 18_446_744_073_709_551_616.0 {
        return u64::MAX;
    }
    if c.is_nan() || c <= 0.0 {
        return 0;
    }
    c as u64
}

/// cel-go before v0.17: `multiplyByCostFactor` is `uint64(math.Ceil(float64(x) * y))`
/// without a guard, so a product of 2^64 or more converts as Go does on amd64 (the
/// apiserver's platform): values from 2^63 go through `x - 2^63`, whose too-large
/// conversion gives the indefinite integer 2^63, or-ed with 2^63: 2^63.
pub fn multiply_by_cost_factor_unguarded(x: u64, y: f64) -> u64 {
    const TWO_TO_63: f64 = 9_223_372_036_854_775_808.0;
    let c = (x as f64 * y).ceil();
    if c.is_nan() {
        return 1 << 63;
    }
    if c < TWO_TO_63 {
        // cvttsd2si: negative values convert as signed integers.
        return if c <= i64::MIN as f64 { 1 << 63 } else { (c as i64) as u64 };
    }
    let rest = c - TWO_TO_63;
    let low = if rest < TWO_TO_63 { rest as i64 as u64 } else { 1 << 63 };
    low | (1 << 63)
}

impl SizeEstimate {
    /// [`Self::multiply_by_cost_factor`] by release `model`'s cel-go: unguarded before
    /// v0.17 ([`CostModel::guards_cost_factor`]).
    pub fn multiply_by_cost_factor_at(self, f: f64, model: CostModel) -> CostEstimate {
        if model.guards_cost_factor() {
            return self.multiply_by_cost_factor(f);
        }
        CostEstimate {
            min: multiply_by_cost_factor_unguarded(self.min, f),
            max: multiply_by_cost_factor_unguarded(self.max, f),
        }
    }
    pub const fn fixed(n: u64) -> SizeEstimate {
        SizeEstimate { min: n, max: n }
    }
    pub const fn unknown() -> SizeEstimate {
        SizeEstimate {
            min: 0,
            max: u64::MAX,
        }
    }
    pub fn add(self, o: SizeEstimate) -> SizeEstimate {
        SizeEstimate {
            min: self.min.saturating_add(o.min),
            max: self.max.saturating_add(o.max),
        }
    }
    pub fn multiply(self, o: SizeEstimate) -> SizeEstimate {
        SizeEstimate {
            min: self.min.saturating_mul(o.min),
            max: self.max.saturating_mul(o.max),
        }
    }
    pub fn multiply_by_cost_factor(self, f: f64) -> CostEstimate {
        CostEstimate {
            min: multiply_by_cost_factor(self.min, f),
            max: multiply_by_cost_factor(self.max, f),
        }
    }
    pub fn multiply_by_cost(self, c: CostEstimate) -> CostEstimate {
        CostEstimate {
            min: self.min.saturating_mul(c.min),
            max: self.max.saturating_mul(c.max),
        }
    }
    pub fn union(self, o: SizeEstimate) -> SizeEstimate {
        SizeEstimate {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }
    pub fn as_cost(self) -> CostEstimate {
        CostEstimate {
            min: self.min,
            max: self.max,
        }
    }
}

impl CostEstimate {
    pub const fn fixed(n: u64) -> CostEstimate {
        CostEstimate { min: n, max: n }
    }
    pub fn add(self, o: CostEstimate) -> CostEstimate {
        CostEstimate {
            min: self.min.saturating_add(o.min),
            max: self.max.saturating_add(o.max),
        }
    }
    pub fn multiply(self, o: CostEstimate) -> CostEstimate {
        CostEstimate {
            min: self.min.saturating_mul(o.min),
            max: self.max.saturating_mul(o.max),
        }
    }
    pub fn multiply_by_cost_factor(self, f: f64) -> CostEstimate {
        CostEstimate {
            min: multiply_by_cost_factor(self.min, f),
            max: multiply_by_cost_factor(self.max, f),
        }
    }
    pub fn union(self, o: CostEstimate) -> CostEstimate {
        CostEstimate {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }
}

impl CallEstimate {
    pub fn cost(c: CostEstimate) -> CallEstimate {
        CallEstimate {
            cost: c,
            result_size: None,
        }
    }
    pub fn fixed(n: u64) -> CallEstimate {
        CallEstimate::cost(CostEstimate::fixed(n))
    }
}

/// Sizes of variables the expression cannot see (cel-go's `CostEstimator.EstimateSize`).
/// A path is a variable name followed by field names and `@items` / `@keys` / `@values`
/// (comprehension elements; `@indices` for the index of a two-variable list comprehension).
pub trait SizeHints {
    fn size(&self, path: &[&str]) -> Option<SizeEstimate>;
}

/// cel-go `AstNode`: what an estimator sees of an argument or target.
#[derive(Clone, Debug)]
pub struct AstNode<'e> {
    /// The field path from a variable (empty when the node is not reachable from one).
    pub path: Vec<String>,
    pub ty: Type,
    /// The expression (absent for the synthetic element node of a list).
    pub expr: Option<&'e IdedExpr>,
    /// The size cel-go computed from the expression itself, if any.
    pub computed_size: Option<SizeEstimate>,
}

impl<'e> AstNode<'e> {
    /// The literal of the node, if it is one.
    pub fn literal(&self) -> Option<&'e LiteralValue> {
        match self.expr.map(|e| &e.expr) {
            Some(Expr::Literal(l)) => Some(l),
            _ => None,
        }
    }
}

/// The Kubernetes cost estimator's size lookup: the hints for a node with a path.
pub fn estimate_size_hint(hints: Option<&dyn SizeHints>, node: &AstNode) -> Option<SizeEstimate> {
    if node.path.is_empty() {
        return None;
    }
    let h = hints?;
    let p: Vec<&str> = node.path.iter().map(|s| s.as_str()).collect();
    h.size(&p)
}

/// The `sizeEstimate` helper shared by the estimators: computed size, else the hint,
/// else unknown.
pub fn size_or_hint(hints: Option<&dyn SizeHints>, node: &AstNode) -> SizeEstimate {
    if let Some(s) = node.computed_size {
        return s;
    }
    estimate_size_hint(hints, node).unwrap_or(SizeEstimate::unknown())
}

