//! The compact plan: a checked expression compiled once into a flat vector of operations
//! whose operands are indices into it (cel-go's planned `Interpretable`s, laid out
//! contiguously), evaluated without the AST.
//!
//! What the tree-walking [`Evaluator`](super::Evaluator) decides per node at every
//! evaluation is decided here once: variables are resolved to slots (top-level variables
//! by name once per evaluation, comprehension variables to fixed local slots, so no name
//! is compared inside the expression), unary and binary calls carry their implementation,
//! integer and double arithmetic and comparisons are computed inline, a comprehension's
//! loop reads its range's elements by index into its slots.
//!
//! The plan covers the common shapes (see [`Builder::expr`]); a program with any other
//! node has no plan and is evaluated by the tree walker, which stays the reference: every
//! operation here re-expresses the tree walker's evaluation and runtime cost step for
//! step (the tests of this module compare the two, value and cost, under every limit).

use super::{
    go_type_name, is_attribute, select_field, strict_call_cost, CallKind, CallPlan, LoopCond,
    NodePlan, Program,
};
use crate::cel::env::Impl;
use crate::cel::value::{equal, ErrorKind, EvalError, EvalResult, Val};
use cel::common::ast::{ComprehensionExpr, Expr, IdedExpr};

/// Top-level variables a plan may read (more, and the program has no plan): their
/// references live in a fixed array for the evaluation, not an allocation.
const MAX_VARS: usize = 8;

/// A program's compact plan.
pub(super) struct Plan {
    ops: Vec<Op>,
    root: u32,
    /// The top-level variables read, by slot.
    vars: Vec<Box<str>>,
    /// How many comprehension variable slots the evaluation needs.
    locals: usize,
    /// The scalar path's code ([`Exec::try_scalar`]), for the ops where it may start: every
    /// op below is one it takes, and it reads no comprehension variable of an enclosing
    /// comprehension (whose slots the scalar path does not hold when the precise path
    /// evaluates that comprehension).
    scalar: ScalarCode,
}

/// An integer or double operation computed inline (the overload known at planning time);
/// any other operand types, and overflow or division by zero, go to the overload's
/// implementation, whose value and error are the reference.
#[derive(Clone, Copy)]
enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Lt,
    Le,
    Gt,
    Ge,
    /// `==` / `!=` of two ints or two bools (the scalar path only).
    Eq,
    Ne,
}

/// One planned operation. Indices name other operations of the plan.
enum Op {
    /// A constant: a literal or a value cel-go's planner folded. No cost.
    Const(Val<'static>),
    /// A top-level variable; costs `cost` (1, or 0 in a conditional's branch, which
    /// cel-go resolves as an attribute without the identifier's cost).
    Var { slot: u32, cost: u8 },
    /// A comprehension variable in its local slot; costs as [`Op::Var`].
    Local { slot: u32, cost: u8 },
    /// `operand.field`, the tree walker's `eval_select` (`relative`: the operand is not
    /// an attribute, which costs 1 more).
    Select { operand: u32, field: Box<str>, relative: bool },
    /// `operand.field` in a conditional's branch (`eval_branch`).
    BranchSelect { operand: u32, field: Box<str> },
    /// A unary call of one overload (`eval_strict`); `node` names its [`CallPlan`].
    Unary { node: u32, x: u32, imp: Impl },
    /// A binary call of one overload (`eval_strict`); `equality`: `==` (true) or `!=`,
    /// whose cost on scalars is 1; `accumulates`: the comprehension accumulator slot
    /// that `accu + [f(v)]` (`Program::accumulating`) extends in place.
    Binary { node: u32, x: u32, y: u32, imp: Impl, equality: Option<bool>, accumulates: Option<u32> },
    /// `accu + [item]`, a comprehension's step (`map`, `filter`, `transformList`): an
    /// [`Op::Binary`] of unit cost that `accumulates` into `slot`, whose right operand is
    /// the one-element [`Op::List`] `[item]`. Evaluated as those two are, value and cost,
    /// but the element is pushed onto the accumulator without the list around it.
    Append { node: u32, x: u32, item: u32, slot: u32, imp: Impl },
    /// `x[y]` (`_[_]`) of one implemented overload: the tree walker's index call, planned
    /// as an attribute qualifier (`relative`: the operand is not an attribute, which costs
    /// 1 more; the key is evaluated as a conditional's branch is).
    Index { node: u32, x: u32, y: u32, imp: Impl, relative: bool },
    /// A list literal without optional elements that is not a constant (`eval_list`).
    List(Box<[u32]>),
    /// A binary integer/double operation of unit cost with an inline fast path.
    Arith { op: Arith, x: u32, y: u32, imp: Impl },
    /// `_&&_` / `_||_`.
    Logic { and: bool, args: Box<[u32]> },
    /// `c ? t : f` (branches planned as branches).
    Cond { c: u32, t: u32, f: u32 },
    /// `@not_strictly_false(x)`.
    NotStrictlyFalse(u32),
    /// `x in [constants]`; `node` names the call whose plan holds the set.
    Member { x: u32, node: u32 },
    /// A comprehension.
    Fold(Box<Fold>),
}

/// A planned comprehension: its expressions and its variables' local slots.
struct Fold {
    range: u32,
    init: u32,
    cond: u32,
    step: u32,
    result: u32,
    accu: u32,
    iter: u32,
    iter2: Option<u32>,
    shape: LoopCond,
}

/// Builds a [`Plan`] from the checked AST and the tree walker's node plans.
struct Builder<'e> {
    nodes: &'e [NodePlan],
    ops: Vec<Op>,
    vars: Vec<Box<str>>,
    locals: u32,
    /// The comprehension variables in scope, innermost last, with their slots (as
    /// `plan_locals` resolves them).
    env: Vec<(&'e str, u32)>,
}

/// The plan of the expression `root`, or `None` when it has a node the plan does not
/// cover.
pub(super) fn build(root: &IdedExpr, nodes: &[NodePlan]) -> Option<Plan> {
    let mut b = Builder {
        nodes,
        ops: Vec::new(),
        vars: Vec::new(),
        locals: 0,
        env: Vec::new(),
    };
    let root = b.expr(root)?;
    if b.vars.len() > MAX_VARS {
        return None;
    }
    let scalar = scalar_code(&b.ops, &scalar_entries(&b.ops), root);
    Some(Plan {
        ops: b.ops,
        root,
        vars: b.vars,
        locals: b.locals as usize,
        scalar,
    })
}

/// Per op: whether the scalar path may start there, computed over the ops in the order they were pushed (every
/// op after its operands).
fn scalar_entries(ops: &[Op]) -> Vec<bool> {
    // Per op: whether the scalar path takes it, and the local slots it reads that no
    // comprehension inside it binds.
    let mut ok: Vec<bool> = Vec::with_capacity(ops.len());
    let mut free: Vec<Vec<u32>> = Vec::with_capacity(ops.len());
    for op in ops {
        let get = |i: &u32| ok.get(*i as usize).copied().unwrap_or(false);
        let this_ok = match op {
            Op::Const(v) => Scalar::of(v).is_some() || is_empty_list(v),
            Op::Var { .. } | Op::Local { .. } => true,
            Op::Append { x, item, .. } => get(x) && get(item),
            Op::Arith { x, y, .. } | Op::Binary { x, y, equality: Some(_), .. } => get(x) && get(y),
            Op::Logic { args, .. } => args.iter().all(get),
            Op::Cond { c, t, f } => get(c) && get(t) && get(f),
            Op::NotStrictlyFalse(x) => get(x),
            Op::Fold(f) => {
                matches!(ops.get(f.range as usize), Some(Op::Var { .. }))
                    && get(&f.init)
                    && (f.shape != LoopCond::Generic || get(&f.cond))
                    && get(&f.step)
                    && get(&f.result)
            }
            _ => false,
        };
        let mut reads: Vec<u32> = Vec::new();
        let mut add = |i: u32| {
            if let Some(r) = free.get(i as usize) {
                reads.extend(r);
            }
        };
        match op {
            Op::Local { slot, .. } => reads.push(*slot),
            Op::Select { operand, .. } | Op::BranchSelect { operand, .. } => add(*operand),
            Op::Unary { x, .. } | Op::NotStrictlyFalse(x) | Op::Member { x, .. } => add(*x),
            Op::Binary { x, y, .. } | Op::Arith { x, y, .. } | Op::Append { x, item: y, .. } | Op::Index { x, y, .. } => {
                add(*x);
                add(*y)
            }
            Op::Logic { args, .. } | Op::List(args) => args.iter().for_each(|a| add(*a)),
            Op::Cond { c, t, f } => {
                add(*c);
                add(*t);
                add(*f)
            }
            Op::Fold(f) => {
                [f.range, f.init, f.cond, f.step, f.result].into_iter().for_each(&mut add);
                reads.retain(|s| *s != f.accu && *s != f.iter && Some(*s) != f.iter2);
            }
            Op::Const(_) | Op::Var { .. } => {}
        }
        // The shared sort (`go::sort`: no copy of a standard sort of its own in wasm).
        crate::go::sort::sort(&mut reads);
        reads.dedup();
        ok.push(this_ok);
        free.push(reads);
    }
    ok.iter().zip(&free).map(|(ok, free)| *ok && free.is_empty()).collect()
}

impl<'e> Builder<'e> {
    fn push(&mut self, op: Op) -> Option<u32> {
        let i = u32::try_from(self.ops.len()).ok()?;
        self.ops.push(op);
        Some(i)
    }

