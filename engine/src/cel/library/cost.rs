//! The Kubernetes CEL cost estimator (apiserver `pkg/cel/library/cost.go`): runtime
//! `CallCost` and static `EstimateCallCost` of the library functions, together with the
//! per-overload cost functions cel-go's extension libraries register (`ext/sets.go`,
//! `ext/lists.go` v3, and the `strings.quote` / `format` runtime costs), which cel-go
//! consults before the Kubernetes estimator.

use crate::cel::cost_model::{
    estimate_size_hint, size_or_hint, AstNode, CallEstimate, CostEstimate, CostModel, SizeEstimate,
    SizeHints, LIST_CREATE_BASE_COST, REGEX_STRING_LENGTH_COST_FACTOR,
    STRING_TRAVERSAL_COST_FACTOR,
};
use crate::cel::types::{self, Type};
use crate::cel::value::{List, Map, Val};
use cel::common::ast::LiteralValue;

const TRAV: f64 = STRING_TRAVERSAL_COST_FACTOR;
/// apiserver `cel.MaxFormatSize`.
const MAX_FORMAT_SIZE: u64 = 64;
/// apiserver `cel.MaxNameFormatRegexSize`.
const MAX_NAME_FORMAT_REGEX_SIZE: f64 = 128.0;

/// `uint64(math.Ceil(x * f))` for a non-negative `x`.
fn ceil_u64(x: f64) -> u64 {
    let c = x.ceil();
    if c.is_nan() || c <= 0.0 {
        0
    } else if c >= 18_446_744_073_709_551_616.0 {
        u64::MAX
    } else {
        c as u64
    }
}

/// `uint64(x)` (truncation) for a non-negative `x`.
fn trunc_u64(x: f64) -> u64 {
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= 18_446_744_073_709_551_616.0 {
        u64::MAX
    } else {
        x as u64
    }
}

/// cel-go `actualSize`: the size of strings (code points), bytes, lists and maps, else 1.
pub(crate) fn actual_size(v: &Val) -> u64 {
    match v {
        Val::String(s) => s.as_str().chars().count() as u64,
        Val::Bytes(b) => b.len() as u64,
        Val::List(l) => l.len() as u64,
        Val::Map(m) => m.len() as u64,
        _ => 1,
    }
}

/// apiserver `traversalCost`: strings and bytes cost a tenth of their byte length
/// (truncated), lists and maps the sum over their elements, anything else 1.
fn traversal_cost(v: &Val, depth: usize) -> u64 {
    if depth > 256 {
        return 1;
    }
    match v {
        Val::String(s) => trunc_u64(s.as_str().len() as f64 * TRAV),
        Val::Bytes(b) => trunc_u64(b.len() as f64 * TRAV),
        Val::List(l) => list_traversal(l, depth),
        Val::Map(m) => map_traversal(m, depth),
        _ => 1,
    }
}

fn list_traversal(l: &List, depth: usize) -> u64 {
    let mut cost: u64 = 0;
    for i in 0..l.len() {
        let c = match l.get(i) {
            Some(Ok(v)) => traversal_cost(&v, depth + 1),
            _ => 1,
        };
        cost = cost.wrapping_add(c);
    }
    cost
}

fn map_traversal(m: &Map, depth: usize) -> u64 {
    let mut cost: u64 = 0;
    for (k, v) in m.entries() {
        cost = cost
            .wrapping_add(traversal_cost(&k, depth + 1))
            .wrapping_add(traversal_cost(&v, depth + 1));
    }
    cost
}

/// The type name of an opaque library value.
fn opaque_name(v: &Val) -> Option<&'static str> {
    match v {
        Val::Opaque(o) => Some(o.type_name()),
        _ => None,
    }
}

/// `MaxRegexSize` of a named format (apiserver `library/format.go` `ConstantFormats`).
fn format_regex_size(name: &str) -> Option<u64> {
    let n = name.to_ascii_lowercase();
    Some(match n.as_str() {
        "dns1123label" | "dns1035label" | "dns1123labelprefix" | "dns1035labelprefix" => 30,
        "dns1123subdomain" | "dns1123subdomainprefix" | "qualifiedname" => 60,
        "portname" => 20,
        "labelvalue" => 40,
        // len(govalidator.URL)
        "uri" => 1120,
        // len(strfmt.UUIDPattern)
        "uuid" => 70,
        // len(govalidator.Base64)
        "byte" => 84,
        // len(strfmt.DateTimePattern)
        "date" | "datetime" => 71,
        _ => return None,
    })
}

