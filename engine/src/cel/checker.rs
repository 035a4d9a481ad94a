//! The static type checker: cel-go's `checker` re-expressed over the `cel` crate's parsed
//! AST. It assigns a type to every node, resolves each call to its candidate overloads, and
//! reports cel-go's errors (`undeclared reference to ...`, `found no matching overload for
//! ...`, `undefined field ...`), positioned and formatted as cel-go prints them.

use crate::cel::env::Env;
use crate::cel::hash::{FastMap, IdMap};
use crate::cel::types::{ObjectType, Type};
use crate::cel::value::CEL_RESERVED;
use crate::version::Feature;
use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};
use std::borrow::Cow;
use std::sync::Arc;

/// The compatibility version from which reserved words work as field names.
pub const KEYWORD_FIELD_NAMES_SINCE: u32 = crate::version::Feature::KeywordFieldNames.since();

/// A checked expression: the AST plus what the checker learned about it.
pub struct Checked {
    pub expr: IdedExpr,
    pub source: Source,
    /// The final type of every node (unresolved type parameters become `dyn`).
    pub types: IdMap<Type>,
    /// The candidate overload ids of every call node.
    pub overloads: IdMap<Vec<&'static str>>,
    /// Call nodes that name a namespaced function (`optional.of(x)`): the resolved name.
    pub qualified: IdMap<String>,
    /// Select nodes that name a qualified identifier (a variable `a.b`, a type name
    /// `google.protobuf.Timestamp`, a library's `net.IP`): the resolved name.
    pub idents: IdMap<String>,
    /// The release whose cost code estimates and tracks the program (the environment's
    /// [`crate::cel::env::EnvOptions::release_minor`]).
    pub release_minor: u32,
}

impl Checked {
    pub fn output_type(&self) -> Type {
        self.types.get(&self.expr.id).cloned().unwrap_or(Type::Dyn)
    }
    pub fn type_of(&self, id: u64) -> Type {
        self.types.get(&id).cloned().unwrap_or(Type::Dyn)
    }
}

/// Each node's first and last byte, by node id, as the parser that read the text recorded
/// them: the fast parser in a vector by id, the ANTLR one in the `cel` crate's source info.
pub enum Offsets {
    Ids(crate::cel::hash::IdMap<(u32, u32)>),
    Info(cel::common::ast::SourceInfo),
}

impl Offsets {
    pub fn get(&self, id: u64) -> Option<(u32, u32)> {
        match self {
            Offsets::Ids(ids) => ids.get(&id).copied(),
            Offsets::Info(info) => info.offset_for(id),
        }
    }
}

/// The expression text and node offsets, for error positions.
pub struct Source {
    pub text: String,
    /// The parser's node offsets (UTF-8 byte offsets), read only for the few nodes an
    /// error or an explanation points at: copying them all per compile cost more than the
    /// parse.
    offsets: Offsets,
    /// Offsets are told in code points (cel-go before v0.17 locates checker errors by
    /// code point).
    code_points: bool,
}

impl Source {
    pub fn new(text: &str, offsets: Offsets, code_points: bool) -> Source {
        Source { text: text.to_string(), offsets, code_points }
    }

    /// 1-based line and 0-based column (code points) of a code-point offset (counted here:
    /// only errors ask, and most compiles have none).
    pub fn location(&self, offset: usize) -> (usize, usize) {
        let (mut line, mut line_start) = (0, 0);
        for (i, c) in self.text.chars().enumerate() {
            if i >= offset {
                break;
            }
            if c == '\n' {
                line += 1;
                line_start = i + 1;
            }
        }
        (line + 1, offset - line_start)
    }

    /// The offset of node `id`'s start: a byte offset, or a code-point one (an offset
    /// inside a character stays as recorded).
    pub fn offset_of(&self, id: u64) -> Option<usize> {
        let (start, _) = self.offsets.get(id)?;
        let start = start as usize;
        if !self.code_points {
            return Some(start);
        }
        Some(self.text.get(..start).map_or(start, |before| before.chars().count()))
    }

    /// cel-go's `ERROR: <input>:L:C: msg` with the source line and a caret line.
    pub fn format_error(&self, line: usize, col: usize, msg: &str) -> String {
        let mut s = format!("ERROR: <input>:{}:{}: {}", line, col + 1, msg);
        if let Some(snippet) = self.text.split('\n').nth(line.saturating_sub(1)) {
            let snippet = snippet.replace('\t', " ");
            s.push_str("\n | ");
            s.push_str(&snippet);
            s.push_str("\n | ");
            let chars: Vec<char> = snippet.chars().collect();
            let is_wide = |i: usize| chars.get(i).map(|c| c.len_utf8() > 1).unwrap_or(false);
            for i in 0..col {
                // cel-go marks wide (non-ASCII) columns with full-width dots...
                s.push(if is_wide(i) { '\u{ff0e}' } else { '.' });
            }
            // ...and the caret is full-width when the character it points at is wide.
            s.push(if is_wide(col) { '\u{ff3e}' } else { '^' });
        }
        s
    }
}

/// A positioned checker error.
#[derive(Clone, Debug)]
pub struct CheckIssue {
    pub offset: usize,
    pub message: String,
}

