//! Expression mode (`"mode": "eval"` in `crdlab batch`): a bare expression with typed
//! variables, compiled in the environment new rules get at a Kubernetes version.

use crate::cel::compile::CompileError;
use crate::cel::config::PER_CALL_LIMIT;
use crate::cel::env::EnvOptions;
use crate::cel::time_format::{format_duration, format_timestamp};
use crate::cel::types::Type;
use crate::cel::value::Val;
use crate::version::{Feature, KubeVersion};
use serde_json::{json, Map, Value};

/// Parses a variable type: `int`, `list(int)`, `map(string, list(bool))`, ...
pub fn parse_type(s: &str) -> Result<Type, String> {
    let s = s.trim();
    let simple = match s {
        "int" => Some(Type::Int),
        "uint" => Some(Type::Uint),
        "double" => Some(Type::Double),
        "string" => Some(Type::String),
        "bool" => Some(Type::Bool),
        "bytes" => Some(Type::Bytes),
        "timestamp" | "google.protobuf.Timestamp" => Some(Type::Timestamp),
        "duration" | "google.protobuf.Duration" => Some(Type::Duration),
        "dyn" => Some(Type::Dyn),
        "null_type" => Some(Type::Null),
        _ => None,
    };
    if let Some(t) = simple {
        return Ok(t);
    }
    let inner = |prefix: &str| s.strip_prefix(prefix).and_then(|r| r.strip_suffix(')'));
    if let Some(i) = inner("list(") {
        return Ok(Type::list(parse_type(i)?));
    }
    if let Some(i) = inner("map(") {
        let mut depth = 0;
        for (idx, c) in i.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    return Ok(Type::map(
                        parse_type(&i[..idx])?,
                        parse_type(&i[idx + 1..])?,
                    ))
                }
                _ => {}
            }
        }
    }
    Err(format!("unknown variable type {:?}", s))
}

/// A JSON value as a variable of type `t`.
pub fn typed_var(v: &Value, t: &Type) -> Result<Val<'static>, String> {
    Ok(match (t, v) {
        (Type::Int, Value::Number(n)) => Val::Int(n.as_i64().ok_or("not an int")?),
        (Type::Uint, Value::Number(n)) => Val::Uint(n.as_u64().ok_or("not a uint")?),
        (Type::Double, Value::Number(n)) => Val::Double(n.as_f64().ok_or("not a double")?),
        (Type::String, Value::String(s)) => Val::string(s.clone()),
        (Type::Bool, Value::Bool(b)) => Val::Bool(*b),
        (Type::Bytes, Value::String(s)) => Val::Bytes(std::rc::Rc::from(
            crate::go::base64::std_decode(s).unwrap_or_else(|| s.as_bytes().to_vec()),
        )),
        (Type::Timestamp, Value::String(s)) => Val::Timestamp(
            crate::cel::value::parse_timestamp(s).ok_or_else(|| format!("bad timestamp {:?}", s))?,
        ),
        (Type::Duration, Value::String(s)) => Val::Duration(
            crate::cel::value::parse_duration(s).ok_or_else(|| format!("bad duration {:?}", s))?,
        ),
        (Type::List(e), Value::Array(a)) => Val::list(
            a.iter()
                .map(|x| typed_var(x, e))
                .collect::<Result<_, _>>()?,
        ),
        (Type::Map(k, val), Value::Object(m)) => Val::map(
            m.iter()
                .map(|(mk, mv)| {
                    let key = match &**k {
                        Type::Int => Val::Int(mk.parse().map_err(|_| "bad int key")?),
                        Type::Uint => Val::Uint(mk.parse().map_err(|_| "bad uint key")?),
                        Type::Bool => Val::Bool(mk == "true"),
                        _ => Val::string(mk.clone()),
                    };
                    Ok((key, typed_var(mv, val)?))
                })
                .collect::<Result<_, String>>()?,
        ),
        (Type::Null, Value::Null) => Val::Null,
        (_, v) => Val::from_plain_json(v),
    })
}

/// `{"type", "value"}` as the vectors print values.
pub fn typed_value(v: &Val) -> Value {
    typed_value_named(v, crate::cel::types::OPTIONAL)
}

/// The optional type's name in the release whose cel-go answers: `optional_type` from
/// cel-go v0.18.2 (google/cel-go#870), `optional` before ([`Feature::OptionalTypeName`]).
fn optional_type_name(opts: &EnvOptions) -> &'static str {
    if opts.code_has(Feature::OptionalTypeName) {
        crate::cel::types::OPTIONAL
    } else {
        "optional"
    }
}

