//! The static cost estimate of a checked expression: cel-go `checker/cost.go`
//! (`EstimateCost`) re-expressed over our checked AST, with the Kubernetes estimator
//! ([`crate::cel::library::cost`]) consulted for library calls and the size hints of the
//! variables ([`SizeHints`]; from a schema: [`crate::cel::schema_sizes`]).
//!
//! Arithmetic follows cel-go exactly: sums and products saturate at `u64::MAX`, cost
//! factors are applied in `f64` and rounded up, unknown sizes are `[0, u64::MAX]`.

use crate::cel::checker::Checked;
use crate::cel::hash::IdMap;
use crate::cel::cost_model::{
    compares_sized_operands, estimate_size_hint, AstNode, CallEstimate, CostEstimate, CostModel, SizeEstimate,
    SizeHints, LIST_CREATE_BASE_COST, MAP_CREATE_BASE_COST, REGEX_STRING_LENGTH_COST_FACTOR,
    STRING_TRAVERSAL_COST_FACTOR,
    STRUCT_CREATE_BASE_COST,
};
use crate::cel::types::Type;
use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};
use std::collections::HashMap;

/// Estimates the cost of a checked expression (cel-go `checker.Cost` with the Kubernetes
/// estimator, `has()` costing nothing as Kubernetes configures it).
pub fn estimate(checked: &Checked, hints: Option<&dyn SizeHints>) -> CostEstimate {
    estimate_inner(checked, hints, None)
}

/// What drove the cost of one node of the expression (recorded by [`estimate_traced`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceKind {
    /// A comprehension (a macro: `all`, `exists`, `map`, ...): it iterates over its range
    /// (`range_path`: the variable path it reads, empty when computed) at most
    /// `range_size.max` times, each iteration costing `per_iteration`.
    Comprehension {
        range_path: Vec<String>,
        range_size: SizeEstimate,
        per_iteration: CostEstimate,
    },
    /// A function or operator call: `cost` is the call itself (arguments excluded; for
    /// `&&`, `||` and `?:` the difference between the call and the sum of its arguments).
    Call {
        function: String,
        target_path: Vec<String>,
        arg_paths: Vec<Vec<String>>,
        cost: CostEstimate,
    },
}

/// The cost of one node of the expression, its subexpressions included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeTrace {
    pub id: u64,
    /// Nesting depth in the AST (the root is 1).
    pub depth: usize,
    /// How many comprehensions enclose the node (its cost is counted that many times over).
    pub loop_depth: usize,
    pub kind: TraceKind,
    pub total: CostEstimate,
}

/// [`estimate`], also returning the cost of every comprehension and call node, in the
/// order the estimator finished them (children before parents).
pub fn estimate_traced(
    checked: &Checked,
    hints: Option<&dyn SizeHints>,
) -> (CostEstimate, Vec<NodeTrace>) {
    let mut trace = Vec::new();
    let c = estimate_inner(checked, hints, Some(&mut trace));
    (c, trace)
}

fn estimate_inner(
    checked: &Checked,
    hints: Option<&dyn SizeHints>,
    trace: Option<&mut Vec<NodeTrace>>,
) -> CostEstimate {
    estimate_with_model(checked, hints, trace, CostModel::for_release(checked.release_minor))
}

fn estimate_with_model(
    checked: &Checked,
    hints: Option<&dyn SizeHints>,
    trace: Option<&mut Vec<NodeTrace>>,
    model: CostModel,
) -> CostEstimate {
    let mut c = Coster {
        checked,
        hints,
        paths: IdMap::default(),
        locals: Vec::new(),
        sizes: IdMap::default(),
        entry_sizes: IdMap::default(),
        presence_test_cost: CostEstimate::fixed(model.presence_test_cost()),
        depth: 0,
        trace: trace.is_some().then(Vec::new),
        loop_depth: 0,
        model,
        iter_ranges: HashMap::new(),
        paths_needed: hints.is_some() || trace.is_some(),
    };
    let r = c.cost(&checked.expr);
    if let (Some(t), Some(out)) = (c.trace.take(), trace) {
        *out = t;
    }
    r
}

// ------------------------------------------------------------------ the coster

const ACCUMULATOR: &str = "__result__";
const HIDDEN_ACCUMULATOR: &str = "@result";
/// Deeper than this the AST is not walked (the parser bounds nesting well below it).
const MAX_DEPTH: usize = 2_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    List,
    Map,
    Other,
}

#[derive(Clone, Copy, Debug)]
struct EntrySize {
    container: Kind,
    key: SizeEstimate,
    val: SizeEstimate,
}

fn union_entries(a: Option<EntrySize>, b: Option<EntrySize>) -> Option<EntrySize> {
    let (a, b) = (a?, b?);
    Some(EntrySize {
        container: a.container,
        key: a.key.union(b.key),
        val: a.val.union(b.val),
    })
}

#[derive(Clone, Debug)]
struct LocalVar {
    path: Vec<String>,
    size: Option<SizeEstimate>,
    entry: Option<EntrySize>,
}

struct Coster<'c> {
    checked: &'c Checked,
    hints: Option<&'c dyn SizeHints>,
    paths: IdMap<Vec<String>>,
    /// The local variables in scope (cel-go's `vars` stack per name), latest last: a name
    /// resolves to its latest entry, and leaving a scope drops that name's latest entry.
    /// A few entries at most, searched without hashing.
    locals: Vec<(String, LocalVar)>,
    sizes: IdMap<SizeEstimate>,
    entry_sizes: IdMap<EntrySize>,
    presence_test_cost: CostEstimate,
    depth: usize,
    /// Per-node costs, when tracing ([`estimate_traced`]).
    trace: Option<Vec<NodeTrace>>,
    loop_depth: usize,
    model: CostModel,
    /// Before cel-go v0.23 ([`CostModel::tracks_locals`]): the range expression (id) of each
    /// iteration variable in scope, innermost last (cel-go's `iterRanges`).
    iter_ranges: HashMap<String, Vec<u64>>,
    /// Whether variable paths are worth tracking: they only ever ask the size hints (and
    /// name what a trace reports), so without either every path is left empty.
    paths_needed: bool,
}

fn type_kind(t: &Type) -> Kind {
    match t {
        Type::List(_) => Kind::List,
        Type::Map(..) => Kind::Map,
        _ => Kind::Other,
    }
}

/// cel-go `isScalar`: types of a constant size. `optional(T)` of a scalar is one from
/// cel-go v0.23 (`optional` true).
fn is_scalar(t: &Type, optional: bool) -> bool {
    match t {
        Type::Bool | Type::Double | Type::Duration | Type::Int | Type::Timestamp | Type::Uint => {
            true
        }
        _ => match t.optional_elem() {
            Some(e) if optional => is_scalar(e, optional),
            _ => false,
        },
    }
}

