//! `crdlab validate --crds PATH... [OBJECTS...|-]`: a repository's manifests against its
//! CRDs, as kubeconform and kubectl-validate do, with the apiserver's own answers.
//!
//! Every CRD is read once; objects (files, directories, stdin; multi-document files and
//! Lists) are matched to their CRD by apiVersion and kind and validated as creates, in
//! parallel over the machine's cores. With `--old`, an object whose apiVersion, kind,
//! namespace and name some old object has is validated as an update of it (ratcheting as
//! the release does it, as for one object); old objects with no new one are not reported. A compiled CRD holds `Rc`s (it is built for one
//! thread), so each worker thread compiles the CRDs its objects need, once.

use crate::inputs;
use crdlab::analysis::parallel::{cores, map_runs, par_map};
use crdlab::strategy::{validate_object, ValidateOptions};
use crdlab::text::positions::{json_path, locate, parse_field_path, FieldSeg};
use crdlab::text::source_map::SourceMap;
use crdlab::wire::cases::CaseRecord;
use crdlab::wire::findings::{write_github, write_sarif, Finding, Level};
use crdlab::wire::junit::write_junit;
use crdlab::wire::tap::write_tap;
use crdlab::{CompiledCrd, KubeVersion};
use serde_json::{json, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Read;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    /// SARIF 2.1.0 (GitHub code scanning).
    Sarif,
    /// GitHub Actions workflow commands (annotations on the lines).
    Github,
    /// JUnit XML: a test case per object, a test suite per file.
    Junit,
    /// TAP 14: a test point per object.
    Tap,
}

pub struct Options {
    pub kube: KubeVersion,
    pub ratcheting: bool,
    /// `--old`: files and directories of the stored objects (updates).
    pub old: Vec<String>,
    pub strict: bool,
    pub format: Format,
}

/// One object to validate: where it stands, and its value.
struct Object {
    /// The file (`-` for stdin).
    file: String,
    /// The document's index in the file (from 0).
    document: usize,
    /// Within a List: the item's index.
    item: Option<usize>,
    value: Value,
}

/// A text's documents with their source maps (a List's items share their List's map).
/// A JSON text's maps are built only when asked for (to place an error, or an item of a
/// List): most objects are valid, and the map took half the time of reading a JSON file.
struct Text {
    docs: std::cell::OnceCell<Vec<(Value, SourceMap)>>,
    /// A JSON text, kept to build its maps when needed.
    json: Option<String>,
    /// Where a JSON text's one document starts (line, column): its first non-blank character.
    json_root: Option<(u32, u32)>,
}

impl Text {
    /// The document's value and map (`None` if the text no longer reads: it did once).
    fn doc(&self, index: usize) -> Option<(&Value, &SourceMap)> {
        let docs = self.docs.get_or_init(|| {
            self.json.as_deref().and_then(|t| crdlab::text::yaml::read_documents_with_positions(t).ok()).unwrap_or_default()
        });
        docs.get(index).map(|(d, m)| (d, m))
    }
}