    fn var_slot(&mut self, name: &str) -> u32 {
        match self.vars.iter().position(|v| &**v == name) {
            Some(i) => i as u32,
            None => {
                self.vars.push(name.into());
                (self.vars.len() - 1) as u32
            }
        }
    }

    fn local(&self, name: &str) -> Option<u32> {
        self.env.iter().rev().find(|(n, _)| *n == name).map(|(_, s)| *s)
    }

    /// An identifier: its local slot or its variable slot. The tree walker's planner must
    /// have resolved it the same way (`NodePlan::local`), else no plan.
    fn ident(&mut self, node: &NodePlan, name: &str, cost: u8) -> Option<u32> {
        match (self.local(name), node.local) {
            (Some(slot), Some(_)) => self.push(Op::Local { slot, cost }),
            (None, None) => {
                let slot = self.var_slot(name);
                self.push(Op::Var { slot, cost })
            }
            _ => None,
        }
    }

    /// The tree walker's `eval` of `e`.
    fn expr(&mut self, e: &'e IdedExpr) -> Option<u32> {
        let node = self.nodes.get(usize::try_from(e.id).ok()?)?;
        if let Some(v) = &node.constant {
            return self.push(Op::Const(v.clone()));
        }
        match &e.expr {
            Expr::Ident(name) => self.ident(node, name, 1),
            Expr::Select(sel) if !sel.test && !node.qualified_ident && node.local.is_none() => {
                let operand = self.expr(&sel.operand)?;
                self.push(Op::Select {
                    operand,
                    field: sel.field.as_str().into(),
                    relative: !is_attribute(&sel.operand),
                })
            }
            Expr::Call(call) if node.local.is_none() => {
                let plan: &CallPlan = node.call.as_deref()?;
                match &plan.kind {
                    CallKind::Logic { and } => {
                        let args = call
                            .args
                            .iter()
                            .map(|a| self.expr(a))
                            .collect::<Option<Box<[u32]>>>()?;
                        self.push(Op::Logic { and: *and, args })
                    }
                    CallKind::Conditional if call.args.len() == 3 => {
                        let c = self.expr(&call.args[0])?;
                        let t = self.branch(&call.args[1])?;
                        let f = self.branch(&call.args[2])?;
                        self.push(Op::Cond { c, t, f })
                    }
                    CallKind::NotStrictlyFalse if call.args.len() == 1 => {
                        let x = self.expr(&call.args[0])?;
                        self.push(Op::NotStrictlyFalse(x))
                    }
                    CallKind::Member(_) if !call.args.is_empty() => {
                        let x = self.expr(&call.args[0])?;
                        self.push(Op::Member {
                            x,
                            node: u32::try_from(e.id).ok()?,
                        })
                    }
                    CallKind::Generic
                        if plan.index
                            && call.func_name == "_[_]"
                            && call.target.is_none()
                            && call.args.len() == 2
                            && !plan.accumulating
                            && !plan.extends_call_value
                            && !plan.variadic =>
                    {
                        let imp = plan.direct?;
                        let relative = !is_attribute(&call.args[0]);
                        let x = self.expr(&call.args[0])?;
                        let y = self.branch(&call.args[1])?;
                        self.push(Op::Index { node: u32::try_from(e.id).ok()?, x, y, imp, relative })
                    }
                    CallKind::Generic => {
                        // `accu + [f(v)]` is no strict call to the tree walker (it consumes
                        // the accumulator), but its overload is the resolved one.
                        let accumulating = plan.accumulating && plan.single == "add_list" && call.args.len() == 2;
                        let imp = match plan.strict {
                            Some(imp) => imp,
                            None if accumulating && call.target.is_none() => plan.direct?,
                            None => return None,
                        };
                        // The operands as `eval_strict` takes them.
                        let (x, y) = match call.target.as_deref() {
                            Some(t) if !plan.skip_target => (Some(t), call.args.first()),
                            _ => (call.args.first(), call.args.get(1)),
                        };
                        let x = self.expr(x?)?;
                        let node_id = u32::try_from(e.id).ok()?;
                        match y {
                            None => self.push(Op::Unary { node: node_id, x, imp }),
                            Some(y) => {
                                let y = self.expr(y)?;
                                match arith(plan) {
                                    Some(op) => self.push(Op::Arith { op, x, y, imp }),
                                    None => {
                                        let equality = match plan.single {
                                            "equals" if plan.equality => Some(true),
                                            "not_equals" if plan.equality => Some(false),
                                            _ => None,
                                        };
                                        let accumulates = match self.ops.get(x as usize) {
                                            Some(Op::Local { slot, .. }) if accumulating => Some(*slot),
                                            _ if accumulating => return None,
                                            _ => None,
                                        };
                                        let single = match self.ops.get(y as usize) {
                                            Some(Op::List(items)) if items.len() == 1 => Some(items[0]),
                                            _ => None,
                                        };
                                        match (accumulates, single) {
                                            (Some(slot), Some(item)) if plan.unit_cost => {
                                                self.push(Op::Append { node: node_id, x, item, slot, imp })
                                            }
                                            _ => self.push(Op::Binary { node: node_id, x, y, imp, equality, accumulates }),
                                        }
                                    }
                                }
                            }
                        }
                    }
                    _ => None,
                }
            }
            Expr::Comprehension(c) if node.local.is_none() => self.fold(c, node.loop_cond),
            Expr::List(l) if l.optional_indices.is_empty() && !node.constant_literal => {
                let items = l.elements.iter().map(|x| self.expr(x)).collect::<Option<Box<[u32]>>>()?;
                self.push(Op::List(items))
            }
            _ => None,
        }
    }

    /// The tree walker's `eval_branch` of `e` (a conditional's branch).
    fn branch(&mut self, e: &'e IdedExpr) -> Option<u32> {
        let node = self.nodes.get(usize::try_from(e.id).ok()?)?;
        match &e.expr {
            Expr::Ident(name) if node.constant.is_none() => self.ident(node, name, 0),
            Expr::Select(sel)
                if !sel.test && matches!(sel.operand.expr, Expr::Ident(_) | Expr::Select(_)) =>
            {
                let operand = self.branch(&sel.operand)?;
                self.push(Op::BranchSelect {
                    operand,
                    field: sel.field.as_str().into(),
                })
            }
            _ => self.expr(e),
        }
    }

    /// A comprehension: its range and initial accumulator in the enclosing scope, its
    /// condition and step with the accumulator and iteration variables, its result with
    /// the accumulator alone (`plan_locals`).
    fn fold(&mut self, c: &'e ComprehensionExpr, shape: LoopCond) -> Option<u32> {
        let range = self.expr(&c.iter_range)?;
        let init = self.expr(&c.accu_init)?;
        let accu = self.locals;
        let iter = accu + 1;
        let iter2 = c.iter_var2.as_ref().map(|_| accu + 2);
        self.locals = self.locals.checked_add(3)?;
        let mark = self.env.len();
        self.env.push((c.accu_var.as_str(), accu));
        self.env.push((c.iter_var.as_str(), iter));
        if let (Some(n2), Some(s2)) = (&c.iter_var2, iter2) {
            self.env.push((n2.as_str(), s2));
        }
        let cond = self.expr(&c.loop_cond);
        let step = self.expr(&c.loop_step);
        self.env.truncate(mark);
        self.env.push((c.accu_var.as_str(), accu));
        let result = self.expr(&c.result);
        self.env.truncate(mark);
        let fold = Fold {
            range,
            init,
            cond: cond?,
            step: step?,
            result: result?,
            accu,
            iter,
            iter2,
            shape,
        };
        self.push(Op::Fold(Box::new(fold)))
    }
}

/// The inline operation of a unit-cost binary overload, when it has one.
fn arith(plan: &CallPlan) -> Option<Arith> {
    if !plan.unit_cost {
        return None;
    }
    Some(match plan.single {
        "add_int64" | "add_double" => Arith::Add,
        "subtract_int64" | "subtract_double" => Arith::Sub,
        "multiply_int64" | "multiply_double" => Arith::Mul,
        "divide_int64" | "divide_double" => Arith::Div,
        "modulo_int64" => Arith::Rem,
        "less_int64" | "less_double" => Arith::Lt,
        "less_equals_int64" | "less_equals_double" => Arith::Le,
        "greater_int64" | "greater_double" => Arith::Gt,
        "greater_equals_int64" | "greater_equals_double" => Arith::Ge,
        _ => return None,
    })
}

/// The inline value of `op` on two operands, or `None` where the implementation decides
/// (other types, overflow, a zero divisor).
#[inline(always)]
fn arith_value(op: Arith, x: &Val, y: &Val) -> Option<Val<'static>> {
    match (x, y) {
        (Val::Int(a), Val::Int(b)) => {
            let (a, b) = (*a, *b);
            Some(match op {
                Arith::Add => Val::Int(a.checked_add(b)?),
                Arith::Sub => Val::Int(a.checked_sub(b)?),
                Arith::Mul => Val::Int(a.checked_mul(b)?),
                Arith::Div if b != 0 => Val::Int(a.checked_div(b)?),
                Arith::Rem if b != 0 => Val::Int(a.checked_rem(b)?),
                Arith::Lt => Val::Bool(a < b),
                Arith::Le => Val::Bool(a <= b),
                Arith::Gt => Val::Bool(a > b),
                Arith::Ge => Val::Bool(a >= b),
                _ => return None,
            })
        }
        (Val::Double(a), Val::Double(b)) => Some(match op {
            Arith::Add => Val::Double(a + b),
            Arith::Sub => Val::Double(a - b),
            Arith::Mul => Val::Double(a * b),
            Arith::Div => Val::Double(a / b),
            cmp => Val::Bool(double_order(cmp, *a, *b)?),
        }),
        _ => None,
    }
}

