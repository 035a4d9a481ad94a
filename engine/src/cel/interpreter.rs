//! Evaluation of checked expressions, with cel-go's semantics (non-strict `&&`/`||`/`?:`,
//! comprehension folding, runtime overload dispatch) and cel-go's runtime cost accounting
//! (`interpreter/runtimecost.go`: identifiers and selections cost 1, constants 0, calls
//! their `CallCost`, list/map literals 10/30 unless constant-folded), with a per-call limit.

use super::checker::Checked;
use super::env::{Env, Impl};
use super::types::Type;
use super::value::{equal, EvalError, EvalResult, List, ListKind, Map, Str, Val};
use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

/// A compiled program: checked AST, environment, and literal values built once.
pub struct Program {
    pub checked: Checked,
    pub env: Arc<Env>,
    consts: HashMap<u64, ConstVal>,
    /// Nodes cel-go's `OptOptimize` precomputes (constant list/map literals, type
    /// conversions of constants): they evaluate to these values at no cost.
    folded: HashMap<u64, Val<'static>>,
    /// `x in [constant list]` calls turned into set-membership tests (no call cost).
    members: HashMap<u64, Vec<Val<'static>>>,
}

/// The functions cel-go treats as type conversions (`overloads.IsTypeConversionFunction`).
const CONVERSIONS: &[&str] = &["bool", "bytes", "double", "duration", "dyn", "int", "string", "timestamp", "type", "uint"];

/// Literal values kept in a thread-safe form and turned into `Val` on use.
#[derive(Clone, Debug)]
enum ConstVal {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    String(Arc<str>),
    Bytes(Arc<[u8]>),
}

impl ConstVal {
    fn to_val<'a>(&self) -> Val<'a> {
        match self {
            ConstVal::Null => Val::Null,
            ConstVal::Bool(b) => Val::Bool(*b),
            ConstVal::Int(i) => Val::Int(*i),
            ConstVal::Uint(u) => Val::Uint(*u),
            ConstVal::Double(d) => Val::Double(*d),
            ConstVal::String(s) => Val::String(Str::Owned(Rc::from(&**s))),
            ConstVal::Bytes(b) => Val::Bytes(Rc::from(&**b)),
        }
    }
}

fn collect_consts(e: &IdedExpr, out: &mut HashMap<u64, ConstVal>) {
    match &e.expr {
        Expr::Literal(l) => {
            let v = match l {
                LiteralValue::Boolean(b) => ConstVal::Bool(*b.inner()),
                LiteralValue::Bytes(b) => ConstVal::Bytes(Arc::from(b.inner())),
                LiteralValue::Double(d) => ConstVal::Double(*d.inner()),
                LiteralValue::Int(i) => ConstVal::Int(*i.inner()),
                LiteralValue::Null => ConstVal::Null,
                LiteralValue::String(s) => ConstVal::String(Arc::from(s.inner())),
                LiteralValue::UInt(u) => ConstVal::Uint(*u.inner()),
            };
            out.insert(e.id, v);
        }
        Expr::Call(c) => {
            if let Some(t) = &c.target {
                collect_consts(t, out);
            }
            c.args.iter().for_each(|a| collect_consts(a, out));
        }
        Expr::Select(s) => collect_consts(&s.operand, out),
        Expr::List(l) => l.elements.iter().for_each(|x| collect_consts(x, out)),
        Expr::Map(m) => {
            for en in &m.entries {
                if let EntryExpr::MapEntry(me) = &en.expr {
                    collect_consts(&me.key, out);
                    collect_consts(&me.value, out);
                }
            }
        }
        Expr::Comprehension(c) => {
            for x in [&c.iter_range, &c.accu_init, &c.loop_cond, &c.loop_step, &c.result] {
                collect_consts(x, out);
            }
        }
        _ => {}
    }
}

impl Program {
    /// Plans a program: literals, then cel-go's `OptOptimize` folding. A conversion of a
    /// constant that fails is a program error (cel-go refuses to build the program).
    pub fn new(checked: Checked, env: Arc<Env>) -> Result<Program, String> {
        let mut consts = HashMap::new();
        collect_consts(&checked.expr, &mut consts);
        let mut p = Program { checked, env, consts, folded: HashMap::new(), members: HashMap::new() };
        let mut folded = HashMap::new();
        let mut members = HashMap::new();
        // The AST is walked through a raw borrow of `p.checked`, results go to side maps.
        fold(&p, &p.checked.expr, &mut folded, &mut members).map_err(|e| e.message)?;
        p.folded = folded;
        p.members = members;
        Ok(p)
    }