/// What happened to one object.
enum Verdict {
    Valid { warnings: Vec<String> },
    /// Each error: its field, the apiserver's message and its kind (`Invalid value`, …).
    Invalid { errors: Vec<(String, String, &'static str)>, warnings: Vec<String> },
    /// No CRD defines its kind.
    Skipped(String),
}

pub fn run(crd_paths: &[String], object_paths: &[String], opts: &Options) -> ExitCode {
    let started = Instant::now();
    let crds = match inputs::crd_documents(crd_paths) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {}", e);
            return ExitCode::from(2);
        }
    };
    // group → kind → the CRDs defining it, in the order named (a cluster holds one; a folder
    // of several projects' CRDs may hold two releases of one). Only the CRDs some object
    // needs are decoded and compiled.
    let mut by_kind: CrdIndex = HashMap::new();
    for (i, d) in crds.iter().enumerate() {
        let at = |p: &str| d.value.pointer(p).and_then(Value::as_str).unwrap_or("").to_string();
        by_kind.entry(at("/spec/group")).or_default().entry(at("/spec/names/kind")).or_default().push(i);
    }
    let crds_read = started.elapsed();
    let Work { texts, objects, verdicts, updates: is_update, timing } = match read_and_validate(&crds, &by_kind, object_paths, opts) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: {}", e);
            return ExitCode::from(2);
        }
    };
    let updates = is_update.iter().filter(|u| **u).count();
    let elapsed = started.elapsed();
    let (mut valid, mut invalid, mut skipped) = (0usize, 0usize, 0usize);
    let mut current_file: Option<&str> = None;
    let mut findings: Vec<Finding> = Vec::new();
    let mut cases: Vec<CaseRecord> = Vec::new();
    for ((o, v), &update) in objects.iter().zip(&verdicts).zip(&is_update) {
        // Updates say so where the format has room (creates read as before).
        let op = if update { "update: " } else { "" };
        match v {
            Verdict::Valid { .. } => valid += 1,
            Verdict::Invalid { .. } => invalid += 1,
            Verdict::Skipped(_) => skipped += 1,
        }
        let text = texts.get(&o.file);
        let at = |field: &str| -> Option<(u32, u32)> {
            let text = text?;
            if field.is_empty() && o.item.is_none() {
                if let Some(root) = text.json_root {
                    return Some(root);
                }
            }
            let (doc, map) = text.doc(o.document)?;
            let mut segs = Vec::new();
            if let Some(i) = o.item {
                segs.push(FieldSeg::Field("items".into()));
                segs.push(FieldSeg::Bracket(i.to_string()));
            }
            segs.extend(parse_field_path(field));
            let l = locate(&json_path(&segs, doc), map)?;
            Some((l.range.start_line, l.range.start_column))
        };
        let (line, column) = at("").unwrap_or((0, 0));
        let kind = o.value.get("kind").and_then(Value::as_str).unwrap_or("");
        let name = o.value.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
        match opts.format {
            Format::Junit | Format::Tap => {
                let mut doc = match o.item {
                    Some(i) => format!("document {}, item {}", o.document + 1, i + 1),
                    None => format!("document {}", o.document + 1),
                };
                if update {
                    doc.push_str(", update");
                }
                let title = if name.is_empty() { kind.to_string() } else { format!("{} {}", kind, name) };
                let mut case = CaseRecord { group: o.file.clone(), name: format!("{} ({})", title, doc), file: o.file.clone(), line, ..Default::default() };
                match v {
                    Verdict::Valid { .. } => {}
                    Verdict::Invalid { errors, .. } => {
                        // The first line is what CI shows as the failure's message.
                        let first = errors.first().map(|e| e.1.as_str()).unwrap_or("");
                        let mut text = format!("The {} \"{}\" is invalid: {}", crate::kind_group(&o.value), name, first);
                        for (field, message, _) in errors {
                            let (l, c) = at(field).unwrap_or((line, column));
                            text.push_str(&format!("\n{}:{}:{}: {}", o.file, l, c, message));
                        }
                        case.failure = Some(text);
                    }
                    Verdict::Skipped(why) if opts.strict => case.failure = Some(format!("skipped: {}", why)),
                    Verdict::Skipped(why) => case.skipped = Some(why.clone()),
                }
                cases.push(case);
            }
            Format::Sarif | Format::Github => {
                let finding = |l: u32, c: u32, level, rule: &str, message: String| Finding { file: o.file.clone(), line: l, column: c, level, rule: rule.to_string(), message: format!("{}{}", op, message) };
                match v {
                    Verdict::Valid { warnings } | Verdict::Invalid { warnings, .. } => {
                        if let Verdict::Invalid { errors, .. } = v {
                            let kg = crate::kind_group(&o.value);
                            for (field, message, kind) in errors {
                                let (l, c) = at(field).unwrap_or((line, column));
                                findings.push(finding(l, c, Level::Error, kind, format!("The {} \"{}\" is invalid: {}", kg, name, message)));
                            }
                        }
                        for w in warnings {
                            findings.push(finding(line, column, Level::Warning, "Warning", w.clone()));
                        }
                    }
                    Verdict::Skipped(why) if opts.strict => findings.push(finding(line, column, Level::Error, "Skipped", why.clone())),
                    Verdict::Skipped(_) => {}
                }
            }
            Format::Json => {
                let (status, errors, warnings, reason) = match v {
                    Verdict::Valid { warnings } => ("valid", vec![], warnings.clone(), None),
                    Verdict::Invalid { errors, warnings } => ("invalid", errors.clone(), warnings.clone(), None),
                    Verdict::Skipped(why) => ("skipped", vec![], vec![], Some(why.clone())),
                };
                let errors: Vec<Value> = errors
                    .iter()
                    .map(|(field, message, kind)| {
                        let (l, c) = at(field).unwrap_or((line, column));
                        json!({"message": message, "field": field, "type": kind, "line": l, "column": c})
                    })
                    .collect();
                let mut record = json!({
                    "file": o.file, "document": o.document, "line": line, "column": column,
                    "apiVersion": o.value.get("apiVersion"), "kind": kind, "name": name,
                    "status": status, "operation": if update { "update" } else { "create" },
                    "errors": errors, "warnings": warnings,
                });
                if let Some(i) = o.item {
                    record["item"] = i.into();
                }
                if let Some(r) = reason {
                    record["reason"] = r.into();
                }
                println!("{}", record);
            }
            Format::Text => {
                if current_file != Some(&o.file) {
                    println!("{}", o.file);
                    current_file = Some(&o.file);
                }
                let what = if name.is_empty() { kind.to_string() } else { format!("{} {}", kind, name) };
                match v {
                    Verdict::Valid { warnings } => {
                        println!("  {}:{}: {}{} is valid", line, column, op, what);
                        for w in warnings {
                            println!("    Warning: {}", w);
                        }
                    }
                    Verdict::Invalid { errors, warnings } => {
                        let kg = crate::kind_group(&o.value);
                        let shown = if name.is_empty() { "<no name>" } else { name };
                        println!("  {}:{}: {}The {} \"{}\" is invalid:", line, column, op, kg, shown);
                        for (field, message, _) in errors {
                            let (l, c) = at(field).unwrap_or((line, column));
                            println!("    {}:{}: {}", l, c, message);
                        }
                        for w in warnings {
                            println!("    Warning: {}", w);
                        }
                    }
                    Verdict::Skipped(why) => println!("  {}:{}: {}{} skipped: {}", line, column, op, what, why),
                }
            }
        }
    }
    // Objects per second: reading and validating them (the last thread's end), without the
    // one-time reading and compiling of CRDs.
    let per_object = timing.objects.as_secs_f64();
    let objects_read = timing.objects.saturating_sub(timing.validating);
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
    let summary = format!(
        "{} object{}: {} valid, {} invalid, {} skipped{} in {:.0} ms; {} CRD{} read in {:.0} ms, {} compiled in {:.0} ms; objects read in {:.0} ms and validated in {:.0} ms ({:.0} objects/s on {} thread{})",
        objects.len(),
        if objects.len() == 1 { "" } else { "s" },
        valid,
        invalid,
        skipped,
        if opts.old.is_empty() { String::new() } else { format!(" ({} update{})", updates, if updates == 1 { "" } else { "s" }) },
        ms(elapsed),
        crds.len(),
        if crds.len() == 1 { "" } else { "s" },
        ms(crds_read),
        timing.compiled,
        ms(timing.compiling),
        ms(objects_read),
        ms(timing.validating),
        if per_object > 0.0 { objects.len() as f64 / per_object } else { 0.0 },
        timing.threads,
        if timing.threads == 1 { "" } else { "s" },
    );
    // CI formats list findings in the order of the files' lines.
    findings.sort_by(|a, b| (a.file.as_str(), a.line, a.column).cmp(&(b.file.as_str(), b.line, b.column)));
    match opts.format {
        Format::Text => println!("{}", summary),
        Format::Json => eprintln!("{}", summary),
        Format::Sarif => {
            print!("{}", write_sarif("crdlab", env!("CARGO_PKG_VERSION"), "https://github.com/crdlab/crdlab", &findings));
            eprintln!("{}", summary);
        }
        Format::Github => {
            print!("{}", write_github(&findings));
            println!("{}", summary);
        }
        Format::Junit => {
            print!("{}", write_junit("crdlab validate", &cases, elapsed.as_secs_f64()));
            eprintln!("{}", summary);
        }
        Format::Tap => {
            print!("{}", write_tap(&cases));
            eprintln!("{}", summary);
        }
    }
    if invalid > 0 || (opts.strict && skipped > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Every object read, with its verdict, in the order named.
struct Work {
    /// Each text's documents and source maps, by file (`-`: stdin).
    texts: HashMap<String, Text>,
    objects: Vec<Object>,
    verdicts: Vec<Verdict>,
    /// For each object, whether it was validated as an update of an `--old` object.
    updates: Vec<bool>,
    timing: Timing,
}

/// How the work went.
#[derive(Default)]
struct Timing {
    threads: usize,
    /// CRDs compiled (by all threads: each compiles what its objects need).
    compiled: usize,
    /// The longest thread's compiling.
    compiling: Duration,
    /// The longest thread's validating (compiles apart).
    validating: Duration,
    /// Reading and validating the objects: from listing the files to the last thread's end,
    /// each thread's compiles apart.
    objects: Duration,
}

/// A text to read: its name, and its text if already read (stdin).
type Source = (String, Option<String>);

/// A thread's share of the work, one entry per file: its text, objects and their verdicts and
/// update flags; or the error that ended the thread's run (its later files do not matter: the
/// first error in file order is the one reported).
type Done = Vec<Result<(String, Text, Vec<Object>, Vec<(Verdict, bool)>), String>>;

/// Reads the objects of `paths` (`-`, or none at all: stdin) and validates each against its
/// CRD, on the machine's cores. With enough files, each thread reads a run of them and
/// validates their objects (neighbouring files mostly share their CRD, so the threads'
/// compiles rarely overlap), with no wait for the other threads' reading; a few files (stdin, one large List) are read first and
/// their objects then split between the threads.
fn read_and_validate(crds: &[inputs::Document], by_kind: &CrdIndex, paths: &[String], opts: &Options) -> Result<Work, String> {
    let phase = Instant::now();
    let sources = sources(paths)?;
    let olds = match read_old(&opts.old) {
        Ok(o) => o,
        Err(e) => {
            // A file of objects that does not read is reported first, as it is read first.
            for (file, text) in &sources {
                read_one(file, text.as_deref())?;
            }
            return Err(e);
        }
    };
    let olds = old_index(&olds);
    let cores = cores();
    let mut timing = Timing::default();
    let mut work = Work { texts: HashMap::new(), objects: Vec::new(), verdicts: Vec::new(), updates: Vec::new(), timing: Timing::default() };
    if sources.len() >= 2 * cores {
        let runs = map_runs(&sources, cores.min(sources.len().div_ceil(16)), |part| {
            // The thread reads its files, compiles what their objects need, then validates
            // them: the objects' values stay together in memory, apart from the compiles'
            // and validations' short-lived allocations (interleaved, validating ran a third
            // slower).
            let mut read: Vec<(String, Text, Vec<Object>)> = Vec::with_capacity(part.len());
            let mut error = None;
            for (file, text) in part {
                match read_one(file, text.as_deref()) {
                    Ok((text, objects)) => read.push((file.clone(), text, objects)),
                    Err(e) => {
                        error = Some(e);
                        break;
                    }
                }
            }
            let mut judge = Judge::new(crds, by_kind, &olds, opts);
            for (_, _, objects) in &read {
                objects.iter().for_each(|o| judge.prepare(o));
            }
            let mut done: Done = Vec::with_capacity(read.len() + 1);
            for (file, text, objects) in read {
                let verdicts = objects.iter().map(|o| judge.judge(o)).collect();
                done.push(Ok((file, text, objects, verdicts)));
            }
            done.extend(error.map(Err));
            (done, judge.finish(phase))
        });
        timing.threads = runs.len();
        for (done, t) in runs {
            take(done, &mut work)?;
            timing.add(t);
        }
    } else {
        let read: Vec<Result<(Text, Vec<Object>), String>> = par_map(&sources, cores, |(file, text)| read_one(file, text.as_deref()));
        let mut objects = Vec::new();
        for (r, (file, _)) in read.into_iter().zip(&sources) {
            let (text, objs) = r?;
            work.texts.insert(file.clone(), text);
            objects.extend(objs);
        }
        let validating = Instant::now();
        let read_in = validating - phase;
        let runs = map_runs(&objects, cores.min(objects.len().div_ceil(32)), |part| {
            let mut judge = Judge::new(crds, by_kind, &olds, opts);
            part.iter().for_each(|o| judge.prepare(o));
            let verdicts: Vec<(Verdict, bool)> = part.iter().map(|o| judge.judge(o)).collect();
            (verdicts, judge.finish(validating))
        });
        timing.threads = runs.len();
        for (verdicts, mut t) in runs {
            t.objects += read_in;
            timing.add(t);
            for (v, update) in verdicts {
                work.verdicts.push(v);
                work.updates.push(update);
            }
        }
        work.objects = objects;
    }
    work.timing = timing;
    Ok(work)
}

/// A thread's files into the whole, in order; the first error ends the work.
fn take(done: Done, work: &mut Work) -> Result<(), String> {
    for d in done {
        let (file, text, objects, verdicts) = d?;
        work.texts.insert(file, text);
        work.objects.extend(objects);
        for (v, update) in verdicts {
            work.verdicts.push(v);
            work.updates.push(update);
        }
    }
    Ok(())
}

impl Timing {
    /// A thread's figures into the whole: counts add up, times are the longest thread's.
    fn add(&mut self, t: Timing) {
        self.compiled += t.compiled;
        self.compiling = self.compiling.max(t.compiling);
        self.validating = self.validating.max(t.validating);
        self.objects = self.objects.max(t.objects);
    }
}

/// The texts `paths` name: stdin's (read here) for `-` or no path at all, then the files.
fn sources(paths: &[String]) -> Result<Vec<Source>, String> {
    let mut sources: Vec<Source> = Vec::new();
    let files: Vec<String> = paths.iter().filter(|p| *p != "-").cloned().collect();
    if paths.is_empty() || paths.iter().any(|p| p == "-") {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| format!("cannot read stdin: {}", e))?;
        sources.push(("-".into(), Some(text)));
    }
    sources.extend(inputs::files(&files)?.iter().map(|f| (f.display().to_string(), None)));
    Ok(sources)
}