/// Formats issues as cel-go does: sorted by position, one `ERROR:` block each.
pub fn format_issues(source: &Source, issues: &[CheckIssue]) -> String {
    let mut located: Vec<(usize, usize, &str)> = issues
        .iter()
        .map(|i| {
            let (l, c) = source.location(i.offset);
            (l, c, i.message.as_str())
        })
        .collect();
    crate::go::sort::sort_by(&mut located, |a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    located.iter().map(|(l, c, m)| source.format_error(*l, *c, m)).collect::<Vec<_>>().join("\n")
}

struct Checker<'e> {
    env: &'e Env,
    /// Lexical scopes of comprehension variables.
    scopes: Vec<(String, Type)>,
    mapping: Mapping,
    next_var: usize,
    types: IdMap<Type>,
    overloads: IdMap<Vec<&'static str>>,
    qualified: IdMap<String>,
    idents: IdMap<String>,
    issues: Vec<CheckIssue>,
    offsets: &'e Source,
}

/// Type-checks a parsed expression; `Err` carries cel-go's formatted error text.
pub fn check(env: &Env, expr: IdedExpr, source: Source) -> Result<Checked, String> {
    let mut c = Checker {
        env,
        scopes: Vec::new(),
        mapping: Mapping::default(),
        next_var: 0,
        types: IdMap::default(),
        overloads: IdMap::default(),
        qualified: IdMap::default(),
        idents: IdMap::default(),
        issues: Vec::new(),
        offsets: &source,
    };
    c.check(&expr);
    if !c.issues.is_empty() {
        return Err(format_issues(&source, &c.issues));
    }
    // Final types: substitute, unresolved parameters become dyn (in place: the table keeps
    // its keys).
    let mapping = std::mem::take(&mut c.mapping.map);
    let mut types = std::mem::take(&mut c.types);
    for t in types.values_mut() {
        if t.has_params() {
            *t = substitute(&mapping, t, true);
        }
    }
    let overloads = std::mem::take(&mut c.overloads);
    let qualified = std::mem::take(&mut c.qualified);
    let idents = std::mem::take(&mut c.idents);
    drop(c);
    let release_minor = env.options.release_minor;
    Ok(Checked { expr, source, types, overloads, qualified, idents, release_minor })
}

/// Replaces bound type variables; with `to_dyn`, unbound ones become `dyn`.
pub fn substitute(m: &FastMap<String, Type>, t: &Type, to_dyn: bool) -> Type {
    match t {
        Type::Param(p) => match m.get(&**p) {
            Some(s) => substitute(m, s, to_dyn),
            None if to_dyn => Type::Dyn,
            None => t.clone(),
        },
        Type::List(e) => Type::list(substitute(m, e, to_dyn)),
        Type::Map(k, v) => Type::map(substitute(m, k, to_dyn), substitute(m, v, to_dyn)),
        Type::Opaque(n, ps) if !ps.is_empty() => {
            Type::Opaque(n.clone(), ps.iter().map(|p| substitute(m, p, to_dyn)).collect())
        }
        Type::TypeOf(e) => Type::type_of(substitute(m, e, to_dyn)),
        other => other.clone(),
    }
}

fn occurs_in(m: &FastMap<String, Type>, var: &str, t: &Type) -> bool {
    match t {
        Type::Param(p) => {
            if &**p == var {
                return true;
            }
            match m.get(&**p) {
                Some(s) => occurs_in(m, var, s),
                None => false,
            }
        }
        Type::List(e) => occurs_in(m, var, e),
        Type::Map(k, v) => occurs_in(m, var, k) || occurs_in(m, var, v),
        Type::Opaque(_, ps) => ps.iter().any(|p| occurs_in(m, var, p)),
        Type::TypeOf(e) => occurs_in(m, var, e),
        _ => false,
    }
}

/// cel-go's `isEqualOrLessSpecific`: dyn and type parameters are least specific.
fn equal_or_less_specific(a: &Type, b: &Type) -> bool {
    match (a, b) {
        (Type::Dyn | Type::Param(_), _) => true,
        (_, Type::Dyn | Type::Param(_)) => false,
        (Type::List(x), Type::List(y)) => equal_or_less_specific(x, y),
        (Type::Map(k1, v1), Type::Map(k2, v2)) => equal_or_less_specific(k1, k2) && equal_or_less_specific(v1, v2),
        (Type::TypeOf(_), Type::TypeOf(_)) => true,
        (Type::Opaque(n1, p1), Type::Opaque(n2, p2)) => {
            n1 == n2 && p1.len() == p2.len() && p1.iter().zip(p2).all(|(x, y)| equal_or_less_specific(x, y))
        }
        _ => a == b,
    }
}

fn most_general(a: &Type, b: &Type) -> Type {
    if equal_or_less_specific(a, b) {
        a.clone()
    } else {
        b.clone()
    }
}