/// cel-go `computeExprSize` (`astNode.ComputedSize` before v0.23): sizes known from the
/// expression itself. A string literal counts code points, or UTF-8 bytes before cel-go
/// #664 (`code_points` false).
fn expr_size(e: &IdedExpr, code_points: bool) -> Option<SizeEstimate> {
    let v = match &e.expr {
        Expr::Literal(l) => match l {
            LiteralValue::String(s) if code_points => s.inner().chars().count() as u64,
            LiteralValue::String(s) => s.inner().len() as u64,
            LiteralValue::Bytes(b) => b.inner().len() as u64,
            _ => 1,
        },
        Expr::List(l) => l.elements.len() as u64,
        Expr::Map(m) => m.entries.len() as u64,
        _ => return None,
    };
    Some(SizeEstimate::fixed(v))
}

impl<'c> Coster<'c> {
    fn ty(&self, e: &IdedExpr) -> Type {
        self.checked.type_of(e.id)
    }

    fn peek(&self, name: &str) -> Option<&LocalVar> {
        self.locals.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    fn push(&mut self, name: &str, v: LocalVar) {
        self.locals.push((name.to_string(), v));
    }

    fn pop(&mut self, name: &str) {
        if let Some(i) = self.locals.iter().rposition(|(n, _)| n == name) {
            self.locals.remove(i);
        }
    }

    fn get_path(&self, e: &IdedExpr) -> Vec<String> {
        if !self.paths_needed {
            return Vec::new();
        }
        if let Expr::Ident(n) = &e.expr {
            if let Some(v) = self.peek(n) {
                return v.path.clone();
            }
        }
        self.paths.get(&e.id).cloned().unwrap_or_default()
    }

    fn literal_size(&self, e: &IdedExpr) -> Option<SizeEstimate> {
        expr_size(e, self.model.string_literal_code_points())
    }

    fn compute_size(&mut self, e: &IdedExpr) -> Option<SizeEstimate> {
        if !self.model.tracks_locals() {
            return self.legacy_size(e);
        }
        if let Some(s) = self.computed(e) {
            return Some(s);
        }
        if let Some(s) = self.hint(e, |c| c.get_path(e)) {
            self.sizes.insert(e.id, s);
            return Some(s);
        }
        if is_scalar(&self.ty(e), true) {
            return Some(SizeEstimate::fixed(1));
        }
        if let Expr::Ident(n) = &e.expr {
            if let Some(v) = self.peek(n) {
                if let Some(s) = v.size {
                    return Some(s);
                }
            }
        }
        None
    }

    fn size_or_unknown(&mut self, e: &IdedExpr) -> SizeEstimate {
        self.compute_size(e).unwrap_or(SizeEstimate::unknown())
    }

    /// `astNode.ComputedSize`: a call's or comprehension's recorded result size, else the
    /// size of a literal.
    fn computed(&self, e: &IdedExpr) -> Option<SizeEstimate> {
        if let Some(s) = self.sizes.get(&e.id) {
            return Some(*s);
        }
        self.literal_size(e)
    }

    /// The size estimator's answer (the schema's size hints) for `e` reached by `path`
    /// (`path` made only when there are hints to ask: without, the answer is none).
    fn hint(&self, e: &IdedExpr, path: impl FnOnce(&Self) -> Vec<String>) -> Option<SizeEstimate> {
        self.hints?;
        let path = path(self);
        let node = AstNode {
            path,
            ty: self.ty(e),
            expr: Some(e),
            computed_size: None,
        };
        estimate_size_hint(self.hints, &node)
    }

    /// Before cel-go v0.23, `coster.sizeEstimate`: the computed size, else the estimator's
    /// (by the node's path), else 1 for scalar types.
    fn legacy_size(&self, e: &IdedExpr) -> Option<SizeEstimate> {
        if let Some(s) = self.computed(e) {
            return Some(s);
        }
        if let Some(s) = self.hint(e, |c| c.node_path(e)) {
            return Some(s);
        }
        if is_scalar(&self.ty(e), false) {
            return Some(SizeEstimate::fixed(1));
        }
        None
    }

    /// The path an `AstNode` reports: accumulator variables have none.
    fn node_path(&self, e: &IdedExpr) -> Vec<String> {
        let path = self.get_path(e);
        if path
            .first()
            .map(|p| p == ACCUMULATOR || p == HIDDEN_ACCUMULATOR)
            .unwrap_or(false)
        {
            return Vec::new();
        }
        path
    }

    /// The size cel-go's own call estimates read for an argument or target: the node's
    /// computed size (which from v0.23 already includes the estimator's and the type's),
    /// before v0.23 else the estimator's, else 1 for scalars.
    fn call_size(&self, n: &AstNode) -> SizeEstimate {
        if let Some(s) = n.computed_size {
            return s;
        }
        if self.model.tracks_locals() {
            return SizeEstimate::unknown();
        }
        if let Some(s) = estimate_size_hint(self.hints, n) {
            return s;
        }
        if is_scalar(&n.ty, false) {
            return SizeEstimate::fixed(1);
        }
        SizeEstimate::unknown()
    }

    fn compute_entry_size(&self, e: &IdedExpr) -> Option<EntrySize> {
        if let Some(s) = self.entry_sizes.get(&e.id) {
            return Some(*s);
        }
        if let Expr::Ident(n) = &e.expr {
            if let Some(v) = self.peek(n) {
                return v.entry;
            }
        }
        None
    }

    fn set_size(&mut self, e: &IdedExpr, s: Option<SizeEstimate>) {
        if let Some(s) = s {
            self.sizes.insert(e.id, s);
        }
    }

    fn set_entry_size(&mut self, e: &IdedExpr, s: Option<EntrySize>) {
        if let Some(s) = s {
            self.entry_sizes.insert(e.id, s);
        }
    }

    fn copy_size_estimates(&mut self, dst: &IdedExpr, src: &IdedExpr) {
        let s = self.compute_size(src);
        self.set_size(dst, s);
        let en = self.compute_entry_size(src);
        self.set_entry_size(dst, en);
    }

    fn new_node<'e>(&mut self, e: &'e IdedExpr) -> AstNode<'e> {
        let path = self.node_path(e);
        let computed_size = if self.model.tracks_locals() {
            self.compute_size(e)
        } else {
            self.computed(e)
        };
        AstNode {
            path,
            ty: self.ty(e),
            expr: Some(e),
            computed_size,
        }
    }

    fn cost(&mut self, e: &IdedExpr) -> CostEstimate {
        if self.depth > MAX_DEPTH {
            return CostEstimate::default();
        }
        self.depth += 1;
        let c = match &e.expr {
            Expr::Literal(_) => CostEstimate::fixed(0),
            Expr::Ident(_) if !self.paths_needed => CostEstimate::fixed(1),
            Expr::Ident(n) => {
                let path = if self.model.tracks_locals() {
                    match self.peek(n) {
                        Some(v) => v.path.clone(),
                        None => vec![n.clone()],
                    }
                } else {
                    self.legacy_ident_path(n)
                };
                self.paths.insert(e.id, path);
                CostEstimate::fixed(1)
            }
            Expr::Select(sel) => {
                if sel.test && !self.model.presence_test_costs_operand() {
                    // cel-go v0.12 `costSelect`: a presence test costs nothing, and its
                    // operand is not walked.
                    CostEstimate::fixed(0)
                } else if sel.test {
                    let c = self.cost(&sel.operand);
                    self.presence_test_cost.add(c)
                } else {
                    let mut sum = self.cost(&sel.operand);
                    if matches!(
                        self.ty(&sel.operand),
                        Type::Map(..) | Type::Object(_) | Type::Param(_)
                    ) {
                        sum = sum.add(CostEstimate::fixed(1));
                    }
                    if self.paths_needed {
                        let mut p = self.get_path(&sel.operand);
                        p.push(sel.field.clone());
                        self.paths.insert(e.id, p);
                    }
                    sum
                }
            }
            Expr::Call(call) => self.cost_call(e, call),
            Expr::List(list) => {
                let mut sum = CostEstimate::default();
                let mut item = SizeEstimate {
                    min: u64::MAX,
                    max: 0,
                };
                if list.elements.is_empty() {
                    item.min = 0;
                }
                for el in &list.elements {
                    sum = sum.add(self.cost(el));
                    if self.model.tracks_locals() {
                        let s = self.size_or_unknown(el);
                        item = item.union(s);
                    }
                }
                if self.model.tracks_locals() {
                    self.entry_sizes.insert(
                        e.id,
                        EntrySize {
                            container: Kind::List,
                            key: SizeEstimate::fixed(1),
                            val: item,
                        },
                    );
                }
                sum.add(CostEstimate::fixed(LIST_CREATE_BASE_COST))
            }
            Expr::Map(map) => {
                let mut sum = CostEstimate::default();
                let mut ks = SizeEstimate {
                    min: u64::MAX,
                    max: 0,
                };
                let mut vs = SizeEstimate {
                    min: u64::MAX,
                    max: 0,
                };
                if map.entries.is_empty() {
                    ks.min = 0;
                    vs.min = 0;
                }
                for en in &map.entries {
                    if let EntryExpr::MapEntry(me) = &en.expr {
                        sum = sum.add(self.cost(&me.key));
                        sum = sum.add(self.cost(&me.value));
                        if self.model.tracks_locals() {
                            let k = self.size_or_unknown(&me.key);
                            ks = ks.union(k);
                            let v = self.size_or_unknown(&me.value);
                            vs = vs.union(v);
                        }
                    }
                }
                if self.model.tracks_locals() {
                    self.entry_sizes.insert(
                        e.id,
                        EntrySize {
                            container: Kind::Map,
                            key: ks,
                            val: vs,
                        },
                    );
                }
                sum.add(CostEstimate::fixed(MAP_CREATE_BASE_COST))
            }
            Expr::Struct(st) => {
                let mut sum = CostEstimate::default();
                for en in &st.entries {
                    if let EntryExpr::StructField(f) = &en.expr {
                        sum = sum.add(self.cost(&f.value));
                    }
                }
                sum.add(CostEstimate::fixed(STRUCT_CREATE_BASE_COST))
            }
            Expr::Comprehension(comp) => {
                if !self.model.tracks_locals() {
                    self.cost_legacy_comprehension(e, comp)
                } else if is_bind(comp) {
                    self.cost_bind(e, comp)
                } else {
                    self.cost_comprehension(e, comp)
                }
            }
            Expr::Unspecified => CostEstimate::default(),
        };
        self.depth -= 1;
        c
    }

    fn push_local(&mut self, name: &str, e: &IdedExpr) {
        let path = self.get_path(e);
        let entry = self.compute_entry_size(e);
        let size = self.compute_size(e);
        self.push(name, LocalVar { path, size, entry });
    }

    /// Pushes a comprehension variable: `which` is 0 for a single variable, 1 for the key
    /// (index) and 2 for the value of a two-variable comprehension.
    fn push_iter(&mut self, name: &str, range: &IdedExpr, which: u8) {
        let entry = self.compute_entry_size(range);
        let container = match entry {
            Some(en) => en.container,
            None => type_kind(&self.ty(range)),
        };
        let (size, sub) = match which {
            1 => (
                entry.map(|e| e.key),
                if container == Kind::List {
                    "@indices"
                } else {
                    "@keys"
                },
            ),
            2 => (
                entry.map(|e| e.val),
                if container == Kind::List {
                    "@items"
                } else {
                    "@values"
                },
            ),
            _ => {
                if container == Kind::List {
                    (entry.map(|e| e.val), "@items")
                } else {
                    (entry.map(|e| e.key), "@keys")
                }
            }
        };
        let mut path = self.get_path(range);
        if self.paths_needed {
            path.push(sub.to_string());
        }
        self.push(
            name,
            LocalVar {
                path,
                size,
                entry: None,
            },
        );
    }

    fn cost_comprehension(
        &mut self,
        e: &IdedExpr,
        comp: &cel::common::ast::ComprehensionExpr,
    ) -> CostEstimate {
        let mut sum = self.cost(&comp.iter_range);
        sum = sum.add(self.cost(&comp.accu_init));
        self.push_local(&comp.accu_var, &comp.accu_init);
        match &comp.iter_var2 {
            Some(v2) => {
                self.push_iter(&comp.iter_var, &comp.iter_range, 1);
                self.push_iter(v2, &comp.iter_range, 2);
            }
            None => self.push_iter(&comp.iter_var, &comp.iter_range, 0),
        }
        self.loop_depth += 1;
        let loop_cost = self.cost(&comp.loop_cond);
        let step_cost = self.cost(&comp.loop_step);
        self.loop_depth -= 1;
        self.pop(&comp.iter_var);
        if let Some(v2) = &comp.iter_var2 {
            self.pop(v2);
        }
        sum = sum.add(self.cost(&comp.result));
        self.pop(&comp.accu_var);
        let range_cnt = self.size_or_unknown(&comp.iter_range);
        sum = sum.add(range_cnt.multiply_by_cost(step_cost.add(loop_cost)));
        if self.trace.is_some() {
            let range_path = self.get_path(&comp.iter_range);
            let t = NodeTrace {
                id: e.id,
                depth: self.depth,
                loop_depth: self.loop_depth,
                kind: TraceKind::Comprehension {
                    range_path,
                    range_size: range_cnt,
                    per_iteration: step_cost.add(loop_cost),
                },
                total: sum,
            };
            if let Some(tr) = self.trace.as_mut() {
                tr.push(t);
            }
        }
        match &comp.accu_init.expr {
            Expr::Literal(_) => {
                let s = self.compute_size(&comp.accu_init);
                self.set_size(e, s);
            }
            Expr::List(_) | Expr::Map(_) => {
                self.set_size(e, Some(range_cnt));
                let step_entry = self.compute_entry_size(&comp.loop_step);
                self.set_entry_size(e, step_entry);
            }
            _ => {}
        }
        sum
    }

    /// Before cel-go v0.23 (`costIdent`): an iteration variable's path is its range's path
    /// followed by `@items` (a list range) or `@keys` (a map range), and none for a range of
    /// another type; any other identifier's path is its name.
    fn legacy_ident_path(&self, name: &str) -> Vec<String> {
        let Some(range) = self.iter_ranges.get(name).and_then(|v| v.last()) else {
            return vec![name.to_string()];
        };
        let sub = match type_kind(&self.checked.type_of(*range)) {
            Kind::List => "@items",
            Kind::Map => "@keys",
            Kind::Other => return Vec::new(),
        };
        let mut p = self.paths.get(range).cloned().unwrap_or_default();
        p.push(sub.to_string());
        p
    }

    /// cel-go v0.12 to v0.22 `costComprehension`: every comprehension (bindings too) is
    /// its range, accumulator init and result plus the range size times the loop step and
    /// condition; only the (first) iteration variable is tracked, by its range. From
    /// v0.17.8 the comprehension's result has the range's size.
    fn cost_legacy_comprehension(
        &mut self,
        e: &IdedExpr,
        comp: &cel::common::ast::ComprehensionExpr,
    ) -> CostEstimate {
        let mut sum = self.cost(&comp.iter_range);
        sum = sum.add(self.cost(&comp.accu_init));
        self.iter_ranges
            .entry(comp.iter_var.clone())
            .or_default()
            .push(comp.iter_range.id);
        self.loop_depth += 1;
        let loop_cost = self.cost(&comp.loop_cond);
        let step_cost = self.cost(&comp.loop_step);
        self.loop_depth -= 1;
        if let Some(v) = self.iter_ranges.get_mut(&comp.iter_var) {
            v.pop();
        }
        sum = sum.add(self.cost(&comp.result));
        let range_cnt = self
            .legacy_size(&comp.iter_range)
            .unwrap_or(SizeEstimate::unknown());
        if self.model.comprehension_result_has_range_size() {
            self.sizes.insert(e.id, range_cnt);
        }
        sum = sum.add(range_cnt.multiply_by_cost(step_cost.add(loop_cost)));
        if self.trace.is_some() {
            let t = NodeTrace {
                id: e.id,
                depth: self.depth,
                loop_depth: self.loop_depth,
                kind: TraceKind::Comprehension {
                    range_path: self.get_path(&comp.iter_range),
                    range_size: range_cnt,
                    per_iteration: step_cost.add(loop_cost),
                },
                total: sum,
            };
            if let Some(tr) = self.trace.as_mut() {
                tr.push(t);
            }
        }
        sum
    }

    fn cost_bind(
        &mut self,
        e: &IdedExpr,
        comp: &cel::common::ast::ComprehensionExpr,
    ) -> CostEstimate {
        let mut sum = self.cost(&comp.iter_range);
        sum = sum.add(self.cost(&comp.accu_init));
        self.push_local(&comp.accu_var, &comp.accu_init);
        sum = sum.add(self.cost(&comp.result));
        self.pop(&comp.accu_var);
        self.copy_size_estimates(e, &comp.result);
        sum
    }

    fn cost_call(&mut self, e: &IdedExpr, call: &cel::common::ast::CallExpr) -> CostEstimate {
        // Borrowed from the checked expression, not from the coster.
        let checked = self.checked;
        let qualified = checked.qualified.get(&e.id);
        let fname: &str = qualified.map(String::as_str).unwrap_or(&call.func_name);
        let member = call.target.is_some() && qualified.is_none();
        // `dyn(x)` passes x's sizes through from cel-go v0.23; before, it is an ordinary
        // call of default cost 1 whose result has no size.
        if self.model.tracks_locals() && fname == "dyn" && !member && call.args.len() == 1 {
            let arg = &call.args[0];
            let c = self.cost(arg);
            self.copy_size_estimates(e, arg);
            return CostEstimate::fixed(1).add(c);
        }
        let mut arg_costs = Vec::with_capacity(call.args.len());
        let mut arg_nodes = Vec::with_capacity(call.args.len());
        for a in &call.args {
            arg_costs.push(self.cost(a));
            arg_nodes.push(self.new_node(a));
        }
        let overloads: &[&'static str] = match checked.overloads.get(&e.id) {
            Some(o) if !o.is_empty() => o,
            _ if call.func_name == "_?._" => &["select_optional_field"],
            _ => return CostEstimate::default(),
        };
        let mut sum = CostEstimate::default();
        let mut target_node = None;
        if member {
            if let Some(t) = call.target.as_deref() {
                sum = sum.add(self.cost(t));
                target_node = Some(self.new_node(t));
            }
        }
        let mut fn_cost = CostEstimate {
            min: u64::MAX,
            max: 0,
        };
        let mut result_size: Option<SizeEstimate> = None;
        for &o in overloads {
            let est = self.function_cost(
                e,
                fname,
                o,
                target_node.as_ref(),
                &arg_nodes,
                &arg_costs,
                &call.args,
            );
            fn_cost = fn_cost.union(est.cost);
            if let Some(rs) = est.result_size {
                result_size = Some(match result_size {
                    None => rs,
                    Some(prev) => prev.union(rs),
                });
            }
            if (o == "index_list" || o == "index_map") && !call.args.is_empty() {
                if self.model.tracks_locals() {
                    result_size = self.compute_entry_size(&call.args[0]).map(|en| en.val);
                }
                if self.paths_needed {
                    let mut p = self.get_path(&call.args[0]);
                    p.push(
                        if o == "index_list" {
                            "@items"
                        } else {
                            "@values"
                        }
                        .to_string(),
                    );
                    self.paths.insert(e.id, p);
                }
            }
            if result_size.is_none() && self.model.tracks_locals() {
                result_size = self.compute_size(e);
            }
        }
        self.set_size(e, result_size);
        if self.trace.is_some() {
            let total = sum.add(fn_cost);
            let args = arg_costs
                .iter()
                .fold(CostEstimate::default(), |a, c| a.add(*c));
            let own = CostEstimate {
                min: fn_cost.min.saturating_sub(args.min),
                max: fn_cost.max.saturating_sub(args.max),
            };
            let t = NodeTrace {
                id: e.id,
                depth: self.depth,
                loop_depth: self.loop_depth,
                kind: TraceKind::Call {
                    function: fname.to_string(),
                    target_path: target_node
                        .as_ref()
                        .map(|n| n.path.clone())
                        .unwrap_or_default(),
                    arg_paths: arg_nodes.iter().map(|n| n.path.clone()).collect(),
                    cost: own,
                },
                total,
            };
            if let Some(tr) = self.trace.as_mut() {
                tr.push(t);
            }
        }
        sum.add(fn_cost)
    }

    #[allow(clippy::too_many_arguments)]
    fn function_cost(
        &mut self,
        e: &IdedExpr,
        function: &str,
        overload: &str,
        target: Option<&AstNode>,
        args: &[AstNode],
        arg_costs: &[CostEstimate],
        arg_exprs: &[IdedExpr],
    ) -> CallEstimate {
        let arg_sum = arg_costs
            .iter()
            .fold(CostEstimate::default(), |s, c| s.add(*c));
        if let Some(est) = crate::cel::library::cost::estimate_call_cost(
            function, overload, target, args, self.hints, self.model,
        ) {
            return CallEstimate {
                cost: est.cost.add(arg_sum),
                // cel-go's `functionCost` before google/cel-go#787 drops the estimator's
                // result size.
                result_size: est.result_size.filter(|_| self.model.library_result_sizes()),
            };
        }
        // The sizes cel-go's own estimates read (`sizeOrUnknown` / `sizeEstimate`).
        let target_size = target.map(|t| self.call_size(t));
        let arg_size: Vec<SizeEstimate> = args.iter().map(|n| self.call_size(n)).collect();
        let trav = STRING_TRAVERSAL_COST_FACTOR;
        match overload {
            "string_format" => {
                if let Some(t) = target_size {
                    return CallEstimate::cost(t.multiply_by_cost_factor(trav).add(arg_sum));
                }
            }
            "string_to_bytes" if args.len() == 1 => {
                let sz = arg_size[0];
                return CallEstimate {
                    cost: sz.multiply_by_cost_factor(trav).add(arg_sum),
                    result_size: self.model.library_result_sizes().then_some(SizeEstimate {
                        min: sz.min,
                        max: sz.max.wrapping_mul(4),
                    }),
                };
            }
            "bytes_to_string" if args.len() == 1 => {
                let sz = arg_size[0];
                return CallEstimate {
                    cost: sz.multiply_by_cost_factor(trav).add(arg_sum),
                    result_size: self.model.library_result_sizes().then_some(SizeEstimate {
                        min: sz.min / 4,
                        max: sz.max,
                    }),
                };
            }
            "strings_quote" if args.len() == 1 => {
                let sz = arg_size[0];
                return CallEstimate {
                    cost: sz.multiply_by_cost_factor(trav).add(arg_sum),
                    result_size: Some(SizeEstimate {
                        min: sz.min.wrapping_add(2),
                        max: sz.max.wrapping_mul(2).wrapping_add(2),
                    }),
                };
            }
            "starts_with_string" | "ends_with_string" if args.len() == 1 => {
                return CallEstimate::cost(arg_size[0].multiply_by_cost_factor(trav).add(arg_sum));
            }
            "in_list" if args.len() == 2 => {
                return CallEstimate::cost(arg_size[1].multiply_by_cost_factor_at(1.0, self.model).add(arg_sum));
            }
            "matches_string" => {
                if let (Some(t), 1) = (target_size, args.len()) {
                    let s = t.add(SizeEstimate::fixed(1)).multiply_by_cost_factor(trav);
                    let r = arg_size[0].multiply_by_cost_factor(REGEX_STRING_LENGTH_COST_FACTOR);
                    return CallEstimate::cost(s.multiply(r).add(arg_sum));
                }
            }
            "contains_string" => {
                if let (Some(t), 1) = (target_size, args.len()) {
                    let s = t.multiply_by_cost_factor(trav);
                    let sub = arg_size[0].multiply_by_cost_factor(trav);
                    return CallEstimate::cost(s.multiply(sub).add(arg_sum));
                }
            }
            "logical_or" | "logical_and" if arg_costs.len() == 2 => {
                let (l, r) = (arg_costs[0], arg_costs[1]);
                return CallEstimate::cost(CostEstimate {
                    min: l.min,
                    max: l.add(r).max,
                });
            }
            "conditional" if arg_costs.len() == 3 => {
                let size = arg_size[1].union(arg_size[2]);
                let en = union_entries(
                    self.compute_entry_size(&arg_exprs[1]),
                    self.compute_entry_size(&arg_exprs[2]),
                );
                self.set_entry_size(e, en);
                let c = arg_costs[0].add(arg_costs[1].union(arg_costs[2]));
                return CallEstimate {
                    cost: c,
                    result_size: Some(size),
                };
            }
            "add_string" | "add_bytes" | "add_list" if args.len() == 2 => {
                let rs = arg_size[0].add(arg_size[1]);
                let en = union_entries(
                    self.compute_entry_size(&arg_exprs[0]),
                    self.compute_entry_size(&arg_exprs[1]),
                );
                self.set_entry_size(e, en);
                let c = if overload == "add_list" {
                    CostEstimate::fixed(1).add(arg_sum)
                } else {
                    rs.multiply_by_cost_factor(trav).add(arg_sum)
                };
                return CallEstimate {
                    cost: c,
                    result_size: Some(rs),
                };
            }
            id if compares_sized_operands(id) && args.len() == 2 =>
            {
                let smallest = arg_size[0].max.min(arg_size[1].max);
                let min = if smallest > 0 { 1 } else { 0 };
                return CallEstimate::cost(
                    CostEstimate { min, max: smallest }
                        .multiply_by_cost_factor(trav)
                        .add(arg_sum),
                );
            }
            _ => {}
        }
        CallEstimate::cost(CostEstimate::fixed(1).add(arg_sum))
    }
}