/// The old objects of `--old`'s files and directories (stdin holds the new ones).
fn read_old(paths: &[String]) -> Result<Vec<Object>, String> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    if paths.iter().any(|p| p == "-") {
        return Err("--old reads files and directories, not stdin".into());
    }
    let files: Vec<String> = inputs::files(paths)?.iter().map(|f| f.display().to_string()).collect();
    let threads = cores().min(files.len().div_ceil(16));
    let mut out = Vec::new();
    for r in par_map(&files, threads, |f| read_one(f, None).map(|(_, objs)| objs)) {
        out.extend(r?);
    }
    Ok(out)
}

/// What matches an old object to a new one: apiVersion, kind, namespace and name, as written.
type Identity<'v> = (&'v str, &'v str, &'v str, &'v str);

fn identity(v: &Value) -> Option<Identity<'_>> {
    let s = |p: &str| v.pointer(p).and_then(Value::as_str).unwrap_or("");
    let name = s("/metadata/name");
    // An object without a name (generateName) is always a create.
    (!name.is_empty()).then(|| (s("/apiVersion"), s("/kind"), s("/metadata/namespace"), name))
}

/// The old objects by identity (the first of each).
fn old_index(olds: &[Object]) -> HashMap<Identity<'_>, &Value> {
    let mut index = HashMap::new();
    for o in olds {
        if let Some(id) = identity(&o.value) {
            index.entry(id).or_insert(&o.value);
        }
    }
    index
}