/// Whether `v` is the empty list (a list accumulator's start).
fn is_empty_list(v: &Val) -> bool {
    matches!(v, Val::List(l) if l.is_empty())
}

/// Whether two ints, or two bools, are equal; `None` for other operands.
#[inline(always)]
fn scalar_equal(x: &EvalResult, y: &EvalResult) -> Option<bool> {
    match (x, y) {
        (Ok(Val::Int(a)), Ok(Val::Int(b))) => Some(a == b),
        (Ok(Val::Bool(a)), Ok(Val::Bool(b))) => Some(a == b),
        _ => None,
    }
}

/// An ordering of two doubles (cel-go `compareDouble`, by `<` and `>`); `None` for another
/// operation or a NaN, which cannot be ordered (the implementation's error).
#[inline(always)]
fn double_order(op: Arith, a: f64, b: f64) -> Option<bool> {
    if a.is_nan() || b.is_nan() {
        return None;
    }
    Some(match op {
        Arith::Lt => a < b,
        Arith::Le => a <= b,
        Arith::Gt => a > b,
        Arith::Ge => a >= b,
        _ => return None,
    })
}

/// A top-level variable's value for one evaluation.
type VarRef<'v, 'a> = Result<&'v Val<'a>, &'v EvalError>;

/// One evaluation of a plan.
struct Exec<'a, 'v> {
    prog: &'a Program,
    plan: &'a Plan,
    vars: [Option<VarRef<'v, 'a>>; MAX_VARS],
    /// The comprehension variables' slots (made by the first comprehension evaluated).
    locals: Vec<EvalResult<'a>>,
    cost: u64,
    /// The limit (none: the largest cost, which a saturating cost never exceeds).
    limit: u64,
}

fn is_limit(r: &EvalResult) -> bool {
    matches!(r, Err(e) if e.kind == ErrorKind::CostLimit)
}

impl Plan {
    /// Evaluates the plan, the variables found by `lookup`; `None` when one is not there
    /// (the tree walker then resolves the name as a type or library name, or fails).
    pub(super) fn run<'a, 'v>(
        &'a self,
        prog: &'a Program,
        lookup: impl Fn(&str) -> Option<VarRef<'v, 'a>>,
        limit: Option<u64>,
    ) -> Option<(EvalResult<'a>, u64)>
    where
        'a: 'v,
    {
        let mut vars = [None; MAX_VARS];
        for (slot, name) in vars.iter_mut().zip(self.vars.iter()) {
            *slot = Some(lookup(name)?);
        }
        let mut ex = Exec {
            prog,
            plan: self,
            vars,
            locals: Vec::new(),
            cost: 0,
            limit: limit.unwrap_or(u64::MAX),
        };
        if let Some(v) = ex.try_scalar(self.root) {
            return Some((Ok(v), ex.cost));
        }
        let r = ex.eval(self.root);
        Some((r, ex.cost))
    }
}

impl<'a, 'v> Exec<'a, 'v> {
    #[inline(always)]
    fn charge(&mut self, n: u64) -> Result<(), EvalError> {
        self.cost = self.cost.saturating_add(n);
        if self.cost > self.limit {
            return Err(EvalError::cost_limit());
        }
        Ok(())
    }

    #[inline(always)]
    fn var(&self, slot: u32) -> EvalResult<'a> {
        match self.vars.get(slot as usize).copied().flatten() {
            Some(Ok(v)) => Ok(v.clone()),
            Some(Err(e)) => Err(e.clone()),
            None => Err(EvalError::new("unresolved variable")),
        }
    }

