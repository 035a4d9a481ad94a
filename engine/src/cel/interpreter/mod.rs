//! Evaluation of checked expressions, with cel-go's semantics (non-strict `&&`/`||`/`?:`,
//! comprehension folding, runtime overload dispatch) and cel-go's runtime cost accounting
//! (`interpreter/runtimecost.go`: identifiers and selections cost 1, constants 0, calls
//! their `CallCost`, list/map literals 10/30 unless constant-folded), with a per-call limit.
//!
//! As cel-go's `interpreter/planner.go` does, [`Program::new`] plans the checked AST once:
//! every node gets a [`NodePlan`] in a vector indexed by its expression id (literal and
//! folded values inline, calls with their overloads resolved to function pointers and
//! their cost kind decided), so an evaluation does no lookup by id or by function name.

use crate::cel::checker::Checked;
use crate::cel::cost_model::CostModel;
use crate::cel::library::cost::actual_size;
use crate::cel::env::{Env, Impl};
use crate::cel::types::Type;
use crate::cel::value::{equal, EvalError, EvalResult, Map, Str, Val};
use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};
use crate::cel::hash::{IdMap, IdSet};
use std::rc::Rc;
use std::sync::Arc;

#[cfg(any(not(target_arch = "wasm32"), feature = "wasm"))]
mod plan;

/// In the playground's wasm (the engine built for wasm32 without feature `wasm`) the compact
/// plan is left out (see [`Program::new`]); the npm module (feature `wasm`) has it. This
/// uninhabited stand-in keeps the callers as they are: a `Program`'s plan is then provably
/// absent, so the compiler drops the plan's code from the module (an `Option` merely always
/// `None` kept it).
#[cfg(all(target_arch = "wasm32", not(feature = "wasm")))]
mod plan {
    pub(super) enum Plan {}

    impl Plan {
        pub(super) fn run<'a, 'v>(
            &'a self,
            _: &'a super::Program,
            _: impl Fn(&str) -> Option<Result<&'v super::Val<'a>, &'v super::EvalError>>,
            _: Option<u64>,
        ) -> Option<(super::EvalResult<'a>, u64)>
        where
            'a: 'v,
        {
            match *self {}
        }
    }
}

/// A compiled program: checked AST, environment, and the plan of every node, built once.
pub struct Program {
    pub checked: Checked,
    pub env: Arc<Env>,
    /// The plan of each node, indexed by expression id.
    plan: Vec<NodePlan>,
    /// The cost code of the release the program was checked for.
    model: CostModel,
    /// The plan of nodes outside [`Program::plan`] (none in a checked AST).
    empty: NodePlan,
    /// The compact plan ([`plan`]), when every node has a shape it covers; else the
    /// tree walker ([`Evaluator`]) evaluates.
    compact: Option<plan::Plan>,
}

/// What the planner decided for one node (cel-go `planner.plan`'s interpretable, kept
/// beside the AST node it stands for).
#[derive(Default)]
struct NodePlan {
    /// The node's value when it is constant: a literal (`planConst`), or a node cel-go's
    /// `OptOptimize` precomputes (constant list/map literals, type conversions of
    /// constants). It evaluates to this value at no cost.
    constant: Option<Val<'static>>,
    /// A list or map literal whose elements are all literals: cel-go folds it into a
    /// constant, which costs nothing (`is_constant`).
    constant_literal: bool,
    /// A select node the checker resolved to a qualified name (`Checked::idents`).
    qualified_ident: bool,
    /// A call's plan.
    call: Option<Box<CallPlan>>,
    /// An identifier naming a comprehension variable: the comprehension's nesting level
    /// and the variable's place in its frame (0 the accumulator, 1 and 2 the iteration
    /// variables), resolved at planning time as cel-go's planner resolves variables to
    /// their activation.
    local: Option<(u32, u8)>,
    /// A comprehension's loop condition, when it has a shape evaluated without walking it.
    loop_cond: LoopCond,
}

/// The shape of a comprehension's loop condition. The macros' conditions read only the
/// accumulator (`exists`: `@not_strictly_false(!__result__)`, `all`:
/// `@not_strictly_false(__result__)`): their value and runtime cost (1 per identifier
/// and per call, cel-go's observers) are known from the accumulator alone, so
/// `evalFold`'s per-iteration condition is decided without evaluating three nodes.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum LoopCond {
    /// Any other condition: evaluated as written.
    #[default]
    Generic,
    /// `@not_strictly_false(accu)`: continues unless the accumulator is `false`; costs 2.
    Accu,
    /// `@not_strictly_false(!accu)`: continues unless the accumulator is `true`; costs 3.
    NotAccu,
}

/// How a call node evaluates (cel-go's `planCall` cases).
enum CallKind {
    /// `_&&_` / `_||_` (`evalAnd`, `evalOr`): non-strict.
    Logic { and: bool },
    /// `_?_:_` (`evalConditional`).
    Conditional,
    /// `@not_strictly_false` (cel-go's non-strict `NotStrictlyFalse` overload): an error
    /// counts as true; charged as a call.
    NotStrictlyFalse,
    /// `x.?f`: an optional qualifier.
    OptionalSelect,
    /// `opt.or(x)` / `opt.orValue(x)` of the optional library: lazy in their argument.
    OptionalOr { or: bool },
    /// `x in [constant list]`, turned into a set-membership test (`inList` decorator; no
    /// call cost).
    Member(Vec<Val<'static>>),
    /// Any other call: arguments, then the overload (`evalUnary`/`evalBinary`/`evalVarArgs`).
    Generic,
}

/// A call's overloads and costing, resolved at planning time.
struct CallPlan {
    kind: CallKind,
    /// The function name costs are looked up by: the resolved namespaced name
    /// (`Checked::qualified`) or the call's own.
    fname: Box<str>,
    /// Whether the call is an index (`_[_]` / `_[?_]` with two arguments), planned as an
    /// attribute qualifier.
    index: bool,
    /// The overload id the call is costed under: the single resolved one, else none.
    single: &'static str,
    /// The single resolved overload's implementation (`planCall`'s pre-dispatched
    /// function), when it has one.
    direct: Option<Impl>,
    /// Every candidate overload with an implementation, with its parameter types, for
    /// runtime dispatch among several (cel-go's dynamic dispatch).
    candidates: Vec<(&'static str, Impl, Option<Vec<Type>>)>,
    /// The target is a namespace, not an argument (`optional.of(x)`).
    skip_target: bool,
    /// cel-go evaluates the call as variadic: stops at the first failing argument.
    variadic: bool,
    /// A call whose value becomes a comprehension's next accumulator (`accumulating`).
    accumulating: bool,
    /// `(a + b) + c` of lists (`add_list`) whose left operand is the value of a call: it
    /// may be extended in place.
    extends_call_value: bool,
    /// A unary or binary call of a single implemented overload with no special
    /// evaluation: [`Evaluator::eval_strict`].
    strict: Option<Impl>,
    /// `==` / `!=` (`equals`, `not_equals`), which cost 1 on scalars.
    equality: bool,
    /// The call's runtime cost is 1 whatever its arguments (cel-go's default for the
    /// overload, no Kubernetes or extension tracker).
    unit_cost: bool,
    /// How the call is costed under `single` (found once here: evaluation compares no
    /// function or overload names).
    cost: CallCost,
}

/// The functions cel-go treats as type conversions (`overloads.IsTypeConversionFunction`).
const CONVERSIONS: &[&str] = &[
    "bool",
    "bytes",
    "double",
    "duration",
    "dyn",
    "int",
    "string",
    "timestamp",
    "type",
    "uint",
];

/// Calls every node of `e` (children after the node), as the planner walks the AST.
fn walk<'e>(e: &'e IdedExpr, f: &mut impl FnMut(&'e IdedExpr)) {
    f(e);
    match &e.expr {
        Expr::Call(c) => {
            if let Some(t) = &c.target {
                walk(t, f);
            }
            c.args.iter().for_each(|a| walk(a, f));
        }
        Expr::Select(s) => walk(&s.operand, f),
        Expr::List(l) => l.elements.iter().for_each(|x| walk(x, f)),
        Expr::Map(m) => {
            for en in &m.entries {
                if let EntryExpr::MapEntry(me) = &en.expr {
                    walk(&me.key, f);
                    walk(&me.value, f);
                }
            }
        }
        Expr::Comprehension(c) => {
            for x in [
                &c.iter_range,
                &c.accu_init,
                &c.loop_cond,
                &c.loop_step,
                &c.result,
            ] {
                walk(x, f);
            }
        }
        _ => {}
    }
}

/// The calls that extend a comprehension's accumulator and whose value becomes the next
/// accumulator (`@result + [f(v)]`, `cel.@mapInsert(@result, k, v)`, as the loop step or a
/// branch of a conditional loop step): they may consume the accumulator.
fn collect_accumulating(root: &IdedExpr, out: &mut IdSet) {
    walk(root, &mut |e| {
        let Expr::Comprehension(c) = &e.expr else {
            return;
        };
        let extends = |x: &IdedExpr| match &x.expr {
            Expr::Call(call) => {
                call.target.is_none()
                    && matches!(call.func_name.as_str(), "_+_" | "cel.@mapInsert")
                    && matches!(call.args.first().map(|a| &a.expr), Some(Expr::Ident(n)) if *n == c.accu_var)
            }
            _ => false,
        };
        let step = &c.loop_step;
        if extends(step) {
            out.add(step.id);
        } else if let Expr::Call(call) = &step.expr {
            if call.func_name == "_?_:_" && call.target.is_none() {
                for branch in call.args.iter().skip(1) {
                    if extends(branch) {
                        out.add(branch.id);
                    }
                }
            }
        }
    });
}

/// The value of a literal (cel-go `planConst`).
fn literal_value(l: &LiteralValue) -> Val<'static> {
    match l {
        LiteralValue::Boolean(b) => Val::Bool(*b.inner()),
        LiteralValue::Bytes(b) => Val::Bytes(Rc::from(b.inner())),
        LiteralValue::Double(d) => Val::Double(*d.inner()),
        LiteralValue::Int(i) => Val::Int(*i.inner()),
        LiteralValue::Null => Val::Null,
        LiteralValue::String(s) => Val::String(Str::Owned(Rc::from(s.inner()))),
        LiteralValue::UInt(u) => Val::Uint(*u.inner()),
    }
}

/// What planning knows before the call plans: literal values, then the folded nodes.
struct Planning<'p> {
    checked: &'p Checked,
    env: &'p Env,
    consts: IdMap<Val<'static>>,
    folded: IdMap<Val<'static>>,
    members: IdMap<Vec<Val<'static>>>,
}