/// cel-go `isBind`: `cel.bind` (and the macros built like it) — an empty range, a false
/// loop condition and an accumulator other than `__result__`.
fn is_bind(c: &cel::common::ast::ComprehensionExpr) -> bool {
    matches!(&c.iter_range.expr, Expr::List(l) if l.elements.is_empty())
        && matches!(&c.loop_cond.expr, Expr::Literal(LiteralValue::Boolean(b)) if !*b.inner())
        && c.accu_var != ACCUMULATOR
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cel::cost_model::*;
    use crate::cel::schema_sizes::*;
    use crate::schema::cel::compile::{compile_rules, RuleTree};
    use crate::crd::model::{JsonSchemaProps, SchemaOrBool};
    use serde_json::Value;
    use std::path::PathBuf;

    fn shared() -> Option<PathBuf> {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared");
        if p.join("vectors").is_dir() {
            Some(p)
        } else {
            None
        }
    }

    enum Step {
        Property(String),
        Items,
        Additional,
    }

    /// `openAPIV3Schema.properties[a.b].items.x-kubernetes-validations[2]` → steps, rule index.
    fn parse_schema_path(p: &str) -> Option<(Vec<Step>, usize)> {
        let mut rest = p.strip_prefix("openAPIV3Schema")?;
        let mut steps = Vec::new();
        loop {
            rest = rest.strip_prefix('.')?;
            if let Some(r) = rest.strip_prefix("properties[") {
                let end = r.find(']')?;
                steps.push(Step::Property(r[..end].to_string()));
                rest = &r[end + 1..];
            } else if let Some(r) = rest.strip_prefix("items") {
                steps.push(Step::Items);
                rest = r;
            } else if let Some(r) = rest.strip_prefix("additionalProperties") {
                steps.push(Step::Additional);
                rest = r;
            } else if let Some(r) = rest.strip_prefix("x-kubernetes-validations[") {
                let end = r.find(']')?;
                return Some((steps, r[..end].parse().ok()?));
            } else {
                return None;
            }
        }
    }

    /// (maxCost, maxCardinality, estimatedCost) of one rule, `None` when it does not compile.
    fn rule_costs(
        schema: &JsonSchemaProps,
        tree: &RuleTree,
        path: &str,
    ) -> Option<(u64, u64, u64)> {
        let (steps, idx) = parse_schema_path(path)?;
        let mut node = schema;
        let mut t = tree;
        let mut ancestors: Vec<&JsonSchemaProps> = Vec::new();
        for s in &steps {
            ancestors.push(node);
            match s {
                Step::Property(n) => {
                    node = node.properties.get(n)?;
                    t = t.properties.get(n)?;
                }
                Step::Items => {
                    node = node.items_schema()?;
                    t = t.items.as_deref()?;
                }
                Step::Additional => {
                    node = match &node.additional_properties {
                        Some(SchemaOrBool::Schema(a)) => a,
                        _ => return None,
                    };
                    t = t.additional.as_deref()?;
                }
            }
        }
        let root = steps.is_empty() || node.x_embedded_resource;
        let program = t.rules.get(idx)?.program.as_ref()?;
        let c = rule_cost(&program.checked, node, &ancestors, root);
        Some((c.max_cost, c.max_cardinality, c.estimated_cost))
    }

    /// Compares every compile-only vector of a source; returns (agreeing, total, report).
    fn compare_source(source: &str) -> (usize, usize, Vec<String>) {
        let Some(sh) = shared() else {
            return (0, 0, Vec::new());
        };
        let mut ok = 0;
        let mut total = 0;
        let mut report = Vec::new();
        let Ok(dir) = std::fs::read_dir(sh.join("vectors").join(source)) else {
            return (0, 0, report);
        };
        let mut files: Vec<_> = dir.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        files.sort();
        for f in files {
            let Ok(text) = std::fs::read_to_string(&f) else {
                continue;
            };
            for line in text.lines() {
                let Ok(v) = serde_json::from_str::<Value>(line) else {
                    continue;
                };
                let Some(rules) = v["expect"]["rules"].as_array() else {
                    continue;
                };
                if v["request"].get("object").is_some() {
                    continue;
                }
                let Some(crd_file) = v["request"]["crdFile"].as_str() else {
                    continue;
                };
                let Ok(crd_text) = std::fs::read_to_string(sh.join("crds").join(crd_file)) else {
                    continue;
                };
                let Ok(crd_json) = crate::text::crd_document::parse_crd_text(&crd_text) else {
                    continue;
                };
                let Ok(crd) = crate::crd::load::decode_crd(&crd_json) else {
                    continue;
                };
                let kube = v["request"]["kubernetesVersion"]
                    .as_str()
                    .and_then(|k| crate::version::KubeVersion::parse(k).ok())
                    .unwrap_or_default();
                let version = v["request"]["version"].as_str();
                let Some((_, ver)) = crd.version(version) else {
                    continue;
                };
                let Some(schema) = ver
                    .schema
                    .as_ref()
                    .and_then(|s| s.open_api_v3_schema.as_deref())
                else {
                    continue;
                };
                let opts = crate::cel::env::EnvOptions::for_version(kube.minor.saturating_sub(1));
                let set = compile_rules(schema, &opts);
                for r in rules {
                    let expected = (
                        r["maxCost"].as_u64().unwrap_or(0),
                        r["maxCardinality"].as_u64().unwrap_or(0),
                        r["estimatedCost"].as_u64().unwrap_or(0),
                    );
                    let path = r["schemaPath"].as_str().unwrap_or("");
                    let got = rule_costs(schema, &set.tree, path).unwrap_or((0, 0, 0));
                    total += 1;
                    if got == expected {
                        ok += 1;
                    } else {
                        report.push(format!(
                            "{} {} {:?}: expected {:?}, got {:?}",
                            v["id"].as_str().unwrap_or(""),
                            path,
                            r["rule"].as_str().unwrap_or(""),
                            expected,
                            got
                        ));
                    }
                }
            }
        }
        (ok, total, report)
    }

    #[test]
    fn handmade_rule_costs() {
        let (ok, total, report) = compare_source("handmade");
        for r in &report {
            eprintln!("{}", r);
        }
        assert_eq!(
            ok,
            total,
            "{} of {} handmade rules disagree",
            total - ok,
            total
        );
    }

    /// Figures for every CRD source: `cargo test --release -p crdlab --lib cel::cost -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn all_sources_rule_costs() {
        for s in [
            "handmade",
            "etcd-druid",
            "postgres-operator",
            "openshift-api",
        ] {
            let (ok, total, report) = compare_source(s);
            for r in report.iter().take(40) {
                eprintln!("{}", r);
            }
            eprintln!("{}: {}/{}", s, ok, total);
        }
    }

    #[test]
    fn cost_factor_rounding_matches_go() {
        assert_eq!(
            multiply_by_cost_factor(u64::MAX, 0.1),
            1_844_674_407_370_955_264
        );
        assert_eq!(multiply_by_cost_factor(7, 0.1), 1);
        assert_eq!(multiply_by_cost_factor(0, 0.1), 0);
        assert_eq!(multiply_by_cost_factor(3_145_726, 0.1), 314_573);
    }

    #[test]
    fn unguarded_cost_factor_converts_as_go_on_amd64() {
        use crate::cel::cost_model::multiply_by_cost_factor_unguarded as unguarded;
        // Below 2^63 the same as the guarded product; from 2^64 on, 2^63 (cel-go v0.16).
        assert_eq!(unguarded(3_145_726, 0.1), 314_573);
        assert_eq!(unguarded(u64::MAX, 0.1), 1_844_674_407_370_955_264);
        assert_eq!(unguarded(1 << 63, 1.0), 1 << 63);
        assert_eq!(unguarded(u64::MAX, 1.0), 1 << 63);
        assert_eq!(unguarded(u64::MAX, 50.0), 1 << 63);
        assert_eq!(multiply_by_cost_factor(u64::MAX, 1.0), u64::MAX);
    }

    fn est(expr: &str) -> (u64, u64) {
        let opts = crate::cel::env::EnvOptions::for_version(35);
        let env = crate::cel::environment::base_env(&opts);
        let p = crate::cel::compile::compile(env, expr).expect("compiles");
        let e = estimate(&p.checked, None);
        (e.min, e.max)
    }

    #[test]
    fn expression_estimates() {
        assert_eq!(est("[1,2,3,4].isSorted()"), (14, 14));
        assert_eq!(
            est("['a', 'b', 'c'].join() == 'abc'"),
            (11, 1_844_674_407_370_955_275)
        );
        assert_eq!(
            est("[1, 2].exists(x, x > 1)"),
            (10 + 1 + 2 * 4, 10 + 1 + 2 * 6)
        );
    }

    /// The estimated maximum cost (`maxCost`) of `rule` placed on the root of `schema` (a
    /// new rule, compiled in release `release`'s new-expressions environment).
    fn root_rule_cost(release: u32, mut schema: Value, rule: &str) -> u64 {
        schema["x-kubernetes-validations"] = serde_json::json!([{ "rule": rule }]);
        let s: JsonSchemaProps = serde_json::from_value(schema).expect("schema");
        let set = compile_rules(&s, &crate::cel::env::EnvOptions::for_version(release - 1));
        let r = &set.tree.rules[0];
        assert_eq!(r.error, None, "{} on 1.{}", rule, release);
        r.cost.expect("costed").max_cost
    }

    fn object(props: Value) -> Value {
        serde_json::json!({"type": "object", "properties": props})
    }

    #[test]
    fn presence_test_cost_per_release() {
        let s = object(serde_json::json!({"a": {"type": "string"}}));
        // 1.27, cel-go v0.12.7 (`costSelect`: a test-only select returns the zero
        // estimate at once, without costing its operand): 0.
        assert_eq!(root_rule_cost(27, s.clone(), "has(self.a)"), 0);
        // 1.28, cel-go v0.16 (google/cel-go#711): the operand `self` (1) and the presence
        // test's own 1: 2.
        assert_eq!(root_rule_cost(28, s.clone(), "has(self.a)"), 2);
        // 1.29+, cel-go v0.17.7+ with `PresenceTestHasCost(false)`: `costSelect` adds the
        // presence cost (0) and the operand `self` (identifier, 1): 1 (Kubernetes'
        // TestCelEstimatedCostStability also expects `has(self.val1)`: 1).
        assert_eq!(root_rule_cost(29, s.clone(), "has(self.a)"), 1);
        assert_eq!(root_rule_cost(36, s, "has(self.a)"), 1);
    }

    #[test]
    fn comprehension_result_size_per_release() {
        let s = object(serde_json::json!({
            "l": {"type": "array", "maxItems": 10, "items": {"type": "boolean"}}
        }));
        let rule = "self.l.map(x, x).all(y, y)";
        // The map(): range `self.l` 2 (ident 1 + select 1), accumulator `[]` 10, condition
        // `true` 0, step `@result + [x]` = add_list 1 + `@result` 1 + `[x]` (10 + x 1) = 13,
        // result `@result` 1, 10 iterations (maxItems): 2 + 10 + 1 + 10 × 13 = 143.
        // The all() over it: range 143, accumulator `true` 0, result 1, per iteration the
        // condition `@not_strictly_false(@result)` 2 and the step `@result && y` 2 (max).
        // 1.30 (cel-go v0.17.8, google/cel-go#902: `computedSizes[comprehension] = rangeCnt`)
        // sizes the map() result 10: 143 + 0 + 1 + 10 × 4 = 184.
        assert_eq!(root_rule_cost(30, s.clone(), rule), 184);
        // 1.28 (cel-go v0.16, before #901): the map() result has no size, the all() runs
        // an unknown number of times: the estimate saturates.
        assert_eq!(root_rule_cost(28, s.clone(), rule), u64::MAX);
        // 1.33+ (v0.23: a list accumulator gives the range size) agrees with 1.30.
        assert_eq!(root_rule_cost(33, s, rule), 184);
    }

    #[test]
    fn local_variables_per_release() {
        let s = object(serde_json::json!({"a": {"type": "string"}}));
        let rule = "optional.of('a').optMap(v, v == 'value').hasValue()";
        // optMap expands to `optional.of('a').hasValue() ? optional.of(<fold over [] with
        // accumulator v = optional.of('a').value(), result v == 'value'>) : optional.none()`.
        // Common to both: the condition 2 (optional.of 1 + hasValue 1), the fold's range
        // `[]` 10, accumulator init 2, zero iterations, optional.of around it 1,
        // optional.none() 1, the outer hasValue() 1, and `v` itself 1.
        // 1.32 (cel-go v0.22 coster: identifiers other than iteration variables are looked
        // up by name): `v` has path [v], which the apiextensions size estimator resolves to
        // the rule's node itself, an object of size 0: `v == 'value'` costs
        // min(0, 5) × 0.1 = 0, plus `v` 1 = 1; fold 10 + 2 + 1 = 13; total
        // 2 + (1 + 13) + 1 = 17.
        assert_eq!(root_rule_cost(32, s.clone(), rule), 17);
        // 1.33 (cel-go v0.23.2, google/cel-go#1104: `v` is a local variable whose path is
        // that of its init, a call with none, and whose size is unknown): `v == 'value'`
        // costs ceil(min(2^64-1, 5) × 0.1) = 1, plus `v` 1 = 2; total 18 — the 17 → 18 of
        // kubernetes#129844's TestCelEstimatedCostStability.
        assert_eq!(root_rule_cost(33, s.clone(), rule), 18);
        assert_eq!(root_rule_cost(36, s, rule), 18);
    }

    #[test]
    fn dyn_size_per_release() {
        let s = object(serde_json::json!({"s": {"type": "string", "maxLength": 10}}));
        let rule = "dyn(self.s) + 'a' == 'b'";
        // `self.s` costs 2 and is 40 long (maxLength 10 × 4). `==` costs
        // ceil(min(size(lhs), 1) × 0.1) = 1 plus its arguments; `'a'`/`'b'` cost 0.
        // 1.33+ (cel-go v0.23 `maybeUnwrapDynCall`): dyn() costs 1 + 2 and keeps the size
        // 40; add_string costs ceil((40 + 1) × 0.1) = 5 plus 3: 8; total 1 + 8 = 9.
        assert_eq!(root_rule_cost(33, s.clone(), rule), 9);
        // 1.32 (cel-go v0.22): dyn() is an ordinary call (default cost 1 + 2 = 3) without a
        // result size, so add_string's size is unknown + 1 (saturating): its cost is
        // ceil((2^64-1) × 0.1) = 1844674407370955264 plus 3; `==` adds 1.
        assert_eq!(
            root_rule_cost(32, s, rule),
            1_844_674_407_370_955_264 + 3 + 1
        );
    }

    #[test]
    fn string_literal_size_per_release() {
        let s = object(serde_json::json!({"s": {"type": "string", "maxLength": 100}}));
        // 20 × 'é': 20 code points, 40 UTF-8 bytes. `==` costs
        // ceil(min(400, size(literal)) × 0.1) plus `self.s` 2.
        let rule = format!("self.s == '{}'", "é".repeat(20));
        // 1.27 (cel-go v0.12.7 `ComputedSize`: `len(StringValue)`, bytes): 4 + 2 = 6.
        assert_eq!(root_rule_cost(27, s.clone(), &rule), 6);
        // 1.28+ (google/cel-go#664: `len([]rune(...))`): 2 + 2 = 4.
        assert_eq!(root_rule_cost(28, s, &rule), 4);
    }

    #[test]
    fn kubernetes_type_equality_per_release() {
        let s = object(serde_json::json!({"q": {"type": "string", "maxLength": 10}}));
        let rule = "quantity(self.q) == quantity('1')";
        // quantity(self.q): size 40 × 0.1 = 4, plus `self.q` 2: 6; quantity('1'):
        // ceil(1 × 0.1) = 1.
        // 1.32+ (kubernetes#126359, `_==_` on Quantity): 1 + 6 + 1 = 8.
        assert_eq!(root_rule_cost(32, s.clone(), rule), 8);
        // 1.31 (library/cost.go without `_==_`): cel-go's default equality,
        // ceil(min(size, size) × 0.1) with both sizes unknown: 1844674407370955264 + 7.
        assert_eq!(root_rule_cost(31, s, rule), 1_844_674_407_370_955_264 + 7);
    }

    #[test]
    fn enum_string_length_per_release() {
        let s = object(serde_json::json!({
            "e": {"type": "string", "enum": ["aa", "bbbbbb"]}
        }));
        let rule = "self.e.contains('a')";
        // contains: ceil(size(self.e) × 0.1) × ceil(1 × 0.1), plus `self.e` 2.
        // 1.29+ (kubernetes#121085: the longest enum value, 6): 1 × 1 + 2 = 3.
        assert_eq!(root_rule_cost(29, s.clone(), rule), 3);
        // 1.28: a request-sized string, 3145726: 314573 × 1 + 2 = 314575.
        assert_eq!(root_rule_cost(28, s, rule), 314_575);
    }

    #[test]
    fn int_or_string_length_per_release() {
        let s = object(serde_json::json!({
            "v": {"x-kubernetes-int-or-string": true, "maxLength": 10}
        }));
        let rule = "self.v.matches('^[0-9]+$')";
        // matches: ceil((size(self.v) + 1) × 0.1) × ceil(8 × 0.25), plus `self.v` 2.
        // 1.34+ (kubernetes#132837: maxLength × 4 = 40): 5 × 2 + 2 = 12.
        assert_eq!(root_rule_cost(34, s.clone(), rule), 12);
        // 1.33 (maxLength ignored, `maxRequestSizeBytes - 2`): 314573 × 2 + 2 = 629148.
        assert_eq!(root_rule_cost(33, s, rule), 629_148);
    }

    #[test]
    fn schema_sizes() {
        let s: JsonSchemaProps = serde_json::from_value(serde_json::json!({
            "type": "object",
            "properties": {
                "spec": {"type": "object", "required": ["name"], "properties": {
                    "name": {"type": "string", "maxLength": 10},
                    "mode": {"type": "string", "enum": ["a", "bbb"]},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                    "when": {"type": "string", "format": "date-time"}
                }}
            }
        }))
        .expect("schema");
        let sizes = SchemaSizes::new(&s, true);
        let sz = |p: &[&str]| sizes.size(p).map(|s| s.max);
        assert_eq!(sz(&["self", "spec", "name"]), Some(40));
        assert_eq!(sz(&["self", "spec", "mode"]), Some(3));
        assert_eq!(sz(&["self", "spec", "tags"]), Some(3_145_726 / 3));
        assert_eq!(sz(&["self", "spec", "tags", "@items"]), Some(3_145_726));
        assert_eq!(sz(&["self", "spec", "labels"]), Some(3_145_726 / 8));
        assert_eq!(sz(&["self", "spec", "when"]), Some(32));
        // 1.37 bounds the names the root's metadata gets (kubernetes#139573): 253 and 252
        // bytes, × 4; 1.36 has request-sized strings.
        assert_eq!(sz(&["self", "metadata", "name"]), Some(253 * 4));
        assert_eq!(sz(&["self", "metadata", "generateName"]), Some(252 * 4));
        let sizes36 = SchemaSizes::new(&s, true).for_release(36);
        assert_eq!(sizes36.size(&["self", "metadata", "name"]).map(|s| s.max), Some(3_145_726));
        assert_eq!(sizes36.size(&["self", "metadata", "generateName"]).map(|s| s.max), Some(3_145_726));
        assert_eq!(sz(&["self", "nope"]), None);
        assert_eq!(sz(&["@items"]), Some(0));
        assert_eq!(sz(&[]), None);
        let spec = s.properties.get("spec").expect("spec");
        assert_eq!(min_serialized_size(&**spec, false), 2 + 4 + 2 + 4);
    }
}