/// cel-go's type substitutions (the checker's `mapping`). cel-go's `isAssignable` tries an
/// overload on a copy of them and keeps the copy when it fits; here the overload is tried on
/// the substitutions themselves, each binding logged, and the bindings of an overload that
/// does not fit are taken back: the same result without a copy per call, which was
/// quadratic in the size of the expression (a `||` chain of 5,000 comparisons took seconds).
#[derive(Default)]
struct Mapping {
    map: FastMap<String, Type>,
    /// Each binding made since the last `keep`, with the value it replaced.
    log: Vec<(String, Option<Type>)>,
}

impl Mapping {
    fn get(&self, p: &str) -> Option<&Type> {
        self.map.get(p)
    }

    fn insert(&mut self, p: String, t: Type) {
        let old = self.map.insert(p.clone(), t);
        self.log.push((p, old));
    }

    /// Where an attempt starts.
    fn mark(&self) -> usize {
        self.log.len()
    }

    /// The attempt fitted: its bindings stay (attempts do not nest, so the log is emptied).
    fn keep(&mut self, mark: usize) {
        self.log.truncate(mark);
    }

    /// The attempt did not fit: its bindings are taken back, latest first.
    fn undo(&mut self, mark: usize) {
        while self.log.len() > mark {
            let Some((p, old)) = self.log.pop() else { break };
            match old {
                Some(t) => {
                    self.map.insert(p, t);
                }
                None => {
                    self.map.remove(&p);
                }
            }
        }
    }
}

/// cel-go `internalIsAssignable(m, t1, t2)`: can a value of `t1` be used where `t2` is
/// expected, extending the substitution `m`.
fn assignable(m: &mut Mapping, t1: &Type, t2: &Type) -> bool {
    // A missing type (cel-go before v0.17) binds a type parameter like any other, and
    // otherwise fits nothing but itself, dyn and error: `_==_` reports `(<nil>, int)`,
    // while `(<nil>, <nil>)` and `(!error!, <nil>)` match.
    match (t1, t2) {
        (Type::Unset, Type::Param(_)) | (Type::Param(_), Type::Unset) => {}
        (Type::Unset, _) | (_, Type::Unset) => return t1 == t2 || t1.is_dyn_or_error() || t2.is_dyn_or_error(),
        _ => {}
    }
    if let Type::Param(p2) = t2 {
        let (valid, has_sub) = valid_substitution(m, t1, p2);
        if valid {
            return true;
        }
        if has_sub {
            return false;
        }
    }
    if let Type::Param(p1) = t1 {
        return valid_substitution(m, t2, p1).0;
    }
    if t1.is_dyn_or_error() || t2.is_dyn_or_error() {
        return true;
    }
    if *t1 == Type::Null {
        return nullable(t2);
    }
    if *t2 == Type::Null {
        return nullable(t1);
    }
    match (t1, t2) {
        (Type::TypeOf(_), Type::TypeOf(_)) => true,
        (Type::List(a), Type::List(b)) => assignable(m, a, b),
        (Type::Map(k1, v1), Type::Map(k2, v2)) => assignable(m, k1, k2) && assignable(m, v1, v2),
        (Type::Opaque(n1, p1), Type::Opaque(n2, p2)) => {
            n1 == n2 && p1.len() == p2.len() && p1.iter().zip(p2).all(|(a, b)| assignable(m, a, b))
        }
        (Type::Object(a), Type::Object(b)) => a.name == b.name,
        _ => t1 == t2,
    }
}

/// Types a `null` literal may stand for (messages, wrappers, any; none of ours but dyn).
fn nullable(t: &Type) -> bool {
    matches!(t, Type::Null | Type::Object(_))
}

fn valid_substitution(m: &mut Mapping, t1: &Type, p2: &str) -> (bool, bool) {
    if let Type::Param(p1) = t1 {
        if &**p1 == p2 {
            return (true, true);
        }
    }
    if let Some(sub) = m.get(p2).cloned() {
        if *t1 == sub {
            return (true, true);
        }
        if assignable(m, t1, &sub) {
            let new = most_general(t1, &sub);
            if !occurs_in(&m.map, p2, &new) {
                m.insert(p2.to_string(), new);
            }
            return (true, true);
        }
        return (false, true);
    }
    if !occurs_in(&m.map, p2, t1) {
        m.insert(p2.to_string(), t1.clone());
        return (true, false);
    }
    (false, false)
}

/// `a.b.c` as a qualified name, if the expression is only identifiers and selections.
pub fn qualified_name(e: &IdedExpr) -> Option<String> {
    match &e.expr {
        Expr::Ident(n) => Some(n.clone()),
        Expr::Select(s) if !s.test => qualified_name(&s.operand).map(|q| format!("{}.{}", q, s.field)),
        _ => None,
    }
}

/// The type name the optional library declares.
pub const OPTIONAL_TYPE_NAME: &str = "optional_type";

/// Identifiers the environment declares besides variables: the standard type names, the
/// optional library's `optional_type` (`cel.Types(types.OptionalType)`), and the type-name
/// variables of the IP and CIDR libraries (`net.IP`, `net.CIDR`).
pub fn declared_ident(opts: &crate::cel::env::EnvOptions, name: &str) -> Option<Type> {
    if let Some(t) = type_ident(name) {
        return Some(t);
    }
    if name == OPTIONAL_TYPE_NAME && opts.optional_syntax {
        return Some(Type::type_of(Type::optional(Type::Dyn)));
    }
    library_variable(opts, name)
}