impl Program {
    /// Plans a program (cel-go `planner.Plan` with `OptOptimize`): literals, then cel-go's
    /// folding, then each call's overloads and costing. A conversion of a constant that
    /// fails is a program error (cel-go refuses to build the program).
    pub fn new(checked: Checked, env: Arc<Env>) -> Result<Program, String> {
        let mut consts = IdMap::default();
        let mut max_id = 0u64;
        walk(&checked.expr, &mut |e| {
            max_id = max_id.max(e.id);
            if let Expr::Literal(l) = &e.expr {
                consts.insert(e.id, literal_value(l));
            }
        });
        let mut accumulating = IdSet::default();
        collect_accumulating(&checked.expr, &mut accumulating);
        let mut planning = Planning {
            checked: &checked,
            env: &env,
            consts,
            folded: IdMap::default(),
            members: IdMap::default(),
        };
        let mut folded = IdMap::default();
        let mut members = IdMap::default();
        fold(&planning, &checked.expr, &mut folded, &mut members).map_err(|e| e.message)?;
        planning.folded = folded;
        planning.members = members;
        // Expression ids are dense (the parser numbers nodes from 1, macro expansions
        // next), so the plan is a vector as long as the AST.
        let mut plan: Vec<NodePlan> = Vec::new();
        plan.resize_with(max_id as usize + 1, NodePlan::default);
        walk(&checked.expr, &mut |e| {
            let node = &mut plan[e.id as usize];
            node.constant = planning
                .folded
                .get(&e.id)
                .or_else(|| planning.consts.get(&e.id))
                .cloned();
            node.constant_literal =
                matches!(e.expr, Expr::List(_) | Expr::Map(_)) && is_constant(e);
            node.qualified_ident = checked.idents.contains_key(&e.id);
            if let Expr::Call(call) = &e.expr {
                node.call = Some(Box::new(plan_call(
                    &planning,
                    e,
                    call,
                    accumulating.contains_key(&e.id),
                )));
            }
        });
        drop(planning);
        plan_locals(&checked.expr, &mut Vec::new(), 0, &mut plan);
        walk(&checked.expr, &mut |e| {
            if let Expr::Comprehension(c) = &e.expr {
                let shape = loop_cond_shape(c, &plan);
                if let Some(node) = plan.get_mut(e.id as usize) {
                    node.loop_cond = shape;
                }
            }
        });
        let model = CostModel::for_release(checked.release_minor);
        // The compact plan runs natively and in the npm module (feature `wasm`), where it
        // costs about 12 KB of its 800 KB gzip budget and makes `Expression.evaluate` over
        // 1,000 ints about 3 times faster; the playground's wasm leaves it out, and the tree
        // walker gives the same answers and costs there (it is the plan's reference).
        #[cfg(any(not(target_arch = "wasm32"), feature = "wasm"))]
        let compact = plan::build(&checked.expr, &plan);
        #[cfg(all(target_arch = "wasm32", not(feature = "wasm")))]
        let compact = None;
        Ok(Program {
            checked,
            env,
            plan,
            model,
            empty: NodePlan::default(),
            compact,
        })
    }

    /// Whether the program runs as a compact plan (else the tree walker runs it).
    pub fn is_compact(&self) -> bool {
        self.compact.is_some()
    }

    /// The plan of a node (an empty one for a node the planner did not see).
    fn node(&self, e: &IdedExpr) -> &NodePlan {
        self.plan.get(e.id as usize).unwrap_or(&self.empty)
    }

    /// Evaluates with the given variables and per-call cost limit; returns the value (or
    /// error) and the actual cost.
    pub fn eval<'a>(
        &'a self,
        vars: &[(&str, Val<'a>)],
        limit: Option<u64>,
    ) -> (EvalResult<'a>, u64) {
        if let Some(compact) = &self.compact {
            let lookup = |name: &str| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| Ok(v));
            if let Some(out) = compact.run(self, lookup, limit) {
                return out;
            }
        }
        self.walk(vars, limit)
    }

    /// [`Program::eval`] by the tree walker, whatever the plan.
    fn walk<'a>(&'a self, vars: &[(&str, Val<'a>)], limit: Option<u64>) -> (EvalResult<'a>, u64) {
        let mut ev = Evaluator {
            prog: self,
            vars,
            scopes: Vec::new(),
            cost: 0,
            limit,
            stack: Vec::new(),
            frames: Vec::new(),
        };
        let r = ev.eval(&self.checked.expr);
        (r, ev.cost)
    }
}

/// Resolves identifiers that name comprehension variables (cel-go's planner and its
/// `varActivation`s): `env` holds the variables in scope, innermost last, with the level
/// of their comprehension. A comprehension's range and initial accumulator see the
/// enclosing scope; its condition and step see the accumulator and iteration variables;
/// its result, the accumulator alone. The level counts the comprehensions whose scope
/// encloses a node, which are the comprehensions being evaluated when it is.
fn plan_locals<'e>(
    e: &'e IdedExpr,
    env: &mut Vec<(&'e str, u32, u8)>,
    level: u32,
    plan: &mut [NodePlan],
) {
    match &e.expr {
        Expr::Ident(name) => {
            if let Some(&(_, l, k)) = env.iter().rev().find(|(n, _, _)| *n == name.as_str()) {
                if let Some(node) = plan.get_mut(e.id as usize) {
                    node.local = Some((l, k));
                }
            }
        }
        Expr::Comprehension(c) => {
            plan_locals(&c.iter_range, env, level, plan);
            plan_locals(&c.accu_init, env, level, plan);
            let mark = env.len();
            env.push((c.accu_var.as_str(), level, 0));
            env.push((c.iter_var.as_str(), level, 1));
            if let Some(v2) = &c.iter_var2 {
                env.push((v2.as_str(), level, 2));
            }
            plan_locals(&c.loop_cond, env, level + 1, plan);
            plan_locals(&c.loop_step, env, level + 1, plan);
            env.truncate(mark);
            env.push((c.accu_var.as_str(), level, 0));
            plan_locals(&c.result, env, level + 1, plan);
            env.truncate(mark);
        }
        Expr::Call(c) => {
            if let Some(t) = &c.target {
                plan_locals(t, env, level, plan);
            }
            c.args.iter().for_each(|a| plan_locals(a, env, level, plan));
        }
        Expr::Select(s) => plan_locals(&s.operand, env, level, plan),
        Expr::List(l) => l.elements.iter().for_each(|x| plan_locals(x, env, level, plan)),
        Expr::Map(m) => {
            for en in &m.entries {
                if let EntryExpr::MapEntry(me) = &en.expr {
                    plan_locals(&me.key, env, level, plan);
                    plan_locals(&me.value, env, level, plan);
                }
            }
        }
        _ => {}
    }
}

/// The shape of comprehension `c`'s loop condition ([`LoopCond`]), from the planned nodes:
/// the identifier must be the accumulator of `c` itself (resolved to its slot, not shadowed
/// by an iteration variable), the negation the strict, unit-cost `logical_not` overload.
fn loop_cond_shape(c: &cel::common::ast::ComprehensionExpr, plan: &[NodePlan]) -> LoopCond {
    let node = |e: &IdedExpr| plan.get(e.id as usize);
    let is_accu = |e: &IdedExpr| {
        matches!(&e.expr, Expr::Ident(n) if *n == c.accu_var)
            && c.iter_var != c.accu_var
            && c.iter_var2.as_deref() != Some(c.accu_var.as_str())
            && node(e).is_some_and(|n| n.constant.is_none() && matches!(n.local, Some((_, 0))))
    };
    let Expr::Call(nsf) = &c.loop_cond.expr else {
        return LoopCond::Generic;
    };
    let planned_kind = node(&c.loop_cond).and_then(|n| n.call.as_deref()).map(|p| &p.kind);
    if nsf.target.is_some() || nsf.args.len() != 1 || !matches!(planned_kind, Some(CallKind::NotStrictlyFalse)) {
        return LoopCond::Generic;
    }
    let arg = &nsf.args[0];
    if is_accu(arg) {
        return LoopCond::Accu;
    }
    if let Expr::Call(not) = &arg.expr {
        let negation = node(arg).and_then(|n| n.call.as_deref()).is_some_and(|p| {
            matches!(p.kind, CallKind::Generic)
                && p.strict.is_some()
                && p.unit_cost
                && p.single == "logical_not"
        });
        if negation && not.target.is_none() && not.args.len() == 1 && is_accu(&not.args[0]) {
            return LoopCond::NotAccu;
        }
    }
    LoopCond::Generic
}

/// The plan of one call node (cel-go `planCall`).
fn plan_call(
    p: &Planning,
    e: &IdedExpr,
    call: &cel::common::ast::CallExpr,
    accumulating: bool,
) -> CallPlan {
    let name = call.func_name.as_str();
    let ids: &[&'static str] = p
        .checked
        .overloads
        .get(&e.id)
        .map(|v| &v[..])
        .unwrap_or(&[]);
    let optional_call = p.checked.overloads.contains_key(&e.id)
        && ids.iter().all(|id| id.starts_with("optional_"));
    let kind = match name {
        "_&&_" | "_||_" => CallKind::Logic {
            and: name == "_&&_",
        },
        "_?_:_" => CallKind::Conditional,
        "@not_strictly_false" => CallKind::NotStrictlyFalse,
        "_?._" => CallKind::OptionalSelect,
        "or" | "orValue" if call.target.is_some() && optional_call => {
            CallKind::OptionalOr { or: name == "or" }
        }
        _ => match p.members.get(&e.id) {
            Some(set) => CallKind::Member(set.clone()),
            None => CallKind::Generic,
        },
    };
    let fname: Box<str> = p
        .checked
        .qualified
        .get(&e.id)
        .map(|s| s.as_str())
        .unwrap_or(name)
        .into();
    let skip_target = call.target.is_some() && p.checked.qualified.contains_key(&e.id);
    let n = call.args.len() + usize::from(call.target.is_some() && !skip_target);
    let single = if ids.len() == 1 { ids[0] } else { "" };
    let direct = match ids {
        [id] => p.env.impls.get(id).copied().flatten(),
        _ => None,
    };
    let candidates = ids
        .iter()
        .filter_map(|id| {
            let imp = p.env.impls.get(id).copied().flatten()?;
            Some((*id, imp, p.env.params.get(id).cloned()))
        })
        .collect();
    let cost = CallCost::of(&fname, single, CostModel::for_release(p.checked.release_minor));
    let unit_cost = cost.is_unit();
    let index = matches!(name, "_[_]" | "_[?_]") && call.target.is_none() && n == 2;
    let variadic = n >= 3 || regex_optimized(p, call);
    let extends_call_value =
        single == "add_list" && matches!(call.args.first().map(|a| &a.expr), Some(Expr::Call(_)));
    let equality =
        matches!(&*fname, "_==_" | "_!=_") && matches!(single, "equals" | "not_equals");
    let strict = match (&kind, direct) {
        (CallKind::Generic, Some(imp))
            if !matches!(name, "_[_]" | "_[?_]")
                && !index
                && !variadic
                && !accumulating
                && !extends_call_value
                && (1..=2).contains(&n) =>
        {
            Some(imp)
        }
        _ => None,
    };
    CallPlan {
        kind,
        index,
        fname,
        single,
        direct,
        candidates,
        skip_target,
        variadic,
        accumulating,
        extends_call_value,
        strict,
        equality,
        unit_cost,
        cost,
    }
}

impl Program {
    /// [`Program::eval`] with variables that may be error values: the apiserver binds
    /// `self` to `UnstructuredToVal`'s result, an error when the data does not fit the
    /// schema, and an expression that reads it evaluates to that error.
    pub fn eval_results<'a>(
        &'a self,
        vars: &[(&'a str, EvalResult<'a>)],
        limit: Option<u64>,
    ) -> (EvalResult<'a>, u64) {
        if let Some(compact) = &self.compact {
            // The innermost binding of a name, as the tree walker's scopes find it.
            let lookup = |name: &str| vars.iter().rev().find(|(n, _)| *n == name).map(|(_, v)| v.as_ref());
            if let Some(out) = compact.run(self, lookup, limit) {
                return out;
            }
        }
        self.walk_results(vars, limit)
    }

    /// [`Program::eval_results`] by the tree walker, whatever the plan.
    fn walk_results<'a>(
        &'a self,
        vars: &[(&'a str, EvalResult<'a>)],
        limit: Option<u64>,
    ) -> (EvalResult<'a>, u64) {
        let mut ev = Evaluator {
            prog: self,
            vars: &[],
            scopes: vars.to_vec(),
            cost: 0,
            limit,
            stack: Vec::new(),
            frames: Vec::new(),
        };
        let r = ev.eval(&self.checked.expr);
        (r, ev.cost)
    }
}