    /// Evaluates with the given variables and per-call cost limit; returns the value (or
    /// error) and the actual cost.
    pub fn eval<'a>(&'a self, vars: &[(&str, Val<'a>)], limit: Option<u64>) -> (EvalResult<'a>, u64) {
        let mut ev = Evaluator { prog: self, vars, scopes: Vec::new(), cost: 0, limit };
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
}

/// Whether an expression is a literal, or an aggregate of literals: cel-go's planner folds
/// those into constants, which then cost nothing at run time.
fn is_constant(e: &IdedExpr) -> bool {
    match &e.expr {
        Expr::Literal(_) => true,
        Expr::List(l) => l.optional_indices.is_empty() && l.elements.iter().all(is_constant),
        Expr::Map(m) => m.entries.iter().all(|en| match &en.expr {
            EntryExpr::MapEntry(me) => !me.optional && is_constant(&me.key) && is_constant(&me.value),
            _ => false,
        }),
        _ => false,
    }
}

impl<'a, 'v> Evaluator<'a, 'v> {
    fn charge(&mut self, n: u64) -> Result<(), EvalError> {
        self.cost = self.cost.saturating_add(n);
        match self.limit {
            Some(l) if self.cost > l => Err(EvalError::cost_limit()),
            _ => Ok(()),
        }
    }

    fn lookup(&self, name: &str) -> Option<EvalResult<'a>> {
        if let Some((_, v)) = self.scopes.iter().rev().find(|(n, _)| *n == name) {
            return Some(v.clone());
        }
        self.vars.iter().find(|(n, _)| *n == name).map(|(_, v)| Ok(v.clone()))
    }

    fn eval(&mut self, e: &'a IdedExpr) -> EvalResult<'a> {
        if let Some(v) = self.prog.folded.get(&e.id) {
            return Ok(v.clone());
        }
        match &e.expr {
            Expr::Literal(_) => Ok(self.prog.consts.get(&e.id).map(|c| c.to_val()).unwrap_or(Val::Null)),
            Expr::Ident(name) => match self.lookup(name) {
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
            Expr::Select(sel) => {
                // A qualified identifier the checker resolved: a variable `a.b` declared as
                // such, a type name (a constant), a library's type-name variable.
                if let Some(q) = self.prog.checked.idents.get(&e.id) {
                    if let Some(v) = self.vars.iter().find(|(n, _)| *n == q.as_str()).map(|(_, v)| v.clone()) {
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
                let operand = self.eval(&sel.operand)?;
                if sel.test {
                    // Kubernetes sets PresenceTestHasCost(false): the test itself is free.
                    return has_field(&operand, &sel.field).map(Val::Bool);
                }
                // A qualifier on something that is not an attribute makes a relative
                // attribute, which cel-go charges once more.
                if !is_attribute(&sel.operand) {
                    self.charge(1)?;
                }
                let r = select_field(&operand, &sel.field)?;
                // After an optional qualifier the chain is optional: a qualifier that finds
                // nothing is not charged.
                if !matches!((&operand, &r), (Val::Optional(_), Val::Optional(None))) {
                    self.charge(1)?;
                }
                Ok(r)
            }
            Expr::Call(call) => self.eval_call(e, call),
            Expr::List(list) => {
                let constant = is_constant(e);
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
                if !constant {
                    self.charge(10)?;
                }
                Ok(Val::list(items))
            }
            Expr::Map(map) => {
                let constant = is_constant(e);
                let mut entries: Vec<(Val<'a>, Val<'a>)> = Vec::with_capacity(map.entries.len());
                for en in &map.entries {
                    let EntryExpr::MapEntry(me) = &en.expr else { continue };
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
                    if !matches!(k, Val::String(_) | Val::Int(_) | Val::Uint(_) | Val::Bool(_)) {
                        return Err(EvalError::new(format!("unsupported key type: {}", k.type_name())));
                    }
                    if entries.iter().any(|(ek, _)| super::value::key_equal(ek, &k)) {
                        return Err(EvalError::new(format!("insert failed: key {} already exists", display_key(&k))));
                    }
                    entries.push((k, v));
                }
                if !constant {
                    self.charge(30)?;
                }
                Ok(Val::map(entries))
            }
            Expr::Struct(_) => Err(EvalError::new("struct construction is not supported")),
            Expr::Comprehension(c) => self.eval_fold(c),
            Expr::Unspecified => Err(EvalError::new("unspecified expression")),
        }
    }

    fn eval_fold(&mut self, c: &'a cel::common::ast::ComprehensionExpr) -> EvalResult<'a> {
        let range = self.eval(&c.iter_range)?;
        if !matches!(range, Val::List(_) | Val::Map(_)) {
            // cel-go `evalFold`: the range must be iterable (a list or map for two variables).
            return Err(EvalError::new(if c.iter_var2.is_some() {
                format!("unsupported comprehension range type: {}", go_type_name(&range))
            } else {
                format!("got '{}', expected iterable type", go_type_name(&range))
            }));
        }
        // Errors are values in cel-go: a failing step becomes the accumulator, and a later
        // step (`false && error`) may absorb it. Only the cost limit stops the loop.
        let mut accu: EvalResult<'a> = Ok(self.eval(&c.accu_init)?);
        let two = c.iter_var2.is_some();
        let pairs: Vec<(Val<'a>, Val<'a>)> = match &range {
            Val::List(l) => {
                let items = l.try_items()?;
                items.into_iter().enumerate().map(|(i, v)| if two { (Val::Int(i as i64), v) } else { (v, Val::Null) }).collect()
            }
            Val::Map(m) => m.entries().into_iter().map(|(k, v)| if two { (k, v) } else { (k, Val::Null) }).collect(),
            _ => return Err(EvalError::no_such_overload()),
        };
        let depth = self.scopes.len();
        for (v1, v2) in pairs {
            self.scopes.truncate(depth);
            self.scopes.push((c.accu_var.as_str(), accu.clone()));
            self.scopes.push((c.iter_var.as_str(), Ok(v1)));
            if let Some(n2) = &c.iter_var2 {
                self.scopes.push((n2.as_str(), Ok(v2)));
            }
            let cond = self.eval(&c.loop_cond);
            match cond {
                Ok(Val::Bool(false)) => break,
                Err(e) if e.kind == super::value::ErrorKind::CostLimit => {
                    self.scopes.truncate(depth);
                    return Err(e);
                }
                _ => {}
            }
            match self.eval(&c.loop_step) {
                Err(e) if e.kind == super::value::ErrorKind::CostLimit => {
                    self.scopes.truncate(depth);
                    return Err(e);
                }
                r => accu = r,
            }
        }
        self.scopes.truncate(depth);
        self.scopes.push((c.accu_var.as_str(), accu));
        let r = self.eval(&c.result);
        self.scopes.truncate(depth);
        r
    }

    fn eval_call(&mut self, e: &'a IdedExpr, call: &'a cel::common::ast::CallExpr) -> EvalResult<'a> {
        let name = call.func_name.as_str();
        match name {
            "_&&_" | "_||_" => return self.eval_logic(call, name == "_&&_"),
            "_?_:_" => {
                let cond = self.eval(&call.args[0])?;
                return match cond {
                    Val::Bool(true) => self.eval_branch(&call.args[1]),
                    Val::Bool(false) => self.eval_branch(&call.args[2]),
                    _ => Err(EvalError::no_such_overload()),
                };
            }
            "@not_strictly_false" => {
                let v = self.eval(&call.args[0]);
                if let Err(e) = &v {
                    if e.kind == super::value::ErrorKind::CostLimit {
                        return v;
                    }
                }
                self.charge(1)?;
                return Ok(Val::Bool(!matches!(v, Ok(Val::Bool(false)))));
            }
            "_?._" => {
                let operand = self.eval(&call.args[0])?;
                let field = match &call.args[1].expr {
                    Expr::Literal(LiteralValue::String(s)) => s.inner(),
                    _ => return Err(EvalError::no_such_overload()),
                };
                let r = optional_select(&operand, field)?;
                // The optional qualifier is charged only when it finds the field.
                if let Val::Optional(Some(_)) = r {
                    self.charge(1)?;
                }
                return Ok(r);
            }
            "or" | "orValue" if call.target.is_some() && self.is_optional_call(e) => {
                let lhs = self.eval(call.target.as_deref().expect("target"))?;
                return match lhs {
                    Val::Optional(Some(_)) if name == "or" => Ok(lhs),
                    Val::Optional(Some(v)) => Ok((*v).clone()),
                    Val::Optional(None) => self.eval(&call.args[0]),
                    _ => Err(EvalError::no_such_overload()),
                };
            }
            _ => {}
        }
        if let Some(set) = self.prog.members.get(&e.id) {
            let lhs = self.eval(&call.args[0])?;
            return Ok(Val::Bool(set.iter().any(|m| equal(m, &lhs))));
        }
        // cel-go evaluates both operands of unary/binary calls and charges the call even
        // when one errored (an error counts as size 1); calls with 3+ arguments stop at the
        // first error and are charged only if every argument was evaluated.
        let mut exprs: Vec<&'a IdedExpr> = Vec::with_capacity(call.args.len() + 1);
        if let Some(t) = &call.target {
            if !self.prog.checked.qualified.contains_key(&e.id) {
                exprs.push(t);
            }
        }
        exprs.extend(call.args.iter());
        let mut args: Vec<Val<'a>> = Vec::with_capacity(exprs.len());
        let mut first_err: Option<EvalError> = None;
        let n = exprs.len();
        // Indexing is planned as an attribute qualifier: a non-attribute operand costs a
        // relative attribute (1), and an attribute index is resolved without its identifier
        // cost.
        let index = matches!(name, "_[_]" | "_[?_]") && call.target.is_none() && n == 2;
        if index && !is_attribute(exprs[0]) {
            self.charge(1)?;
        }
        for (i, x) in exprs.iter().enumerate() {
            let r = if index && i == 1 { self.eval_branch(x) } else { self.eval(x) };
            match r {
                Ok(v) => args.push(v),
                Err(err) => {
                    if err.kind == super::value::ErrorKind::CostLimit {
                        return Err(err);
                    }
                    if first_err.is_none() {
                        first_err = Some(err);
                    }
                    args.push(Val::Null);
                    if n >= 3 {
                        if i + 1 == n {
                            let fname = self.prog.checked.qualified.get(&e.id).map(|s| s.as_str()).unwrap_or(name);
                            let id = self.single_overload(e);
                            let c = call_cost(fname, id, &args, &Val::Null);
                            self.charge(c)?;
                        }
                        return Err(first_err.expect("set above"));
                    }
                }
            }
        }
        if let Some(err) = first_err {
            let fname = self.prog.checked.qualified.get(&e.id).map(|s| s.as_str()).unwrap_or(name);
            let id = self.single_overload(e);
            let c = call_cost(fname, id, &args, &Val::Null);
            self.charge(c)?;
            return Err(err);
        }
        let candidates = self.prog.checked.overloads.get(&e.id);
        let (result, overload_id) = match self.dispatch(candidates.map(|v| &v[..]).unwrap_or(&[]), &args) {
            Ok((imp, id)) => (imp(&args), id),
            // cel-go plans indexing as attribute qualification, not an overload call: a
            // `dyn` operand that no overload takes is qualified as `refQualify` does.
            Err(_) if index => (index_qualify(name == "_[?_]", &args[0], &args[1]), ""),
            Err(err) => return Err(err),
        };
        let fname = self.prog.checked.qualified.get(&e.id).map(|s| s.as_str()).unwrap_or(name);
        let cost = match &result {
            // An optional index that finds nothing is free (cel-go plans it as an
            // optional qualifier).
            Ok(Val::Optional(None)) if name == "_[?_]" || (name == "_[_]" && matches!(args.first(), Some(Val::Optional(_)))) => 0,
            Ok(r) => call_cost(fname, overload_id, &args, r),
            Err(_) => call_cost(fname, overload_id, &args, &Val::Null),
        };
        self.charge(cost)?;
        result
    }

    /// The overload id a call is costed under: the single resolved one, else none.
    fn single_overload(&self, e: &IdedExpr) -> &'static str {
        match self.prog.checked.overloads.get(&e.id) {
            Some(ids) if ids.len() == 1 => ids[0],
            _ => "",
        }
    }

    /// A conditional's branch: cel-go plans `c ? a : b` as a conditional attribute, whose
    /// branch identifiers are resolved without the identifier cost (qualifiers still cost).
    fn eval_branch(&mut self, e: &'a IdedExpr) -> EvalResult<'a> {
        match &e.expr {
            Expr::Ident(name) if !self.prog.folded.contains_key(&e.id) => match self.lookup(name) {
                Some(v) => v,
                None => match type_value(name) {
                    Some(t) => Ok(Val::Type(t)),
                    None => Err(EvalError::new(format!("no such attribute(s): {}", name))),
                },
            },
            Expr::Select(sel) if !sel.test && matches!(sel.operand.expr, Expr::Ident(_) | Expr::Select(_)) => {
                let operand = self.eval_branch(&sel.operand)?;
                self.charge(1)?;
                select_field(&operand, &sel.field)
            }
            _ => self.eval(e),
        }
    }

    fn is_optional_call(&self, e: &IdedExpr) -> bool {
        self.prog
            .checked
            .overloads
            .get(&e.id)
            .map(|ids| ids.iter().all(|id| id.starts_with("optional_")))
            .unwrap_or(false)
    }

    fn dispatch(&self, candidates: &[&'static str], args: &[Val<'a>]) -> Result<(Impl, &'static str), EvalError> {
        dispatch(&self.prog.env, candidates, args)
    }
}

/// Picks the implementation: the single resolved overload, or the first candidate whose
/// parameter types accept the runtime arguments.
fn dispatch(env: &Env, candidates: &[&'static str], args: &[Val]) -> Result<(Impl, &'static str), EvalError> {
    {
        if candidates.len() == 1 {
            if let Some(Some(imp)) = env.impls.get(candidates[0]) {
                return Ok((*imp, candidates[0]));
            }
        }
        for id in candidates {
            let Some(Some(imp)) = env.impls.get(id) else { continue };
            let fits = env
                .params
                .get(id)
                .map(|ps| ps.len() == args.len() && ps.iter().zip(args).all(|(p, a)| runtime_fits(p, a)))
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
                    if e.kind == super::value::ErrorKind::CostLimit {
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
        (Type::Opaque(n, _), Val::Optional(_)) => &**n == super::types::OPTIONAL,
        (Type::Opaque(n, _), Val::Opaque(o)) => &**n == o.type_name(),
        _ => false,
    }
}

/// The runtime cost of a call: the Kubernetes estimator's, else cel-go's defaults.
pub fn call_cost(function: &str, overload_id: &str, args: &[Val], result: &Val) -> u64 {
    if let Some(c) = super::library::cost::call_cost(function, overload_id, args, result) {
        return c;
    }
    let size = |v: &Val| -> u64 { actual_size(v) };
    let trav = |n: u64| -> u64 { (n as f64 * 0.1).ceil() as u64 };
    match overload_id {
        "starts_with_string" | "ends_with_string" | "string_to_bytes" | "bytes_to_string" => trav(size(&args[0])),
        "in_list" => size(&args[1]),
        "less_string" | "greater_string" | "less_equals_string" | "greater_equals_string" | "less_bytes"
        | "greater_bytes" | "less_equals_bytes" | "greater_equals_bytes" | "equals" | "not_equals" => {
            trav(size(&args[0]).min(size(&args[1])))
        }
        "add_string" | "add_bytes" => trav(size(&args[0]) + size(&args[1])),
        "matches_string" => {
            let s = ((1.0 + size(&args[0]) as f64) * 0.1).ceil() as u64;
            let r = (size(&args[1]) as f64 * 0.25).ceil() as u64;
            s * r
        }
        "contains_string" => trav(size(&args[0])) * trav(size(&args[1])),
        _ => 1,
    }
}

/// cel-go's `actualSize`: the size of sized values (strings in code points), else 1.
pub fn actual_size(v: &Val) -> u64 {
    match v {
        Val::String(s) => s.as_str().chars().count() as u64,
        Val::Bytes(b) => b.len() as u64,
        Val::List(l) => l.len() as u64,
        Val::Map(m) => m.len() as u64,
        _ => 1,
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
        super::checker::OPTIONAL_TYPE_NAME => Type::optional(Type::Dyn),
        _ => return None,
    })
}

/// The value of a library's type-name variable (`net.IP`): the type it names. cel-go
/// plans identifiers whose checked type is a type as constants (`planCheckedIdent`), so
/// they cost nothing.
fn library_type_variable<'a>(env: &Env, name: &str) -> Option<Val<'a>> {
    match super::checker::library_variable(&env.options, name)? {
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
        Val::Map(Map::Json { map, object, .. }) => {
            let name = if *object { super::value::unescape(field) } else { std::borrow::Cow::Borrowed(field) };
            Ok(map.contains_key(name.as_ref()))
        }
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
        return super::library::stdlib::index_value(container, key);
    }
    match container {
        Val::Optional(None) => Ok(Val::optional(None)),
        Val::Optional(Some(inner)) => index_qualify(true, inner, key),
        Val::List(l) => {
            let i = super::library::stdlib::list_index(key)?;
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

/// `list + list` for Kubernetes list types: set lists union, map lists merge by key.
pub fn add_lists<'a>(a: &List<'a>, b: &List<'a>) -> EvalResult<'a> {
    let (kind, keys) = a.kind();
    let mut items = a.try_items()?;
    match kind {
        ListKind::Atomic => items.extend(b.try_items()?),
        ListKind::Set => {
            for v in b.try_items()? {
                if !items.iter().any(|x| equal(x, &v)) {
                    items.push(v);
                }
            }
        }
        ListKind::Map => {
            let ks = keys.unwrap_or(&[]);
            for v in b.try_items()? {
                match items.iter().position(|x| super::value::same_map_keys(x, &v, ks)) {
                    Some(i) => items[i] = v,
                    None => items.push(v),
                }
            }
        }
    }
    Ok(Val::List(List::Owned { items: Rc::new(items), kind, keys }))
}

/// cel-go's `OptOptimize` decorators, bottom up: returns the constant value of `e` when it
/// is (or folds to) a constant.
fn fold(
    p: &Program,
    e: &IdedExpr,
    folded: &mut HashMap<u64, Val<'static>>,
    members: &mut HashMap<u64, Vec<Val<'static>>>,
) -> Result<Option<Val<'static>>, EvalError> {
    let out = match &e.expr {
        Expr::Literal(_) => return Ok(p.consts.get(&e.id).map(|c| c.to_val())),
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
                        if entries.iter().any(|(ek, _)| super::value::key_equal(ek, &k)) {
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
            let ids = p.checked.overloads.get(&e.id).map(|v| &v[..]).unwrap_or(&[]);
            // cel-go's regex optimizations compile a constant pattern of matches/find/findAll
            // when the program is planned: a bad pattern is a program error.
            if matches!(c.func_name.as_str(), "matches" | "find" | "findAll") {
                let pattern = if c.target.is_some() { c.args.first() } else { c.args.get(1) };
                if let Some(Expr::Literal(LiteralValue::String(pat))) = pattern.map(|x| &x.expr) {
                    super::library::stdlib::compile_regex(pat.inner())?;
                }
            }
            if c.target.is_none() && c.args.len() == 1 && all && CONVERSIONS.contains(&c.func_name.as_str()) {
                let (imp, _) = dispatch(&p.env, ids, &args)?;
                Some(imp(&args)?)
            } else if c.func_name == "@in" && ids == ["in_list"] {
                if let Some(Val::List(l)) = fold(p, &c.args[1], folded, members)? {
                    let items = l.try_items()?;
                    if items.is_empty() {
                        Some(Val::Bool(false))
                    } else if items.iter().all(|x| matches!(x, Val::Null | Val::Bool(_) | Val::Int(_) | Val::Uint(_) | Val::Double(_) | Val::String(_))) {
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
            for x in [&c.iter_range, &c.accu_init, &c.loop_cond, &c.loop_step, &c.result] {
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

/// Whether cel-go plans an expression as an attribute: identifiers, field selections and
/// index/optional qualifiers.
fn is_attribute(e: &IdedExpr) -> bool {
    match &e.expr {
        Expr::Ident(_) => true,
        Expr::Select(s) => !s.test,
        Expr::Call(c) => c.target.is_none() && matches!(c.func_name.as_str(), "_[_]" | "_[?_]" | "_?._"),
        _ => false,
    }
}