/// The type-name variables libraries declare (`cel.Variable("net.IP", type(net.IP))`).
pub fn library_variable(opts: &crate::cel::env::EnvOptions, name: &str) -> Option<Type> {
    if !name.starts_with("net.") {
        return None;
    }
    crate::cel::library::ip::type_identifiers(opts)
        .into_iter()
        .chain(crate::cel::library::cidr::type_identifiers(opts))
        .find(|(n, _)| *n == name)
        .map(|(_, t)| t)
}

/// The type-name identifiers every CEL environment declares (cel-go `stdlib.Types()`:
/// no `dyn`, which only names a conversion function).
fn type_ident(name: &str) -> Option<Type> {
    Some(Type::type_of(match name {
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
        _ => return None,
    }))
}

impl<'e> Checker<'e> {
    fn offset(&self, id: u64) -> usize {
        self.offsets.offset_of(id).unwrap_or(0)
    }

    fn report(&mut self, id: u64, msg: String) {
        let offset = self.offset(id);
        self.issues.push(CheckIssue { offset, message: msg });
    }

    fn has(&self, f: Feature) -> bool {
        f.enabled_at(self.env.options.release_minor)
    }

    /// The type an undeclared member call or message type gets: the error type, or (cel-go
    /// before v0.17) none at all, [`Type::Unset`].
    fn undeclared_type(&self) -> Type {
        if self.has(Feature::UndeclaredCallsTyped) {
            Type::Error
        } else {
            Type::Unset
        }
    }

    fn set(&mut self, id: u64, t: Type) {
        self.types.insert(id, t);
    }

    fn get(&self, id: u64) -> Type {
        self.types.get(&id).cloned().unwrap_or(Type::Error)
    }

    fn fresh(&mut self) -> Type {
        let t = Type::Param(var_name(self.next_var));
        self.next_var += 1;
        t
    }

    fn lookup_ident(&self, name: &str) -> Option<Type> {
        if let Some((_, t)) = self.scopes.iter().rev().find(|(n, _)| n == name) {
            return Some(t.clone());
        }
        if let Some(t) = self.env.variables.get(name) {
            return Some(t.clone());
        }
        declared_ident(&self.env.options, name)
    }

    fn is_assignable(&mut self, t1: &Type, t2: &Type) -> bool {
        let mark = self.mapping.mark();
        if assignable(&mut self.mapping, t1, t2) {
            self.mapping.keep(mark);
            true
        } else {
            self.mapping.undo(mark);
            false
        }
    }