/// selector parse cost (apiserver `selectorCostEstimate`).
fn selector_cost(len: SizeEstimate) -> CostEstimate {
    let parse = len.multiply_by_cost_factor(TRAV);
    let requirements = len.multiply_by_cost_factor(0.5);
    let requirement_cost =
        requirements.multiply_by_cost_factor((LIST_CREATE_BASE_COST + 40) as f64);
    CostEstimate::fixed(LIST_CREATE_BASE_COST)
        .add(parse)
        .add(requirement_cost)
}

// ------------------------------------------------------------------ runtime

/// Runtime cost of a library call on the latest release, or `None` for cel-go's default.
#[cfg(test)]
pub fn call_cost(function: &str, overload_id: &str, args: &[Val], result: &Val) -> Option<u64> {
    Tracker::of(function, overload_id, CostModel::LATEST).cost(args, result)
}

/// Whether `function` is an operator (`_+_`, `!_`, `-_`, `@in`). The only operator any
/// Kubernetes cost case (runtime or estimate) names is `_==_`, and no extension case names
/// one: the planner and the estimator classify every call, most calls are operators, and
/// matching their names against every library function's cost the most in WebAssembly.
fn is_operator(function: &str) -> bool {
    matches!(function.as_bytes().first(), Some(b'_' | b'@' | b'!' | b'-'))
}

/// The IP and CIDR accessors, which cost 1 (estimated and at run time).
fn is_ip_accessor(function: &str) -> bool {
    matches!(
        function,
        "masked"
            | "prefixLength"
            | "family"
            | "isUnspecified"
            | "isLoopback"
            | "isLinkLocalMulticast"
            | "isLinkLocalUnicast"
            | "isGlobalUnicast"
    )
}

/// The runtime cost trackers that may cost a call: cel-go's extension trackers
/// (`interpreter.OverloadCostTracker`, and the runtime defaults of `ext/strings`), consulted
/// first, then apiserver `CostEstimator.CallCost`. Which of their cases a call falls under
/// depends only on its function and overload names (and the release), so the planner finds
/// it once per call and evaluation compares no names; [`Tracker::cost`] reads the arguments
/// and the result, and answers `None` where cel-go's default cost applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tracker {
    ext: Option<ExtCost>,
    k8s: Option<K8sCost>,
}

/// The cases of cel-go's extension trackers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ExtCost {
    /// `sets.contains` / `sets.intersects` (factor 1) and `sets.equivalent` (factor 2):
    /// the product of the two sizes.
    Sets { equivalent: bool },
    /// `slice`, `lists.range`, `reverse`: a list as long as the result.
    ResultList,
    /// `flatten`: a list of the first argument's size, times the depth.
    Flatten,
    /// `distinct`, `sort` (argument 0) and `sortBy`'s associated-keys sort (argument 1):
    /// comparisons of every pair.
    SelfCompare { arg: usize },
    /// `strings.quote`, `format`: a traversal of the first argument.
    Traversal,
}

/// The cases of apiserver `CostEstimator.CallCost` (pkg/cel/library/cost.go).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum K8sCost {
    /// A constant.
    Fixed(u64),
    /// A constant, given at least one argument (`ip` of a CIDR).
    FixedWithArgs(u64),
    /// `fieldSelector`, `labelSelector`: the selector's parse of the second argument.
    Selector,
    /// `isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`: a traversal of the
    /// receiver's elements.
    TraverseFirst,
    /// A tenth of the first argument's size, times `times`.
    FirstSize { times: u8 },
    /// `join`: a fifth of the result's size.
    JoinResult,
    /// `find`, `findAll`: the string against the regex.
    Regex,
    /// `containsIP` (`string`: also a parse of the address text).
    ContainsIp { string: bool },
    /// `containsCIDR` (`string`: also a parse of the CIDR text).
    ContainsCidr { string: bool },
    /// `format.validate`: the string against the named format's regex.
    Validate,
    /// `==` of two library values (quantities, IPs, CIDRs, formats, URLs, semvers).
    OpaqueEquality,
}

impl Tracker {
    /// The tracker cases of a call of `function` under `overload_id` on release `model`.
    pub(crate) fn of(function: &str, overload_id: &str, model: CostModel) -> Tracker {
        Tracker { ext: ExtCost::of(overload_id), k8s: K8sCost::of(function, overload_id, model) }
    }