struct Evaluator<'a, 'v> {
    prog: &'a Program,
    vars: &'v [(&'v str, Val<'a>)],
    scopes: Vec<(&'a str, EvalResult<'a>)>,
    cost: u64,
    limit: Option<u64>,
    /// The arguments of the calls being evaluated, each call's above its caller's (one
    /// vector for the whole evaluation, not one per call).
    stack: Vec<Val<'a>>,
    /// Where each comprehension being evaluated has its variables in `scopes` (its
    /// accumulator, then its iteration variables), innermost last.
    frames: Vec<usize>,
}

/// Whether an expression is a literal, or an aggregate of literals: cel-go's planner folds
/// those into constants, which then cost nothing at run time.
fn is_constant(e: &IdedExpr) -> bool {
    match &e.expr {
        Expr::Literal(_) => true,
        Expr::List(l) => l.optional_indices.is_empty() && l.elements.iter().all(is_constant),
        Expr::Map(m) => m.entries.iter().all(|en| match &en.expr {
            EntryExpr::MapEntry(me) => {
                !me.optional && is_constant(&me.key) && is_constant(&me.value)
            }
            _ => false,
        }),
        _ => false,
    }
}

impl<'a, 'v> Evaluator<'a, 'v> {
    /// The cost code of the release the program was checked for.
    fn cost_model(&self) -> CostModel {
        self.prog.model
    }

    #[inline]
    fn charge(&mut self, n: u64) -> Result<(), EvalError> {
        self.cost = self.cost.saturating_add(n);
        match self.limit {
            Some(l) if self.cost > l => Err(EvalError::cost_limit()),
            _ => Ok(()),
        }
    }

