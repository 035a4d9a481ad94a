//! The CEL conformance suite (cel-spec `tests/simple/testdata`, from the npm package
//! `@bufbuild/cel-spec`), run through crdlab's CEL in the environment a Kubernetes 1.36
//! apiserver compiles new rules in (compatibility version 1.35), plus cel-go's math and
//! encoders extensions (`EnvOptions::conformance_extensions`), which the apiserver does not
//! install and which only this harness turns on, so that the suite's `math_ext` and
//! `encoders_ext` files run.
//!
//! `engine/tests/data/cel-spec/dump.mjs` flattens the suite into JSON; this test reads the file named by
//! `CEL_SPEC_JSON` (default `<repo>/target/cel-spec.json`, made with node when missing).
//! Files that are all about protobuf messages are not run (see [`PROTOBUF_FILES`]); every
//! test of the other files is compiled (type-checked, as Kubernetes always does), evaluated
//! and compared exactly: the value with its type, the type cel-go's checker deduced (when
//! the test data records one), and for an expected evaluation error, that evaluation (or
//! the program planning that Kubernetes' `OptOptimize` does first) failed — the suite's
//! error messages are not cel-go's, so their text is not compared.
//!
//! `engine/tests/data/cel-spec-skips.txt` lists the tests that are known to fail, one
//! `<file>/<section>/<name><TAB><reason>` a line. The test fails when an unlisted test
//! fails, when a listed test passes (remove it: the list only shrinks), or when a listed
//! test does not exist. `CEL_SPEC_WRITE_SKIPS=1` rewrites the list from the current
//! results, keeping the reasons of entries that still fail (review the diff).
//! `CEL_SPEC_FILTER=<substring>` runs only matching tests and `CEL_SPEC_VERBOSE=1` prints
//! every failure.

// Needs cel-go's math and encoders extensions: the `conformance` feature (on by default).
#![cfg(feature = "conformance")]

use crdlab::cel::env::{EnvOptions, Function, Overload};
use crdlab::cel::types::Type;
use crdlab::cel::value::{Duration, Timestamp, Val};
use crdlab::cel::{self, CompileError};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

/// Suite files whose tests are about protobuf messages, which Kubernetes' CEL does not have.
const PROTOBUF_FILES: &[(&str, &str)] = &[
    (
        "proto2",
        "proto2 messages (TestAllTypes) and their field semantics",
    ),
    (
        "proto3",
        "proto3 messages (TestAllTypes) and their field semantics",
    ),
    ("proto2_ext", "proto2 extension fields"),
    (
        "dynamic",
        "conversions of google.protobuf.Value/Struct/Any and wrapper messages",
    ),
    ("wrappers", "google.protobuf wrapper messages"),
    ("enums", "protobuf enums of TestAllTypes"),
];

/// Kubernetes 1.36 compiles new expressions at compatibility version 1.35.
const COMPAT_MINOR: u32 = 35;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The test data next to this file: `engine/tests/data`.
fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("data")
}

fn skips_file() -> PathBuf {
    data_dir().join("cel-spec-skips.txt")
}

/// The flattened suite: `CEL_SPEC_JSON`, else `target/cel-spec.json`, made by dump.mjs.
fn load_suite() -> Vec<Value> {
    let path = match std::env::var("CEL_SPEC_JSON") {
        Ok(p) => PathBuf::from(p),
        Err(_) => {
            let p = repo_root().join("target").join("cel-spec.json");
            if !p.exists() {
                let spec_dir = data_dir().join("cel-spec");
                if !spec_dir
                    .join("node_modules")
                    .join("@bufbuild")
                    .join("cel-spec")
                    .exists()
                {
                    panic!(
                        "the CEL conformance data is missing: run `npm ci` in {} (needs node and the npm \
                         registry), or point CEL_SPEC_JSON at a file made by dump.mjs",
                        spec_dir.display()
                    );
                }
                let status = std::process::Command::new("node")
                    .arg(spec_dir.join("dump.mjs"))
                    .arg(&p)
                    .status()
                    .unwrap_or_else(|e| {
                        panic!(
                            "cannot run node (needed to flatten the CEL conformance data): {}",
                            e
                        )
                    });
                assert!(
                    status.success(),
                    "node engine/tests/data/cel-spec/dump.mjs failed: {}",
                    status
                );
            }
            p
        }
    };
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {}", path.display(), e));
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Array(a)) => a,
        _ => panic!("{} is not a JSON array of tests", path.display()),
    }
}