    /// No tracker costs the call: its cost is cel-go's default, whatever its arguments.
    pub(crate) fn is_none(&self) -> bool {
        self.ext.is_none() && self.k8s.is_none()
    }

    /// The tracked cost of the call on `args` (the receiver first) with `result`, or `None`
    /// for cel-go's default.
    pub(crate) fn cost(&self, args: &[Val], result: &Val) -> Option<u64> {
        if let Some(c) = self.ext.and_then(|e| e.cost(args, result)) {
            return Some(c);
        }
        self.k8s.and_then(|k| k.cost(args, result))
    }
}

impl ExtCost {
    fn of(overload_id: &str) -> Option<ExtCost> {
        // Every case's overload id starts so (see `is_operator`).
        if !overload_id.starts_with("list") && !overload_id.starts_with("string") {
            return None;
        }
        Self::table(overload_id)
    }

    fn table(overload_id: &str) -> Option<ExtCost> {
        Some(match overload_id {
            "list_sets_contains_list" | "list_sets_intersects_list" => ExtCost::Sets { equivalent: false },
            "list_sets_equivalent_list" => ExtCost::Sets { equivalent: true },
            "list_slice" | "lists_range" | "list_reverse" => ExtCost::ResultList,
            "list_flatten" | "list_flatten_int" => ExtCost::Flatten,
            "list_distinct" => ExtCost::SelfCompare { arg: 0 },
            _ if sort_elem(overload_id, "_sortByAssociatedKeys").is_some() => ExtCost::SelfCompare { arg: 1 },
            _ if sort_elem(overload_id, "_sort").is_some() => ExtCost::SelfCompare { arg: 0 },
            "strings_quote" | "string_format" => ExtCost::Traversal,
            _ => return None,
        })
    }

    fn cost(self, args: &[Val], result: &Val) -> Option<u64> {
        let alloc = |factor: f64, size: u64| -> u64 {
            trunc_u64(size as f64 * factor).wrapping_add(1 + LIST_CREATE_BASE_COST)
        };
        Some(match self {
            ExtCost::Sets { equivalent } => {
                let factor = if equivalent { 2.0 } else { 1.0 };
                let (a, b) = (args.first().map(actual_size)?, args.get(1).map(actual_size)?);
                1u64.wrapping_add(trunc_u64(a.wrapping_mul(b) as f64 * factor))
            }
            ExtCost::ResultList => alloc(1.0, actual_size(result)),
            ExtCost::Flatten => {
                let depth = match args.get(1) {
                    Some(Val::Int(d)) => *d as f64,
                    None => 1.0,
                    // cel-go's tracker asserts an int depth and panics otherwise: the
                    // evaluation is abandoned without the call's cost.
                    Some(_) => return Some(0),
                };
                alloc(depth, args.first().map(actual_size).unwrap_or(1))
            }
            ExtCost::SelfCompare { arg } => {
                let Some(l) = args.get(arg) else { return Some(alloc(2.0, 0)) };
                let sz = actual_size(l);
                if sz == 0 {
                    return Some(alloc(2.0, 0));
                }
                let mut factor = 2.0;
                if let Val::List(list) = l {
                    if let Some(Ok(first)) = list.get(0) {
                        if matches!(first, Val::String(_) | Val::Bytes(_)) {
                            factor += TRAV;
                        }
                    }
                }
                alloc(factor, sz.wrapping_mul(sz))
            }
            ExtCost::Traversal => ceil_u64(args.first().map(actual_size).unwrap_or(1) as f64 * TRAV),
        })
    }
}

impl K8sCost {
    fn of(function: &str, overload_id: &str, model: CostModel) -> Option<K8sCost> {
        if is_operator(function) {
            return (function == "_==_").then_some(K8sCost::OpaqueEquality);
        }
        Self::table(function, overload_id, model)
    }