    /// The value of identifier `e` named `name`: its comprehension variable's slot when
    /// the planner resolved it, else the innermost scope or variable of that name.
    #[inline]
    fn lookup_ident(&self, e: &IdedExpr, name: &str) -> Option<EvalResult<'a>> {
        if let Some((level, k)) = self.prog.node(e).local {
            let slot = self
                .frames
                .get(level as usize)
                .and_then(|base| self.scopes.get(base + k as usize));
            if let Some((n, v)) = slot {
                debug_assert_eq!(*n, name);
                return Some(v.clone());
            }
        }
        self.lookup(name)
    }

    fn lookup(&self, name: &str) -> Option<EvalResult<'a>> {
        if let Some((_, v)) = self.scopes.iter().rev().find(|(n, _)| *n == name) {
            return Some(v.clone());
        }
        self.vars
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| Ok(v.clone()))
    }

    fn eval(&mut self, e: &'a IdedExpr) -> EvalResult<'a> {
        let node = self.prog.node(e);
        if let Some(v) = &node.constant {
            return Ok(v.clone());
        }
        // A comprehension variable, read from its slot (the common case of identifiers in
        // a loop body): charged 1 as any variable.
        if let Some((level, k)) = node.local {
            if let Some(base) = self.frames.get(level as usize) {
                if let Some((_, v)) = self.scopes.get(base + k as usize) {
                    let v = v.clone();
                    self.charge(1)?;
                    return v;
                }
            }
        }
        match &e.expr {
            Expr::Literal(_) => Ok(Val::Null),
            Expr::Ident(name) => match self.lookup_ident(e, name) {
                Some(v) => {
                    self.charge(1)?;
                    v
                }
                // Type names are constants: no cost.
                None => match type_value(name) {
                    Some(t) => Ok(Val::Type(t)),
                    None => match library_type_variable(&self.prog.env, name) {
                        Some(v) => Ok(v),
                        None => Err(EvalError::new(format!("no such attribute(s): {}", name))),
                    },
                },
            },
            Expr::Select(sel) => self.eval_select(e, sel),
            Expr::Call(call) => match &node.call {
                Some(plan) => self.eval_call(call, plan),
                None => Err(EvalError::no_such_overload()),
            },
            // cel-go's constructor observer charges a list or map literal whether or not its
            // elements evaluated (it stops at the first element that fails); only the cost
            // limit, a panic in cel-go, stops without the charge.
            Expr::List(list) => {
                let r = self.eval_list(list);
                if matches!(&r, Err(err) if err.kind == crate::cel::value::ErrorKind::CostLimit) {
                    return r;
                }
                if !node.constant_literal {
                    self.charge(10)?;
                }
                r
            }
            Expr::Map(map) => {
                let r = self.eval_map(map);
                if matches!(&r, Err(err) if err.kind == crate::cel::value::ErrorKind::CostLimit) {
                    return r;
                }
                if !node.constant_literal {
                    self.charge(30)?;
                }
                r
            }
            Expr::Struct(_) => Err(EvalError::new("struct construction is not supported")),
            Expr::Comprehension(c) => self.eval_fold(c, node.loop_cond),
            Expr::Unspecified => Err(EvalError::new("unspecified expression")),
        }
    }

    /// A field selection. cel-go plans a chain of selections on an identifier as one
    /// attribute, charged 1 when evaluated plus 1 for each qualifier it tries, the one that
    /// fails included; here the identifier's 1 stands for the attribute's and each
    /// selection charges its qualifier. A selection on anything else makes a relative
    /// attribute, charged 1 more.
    #[inline(never)]
    fn eval_select(
        &mut self,
        e: &'a IdedExpr,
        sel: &'a cel::common::ast::SelectExpr,
    ) -> EvalResult<'a> {
        // A qualified identifier the checker resolved: a variable `a.b` declared as
        // such, a type name (a constant), a library's type-name variable.
        let q = match self.prog.node(e).qualified_ident {
            true => self.prog.checked.idents.get(&e.id),
            false => None,
        };
        if let Some(q) = q {
            if let Some(v) = self
                .vars
                .iter()
                .find(|(n, _)| *n == q.as_str())
                .map(|(_, v)| v.clone())
            {
                self.charge(1)?;
                return Ok(v);
            }
            if let Some(v) = library_type_variable(&self.prog.env, q) {
                return Ok(v);
            }
            if let Some(t) = type_value(q) {
                return Ok(Val::Type(t));
            }
            return Err(EvalError::new(format!("no such attribute(s): {}", q)));
        }
        if sel.test {
            return self.eval_presence_test(sel);
        }
        let operand = self.eval(&sel.operand)?;
        // A qualifier on something that is not an attribute makes a relative
        // attribute, which cel-go charges once more.
        if !is_attribute(&sel.operand) {
            self.charge(1)?;
        }
        let r = match select_field(&operand, &sel.field) {
            Ok(r) => r,
            Err(err) => {
                self.charge(1)?;
                return Err(err);
            }
        };
        // After an optional qualifier the chain is optional: a qualifier that finds
        // nothing is not charged.
        if !matches!((&operand, &r), (Val::Optional(_), Val::Optional(None))) {
            self.charge(1)?;
        }
        Ok(r)
    }

    /// `has(operand.field)`. cel-go adds the test as one more qualifier of the operand's
    /// attribute (a relative one when the operand is not an attribute) and, Kubernetes
    /// setting `PresenceTestHasCost(false)`, refunds the attribute's own 1: the test costs
    /// the qualifiers tried, its own included when it is reached — not after an optional
    /// qualifier that found nothing or a qualifier that failed, and after one that found
    /// something, only when the field is present (`QualifyIfPresent`).
    #[inline(never)]
    fn eval_presence_test(&mut self, sel: &'a cel::common::ast::SelectExpr) -> EvalResult<'a> {
        if !self.cost_model().presence_test_costs_operand() {
            // cel-go v0.12's `evalTestOnly` is neither a call nor an attribute to the cost
            // observer: only its operand's evaluation costs (an attribute 1 and its
            // qualifiers, a constant nothing).
            let operand = self.eval(&sel.operand)?;
            return has_field(&operand, &sel.field).map(Val::Bool);
        }
        let attribute = is_attribute(&sel.operand);
        // The attribute's 1 (charged here by its identifier or relative operand) is
        // refunded; the limit allows for it meanwhile, as cel-go never counts it.
        let before = self.cost;
        if attribute {
            self.limit = self.limit.map(|l| l.saturating_add(1));
        }
        let operand = self.eval(&sel.operand);
        if attribute {
            self.limit = self.limit.map(|l| l.saturating_sub(1));
            if self.cost > before {
                self.cost -= 1;
            }
        }
        let operand = operand?;
        let r = has_field(&operand, &sel.field);
        let observed = if self.optional_chain(&sel.operand, &operand) {
            match (&operand, &r) {
                (Val::Optional(None), _) => false,
                (Val::Optional(Some(_)), Ok(present)) => *present,
                _ => true,
            }
        } else {
            true
        };
        if observed {
            self.charge(1)?;
        }
        r.map(Val::Bool)
    }

    /// Whether the attribute `operand` (already evaluated to `value`) qualifies in cel-go's
    /// optional mode (`applyQualifiers`): it has an optional qualifier (`.?f`, `[?k]`), or
    /// its root value is an optional. Then an empty optional means the qualifiers stopped,
    /// and a further qualifier is tried only on a present value. Otherwise an optional is
    /// just a value (`{'k': optional.none()}.k`). The root's value is known here when the
    /// operand is the root itself or an identifier; a chain of plain qualifiers on another
    /// expression is taken as not optional.
    fn optional_chain(&self, operand: &IdedExpr, value: &Val<'a>) -> bool {
        let mut e = operand;
        let mut qualified = false;
        // Down the chain to its root: each step goes to a child, so this ends.
        loop {
            match &e.expr {
                Expr::Select(s) if !s.test && !self.prog.checked.idents.contains_key(&e.id) => {
                    e = &s.operand
                }
                Expr::Call(c) if c.target.is_none() && c.args.len() == 2 => {
                    match c.func_name.as_str() {
                        "_?._" | "_[?_]" => return true,
                        "_[_]" => e = &c.args[0],
                        _ => break,
                    }
                }
                _ => break,
            }
            qualified = true;
        }
        if !qualified {
            return matches!(value, Val::Optional(_));
        }
        match &e.expr {
            Expr::Ident(name) => matches!(self.lookup(name), Some(Ok(Val::Optional(_)))),
            _ => false,
        }
    }

    /// The elements of a list literal, up to the first that fails.
    #[inline(never)]
    fn eval_list(&mut self, list: &'a cel::common::ast::ListExpr) -> EvalResult<'a> {
        let mut items = Vec::with_capacity(list.elements.len());
        for (i, el) in list.elements.iter().enumerate() {
            let v = self.eval(el)?;
            if list.optional_indices.contains(&i) {
                match v {
                    Val::Optional(Some(inner)) => items.push((*inner).clone()),
                    Val::Optional(None) => {}
                    _ => return Err(EvalError::no_such_overload()),
                }
            } else {
                items.push(v);
            }
        }
        Ok(Val::list(items))
    }

    /// The entries of a map literal, up to the first that fails.
    #[inline(never)]
    fn eval_map(&mut self, map: &'a cel::common::ast::MapExpr) -> EvalResult<'a> {
        let mut entries: Vec<(Val<'a>, Val<'a>)> = Vec::with_capacity(map.entries.len());
        for en in &map.entries {
            let EntryExpr::MapEntry(me) = &en.expr else {
                continue;
            };
            let k = self.eval(&me.key)?;
            let v = self.eval(&me.value)?;
            let v = if me.optional {
                match v {
                    Val::Optional(Some(inner)) => (*inner).clone(),
                    Val::Optional(None) => continue,
                    _ => return Err(EvalError::no_such_overload()),
                }
            } else {
                v
            };
            if !matches!(
                k,
                Val::String(_) | Val::Int(_) | Val::Uint(_) | Val::Bool(_)
            ) {
                return Err(EvalError::new(format!(
                    "unsupported key type: {}",
                    k.type_name()
                )));
            }
            if entries
                .iter()
                .any(|(ek, _)| crate::cel::value::key_equal(ek, &k))
            {
                return Err(EvalError::new(format!(
                    "insert failed: key {} already exists",
                    display_key(&k)
                )));
            }
            entries.push((k, v));
        }
        Ok(Val::map(entries))
    }

    /// Whether `n` more cost stays within the limit (then charging it at once is charging
    /// it piece by piece).
    #[inline]
    fn within_limit(&self, n: u64) -> bool {
        self.limit.map_or(true, |l| self.cost.saturating_add(n) <= l)
    }

    /// A comprehension's loop condition (cel-go `evalFold`'s `cond.Eval`): whether the loop
    /// goes on, or the cost limit's error. A condition of a known shape ([`LoopCond`]) is
    /// decided from the accumulator in `slot` when its cost fits the limit; otherwise (and
    /// near the limit, where the charge that crosses it matters) it is evaluated.
    #[inline]
    fn loop_continues(
        &mut self,
        c: &'a cel::common::ast::ComprehensionExpr,
        shape: LoopCond,
        slot: usize,
    ) -> Result<bool, EvalError> {
        let decided = match shape {
            LoopCond::Accu if self.within_limit(2) => Some((2, false)),
            LoopCond::NotAccu if self.within_limit(3) => Some((3, true)),
            _ => None,
        };
        if let Some((cost, negated)) = decided {
            self.cost += cost;
            // `@not_strictly_false` is false only on a `false` operand: an error or a
            // non-bool accumulator (its negation an error) continues the loop.
            return Ok(match self.scopes.get(slot) {
                Some((_, Ok(Val::Bool(b)))) => *b != negated,
                _ => true,
            });
        }
        match self.eval(&c.loop_cond) {
            Ok(Val::Bool(false)) => Ok(false),
            Err(e) if e.kind == crate::cel::value::ErrorKind::CostLimit => Err(e),
            _ => Ok(true),
        }
    }

    #[inline(never)]
    fn eval_fold(&mut self, c: &'a cel::common::ast::ComprehensionExpr, shape: LoopCond) -> EvalResult<'a> {
        let range = self.eval(&c.iter_range)?;
        if !matches!(range, Val::List(_) | Val::Map(_)) {
            // cel-go `evalFold`: the range must be iterable (a list or map for two variables).
            return Err(EvalError::new(if c.iter_var2.is_some() {
                format!(
                    "unsupported comprehension range type: {}",
                    go_type_name(&range)
                )
            } else {
                format!("got '{}', expected iterable type", go_type_name(&range))
            }));
        }
        // Errors are values in cel-go: a failing step becomes the accumulator, and a later
        // step (`false && error`) may absorb it. Only the cost limit stops the loop.
        let accu: EvalResult<'a> = Ok(self.eval(&c.accu_init)?);
        let two = c.iter_var2.is_some();
        // The range is read one element per iteration (cel-go's iterator): a loop that
        // stops early converts no more elements.
        let entries = match &range {
            Val::Map(m) => m.entries(),
            _ => Vec::new(),
        };
        let len = match &range {
            Val::List(l) => l.len(),
            _ => entries.len(),
        };
        // The accumulator lives only in its scope slot (no second reference), so a step
        // that extends it (see `Program::accumulating`) can do so in place.
        let depth = self.scopes.len();
        self.scopes.push((c.accu_var.as_str(), accu));
        self.frames.push(depth);
        for i in 0..len {
            let (v1, v2): (EvalResult<'a>, EvalResult<'a>) = match &range {
                // An element that does not fit its schema is an error value the step sees
                // (`UnstructuredToVal` in the list's `Get`).
                Val::List(l) => {
                    let v = l.get(i).unwrap_or_else(|| Err(EvalError::new("index out of range")));
                    if two {
                        (Ok(Val::Int(i as i64)), v)
                    } else {
                        (v, Ok(Val::Null))
                    }
                }
                _ => {
                    let (k, v) = &entries[i];
                    (Ok(k.clone()), Ok(if two { v.clone() } else { Val::Null }))
                }
            };
            self.scopes.truncate(depth + 1);
            self.scopes.push((c.iter_var.as_str(), v1));
            if let Some(n2) = &c.iter_var2 {
                self.scopes.push((n2.as_str(), v2));
            }
            match self.loop_continues(c, shape, depth) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => {
                    self.scopes.truncate(depth);
                    self.frames.pop();
                    return Err(e);
                }
            }
            match self.eval(&c.loop_step) {
                Err(e) if e.kind == crate::cel::value::ErrorKind::CostLimit => {
                    self.scopes.truncate(depth);
                    self.frames.pop();
                    return Err(e);
                }
                r => {
                    if let Some(slot) = self.scopes.get_mut(depth) {
                        slot.1 = r;
                    }
                }
            }
        }
        self.scopes.truncate(depth + 1);
        let r = self.eval(&c.result);
        self.scopes.truncate(depth);
        self.frames.pop();
        r
    }

    /// An accumulating call (`Program::accumulating`) of a known overload: the
    /// accumulator's scope slot gives up its reference (the call's value replaces it as
    /// the loop step's value), and the operation extends the value in place. `None` for
    /// other overloads. Both overloads' runtime cost is constant (cel-go's default of 1 for
    /// `add_list` and `cel.@mapInsert`), so the consumed argument is not needed for costing.
    #[inline(never)]
    fn accumulate(
        &mut self,
        call: &'a cel::common::ast::CallExpr,
        overload_id: &str,
        args: &mut [Val<'a>],
    ) -> Option<EvalResult<'a>> {
        let list = match overload_id {
            "add_list" => true,
            "@mapInsert_map_key_value" | "@mapInsert_map_map" => false,
            _ => return None,
        };
        let Some(Expr::Ident(name)) = call.args.first().map(|a| &a.expr) else {
            return None;
        };
        let (first, rest) = args.split_first_mut()?;
        let slot = self
            .scopes
            .iter_mut()
            .rev()
            .find(|(n, _)| *n == name.as_str())?;
        slot.1 = Ok(Val::Null);
        let x = std::mem::replace(first, Val::Null);
        Some(if list {
            match rest {
                [y] => crate::cel::library::stdlib::concat_accumulator(x, y),
                _ => Err(EvalError::no_such_overload()),
            }
        } else {
            crate::cel::library::comprehensions::map_insert_into(x, rest)
        })
    }

    /// A call, as cel-go's planned interpretable for it evaluates (`planCall`).
    fn eval_call(
        &mut self,
        call: &'a cel::common::ast::CallExpr,
        plan: &'a CallPlan,
    ) -> EvalResult<'a> {
        match &plan.kind {
            CallKind::Logic { and } => return self.eval_logic(call, *and),
            CallKind::Conditional => {
                let cond = self.eval(&call.args[0])?;
                return match cond {
                    Val::Bool(true) => self.eval_branch(&call.args[1]),
                    Val::Bool(false) => self.eval_branch(&call.args[2]),
                    _ => Err(EvalError::no_such_overload()),
                };
            }
            CallKind::NotStrictlyFalse => {
                let v = self.eval(&call.args[0]);
                if let Err(e) = &v {
                    if e.kind == crate::cel::value::ErrorKind::CostLimit {
                        return v;
                    }
                }
                self.charge(1)?;
                return Ok(Val::Bool(!matches!(v, Ok(Val::Bool(false)))));
            }
            CallKind::OptionalSelect => {
                let operand = self.eval(&call.args[0])?;
                let field = match &call.args[1].expr {
                    Expr::Literal(LiteralValue::String(s)) => s.inner(),
                    _ => return Err(EvalError::no_such_overload()),
                };
                // cel-go plans `x.?f` as an optional qualifier on `x`'s attribute (a relative
                // one, charged 1, when `x` is not an attribute), observed only when it finds
                // the field or fails.
                if !is_attribute(&call.args[0]) {
                    self.charge(1)?;
                }
                let r = match optional_select(&operand, field) {
                    Ok(r) => r,
                    Err(err) => {
                        self.charge(1)?;
                        return Err(err);
                    }
                };
                if let Val::Optional(Some(_)) = r {
                    self.charge(1)?;
                }
                return Ok(r);
            }
            CallKind::OptionalOr { or } => {
                let lhs = self.eval(call.target.as_deref().expect("target"))?;
                return match lhs {
                    Val::Optional(Some(_)) if *or => Ok(lhs),
                    Val::Optional(Some(v)) => Ok((*v).clone()),
                    Val::Optional(None) => self.eval(&call.args[0]),
                    _ => Err(EvalError::no_such_overload()),
                };
            }
            CallKind::Member(set) => {
                let lhs = self.eval(&call.args[0])?;
                return Ok(Val::Bool(set.iter().any(|m| equal(m, &lhs))));
            }
            CallKind::Generic => {}
        }
        if let Some(imp) = plan.strict {
            return self.eval_strict(call, plan, imp);
        }
        if self.stack.capacity() == 0 {
            self.stack.reserve(16);
        }
        let base = self.stack.len();
        let r = self.eval_overload_call(call, plan, base);
        self.stack.truncate(base);
        r
    }

    /// A unary or binary call of a single overload (cel-go's `evalUnary` / `evalBinary`):
    /// both operands evaluated, the call charged even when one failed (the first error is
    /// the call's, a failed operand counts as null for the cost), else the overload's value.
    fn eval_strict(
        &mut self,
        call: &'a cel::common::ast::CallExpr,
        plan: &'a CallPlan,
        imp: Impl,
    ) -> EvalResult<'a> {
        // The operands: the target (unless it is a namespace) then the arguments.
        let (x, y) = match call.target.as_deref() {
            Some(t) if !plan.skip_target => (Some(t), call.args.first()),
            _ => (call.args.first(), call.args.get(1)),
        };
        let Some(x) = x else {
            return Err(EvalError::no_such_overload());
        };
        let limit = |r: &EvalResult<'a>| {
            matches!(r, Err(e) if e.kind == crate::cel::value::ErrorKind::CostLimit)
        };
        let a = self.eval(x);
        if limit(&a) {
            return a;
        }
        let mut err = None;
        let mut operand = |r: EvalResult<'a>| match r {
            Ok(v) => v,
            Err(e) => {
                err.get_or_insert(e);
                Val::Null
            }
        };
        let (r, cost) = match y {
            None => {
                let args = [operand(a)];
                let r = match err {
                    Some(e) => Err(e),
                    None => imp(&args),
                };
                let cost = self.strict_cost(plan, &args, &r);
                (r, cost)
            }
            Some(y) => {
                let b = self.eval(y);
                if limit(&b) {
                    return b;
                }
                let args = [operand(a), operand(b)];
                let r = match err {
                    Some(e) => Err(e),
                    None => imp(&args),
                };
                let cost = self.strict_cost(plan, &args, &r);
                (r, cost)
            }
        };
        self.charge(cost)?;
        r
    }

    /// The cost of a [`Evaluator::eval_strict`] call.
    #[inline]
    fn strict_cost(&self, plan: &CallPlan, args: &[Val<'a>], r: &EvalResult<'a>) -> u64 {
        strict_call_cost(plan, args, r, self.prog.model)
    }

    /// The runtime cost of a call on `args` with `result` (cel-go's `CallCost` observer).
    fn call_cost(&self, plan: &CallPlan, overload_id: &str, args: &[Val<'a>], result: &Val) -> u64 {
        planned_call_cost(plan, overload_id, args, result, self.prog.model)
    }

    /// A call of an overload: its arguments (pushed on the stack above `base`), then the
    /// dispatched implementation, then its cost.
    #[inline(never)]
    fn eval_overload_call(
        &mut self,
        call: &'a cel::common::ast::CallExpr,
        plan: &'a CallPlan,
        base: usize,
    ) -> EvalResult<'a> {
        // cel-go evaluates both operands of unary/binary calls and charges the call even
        // when one errored (an error counts as size 1); calls with 3+ arguments stop at the
        // first error and are charged only if every argument was evaluated.
        let target = call.target.as_deref().filter(|_| !plan.skip_target);
        let n = call.args.len() + usize::from(target.is_some());
        let expr_at = |i: usize| -> &'a IdedExpr {
            match target {
                Some(t) if i == 0 => t,
                Some(_) => &call.args[i - 1],
                None => &call.args[i],
            }
        };
        let mut first_err: Option<EvalError> = None;
        // cel-go's regex optimizations (`matches`, and the Kubernetes `find`/`findAll`) turn
        // a call with a constant pattern into a variadic call: it stops at the first failing
        // argument, so the pattern is never evaluated and the call is not charged.
        let variadic = plan.variadic;
        // Indexing is planned as an attribute qualifier: a non-attribute operand costs a
        // relative attribute (1), and an attribute index is resolved without its identifier
        // cost.
        let index = plan.index;
        if index && !is_attribute(expr_at(0)) {
            self.charge(1)?;
        }
        for i in 0..n {
            let x = expr_at(i);
            let r = if index && i == 1 {
                self.eval_branch(x)
            } else {
                self.eval(x)
            };
            match r {
                Ok(v) => self.stack.push(v),
                Err(err) => {
                    if err.kind == crate::cel::value::ErrorKind::CostLimit {
                        return Err(err);
                    }
                    if first_err.is_none() {
                        first_err = Some(err);
                    }
                    self.stack.push(Val::Null);
                    if variadic {
                        if i + 1 == n {
                            let c = self.call_cost(plan, plan.single, &self.stack[base..], &Val::Null);
                            self.charge(c)?;
                        }
                        return Err(first_err.expect("set above"));
                    }
                }
            }
        }
        if let Some(err) = first_err {
            let c = self.call_cost(plan, plan.single, &self.stack[base..], &Val::Null);
            self.charge(c)?;
            return Err(err);
        }
        // The implementation runs no expression: the stack is lent to it whole.
        let mut stack = std::mem::take(&mut self.stack);
        let out = self.apply_overload(call, plan, &mut stack[base..]);
        self.stack = stack;
        let (result, cost) = out?;
        self.charge(cost)?;
        result
    }

    /// The dispatched implementation of a call on its evaluated `args`, and the call's
    /// cost; `Err` when no overload takes the arguments.
    fn apply_overload(
        &mut self,
        call: &'a cel::common::ast::CallExpr,
        plan: &'a CallPlan,
        args: &mut [Val<'a>],
    ) -> Result<(EvalResult<'a>, u64), EvalError> {
        let name = call.func_name.as_str();
        let index = plan.index;
        let (result, overload_id) = match dispatch_planned(plan, args) {
            Ok(imp) => {
                let id = plan.single;
                let extended = if plan.accumulating {
                    self.accumulate(call, id, args)
                } else if plan.extends_call_value {
                    // `(a + b) + c`: the left list is the value of a call, held by nothing
                    // else, so it is extended in place (cel-go concatenates lazily);
                    // copying it at each `+` made a chain of n additions quadratic. Its
                    // runtime cost is constant, so the consumed argument is not needed
                    // for costing.
                    let x = std::mem::replace(&mut args[0], Val::Null);
                    Some(crate::cel::library::stdlib::concat_accumulator(x, &args[1]))
                } else {
                    None
                };
                (extended.unwrap_or_else(|| imp(args)), id)
            }
            // cel-go plans indexing as attribute qualification, not an overload call: a
            // `dyn` operand that no overload takes is qualified as `refQualify` does.
            Err(_) if index => (index_qualify(name == "_[?_]", &args[0], &args[1]), ""),
            Err(err) => return Err(err),
        };
        let cost = match &result {
            // An optional index that finds nothing is free (cel-go plans it as an
            // optional qualifier).
            Ok(Val::Optional(None))
                if name == "_[?_]"
                    || (name == "_[_]" && matches!(args.first(), Some(Val::Optional(_)))) =>
            {
                0
            }
            Ok(r) => self.call_cost(plan, overload_id, args, r),
            Err(_) => self.call_cost(plan, overload_id, args, &Val::Null),
        };
        Ok((result, cost))
    }

    /// A conditional's branch: cel-go plans `c ? a : b` as a conditional attribute, whose
    /// branch identifiers are resolved without the identifier cost (qualifiers still cost).
    fn eval_branch(&mut self, e: &'a IdedExpr) -> EvalResult<'a> {
        match &e.expr {
            Expr::Ident(name) if self.prog.node(e).constant.is_none() => match self.lookup_ident(e, name) {
                Some(v) => v,
                None => match type_value(name) {
                    Some(t) => Ok(Val::Type(t)),
                    None => Err(EvalError::new(format!("no such attribute(s): {}", name))),
                },
            },
            Expr::Select(sel)
                if !sel.test && matches!(sel.operand.expr, Expr::Ident(_) | Expr::Select(_)) =>
            {
                let operand = self.eval_branch(&sel.operand)?;
                self.charge(1)?;
                select_field(&operand, &sel.field)
            }
            _ => self.eval(e),
        }
    }
}

/// The cost of a unary or binary call of a single overload ([`Evaluator::eval_strict`]):
/// its overload's cost on the operands (a failed one counting as null) and the result.
#[inline]
fn strict_call_cost(plan: &CallPlan, args: &[Val], r: &EvalResult, model: CostModel) -> u64 {
    if plan.unit_cost {
        return 1;
    }
    match r {
        Ok(v) => planned_call_cost(plan, plan.single, args, v, model),
        Err(_) => planned_call_cost(plan, plan.single, args, &Val::Null, model),
    }
}

/// The runtime cost of a planned call on `args` with `result` (cel-go's `CallCost`
/// observer), with the planner's shortcuts for unit-cost overloads and scalar equality.
fn planned_call_cost(plan: &CallPlan, overload_id: &str, args: &[Val], result: &Val, model: CostModel) -> u64 {
    if plan.unit_cost {
        return 1;
    }
    // Scalars are no Kubernetes library type and have size 1: cel-go's default
    // `equals` cost, ceil(0.1 * 1).
    if plan.equality
        && args.iter().all(|a| {
            matches!(a, Val::Null | Val::Bool(_) | Val::Int(_) | Val::Uint(_) | Val::Double(_))
        })
    {
        return 1;
    }
    if overload_id == plan.single {
        return plan.cost.cost(args, result);
    }
    CallCost::of(&plan.fname, overload_id, model).cost(args, result)
}

/// [`dispatch`] with the overloads resolved at planning time.
fn dispatch_planned(plan: &CallPlan, args: &[Val]) -> Result<Impl, EvalError> {
    if let Some(imp) = plan.direct {
        return Ok(imp);
    }
    for (_, imp, params) in &plan.candidates {
        let fits = params
            .as_ref()
            .map(|ps| ps.len() == args.len() && ps.iter().zip(args).all(|(p, a)| runtime_fits(p, a)))
            .unwrap_or(false);
        if fits {
            return Ok(*imp);
        }
    }
    Err(EvalError::no_such_overload())
}

/// Picks the implementation: the single resolved overload, or the first candidate whose
/// parameter types accept the runtime arguments.
fn dispatch(
    env: &Env,
    candidates: &[&'static str],
    args: &[Val],
) -> Result<(Impl, &'static str), EvalError> {
    {
        if candidates.len() == 1 {
            if let Some(Some(imp)) = env.impls.get(candidates[0]) {
                return Ok((*imp, candidates[0]));
            }
        }
        for id in candidates {
            let Some(Some(imp)) = env.impls.get(id) else {
                continue;
            };
            let fits = env
                .params
                .get(id)
                .map(|ps| {
                    ps.len() == args.len() && ps.iter().zip(args).all(|(p, a)| runtime_fits(p, a))
                })
                .unwrap_or(false);
            if fits {
                // Several candidates: cel-go's call has no single overload id for costing.
                return Ok((*imp, if candidates.len() == 1 { id } else { "" }));
            }
        }
        Err(EvalError::no_such_overload())
    }
}

impl<'a, 'v> Evaluator<'a, 'v> {
    /// `_&&_` / `_||_`: left to right, short-circuiting on the absorbing value; errors
    /// are absorbed when the other side decides.
    fn eval_logic(&mut self, call: &'a cel::common::ast::CallExpr, and: bool) -> EvalResult<'a> {
        let absorbing = !and;
        let mut err: Option<EvalError> = None;
        for a in &call.args {
            match self.eval(a) {
                Ok(Val::Bool(b)) if b == absorbing => return Ok(Val::Bool(absorbing)),
                Ok(Val::Bool(_)) => {}
                Ok(_) => {
                    if err.is_none() {
                        err = Some(EvalError::no_such_overload());
                    }
                }
                Err(e) => {
                    if e.kind == crate::cel::value::ErrorKind::CostLimit {
                        return Err(e);
                    }
                    if err.is_none() {
                        err = Some(e);
                    }
                }
            }
        }
        match err {
            Some(e) => Err(e),
            None => Ok(Val::Bool(!absorbing)),
        }
    }
}

/// Whether a runtime value can be passed where the overload parameter type is declared.
fn runtime_fits(p: &Type, v: &Val) -> bool {
    match (p, v) {
        (Type::Dyn | Type::Param(_) | Type::Error, _) => true,
        (Type::Null, Val::Null) => true,
        (Type::Bool, Val::Bool(_)) => true,
        (Type::Int, Val::Int(_)) => true,
        (Type::Uint, Val::Uint(_)) => true,
        (Type::Double, Val::Double(_)) => true,
        (Type::String, Val::String(_)) => true,
        (Type::Bytes, Val::Bytes(_)) => true,
        (Type::Duration, Val::Duration(_)) => true,
        (Type::Timestamp, Val::Timestamp(_)) => true,
        (Type::List(_), Val::List(_)) => true,
        (Type::Map(..), Val::Map(_)) => true,
        (Type::Object(_), Val::Map(m)) => m.is_object(),
        (Type::TypeOf(_), Val::Type(_)) => true,
        (Type::Opaque(n, _), Val::Optional(_)) => &**n == crate::cel::types::OPTIONAL,
        (Type::Opaque(n, _), Val::Opaque(o)) => &**n == o.type_name(),
        _ => false,
    }
}

/// How a call is costed at run time (cel-go's `CallCost` observer): the Kubernetes and
/// extension trackers' cost, else cel-go's default for the overload. Which rule applies
/// depends only on the function, the overload and the release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CallCost {
    tracker: crate::cel::library::cost::Tracker,
    default: DefaultCost,
}

/// cel-go's default runtime cost of an overload (`interpreter/runtimecost.go`
/// `costCall`): sized for string, bytes and list operations, else 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DefaultCost {
    One,
    /// A traversal of the first argument (`startsWith`, `endsWith`, `bytes`, `string`).
    TraverseFirst,
    /// The size of the list searched (`in`).
    SecondSize,
    /// A traversal of the smaller operand (ordering of strings and bytes, `==`, `!=`).
    TraverseSmaller,
    /// A traversal of both operands (`+` of strings, bytes).
    TraverseBoth,
    /// The string against the regex (`matches`).
    Matches,
    /// The string against the substring (`contains`).
    Contains,
}

impl CallCost {
    fn of(function: &str, overload_id: &str, model: CostModel) -> CallCost {
        CallCost {
            tracker: crate::cel::library::cost::Tracker::of(function, overload_id, model),
            default: DefaultCost::of(overload_id),
        }
    }

    /// The cost is 1 whatever the arguments.
    fn is_unit(&self) -> bool {
        self.tracker.is_none() && self.default == DefaultCost::One
    }

    fn cost(&self, args: &[Val], result: &Val) -> u64 {
        match self.tracker.cost(args, result) {
            Some(c) => c,
            None => self.default.cost(args),
        }
    }
}

impl DefaultCost {
    fn of(overload_id: &str) -> DefaultCost {
        match overload_id {
            "starts_with_string" | "ends_with_string" | "string_to_bytes" | "bytes_to_string" => {
                DefaultCost::TraverseFirst
            }
            "in_list" => DefaultCost::SecondSize,
            id if crate::cel::cost_model::compares_sized_operands(id) => DefaultCost::TraverseSmaller,
            "add_string" | "add_bytes" => DefaultCost::TraverseBoth,
            "matches_string" => DefaultCost::Matches,
            "contains_string" => DefaultCost::Contains,
            _ => DefaultCost::One,
        }
    }

    fn cost(self, args: &[Val]) -> u64 {
        let trav = |n: u64| -> u64 { (n as f64 * 0.1).ceil() as u64 };
        // Each cost is a non-decreasing function of the operands' sizes, so where it is the
        // same at both ends of a string's size bounds it is the cost: most strings are never
        // counted (`'front' + '-'` costs 1 at any size from 2 to 6).
        let of = |i: usize, f: &dyn Fn(u64) -> u64| -> u64 {
            let (lo, hi) = size_bounds(&args[i]);
            let c = f(lo);
            if c == f(hi) {
                c
            } else {
                f(actual_size(&args[i]))
            }
        };
        match self {
            DefaultCost::One => 1,
            DefaultCost::TraverseFirst => of(0, &trav),
            DefaultCost::SecondSize => actual_size(&args[1]),
            // trav(min(a, b)) = min(trav(a), trav(b)): trav does not decrease.
            DefaultCost::TraverseSmaller => of(0, &trav).min(of(1, &trav)),
            DefaultCost::TraverseBoth => {
                let ((lo0, hi0), (lo1, hi1)) = (size_bounds(&args[0]), size_bounds(&args[1]));
                let c = trav(lo0 + lo1);
                if c == trav(hi0 + hi1) {
                    c
                } else {
                    trav(actual_size(&args[0]) + actual_size(&args[1]))
                }
            }
            DefaultCost::Matches => {
                let s = of(0, &|n| ((1.0 + n as f64) * 0.1).ceil() as u64);
                let r = of(1, &|n| (n as f64 * 0.25).ceil() as u64);
                s * r
            }
            DefaultCost::Contains => of(0, &trav) * of(1, &trav),
        }
    }
}

/// The least and the most [`actual_size`] can be without counting: a string of n bytes has
/// n/4 (rounded up) to n code points; any other value's size is cheap to know exactly.
fn size_bounds(v: &Val) -> (u64, u64) {
    match v {
        Val::String(s) => {
            let n = s.as_str().len() as u64;
            (n.div_ceil(4), n)
        }
        other => {
            let n = actual_size(other);
            (n, n)
        }
    }
}

fn type_value(name: &str) -> Option<Type> {
    Some(match name {
        "int" => Type::Int,
        "uint" => Type::Uint,
        "double" => Type::Double,
        "bool" => Type::Bool,
        "string" => Type::String,
        "bytes" => Type::Bytes,
        "null_type" => Type::Null,
        "list" => Type::list(Type::Dyn),
        "map" => Type::map(Type::Dyn, Type::Dyn),
        "type" => Type::type_of(Type::Dyn),
        "google.protobuf.Duration" => Type::Duration,
        "google.protobuf.Timestamp" => Type::Timestamp,
        crate::cel::checker::OPTIONAL_TYPE_NAME => Type::optional(Type::Dyn),
        _ => return None,
    })
}

/// The value of a library's type-name variable (`net.IP`): the type it names. cel-go
/// plans identifiers whose checked type is a type as constants (`planCheckedIdent`), so
/// they cost nothing.
fn library_type_variable<'a>(env: &Env, name: &str) -> Option<Val<'a>> {
    match crate::cel::checker::library_variable(&env.options, name)? {
        Type::TypeOf(t) => Some(Val::Type((*t).clone())),
        _ => None,
    }
}

fn display_key(k: &Val) -> String {
    match k {
        Val::String(s) => s.as_str().to_string(),
        Val::Int(i) => i.to_string(),
        Val::Uint(u) => u.to_string(),
        Val::Bool(b) => b.to_string(),
        other => format!("{:?}", other),
    }
}

/// `operand.field`.
pub fn select_field<'a>(operand: &Val<'a>, field: &str) -> EvalResult<'a> {
    match operand {
        Val::Map(m) => match m.get(&Val::str(field)) {
            Some(r) => r,
            None => Err(EvalError::new(format!("no such key: {}", field))),
        },
        Val::Optional(o) => Ok(match o {
            Some(inner) => match select_field(inner, field) {
                Ok(v) => Val::optional(Some(v)),
                Err(_) => Val::optional(None),
            },
            None => Val::optional(None),
        }),
        // cel-go `refQualify`: a list takes only numeric indexes; other values have no
        // fields.
        Val::List(_) => Err(EvalError::new("unsupported index type 'string' in list")),
        _ => Err(EvalError::new(format!("no such key: {}", field))),
    }
}