fn read_skips() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(skips_file()).unwrap_or_default();
    let mut out = BTreeMap::new();
    for line in text.lines() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (k, r) = line.split_once('\t').unwrap_or((line, ""));
        out.insert(k.to_string(), r.to_string());
    }
    out
}

// ------------------------------------------------------------------------------ types

/// Parses dump.mjs's type strings. `Err` says why the type cannot exist here.
fn parse_type(s: &str) -> Result<Type, String> {
    let s = s.trim();
    if let Some(p) = s.strip_prefix('?') {
        return Ok(Type::param(p));
    }
    let (name, args) = match s.find('(') {
        Some(i) if s.ends_with(')') => (&s[..i], split_args(&s[i + 1..s.len() - 1])),
        _ => (s, Vec::new()),
    };
    let mut ps = Vec::new();
    for a in &args {
        ps.push(parse_type(a)?);
    }
    let arity = |n: usize| -> Result<(), String> {
        if ps.len() == n {
            Ok(())
        } else {
            Err(format!("bad type {}", s))
        }
    };
    Ok(match name {
        "dyn" => Type::Dyn,
        "null_type" => Type::Null,
        "bool" => Type::Bool,
        "int" => Type::Int,
        "uint" => Type::Uint,
        "double" => Type::Double,
        "string" => Type::String,
        "bytes" => Type::Bytes,
        "google.protobuf.Duration" => Type::Duration,
        "google.protobuf.Timestamp" => Type::Timestamp,
        "list" => {
            arity(1)?;
            Type::list(ps.remove(0))
        }
        "map" => {
            arity(2)?;
            let k = ps.remove(0);
            Type::map(k, ps.remove(0))
        }
        "type" => {
            arity(1)?;
            Type::type_of(ps.remove(0))
        }
        "message" => return Err(format!("needs protobuf message {}", args.join(""))),
        "wrapper" => return Err(format!("needs protobuf wrapper type {}", s)),
        "google.protobuf.Any" => return Err("needs protobuf google.protobuf.Any".into()),
        n if n.starts_with("unknown") => return Err(format!("unknown type {}", s)),
        n => Type::Opaque(n.into(), ps),
    })
}