    #[inline(always)]
    fn local(&self, slot: u32) -> EvalResult<'a> {
        match self.locals.get(slot as usize) {
            Some(v) => v.clone(),
            None => Err(EvalError::new("unresolved variable")),
        }
    }

    fn eval(&mut self, i: u32) -> EvalResult<'a> {
        let plan: &'a Plan = self.plan;
        let Some(op) = plan.ops.get(i as usize) else {
            return Err(EvalError::new("unplanned expression"));
        };
        match op {
            Op::Const(v) => Ok(v.clone()),
            Op::Var { slot, cost } => {
                let v = self.var(*slot);
                self.charge(*cost as u64)?;
                v
            }
            Op::Local { slot, cost } => {
                let v = self.local(*slot);
                self.charge(*cost as u64)?;
                v
            }
            Op::Cond { c, t, f } => match self.eval(*c)? {
                Val::Bool(true) => self.eval(*t),
                Val::Bool(false) => self.eval(*f),
                _ => Err(EvalError::no_such_overload()),
            },
            Op::Arith { op, x, y, imp } => {
                let a = self.eval(*x);
                if is_limit(&a) {
                    return a;
                }
                let b = self.eval(*y);
                if is_limit(&b) {
                    return b;
                }
                self.charge(1)?;
                let (a, b) = match (a, b) {
                    (Ok(a), Ok(b)) => (a, b),
                    (Err(e), _) | (_, Err(e)) => return Err(e),
                };
                match arith_value(*op, &a, &b) {
                    Some(v) => Ok(v),
                    None => imp(&[a, b]),
                }
            }
            Op::Logic { and, args } => self.logic(*and, args),
            Op::NotStrictlyFalse(x) => {
                let v = self.eval(*x);
                if is_limit(&v) {
                    return v;
                }
                self.charge(1)?;
                Ok(Val::Bool(!matches!(v, Ok(Val::Bool(false)))))
            }
            Op::Select { operand, field, relative } => {
                let operand = self.eval(*operand)?;
                if *relative {
                    self.charge(1)?;
                }
                let r = match select_field(&operand, field) {
                    Ok(r) => r,
                    Err(err) => {
                        self.charge(1)?;
                        return Err(err);
                    }
                };
                if !matches!((&operand, &r), (Val::Optional(_), Val::Optional(None))) {
                    self.charge(1)?;
                }
                Ok(r)
            }
            Op::BranchSelect { operand, field } => {
                let operand = self.eval(*operand)?;
                self.charge(1)?;
                select_field(&operand, field)
            }
            Op::Unary { node, x, imp } => {
                let a = self.eval(*x);
                if is_limit(&a) {
                    return a;
                }
                let (args, r) = match a {
                    Ok(a) => {
                        let args = [a];
                        let r = imp(&args);
                        (args, r)
                    }
                    Err(e) => ([Val::Null], Err(e)),
                };
                let cost = self.call_cost(*node, &args, &r);
                self.charge(cost)?;
                r
            }
            Op::Binary { node, x, y, imp, accumulates, equality } => {
                let a = self.eval(*x);
                if is_limit(&a) {
                    return a;
                }
                let b = self.eval(*y);
                if is_limit(&b) {
                    return b;
                }
                // `==`/`!=` of two ints or two bools, as the scalar path computes it: the
                // overload's value, and its cost on scalars, 1.
                if let Some(same) = equality.and_then(|_| scalar_equal(&a, &b)) {
                    self.charge(1)?;
                    return Ok(Val::Bool(same == equality.unwrap_or(true)));
                }
                self.binary(*node, *imp, a, b, *accumulates)
            }
            Op::Append { node, x, item, slot, imp } => {
                let a = self.eval(*x);
                if is_limit(&a) {
                    return a;
                }
                // `[item]` as `Op::List` evaluates it.
                let v = self.eval(*item);
                if is_limit(&v) {
                    return v;
                }
                self.charge(10)?;
                match (a, v) {
                    // The accumulator's slot lets go of its list (as `Op::Binary` does);
                    // the call costs 1 (`unit_cost`), whatever its operands.
                    (Ok(a @ Val::List(_)), Ok(v)) => {
                        self.set(*slot, Ok(Val::Null));
                        let r = crate::cel::library::stdlib::append_accumulator(a, v);
                        self.charge(1)?;
                        r
                    }
                    (a, v) => self.binary(*node, *imp, a, v.map(|v| Val::list(vec![v])), Some(*slot)),
                }
            }
            Op::Index { node, x, y, imp, relative } => {
                if *relative {
                    self.charge(1)?;
                }
                let a = self.eval(*x);
                if is_limit(&a) {
                    return a;
                }
                let b = self.eval(*y);
                if is_limit(&b) {
                    return b;
                }
                let (args, err) = match (a, b) {
                    (Ok(a), Ok(b)) => {
                        let args = [a, b];
                        let r = imp(&args);
                        // An index of an optional that finds nothing is free (an optional
                        // qualifier to cel-go).
                        let cost = match (&r, &args[0]) {
                            (Ok(Val::Optional(None)), Val::Optional(_)) => 0,
                            _ => self.call_cost(*node, &args, &r),
                        };
                        self.charge(cost)?;
                        return r;
                    }
                    // The first error, after the call is charged on what evaluated.
                    (Err(e), b) => ([Val::Null, b.unwrap_or(Val::Null)], e),
                    (Ok(a), Err(e)) => ([a, Val::Null], e),
                };
                let r = Err(err);
                let cost = self.call_cost(*node, &args, &r);
                self.charge(cost)?;
                r
            }
            Op::List(items) => {
                // cel-go charges a list literal whether or not its elements evaluated,
                // unless the cost limit stopped them.
                let mut out = Vec::with_capacity(items.len());
                let mut r = Ok(());
                for &item in items.iter() {
                    match self.eval(item) {
                        Ok(v) => out.push(v),
                        Err(e) => {
                            r = Err(e);
                            break;
                        }
                    }
                }
                let r = r.map(|()| Val::list(out));
                if is_limit(&r) {
                    return r;
                }
                self.charge(10)?;
                r
            }
            Op::Member { x, node } => {
                let lhs = self.eval(*x)?;
                match self.call_plan(*node).map(|p| &p.kind) {
                    Some(CallKind::Member(set)) => Ok(Val::Bool(set.iter().any(|m| equal(m, &lhs)))),
                    _ => Err(EvalError::no_such_overload()),
                }
            }
            Op::Fold(f) => match self.try_scalar(i) {
                Some(v) => Ok(v),
                None => self.fold(f),
            },
        }
    }

    fn call_plan(&self, node: u32) -> Option<&'a CallPlan> {
        let prog: &'a Program = self.prog;
        prog.plan.get(node as usize).and_then(|n| n.call.as_deref())
    }

    /// An [`Op::Binary`] call on its evaluated operands: the overload (or the accumulator
    /// extended in place), then its cost.
    fn binary(&mut self, node: u32, imp: Impl, a: EvalResult<'a>, b: EvalResult<'a>, accumulates: Option<u32>) -> EvalResult<'a> {
        let (args, r) = match (a, b, accumulates) {
            // The accumulator's slot lets go of its list, so that the list, held by
            // nothing else, is extended in place (the tree walker's `accumulate`);
            // the call is costed without it, as there.
            (Ok(a @ Val::List(_)), Ok(b), Some(slot)) => {
                self.set(slot, Ok(Val::Null));
                let r = crate::cel::library::stdlib::concat_accumulator(a, &b);
                ([Val::Null, b], r)
            }
            (Ok(a), Ok(b), _) => {
                let args = [a, b];
                let r = imp(&args);
                (args, r)
            }
            (Err(e), b, _) => ([Val::Null, b.unwrap_or(Val::Null)], Err(e)),
            (Ok(a), Err(e), _) => ([a, Val::Null], Err(e)),
        };
        let cost = self.call_cost(node, &args, &r);
        self.charge(cost)?;
        r
    }

    fn call_cost(&self, node: u32, args: &[Val<'a>], r: &EvalResult<'a>) -> u64 {
        match self.call_plan(node) {
            Some(plan) => strict_call_cost(plan, args, r, self.prog.model),
            None => 1,
        }
    }

    /// `_&&_` / `_||_` (the tree walker's `eval_logic`).
    fn logic(&mut self, and: bool, args: &[u32]) -> EvalResult<'a> {
        let absorbing = !and;
        let mut err: Option<EvalError> = None;
        for &a in args {
            match self.eval(a) {
                Ok(Val::Bool(b)) if b == absorbing => return Ok(Val::Bool(absorbing)),
                Ok(Val::Bool(_)) => {}
                Ok(_) => {
                    if err.is_none() {
                        err = Some(EvalError::no_such_overload());
                    }
                }
                Err(e) => {
                    if e.kind == ErrorKind::CostLimit {
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

    /// Whether `n` more cost stays within the limit.
    #[inline(always)]
    fn within_limit(&self, n: u64) -> bool {
        self.cost.saturating_add(n) <= self.limit
    }

    /// A comprehension (the tree walker's `eval_fold` and `loop_continues`).
    fn fold(&mut self, f: &'a Fold) -> EvalResult<'a> {
        let range = self.eval(f.range)?;
        if !matches!(range, Val::List(_) | Val::Map(_)) {
            return Err(EvalError::new(if f.iter2.is_some() {
                format!("unsupported comprehension range type: {}", go_type_name(&range))
            } else {
                format!("got '{}', expected iterable type", go_type_name(&range))
            }));
        }
        let init = self.eval(f.init)?;
        if self.locals.len() < self.plan.locals {
            self.locals.resize_with(self.plan.locals, || Ok(Val::Null));
        }
        self.set(f.accu, Ok(init));
        let two = f.iter2.is_some();
        match &range {
            Val::List(l) => {
                for i in 0..l.len() {
                    let v = l.get(i).unwrap_or_else(|| Err(EvalError::new("index out of range")));
                    match f.iter2 {
                        Some(s2) => {
                            self.set(f.iter, Ok(Val::Int(i as i64)));
                            self.set(s2, v);
                        }
                        None => self.set(f.iter, v),
                    }
                    if !self.iteration(f)? {
                        break;
                    }
                }
            }
            Val::Map(m) => {
                for (k, v) in m.entries() {
                    self.set(f.iter, Ok(k));
                    if let Some(s2) = f.iter2 {
                        self.set(s2, Ok(if two { v } else { Val::Null }));
                    }
                    if !self.iteration(f)? {
                        break;
                    }
                }
            }
            _ => {}
        }
        self.eval(f.result)
    }

    #[inline(always)]
    fn set(&mut self, slot: u32, v: EvalResult<'a>) {
        if let Some(s) = self.locals.get_mut(slot as usize) {
            *s = v;
        }
    }

    /// One iteration after the variables are set: the condition, then the step. `false`
    /// when the condition stops the loop; the cost limit's error stops it too.
    #[inline(always)]
    fn iteration(&mut self, f: &'a Fold) -> Result<bool, EvalError> {
        let decided = match f.shape {
            LoopCond::Accu if self.within_limit(2) => Some((2, false)),
            LoopCond::NotAccu if self.within_limit(3) => Some((3, true)),
            _ => None,
        };
        let go_on = match decided {
            Some((cost, negated)) => {
                self.cost += cost;
                match self.locals.get(f.accu as usize) {
                    Some(Ok(Val::Bool(b))) => *b != negated,
                    _ => true,
                }
            }
            None => match self.eval(f.cond) {
                Ok(Val::Bool(false)) => false,
                Err(e) if e.kind == ErrorKind::CostLimit => return Err(e),
                _ => true,
            },
        };
        if !go_on {
            return Ok(false);
        }
        match self.eval(f.step) {
            Err(e) if e.kind == ErrorKind::CostLimit => return Err(e),
            r => self.set(f.accu, r),
        }
        Ok(true)
    }
}

/// A value of the scalar path: what integer, double and boolean expressions compute,
/// and the list a comprehension accumulates from them (`map`, `filter`).
#[derive(Clone, Copy, PartialEq)]
enum Scalar {
    Int(i64),
    Double(f64),
    Bool(bool),
    /// A list accumulator: the index of its elements among the run's lists (see
    /// [`Ins::ListInit`]). It is only ever read to append to it or as the entry's value;
    /// every other instruction gives up on it, as on any other type.
    List(u32),
}

impl Scalar {
    #[inline(always)]
    fn of(v: &Val) -> Option<Scalar> {
        match v {
            Val::Int(i) => Some(Scalar::Int(*i)),
            Val::Double(d) => Some(Scalar::Double(*d)),
            Val::Bool(b) => Some(Scalar::Bool(*b)),
            _ => None,
        }
    }

    /// The value of an int, double or bool (a list's elements are elsewhere).
    fn val(self) -> Option<Val<'static>> {
        Some(match self {
            Scalar::Int(i) => Val::Int(i),
            Scalar::Double(d) => Val::Double(d),
            Scalar::Bool(b) => Val::Bool(b),
            Scalar::List(_) => return None,
        })
    }
}

/// A fixed array of [`Scalar`]s held as two arrays, kinds and payload bits, so that
/// every read has the width of the write before it. An enum written in two parts (tag,
/// payload) and read back whole defeats the CPU's store forwarding, which stalled each
/// push-then-pop of a loop's step by a dozen cycles.
///
/// Indices are masked to `N` (a power of two) rather than checked: [`scalar_code`] emits
/// no code whose slots or stack depth exceed its arrays, so the mask never changes a
/// valid index, and it spares the loop a bounds check per access.
struct Slots<const N: usize> {
    kind: [u8; N],
    bits: [u64; N],
}

impl<const N: usize> Slots<N> {
    const MASK: usize = {
        assert!(N.is_power_of_two());
        N - 1
    };

    fn new() -> Self {
        Slots { kind: [SLOT_BOOL; N], bits: [0; N] }
    }

    #[inline(always)]
    fn get(&self, i: usize) -> Scalar {
        let i = i & Self::MASK;
        let b = self.bits[i];
        match self.kind[i] {
            SLOT_INT => Scalar::Int(b as i64),
            SLOT_DOUBLE => Scalar::Double(f64::from_bits(b)),
            SLOT_LIST => Scalar::List(b as u32),
            _ => Scalar::Bool(b != 0),
        }
    }

    #[inline(always)]
    fn set(&mut self, i: usize, v: Scalar) {
        let i = i & Self::MASK;
        let (k, b) = match v {
            Scalar::Int(x) => (SLOT_INT, x as u64),
            Scalar::Double(x) => (SLOT_DOUBLE, x.to_bits()),
            Scalar::Bool(x) => (SLOT_BOOL, x as u64),
            Scalar::List(k) => (SLOT_LIST, k as u64),
        };
        self.kind[i] = k;
        self.bits[i] = b;
    }

    /// Whether slot `i` holds the bool `b`.
    #[inline(always)]
    fn is_bool(&self, i: usize, b: bool) -> bool {
        let i = i & Self::MASK;
        self.kind[i] == SLOT_BOOL && self.bits[i] == b as u64
    }
}

const SLOT_INT: u8 = 0;
const SLOT_DOUBLE: u8 = 1;
const SLOT_BOOL: u8 = 2;
const SLOT_LIST: u8 = 3;

/// One instruction of the scalar path's code: a stack machine on [`Scalar`]s, jumps
/// for the non-strict operators and the loops. Any instruction may give up (see
/// [`Exec::try_scalar`]).
#[derive(Clone, Copy)]
enum Ins {
    Push(Scalar),
    /// Pushes a top-level variable's value (an int, double or bool), charging `cost`.
    Var { slot: u32, cost: u8 },
    Local { slot: u32, cost: u8 },
    /// Pops the stack's top into a local slot.
    SetLocal(u32),
    /// A comprehension's accumulator starts as the empty list `[]` (a constant, no
    /// cost): list `list` of the run, emptied, in slot `accu`.
    ListInit { accu: u32, list: u32 },
    /// `accu + [item]` ([`Op::Append`]) on a list accumulator: reads the accumulator in
    /// slot `accu` (charging `cost`), the item from `src`, charges the list literal (10)
    /// and the call (1), pushes the item onto the list and the list onto the stack.
    Append { accu: u32, cost: u8, src: Src },
    /// A binary operation on its two operands (charged 1), pushing its value.
    Bin { op: Arith, a: Src, b: Src },
    NotStrictlyFalse,
    /// A `&&`/`||` operand: gives up unless it is a bool; when it is `absorbing`, pushes
    /// it and jumps to `end`.
    Logic { absorbing: bool, end: u32, src: Src },
    /// The last `&&`/`||` operand: gives up unless it is a bool, and pushes it.
    Bool(Src),
    /// Pops the accumulator's next value, checks the limit (a long loop past the limit
    /// is the precise path's to stop), and jumps back to the loop's top.
    LoopEnd { accu: u32, top: u32 },
    /// Pops a bool condition; jumps to `to` when false.
    JumpUnless(u32),
    Jump(u32),
    /// A comprehension's start: its range (a top-level variable holding a list, charged
    /// `cost`) in iterator `iter` at its first element.
    IterStart { iter: u32, slot: u32, cost: u8 },
    /// The next element into the iteration variables, or a jump to `end` after the last.
    IterNext { iter: u32, var: u32, var2: u32, two: bool, end: u32 },
    /// [`Ins::IterNext`] of one variable and [`Ins::AccuCond`] in one instruction.
    IterNextAccu { iter: u32, var: u32, accu: u32, cost: u8, go_on: u8, stop: bool, end: u32 },
    /// A decided loop condition on the accumulator (`LoopCond`): charges `cost`, jumps to
    /// `end` when the accumulator is `stop`, else charges `go_on` too (the cost of the
    /// step's `&&`/`||` operand that the code leaves out).
    AccuCond { accu: u32, cost: u8, go_on: u8, stop: bool, end: u32 },
    /// A loop condition computed on the stack: pops it, jumps to `end` when false.
    LoopCond { end: u32 },
    Return,
}

/// Where an instruction takes an operand: the stack's top (popped) or a leaf read in
/// place, charged as its op (a constant is an index into [`ScalarCode::consts`]).
#[derive(Clone, Copy)]
enum Src {
    Stack,
    Const(u32),
    Var { slot: u32, cost: u8 },
    Local { slot: u32, cost: u8 },
}

/// The scalar path's code of a plan: one entry per op where it may start.
pub(super) struct ScalarCode {
    code: Vec<Ins>,
    consts: Vec<Scalar>,
    /// Per op of the plan: where its code starts.
    entry: Vec<Option<u32>>,
    /// The deepest stack and the comprehensions any code runs.
    depth: usize,
    iters: usize,
}

/// Compiles the scalar path's code for the ops where it may start ([`scalar_entries`]):
/// the root and the comprehensions. Nested comprehensions are compiled again inside their
/// enclosing entry; the code is capped to a multiple of the plan's size.
fn scalar_code(ops: &[Op], entries: &[bool], root: u32) -> ScalarCode {
    let mut c = ScalarCode {
        code: Vec::new(),
        consts: Vec::new(),
        entry: vec![None; ops.len()],
        depth: 0,
        iters: 0,
    };
    let cap = ops.len().saturating_mul(16).saturating_add(1024);
    let locals_fit = ops.iter().all(|op| match op {
        Op::Local { slot, .. } => (*slot as usize) < SCALAR_LOCALS,
        Op::Fold(f) => (f.accu.max(f.iter).max(f.iter2.unwrap_or(0)) as usize) < SCALAR_LOCALS,
        _ => true,
    });
    if !locals_fit {
        return c;
    }
    let mut order: Vec<u32> = vec![root];
    order.extend((0..ops.len() as u32).filter(|i| *i != root && matches!(ops[*i as usize], Op::Fold(_))));
    for i in order {
        if !entries.get(i as usize).copied().unwrap_or(false) || c.code.len() > cap {
            continue;
        }
        let start = c.code.len();
        let mut em = Emit { ops, code: &mut c.code, consts: &mut c.consts, depth: 0, max: 0, iters: 0 };
        if em.op(i).is_some() && em.max <= SCALAR_DEPTH && em.iters as usize <= SCALAR_ITERS {
            em.code.push(Ins::Return);
            c.depth = c.depth.max(em.max);
            c.iters = c.iters.max(em.iters as usize);
            c.entry[i as usize] = u32::try_from(start).ok();
        } else {
            c.code.truncate(start);
        }
    }
    c
}

/// Emits one entry's code.
struct Emit<'o, 'c> {
    ops: &'o [Op],
    code: &'c mut Vec<Ins>,
    consts: &'c mut Vec<Scalar>,
    depth: usize,
    max: usize,
    iters: u32,
}

impl Emit<'_, '_> {
    fn at(&self) -> Option<u32> {
        u32::try_from(self.code.len()).ok()
    }

    fn ins(&mut self, ins: Ins, pushes: isize) {
        self.code.push(ins);
        self.depth = self.depth.saturating_add_signed(pushes);
        self.max = self.max.max(self.depth);
    }

    /// Sets the jump target of the instruction at `at` to here.
    fn patch(&mut self, at: u32) -> Option<()> {
        let here = self.at()?;
        match self.code.get_mut(at as usize)? {
            Ins::Logic { end, .. }
            | Ins::IterNext { end, .. }
            | Ins::AccuCond { end, .. }
            | Ins::IterNextAccu { end, .. }
            | Ins::LoopCond { end } => *end = here,
            Ins::JumpUnless(to) | Ins::Jump(to) => *to = here,
            _ => return None,
        }
        Some(())
    }

    /// Op `i` as an operand: a leaf read in place, else its code (the value then on the
    /// stack). The scalar path's operations have no effect but their cost (a sum) and
    /// giving up, so reading a leaf operand after its sibling's code is evaluated changes
    /// nothing.
    fn operand(&mut self, i: u32) -> Option<Src> {
        Some(match self.ops.get(i as usize)? {
            Op::Const(v) => {
                let k = u32::try_from(self.consts.len()).ok()?;
                self.consts.push(Scalar::of(v)?);
                Src::Const(k)
            }
            Op::Var { slot, cost } => Src::Var { slot: *slot, cost: *cost },
            Op::Local { slot, cost } => Src::Local { slot: *slot, cost: *cost },
            _ => {
                self.op(i)?;
                Src::Stack
            }
        })
    }

    /// Whether op `i`'s value is a bool whenever the scalar path computes it.
    fn boolean(&self, i: u32) -> bool {
        match self.ops.get(i as usize) {
            Some(Op::Arith { op, .. }) => matches!(op, Arith::Lt | Arith::Le | Arith::Gt | Arith::Ge),
            Some(Op::Binary { .. } | Op::NotStrictlyFalse(_) | Op::Logic { .. }) => true,
            _ => false,
        }
    }

    /// For a fold whose condition stops on the bool `stop`: when its accumulator starts
    /// as `!stop` and its step is `accu && p` (`stop` false) or `accu || p` (`stop` true),
    /// the accumulator's read cost and `p`.
    fn accu_step(&self, f: &Fold, stop: bool) -> Option<(u8, u32)> {
        match self.ops.get(f.init as usize)? {
            Op::Const(Val::Bool(b)) if *b != stop => {}
            _ => return None,
        }
        let Op::Logic { and, args } = self.ops.get(f.step as usize)? else {
            return None;
        };
        let [first, p] = args[..] else {
            return None;
        };
        match self.ops.get(first as usize)? {
            Op::Local { slot, cost } if *slot == f.accu && *and != stop => Some((*cost, p)),
            _ => None,
        }
    }

    /// The code of op `i`, leaving its value on the stack.
    fn op(&mut self, i: u32) -> Option<()> {
        let ops = self.ops;
        match ops.get(i as usize)? {
            Op::Const(v) => self.ins(Ins::Push(Scalar::of(v)?), 1),
            Op::Var { slot, cost } => self.ins(Ins::Var { slot: *slot, cost: *cost }, 1),
            Op::Local { slot, cost } => self.ins(Ins::Local { slot: *slot, cost: *cost }, 1),
            Op::Arith { op, x, y, .. } => {
                let a = self.operand(*x)?;
                let b = self.operand(*y)?;
                let pops = matches!(a, Src::Stack) as isize + matches!(b, Src::Stack) as isize;
                self.ins(Ins::Bin { op: *op, a, b }, 1 - pops);
            }
            Op::Binary { x, y, equality: Some(eq), .. } => {
                let a = self.operand(*x)?;
                let b = self.operand(*y)?;
                let pops = matches!(a, Src::Stack) as isize + matches!(b, Src::Stack) as isize;
                let op = if *eq { Arith::Eq } else { Arith::Ne };
                self.ins(Ins::Bin { op, a, b }, 1 - pops);
            }
            Op::NotStrictlyFalse(x) => {
                self.op(*x)?;
                self.ins(Ins::NotStrictlyFalse, 0);
            }
            Op::Append { x, item, slot, .. } => {
                // The accumulator itself (the step `@result + [f(v)]`), read in place.
                let Some(Op::Local { slot: read, cost }) = ops.get(*x as usize) else {
                    return None;
                };
                if read != slot {
                    return None;
                }
                let src = self.operand(*item)?;
                let pops = matches!(src, Src::Stack) as isize;
                self.ins(Ins::Append { accu: *slot, cost: *cost, src }, 1 - pops);
            }
            Op::Logic { and, args } => {
                let absorbing = !*and;
                let mut jumps = Vec::new();
                for (k, a) in args.iter().enumerate() {
                    let src = self.operand(*a)?;
                    let pops = matches!(src, Src::Stack) as isize;
                    if k + 1 < args.len() {
                        jumps.push(self.at()?);
                        self.ins(Ins::Logic { absorbing, end: 0, src }, -pops);
                    } else if !(matches!(src, Src::Stack) && self.boolean(*a)) {
                        self.ins(Ins::Bool(src), 1 - pops);
                    }
                }
                if args.is_empty() {
                    self.ins(Ins::Push(Scalar::Bool(!absorbing)), 1);
                }
                for j in jumps {
                    self.patch(j)?;
                }
            }
            Op::Cond { c, t, f } => {
                self.op(*c)?;
                let unless = self.at()?;
                self.ins(Ins::JumpUnless(0), -1);
                self.op(*t)?;
                let jump = self.at()?;
                self.ins(Ins::Jump(0), -1);
                self.patch(unless)?;
                self.op(*f)?;
                self.patch(jump)?;
            }
            Op::Fold(f) => {
                let Some(Op::Var { slot, cost }) = ops.get(f.range as usize) else {
                    return None;
                };
                let iter = self.iters;
                self.iters += 1;
                match ops.get(f.init as usize)? {
                    // A list accumulator: the run's list of the same index as the iterator.
                    Op::Const(v) if is_empty_list(v) => self.ins(Ins::ListInit { accu: f.accu, list: iter }, 0),
                    _ => {
                        self.op(f.init)?;
                        self.ins(Ins::SetLocal(f.accu), -1);
                    }
                }
                self.ins(Ins::IterStart { iter, slot: *slot, cost: *cost }, 0);
                let top = self.at()?;
                // `all` and `exists`: the accumulator starts as the bool that does not stop
                // the loop and the step is `accu && p` (`accu || p`). The accumulator then
                // holds that bool whenever the step runs (the condition stops the loop on
                // the other; the step computes a bool or gives up), so the step's value is
                // `p`'s: the `&&` (`||`) is left out, its operand's cost charged by the
                // condition when the loop goes on.
                let decided = match f.shape {
                    LoopCond::Accu => Some((2u8, false)),
                    LoopCond::NotAccu => Some((3u8, true)),
                    LoopCond::Generic => None,
                };
                let short = decided.and_then(|(_, stop)| self.accu_step(f, stop));
                let go_on = short.map_or(0, |(accu_cost, _)| accu_cost);
                match (decided, f.iter2) {
                    // One instruction for the next element and the decided condition.
                    (Some((cost, stop)), None) => {
                        let ins = Ins::IterNextAccu { iter, var: f.iter, accu: f.accu, cost, go_on, stop, end: 0 };
                        self.ins(ins, 0)
                    }
                    (decided, iter2) => {
                        let two = iter2.is_some();
                        let var2 = iter2.unwrap_or(f.iter);
                        self.ins(Ins::IterNext { iter, var: f.iter, var2, two, end: 0 }, 0);
                        match decided {
                            Some((cost, stop)) => {
                                self.ins(Ins::AccuCond { accu: f.accu, cost, go_on, stop, end: 0 }, 0)
                            }
                            None => {
                                self.op(f.cond)?;
                                self.ins(Ins::LoopCond { end: 0 }, -1);
                            }
                        }
                    }
                }
                // The instruction that leaves the loop when its condition is false.
                let cond = self.at()? - 1;
                match short {
                    Some((_, p)) => {
                        let src = self.operand(p)?;
                        let pops = matches!(src, Src::Stack) as isize;
                        if !(matches!(src, Src::Stack) && self.boolean(p)) {
                            self.ins(Ins::Bool(src), 1 - pops);
                        }
                    }
                    None => self.op(f.step)?,
                }
                self.ins(Ins::LoopEnd { accu: f.accu, top }, -1);
                self.patch(top)?;
                self.patch(cond)?;
                self.op(f.result)?;
            }
            _ => return None,
        }
        Some(())
    }
}

/// The scalar path's bounds (a plan beyond them runs no scalar code): stack depth,
/// comprehension variable slots, comprehensions in one entry's code. The scalar path
/// keeps them in arrays, not allocations.
const SCALAR_DEPTH: usize = 16;
const SCALAR_LOCALS: usize = 16;
const SCALAR_ITERS: usize = 4;

/// An iterator of the scalar path: the list and the next index.
type ScalarIter<'v, 'a> = Option<(&'v crate::cel::value::List<'a>, usize)>;

/// The scalar path: an expression whose every value is an int, double or bool and
/// which meets no error runs as [`ScalarCode`], its cost summed in a register.
///
/// Its instructions have no effect but their cost, so when the code meets anything else
/// (another type, an error value, overflow, a zero divisor) it gives up and the
/// expression is evaluated again by [`Exec::eval`], from the same state. Costs only
/// grow, so a total within the limit means no charge on the way exceeded it: the code
/// checks the limit at its end (and once per loop iteration) and gives up when the cost
/// exceeds it, for the precise path to stop where cel-go does.
impl<'a, 'v> Exec<'a, 'v> {
    /// The value of op `i` by the scalar path, its cost charged; `None` (nothing
    /// charged) when the path gives up.
    fn try_scalar(&mut self, i: u32) -> Option<Val<'a>> {
        let plan: &'a Plan = self.plan;
        let start = plan.scalar.entry.get(i as usize).copied().flatten()?;
        let (v, cost) = self.run_scalar(start)?;
        if cost > self.limit {
            return None;
        }
        self.cost = cost;
        Some(v)
    }

    /// Runs the scalar code from `start`: its value and the cost then. The state lives in
    /// locals (the stack and slots in arrays, the stack pointer and cost in registers).
    /// An entry reads no comprehension variable it does not bind: its slots start afresh.
    fn run_scalar(&self, start: u32) -> Option<(Val<'a>, u64)> {
        let plan: &'a Plan = self.plan;
        let code = &plan.scalar.code[..];
        let consts = &plan.scalar.consts[..];
        let limit = self.limit;
        let mut stack: Slots<SCALAR_DEPTH> = Slots::new();
        let mut sp = 0usize;
        let mut locals: Slots<SCALAR_LOCALS> = Slots::new();
        let mut iters: [ScalarIter<'v, 'a>; SCALAR_ITERS] = [None; SCALAR_ITERS];
        // The list accumulators' elements, one list per comprehension, made at its
        // `ListInit` (no allocation, and one vector to drop, for code without one).
        let mut lists: Vec<Vec<Val<'a>>> = Vec::new();
        let mut cost = self.cost;
        let var = |slot: u32| -> Option<Scalar> {
            match self.vars.get(slot as usize).copied().flatten()? {
                Ok(v) => Scalar::of(v),
                Err(_) => None,
            }
        };
        macro_rules! push {
            ($v:expr) => {{
                let v = $v;
                stack.set(sp, v);
                sp += 1;
            }};
        }
        macro_rules! pop {
            () => {{
                sp = sp.checked_sub(1)?;
                stack.get(sp)
            }};
        }
        macro_rules! src {
            ($s:expr) => {
                match $s {
                    Src::Stack => pop!(),
                    Src::Const(k) => *consts.get(k as usize)?,
                    Src::Var { slot, cost: c } => {
                        cost = cost.saturating_add(c as u64);
                        var(slot)?
                    }
                    Src::Local { slot, cost: c } => {
                        cost = cost.saturating_add(c as u64);
                        locals.get(slot as usize)
                    }
                }
            };
        }
        let mut pc = start as usize;
        // The next element of iterator `$iter` and its index, or (past the last) a jump
        // to `$end`.
        macro_rules! next_item {
            ($iter:expr, $end:expr) => {{
                let it = iters.get_mut($iter as usize)?.as_mut()?;
                let (list, i) = (it.0, it.1);
                let v = match list {
                    crate::cel::value::List::Owned { items, .. } => match items.get(i) {
                        Some(v) => Scalar::of(v)?,
                        None => {
                            pc = $end as usize;
                            continue;
                        }
                    },
                    _ => match lazy_item(list, i)? {
                        Some(v) => v,
                        None => {
                            pc = $end as usize;
                            continue;
                        }
                    },
                };
                it.1 = i + 1;
                (v, i)
            }};
        }
        loop {
            let ins = code.get(pc)?;
            pc += 1;
            match *ins {
                Ins::Push(v) => push!(v),
                Ins::Var { slot, cost: c } => {
                    cost = cost.saturating_add(c as u64);
                    push!(var(slot)?)
                }
                Ins::Local { slot, cost: c } => {
                    cost = cost.saturating_add(c as u64);
                    push!(locals.get(slot as usize))
                }
                Ins::SetLocal(slot) => {
                    let v = pop!();
                    locals.set(slot as usize, v);
                }
                Ins::ListInit { accu, list } => {
                    let k = list as usize;
                    if k >= SCALAR_ITERS {
                        return None;
                    }
                    if lists.len() <= k {
                        lists.resize_with(k + 1, Vec::new);
                    }
                    lists[k].clear();
                    locals.set(accu as usize, Scalar::List(list));
                }
                Ins::Append { accu, cost: c, src } => {
                    let item = src!(src).val()?;
                    cost = cost.saturating_add(c as u64).saturating_add(11);
                    let Scalar::List(k) = locals.get(accu as usize) else {
                        return None;
                    };
                    let list = lists.get_mut(k as usize)?;
                    // Past the bound of a concatenation, the precise path's error.
                    if list.len() >= crate::cel::library::stdlib::MAX_LIST_CONCAT {
                        return None;
                    }
                    list.push(item);
                    push!(Scalar::List(k))
                }
                Ins::Bin { op, a, b } => {
                    // Popped in reverse: `b` was pushed last.
                    let y = src!(b);
                    let x = src!(a);
                    cost = cost.saturating_add(1);
                    push!(scalar_arith(op, x, y)?)
                }
                Ins::NotStrictlyFalse => {
                    let v = pop!();
                    cost = cost.saturating_add(1);
                    push!(Scalar::Bool(v != Scalar::Bool(false)))
                }
                Ins::Logic { absorbing, end, src } => match src!(src) {
                    Scalar::Bool(b) if b == absorbing => {
                        push!(Scalar::Bool(b));
                        pc = end as usize;
                    }
                    Scalar::Bool(_) => {}
                    _ => return None,
                },
                Ins::Bool(src) => match src!(src) {
                    v @ Scalar::Bool(_) => push!(v),
                    _ => return None,
                },
                Ins::JumpUnless(to) => match pop!() {
                    Scalar::Bool(true) => {}
                    Scalar::Bool(false) => pc = to as usize,
                    _ => return None,
                },
                Ins::Jump(to) => pc = to as usize,
                Ins::IterStart { iter, slot, cost: c } => {
                    cost = cost.saturating_add(c as u64);
                    let list = match self.vars.get(slot as usize).copied().flatten()? {
                        Ok(Val::List(l)) => l,
                        _ => return None,
                    };
                    *iters.get_mut(iter as usize)? = Some((list, 0));
                }
                Ins::IterNext { iter, var, var2, two, end } => {
                    let (v, i) = next_item!(iter, end);
                    if two {
                        locals.set(var as usize, Scalar::Int(i64::try_from(i).ok()?));
                        locals.set(var2 as usize, v);
                    } else {
                        locals.set(var as usize, v);
                    }
                }
                Ins::IterNextAccu { iter, var, accu, cost: c, go_on, stop, end } => {
                    let (v, _) = next_item!(iter, end);
                    locals.set(var as usize, v);
                    cost = cost.saturating_add(c as u64);
                    if locals.is_bool(accu as usize, stop) {
                        pc = end as usize;
                    } else {
                        cost = cost.saturating_add(go_on as u64);
                    }
                }
                Ins::AccuCond { accu, cost: c, go_on, stop, end } => {
                    cost = cost.saturating_add(c as u64);
                    if locals.is_bool(accu as usize, stop) {
                        pc = end as usize;
                    } else {
                        cost = cost.saturating_add(go_on as u64);
                    }
                }
                Ins::LoopCond { end } => {
                    if pop!() == Scalar::Bool(false) {
                        pc = end as usize;
                    }
                }
                Ins::LoopEnd { accu, top } => {
                    let v = pop!();
                    locals.set(accu as usize, v);
                    if cost > limit {
                        return None;
                    }
                    pc = top as usize;
                }
                Ins::Return => {
                    let v = match pop!() {
                        Scalar::List(k) => Val::list(std::mem::take(lists.get_mut(k as usize)?)),
                        s => s.val()?,
                    };
                    return Some((v, cost));
                }
            }
        }
    }
}

/// Item `i` of a list read from the object as a scalar (`Some(None)` past its end, `None`
/// to give up). Not inlined: its inlined body made the scalar loop keep its program
/// counter and cost in memory. (It is no cold path: rules over an object's lists take it.)
#[inline(never)]
fn lazy_item(list: &crate::cel::value::List<'_>, i: usize) -> Option<Option<Scalar>> {
    match list.get(i) {
        Some(Ok(v)) => Some(Some(Scalar::of(&v)?)),
        Some(Err(_)) => None,
        None => Some(None),
    }
}

/// [`arith_value`] on scalars.
#[inline(always)]
fn scalar_arith(op: Arith, x: Scalar, y: Scalar) -> Option<Scalar> {
    match (x, y) {
        (Scalar::Int(a), Scalar::Int(b)) => Some(match op {
            Arith::Add => Scalar::Int(a.checked_add(b)?),
            Arith::Sub => Scalar::Int(a.checked_sub(b)?),
            Arith::Mul => Scalar::Int(a.checked_mul(b)?),
            Arith::Div if b != 0 => Scalar::Int(a.checked_div(b)?),
            Arith::Rem if b != 0 => Scalar::Int(a.checked_rem(b)?),
            Arith::Lt => Scalar::Bool(a < b),
            Arith::Le => Scalar::Bool(a <= b),
            Arith::Gt => Scalar::Bool(a > b),
            Arith::Ge => Scalar::Bool(a >= b),
            Arith::Eq => Scalar::Bool(a == b),
            Arith::Ne => Scalar::Bool(a != b),
            _ => return None,
        }),
        (Scalar::Bool(a), Scalar::Bool(b)) => match op {
            Arith::Eq => Some(Scalar::Bool(a == b)),
            Arith::Ne => Some(Scalar::Bool(a != b)),
            _ => None,
        },
        (Scalar::Double(a), Scalar::Double(b)) => Some(match op {
            Arith::Add => Scalar::Double(a + b),
            Arith::Sub => Scalar::Double(a - b),
            Arith::Mul => Scalar::Double(a * b),
            Arith::Div => Scalar::Double(a / b),
            cmp => Scalar::Bool(double_order(cmp, a, b)?),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cel::eval::{compile, parse_type, typed_var};
    use crate::cel::types::Type;
    use crate::version::KubeVersion;
    use serde_json::{json, Value};

    /// An evaluation as compared: the value's text or the error's text and kind, and
    /// the cost.
    fn outcome(r: &(EvalResult, u64)) -> (String, u64) {
        let text = match &r.0 {
            Ok(v) => format!("ok {:?}", v),
            Err(e) => format!("error {:?} {}", e.kind, e.message),
        };
        (text, r.1)
    }

    /// The limits an expression of cost `total` is compared under: none, every limit up
    /// to the total (each place the budget can run out), capped for long loops.
    fn limits(total: u64) -> Vec<Option<u64>> {
        let mut v: Vec<Option<u64>> = vec![None];
        if total <= 600 {
            v.extend((0..=total + 1).map(Some));
        } else {
            v.extend((0..200).map(Some));
            v.extend((total - 200..=total + 1).map(Some));
            v.extend((0..50).map(|i| Some(total * i / 50)));
        }
        v
    }

    /// Compares the plan's evaluations of `program` with the tree walker's, under every
    /// limit, through both entry points. `false` when the program has no plan.
    fn same(expr: &str, program: &Program, vars: &[(&str, Val)]) -> bool {
        if !program.is_compact() {
            return false;
        }
        let total = program.walk(vars, None).1;
        let results: Vec<(&str, EvalResult)> = vars.iter().map(|(n, v)| (*n, Ok(v.clone()))).collect();
        for limit in limits(total) {
            let want = outcome(&program.walk(vars, limit));
            assert_eq!(outcome(&program.eval(vars, limit)), want, "{} (limit {:?})", expr, limit);
            let want = outcome(&program.walk_results(&results, limit));
            assert_eq!(
                outcome(&program.eval_results(&results, limit)),
                want,
                "{} (limit {:?}, as results)",
                expr,
                limit
            );
        }
        true
    }

    /// Compiles `expr` over JSON variables typed by `types` (`dyn` when absent) and
    /// compares; `None` when it does not compile or a variable does not convert.
    fn compare(expr: &str, vars: &Value, types: &Value, kube: KubeVersion) -> Option<bool> {
        let vars = vars.as_object()?;
        let mut decls = Vec::new();
        let mut values = Vec::new();
        for (name, v) in vars {
            let t = match types.get(name).and_then(Value::as_str) {
                Some(ts) => parse_type(ts).ok()?,
                None => Type::Dyn,
            };
            values.push((name.clone(), typed_var(v, &t).ok()?));
            decls.push((name.clone(), t));
        }
        let compiled = compile(expr, &decls, kube).ok()?;
        let run: Vec<(&str, Val)> = values.iter().map(|(n, v)| (n.as_str(), v.clone())).collect();
        Some(same(expr, compiled.program(), &run))
    }

    #[test]
    fn plan_equals_the_tree_walker_on_chosen_expressions() {
        let vars = json!({
            "x": 7, "y": 5, "z": 0, "big": 9223372036854775807i64, "d": 2.5, "s": "web-api-prod",
            "b": true, "xs": [3, 1, 4, 1, 5, 9, 2, 6], "ys": [], "m": {"a": 1, "b": {"c": 2}},
            "ss": ["a", "bb", "ccc"], "nested": [[1, 2], [3], []], "mi": {"a": 1, "b": 2}
        });
        let types = json!({
            "x": "int", "y": "int", "z": "int", "big": "int", "d": "double", "s": "string",
            "b": "bool", "xs": "list(int)", "ys": "list(int)", "ss": "list(string)",
            "nested": "list(list(int))", "mi": "map(string, int)"
        });
        let exprs = [
            "x + y * 3 - x / 2 > 10",
            "x / z",
            "x % z",
            "big + 1 > 0",
            "-big - 2 < 0",
            "x * big",
            "d * 2.5 + d / 4.0 < 100.0",
            "d / 0.0 > 1.0",
            "d >= 2.5 && d <= 2.5 && !(d > d) && -d < d",
            "d / 0.0 * 0.0 < 1.0",
            "d / 0.0 * 0.0 >= d || d > 1.0",
            "d > 1.0 || d / 0.0 * 0.0 <= d",
            "d - d / 0.0 < d",
            "x < y || x / z > 1",
            "x / z > 1 || x < y",
            "x / z > 1 && x > y",
            "x > y && x / z > 1",
            "b ? x : y",
            "!b ? x : y / z",
            "b ? m.b.c : m.a",
            "b ? m.q : m.a",
            "m.b.c + m.a",
            "m.q.c",
            "m.b.q",
            "m.a == 1",
            "m.q == 1",
            "x == y",
            "s == 'web-api-prod'",
            "s.startsWith('web-') && s.endsWith('-prod') && s.contains('api') && size(s) < 64",
            "size(s) + size(xs)",
            "x in [1, 7, 9]",
            "s in ['a', 'b']",
            "xs.exists(v, v < 0)",
            "xs.exists(v, v > 4)",
            "xs.all(v, v > 0)",
            "xs.all(v, v > 1)",
            "xs.exists_one(v, v == 1)",
            "xs.exists_one(v, v == 9)",
            "ys.all(v, v / 0 > 1)",
            "xs.all(v, v / (v - 1) > 0)",
            "xs.exists(v, v / (v - 1) > 100)",
            "xs.exists(v, xs.all(w, w <= v))",
            "nested.exists(l, l.exists(v, v == 3))",
            "nested.all(l, l.all(v, v > 0))",
            "xs.exists(x, x > y)",
            "xs.exists(xs, xs > 8)",
            "m.exists(k, k == 'b')",
            "m.all(k, k.size() == 1)",
            "ss.exists(v, v.size() > 2)",
            "xs.all(i, v, i < 8 && v > 0)",
            "m.all(k, v, k != '')",
            "m.a.exists(v, v > 0)",
            "xs.exists(v, v > 0) && xs.all(v, v < 10)",
            // `all`/`exists` whose step reduces to its predicate (`Emit::accu_step`): a
            // variable, a short-circuit with an error behind it, a nested comprehension.
            "xs.exists(v, b)",
            "xs.all(v, !b)",
            "xs.all(v, v > 0 || v / z > 1)",
            "xs.exists(v, v == 9 && x > y)",
            "xs.all(v, v < 9) == !xs.exists(v, v >= 9)",
            "nested.exists(l, l.all(v, v > 2))",
            // List literals and `accu + [f(v)]` extended in place (`Op::List`,
            // `Op::Binary::accumulates`): an element that fails, nested and chained macros.
            "[x, y, x + y].size()",
            "[x, y / z, x].size()",
            "[x, y] + [z]",
            "xs.map(v, v * 2)",
            "xs.map(v, [v, v / (v - 1)]).size()",
            "xs.filter(v, v / (v - 3) > 0)",
            "xs.filter(v, v % 2 == 0).size()",
            "nested.map(l, l.map(v, v * 2))",
            "xs.map(v, v * 2).filter(w, w > 4)",
            "xs.map(v, v > 2, v + big)",
            "ys.map(v, v)",
            "xs.exists(v, v < 0) ? 1 : 2",
            "ss.all(v, v.startsWith('a') || v.size() > 1)",
            "[1, 2, 3].exists(v, v == x)",
            "xs.map(v, v * 2).size()",
            "xs.filter(v, v > 2)",
            // List accumulators on the scalar path: bool and double items, a nested
            // comprehension as the item or the condition, an empty range.
            "xs.map(v, v > 3)",
            "xs.map(v, d * 2.0)",
            "xs.map(v, xs.filter(w, w > v))",
            "xs.filter(v, xs.exists(w, w > v * 2))",
            "xs.filter(v, v > 2).size() + ys.filter(v, v > 2).size()",
            "xs.map(v, x / (v - 9))",
            "has(m.a)",
            // Indexes (`Op::Index`): of attributes and of other values (a relative
            // qualifier), keys that fail, keys that are variables (no identifier cost).
            "mi['a'] + mi['b'] > 2",
            "mi['q']",
            "mi[s]",
            "mi.all(k, mi[k] >= 0)",
            "xs[2] + xs[0]",
            "xs[8]",
            "xs[z - 1]",
            "xs[x / z]",
            "nested[x / z][0]",
            "[1, 2, 3][x - 6]",
            "(xs + xs)[9]",
            "b ? xs[1] : xs[2]",
            "xs[b ? 1 : 2]",
            "xs[y]",
            "nested[0][1]",
            "nested[2][0]",
        ];
        let mut planned = 0;
        for expr in exprs {
            match compare(expr, &vars, &types, KubeVersion::LATEST) {
                Some(true) => planned += 1,
                Some(false) => {}
                None => panic!("{} does not compile", expr),
            }
        }
        assert!(planned >= 50, "only {} expressions planned", planned);
        // List literals and `map`/`filter` run as plans.
        for expr in [
            "xs.map(v, v * 2)",
            "xs.filter(v, v % 2 == 0).size()",
            "[x, y / z, x].size()",
            "nested.map(l, l.map(v, v * 2))",
            "mi.all(k, mi[k] >= 0)",
            "xs[2] + xs[0]",
            "(xs + xs)[9]",
            "xs[x / z]",
        ] {
            assert_eq!(compare(expr, &vars, &types, KubeVersion::LATEST), Some(true), "{} is not planned", expr);
        }
    }

    /// `map` and `filter` over a list variable of scalars accumulate their list on the
    /// scalar path: each such comprehension is an entry of it (the chosen expressions
    /// above compare their values and costs with the tree walker's under every limit).
    #[test]
    fn scalar_path_takes_list_accumulators() {
        let decls = vec![("xs".to_string(), Type::list(Type::Int)), ("d".to_string(), Type::Double)];
        for expr in ["xs.map(v, v * 2)", "xs.filter(v, v % 2 == 0).size()", "xs.map(v, d / 2.0).size() == 3", "xs.filter(v, xs.exists(w, w > v))"] {
            let compiled = compile(expr, &decls, KubeVersion::LATEST).ok().expect("compiles");
            let plan = compiled.program().compact.as_ref().expect("planned");
            let folds: Vec<usize> = (0..plan.ops.len()).filter(|&i| matches!(plan.ops[i], Op::Fold(_))).collect();
            assert!(!folds.is_empty(), "{}", expr);
            // The outermost comprehension (the last planned) is an entry.
            let outer = *folds.last().expect("a fold");
            assert!(plan.scalar.entry[outer].is_some(), "{}: the scalar path does not take it", expr);
        }
    }

    /// Every expression of the k8s-cel vectors (cel-go's and Kubernetes' own tests) whose
    /// program is planned evaluates as the tree walker does, value and cost, under every
    /// limit. Skipped when the shared vectors are not checked out.
    #[test]
    fn plan_equals_the_tree_walker_on_the_k8s_cel_vectors() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/vectors/k8s-cel");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            eprintln!("skipped: {} not readable", dir.display());
            return;
        };
        let (mut seen, mut planned) = (0, 0);
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            for line in text.lines() {
                let Ok(v) = serde_json::from_str::<Value>(line) else {
                    continue;
                };
                let req = &v["request"];
                let Some(expr) = req["expr"].as_str() else {
                    continue;
                };
                let kube = req["kubernetesVersion"]
                    .as_str()
                    .and_then(|k| KubeVersion::parse(k).ok())
                    .unwrap_or(KubeVersion::PROTOCOL_DEFAULT);
                let vars = match &req["vars"] {
                    Value::Null => json!({}),
                    v => v.clone(),
                };
                seen += 1;
                if compare(expr, &vars, &req["varTypes"], kube) == Some(true) {
                    planned += 1;
                }
            }
        }
        eprintln!("k8s-cel: {} of {} expressions planned and equal", planned, seen);
        assert!(seen == 0 || planned * 4 >= seen, "only {} of {} planned", planned, seen);
    }
}