/// `has(operand.field)`.
pub fn has_field(operand: &Val, field: &str) -> Result<bool, EvalError> {
    match operand {
        // `unstructuredMap.Find` (cel-go's presence test reports the error of a value that
        // does not fit its schema): an object has a field when it is declared and not null.
        Val::Map(m @ Map::Json { .. }) => match m.get(&Val::str(field)) {
            Some(Err(e)) => Err(e),
            Some(Ok(_)) => Ok(true),
            None => Ok(false),
        },
        Val::Map(m) => Ok(m.get(&Val::str(field)).is_some()),
        Val::Optional(Some(inner)) => has_field(inner, field),
        Val::Optional(None) => Ok(false),
        // cel-go `refQualify` with a presence test: lists refuse a string index, other
        // values have no fields.
        Val::List(_) => Err(EvalError::new("unsupported index type 'string' in list")),
        _ => Ok(false),
    }
}

/// The Go type cel-go's `%T` prints for a value (`types.Int`, `*types.Optional`, ...).
fn go_type_name(v: &Val) -> String {
    match v {
        Val::Null => "types.Null".into(),
        Val::Bool(_) => "types.Bool".into(),
        Val::Int(_) => "types.Int".into(),
        Val::Uint(_) => "types.Uint".into(),
        Val::Double(_) => "types.Double".into(),
        Val::String(_) => "types.String".into(),
        Val::Bytes(_) => "types.Bytes".into(),
        Val::Duration(_) => "types.Duration".into(),
        Val::Timestamp(_) => "types.Timestamp".into(),
        Val::List(_) => "traits.Lister".into(),
        Val::Map(_) => "traits.Mapper".into(),
        Val::Optional(_) => "*types.Optional".into(),
        Val::Type(_) => "*types.Type".into(),
        // The apiserver's library types live in package `cel` (k8s.io/apiserver/pkg/cel).
        Val::Opaque(o) => format!("cel.{}", o.type_name().rsplit('.').next().unwrap_or("")),
    }
}