/// `t` with the optional type named `name` (cel-go before v0.18.2 prints `optional(int)`).
fn with_optional_named(t: &Type, name: &str) -> Type {
    match t {
        Type::Opaque(n, ps) => Type::Opaque(
            if &**n == crate::cel::types::OPTIONAL { name.into() } else { n.clone() },
            ps.iter().map(|p| with_optional_named(p, name)).collect(),
        ),
        Type::List(e) => Type::list(with_optional_named(e, name)),
        Type::Map(k, v) => Type::map(with_optional_named(k, name), with_optional_named(v, name)),
        Type::TypeOf(x) => Type::type_of(with_optional_named(x, name)),
        other => other.clone(),
    }
}

/// [`typed_value`], the optional type named `optional_name`.
fn typed_value_named(v: &Val, optional_name: &str) -> Value {
    let (t, value) = typed_parts(v, optional_name);
    json!({"type": t, "value": value})
}

/// The type name and value of [`typed_value_named`].
fn typed_parts(v: &Val, optional_name: &str) -> (std::borrow::Cow<'static, str>, Value) {
    let typed_value = |x: &Val| typed_value_named(x, optional_name);
    match v {
        Val::Null => ("null_type".into(), Value::Null),
        Val::Bool(b) => ("bool".into(), json!(b)),
        Val::Int(i) => ("int".into(), json!(i)),
        Val::Uint(u) => ("uint".into(), json!(u)),
        Val::Double(d) => (
            "double".into(),
            serde_json::Number::from_f64(*d)
                .map(Value::Number)
                .unwrap_or_else(|| json!(d.to_string())),
        ),
        Val::String(s) => ("string".into(), json!(s.as_str())),
        Val::Bytes(b) => ("bytes".into(), json!(crate::go::base64::std_encode(b))),
        Val::Duration(d) => (
            "google.protobuf.Duration".into(),
            json!(format_duration(*d)),
        ),
        Val::Timestamp(ts) => (
            "google.protobuf.Timestamp".into(),
            json!(format_timestamp(*ts)),
        ),
        Val::List(l) => (
            "list".into(),
            Value::Array(l.iter().map(|x| typed_value(&x)).collect()),
        ),
        Val::Map(m) => (
            "map".into(),
            Value::Array(
                m.entries()
                    .iter()
                    .map(|(k, v)| json!([typed_value(k), typed_value(v)]))
                    .collect(),
            ),
        ),
        Val::Optional(o) => (
            optional_name.to_string().into(),
            o.as_ref().map(|x| typed_value(x)).unwrap_or(Value::Null),
        ),
        // A type value prints its runtime type name: `list`, `map`, `type`, `int`, ...
        Val::Type(t) => ("type".into(), json!(t.kind_name())),
        Val::Opaque(o) => (o.type_name().into(), json!(o.to_canonical())),
    }
}

/// The untyped `value`: a scalar's is its typed value's; lists, maps and optionals are
/// walked once (converting each subtree to its typed form first made deep values quadratic).
pub fn plain_value(v: &Val) -> Value {
    match v {
        Val::List(l) => Value::Array(l.iter().map(|x| plain_value(&x)).collect()),
        Val::Map(m) => Value::Array(
            m.entries()
                .iter()
                .map(|(k, x)| json!([plain_value(k), plain_value(x)]))
                .collect(),
        ),
        Val::Optional(Some(x)) => plain_value(x),
        // A scalar's typed value without the object around it.
        scalar => typed_parts(scalar, crate::cel::types::OPTIONAL).1,
    }
}

/// Answers an expression-mode request: the fields of the answer besides `id`.
///
/// # Example
///
/// ```
/// use crdlab::cel::eval::evaluate;
/// let out = evaluate("'abc'.size() * 2", None, None, crdlab::KubeVersion::LATEST);
/// assert_eq!(out["outputType"], "int");
/// assert_eq!(out["value"], 6);
/// assert_eq!(out["actualCost"], 2);
/// ```
pub fn evaluate(
    expr: &str,
    vars: Option<&Value>,
    var_types: Option<&Value>,
    kube: KubeVersion,
) -> Map<String, Value> {
    let empty = Map::new();
    let vars = vars.and_then(Value::as_object).unwrap_or(&empty);
    let types = var_types.and_then(Value::as_object).unwrap_or(&empty);
    // Only the variables given are declared (a `varTypes` entry without a value is not).
    let mut decls = Vec::new();
    let mut values = Vec::new();
    for (name, v) in vars {
        let t = match types.get(name).and_then(Value::as_str) {
            Some(ts) => match parse_type(ts) {
                Ok(t) => t,
                Err(e) => return error_answer(e),
            },
            None => Type::Dyn,
        };
        let val = match typed_var(v, &t) {
            Ok(x) => x,
            Err(e) => return error_answer(format!("variable {}: {}", name, e)),
        };
        decls.push((name.clone(), t));
        values.push((name.clone(), val));
    }
    match compile(expr, &decls, kube) {
        Ok(compiled) => {
            let vars: Vec<(&str, Val)> = values
                .iter()
                .map(|(n, v)| (n.as_str(), v.clone()))
                .collect();
            compiled.run(&vars).into_map()
        }
        Err(answer) => answer,
    }
}