/// One text's documents and objects (`text`: already read, else read from `file`).
fn read_one(file: &str, text: Option<&str>) -> Result<(Text, Vec<Object>), String> {
    let text: Cow<str> = match text {
        Some(t) => Cow::Borrowed(t),
        None => Cow::Owned(std::fs::read_to_string(file).map_err(|e| format!("cannot read {}: {}", file, e))?),
    };
    // A JSON text (one document, no byte-order mark): read without positions, its values
    // moved into the objects; positions come later where an error needs them.
    let blanks = text.len() - text.trim_start_matches([' ', '\t', '\r', '\n']).len();
    if text[blanks..].starts_with(['{', '[']) {
        let mut docs = crdlab::text::yaml::read_documents(&text).map_err(|e| inputs::read_error(file, e.line, e.column, &e.message))?;
        if docs.len() == 1 {
            let value = docs.pop().unwrap_or_default();
            let before = &text[..blanks];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            let mut objects = Vec::new();
            match value {
                Value::Null => {}
                value if inputs::list_items(&value).is_some() => {
                    let items = match value {
                        Value::Object(mut m) => match m.remove("items") {
                            Some(Value::Array(items)) => items,
                            _ => Vec::new(),
                        },
                        _ => Vec::new(),
                    };
                    for (i, item) in items.into_iter().enumerate() {
                        objects.push(Object { file: file.to_string(), document: 0, item: Some(i), value: item });
                    }
                }
                value => objects.push(Object { file: file.to_string(), document: 0, item: None, value }),
            }
            // The text is kept (moved, when read here) to place errors later.
            let t = Text { docs: std::cell::OnceCell::new(), json: Some(text.into_owned()), json_root: Some((line as u32, column as u32)) };
            return Ok((t, objects));
        }
    }
    let docs = crdlab::text::yaml::read_documents_with_positions(&text).map_err(|e| inputs::read_error(file, e.line, e.column, &e.message))?;
    let mut objects = Vec::new();
    for (document, (value, _)) in docs.iter().enumerate() {
        if value.is_null() {
            continue;
        }
        match inputs::list_items(value) {
            Some(items) => {
                for (i, item) in items.iter().enumerate() {
                    objects.push(Object { file: file.to_string(), document, item: Some(i), value: item.clone() });
                }
            }
            None => objects.push(Object { file: file.to_string(), document, item: None, value: value.clone() }),
        }
    }
    let docs = std::cell::OnceCell::from(docs);
    Ok((Text { docs, json: None, json_root: None }, objects))
}