    fn table(function: &str, overload_id: &str, model: CostModel) -> Option<K8sCost> {
        Some(match function {
            "check" => K8sCost::Fixed(350_000),
            "serviceAccount" | "path" | "group" | "resource" | "subresource" | "namespace" | "name"
            | "allowed" | "reason" | "error" | "errored" => K8sCost::Fixed(1),
            "fieldSelector" | "labelSelector" => K8sCost::Selector,
            "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf" => K8sCost::TraverseFirst,
            "url" | "lowerAscii" | "upperAscii" | "substring" | "trim" | "jsonpatch.escapeKey" => {
                K8sCost::FirstSize { times: 1 }
            }
            "replace" | "split" => K8sCost::FirstSize { times: 2 },
            "join" => K8sCost::JoinResult,
            "find" | "findAll" => K8sCost::Regex,
            "cidr" | "isIP" | "isCIDR" => K8sCost::FirstSize { times: 1 },
            "ip" if overload_id == "cidr_ip" => K8sCost::FixedWithArgs(1),
            "ip" => K8sCost::FirstSize { times: 1 },
            "ip.isCanonical" => K8sCost::FirstSize { times: 2 },
            f if is_ip_accessor(f) => K8sCost::Fixed(1),
            "containsIP" => K8sCost::ContainsIp { string: overload_id == "cidr_contains_ip_string" },
            "containsCIDR" => K8sCost::ContainsCidr { string: overload_id == "cidr_contains_cidr_string" },
            // 1.29's apiserver has no entry for them: cel-go's default, 1.
            "quantity" | "isQuantity" if !model.quantity_parse_costs() => return None,
            "quantity" | "isQuantity" | "semver" | "isSemver" => K8sCost::FirstSize { times: 1 },
            "validate" => K8sCost::Validate,
            "format.named" => K8sCost::Fixed(1),
            "sign" | "asInteger" | "isInteger" | "asApproximateFloat" | "isGreaterThan"
            | "isLessThan" | "compareTo" | "add" | "sub" | "major" | "minor" | "patch" => K8sCost::Fixed(1),
            "getScheme" | "getHostname" | "getHost" | "getPort" | "getEscapedPath" | "getQuery" => {
                K8sCost::Fixed(1)
            }
            "_==_" => K8sCost::OpaqueEquality,
            _ => return None,
        })
    }

    fn cost(self, args: &[Val], result: &Val) -> Option<u64> {
        let size0 = || args.first().map(actual_size).unwrap_or(1) as f64;
        match self {
            K8sCost::Fixed(c) => Some(c),
            K8sCost::FixedWithArgs(c) if !args.is_empty() => Some(c),
            K8sCost::Selector if args.len() >= 2 => {
                Some(selector_cost(SizeEstimate::fixed(actual_size(&args[1]))).max)
            }
            K8sCost::TraverseFirst => Some(args.first().map(|a| traversal_cost(a, 0)).unwrap_or(0)),
            K8sCost::FirstSize { times } if !args.is_empty() => {
                Some(ceil_u64(size0() * f64::from(times) * TRAV))
            }
            K8sCost::JoinResult if !args.is_empty() => Some(ceil_u64(actual_size(result) as f64 * 2.0 * TRAV)),
            K8sCost::Regex if args.len() >= 2 => {
                let s = ceil_u64((1.0 + actual_size(&args[0]) as f64) * TRAV);
                let r = ceil_u64(actual_size(&args[1]) as f64 * REGEX_STRING_LENGTH_COST_FACTOR);
                Some(s.wrapping_mul(r))
            }
            K8sCost::ContainsIp { string } if args.len() >= 2 => {
                let c = actual_size(&args[0]);
                let o = actual_size(&args[1]);
                let mut cost = ceil_u64((c.wrapping_add(c)) as f64 * TRAV);
                if string {
                    cost = cost.wrapping_add(ceil_u64(o as f64 * TRAV));
                }
                Some(cost)
            }
            K8sCost::ContainsCidr { string } if args.len() >= 2 => {
                let c = actual_size(&args[0]);
                let o = actual_size(&args[1]);
                let mut cost = ceil_u64((c.wrapping_add(c)) as f64 * TRAV);
                cost = cost.wrapping_add(ceil_u64(c as f64 * TRAV)).wrapping_add(1);
                if string {
                    cost = cost.wrapping_add(ceil_u64(o as f64 * TRAV));
                }
                Some(cost)
            }
            K8sCost::Validate if args.len() >= 2 => {
                let Val::Opaque(f) = &args[0] else {
                    return None;
                };
                if f.type_name() != types::FORMAT {
                    return None;
                }
                let regex = format_regex_size(&f.to_canonical())?;
                let s = ceil_u64((1.0 + actual_size(&args[1]) as f64) * TRAV);
                let r = ceil_u64(regex as f64 * REGEX_STRING_LENGTH_COST_FACTOR);
                Some(s.wrapping_mul(r))
            }
            K8sCost::OpaqueEquality if args.len() == 2 => match opaque_name(&args[0]) {
                Some(
                    types::QUANTITY
                    | types::IP
                    | types::CIDR
                    | types::FORMAT
                    | types::URL
                    | types::SEMVER,
                ) => Some(1),
                _ => None,
            },
            _ => None,
        }
    }
}