/// `container[key]` / `container[?key]` on values no index overload takes (cel-go
/// `refQualify`): lists take numeric indexes, values without entries have no key (absent
/// for the optional form).
fn index_qualify<'a>(optional: bool, container: &Val<'a>, key: &Val<'a>) -> EvalResult<'a> {
    if !optional {
        return crate::cel::library::stdlib::index_value(container, key);
    }
    match container {
        Val::Optional(None) => Ok(Val::optional(None)),
        Val::Optional(Some(inner)) => index_qualify(true, inner, key),
        Val::List(l) => {
            let i = crate::cel::library::stdlib::list_index(key)?;
            match usize::try_from(i).ok().and_then(|i| l.get(i)) {
                Some(r) => Ok(Val::optional(Some(r?))),
                None => Ok(Val::optional(None)),
            }
        }
        Val::Map(m) => match m.get(key) {
            Some(r) => Ok(Val::optional(Some(r?))),
            None => Ok(Val::optional(None)),
        },
        _ => Ok(Val::optional(None)),
    }
}

/// `operand.?field`: an optional of the field when present (cel-go `QualifyIfPresent`:
/// values without fields have none; lists refuse a string index).
fn optional_select<'a>(operand: &Val<'a>, field: &str) -> EvalResult<'a> {
    match operand {
        Val::Optional(None) => Ok(Val::optional(None)),
        Val::Optional(Some(inner)) => optional_select(inner, field),
        Val::Map(_) => {
            if has_field(operand, field)? {
                Ok(Val::optional(Some(select_field(operand, field)?)))
            } else {
                Ok(Val::optional(None))
            }
        }
        Val::List(_) => Err(EvalError::new("unsupported index type 'string' in list")),
        _ => Ok(Val::optional(None)),
    }
}