/// group → kind → the CRDs defining it, in the order named.
type CrdIndex = HashMap<String, HashMap<String, Vec<usize>>>;

/// One thread's judge: the CRDs its objects need, compiled once each before any is validated (a compiled CRD holds
/// `Rc`s: it stays on its thread), and the time spent.
struct Judge<'a> {
    crds: &'a [inputs::Document],
    by_kind: &'a CrdIndex,
    olds: &'a HashMap<Identity<'a>, &'a Value>,
    opts: &'a Options,
    compiled: HashMap<usize, Result<CompiledCrd, String>>,
    compiling: Duration,
    validating: Duration,
}

impl<'a> Judge<'a> {
    fn new(crds: &'a [inputs::Document], by_kind: &'a CrdIndex, olds: &'a HashMap<Identity<'a>, &'a Value>, opts: &'a Options) -> Self {
        Judge { crds, by_kind, olds, opts, compiled: HashMap::new(), compiling: Duration::ZERO, validating: Duration::ZERO }
    }

    /// Compiles `o`'s CRD, if this thread has not yet.
    fn prepare(&mut self, o: &Object) {
        if let Some(i) = crd_of(o, self.crds, self.by_kind) {
            if !self.compiled.contains_key(&i) {
                let t = Instant::now();
                let c = compile(&self.crds[i], self.opts.kube);
                self.compiling += t.elapsed();
                self.compiled.insert(i, c);
            }
        }
    }