// ------------------------------------------------------------------ static

/// Static cost of a library call (cel-go `FunctionEstimator`s of the extension libraries,
/// then apiserver `CostEstimator.EstimateCallCost`), or `None` for cel-go's default.
/// `target` is the receiver of a member call; `hints` the size estimator; `model` the
/// release whose apiserver estimates.
pub fn estimate_call_cost(
    function: &str,
    overload_id: &str,
    target: Option<&AstNode>,
    args: &[AstNode],
    hints: Option<&dyn SizeHints>,
    model: CostModel,
) -> Option<CallEstimate> {
    if let Some(e) = ext_estimate(overload_id, target, args, hints) {
        return Some(e);
    }
    k8s_estimate(function, overload_id, target, args, hints, model)
}

/// The integer value of a literal node (negative as 0), else `default`
/// (cel-go ext `nodeAsIntValue`).
fn node_as_int(n: &AstNode, default: u64) -> u64 {
    match n.literal() {
        Some(LiteralValue::Int(i)) => {
            let v = *i.inner();
            if v < 0 {
                0
            } else {
                v as u64
            }
        }
        _ => default,
    }
}

/// cel-go ext `estimateAllocatingListCall`.
fn allocating_list(factor: f64, size: SizeEstimate) -> CallEstimate {
    let cost = size
        .multiply_by_cost_factor(factor)
        .add(CostEstimate::fixed(1))
        .add(CostEstimate::fixed(LIST_CREATE_BASE_COST));
    CallEstimate {
        cost,
        result_size: Some(size),
    }
}

fn ext_estimate(
    overload_id: &str,
    target: Option<&AstNode>,
    args: &[AstNode],
    hints: Option<&dyn SizeHints>,
) -> Option<CallEstimate> {
    let size = |n: &AstNode| size_or_hint(hints, n);
    // Every case's overload id starts so (see `is_operator`).
    if !overload_id.starts_with("list") {
        return None;
    }
    let sort_cost = |n: &AstNode, string_like: bool| {
        let sz = size(n);
        let factor = if string_like { 2.0 + TRAV } else { 2.0 };
        allocating_list(factor, sz.multiply(sz))
    };
    match overload_id {
        "list_sets_contains_list" | "list_sets_intersects_list" | "list_sets_equivalent_list" => {
            if args.len() != 2 {
                return None;
            }
            let factor = if overload_id == "list_sets_equivalent_list" {
                2.0
            } else {
                1.0
            };
            let c = size(&args[0])
                .multiply(size(&args[1]))
                .multiply_by_cost_factor(factor)
                .add(CostEstimate::fixed(1));
            Some(CallEstimate::cost(c))
        }
        "list_slice" => {
            let t = target?;
            if args.len() != 2 {
                return None;
            }
            let sz = size(t);
            let start = node_as_int(&args[0], 0);
            let end = node_as_int(&args[1], sz.max);
            Some(allocating_list(
                1.0,
                SizeEstimate::fixed(end.wrapping_sub(start)),
            ))
        }
        "lists_range" => {
            if target.is_some() || args.len() != 1 {
                return None;
            }
            Some(allocating_list(
                1.0,
                SizeEstimate::fixed(node_as_int(&args[0], u64::MAX)),
            ))
        }
        "list_reverse" => {
            let t = target?;
            if !args.is_empty() {
                return None;
            }
            Some(allocating_list(1.0, size(t)))
        }
        "list_flatten" | "list_flatten_int" => {
            let t = target?;
            if args.len() > 1 {
                return None;
            }
            let depth = match args.first() {
                Some(a) => node_as_int(a, u64::MAX),
                None => 1,
            };
            Some(allocating_list(depth as f64, size(t)))
        }
        "list_distinct" => {
            let t = target?;
            if !args.is_empty() {
                return None;
            }
            let sz = size(t);
            Some(allocating_list(2.0, sz.multiply(sz)))
        }
        _ if sort_elem(overload_id, "_sortByAssociatedKeys").is_some() => {
            target?;
            if args.len() != 1 {
                return None;
            }
            let elem = sort_elem(overload_id, "_sortByAssociatedKeys").unwrap_or("");
            Some(sort_cost(&args[0], elem == "string" || elem == "bytes"))
        }
        _ if sort_elem(overload_id, "_sort").is_some() => {
            let t = target?;
            if !args.is_empty() {
                return None;
            }
            let elem = sort_elem(overload_id, "_sort").unwrap_or("");
            Some(sort_cost(t, elem == "string" || elem == "bytes"))
        }
        _ => None,
    }
}