    fn check(&mut self, e: &IdedExpr) {
        match &e.expr {
            Expr::Literal(l) => {
                let t = match l {
                    LiteralValue::Boolean(_) => Type::Bool,
                    LiteralValue::Bytes(_) => Type::Bytes,
                    LiteralValue::Double(_) => Type::Double,
                    LiteralValue::Int(_) => Type::Int,
                    LiteralValue::Null => Type::Null,
                    LiteralValue::String(_) => Type::String,
                    LiteralValue::UInt(_) => Type::Uint,
                };
                self.set(e.id, t);
            }
            Expr::Ident(name) => match self.lookup_ident(name) {
                Some(t) => self.set(e.id, t),
                None => {
                    self.set(e.id, Type::Error);
                    self.report(e.id, format!("undeclared reference to '{}' (in container '')", name));
                }
            },
            Expr::Select(sel) => {
                if !sel.test {
                    if let Some(q) = qualified_name(e) {
                        // Not a selection on a comprehension variable (`n.` is no prefix).
                        let on_local = |n: &str| q.strip_prefix(n).is_some_and(|r| r.starts_with('.'));
                        if !self.scopes.iter().any(|(n, _)| on_local(n)) {
                            if let Some(t) =
                                self.env.variables.get(&q).cloned().or_else(|| declared_ident(&self.env.options, &q))
                            {
                                self.set(e.id, t);
                                self.idents.insert(e.id, q);
                                return;
                            }
                        }
                    }
                }
                let t = self.check_select_field(e.id, &sel.operand, &sel.field, false);
                let t = if sel.test { Type::Bool } else { t };
                let t = substitute(&self.mapping.map, &t, false);
                self.set(e.id, t);
            }
            Expr::Call(call) => self.check_call(e, call),
            Expr::List(list) => {
                let mut elems: Option<Type> = None;
                for (i, el) in list.elements.iter().enumerate() {
                    self.check(el);
                    let mut t = self.get(el.id);
                    if list.optional_indices.contains(&i) {
                        match t.optional_elem() {
                            Some(inner) => t = inner.clone(),
                            None => {
                                if !t.is_dyn_or_error() {
                                    self.report(
                                        el.id,
                                        format!(
                                            "expected type '{}' but found '{}'",
                                            Type::optional(t.clone()).format_cel(),
                                            t.format_cel()
                                        ),
                                    );
                                }
                            }
                        }
                    }
                    elems = Some(self.join_types(el.id, elems, t));
                }
                // (A nil element type, Type::Unset, is Go's nil: no type yet.)
                let elem = match elems {
                    Some(t) if t != Type::Unset => t,
                    _ => self.fresh(),
                };
                self.set(e.id, Type::list(elem));
            }
            Expr::Map(map) => {
                let mut keys: Option<Type> = None;
                let mut vals: Option<Type> = None;
                for entry in &map.entries {
                    if let EntryExpr::MapEntry(me) = &entry.expr {
                        self.check(&me.key);
                        let kt = self.get(me.key.id);
                        keys = Some(self.join_types(me.key.id, keys, kt));
                        self.check(&me.value);
                        let mut vt = self.get(me.value.id);
                        if me.optional {
                            match vt.optional_elem() {
                                Some(inner) => vt = inner.clone(),
                                None => {
                                    if !vt.is_dyn_or_error() {
                                        self.report(
                                            me.value.id,
                                            format!(
                                                "expected type '{}' but found '{}'",
                                                Type::optional(vt.clone()).format_cel(),
                                                vt.format_cel()
                                            ),
                                        );
                                    }
                                }
                            }
                        }
                        vals = Some(self.join_types(me.value.id, vals, vt));
                    }
                }
                // cel-go `checkCreateMap`: both fresh when the key type is still nil.
                let (k, v) = match keys {
                    Some(k) if k != Type::Unset => (k, vals.unwrap_or(Type::Unset)),
                    _ => {
                        let k = self.fresh();
                        (k, self.fresh())
                    }
                };
                self.set(e.id, Type::map(k, v));
            }
            Expr::Struct(st) => {
                // No message types are declared: cel-go's `checkCreateStruct` reports the
                // type name and returns without checking the field initializers.
                let t = self.undeclared_type();
                self.set(e.id, t);
                self.report(e.id, format!("undeclared reference to '{}' (in container '')", st.type_name));
            }
            Expr::Comprehension(comp) => {
                self.check(&comp.iter_range);
                self.check(&comp.accu_init);
                let range = substitute(&self.mapping.map, &self.get(comp.iter_range.id), false);
                let two = comp.iter_var2.is_some();
                let (v1, v2) = match &range {
                    Type::List(el) => {
                        if two {
                            (Type::Int, (**el).clone())
                        } else {
                            ((**el).clone(), Type::Error)
                        }
                    }
                    Type::Map(k, v) => ((**k).clone(), (**v).clone()),
                    Type::Dyn | Type::Error | Type::Param(_) => {
                        self.is_assignable(&Type::Dyn, &range);
                        (Type::Dyn, Type::Dyn)
                    }
                    other => {
                        self.report(
                            comp.iter_range.id,
                            format!(
                                "expression of type '{}' cannot be range of a comprehension (must be list, map, or dynamic)",
                                other.format_cel()
                            ),
                        );
                        (Type::Error, Type::Error)
                    }
                };
                let accu = self.get(comp.accu_init.id);
                let depth = self.scopes.len();
                self.scopes.push((comp.accu_var.clone(), accu.clone()));
                self.scopes.push((comp.iter_var.clone(), v1));
                if let Some(v2n) = &comp.iter_var2 {
                    self.scopes.push((v2n.clone(), v2));
                }
                self.check(&comp.loop_cond);
                self.assert_type(&comp.loop_cond, &Type::Bool);
                self.check(&comp.loop_step);
                self.assert_type(&comp.loop_step, &accu);
                self.scopes.truncate(depth + 1);
                self.check(&comp.result);
                self.scopes.truncate(depth);
                let t = substitute(&self.mapping.map, &self.get(comp.result.id), false);
                self.set(e.id, t);
            }
            Expr::Unspecified => self.set(e.id, Type::Error),
        }
    }

    fn assert_type(&mut self, e: &IdedExpr, t: &Type) {
        let got = self.get(e.id);
        if !self.is_assignable(t, &got) {
            self.report(e.id, format!("expected type '{}' but found '{}'", t.format_cel(), got.format_cel()));
        }
    }

    /// cel-go `joinTypes`. A previous type of [`Type::Unset`] is Go's nil: no type yet.
    fn join_types(&mut self, id: u64, prev: Option<Type>, cur: Type) -> Type {
        match prev {
            None | Some(Type::Unset) => cur,
            Some(p) => {
                if self.is_assignable(&p, &cur) {
                    most_general(&p, &cur)
                } else if self.has(Feature::HomogeneousLiteralValidator) {
                    // cel-go's checker joins mixed element types to dyn; Kubernetes'
                    // homogeneous aggregate literals are a validator run after checking
                    // (`library::validators`).
                    Type::Dyn
                } else {
                    // cel-go before v0.17: `HomogeneousAggregateLiterals` is the checker's
                    // own element type mode, a type mismatch at the element.
                    self.report(id, format!("expected type '{}' but found '{}'", p.format_cel(), cur.format_cel()));
                    Type::Error
                }
            }
        }
    }