/// The answer of a request that cannot run (bad variable types or values): `error` alone.
fn error_answer(message: String) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("error".into(), json!(message));
    out
}

/// An expression parsed, checked, validated, planned and cost-estimated once, to run many
/// times ([`CompiledExpression::run`]); [`evaluate`] is [`compile`] then one run.
pub struct CompiledExpression {
    program: crate::cel::interpreter::Program,
    /// `outputType` and `estimatedCost`, the head of every answer (typed: a compile builds
    /// no JSON).
    output_type: String,
    estimated_cost: crate::cel::cost_model::CostEstimate,
    /// The optional type's name in the release's cel-go (for `typedValue`).
    optional_name: &'static str,
    /// The declared variables, in declaration order.
    decls: Vec<(String, Type)>,
}

/// Compiles `expr` in the CEL environment new rules get at `kube`, with `decls` as its
/// variables. An expression that does not become a program is `Err` with the whole answer
/// (`compileError`; or `panic`; or `outputType`, `estimatedCost` and `programError`), as
/// [`evaluate`] answers it.
pub fn compile(
    expr: &str,
    decls: &[(String, Type)],
    kube: KubeVersion,
) -> Result<CompiledExpression, Map<String, Value>> {
    let mut out = Map::new();
    // The environment new rules compile in at `kube` (compatibility `kube` − 1), parsed,
    // checked and costed (estimate and run) by release `kube`'s own cel-go and apiserver
    // code (`EnvOptions::release_minor`), as a `kube` server answers (the per-release vectors). Vectors answered by the latest
    // server at an older compatibility version differ only where the cost code changed
    // (`ip(a) == ip(b)` on 1.31): see engine/VERSIONS.md "Cost per release".
    let opts = EnvOptions::for_version(kube.minor.saturating_sub(1));
    let type_parameters = crate::version::Feature::OutputTypeParameters.enabled_at(kube.minor);
    let base = crate::cel::environment::base_env(&opts);
    let env = std::sync::Arc::new(crate::cel::env::env_with_variables(&base, decls));
    let program = match crate::cel::compile::compile_program(env.clone(), expr) {
        Ok(p) => p,
        Err(CompileError::Compile(e)) => {
            out.insert("compileError".into(), json!(e));
            return Err(out);
        }
        Err(CompileError::Panic(e)) => {
            // The release's apiserver crashes on it: no type, cost or value to report.
            out.insert("panic".into(), json!(e));
            return Err(out);
        }
        Err(CompileError::Program(e)) => {
            // The expression checked; report its type and cost, then the program error.
            if let Ok((x, src)) = crate::cel::parser::parse(&env.options, expr) {
                if let Ok(c) = crate::cel::checker::check(&env, x, src) {
                    let named = with_optional_named(&c.output_type(), optional_type_name(&env.options));
                    out.insert("outputType".into(), json!(named.output_name(type_parameters)));
                    let est = crate::cel::cost::estimate(&c, None);
                    out.insert(
                        "estimatedCost".into(),
                        json!({"min": est.min, "max": est.max}),
                    );
                }
            }
            out.insert("programError".into(), json!(e));
            return Err(out);
        }
    };
    let optional_name = optional_type_name(&env.options);
    let output_type = with_optional_named(&program.checked.output_type(), optional_name).output_name(type_parameters);
    let estimated_cost = crate::cel::cost::estimate(&program.checked, None);
    Ok(CompiledExpression {
        program,
        output_type,
        estimated_cost,
        optional_name,
        decls: decls.to_vec(),
    })
}

/// The answer of one run of a [`CompiledExpression`]: its result and runtime cost, turned
/// into the batch protocol's JSON answer by [`Answer::into_map`].
pub struct Answer<'a> {
    compiled: &'a CompiledExpression,
    result: Result<Val<'a>, crate::cel::value::EvalError>,
    cost: u64,
}