    /// `o`'s verdict (its CRD compiled by [`Judge::prepare`]), and whether it is an update
    /// (some old object has its identity).
    fn judge(&mut self, o: &Object) -> (Verdict, bool) {
        let t0 = Instant::now();
        let old = if self.olds.is_empty() { None } else { identity(&o.value).and_then(|id| self.olds.get(&id).copied()) };
        let crd = crd_of(o, self.crds, self.by_kind);
        let v = verdict(o, old, crd.and_then(|i| self.compiled.get(&i)), self.opts);
        self.validating += t0.elapsed();
        (v, old.is_some())
    }

    /// This thread's figures, its time counted from `since` (when the work began).
    fn finish(self, since: Instant) -> Timing {
        Timing {
            threads: 1,
            compiled: self.compiled.len(),
            compiling: self.compiling,
            validating: self.validating,
            objects: since.elapsed().saturating_sub(self.compiling),
        }
    }
}

/// The CRD defining `o`'s group and kind: the first that serves its version, else the first.
fn crd_of(o: &Object, crds: &[inputs::Document], by_kind: &CrdIndex) -> Option<usize> {
    let api_version = o.value.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = o.value.get("kind").and_then(Value::as_str).unwrap_or("");
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    let candidates = by_kind.get(group)?.get(kind)?;
    let serves = |i: &usize| {
        crds[*i].value.pointer("/spec/versions").and_then(Value::as_array).is_some_and(|vs| {
            vs.iter().any(|v| v.get("name").and_then(Value::as_str) == Some(version) && v.get("served").and_then(Value::as_bool) == Some(true))
        })
    };
    candidates.iter().copied().find(serves).or_else(|| candidates.first().copied())
}