/// The element type name of a lists-extension sort overload id (`list_<T><suffix>`).
fn sort_elem<'a>(overload_id: &'a str, suffix: &str) -> Option<&'a str> {
    overload_id.strip_prefix("list_")?.strip_suffix(suffix)
}

/// apiserver `listElementNode`: the element node of a list (or the first type parameter
/// of another parameterized type), with the `@items` path when the list has one.
fn list_element_node<'e>(list: &AstNode<'e>) -> Option<AstNode<'e>> {
    let elem = match &list.ty {
        Type::List(e) => (**e).clone(),
        Type::Map(k, _) => (**k).clone(),
        Type::Opaque(_, ps) if !ps.is_empty() => ps[0].clone(),
        Type::TypeOf(t) => (**t).clone(),
        _ => return None,
    };
    let path = if list.path.is_empty() {
        Vec::new()
    } else {
        let mut p = list.path.clone();
        p.push("@items".to_string());
        p
    };
    Some(AstNode {
        path,
        ty: elem,
        expr: None,
        computed_size: None,
    })
}

fn k8s_estimate(
    function: &str,
    overload_id: &str,
    target: Option<&AstNode>,
    args: &[AstNode],
    hints: Option<&dyn SizeHints>,
    model: CostModel,
) -> Option<CallEstimate> {
    if is_operator(function) && function != "_==_" {
        return None;
    }
    let size = |n: &AstNode| size_or_hint(hints, n);
    let fixed1 = || Some(CallEstimate::fixed(1));
    match function {
        "check" => Some(CallEstimate::fixed(350_000)),
        "serviceAccount" | "path" | "group" | "resource" | "subresource" | "namespace" | "name"
        | "allowed" | "reason" | "error" | "errored" => fixed1(),
        "fieldSelector" | "labelSelector" => {
            if args.len() == 1 {
                return Some(CallEstimate::cost(selector_cost(size(&args[0]))));
            }
            None
        }
        "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf" => {
            let t = target?;
            match list_element_node(t) {
                Some(el) => {
                    let mut el_cost = CostEstimate::fixed(1);
                    if matches!(el.ty, Type::String | Type::Bytes) {
                        let sz = estimate_size_hint(hints, &el).unwrap_or(SizeEstimate::unknown());
                        el_cost = el_cost.add(sz.multiply_by_cost_factor(TRAV));
                    }
                    Some(CallEstimate::cost(size(t).multiply_by_cost(el_cost)))
                }
                None => Some(CallEstimate::cost(size(t).multiply_by_cost_factor(TRAV))),
            }
        }
        "url" | "jsonpatch.escapeKey" => {
            if args.len() == 1 {
                let sz = size(&args[0]);
                return Some(CallEstimate {
                    cost: sz.multiply_by_cost_factor(TRAV),
                    // The URL's size (read by the URL equality estimate) came with it.
                    result_size: model.kubernetes_type_equality().then_some(sz),
                });
            }
            None
        }
        "lowerAscii" | "upperAscii" | "substring" | "trim" => {
            let t = target?;
            let sz = size(t);
            Some(CallEstimate {
                cost: sz.multiply_by_cost_factor(TRAV),
                result_size: Some(sz),
            })
        }
        "replace" => {
            let t = target?;
            if args.len() < 2 {
                return None;
            }
            let sz = size(t);
            let to_replace = size(&args[0]);
            let with = size(&args[1]);
            let mut count = SizeEstimate { min: 0, max: 0 };
            let mut retained = SizeEstimate { min: 0, max: 0 };
            if to_replace.min == 0 {
                count.max = if sz.max < u64::MAX {
                    sz.max + 1
                } else {
                    sz.max
                };
                retained.max = sz.max;
            } else if with.max <= to_replace.min {
                count.max = 0;
                retained.max = sz.max;
            } else {
                count.max = ceil_u64(sz.max as f64 / to_replace.min as f64);
            }
            if to_replace.max == 0 {
                count.min = if sz.min < u64::MAX {
                    sz.min + 1
                } else {
                    sz.min
                };
                retained.min = sz.min;
            } else if to_replace.max <= with.min {
                count.min = 0;
                retained.min = sz.min;
            } else {
                count.min = ceil_u64(sz.min as f64 / to_replace.max as f64);
            }
            let result = count.multiply(with).add(retained);
            Some(CallEstimate {
                cost: sz.multiply_by_cost_factor(2.0 * TRAV),
                result_size: Some(result),
            })
        }
        "split" => {
            let t = target?;
            let sz = size(t);
            let mut max = sz.max;
            if let Some(n) = args.get(1) {
                if let Some(LiteralValue::Int(i)) = n.literal() {
                    max = *i.inner() as u64;
                }
            }
            Some(CallEstimate {
                cost: sz.multiply_by_cost_factor(2.0 * TRAV),
                result_size: Some(SizeEstimate { min: 0, max }),
            })
        }
        "join" => {
            let t = target?;
            let mut sz = SizeEstimate { min: 0, max: 0 };
            let list_size = size(t);
            if let Some(el) = list_element_node(t) {
                let elem_size = estimate_size_hint(hints, &el).unwrap_or(SizeEstimate::unknown());
                sz = list_size.multiply(elem_size);
            }
            if let Some(sep) = args.first() {
                let sep_size = size(sep);
                let seps = SizeEstimate {
                    min: list_size.min.saturating_sub(1),
                    max: list_size.max.saturating_sub(1),
                };
                sz = sz.add(sep_size.multiply(seps));
            }
            Some(CallEstimate {
                cost: sz.multiply_by_cost_factor(TRAV),
                result_size: Some(sz),
            })
        }
        "find" | "findAll" => {
            let t = target?;
            let a = args.first()?;
            let sz = size(t);
            let s = sz.add(SizeEstimate::fixed(1)).multiply_by_cost_factor(TRAV);
            let r = size(a).multiply_by_cost_factor(REGEX_STRING_LENGTH_COST_FACTOR);
            Some(CallEstimate {
                cost: s.multiply(r),
                result_size: Some(SizeEstimate {
                    min: 0,
                    max: sz.max,
                }),
            })
        }
        "cidr" | "isIP" | "isCIDR" => {
            let a = args.first()?;
            Some(CallEstimate::cost(size(a).multiply_by_cost_factor(TRAV)))
        }
        "ip" => match args.first() {
            Some(a) => {
                if overload_id == "cidr_ip" {
                    return fixed1();
                }
                Some(CallEstimate::cost(size(a).multiply_by_cost_factor(TRAV)))
            }
            None if target.is_some() => fixed1(),
            None => None,
        },
        "ip.isCanonical" => {
            let a = args.first()?;
            Some(CallEstimate::cost(
                size(a).multiply_by_cost_factor(2.0 * TRAV),
            ))
        }
        f if is_ip_accessor(f) => fixed1(),
        "containsIP" | "containsCIDR" => {
            target?;
            let a = args.first()?;
            let sz = SizeEstimate { min: 4, max: 16 };
            let mut c = sz.add(sz).multiply_by_cost_factor(TRAV);
            if function == "containsCIDR" {
                c = c
                    .add(sz.multiply_by_cost_factor(TRAV))
                    .add(CostEstimate::fixed(1));
            }
            if overload_id == "cidr_contains_ip_string"
                || overload_id == "cidr_contains_cidr_string"
            {
                c = c.add(size(a).as_cost().multiply_by_cost_factor(TRAV));
            }
            Some(CallEstimate::cost(c))
        }
        // 1.29's apiserver has no estimate for them: cel-go's default, 1.
        "quantity" | "isQuantity" if !model.quantity_parse_costs() => None,
        "quantity" | "isQuantity" | "semver" | "isSemver" => {
            let a = args.first()?;
            Some(CallEstimate::cost(size(a).multiply_by_cost_factor(TRAV)))
        }
        "validate" => {
            target?;
            let a = args.first()?;
            let c = size(a)
                .multiply_by_cost_factor(TRAV)
                .multiply_by_cost_factor(
                    MAX_NAME_FORMAT_REGEX_SIZE * REGEX_STRING_LENGTH_COST_FACTOR,
                );
            Some(CallEstimate::cost(c))
        }
        "format.named" => fixed1(),
        "sign" | "asInteger" | "isInteger" | "asApproximateFloat" | "isGreaterThan"
        | "isLessThan" | "compareTo" | "add" | "sub" | "major" | "minor" | "patch" => fixed1(),
        "getScheme" | "getHostname" | "getHost" | "getPort" | "getEscapedPath" | "getQuery" => {
            fixed1()
        }
        // Before 1.32 the apiserver has no estimate here: cel-go's default equality applies.
        "_==_" if !model.kubernetes_type_equality() => None,
        "_==_" => {
            if args.len() != 2 || args[0].ty != args[1].ty {
                return None;
            }
            match &args[0].ty {
                Type::Opaque(n, ps) if ps.is_empty() => match &**n {
                    types::IP | types::CIDR | types::QUANTITY | types::SEMVER => fixed1(),
                    types::FORMAT => Some(CallEstimate::cost(
                        CostEstimate {
                            min: 1,
                            max: MAX_FORMAT_SIZE,
                        }
                        .multiply_by_cost_factor(TRAV),
                    )),
                    types::URL => {
                        // apiserver reads the right-hand size twice.
                        let size = args[1].computed_size.unwrap_or(SizeEstimate::fixed(1));
                        Some(CallEstimate::cost(
                            CostEstimate {
                                min: 1,
                                max: size.max,
                            }
                            .multiply_by_cost_factor(TRAV),
                        ))
                    }
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traversal_truncates_byte_lengths() {
        assert_eq!(traversal_cost(&Val::str("tacocat"), 0), 0);
        assert_eq!(traversal_cost(&Val::str("hello wello"), 0), 1);
        assert_eq!(
            traversal_cost(&Val::list(vec![Val::Int(1), Val::Int(2)]), 0),
            2
        );
    }

    /// The operator and overload-id shortcuts of the runtime trackers answer as their
    /// tables do, for every function and overload of every release's environments.
    #[test]
    fn tracker_shortcuts_answer_as_the_tables() {
        use crate::cel::env::EnvOptions;
        for release in crate::version::RELEASES.iter().map(|r| r.version.minor) {
            for opts in [EnvOptions::for_version(release.saturating_sub(1)), EnvOptions::stored(release)] {
                let model = CostModel::for_release(opts.release_minor);
                let env = crate::cel::environment::base_env(&opts);
                for f in env.functions.values() {
                    for o in f.overloads.iter().map(|o| o.id).chain([""]) {
                        assert_eq!(K8sCost::of(f.name, o, model), K8sCost::table(f.name, o, model), "{} {}", f.name, o);
                        assert_eq!(ExtCost::of(o), ExtCost::table(o), "{}", o);
                    }
                }
            }
        }
    }

    #[test]
    fn runtime_costs() {
        assert_eq!(
            call_cost(
                "indexOf",
                "string_index_of_string",
                &[Val::str("ta©o©αT"), Val::str("©")],
                &Val::Int(2)
            ),
            Some(1)
        );
        assert_eq!(
            call_cost(
                "sets.contains",
                "list_sets_contains_list",
                &[
                    Val::list(vec![Val::Int(1); 4]),
                    Val::list(vec![Val::Int(1); 2])
                ],
                &Val::Bool(true)
            ),
            Some(9)
        );
        assert_eq!(
            call_cost(
                "distinct",
                "list_distinct",
                &[Val::list(vec![Val::Int(1); 3])],
                &Val::Null
            ),
            Some(29)
        );
        assert_eq!(
            call_cost(
                "split",
                "string_split_string",
                &[Val::str("hello world events!")],
                &Val::Null
            ),
            Some(4)
        );
        assert_eq!(
            call_cost("size", "size_string", &[Val::str("x")], &Val::Int(1)),
            None
        );
    }

    #[test]
    fn estimates() {
        let lit = AstNode {
            path: vec![],
            ty: Type::list(Type::Int),
            expr: None,
            computed_size: Some(SizeEstimate::fixed(4)),
        };
        let e = estimate_call_cost(
            "isSorted",
            "list_int_is_sorted",
            Some(&lit),
            &[],
            None,
            CostModel::LATEST,
        )
        .unwrap();
        assert_eq!(e.cost, CostEstimate::fixed(4));
        let e = estimate_call_cost(
            "distinct",
            "list_distinct",
            Some(&lit),
            &[],
            None,
            CostModel::LATEST,
        )
        .unwrap();
        assert_eq!(e.cost, CostEstimate::fixed(2 * 16 + 11));
    }
}