    /// From compatibility version 1.31 a property named after a CEL reserved word is also
    /// reachable by that word (`self.namespace` as well as `self.__namespace__`): the
    /// apiserver's type provider looks the escaped name up when the plain one is missing
    /// (`DeclTypeProvider.FindStructFieldType`, `recognizeKeywordAsFieldName`). At run time
    /// both spellings unescape to the same key.
    fn keyword_field<'o>(&self, o: &'o ObjectType, field: &str) -> Option<&'o Type> {
        if self.env.options.compat_minor < KEYWORD_FIELD_NAMES_SINCE || !CEL_RESERVED.contains(&field) {
            return None;
        }
        o.field(&format!("__{}__", field))
    }

    fn check_select_field(&mut self, id: u64, operand: &IdedExpr, field: &str, optional: bool) -> Type {
        self.check(operand);
        let op = substitute(&self.mapping.map, &self.get(operand.id), false);
        let (target, is_opt) = match op.optional_elem() {
            Some(inner) => (inner.clone(), true),
            None => (op.clone(), false),
        };
        let result = match &target {
            Type::Map(_, v) => (**v).clone(),
            Type::Object(o) => match o.field(field).or_else(|| self.keyword_field(o, field)) {
                Some(t) => t.clone(),
                None => {
                    self.report(id, format!("undefined field '{}'", field));
                    Type::Error
                }
            },
            Type::Param(_) => {
                self.is_assignable(&Type::Dyn, &target);
                Type::Dyn
            }
            other => {
                if !other.is_dyn_or_error() {
                    self.report(id, format!("type '{}' does not support field selection", other.format_cel()));
                }
                Type::Dyn
            }
        };
        if is_opt || optional {
            Type::optional(result)
        } else {
            result
        }
    }

    fn check_call(&mut self, e: &IdedExpr, call: &cel::common::ast::CallExpr) {
        let name = call.func_name.as_str();
        if name == "_?._" {
            // Optional field selection: the field is a string literal argument.
            let field = match call.args.get(1).map(|a| &a.expr) {
                Some(Expr::Literal(LiteralValue::String(s))) => Some(s.inner().to_string()),
                _ => None,
            };
            match (call.args.first(), field) {
                (Some(operand), Some(f)) => {
                    let t = self.check_select_field(e.id, operand, &f, true);
                    let t = substitute(&self.mapping.map, &t, false);
                    self.set(e.id, t);
                }
                _ => {
                    self.report(e.id, "unsupported optional field selection".to_string());
                    self.set(e.id, Type::Error);
                }
            }
            return;
        }
        for a in &call.args {
            self.check(a);
        }
        match &call.target {
            None => {
                let Some(f) = self.env.function(name) else {
                    self.set(e.id, Type::Error);
                    self.report(e.id, format!("undeclared reference to '{}' (in container '')", name));
                    return;
                };
                self.resolve(e.id, f, None, &call.args);
            }
            Some(target) => {
                if let Some(q) = qualified_name(target) {
                    let full = format!("{}.{}", q, name);
                    let shadowed = self.lookup_ident(q.split('.').next().unwrap_or("")).is_some()
                        && self.scopes.iter().any(|(n, _)| Some(n.as_str()) == q.split('.').next());
                    if !shadowed {
                        if let Some(f) = self.env.function(&full) {
                            self.qualified.insert(e.id, full.clone());
                            self.resolve(e.id, f, None, &call.args);
                            return;
                        }
                    }
                }
                self.check(target);
                match self.env.function(name) {
                    Some(f) => self.resolve(e.id, f, Some(target), &call.args),
                    None => {
                        let t = self.undeclared_type();
                        self.set(e.id, t);
                        self.report(e.id, format!("undeclared reference to '{}' (in container '')", name));
                    }
                }
            }
        }
    }

    fn resolve(&mut self, id: u64, f: &crate::cel::env::Function, target: Option<&IdedExpr>, args: &[IdedExpr]) {
        let mut arg_types: Vec<Type> = Vec::with_capacity(args.len() + 1);
        if let Some(t) = target {
            arg_types.push(self.get(t.id));
        }
        for a in args {
            arg_types.push(self.get(a.id));
        }
        let mut result: Option<Type> = None;
        let mut ids = Vec::new();
        // cel-go's resolveOverload (v0.17+, Kubernetes 1.29+) checks the logical operators
        // apart: each operand must be assignable to bool, else a type mismatch at that
        // operand; no "no matching overload" error.
        let logical = (f.name == "_&&_" || f.name == "_||_")
            && self.has(Feature::LogicalOperandChecks);
        if let Some(o) = f.overloads.iter().find(|o| logical && o.member == target.is_some()) {
            let mut failed = false;
            for (a, t) in args.iter().zip(&arg_types) {
                if !self.is_assignable(t, &Type::Bool) {
                    self.report(a.id, format!("expected type 'bool' but found '{}'", t.format_cel()));
                    failed = true;
                }
            }
            if failed {
                self.set(id, Type::Error);
            } else {
                self.overloads.insert(id, vec![o.id]);
                self.set(id, Type::Bool);
            }
            return;
        }
        for o in &f.overloads {
            if o.member != target.is_some() || o.params.len() != arg_types.len() {
                continue;
            }
            // An argument that no substitution makes assignable to its parameter: the
            // overload does not fit, and is not tried. cel-go instantiates it all the same,
            // and the fresh variables it draws count in later variables' names.
            if arg_types.iter().zip(&o.params).any(|(a, p)| kinds_disjoint(a, p)) {
                self.next_var += o.fresh;
                continue;
            }
            // Instantiate the overload's type parameters with fresh variables (cel-go
            // `instantiate`); an overload without parameters is used as declared, which
            // draws no fresh variable either.
            let (ps, rt): (Cow<[Type]>, Cow<Type>) = if o.generic {
                let mut params: Vec<(Arc<str>, Type)> = Vec::new();
                let ps: Vec<Type> = o.params.iter().map(|p| instantiate(p, &mut params, self)).collect();
                let rt = instantiate(&o.result, &mut params, self);
                (Cow::Owned(ps), Cow::Owned(rt))
            } else {
                (Cow::Borrowed(&o.params[..]), Cow::Borrowed(&o.result))
            };
            let mark = self.mapping.mark();
            let fits = arg_types.iter().zip(ps.iter()).all(|(a, p)| assignable(&mut self.mapping, a, p));
            if !fits {
                self.mapping.undo(mark);
            } else {
                self.mapping.keep(mark);
                ids.push(o.id);
                let frt = substitute(&self.mapping.map, &rt, false);
                result = match result {
                    // cel-go keeps looking while the result type is nil: an overload whose
                    // result is a parameter bound to a missing type (`_?_:_` applied to
                    // `(bool, <nil>, <nil>)`) counts as no match.
                    None if frt == Type::Unset => None,
                    None => Some(frt),
                    Some(r) if r != Type::Dyn && r != frt => Some(Type::Dyn),
                    Some(r) => Some(r),
                };
            }
        }
        match result {
            Some(r) => {
                self.overloads.insert(id, ids);
                self.set(id, r);
            }
            None => {
                // cel-go v0.12 prints the argument types as recorded (`list(_var0)`).
                let substituted = self.has(Feature::OverloadErrorArgsSubstituted);
                let shown: Vec<String> = arg_types
                    .iter()
                    .map(|t| if substituted { substitute(&self.mapping.map, t, true) } else { t.clone() }.format_cel())
                    .collect();
                let sig = if target.is_some() {
                    format!("{}.({})", shown[0], shown[1..].join(", "))
                } else {
                    format!("({})", shown.join(", "))
                };
                self.report(id, format!("found no matching overload for '{}' applied to '{}'", f.name, sig));
                self.set(id, Type::Error);
            }
        }
    }
}