/// cel-go's `OptOptimize` decorators, bottom up: returns the constant value of `e` when it
/// is (or folds to) a constant.
fn fold(
    p: &Planning,
    e: &IdedExpr,
    folded: &mut IdMap<Val<'static>>,
    members: &mut IdMap<Vec<Val<'static>>>,
) -> Result<Option<Val<'static>>, EvalError> {
    let out = match &e.expr {
        Expr::Literal(_) => return Ok(p.consts.get(&e.id).cloned()),
        Expr::List(l) => {
            let mut vals = Vec::new();
            let mut all = l.optional_indices.is_empty();
            for el in &l.elements {
                match fold(p, el, folded, members)? {
                    Some(v) => vals.push(v),
                    None => all = false,
                }
            }
            if all {
                Some(Val::list(vals))
            } else {
                None
            }
        }
        Expr::Map(m) => {
            let mut entries: Vec<(Val<'static>, Val<'static>)> = Vec::new();
            let mut all = true;
            for en in &m.entries {
                let EntryExpr::MapEntry(me) = &en.expr else {
                    all = false;
                    continue;
                };
                let k = fold(p, &me.key, folded, members)?;
                let v = fold(p, &me.value, folded, members)?;
                match (k, v) {
                    (Some(k), Some(v)) if !me.optional => {
                        if entries
                            .iter()
                            .any(|(ek, _)| crate::cel::value::key_equal(ek, &k))
                        {
                            all = false;
                        }
                        entries.push((k, v));
                    }
                    _ => all = false,
                }
            }
            if all {
                Some(Val::map(entries))
            } else {
                None
            }
        }
        Expr::Call(c) => {
            if let Some(t) = &c.target {
                fold(p, t, folded, members)?;
            }
            let mut args = Vec::new();
            let mut all = true;
            for a in &c.args {
                match fold(p, a, folded, members)? {
                    Some(v) => args.push(v),
                    None => all = false,
                }
            }
            let ids = p
                .checked
                .overloads
                .get(&e.id)
                .map(|v| &v[..])
                .unwrap_or(&[]);
            // cel-go's regex optimizations compile a constant pattern of matches/find/findAll
            // when the program is planned: a bad pattern is a program error.
            if matches!(c.func_name.as_str(), "matches" | "find" | "findAll") {
                let pattern = if c.target.is_some() {
                    c.args.first()
                } else {
                    c.args.get(1)
                };
                if let Some(Expr::Literal(LiteralValue::String(pat))) = pattern.map(|x| &x.expr) {
                    crate::cel::library::stdlib::compile_regex(pat.inner())?;
                }
            }
            if c.target.is_none()
                && c.args.len() == 1
                && all
                && CONVERSIONS.contains(&c.func_name.as_str())
            {
                let (imp, _) = dispatch(&p.env, ids, &args)?;
                Some(imp(&args)?)
            } else if c.func_name == "@in" && ids == ["in_list"] {
                if let Some(Val::List(l)) = fold(p, &c.args[1], folded, members)? {
                    let items = l.try_items()?;
                    if items.is_empty() {
                        Some(Val::Bool(false))
                    } else if items.iter().all(|x| {
                        matches!(
                            x,
                            Val::Null
                                | Val::Bool(_)
                                | Val::Int(_)
                                | Val::Uint(_)
                                | Val::Double(_)
                                | Val::String(_)
                        )
                    }) {
                        members.insert(e.id, items);
                        None
                    } else {
                        None
                    }
                } else {
                    None
                }
            } else {
                None
            }
        }
        Expr::Select(s) => {
            fold(p, &s.operand, folded, members)?;
            None
        }
        Expr::Comprehension(c) => {
            for x in [
                &c.iter_range,
                &c.accu_init,
                &c.loop_cond,
                &c.loop_step,
                &c.result,
            ] {
                fold(p, x, folded, members)?;
            }
            None
        }
        _ => None,
    };
    if let Some(v) = &out {
        if !matches!(e.expr, Expr::Literal(_)) {
            folded.insert(e.id, v.clone());
        }
    }
    Ok(out)
}

/// Whether cel-go's regex optimization rewrites the call (`CompileRegexConstants`): a
/// `matches`, `find` or `findAll` call whose pattern (the argument after the string) is a
/// constant string.
fn regex_optimized(p: &Planning, c: &cel::common::ast::CallExpr) -> bool {
    if !matches!(c.func_name.as_str(), "matches" | "find" | "findAll") {
        return false;
    }
    let pattern = if c.target.is_some() {
        c.args.first()
    } else {
        c.args.get(1)
    };
    match pattern {
        Some(x) => {
            matches!(&x.expr, Expr::Literal(LiteralValue::String(_)))
                || matches!(p.folded.get(&x.id), Some(Val::String(_)))
        }
        None => false,
    }
}