impl<'a> Answer<'a> {
    /// The program's value or evaluation error.
    pub fn result(&self) -> &Result<Val<'a>, crate::cel::value::EvalError> {
        &self.result
    }

    /// The runtime cost (`actualCost`).
    pub fn cost(&self) -> u64 {
        self.cost
    }

    /// The JSON answer ([`CompiledExpression::answer`]).
    pub fn into_map(self) -> Map<String, Value> {
        self.compiled.answer(self.result, self.cost)
    }
}

impl CompiledExpression {
    /// Runs the program with `vars` (values of the declared variables; one left out is
    /// cel-go's `no such attribute` at run time) under the per-call cost limit. The answer
    /// is typed ([`Answer`]); its JSON (the head `outputType`, `estimatedCost`, then
    /// `value` and `typedValue` or `evalError`, then `actualCost`) is built when asked
    /// ([`Answer::into_map`]), so a caller that reads the result alone builds no JSON.
    pub fn run<'a>(&'a self, vars: &[(&str, Val<'a>)]) -> Answer<'a> {
        let (result, cost) = self.eval(vars);
        Answer {
            compiled: self,
            result,
            cost,
        }
    }

    /// The program's result and runtime cost under the per-call limit, before they become
    /// an answer (the npm package turns plain results into JavaScript values itself).
    pub fn eval<'a>(&'a self, vars: &[(&str, Val<'a>)]) -> (Result<Val<'a>, crate::cel::value::EvalError>, u64) {
        self.program.eval(vars, Some(PER_CALL_LIMIT))
    }

    /// The answer [`CompiledExpression::run`] gives for a result and its cost.
    pub fn answer(&self, result: Result<Val, crate::cel::value::EvalError>, cost: u64) -> Map<String, Value> {
        let mut out = self.head();
        match result {
            Ok(v) => {
                out.insert("value".into(), plain_value(&v));
                out.insert("typedValue".into(), typed_value_named(&v, self.optional_name));
            }
            Err(e) => {
                out.insert("evalError".into(), json!(e.message));
            }
        }
        out.insert("actualCost".into(), json!(cost));
        out
    }

    /// The program (for the interpreter's tests, which compare its evaluations).
    #[cfg(test)]
    pub(crate) fn program(&self) -> &crate::cel::interpreter::Program {
        &self.program
    }

    /// The head of every answer: `outputType` and `estimatedCost`.
    pub fn head(&self) -> Map<String, Value> {
        let mut out = Map::new();
        out.insert("outputType".into(), json!(self.output_type));
        out.insert("estimatedCost".into(), json!({"min": self.estimated_cost.min, "max": self.estimated_cost.max}));
        out
    }

    /// The output type's name, as the answer's `outputType` gives it.
    pub fn output_type(&self) -> &str {
        &self.output_type
    }

    /// The estimated cost, as the answer's `estimatedCost` gives it.
    pub fn estimated_cost(&self) -> crate::cel::cost_model::CostEstimate {
        self.estimated_cost
    }

    /// The declared variables (name and CEL type), in declaration order.
    pub fn decls(&self) -> &[(String, Type)] {
        &self.decls
    }
}

#[cfg(test)]
mod tests {
    use super::*;


    /// The answer's value of an expression evaluated at Kubernetes 1.36.
    fn eval_value(expr: &str) -> Value {
        let out = evaluate(expr, None, None, KubeVersion::LATEST);
        match out.get("value") {
            Some(v) => v.clone(),
            None => panic!("{}: {:?}", expr, out),
        }
    }

    #[test]
    fn timestamps_keep_their_offset() {
        // cel-go prints a timestamp at the offset it was parsed with (Go's RFC3339Nano of
        // the time in its location); a zero offset prints `Z`.
        assert_eq!(
            eval_value("string(timestamp('2023-01-01T10:00:00+05:00'))"),
            json!("2023-01-01T10:00:00+05:00")
        );
        assert_eq!(
            eval_value("string(timestamp('2023-01-01T10:00:00.120-02:30'))"),
            json!("2023-01-01T10:00:00.12-02:30")
        );
        assert_eq!(
            eval_value("string(timestamp('2023-01-01T10:00:00+00:00'))"),
            json!("2023-01-01T10:00:00Z")
        );
        assert_eq!(
            eval_value("timestamp('2023-01-01T10:00:00+05:00')"),
            json!("2023-01-01T10:00:00+05:00")
        );
        // Arithmetic keeps the location; `timestamp(int)` is UTC.
        assert_eq!(
            eval_value("string(timestamp('2023-01-01T23:00:00+05:00') + duration('2h'))"),
            json!("2023-01-02T01:00:00+05:00")
        );
        assert_eq!(
            eval_value("string(timestamp('2023-01-01T10:00:00+05:00') - duration('1s'))"),
            json!("2023-01-01T09:59:59+05:00")
        );
        assert_eq!(
            eval_value("string(timestamp(0))"),
            json!("1970-01-01T00:00:00Z")
        );
        // The instant decides equality, ordering and differences.
        assert_eq!(
            eval_value(
                "timestamp('2023-01-01T10:00:00+05:00') == timestamp('2023-01-01T05:00:00Z')"
            ),
            json!(true)
        );
        assert_eq!(
            eval_value(
                "timestamp('2023-01-01T10:00:00+05:00') < timestamp('2023-01-01T06:00:00+00:30')"
            ),
            json!(true)
        );
        assert_eq!(
            eval_value(
                "timestamp('2023-01-01T10:00:00+05:00') - timestamp('2023-01-01T05:00:00Z')"
            ),
            json!("0s")
        );
        assert_eq!(
            eval_value("int(timestamp('1970-01-01T05:00:00+05:00'))"),
            json!(0)
        );
        // Accessors without a zone use UTC; with one, that zone.
        assert_eq!(
            eval_value("timestamp('2023-01-01T10:00:00+05:00').getHours()"),
            json!(5)
        );
        assert_eq!(
            eval_value("timestamp('2023-01-01T02:00:00+05:00').getDate()"),
            json!(31)
        );
        assert_eq!(
            eval_value("timestamp('2023-01-01T10:00:00+05:00').getHours('+05:00')"),
            json!(10)
        );
        assert_eq!(
            eval_value("'%s'.format([timestamp('2023-01-01T10:00:00-07:00')])"),
            json!("2023-01-01T10:00:00-07:00")
        );
    }

    /// A compiled expression answers each run as the one-shot call does, with no state kept
    /// between runs (values, errors and costs).
    #[test]
    fn compiled_runs_answer_as_the_one_shot_call() {
        let decls = vec![("x".to_string(), Type::Int), ("xs".to_string(), Type::list(Type::Int))];
        let c = compile("xs.exists(v, v > x) && 10 / x > 1", &decls, KubeVersion::LATEST).expect("compiles");
        for (x, xs) in [(1, json!([0, 2])), (3, json!([1, 2])), (0, json!([5])), (7, json!([9, 9]))] {
            let vars = json!({"x": x, "xs": xs});
            let types = json!({"x": "int", "xs": "list(int)"});
            let one_shot = evaluate("xs.exists(v, v > x) && 10 / x > 1", Some(&vars), Some(&types), KubeVersion::LATEST);
            let values = [("x", Val::Int(x)), ("xs", typed_var(&xs, &Type::list(Type::Int)).unwrap())];
            assert_eq!(c.run(&values).into_map(), one_shot, "x = {}", x);
        }
        // The typed answer carries what the JSON answer prints.
        let a = c.run(&[("x", Val::Int(3)), ("xs", typed_var(&json!([1, 5]), &Type::list(Type::Int)).unwrap())]);
        assert!(matches!(a.result(), Ok(Val::Bool(true))));
        assert_eq!(json!(a.cost()), a.into_map()["actualCost"]);
        // x = 0: the division fails at run time.
        let out = c.run(&[("x", Val::Int(0)), ("xs", typed_var(&json!([5]), &Type::list(Type::Int)).unwrap())]).into_map();
        assert_eq!(out["evalError"], "division by zero");
        // A variable left out is cel-go's missing attribute, not a crash.
        assert!(c.run(&[("x", Val::Int(1))]).into_map().contains_key("evalError"));
        // Compile errors are the one-shot answer.
        let err = compile("x +", &decls, KubeVersion::LATEST).err().expect("a compile error");
        assert_eq!(err, evaluate("x +", Some(&json!({"x": 1, "xs": []})), Some(&json!({"x": "int", "xs": "list(int)"})), KubeVersion::LATEST));
        assert!(err["compileError"].as_str().unwrap().starts_with("ERROR: <input>:1:4: Syntax error"), "{:?}", err);
    }

    #[test]
    fn types_parse() {
        assert_eq!(
            parse_type("map(string, list(int))").unwrap().to_string(),
            "map(string, list(int))"
        );
    }
}