fn split_args(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// A type in cel-go's checked-AST notation (checker `FormatCheckedType`), as the suite
/// records deduced types.
fn checked_type_name(t: &Type) -> String {
    match t {
        Type::Null => "null".into(),
        Type::Duration => "duration".into(),
        Type::Timestamp => "timestamp".into(),
        Type::List(e) => format!("list({})", checked_type_name(e)),
        Type::Map(k, v) => format!("map({}, {})", checked_type_name(k), checked_type_name(v)),
        Type::TypeOf(e) => match &**e {
            Type::Dyn => "type".into(),
            e => format!("type({})", checked_type_name(e)),
        },
        Type::Opaque(n, ps) if !ps.is_empty() => {
            format!(
                "{}({})",
                n,
                ps.iter()
                    .map(checked_type_name)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
        other => other.to_string(),
    }
}

// ----------------------------------------------------------------------------- values

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn json_int(v: &Value) -> Option<i128> {
    match v {
        Value::Number(n) => n
            .as_i64()
            .map(|i| i as i128)
            .or_else(|| n.as_u64().map(|u| u as i128)),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

fn json_double(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => match s.as_str() {
            "NaN" => Some(f64::NAN),
            "Infinity" | "+Inf" | "inf" => Some(f64::INFINITY),
            "-Infinity" | "-Inf" | "-inf" => Some(f64::NEG_INFINITY),
            other => other.parse().ok(),
        },
        _ => None,
    }
}

/// A binding in typed-value form as a runtime value.
fn to_val(tv: &Value) -> Result<Val<'static>, String> {
    let t = tv.get("type").and_then(Value::as_str).unwrap_or("");
    let v = tv.get("value").unwrap_or(&Value::Null);
    let bad = || format!("bad binding {}", tv);
    Ok(match t {
        "null_type" => Val::Null,
        "bool" => Val::Bool(v.as_bool().ok_or_else(bad)?),
        "int" => Val::Int(
            json_int(v)
                .and_then(|i| i64::try_from(i).ok())
                .ok_or_else(bad)?,
        ),
        "uint" => Val::Uint(
            json_int(v)
                .and_then(|i| u64::try_from(i).ok())
                .ok_or_else(bad)?,
        ),
        "double" => Val::Double(json_double(v).ok_or_else(bad)?),
        "string" => Val::string(v.as_str().ok_or_else(bad)?.to_string()),
        "bytes" => Val::Bytes(Rc::from(
            crdlab::go::base64::std_decode(v.as_str().ok_or_else(bad)?).ok_or_else(bad)?,
        )),
        "google.protobuf.Duration" => {
            let d: Duration =
                cel::value::parse_duration(v.as_str().ok_or_else(bad)?).ok_or_else(bad)?;
            Val::Duration(d)
        }
        "google.protobuf.Timestamp" => {
            let ts: Timestamp =
                cel::value::parse_timestamp(v.as_str().ok_or_else(bad)?).ok_or_else(bad)?;
            Val::Timestamp(ts)
        }
        "list" => Val::list(
            v.as_array()
                .ok_or_else(bad)?
                .iter()
                .map(to_val)
                .collect::<Result<_, _>>()?,
        ),
        "map" => {
            let mut entries = Vec::new();
            for e in v.as_array().ok_or_else(bad)? {
                let (Some(k), Some(x)) = (e.get(0), e.get(1)) else {
                    return Err(bad());
                };
                entries.push((to_val(k)?, to_val(x)?));
            }
            Val::map(entries)
        }
        _ => return Err(bad()),
    })
}

/// Exact comparison of an expected typed value with ours (maps in any order, numbers by
/// value, NaN equal to NaN).
fn same_value(want: &Value, got: &Value) -> bool {
    let wt = want.get("type").and_then(Value::as_str).unwrap_or("");
    let gt = got.get("type").and_then(Value::as_str).unwrap_or("");
    if wt != gt {
        return false;
    }
    let (wv, gv) = (
        want.get("value").unwrap_or(&Value::Null),
        got.get("value").unwrap_or(&Value::Null),
    );
    match wt {
        "int" | "uint" => json_int(wv).is_some() && json_int(wv) == json_int(gv),
        "double" => match (json_double(wv), json_double(gv)) {
            (Some(a), Some(b)) => (a.is_nan() && b.is_nan()) || a == b,
            _ => false,
        },
        "list" => match (wv.as_array(), gv.as_array()) {
            (Some(a), Some(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_value(x, y))
            }
            _ => false,
        },
        "map" => match (wv.as_array(), gv.as_array()) {
            (Some(a), Some(b)) => {
                a.len() == b.len()
                    && a.iter().all(|we| {
                        b.iter()
                            .any(|ge| same_value(&we[0], &ge[0]) && same_value(&we[1], &ge[1]))
                    })
            }
            _ => false,
        },
        _ => wv == gv,
    }
}

// ------------------------------------------------------------------------------ running

enum Outcome {
    Pass,
    /// A `disableCheck` test (the suite evaluates it unchecked) that Kubernetes, which
    /// always type-checks, rejects with exactly cel-go's parse/check error.
    PassCheckError,
    Fail(String),
}

/// The class of a skip reason for the summary: protobuf needs are one class, the others
/// are the reason's text before its first `:`, `(` or `;`.
fn reason_class(r: &str) -> String {
    if r.starts_with("needs protobuf") {
        return "needs protobuf messages".into();
    }
    r.split([':', '(', ';'])
        .next()
        .unwrap_or("")
        .trim()
        .to_string()
}

fn run_test(t: &Value) -> Outcome {
    let s = |k: &str| t.get(k).and_then(Value::as_str).unwrap_or("");
    if let Some(u) = t.get("unsupported").and_then(Value::as_str) {
        return Outcome::Fail(u.to_string());
    }
    let mut opts = EnvOptions::for_version(COMPAT_MINOR);
    // cel-go's math and encoders extensions, which the apiserver does not install, are
    // turned on here only, for the suite's math_ext and encoders_ext files.
    opts.conformance_extensions = true;
    let base = cel::base_env(&opts);
    let mut vars: Vec<(String, Type)> = Vec::new();
    let mut functions: Vec<Function> = Vec::new();
    for d in t
        .get("typeEnv")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = d.get("name").and_then(Value::as_str).unwrap_or("");
        if let Some(ty) = d.get("type").and_then(Value::as_str) {
            match parse_type(ty) {
                Ok(ty) => vars.push((name.to_string(), ty)),
                Err(e) => return Outcome::Fail(e),
            }
        } else if let Some(ovs) = d.get("overloads").and_then(Value::as_array) {
            let mut overloads = Vec::new();
            for o in ovs {
                let mut params = Vec::new();
                for p in o
                    .get("params")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    match parse_type(p.as_str().unwrap_or("")) {
                        Ok(p) => params.push(p),
                        Err(e) => return Outcome::Fail(e),
                    }
                }
                let result =
                    match parse_type(o.get("result").and_then(Value::as_str).unwrap_or("dyn")) {
                        Ok(r) => r,
                        Err(e) => return Outcome::Fail(e),
                    };
                let id = leak(o.get("id").and_then(Value::as_str).unwrap_or(""));
                let member = o.get("member").and_then(Value::as_bool).unwrap_or(false);
                overloads.push(Overload::special(id, member, params, result));
            }
            functions.push(Function::new(leak(name), overloads));
        }
    }
    let mut values: Vec<(String, Val<'static>)> = Vec::new();
    if let Some(b) = t.get("bindings").and_then(Value::as_object) {
        for (name, tv) in b {
            match to_val(tv) {
                Ok(v) => values.push((name.clone(), v)),
                Err(e) => return Outcome::Fail(e),
            }
            if !vars.iter().any(|(n, _)| n == name) {
                vars.push((name.clone(), Type::Dyn));
            }
        }
    }
    let mut env = cel::env_with_variables(&base, &vars);
    for f in functions {
        env.add_function(f);
    }
    let expect = t.get("expect").cloned().unwrap_or(Value::Null);
    let want_error = expect.get("evalError").is_some();
    let program = match cel::compile_program(Arc::new(env), s("expr")) {
        Ok(p) => p,
        Err(CompileError::Program(e)) if want_error => {
            // Kubernetes plans programs with OptOptimize: constant calls are evaluated then.
            let _ = e;
            return Outcome::Pass;
        }
        Err(CompileError::Program(e)) => return Outcome::Fail(format!("program error: {}", e)),
        Err(CompileError::Panic(e)) => return Outcome::Fail(format!("panic: {}", e)),
        Err(CompileError::Compile(e)) => {
            let unchecked = t
                .get("disableCheck")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            if unchecked && t.get("celGoError").and_then(Value::as_str) == Some(e.as_str()) {
                return Outcome::PassCheckError;
            }
            let mut why = format!("compile error: {}", e.replace('\n', " ⏎ "));
            if let Some(go) = t.get("celGoError").and_then(Value::as_str) {
                if go != e {
                    why.push_str(&format!(" [cel-go: {}]", go.replace('\n', " ⏎ ")));
                }
            }
            return Outcome::Fail(why);
        }
    };
    let our_type = checked_type_name(&program.checked.output_type());
    if let Some(dt) = t.get("deducedType").and_then(Value::as_str) {
        if dt != our_type {
            return Outcome::Fail(format!("deduced type: want {} got {}", dt, our_type));
        }
    }
    if !t
        .get("disableCheck")
        .and_then(Value::as_bool)
        .unwrap_or(false)
    {
        if let Some(ct) = t.get("checkedType").and_then(Value::as_str) {
            if ct != our_type {
                return Outcome::Fail(format!("checked type: want {} got {}", ct, our_type));
            }
        }
    }
    if t.get("checkOnly").and_then(Value::as_bool).unwrap_or(false) {
        return Outcome::Pass;
    }
    let vars: Vec<(&str, Val)> = values
        .iter()
        .map(|(n, v)| (n.as_str(), v.clone()))
        .collect();
    let (result, _cost) = program.eval(&vars, Some(cel::PER_CALL_LIMIT));
    match (result, expect.get("value"), want_error) {
        (Ok(v), Some(want), _) => {
            let got = cel::eval::typed_value(&v);
            if same_value(want, &got) {
                Outcome::Pass
            } else {
                Outcome::Fail(format!("value: want {} got {}", want, got))
            }
        }
        (Err(_), None, true) => Outcome::Pass,
        (Err(e), Some(want), _) => {
            Outcome::Fail(format!("value: want {} got error {}", want, e.message))
        }
        (Ok(v), None, true) => Outcome::Fail(format!(
            "want error {} got {}",
            expect.get("evalError").unwrap_or(&Value::Null),
            cel::eval::typed_value(&v)
        )),
        (r, None, false) => Outcome::Fail(format!(
            "no expectation; got {:?}",
            r.map(|v| cel::eval::typed_value(&v))
        )),
    }
}

/// A reason for a failure when (re)writing the skip list: the environment's, when the test
/// needs something Kubernetes' CEL does not have, else the failure itself.
fn auto_reason(t: &Value, failure: &str) -> String {
    let s = |k: &str| t.get(k).and_then(Value::as_str).unwrap_or("");
    let expr = s("expr");
    if t.get("unsupported").is_some() || failure.starts_with("needs protobuf") {
        return failure.to_string();
    }
    if expr.contains("TestAllTypes") {
        return "needs protobuf message TestAllTypes".into();
    }
    if let Some(i) = expr.find("google.protobuf.") {
        let name: String = expr[i..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '_')
            .collect();
        if name != "google.protobuf.Timestamp" && name != "google.protobuf.Duration" {
            return format!("needs protobuf message {}", name);
        }
    }
    for (needle, why) in [
        ("cel.bind(", "Kubernetes env lacks the bindings ext (cel.bind)"),
        ("cel.block(", "Kubernetes env lacks cel.block (cel-go optimizer internals)"),
        ("cel.iterVar(", "Kubernetes env lacks cel.block (cel-go optimizer internals)"),
        ("`", "Kubernetes env does not enable identifier escape syntax (cel.EnableIdentifierEscapeSyntax)"),
    ] {
        if expr.contains(needle) {
            return why.into();
        }
    }
    let compile_msg = failure
        .strip_prefix("compile error: ")
        .and_then(|e| e.split(" ⏎ ").next())
        .and_then(|e| e.splitn(3, ": ").nth(2))
        .unwrap_or("");
    if compile_msg.starts_with("invalid duration argument")
        || compile_msg.starts_with("invalid timestamp argument")
    {
        return format!(
            "Kubernetes env validates duration/timestamp literals at compile time (cel.ValidateDurationLiterals, \
             cel.ValidateTimestampLiterals): {}",
            compile_msg
        );
    }
    let unchecked = t
        .get("disableCheck")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if compile_msg.starts_with("expected type")
        && !unchecked
        && (expr.contains('[') || expr.contains('{'))
    {
        return format!(
            "Kubernetes env enables homogeneous aggregate literals (cel.HomogeneousAggregateLiterals): {}",
            compile_msg
        );
    }
    // math.greatest/least pass three or more arguments to math.@max/@min as a list literal.
    if compile_msg.starts_with("expected type")
        && !unchecked
        && (expr.contains("math.greatest(") || expr.contains("math.least("))
    {
        return format!(
            "Kubernetes env enables homogeneous aggregate literals (cel.HomogeneousAggregateLiterals; the math \
             macros put three or more arguments in a list literal): {}",
            compile_msg
        );
    }
    if !s("container").is_empty() {
        return format!(
            "Kubernetes env has no container (the test resolves names in container {})",
            s("container")
        );
    }
    if unchecked && failure.starts_with("compile error") {
        return format!(
            "needs unchecked evaluation (Kubernetes always type-checks; the check fails with `{}`)",
            compile_msg
        );
    }
    format!("TODO {}", failure)
}

#[test]
fn cel_conformance() {
    // The engine, like the crdlab binary, needs more stack than a test thread has for
    // expressions nested as deeply as cel-go allows.
    let worker = std::thread::Builder::new()
        .stack_size(256 * 1024 * 1024)
        .spawn(run_suite)
        .expect("spawn the conformance worker");
    if let Err(panic) = worker.join() {
        std::panic::resume_unwind(panic);
    }
}

fn run_suite() {
    let suite = load_suite();
    let skips = read_skips();
    let filter = std::env::var("CEL_SPEC_FILTER").ok();
    let verbose = std::env::var("CEL_SPEC_VERBOSE").is_ok();
    let write = std::env::var("CEL_SPEC_WRITE_SKIPS").is_ok();
    let by_key: HashMap<String, &Value> = suite
        .iter()
        .map(|t| {
            let s = |k: &str| t.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            (format!("{}/{}/{}", s("file"), s("section"), s("name")), t)
        })
        .collect();

    // file -> (tests, passed, failed as listed, unexpected failures, unexpected passes,
    // passed as cel-go's check error)
    let mut per_file: BTreeMap<String, [usize; 6]> = BTreeMap::new();
    let mut excluded: BTreeMap<&str, usize> = BTreeMap::new();
    let mut unexpected_fail = Vec::new();
    let mut unexpected_pass = Vec::new();
    let mut new_skips: BTreeMap<String, String> = BTreeMap::new();
    let mut total = 0;
    for t in &suite {
        let file = t.get("file").and_then(Value::as_str).unwrap_or("");
        if let Some((f, _)) = PROTOBUF_FILES.iter().find(|(f, _)| *f == file) {
            *excluded.entry(f).or_insert(0) += 1;
            continue;
        }
        let key = format!(
            "{}/{}/{}",
            file,
            t.get("section").and_then(Value::as_str).unwrap_or(""),
            t.get("name").and_then(Value::as_str).unwrap_or("")
        );
        if let Some(f) = &filter {
            if !key.contains(f.as_str()) {
                continue;
            }
        }
        total += 1;
        let outcome = std::panic::catch_unwind(|| run_test(t))
            .unwrap_or_else(|_| Outcome::Fail("panicked".into()));
        let counts = per_file.entry(file.to_string()).or_insert([0; 6]);
        counts[0] += 1;
        if matches!(outcome, Outcome::PassCheckError) {
            counts[5] += 1;
        }
        match (outcome, skips.get(&key)) {
            (Outcome::Pass | Outcome::PassCheckError, None) => counts[1] += 1,
            (Outcome::Pass | Outcome::PassCheckError, Some(_)) => {
                counts[1] += 1;
                counts[4] += 1;
                unexpected_pass.push(key.clone());
            }
            (Outcome::Fail(why), listed) => {
                if verbose {
                    let expr = t
                        .get("expr")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .replace('\n', "⏎");
                    println!("FAIL {} | {} | {}", key, expr, why);
                }
                let reason = match listed {
                    Some(r) => {
                        counts[2] += 1;
                        r.clone()
                    }
                    None => {
                        counts[3] += 1;
                        unexpected_fail.push(format!(
                            "{} | {} | {}",
                            key,
                            t.get("expr")
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .replace('\n', "⏎"),
                            why
                        ));
                        auto_reason(t, &why)
                    }
                };
                new_skips.insert(key, reason);
            }
        }
    }
    let stale: Vec<&String> = if filter.is_some() {
        Vec::new()
    } else {
        skips.keys().filter(|k| !by_key.contains_key(*k)).collect()
    };

    println!("CEL conformance (cel-spec via @bufbuild/cel-spec), Kubernetes 1.36 environment:");
    println!(
        "{:<18} {:>6} {:>6} {:>9} {:>8} {:>10} {:>10}",
        "file", "tests", "passed", "(checked)", "skipped", "unexp.fail", "unexp.pass"
    );
    let mut sums = [0usize; 6];
    for (f, c) in &per_file {
        println!(
            "{:<18} {:>6} {:>6} {:>9} {:>8} {:>10} {:>10}",
            f, c[0], c[1], c[5], c[2], c[3], c[4]
        );
        for i in 0..6 {
            sums[i] += c[i];
        }
    }
    println!(
        "{:<18} {:>6} {:>6} {:>9} {:>8} {:>10} {:>10}",
        "TOTAL", sums[0], sums[1], sums[5], sums[2], sums[3], sums[4]
    );
    println!(
        "(checked: disableCheck tests that Kubernetes, always type-checking, rejects with exactly cel-go's error)"
    );
    for (f, n) in &excluded {
        let why = PROTOBUF_FILES
            .iter()
            .find(|(x, _)| x == f)
            .map(|(_, w)| *w)
            .unwrap_or("");
        println!("not run: {} ({} tests): {}", f, n, why);
    }
    // Skips by reason class: protobuf, the Kubernetes environment, unchecked evaluation
    // (all "skipped for the environment"), and cel-go divergences (the suite expects what
    // cel-go v0.26, and so Kubernetes, does not do).
    let mut classes: BTreeMap<String, usize> = BTreeMap::new();
    let mut env_skips = 0;
    for (k, r) in &skips {
        if by_key.contains_key(k) && filter.as_deref().map(|f| k.contains(f)).unwrap_or(true) {
            let class = reason_class(r);
            if !class.starts_with("cel-go divergence") {
                env_skips += 1;
            }
            *classes.entry(class).or_insert(0) += 1;
        }
    }
    for (c, n) in &classes {
        println!("skipped {:>4}: {}", n, c);
    }
    let suite_total = suite.len();
    let rate = |n: usize, d: usize| {
        if d == 0 {
            100.0
        } else {
            100.0 * n as f64 / d as f64
        }
    };
    println!(
        "suite: {} tests; not run (protobuf files): {}; run: {}; passed: {} ({} as cel-go's own check error)",
        suite_total,
        excluded.values().sum::<usize>(),
        total,
        sums[1],
        sums[5]
    );
    let divergences: usize = classes
        .iter()
        .filter(|(c, _)| c.starts_with("cel-go divergence"))
        .map(|(_, n)| *n)
        .sum();
    let not_env = total - env_skips.min(total);
    println!(
        "passed {:.2}% of the {} tests not skipped for the environment (cel-go divergences counted as failures); \
         {:.2}% of the {} whose expectation cel-go v0.26 shares",
        rate(sums[1], not_env),
        not_env,
        rate(sums[1], not_env.saturating_sub(divergences)),
        not_env.saturating_sub(divergences)
    );
    println!(
        "{} passed; {} known failures (cel-spec-skips.txt)",
        sums[1],
        sums[2] + sums[3]
    );

    if write && filter.is_none() {
        // Keep the header comment of the current list.
        let old = std::fs::read_to_string(skips_file()).unwrap_or_default();
        let mut text: String = old
            .lines()
            .take_while(|l| l.starts_with('#'))
            .map(|l| format!("{}\n", l))
            .collect();
        for (k, r) in &new_skips {
            text.push_str(&format!("{}\t{}\n", k, r));
        }
        std::fs::write(skips_file(), text).expect("write skip list");
        println!("rewrote {}", skips_file().display());
        return;
    }
    let mut problems = String::new();
    for f in &unexpected_fail {
        problems.push_str(&format!("unexpected failure: {}\n", f));
    }
    for p in &unexpected_pass {
        problems.push_str(&format!(
            "listed in cel-spec-skips.txt but passes (remove it): {}\n",
            p
        ));
    }
    for s in &stale {
        problems.push_str(&format!(
            "listed in cel-spec-skips.txt but not in the suite: {}\n",
            s
        ));
    }
    assert!(problems.is_empty(), "\n{}", problems);
}