/// Whether cel-go plans an expression as an attribute: identifiers, field selections and
/// index/optional qualifiers.
fn is_attribute(e: &IdedExpr) -> bool {
    match &e.expr {
        Expr::Ident(_) => true,
        Expr::Select(s) => !s.test,
        Expr::Call(c) => {
            c.target.is_none() && matches!(c.func_name.as_str(), "_[_]" | "_[?_]" | "_?._")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cel::env::EnvOptions;

    /// A program over `xs: list(int)` in the Kubernetes 1.36 environment.
    fn program(expr: &str) -> Program {
        let opts = EnvOptions::for_version(35);
        let base = crate::cel::environment::base_env(&opts);
        let env =
            crate::cel::env::env_with_variables(&base, &[("xs".to_string(), Type::list(Type::Int))]);
        match crate::cel::compile::compile_program(Arc::new(env), expr) {
            Ok(p) => p,
            Err(_) => panic!("{} does not compile", expr),
        }
    }

    /// Value (as the vectors print it) and actual cost of `expr` with `xs = [0, n)`.
    fn run(expr: &str, n: i64) -> (serde_json::Value, u64) {
        let p = program(expr);
        let xs = Val::list((0..n).map(Val::Int).collect());
        let (r, cost) = p.eval(&[("xs", xs)], Some(crate::cel::config::PER_CALL_LIMIT));
        match r {
            Ok(v) => (crate::cel::eval::plain_value(&v), cost),
            Err(e) => panic!("{}: {}", expr, e),
        }
    }

    /// Actual cost and error (if any) of an expression-mode evaluation with `m` (dyn).
    fn cost(expr: &str, m: serde_json::Value) -> (u64, Option<String>) {
        let vars = serde_json::json!({ "m": m });
        let out = crate::cel::eval::evaluate(
            expr,
            Some(&vars),
            None,
            crate::version::KubeVersion::LATEST,
        );
        let c = out.get("actualCost").and_then(|c| c.as_u64());
        match c {
            Some(c) => (
                c,
                out.get("evalError")
                    .and_then(|e| e.as_str())
                    .map(str::to_string),
            ),
            None => panic!("{}: {:?}", expr, out),
        }
    }

    #[test]
    fn attribute_costs_follow_cel_go_observers() {
        use serde_json::json;
        // An attribute costs 1 plus 1 per qualifier tried, the failing one included.
        assert_eq!(cost("m.a.b", json!({})), (2, Some("no such key: a".into())));
        assert_eq!(cost("m.a.b", json!({"a": {"b": 1}})), (3, None));
        // `==` is still charged on the error: 1 + a 1 + `==` 1.
        assert_eq!(cost("m.a == 1", json!({})).0, 3);
        // Presence tests: the attribute's own 1 is refunded, the test's qualifier charged
        // when reached.
        assert_eq!(cost("has(m.a)", json!({})), (1, None));
        assert_eq!(cost("has(m.a.b)", json!({"a": {}})), (2, None));
        // `a` fails: it is the last qualifier tried.
        assert_eq!(
            cost("has(m.a.b)", json!({})),
            (1, Some("no such key: a".into()))
        );
        // On a value that is not an attribute, the test qualifier is on a relative attribute:
        // the literal is constant (0), the qualifier 1.
        assert_eq!(cost("has({'a': 1}.a)", json!(null)), (1, None));
        assert_eq!(cost("has({'a': 1}.b)", json!(null)), (1, None));
        // Optional mode: after `.?a` found nothing the test is not reached; after it found
        // something the test is charged only when the field is there.
        assert_eq!(cost("has(m.?a.b)", json!({})), (0, None));
        assert_eq!(cost("has(m.?a.b)", json!({"a": {}})), (1, None));
        assert_eq!(cost("has(m.?a.b)", json!({"a": {"b": 1}})), (2, None));
        // An optional stored as a value is not optional mode: map 30, optional.none() 1,
        // qualifier k 1, test 1.
        assert_eq!(
            cost("has({'k': optional.none()}.k.v)", json!(null)),
            (33, None)
        );
        // Optional selection on a value that is not an attribute: relative attribute 1, the
        // qualifier 1 only when it finds the field.
        assert_eq!(cost("{'a': 1}.?a", json!(null)), (2, None));
        assert_eq!(cost("{'a': 1}.?b", json!(null)), (1, None));
        assert_eq!(cost("m.?b", json!({})), (1, None));
    }

    #[test]
    fn literals_are_charged_when_an_element_fails() {
        use serde_json::json;
        // m 1, x 1 (fails), the list 10; the second element is not evaluated.
        assert_eq!(
            cost("[m.x, m.y]", json!({})),
            (12, Some("no such key: x".into()))
        );
        // m 1, x 1, the map 30.
        assert_eq!(
            cost("{'k': m.x}", json!({})),
            (32, Some("no such key: x".into()))
        );
        // In a comprehension, every failing step still pays for its list.
        assert_eq!(
            cost("[1, 2].map(x, m.x).size()", json!({})).0,
            2 * (1 + 1 + 1 + 10 + 1) + 1 + 1
        );
    }

    #[test]
    fn constant_pattern_calls_stop_at_a_failing_string() {
        use serde_json::json;
        // `matches` with a constant pattern is a variadic call in cel-go: the failing string
        // ends it before the pattern, and the call is not charged (m 1, x 1).
        assert_eq!(
            cost("m.x.matches('^a+$')", json!({})),
            (2, Some("no such key: x".into()))
        );
        assert_eq!(
            cost("matches(m.x, '^a+$')", json!({})),
            (2, Some("no such key: x".into()))
        );
        // With a string: ceil((1 + 2) * 0.1) * ceil(4 * 0.25) = 1 for the call.
        assert_eq!(cost("m.x.matches('^a+$')", json!({"x": "aa"})), (3, None));
        // A pattern that is not constant keeps the binary call, charged on the error:
        // m 1, x 1, m.p 2, the call ceil((1 + 1) * 0.1) * ceil(4 * 0.25) = 1.
        assert_eq!(
            cost("m.x.matches(m.p)", json!({"p": "^a+$"})),
            (5, Some("no such key: x".into()))
        );
    }

    #[test]
    fn accumulating_macros_build_large_results() {
        // 10,000 iterations: copying the accumulator each step would be 50M element copies
        // per macro; these finish at once when the accumulator is extended in place.
        let n = 10_000;
        let cases: [(&str, serde_json::Value); 6] = [
            (
                "xs.map(x, x * 2)",
                serde_json::json!((0..n).map(|x| x * 2).collect::<Vec<_>>()),
            ),
            (
                "xs.filter(x, x % 3 == 0)",
                serde_json::json!((0..n).filter(|x| x % 3 == 0).collect::<Vec<_>>()),
            ),
            (
                "xs.map(x, x % 2 == 1, x + 1)",
                serde_json::json!((0..n)
                    .filter(|x| x % 2 == 1)
                    .map(|x| x + 1)
                    .collect::<Vec<_>>()),
            ),
            (
                "xs.transformList(i, x, i + x)",
                serde_json::json!((0..n).map(|x| 2 * x).collect::<Vec<_>>()),
            ),
            (
                "xs.transformMap(i, x, x % 2 == 0, -x)",
                serde_json::json!((0..n)
                    .filter(|x| x % 2 == 0)
                    .map(|x| serde_json::json!([x, -x]))
                    .collect::<Vec<_>>()),
            ),
            (
                "xs.transformMapEntry(i, x, {string(x): i})",
                serde_json::json!((0..n)
                    .map(|x| serde_json::json!([x.to_string(), x]))
                    .collect::<Vec<_>>()),
            ),
        ];
        for (expr, want) in cases {
            let (got, _) = run(expr, n);
            assert!(got == want, "{}: wrong result", expr);
        }
        // Lookups in the built map go through its index.
        assert_eq!(run("xs.transformMap(i, x, x * 3)[9999] == 29997 && !(10000 in xs.transformMap(i, x, x))", n).0, serde_json::json!(true));
        // A duplicate key from transformMapEntry is still refused.
        let p = program("xs.transformMapEntry(i, x, {x % 5000: i})");
        let xs = Val::list((0..n).map(Val::Int).collect());
        let (r, _) = p.eval(&[("xs", xs)], Some(crate::cel::config::PER_CALL_LIMIT));
        assert_eq!(
            r.err().map(|e| e.message),
            Some("insert failed: key 0 already exists".to_string())
        );
    }

    /// The macros' loop conditions (`exists`: `@not_strictly_false(!@result)`, `all`:
    /// `@not_strictly_false(@result)`) are decided from the accumulator: same values and
    /// costs as evaluating them (identifier 1, `!` 1, `@not_strictly_false` 1), the same
    /// cost when the limit is crossed inside one, and an error accumulator goes on.
    #[test]
    fn macro_loop_conditions_cost_as_evaluated() {
        // xs 1, per element condition 3 and step 3 (@result, v, `<`), the result 1.
        assert_eq!(run("xs.exists(v, v < 0)", 10), (serde_json::json!(false), 62));
        // `all`: condition 2, step 3 (@result, v, `>=`).
        assert_eq!(run("xs.all(v, v >= 0)", 10), (serde_json::json!(true), 52));
        // Stops after the element found: three full iterations, then the condition.
        assert_eq!(run("xs.exists(v, v == 2)", 10), (serde_json::json!(true), 23));
        assert_eq!(run("xs.all(v, v < 2)", 10), (serde_json::json!(false), 19));
        // A shadowing iteration variable is not the accumulator.
        assert_eq!(run("xs.exists(v, xs.exists(v, v > 8))", 10).0, serde_json::json!(true));
        // The limit crossed inside the condition (limit 9: the condition's third charge) or
        // right after it (limit 10: the step's first).
        let p = program("xs.exists(v, v < 0)");
        let xs = || Val::list((0..10).map(Val::Int).collect());
        for (limit, cost) in [(9, 10), (10, 11), (8, 9), (7, 8)] {
            let (r, c) = p.eval(&[("xs", xs())], Some(limit));
            assert_eq!(r.err().map(|e| e.message), Some("operation cancelled: actual cost limit exceeded".to_string()), "limit {}", limit);
            assert_eq!(c, cost, "limit {}", limit);
        }
        // An error accumulator: the condition goes on (`@not_strictly_false` of an error);
        // per element condition 3, step 4 (@result, v, `/` failing, `>` charged anyway).
        let p = program("xs.exists(v, v / 0 > 1)");
        let (r, c) = p.eval(&[("xs", xs())], Some(crate::cel::config::PER_CALL_LIMIT));
        assert_eq!(r.err().map(|e| e.message), Some("division by zero".to_string()));
        assert_eq!(c, 2 + 7 * 10);
    }

    #[test]
    fn accumulation_costs_are_per_iteration() {
        // The runtime cost of an accumulating macro is affine in the number of elements:
        // each iteration costs the same, however long the accumulator is.
        for expr in [
            "xs.map(x, x * 2)",
            "xs.filter(x, x % 3 == 0)",
            "xs.transformList(i, x, i + x)",
            "xs.transformMap(i, x, x)",
        ] {
            let c1 = run(expr, 3).1;
            let c2 = run(expr, 6).1;
            let big = run(expr, 9_999).1;
            let per3 = c2 - c1;
            assert_eq!(big, c1 + per3 * 3332, "{}", expr);
        }
        // `xs.map(x, x * 2)`: xs 1; per element the step `@result + [x * 2]` costs
        // @result 1, x 1, `*` 1, list 10, `+` 1; the result @result 1.
        assert_eq!(run("xs.map(x, x * 2)", 10_000).1, 2 + 14 * 10_000);
    }

    #[test]
    fn accumulating_never_mutates_shared_values() {
        // `[1]` and `{}`/`[]` are constants of the program: a run must not extend them.
        let p = program("xs.map(x, [1]).map(l, l + [2]) + [xs.map(x, 1)]");
        for _ in 0..2 {
            let xs = Val::list((0..3).map(Val::Int).collect());
            let (r, _) = p.eval(&[("xs", xs)], None);
            let v = crate::cel::eval::plain_value(&r.expect("evaluates"));
            assert_eq!(v, serde_json::json!([[1, 2], [1, 2], [1, 2], [1, 1, 1]]));
        }
        // Lists the steps read stay intact.
        let p = program("[xs].map(l, l + [9]).map(l, l.size()) + [xs.size()]");
        let xs = Val::list((0..3).map(Val::Int).collect());
        let (r, _) = p.eval(&[("xs", xs.clone())], None);
        assert_eq!(
            crate::cel::eval::plain_value(&r.expect("evaluates")),
            serde_json::json!([4, 3])
        );
        assert_eq!(
            crate::cel::eval::plain_value(&xs),
            serde_json::json!([0, 1, 2])
        );
        let p = program("xs.transformMap(i, x, x).transformMap(k, v, v + 1).size() + xs.transformMap(i, x, x).size()");
        let (r, _) = p.eval(&[("xs", Val::list((0..20).map(Val::Int).collect()))], None);
        assert_eq!(
            crate::cel::eval::plain_value(&r.expect("evaluates")),
            serde_json::json!(40)
        );
    }

    /// Identifiers resolved to comprehension slots at planning time follow CEL's scoping:
    /// the innermost variable of a name wins, a comprehension's range and result see the
    /// enclosing variables, and the variables declared outside stay reachable.
    #[test]
    fn comprehension_variables_resolve_lexically() {
        let cases: [(&str, serde_json::Value); 6] = [
            ("[[1, 2], [3]].map(x, x.map(x, x * 10))", serde_json::json!([[10, 20], [30]])),
            ("xs.all(x, [x].exists(y, y == x))", serde_json::json!(true)),
            // A comprehension in another's range: its `x` is the outer one.
            ("xs.map(x, [x, x + 1].filter(y, y > x).size())", serde_json::json!([1, 1, 1])),
            // The inner accumulator shadows the outer one only inside.
            ("xs.filter(x, xs.exists(y, y > x))", serde_json::json!([0, 1])),
            ("xs.exists(xs, xs == 2)", serde_json::json!(true)),
            ("[xs.map(x, x)].map(l, l.map(x, xs[x] + x))", serde_json::json!([[0, 2, 4]])),
        ];
        for (expr, want) in cases {
            assert_eq!(run(expr, 3).0, want, "{}", expr);
        }
    }

    /// `==` of scalars costs 1; of strings, a tenth of the shorter size (cel-go's
    /// `equals` default): m 1, the field 1, then the call.
    #[test]
    fn equality_costs_by_operand_size() {
        use serde_json::json;
        assert_eq!(cost("m.n == 1", json!({"n": 1})), (3, None));
        assert_eq!(cost("m.n != 1.5", json!({"n": 1})), (3, None));
        let s = "a".repeat(25);
        assert_eq!(cost(&format!("m.s == '{}'", s), json!({ "s": s })), (5, None));
        assert_eq!(cost(&format!("m.s != '{}'", s), json!({ "s": s })), (5, None));
    }

    /// A chain of list additions extends the left operand in place when it is the value
    /// of a call; the lists the variables hold stay as they were, and the cost does not
    /// change (a `+` of lists costs 1 whatever its operands).
    #[test]
    fn list_addition_chains_leave_their_operands_intact() {
        let (v, c) = run("[xs + xs + [7] + xs, xs, [xs[0]] + [1] + [2]]", 2);
        assert_eq!(v, serde_json::json!([[0, 1, 0, 1, 7, 0, 1], [0, 1], [0, 1, 2]]));
        assert_eq!(c, 31);
        let chain = vec!["xs"; 200].join(" + ");
        let (v, _) = run(&format!("({}).size()", chain), 1000);
        assert_eq!(v, serde_json::json!(200_000));
    }

    /// The default costs, whose string sizes are counted only where their bounds leave the
    /// cost open, answer as the formulas over the counted sizes.
    #[test]
    fn default_costs_answer_as_counted_sizes() {
        let trav = |n: u64| (n as f64 * 0.1).ceil() as u64;
        let strings: Vec<String> = (0..60)
            .flat_map(|n| ["a", "ü", "✓", "😀"].map(|c| c.repeat(n)))
            .chain(["ab😀cd😀😀", "x😀😀😀😀😀😀😀😀😀😀"].map(String::from))
            .collect();
        let size = |s: &str| s.chars().count() as u64;
        for a in &strings {
            for b in strings.iter().step_by(7) {
                let args = [Val::string(a.clone()), Val::string(b.clone())];
                let (x, y) = (size(a), size(b));
                let want = [
                    (DefaultCost::TraverseFirst, trav(x)),
                    (DefaultCost::TraverseSmaller, trav(x.min(y))),
                    (DefaultCost::TraverseBoth, trav(x + y)),
                    (DefaultCost::Matches, ((1.0 + x as f64) * 0.1).ceil() as u64 * (y as f64 * 0.25).ceil() as u64),
                    (DefaultCost::Contains, trav(x) * trav(y)),
                ];
                for (cost, want) in want {
                    assert_eq!(cost.cost(&args), want, "{cost:?} of {a:?}, {b:?}");
                }
            }
        }
    }
}