/// The name of the checker's `n`th fresh variable, `_var<n>`: the first ones are made
/// once per thread and shared, not formatted and allocated at every overload tried.
fn var_name(n: usize) -> Arc<str> {
    const KEPT: usize = 64;
    thread_local! {
        static NAMES: Vec<Arc<str>> = (0..KEPT).map(|i| Arc::from(format!("_var{}", i))).collect();
    }
    if n < KEPT {
        if let Ok(name) = NAMES.try_with(|names| names[n].clone()) {
            return name;
        }
    }
    Arc::from(format!("_var{}", n))
}

/// Whether [`assignable`] of `a` to `p` is false whatever the substitutions: two types of
/// different kinds, neither of which dyn, error, null, missing or a parameter (those are
/// the kinds `assignable` relates to others; every other pair of kinds reaches its last
/// arm, the equality of the two).
fn kinds_disjoint(a: &Type, p: &Type) -> bool {
    let open = |t: &Type| matches!(t, Type::Dyn | Type::Error | Type::Null | Type::Unset | Type::Param(_));
    !open(a) && !open(p) && std::mem::discriminant(a) != std::mem::discriminant(p)
}

/// An overload's type with each of its parameters replaced by a fresh checker variable,
/// the same one for every occurrence (`params`: the overload's few parameters so far).
fn instantiate(t: &Type, params: &mut Vec<(Arc<str>, Type)>, c: &mut Checker) -> Type {
    match t {
        Type::Param(p) => {
            if let Some((_, v)) = params.iter().find(|(n, _)| n == p) {
                return v.clone();
            }
            let v = c.fresh();
            params.push((p.clone(), v.clone()));
            v
        }
        Type::List(e) => Type::list(instantiate(e, params, c)),
        Type::Map(k, v) => {
            let k = instantiate(k, params, c);
            Type::map(k, instantiate(v, params, c))
        }
        Type::Opaque(n, ps) if !ps.is_empty() => {
            Type::Opaque(n.clone(), ps.iter().map(|p| instantiate(p, params, c)).collect())
        }
        Type::TypeOf(e) => Type::type_of(instantiate(e, params, c)),
        other => other.clone(),
    }
}