/// A CRD compiled for validation; one the apiserver would refuse is an error for its objects.
fn compile(doc: &inputs::Document, kube: KubeVersion) -> Result<CompiledCrd, String> {
    let where_ = || format!("{} (document {})", doc.file.display(), doc.index + 1);
    let c = CompiledCrd::from_value(&doc.value, kube).map_err(|e| format!("its CRD in {} cannot be read: {}", where_(), e))?;
    if let Some(e) = c.crd_errors.first() {
        return Err(format!("its CRD {} ({}) is invalid: {}", c.crd.metadata.name, where_(), e.message_for(kube)));
    }
    Ok(c)
}

/// `o`'s verdict against `crd` (`None`: no CRD defines its kind).
fn verdict(o: &Object, old: Option<&Value>, crd: Option<&Result<CompiledCrd, String>>, opts: &Options) -> Verdict {
    let api_version = o.value.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = o.value.get("kind").and_then(Value::as_str).unwrap_or("");
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    let Some(crd) = crd else {
        let what = if kind.is_empty() {
            "the document has no kind".to_string()
        } else {
            format!("no CRD defines {} in {}", kind, if group.is_empty() { "the core group" } else { group })
        };
        return Verdict::Skipped(what);
    };
    let crd = match crd {
        Ok(c) => c,
        Err(e) => return Verdict::Invalid { errors: vec![(String::new(), e.clone(), "CRD")], warnings: vec![] },
    };
    let Some(ver) = crd.version(Some(version)).filter(|v| crd.crd.spec.versions.get(v.index).is_some_and(|sv| sv.served)) else {
        // kubectl's mapping error: the server has no such resource.
        return Verdict::Invalid {
            errors: vec![(String::new(), format!("no matches for kind \"{}\" in version \"{}\"", kind, api_version), "Not found")],
            warnings: vec![],
        };
    };
    // Only the errors are reported: no copy of each object as defaulted.
    let options = ValidateOptions { ratcheting: opts.ratcheting, keep_defaulted: false, ..ValidateOptions::default() };
    match validate_object(crd, ver, &o.value, old, &options) {
        Err(e) => Verdict::Invalid { errors: vec![(String::new(), e, "Request error")], warnings: vec![] },
        Ok(out) => {
            let mut warnings: Vec<String> = out.unknown_fields.iter().map(|u| format!("unknown field \"{}\"", u)).collect();
            warnings.extend(out.warnings.iter().map(|w| w.message_for(opts.kube)));
            if out.errors.is_empty() {
                Verdict::Valid { warnings }
            } else {
                Verdict::Invalid {
                    errors: out.errors.iter().map(|e| (e.field.as_str().to_string(), e.message_for(opts.kube), e.kind.as_str())).collect(),
                    warnings,
                }
            }
        }
    }
}