/// Every node id of an expression (for source offsets).
pub fn node_ids(e: &IdedExpr, out: &mut Vec<u64>) {
    out.push(e.id);
    match &e.expr {
        Expr::Call(c) => {
            if let Some(t) = &c.target {
                node_ids(t, out);
            }
            for a in &c.args {
                node_ids(a, out);
            }
        }
        Expr::Select(s) => node_ids(&s.operand, out),
        Expr::List(l) => l.elements.iter().for_each(|x| node_ids(x, out)),
        Expr::Map(m) => {
            for en in &m.entries {
                out.push(en.id);
                if let EntryExpr::MapEntry(me) = &en.expr {
                    node_ids(&me.key, out);
                    node_ids(&me.value, out);
                }
            }
        }
        Expr::Struct(s) => {
            for en in &s.entries {
                out.push(en.id);
                match &en.expr {
                    EntryExpr::StructField(f) => node_ids(&f.value, out),
                    EntryExpr::MapEntry(me) => {
                        node_ids(&me.key, out);
                        node_ids(&me.value, out);
                    }
                }
            }
        }
        Expr::Comprehension(c) => {
            node_ids(&c.iter_range, out);
            node_ids(&c.accu_init, out);
            node_ids(&c.loop_cond, out);
            node_ids(&c.loop_step, out);
            node_ids(&c.result, out);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// cel-go before v0.17: a missing type (a nil `*Type`) binds a free type parameter,
    /// then only fits itself, dyn and error.
    #[test]
    fn a_missing_type_binds_parameters_and_fits_only_itself() {
        let mut m = Mapping::default();
        assert!(!assignable(&mut m, &Type::Unset, &Type::Int));
        assert!(!assignable(&mut m, &Type::Int, &Type::Unset));
        assert!(assignable(&mut m, &Type::Unset, &Type::Dyn));
        assert!(assignable(&mut m, &Type::Error, &Type::Unset));
        assert!(assignable(&mut m, &Type::Unset, &Type::param("A")));
        assert_eq!(m.get("A"), Some(&Type::Unset));
        assert!(assignable(&mut m, &Type::Unset, &Type::param("A")));
        assert!(!assignable(&mut m, &Type::Int, &Type::param("A")));
        assert_eq!(Type::Unset.format_cel(), "<nil>");
    }

    /// An attempt that does not fit leaves the substitutions as they were (cel-go's copy
    /// thrown away); one that fits keeps its bindings.
    #[test]
    fn substitutions_of_an_attempt_that_does_not_fit_are_taken_back() {
        let mut m = Mapping::default();
        assert!(assignable(&mut m, &Type::Int, &Type::param("A")));
        m.keep(0);
        let mark = m.mark();
        // B binds to string, then A (int) does not take string: the whole attempt fails.
        let fits = [(Type::String, Type::param("B")), (Type::String, Type::param("A"))]
            .iter()
            .all(|(t, p)| assignable(&mut m, t, p));
        assert!(!fits);
        m.undo(mark);
        assert_eq!((m.get("A"), m.get("B")), (Some(&Type::Int), None));
        assert!(m.log.is_empty());
        // Through the checker: `==` on mismatched types reports cel-go's text, and a long
        // `||` chain of comparisons checks.
        let e = crate::cel::eval::evaluate("1 == 'a'", None, None, crate::KubeVersion::LATEST);
        assert!(e["compileError"].as_str().unwrap().contains("found no matching overload for '_==_' applied to '(int, string)'"), "{:?}", e);
        let chain = vec!["x == 1"; 3000].join(" || ");
        let vars = serde_json::json!({"x": 2});
        let types = serde_json::json!({"x": "int"});
        let out = crate::cel::eval::evaluate(&chain, Some(&vars), Some(&types), crate::KubeVersion::LATEST);
        assert_eq!(out["value"], serde_json::json!(false));
    }

    /// Overloads without type parameters are used as declared and draw no fresh variable:
    /// the variables cel-go v0.12 prints in an overload error keep cel-go's numbering, and
    /// the flag the checker reads agrees with the signatures.
    #[test]
    fn fresh_variables_are_drawn_only_for_generic_overloads() {
        let out = crate::cel::eval::evaluate("sets.contains([], [])", None, None, crate::KubeVersion::parse("1.25").unwrap());
        assert_eq!(
            out["compileError"],
            "ERROR: <input>:1:1: undeclared reference to 'sets' (in container '')\n | sets.contains([], [])\n | ^\n\
             ERROR: <input>:1:14: found no matching overload for 'contains' applied to '!error!.(list(_var0), list(_var1))'\n | sets.contains([], [])\n | .............^"
        );
        for minor in [24, 34] {
            let env = crate::cel::environment::base_env(&crate::cel::env::EnvOptions::for_version(minor));
            for f in env.functions.values() {
                for o in &f.overloads {
                    let generic = o.params.iter().any(Type::has_params) || o.result.has_params();
                    assert_eq!(o.generic, generic, "{}", o.id);
                    assert_eq!(o.fresh > 0, generic, "{}", o.id);
                }
            }
        }
        // Selections on a comprehension variable are not qualified names, whatever shares
        // its prefix.
        let vars = serde_json::json!({"ab": {"c": 1}, "a": {"b": 2}});
        let types = serde_json::json!({"ab": "map(string, int)", "a": "map(string, int)"});
        let out = crate::cel::eval::evaluate("[ab].all(a, a.c == 1) && a.b == 2", Some(&vars), Some(&types), crate::KubeVersion::LATEST);
        assert_eq!(out["value"], serde_json::json!(true), "{:?}", out);
    }
}
